// Communication structure (issue 16, ScalaExtrap-style): each rank's event sequence as a
// function of its rank r and the world size P, learnt from traces at several sizes and trusted
// only once it reproduces every measured trace exactly; and the synthetic event streams it
// generates at any size, one rank at a time, without materialising them.
#ifndef MPIETE_SCALING_COMMSTRUCTURE_H
#define MPIETE_SCALING_COMMSTRUCTURE_H

#include "mpiete/estimator/Event.h"
#include "mpiete/scaling/CollSim.h"

#include <bit>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace mpiete::scaling {

using estimator::BlockId;
using estimator::Event;

/// A peer as a function of (r, P). Out of range (a grid's or a line's edge): PROC_NULL.
struct PeerExpr {
  enum Kind : uint8_t {
    Literal, ///< A: a fixed rank, PROC_NULL or ANY_SOURCE
    FromEnd, ///< P - A (the last rank: A = 1)
    Offset,  ///< r + A, PROC_NULL outside [0, P)
    Wrap,    ///< (r + A) mod P
    Xor,     ///< r xor A, PROC_NULL outside [0, P)
    Grid,    ///< neighbour on axis Axis, step A, of the Dims-D grid MPI_Dims_create(P) gives;
             ///< Periodic wraps, otherwise PROC_NULL outside
    // In a loop's body, on trip t (from 0):
    TripOffset,     ///< A + t (rank k on trip k - A: `do k = 1, nproc - 1`)
    TripWrap,       ///< (r + A + t) mod P (a shift loop's destination: r + k)
    TripOffsetDown, ///< A - t, PROC_NULL outside [0, P)
    TripWrapDown,   ///< (r + A - t) mod P (a shift loop's source: r - k)
    // Distances that double with the trip (`for (mask = 1; mask < P; mask <<= 1)`), 2^(t + A):
    TripXorPow,      ///< r xor 2^(t + A), PROC_NULL outside [0, P) (recursive doubling)
    TripWrapPow,     ///< (r + 2^(t + A)) mod P (a dissemination step's destination)
    TripWrapPowDown, ///< (r - 2^(t + A)) mod P (its source)
    // A binomial tree rooted at rank 0, as codes write it by hand (`mask = 1, 2, 4, ...`):
    TreeParent,       ///< r - lowbit(r), rank r's parent (r & (r - 1)); PROC_NULL at r = 0
    TripOffsetPow,    ///< r + 2^(t + A), PROC_NULL outside [0, P) (a reduction's children)
    TripOffsetPowRev, ///< r + 2^(n - 1 - t + A) on trip t of n, PROC_NULL outside [0, P)
                      ///< (a broadcast's children, the farthest first)
    // The other binomial tree rooted at rank 0, the textbook's (`if (r < mask) send to r +
    // mask; else if (r < 2 * mask) receive from r - mask`): a rank's children are above its
    // highest bit, b(r) = bit_width(r) its bits (b(0) = 0).
    HighTreeParent, ///< r - highbit(r), rank r's parent; PROC_NULL at r = 0
    TripAbovePow,   ///< r + 2^(t + b(r) + A), PROC_NULL outside [0, P) (the children)
    TripAbovePowRev ///< r + 2^(n - 1 - t + b(r) + A) on trip t of n (the farthest first)
  };
  Kind K = Literal;
  int64_t A = 0;
  uint8_t Dims = 0, Axis = 0;
  bool Periodic = false;

