// The block map in a program directory: block descriptions and FILE:LINE region bounds.
#include "mpiete/estimator/ProgramBlocks.h"

#include "mpiete/basedata/BlockMap.h"
#include "mpiete/basedata/MachineFile.h"

#include <filesystem>

namespace mpiete::estimator {

namespace {
const char *const RoutineNames[] = {
#define MPIETE_ROUTINE(MpiName, RuntimeName, Role, Params, Args) #MpiName,
#include "mpiete/routines.def"
};
} // namespace

std::string uninstrumentedRoutine(BlockId Site) {
  if (!isReservedBlock(Site) || blockIndex(Site) % UninstrumentedSiteStride != 0)
    return "";
  const uint32_t N = blockIndex(Site) / UninstrumentedSiteStride;
  return N < sizeof RoutineNames / sizeof RoutineNames[0] ? RoutineNames[N] : "";
}

ProgramBlockMap loadProgramBlockMap(const std::string &ProgramDir, DiagnosticSink &Diags) {
  ProgramBlockMap Out;
  Out.Path = (std::filesystem::path(ProgramDir) / "blocks.yaml").string();
  Out.Present = std::filesystem::exists(Out.Path);
  if (Out.Present && !readBlockMap(Out.Path, Out.Map, Diags)) {
    Out.Ok = false;
    Out.Map = BlockMap();
  }
  return Out;
}

void SiteNames::load(const BlockMap &Map) {
  for (const UnitModel &U : Map.Units)
    for (const Block &B : U.Blocks) {
      Site &S = Sites[U.blockId(B.Index)];
      S.File = B.File;
      S.Line = B.BeginLine;
      S.Routine = B.Routine;
      S.Procedure = B.Procedure;
      for (unsigned L : B.Loops)
        if (L < U.Loops.size())
          S.Loops.push_back(B.File + ":" + std::to_string(U.Loops[L].Line));
    }
}

std::string SiteNames::site(BlockId Id) const {
  if (isReservedBlock(Id)) {
    if (Id == FileCallBlock)
      return "a collective MPI-IO call";
    if (Id == WindowCallBlock)
      return "a one-sided window call";
    std::string R = uninstrumentedRoutine(Id);
    // The other reserved id a segment starts after is the start of the program.
    return R.empty() ? "program start" : R + " (uninstrumented)";
  }
  auto It = Sites.find(Id);
  if (It == Sites.end())
    return formatBlock(Id);
  const Site &S = It->second;
  std::string Out = S.File + ":" + std::to_string(S.Line);
  if (!S.Routine.empty())
    Out += " (" + S.Routine + ")";
  return Out;
}

std::string SiteNames::segment(BlockId From, BlockId To) const {
  std::string Out = site(From) + " -> " + site(To);
  auto F = Sites.find(From), T = Sites.find(To);
  if (T == Sites.end())
    return Out;
  const Site &End = T->second;
  if (!End.Procedure.empty()) {
    Out += " in ";
    if (F != Sites.end() && !F->second.Procedure.empty() && F->second.Procedure != End.Procedure)
      Out += F->second.Procedure + " -> ";
    Out += End.Procedure;
  }
  // The innermost loop holding both ends (the end's, when the start is elsewhere).
  std::string Loop;
  if (F != Sites.end() && blockUnit(From) == blockUnit(To)) {
    for (size_t I = 0; I < End.Loops.size() && I < F->second.Loops.size(); ++I)
      if (End.Loops[I] == F->second.Loops[I])
        Loop = End.Loops[I];
  } else if (!End.Loops.empty()) {
    Loop = End.Loops.back();
  }
  if (!Loop.empty())
    Out += ", loop " + Loop;
  return Out;
}

std::map<BlockId, std::string> blockDescriptions(const BlockMap &Map) {
  std::map<BlockId, std::string> Out;
  for (const UnitModel &U : Map.Units)
    for (const Block &B : U.Blocks) {
      std::string D = B.File + ":" + std::to_string(B.BeginLine);
      if (B.EndLine != B.BeginLine)
        D += "-" + std::to_string(B.EndLine);
      D += " " + B.Procedure;
      if (!B.Routine.empty())
        D += ": " + B.Routine + (B.Phase.empty() ? "" : " (" + B.Phase + ")");
      else if (B.WholeLoop)
        D += ": loop";
      Out[U.blockId(B.Index)] = std::move(D);
    }
  return Out;
}

std::optional<BlockId> regionBlock(const std::string &Spec, bool IsStart,
                                   const ProgramBlockMap &Blocks, DiagnosticSink &Diags) {
  BlockId Id;
  if (parseBlockId(Spec, Id))
    return Id;
  const DiagLoc Tool{"mpiete estimate", 0, 0};
  size_t Colon = Spec.rfind(':');
  unsigned Line = 0;
  if (Colon == std::string::npos || Colon + 1 == Spec.size() ||
      Spec.find_first_not_of("0123456789", Colon + 1) != std::string::npos ||
      (Line = unsigned(std::stoul(Spec.substr(Colon + 1)))) == 0) {
    Diags.error(Tool,
                "bad region bound '" + Spec +
                    "' (a block id such as 0aa758c0:11, or "
                    "FILE:LINE)",
                "usage");
    return std::nullopt;
  }
  std::string File = Spec.substr(0, Colon);
  const std::string &MapPath = Blocks.Path;
  const BlockMap &Map = Blocks.Map;
  if (!Blocks.Present) {
    Diags.error(Tool,
                "a FILE:LINE region bound needs the block map '" + MapPath +
                    "' (probe-program copies it there)",
                "usage");
    return std::nullopt;
  }
  if (!Blocks.Ok)
    return std::nullopt;
  auto SameFile = [&](const std::string &Path) {
    std::filesystem::path A = Path, B = File;
    return A == B || (A.filename() == B.filename() &&
                      (B.parent_path().empty() || A.string().ends_with(B.string())));
  };
  std::optional<BlockId> Holding, Beside, Call;
  unsigned BesideLine = 0;
  for (const UnitModel &U : Map.Units)
    for (const Block &B : U.Blocks) {
      // A loop's block names its iteration hooks (a loop with MPI calls, an opaque or a sampled
      // one), which no trace records as an event: a line inside it means the calls around.
      if (!SameFile(B.File) || B.Kind == BlockKind::Init || B.Kind == BlockKind::Finalize ||
          B.Kind == BlockKind::Loop)
        continue;
      BlockId Id = U.blockId(B.Index);
      if (B.BeginLine <= Line && Line <= B.EndLine) {
        if (!B.Routine.empty() && (!Call || !IsStart))
          Call = Id;
        if (!Holding || !IsStart)
          Holding = Id; // blocks come in source order: the first for a start, the last for an end
      } else if (IsStart && B.BeginLine > Line && (!Beside || B.BeginLine < BesideLine)) {
        Beside = Id;
        BesideLine = B.BeginLine;
      } else if (!IsStart && B.EndLine < Line && (!Beside || B.EndLine >= BesideLine)) {
        Beside = Id;
        BesideLine = B.EndLine;
      }
    }
  if (Call)
    return Call;
  if (Holding)
    return Holding;
  if (Beside)
    return Beside;
  Diags.error(Tool,
              "no block at or " + std::string(IsStart ? "after" : "before") + " '" + Spec +
                  "' in the block map '" + MapPath + "'",
              "usage");
  return std::nullopt;
}

} // namespace mpiete::estimator
