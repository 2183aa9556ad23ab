// An open-addressing hash map from MPI handles (communicators, requests) to small trivially
// copyable records: linear probing, backward-shift deletion, grows by doubling. Only growth
// allocates, so steady-state inserts and erases on the runtime's paths never do.
//
// Duplicate keys are allowed (Open MPI hands out one shared handle for every request to
// MPI_PROC_NULL): find() and erase() take the oldest entry of a key, since linear probing keeps
// the insertion order of entries sharing a home slot, and backward shifts preserve it.
#ifndef MPIETE_RUNTIME_HANDLEMAP_H
#define MPIETE_RUNTIME_HANDLEMAP_H

#include "Recorder.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace mpiete {

/// A handle's bits as a key (MPI handles are pointers in Open MPI, ints in MPICH).
template <class Handle> uint64_t handleKey(Handle H) {
  static_assert(sizeof(Handle) <= sizeof(uint64_t), "MPI handle wider than 64 bits");
  uint64_t Key = 0;
  std::memcpy(&Key, &H, sizeof H);
  return Key;
}

template <class V> class HandleMap {
  static_assert(std::is_trivially_copyable_v<V>, "HandleMap values are moved with memcpy");

public:
  /// The oldest value stored under Key, or nullptr. Valid until the next insert or erase.
  V *find(uint64_t Key) {
    if (Capacity == 0)
      return nullptr;
    const size_t Mask = Capacity - 1;
    for (size_t I = hash(Key) & Mask; Slots[I].Used; I = (I + 1) & Mask)
      if (Slots[I].Key == Key)
        return &Slots[I].Value;
    return nullptr;
  }

  /// Adds an entry under Key (after any existing ones) and returns its value, zeroed.
  V &insert(uint64_t Key) {
    if ((Count + 1) * 2 > Capacity) [[unlikely]]
      grow();
    const size_t Mask = Capacity - 1;
    size_t I = hash(Key) & Mask;
    while (Slots[I].Used)
      I = (I + 1) & Mask;
    Slots[I].Used = true;
    Slots[I].Key = Key;
    std::memset(&Slots[I].Value, 0, sizeof(V));
    ++Count;
    return Slots[I].Value;
  }

  /// Removes the oldest entry under Key; copies its value to *Out if given. False if absent.
  bool erase(uint64_t Key, V *Out = nullptr) {
    if (Capacity == 0)
      return false;
    const size_t Mask = Capacity - 1;
    size_t I = hash(Key) & Mask;
    for (;; I = (I + 1) & Mask) {
      if (!Slots[I].Used)
        return false;
      if (Slots[I].Key == Key)
        break;
    }
    if (Out != nullptr)
      *Out = Slots[I].Value;
    // Backward shift: pull later entries of the cluster into the hole when their home slot
    // does not lie cyclically in (hole, their slot].
    for (size_t J = (I + 1) & Mask; Slots[J].Used; J = (J + 1) & Mask) {
      const size_t Home = hash(Slots[J].Key) & Mask;
      const bool Stays = I <= J ? (I < Home && Home <= J) : (I < Home || Home <= J);
      if (!Stays) {
        Slots[I] = Slots[J];
        I = J;
      }
    }
    Slots[I].Used = false;
    --Count;
    return true;
  }

  size_t size() const { return Count; }

  /// Calls Fn(Key, Value&) for every entry, in no particular order.
  template <class F> void forEach(F Fn) {
    for (size_t I = 0; I < Capacity; ++I)
      if (Slots[I].Used)
        Fn(Slots[I].Key, Slots[I].Value);
  }

private:
  struct Slot {
    uint64_t Key;
    V Value;
    bool Used;
  };

  static size_t hash(uint64_t X) { // splitmix64's finalizer
    X = (X ^ (X >> 30)) * 0xbf58476d1ce4e5b9ULL;
    X = (X ^ (X >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<size_t>(X ^ (X >> 31));
  }

  void grow() {
    const size_t NewCapacity = Capacity == 0 ? 64 : Capacity * 2;
    auto *NewSlots = static_cast<Slot *>(std::calloc(NewCapacity, sizeof(Slot)));
    if (NewSlots == nullptr)
      Recorder::get().fail("out of memory growing a handle table to %zu entries", NewCapacity);
    // Re-inserting in the old probe order from each cluster's start keeps duplicates in order.
    size_t Start = 0;
    if (Capacity != 0)
      while (Slots[Start].Used)
        Start = (Start + 1) & (Capacity - 1);
    const size_t NewMask = NewCapacity - 1;
    for (size_t K = 0; K < Capacity; ++K) {
      const Slot &S = Slots[(Start + K) & (Capacity - 1)];
      if (!S.Used)
        continue;
      size_t I = hash(S.Key) & NewMask;
      while (NewSlots[I].Used)
        I = (I + 1) & NewMask;
      NewSlots[I] = S;
    }
    std::free(Slots);
    Slots = NewSlots;
    Capacity = NewCapacity;
  }

  Slot *Slots = nullptr;
  size_t Capacity = 0; // a power of two, or 0 before the first insertion
  size_t Count = 0;
};

} // namespace mpiete

#endif // MPIETE_RUNTIME_HANDLEMAP_H
