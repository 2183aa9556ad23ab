// The one table of the gcc / mpicc / gfortran options mpiete reads, and the views derived from it.
#ifndef MPIETE_FRONTEND_COMPILEROPTIONS_H
#define MPIETE_FRONTEND_COMPILEROPTIONS_H

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mpiete {

/// How an option carries its value (LLVM's OptTable kinds).
enum class OptionArity : uint8_t {
  Flag,             ///< -c: the spelling is the whole argument
  Joined,           ///< -std=c99: the value follows the spelling in the same argument
  Separate,         ///< -include cfg.h: the value is the next argument
  JoinedOrSeparate, ///< -Idir or -I dir
};

/// What an option is about.
enum class OptionCategory : uint8_t {
  Stage,            ///< what the command makes: -c, -E, -S, -fsyntax-only, -shared
  Query,            ///< asks the compiler something and makes nothing: --version, -showme
  Input,            ///< the language of the inputs that follow: -x
  Output,           ///< -o
  Preprocessor,     ///< include paths, macros, forced includes
  Parsing,          ///< how the source reads: -std=, source form and line length, default kinds
  CodeGen,          ///< optimisation and target choices
  Link,             ///< libraries, linker options
  Dependency,       ///< make dependencies: -M, -MD, -MF ...
  FortranModuleDir, ///< where module files go: -J, -module
  Mpiete,           ///< mpiete's own --mpiete-* options, never seen by the native compiler
  Other,            ///< values to skip, nothing mpiete uses
};

/// Who keeps an option besides the native compiler (a bit set).
enum OptionUse : uint8_t {
  UseNone = 0,
  UseClangParse = 1, ///< Clang parses the C unit with it (macros it predefines count)
  UseFlangParse = 2, ///< Flang analyses the Fortran unit with it (translated from gfortran)
  UseUnitId = 4,     ///< selects the unit's code: part of the unit id
  UseNoObject = 8,   ///< the command makes no object: the wrapper only runs the native compiler
};

struct CompilerOption {
  std::string_view Spelling;
  OptionArity Arity;
  OptionCategory Category;
  uint8_t Uses = UseNone;
  std::string_view MetaVar = {}; ///< mpiete's own options: the value in the help
  std::string_view Help = {};    ///< mpiete's own options: the help text; none: not listed

  bool takesSeparateValue() const {
    return Arity == OptionArity::Separate || Arity == OptionArity::JoinedOrSeparate;
  }
  bool uses(OptionUse U) const { return (Uses & U) != 0; }
};

/// Every option, in no particular order.
std::span<const CompilerOption> compilerOptions();

/// The option an argument is (or begins with): a Flag or Separate option by its exact
/// spelling, a Joined one by its prefix; the longest spelling wins. Null for unknown options,
/// inputs and values.
const CompilerOption *findCompilerOption(std::string_view Arg);

/// One option on a command line: the table entry, where it starts and how many arguments it
/// takes (2 when its value is separate), and its value.
struct ParsedOption {
  const CompilerOption *Option = nullptr; ///< null: an input, or an option mpiete does not know
  size_t Index = 0;
  size_t Count = 1;
  std::string_view Value;
};

/// Splits a command line into options and other arguments (every argument is in exactly one
/// element). A Separate option at the end of the line has Count 1 and no value.
std::vector<ParsedOption> parseCompilerArgs(std::span<const std::string> Args);

/// The arguments of Args whose option has Use, with their separate values.
std::vector<std::string> argsWithUse(std::span<const std::string> Args, OptionUse Use);

/// The -D/-U/-include options of a command line, in order, each as one word ("-DX", "-UY",
/// "-include cfg.h"): what makes a unit distinct, hashed into its id.
std::vector<std::string> unitDefines(const std::vector<std::string> &CompilerArgs);

/// The subset of a gcc/mpicc command line that Clang needs to parse the unit the same way:
/// include paths, macros, forced includes, the language standard, predefined-macro choices.
std::vector<std::string> parsingArgs(const std::vector<std::string> &CompilerArgs);

/// The Flang -fc1 flags for analysing a Fortran unit compiled with these gfortran/mpif90
/// flags: include paths, macros, source form and line length, default kinds, -cpp. Flags
/// Flang does not know (optimisation, warnings, -fallow-argument-mismatch, ...) are dropped;
/// module directories (-J) are the caller's business (Flang cannot read gfortran's modules).
std::vector<std::string> flangAnalysisFlags(const std::vector<std::string> &Flags);

/// The module directories of a gfortran command line (-J dir, -Jdir, -module dir).
std::vector<std::string> fortranModuleDirs(const std::vector<std::string> &Flags);

/// The "mpiete options" part of a wrapper's help, from the table.
std::string mpieteOptionsHelp();

} // namespace mpiete

#endif
