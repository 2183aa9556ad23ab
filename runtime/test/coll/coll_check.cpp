// Checks every lowered collective against the MPI library's own result: for each case the same
// inputs go through PMPI_<X> (the reference) and mpiete::coll::<x> (over the PMPI transport
// double), and the receive buffers must agree byte for byte (holes of derived datatypes
// included), except floating-point sums and products of non-integral values, whose reduction
// order legitimately differs between algorithms: those agree to a relative 1e-12.
//
// Usage: coll_check [family...]   (families: bcast reduce allreduce gather scatter allgather
// alltoall vector redscat scan barrier neighbor alltoallw; default all). Exits non-zero on any
// mismatch.
#include "PmpiTransport.h"
#include "coll/CollDecision.h"
#include "coll/Collectives.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace mpiete;

constexpr mpiete_site_t Site = MPIETE_ID(0xc011, 7);
int Rank = 0, Size = 1;
long Cases = 0, Failures = 0;
std::set<std::string> Exercised; // "collective/algorithm" pairs the cases reached

MPI_Comm Comm = MPI_COMM_WORLD;

//===-- Datatypes ---------------------------------------------------------------------------===//

/// A datatype used for data movement: its bytes are filled with a pattern, holes included.
struct MoveType {
  const char *Name;
  MPI_Datatype T;
};
std::vector<MoveType> MoveTypes;

MPI_Aint extentOf(MPI_Datatype T) {
  MPI_Aint Lb, E;
  MPI_Type_get_extent(T, &Lb, &E);
  return E;
}
int sizeOf(MPI_Datatype T) {
  int S;
  MPI_Type_size(T, &S);
  return S;
}

