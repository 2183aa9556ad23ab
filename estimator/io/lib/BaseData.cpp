// Trace files to engine events, machine.yaml to a compute model, network.yaml to a link model.
#include "mpiete/estimator/BaseData.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <set>
#include <sstream>
#include <string_view>

namespace mpiete::estimator {
namespace {

/// A routine of role ICOLLECTIVE in routines.def (MPI_Ibcast, MPI_Iallreduce, ...).
bool isNonblockingCollective(std::string_view Routine) {
  static constexpr std::string_view Roles[][2] = {
#define MPIETE_ROUTINE(MpiName, RuntimeName, Role, Params, Args) {#MpiName, #Role},
#include "mpiete/routines.def"
  };
  for (const auto &[Name, Role] : Roles)
    if (Name == Routine)
      return Role == "ICOLLECTIVE";
  return false;
}

} // namespace

CallSites CallSites::fromBlockMap(const BlockMap &Map) {
  CallSites Out;
  for (const UnitModel &U : Map.Units) {
    Out.Units.insert(U.UnitId);
    for (const Block &B : U.Blocks) {
      // The frontend's routine table already sorted MPI_Init(_thread) and MPI_Finalize.
      const Kind K = B.Kind == BlockKind::Init       ? Kind::Init
                     : B.Kind == BlockKind::Finalize ? Kind::Finalize
                                                     : Kind::Other;
      Out.Sites.emplace(U.blockId(B.Index), K);
      if (B.Kind == BlockKind::Collective && isNonblockingCollective(B.Routine))
        Out.Nonblocking.insert(U.blockId(B.Index));
    }
  }
  return Out;
}

bool TraceEventSource::checkCallSite() {
  // One look-up for a known site (every call of a valid trace); the unit only when it is not.
  auto It = Check->Sites.find(Rec.Block);
  if (It == Check->Sites.end()) {
    if (isReservedBlock(Rec.Block) || !Check->Units.count(blockUnit(Rec.Block)))
      return true; // an uninstrumented call, or a unit the map does not describe
    return Reader.reject("call site " + formatBlockId(Rec.Block) +
                         " is not in the block map (blocks.yaml) of its unit: the trace and "
                         "the block map contradict each other");
  }
  const CallSites::Kind Recorded = Rec.Kind == trace::RecordKind::Init ? CallSites::Kind::Init
                                   : Rec.Kind == trace::RecordKind::Finalize
                                       ? CallSites::Kind::Finalize
                                       : CallSites::Kind::Other;
  if (Recorded != It->second)
    return Reader.reject(std::string("a call of ") + CallSites::name(Recorded) + " at call site " +
                         formatBlockId(Rec.Block) + ", which the block map (blocks.yaml) says is " +
                         CallSites::name(It->second) +
                         ": the trace and the block map contradict each other");
  return true;
}

// The other records of a call are written under the ids its site owns (a blocking send's wait
// at site + 1, a sendrecv's receive and wait at site + 1 and + 2; four ids a site, BlockId.h):
// a record of an instrumented unit elsewhere contradicts the call it belongs to (a flipped
// block index would move that record's wait to another call site of the report). The one
// exception: a non-blocking collective's messages and waits, which the call that drives the
// operation writes under the collective's own site.
bool TraceEventSource::checkInCall() {
  switch (Rec.Kind) {
  case trace::RecordKind::Block:
  case trace::RecordKind::Loop:
    return true;
  default:
    break;
  }
  if (CallSite == 0 || isReservedBlock(Rec.Block) || isReservedBlock(CallSite) ||
      !Check->Units.count(blockUnit(Rec.Block)))
    return true;
  if (blockUnit(Rec.Block) == blockUnit(CallSite) && Rec.Block >= CallSite &&
      Rec.Block - CallSite < 4)
    return true;
  if (!Check->Nonblocking.empty() && Check->Nonblocking.count(Rec.Block) != 0)
    return true;
  return Reader.reject("a record of block " + formatBlockId(Rec.Block) +
                       " inside the call at site " + formatBlockId(CallSite) +
                       ", whose records have the ids " + formatBlockId(CallSite) + " to " +
                       formatBlockId(CallSite + 3) + ": a corrupt block id");
}

bool TraceEventSource::next(Event &E) {
  for (;;) {
    if (Held) {
      Held = false;
    } else {
      if (!nextRecord(Rec))
        return false;
      if (Rec.CallStart) {
        if (Check && !checkCallSite())
          return false;
        CallSite = Rec.Block;
      } else if (Check && !checkInCall()) {
        return false;
      }
      if (Rec.CallStart) {
        if (EmitSegments) {
          // The computation before this call: emitted first, the record on the next call.
          Held = true;
          E.Kind = EventKind::Segment;
          E.From = LastCall;
          E.Block = Rec.Block;
          E.Index = Rec.Number;
          E.Context = 0;
          E.Mode = SendMode::Standard;
          LastCall = Rec.Block;
          return true;
        }
      }
    }
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
      E.SameBuffer = Rec.Kind == trace::RecordKind::Recv && Rec.SameBuffer;
      SameBufferReceives += E.SameBuffer;
      E.Layout = Rec.Layout;
      PackedMessages += E.Layout != trace::LayoutContiguous;
      LargestMessage = std::max(LargestMessage, Rec.Bytes);
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
      if (EmitLocalCopies && Rec.HasNew)
        CommSizes[Rec.NewComm] = Rec.Members.size();
      continue; // ids are already in every message record
    case trace::RecordKind::CommFree:
      continue;
    case trace::RecordKind::Collective:
      if (EmitLocalCopies) {
        if (uint64_t Bytes = ownBlockCopy()) {
          E.Kind = EventKind::LocalCopy;
          E.Context = 1;
          E.Count = Bytes;
          E.Layout = OwnLayout;
          ++LocalCopies;
          PackedLocalCopies += OwnLayout != trace::LayoutContiguous;
          return true;
        }
      }
      continue; // the call's site is in its Segment event; its messages follow as records
    case trace::RecordKind::Call:
    case trace::RecordKind::Repeat:
      continue; // the call's site is in its Segment event; its messages follow as records
    }
  }
}

