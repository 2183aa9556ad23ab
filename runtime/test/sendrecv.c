/* Split Sendrecv and Sendrecv_replace: results, statuses (MPI_Get_count / MPI_Get_elements in the
 * user's datatype, MPI_STATUS_IGNORE), strided datatypes, short messages, and the counts. */
#include "test_util.h"

/* A vector of 3 blocks of 2 ints, stride 4: extent 10 ints; COUNT of them span COUNT * 10. */
enum { VEC_BLOCKS = 3, VEC_LEN = 2, VEC_STRIDE = 4, VEC_EXTENT = 10, VEC_INTS = 6 };
enum { COUNT = 3, SPAN = COUNT * VEC_EXTENT };
static int in_vec(int i, int count) {
  return i < count * VEC_EXTENT && (i % VEC_EXTENT) % VEC_STRIDE < VEC_LEN;
}

/* Fills the strided positions of the first `count` vectors with base + k, gaps with gap. */
static void fill_vec(int *a, int count, int base, int gap) {
  int k = 0;
  for (int i = 0; i < SPAN + VEC_EXTENT; ++i)
    a[i] = in_vec(i, count) ? base + k++ : gap;
}

int main(int argc, char **argv) {
  CHECK_OK(mpiete_init(T_ID(1), &argc, &argv));
  t_started();
  T_EXPECT(T_ID(1), "init");
  const int rank = t_rank, size = t_size;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Status st;
  int n;

  /* 1. Sendrecv around the ring, with a status and with MPI_STATUS_IGNORE. */
  {
    int out[4], in[8];
    for (int i = 0; i < 4; ++i)
      out[i] = rank * 10 + i;
    for (int i = 0; i < 8; ++i)
      in[i] = -1;
    st.MPI_SOURCE = st.MPI_TAG = -42;
    CHECK_OK(mpiete_sendrecv(T_ID(10), out, 4, MPI_INT, right, 100 + rank, in, 8, MPI_INT,
                             left, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    T_EXPECT_SENDRECV(T_ID(10));
    for (int i = 0; i < 8; ++i)
      CHECK(in[i] == (i < 4 ? left * 10 + i : -1), "sendrecv in[%d] = %d", i, in[i]);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 100 + left, "sendrecv status %d/%d",
          st.MPI_SOURCE, st.MPI_TAG);
    CHECK_OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 4, "sendrecv count %d", n);

    for (int i = 0; i < 8; ++i)
      in[i] = -1;
    CHECK_OK(mpiete_sendrecv(T_ID(13), out, 2, MPI_INT, right, 7, in, 2, MPI_INT, left, 7,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    T_EXPECT_SENDRECV(T_ID(13));
    CHECK(in[0] == left * 10 && in[1] == left * 10 + 1 && in[2] == -1, "sendrecv ignore");
  }

  /* 2. Sendrecv_replace of contiguous ints around the ring, 3 times in a loop. */
  for (int round = 0; round < 3; ++round) {
    int buf[5];
    for (int i = 0; i < 5; ++i)
      buf[i] = 1000 * round + 100 * rank + i;
    CHECK_OK(mpiete_sendrecv_replace(T_ID(20), buf, 5, MPI_INT, right, round, left, round,
                                     MPI_COMM_WORLD, &st));
    T_EXPECT_SENDRECV(T_ID(20));
    for (int i = 0; i < 5; ++i)
      CHECK(buf[i] == 1000 * round + 100 * left + i, "replace buf[%d] = %d", i, buf[i]);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == round, "replace status");
    CHECK_OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 5, "replace count %d", n);
  }

  MPI_Datatype vec;
  CHECK_OK(MPI_Type_vector(VEC_BLOCKS, VEC_LEN, VEC_STRIDE, MPI_INT, &vec));
  CHECK_OK(MPI_Type_commit(&vec));

  /* 3. Sendrecv_replace of strided vectors around the ring: only the strided positions
   * change, the count is reported in vectors, the elements in ints. Wildcard source/tag. */
  {
    int a[SPAN + VEC_EXTENT];
    fill_vec(a, COUNT, 100 * rank, -7);
    CHECK_OK(mpiete_sendrecv_replace(T_ID(30), a, COUNT, vec, right, 50 + rank, MPI_ANY_SOURCE,
                                     MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    T_EXPECT_SENDRECV(T_ID(30));
    int k = 0;
    for (int i = 0; i < SPAN + VEC_EXTENT; ++i) {
      if (in_vec(i, COUNT))
        CHECK(a[i] == 100 * left + k++, "strided a[%d] = %d", i, a[i]);
      else
        CHECK(a[i] == -7, "gap a[%d] = %d", i, a[i]);
    }
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 50 + left, "strided status %d/%d",
          st.MPI_SOURCE, st.MPI_TAG);
    CHECK_OK(MPI_Get_count(&st, vec, &n));
    CHECK(n == COUNT, "strided count %d", n);
    CHECK_OK(MPI_Get_elements(&st, vec, &n));
    CHECK(n == COUNT * VEC_INTS, "strided elements %d", n);

    /* Same with MPI_STATUS_IGNORE. */
    fill_vec(a, COUNT, 100 * rank + 50, -7);
    CHECK_OK(mpiete_sendrecv_replace(T_ID(33), a, COUNT, vec, right, 1, left, 1, MPI_COMM_WORLD,
                                     MPI_STATUS_IGNORE));
    T_EXPECT_SENDRECV(T_ID(33));
    k = 0;
    for (int i = 0; i < SPAN + VEC_EXTENT; ++i) {
      if (in_vec(i, COUNT))
        CHECK(a[i] == 100 * left + 50 + k++, "ignore a[%d] = %d", i, a[i]);
      else
        CHECK(a[i] == -7, "ignore gap a[%d] = %d", i, a[i]);
    }
  }

  /* 4. A short message: rank 0 replaces 3 vectors but rank 1 sends only 1 (with Sendrecv);
   * the status counts 1 vector, the 2 vectors past it keep rank 0's data. */
  if (rank == 0) {
    int a[SPAN + VEC_EXTENT];
    fill_vec(a, COUNT, 500, -7);
    CHECK_OK(mpiete_sendrecv_replace(T_ID(40), a, COUNT, vec, 1, 60, 1, 61, MPI_COMM_WORLD,
                                     &st));
    T_EXPECT_SENDRECV(T_ID(40));
    int k = 0;
    for (int i = 0; i < SPAN + VEC_EXTENT; ++i) {
      if (in_vec(i, 1))
        CHECK(a[i] == 900 + k, "short a[%d] = %d", i, a[i]);
      else if (in_vec(i, COUNT))
        CHECK(a[i] == 500 + k, "short kept a[%d] = %d", i, a[i]);
      else
        CHECK(a[i] == -7, "short gap a[%d] = %d", i, a[i]);
      if (in_vec(i, COUNT))
        ++k;
    }
    CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 61, "short status");
    CHECK_OK(MPI_Get_count(&st, vec, &n));
    CHECK(n == 1, "short count %d", n);
    CHECK_OK(MPI_Get_elements(&st, vec, &n));
    CHECK(n == VEC_INTS, "short elements %d", n);
    CHECK_OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == VEC_INTS, "short count in ints %d", n);
  } else if (rank == 1) {
    int out[SPAN + VEC_EXTENT], in[SPAN + VEC_EXTENT];
    fill_vec(out, 1, 900, 0);
    fill_vec(in, COUNT, 0, 0);
    CHECK_OK(mpiete_sendrecv(T_ID(43), out, 1, vec, 0, 61, in, COUNT, vec, 0, 60,
                             MPI_COMM_WORLD, &st));
    T_EXPECT_SENDRECV(T_ID(43));
    CHECK(in[0] == 500 && in[VEC_EXTENT] == 506, "short partner data");
    CHECK_OK(MPI_Get_count(&st, vec, &n));
    CHECK(n == COUNT, "short partner count %d", n);
  }

  /* 5. Sendrecv_replace with MPI_PROC_NULL on both sides: nothing changes, empty status. */
  {
    int b[3] = {1, 2, 3};
    CHECK_OK(mpiete_sendrecv_replace(T_ID(50), b, 3, MPI_INT, MPI_PROC_NULL, 0, MPI_PROC_NULL,
                                     0, MPI_COMM_WORLD, &st));
    T_EXPECT_SENDRECV(T_ID(50));
    CHECK(b[0] == 1 && b[1] == 2 && b[2] == 3, "proc-null replace changed data");
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "proc-null status");
    CHECK_OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 0, "proc-null count %d", n);
  }

  CHECK_OK(MPI_Type_free(&vec));
  CHECK_OK(mpiete_finalize(T_ID(2)));
  T_EXPECT(T_ID(2), "finalize");
  t_check_output();
  return 0;
}
