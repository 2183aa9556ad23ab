/* farm-2d's tile costs without running it (issue 18, docs/taskfarm.md): every tile's iteration
 * count, as a tasks file for bench/taskfarm-offsets and mpiete_taskfarm_placement. Usage:
 * cc -O2 -o tiles bench/taskfarm-tiles.c && ./tiles NI TILE MAXITER > tiles.yaml (NI x NI
 * tiles of TILE x TILE points; the loop is test-programs/farm-2d's; seconds = iterations x
 * 1e-9 + 2.5 us). */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int NI = atoi(argv[1]), NJ = NI, TILE = atoi(argv[2]), MAXITER = atoi(argv[3]);
  printf("format: mpiete-tasks\nversion: 1\nparameters: 2\nstride: 1\ntasks: %d\n"
         "grid:\n  - [0, %d, 1]\n  - [0, %d, 1]\nmeasured:\n",
         NI * NJ, NI - 1, NJ - 1);
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      long total = 0;
      for (int a = 0; a < TILE; a++)
        for (int b = 0; b < TILE; b++) {
          double cr = -2.0 + 2.5 * ((double)i * TILE + a) / ((double)NI * TILE);
          double ci = -1.25 + 2.5 * ((double)j * TILE + b) / ((double)NJ * TILE);
          double zr = 0, zi = 0, t;
          int k;
          for (k = 0; k < MAXITER && zr * zr + zi * zi <= 4.0; k++) {
            t = zr * zr - zi * zi + cr;
            zi = 2 * zr * zi + ci;
            zr = t;
          }
          total += k;
        }
      printf("  - [%d, %d, %.9e]\n", i, j, total * 1e-9 + 2.5e-6);
    }
}
