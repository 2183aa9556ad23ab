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
  FlatMap() { rehash(16); }

  V *find(uint64_t Key) {
    for (size_t I = home(Key);; I = (I + 1) & Mask) {
      if (!Used[I])
        return nullptr;
      if (Keys[I] == Key)
        return &Vals[I];
    }
  }
  const V *find(uint64_t Key) const { return const_cast<FlatMap *>(this)->find(Key); }

  /// The value under Key, inserted as Init if absent.
  V &getOrInsert(uint64_t Key, const V &Init, bool *Inserted = nullptr) {
    if ((Count + 1) * 4 > Keys.size() * 3)
      rehash(Keys.size() * 2);
    size_t I = home(Key);
    for (; Used[I]; I = (I + 1) & Mask)
      if (Keys[I] == Key) {
        if (Inserted)
          *Inserted = false;
        return Vals[I];
      }
    Used[I] = 1;
    Keys[I] = Key;
    Vals[I] = Init;
    ++Count;
    if (Inserted)
      *Inserted = true;
    return Vals[I];
  }

  /// Backward-shift deletion keeps probe sequences intact without tombstones.
  bool erase(uint64_t Key) {
    size_t I = home(Key);
    for (;; I = (I + 1) & Mask) {
      if (!Used[I])
        return false;
      if (Keys[I] == Key)
        break;
    }
    Used[I] = 0;
    --Count;
    for (size_t J = (I + 1) & Mask; Used[J]; J = (J + 1) & Mask) {
      size_t H = home(Keys[J]);
      // Entry J may move into the hole at I unless its home lies cyclically in (I, J].
      bool Stays = I <= J ? (I < H && H <= J) : (I < H || H <= J);
      if (Stays)
        continue;
      Keys[I] = Keys[J];
      Vals[I] = Vals[J];
      Used[I] = 1;
      Used[J] = 0;
      I = J;
    }
    return true;
  }

  size_t size() const { return Count; }

  template <typename F> void forEach(F &&Fn) const {
    for (size_t I = 0; I < Keys.size(); ++I)
      if (Used[I])
        Fn(Keys[I], Vals[I]);
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
    std::vector<uint64_t> OldKeys = std::move(Keys);
    std::vector<V> OldVals = std::move(Vals);
    std::vector<uint8_t> OldUsed = std::move(Used);
    Keys.assign(NewSize, 0);
    Vals.assign(NewSize, V());
    Used.assign(NewSize, 0);
    Mask = NewSize - 1;
    Count = 0;
    for (size_t I = 0; I < OldKeys.size(); ++I)
      if (OldUsed[I])
        getOrInsert(OldKeys[I], OldVals[I]);
  }

  std::vector<uint64_t> Keys;
  std::vector<V> Vals;
  std::vector<uint8_t> Used;
  size_t Count = 0;
  size_t Mask = 0;
};

} // namespace mpiete::estimator

#endif
