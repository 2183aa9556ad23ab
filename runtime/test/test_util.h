/* Helpers for the runtime's MPI tests: checks, variant-neutral block hooks, and the expected
 * content of this rank's output file, compared after mpiete_finalize. Header-only, C11. */
#ifndef MPIETE_RUNTIME_TEST_UTIL_H
#define MPIETE_RUNTIME_TEST_UTIL_H

#include "mpiete/instrument.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int t_rank = -1;
static int t_size = 0;

/* Any mismatch: say where on stderr and exit non-zero (mpiexec then fails the whole job). */
#define CHECK(cond, ...)                                                                       \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      fprintf(stderr, "FAIL rank %d %s:%d: %s: ", t_rank, __FILE__, __LINE__, #cond);          \
      fprintf(stderr, __VA_ARGS__);                                                            \
      fputc('\n', stderr);                                                                     \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)

#define CHECK_OK(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)

/* The test's translation unit id and its block ids. */
#define T_UNIT 0xabc123u
#define T_ID(index) MPIETE_ID(T_UNIT, index)

/* Compute block hooks as each variant's instrumentation calls them. */
#ifdef MPIETE_TEST_TIMING
#define T_VARIANT "timing"
#define T_SUFFIX "timing"
#define T_BLOCK_BEGIN(id) mpiete_tm_begin(id)
#define T_BLOCK_END(id) mpiete_tm_end(id)
#define T_LOOP_BEGIN(id) mpiete_tm_begin(id)
#define T_LOOP_END(id, trips) mpiete_tm_loop_end(id, trips)
#else
#define T_VARIANT "trace"
#define T_SUFFIX "counts"
#define T_BLOCK_BEGIN(id) mpiete_tr_block(id)
#define T_BLOCK_END(id) ((void)0)
#define T_LOOP_BEGIN(id) ((void)0)
#define T_LOOP_END(id, trips) mpiete_tr_loop(id, trips)
#endif

/* ---- Expected output --------------------------------------------------------------------- */

typedef struct {
  mpiete_site_t id;
  const char *kind;
  unsigned long long execs, trips;
  unsigned long long ns; /* filled from the timing file by t_check_output */
} t_expect_t;

#define T_MAX_EXPECT 512
static t_expect_t t_expect[T_MAX_EXPECT];
static int t_nexpect;

static inline t_expect_t *t_find(mpiete_site_t id) {
  for (int i = 0; i < t_nexpect; ++i)
    if (t_expect[i].id == id)
      return &t_expect[i];
  return NULL;
}

/* Expect `n` more executions of block `id` of `kind`, and `trips` more loop trips. */
static inline void t_expect_n(mpiete_site_t id, const char *kind, unsigned long long n,
                       unsigned long long trips) {
  t_expect_t *e = t_find(id);
  if (e == NULL) {
    CHECK(t_nexpect < T_MAX_EXPECT, "too many expectations");
    e = &t_expect[t_nexpect++];
    e->id = id;
    e->kind = kind;
  }
  CHECK(strcmp(e->kind, kind) == 0, "test bug: id kind %s vs %s", e->kind, kind);
  e->execs += n;
  e->trips += trips;
}

/* Shorthands per role: what one call of that role adds. */
#define T_EXPECT(id, kind) t_expect_n((id), (kind), 1, 0)

/* The pseudo site of an MPI routine called from uninstrumented code (runtime/lib/Interpose.cpp):
 * unit 0xffffffff, index 4 x the routine's position in routines.def. */
enum {
#define MPIETE_ROUTINE(MpiName, RuntimeName, Role, Params, Args) T_ORDINAL_##MpiName,
#include "mpiete/routines.def"
  T_ORDINAL_COUNT
};
#define T_UNINSTRUMENTED(name) MPIETE_ID(0xffffffffu, 4u * T_ORDINAL_##name)
#define T_EXPECT_SPLIT(site) (T_EXPECT((site), "start"), T_EXPECT((site) + 1, "wait"))
#define T_EXPECT_SENDRECV(site)                                                                \
  (T_EXPECT((site), "start"), T_EXPECT((site) + 1, "start"), T_EXPECT((site) + 2, "wait"))
#define T_EXPECT_BLOCK(id) T_EXPECT((id), "block")
/* An MPI call that records nothing of its own (the trace writes a Call record for it; the timing
 * variant's counts do not list it). */
#ifdef MPIETE_TEST_TIMING
#define T_EXPECT_CALL(id) ((void)0)
#else
#define T_EXPECT_CALL(id) T_EXPECT((id), "call")
#endif
#define T_EXPECT_LOOP(id, trips) t_expect_n((id), "loop", 1, (trips))

static inline int t_cmp_expect(const void *a, const void *b) {
  const t_expect_t *x = (const t_expect_t *)a, *y = (const t_expect_t *)b;
  return x->id < y->id ? -1 : x->id > y->id ? 1 : 0;
}

/* Where the trace variant wrote its trace (the directory decided before MPI_Init). */
static char t_outdir[4096];

/* Records rank and size (call right after mpiete_init). */
static inline void t_started(void) {
  MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &t_size);
  const char *dir = getenv("MPIETE_OUTDIR");
  snprintf(t_outdir, sizeof t_outdir, "%s", dir != NULL ? dir : "");
}

static inline int t_has_time(const t_expect_t *e) {
#ifdef MPIETE_TEST_TIMING
  return strcmp(e->kind, "block") == 0 || strcmp(e->kind, "loop") == 0;
#else
  (void)e;
  return 0;
#endif
}