bool TraceEventSource::nextRecord(trace::Record &R) {
  if (AheadAt < Ahead.size()) {
    std::swap(R, Ahead[AheadAt++]);
    if (AheadAt == Ahead.size()) {
      Ahead.clear();
      AheadAt = 0;
    }
    return true;
  }
  return Reader.next(R);
}

void TraceEventSource::readCallAhead(uint64_t &SentToOthers, uint8_t &Layout) {
  // The lowered messages follow the collective's record within the call (up to the next
  // call's first record). Read them ahead, kept for next() to hand out in order.
  const int32_t Me = Reader.header().Rank;
  SentToOthers = 0;
  Layout = trace::LayoutContiguous;
  for (;;) {
    trace::Record R;
    if (!Reader.next(R))
      break; // the end (or an error the reader keeps): next() meets it
    const bool NextCall = R.CallStart;
    const bool Message = R.Kind == trace::RecordKind::Send || R.Kind == trace::RecordKind::Recv;
    if (!NextCall && Message && R.Peer != Me) {
      if (R.Kind == trace::RecordKind::Send)
        SentToOthers += R.Bytes;
      Layout = trace::shorterPieces(Layout, R.Layout);
    }
    Ahead.push_back(std::move(R));
    if (NextCall)
      break;
  }
}

