# Runtime tests that fail in an MPICH build because of MPICH 4.0.2 itself (docs/mpich.md,
# "What passes"). In an MPICH build each is labelled mpich_known_bug and counts as skipped
# when its output shows that MPICH bug (the message stays in the test log), so
# `ctest -L mpi` there is green and any other failure still fails; the .check test reading
# the trace the run could not finish is disabled. Elsewhere nothing changes.
#   mpiete_mpich_known_bug("<MPICH's message, a regex>" <test>...)
function(mpiete_mpich_known_bug message)
  if(NOT MPIETE_MPI_KIND STREQUAL "mpich")
    return()
  endif()
  foreach(test IN LISTS ARGN)
    set_tests_properties(${test} PROPERTIES LABELS "mpi;mpich_known_bug"
      SKIP_REGULAR_EXPRESSION "${message}")
    if(TEST ${test}.check)
      set_tests_properties(${test}.check PROPERTIES LABELS "mpi;mpich_known_bug" DISABLED TRUE)
    endif()
  endforeach()
endfunction()
