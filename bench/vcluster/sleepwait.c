/* sleepwait: LD_PRELOAD library that makes Open MPI's blocking calls sleep instead of spin (so a
 * rank waiting on a CPU-quota host does not burn its quota) and measures each rank's time in MPI.
 */
/*
 * Open MPI 4.1 (and Debian's MPICH, which uses UCX) poll the network while a rank waits; under
 * a CFS quota the polling eats the slow host's CPU, so the rank computes slower after a wait
 * than the machine it emulates.  This library replaces both the MPI_ and the PMPI_ entry points
 * (Open MPI's Fortran bindings call PMPI_ directly) of the blocking calls by their nonblocking
 * form plus a test loop that spins for at most MPIETE_VC_SPIN_US microseconds (default 20) and
 * then sleeps, each sleep an eighth of the time waited so far, between 10 us and
 * MPIETE_VC_MAX_SLEEP_US (default 1000) microseconds: the wake-up delay stays within ~12% of
 * the wait and 1 ms.
 *
 * Collectives: MPI_Barrier always, the others when MPIETE_VC_SLEEP_COLL=1 (bench/reuse sets
 * it), become their nonblocking form plus the same loop.  Nonblocking collectives run libnbc's
 * algorithms, not the tuned ones the estimator models; at 2 ranks every one of them is the same
 * single exchange (or send) between the two ranks, at more ranks they differ.
 *
 * Measurement: with MPIETE_VC_REPORT=1, MPI_Finalize prints one line per rank on stderr,
 *   sleepwait: rank R interval S mpi M
 * S = seconds from the return of MPI_Init to the call of MPI_Finalize, M = seconds spent inside
 * MPI calls in that interval (outermost calls only). S - M is the rank's computation. Every
 * routine the test programs call that can block or move data is wrapped; purely local ones
 * (Comm_rank, Wtime, type calls) are not.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

static double SpinS = 20e-6, MaxSleepS = 1e-3;
static int SleepColl, Report;

__attribute__((constructor)) static void sleepwaitInit(void) {
  const char *S = getenv("MPIETE_VC_SPIN_US"), *M = getenv("MPIETE_VC_MAX_SLEEP_US");
  const char *C = getenv("MPIETE_VC_SLEEP_COLL"), *R = getenv("MPIETE_VC_REPORT");
  if (S)
    SpinS = atof(S) * 1e-6;
  if (M)
    MaxSleepS = atof(M) * 1e-6;
  SleepColl = C && atoi(C) != 0;
  Report = R && atoi(R) != 0;
  prctl(PR_SET_TIMERSLACK, 1000UL); /* 1 us: nanosleep would otherwise overshoot by 50 us */
}

static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec + T.tv_nsec * 1e-9;
}

/* Time in MPI: only the outermost wrapped call counts (a replaced Send calls Isend and Wait). */
static int Depth;
static double InMpi, InitEnd;
#define ENTER double T0_ = Depth++ ? 0.0 : now()
#define LEAVE(RC)                                                                                  \
  do {                                                                                             \
    if (--Depth == 0)                                                                              \
      InMpi += now() - T0_;                                                                        \
    return (RC);                                                                                   \
  } while (0)

