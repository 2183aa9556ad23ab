/* Split blocking point-to-point (Send, Ssend, Rsend, Bsend, Recv), non-blocking starts, the
 * Wait/Test family and probes: results, statuses, and the per-block counts in the output. */
#include "test_util.h"

/* A vector of 3 blocks of 2 ints, stride 4: extent 10 ints; 2 of them span 20 ints. */
enum { VEC_BLOCKS = 3, VEC_LEN = 2, VEC_STRIDE = 4, VEC_EXTENT = 10, SPAN = 2 * VEC_EXTENT };
static int in_vec(int i) { return i < SPAN && (i % VEC_EXTENT) % VEC_STRIDE < VEC_LEN; }

int main(int argc, char **argv) {
  CHECK_OK(mpiete_init(T_ID(1), &argc, &argv));
  t_started();
  T_EXPECT(T_ID(1), "init");
  CHECK(t_size >= 2, "needs at least 2 ranks");
  const int rank = t_rank;
  MPI_Status st;
  int n;

  /* 1. A loop of 5 sends 0 -> 1, each after a compute block; receives check their status. */
  if (rank == 0) {
    T_LOOP_BEGIN(T_ID(10));
    for (int i = 0; i < 5; ++i) {
      T_BLOCK_BEGIN(T_ID(11));
      int v = 100 + i;
      T_BLOCK_END(T_ID(11));
      T_EXPECT_BLOCK(T_ID(11));
      CHECK_OK(mpiete_send(T_ID(12), &v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD));
      T_EXPECT_SPLIT(T_ID(12));
    }
    T_LOOP_END(T_ID(10), 5);
    T_EXPECT_LOOP(T_ID(10), 5);
  } else if (rank == 1) {
    for (int i = 0; i < 5; ++i) {
      int v = -1;
      st.MPI_SOURCE = st.MPI_TAG = -42;
      CHECK_OK(mpiete_recv(T_ID(14), &v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &st));
      T_EXPECT_SPLIT(T_ID(14));
      CHECK(v == 100 + i, "got %d", v);
      CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 7, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
      CHECK_OK(MPI_Get_count(&st, MPI_INT, &n));
      CHECK(n == 1, "count %d", n);
    }
  }

  /* 2. Ssend 1 -> 0, received with wildcards into a larger buffer, then with STATUS_IGNORE. */
  if (rank == 1) {
    double d[10];
    for (int i = 0; i < 10; ++i)
      d[i] = 0.5 * i;
    CHECK_OK(mpiete_ssend(T_ID(20), d, 10, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD));
    CHECK_OK(mpiete_ssend(T_ID(20), d, 3, MPI_DOUBLE, 0, 10, MPI_COMM_WORLD));
    t_expect_n(T_ID(20), "start", 2, 0);
    t_expect_n(T_ID(21), "wait", 2, 0);
  } else if (rank == 0) {
    double d[20];
    for (int i = 0; i < 20; ++i)
      d[i] = -1;
    CHECK_OK(mpiete_recv(T_ID(22), d, 20, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                         MPI_COMM_WORLD, &st));
    T_EXPECT_SPLIT(T_ID(22));
    CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 9, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
    CHECK_OK(MPI_Get_count(&st, MPI_DOUBLE, &n));
    CHECK(n == 10, "count %d", n);
    CHECK_OK(MPI_Get_elements(&st, MPI_DOUBLE, &n));
    CHECK(n == 10, "elements %d", n);
    for (int i = 0; i < 20; ++i)
      CHECK(d[i] == (i < 10 ? 0.5 * i : -1), "d[%d] = %g", i, d[i]);
    CHECK_OK(mpiete_recv(T_ID(24), d, 20, MPI_DOUBLE, 1, 10, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
    T_EXPECT_SPLIT(T_ID(24));
    CHECK(d[0] == 0 && d[2] == 1.0 && d[3] == 1.5, "ignored-status receive data");
  }

  /* 3. Rsend: the receive is posted (Irecv) before a barrier, the ready send after it. */
  {
    MPI_Request req = MPI_REQUEST_NULL;
    int v = -1;
    if (rank == 1) {
      CHECK_OK(mpiete_irecv(T_ID(30), &v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &req));
      T_EXPECT(T_ID(30), "start");
    }
    CHECK_OK(mpiete_barrier(T_ID(31), MPI_COMM_WORLD));
    T_EXPECT(T_ID(31), "collective");
    if (rank == 0) {
      v = 4242;
      CHECK_OK(mpiete_rsend(T_ID(32), &v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD));
      T_EXPECT_SPLIT(T_ID(32));
    } else if (rank == 1) {
      CHECK_OK(mpiete_wait(T_ID(34), &req, &st));
      T_EXPECT(T_ID(34), "wait");
      CHECK(v == 4242 && st.MPI_SOURCE == 0 && st.MPI_TAG == 3, "rsend result");
      CHECK(req == MPI_REQUEST_NULL, "request not freed");
    }
  }

  /* 4. Bsend from an attached buffer. */
  if (rank == 0) {
    int size = 0;
    CHECK_OK(MPI_Pack_size(3, MPI_INT, MPI_COMM_WORLD, &size));
    size += MPI_BSEND_OVERHEAD;
    char *buffer = malloc((size_t)size);
    CHECK_OK(MPI_Buffer_attach(buffer, size));
    int v[3] = {7, 8, 9};
    CHECK_OK(mpiete_bsend(T_ID(40), v, 3, MPI_INT, 1, 4, MPI_COMM_WORLD));
    T_EXPECT_SPLIT(T_ID(40));
    v[0] = v[1] = v[2] = 0; /* the buffered copy went out already */
    void *detached;
    CHECK_OK(MPI_Buffer_detach(&detached, &size));
    free(buffer);
  } else if (rank == 1) {
    int v[3] = {0, 0, 0};
    CHECK_OK(mpiete_recv(T_ID(42), v, 3, MPI_INT, 0, 4, MPI_COMM_WORLD, &st));
    T_EXPECT_SPLIT(T_ID(42));
    CHECK(v[0] == 7 && v[1] == 8 && v[2] == 9, "bsend data");
  }

  /* 5. Derived datatypes through the split: 2 strided vectors sent, 12 ints received, and
   * back: 12 ints sent, 2 vectors received (the gaps untouched). */
  {
    MPI_Datatype vec;
    CHECK_OK(MPI_Type_vector(VEC_BLOCKS, VEC_LEN, VEC_STRIDE, MPI_INT, &vec));
    CHECK_OK(MPI_Type_commit(&vec));
    int a[SPAN], flat[12];
    if (rank == 0) {
      for (int i = 0; i < SPAN; ++i)
        a[i] = i;
      CHECK_OK(mpiete_send(T_ID(50), a, 2, vec, 1, 5, MPI_COMM_WORLD));
      T_EXPECT_SPLIT(T_ID(50));
      for (int i = 0; i < SPAN; ++i)
        a[i] = -1;
      CHECK_OK(mpiete_recv(T_ID(52), a, 2, vec, 1, 6, MPI_COMM_WORLD, &st));
      T_EXPECT_SPLIT(T_ID(52));
      CHECK_OK(MPI_Get_count(&st, vec, &n));
      CHECK(n == 2, "vector count %d", n);
      CHECK_OK(MPI_Get_elements(&st, vec, &n));
      CHECK(n == 12, "vector elements %d", n);
      int k = 0;
      for (int i = 0; i < SPAN; ++i) {
        if (in_vec(i))
          CHECK(a[i] == 1000 + k++, "a[%d] = %d", i, a[i]);
        else
          CHECK(a[i] == -1, "gap a[%d] = %d", i, a[i]);
      }
      CHECK(k == 12, "k %d", k);
    } else if (rank == 1) {
      CHECK_OK(mpiete_recv(T_ID(54), flat, 12, MPI_INT, 0, 5, MPI_COMM_WORLD, &st));
      T_EXPECT_SPLIT(T_ID(54));
      CHECK_OK(MPI_Get_count(&st, MPI_INT, &n));
      CHECK(n == 12, "flat count %d", n);
      static const int want[12] = {0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19};
      for (int i = 0; i < 12; ++i)
        CHECK(flat[i] == want[i], "flat[%d] = %d", i, flat[i]);
      for (int i = 0; i < 12; ++i)
        flat[i] = 1000 + i;
      CHECK_OK(mpiete_send(T_ID(56), flat, 12, MPI_INT, 0, 6, MPI_COMM_WORLD));
      T_EXPECT_SPLIT(T_ID(56));
    }
    CHECK_OK(MPI_Type_free(&vec));
  }

  /* 6. MPI_PROC_NULL on every rank. */
  {
    int v = 5;
    CHECK_OK(mpiete_send(T_ID(60), &v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    T_EXPECT_SPLIT(T_ID(60));
    CHECK_OK(mpiete_recv(T_ID(62), &v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    T_EXPECT_SPLIT(T_ID(62));
    CHECK(v == 5, "proc-null receive wrote data");
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "proc-null status");
    CHECK_OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 0, "proc-null count %d", n);
  }

  /* 7. Non-blocking starts and every completion routine (calls counted as they happen). */
  if (rank == 0) {
    MPI_Request r[3];
    int v[3] = {11, 12, 13};
    for (int i = 0; i < 3; ++i) {
      CHECK_OK(mpiete_isend(T_ID(70), &v[i], 1, MPI_INT, 1, 1 + i, MPI_COMM_WORLD, &r[i]));
      T_EXPECT(T_ID(70), "start");
    }
    CHECK_OK(mpiete_waitall(T_ID(71), 3, r, MPI_STATUSES_IGNORE));
    T_EXPECT(T_ID(71), "wait");
    int w[2] = {21, 22};
    CHECK_OK(mpiete_issend(T_ID(74), &w[0], 1, MPI_INT, 1, 20, MPI_COMM_WORLD, &r[0]));
    CHECK_OK(mpiete_ibsend(T_ID(74) + 100, &w[1], 1, MPI_INT, MPI_PROC_NULL, 20,
                           MPI_COMM_WORLD, &r[1]));
    T_EXPECT(T_ID(74), "start");
    T_EXPECT(T_ID(74) + 100, "start");
    CHECK_OK(mpiete_waitall(T_ID(71), 2, r, MPI_STATUSES_IGNORE));
    T_EXPECT(T_ID(71), "wait");
    /* for the Test* family and the probes on rank 1 */
    for (int i = 0; i < 4; ++i) {
      int x = 30 + i;
      CHECK_OK(mpiete_send(T_ID(78), &x, 1, MPI_INT, 1, 30 + i, MPI_COMM_WORLD));
      T_EXPECT_SPLIT(T_ID(78));
    }
    int p[4] = {1, 2, 3, 4};
    CHECK_OK(mpiete_send(T_ID(80), p, 4, MPI_INT, 1, 40, MPI_COMM_WORLD));
    T_EXPECT_SPLIT(T_ID(80));
    CHECK_OK(mpiete_irsend(T_ID(86), p, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[0]));
    T_EXPECT(T_ID(86), "start");
    CHECK_OK(mpiete_wait(T_ID(87), &r[0], MPI_STATUS_IGNORE));
    T_EXPECT(T_ID(87), "wait");
  } else if (rank == 1) {
    MPI_Request r[3];
    int v[3] = {0, 0, 0};
    for (int i = 0; i < 3; ++i) {
      CHECK_OK(mpiete_irecv(T_ID(72), &v[i], 1, MPI_INT, 0, 1 + i, MPI_COMM_WORLD, &r[i]));
      T_EXPECT(T_ID(72), "start");
    }
    int seen = 0;
    for (int k = 0; k < 3; ++k) {
      int index = -1;
      CHECK_OK(mpiete_waitany(T_ID(73), 3, r, &index, &st));
      T_EXPECT(T_ID(73), "wait");
      CHECK(index >= 0 && index < 3 && st.MPI_TAG == 1 + index, "waitany %d", index);
      seen |= 1 << index;
    }
    CHECK(seen == 7 && v[0] == 11 && v[1] == 12 && v[2] == 13, "waitany results");

    int w = 0;
    CHECK_OK(mpiete_irecv(T_ID(75), &w, 1, MPI_INT, 0, 20, MPI_COMM_WORLD, &r[0]));
    T_EXPECT(T_ID(75), "start");
    int outcount = 0, indices[3];
    MPI_Status sts[3];
    CHECK_OK(mpiete_waitsome(T_ID(76), 1, r, &outcount, indices, sts));
    T_EXPECT(T_ID(76), "wait");
    CHECK(outcount == 1 && indices[0] == 0 && w == 21 && sts[0].MPI_TAG == 20, "waitsome");

    /* Test, Testall, Testany, Testsome: each polled until done, every call counted. */
    int x[4] = {0, 0, 0, 0}, flag = 0;
    CHECK_OK(mpiete_irecv(T_ID(79), &x[0], 1, MPI_INT, 0, 30, MPI_COMM_WORLD, &r[0]));
    T_EXPECT(T_ID(79), "start");
    for (flag = 0; !flag;) {
      CHECK_OK(mpiete_test(T_ID(90), &r[0], &flag, &st));
      T_EXPECT(T_ID(90), "wait");
    }
    CHECK(x[0] == 30 && st.MPI_TAG == 30, "test");
    CHECK_OK(mpiete_irecv(T_ID(79), &x[1], 1, MPI_INT, 0, 31, MPI_COMM_WORLD, &r[0]));
    T_EXPECT(T_ID(79), "start");
    for (flag = 0; !flag;) {
      CHECK_OK(mpiete_testall(T_ID(91), 1, r, &flag, sts));
      T_EXPECT(T_ID(91), "wait");
    }
    CHECK(x[1] == 31 && sts[0].MPI_TAG == 31, "testall");
    CHECK_OK(mpiete_irecv(T_ID(79), &x[2], 1, MPI_INT, 0, 32, MPI_COMM_WORLD, &r[0]));
    T_EXPECT(T_ID(79), "start");
    for (flag = 0; !flag;) {
      int index = -1;
      CHECK_OK(mpiete_testany(T_ID(92), 1, r, &index, &flag, &st));
      T_EXPECT(T_ID(92), "wait");
      CHECK(!flag || index == 0, "testany index %d", index);
    }
    CHECK(x[2] == 32, "testany");
    CHECK_OK(mpiete_irecv(T_ID(79), &x[3], 1, MPI_INT, 0, 33, MPI_COMM_WORLD, &r[0]));
    T_EXPECT(T_ID(79), "start");
    for (outcount = 0; outcount == 0;) {
      CHECK_OK(mpiete_testsome(T_ID(93), 1, r, &outcount, indices, sts));
      T_EXPECT(T_ID(93), "wait");
    }
    CHECK(outcount == 1 && x[3] == 33, "testsome");

    /* Probe, Iprobe, then the receive. */
    CHECK_OK(mpiete_probe(T_ID(82), 0, 40, MPI_COMM_WORLD, &st));
    T_EXPECT(T_ID(82), "wait");
    CHECK_OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 4 && st.MPI_SOURCE == 0, "probe count %d", n);
    for (flag = 0; !flag;) {
      CHECK_OK(mpiete_iprobe(T_ID(83), MPI_ANY_SOURCE, 40, MPI_COMM_WORLD, &flag, &st));
      T_EXPECT(T_ID(83), "wait");
    }
    int p[4] = {0, 0, 0, 0};
    CHECK_OK(mpiete_recv(T_ID(84), p, 4, MPI_INT, 0, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    T_EXPECT_SPLIT(T_ID(84));
    CHECK(p[0] == 1 && p[3] == 4, "probed receive");
  }

  CHECK_OK(mpiete_finalize(T_ID(2)));
  T_EXPECT(T_ID(2), "finalize");
  t_check_output();
  return 0;
}
