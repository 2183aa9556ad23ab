// The last-resort handler of every mpiete executable: no exception escapes main.
#ifndef MPIETE_TOOLS_LASTRESORT_H
#define MPIETE_TOOLS_LASTRESORT_H

#include <cstdlib>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>

namespace mpiete {

/// Runs Main; any exception it lets through becomes `mpiete: error: internal error: <what>
/// (please report)` and exit status 2. MPIETE_TEST_INTERNAL_ERROR=<text> (for the tests only)
/// throws before Main runs, to show that the handler works.
template <typename F> int runWithLastResort(F &&Main) {
  try {
    if (const char *Inject = std::getenv("MPIETE_TEST_INTERNAL_ERROR"); Inject && *Inject)
      throw std::runtime_error(std::string("injected by MPIETE_TEST_INTERNAL_ERROR=") + Inject);
    return Main();
  } catch (const std::exception &E) {
    std::cerr << "mpiete: error: internal error: " << E.what() << " (please report)\n";
  } catch (...) {
    std::cerr << "mpiete: error: internal error: an unknown exception (please report)\n";
  }
  return 2;
}

} // namespace mpiete

#endif
