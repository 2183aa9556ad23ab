// Collectives in the communication structure: the simulated lowering gives the messages the
// runtime's algorithm sends (checked by hand on one case), every collective kept as one call
// round-trips from 2, 4, 8 ranks to sizes where the decision table picks other algorithms,
// and what cannot be lowered is refused at its call site.
#include "ThroughTheFile.h"
#include "mpiete/CommId.h"
#include "mpiete/scaling/CollSim.h"
#include "mpiete/scaling/CommStructure.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>

using namespace mpiete::scaling;
using mpiete::estimator::CompletedRequest;
using mpiete::estimator::NoStatus;
using mpiete::trace::CollKind;

namespace {

constexpr BlockId SiteA = (BlockId(0x0aa758c0) << 32) | 3;
constexpr BlockId SiteB = (BlockId(0x0aa758c0) << 32) | 7;
constexpr BlockId SiteC = (BlockId(0x0aa758c0) << 32) | 9;

TEST(CollSimTest, BarrierAtEightRanksIsRecursiveDoubling) {
  // Open MPI 4.1's table: barrier on 8..63 ranks is recursive doubling, a zero-byte sendrecv
  // with r xor 1, r xor 2, r xor 4 (receive posted first, then the send, then one waitall).
  std::vector<Event> Got;
  std::string Why;
  uint64_t Last = 10;
  ASSERT_TRUE(lowerCollective({CollKind::Barrier, -1, 0, 8, true, SiteA}, 5, 8, Last, Got, Why));
  std::vector<Event> Want;
  uint64_t Req = 10;
  for (int Peer : {4, 7, 1}) {
    Want.push_back(Event::recv(SiteA, Peer, 100, 0, ++Req, 0, 1));
    Want.push_back(Event::send(SiteA, Peer, 100, 0, ++Req, 0, 1));
    Want.push_back(Event::completion(SiteA, {{Req - 1, Peer, 100}, {Req, NoStatus, NoStatus}}));
  }
  ASSERT_EQ(Got.size(), Want.size());
  for (size_t K = 0; K < Want.size(); ++K)
    EXPECT_TRUE(sameEvent(Got[K], Want[K])) << "event " << K;
  EXPECT_EQ(Last, 16u);
}

/// A program: a ring exchange whose requests stay open across the collective (so request ids
/// after it depend on the lowering), the collective, the waitall, then the collective again.
struct Program {
  CollKind Kind;
  uint64_t Bytes; ///< per call, as the trace's Collective record counts it on the root
  int Root;
  uint64_t Comm = 0;
  std::vector<Event> rank(int R, int P, std::vector<CollRecord> &Colls) const {
    std::vector<Event> Es = {Event::segment(mpiete::ProgramStart, SiteA)};
    uint64_t Req = 0;
    Es.push_back(Event::recv(SiteA, (R + P - 1) % P, 5, 64, ++Req));
    Es.push_back(Event::send(SiteA, (R + 1) % P, 5, 64, ++Req));
    for (int Call = 0; Call < 2; ++Call) {
      Es.push_back(Event::segment(SiteA, SiteB));
      const bool Rooted = collBytesFromRoot(Kind);
      Colls.push_back({SiteB, Kind, Comm, Comm == 0, Root, Rooted && R != Root ? 0 : Bytes});
      std::string Why;
      EXPECT_TRUE(lowerCollective({Kind, Root, Bytes, 8, true, SiteB, Comm}, R, P, Req, Es, Why));
      if (Call == 0) {
        Es.push_back(Event::segment(SiteB, SiteC));
        Es.push_back(Event::completion(SiteC, {{1, (R + P - 1) % P, 5}, {2, NoStatus, NoStatus}}));
      }
    }
    return Es;
  }
  std::vector<MeasuredRun> measure(std::vector<int> Sizes) const {
    std::vector<MeasuredRun> Runs;
    for (int P : Sizes) {
      MeasuredRun Run{P, 1, {}, {}};
      for (int R = 0; R < P; ++R) {
        Run.Colls.emplace_back();
        Run.PerRank.push_back(rank(R, P, Run.Colls.back()));
      }
      Runs.push_back(std::move(Run));
    }
    return Runs;
  }
};

void roundTrip(const Program &Prog, std::vector<int> Targets) {
  CommStructure S;
  Refusal Why;
  ASSERT_TRUE(learnStructure(Prog.measure({2, 4, 8}), S, Why))
      << int(Prog.Kind) << ": " << Why.Message;
  for (int P : Targets)
    for (int R = 0; R < P; ++R) {
      std::vector<CollRecord> Colls;
      const std::vector<Event> Want = Prog.rank(R, P, Colls);
      SyntheticEventSource Gen(S, R, P, 1);
      Event E;
      size_t K = 0;
      while (Gen.next(E)) {
        ASSERT_LT(K, Want.size()) << "kind " << int(Prog.Kind) << " P " << P << " rank " << R;
        ASSERT_TRUE(sameEvent(E, Want[K]))
            << "kind " << int(Prog.Kind) << " P " << P << " rank " << R << " event " << K;
        ++K;
      }
      EXPECT_EQ(K, Want.size()) << "kind " << int(Prog.Kind) << " P " << P << " rank " << R;
    }
}

TEST(CollStructureTest, EveryCollectiveRoundTrips) {
  // 2 KiB per call (divisible by every rank count used): at 16 and 64 ranks most kinds run
  // other algorithms than at 2, 4 and 8 (the decision table changes with the size).
  for (uint8_t K = 0; K <= mpiete::trace::LastGlobalCollKind; ++K) {
    const CollKind Kind = CollKind(K);
    const bool Rooted = Kind == CollKind::Bcast || Kind == CollKind::Reduce ||
                        Kind == CollKind::Gather || Kind == CollKind::Gatherv ||
                        Kind == CollKind::Scatter || Kind == CollKind::Scatterv;
    roundTrip({Kind, Kind == CollKind::Barrier ? 0u : 2048u, Rooted ? 0 : -1}, {16, 13, 64});
  }
}

TEST(CollStructureTest, NeighbourhoodCollectivesAreRefusedAtTheirSite) {
  // A 1-D periodic MPI_Neighbor_alltoall at 2, 4, 8 ranks: each rank receives from and sends
  // to r - 1 and r + 1 (direction tags, as runtime/lib/coll/Neighbor.cpp). The peers come from
  // a topology the trace does not hold, so the structure refuses the call, at its site, by name.
  std::string LowerWhy;
  uint64_t Last = 0;
  std::vector<Event> Lowered;
  EXPECT_FALSE(lowerCollective({CollKind::NeighborAlltoall, -1, 16, 8, true, SiteB}, 0, 4, Last,
                               Lowered, LowerWhy));
  EXPECT_NE(LowerWhy.find("neighbourhood collective"), std::string::npos) << LowerWhy;
  std::vector<MeasuredRun> Runs;
  for (int P : {2, 4, 8}) {
    MeasuredRun Run{P, 1, {}, {}};
    for (int R = 0; R < P; ++R) {
      const int Src = (R + P - 1) % P, Dst = (R + 1) % P;
      const int Tag = int(CollKind::NeighborAlltoall) * 1024;
      std::vector<Event> Es = {Event::segment(mpiete::ProgramStart, SiteA),
                               Event::segment(SiteA, SiteB)};
      Run.Colls.push_back({{SiteB, CollKind::NeighborAlltoall, 0, true, -1, 16}});
      Es.push_back(Event::recv(SiteB, Src, Tag, 8, 1, 0, 1));
      Es.push_back(Event::recv(SiteB, Dst, Tag + 1, 8, 2, 0, 1));
      Es.push_back(Event::send(SiteB, Src, Tag + 1, 8, 3, 0, 1));
      Es.push_back(Event::send(SiteB, Dst, Tag, 8, 4, 0, 1));
      Es.push_back(Event::completion(
          SiteB,
          {{1, Src, Tag}, {2, Dst, Tag + 1}, {3, NoStatus, NoStatus}, {4, NoStatus, NoStatus}}));
      Run.PerRank.push_back(std::move(Es));
    }
    Runs.push_back(std::move(Run));
  }
  CommStructure S;
  Refusal Why;
  EXPECT_FALSE(learnStructure(Runs, S, Why));
  EXPECT_EQ(Why.Site, SiteB);
  EXPECT_NE(Why.Message.find("neighbourhood collective (neighbor_alltoall)"), std::string::npos)
      << Why.Message;
}

TEST(CollStructureTest, CountsThatDoNotDivideAreNamed) {
  // 2 KiB scattered in equal parts: whole at every power of two, at 12 ranks 21.33 elements of
  // 8 bytes a member; an allreduce of 2 KiB is whole anywhere.
  for (CollKind Kind : {CollKind::Scatter, CollKind::Allreduce}) {
    CommStructure S;
    Refusal Why;
    const Program Prog{Kind, 2048, Kind == CollKind::Scatter ? 0 : -1};
    ASSERT_TRUE(learnStructure(Prog.measure({2, 4, 8}), S, Why)) << Why.Message;
    EXPECT_TRUE(S.fractionsAt(64, 1).empty());
    const std::vector<CommStructure::Fraction> Fs = S.fractionsAt(12, 1);
    if (Kind == CollKind::Allreduce) {
      EXPECT_TRUE(Fs.empty());
      continue;
    }
    ASSERT_EQ(Fs.size(), 1u);
    EXPECT_EQ(Fs[0].Site, SiteB);
    EXPECT_NEAR(Fs[0].Value, 2048.0 / 8 / 12, 1e-9);
    EXPECT_NE(Fs[0].What.find("split among the members"), std::string::npos) << Fs[0].What;
  }
}

TEST(CollStructureTest, SubCommunicatorRefusedAtItsSite) {
  Program Prog{CollKind::Allreduce, 64, -1, 5};
  CommStructure S;
  Refusal Why;
  EXPECT_FALSE(learnStructure(Prog.measure({2, 4, 8}), S, Why));
  EXPECT_EQ(Why.Site, SiteB);
  EXPECT_NE(Why.Message.find("communicator without every rank"), std::string::npos) << Why.Message;
}

/// A collective on a sub-communicator made by MPI_Comm_split of the world (its first
/// communicator-creating call): rank R's members are the block of S consecutive ranks holding R
/// (Stride: every S-th rank from R mod S), S the first factor of MPI_Dims_create(P, 2): the
/// process rows (or columns) of a row-major grid. Rooted kinds take the communicator's rank 0.
struct SubProgram {
  CollKind Kind;
  uint64_t Bytes;
  bool Stride = false;
  void place(int R, int P, int &Index, int &Count, int &First, int &Step) const {
    const int S = dimsCreate(P, 2)[0];
    if (Stride) {
      First = R % S, Index = R / S, Count = P / S, Step = S;
    } else {
      Index = R % S, First = R - Index, Count = S, Step = 1;
    }
  }
  std::vector<Event> rank(int R, int P, std::vector<CollRecord> &Colls,
                          std::vector<CommCreateRecord> &Comms) const {
    int Index, Count, First, Step;
    place(R, P, Index, Count, First, Step);
    const uint64_t Id = mpiete::childCommId(0, 0, First);
    std::vector<int32_t> Members;
    for (int K = 0; K < Count; ++K)
      Members.push_back(First + K * Step);
    Comms.push_back({SiteA, 0, Id, Members});
    const bool Rooted = collBytesFromRoot(Kind) || Kind == CollKind::Reduce;
    const int Root = Rooted ? 0 : -1; // the communicator's rank 0
    std::vector<Event> Es = {Event::segment(mpiete::ProgramStart, SiteB)};
    uint64_t Req = 0;
    Colls.push_back({SiteB, Kind, Id, Count == P, Rooted ? First : -1,
                     collBytesFromRoot(Kind) && Index != 0 ? 0 : Bytes});
    std::string Why;
    const size_t From = Es.size();
    EXPECT_TRUE(
        lowerCollective({Kind, Root, Bytes, 8, true, SiteB, Id}, Index, Count, Req, Es, Why))
        << Why;
    for (size_t K = From; K < Es.size(); ++K) { // the trace names world ranks
      if (Es[K].Kind != mpiete::estimator::EventKind::Completion && Es[K].Peer >= 0)
        Es[K].Peer = First + Es[K].Peer * Step;
      for (CompletedRequest &D : Es[K].Completed)
        if (D.Source >= 0)
          D.Source = First + D.Source * Step;
    }
    return Es;
  }
  std::vector<MeasuredRun> measure(std::vector<int> Sizes) const {
    std::vector<MeasuredRun> Runs;
    for (int P : Sizes) {
      MeasuredRun Run{P, 1, {}, {}, {}};
      for (int R = 0; R < P; ++R) {
        Run.Colls.emplace_back();
        Run.Comms.emplace_back();
        Run.PerRank.push_back(rank(R, P, Run.Colls.back(), Run.Comms.back()));
      }
      Runs.push_back(std::move(Run));
    }
    return Runs;
  }
};

TEST(CollStructureTest, SubCommunicatorsOfAGridRoundTrip) {
  // Rows and columns of the MPI_Dims_create(P, 2) grid, learnt from 2, 4, 8 and 16 ranks (row
  // lengths 2, 2, 4, 4), generated at 32, 36 and 64 ranks (rows of 8, 6 and 8): every event,
  // the communicator ids included, as the runtime would record them.
  for (bool Stride : {false, true})
    for (CollKind Kind : {CollKind::Allreduce, CollKind::Reduce, CollKind::Bcast}) {
      const SubProgram Prog{Kind, 4096, Stride};
      CommStructure S;
      Refusal Why;
      ASSERT_TRUE(learnStructure(Prog.measure({2, 4, 8, 16}), S, Why)) << Why.Message;
      for (int P : {32, 36, 64})
        for (int R = 0; R < P; ++R) {
          std::vector<CollRecord> Colls;
          std::vector<CommCreateRecord> Comms;
          const std::vector<Event> Want = Prog.rank(R, P, Colls, Comms);
          SyntheticEventSource Gen(S, R, P, 1);
          Event E;
          size_t K = 0;
          while (Gen.next(E)) {
            ASSERT_LT(K, Want.size());
            ASSERT_TRUE(sameEvent(E, Want[K])) << "stride " << Stride << " kind " << int(Kind)
                                               << " P " << P << " rank " << R << " event " << K;
            ++K;
          }
          EXPECT_FALSE(Gen.failed());
          EXPECT_EQ(K, Want.size()) << "P " << P << " rank " << R;
        }
      EXPECT_TRUE(S.formAmbiguities().empty()) << S.formAmbiguities().front().What;
      const std::vector<std::string> Lines = S.describe();
      ASSERT_FALSE(Lines.empty());
      EXPECT_NE(Lines.front().find(Stride ? "every d0 of Dims_create(P, 2)-th rank"
                                          : "blocks of d0 of Dims_create(P, 2) consecutive ranks"),
                std::string::npos)
          << Lines.front();
    }
}

// From 2 and 4 ranks the process rows of MPI_Dims_create(P, 2) have 2 ranks each: blocks of 2
// fit them as well (and two 3-D readings), and part from them at 8 ranks (rows of 4), where
// the model is refused at the call; at 4 ranks it is generated exactly.
TEST(CollStructureTest, SubCommunicatorFromTwoAndFourRanksIsAmbiguous) {
  const SubProgram Prog{CollKind::Allreduce, 4096};
  CommStructure S;
  Refusal Why;
  ASSERT_TRUE(learnStructure(Prog.measure({2, 4}), S, Why)) << Why.Message;
  const std::vector<CommStructure::Ambiguity> A = S.formAmbiguities();
  ASSERT_EQ(A.size(), 1u);
  EXPECT_EQ(A[0].Site, SiteB);
  EXPECT_EQ(A[0].PartsAt, 3);
  EXPECT_EQ(A[0].What, "its communicator is blocks of 2 consecutive ranks, but blocks of d0 of "
                       "Dims_create(P, 2) consecutive ranks, blocks of d0 of Dims_create(P, 3) "
                       "consecutive ranks and blocks of d0 * d2 of Dims_create(P, 3) consecutive "
                       "ranks fit every base run as well");
  BlockId At = 0;
  EXPECT_EQ(unmeasuredRankCount(S, {2, 4}, 4, 1, At), "");
  EXPECT_EQ(unmeasuredRankCount(S, {2, 4}, 8, 1, At),
            "the structure cannot be generated at 8 ranks: its communicator is blocks of 2 "
            "consecutive ranks, but blocks of d0 of Dims_create(P, 2) consecutive ranks gives "
            "every base run's as well; at 8 ranks they differ (rank 0: ranks 0-1 or ranks 0-3), "
            "and which one the program computes was never measured: add a base run at 3 ranks "
            "(where they first differ) or at 8");
  EXPECT_EQ(At, SiteB);
  const std::vector<std::string> Lines = S.describe();
  ASSERT_FALSE(Lines.empty());
  EXPECT_EQ(Lines.front(),
            "every rank: 0aa758c0:7 MPI_Allreduce, bytes 4096, elements of 8 bytes, on a "
            "sub-communicator of blocks of 2 consecutive ranks (or blocks of d0 of "
            "Dims_create(P, 2) consecutive ranks, or blocks of d0 of Dims_create(P, 3) "
            "consecutive ranks, or blocks of d0 * d2 of Dims_create(P, 3) consecutive ranks: the "
            "base runs fit them as well; they first differ at 3 ranks) (root as its rank), "
            "lowered at the target size as the runtime lowers it");
}

TEST(CollStructureTest, SubCommunicatorOfNoBlockOrStrideRefused) {
  // Members that are neither: rank R with R xor 1's pair, but listed in reverse order.
  Program Prog{CollKind::Allreduce, 64, -1, 5};
  auto Runs = Prog.measure({2, 4, 8});
  for (MeasuredRun &Run : Runs)
    for (int R = 0; R < Run.Ranks; ++R)
      Run.Comms.push_back({{SiteA, 0, 5, {R ^ 1, R}}});
  CommStructure S;
  Refusal Why;
  EXPECT_FALSE(learnStructure(Runs, S, Why));
  EXPECT_EQ(Why.Site, SiteB);
}

TEST(CollStructureTest, MessagesOfAnotherAlgorithmRefused) {
  // Lowered messages that are not the runtime's lowering of the recorded call: an allreduce
  // whose record says 64 bytes but whose messages carry 32 (as uneven v-counts would) is
  // refused at its site, not guessed.
  auto Runs = Program{CollKind::Allreduce, 64, -1}.measure({2, 4, 8});
  for (MeasuredRun &Run : Runs)
    for (std::vector<Event> &Seq : Run.PerRank)
      for (Event &E : Seq)
        if (E.Context == 1)
          E.Count = 32;
  CommStructure S;
  Refusal Why;
  EXPECT_FALSE(learnStructure(Runs, S, Why));
  EXPECT_EQ(Why.Site, SiteB);
  EXPECT_NE(Why.Message.find("MPI_Allreduce"), std::string::npos) << Why.Message;
}

/// Rank R's share of N values dealt as evenly as they come, the first N mod P ranks one more
/// (`nloc = n / np + (me < mod(n, np))`).
int64_t evenShare(int64_t N, int R, int P) { return N / P + (R < N % P ? 1 : 0); }

TEST(CollSimTest, UnevenGatherAndTransposeBlocks) {
  // 3 ranks holding 2, 1 and 1 of 4 values (8 bytes each). A gather to rank 0 receives 8
  // bytes from ranks 1 and 2; a transpose of the 4 x 4 values (each rank's record: its rows
  // of 4 values) sends rank j its nloc(R) x nloc(j) block: rank 1 sends 16 bytes to rank 0 and
  // 8 to rank 2, and receives the same.
  const std::vector<uint64_t> Gathered = {16, 8, 8}, Rows = {64, 32, 32};
  auto Bytes = [](const std::vector<Event> &Es, mpiete::estimator::EventKind K) {
    std::map<int32_t, uint64_t> By;
    for (const Event &E : Es)
      if (E.Kind == K)
        By[E.Peer] += E.Count;
    return By;
  };
  using mpiete::estimator::EventKind;
  std::vector<Event> Got;
  std::string Why;
  uint64_t Last = 0;
  CollCall G{CollKind::Gatherv, 0, 16, 8, true, SiteA};
  G.RankBytes = &Gathered;
  ASSERT_TRUE(lowerCollective(G, 0, 3, Last, Got, Why)) << Why;
  EXPECT_EQ(Bytes(Got, EventKind::RecvStart), (std::map<int32_t, uint64_t>{{1, 8}, {2, 8}}));
  Got.clear();
  CollCall T{CollKind::Alltoallv, -1, 32, 8, true, SiteA};
  T.RankBytes = &Rows;
  ASSERT_TRUE(lowerCollective(T, 1, 3, Last, Got, Why)) << Why;
  EXPECT_EQ(Bytes(Got, EventKind::SendStart), (std::map<int32_t, uint64_t>{{0, 16}, {2, 8}}));
  EXPECT_EQ(Bytes(Got, EventKind::RecvStart), (std::map<int32_t, uint64_t>{{0, 16}, {2, 8}}));
  // Blocks of no whole element (a record of 12 bytes against 8-byte elements) are refused.
  const std::vector<uint64_t> Odd = {64, 32, 12};
  T.RankBytes = &Odd;
  EXPECT_FALSE(lowerCollective(T, 1, 3, Last, Got, Why));
}

/// A program whose v-collective's counts are the ranks' shares of W values (evenShare), a
/// ring exchange before it so request ids after it depend on its lowering: a gather of each
/// rank's values to rank 0, an all-gather of them, a scatter of them from rank 0, or a transpose of
/// its rows of W values (its record W * nloc values; rank j gets nloc(R) x nloc(j) of them). The
/// truth is lowered from every rank's count computed here.
struct UnevenProgram {
  CollKind Kind;
  uint64_t bytes(int R, int P, double W) const {
    const int64_t N = int64_t(W);
    return uint64_t(8 * evenShare(N, R, P) * (Kind == CollKind::Alltoallv ? N : 1));
  }
  std::vector<Event> rank(int R, int P, double W, std::vector<CollRecord> &Colls) const {
    std::vector<Event> Es = {Event::segment(mpiete::ProgramStart, SiteA)};
    uint64_t Req = 0;
    Es.push_back(Event::recv(SiteA, (R + P - 1) % P, 5, 64, ++Req));
    Es.push_back(Event::send(SiteA, (R + 1) % P, 5, 64, ++Req));
    Es.push_back(Event::segment(SiteA, SiteB));
    const int Root = Kind == CollKind::Gatherv || Kind == CollKind::Scatterv ? 0 : -1;
    std::vector<uint64_t> All;
    uint64_t Sum = 0;
    for (int J = 0; J < P; ++J)
      Sum += All.emplace_back(bytes(J, P, W));
    // A scatter's root records what it sends in all, the other members nothing.
    Colls.push_back({SiteB, Kind, 0, true, Root,
                     Kind != CollKind::Scatterv ? bytes(R, P, W)
                     : R == Root                ? Sum
                                                : 0});
    CollCall C{Kind, Root, bytes(R, P, W), 8, true, SiteB};
    C.RankBytes = &All;
    std::string Why;
    EXPECT_TRUE(lowerCollective(C, R, P, Req, Es, Why)) << Why;
    Es.push_back(Event::segment(SiteB, SiteC));
    Es.push_back(Event::completion(SiteC, {{1, (R + P - 1) % P, 5}, {2, NoStatus, NoStatus}}));
    return Es;
  }
  std::vector<MeasuredRun> measure(std::vector<int> Ranks, std::vector<double> Ws) const {
    std::vector<MeasuredRun> Runs;
    for (double W : Ws)
      for (int P : Ranks) {
        MeasuredRun Run{P, W, {}, {}, {}};
        for (int R = 0; R < P; ++R) {
          Run.Colls.emplace_back();
          Run.PerRank.push_back(rank(R, P, W, Run.Colls.back()));
        }
        Runs.push_back(std::move(Run));
      }
    return Runs;
  }
};

TEST(CollStructureTest, UnevenVCountsOfSharesRoundTrip) {
  // Learnt from 2, 4 and 8 ranks at W = 13 and 21 (no count divides evenly), generated at 16,
  // 13 and 64 ranks (64: ranks 13-63 hold none of 13 values) and at W = 13, 30 and 100, from
  // the structure and from its model file.
  for (CollKind Kind :
       {CollKind::Gatherv, CollKind::Allgatherv, CollKind::Alltoallv, CollKind::Scatterv}) {
    const UnevenProgram Prog{Kind};
    CommStructure S;
    Refusal Why;
    ASSERT_TRUE(learnStructure(Prog.measure({2, 4, 8}, {13, 21}), S, Why))
        << int(Kind) << ": " << Why.Message;
    std::string Text;
    const CommStructure G = mpiete::scaling::test::throughTheFile(S, Text).Learnt;
    EXPECT_NE(Text.find(" share 7 1 0 0 0 0 1:1:0"), std::string::npos) << Text;
    for (const CommStructure *Each : std::vector<const CommStructure *>{&S, &G})
      for (double W : {13.0, 30.0, 100.0})
        for (int P : {16, 13, 64})
          for (int R = 0; R < P; ++R) {
            std::vector<CollRecord> Colls;
            const std::vector<Event> Want = Prog.rank(R, P, W, Colls);
            SyntheticEventSource Gen(*Each, R, P, W);
            Event E;
            size_t K = 0;
            while (Gen.next(E)) {
              ASSERT_LT(K, Want.size()) << int(Kind) << " P " << P << " W " << W << " rank " << R;
              ASSERT_TRUE(sameEvent(E, Want[K]))
                  << int(Kind) << " P " << P << " W " << W << " rank " << R << " event " << K;
              ++K;
            }
            EXPECT_FALSE(Gen.failed());
            EXPECT_EQ(K, Want.size()) << int(Kind) << " P " << P << " W " << W << " rank " << R;
          }
    const std::vector<std::string> Lines = S.describe();
    const std::string Want = Kind == CollKind::Alltoallv ? "bytes 8 * W^1 * (" : "bytes 8 * (";
    EXPECT_TRUE(std::any_of(Lines.begin(), Lines.end(),
                            [&](const std::string &L) {
                              return L.find(Want) != std::string::npos &&
                                     L.find("share of C") != std::string::npos;
                            }))
        << int(Kind) << ": " << ::testing::PrintToString(Lines);
  }
}

TEST(CollStructureTest, EvenSizesKeepWholeItemsAndSayWhatTheyCannotTell) {
  // At even sizes and even rank counts, n values dealt to ranks give pairs of ranks equal
  // shares, as n / 2 pairs of values dealt to pairs of ranks would: the learner takes n values
  // (a count whole at every size: at 501 values the pairs' count would be 250.5), keeps the
  // pairs beside them, and refuses a target where they differ.
  const UnevenProgram Prog{CollKind::Gatherv};
  CommStructure S;
  Refusal Why;
  ASSERT_TRUE(learnStructure(Prog.measure({2, 4, 8, 16}, {250, 390}), S, Why)) << Why.Message;
  const OpTemplate *Gather = nullptr;
  for (const RankClass &C : S.Classes)
    for (const OpTemplate &Op : C.Ops)
      if (Op.IsColl)
        Gather = &Op;
  ASSERT_NE(Gather, nullptr);
  EXPECT_EQ(Gather->Share.K, TripExpr::Dealt);
  EXPECT_EQ(Gather->Share.step(32), 1);
  EXPECT_EQ(Gather->Share.Sz.Coeff, 1.0);
  const std::vector<CommStructure::Ambiguity> Notes = S.formAmbiguities();
  ASSERT_EQ(Notes.size(), 1u);
  EXPECT_EQ(Notes[0].Site, SiteB);
  EXPECT_EQ(Notes[0].PartsAt, 3);
  EXPECT_EQ(Notes[0].What,
            "its byte count's share is rank r's share of C = 1 * W^1 (from the problem size W) "
            "items dealt round-robin to the P ranks, but group r / 2's share of C = 0.5 * W^1 "
            "(from the problem size W) items dealt round-robin to the G = P / 2 groups of 2 "
            "consecutive ranks fits every base run as well");
  // Refused where the two give some member another count: at 3 ranks, and at 16 for 501
  // values (rank 5: 31 or 32 values); at 16 ranks and 250 values they agree.
  BlockId At = 0;
  EXPECT_EQ(unmeasuredRankCount(S, {2, 4, 8, 16}, 16, 250, At), "");
  EXPECT_EQ(unmeasuredRankCount(S, {2, 4, 8, 16}, 16, 501, At),
            "the structure cannot be generated at 16 ranks: its byte count's share is rank r's "
            "share of C = 1 * W^1 (from the problem size W) items dealt round-robin to the P "
            "ranks, but group r / 2's share of C = 0.5 * W^1 (from the problem size W) items "
            "dealt round-robin to the G = P / 2 groups of 2 consecutive ranks gives every base "
            "run's as well; at 16 ranks they differ (rank 5: 248 or 256 bytes), and which one "
            "the program computes was never measured: add a base run at 3 ranks (where they "
            "first differ) or at 16");
  EXPECT_EQ(At, SiteB);
  EXPECT_NE(unmeasuredRankCount(S, {2, 4, 8, 16}, 3, 250, At), "");
}

TEST(CollStructureTest, UnevenCountsOfNoShareRefused) {
  // Rank r contributes r + 1 values (imbalance's MPI_Allgatherv): no share of items, refused
  // at the call with the forms tried.
  auto Runs = UnevenProgram{CollKind::Allgatherv}.measure({2, 4, 8}, {13});
  for (MeasuredRun &Run : Runs)
    for (int R = 0; R < Run.Ranks; ++R) {
      std::vector<CollRecord> Colls;
      std::vector<Event> Es = {Event::segment(mpiete::ProgramStart, SiteB)};
      std::vector<uint64_t> All;
      for (int J = 0; J < Run.Ranks; ++J)
        All.push_back(uint64_t(8 * (J + 1)));
      CollCall C{CollKind::Allgatherv, -1, All[size_t(R)], 8, true, SiteB};
      C.RankBytes = &All;
      uint64_t Req = 0;
      std::string Why;
      ASSERT_TRUE(lowerCollective(C, R, Run.Ranks, Req, Es, Why)) << Why;
      Run.PerRank[size_t(R)] = Es;
      Run.Colls[size_t(R)] = {{SiteB, CollKind::Allgatherv, 0, true, -1, All[size_t(R)]}};
    }
  CommStructure S;
  Refusal Why;
  EXPECT_FALSE(learnStructure(Runs, S, Why));
  EXPECT_EQ(Why.Site, SiteB);
  EXPECT_NE(Why.Message.find("nor a member's share of items"), std::string::npos) << Why.Message;
}

TEST(CollStructureTest, RefusalComesFromTheFurthestGrouping) {
  // Rank 0 does something else (so one class fails at once), and every other rank sends a
  // byte count no function explains at its last call: the refusal names that call.
  auto Make = [](int R, int P) {
    std::vector<Event> Es = {Event::segment(mpiete::ProgramStart, SiteA)};
    if (R == 0)
      return Es;
    Es.push_back(Event::send(SiteA, 0, 1, 8, 1));
    Es.push_back(Event::segment(SiteA, SiteC));
    Es.push_back(Event::send(SiteC, 0, 1, P == 2 ? 3 : P == 4 ? 5 : 11, 2));
    return Es;
  };
  std::vector<MeasuredRun> Runs;
  for (int P : {2, 4, 8}) {
    MeasuredRun Run{P, 1, {}, {}};
    for (int R = 0; R < P; ++R)
      Run.PerRank.push_back(Make(R, P));
    Runs.push_back(std::move(Run));
  }
  CommStructure S;
  Refusal Why;
  EXPECT_FALSE(learnStructure(Runs, S, Why));
  EXPECT_EQ(Why.Site, SiteC) << Why.Message;
}

} // namespace
