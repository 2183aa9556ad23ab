/* The token machine (the timing variant's transport, docs/token-passing.md), one scenario per
 * run, chosen by argv[1]: messages of every size arrive intact although their sender sleeps,
 * wildcard receives, a Sendrecv ring, a Test polling loop, MPI semantics of the Wait/Test/Probe
 * family, communicator calls, a waiting rank's CPU use, a deadlock, and how many ranks compute
 * at once (MPIETE_RANKS_PER_NODE). Every scenario but the deadlock ends by checking this rank's
 * timing file: every block it ran is listed. */
#define _GNU_SOURCE
#include "test_util.h"

#include <dirent.h>
#include <sched.h>
#include <stdint.h>
#include <sys/resource.h>
#include <unistd.h>

static int rank, size;

/* How many ranks the token machine lets compute at once (MPIETE_RANKS_PER_NODE, default 1). */
static int ranks_per_node(void) {
  const char *v = getenv("MPIETE_RANKS_PER_NODE");
  return v != NULL && v[0] != '\0' ? atoi(v) : 1;
}

/* Byte I of a message of N bytes from SRC: a pattern that catches shifted or mixed data. */
static unsigned char pattern(int src, size_t n, size_t i) {
  return (unsigned char)(src * 31 + n * 7 + i * 13 + (i >> 12));
}

static void fill(unsigned char *b, int src, size_t n) {
  for (size_t i = 0; i < n; ++i)
    b[i] = pattern(src, n, i);
}

static void check_bytes(const unsigned char *b, int src, size_t n) {
  for (size_t i = 0; i < n; ++i)
    CHECK(b[i] == pattern(src, n, i), "byte %zu of %zu from %d: %u", i, n, src, b[i]);
}

static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double wall_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A compute block that burns the processor for about `seconds`. */
static volatile double sink;
static void busy_block(mpiete_site_t id, double seconds) {
  T_BLOCK_BEGIN(id);
  const double end = wall_seconds() + seconds;
  double x = 0;
  while (wall_seconds() < end)
    for (int i = 0; i < 1000; ++i)
      x += i * 1e-9;
  sink = x;
  T_BLOCK_END(id);
  T_EXPECT_BLOCK(id);
}

/* A small compute block (every rank runs a few, so each rank's file lists blocks). */
static void small_block(mpiete_site_t id) {
  T_BLOCK_BEGIN(id);
  double x = 0;
  for (int i = 0; i < 100; ++i)
    x += i * 0.5;
  sink = x;
  T_BLOCK_END(id);
  T_EXPECT_BLOCK(id);
}

static void send_(mpiete_site_t site, const void *b, int n, MPI_Datatype t, int dest, int tag) {
  CHECK_OK(mpiete_send(site, b, n, t, dest, tag, MPI_COMM_WORLD));
  T_EXPECT_SPLIT(site);
}

static void recv_(mpiete_site_t site, void *b, int n, MPI_Datatype t, int src, int tag,
                  MPI_Status *st) {
  CHECK_OK(mpiete_recv(site, b, n, t, src, tag, MPI_COMM_WORLD, st));
  T_EXPECT_SPLIT(site);
}

/* Messages larger than a heap chunk (4 MiB) go through the sender's reused memfds (at most 8)
 * or, when all are in use, a fresh one. Rank 0 sends rank 1 rounds of non-blocking messages of
 * sizes that grow and shrink (so a buffer is reused, grown, and remapped by the receiver), 10
 * in flight at once (2 past the reused ones) plus a synchronous one, each with its own content;
 * rank 1 receives them in reverse tag order once they are all sent, checks every byte and
 * answers with one large message per round the other way. */
static void bigmessages(void) {
  enum { NMSG = 10, ROUNDS = 3 };
  const size_t mib = 1u << 20;
  if (size < 2) {
    return;
  }
  unsigned char *bufs[NMSG];
  for (int k = 0; k < NMSG; ++k) {
    bufs[k] = malloc(24 * mib);
    CHECK(bufs[k] != NULL, "no memory");
  }
  for (int round = 0; round < ROUNDS; ++round) {
    size_t sizes[NMSG];
    for (int k = 0; k < NMSG; ++k) /* 5..23 MiB, a different mix every round */
      sizes[k] = (5 + (size_t)((k * 7 + round * 5) % 19)) * mib + (size_t)k * 4099;
    if (rank == 0) {
      MPI_Request reqs[NMSG];
      for (int k = 0; k < NMSG; ++k) {
        fill(bufs[k], 100 * round + k, sizes[k]);
        CHECK_OK(mpiete_isend(T_ID(130), bufs[k], (int)sizes[k], MPI_BYTE, 1, k, MPI_COMM_WORLD,
                              &reqs[k]));
        T_EXPECT(T_ID(130), "start");
      }
      CHECK_OK(mpiete_waitall(T_ID(131), NMSG, reqs, MPI_STATUSES_IGNORE));
      T_EXPECT(T_ID(131), "wait");
      fill(bufs[0], 100 * round + 50, 6 * mib);
      CHECK_OK(mpiete_ssend(T_ID(140), bufs[0], (int)(6 * mib), MPI_BYTE, 1, 50, MPI_COMM_WORLD));
      T_EXPECT_SPLIT(T_ID(140));
      MPI_Status st;
      recv_(T_ID(142), bufs[1], (int)(24 * mib), MPI_BYTE, 1, 60, &st);
      int n = -1;
      CHECK_OK(MPI_Get_count(&st, MPI_BYTE, &n));
      check_bytes(bufs[1], 1000 + round, (size_t)n);
      CHECK(n == (int)((9 + round * 4) * mib), "answer count %d", n);
    } else if (rank == 1) {
      for (int k = NMSG - 1; k >= 0; --k) {
        MPI_Status st;
        int n = -1;
        recv_(T_ID(144), bufs[k], (int)(24 * mib), MPI_BYTE, 0, k, &st);
        CHECK_OK(MPI_Get_count(&st, MPI_BYTE, &n));
        CHECK(n == (int)sizes[k], "count %d want %zu", n, sizes[k]);
        check_bytes(bufs[k], 100 * round + k, sizes[k]);
      }
      recv_(T_ID(146), bufs[0], (int)(24 * mib), MPI_BYTE, 0, 50, MPI_STATUS_IGNORE);
      check_bytes(bufs[0], 100 * round + 50, 6 * mib);
      const size_t answer = (9 + (size_t)round * 4) * mib;
      fill(bufs[1], 1000 + round, answer);
      send_(T_ID(148), bufs[1], (int)answer, MPI_BYTE, 0, 60);
    }
  }
  for (int k = 0; k < NMSG; ++k)
    free(bufs[k]);
}

