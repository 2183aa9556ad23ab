// mpiete-cc's logic: the native build first and untouched, then the probes beside it.
#include "mpiete/tools/CompilerWrapper.h"
#include "mpiete/tools/LoopLayout.h"

#include "mpiete/basedata/BlockMap.h"
#include "mpiete/basedata/LinkSummary.h"
#include "mpiete/frontend/MpiRoutines.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/support/Process.h"
#include "mpiete/support/Version.h"
#include "mpiete/tools/WholeProgram.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <unistd.h>

namespace fs = std::filesystem;
namespace layout = mpiete::tools::layout;

namespace mpiete {
namespace {

bool hasSuffix(std::string_view S, std::string_view Suffix) {
  return S.size() >= Suffix.size() && S.substr(S.size() - Suffix.size()) == Suffix;
}

std::string extensionOf(const std::string &Path) { return fs::path(Path).extension().string(); }

/// The removal list beside a unit's skeleton (PREFIX.skeleton.EXT.removed; EXT is the source's).
std::string skeletonRemovedList(const std::string &Prefix) {
  for (const char *Ext :
       {".c", ".f", ".F", ".f90", ".F90", ".f95", ".F95", ".f03", ".F03", ".f08", ".F08", ".for"})
    if (fs::exists(Prefix + ".skeleton" + Ext + ".removed"))
      return Prefix + ".skeleton" + Ext + ".removed";
  return Prefix + ".skeleton.c.removed";
}

enum class InputKind { CSource, Foreign, LinkInput };

InputKind classifyInput(const std::string &Path) {
  std::string Ext = extensionOf(Path);
  if (Ext == ".c")
    return InputKind::CSource;
  static const std::set<std::string> Foreign = {
      ".cc",  ".cpp", ".cxx", ".C",   ".c++", ".f", ".F", ".f90", ".F90", ".f95", ".F95",
      ".f03", ".F03", ".f08", ".F08", ".for", ".s", ".S", ".i",   ".ii",  ".m"};
  if (Foreign.count(Ext))
    return InputKind::Foreign;
  return InputKind::LinkInput;
}

} // namespace

bool isFortranSource(const std::string &Path) {
  static const std::set<std::string> Exts = {".f",   ".F",   ".for", ".FOR", ".ftn", ".FTN",
                                             ".f77", ".F77", ".f90", ".F90", ".f95", ".F95",
                                             ".f03", ".F03", ".f08", ".F08"};
  return Exts.count(extensionOf(Path)) != 0;
}

WrapperCommand parseWrapperCommand(const std::vector<std::string> &Args, WrapperLanguage Lang) {
  WrapperCommand Cmd;
  bool CompileOnly = false, NoProbes = false, Shared = false;
  for (size_t I = 0; I < Args.size(); ++I) {
    const std::string &A = Args[I];
    const CompilerOption *O = findCompilerOption(A);
    // mpiete's own options never reach the native compiler.
    if (O && O->Category == OptionCategory::Mpiete) {
      if (O->Spelling == "--mpiete-pass-through=") {
        std::string List = A.substr(O->Spelling.size());
        size_t Pos = 0;
        while (Pos <= List.size()) {
          size_t Comma = List.find(',', Pos);
          std::string Name =
              List.substr(Pos, Comma == std::string::npos ? std::string::npos : Comma - Pos);
          if (Name == "all")
            Cmd.PassThroughAll = true;
          else if (!Name.empty())
            Cmd.PassThrough.push_back(Name);
          if (Comma == std::string::npos)
            break;
          Pos = Comma + 1;
        }
      } else if (O->Spelling == "--mpiete-verbose") {
        Cmd.Verbose = true;
      } else if (O->Spelling == "--mpiete-seed-blocks") {
        Cmd.SeedBlocks = true;
      } else if (O->Spelling == "--mpiete-sample-loops") {
        Cmd.SampleLoops = true;
      } else if (O->Spelling == "--mpiete-coarse-blocks") {
        Cmd.CoarseBlocks = true;
      } else if (O->Spelling == "--mpiete-align-loops=") {
        Cmd.AlignLoops = A.substr(O->Spelling.size());
      }
      continue;
    }
    size_t Index = Cmd.Native.size();
    Cmd.Native.push_back(A);
    if (O && O->takesSeparateValue() && A.size() == O->Spelling.size()) {
      if (I + 1 < Args.size()) {
        Cmd.Native.push_back(Args[++I]);
        if (O->Category == OptionCategory::Output)
          Cmd.OutputIndex = static_cast<int>(Index + 1);
      }
      continue;
    }
    if (O && O->Category == OptionCategory::Output) {
      // -ofile: keep it, but normalise to two arguments so the value can be replaced.
      Cmd.Native.back() = std::string(O->Spelling);
      Cmd.Native.push_back(A.substr(O->Spelling.size()));
      Cmd.OutputIndex = static_cast<int>(Index + 1);
      continue;
    }
    if (A == "-c") {
      CompileOnly = true;
    } else if (O && O->uses(UseNoObject)) {
      NoProbes = true;
      if (Cmd.PassOnlyReason.empty())
        Cmd.PassOnlyReason = "'" + A + "' produces no object";
    } else if (A == "-shared") {
      Shared = true;
    } else if (A == "-" || !A.starts_with("-")) {
      switch (classifyInput(A)) {
      case InputKind::CSource:
        Cmd.Sources.push_back(Index);
        break;
      case InputKind::Foreign:
        if (Lang == WrapperLanguage::Fortran && isFortranSource(A))
          Cmd.Sources.push_back(Index);
        else
          Cmd.Foreign.push_back(Index);
        break;
      case InputKind::LinkInput:
        Cmd.Objects.push_back(Index);
        break;
      }
    }
  }
  bool HasInputs = !Cmd.Sources.empty() || !Cmd.Foreign.empty() || !Cmd.Objects.empty();
  if (NoProbes) {
    Cmd.Kind = WrapperCommand::Mode::PassOnly;
  } else if (!HasInputs) {
    Cmd.Kind = WrapperCommand::Mode::PassOnly;
    Cmd.PassOnlyReason = "no input files";
  } else if (Shared) {
    Cmd.Kind = WrapperCommand::Mode::PassOnly;
    Cmd.PassOnlyReason = "shared libraries are not instrumented";
  } else {
    Cmd.Kind = CompileOnly ? WrapperCommand::Mode::Compile : WrapperCommand::Mode::Link;
  }
  return Cmd;
}

std::vector<std::string> variantCompileFlags(const WrapperCommand &Cmd) {
  std::set<size_t> Inputs(Cmd.Sources.begin(), Cmd.Sources.end());
  Inputs.insert(Cmd.Foreign.begin(), Cmd.Foreign.end());
  Inputs.insert(Cmd.Objects.begin(), Cmd.Objects.end());
  std::vector<std::string> Out;
  for (size_t I = 0; I < Cmd.Native.size(); ++I) {
    const std::string &A = Cmd.Native[I];
    if (Inputs.count(I))
      continue;
    const CompilerOption *O = findCompilerOption(A);
    bool Separate = O && O->takesSeparateValue() && A.size() == O->Spelling.size();
    // The wrapper chooses each variant's stage (-c) and output; dependency generation would
    // overwrite the user's files (and a joined -MFfile without -MD is rejected).
    if (O && (O->Category == OptionCategory::Stage || O->Category == OptionCategory::Output ||
              O->Category == OptionCategory::Dependency)) {
      if (Separate)
        ++I;
      continue;
    }
    Out.push_back(A);
    if (Separate && I + 1 < Cmd.Native.size())
      Out.push_back(Cmd.Native[++I]);
  }
  return Out;
}

std::vector<std::string> instrumenterFlags(const WrapperCommand &Cmd) {
  return variantCompileFlags(Cmd);
}

std::string objectFor(const WrapperCommand &Cmd, const std::string &Source) {
  if (Cmd.OutputIndex >= 0 && Cmd.Sources.size() + Cmd.Foreign.size() == 1)
    return Cmd.output();
  return fs::path(Source).stem().string() + ".o";
}

std::string sidecarPrefix(const std::string &Object) {
  fs::path P(Object);
  fs::path Dir = P.parent_path();
  return (Dir / ".mpiete" / P.filename()).string();
}

namespace {

class Wrapper {
public:
  Wrapper(const WrapperCommand &Cmd, const WrapperEnv &Env, DiagnosticSink &Diags)
      : Cmd(Cmd), Env(Env), Diags(Diags) {}

