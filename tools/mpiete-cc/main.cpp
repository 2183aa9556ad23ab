// mpiete-cc: a drop-in for mpicc that also builds the trace and timing probes.
#include "mpiete/support/Diagnostics.h"
#include "mpiete/tools/CompilerWrapper.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace fs = std::filesystem;

static const char *const Help = R"(usage: mpiete-cc [mpicc arguments]

A drop-in replacement for mpicc. It runs the native compiler ($MPIETE_CC, default mpicc) with
the same arguments, then builds beside each object an instrumented trace and timing object
(in a .mpiete/ folder next to it), and beside each executable APP:
  APP.trace        the trace probe   (program base data:  mpiete probe-program)
  APP.timing       the timing probe  (compute base data:  mpiete probe-compute)
  APP.blocks.yaml  the block map     (every block id with file, lines, procedure, loops)

Example:
  make CC=mpiete-cc
  mpiete-cc -O2 -o jacobi main.c halo.c -lm

mpiete options (removed before the native compiler sees the command line):
  --mpiete-pass-through=MPI_X[,MPI_Y]  leave these unsupported MPI routines uninstrumented
                                       (a warning; predictions ignore their cost); 'all' for all
  --mpiete-verbose                     print every command run
Environment: MPIETE_CC (native compiler), MPIETE_VERBOSE=1, MPIETE_INSTRUMENT (instrumenter).
)";

int main(int Argc, char **Argv) {
  std::vector<std::string> Args(Argv + 1, Argv + Argc);
  if (Args.size() == 1 && Args[0] == "--mpiete-help") {
    std::cout << Help;
    return 0;
  }
  mpiete::DiagnosticSink Diags(std::cerr);
  mpiete::WrapperCommand Cmd = mpiete::parseWrapperCommand(Args);
  if (const char *V = std::getenv("MPIETE_VERBOSE"); V && *V && std::string(V) != "0")
    Cmd.Verbose = true;

  std::error_code EC;
  fs::path Self = fs::read_symlink("/proc/self/exe", EC);
  fs::path Bin = EC ? fs::path(".") : Self.parent_path();
  mpiete::WrapperEnv Env;
  const char *Native = std::getenv("MPIETE_CC");
  Env.NativeCompiler = Native && *Native ? Native : "mpicc";
  const char *Instr = std::getenv("MPIETE_INSTRUMENT");
  Env.Instrumenter = Instr && *Instr ? Instr : (Bin / "mpiete-instrument").string();
  Env.IncludeDir = (Bin.parent_path() / "include").string();
  Env.LibDir = (Bin.parent_path() / "lib").string();
  return mpiete::runWrapper(Cmd, Env, Diags);
}
