// tasks.yaml (mpiete-tasks): the per-task costs of a task farm; writer, readers, and the merge
// of the timing probe's per-rank task lines.
#include "mpiete/basedata/TaskCosts.h"

#include "mpiete/basedata/YamlParser.h"
#include "mpiete/support/Diagnostics.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace mpiete {

namespace {

constexpr const char *Category = "tasks";
constexpr int64_t MaxParam = std::numeric_limits<int64_t>::max() / 4;

/// Axes whose product is exactly the (sorted, distinct) task set Tasks, if there are such.
bool findGrid(int Dims, const std::vector<std::vector<int64_t>> &Tasks,
              std::vector<TaskAxis> &Axes) {
  Axes.assign(size_t(Dims), {});
  if (Tasks.empty())
    return false;
  uint64_t Product = 1;
  for (int K = 0; K < Dims; ++K) {
    std::set<int64_t> Values;
    for (const auto &T : Tasks)
      Values.insert(T[size_t(K)]);
    std::vector<int64_t> V(Values.begin(), Values.end());
    int64_t Step = V.size() > 1 ? V[1] - V[0] : 1;
    for (size_t I = 1; I < V.size(); ++I)
      if (V[I] - V[I - 1] != Step)
        return false;
    Axes[size_t(K)] = {V.front(), V.back(), Step};
    Product *= V.size();
  }
  return Product == Tasks.size(); // the tasks are distinct, so equal counts mean the product
}

} // namespace

uint64_t TaskCosts::taskCount() const {
  if (!Grid)
    return Dims > 0 ? List.size() / size_t(Dims) : 0;
  uint64_t N = 1;
  for (const TaskAxis &A : Axes)
    N *= uint64_t((A.Last - A.First) / A.Step + 1);
  return Axes.empty() ? 0 : N;
}

std::vector<int64_t> TaskCosts::allTasks() const {
  if (!Grid)
    return List;
  std::vector<int64_t> Out;
  const uint64_t N = taskCount();
  Out.reserve(N * size_t(Dims));
  std::vector<int64_t> P(static_cast<size_t>(Dims), 0);
  for (int K = 0; K < Dims; ++K)
    P[size_t(K)] = Axes[size_t(K)].First;
  for (uint64_t I = 0; I < N; ++I) {
    Out.insert(Out.end(), P.begin(), P.end());
    for (int K = Dims - 1; K >= 0; --K) { // the last parameter varies fastest
      const TaskAxis &A = Axes[size_t(K)];
      if (P[size_t(K)] + A.Step <= A.Last) {
        P[size_t(K)] += A.Step;
        break;
      }
      P[size_t(K)] = A.First;
    }
  }
  return Out;
}

bool parseTaskRecords(const std::string &Name, const std::string &Text,
                      std::vector<TaskRecord> &Out, int64_t &Stride, DiagnosticSink &Diags) {
  std::istringstream In(Text);
  std::string Line;
  unsigned LineNo = 0;
  while (std::getline(In, Line)) {
    ++LineNo;
    if (Line.empty())
      continue;
    if (Line[0] == '#') {
      size_t At = Line.find(" stride ");
      if (At != std::string::npos)
        Stride = std::max<int64_t>(1, std::atoll(Line.c_str() + At + 8));
      continue;
    }
    std::istringstream L(Line);
    int N = 0;
    TaskRecord R;
    long long Nanos = 0;
    if (!(L >> N) || N < 1 || N > 8) {
      Diags.error({Name, LineNo, 1}, "a task line starts with its parameter count (1 to 8)",
                  Category);
      return false;
    }
    R.Params.resize(size_t(N));
    for (auto &P : R.Params)
      if (!(L >> P)) {
        Diags.error({Name, LineNo, 1}, "a task line has fewer parameters than it says", Category);
        return false;
      }
    std::string Rest;
    if (!(L >> Nanos) || (L >> Rest)) {
      Diags.error({Name, LineNo, 1}, "a task line ends with its nanoseconds (-1: skipped)",
                  Category);
      return false;
    }
    R.Seconds = Nanos < 0 ? -1 : double(Nanos) * 1e-9;
    Out.push_back(std::move(R));
  }
  return true;
}

