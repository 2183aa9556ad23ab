// `mpiete trace dump FILE...`: a per-rank binary trace as text, the header then one line per
// record, block ids as `<unit hex>:<index>` like the block map.
#include "CommandUtil.h"

#include "mpiete/basedata/ProgramModel.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/tools/Commands.h"
#include "mpiete/trace/TraceReader.h"

#include <iostream>
#include <ostream>
#include <string>

namespace mpiete {
namespace {

using namespace trace;

std::string peer(int32_t P) {
  if (P == AnySource)
    return "any";
  if (P == ProcNull)
    return "null";
  return std::to_string(P);
}
std::string tagText(int32_t T) { return T == AnyTag ? "any" : std::to_string(T); }

std::string hex(uint64_t V) {
  static const char Digits[] = "0123456789abcdef";
  std::string S(16, '0');
  for (int I = 15; I >= 0; --I, V >>= 4)
    S[I] = Digits[V & 15];
  return S;
}
/// Communicator ids: world and self by name, the rest as 16 hex digits.
std::string comm(uint64_t Id) { return Id == 0 ? "world" : Id == 1 ? "self" : hex(Id); }

/// A send's or receive's datatype layout (format 4): nothing when contiguous, else
/// ` packed=<16` and so on (the class's range of mean piece lengths in bytes).
std::string layoutText(uint8_t Layout) {
  static const char *const Names[LastLayout + 1] = {"",      "<16",   "<64",    "<256",
                                                    "<1024", "<4096", ">=4096", "unknown"};
  if (Layout == LayoutContiguous || Layout > LastLayout)
    return "";
  return std::string(" packed=") + Names[Layout];
}

void printRecord(std::ostream &OS, const Record &R) {
  if (R.Kind == RecordKind::Repeat) {
    OS << "repeat count=" << R.RepeatCount << " bytes=" << R.RepeatLength << '\n';
    return;
  }
  OS << formatBlockId(R.Block) << ' ' << recordKindName(R.Kind);
  if (R.CallStart)
    OS << " call-start";
  switch (R.Kind) {
  case RecordKind::Repeat:
  case RecordKind::Call:
    break;
  case RecordKind::Collective:
    OS << " kind=" << collKindName(R.Coll) << " comm=" << comm(R.Comm)
       << " root=" << (R.Root < 0 ? std::string("none") : std::to_string(R.Root))
       << " bytes=" << R.Bytes;
    break;
  case RecordKind::Block:
  case RecordKind::Init:
  case RecordKind::Finalize:
    break;
  case RecordKind::Loop:
    OS << " trips=" << R.Trips;
    break;
  case RecordKind::Send:
    OS << " req=" << R.Request << " to=" << peer(R.Peer) << " tag=" << R.Tag
       << " comm=" << comm(R.Comm) << " bytes=" << R.Bytes << " mode=" << sendModeName(R.Mode)
       << " ctx=" << contextName(R.Ctx) << layoutText(R.Layout);
    break;
  case RecordKind::Recv:
    OS << " req=" << R.Request << " from=" << peer(R.Peer) << " tag=" << tagText(R.Tag)
       << " comm=" << comm(R.Comm) << " bytes=" << R.Bytes << " ctx=" << contextName(R.Ctx)
       << (R.SameBuffer ? " same-buffer" : "") << layoutText(R.Layout);
    break;
  case RecordKind::Wait:
    OS << " op=" << waitOpName(R.Op) << " done=" << R.Completions.size();
    for (const Completion &C : R.Completions) {
      OS << " [req=" << C.Request;
      if (C.Recv)
        OS << " from=" << peer(C.Source) << " tag=" << C.Tag << " bytes=" << C.Bytes;
      OS << ']';
    }
    break;
  case RecordKind::Probe:
    OS << (R.Blocking ? " blocking" : " nonblocking") << " from=" << peer(R.Peer)
       << " tag=" << tagText(R.Tag) << " comm=" << comm(R.Comm);
    if (R.Found)
      OS << " found [from=" << peer(R.MatchedSource) << " tag=" << R.MatchedTag
         << " bytes=" << R.MatchedBytes << ']';
    else
      OS << " none";
    break;
  case RecordKind::CommCreate:
    OS << " parent=" << comm(R.Parent);
    if (!R.HasNew) {
      OS << " new=null";
      break;
    }
    OS << " new=" << comm(R.NewComm) << " members=";
    for (size_t I = 0; I < R.Members.size(); ++I)
      OS << (I ? "," : "") << R.Members[I];
    break;
  case RecordKind::CommFree:
    OS << " comm=" << comm(R.Comm);
    break;
  case RecordKind::RequestFree:
    OS << " req=" << R.Request;
    break;
  }
  OS << '\n';
}

/// Dumps one file; false on any error (already reported).
bool dumpFile(const std::string &Path, bool Raw, std::ostream &OS, DiagnosticSink &Diags) {
  TraceReader Reader(Diags);
  Reader.setExpandRepeats(!Raw);
  if (!Reader.open(Path))
    return false;
  const Header &H = Reader.header();
  OS << "# mpiete trace " << Path << "\n"
     << "format " << H.FormatVersion << "\n"
     << "rank " << H.Rank << " of " << H.WorldSize << "\n"
     << "fingerprint " << (H.Fingerprint.empty() ? "-" : H.Fingerprint) << "\n"
     << "host " << H.Host << "\n"
     << "date " << H.Date << "\n"
     << "tool " << H.ToolVersion << "\n";
  Record R;
  while (Reader.next(R))
    printRecord(OS, R);
  if (!Reader.ok())
    return false;
  OS << "end records=" << Reader.recordCount() << " units=" << Reader.units().size() << "\n";
  return true;
}

} // namespace

int runTraceDump(const CommandArgs &Args) {
  DiagnosticSink Diags(std::cerr);
  CommandLine C("trace dump", "usage: mpiete trace dump [--raw] FILE.trace...",
                "Prints each per-rank trace's header and one line per record.",
                "  mpiete trace dump traces/rank0.trace\n");
  CommandArgs Files;
  bool Raw = false;
  C.App.add_flag("--raw", Raw,
                 "show the records as stored: repeat records unexpanded, version 2 request ids "
                 "as stored (distances back to their start; starts show req=0)");
  C.App.add_option("FILE.trace", Files, "the per-rank traces")->type_name("");
  // The driver may pass the `dump` word along; accept it.
  CommandArgs Rest = Args;
  if (!Rest.empty() && Rest[0] == "dump")
    Rest.erase(Rest.begin());
  if (std::string Err = C.parse(Rest); !Err.empty()) {
    Diags.error(DiagLoc{"mpiete", 0, 0}, Err, "usage");
    return 2;
  }
  if (C.Help) {
    std::cout << C.help();
    return 0;
  }
  if (Files.empty()) {
    Diags.error(DiagLoc{"mpiete", 0, 0}, "'trace dump' needs a trace file", "usage");
    return 2;
  }
  bool Ok = true;
  for (const std::string &F : Files)
    Ok = dumpFile(F, Raw, std::cout, Diags) && Ok;
  std::cout.flush();
  return Ok ? 0 : 1;
}

} // namespace mpiete