  int run() {
    std::vector<std::string> Native{Env.NativeCompiler};
    Native.insert(Native.end(), Cmd.Native.begin(), Cmd.Native.end());
    if (int Rc = exec(Native))
      return Rc;
    // `-o /dev/null` (a compile check): probes would land in /dev/.mpiete/ and /dev/null.trace.
    std::error_code EC;
    if (Cmd.Kind != WrapperCommand::Mode::PassOnly && Cmd.OutputIndex >= 0 &&
        fs::exists(Cmd.output(), EC) && !fs::is_regular_file(Cmd.output(), EC)) {
      if (Cmd.Verbose)
        std::cerr << Env.Tool << ": no probes: the output is not a regular file\n";
      return 0;
    }
    switch (Cmd.Kind) {
    case WrapperCommand::Mode::PassOnly:
      if (Cmd.Verbose)
        std::cerr << Env.Tool << ": no probes: " << Cmd.PassOnlyReason << "\n";
      return 0;
    case WrapperCommand::Mode::Compile:
      return compile();
    case WrapperCommand::Mode::Link:
      return link();
    }
    return 0;
  }

private:
  int exec(const std::vector<std::string> &Argv) {
    if (Cmd.Verbose)
      std::cerr << "+ " << shellJoin(Argv) << "\n";
    int Rc = runProcess(Argv);
    if (Rc == 127)
      Diags.error({Env.Tool, 0, 0}, "cannot run '" + Argv[0] + "'", "driver");
    return Rc;
  }

  /// exec, keeping a copy of what the command wrote on stderr (replayed on ours afterwards).
  int execKeepingStderr(const std::vector<std::string> &Argv, std::string &Err) {
    std::FILE *Tmp = std::tmpfile();
    const int Saved = Tmp ? ::dup(STDERR_FILENO) : -1;
    if (Saved < 0) {
      if (Tmp)
        std::fclose(Tmp);
      return exec(Argv);
    }
    std::cerr.flush();
    ::dup2(::fileno(Tmp), STDERR_FILENO);
    const int Rc = exec(Argv);
    std::cerr.flush();
    ::dup2(Saved, STDERR_FILENO);
    ::close(Saved);
    std::rewind(Tmp);
    char Buf[4096];
    for (size_t N; (N = std::fread(Buf, 1, sizeof Buf, Tmp)) > 0;)
      Err.append(Buf, N);
    std::fclose(Tmp);
    std::cerr << Err;
    return Rc;
  }

  /// Whether the instrumenter's messages hold errors and every one is of a macro-hidden MPI
  /// call ([mpiete-macro]): mpiete's limitation with no option to pass it through, so the
  /// native output is kept as mpicc built it (docs/robustness.md).
  static bool onlyMacroErrors(const std::string &Err) {
    size_t Errors = 0, Macro = 0;
    std::istringstream In(Err);
    for (std::string Line; std::getline(In, Line);)
      if (Line.find(": error: ") != std::string::npos) {
        ++Errors;
        Macro += Line.ends_with("[mpiete-macro]");
      }
    return Errors > 0 && Errors == Macro;
  }

  /// The MPI include flags of the native compiler, for the instrumenter's parse.
  std::vector<std::string> mpiFlags() {
    // `-show` first: Open MPI's, MPICH's and Intel MPI's wrappers all print the command they
    // would run (only its preprocessor flags are kept); a query the wrapper does not know
    // reaches gcc, which complains on the user's terminal.
    for (const char *Query : {"-show", "-showme:compile", "-compile_info"}) {
      auto Out = captureProcess({Env.NativeCompiler, Query});
      if (!Out)
        continue;
      std::vector<std::string> Flags;
      std::vector<std::string> Words = shellSplit(*Out);
      for (const ParsedOption &P : parseCompilerArgs(Words))
        if (P.Option && P.Option->Category == OptionCategory::Preprocessor)
          Flags.insert(Flags.end(), Words.begin() + P.Index, Words.begin() + P.Index + P.Count);
      return Flags;
    }
    return {};
  }

  /// The native compiler's `--version` text (empty if it cannot say), asked once.
  const std::string &nativeVersion() {
    if (!VersionKnown) {
      auto Out = captureProcess({Env.NativeCompiler, "--version"});
      Version = Out ? *Out : std::string();
      VersionKnown = true;
    }
    return Version;
  }

  bool nativeIsGfortran() { return nativeVersion().find("GNU Fortran") != std::string::npos; }

