// Block ids, the key every file and component shares: make, split, format, parse, reserved ids.
//
// A block id is 64 bits: the translation unit's 32-bit id in the high half, the block's index in
// the unit in the low half (MPIETE_ID in instrument.h is the same for C). Its readable form,
// in every file and dump, is `<unit as 8 lower-case hex digits>:<index in decimal>`, e.g.
// `0aa758c0:11` (docs/runtime-abi.md).
//
// Header-only and allocation-free except for the std::string overload, so the runtime (built
// with -fno-exceptions, no allocation on its error paths) formats ids with the same code as
// the tools.
#ifndef MPIETE_BLOCKID_H
#define MPIETE_BLOCKID_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mpiete {

constexpr uint64_t makeBlockId(uint32_t Unit, uint32_t Index) {
  return (static_cast<uint64_t>(Unit) << 32) | Index;
}
constexpr uint32_t blockUnit(uint64_t Id) { return static_cast<uint32_t>(Id >> 32); }
constexpr uint32_t blockIndex(uint64_t Id) { return static_cast<uint32_t>(Id); }

/// A Fortran MPI call that passes no ierror (optional with `use mpi_f08`): the instrumenter
/// writes its block index as -(index + 1), and the runtime's entry point then writes no error
/// code. Every other written index (hooks, calls with ierror, the pseudo sites) is >= 0.
constexpr int64_t noErrorIndex(uint32_t Index) { return -static_cast<int64_t>(Index) - 1; }
/// The block index a Fortran entry point was given as Written (either form above).
constexpr uint32_t writtenIndex(int32_t Written) {
  return static_cast<uint32_t>(Written < 0 ? -(static_cast<int64_t>(Written) + 1) : Written);
}

//===-- Reserved ids ------------------------------------------------------------------------===//

/// The unit no translation unit gets: the pseudo call sites of MPI calls made by code mpiete-cc
/// did not build (runtime/lib/Interpose.cpp), and the runtime's own blocks. A unit id is a
/// 32-bit hash, so a real unit could in principle collide with it; the block map never names it.
inline constexpr uint32_t ReservedUnit = 0xffffffffu;

/// Routines called from uninstrumented code: routine number N of routines.def gets the site
/// `ffffffff:4N` (a SEND site owns two ids, a SENDRECV site three: four each leaves room).
inline constexpr uint32_t UninstrumentedSiteStride = 4;
constexpr uint64_t uninstrumentedSite(uint32_t Routine) {
  return makeBlockId(ReservedUnit, Routine * UninstrumentedSiteStride);
}

/// The block the timing variant's calibration runs its nested hooks under; never written to an
/// output file.
inline constexpr uint64_t CalibrationBlock = makeBlockId(ReservedUnit, 0xfffffffeu);

/// The communicator calls of one-sided windows passed through uninstrumented
/// (--mpiete-pass-through): created, fenced and freed collectively under the token machine.
inline constexpr uint64_t WindowCallBlock = makeBlockId(ReservedUnit, 0xfffffff0u);

/// The collective MPI-IO calls (MPI_File_open, MPI_File_write_all, ...): run by all members of
/// the file's communicator at once under the token machine (runtime/lib/Interpose.cpp).
inline constexpr uint64_t FileCallBlock = makeBlockId(ReservedUnit, 0xfffffff2u);

/// The segment key's `from` before a rank's first MPI call: the computation from the process's
/// start to its first MPI call is the segment ProgramStart -> that call's site.
inline constexpr uint64_t ProgramStart = makeBlockId(ReservedUnit, 0xfffffff1u);

constexpr bool isReservedBlock(uint64_t Id) { return blockUnit(Id) == ReservedUnit; }

//===-- Readable form -----------------------------------------------------------------------===//

/// Room for the longest readable id and its terminating NUL: `ffffffff:4294967295`.
inline constexpr size_t BlockIdBufferSize = 20;

/// Writes Id's readable form into Buf (Size bytes, NUL-terminated, cut short if Size is below
/// BlockIdBufferSize) and returns its full length, as snprintf does.
inline size_t formatBlockId(uint64_t Id, char *Buf, size_t Size) {
  char Text[BlockIdBufferSize];
  size_t Len = 0;
  const uint32_t Unit = blockUnit(Id);
  for (int Shift = 28; Shift >= 0; Shift -= 4)
    Text[Len++] = "0123456789abcdef"[(Unit >> Shift) & 0xf];
  Text[Len++] = ':';
  char Digits[10];
  size_t NDigits = 0;
  uint32_t Index = blockIndex(Id);
  do {
    Digits[NDigits++] = static_cast<char>('0' + Index % 10);
    Index /= 10;
  } while (Index != 0);
  while (NDigits != 0)
    Text[Len++] = Digits[--NDigits];
  if (Size != 0) {
    const size_t Copied = Len < Size - 1 ? Len : Size - 1;
    for (size_t I = 0; I < Copied; ++I)
      Buf[I] = Text[I];
    Buf[Copied] = '\0';
  }
  return Len;
}

inline std::string formatBlockId(uint64_t Id) {
  char Buf[BlockIdBufferSize];
  const size_t Len = formatBlockId(Id, Buf, sizeof Buf);
  return std::string(Buf, Len);
}

/// Reads a readable id. The one rule: exactly 8 hex digits (either case), ':', then at least
/// one decimal digit, the value fitting 32 bits; nothing before or after. Exactly 8 (what
/// formatBlockId writes) so that an id is never mistaken for FILE:LINE, as `abc:12` or
/// `cafe:3` would be.
constexpr std::optional<uint64_t> parseBlockId(std::string_view S) {
  if (S.size() < 10 || S[8] != ':')
    return std::nullopt;
  uint32_t Unit = 0;
  for (size_t I = 0; I < 8; ++I) {
    const char C = S[I];
    const int D = C >= '0' && C <= '9'   ? C - '0'
                  : C >= 'a' && C <= 'f' ? C - 'a' + 10
                  : C >= 'A' && C <= 'F' ? C - 'A' + 10
                                         : -1;
    if (D < 0)
      return std::nullopt;
    Unit = Unit << 4 | static_cast<uint32_t>(D);
  }
  uint64_t Index = 0;
  for (size_t I = 9; I < S.size(); ++I) {
    if (S[I] < '0' || S[I] > '9')
      return std::nullopt;
    Index = Index * 10 + static_cast<uint64_t>(S[I] - '0');
    if (Index > 0xffffffffULL)
      return std::nullopt;
  }
  return makeBlockId(Unit, static_cast<uint32_t>(Index));
}

} // namespace mpiete

#endif // MPIETE_BLOCKID_H