  /// Inline for the kinds a generated stream evaluates per event (a ring, a line, a fixed
  /// rank): the call was a sixth of the generator's instructions.
  int32_t eval(int32_t R, int32_t P) const {
    if (K == Wrap) {
      // Ring neighbours are at most one lap off: no division.
      const int64_t V = int64_t(R) + A;
      if (V >= 0 && V < P)
        return int32_t(V);
      if (V >= P && V < 2 * int64_t(P))
        return int32_t(V - P);
    } else if (K == Offset) {
      const int64_t V = int64_t(R) + A;
      return V >= 0 && V < P ? int32_t(V) : estimator::ProcNull;
    } else if (K == Literal) {
      return int32_t(A);
    }
    return evalOther(R, P);
  }
  /// On trip Trip of Trips of the loop around the op (the kinds that do not use the trip
  /// ignore both; only the farthest-first kinds use Trips).
  int32_t evalTrip(int32_t R, int32_t P, uint64_t Trip, uint64_t Trips) const;
  bool usesTrip() const { return K >= TripOffset && K != TreeParent && K != HighTreeParent; }
  /// The distance is 2^(... + A): A is an exponent.
  bool powerDistance() const {
    return K == TripXorPow || K == TripWrapPow || K == TripWrapPowDown || K == TripOffsetPow ||
           K == TripOffsetPowRev || K == TripAbovePow || K == TripAbovePowRev;
  }
  /// Its value at a rank count that is not a power of two is not determined by runs at powers
  /// of two only (r xor A, r xor 2^t: a partner past the last rank, which the program handles
  /// its own way).
  bool powerOfTwoOnly() const { return K == Xor || K == TripXorPow; }
  std::string text() const;

private:
  int32_t evalOther(int32_t R, int32_t P) const;
};

/// Message bytes as a function of (P, W): Const + Coeff * W^WExp / P^PExp, rounded; a literal
/// when WExp and PExp are 0. Const is a halo row's ghost cells, a header: (n + 2) * 8 bytes is
/// 16 + 8 * W^1. With GridDims (2 or 3) the divisor is instead the product of the factors of
/// MPI_Dims_create(P, GridDims) whose bits are set in GridAxes: a face of a 3-D block
/// decomposition, nx * ny * 8 bytes with nx = W / d0 and ny = W / d1, is 8 * W^2 / (d0 d1).
struct BytesExpr {
  double Coeff = 0, WExp = 0, PExp = 0;
  double Const = 0;
  uint8_t GridDims = 0, GridAxes = 0;
  uint64_t eval(double P, double W) const {
    if (WExp == 0 && PExp == 0 && GridDims == 0)
      return uint64_t(Coeff);
    return evalPower(P, W);
  }
  /// Const + Coeff * W^WExp / divisor, before rounding (a trip count from the size rounds it
  /// its own way: below 0 is no trip).
  double value(double P, double W) const;
  std::string text() const;

private:
  uint64_t evalPower(double P, double W) const;
};

/// A sub-communicator as a function of (r, P): rank r's members are a block of S consecutive
/// world ranks (r - r mod S, ..., the block's last: MPI_Comm_split by r / S, a process row of a
/// row-major grid, a slab of a Cartesian grid) or every S-th (r mod S, r mod S + S, ...: a
/// column), in world order; S a constant or the product of some factors of MPI_Dims_create(P,
/// 2 or 3). Its id is the runtime's (mpiete/CommId.h): made by the Seq-th communicator-creating
/// call on the communicator Parent, which every rank shares.
struct SubComm {
  enum Kind : uint8_t { None, Block, Stride };
  Kind K = None;
  uint8_t GridDims = 0, GridAxes = 0; ///< S from MPI_Dims_create(P, GridDims); else Const
  int32_t Const = 0;
  uint64_t Parent = 0;
  uint32_t Seq = 0;

  int32_t step(int32_t P) const; ///< S at P ranks (at least 1)
  /// Rank R's place: its index in the communicator, the member count, the first member's world
  /// rank and the distance between members (world rank of member k: First + k * Step).
  void place(int32_t R, int32_t P, int32_t &Index, int32_t &Count, int32_t &First,
             int32_t &Step) const;
  uint64_t id(int32_t R, int32_t P) const;
  std::string text() const;
};

