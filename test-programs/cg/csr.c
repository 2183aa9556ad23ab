/* csr.c: CSR Laplacian construction and distributed sparse matrix-vector product for the cg test program. */
#include <stdlib.h>
#include <string.h>
#include "cg.h"

int build_laplacian(problem_t *p, int n, MPI_Comm comm)
{
    int rank, size, gi, li, j, k, r;
    csr_t *A = &p->A;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    p->n = n;
    p->comm = comm;
    p->ngr = n / size + (rank < n % size ? 1 : 0);
    p->gr0 = rank * (n / size) + (rank < n % size ? rank : n % size);
    p->nloc = p->ngr * n;
    p->up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    p->down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    A->nrows = p->nloc;
    A->rowptr = malloc((size_t)(p->nloc + 1) * sizeof(int));
    A->col = malloc((size_t)p->nloc * 5 * sizeof(int));
    A->val = malloc((size_t)p->nloc * 5 * sizeof(double));
    p->xext = calloc((size_t)(p->nloc + 2 * n), sizeof(double));
    if (!A->rowptr || !A->col || !A->val || !p->xext)
        return -1;

    /* Extended-vector index of grid point (global row gi, column j). */
#define EXT(gi_, j_) (((gi_) - p->gr0 + 1) * n + (j_))
    k = 0;
    r = 0;
    for (li = 0; li < p->ngr; li++) {
        gi = p->gr0 + li;
        for (j = 0; j < n; j++) {
            A->rowptr[r++] = k;
            if (gi > 0) {
                A->col[k] = EXT(gi - 1, j);
                A->val[k++] = -1.0;
            }
            if (j > 0) {
                A->col[k] = EXT(gi, j - 1);
                A->val[k++] = -1.0;
            }
            A->col[k] = EXT(gi, j);
            A->val[k++] = 4.0;
            if (j < n - 1) {
                A->col[k] = EXT(gi, j + 1);
                A->val[k++] = -1.0;
            }
            if (gi < n - 1) {
                A->col[k] = EXT(gi + 1, j);
                A->val[k++] = -1.0;
            }
        }
    }
    A->rowptr[r] = k;
#undef EXT
    return 0;
}

void free_problem(problem_t *p)
{
    free(p->A.rowptr);
    free(p->A.col);
    free(p->A.val);
    free(p->xext);
}

/* Exchanges the boundary grid rows of the owned part of xext with the neighbours. */
static void exchange_ghosts(problem_t *p)
{
    MPI_Request req[2];
    MPI_Status st;
    int n = p->n, k, idx, count;
    double *xe = p->xext;

    CHECK(MPI_Irecv(xe, n, MPI_DOUBLE, p->up, TAG_FROM_ABOVE, p->comm, &req[0]));
    CHECK(MPI_Irecv(xe + n + p->nloc, n, MPI_DOUBLE, p->down, TAG_FROM_BELOW, p->comm, &req[1]));
    /* first owned row goes up, last owned row goes down */
    CHECK(MPI_Send(xe + n, n, MPI_DOUBLE, p->up, TAG_FROM_BELOW, p->comm));
    CHECK(MPI_Send(xe + p->nloc, n, MPI_DOUBLE, p->down, TAG_FROM_ABOVE, p->comm));

    for (k = 0; k < 2; k++) {
        CHECK(MPI_Waitany(2, req, &idx, &st));
        if (idx == MPI_UNDEFINED)
            break;
        /* by the peer, not the status: MPICH 4.0.2 completes an Irecv from MPI_PROC_NULL
           with source 0 in the status */
        if ((idx == 0 ? p->up : p->down) == MPI_PROC_NULL)
            continue;
        MPI_Get_count(&st, MPI_DOUBLE, &count);
        if (count != n || st.MPI_SOURCE != (idx == 0 ? p->up : p->down))
            cg_fail(__FILE__, __LINE__);
    }
}

/* y = A x for the owned rows; x and y have p->nloc entries. */
void spmv(problem_t *p, const double *x, double *y)
{
    const csr_t *A = &p->A;
    const double *xe = p->xext;
    int r, k;
    double s;

    memcpy(p->xext + p->n, x, (size_t)p->nloc * sizeof(double));
    exchange_ghosts(p);
    for (r = 0; r < A->nrows; r++) {
        s = 0.0;
        for (k = A->rowptr[r]; k < A->rowptr[r + 1]; k++)
            s += A->val[k] * xe[A->col[k]];
        y[r] = s;
    }
}

double dot(const double *a, const double *b, int n, MPI_Comm comm)
{
    double local = 0.0, global;
    int i;
    for (i = 0; i < n; i++)
        local += a[i] * b[i];
    CHECK(MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm));
    return global;
}
