// Small helpers the driver's subcommands share: their command lines (each option declared once,
// the help generated from the declarations), where mpiete is installed, error lines, sizes.
#ifndef MPIETE_TOOLS_LIB_COMMANDUTIL_H
#define MPIETE_TOOLS_LIB_COMMANDUTIL_H

#include "mpiete/estimator/BaseData.h"
#include "mpiete/estimator/Cluster.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/tools/Launcher.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mpiete {

/// A subcommand's command line: each option is declared once on App, and --help is generated
/// from the declarations between the usage line, the description and the examples (each
/// "  mpiete ..." line) and, last, Notes.
class CommandLine {
public:
  CommandLine(const std::string &Name, const std::string &Usage, const std::string &Description,
              const std::string &Examples, const std::string &Notes = "");
  CLI::App App;
  bool Help = false; ///< parse saw -h / --help

  std::string help() const { return App.help(); }
  /// Parses Args (after the subcommand's name); an error message, empty on success (also for
  /// -h / --help: then Help is set).
  std::string parse(const std::vector<std::string> &Args);
  /// A probe's command line: the launcher's options and the program pass through
  /// (parseProbeCommandLine), the command's own options are parsed as declared. -n/--np and
  /// --launcher are declared for the help but taken into Out.Launch. An error message, empty
  /// on success.
  std::string parseProbe(const std::vector<std::string> &Args, bool WantProgram,
                         ProbeCommandLine &Out);
  /// Declares -n/--np R and --launcher NAME (parseProbe fills them into the launch).
  void addLaunchOptions(const std::string &RanksHelp);

  /// One string option: its name, its value's name in the help, the help.
  struct Option {
    const char *Name, *Value, *Help;
  };
  /// Declares each option once; its value lands in Opt[Name]. parseOrExit removes the options
  /// not given from Opt, so Opt.count(Name) says whether an option was given.
  void addOptions(std::map<std::string, std::string> &Opt, std::initializer_list<Option> Options);
  /// The subcommands' prologue: parses Args; on an error reports it as a usage error of Tool
  /// and prints the help to stderr (status 1), on -h / --help prints the help (status 0).
  /// nullopt: the command goes on.
  std::optional<int> parseOrExit(const std::vector<std::string> &Args, DiagnosticSink &Diags,
                                 const DiagLoc &Tool);
  /// Reports `missing NAME` (and prints the help to stderr) for the first of Names not given;
  /// false then.
  bool requireOptions(std::initializer_list<const char *> Names, DiagnosticSink &Diags,
                      const DiagLoc &Tool);

private:
  int UnusedNp = 0;
  std::string UnusedLauncher;
  std::map<std::string, std::string> *Options = nullptr;
};

/// The three base data as `mpiete estimate` reads them (shared with `mpiete whatif`).
struct LoadedBaseData {
  std::vector<std::unique_ptr<estimator::TraceEventSource>> Traces;
  estimator::TableComputeModel Compute;
  std::unique_ptr<estimator::ClusterNetworkModel> Net;
  ClusterSpec Spec;              ///< the cluster file's contents, when one was given
  MachineProvenance MachineProv; ///< the machine file's provenance
  /// A machine file of repeated timing runs (probe-compute --repeat): per run, its compute
  /// summed over the ranks, and the records' sum (basedata's repeatedRunsCompute).
  std::vector<double> RunComputeSeconds;
  double ComputeSeconds = 0;
};
/// Opens ProgramDir's traces, reads the machine and network files (and the cluster file when
/// Cluster is not empty) and checks that traces and machine data come from one build. False
/// (reported) on any error.
bool loadBaseData(const std::string &ProgramDir, const std::string &Machine,
                  const std::string &Network, const std::string &Cluster,
                  estimator::NetworkModelKind Kind, DiagnosticSink &Diags, LoadedBaseData &Out);

/// A command's line as provenance records it: "mpiete NAME ARG...", the arguments separated by
/// single spaces.
std::string joinArgs(const char *Name, const std::vector<std::string> &Args);

/// Where a command writes its result: standard output when Path is null, else File opened on
/// *Path; null (reported: "cannot write the What") when it cannot be opened.
std::ostream *openOutput(const std::string *Path, std::ofstream &File, const std::string &What,
                         DiagnosticSink &Diags);

/// The directory of the running executable (<prefix>/bin), or "." if unknown.
std::filesystem::path selfBinDir();

/// Prints `mpiete: error: Message` (the driver's diagnostics have no source location).
int commandError(std::string_view Message, int Status = 1);

/// Parses a byte count: digits with an optional binary unit (k, K, KiB, M, MiB, G, GiB).
std::optional<uint64_t> parseByteCount(std::string_view Text);

} // namespace mpiete

#endif
