/* bench/ring-hops: where the time of one hop of test-programs/ring goes (docs/accuracy.md).
 *
 * A copy of ring's lap at 2 ranks (rank 0: update, Send, Recv; rank 1: Recv, update, Send) with
 * clock reads around every MPI call on both ranks. CLOCK_MONOTONIC is one clock for both
 * processes of one machine, so the sender-to-receiver latency of a hop is the receiver's
 * return from MPI_Recv minus the sender's call of MPI_Send. The lap runs with four kinds of
 * work between the calls, to separate the message's cost from what the work does to it:
 *   ring   ring's update_token (rewrites the whole token: dirty lines, ~2 us)
 *   spin   a busy wait as long as ring's update, buffer untouched
 *   write  one quick write pass over the token (dirty lines, almost no time)
 *   none   nothing: a ping-pong receiving into the buffer it sends from (ring's buffers)
 *   apart  nothing, sending from one buffer and receiving into another: probe-comm's ping-pong
 *   wapart a write pass over the send buffer, receiving into another buffer (a real program's
 *          message: freshly computed data, a receive buffer of its own)
 * write and wapart differ only in the receive buffer (the one just sent from, or one of its own):
 * their hops say what a receive into a buffer the peer has just read costs (probe-comm's
 * same_buffer table against its main table; docs/trace-format.md, "Same buffer"). In wapart the
 * cost moves to the write pass, which takes the lines back from the peer (work0/work1).
 * Build: mpicc -O2 hops.c -o hops; run: mpirun -np 2 --bind-to core ./hops [bytes] [laps]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { Ring, Spin, Write, None, Apart, WriteApart, Modes };
static const char *ModeName[Modes] = {"ring", "spin", "write", "none", "apart", "wapart"};
enum { TSendIn, TSendOut, TRecvIn, TRecvOut, Stamps };

static int64_t now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return (int64_t)T.tv_sec * 1000000000 + T.tv_nsec;
}

/* test-programs/ring's mix and update_token, unchanged. */
static unsigned mix(unsigned x, unsigned r, unsigned lap) {
  x ^= r * 0x9e3779b9u + lap;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  x ^= x >> 16;
  return x;
}

static void update_token(unsigned *tok, int len, int rank, int lap) {
  int j;
  for (j = 0; j < len; j++)
    tok[j] = mix(tok[j] + (unsigned)j, (unsigned)rank, (unsigned)lap);
}

static int64_t SpinNs;

static void work(int Mode, unsigned *tok, int len, int rank, int lap) {
  int j;
  if (Mode == Ring) {
    update_token(tok, len, rank, lap);
  } else if (Mode == Spin) {
    int64_t End = now() + SpinNs;
    while (now() < End)
      ;
  } else if (Mode == Write || Mode == WriteApart) {
    for (j = 0; j < len; j++)
      tok[j] += (unsigned)lap;
  }
}

static int cmpd(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return X < Y ? -1 : X > Y;
}

/* Median (and minimum) in us of V[i] = A[i] - B[i] over the laps. */
static void stat(const int64_t *A, const int64_t *B, int N, double *Tmp, double *Med, double *Min) {
  int I;
  for (I = 0; I < N; I++)
    Tmp[I] = (double)(A[I] - B[I]) / 1000.0;
  qsort(Tmp, (size_t)N, sizeof(double), cmpd);
  *Med = Tmp[N / 2];
  *Min = Tmp[0];
}

/* "median(min)" in a static buffer, printed before the next call. */
static const char *fmt(double Med, double Min) {
  static char B[64];
  snprintf(B, sizeof B, "%.2f(%.2f)", Med, Min);
  return B;
}

