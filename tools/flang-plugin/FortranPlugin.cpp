// The Flang plugin `mpiete-fortran` (flang-new -fc1 -load ... -plugin mpiete-fortran), a driver:
// runs Flang's prescanner, parser and semantics, then the Fortran frontend, and writes the unit's
// trace and timing variants and block map as mpiete-instrument does for C (UnitOutputs.h). Flang
// has no plugin arguments, so mpiete-instrument passes its options in $MPIETE_FORTRAN_ARGS, one per
// line.
#include "mpiete/basedata/LinkSummary.h"
#include "mpiete/frontend/FortranFrontend.h"
#include "mpiete/frontend/FortranSkeleton.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/tools/UnitOutputs.h"

#include "flang/Frontend/CompilerInstance.h"
#include "flang/Frontend/FrontendActions.h"
#include "flang/Frontend/FrontendPluginRegistry.h"
#include "flang/Parser/parsing.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace {

struct PluginOptions {
  mpiete::FortranFrontendOptions Frontend;
  mpiete::UnitOutputs Out;
  /// Flang cannot analyse the unit (it fails on something mpiete need not understand): warn
  /// and write the native note instead of failing (mpiete-fc's builds).
  bool FailureIsWarning = false;
  /// Slice the unit for the skeleton trace probe (docs/skeleton.md).
  bool Skeleton = false;
  /// The link step (docs/skeleton.md, "Whole program"): write the unit's link summary; slice
  /// with the program's summary of the other units.
  std::string SummaryOut, ProgramSummary;
  bool NoWarnings = false;
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
      O.Out.TraceOut = *V;
    else if (auto V = Value("--timing-out="))
      O.Out.TimingOut = *V;
    else if (auto V = Value("--skeleton-out=")) {
      O.Out.SkeletonOut = *V;
      O.Skeleton = true;
    } else if (auto V = Value("--blocks-out="))
      O.Out.BlocksOut = *V;
    else if (auto V = Value("--unit-path="))
      O.Frontend.UnitPath = *V;
    else if (auto V = Value("--define="))
      O.Frontend.Defines.push_back(*V);
    else if (auto V = Value("--pass-through="))
      O.Frontend.PassThrough.push_back(*V);
    else if (A == "--pass-through-all")
      O.Frontend.PassThroughAll = true;
    else if (A == "--seed-blocks")
      O.Frontend.Mode = mpiete::Partition::Seed;
    else if (A == "--sample-loops")
      O.Out.SampleHooks = true;
    else if (auto V = Value("--native-out="))
      O.Out.NativeOut = *V;
    else if (A == "--analysis-failure-is-warning")
      O.FailureIsWarning = true;
    else if (auto V = Value("--summary-out="))
      O.SummaryOut = *V;
    else if (auto V = Value("--program-summary="))
      O.ProgramSummary = *V;
    else if (A == "--no-warnings")
      O.NoWarnings = true;
    else if (auto V = Value("--print="))
      O.Out.Show = *V == "blocks"     ? mpiete::UnitOutputs::Print::Blocks
                   : *V == "timing"   ? mpiete::UnitOutputs::Print::Timing
                   : *V == "skeleton" ? mpiete::UnitOutputs::Print::Skeleton
                                      : mpiete::UnitOutputs::Print::Trace;
    if (O.Out.Show == mpiete::UnitOutputs::Print::Skeleton)
      O.Skeleton = true;
  }
  return O;
}

