// Learning per-rank event sequences as functions of (r, P) from traces at several sizes, the
// exact check that they reproduce every measured trace, and the synthetic streams.
#include "mpiete/scaling/CommStructure.h"
#include "mpiete/CommId.h"
#include "mpiete/trace/TraceReader.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <unordered_set>
#include <utility>

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

int32_t PeerExpr::evalOther(int32_t R, int32_t P) const {
  auto InRange = [&](int64_t V) { return V >= 0 && V < P ? int32_t(V) : estimator::ProcNull; };
  switch (K) {
  case Literal:
    return int32_t(A);
  case FromEnd:
    return InRange(int64_t(P) - A);
  case Offset:
    return InRange(int64_t(R) + A);
  case Wrap: {
    // Ring neighbours are at most one lap off: no division on the generator's hot path.
    const int64_t V = int64_t(R) + A;
    if (V >= 0 && V < P)
      return int32_t(V);
    if (V >= P && V < 2 * int64_t(P))
      return int32_t(V - P);
    if (V < 0 && V >= -int64_t(P))
      return int32_t(V + P);
    return int32_t((V % P + P) % P);
  }
  case Xor:
    return InRange(int64_t(R) ^ A);
  case Grid: {
    // The grid of the last (P, Dims) asked for: dimsCreate allocates, and a replay asks for
    // one grid at every event.
    thread_local int LastP = 0, LastDims = -1;
    thread_local std::vector<int> D;
    if (LastP != P || LastDims != Dims) {
      D = dimsCreate(P, Dims);
      LastP = P;
      LastDims = Dims;
    }
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
  case TreeParent:
    return R > 0 ? int32_t(R & (R - 1)) : estimator::ProcNull;
  case HighTreeParent:
    return R > 0 ? int32_t(R - (int32_t(1) << (std::bit_width(uint32_t(R)) - 1)))
                 : estimator::ProcNull;
  case TripOffset:
  case TripWrap:
  case TripOffsetDown:
  case TripWrapDown:
  case TripXorPow:
  case TripWrapPow:
  case TripWrapPowDown:
  case TripOffsetPow:
  case TripOffsetPowRev:
  case TripAbovePow:
  case TripAbovePowRev:
    return evalTrip(R, P, 0, 1);
  }
  return int32_t(A);
}

namespace {
/// 2^E mod P (P >= 1), for exponents of any size: a model's loop may run up to 2^32 trips.
int64_t pow2Mod(uint64_t E, int64_t P) {
  int64_t Result = 1 % P, Base = 2 % P;
  for (; E != 0; E >>= 1) {
    if (E & 1)
      Result = Result * Base % P;
    Base = Base * Base % P;
  }
  return Result;
}
} // namespace

int32_t PeerExpr::evalTrip(int32_t R, int32_t P, uint64_t Trip, uint64_t Trips) const {
  if (!usesTrip())
    return eval(R, P);
  if (K == TripXorPow || K == TripOffsetPow || K == TripOffsetPowRev || K == TripAbovePow ||
      K == TripAbovePowRev) {
    // The exponent; a trip past the loop's last (Trips - 1 - Trip below 0) names no rank.
    const int64_t Above = K == TripAbovePow || K == TripAbovePowRev
                              ? int64_t(std::bit_width(uint32_t(std::max(R, 0))))
                              : 0;
    const int64_t Own = K == TripOffsetPowRev || K == TripAbovePowRev
                            ? int64_t(Trips) - 1 - int64_t(Trip) + A
                            : int64_t(Trip) + A;
    const int64_t E = Own < 0 ? -1 : Own + Above;
    // A partner at distance 2^31 or more is past any rank.
    const int64_t V = E < 0 || E >= 31  ? -1
                      : K == TripXorPow ? int64_t(R) ^ (int64_t(1) << E)
                                        : int64_t(R) + (int64_t(1) << E);
    return V >= 0 && V < P ? int32_t(V) : estimator::ProcNull;
  }
  if (K == TripWrapPow || K == TripWrapPowDown) {
    const int64_t D = pow2Mod(Trip + uint64_t(A), P);
    return int32_t(((K == TripWrapPow ? int64_t(R) + D : int64_t(R) - D) % P + P) % P);
  }
  const int64_t T = K == TripOffset || K == TripWrap ? int64_t(Trip) : -int64_t(Trip);
  if (K == TripWrap || K == TripWrapDown)
    return int32_t(((int64_t(R) + A + T) % P + P) % P);
  const int64_t V = A + T;
  return V >= 0 && V < P ? int32_t(V) : estimator::ProcNull;
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
  case TripOffset:
    S << "t";
    Signed(A);
    S << " on trip t";
    break;
  case TripWrap:
    S << "(r";
    Signed(A);
    S << " + t) mod P on trip t";
    break;
  case TripOffsetDown:
    S << A << " - t on trip t";
    break;
  case TripWrapDown:
    S << "(r";
    Signed(A);
    S << " - t) mod P on trip t";
    break;
  case TripXorPow:
    S << "r xor 2^" << (A ? "(t + " + std::to_string(A) + ")" : "t") << " on trip t";
    break;
  case TripWrapPow:
  case TripWrapPowDown:
    S << "(r " << (K == TripWrapPow ? "+" : "-") << " 2^"
      << (A ? "(t + " + std::to_string(A) + ")" : "t") << ") mod P on trip t";
    break;
  case TreeParent:
    S << "r - lowbit(r) (the parent in a binomial tree rooted at 0)";
    break;
  case TripOffsetPow:
    S << "r + 2^" << (A ? "(t + " + std::to_string(A) + ")" : "t") << " on trip t";
    break;
  case TripOffsetPowRev:
    S << "r + 2^(n - 1 - t" << (A ? " + " + std::to_string(A) : "") << ") on trip t of n";
    break;
  case HighTreeParent:
    S << "r - highbit(r) (the parent in a binomial tree rooted at 0, children above their "
         "parent's bits)";
    break;
  case TripAbovePow:
    S << "r + 2^(t + b(r)" << (A ? " + " + std::to_string(A) : "")
      << ") on trip t, b(r) = bit_width(r)";
    break;
  case TripAbovePowRev:
    S << "r + 2^(n - 1 - t + b(r)" << (A ? " + " + std::to_string(A) : "")
      << ") on trip t of n, b(r) = bit_width(r)";
    break;
  }
  return S.str();
}

int32_t dimsProduct(int32_t P, uint8_t Dims, uint8_t Axes) {
  // A generated stream asks it per event of a sub-communicator at one P: the factorisation
  // (and its vector) is not redone per event.
  struct Memo {
    int32_t P;
    uint8_t Dims, Axes;
    int32_t V;
  };
  thread_local Memo Last[4] = {};
  thread_local unsigned Next = 0;
  for (const Memo &M : Last)
    if (M.P == P && M.Dims == Dims && M.Axes == Axes && M.P != 0)
      return M.V;
  const std::vector<int> D = dimsCreate(P, Dims);
  int32_t V = 1;
  for (size_t K = 0; K < D.size(); ++K)
    if (Axes & (1u << K))
      V *= D[K];
  Last[Next++ % 4] = {P, Dims, Axes, V};
  return V;
}

std::string dimsText(uint8_t Dims, uint8_t Axes, const char *Var) {
  std::string S;
  for (unsigned K = 0; K < Dims; ++K)
    if (Axes & (1u << K))
      S += (S.empty() ? "d" : " * d") + std::to_string(K);
  return S + " of Dims_create(" + Var + ", " + std::to_string(Dims) + ")";
}

namespace {

/// P^PExp, or with GridDims the product of MPI_Dims_create(P, GridDims)'s factors in GridAxes.
double divisor(double P, double PExp, uint8_t GridDims, uint8_t GridAxes) {
  return GridDims == 0 ? std::pow(P, PExp) : double(dimsProduct(int32_t(P), GridDims, GridAxes));
}

} // namespace

double BytesExpr::value(double P, double W) const {
  return Const + Coeff * std::pow(W, WExp) / divisor(P, PExp, GridDims, GridAxes);
}

uint64_t BytesExpr::evalPower(double P, double W) const {
  // A replay evaluates each expression once per rank at one (P, W): the last answers, keyed
  // by every value they depend on, spare two pow calls per message.
  struct Memo {
    double Coeff, WExp, PExp, Const, P, W;
    uint8_t GridDims, GridAxes;
    uint64_t V;
  };
  thread_local Memo Last[8] = {};
  thread_local unsigned Next = 0;
  for (const Memo &M : Last)
    if (M.Coeff == Coeff && M.WExp == WExp && M.PExp == PExp && M.Const == Const && M.P == P &&
        M.W == W && M.GridDims == GridDims && M.GridAxes == GridAxes)
      return M.V;
  const uint64_t V = uint64_t(std::llround(value(P, W)));
  Last[Next++ % 8] = {Coeff, WExp, PExp, Const, P, W, GridDims, GridAxes, V};
  return V;
}

std::string BytesExpr::text() const {
  std::ostringstream S;
  S.precision(10);
  if (Const != 0)
    S << Const << (Coeff < 0 ? " - " : " + ") << std::abs(Coeff);
  else
    S << Coeff;
  if (WExp != 0)
    S << " * W^" << WExp;
  if (GridDims != 0) {
    S << " / (" << dimsText(GridDims, GridAxes) << ")";
  } else if (PExp != 0) {
    S << " / P^" << PExp;
  }
  return S.str();
}

int32_t SubComm::step(int32_t P) const {
  return GridDims == 0 ? std::max(Const, 1) : dimsProduct(P, GridDims, GridAxes);
}

void SubComm::place(int32_t R, int32_t P, int32_t &Index, int32_t &Count, int32_t &First,
                    int32_t &Step) const {
  const int32_t S = step(P);
  if (K == Block) {
    Index = R % S;
    First = R - Index;
    Count = std::min(S, P - First);
    Step = 1;
  } else {
    First = R % S;
    Index = R / S;
    Count = (P - First + S - 1) / S;
    Step = S;
  }
}

uint64_t SubComm::id(int32_t R, int32_t P) const {
  int32_t Index, Count, First, Step;
  place(R, P, Index, Count, First, Step);
  return childCommId(Parent, Seq, First);
}

std::string OpTemplate::bytesText() const {
  if (Share.K != TripExpr::Dealt)
    return Bytes.text();
  std::ostringstream S;
  S.precision(10);
  if (Bytes.Const != 0)
    S << Bytes.Const << " + ";
  S << Bytes.Coeff;
  if (Bytes.WExp != 0)
    S << " * W^" << Bytes.WExp;
  S << " * (" << Share.text() << ")";
  return S.str();
}

std::string SubComm::text() const {
  const std::string S = GridDims == 0 ? std::to_string(Const) : dimsText(GridDims, GridAxes);
  return K == Block ? "blocks of " + S + " consecutive ranks" : "every " + S + "-th rank";
}

int64_t TripExpr::share(int64_t C, int64_t Groups, int64_t G, Deal D) {
  if (C <= 0 || Groups < 1 || G < 0 || G >= Groups)
    return 0;
  switch (D) {
  case RoundRobin:
    return C / Groups + (G < C % Groups ? 1 : 0);
  case Blocks: {
    const int64_t B = (C + Groups - 1) / Groups;
    return std::clamp<int64_t>(C - G * B, 0, B);
  }
  case LastTakesRest:
    return C / Groups + (G == Groups - 1 ? C % Groups : 0);
  }
  return 0;
}

int64_t TripExpr::step(int32_t P) const {
  return GridDims == 0 ? std::max(SConst, 1) : dimsProduct(P, GridDims, GridAxes);
}

std::string TripExpr::stepText() const {
  return GridDims == 0 ? std::to_string(SConst) : "(" + dimsText(GridDims, GridAxes) + ")";
}

void TripExpr::group(int32_t R, int32_t P, int64_t &G, int64_t &Groups) const {
  const int64_t S = step(P);
  if (B == 1) {
    G = R % S;
    Groups = S;
  } else {
    G = R / S;
    Groups = std::max<int64_t>(P / S, 1);
  }
}

/// Rounded as a byte count is; below 0 (a constant term at a size far below the runs') none.
static int64_t sizeCount(const BytesExpr &Sz, int32_t P, double W) {
  const double V = Sz.value(P, W);
  return V <= 0 ? 0 : V >= 0x1p32 ? int64_t(1) << 32 : int64_t(std::llround(V));
}

uint64_t TripExpr::eval(int32_t R, int32_t P, double W) const {
  int64_t N = 0;
  switch (K) {
  case Linear:
    N = A * P + B;
    break;
  case Log2:
    N = A * int64_t(std::bit_width(uint32_t(std::max(P, 1))) - 1) + B;
    break;
  case Log2Ceil:
    N = A * int64_t(std::bit_width(uint32_t(std::max(P, 1) - 1))) + B;
    break;
  case Cyclic: {
    const int64_t S = step(P);
    const int64_t G = std::max<int64_t>(P / S, 1), Group = R / S;
    N = Group < A ? (A - Group + G - 1) / G : 0;
    break;
  }
  case TreeChildren: {
    // ceil(log2(P - r)): the rounds whose child r + 2^j is a rank; tz(0) is unbounded.
    const int64_t InRange = R < P ? int64_t(std::bit_width(uint32_t(P - R - 1))) : 0;
    N = R > 0 ? std::min<int64_t>(std::countr_zero(uint32_t(R)), InRange) : InRange;
    break;
  }
  case HighTreeChildren:
    // The rounds 2^j, j >= b(r), whose child r + 2^j is a rank: j < ceil(log2(P - r)).
    N = R >= 0 && R < P
            ? int64_t(std::bit_width(uint32_t(P - R - 1))) - int64_t(std::bit_width(uint32_t(R)))
            : 0;
    break;
  case Size:
    N = sizeCount(Sz, P, W);
    break;
  case Dealt: {
    int64_t G = 0, Groups = 1;
    group(R, P, G, Groups);
    N = share(sizeCount(Sz, P, W), Groups, G, Deal(A));
    break;
  }
  }
  // At most 2^32 trips (a file's coefficients are bounded to 2^31; no loop runs more).
  return uint64_t(std::clamp<int64_t>(N, 0, int64_t(1) << 32));
}

bool TripExpr::mayBeZero() const {
  if (K == Linear)
    return !(A >= 0 && A + B >= 1);
  if (K == Log2 || K == Log2Ceil)
    return !(A >= 0 && B >= 1);
  return true; // Cyclic; TreeChildren: an odd rank has no child; HighTreeChildren: the last rank
               // has none; Size: a small enough problem
}

