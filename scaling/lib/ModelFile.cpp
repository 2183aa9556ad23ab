// model.yaml's writer and reader, and the compute model it gives the engine at one scale.
#include "mpiete/scaling/ModelFile.h"

#include "mpiete/BlockId.h"
#include "mpiete/basedata/YamlParser.h"
#include "mpiete/support/Diagnostics.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

namespace mpiete::scaling {

std::string ScalingModelFile::unmeasuredSize(double W) const {
  if (Runs.empty() || W == Runs.front().Size ||
      std::any_of(Runs.begin(), Runs.end(),
                  [&](const ModelRun &R) { return R.Size != Runs.front().Size; }))
    return "";
  auto Text = [](double V) {
    std::ostringstream S;
    S.precision(15);
    S << V;
    return S.str();
  };
  const std::string Measured = Text(Runs.front().Size);
  return "the model was built from runs at one problem size, " + Measured +
         ", so how the program's compute, messages and loops change with the size was never "
         "measured: give `mpiete model` runs at a second size as well (--run P:W:...), or ask "
         "for size " +
         Measured + " (not " + Text(W) + ")";
}

namespace {

/// A model's error: the larger of its leave-one-out error and its terms' error at the largest
/// rank count when fitted without it (-1: not taken). Not the held-out error (the whole
/// selection rerun without that count): with the points of 2-8 ranks left, or fewer for a
/// rank position, the selection picks among hypotheses two or three points cannot tell
/// apart, and that error (wavefront-nb's main sweep: 1.44, its model's own 0.011) says how
/// the selection fares on fewer points, not how far this model is off.
double segmentError(const SegmentModel &S) {
  return std::max({0.0, S.M.CvError, S.M.ExtrapolationError});
}

} // namespace

ScalingModelFile::Band
ScalingModelFile::errorBand(const std::vector<estimator::SegmentResult> &Replayed, double P,
                            double W) const {
  Band B;
  std::pair<estimator::BlockId, estimator::BlockId> LargestKey{0, 0};
  std::map<std::pair<estimator::BlockId, estimator::BlockId>, double> ErrorOf;
  for (const SegmentModel &S : Segments) {
    const double Error = segmentError(S);
    double &E = ErrorOf[{S.From, S.To}];
    E = std::max(E, Error);
    if (Error > B.Largest) {
      B.Largest = Error;
      B.LargestWhere = S.Where;
      LargestKey = {S.From, S.To};
    }
  }
  double Sum = 0, Weighted = 0;
  for (const estimator::SegmentResult &R : Replayed) {
    const double C = double(R.Compute);
    Sum += C;
    auto It = ErrorOf.find({R.From, R.To});
    // A segment the replay ran that no model names takes the largest error.
    Weighted += C * (It == ErrorOf.end() ? B.Largest : It->second);
    if (std::pair{R.From, R.To} == LargestKey)
      B.LargestShare += C;
  }
  if (Sum > 0)
    B.LargestShare /= Sum;
  B.Weighted = Sum > 0 ? Weighted / Sum : B.Largest;
  double MaxP = 0, MaxW = 0;
  for (const ModelRun &R : Runs) {
    MaxP = std::max(MaxP, double(R.Ranks));
    MaxW = std::max(MaxW, R.Size);
  }
  const double Past = (MaxP > 0 && P > MaxP ? std::log2(P / MaxP) : 0) +
                      (MaxW > 0 && W > MaxW ? std::log2(W / MaxW) : 0);
  B.Doublings = std::max(1.0, Past);
  B.Relative = B.Weighted * B.Doublings;
  return B;
}

const char *positionName(RankPosition P) {
  static const char *const Names[] = {"all", "first", "last", "rest"};
  return Names[size_t(P)];
}

std::vector<double> ScalingModelFile::unmeasuredCacheSteps(double P, double W) const {
  std::vector<Point> Runs_;
  for (const ModelRun &R : Runs)
    Runs_.push_back({double(R.Ranks), R.Size, 0});
  return unmeasuredSteps(Runs_, Ws, Caches, P, W);
}

namespace {
/// One run alone on a side of a cache and more on the other: no step is offered (it is fitted
/// from two runs or more on each side), and that run bends the curve fitted across both sides.
bool loneRun(int Below, int Above) {
  return (Below == 1 && Above >= 2) || (Above == 1 && Below >= 2);
}
} // namespace

std::pair<int, int> ScalingModelFile::runsAround(double C) const {
  int Below = 0, Above = 0;
  for (const ModelRun &R : Runs)
    ++(Ws.at(R.Ranks, R.Size) > C ? Above : Below);
  return {Below, Above};
}

std::vector<double> ScalingModelFile::loneRunCaches() const {
  std::vector<double> Out;
  if (!Ws.known())
    return Out;
  for (double C : Caches) {
    const auto [Below, Above] = runsAround(C);
    if (loneRun(Below, Above))
      Out.push_back(C);
  }
  return Out;
}

namespace {

/// No grid (Dims 0), or factors (Axes, bits) of MPI_Dims_create(P, 2 or 3).
bool gridOk(int Dims, int Axes) {
  return Dims == 0 || ((Dims == 2 || Dims == 3) && Axes > 0 && Axes < (1 << Dims));
}

const char *const KindNames[] = {"compute", "segment", "loop", "send",     "recv",
                                 "wait",    "probe",   "init", "finalize", "free"};

std::string peerText(const PeerExpr &E) {
  return std::to_string(int(E.K)) + ":" + std::to_string(E.A) + ":" + std::to_string(E.Dims) + ":" +
         std::to_string(E.Axis) + ":" + std::to_string(int(E.Periodic));
}
bool parsePeer(const std::string &T, PeerExpr &E) {
  int K = 0, Dims = 0, Axis = 0, Periodic = 0;
  long long A = 0;
  // A rank offset beyond 2^31 is no rank, and a grid's axis is one of its 2 or 3 (a generated
  // stream evaluates these without further checks).
  if (std::sscanf(T.c_str(), "%d:%lld:%d:%d:%d", &K, &A, &Dims, &Axis, &Periodic) != 5 || K < 0 ||
      K > PeerExpr::TripAbovePowRev || A < -(1LL << 31) || A > (1LL << 31) ||
      (K == PeerExpr::Grid && ((Dims != 2 && Dims != 3) || Axis < 0 || Axis >= Dims)) ||
      ((K == PeerExpr::TreeParent || K == PeerExpr::HighTreeParent) && A != 0))
    return false;
  E = {PeerExpr::Kind(K), A, uint8_t(Dims), uint8_t(Axis), Periodic != 0};
  return !E.powerDistance() || (A >= 0 && A <= 62); // 2^(t + A): an exponent
}
std::string shortBytes(double B) {
  char Buf[32];
  if (B >= 1 << 20)
    std::snprintf(Buf, sizeof Buf, "%.3g MiB", B / (1 << 20));
  else if (B >= 1 << 10)
    std::snprintf(Buf, sizeof Buf, "%.3g KiB", B / (1 << 10));
  else
    std::snprintf(Buf, sizeof Buf, "%.3g bytes", B);
  return Buf;
}

std::string bytesText(const BytesExpr &E) {
  // COEFF:WEXP:PEXP, then :CONST when there is one or a grid divisor, then :gD.AXES for the
  // divisor (files without them stay as they were).
  char Buf[160];
  if (E.GridDims != 0)
    std::snprintf(Buf, sizeof Buf, "%.17g:%.17g:%.17g:%.17g:g%u.%u", E.Coeff, E.WExp, E.PExp,
                  E.Const, unsigned(E.GridDims), unsigned(E.GridAxes));
  else if (E.Const != 0)
    std::snprintf(Buf, sizeof Buf, "%.17g:%.17g:%.17g:%.17g", E.Coeff, E.WExp, E.PExp, E.Const);
  else
    std::snprintf(Buf, sizeof Buf, "%.17g:%.17g:%.17g", E.Coeff, E.WExp, E.PExp);
  return Buf;
}
bool parseBytes(const std::string &T, BytesExpr &E) {
  E.Const = 0;
  E.GridDims = E.GridAxes = 0;
  unsigned Dims = 0, Axes = 0;
  int Used = 0;
  const int N = std::sscanf(T.c_str(), "%lg:%lg:%lg:%lg%n:g%u.%u%n", &E.Coeff, &E.WExp, &E.PExp,
                            &E.Const, &Used, &Dims, &Axes, &Used);
  if (N == 6) {
    if (Dims == 0 || !gridOk(int(Dims), int(Axes)))
      return false;
    E.GridDims = uint8_t(Dims);
    E.GridAxes = uint8_t(Axes);
  }
  return (N == 3 || N == 4 || N == 6) && (N == 3 || size_t(Used) == T.size());
}

} // namespace

/// A loop's count as parseTrips reads it.
static std::string tripsText(const TripExpr &T) {
  std::ostringstream S;
  S << int(T.K) << " " << T.SConst << " " << int(T.GridDims) << " " << int(T.GridAxes) << " " << T.A
    << " " << T.B;
  if (T.K == TripExpr::Size || T.K == TripExpr::Dealt) // the count or the items, as a byte
                                                       // count is written
    S << " " << bytesText(T.Sz);
  return S.str();
}

std::string formatOp(const OpTemplate &Op) {
  // kind block from tag comm mode context found peer bytes [coll kind elem commutative comm]
  // [done source tag tag-if-proc-null dist]... [free dist] [same-buffer]
  const Event &E = Op.Proto;
  std::ostringstream S;
  // A loop's bounds: loop SPAN KIND SCONST GRIDDIMS GRIDAXES A B, then its body, then end SPAN.
  if (Op.Ctl == OpTemplate::Control::LoopBegin) {
    S << "loop " << Op.Span << " " << tripsText(Op.Trips);
    // A count the base runs do not pin: parts N (files without it read as before).
    if (Op.Trips.K == TripExpr::Dealt && Op.Trips.PartsAt > 0)
      S << " parts " << Op.Trips.PartsAt;
    // Another count the base runs fit as well: alt-trips TRIPS PARTSAT.
    for (const OpTemplate::Alt &A : Op.Alts)
      S << " alt-trips " << tripsText(A.Trips) << " " << A.PartsAt;
    return S.str();
  }
  if (Op.Ctl == OpTemplate::Control::LoopEnd) {
    S << "end " << Op.Span;
    return S.str();
  }
  S << (Op.IsColl ? "coll" : KindNames[size_t(E.Kind)]) << " " << formatBlockId(E.Block) << " "
    << formatBlockId(E.From) << " " << E.Tag << " " << E.Comm << " " << int(E.Mode) << " "
    << int(E.Context) << " " << int(E.Found) << " " << peerText(Op.Peer) << " "
    << bytesText(Op.Bytes);
  if (Op.IsColl)
    S << " " << int(Op.Coll.Kind) << " " << Op.Coll.Elem << " " << int(Op.Coll.Commutative) << " "
      << Op.Coll.Comm << " " << formatBlockId(Op.Coll.Site);
  for (size_t K = 0; K < Op.Sources.size(); ++K)
    S << " done " << peerText(Op.Sources[K]) << " " << Op.Tags[K].first << " " << Op.Tags[K].second
      << " " << Op.Dist[K];
  // In a loop's body: dist-trip A B per completed request (Dist + A * trip + B * trips).
  if (!Op.DistTrip.empty()) {
    S << " dist-trip";
    for (const auto &[A, B] : Op.DistTrip)
      S << " " << A << " " << B;
  }
  if (E.Kind == estimator::EventKind::RequestFree && !Op.Dist.empty())
    S << " free " << Op.Dist[0];
  // A receive into a buffer the rank sent from (the trace's same-buffer flag; files without
  // the word read as before).
  if (E.SameBuffer)
    S << " same-buffer";
  // On a sub-communicator: sub KIND GRIDDIMS GRIDAXES CONST PARENT SEQ (files without it read
  // as before).
  if (Op.Sub.K != SubComm::None)
    S << " sub " << int(Op.Sub.K) << " " << int(Op.Sub.GridDims) << " " << int(Op.Sub.GridAxes)
      << " " << Op.Sub.Const << " " << Op.Sub.Parent << " " << Op.Sub.Seq;
  // A byte count of the rank's share (a v-collective's too): share and the share's count as a
  // loop's (the count is BYTES' constant + its coefficient times W^its exponent times the
  // share).
  if (Op.Share.K == TripExpr::Dealt) {
    S << " share " << tripsText(Op.Share);
    if (Op.Share.PartsAt > 0)
      S << " share-parts " << Op.Share.PartsAt;
  }
  // A Segment whose start depends on the loop: from-rule RULE ALTFROM.
  if (Op.FromR != OpTemplate::FromRule::None)
    S << " from-rule " << int(Op.FromR) << " " << formatBlockId(Op.AltFrom);
  // Another form the base runs fit as well: alt WHICH PEER PARTSAT (WHICH 0: the peer or root,
  // k: the k-th matched source; files without it read as before).
  // alt-bytes BYTES PARTSAT for a byte count, alt-sub KIND GRIDDIMS GRIDAXES CONST PARTSAT for
  // a sub-communicator (its parent and creation count the op's own), alt-share TRIPS PARTSAT
  // for the share a byte count is of (another way of dealing).
  for (const OpTemplate::Alt &A : Op.Alts)
    if (A.Form == OpTemplate::Alt::Peer)
      S << " alt " << A.Which << " " << peerText(A.E) << " " << A.PartsAt;
    else if (A.Form == OpTemplate::Alt::Count)
      S << " alt-bytes " << bytesText(A.Bytes) << " " << A.PartsAt;
    else if (A.Form == OpTemplate::Alt::Comm)
      S << " alt-sub " << int(A.Sub.K) << " " << int(A.Sub.GridDims) << " " << int(A.Sub.GridAxes)
        << " " << A.Sub.Const << " " << A.PartsAt;
    else if (A.Form == OpTemplate::Alt::Share)
      S << " alt-share " << tripsText(A.Trips) << " " << A.PartsAt;
  return S.str();
}

namespace {

/// The words after `sub` (Own: after `alt-sub`, without the parent and creation count); false
/// when they are not a sub-communicator.
bool parseSub(std::istringstream &S, SubComm &Sub, bool Own = true) {
  int K = 0, Dims = 0, Axes = 0;
  if (!(S >> K >> Dims >> Axes >> Sub.Const) || (Own && !(S >> Sub.Parent >> Sub.Seq)) ||
      (K != SubComm::Block && K != SubComm::Stride) || !gridOk(Dims, Axes) ||
      (Dims == 0 && Sub.Const < 1))
    return false;
  Sub.K = SubComm::Kind(K);
  Sub.GridDims = uint8_t(Dims);
  Sub.GridAxes = uint8_t(Axes);
  return true;
}

/// A loop's count: KIND SCONST GRIDDIMS GRIDAXES A B, then for a count from the size or
/// items dealt COEFF:WEXP:PEXP[:CONST[:gD.AXES]], finite.
bool parseTrips(std::istringstream &S, TripExpr &T) {
  int TK = 0, Dims = 0, Axes = 0;
  std::string Rest;
  const int64_t Limit = int64_t(1) << 31;
  if (!(S >> TK >> T.SConst >> Dims >> Axes >> T.A >> T.B) || TK < 0 || TK > TripExpr::Dealt ||
      (TK == TripExpr::Dealt && (T.A < 0 || T.A > TripExpr::LastTakesRest || T.B < 0 || T.B > 1)) ||
      !gridOk(Dims, Axes) || (Dims == 0 && T.SConst < 1) || T.A < -Limit || T.A > Limit ||
      T.B < -Limit || T.B > Limit)
    return false;
  if ((TK == TripExpr::Size || TK == TripExpr::Dealt) &&
      (!(S >> Rest) || !parseBytes(Rest, T.Sz) || !std::isfinite(T.Sz.Coeff) ||
       !std::isfinite(T.Sz.WExp) || !std::isfinite(T.Sz.PExp) || !std::isfinite(T.Sz.Const)))
    return false;
  T.K = TripExpr::Kind(TK);
  T.GridDims = uint8_t(Dims);
  T.GridAxes = uint8_t(Axes);
  return true;
}

/// The words after `alt`; false when they are not another form of the op's peer, root or one
/// of its matched sources (Sources: how many it has).
bool parseAlt(std::istringstream &S, size_t Sources, OpTemplate &Op) {
  OpTemplate::Alt A;
  std::string Peer;
  if (!(S >> A.Which >> Peer >> A.PartsAt) || A.Which > Sources || !parsePeer(Peer, A.E) ||
      A.PartsAt < 2)
    return false;
  Op.Alts.push_back(A);
  return true;
}

/// The words after `alt-bytes`, `alt-sub`, `alt-trips` or `alt-share` (Word): another byte
/// count, sub-communicator, trip count or share of Op; false when they are none, or Op has no
/// such form of its own (a byte count of a share, no sub-communicator, no loop, no share).
bool parseFormAlt(const std::string &Word, std::istringstream &S, OpTemplate &Op) {
  OpTemplate::Alt A;
  std::string Bytes;
  bool Ok = false;
  if (Word == "alt-bytes") {
    A.Form = OpTemplate::Alt::Count;
    Ok = Op.Ctl == OpTemplate::Control::None && Op.Share.K != TripExpr::Dealt && S >> Bytes &&
         parseBytes(Bytes, A.Bytes) && std::isfinite(A.Bytes.Coeff) &&
         std::isfinite(A.Bytes.WExp) && std::isfinite(A.Bytes.PExp) && std::isfinite(A.Bytes.Const);
  } else if (Word == "alt-sub") {
    A.Form = OpTemplate::Alt::Comm;
    Ok = Op.Sub.K != SubComm::None && parseSub(S, A.Sub, false);
    A.Sub.Parent = Op.Sub.Parent;
    A.Sub.Seq = Op.Sub.Seq;
  } else if (Word == "alt-trips") {
    A.Form = OpTemplate::Alt::Loop;
    Ok = Op.Ctl == OpTemplate::Control::LoopBegin && parseTrips(S, A.Trips);
  } else if (Word == "alt-share") {
    A.Form = OpTemplate::Alt::Share;
    Ok = Op.Share.K == TripExpr::Dealt && parseTrips(S, A.Trips) && A.Trips.K == TripExpr::Dealt;
  }
  if (!Ok || !(S >> A.PartsAt) || A.PartsAt < 2)
    return false;
  Op.Alts.push_back(A);
  return true;
}

} // namespace

bool parseOp(const std::string &Text, OpTemplate &Op) {
  std::istringstream S(Text);
  std::string Kind, Block, From, Peer, Bytes;
  int Mode = 0, Context = 0, Found = 1;
  Op = OpTemplate{};
  Event &E = Op.Proto;
  if (Text.starts_with("loop ") || Text.starts_with("end ")) {
    std::string Word, Rest;
    TripExpr &T = Op.Trips;
    if (!(S >> Word >> Op.Span) || Op.Span == 0)
      return false;
    if (Word == "end") {
      Op.Ctl = OpTemplate::Control::LoopEnd;
      return !(S >> Rest);
    }
    if (!parseTrips(S, T))
      return false;
    Op.Ctl = OpTemplate::Control::LoopBegin;
    while (S >> Rest)
      if (Rest == "parts"
              ? T.K != TripExpr::Dealt || !Op.Alts.empty() || !(S >> T.PartsAt) || T.PartsAt < 1
              : !parseFormAlt(Rest, S, Op))
        return false;
    return true;
  }
  if (!(S >> Kind >> Block >> From >> E.Tag >> E.Comm >> Mode >> Context >> Found >> Peer >> Bytes))
    return false;
  const std::optional<uint64_t> B = parseBlockId(Block), F = parseBlockId(From);
  if (!B || !F || !parsePeer(Peer, Op.Peer) || !parseBytes(Bytes, Op.Bytes))
    return false;
  E.Block = *B;
  E.From = *F;
  E.Mode = SendMode(Mode);
  E.Context = uint8_t(Context);
  E.Found = Found != 0;
  if (Kind == "coll") {
    int CK = 0, Commutative = 1;
    std::string Site;
    if (!(S >> CK >> Op.Coll.Elem >> Commutative >> Op.Coll.Comm >> Site) || CK < 0 ||
        CK > trace::LastCollKind || Op.Coll.Elem == 0)
      return false;
    const std::optional<uint64_t> Si = parseBlockId(Site);
    if (!Si)
      return false;
    Op.IsColl = true;
    Op.Coll.Kind = trace::CollKind(CK);
    Op.Coll.Commutative = Commutative != 0;
    Op.Coll.Site = *Si;
    // sub ..., and a v-variant's uneven counts: share ... [share-parts N] (as below).
    std::string Word;
    while (S >> Word) {
      if (Word == "sub") {
        if (!parseSub(S, Op.Sub))
          return false;
      } else if (Word == "alt") {
        if (!parseAlt(S, 0, Op))
          return false;
      } else if (Word == "alt-bytes" || Word == "alt-sub" || Word == "alt-share") {
        if (!parseFormAlt(Word, S, Op))
          return false;
      } else if (Word == "share") {
        if (!collHasRankBytes(Op.Coll.Kind) || !parseTrips(S, Op.Share) ||
            Op.Share.K != TripExpr::Dealt)
          return false;
      } else if (Word != "share-parts" || Op.Share.K != TripExpr::Dealt ||
                 !(S >> Op.Share.PartsAt) || Op.Share.PartsAt < 1) {
        return false;
      }
    }
    return true;
  }
  const auto *It = std::find(std::begin(KindNames), std::end(KindNames), Kind);
  if (It == std::end(KindNames))
    return false;
  E.Kind = estimator::EventKind(It - std::begin(KindNames));
  std::string Word;
  while (S >> Word) {
    if (Word == "done") {
      std::string Src;
      int32_t T1 = 0, T2 = 0;
      uint32_t D = 0;
      PeerExpr P;
      if (!(S >> Src >> T1 >> T2 >> D) || !parsePeer(Src, P))
        return false;
      Op.Sources.push_back(P);
      Op.Tags.push_back({T1, T2});
      Op.Dist.push_back(D);
      E.Completed.push_back({});
    } else if (Word == "share") {
      if (!parseTrips(S, Op.Share) || Op.Share.K != TripExpr::Dealt ||
          (E.Kind != estimator::EventKind::SendStart && E.Kind != estimator::EventKind::RecvStart &&
           E.Kind != estimator::EventKind::Probe))
        return false;
    } else if (Word == "share-parts") {
      if (Op.Share.K != TripExpr::Dealt || !(S >> Op.Share.PartsAt) || Op.Share.PartsAt < 1)
        return false;
    } else if (Word == "same-buffer") {
      E.SameBuffer = true;
    } else if (Word == "sub") {
      if (!parseSub(S, Op.Sub))
        return false;
    } else if (Word == "dist-trip") {
      Op.DistTrip.resize(Op.Dist.size());
      for (auto &[A, B] : Op.DistTrip)
        if (!(S >> A >> B) || std::abs(A) > (1 << 16) || std::abs(B) > (1 << 16))
          return false;
      if (Op.DistTrip.empty() || E.Kind != estimator::EventKind::Completion)
        return false;
    } else if (Word == "from-rule") {
      int Rule = 0;
      std::string Alt;
      if (!(S >> Rule >> Alt) || Rule < 1 || Rule > 3 || E.Kind != estimator::EventKind::Segment)
        return false;
      const std::optional<uint64_t> A = parseBlockId(Alt);
      if (!A)
        return false;
      Op.FromR = OpTemplate::FromRule(Rule);
      Op.AltFrom = *A;
    } else if (Word == "free") {
      uint32_t D = 0;
      if (!(S >> D))
        return false;
      Op.Dist.push_back(D);
    } else if (Word == "alt") {
      // After the peer's own words and every `done` (formatOp writes it last).
      const bool HasPeer = E.Kind == estimator::EventKind::SendStart ||
                           E.Kind == estimator::EventKind::RecvStart ||
                           E.Kind == estimator::EventKind::Probe;
      if (!parseAlt(S, Op.Sources.size(), Op) || (Op.Alts.back().Which == 0 && !HasPeer))
        return false;
    } else if (Word == "alt-bytes" || Word == "alt-sub" || Word == "alt-share") {
      if (!parseFormAlt(Word, S, Op))
        return false;
    } else {
      return false;
    }
  }
  return true;
}

void writeScalingModel(std::ostream &OS, const ScalingModelFile &F) {
  YAML::Emitter E;
  E << YAML::BeginMap;
  E << YAML::Key << "format" << YAML::Value << "mpiete-scaling-model";
  E << YAML::Key << "version" << YAML::Value << ScalingModelFile::FormatVersion;
  E << YAML::Key << "tool" << YAML::Value << F.Tool;
  E << YAML::Key << "command" << YAML::Value << F.Command;
  E << YAML::Key << "runs" << YAML::Value << YAML::BeginSeq;
  for (const ModelRun &R : F.Runs) {
    E << YAML::Flow << YAML::BeginMap << YAML::Key << "ranks" << YAML::Value << R.Ranks << YAML::Key
      << "size" << YAML::Value << R.Size << YAML::Key << "program" << YAML::Value << R.Program
      << YAML::Key << "machine" << YAML::Value << R.Machine;
    if (!R.Repeats.empty())
      E << YAML::Key << "repeats" << YAML::Value << YAML::Flow << R.Repeats;
    E << YAML::EndMap;
  }
  E << YAML::EndSeq;
  if (F.Ws.known()) {
    // Seed 001's steps: where the runs' working sets lie against each cache. A cache they do
    // not straddle is a step no model here has measured: a prediction beyond it is flagged.
    E << YAML::Key << "working_set" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
      << "bytes" << YAML::Value << F.Ws.Bytes << YAML::Key << "w" << YAML::Value << F.Ws.WExp
      << YAML::Key << "text" << YAML::Value << F.Ws.text() << YAML::EndMap;
    E << YAML::Key << "caches_from" << YAML::Value << F.CachesFrom;
    E << YAML::Key << "caches" << YAML::Value << YAML::BeginSeq;
    for (double C : F.Caches) {
      double Lo = 0, Hi = 0;
      bool Any = false;
      for (const ModelRun &R : F.Runs) {
        const double X = F.Ws.at(R.Ranks, R.Size);
        Lo = Any ? std::min(Lo, X) : X;
        Hi = Any ? std::max(Hi, X) : X;
        Any = true;
      }
      const auto [Below, Above] = F.runsAround(C);
      E << YAML::Flow << YAML::BeginMap << YAML::Key << "bytes" << YAML::Value << C << YAML::Key
        << "runs_below" << YAML::Value << Below << YAML::Key << "runs_above" << YAML::Value
        << Above;
      if (Below == 0 || Above == 0)
        E << YAML::Key << "warning" << YAML::Value
          << "unmeasured step: every run's working set (" + shortBytes(Lo) + " - " +
                 shortBytes(Hi) + ") is " + (Below == 0 ? "above" : "below") +
                 " it; an extrapolation to a working set " + (Below == 0 ? "below" : "above") +
                 " it crosses a cache step of unknown height";
      else if (loneRun(Below, Above))
        E << YAML::Key << "warning" << YAML::Value
          << std::string("one run's working set lies ") + (Above == 1 ? "above" : "below") +
                 " it: too few to fit a step, so each segment's model fits both sides with one "
                 "curve; a second run " +
                 (Above == 1 ? "above it (twice its size or more)"
                             : "below it (half its size or less)") +
                 " lets the models place the step";
      E << YAML::EndMap;
    }
    E << YAML::EndSeq;
  }
  E << YAML::Key << "structure" << YAML::Value << YAML::BeginMap;
  E << YAML::Key << "status" << YAML::Value << (F.StructureAccepted ? "accepted" : "refused");
  if (!F.StructureAccepted) {
    E << YAML::Key << "site" << YAML::Value << F.RefusedAt;
    E << YAML::Key << "reason" << YAML::Value << F.RefusalReason;
  } else {
    E << YAML::Key << "messages" << YAML::Value << YAML::BeginSeq;
    for (const std::string &L : F.Structure)
      E << L;
    E << YAML::EndSeq;
    // The learnt sequences, one op a line (formatOp), read back by estimate --ranks.
    E << YAML::Key << "max_dist" << YAML::Value << F.Learnt.MaxDist;
    E << YAML::Key << "classes" << YAML::Value << YAML::BeginSeq;
    for (const RankClass &C : F.Learnt.Classes) {
      E << YAML::BeginMap << YAML::Key << "ranks" << YAML::Value << int(C.K);
      E << YAML::Key << "ops" << YAML::Value << YAML::BeginSeq;
      for (const OpTemplate &Op : C.Ops)
        E << formatOp(Op);
      E << YAML::EndSeq << YAML::EndMap;
    }
    E << YAML::EndSeq;
  }
  E << YAML::EndMap;
  E << YAML::Key << "segments" << YAML::Value << YAML::BeginSeq;
  for (const SegmentModel &S : F.Segments) {
    E << YAML::BeginMap;
    // Quoted: an all-digit unit (94724081:1) would read as a sexagesimal number in YAML 1.1
    // (PyYAML), which scripts reading the file use.
    E << YAML::Key << "from" << YAML::Value << YAML::DoubleQuoted << formatBlockId(S.From);
    E << YAML::Key << "to" << YAML::Value << YAML::DoubleQuoted << formatBlockId(S.To);
    if (S.Ranks != RankPosition::All)
      E << YAML::Key << "ranks" << YAML::Value << positionName(S.Ranks);
    if (!S.Where.empty())
      E << YAML::Key << "where" << YAML::Value << S.Where;
    E << YAML::Key << "model" << YAML::Value << S.M.text();
    E << YAML::Key << "terms" << YAML::Value << YAML::BeginSeq;
    for (size_t K = 0; K < S.M.Terms.size(); ++K) {
      const Term &T = S.M.Terms[K];
      E << YAML::Flow << YAML::BeginMap << YAML::Key << "coeff" << YAML::Value << S.M.Coeffs[K]
        << YAML::Key << "p" << YAML::Value << T.PExp << YAML::Key << "log2p" << YAML::Value
        << T.LogExp << YAML::Key << "w" << YAML::Value << T.WExp << YAML::Key << "step"
        << YAML::Value << T.StepAt;
      if (T.GridDims != 0)
        E << YAML::Key << "grid_dims" << YAML::Value << int(T.GridDims) << YAML::Key << "grid_axes"
          << YAML::Value << int(T.GridAxes);
      if (T.StepAt > 0 && T.Ws.known())
        E << YAML::Key << "ws_bytes" << YAML::Value << T.Ws.Bytes << YAML::Key << "ws_w"
          << YAML::Value << T.Ws.WExp;
      E << YAML::Key << "text" << YAML::Value << T.text() << YAML::EndMap;
    }
    E << YAML::EndSeq;
    E << YAML::Key << "points" << YAML::Value << S.M.Points;
    E << YAML::Key << "fit_error" << YAML::Value << S.M.FitError;
    E << YAML::Key << "fit_worst" << YAML::Value << S.M.FitWorst;
    E << YAML::Key << "cv_error" << YAML::Value << S.M.CvError;
    E << YAML::Key << "extrapolation_error" << YAML::Value << S.M.ExtrapolationError;
    E << YAML::Key << "held_out_error" << YAML::Value << S.HeldOutError;
    if (!S.Data.empty()) {
      // The points the model was fitted to, [p, W, seconds], for a reader checking the fit.
      E << YAML::Key << "measured" << YAML::Value << YAML::BeginSeq;
      for (const Point &X : S.Data)
        E << YAML::Flow << YAML::BeginSeq << X.P << X.W << X.Y << YAML::EndSeq;
      E << YAML::EndSeq;
    }
    E << YAML::EndMap;
  }
  E << YAML::EndSeq << YAML::EndMap;
  OS << E.c_str() << "\n";
}

bool loadScalingModel(const std::string &Path, ScalingModelFile &Out, DiagnosticSink &Diags) {
  std::string Text;
  if (!readBaseDataText(Path, "scaling-model", Text, Diags))
    return false;
  try {
    YAML::Node Root = YAML::Load(Text);
    if (Root["format"].as<std::string>("") != "mpiete-scaling-model" ||
        Root["version"].as<int>(0) != ScalingModelFile::FormatVersion) {
      Diags.error({Path, 0, 0}, "not an mpiete-scaling-model file of version 1", "scaling-model");
      return false;
    }
    Out.Tool = Root["tool"].as<std::string>("");
    Out.Command = Root["command"].as<std::string>("");
    for (const YAML::Node &R : Root["runs"])
      Out.Runs.push_back({R["ranks"].as<int>(), R["size"].as<double>(),
                          R["program"].as<std::string>(), R["machine"].as<std::string>(),
                          R["repeats"] ? R["repeats"].as<std::vector<std::string>>()
                                       : std::vector<std::string>{}});
    if (const YAML::Node Ws = Root["working_set"])
      Out.Ws = WorkingSet{Ws["bytes"].as<double>(0), Ws["w"].as<double>(1)};
    Out.CachesFrom = Root["caches_from"].as<std::string>("");
    for (const YAML::Node &C : Root["caches"])
      Out.Caches.push_back(C["bytes"].as<double>());
    const YAML::Node S = Root["structure"];
    Out.StructureAccepted = S["status"].as<std::string>("") == "accepted";
    Out.RefusedAt = S["site"].as<std::string>("");
    Out.RefusalReason = S["reason"].as<std::string>("");
    for (const YAML::Node &L : S["messages"])
      Out.Structure.push_back(L.as<std::string>());
    Out.Learnt.MaxDist = S["max_dist"].as<uint32_t>(0);
    for (const YAML::Node &C : S["classes"]) {
      RankClass RC;
      const int K = C["ranks"].as<int>(-1);
      if (K < 0 || K > RankClass::Rest) {
        Diags.error({Path, unsigned(C.Mark().line + 1), unsigned(C.Mark().column + 1)},
                    "unknown rank class", "scaling-model");
        return false;
      }
      RC.K = RankClass::Kind(K);
      for (const YAML::Node &Op : C["ops"]) {
        RC.Ops.emplace_back();
        if (!parseOp(Op.as<std::string>(), RC.Ops.back())) {
          Diags.error({Path, unsigned(Op.Mark().line + 1), unsigned(Op.Mark().column + 1)},
                      "malformed structure op", "scaling-model");
          return false;
        }
      }
      // Loops: each begin's end SPAN ops later, with the same span, none inside another.
      for (size_t K = 0; K < RC.Ops.size(); ++K) {
        const OpTemplate &Op = RC.Ops[K];
        if (Op.Ctl == OpTemplate::Control::None)
          continue;
        const size_t End = K + Op.Span + 1;
        bool Ok = Op.Ctl == OpTemplate::Control::LoopBegin && End < RC.Ops.size() &&
                  RC.Ops[End].Ctl == OpTemplate::Control::LoopEnd && RC.Ops[End].Span == Op.Span;
        for (size_t J = K + 1; Ok && J < End; ++J)
          Ok = RC.Ops[J].Ctl == OpTemplate::Control::None;
        if (!Ok) {
          const YAML::Node OpNode = C["ops"][K];
          Diags.error({Path, unsigned(OpNode.Mark().line + 1), unsigned(OpNode.Mark().column + 1)},
                      "a loop's bounds do not match (each 'loop N' needs 'end N' N ops later, "
                      "loops do not nest)",
                      "scaling-model");
          return false;
        }
        K = End;
      }
      Out.Learnt.Classes.push_back(std::move(RC));
    }
    Out.Learnt.finishClasses();
    for (const YAML::Node &N : Root["segments"]) {
      SegmentModel Seg;
      const std::optional<uint64_t> From = parseBlockId(N["from"].as<std::string>());
      const std::optional<uint64_t> To = parseBlockId(N["to"].as<std::string>());
      if (!From || !To) {
        Diags.error({Path, unsigned(N.Mark().line + 1), unsigned(N.Mark().column + 1)},
                    "malformed block id", "scaling-model");
        return false;
      }
      Seg.From = *From;
      Seg.To = *To;
      Seg.Where = N["where"].as<std::string>("");
      const std::string Ranks = N["ranks"].as<std::string>("all");
      bool Known = false;
      for (RankPosition P :
           {RankPosition::All, RankPosition::First, RankPosition::Last, RankPosition::Rest})
        if (Ranks == positionName(P)) {
          Seg.Ranks = P;
          Known = true;
        }
      if (!Known) {
        Diags.error({Path, unsigned(N.Mark().line + 1), unsigned(N.Mark().column + 1)},
                    "a segment's ranks are all, first, last or rest", "scaling-model");
        return false;
      }
      for (const YAML::Node &T : N["terms"]) {
        Seg.M.Terms.push_back(Term{
            T["p"].as<double>(), T["log2p"].as<int>(), T["w"].as<double>(), T["step"].as<double>(),
            WorkingSet{T["ws_bytes"].as<double>(0), T["ws_w"].as<double>(1)}});
        const int Dims = T["grid_dims"].as<int>(0), Axes = T["grid_axes"].as<int>(0);
        if (!gridOk(Dims, Axes)) {
          Diags.error({Path, unsigned(T.Mark().line + 1), unsigned(T.Mark().column + 1)},
                      "a term's grid divisor is factors (grid_axes, bits) of Dims_create(p, 2 "
                      "or 3) (grid_dims)",
                      "scaling-model");
          return false;
        }
        Seg.M.Terms.back().GridDims = uint8_t(Dims);
        Seg.M.Terms.back().GridAxes = uint8_t(Axes);
        const double C = T["coeff"].as<double>();
        if (C < 0) {
          Diags.error({Path, unsigned(T.Mark().line + 1), unsigned(T.Mark().column + 1)},
                      "negative coefficient: models are non-negative", "scaling-model");
          return false;
        }
        Seg.M.Coeffs.push_back(C);
      }
      Seg.M.Points = N["points"].as<unsigned>(0);
      Seg.M.FitError = N["fit_error"].as<double>(0);
      Seg.M.FitWorst = N["fit_worst"].as<double>(0);
      Seg.M.CvError = N["cv_error"].as<double>(0);
      Seg.M.ExtrapolationError = N["extrapolation_error"].as<double>(-1);
      for (const YAML::Node &X : N["measured"]) {
        if (!X.IsSequence() || X.size() != 3) {
          Diags.error({Path, unsigned(X.Mark().line + 1), unsigned(X.Mark().column + 1)},
                      "a measured point is [p, W, seconds]", "scaling-model");
          return false;
        }
        Seg.Data.push_back({X[0].as<double>(), X[1].as<double>(), X[2].as<double>()});
      }
      Seg.HeldOutError = N["held_out_error"].as<double>(-1);
      Out.Segments.push_back(std::move(Seg));
    }
  } catch (const YAML::Exception &Ex) {
    Diags.error({Path, unsigned(Ex.mark.line + 1), unsigned(Ex.mark.column + 1)}, Ex.msg,
                "scaling-model");
    return false;
  }
  return true;
}

ScaledComputeModel::ScaledComputeModel(const ScalingModelFile &File, double P, double W,
                                       double Factor)
    : Ranks(int(P)) {
  for (const SegmentModel &S : File.Segments) {
    estimator::SegmentTimes T;
    T.From = S.From;
    T.To = S.To;
    T.MeanSeconds = std::max(0.0, S.M.eval(P, W)) * Factor;
    Entry &E = Times[{S.From, S.To}];
    switch (S.Ranks) {
    case RankPosition::First:
      E.At[0] = T;
      E.Own[0] = true;
      break;
    case RankPosition::Last:
      E.At[1] = T;
      E.Own[1] = true;
      break;
    default:
      E.At[2] = T;
    }
  }
}

const estimator::SegmentTimes &ScaledComputeModel::value(const Entry &E, int Rank, int P) const {
  if (Rank == 0 && E.Own[0])
    return E.At[0];
  if (Rank == P - 1 && E.Own[1])
    return E.At[1];
  return E.At[2];
}

int ScaledComputeModel::profileRank(int Rank) const {
  const int B = BaseRanks, P = Ranks;
  if (Rank <= 0 || B <= 1)
    return 0;
  if (Rank >= P - 1)
    return B - 1;
  if (B == 2)
    return 2 * Rank < P ? 0 : 1;
  // The ranks between onto Base's ranks between, in order.
  return 1 + int(int64_t(Rank - 1) * (B - 2) / std::max(1, P - 2));
}

int ScaledComputeModel::firstProfiled(int B) const {
  const int64_t Bs = BaseRanks, P = Ranks;
  if (B <= 0)
    return 0;
  if (B >= Bs || Bs <= 1)
    return Ranks;
  // profileRank inverted: the first rank whose profile rank is B or past it.
  int64_t First;
  if (Bs == 2)
    First = (P + 1) / 2; // 2 r >= P
  else                   // 1 + (r - 1) (Bs - 2) / (P - 2) >= B
    First = 1 + ((B - 1) * (P - 2) + (Bs - 3)) / (Bs - 2);
  if (B == Bs - 1)
    First = std::min<int64_t>(First, P - 1);
  return int(std::clamp<int64_t>(First, 1, P));
}

int ScaledComputeModel::rotationsOf(int B) const {
  return std::min(std::max(1, firstProfiled(B + 1) - firstProfiled(B)), MaxRotations);
}

std::pair<int, int> ScaledComputeModel::rotationAt(int Rank, int B) const {
  const int N = rotationsOf(B);
  return {(Rank - firstProfiled(B)) % N, N};
}

std::pair<int, int> ScaledComputeModel::profileRotation(int Rank) const {
  return rotationAt(Rank, profileRank(Rank));
}

namespace {

/// The series buckets that hold Width occurrences each (all but a last partial one).
size_t wholeBuckets(const estimator::SegmentTimes &T) {
  return std::min<size_t>(T.BucketSeconds.size(), T.Executions / T.Width);
}

/// Whole bucket I's time per occurrence over the mean (1: as the mean).
double relative(const estimator::SegmentTimes &T, size_t I) {
  return T.MeanSeconds > 0 ? T.seconds(I * T.Width) / T.MeanSeconds : 1.0;
}

/// T with its whole buckets' own variation moved Shift places on, round them; the variation
/// all ranks share at that bucket (Common, per bucket: the mean over the profiles of the same
/// width of the relative time, e.g. a first occurrence's warm-up) stays where it is, and the
/// total stays T's. A last partial bucket stays as it is.
estimator::SegmentTimes rotated(const estimator::SegmentTimes &T, const std::vector<double> &Common,
                                uint64_t Shift) {
  estimator::SegmentTimes R = T;
  const size_t Whole = wholeBuckets(T);
  if (Whole < 2 || Common.size() < Whole)
    return R;
  double Before = 0, After = 0;
  for (size_t I = 0; I < Whole; ++I) {
    const size_t J = (I + Shift) % Whole;
    R.BucketSeconds[I] = Common[J] > 0 ? Common[I] * relative(T, J) / Common[J] : Common[I];
    Before += T.BucketSeconds[I];
    After += R.BucketSeconds[I];
  }
  // Relative times so far: scaled to T's total over the whole buckets.
  for (size_t I = 0; I < Whole; ++I)
    R.BucketSeconds[I] *= After > 0 ? Before / After : 0.0;
  return R;
}

} // namespace

void ScaledComputeModel::addOccurrenceProfiles(const MachineFile &Base) {
  BaseRanks = int(Base.Ranks.size());
  for (auto &[Key, E] : Times) {
    E.Profiled.clear();
    E.Rotated.clear();
  }
  for (const MachineRank &MR : Base.Ranks) {
    const int B = MR.Rank;
    if (B < 0 || B >= BaseRanks)
      continue;
    for (const MachineSegment &S : MR.Segments) {
      if (S.SeriesSeconds.empty() || S.SeriesWidth == 0 || !(S.MeanSeconds > 0))
        continue;
      auto It = Times.find({S.From, S.To});
      if (It == Times.end())
        continue;
      Entry &E = It->second;
      if (E.Profiled.empty())
        for (int Q = 0; Q < BaseRanks; ++Q)
          E.Profiled.push_back(value(E, Q, BaseRanks));
      estimator::SegmentTimes &T = E.Profiled[size_t(B)];
      const double Scale = T.MeanSeconds / S.MeanSeconds;
      T.Executions = S.Executions;
      T.Width = S.SeriesWidth;
      T.BucketSeconds.clear();
      for (double X : S.SeriesSeconds)
        T.BucketSeconds.push_back(X * Scale);
    }
  }
  // The rotations of every profile that several ranks take.
  for (auto &[Key, E] : Times) {
    if (E.Profiled.empty())
      continue;
    E.Rotated.resize(E.Profiled.size());
    // Per width of series: the relative time all ranks share at each bucket.
    std::map<uint64_t, std::pair<std::vector<double>, std::vector<int>>> Common;
    for (const estimator::SegmentTimes &T : E.Profiled) {
      if (T.Width == 0)
        continue;
      auto &[Sum, Count] = Common[T.Width];
      const size_t Whole = wholeBuckets(T);
      if (Sum.size() < Whole) {
        Sum.resize(Whole, 0.0);
        Count.resize(Whole, 0);
      }
      for (size_t I = 0; I < Whole; ++I) {
        Sum[I] += relative(T, I);
        ++Count[I];
      }
    }
    for (auto &[Width, SC] : Common)
      for (size_t I = 0; I < SC.first.size(); ++I)
        SC.first[I] /= std::max(1, SC.second[I]);
    for (int B = 0; B < BaseRanks; ++B) {
      const estimator::SegmentTimes &T = E.Profiled[size_t(B)];
      if (T.Width == 0)
        continue;
      const int N = rotationsOf(B);
      const uint64_t Whole = wholeBuckets(T);
      for (int C = 1; C < N; ++C)
        E.Rotated[size_t(B)].push_back(
            rotated(T, Common[T.Width].first, Whole * uint64_t(C) / uint64_t(N)));
    }
  }
}

const estimator::SegmentTimes *ScaledComputeModel::segment(int Rank, estimator::BlockId From,
                                                           estimator::BlockId To) const {
  auto It = Times.find({From, To});
  if (It == Times.end())
    return nullptr;
  const Entry &E = It->second;
  if (!E.Profiled.empty()) {
    const int B = profileRank(Rank);
    const int C = rotationAt(Rank, B).first;
    if (C > 0 && size_t(C) <= E.Rotated[size_t(B)].size())
      return &E.Rotated[size_t(B)][size_t(C) - 1];
    return &E.Profiled[size_t(B)];
  }
  return &value(E, Rank, Ranks);
}

} // namespace mpiete::scaling
