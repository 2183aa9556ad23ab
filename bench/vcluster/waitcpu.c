/* waitcpu: how much CPU a rank burns while it waits in MPI_Recv, and how long a fixed compute
 * block takes right after such a wait (the cost of a spinning wait under a CPU quota). */
/*
 * Usage: mpirun -np 2 waitcpu [wait_s] [rounds] [work_ms]
 * Rank 1 sleeps wait_s (default 1) seconds, then sends; rank 0 waits in MPI_Recv and reports
 * the CPU seconds (user+system, all threads: what a CFS quota charges) it used meanwhile.
 * Then, for `rounds` rounds (default 5), rank 1 sleeps 50 ms and sends, and rank 0 times a
 * compute loop calibrated to work_ms (default 50) milliseconds on an idle core, right after
 * the receive.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double cpuSeconds(void) {
  struct rusage U;
  getrusage(RUSAGE_SELF, &U);
  return U.ru_utime.tv_sec + U.ru_utime.tv_usec * 1e-6 + U.ru_stime.tv_sec +
         U.ru_stime.tv_usec * 1e-6;
}

static void sleepSeconds(double S) {
  struct timespec T = {(time_t)S, (long)((S - (time_t)S) * 1e9)};
  nanosleep(&T, NULL);
}

static volatile double Sink;

static void work(long N) {
  double X = 1.0;
  for (long I = 0; I < N; I++)
    X = X * 1.0000001 + 1e-9;
  Sink = X;
}

int main(int argc, char **argv) {
  int Rank, Size, Token = 0;
  char Host[MPI_MAX_PROCESSOR_NAME];
  double WaitS = argc > 1 ? atof(argv[1]) : 1.0;
  int Rounds = argc > 2 ? atoi(argv[2]) : 5;
  double WorkMs = argc > 3 ? atof(argv[3]) : 50.0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  if (Size != 2) {
    if (Rank == 0)
      fprintf(stderr, "waitcpu: needs exactly 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Get_processor_name(Host, &Token);
  MPI_Barrier(MPI_COMM_WORLD);
  if (Rank == 1) {
    sleepSeconds(WaitS);
    MPI_Send(&Token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  } else {
    double C0 = cpuSeconds(), T0 = MPI_Wtime();
    MPI_Recv(&Token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double C1 = cpuSeconds(), T1 = MPI_Wtime();
    printf("waitcpu: host %s waited %.3f s, cpu %.3f s (%.0f%%)\n", Host, T1 - T0, C1 - C0,
           100.0 * (C1 - C0) / (T1 - T0));
  }
  /* Calibrate the compute loop on rank 0: iterations per millisecond, measured by CPU time
   * so that a quota does not distort it. */
  long N = 0;
  if (Rank == 0 && Rounds > 0) {
    long Probe = 1000000;
    double C0 = cpuSeconds();
    work(Probe);
    double C = cpuSeconds() - C0;
    N = (long)(Probe * (WorkMs * 1e-3) / (C > 0 ? C : 1e-3));
  }
  double Sum = 0, Max = 0;
  for (int R = 0; R < Rounds; R++) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (Rank == 1) {
      sleepSeconds(0.05);
      MPI_Send(&Token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    } else {
      MPI_Recv(&Token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      double T0 = MPI_Wtime();
      work(N);
      double T = MPI_Wtime() - T0;
      Sum += T;
      Max = T > Max ? T : Max;
    }
  }
  if (Rank == 0 && Rounds > 0)
    printf("waitcpu: host %s compute after wait: mean %.1f ms, max %.1f ms (%.0f ms of CPU)\n",
           Host, 1e3 * Sum / Rounds, 1e3 * Max, WorkMs);
  MPI_Finalize();
  return 0;
}
