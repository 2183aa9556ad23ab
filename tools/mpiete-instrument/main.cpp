// mpiete-instrument: reads one C unit and writes its trace and timing variants and block map.
#include "mpiete/frontend/CFrontend.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/support/Process.h"
#include "mpiete/tools/CompilerWrapper.h"
#include "mpiete/tools/LastResort.h"
#include "mpiete/tools/UnitOutputs.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

#include <iostream>
#include <optional>

#ifndef MPIETE_FLANG_PATH
#define MPIETE_FLANG_PATH "flang-new-19"
#endif
#ifndef MPIETE_CLANG_RESOURCE_DIR
#define MPIETE_CLANG_RESOURCE_DIR ""
#endif

static const char *const Help = R"(usage: mpiete-instrument [options] SOURCE -- [compiler flags]

Reads a C translation unit with the user's flags (-I -D -U -include -std ...), or a Fortran unit
(.f .F .f90 .F90 ...; with Flang and the mpiete-fortran plugin, gfortran flags translated), and
writes its instrumented variants (the user's text with edits at known positions) and block map.

  --variant=trace|timing|skeleton
                           print that variant on stdout (when no -out option is given)
  --blocks                 print the block map on stdout instead
  --trace-out=FILE         write the trace variant
  --timing-out=FILE        write the timing variant
  --skeleton-out=FILE      write the skeleton trace probe (the trace variant without the
                           statements that decide no MPI call; docs/skeleton.md) and
                           FILE.removed, the statements it leaves out
  --blocks-out=FILE        write the unit's block map (YAML)
  --summary-out=FILE       write the unit's link summary (what its procedures other units
                           may call communicate, write and read; docs/skeleton.md)
  --program-summary=FILE   slice with the link step's summary of the other units'
                           procedures (a call to one that cannot communicate is an ordinary
                           statement)
  --unit-path=PATH         the path recorded for the unit (default: SOURCE as given)
  --no-warnings            print errors and notes only (mpiete-cc's link-time re-slice of a
                           unit whose compile printed its warnings)
  --pass-through=MPI_X     leave this unsupported routine uninstrumented (repeatable)
  --pass-through-all       leave every unsupported routine uninstrumented
  --seed-blocks            seed 004's partition: every loop and branch ends a compute block
  --sample-loops           the timing variant gets the hooks of the loops of pure computation
                           probe-compute --sample samples (docs/probes.md, "Sampled loops")
  --coarse-blocks          C: compute blocks between MPI calls, loops and branches of pure
                           computation inside them
                           (default: no compute blocks: the runtime times the segments
                           between MPI calls; loops with MPI calls get iteration hooks)
  --native-out=FILE        when the unit makes no MPI call mpiete rewrites, write FILE (a note)
                           instead of the variants and block map: it is built natively
  --analysis-failure-is-warning
                           Fortran: when Flang cannot analyse the unit, warn and write
                           --native-out instead of failing
  --module-dir=DIR         Fortran: where Flang writes this unit's module files for the
                           analysis (default: a temporary directory)
  --module-search=DIR      Fortran: another directory of such module files (repeatable)
Environment: MPIETE_FLANG (flang-new), MPIETE_FORTRAN_PLUGIN (mpiete-fortran.so).

Example:
  mpiete-instrument --variant=trace ring.c -- -I/usr/lib/x86_64-linux-gnu/openmpi/include
)";

