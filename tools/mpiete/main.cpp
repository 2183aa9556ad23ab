// mpiete: the driver. A dispatch table from subcommand to the function implementing it.
#include "mpiete/support/Version.h"
#include "mpiete/tools/Commands.h"
#include "mpiete/tools/LastResort.h"

#include <cstring>
#include <iostream>
#include <string_view>

using namespace mpiete;

namespace {

using CommandFn = int (*)(const CommandArgs &);

struct Command {
  const char *Name; ///< "trace dump" takes two words
  CommandFn Run;
  const char *Summary;
  const char *Example;
};

const Command Commands[] = {
    {"probe-comm", runProbeComm, "measure the network: communication base data (network.yaml)",
     "mpiete probe-comm -o network.yaml --launcher srun -N 2 --ntasks-per-node 1"},
    {"probe-compute", runProbeCompute,
     "time every compute block on one processor: compute base data",
     "mpiete probe-compute -o machine.yaml -np 16 ./app.timing ARGS"},
    {"probe-program", runProbeProgram, "record every rank's blocks and messages: program base data",
     "mpiete probe-program -o traces/ -np 16 --oversubscribe ./app.trace ARGS"},
    {"estimate", runEstimate, "predict the run time from the three base data",
     "mpiete estimate --program traces/ --machine machine.yaml --network network.yaml"},
    {"whatif", runWhatIf, "what to fix: predicted time after each candidate fix (seed 003)",
     "mpiete whatif --program traces/ --machine machine.yaml --network network.yaml"},
    {"report", runReport, "an HTML page of an estimate (bars, timeline, measured, what-if)",
     "mpiete report --estimate estimate.yaml --timeline run.json -o report.html"},
    {"trace dump", runTraceDump, "print a rank's trace as text",
     "mpiete trace dump traces/rank0.trace"},
    {"model", runModel, "fit scaling models from base data at several rank counts and sizes",
     "mpiete model --run 2:100:t2/:m2.yaml --run 4:100:t4/:m4.yaml -o model.yaml"},
    {"surface", runSurface, "predicted time and efficiency over ranks and sizes, contour plot",
     "mpiete surface --model model.yaml --network net.yaml --ranks 1..64 --sizes 1e3,1e4"},
    {"best-config", runBestConfig, "best nodes and ranks per node of a heterogeneous cluster",
     "mpiete best-config --cluster hetero.yaml --model model.yaml --network net.yaml"},
    {"demo", runDemo, "run the whole pipeline on a bundled example program", "mpiete demo"},
};

void printHelp(std::ostream &OS) {
  OS << "usage: mpiete <command> [options]\n\n"
        "Predicts the run time of MPI programs from three reusable base data: compute (per\n"
        "machine), communication (per network) and program (per program, rank count and input).\n"
        "Build the probes with mpiete-cc (a drop-in for mpicc), then:\n\n"
        "commands:\n";
  for (const Command &C : Commands) {
    std::string Name = C.Name;
    OS << "  " << Name << std::string(Name.size() < 16 ? 16 - Name.size() : 1, ' ') << C.Summary
       << '\n';
  }
  OS << "\nexamples:\n";
  for (const Command &C : Commands)
    OS << "  " << C.Example << '\n';
  OS << "\n'mpiete <command> --help' describes a command; 'mpiete --version' prints the version.\n";
}

} // namespace

static int guardedMain(int Argc, char **Argv) {
  CommandArgs Args(Argv + 1, Argv + Argc);
  if (Args.empty()) {
    printHelp(std::cerr);
    return 2;
  }
  if (Args[0] == "--help" || Args[0] == "-h" || Args[0] == "help") {
    printHelp(std::cout);
    return 0;
  }
  if (Args[0] == "--version") {
    std::cout << "mpiete " << MPIETE_VERSION << '\n';
    return 0;
  }
  for (const Command &C : Commands) {
    std::string_view Name = C.Name;
    size_t Words = 1;
    if (size_t Sp = Name.find(' '); Sp != std::string_view::npos) {
      // A two-word command: the first word alone is an incomplete command line.
      if (Args[0] != Name.substr(0, Sp))
        continue;
      if (Args.size() < 2 || Args[1] != Name.substr(Sp + 1)) {
        std::cerr << "mpiete: error: unknown '" << Args[0] << "' command; did you mean '" << Name
                  << "'?\n";
        return 2;
      }
      Words = 2;
    } else if (Args[0] != Name) {
      continue;
    }
    CommandArgs Rest(Args.begin() + static_cast<std::ptrdiff_t>(Words), Args.end());
    return C.Run(Rest);
  }
  std::cerr << "mpiete: error: unknown command '" << Args[0] << "' (see 'mpiete --help')\n";
  return 2;
}

int main(int Argc, char **Argv) {
  return mpiete::runWithLastResort([&] { return guardedMain(Argc, Argv); });
}
