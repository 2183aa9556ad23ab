// One unit's outputs, all or nothing (UnitOutputs.h).
#include "mpiete/tools/UnitOutputs.h"

#include "mpiete/basedata/BlockMap.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/support/Version.h"
#include "mpiete/transforms/FortranEdits.h"
#include "mpiete/transforms/Instrument.h"
#include "mpiete/transforms/Skeleton.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

namespace mpiete {
namespace {

std::optional<std::string> variantText(const UnitModel &Model, const std::string &Text,
                                       const std::string &Program, Variant V, bool SampleHooks,
                                       DiagnosticSink &Diags) {
  std::string Error;
  auto Out = Model.Language == "fortran" ? instrumentFortran(Model, Text, V, Error, SampleHooks)
                                         : instrumentedText(Model, Text, V, Error, SampleHooks);
  if (!Out)
    Diags.error({Program, 0, 0},
                "conflicting edits in the " + std::string(toString(V)) + " variant: " + Error,
                "edit-conflict");
  return Out;
}

std::string blockMapText(const UnitModel &Model, const std::string &Program) {
  BlockMap Map;
  Map.Program = Program;
  Map.Tool = std::string("mpiete ") + MPIETE_VERSION;
  Map.Date = isoDateNow();
  Map.Units.push_back(Model);
  std::ostringstream OS;
  writeBlockMap(OS, Map);
  return OS.str();
}

/// Writes every (path, text) to path.tmp, then renames them all; on a failure removes what it
/// staged and reports the path.
bool writeAll(const std::vector<std::pair<std::string, std::string>> &Files,
              DiagnosticSink &Diags) {
  std::vector<std::string> Staged;
  auto fail = [&](const std::string &Path) {
    for (const std::string &T : Staged)
      std::remove(T.c_str());
    Diags.error({Path, 0, 0}, "cannot write file", "driver");
    return false;
  };
  for (const auto &[Path, Text] : Files) {
    std::string Tmp = Path + ".tmp";
    std::ofstream OS(Tmp, std::ios::binary);
    if (OS)
      Staged.push_back(Tmp);
    OS << Text;
    OS.close();
    if (!OS)
      return fail(Path);
  }
  for (size_t I = 0; I < Files.size(); ++I)
    if (std::rename(Staged[I].c_str(), Files[I].first.c_str()) != 0)
      return fail(Files[I].first);
  return true;
}

} // namespace

bool writeNativeNote(const std::string &Path, const std::string &Reason, DiagnosticSink &Diags) {
  return writeAll({{Path, "native: " + Reason + "\n"}}, Diags);
}

bool writeUnitOutputs(const UnitModel &Model, const std::string &Text, const std::string &Program,
                      const UnitOutputs &Out, std::ostream &OS, DiagnosticSink &Diags) {
  const bool Samples =
      Out.SampleHooks && std::any_of(Model.Computes.begin(), Model.Computes.end(),
                                     [](const ComputeEdits &E) { return E.SampledLoop; });
  if (!Out.toFiles()) {
    if (Out.Show == UnitOutputs::Print::Blocks) {
      OS << blockMapText(Model, Program);
      return true;
    }
    if (Out.Show == UnitOutputs::Print::Skeleton) {
      std::string Error;
      auto Made = skeletonText(Model, Text, Error);
      if (!Made)
        Diags.error({Program, 0, 0}, "conflicting edits in the skeleton variant: " + Error,
                    "edit-conflict");
      else
        OS << *Made;
      return Made.has_value();
    }
    Variant V = Out.Show == UnitOutputs::Print::Timing ? Variant::Timing : Variant::Trace;
    auto Made = variantText(Model, Text, Program, V, Out.SampleHooks, Diags);
    if (Made)
      OS << *Made;
    return Made.has_value();
  }
  if (!Out.NativeOut.empty()) {
    // A unit with no MPI call is built natively, unless its timing variant samples a loop of
    // pure computation (docs/probes.md, "Sampled loops"): kernels are usually in such files;
    // nor is a Fortran unit that marks a task of a task farm (docs/taskfarm.md).
    if (Model.Sites.empty() && !Samples && Model.Tasks.empty())
      return writeNativeNote(Out.NativeOut, "no MPI calls", Diags);
    std::remove(Out.NativeOut.c_str()); // a note of an earlier build
  }
  std::vector<std::pair<std::string, std::string>> Files;
  for (auto [Path, V] :
       {std::pair{&Out.TraceOut, Variant::Trace}, std::pair{&Out.TimingOut, Variant::Timing}}) {
    if (Path->empty())
      continue;
    auto Made = variantText(Model, Text, Program, V, Out.SampleHooks, Diags);
    if (!Made)
      return false;
    Files.emplace_back(*Path, std::move(*Made));
  }
  if (!Out.SkeletonOut.empty()) {
    std::string Error;
    auto Made = skeletonText(Model, Text, Error);
    UnitModel Whole;
    if (!Made && Model.Language == "fortran") {
      // The slice's edits do not fit the text (a bug): the full trace variant serves.
      Diags.warning({Program, 0, 0},
                    "the skeleton trace probe keeps this file whole: its removals conflict (" +
                        Error + "); please report this with the file",
                    "skeleton");
      Whole = Model;
      Whole.SkeletonRemovals.clear();
      Whole.SliceRemovedStatements = 0;
      Made = variantText(Model, Text, Program, Variant::Trace, Out.SampleHooks, Diags);
      if (!Made)
        return false;
    }
    if (!Made) {
      Diags.error({Program, 0, 0}, "conflicting edits in the skeleton variant: " + Error,
                  "edit-conflict");
      return false;
    }
    Files.emplace_back(Out.SkeletonOut, std::move(*Made));
    Files.emplace_back(Out.SkeletonOut + ".removed",
                       skeletonRemovalList(Whole.Source.empty() ? Model : Whole));
  }
  if (!Out.BlocksOut.empty())
    Files.emplace_back(Out.BlocksOut, blockMapText(Model, Program));
  return writeAll(Files, Diags);
}

} // namespace mpiete
