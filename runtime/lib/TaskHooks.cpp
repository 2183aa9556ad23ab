// The task-farm hooks (mpiete/task.h): both variants skip the tasks outside the subset, time
// the ones they run and list every task's parameters (the timing variant's times are the task
// costs; the trace variant's, on any machine, only the cost surface's shape).
#include "Recorder.h"
#include "Util.h"

#include "mpiete/instrument.h"
#include "mpiete/task.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

namespace {

/// The subset the probe runs, read once from the environment: MPIETE_TASK_STRIDE
/// (probe-compute --tasks-subset; by hand for probe-program), MPIETE_TASK_GRID (`first:last:step`
/// per parameter, comma-separated: probe-compute --tasks-grid) and MPIETE_TASK_EVERY
/// (--tasks-every). Without a grid the subset is the multiples of the stride, and with
/// MPIETE_TASK_CENTRED=1 (probe-program --task-shape) also the lattice offset by half the stride
/// along every parameter (mpiete_task_in_shape). MPIETE_TASK_VALUES
/// (`v,v,../v,..`: each parameter's values, probe-compute's choice from the trace probe's shape)
/// overrides both. MPIETE_TASK_POINTS, the path of a text file listing the exact tasks (a task's
/// integer parameters per line, separated by spaces; `#` lines and empty ones ignored), overrides
/// all of them: a task runs when its parameters are listed (none with no line), and
/// MPIETE_TASK_EVERY does not apply, the file being the chosen subset already. The trace probe
/// skips every task's body with MPIETE_TASK_SKIP_ALL=1 (probe-program --task-set).
struct Subset {
  bool None = false;
  bool Centred = false; // the shape's body-centred lattice (MPIETE_TASK_CENTRED=1)
  long long Stride = 1, Every = 1;
  int GridDims = 0; // 0: no grid known
  long long Axes[3 * 8] = {};
  int ValueDims = 0; // 0: no values given
  std::vector<long long> Values[8];
  const char *PointsPath = nullptr;             // MPIETE_TASK_POINTS, nullptr: not given
  int PointDims = 0;                            // 0: no line yet
  std::vector<std::array<long long, 8>> Points; // sorted, unused parameters 0
};

/// The file of MPIETE_TASK_POINTS into S.Points, sorted for inSubset's binary search.
void readPoints(const char *Path, Subset &S) {
  S.PointsPath = Path;
  std::FILE *F = std::fopen(Path, "r");
  if (F == nullptr)
    mpiete::Recorder::get().fail("MPIETE_TASK_POINTS '%s': cannot open: %s", Path,
                                 std::strerror(errno));
  char *Line = nullptr;
  size_t Cap = 0;
  size_t LineNo = 0;
  while (getline(&Line, &Cap, F) > 0) {
    ++LineNo;
    Line[std::strcspn(Line, "\r\n")] = '\0';
    const char *P = Line + std::strspn(Line, " \t");
    if (*P == '\0' || *P == '#')
      continue;
    std::array<long long, 8> Task = {};
    int N = 0;
    while (*P != '\0') {
      char *End = nullptr;
      errno = 0;
      const long long X = std::strtoll(P, &End, 10);
      if (End == P || errno == ERANGE || N == 8 || (*End != '\0' && *End != ' ' && *End != '\t'))
        mpiete::Recorder::get().fail("%s:%zu: a task's line holds 1 to 8 integers separated by "
                                     "spaces, not '%s' (MPIETE_TASK_POINTS)",
                                     Path, LineNo, Line);
      Task[size_t(N++)] = X;
      P = End + std::strspn(End, " \t");
    }
    if (S.PointDims != 0 && N != S.PointDims)
      mpiete::Recorder::get().fail("%s:%zu: %d parameters, the lines before list tasks of %d "
                                   "(MPIETE_TASK_POINTS)",
                                   Path, LineNo, N, S.PointDims);
    S.PointDims = N;
    S.Points.push_back(Task);
  }
  std::free(Line);
  std::fclose(F);
  std::sort(S.Points.begin(), S.Points.end());
}

/// MPIETE_TASK_VALUES into S.Values, each axis sorted.
void parseValues(const char *V, Subset &S) {
  const char *Text = V;
  S.ValueDims = 1;
  while (*V != '\0') {
    char *End = nullptr;
    const long long X = std::strtoll(V, &End, 10);
    if (End == V || S.ValueDims > 8)
      mpiete::Recorder::get().fail("MPIETE_TASK_VALUES '%s': values separated by ',', up to 8 "
                                   "parameters by '/'",
                                   Text);
    S.Values[S.ValueDims - 1].push_back(X);
    V = End;
    if (*V == '/')
      ++S.ValueDims;
    if (*V == ',' || *V == '/')
      ++V;
  }
  for (int K = 0; K < S.ValueDims; ++K)
    std::sort(S.Values[K].begin(), S.Values[K].end());
}

const Subset &subset() {
  static const Subset S = [] {
    Subset S;
    const char *V = std::getenv("MPIETE_TASK_STRIDE");
    S.Stride = V != nullptr && std::atoll(V) > 1 ? std::atoll(V) : 1LL;
    V = std::getenv("MPIETE_TASK_SKIP_ALL");
    S.None = V != nullptr && std::atoi(V) == 1;
    V = std::getenv("MPIETE_TASK_CENTRED");
    S.Centred = V != nullptr && std::atoi(V) == 1;
    V = std::getenv("MPIETE_TASK_EVERY");
    S.Every = V != nullptr && std::atoll(V) > 1 ? std::atoll(V) : 1LL;
    V = std::getenv("MPIETE_TASK_GRID");
    for (int K = 0; V != nullptr && *V != '\0' && K < 8; ++K) {
      long long *A = S.Axes + 3 * K;
      int Used = 0;
      if (std::sscanf(V, "%lld:%lld:%lld%n", &A[0], &A[1], &A[2], &Used) != 3 || A[2] < 1 ||
          A[1] < A[0])
        mpiete::Recorder::get().fail("MPIETE_TASK_GRID '%s': first:last:step per parameter, "
                                     "comma-separated",
                                     std::getenv("MPIETE_TASK_GRID"));
      S.GridDims = K + 1;
      V += Used;
      if (*V == ',')
        ++V;
    }
    V = std::getenv("MPIETE_TASK_VALUES");
    if (V != nullptr && *V != '\0')
      parseValues(V, S);
    V = std::getenv("MPIETE_TASK_POINTS");
    if (V != nullptr && *V != '\0')
      readPoints(V, S);
    return S;
  }();
  return S;
}

bool inSubset(int NParams, const long long *Params) {
  const Subset &S = subset();
  if (S.PointsPath != nullptr) { // exactly the listed tasks (an empty file: none)
    if (S.Points.empty())
      return false;
    if (S.PointDims != NParams)
      mpiete::Recorder::get().fail("MPIETE_TASK_POINTS '%s' lists tasks of %d parameters, a task "
                                   "has %d",
                                   S.PointsPath, S.PointDims, NParams);
    std::array<long long, 8> Task = {};
    std::copy(Params, Params + NParams, Task.begin());
    return std::binary_search(S.Points.begin(), S.Points.end(), Task);
  }
  if (S.ValueDims != 0) { // every parameter one of its axis's values (every Every-th of them)
    if (S.ValueDims != NParams)
      mpiete::Recorder::get().fail("MPIETE_TASK_VALUES has %d axes, a task has %d parameters",
                                   S.ValueDims, NParams);
    for (int K = 0; K < NParams; ++K) {
      const std::vector<long long> &A = S.Values[K];
      const auto It = std::lower_bound(A.begin(), A.end(), Params[K]);
      if (It == A.end() || *It != Params[K] || (It - A.begin()) % S.Every != 0)
        return false;
    }
    return true;
  }
  if (S.GridDims == 0)
    return mpiete_task_in_shape(NParams, Params, S.Stride, S.Centred ? 1 : 0) != 0;
  if (S.GridDims != NParams)
    mpiete::Recorder::get().fail("MPIETE_TASK_GRID has %d axes, a task has %d parameters",
                                 S.GridDims, NParams);
  return mpiete_task_in_grid_subset(NParams, Params, S.Axes, S.Stride, S.Every) != 0;
}

// One line per task, written as it ends: `N P1 .. PN NS` (NS -1: skipped or not timed). The
// parameters are the task's identity: the timing probe's lines give the per-task costs, the
// trace probe's (all -1) the task set whose grid probe-compute --tasks-grid takes. The tools
// merge the ranks' files into tasks.yaml (basedata/TaskCosts.h).
std::FILE *Out = nullptr;
bool Opened = false;
int NParams = 0;
long long Params[8];

void closeOut() {
  if (Out != nullptr)
    std::fclose(Out);
  Out = nullptr;
}

void open() {
  Opened = true;
  const char *Dir = std::getenv("MPIETE_OUTDIR");
  if (Dir == nullptr || Dir[0] == '\0')
    return;
  const int Rank = mpiete::Recorder::get().rank();
  const int Size = mpiete::Recorder::get().size();
  char Path[4200];
  if (std::snprintf(Path, sizeof Path, "%s/rank%d.tasks", Dir, Rank) >= int(sizeof Path))
    mpiete::Recorder::get().fail("output path too long under '%s'", Dir);
  Out = std::fopen(Path, "w");
  if (Out == nullptr)
    mpiete::Recorder::get().fail("cannot open '%s' for writing: %s", Path, std::strerror(errno));
  std::fprintf(Out, "# mpiete tasks rank %d of %d stride %lld\n", Rank, Size, subset().Stride);
  std::atexit(closeOut);
}

void writeTask(long long Nanos) {
  if (Out == nullptr)
    return;
  std::fprintf(Out, "%d", NParams);
  for (int K = 0; K < NParams; ++K)
    std::fprintf(Out, " %lld", Params[K]);
  std::fprintf(Out, " %lld\n", Nanos);
  std::fflush(Out); // complete after every task (after the end stamp): an aborted job keeps them
}

/// Opens the rank's file and keeps the task's parameters for its line.
void enter(int NewParams, const long long *NewValues) {
  if (!Opened)
    open();
  if (NewParams < 1 || NewParams > 8)
    mpiete::Recorder::get().fail("a task has %d parameters: MPIETE_TASK takes 1 to 8", NewParams);
  NParams = NewParams;
  std::memcpy(Params, NewValues, sizeof(long long) * size_t(NewParams));
}

/// MPIETE_TASK_MESSAGE's declaration (C) or `!$mpiete task message(...)`'s (Fortran): where
/// each of the task's parameters lies in the work message, read when each task begins (after
/// the receive filled the buffer).
struct Message {
  const unsigned char *At[8] = {}; ///< each parameter's element
  int Size[8] = {};                ///< its bytes: 1, 2, 4 or 8
  bool Signed = true;
  int N = 0;
} Declared;

/// One element of type S (its unsigned twin U) as a parameter.
template <typename S, typename U> long long read(const unsigned char *At, bool Signed) {
  S V;
  std::memcpy(&V, At, sizeof V);
  return Signed ? static_cast<long long>(V) : static_cast<long long>(static_cast<U>(V));
}

long long element(int K) {
  const unsigned char *At = Declared.At[K];
  switch (Declared.Size[K]) {
  case 1:
    return read<int8_t, uint8_t>(At, Declared.Signed);
  case 2:
    return read<int16_t, uint16_t>(At, Declared.Signed);
  case 4:
    return read<int32_t, uint32_t>(At, Declared.Signed);
  default:
    const long long V = read<int64_t, int64_t>(At, true);
    if (!Declared.Signed && V < 0)
      mpiete::Recorder::get().fail("the work message's element for parameter %d is %llu, "
                                   "beyond the task parameters' range",
                                   K + 1, static_cast<unsigned long long>(V));
    return V;
  }
}

bool Running = false;
uint64_t Start = 0;

/// Enters the kernel, which brings the thread's CPU time up to date: on a host with a CPU
/// bandwidth limit (a CFS quota, cgroup cpu.max) a stop whose quota ran out during the body is
/// taken here, inside the task's clock, instead of at the program's next system call after it
/// (the next MPI call), where the task's time would miss it. Measured on bench/vcluster's quota
/// host (docs/taskfarm.md): without it the bodies' times held only 0.65-0.75 of the stops.
void settleCpuTime() {
  timespec Ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &Ts);
}

