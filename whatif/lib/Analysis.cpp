// F1: critical path shares, the domino path, balancing candidates and ranked suggestions.
#include "mpiete/whatif/Analysis.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace mpiete::whatif {

using namespace estimator;

namespace {

/// Factors taking each rank's total to the mean over the ranks with compute there. A rank with
/// none has no record the replay could give work to: counting it in the mean would make work
/// vanish (a segment only one rank runs "balanced" to half its time: a gain no change delivers).
std::vector<double> toMean(const std::vector<TimeNs> &Totals) {
  double Sum = 0;
  size_t With = 0;
  for (TimeNs T : Totals)
    if (T > 0) {
      Sum += double(T);
      ++With;
    }
  const double Mean = With ? Sum / double(With) : 0;
  std::vector<double> F(Totals.size(), 1);
  for (size_t R = 0; R < Totals.size(); ++R)
    if (Totals[R] > 0)
      F[R] = Mean / double(Totals[R]);
  return F;
}

/// The spread over the ranks with compute there (what toMean can even out).
TimeNs spread(const std::vector<TimeNs> &T) {
  TimeNs Lo = 0, Hi = 0;
  bool Any = false;
  for (TimeNs X : T)
    if (X > 0) {
      Lo = Any ? std::min(Lo, X) : X;
      Hi = Any ? std::max(Hi, X) : X;
      Any = true;
    }
  return Hi - Lo;
}

std::string siteName(const AnalysisOptions &Opt, BlockId B) {
  return Opt.Site ? Opt.Site(B) : formatBlock(B);
}

std::string segmentName(const AnalysisOptions &Opt, BlockId From, BlockId To) {
  if (From == 0)
    return siteName(Opt, To);
  return Opt.Segment ? Opt.Segment(From, To) : formatBlock(From) + " -> " + formatBlock(To);
}

/// Each step's compute of each rank: [step][rank].
std::vector<std::vector<TimeNs>> stepTotals(const RunRecorder &Base, const StepMap &Steps) {
  const size_t NR = size_t(Base.ranks()), NS = Steps.steps();
  std::vector<std::vector<TimeNs>> T(NS, std::vector<TimeNs>(NR, 0));
  for (size_t R = 0; R < NR; ++R)
    for (size_t J = 0; J < Base.size(int(R)); ++J)
      if (const Interval I = Base.at(int(R), J); I.Kind == SpanKind::Compute) {
        size_t K = Steps.stepOf(int(R), I.Record);
        if (K < NS)
          T[K][R] += I.End - I.Begin;
      }
  return T;
}

/// balanceSteps from the step totals of stepTotals.
Scenario balanceStepTotals(const std::vector<std::vector<TimeNs>> &T, const StepMap &Steps,
                           std::optional<size_t> Step) {
  Scenario S;
  S.Steps = &Steps;
  for (size_t K = 0; K < T.size(); ++K) {
    if (Step && *Step != K)
      continue;
    std::vector<double> F = toMean(T[K]);
    for (size_t R = 0; R < F.size(); ++R)
      if (F[R] != 1)
        S.StepFactors[{int(R), K}] = F[R];
  }
  S.Label = Step ? "balance step " + std::to_string(*Step + 1) : "balance every step";
  return S;
}

/// balanceSegment from the segment's compute of each rank.
Scenario balanceSegmentTotals(const std::vector<TimeNs> &T, BlockId From, BlockId To) {
  std::vector<double> F = toMean(T);
  Scenario S;
  for (size_t R = 0; R < T.size(); ++R)
    if (F[R] != 1)
      S.SegmentFactors[{int(R), {From, To}}] = F[R];
  S.Label = "balance segment";
  return S;
}

} // namespace

const char *suggestionClassName(SuggestionClass C, bool Plural) {
  switch (C) {
  case SuggestionClass::Remedy:
    return Plural ? "remedies" : "remedy";
  case SuggestionClass::Sensitivity:
    return Plural ? "sensitivities" : "sensitivity";
  case SuggestionClass::Bound:
    return Plural ? "bounds" : "bound";
  }
  return "";
}

Scenario balanceSteps(const RunRecorder &Base, const StepMap &Steps, std::optional<size_t> Step) {
  return balanceStepTotals(stepTotals(Base, Steps), Steps, Step);
}

