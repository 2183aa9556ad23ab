// Reads a rank's timing file and turns it into the machine file's seconds.
#include "mpiete/basedata/TimingFile.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace mpiete {

std::string readRankTiming(const std::string &Path, int Rank, RankTiming &Out) {
  std::ifstream In(Path);
  if (!In)
    return "cannot open '" + Path + "'";
  std::string Line;
  unsigned LineNo = 0;
  auto Bad = [&](const std::string &What) {
    return Path + ":" + std::to_string(LineNo) + ": " + What;
  };
  if (!std::getline(In, Line) || Line.rfind("# mpiete timing rank ", 0) != 0)
    return Bad("not a timing file of mpiete's timing probe");
  ++LineNo;
  Out.Rank = Rank;
  while (std::getline(In, Line)) {
    ++LineNo;
    if (Line.empty())
      continue;
    std::istringstream S(Line);
    if (Line[0] == '#') {
      std::string Hash, Key, Value;
      S >> Hash >> Key >> Value;
      if (Key == "timer-overhead-ns")
        Out.OverheadNs = std::strtod(Value.c_str(), nullptr);
      else if (Key == "token-passing")
        Out.TokenPassing = Value == "on";
      else if (Key == "cpu")
        Out.Cpu = std::atoi(Value.c_str());
      else if (Key == "ranks-per-node")
        Out.RanksPerNode = std::atoi(Value.c_str());
      continue;
    }
    BlockTiming B;
    std::string Id, Kind;
    S >> Id >> Kind >> B.Executions;
    if (!S)
      return Bad("malformed record '" + Line + "'");
    if (Kind != "block" && Kind != "loop")
      continue; // communication, init, finalize: counted, not timed
    if (!parseBlockId(Id, B.Id))
      return Bad("malformed record '" + Line + "'");
    B.Loop = Kind == "loop";
    if (B.Loop)
      S >> B.Trips;
    S >> B.Nanos >> B.MinNs >> B.MaxNs >> B.StddevNs;
    if (!S)
      return Bad("malformed timed record '" + Line + "'");
    Out.Blocks.push_back(B);
  }
  if (!Out.TokenPassing)
    return Path + ": the program did not run under token passing (was it linked with "
                  "the timing runtime?)";
  return "";
}

MachineRank machineRankOf(const RankTiming &R) {
  MachineRank M;
  M.Rank = R.Rank;
  M.TimerOverheadSeconds = R.OverheadNs * 1e-9;
  for (const BlockTiming &B : R.Blocks) {
    const double Net = std::max(0.0, static_cast<double>(B.Nanos) -
                                         R.OverheadNs * static_cast<double>(B.Executions));
    const uint64_t Per = B.Loop ? B.Trips : B.Executions;
    const double Mean = Per != 0 ? Net / static_cast<double>(Per) : 0;
    MachineBlock &MB = M.Blocks.emplace_back();
    MB.Id = B.Id;
    MB.Loop = B.Loop;
    MB.Executions = B.Executions;
    MB.Iterations = B.Trips;
    MB.MeanSeconds = Mean * 1e-9;
    MB.StddevSeconds = B.StddevNs * 1e-9;
    MB.MinSeconds = std::max(0.0, B.MinNs - (B.Loop ? 0 : R.OverheadNs)) * 1e-9;
    MB.MaxSeconds = std::max(0.0, B.MaxNs - (B.Loop ? 0 : R.OverheadNs)) * 1e-9;
  }
  return M;
}

} // namespace mpiete
