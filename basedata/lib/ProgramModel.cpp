// Names, ids and unit hashing of the program model.
#include "mpiete/basedata/ProgramModel.h"

#include "mpiete/support/Hash.h"

#include <charconv>

namespace mpiete {

std::string_view toString(BlockKind K) {
  switch (K) {
  case BlockKind::Compute:
    return "compute";
  case BlockKind::Comm:
    return "comm";
  case BlockKind::Wait:
    return "wait";
  case BlockKind::Collective:
    return "collective";
  case BlockKind::CommMgmt:
    return "comm-mgmt";
  case BlockKind::Init:
    return "init";
  case BlockKind::Finalize:
    return "finalize";
  }
  return "?";
}

std::optional<BlockKind> parseBlockKind(std::string_view S) {
  for (BlockKind K : {BlockKind::Compute, BlockKind::Comm, BlockKind::Wait, BlockKind::Collective,
                      BlockKind::CommMgmt, BlockKind::Init, BlockKind::Finalize})
    if (toString(K) == S)
      return K;
  return std::nullopt;
}

std::string_view toString(MpiRole R) {
  switch (R) {
  case MpiRole::Init:
    return "init";
  case MpiRole::Finalize:
    return "finalize";
  case MpiRole::Send:
    return "send";
  case MpiRole::Recv:
    return "recv";
  case MpiRole::SendRecv:
    return "sendrecv";
  case MpiRole::Start:
    return "start";
  case MpiRole::Wait:
    return "wait";
  case MpiRole::Probe:
    return "probe";
  case MpiRole::Collective:
    return "collective";
  case MpiRole::Comm:
    return "comm";
  }
  return "?";
}

std::string formatBlockId(uint64_t Id) {
  return toHex(Id >> 32, 8) + ":" + std::to_string(static_cast<uint32_t>(Id));
}

std::optional<uint64_t> parseBlockId(std::string_view S) {
  size_t Colon = S.find(':');
  if (Colon != 8)
    return std::nullopt;
  uint32_t Unit = 0, Index = 0;
  auto R1 = std::from_chars(S.data(), S.data() + 8, Unit, 16);
  if (R1.ec != std::errc() || R1.ptr != S.data() + 8)
    return std::nullopt;
  auto R2 = std::from_chars(S.data() + 9, S.data() + S.size(), Index, 10);
  if (R2.ec != std::errc() || R2.ptr != S.data() + S.size() || S.size() == 9)
    return std::nullopt;
  return makeBlockId(Unit, Index);
}

uint32_t computeUnitId(std::string_view Source, const std::vector<std::string> &Defines) {
  Fnv1a64 H;
  H.field(Source);
  for (const std::string &D : Defines)
    H.field(D);
  return H.value32();
}

} // namespace mpiete
