# lit configuration of mpiete's golden tests: one small C input per instrumentation feature.
import os

import lit.formats

config.name = "mpiete"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".c", ".f", ".f90", ".F", ".F90"]
# Headers and helper files the tests include; not tests themselves.
config.excludes = ["Inputs", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)

if not hasattr(config, "mpiete_obj_root"):
    lit_config.fatal("run lit on the build tree (tests/lit in the build directory), where "
                     "CMake wrote lit.site.cfg.py")

instrument = os.path.join(config.mpiete_tools_dir, "mpiete-instrument")
if not os.path.exists(instrument):
    lit_config.fatal("%s is not built (ninja mpiete-instrument mpiete_runtime_headers)"
                     % instrument)

# -Wall -Werror: the instrumented text of a clean input must be clean too.
mpicc_syntax = "%s -fsyntax-only -Wall -Werror -I%s" % (config.mpicc, config.mpiete_include_dir)

# Fortran: the mpiete-fortran plugin must be built; the output is checked by mpif90 (gfortran)
# in its own directory so it leaves no module files behind.
if os.path.exists(os.path.join(config.mpiete_obj_root, "lib", "mpiete-fortran.so")):
    config.available_features.add("fortran")
# Legacy forms (shared DO termination, computed GOTO) are allowed; what mpiete adds must not
# warn, and a line pushed past its last column must show.
mpif90_syntax = ("%s -fsyntax-only -std=legacy -Werror -Wline-truncation "
                 "-fallow-argument-mismatch" % config.mpif90)
config.substitutions.append(("%mpif90-syntax", mpif90_syntax))
config.substitutions.append(("%mpi-fflags", config.mpi_fflags))
config.substitutions.append(("%mpif90", config.mpif90))

# Longest names first: lit substitutes in order.
config.substitutions.append(("%mpiete-instrument", instrument))
config.substitutions.append(("%mpicc-syntax", mpicc_syntax))
config.substitutions.append(("%mpi-cflags", config.mpi_cflags))
config.substitutions.append(("%mpiete-include-dir", config.mpiete_include_dir))
config.substitutions.append(("%mpicc", config.mpicc))
config.substitutions.append(("FileCheck", config.filecheck))

# Open MPI's wrappers refuse to run as root without these.
for var in ("OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"):
    config.environment[var] = "1"
for var in ("PATH", "HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