  /// The flag that starts the timing probe's loops on a fixed boundary, or empty: the user
  /// said no, set the loops' alignment already (the original has it too), or the compiler is
  /// not one known to take -falign-loops=N (GCC's and Clang's). Why (docs/probes.md, "Loop
  /// alignment"): the instrumented unit's code is laid out differently from the original's,
  /// and a short hot loop that crosses a 64-byte line runs up to a third slower than the same
  /// loop within one (f90-square's inner product: 1.59 s against 1.24 s aligned, the original
  /// 1.28 s); aligned, the probe times every such loop in its fast layout.
  const std::string &alignFlag() {
    if (!AlignKnown) {
      AlignKnown = true;
      const std::string N = Cmd.AlignLoops.empty() ? "match" : Cmd.AlignLoops;
      bool UserSetsIt = false;
      for (const std::string &A : Cmd.Native)
        UserSetsIt |= A.starts_with("-falign-loops") || A.starts_with("-fno-align-loops");
      const std::string &V = nativeVersion();
      const bool Gcc = V.find("Free Software Foundation") != std::string::npos &&
                       V.find("clang version") == std::string::npos;
      const bool Known = Gcc || V.find("clang version") != std::string::npos;
      bool Lto = false;
      for (const std::string &A : Cmd.Native)
        Lto |= A.starts_with("-flto") && A != "-fno-lto";
      if (N == "match")
        Match = !UserSetsIt && Gcc && !Lto;
      else if (N != "no" && !UserSetsIt && Known)
        Align = "-falign-loops=" + N;
    }
    return Align;
  }

  /// Whether the timing probe's loops are placed as the program's (the default with GCC,
  /// docs/probes.md "Loop alignment"): the link step pads each loop head of the probe's listing
  /// (Prefix.timing.s) to its twin's offset in the program's 64-byte lines, found from the
  /// original's listing assembled with its labels kept (Prefix.orig.s, Prefix.orig.o).
  bool matchLoops() {
    alignFlag();
    return Match;
  }

  /// The original unit's listing and its object with local labels kept, as the user's command
  /// compiles it (-S, then the assembler with --keep-locals): where its loops lie in the
  /// program. Nothing is lost when it cannot be built: the probe's loops stay where the
  /// compiler put them.
  void originalListing(const std::string &Source, const std::string &Prefix) {
    std::vector<std::string> Compile{Env.NativeCompiler};
    std::vector<std::string> Flags = variantCompileFlags(Cmd);
    Compile.insert(Compile.end(), Flags.begin(), Flags.end());
    Compile.insert(Compile.end(), {"-w", "-S", Source, "-o", Prefix + ".orig.s"});
    std::string Ignored;
    int Rc = execKeepingStderr(Compile, Ignored);
    if (Rc == 0)
      Rc = execKeepingStderr(
          {Env.NativeCompiler, "-c", "-Wa,-L", Prefix + ".orig.s", "-o", Prefix + ".orig.o"},
          Ignored);
    if (Rc != 0) {
      std::error_code EC;
      fs::remove(Prefix + ".orig.s", EC);
      fs::remove(Prefix + ".orig.o", EC);
      Diags.warning({Source, 0, 0},
                    "its listing for placing the timing probe's loops does not build (" +
                        Env.NativeCompiler + " exit status " + std::to_string(Rc) +
                        "); the probe's loops of this file may lie on other boundaries than "
                        "in the program",
                    "align");
    }
  }

  /// The timing probe's object of the unit under Prefix with its loops placed as in the
  /// program (Program: the program's symbols), written as Dest.s and Dest.o, or nullopt: no
  /// listings, or one older than Obj (the object the program links, if given), or nothing to
  /// place. Listing is the probe's assembly (Prefix.timing.s; a native unit's is its original
  /// listing). Dest is the link output's own (an object linked into two programs at once by
  /// a parallel make is placed for each in its own file).
  std::optional<std::string> placedTiming(const std::string &Prefix, const std::string &Listing,
                                          const std::string &Dest, const std::string &Obj,
                                          const std::vector<layout::ElfSymbol> &Program) {
    const std::string OrigS = Prefix + ".orig.s", OrigO = Prefix + ".orig.o";
    if (!fs::exists(OrigS) || !fs::exists(OrigO) || !fs::exists(Listing) ||
        (!Obj.empty() && isOlder(OrigO, Obj)))
      return std::nullopt;
    std::string Error;
    auto Orig = layout::readElfSymbols(OrigO, Error);
    if (!Orig)
      return std::nullopt;
    auto slurp = [](const std::string &Path) {
      std::ifstream In(Path);
      return std::string{std::istreambuf_iterator<char>(In), std::istreambuf_iterator<char>()};
    };
    const std::string OrigText = slurp(OrigS), Text = slurp(Listing);
    layout::LayoutResult R = layout::placeLoops(OrigText, *Orig, Program, Text);
    LoopsSeen += R.Loops;
    LoopsPlaced += R.Placements.size();
    if (Cmd.Verbose)
      for (const std::string &U : R.Unmatched)
        std::cerr << Env.Tool << ": " << Prefix << ": loops left as compiled in " << U << "\n";
    if (R.Placements.empty())
      return std::nullopt;
    const std::string PlacedS = Dest + ".s", PlacedO = Dest + ".o";
    {
      std::ofstream OS(PlacedS);
      OS << layout::applyPlacements(Text, R.Placements);
      if (!OS)
        return std::nullopt;
    }
    std::string Ignored;
    if (execKeepingStderr({Env.NativeCompiler, "-c", PlacedS, "-o", PlacedO}, Ignored) != 0) {
      LoopsPlaced -= R.Placements.size();
      return std::nullopt;
    }
    return PlacedO;
  }

  /// A native unit's copy for the timing probe, compiled as the user's command compiles it
  /// but with the timing probe's loop alignment (Prefix.aligned.o): the native object itself
  /// would land elsewhere in the probe than in the program, its hot loops on other line
  /// boundaries. Nothing is lost when it cannot be built: the probe links the native object.
  void alignedCopy(const std::string &Source, const std::string &Prefix) {
    if (matchLoops()) {
      originalListing(Source, Prefix);
      return;
    }
    if (alignFlag().empty())
      return;
    std::vector<std::string> Compile{Env.NativeCompiler};
    std::vector<std::string> Flags = variantCompileFlags(Cmd);
    Compile.insert(Compile.end(), Flags.begin(), Flags.end());
    Compile.insert(Compile.end(), {alignFlag(), "-w", "-c", Source, "-o", Prefix + ".aligned.o"});
    std::string Ignored;
    if (int Rc = execKeepingStderr(Compile, Ignored); Rc != 0) {
      std::error_code EC;
      fs::remove(Prefix + ".aligned.o", EC);
      Diags.warning({Source, 0, 0},
                    "its copy for the timing probe with " + alignFlag() + " does not compile (" +
                        Env.NativeCompiler + " exit status " + std::to_string(Rc) +
                        "); the probe links the native object, whose loops may lie on other "
                        "boundaries than in the program",
                    "align");
    }
  }

