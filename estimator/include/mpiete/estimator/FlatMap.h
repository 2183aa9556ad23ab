// Open-addressing hash map from 64-bit keys: the estimator's lookups on the hot path (requests,
// matching spaces, channels, blocks) allocate only while growing, never per event.
#ifndef MPIETE_ESTIMATOR_FLATMAP_H
#define MPIETE_ESTIMATOR_FLATMAP_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mpiete::estimator {

template <typename V> class FlatMap {
public:
  /// Allocates nothing until the first insertion: an engine at 10^6 ranks has several maps per
  /// rank, most never used.
  FlatMap() = default;

  V *find(uint64_t Key) {
    if (Slots.empty())
      return nullptr;
    for (size_t I = home(Key);; I = (I + 1) & Mask) {
      Slot &E = Slots[I];
      if (!E.Used)
        return nullptr;
      if (E.Key == Key)
        return &E.Val;
    }
  }
  const V *find(uint64_t Key) const { return const_cast<FlatMap *>(this)->find(Key); }

  /// The value under Key, inserted as Init if absent.
  V &getOrInsert(uint64_t Key, const V &Init, bool *Inserted = nullptr) {
    if ((Count + 1) * 4 > Slots.size() * 3)
      rehash(Slots.empty() ? 16 : Slots.size() * 2);
    size_t I = home(Key);
    for (; Slots[I].Used; I = (I + 1) & Mask)
      if (Slots[I].Key == Key) {
        if (Inserted)
          *Inserted = false;
        return Slots[I].Val;
      }
    Slot &E = Slots[I];
    E.Used = 1;
    E.Key = Key;
    E.Val = Init;
    ++Count;
    if (Inserted)
      *Inserted = true;
    return E.Val;
  }

  /// Backward-shift deletion keeps probe sequences intact without tombstones.
  bool erase(uint64_t Key) {
    if (Slots.empty())
      return false;
    size_t I = home(Key);
    for (;; I = (I + 1) & Mask) {
      if (!Slots[I].Used)
        return false;
      if (Slots[I].Key == Key)
        break;
    }
    Slots[I].Used = 0;
    --Count;
    for (size_t J = (I + 1) & Mask; Slots[J].Used; J = (J + 1) & Mask) {
      size_t H = home(Slots[J].Key);
      // Entry J may move into the hole at I unless its home lies cyclically in (I, J].
      bool Stays = I <= J ? (I < H && H <= J) : (I < H || H <= J);
      if (Stays)
        continue;
      Slots[I] = Slots[J];
      Slots[J].Used = 0;
      I = J;
    }
    return true;
  }

  size_t size() const { return Count; }

  template <typename F> void forEach(F &&Fn) const {
    for (const Slot &E : Slots)
      if (E.Used)
        Fn(E.Key, E.Val);
  }

private:
  static uint64_t mix(uint64_t X) {
    X ^= X >> 30;
    X *= 0xbf58476d1ce4e5b9ULL;
    X ^= X >> 27;
    X *= 0x94d049bb133111ebULL;
    return X ^ (X >> 31);
  }
  size_t home(uint64_t Key) const { return mix(Key) & Mask; }

  void rehash(size_t NewSize) {
    std::vector<Slot> Old = std::move(Slots);
    Slots.assign(NewSize, Slot());
    Mask = NewSize - 1;
    Count = 0;
    for (const Slot &E : Old)
      if (E.Used)
        getOrInsert(E.Key, E.Val);
  }

  /// Key, value and flag side by side: a look-up touches one cache line, not three (at 10^5
  /// ranks the per-rank maps are out of the caches).
  struct Slot {
    uint64_t Key = 0;
    V Val = V();
    uint8_t Used = 0;
  };
  std::vector<Slot> Slots;
  size_t Count = 0;
  size_t Mask = 0;
};

} // namespace mpiete::estimator

#endif