/// How many times a loop's body runs on rank r of P ranks, size W:
/// - Linear: A * P + B (a loop over the other ranks: P - 1);
/// - Log2: A * floor(log2(P)) + B (a loop over a tree's levels), Log2Ceil: A * ceil(log2(P))
///   + B (`for (mask = 1; mask < P; mask <<= 1)`); they agree at powers of two;
/// - Cyclic: the items j of [0, C) with j mod G equal to floor(r / S), G = P / S, S a constant
///   or the product of some factors of MPI_Dims_create(P, 2 or 3): C items dealt round-robin to
///   P / S groups of S consecutive ranks (`do k = group + 1, nprob, ngroups`; with S = 1, C
///   items in blocks with the remainder on the first ranks, floor(C / P) + [r < C mod P]);
/// - TreeChildren: rank r's children in a binomial tree rooted at rank 0, min(tz(r),
///   ceil(log2(P - r))), tz(r) the trailing zero bits of r (rank 0: ceil(log2(P))): the rounds
///   `mask = 1, 2, 4, ...` in which r receives from r + mask before it sends to its parent, the
///   children past the last rank left out (`if (r + mask < P)`). A and B are unused.
/// - HighTreeChildren: rank r's children in the textbook's binomial tree rooted at rank 0,
///   ceil(log2(P - r)) - bit_width(r) and at least 0 (rank 0: ceil(log2(P))): the rounds mask
///   = 2^b(r), 2^(b(r) + 1), ... in which r sends to r + mask after it received from r -
///   highbit(r), while r + mask < P. A and B are unused.
/// - Size: the same on every rank, Const + Coeff * W^a / P^b rounded (Sz, a byte count's forms):
///   a loop over the blocks or rows of a problem of size W (`do k = 1, n / nb`), learnt only
///   from base runs at two problem sizes or more.
/// - Dealt: group floor(r / S)'s share of C items dealt to G = P / S groups of S consecutive
///   ranks (S as for Cyclic), C = Const + Coeff * W^a rounded (Sz; a constant at one size), in
///   the way A names: RoundRobin floor(C / G) + [g < C mod G] (Cyclic's count, its C from the
///   size: rows of a size-n grid over the process rows, `nloc = n / np + (me < mod(n, np))`),
///   Blocks min(b, C - g b) and at least 0 with b = ceil(C / G) (`nb = (n + np - 1) / np`),
///   LastTakesRest floor(C / G), the last group C mod G more (`if (me == np - 1) nloc = nloc +
///   mod(n, np)`). With B = 1 (stride) the groups are every S-th rank instead: group r mod S
///   of G = S (columns dealt to the process columns of a row-major grid, S = d1).
struct TripExpr {
  enum Kind : uint8_t {
    Linear,
    Log2,
    Cyclic,
    Log2Ceil,
    TreeChildren,
    HighTreeChildren,
    Size,
    Dealt
  };
  /// Dealt: how the items are dealt (in A).
  enum Deal : uint8_t { RoundRobin, Blocks, LastTakesRest };
  /// Group G's share of C items dealt D-wise to Groups groups (0 outside [0, Groups)).
  static int64_t share(int64_t C, int64_t Groups, int64_t G, Deal D);
  /// Cyclic, Dealt: S at P ranks (SConst, at least 1, or the grid factors), and as text.
  int64_t step(int32_t P) const;
  std::string stepText() const;
  /// Dealt: rank R's group and the group count at P ranks (S from SConst or the grid).
  void group(int32_t R, int32_t P, int64_t &G, int64_t &Groups) const;
  Kind K = Linear;
  uint8_t GridDims = 0, GridAxes = 0; ///< Cyclic: S from MPI_Dims_create(P, GridDims)
  int32_t SConst = 1;                 ///< Cyclic: S when GridDims is 0
  /// Linear, Log2: the coefficients; Cyclic: C in A; Dealt: Deal in A, 1 in B for stride
  /// groups.
  int64_t A = 0, B = 0;
  BytesExpr Sz; ///< Size: the count; Dealt: the items
  /// Dealt, in model files written before session 39 (`parts N`, `share-parts N`): another way
  /// of dealing fits every base run as well and gives some rank another count from PartsAt
  /// ranks on; 0: none. The learner now keeps the other ways as OpTemplate::Alts instead.
  int32_t PartsAt = 0;
  uint64_t eval(int32_t R, int32_t P, double W) const;
  /// Whether some rank of some P >= 1 runs no trip (a linear or log2 count that grows from at
  /// least one at 1 rank never does: P - 1 and log2(P) do at 1 rank; a round-robin one does
  /// once P / S exceeds the items).
  bool mayBeZero() const;
  /// Runs at powers of two only cannot tell floor(log2(P)) from ceil(log2(P)), nor how a tree
  /// treats children past the last rank (at a power of two there are none).
  bool powerOfTwoOnly() const {
    return K == Log2 || K == Log2Ceil || K == TreeChildren || K == HighTreeChildren;
  }
  std::string text() const;
};