  /// What the preprocessed C source may hold. Mpi: an identifier MPI_x or PMPI_x followed by
  /// '(' outside system headers, other than the routines that only ask MPI something
  /// (MPI_Comm_rank, MPI_Wtime, ...); when the preprocessor fails too (Clang will say why).
  /// Loops: no MPI call, but in segment mode a loop nest the timing probe may sample
  /// (docs/probes.md, "Sampled loops": a `for` and another loop keyword; the instrumenter
  /// decides). None: neither.
  enum class Holds { None, Loops, Mpi };
  Holds scanSource(const std::string &Source) {
    std::vector<std::string> Pre{Env.NativeCompiler, "-E"};
    std::vector<std::string> Flags = instrumenterFlags(Cmd);
    Pre.insert(Pre.end(), Flags.begin(), Flags.end());
    Pre.push_back(Source);
    if (Cmd.Verbose)
      std::cerr << "+ " << shellJoin(Pre) << "\n";
    std::optional<std::string> Text = captureProcess(Pre);
    if (!Text)
      return Holds::Mpi;
    bool System = false;
    size_t Pos = 0;
    const bool Samples = Cmd.samplesLoops();
    int LoopWords = 0;
    bool HasFor = false;
    auto isIdent = [](char C) { return std::isalnum(static_cast<unsigned char>(C)) || C == '_'; };
    while (Pos < Text->size()) {
      size_t End = Text->find('\n', Pos);
      if (End == std::string::npos)
        End = Text->size();
      std::string_view Line(Text->data() + Pos, End - Pos);
      Pos = End + 1;
      if (Line.starts_with("# ")) {
        // A line marker: `# 12 "file" flags`; flag 3 is a system header.
        size_t Quote = Line.rfind('"');
        std::string_view Flags = Quote == std::string_view::npos ? "" : Line.substr(Quote + 1);
        System = Flags.find(" 3") != std::string_view::npos;
        continue;
      }
      if (System)
        continue;
      char InQuote = 0;
      for (size_t I = 0; I < Line.size(); ++I) {
        char C = Line[I];
        if (InQuote) {
          if (C == '\\')
            ++I;
          else if (C == InQuote)
            InQuote = 0;
          continue;
        }
        if (C == '"' || C == '\'') {
          InQuote = C;
          continue;
        }
        if (!isIdent(C) || (I > 0 && isIdent(Line[I - 1])))
          continue;
        size_t J = I;
        while (J < Line.size() && isIdent(Line[J]))
          ++J;
        std::string_view Word = Line.substr(I, J - I);
        I = J - 1;
        if (Word == "for" || Word == "while") {
          HasFor = HasFor || Word == "for";
          ++LoopWords;
          continue;
        }
        if (!Word.starts_with("MPI_") && !Word.starts_with("PMPI_"))
          continue;
        size_t K = J;
        while (K < Line.size() && (Line[K] == ' ' || Line[K] == '\t'))
          ++K;
        std::string_view Name = Word.starts_with("P") ? Word.substr(1) : Word;
        if (K < Line.size() && Line[K] == '(' && !isLocalRoutine(Name))
          return Holds::Mpi;
      }
    }
    return Samples && HasFor && LoopWords >= 2 ? Holds::Loops : Holds::None;
  }

  enum class Probes { Instrumented, Native, Failed };

  /// A unit built natively: no probe objects of an earlier build are left to be linked.
  Probes native(const std::string &Source, const std::string &Prefix, bool WriteNote,
                const std::string &Reason) {
    std::error_code EC;
    for (const char *Old : {".trace.o", ".timing.o", ".blocks.yaml", ".timing.s"})
      fs::remove(Prefix + Old, EC);
    alignedCopy(Source, Prefix);
    if (WriteNote) {
      std::ofstream OS(Prefix + ".native");
      OS << "native: " << Reason << "\n";
      if (!OS) {
        Diags.error({Prefix + ".native", 0, 0}, "cannot write file", "driver");
        return Probes::Failed;
      }
    }
    if (Cmd.Verbose)
      std::cerr << Env.Tool << ": built natively (" << Reason << ")\n";
    return Probes::Native;
  }