/* 1. Every rank but 1 sends rank 1 messages of 0 B, 100 B, 1 MiB and 16 MiB (the last one
 *    synchronous), and a strided vector, then waits for an ack; rank 1 runs only once they all
 *    sleep, receives from the highest source down, and checks every byte. */
static void messages(void) {
  static const size_t sizes[] = {0, 100, 1u << 20, 16u << 20};
  enum { NSIZES = 4 };
  unsigned char *buf = malloc(16u << 20);
  CHECK(buf != NULL, "no memory");
  int vec[40];
  MPI_Datatype vtype;
  CHECK_OK(MPI_Type_vector(4, 2, 5, MPI_INT, &vtype)); /* 4 blocks of 2 ints, stride 5 */
  CHECK_OK(MPI_Type_commit(&vtype));
  if (rank != 1) {
    small_block(T_ID(100));
    for (int s = 0; s < NSIZES; ++s) {
      fill(buf, rank, sizes[s]);
      if (s == NSIZES - 1) {
        CHECK_OK(mpiete_ssend(T_ID(110), buf, (int)sizes[s], MPI_BYTE, 1, s, MPI_COMM_WORLD));
        T_EXPECT_SPLIT(T_ID(110));
      } else {
        send_(T_ID(102), buf, (int)sizes[s], MPI_BYTE, 1, s);
      }
      memset(buf, 0xee, sizes[s]); /* the message is complete: the buffer is ours again */
    }
    for (int i = 0; i < 40; ++i)
      vec[i] = rank * 1000 + i;
    send_(T_ID(104), vec, 2, vtype, 1, 50);
    int ack = -1;
    recv_(T_ID(106), &ack, 1, MPI_INT, 1, 60, MPI_STATUS_IGNORE);
    CHECK(ack == rank, "ack %d", ack);
  } else {
    small_block(T_ID(101));
    for (int src = size - 1; src >= 0; --src) {
      if (src == 1)
        continue;
      for (int s = 0; s < NSIZES; ++s) {
        MPI_Status st;
        int n = -1;
        memset(buf, 0, sizes[s]);
        recv_(T_ID(120), buf, 16 << 20, MPI_BYTE, src, s, &st);
        CHECK(st.MPI_SOURCE == src && st.MPI_TAG == s && st.MPI_ERROR == MPI_SUCCESS,
              "status %d/%d/%d", st.MPI_SOURCE, st.MPI_TAG, st.MPI_ERROR);
        CHECK_OK(MPI_Get_count(&st, MPI_BYTE, &n));
        CHECK(n == (int)sizes[s], "count %d want %zu", n, sizes[s]);
        check_bytes(buf, src, sizes[s]);
      }
      for (int i = 0; i < 40; ++i)
        vec[i] = -1;
      MPI_Status st;
      int n = -1;
      recv_(T_ID(122), vec, 2, vtype, src, 50, &st);
      CHECK_OK(MPI_Get_count(&st, vtype, &n));
      CHECK(n == 2, "vector count %d", n);
      /* Element k of block b of vector v sits at 17*v + 5*b + k (the extent is 17 ints). */
      for (int v = 0; v < 2; ++v)
        for (int b = 0; b < 4; ++b)
          for (int k = 0; k < 2; ++k) {
            const int i = 17 * v + 5 * b + k;
            CHECK(vec[i] == src * 1000 + i, "vec[%d] = %d", i, vec[i]);
          }
      CHECK(vec[2] == -1 && vec[4] == -1 && vec[34] == -1, "vector gaps overwritten");
      send_(T_ID(124), &src, 1, MPI_INT, src, 60);
    }
  }
  MPI_Type_free(&vtype);
  free(buf);
}

