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
// MPI-IO's collective routines (MPI_File_open, MPI_File_write_all, ...) are run the same way
// over the file's communicator; its other blocking routines run where the program calls them
// (docs/mpiete-cc.md, "MPI-IO").
#include "FileCalls.h"
#include "Recorder.h"
#include "Transport.h"
#include "Variant.h"

#include <cstdio>
#include <utility>

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

/// The communicator each live handle (a window, a file) was made on: its collective calls run
/// over it. A small fixed table: programs hold few windows and files at once.
template <typename Handle, int Capacity> class HandleComms {
public:
  HandleComms(const char *Unknown, const char *Full) : Unknown(Unknown), Full(Full) {}

  MPI_Comm comm(Handle H) const {
    for (int I = 0; I < Count; ++I)
      if (Entries[I].H == H)
        return Entries[I].Comm;
    Recorder::get().fail("%s", Unknown);
  }
  void remember(Handle H, MPI_Comm Comm) {
    if (Count == Capacity)
      Recorder::get().fail("%s", Full);
    Entries[Count++] = {H, Comm};
  }
  void forget(Handle H) {
    for (int I = 0; I < Count; ++I)
      if (Entries[I].H == H) {
        Entries[I] = Entries[--Count];
        return;
      }
  }

private:
  struct Entry {
    Handle H;
    MPI_Comm Comm;
  };
  Entry Entries[Capacity];
  int Count = 0;
  const char *Unknown;
  const char *Full;
};

HandleComms<MPI_Win, 64> Windows("a one-sided window was not created through MPI_Win_create or "
                                 "MPI_Win_allocate; mpiete cannot run it",
                                 "more than 64 live one-sided windows passed through");

MPI_Comm commOfWindow(MPI_Win Win) { return Windows.comm(Win); }
void rememberWindow(MPI_Win Win, MPI_Comm Comm) { Windows.remember(Win, Comm); }
void forgetWindow(MPI_Win Win) { Windows.forget(Win); }

/// Runs Call(Arg) at Block with every member of Comm at once.
int runCollectively(uint64_t Block, MPI_Comm Comm, int (*Call)(void *), void *Arg) {
  MpiScope Scope(Block);
  return transport::collectiveCall(Block, Comm, Call, Arg);
}

template <typename Fn> int collectively(uint64_t Block, MPI_Comm Comm, Fn &&Call) {
  return runCollectively(Block, Comm, [](void *Arg) { return (*static_cast<Fn *>(Arg))(); }, &Call);
}

} // namespace
} // namespace mpiete

extern "C" int MPI_Win_create(void *Base, MPI_Aint Size, int DispUnit, MPI_Info Info, MPI_Comm Comm,
                              MPI_Win *Win) {
  int Rc = mpiete::collectively(mpiete::WindowCallBlock, Comm, [&] {
    return PMPI_Win_create(Base, Size, DispUnit, Info, Comm, Win);
  });
  if (Rc == MPI_SUCCESS)
    mpiete::rememberWindow(*Win, Comm);
  return Rc;
}

extern "C" int MPI_Win_allocate(MPI_Aint Size, int DispUnit, MPI_Info Info, MPI_Comm Comm,
                                void *BaseOut, MPI_Win *Win) {
  int Rc = mpiete::collectively(mpiete::WindowCallBlock, Comm, [&] {
    return PMPI_Win_allocate(Size, DispUnit, Info, Comm, BaseOut, Win);
  });
  if (Rc == MPI_SUCCESS)
    mpiete::rememberWindow(*Win, Comm);
  return Rc;
}

extern "C" int MPI_Win_fence(int Assert, MPI_Win Win) {
  return mpiete::collectively(mpiete::WindowCallBlock, mpiete::commOfWindow(Win),
                              [&] { return PMPI_Win_fence(Assert, Win); });
}

extern "C" int MPI_Win_free(MPI_Win *Win) {
  MPI_Win Freed = *Win;
  int Rc = mpiete::collectively(mpiete::WindowCallBlock, mpiete::commOfWindow(Freed),
                                [&] { return PMPI_Win_free(Win); });
  mpiete::forgetWindow(Freed);
  return Rc;
}

