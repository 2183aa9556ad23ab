/* bench/ring-hops/colls.c: the calls of test-programs/cg and transpose at 2 ranks, alone, each
 * send buffer rewritten before its call as the programs do (docs/accuracy.md): an 8-byte
 * MPI_Allreduce, a 4 KiB halo exchange (Irecv, Isend, Waitall), an MPI_Alltoall of 1 MiB blocks,
 * a 1 MiB MPI_Sendrecv with the peer and a 1 MiB memcpy (the alltoall's block to itself).
 * Prints rank 0's median and minimum time per call in us.
 * Build: mpicc -O2 colls.c -o colls; run: mpirun -np 2 --bind-to core ./colls [reps] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmpd(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return X < Y ? -1 : X > Y;
}

static void rewrite(char *B, long N) {
  for (long I = 0; I < N; I += 64)
    B[I] = (char)(B[I] + 1);
}

enum { Allreduce, Halo, Alltoall, Sendrecv, Memcpy, Kinds };
static const char *Name[Kinds] = {"allreduce 8 B", "halo 4 KiB (irecv+isend+waitall)",
                                  "alltoall 1 MiB blocks", "sendrecv 1 MiB", "memcpy 1 MiB"};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  int Reps = argc > 1 ? atoi(argv[1]) : 2000;
  const long Block = 1 << 20, HaloBytes = 4096;
  char *S = malloc(2 * Block), *R = malloc(2 * Block);
  memset(S, 1, 2 * Block);
  memset(R, 0, 2 * Block);
  double *T = malloc(sizeof(double) * (size_t)Reps);
  int Peer = 1 - Rank;
  if (Size != 2) {
    if (Rank == 0)
      fprintf(stderr, "colls: run at 2 ranks\n");
    MPI_Finalize();
    return 1;
  }
  if (Rank == 0)
    printf("# %d calls each; rank 0's time per call in us: median (min)\n", Reps);
  for (int K = 0; K < Kinds; ++K) {
    int N = K >= Alltoall ? Reps / 10 : Reps;
    for (int I = -10; I < N; ++I) {
      double X = 1, Y;
      MPI_Request Q[2];
      rewrite(S, K == Halo ? HaloBytes : 2 * Block);
      MPI_Barrier(MPI_COMM_WORLD);
      double T0 = MPI_Wtime();
      if (K == Allreduce) {
        MPI_Allreduce(&X, &Y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      } else if (K == Halo) {
        MPI_Irecv(R, (int)HaloBytes, MPI_BYTE, Peer, 1, MPI_COMM_WORLD, &Q[0]);
        MPI_Isend(S, (int)HaloBytes, MPI_BYTE, Peer, 1, MPI_COMM_WORLD, &Q[1]);
        MPI_Waitall(2, Q, MPI_STATUSES_IGNORE);
      } else if (K == Alltoall) {
        MPI_Alltoall(S, (int)Block, MPI_BYTE, R, (int)Block, MPI_BYTE, MPI_COMM_WORLD);
      } else if (K == Sendrecv) {
        MPI_Sendrecv(S, (int)Block, MPI_BYTE, Peer, 2, R, (int)Block, MPI_BYTE, Peer, 2,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        memcpy(R, S, (size_t)Block);
      }
      if (I >= 0)
        T[I] = (MPI_Wtime() - T0) * 1e6;
    }
    qsort(T, (size_t)N, sizeof(double), cmpd);
    if (Rank == 0)
      printf("%-34s %9.2f (%.2f)\n", Name[K], T[N / 2], T[0]);
  }
  free(S);
  free(R);
  free(T);
  MPI_Finalize();
  return 0;
}
