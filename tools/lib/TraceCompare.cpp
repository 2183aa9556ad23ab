// Two runs' traces compared record by record (TraceCompare.h).
#include "TraceCompare.h"

#include "mpiete/BlockId.h"

#include <sstream>

namespace mpiete {

using trace::Completion;
using trace::Record;
using trace::RecordKind;

namespace {

bool sameCompletion(const Completion &A, const Completion &B) {
  return A.Request == B.Request && A.Recv == B.Recv && A.Source == B.Source && A.Tag == B.Tag &&
         A.Bytes == B.Bytes;
}

} // namespace

bool sameRecord(const Record &A, const Record &B) {
  if (A.Kind != B.Kind || A.Block != B.Block || A.CallStart != B.CallStart || A.Trips != B.Trips ||
      A.Peer != B.Peer || A.Tag != B.Tag || A.Comm != B.Comm || A.Bytes != B.Bytes ||
      A.Request != B.Request || A.Mode != B.Mode || A.Ctx != B.Ctx || A.Op != B.Op ||
      A.Blocking != B.Blocking || A.Found != B.Found || A.MatchedSource != B.MatchedSource ||
      A.MatchedTag != B.MatchedTag || A.MatchedBytes != B.MatchedBytes || A.Parent != B.Parent ||
      A.HasNew != B.HasNew || A.NewComm != B.NewComm || A.Members != B.Members ||
      A.Coll != B.Coll || A.Root != B.Root || A.Completions.size() != B.Completions.size())
    return false;
  for (size_t I = 0; I < A.Completions.size(); ++I)
    if (!sameCompletion(A.Completions[I], B.Completions[I]))
      return false;
  return true;
}

bool sameUpToTiming(const Record &A, const Record &B) {
  if (A.Kind != RecordKind::Wait || B.Kind != RecordKind::Wait || A.Block != B.Block ||
      A.Op != B.Op || A.CallStart != B.CallStart)
    return false;
  switch (A.Op) {
  case trace::WaitOp::Waitany:
  case trace::WaitOp::Waitsome:
  case trace::WaitOp::Test:
  case trace::WaitOp::Testall:
  case trace::WaitOp::Testany:
  case trace::WaitOp::Testsome:
    return true;
  default:
    return false;
  }
}

std::string describeRecord(const Record &R) {
  std::ostringstream OS;
  OS << formatBlockId(R.Block) << ' ' << trace::recordKindName(R.Kind);
  switch (R.Kind) {
  case RecordKind::Send:
    OS << " to=" << R.Peer << " tag=" << R.Tag << " bytes=" << R.Bytes << " req=" << R.Request;
    break;
  case RecordKind::Recv:
    OS << " from=" << R.Peer << " tag=" << R.Tag << " bytes=" << R.Bytes << " req=" << R.Request;
    break;
  case RecordKind::Collective:
    OS << " kind=" << trace::collKindName(R.Coll) << " root=" << R.Root << " bytes=" << R.Bytes;
    break;
  case RecordKind::Wait:
    OS << " op=" << trace::waitOpName(R.Op) << " done=" << R.Completions.size();
    for (const Completion &C : R.Completions)
      OS << " [req=" << C.Request << (C.Recv ? " from=" + std::to_string(C.Source) : "")
         << " bytes=" << C.Bytes << ']';
    break;
  case RecordKind::Loop:
    OS << " trips=" << R.Trips;
    break;
  case RecordKind::Probe:
    OS << " from=" << R.Peer << " tag=" << R.Tag << (R.Found ? " found" : " none");
    break;
  default:
    break;
  }
  return OS.str();
}

std::optional<TraceDifference> compareTraceDirs(const std::filesystem::path &FullDir,
                                                const std::filesystem::path &SkeletonDir, int Ranks,
                                                DiagnosticSink &Diags, bool &Ok, uint64_t &Records,
                                                uint64_t &Timing) {
  Ok = true;
  Records = Timing = 0;
  for (int Rank = 0; Rank < Ranks; ++Rank) {
    const std::string Name = "rank" + std::to_string(Rank) + ".trace";
    trace::TraceReader Full(Diags), Skel(Diags);
    if (!Full.open((FullDir / Name).string()) || !Skel.open((SkeletonDir / Name).string())) {
      Ok = false;
      return std::nullopt;
    }
    Record A, B;
    uint64_t Previous = 0;
    for (uint64_t N = 0;; ++N) {
      // The reader fills only the fields of the kind it read: no stale fields compared.
      A = Record();
      B = Record();
      const bool HaveA = Full.next(A), HaveB = Skel.next(B);
      if (!Full.ok() || !Skel.ok()) {
        Ok = false;
        return std::nullopt;
      }
      if (!HaveA && !HaveB)
        break;
      if (HaveA && HaveB && (sameRecord(A, B) || sameUpToTiming(A, B))) {
        Timing += !sameRecord(A, B);
        ++Records;
        Previous = A.Block;
        continue;
      }
      TraceDifference D;
      D.Rank = Rank;
      D.Record = N;
      D.Full = HaveA ? describeRecord(A) : "(end of trace)";
      D.Skeleton = HaveB ? describeRecord(B) : "(end of trace)";
      D.FullSite = HaveA ? A.Block : (HaveB ? B.Block : 0);
      D.PreviousSite = Previous;
      return D;
    }
  }
  return std::nullopt;
}

} // namespace mpiete