/* 2. Rank 0 receives 3 messages from every other rank with MPI_ANY_SOURCE / MPI_ANY_TAG and
 *    writes the order it got them in to $MPIETE_OUTDIR/wildcard.txt (the test runs twice and
 *    compares). Under the token they come in global send order: all of rank 1's, then 2's. */
static void wildcard(void) {
  if (rank == 0) {
    char path[4096];
    snprintf(path, sizeof path, "mkdir -p '%s'", getenv("MPIETE_OUTDIR"));
    CHECK(system(path) == 0, "%s failed", path);
    snprintf(path, sizeof path, "%s/wildcard.txt", getenv("MPIETE_OUTDIR"));
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    int prev = 0;
    for (int i = 0; i < 3 * (size - 1); ++i) {
      MPI_Status st;
      int v = -1;
      recv_(T_ID(200), &v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, &st);
      CHECK(v == st.MPI_SOURCE * 100 + st.MPI_TAG, "value %d from %d tag %d", v, st.MPI_SOURCE,
            st.MPI_TAG);
      /* One token: matched in global send order. More: senders run at once, so any order. */
      CHECK(ranks_per_node() > 1 || st.MPI_SOURCE >= prev, "source %d after %d: not in send order",
            st.MPI_SOURCE, prev);
      prev = st.MPI_SOURCE;
      fprintf(f, "%d:%d\n", st.MPI_SOURCE, st.MPI_TAG);
    }
    fclose(f);
    small_block(T_ID(210));
  } else {
    small_block(T_ID(202));
    for (int t = 3; t > 0; --t) {
      int v = rank * 100 + t;
      send_(T_ID(204), &v, 1, MPI_INT, 0, t);
    }
  }
}

/* 2b. The wildcard receives and probes follow the traced run's matches
 *     (MPIETE_WILDCARD_SOURCES, written by probe-compute --program): the file gives rank 0 the
 *     senders from the last down, in turn (np 3: 2 1 2 1 2 1), against the token's own order
 *     1 1 1 2 2 2; each sender's messages still come in its send order (tags 3, 2, 1). In
 *     turn an MPI_Recv, an MPI_Irecv and MPI_Wait, an MPI_Probe and an MPI_Iprobe loop (each
 *     then an MPI_Recv from the source it found) take MPI_ANY_SOURCE: each takes one entry. */
