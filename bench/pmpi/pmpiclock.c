/* PMPI interposer for bench/overhead: per rank, the original program's compute (time outside MPI).
 */
/*
 * Built by bench/overhead with `mpicc -O2 -shared -fPIC` and loaded into the ranks of the
 * ORIGINAL program (`mpirun -x LD_PRELOAD=...`): it needs no rebuild of the program and none of
 * mpiete's instrumentation. Every MPI call the test programs make is wrapped: a monotonic clock
 * read at its entry and exit. At MPI_Finalize each rank prints one line to stderr,
 *   pmpiclock: rank R of N: elapsed E mpi M compute C cpu U calls K
 * E = from the return of MPI_Init to the entry of MPI_Finalize (seconds), M = the time inside
 * the wrapped calls during E, C = E - M (the rank's computation, CLOCK_MONOTONIC as the timing
 * probe's segments), U = the thread's CPU time outside the wrapped calls during E (the same
 * computation without the time other processes took its processor: the reference when ranks
 * share processors), K = wrapped calls. Then one line per MPI routine called,
 *   pmpiclock: rank R call NAME calls K mpi M before B cpu-before U
 * with B (U: in CPU time) the compute that ended at a call of NAME, and a last one for the
 * compute before MPI_Finalize (NAME Finalize). The CPU clock is read inside the monotonic reads
 * (after the entry's, before the exit's), so its cost, a system call (CLOCK_THREAD_CPUTIME_ID has
 * no vDSO path), falls inside the MPI interval of C: read outside, as before the fifth session,
 * two of them (about 0.2 us each here) landed in every compute interval and made ring's compute
 * (240,000 calls) 30% longer than the program's own. What stays in C per call is what the timing
 * probe's segments also hold: about one monotonic read and the wrapper's call and return.
 *
 * Open MPI's Fortran bindings (libmpi_mpifh: mpi_send_ ...) call PMPI_Send etc. directly, not
 * MPI_Send (nm -D libmpi_mpifh.so: "U PMPI_Send"), so the C wrappers never see a Fortran call:
 * the Fortran symbols are wrapped too, forwarding to pmpi_xxx_ (every Fortran MPI argument is
 * passed by reference, so the wrappers only pass pointers on). A call nested in another (a
 * binding calling a wrapped C entry) is counted once.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double Start = -1, Inside = 0, Entered = 0;
static double CpuStart = 0, CpuInside = 0, CpuEntered = 0;
static int Depth = 0;
static long Calls = 0;
static int Done = 0;

/* Per MPI routine (C and Fortran entry points share one slot, named as in C without MPI_):
 * calls, time inside, and the compute that ended at it (since the previous call's exit), in
 * wall-clock and thread CPU time. The last is what the timing probe's segments ending at a call
 * of that routine measure (bench/overhead --calls compares them). */
enum { MaxSlots = 64 };
static struct {
  const char *Name;
  long Calls;
  double Mpi, Before, CpuBefore;
} Slots[MaxSlots];
static int NumSlots = 0, Current = -1;
static double LastExit = 0, CpuLastExit = 0;

/* With PMPICLOCK_LOG=DIR, every call's record also goes to DIR/pmpiclock.<rank>.log at
 * MPI_Finalize: its routine, its call site (the return address, as an offset into its object, for
 * addr2line) and, in nanoseconds, the compute that ended at it and its time inside MPI. That is
 * the original's side of a per-occurrence comparison with the timing probe's series (a segment
 * is keyed by the call sites at its two ends). Off, it costs one predictable branch per call. */
enum { MaxLog = 1 << 21 };
static struct Rec {
  const void *Site;
  int Slot;
  int64_t Before, Mpi;
} *Log = NULL;
static long NumLog = 0;
static int Logging = -1;
static const void *CurrentSite = NULL;

