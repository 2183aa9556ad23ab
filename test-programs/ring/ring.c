/* ring: token ring with blocking MPI_Send/MPI_Recv laps, plus one MPI_Sendrecv and one MPI_Sendrecv_replace ring shift. */
/*
 * Usage:  mpirun -np N ./ring [laps] [len]
 *   laps  times the token travels once round the ring     default 10    large 20000
 *   len   token length in unsigned ints                    default 64    large 4096
 *
 * Any rank count works (at 1 rank the token ring is done locally, the shifts
 * go to self).  Only rank 0 prints; all printed values are integer checksums,
 * so stdout is identical for every run at a given rank count and arguments.
 * Set TP_TIMING=1 for rank 0's time from MPI_Init to MPI_Finalize on stderr (the
 * interval mpiete estimates).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TAG_TOKEN 100
#define TAG_SHIFT 2000
#define TAG_BACK 2001

static long parse_arg(int argc, char **argv, int i, long def)
{
    char *end;
    long v;
    if (argc <= i)
        return def;
    v = strtol(argv[i], &end, 10);
    if (*end != '\0')
        return -1;
    return v;
}

static unsigned mix(unsigned x, unsigned r, unsigned lap)
{
    x ^= r * 0x9e3779b9u + lap;
    x *= 0x85ebca6bu;
    x ^= x >> 13;
    x *= 0xc2b2ae35u;
    x ^= x >> 16;
    return x;
}

static void update_token(unsigned *tok, int len, int rank, int lap)
{
    int j;
    for (j = 0; j < len; j++)
        tok[j] = mix(tok[j] + (unsigned)j, (unsigned)rank, (unsigned)lap);
}

static unsigned long long checksum(const unsigned *v, int len)
{
    unsigned long long s = 0;
    int j;
    for (j = 0; j < len; j++)
        s += (unsigned long long)v[j] * (unsigned long long)(j + 1);
    return s;
}

/* Checks source, tag and element count of a completed receive. */
static int status_ok(MPI_Status *st, int src, int tag, int len)
{
    int count = -1;
    MPI_Get_count(st, MPI_UNSIGNED, &count);
    return st->MPI_SOURCE == src && st->MPI_TAG == tag && count == len;
}

/* One lap of the token round the ring; returns 0 on success, -1 on a protocol error. */
static int pass_token(unsigned *tok, int len, int rank, int size, int lap)
{
    int left = (rank + size - 1) % size;
    int right = (rank + 1) % size;
    int tag = TAG_TOKEN + lap % 1000;
    int rc;
    MPI_Status st;

    if (size == 1) {
        update_token(tok, len, rank, lap);
        return 0;
    }
    if (rank == 0) {
        update_token(tok, len, rank, lap);
        rc = MPI_Send(tok, len, MPI_UNSIGNED, right, tag, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS)
            return -1;
        if (MPI_Recv(tok, len, MPI_UNSIGNED, left, tag, MPI_COMM_WORLD, &st) != MPI_SUCCESS)
            return -1;
    } else {
        if (MPI_Recv(tok, len, MPI_UNSIGNED, left, tag, MPI_COMM_WORLD, &st) != MPI_SUCCESS)
            return -1;
        update_token(tok, len, rank, lap);
        rc = MPI_Send(tok, len, MPI_UNSIGNED, right, tag, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS)
            return -1;
    }
    return status_ok(&st, left, tag, len) ? 0 : -1;
}

int main(int argc, char **argv)
{
    int rank, size, rc, lap, j, dst, src, errors = 0, total_errors = 0;
    long laps, len;
    unsigned *tok, *a, *b;
    unsigned long long tok_sum, shift_sum, back_sum, local;
    double t0, t1;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    t0 = MPI_Wtime();

    laps = parse_arg(argc, argv, 1, 10);
    len = parse_arg(argc, argv, 2, 64);
    if (laps < 1 || len < 1 || len > 10000000) {
        if (rank == 0)
            fprintf(stderr, "usage: ring [laps>=1] [len>=1]\n");
        MPI_Finalize();
        return 1;
    }

    tok = malloc((size_t)len * sizeof *tok);
    a = malloc((size_t)len * sizeof *a);
    b = malloc((size_t)len * sizeof *b);
    if (!tok || !a || !b) {
        fprintf(stderr, "ring: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (j = 0; j < len; j++)
        tok[j] = (unsigned)j;

    MPI_Barrier(MPI_COMM_WORLD);

    /* Token ring: several laps of blocking send/receive. */
    for (lap = 0; lap < laps; lap++) {
        if (pass_token(tok, (int)len, rank, size, lap) != 0) {
            errors++;
            break;
        }
    }

    /* Ring shift to the right with MPI_Sendrecv. */
    for (j = 0; j < len; j++)
        a[j] = mix((unsigned)(rank * len + j), 7u, 0u);
    rc = MPI_Sendrecv(a, (int)len, MPI_UNSIGNED, (rank + 1) % size, TAG_SHIFT,
                      b, (int)len, MPI_UNSIGNED, (rank + size - 1) % size, TAG_SHIFT,
                      MPI_COMM_WORLD, &st);
    if (rc != MPI_SUCCESS || !status_ok(&st, (rank + size - 1) % size, TAG_SHIFT, (int)len))
        errors++;
    local = checksum(b, (int)len) * (unsigned long long)(rank + 1);
    MPI_Reduce(&local, &shift_sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);

    /* Shift the received data two places back to the left, in place. */
    dst = ((rank - 2) % size + size) % size;
    src = (rank + 2) % size;
    if (MPI_Sendrecv_replace(b, (int)len, MPI_UNSIGNED, dst, TAG_BACK, src, TAG_BACK,
                             MPI_COMM_WORLD, &st) != MPI_SUCCESS)
        errors++;
    else if (!status_ok(&st, src, TAG_BACK, (int)len))
        errors++;
    local = checksum(b, (int)len) * (unsigned long long)(rank + 1);
    MPI_Reduce(&local, &back_sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);

    MPI_Reduce(&errors, &total_errors, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        tok_sum = checksum(tok, (int)len);
        printf("ring: ranks=%d laps=%ld len=%ld\n", size, laps, len);
        printf("token checksum:        %llu\n", tok_sum);
        printf("sendrecv checksum:     %llu\n", shift_sum);
        printf("replace checksum:      %llu\n", back_sum);
        printf("errors:                %d\n", total_errors);
    }

    free(tok);
    free(a);
    free(b);
    t1 = MPI_Wtime();
    if (rank == 0 && getenv("TP_TIMING"))
        fprintf(stderr, "ring: elapsed %.6f s\n", t1 - t0);
    MPI_Finalize();
    return total_errors == 0 || rank != 0 ? 0 : 1;
}