/// One event of a rank class's sequence: the measured record with its varying fields as
/// functions; or one collective call (IsColl), lowered at the target size by the runtime's own
/// lowering (CollSim.h) with its root and size as functions; or a loop's bounds (Control).
struct OpTemplate {
  Event Proto;
  PeerExpr Peer;
  BytesExpr Bytes;
  /// On a sub-communicator: its members and id. A collective's Peer (its root) is then a rank
  /// of the communicator, a function of the rank's index and the member count; a
  /// point-to-point event's peer stays a world rank and only its communicator id is computed.
  SubComm Sub;
  std::vector<PeerExpr> Sources; ///< the completed receives' matched sources
  /// Another form that fits every measured run as well, and gives another value than the
  /// chosen one on some rank of the op's class from PartsAt ranks on (the least such count from
  /// 2 to 256, or 512 or 1024). The base runs cannot say which one the program computes: a
  /// target where they differ is refused (CommStructure::formsPartAt). Of says which form it
  /// stands in for: the peer or a collective's root (Which 0) or matched source Which (Sources[
  /// Which - 1]), in E; the byte count, in Bytes; the sub-communicator, in Sub (its Parent and
  /// Seq the op's own); a LoopBegin's trip count, in Trips; the share of items a byte count
  /// of the rank's share is made of (Share), in Trips. Empty for nearly every op.
  struct Alt {
    enum Of : uint8_t { Peer, Count, Comm, Loop, Share };
    uint32_t Which = 0;
    PeerExpr E;
    int32_t PartsAt = 0;
    Of Form = Peer;
    BytesExpr Bytes;
    SubComm Sub;
    TripExpr Trips;
    /// Another form of the peer or root (Which 0) or of matched source Which.
    static Alt peer(uint32_t Which, const PeerExpr &E, int32_t PartsAt = 0) {
      Alt A;
      A.Which = Which;
      A.E = E;
      A.PartsAt = PartsAt;
      return A;
    }
    /// Another byte count, sub-communicator, loop's trip count or share.
    static Alt count(const BytesExpr &B) {
      Alt A;
      A.Form = Count;
      A.Bytes = B;
      return A;
    }
    static Alt comm(const SubComm &S) {
      Alt A;
      A.Form = Comm;
      A.Sub = S;
      return A;
    }
    static Alt loop(const TripExpr &T, Of Form = Loop) {
      Alt A;
      A.Form = Form;
      A.Trips = T;
      return A;
    }
  };
  std::vector<Alt> Alts;
  /// Per completed request: the matched tag, and the tag recorded when the source is
  /// PROC_NULL (MPI's empty status), which only some ranks see.
  std::vector<std::pair<int32_t, int32_t>> Tags;
  /// Completion, RequestFree: which request, as the number of user-level starts after it
  /// (request ids themselves depend on how many messages the lowered collectives started).
  std::vector<uint32_t> Dist;
  /// In a loop's body, per entry of Dist: Dist + first * t + second * n on trip t of n (a wait
  /// loop over requests an earlier loop started: `call mpi_wait(req(k))`); empty: none.
  std::vector<std::pair<int32_t, int32_t>> DistTrip;
  bool IsColl = false;
  /// A loop whose trip count depends on the rank or the size: LoopBegin (Trips) is followed by
  /// its body of Span ops and LoopEnd (Span again); neither makes an event. Loops do not nest.
  enum class Control : uint8_t { None, LoopBegin, LoopEnd };
  Control Ctl = Control::None;
  /// A Segment whose start depends on the loop: FirstIteration (the body's first computation:
  /// from Proto.From on the first trip, from AltFrom on later ones) or AfterLoop (the
  /// computation after the loop: from Proto.From when the loop ran no trip, else AltFrom), or
  /// Dynamic: from the call generated last, whichever it was (a loop right after another that
  /// may run no trip: a binomial tree's broadcast sends, then the next step's receives from
  /// the children; AltFrom unused).
  enum class FromRule : uint8_t { None, FirstIteration, AfterLoop, Dynamic };
  FromRule FromR = FromRule::None;
  uint32_t Span = 0;
  BlockId AltFrom = 0;
  TripExpr Trips;
  /// A count of the rank's share (K Dealt: a halo of the rank's rows where the rows do not
  /// divide; a v-collective's uneven counts): Bytes.Const + Bytes.Coeff * W^Bytes.WExp *
  /// Share's count (a transpose's n * nloc values); otherwise unused (Linear).
  TripExpr Share;
  CollCall Coll; ///< IsColl: kind, element size, commutativity, site (Root, Bytes: below)
  /// The event's byte count on rank R of P at size W.
  uint64_t count(int32_t R, int32_t P, double W) const {
    if (Share.K != TripExpr::Dealt) [[likely]]
      return Bytes.eval(P, W);
    return countOfShare(Share, R, P, W);
  }
  /// The byte count with S as the rank's share (Share's form, another way of dealing).
  uint64_t countOfShare(const TripExpr &S, int32_t R, int32_t P, double W) const {
    const double V = Bytes.Const + Bytes.Coeff * (Bytes.WExp == 0 ? 1 : std::pow(W, Bytes.WExp)) *
                                       double(S.eval(R, P, W));
    return V <= 0 ? 0 : uint64_t(std::llround(V));
  }
  /// Every member's count (members 0 .. Count - 1 of Count) at size W: a v-collective's uneven
  /// counts, as the lowering takes them (CollCall::RankBytes).
  void memberCounts(int32_t Count, double W, std::vector<uint64_t> &Out) const {
    Out.resize(size_t(Count));
    for (int32_t I = 0; I < Count; ++I)
      Out[size_t(I)] = count(I, Count, W);
  }
  /// The byte count's form, as text.
  std::string bytesText() const;
};

