/* sleepwait: LD_PRELOAD library that makes Open MPI's blocking point-to-point calls and waits
 * sleep instead of spin, so that a rank waiting on a CPU-quota host does not burn its quota. */
/*
 * Open MPI 4.1 (and Debian's MPICH, which uses UCX) poll the network while a rank waits; under
 * a CFS quota the polling eats the slow host's CPU, so the rank computes slower after a wait
 * than the machine it emulates.  This library replaces both the MPI_ and the PMPI_ entry points
 * of the blocking calls (so it also catches tools that call PMPI_ directly, like mpiete's
 * runtime) by their nonblocking form plus a test loop that spins for at most
 * MPIETE_VC_SPIN_US microseconds (default 20) and then sleeps, each sleep an eighth of the time
 * waited so far, between 10 us and MPIETE_VC_MAX_SLEEP_US (default 1000) microseconds: the
 * wake-up delay stays within ~12% of the wait and 1 ms.  Collectives other than MPI_Barrier are
 * not replaced (their nonblocking forms use other algorithms) and still spin.
 */
#include <mpi.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

static double SpinS = 20e-6, MaxSleepS = 1e-3;

__attribute__((constructor)) static void sleepwaitInit(void)
{
    const char *S = getenv("MPIETE_VC_SPIN_US"), *M = getenv("MPIETE_VC_MAX_SLEEP_US");
    if (S)
        SpinS = atof(S) * 1e-6;
    if (M)
        MaxSleepS = atof(M) * 1e-6;
    prctl(PR_SET_TIMERSLACK, 1000UL); /* 1 us: nanosleep would otherwise overshoot by 50 us */
}

static double now(void)
{
    struct timespec T;
    clock_gettime(CLOCK_MONOTONIC, &T);
    return T.tv_sec + T.tv_nsec * 1e-9;
}

/* Waits for one or more requests with Test (any of PMPI_Test/Testall/Testany/Testsome via Done). */
#define WAIT_LOOP(DONE_EXPR)                                                                       \
    do {                                                                                           \
        double Start = now();                                                                      \
        for (;;) {                                                                                 \
            int Rc = (DONE_EXPR);                                                                  \
            if (Rc != MPI_SUCCESS || Flag)                                                         \
                return Rc;                                                                         \
            double Waited = now() - Start;                                                         \
            if (Waited < SpinS)                                                                    \
                continue;                                                                          \
            double S = Waited / 8;                                                                 \
            S = S < 10e-6 ? 10e-6 : S > MaxSleepS ? MaxSleepS : S;                                 \
            struct timespec T = {0, (long)(S * 1e9)};                                              \
            nanosleep(&T, NULL);                                                                   \
        }                                                                                          \
    } while (0)

int PMPI_Wait(MPI_Request *Req, MPI_Status *St)
{
    int Flag = 0;
    WAIT_LOOP(PMPI_Test(Req, &Flag, St));
}
int MPI_Wait(MPI_Request *Req, MPI_Status *St) { return PMPI_Wait(Req, St); }

int PMPI_Waitall(int N, MPI_Request Reqs[], MPI_Status Sts[])
{
    int Flag = 0;
    WAIT_LOOP(PMPI_Testall(N, Reqs, &Flag, Sts));
}
int MPI_Waitall(int N, MPI_Request Reqs[], MPI_Status Sts[]) { return PMPI_Waitall(N, Reqs, Sts); }

int PMPI_Waitany(int N, MPI_Request Reqs[], int *Index, MPI_Status *St)
{
    int Flag = 0;
    WAIT_LOOP(PMPI_Testany(N, Reqs, Index, &Flag, St));
}
int MPI_Waitany(int N, MPI_Request Reqs[], int *Index, MPI_Status *St)
{
    return PMPI_Waitany(N, Reqs, Index, St);
}

int PMPI_Waitsome(int N, MPI_Request Reqs[], int *Out, int Idx[], MPI_Status Sts[])
{
    int Flag = 0;
    /* Testsome reports completions in Out; MPI_UNDEFINED (no active request) also ends it. */
    WAIT_LOOP((Flag = 0, PMPI_Testsome(N, Reqs, Out, Idx, Sts)) == MPI_SUCCESS
                  ? (Flag = *Out != 0, MPI_SUCCESS)
                  : MPI_ERR_OTHER);
}
int MPI_Waitsome(int N, MPI_Request Reqs[], int *Out, int Idx[], MPI_Status Sts[])
{
    return PMPI_Waitsome(N, Reqs, Out, Idx, Sts);
}