bool buildTaskCosts(const std::string &Name, std::vector<TaskRecord> Records, TaskCosts &Out,
                    DiagnosticSink &Diags) {
  Out.Dims = Records.empty() ? 0 : int(Records.front().Params.size());
  // Parameters -> (sum of measured seconds, measured count).
  std::map<std::vector<int64_t>, std::pair<double, int>> Tasks;
  for (const TaskRecord &R : Records) {
    if (int(R.Params.size()) != Out.Dims) {
      Diags.error({Name, 0, 0},
                  "tasks with " + std::to_string(Out.Dims) + " and " +
                      std::to_string(R.Params.size()) +
                      " parameters: one farm's tasks all have the same parameters",
                  Category);
      return false;
    }
    auto &[Sum, Count] = Tasks[R.Params];
    if (R.Seconds >= 0) {
      Sum += R.Seconds;
      ++Count;
    }
  }
  std::vector<std::vector<int64_t>> Sorted;
  for (const auto &[P, SC] : Tasks) {
    Sorted.push_back(P);
    if (SC.second > 0) {
      Out.MeasuredParams.insert(Out.MeasuredParams.end(), P.begin(), P.end());
      Out.MeasuredSeconds.push_back(SC.first / SC.second);
    }
  }
  Out.Grid = findGrid(Out.Dims, Sorted, Out.Axes);
  if (!Out.Grid) {
    Out.Axes.clear();
    for (const auto &P : Sorted)
      Out.List.insert(Out.List.end(), P.begin(), P.end());
  }
  return true;
}

bool readTaskDirectory(const std::string &Dir, int Ranks, TaskCosts &Out, bool &Found,
                       DiagnosticSink &Diags) {
  std::vector<TaskRecord> Records;
  Found = false;
  for (int R = 0; R < Ranks; ++R) {
    const std::string Path = Dir + "/rank" + std::to_string(R) + ".tasks";
    std::ifstream In(Path);
    if (!In)
      continue; // the rank ran no task
    std::ostringstream Text;
    Text << In.rdbuf();
    if (!parseTaskRecords(Path, Text.str(), Records, Out.Stride, Diags))
      return false;
  }
  if (Records.empty())
    return true;
  Found = true;
  return buildTaskCosts(Dir, std::move(Records), Out, Diags);
}

std::string taskCostsPathOf(const std::string &MachinePath) {
  std::string Stem = MachinePath;
  for (const char *Ext : {".yaml", ".yml"})
    if (Stem.size() > std::strlen(Ext) &&
        Stem.compare(Stem.size() - std::strlen(Ext), std::string::npos, Ext) == 0) {
      Stem.resize(Stem.size() - std::strlen(Ext));
      break;
    }
  return Stem + ".tasks.yaml";
}

void writeTaskCosts(std::ostream &OS, const TaskCosts &F) {
  YAML::Emitter E;
  E.SetDoublePrecision(12); // nanoseconds of runs up to 1000 s
  E << YAML::BeginMap;
  E << YAML::Key << "format" << YAML::Value << "mpiete-tasks";
  E << YAML::Key << "version" << YAML::Value << TaskCosts::FormatVersion;
  E << YAML::Key << "provenance" << YAML::Value << YAML::BeginMap;
  E << YAML::Key << "tool" << YAML::Value << F.Tool;
  E << YAML::Key << "command" << YAML::Value << F.Command;
  E << YAML::Key << "host" << YAML::Value << F.Host;
  E << YAML::EndMap;
  E << YAML::Key << "parameters" << YAML::Value << F.Dims;
  E << YAML::Key << "stride" << YAML::Value << F.Stride;
  E << YAML::Key << "tasks" << YAML::Value << F.taskCount();
  if (F.Grid) {
    E << YAML::Key << "grid" << YAML::Value << YAML::Comment("per parameter: first, last, step")
      << YAML::BeginSeq;
    for (const TaskAxis &A : F.Axes)
      E << YAML::Flow << YAML::BeginSeq << A.First << A.Last << A.Step << YAML::EndSeq;
    E << YAML::EndSeq;
  } else {
    E << YAML::Key << "list" << YAML::Value << YAML::BeginSeq;
    for (size_t I = 0; I + size_t(F.Dims) <= F.List.size(); I += size_t(F.Dims)) {
      E << YAML::Flow << YAML::BeginSeq;
      for (int K = 0; K < F.Dims; ++K)
        E << F.List[I + size_t(K)];
      E << YAML::EndSeq;
    }
    E << YAML::EndSeq;
  }
  E << YAML::Key << "measured" << YAML::Value << YAML::Comment("parameters..., seconds")
    << YAML::BeginSeq;
  for (size_t T = 0; T < F.MeasuredSeconds.size(); ++T) {
    E << YAML::Flow << YAML::BeginSeq;
    for (int K = 0; K < F.Dims; ++K)
      E << F.MeasuredParams[T * size_t(F.Dims) + size_t(K)];
    E << F.MeasuredSeconds[T] << YAML::EndSeq;
  }
  E << YAML::EndSeq << YAML::EndMap;
  OS << E.c_str() << "\n";
}

