// The decision tables of the lowered collectives. Each table is a flat list of rules read top
// to bottom: the first rule whose collective and commutativity match and whose communicator
// size and byte bounds (both exclusive) exceed the call's is taken. A table for another
// library is one more array; the algorithms it names must exist in Collectives.cpp.
//
// The Open MPI 4.1 rules restate the switch points of its coll/tuned fixed decision
// (coll_tuned_decision_fixed.c, v4.1.x); Gatherv, Scatterv, Scan and Exscan are not provided
// by coll/tuned in 4.1, so coll/basic's linear versions run.
#include "CollDecision.h"

#include <mpi.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace mpiete::coll {
namespace {

enum Commute : uint8_t { NonCommutative = 0, Commutative = 1, Either = 2 };

enum SizeShape : uint8_t { AnySize = 0, Pow2Size = 1 };

struct Rule {
  Coll C;
  Commute K;
  int CommBelow;       // applies when the communicator size < CommBelow
  uint64_t BytesBelow; // ... and the message bytes < BytesBelow
  Algo A;
  SizeShape S = AnySize; // ... and, if Pow2Size, the size is a power of two
};

constexpr int AnyComm = INT_MAX;
constexpr uint64_t AnyBytes = UINT64_MAX;

using enum Algo;
using enum Coll;

// clang-format off
constexpr Rule OpenMpi41Rules[] = {
  // Barrier: by communicator size only.
  {Barrier, Either, 4, AnyBytes, RecursiveDoubling},
  {Barrier, Either, 8, AnyBytes, Linear},
  {Barrier, Either, 64, AnyBytes, RecursiveDoubling},
  {Barrier, Either, 256, AnyBytes, Bruck},
  {Barrier, Either, 512, AnyBytes, Tree},
  {Barrier, Either, 1024, AnyBytes, Bruck},
  {Barrier, Either, 4096, AnyBytes, Tree},
  {Barrier, Either, AnyComm, AnyBytes, Bruck},

  // Bcast: bytes = count * type size. "pipeline" and "chain" are the same unsegmented chain.
  {Bcast, Either, 4, 32, Chain}, {Bcast, Either, 4, 256, Binary}, {Bcast, Either, 4, 512, Chain},
  {Bcast, Either, 4, 1024, Knomial}, {Bcast, Either, 4, 32768, Linear},
  {Bcast, Either, 4, 131072, Binary}, {Bcast, Either, 4, 262144, Chain},
  {Bcast, Either, 4, 524288, Linear}, {Bcast, Either, 4, 1048576, Binomial},
  {Bcast, Either, 4, AnyBytes, Binary},
  {Bcast, Either, 8, 64, Binary}, {Bcast, Either, 8, 128, Binomial},
  {Bcast, Either, 8, 2048, Binary}, {Bcast, Either, 8, 8192, Binomial},
  {Bcast, Either, 8, 1048576, Linear}, {Bcast, Either, 8, AnyBytes, Chain},
  {Bcast, Either, 16, 8, Knomial}, {Bcast, Either, 16, 64, Binary},
  {Bcast, Either, 16, 4096, Knomial}, {Bcast, Either, 16, 16384, Binary},
  {Bcast, Either, 16, 32768, Binomial}, {Bcast, Either, 16, AnyBytes, Linear},
  {Bcast, Either, 32, 4096, Knomial}, {Bcast, Either, 32, 1048576, Binomial},
  {Bcast, Either, 32, AnyBytes, ScatterAllgather},
  {Bcast, Either, 64, 2048, Binomial}, {Bcast, Either, 64, AnyBytes, Knomial},
  {Bcast, Either, 128, AnyBytes, Knomial},
  {Bcast, Either, 256, 2, Binomial}, {Bcast, Either, 256, 16384, Binary},
  {Bcast, Either, 256, 32768, Linear}, {Bcast, Either, 256, 65536, Binary},
  {Bcast, Either, 256, AnyBytes, Knomial},
  {Bcast, Either, 1024, 16384, Knomial}, {Bcast, Either, 1024, 32768, SplitBinary},
  {Bcast, Either, 1024, AnyBytes, Knomial},
  {Bcast, Either, 2048, 524288, Knomial}, {Bcast, Either, 2048, AnyBytes, ScatterAllgather},
  {Bcast, Either, 4096, 262144, Knomial}, {Bcast, Either, 4096, AnyBytes, ScatterAllgather},
  {Bcast, Either, AnyComm, 8192, Knomial}, {Bcast, Either, AnyComm, 16384, Binary},
  {Bcast, Either, AnyComm, 262144, Knomial}, {Bcast, Either, AnyComm, AnyBytes, ScatterAllgather},

  // Reduce: bytes = count * type size.
  {Reduce, NonCommutative, 4, 8, InOrderBinary}, {Reduce, NonCommutative, 4, AnyBytes, Linear},
  {Reduce, NonCommutative, 8, AnyBytes, Linear},
  {Reduce, NonCommutative, 16, 1024, InOrderBinary}, {Reduce, NonCommutative, 16, 8192, Linear},
  {Reduce, NonCommutative, 16, 16384, InOrderBinary},
  {Reduce, NonCommutative, 16, 262144, Linear},
  {Reduce, NonCommutative, 16, AnyBytes, InOrderBinary},
  {Reduce, NonCommutative, 128, AnyBytes, InOrderBinary},
  {Reduce, NonCommutative, 256, 512, InOrderBinary}, {Reduce, NonCommutative, 256, 1024, Linear},
  {Reduce, NonCommutative, AnyComm, AnyBytes, InOrderBinary},
  {Reduce, Commutative, 4, 8, Rabenseifner}, {Reduce, Commutative, 4, 16, Binary},
  {Reduce, Commutative, 4, 32, Chain}, {Reduce, Commutative, 4, 262144, Linear},
  {Reduce, Commutative, 4, 524288, Chain}, {Reduce, Commutative, 4, 1048576, Chain},
  {Reduce, Commutative, 4, AnyBytes, Chain},
  {Reduce, Commutative, 8, 4096, Binary}, {Reduce, Commutative, 8, 65536, Chain},
  {Reduce, Commutative, 8, 262144, Binomial}, {Reduce, Commutative, 8, 524288, Linear},
  {Reduce, Commutative, 8, 1048576, Binomial}, {Reduce, Commutative, 8, AnyBytes, Linear},
  {Reduce, Commutative, 16, 8192, Binary}, {Reduce, Commutative, 16, AnyBytes, Binomial},
  {Reduce, Commutative, 32, 4096, Binary}, {Reduce, Commutative, 32, AnyBytes, Binomial},
  {Reduce, Commutative, 256, AnyBytes, Binomial},
  {Reduce, Commutative, 512, 8192, Binomial}, {Reduce, Commutative, 512, 16384, InOrderBinary},
  {Reduce, Commutative, 512, AnyBytes, Binomial},
  {Reduce, Commutative, 2048, AnyBytes, Binomial},
  {Reduce, Commutative, 4096, 512, Binomial}, {Reduce, Commutative, 4096, 1024, InOrderBinary},
  {Reduce, Commutative, 4096, 8192, Binomial}, {Reduce, Commutative, 4096, 16384, InOrderBinary},
  {Reduce, Commutative, 4096, AnyBytes, Binomial},
  {Reduce, Commutative, AnyComm, 16, Binomial}, {Reduce, Commutative, AnyComm, 32, InOrderBinary},
  {Reduce, Commutative, AnyComm, 1024, Binomial}, {Reduce, Commutative, AnyComm, 2048, InOrderBinary},
  {Reduce, Commutative, AnyComm, 8192, Binomial}, {Reduce, Commutative, AnyComm, 16384, InOrderBinary},
  {Reduce, Commutative, AnyComm, AnyBytes, Binomial},

  // Allreduce: bytes = count * type size. Ring and segmented ring (unsegmented here) are one.
  {Allreduce, NonCommutative, 4, 131072, RecursiveDoubling},
  {Allreduce, NonCommutative, 4, AnyBytes, Linear},
  {Allreduce, NonCommutative, 8, AnyBytes, RecursiveDoubling},
  {Allreduce, NonCommutative, 16, 1048576, RecursiveDoubling},
  {Allreduce, NonCommutative, 16, AnyBytes, Nonoverlapping},
  {Allreduce, NonCommutative, 128, AnyBytes, RecursiveDoubling},
  {Allreduce, NonCommutative, 256, 131072, Nonoverlapping},
  {Allreduce, NonCommutative, 256, 524288, RecursiveDoubling},
  {Allreduce, NonCommutative, 256, AnyBytes, Nonoverlapping},
  {Allreduce, NonCommutative, 512, 4096, Nonoverlapping},
  {Allreduce, NonCommutative, 512, 524288, RecursiveDoubling},
  {Allreduce, NonCommutative, 512, AnyBytes, Nonoverlapping},
  {Allreduce, NonCommutative, AnyComm, 2048, Nonoverlapping},
  {Allreduce, NonCommutative, AnyComm, AnyBytes, RecursiveDoubling},
  {Allreduce, Commutative, 4, 8, Ring}, {Allreduce, Commutative, 4, 4096, RecursiveDoubling},
  {Allreduce, Commutative, 4, 8192, Ring}, {Allreduce, Commutative, 4, 16384, RecursiveDoubling},
  {Allreduce, Commutative, 4, 65536, Ring}, {Allreduce, Commutative, 4, 262144, Ring},
  {Allreduce, Commutative, 4, AnyBytes, Rabenseifner},
  {Allreduce, Commutative, 8, 16, Ring}, {Allreduce, Commutative, 8, 8192, RecursiveDoubling},
  {Allreduce, Commutative, 8, AnyBytes, Rabenseifner},
  {Allreduce, Commutative, 16, 8192, RecursiveDoubling},
  {Allreduce, Commutative, 16, AnyBytes, Rabenseifner},
  {Allreduce, Commutative, 32, 64, Ring}, {Allreduce, Commutative, 32, 4096, RecursiveDoubling},
  {Allreduce, Commutative, 32, AnyBytes, Rabenseifner},
  {Allreduce, Commutative, 64, 128, Ring}, {Allreduce, Commutative, 64, AnyBytes, Rabenseifner},
  {Allreduce, Commutative, 128, 262144, RecursiveDoubling},
  {Allreduce, Commutative, 128, AnyBytes, Rabenseifner},
  {Allreduce, Commutative, 256, 131072, Nonoverlapping},
  {Allreduce, Commutative, 256, 262144, RecursiveDoubling},
  {Allreduce, Commutative, 256, AnyBytes, Rabenseifner},
  {Allreduce, Commutative, 512, 4096, Nonoverlapping},
  {Allreduce, Commutative, 512, AnyBytes, Rabenseifner},
  {Allreduce, Commutative, 2048, 2048, Nonoverlapping},
  {Allreduce, Commutative, 2048, 16384, RecursiveDoubling},
  {Allreduce, Commutative, 2048, AnyBytes, Rabenseifner},
  {Allreduce, Commutative, 4096, 2048, Nonoverlapping}, {Allreduce, Commutative, 4096, 4096, Ring},
  {Allreduce, Commutative, 4096, 16384, RecursiveDoubling},
  {Allreduce, Commutative, 4096, AnyBytes, Rabenseifner},
  {Allreduce, Commutative, AnyComm, 2048, Nonoverlapping},
  {Allreduce, Commutative, AnyComm, 16384, Ring},
  {Allreduce, Commutative, AnyComm, 32768, RecursiveDoubling},
  {Allreduce, Commutative, AnyComm, AnyBytes, Rabenseifner},

  // Gather: bytes = one rank's block.
  {Gather, Either, 4, 2, LinearSync}, {Gather, Either, 4, 4, Linear},
  {Gather, Either, 4, 32768, Binomial}, {Gather, Either, 4, 65536, Linear},
  {Gather, Either, 4, 131072, Binomial}, {Gather, Either, 4, AnyBytes, LinearSync},
  {Gather, Either, 8, 1024, Binomial}, {Gather, Either, 8, 8192, Linear},
  {Gather, Either, 8, 32768, Binomial}, {Gather, Either, 8, 262144, Linear},
  {Gather, Either, 8, AnyBytes, LinearSync},
  {Gather, Either, 256, AnyBytes, Binomial},
  {Gather, Either, 512, 2048, Binomial}, {Gather, Either, 512, 8192, Linear},
  {Gather, Either, 512, AnyBytes, Binomial},
  {Gather, Either, AnyComm, AnyBytes, Binomial},
  {Gatherv, Either, AnyComm, AnyBytes, Linear},

  // Scatter: bytes = one rank's block. The non-blocking linear variant sends the same messages.
  {Scatter, Either, 4, AnyBytes, Linear},
  {Scatter, Either, 8, 2048, Binomial}, {Scatter, Either, 8, 4096, Linear},
  {Scatter, Either, 8, 8192, Binomial}, {Scatter, Either, 8, AnyBytes, Linear},
  {Scatter, Either, 16, 16384, Binomial}, {Scatter, Either, 16, AnyBytes, Linear},
  {Scatter, Either, 32, 16384, Binomial}, {Scatter, Either, 32, AnyBytes, Linear},
  {Scatter, Either, 64, 512, Binomial}, {Scatter, Either, 64, 8192, Linear},
  {Scatter, Either, 64, 16384, Binomial}, {Scatter, Either, 64, AnyBytes, Linear},
  {Scatter, Either, AnyComm, 512, Binomial}, {Scatter, Either, AnyComm, AnyBytes, Linear},
  {Scatterv, Either, AnyComm, AnyBytes, Linear},

  // Allgather: bytes = one rank's block.
  {Allgather, Either, 3, AnyBytes, TwoProc},
  {Allgather, Either, 32, AnyBytes, RecursiveDoubling},
  {Allgather, Either, 64, 1024, RecursiveDoubling}, {Allgather, Either, 64, 65536, Neighbor},
  {Allgather, Either, 64, AnyBytes, Ring},
  {Allgather, Either, 128, 512, RecursiveDoubling}, {Allgather, Either, 128, 65536, Neighbor},
  {Allgather, Either, 128, AnyBytes, Ring},
  {Allgather, Either, 256, 512, RecursiveDoubling}, {Allgather, Either, 256, 131072, Neighbor},
  {Allgather, Either, 256, 524288, Ring}, {Allgather, Either, 256, 1048576, Neighbor},
  {Allgather, Either, 256, AnyBytes, Ring},
  {Allgather, Either, 512, 32, RecursiveDoubling}, {Allgather, Either, 512, 128, Bruck},
  {Allgather, Either, 512, 1024, RecursiveDoubling}, {Allgather, Either, 512, 131072, Neighbor},
  {Allgather, Either, 512, 524288, Ring}, {Allgather, Either, 512, 1048576, Neighbor},
  {Allgather, Either, 512, AnyBytes, Ring},
  {Allgather, Either, 1024, 64, RecursiveDoubling}, {Allgather, Either, 1024, 256, Bruck},
  {Allgather, Either, 1024, 2048, RecursiveDoubling}, {Allgather, Either, 1024, AnyBytes, Neighbor},
  {Allgather, Either, 2048, 4, RecursiveDoubling}, {Allgather, Either, 2048, 8, Bruck},
  {Allgather, Either, 2048, 16, RecursiveDoubling}, {Allgather, Either, 2048, 32, Bruck},
  {Allgather, Either, 2048, 256, RecursiveDoubling}, {Allgather, Either, 2048, 512, Bruck},
  {Allgather, Either, 2048, 4096, RecursiveDoubling}, {Allgather, Either, 2048, AnyBytes, Neighbor},
  {Allgather, Either, 4096, 32, Bruck}, {Allgather, Either, 4096, 128, RecursiveDoubling},
  {Allgather, Either, 4096, 512, Bruck}, {Allgather, Either, 4096, 4096, RecursiveDoubling},
  {Allgather, Either, 4096, AnyBytes, Neighbor},
  {Allgather, Either, AnyComm, 2, RecursiveDoubling}, {Allgather, Either, AnyComm, 8, Bruck},
  {Allgather, Either, AnyComm, 16, RecursiveDoubling}, {Allgather, Either, AnyComm, 512, Bruck},
  {Allgather, Either, AnyComm, 4096, RecursiveDoubling},
  {Allgather, Either, AnyComm, AnyBytes, Neighbor},

  // Allgatherv: bytes = the average block (sum of receive counts / size).
  {Allgatherv, Either, 3, 2048, Ring}, {Allgatherv, Either, 3, 4096, TwoProc},
  {Allgatherv, Either, 3, 8192, Ring}, {Allgatherv, Either, 3, AnyBytes, TwoProc},
  {Allgatherv, Either, 8, 256, GatherBcast}, {Allgatherv, Either, 8, 4096, Neighbor},
  {Allgatherv, Either, 8, 8192, Ring}, {Allgatherv, Either, 8, 16384, Neighbor},
  {Allgatherv, Either, 8, 262144, Bruck}, {Allgatherv, Either, 8, AnyBytes, Neighbor},
  {Allgatherv, Either, 16, 1024, GatherBcast}, {Allgatherv, Either, 16, AnyBytes, Bruck},
  {Allgatherv, Either, 32, 128, GatherBcast}, {Allgatherv, Either, 32, 262144, Bruck},
  {Allgatherv, Either, 32, AnyBytes, Ring},
  {Allgatherv, Either, 64, 256, GatherBcast}, {Allgatherv, Either, 64, 8192, Bruck},
  {Allgatherv, Either, 64, AnyBytes, Ring},
  {Allgatherv, Either, 128, 256, GatherBcast}, {Allgatherv, Either, 128, 4096, Bruck},
  {Allgatherv, Either, 128, AnyBytes, Ring},
  {Allgatherv, Either, 256, 1024, Bruck}, {Allgatherv, Either, 256, 65536, Neighbor},
  {Allgatherv, Either, 256, AnyBytes, Ring},
  {Allgatherv, Either, 512, 1024, Bruck}, {Allgatherv, Either, 512, AnyBytes, Ring},
  {Allgatherv, Either, 1024, 512, Bruck}, {Allgatherv, Either, 1024, 1024, GatherBcast},
  {Allgatherv, Either, 1024, 4096, Bruck}, {Allgatherv, Either, 1024, 1048576, Neighbor},
  {Allgatherv, Either, 1024, AnyBytes, Ring},
  {Allgatherv, Either, AnyComm, 4096, Bruck}, {Allgatherv, Either, AnyComm, AnyBytes, Neighbor},

  // Alltoall: bytes = one block (send count * type size). Two ranks: every variant is one
  // exchange.
  {Alltoall, Either, 3, AnyBytes, Pairwise},
  {Alltoall, Either, 8, 8192, LinearSync}, {Alltoall, Either, 8, 16384, Linear},
  {Alltoall, Either, 8, 65536, LinearSync}, {Alltoall, Either, 8, 524288, Linear},
  {Alltoall, Either, 8, 1048576, Pairwise}, {Alltoall, Either, 8, AnyBytes, Linear},
  {Alltoall, Either, 16, 262144, LinearSync}, {Alltoall, Either, 16, AnyBytes, Linear},
  {Alltoall, Either, 32, 4, LinearSync}, {Alltoall, Either, 32, 512, ModifiedBruck},
  {Alltoall, Either, 32, 8192, LinearSync}, {Alltoall, Either, 32, 32768, Linear},
  {Alltoall, Either, 32, 262144, LinearSync}, {Alltoall, Either, 32, 524288, Linear},
  {Alltoall, Either, 32, AnyBytes, LinearSync},
  {Alltoall, Either, 64, 512, ModifiedBruck}, {Alltoall, Either, 64, 524288, Linear},
  {Alltoall, Either, 64, AnyBytes, LinearSync},
  {Alltoall, Either, 128, 1024, ModifiedBruck}, {Alltoall, Either, 128, 2048, Linear},
  {Alltoall, Either, 128, 4096, LinearSync}, {Alltoall, Either, 128, 262144, Linear},
  {Alltoall, Either, 128, AnyBytes, Pairwise},
  {Alltoall, Either, 256, 1024, ModifiedBruck}, {Alltoall, Either, 256, 2048, LinearSync},
  {Alltoall, Either, 256, 262144, Linear}, {Alltoall, Either, 256, AnyBytes, Pairwise},
  {Alltoall, Either, 512, 1024, ModifiedBruck}, {Alltoall, Either, 512, 8192, LinearSync},
  {Alltoall, Either, 512, 32768, Linear}, {Alltoall, Either, 512, AnyBytes, Pairwise},
  {Alltoall, Either, 1024, 512, ModifiedBruck}, {Alltoall, Either, 1024, 8192, LinearSync},
  {Alltoall, Either, 1024, 16384, Linear}, {Alltoall, Either, 1024, 131072, LinearSync},
  {Alltoall, Either, 1024, 262144, Linear}, {Alltoall, Either, 1024, AnyBytes, Pairwise},
  {Alltoall, Either, 2048, 512, ModifiedBruck}, {Alltoall, Either, 2048, 1024, LinearSync},
  {Alltoall, Either, 2048, 2048, Linear}, {Alltoall, Either, 2048, 16384, LinearSync},
  {Alltoall, Either, 2048, 262144, Linear}, {Alltoall, Either, 2048, AnyBytes, LinearSync},
  {Alltoall, Either, 4096, 1024, ModifiedBruck}, {Alltoall, Either, 4096, 4096, LinearSync},
  {Alltoall, Either, 4096, 8192, Linear}, {Alltoall, Either, 4096, 131072, LinearSync},
  {Alltoall, Either, 4096, AnyBytes, Linear},
  {Alltoall, Either, AnyComm, 2048, ModifiedBruck}, {Alltoall, Either, AnyComm, 8192, LinearSync},
  {Alltoall, Either, AnyComm, 16384, Linear}, {Alltoall, Either, AnyComm, 32768, LinearSync},
  {Alltoall, Either, AnyComm, 65536, Linear}, {Alltoall, Either, AnyComm, AnyBytes, LinearSync},

  // Alltoallv: by communicator size only.
  {Alltoallv, Either, 4, AnyBytes, Pairwise}, {Alltoallv, Either, 64, AnyBytes, Linear},
  {Alltoallv, Either, 128, AnyBytes, Pairwise}, {Alltoallv, Either, 256, AnyBytes, Linear},
  {Alltoallv, Either, 1024, AnyBytes, Pairwise}, {Alltoallv, Either, AnyComm, AnyBytes, Linear},

  // Reduce_scatter: bytes = the sum of the receive counts * type size.
  {ReduceScatter, NonCommutative, AnyComm, AnyBytes, Nonoverlapping},
  {ReduceScatter, Commutative, 4, 65536, Ring}, {ReduceScatter, Commutative, 4, 131072, Butterfly},
  {ReduceScatter, Commutative, 4, AnyBytes, Ring},
  {ReduceScatter, Commutative, 8, 8, Nonoverlapping},
  {ReduceScatter, Commutative, 8, 262144, RecursiveHalving},
  {ReduceScatter, Commutative, 8, AnyBytes, Ring},
  {ReduceScatter, Commutative, 32, 262144, RecursiveHalving},
  {ReduceScatter, Commutative, 32, AnyBytes, Ring},
  {ReduceScatter, Commutative, 64, 64, Nonoverlapping},
  {ReduceScatter, Commutative, 64, 2048, RecursiveHalving},
  {ReduceScatter, Commutative, 64, 524288, Butterfly}, {ReduceScatter, Commutative, 64, AnyBytes, Ring},
  {ReduceScatter, Commutative, 128, 256, Nonoverlapping},
  {ReduceScatter, Commutative, 128, 512, RecursiveHalving},
  {ReduceScatter, Commutative, 128, 2048, Butterfly},
  {ReduceScatter, Commutative, 128, 4096, RecursiveHalving},
  {ReduceScatter, Commutative, 128, AnyBytes, Butterfly},
  {ReduceScatter, Commutative, 256, 256, Nonoverlapping},
  {ReduceScatter, Commutative, 256, 512, RecursiveHalving},
  {ReduceScatter, Commutative, 256, AnyBytes, Butterfly},
  {ReduceScatter, Commutative, 512, 256, Nonoverlapping},
  {ReduceScatter, Commutative, 512, 1024, RecursiveHalving},
  {ReduceScatter, Commutative, 512, AnyBytes, Butterfly},
  {ReduceScatter, Commutative, 1024, 512, Nonoverlapping},
  {ReduceScatter, Commutative, 1024, 2048, RecursiveHalving},
  {ReduceScatter, Commutative, 1024, 8192, Butterfly},
  {ReduceScatter, Commutative, 1024, 16384, RecursiveHalving},
  {ReduceScatter, Commutative, 1024, AnyBytes, Butterfly},
  {ReduceScatter, Commutative, 2048, 512, Nonoverlapping},
  {ReduceScatter, Commutative, 2048, 4096, RecursiveHalving},
  {ReduceScatter, Commutative, 2048, 16384, Butterfly},
  {ReduceScatter, Commutative, 2048, 32768, RecursiveHalving},
  {ReduceScatter, Commutative, 2048, AnyBytes, Butterfly},
  {ReduceScatter, Commutative, 4096, 512, Nonoverlapping},
  {ReduceScatter, Commutative, 4096, 4096, RecursiveHalving},
  {ReduceScatter, Commutative, 4096, AnyBytes, Butterfly},
  {ReduceScatter, Commutative, AnyComm, 1024, Nonoverlapping},
  {ReduceScatter, Commutative, AnyComm, 8192, RecursiveHalving},
  {ReduceScatter, Commutative, AnyComm, AnyBytes, Butterfly},

  // Reduce_scatter_block: bytes = one block (receive count * type size).
  {ReduceScatterBlock, NonCommutative, AnyComm, AnyBytes, Linear},
  {ReduceScatterBlock, Commutative, 4, 4, RecursiveDoubling},
  {ReduceScatterBlock, Commutative, 4, 8, Butterfly},
  {ReduceScatterBlock, Commutative, 4, 16, RecursiveHalving},
  {ReduceScatterBlock, Commutative, 4, 128, Butterfly},
  {ReduceScatterBlock, Commutative, 4, 256, RecursiveHalving},
  {ReduceScatterBlock, Commutative, 4, 4096, Butterfly},
  {ReduceScatterBlock, Commutative, 4, 8192, RecursiveHalving},
  {ReduceScatterBlock, Commutative, 4, 131072, Butterfly},
  {ReduceScatterBlock, Commutative, 4, AnyBytes, Linear},
  {ReduceScatterBlock, Commutative, 8, 8, RecursiveHalving},
  {ReduceScatterBlock, Commutative, 8, 32, RecursiveDoubling},
  {ReduceScatterBlock, Commutative, 8, 256, Butterfly},
  {ReduceScatterBlock, Commutative, 8, 8192, RecursiveHalving},
  {ReduceScatterBlock, Commutative, 8, 16384, Butterfly},
  {ReduceScatterBlock, Commutative, 8, 1048576, RecursiveHalving},
  {ReduceScatterBlock, Commutative, 8, AnyBytes, Linear},
  {ReduceScatterBlock, Commutative, 16, 4, Linear},
  {ReduceScatterBlock, Commutative, 16, 32, RecursiveHalving},
  {ReduceScatterBlock, Commutative, 16, 128, Butterfly},
  {ReduceScatterBlock, Commutative, 16, 524288, RecursiveHalving},
  {ReduceScatterBlock, Commutative, 16, 4194304, Linear},
  {ReduceScatterBlock, Commutative, 16, AnyBytes, Butterfly},
  {ReduceScatterBlock, Commutative, 32, 32, Linear},
  {ReduceScatterBlock, Commutative, 32, 524288, RecursiveHalving},
  {ReduceScatterBlock, Commutative, 32, 2097152, Linear},
  {ReduceScatterBlock, Commutative, 32, 4194304, RecursiveHalving},
  {ReduceScatterBlock, Commutative, 32, AnyBytes, Butterfly},
  {ReduceScatterBlock, Commutative, AnyComm, 4, RecursiveHalving},
  {ReduceScatterBlock, Commutative, AnyComm, 16, Linear},
  {ReduceScatterBlock, Commutative, AnyComm, 65536, Butterfly},
  {ReduceScatterBlock, Commutative, AnyComm, 262144, Linear},
  {ReduceScatterBlock, Commutative, AnyComm, AnyBytes, Butterfly},

  // Scan, Exscan: coll/basic's linear chain.
  {Scan, Either, AnyComm, AnyBytes, Linear},
  {Exscan, Either, AnyComm, AnyBytes, Linear},
};

// MPICH 4.0.2's defaults: the generic JSON compiled into libmpich (src/mpi/coll/ coll_selection
// / csel, the mpir tree; `strings -n 200 libmpich.so.12 | grep collective=` prints it), as
// MPICH evaluates it for an intra-communicator whose ranks are on separate nodes. MPICH's
// bounds are inclusive ("avg_msg_size<=12288"): BytesBelow is the bound + 1. Two facts of
// that version matter beyond the JSON:
// - its csel search (MPIR_Csel_search) tests "comm_size<N" as size <= N; the per-communicator
//   prune evaluates it right, so only a size test below a per-call test is affected:
//   alltoall's "comm_size<8" (under is_sendbuf_inplace) holds at 8 ranks;
// - rules on the operation (is_op_built_in) and on count < pof2 are applied inside the
//   algorithms RedscatGather / RedscatAllgather, which fall back as MPICH's tree
//   does.
constexpr Rule MpichRules[] = {
  {Barrier, Either, AnyComm, AnyBytes, Bruck}, // dissemination
  {Bcast, Either, 8, AnyBytes, InOrderBinomial},
  {Bcast, Either, AnyComm, 12289, InOrderBinomial},
  {Bcast, Either, AnyComm, 524289, ScatterDoubling, Pow2Size},
  {Bcast, Either, AnyComm, AnyBytes, ScatterRing},
  {Reduce, NonCommutative, AnyComm, AnyBytes, InOrderBinomial}, // to rank 0, then to the root
  {Reduce, Commutative, AnyComm, 2049, InOrderBinomial},
  {Reduce, Commutative, AnyComm, AnyBytes, RedscatGather},
  {Allreduce, NonCommutative, AnyComm, AnyBytes, RecursiveDoubling},
  {Allreduce, Commutative, AnyComm, 9, RecursiveDoubling},
  {Allreduce, Commutative, AnyComm, AnyBytes, RedscatAllgather},
  {Gather, Either, AnyComm, AnyBytes, Binomial},
  {Gatherv, Either, AnyComm, AnyBytes, Linear},
  {Scatter, Either, AnyComm, AnyBytes, Binomial},
  {Scatterv, Either, AnyComm, AnyBytes, Linear},
  // Allgather(v): bytes are the whole receive buffer (total_msg_size).
  {Allgather, Either, AnyComm, 524288, RecursiveDoubling, Pow2Size},
  {Allgather, Either, AnyComm, AnyBytes, Ring, Pow2Size},
  {Allgather, Either, AnyComm, 81920, Bruck},
  {Allgather, Either, AnyComm, AnyBytes, Ring},
  {Allgatherv, Either, AnyComm, 524288, RecursiveDoubling, Pow2Size},
  {Allgatherv, Either, AnyComm, AnyBytes, PipelinedRing, Pow2Size},
  {Allgatherv, Either, AnyComm, 81920, Bruck},
  {Allgatherv, Either, AnyComm, AnyBytes, PipelinedRing},
  // Alltoall: "scattered" posts every message at once, as Linear; in place (MPICH's pairwise
  // sendrecv_replace, one exchange per pair) is handled by the algorithm.
  {Alltoall, Either, 9, 32769, Linear},
  {Alltoall, Either, 9, AnyBytes, Pairwise},
  {Alltoall, Either, AnyComm, 257, Bruck},
  {Alltoall, Either, AnyComm, 32769, Linear},
  {Alltoall, Either, AnyComm, AnyBytes, Pairwise},
  {Alltoallv, Either, AnyComm, AnyBytes, Linear},
  // Reduce_scatter(_block): bytes are the whole vector (total_msg_size), "<524288" strict.
  {ReduceScatter, NonCommutative, AnyComm, AnyBytes, Noncommutative},
  {ReduceScatter, Commutative, AnyComm, 524288, RecursiveHalving},
  {ReduceScatter, Commutative, AnyComm, AnyBytes, Pairwise},
  {ReduceScatterBlock, NonCommutative, AnyComm, AnyBytes, Noncommutative},
  {ReduceScatterBlock, Commutative, AnyComm, 524288, RecursiveHalving},
  {ReduceScatterBlock, Commutative, AnyComm, AnyBytes, Pairwise},
  {Scan, Either, AnyComm, AnyBytes, RecursiveDoubling},
  {Exscan, Either, AnyComm, AnyBytes, RecursiveDoubling},
};
// clang-format on

template <size_t N>
Algo lookup(const Rule (&Rules)[N], Coll C, int CommSize, uint64_t Bytes, bool IsCommutative) {
  const Commute K = IsCommutative ? Commutative : NonCommutative;
  for (const Rule &R : Rules)
    if (R.C == C && (R.K == Either || R.K == K) && CommSize < R.CommBelow && Bytes < R.BytesBelow &&
        (R.S == AnySize || (CommSize & (CommSize - 1)) == 0))
      return R.A;
  return Linear; // every collective's last rule is unbounded: not reached
}

Library readLibrary() {
  const char *Env = std::getenv("MPIETE_COLL_TABLE");
  if (!Env || !*Env || std::strcmp(Env, "ompi41") == 0)
    return Library::OpenMpi41;
  if (std::strcmp(Env, "mpich") == 0)
    return Library::Mpich;
  std::fprintf(stderr,
               "mpiete: error: MPIETE_COLL_TABLE='%s' is not a known table (ompi41, mpich)\n", Env);
  PMPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

} // namespace

Library library() {
  static const Library L = readLibrary();
  return L;
}

const char *libraryName(Library L) { return L == Library::Mpich ? "mpich" : "ompi41"; }

const char *collName(Coll C) { return trace::CollKindNames[static_cast<int>(C)]; }

const char *algoName(Algo A) {
  static const char *const Names[] = {"linear",
                                      "linear_sync",
                                      "chain",
                                      "split_binary",
                                      "binary",
                                      "binomial",
                                      "knomial",
                                      "in_order_binary",
                                      "scatter_allgather",
                                      "recursive_doubling",
                                      "bruck",
                                      "double_ring",
                                      "two_proc",
                                      "tree",
                                      "ring",
                                      "rabenseifner",
                                      "nonoverlapping",
                                      "neighbor",
                                      "pairwise",
                                      "modified_bruck",
                                      "recursive_halving",
                                      "butterfly",
                                      "gather_bcast",
                                      "in_order_binomial",
                                      "scatter_doubling",
                                      "scatter_ring",
                                      "redscat_gather",
                                      "redscat_allgather",
                                      "pipelined_ring",
                                      "noncommutative"};
  return Names[static_cast<int>(A)];
}

Algo decide(Library L, Coll C, int CommSize, uint64_t Bytes, bool IsCommutative) {
  if (L == Library::Mpich)
    return lookup(MpichRules, C, CommSize, Bytes, IsCommutative);
  return lookup(OpenMpi41Rules, C, CommSize, Bytes, IsCommutative);
}

Algo decide(Coll C, int CommSize, uint64_t Bytes, bool IsCommutative) {
  return decide(library(), C, CommSize, Bytes, IsCommutative);
}

uint64_t allgatherBytes(Library L, int CommSize, uint64_t Total) {
  return L == Library::Mpich ? Total : Total / static_cast<uint64_t>(CommSize);
}

uint64_t allgatherBytes(int CommSize, uint64_t Total) {
  return allgatherBytes(library(), CommSize, Total);
}

uint64_t reduceScatterBlockBytes(Library L, int CommSize, uint64_t Block) {
  return L == Library::Mpich ? Block * static_cast<uint64_t>(CommSize) : Block;
}

uint64_t reduceScatterBlockBytes(int CommSize, uint64_t Block) {
  return reduceScatterBlockBytes(library(), CommSize, Block);
}

} // namespace mpiete::coll