/* The library's own definition of a PMPI_ routine hides Open MPI's; this finds the real one. */
#define REAL(NAME, TYPE)                                                                           \
  static __typeof__((TYPE)0) Real_;                                                                \
  if (!Real_)                                                                                      \
  Real_ = (TYPE)dlsym(RTLD_NEXT, #NAME)

/* Waits with Test until Flag: spin SpinS, then sleep an eighth of the time waited so far. */
#define WAIT_LOOP(RC, DONE_EXPR)                                                                   \
  do {                                                                                             \
    double Start = now();                                                                          \
    for (;;) {                                                                                     \
      RC = (DONE_EXPR);                                                                            \
      if (RC != MPI_SUCCESS || Flag)                                                               \
        break;                                                                                     \
      double Waited = now() - Start;                                                               \
      if (Waited < SpinS)                                                                          \
        continue;                                                                                  \
      double S = Waited / 8;                                                                       \
      S = S < 10e-6 ? 10e-6 : S > MaxSleepS ? MaxSleepS : S;                                       \
      struct timespec T = {0, (long)(S * 1e9)};                                                    \
      nanosleep(&T, NULL);                                                                         \
    }                                                                                              \
  } while (0)

/* ---- start and end of the measured interval ---- */

int PMPI_Init(int *Argc, char ***Argv) {
  REAL(PMPI_Init, int (*)(int *, char ***));
  int Rc = Real_(Argc, Argv);
  InitEnd = now();
  return Rc;
}
int MPI_Init(int *Argc, char ***Argv) { return PMPI_Init(Argc, Argv); }

int PMPI_Init_thread(int *Argc, char ***Argv, int Required, int *Provided) {
  REAL(PMPI_Init_thread, int (*)(int *, char ***, int, int *));
  int Rc = Real_(Argc, Argv, Required, Provided);
  InitEnd = now();
  return Rc;
}
int MPI_Init_thread(int *Argc, char ***Argv, int Required, int *Provided) {
  return PMPI_Init_thread(Argc, Argv, Required, Provided);
}

int PMPI_Finalize(void) {
  REAL(PMPI_Finalize, int (*)(void));
  if (Report) {
    int Rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &Rank);
    fprintf(stderr, "sleepwait: rank %d interval %.6f mpi %.6f\n", Rank, now() - InitEnd, InMpi);
    fflush(stderr);
  }
  return Real_();
}
int MPI_Finalize(void) { return PMPI_Finalize(); }

/* ---- waits: test loops ---- */

int PMPI_Wait(MPI_Request *Req, MPI_Status *St) {
  ENTER;
  int Flag = 0, Rc;
  WAIT_LOOP(Rc, PMPI_Test(Req, &Flag, St));
  LEAVE(Rc);
}
int MPI_Wait(MPI_Request *Req, MPI_Status *St) { return PMPI_Wait(Req, St); }

int PMPI_Waitall(int N, MPI_Request Reqs[], MPI_Status Sts[]) {
  ENTER;
  int Flag = 0, Rc;
  WAIT_LOOP(Rc, PMPI_Testall(N, Reqs, &Flag, Sts));
  LEAVE(Rc);
}
int MPI_Waitall(int N, MPI_Request Reqs[], MPI_Status Sts[]) { return PMPI_Waitall(N, Reqs, Sts); }

int PMPI_Waitany(int N, MPI_Request Reqs[], int *Index, MPI_Status *St) {
  ENTER;
  int Flag = 0, Rc;
  WAIT_LOOP(Rc, PMPI_Testany(N, Reqs, Index, &Flag, St));
  LEAVE(Rc);
}
int MPI_Waitany(int N, MPI_Request Reqs[], int *Index, MPI_Status *St) {
  return PMPI_Waitany(N, Reqs, Index, St);
}

int PMPI_Waitsome(int N, MPI_Request Reqs[], int *Out, int Idx[], MPI_Status Sts[]) {
  ENTER;
  int Flag = 0, Rc;
  /* Testsome reports completions in Out; MPI_UNDEFINED (no active request) also ends it. */
  WAIT_LOOP(Rc, (Flag = 0, PMPI_Testsome(N, Reqs, Out, Idx, Sts)) == MPI_SUCCESS
                    ? (Flag = *Out != 0, MPI_SUCCESS)
                    : MPI_ERR_OTHER);
  LEAVE(Rc);
}
int MPI_Waitsome(int N, MPI_Request Reqs[], int *Out, int Idx[], MPI_Status Sts[]) {
  return PMPI_Waitsome(N, Reqs, Out, Idx, Sts);
}

int PMPI_Probe(int Src, int Tag, MPI_Comm Comm, MPI_Status *St) {
  ENTER;
  int Flag = 0, Rc;
  WAIT_LOOP(Rc, PMPI_Iprobe(Src, Tag, Comm, &Flag, St));
  LEAVE(Rc);
}
int MPI_Probe(int Src, int Tag, MPI_Comm Comm, MPI_Status *St) {
  return PMPI_Probe(Src, Tag, Comm, St);
}

