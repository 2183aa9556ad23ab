// Readers of the report's inputs (yaml-cpp: YAML and JSON alike), each error located by file
// and record.
#include "mpiete/report/ReportData.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <fstream>
#include <map>
#include <sstream>

namespace mpiete::report {

namespace {

std::string located(const std::string &File, const YAML::Node &N, const std::string &What) {
  const YAML::Mark M = N.Mark();
  if (M.line < 0)
    return File + ": " + What;
  return File + ":" + std::to_string(M.line + 1) + ":" + std::to_string(M.column + 1) + ": " + What;
}

/// Loads File; a missing file or a syntax error is returned, located.
/// Parses In (File's contents) into Out, a mapping; the error names File and the line.
std::string parse(const std::string &File, std::istream &In, YAML::Node &Out) {
  try {
    Out = YAML::Load(In);
  } catch (const YAML::ParserException &E) {
    return File + ":" + std::to_string(E.mark.line + 1) + ":" + std::to_string(E.mark.column + 1) +
           ": " + E.msg;
  }
  if (!Out.IsMap())
    return File + ": not a mapping of fields";
  return "";
}

std::string load(const std::string &File, YAML::Node &Out) {
  std::ifstream In(File);
  if (!In)
    return File + ": cannot read the file";
  return parse(File, In, Out);
}

/// Field Key of record N as T; the error names the record's line.
template <typename T>
bool field(const std::string &File, const YAML::Node &N, const char *Key, T &Out, std::string &Err,
           bool Required = true) {
  const YAML::Node V = N[Key];
  if (!V) {
    if (Required)
      Err = located(File, N, std::string("missing field '") + Key + "'");
    return !Required;
  }
  try {
    Out = V.as<T>();
    return true;
  } catch (const YAML::Exception &) {
    Err = located(File, V, std::string("field '") + Key + "' has the wrong type");
    return false;
  }
}

std::string list(const std::string &File, const YAML::Node &Root, const char *Key, YAML::Node &Out,
                 bool Required = true) {
  Out = Root[Key];
  if (!Out && !Required)
    return "";
  if (!Out || !Out.IsSequence())
    return located(File, Root, std::string("'") + Key + "' must be a list");
  return "";
}

} // namespace

std::string readEstimate(const std::string &File, EstimateData &Out) {
  YAML::Node Root;
  if (std::string Err = load(File, Root); !Err.empty())
    return Err;
  std::string Err;
  if (!field(File, Root, "predicted_seconds", Out.Predicted, Err))
    return Err + " (is this the YAML or JSON of `mpiete estimate`?)";
  if (!field(File, Root, "events", Out.Events, Err, false) ||
      !field(File, Root, "messages", Out.Messages, Err, false))
    return Err;
  if (const YAML::Node P = Root["provenance"]; P && P.IsMap())
    for (const auto &KV : P)
      Out.Provenance.emplace_back(KV.first.as<std::string>(), KV.second.as<std::string>());
  YAML::Node L;
  if (std::string E = list(File, Root, "ranks", L); !E.empty())
    return E;
  for (const YAML::Node &N : L) {
    RankTimes K;
    if (!field(File, N, "rank", K.Rank, Err) ||
        !field(File, N, "compute_seconds", K.Compute, Err) ||
        !field(File, N, "comm_seconds", K.Comm, Err) ||
        !field(File, N, "wait_seconds", K.Wait, Err) ||
        !field(File, N, "reached", K.Reached, Err, false))
      return Err;
    Out.Ranks.push_back(K);
  }
  if (std::string E = list(File, Root, "top_blocks", L, false); !E.empty())
    return E;
  for (const YAML::Node &N : L) {
    SiteTimes S;
    if (!field(File, N, "block", S.Block, Err) || !field(File, N, "where", S.Where, Err, false) ||
        !field(File, N, "compute_seconds", S.Compute, Err) ||
        !field(File, N, "comm_seconds", S.Comm, Err) ||
        !field(File, N, "wait_seconds", S.Wait, Err) ||
        !field(File, N, "executions", S.Executions, Err, false))
      return Err;
    Out.Sites.push_back(S);
  }
  if (std::string E = list(File, Root, "top_segments", L, false); !E.empty())
    return E;
  for (const YAML::Node &N : L) {
    SegmentTimes G;
    if (!field(File, N, "from", G.From, Err) || !field(File, N, "to", G.To, Err) ||
        !field(File, N, "where", G.Where, Err, false) ||
        !field(File, N, "compute_seconds", G.Compute, Err) ||
        !field(File, N, "executions", G.Executions, Err, false))
      return Err;
    Out.Segments.push_back(G);
  }
  return "";
}

std::string readChromeTimeline(const std::string &File, TimelineData &Out, size_t MaxItems) {
  YAML::Node Root;
  if (std::string Err = load(File, Root); !Err.empty())
    return Err;
  YAML::Node L;
  if (std::string E = list(File, Root, "traceEvents", L); !E.empty())
    return E;
  // Flow starts by id, until their finish arrives.
  std::map<uint64_t, Arrow> Open;
  std::string Err;
  size_t Items = 0;
  for (const YAML::Node &N : L) {
    std::string Ph;
    if (!field(File, N, "ph", Ph, Err))
      return Err;
    if (Ph == "M")
      continue;
    int Pid = 0, Tid = 0;
    double Ts = 0;
    if (!field(File, N, "pid", Pid, Err) || !field(File, N, "tid", Tid, Err) ||
        !field(File, N, "ts", Ts, Err))
      return Err;
    if (Tid < 0 || Tid > 1 << 20)
      return located(File, N, "tid " + std::to_string(Tid) + " is not a rank");
    Out.Ranks = std::max(Out.Ranks, Tid + 1);
    if (Ph == "X") {
      Span S;
      double Dur = 0;
      std::string Cat;
      if (!field(File, N, "dur", Dur, Err) || !field(File, N, "name", S.Name, Err) ||
          !field(File, N, "cat", Cat, Err, false))
        return Err;
      S.Rank = Tid;
      S.Begin = Ts;
      S.End = Ts + Dur;
      S.Kind = Pid == 1        ? SpanKind::Highlight
               : Cat == "comm" ? SpanKind::Comm
               : Cat == "wait" ? SpanKind::Wait
                               : SpanKind::Compute;
      if (Items++ < MaxItems)
        Out.Spans.push_back(std::move(S));
      else
        ++Out.Dropped;
    } else if (Ph == "s" || Ph == "f") {
      uint64_t Id = 0;
      if (!field(File, N, "id", Id, Err))
        return Err;
      if (Ph == "s") {
        Arrow &A = Open[Id];
        A.From = Tid;
        A.Begin = Ts;
        if (const YAML::Node Args = N["args"]; Args && Args["bytes"])
          A.Bytes = Args["bytes"].as<uint64_t>(0);
        continue;
      }
      auto It = Open.find(Id);
      if (It == Open.end())
        return located(File, N, "flow " + std::to_string(Id) + " finishes before it starts");
      It->second.To = Tid;
      It->second.End = Ts;
      if (Items++ < MaxItems)
        Out.Arrows.push_back(It->second);
      else
        ++Out.Dropped;
      Open.erase(It);
    }
  }
  return "";
}

std::string readMeasured(const std::string &Spec, std::vector<MeasuredRun> &Out) {
  double V = 0;
  auto [Ptr, Ec] = std::from_chars(Spec.data(), Spec.data() + Spec.size(), V);
  if (Ec == std::errc() && Ptr == Spec.data() + Spec.size()) {
    if (!(V > 0))
      return "--measured " + Spec + ": a run time must be positive";
    Out.push_back({"measured", V});
    return "";
  }
  std::ifstream In(Spec);
  if (!In)
    return Spec + ": neither a number of seconds nor a readable file";
  std::stringstream Buf;
  Buf << In.rdbuf();
  const std::string Text = Buf.str();
  if (Text.find("measured_seconds") != std::string::npos) {
    YAML::Node Root;
    std::istringstream Parsed(Text);
    if (std::string Err = parse(Spec, Parsed, Root); !Err.empty())
      return Err;
    const YAML::Node M = Root["measured_seconds"];
    std::vector<double> Values;
    try {
      if (M.IsSequence())
        Values = M.as<std::vector<double>>();
      else
        Values.push_back(M.as<double>());
    } catch (const YAML::Exception &) {
      return located(Spec, M, "measured_seconds must be a number or a list of numbers");
    }
    for (size_t I = 0; I < Values.size(); ++I)
      Out.push_back({Spec + " run " + std::to_string(I + 1), Values[I]});
    return "";
  }
  std::istringstream Lines(Text);
  std::string Line;
  for (unsigned No = 1, Run = 1; std::getline(Lines, Line); ++No) {
    Line = Line.substr(0, Line.find('#'));
    const size_t B = Line.find_first_not_of(" \t\r"), E = Line.find_last_not_of(" \t\r");
    if (B == std::string::npos)
      continue;
    Line = Line.substr(B, E - B + 1);
    auto [P, C] = std::from_chars(Line.data(), Line.data() + Line.size(), V);
    if (C != std::errc() || P != Line.data() + Line.size() || !(V > 0))
      return Spec + ":" + std::to_string(No) + ": '" + Line + "' is not a run time in seconds";
    Out.push_back({Spec + " run " + std::to_string(Run++), V});
  }
  return "";
}

std::string readWhatIf(const std::string &File, WhatIfData &Out) {
  YAML::Node Root;
  if (std::string Err = load(File, Root); !Err.empty())
    return Err;
  std::string Err;
  if (!field(File, Root, "predicted_seconds", Out.Predicted, Err))
    return Err;
  // Remedies, sensitivities and bounds are lists of their own (docs/whatif.md); a file with
  // none of them has the first rounds' single list.
  // (A fresh node for each list: assigning to a yaml-cpp node that holds one rewrites it.)
  std::vector<std::pair<std::string, YAML::Node>> Lists;
  for (const char *Class : {"remedies", "sensitivities", "bounds"}) {
    if (!Root[Class])
      continue; // (list() cannot take a missing key: yaml-cpp throws on assigning it)
    YAML::Node One;
    if (std::string E = list(File, Root, Class, One); !E.empty())
      return E;
    Lists.push_back({Class, One});
  }
  if (Lists.empty()) {
    YAML::Node One;
    if (std::string E = list(File, Root, "suggestions", One); !E.empty())
      return E;
    Lists.push_back({"", One});
  }
  for (const auto &[Class, Items] : Lists)
    for (const YAML::Node &N : Items) {
      WhatIfData::Suggestion S;
      S.Class = Class;
      if (const YAML::Node R = N["rank"];
          R && R.IsScalar() && R.as<std::string>() != "all" && !field(File, N, "rank", S.Rank, Err))
        return Err;
      if (!field(File, N, "kind", S.Kind, Err) || !field(File, N, "what", S.What, Err) ||
          !field(File, N, "where", S.Where, Err, false) ||
          !field(File, N, "predicted_seconds", S.Predicted, Err) ||
          !field(File, N, "saving_seconds", S.Saving, Err) ||
          !field(File, N, "bound", S.Bound, Err, false))
        return Err;
      Out.Suggestions.push_back(S);
    }
  YAML::Node L;
  if (!Root["critical_path"])
    return "";
  if (std::string E = list(File, Root, "critical_path", L); !E.empty())
    return E;
  for (const YAML::Node &N : L) {
    WhatIfData::PathStep P;
    if (!field(File, N, "where", P.Where, Err) || !field(File, N, "kind", P.Kind, Err) ||
        !field(File, N, "seconds", P.Seconds, Err) || !field(File, N, "share", P.Share, Err))
      return Err;
    Out.CriticalPath.push_back(P);
  }
  return "";
}

std::string readSurface(const std::string &File, SurfaceData &Out) {
  YAML::Node Root;
  if (std::string Err = load(File, Root); !Err.empty())
    return Err;
  std::string Err;
  if (!field(File, Root, "ranks", Out.Ranks, Err) || !field(File, Root, "sizes", Out.Sizes, Err) ||
      !field(File, Root, "time_seconds", Out.Time, Err) ||
      !field(File, Root, "efficiency", Out.Efficiency, Err) ||
      !field(File, Root, "svg", Out.SvgFile, Err, false))
    return Err;
  for (const auto *Grid : {&Out.Time, &Out.Efficiency}) {
    const char *Name = Grid == &Out.Time ? "time_seconds" : "efficiency";
    if (Grid->size() != Out.Sizes.size())
      return located(File, Root[Name],
                     std::string(Name) + " has " + std::to_string(Grid->size()) +
                         " rows, one per size (" + std::to_string(Out.Sizes.size()) + ") expected");
    for (size_t I = 0; I < Grid->size(); ++I)
      if ((*Grid)[I].size() != Out.Ranks.size())
        return located(File, Root[Name][I],
                       std::string(Name) + " row " + std::to_string(I + 1) + " has " +
                           std::to_string((*Grid)[I].size()) + " values, one per rank count (" +
                           std::to_string(Out.Ranks.size()) + ") expected");
  }
  if (!Out.SvgFile.empty() && Out.SvgFile.front() != '/') {
    const size_t Slash = File.rfind('/');
    if (Slash != std::string::npos)
      Out.SvgFile = File.substr(0, Slash + 1) + Out.SvgFile;
  }
  return "";
}

} // namespace mpiete::report