int PMPI_Probe(int Src, int Tag, MPI_Comm Comm, MPI_Status *St)
{
    int Flag = 0;
    WAIT_LOOP(PMPI_Iprobe(Src, Tag, Comm, &Flag, St));
}
int MPI_Probe(int Src, int Tag, MPI_Comm Comm, MPI_Status *St) { return PMPI_Probe(Src, Tag, Comm, St); }

int PMPI_Recv(void *Buf, int Count, MPI_Datatype Type, int Src, int Tag, MPI_Comm Comm, MPI_Status *St)
{
    MPI_Request Req;
    int Rc = PMPI_Irecv(Buf, Count, Type, Src, Tag, Comm, &Req);
    return Rc != MPI_SUCCESS ? Rc : PMPI_Wait(&Req, St);
}
int MPI_Recv(void *Buf, int Count, MPI_Datatype Type, int Src, int Tag, MPI_Comm Comm, MPI_Status *St)
{
    return PMPI_Recv(Buf, Count, Type, Src, Tag, Comm, St);
}

int PMPI_Send(const void *Buf, int Count, MPI_Datatype Type, int Dst, int Tag, MPI_Comm Comm)
{
    MPI_Request Req;
    int Rc = PMPI_Isend(Buf, Count, Type, Dst, Tag, Comm, &Req);
    return Rc != MPI_SUCCESS ? Rc : PMPI_Wait(&Req, MPI_STATUS_IGNORE);
}
int MPI_Send(const void *Buf, int Count, MPI_Datatype Type, int Dst, int Tag, MPI_Comm Comm)
{
    return PMPI_Send(Buf, Count, Type, Dst, Tag, Comm);
}

int PMPI_Ssend(const void *Buf, int Count, MPI_Datatype Type, int Dst, int Tag, MPI_Comm Comm)
{
    MPI_Request Req;
    int Rc = PMPI_Issend(Buf, Count, Type, Dst, Tag, Comm, &Req);
    return Rc != MPI_SUCCESS ? Rc : PMPI_Wait(&Req, MPI_STATUS_IGNORE);
}
int MPI_Ssend(const void *Buf, int Count, MPI_Datatype Type, int Dst, int Tag, MPI_Comm Comm)
{
    return PMPI_Ssend(Buf, Count, Type, Dst, Tag, Comm);
}

int PMPI_Sendrecv(const void *SBuf, int SCount, MPI_Datatype SType, int Dst, int STag, void *RBuf,
                  int RCount, MPI_Datatype RType, int Src, int RTag, MPI_Comm Comm, MPI_Status *St)
{
    MPI_Request Reqs[2];
    MPI_Status Sts[2];
    int Rc = PMPI_Irecv(RBuf, RCount, RType, Src, RTag, Comm, &Reqs[0]);
    if (Rc == MPI_SUCCESS)
        Rc = PMPI_Isend(SBuf, SCount, SType, Dst, STag, Comm, &Reqs[1]);
    if (Rc == MPI_SUCCESS)
        Rc = PMPI_Waitall(2, Reqs, Sts);
    if (Rc == MPI_SUCCESS && St != MPI_STATUS_IGNORE)
        *St = Sts[0];
    return Rc;
}
int MPI_Sendrecv(const void *SBuf, int SCount, MPI_Datatype SType, int Dst, int STag, void *RBuf,
                 int RCount, MPI_Datatype RType, int Src, int RTag, MPI_Comm Comm, MPI_Status *St)
{
    return PMPI_Sendrecv(SBuf, SCount, SType, Dst, STag, RBuf, RCount, RType, Src, RTag, Comm, St);
}

int PMPI_Barrier(MPI_Comm Comm)
{
    MPI_Request Req;
    int Rc = PMPI_Ibarrier(Comm, &Req);
    return Rc != MPI_SUCCESS ? Rc : PMPI_Wait(&Req, MPI_STATUS_IGNORE);
}
int MPI_Barrier(MPI_Comm Comm) { return PMPI_Barrier(Comm); }