/* ---- blocking point-to-point: start + wait ---- */

int PMPI_Recv(void *Buf, int Count, MPI_Datatype Type, int Src, int Tag, MPI_Comm Comm,
              MPI_Status *St) {
  ENTER;
  MPI_Request Req;
  int Rc = PMPI_Irecv(Buf, Count, Type, Src, Tag, Comm, &Req);
  LEAVE(Rc != MPI_SUCCESS ? Rc : PMPI_Wait(&Req, St));
}
int MPI_Recv(void *Buf, int Count, MPI_Datatype Type, int Src, int Tag, MPI_Comm Comm,
             MPI_Status *St) {
  return PMPI_Recv(Buf, Count, Type, Src, Tag, Comm, St);
}

int PMPI_Send(const void *Buf, int Count, MPI_Datatype Type, int Dst, int Tag, MPI_Comm Comm) {
  ENTER;
  MPI_Request Req;
  int Rc = PMPI_Isend(Buf, Count, Type, Dst, Tag, Comm, &Req);
  LEAVE(Rc != MPI_SUCCESS ? Rc : PMPI_Wait(&Req, MPI_STATUS_IGNORE));
}
int MPI_Send(const void *Buf, int Count, MPI_Datatype Type, int Dst, int Tag, MPI_Comm Comm) {
  return PMPI_Send(Buf, Count, Type, Dst, Tag, Comm);
}

int PMPI_Ssend(const void *Buf, int Count, MPI_Datatype Type, int Dst, int Tag, MPI_Comm Comm) {
  ENTER;
  MPI_Request Req;
  int Rc = PMPI_Issend(Buf, Count, Type, Dst, Tag, Comm, &Req);
  LEAVE(Rc != MPI_SUCCESS ? Rc : PMPI_Wait(&Req, MPI_STATUS_IGNORE));
}
int MPI_Ssend(const void *Buf, int Count, MPI_Datatype Type, int Dst, int Tag, MPI_Comm Comm) {
  return PMPI_Ssend(Buf, Count, Type, Dst, Tag, Comm);
}

int PMPI_Sendrecv(const void *SBuf, int SCount, MPI_Datatype SType, int Dst, int STag, void *RBuf,
                  int RCount, MPI_Datatype RType, int Src, int RTag, MPI_Comm Comm,
                  MPI_Status *St) {
  ENTER;
  MPI_Request Reqs[2];
  MPI_Status Sts[2];
  int Rc = PMPI_Irecv(RBuf, RCount, RType, Src, RTag, Comm, &Reqs[0]);
  if (Rc == MPI_SUCCESS)
    Rc = PMPI_Isend(SBuf, SCount, SType, Dst, STag, Comm, &Reqs[1]);
  if (Rc == MPI_SUCCESS)
    Rc = PMPI_Waitall(2, Reqs, Sts);
  if (Rc == MPI_SUCCESS && St != MPI_STATUS_IGNORE)
    *St = Sts[0];
  LEAVE(Rc);
}
int MPI_Sendrecv(const void *SBuf, int SCount, MPI_Datatype SType, int Dst, int STag, void *RBuf,
                 int RCount, MPI_Datatype RType, int Src, int RTag, MPI_Comm Comm, MPI_Status *St) {
  return PMPI_Sendrecv(SBuf, SCount, SType, Dst, STag, RBuf, RCount, RType, Src, RTag, Comm, St);
}

/* ---- timed only: calls that return at once or do local work ---- */

/* TIMED(NAME, PARAMS, ARGS): PMPI_NAME forwards to Open MPI's, timed; MPI_NAME calls PMPI_NAME. */
#define TIMED(NAME, PARAMS, ARGS)                                                                  \
  int PMPI_##NAME PARAMS {                                                                         \
    ENTER;                                                                                         \
    REAL(PMPI_##NAME, int(*) PARAMS);                                                              \
    int Rc = Real_ ARGS;                                                                           \
    LEAVE(Rc);                                                                                     \
  }                                                                                                \
  int MPI_##NAME PARAMS { return PMPI_##NAME ARGS; }

