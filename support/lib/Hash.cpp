// Hex formatting for ids and fingerprints.
#include "mpiete/support/Hash.h"

namespace mpiete {

std::string toHex(uint64_t V, unsigned Digits) {
  static constexpr char Hex[] = "0123456789abcdef";
  std::string S(Digits, '0');
  for (unsigned I = 0; I < Digits; ++I) {
    S[Digits - 1 - I] = Hex[V & 0xf];
    V >>= 4;
  }
  return S;
}

} // namespace mpiete