//===-- MPI-IO ------------------------------------------------------------------------------===//
//
// mpiete-cc and mpiete-fc leave MPI-IO calls as the program wrote them (a warning names each;
// the non-blocking ones stay unsupported). The collective ones must be entered by every member
// of the file's communicator at once, which the token machine allows only through
// transport::collectiveCall (one rank at a time would wait in MPI_File_open forever): they are
// defined here, before the MPI library on the probe link line. Their time is not charged to
// any rank (nothing is timed while a communicator call runs) and the estimator sees a call with
// no communication at FileCallBlock: predictions leave collective file I/O out. The independent
// routines (MPI_File_write_at, MPI_File_read, ...) are not interposed: they run while the rank
// holds its token, so their time is part of the computation around them.

namespace mpiete {
namespace {

HandleComms<MPI_File, 256> Files("an MPI-IO file was not opened through MPI_File_open; mpiete "
                                 "cannot run its collective calls",
                                 "more than 256 MPI-IO files open at once");

} // namespace

/// Remembers the communicator a file was opened on (also from the Fortran bindings).
void rememberFile(MPI_File File, MPI_Comm Comm) { Files.remember(File, Comm); }
void forgetFile(MPI_File File) { Files.forget(File); }

/// Runs Call, a collective MPI-IO routine of File, with every member of its communicator.
int fileCollectively(MPI_File File, int (*Call)(void *), void *Arg) {
  return runCollectively(FileCallBlock, Files.comm(File), Call, Arg);
}

int fileOpenCollectively(MPI_Comm Comm, int (*Call)(void *), void *Arg) {
  return runCollectively(FileCallBlock, Comm, Call, Arg);
}

namespace {
template <typename Fn> int onFile(MPI_File File, Fn &&Call) {
  return collectively(FileCallBlock, Files.comm(File), std::forward<Fn>(Call));
}
} // namespace
} // namespace mpiete

extern "C" int MPI_File_open(MPI_Comm Comm, const char *Name, int Amode, MPI_Info Info,
                             MPI_File *Fh) {
  int Rc = mpiete::collectively(mpiete::FileCallBlock, Comm,
                                [&] { return PMPI_File_open(Comm, Name, Amode, Info, Fh); });
  if (Rc == MPI_SUCCESS)
    mpiete::rememberFile(*Fh, Comm);
  return Rc;
}

extern "C" int MPI_File_close(MPI_File *Fh) {
  MPI_File Closed = *Fh;
  int Rc = mpiete::onFile(Closed, [&] { return PMPI_File_close(Fh); });
  mpiete::forgetFile(Closed);
  return Rc;
}