static void wildcard_forced(void) {
  if (rank == 0) {
    int next_tag[64];
    for (int r = 0; r < size && r < 64; ++r)
      next_tag[r] = 3;
    for (int i = 0; i < 3 * (size - 1); ++i) {
      const int expect = (size - 1) - i % (size - 1);
      MPI_Status st;
      int v = -1;
      if (i % 4 == 0) {
        recv_(T_ID(220), &v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, &st);
      } else if (i % 4 == 1) {
        MPI_Request req;
        CHECK_OK(mpiete_irecv(T_ID(230), &v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                              MPI_COMM_WORLD, &req));
        T_EXPECT(T_ID(230), "start");
        CHECK_OK(mpiete_wait(T_ID(232), &req, &st));
        T_EXPECT(T_ID(232), "wait");
      } else {
        if (i % 4 == 2) {
          CHECK_OK(mpiete_probe(T_ID(234), MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
          T_EXPECT(T_ID(234), "wait");
        } else {
          int flag = 0;
          while (!flag) {
            CHECK_OK(
                mpiete_iprobe(T_ID(236), MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
            T_EXPECT(T_ID(236), "wait");
          }
        }
        CHECK(st.MPI_SOURCE == expect, "probe %d: found %d, the trace says %d", i, st.MPI_SOURCE,
              expect);
        recv_(T_ID(240), &v, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, &st);
      }
      CHECK(st.MPI_SOURCE == expect, "receive %d: from %d, the trace says %d", i, st.MPI_SOURCE,
            expect);
      CHECK(st.MPI_TAG == next_tag[expect], "receive %d: tag %d from %d, expected %d", i,
            st.MPI_TAG, expect, next_tag[expect]);
      CHECK(v == st.MPI_SOURCE * 100 + st.MPI_TAG, "value %d from %d tag %d", v, st.MPI_SOURCE,
            st.MPI_TAG);
      --next_tag[expect];
    }
  } else {
    small_block(T_ID(224));
    for (int t = 3; t > 0; --t) {
      int v = rank * 100 + t;
      send_(T_ID(226), &v, 1, MPI_INT, 0, t);
    }
  }
}

/* 3. A Sendrecv ring, 5 rounds, each passing on what arrived plus the rank. */
static void ring(void) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int v = rank, got = -1;
  for (int round = 0; round < 5; ++round) {
    small_block(T_ID(300));
    MPI_Status st;
    CHECK_OK(mpiete_sendrecv(T_ID(302), &v, 1, MPI_INT, right, round, &got, 1, MPI_INT, left, round,
                             MPI_COMM_WORLD, &st));
    T_EXPECT_SENDRECV(T_ID(302));
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == round, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
    v = got + rank;
  }
  /* After 5 rounds v = sum over the 5 ranks to the left (with repeats), computed directly: */
  int want = rank;
  {
    int vals[64];
    for (int r = 0; r < size; ++r)
      vals[r] = r;
    for (int round = 0; round < 5; ++round) {
      int next[64];
      for (int r = 0; r < size; ++r)
        next[r] = vals[(r + size - 1) % size] + r;
      memcpy(vals, next, sizeof next);
    }
    want = vals[rank];
  }
  CHECK(v == want, "ring value %d want %d", v, want);
}

/* 4. Rank 0 polls an Irecv with MPI_Test; the last rank computes 50 ms, then sends. The loop
 *    ends (a poll hands the token on) and the other ranks are not starved. */
static void testloop(void) {
  const int last = size - 1;
  if (rank == 0) {
    MPI_Request req;
    int v = -1, flag = 0;
    long polls = 0;
    CHECK_OK(mpiete_irecv(T_ID(400), &v, 1, MPI_INT, last, 4, MPI_COMM_WORLD, &req));
    T_EXPECT(T_ID(400), "start");
    while (!flag) {
      small_block(T_ID(401));
      CHECK_OK(mpiete_test(T_ID(402), &req, &flag, MPI_STATUS_IGNORE));
      T_EXPECT(T_ID(402), "wait");
      ++polls;
    }
    CHECK(v == 44 && req == MPI_REQUEST_NULL, "v %d", v);
    CHECK(polls < 1000, "%ld polls", polls);
  } else if (rank == last) {
    busy_block(T_ID(403), 0.05);
    int v = 44;
    send_(T_ID(404), &v, 1, MPI_INT, 0, 4);
  } else {
    small_block(T_ID(406));
  }
}

/* 5. The Wait/Test/Probe family, PROC_NULL, Request_free, Ssend and truncation. */
static void semantics(void) {
  if (rank == 0) {
    int a = 1, b = 2, c = 3;
    MPI_Request r[3];
    CHECK_OK(mpiete_isend(T_ID(500), &a, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &r[0]));
    CHECK_OK(mpiete_issend(T_ID(501), &b, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &r[1]));
    CHECK_OK(mpiete_isend(T_ID(502), &c, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &r[2]));
    T_EXPECT(T_ID(500), "start");
    T_EXPECT(T_ID(501), "start");
    T_EXPECT(T_ID(502), "start");
    /* The synchronous send cannot be complete: rank 1 has not run yet. */
    int flag = 1;
    CHECK_OK(mpiete_testall(T_ID(503), 3, r, &flag, MPI_STATUSES_IGNORE));
    T_EXPECT(T_ID(503), "wait");
    /* Testall handed the token on once: rank 1 may have matched it by now; either is fine. */
    if (!flag) {
      CHECK_OK(mpiete_waitall(T_ID(504), 3, r, MPI_STATUSES_IGNORE));
      T_EXPECT(T_ID(504), "wait");
    }
    CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL && r[2] == MPI_REQUEST_NULL,
          "requests not released");
    /* A message larger than the receive: MPI_ERR_TRUNCATE in the status. */
    int big[4] = {9, 9, 9, 9};
    send_(T_ID(505), big, 4, MPI_INT, 1, 7);
    /* A freed request: the send still arrives. */
    MPI_Request fr;
    int d = 77;
    CHECK_OK(mpiete_isend(T_ID(510), &d, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, &fr));
    T_EXPECT(T_ID(510), "start");
    CHECK_OK(mpiete_request_free(T_ID(511), &fr));
    T_EXPECT(T_ID(511), "wait");
    CHECK(fr == MPI_REQUEST_NULL, "freed request not null");
    int done = -1;
    recv_(T_ID(508), &done, 1, MPI_INT, 1, 9, MPI_STATUS_IGNORE);
    CHECK(done == 1, "done %d", done);
  } else if (rank == 1) {
    MPI_Status st;
    /* Probe for tag 2 (the Ssend) without receiving it, then Iprobe finds tag 1 too. */
    CHECK_OK(mpiete_probe(T_ID(520), 0, 2, MPI_COMM_WORLD, &st));
    T_EXPECT(T_ID(520), "wait");
    int n = -1;
    CHECK_OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 2 && n == 1, "probe %d/%d/%d", st.MPI_SOURCE,
          st.MPI_TAG, n);
    int flag = 0;
    CHECK_OK(mpiete_iprobe(T_ID(521), MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &flag, &st));
    T_EXPECT(T_ID(521), "wait");
    CHECK(flag && st.MPI_TAG == 1, "iprobe %d tag %d", flag, st.MPI_TAG);
    /* Waitany over {null, tag 2, tag 1}: tag 2 posted first... both complete at once; the
     * lowest index wins. */
    MPI_Request r[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int v2 = -1, v1 = -1, idx = -5;
    CHECK_OK(mpiete_irecv(T_ID(522), &v2, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &r[1]));
    CHECK_OK(mpiete_irecv(T_ID(522), &v1, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &r[2]));
    t_expect_n(T_ID(522), "start", 2, 0);
    CHECK_OK(mpiete_waitany(T_ID(523), 3, r, &idx, &st));
    T_EXPECT(T_ID(523), "wait");
    CHECK(idx == 1 && v2 == 2 && st.MPI_TAG == 2, "waitany %d v2 %d tag %d", idx, v2, st.MPI_TAG);
    int out = -1, indices[3];
    MPI_Status sts[3];
    CHECK_OK(mpiete_waitsome(T_ID(524), 3, r, &out, indices, sts));
    T_EXPECT(T_ID(524), "wait");
    CHECK(out == 1 && indices[0] == 2 && v1 == 1 && sts[0].MPI_TAG == 1, "waitsome %d %d %d", out,
          indices[0], v1);
    CHECK_OK(mpiete_waitsome(T_ID(524), 3, r, &out, indices, sts));
    T_EXPECT(T_ID(524), "wait");
    CHECK(out == MPI_UNDEFINED, "waitsome on nulls: %d", out);
    CHECK_OK(mpiete_waitany(T_ID(523), 3, r, &idx, &st));
    T_EXPECT(T_ID(523), "wait");
    CHECK(idx == MPI_UNDEFINED, "waitany on nulls: %d", idx);
    /* PROC_NULL receive. */
    int z = 5;
    recv_(T_ID(542), &z, 1, MPI_INT, MPI_PROC_NULL, 3, &st);
    CHECK(z == 5 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "proc null %d %d",
          st.MPI_SOURCE, st.MPI_TAG);
    /* Truncation. */
    int small[2] = {0, 0};
    MPI_Request tr;
    CHECK_OK(mpiete_irecv(T_ID(526), small, 2, MPI_INT, 0, 7, MPI_COMM_WORLD, &tr));
    T_EXPECT(T_ID(526), "start");
    /* Returned, not fatal: this test asks for the codes (MPI's default handler aborts). */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int rc = mpiete_wait(T_ID(527), &tr, &st);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    T_EXPECT(T_ID(527), "wait");
    CHECK(rc == MPI_ERR_TRUNCATE && st.MPI_ERROR == MPI_ERR_TRUNCATE, "truncate rc %d", rc);
    CHECK(small[0] == 9 && small[1] == 9, "truncated data %d %d", small[0], small[1]);
    int d = -1;
    recv_(T_ID(544), &d, 1, MPI_INT, 0, 8, MPI_STATUS_IGNORE);
    CHECK(d == 77, "freed-request send %d", d);
    /* Testany: nothing from rank 0 with tag 99 will come; flag stays 0 after one hand-off. */
    MPI_Request never;
    int nv = 0, flag2 = 1, idx2 = 5;
    CHECK_OK(mpiete_irecv(T_ID(532), &nv, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &never));
    T_EXPECT(T_ID(532), "start");
    CHECK_OK(mpiete_testany(T_ID(533), 1, &never, &idx2, &flag2, MPI_STATUS_IGNORE));
    T_EXPECT(T_ID(533), "wait");
    CHECK(flag2 == 0 && idx2 == MPI_UNDEFINED, "testany %d %d", flag2, idx2);
    CHECK_OK(mpiete_request_free(T_ID(534), &never));
    T_EXPECT(T_ID(534), "wait");
    int one = 1;
    send_(T_ID(536), &one, 1, MPI_INT, 0, 9);
  }
  small_block(T_ID(550));
}

/* 6. A waiting rank sleeps: rank 1 hands the token to rank 0 and waits in a receive while
 *    rank 0 computes for 0.3 s; rank 1's own CPU time over the wait must stay far below. */
/* Threads of this process at SCHED_IDLE (the token machine's spinner, MPIETE_WAIT=spin). */
static int idle_threads(void) {
  DIR *d = opendir("/proc/self/task");
  CHECK(d != NULL, "cannot list /proc/self/task");
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (e->d_name[0] != '.' && sched_getscheduler(atoi(e->d_name)) == SCHED_IDLE)
      ++n;
  closedir(d);
  return n;
}

static void sleeping(void) {
  if (rank == 0) {
    int v;
    recv_(T_ID(600), &v, 1, MPI_INT, 1, 1, MPI_STATUS_IGNORE);
    busy_block(T_ID(604), 0.3);
    send_(T_ID(606), &v, 1, MPI_INT, 1, 2);
    CHECK(t_find(T_ID(604)) != NULL, "no busy block");
  } else if (rank == 1) {
    int v = 6;
    const double c0 = cpu_seconds(), w0 = wall_seconds();
    send_(T_ID(610), &v, 1, MPI_INT, 0, 1);
    recv_(T_ID(612), &v, 1, MPI_INT, 0, 2, MPI_STATUS_IGNORE);
    const double cpu = cpu_seconds() - c0, wall = wall_seconds() - w0;
    fprintf(stderr, "rank 1 waited %.3f s using %.4f s of CPU\n", wall, cpu);
    CHECK(wall > 0.25, "did not wait for rank 0's block: %.3f s", wall);
    /* MPIETE_WAIT=spin: an idle-priority thread of the waiting rank keeps its processor busy, as
     * MPI's polling does; how much CPU it got depends on what else wants that processor (on a
     * loaded machine, nearly nothing), so the test asks for the thread and for some CPU.
     * Without MPIETE_WAIT (probe-compute's tests) either is right. */
    const char *how = getenv("MPIETE_WAIT");
    if (how != NULL && (strcmp(how, "spin") == 0 || strcmp(how, "busy") == 0)) {
      CHECK(idle_threads() == 1, "%d threads at SCHED_IDLE, want the spinner", idle_threads());
      CHECK(cpu > 0.0005, "the spinner used only %.4f s of CPU in %.3f s", cpu, wall);
    } else if (how != NULL && strcmp(how, "sleep") == 0) {
      CHECK(idle_threads() == 0, "%d threads at SCHED_IDLE while sleeping", idle_threads());
      CHECK(cpu < 0.03, "a waiting rank used %.4f s of CPU in %.3f s", cpu, wall);
    }
  }
  small_block(T_ID(620));
}

/* The processor this rank was pinned to (MPIETE_PIN=rank: exactly one), or -1. */
static int own_cpu(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CHECK(sched_getaffinity(0, sizeof set, &set) == 0, "sched_getaffinity failed");
  if (CPU_COUNT(&set) != 1)
    return -1;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set))
      return c;
  return -1;
}