  /// Instruments Source and compiles both variants under Prefix. A unit without MPI calls, or
  /// a Fortran unit Flang cannot analyse (a warning), is Native: its native object goes into
  /// the probes, as the note Prefix.native says.
  Probes probeObjects(const std::string &Source, const std::string &Prefix) {
    std::error_code EC;
    fs::create_directories(fs::path(Prefix).parent_path(), EC);
    if (EC) {
      Diags.error({Prefix, 0, 0}, "cannot create directory: " + EC.message(), "driver");
      return Probes::Failed;
    }
    for (const char *Old : {".native", ".aligned.o", ".orig.s", ".orig.o", ".timing.s"})
      fs::remove(Prefix + Old, EC);
    if (!namesFit(Source, Prefix, {".blocks.yaml.tmp"}))
      return Probes::Failed;
    // The variants keep the source's extension: it selects the language, the Fortran source
    // form and preprocessing.
    bool Fortran = isFortranSource(Source);
    // A C file that calls no MPI routine needs no analysis: Clang never sees it. (A Fortran
    // file is always analysed: other files may use the module files Flang writes for it.)
    for (const char *Old : {".skeleton.summary", ".skeleton.recipe"})
      fs::remove(Prefix + Old, EC);
    const Holds Scan = Fortran ? Holds::Mpi : scanSource(Source);
    if (Scan != Holds::Mpi) {
      // Its procedures may still be called by the skeleton's units: the link step asks for
      // what they do (docs/skeleton.md, "Whole program"). A unit of only loops the timing
      // probe may sample gets its trace and timing variants, but no skeleton of its own:
      // the skeleton links its trace variant (no hooks), as natively built units are linked.
      if (!Cmd.SeedBlocks && !Cmd.CoarseBlocks && !writeRecipe(Source, Prefix, {}))
        return Probes::Failed;
      if (Scan == Holds::None)
        return native(Source, Prefix, true, "no MPI calls");
    }
    std::string Ext = Fortran ? extensionOf(Source) : ".c";
    std::vector<std::string> Instr{Env.Instrumenter,
                                   "--trace-out=" + Prefix + ".trace" + Ext,
                                   "--timing-out=" + Prefix + ".timing" + Ext,
                                   "--blocks-out=" + Prefix + ".blocks.yaml",
                                   "--native-out=" + Prefix + ".native",
                                   "--unit-path=" + Source};
    if (Fortran)
      Instr.push_back("--analysis-failure-is-warning");
    if (Fortran) {
      // Flang's module files (and mpiete's notes on them) for the analysis live apart from
      // gfortran's: in .mpiete/fmod beside the -J directory or the object, where the next file
      // compiled in Makefile order finds them.
      std::vector<std::string> ModDirs = fortranModuleDirs(Cmd.Native);
      fs::path ObjDir = fs::path(Prefix).parent_path();
      std::string ModuleDir = ModDirs.empty()
                                  ? (ObjDir / "fmod").string()
                                  : (fs::path(ModDirs[0]) / ".mpiete" / "fmod").string();
      Instr.push_back("--module-dir=" + ModuleDir);
      // The link step's re-slice reads the module files this compile wrote, and writes none.
      FortranSearch = {"--module-search=" + ModuleDir};
      std::vector<std::string> Search = {(ObjDir / "fmod").string(), ".mpiete/fmod"};
      // Separate -I values first, then joined ones, as the search has always been ordered.
      std::vector<ParsedOption> Parsed = parseCompilerArgs(Cmd.Native);
      for (bool Joined : {false, true})
        for (const ParsedOption &P : Parsed)
          if (P.Option && P.Option->Spelling == "-I" && !P.Value.empty() &&
              (P.Count == 1) == Joined)
            Search.push_back((fs::path(std::string(P.Value)) / ".mpiete" / "fmod").string());
      for (const std::string &D : Search)
        if (D != ModuleDir) {
          Instr.push_back("--module-search=" + D);
          FortranSearch.push_back("--module-search=" + D);
        }
    }
    for (const std::string &P : Cmd.PassThrough)
      Instr.push_back("--pass-through=" + P);
    if (Cmd.PassThroughAll)
      Instr.push_back("--pass-through-all");
    if (Cmd.samplesLoops())
      Instr.push_back("--sample-loops");
    if (Cmd.SeedBlocks)
      Instr.push_back("--seed-blocks");
    else if (Cmd.CoarseBlocks && !Fortran)
      Instr.push_back("--coarse-blocks");
    // The skeleton trace probe (docs/skeleton.md): units in segment mode that call MPI.
    const bool Skeleton = !Cmd.SeedBlocks && !Cmd.CoarseBlocks && Scan == Holds::Mpi;
    std::error_code Ignored;
    fs::remove(Prefix + ".skeleton.o", Ignored);
    if (Skeleton) {
      Instr.push_back("--skeleton-out=" + Prefix + ".skeleton" + Ext);
      Instr.push_back("--summary-out=" + Prefix + ".skeleton.summary");
    }
    Instr.push_back(Source);
    Instr.push_back("--");
    std::vector<std::string> Flags = instrumenterFlags(Cmd);
    Instr.insert(Instr.end(), Flags.begin(), Flags.end());
    if (MpiFlags.empty())
      MpiFlags = mpiFlags();
    Instr.insert(Instr.end(), MpiFlags.begin(), MpiFlags.end());
    std::string InstrErr;
    if (int Rc = execKeepingStderr(Instr, InstrErr); Rc != 0) {
      if (Rc == 1 && onlyMacroErrors(InstrErr)) {
        KeepNative = true;
        Diags.note({Source, 0, 0},
                   "the native output is kept as mpicc built it; this file has no probes "
                   "until its MPI calls are written outside macro bodies (a link with it "
                   "warns that it is uninstrumented)",
                   "macro");
      }
      if (!Fortran || Rc == 1 || Rc == 127)
        return Probes::Failed;
      // Flang itself failed (crashed): as when it cannot analyse the file.
      Diags.warning({Source, 0, 0},
                    "mpiete cannot analyse this file: Flang stopped (status " + std::to_string(Rc) +
                        "); it is built natively, and its MPI calls are recorded under the "
                        "uninstrumented pseudo sites (no source position)",
                    "unanalysed");
      return native(Source, Prefix, true, "unanalysed");
    }
    if (fs::exists(Prefix + ".native", EC)) {
      if (Skeleton && fs::exists(Prefix + ".skeleton.summary", EC) &&
          !writeRecipe(Source, Prefix, {}))
        return Probes::Failed;
      return native(Source, Prefix, false, "no MPI calls, or not analysable");
    }

    std::string SrcDir = fs::path(Source).parent_path().string();
    if (SrcDir.empty())
      SrcDir = ".";
    std::vector<std::string> SkeletonCompile;
    for (const char *V : {"trace", "timing", "skeleton"}) {
      if (std::string(V) == "skeleton" && !Skeleton)
        continue;
      std::vector<std::string> Compile{Env.NativeCompiler};
      // The variant lives in .mpiete/: includes must still find the user's files first in the
      // source's own directory, as in the original build.
      if (Fortran) {
        Compile.push_back("-I" + SrcDir);
        // The runtime's entry points are external procedures without an interface, called
        // with buffers of every type: gfortran 10 and later stops at such a mismatch unless
        // told to allow it. The user saw the warnings of this file in the native build.
        if (nativeIsGfortran())
          Compile.insert(Compile.end(), {"-fallow-argument-mismatch", "-w"});
      } else {
        Compile.push_back("-iquote");
        Compile.push_back(SrcDir);
        Compile.push_back("-I" + Env.IncludeDir);
      }
      std::vector<std::string> Flags = variantCompileFlags(Cmd);
      Compile.insert(Compile.end(), Flags.begin(), Flags.end());
      if (std::string(V) == "timing" && !alignFlag().empty())
        Compile.push_back(alignFlag());
      // The skeleton leaves variables and procedures unused: the user saw this file's
      // warnings in the native build.
      if (std::string(V) == "skeleton") {
        Compile.push_back("-w");
        SkeletonCompile = Compile;
      }
      const bool Listing = std::string(V) == "timing" && matchLoops();
      if (Listing) // assembled below: the link step places its loops (matchLoops)
        Compile.insert(Compile.end(), {"-S", Prefix + "." + V + Ext, "-o", Prefix + ".timing.s"});
      else
        Compile.insert(Compile.end(),
                       {"-c", Prefix + "." + V + Ext, "-o", Prefix + "." + V + ".o"});
      int Rc = exec(Compile);
      if (Rc == 0 && Listing)
        Rc = exec({Env.NativeCompiler, "-c", Prefix + ".timing.s", "-o", Prefix + ".timing.o"});
      if (Rc != 0 && std::string(V) == "skeleton") {
        // A slice that does not compile is mpiete's bug, but the full trace probe serves.
        Diags.warning({Source, 0, 0},
                      "the skeleton trace probe of this file does not compile (see above); its "
                      "full trace variant is used instead: please report this with the file",
                      "skeleton");
        fs::remove(Prefix + ".skeleton.o", Ignored);
        continue;
      }
      if (Rc != 0) {
        KeepNative = true;
        Diags.error({Source, 0, 0},
                    std::string("the ") + V + " probe of this file (" + Prefix + "." + V + Ext +
                        ") does not compile: " + Env.NativeCompiler + " exit status " +
                        std::to_string(Rc) +
                        ", its messages above; the native object is kept as mpicc built it. "
                        "This is a bug in mpiete: please report it with the file",
                    "probe-failed");
        return Probes::Failed;
      }
    }
    if (Skeleton && fs::exists(Prefix + ".skeleton.o", EC) &&
        !writeRecipe(Source, Prefix, SkeletonCompile))
      return Probes::Failed;
    if (matchLoops())
      originalListing(Source, Prefix);
    return Probes::Instrumented;
  }

