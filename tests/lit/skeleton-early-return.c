// The skeleton: a return inside an if or a loop of a procedure stays only where what it can
// skip is kept, or where the procedure's value is used (nbc-cg's quantum(): an early
// `return 1.0;` on a condition of received data kept that data's collective steering, and
// every computation behind it). scale()'s early return tests reduced data and skips nothing
// kept, and its value is not needed: the test, the return and the loop before go, and so
// does the loop in main() that feeds it. guard()'s early return skips an MPI_Send: it stays,
// with the test that decides it (a broadcast value, so what is broadcast stays too).
// first_big()'s return in a loop, before the loop's later MPI call, stays (its value 0: unused).
// RUN: %mpiete-instrument --skeleton-out=%t.skel.c %s -- %mpi-cflags
// RUN: FileCheck --check-prefix=LIST %s < %t.skel.c.removed
// RUN: FileCheck --check-prefix=SKEL %s < %t.skel.c
// RUN: %mpicc-syntax -Wno-unused-variable -Wno-unused-but-set-variable %t.skel.c
#include <mpi.h>
#include <math.h>

static double scale(const double *u, int n, MPI_Comm comm)
{
    double local = 0, global = 0;
    int i;
    for (i = 0; i < n; i++)
        local = fmax(local, fabs(u[i]));
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (!(global > 0.0))
        return 1.0;
    return ldexp(1.0, (int)log2(global));
}

static void guard(const int *c, double *v, int n, MPI_Comm comm)
{
    int t = c[0] - 1;
    MPI_Bcast(&t, 1, MPI_INT, 0, comm);
    if (t < 0)
        return;
    MPI_Send(v, n, MPI_DOUBLE, 0, 7, comm);
}

static int first_big(const int *c, int n, MPI_Comm comm)
{
    int i;
    for (i = 0; i < n; i++) {
        if (c[i] > 100)
            return i;
        MPI_Barrier(comm);
    }
    return -1;
}

int main(int argc, char **argv)
{
    double u[64], q = 0, s;
    int c[8], k, it;
    MPI_Init(&argc, &argv);
    for (k = 0; k < 64; k++)
        u[k] = k;
    for (k = 0; k < 8; k++)
        c[k] = k * 40;
    for (it = 0; it < 10; it++) {
        s = scale(u, 64, MPI_COMM_WORLD);
        q += s;
        for (k = 0; k < 64; k++)
            u[k] = 0.5 * u[k] + q;
    }
    guard(c, u, 64, MPI_COMM_WORLD);
    first_big(c, 8, MPI_COMM_WORLD);
    MPI_Finalize();
    return q > 0 ? 0 : 1;
}

// LIST: scale: for (i = 0; i < n; i++)
// LIST: scale: if (!(global > 0.0))
// LIST-NOT: guard:
// LIST-NOT: first_big: if (c[i] > 100)
// LIST: main: u[k] = 0.5 * u[k] + q;
// SKEL: int t = c[0] - 1;
// SKEL: if (t < 0)
// SKEL-NEXT: return;
// SKEL: if (c[i] > 100)
// SKEL-NEXT: return 0;