/* 6b. More ranks than processors (run under `taskset -c 0,1` at 3 ranks: ranks 0 and 2 share
 *     processor 0): ranks 1 and 2 hand the token on and wait while rank 0 computes for 0.3 s.
 *     A waiting rank's spinner keeps its processor busy only where no rank computes: rank 1's
 *     spins (processor 1 would idle), rank 2's stops at once (it would take slivers of rank 0's
 *     processor). Each checks by where it really is, from rank 0's processor in the reply. */
static void keeper(void) {
  if (rank == 0) {
    int v, cpu = own_cpu();
    for (int src = 1; src < size; ++src)
      recv_(T_ID(1300), &v, 1, MPI_INT, src, 1, MPI_STATUS_IGNORE);
    busy_block(T_ID(1304), 0.3);
    for (int dst = 1; dst < size; ++dst)
      send_(T_ID(1306), &cpu, 1, MPI_INT, dst, 2);
  } else {
    int v = rank, busy_cpu = -1;
    const double c0 = cpu_seconds(), w0 = wall_seconds();
    send_(T_ID(1310), &v, 1, MPI_INT, 0, 1);
    recv_(T_ID(1312), &busy_cpu, 1, MPI_INT, 0, 2, MPI_STATUS_IGNORE);
    const double cpu = cpu_seconds() - c0, wall = wall_seconds() - w0;
    const int mine = own_cpu();
    fprintf(stderr, "rank %d on processor %d (rank 0 on %d) waited %.3f s using %.4f s of CPU\n",
            rank, mine, busy_cpu, wall, cpu);
    CHECK(mine >= 0 && busy_cpu >= 0, "not pinned: processor %d, rank 0's %d", mine, busy_cpu);
    CHECK(wall > 0.25, "did not wait for rank 0's block: %.3f s", wall);
    CHECK(idle_threads() == 1, "%d threads at SCHED_IDLE, want the spinner", idle_threads());
    /* A spinner that went on beside the computing rank took 0.0045 s of this 0.3 s (its
     * idle-policy share); one that stops takes none. */
    if (mine == busy_cpu)
      CHECK(cpu < 0.0015,
            "the spinner on the computing rank's processor used %.4f s of CPU in "
            "%.3f s",
            cpu, wall);
    else
      CHECK(cpu > 0.0005, "the spinner used only %.4f s of CPU in %.3f s", cpu, wall);
  }
  small_block(T_ID(1320));
}

