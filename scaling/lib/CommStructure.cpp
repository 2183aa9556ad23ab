// Learning per-rank event sequences as functions of (r, P) from traces at several sizes, the
// exact check that they reproduce every measured trace, and the synthetic streams.
#include "mpiete/scaling/CommStructure.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>

namespace mpiete::scaling {

using estimator::EventKind;

std::vector<int> dimsCreate(int P, int D) {
  // Open MPI and MPICH both give the most balanced factorisation, in non-increasing order:
  // peel off prime factors, largest first, onto the currently smallest dimension.
  std::vector<int> Factors;
  for (int F = 2, N = P; N > 1;) {
    if (N % F == 0) {
      Factors.push_back(F);
      N /= F;
    } else {
      ++F;
    }
  }
  std::vector<int> Dims(size_t(D), 1);
  for (size_t K = Factors.size(); K-- > 0;) {
    size_t Min = 0;
    for (size_t J = 1; J < Dims.size(); ++J)
      if (Dims[J] < Dims[Min])
        Min = J;
    Dims[Min] *= Factors[K];
  }
  std::sort(Dims.begin(), Dims.end(), std::greater<int>());
  return Dims;
}

int32_t PeerExpr::eval(int32_t R, int32_t P) const {
  auto InRange = [&](int64_t V) { return V >= 0 && V < P ? int32_t(V) : estimator::ProcNull; };
  switch (K) {
  case Literal:
    return int32_t(A);
  case FromEnd:
    return InRange(int64_t(P) - A);
  case Offset:
    return InRange(int64_t(R) + A);
  case Wrap:
    return int32_t(((int64_t(R) + A) % P + P) % P);
  case Xor:
    return InRange(int64_t(R) ^ A);
  case Grid: {
    const std::vector<int> D = dimsCreate(P, Dims);
    // Row-major coordinates, the last dimension fastest (MPI_Cart_create's order).
    int64_t Stride = 1;
    for (size_t J = Axis + 1; J < D.size(); ++J)
      Stride *= D[J];
    const int64_t C = (R / Stride) % D[Axis];
    int64_t N = C + A;
    if (Periodic)
      N = (N % D[Axis] + D[Axis]) % D[Axis];
    else if (N < 0 || N >= D[Axis])
      return estimator::ProcNull;
    return int32_t(R + (N - C) * Stride);
  }
  }
  return int32_t(A);
}

std::string PeerExpr::text() const {
  std::ostringstream S;
  auto Signed = [&](int64_t V) { S << (V < 0 ? " - " : " + ") << (V < 0 ? -V : V); };
  switch (K) {
  case Literal:
    if (A == estimator::ProcNull)
      S << "PROC_NULL";
    else if (A == estimator::AnySource)
      S << "ANY_SOURCE";
    else
      S << A;
    break;
  case FromEnd:
    S << "P";
    Signed(-A);
    break;
  case Offset:
    S << "r";
    Signed(A);
    break;
  case Wrap:
    S << "(r";
    Signed(A);
    S << ") mod P";
    break;
  case Xor:
    S << "r xor " << A;
    break;
  case Grid:
    S << int(Dims) << "-D grid axis " << int(Axis) << (A < 0 ? " -" : " +") << (A < 0 ? -A : A)
      << (Periodic ? " periodic" : "");
    break;
  }
  return S.str();
}

uint64_t BytesExpr::eval(double P, double W) const {
  if (WExp == 0 && PExp == 0)
    return uint64_t(Coeff);
  return uint64_t(std::llround(Coeff * std::pow(W, WExp) / std::pow(P, PExp)));
}

std::string BytesExpr::text() const {
  std::ostringstream S;
  S.precision(10);
  S << Coeff;
  if (WExp != 0)
    S << " * W^" << WExp;
  if (PExp != 0)
    S << " / P^" << PExp;
  return S.str();
}

const char *RankClass::name(Kind K) {
  switch (K) {
  case All:
    return "every rank";
  case First:
    return "rank 0";
  case Last:
    return "rank P-1";
  case Rest:
    return "the other ranks";
  }
  return "?";
}

const RankClass &CommStructure::classOf(int R, int P) const {
  for (const RankClass &C : Classes)
    if (C.K == RankClass::All || (C.K == RankClass::First && R == 0) ||
        (C.K == RankClass::Last && R == P - 1 && R != 0))
      return C;
  return Classes.back(); // Rest is always last
}

bool sameEvent(const Event &A, const Event &B) {
  if (A.Kind != B.Kind || A.Mode != B.Mode || A.Context != B.Context || A.Found != B.Found ||
      A.Block != B.Block || A.From != B.From || A.Peer != B.Peer || A.Tag != B.Tag ||
      A.Comm != B.Comm || A.Count != B.Count || A.Request != B.Request ||
      A.Completed.size() != B.Completed.size())
    return false;
  for (size_t K = 0; K < A.Completed.size(); ++K)
    if (A.Completed[K].Request != B.Completed[K].Request ||
        A.Completed[K].Source != B.Completed[K].Source || A.Completed[K].Tag != B.Completed[K].Tag)
      return false;
  return true;
}

bool SyntheticEventSource::next(Event &E) {
  if (Pos == Ops->size())
    return false;
  const OpTemplate &Op = (*Ops)[Pos];
  E = Op.Proto; // reuses E.Completed's capacity
  E.Index = Pos++;
  switch (E.Kind) {
  case EventKind::SendStart:
  case EventKind::RecvStart:
  case EventKind::Probe:
    E.Peer = Op.Peer.eval(R, P);
    [[fallthrough]];
  case EventKind::Loop:
    E.Count = Op.Bytes.eval(P, W);
    break;
  case EventKind::Completion:
    for (size_t K = 0; K < Op.Sources.size(); ++K) {
      E.Completed[K].Source = Op.Sources[K].eval(R, P);
      E.Completed[K].Tag =
          E.Completed[K].Source == estimator::ProcNull ? Op.Tags[K].second : Op.Tags[K].first;
    }
    break;
  default:
    break;
  }
  return true;
}

std::string SyntheticEventSource::name() const {
  return "generated rank " + std::to_string(R) + " of " + std::to_string(P);
}

namespace {

struct PeerObs {
  int32_t R, P, V;
};
struct BytesObs {
  double P, W;
  uint64_t V;
};

bool fits(const PeerExpr &E, const std::vector<PeerObs> &Obs) {
  for (const PeerObs &O : Obs)
    if (E.eval(O.R, O.P) != O.V)
      return false;
  return true;
}

bool findPeer(const std::vector<PeerObs> &Obs, PeerExpr &Out) {
  const PeerObs &F = Obs.front();
  std::vector<PeerExpr> Cands = {{PeerExpr::Literal, F.V}};
  // Seed the rank-relative candidates from an observation that names a real rank.
  for (const PeerObs &O : Obs) {
    if (O.V < 0)
      continue;
    Cands.push_back({PeerExpr::Offset, int64_t(O.V) - O.R});
    Cands.push_back({PeerExpr::Wrap, int64_t(O.V) - O.R});
    Cands.push_back({PeerExpr::Wrap, int64_t(O.V) - O.R + O.P});
    Cands.push_back({PeerExpr::Wrap, int64_t(O.V) - O.R - O.P});
    Cands.push_back({PeerExpr::FromEnd, int64_t(O.P) - O.V});
    Cands.push_back({PeerExpr::Xor, int64_t(O.V ^ O.R)});
    for (uint8_t D : {2, 3})
      for (uint8_t Axis = 0; Axis < D; ++Axis)
        for (int64_t Step : {-1, 1})
          for (bool Periodic : {false, true})
            Cands.push_back({PeerExpr::Grid, Step, D, Axis, Periodic});
    break;
  }
  for (const PeerExpr &C : Cands)
    if (fits(C, Obs)) {
      Out = C;
      return true;
    }
  return false;
}

bool findBytes(const std::vector<BytesObs> &Obs, BytesExpr &Out) {
  const BytesObs &F = Obs.front();
  for (double WExp : {0.0, 1.0, 2.0, 3.0})
    for (double PExp : {0.0, 1.0, 0.5, 2.0, 1.0 / 3}) {
      BytesExpr E{WExp == 0 && PExp == 0 ? double(F.V)
                                         : double(F.V) * std::pow(F.P, PExp) / std::pow(F.W, WExp),
                  WExp, PExp};
      bool Ok = true;
      for (const BytesObs &O : Obs)
        Ok &= E.eval(O.P, O.W) == O.V;
      if (Ok) {
        Out = E;
        return true;
      }
    }
  return false;
}

struct Member {
  const MeasuredRun *Run;
  int Rank;
};

std::string describeEvent(const Event &E) {
  switch (E.Kind) {
  case EventKind::SendStart:
    return "a send to rank " + std::to_string(E.Peer) + " of " + std::to_string(E.Count) + " bytes";
  case EventKind::RecvStart:
    return "a receive from rank " + std::to_string(E.Peer) + " of " + std::to_string(E.Count) +
           " bytes";
  case EventKind::Completion:
    return "a completion of " + std::to_string(E.Completed.size()) + " requests";
  case EventKind::Segment:
    return "the call";
  default:
    return "an event";
  }
}

/// Learns one class from its members; false with Why on the first op nothing explains.
bool learnClass(const std::vector<Member> &Members, RankClass &C, Refusal &Why) {
  const std::vector<Event> &Ref = Members.front().Run->PerRank[size_t(Members.front().Rank)];
  for (const Member &M : Members) {
    const std::vector<Event> &Seq = M.Run->PerRank[size_t(M.Rank)];
    size_t K = 0;
    while (K < Ref.size() && K < Seq.size() && Ref[K].Kind == Seq[K].Kind &&
           Ref[K].Block == Seq[K].Block)
      ++K;
    if (K < Ref.size() || K < Seq.size()) {
      const Event &At = K < Seq.size() ? Seq[K] : Ref[K < Ref.size() ? K : Ref.size() - 1];
      Why.Site = At.Block;
      Why.Message = "rank " + std::to_string(M.Rank) + " of " + std::to_string(M.Run->Ranks) +
                    " executes another sequence of MPI events here than rank " +
                    std::to_string(Members.front().Rank) + " of " +
                    std::to_string(Members.front().Run->Ranks) + " (event " + std::to_string(K) +
                    "): the number of messages depends on the rank or the size in a way no "
                    "rank class explains (e.g. a collective's tree or ring)";
      return false;
    }
  }
  C.Ops.clear();
  std::vector<PeerObs> Peers;
  std::vector<BytesObs> Bytes;
  for (size_t K = 0; K < Ref.size(); ++K) {
    OpTemplate Op;
    Op.Proto = Ref[K];
    Op.Proto.Index = 0;
    const bool HasPeer = Ref[K].Kind == EventKind::SendStart ||
                         Ref[K].Kind == EventKind::RecvStart || Ref[K].Kind == EventKind::Probe;
    const bool HasCount = HasPeer || Ref[K].Kind == EventKind::Loop;
    Peers.clear();
    Bytes.clear();
    for (const Member &M : Members) {
      const Event &E = M.Run->PerRank[size_t(M.Rank)][K];
      Peers.push_back({M.Rank, M.Run->Ranks, E.Peer});
      Bytes.push_back({double(M.Run->Ranks), M.Run->Size, E.Count});
    }
    if (HasPeer && !findPeer(Peers, Op.Peer)) {
      Why = {Ref[K].Block, describeEvent(Ref[K]) +
                               ": no function of the rank and the size gives the peer on every "
                               "measured rank"};
      return false;
    }
    if (HasCount && !findBytes(Bytes, Op.Bytes)) {
      Why = {Ref[K].Block, describeEvent(Ref[K]) +
                               ": the byte count is no exact c * W^a / P^b over the measured runs"};
      return false;
    }
    if (Ref[K].Kind == EventKind::Completion)
      for (size_t J = 0; J < Ref[K].Completed.size(); ++J) {
        Peers.clear();
        std::pair<int32_t, int32_t> Tags{Ref[K].Completed[J].Tag, Ref[K].Completed[J].Tag};
        for (const Member &M : Members) {
          const Event &E = M.Run->PerRank[size_t(M.Rank)][K];
          Peers.push_back({M.Rank, M.Run->Ranks, E.Completed[J].Source});
          (E.Completed[J].Source == estimator::ProcNull ? Tags.second : Tags.first) =
              E.Completed[J].Tag;
        }
        Op.Tags.push_back(Tags);
        PeerExpr S;
        if (!findPeer(Peers, S)) {
          Why = {Ref[K].Block, "a completed receive's matched source is no function of the rank "
                               "and the size (a wildcard receive matched in a varying order)"};
          return false;
        }
        Op.Sources.push_back(S);
      }
    C.Ops.push_back(std::move(Op));
  }
  return true;
}

bool verify(const std::vector<MeasuredRun> &Runs, const CommStructure &S, Refusal &Why) {
  Event E;
  for (const MeasuredRun &Run : Runs)
    for (int R = 0; R < Run.Ranks; ++R) {
      SyntheticEventSource Gen(S, R, Run.Ranks, Run.Size);
      const std::vector<Event> &Seq = Run.PerRank[size_t(R)];
      size_t K = 0;
      for (; Gen.next(E); ++K)
        if (K >= Seq.size() || !sameEvent(E, Seq[K])) {
          Why = {E.Block, "the generated trace of rank " + std::to_string(R) + " of " +
                              std::to_string(Run.Ranks) +
                              " differs from the measured one at event " + std::to_string(K)};
          return false;
        }
      if (K != Seq.size()) {
        Why = {Seq[K].Block, "the generated trace of rank " + std::to_string(R) + " of " +
                                 std::to_string(Run.Ranks) + " ends early"};
        return false;
      }
    }
  return true;
}

} // namespace

bool learnStructure(const std::vector<MeasuredRun> &Runs, CommStructure &Out, Refusal &Why) {
  using K = RankClass::Kind;
  const std::vector<std::vector<K>> Schemes = {
      {K::All}, {K::First, K::Rest}, {K::First, K::Last, K::Rest}};
  Refusal First;
  bool HaveFirst = false;
  for (const std::vector<K> &Scheme : Schemes) {
    CommStructure S;
    bool Ok = true;
    for (K Kind : Scheme) {
      std::vector<Member> Members;
      for (const MeasuredRun &Run : Runs)
        for (int R = 0; R < Run.Ranks; ++R) {
          const bool In =
              Kind == K::All || (Kind == K::First && R == 0) ||
              (Kind == K::Last && R == Run.Ranks - 1 && R != 0) ||
              (Kind == K::Rest && R != 0 && !(R == Run.Ranks - 1 && Scheme.size() == 3));
          if (In)
            Members.push_back({&Run, R});
        }
      if (Members.empty()) {
        Ok = false;
        Why = {0, std::string("no measured run has ranks in the class '") + RankClass::name(Kind) +
                      "'"};
        break;
      }
      RankClass C;
      C.K = Kind;
      if (!learnClass(Members, C, Why)) {
        Ok = false;
        break;
      }
      S.Classes.push_back(std::move(C));
    }
    if (Ok && verify(Runs, S, Why)) {
      Out = std::move(S);
      return true;
    }
    if (!HaveFirst) {
      First = Why;
      HaveFirst = true;
    }
  }
  // The simplest scheme's reason is the one a person can act on.
  Why = First;
  return false;
}

std::vector<std::string> CommStructure::describe() const {
  std::vector<std::string> Lines;
  for (const RankClass &C : Classes) {
    std::vector<std::string> Seen;
    for (const OpTemplate &Op : C.Ops) {
      if (Op.Proto.Kind != EventKind::SendStart && Op.Proto.Kind != EventKind::RecvStart)
        continue;
      std::string L = std::string(RankClass::name(C.K)) + ": " +
                      estimator::formatBlock(Op.Proto.Block) +
                      (Op.Proto.Kind == EventKind::SendStart ? " send to " : " receive from ") +
                      Op.Peer.text() + ", bytes " + Op.Bytes.text();
      if (std::find(Seen.begin(), Seen.end(), L) == Seen.end()) {
        Seen.push_back(L);
        Lines.push_back(L);
      }
    }
  }
  return Lines;
}

} // namespace mpiete::scaling
