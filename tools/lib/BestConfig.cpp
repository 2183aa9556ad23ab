// `mpiete best-config`: which nodes of a heterogeneous cluster, and how many ranks per node of
// each type, give the shortest predicted time (seed 002), from a scaling model and the machine
// file of each node type in the cluster file.
#include "CommandUtil.h"
#include "Model.h"

#include "mpiete/basedata/ClusterFile.h"
#include "mpiete/basedata/MachineFile.h"
#include "mpiete/estimator/BaseData.h"
#include "mpiete/scaling/BestConfig.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/tools/Commands.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace mpiete {

using namespace estimator;
using namespace scaling;

namespace {

/// How much longer the type's machine computes the program's segments than the model says the
/// model's machine does: the executions-weighted sum of its measured segments over the model's
/// prediction of the same segments at the rank count it was measured with. The model's own
/// machine: 1.
bool speedOf(const ScalingModelFile &File, const std::string &Machine, DiagnosticSink &Diags,
             double &Speed) {
  for (const ModelRun &R : File.Runs)
    if (R.Machine == Machine) {
      Speed = 1;
      return true;
    }
  MachineFile M;
  if (!loadMachineFile(Machine, M, Diags))
    return false;
  const int P = M.Provenance.Ranks > 0 ? M.Provenance.Ranks : int(M.Ranks.size());
  double W = File.Runs.empty() ? 1 : File.Runs.front().Size;
  for (const ModelRun &R : File.Runs)
    if (R.Ranks == P)
      W = R.Size;
  ScaledComputeModel Model(File, P, W);
  double Measured = 0, Predicted = 0;
  for (const MachineRank &MR : M.Ranks)
    for (const MachineSegment &S : MR.Segments)
      if (const SegmentTimes *T = Model.segment(MR.Rank, S.From, S.To)) {
        Measured += S.MeanSeconds * double(S.Executions);
        Predicted += T->MeanSeconds * double(S.Executions);
      }
  if (!(Measured > 0 && Predicted > 0)) {
    Diags.error({Machine, 0, 0}, "holds no segment of the model's program: no speed to compare",
                "scale");
    return false;
  }
  Speed = Measured / Predicted;
  return true;
}

} // namespace