TIMED(Isend, (const void *B, int C, MPI_Datatype T, int D, int Tg, MPI_Comm Cm, MPI_Request *R),
      (B, C, T, D, Tg, Cm, R))
TIMED(Issend, (const void *B, int C, MPI_Datatype T, int D, int Tg, MPI_Comm Cm, MPI_Request *R),
      (B, C, T, D, Tg, Cm, R))
TIMED(Irecv, (void *B, int C, MPI_Datatype T, int S, int Tg, MPI_Comm Cm, MPI_Request *R),
      (B, C, T, S, Tg, Cm, R))
TIMED(Test, (MPI_Request * R, int *F, MPI_Status *S), (R, F, S))
TIMED(Testall, (int N, MPI_Request R[], int *F, MPI_Status S[]), (N, R, F, S))
TIMED(Testany, (int N, MPI_Request R[], int *I, int *F, MPI_Status *S), (N, R, I, F, S))
TIMED(Testsome, (int N, MPI_Request R[], int *O, int I[], MPI_Status S[]), (N, R, O, I, S))
TIMED(Iprobe, (int S, int Tg, MPI_Comm Cm, int *F, MPI_Status *St), (S, Tg, Cm, F, St))
TIMED(Comm_split, (MPI_Comm Cm, int C, int K, MPI_Comm *N), (Cm, C, K, N))
TIMED(Comm_dup, (MPI_Comm Cm, MPI_Comm *N), (Cm, N))
TIMED(Comm_create, (MPI_Comm Cm, MPI_Group G, MPI_Comm *N), (Cm, G, N))
TIMED(Comm_free, (MPI_Comm * Cm), (Cm))
TIMED(Cart_create, (MPI_Comm Cm, int N, const int D[], const int P[], int Ro, MPI_Comm *C),
      (Cm, N, D, P, Ro, C))
TIMED(Cart_sub, (MPI_Comm Cm, const int R[], MPI_Comm *N), (Cm, R, N))

/* ---- collectives: nonblocking form + test loop with MPIETE_VC_SLEEP_COLL=1, else timed ---- */

/* COLL(NAME, INAME, PARAMS, ARGS, IARGS): PMPI_NAME runs PMPI_INAME and waits, or forwards to Open
 * MPI. */
#define COLL(NAME, INAME, PARAMS, ARGS, IARGS)                                                     \
  int PMPI_##NAME PARAMS {                                                                         \
    ENTER;                                                                                         \
    int Rc;                                                                                        \
    if (SleepColl) {                                                                               \
      MPI_Request Req;                                                                             \
      Rc = PMPI_##INAME IARGS;                                                                     \
      if (Rc == MPI_SUCCESS)                                                                       \
        Rc = PMPI_Wait(&Req, MPI_STATUS_IGNORE);                                                   \
    } else {                                                                                       \
      REAL(PMPI_##NAME, int(*) PARAMS);                                                            \
      Rc = Real_ ARGS;                                                                             \
    }                                                                                              \
    LEAVE(Rc);                                                                                     \
  }                                                                                                \
  int MPI_##NAME PARAMS { return PMPI_##NAME ARGS; }

/* Barrier sleeps whatever MPIETE_VC_SLEEP_COLL says (as before it existed). */
int PMPI_Barrier(MPI_Comm Comm) {
  ENTER;
  MPI_Request Req;
  int Rc = PMPI_Ibarrier(Comm, &Req);
  LEAVE(Rc != MPI_SUCCESS ? Rc : PMPI_Wait(&Req, MPI_STATUS_IGNORE));
}
int MPI_Barrier(MPI_Comm Comm) { return PMPI_Barrier(Comm); }

typedef MPI_Datatype Ty;
typedef const void *In;
COLL(Bcast, Ibcast, (void *B, int C, Ty T, int Ro, MPI_Comm Cm), (B, C, T, Ro, Cm),
     (B, C, T, Ro, Cm, &Req))