std::string TripExpr::text() const {
  const auto Affine = [&](const std::string &X) {
    std::string T = (A == 1 ? "" : std::to_string(A) + " * ") + X;
    return B == 0 ? T : T + (B < 0 ? " - " : " + ") + std::to_string(B < 0 ? -B : B);
  };
  switch (K) {
  case Linear:
    return Affine("P");
  case Log2:
    return Affine("log2(P)");
  case Log2Ceil:
    return Affine("ceil(log2(P))");
  case TreeChildren:
    return "min(tz(r), ceil(log2(P - r))) (rank r's children in a binomial tree rooted at 0, tz "
           "its trailing zero bits)";
  case HighTreeChildren:
    return "ceil(log2(P - r)) - bit_width(r), at least 0 (rank r's children in a binomial tree "
           "rooted at 0, children above their parent's bits)";
  case Size:
    return Sz.text() + " (from the problem size W)";
  case Dealt: {
    const std::string S = stepText();
    const bool Ranks = S == "1" && B != 1;
    const std::string Whose = Ranks    ? "rank r's"
                              : B == 1 ? "group r mod " + S + "'s"
                                       : "group r / " + S + "'s";
    const std::string Groups = Ranks ? "the P ranks"
                               : B == 1
                                   ? "the G = " + S + " groups of every " + S + "-th rank"
                                   : "the G = P / " + S + " groups of " + S + " consecutive ranks";
    const std::string Items =
        "C = " + Sz.text() + (Sz.WExp == 0 ? "" : " (from the problem size W)");
    if (A == Blocks)
      return Whose + " block of " + Items + " items in blocks of ceil(C / " + (Ranks ? "P" : "G") +
             ") over " + Groups;
    if (A == LastTakesRest)
      return Whose + " share of " + Items + " items split evenly over " + Groups +
             ", the remainder to the last";
    return Whose + " share of " + Items + " items dealt round-robin to " + Groups;
  }
  case Cyclic: {
    if (GridDims == 0 && SConst == 1)
      return "rank r's of " + std::to_string(A) + " items dealt round-robin to the ranks";
    const std::string S = stepText();
    return "group r / " + S + "'s of " + std::to_string(A) +
           " items dealt round-robin to the P / " + S + " groups of " + S + " consecutive ranks";
  }
  }
  return "?";
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

void CommStructure::finishClasses() {
  LoopDist = std::any_of(Classes.begin(), Classes.end(), [](const RankClass &C) {
    return std::any_of(C.Ops.begin(), C.Ops.end(),
                       [](const OpTemplate &Op) { return !Op.DistTrip.empty(); });
  });
  DynamicFrom = std::any_of(Classes.begin(), Classes.end(), [](const RankClass &C) {
    return std::any_of(C.Ops.begin(), C.Ops.end(), [](const OpTemplate &Op) {
      return Op.FromR == OpTemplate::FromRule::Dynamic;
    });
  });
}

uint32_t CommStructure::maxDist(int R, int P, double W) const {
  uint32_t Max = MaxDist;
  if (!LoopDist)
    return Max;
  uint64_t Trips = 0;
  for (const OpTemplate &Op : classOf(R, P).Ops) {
    if (Op.Ctl == OpTemplate::Control::LoopBegin)
      Trips = Op.Trips.eval(R, P, W);
    for (size_t K = 0; K < Op.DistTrip.size() && K < Op.Dist.size(); ++K) {
      const auto [PerTrip, PerTrips] = Op.DistTrip[K];
      const int64_t Last = std::max<int64_t>(Trips, 1) - 1;
      const int64_t D = int64_t(int32_t(Op.Dist[K])) + std::max<int64_t>(0, PerTrip * Last) +
                        PerTrips * int64_t(Trips);
      Max = uint32_t(std::clamp<int64_t>(D, Max, int64_t(1) << 24));
    }
  }
  return Max;
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

namespace {

static_assert(sizeof(SyntheticEventSource) == 128, "a generated stream is two cache lines");
static_assert(sizeof(Event) == 64 + sizeof(std::vector<estimator::CompletedRequest>),
              "copyEvent copies every field of Event: add the new one there");

/// E = Proto, reusing E.Completed's capacity; the vector's copy (a call, even when empty) was
/// a tenth of the generator's cost, and only completions have one. Refilled: the caller
/// overwrites every completed request, so only their number is copied.
[[gnu::always_inline]] inline void copyEvent(Event &E, const Event &Proto, bool Refilled = false) {
  E.Kind = Proto.Kind;
  E.Mode = Proto.Mode;
  E.Context = Proto.Context;
  E.Found = Proto.Found;
  E.SameBuffer = Proto.SameBuffer; // a rendezvous into it costs sameBufferExtra
  E.Block = Proto.Block;
  E.From = Proto.From;
  E.Peer = Proto.Peer;
  E.Tag = Proto.Tag;
  E.Comm = Proto.Comm;
  E.Count = Proto.Count;
  E.Request = Proto.Request;
  E.Index = Proto.Index;
  if (Proto.Completed.empty())
    E.Completed.clear();
  else if (Refilled)
    E.Completed.resize(Proto.Completed.size());
  else
    E.Completed = Proto.Completed;
}

/// A communicator's lowered events with their peers and matched sources made world ranks:
/// member k is world rank First + k * Step.
void toWorld(std::vector<Event> &Es, int32_t First, int32_t Step) {
  for (Event &E : Es) {
    const bool HasPeer = E.Kind == EventKind::SendStart || E.Kind == EventKind::RecvStart ||
                         E.Kind == EventKind::Probe;
    if (HasPeer && E.Peer >= 0)
      E.Peer = First + E.Peer * Step;
    for (estimator::CompletedRequest &D : E.Completed)
      if (D.Source >= 0)
        D.Source = First + D.Source * Step;
  }
}

} // namespace

bool SyntheticEventSource::next(Event &E) {
  if (Lowered != nullptr && LoweredPos < Lowered->size()) {
    // The cached lowering, its request ids moved to follow this rank's starts.
    copyEvent(E, (*Lowered)[LoweredPos++]);
    E.Index = Pos;
    if (E.Kind == EventKind::SendStart || E.Kind == EventKind::RecvStart) {
      E.Request += Shift;
      LastRequest = E.Request;
    }
    for (estimator::CompletedRequest &D : E.Completed)
      D.Request += Shift;
    return true;
  }
  if (Pos >= Ops->size())
    return false;
  const OpTemplate &Op = (*Ops)[Pos];
  if (Op.Ctl != OpTemplate::Control::None) [[unlikely]] {
    if (Op.Ctl == OpTemplate::Control::LoopBegin) {
      Extra &Xs = extra();
      // Before Trips moves on: the call before this loop may depend on the last loop's.
      if (Dynamic)
        Xs.Entry = callBefore(Pos);
      Xs.Trips = Op.Trips.eval(R, P, W);
      Xs.Trip = 0;
      Pos += Xs.Trips == 0 ? size_t(Op.Span) + 2 : 1; // no trip: past the body and its end
      return next(E);
    }
    if (Op.Ctl == OpTemplate::Control::LoopEnd) {
      Extra &Xs = extra();
      Pos = ++Xs.Trip < Xs.Trips ? Pos - Op.Span : Pos + 1;
      return next(E);
    }
  }
  if (Op.IsColl) {
    ++Pos;
    CollCall C = Op.Coll;
    // On a sub-communicator the call is lowered among its members, as rank Index of Count.
    int32_t Index = R, Count = P, First = 0, Step = 1;
    if (Op.Sub.K != SubComm::None) {
      Op.Sub.place(R, P, Index, Count, First, Step);
      C.Comm = Op.Sub.id(R, P);
    }
    C.Root = Op.Peer.eval(Index, Count);
    const bool Uneven = Op.Share.K == TripExpr::Dealt;
    C.Bytes = Uneven ? Op.count(Index, Count, W) : Op.Bytes.eval(P, W);
    auto &[Base, Events] =
        extra().Cache[{int(C.Kind), C.Root, C.Bytes, C.Elem, C.Commutative, C.Site, C.Comm}];
    if (Events.empty()) {
      Base = LastRequest;
      uint64_t Last = LastRequest;
      std::string Why;
      // Uneven counts: every member's share at this size (once per call a rank generates).
      std::vector<uint64_t> RankBytes;
      if (Uneven) {
        Op.memberCounts(Count, W, RankBytes);
        C.RankBytes = &RankBytes;
      }
      if (!lowerCollective(C, Index, Count, Last, Events, Why)) {
        Failed = true;
        return false;
      }
      if (Op.Sub.K != SubComm::None)
        toWorld(Events, First, Step);
    }
    Lowered = &Events;
    Shift = LastRequest - Base;
    LoweredPos = 0;
    return next(E);
  }
  copyEvent(E, Op.Proto, Op.Sources.size() == Op.Proto.Completed.size());
  if (Op.Sub.K != SubComm::None) [[unlikely]]
    E.Comm = Op.Sub.id(R, P);
  E.Index = Pos++;
  auto StartId = [&](uint32_t Dist) {
    return Dist < UserStarts ? starts()[(UserStarts - 1 - Dist) & StartsMask] : 0;
  };
  switch (E.Kind) {
  case EventKind::SendStart:
  case EventKind::RecvStart:
    E.Request = ++LastRequest;
    starts()[UserStarts++ & StartsMask] = E.Request;
    [[fallthrough]];
  case EventKind::Probe:
    E.Peer = Op.Peer.usesTrip() ? Op.Peer.evalTrip(R, P, extra().Trip, extra().Trips)
                                : Op.Peer.eval(R, P);
    [[fallthrough]];
  case EventKind::Loop:
    E.Count = Op.count(R, P, W);
    break;
  case EventKind::Completion: {
    // Through plain pointers: stores into E.Completed would otherwise reload every vector's
    // bounds (they might alias).
    estimator::CompletedRequest *Out = E.Completed.data();
    const PeerExpr *Sources = Op.Sources.data();
    const uint32_t *Dist = Op.Dist.data();
    const std::pair<int32_t, int32_t> *Tags = Op.Tags.data();
    for (size_t K = 0, N = Op.Sources.size(); K < N; ++K) {
      uint32_t D = Dist[K];
      if (!Op.DistTrip.empty()) [[unlikely]] {
        // In a loop's body: Dist (a signed base) + a * trip + b * trips.
        const auto [PerTrip, PerTrips] = Op.DistTrip[K];
        D = uint32_t(int64_t(int32_t(D)) + PerTrip * int64_t(extra().Trip) +
                     PerTrips * int64_t(extra().Trips));
      }
      Out[K].Request = StartId(D);
      Out[K].Source = Sources[K].usesTrip() ? Sources[K].evalTrip(R, P, extra().Trip, extra().Trips)
                                            : Sources[K].eval(R, P);
      Out[K].Tag = Out[K].Source == estimator::ProcNull ? Tags[K].second : Tags[K].first;
    }
    break;
  }
  case EventKind::RequestFree:
    E.Request = StartId(Op.Dist.empty() ? 0 : Op.Dist[0]);
    break;
  case EventKind::Segment:
    if (Op.FromR != OpTemplate::FromRule::None) [[unlikely]] {
      const Extra &Xs = extra();
      if (Op.FromR == OpTemplate::FromRule::Dynamic)
        E.From = callBefore(Pos - 1);
      else if (Op.FromR == OpTemplate::FromRule::FirstIteration ? Xs.Trip != 0 : Xs.Trips != 0)
        E.From = Op.AltFrom;
    }
    break;
  default:
    break;
  }
  return true;
}

BlockId SyntheticEventSource::callBefore(size_t K) {
  const Extra &Xs = extra();
  bool InBody = false; // walked into the last (or current) loop's body from its end
  while (K-- > 0) {
    const OpTemplate &Op = (*Ops)[K];
    if (Op.Ctl == OpTemplate::Control::LoopEnd) {
      // The last loop: its body's last call, or its entry where it ran no trip.
      if (Xs.Trips == 0)
        return Xs.Entry;
      InBody = true;
    } else if (Op.Ctl == OpTemplate::Control::LoopBegin) {
      // At the body's first op: the entry on the first trip, the body's last call on later
      // ones (a body without a call: the entry).
      if (Xs.Trip == 0 || InBody)
        return Xs.Entry;
      InBody = true;
      K += size_t(Op.Span) + 1; // the loop's end: the walk goes on from the body's last op
    } else if (Op.IsColl) {
      return Op.Coll.Site;
    } else if (Op.Proto.Kind != EventKind::Segment) {
      return Op.Proto.Block;
    }
  }
  return mpiete::ProgramStart;
}

std::string SyntheticEventSource::name() const {
  return "generated rank " + std::to_string(R) + " of " + std::to_string(P);
}

namespace {

struct PeerObs {
  int32_t R, P, V;
  uint64_t T = 0; ///< the trip of the loop around the op
  uint64_t N = 0; ///< the loop's trips on this rank
};
struct BytesObs {
  double P, W;
  uint64_t V;
};

bool fits(const PeerExpr &E, const std::vector<PeerObs> &Obs) {
  for (const PeerObs &O : Obs)
    if (E.evalTrip(O.R, O.P, O.T, O.N) != O.V)
      return false;
  return true;
}

/// How simple a form is, as findPeer ranks them: a fixed rank; a rank-relative one (an offset,
/// a shift, from the end, an xor); a tree's parent; a grid's neighbour; one that moves with the
/// loop's trip.
int simplicity(PeerExpr::Kind K) {
  switch (K) {
  case PeerExpr::Literal:
    return 0;
  case PeerExpr::Offset:
  case PeerExpr::Wrap:
  case PeerExpr::FromEnd:
  case PeerExpr::Xor:
    return 1;
  case PeerExpr::TreeParent:
  case PeerExpr::HighTreeParent:
    return 2;
  case PeerExpr::Grid:
    return 3;
  default:
    return 4;
  }
}

bool sameForm(const PeerExpr &X, const PeerExpr &Y) {
  return X.K == Y.K && X.A == Y.A && X.Dims == Y.Dims && X.Axis == Y.Axis &&
         X.Periodic == Y.Periodic;
}

/// At most this many other forms of one peer, byte count, sub-communicator or trip count are kept
/// beside the one taken (OpTemplate::Alts).
constexpr size_t MaxAlts = 8;

/// The first candidate form that gives every observed peer; false when none does. Alts gets
/// the later candidates as simple as that one that give every observed peer as well (at most
/// MaxAlts): a ring's shift by A and by -A where 2A is a multiple of every measured P, the
/// last rank's r - 1 and r xor 1 where every measured P is even. Which one the program
/// computes, the base runs cannot say; the structure keeps them (OpTemplate::Alts) and refuses
/// a target where they differ. A less simple form that fits as well (a root of 0 and a grid
/// neighbour of rank 0, r - 1 and a tree's parent on odd ranks) is not kept: the simplest
/// explanation of the measured peers is taken, as a model's terms are.
bool findPeer(const std::vector<PeerObs> &Obs, PeerExpr &Out,
              std::vector<PeerExpr> *Alts = nullptr) {
  const PeerObs &F = Obs.front();
  std::vector<PeerExpr> Cands = {{PeerExpr::Literal, F.V}};
  // Seed the rank-relative candidates from an observation that names a real rank.
  for (const PeerObs &O : Obs) {
    if (O.V < 0)
      continue;
    Cands.push_back({PeerExpr::Offset, int64_t(O.V) - O.R});
    // A ring's shift seen at this P is A, A + P or A - P; the nearer first: from 2 and 4 ranks
    // the left neighbour fits both (r - 1) and (r + 3) mod P, and a program writes the first.
    int64_t Shifts[] = {int64_t(O.V) - O.R, int64_t(O.V) - O.R + O.P, int64_t(O.V) - O.R - O.P};
    std::stable_sort(std::begin(Shifts), std::end(Shifts),
                     [](int64_t X, int64_t Y) { return std::abs(X) < std::abs(Y); });
    for (int64_t A : Shifts)
      Cands.push_back({PeerExpr::Wrap, A});
    Cands.push_back({PeerExpr::FromEnd, int64_t(O.P) - O.V});
    Cands.push_back({PeerExpr::Xor, int64_t(O.V ^ O.R)});
    Cands.push_back({PeerExpr::TreeParent, 0});
    Cands.push_back({PeerExpr::HighTreeParent, 0});
    for (uint8_t D : {2, 3})
      for (uint8_t Axis = 0; Axis < D; ++Axis)
        for (int64_t Step : {-1, 1})
          for (bool Periodic : {false, true})
            Cands.push_back({PeerExpr::Grid, Step, D, Axis, Periodic});
    break;
  }
  // In a loop's body: the peer moves with the trip (tried last: a peer that does not move
  // has T = 0 on every flat op's observations and is found above).
  if (std::any_of(Obs.begin(), Obs.end(), [](const PeerObs &O) { return O.T != 0; }))
    for (const PeerObs &O : Obs) {
      if (O.V < 0)
        continue;
      Cands.push_back({PeerExpr::TripOffset, int64_t(O.V) - int64_t(O.T)});
      Cands.push_back({PeerExpr::TripOffsetDown, int64_t(O.V) + int64_t(O.T)});
      // A shift's offset seen modulo this P: the same in [0, P) or below 0 at every P.
      const int64_t Up = ((int64_t(O.V) - O.R - int64_t(O.T)) % O.P + O.P) % O.P,
                    Down = ((int64_t(O.V) - O.R + int64_t(O.T)) % O.P + O.P) % O.P;
      for (int64_t Lap : {int64_t(0), -int64_t(O.P)}) {
        Cands.push_back({PeerExpr::TripWrap, Up + Lap});
        Cands.push_back({PeerExpr::TripWrapDown, Down + Lap});
      }
      // A distance that doubles each trip, 2^(t + A): seen as a power of two 2^e with e at
      // least the exponent's trip term Below (t; n - 1 - t for the farthest first).
      auto Exponent = [&](int64_t D, PeerExpr::Kind K, int64_t Below) {
        if (D > 0 && std::has_single_bit(uint64_t(D)) && std::countr_zero(uint64_t(D)) >= Below)
          Cands.push_back({K, int64_t(std::countr_zero(uint64_t(D))) - Below});
      };
      // A tree's children, before the xor and the wrapped distance (a child is r + 2^t, which
      // r xor 2^t also gives while the bit is clear; a dissemination step's partner passes the
      // last rank on some ranks, a child never does).
      const int64_t T = int64_t(O.T);
      Exponent(int64_t(O.V) - O.R, PeerExpr::TripOffsetPow, T);
      Exponent(int64_t(O.V) ^ O.R, PeerExpr::TripXorPow, T);
      Exponent(((int64_t(O.V) - O.R) % O.P + O.P) % O.P, PeerExpr::TripWrapPow, T);
      Exponent(((int64_t(O.R) - O.V) % O.P + O.P) % O.P, PeerExpr::TripWrapPowDown, T);
      // The farthest child first: 2^(n - 1 - t + A).
      if (O.N > O.T)
        Exponent(int64_t(O.V) - O.R, PeerExpr::TripOffsetPowRev, int64_t(O.N) - 1 - T);
      // The textbook tree's children, above the rank's bits: 2^(t + b(r) + A), tried after
      // the forms whose exponent is the trip's alone (they agree at rank 0).
      const int64_t Bits = int64_t(std::bit_width(uint32_t(O.R)));
      Exponent(int64_t(O.V) - O.R, PeerExpr::TripAbovePow, T + Bits);
      if (O.N > O.T)
        Exponent(int64_t(O.V) - O.R, PeerExpr::TripAbovePowRev, int64_t(O.N) - 1 - T + Bits);
      break;
    }
  bool Found = false;
  for (const PeerExpr &C : Cands) {
    if (Found) {
      // The candidates come simplest first: past Out's rank of simplicity none is kept.
      if (Alts == nullptr || Alts->size() == MaxAlts || simplicity(C.K) != simplicity(Out.K))
        break;
      // A ring's shift is seen modulo each measured P: the nearer one is taken (above), a
      // farther one that fits too ((r + 3) mod P for r - 1 or (r - 1) mod P from 2 and 4 ranks)
      // is no alternative; the mirror, as near, is.
      const bool Farther = C.K == PeerExpr::Wrap &&
                           (Out.K == PeerExpr::Wrap || Out.K == PeerExpr::Offset) &&
                           std::abs(C.A) > std::abs(Out.A);
      if (Farther || sameForm(C, Out) ||
          std::any_of(Alts->begin(), Alts->end(),
                      [&](const PeerExpr &A) { return sameForm(A, C); }))
        continue;
    }
    if (!fits(C, Obs))
      continue;
    if (Found)
      Alts->push_back(C);
    else
      Out = C;
    Found = true;
  }
  return Found;
}

bool exact(const BytesExpr &E, const std::vector<BytesObs> &Obs) {
  for (const BytesObs &O : Obs)
    if (E.eval(O.P, O.W) != O.V)
      return false;
  return true;
}

/// X rounded to an integer when it is one up to the arithmetic's noise (byte counts are
/// integer combinations: a solved 7.9999999999 means 8).
double snap(double X) {
  double N = std::nearbyint(X);
  return std::abs(X - N) <= 1e-7 * std::max(1.0, std::abs(X)) ? N : X;
}

/// The byte count's form over the observations. PreferDims (2 or 3): the grid a message's peer
/// is a neighbour in, whose factors are tried first: 8192 / (d0 d1 of Dims_create(P, 3)) and
/// 4096 / (d1 of Dims_create(P, 2)) agree at 2, 4, 8 and 16 ranks and part at 32. Alts (when
/// given) gets the later forms that fit every observation as well and are as simple as the
/// chosen one (up to 8), as findPeer's: a literal (alone, as a fixed rank is: a count seen at
/// one rank count only is a literal, not c / P); a power of W and P (no constant); one with a
/// constant; a grid's factors (those of PreferDims's grid, or of either grid without one); the
/// other grid's. A literal 2097152 at 2 and 4 ranks and 4194304 / (d0 of Dims_create(P, 2)), a
/// transpose's block on a process row of a grid, are kept side by side. From runs at one
/// size, only forms with the chosen one's power of W (the others are the same function of P).
bool findBytes(const std::vector<BytesObs> &Obs, BytesExpr &Out, uint8_t PreferDims = 0,
               std::vector<BytesExpr> *Alts = nullptr) {
  const BytesObs &F = Obs.front();
  static constexpr double WExps[] = {0.0, 1.0, 2.0, 3.0};
  static constexpr double PExps[] = {0.0, 1.0, 0.5, 2.0, 1.0 / 3};
  bool Found = false;
  int Tier = 0;
  const bool OneSize =
      std::all_of(Obs.begin(), Obs.end(), [&](const BytesObs &O) { return O.W == F.W; });
  // Offers E, of simplicity tier T, in the order tried; true once the search is over.
  auto Offer = [&](const BytesExpr &E, int T) {
    if (Found && T != Tier)
      return true;
    if (!exact(E, Obs))
      return false;
    if (!Found) {
      Out = E;
      Found = true;
      Tier = T;
      return Alts == nullptr;
    }
    // At one size a power of W is no function of P: another exponent is the same form there.
    if (Alts->size() < MaxAlts && (E.WExp == Out.WExp || !OneSize))
      Alts->push_back(E);
    return false;
  };
  for (double WExp : WExps)
    for (double PExp : PExps)
      if (Offer({WExp == 0 && PExp == 0 ? double(F.V)
                                        : double(F.V) * std::pow(F.P, PExp) / std::pow(F.W, WExp),
                 WExp, PExp},
                WExp == 0 && PExp == 0 ? 0 : 1))
        return true;
  // With a constant term: Const and Coeff from two observations whose W^a / P^b differ, and
  // only trusted when a third distinct value confirms them (two points fit any exponents).
  for (double WExp : WExps)
    for (double PExp : PExps) {
      if (WExp == 0 && PExp == 0)
        continue;
      auto X = [&](const BytesObs &O) { return std::pow(O.W, WExp) / std::pow(O.P, PExp); };
      std::vector<double> Xs;
      const BytesObs *Second = nullptr;
      for (const BytesObs &O : Obs) {
        double V = X(O);
        bool Seen = false;
        for (double S : Xs)
          Seen |= std::abs(S - V) <= 1e-9 * std::max(std::abs(S), std::abs(V));
        if (Seen)
          continue;
        Xs.push_back(V);
        if (Xs.size() == 2)
          Second = &O;
      }
      if (Xs.size() < 3)
        continue;
      double Coeff = snap((double(Second->V) - double(F.V)) / (Xs[1] - Xs[0]));
      if (Coeff != 0 && Offer({Coeff, WExp, PExp, snap(double(F.V) - Coeff * Xs[0])}, 2))
        return true;
    }
  // A block decomposition's face: W^a over some of MPI_Dims_create(P, D)'s factors (the other
  // axes' extents), for 2-D and 3-D grids; constant-free, and last: a program the forms
  // above explain keeps its structure.
  for (uint8_t D : {PreferDims == 3 ? 3 : 2, PreferDims == 3 ? 2 : 3})
    for (uint8_t Axes = 1; Axes < (1u << D); ++Axes)
      for (double WExp : WExps) {
        BytesExpr E{0, WExp, 0, 0, D, Axes};
        E.Coeff = snap(double(F.V) * divisor(F.P, 0, D, Axes) / std::pow(F.W, WExp));
        if (Offer(E, PreferDims == 0 || D == PreferDims ? 3 : 4))
          return true;
      }
  return Found;
}

/// A collective call's part of an item, held apart: most items are events, and an item of a
/// point-to-point event then costs the event and its distances only.
struct CollItem {
  CollRecord Rec;
  uint64_t Bytes = 0;         ///< the call's size (CollSim.h: the root's for rooted scatters)
  uint64_t FirstRequest = 0;  ///< the request id the lowering continued from
  std::vector<Event> Lowered; ///< normalised, absolute ids
};

/// A rank's sequence as the learner sees it: events with request ids made relative (Dist), and
/// each collective call as one item holding the messages its lowering produced.
struct Item {
  Event E;
  std::vector<uint32_t> Dist;
  std::unique_ptr<const CollItem> Coll; ///< a collective call (null: an event)
};

/// A rank's items in one run; the items themselves stay in learnStructure's table (every
/// scheme's classes take them from there, not as copies).
struct Member {
  const MeasuredRun *Run;
  int Rank;
  std::span<const Item> Items;
};

/// One measured instance of an op: a member's item; in a loop's body, the trip it belongs to
/// and the member's trip count (after the loop, the trip count alone).
struct Sample {
  const Member *M;
  const Item *It;
  uint64_t Trip = 0, Trips = 0;
};

/// The MPI routine's name, "MPI_" and the trace's collective name with its first letter
/// upper-cased (an out-of-range kind names the barrier).
std::string kindName(trace::CollKind K) {
  std::string Name =
      trace::collKindName(unsigned(K) <= trace::LastCollKind ? K : trace::CollKind::Barrier);
  Name[0] = char(std::toupper((unsigned char)Name[0]));
  return "MPI_" + Name;
}

/// Rank R's events of Run: PerRank's, or read by Load into Scratch; null (Why set) when
/// they cannot be read.
const std::vector<Event> *eventsOf(const MeasuredRun &Run, int R, std::vector<Event> &Scratch,
                                   Refusal &Why) {
  if (size_t(R) < Run.PerRank.size())
    return &Run.PerRank[size_t(R)];
  Scratch.clear();
  if (Run.Load && Run.Load(R, Scratch))
    return &Scratch;
  Why = {0, "the events of rank " + std::to_string(R) + " of " + std::to_string(Run.Ranks) +
                " cannot be read"};
  return nullptr;
}

/// Rank's events as items; false with Why when a completion names a request no user-level start
/// made (a collective's request completed outside it).
bool toItems(const MeasuredRun &Run, int Rank, std::vector<Item> &Out, Refusal &Why) {
  std::vector<Event> Scratch;
  const std::vector<Event> *Events = eventsOf(Run, Rank, Scratch, Why);
  if (Events == nullptr)
    return false;
  const std::vector<Event> &Seq = *Events;
  static const std::vector<CollRecord> NoColls;
  const std::vector<CollRecord> &Colls =
      size_t(Rank) < Run.Colls.size() ? Run.Colls[size_t(Rank)] : NoColls;
  std::vector<uint64_t> Starts; // the ids of the user-level starts, in order
  uint64_t LastRequest = 0;
  size_t NextColl = 0;
  auto DistOf = [&](uint64_t Req, uint32_t &D) {
    for (size_t J = Starts.size(); J-- > 0;)
      if (Starts[J] == Req) {
        D = uint32_t(Starts.size() - 1 - J);
        return true;
      }
    return false;
  };
  for (size_t K = 0; K < Seq.size(); ++K) {
    Item It;
    It.E = Seq[K];
    normaliseEvent(It.E);
    const EventKind Kind = It.E.Kind;
    if (Kind == EventKind::SendStart || Kind == EventKind::RecvStart) {
      Starts.push_back(It.E.Request);
      LastRequest = It.E.Request;
      It.E.Request = 0;
    } else if (Kind == EventKind::Completion || Kind == EventKind::RequestFree) {
      std::vector<uint64_t> Reqs;
      if (Kind == EventKind::RequestFree)
        Reqs.push_back(It.E.Request);
      for (estimator::CompletedRequest &D : It.E.Completed)
        Reqs.push_back(std::exchange(D.Request, 0));
      It.E.Request = 0;
      for (uint64_t Req : Reqs) {
        uint32_t D = 0;
        if (!DistOf(Req, D)) {
          Why = {It.E.Block, "rank " + std::to_string(Rank) + " of " + std::to_string(Run.Ranks) +
                                 " completes request " + std::to_string(Req) +
                                 " here, which no user-level call started"};
          return false;
        }
        It.Dist.push_back(D);
      }
    }
    Out.push_back(std::move(It));
    if (Kind != EventKind::Segment || NextColl == Colls.size() ||
        Colls[NextColl].Site != Seq[K].Block)
      continue;
    // A collective call: its lowered messages follow under its site until the next call.
    auto C = std::make_unique<CollItem>();
    C->Rec = Colls[NextColl];
    if (std::string NotLowered = collNotLowered(C->Rec.Kind); !NotLowered.empty()) {
      Why = {C->Rec.Site, std::move(NotLowered)};
      return false;
    }
    C->FirstRequest = LastRequest;
    C->Bytes = C->Rec.Bytes;
    if (collBytesFromRoot(C->Rec.Kind) && C->Rec.Root >= 0 &&
        size_t(C->Rec.Root) < Run.Colls.size() && NextColl < Run.Colls[size_t(C->Rec.Root)].size())
      C->Bytes = Run.Colls[size_t(C->Rec.Root)][NextColl].Bytes;
    ++NextColl;
    while (K + 1 < Seq.size() && Seq[K + 1].Block == C->Rec.Site &&
           (Seq[K + 1].Kind == EventKind::SendStart || Seq[K + 1].Kind == EventKind::RecvStart ||
            Seq[K + 1].Kind == EventKind::Completion)) {
      Event L = Seq[++K];
      normaliseEvent(L);
      if (L.Kind != EventKind::Completion)
        LastRequest = L.Request;
      C->Lowered.push_back(std::move(L));
    }
    Item CI;
    CI.E.Block = C->Rec.Site;
    CI.Coll = std::move(C);
    Out.push_back(std::move(CI));
  }
  return true;
}

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

bool sameEvents(const std::vector<Event> &A, const std::vector<Event> &B) {
  if (A.size() != B.size())
    return false;
  for (size_t K = 0; K < A.size(); ++K)
    if (!sameEvent(A[K], B[K]))
      return false;
  return true;
}

/// The comm-create record of communicator Id on M's rank, or null.
const CommCreateRecord *creationOf(const Member &M, uint64_t Id) {
  if (size_t(M.Rank) >= M.Run->Comms.size())
    return nullptr;
  for (const CommCreateRecord &C : M.Run->Comms[size_t(M.Rank)])
    if (C.NewComm == Id)
      return &C;
  return nullptr;
}

/// The sub-communicator every member's Ids[i] is, as a function of (r, P): its creation
/// records' members (a block or a stride of world ranks), parent and creation count; false
/// with Why (at Site, about What) when none fits. Alts gets the later forms that fit every
/// member as well (up to MaxAlts): blocks of 2 ranks at 2 and 4 ranks are the process rows of
/// MPI_Dims_create(P, 2)'s grid as well.
bool learnSub(const std::vector<Sample> &Members, const std::vector<uint64_t> &Ids, BlockId Site,
              const std::string &What, SubComm &Out, Refusal &Why,
              std::vector<OpTemplate::Alt> &Alts) {
  std::vector<const CommCreateRecord *> Creations;
  for (size_t I = 0; I < Members.size(); ++I) {
    const CommCreateRecord *C = creationOf(*Members[I].M, Ids[I]);
    if (C == nullptr || C->Members.empty()) {
      Why = {Site, What +
                       " on a communicator without every rank of the world whose creation "
                       "the trace does not show (rank " +
                       std::to_string(Members[I].M->Rank) + " of " +
                       std::to_string(Members[I].M->Run->Ranks) + ")"};
      return false;
    }
    Creations.push_back(C);
  }
  const uint64_t Parent = Creations.front()->Parent;
  auto MinOf = [](const CommCreateRecord &C) {
    return *std::min_element(C.Members.begin(), C.Members.end());
  };
  SubComm S;
  S.Parent = Parent;
  bool SeqFound = false;
  for (uint32_t Seq = 0; Seq < 4096 && !SeqFound; ++Seq)
    if (childCommId(Parent, Seq, MinOf(*Creations.front())) == Creations.front()->NewComm) {
      S.Seq = Seq;
      SeqFound = true;
    }
  for (const CommCreateRecord *C : Creations)
    if (!SeqFound || C->Parent != Parent || childCommId(Parent, S.Seq, MinOf(*C)) != C->NewComm) {
      Why = {Site, What + " on communicators made from different parents, or by different "
                          "calls, on different ranks or runs"};
      return false;
    }
  auto Fits = [&](const SubComm &Cand) {
    for (size_t I = 0; I < Members.size(); ++I) {
      const CommCreateRecord &C = *Creations[I];
      int32_t Index, Count, First, Step;
      Cand.place(Members[I].M->Rank, Members[I].M->Run->Ranks, Index, Count, First, Step);
      if (size_t(Count) != C.Members.size())
        return false;
      for (int32_t K = 0; K < Count; ++K)
        if (C.Members[size_t(K)] != First + K * Step)
          return false;
    }
    return true;
  };
  const CommCreateRecord &F = *Creations.front();
  bool Found = false;
  size_t Kept = 0;
  // Offers S; true once the search is over.
  auto Offer = [&] {
    if (!Fits(S))
      return false;
    if (!Found) {
      Out = S;
      Found = true;
    } else if (Kept++ < MaxAlts) {
      Alts.push_back(OpTemplate::Alt::comm(S));
    }
    return Kept == MaxAlts;
  };
  for (SubComm::Kind K : {SubComm::Block, SubComm::Stride}) {
    S.K = K;
    S.GridDims = S.GridAxes = 0;
    S.Const = K == SubComm::Block     ? int32_t(F.Members.size())
              : F.Members.size() >= 2 ? F.Members[1] - F.Members[0]
                                      : Members.front().M->Run->Ranks;
    if (Offer())
      return true;
    for (uint8_t D : {2, 3})
      for (uint8_t Axes = 1; Axes < (1u << D); ++Axes) {
        S.GridDims = D;
        S.GridAxes = Axes;
        if (Offer())
          return true;
      }
  }
  if (Found)
    return true;
  Why = {Site, What + " on a communicator whose members are no block or stride of the world "
                      "ranks (a constant or MPI_Dims_create factors) on every measured rank"};
  return false;
}

/// Per completed request of Ss (a body's completion), Dist = D + a * t + b * n on trip t of n:
/// a from two trips of one loop, b from one trip of loops of different lengths; false when no
/// integer a, b give every sample's.
bool fitDistTrip(const std::vector<Sample> &Ss, OpTemplate &Op) {
  Op.DistTrip.assign(Op.Dist.size(), {0, 0});
  for (size_t K = 0; K < Op.Dist.size(); ++K) {
    auto D = [&](const Sample &S) { return int64_t(S.It->Dist[K]); };
    int64_t A = 0, B = 0;
    for (const Sample &X : Ss)
      for (const Sample &Y : Ss) {
        if (A == 0 && X.Trips == Y.Trips && Y.Trip > X.Trip &&
            (D(Y) - D(X)) % int64_t(Y.Trip - X.Trip) == 0)
          A = (D(Y) - D(X)) / int64_t(Y.Trip - X.Trip);
        if (B == 0 && X.Trip == Y.Trip && Y.Trips > X.Trips &&
            (D(Y) - D(X)) % int64_t(Y.Trips - X.Trips) == 0)
          B = (D(Y) - D(X)) / int64_t(Y.Trips - X.Trips);
      }
    const Sample &F = Ss.front();
    const int64_t Base = D(F) - A * int64_t(F.Trip) - B * int64_t(F.Trips);
    for (const Sample &X : Ss)
      if (Base + A * int64_t(X.Trip) + B * int64_t(X.Trips) != D(X))
        return false;
    if (Base < INT32_MIN || Base > INT32_MAX)
      return false;
    Op.Dist[K] = uint32_t(int32_t(Base));
    Op.DistTrip[K] = {int32_t(A), int32_t(B)};
  }
  return true;
}

/// Where an op lies relative to the class's loop: its Segments' starts are learnt by it.
enum class Where : uint8_t { Flat, Body, After };

struct TripObs {
  int32_t R, P;
  uint64_t N;
  double W; ///< the run's problem size
};

/// Whether an item count C(W) = Const + Coeff * W^WExp (fitted at P = 1) is a whole number at
/// every integer size W.
bool wholeAtEverySize(const BytesExpr &C) {
  auto Integer = [](double V) { return std::isfinite(V) && V == std::floor(V); };
  return C.GridDims == 0 && Integer(C.Const) && Integer(C.Coeff) &&
         (C.WExp == 0 || (C.WExp >= 1 && Integer(C.WExp)));
}

/// Items dealt to groups of consecutive ranks (TripExpr::Dealt): at each size measured, the
/// item count C that every observation there pins (searched in the window the largest count
/// bounds: it is at least floor(C / G) and at most floor(C / G) + G - 1), then C's form over
/// the sizes (a byte count's, at P = 1). Round-robin first, then blocks, then the rest to the
/// last; of the group sizes that fit, one whose item count is whole at every size, then, as
/// for Cyclic, the one with the fewest items. False when no way gives every observation. Alts
/// (when given) gets every other way that fits: the base runs cannot say which one the program
/// deals by (CommStructure::settleAlternatives keeps those that differ somewhere).
bool findDealt(const std::vector<TripObs> &Obs, TripExpr &Out,
               std::vector<TripExpr> *Alts = nullptr) {
  if (Obs.empty())
    return false;
  std::vector<double> Ws;
  for (const TripObs &O : Obs)
    if (std::find(Ws.begin(), Ws.end(), O.W) == Ws.end())
      Ws.push_back(O.W);
  bool Found = false, WholeOut = false;
  int64_t Fewest = 0;         // Out's items at the first size
  std::vector<TripExpr> Fits; // every way that fits, Out among them
  auto Try = [&](TripExpr E) {
    // S must divide every measured rank count.
    if (std::any_of(Obs.begin(), Obs.end(),
                    [&](const TripObs &O) { return O.P % E.step(O.P) != 0; }))
      return;
    std::vector<BytesObs> Items;
    for (double W : Ws) {
      const TripObs *Big = nullptr;
      for (const TripObs &O : Obs)
        if (O.W == W && (Big == nullptr || O.N > Big->N))
          Big = &O;
      int64_t Unused = 0, G = 1;
      E.group(Big->R, Big->P, Unused, G);
      const int64_t N = int64_t(Big->N);
      const int64_t Lo = std::max<int64_t>(0, G * (N - G + 1)), Hi = G * (N + 1);
      if (Hi - Lo > (int64_t(1) << 16))
        return;
      int64_t Pinned = -1;
      for (int64_t C = Lo; C <= Hi; ++C) {
        const bool All = std::all_of(Obs.begin(), Obs.end(), [&](const TripObs &O) {
          int64_t Gr = 0, Groups = 1;
          E.group(O.R, O.P, Gr, Groups);
          return O.W != W || TripExpr::share(C, Groups, Gr, TripExpr::Deal(E.A)) == int64_t(O.N);
        });
        if (!All)
          continue;
        if (Pinned >= 0)
          return; // C not pinned by the runs: not guessed
        Pinned = C;
      }
      if (Pinned < 0)
        return;
      Items.push_back({1.0, W, uint64_t(Pinned)});
    }
    // Every S-th rank's share of a constant count would be a pattern of the rank's residue
    // mod S (a tree's odd ranks against its even ones), which any count with a period fits:
    // strides only where the count follows the size.
    if (!findBytes(Items, E.Sz) || (E.B == 1 && E.Sz.WExp == 0) ||
        !std::all_of(Obs.begin(), Obs.end(),
                     [&](const TripObs &O) { return E.eval(O.R, O.P, O.W) == O.N; }))
      return;
    Fits.push_back(E);
    // The first way that fits anything wins; within it, an item count that is whole at every
    // integer size (n items, not n / 2: base runs at even sizes and even rank counts cannot
    // tell n rows dealt to ranks from n / 2 pairs of rows dealt to pairs of ranks), then the
    // fewest items.
    const bool Whole = wholeAtEverySize(E.Sz);
    if (Found && (E.A != Out.A || (WholeOut && !Whole) ||
                  (WholeOut == Whole && Fewest <= int64_t(Items.front().V))))
      return;
    Out = E;
    Found = true;
    WholeOut = Whole;
    Fewest = int64_t(Items.front().V);
  };
  for (TripExpr::Deal D : {TripExpr::RoundRobin, TripExpr::Blocks, TripExpr::LastTakesRest}) {
    // Groups of consecutive ranks first, then every S-th rank (a row-major grid's columns).
    for (int64_t Stride : {0, 1}) {
      TripExpr E;
      E.K = TripExpr::Dealt;
      E.A = D;
      E.B = Stride;
      for (int32_t S = int32_t(Stride) + 1; S <= 16; ++S) {
        E.SConst = S;
        Try(E);
      }
      E.SConst = 1;
      for (uint8_t Dims : {2, 3})
        for (uint8_t Axes = 1; Axes < (1u << Dims); ++Axes) {
          E.GridDims = Dims;
          E.GridAxes = Axes;
          Try(E);
        }
    }
  }
  if (!Found)
    return false;
  // Out is the first way by the order above (round-robin first, then the fewest items).
  if (Alts != nullptr)
    for (const TripExpr &E : Fits)
      if (E.A != Out.A || E.B != Out.B || E.SConst != Out.SConst || E.GridDims != Out.GridDims ||
          E.GridAxes != Out.GridAxes)
        Alts->push_back(E);
  return true;
}

/// A byte count of the rank's share of items (OpTemplate::Share): c * s + c0 with s a group's
/// share (findDealt) of C(W) items, or c * W * s (a transpose's block of n * nloc values: every
/// count divisible by its run's size, no constant). c is the largest common divisor of the
/// differences between one run's ranks (or a divisor of it, down to a sixteenth), c0 the
/// counts' common residue mod c plus a few multiples of c (a halo of nloc + 2 values with its
/// corners). False when the counts do not differ between the ranks of a run, or none fits.
bool findShareBytes(const std::vector<TripObs> &Counts, OpTemplate &Op) {
  for (int WExp : {0, 1}) {
    std::vector<TripObs> Per(Counts); // the counts over W^WExp
    bool Whole = true;
    for (TripObs &O : Per) {
      const double W = WExp == 0 ? 1 : O.W;
      Whole = Whole && W >= 1 && W == std::floor(W) && W < 1e15 && O.N % uint64_t(W) == 0;
      if (Whole)
        O.N /= uint64_t(W);
    }
    if (!Whole)
      continue;
    uint64_t G = 0;
    for (size_t I = 0; I < Per.size(); ++I)
      for (size_t J = I + 1; J < Per.size(); ++J)
        if (Per[I].P == Per[J].P && Per[I].W == Per[J].W)
          G = std::gcd(G, Per[I].N > Per[J].N ? Per[I].N - Per[J].N : Per[J].N - Per[I].N);
    if (G == 0)
      return false; // the same on every rank of each run
    std::vector<TripObs> Shares(Per);
    for (uint64_t D = 1; D <= 16; ++D) {
      if (G % D != 0)
        continue;
      const int64_t C = int64_t(G / D), Residue = int64_t(Per.front().N) % C;
      if (std::any_of(Per.begin(), Per.end(),
                      [&](const TripObs &O) { return int64_t(O.N) % C != Residue; }))
        continue;
      for (int64_t K : {0, 1, 2, 3, 4, -1, -2}) {
        const int64_t Const = Residue + K * C;
        if (WExp != 0 && Const != 0)
          continue;
        bool Ok = true;
        for (size_t I = 0; I < Per.size() && Ok; ++I) {
          const int64_t N = int64_t(Per[I].N) - Const;
          Ok = N >= 0;
          Shares[I].N = uint64_t(N / C);
        }
        TripExpr E;
        std::vector<TripExpr> Ways;
        if (!Ok || !findDealt(Shares, E, &Ways))
          continue;
        Op.Share = E;
        for (const TripExpr &T : Ways)
          Op.Alts.push_back(OpTemplate::Alt::loop(T, OpTemplate::Alt::Share));
        Op.Bytes = BytesExpr{};
        Op.Bytes.Coeff = double(C);
        Op.Bytes.WExp = double(WExp);
        Op.Bytes.Const = double(Const);
        return true;
      }
    }
  }
  return false;
}

/// A collective's element size and commutativity: the first that makes the runtime's lowering
/// reproduce every member's measured messages. False with Why otherwise.
bool learnColl(const std::vector<Sample> &Members, OpTemplate &Op, Refusal &Why) {
  const CollRecord &Ref = Members.front().It->Coll->Rec;
  const std::string Name = kindName(Ref.Kind);
  bool Sub = false;
  std::vector<uint64_t> Ids;
  for (const Sample &M : Members) {
    const CollRecord &Rec = M.It->Coll->Rec;
    if (Rec.Kind != Ref.Kind) {
      Why = {Ref.Site,
             "ranks call different collectives here (" + Name + ", " + kindName(Rec.Kind) + ")"};
      return false;
    }
    Sub |= !Rec.WorldGroup || Rec.Comm != Ref.Comm;
    Ids.push_back(Rec.Comm);
  }
  // On a sub-communicator: each member's place in it (on the world: rank R of P).
  if (Sub && !learnSub(Members, Ids, Ref.Site, Name, Op.Sub, Why, Op.Alts))
    return false;
  struct Place {
    int32_t Index, Count, First, Step;
  };
  std::vector<Place> Places;
  for (const Sample &M : Members) {
    Place Pl{M.M->Rank, M.M->Run->Ranks, 0, 1};
    if (Sub)
      Op.Sub.place(M.M->Rank, M.M->Run->Ranks, Pl.Index, Pl.Count, Pl.First, Pl.Step);
    Places.push_back(Pl);
  }
  // The root as a rank of the communicator: a function of the rank's index and the count.
  auto CommRoot = [&](size_t I) {
    const int32_t Root = Members[I].It->Coll->Rec.Root;
    const Place &Pl = Places[I];
    if (Root < 0 || !Sub)
      return Root;
    const int32_t D = Root - Pl.First;
    return D >= 0 && D % Pl.Step == 0 && D / Pl.Step < Pl.Count ? D / Pl.Step : -3;
  };
  std::vector<PeerObs> Roots;
  std::vector<BytesObs> Bytes;
  for (size_t I = 0; I < Members.size(); ++I) {
    Roots.push_back({Places[I].Index, Places[I].Count, CommRoot(I)});
    Bytes.push_back(
        {double(Members[I].M->Run->Ranks), Members[I].M->Run->Size, Members[I].It->Coll->Bytes});
  }
  std::vector<PeerExpr> Alts;
  if (!findPeer(Roots, Op.Peer, &Alts)) {
    Why = {Ref.Site, Name + ": the root is no function of the rank and the size"};
    return false;
  }
  for (const PeerExpr &A : Alts)
    Op.Alts.push_back(OpTemplate::Alt::peer(0, A));
  // The first element size and commutativity whose lowering reproduces every member's
  // messages, with equal counts or (Uneven) every member's count at its run's size.
  bool Uneven = false;
  std::map<std::pair<int32_t, double>, std::vector<uint64_t>> RankBytes; // by (count, size)
  auto RankBytesAt = [&](int32_t Count, double W) -> const std::vector<uint64_t> * {
    if (!Uneven)
      return nullptr;
    std::vector<uint64_t> &B = RankBytes[{Count, W}];
    if (B.empty())
      Op.memberCounts(Count, W, B);
    return &B;
  };
  std::vector<Event> Got;
  std::string SimWhy;
  auto Lowers = [&] {
    for (uint32_t Elem : {8u, 4u, 16u, 2u, 1u})
      for (bool Commutative : {true, false}) {
        bool Ok = true;
        for (size_t I = 0; I < Members.size() && Ok; ++I) {
          const CollItem &It = *Members[I].It->Coll;
          const Place &Pl = Places[I];
          CollCall C{Ref.Kind, CommRoot(I), It.Bytes, Elem, Commutative, Ref.Site, It.Rec.Comm};
          C.RankBytes = RankBytesAt(Pl.Count, Members[I].M->Run->Size);
          uint64_t Last = It.FirstRequest;
          Got.clear();
          Ok = It.Bytes % Elem == 0 && lowerCollective(C, Pl.Index, Pl.Count, Last, Got, SimWhy);
          if (Ok && Sub)
            toWorld(Got, Pl.First, Pl.Step);
          Ok = Ok && sameEvents(Got, It.Lowered);
        }
        if (Ok) {
          Op.IsColl = true;
          Op.Coll = {Ref.Kind, -1, 0, Elem, Commutative, Ref.Site, Sub ? 0 : Ref.Comm};
          Op.Proto = Event{};
          Op.Proto.Block = Ref.Site;
          return true;
        }
      }
    return false;
  };
  // On a grid's row or column, the grid's factors first (a transpose's block on a process row).
  std::vector<BytesExpr> BytesAlts;
  const bool Equal = findBytes(Bytes, Op.Bytes, Sub ? Op.Sub.GridDims : uint8_t(0), &BytesAlts);
  if (Equal && Lowers()) {
    for (const BytesExpr &B : BytesAlts)
      Op.Alts.push_back(OpTemplate::Alt::count(B));
    return true;
  }
  // Counts that differ between one run's members (a v-variant's blocks as even as they come):
  // each member's share of items (findShareBytes), every member's count at the run's size
  // handed to the lowering. A scatter's member records nothing of its own: its count is what
  // it receives, and the root's, which it keeps, must make up the root's record.
  const bool Scatter = Ref.Kind == trace::CollKind::Scatterv;
  std::vector<TripObs> Counts;
  for (size_t I = 0; I < Members.size() && collHasRankBytes(Ref.Kind); ++I) {
    const CollItem &It = *Members[I].It->Coll;
    uint64_t Own = It.Bytes;
    if (Scatter) {
      if (Places[I].Index == CommRoot(I))
        continue;
      Own = 0;
      for (const Event &E : It.Lowered)
        Own += E.Kind == EventKind::RecvStart ? E.Count : 0;
    }
    Counts.push_back({Places[I].Index, Places[I].Count, Own, Members[I].M->Run->Size});
  }
  OpTemplate Shares;
  // Whether the members' counts with share S make up every scatter root's record.
  auto RootsAgree = [&](const TripExpr &S) {
    for (size_t I = 0; I < Members.size() && Scatter; ++I)
      if (Places[I].Index == CommRoot(I)) {
        uint64_t Sum = 0;
        for (int32_t J = 0; J < Places[I].Count; ++J)
          Sum += Shares.countOfShare(S, J, Places[I].Count, Members[I].M->Run->Size);
        if (Sum != Members[I].It->Coll->Bytes)
          return false;
      }
    return true;
  };
  Uneven = !Counts.empty() && findShareBytes(Counts, Shares) && RootsAgree(Shares.Share);
  if (Uneven) {
    Op.Bytes = Shares.Bytes;
    Op.Share = Shares.Share;
    if (Lowers()) {
      // The other ways of dealing, where they make up a scatter root's record as well.
      for (const OpTemplate::Alt &A : Shares.Alts)
        if (RootsAgree(A.Trips))
          Op.Alts.push_back(A);
      return true;
    }
  }
  if (!Equal && !Uneven) {
    Why = {Ref.Site, Name +
                         ": the byte count is no exact c0 + c * W^a / P^b, nor c * W^a over "
                         "factors of MPI_Dims_create(P)" +
                         (collHasRankBytes(Ref.Kind) ? ", nor a member's share of items" : "") +
                         ", over the measured runs"};
    return false;
  }
  Why = {Ref.Site,
         Name + ": the measured messages are not the runtime's lowering of this call " +
             (Uneven ? std::string("with each member's share as its count (an all-to-all's "
                                   "blocks their outer product)")
                     : std::string("with equal counts on every rank (e.g. a v-variant with "
                                   "uneven counts)"))};
  return false;
}

/// Learns one op from its measured instances; false with Why when nothing explains them.
bool learnOp(const std::vector<Sample> &Ss, Where W, OpTemplate &Op, uint32_t &MaxDist,
             Refusal &Why) {
  const Item &Ref = *Ss.front().It;
  if (Ref.Coll)
    return learnColl(Ss, Op, Why);
  auto Fail = [&](BlockId Site, std::string Message) {
    Why = {Site, std::move(Message)};
    return false;
  };
  const Event &RE = Ref.E;
  Op.Proto = RE;
  const bool HasPeer = RE.Kind == EventKind::SendStart || RE.Kind == EventKind::RecvStart ||
                       RE.Kind == EventKind::Probe;
  const bool HasCount = HasPeer || RE.Kind == EventKind::Loop;
  std::vector<PeerObs> Peers;
  std::vector<BytesObs> Bytes;
  std::vector<TripObs> Counts; // the byte counts with their ranks
  for (const Sample &S : Ss) {
    const Event &E = S.It->E;
    // The same-buffer flag (a rendezvous receive into a buffer the rank has just sent from
    // costs more) depends on the addresses of the last few sends, which can differ between
    // ranks at a boundary; it is generated where every measured rank had it.
    Op.Proto.SameBuffer &= E.SameBuffer;
    Peers.push_back({S.M->Rank, S.M->Run->Ranks, E.Peer, S.Trip, S.Trips});
    Bytes.push_back({double(S.M->Run->Ranks), S.M->Run->Size, E.Count});
    Counts.push_back({S.M->Rank, S.M->Run->Ranks, E.Count, S.M->Run->Size});
  }
  Op.Dist = Ref.Dist;
  if (std::any_of(Ss.begin(), Ss.end(), [&](const Sample &S) { return S.It->Dist != Ref.Dist; })) {
    // In a loop's body, a wait for the request an earlier loop started on the same trip:
    // Dist = D + a * t + b * n on trip t of n, for each completed request.
    if (W != Where::Body || RE.Kind != EventKind::Completion ||
        std::any_of(Ss.begin(), Ss.end(),
                    [&](const Sample &S) { return S.It->Dist.size() != Ref.Dist.size(); }) ||
        !fitDistTrip(Ss, Op))
      return Fail(RE.Block, describeEvent(RE) + ": completes requests started at other calls on "
                                                "different ranks");
  } else {
    for (uint32_t D : Op.Dist)
      MaxDist = std::max(MaxDist, D);
  }
  // A computation that starts after the loop's last call on some trips and after the call
  // before the loop on others (its first trip; after a loop that ran no trip).
  if (RE.Kind == EventKind::Segment && W != Where::Flat &&
      std::any_of(Ss.begin(), Ss.end(), [&](const Sample &S) { return S.It->E.From != RE.From; })) {
    std::optional<BlockId> Entry, Back;
    bool Fixed = true;
    for (const Sample &S : Ss) {
      const bool IsEntry = W == Where::Body ? S.Trip == 0 : S.Trips == 0;
      std::optional<BlockId> &Slot = IsEntry ? Entry : Back;
      Fixed &= !Slot || *Slot == S.It->E.From;
      Slot = S.It->E.From;
    }
    if (Fixed) {
      Op.FromR =
          W == Where::Body ? OpTemplate::FromRule::FirstIteration : OpTemplate::FromRule::AfterLoop;
      Op.Proto.From = Entry.value_or(0);
      Op.AltFrom = Back.value_or(0);
    } else {
      // The loop's entry itself moves (the loop before it ran trips on some ranks and none on
      // others): the computation starts at the call made last, whichever it was.
      for (const Sample &S : Ss) {
        const Item *Items = S.M->Items.data();
        if (S.It->E.From != (S.It == Items ? mpiete::ProgramStart : (S.It - 1)->E.Block))
          return Fail(RE.Block, "the computation before this call starts at different calls on "
                                "different ranks or trips of the loop around it");
      }
      Op.FromR = OpTemplate::FromRule::Dynamic;
      Op.AltFrom = 0;
    }
  }
  // A communicator whose id differs between ranks or runs: a sub-communicator, its id
  // computed per rank (the peers stay world ranks).
  if (HasPeer &&
      std::any_of(Ss.begin(), Ss.end(), [&](const Sample &S) { return S.It->E.Comm != RE.Comm; })) {
    std::vector<uint64_t> Ids;
    for (const Sample &S : Ss)
      Ids.push_back(S.It->E.Comm);
    if (!learnSub(Ss, Ids, RE.Block, describeEvent(RE), Op.Sub, Why, Op.Alts))
      return false;
    Op.Proto.Comm = 0;
  }
  std::vector<PeerExpr> Alts;
  if (HasPeer && !findPeer(Peers, Op.Peer, &Alts))
    return Fail(RE.Block, describeEvent(RE) + ": no function of the rank and the size gives the "
                                              "peer on every measured rank");
  for (const PeerExpr &A : Alts)
    Op.Alts.push_back(OpTemplate::Alt::peer(0, A));
  std::vector<BytesExpr> BytesAlts;
  if (HasCount && findBytes(Bytes, Op.Bytes,
                            Op.Peer.K == PeerExpr::Grid ? Op.Peer.Dims : uint8_t(0), &BytesAlts)) {
    for (const BytesExpr &B : BytesAlts)
      Op.Alts.push_back(OpTemplate::Alt::count(B));
  } else if (HasCount && !(HasPeer && findShareBytes(Counts, Op))) {
    return Fail(RE.Block,
                describeEvent(RE) +
                    ": the byte count is no exact c0 + c * W^a / P^b, nor c * W^a over factors "
                    "of MPI_Dims_create(P), over the measured runs");
  }
  if (RE.Kind == EventKind::Completion)
    for (size_t J = 0; J < RE.Completed.size(); ++J) {
      Peers.clear();
      std::pair<int32_t, int32_t> Tags{RE.Completed[J].Tag, RE.Completed[J].Tag};
      for (const Sample &S : Ss) {
        const Event &E = S.It->E;
        Peers.push_back({S.M->Rank, S.M->Run->Ranks, E.Completed[J].Source, S.Trip, S.Trips});
        (E.Completed[J].Source == estimator::ProcNull ? Tags.second : Tags.first) =
            E.Completed[J].Tag;
      }
      Op.Tags.push_back(Tags);
      PeerExpr Src;
      Alts.clear();
      if (!findPeer(Peers, Src, &Alts))
        return Fail(RE.Block, "a completed receive's matched source is no function of the rank "
                              "and the size (a wildcard receive matched in a varying order)");
      Op.Sources.push_back(Src);
      for (const PeerExpr &A : Alts)
        Op.Alts.push_back(OpTemplate::Alt::peer(uint32_t(Op.Sources.size()), A));
    }
  return true;
}

/// Two items are the same call of the same kind (the fields that vary with (r, P) aside).
bool sameShape(const Item &X, const Item &Y) {
  return X.E.Kind == Y.E.Kind && X.E.Block == Y.E.Block && !X.Coll == !Y.Coll;
}

/// The first trip-count form that gives every observation: A * P + B or A * log2(P) + B
/// (three rank counts or more, integer coefficients), then C items dealt round-robin to groups
/// of S ranks (S a constant dividing every P, then MPI_Dims_create factors), C determined by the
/// observations. False when none does. Alts (when given) gets the other forms of the same
/// family that fit every observation as well (up to 8; the families: a linear and a log2
/// count, the trees, round-robin of as many items, the size's): C items dealt to groups of 2
/// ranks at 2 and 4 ranks are dealt to the process rows of MPI_Dims_create(P, 2)'s grid as
/// well.
bool findTrips(const std::vector<TripObs> &Obs, TripExpr &Out,
               std::vector<TripExpr> *Alts = nullptr) {
  auto Keep = [&](const TripExpr &E) {
    if (Alts != nullptr && Alts->size() < MaxAlts)
      Alts->push_back(E);
  };
  bool Found = false;
  std::vector<int32_t> Ps;
  for (const TripObs &O : Obs)
    if (std::find(Ps.begin(), Ps.end(), O.P) == Ps.end())
      Ps.push_back(O.P);
  auto Fits = [&](const TripExpr &E) {
    return std::all_of(Obs.begin(), Obs.end(),
                       [&](const TripObs &O) { return E.eval(O.R, O.P, O.W) == O.N; });
  };
  if (Ps.size() >= 3)
    for (TripExpr::Kind K : {TripExpr::Linear, TripExpr::Log2, TripExpr::Log2Ceil}) {
      auto X = [&](int32_t P) {
        return K == TripExpr::Linear ? int64_t(P)
               : K == TripExpr::Log2 ? int64_t(std::bit_width(uint32_t(P))) - 1
                                     : int64_t(std::bit_width(uint32_t(P - 1)));
      };
      const TripObs &O1 = Obs.front();
      const auto O2 =
          std::find_if(Obs.begin(), Obs.end(), [&](const TripObs &O) { return X(O.P) != X(O1.P); });
      if (O2 == Obs.end())
        continue;
      const int64_t DN = int64_t(O2->N) - int64_t(O1.N), DX = X(O2->P) - X(O1.P);
      if (DN % DX != 0 || DN == 0)
        continue;
      TripExpr E;
      E.K = K;
      E.A = DN / DX;
      E.B = int64_t(O1.N) - E.A * X(O1.P);
      // Exact, not clamped at 0 (eval's floor is for targets beyond the runs).
      if (std::all_of(Obs.begin(), Obs.end(),
                      [&](const TripObs &O) { return E.A * X(O.P) + E.B == int64_t(O.N); })) {
        // floor and ceiling of log2(P) fit the same runs only where every run is at a power
        // of two, which TripExpr::powerOfTwoOnly's gate answers for already.
        if (Found) {
          if (K == TripExpr::Linear || Out.K == TripExpr::Linear)
            Keep(E);
          continue;
        }
        Out = E;
        Found = true;
        if (Alts == nullptr)
          return true;
      }
    }
  if (Found)
    return true;
  // A binomial tree's children: no coefficient to solve, so any two rank counts determine it;
  // some rank must have two children or more (the loop's doubling seen at all).
  for (TripExpr::Kind K : {TripExpr::TreeChildren, TripExpr::HighTreeChildren}) {
    TripExpr E;
    E.K = K;
    if (Ps.size() >= 2 &&
        std::any_of(Obs.begin(), Obs.end(), [](const TripObs &O) { return O.N >= 2; }) && Fits(E)) {
      if (Found) {
        Keep(E);
        continue;
      }
      Out = E;
      Found = true;
      if (Alts == nullptr)
        return true;
    }
  }
  if (Found)
    return true;
  // Round-robin: C from the interval every observation allows.
  std::vector<TripExpr> Cyclics; // every group size that fits
  auto Cyclic = [&](TripExpr E) {
    int64_t Lo = 1, Hi = INT64_MAX;
    for (const TripObs &O : Obs) {
      const int64_t S = E.step(O.P);
      if (O.P % S != 0)
        return false;
      const int64_t G = O.P / S, Group = O.R / S, N = int64_t(O.N);
      if (N >= 1) {
        Lo = std::max(Lo, Group + (N - 1) * G + 1);
        Hi = std::min(Hi, Group + N * G);
      } else {
        Hi = std::min(Hi, Group);
      }
    }
    if (Lo != Hi)
      return false; // none, or not determined by the runs measured
    E.A = Lo;
    if (!Fits(E))
      return false;
    Cyclics.push_back(E);
    if (Found && Out.A <= E.A)
      return false;
    Out = E;
    return true;
  };
  // Of the group sizes that fit, the one with the fewest items (f90-transpose's 4 problems
  // dealt to groups of 2 ranks, not 8 items to single ranks, which fit as well).
  TripExpr E;
  E.K = TripExpr::Cyclic;
  for (int32_t S = 1; S <= 16; ++S) {
    E.SConst = S;
    Found |= Cyclic(E);
  }
  E.SConst = 1;
  for (uint8_t D : {2, 3})
    for (uint8_t Axes = 1; Axes < (1u << D); ++Axes) {
      E.GridDims = D;
      E.GridAxes = Axes;
      Found |= Cyclic(E);
    }
  // The other group sizes that deal as many items (more items is a less simple reading: 4
  // planes to groups of 2 ranks, not 8 to single ranks).
  if (Found) {
    for (const TripExpr &E : Cyclics)
      if (E.A == Out.A &&
          (E.SConst != Out.SConst || E.GridDims != Out.GridDims || E.GridAxes != Out.GridAxes))
        Keep(E);
    return true;
  }
  // The problem size's: the same count on every rank of a run, Const + Coeff * W^a / P^b (a
  // byte count's forms), and only from runs at two sizes or more: at one size a count that no
  // form above gives stays refused.
  std::vector<BytesObs> Bs;
  bool Sizes = false, ByRank = false;
  for (const TripObs &O : Obs) {
    Sizes |= O.W != Obs.front().W;
    const auto Same = std::find_if(Bs.begin(), Bs.end(),
                                   [&](const BytesObs &B) { return B.P == O.P && B.W == O.W; });
    ByRank |= Same != Bs.end() && Same->V != O.N;
    if (Same == Bs.end())
      Bs.push_back({double(O.P), O.W, O.N});
  }
  TripExpr Sz;
  Sz.K = TripExpr::Size;
  if (!ByRank && Sizes && findBytes(Bs, Sz.Sz) && Fits(Sz)) {
    Out = Sz;
    return true;
  }
  // Last, a count of the rank and the size together: a share of items dealt to the ranks.
  return findDealt(Obs, Out, Alts);
}

/// A class's members aligned: flat ops every member executes once, and loops whose trip counts
/// differ between members. Each slot lists its instances (a loop's body slots one per trip).
struct Aligned {
  struct Loop {
    size_t L = 0;
    TripExpr Count;
    std::vector<TripExpr> CountAlts;            ///< other counts that fit as well (findTrips)
    std::vector<uint64_t> Trips;                ///< per member
    std::vector<std::vector<Sample>> BodySlots; ///< L slots
    std::vector<OpTemplate> Body;               ///< the L slots learnt (learnBody)
    uint32_t MaxDist = 0;                       ///< the body's largest fixed Dist
  };
  struct Slot {
    std::vector<Sample> Flat; ///< a flat op's instances (empty: the loop Loop)
    size_t Loop = 0;
    bool AfterLoop = false; ///< the first flat op after a loop
  };
  std::vector<Slot> Slots;
  std::vector<Loop> Loops;
};

/// Learns every op of the loop's body into Lp.Body: false when one is no function of (r, P)
/// and the trip.
bool learnBody(Aligned::Loop &Lp) {
  Refusal Why;
  Lp.Body.assign(Lp.BodySlots.size(), OpTemplate{});
  for (size_t J = 0; J < Lp.BodySlots.size(); ++J)
    if (Lp.BodySlots[J].empty() ||
        !learnOp(Lp.BodySlots[J], Where::Body, Lp.Body[J], Lp.MaxDist, Why))
      return false;
  return true;
}

/// Whole as M loops of equal trips (chunk c holds every member's trips c n / M .. (c + 1) n /
/// M - 1, renumbered from 0) into Chunks; false when a chunk's trips are no function of (r, P).
bool splitLoop(const Aligned::Loop &Whole, uint64_t M, const std::vector<Member> &Ms,
               std::vector<Aligned::Loop> &Chunks) {
  Chunks.assign(M, Aligned::Loop{});
  std::vector<TripObs> Obs;
  for (size_t I = 0; I < Ms.size(); ++I)
    Obs.push_back({Ms[I].Rank, Ms[I].Run->Ranks, Whole.Trips[I] / M, Ms[I].Run->Size});
  for (Aligned::Loop &Ch : Chunks) {
    Ch.L = Whole.L;
    if (!findTrips(Obs, Ch.Count, &Ch.CountAlts))
      return false;
    for (const TripObs &O : Obs)
      Ch.Trips.push_back(O.N);
    Ch.BodySlots.resize(Whole.L);
  }
  for (size_t J = 0; J < Whole.L; ++J)
    for (const Sample &S : Whole.BodySlots[J]) {
      const uint64_t Per = S.Trips / M;
      Chunks[S.Trip / Per].BodySlots[J].push_back({S.M, S.It, S.Trip % Per, Per});
    }
  return true;
}

/// Aligns the members' sequences: flat slots while they execute the same calls, and where they
/// part a loop (tryLoop below), the longest body first. False with Why at the call where the
/// members part and nothing explains it.
bool align(const std::vector<Member> &Ms, Aligned &Out, Refusal &Why) {
  const size_t N = Ms.size();
  std::vector<size_t> Cur(N, 0);
  size_t SinceLoop = 0; // flat slots since the last loop (or the start)
  auto At = [&](size_t I, size_t K) -> const Item * {
    return K < Ms[I].Items.size() ? &Ms[I].Items[K] : nullptr;
  };
  auto Copies = [&](size_t I, size_t From, const std::vector<const Item *> &Body) {
    uint64_t C = 0;
    for (size_t K = From;; K += Body.size(), ++C)
      for (size_t J = 0; J < Body.size(); ++J) {
        const Item *X = At(I, K + J);
        if (X == nullptr || !sameShape(*X, *Body[J]))
          return C;
      }
  };
  // The length of the shortest sequence Body is K >= 2 copies of; 0: none.
  auto Period = [](const std::vector<const Item *> &Body) -> size_t {
    for (size_t D = 1; D < Body.size(); ++D) {
      if (Body.size() % D != 0)
        continue;
      bool Copies = true;
      for (size_t J = D; J < Body.size() && Copies; ++J)
        Copies = sameShape(*Body[J], *Body[J % D]);
      if (Copies)
        return D;
    }
    return 0;
  };
  auto Periodic = [&](const std::vector<const Item *> &Body) { return Period(Body) != 0; };
  // Copies of a body of K copies of a shorter sequence B are the copies of B over K, and the
  // candidates tried at one place are often such multiples of one B (every multiple of a time
  // step's calls, down from 4096): each member's copies of B are counted once per place, not
  // once per multiple (linesweep's 2-16-rank runs: most of `mpiete model`'s time). Entries
  // are for the cursors they were counted at; Bases holds each B's items to compare shapes.
  struct BaseCount {
    size_t Member, From;
    std::vector<const Item *> Base;
    uint64_t Copies;
  };
  std::vector<BaseCount> Counted;
  auto CopiesOf = [&](size_t I, const std::vector<const Item *> &Body, size_t D) -> uint64_t {
    if (D == 0)
      return Copies(I, Cur[I], Body);
    for (const BaseCount &B : Counted)
      if (B.Member == I && B.From == Cur[I] && B.Base.size() == D &&
          std::equal(B.Base.begin(), B.Base.end(), Body.begin(),
                     [](const Item *X, const Item *Y) { return sameShape(*X, *Y); }))
        return B.Copies / (Body.size() / D);
    std::vector<const Item *> Base(Body.begin(), Body.begin() + std::ptrdiff_t(D));
    const uint64_t C = Copies(I, Cur[I], Base);
    Counted.push_back({I, Cur[I], std::move(Base), C});
    return C / (Body.size() / D);
  };
  std::vector<TripObs> Obs;
  // Body as a loop from the members' current calls: every member repeats it some number of
  // times, after which all continue alike; the shared trips just before (in the flat slots
  // since the last loop) are counted back, some member runs two trips or more, the trips are a
  // function of (r, P) and every op of the body one of (r, P) and the trip. A loop inside an
  // outer one of fixed trips (a time step around a shifted exchange) aligns as one loop whose
  // peers restart every round: it is split into M loops of equal trips, one after another.
  // Not Strict: the members may continue differently after their trips (another loop follows
  // that runs no trip on some of them), which the alignment after it must then explain.
  // True with the loop (or loops) appended and the cursors past it.
  auto tryLoop = [&](const std::vector<const Item *> &Body, bool Strict) {
    const size_t L = Body.size();
    std::vector<uint64_t> Reps(N);
    bool Any = false;
    // Every member continues with the same call after its trips: checked member by member, so
    // that a body most members do not repeat is given up before the members that repeat it
    // all the way to their end (a body of whole time steps) are scanned.
    const Item *Next0 = nullptr;
    const size_t D = Period(Body);
    for (size_t I = 0; I < N; ++I) {
      Any |= (Reps[I] = CopiesOf(I, Body, D)) > 0;
      const Item *X = At(I, Cur[I] + Reps[I] * L);
      if (I == 0)
        Next0 = X;
      else if (Strict &&
               ((X == nullptr) != (Next0 == nullptr) || (X != nullptr && !sameShape(*X, *Next0))))
        return false;
    }
    if (!Any)
      return false;
    // A body of copies of a shorter sequence that some member repeats once more after its
    // last trip (the members' shared prefix of a long loop, taken whole, then the loop's rest)
    // is not the loop: the shorter body, tried later, is. A plane of three exchanges that the
    // planes' loop ends after keeps its body.
    if (D != 0)
      for (size_t I = 0; I < N; ++I) {
        bool Again = true;
        for (size_t J = 0; J < D && Again; ++J) {
          const Item *X = At(I, Cur[I] + Reps[I] * L + J);
          Again = X != nullptr && sameShape(*X, *Body[J]);
        }
        if (Again)
          return false;
      }
    size_t Back = 0;
    while ((Back + 1) * L <= SinceLoop) {
      bool Match = true;
      for (size_t J = 0; J < L && Match; ++J)
        Match =
            sameShape(*Out.Slots[Out.Slots.size() - (Back + 1) * L + J].Flat.front().It, *Body[J]);
      if (!Match)
        break;
      ++Back;
    }
    for (size_t Extra = Back + 1; Extra-- > 0;) {
      Obs.clear();
      uint64_t Most = 0, Least = UINT64_MAX;
      for (size_t I = 0; I < N; ++I) {
        Obs.push_back({Ms[I].Rank, Ms[I].Run->Ranks, Reps[I] + Extra, Ms[I].Run->Size});
        Most = std::max(Most, Reps[I] + Extra);
        Least = std::min(Least, Reps[I] + Extra);
      }
      Aligned::Loop Lp;
      if (Most < 2 || !findTrips(Obs, Lp.Count, &Lp.CountAlts))
        continue;
      // A count from the problem size over a body of repeated calls (two blocks a trip where
      // every measured count of blocks was even) is left to the shorter body, tried later: at
      // an odd count the longer one's trips would be fractional.
      if ((Lp.Count.K == TripExpr::Size || Lp.Count.K == TripExpr::Dealt) && Periodic(Body))
        continue;
      Lp.L = L;
      for (const TripObs &O : Obs)
        Lp.Trips.push_back(O.N);
      Lp.BodySlots.resize(L);
      for (size_t I = 0; I < N; ++I) {
        const size_t First = Cur[I] - Extra * L;
        for (uint64_t T = 0; T < Lp.Trips[I]; ++T)
          for (size_t J = 0; J < L; ++J)
            Lp.BodySlots[J].push_back({&Ms[I], At(I, First + T * L + J), T, Lp.Trips[I]});
      }
      std::vector<Aligned::Loop> Pieces;
      bool Learns = learnBody(Lp);
      if (Learns)
        Pieces.push_back(std::move(Lp));
      for (uint64_t M = 2; !Learns && M <= std::min<uint64_t>(Least, 64); ++M)
        if (std::all_of(Obs.begin(), Obs.end(), [&](const TripObs &O) { return O.N % M == 0; }))
          Learns =
              splitLoop(Lp, M, Ms, Pieces) && std::all_of(Pieces.begin(), Pieces.end(), learnBody);
      if (!Learns)
        continue;
      // The trips counted back leave the flat slots.
      Out.Slots.resize(Out.Slots.size() - Extra * L);
      for (size_t I = 0; I < N; ++I)
        Cur[I] += Reps[I] * L;
      for (Aligned::Loop &Each : Pieces) {
        Out.Loops.push_back(std::move(Each));
        Aligned::Slot S;
        S.Loop = Out.Loops.size() - 1;
        Out.Slots.push_back(std::move(S));
      }
      SinceLoop = 0;
      return true;
    }
    return false;
  };
  for (;;) {
    // Flat slots while every member executes the same call.
    bool Ended = false;
    for (;;) {
      const Item *R0 = At(0, Cur[0]);
      bool Same = true, AnyEnd = R0 == nullptr, AllEnd = R0 == nullptr;
      for (size_t I = 1; I < N; ++I) {
        const Item *X = At(I, Cur[I]);
        AnyEnd |= X == nullptr;
        AllEnd &= X == nullptr;
        Same &= X != nullptr && R0 != nullptr && sameShape(*X, *R0);
      }
      if (AllEnd) {
        Ended = true;
        break;
      }
      if (AnyEnd || !Same)
        break;
      Aligned::Slot S;
      for (size_t I = 0; I < N; ++I)
        S.Flat.push_back({&Ms[I], At(I, Cur[I]++), 0, 0});
      S.AfterLoop = SinceLoop == 0 && !Out.Loops.empty();
      if (S.AfterLoop)
        for (size_t I = 0; I < N; ++I)
          S.Flat[I].Trips = Out.Loops.back().Trips[I];
      Out.Slots.push_back(std::move(S));
      ++SinceLoop;
    }
    if (Ended)
      return true;
    // The members part here: a loop, or nothing this learner explains. The longest body first,
    // from the last L shared slots (the loop's first trip, shared by all), then each member's
    // own next L items; a loop after which the members continue alike first.
    bool Found = false;
    Counted.clear();
    for (int Pass = 0; Pass < 2 && !Found; ++Pass) {
      const bool Strict = Pass == 0;
      for (size_t L = std::min<size_t>(4096, std::max<size_t>(SinceLoop, 1) + 256);
           L >= 1 && !Found; --L) {
        std::vector<const Item *> Body;
        if (L <= SinceLoop) {
          for (size_t K = Out.Slots.size() - L; K < Out.Slots.size(); ++K)
            Body.push_back(Out.Slots[K].Flat.front().It);
          Found = tryLoop(Body, Strict);
        }
        // The loop may end a few calls before the members part: the call after it shares
        // its site with the body's first (a helper both of a wavefront's sweeps call), so
        // the members that left the loop kept step with the others for those calls. The
        // body is then the L shared slots before them, which the cursors go back to; the
        // earliest end first (a later one takes the next code's first calls into the body's
        // last trip, and the loop after it then starts a trip short).
        for (size_t Back = std::min<size_t>({L - 1, 12, SinceLoop >= L ? SinceLoop - L : 0});
             !Found && Back >= 1; --Back) {
          Body.clear();
          for (size_t K = Out.Slots.size() - L - Back; K < Out.Slots.size() - Back; ++K)
            Body.push_back(Out.Slots[K].Flat.front().It);
          if (!sameShape(*Body.front(), *Out.Slots[Out.Slots.size() - Back].Flat.front().It))
            continue; // the slots after it do not start another trip
          std::vector<Aligned::Slot> Kept(std::make_move_iterator(Out.Slots.end() - Back),
                                          std::make_move_iterator(Out.Slots.end()));
          Out.Slots.resize(Out.Slots.size() - Back);
          for (size_t &C : Cur)
            C -= Back;
          SinceLoop -= Back;
          Found = tryLoop(Body, Strict);
          if (!Found) {
            for (Aligned::Slot &S : Kept)
              Out.Slots.push_back(std::move(S));
            for (size_t &C : Cur)
              C += Back;
            SinceLoop += Back;
          }
        }
        // Members with the same next L calls (the ranks of one run, in an SPMD program) offer
        // one body: it is tried once.
        std::vector<size_t> Tried;
        for (size_t I = 0; I < N && L <= 256 && !Found; ++I) {
          Body.clear();
          for (size_t K = 0; K < L && At(I, Cur[I] + K); ++K)
            Body.push_back(At(I, Cur[I] + K));
          if (Body.size() != L)
            continue;
          const bool Seen = std::any_of(Tried.begin(), Tried.end(), [&](size_t J) {
            for (size_t K = 0; K < L; ++K)
              if (!sameShape(*Body[K], *At(J, Cur[J] + K)))
                return false;
            return true;
          });
          if (Seen)
            continue;
          Tried.push_back(I);
          Found = tryLoop(Body, Strict);
        }
      }
    }
    if (Found)
      continue;
    // Name the first member that parts from member 0.
    size_t I = 1;
    while (I < N && At(I, Cur[I]) && At(0, Cur[0]) && sameShape(*At(I, Cur[I]), *At(0, Cur[0])))
      ++I;
    I = std::min(I, N - 1);
    const Item *X = At(I, Cur[I]) ? At(I, Cur[I]) : At(0, Cur[0]);
    const size_t Len = std::max<size_t>({Ms[I].Items.size(), Ms[0].Items.size(), 1});
    Why.Site = X != nullptr ? X->E.Block : 0;
    Why.Progress = double(Cur[I]) / double(Len);
    Why.Message = "rank " + std::to_string(Ms[I].Rank) + " of " + std::to_string(Ms[I].Run->Ranks) +
                  " executes another sequence of MPI events here than rank " +
                  std::to_string(Ms[0].Rank) + " of " + std::to_string(Ms[0].Run->Ranks) +
                  " (event " + std::to_string(Cur[I]) +
                  "): the number of messages depends on the rank or the size in a way no rank "
                  "class or loop count (a linear or log2 function of P, items dealt "
                  "round-robin to groups of ranks, a binomial tree's children, a power of the "
                  "problem size when runs at two sizes or more are given, a group's share of "
                  "such a power) explains";
    return false;
  }
}

/// Learns one class from its members; false with Why on the first op nothing explains.
bool learnClass(const std::vector<Member> &Members, RankClass &C, uint32_t &MaxDist, Refusal &Why) {
  Aligned A;
  if (!align(Members, A, Why))
    return false;
  C.Ops.clear();
  const size_t Slots = A.Slots.size();
  auto Learn = [&](const std::vector<Sample> &Ss, Where W, size_t Slot) {
    OpTemplate Op;
    if (!learnOp(Ss, W, Op, MaxDist, Why)) {
      Why.Progress = double(Slot) / double(std::max<size_t>(Slots, 1));
      return false;
    }
    C.Ops.push_back(std::move(Op));
    return true;
  };
  struct Placed {
    size_t Begin, Loop;
  };
  std::vector<Placed> Placements;
  for (size_t K = 0; K < A.Slots.size(); ++K) {
    const Aligned::Slot &S = A.Slots[K];
    if (!S.Flat.empty()) {
      if (!Learn(S.Flat, S.AfterLoop ? Where::After : Where::Flat, K))
        return false;
      continue;
    }
    // The loop's bounds around its body, which align learnt.
    Aligned::Loop &Lp = A.Loops[S.Loop];
    OpTemplate Bound;
    Bound.Ctl = OpTemplate::Control::LoopBegin;
    Bound.Span = uint32_t(Lp.L);
    Bound.Trips = Lp.Count;
    Bound.Proto.Block = Lp.Body.front().Proto.Block;
    for (const TripExpr &T : Lp.CountAlts)
      Bound.Alts.push_back(OpTemplate::Alt::loop(T));
    Placements.push_back({C.Ops.size(), S.Loop});
    C.Ops.push_back(Bound);
    std::move(Lp.Body.begin(), Lp.Body.end(), std::back_inserter(C.Ops));
    Bound.Ctl = OpTemplate::Control::LoopEnd;
    Bound.Alts.clear();
    C.Ops.push_back(Bound);
    MaxDist = std::max(MaxDist, Lp.MaxDist);
  }
  // The computations at each loop's seams start where the data showed; a start no measured run
  // showed (a loop that ran once on every measured rank: its later trips; a loop that ran on
  // every measured rank: none at all) follows from the calls themselves: the call before the
  // loop (Entry) or the body's last call (Back).
  for (size_t P = 0; P < Placements.size(); ++P) {
    const size_t BodyAt = Placements[P].Begin + 1, L = A.Loops[Placements[P].Loop].L;
    const std::vector<uint64_t> &Trips = A.Loops[Placements[P].Loop].Trips;
    const size_t NextLoop = P + 1 < Placements.size() ? Placements[P + 1].Begin : C.Ops.size();
    auto IsSegment = [&](size_t K) {
      return C.Ops[K].Ctl == OpTemplate::Control::None && !C.Ops[K].IsColl &&
             C.Ops[K].Proto.Kind == EventKind::Segment;
    };
    OpTemplate *First = nullptr;
    std::optional<BlockId> BodyLast;
    for (size_t K = BodyAt; K < BodyAt + L; ++K)
      if (IsSegment(K)) {
        First = First ? First : &C.Ops[K];
        BodyLast = C.Ops[K].Proto.Block;
      }
    if (First == nullptr || !BodyLast)
      continue;
    const bool Repeats = std::any_of(Trips.begin(), Trips.end(), [](uint64_t T) { return T > 1; });
    if (First->FromR == OpTemplate::FromRule::None) {
      First->FromR = OpTemplate::FromRule::FirstIteration;
      First->AltFrom = Repeats ? First->Proto.From : *BodyLast;
    }
    const BlockId Entry = First->Proto.From;
    // The first op after the loop, when it is a computation (the next loop's own seam rules
    // stay its).
    const size_t AfterAt = BodyAt + L + 1;
    if (AfterAt < NextLoop && IsSegment(AfterAt) &&
        C.Ops[AfterAt].FromR == OpTemplate::FromRule::None) {
      OpTemplate &After = C.Ops[AfterAt];
      const bool Skipped =
          std::any_of(Trips.begin(), Trips.end(), [](uint64_t T) { return T == 0; });
      After.FromR = OpTemplate::FromRule::AfterLoop;
      After.AltFrom = After.Proto.From;
      if (!Skipped)
        After.Proto.From = Entry;
    }
  }
  return true;
}

bool verify(const std::vector<MeasuredRun> &Runs, const CommStructure &S, Refusal &Why) {
  Event E;
  std::vector<Event> Scratch;
  for (const MeasuredRun &Run : Runs)
    for (int R = 0; R < Run.Ranks; ++R) {
      SyntheticEventSource Gen(S, R, Run.Ranks, Run.Size);
      const std::vector<Event> *Events = eventsOf(Run, R, Scratch, Why);
      if (Events == nullptr)
        return false;
      const std::vector<Event> &Seq = *Events;
      const double Len = double(std::max<size_t>(Seq.size(), 1));
      size_t K = 0;
      for (; Gen.next(E); ++K) {
        Event Want;
        if (K < Seq.size()) {
          Want = Seq[K];
          normaliseEvent(Want);
        }
        if (K >= Seq.size() || !sameEvent(E, Want)) {
          Why = {E.Block,
                 "the generated trace of rank " + std::to_string(R) + " of " +
                     std::to_string(Run.Ranks) + " differs from the measured one at event " +
                     std::to_string(K),
                 1 + double(K) / Len};
          return false;
        }
      }
      if (Gen.failed() || K != Seq.size()) {
        Why = {K < Seq.size() ? Seq[K].Block : 0,
               "the generated trace of rank " + std::to_string(R) + " of " +
                   std::to_string(Run.Ranks) + " ends early",
               1 + double(K) / Len};
        return false;
      }
    }
  return true;
}

} // namespace

void canonicaliseCompletionOrder(std::vector<Event> &Seq) {
  std::unordered_set<uint64_t> User; // requests of user-level starts
  auto Single = [&](size_t K, BlockId Site) {
    return K < Seq.size() && Seq[K].Kind == EventKind::Completion && Seq[K].Block == Site &&
           Seq[K].Completed.size() == 1 && User.count(Seq[K].Completed[0].Request) > 0;
  };
  for (size_t K = 0; K < Seq.size(); ++K) {
    const Event &E = Seq[K];
    if ((E.Kind == EventKind::SendStart || E.Kind == EventKind::RecvStart) && E.Context == 0)
      User.insert(E.Request);
    if (!Single(K, E.Block))
      continue;
    // The group: K, then a Segment from the site to itself and another such completion, ...
    const BlockId Site = E.Block;
    std::vector<size_t> At = {K};
    size_t J = K;
    while (J + 2 < Seq.size() && Seq[J + 1].Kind == EventKind::Segment && Seq[J + 1].From == Site &&
           Seq[J + 1].Block == Site && Single(J + 2, Site)) {
      J += 2;
      At.push_back(J);
    }
    if (At.size() > 1) {
      std::vector<Event> Group;
      for (size_t I : At)
        Group.push_back(std::move(Seq[I]));
      std::stable_sort(Group.begin(), Group.end(), [](const Event &A, const Event &B) {
        return A.Completed[0].Request < B.Completed[0].Request;
      });
      for (size_t I = 0; I < At.size(); ++I)
        Seq[At[I]] = std::move(Group[I]);
    }
    K = J;
  }
}

bool learnStructure(const std::vector<MeasuredRun> &Runs, CommStructure &Out, Refusal &Why) {
  using K = RankClass::Kind;
  const std::vector<std::vector<K>> Schemes = {
      {K::All}, {K::First, K::Rest}, {K::First, K::Last, K::Rest}};
  // Every rank's items, once.
  std::vector<std::vector<std::vector<Item>>> Items(Runs.size());
  for (size_t I = 0; I < Runs.size(); ++I)
    for (int R = 0; R < Runs[I].Ranks; ++R) {
      Items[I].emplace_back();
      if (!toItems(Runs[I], R, Items[I].back(), Why))
        return false;
    }
  Refusal Best;
  bool HaveBest = false;
  for (const std::vector<K> &Scheme : Schemes) {
    CommStructure S;
    bool Ok = true;
    for (K Kind : Scheme) {
      std::vector<Member> Members;
      for (size_t I = 0; I < Runs.size(); ++I)
        for (int R = 0; R < Runs[I].Ranks; ++R) {
          const bool In =
              Kind == K::All || (Kind == K::First && R == 0) ||
              (Kind == K::Last && R == Runs[I].Ranks - 1 && R != 0) ||
              (Kind == K::Rest && R != 0 && !(R == Runs[I].Ranks - 1 && Scheme.size() == 3));
          if (In)
            Members.push_back({&Runs[I], R, Items[I][size_t(R)]});
        }
      if (Members.empty()) {
        Ok = false;
        Why = {0, std::string("no measured run has ranks in the class '") + RankClass::name(Kind) +
                      "'"};
        break;
      }
      RankClass C;
      C.K = Kind;
      if (!learnClass(Members, C, S.MaxDist, Why)) {
        Ok = false;
        break;
      }
      S.Classes.push_back(std::move(C));
    }
    S.finishClasses();
    if (Ok && verify(Runs, S, Why)) {
      // Ways of dealing items part at another size as often as at another rank count.
      std::vector<double> Ws;
      for (const MeasuredRun &Run : Runs)
        if (std::find(Ws.begin(), Ws.end(), Run.Size) == Ws.end())
          Ws.push_back(Run.Size);
      if (Ws.size() >= 2)
        Ws.push_back(2 * *std::max_element(Ws.begin(), Ws.end()));
      S.settleAlternatives(Ws);
      Out = std::move(S);
      return true;
    }
    // The scheme that got furthest names the place a person can act on (ties: the simplest).
    if (!HaveBest || Why.Progress > Best.Progress) {
      Best = Why;
      HaveBest = true;
    }
  }
  Why = Best;
  return false;
}

/// ", not pinned by the base runs: ..." for a share another way of dealing explains too.
static std::string partsText(const TripExpr &T) {
  return T.K == TripExpr::Dealt && T.PartsAt > 0
             ? " (not pinned by the base runs: another way of dealing fits them too and "
               "differs from " +
                   std::to_string(T.PartsAt) + " ranks on)"
             : "";
}

namespace {
std::string altText(const OpTemplate::Alt &A);
} // namespace

/// " (or F, or G: the base runs fit them as well; they first differ at N ranks)" for the
/// alternative forms Form of the op (for a peer: of its peer or root, Which 0, or matched
/// source Which).
static std::string altsText(const OpTemplate &Op, OpTemplate::Alt::Of Form, uint32_t Which = 0) {
  std::string T;
  int32_t First = 0;
  for (const OpTemplate::Alt &A : Op.Alts)
    if (A.Form == Form && A.Which == Which) {
      T += (T.empty() ? " (or " : ", or ") + altText(A);
      First = First == 0 ? A.PartsAt : std::min(First, A.PartsAt);
    }
  return T.empty()
             ? T
             : T + ": the base runs fit " +
                   (T.find(", or ") != std::string::npos ? "them as well; they first differ at "
                                                         : "it as well; it first differs at ") +
                   std::to_string(First) + " ranks)";
}

std::vector<std::string> CommStructure::describe() const {
  std::vector<std::string> Lines;
  for (const RankClass &C : Classes) {
    std::vector<std::string> Seen;
    auto Add = [&](std::string L) {
      L = std::string(RankClass::name(C.K)) + ": " + L;
      if (std::find(Seen.begin(), Seen.end(), L) == Seen.end()) {
        Seen.push_back(L);
        Lines.push_back(std::move(L));
      }
    };
    for (const OpTemplate &Op : C.Ops) {
      if (Op.Ctl == OpTemplate::Control::LoopBegin) {
        Add("a loop of " + std::to_string(Op.Span) + " events from " +
            estimator::formatBlock(Op.Proto.Block) + ", trips " + Op.Trips.text() +
            partsText(Op.Trips) + altsText(Op, OpTemplate::Alt::Loop));
      } else if (Op.IsColl) {
        Add(estimator::formatBlock(Op.Coll.Site) + " " + kindName(Op.Coll.Kind) +
            (Op.Coll.Root >= 0 || Op.Peer.A >= 0
                 ? " root " + Op.Peer.text() + altsText(Op, OpTemplate::Alt::Peer)
                 : "") +
            ", bytes " + Op.bytesText() + altsText(Op, OpTemplate::Alt::Count) +
            (Op.Share.K == TripExpr::Dealt
                 ? std::string(Op.Coll.Kind == trace::CollKind::Alltoallv
                                   ? " (to each member in proportion to its own)"
                                   : " (each member its own)") +
                       partsText(Op.Share) + altsText(Op, OpTemplate::Alt::Share)
                 : "") +
            ", elements of " + std::to_string(Op.Coll.Elem) + " bytes" +
            (Op.Coll.Commutative ? "" : ", non-commutative") +
            (Op.Sub.K != SubComm::None
                 ? ", on a sub-communicator of " + Op.Sub.text() +
                       altsText(Op, OpTemplate::Alt::Comm) + " (root as its rank)"
                 : "") +
            ", lowered at the target size as the runtime lowers it");
      } else if (Op.Ctl == OpTemplate::Control::None &&
                 (Op.Proto.Kind == EventKind::SendStart || Op.Proto.Kind == EventKind::RecvStart)) {
        Add(estimator::formatBlock(Op.Proto.Block) +
            (Op.Proto.Kind == EventKind::SendStart ? " send to " : " receive from ") +
            Op.Peer.text() + altsText(Op, OpTemplate::Alt::Peer) + ", bytes " + Op.bytesText() +
            altsText(Op, OpTemplate::Alt::Count) + partsText(Op.Share) +
            altsText(Op, OpTemplate::Alt::Share) +
            (Op.Sub.K != SubComm::None ? ", on a sub-communicator of " + Op.Sub.text() +
                                             altsText(Op, OpTemplate::Alt::Comm)
                                       : ""));
      }
    }
  }
  return Lines;
}

} // namespace mpiete::scaling

namespace mpiete::scaling {

/// The call site of C's loop at op I: a model file keeps none for the loop itself, so its
/// body's first call names it (the loop op's own block when the body has no call).
static BlockId loopSite(const RankClass &C, size_t I) {
  for (size_t J = I + 1; J < C.Ops.size() && J <= I + C.Ops[I].Span; ++J)
    if (C.Ops[J].Ctl == OpTemplate::Control::None && C.Ops[J].Proto.Kind != EventKind::Segment)
      return C.Ops[J].Proto.Block;
  return C.Ops[I].Proto.Block;
}

bool CommStructure::powerOfTwoOnly(BlockId &Site, std::string &What) const {
  for (const RankClass &C : Classes)
    for (size_t I = 0; I < C.Ops.size(); ++I) {
      const OpTemplate &Op = C.Ops[I];
      Site = Op.Proto.Block;
      if (Op.Ctl == OpTemplate::Control::LoopBegin) {
        if (Op.Trips.powerOfTwoOnly()) {
          Site = loopSite(C, I);
          What = "its loop of " + std::to_string(Op.Span) + " events runs " + Op.Trips.text() +
                 (Op.Trips.K == TripExpr::TreeChildren || Op.Trips.K == TripExpr::HighTreeChildren
                      ? " trips (at a power of two no rank's child is past the last rank)"
                      : " trips (floor or ceiling of log2(P): at powers of two they agree)");
          return true;
        }
        continue;
      }
      if (Op.Ctl != OpTemplate::Control::None)
        continue;
      if (Op.Peer.powerOfTwoOnly()) {
        What = "its peer is " + Op.Peer.text() + " (past the last rank for some ranks)";
        return true;
      }
      for (const PeerExpr &Src : Op.Sources)
        if (Src.powerOfTwoOnly()) {
          What = "its matched source is " + Src.text() + " (past the last rank for some ranks)";
          return true;
        }
    }
  return false;
}

namespace {

/// What a peer Alt stands in for: the op's peer, root or a matched source.
const PeerExpr &ownForm(const OpTemplate &Op, const OpTemplate::Alt &A) {
  return A.Which == 0 ? Op.Peer : Op.Sources[A.Which - 1];
}

/// The form Alt names, as text.
std::string altText(const OpTemplate::Alt &A) {
  switch (A.Form) {
  case OpTemplate::Alt::Count:
    return A.Bytes.text();
  case OpTemplate::Alt::Comm:
    return A.Sub.text();
  case OpTemplate::Alt::Loop:
  case OpTemplate::Alt::Share:
    return A.Trips.text();
  default:
    return A.E.text();
  }
}

/// The op's own form that Alt stands in for, as text.
std::string ownText(const OpTemplate &Op, const OpTemplate::Alt &A) {
  OpTemplate::Alt Own = A;
  if (A.Form == OpTemplate::Alt::Peer)
    Own.E = ownForm(Op, A);
  Own.Bytes = Op.Bytes;
  Own.Sub = Op.Sub;
  Own.Trips = A.Form == OpTemplate::Alt::Share ? Op.Share : Op.Trips;
  return altText(Own);
}

/// "ranks 0-3", "ranks 0, 4, 8", "rank 5": a sub-communicator's members.
std::string membersText(int32_t Count, int32_t First, int32_t Step) {
  const std::string F = std::to_string(First), L = std::to_string(First + (Count - 1) * Step);
  if (Count <= 1)
    return "rank " + F;
  if (Step == 1)
    return "ranks " + F + "-" + L;
  return "ranks " + F + ", " + std::to_string(First + Step) + (Count > 3 ? ", ..., " : ", ") + L;
}

/// Whether Alt gives rank R of P ranks (size W) another value than the op's own form, on some
/// trip of Loop (the LoopBegin around the op, or the op itself; null: none); Values (when
/// given, and they differ): the two values, "rank 3: 2 or 6". A rank whose loop runs no trip
/// never makes the op.
bool altDiffers(const OpTemplate &Op, const OpTemplate *Loop, const OpTemplate::Alt &A, int32_t R,
                int32_t P, double W, std::string *Values) {
  auto Say = [&](const std::string &Mine, const std::string &Theirs, bool Rank = true) {
    if (Values != nullptr)
      *Values =
          (Rank ? "rank " + std::to_string(R) + ": " : std::string()) + Mine + " or " + Theirs;
    return true;
  };
  if (A.Form == OpTemplate::Alt::Loop) {
    const uint64_t Mine = Op.Trips.eval(R, P, W), Theirs = A.Trips.eval(R, P, W);
    return Mine != Theirs && Say(std::to_string(Mine), std::to_string(Theirs) + " trips");
  }
  if (A.Form == OpTemplate::Alt::Comm) {
    int32_t I1 = 0, C1 = 0, F1 = 0, S1 = 1, I2 = 0, C2 = 0, F2 = 0, S2 = 1;
    Op.Sub.place(R, P, I1, C1, F1, S1);
    A.Sub.place(R, P, I2, C2, F2, S2);
    return (I1 != I2 || C1 != C2 || F1 != F2 || (C1 > 1 && S1 != S2)) &&
           Say(membersText(C1, F1, S1), membersText(C2, F2, S2));
  }
  const uint64_t Trips = Loop != nullptr ? Loop->Trips.eval(R, P, W) : 1;
  if (A.Form == OpTemplate::Alt::Share) {
    // A collective's member counts are its members' shares of the communicator's count.
    int32_t Index = R, Count = P, First = 0, Step = 1;
    if (Op.IsColl && Op.Sub.K != SubComm::None)
      Op.Sub.place(R, P, Index, Count, First, Step);
    const uint64_t Mine = Op.countOfShare(Op.Share, Index, Count, W),
                   Theirs = Op.countOfShare(A.Trips, Index, Count, W);
    return (Op.IsColl || Trips != 0) && Mine != Theirs &&
           Say(std::to_string(Mine), std::to_string(Theirs) + " bytes");
  }
  if (A.Form == OpTemplate::Alt::Count) {
    const uint64_t Mine = Op.Bytes.eval(P, W), Theirs = A.Bytes.eval(P, W);
    return Trips != 0 && Mine != Theirs &&
           Say(std::to_string(Mine), std::to_string(Theirs) + " bytes", false);
  }
  auto Rank = [](int32_t V) {
    return V == estimator::ProcNull ? std::string("MPI_PROC_NULL") : std::to_string(V);
  };
  const PeerExpr &Own = ownForm(Op, A);
  if (Op.IsColl) {
    // A root is the communicator's rank, a function of the rank's index and the member count.
    int32_t Index = R, Count = P, First = 0, Step = 1;
    if (Op.Sub.K != SubComm::None)
      Op.Sub.place(R, P, Index, Count, First, Step);
    const int32_t Mine = Own.eval(Index, Count), Theirs = A.E.eval(Index, Count);
    return Mine != Theirs && Say("the root " + Rank(Mine), Rank(Theirs), false);
  }
  if (Trips == 0)
    return false;
  if (!Own.usesTrip() && !A.E.usesTrip()) {
    const int32_t Mine = Own.eval(R, P), Theirs = A.E.eval(R, P);
    return Mine != Theirs && Say(Rank(Mine), Rank(Theirs));
  }
  for (uint64_t T = 0; T < Trips; ++T) {
    const int32_t Mine = Own.evalTrip(R, P, T, Trips), Theirs = A.E.evalTrip(R, P, T, Trips);
    if (Mine != Theirs)
      return Say(Rank(Mine), Rank(Theirs));
  }
  return false;
}

/// Calls F(Class, index of Op in it, Op, Loop around it or null, Alt) for every alternative form
/// of S's ops (a LoopBegin is its own loop).
template <class C, class Fn> void forEachAlt(C &S, Fn &&F) {
  for (auto &Cl : S.Classes) {
    size_t LoopAt = SIZE_MAX, LoopEnd = 0;
    for (size_t I = 0; I < Cl.Ops.size(); ++I) {
      auto &Op = Cl.Ops[I];
      if (Op.Ctl == OpTemplate::Control::LoopBegin) {
        LoopAt = I;
        LoopEnd = I + Op.Span + 1;
      }
      const OpTemplate *Loop = LoopAt != SIZE_MAX && I < LoopEnd ? &Cl.Ops[LoopAt] : nullptr;
      for (size_t K = 0; K < Op.Alts.size();)
        K += F(Cl, I, Op, Loop, K) ? 1 : 0;
    }
  }
}

/// "its peer", "its root", "its matched source 2 of 3", "its byte count", "its communicator",
/// "its loop's trip count", "its byte count's share".
std::string formName(const OpTemplate &Op, const OpTemplate::Alt &A) {
  switch (A.Form) {
  case OpTemplate::Alt::Count:
    return "its byte count";
  case OpTemplate::Alt::Comm:
    return "its communicator";
  case OpTemplate::Alt::Loop:
    return "its loop's trip count";
  case OpTemplate::Alt::Share:
    return "its byte count's share";
  default:
    break;
  }
  if (A.Which == 0)
    return Op.IsColl ? "its root" : "its peer";
  return Op.Sources.size() == 1 ? "its matched source"
                                : "its matched source " + std::to_string(A.Which) + " of " +
                                      std::to_string(Op.Sources.size());
}

BlockId opSite(const OpTemplate &Op) { return Op.IsColl ? Op.Coll.Site : Op.Proto.Block; }

/// Where Alt's op is: a loop's trip count at its loop's site, the rest at the call's.
BlockId altSite(const RankClass &Cl, size_t I, const OpTemplate::Alt &A) {
  return A.Form == OpTemplate::Alt::Loop ? loopSite(Cl, I) : opSite(Cl.Ops[I]);
}

/// What altDiffers' answer depends on besides (P, W): the two forms, the class, the loop's trip
/// count and, for a root, the sub-communicator's shape. Ops repeat (a time step's calls, each
/// its own op where no loop was found: f77-wavefront has thousands), so the answers are kept by
/// this key.
std::string altKey(const RankClass &Cl, const OpTemplate &Op, const OpTemplate *Loop,
                   const OpTemplate::Alt &A) {
  std::ostringstream S;
  S.precision(17);
  auto Peer = [&](const PeerExpr &E) {
    S << int(E.K) << ' ' << E.A << ' ' << int(E.Dims) << ' ' << int(E.Axis) << ' '
      << int(E.Periodic) << ' ';
  };
  auto Bytes = [&](const BytesExpr &B) {
    S << B.Coeff << ' ' << B.WExp << ' ' << B.PExp << ' ' << B.Const << ' ' << int(B.GridDims)
      << ' ' << int(B.GridAxes) << ' ';
  };
  auto Sub = [&](const SubComm &C) {
    S << int(C.K) << ' ' << int(C.GridDims) << ' ' << int(C.GridAxes) << ' ' << C.Const << ' ';
  };
  auto Trips = [&](const TripExpr &T) {
    S << int(T.K) << ' ' << T.SConst << ' ' << int(T.GridDims) << ' ' << int(T.GridAxes) << ' '
      << T.A << ' ' << T.B << ' ';
    Bytes(T.Sz);
  };
  S << int(Cl.K) << ' ' << int(A.Form) << ' ';
  switch (A.Form) {
  case OpTemplate::Alt::Count:
    Bytes(Op.Bytes);
    Bytes(A.Bytes);
    break;
  case OpTemplate::Alt::Comm:
    Sub(Op.Sub);
    Sub(A.Sub);
    return S.str();
  case OpTemplate::Alt::Loop:
    Trips(Op.Trips);
    Trips(A.Trips);
    return S.str();
  case OpTemplate::Alt::Share:
    Bytes(Op.Bytes);
    Trips(Op.Share);
    Trips(A.Trips);
    if (Op.IsColl) {
      S << "coll ";
      Sub(Op.Sub);
      return S.str();
    }
    break;
  default:
    Peer(ownForm(Op, A));
    Peer(A.E);
    if (Op.IsColl) {
      S << "coll ";
      Sub(Op.Sub);
      return S.str();
    }
  }
  if (Loop != nullptr) {
    S << "loop ";
    Trips(Loop->Trips);
  }
  return S.str();
}

/// The ranks of class Cl at P ranks, [Lo, Hi] (Lo > Hi: none): every class is a run of
/// consecutive ranks (all of them; rank 0; rank P-1; the rest). A byte count outside a loop
/// is the same on every rank: its first alone.
void classRanks(const CommStructure &S, const RankClass &Cl, const OpTemplate *Loop,
                const OpTemplate::Alt &A, int32_t P, int32_t &Lo, int32_t &Hi) {
  Lo = 0;
  while (Lo < P && &S.classOf(Lo, P) != &Cl)
    ++Lo;
  Hi = P - 1;
  while (Hi >= Lo && &S.classOf(Hi, P) != &Cl)
    --Hi;
  if (A.Form == OpTemplate::Alt::Count && Loop == nullptr)
    Hi = std::min(Hi, Lo);
}

} // namespace

void CommStructure::settleAlternatives(const std::vector<double> &Ws) {
  std::map<std::string, int32_t> Known;
  forEachAlt(*this,
             [&](const RankClass &Cl, size_t, OpTemplate &Op, const OpTemplate *Loop, size_t K) {
               OpTemplate::Alt &A = Op.Alts[K];
               A.PartsAt = 0;
               auto [It, New] = Known.try_emplace(altKey(Cl, Op, Loop, A), 0);
               if (New) {
                 int32_t Lo = 0, Hi = 0;
                 for (int32_t P = 2; P <= 1024 && It->second == 0; P += P < 256 ? 1 : P) {
                   classRanks(*this, Cl, Loop, A, P, Lo, Hi);
                   for (double W : Ws)
                     for (int32_t R = Lo; R <= Hi && It->second == 0; ++R)
                       if (altDiffers(Op, Loop, A, R, P, W, nullptr))
                         It->second = P;
                 }
               }
               A.PartsAt = It->second;
               if (A.PartsAt > 0)
                 return true;
               Op.Alts.erase(Op.Alts.begin() + ptrdiff_t(K));
               return false;
             });
}

bool CommStructure::formsPartAt(int32_t P, double W, BlockId &Site, std::string &What) const {
  bool Found = false;
  std::set<std::string> Checked; // the keys (altKey) already checked at P: they agree there
  forEachAlt(*this, [&](const RankClass &Cl, size_t I, const OpTemplate &Op, const OpTemplate *Loop,
                        size_t K) {
    const OpTemplate::Alt &A = Op.Alts[K];
    int32_t Lo = 0, Hi = -1;
    if (!Found && Checked.insert(altKey(Cl, Op, Loop, A)).second)
      classRanks(*this, Cl, Loop, A, P, Lo, Hi);
    std::string Values;
    for (int32_t R = Lo; R <= Hi && !Found; ++R)
      if (altDiffers(Op, Loop, A, R, P, W, &Values)) {
        Found = true;
        Site = altSite(Cl, I, A);
        What = formName(Op, A) + " is " + ownText(Op, A) + ", but " + altText(A) +
               " gives every base run's as well; at " + std::to_string(P) + " ranks they differ (" +
               Values +
               "), and which one the program computes was "
               "never measured: add a base run at " +
               (A.PartsAt == P ? std::to_string(P) + " ranks"
                               : std::to_string(A.PartsAt) +
                                     " ranks (where they first differ) or at " + std::to_string(P));
      }
    return true;
  });
  return Found;
}

std::vector<CommStructure::Ambiguity> CommStructure::formAmbiguities() const {
  // Per site and form (a loop in a time step repeats, and every class has its own ops): the
  // forms that fit as well, the least count where one differs.
  struct Group {
    BlockId Site;
    std::string Head;
    std::vector<std::string> Others;
    int32_t PartsAt;
  };
  std::vector<Group> Gs;
  forEachAlt(*this, [&](const RankClass &Cl, size_t I, const OpTemplate &Op, const OpTemplate *,
                        size_t K) {
    const OpTemplate::Alt &A = Op.Alts[K];
    const std::string Head = formName(Op, A) + " is " + ownText(Op, A);
    const BlockId Site = altSite(Cl, I, A);
    auto It = std::find_if(Gs.begin(), Gs.end(),
                           [&](const Group &G) { return G.Site == Site && G.Head == Head; });
    if (It == Gs.end())
      It = Gs.insert(Gs.end(), Group{Site, Head, {}, A.PartsAt});
    if (std::find(It->Others.begin(), It->Others.end(), altText(A)) == It->Others.end())
      It->Others.push_back(altText(A));
    It->PartsAt = std::min(It->PartsAt, A.PartsAt);
    return true;
  });
  std::vector<Ambiguity> Out;
  for (const Group &G : Gs) {
    std::string What = G.Head + ", but ";
    for (size_t I = 0; I < G.Others.size(); ++I)
      What += (I == 0 ? "" : I + 1 == G.Others.size() ? " and " : ", ") + G.Others[I];
    What += G.Others.size() == 1 ? " fits every base run as well" : " fit every base run as well";
    Out.push_back({G.Site, std::move(What), G.PartsAt});
  }
  return Out;
}

std::vector<CommStructure::Ambiguity> CommStructure::ambiguities() const {
  std::vector<Ambiguity> Out;
  // Once per site and form (a loop in a time step repeats).
  auto Add = [&](Ambiguity A) {
    if (std::none_of(Out.begin(), Out.end(), [&](const Ambiguity &B) {
          return B.Site == A.Site && B.What == A.What && B.PartsAt == A.PartsAt;
        }))
      Out.push_back(std::move(A));
  };
  for (const RankClass &C : Classes)
    for (size_t I = 0; I < C.Ops.size(); ++I) {
      const OpTemplate &Op = C.Ops[I];
      if (Op.Ctl == OpTemplate::Control::LoopBegin && Op.Trips.K == TripExpr::Dealt &&
          Op.Trips.PartsAt > 0) {
        Add({loopSite(C, I), "its loop's trips, " + Op.Trips.text(), Op.Trips.PartsAt});
      } else if (Op.Ctl == OpTemplate::Control::None && Op.Share.K == TripExpr::Dealt &&
                 Op.Share.PartsAt > 0) {
        Add({Op.Proto.Block, "its byte count, " + Op.bytesText(), Op.Share.PartsAt});
      }
    }
  return Out;
}

std::vector<CommStructure::Fraction> CommStructure::fractionsAt(int32_t P, double W) const {
  std::vector<Fraction> Out;
  auto Whole = [](double V) {
    return std::isfinite(V) && std::abs(V - std::round(V)) <= 1e-9 * std::max(1.0, std::abs(V));
  };
  // Once per site and form; the form's value at (P, W) when it is no whole number.
  auto Check = [&](BlockId Site, std::string What, double V) {
    if (Whole(V) || std::any_of(Out.begin(), Out.end(), [&](const Fraction &F) {
          return F.Site == Site && F.What == What;
        }))
      return;
    Out.push_back({Site, std::move(What), V});
  };
  for (const RankClass &C : Classes)
    for (size_t I = 0; I < C.Ops.size(); ++I) {
      const OpTemplate &Op = C.Ops[I];
      if (Op.Ctl == OpTemplate::Control::LoopEnd)
        continue;
      if (Op.Ctl == OpTemplate::Control::LoopBegin) {
        if (Op.Trips.K == TripExpr::Size)
          Check(loopSite(C, I), "its loop's trips, " + Op.Trips.text(), Op.Trips.Sz.value(P, W));
        else if (Op.Trips.K == TripExpr::Dealt)
          Check(loopSite(C, I), "the items its loop's trips share, " + Op.Trips.Sz.text(),
                Op.Trips.Sz.value(1, W));
        continue;
      }
      if (Op.Share.K == TripExpr::Dealt) {
        Check(Op.Proto.Block, "the items its byte count shares, " + Op.Share.Sz.text(),
              Op.Share.Sz.value(1, W));
        continue;
      }
      const double Bytes = Op.Bytes.value(P, W);
      Check(Op.Proto.Block, "its byte count, " + Op.Bytes.text(), Bytes);
      if (!Op.IsColl || !Whole(Bytes) || Op.Coll.Elem == 0)
        continue;
      // A collective's elements, and where the call's size is split among the members, each
      // member's.
      const trace::CollKind K = Op.Coll.Kind;
      int32_t Members = P;
      if (Op.Sub.K != SubComm::None) {
        int32_t Index = 0, First = 0, Step = 1;
        Op.Sub.place(0, P, Index, Members, First, Step);
      }
      const bool Split = collSplitsBytes(K);
      Check(Op.Proto.Block,
            Split ? "its byte count split among the members, " + Op.Bytes.text() + " / (" +
                        std::to_string(Op.Coll.Elem) + " * members)"
                  : "its elements, " + Op.Bytes.text() + " / " + std::to_string(Op.Coll.Elem),
            Bytes / Op.Coll.Elem / (Split ? std::max(Members, 1) : 1));
    }
  return Out;
}

bool boundToPowersOfTwo(const CommStructure &S, const std::vector<int> &MeasuredRanks,
                        BlockId &Site, std::string &What) {
  return std::all_of(MeasuredRanks.begin(), MeasuredRanks.end(),
                     [](int M) { return M >= 1 && std::has_single_bit(unsigned(M)); }) &&
         S.powerOfTwoOnly(Site, What);
}

std::string unmeasuredRankCount(const CommStructure &S, const std::vector<int> &MeasuredRanks,
                                int P, double W, BlockId &Site) {
  std::string What;
  if (P < 1)
    return "";
  if (!std::has_single_bit(unsigned(P)) && boundToPowersOfTwo(S, MeasuredRanks, Site, What))
    return "the structure cannot be generated at " + std::to_string(P) + " ranks: " + What +
           "; every run the model was built from has a power of two ranks, so how the program "
           "behaves at other counts was never measured: add a base run at a rank count that is "
           "not a power of two, or ask for a power of two";
  if (S.formsPartAt(P, W, Site, What))
    return "the structure cannot be generated at " + std::to_string(P) + " ranks: " + What;
  return "";
}

} // namespace mpiete::scaling
