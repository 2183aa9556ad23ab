// Stable, platform-independent hashes for block ids and program fingerprints.
#ifndef MPIETE_SUPPORT_HASH_H
#define MPIETE_SUPPORT_HASH_H

#include <cstdint>
#include <string>
#include <string_view>

namespace mpiete {

/// FNV-1a, 64 bit: identical on every machine and compiler, which block ids require.
class Fnv1a64 {
public:
  Fnv1a64 &add(std::string_view Bytes) {
    for (unsigned char C : Bytes) {
      State ^= C;
      State *= 0x100000001b3ULL;
    }
    return *this;
  }
  /// Adds a field and a separator, so ("ab","c") and ("a","bc") differ.
  Fnv1a64 &field(std::string_view Bytes) {
    add(Bytes);
    State ^= 0xff;
    State *= 0x100000001b3ULL;
    return *this;
  }
  uint64_t value() const { return State; }
  /// Folds to 32 bits for unit ids.
  uint32_t value32() const { return static_cast<uint32_t>(State ^ (State >> 32)); }

private:
  uint64_t State = 0xcbf29ce484222325ULL;
};

std::string toHex(uint64_t V, unsigned Digits);

} // namespace mpiete

#endif
