/* Non-blocking collectives (runtime/lib/Nonblocking.h): each one's result against the values
 * MPI defines; two outstanding on one communicator completed in the other order; one
 * overlapped with point-to-point messages in one Waitall; MPI_Test polling; Waitany, Waitsome,
 * Testall; a blocking collective while one is outstanding; the empty status of a completion;
 * the NBX sparse exchange; operations that advance while their rank is blocked in MPI_Recv or
 * MPI_Probe, or waits for an operation on another communicator. */
#include "test_util.h"

static void check_empty(const MPI_Status *st, const char *what) {
  CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG, "%s: status %d/%d", what,
        st->MPI_SOURCE, st->MPI_TAG);
}

int main(int argc, char **argv) {
  CHECK_OK(mpiete_init(T_ID(1), &argc, &argv));
  t_started();
  T_EXPECT(T_ID(1), "init");
  const int rank = t_rank, size = t_size;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Status st;
  MPI_Request r[4];

  /* 1. Iallreduce, then Wait: the sum of the ranks; an empty status. */
  long sum = 0, mine = rank + 1;
  CHECK_OK(mpiete_iallreduce(T_ID(10), &mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r[0]));
  T_EXPECT(T_ID(10), "collective");
  CHECK(r[0] != MPI_REQUEST_NULL, "iallreduce request");
  CHECK_OK(mpiete_wait(T_ID(11), &r[0], &st));
  T_EXPECT(T_ID(11), "wait");
  CHECK(r[0] == MPI_REQUEST_NULL, "wait left the request");
  CHECK(sum == (long)size * (size + 1) / 2, "iallreduce sum %ld", sum);
  check_empty(&st, "iallreduce wait");

  /* 2. Ibcast and Iallreduce outstanding at once, completed in the other order. */
  int params[3] = {0, 0, 0};
  if (rank == 0) {
    params[0] = 7;
    params[1] = 11;
    params[2] = 13;
  }
  int mx = -1, val = 10 * rank;
  CHECK_OK(mpiete_ibcast(T_ID(12), params, 3, MPI_INT, 0, MPI_COMM_WORLD, &r[0]));
  T_EXPECT(T_ID(12), "collective");
  CHECK_OK(mpiete_iallreduce(T_ID(13), &val, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r[1]));
  T_EXPECT(T_ID(13), "collective");
  CHECK_OK(mpiete_wait(T_ID(14), &r[1], MPI_STATUS_IGNORE));
  T_EXPECT(T_ID(14), "wait");
  CHECK(mx == 10 * (size - 1), "iallreduce max %d", mx);
  CHECK_OK(mpiete_wait(T_ID(15), &r[0], MPI_STATUS_IGNORE));
  T_EXPECT(T_ID(15), "wait");
  CHECK(params[0] == 7 && params[1] == 11 && params[2] == 13, "ibcast %d %d %d", params[0],
        params[1], params[2]);

  /* 3. Overlapped with a ring exchange, all in one Waitall. */
  for (int round = 0; round < 3; ++round) {
    double in = -1, out = 100.0 * round + rank, dsum = 0, dmine = round + rank;
    MPI_Status sts[3];
    CHECK_OK(
        mpiete_iallreduce(T_ID(16), &dmine, &dsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[0]));
    T_EXPECT(T_ID(16), "collective");
    CHECK_OK(mpiete_irecv(T_ID(17), &in, 1, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &r[1]));
    T_EXPECT(T_ID(17), "start");
    CHECK_OK(mpiete_isend(T_ID(18), &out, 1, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, &r[2]));
    T_EXPECT(T_ID(18), "start");
    CHECK_OK(mpiete_waitall(T_ID(19), 3, r, sts));
    T_EXPECT(T_ID(19), "wait"); /* its own record, then the receive's and send's wait */
    T_EXPECT(T_ID(19), "wait");
    CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL && r[2] == MPI_REQUEST_NULL,
          "waitall left a request");
    CHECK(in == 100.0 * round + left, "ring in %g", in);
    CHECK(sts[1].MPI_SOURCE == left && sts[1].MPI_TAG == 3, "ring status");
    CHECK(dsum == (double)size * round + (double)size * (size - 1) / 2, "overlapped sum %g", dsum);
  }

  /* 4. MPI_Test polling an Ibarrier until it completes. */
  CHECK_OK(mpiete_ibarrier(T_ID(20), MPI_COMM_WORLD, &r[0]));
  T_EXPECT(T_ID(20), "collective");
  int flag = 0, polls = 0;
  while (!flag) {
    CHECK_OK(mpiete_test(T_ID(21), &r[0], &flag, MPI_STATUS_IGNORE));
    T_EXPECT(T_ID(21), "wait");
    CHECK(++polls < 100000000, "ibarrier never completed");
  }
  CHECK(r[0] == MPI_REQUEST_NULL, "test left the request");

  /* 5. The other collectives, each completed by Wait, checked against MPI's definitions. */
  int *all = malloc(sizeof(int) * 4 * size), *recv = malloc(sizeof(int) * 4 * size);
  int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
  for (int i = 0; i < 4 * size; ++i)
    all[i] = 1000 * rank + i;
  int red = -1, one = rank + 3;
  CHECK_OK(
      mpiete_ireduce(T_ID(22), &one, &red, 1, MPI_INT, MPI_SUM, size - 1, MPI_COMM_WORLD, &r[0]));
  T_EXPECT(T_ID(22), "collective");
  CHECK_OK(mpiete_wait(T_ID(23), &r[0], MPI_STATUS_IGNORE));
  T_EXPECT(T_ID(23), "wait");
  if (rank == size - 1)
    CHECK(red == size * (size - 1) / 2 + 3 * size, "ireduce %d", red);

  CHECK_OK(mpiete_igather(T_ID(24), &one, 1, MPI_INT, recv, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[0]));
  T_EXPECT(T_ID(24), "collective");
  CHECK_OK(mpiete_wait(T_ID(23), &r[0], MPI_STATUS_IGNORE));
  T_EXPECT(T_ID(23), "wait");
  if (rank == 0)
    for (int i = 0; i < size; ++i)
      CHECK(recv[i] == i + 3, "igather [%d] = %d", i, recv[i]);

  int piece = -1;
  CHECK_OK(
      mpiete_iscatter(T_ID(25), all, 1, MPI_INT, &piece, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[0]));
  T_EXPECT(T_ID(25), "collective");
  CHECK_OK(mpiete_wait(T_ID(23), &r[0], MPI_STATUS_IGNORE));
  T_EXPECT(T_ID(23), "wait");
  CHECK(piece == rank, "iscatter %d", piece); /* rank 0's all[rank] */

  CHECK_OK(mpiete_ialltoall(T_ID(26), all, 2, MPI_INT, recv, 2, MPI_INT, MPI_COMM_WORLD, &r[0]));
  T_EXPECT(T_ID(26), "collective");
  CHECK_OK(mpiete_wait(T_ID(23), &r[0], MPI_STATUS_IGNORE));
  T_EXPECT(T_ID(23), "wait");
  for (int s = 0; s < size; ++s)
    for (int k = 0; k < 2; ++k)
      CHECK(recv[2 * s + k] == 1000 * s + 2 * rank + k, "ialltoall from %d", s);

  for (int s = 0; s < size; ++s) {
    counts[s] = s % 3 + 1;
    displs[s] = 4 * s;
  }
  int mycount = rank % 3 + 1, mydata[3] = {rank, rank * 2, rank * 3};
  CHECK_OK(mpiete_iallgatherv(T_ID(27), mydata, mycount, MPI_INT, recv, counts, displs, MPI_INT,
                              MPI_COMM_WORLD, &r[0]));
  T_EXPECT(T_ID(27), "collective");
  CHECK_OK(mpiete_wait(T_ID(23), &r[0], MPI_STATUS_IGNORE));
  T_EXPECT(T_ID(23), "wait");
  for (int s = 0; s < size; ++s)
    for (int k = 0; k < counts[s]; ++k)
      CHECK(recv[4 * s + k] == s * (k + 1), "iallgatherv from %d [%d]", s, k);

  int scan = -1, exscan = -1;
  CHECK_OK(mpiete_iscan(T_ID(28), &one, &scan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]));
  T_EXPECT(T_ID(28), "collective");
  CHECK_OK(mpiete_iexscan(T_ID(29), &one, &exscan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]));
  T_EXPECT(T_ID(29), "collective");
  /* 6. Waitany, then Waitsome over the rest. */
  int index = -1;
  CHECK_OK(mpiete_waitany(T_ID(30), 2, r, &index, &st));
  T_EXPECT(T_ID(30), "wait");
  CHECK(index == 0 || index == 1, "waitany index %d", index);
  CHECK(r[index] == MPI_REQUEST_NULL, "waitany left its request");
  int outcount = 0, indices[2];
  CHECK_OK(mpiete_waitsome(T_ID(31), 2, r, &outcount, indices, MPI_STATUSES_IGNORE));
  T_EXPECT(T_ID(31), "wait");
  CHECK(outcount == 1 && indices[0] == 1 - index, "waitsome %d [%d]", outcount, indices[0]);
  CHECK(scan == rank * (rank + 1) / 2 + 3 * (rank + 1), "iscan %d", scan);
  if (rank > 0)
    CHECK(exscan == (rank - 1) * rank / 2 + 3 * rank, "iexscan %d", exscan);

  /* 7. Testall polling a reduce-scatter-block, a receive waited for after it. */
  int rsb_in[8], rsb_out[2] = {-1, -1}, token = -1, token_out = rank;
  for (int i = 0; i < 2 * size && i < 8; ++i)
    rsb_in[i] = i + rank;
  if (size <= 4) {
    CHECK_OK(mpiete_ireduce_scatter_block(T_ID(32), rsb_in, rsb_out, 2, MPI_INT, MPI_SUM,
                                          MPI_COMM_WORLD, &r[0]));
    T_EXPECT(T_ID(32), "collective");
    CHECK_OK(mpiete_irecv(T_ID(33), &token, 1, MPI_INT, left, 4, MPI_COMM_WORLD, &r[1]));
    T_EXPECT(T_ID(33), "start");
    CHECK_OK(mpiete_send(T_ID(34), &token_out, 1, MPI_INT, right, 4, MPI_COMM_WORLD));
    T_EXPECT(T_ID(34), "start");
    T_EXPECT(T_ID(35), "wait");
    flag = 0;
    while (!flag) {
      CHECK_OK(mpiete_testall(T_ID(36), 1, r, &flag, MPI_STATUSES_IGNORE));
      T_EXPECT(T_ID(36), "wait");
    }
    CHECK(r[0] == MPI_REQUEST_NULL, "testall left the request");
    CHECK_OK(mpiete_wait(T_ID(40), &r[1], MPI_STATUS_IGNORE));
    T_EXPECT(T_ID(40), "wait");
    CHECK(token == left, "receive %d", token);
    for (int k = 0; k < 2; ++k)
      CHECK(rsb_out[k] == size * (2 * rank + k) + size * (size - 1) / 2, "ireduce_scatter_block %d",
            rsb_out[k]);
  }

  /* 8. A blocking collective while a non-blocking one is outstanding on the communicator. */
  long s1 = 0, s2 = 0, m1 = rank, m2 = 2 * rank;
  CHECK_OK(mpiete_iallreduce(T_ID(37), &m1, &s1, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r[0]));
  T_EXPECT(T_ID(37), "collective");
  CHECK_OK(mpiete_allreduce(T_ID(38), &m2, &s2, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
  T_EXPECT(T_ID(38), "collective");
  CHECK(s2 == (long)size * (size - 1), "allreduce %ld", s2);
  CHECK_OK(mpiete_wait(T_ID(39), &r[0], MPI_STATUS_IGNORE));
  T_EXPECT(T_ID(39), "wait");
  CHECK(s1 == (long)size * (size - 1) / 2, "iallreduce before allreduce %ld", s1);

  /* 9. The NBX sparse exchange (Hoefler et al.): synchronous sends to two peers, a loop that
   * receives whatever a wildcard probe finds and, once this rank's sends have completed,
   * starts an Ibarrier and tests it; the barrier completing means every message was received.
   * Only MPI_Test and MPI_Testall drive the barrier here. */
  {
    int msg[2] = {100 + rank, 200 + rank}, got[2] = {-1, -1}, received = 0;
    const int peers[2] = {right, left};
    MPI_Request sends[2], barrier = MPI_REQUEST_NULL;
    for (int k = 0; k < 2; ++k) {
      CHECK_OK(
          mpiete_issend(T_ID(41), &msg[k], 1, MPI_INT, peers[k], 9 + k, MPI_COMM_WORLD, &sends[k]));
      T_EXPECT(T_ID(41), "start");
    }
    int done = 0, polls = 0;
    while (!done) {
      int found = 0;
      MPI_Status ps;
      CHECK_OK(mpiete_iprobe(T_ID(42), MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &found, &ps));
      T_EXPECT(T_ID(42), "wait");
      if (found) {
        CHECK(received < 2, "NBX: a third message");
        CHECK_OK(mpiete_recv(T_ID(43), &got[ps.MPI_TAG - 9], 1, MPI_INT, ps.MPI_SOURCE, ps.MPI_TAG,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        T_EXPECT(T_ID(43), "start");
        T_EXPECT(T_ID(44), "wait");
        ++received;
      }
      if (barrier == MPI_REQUEST_NULL) {
        int sent = 0;
        CHECK_OK(mpiete_testall(T_ID(45), 2, sends, &sent, MPI_STATUSES_IGNORE));
        T_EXPECT(T_ID(45), "wait");
        if (sent) {
          CHECK_OK(mpiete_ibarrier(T_ID(46), MPI_COMM_WORLD, &barrier));
          T_EXPECT(T_ID(46), "collective");
        }
      } else {
        CHECK_OK(mpiete_test(T_ID(47), &barrier, &done, MPI_STATUS_IGNORE));
        T_EXPECT(T_ID(47), "wait");
      }
      CHECK(++polls < 100000000, "NBX never ended");
    }
    CHECK(received == 2, "NBX: %d messages", received);
    CHECK(got[0] == 100 + left && got[1] == 200 + right, "NBX: got %d %d", got[0], got[1]);
  }

  /* 10. Progress while blocked elsewhere: every rank but the last blocks in MPI_Recv from the
   * rank above before it waits for its operations; the last waits for them first and only then
   * sends, so the others' rounds must advance inside their MPI_Recv (MPI's progress rule; at 3
   * ranks and more the barrier, the broadcast and the reduction take several rounds). */
  {
    MPI_Request q[3];
    int bc[4] = {0, 0, 0, 0}, chain = -1, chain_out = 1000 + rank;
    long psum = 0, pmine = 3 * rank + 1;
    if (rank == 0)
      for (int i = 0; i < 4; ++i)
        bc[i] = 21 + i;
    CHECK_OK(mpiete_ibarrier(T_ID(50), MPI_COMM_WORLD, &q[0]));
    T_EXPECT(T_ID(50), "collective");
    CHECK_OK(mpiete_ibcast(T_ID(51), bc, 4, MPI_INT, 0, MPI_COMM_WORLD, &q[1]));
    T_EXPECT(T_ID(51), "collective");
    CHECK_OK(
        mpiete_iallreduce(T_ID(52), &pmine, &psum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &q[2]));
    T_EXPECT(T_ID(52), "collective");
    if (rank == size - 1) {
      CHECK_OK(mpiete_waitall(T_ID(53), 3, q, MPI_STATUSES_IGNORE));
      T_EXPECT(T_ID(53), "wait");
    } else {
      CHECK_OK(mpiete_recv(T_ID(54), &chain, 1, MPI_INT, rank + 1, 6, MPI_COMM_WORLD, &st));
      T_EXPECT_SPLIT(T_ID(54));
      CHECK(chain == 1001 + rank, "chain: %d from rank %d", chain, rank + 1);
    }
    if (rank > 0) {
      CHECK_OK(mpiete_send(T_ID(56), &chain_out, 1, MPI_INT, rank - 1, 6, MPI_COMM_WORLD));
      T_EXPECT_SPLIT(T_ID(56));
    }
    if (rank < size - 1) {
      CHECK_OK(mpiete_waitall(T_ID(53), 3, q, MPI_STATUSES_IGNORE));
      T_EXPECT(T_ID(53), "wait");
    }
    CHECK(bc[0] == 21 && bc[3] == 24, "progress: ibcast %d %d", bc[0], bc[3]);
    CHECK(psum == 3L * size * (size - 1) / 2 + size, "progress: iallreduce %ld", psum);
  }

  /* 11. Reductions on two communicators, rank 0 completing the one on MPI_COMM_WORLD first, the
   * others the one on its duplicate first: waiting for one must drive the other (at 3 ranks
   * and more each takes several rounds in which rank 0 has a part). */
  {
    MPI_Comm dup;
    MPI_Request q[2];
    long a = 0, b = 0, ma = rank + 1, mb = 10 * (rank + 1);
    CHECK_OK(mpiete_comm_dup(T_ID(62), MPI_COMM_WORLD, &dup));
    T_EXPECT(T_ID(62), "comm");
    CHECK_OK(mpiete_iallreduce(T_ID(63), &ma, &a, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &q[0]));
    T_EXPECT(T_ID(63), "collective");
    CHECK_OK(mpiete_iallreduce(T_ID(64), &mb, &b, 1, MPI_LONG, MPI_SUM, dup, &q[1]));
    T_EXPECT(T_ID(64), "collective");
    for (int k = 0; k < 2; ++k) {
      CHECK_OK(mpiete_wait(T_ID(65), &q[rank == 0 ? k : 1 - k], MPI_STATUS_IGNORE));
      T_EXPECT(T_ID(65), "wait");
    }
    CHECK(a == (long)size * (size + 1) / 2 && b == 10 * a, "two reductions %ld %ld", a, b);
    CHECK_OK(mpiete_comm_free(T_ID(66), &dup));
    T_EXPECT(T_ID(66), "comm");
  }

  /* 12. Part 10 with MPI_Probe: the ranks blocked in it drive their operations too. */
  {
    MPI_Request q[2];
    int chain = -1, chain_out = 2000 + rank;
    long psum = 0, pmine = rank;
    CHECK_OK(mpiete_ibarrier(T_ID(67), MPI_COMM_WORLD, &q[0]));
    T_EXPECT(T_ID(67), "collective");
    CHECK_OK(
        mpiete_iallreduce(T_ID(68), &pmine, &psum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &q[1]));
    T_EXPECT(T_ID(68), "collective");
    if (rank == size - 1) {
      CHECK_OK(mpiete_waitall(T_ID(69), 2, q, MPI_STATUSES_IGNORE));
      T_EXPECT(T_ID(69), "wait");
    } else {
      CHECK_OK(mpiete_probe(T_ID(70), rank + 1, 7, MPI_COMM_WORLD, &st));
      T_EXPECT(T_ID(70), "wait");
      CHECK(st.MPI_SOURCE == rank + 1 && st.MPI_TAG == 7, "probe: %d %d", st.MPI_SOURCE,
            st.MPI_TAG);
      CHECK_OK(mpiete_recv(T_ID(71), &chain, 1, MPI_INT, rank + 1, 7, MPI_COMM_WORLD, &st));
      T_EXPECT_SPLIT(T_ID(71));
      CHECK(chain == 2001 + rank, "probe chain: %d", chain);
    }
    if (rank > 0) {
      CHECK_OK(mpiete_send(T_ID(73), &chain_out, 1, MPI_INT, rank - 1, 7, MPI_COMM_WORLD));
      T_EXPECT_SPLIT(T_ID(73));
    }
    if (rank < size - 1) {
      CHECK_OK(mpiete_waitall(T_ID(69), 2, q, MPI_STATUSES_IGNORE));
      T_EXPECT(T_ID(69), "wait");
    }
    CHECK(psum == (long)size * (size - 1) / 2, "probe: iallreduce %ld", psum);
  }

  free(all);
  free(recv);
  free(counts);
  free(displs);
  CHECK_OK(mpiete_finalize(T_ID(2)));
  T_EXPECT(T_ID(2), "finalize");
  t_check_output();
  return 0;
}
