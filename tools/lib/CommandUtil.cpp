// Small helpers the driver's subcommands share.
#include "CommandUtil.h"

#include <algorithm>
#include <iostream>
#include <sstream>

namespace mpiete {
namespace {

/// The help: usage, description, examples, the declared options, notes.
class HelpFormatter : public CLI::Formatter {
public:
  HelpFormatter(std::string Usage, std::string Examples, std::string Notes)
      : Usage(std::move(Usage)), Examples(std::move(Examples)), Notes(std::move(Notes)) {
    column_width(24);
    label("Options", "Options");
  }
  std::string make_help(const CLI::App *App, std::string, CLI::AppFormatMode Mode) const override {
    std::ostringstream OS;
    OS << Usage << "\n\n";
    if (!App->get_description().empty())
      OS << App->get_description() << "\n\n";
    OS << "Example:\n" << Examples << make_positionals(App) << make_groups(App, Mode);
    if (!Notes.empty())
      OS << '\n' << Notes;
    return OS.str();
  }
  /// Wrapped to the house's 100 columns (CLI11 indents the lines after a newline).
  std::string make_option_desc(const CLI::Option *Opt) const override {
    const size_t Width = 100 - get_column_width();
    std::string Out, Line;
    std::istringstream Words(Opt->get_description());
    for (std::string W; Words >> W;) {
      if (!Line.empty() && Line.size() + 1 + W.size() > Width) {
        Out += Line + '\n';
        Line.clear();
      }
      Line += (Line.empty() ? "" : " ") + W;
    }
    return Out + Line;
  }

private:
  std::string Usage, Examples, Notes;
};

} // namespace

CommandLine::CommandLine(const std::string &Name, const std::string &Usage,
                         const std::string &Description, const std::string &Examples,
                         const std::string &Notes)
    : App(Description, "mpiete " + Name) {
  App.formatter(std::make_shared<HelpFormatter>(Usage, Examples, Notes));
  App.set_help_flag("-h,--help", "print this help");
  // As before CLI11: an option given twice keeps its last value.
  App.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

std::string CommandLine::parse(const std::vector<std::string> &Args) {
  std::vector<std::string> Reversed(Args.rbegin(), Args.rend());
  try {
    App.parse(Reversed);
  } catch (const CLI::CallForHelp &) {
    Help = true;
  } catch (const CLI::ParseError &E) {
    return E.what();
  }
  return {};
}

void CommandLine::addOptions(std::map<std::string, std::string> &Opt,
                             std::initializer_list<Option> Declared) {
  Options = &Opt;
  for (const Option &O : Declared)
    App.add_option(O.Name, Opt[O.Name], O.Help)->type_name(O.Value);
}

std::optional<int> CommandLine::parseOrExit(const std::vector<std::string> &Args,
                                            DiagnosticSink &Diags, const DiagLoc &Tool) {
  if (std::string Err = parse(Args); !Err.empty()) {
    Diags.error(Tool, Err, "usage");
    std::cerr << help();
    return 1;
  }
  if (Help) {
    std::cout << help();
    return 0;
  }
  if (Options)
    std::erase_if(*Options, [&](const auto &KV) { return !App.count(KV.first); });
  return std::nullopt;
}

bool CommandLine::requireOptions(std::initializer_list<const char *> Names, DiagnosticSink &Diags,
                                 const DiagLoc &Tool) {
  for (const char *Name : Names)
    if (!App.count(Name)) {
      Diags.error(Tool, std::string("missing ") + Name, "usage");
      std::cerr << help();
      return false;
    }
  return true;
}

void CommandLine::addLaunchOptions(const std::string &RanksHelp) {
  App.add_option("-n,--np", UnusedNp, RanksHelp + " (also -np R)")->type_name("R");
  App.add_option("--launcher", UnusedLauncher,
                 std::string("mpirun, mpiexec, mpiexec.mpich, srun, \"flux run\", ... (default ") +
                     defaultLauncher() + ")")
      ->type_name("NAME");
}

std::string CommandLine::parseProbe(const std::vector<std::string> &Args, bool WantProgram,
                                    ProbeCommandLine &Out) {
  // parseProbeCommandLine knows -np, --launcher and --help itself.
  std::vector<ProbeOption> Own;
  for (const CLI::Option *O : App.get_options()) {
    std::vector<std::string> Names;
    for (const std::string &S : O->get_snames())
      Names.push_back("-" + S);
    for (const std::string &L : O->get_lnames())
      Names.push_back("--" + L);
    for (const std::string &N : Names)
      if (N != "-h" && N != "--help" && N != "-n" && N != "--np" && N != "--launcher")
        Own.push_back({N, O->get_expected_max() != 0}); // a flag expects no value
  }
  if (std::string Err = parseProbeCommandLine(Args, Own, WantProgram, Out); !Err.empty())
    return Err;
  if (Out.Help)
    return {};
  std::vector<std::string> Words;
  for (const auto &[Name, Value] : Out.Options) {
    Words.push_back(Name);
    auto It =
        std::find_if(Own.begin(), Own.end(), [&](const ProbeOption &O) { return O.Name == Name; });
    if (It != Own.end() && It->TakesValue)
      Words.push_back(Value);
  }
  return parse(Words);
}

std::string joinArgs(const char *Name, const std::vector<std::string> &Args) {
  std::string S = std::string("mpiete ") + Name;
  for (const std::string &A : Args)
    S += " " + A;
  return S;
}

std::ostream *openOutput(const std::string *Path, std::ofstream &File, const std::string &What,
                         DiagnosticSink &Diags) {
  if (!Path)
    return &std::cout;
  File.open(*Path);
  if (!File) {
    Diags.error({*Path, 0, 0}, "cannot write the " + What, "io");
    return nullptr;
  }
  return &File;
}

std::filesystem::path selfBinDir() {
  std::error_code EC;
  std::filesystem::path Self = std::filesystem::read_symlink("/proc/self/exe", EC);
  return EC ? std::filesystem::path(".") : Self.parent_path();
}

int commandError(std::string_view Message, int Status) {
  std::cerr << "mpiete: error: " << Message << '\n';
  return Status;
}

std::optional<uint64_t> parseByteCount(std::string_view Text) {
  size_t I = 0;
  uint64_t V = 0;
  while (I < Text.size() && Text[I] >= '0' && Text[I] <= '9') {
    if (V > (UINT64_MAX - 9) / 10)
      return std::nullopt;
    V = V * 10 + static_cast<uint64_t>(Text[I++] - '0');
  }
  if (I == 0)
    return std::nullopt;
  std::string_view Unit = Text.substr(I);
  uint64_t Scale = 1;
  if (Unit.empty() || Unit == "B")
    Scale = 1;
  else if (Unit == "k" || Unit == "K" || Unit == "KiB")
    Scale = 1ULL << 10;
  else if (Unit == "M" || Unit == "MiB")
    Scale = 1ULL << 20;
  else if (Unit == "G" || Unit == "GiB")
    Scale = 1ULL << 30;
  else
    return std::nullopt;
  if (V > UINT64_MAX / Scale)
    return std::nullopt;
  return V * Scale;
}

bool loadBaseData(const std::string &ProgramDir, const std::string &Machine,
                  const std::string &Network, const std::string &Cluster,
                  estimator::NetworkModelKind Kind, DiagnosticSink &Diags, LoadedBaseData &Out) {
  using namespace estimator;
  auto &Traces = Out.Traces;
  TableComputeModel &Compute = Out.Compute;
  std::unique_ptr<ClusterNetworkModel> &Net = Out.Net;
  if (!openTraceDirectory(ProgramDir, Diags, Traces))
    return false;
  MachineProvenance &MachineProv = Out.MachineProv;
  {
    MachineFile File;
    if (!loadMachineFile(Machine, File, Diags))
      return false;
    MachineProv = File.Provenance;
    addMachineFile(File, Compute);
    Out.RunComputeSeconds = repeatedRunsCompute(File, Out.ComputeSeconds);
  }
  // Base data of two different builds of the program cannot be combined: block ids would
  // silently mean other code.
  std::string TraceFp = Traces.front()->header().Fingerprint;
  const std::string &MachineFp = MachineProv.Fingerprint;
  if (!TraceFp.empty() && !MachineFp.empty() && TraceFp != MachineFp) {
    Diags.error({Machine, 0, 0},
                "compute base data of another build of the program: fingerprint '" + MachineFp +
                    "', the traces in '" + ProgramDir + "' have '" + TraceFp +
                    "'; rebuild both probes together and collect both again",
                "estimate");
    return false;
  }
  std::shared_ptr<LinkModel> Inter = loadNetworkYaml(Network, Kind, Diags);
  if (!Inter)
    return false;
  if (!Cluster.empty()) {
    ClusterSpec &Spec = Out.Spec;
    if (!loadClusterSpec(Cluster, Spec, Diags) ||
        !buildCluster(Spec, Cluster, int(Traces.size()), Kind,
                      {Inter, Network, Machine, MachineProv}, Compute, Diags, Net))
      return false;
  } else {
    Net = std::make_unique<ClusterNetworkModel>(Inter);
  }

  return true;
}

} // namespace mpiete
