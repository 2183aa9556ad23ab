// The per-process recorder: counter table, init/finalize hooks, output files, fatal errors.
#include "Recorder.h"
#include "Util.h"
#include "Variant.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace mpiete {

constinit Recorder TheRecorder;

const char *kindName(Kind K) {
  switch (K) {
  case Kind::None:
    return "none";
  case Kind::Block:
    return "block";
  case Kind::Loop:
    return "loop";
  case Kind::Init:
    return "init";
  case Kind::Finalize:
    return "finalize";
  case Kind::Start:
    return "start";
  case Kind::Wait:
    return "wait";
  case Kind::Collective:
    return "collective";
  case Kind::Comm:
    return "comm";
  }
  return "?";
}

//===-- CounterTable ------------------------------------------------------------------------===//

Counter &CounterTable::insert(mpiete_site_t Id) {
  if ((Count + 1) * 2 > Capacity)
    grow();
  const size_t Mask = Capacity - 1;
  size_t I = hash(Id) & Mask;
  while (Slots[I].Used)
    I = (I + 1) & Mask;
  Counter &C = Slots[I];
  C.Id = Id;
  C.Used = true;
  ++Count;
  return C;
}

void CounterTable::grow() {
  const size_t NewCapacity = Capacity == 0 ? 1024 : Capacity * 2;
  auto *NewSlots = static_cast<Counter *>(std::calloc(NewCapacity, sizeof(Counter)));
  if (NewSlots == nullptr)
    Recorder::get().fail("out of memory growing the block table to %zu entries", NewCapacity);
  const size_t Mask = NewCapacity - 1;
  for (size_t J = 0; J < Capacity; ++J) {
    if (!Slots[J].Used)
      continue;
    size_t I = hash(Slots[J].Id) & Mask;
    while (NewSlots[I].Used)
      I = (I + 1) & Mask;
    NewSlots[I] = Slots[J];
  }
  std::free(Slots);
  Slots = NewSlots;
  Capacity = NewCapacity;
}

void CounterTable::sorted(const Counter **Out) const {
  size_t N = 0;
  for (size_t J = 0; J < Capacity; ++J)
    if (Slots[J].Used)
      Out[N++] = &Slots[J];
  std::sort(Out, Out + N, [](const Counter *A, const Counter *B) { return A->Id < B->Id; });
}

//===-- Recorder ----------------------------------------------------------------------------===//

void Recorder::onInit(mpiete_site_t Site, int Rc) {
  if (Rc == MPI_SUCCESS) {
    PMPI_Comm_rank(MPI_COMM_WORLD, &Rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &Size);
  }
  record(Site, Kind::Init);
}

void Recorder::onFinalize(mpiete_site_t Site) {
  record(Site, Kind::Finalize);
  FinalizeSeen = true;
  writeOutput();
}

void Recorder::reclassify(Counter &C, Kind K) {
  if (C.K == Kind::None) {
    C.K = K;
    return;
  }
  char Id[BlockIdBufferSize];
  formatBlockId(C.Id, Id, sizeof Id);
  fail("block %s is used both as %s and as %s (bad instrumentation)", Id, kindName(C.K),
       kindName(K));
}

void *Recorder::scratch(size_t Bytes) {
  if (Bytes > ScratchBytes) {
    const size_t NewBytes = std::max({Bytes, ScratchBytes * 2, size_t{4096}});
    void *NewScratch = std::realloc(Scratch, NewBytes);
    if (NewScratch == nullptr)
      fail("out of memory allocating a %zu-byte scratch buffer", NewBytes);
    Scratch = NewScratch;
    ScratchBytes = NewBytes;
  }
  return Scratch;
}

void Recorder::writeOutput() {
  const char *Dir = std::getenv("MPIETE_OUTDIR");
  if (Dir == nullptr || Dir[0] == '\0')
    return;
  if (!makeDirs(Dir))
    fail("cannot create the output directory '%s': %s", Dir, std::strerror(errno));

  // Written under a temporary name and renamed once complete: a rank killed while writing
  // leaves no file that looks whole (issue 14).
  char Final[4200], Path[4208];
  if (std::snprintf(Final, sizeof Final, "%s/rank%d.%s", Dir, Rank, variant::Suffix) >=
      static_cast<int>(sizeof Final))
    fail("output path too long under '%s'", Dir);
  std::snprintf(Path, sizeof Path, "%s.part", Final);
  std::FILE *F = std::fopen(Path, "w");
  if (F == nullptr)
    fail("cannot open '%s' for writing: %s", Path, std::strerror(errno));

  const size_t N = Table.size();
  auto **Sorted = static_cast<const Counter **>(std::malloc((N + 1) * sizeof(Counter *)));
  if (Sorted == nullptr)
    fail("out of memory writing '%s'", Path);
  Table.sorted(Sorted);

  std::fprintf(F, "# mpiete %s rank %d of %d\n", variant::Name, Rank, Size);
  if (variant::writeHeaderExtra != nullptr)
    variant::writeHeaderExtra(F);
  for (size_t I = 0; I < N; ++I) {
    if (Sorted[I]->Id == CalibrationBlock)
      continue;
    const Counter &C = *Sorted[I];
    char Id[BlockIdBufferSize];
    formatBlockId(C.Id, Id, sizeof Id);
    std::fprintf(F, "%s %s %llu", Id, kindName(C.K), static_cast<unsigned long long>(C.Executions));
    if (C.K == Kind::Loop)
      std::fprintf(F, " %llu", static_cast<unsigned long long>(C.Trips));
    if (variant::HasTime && (C.K == Kind::Block || C.K == Kind::Loop)) {
      // Total, then min, max and standard deviation of one execution (loops: per iteration).
      const double Sd = C.Samples > 1 ? std::sqrt(C.M2 / static_cast<double>(C.Samples - 1)) : 0;
      std::fprintf(F, " %llu %.1f %.1f %.1f", static_cast<unsigned long long>(C.Nanos), C.Min,
                   C.Max, Sd);
    }
    std::fputc('\n', F);
  }
  std::free(Sorted);
  if (variant::writeTrailer != nullptr)
    variant::writeTrailer(F);
  const bool WriteFailed = std::ferror(F) != 0;
  if (std::fclose(F) != 0 || WriteFailed)
    fail("cannot write '%s': %s", Path, std::strerror(errno));
  if (std::rename(Path, Final) != 0)
    fail("cannot rename '%s' to '%s': %s", Path, Final, std::strerror(errno));
}

void Recorder::fail(const char *Fmt, ...) {
  char Msg[1024];
  va_list Ap;
  va_start(Ap, Fmt);
  std::vsnprintf(Msg, sizeof Msg, Fmt, Ap);
  va_end(Ap);

  // Before MPI_Init the rank is unknown to MPI; the launcher's variable usually knows it.
  char RankText[24] = "?";
  if (Rank >= 0) {
    std::snprintf(RankText, sizeof RankText, "%d", Rank);
  } else if (const char *Env = std::getenv("OMPI_COMM_WORLD_RANK")) {
    std::snprintf(RankText, sizeof RankText, "%s", Env);
  } else if (const char *Pmi = std::getenv("PMI_RANK")) {
    std::snprintf(RankText, sizeof RankText, "%s", Pmi);
  }
  std::fprintf(stderr, "mpiete: rank %s: error: %s\n", RankText, Msg);
  std::fflush(stderr);

  int Initialized = 0, Finalized = 0;
  PMPI_Initialized(&Initialized);
  PMPI_Finalized(&Finalized);
  if (Initialized && !Finalized)
    PMPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

} // namespace mpiete
