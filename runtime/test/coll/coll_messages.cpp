// Checks the messages the lowered collectives send, counted by the transport double.
//
//   coll_messages                 the ctest: message counts per rank for cases whose algorithm
//                                 fixes them (binomial bcast: the root sends ceil(log2 p), ...)
//   coll_messages ours|real <collective> <bytes> <root>
//                                 one collective on MPI_COMM_WORLD, through mpiete (ours: prints
//                                 per-peer counts in Open MPI's pml-monitoring line format) or
//                                 through MPI itself (real: run it under
//                                 `--mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output
//                                 1`, or under MPICH with ucx_spy.so preloaded, which makes it
//                                 print MPICH's own counts); compare_with_ompi.sh and
//                                 compare_with_mpich.sh diff the two.
#include "PmpiTransport.h"
#include "coll/CollDecision.h"
#include "coll/Collectives.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

/// runtime/test/coll/ucx_spy.c when preloaded (compare_with_mpich.sh), else null.
extern "C" void mpiete_ucx_spy(int Enable, unsigned long long *Msgs, unsigned long long *Bytes,
                               int N) __attribute__((weak));

namespace {

using namespace mpiete;

constexpr mpiete_site_t Site = MPIETE_ID(0xc011, 9);
int Rank = 0, Size = 1;
int Failures = 0;

void swapOp(void *In, void *InOut, int *Len, MPI_Datatype *) { // a = in (first operand wins)
  for (int I = 0; I < *Len; ++I)
    static_cast<int *>(InOut)[I] = static_cast<int *>(In)[I];
}

/// Runs one collective of about Bytes bytes (int elements for reductions, chars otherwise).
/// Real: through PMPI; else through mpiete on the counting transport.
void runOne(const std::string &C, long Bytes, int Root, bool Real, MPI_Op NonCommute) {
  const MPI_Comm W = MPI_COMM_WORLD;
  std::vector<char> A(static_cast<size_t>(Bytes * Size + 64), 1), B(A.size(), 0);
  std::vector<int> Counts(Size), Displs(Size);
  for (int R = 0; R < Size; ++R) {
    Counts[R] = static_cast<int>(Bytes) * (R % 3 == 1 ? 0 : 1 + R % 2); // uneven, zeros
    Displs[R] = R == 0 ? 0 : Displs[R - 1] + Counts[R - 1];
  }
  const int N = static_cast<int>(Bytes), NInt = static_cast<int>(Bytes / 4);
  testing::resetCounts(Site);
  if (C == "bcast")
    Real ? MPI_Bcast(A.data(), N, MPI_CHAR, Root, W)
         : coll::bcast(Site, A.data(), N, MPI_CHAR, Root, W);
  else if (C == "reduce" || C == "reduce_nc") {
    const MPI_Op Op = C == "reduce" ? MPI_SUM : NonCommute;
    Real ? MPI_Reduce(A.data(), B.data(), NInt, MPI_INT, Op, Root, W)
         : coll::reduce(Site, A.data(), B.data(), NInt, MPI_INT, Op, Root, W);
  } else if (C == "allreduce" || C == "allreduce_nc") {
    const MPI_Op Op = C == "allreduce" ? MPI_SUM : NonCommute;
    Real ? MPI_Allreduce(A.data(), B.data(), NInt, MPI_INT, Op, W)
         : coll::allreduce(Site, A.data(), B.data(), NInt, MPI_INT, Op, W);
  } else if (C == "gather")
    Real ? MPI_Gather(A.data(), N, MPI_CHAR, B.data(), N, MPI_CHAR, Root, W)
         : coll::gather(Site, A.data(), N, MPI_CHAR, B.data(), N, MPI_CHAR, Root, W);
  else if (C == "scatter")
    Real ? MPI_Scatter(A.data(), N, MPI_CHAR, B.data(), N, MPI_CHAR, Root, W)
         : coll::scatter(Site, A.data(), N, MPI_CHAR, B.data(), N, MPI_CHAR, Root, W);
  else if (C == "gatherv")
    Real ? MPI_Gatherv(A.data(), Counts[Rank], MPI_CHAR, B.data(), Counts.data(), Displs.data(),
                       MPI_CHAR, Root, W)
         : coll::gatherv(Site, A.data(), Counts[Rank], MPI_CHAR, B.data(), Counts.data(),
                         Displs.data(), MPI_CHAR, Root, W);
  else if (C == "scatterv")
    Real ? MPI_Scatterv(A.data(), Counts.data(), Displs.data(), MPI_CHAR, B.data(), Counts[Rank],
                        MPI_CHAR, Root, W)
         : coll::scatterv(Site, A.data(), Counts.data(), Displs.data(), MPI_CHAR, B.data(),
                          Counts[Rank], MPI_CHAR, Root, W);
  else if (C == "allgather")
    Real ? MPI_Allgather(A.data(), N, MPI_CHAR, B.data(), N, MPI_CHAR, W)
         : coll::allgather(Site, A.data(), N, MPI_CHAR, B.data(), N, MPI_CHAR, W);
  else if (C == "allgatherv")
    Real ? MPI_Allgatherv(A.data(), Counts[Rank], MPI_CHAR, B.data(), Counts.data(), Displs.data(),
                          MPI_CHAR, W)
         : coll::allgatherv(Site, A.data(), Counts[Rank], MPI_CHAR, B.data(), Counts.data(),
                            Displs.data(), MPI_CHAR, W);
  else if (C == "alltoall")
    Real ? MPI_Alltoall(A.data(), N, MPI_CHAR, B.data(), N, MPI_CHAR, W)
         : coll::alltoall(Site, A.data(), N, MPI_CHAR, B.data(), N, MPI_CHAR, W);
  else if (C == "alltoallv") {
    std::vector<int> Same(Size, N), D(Size);
    for (int R = 0; R < Size; ++R)
      D[R] = R * N;
    Real ? MPI_Alltoallv(A.data(), Same.data(), D.data(), MPI_CHAR, B.data(), Same.data(), D.data(),
                         MPI_CHAR, W)
         : coll::alltoallv(Site, A.data(), Same.data(), D.data(), MPI_CHAR, B.data(), Same.data(),
                           D.data(), MPI_CHAR, W);
  } else if (C == "reduce_scatter_block" || C == "reduce_scatter_block_nc") {
    const MPI_Op Op = C == "reduce_scatter_block" ? MPI_SUM : NonCommute;
    Real ? MPI_Reduce_scatter_block(A.data(), B.data(), NInt, MPI_INT, Op, W)
         : coll::reduceScatterBlock(Site, A.data(), B.data(), NInt, MPI_INT, Op, W);
  } else if (C == "reduce_scatter" || C == "reduce_scatter_nc" || C == "reduce_scatter_even_nc") {
    // Uneven blocks with zeros, or (even) Bytes / 4 ints each.
    const MPI_Op Op = C == "reduce_scatter" ? MPI_SUM : NonCommute;
    std::vector<int> IC(Size);
    for (int R = 0; R < Size; ++R)
      IC[R] = C == "reduce_scatter_even_nc" ? NInt : Counts[R] / 4;
    Real ? MPI_Reduce_scatter(A.data(), B.data(), IC.data(), MPI_INT, Op, W)
         : coll::reduceScatter(Site, A.data(), B.data(), IC.data(), MPI_INT, Op, W);
  } else if (C == "scan")
    Real ? MPI_Scan(A.data(), B.data(), NInt, MPI_INT, MPI_SUM, W)
         : coll::scan(Site, A.data(), B.data(), NInt, MPI_INT, MPI_SUM, W);
  else if (C == "exscan")
    Real ? MPI_Exscan(A.data(), B.data(), NInt, MPI_INT, MPI_SUM, W)
         : coll::exscan(Site, A.data(), B.data(), NInt, MPI_INT, MPI_SUM, W);
  else if (C == "barrier")
    Real ? MPI_Barrier(W) : coll::barrier(Site, W);
  else {
    std::fprintf(stderr, "coll_messages: unknown collective '%s'\n", C.c_str());
    MPI_Abort(W, 2);
  }
}

/// Messages this rank sent in the last collective.
uint64_t sent() {
  uint64_t N = 0;
  for (int P = 0; P < Size; ++P)
    N += testing::counts().SentMsgs[P];
  return N;
}

void expectSent(const char *What, uint64_t Want) {
  const testing::Counts &C = testing::counts();
  if (sent() != Want || C.OtherBlocks != 0 || C.UserContext != 0) {
    ++Failures;
    std::fprintf(stderr,
                 "rank %d np %d: %s: sent %llu messages, want %llu (%llu events outside the "
                 "site, %llu in the user context)\n",
                 Rank, Size, What, static_cast<unsigned long long>(sent()),
                 static_cast<unsigned long long>(Want),
                 static_cast<unsigned long long>(C.OtherBlocks),
                 static_cast<unsigned long long>(C.UserContext));
  }
}

/// The total over ranks of the messages sent.
uint64_t totalSent() {
  uint64_t Mine = sent(), All = 0;
  MPI_Allreduce(&Mine, &All, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return All;
}

int ceilLog2(int N) {
  int L = 0;
  while ((1 << L) < N)
    ++L;
  return L;
}
int floorLog2(int N) {
  int L = 0;
  while ((2 << L) <= N)
    ++L;
  return L;
}

void expectAlgo(coll::Coll C, long Bytes, bool Commute, coll::Algo Want, const char *What) {
  if (coll::decide(C, Size, static_cast<uint64_t>(Bytes), Commute) != Want) {
    ++Failures;
    std::fprintf(stderr, "np %d: %s: table picks %s\n", Size, What,
                 coll::algoName(coll::decide(C, Size, static_cast<uint64_t>(Bytes), Commute)));
  }
}

void sumOp(void *In, void *InOut, int *Len, MPI_Datatype *) { // a user-defined commutative op
  for (int I = 0; I < *Len; ++I)
    static_cast<int *>(InOut)[I] += static_cast<int *>(In)[I];
}

struct PeerCount {
  int Peer;
  uint64_t Msgs, Bytes;
};

/// This rank sent exactly Want (peer, messages, bytes) in the last collective, nothing else.
void expectPeers(const char *What, std::initializer_list<PeerCount> Want) {
  const testing::Counts &C = testing::counts();
  bool Ok = C.OtherBlocks == 0 && C.UserContext == 0;
  uint64_t Listed = 0;
  for (const PeerCount &W : Want) {
    Ok = Ok && C.SentMsgs[W.Peer] == W.Msgs && C.SentBytes[W.Peer] == W.Bytes;
    Listed += W.Msgs;
  }
  if (!Ok || sent() != Listed) {
    ++Failures;
    std::fprintf(stderr, "rank %d np %d: %s: sent", Rank, Size, What);
    for (int P = 0; P < Size; ++P)
      if (C.SentMsgs[P] != 0)
        std::fprintf(stderr, " %d:%llu/%llu", P, static_cast<unsigned long long>(C.SentMsgs[P]),
                     static_cast<unsigned long long>(C.SentBytes[P]));
    std::fprintf(stderr, " (peer:messages/bytes), want");
    for (const PeerCount &W : Want)
      std::fprintf(stderr, " %d:%llu/%llu", W.Peer, static_cast<unsigned long long>(W.Msgs),
                   static_cast<unsigned long long>(W.Bytes));
    std::fprintf(stderr, "\n");
  }
}

/// MPIETE_COLL_TABLE=mpich: the rules of MPICH 4.0.2's selection, each on a case it decides,
/// with the messages MPICH itself sent for that case (compare_with_mpich.sh, 2026-11-25).
void mpichChecks(MPI_Op NonCommute) {
  using coll::Algo;
  using coll::Coll;
  const int P = Size;
  MPI_Op Commute;
  MPI_Op_create(sumOp, 1, &Commute);
  // Allreduce: recursive doubling up to 8 bytes, for user-defined operations and for fewer
  // elements than the power of two; Rabenseifner (reduce_scatter_allgather) otherwise.
  expectAlgo(Coll::Allreduce, 8, true, Algo::RecursiveDoubling, "allreduce 8");
  expectAlgo(Coll::Allreduce, 9, true, Algo::RedscatAllgather, "allreduce 9");
  if (P == 8) {
    // 25 ints in blocks of 4,3,3,3,3,3,3,3 (MPICH's split: the first count % 8 one longer).
    runOne("allreduce", 100, 0, false, NonCommute);
    if (Rank == 0)
      expectPeers("allreduce 100 (Rabenseifner)", {{1, 2, 100}, {2, 2, 52}, {4, 2, 28}});
    runOne("allreduce", 12, 0, false, NonCommute); // 3 ints < 8: recursive doubling
    if (Rank == 0)
      expectPeers("allreduce 12 (count < pof2)", {{1, 1, 12}, {2, 1, 12}, {4, 1, 12}});
    testing::resetCounts(Site);
    coll::allreduce(Site, std::vector<int>(25, 1).data(), std::vector<int>(25).data(), 25, MPI_INT,
                    Commute, MPI_COMM_WORLD); // user-defined: recursive doubling
    if (Rank == 0)
      expectPeers("allreduce 100, user op", {{1, 1, 100}, {2, 1, 100}, {4, 1, 100}});
  }
  if (P == 5) { // MPICH's fold: rank 0 sends everything to rank 1 and gets the result back
    runOne("allreduce", 100, 0, false, NonCommute);
    if (Rank == 0)
      expectPeers("allreduce 100 (fold)", {{1, 1, 100}});
    if (Rank == 1)
      expectPeers("allreduce 100 (fold)", {{0, 1, 100}, {2, 2, 100}, {3, 2, 52}});
  }
  // Reduce above 2 KiB, built-in operation: reduce-scatter + gather; the fold sends the odd
  // ranks below 2 * rem to their even neighbours.
  expectAlgo(Coll::Reduce, 2048, true, Algo::InOrderBinomial, "reduce 2048");
  expectAlgo(Coll::Reduce, 2049, true, Algo::RedscatGather, "reduce 2049");
  if (P == 8) { // 1250 ints in blocks of 157,157,156,...
    runOne("reduce", 5000, 0, false, NonCommute);
    if (Rank == 0)
      expectPeers("reduce 5000 root 0", {{1, 1, 2496}, {2, 1, 1248}, {4, 1, 628}});
    if (Rank == 4)
      expectPeers("reduce 5000 root 0", {{5, 1, 2496}, {6, 1, 1248}, {0, 2, 1256}});
  }
  if (P == 3) { // root 1 was folded into rank 0, which hands it block 0 (625 ints)
    runOne("reduce", 5000, 1, false, NonCommute);
    if (Rank == 0)
      expectPeers("reduce 5000 root 1", {{1, 1, 2500}, {2, 1, 2500}});
  }
  // Allgather(v): the whole receive buffer decides: recursive doubling below 512 KiB at
  // powers of two, Bruck below 80 KiB otherwise, else the ring (allgatherv: in 32 KiB pieces).
  if (P == 4) {
    runOne("allgather", 100000, 0, false, NonCommute);
    expectPeers("allgather 4 x 100000", {{Rank ^ 1, 1, 100000}, {Rank ^ 2, 1, 200000}});
  }
  if (P == 3) { // blocks of 50000, 0, 50000 bytes
    runOne("allgatherv", 50000, 0, false, NonCommute);
    if (Rank == 0)
      expectPeers("allgatherv ring", {{1, 4, 100000}});
  }
  // Alltoall: linear up to 8 ranks (MPICH tests its "comm_size<8" as <= 8 there), Bruck
  // for blocks up to 256 bytes above.
  runOne("alltoall", 100, 0, false, NonCommute);
  if (P == 8)
    expectSent("alltoall 100 at 8 ranks (linear)", 7);
  if (P == 9 && Rank == 0)
    expectPeers("alltoall 100 (Bruck)", {{1, 1, 400}, {2, 1, 400}, {4, 1, 400}, {8, 1, 100}});
  // Reduce_scatter(_block): the whole vector decides (below 512 KiB recursive halving, else
  // the pairwise exchange); non-commutative operations: the butterfly at powers of two with
  // equal blocks, else MPICH's recursive doubling.
  expectAlgo(Coll::ReduceScatter, 524287, true, Algo::RecursiveHalving, "reduce_scatter 524287");
  expectAlgo(Coll::ReduceScatter, 524288, true, Algo::Pairwise, "reduce_scatter 524288");
  expectAlgo(Coll::ReduceScatterBlock, 100, false, Algo::Noncommutative, "reduce_scatter_block nc");
  if (P == 4) { // 4 blocks of 128 KiB: 512 KiB in all, pairwise
    runOne("reduce_scatter_block", 131072, 0, false, NonCommute);
    expectPeers(
        "reduce_scatter_block 4 x 131072 (pairwise)",
        {{(Rank + 1) % 4, 1, 131072}, {(Rank + 2) % 4, 1, 131072}, {(Rank + 3) % 4, 1, 131072}});
  }
  if (P == 8) { // butterfly: half the vector to rank ^ 1, a quarter to rank ^ 2, ...
    runOne("reduce_scatter_block_nc", 100, 0, false, NonCommute);
    expectPeers("reduce_scatter_block_nc 100 (butterfly)",
                {{Rank ^ 1, 1, 400}, {Rank ^ 2, 1, 200}, {Rank ^ 4, 1, 100}});
  }
  if (P == 5) { // blocks of 100, 0, 100, 200, 0 bytes: recursive doubling on derived types
    runOne("reduce_scatter_nc", 100, 0, false, NonCommute);
    if (Rank == 0)
      expectPeers("reduce_scatter_nc (recursive doubling)", {{1, 2, 700}, {2, 2, 700}, {4, 1, 0}});
    if (Rank == 3)
      expectPeers("reduce_scatter_nc (recursive doubling)", {{1, 1, 100}, {2, 1, 200}});
  }
  MPI_Op_free(&Commute);
}

/// Counts fixed by each algorithm's definition, at this run's size.
void formulaChecks(MPI_Op NonCommute) {
  using coll::Algo;
  using coll::Coll;
  if (coll::library() == coll::Library::Mpich)
    return mpichChecks(NonCommute);
  const int P = Size, Pof2 = 1 << floorLog2(P), Extra = P - Pof2;
  // Every bcast, whatever the tree, sends size-1 messages in total.
  for (long Bytes : {1L, 100L, 1000L, 5000L, 20000L, 100000L}) {
    runOne("bcast", Bytes, P - 1, false, NonCommute);
    if (totalSent() != static_cast<uint64_t>(P - 1)) {
      ++Failures;
      std::fprintf(stderr, "np %d: bcast %ld bytes: total messages != size-1\n", P, Bytes);
    }
  }
  if (P == 8) { // 16K..32K bytes at 8..15 ranks: binomial; the root sends log2(8) = 3
    expectAlgo(Coll::Bcast, 20000, true, Algo::Binomial, "bcast 20000");
    runOne("bcast", 20000, 0, false, NonCommute);
    if (Rank == 0)
      expectSent("binomial bcast root", 3);
  }
  if (P == 8) { // k-nomial radix 4 at 8 ranks, 100 bytes: the root has children 4, 1, 2, 3
    expectAlgo(Coll::Bcast, 100, true, Algo::Knomial, "bcast 100");
    runOne("bcast", 100, 0, false, NonCommute);
    if (Rank == 0)
      expectSent("knomial bcast root", 4);
    if (Rank == 4)
      expectSent("knomial bcast rank 4", 3);
  }
  // Recursive-doubling allreduce (small, or non-commutative): log2(pof2) exchanges, plus the
  // fold of the first 2 * extra ranks.
  for (const char *C : {"allreduce", "allreduce_nc"}) {
    runOne(C, 400, 0, false, NonCommute);
    if (P > 1 && coll::decide(Coll::Allreduce, P, 400, C[9] == 0) == Algo::RecursiveDoubling) {
      const int Steps = floorLog2(Pof2);
      expectSent(C, Rank < 2 * Extra ? (Rank % 2 == 0 ? 1 : Steps + 1) : Steps);
    }
  }
  // Ring allreduce at 3 ranks, 32 KiB (commutative): 2 (p - 1) messages each.
  if (P == 3) {
    expectAlgo(Coll::Allreduce, 32768, true, Algo::Ring, "allreduce 32768");
    runOne("allreduce", 32768, 0, false, NonCommute);
    expectSent("ring allreduce", 4);
  }
  // Allgather: recursive doubling at powers of two, Bruck otherwise (ceil(log2 p) each), two
  // ranks: one exchange.
  runOne("allgather", 100, 0, false, NonCommute);
  if (P > 1)
    expectSent("allgather", P == 2 ? 1 : ceilLog2(P));
  // Alltoall below 8 KiB at 3..7 ranks (linear): p - 1 each.
  runOne("alltoall", 100, 0, false, NonCommute);
  if (P > 2 && P < 8)
    expectSent("linear alltoall", P - 1);
  // Barrier: linear at 4..7 (the root sends p-1, the others 1), recursive doubling otherwise.
  runOne("barrier", 0, 0, false, NonCommute);
  if (P >= 4 && P < 8)
    expectSent("linear barrier", Rank == 0 ? P - 1 : 1);
  else if (P > 1 && P >= 8 && P < 64)
    expectSent("recursive doubling barrier",
               Rank >= Pof2 ? 1 : floorLog2(Pof2) + (Rank < P - Pof2 ? 1 : 0));
  // Gatherv (linear): a rank sends one message iff its block is not empty.
  runOne("gatherv", 10, 0, false, NonCommute);
  if (Rank != 0)
    expectSent("gatherv", Rank % 3 == 1 ? 0 : 1);
  // Scan, Exscan: a chain, everyone but the last sends once.
  runOne("scan", 40, 0, false, NonCommute);
  expectSent("scan", Rank == P - 1 ? 0 : 1);
  runOne("exscan", 40, 0, false, NonCommute);
  expectSent("exscan", Rank == P - 1 || P == 1 ? 0 : 1);
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  MPI_Op NonCommute;
  MPI_Op_create(swapOp, 0, &NonCommute);
  if (argc == 5) {
    const bool Real = std::strcmp(argv[1], "real") == 0;
    if (!Real)
      testing::registerComm(MPI_COMM_WORLD);
    // Under MPICH with ucx_spy preloaded, real mode counts MPICH's own messages too.
    const bool Spy = Real && mpiete_ucx_spy != nullptr;
    std::vector<unsigned long long> SpyMsgs(Size), SpyBytes(Size);
    if (Spy)
      mpiete_ucx_spy(1, nullptr, nullptr, 0);
    runOne(argv[2], std::atol(argv[3]), std::atoi(argv[4]), Real, NonCommute);
    if (Spy)
      mpiete_ucx_spy(0, SpyMsgs.data(), SpyBytes.data(), Size);
    if (!Real || Spy) { // rank 0 prints, in the pml-monitoring line format, for every rank:
      //  I <rank> <peer> <bytes> bytes <n> msgs sent
      std::vector<unsigned long long> Mine(2 * Size), All(2 * Size * Size);
      for (int P = 0; P < Size; ++P) {
        Mine[2 * P] = Spy ? SpyBytes[P] : testing::counts().SentBytes[P];
        Mine[2 * P + 1] = Spy ? SpyMsgs[P] : testing::counts().SentMsgs[P];
      }
      MPI_Gather(Mine.data(), 2 * Size, MPI_UNSIGNED_LONG_LONG, All.data(), 2 * Size,
                 MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
      for (int R = 0; Rank == 0 && R < Size; ++R)
        for (int P = 0; P < Size; ++P)
          if (All[2 * (R * Size + P) + 1] != 0)
            std::printf("I\t%d\t%d\t%llu bytes\t%llu msgs sent\n", R, P, All[2 * (R * Size + P)],
                        All[2 * (R * Size + P) + 1]);
    }
    MPI_Finalize();
    return 0;
  }
  testing::registerComm(MPI_COMM_WORLD);
  formulaChecks(NonCommute);
  int All = 0;
  MPI_Allreduce(&Failures, &All, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (Rank == 0)
    std::printf("coll_messages np=%d: %d failures\n", Size, All);
  MPI_Finalize();
  return All == 0 ? 0 : 1;
}
