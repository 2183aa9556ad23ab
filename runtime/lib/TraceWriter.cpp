// The trace writer: output file handling, header, unit dictionary, buffer draining.
#include "TraceWriter.h"
#include "LoopPlan.h"
#include "Recorder.h"
#include "Util.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MPIETE_TOOL_VERSION
#define MPIETE_TOOL_VERSION "unknown"
#endif

namespace mpiete {

constinit TraceWriter TheTraceWriter;
TraceWriter &TraceWriter::get() { return TheTraceWriter; }

namespace {

/// At exit: a rank that initialised MPI but never finalised it (an exit without MPI_Finalize)
/// keeps its trace under the temporary name, so it never passes for a complete run.
void atExit() {
  int Initialized = 0, Finalized = 0;
  PMPI_Initialized(&Initialized);
  PMPI_Finalized(&Finalized);
  TraceWriter::get().finish(!Initialized || Finalized);
}

/// Appends a header string (length, bytes) to P.
size_t putString(unsigned char *P, const char *S) {
  const size_t N = std::strlen(S);
  size_t K = trace::putVarint(P, N);
  std::memcpy(P + K, S, N);
  return K + N;
}

} // namespace

void TraceWriter::decide() {
  const char *Dir = std::getenv("MPIETE_OUTDIR");
  if (Dir == nullptr || Dir[0] == '\0') {
    State = Off;
    return;
  }
  enable(Dir);
  if (const char *Repeats = std::getenv("MPIETE_TRACE_REPEATS")) {
    if (std::strcmp(Repeats, "0") == 0)
      setRepeats(false, false);
    else if (std::strcmp(Repeats, "hooks") == 0)
      setRepeats(true, false);
    else if (std::strcmp(Repeats, "1") != 0)
      Recorder::get().fail("MPIETE_TRACE_REPEATS must be 0, hooks or 1, not '%s'", Repeats);
  }
  std::atexit(atExit);
}

void TraceWriter::enable(const char *Dir) {
  if (std::snprintf(Path, sizeof Path, "%s", Dir) >= static_cast<int>(sizeof Path) - 32)
    Recorder::get().fail("output path too long under '%s'", Dir);
  State = Open;
}

uint32_t TraceWriter::lookupUnit(uint32_t Unit) {
  const uint64_t Key = static_cast<uint64_t>(Unit) + 1;
  size_t I = (Unit * 0x9e3779b1u) & (UnitSlots - 1);
  while (UnitKeys[I] != 0 && UnitKeys[I] != Key)
    I = (I + 1) & (UnitSlots - 1);
  if (UnitKeys[I] == 0) {
    if (Units + 1 > UnitSlots / 2)
      Recorder::get().fail("more than %zu instrumented translation units", UnitSlots / 2);
    UnitKeys[I] = Key;
    UnitIndex[I] = Units++;
    reserve(1 + 2 * trace::MaxVarint);
    Buf[Len++] = static_cast<unsigned char>(trace::Tag::Unit);
    u(UnitIndex[I]);
    u(Unit);
    ++Records;
  }
  LastUnit = Unit;
  LastIndex = UnitIndex[I];
  HaveLast = true;
  return LastIndex;
}

void TraceWriter::writeAll(int To, const unsigned char *P, size_t N, const char *What) {
  while (N > 0) {
    const ssize_t W = ::write(To, P, N);
    if (W < 0 && errno == EINTR)
      continue;
    if (W <= 0)
      Recorder::get().fail("cannot write '%s': %s", What, std::strerror(errno));
    P += W;
    N -= static_cast<size_t>(W);
  }
}

void TraceWriter::drain(size_t Need) {
  if (!Started && Fd < 0) {
    // Before MPI_Init: spill to a temporary file named by the process id.
    if (!makeDirs(Path))
      Recorder::get().fail("cannot create the output directory '%s': %s", Path,
                           std::strerror(errno));
    const size_t DirLen = std::strlen(Path);
    std::snprintf(SpillPath, sizeof SpillPath, "%.*s/.pid%ld.trace.part", static_cast<int>(DirLen),
                  Path, static_cast<long>(::getpid()));
    Fd = ::open(SpillPath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (Fd < 0)
      Recorder::get().fail("cannot open '%s' for writing: %s", SpillPath, std::strerror(errno));
  }
  for (;;) {
    // Everything before the lowest frame's held iterations can go.
    const size_t Keep = keep();
    if (Keep > 0) {
      writeAll(Fd, Buf, Keep, Started ? Path : SpillPath);
      std::memmove(Buf, Buf + Keep, Len - Keep);
      Len -= Keep;
      Drained += Keep;
      for (size_t I = 0; I < Depth; ++I) {
        Frames[I].Prev = Frames[I].HasPrev ? Frames[I].Prev - Keep : 0;
        Frames[I].Cur = Frames[I].Claim ? Frames[I].Cur - Keep : 0;
      }
      if (AutoOpen && Auto.Claim) {
        Auto.Prev -= Keep;
        Auto.Cur -= Keep;
      }
      if (BlockAutoOpen && BlockAuto.Claim) {
        BlockAuto.Prev -= Keep;
        BlockAuto.Cur -= Keep;
      }
    }
    if (Len + Need <= Capacity)
      return;
    // Still no room: what holds the earliest bytes gives them up: the second level's frame or
    // history (blocks hold the detector's spans), the detector's frame (below the hooks'
    // frames), the hooks' frames, else the detector its history.
    if (BlockAutoOpen && BlockAuto.Claim) {
      release(BlockAuto);
      continue;
    }
    if (!BlockAutoOpen && !BlocksLost) {
      BlocksLost = true; // restarted where the detector's frame next closes
      continue;
    }
    if (AutoOpen && Auto.Claim) {
      release(Auto);
      continue;
    }
    bool Released = false;
    for (size_t I = 0; I < Depth && !Released; ++I)
      if (Frames[I].Claim) {
        release(Frames[I]);
        Released = true;
      }
    if (!Released)
      HistLost = true; // restarted where the current call ends (a record boundary)
  }
}

size_t TraceWriter::keep() const {
  // Frames are nested, so the lowest frame holding bytes holds the earliest; the detector's
  // frame lies below the hooks' frames.
  uint64_t EndRecords = 0;
  size_t Keep = AutoOpen && Auto.Claim ? Auto.Prev : finalEnd(EndRecords);
  if (DetectOn) {
    const uint64_t Oldest = std::min(oldestKept(), oldestBlockKept()) - Drained;
    if (Oldest < Keep)
      Keep = static_cast<size_t>(Oldest);
  }
  return Keep;
}

void TraceWriter::start(int Rank, int WorldSize) {
  if (!on() || Started)
    return;
  if (!makeDirs(Path))
    Recorder::get().fail("cannot create the output directory '%s': %s", Path, std::strerror(errno));
  const char *Dir = Path;
  char File[sizeof Path + 64];
  // Written as rank<N>.trace.part and renamed by finish(): a rank that crashes or is killed
  // leaves no file that looks like a trace (issue 14).
  std::snprintf(File, sizeof File, "%s/rank%d.trace.part", Dir, Rank);
  std::memcpy(Path, File, sizeof Path);
  const int Out = ::open(Path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (Out < 0)
    Recorder::get().fail("cannot open '%s' for writing: %s", Path, std::strerror(errno));

  const char *Fingerprint = std::getenv("MPIETE_FINGERPRINT");
  if (Fingerprint == nullptr)
    Fingerprint = "";
  if (std::strspn(Fingerprint, "0123456789abcdefABCDEF") != std::strlen(Fingerprint) ||
      std::strlen(Fingerprint) > 128)
    Recorder::get().fail("MPIETE_FINGERPRINT must be at most 128 hexadecimal digits, not '%s'",
                         Fingerprint);
  char Host[256] = {};
  if (::gethostname(Host, sizeof Host - 1) != 0)
    std::snprintf(Host, sizeof Host, "unknown");
  char Date[64] = {};
  const std::time_t Now = std::time(nullptr);
  std::tm Utc;
  gmtime_r(&Now, &Utc);
  std::strftime(Date, sizeof Date, "%Y-%m-%dT%H:%M:%SZ", &Utc);

  unsigned char Header[1024];
  size_t H = 0;
  std::memcpy(Header, trace::Magic, sizeof trace::Magic);
  H += sizeof trace::Magic;
  H += trace::putVarint(Header + H, trace::FormatVersion);
  H += trace::putVarint(Header + H, static_cast<uint64_t>(Rank));
  H += trace::putVarint(Header + H, static_cast<uint64_t>(WorldSize));
  H += putString(Header + H, Fingerprint);
  H += putString(Header + H, Host);
  H += putString(Header + H, Date);
  H += putString(Header + H, MPIETE_TOOL_VERSION);
  writeAll(Out, Header, H, Path);

  if (Fd >= 0) {
    // Records spilled before MPI_Init follow the header, then the buffer's.
    if (::lseek(Fd, 0, SEEK_SET) != 0)
      Recorder::get().fail("cannot read back '%s': %s", SpillPath, std::strerror(errno));
    unsigned char Chunk[65536];
    for (;;) {
      const ssize_t R = ::read(Fd, Chunk, sizeof Chunk);
      if (R < 0 && errno == EINTR)
        continue;
      if (R < 0)
        Recorder::get().fail("cannot read back '%s': %s", SpillPath, std::strerror(errno));
      if (R == 0)
        break;
      writeAll(Out, Chunk, static_cast<size_t>(R), Path);
    }
    ::close(Fd);
    ::unlink(SpillPath);
  }
  Fd = Out;
  Started = true;
}

void TraceWriter::flush() {
  // The detector's history goes out too (MPI_Finalize: hardly any calls follow).
  HistLost = true;
  BlocksLost = true;
  if (State == Open && Started && Len > 0)
    drain(0);
}

void TraceWriter::finish(bool Complete) {
  if (State != Open)
    return;
  if (!Started) {
    // MPI was never initialised: no rank, no trace; drop what was spilled.
    if (Fd >= 0) {
      ::close(Fd);
      ::unlink(SpillPath);
    }
    State = Closed;
    return;
  }
  makeHookRoom();
  while (Depth > 0)
    closeFrame(Frames[--Depth]);
  closeAuto();
  closeBlockAuto();
  reserve(1 + trace::MaxVarint);
  Buf[Len++] = static_cast<unsigned char>(trace::Tag::End);
  u(Records);
  flush();
  if (::close(Fd) != 0)
    Recorder::get().fail("cannot write '%s': %s", Path, std::strerror(errno));
  Fd = -1;
  State = Closed;
  const size_t N = std::strlen(Path);
  if (N < 5 || std::strcmp(Path + N - 5, ".part") != 0)
    return;
  char Final[sizeof Path];
  std::snprintf(Final, sizeof Final, "%.*s", static_cast<int>(N - 5), Path);
  if (!Complete) {
    std::fprintf(stderr,
                 "mpiete: error: the program exited without MPI_Finalize: the trace stays "
                 "incomplete as '%s'\n",
                 Path);
    return;
  }
  if (std::rename(Path, Final) != 0)
    Recorder::get().fail("cannot rename '%s' to '%s': %s", Path, Final, std::strerror(errno));
  // Beside the trace (its directory as opened: the program may have changed directory since).
  if (char *Slash = std::strrchr(Final, '/'); Slash != nullptr) {
    *Slash = '\0';
    loops::write(Final, Recorder::get().rank(), Recorder::get().size());
  }
}

} // namespace mpiete