int runBestConfig(const CommandArgs &Args) {
  DiagnosticSink Diags(std::cerr);
  const DiagLoc Tool{"mpiete best-config", 0, 0};
  CommandLine C("best-config",
                "usage: mpiete best-config --cluster cluster.yaml --model model.yaml --network "
                "network.yaml\n                          [--size W] [--cores C,...] "
                "[--max-ranks-per-node M] [--exhaustive]",
                "Seed 002's question: which nodes of each type, and how many ranks per node, "
                "give the\nshortest predicted time. Each node type of the cluster file has a "
                "machine file of the\nprogram: its speed relative to the model's machine. Ranks "
                "beyond a node's cores time-share\nit. Every configuration is replayed from the "
                "model (--exhaustive), or they are replayed in\norder of a lower bound (the "
                "slowest rank's compute) until it passes the best time found:\nthe same answer, "
                "fewer replays.",
                "  mpiete best-config --cluster hetero.yaml --model model.yaml --network net.yaml "
                "--size 4000 --cores 1,1\n");
  std::string ClusterPath, ModelPath, NetworkPath, CoresText;
  double Size = 0;
  int MaxPerNode = 0, Top = 5;
  bool Exhaustive = false;
  C.App.add_option("--cluster", ClusterPath, "the cluster: node types and machine files")
      ->type_name("FILE");
  C.App.add_option("--model", ModelPath, "the scaling model (mpiete model)")->type_name("FILE");
  C.App.add_option("--network", NetworkPath, "the network (unless the cluster names one)")
      ->type_name("FILE");
  C.App.add_option("--size", Size, "the problem size (default: the model's first run's)");
  C.App.add_option("--cores", CoresText, "cores per node, one per node type (default 1)")
      ->type_name("C,...");
  C.App.add_option("--max-ranks-per-node", MaxPerNode,
                   "the most ranks a node runs (default: the cluster's ranks_per_node)");
  C.App.add_option("--top", Top, "list the best N configurations replayed (default 5)");
  C.App.add_flag("--exhaustive", Exhaustive, "replay every configuration");
  if (std::optional<int> Status = C.parseOrExit(Args, Diags, Tool))
    return *Status;
  if (ClusterPath.empty() || ModelPath.empty()) {
    Diags.error(Tool, "needs --cluster and --model", "usage");
    return 1;
  }
  ClusterSpec Spec;
  ScalingModelFile File;
  if (!loadClusterSpec(ClusterPath, Spec, Diags) || !loadExtrapolationModel(ModelPath, Diags, File))
    return 1;
  if (Spec.Nodes.empty()) {
    Diags.error(Spec.NodesAt, "the cluster lists no node types (nodes: [{count, machine}])",
                "cluster");
    return 1;
  }
  std::vector<int> Cores;
  {
    std::stringstream S(CoresText);
    std::string Item;
    try {
      while (std::getline(S, Item, ','))
        Cores.push_back(std::stoi(Item));
    } catch (...) {
      Cores.assign(1, 0);
    }
  }
  if (!Cores.empty() && Cores.size() != Spec.Nodes.size()) {
    Diags.error(Tool,
                "--cores gives one count per node type (" + std::to_string(Spec.Nodes.size()) + ")",
                "usage");
    return 1;
  }
  ClusterProblem Problem;
  Problem.File = &File;
  Problem.Size = Size > 0 ? Size : (File.Runs.empty() ? 1 : File.Runs.front().Size);
  for (size_t I = 0; I < Spec.Nodes.size(); ++I) {
    const ClusterNodeType &T = Spec.Nodes[I];
    NodeTypeSpec N;
    N.Count = T.Count;
    N.Cores = Cores.empty() ? 1 : Cores[I];
    const std::string Machine = T.Machine.empty() ? "" : clusterPath(ClusterPath, T.Machine);
    N.Name = T.Machine.empty() ? "type" + std::to_string(I + 1) : T.Machine;
    if (Machine.empty())
      N.Speed = 1;
    else if (!speedOf(File, Machine, Diags, N.Speed))
      return 1;
    Problem.Types.push_back(N);
  }
  std::string Inter =
      Spec.InterNodeNetwork.empty() ? NetworkPath : clusterPath(ClusterPath, Spec.InterNodeNetwork);
  if (Inter.empty()) {
    Diags.error(Tool, "needs --network (the cluster names no inter-node network)", "usage");
    return 1;
  }
  std::shared_ptr<LinkModel> InterLink = loadNetworkYaml(Inter, NetworkModelKind::Table, Diags);
  if (!InterLink)
    return 1;
  std::shared_ptr<LinkModel> IntraLink = InterLink;
  if (!Spec.IntraNodeNetwork.empty() &&
      !(IntraLink = loadNetworkYaml(clusterPath(ClusterPath, Spec.IntraNodeNetwork),
                                    NetworkModelKind::Table, Diags)))
    return 1;
  Problem.Inter = InterLink;
  Problem.Intra = IntraLink;
  CommStructure S;
  if (!learnModelStructure(File, Diags, S))
    return 1;
  Problem.Structure = &S;
  BestConfigResult R;
  std::string Err;
  if (!searchBestConfig(Problem, MaxPerNode > 0 ? MaxPerNode : std::max(1, Spec.RanksPerNode),
                        Exhaustive, R, Err)) {
    Diags.error({ModelPath, 0, 0}, Err, "scale");
    return 1;
  }
  std::cout << "node types:\n";
  for (const NodeTypeSpec &T : Problem.Types) {
    char Buf[64];
    std::snprintf(Buf, sizeof Buf, "%.4g", T.Speed);
    std::cout << "  " << T.Name << ": " << T.Count << " nodes, " << T.Cores
              << " cores, compute time x " << Buf << "\n";
  }
  std::cout << "configurations: " << R.Configurations << "\nreplayed: " << R.Replayed
            << (Exhaustive ? " (exhaustive)" : " (the others' bounds exceed the best)") << "\n";
  std::stable_sort(
      R.Evaluated.begin(), R.Evaluated.end(),
      [](const ConfigResult &A, const ConfigResult &B) { return A.Seconds < B.Seconds; });
  std::cout << "best: " << R.Best.C.text(Problem.Types) << " (" << R.Best.C.ranks()
            << " ranks)\npredicted_seconds: " << R.Best.Seconds << "\nextrapolated: true\n"
            << "next best:\n";
  for (size_t I = 1; I < R.Evaluated.size() && I < size_t(Top); ++I)
    std::cout << "  " << R.Evaluated[I].Seconds << " s  " << R.Evaluated[I].C.text(Problem.Types)
              << "\n";
  return 0;
}

} // namespace mpiete
