/* Trace variant only: a program whose message parameters are known, so trace_check (mode
 * `content`) can assert on the records: a wildcard receive's matched sources, Sendrecv,
 * Waitall / Waitany / Test, a Comm_split communicator (peers as world ranks, one id on all
 * members), MPI_PROC_NULL, Request_free and a probe. */
#include "test_util.h"

int main(int argc, char **argv) {
  CHECK_OK(mpiete_init(T_ID(1), &argc, &argv));
  t_started();
  const int rank = t_rank, size = t_size;
  MPI_Status st;

  /* 1. Rank 0 receives one message from every other rank with MPI_ANY_SOURCE; rank r sends
   * r + 1 ints with tag 5. */
  if (rank == 0) {
    int buf[16];
    for (int i = 1; i < size; ++i) {
      CHECK_OK(mpiete_recv(T_ID(10), buf, 16, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st));
      CHECK(st.MPI_SOURCE >= 1 && st.MPI_SOURCE < size, "source %d", st.MPI_SOURCE);
    }
  } else {
    int buf[16] = {0};
    CHECK_OK(mpiete_send(T_ID(12), buf, rank + 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
  }

  /* 2. Sendrecv around the ring: 2 doubles right, from the left. */
  {
    double out[2] = {rank, rank}, in[2];
    CHECK_OK(mpiete_sendrecv(T_ID(20), out, 2, MPI_DOUBLE, (rank + 1) % size, 20, in, 2, MPI_DOUBLE,
                             (rank + size - 1) % size, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in[0] == (rank + size - 1) % size, "ring %g", in[0]);
  }

  /* 3. Waitall (rank 0, two sends), Waitany (rank 1, two receives), Test polling (rank 0). */
  if (rank == 0) {
    int v[2] = {1, 2};
    MPI_Request r[2];
    CHECK_OK(mpiete_isend(T_ID(30), &v[0], 1, MPI_INT, 1, 30, MPI_COMM_WORLD, &r[0]));
    CHECK_OK(mpiete_isend(T_ID(30), &v[1], 1, MPI_INT, 1, 31, MPI_COMM_WORLD, &r[1]));
    CHECK_OK(mpiete_waitall(T_ID(31), 2, r, MPI_STATUSES_IGNORE));
    int w = 0, flag = 0;
    MPI_Request q;
    CHECK_OK(mpiete_irecv(T_ID(34), &w, 1, MPI_INT, 1, 40, MPI_COMM_WORLD, &q));
    while (!flag)
      CHECK_OK(mpiete_test(T_ID(35), &q, &flag, MPI_STATUS_IGNORE));
    CHECK(w == 77, "test result %d", w);
  } else if (rank == 1) {
    int v[2] = {0, 0}, index;
    MPI_Request r[2];
    CHECK_OK(mpiete_irecv(T_ID(32), &v[0], 1, MPI_INT, 0, 30, MPI_COMM_WORLD, &r[0]));
    CHECK_OK(mpiete_irecv(T_ID(32), &v[1], 1, MPI_INT, 0, 31, MPI_COMM_WORLD, &r[1]));
    CHECK_OK(mpiete_waitany(T_ID(33), 2, r, &index, MPI_STATUS_IGNORE));
    CHECK_OK(mpiete_waitany(T_ID(33), 2, r, &index, MPI_STATUS_IGNORE));
    CHECK(v[0] == 1 && v[1] == 2, "waitany results");
    t_sleep_ms(50); /* rank 0 polls a while: some Tests complete nothing */
    int w = 77;
    CHECK_OK(mpiete_send(T_ID(36), &w, 1, MPI_INT, 0, 40, MPI_COMM_WORLD));
  }

  /* 4. Comm_split by parity, key -rank (members in descending world order); a Sendrecv ring
   * inside it; then Comm_free. */
  {
    MPI_Comm half;
    CHECK_OK(mpiete_comm_split(T_ID(50), MPI_COMM_WORLD, rank % 2, -rank, &half));
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    int out = rank, in = -1;
    CHECK_OK(mpiete_sendrecv(T_ID(51), &out, 1, MPI_INT, (hr + 1) % hs, 51, &in, 1, MPI_INT,
                             (hr + hs - 1) % hs, 51, half, MPI_STATUS_IGNORE));
    CHECK(in % 2 == rank % 2, "split ring got %d", in);
    CHECK_OK(mpiete_comm_free(T_ID(54), &half));
  }

  /* 5. MPI_PROC_NULL, Request_free, Probe. The self-message is received into a variable of
   * its own: the freed send may still be reading v, and a receive must not write a pending
   * send's buffer (MPICH aborts on that overlapping copy). */
  {
    int v = 62, w = 0;
    CHECK_OK(mpiete_send(T_ID(60), &v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    MPI_Request r;
    CHECK_OK(mpiete_isend(T_ID(62), &v, 1, MPI_INT, 0, 62, MPI_COMM_SELF, &r));
    CHECK_OK(mpiete_request_free(T_ID(63), &r));
    CHECK_OK(mpiete_probe(T_ID(64), MPI_ANY_SOURCE, 62, MPI_COMM_SELF, &st));
    CHECK_OK(mpiete_recv(T_ID(65), &w, 1, MPI_INT, 0, 62, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    CHECK(w == 62, "self message %d", w);
  }

  /* 6. Same-buffer receives (trace format 3): a token received into the buffer just sent from
   * is flagged; one received into a buffer of its own, or with no send since the previous
   * receive, is not. */
  if (rank < 2 && size > 1) {
    int tok[64] = {0}, other[64];
    const int peer = 1 - rank;
    if (rank == 0) {
      CHECK_OK(mpiete_send(T_ID(70), tok, 64, MPI_INT, peer, 70, MPI_COMM_WORLD));
      CHECK_OK(mpiete_recv(T_ID(72), tok, 64, MPI_INT, peer, 71, MPI_COMM_WORLD, &st));
      CHECK_OK(mpiete_send(T_ID(70), tok, 64, MPI_INT, peer, 70, MPI_COMM_WORLD));
      CHECK_OK(mpiete_recv(T_ID(74), other, 64, MPI_INT, peer, 71, MPI_COMM_WORLD, &st));
      CHECK_OK(mpiete_recv(T_ID(76), tok, 64, MPI_INT, peer, 71, MPI_COMM_WORLD, &st));
    } else {
      CHECK_OK(mpiete_recv(T_ID(80), tok, 64, MPI_INT, peer, 70, MPI_COMM_WORLD, &st));
      CHECK_OK(mpiete_send(T_ID(82), tok, 64, MPI_INT, peer, 71, MPI_COMM_WORLD));
      CHECK_OK(mpiete_recv(T_ID(80), tok, 64, MPI_INT, peer, 70, MPI_COMM_WORLD, &st));
      CHECK_OK(mpiete_send(T_ID(82), tok, 64, MPI_INT, peer, 71, MPI_COMM_WORLD));
      CHECK_OK(mpiete_send(T_ID(82), tok + 32, 32, MPI_INT, peer, 71, MPI_COMM_WORLD));
    }
  }

  /* 7. Datatype layouts (trace format 4): a column of a row-major 16 x 8 matrix (pieces of one
   * double) sent as a vector and received contiguously; the send record carries layout class 1,
   * the receive 0. */
  if (rank < 2 && size > 1) {
    double m[16][8], col[16];
    const int peer = 1 - rank;
    MPI_Datatype column;
    MPI_Type_vector(16, 1, 8, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    for (int i = 0; i < 16; i++)
      for (int j = 0; j < 8; j++)
        m[i][j] = i * 8 + j;
    if (rank == 0) {
      CHECK_OK(mpiete_send(T_ID(90), &m[0][3], 1, column, peer, 90, MPI_COMM_WORLD));
    } else {
      CHECK_OK(mpiete_recv(T_ID(92), col, 16, MPI_DOUBLE, peer, 90, MPI_COMM_WORLD, &st));
      CHECK(col[5] == 43.0, "column received %g", col[5]);
    }
    MPI_Type_free(&column);
  }

  CHECK_OK(mpiete_finalize(T_ID(2)));
  T_BLOCK_BEGIN(T_ID(3)); /* after MPI_Finalize: still recorded */
  return 0;
}