uint64_t TraceEventSource::ownBlockCopy() {
  // The record's bytes are what this rank contributes (docs/trace-format.md); Open MPI 4.1's
  // algorithms copy the rank's own block from the send to the receive buffer locally.
  using trace::CollKind;
  auto Size = [&]() -> uint64_t {
    if (Rec.Comm == 0)
      return uint64_t(std::max(1, Reader.header().WorldSize));
    if (Rec.Comm == 1)
      return 1;
    auto It = CommSizes.find(Rec.Comm);
    return It == CommSizes.end() ? 0 : It->second;
  };
  const bool Root = Rec.Root == Reader.header().Rank;
  OwnLayout = trace::LayoutContiguous;
  // The own block's size, from the record where it says (FromMessages: what the call's
  // messages to the others leave of the record's bytes); its layout from those messages.
  uint64_t Bytes = 0;
  bool FromMessages = false;
  switch (Rec.Coll) {
  case CollKind::Alltoall: {
    const uint64_t N = Size();
    Bytes = N ? Rec.Bytes / N : 0;
    break;
  }
  case CollKind::Allgather:
  case CollKind::Allgatherv:
    Bytes = Rec.Bytes;
    break;
  case CollKind::Gather:
  case CollKind::Gatherv:
    Bytes = Root ? Rec.Bytes : 0;
    break;
  case CollKind::Scatter: {
    const uint64_t N = Size();
    Bytes = Root && N ? Rec.Bytes / N : 0;
    break;
  }
  case CollKind::Alltoallv:
  case CollKind::Alltoallw:
    FromMessages = true;
    break;
  default:
    // Scatterv: the record does not say the root's own block. Reductions combine rather than
    // copy; bcast and barrier copy nothing.
    return 0;
  }
  // A collective's record starts its call, so nothing is read ahead yet (the writer's order).
  if ((Bytes == 0 && !FromMessages) || !Ahead.empty())
    return Bytes;
  uint64_t Sent = 0;
  readCallAhead(Sent, OwnLayout);
  if (FromMessages)
    Bytes = Rec.Bytes > Sent ? Rec.Bytes - Sent : 0;
  return Bytes;
}