/// The task's clock. The timing variant's is the monotonic clock: the task's cost on this
/// machine, quota stops included. The trace variant's is the thread's CPU time: its ranks are
/// not token-passed and share the processors (3 ranks on 2 in bench/taskfarm, a master that
/// polls among them), so the wall time of a body holds whatever ran beside it, while only the
/// ratios between tasks are wanted (the shape, docs/taskfarm.md).
uint64_t taskClockNs() {
#if defined(MPIETE_VARIANT_TIMING)
  return mpiete::nowNs();
#else
  timespec Ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &Ts);
  return uint64_t(Ts.tv_sec) * 1000000000ULL + uint64_t(Ts.tv_nsec);
#endif
}

} // namespace

extern "C" void mpiete_task_message(void *buffer, int elemsize, int kind, int nparams,
                                    const int *elements) {
  mpiete::Recorder &R = mpiete::Recorder::get();
  if (nparams < 1 || nparams > 8)
    R.fail("MPIETE_TASK_MESSAGE names %d elements: a task has 1 to 8 parameters", nparams);
  if (kind == 2)
    R.fail("MPIETE_TASK_MESSAGE: the work message holds floating-point numbers; a task's "
           "parameters are integers");
  if (buffer == nullptr || (elemsize != 1 && elemsize != 2 && elemsize != 4 && elemsize != 8))
    R.fail("MPIETE_TASK_MESSAGE: a buffer of integers of 1, 2, 4 or 8 bytes");
  for (int K = 0; K < nparams; ++K)
    if (elements[K] < 0)
      R.fail("MPIETE_TASK_MESSAGE: element %d is negative", elements[K]);
  Declared = Message();
  for (int K = 0; K < nparams; ++K) {
    Declared.At[K] =
        static_cast<const unsigned char *>(buffer) + size_t(elements[K]) * size_t(elemsize);
    Declared.Size[K] = elemsize;
  }
  Declared.Signed = kind == 1;
  Declared.N = nparams;
}

