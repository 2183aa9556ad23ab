// The compute segments' table and its lines in rank<N>.timing.
#include "Segments.h"
#include "Recorder.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace mpiete {
namespace {

size_t hashOf(mpiete_site_t From, mpiete_site_t To) { // splitmix64's finalizer over both
  uint64_t X = From * 0x9e3779b97f4a7c15ULL ^ To;
  X = (X ^ (X >> 30)) * 0xbf58476d1ce4e5b9ULL;
  X = (X ^ (X >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<size_t>(X ^ (X >> 31));
}

} // namespace

Segment &SegmentTable::get(mpiete_site_t From, mpiete_site_t To) {
  if ((Count + 1) * 2 > Capacity) [[unlikely]]
    grow();
  const size_t Mask = Capacity - 1;
  size_t I = hashOf(From, To) & Mask;
  while (Slots[I].Used) {
    if (Slots[I].From == From && Slots[I].To == To)
      return Slots[I];
    I = (I + 1) & Mask;
  }
  Segment &S = Slots[I];
  S.From = From;
  S.To = To;
  S.Width = 1;
  S.Used = true;
  ++Count;
  return S;
}

const Segment *SegmentTable::find(mpiete_site_t From, mpiete_site_t To) const {
  if (Capacity == 0)
    return nullptr;
  const size_t Mask = Capacity - 1;
  for (size_t I = hashOf(From, To) & Mask; Slots[I].Used; I = (I + 1) & Mask)
    if (Slots[I].From == From && Slots[I].To == To)
      return &Slots[I];
  return nullptr;
}

void SegmentTable::grow() {
  const size_t NewCapacity = Capacity == 0 ? 256 : Capacity * 2;
  auto *NewSlots = static_cast<Segment *>(std::calloc(NewCapacity, sizeof(Segment)));
  if (NewSlots == nullptr)
    Recorder::get().fail("out of memory growing the segment table to %zu entries", NewCapacity);
  for (size_t J = 0; J < Capacity; ++J) {
    if (!Slots[J].Used)
      continue;
    size_t I = hashOf(Slots[J].From, Slots[J].To) & (NewCapacity - 1);
    while (NewSlots[I].Used)
      I = (I + 1) & (NewCapacity - 1);
    NewSlots[I] = Slots[J];
  }
  std::free(Slots);
  Slots = NewSlots;
  Capacity = NewCapacity;
}

void SegmentTable::addToSeries(Segment &S, uint64_t Nanos) {
  if (S.NBuckets != 0 && S.InLast < S.Width) {
    S.Buckets[S.NBuckets - 1] += Nanos;
    ++S.InLast;
    return;
  }
  if (S.NBuckets == SeriesBuckets) {
    // Full (every bucket holds Width): merge adjacent pairs, double the width.
    for (uint32_t K = 0; K < SeriesBuckets / 2; ++K)
      S.Buckets[K] = S.Buckets[2 * K] + S.Buckets[2 * K + 1];
    S.NBuckets = SeriesBuckets / 2;
    S.Width *= 2;
  } else if (S.NBuckets == S.BucketCapacity) {
    const uint32_t NewCapacity = S.BucketCapacity == 0 ? 16 : S.BucketCapacity * 2;
    auto *New = static_cast<uint64_t *>(std::realloc(S.Buckets, NewCapacity * sizeof(uint64_t)));
    if (New == nullptr)
      Recorder::get().fail("out of memory growing a segment's series to %u buckets", NewCapacity);
    S.Buckets = New;
    S.BucketCapacity = NewCapacity;
  }
  S.Buckets[S.NBuckets++] = Nanos;
  S.InLast = 1;
}

void SegmentTable::add(mpiete_site_t From, mpiete_site_t To, uint64_t Nanos) {
  Segment &S = get(From, To);
  S.Executions += 1;
  S.Nanos += Nanos;
  const auto X = static_cast<double>(Nanos);
  const double Delta = X - S.Mean;
  S.Mean += Delta / static_cast<double>(S.Executions);
  S.M2 += Delta * (X - S.Mean);
  if (S.Executions == 1 || Nanos < S.Min)
    S.Min = Nanos;
  if (S.Executions == 1 || Nanos > S.Max)
    S.Max = Nanos;
  addToSeries(S, Nanos);
}

void SegmentTable::write(std::FILE *F) const {
  if (Count == 0)
    return;
  auto **Sorted = static_cast<const Segment **>(std::malloc(Count * sizeof(Segment *)));
  if (Sorted == nullptr)
    Recorder::get().fail("out of memory writing the segments");
  size_t N = 0;
  for (size_t J = 0; J < Capacity; ++J)
    if (Slots[J].Used)
      Sorted[N++] = &Slots[J];
  std::sort(Sorted, Sorted + N, [](const Segment *A, const Segment *B) {
    return A->From != B->From ? A->From < B->From : A->To < B->To;
  });
  for (size_t I = 0; I < N; ++I) {
    const Segment &S = *Sorted[I];
    char From[BlockIdBufferSize], To[BlockIdBufferSize];
    formatBlockId(S.From, From, sizeof From);
    formatBlockId(S.To, To, sizeof To);
    const double Sd =
        S.Executions > 1 ? std::sqrt(S.M2 / static_cast<double>(S.Executions - 1)) : 0.0;
    std::fprintf(F, "segment %s %s %llu %llu %.1f %.1f %.1f\n", From, To,
                 static_cast<unsigned long long>(S.Executions),
                 static_cast<unsigned long long>(S.Nanos), static_cast<double>(S.Min),
                 static_cast<double>(S.Max), Sd);
    // The series only where one occurrence differs noticeably from another.
    if (static_cast<double>(S.Max) > 1.05 * static_cast<double>(S.Min)) {
      std::fprintf(F, "series %s %s %llu %u", From, To, static_cast<unsigned long long>(S.Width),
                   S.NBuckets);
      for (uint32_t K = 0; K < S.NBuckets; ++K)
        std::fprintf(F, " %llu", static_cast<unsigned long long>(S.Buckets[K]));
      std::fputc('\n', F);
    }
  }
  std::free(Sorted);
}

} // namespace mpiete
