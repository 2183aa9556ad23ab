// MPI calls that the instrumenter never saw: code in objects or archives not built by mpiete-cc,
// or MPI called from a library. The probes define the MPI_ symbols of every routine in
// routines.def (they take precedence over the MPI library's), so such a call still goes
// through the runtime: the trace records it and the token machine runs it. Without this, the
// timing probe would hang in a real MPI call while every other rank sleeps.
//
// Each routine gets its own pseudo call site in the reserved unit 0xffffffff (mpiete/BlockId.h's
// uninstrumentedSite), so the block map does not name it but the trace and the estimator still
// see a consistent site.
//
// One-sided windows passed through uninstrumented (--mpiete-pass-through) are created, fenced
// and freed collectively by their members; they are run through transport::collectiveCall
// (all members at once under the token machine), and their communication is not modelled.
#include "Recorder.h"
#include "Transport.h"
#include "Variant.h"

#include <cstdio>

namespace mpiete {
namespace {

enum RoutineOrdinal : uint32_t {
#define MPIETE_ROUTINE(MpiName, RuntimeName, Role, Params, Args) Ordinal_##MpiName,
#include "mpiete/routines.def"
  OrdinalCount
};

constexpr mpiete_site_t siteOf(RoutineOrdinal O) { return uninstrumentedSite(O); }

/// Says once per routine (on the first rank that meets it) that a call bypassed the
/// instrumentation: the user should know that its site has no source position.
void noteUninstrumented(RoutineOrdinal O, const char *Name) {
  static bool Warned[OrdinalCount];
  if (Warned[O])
    return;
  Warned[O] = true;
  if (Recorder::get().rank() > 0)
    return;
  char Site[BlockIdBufferSize];
  formatBlockId(siteOf(O), Site, sizeof Site);
  std::fprintf(stderr,
               "mpiete: rank 0: warning: '%s' called from code not built by mpiete-cc; it is "
               "recorded under site %s and has no source position\n",
               Name, Site);
}

} // namespace
} // namespace mpiete

// `MPIETE_DROP_SITE (mpiete_site_t site, a, b)` -> `a, b`: the MPI parameter list of a routine is
// its runtime entry point's without the leading site.
#define MPIETE_DROP_SITE(Site, ...) __VA_ARGS__
#define MPIETE_WITH_SITE(...) (SITE __VA_OPT__(, ) __VA_ARGS__)

#define MPIETE_ROUTINE(MpiName, RuntimeName, Role, Params, Args)                                   \
  extern "C" int MpiName(MPIETE_DROP_SITE Params) {                                                \
    constexpr mpiete_site_t SITE = ::mpiete::siteOf(::mpiete::Ordinal_##MpiName);                  \
    ::mpiete::noteUninstrumented(::mpiete::Ordinal_##MpiName, #MpiName);                           \
    return RuntimeName MPIETE_WITH_SITE Args;                                                      \
  }
#include "mpiete/routines.def"

//===-- One-sided windows passed through ---------------------------------------------------===//

namespace mpiete {
namespace {

/// The communicator each live window was created on: fence and free are collective over it.
/// A small fixed table: programs create few windows.
struct WindowComm {
  MPI_Win Win;
  MPI_Comm Comm;
};
WindowComm Windows[64];
int WindowCount = 0;

MPI_Comm commOfWindow(MPI_Win Win) {
  for (int I = 0; I < WindowCount; ++I)
    if (Windows[I].Win == Win)
      return Windows[I].Comm;
  Recorder::get().fail("a one-sided window was not created through MPI_Win_create or "
                       "MPI_Win_allocate; mpiete cannot run it");
}

void rememberWindow(MPI_Win Win, MPI_Comm Comm) {
  if (WindowCount == 64)
    Recorder::get().fail("more than 64 live one-sided windows passed through");
  Windows[WindowCount++] = {Win, Comm};
}

void forgetWindow(MPI_Win Win) {
  for (int I = 0; I < WindowCount; ++I)
    if (Windows[I].Win == Win) {
      Windows[I] = Windows[--WindowCount];
      return;
    }
}

template <typename Fn> int collectively(MPI_Comm Comm, Fn &&Call) {
  MpiScope Scope(WindowCallBlock);
  return transport::collectiveCall(
      WindowCallBlock, Comm, [](void *Arg) { return (*static_cast<Fn *>(Arg))(); }, &Call);
}

} // namespace
} // namespace mpiete

extern "C" int MPI_Win_create(void *Base, MPI_Aint Size, int DispUnit, MPI_Info Info, MPI_Comm Comm,
                              MPI_Win *Win) {
  int Rc = mpiete::collectively(
      Comm, [&] { return PMPI_Win_create(Base, Size, DispUnit, Info, Comm, Win); });
  if (Rc == MPI_SUCCESS)
    mpiete::rememberWindow(*Win, Comm);
  return Rc;
}

extern "C" int MPI_Win_allocate(MPI_Aint Size, int DispUnit, MPI_Info Info, MPI_Comm Comm,
                                void *BaseOut, MPI_Win *Win) {
  int Rc = mpiete::collectively(
      Comm, [&] { return PMPI_Win_allocate(Size, DispUnit, Info, Comm, BaseOut, Win); });
  if (Rc == MPI_SUCCESS)
    mpiete::rememberWindow(*Win, Comm);
  return Rc;
}

extern "C" int MPI_Win_fence(int Assert, MPI_Win Win) {
  return mpiete::collectively(mpiete::commOfWindow(Win),
                              [&] { return PMPI_Win_fence(Assert, Win); });
}

extern "C" int MPI_Win_free(MPI_Win *Win) {
  MPI_Win Freed = *Win;
  int Rc = mpiete::collectively(mpiete::commOfWindow(Freed), [&] { return PMPI_Win_free(Win); });
  mpiete::forgetWindow(Freed);
  return Rc;
}