COLL(Reduce, Ireduce, (In S, void *R, int C, Ty T, MPI_Op O, int Ro, MPI_Comm Cm),
     (S, R, C, T, O, Ro, Cm), (S, R, C, T, O, Ro, Cm, &Req))
COLL(Allreduce, Iallreduce, (In S, void *R, int C, Ty T, MPI_Op O, MPI_Comm Cm),
     (S, R, C, T, O, Cm), (S, R, C, T, O, Cm, &Req))
COLL(Scan, Iscan, (In S, void *R, int C, Ty T, MPI_Op O, MPI_Comm Cm), (S, R, C, T, O, Cm),
     (S, R, C, T, O, Cm, &Req))
COLL(Exscan, Iexscan, (In S, void *R, int C, Ty T, MPI_Op O, MPI_Comm Cm), (S, R, C, T, O, Cm),
     (S, R, C, T, O, Cm, &Req))
COLL(Reduce_scatter, Ireduce_scatter, (In S, void *R, const int Rc_[], Ty T, MPI_Op O, MPI_Comm Cm),
     (S, R, Rc_, T, O, Cm), (S, R, Rc_, T, O, Cm, &Req))
COLL(Reduce_scatter_block, Ireduce_scatter_block,
     (In S, void *R, int C, Ty T, MPI_Op O, MPI_Comm Cm), (S, R, C, T, O, Cm),
     (S, R, C, T, O, Cm, &Req))
COLL(Gather, Igather, (In S, int Sc, Ty St, void *R, int Rcn, Ty Rt, int Ro, MPI_Comm Cm),
     (S, Sc, St, R, Rcn, Rt, Ro, Cm), (S, Sc, St, R, Rcn, Rt, Ro, Cm, &Req))
COLL(Gatherv, Igatherv,
     (In S, int Sc, Ty St, void *R, const int Rcs[], const int D[], Ty Rt, int Ro, MPI_Comm Cm),
     (S, Sc, St, R, Rcs, D, Rt, Ro, Cm), (S, Sc, St, R, Rcs, D, Rt, Ro, Cm, &Req))
COLL(Scatter, Iscatter, (In S, int Sc, Ty St, void *R, int Rcn, Ty Rt, int Ro, MPI_Comm Cm),
     (S, Sc, St, R, Rcn, Rt, Ro, Cm), (S, Sc, St, R, Rcn, Rt, Ro, Cm, &Req))
COLL(Scatterv, Iscatterv,
     (In S, const int Scs[], const int D[], Ty St, void *R, int Rcn, Ty Rt, int Ro, MPI_Comm Cm),
     (S, Scs, D, St, R, Rcn, Rt, Ro, Cm), (S, Scs, D, St, R, Rcn, Rt, Ro, Cm, &Req))
COLL(Allgather, Iallgather, (In S, int Sc, Ty St, void *R, int Rcn, Ty Rt, MPI_Comm Cm),
     (S, Sc, St, R, Rcn, Rt, Cm), (S, Sc, St, R, Rcn, Rt, Cm, &Req))
COLL(Allgatherv, Iallgatherv,
     (In S, int Sc, Ty St, void *R, const int Rcs[], const int D[], Ty Rt, MPI_Comm Cm),
     (S, Sc, St, R, Rcs, D, Rt, Cm), (S, Sc, St, R, Rcs, D, Rt, Cm, &Req))
COLL(Alltoall, Ialltoall, (In S, int Sc, Ty St, void *R, int Rcn, Ty Rt, MPI_Comm Cm),
     (S, Sc, St, R, Rcn, Rt, Cm), (S, Sc, St, R, Rcn, Rt, Cm, &Req))
COLL(Alltoallv, Ialltoallv,
     (In S, const int Scs[], const int Sd[], Ty St, void *R, const int Rcs[], const int Rd[], Ty Rt,
      MPI_Comm Cm),
     (S, Scs, Sd, St, R, Rcs, Rd, Rt, Cm), (S, Scs, Sd, St, R, Rcs, Rd, Rt, Cm, &Req))