/// Fortran's `!$mpiete task message(e1, .., en)`: `CALL MPIETE_TASK_MESSAGE(n)`, then
/// `CALL MPIETE_TASK_MESSAGE_AT<kind>(k, ek, KIND(ek))` for each element, by reference (its
/// address: a variable or an array element, never a copy; the frontend refuses anything else).
extern "C" void mpiete_task_message_(const int *n) {
  if (*n < 1 || *n > 8)
    mpiete::Recorder::get().fail("task message names %d elements: a task has 1 to 8 parameters",
                                 *n);
  Declared = Message();
  Declared.N = *n;
}
extern "C" decltype(mpiete_task_message_) mpiete_task_message__
    __attribute__((alias("mpiete_task_message_")));

namespace {

/// `CALL MPIETE_TASK_MESSAGE_AT<Kind>(k, element, KIND(element))`.
void messageAt(int Kind, const int *K, const void *Element, const int *Bytes) {
  mpiete::Recorder &R = mpiete::Recorder::get();
  if (*K < 1 || *K > Declared.N)
    R.fail("task message: element %d of %d", *K, Declared.N);
  if (*Bytes != Kind)
    R.fail("task message: mpiete-fc's analysis took element %d for an INTEGER of kind %d, the "
           "compiler made it kind %d (an option such as -fdefault-integer-8 that the analysis "
           "did not see?)",
           *K, Kind, *Bytes);
  Declared.At[*K - 1] = static_cast<const unsigned char *>(Element);
  Declared.Size[*K - 1] = Kind;
}

} // namespace