/// Ranks that share one sequence shape.
struct RankClass {
  enum Kind : uint8_t { All, First, Last, Rest };
  Kind K = All;
  std::vector<OpTemplate> Ops;
  static const char *name(Kind K);
};

/// MPI_Dims_create(P, D): the most balanced factorisation, largest first.
std::vector<int> dimsCreate(int P, int D);
/// The product of MPI_Dims_create(P, Dims)'s factors whose bits are set in Axes (the last
/// answers kept: a generated stream and a model evaluation ask it at one P over and over).
int32_t dimsProduct(int32_t P, uint8_t Dims, uint8_t Axes);
/// "d0 * d2 of Dims_create(P, 3)": the factors dimsProduct multiplies (Var names the count).
std::string dimsText(uint8_t Dims, uint8_t Axes, const char *Var = "P");

/// One measured run: every rank's events (Segment events included) at P ranks, size W.
/// A trace's Collective record (the trace reader's events keep only its lowered messages).
struct CollRecord {
  BlockId Site = 0;
  trace::CollKind Kind = trace::CollKind::Barrier;
  uint64_t Comm = 0;      ///< 0: the world
  bool WorldGroup = true; ///< the communicator holds every rank in world order
  int32_t Root = -1;
  uint64_t Bytes = 0; ///< what this rank contributes (the trace format's field)
};

/// A trace's comm-create record: the call that made communicator NewComm from Parent, and its
/// members' world ranks in the new communicator's order.
struct CommCreateRecord {
  BlockId Site = 0;
  uint64_t Parent = 0, NewComm = 0;
  std::vector<int32_t> Members;
};

struct MeasuredRun {
  int Ranks = 0;
  double Size = 1;
  std::vector<std::vector<Event>> PerRank;
  std::vector<std::vector<CollRecord>> Colls; ///< per rank, in order (empty: none recorded)
  /// Per rank, the communicators it was made a member of (empty: none recorded).
  std::vector<std::vector<CommCreateRecord>> Comms;
  /// Instead of PerRank (left empty): reads rank R's events into Out (cleared first) each time
  /// the learner passes over them, so that no run's events are held beside its items
  /// (`mpiete model` reads the trace directory again). False: the events cannot be read.
  std::function<bool(int Rank, std::vector<Event> &Out)> Load;
};

