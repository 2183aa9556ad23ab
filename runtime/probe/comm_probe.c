/* The communication probe run by `mpiete probe-comm`: plain MPI (no mpiete instrumentation)
 * point-to-point timings between rank 0 and its partner, printed as a text table on rank 0's
 * stdout for the driver to fit and write as network.yaml (docs/probes.md).
 *
 * For every message size it repeats, in batches, three small exchanges between sender a and
 * receiver b (pair i is rank i and rank i+pairs, so that with ranks placed by slot on two nodes
 * every pair crosses the network):
 *   ping-pong   a: Send(k), Recv(k)  b: Recv(k), Send(k)  -> one way = half the round trip
 *   starts      b: Irecv(k) timed, then a 0-byte "ready"; a: after "ready", Isend(k) timed
 *   arrived     a: Send(k); b: Iprobe until the message is there, then Recv(k) timed
 * until the median one-way time changes by less than the tolerance over the last batch. The sizes
 * are measured in rounds, a batch of each unsettled size per round in a shuffled order
 * (measureInRounds), so that a burst of load cannot bend a run of consecutive sizes. Then it
 * times streams of back-to-back 0-byte messages for the gap g, and on rank 0 alone a memcpy of
 * every size (the memory-copy table: collectives copy a rank's own block locally).
 *
 * A second ping-pong per size ("same", network.yaml same_buffer) has each rank receive into the
 * buffer it has just sent from, as a token ring does: on shared memory the peer's read of a
 * rendezvous message leaves the buffer's lines in the peer's cache, and the receive into that
 * buffer has to take them back (bench/ring-hops: 16 KiB 4.0 against 3.3 us a hop).
 *
 * A simultaneous exchange per size ("exchange", network.yaml exchange): both ranks of a pair
 * send K bytes to each other at once (MPI_Sendrecv, after a 0-byte one that lines them up), as
 * a halo exchange or a two-rank alltoall does; the sender's time. Where the two transfers share
 * what copies them, which no ping-pong (one message at a time) shows, it takes longer than one
 * way. The same exchange of messages packed from
 * pieces of 512 bytes ("exchange-packed", network.yaml exchange_packed): each processor packs
 * its message and unpacks its peer's, the work of both ends of a one-way message (1.4-2 times
 * one way on this VM, where contiguous exchanges took 1.0-1.2 times once the caches held other
 * data, as a program's do).
 *
 * Per piece length, rank 0 also times MPI_Pack of such a vector into a contiguous buffer
 * ("copy-packed", network.yaml memory_copy_packed): a collective's copy of its own block when
 * the datatype has gaps (alltoallw-transpose's subarrays), piece by piece through the library's
 * datatype engine rather than in one memcpy.
 *
 * A third ping-pong ("packed", network.yaml packed) sends every message as a vector of pieces
 * of 8, 64, 512 or 4096 bytes with a gap of a piece after each and receives it contiguously:
 * the library packs it piece by piece and, on shared memory, cannot hand it over in one copy
 * (a non-contiguous Open MPI message went at 1.4 GB/s where a contiguous one went at 8.9;
 * docs/accuracy.md, alltoallw-transpose). Its mirror ("unpacked", network.yaml unpacked) sends
 * contiguously and receives into the same vectors: the receiver's unpacking, which a message
 * between two halo columns pays on top of the sender's packing.
 *
 * Before each timed send the sender rewrites its send buffer, off the clock, as a program writes
 * the data it sends: a buffer sent unchanged again and again stays clean in both processors'
 * caches, and on shared memory its messages above the eager limit took half the time of the same
 * messages freshly written (bench/ring-hops, docs/accuracy.md). --unchanged-buffers keeps the
 * buffers as they are (the measurement before). */
#include <mpi.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  TagPing = 1,
  TagPong,
  TagReady,
  TagData,
  TagArrived,
  TagSamples,
  TagAck,
  TagStream,
  TagDrained
};
enum { Batch = 10, Warmup = 2, StreamLength = 64 };
/* The piece length of the packed exchange series. */
enum { ExchangePiece = 512 };

struct Options {
  long MaxSize;
  long Step;
  int LogSizes;
  int MinReps;
  int MaxReps;
  double Tolerance;
  double Budget; /* seconds per size before stopping at MinReps */
  int Pairs;
  int Progress;
  int Unchanged; /* --unchanged-buffers: never rewrite the send buffer */
};

static void fail(const char *Message) {
  fprintf(stderr, "mpiete: comm_probe: error: %s\n", Message);
  MPI_Abort(MPI_COMM_WORLD, 2);
  exit(2);
}

static long parseLong(const char *S, const char *Name) {
  char *End = NULL;
  long V = strtol(S, &End, 10);
  if (!*S || *End || V < 0) {
    char Msg[256];
    snprintf(Msg, sizeof Msg, "invalid value '%s' for %s", S, Name);
    fail(Msg);
  }
  return V;
}

