// The compiler option table (CompilerOptions.h) and the per-consumer views derived from it.
#include "mpiete/frontend/CompilerOptions.h"

#include <algorithm>

namespace mpiete {
namespace {

using A = OptionArity;
using C = OptionCategory;

// Spellings mpiete must know: those that take a separate value (or the value would be taken for
// an input), those a consumer keeps, and those that change what the command makes. Anything else
// goes to the native compiler untouched. Where gcc accepts a joined form that the parse and the
// unit id have never kept (-xc, -includefile), the option is declared Separate so they keep not
// seeing it: unit ids must not change.
constexpr CompilerOption Table[] = {
    // What the command makes, and queries that make nothing.
    {"-c", A::Flag, C::Stage},
    {"-E", A::Flag, C::Stage, UseNoObject},
    {"-S", A::Flag, C::Stage, UseNoObject},
    {"-fsyntax-only", A::Flag, C::Stage, UseNoObject},
    {"-shared", A::Flag, C::Stage},
    {"--version", A::Flag, C::Query, UseNoObject},
    {"-dumpversion", A::Flag, C::Query, UseNoObject},
    {"-dumpmachine", A::Flag, C::Query, UseNoObject},
    {"-print-", A::Joined, C::Query, UseNoObject},
    {"-showme", A::Joined, C::Query, UseNoObject},
    {"--showme", A::Joined, C::Query, UseNoObject},
    {"-###", A::Flag, C::Query, UseNoObject},
    {"--help", A::Flag, C::Query, UseNoObject},
    {"-o", A::JoinedOrSeparate, C::Output},

    // The preprocessor.
    {"-I", A::JoinedOrSeparate, C::Preprocessor, UseClangParse | UseFlangParse},
    {"-D", A::JoinedOrSeparate, C::Preprocessor, UseClangParse | UseFlangParse | UseUnitId},
    {"-U", A::JoinedOrSeparate, C::Preprocessor, UseClangParse | UseFlangParse | UseUnitId},
    {"-include", A::Separate, C::Preprocessor, UseClangParse | UseUnitId},
    {"-imacros", A::Separate, C::Preprocessor, UseClangParse},
    {"-iquote", A::JoinedOrSeparate, C::Preprocessor, UseClangParse},
    {"-isystem", A::JoinedOrSeparate, C::Preprocessor, UseClangParse},
    {"-idirafter", A::JoinedOrSeparate, C::Preprocessor, UseClangParse},
    {"-isysroot", A::Separate, C::Preprocessor, UseClangParse},
    {"--sysroot", A::Separate, C::Preprocessor, UseClangParse},
    {"--sysroot=", A::Joined, C::Preprocessor, UseClangParse},
    {"-iprefix", A::Separate, C::Preprocessor},
    {"-iwithprefix", A::Separate, C::Preprocessor},
    {"-iwithprefixbefore", A::Separate, C::Preprocessor},
    {"-A", A::Separate, C::Preprocessor},
    {"-Xpreprocessor", A::Separate, C::Preprocessor},
    {"-cpp", A::Flag, C::Preprocessor, UseFlangParse},
    {"-nocpp", A::Flag, C::Preprocessor, UseFlangParse},

    // How the source reads.
    {"-x", A::Separate, C::Input, UseClangParse},
    {"-std=", A::Joined, C::Parsing, UseClangParse},
    {"-ansi", A::Flag, C::Parsing, UseClangParse},
    {"-funsigned-char", A::Flag, C::Parsing, UseClangParse},
    {"-fsigned-char", A::Flag, C::Parsing, UseClangParse},
    {"-fgnu89-inline", A::Flag, C::Parsing, UseClangParse},
    {"-fopenmp", A::Flag, C::Parsing, UseClangParse | UseFlangParse},
    {"-fopenmp=", A::Joined, C::Parsing, UseClangParse},
    {"-pthread", A::Flag, C::Parsing, UseClangParse},
    {"-ffixed-form", A::Flag, C::Parsing, UseFlangParse},
    {"-ffree-form", A::Flag, C::Parsing, UseFlangParse},
    {"-ffixed-line-length-", A::Joined, C::Parsing, UseFlangParse},
    {"-ffixed-line-length=", A::Joined, C::Parsing, UseFlangParse},
    // Flang has no free-form line limit to set.
    {"-ffree-line-length-", A::Joined, C::Parsing},
    {"-ffree-line-length=", A::Joined, C::Parsing},
    {"-fdefault-real-8", A::Flag, C::Parsing, UseFlangParse},
    {"-fdefault-integer-8", A::Flag, C::Parsing, UseFlangParse},
    {"-fdefault-double-8", A::Flag, C::Parsing, UseFlangParse},
    {"-fbackslash", A::Flag, C::Parsing, UseFlangParse},
    {"-fimplicit-none", A::Flag, C::Parsing, UseFlangParse},
    {"-flogical-abbreviations", A::Flag, C::Parsing, UseFlangParse},
    {"-fxor-operator", A::Flag, C::Parsing, UseFlangParse},

    // Code generation: Clang's parse keeps those that predefine macros (__OPTIMIZE__, __SSE2__,
    // __FAST_MATH__, __LP64__).
    {"-O", A::Joined, C::CodeGen, UseClangParse},
    {"-Ofast", A::Flag, C::CodeGen},
    {"-march=", A::Joined, C::CodeGen, UseClangParse},
    {"-mtune=", A::Joined, C::CodeGen, UseClangParse},
    {"-m32", A::Flag, C::CodeGen, UseClangParse},
    {"-m64", A::Flag, C::CodeGen, UseClangParse},
    {"-ffast-math", A::Flag, C::CodeGen, UseClangParse},
    {"--param", A::Separate, C::CodeGen},
    {"-aux-info", A::Separate, C::Other},
    {"-Xassembler", A::Separate, C::Other},

    // The link.
    {"-L", A::JoinedOrSeparate, C::Link},
    {"-l", A::JoinedOrSeparate, C::Link},
    {"-Xlinker", A::Separate, C::Link},
    {"-u", A::Separate, C::Link},
    {"-T", A::Separate, C::Link},
    {"-e", A::Separate, C::Link},
    {"-z", A::Separate, C::Link},

    // Make dependencies: never in the variants' compiles, which would overwrite the user's.
    {"-M", A::Flag, C::Dependency, UseNoObject},
    {"-MM", A::Flag, C::Dependency, UseNoObject},
    {"-MD", A::Flag, C::Dependency},
    {"-MMD", A::Flag, C::Dependency},
    {"-MP", A::Flag, C::Dependency},
    {"-MG", A::Flag, C::Dependency},
    {"-MF", A::JoinedOrSeparate, C::Dependency},
    {"-MT", A::JoinedOrSeparate, C::Dependency},
    {"-MQ", A::JoinedOrSeparate, C::Dependency},
    {"-Wp,-M", A::Joined, C::Dependency},

    // Fortran module directories (gfortran's -J, ifort's -module).
    {"-J", A::JoinedOrSeparate, C::FortranModuleDir},
    {"-module", A::Separate, C::FortranModuleDir},

    // mpiete's own, removed before the native compiler sees the command line.
    {"--mpiete-pass-through=", A::Joined, C::Mpiete, UseNone, "MPI_X[,MPI_Y]",
     "leave these unsupported MPI routines uninstrumented\n"
     "(a warning; predictions ignore their cost); 'all' for all"},
    {"--mpiete-verbose", A::Flag, C::Mpiete, UseNone, "", "print every command run"},
    {"--mpiete-sample-loops", A::Flag, C::Mpiete, UseNone, "",
     "the timing probe gets the hooks of the loops of pure computation\n"
     "probe-compute --sample samples (also MPIETE_SAMPLE_LOOPS=1)"},
    {"--mpiete-seed-blocks", A::Flag, C::Mpiete, UseNone, "",
     "seed 004's compute blocks (every loop and branch ends one)\n"
     "instead of segments between MPI calls, for comparison"},
    {"--mpiete-coarse-blocks", A::Flag, C::Mpiete, UseNone, "",
     "C: compute blocks between MPI calls (loops of pure\n"
     "computation inside them) instead of segments"},
    {"--mpiete-align-loops=", A::Joined, C::Mpiete, UseNone, "match|N|no",
     "where the timing probe's loops start: match (the default\n"
     "with GCC) where the program's do, within their 64-byte lines;\n"
     "N on N-byte boundaries; no: where the compiler puts them\n"
     "(also MPIETE_ALIGN_LOOPS): docs/probes.md"},
    {"--mpiete-help", A::Flag, C::Mpiete},
    // Unknown --mpiete-* options are dropped too: they are never the native compiler's.
    {"--mpiete-", A::Joined, C::Mpiete},
};

bool matches(const CompilerOption &O, std::string_view Arg) {
  switch (O.Arity) {
  case A::Flag:
  case A::Separate:
    return Arg == O.Spelling;
  case A::Joined:
  case A::JoinedOrSeparate:
    return Arg.starts_with(O.Spelling);
  }
  return false;
}

} // namespace

std::span<const CompilerOption> compilerOptions() { return Table; }

const CompilerOption *findCompilerOption(std::string_view Arg) {
  if (Arg.size() < 2 || Arg[0] != '-')
    return nullptr;
  const CompilerOption *Best = nullptr;
  for (const CompilerOption &O : Table)
    if (matches(O, Arg) && (!Best || O.Spelling.size() > Best->Spelling.size()))
      Best = &O;
  return Best;
}

std::vector<ParsedOption> parseCompilerArgs(std::span<const std::string> Args) {
  std::vector<ParsedOption> Out;
  for (size_t I = 0; I < Args.size(); ++I) {
    ParsedOption P;
    P.Index = I;
    P.Option = findCompilerOption(Args[I]);
    if (P.Option) {
      std::string_view Arg = Args[I];
      if (Arg.size() > P.Option->Spelling.size()) {
        P.Value = Arg.substr(P.Option->Spelling.size());
      } else if (P.Option->takesSeparateValue() && I + 1 < Args.size()) {
        P.Value = Args[++I];
        P.Count = 2;
      }
    }
    Out.push_back(P);
  }
  return Out;
}

std::vector<std::string> argsWithUse(std::span<const std::string> Args, OptionUse Use) {
  std::vector<std::string> Out;
  for (size_t I = 0; I < Args.size(); ++I) {
    const CompilerOption *O = findCompilerOption(Args[I]);
    if (!O || !O->uses(Use))
      continue; // one argument: a value that looks like a kept option is kept (-Xpreprocessor -DX)
    bool Alone = Args[I].size() == O->Spelling.size();
    if (O->takesSeparateValue() && Alone) {
      if (I + 1 < Args.size()) // a separate option missing its value is no option
        Out.insert(Out.end(), {Args[I], Args[I + 1]});
      ++I;
      continue;
    }
    Out.push_back(Args[I]);
  }
  return Out;
}

std::vector<std::string> unitDefines(const std::vector<std::string> &Args) {
  std::vector<std::string> Out;
  std::vector<std::string> Kept = argsWithUse(Args, UseUnitId);
  for (const ParsedOption &P : parseCompilerArgs(Kept)) {
    // One word per option, so "-D X" and "-DX" are the same unit: a value that may be joined is
    // joined, one that is always separate keeps its blank.
    std::string Word(P.Option->Spelling);
    if (P.Count == 2)
      Word += P.Option->Arity == A::Separate ? " " : "";
    Out.push_back(Word + std::string(P.Value));
  }
  return Out;
}

std::vector<std::string> parsingArgs(const std::vector<std::string> &Args) {
  return argsWithUse(Args, UseClangParse);
}

std::vector<std::string> flangAnalysisFlags(const std::vector<std::string> &Flags) {
  std::vector<std::string> Out;
  std::vector<std::string> Kept = argsWithUse(Flags, UseFlangParse);
  for (const ParsedOption &P : parseCompilerArgs(Kept)) {
    if (P.Option->Spelling.starts_with("-ffixed-line-length")) {
      // gfortran's -ffixed-line-length-N is Flang's -ffixed-line-length=N, 'none' is 0.
      Out.push_back("-ffixed-line-length=" + (P.Value == "none" ? "0" : std::string(P.Value)));
      continue;
    }
    Out.insert(Out.end(), Kept.begin() + P.Index, Kept.begin() + P.Index + P.Count);
  }
  return Out;
}

std::vector<std::string> fortranModuleDirs(const std::vector<std::string> &Flags) {
  std::vector<std::string> Out;
  for (const ParsedOption &P : parseCompilerArgs(Flags))
    if (P.Option && P.Option->Category == C::FortranModuleDir && !P.Value.empty())
      Out.push_back(std::string(P.Value));
  return Out;
}

std::string mpieteOptionsHelp() {
  constexpr size_t HelpColumn = 39;
  std::string Out;
  for (const CompilerOption &O : Table) {
    if (O.Category != C::Mpiete || O.Help.empty())
      continue;
    std::string Line = "  " + std::string(O.Spelling) + std::string(O.MetaVar);
    std::string_view Help = O.Help;
    for (bool First = true; !Help.empty(); First = false) {
      size_t End = Help.find('\n');
      std::string_view Part = Help.substr(0, End);
      Line.resize(std::max(HelpColumn, First ? Line.size() + 2 : HelpColumn), ' ');
      Out += Line + std::string(Part) + "\n";
      Line.clear();
      Help = End == std::string_view::npos ? std::string_view() : Help.substr(End + 1);
    }
  }
  return Out;
}

} // namespace mpiete