struct CommStructure {
  /// The classes of the first scheme that reproduced every measured trace: one class (SPMD),
  /// rank 0 apart (master/worker), or rank 0 and rank P-1 apart (a line's two ends).
  std::vector<RankClass> Classes;
  /// The largest Dist of any completion: the generator remembers that many user starts.
  uint32_t MaxDist = 0;
  /// The largest Dist rank R of P ranks generates: MaxDist, or more where a completion's Dist
  /// grows with its loop's trips.
  uint32_t maxDist(int R, int P, double W) const;
  /// Some completion's Dist depends on its loop's trips (DistTrip): set by finishClasses.
  bool LoopDist = false;
  /// Some computation starts at the call generated last (FromRule::Dynamic): set by
  /// finishClasses; a generated stream then keeps each loop's entry.
  bool DynamicFrom = false;
  /// Sets what follows from Classes (LoopDist, DynamicFrom); whoever fills Classes calls it (the
  /// learner, the model file's reader).
  void finishClasses();
  /// Which class rank R of P ranks belongs to.
  const RankClass &classOf(int R, int P) const;
  /// The peer and byte expressions, one line per distinct call site and kind, for the model
  /// file.
  std::vector<std::string> describe() const;
  /// The first op whose value at a rank count that is not a power of two runs at powers of two
  /// cannot determine (a log2 trip count, an xor partner): its call site and what it is; false
  /// when there is none.
  bool powerOfTwoOnly(BlockId &Site, std::string &What) const;
  /// A loop's trips or a byte count of a share (TripExpr::Dealt) that the base runs do not pin,
  /// as model files written before session 39 record it (TripExpr::PartsAt): another way of
  /// dealing fits them too and parts from it at PartsAt ranks.
  struct Ambiguity {
    BlockId Site = 0;
    std::string What;
    int32_t PartsAt = 0;
  };
  std::vector<Ambiguity> ambiguities() const;
  /// The ops whose peer, root, matched source, byte count, sub-communicator or loop's trip count
  /// another form explains as well (OpTemplate::Alts), once per site and form.
  std::vector<Ambiguity> formAmbiguities() const;
  /// The first op where an alternative form gives another value than the chosen one on some
  /// rank of P ranks, size W (on some trip of the loop around it): its call site and what
  /// differs; false when none does. Costs one evaluation per alternative, rank and trip.
  bool formsPartAt(int32_t P, double W, BlockId &Site, std::string &What) const;
  /// Sets each alternative's PartsAt, the least rank count where it differs from the chosen
  /// form at one of the sizes Ws (the learner's: the base runs', and twice the largest where
  /// they are at two sizes or more), after the check against the measured runs; drops those
  /// that give the chosen form's value on every rank of every count to 1024 at every size.
  void settleAlternatives(const std::vector<double> &Ws);
  /// A count the structure computes that is no whole number at P ranks and size W: a byte
  /// count c * W^a / P^b where P does not divide, a loop's trips from the size, the items a
  /// share deals, a collective's elements or each member's part of a split one. The base runs
  /// (where every such value was whole) never showed how the program rounds it, so a
  /// prediction there rests on the model's rounding to the nearest. Once per site and form.
  struct Fraction {
    BlockId Site = 0;
    std::string What;
    double Value = 0;
  };
  std::vector<Fraction> fractionsAt(int32_t P, double W) const;
};

/// Whether the structure learnt from runs at MeasuredRanks holds at powers of two only: every
/// measured rank count is one and an op is powerOfTwoOnly (its Site and What).
bool boundToPowersOfTwo(const CommStructure &S, const std::vector<int> &MeasuredRanks,
                        BlockId &Site, std::string &What);

/// Why the structure learnt from runs at MeasuredRanks cannot be generated at P ranks: P is not
/// a power of two and the structure is boundToPowersOfTwo (at Site, which the caller locates
/// the message at). Empty: it can.
std::string unmeasuredRankCount(const CommStructure &S, const std::vector<int> &MeasuredRanks,
                                int P, double W, BlockId &Site);

/// Why a structure was refused: the call site where no function of (r, P) explains the
/// measured events, and what was seen there.
struct Refusal {
  BlockId Site = 0;
  std::string Message;
  double Progress = 0; ///< how far into the sequences the scheme got (0..1)
};

