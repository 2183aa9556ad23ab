// Trace files to engine events, network.yaml to a link model.
#include "mpiete/estimator/BaseData.h"
#include "mpiete/estimator/YamlParser.h"

#include <algorithm>

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace mpiete::estimator {

bool TraceEventSource::next(Event &E) {
  for (;;) {
    if (!Reader.next(Rec))
      return false;
    E.Block = Rec.Block;
    E.Index = Rec.Number;
    E.Context = 0;
    E.Mode = SendMode::Standard;
    switch (Rec.Kind) {
    case trace::RecordKind::Block:
      E.Kind = EventKind::Compute;
      return true;
    case trace::RecordKind::Loop:
      E.Kind = EventKind::Loop;
      E.Count = Rec.Trips;
      return true;
    case trace::RecordKind::Send:
    case trace::RecordKind::Recv:
      E.Kind = Rec.Kind == trace::RecordKind::Send ? EventKind::SendStart : EventKind::RecvStart;
      E.Peer = Rec.Peer;
      E.Tag = Rec.Tag;
      E.Comm = Rec.Comm;
      E.Count = Rec.Bytes;
      E.Request = Rec.Request;
      E.Mode = static_cast<SendMode>(Rec.Mode);
      E.Context = static_cast<uint8_t>(Rec.Ctx);
      return true;
    case trace::RecordKind::Wait:
      E.Kind = EventKind::Completion;
      E.Completed.clear();
      for (const trace::Completion &C : Rec.Completions) {
        if (C.Request == trace::UnknownRequest)
          continue;
        E.Completed.push_back(C.Recv ? CompletedRequest{C.Request, C.Source, C.Tag}
                                     : CompletedRequest{C.Request, NoStatus, NoStatus});
      }
      return true;
    case trace::RecordKind::Probe:
      E.Kind = EventKind::Probe;
      E.Peer = Rec.Peer;
      E.Tag = Rec.Tag;
      E.Comm = Rec.Comm;
      E.Found = Rec.Found;
      return true;
    case trace::RecordKind::Init:
      E.Kind = EventKind::Init;
      return true;
    case trace::RecordKind::Finalize:
      E.Kind = EventKind::Finalize;
      return true;
    case trace::RecordKind::RequestFree:
      E.Kind = EventKind::RequestFree;
      E.Request = Rec.Request;
      return true;
    case trace::RecordKind::CommCreate:
    case trace::RecordKind::CommFree:
      continue; // ids are already in every message record
    }
  }
}

bool openTraceDirectory(const std::string &Dir, DiagnosticSink &Diags,
                        std::vector<std::unique_ptr<TraceEventSource>> &Out) {
  Out.clear();
  auto Path = [&](int R) {
    return (std::filesystem::path(Dir) / ("rank" + std::to_string(R) + ".trace")).string();
  };
  auto First = std::make_unique<TraceEventSource>(Diags);
  if (!First->open(Path(0)))
    return false;
  int World = First->header().WorldSize;
  Out.push_back(std::move(First));
  bool Ok = true;
  for (int R = 0; R < World; ++R) {
    if (R > 0) {
      auto Src = std::make_unique<TraceEventSource>(Diags);
      if (!Src->open(Path(R))) {
        Ok = false;
        continue;
      }
      Out.push_back(std::move(Src));
    }
    const trace::Header &H = Out.back()->header();
    if (H.Fingerprint != Out.front()->header().Fingerprint) {
      Diags.error({Path(R), 0, 0},
                  "trace of another build of the program: fingerprint '" + H.Fingerprint +
                      "', rank 0's is '" + Out.front()->header().Fingerprint + "'",
                  "estimate");
      Ok = false;
    }
    if (H.Rank != R || H.WorldSize != World) {
      Diags.error({Path(R), 0, 0},
                  "header says rank " + std::to_string(H.Rank) + " of " +
                      std::to_string(H.WorldSize) + ", expected rank " + std::to_string(R) +
                      " of " + std::to_string(World),
                  "estimate");
      Ok = false;
    }
  }
  return Ok;
}

namespace {

/// The whole text of a base data file; `Path: error: cannot open the <What> file` if missing.
bool readBaseData(const std::string &Path, const char *What, std::string &Text,
                  DiagnosticSink &Diags) {
  std::ifstream In(Path);
  if (!In) {
    Diags.error({Path, 0, 0}, std::string("cannot open the ") + What + " file", What);
    return false;
  }
  std::ostringstream S;
  S << In.rdbuf();
  Text = S.str();
  return true;
}

/// The (bytes, recv_s) rows of a network file's table, in file order.
bool readTableRows(YamlParser &P, const YAML::Node &Root,
                   std::vector<std::pair<uint64_t, double>> &Out) {
  YAML::Node Table = Root["table"];
  if (!Table.IsMap() || !Table["columns"].IsSequence() || !Table["rows"].IsSequence())
    return P.error(Table.IsDefined() ? Table : Root, "missing 'table' with 'columns' and 'rows'");
  int BytesCol = -1, RecvCol = -1;
  for (size_t I = 0; I < Table["columns"].size(); ++I) {
    std::string C = Table["columns"][I].as<std::string>("");
    if (C == "bytes")
      BytesCol = int(I);
    else if (C == "recv_s")
      RecvCol = int(I);
  }
  if (BytesCol < 0 || RecvCol < 0)
    return P.error(Table["columns"], "the table needs columns 'bytes' and 'recv_s'");
  for (const YAML::Node &Row : Table["rows"]) {
    if (!Row.IsSequence() || Row.size() <= size_t(std::max(BytesCol, RecvCol)))
      return P.error(Row, "table row too short");
    try {
      Out.emplace_back(Row[BytesCol].as<uint64_t>(), Row[RecvCol].as<double>());
    } catch (const YAML::Exception &) {
      return P.error(Row, "table row is not numbers");
    }
  }
  return true;
}

} // namespace

std::shared_ptr<LinkModel> parseNetworkYaml(const std::string &Name, const std::string &Text,
                                            NetworkModelKind Kind, DiagnosticSink &Diags) {
  YAML::Node Root;
  YamlParser P{Name, Diags, "network"};
  if (!P.load(Text, Root))
    return nullptr;
  if (!Root.IsMap() || !Root["format"] || Root["format"].as<std::string>("") != "mpiete-network") {
    P.error(Root, "not a network file: 'format: mpiete-network' expected");
    return nullptr;
  }
  if (!Root["version"] || Root["version"].as<int>(0) != 1) {
    P.error(Root["version"], "unsupported network file version (1 expected)");
    return nullptr;
  }
  YAML::Node G = Root["loggps"];
  if (!G.IsMap()) {
    P.error(Root, "missing map 'loggps'");
    return nullptr;
  }
  LogGPSParams L;
  L.L = P.number(G, "L");
  L.Os = P.number(G, "o_s");
  L.OsPerByte = P.number(G, "o_s_per_byte");
  L.Or = P.number(G, "o_r");
  L.OrPerByte = P.number(G, "o_r_per_byte");
  L.g = P.number(G, "g");
  L.G = P.number(G, "G");
  L.GEager = P.number(G, "G_eager");
  // The file's S is the first size sent synchronously; the models' is the largest eager one.
  YAML::Node S = G["S"];
  L.S = std::numeric_limits<uint64_t>::max();
  if (S.IsDefined() && !S.IsNull()) {
    uint64_t First = uint64_t(P.number(G, "S"));
    L.S = First > 0 ? First - 1 : 0;
  }
  if (!P.Ok)
    return nullptr;
  if (Kind == NetworkModelKind::LogGPS)
    return std::make_shared<LogGPSLinkModel>(L);

  std::vector<std::pair<uint64_t, double>> Rows;
  if (!readTableRows(P, Root, Rows))
    return nullptr;
  if (Rows.empty()) {
    P.error(Root["table"]["rows"], "the table has no rows");
    return nullptr;
  }
  std::vector<TableLinkModel::Point> Points;
  for (auto [Bytes, Seconds] : Rows)
    Points.push_back({Bytes, Seconds});
  auto Model = std::make_shared<TableLinkModel>(std::move(Points), L.Os, L.Or, L.S, L.g,
                                                L.OsPerByte, L.OrPerByte);
  // The table says how long a message takes; the fit says which part streams (contention).
  Model->setStreamGaps(L.G, L.GEager);
  return Model;
}

bool parseNetworkPairs(const std::string &Name, const std::string &Text, NetworkPairs &Out,
                       DiagnosticSink &Diags) {
  Out = NetworkPairs();
  YAML::Node Root;
  YamlParser P{Name, Diags, "network"};
  if (!P.load(Text, Root))
    return false;
  if (!Root.IsMap() || Root["format"].as<std::string>("") != "mpiete-network")
    return P.error(Root, "not a network file: 'format: mpiete-network' expected");
  YAML::Node Pairs = Root["provenance"].IsMap() ? Root["provenance"]["pairs"] : YAML::Node();
  if (!Pairs.IsDefined() || Pairs.IsNull())
    return true; // older files: one pair
  int K = Pairs.as<int>(0);
  if (K < 1) {
    P.error(Pairs, "'pairs' must be a count of at least 1");
    return false;
  }
  Out.Pairs = unsigned(K);
  if (K == 1)
    return true;
  std::vector<std::pair<uint64_t, double>> Rows;
  if (!readTableRows(P, Root, Rows))
    return false;
  std::erase_if(Rows, [](const auto &R) { return R.first == 0 || !(R.second > 0); });
  if (Rows.empty()) {
    P.error(Root["table"]["rows"], "no sizes above 0 bytes to take the aggregate bandwidth from");
    return false;
  }
  // The three largest sizes (a repeated size: its last row, as the table model reads it);
  // the median of their aggregate bandwidths keeps one disturbed point out.
  std::stable_sort(Rows.begin(), Rows.end(),
                   [](const auto &A, const auto &B) { return A.first < B.first; });
  std::vector<double> Rates;
  for (size_t I = Rows.size(); I-- > 0 && Rates.size() < 3;)
    if (I + 1 == Rows.size() || Rows[I].first != Rows[I + 1].first)
      Rates.push_back(double(K) * double(Rows[I].first) / Rows[I].second);
  std::sort(Rates.begin(), Rates.end());
  Out.AggregateBytesPerSecond =
      Rates.size() == 2 ? (Rates[0] + Rates[1]) / 2 : Rates[Rates.size() / 2];
  return true;
}

bool loadNetworkPairs(const std::string &Path, NetworkPairs &Out, DiagnosticSink &Diags) {
  std::string Text;
  return readBaseData(Path, "network", Text, Diags) && parseNetworkPairs(Path, Text, Out, Diags);
}

bool parseBlockId(const std::string &Text, BlockId &Out) {
  size_t Colon = Text.find(':');
  if (Colon == std::string::npos || Colon == 0 || Colon > 8 || Colon + 1 == Text.size())
    return false;
  uint64_t Unit = 0, Index = 0;
  for (size_t I = 0; I < Colon; ++I) {
    char C = Text[I];
    int D = C >= '0' && C <= '9'   ? C - '0'
            : C >= 'a' && C <= 'f' ? C - 'a' + 10
            : C >= 'A' && C <= 'F' ? C - 'A' + 10
                                   : -1;
    if (D < 0)
      return false;
    Unit = Unit * 16 + uint64_t(D);
  }
  for (size_t I = Colon + 1; I < Text.size(); ++I) {
    if (Text[I] < '0' || Text[I] > '9')
      return false;
    Index = Index * 10 + uint64_t(Text[I] - '0');
    if (Index > 0xffffffffULL)
      return false;
  }
  Out = (Unit << 32) | Index;
  return true;
}

bool parseMachineYaml(const std::string &Name, const std::string &Text, TableComputeModel &Out,
                      DiagnosticSink &Diags, const std::vector<int> *Only,
                      MachineProvenance *Prov) {
  YAML::Node Root;
  YamlParser P{Name, Diags, "compute"};
  if (!P.load(Text, Root))
    return false;
  if (!Root.IsMap() || Root["format"].as<std::string>("") != "mpiete-compute")
    return P.error(Root, "not a compute file: 'format: mpiete-compute' expected");
  if (Root["version"].as<int>(0) != 1)
    return P.error(Root["version"], "unsupported compute file version (1 expected)");
  YAML::Node Ranks = Root["ranks"];
  if (!Ranks.IsSequence())
    return P.error(Root, "missing sequence 'ranks'");
  if (Prov) {
    const YAML::Node P = Root["provenance"];
    Prov->Fingerprint = P["fingerprint"].as<std::string>("");
    Prov->RanksPerNode = P["ranks_per_node"].as<int>(1);
  }
  std::vector<int> Missing = Only ? *Only : std::vector<int>();
  for (const YAML::Node &R : Ranks) {
    int Rank = R["rank"].as<int>(-1);
    if (Rank < 0 || !R["blocks"].IsSequence())
      return P.error(R, "a rank needs 'rank' and 'blocks'");
    if (Only) {
      auto It = std::find(Missing.begin(), Missing.end(), Rank);
      if (It == Missing.end())
        continue;
      Missing.erase(It);
    }
    unsigned M = Out.addMachine();
    Out.assignRank(Rank, M);
    for (const YAML::Node &B : R["blocks"]) {
      BlockId Id;
      if (!parseBlockId(B["id"].as<std::string>(""), Id))
        return P.error(B, "bad block id (expected <unit as 8 hex digits>:<index>)");
      double Sec = P.number(B, "mean_seconds");
      if (!P.Ok)
        return false;
      Out.setTime(M, Id, Sec);
    }
  }
  if (!Missing.empty())
    return P.error(Root, "no compute data for rank " + std::to_string(Missing.front()) +
                             " (collect it with probe-compute at the program's rank count)");
  return true;
}

bool loadMachineYaml(const std::string &Path, TableComputeModel &Out, DiagnosticSink &Diags,
                     const std::vector<int> *Only, MachineProvenance *Prov) {
  std::string Text;
  return readBaseData(Path, "compute", Text, Diags) &&
         parseMachineYaml(Path, Text, Out, Diags, Only, Prov);
}

std::shared_ptr<LinkModel> loadNetworkYaml(const std::string &Path, NetworkModelKind Kind,
                                           DiagnosticSink &Diags) {
  std::string Text;
  if (!readBaseData(Path, "network", Text, Diags))
    return nullptr;
  return parseNetworkYaml(Path, Text, Kind, Diags);
}

} // namespace mpiete::estimator
