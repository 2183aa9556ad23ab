// The lowered collectives (Collectives.cpp) on the token machine: every
// collective's messages move through the token machine's collective matching
// space while one rank runs at a time, and the results are the ones MPI defines
// (checked against closed forms, not against MPI, whose own collectives cannot
// run under the token). Exits non-zero on any mismatch.
#include "coll/Collectives.h"
#include "mpiete/instrument.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

int Rank = 0, Size = 1, Failures = 0;
constexpr mpiete_site_t Site = MPIETE_ID(0xc0de, 1);

void check(bool Ok, const char *What, long Got, long Want) {
  if (Ok)
    return;
  std::fprintf(stderr, "FAIL rank %d: %s: got %ld want %ld\n", Rank, What, Got, Want);
  ++Failures;
}

} // namespace

int main(int argc, char **argv) {
  using namespace mpiete;
  if (mpiete_init(MPIETE_ID(0xc0de, 0), &argc, &argv) != MPI_SUCCESS)
    return 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  const long S = Size;

  // Allreduce at sizes that select different algorithms.
  for (int Count : {1, 1000, 300000}) {
    std::vector<long> In(Count), Out(Count, -1);
    for (int I = 0; I < Count; ++I)
      In[I] = Rank * 3 + I;
    coll::allreduce(Site, In.data(), Out.data(), Count, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int I = 0; I < Count; I += Count / 7 + 1)
      check(Out[I] == 3 * S * (S - 1) / 2 + S * I, "allreduce", Out[I],
            3 * S * (S - 1) / 2 + S * I);
  }
  // Bcast of 1 MiB from the last rank.
  {
    std::vector<int> B(1 << 18);
    for (size_t I = 0; I < B.size(); ++I)
      B[I] = Rank == Size - 1 ? static_cast<int>(I * 7) : -1;
    coll::bcast(Site + 1, B.data(), static_cast<int>(B.size()), MPI_INT, Size - 1, MPI_COMM_WORLD);
    for (size_t I = 0; I < B.size(); I += 4099)
      check(B[I] == static_cast<int>(I * 7), "bcast", B[I], static_cast<long>(I * 7));
  }
  coll::barrier(Site + 2, MPI_COMM_WORLD);
  // Alltoall: element j of rank i's send buffer is 100 * i + j.
  {
    std::vector<int> Send(Size * 4), Recv(Size * 4, -1);
    for (int J = 0; J < Size * 4; ++J)
      Send[J] = 100 * Rank + J;
    coll::alltoall(Site + 3, Send.data(), 4, MPI_INT, Recv.data(), 4, MPI_INT, MPI_COMM_WORLD);
    for (int P = 0; P < Size; ++P)
      for (int K = 0; K < 4; ++K)
        check(Recv[P * 4 + K] == 100 * P + Rank * 4 + K, "alltoall", Recv[P * 4 + K],
              100 * P + Rank * 4 + K);
  }
  // Gather to rank 0 and allgather.
  {
    std::vector<int> All(Size, -1);
    coll::gather(Site + 4, &Rank, 1, MPI_INT, All.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (Rank == 0)
      for (int P = 0; P < Size; ++P)
        check(All[P] == P, "gather", All[P], P);
    std::vector<int> Ag(Size, -1);
    const int Mine = Rank * Rank;
    coll::allgather(Site + 5, &Mine, 1, MPI_INT, Ag.data(), 1, MPI_INT, MPI_COMM_WORLD);
    for (int P = 0; P < Size; ++P)
      check(Ag[P] == P * P, "allgather", Ag[P], P * P);
  }
  // Scan.
  {
    long V = Rank + 1, Out = -1;
    coll::scan(Site + 6, &V, &Out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    check(Out == static_cast<long>(Rank + 1) * (Rank + 2) / 2, "scan", Out,
          static_cast<long>(Rank + 1) * (Rank + 2) / 2);
  }
  mpiete_finalize(MPIETE_ID(0xc0de, 9));
  if (Failures == 0 && Rank == 0)
    std::printf("token collectives: all results right at %d ranks\n", Size);
  return Failures == 0 ? 0 : 1;
}