namespace {

/// A Fortran unit: Flang with the mpiete-fortran plugin does the analysis and writes the
/// outputs; the options travel in $MPIETE_FORTRAN_ARGS.
int runFortran(const std::string &Source, const std::vector<std::string> &Flags,
               const std::vector<std::string> &PluginArgs, std::string ModuleDir,
               const std::vector<std::string> &ModuleSearch, mpiete::DiagnosticSink &Diags) {
  namespace fs = std::filesystem;
  std::error_code EC;
  fs::path Self = fs::read_symlink("/proc/self/exe", EC);
  fs::path Lib = (EC ? fs::path(".") : Self.parent_path()).parent_path() / "lib";
  const char *Plugin = std::getenv("MPIETE_FORTRAN_PLUGIN");
  const char *Flang = std::getenv("MPIETE_FLANG");
  std::string TmpDir;
  if (ModuleDir.empty()) {
    std::string Template = (fs::temp_directory_path(EC) / "mpiete-fmod-XXXXXX").string();
    if (!mkdtemp(Template.data())) {
      Diags.error({"mpiete-instrument", 0, 0}, "cannot create a temporary directory", "driver");
      return 1;
    }
    ModuleDir = TmpDir = Template;
  } else {
    fs::create_directories(ModuleDir, EC);
  }
  // Flang looks for module files in its working directory before any -I directory, and a
  // gfortran build leaves its own (unreadable to Flang) module files there: Flang runs in the
  // private module directory, with every path made absolute, and the user's directory last.
  fs::path Cwd = fs::current_path(EC);
  auto abs = [&](const std::string &P) { return P.empty() ? P : fs::absolute(P, EC).string(); };
  ModuleDir = abs(ModuleDir);
  std::vector<std::string> Absolute;
  for (const std::string &A : PluginArgs) {
    size_t Eq = A.find('=');
    std::string Key = Eq == std::string::npos ? A : A.substr(0, Eq + 1);
    if (Key == "--trace-out=" || Key == "--timing-out=" || Key == "--blocks-out=" ||
        Key == "--native-out=" || Key == "--skeleton-out=" || Key == "--summary-out=" ||
        Key == "--program-summary=")
      Absolute.push_back(Key + abs(A.substr(Eq + 1)));
    else
      Absolute.push_back(A);
  }
  std::vector<std::string> Argv{Flang && *Flang ? Flang : MPIETE_FLANG_PATH, "-fc1", "-load",
                                Plugin && *Plugin ? Plugin : (Lib / "mpiete-fortran.so").string(),
                                "-plugin", "mpiete-fortran", "-module-dir", ModuleDir,
                                // Flang's warnings are about the analysis, not the user's build.
                                "-w"};
  // mpiete's own module files first: Flang must never find the MPI library's (gfortran)
  // module files, which it cannot read.
  Argv.insert(Argv.end(), {"-I", ModuleDir});
  for (const std::string &D : ModuleSearch)
    Argv.insert(Argv.end(), {"-I", abs(D)});
  Argv.insert(Argv.end(), {"-I", abs((Lib / "mpiete" / "fmod").string())});
  std::vector<std::string> Translated = mpiete::flangAnalysisFlags(Flags);
  for (size_t I = 0; I < Translated.size(); ++I) {
    const std::string &A = Translated[I];
    if (A == "-I" && I + 1 < Translated.size()) {
      Argv.insert(Argv.end(), {"-I", abs(Translated[++I])});
    } else if (A.starts_with("-I")) {
      Argv.push_back("-I" + abs(A.substr(2)));
    } else {
      Argv.push_back(A);
    }
  }
  Argv.insert(Argv.end(), {"-I", Cwd.string()});
  std::string Ext = fs::path(Source).extension().string();
  if (Ext.size() > 1 && std::isupper(static_cast<unsigned char>(Ext[1])) &&
      std::find(Translated.begin(), Translated.end(), "-cpp") == Translated.end())
    Argv.push_back("-cpp");
  Argv.push_back(abs(Source));

  std::string Env;
  for (const std::string &A : Absolute)
    Env += A + "\n";
  for (const std::string &D : mpiete::unitDefines(Flags))
    Env += "--define=" + D + "\n";
  setenv("MPIETE_FORTRAN_ARGS", Env.c_str(), 1);
  if (std::getenv("MPIETE_VERBOSE"))
    std::cerr << "+ " << mpiete::shellJoin(Argv) << "\n";
  if (Plugin && *Plugin)
    Argv[3] = abs(Plugin);
  fs::current_path(ModuleDir, EC);
  int Rc = mpiete::runProcess(Argv);
  fs::current_path(Cwd, EC);
  if (Rc == 127)
    Diags.error({"mpiete-instrument", 0, 0}, "cannot run '" + Argv[0] + "'", "driver");
  if (!TmpDir.empty())
    fs::remove_all(TmpDir, EC);
  // 3: Flang stopped without a verdict (a crash): mpiete-fc treats it as an analysis failure.
  return Rc == 0 ? 0 : Rc == 1 || Rc == 127 ? 1 : 3;
}

} // namespace