static int slotOf(const char *Name) {
  for (int I = 0; I < NumSlots; ++I)
    if (strcmp(Slots[I].Name, Name) == 0)
      return I;
  if (NumSlots == MaxSlots)
    return MaxSlots - 1;
  Slots[NumSlots].Name = Name;
  return NumSlots++;
}

static double clockSeconds(clockid_t Id) {
  struct timespec Ts;
  clock_gettime(Id, &Ts);
  return (double)Ts.tv_sec + 1e-9 * (double)Ts.tv_nsec;
}

static double now(void) { return clockSeconds(CLOCK_MONOTONIC); }
static double cpuNow(void) { return clockSeconds(CLOCK_THREAD_CPUTIME_ID); }

/* The C name of a Fortran binding (mpi_allreduce -> Allreduce), so that both share a slot. */
static const char *cName(const char *Name) {
  if (strncmp(Name, "mpi_", 4) != 0)
    return Name;
  char *C = strdup(Name + 4);
  if (!C)
    return Name;
  if (C[0] >= 'a' && C[0] <= 'z')
    C[0] = (char)(C[0] - 'a' + 'A');
  return C;
}

static void enter(int *Slot, const char *Name, const void *Site) {
  if (Depth++ == 0) {
    CurrentSite = Site;
    Entered = now();
    CpuEntered = cpuNow();
    if (*Slot < 0)
      *Slot = slotOf(cName(Name));
    Current = *Slot;
  }
}

static void leave(void) {
  if (--Depth == 0 && Start >= 0) {
    const double CpuExit = cpuNow();
    const double Exit = now();
    Inside += Exit - Entered;
    CpuInside += CpuExit - CpuEntered;
    ++Calls;
    Slots[Current].Calls++;
    Slots[Current].Mpi += Exit - Entered;
    Slots[Current].Before += Entered - LastExit;
    Slots[Current].CpuBefore += CpuEntered - CpuLastExit;
    if (Logging > 0 && NumLog < MaxLog)
      Log[NumLog++] = (struct Rec){CurrentSite, Current, (int64_t)(1e9 * (Entered - LastExit)),
                                   (int64_t)(1e9 * (Exit - Entered))};
    LastExit = Exit;
    CpuLastExit = CpuExit;
  }
}

static void initDone(void) {
  const char *Dir = getenv("PMPICLOCK_LOG");
  Logging = Dir != NULL && Dir[0] != '\0';
  if (Logging && (Log = malloc(MaxLog * sizeof *Log)) == NULL)
    Logging = 0;
  Start = now();
  CpuStart = cpuNow();
  LastExit = Start;
  CpuLastExit = CpuStart;
}

static void report(void) {
  const double End = now(), CpuEnd = cpuNow();
  if (Done || Start < 0)
    return;
  Done = 1;
  int Rank = -1, Size = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &Size);
  fprintf(stderr,
          "pmpiclock: rank %d of %d: elapsed %.9f mpi %.9f compute %.9f cpu %.9f calls %ld\n", Rank,
          Size, End - Start, Inside, End - Start - Inside, CpuEnd - CpuStart - CpuInside, Calls);
  for (int I = 0; I < NumSlots; ++I)
    fprintf(stderr, "pmpiclock: rank %d call %s calls %ld mpi %.9f before %.9f cpu-before %.9f\n",
            Rank, Slots[I].Name, Slots[I].Calls, Slots[I].Mpi, Slots[I].Before, Slots[I].CpuBefore);
  fprintf(stderr, "pmpiclock: rank %d call Finalize calls 1 mpi 0 before %.9f cpu-before %.9f\n",
          Rank, End - LastExit, CpuEnd - CpuLastExit);
  if (Logging > 0) {
    char Path[4096];
    snprintf(Path, sizeof Path, "%s/pmpiclock.%d.log", getenv("PMPICLOCK_LOG"), Rank);
    FILE *F = fopen(Path, "w");
    for (long I = 0; F != NULL && I < NumLog; ++I) {
      Dl_info Info;
      uintptr_t Off = (uintptr_t)Log[I].Site;
      if (dladdr(Log[I].Site, &Info) != 0 && Info.dli_fbase != NULL)
        Off -= (uintptr_t)Info.dli_fbase;
      fprintf(F, "%s 0x%lx %lld %lld\n", Slots[Log[I].Slot].Name, (unsigned long)Off,
              (long long)Log[I].Before, (long long)Log[I].Mpi);
    }
    if (F != NULL)
      fclose(F);
  }
}