  /// How the link step re-slices the unit (Prefix.skeleton.recipe): the source, the
  /// instrumenter's flags and the skeleton's compile command.
  bool writeRecipe(const std::string &Source, const std::string &Prefix,
                   const std::vector<std::string> &Compile) {
    UnitRecipe R;
    R.Source = Source;
    R.Language = isFortranSource(Source) ? "fortran" : "c";
    std::error_code EC;
    R.Directory = fs::current_path(EC).string();
    if (R.Language == "fortran")
      R.Options = FortranSearch;
    // The options that decide what the instrumenter accepts: the re-slice must accept the
    // same calls (a passed-through routine is an error without its option).
    for (const std::string &P : Cmd.PassThrough)
      R.Options.push_back("--pass-through=" + P);
    if (Cmd.PassThroughAll)
      R.Options.push_back("--pass-through-all");
    R.InstrumentFlags = instrumenterFlags(Cmd);
    if (MpiFlags.empty())
      MpiFlags = mpiFlags();
    R.InstrumentFlags.insert(R.InstrumentFlags.end(), MpiFlags.begin(), MpiFlags.end());
    R.Compile = Compile;
    std::ofstream OS(Prefix + ".skeleton.recipe");
    writeUnitRecipe(OS, R);
    if (!OS) {
      Diags.error({Prefix + ".skeleton.recipe", 0, 0}, "cannot write file", "driver");
      return false;
    }
    return true;
  }

  static bool isOlder(const std::string &A, const std::string &B) {
    std::error_code EA, EB;
    auto TA = fs::last_write_time(A, EA), TB = fs::last_write_time(B, EB);
    return !EA && !EB && TA < TB;
  }

  /// A native unit's aligned copy for the timing link (alignedCopy), if there is one that is
  /// not older than Obj, the object the program links (none given: the copy was just built).
  /// An object rebuilt after its copy would put the copy's older code into the probe.
  static std::optional<std::string> alignedCopyOf(const std::string &Prefix,
                                                  const std::string &Obj) {
    std::string Copy = Prefix + ".aligned.o";
    if (!fs::exists(Copy) || (!Obj.empty() && isOlder(Copy, Obj)))
      return std::nullopt;
    return Copy;
  }

  /// Whether the file names of the probes under Prefix (its longest Suffixes) fit the file
  /// system: a long output name must fail with its reason, not as a compiler's or the
  /// instrumenter's "cannot open". Reported at Source; the native output is kept.
  bool namesFit(const std::string &Source, const std::string &Prefix,
                std::initializer_list<const char *> Suffixes) {
    const fs::path P(Prefix);
    long Max = ::pathconf(P.has_parent_path() ? P.parent_path().c_str() : ".", _PC_NAME_MAX);
    if (Max <= 0)
      Max = 255;
    for (const char *Suffix : Suffixes) {
      const size_t Length = P.filename().string().size() + std::strlen(Suffix);
      if (Length > static_cast<size_t>(Max)) {
        KeepNative = true;
        Diags.error({Source, 0, 0},
                    "the probes cannot be built: their file name '" + P.filename().string() +
                        Suffix + "' would be " + std::to_string(Length) +
                        " bytes, more than the file system's " + std::to_string(Max) +
                        "; the native output is kept as mpicc built it (use a shorter -o name)",
                    "probe-failed");
        return false;
      }
    }
    return true;
  }

  /// A failed probe fails the command like a failed compile. An instrumenter error on the
  /// source leaves no output behind, so make does not take a fresh object without probes for up
  /// to date and retries the file; a probe variant that fails for reasons of mpiete's own
  /// (KeepNative: it does not compile, its name is too long) keeps the native output mpicc
  /// built, as the command without mpiete would have left it (issue 14, finding 10).
  bool KeepNative = false;
  void removeOutputs(const std::vector<std::string> &Paths, const std::string &NativeOut) {
    for (const std::string &P : Paths) {
      if (KeepNative && P == NativeOut)
        continue;
      std::error_code EC;
      if (fs::is_regular_file(fs::symlink_status(P, EC)))
        fs::remove(P, EC);
    }
  }

  int compile() {
    bool Ok = true;
    for (size_t I : Cmd.Sources) {
      const std::string &Src = Cmd.Native[I];
      std::string Object = objectFor(Cmd, Src);
      std::string Prefix = sidecarPrefix(Object);
      if (probeObjects(Src, Prefix) == Probes::Failed) {
        removeOutputs({Object, Prefix + ".trace.o", Prefix + ".timing.o", Prefix + ".blocks.yaml",
                       Prefix + ".native", Prefix + ".aligned.o", Prefix + ".skeleton.o",
                       Prefix + ".skeleton.summary", Prefix + ".skeleton.recipe",
                       Prefix + ".orig.s", Prefix + ".orig.o", Prefix + ".timing.s"},
                      Object);
        Ok = false;
      }
    }
    return Ok ? 0 : 1;
  }

  int link() {
    std::string Out = Cmd.OutputIndex >= 0 ? Cmd.output() : "a.out";
    if (linkProbes(Out) == 0)
      return 0;
    removeOutputs({Out, Out + ".trace", Out + ".timing", Out + ".blocks.yaml", Out + ".skeleton",
                   Out + ".skeleton.removed"},
                  Out);
    return 1;
  }