/* 7. Communicator calls: split the world by parity, a ring inside each half, dup and free. */
static void comms(void) {
  MPI_Comm half, dup;
  CHECK_OK(mpiete_comm_split(T_ID(700), MPI_COMM_WORLD, rank % 2, rank, &half));
  T_EXPECT(T_ID(700), "comm");
  int hr, hs;
  MPI_Comm_rank(half, &hr);
  MPI_Comm_size(half, &hs);
  CHECK(hr == rank / 2, "half rank %d", hr);
  CHECK_OK(mpiete_comm_dup(T_ID(701), half, &dup));
  T_EXPECT(T_ID(701), "comm");
  small_block(T_ID(702));
  int v = rank, got = -1;
  MPI_Status st;
  CHECK_OK(mpiete_sendrecv(T_ID(703), &v, 1, MPI_INT, (hr + 1) % hs, 0, &got, 1, MPI_INT,
                           (hr + hs - 1) % hs, 0, dup, &st));
  T_EXPECT_SENDRECV(T_ID(703));
  const int left = (hr + hs - 1) % hs;
  CHECK(got == left * 2 + rank % 2 && st.MPI_SOURCE == left, "got %d from %d", got, st.MPI_SOURCE);
  CHECK_OK(mpiete_comm_free(T_ID(710), &dup));
  CHECK_OK(mpiete_comm_free(T_ID(710), &half));
  t_expect_n(T_ID(710), "comm", 2, 0);
  CHECK(dup == MPI_COMM_NULL && half == MPI_COMM_NULL, "not freed");
}

/* 10. Ranks computing at once: every rank runs one 0.4 s block and records its wall-clock
 *     interval and processor; rank 0 collects them. At most k = MPIETE_RANKS_PER_NODE intervals
 *     may overlap at any instant, with k > 1 ranks 0 and 1 (which start with tokens) must
 *     overlap, and overlapping blocks must have run on different processors. */