static struct Options parseOptions(int Argc, char **Argv) {
  struct Options O = {4L << 20, 0, 1, 20, 1000, 0.02, 0.5, 1, 0, 0};
  for (int I = 1; I < Argc; ++I) {
    const char *A = Argv[I];
    const char *V = I + 1 < Argc ? Argv[I + 1] : NULL;
    if (!strcmp(A, "--linear-only")) {
      O.LogSizes = 0;
      continue;
    }
    if (!strcmp(A, "--unchanged-buffers")) {
      O.Unchanged = 1;
      continue;
    }
    if (!strcmp(A, "--progress")) {
      O.Progress = 1;
      continue;
    }
    if (!V)
      fail("option needs a value");
    ++I;
    if (!strcmp(A, "--max-size"))
      O.MaxSize = parseLong(V, A);
    else if (!strcmp(A, "--step"))
      O.Step = parseLong(V, A);
    else if (!strcmp(A, "--min-reps"))
      O.MinReps = (int)parseLong(V, A);
    else if (!strcmp(A, "--max-reps"))
      O.MaxReps = (int)parseLong(V, A);
    else if (!strcmp(A, "--pairs"))
      O.Pairs = (int)parseLong(V, A);
    else if (!strcmp(A, "--tolerance"))
      O.Tolerance = atof(V);
    else if (!strcmp(A, "--budget"))
      O.Budget = atof(V);
    else
      fail("unknown option");
  }
  if (O.Step <= 0)
    O.Step = O.MaxSize / 64 > 0 ? O.MaxSize / 64 : 1;
  if (O.MinReps < Batch)
    O.MinReps = Batch;
  if (O.MaxReps < O.MinReps)
    O.MaxReps = O.MinReps;
  if (O.Pairs < 1)
    fail("--pairs must be at least 1");
  return O;
}

static int compareLong(const void *A, const void *B) {
  long X = *(const long *)A, Y = *(const long *)B;
  return (X > Y) - (X < Y);
}

/* 0, step, 2 step, ... up to max; with log sizes also 1, 2, 3, 4, 6, 8, 12, ... (powers of two
 * and their midpoints). Returns the count; *Sizes is malloc'ed, sorted, without duplicates. */
static int sizeList(const struct Options *O, long **Sizes) {
  int Cap = (int)(O->MaxSize / O->Step) + 2 + 2 * 64;
  long *S = malloc(sizeof(long) * (size_t)Cap);
  int N = 0;
  for (long K = 0; K <= O->MaxSize; K += O->Step)
    S[N++] = K;
  if (O->LogSizes) {
    for (long P = 1; P <= O->MaxSize && N + 2 <= Cap; P *= 2) {
      S[N++] = P;
      if (P >= 2 && P + P / 2 <= O->MaxSize)
        S[N++] = P + P / 2;
    }
  }
  qsort(S, (size_t)N, sizeof(long), compareLong);
  int U = 0;
  for (int I = 0; I < N; ++I)
    if (U == 0 || S[I] != S[U - 1])
      S[U++] = S[I];
  *Sizes = S;
  return U;
}

static int compareDouble(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return (X > Y) - (X < Y);
}

/* Quantile Q of N samples (linear interpolation between order statistics); sorts Scratch. */
static double quantile(const double *Samples, int N, double Q, double *Scratch) {
  if (N == 0)
    return 0;
  memcpy(Scratch, Samples, sizeof(double) * (size_t)N);
  qsort(Scratch, (size_t)N, sizeof(double), compareDouble);
  double Pos = Q * (N - 1);
  int Lo = (int)floor(Pos);
  int Hi = Lo + 1 < N ? Lo + 1 : Lo;
  return Scratch[Lo] + (Pos - Lo) * (Scratch[Hi] - Scratch[Lo]);
}

static void printStats(const double *Samples, int N, double *Scratch) {
  printf(" %.6e %.6e %.6e", quantile(Samples, N, 0.5, Scratch), quantile(Samples, N, 0.1, Scratch),
         quantile(Samples, N, 0.9, Scratch));
}

static int Unchanged;

/* The sender's rewrite of its K-byte message: one byte of every cache line, so every line is
 * modified in this processor's cache as after the computation that produced the data (a loop,
 * not memset, which may store around the cache for large sizes). */
static void rewrite(char *Buf, long K) {
  if (Unchanged)
    return;
  for (long I = 0; I < K; I += 64)
    Buf[I] = (char)(Buf[I] + 1);
}

/* One repetition of the three exchanges; the sender fills PingPong and Isend, the receiver
 * Irecv and Arrived. Each timed message leaves a send buffer rewritten since the peer last read
 * it; the rewrites are off the clock (the ping's and the pong's happen at the end of the
 * previous repetition, before the 0-byte "drained" that ends it). */
