// Two runs' traces compared record by record (TraceCompare.h).
#include "TraceCompare.h"

#include "mpiete/BlockId.h"

#include <algorithm>
#include <deque>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

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
                                                const std::unordered_set<uint64_t> &Nonblocking,
                                                DiagnosticSink &Diags, bool &Ok, uint64_t &Records,
                                                uint64_t &Timing) {
  Ok = true;
  Records = Timing = 0;
  // The sites in a fixed order (their ids sorted): a site's renamed requests say which site.
  std::vector<uint64_t> Sorted(Nonblocking.begin(), Nonblocking.end());
  std::sort(Sorted.begin(), Sorted.end());
  std::unordered_map<uint64_t, uint64_t> Sites;
  for (size_t I = 0; I < Sorted.size(); ++I)
    Sites.emplace(Sorted[I], I + 1);
  for (int Rank = 0; Rank < Ranks; ++Rank) {
    const std::string Name = "rank" + std::to_string(Rank) + ".trace";
    trace::TraceReader Full(Diags), Skel(Diags);
    if (!Full.open((FullDir / Name).string()) || !Skel.open((SkeletonDir / Name).string())) {
      Ok = false;
      return std::nullopt;
    }
    // A non-blocking collective's rounds are recorded where the rank drove it, which may be
    // inside any later wait and depends on timing (runtime/lib/Nonblocking.h): they are
    // compared per site, in their own order; every other record in the trace's order. Request
    // numbers count every start of the rank, so each trace's are renamed first: the k-th start
    // of the other records is k, the j-th of a site's rounds (site, j).
    // A request completes once: its name is dropped then, so the map holds the requests in
    // flight, not every start of the trace.
    struct Renamer {
      std::unordered_map<uint64_t, uint64_t> Names;
      std::unordered_map<uint64_t, uint64_t> Count; ///< starts per site (0: the other records)
      /// Out = R as compared: its requests renamed (Out's storage reused).
      void rename(const Record &R, uint64_t Site, uint64_t SiteIndex, Record &Out) {
        Out = R;
        if ((R.Kind == RecordKind::Send || R.Kind == RecordKind::Recv) && R.Request != 0) {
          const uint64_t J = ++Count[Site];
          const uint64_t Name = Site == 0 ? J : (uint64_t{1} << 63) | (SiteIndex << 40) | J;
          Names[R.Request] = Name;
          Out.Request = Name;
        }
        for (Completion &C : Out.Completions)
          if (auto It = Names.find(C.Request); It != Names.end()) {
            C.Request = It->second;
            Names.erase(It);
          }
      }
    };
    Renamer RenameFull, RenameSkel;
    struct Entry {
      Record Read, Compared; ///< as read (described), renamed (compared)
      uint64_t N;            ///< its index in the full trace
    };
    struct Pending {
      std::deque<Entry> Full, Skel;
    };
    std::unordered_map<uint64_t, Pending> Queues;
    uint64_t Previous = 0, NFull = 0;
    std::optional<TraceDifference> D;
    auto differ = [&](const Record *A, const Record *B, uint64_t N) {
      D.emplace();
      D->Rank = Rank;
      D->Record = N;
      D->Full = A != nullptr ? describeRecord(*A) : "(end of trace)";
      D->Skeleton = B != nullptr ? describeRecord(*B) : "(end of trace)";
      D->FullSite = A != nullptr ? A->Block : (B != nullptr ? B->Block : 0);
      D->PreviousSite = Previous;
    };
    auto matchQueue = [&](Pending &Q) {
      while (!D && !Q.Full.empty() && !Q.Skel.empty()) {
        const Record &A = Q.Full.front().Compared, &B = Q.Skel.front().Compared;
        if (!sameRecord(A, B) && !sameUpToTiming(A, B)) {
          differ(&Q.Full.front().Read, &Q.Skel.front().Read, Q.Full.front().N);
          return;
        }
        Timing += !sameRecord(A, B);
        ++Records;
        Q.Full.pop_front();
        Q.Skel.pop_front();
      }
    };
    // The next record of the trace's own order; a non-blocking collective's on the way goes to
    // its site's queue.
    auto next = [&](trace::TraceReader &R, Record &Out, Record &Compared, bool IsFull) {
      for (;;) {
        // The reader fills only the fields of the kind it read: the others reset, the
        // completions' storage kept.
        std::vector<Completion> Keep = std::move(Out.Completions);
        Keep.clear();
        Out = Record();
        Out.Completions = std::move(Keep);
        if (!R.next(Out))
          return false;
        const uint64_t N = IsFull ? NFull++ : 0;
        Renamer &Names = IsFull ? RenameFull : RenameSkel;
        const auto Site = Sites.find(Out.Block);
        if (Site == Sites.end()) {
          Names.rename(Out, 0, 0, Compared);
          return true;
        }
        Pending &Q = Queues[Out.Block];
        Entry &E = (IsFull ? Q.Full : Q.Skel).emplace_back();
        E.Read = Out;
        E.N = N;
        Names.rename(Out, Out.Block, Site->second, E.Compared);
        matchQueue(Q);
        if (D)
          return false;
      }
    };
    Record A, B, CA, CB;
    for (;;) {
      const bool HaveA = next(Full, A, CA, true);
      const bool HaveB = !D && next(Skel, B, CB, false);
      if (!Full.ok() || !Skel.ok()) {
        Ok = false;
        return std::nullopt;
      }
      if (D)
        return D;
      if (!HaveA && !HaveB)
        break;
      if (HaveA && HaveB && (sameRecord(CA, CB) || sameUpToTiming(CA, CB))) {
        Timing += !sameRecord(CA, CB);
        ++Records;
        Previous = A.Block;
        continue;
      }
      differ(HaveA ? &A : nullptr, HaveB ? &B : nullptr, HaveA ? NFull - 1 : NFull);
      return D;
    }
    for (auto &[Block, Q] : Queues)
      if (!Q.Full.empty() || !Q.Skel.empty()) {
        differ(Q.Full.empty() ? nullptr : &Q.Full.front().Read,
               Q.Skel.empty() ? nullptr : &Q.Skel.front().Read,
               Q.Full.empty() ? NFull : Q.Full.front().N);
        return D;
      }
  }
  return std::nullopt;
}

} // namespace mpiete