bool parseTaskCosts(const std::string &Name, const std::string &Text, TaskCosts &Out,
                    DiagnosticSink &Diags) {
  YamlParser P{Name, Diags, Category};
  YAML::Node Root;
  if (!P.load(Text, Root))
    return false;
  if (!Root.IsMap())
    return P.error(Root, "a task costs file is a map (format: mpiete-tasks)");
  std::string Format;
  int64_t Version = 0, Dims = 0, Count = 0;
  if (!P.string(Root, "format", Format))
    return false;
  if (Format != "mpiete-tasks")
    return P.error(Root, "format '" + Format + "' is not mpiete-tasks");
  if (!P.integer(Root, "version", Version, 1, TaskCosts::FormatVersion) ||
      !P.integer(Root, "parameters", Dims, 1, 8) ||
      !P.integer(Root, "stride", Out.Stride, 1, MaxParam) ||
      !P.integer(Root, "tasks", Count, 0, MaxParam))
    return false;
  Out.Dims = int(Dims);
  YAML::Node Prov;
  if (P.map(Root, "provenance", Prov, false) && Prov.IsDefined())
    if (!P.string(Prov, "tool", Out.Tool, false) ||
        !P.string(Prov, "command", Out.Command, false) || !P.string(Prov, "host", Out.Host, false))
      return false;
  // A row: Width whole numbers, then (Seconds) one number >= 0.
  auto Row = [&](const YAML::Node &N, const char *Key, size_t Width, std::vector<int64_t> &Ints,
                 double *Seconds) {
    if (!N.IsSequence() || N.size() != Width + (Seconds ? 1 : 0))
      return P.expected(N, Key,
                        "a list of " + std::to_string(Width + (Seconds ? 1 : 0)) + " numbers");
    for (size_t I = 0; I < Width; ++I) {
      int64_t V = 0;
      if (!P.integerValue(N[I], Key, V, -MaxParam, MaxParam))
        return false;
      Ints.push_back(V);
    }
    return !Seconds || P.finiteValue(N[Width], Key, *Seconds, 0, 1e9);
  };
  YAML::Node Seq;
  if (YamlParser::find(Root, "grid", Seq)) {
    Out.Grid = true;
    if (!Seq.IsSequence() || Seq.size() != size_t(Dims))
      return P.expected(Seq, "grid", "a list of one [first, last, step] per parameter");
    for (const auto &A : Seq) {
      std::vector<int64_t> V;
      if (!Row(A, "grid", 3, V, nullptr))
        return false;
      if (V[2] < 1 || V[1] < V[0] || (V[1] - V[0]) % V[2] != 0)
        return P.error(A, "a grid axis runs from first to last (>= first) in steps that divide "
                          "the distance");
      Out.Axes.push_back({V[0], V[1], V[2]});
    }
  } else if (P.list(Root, "list", Seq)) {
    for (const auto &T : Seq)
      if (!Row(T, "list", size_t(Dims), Out.List, nullptr))
        return false;
  } else {
    return false;
  }
  if (Out.taskCount() != uint64_t(Count))
    return P.error(Root, "'tasks' says " + std::to_string(Count) + " but the " +
                             (Out.Grid ? "grid" : "list") + " holds " +
                             std::to_string(Out.taskCount()));
  if (!P.list(Root, "measured", Seq))
    return false;
  for (const auto &T : Seq) {
    double S = 0;
    if (!Row(T, "measured", size_t(Dims), Out.MeasuredParams, &S))
      return false;
    Out.MeasuredSeconds.push_back(S);
  }
  return P.Ok;
}

bool loadTaskCosts(const std::string &Path, TaskCosts &Out, DiagnosticSink &Diags) {
  std::string Text;
  return readBaseDataText(Path, Category, Text, Diags) && parseTaskCosts(Path, Text, Out, Diags);
}

} // namespace mpiete
