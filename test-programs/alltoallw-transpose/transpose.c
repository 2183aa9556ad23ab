/* alltoallw-transpose: an N x N matrix of integers distributed by block rows is transposed
 * into block columns with one MPI_Alltoallw per sweep, whose datatypes are subarrays of the
 * local blocks (no packing: the FFT-library way of writing a transpose), then updated from the
 * transposed data; the last sweep's blocks are exchanged back in place (MPI_IN_PLACE) with
 * MPI_Alltoallw on contiguous blocks. Exact integer arithmetic modulo a prime: the checksum is
 * the same at any rank count. Usage: alltoallw-transpose [N [SWEEPS]] (defaults 480 40). Set
 * TP_TIMING=1 for rank 0's time from MPI_Init to MPI_Finalize on stderr. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define PRIME 1000003L

static int first_of(int n, int parts, int p) { return p * (n / parts) + (p < n % parts ? p : n % parts); }
static int size_of(int n, int parts, int p) { return n / parts + (p < n % parts ? 1 : 0); }

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 480, sweeps = argc > 2 ? atoi(argv[2]) : 40;
    int rank, size, r, i, j, s;
    double t0;
    MPI_Init(&argc, &argv);
    t0 = MPI_Wtime();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int rows = size_of(n, size, rank), row0 = first_of(n, size, rank);
    /* a: my rows x n (row-major); t: my columns, as n x rows_t (row-major: t[k][c]). */
    long *a = malloc((size_t)rows * (size_t)n * sizeof(long) + 1);
    long *t = malloc((size_t)n * (size_t)rows * sizeof(long) + 1);
    int *sc = malloc(sizeof(int) * (size_t)size), *rc = malloc(sizeof(int) * (size_t)size);
    int *sd = malloc(sizeof(int) * (size_t)size), *rd = malloc(sizeof(int) * (size_t)size);
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * (size_t)size);
    MPI_Datatype *rt = malloc(sizeof(MPI_Datatype) * (size_t)size);
    if (!a || !t || !sc || !rc || !sd || !rd || !st || !rt) {
        fprintf(stderr, "alltoallw-transpose: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (i = 0; i < rows; i++)
        for (j = 0; j < n; j++)
            a[(size_t)i * n + j] = ((long)(row0 + i) * 37 + (long)j * 11 + 5) % PRIME;
    /* To r: my rows x r's columns of a, as a subarray of a (sent from a itself). From r: r's
     * rows x my columns, contiguous in t at r's first global row (t is n x rows: row k holds
     * my columns of global row k). Each rank holds as many columns as rows. */
    for (r = 0; r < size; r++) {
        int sizes[2] = {rows, n}, sub[2] = {rows, size_of(n, size, r)},
            start[2] = {0, first_of(n, size, r)};
        if (rows > 0 && sub[1] > 0)
            MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_LONG, &st[r]);
        else
            MPI_Type_contiguous(0, MPI_LONG, &st[r]);
        MPI_Type_commit(&st[r]);
        sc[r] = 1;
        sd[r] = 0;
        rc[r] = size_of(n, size, r) * rows;
        rd[r] = first_of(n, size, r) * rows * (int)sizeof(long);
        rt[r] = MPI_LONG;
    }
    long check = 0;
    for (s = 0; s < sweeps; s++) {
        MPI_Alltoallw(a, sc, sd, st, t, rc, rd, rt, MPI_COMM_WORLD);
        /* t[k][c]: global row k, my column c (global row0 + c of the transposed matrix). */
        for (i = 0; i < rows; i++)
            for (j = 0; j < n; j++)
                a[(size_t)i * n + j] = (a[(size_t)i * n + j] * 3 + t[(size_t)j * rows + i] + s) % PRIME;
    }
    /* Back in place: every rank's t blocks travel home (contiguous blocks, the same layout
     * both ways since the counts are symmetric: rows(me) x rows(r)). */
    for (r = 0; r < size; r++)
        rt[r] = MPI_LONG;
    MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, t, rc, rd, rt, MPI_COMM_WORLD);
    for (i = 0; i < rows; i++)
        for (j = 0; j < n; j++)
            check = (check + a[(size_t)i * n + j] * ((row0 + i + j) % 97 + 1)) % 2147483647L;
    for (i = 0; i < n * rows; i++)
        check = (check + t[i] % 1009) % 2147483647L;
    long total = 0;
    MPI_Reduce(&check, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("checksum: %ld\n", total % 2147483647L);
    for (r = 0; r < size; r++)
        MPI_Type_free(&st[r]);
    free(a); free(t); free(sc); free(rc); free(sd); free(rd); free(st); free(rt);
    if (rank == 0 && getenv("TP_TIMING"))
        fprintf(stderr, "alltoallw-transpose: elapsed %.6f s\n", MPI_Wtime() - t0);
    MPI_Finalize();
    return 0;
}
