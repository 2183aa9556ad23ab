/* Messages described by absolute addresses (MPI_Get_address) from and into MPI_BOTTOM, which
 * the token machine packs and unpacks itself (runtime/lib/Pack.h; MPICH 4.0.2's MPI_Pack
 * rejects MPI_BOTTOM): a struct of scattered variables, several elements repeating at a resized
 * extent whose lowest byte is not the first entry's, a partial receive, a large strided
 * message, Sendrecv_replace, a small Bcast (its messages go through the transport) and an
 * Allgather whose send side is MPI_BOTTOM. Every
 * received value is checked exactly. */
#include "test_util.h"

#include <stddef.h>

/* What section 1's receiver receives into. */
struct triple {
  int a;
  double d[2];
  int c;
};

/* Element layout of sections 2 and 3: the double lies below the int. */
struct pair {
  double d;
  int i;
};

/* An absolute-address type over arr[0] (the int entry first, though it is the higher one),
 * resized to sizeof(struct pair) from &arr[0], so element k is arr[k]. */
static MPI_Datatype pair_type(struct pair *arr) {
  int lens[2] = {1, 1};
  MPI_Aint disps[2], lb;
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, raw, t;
  CHECK_OK(MPI_Get_address(&arr[0].i, &disps[0]));
  CHECK_OK(MPI_Get_address(&arr[0].d, &disps[1]));
  CHECK_OK(MPI_Get_address(&arr[0], &lb));
  CHECK_OK(MPI_Type_create_struct(2, lens, disps, types, &raw));
  CHECK_OK(MPI_Type_create_resized(raw, lb, (MPI_Aint)sizeof(struct pair), &t));
  CHECK_OK(MPI_Type_free(&raw));
  CHECK_OK(MPI_Type_commit(&t));
  return t;
}

enum { BIG = 100000 }; /* ints sent from every other one of 2 * BIG: 400 kB packed */

