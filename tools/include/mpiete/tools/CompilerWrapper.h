// The drop-in compiler wrapper (mpiete-cc): reads an mpicc command line, builds the program as
// mpicc would, then builds the trace and timing probes and the block map beside it.
#ifndef MPIETE_TOOLS_COMPILERWRAPPER_H
#define MPIETE_TOOLS_COMPILERWRAPPER_H

#include "mpiete/frontend/CompilerOptions.h"

#include <string>
#include <vector>

namespace mpiete {

class DiagnosticSink;

/// What an mpicc command line asks for, and where its inputs and outputs are.
struct WrapperCommand {
  enum class Mode {
    PassOnly, ///< preprocess, dependencies only, version queries, shared objects: mpicc alone
    Compile,  ///< -c: objects, plus instrumented objects under <objdir>/.mpiete/
    Link,     ///< an executable, plus <exe>.trace, <exe>.timing and <exe>.blocks.yaml
  };
  Mode Kind = Mode::PassOnly;
  std::vector<std::string> Native; ///< the user's arguments without --mpiete-* options
  std::vector<size_t> Sources;     ///< indices into Native of the sources mpiete instruments
  std::vector<size_t> Foreign;     ///< indices of other sources (C++, Fortran, assembly)
  std::vector<size_t> Objects;     ///< indices of object files and archives (link inputs)
  int OutputIndex = -1;            ///< index of the value of -o, or -1
  std::string PassOnlyReason;      ///< why no probes are built, for verbose output

  // mpiete's own options (--mpiete-*), removed from Native.
  std::vector<std::string> PassThrough;
  bool PassThroughAll = false;
  bool SeedBlocks = false;   ///< --mpiete-seed-blocks: seed 004's finer block partition
  bool CoarseBlocks = false; ///< --mpiete-coarse-blocks: C compute blocks between MPI calls
  /// --mpiete-sample-loops or MPIETE_SAMPLE_LOOPS=1: the timing probe gets the sampled loops'
  /// hooks, for probe-compute --sample (docs/probes.md, "Sampled loops")
  bool SampleLoops = false;
  /// --mpiete-align-loops=N|no (or MPIETE_ALIGN_LOOPS): the boundary the timing probe's loops
  /// start on; empty or "match": the default, each where the program has it within its
  /// 64-byte line (GCC only); "no": the compiler's own (docs/probes.md, "Loop alignment")
  std::string AlignLoops;
  bool Verbose = false;

  std::string output() const { return OutputIndex >= 0 ? Native[OutputIndex] : ""; }
  /// The sampled loops' hooks go in: asked for, and the block partition is the default one.
  bool samplesLoops() const { return SampleLoops && !SeedBlocks && !CoarseBlocks; }
};

/// Which sources a wrapper instruments: mpiete-cc C sources; mpiete-fc Fortran sources (fixed
/// and free form, preprocessed or not) and the C sources a Fortran build may compile too.
enum class WrapperLanguage { C, Fortran };

/// Parses an mpicc (or mpif90) command line (without argv[0]). Unknown options are kept for
/// the native compiler; nothing is rejected here that mpicc would accept.
WrapperCommand parseWrapperCommand(const std::vector<std::string> &Args,
                                   WrapperLanguage Lang = WrapperLanguage::C);

/// The arguments with which a variant of one source is compiled: the user's flags without
/// inputs, outputs, the stage (-c) and dependency generation (CompilerOptions.h categories).
std::vector<std::string> variantCompileFlags(const WrapperCommand &Cmd);

/// Whether Value is a loop alignment --mpiete-align-loops takes: a power of two from 1 to 4096
/// (bytes), or "no".
bool validAlignment(const std::string &Value);

/// The arguments that matter for parsing (for the instrumenter).
std::vector<std::string> instrumenterFlags(const WrapperCommand &Cmd);

/// The object a source compiles to under -c: the -o value, or its base name with .o.
std::string objectFor(const WrapperCommand &Cmd, const std::string &Source);

/// <dir of Object>/.mpiete/<name of Object>: the prefix of every file mpiete keeps for it.
std::string sidecarPrefix(const std::string &Object);

struct WrapperEnv {
  std::string NativeCompiler; ///< $MPIETE_CC or mpicc ($MPIETE_FC or mpif90)
  std::string Instrumenter;   ///< mpiete-instrument
  std::string IncludeDir;     ///< holds mpiete/instrument.h
  std::string LibDir;         ///< holds libmpiete_trace.a and libmpiete_timing.a
  std::string Tool = "mpiete-cc";
};

/// A Fortran source by its extension (.f .F .for .f90 .F90 .f95 ...); preprocessed when the
/// extension is upper case.
bool isFortranSource(const std::string &Path);

/// The whole run of a wrapper executable (mpiete-cc, mpiete-fc): `--mpiete-help` prints Help;
/// otherwise the native compiler is $CompilerVar (default DefaultCompiler), the instrumenter
/// $MPIETE_INSTRUMENT or the one beside this executable, the runtime in ../include and ../lib,
/// and MPIETE_VERBOSE=1 turns on --mpiete-verbose. Returns the process exit status.
int wrapperMain(const std::vector<std::string> &Args, WrapperLanguage Lang, const char *Tool,
                const char *CompilerVar, const char *DefaultCompiler, const std::string &Help);

/// Runs the whole wrapper; returns the process exit status.
int runWrapper(const WrapperCommand &Cmd, const WrapperEnv &Env, DiagnosticSink &Diags);

} // namespace mpiete

#endif
