/* Collectives and communicator management (forwarded to MPI for now): results and counts.
 * Also starts with MPI_Init_thread. */
#include "test_util.h"

int main(int argc, char **argv) {
  int provided = -1;
  CHECK_OK(mpiete_init_thread(T_ID(1), &argc, &argv, MPI_THREAD_FUNNELED, &provided));
  t_started();
  T_EXPECT(T_ID(1), "init");
  CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE, "provided %d",
        provided);
  const int rank = t_rank, size = t_size;
  const MPI_Comm world = MPI_COMM_WORLD;
#define COLL(id) T_EXPECT(T_ID(id), "collective")
#define COMM(id) T_EXPECT(T_ID(id), "comm")

  CHECK_OK(mpiete_barrier(T_ID(10), world));
  COLL(10);

  { /* Bcast from the last rank */
    int v[5] = {0, 0, 0, 0, 0};
    if (rank == size - 1)
      for (int i = 0; i < 5; ++i)
        v[i] = 70 + i;
    CHECK_OK(mpiete_bcast(T_ID(11), v, 5, MPI_INT, size - 1, world));
    COLL(11);
    for (int i = 0; i < 5; ++i)
      CHECK(v[i] == 70 + i, "bcast v[%d] = %d", i, v[i]);
  }
  { /* Reduce to rank 0 */
    int in[2] = {rank, 1}, out[2] = {-1, -1};
    CHECK_OK(mpiete_reduce(T_ID(12), in, out, 2, MPI_INT, MPI_SUM, 0, world));
    COLL(12);
    if (rank == 0)
      CHECK(out[0] == size * (size - 1) / 2 && out[1] == size, "reduce %d %d", out[0], out[1]);
  }
  { /* Allreduce, 4 times in a loop */
    T_LOOP_BEGIN(T_ID(20));
    for (int i = 0; i < 4; ++i) {
      double in = rank + i, out = -1;
      CHECK_OK(mpiete_allreduce(T_ID(13), &in, &out, 1, MPI_DOUBLE, MPI_MAX, world));
      COLL(13);
      CHECK(out == size - 1 + i, "allreduce %g", out);
    }
    T_LOOP_END(T_ID(20), 4);
    T_EXPECT_LOOP(T_ID(20), 4);
  }
  int *all = malloc(sizeof(int) * (size_t)size * 4), *counts = malloc(sizeof(int) * (size_t)size),
      *displs = malloc(sizeof(int) * (size_t)size);
  CHECK(all && counts && displs, "malloc");
  { /* Gather, Gatherv (rank r contributes r + 1 ints) */
    int mine = rank * 3;
    CHECK_OK(mpiete_gather(T_ID(14), &mine, 1, MPI_INT, all, 1, MPI_INT, 0, world));
    COLL(14);
    if (rank == 0)
      for (int r = 0; r < size; ++r)
        CHECK(all[r] == r * 3, "gather all[%d] = %d", r, all[r]);
    int v[4];
    for (int i = 0; i <= rank; ++i)
      v[i] = 10 * rank + i;
    for (int r = 0, d = 0; r < size; d += r + 1, ++r) {
      counts[r] = r + 1;
      displs[r] = d;
    }
    CHECK_OK(mpiete_gatherv(T_ID(15), v, rank + 1, MPI_INT, all, counts, displs, MPI_INT, 0,
                            world));
    COLL(15);
    if (rank == 0)
      for (int r = 0; r < size; ++r)
        for (int i = 0; i <= r; ++i)
          CHECK(all[displs[r] + i] == 10 * r + i, "gatherv r%d i%d", r, i);
  }
  { /* Scatter, Scatterv from rank 0 */
    for (int r = 0; r < size; ++r)
      all[r] = 5 * r;
    int mine = -1;
    CHECK_OK(mpiete_scatter(T_ID(16), all, 1, MPI_INT, &mine, 1, MPI_INT, 0, world));
    COLL(16);
    CHECK(mine == 5 * rank, "scatter %d", mine);
    for (int r = 0; r < size; ++r)
      for (int i = 0; i <= r; ++i)
        all[displs[r] + i] = 100 * r + i;
    int v[4] = {-1, -1, -1, -1};
    CHECK_OK(mpiete_scatterv(T_ID(17), all, counts, displs, MPI_INT, v, rank + 1, MPI_INT, 0,
                             world));
    COLL(17);
    for (int i = 0; i <= rank; ++i)
      CHECK(v[i] == 100 * rank + i, "scatterv v[%d] = %d", i, v[i]);
  }
  { /* Allgather, Allgatherv */
    int mine = rank + 1;
    CHECK_OK(mpiete_allgather(T_ID(18), &mine, 1, MPI_INT, all, 1, MPI_INT, world));
    COLL(18);
    for (int r = 0; r < size; ++r)
      CHECK(all[r] == r + 1, "allgather all[%d] = %d", r, all[r]);
    int v[4];
    for (int i = 0; i <= rank; ++i)
      v[i] = 7 * rank + i;
    CHECK_OK(mpiete_allgatherv(T_ID(19), v, rank + 1, MPI_INT, all, counts, displs, MPI_INT,
                               world));
    COLL(19);
    for (int r = 0; r < size; ++r)
      for (int i = 0; i <= r; ++i)
        CHECK(all[displs[r] + i] == 7 * r + i, "allgatherv r%d i%d", r, i);
  }
  { /* Alltoall, Alltoallv (one int to each rank) */
    int *out = malloc(sizeof(int) * (size_t)size), *in = malloc(sizeof(int) * (size_t)size);
    int *ones = malloc(sizeof(int) * (size_t)size), *offs = malloc(sizeof(int) * (size_t)size);
    CHECK(out && in && ones && offs, "malloc");
    for (int r = 0; r < size; ++r) {
      out[r] = 100 * rank + r;
      ones[r] = 1;
      offs[r] = size - 1 - r; /* reversed placement */
    }
    CHECK_OK(mpiete_alltoall(T_ID(21), out, 1, MPI_INT, in, 1, MPI_INT, world));
    COLL(21);
    for (int r = 0; r < size; ++r)
      CHECK(in[r] == 100 * r + rank, "alltoall in[%d] = %d", r, in[r]);
    for (int r = 0; r < size; ++r)
      out[size - 1 - r] = 1000 * rank + r;
    CHECK_OK(mpiete_alltoallv(T_ID(22), out, ones, offs, MPI_INT, in, ones, offs, MPI_INT,
                              world));
    COLL(22);
    for (int r = 0; r < size; ++r)
      CHECK(in[size - 1 - r] == 1000 * r + rank, "alltoallv from %d", r);
    free(out);
    free(in);
    free(ones);
    free(offs);
  }
  { /* Reduce_scatter (rank r gets r + 1 sums), Reduce_scatter_block, Scan, Exscan */
    const int total = size * (size + 1) / 2;
    int *in = malloc(sizeof(int) * (size_t)total), out[4] = {-1, -1, -1, -1};
    CHECK(in, "malloc");
    for (int i = 0; i < total; ++i)
      in[i] = i;
    CHECK_OK(mpiete_reduce_scatter(T_ID(23), in, out, counts, MPI_INT, MPI_SUM, world));
    COLL(23);
    for (int i = 0; i <= rank; ++i)
      CHECK(out[i] == size * (displs[rank] + i), "reduce_scatter out[%d] = %d", i, out[i]);
    for (int i = 0; i < size; ++i)
      in[i] = rank + i;
    int one = -1;
    CHECK_OK(mpiete_reduce_scatter_block(T_ID(24), in, &one, 1, MPI_INT, MPI_SUM, world));
    COLL(24);
    CHECK(one == size * (size - 1) / 2 + size * rank, "reduce_scatter_block %d", one);
    int mine = rank + 1, scan = -1, exscan = -1;
    CHECK_OK(mpiete_scan(T_ID(25), &mine, &scan, 1, MPI_INT, MPI_SUM, world));
    COLL(25);
    CHECK(scan == (rank + 1) * (rank + 2) / 2, "scan %d", scan);
    CHECK_OK(mpiete_exscan(T_ID(26), &mine, &exscan, 1, MPI_INT, MPI_SUM, world));
    COLL(26);
    if (rank > 0)
      CHECK(exscan == rank * (rank + 1) / 2, "exscan %d", exscan);
    free(in);
  }

  /* Communicator management. */
  MPI_Comm parity, dup, evens, cart, row, node;
  CHECK_OK(mpiete_comm_split(T_ID(30), world, rank % 2, -rank, &parity));
  COMM(30);
  {
    int prank, psize, sum = -1;
    MPI_Comm_rank(parity, &prank);
    MPI_Comm_size(parity, &psize);
    CHECK(psize == (size + 1 - rank % 2) / 2, "split size %d", psize);
    CHECK(prank == psize - 1 - rank / 2, "split rank %d (key -rank)", prank);
    CHECK_OK(mpiete_allreduce(T_ID(40), &rank, &sum, 1, MPI_INT, MPI_SUM, parity));
    COLL(40);
    int want = 0;
    for (int r = rank % 2; r < size; r += 2)
      want += r;
    CHECK(sum == want, "allreduce on split %d", sum);
  }
  CHECK_OK(mpiete_comm_dup(T_ID(31), world, &dup));
  COMM(31);
  {
    int result;
    MPI_Comm_compare(dup, world, &result);
    CHECK(result == MPI_CONGRUENT, "dup compare %d", result);
  }
  {
    MPI_Group wg, eg;
    MPI_Comm_group(world, &wg);
    int nevens = (size + 1) / 2, ranks[8];
    for (int i = 0; i < nevens; ++i)
      ranks[i] = 2 * i;
    MPI_Group_incl(wg, nevens, ranks, &eg);
    CHECK_OK(mpiete_comm_create(T_ID(32), world, eg, &evens));
    COMM(32);
    CHECK((rank % 2 == 0) == (evens != MPI_COMM_NULL), "comm_create membership");
    MPI_Group_free(&eg);
    MPI_Group_free(&wg);
  }
  {
    int dims[2] = {size, 1}, periods[2] = {1, 0}, remain[2] = {0, 1}, crank, rsize;
    CHECK_OK(mpiete_cart_create(T_ID(33), world, 2, dims, periods, 0, &cart));
    COMM(33);
    MPI_Comm_rank(cart, &crank);
    CHECK(crank == rank, "cart rank %d", crank);
    CHECK_OK(mpiete_cart_sub(T_ID(34), cart, remain, &row));
    COMM(34);
    MPI_Comm_size(row, &rsize);
    CHECK(rsize == 1, "cart_sub size %d", rsize);
  }
  {
    int nsize;
    CHECK_OK(mpiete_comm_split_type(T_ID(35), world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL,
                                    &node));
    COMM(35);
    MPI_Comm_size(node, &nsize);
    CHECK(nsize >= 1 && nsize <= size, "split_type size %d", nsize);
  }
  MPI_Comm *to_free[] = {&parity, &dup, &evens, &cart, &row, &node};
  for (size_t i = 0; i < sizeof to_free / sizeof to_free[0]; ++i) {
    if (*to_free[i] == MPI_COMM_NULL)
      continue;
    CHECK_OK(mpiete_comm_free(T_ID(36), to_free[i]));
    COMM(36);
    CHECK(*to_free[i] == MPI_COMM_NULL, "comm_free did not reset the handle");
  }

  free(all);
  free(counts);
  free(displs);
  CHECK_OK(mpiete_finalize(T_ID(2)));
  T_EXPECT(T_ID(2), "finalize");
  t_check_output();
  return 0;
}