#define MPIETE_TASK_MESSAGE_AT(Kind)                                                               \
  extern "C" void mpiete_task_message_at##Kind##_(const int *k, const void *e, const int *b) {     \
    messageAt(Kind, k, e, b);                                                                      \
  }                                                                                                \
  extern "C" decltype(mpiete_task_message_at##Kind##_) mpiete_task_message_at##Kind##__            \
      __attribute__((alias("mpiete_task_message_at" #Kind "_")));
MPIETE_TASK_MESSAGE_AT(1)
MPIETE_TASK_MESSAGE_AT(2)
MPIETE_TASK_MESSAGE_AT(4)
MPIETE_TASK_MESSAGE_AT(8)
#undef MPIETE_TASK_MESSAGE_AT

extern "C" int mpiete_task_begin_message(void) {
  if (Declared.N == 0)
    mpiete::Recorder::get().fail("a task from the work message (MPIETE_TASK_FROM_MESSAGE, "
                                 "`task from message`) before any declaration of it "
                                 "(MPIETE_TASK_MESSAGE, `task message(...)`)");
  long long P[8];
  for (int K = 0; K < Declared.N; ++K) {
    if (!Declared.At[K])
      mpiete::Recorder::get().fail("task message: parameter %d has no element", K + 1);
    P[K] = element(K);
  }
  return mpiete_task_begin(Declared.N, P);
}

extern "C" int mpiete_task_begin_message_() { return mpiete_task_begin_message(); }
extern "C" decltype(mpiete_task_begin_message_) mpiete_task_begin_message__
    __attribute__((alias("mpiete_task_begin_message_")));

extern "C" int mpiete_task_begin(int nparams, const long long *params) {
  enter(nparams, params);
#if !defined(MPIETE_VARIANT_TIMING)
  if (subset().None) { // the task set only (probe-program --task-set)
    writeTask(-1);
    return 0;
  }
#endif
  if (!inSubset(nparams, params)) {
    writeTask(-1);
    return 0;
  }
  Running = true;
  settleCpuTime(); // a stop owed to the code before the task is taken before its clock starts
  Start = taskClockNs();
  return 1;
}

extern "C" int mpiete_task_end(void) {
  if (Running) {
    settleCpuTime();
    const uint64_t End = taskClockNs();
    Running = false;
    writeTask(static_cast<long long>(End - Start));
  }
  return 0;
}
