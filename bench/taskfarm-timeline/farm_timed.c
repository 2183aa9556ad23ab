/* farm_timed: bench/taskfarm-timeline's copy of test-programs/farm-1d (and farm-skewed with
 * -DFARM_SKEWED) that records when each task was sent, received, computed and returned. */
/*
 * Same master/worker protocol and task costs as the test program (not marked with
 * MPIETE_TASK: it runs plain).  Every rank keeps one record per task in memory and, when
 * FARM_TIMELINE=PREFIX is set, writes PREFIX.rankR at the end:
 *   master:  `M task worker sent_ns recv_ns`   (MPI_Send of the work begins; the result's
 *            MPI_Recv returned)
 *   worker:  `W task got_ns start_ns end_ns cpu_ns sent_ns` (the work's MPI_Recv returned; the
 *            task body began and ended, wall and thread CPU time of the body; the result's
 *            MPI_Send returned)
 * All times are CLOCK_MONOTONIC, the same clock on every host of the virtual cluster.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TAG_WORK 1
#define TAG_RESULT 2
#define TAG_STOP 3

static long long now_ns(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long steps_of(int i, int n, long base) {
#ifdef FARM_SKEWED
  double d = ((double)i - 0.7 * (double)n) / (0.015 * (double)n);
  return (long)((double)base * (1.0 + 19.0 * exp(-d * d)));
#else
  double s = sin(3.14159265358979 * (double)i / (double)n);
  return (long)((double)base * (1.0 + 3.0 * s * s));
#endif
}

struct rec {
  int task, peer;
  long long a, b, c, d, e, f;
};
static struct rec *recs;
static int nrecs;

static double run_task(int i, int n, long base, struct rec *r) {
  double x = 1.0 + (double)i * 1e-3, acc = 0.0;
  long k, steps = steps_of(i, n, base);
  long long c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
  r->b = now_ns(CLOCK_MONOTONIC);
  for (k = 0; k < steps; k++) {
    x = x * 0.999999 + 1e-6;
    acc += x;
  }
  r->c = now_ns(CLOCK_MONOTONIC);
  r->d = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
  return acc / (double)steps;
}

static void master(int n, int size, double *results) {
  int next = 0, outstanding = 0, w, msg[2];
  double res[2];
  MPI_Status st;

  for (w = 1; w < size; w++) {
    if (next < n) {
      msg[0] = next++;
      msg[1] = n;
      recs[msg[0]].task = msg[0];
      recs[msg[0]].peer = w;
      recs[msg[0]].a = now_ns(CLOCK_MONOTONIC);
      MPI_Send(msg, 2, MPI_INT, w, TAG_WORK, MPI_COMM_WORLD);
      outstanding++;
    } else {
      MPI_Send(msg, 0, MPI_INT, w, TAG_STOP, MPI_COMM_WORLD);
    }
  }
  while (outstanding > 0) {
    MPI_Recv(res, 2, MPI_DOUBLE, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st);
    recs[(int)res[0]].b = now_ns(CLOCK_MONOTONIC);
    outstanding--;
    results[(int)res[0]] = res[1];
    if (next < n) {
      msg[0] = next++;
      msg[1] = n;
      recs[msg[0]].task = msg[0];
      recs[msg[0]].peer = st.MPI_SOURCE;
      recs[msg[0]].a = now_ns(CLOCK_MONOTONIC);
      MPI_Send(msg, 2, MPI_INT, st.MPI_SOURCE, TAG_WORK, MPI_COMM_WORLD);
      outstanding++;
    } else {
      MPI_Send(msg, 0, MPI_INT, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
    }
  }
  nrecs = n;
}

static void worker(long base) {
  int msg[2];
  double res[2];
  MPI_Status st;

  for (;;) {
    MPI_Recv(msg, 2, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    if (st.MPI_TAG == TAG_STOP)
      return;
    struct rec *r = &recs[nrecs++];
    r->a = now_ns(CLOCK_MONOTONIC);
    r->task = msg[0];
    res[0] = msg[0];
    res[1] = run_task(msg[0], msg[1], base, r);
    MPI_Send(res, 2, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
    r->e = now_ns(CLOCK_MONOTONIC);
  }
}

int main(int argc, char **argv) {
  int rank, size, n, i;
  long base;
  double *results = NULL, sum = 0.0, t0;
  const char *prefix = getenv("FARM_TIMELINE");

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  t0 = MPI_Wtime();
  n = argc > 1 ? atoi(argv[1]) : 1024;
  base = argc > 2 ? atol(argv[2]) : 1000000;
  if (n < 1 || base < 1 || size < 2) {
    if (rank == 0)
      fprintf(stderr, "usage: mpirun -np P>=2 farm_timed [ntasks>=1] [base>=1]\n");
    MPI_Finalize();
    return 1;
  }
  recs = calloc((size_t)n, sizeof(struct rec));
  if (rank == 0) {
    results = calloc((size_t)n, sizeof(double));
    if (!results || !recs)
      MPI_Abort(MPI_COMM_WORLD, 1);
    master(n, size, results);
  } else {
    worker(base);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    for (i = 0; i < n; i++)
      sum += results[i];
    printf("farm_timed: ranks=%d ntasks=%d base=%ld sum %.10e elapsed %.6f s\n", size, n, base, sum,
           MPI_Wtime() - t0);
  }
  if (prefix) {
    char path[4096];
    FILE *f;
    snprintf(path, sizeof path, "%s.rank%d", prefix, rank);
    f = fopen(path, "w");
    if (!f)
      MPI_Abort(MPI_COMM_WORLD, 2);
    fprintf(f, "# rank %d init_ns %lld\n", rank, (long long)(t0 * 1e9));
    for (i = 0; i < nrecs; i++) {
      struct rec *r = &recs[i];
      if (rank == 0)
        fprintf(f, "M %d %d %lld %lld\n", r->task, r->peer, r->a, r->b);
      else
        fprintf(f, "W %d %lld %lld %lld %lld %lld\n", r->task, r->a, r->b, r->c, r->d, r->e);
    }
    fclose(f);
  }
  free(recs);
  free(results);
  MPI_Finalize();
  return 0;
}