int MPI_Init(int *Argc, char ***Argv) {
  const int Rc = PMPI_Init(Argc, Argv);
  initDone();
  return Rc;
}

int MPI_Init_thread(int *Argc, char ***Argv, int Required, int *Provided) {
  const int Rc = PMPI_Init_thread(Argc, Argv, Required, Provided);
  initDone();
  return Rc;
}

int MPI_Finalize(void) {
  report();
  return PMPI_Finalize();
}

#define W(Name, Params, Args)                                                                      \
  int MPI_##Name Params {                                                                          \
    static int Slot = -1;                                                                          \
    enter(&Slot, #Name, __builtin_return_address(0));                                              \
    const int Rc = PMPI_##Name Args;                                                               \
    leave();                                                                                       \
    return Rc;                                                                                     \
  }

typedef MPI_Datatype T;
typedef MPI_Comm C;
typedef MPI_Op O;
typedef MPI_Status S;
typedef MPI_Request R;
typedef const void CV;
typedef const int CI;

W(Send, (CV * B, int N, T D, int P, int G, C M), (B, N, D, P, G, M))
W(Ssend, (CV * B, int N, T D, int P, int G, C M), (B, N, D, P, G, M))
W(Bsend, (CV * B, int N, T D, int P, int G, C M), (B, N, D, P, G, M))
W(Rsend, (CV * B, int N, T D, int P, int G, C M), (B, N, D, P, G, M))
W(Recv, (void *B, int N, T D, int P, int G, C M, S *St), (B, N, D, P, G, M, St))
W(Isend, (CV * B, int N, T D, int P, int G, C M, R *Q), (B, N, D, P, G, M, Q))
W(Issend, (CV * B, int N, T D, int P, int G, C M, R *Q), (B, N, D, P, G, M, Q))
W(Irecv, (void *B, int N, T D, int P, int G, C M, R *Q), (B, N, D, P, G, M, Q))
W(Wait, (R * Q, S *St), (Q, St))
W(Waitall, (int N, R Q[], S *St), (N, Q, St))
W(Waitany, (int N, R Q[], int *I, S *St), (N, Q, I, St))
W(Test, (R * Q, int *F, S *St), (Q, F, St))
W(Testall, (int N, R Q[], int *F, S *St), (N, Q, F, St))
W(Probe, (int P, int G, C M, S *St), (P, G, M, St))
W(Iprobe, (int P, int G, C M, int *F, S *St), (P, G, M, F, St))
W(Sendrecv, (CV * B, int N, T D, int P, int G, void *B2, int N2, T D2, int P2, int G2, C M, S *St),
  (B, N, D, P, G, B2, N2, D2, P2, G2, M, St))
W(Sendrecv_replace, (void *B, int N, T D, int P, int G, int P2, int G2, C M, S *St),
  (B, N, D, P, G, P2, G2, M, St))