static void exchange(int IsSender, int Peer, long K, char *Send, char *Recv, double *PingPong,
                     double *Isend, double *Irecv, double *Arrived) {
  int Count = (int)K;
  MPI_Request R;
  if (IsSender) {
    double T0 = MPI_Wtime();
    MPI_Send(Send, Count, MPI_BYTE, Peer, TagPing, MPI_COMM_WORLD);
    MPI_Recv(Recv, Count, MPI_BYTE, Peer, TagPong, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    *PingPong = (MPI_Wtime() - T0) / 2;

    MPI_Recv(NULL, 0, MPI_BYTE, Peer, TagReady, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    T0 = MPI_Wtime();
    MPI_Isend(Send, Count, MPI_BYTE, Peer, TagData, MPI_COMM_WORLD, &R);
    *Isend = MPI_Wtime() - T0;
    MPI_Wait(&R, MPI_STATUS_IGNORE);

    rewrite(Send, K);
    MPI_Send(Send, Count, MPI_BYTE, Peer, TagArrived, MPI_COMM_WORLD);
    rewrite(Send, K);
    /* An eager MPI_Send returns before its bytes are on the wire: wait until the peer has
     * them, so that the next ping-pong starts on an empty link (on a rate-limited link it
     * would otherwise queue behind this message and the data message). */
    MPI_Recv(NULL, 0, MPI_BYTE, Peer, TagDrained, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(Recv, Count, MPI_BYTE, Peer, TagPing, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(Send, Count, MPI_BYTE, Peer, TagPong, MPI_COMM_WORLD);

    double T0 = MPI_Wtime();
    MPI_Irecv(Recv, Count, MPI_BYTE, Peer, TagData, MPI_COMM_WORLD, &R);
    *Irecv = MPI_Wtime() - T0;
    MPI_Send(NULL, 0, MPI_BYTE, Peer, TagReady, MPI_COMM_WORLD);
    MPI_Wait(&R, MPI_STATUS_IGNORE);

    int Flag = 0;
    while (!Flag)
      MPI_Iprobe(Peer, TagArrived, MPI_COMM_WORLD, &Flag, MPI_STATUS_IGNORE);
    T0 = MPI_Wtime();
    MPI_Recv(Recv, Count, MPI_BYTE, Peer, TagArrived, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    *Arrived = MPI_Wtime() - T0;
    rewrite(Send, K);
    MPI_Send(NULL, 0, MPI_BYTE, Peer, TagDrained, MPI_COMM_WORLD);
  }
}

/* One round trip of the same-buffer ping-pong: each side receives into the buffer it sent from
 * (the receive rewrites it, as the computation on a token would); the sender's half. */
static double sameBuffer(int IsSender, int Peer, long K, char *Buf) {
  int Count = (int)K;
  if (IsSender) {
    double T0 = MPI_Wtime();
    MPI_Send(Buf, Count, MPI_BYTE, Peer, TagPing, MPI_COMM_WORLD);
    MPI_Recv(Buf, Count, MPI_BYTE, Peer, TagPong, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return (MPI_Wtime() - T0) / 2;
  }
  MPI_Recv(Buf, Count, MPI_BYTE, Peer, TagPing, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Send(Buf, Count, MPI_BYTE, Peer, TagPong, MPI_COMM_WORLD);
  return 0;
}

/* One timed memcpy of K bytes, the source rewritten first (off the clock, always: a
 * collective's own block is the program's freshly computed data). */
static double copyOnce(char *Src, char *Dst, long K) {
  for (long I = 0; I < K; I += 64)
    Src[I] = (char)(Src[I] + 1);
  double T0 = MPI_Wtime();
  memcpy(Dst, Src, (size_t)K);
  double T = MPI_Wtime() - T0;
  /* Keep the copy: a result nobody reads could be dropped. */
  if (K > 0 && Dst[K - 1] != Src[K - 1])
    fail("memcpy disagrees with itself");
  return T;
}

/* StreamLength back-to-back 0-byte messages and a 0-byte acknowledgement; the sender's total. */
static double stream(int IsSender, int Peer) {
  MPI_Request R[StreamLength];
  if (IsSender) {
    MPI_Recv(NULL, 0, MPI_BYTE, Peer, TagReady, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double T0 = MPI_Wtime();
    for (int I = 0; I < StreamLength; ++I)
      MPI_Isend(NULL, 0, MPI_BYTE, Peer, TagStream, MPI_COMM_WORLD, &R[I]);
    MPI_Waitall(StreamLength, R, MPI_STATUSES_IGNORE);
    MPI_Recv(NULL, 0, MPI_BYTE, Peer, TagAck, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return MPI_Wtime() - T0;
  }
  for (int I = 0; I < StreamLength; ++I)
    MPI_Irecv(NULL, 0, MPI_BYTE, Peer, TagStream, MPI_COMM_WORLD, &R[I]);
  MPI_Send(NULL, 0, MPI_BYTE, Peer, TagReady, MPI_COMM_WORLD);
  MPI_Waitall(StreamLength, R, MPI_STATUSES_IGNORE);
  MPI_Send(NULL, 0, MPI_BYTE, Peer, TagAck, MPI_COMM_WORLD);
  return 0;
}

/* Rank 0 decides after each batch whether the median one-way time has settled. */
static int settled(const double *Samples, int N, double *PrevMedian, double Elapsed,
                   const struct Options *O, double *Scratch) {
  double M = quantile(Samples, N, 0.5, Scratch);
  int Stable = *PrevMedian > 0 && fabs(M - *PrevMedian) <= O->Tolerance * *PrevMedian;
  *PrevMedian = M;
  if (N >= O->MaxReps)
    return 1;
  if (N < O->MinReps)
    return 0;
  return Stable || Elapsed > O->Budget;
}

/* The sizes' order in round Round: a permutation that every rank computes alike (a fixed
 * linear congruential generator seeded by the round, a Fisher-Yates shuffle). */
static void roundOrder(int *Order, int N, int Round) {
  unsigned long long X = 0x9e3779b97f4a7c15ULL ^ (unsigned long long)(Round + 1);
  for (int I = 0; I < N; ++I)
    Order[I] = I;
  for (int I = N - 1; I > 0; --I) {
    X = X * 6364136223846793005ULL + 1442695040888963407ULL;
    int J = (int)((X >> 33) % (unsigned long long)(I + 1));
    int T = Order[I];
    Order[I] = Order[J];
    Order[J] = T;
  }
}

/* One batch of a measured series at size index SI, its samples from Samples + N on. */
typedef void (*BatchFn)(void *Ctx, int SI, int N, int First);

/* Measures every size of a series in rounds: each round visits the sizes not yet settled in
 * an order of its own and runs one batch of each (with a warm-up exchange before it, two at a
 * size's first batch), and a size is done when its samples settle (settled(), on its own time
 * spent). A burst of load on the machine then lands on a few scattered sizes of one round,
 * which their other rounds outvote, instead of on a run of consecutive sizes measured within
 * it (which the eager limit's fit takes for a step: docs/probes.md). Primary[SI * Cap ...] are
 * the samples that decide; with Shared, rank 0 decides and tells every rank, otherwise the
 * caller alone runs it. */
static void measureInRounds(int NumSizes, int Cap, BatchFn Fn, void *Ctx, const double *Primary,
                            int *Counts, int Shared, int Rank, const char *What,
                            const struct Options *O, double *Scratch) {
  int *Order = malloc(sizeof(int) * (size_t)NumSizes);
  int *Done = calloc((size_t)NumSizes, sizeof(int));
  double *Prev = calloc((size_t)NumSizes, sizeof(double));
  double *Spent = calloc((size_t)NumSizes, sizeof(double));
  if (!Order || !Done || !Prev || !Spent)
    fail("cannot allocate the measurement's state");
  int Left = NumSizes;
  for (int Round = 0; Left > 0; ++Round) {
    if (Rank == 0 && O->Progress) {
      fprintf(stderr, "\rmpiete: probe-comm: %s, round %d, %d of %d sizes left   ", What, Round + 1,
              Left, NumSizes);
      fflush(stderr);
    }
    roundOrder(Order, NumSizes, Round);
    for (int I = 0; I < NumSizes; ++I) {
      int SI = Order[I];
      if (Done[SI])
        continue;
      double Start = MPI_Wtime();
      Fn(Ctx, SI, Counts[SI], Counts[SI] == 0);
      Counts[SI] += Batch;
      Spent[SI] += MPI_Wtime() - Start;
      if (Rank == 0)
        Done[SI] = settled(Primary + (size_t)SI * (size_t)Cap, Counts[SI], &Prev[SI], Spent[SI], O,
                           Scratch);
      if (Shared)
        MPI_Bcast(&Done[SI], 1, MPI_INT, 0, MPI_COMM_WORLD);
      if (Done[SI])
        --Left;
    }
  }
  free(Order);
  free(Done);
  free(Prev);
  free(Spent);
}

/* The state the batches of the three series share. */
struct Series {
  int IsSender, Peer, Active, Cap;
  const long *Sizes;
  char *Send, *Recv, *Wide;
  double *PingPong, *Isend, *Irecv, *Arrived;
  double *Same; /* the samples of every series of one time per size, one after another */
};

static double *at(double *Samples, const struct Series *S, int SI, int N) {
  return Samples + (size_t)SI * (size_t)S->Cap + (size_t)N;
}

/* Prints a series of one time per size on rank 0: "Key [Piece] bytes count median p10 p90" per
 * size (Piece 0: none), from Samples. */
static void printSeries(const char *Key, long Piece, const long *Sizes, int N, const int *Counts,
                        double *Samples, const struct Series *S, double *Scratch) {
  for (int SI = 0; SI < N; ++SI) {
    if (Piece > 0)
      printf("%s %ld %ld %d", Key, Piece, Sizes[SI], Counts[SI]);
    else
      printf("%s %ld %d", Key, Sizes[SI], Counts[SI]);
    printStats(at(Samples, S, SI, 0), Counts[SI], Scratch);
    printf("\n");
  }
  fflush(stdout);
}

/* A batch of the three exchanges; the receiver's samples travel to the sender after it, off
 * the clock. */
static void exchangeBatch(void *Ctx, int SI, int N, int First) {
  struct Series *S = Ctx;
  long K = S->Sizes[SI];
  double Dummy;
  if (!S->Active)
    return;
  for (int W = 0; W < (First ? Warmup : 1); ++W)
    exchange(S->IsSender, S->Peer, K, S->Send, S->Recv, &Dummy, &Dummy, &Dummy, &Dummy);
  for (int B = 0; B < Batch; ++B)
    exchange(S->IsSender, S->Peer, K, S->Send, S->Recv, at(S->PingPong, S, SI, N + B),
             at(S->Isend, S, SI, N + B), at(S->Irecv, S, SI, N + B), at(S->Arrived, S, SI, N + B));
  if (!S->IsSender) {
    MPI_Send(at(S->Irecv, S, SI, N), Batch, MPI_DOUBLE, S->Peer, TagSamples, MPI_COMM_WORLD);
    MPI_Send(at(S->Arrived, S, SI, N), Batch, MPI_DOUBLE, S->Peer, TagSamples, MPI_COMM_WORLD);
  } else {
    MPI_Recv(at(S->Irecv, S, SI, N), Batch, MPI_DOUBLE, S->Peer, TagSamples, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    MPI_Recv(at(S->Arrived, S, SI, N), Batch, MPI_DOUBLE, S->Peer, TagSamples, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
  }
}

/* One simultaneous exchange: both sides send K bytes (Count x Type from Send, whose Span
 * bytes are rewritten first, off the clock) and receive K contiguously at once, lined up by a
 * 0-byte exchange off the clock; the sender's time. */
static double exchangeOnce(int IsSender, int Peer, long K, char *Send, int Count, MPI_Datatype Type,
                           long Span, char *Recv) {
  rewrite(Send, Span);
  MPI_Sendrecv(NULL, 0, MPI_BYTE, Peer, TagReady, NULL, 0, MPI_BYTE, Peer, TagReady, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  double T0 = MPI_Wtime();
  MPI_Sendrecv(Send, Count, Type, Peer, TagData, Recv, (int)K, MPI_BYTE, Peer, TagData,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  double T = MPI_Wtime() - T0;
  return IsSender ? T : 0;
}

/* One round trip of a ping-pong in which either side's datatype may have gaps: each side sends
 * SendCount x SendType from Send (its SendSpan bytes rewritten after each send, as in
 * exchange()) and receives RecvCount x RecvType into Recv; the sender's half. The packed
 * ping-pong sends a vector of pieces (from a buffer of 2K, a gap of a piece after each) and
 * receives contiguously; its mirror, the unpacked one, sends contiguously and receives into the
 * vector: the receiver's library unpacks piece by piece, as into a halo column (docs/probes.md). */
static double vectorPingPongOnce(int IsSender, int Peer, char *Send, int SendCount,
                                 MPI_Datatype SendType, long SendSpan, char *Recv, int RecvCount,
                                 MPI_Datatype RecvType) {
  if (IsSender) {
    double T0 = MPI_Wtime();
    MPI_Send(Send, SendCount, SendType, Peer, TagPing, MPI_COMM_WORLD);
    MPI_Recv(Recv, RecvCount, RecvType, Peer, TagPong, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double T = (MPI_Wtime() - T0) / 2;
    rewrite(Send, SendSpan);
    /* The next ping leaves once the peer has rewritten its buffer too. */
    MPI_Recv(NULL, 0, MPI_BYTE, Peer, TagDrained, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return T;
  }
  MPI_Recv(Recv, RecvCount, RecvType, Peer, TagPing, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Send(Send, SendCount, SendType, Peer, TagPong, MPI_COMM_WORLD);
  rewrite(Send, SendSpan);
  MPI_Send(NULL, 0, MPI_BYTE, Peer, TagDrained, MPI_COMM_WORLD);
  return 0;
}

/* One timed MPI_Pack of K bytes from a vector of pieces (gaps between them) into a contiguous
 * buffer, the source rewritten first (off the clock): what a collective's copy of the rank's
 * own block costs when its datatype is not contiguous (the library's datatype engine, as
 * Open MPI's and MPICH's local copies use it). */
static double packCopyOnce(char *Wide, MPI_Datatype Type, long K, char *Dst) {
  rewrite(Wide, 2 * K);
  int Position = 0;
  double T0 = MPI_Wtime();
  MPI_Pack(Wide, 1, Type, Dst, (int)K, &Position, MPI_COMM_SELF);
  double T = MPI_Wtime() - T0;
  if (Position != (int)K)
    fail("MPI_Pack packed another size than its datatype's");
  return T;
}

/* A series of one time per size: its sizes, for a packed one a vector type per size (NULL:
 * contiguous), and what takes one time (the sender's, or rank 0's alone). */
struct TimedSeries {
  struct Series *S;
  const long *Sizes;
  MPI_Datatype *Types;
  double (*Once)(const struct TimedSeries *T, int SI);
};

static double sameOnce(const struct TimedSeries *T, int SI) {
  return sameBuffer(T->S->IsSender, T->S->Peer, T->Sizes[SI], T->S->Send);
}
static double exchangeContiguousOnce(const struct TimedSeries *T, int SI) {
  const struct Series *S = T->S;
  long K = T->Sizes[SI];
  return exchangeOnce(S->IsSender, S->Peer, K, S->Send, (int)K, MPI_BYTE, K, S->Recv);
}
static double packedPingPongOnce(const struct TimedSeries *T, int SI) {
  const struct Series *S = T->S;
  const long K = T->Sizes[SI];
  return vectorPingPongOnce(S->IsSender, S->Peer, S->Wide, 1, T->Types[SI], 2 * K, S->Recv, (int)K,
                            MPI_BYTE);
}
static double unpackedPingPongOnce(const struct TimedSeries *T, int SI) {
  const struct Series *S = T->S;
  const long K = T->Sizes[SI];
  return vectorPingPongOnce(S->IsSender, S->Peer, S->Send, (int)K, MPI_BYTE, K, S->Wide, 1,
                            T->Types[SI]);
}
/* The packed exchange: both sides send a vector of pieces at once. */
static double packedExchangeOnce(const struct TimedSeries *T, int SI) {
  const struct Series *S = T->S;
  long K = T->Sizes[SI];
  return exchangeOnce(S->IsSender, S->Peer, K, S->Wide, 1, T->Types[SI], 2 * K, S->Recv);
}
static double packCopySeriesOnce(const struct TimedSeries *T, int SI) {
  return packCopyOnce(T->S->Wide, T->Types[SI], T->Sizes[SI], T->S->Recv);
}
static double copySeriesOnce(const struct TimedSeries *T, int SI) {
  return copyOnce(T->S->Send, T->S->Recv, T->Sizes[SI]);
}

/* One batch of a series of one time per size, its samples into S->Same. */
static void timedBatch(void *Ctx, int SI, int N, int First) {
  const struct TimedSeries *T = Ctx;
  if (!T->S->Active)
    return;
  for (int W = 0; W < (First ? Warmup : 1); ++W)
    T->Once(T, SI);
  for (int B = 0; B < Batch; ++B)
    *at(T->S->Same, T->S, SI, N + B) = T->Once(T, SI);
}

/* One series over the piece length's sizes, printed on rank 0 as "Key Piece bytes count stats"
 * lines (Name: its progress label). Shared: both ranks take part; otherwise rank 0 alone measures
 * and the other ranks skip it. Counts must hold at least NumSizes entries. */
static void pieceSeries(struct TimedSeries *PS, double (*Once)(const struct TimedSeries *, int),
                        int Shared, const char *Key, const char *Name, long Piece, int NP,
                        int *Counts, int NumSizes, int Cap, int Rank, const struct Options *O,
                        double *Scratch) {
  if (!Shared && Rank != 0)
    return;
  char What[48];
  snprintf(What, sizeof What, "%s, pieces of %ld bytes", Name, Piece);
  memset(Counts, 0, sizeof(int) * (size_t)NumSizes);
  PS->Once = Once;
  measureInRounds(NP, Cap, timedBatch, PS, PS->S->Same, Counts, Shared, Rank, What, O, Scratch);
  if (Rank == 0)
    printSeries(Key, Piece, PS->Sizes, NP, Counts, PS->S->Same, PS->S, Scratch);
}

int main(int Argc, char **Argv) {
  MPI_Init(&Argc, &Argv);
  int Rank = 0, Size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  struct Options O = parseOptions(Argc, Argv);
  Unchanged = O.Unchanged;
  if (Size < 2 * O.Pairs) {
    if (Rank == 0) {
      char Msg[128];
      snprintf(Msg, sizeof Msg, "%d pair(s) need %d ranks, the job has %d", O.Pairs, 2 * O.Pairs,
               Size);
      fail(Msg);
    }
    MPI_Finalize();
    return 2;
  }
  int Active = Rank < 2 * O.Pairs;
  int IsSender = Rank < O.Pairs;
  int Peer = IsSender ? Rank + O.Pairs : Rank - O.Pairs;

  long *Sizes = NULL;
  int NumSizes = sizeList(&O, &Sizes);
  char *Send = malloc((size_t)O.MaxSize + 1), *Recv = malloc((size_t)O.MaxSize + 1);
  if (!Send || !Recv)
    fail("cannot allocate the message buffers");
  memset(Send, 'm', (size_t)O.MaxSize + 1);
  memset(Recv, 0, (size_t)O.MaxSize + 1);
  int Cap = O.MaxReps + Batch;
  size_t Cells = (size_t)NumSizes * (size_t)Cap;
  struct Series Ser = {IsSender, Peer, Active, Cap,  Sizes, Send, Recv,
                       NULL,     NULL, NULL,   NULL, NULL,  NULL};
  Ser.PingPong = calloc(Cells, sizeof(double));
  Ser.Isend = calloc(Cells, sizeof(double));
  Ser.Irecv = calloc(Cells, sizeof(double));
  Ser.Arrived = calloc(Cells, sizeof(double));
  Ser.Same = calloc(Cells, sizeof(double));
  int *Counts = calloc((size_t)NumSizes, sizeof(int));
  double *Scratch = calloc((size_t)Cap, sizeof(double));
  double *Stream = calloc((size_t)Cap, sizeof(double));
  if (!Ser.PingPong || !Ser.Isend || !Ser.Irecv || !Ser.Arrived || !Ser.Same || !Counts ||
      !Scratch || !Stream)
    fail("cannot allocate the samples");

  /* Provenance: the hosts of rank 0 and its partner, and the MPI library. */
  char Host[MPI_MAX_PROCESSOR_NAME + 1] = {0}, PeerHost[MPI_MAX_PROCESSOR_NAME + 1] = {0};
  int Len = 0;
  MPI_Get_processor_name(Host, &Len);
  if (Rank == O.Pairs)
    MPI_Send(Host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, TagSamples, MPI_COMM_WORLD);
  if (Rank == 0) {
    MPI_Recv(PeerHost, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, O.Pairs, TagSamples, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    char Library[MPI_MAX_LIBRARY_VERSION_STRING + 1] = {0};
    MPI_Get_library_version(Library, &Len);
    for (char *C = Library; *C; ++C)
      if (*C == '\n' || *C == '\r' || *C == '\t')
        *C = ' ';
    for (int I = (int)strlen(Library) - 1; I >= 0 && Library[I] == ' '; --I)
      Library[I] = 0;
    printf("mpiete-comm-probe-begin 1\n");
    printf("ranks %d\npairs %d\nhost0 %s\nhost1 %s\nlibrary %s\n", Size, O.Pairs, Host, PeerHost,
           Library);
    printf("tolerance %g\nmin-reps %d\nmax-reps %d\nbatch %d\n", O.Tolerance, O.MinReps, O.MaxReps,
           Batch);
  }

  measureInRounds(NumSizes, Cap, exchangeBatch, &Ser, Ser.PingPong, Counts, 1, Rank, "ping-pong",
                  &O, Scratch);
  if (Rank == 0) {
    for (int SI = 0; SI < NumSizes; ++SI) {
      int N = Counts[SI];
      printf("row %ld %d", Sizes[SI], N);
      printStats(at(Ser.PingPong, &Ser, SI, 0), N, Scratch);
      printStats(at(Ser.Isend, &Ser, SI, 0), N, Scratch);
      printStats(at(Ser.Irecv, &Ser, SI, 0), N, Scratch);
      printStats(at(Ser.Arrived, &Ser, SI, 0), N, Scratch);
      printf("\n");
    }
    fflush(stdout);
  }

  /* The same-buffer ping-pong, every size. */
  memset(Counts, 0, sizeof(int) * (size_t)NumSizes);
  struct TimedSeries Same = {&Ser, Sizes, NULL, sameOnce};
  measureInRounds(NumSizes, Cap, timedBatch, &Same, Ser.Same, Counts, 1, Rank, "same buffer", &O,
                  Scratch);
  if (Rank == 0)
    printSeries("same", 0, Sizes, NumSizes, Counts, Ser.Same, &Ser, Scratch);

  /* The simultaneous exchange, every size. */
  memset(Counts, 0, sizeof(int) * (size_t)NumSizes);
  struct TimedSeries Exchange = {&Ser, Sizes, NULL, exchangeContiguousOnce};
  measureInRounds(NumSizes, Cap, timedBatch, &Exchange, Ser.Same, Counts, 1, Rank, "exchange", &O,
                  Scratch);
  if (Rank == 0)
    printSeries("exchange", 0, Sizes, NumSizes, Counts, Ser.Same, &Ser, Scratch);

  /* The packed ping-pong (network.yaml packed): per piece length, the sizes of at least 256
   * bytes and one piece, rounded down to whole pieces. Both sides pack (a vector with a gap of
   * a piece after each) and receive contiguously. */
  Ser.Wide = malloc(2 * (size_t)O.MaxSize + 1);
  long *PackedSizes = malloc(sizeof(long) * (size_t)NumSizes);
  MPI_Datatype *Types = malloc(sizeof(MPI_Datatype) * (size_t)NumSizes);
  if (!Ser.Wide || !PackedSizes || !Types)
    fail("cannot allocate the packed series");
  memset(Ser.Wide, 'p', 2 * (size_t)O.MaxSize + 1);
  static const long Pieces[] = {8, 64, 512, 4096};
  for (size_t PI = 0; PI < sizeof Pieces / sizeof Pieces[0]; ++PI) {
    const long Piece = Pieces[PI];
    int NP = 0;
    for (int SI = 0; SI < NumSizes; ++SI) {
      long K = Sizes[SI] / Piece * Piece;
      if (Sizes[SI] < 256 || K < Piece || K > O.MaxSize || (NP > 0 && PackedSizes[NP - 1] == K))
        continue;
      PackedSizes[NP] = K;
      MPI_Type_vector((int)(K / Piece), (int)Piece, (int)(2 * Piece), MPI_BYTE, &Types[NP]);
      MPI_Type_commit(&Types[NP]);
      ++NP;
    }
    if (NP == 0)
      continue;
    struct TimedSeries PS = {&Ser, PackedSizes, Types, NULL};
    pieceSeries(&PS, packedPingPongOnce, 1, "packed", "packed", Piece, NP, Counts, NumSizes, Cap,
                Rank, &O, Scratch);
    /* The mirror (network.yaml unpacked): sent contiguously, received into the vector. */
    pieceSeries(&PS, unpackedPingPongOnce, 1, "unpacked", "unpacked", Piece, NP, Counts, NumSizes,
                Cap, Rank, &O, Scratch);
    /* The packed local copy (network.yaml memory_copy_packed): rank 0 alone, the other ranks
     * waiting in the barrier after it. */
    pieceSeries(&PS, packCopySeriesOnce, 0, "copy-packed", "packed copy", Piece, NP, Counts,
                NumSizes, Cap, Rank, &O, Scratch);
    MPI_Barrier(MPI_COMM_WORLD);
    if (Piece == ExchangePiece) {
      /* Both sides packing and unpacking at once: on shared memory each rank's processor does
       * the work of both ends (network.yaml exchange_packed). */
      pieceSeries(&PS, packedExchangeOnce, 1, "exchange-packed", "packed exchange", Piece, NP,
                  Counts, NumSizes, Cap, Rank, &O, Scratch);
    }
    for (int SI = 0; SI < NP; ++SI)
      MPI_Type_free(&Types[SI]);
  }
  free(PackedSizes);
  free(Types);
  free(Ser.Wide);

  int N = 0, Done = 0;
  double Prev = 0, Start = MPI_Wtime();
  while (!Done) {
    for (int B = 0; B < Batch && Active; ++B)
      Stream[N + B] = stream(IsSender, Peer);
    N += Batch;
    if (Rank == 0)
      Done = settled(Stream, N, &Prev, MPI_Wtime() - Start, &O, Scratch);
    MPI_Bcast(&Done, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  if (Rank == 0) {
    printf("stream %d %d", StreamLength, N);
    printStats(Stream, N, Scratch);
    printf("\n");
    /* The memory-copy table: a collective copies the rank's own block locally (sendbuf to
     * recvbuf), which no message shows. Rank 0 alone, its partner idle in the barrier below;
     * the Same samples are free again and hold the copies'. */
    memset(Counts, 0, sizeof(int) * (size_t)NumSizes);
    struct TimedSeries Copy = {&Ser, Sizes, NULL, copySeriesOnce};
    measureInRounds(NumSizes, Cap, timedBatch, &Copy, Ser.Same, Counts, 0, Rank, "memory copy", &O,
                    Scratch);
    printSeries("copy", 0, Sizes, NumSizes, Counts, Ser.Same, &Ser, Scratch);
    printf("mpiete-comm-probe-end\n");
    fflush(stdout);
    if (O.Progress)
      fprintf(stderr, "\rmpiete: probe-comm: done%60s\n", "");
  }
  free(Sizes);
  free(Send);
  free(Recv);
  free(Ser.PingPong);
  free(Ser.Isend);
  free(Ser.Irecv);
  free(Ser.Arrived);
  free(Ser.Same);
  free(Counts);
  free(Scratch);
  free(Stream);
  MPI_Finalize();
  return 0;
}