int main(int argc, char **argv) {
  int rank, size, Mode, lap, I, len;
  long bytes, laps;
  unsigned *tok, *other, *in;
  int64_t *T, *U; /* per lap: rank 0's and rank 1's stamps */
  double *Tmp;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bytes = argc > 1 ? atol(argv[1]) : 16384;
  laps = argc > 2 ? atol(argv[2]) : 20000;
  if (size != 2 || bytes < 4 || laps < 10) {
    if (rank == 0)
      fprintf(stderr, "usage: mpirun -np 2 hops [bytes>=4] [laps>=10]\n");
    MPI_Finalize();
    return 1;
  }
  len = (int)(bytes / 4);
  tok = malloc((size_t)len * sizeof(unsigned));
  other = malloc((size_t)len * sizeof(unsigned));
  memset(other, 0, (size_t)len * sizeof(unsigned));
  T = malloc(sizeof(int64_t) * Stamps * (size_t)laps);
  U = malloc(sizeof(int64_t) * Stamps * (size_t)laps);
  Tmp = malloc(sizeof(double) * (size_t)laps);
  for (I = 0; I < len; I++)
    tok[I] = (unsigned)I;

  /* The spin lasts as long as ring's update of this token (median of 1000, this rank). */
  {
    double D[1000];
    for (I = 0; I < 1000; I++) {
      int64_t A = now();
      update_token(tok, len, rank, I);
      D[I] = (double)(now() - A);
    }
    qsort(D, 1000, sizeof(double), cmpd);
    SpinNs = (int64_t)D[500];
    MPI_Allreduce(MPI_IN_PLACE, &SpinNs, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  }

  if (rank == 0)
    printf("# %ld bytes, %ld laps per mode, update_token %.2f us; medians (minima) in us\n"
           "%-6s %12s %12s %12s %12s %12s %12s %12s %12s\n",
           bytes, laps, SpinNs / 1000.0, "mode", "lap", "work0", "work1", "hop01", "hop10", "send0",
           "recv0", "fin01");
  for (Mode = 0; Mode < Modes; Mode++) {
    MPI_Barrier(MPI_COMM_WORLD);
    for (lap = -200; lap < laps; lap++) {
      int64_t *S = lap >= 0 ? (rank == 0 ? T : U) + (size_t)lap * Stamps : NULL;
      int64_t Local[Stamps];
      int tag = 100 + (lap + 200) % 1000;
      if (!S)
        S = Local;
      in = Mode == Apart || Mode == WriteApart ? other : tok;
      if (rank == 0) {
        work(Mode, tok, len, rank, lap);
        S[TSendIn] = now();
        MPI_Send(tok, len, MPI_UNSIGNED, 1, tag, MPI_COMM_WORLD);
        S[TSendOut] = S[TRecvIn] = now();
        MPI_Recv(in, len, MPI_UNSIGNED, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        S[TRecvOut] = now();
      } else {
        S[TRecvIn] = now();
        MPI_Recv(in, len, MPI_UNSIGNED, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        S[TRecvOut] = now();
        work(Mode, tok, len, rank, lap);
        S[TSendIn] = now();
        MPI_Send(tok, len, MPI_UNSIGNED, 0, tag, MPI_COMM_WORLD);
        S[TSendOut] = now();
      }
    }
    if (rank == 1) {
      MPI_Send(U, (int)(Stamps * laps), MPI_INT64_T, 0, 9, MPI_COMM_WORLD);
      continue;
    }
    MPI_Recv(U, (int)(Stamps * laps), MPI_INT64_T, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    {
      /* Columns as vectors over the laps (lap L+1's send start ends lap L). */
      int N = (int)laps - 1;
      int64_t *C = malloc(sizeof(int64_t) * 8 * (size_t)N);
      int64_t *A0 = C, *A1 = C + N, *D0 = C + 2 * N, *F1 = C + 3 * N, *G1 = C + 4 * N,
              *B0 = C + 5 * N, *H1 = C + 6 * N, *E1 = C + 7 * N;
      double Med[8], Min[8];
      for (I = 0; I < N; I++) {
        const int64_t *R0 = T + (size_t)I * Stamps, *R1 = U + (size_t)I * Stamps;
        A0[I] = R0[TSendIn];
        A1[I] = T[(size_t)(I + 1) * Stamps + TSendIn];
        B0[I] = R0[TSendOut];
        D0[I] = R0[TRecvOut];
        E1[I] = R1[TRecvIn];
        F1[I] = R1[TRecvOut];
        G1[I] = R1[TSendIn];
        H1[I] = R1[TSendOut];
      }
      (void)E1;
      (void)H1;
      stat(A1, A0, N, Tmp, &Med[0], &Min[0]); /* lap */
      stat(A1, D0, N, Tmp, &Med[1], &Min[1]); /* rank 0's work */
      stat(G1, F1, N, Tmp, &Med[2], &Min[2]); /* rank 1's work */
      stat(F1, A0, N, Tmp, &Med[3], &Min[3]); /* hop 0->1: Send call to Recv return */
      stat(D0, G1, N, Tmp, &Med[4], &Min[4]); /* hop 1->0 */
      stat(B0, A0, N, Tmp, &Med[5], &Min[5]); /* rank 0 in MPI_Send */
      for (I = 0; I < N; I++)                 /* rank 0 in MPI_Recv */
        Tmp[I] = (double)(D0[I] - B0[I]) / 1000.0;
      qsort(Tmp, (size_t)N, sizeof(double), cmpd);
      Med[6] = Tmp[N / 2];
      Min[6] = Tmp[0];
      stat(B0, F1, N, Tmp, &Med[7], &Min[7]); /* Send's return after the Recv's */
      printf("%-6s", ModeName[Mode]);
      for (I = 0; I < 8; I++)
        printf(" %12s", fmt(Med[I], Min[I]));
      printf("\n");
      free(C);
    }
  }
  if (rank == 0)
    printf("# lap: rank 0's Send call to the next; work0/1: between a rank's Recv return and "
           "its Send call;\n# hop01: rank 0's Send call to rank 1's Recv return (hop10 the "
           "way back); send0/recv0: rank 0 in MPI_Send / MPI_Recv;\n# fin01: rank 0's Send "
           "return minus rank 1's Recv return (the rendezvous' completion notice)\n");
  free(tok);
  free(other);
  free(T);
  free(U);
  free(Tmp);
  MPI_Finalize();
  return 0;
}