/// Puts each run of single-request completions at one call site, with only that site's own
/// computation between them (Segment events from the site to itself), in the order their
/// requests were started, when every request is a user-level start's. A Waitany loop completes
/// its requests in the order the messages arrived, which differs between ranks and runs (cg's
/// ghost exchange) although the program does the same; the learnt structure, its check against
/// the measured traces and `mpiete model --check` all see this order, and a generated trace
/// completes the requests oldest first. An MPI_Wait loop in start order is unchanged.
void canonicaliseCompletionOrder(std::vector<Event> &Seq);

/// Learns the structure from Runs (at least two rank counts), then regenerates every measured
/// rank and compares event by event. False with Why set when nothing reproduces them all.
bool learnStructure(const std::vector<MeasuredRun> &Runs, CommStructure &Out, Refusal &Why);

/// Rank R's events at P ranks and size W, generated one at a time: memory is the position in
/// the class's shared sequence, whatever P.
class alignas(64) SyntheticEventSource : public estimator::EventSource {
public:
  SyntheticEventSource(const CommStructure &S, int R, int P, double W)
      : Ops(&S.classOf(R, P).Ops), R(R), P(P), W(W),
        StartsMask(std::bit_ceil(S.maxDist(R, P, W) + 1U) - 1), Dynamic(S.DynamicFrom) {
    if (StartsMask >= NumInlineStarts)
      HeapStarts = std::make_unique<uint64_t[]>(size_t(StartsMask) + 1);
  }
  bool next(Event &E) override;
  std::string name() const override;
  bool failed() const override { return Failed != 0; }

private:
  /// Two cache lines per rank, no other allocation for point-to-point structures: at 10^5
  /// ranks each rank's stream has left the caches by the time it is read again, and the
  /// engine prefetches these two lines (the first holds what every event reads).
  const std::vector<OpTemplate> *Ops;
  int32_t R, P;
  double W;
  size_t Pos = 0;
  uint64_t LastRequest = 0;
  uint64_t UserStarts = 0;
  /// The collective being streamed: lowered calls are cached by what they depend on, with the
  /// request id they were lowered after, so a call repeated in a loop is lowered once and
  /// streamed without allocating.
  const std::vector<Event> *Lowered = nullptr;
  uint32_t LoweredPos = 0;
  /// Ring of the ids of the last user-level starts: at least MaxDist + 1, a power of two so
  /// that a position is a mask, not a division; in place when small.
  uint32_t StartsMask : 30;
  uint32_t Failed : 1 = false;
  uint32_t Dynamic : 1; ///< the structure's DynamicFrom: loops keep their entry
  uint64_t Shift = 0;
  using LoweredCache =
      std::map<std::tuple<int, int32_t, uint64_t, uint32_t, bool, BlockId, uint64_t>,
               std::pair<uint64_t, std::vector<Event>>>;
  /// What only collectives and loops need, made at the first of them.
  struct Extra {
    LoweredCache Cache;
    uint64_t Trips = 0; ///< the current (or last) loop's trip count
    uint64_t Trip = 0;  ///< the trip being generated, from 0
    BlockId Entry = 0;  ///< the call before the current (or last) loop (Dynamic only)
  };
  /// The call generated last before op K (a Dynamic computation's start): the last call op
  /// before it, found through the loops by their trips (a walk of an op or two).
  BlockId callBefore(size_t K);
  std::unique_ptr<Extra> X;
  Extra &extra() { return X ? *X : *(X = std::make_unique<Extra>()); }
  static constexpr uint32_t NumInlineStarts = 4;
  uint64_t InlineStarts[NumInlineStarts] = {};
  std::unique_ptr<uint64_t[]> HeapStarts;
  uint64_t *starts() { return HeapStarts ? HeapStarts.get() : InlineStarts; }
};

/// True if two events are equal in every field the engine reads (Index aside), the receives'
/// same-buffer flag aside too: it is learnt where every measured rank agrees (a user-level
/// receive; collsim touches no buffers, so lowered collectives' receives never have it).
bool sameEvent(const Event &A, const Event &B);

} // namespace mpiete::scaling

#endif
