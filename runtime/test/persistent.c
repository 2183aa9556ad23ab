/* Persistent requests (runtime/lib/Persistent.h): MPI_Send_init / MPI_Recv_init started again
 * and again, completed by every wait and test routine; the user's handles survive completion;
 * an inactive persistent request completes at once with an empty status; a request mixed with
 * ordinary ones; a derived datatype freed by the user after the init; MPI_Request_free. */
#include "test_util.h"

/* The empty status MPI gives an inactive (or null) request. */
static void check_empty(const MPI_Status *st, const char *what) {
  int n = -1;
  CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG, "%s: status %d/%d", what,
        st->MPI_SOURCE, st->MPI_TAG);
  CHECK_OK(MPI_Get_count(st, MPI_INT, &n));
  CHECK(n == 0, "%s: count %d", what, n);
}

int main(int argc, char **argv) {
  CHECK_OK(mpiete_init(T_ID(1), &argc, &argv));
  t_started();
  T_EXPECT(T_ID(1), "init");
  const int rank = t_rank, size = t_size;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Status st, sts[3];

  /* 1. A ring exchange set up once and started five times with Startall + Waitall; the
   * handles stay the same, the statuses are the receives'. */
  int out[4], in[4];
  MPI_Request ring[2];
  CHECK_OK(mpiete_send_init(T_ID(10), out, 4, MPI_INT, right, 5, MPI_COMM_WORLD, &ring[0]));
  T_EXPECT_CALL(T_ID(10));
  CHECK_OK(mpiete_recv_init(T_ID(11), in, 4, MPI_INT, left, 5, MPI_COMM_WORLD, &ring[1]));
  T_EXPECT_CALL(T_ID(11));
  CHECK(ring[0] != MPI_REQUEST_NULL && ring[1] != MPI_REQUEST_NULL && ring[0] != ring[1],
        "init handles");
  const MPI_Request saved0 = ring[0], saved1 = ring[1];
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < 4; ++i) {
      out[i] = 1000 * round + 10 * rank + i;
      in[i] = -1;
    }
    CHECK_OK(mpiete_startall(T_ID(12), 2, ring));
    T_EXPECT(T_ID(12), "start");
    T_EXPECT(T_ID(12), "start");
    CHECK_OK(mpiete_waitall(T_ID(13), 2, ring, sts));
    T_EXPECT(T_ID(13), "wait");
    CHECK(ring[0] == saved0 && ring[1] == saved1, "waitall changed a persistent handle");
    for (int i = 0; i < 4; ++i)
      CHECK(in[i] == 1000 * round + 10 * left + i, "round %d in[%d] = %d", round, i, in[i]);
    CHECK(sts[1].MPI_SOURCE == left && sts[1].MPI_TAG == 5, "ring status %d/%d", sts[1].MPI_SOURCE,
          sts[1].MPI_TAG);
  }

  /* 2. Waiting on inactive persistent requests returns at once with an empty status. */
  CHECK_OK(mpiete_wait(T_ID(14), &ring[1], &st));
  T_EXPECT(T_ID(14), "wait");
  check_empty(&st, "wait on an inactive request");
  CHECK(ring[1] == saved1, "wait on an inactive request changed its handle");
  int index = -7;
  CHECK_OK(mpiete_waitany(T_ID(15), 2, ring, &index, &st));
  T_EXPECT(T_ID(15), "wait");
  CHECK(index == MPI_UNDEFINED, "waitany over inactive requests: index %d", index);

  /* 3. MPI_Start of one request at a time, completed by Test / Waitany / Waitsome. */
  for (int round = 0; round < 3; ++round) {
    out[0] = 77 + round + rank;
    in[0] = -1;
    CHECK_OK(mpiete_start(T_ID(16), &ring[1]));
    T_EXPECT(T_ID(16), "start");
    CHECK_OK(mpiete_start(T_ID(16), &ring[0]));
    T_EXPECT(T_ID(16), "start");
    if (round == 0) {
      int flag = 0;
      while (!flag) {
        CHECK_OK(mpiete_test(T_ID(17), &ring[1], &flag, &st));
        T_EXPECT(T_ID(17), "wait");
      }
      CHECK(st.MPI_SOURCE == left, "test status");
    } else if (round == 1) {
      index = -1;
      CHECK_OK(mpiete_waitany(T_ID(18), 2, ring, &index, &st));
      T_EXPECT(T_ID(18), "wait");
      CHECK(index == 0 || index == 1, "waitany index %d", index);
      if (index == 0) { /* the send finished first: the receive is still to come */
        CHECK_OK(mpiete_waitany(T_ID(18), 2, ring, &index, &st));
        T_EXPECT(T_ID(18), "wait");
        CHECK(index == 1, "second waitany index %d", index);
      }
    } else {
      int outcount = 0, indices[2];
      while (outcount != MPI_UNDEFINED) { /* until no request is active */
        CHECK_OK(mpiete_waitsome(T_ID(19), 2, ring, &outcount, indices, sts));
        T_EXPECT(T_ID(19), "wait");
      }
    }
    CHECK_OK(mpiete_wait(T_ID(14), &ring[0], MPI_STATUS_IGNORE));
    T_EXPECT(T_ID(14), "wait");
    CHECK(in[0] == 77 + round + left, "start round %d: %d", round, in[0]);
    CHECK(ring[0] == saved0 && ring[1] == saved1, "a completion changed a persistent handle");
  }

  /* 4. A persistent send beside an ordinary receive in one Testall. */
  {
    int got[4] = {-1, -1, -1, -1};
    MPI_Request mixed[2];
    out[0] = 500 + rank;
    CHECK_OK(mpiete_irecv(T_ID(20), got, 4, MPI_INT, left, 5, MPI_COMM_WORLD, &mixed[0]));
    T_EXPECT(T_ID(20), "start");
    mixed[1] = ring[0];
    CHECK_OK(mpiete_start(T_ID(16), &mixed[1]));
    T_EXPECT(T_ID(16), "start");
    for (int flag = 0; !flag;) {
      CHECK_OK(mpiete_testall(T_ID(21), 2, mixed, &flag, sts));
      T_EXPECT(T_ID(21), "wait");
    }
    CHECK(mixed[0] == MPI_REQUEST_NULL && mixed[1] == saved0, "testall handles");
    CHECK(got[0] == 500 + left, "mixed receive %d", got[0]);
  }

  /* 5. Freed: the handles become null. */
  CHECK_OK(mpiete_request_free(T_ID(22), &ring[0]));
  CHECK_OK(mpiete_request_free(T_ID(22), &ring[1]));
  T_EXPECT_CALL(T_ID(22));
  T_EXPECT_CALL(T_ID(22));
  CHECK(ring[0] == MPI_REQUEST_NULL && ring[1] == MPI_REQUEST_NULL, "freed handles");

  /* 6. A strided datatype the user frees right after the inits: the requests keep it. */
  {
    MPI_Datatype vec;
    CHECK_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    CHECK_OK(MPI_Type_commit(&vec));
    int a[6], b[6];
    MPI_Request r[2];
    CHECK_OK(mpiete_send_init(T_ID(30), a, 1, vec, right, 6, MPI_COMM_WORLD, &r[0]));
    CHECK_OK(mpiete_recv_init(T_ID(31), b, 1, vec, left, 6, MPI_COMM_WORLD, &r[1]));
    T_EXPECT_CALL(T_ID(30));
    T_EXPECT_CALL(T_ID(31));
    CHECK_OK(MPI_Type_free(&vec));
    for (int round = 0; round < 2; ++round) {
      for (int i = 0; i < 6; ++i) {
        a[i] = 100 * round + 10 * rank + i;
        b[i] = -1;
      }
      CHECK_OK(mpiete_startall(T_ID(32), 2, r));
      T_EXPECT(T_ID(32), "start");
      T_EXPECT(T_ID(32), "start");
      CHECK_OK(mpiete_waitall(T_ID(33), 2, r, MPI_STATUSES_IGNORE));
      T_EXPECT(T_ID(33), "wait");
      for (int i = 0; i < 6; ++i)
        CHECK(b[i] == (i % 2 == 0 ? 100 * round + 10 * left + i : -1), "vector b[%d] = %d", i,
              b[i]);
    }
    /* Freed while the receive is active: the activation still completes. */
    CHECK_OK(mpiete_start(T_ID(34), &r[1]));
    T_EXPECT(T_ID(34), "start");
    CHECK_OK(mpiete_request_free(T_ID(35), &r[1]));
    T_EXPECT(T_ID(35), "wait");
    CHECK_OK(mpiete_start(T_ID(34), &r[0]));
    T_EXPECT(T_ID(34), "start");
    CHECK_OK(mpiete_wait(T_ID(36), &r[0], MPI_STATUS_IGNORE));
    T_EXPECT(T_ID(36), "wait");
    CHECK_OK(mpiete_request_free(T_ID(38), &r[0]));
    T_EXPECT_CALL(T_ID(38));
    CHECK_OK(mpiete_barrier(T_ID(37), MPI_COMM_WORLD));
    T_EXPECT(T_ID(37), "collective");
  }

  CHECK_OK(mpiete_finalize(T_ID(2)));
  T_EXPECT(T_ID(2), "finalize");
  t_check_output();
  return 0;
}