namespace {

/// The rank files in Dir are rank0 ... rank<World-1>: else one message saying which header
/// disagrees with rank 0's world size (a flipped byte there would otherwise give one "cannot
/// open" per rank that never ran), or which files are missing.
template <typename PathFn>
bool rankFilesAgree(const std::string &Dir, int World, PathFn Path, DiagnosticSink &Diags) {
  std::set<int> Present;
  std::error_code Ec;
  for (const auto &Entry : std::filesystem::directory_iterator(Dir, Ec)) {
    const std::string Name = Entry.path().filename().string();
    int R = -1;
    if (Name.size() > 10 && Name.rfind("rank", 0) == 0 &&
        Name.compare(Name.size() - 6, 6, ".trace") == 0 &&
        std::from_chars(Name.data() + 4, Name.data() + Name.size() - 6, R).ptr ==
            Name.data() + Name.size() - 6 &&
        R >= 0 && Path(R) == Entry.path().string())
      Present.insert(R);
  }
  if (Ec || (int(Present.size()) == World && *Present.rbegin() == World - 1))
    return true; // every rank there (an unreadable directory: each open says why)
  // A witness: the first other rank whose header says another world size.
  for (int R : Present) {
    if (R == 0)
      continue;
    std::ostringstream Ignored;
    DiagnosticSink Quiet(Ignored);
    trace::TraceReader Other(Quiet);
    if (Other.open(Path(R)) && Other.header().WorldSize != World) {
      Diags.error({Path(0), 0, 0},
                  "rank0.trace says " + std::to_string(World) + " ranks, rank" + std::to_string(R) +
                      ".trace says " + std::to_string(Other.header().WorldSize) +
                      " (a corrupt header, or rank files of two runs in one directory)",
                  "estimate");
      return false;
    }
  }
  std::string Missing;
  int Count = 0;
  for (int R = 0; R < World; ++R)
    if (!Present.count(R) && ++Count <= 3)
      Missing += (Missing.empty() ? "" : ", ") + ("rank" + std::to_string(R) + ".trace");
  std::string Extra;
  for (int R : Present)
    if (R >= World) {
      Extra = "rank" + std::to_string(R) + ".trace";
      break;
    }
  if (Count > 0)
    Diags.error({Path(0), 0, 0},
                "rank0.trace says " + std::to_string(World) + " ranks, but " +
                    std::to_string(Count) + " of their files are missing (" + Missing +
                    (Count > 3 ? ", ..." : "") + ")",
                "estimate");
  else
    Diags.error({Path(0), 0, 0},
                "rank0.trace says " + std::to_string(World) +
                    " ranks, but the directory also has " + Extra + " (rank files of another run?)",
                "estimate");
  return false;
}

} // namespace

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
  if (!rankFilesAgree(Dir, World, Path, Diags))
    return false;
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
    if (H.WorldSize != World) {
      Diags.error({Path(R), 0, 0},
                  "rank0.trace says " + std::to_string(World) + " ranks, rank" + std::to_string(R) +
                      ".trace says " + std::to_string(H.WorldSize),
                  "estimate");
      Ok = false;
    } else if (H.Rank != R) {
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

unsigned networkParts(NetworkModelKind Kind) {
  return Kind == NetworkModelKind::LogGPS ? NetworkLogGps : NetworkAll;
}

/// The memory-copy table, when the file has one, for either model.
static void setCopies(const NetworkFile &File, LinkModel &Model) {
  std::vector<std::pair<uint64_t, double>> Copies;
  for (const NetworkCopyRow &R : File.Copies)
    Copies.emplace_back(R.Bytes, R.Time.Median);
  Model.setCopyTable(std::move(Copies));
}

/// Per row, its median time (seconds) minus what Base (ns) charges at its size.
template <typename BaseFn>
static std::vector<std::pair<uint64_t, double>> extrasOver(const std::vector<NetworkCopyRow> &Rows,
                                                           BaseFn Base) {
  std::vector<std::pair<uint64_t, double>> Extra;
  for (const NetworkCopyRow &R : Rows)
    Extra.emplace_back(R.Bytes, R.Time.Median - double(Base(R.Bytes)) * 1e-9);
  return Extra;
}

/// The same-buffer table, when the file has one: per size, its one-way time minus what the
/// model charges a message of that size (the table's own time, or the fit's), so that such a
/// receive costs what the same-buffer ping-pong measured (a negative difference counts as 0).
static void setSameBuffer(const NetworkFile &File, LinkModel &Model) {
  Model.setSameBufferTable(
      extrasOver(File.SameBuffer, [&](uint64_t B) { return Model.transfer(B); }));
}

/// The packed tables, when the file has them: per piece length and size, the packed one-way
/// time minus what the model charges a contiguous message of that size; negative where the
/// packed path was faster (docs/estimator.md, "Packed messages").
static void setPacked(const NetworkFile &File, LinkModel &Model) {
  auto Extras = [&](const NetworkPackedTable &T) {
    return extrasOver(T.Rows, [&](uint64_t B) { return Model.transfer(B); });
  };
  for (const NetworkPackedTable &T : File.Packed)
    Model.addPackedTable(double(T.PieceBytes), Extras(T));
  for (const NetworkPackedTable &T : File.Unpacked) // the receiver's side, the same way
    Model.addUnpackedTable(double(T.PieceBytes), Extras(T));
}

/// The exchange tables, when the file has them: the endpoint a rank's simultaneous transfers
/// share (LinkModel::setExchangeTables; docs/estimator.md, "Contention").
static void setExchange(const NetworkFile &File, LinkModel &Model) {
  std::vector<std::pair<uint64_t, double>> Contiguous, Packed;
  for (const NetworkCopyRow &R : File.Exchange)
    Contiguous.emplace_back(R.Bytes, R.Time.Median);
  for (const NetworkCopyRow &R : File.ExchangePacked.Rows)
    Packed.emplace_back(R.Bytes, R.Time.Median);
  Model.setExchangeTables(Contiguous, double(File.ExchangePacked.PieceBytes), Packed);
}

/// The packed copy tables, when the file has them: per piece length and size, MPI_Pack's time
/// minus the memcpy table's for that size (LinkModel::localCopy with a layout).
static void setPackedCopies(const NetworkFile &File, LinkModel &Model) {
  for (const NetworkPackedTable &T : File.PackedCopies)
    Model.addPackedCopyTable(double(T.PieceBytes),
                             extrasOver(T.Rows, [&](uint64_t B) { return Model.localCopy(B); }));
}

/// The optional tables beside the message times, in the order they depend on each other
/// (packed copies over the memcpy table, exchanges over the packed tables).
static void setTables(const NetworkFile &File, LinkModel &Model) {
  setCopies(File, Model);
  setSameBuffer(File, Model);
  setPacked(File, Model);
  setExchange(File, Model);
  setPackedCopies(File, Model);
}

std::shared_ptr<LinkModel> linkModelOf(const NetworkFile &File, NetworkModelKind Kind) {
  const LogGpsParams &L = File.LogGps;
  if (Kind == NetworkModelKind::LogGPS) {
    auto Model = std::make_shared<LogGPSLinkModel>(L);
    setTables(File, *Model);
    return Model;
  }
  std::vector<TableLinkModel::Point> Points;
  for (const NetworkRow &R : File.Rows)
    Points.push_back({R.Bytes, R.Recv.Median});
  auto Model = std::make_shared<TableLinkModel>(std::move(Points), L.Os, L.Or, L.eagerLimit(),
                                                L.Gap, L.OsPerByte, L.OrPerByte);
  // The table says how long a message takes; the fit says which part streams (contention).
  Model->setStreamGaps(L.G, L.GEager);
  setTables(File, *Model);
  return Model;
}

std::shared_ptr<LinkModel> parseNetworkYaml(const std::string &Name, const std::string &Text,
                                            NetworkModelKind Kind, DiagnosticSink &Diags) {
  NetworkFile File;
  if (!parseNetworkFile(Name, Text, File, Diags, networkParts(Kind)))
    return nullptr;
  return linkModelOf(File, Kind);
}

std::shared_ptr<LinkModel> loadNetworkYaml(const std::string &Path, NetworkModelKind Kind,
                                           DiagnosticSink &Diags) {
  NetworkFile File;
  if (!loadNetworkFile(Path, File, Diags, networkParts(Kind)))
    return nullptr;
  return linkModelOf(File, Kind);
}

void addMachineFile(const MachineFile &File, TableComputeModel &Out) {
  if (File.Partition == MachinePartition::Segments)
    Out.noteSegments();
  for (const MachineRank &R : File.Ranks) {
    unsigned M = Out.addMachine();
    Out.assignRank(R.Rank, M);
    for (const MachineBlock &B : R.Blocks)
      Out.setTime(M, B.Id, B.MeanSeconds);
    for (const MachineSegment &G : R.Segments) {
      SegmentTimes T;
      T.From = G.From;
      T.To = G.To;
      T.MeanSeconds = G.MeanSeconds;
      T.Executions = G.Executions;
      T.Width = G.SeriesSeconds.empty() ? 0 : G.SeriesWidth;
      T.BucketSeconds = G.SeriesSeconds;
      Out.setSegment(M, std::move(T));
    }
  }
}

bool parseMachineYaml(const std::string &Name, const std::string &Text, TableComputeModel &Out,
                      DiagnosticSink &Diags, const std::vector<int> *Only,
                      MachineProvenance *Prov) {
  MachineFile File;
  if (!parseMachineFile(Name, Text, File, Diags, Only))
    return false;
  if (Prov)
    *Prov = File.Provenance;
  addMachineFile(File, Out);
  return true;
}

bool loadMachineYaml(const std::string &Path, TableComputeModel &Out, DiagnosticSink &Diags,
                     const std::vector<int> *Only, MachineProvenance *Prov) {
  MachineFile File;
  if (!loadMachineFile(Path, File, Diags, Only))
    return false;
  if (Prov)
    *Prov = File.Provenance;
  addMachineFile(File, Out);
  return true;
}

} // namespace mpiete::estimator
