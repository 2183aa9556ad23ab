// The task-farm hooks (mpiete/task.h): the timing variant times each task, both variants skip
// the tasks outside MPIETE_TASK_STRIDE's subset (the trace variant records nothing: the farm is
// found in the trace, whose messages do not depend on what a task computes).
#include "Recorder.h"
#include "Util.h"

#include "mpiete/instrument.h"
#include "mpiete/task.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace {

/// MPIETE_TASK_STRIDE (probe-compute --tasks-subset; by hand for probe-program), read once.
long long stride() {
  static const long long S = [] {
    const char *V = std::getenv("MPIETE_TASK_STRIDE");
    return V != nullptr && std::atoll(V) > 1 ? std::atoll(V) : 1LL;
  }();
  return S;
}

#if defined(MPIETE_VARIANT_TIMING)
// One line per task, written as it ends: `N P1 .. PN NS` (NS -1: skipped, --tasks-subset).
// The parameters are the task's identity; probe-compute merges the ranks' files into
// tasks.yaml (basedata/TaskCosts.h).
std::FILE *Out = nullptr;
bool Opened = false;
int NParams = 0;
long long Params[8];
bool Running = false;
uint64_t Start = 0;

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
  std::fprintf(Out, "# mpiete tasks rank %d of %d stride %lld\n", Rank, Size, stride());
  std::atexit(closeOut);
}

/// Enters the kernel, which brings the thread's CPU time up to date: on a host with a CPU
/// bandwidth limit (a CFS quota, cgroup cpu.max) a stop whose quota ran out during the body is
/// taken here, inside the task's clock, instead of at the program's next system call after it
/// (the next MPI call), where the task's time would miss it. Measured on bench/vcluster's quota
/// host (docs/taskfarm.md): without it the bodies' times held only 0.65-0.75 of the stops.
void settleCpuTime() {
  timespec Ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &Ts);
}

void writeTask(long long Nanos) {
  if (Out == nullptr)
    return;
  std::fprintf(Out, "%d", NParams);
  for (int K = 0; K < NParams; ++K)
    std::fprintf(Out, " %lld", Params[K]);
  std::fprintf(Out, " %lld\n", Nanos);
}
#endif

} // namespace

extern "C" int mpiete_task_begin(int nparams, const long long *params) {
#if defined(MPIETE_VARIANT_TIMING)
  if (!Opened)
    open();
  if (nparams < 1 || nparams > 8)
    mpiete::Recorder::get().fail("a task has %d parameters: MPIETE_TASK takes 1 to 8", nparams);
  NParams = nparams;
  std::memcpy(Params, params, sizeof(long long) * size_t(nparams));
  if (!mpiete_task_in_subset(nparams, params, stride())) {
    writeTask(-1);
    return 0;
  }
  Running = true;
  settleCpuTime(); // a stop owed to the code before the task is taken before its clock starts
  Start = mpiete::nowNs();
  return 1;
#else
  return mpiete_task_in_subset(nparams, params, stride());
#endif
}

extern "C" int mpiete_task_end(void) {
#if defined(MPIETE_VARIANT_TIMING)
  if (Running) {
    settleCpuTime();
    const uint64_t End = mpiete::nowNs();
    Running = false;
    writeTask(static_cast<long long>(End - Start));
  }
#endif
  return 0;
}