  int linkProbes(const std::string &Out) {
    std::string OutPrefix = sidecarPrefix(Out);
    std::map<size_t, std::string> Variant; // Native index -> prefix of its instrumented object
    std::map<size_t, std::string> Aligned; // Native index -> a native unit's aligned timing copy
    std::map<size_t, std::string> NativeUnits; // Native index -> prefix of a unit built natively
    std::vector<std::string> UnitMaps;
    std::vector<WholeProgramUnit> Units; // every link input mpiete-cc built (for the skeleton)
    bool Ok = true;

    std::set<std::string> Stems;
    for (size_t I : Cmd.Sources) {
      const std::string &Src = Cmd.Native[I];
      std::string Stem = fs::path(Src).stem().string();
      while (!Stems.insert(Stem).second)
        Stem += "_";
      std::string Prefix = OutPrefix + "." + Stem;
      switch (probeObjects(Src, Prefix)) {
      case Probes::Instrumented:
        Variant[I] = Prefix;
        UnitMaps.push_back(Prefix + ".blocks.yaml");
        Units.push_back({Prefix, true});
        break;
      case Probes::Native:
        // the probes compile the source natively, as the program's link does (the timing
        // probe its copy with aligned loops, where there is one)
        if (auto Copy = alignedCopyOf(Prefix, ""))
          Aligned[I] = *Copy;
        NativeUnits[I] = Prefix;
        Units.push_back({Prefix, false});
        break;
      case Probes::Failed:
        Ok = false;
        break;
      }
    }
    if (!Ok)
      return 1;
    for (size_t I : Cmd.Objects) {
      const std::string &Obj = Cmd.Native[I];
      std::string Prefix = sidecarPrefix(Obj);
      // Any link input may be an object of ours whatever its name (-c -o util.obj): the
      // sidecars decide, the suffix only chooses the warning.
      bool HasProbes = !hasSuffix(Obj, ".a") && fs::exists(Prefix + ".trace.o") &&
                       fs::exists(Prefix + ".timing.o") && fs::exists(Prefix + ".blocks.yaml");
      // Built natively by us on purpose (no MPI calls, or not analysable): linked as it is.
      bool Native = !HasProbes && !hasSuffix(Obj, ".a") && fs::exists(Prefix + ".native") &&
                    !isOlder(Prefix + ".native", Obj);
      if (Native) {
        if (auto Copy = alignedCopyOf(Prefix, Obj))
          Aligned[I] = *Copy;
        NativeUnits[I] = Prefix;
        Units.push_back({Prefix, false});
        continue;
      }
      if (HasProbes && isOlder(Prefix + ".trace.o", Obj)) {
        // mpiete-cc writes the probes after the object: an object newer than its probes was
        // rebuilt by another compiler, and its old probes would model other code.
        Diags.warning({Obj, 0, 0},
                      "object is newer than its probes in .mpiete/ (rebuilt without " + Env.Tool +
                          "?); it is linked uninstrumented into the probes and its MPI calls "
                          "and time are not modelled",
                      "uninstrumented");
      } else if (HasProbes) {
        Variant[I] = Prefix;
        UnitMaps.push_back(Prefix + ".blocks.yaml");
        // The whole-program slice re-slices units with a skeleton; one without (a unit of
        // only sampled loops) is asked, like a native one, what its procedures do.
        Units.push_back({Prefix, fs::exists(Prefix + ".skeleton.o") ||
                                     !fs::exists(Prefix + ".skeleton.recipe")});
        continue;
      } else if (hasSuffix(Obj, ".o")) {
        Diags.warning({Obj, 0, 0},
                      "object was not compiled by " + Env.Tool +
                          "; it is linked uninstrumented into the probes and its MPI calls and "
                          "time are not modelled",
                      "uninstrumented");
      } else if (hasSuffix(Obj, ".a")) {
        Diags.warning({Obj, 0, 0},
                      "archive is linked uninstrumented into the probes; build its objects with " +
                          Env.Tool + " and link them directly to have them modelled",
                      "uninstrumented");
      }
    }
    for (size_t I : Cmd.Foreign)
      Diags.warning({Cmd.Native[I], 0, 0},
                    "not a source " + Env.Tool +
                        " instruments: linked uninstrumented into the probes",
                    "uninstrumented");

    if (!namesFit(Out, Out, {".blocks.yaml.tmp", ".skeleton.removed"}))
      return 1;
    // The skeleton trace probe: when some unit has one; the others link their trace variant.
    // When mpiete-cc built every input, each unit is sliced again knowing the others
    // (docs/skeleton.md, "Whole program").
    WholeProgramSkeleton Whole;
    bool AnySkeleton = false;
    for (const auto &[I, Prefix] : Variant)
      AnySkeleton |= fs::exists(Prefix + ".skeleton.o");
    if (AnySkeleton && Units.size() == Cmd.Objects.size() + Cmd.Sources.size() &&
        Cmd.Foreign.empty())
      linkWholeProgram(Units, OutPrefix, Env.Instrumenter, Env.Tool, Cmd.Verbose, Diags, Whole);
    else if (AnySkeleton && Cmd.Verbose)
      std::cerr << Env.Tool << ": skeleton sliced per unit: some input was not built by "
                << Env.Tool << "\n";
    std::string Removed;
    auto skeletonOf = [&](const std::string &Prefix) {
      auto It = Whole.Skeletons.find(Prefix);
      return It != Whole.Skeletons.end() ? It->second : Prefix + ".skeleton.o";
    };
    for (const auto &[I, Prefix] : Variant) {
      if (!fs::exists(Prefix + ".skeleton.o"))
        continue;
      auto It = Whole.Skeletons.find(Prefix);
      const bool Resliced = It != Whole.Skeletons.end();
      std::ifstream List(Resliced ? Whole.Removed.at(Prefix) : skeletonRemovedList(Prefix));
      std::string Text{std::istreambuf_iterator<char>(List), std::istreambuf_iterator<char>()};
      // The unit's header line says which slice it is.
      if (size_t Eol = Text.find('\n'); Resliced && Text.starts_with("# ") && Eol != Text.npos)
        Text.insert(Eol, "; sliced with the whole program");
      Removed += Text;
    }
    removeOutputs({Out + ".skeleton", Out + ".skeleton.removed"}, Out);
    // The timing probe's loops where the program has them (matchLoops): per unit, its listing
    // padded after the program's symbols; a unit that cannot be placed keeps its object.
    std::map<size_t, std::string> Placed;
    if (matchLoops()) {
      std::string Error;
      std::optional<std::vector<layout::ElfSymbol>> Program = layout::readElfSymbols(Out, Error);
      if (!Program && Cmd.Verbose)
        std::cerr << Env.Tool << ": the timing probe's loops are not placed: " << Out << ": "
                  << Error << "\n";
      for (size_t I = 0; Program && I < Cmd.Native.size(); ++I) {
        const bool Object =
            std::find(Cmd.Objects.begin(), Cmd.Objects.end(), I) != Cmd.Objects.end();
        // OutPrefix.<object name>.timing.placed: the link output's own file for this input.
        const std::string Dest =
            OutPrefix + "." + fs::path(Cmd.Native[I]).filename().string() + ".timing.placed";
        const std::string Obj = Object ? Cmd.Native[I] : "";
        if (auto It = Variant.find(I); It != Variant.end()) {
          if (auto P = placedTiming(It->second, It->second + ".timing.s", Dest, Obj, *Program))
            Placed[I] = *P;
        } else if (NativeUnits.count(I)) {
          if (auto P =
                  placedTiming(NativeUnits[I], NativeUnits[I] + ".orig.s", Dest, Obj, *Program))
            Placed[I] = *P;
        }
      }
    }
    for (const char *V : {"trace", "timing", "skeleton"}) {
      const bool Skel = std::string(V) == "skeleton";
      if (Skel && !AnySkeleton)
        continue;
      std::vector<std::string> Link{Env.NativeCompiler};
      for (size_t I = 0; I < Cmd.Native.size(); ++I) {
        auto It = Variant.find(I);
        if (std::string(V) == "timing" && Placed.count(I))
          Link.push_back(Placed[I]);
        else if (It != Variant.end() && Skel && fs::exists(It->second + ".skeleton.o"))
          Link.push_back(skeletonOf(It->second));
        else if (It != Variant.end())
          Link.push_back(It->second + "." + (Skel ? "trace" : V) + ".o");
        else if (std::string(V) == "timing" && Aligned.count(I))
          Link.push_back(Aligned[I]);
        else if (static_cast<int>(I) == Cmd.OutputIndex)
          Link.push_back(Out + "." + V);
        else
          Link.push_back(Cmd.Native[I]);
      }
      if (Cmd.OutputIndex < 0) {
        Link.push_back("-o");
        Link.push_back(Out + "." + V);
      }
      Link.push_back(Env.LibDir + "/libmpiete_" + (Skel ? "trace" : V) + ".a");
      Link.push_back("-lstdc++");
      Link.push_back("-lm");
      if (int Rc = exec(Link); Rc != 0) {
        KeepNative = true;
        Diags.error({Out + "." + V, 0, 0},
                    std::string("the ") + V + " probe does not link: " + Env.NativeCompiler +
                        " exit status " + std::to_string(Rc) +
                        ", its messages above; the native "
                        "program " +
                        Out + " is kept as mpicc built it",
                    "probe-failed");
        return 1;
      }
    }
    if (AnySkeleton) {
      std::ofstream List(Out + ".skeleton.removed");
      List << Removed;
    }
    return mergeBlockMaps(UnitMaps, Out) ? 0 : 1;
  }