static void overlap(void) {
  const int k = ranks_per_node();
  double mine[4];
  mine[2] = sched_getcpu();
  mine[0] = wall_seconds();
  busy_block(T_ID(1000), 0.4);
  mine[1] = wall_seconds();
  mine[3] = sched_getcpu();
  if (rank != 0) {
    send_(T_ID(1002), mine, 4, MPI_DOUBLE, 0, 10);
    return;
  }
  double all[64][4];
  CHECK(size <= 64, "at most 64 ranks");
  memcpy(all[0], mine, sizeof mine);
  for (int r = 1; r < size; ++r)
    recv_(T_ID(1004), all[r], 4, MPI_DOUBLE, r, 10, MPI_STATUS_IGNORE);
  int most = 0;
  for (int r = 0; r < size; ++r) {
    CHECK(all[r][2] == all[r][3], "rank %d moved from cpu %g to %g inside its block", r, all[r][2],
          all[r][3]);
    /* How many blocks run at the instant rank r's starts (the maximum is at some start). */
    int at = 0;
    for (int q = 0; q < size; ++q)
      at += all[q][0] <= all[r][0] && all[r][0] < all[q][1];
    most = at > most ? at : most;
    for (int q = 0; q < size; ++q)
      if (q != r && all[q][0] < all[r][1] && all[r][0] < all[q][1])
        CHECK(all[q][2] != all[r][2], "ranks %d and %d computed at once on cpu %g", q, r,
              all[q][2]);
  }
  const int want = k < size ? k : size;
  fprintf(stderr,
          "at most %d of %d ranks computed at once (ranks per node %d); rank 0 on cpu "
          "%g, rank 1 on cpu %g\n",
          most, size, k, all[0][2], all[1][2]);
  CHECK(most <= want, "%d blocks ran at once with %d ranks per node", most, k);
  CHECK(most == want, "only %d blocks ran at once with %d ranks per node", most, k);
  CHECK(k == 1 || (all[0][0] < all[1][1] && all[1][0] < all[0][1]),
        "ranks 0 and 1 did not overlap with %d ranks per node", k);
  /* One token: each rank on a processor of its own (MPIETE_PIN=rank, the default), or every
   * rank on the token's processor (MPIETE_PIN=token, seed 004). */
  const char *pin = getenv("MPIETE_PIN");
  if (k == 1 && (pin == NULL || pin[0] == '\0' || strcmp(pin, "rank") == 0)) {
    if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
      CHECK(all[0][2] != all[1][2], "MPIETE_PIN=rank: ranks 0 and 1 share cpu %g", all[0][2]);
  } else if (k == 1) {
    for (int r = 1; r < size; ++r)
      CHECK(all[r][2] == all[0][2], "one processor: rank %d on cpu %g, rank 0 on cpu %g", r,
            all[r][2], all[0][2]);
  }
}

/* 11. The rank that starts with the token (MPIETE_TOKEN_FIRST = F, one token): every rank
 *     runs one short block; they must start in the cyclic order F, F + 1, ..., F - 1. */
static void first(void) {
  const char *env = getenv("MPIETE_TOKEN_FIRST");
  const int f = env != NULL && env[0] != '\0' ? atoi(env) % size : 0;
  double start = wall_seconds();
  busy_block(T_ID(1100), 0.02);
  if (rank != 0) {
    send_(T_ID(1102), &start, 1, MPI_DOUBLE, 0, 11);
    return;
  }
  double all[64];
  CHECK(size <= 64, "at most 64 ranks");
  all[0] = start;
  for (int r = 1; r < size; ++r)
    recv_(T_ID(1104), &all[r], 1, MPI_DOUBLE, r, 11, MPI_STATUS_IGNORE);
  for (int i = 1; i < size; ++i) {
    const int before = (f + i - 1) % size, after = (f + i) % size;
    CHECK(all[before] < all[after],
          "MPIETE_TOKEN_FIRST=%d: rank %d started at %.6f, before "
          "rank %d at %.6f",
          f, after, all[after], before, all[before]);
  }
  fprintf(stderr, "ranks started in the order %d .. %d (MPIETE_TOKEN_FIRST=%s)\n", f,
          (f + size - 1) % size, env != NULL ? env : "");
}

/* 12. Ranks that keep their processors (k > 1 tokens, MPIETE_PIN=rank, the default: token i is
 *     processor i's, and rank r holds only token r mod k). Rank 0 computes 0.3 s, every other
 *     rank 0.05 s; rank r must compute where rank r mod k did. Following the tokens instead
 *     (MPIETE_PIN=token), rank k would take rank 1's token, idle first, and its processor. */
static void stay(void) {
  const int k = ranks_per_node();
  double mine[2];
  mine[0] = sched_getcpu();
  busy_block(T_ID(1200), rank == 0 ? 0.3 : 0.05);
  mine[1] = sched_getcpu();
  if (rank != 0) {
    send_(T_ID(1202), mine, 2, MPI_DOUBLE, 0, 12);
    return;
  }
  double all[64][2];
  CHECK(size <= 64 && k > 1 && size > k, "needs k > 1 tokens, more ranks than k, at most 64");
  memcpy(all[0], mine, sizeof mine);
  for (int r = 1; r < size; ++r)
    recv_(T_ID(1204), all[r], 2, MPI_DOUBLE, r, 12, MPI_STATUS_IGNORE);
  for (int r = 0; r < size; ++r) {
    CHECK(all[r][0] == all[r][1], "rank %d moved from cpu %g to %g inside its block", r, all[r][0],
          all[r][1]);
    CHECK(all[r][0] == all[r % k][0],
          "%d tokens, MPIETE_PIN=rank: rank %d on cpu %g, rank %d on cpu %g", k, r, all[r][0],
          r % k, all[r % k][0]);
  }
  fprintf(stderr, "every rank computed on the processor of its token (%d tokens, %d ranks)\n", k,
          size);
}

