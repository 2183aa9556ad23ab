// mpiete-instrument: reads one C unit and writes its trace and timing variants and block map.
#include "mpiete/frontend/BlockMap.h"
#include "mpiete/frontend/CFrontend.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/support/Version.h"
#include "mpiete/transforms/Instrument.h"

#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#ifndef MPIETE_CLANG_RESOURCE_DIR
#define MPIETE_CLANG_RESOURCE_DIR ""
#endif

static const char *const Help = R"(usage: mpiete-instrument [options] SOURCE.c -- [compiler flags]

Reads a C translation unit with the user's flags (-I -D -U -include -std ...) and writes its
instrumented variants (the user's text with edits at known positions) and its block map.

  --variant=trace|timing   print that variant on stdout (when no -out option is given)
  --blocks                 print the block map on stdout instead
  --trace-out=FILE         write the trace variant
  --timing-out=FILE        write the timing variant
  --blocks-out=FILE        write the unit's block map (YAML)
  --unit-path=PATH         the path recorded for the unit (default: SOURCE as given)
  --pass-through=MPI_X     leave this unsupported routine uninstrumented (repeatable)
  --pass-through-all       leave every unsupported routine uninstrumented

Example:
  mpiete-instrument --variant=trace ring.c -- -I/usr/lib/x86_64-linux-gnu/openmpi/include
)";

namespace {

bool writeFile(const std::string &Path, const std::string &Text, mpiete::DiagnosticSink &Diags) {
  std::string Tmp = Path + ".tmp";
  {
    std::ofstream OS(Tmp, std::ios::binary);
    OS << Text;
    if (!OS) {
      Diags.error({Path, 0, 0}, "cannot write file", "driver");
      return false;
    }
  }
  if (std::rename(Tmp.c_str(), Path.c_str()) != 0) {
    Diags.error({Path, 0, 0}, "cannot write file", "driver");
    return false;
  }
  return true;
}

} // namespace

int main(int Argc, char **Argv) {
  mpiete::DiagnosticSink Diags(std::cerr);
  mpiete::CFrontendOptions Opts;
  Opts.ResourceDir = MPIETE_CLANG_RESOURCE_DIR;
  std::string Source, TraceOut, TimingOut, BlocksOut;
  std::optional<mpiete::Variant> Print;
  bool PrintBlocks = false;
  std::vector<std::string> Flags;
  bool AfterDashes = false;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    if (AfterDashes) {
      Flags.push_back(A);
    } else if (A == "--") {
      AfterDashes = true;
    } else if (A == "--help" || A == "-h") {
      std::cout << Help;
      return 0;
    } else if (A == "--variant=trace") {
      Print = mpiete::Variant::Trace;
    } else if (A == "--variant=timing") {
      Print = mpiete::Variant::Timing;
    } else if (A == "--blocks") {
      PrintBlocks = true;
    } else if (A.starts_with("--trace-out=")) {
      TraceOut = A.substr(12);
    } else if (A.starts_with("--timing-out=")) {
      TimingOut = A.substr(13);
    } else if (A.starts_with("--blocks-out=")) {
      BlocksOut = A.substr(13);
    } else if (A.starts_with("--unit-path=")) {
      Opts.UnitPath = A.substr(12);
    } else if (A.starts_with("--pass-through=")) {
      Opts.PassThrough.push_back(A.substr(15));
    } else if (A == "--pass-through-all") {
      Opts.PassThroughAll = true;
    } else if (!A.starts_with("-") && Source.empty()) {
      Source = A;
    } else {
      Diags.error({"mpiete-instrument", 0, 0}, "unknown option '" + A + "' (see --help)",
                  "driver");
      return 2;
    }
  }
  if (Source.empty()) {
    Diags.error({"mpiete-instrument", 0, 0}, "no source file given (see --help)", "driver");
    return 2;
  }

  mpiete::UnitModel Model;
  std::string Text;
  if (!mpiete::analyzeC(Source, Flags, Opts, Model, Text, Diags))
    return 1;

  mpiete::BlockMap Map;
  Map.Program = Source;
  Map.Tool = std::string("mpiete ") + MPIETE_VERSION;
  Map.Date = mpiete::isoDateNow();
  Map.Units.push_back(Model);

  auto variantText = [&](mpiete::Variant V) -> std::optional<std::string> {
    std::string Error;
    auto Out = mpiete::instrumentedText(Model, Text, V, Error);
    if (!Out)
      Diags.error({Source, 0, 0},
                  "conflicting edits in the " + std::string(mpiete::toString(V)) +
                      " variant: " + Error,
                  "edit-conflict");
    return Out;
  };

  bool ToFiles = !TraceOut.empty() || !TimingOut.empty() || !BlocksOut.empty();
  if (!ToFiles) {
    if (PrintBlocks) {
      mpiete::writeBlockMap(std::cout, Map);
      return 0;
    }
    auto Out = variantText(Print.value_or(mpiete::Variant::Trace));
    if (!Out)
      return 1;
    std::cout << *Out;
    return 0;
  }
  // Every output or none: a unit is instrumented completely or not at all.
  std::optional<std::string> Trace, Timing;
  if (!TraceOut.empty() && !(Trace = variantText(mpiete::Variant::Trace)))
    return 1;
  if (!TimingOut.empty() && !(Timing = variantText(mpiete::Variant::Timing)))
    return 1;
  if (Trace && !writeFile(TraceOut, *Trace, Diags))
    return 1;
  if (Timing && !writeFile(TimingOut, *Timing, Diags))
    return 1;
  if (!BlocksOut.empty()) {
    std::ostringstream OS;
    mpiete::writeBlockMap(OS, Map);
    if (!writeFile(BlocksOut, OS.str(), Diags))
      return 1;
  }
  return 0;
}
