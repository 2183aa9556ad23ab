// The replay engine's event queue: entries leave in (time, sequence) order, as from a binary
// heap, but through a radix heap, whose buckets are appended to and scanned in order.
// Private to the estimator library.
#ifndef MPIETE_ESTIMATOR_LIB_EVENTQUEUE_H
#define MPIETE_ESTIMATOR_LIB_EVENTQUEUE_H

#include "mpiete/estimator/Event.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <vector>

namespace mpiete::estimator {

/// A binary heap of 10^5 entries and more misses the caches at every level of every pop, and
/// was a quarter of the replay's time at 10^5 ranks. The engine's times never go back: every
/// entry is pushed at or after the time of the entry being handled. A radix heap (Ahuja et al.
/// 1990) uses that: bucket i holds the entries whose time first differs from the last minimum
/// taken out in bit i - 1 (bucket 0: equal to it); the smallest non-empty bucket is split by
/// its own minimum when bucket 0 runs dry, so each entry moves a few times, sequentially.
/// Buckets are appended to and split in order, so entries of equal time stay in push (Seq)
/// order. front() may take a new minimum while the rank being replayed is still before it;
/// what that rank pushes before the minimum goes to a small binary heap (Early), and the
/// smaller of the two fronts comes out, so the order is exactly (time, sequence).
class EventQueue {
public:
  struct Entry {
    TimeNs Time;
    uint64_t Seq;
    uint32_t Kind;
    uint32_t Index;
  };

  /// Entries in push order: std::vector's push_back was an out-of-line call per push (a
  /// third of the queue's instructions); this one's growth is the only call.
  class Bucket {
  public:
    bool empty() const { return Count == 0; }
    size_t size() const { return Count; }
    const Entry &operator[](size_t I) const { return Data[I]; }
    const Entry &front() const { return Data[0]; }
    const Entry *begin() const { return Data.get(); }
    const Entry *end() const { return Data.get() + Count; }
    void clear() { Count = 0; }
    void push_back(const Entry &E) {
      if (Count == Capacity) [[unlikely]]
        grow();
      Data[Count++] = E;
    }

  private:
    [[gnu::noinline]] void grow() {
      Capacity = Capacity ? Capacity * 2 : 64;
      std::unique_ptr<Entry[]> New(new Entry[Capacity]);
      std::copy(begin(), end(), New.get());
      Data = std::move(New);
    }
    std::unique_ptr<Entry[]> Data;
    size_t Count = 0, Capacity = 0;
  };

  bool empty() const { return Size == 0; }

  /// An entry that leaves K pops from now if nothing is pushed before it, or null (only bucket
  /// 0 is looked at): the engine prefetches what those entries will touch.
  const Entry *ahead(size_t K) const {
    size_t I = Head + K;
    return I < Buckets[0].size() ? &Buckets[0][I] : nullptr;
  }

  void push(const Entry &E) {
    ++Size;
    if (uint64_t(E.Time) < Last) {
      Early.push_back(E);
      std::push_heap(Early.begin(), Early.end(), Later());
      return;
    }
    Buckets[bucketOf(uint64_t(E.Time))].push_back(E);
  }

  /// The smallest entry; the queue must not be empty.
  const Entry &front() {
    const Entry *R = radixFront();
    if (Early.empty())
      return *R;
    if (R == nullptr || Later()(*R, Early.front()))
      return Early.front();
    return *R;
  }

  /// Takes the smallest entry out.
  Entry pop() {
    --Size;
    const Entry *R = radixFront();
    if (!Early.empty() && (R == nullptr || Later()(*R, Early.front()))) {
      std::pop_heap(Early.begin(), Early.end(), Later());
      Entry E = Early.back();
      Early.pop_back();
      return E;
    }
    Entry E = *R;
    if (++Head == Buckets[0].size()) {
      Buckets[0].clear();
      Head = 0;
    }
    return E;
  }

private:
  struct Later {
    bool operator()(const Entry &A, const Entry &B) const {
      return A.Time != B.Time ? A.Time > B.Time : A.Seq > B.Seq;
    }
  };

  unsigned bucketOf(uint64_t Time) const {
    return Time == Last ? 0 : unsigned(64 - std::countl_zero(Time ^ Last));
  }

  /// Bucket 0's first entry, after splitting the smallest non-empty bucket if it was empty;
  /// null when only Early holds entries.
  const Entry *radixFront() {
    if (Head < Buckets[0].size())
      return &Buckets[0][Head];
    unsigned I = 1;
    while (I < NumBuckets && Buckets[I].empty())
      ++I;
    if (I == NumBuckets)
      return nullptr;
    Bucket &B = Buckets[I];
    uint64_t Min = uint64_t(B.front().Time);
    for (const Entry &E : B)
      Min = std::min(Min, uint64_t(E.Time));
    Last = Min;
    // Every entry of B goes to a lower bucket, in order: equal times keep their Seq order.
    for (const Entry &E : B)
      Buckets[bucketOf(uint64_t(E.Time))].push_back(E);
    B.clear();
    return &Buckets[0][Head];
  }

  static constexpr unsigned NumBuckets = 65;
  Bucket Buckets[NumBuckets];
  size_t Head = 0;          ///< bucket 0's entries before Head are taken
  uint64_t Last = 0;        ///< the last minimum: every entry of the buckets is at or after it
  std::vector<Entry> Early; ///< a binary heap of entries pushed before Last
  size_t Size = 0;
};

} // namespace mpiete::estimator

#endif