  bool mergeBlockMaps(const std::vector<std::string> &Paths, const std::string &Out) {
    BlockMap Program;
    Program.Program = fs::path(Out).filename().string();
    Program.Tool = std::string("mpiete ") + MPIETE_VERSION;
    Program.Date = isoDateNow();
    // Provenance for the compute base data: which compiler built the timed code.
    const std::string &Text = nativeVersion();
    const std::string First = Text.substr(0, Text.find('\n'));
    Program.Compiler = Env.NativeCompiler + (First.empty() ? "" : " (" + First + ")");
    // How the timing probe's code differs from the program's besides the hooks.
    if (!alignFlag().empty())
      Program.Compiler += "; timing probe: " + alignFlag();
    else if (matchLoops())
      Program.Compiler += "; timing probe: loops placed as in the program (" +
                          std::to_string(LoopsPlaced) + " of " + std::to_string(LoopsSeen) + ")";
    std::map<uint32_t, std::pair<std::string, uint64_t>> Seen;
    for (const std::string &P : Paths) {
      BlockMap Unit;
      if (!readBlockMap(P, Unit, Diags))
        return false;
      for (UnitModel &U : Unit.Units) {
        auto [It, New] = Seen.try_emplace(U.UnitId, U.Source, U.ContentHash);
        if (!New) {
          if (It->second.second == U.ContentHash)
            continue; // the same unit linked twice
          Diags.error({P, 0, 0},
                      "units '" + It->second.first + "' and '" + U.Source +
                          "' have the same id; rename one of the files or change its flags",
                      "block-map");
          return false;
        }
        Program.Units.push_back(std::move(U));
      }
    }
    std::string MapPath = Out + ".blocks.yaml";
    std::ofstream OS(MapPath);
    writeBlockMap(OS, Program);
    if (!OS) {
      Diags.error({MapPath, 0, 0}, "cannot write the block map", "driver");
      return false;
    }
    return true;
  }

  const WrapperCommand &Cmd;
  const WrapperEnv &Env;
  DiagnosticSink &Diags;
  std::vector<std::string> MpiFlags;
  /// A Fortran unit's module search (--module-search=...) for its recipe (writeRecipe).
  std::vector<std::string> FortranSearch;
  bool VersionKnown = false, AlignKnown = false, Match = false;
  std::string Version, Align;
  size_t LoopsSeen = 0, LoopsPlaced = 0; // the timing probe's loop heads, and those placed
};

} // namespace

bool validAlignment(const std::string &Value) {
  if (Value == "no" || Value == "match")
    return true;
  if (Value.empty() || Value.size() > 4 ||
      !std::all_of(Value.begin(), Value.end(), [](char C) { return C >= '0' && C <= '9'; }))
    return false;
  const int N = std::stoi(Value);
  return N >= 1 && N <= 4096 && (N & (N - 1)) == 0;
}

int runWrapper(const WrapperCommand &Cmd, const WrapperEnv &Env, DiagnosticSink &Diags) {
  return Wrapper(Cmd, Env, Diags).run();
}

int wrapperMain(const std::vector<std::string> &Args, WrapperLanguage Lang, const char *Tool,
                const char *CompilerVar, const char *DefaultCompiler, const std::string &Help) {
  if (Args.size() == 1 && Args[0] == "--mpiete-help") {
    std::cout << Help;
    return 0;
  }
  DiagnosticSink Diags(std::cerr);
  WrapperCommand Cmd = parseWrapperCommand(Args, Lang);
  if (const char *V = std::getenv("MPIETE_VERBOSE"); V && *V && std::string(V) != "0")
    Cmd.Verbose = true;
  // A Makefile builds unchanged: the environment asks for the sampled loops' hooks too.
  if (const char *V = std::getenv("MPIETE_SAMPLE_LOOPS"); V && *V && std::string(V) != "0")
    Cmd.SampleLoops = true;
  // The option wins over the environment; either must name a boundary GCC and Clang take.
  if (const char *V = std::getenv("MPIETE_ALIGN_LOOPS"); V && *V && Cmd.AlignLoops.empty())
    Cmd.AlignLoops = V;
  if (!Cmd.AlignLoops.empty() && !validAlignment(Cmd.AlignLoops)) {
    Diags.error(
        {Tool, 0, 0},
        "--mpiete-align-loops=" + Cmd.AlignLoops +
            " (or MPIETE_ALIGN_LOOPS): must be 'match', a power of two from 1 to 4096, or 'no'",
        "driver");
    return 1;
  }

  std::error_code EC;
  fs::path Self = fs::read_symlink("/proc/self/exe", EC);
  fs::path Bin = EC ? fs::path(".") : Self.parent_path();
  WrapperEnv Env;
  const char *Native = std::getenv(CompilerVar);
  Env.NativeCompiler = Native && *Native ? Native : DefaultCompiler;
  const char *Instr = std::getenv("MPIETE_INSTRUMENT");
  Env.Instrumenter = Instr && *Instr ? Instr : (Bin / "mpiete-instrument").string();
  Env.IncludeDir = (Bin.parent_path() / "include").string();
  Env.LibDir = (Bin.parent_path() / "lib").string();
  Env.Tool = Tool;
  return runWrapper(Cmd, Env, Diags);
}

} // namespace mpiete
