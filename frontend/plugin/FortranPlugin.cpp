// The Flang plugin `mpiete-fortran` (flang-new -fc1 -load ... -plugin mpiete-fortran): runs
// Flang's prescanner, parser and semantics, then the Fortran frontend and transforms, and
// writes the unit's trace and timing variants and block map. Flang has no plugin arguments,
// so mpiete-instrument passes its options in $MPIETE_FORTRAN_ARGS, one per line.
#include "mpiete/frontend/BlockMap.h"
#include "mpiete/frontend/FortranFrontend.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/support/Files.h"
#include "mpiete/support/Version.h"
#include "mpiete/transforms/FortranEdits.h"

#include "flang/Frontend/CompilerInstance.h"
#include "flang/Frontend/FrontendActions.h"
#include "flang/Frontend/FrontendPluginRegistry.h"
#include "flang/Parser/parsing.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace {

struct PluginOptions {
  mpiete::FortranFrontendOptions Frontend;
  std::string TraceOut, TimingOut, BlocksOut;
  std::string Print = "trace"; ///< trace, timing or blocks, when no output file is named
};

PluginOptions readOptions() {
  PluginOptions O;
  const char *Env = std::getenv("MPIETE_FORTRAN_ARGS");
  std::istringstream IS(Env ? Env : "");
  for (std::string A; std::getline(IS, A);) {
    auto Value = [&](const char *Prefix) -> std::optional<std::string> {
      std::string P = Prefix;
      if (A.rfind(P, 0) == 0)
        return A.substr(P.size());
      return std::nullopt;
    };
    if (auto V = Value("--trace-out="))
      O.TraceOut = *V;
    else if (auto V = Value("--timing-out="))
      O.TimingOut = *V;
    else if (auto V = Value("--blocks-out="))
      O.BlocksOut = *V;
    else if (auto V = Value("--unit-path="))
      O.Frontend.UnitPath = *V;
    else if (auto V = Value("--define="))
      O.Frontend.Defines.push_back(*V);
    else if (auto V = Value("--pass-through="))
      O.Frontend.PassThrough.push_back(*V);
    else if (A == "--pass-through-all")
      O.Frontend.PassThroughAll = true;
    else if (auto V = Value("--print="))
      O.Print = *V;
  }
  return O;
}

class MpieteFortranAction : public Fortran::frontend::PluginParseTreeAction {
  bool beginSourceFileAction() override {
    Opts = readOptions();
    auto &Inv = getInstance().getInvocation();
    auto Form = Inv.getFrontendOpts().fortranForm;
    Opts.Frontend.FixedForm =
        Form == Fortran::frontend::FortranForm::FixedForm ||
        (Form == Fortran::frontend::FortranForm::Unknown && getCurrentInput().getIsFixedForm());
    int Columns = Inv.getFortranOpts().fixedFormColumns;
    Opts.Frontend.FixedColumns = Columns > 0 ? static_cast<unsigned>(Columns) : 100000;
    Opts.Frontend.ModuleDir = Inv.getModuleDir();
    Opts.Frontend.ModuleSearchDirs = Inv.getFortranOpts().searchDirectories;
    if (!runPrescan() || !runParse(/*emitMessages=*/false))
      return false;
    // Reject what mpiete cannot analyse before semantics reports a confusing error for it.
    if (!mpiete::checkFortranParseTree(getParsing(), Opts.Frontend, Diags))
      fail();
    return runSemanticChecks() && generateRtTypeTables();
  }

  void executeAction() override {
    mpiete::UnitModel Model;
    std::string Text;
    bool Analysed = mpiete::analyzeFortran(getParsing(), Opts.Frontend, Model, Text, Diags);
    flushDiags();
    if (!Analysed)
      fail();

    mpiete::BlockMap Map;
    Map.Program = Model.Source;
    Map.Tool = std::string("mpiete ") + MPIETE_VERSION;
    Map.Date = mpiete::isoDateNow();
    Map.Units.push_back(Model);

    auto variant = [&](mpiete::Variant V) -> std::string {
      std::string Error;
      auto Out = mpiete::instrumentFortran(Model, Text, V, Error);
      if (!Out) {
        Diags.error({Model.Source, 0, 0},
                    "conflicting edits in the " + std::string(mpiete::toString(V)) +
                        " variant: " + Error,
                    "edit-conflict");
        fail();
      }
      return *Out;
    };

    bool ToFiles = !Opts.TraceOut.empty() || !Opts.TimingOut.empty() || !Opts.BlocksOut.empty();
    if (!ToFiles) {
      std::ostringstream OS;
      if (Opts.Print == "blocks")
        mpiete::writeBlockMap(OS, Map);
      else
        OS << variant(Opts.Print == "timing" ? mpiete::Variant::Timing : mpiete::Variant::Trace);
      llvm::outs() << OS.str();
      llvm::outs().flush();
      return;
    }
    // Every output or none: a unit is instrumented completely or not at all.
    std::string Trace, Timing;
    if (!Opts.TraceOut.empty())
      Trace = variant(mpiete::Variant::Trace);
    if (!Opts.TimingOut.empty())
      Timing = variant(mpiete::Variant::Timing);
    bool Ok =
        (Opts.TraceOut.empty() || mpiete::writeFileAtomically(Opts.TraceOut, Trace, Diags)) &&
        (Opts.TimingOut.empty() || mpiete::writeFileAtomically(Opts.TimingOut, Timing, Diags));
    if (Ok && !Opts.BlocksOut.empty()) {
      std::ostringstream OS;
      mpiete::writeBlockMap(OS, Map);
      Ok = mpiete::writeFileAtomically(Opts.BlocksOut, OS.str(), Diags);
    }
    if (!Ok)
      fail();
    flushDiags();
  }

  /// Diagnostics go out through Flang's own error stream, in order with Flang's.
  void flushDiags() {
    llvm::errs() << DiagText.str();
    llvm::errs().flush();
    DiagText.str("");
  }

  /// A plugin cannot fail an action (Flang only counts its own diagnostics): print ours and
  /// leave with the status of a failed compile.
  [[noreturn]] void fail() {
    flushDiags();
    llvm::outs().flush();
    std::_Exit(1);
  }

  PluginOptions Opts;
  std::ostringstream DiagText;
  mpiete::DiagnosticSink Diags{DiagText};
};

} // namespace

static Fortran::frontend::FrontendPluginRegistry::Add<MpieteFortranAction>
    X("mpiete-fortran", "mpiete: Fortran frontend and instrumentation");
