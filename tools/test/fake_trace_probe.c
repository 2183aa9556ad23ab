/* A hand-made stand-in for an APP.trace probe, for testing `mpiete probe-program` alone: each
 * rank writes $MPIETE_OUTDIR/rank<N>.trace holding the fingerprint and arguments it was given
 * (not a real trace). `--skip-rank R` makes rank R write nothing. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int skip = -1;
  for (int i = 1; i + 1 < argc; ++i)
    if (!strcmp(argv[i], "--skip-rank"))
      skip = atoi(argv[i + 1]);
  const char *dir = getenv("MPIETE_OUTDIR");
  const char *fp = getenv("MPIETE_FINGERPRINT");
  if (!dir) {
    fprintf(stderr, "fake_trace_probe: no MPIETE_OUTDIR\n");
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  if (rank != skip) {
    char path[4096];
    snprintf(path, sizeof path, "%s/rank%d.trace", dir, rank);
    FILE *f = fopen(path, "w");
    if (!f) {
      perror(path);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    fprintf(f, "fingerprint %s\nargs", fp ? fp : "none");
    for (int i = 1; i < argc; ++i)
      fprintf(f, " %s", argv[i]);
    fprintf(f, "\n");
    fclose(f);
  }
  MPI_Finalize();
  return 0;
}