class MpieteFortranAction : public Fortran::frontend::PluginParseTreeAction {
  bool beginSourceFileAction() override {
    Opts = readOptions();
    if (Opts.NoWarnings)
      Diags.hideWarnings();
    auto &Inv = getInstance().getInvocation();
    auto Form = Inv.getFrontendOpts().fortranForm;
    Opts.Frontend.FixedForm =
        Form == Fortran::frontend::FortranForm::FixedForm ||
        (Form == Fortran::frontend::FortranForm::Unknown && getCurrentInput().getIsFixedForm());
    int Columns = Inv.getFortranOpts().fixedFormColumns;
    Opts.Frontend.FixedColumns = Columns > 0 ? static_cast<unsigned>(Columns) : 100000;
    Opts.Frontend.ModuleDir = Inv.getModuleDir();
    Opts.Frontend.ModuleSearchDirs = Inv.getFortranOpts().searchDirectories;
    bool Fallback = Opts.FailureIsWarning && !Opts.Out.NativeOut.empty();
    if (!runPrescan() || !runParse(/*emitMessages=*/Fallback))
      return Fallback ? unanalysed("Flang cannot parse it (see Flang's messages above)") : false;
    // Reject what mpiete cannot analyse before semantics reports a confusing error for it.
    mpiete::ForeignModule Foreign;
    if (!mpiete::checkFortranParseTree(getParsing(), Opts.Frontend, Diags,
                                       Fallback ? &Foreign : nullptr))
      fail();
    if (!Foreign.Module.empty())
      unanalysed("module '" + Foreign.Module + "' has no module file Flang can read ('" +
                     Foreign.Path + "' is gfortran's: its file was not analysed)",
                 Foreign.Use);
    if (!runSemanticChecks() || !generateRtTypeTables())
      return Fallback ? unanalysed("Flang's semantic checks fail on it (see Flang's messages "
                                   "above; gfortran accepts what they reject with your flags)")
                      : false;
    return true;
  }

  /// The analysis failed on something mpiete need not understand: the unit is built natively
  /// and its MPI calls reach the runtime through the probes' Fortran MPI symbols
  /// (runtime/lib/FortranInterpose.cpp). A warning, and the build goes on.
  [[noreturn]] bool unanalysed(const std::string &Why, mpiete::DiagLoc Where = {}) {
    if (Where.File.empty())
      Where.File =
          Opts.Frontend.UnitPath.empty() ? std::string(getCurrentFile()) : Opts.Frontend.UnitPath;
    // Its task directives stay comments: say so, or its farm is predicted without task costs.
    std::string Tasks;
    if (mpiete::hasTaskDirectives(getParsing(), Opts.Frontend.FixedForm))
      Tasks = "; its task directives (!$mpiete task) are not honoured: its tasks run whole "
              "and untimed in every probe";
    Diags.warning(Where,
                  "mpiete cannot analyse this file: " + Why +
                      "; it is built natively, and its MPI calls are recorded under the "
                      "uninstrumented pseudo sites (no source position)" +
                      Tasks,
                  "unanalysed");
    bool Written = mpiete::writeNativeNote(Opts.Out.NativeOut, "unanalysed", Diags);
    flushDiags();
    llvm::outs().flush();
    std::_Exit(Written ? 0 : 1);
  }

  void executeAction() override {
    mpiete::UnitModel Model;
    std::string Text;
    bool Analysed = mpiete::analyzeFortran(getParsing(), Opts.Frontend, Model, Text, Diags);
    flushDiags();
    if (!Analysed)
      fail();
    mpiete::LinkSummary Program, Summary;
    const bool WantSummary = !Opts.SummaryOut.empty();
    if (!Opts.ProgramSummary.empty() &&
        !mpiete::loadLinkSummary(Opts.ProgramSummary, Program, Diags))
      fail();
    bool HasSummary = false;
    if (Opts.Skeleton || WantSummary) {
      HasSummary = mpiete::sliceFortran(getParsing(), Opts.Frontend, Model, Text, Diags,
                                        Opts.ProgramSummary.empty() ? nullptr : &Program,
                                        WantSummary ? &Summary : nullptr);
      flushDiags();
    }

    // Only the summary asked for (the link step's question about a unit built natively).
    const bool SummaryOnly = WantSummary && !Opts.Out.toFiles();
    if (!SummaryOnly) {
      std::ostringstream OS;
      bool Ok = mpiete::writeUnitOutputs(Model, Text, Model.Source, Opts.Out, OS, Diags);
      llvm::outs() << OS.str();
      llvm::outs().flush();
      if (!Ok)
        fail();
    }
    // After the unit's other outputs: the link step trusts a summary only beside them. None
    // when the slice does not model the unit: the link step then slices the program per unit.
    if (WantSummary && HasSummary && !mpiete::saveLinkSummary(Opts.SummaryOut, Summary, Diags))
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