W(Barrier, (C M), (M))
W(Bcast, (void *B, int N, T D, int Root, C M), (B, N, D, Root, M))
W(Reduce, (CV * B, void *B2, int N, T D, O Op, int Root, C M), (B, B2, N, D, Op, Root, M))
W(Allreduce, (CV * B, void *B2, int N, T D, O Op, C M), (B, B2, N, D, Op, M))
W(Scan, (CV * B, void *B2, int N, T D, O Op, C M), (B, B2, N, D, Op, M))
W(Exscan, (CV * B, void *B2, int N, T D, O Op, C M), (B, B2, N, D, Op, M))
W(Reduce_scatter, (CV * B, void *B2, CI N[], T D, O Op, C M), (B, B2, N, D, Op, M))
W(Reduce_scatter_block, (CV * B, void *B2, int N, T D, O Op, C M), (B, B2, N, D, Op, M))
W(Gather, (CV * B, int N, T D, void *B2, int N2, T D2, int Root, C M),
  (B, N, D, B2, N2, D2, Root, M))
W(Gatherv, (CV * B, int N, T D, void *B2, CI N2[], CI X2[], T D2, int Root, C M),
  (B, N, D, B2, N2, X2, D2, Root, M))
W(Scatter, (CV * B, int N, T D, void *B2, int N2, T D2, int Root, C M),
  (B, N, D, B2, N2, D2, Root, M))
W(Scatterv, (CV * B, CI N[], CI X[], T D, void *B2, int N2, T D2, int Root, C M),
  (B, N, X, D, B2, N2, D2, Root, M))
W(Allgather, (CV * B, int N, T D, void *B2, int N2, T D2, C M), (B, N, D, B2, N2, D2, M))
W(Allgatherv, (CV * B, int N, T D, void *B2, CI N2[], CI X2[], T D2, C M),
  (B, N, D, B2, N2, X2, D2, M))
W(Alltoall, (CV * B, int N, T D, void *B2, int N2, T D2, C M), (B, N, D, B2, N2, D2, M))
W(Alltoallv, (CV * B, CI N[], CI X[], T D, void *B2, CI N2[], CI X2[], T D2, C M),
  (B, N, X, D, B2, N2, X2, D2, M))
W(Start, (R * Q), (Q))
W(Startall, (int N, R Q[]), (N, Q))
W(Ibarrier, (C M, R *Q), (M, Q))
W(Ibcast, (void *B, int N, T D, int Root, C M, R *Q), (B, N, D, Root, M, Q))
W(Ireduce, (CV * B, void *B2, int N, T D, O Op, int Root, C M, R *Q), (B, B2, N, D, Op, Root, M, Q))
W(Iallreduce, (CV * B, void *B2, int N, T D, O Op, C M, R *Q), (B, B2, N, D, Op, M, Q))
W(Igather, (CV * B, int N, T D, void *B2, int N2, T D2, int Root, C M, R *Q),
  (B, N, D, B2, N2, D2, Root, M, Q))
W(Iscatter, (CV * B, int N, T D, void *B2, int N2, T D2, int Root, C M, R *Q),
  (B, N, D, B2, N2, D2, Root, M, Q))
W(Iallgather, (CV * B, int N, T D, void *B2, int N2, T D2, C M, R *Q), (B, N, D, B2, N2, D2, M, Q))
W(Ialltoall, (CV * B, int N, T D, void *B2, int N2, T D2, C M, R *Q), (B, N, D, B2, N2, D2, M, Q))
W(Neighbor_allgather, (CV * B, int N, T D, void *B2, int N2, T D2, C M), (B, N, D, B2, N2, D2, M))
W(Neighbor_allgatherv, (CV * B, int N, T D, void *B2, CI N2[], CI X2[], T D2, C M),
  (B, N, D, B2, N2, X2, D2, M))
W(Neighbor_alltoall, (CV * B, int N, T D, void *B2, int N2, T D2, C M), (B, N, D, B2, N2, D2, M))
W(Neighbor_alltoallv, (CV * B, CI N[], CI X[], T D, void *B2, CI N2[], CI X2[], T D2, C M),
  (B, N, X, D, B2, N2, X2, D2, M))
W(Ineighbor_alltoall, (CV * B, int N, T D, void *B2, int N2, T D2, C M, R *Q),
  (B, N, D, B2, N2, D2, M, Q))