Scenario balanceSegment(const RunRecorder &Base, BlockId From, BlockId To) {
  std::vector<TimeNs> T(size_t(Base.ranks()), 0);
  for (size_t R = 0; R < T.size(); ++R)
    for (size_t J = 0; J < Base.size(int(R)); ++J)
      if (const Interval I = Base.at(int(R), J);
          I.Kind == SpanKind::Compute && (From == 0 || I.From == From) && I.Block == To)
        T[R] += I.End - I.Begin;
  return balanceSegmentTotals(T, From, To);
}

DominoPath dominoPath(const Replayer &Replay, const RunRecorder &Base, TimeNs BaseTime,
                      const AnalysisOptions &Opt) {
  DominoPath Best;
  Best.Predicted = BaseTime;
  unsigned Replays = 0;
  // Ranks ending last first: among paths that shorten T equally, the one from the critical
  // rank is kept (seed 003 returns every such path).
  auto last = [&](int R) { return Base.at(R, Base.size(R) - 1); };
  std::vector<int> Order;
  for (int R = 0; R < Base.ranks(); ++R)
    if (Base.size(R))
      Order.push_back(R);
  std::stable_sort(Order.begin(), Order.end(),
                   [&](int X, int Y) { return last(X).End > last(Y).End; });
  for (int P0 : Order) {
    // Figure 3, lines 5-7: from the last event of p, backwards.
    int P = P0;
    uint64_t Upto = last(P0).Record;
    Scenario Chain;
    DominoPath Path;
    TimeNs Tp = BaseTime;
    while (Path.Waits.size() < Opt.MaxChain) {
      // Lines 14-17: T with each wait of p up to the current event zeroed; the largest waits
      // first (a wait of no time changes nothing).
      // The MaxCandidates largest, kept while scanning (a rank may wait millions of times);
      // equal waits in time order.
      std::vector<Interval> Cand;
      auto larger = [](const Interval &A, const Interval &B) {
        return A.End - A.Begin > B.End - B.Begin;
      };
      for (size_t J = 0; J < Base.size(P); ++J) {
        const Interval I = Base.at(P, J);
        if (I.Kind != SpanKind::Wait || I.Record > Upto ||
            Chain.ZeroWaitEvents.count({P, I.Record}))
          continue;
        if (Cand.size() == Opt.MaxCandidates && (Cand.empty() || !larger(I, Cand.back())))
          continue;
        Cand.insert(std::upper_bound(Cand.begin(), Cand.end(), I, larger), I);
        if (Cand.size() > Opt.MaxCandidates)
          Cand.pop_back();
      }
      const Interval *M = nullptr;
      TimeNs TM = 0;
      for (const Interval &Ci : Cand) {
        const Interval *C = &Ci;
        Scenario Try = Chain;
        Try.ZeroWaitEvents.insert({P, C->Record});
        ReplayOutcome O = Replay(&Try, nullptr);
        ++Replays;
        if (O.Ok && (!M || O.Predicted < TM)) {
          M = C;
          TM = O.Predicted;
        }
      }
      // Line 18: stop when it no longer shortens T.
      if (!M || TM >= Tp)
        break;
      Chain.ZeroWaitEvents.insert({P, M->Record});
      Path.Waits.push_back({P, M->Record});
      Path.Sites.push_back(M->Block);
      Tp = TM;
      // Lines 21-23: continue on the partner event the wait depended on.
      long U = M->Peer < 0 ? -1 : Base.find(M->Peer, M->PeerTime);
      Path.Partners.push_back(M->Peer < 0 ? std::pair<int, BlockId>{-1, 0}
                                          : std::pair<int, BlockId>{M->Peer, M->PeerBlock});
      Path.ForData.push_back(Opt.Messages && Opt.Messages->waitsForData(P, M->Record));
      if (U < 0)
        break;
      P = M->Peer;
      Upto = Base.at(P, size_t(U)).Record;
    }
    Path.Predicted = Tp;
    if (!Path.Waits.empty() && (Best.Waits.empty() || Tp < Best.Predicted))
      Best = Path;
  }
  Best.Replays = Replays;
  return Best;
}