static int guardedMain(int Argc, char **Argv) {
  mpiete::DiagnosticSink Diags(std::cerr);
  mpiete::CFrontendOptions Opts;
  Opts.ResourceDir = MPIETE_CLANG_RESOURCE_DIR;
  std::string Source;
  mpiete::UnitOutputs Out;
  std::optional<mpiete::UnitOutputs::Print> Print;
  bool PrintBlocks = false;
  std::vector<std::string> Flags;
  std::vector<std::string> PluginArgs, ModuleSearch;
  std::string ModuleDir, ProgramSummaryPath, SummaryOut;
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
      Print = mpiete::UnitOutputs::Print::Trace;
    } else if (A == "--variant=timing") {
      Print = mpiete::UnitOutputs::Print::Timing;
    } else if (A == "--variant=skeleton") {
      Print = mpiete::UnitOutputs::Print::Skeleton;
      Opts.Skeleton = true;
    } else if (A == "--blocks") {
      PrintBlocks = true;
    } else if (A.starts_with("--module-dir=")) {
      ModuleDir = A.substr(13);
    } else if (A.starts_with("--module-search=")) {
      ModuleSearch.push_back(A.substr(16));
    } else if (A.starts_with("--trace-out=")) {
      Out.TraceOut = A.substr(12);
    } else if (A.starts_with("--timing-out=")) {
      Out.TimingOut = A.substr(13);
    } else if (A.starts_with("--skeleton-out=")) {
      Out.SkeletonOut = A.substr(15);
      Opts.Skeleton = true;
    } else if (A.starts_with("--summary-out=")) {
      SummaryOut = A.substr(14);
    } else if (A.starts_with("--program-summary=")) {
      ProgramSummaryPath = A.substr(18);
    } else if (A == "--no-warnings") {
      Diags.hideWarnings();
    } else if (A.starts_with("--blocks-out=")) {
      Out.BlocksOut = A.substr(13);
    } else if (A.starts_with("--unit-path=")) {
      Opts.UnitPath = A.substr(12);
    } else if (A.starts_with("--pass-through=")) {
      Opts.PassThrough.push_back(A.substr(15));
    } else if (A == "--pass-through-all") {
      Opts.PassThroughAll = true;
    } else if (A == "--seed-blocks") {
      Opts.Mode = mpiete::Partition::Seed;
    } else if (A == "--sample-loops") {
      Out.SampleHooks = true;
    } else if (A == "--coarse-blocks") {
      Opts.Mode = mpiete::Partition::Coarse;
    } else if (A.starts_with("--native-out=")) {
      Out.NativeOut = A.substr(13);
    } else if (A == "--analysis-failure-is-warning") {
      // Fortran only: passed to the plugin below.
    } else if (!A.starts_with("-") && Source.empty()) {
      Source = A;
    } else {
      Diags.error({"mpiete-instrument", 0, 0}, "unknown option '" + A + "' (see --help)", "driver");
      return 2;
    }
  }
  if (Source.empty()) {
    Diags.error({"mpiete-instrument", 0, 0}, "no source file given (see --help)", "driver");
    return 2;
  }
  Out.Show = PrintBlocks ? mpiete::UnitOutputs::Print::Blocks
                         : Print.value_or(mpiete::UnitOutputs::Print::Trace);

  if (mpiete::isFortranSource(Source)) {
    static const char *const Names[] = {"trace", "timing", "blocks", "skeleton"};
    PluginArgs.push_back(std::string("--print=") + Names[static_cast<int>(Out.Show)]);
    for (int I = 1; I < Argc && std::string(Argv[I]) != "--"; ++I) {
      std::string A = Argv[I];
      if (A.starts_with("--trace-out=") || A.starts_with("--timing-out=") ||
          A.starts_with("--blocks-out=") || A.starts_with("--skeleton-out=") ||
          A.starts_with("--unit-path=") || A.starts_with("--pass-through=") ||
          A == "--pass-through-all" || A == "--seed-blocks" || A == "--sample-loops" ||
          A.starts_with("--native-out=") || A == "--analysis-failure-is-warning" ||
          A.starts_with("--summary-out=") || A.starts_with("--program-summary=") ||
          A == "--no-warnings")
        PluginArgs.push_back(A);
    }
    if (std::none_of(PluginArgs.begin(), PluginArgs.end(),
                     [](const std::string &A) { return A.starts_with("--unit-path="); }))
      PluginArgs.push_back("--unit-path=" + Source);
    return runFortran(Source, Flags, PluginArgs, ModuleDir, ModuleSearch, Diags);
  }

  mpiete::LinkSummary Program, Summary;
  if (!ProgramSummaryPath.empty()) {
    if (!mpiete::loadLinkSummary(ProgramSummaryPath, Program, Diags))
      return 1;
    Opts.Program = &Program;
  }
  if (!SummaryOut.empty())
    Opts.Summary = &Summary;
  mpiete::UnitModel Model;
  std::string Text;
  if (!mpiete::analyzeC(Source, Flags, Opts, Model, Text, Diags))
    return 1;
  // Only the summary asked for (the link step's question about a unit built natively).
  const bool SummaryOnly = !SummaryOut.empty() && !Out.toFiles();
  if (!SummaryOnly && !mpiete::writeUnitOutputs(Model, Text, Source, Out, std::cout, Diags))
    return 1;
  // After the unit's other outputs: the link step trusts a summary only beside them.
  if (!SummaryOut.empty() && !mpiete::saveLinkSummary(SummaryOut, Summary, Diags))
    return 1;
  return 0;
}

int main(int Argc, char **Argv) {
  return mpiete::runWithLastResort([&] { return guardedMain(Argc, Argv); });
}
