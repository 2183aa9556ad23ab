// Names and unit hashing of the program model.
#include "mpiete/basedata/ProgramModel.h"

#include "mpiete/support/Hash.h"

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
  case BlockKind::Loop:
    return "loop";
  }
  return "?";
}

std::optional<BlockKind> parseBlockKind(std::string_view S) {
  for (BlockKind K : {BlockKind::Compute, BlockKind::Comm, BlockKind::Wait, BlockKind::Collective,
                      BlockKind::CommMgmt, BlockKind::Init, BlockKind::Finalize, BlockKind::Loop})
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
  case MpiRole::ICollective:
    return "icollective";
  }
  return "?";
}

uint32_t computeUnitId(std::string_view Source, const std::vector<std::string> &Defines) {
  Fnv1a64 H;
  H.field(Source);
  for (const std::string &D : Defines)
    H.field(D);
  return H.value32();
}

} // namespace mpiete