Analysis analyze(const Replayer &Replay, int Ranks, const AnalysisOptions &Opt) {
  Analysis A;
  RunRecorder Base(Ranks);
  ReplayOutcome B = Replay(nullptr, &Base);
  if (!B.Ok) {
    A.Error = B.Error;
    return A;
  }
  A.Base = B.Predicted;
  if (Base.overflowed() || (Opt.Messages && Opt.Messages->Overflow)) {
    A.Error = "a rank has more than 2^32 records or the run 2^30 segments: analyse a region";
    return A;
  }
  // Shares of the critical path by site and kind (its steps summed as they are found, never
  // stored: the path can be as long as the run).
  std::map<std::tuple<BlockId, BlockId, SpanKind>, TimeNs> ByBlock;
  A.Path = walkCriticalPath(Base, [&](const PathStep &S) {
    ByBlock[{S.Kind == SpanKind::Compute ? S.At.From : 0, S.At.Block, S.Kind}] += S.Seconds;
  });
  std::map<std::pair<std::string, SpanKind>, TimeNs> Sum;
  std::map<std::pair<BlockId, BlockId>, TimeNs> Kernels;
  for (const auto &[K, T] : ByBlock) {
    const auto [From, Block, Kind] = K;
    std::string Where =
        Kind == SpanKind::Compute ? segmentName(Opt, From, Block) : siteName(Opt, Block);
    Sum[{Where, Kind}] += T;
    if (Kind == SpanKind::Compute)
      Kernels[{From, Block}] += T;
  }
  for (const auto &[K, T] : Sum)
    A.Shares.push_back(
        {K.first, K.second, T, A.Path.Length > 0 ? double(T) / double(A.Path.Length) : 0});
  std::stable_sort(
      A.Shares.begin(), A.Shares.end(),
      [](const CriticalShare &X, const CriticalShare &Y) { return X.Seconds > Y.Seconds; });

  auto trySuggestion = [&](Scenario S, std::string Kind, std::string What, std::string Where,
                           SuggestionClass Class = SuggestionClass::Remedy) {
    ReplayOutcome O = Replay(&S, nullptr);
    if (!O.Ok)
      return;
    Suggestion G;
    G.Class = Class;
    G.Kind = std::move(Kind);
    G.What = std::move(What);
    G.Where = std::move(Where);
    G.Predicted = O.Predicted;
    G.Saving = A.Base - O.Predicted;
    G.Assume = std::move(S);
    A.Suggestions.push_back(std::move(G));
  };

  // The domino path, in the words a user acts on: which call waits for which partner call.
  // Its remedies zero only the chain's waits a non-blocking or reordered call removes; a wait
  // for data stays and shrinks in the replay as far as its sender's data comes earlier (seed 003
  // figure 4: e_p,1 earlier shortens the waits of e_q,1 and e_r,1).
  A.Domino = dominoPath(Replay, Base, A.Base, Opt);
  std::set<BlockId> DominoSites; // the call sites of the chain's removable waits
  std::optional<size_t> DominoSitesAt;
  if (!A.Domino.Waits.empty()) {
    Scenario S, Sites;
    S.KeepDataWaits = Sites.KeepDataWaits = true;
    S.Messages = Sites.Messages = Opt.Messages;
    std::string Where;
    std::set<std::pair<int, BlockId>> RankSites;
    for (size_t I = 0; I < A.Domino.Waits.size(); ++I) {
      const auto [Rank, Record] = A.Domino.Waits[I];
      const bool Data = A.Domino.ForData[I];
      if (!Data) {
        S.ZeroWaitEvents.insert(A.Domino.Waits[I]);
        DominoSites.insert(A.Domino.Sites[I]);
        if (RankSites.insert({Rank, A.Domino.Sites[I]}).second)
          Sites.ZeroWaitMessages.push_back({Rank, A.Domino.Sites[I], -1, std::nullopt});
      }
      Where += (I ? "; " : "") + std::string("rank ") + std::to_string(Rank) + " " +
               siteName(Opt, A.Domino.Sites[I]) + " (record " + std::to_string(Record) + ")";
      if (const auto [Peer, Site] = A.Domino.Partners[I]; Peer >= 0)
        Where += std::string(Data ? " waits for data from rank " : " waits for rank ") +
                 std::to_string(Peer) + " " + siteName(Opt, Site);
    }
    // A chain of waits for data only names no call to change: the path is still reported.
    if (!S.ZeroWaitEvents.empty()) {
      S.Label = "domino path";
      trySuggestion(S, "domino",
                    "the domino path (" + std::to_string(S.ZeroWaitEvents.size()) +
                        " waits, seed 003): make these calls non-blocking or reorder them so "
                        "these waits vanish (its waits for data are left to the replay)",
                    Where);
      // The same chain as a change of the source: every wait at its call sites on its ranks
      // (a call site is what one edits, and each of its executions then waits no more).
      std::string SiteList;
      for (const auto &[Rank, Site] : RankSites)
        SiteList += (SiteList.empty() ? "" : "; ") + std::string("rank ") + std::to_string(Rank) +
                    " " + siteName(Opt, Site);
      Sites.Label = "no wait at the domino path's call sites";
      const size_t Before = A.Suggestions.size();
      trySuggestion(Sites, "domino-sites",
                    "fix the domino path's call sites (every execution): make these calls "
                    "non-blocking or reorder them so their partners arrive in time",
                    SiteList);
      if (A.Suggestions.size() > Before)
        DominoSitesAt = Before;
    }
  }
  // Wait sites by their total wait a non-blocking or reordered call removes (waits for data
  // are not counted: only their senders can shorten them), every such wait at the site zeroed.
  auto removable = [&](int R, uint64_t Record) {
    return !Opt.Messages || !Opt.Messages->waitsForData(R, Record);
  };
  std::map<BlockId, TimeNs> WaitSites;
  std::map<std::pair<BlockId, BlockId>, std::vector<TimeNs>> SegTotals;
  for (size_t R = 0; R < size_t(Base.ranks()); ++R)
    for (size_t J = 0; J < Base.size(int(R)); ++J) {
      const Interval I = Base.at(int(R), J);
      if (I.Kind == SpanKind::Wait && removable(int(R), I.Record))
        WaitSites[I.Block] += I.End - I.Begin;
      if (I.Kind == SpanKind::Compute) {
        auto &V = SegTotals[{I.From, I.Block}];
        V.resize(size_t(Base.ranks()), 0);
        V[R] += I.End - I.Begin;
      }
    }
  std::vector<std::pair<TimeNs, BlockId>> Sites;
  for (const auto &[B, T] : WaitSites)
    Sites.push_back({T, B});
  std::sort(Sites.rbegin(), Sites.rend());
  std::map<BlockId, size_t> SiteAt; // zero-wait-site suggestions by site
  for (size_t I = 0; I < Sites.size() && I < 3; ++I) {
    Scenario S;
    S.ZeroWaitSites.insert(Sites[I].second);
    S.KeepDataWaits = true;
    S.Messages = Opt.Messages;
    S.Label = "no wait at " + siteName(Opt, Sites[I].second);
    const size_t Before = A.Suggestions.size();
    trySuggestion(S, "zero-wait-site",
                  "make this call non-blocking or reorder the exchange so its partners arrive "
                  "in time: no wait there (waits for data excepted)",
                  siteName(Opt, Sites[I].second));
    if (A.Suggestions.size() > Before)
      SiteAt[Sites[I].second] = Before;
  }
  // The domino path's sites, when they are one call site that the site's own suggestion
  // predicts the same, are that suggestion (a second entry would only push others down).
  if (DominoSitesAt && DominoSites.size() == 1) {
    auto It = SiteAt.find(*DominoSites.begin());
    if (It != SiteAt.end() &&
        A.Suggestions[It->second].Predicted == A.Suggestions[*DominoSitesAt].Predicted)
      A.Suggestions.erase(A.Suggestions.begin() + std::ptrdiff_t(*DominoSitesAt));
  }
  // Balancing: the steps (or segments) with the largest spread are candidates; the one whose
  // balancing shortens T most wins, whatever its spread.
  if (Opt.Steps) {
    const std::vector<std::vector<TimeNs>> StepT = stepTotals(Base, *Opt.Steps);
    std::vector<std::pair<TimeNs, size_t>> Spread;
    for (size_t K = 0; K < StepT.size(); ++K)
      if (TimeNs D = spread(StepT[K]); D > 0)
        Spread.push_back({D, K});
    std::stable_sort(Spread.begin(), Spread.end(),
                     [](auto &X, auto &Y) { return X.first > Y.first; });
    for (size_t I = 0; I < Spread.size() && I < Opt.MaxCandidates; ++I)
      trySuggestion(balanceStepTotals(StepT, *Opt.Steps, Spread[I].second), "balance-step",
                    "balance the compute of parallel step " + std::to_string(Spread[I].second + 1) +
                        " across ranks",
                    "step " + std::to_string(Spread[I].second + 1) + " of " +
                        siteName(Opt, Opt.Steps->Site));
    if (!Spread.empty())
      trySuggestion(balanceStepTotals(StepT, *Opt.Steps, std::nullopt), "balance-step",
                    "balance the compute of every parallel step across ranks",
                    "every step of " + siteName(Opt, Opt.Steps->Site));
  }
  // The computation ending at a call, whatever call it started after (From 0): one loop body
  // splits into several segments when its step sometimes ends at another call (imbalance's
  // every fifth step); balancing one of them leaves the others' imbalance, while the real fix
  // (the loop's work split evenly) balances them all.
  std::map<BlockId, std::pair<int, std::vector<TimeNs>>> ToTotals;
  for (const auto &[K, V] : SegTotals) {
    auto &[Starts, T] = ToTotals[K.second];
    ++Starts;
    T.resize(V.size(), 0);
    for (size_t R = 0; R < V.size(); ++R)
      T[R] += V[R];
  }
  for (const auto &[To, ST] : ToTotals)
    if (ST.first > 1)
      SegTotals[{0, To}] = ST.second;
  std::vector<std::pair<TimeNs, std::pair<BlockId, BlockId>>> SegSpread;
  for (const auto &[K, V] : SegTotals)
    if (TimeNs D = spread(V); D > 0)
      SegSpread.push_back({D, K});
  std::stable_sort(SegSpread.begin(), SegSpread.end(),
                   [](auto &X, auto &Y) { return X.first > Y.first; });
  std::vector<std::tuple<BlockId, BlockId, size_t>> Tried; // (From, To, suggestion)
  for (size_t I = 0; I < SegSpread.size() && I < Opt.MaxCandidates; ++I) {
    auto [From, To] = SegSpread[I].second;
    Scenario S = balanceSegmentTotals(SegTotals.at({From, To}), From, To);
    const std::string Where =
        From ? segmentName(Opt, From, To) : "every computation ending at " + siteName(Opt, To);
    S.Label = "balance " + Where;
    const size_t Before = A.Suggestions.size();
    trySuggestion(std::move(S), "balance-segment",
                  "balance this computation across ranks (each rank the mean)", Where);
    if (A.Suggestions.size() > Before)
      Tried.push_back({From, To, Before});
  }
  // A computation ending at a call that one segment predicts as well is that segment: the
  // narrower change stays, the duplicate would only push other remedies down the list.
  std::set<size_t> Same;
  for (const auto &[From, To, I] : Tried)
    for (const auto &[From2, To2, J] : Tried)
      if (From == 0 && From2 != 0 && To == To2 &&
          A.Suggestions[I].Predicted == A.Suggestions[J].Predicted)
        Same.insert(I);
  for (auto It = Same.rbegin(); It != Same.rend(); ++It)
    A.Suggestions.erase(A.Suggestions.begin() + std::ptrdiff_t(*It));
  // The message volume (seed 003's "communication volume equal"): the steps whose send volume
  // differs most across ranks, each balanced alone and all together; without steps, the run.
  if (Opt.Messages) {
    const size_t NS = Opt.Steps ? Opt.Steps->steps() : 1;
    std::vector<std::vector<uint64_t>> V;
    for (size_t R = 0; R < Opt.Messages->Started.size(); ++R)
      V.push_back(Opt.Messages->volumes(int(R), Opt.Steps));
    std::vector<std::pair<uint64_t, size_t>> Spread;
    for (size_t K = 0; K < NS && !V.empty(); ++K) {
      uint64_t Lo = V[0][K], Hi = V[0][K];
      for (const auto &Rank : V) {
        Lo = std::min(Lo, Rank[K]);
        Hi = std::max(Hi, Rank[K]);
      }
      if (Hi > Lo)
        Spread.push_back({Hi - Lo, K});
    }
    std::stable_sort(Spread.begin(), Spread.end(),
                     [](auto &X, auto &Y) { return X.first > Y.first; });
    const std::string Marker = Opt.Steps ? siteName(Opt, Opt.Steps->Site) : "";
    for (size_t I = 0; Opt.Steps && I < Spread.size() && I < Opt.MaxCandidates; ++I)
      trySuggestion(balanceVolume(*Opt.Messages, Opt.Steps, Spread[I].second), "balance-volume",
                    "send the same number of bytes from every rank in parallel step " +
                        std::to_string(Spread[I].second + 1) + " (the mean)",
                    "step " + std::to_string(Spread[I].second + 1) + " of " + Marker);
    if (!Spread.empty())
      trySuggestion(balanceVolume(*Opt.Messages, Opt.Steps, std::nullopt), "balance-volume",
                    Opt.Steps ? "send the same number of bytes from every rank in every "
                                "parallel step (the mean)"
                              : "send the same number of bytes from every rank over the run "
                                "(the mean)",
                    Opt.Steps ? "every step of " + Marker : "every point-to-point send");
  }
  // Sensitivities: the kernels on the critical path, and the network, made twice as fast.
  std::vector<std::pair<TimeNs, std::pair<BlockId, BlockId>>> Hot;
  for (const auto &[K, T] : Kernels)
    Hot.push_back({T, K});
  std::sort(Hot.rbegin(), Hot.rend());
  for (size_t I = 0; I < Hot.size() && I < 3; ++I) {
    auto [From, To] = Hot[I].second;
    Scenario S;
    S.Scales.push_back({From, To, 0.5});
    S.Label = "x0.5 " + segmentName(Opt, From, To);
    trySuggestion(std::move(S), "faster-kernel", "this computation twice as fast",
                  segmentName(Opt, From, To), SuggestionClass::Sensitivity);
  }
  {
    Scenario S;
    S.Net.Latency = 0.5;
    S.Net.Bandwidth = 2;
    S.Label = "network twice as fast";
    trySuggestion(std::move(S), "faster-network",
                  "the network twice as fast (latency x0.5, bandwidth x2; overheads and the "
                  "eager limit as measured)",
                  "every message", SuggestionClass::Sensitivity);
  }
  // A remedy the replay predicts no shorter than the run as it is would make the user change
  // the program for nothing (balancing a segment whose ranks already overlap, say): counted,
  // not listed. Sensitivities stay whatever they give (where the time goes).
  const auto Longer =
      std::stable_partition(A.Suggestions.begin(), A.Suggestions.end(), [&](const Suggestion &G) {
        return G.Class != SuggestionClass::Remedy || G.Predicted < A.Base;
      });
  A.RemediesNotShorter = unsigned(A.Suggestions.end() - Longer);
  A.Suggestions.erase(Longer, A.Suggestions.end());
  // Each list by predicted time; remedies first (what to change), then the sensitivities
  // (what the run depends on).
  std::stable_sort(A.Suggestions.begin(), A.Suggestions.end(),
                   [](const Suggestion &X, const Suggestion &Y) {
                     return std::pair(X.Class, X.Predicted) < std::pair(Y.Class, Y.Predicted);
                   });
  // F3: no wait anywhere, summed without the DAG; a bound, listed after the replays.
  {
    Suggestion G;
    G.Class = SuggestionClass::Bound;
    G.Kind = "bound";
    G.What = "upper bound on the improvement: no wait anywhere (F3, sum of each rank's "
             "compute and comm, the DAG not rebuilt)";
    G.Where = "every wait";
    G.Predicted = sumOfTimesBound(Base, Scenario(), true);
    G.Saving = A.Base - G.Predicted;
    G.Bound = true;
    A.Suggestions.push_back(std::move(G));
  }
  // Ranks within each list; suggestions predicting the same time share a rank (1, 1, 3): the
  // order among them says nothing.
  for (size_t I = 0, InClass = 0; I < A.Suggestions.size(); ++I) {
    Suggestion &G = A.Suggestions[I];
    const bool Same = I && A.Suggestions[I - 1].Class == G.Class;
    InClass = Same ? InClass + 1 : 0;
    G.Rank = Same && A.Suggestions[I - 1].Predicted == G.Predicted ? A.Suggestions[I - 1].Rank
                                                                   : unsigned(InClass + 1);
  }
  A.Ok = true;
  return A;
}

} // namespace mpiete::whatif
