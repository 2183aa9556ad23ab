// The OTF2 archive of a predicted run: events kept per rank, sorted and written at finish().
#include "mpiete/export/Otf2Writer.h"

#include <otf2/otf2.h>

#include <algorithm>
#include <filesystem>

namespace mpiete::exporter {

using namespace estimator;

namespace {
enum : uint8_t { RecvOrder = 0, LeaveOrder = 1, EnterOrder = 2, SendOrder = 3 };

const char *kindWord(SpanKind K) {
  switch (K) {
  case SpanKind::Compute:
    return "compute";
  case SpanKind::Comm:
    return "comm";
  case SpanKind::Wait:
    return "wait";
  }
  return "?";
}

OTF2_FlushType preFlush(void *, OTF2_FileType, OTF2_LocationRef, void *, bool) {
  return OTF2_FLUSH;
}
OTF2_TimeStamp postFlush(void *, OTF2_FileType, OTF2_LocationRef) { return 0; }
} // namespace

Otf2Writer::Otf2Writer(std::string Dir, int Ranks, std::function<std::string(BlockId)> Describe)
    : Dir(std::move(Dir)), Ranks(Ranks), Describe(std::move(Describe)), Events(size_t(Ranks)) {}

Otf2Writer::~Otf2Writer() { finish(); }

uint32_t Otf2Writer::regionOf(SpanKind Kind, BlockId Block) {
  auto [It, New] = RegionIndex.try_emplace({int(Kind), Block}, uint32_t(Regions.size()));
  if (New) {
    std::string Where = Describe ? Describe(Block) : std::string();
    if (Where.empty())
      Where = formatBlock(Block);
    Regions.emplace_back(std::string(kindWord(Kind)) + " " + Where, Kind != SpanKind::Compute);
  }
  return It->second;
}

void Otf2Writer::span(int Rank, SpanKind Kind, BlockId Block, TimeNs Begin, TimeNs End) {
  if (Rank < 0 || Rank >= Ranks)
    return;
  uint32_t Region = regionOf(Kind, Block);
  auto &E = Events[size_t(Rank)];
  E.push_back({Begin, Region, EnterOrder});
  E.push_back({End, Region, LeaveOrder});
  Last = std::max(Last, End);
}

void Otf2Writer::message(const MessageArrow &M) {
  if (M.Source < 0 || M.Source >= Ranks || M.Dest < 0 || M.Dest >= Ranks)
    return;
  // Messages[2i] is the send (its peer the receiver), [2i + 1] the receive.
  uint32_t I = uint32_t(Messages.size());
  Messages.push_back({M.Dest, M.Tag, M.Bytes});
  Messages.push_back({M.Source, M.Tag, M.Bytes});
  Events[size_t(M.Source)].push_back({M.SendBegin, I, SendOrder});
  Events[size_t(M.Dest)].push_back({M.RecvEnd, I + 1, RecvOrder});
  Last = std::max(Last, M.RecvEnd);
}

void Otf2Writer::finish() {
  if (Finished)
    return;
  Finished = true;
  std::error_code EC;
  std::filesystem::create_directories(Dir, EC);
  // OTF2 refuses to overwrite an archive: a re-run replaces the previous export.
  std::filesystem::remove_all(std::filesystem::path(Dir) / "traces", EC);
  std::filesystem::remove(std::filesystem::path(Dir) / "traces.otf2", EC);
  std::filesystem::remove(std::filesystem::path(Dir) / "traces.def", EC);
  OTF2_Archive *A =
      OTF2_Archive_Open(Dir.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024 /* event chunk */,
                        4 * 1024 * 1024 /* defs */, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!A) {
    Error = "cannot create the OTF2 archive in '" + Dir + "'";
    return;
  }
  OTF2_FlushCallbacks Flush = {preFlush, postFlush};
  OTF2_Archive_SetFlushCallbacks(A, &Flush, nullptr);
  OTF2_Archive_SetSerialCollectiveCallbacks(A);
  OTF2_Archive_SetCreator(A, "mpiete (predicted run)");
  OTF2_Archive_OpenEvtFiles(A);
  std::vector<uint64_t> Counts(size_t(Ranks), 0);
  for (int R = 0; R < Ranks; ++R) {
    auto &E = Events[size_t(R)];
    std::stable_sort(E.begin(), E.end(), [](const Record &X, const Record &Y) {
      return X.Time != Y.Time ? X.Time < Y.Time : X.Order < Y.Order;
    });
    OTF2_EvtWriter *W = OTF2_Archive_GetEvtWriter(A, OTF2_LocationRef(R));
    for (const Record &Ev : E) {
      const OTF2_TimeStamp T = OTF2_TimeStamp(std::max<TimeNs>(0, Ev.Time));
      switch (Ev.Order) {
      case EnterOrder:
        OTF2_EvtWriter_Enter(W, nullptr, T, Ev.Ref);
        break;
      case LeaveOrder:
        OTF2_EvtWriter_Leave(W, nullptr, T, Ev.Ref);
        break;
      case SendOrder:
      case RecvOrder: {
        const Message &M = Messages[Ev.Ref];
        if (Ev.Order == SendOrder)
          OTF2_EvtWriter_MpiSend(W, nullptr, T, uint32_t(M.Peer), 0, uint32_t(M.Tag), M.Bytes);
        else
          OTF2_EvtWriter_MpiRecv(W, nullptr, T, uint32_t(M.Peer), 0, uint32_t(M.Tag), M.Bytes);
        break;
      }
      }
    }
    Counts[size_t(R)] = E.size();
    OTF2_Archive_CloseEvtWriter(A, W);
    E = {};
  }
  OTF2_Archive_CloseEvtFiles(A);

  // Every location needs its (here empty) local definitions file.
  OTF2_Archive_OpenDefFiles(A);
  for (int R = 0; R < Ranks; ++R)
    OTF2_Archive_CloseDefWriter(A, OTF2_Archive_GetDefWriter(A, OTF2_LocationRef(R)));
  OTF2_Archive_CloseDefFiles(A);

  OTF2_GlobalDefWriter *G = OTF2_Archive_GetGlobalDefWriter(A);
  OTF2_GlobalDefWriter_WriteClockProperties(G, 1000000000, 0, uint64_t(Last) + 1,
                                            OTF2_UNDEFINED_TIMESTAMP);
  uint32_t NextString = 0;
  auto string = [&](const std::string &S) {
    OTF2_GlobalDefWriter_WriteString(G, NextString, S.c_str());
    return NextString++;
  };
  const uint32_t Empty = string("");
  for (uint32_t I = 0; I < Regions.size(); ++I) {
    const uint32_t Name = string(Regions[I].first);
    OTF2_GlobalDefWriter_WriteRegion(G, I, Name, Name, Empty,
                                     Regions[I].second ? OTF2_REGION_ROLE_FUNCTION
                                                       : OTF2_REGION_ROLE_CODE,
                                     Regions[I].second ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER,
                                     OTF2_REGION_FLAG_NONE, Empty, 0, 0);
  }
  OTF2_GlobalDefWriter_WriteSystemTreeNode(G, 0, string("predicted machine"), string("machine"),
                                           OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  std::vector<uint64_t> Members;
  for (int R = 0; R < Ranks; ++R) {
    const std::string Name = "rank " + std::to_string(R);
    OTF2_GlobalDefWriter_WriteLocationGroup(G, OTF2_LocationGroupRef(R), string(Name),
                                            OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(G, OTF2_LocationRef(R), string(Name),
                                       OTF2_LOCATION_TYPE_CPU_THREAD, Counts[size_t(R)],
                                       OTF2_LocationGroupRef(R));
    Members.push_back(uint64_t(R));
  }
  // The messages' communicator: world, rank i the i-th location.
  OTF2_GlobalDefWriter_WriteGroup(G, 0, string("MPI_COMM_WORLD locations"),
                                  OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                  OTF2_GROUP_FLAG_NONE, uint32_t(Ranks), Members.data());
  OTF2_GlobalDefWriter_WriteGroup(G, 1, string("MPI_COMM_WORLD"), OTF2_GROUP_TYPE_COMM_GROUP,
                                  OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, uint32_t(Ranks),
                                  Members.data());
  OTF2_GlobalDefWriter_WriteComm(G, 0, string("MPI_COMM_WORLD"), 1, OTF2_UNDEFINED_COMM,
                                 OTF2_COMM_FLAG_NONE);
  OTF2_Archive_CloseGlobalDefWriter(A, G);
  if (OTF2_Archive_Close(A) != OTF2_SUCCESS)
    Error = "cannot write the OTF2 archive in '" + Dir + "'";
}

} // namespace mpiete::exporter
