// mpiete-fc: a drop-in for mpif90 / mpif77 that also builds the trace and timing probes.
#include "mpiete/tools/CompilerWrapper.h"
#include "mpiete/tools/LastResort.h"

static const char *const HelpHead = R"(usage: mpiete-fc [mpif90 arguments]

A drop-in replacement for mpif90 and mpif77. It runs the native compiler ($MPIETE_FC, default
mpif90) with the same arguments, then instruments every Fortran source (.f .F .f90 .F90 ...;
fixed or free form, preprocessed or not) with Flang and builds beside each object an
instrumented trace and timing object (in a .mpiete/ folder next to it; Flang's module files
for the analysis go to .mpiete/fmod beside the -J directory or the object), and beside each
executable APP:
  APP.trace        the trace probe   (program base data:  mpiete probe-program)
  APP.timing       the timing probe  (compute base data:  mpiete probe-compute)
  APP.blocks.yaml  the block map     (every block id with file, lines, procedure, loops)

Example:
  make FC=mpiete-fc F77=mpiete-fc
  mpiete-fc -O2 -ffixed-line-length-132 -o cg cg.f blas.f

gfortran flags go to the native compiler unchanged; the analysis (Flang) gets the ones that
change how the source reads (-I -D -U -cpp -ffixed-form -ffree-form -ffixed-line-length-N
-fdefault-real-8 -fdefault-integer-8 -fdefault-double-8 -fopenmp). `use mpi_f08` is not
supported (docs/fortran.md).

mpiete options (removed before the native compiler sees the command line):
)";

static const char *const HelpTail =
    R"(Environment: MPIETE_FC (native compiler), MPIETE_VERBOSE=1, MPIETE_INSTRUMENT (instrumenter),
MPIETE_FLANG (flang-new).
)";

static int guardedMain(int Argc, char **Argv) {
  std::string Help = HelpHead + mpiete::mpieteOptionsHelp() + HelpTail;
  return mpiete::wrapperMain(std::vector<std::string>(Argv + 1, Argv + Argc),
                             mpiete::WrapperLanguage::Fortran, "mpiete-fc", "MPIETE_FC",
                             MPIETE_DEFAULT_MPIF90, Help);
}

int main(int Argc, char **Argv) {
  return mpiete::runWithLastResort([&] { return guardedMain(Argc, Argv); });
}