/* Trace variant: the expected per-block counts go to <outdir>/rank<N>.expect, one line per id
 * (`<unit hex>:<index> <kind> <executions>[ <trips>]`, sorted); after the job a second ctest
 * step (trace_check counts) compares them with the counts the binary trace adds up to. */
static inline void t_write_expect(void) {
  CHECK(t_outdir[0] != '\0', "MPIETE_OUTDIR must be set for this test");
  char path[4200];
  snprintf(path, sizeof path, "%s/rank%d.expect", t_outdir, t_rank);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL, "cannot open %s", path);
  qsort(t_expect, (size_t)t_nexpect, sizeof t_expect[0], t_cmp_expect);
  for (int i = 0; i < t_nexpect; ++i) {
    const t_expect_t *e = &t_expect[i];
    fprintf(f, "%08x:%u %s %llu", (unsigned)(e->id >> 32), (unsigned)(e->id & 0xffffffffu),
            e->kind, e->execs);
    if (strcmp(e->kind, "loop") == 0)
      fprintf(f, " %llu", e->trips);
    fputc('\n', f);
  }
  CHECK(fclose(f) == 0, "cannot write %s", path);
}

/* After mpiete_finalize: this rank's output file must hold exactly the expected lines (in the
 * timing variant, block and loop lines end with a nanosecond count, stored into `ns`). */
static inline void t_check_output(void) {
#ifndef MPIETE_TEST_TIMING
  t_write_expect();
  return;
#endif
  const char *dir = getenv("MPIETE_OUTDIR");
  CHECK(dir != NULL && dir[0] != '\0', "MPIETE_OUTDIR must be set for this test");
  char path[4096];
  snprintf(path, sizeof path, "%s/rank%d.%s", dir, t_rank, T_SUFFIX);
  FILE *f = fopen(path, "r");
  CHECK(f != NULL, "cannot open %s", path);

  qsort(t_expect, (size_t)t_nexpect, sizeof t_expect[0], t_cmp_expect);
  char line[512], want[512];
  CHECK(fgets(line, sizeof line, f) != NULL, "%s is empty", path);
  snprintf(want, sizeof want, "# mpiete %s rank %d of %d\n", T_VARIANT, t_rank, t_size);
  CHECK(strcmp(line, want) == 0, "%s header: got '%s' want '%s'", path, line, want);

  /* `# key value` lines after the header (the timing variant's provenance) are skipped. */
  long body = ftell(f);
  while (fgets(line, sizeof line, f) != NULL && line[0] == '#')
    body = ftell(f);
  fseek(f, body, SEEK_SET);

  for (int i = 0; i < t_nexpect; ++i) {
    t_expect_t *e = &t_expect[i];
    int n = snprintf(want, sizeof want, "%08x:%u %s %llu", (unsigned)(e->id >> 32),
                     (unsigned)(e->id & 0xffffffffu), e->kind, e->execs);
    if (strcmp(e->kind, "loop") == 0)
      snprintf(want + n, sizeof want - (size_t)n, " %llu", e->trips);
    CHECK(fgets(line, sizeof line, f) != NULL, "%s: missing line '%s'", path, want);
    size_t len = strlen(line);
    CHECK(len > 0 && line[len - 1] == '\n', "%s: unterminated line '%s'", path, line);
    line[--len] = '\0';
    size_t wlen = strlen(want);
    if (t_has_time(e)) {
      /* `<ns> <min> <max> <stddev>`: the total, then the spread of one execution. */
      char *end = NULL;
      double mn = -1, mx = -1, sd = -1;
      int fields = 0;
      CHECK(strncmp(line, want, wlen) == 0 && line[wlen] == ' ' &&
                strspn(line + wlen + 1, "0123456789") > 0,
            "%s: got '%s' want '%s <ns> <min> <max> <sd>'", path, line, want);
      e->ns = strtoull(line + wlen + 1, &end, 10);
      fields = sscanf(end, " %lf %lf %lf", &mn, &mx, &sd);
      CHECK(fields == 3 && mn >= 0 && mx >= mn && sd >= 0, "%s: bad spread in '%s'", path,
            line);
    } else {
      CHECK(strcmp(line, want) == 0, "%s: got '%s' want '%s'", path, line, want);
    }
  }
  /* Then the compute segments (timing variant, segment mode): their times are not checked
   * here, their shape is (runtime/test/segments.c checks their counts). */
  int in_series = 0; /* a series line longer than the buffer comes in pieces */
  while (fgets(line, sizeof line, f) != NULL) {
    char from[32], to[32];
    unsigned long long n = 0, total = 0;
    double mn = -1, mx = -1, sd = -1;
    const size_t got = strlen(line);
    if (in_series || strncmp(line, "series ", 7) == 0) {
      in_series = got == 0 || line[got - 1] != '\n';
      continue;
    }
    CHECK(sscanf(line, "segment %31s %31s %llu %llu %lf %lf %lf", from, to, &n, &total, &mn, &mx,
                 &sd) == 7 &&
              n > 0 && mx >= mn && mn >= 0,
          "%s: unexpected extra line '%s'", path, line);
  }
  fclose(f);
}

static inline unsigned long long t_ns(mpiete_site_t id) {
  t_expect_t *e = t_find(id);
  CHECK(e != NULL, "no expectation for the id");
  return e->ns;
}

static inline void t_sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

#endif /* MPIETE_RUNTIME_TEST_UTIL_H */