int main(int argc, char **argv) {
  CHECK_OK(mpiete_init(T_ID(1), &argc, &argv));
  t_started();
  T_EXPECT(T_ID(1), "init");
  const int rank = t_rank, size = t_size;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Status st;
  int n;

  /* 1. Rank 0 sends three scattered variables as one struct from MPI_BOTTOM (entries out of
   * address order); rank 1 receives them into a plain struct. */
  if (rank == 0) {
    int a = 11, c = 13;
    double d[2] = {2.5, 3.5};
    int lens[3] = {1, 2, 1};
    MPI_Aint disps[3];
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_INT}, t;
    CHECK_OK(MPI_Get_address(&a, &disps[0]));
    CHECK_OK(MPI_Get_address(d, &disps[1]));
    CHECK_OK(MPI_Get_address(&c, &disps[2]));
    CHECK_OK(MPI_Type_create_struct(3, lens, disps, types, &t));
    CHECK_OK(MPI_Type_commit(&t));
    CHECK_OK(mpiete_send(T_ID(10), MPI_BOTTOM, 1, t, 1, 10, MPI_COMM_WORLD));
    T_EXPECT_SPLIT(T_ID(10));
    CHECK_OK(MPI_Type_free(&t));
  } else if (rank == 1) {
    struct triple s = {-1, {-1, -1}, -1};
    int lens[3] = {1, 2, 1};
    MPI_Aint disps[3] = {offsetof(struct triple, a), offsetof(struct triple, d),
                         offsetof(struct triple, c)};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_INT}, t;
    CHECK_OK(MPI_Type_create_struct(3, lens, disps, types, &t));
    CHECK_OK(MPI_Type_commit(&t));
    CHECK_OK(mpiete_recv(T_ID(12), &s, 1, t, 0, 10, MPI_COMM_WORLD, &st));
    T_EXPECT_SPLIT(T_ID(12));
    CHECK(s.a == 11 && s.d[0] == 2.5 && s.d[1] == 3.5 && s.c == 13, "struct %d %g %g %d", s.a,
          s.d[0], s.d[1], s.c);
    CHECK_OK(MPI_Get_count(&st, t, &n));
    CHECK(n == 1, "struct count %d", n);
    CHECK_OK(MPI_Type_free(&t));
  }

  /* 2. Three elements repeating at the extent, Isend from MPI_BOTTOM; received into
   * MPI_BOTTOM by an Irecv for four, so the fourth and fifth stay untouched. */
  if (rank == 0) {
    struct pair arr[3];
    for (int k = 0; k < 3; ++k) {
      arr[k].d = 0.5 + k;
      arr[k].i = 100 + k;
    }
    MPI_Datatype t = pair_type(arr);
    MPI_Request r;
    CHECK_OK(mpiete_isend(T_ID(20), MPI_BOTTOM, 3, t, 1, 20, MPI_COMM_WORLD, &r));
    T_EXPECT(T_ID(20), "start");
    CHECK_OK(mpiete_wait(T_ID(21), &r, MPI_STATUS_IGNORE));
    T_EXPECT(T_ID(21), "wait");
    CHECK_OK(MPI_Type_free(&t));
  } else if (rank == 1) {
    struct pair arr[5];
    for (int k = 0; k < 5; ++k) {
      arr[k].d = -1;
      arr[k].i = -1;
    }
    MPI_Datatype t = pair_type(arr);
    MPI_Request r;
    CHECK_OK(mpiete_irecv(T_ID(22), MPI_BOTTOM, 4, t, 0, 20, MPI_COMM_WORLD, &r));
    T_EXPECT(T_ID(22), "start");
    CHECK_OK(mpiete_wait(T_ID(23), &r, &st));
    T_EXPECT(T_ID(23), "wait");
    for (int k = 0; k < 5; ++k)
      CHECK(k < 3 ? arr[k].d == 0.5 + k && arr[k].i == 100 + k : arr[k].d == -1 && arr[k].i == -1,
            "pair %d: %g %d", k, arr[k].d, arr[k].i);
    CHECK_OK(MPI_Get_count(&st, t, &n));
    CHECK(n == 3, "pair count %d", n);
    CHECK_OK(MPI_Type_free(&t));
  }

  /* 3. A large strided message (every other int) from MPI_BOTTOM into a contiguous array. */
  if (rank == 0) {
    int *a = malloc(sizeof(int) * 2 * BIG);
    CHECK(a != NULL, "out of memory");
    for (int k = 0; k < 2 * BIG; ++k)
      a[k] = k % 2 == 0 ? k / 2 : -7;
    MPI_Datatype every_other, t;
    CHECK_OK(MPI_Type_vector(BIG, 1, 2, MPI_INT, &every_other));
    int len = 1;
    MPI_Aint at;
    CHECK_OK(MPI_Get_address(a, &at));
    CHECK_OK(MPI_Type_create_hindexed(1, &len, &at, every_other, &t));
    CHECK_OK(MPI_Type_commit(&t));
    CHECK_OK(mpiete_send(T_ID(30), MPI_BOTTOM, 1, t, 1, 30, MPI_COMM_WORLD));
    T_EXPECT_SPLIT(T_ID(30));
    CHECK_OK(MPI_Type_free(&t));
    CHECK_OK(MPI_Type_free(&every_other));
    free(a);
  } else if (rank == 1) {
    int *b = malloc(sizeof(int) * BIG);
    CHECK(b != NULL, "out of memory");
    CHECK_OK(mpiete_recv(T_ID(32), b, BIG, MPI_INT, 0, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    T_EXPECT_SPLIT(T_ID(32));
    for (int k = 0; k < BIG; ++k)
      CHECK(b[k] == k, "big b[%d] = %d", k, b[k]);
    free(b);
  }

  /* 4. Sendrecv_replace in MPI_BOTTOM around the ring: v[2] then v[0] by absolute address;
   * v[1] is not part of the message. */
  {
    int v[3] = {10 * rank, -5, 10 * rank + 2};
    int lens[2] = {1, 1};
    MPI_Aint disps[2];
    MPI_Datatype t;
    CHECK_OK(MPI_Get_address(&v[2], &disps[0]));
    CHECK_OK(MPI_Get_address(&v[0], &disps[1]));
    CHECK_OK(MPI_Type_create_hindexed(2, lens, disps, MPI_INT, &t));
    CHECK_OK(MPI_Type_commit(&t));
    CHECK_OK(mpiete_sendrecv_replace(T_ID(40), MPI_BOTTOM, 1, t, right, 40, left, 40,
                                     MPI_COMM_WORLD, &st));
    T_EXPECT_SENDRECV(T_ID(40));
    CHECK(v[0] == 10 * left && v[1] == -5 && v[2] == 10 * left + 2, "replace %d %d %d", v[0], v[1],
          v[2]);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 40, "replace status %d/%d", st.MPI_SOURCE,
          st.MPI_TAG);
    CHECK_OK(MPI_Get_count(&st, t, &n));
    CHECK(n == 1, "replace count %d", n);
    CHECK_OK(MPI_Type_free(&t));
  }

  /* 5. The Fortran codes' parameter broadcast: two scattered variables (COMMON-block style) as
   * one absolute-address struct, MPI_Bcast from MPI_BOTTOM on every rank. */
  {
    int steps = rank == 0 ? 500 : -1;
    double dt = rank == 0 ? 0.125 : -1;
    int lens[2] = {1, 1};
    MPI_Aint disps[2];
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT}, t;
    CHECK_OK(MPI_Get_address(&dt, &disps[0]));
    CHECK_OK(MPI_Get_address(&steps, &disps[1]));
    CHECK_OK(MPI_Type_create_struct(2, lens, disps, types, &t));
    CHECK_OK(MPI_Type_commit(&t));
    CHECK_OK(mpiete_bcast(T_ID(50), MPI_BOTTOM, 1, t, 0, MPI_COMM_WORLD));
    T_EXPECT(T_ID(50), "collective");
    CHECK(steps == 500 && dt == 0.125, "bcast %d %g", steps, dt);
    CHECK_OK(MPI_Type_free(&t));
  }

  /* 6. A collective whose send side is MPI_BOTTOM: each rank's two scattered ints as one
   * absolute-address struct, gathered into an ordinary array (the own block is a local copy
   * between datatypes, lib/coll/CollBase.cpp). */
  {
    int first = 100 * rank + 1, second = 100 * rank + 2;
    int lens[2] = {1, 1}, all[2 * 16];
    MPI_Aint disps[2];
    MPI_Datatype types[2] = {MPI_INT, MPI_INT}, t;
    CHECK(size <= 16, "at most 16 ranks, not %d", size);
    CHECK_OK(MPI_Get_address(&second, &disps[0]));
    CHECK_OK(MPI_Get_address(&first, &disps[1]));
    CHECK_OK(MPI_Type_create_struct(2, lens, disps, types, &t));
    CHECK_OK(MPI_Type_commit(&t));
    CHECK_OK(mpiete_allgather(T_ID(60), MPI_BOTTOM, 1, t, all, 2, MPI_INT, MPI_COMM_WORLD));
    T_EXPECT(T_ID(60), "collective");
    for (int r = 0; r < size; ++r)
      CHECK(all[2 * r] == 100 * r + 2 && all[2 * r + 1] == 100 * r + 1, "allgather from %d: %d %d",
            r, all[2 * r], all[2 * r + 1]);
    CHECK_OK(MPI_Type_free(&t));
  }

  CHECK_OK(mpiete_finalize(T_ID(2)));
  T_EXPECT(T_ID(2), "finalize");
  t_check_output();
  return 0;
}
