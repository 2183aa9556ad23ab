// `mpiete demo`: the whole pipeline on the bundled 2D Jacobi example, by running the project's
// scripts/demo from the source tree this mpiete was built from (it builds the example with
// mpiete-cc, collects the three base data, estimates, runs the real program and compares).
#include "CommandUtil.h"

#include "mpiete/support/Diagnostics.h"
#include "mpiete/support/Process.h"
#include "mpiete/tools/Commands.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

#ifndef MPIETE_SOURCE_DIR
#define MPIETE_SOURCE_DIR ""
#endif

namespace mpiete {

int runDemo(const CommandArgs &Args) {
  CommandLine C("demo", "usage: mpiete demo [NP]",
                "Builds the bundled 2D Jacobi test program with mpiete-cc, collects the three base "
                "data on\nthis machine, predicts its run time at NP ranks (default 2), runs it for "
                "real and prints\n'demo: predicted <P> s, measured <M> s, error <E>%'. Runs "
                "scripts/demo of the source tree.",
                "  mpiete demo 2\n");
  std::string Np;
  C.App.add_option("NP", Np, "the rank count (default 2)")->type_name("");
  if (!Args.empty() && (Args[0] == "--help" || Args[0] == "-h")) {
    std::cout << C.help();
    return 0;
  }
  DiagnosticSink Diags(std::cerr);
  namespace fs = std::filesystem;
  fs::path Script = fs::path(MPIETE_SOURCE_DIR) / "scripts" / "demo";
  if (!fs::exists(Script)) {
    Diags.error({"mpiete", 0, 0},
                "the demo needs the mpiete source tree ('" + Script.string() +
                    "' is missing); run scripts/demo from a checkout",
                "demo");
    return 1;
  }
  // This binary's build tree, so the script uses the tools it belongs to.
  std::error_code EC;
  fs::path Self = fs::read_symlink("/proc/self/exe", EC);
  if (!EC)
    setenv("MPIETE_BUILD_DIR", Self.parent_path().parent_path().c_str(), 0);
  std::vector<std::string> Argv{Script.string()};
  Argv.insert(Argv.end(), Args.begin(), Args.end());
  return runProcess(Argv);
}

} // namespace mpiete