W(Alltoallw, (CV * B, CI N[], CI X[], const T D[], void *B2, CI N2[], CI X2[], const T D2[], C M),
  (B, N, X, D, B2, N2, X2, D2, M))
W(Neighbor_alltoallw,
  (CV * B, CI N[], const MPI_Aint X[], const T D[], void *B2, CI N2[], const MPI_Aint X2[],
   const T D2[], C M),
  (B, N, X, D, B2, N2, X2, D2, M))
W(Comm_split, (C M, int Color, int Key, C *New), (M, Color, Key, New))
W(Comm_dup, (C M, C *New), (M, New))
W(Comm_free, (C * M), (M))
W(Cart_create, (C M, int N, CI Dims[], CI Per[], int Re, C *New), (M, N, Dims, Per, Re, New))

/* Fortran: void mpi_xxx_(ptr ...) forwarding to pmpi_xxx_ with the same pointers. */
typedef void *P;
#define A1 P a
#define A2 A1, P b
#define A3 A2, P c
#define A4 A3, P d
#define A5 A4, P e
#define A6 A5, P f
#define A7 A6, P g
#define A8 A7, P h
#define A9 A8, P i
#define A10 A9, P j
#define A13 A10, P k, P l, P m
#define V1 a
#define V2 V1, b
#define V3 V2, c
#define V4 V3, d
#define V5 V4, e
#define V6 V5, f
#define V7 V6, g
#define V8 V7, h
#define V9 V8, i
#define V10 V9, j
#define V13 V10, k, l, m
#define F(Name, N)                                                                                 \
  void p##Name##_(A##N);                                                                           \
  void Name##_(A##N) {                                                                             \
    static int Slot = -1;                                                                          \
    enter(&Slot, #Name, __builtin_return_address(0));                                              \
    p##Name##_(V##N);                                                                              \
    leave();                                                                                       \
  }

void pmpi_init_(A1);
void mpi_init_(A1) {
  pmpi_init_(V1);
  initDone();
}
void pmpi_finalize_(A1);
void mpi_finalize_(A1) {
  report();
  pmpi_finalize_(V1);
}

F(mpi_send, 7)
F(mpi_ssend, 7)
F(mpi_recv, 8)
F(mpi_isend, 8)
F(mpi_irecv, 8)
F(mpi_wait, 3)
F(mpi_waitall, 4)
F(mpi_waitany, 5)
F(mpi_test, 4)
F(mpi_probe, 5)
F(mpi_iprobe, 6)
F(mpi_sendrecv, 13)
F(mpi_sendrecv_replace, 10)
F(mpi_barrier, 2)
F(mpi_bcast, 6)
F(mpi_reduce, 8)
F(mpi_allreduce, 7)
F(mpi_scan, 7)
F(mpi_exscan, 7)
F(mpi_reduce_scatter, 7)
F(mpi_gather, 9)
F(mpi_gatherv, 10)
F(mpi_scatter, 9)
F(mpi_scatterv, 10)
F(mpi_allgather, 8)
F(mpi_allgatherv, 9)
F(mpi_alltoall, 8)
F(mpi_alltoallv, 10)
F(mpi_neighbor_allgather, 8)
F(mpi_neighbor_allgatherv, 9)
F(mpi_neighbor_alltoall, 8)
F(mpi_neighbor_alltoallv, 10)
F(mpi_alltoallw, 10)
F(mpi_testall, 5)
F(mpi_start, 2)
F(mpi_startall, 3)
F(mpi_ibarrier, 3)
F(mpi_ibcast, 7)
F(mpi_ireduce, 9)
F(mpi_iallreduce, 8)
F(mpi_igather, 10)
F(mpi_iscatter, 10)
F(mpi_iallgather, 9)
F(mpi_ialltoall, 9)
F(mpi_comm_split, 5)
F(mpi_comm_dup, 3)
F(mpi_comm_free, 2)
F(mpi_cart_create, 7)
