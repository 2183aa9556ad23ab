// The per-process recorder shared by both runtime variants: counts per block id, the rank and
// size learnt at MPI_Init, the output written at MPI_Finalize, and the fatal-error path.
//
// Not thread-safe: a probe runs its MPI calls and instrumented blocks on one thread at a time
// (docs/runtime-abi.md). Nothing here throws (the runtime is built with -fno-exceptions) and
// nothing allocates on the hot path once the table has grown to the program's block count.
#ifndef MPIETE_RUNTIME_RECORDER_H
#define MPIETE_RUNTIME_RECORDER_H

#include "mpiete/BlockId.h"
#include "mpiete/instrument.h"

#include <cstddef>
#include <cstdint>

namespace mpiete {

/// What kind of block an id is; printed in the output files.
enum class Kind : uint8_t {
  None,       // slot not yet classified (never printed)
  Block,      // compute block
  Loop,       // loop timed or counted whole
  Init,       // MPI_Init, MPI_Init_thread
  Finalize,   // MPI_Finalize
  Start,      // communication start (the start half of a blocking call, or a non-blocking start)
  Wait,       // completion: the wait half of a blocking call, the Wait/Test family, probes
  Collective, // collective operation (forwarded to MPI for now)
  Comm,       // communicator management
};

const char *kindName(Kind K);

/// One block id's accumulated data.
struct Counter {
  mpiete_site_t Id;
  uint64_t Executions; // times the block ran (loops: times the loop ran to its end)
  uint64_t Trips;      // loops: total iterations over all executions
  uint64_t Nanos;      // timing variant, compute blocks and loops: exclusive elapsed time
  // Timing variant: the spread of one execution's time (loops: per iteration), Welford's
  // running mean and squared deviations, so the hooks need no storage per sample.
  uint64_t Samples;
  double Mean, M2, Min, Max;
  Kind K;
  bool Used;
};

/// Open-addressing (linear probing) hash table of counters keyed by id. Grows by doubling when
/// half full, so a lookup allocates only the first time a new id pushes it past that bound.
class CounterTable {
public:
  /// The counter for Id, inserted zeroed if absent. The reference is valid until the next call.
  Counter &get(mpiete_site_t Id) {
    if (Capacity != 0) [[likely]] {
      const size_t Mask = Capacity - 1;
      for (size_t I = hash(Id) & Mask;; I = (I + 1) & Mask) {
        Counter &C = Slots[I];
        if (!C.Used)
          break;
        if (C.Id == Id)
          return C;
      }
    }
    return insert(Id);
  }
  size_t size() const { return Count; }
  /// Copies pointers to the used slots into Out (room for size()), sorted by id.
  void sorted(const Counter **Out) const;

private:
  static size_t hash(mpiete_site_t Id) { // splitmix64's finalizer
    uint64_t X = Id;
    X = (X ^ (X >> 30)) * 0xbf58476d1ce4e5b9ULL;
    X = (X ^ (X >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<size_t>(X ^ (X >> 31));
  }
  Counter &insert(mpiete_site_t Id);
  void grow();

  Counter *Slots = nullptr;
  size_t Capacity = 0; // a power of two, or 0 before the first insertion
  size_t Count = 0;
};

class Recorder {
public:
  static Recorder &get();
  constexpr Recorder() = default;

  /// After PMPI_Init/PMPI_Init_thread returned Rc: learn rank and size, record the init block.
  void onInit(mpiete_site_t Site, int Rc);
  /// Before PMPI_Finalize: record the finalize block and write the output file.
  void onFinalize(mpiete_site_t Site);

  /// The begin hook: block Id of kind K starts executing (counted once per call).
  void record(mpiete_site_t Id, Kind K) {
    Counter &C = Table.get(Id);
    // A lowered collective's point-to-point parts carry its id (routines.def): the collective
    // is counted once, its starts and waits are not.
    if (C.K == Kind::Collective && (K == Kind::Start || K == Kind::Wait)) [[unlikely]]
      return;
    classify(C, K).Executions += 1;
  }
  /// A loop (Id) ended after Trips iterations; Nanos is its exclusive time (timing variant).
  void recordLoop(mpiete_site_t Id, uint64_t Trips, uint64_t Nanos) {
    Counter &C = classify(Table.get(Id), Kind::Loop);
    C.Executions += 1;
    C.Trips += Trips;
    C.Nanos += Nanos;
  }
  /// A loop timed whole (Id) ended after Trips iterations taking Nanos (timing variant).
  void recordTimedLoop(mpiete_site_t Id, uint64_t Trips, uint64_t Nanos) {
    Counter &C = classify(Table.get(Id), Kind::Loop);
    C.Executions += 1;
    C.Trips += Trips;
    C.Nanos += Nanos;
    if (Trips != 0)
      addSample(C, static_cast<double>(Nanos) / static_cast<double>(Trips));
  }
  /// A compute block (Id) ended; Nanos is its exclusive time (timing variant).
  void recordBlockEnd(mpiete_site_t Id, uint64_t Nanos) {
    Counter &C = classify(Table.get(Id), Kind::Block);
    C.Executions += 1;
    C.Nanos += Nanos;
    addSample(C, static_cast<double>(Nanos));
  }

  /// A scratch buffer of at least Bytes bytes, reused across calls (grows, never shrinks).
  void *scratch(size_t Bytes);

  int rank() const { return Rank; }
  /// MPI_Finalize has been entered.
  bool finalized() const { return FinalizeSeen; }
  int size() const { return Size; }

  /// Prints `mpiete: rank N: error: <message>` on stderr and aborts the job.
  [[noreturn]] void fail(const char *Fmt, ...) __attribute__((format(printf, 2, 3)));

private:
  static void addSample(Counter &C, double X) {
    C.Samples += 1;
    const double Delta = X - C.Mean;
    C.Mean += Delta / static_cast<double>(C.Samples);
    C.M2 += Delta * (X - C.Mean);
    if (C.Samples == 1 || X < C.Min)
      C.Min = X;
    if (C.Samples == 1 || X > C.Max)
      C.Max = X;
  }
  Counter &classify(Counter &C, Kind K) {
    if (C.K != K) [[unlikely]]
      reclassify(C, K);
    return C;
  }
  void reclassify(Counter &C, Kind K);
  void writeOutput();

  CounterTable Table;
  void *Scratch = nullptr;
  size_t ScratchBytes = 0;
  int Rank = -1;
  int Size = 0;
  bool FinalizeSeen = false;
};

/// The process's one recorder: constant-initialised and trivially destructible, so it is usable
/// before main and after exit handlers run, in any order.
extern Recorder TheRecorder;
inline Recorder &Recorder::get() { return TheRecorder; }

} // namespace mpiete

#endif // MPIETE_RUNTIME_RECORDER_H
