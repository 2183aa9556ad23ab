// Collectives in the communication structure: the simulated lowering gives the messages the
// runtime's algorithm sends (checked by hand on one case), every collective kept as one call
// round-trips from 2, 4, 8 ranks to sizes where the decision table picks other algorithms,
// and what cannot be lowered is refused at its call site.
#include "mpiete/scaling/CollSim.h"
#include "mpiete/scaling/CommStructure.h"

#include <gtest/gtest.h>

#include <functional>

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
  for (uint8_t K = 0; K <= mpiete::trace::LastCollKind; ++K) {
    const CollKind Kind = CollKind(K);
    const bool Rooted = Kind == CollKind::Bcast || Kind == CollKind::Reduce ||
                        Kind == CollKind::Gather || Kind == CollKind::Gatherv ||
                        Kind == CollKind::Scatter || Kind == CollKind::Scatterv;
    roundTrip({Kind, Kind == CollKind::Barrier ? 0u : 2048u, Rooted ? 0 : -1}, {16, 13, 64});
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
