# Which MPI library mpiete is built and tested with (MPIETE_MPI=auto|openmpi|mpich): its
# compilers, its launcher and how that launcher is told to run more ranks than cores.
#
# auto takes the library of the first `mpicc` on PATH. mpich looks for that library's own names
# first (mpicc.mpich, mpiexec.mpich, ... as Debian installs both side by side), then the plain
# names; openmpi the plain names (as mpiete always did). Sets, before find_package(MPI) runs:
#   MPIETE_MPI_KIND          openmpi or mpich
#   MPIETE_MPICC, MPIETE_MPIF90, MPIETE_MPIEXEC   full paths
#   MPIETE_MPICC_NAME, MPIETE_MPIF90_NAME, MPIETE_MPIEXEC_NAME   what the tools run by default
#   MPIETE_OVERSUBSCRIBE     the launcher option allowing more ranks than cores (empty for hydra,
#                            which never refuses): write it unquoted in test COMMANDs
set(MPIETE_MPI auto CACHE STRING "MPI library: auto (the first mpicc on PATH), openmpi or mpich")
set_property(CACHE MPIETE_MPI PROPERTY STRINGS auto openmpi mpich)

function(_mpiete_mpi_kind_of compiler out)
  set(kind "")
  if(compiler)
    get_filename_component(real "${compiler}" REALPATH)
    if(real MATCHES "opal_wrapper|openmpi")
      set(kind openmpi)
    elseif(real MATCHES "mpich")
      set(kind mpich)
    else()
      execute_process(COMMAND ${compiler} -show OUTPUT_VARIABLE show ERROR_QUIET)
      execute_process(COMMAND ${compiler} --showme:version OUTPUT_VARIABLE version ERROR_QUIET)
      if(version MATCHES "Open MPI")
        set(kind openmpi)
      elseif(show MATCHES "mpich")
        set(kind mpich)
      endif()
    endif()
  endif()
  set(${out} ${kind} PARENT_SCOPE)
endfunction()

if(MPIETE_MPI STREQUAL "auto")
  find_program(_mpiete_first_mpicc mpicc)
  _mpiete_mpi_kind_of("${_mpiete_first_mpicc}" _kind)
  if(NOT _kind)
    set(_kind openmpi)
  endif()
elseif(MPIETE_MPI MATCHES "^(openmpi|mpich)$")
  set(_kind ${MPIETE_MPI})
else()
  message(FATAL_ERROR "MPIETE_MPI must be auto, openmpi or mpich, not '${MPIETE_MPI}'")
endif()
set(MPIETE_MPI_KIND ${_kind})

if(MPIETE_MPI_KIND STREQUAL "mpich")
  find_program(MPIETE_MPICC NAMES mpicc.mpich mpicc)
  find_program(MPIETE_MPIF90 NAMES mpif90.mpich mpifort.mpich mpif90 mpifort)
  find_program(MPIETE_MPIEXEC NAMES mpiexec.mpich mpiexec.hydra mpiexec)
  set(MPIETE_OVERSUBSCRIBE "")
else()
  find_program(MPIETE_MPICC NAMES mpicc mpicc.openmpi)
  find_program(MPIETE_MPIF90 NAMES mpif90 mpifort mpif90.openmpi)
  find_program(MPIETE_MPIEXEC NAMES mpirun mpiexec mpirun.openmpi)
  set(MPIETE_OVERSUBSCRIBE --oversubscribe)
endif()
if(NOT MPIETE_MPICC OR NOT MPIETE_MPIEXEC)
  message(FATAL_ERROR "MPIETE_MPI=${MPIETE_MPI_KIND}: no mpicc or launcher of that library found")
endif()
_mpiete_mpi_kind_of("${MPIETE_MPICC}" _found)
if(_found AND NOT _found STREQUAL MPIETE_MPI_KIND)
  message(FATAL_ERROR "MPIETE_MPI=${MPIETE_MPI_KIND}, but ${MPIETE_MPICC} is ${_found}'s")
endif()

# The tools run the library's compilers and launcher by name when that name is the library's
# own (mpicc.mpich), else the plain name found on PATH at run time, as before.
get_filename_component(MPIETE_MPICC_NAME "${MPIETE_MPICC}" NAME)
get_filename_component(MPIETE_MPIEXEC_NAME "${MPIETE_MPIEXEC}" NAME)
if(MPIETE_MPIF90)
  get_filename_component(MPIETE_MPIF90_NAME "${MPIETE_MPIF90}" NAME)
else()
  set(MPIETE_MPIF90_NAME mpif90)
endif()
if(MPIETE_MPI_KIND STREQUAL "openmpi")
  # Keep the historical defaults: the user's PATH decides.
  set(MPIETE_MPICC_NAME mpicc)
  set(MPIETE_MPIF90_NAME mpif90)
  set(MPIETE_MPIEXEC_NAME mpirun)
endif()

set(MPI_C_COMPILER ${MPIETE_MPICC} CACHE FILEPATH "" FORCE)
if(MPIETE_MPIF90)
  set(MPI_Fortran_COMPILER ${MPIETE_MPIF90} CACHE FILEPATH "" FORCE)
endif()
set(MPIEXEC_EXECUTABLE ${MPIETE_MPIEXEC} CACHE FILEPATH "" FORCE)
message(STATUS "mpiete: MPI is ${MPIETE_MPI_KIND} (${MPIETE_MPICC}, ${MPIETE_MPIEXEC})")

# mpif.h's include flags (-I...), for Flang's analysis of Fortran units.
set(MPIETE_MPIF90_INCLUDE_FLAGS)
if(MPIETE_MPIF90)
  if(MPIETE_MPI_KIND STREQUAL "mpich")
    set(_query -show)
  else()
    set(_query -showme:compile)
  endif()
  execute_process(COMMAND ${MPIETE_MPIF90} ${_query} OUTPUT_VARIABLE _fflags
                  ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  separate_arguments(_fflags UNIX_COMMAND "${_fflags}")
  foreach(_flag IN LISTS _fflags)
    if(_flag MATCHES "^-I" AND NOT _flag IN_LIST MPIETE_MPIF90_INCLUDE_FLAGS)
      list(APPEND MPIETE_MPIF90_INCLUDE_FLAGS ${_flag})
    endif()
  endforeach()
endif()

# The ctest labels of tests that run MPI programs: `mpi`, plus `mpich` in an MPICH build
# (`ctest -L mpich` in that build dir runs them against MPICH).
set(MPIETE_MPI_LABELS mpi)
if(MPIETE_MPI_KIND STREQUAL "mpich")
  list(APPEND MPIETE_MPI_LABELS mpich)
endif()