// The other collective routines: the same call, run by every member at once.
#define MPIETE_FILE_COLLECTIVE(Name, Params, Args)                                                 \
  extern "C" int MPI_##Name Params {                                                               \
    return mpiete::onFile(Fh, [&] { return PMPI_##Name Args; });                                   \
  }
MPIETE_FILE_COLLECTIVE(File_set_size, (MPI_File Fh, MPI_Offset Size), (Fh, Size))
MPIETE_FILE_COLLECTIVE(File_preallocate, (MPI_File Fh, MPI_Offset Size), (Fh, Size))
MPIETE_FILE_COLLECTIVE(File_set_info, (MPI_File Fh, MPI_Info Info), (Fh, Info))
MPIETE_FILE_COLLECTIVE(File_set_view,
                       (MPI_File Fh, MPI_Offset Disp, MPI_Datatype Etype, MPI_Datatype Filetype,
                        const char *Datarep, MPI_Info Info),
                       (Fh, Disp, Etype, Filetype, Datarep, Info))
MPIETE_FILE_COLLECTIVE(File_set_atomicity, (MPI_File Fh, int Flag), (Fh, Flag))
MPIETE_FILE_COLLECTIVE(File_sync, (MPI_File Fh), (Fh))
MPIETE_FILE_COLLECTIVE(File_seek_shared, (MPI_File Fh, MPI_Offset Offset, int Whence),
                       (Fh, Offset, Whence))
MPIETE_FILE_COLLECTIVE(File_read_at_all,
                       (MPI_File Fh, MPI_Offset Offset, void *Buf, int Count, MPI_Datatype Type,
                        MPI_Status *Status),
                       (Fh, Offset, Buf, Count, Type, Status))
MPIETE_FILE_COLLECTIVE(File_write_at_all,
                       (MPI_File Fh, MPI_Offset Offset, const void *Buf, int Count,
                        MPI_Datatype Type, MPI_Status *Status),
                       (Fh, Offset, Buf, Count, Type, Status))
MPIETE_FILE_COLLECTIVE(File_read_all,
                       (MPI_File Fh, void *Buf, int Count, MPI_Datatype Type, MPI_Status *Status),
                       (Fh, Buf, Count, Type, Status))
MPIETE_FILE_COLLECTIVE(File_write_all,
                       (MPI_File Fh, const void *Buf, int Count, MPI_Datatype Type,
                        MPI_Status *Status),
                       (Fh, Buf, Count, Type, Status))
MPIETE_FILE_COLLECTIVE(File_read_ordered,
                       (MPI_File Fh, void *Buf, int Count, MPI_Datatype Type, MPI_Status *Status),
                       (Fh, Buf, Count, Type, Status))
MPIETE_FILE_COLLECTIVE(File_write_ordered,
                       (MPI_File Fh, const void *Buf, int Count, MPI_Datatype Type,
                        MPI_Status *Status),
                       (Fh, Buf, Count, Type, Status))
MPIETE_FILE_COLLECTIVE(File_read_at_all_begin,
                       (MPI_File Fh, MPI_Offset Offset, void *Buf, int Count, MPI_Datatype Type),
                       (Fh, Offset, Buf, Count, Type))
MPIETE_FILE_COLLECTIVE(File_read_at_all_end, (MPI_File Fh, void *Buf, MPI_Status *Status),
                       (Fh, Buf, Status))
MPIETE_FILE_COLLECTIVE(File_write_at_all_begin,
                       (MPI_File Fh, MPI_Offset Offset, const void *Buf, int Count,
                        MPI_Datatype Type),
                       (Fh, Offset, Buf, Count, Type))
MPIETE_FILE_COLLECTIVE(File_write_at_all_end, (MPI_File Fh, const void *Buf, MPI_Status *Status),
                       (Fh, Buf, Status))
MPIETE_FILE_COLLECTIVE(File_read_all_begin, (MPI_File Fh, void *Buf, int Count, MPI_Datatype Type),
                       (Fh, Buf, Count, Type))
MPIETE_FILE_COLLECTIVE(File_read_all_end, (MPI_File Fh, void *Buf, MPI_Status *Status),
                       (Fh, Buf, Status))
MPIETE_FILE_COLLECTIVE(File_write_all_begin,
                       (MPI_File Fh, const void *Buf, int Count, MPI_Datatype Type),
                       (Fh, Buf, Count, Type))
MPIETE_FILE_COLLECTIVE(File_write_all_end, (MPI_File Fh, const void *Buf, MPI_Status *Status),
                       (Fh, Buf, Status))
MPIETE_FILE_COLLECTIVE(File_read_ordered_begin,
                       (MPI_File Fh, void *Buf, int Count, MPI_Datatype Type),
                       (Fh, Buf, Count, Type))
MPIETE_FILE_COLLECTIVE(File_read_ordered_end, (MPI_File Fh, void *Buf, MPI_Status *Status),
                       (Fh, Buf, Status))
MPIETE_FILE_COLLECTIVE(File_write_ordered_begin,
                       (MPI_File Fh, const void *Buf, int Count, MPI_Datatype Type),
                       (Fh, Buf, Count, Type))
MPIETE_FILE_COLLECTIVE(File_write_ordered_end, (MPI_File Fh, const void *Buf, MPI_Status *Status),
                       (Fh, Buf, Status))
#undef MPIETE_FILE_COLLECTIVE