void makeTypes() {
  MPI_Datatype Vec, Struct;
  MPI_Type_vector(3, 2, 3, MPI_INT, &Vec); // 6 ints in an 8-int extent: holes
  MPI_Type_commit(&Vec);
  int Lens[2] = {1, 1};
  MPI_Aint Disps[2] = {0, 8};
  MPI_Datatype Types[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Type_create_struct(2, Lens, Disps, Types, &Struct); // int, 4 bytes of padding, double
  MPI_Type_commit(&Struct);
  MoveTypes = {{"int", MPI_INT},   {"double", MPI_DOUBLE},
               {"char", MPI_CHAR}, {"long_long", MPI_LONG_LONG},
               {"vector", Vec},    {"struct", Struct}};
}

/// A byte buffer for Count elements of T plus a tail, pre-filled with a sentinel.
std::vector<unsigned char> buffer(long Count, MPI_Datatype T, unsigned char Fill = 0xA5) {
  return std::vector<unsigned char>(static_cast<size_t>(Count * extentOf(T) + 64), Fill);
}
void pattern(std::vector<unsigned char> &B, int Seed) {
  for (size_t I = 0; I < B.size(); ++I)
    B[I] = static_cast<unsigned char>((I * 131 + static_cast<size_t>(Rank) * 17 + Seed * 7) % 251);
}

void expectEqual(const std::vector<unsigned char> &Want, const std::vector<unsigned char> &Got,
                 const std::string &What) {
  ++Cases;
  if (Want == Got)
    return;
  size_t I = 0;
  while (I < Want.size() && Want[I] == Got[I])
    ++I;
  if (++Failures <= 20)
    std::fprintf(stderr, "rank %d: MISMATCH %s: first differing byte %zu (want %d got %d)\n", Rank,
                 What.c_str(), I, I < Want.size() ? Want[I] : -1, I < Got.size() ? Got[I] : -1);
}

void checkTransport(const std::string &What) {
  if (std::getenv("COLL_CHECK_VERBOSE"))
    std::fprintf(stderr, "rank %d: done %s\n", Rank, What.c_str());
  const testing::Counts &C = testing::counts();
  if (C.OtherBlocks != 0 || C.UserContext != 0) {
    ++Failures;
    std::fprintf(stderr, "rank %d: %s: %llu events outside the site block, %llu in user context\n",
                 Rank, What.c_str(), static_cast<unsigned long long>(C.OtherBlocks),
                 static_cast<unsigned long long>(C.UserContext));
  }
}

std::string name(const char *Coll, const char *Type, long Count, const char *Extra = "") {
  return std::string(Coll) + " type=" + Type + " count=" + std::to_string(Count) + " " + Extra +
         " np=" + std::to_string(Size);
}

void exercised(coll::Coll C, uint64_t Bytes, bool Commute = true) {
  if (Size == 1)
    return;
  Exercised.insert(std::string(coll::collName(C)) + "/" +
                   coll::algoName(coll::decide(C, Size, Bytes, Commute)));
}

//===-- Reduction cases ---------------------------------------------------------------------===//

struct Mat2 { // 2x2 integer matrices under multiplication: associative, not commutative
  uint32_t A, B, C, D;
};
void matMul(void *In, void *InOut, int *Len, MPI_Datatype *) {
  auto *X = static_cast<Mat2 *>(In), *Y = static_cast<Mat2 *>(InOut);
  for (int I = 0; I < *Len; ++I) {
    const Mat2 L = X[I], R = Y[I];
    Y[I] = {L.A * R.A + L.B * R.C, L.A * R.B + L.B * R.D, L.C * R.A + L.D * R.C,
            L.C * R.B + L.D * R.D};
  }
}
void userSum(void *In, void *InOut, int *Len, MPI_Datatype *) {
  auto *X = static_cast<int *>(In), *Y = static_cast<int *>(InOut);
  for (int I = 0; I < *Len; ++I)
    Y[I] += X[I];
}

struct RedCase {
  const char *Name;
  MPI_Datatype T;
  MPI_Op Op;
  bool Tolerance; // floating point with a reduction order that may differ
  std::function<void(void *, long, int)> Fill; // (buffer, count, seed)
  long Big;                                    // element count of the large case
};
std::vector<RedCase> RedCases;
MPI_Datatype MatType;
MPI_Op MatOp, UserSumOp;

template <typename T> std::function<void(void *, long, int)> fillWith(T (*F)(int, long, int)) {
  return [F](void *B, long N, int Seed) {
    for (long I = 0; I < N; ++I)
      static_cast<T *>(B)[I] = F(Rank, I, Seed);
  };
}

void makeRedCases() {
  MPI_Type_contiguous(4, MPI_UINT32_T, &MatType);
  MPI_Type_commit(&MatType);
  MPI_Op_create(matMul, 0, &MatOp);
  MPI_Op_create(userSum, 1, &UserSumOp);
  auto SmallInt =
      fillWith<int>([](int R, long I, int S) { return int((R * 7 + I * 3 + S) % 11) - 5; });
  auto Bits = fillWith<int>(
      [](int R, long I, int S) { return int((R * 2654435761u + I * 40503 + S) & 0xffff); });
  auto Bools = fillWith<int>([](int R, long I, int S) { return int((R + I + S) % 7 != 0); });
  auto Prod = fillWith<int>([](int R, long I, int S) { return 1 + int((R + I + S) % 2); });
  auto LL = fillWith<long long>(
      [](int R, long I, int S) { return (long long)(R + 1) * 1000000007LL + I * 31 - S; });
  auto UC = fillWith<unsigned char>(
      [](int R, long I, int S) { return (unsigned char)(R * 37 + I * 11 + S); });
  auto Frac =
      fillWith<double>([](int R, long I, int S) { return (R + 1) * 0.1 + I * 1e-3 + S * 1e-4; });
  auto IntD =
      fillWith<double>([](int R, long I, int S) { return double((R * 5 + I + S) % 13) - 6; });
  auto ProdD =
      fillWith<double>([](int R, long I, int S) { return 1.0 + 0.01 * ((R + I + S) % 3); });
  auto Loc = [](void *B, long N, int S) {
    struct DI {
      double V;
      int I;
    } *P = static_cast<DI *>(B);
    for (long I = 0; I < N; ++I)
      P[I] = {double((Rank * 3 + I + S) % 4), Rank}; // ties across ranks: lowest index wins
  };
  auto Mats = [](void *B, long N, int S) {
    Mat2 *P = static_cast<Mat2 *>(B);
    for (long I = 0; I < N; ++I)
      P[I] = {uint32_t(Rank + 1), uint32_t(I + S), uint32_t(Rank * 3 + 1), uint32_t(2 + I % 5)};
  };
  RedCases = {
      {"int/sum", MPI_INT, MPI_SUM, false, SmallInt, 70000},
      {"int/prod", MPI_INT, MPI_PROD, false, Prod, 20000},
      {"int/max", MPI_INT, MPI_MAX, false, SmallInt, 20000},
      {"int/min", MPI_INT, MPI_MIN, false, SmallInt, 300},
      {"int/land", MPI_INT, MPI_LAND, false, Bools, 300},
      {"int/bor", MPI_INT, MPI_BOR, false, Bits, 300},
      {"int/bxor", MPI_INT, MPI_BXOR, false, Bits, 20000},
      {"int/user_sum", MPI_INT, UserSumOp, false, SmallInt, 20000},
      {"long_long/sum", MPI_LONG_LONG, MPI_SUM, false, LL, 20000},
      {"long_long/max", MPI_LONG_LONG, MPI_MAX, false, LL, 300},
      {"uchar/sum", MPI_UNSIGNED_CHAR, MPI_SUM, false, UC, 100000},
      {"double/sum_frac", MPI_DOUBLE, MPI_SUM, true, Frac, 20000},
      {"double/sum_int", MPI_DOUBLE, MPI_SUM, false, IntD, 40000},
      {"double/prod", MPI_DOUBLE, MPI_PROD, true, ProdD, 300},
      {"double/max", MPI_DOUBLE, MPI_MAX, false, Frac, 20000},
      {"double/min", MPI_DOUBLE, MPI_MIN, false, Frac, 300},
      {"double_int/maxloc", MPI_DOUBLE_INT, MPI_MAXLOC, false, Loc, 20000},
      {"double_int/minloc", MPI_DOUBLE_INT, MPI_MINLOC, false, Loc, 300},
      {"mat2/user_noncommutative", MatType, MatOp, false, Mats, 6000},
  };
}

bool commutative(MPI_Op Op) {
  int C;
  MPI_Op_commutative(Op, &C);
  return C != 0;
}

void expectClose(const RedCase &RC, const std::vector<unsigned char> &Want,
                 const std::vector<unsigned char> &Got, long Count, const std::string &What) {
  if (!RC.Tolerance)
    return expectEqual(Want, Got, What);
  ++Cases;
  const double *W = reinterpret_cast<const double *>(Want.data());
  const double *G = reinterpret_cast<const double *>(Got.data());
  for (long I = 0; I < Count; ++I)
    if (std::fabs(W[I] - G[I]) > 1e-12 * std::fabs(W[I]) + 1e-300) {
      if (++Failures <= 20)
        std::fprintf(stderr, "rank %d: MISMATCH %s: element %ld want %.17g got %.17g\n", Rank,
                     What.c_str(), I, W[I], G[I]);
      return;
    }
  // The tail past the data stays untouched in both.
  const size_t Tail = static_cast<size_t>(Count) * sizeof(double);
  if (!std::equal(Want.begin() + Tail, Want.end(), Got.begin() + Tail)) {
    ++Failures;
    std::fprintf(stderr, "rank %d: MISMATCH %s: bytes past the data written\n", Rank, What.c_str());
  }
}

std::vector<long> countsFor(long Big) { return {0, 1, 7, 300, Big}; }

//===-- Families ----------------------------------------------------------------------------===//

void runBcast() {
  for (const MoveType &M : MoveTypes)
    for (long N : {0L, 1L, 5L, 100L, 3000L, 40000L}) {
      const long Count = M.T == MPI_CHAR ? N * 8 : N; // chars: reach the byte thresholds
      for (int Root : {0, Size - 1, Size / 2}) {
        auto Want = buffer(Count, M.T), Got = buffer(Count, M.T);
        if (Rank == Root) {
          pattern(Want, Root);
          Got = Want;
        }
        MPI_Bcast(Want.data(), (int)Count, M.T, Root, Comm);
        testing::resetCounts(Site);
        coll::bcast(Site, Got.data(), (int)Count, M.T, Root, Comm);
        const std::string What =
            name("bcast", M.Name, Count, ("root=" + std::to_string(Root)).c_str());
        checkTransport(What);
        expectEqual(Want, Got, What);
        exercised(coll::Coll::Bcast, uint64_t(sizeOf(M.T)) * Count);
      }
    }
}

void runReduce() {
  for (const RedCase &RC : RedCases)
    for (long Count : countsFor(RC.Big))
      for (int Root : {0, Size - 1, Size / 2})
        for (bool InPlace : {false, true}) {
          auto In = buffer(Count, RC.T), Want = buffer(Count, RC.T), Got = buffer(Count, RC.T);
          RC.Fill(In.data(), Count, 1);
          const bool Here = InPlace && Rank == Root;
          if (Here) {
            Want = In;
            Got = In;
          }
          // The reference runs out of place: MPICH 4.0.2's MPI_Reduce with MPI_IN_PLACE at the
          // root reads from MPI_IN_PLACE itself for long vectors (segfault; docs/mpich.md).
          MPI_Reduce(In.data(), Want.data(), (int)Count, RC.T, RC.Op, Root, Comm);
          testing::resetCounts(Site);
          coll::reduce(Site, Here ? MPI_IN_PLACE : In.data(), Got.data(), (int)Count, RC.T, RC.Op,
                       Root, Comm);
          const std::string What = name(
              "reduce", RC.Name, Count,
              (std::string("root=") + std::to_string(Root) + (InPlace ? " in_place" : "")).c_str());
          checkTransport(What);
          if (Rank == Root)
            expectClose(RC, Want, Got, Count, What);
          exercised(coll::Coll::Reduce, uint64_t(sizeOf(RC.T)) * Count, commutative(RC.Op));
        }
}

void runAllreduce() {
  for (const RedCase &RC : RedCases)
    for (long Count : countsFor(RC.Big))
      for (bool InPlace : {false, true}) {
        auto In = buffer(Count, RC.T), Want = buffer(Count, RC.T), Got = buffer(Count, RC.T);
        RC.Fill(In.data(), Count, 2);
        if (InPlace) {
          Want = In;
          Got = In;
        }
        MPI_Allreduce(InPlace ? MPI_IN_PLACE : In.data(), Want.data(), (int)Count, RC.T, RC.Op,
                      Comm);
        testing::resetCounts(Site);
        coll::allreduce(Site, InPlace ? MPI_IN_PLACE : In.data(), Got.data(), (int)Count, RC.T,
                        RC.Op, Comm);
        const std::string What = name("allreduce", RC.Name, Count, InPlace ? "in_place" : "");
        checkTransport(What);
        expectClose(RC, Want, Got, Count, What);
        exercised(coll::Coll::Allreduce, uint64_t(sizeOf(RC.T)) * Count, commutative(RC.Op));
      }
}

// Gather and scatter also pair a derived send type with a plain receive type of the same
// signature (vector of 6 ints <-> 6 ints).
struct TypePair {
  const char *Name;
  MPI_Datatype Send, Recv;
  int RecvPerSend;
};
std::vector<TypePair> typePairs() {
  std::vector<TypePair> P;
  for (const MoveType &M : MoveTypes)
    P.push_back({M.Name, M.T, M.T, 1});
  P.push_back({"vector->int", MoveTypes[4].T, MPI_INT, 6});
  return P;
}

/// The reference gather. MPICH 4.0.2's binomial MPI_Gather and MPI_Scatter truncate messages
/// of the padded struct type ("Message truncated", docs/mpich.md): there the references go
/// point to point.
void referenceGather(const void *In, int N, MPI_Datatype ST, void *Out, int RN, MPI_Datatype RT,
                     int Root) {
#if defined(MPICH_VERSION)
  if (Rank != Root) {
    MPI_Send(In, N, ST, Root, 98, Comm);
    return;
  }
  MPI_Aint Lb = 0, Extent = 0;
  MPI_Type_get_extent(RT, &Lb, &Extent);
  for (int R = 0; R < Size; ++R) {
    char *Block = static_cast<char *>(Out) + R * RN * Extent;
    if (R != Root)
      MPI_Recv(Block, RN, RT, R, 98, Comm, MPI_STATUS_IGNORE);
    else if (In != MPI_IN_PLACE)
      MPI_Sendrecv(In, N, ST, Root, 98, Block, RN, RT, Root, 98, Comm, MPI_STATUS_IGNORE);
  }
#else
  MPI_Gather(In, N, ST, Out, RN, RT, Root, Comm);
#endif
}

/// The reference scatter (see referenceGather).
void referenceScatter(const void *In, int N, MPI_Datatype ST, void *Out, int RN, MPI_Datatype RT,
                      int Root) {
#if defined(MPICH_VERSION)
  if (Rank != Root) {
    MPI_Recv(Out, RN, RT, Root, 99, Comm, MPI_STATUS_IGNORE);
    return;
  }
  MPI_Aint Lb = 0, Extent = 0;
  MPI_Type_get_extent(ST, &Lb, &Extent);
  for (int R = 0; R < Size; ++R) {
    const char *Block = static_cast<const char *>(In) + R * N * Extent;
    if (R != Root)
      MPI_Send(Block, N, ST, R, 99, Comm);
    else if (Out != MPI_IN_PLACE)
      MPI_Sendrecv(Block, N, ST, Root, 99, Out, RN, RT, Root, 99, Comm, MPI_STATUS_IGNORE);
  }
#else
  MPI_Scatter(In, N, ST, Out, RN, RT, Root, Comm);
#endif
}

void runGather() {
  for (const TypePair &TP : typePairs())
    for (long N : {0L, 1L, 3L, 200L, 9000L})
      for (int Root : {0, Size - 1, Size / 2})
        for (bool InPlace : {false, true}) {
          const long RN = N * TP.RecvPerSend;
          auto In = buffer(N, TP.Send), Want = buffer(RN * Size, TP.Recv);
          pattern(In, 3);
          auto Got = Want;
          const bool Here = InPlace && Rank == Root;
          if (Here) { // the root's block is already in place
            pattern(Want, 4);
            Got = Want;
          }
          referenceGather(Here ? MPI_IN_PLACE : In.data(), (int)N, TP.Send, Want.data(), (int)RN,
                          TP.Recv, Root);
          testing::resetCounts(Site);
          coll::gather(Site, Here ? MPI_IN_PLACE : In.data(), (int)N, TP.Send, Got.data(), (int)RN,
                       TP.Recv, Root, Comm);
          const std::string What = name(
              "gather", TP.Name, N,
              (std::string("root=") + std::to_string(Root) + (InPlace ? " in_place" : "")).c_str());
          checkTransport(What);
          if (Rank == Root)
            expectEqual(Want, Got, What);
          exercised(coll::Coll::Gather, uint64_t(sizeOf(TP.Send)) * N);
        }
}

void runScatter() {
  for (const TypePair &TP : typePairs())
    for (long N : {0L, 1L, 3L, 200L, 9000L})
      for (int Root : {0, Size - 1, Size / 2})
        for (bool InPlace : {false, true}) {
          const long RN = N * TP.RecvPerSend;
          auto In = buffer(N * Size, TP.Send), Want = buffer(RN, TP.Recv);
          pattern(In, 5);
          auto Got = Want;
          const bool Here = InPlace && Rank == Root;
          referenceScatter(In.data(), (int)N, TP.Send, Here ? MPI_IN_PLACE : Want.data(), (int)RN,
                           TP.Recv, Root);
          testing::resetCounts(Site);
          coll::scatter(Site, In.data(), (int)N, TP.Send, Here ? MPI_IN_PLACE : Got.data(), (int)RN,
                        TP.Recv, Root, Comm);
          const std::string What = name(
              "scatter", TP.Name, N,
              (std::string("root=") + std::to_string(Root) + (InPlace ? " in_place" : "")).c_str());
          checkTransport(What);
          expectEqual(Want, Got, What);
          exercised(coll::Coll::Scatter, uint64_t(sizeOf(TP.Send)) * N);
        }
}

void runAllgather() {
  for (const TypePair &TP : typePairs())
    for (long N : {0L, 1L, 3L, 200L, 9000L, 70000L})
      for (bool InPlace : {false, true}) {
        if (N == 70000 && TP.Send != MPI_CHAR)
          continue;
        const long RN = N * TP.RecvPerSend;
        auto In = buffer(N, TP.Send), Want = buffer(RN * Size, TP.Recv);
        pattern(In, 6);
        if (InPlace)
          pattern(Want, 7); // every rank's own block is in place; the rest is overwritten
        auto Got = Want;
        MPI_Allgather(InPlace ? MPI_IN_PLACE : In.data(), (int)N, TP.Send, Want.data(), (int)RN,
                      TP.Recv, Comm);
        testing::resetCounts(Site);
        coll::allgather(Site, InPlace ? MPI_IN_PLACE : In.data(), (int)N, TP.Send, Got.data(),
                        (int)RN, TP.Recv, Comm);
        const std::string What = name("allgather", TP.Name, N, InPlace ? "in_place" : "");
        checkTransport(What);
        expectEqual(Want, Got, What);
        exercised(coll::Coll::Allgather,
                  coll::allgatherBytes(Size, uint64_t(sizeOf(TP.Recv)) * RN * Size));
      }
}

void runAlltoall() {
  for (const TypePair &TP : typePairs())
    for (long N : {0L, 1L, 3L, 200L, 3000L, 40000L})
      for (bool InPlace : {false, true}) {
        if (InPlace && TP.Send != TP.Recv)
          continue;
        if (N == 40000 && TP.Send != MPI_CHAR && TP.Send != MPI_INT)
          continue;
        const long RN = N * TP.RecvPerSend;
        auto In = buffer(N * Size, TP.Send), Want = buffer(RN * Size, TP.Recv);
        pattern(In, 8);
        if (InPlace)
          Want = In;
        auto Got = Want;
        // The reference runs out of place (Want holds In): MPICH 4.0.2's in-place alltoall
        // truncates messages of the padded struct type (docs/mpich.md).
        MPI_Alltoall(In.data(), (int)N, TP.Send, Want.data(), (int)RN, TP.Recv, Comm);
        testing::resetCounts(Site);
        coll::alltoall(Site, InPlace ? MPI_IN_PLACE : In.data(), (int)N, TP.Send, Got.data(),
                       (int)RN, TP.Recv, Comm);
        const std::string What = name("alltoall", TP.Name, N, InPlace ? "in_place" : "");
        checkTransport(What);
        expectEqual(Want, Got, What);
        exercised(coll::Coll::Alltoall, uint64_t(sizeOf(TP.Send)) * N);
      }
}

/// Uneven counts with zeros: rank r's block is Scale * ((r * 5 + Salt) % 4), 0 for some.
std::vector<int> unevenCounts(int Scale, int Salt) {
  std::vector<int> C(Size);
  for (int R = 0; R < Size; ++R)
    C[R] = Scale * ((R * 5 + Salt) % 4);
  return C;
}
/// Displacements with gaps (1 element between blocks) so untouched bytes are checked too.
std::vector<int> gappedDispls(const std::vector<int> &C) {
  std::vector<int> D(C.size());
  int At = 0;
  for (size_t I = 0; I < C.size(); ++I) {
    D[I] = At;
    At += C[I] + 1;
  }
  return D;
}
long spanOf(const std::vector<int> &C, const std::vector<int> &D) {
  long E = 0;
  for (size_t I = 0; I < C.size(); ++I)
    E = std::max(E, long(D[I]) + C[I]);
  return E;
}

void runVector() {
  for (const MoveType &M : MoveTypes)
    for (int Scale : {1, 50, 6000})
      for (int Root : {0, Size - 1})
        for (bool InPlace : {false, true}) {
          if (Scale == 6000 && M.T != MPI_INT && M.T != MPI_CHAR)
            continue;
          const std::string Extra = "scale=" + std::to_string(Scale) +
                                    " root=" + std::to_string(Root) + (InPlace ? " in_place" : "");
          const auto C = unevenCounts(Scale, Root), D = gappedDispls(C);
          const long Span = spanOf(C, D);
          const bool Here = InPlace && Rank == Root;
          { // Gatherv
            auto In = buffer(C[Rank], M.T), Want = buffer(Span, M.T);
            pattern(In, 9);
            if (Here)
              pattern(Want, 10);
            auto Got = Want;
            MPI_Gatherv(Here ? MPI_IN_PLACE : In.data(), C[Rank], M.T, Want.data(), C.data(),
                        D.data(), M.T, Root, Comm);
            testing::resetCounts(Site);
            coll::gatherv(Site, Here ? MPI_IN_PLACE : In.data(), C[Rank], M.T, Got.data(), C.data(),
                          D.data(), M.T, Root, Comm);
            const std::string What = name("gatherv", M.Name, Scale, Extra.c_str());
            checkTransport(What);
            if (Rank == Root)
              expectEqual(Want, Got, What);
          }
          { // Scatterv
            auto In = buffer(Span, M.T), Want = buffer(C[Rank], M.T);
            pattern(In, 11);
            auto Got = Want;
            MPI_Scatterv(In.data(), C.data(), D.data(), M.T, Here ? MPI_IN_PLACE : Want.data(),
                         C[Rank], M.T, Root, Comm);
            testing::resetCounts(Site);
            coll::scatterv(Site, In.data(), C.data(), D.data(), M.T,
                           Here ? MPI_IN_PLACE : Got.data(), C[Rank], M.T, Root, Comm);
            const std::string What = name("scatterv", M.Name, Scale, Extra.c_str());
            checkTransport(What);
            expectEqual(Want, Got, What);
          }
          if (Root != 0)
            continue;
          { // Allgatherv
            auto In = buffer(C[Rank], M.T), Want = buffer(Span, M.T);
            pattern(In, 12);
            if (InPlace)
              pattern(Want, 13);
            auto Got = Want;
            MPI_Allgatherv(InPlace ? MPI_IN_PLACE : In.data(), C[Rank], M.T, Want.data(), C.data(),
                           D.data(), M.T, Comm);
            testing::resetCounts(Site);
            coll::allgatherv(Site, InPlace ? MPI_IN_PLACE : In.data(), C[Rank], M.T, Got.data(),
                             C.data(), D.data(), M.T, Comm);
            const std::string What = name("allgatherv", M.Name, Scale, Extra.c_str());
            checkTransport(What);
            expectEqual(Want, Got, What);
            long Total = 0;
            for (int X : C)
              Total += X;
            exercised(coll::Coll::Allgatherv,
                      coll::allgatherBytes(Size, uint64_t(sizeOf(M.T)) * Total));
          }
          { // Alltoallv: rank r sends SC[j] = f(r, j) to j, which receives RC[r] = f(r, j)
            std::vector<int> SC(Size), RC(Size);
            for (int J = 0; J < Size; ++J) {
              SC[J] = Scale * ((Rank * 3 + J * 5 + 1) % 4);
              RC[J] = Scale * ((J * 3 + Rank * 5 + 1) % 4);
            }
            if (InPlace) // in place, what r sends to j must be what j expects from r
              for (int J = 0; J < Size; ++J)
                SC[J] = RC[J] = Scale * ((J + Rank + 1) % 4);
            const auto SD = gappedDispls(SC), RD = gappedDispls(RC);
            auto In = buffer(spanOf(SC, SD), M.T), Want = buffer(spanOf(RC, RD), M.T);
            pattern(In, 14);
            if (InPlace)
              pattern(Want, 15);
            auto Got = Want;
            {
              // In place, the reference sends from a copy of Want (MPICH 4.0.2's in-place
              // alltoall(v) truncates messages of the padded struct type, docs/mpich.md).
              const auto Mine = Want;
              if (InPlace)
                MPI_Alltoallv(Mine.data(), RC.data(), RD.data(), M.T, Want.data(), RC.data(),
                              RD.data(), M.T, Comm);
              else
                MPI_Alltoallv(In.data(), SC.data(), SD.data(), M.T, Want.data(), RC.data(),
                              RD.data(), M.T, Comm);
              testing::resetCounts(Site);
              coll::alltoallv(Site, InPlace ? MPI_IN_PLACE : In.data(), SC.data(), SD.data(), M.T,
                              Got.data(), RC.data(), RD.data(), M.T, Comm);
              const std::string What = name("alltoallv", M.Name, Scale, Extra.c_str());
              checkTransport(What);
              expectEqual(Want, Got, What);
            }
          }
        }
}

void runReduceScatter() {
  for (const RedCase &RC : RedCases) {
    std::vector<long> Counts = countsFor(RC.Big / std::max(Size, 1));
    // Past 512 KiB in total at any size (MPICH's pairwise exchange), once.
    if (std::string(RC.Name) == "int/sum")
      Counts.push_back(140000);
    for (long Count : Counts)
      for (bool InPlace : {false, true}) {
        // Reduce_scatter_block: Count per rank.
        {
          const long Total = Count * Size;
          auto In = buffer(Total, RC.T), Want = buffer(Total, RC.T);
          RC.Fill(In.data(), Total, 3);
          if (InPlace)
            Want = In;
          auto Got = Want;
          MPI_Reduce_scatter_block(InPlace ? MPI_IN_PLACE : In.data(), Want.data(), (int)Count,
                                   RC.T, RC.Op, Comm);
          testing::resetCounts(Site);
          coll::reduceScatterBlock(Site, InPlace ? MPI_IN_PLACE : In.data(), Got.data(), (int)Count,
                                   RC.T, RC.Op, Comm);
          const std::string What =
              name("reduce_scatter_block", RC.Name, Count, InPlace ? "in_place" : "");
          checkTransport(What);
          // Only the rank's own block is defined afterwards.
          Want.resize(static_cast<size_t>(Count * extentOf(RC.T)));
          Got.resize(Want.size());
          expectClose(RC, Want, Got, Count, What);
          exercised(coll::Coll::ReduceScatterBlock,
                    coll::reduceScatterBlockBytes(Size, uint64_t(sizeOf(RC.T)) * Count),
                    commutative(RC.Op));
        }
        // Reduce_scatter: uneven counts with zeros.
        {
          std::vector<int> C(Size);
          long Total = 0;
          for (int R = 0; R < Size; ++R) {
            C[R] = R % 3 == 1 ? 0 : int(Count) * (1 + R % 2);
            Total += C[R];
          }
          auto In = buffer(Total, RC.T), Want = buffer(Total, RC.T);
          RC.Fill(In.data(), Total, 4);
          if (InPlace)
            Want = In;
          auto Got = Want;
          MPI_Reduce_scatter(InPlace ? MPI_IN_PLACE : In.data(), Want.data(), C.data(), RC.T, RC.Op,
                             Comm);
          testing::resetCounts(Site);
          coll::reduceScatter(Site, InPlace ? MPI_IN_PLACE : In.data(), Got.data(), C.data(), RC.T,
                              RC.Op, Comm);
          const std::string What =
              name("reduce_scatter", RC.Name, Count, InPlace ? "in_place" : "");
          checkTransport(What);
          Want.resize(static_cast<size_t>(C[Rank] * extentOf(RC.T)));
          Got.resize(Want.size());
          expectClose(RC, Want, Got, C[Rank], What);
          exercised(coll::Coll::ReduceScatter, uint64_t(sizeOf(RC.T)) * Total, commutative(RC.Op));
        }
      }
  }
}

void runScan() {
  for (const RedCase &RC : RedCases)
    for (long Count : {0L, 1L, 7L, 300L})
      for (bool InPlace : {false, true})
        for (bool Ex : {false, true}) {
          auto In = buffer(Count, RC.T), Want = buffer(Count, RC.T);
          RC.Fill(In.data(), Count, 5);
          if (InPlace)
            Want = In;
          auto Got = Want;
          const void *S = InPlace ? MPI_IN_PLACE : In.data();
          if (Ex)
            MPI_Exscan(S, Want.data(), (int)Count, RC.T, RC.Op, Comm);
          else
            MPI_Scan(S, Want.data(), (int)Count, RC.T, RC.Op, Comm);
          testing::resetCounts(Site);
          if (Ex)
            coll::exscan(Site, S, Got.data(), (int)Count, RC.T, RC.Op, Comm);
          else
            coll::scan(Site, S, Got.data(), (int)Count, RC.T, RC.Op, Comm);
          const std::string What =
              name(Ex ? "exscan" : "scan", RC.Name, Count, InPlace ? "in_place" : "");
          checkTransport(What);
          if (!(Ex && Rank == 0)) // rank 0's exscan result is undefined
            expectClose(RC, Want, Got, Count, What);
        }
}

/// The neighbourhood collectives on Cartesian communicators over Comm: 1-D periodic and not, a
/// 2-D grid periodic along one dimension, and one with a periodic dimension of size 1 (the rank
/// its own neighbour) and one of size Size (periodic: at 2 ranks both neighbours are one rank).
void runNeighbor() {
  struct Topo {
    const char *Name;
    std::vector<int> Dims, Periods;
  };
  int Grid[2] = {0, 0};
  MPI_Dims_create(Size, 2, Grid);
  const std::vector<Topo> Topos = {{"ring", {Size}, {1}},
                                   {"line", {Size}, {0}},
                                   {"grid", {Grid[0], Grid[1]}, {1, 0}},
                                   {"self", {Size, 1}, {1, 1}},
                                   {"open3", {1, Size, 1}, {0, 0, 1}}};
  for (const Topo &T : Topos) {
    MPI_Comm Cart;
    MPI_Cart_create(Comm, int(T.Dims.size()), T.Dims.data(), T.Periods.data(), 0, &Cart);
    testing::registerComm(Cart);
    const int Nb = 2 * int(T.Dims.size());
    if (coll::neighborCount(Cart) != Nb) {
      ++Failures;
      std::fprintf(stderr, "rank %d: %s: neighborCount %d, want %d\n", Rank, T.Name,
                   coll::neighborCount(Cart), Nb);
    }
    for (const TypePair &TP : typePairs())
      for (long N : {0L, 1L, 5L, 3000L}) {
        const long RN = N * TP.RecvPerSend;
        const std::string Extra = std::string("topology=") + T.Name;
        { // alltoall: a block per neighbour
          auto In = buffer(N * Nb, TP.Send), Want = buffer(RN * Nb, TP.Recv);
          pattern(In, 11);
          auto Got = Want;
          MPI_Neighbor_alltoall(In.data(), (int)N, TP.Send, Want.data(), (int)RN, TP.Recv, Cart);
          testing::resetCounts(Site);
          coll::neighborAlltoall(Site, In.data(), (int)N, TP.Send, Got.data(), (int)RN, TP.Recv,
                                 Cart);
          const std::string What = name("neighbor_alltoall", TP.Name, N, Extra.c_str());
          checkTransport(What);
          expectEqual(Want, Got, What);
        }
        { // allgather: the same buffer to every neighbour
          auto In = buffer(N, TP.Send), Want = buffer(RN * Nb, TP.Recv);
          pattern(In, 12);
          auto Got = Want;
          MPI_Neighbor_allgather(In.data(), (int)N, TP.Send, Want.data(), (int)RN, TP.Recv, Cart);
          testing::resetCounts(Site);
          coll::neighborAllgather(Site, In.data(), (int)N, TP.Send, Got.data(), (int)RN, TP.Recv,
                                  Cart);
          const std::string What = name("neighbor_allgather", TP.Name, N, Extra.c_str());
          checkTransport(What);
          expectEqual(Want, Got, What);
        }
      }
    // The v-variants: uneven counts (zeros included) at gapped displacements, one type.
    const MPI_Datatype T1 = MoveTypes[0].T;
    for (int Scale : {1, 700}) {
      // A count per dimension (0 along some): both directions of a dimension carry the same
      // count, as they must where the two neighbours are one rank (blocks match in order).
      std::vector<int> RC(size_t(Nb), 0);
      for (int I = 0; I < Nb; ++I)
        RC[size_t(I)] = Scale * ((I / 2 + 1) % 3);
      const std::vector<int> &SC = RC;
      const std::vector<int> SD = gappedDispls(SC), RD = gappedDispls(RC);
      const long SLen = SD.empty() ? 0 : SD.back() + SC.back() + 3,
                 RLen = RD.empty() ? 0 : RD.back() + RC.back() + 3;
      auto In = buffer(SLen, T1), Want = buffer(RLen, T1);
      pattern(In, 13);
      auto Got = Want;
      MPI_Neighbor_alltoallv(In.data(), SC.data(), SD.data(), T1, Want.data(), RC.data(), RD.data(),
                             T1, Cart);
      testing::resetCounts(Site);
      coll::neighborAlltoallv(Site, In.data(), SC.data(), SD.data(), T1, Got.data(), RC.data(),
                              RD.data(), T1, Cart);
      std::string What = name("neighbor_alltoallv", MoveTypes[0].Name, Scale, T.Name);
      checkTransport(What);
      expectEqual(Want, Got, What);
      // allgatherv: every rank sends the same count, received at gapped displacements.
      std::vector<int> GC(size_t(Nb), Scale), GD = gappedDispls(GC);
      const long GLen = GD.back() + GC.back() + 3;
      auto GIn = buffer(Scale, T1), GWant = buffer(GLen, T1);
      pattern(GIn, 14);
      auto GGot = GWant;
      MPI_Neighbor_allgatherv(GIn.data(), Scale, T1, GWant.data(), GC.data(), GD.data(), T1, Cart);
      testing::resetCounts(Site);
      coll::neighborAllgatherv(Site, GIn.data(), Scale, T1, GGot.data(), GC.data(), GD.data(), T1,
                               Cart);
      What = name("neighbor_allgatherv", MoveTypes[0].Name, Scale, T.Name);
      checkTransport(What);
      expectEqual(GWant, GGot, What);
      // alltoallw: dimension d's blocks in type d % NT (both directions alike), byte
      // displacements with gaps.
      std::vector<MPI_Datatype> WT(static_cast<size_t>(Nb));
      std::vector<MPI_Aint> WD(static_cast<size_t>(Nb));
      MPI_Aint WLen = 0;
      for (int I = 0; I < Nb; ++I) {
        WT[size_t(I)] = MoveTypes[size_t(I / 2) % MoveTypes.size()].T;
        WD[size_t(I)] = WLen;
        WLen += MPI_Aint(RC[size_t(I)]) * extentOf(WT[size_t(I)]) + 8;
      }
      std::vector<unsigned char> WIn(size_t(WLen) + 1), WWant(size_t(WLen) + 1, 0xA5);
      pattern(WIn, 15);
      auto WGot = WWant;
      MPI_Neighbor_alltoallw(WIn.data(), SC.data(), WD.data(), WT.data(), WWant.data(), RC.data(),
                             WD.data(), WT.data(), Cart);
      testing::resetCounts(Site);
      coll::neighborAlltoallw(Site, WIn.data(), SC.data(), WD.data(), WT.data(), WGot.data(),
                              RC.data(), WD.data(), WT.data(), Cart);
      What = name("neighbor_alltoallw", "mixed", Scale, T.Name);
      checkTransport(What);
      expectEqual(WWant, WGot, What);
    }
    testing::unregisterComm(Cart);
    MPI_Comm_free(&Cart);
  }
  Exercised.insert("neighbor/linear");
}

/// MPI_Alltoallw: a different datatype per peer (the move types in turn, shifted by the rank, so
/// the send type to j is the type j receives from this rank), uneven counts with zeros, byte
/// displacements with gaps; out of place and in place.
void runAlltoallw() {
  const size_t NT = MoveTypes.size();
  for (int Scale : {1, 40, 3000})
    for (bool InPlace : {false, true}) {
      std::vector<int> SC(Size), SD(Size), RC(Size), RD(Size);
      std::vector<MPI_Datatype> ST(Size), RT(Size);
      long SBytes = 0, RBytes = 0;
      for (int J = 0; J < Size; ++J) {
        // Block (i -> j): type (i + j) % NT, count Scale * ((i + 2 j) % 3) (0 for some).
        const int Send = Scale * ((Rank + 2 * J) % 3), Recv = Scale * ((J + 2 * Rank) % 3);
        ST[J] = MoveTypes[size_t(Rank + J) % NT].T;
        RT[J] = MoveTypes[size_t(J + Rank) % NT].T;
        SC[J] = Send;
        RC[J] = Recv;
        SD[J] = int(SBytes);
        SBytes += long(Send) * extentOf(ST[J]) + 8;
        RD[J] = int(RBytes);
        RBytes += long(Recv) * extentOf(RT[J]) + 8;
      }
      if (InPlace) { // in place every peer's block has the receive layout, and (i, j) and
                     // (j, i) must agree: the counts (i + 2 j) % 3 and (j + 2 i) % 3 differ,
                     // so use a symmetric count.
        RBytes = 0;
        for (int J = 0; J < Size; ++J) {
          RC[J] = Scale * ((Rank + J) % 3);
          RD[J] = int(RBytes);
          RBytes += long(RC[J]) * extentOf(RT[J]) + 8;
        }
      }
      std::vector<unsigned char> In(size_t(SBytes) + 1), Want(size_t(RBytes) + 1, 0xA5);
      pattern(In, 21);
      pattern(Want, 22);
      auto Got = Want;
      if (InPlace)
        MPI_Alltoallw(MPI_IN_PLACE, nullptr, nullptr, nullptr, Want.data(), RC.data(), RD.data(),
                      RT.data(), Comm);
      else
        MPI_Alltoallw(In.data(), SC.data(), SD.data(), ST.data(), Want.data(), RC.data(), RD.data(),
                      RT.data(), Comm);
      testing::resetCounts(Site);
      if (InPlace)
        coll::alltoallw(Site, MPI_IN_PLACE, nullptr, nullptr, nullptr, Got.data(), RC.data(),
                        RD.data(), RT.data(), Comm);
      else
        coll::alltoallw(Site, In.data(), SC.data(), SD.data(), ST.data(), Got.data(), RC.data(),
                        RD.data(), RT.data(), Comm);
      const std::string What = name("alltoallw", "mixed", Scale, InPlace ? "in_place" : "");
      checkTransport(What);
      expectEqual(Want, Got, What);
    }
  Exercised.insert("alltoallw/linear");
}

void runBarrier() {
  // A barrier has no result: check it completes, stays in its block, and really synchronises
  // (a rank leaving before another entered would see that rank's flag unset).
  for (int Round = 0; Round < 5; ++Round) {
    testing::resetCounts(Site);
    coll::barrier(Site, Comm);
    checkTransport("barrier");
    ++Cases;
  }
  exercised(coll::Coll::Barrier, 0);
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  makeTypes();
  makeRedCases();
  std::vector<std::pair<std::string, void (*)()>> Families = {
      {"barrier", runBarrier},       {"bcast", runBcast},       {"reduce", runReduce},
      {"allreduce", runAllreduce},   {"gather", runGather},     {"scatter", runScatter},
      {"allgather", runAllgather},   {"alltoall", runAlltoall}, {"vector", runVector},
      {"redscat", runReduceScatter}, {"scan", runScan},         {"neighbor", runNeighbor},
      {"alltoallw", runAlltoallw}};
  // Twice: on MPI_COMM_WORLD and on a communicator with the ranks in reverse order.
  MPI_Comm Reversed;
  MPI_Comm_split(MPI_COMM_WORLD, 0, Size - Rank, &Reversed);
  for (MPI_Comm C : {MPI_COMM_WORLD, Reversed}) {
    Comm = C;
    MPI_Comm_rank(C, &Rank);
    testing::registerComm(C);
    for (auto &[Name, Run] : Families) {
      // The reversed communicator re-runs the families where roots and rank order matter
      // most; the others take long enough once.
      const bool Reordered = C != MPI_COMM_WORLD;
      if (Reordered &&
          (Name == "redscat" || Name == "alltoall" || Name == "allgather" || Name == "neighbor"))
        continue;
      bool Wanted = argc == 1;
      for (int I = 1; I < argc; ++I)
        Wanted = Wanted || Name == argv[I];
      if (Wanted)
        Run();
    }
    testing::unregisterComm(C);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  long Total[2] = {Cases, Failures}, Sum[2];
  MPI_Reduce(Total, Sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (Rank == 0) {
    std::printf("coll_check np=%d: %ld case checks, %ld mismatches\n", Size, Sum[0], Sum[1]);
    std::string Line;
    for (const std::string &E : Exercised)
      Line += E + " ";
    std::printf("algorithms reached: %s\n", Line.c_str());
  }
  MPI_Comm_free(&Reversed);
  MPI_Finalize();
  return Rank == 0 && Sum[1] != 0 ? 1 : 0;
}
