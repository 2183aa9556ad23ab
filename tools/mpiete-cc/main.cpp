// mpiete-cc: a drop-in for mpicc that also builds the trace and timing probes.
#include "mpiete/tools/CompilerWrapper.h"
#include "mpiete/tools/LastResort.h"

static const char *const HelpHead = R"(usage: mpiete-cc [mpicc arguments]

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
)";

static const char *const HelpTail =
    R"(Environment: MPIETE_CC (native compiler), MPIETE_VERBOSE=1, MPIETE_INSTRUMENT (instrumenter).
)";

static int guardedMain(int Argc, char **Argv) {
  std::string Help = HelpHead + mpiete::mpieteOptionsHelp() + HelpTail;
  return mpiete::wrapperMain(std::vector<std::string>(Argv + 1, Argv + Argc),
                             mpiete::WrapperLanguage::C, "mpiete-cc", "MPIETE_CC",
                             MPIETE_DEFAULT_MPICC, Help);
}

int main(int Argc, char **Argv) {
  return mpiete::runWithLastResort([&] { return guardedMain(Argc, Argv); });
}