/* 8. Deliberately deadlocked: both ranks receive first. Must be reported, never hang. */
static void deadlock(void) {
  int v = 0;
  if (rank < 2)
    recv_(T_ID(800), &v, 1, MPI_INT, 1 - rank, 7, MPI_STATUS_IGNORE);
  send_(T_ID(802), &v, 1, MPI_INT, 1 - rank, 7);
}

/* 9. A polling livelock: rank 0 tests for a message rank 1 never sends, while rank 1 waits for
 *    one from rank 0. Reported once MPIETE_POLL_LIMIT polls made no progress. */
static void polldeadlock(void) {
  int v = 0, flag = 0;
  if (rank == 0) {
    MPI_Request req;
    CHECK_OK(mpiete_irecv(T_ID(900), &v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &req));
    while (!flag)
      CHECK_OK(mpiete_test(T_ID(901), &req, &flag, MPI_STATUS_IGNORE));
  } else if (rank == 1) {
    recv_(T_ID(902), &v, 1, MPI_INT, 0, 6, MPI_STATUS_IGNORE);
  }
}

/* 10. The heap (MPIETE_HEAP): three 1 MiB buffers allocated, written and freed every step, an
 * MPI call between. With glibc alone (native) the first step's buffers are mapped, their free
 * raises glibc's thresholds (mmap 1 MiB, trim 2 MiB), and every later step's free leaves 3 MiB
 * at the top of the heap, which glibc gives back: the heap shrinks in 7 of 8 steps. Kept (the
 * default), the MPI call after the heap grew keeps its top occupied, as a real MPI library's
 * own allocations do, and it never shrinks. */
static void heap(void) {
  const char *how = getenv("MPIETE_HEAP");
  const int native = how != NULL && strcmp(how, "native") == 0;
  enum { Steps = 8, Buffers = 3, Bytes = 1 << 20 };
  int shrank = 0;
  for (int step = 0; step < Steps; ++step) {
    unsigned char *b[Buffers];
    for (int i = 0; i < Buffers; ++i) {
      b[i] = malloc(Bytes);
      CHECK(b[i] != NULL, "out of memory");
      memset(b[i], step + i, Bytes);
    }
    int v = step, w = -1;
    const int peer = rank ^ 1;
    if (peer < size) {
      CHECK_OK(mpiete_sendrecv(T_ID(1200), &v, 1, MPI_INT, peer, 3, &w, 1, MPI_INT, peer, 3,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      T_EXPECT_SENDRECV(T_ID(1200));
    }
    CHECK(peer >= size || w == step, "step %d: got %d from rank %d", step, w, peer);
    const char *top = sbrk(0);
    for (int i = 0; i < Buffers; ++i)
      free(b[i]);
    if ((const char *)sbrk(0) < top)
      ++shrank;
  }
  fprintf(stderr, "rank %d (heap %s): the heap shrank in %d of %d steps\n", rank,
          native ? "native" : "kept", shrank, Steps);
  if (native)
    CHECK(shrank >= Steps - 2, "native heap: shrank in only %d of %d steps", shrank, Steps);
  else
    CHECK(shrank == 0, "kept heap: shrank in %d of %d steps", shrank, Steps);
  small_block(T_ID(1210));
}

int main(int argc, char **argv) {
  CHECK(argc >= 2, "usage: token SCENARIO");
  CHECK_OK(mpiete_init(T_ID(1), &argc, &argv));
  t_started();
  T_EXPECT(T_ID(1), "init");
  rank = t_rank;
  size = t_size;
  const char *s = argv[1];
  if (strcmp(s, "messages") == 0)
    messages();
  else if (strcmp(s, "wildcard") == 0)
    wildcard();
  else if (strcmp(s, "wildcard_forced") == 0)
    wildcard_forced();
  else if (strcmp(s, "ring") == 0)
    ring();
  else if (strcmp(s, "bigmessages") == 0)
    bigmessages();
  else if (strcmp(s, "testloop") == 0)
    testloop();
  else if (strcmp(s, "semantics") == 0)
    semantics();
  else if (strcmp(s, "sleeping") == 0)
    sleeping();
  else if (strcmp(s, "keeper") == 0)
    keeper();
  else if (strcmp(s, "comms") == 0)
    comms();
  else if (strcmp(s, "deadlock") == 0)
    deadlock();
  else if (strcmp(s, "polldeadlock") == 0)
    polldeadlock();
  else if (strcmp(s, "overlap") == 0)
    overlap();
  else if (strcmp(s, "first") == 0)
    first();
  else if (strcmp(s, "stay") == 0)
    stay();
  else if (strcmp(s, "heap") == 0)
    heap();
  else
    CHECK(0, "unknown scenario %s", s);
  CHECK_OK(mpiete_finalize(T_ID(2)));
  T_EXPECT(T_ID(2), "finalize");
  t_check_output();
  return 0;
}
