// Which algorithm a lowered collective uses: one data table per MPI library, looked up by
// (collective, communicator size, message bytes, commutativity). docs/collectives.md shows the
// Open MPI 4.1 table in readable form and lists where an algorithm is replaced by a close one.
#ifndef MPIETE_RUNTIME_COLLDECISION_H
#define MPIETE_RUNTIME_COLLDECISION_H

#include "mpiete/TraceFormat.h"

#include <cstdint>

namespace mpiete::coll {

/// The library whose default choices are imitated (env MPIETE_COLL_TABLE=ompi41|mpich).
enum class Library : uint8_t { OpenMpi41, Mpich };

/// The collectives: the trace format's kinds (a Collective record carries one), so the two lists
/// cannot drift apart.
using Coll = trace::CollKind;

/// Algorithms as the libraries name them. Every value a table can return is implemented in
/// Collectives.cpp (some by a close substitute, see docs/collectives.md).
enum class Algo : uint8_t {
  Linear,            // root talks to every rank directly (all pairs for all-to-all)
  LinearSync,        // linear, the root first sends each rank a zero-byte go-ahead
  Chain,             // unsegmented chain (Open MPI's chain and pipeline with one segment)
  SplitBinary,       // split binary tree (replaced by Binary)
  Binary,            // binary tree (Open MPI's interleaved tree)
  Binomial,          // binomial tree
  Knomial,           // k-nomial tree, radix 4
  InOrderBinary,     // in-order binary tree rooted at size-1 (non-commutative reduce)
  ScatterAllgather,  // bcast: binomial scatter + recursive-doubling allgather
  RecursiveDoubling, // recursive doubling (Bruck where the size is not a power of two)
  Bruck,             // Bruck / dissemination
  DoubleRing,        // barrier double ring
  TwoProc,           // the two-rank exchange
  Tree,              // barrier tree (replaced by Bruck)
  Ring,              // ring
  Rabenseifner,      // reduce-scatter (recursive halving) + allgather / gather
  Nonoverlapping,    // reduce then bcast / scatter(v), each by its own decision
  Neighbor,          // neighbour exchange (ring when the size is odd)
  Pairwise,          // pairwise exchange
  ModifiedBruck,     // alltoall modified Bruck (replaced by Linear)
  RecursiveHalving,  // reduce-scatter recursive halving
  Butterfly,         // reduce-scatter butterfly (replaced by RecursiveHalving)
  GatherBcast,       // allgather(v) linear: gather(v) to 0 + bcast
  InOrderBinomial,   // MPICH's binomial tree: the parent clears the lowest set bit
  ScatterDoubling,   // MPICH bcast: binomial scatter of bytes + recursive doubling allgather
                     // (ring allgather when the size is not a power of two)
  ScatterRing,       // MPICH bcast: binomial scatter of bytes + ring allgather
  RedscatGather,     // MPICH reduce: recursive halving + binomial gather (built-in operations,
                     // count >= pof2; else MPICH's binomial tree)
  RedscatAllgather,  // MPICH allreduce: recursive halving + recursive doubling (built-in
                     // operations, count >= pof2; else recursive doubling)
  PipelinedRing,     // MPICH allgatherv ring: blocks sent in pieces of 32 KiB or more
  Noncommutative,    // MPICH reduce-scatter, non-commutative: butterfly on mirror-permuted
                     // blocks (powers of two, equal blocks), else its recursive doubling
};

Library library();
const char *libraryName(Library L);
const char *collName(Coll C);
const char *algoName(Algo A);

/// The algorithm the library's default decision picks. Bytes is what the library measures:
/// see docs/collectives.md (per-rank block for the all-to-all family, the whole vector for
/// reductions, the sum over ranks for Reduce_scatter, the per-rank average for Allgatherv;
/// MPICH: the whole receive buffer for Allgather and Allgatherv, see allgatherBytes).
Algo decide(Coll C, int CommSize, uint64_t Bytes, bool Commutative);
Algo decide(Library L, Coll C, int CommSize, uint64_t Bytes, bool Commutative);

/// What the library measures for an allgather(v) whose receive buffer holds Total bytes:
/// Open MPI the average block, MPICH's selection the whole buffer (total_msg_size).
uint64_t allgatherBytes(Library L, int CommSize, uint64_t Total);
uint64_t allgatherBytes(int CommSize, uint64_t Total);
/// What the library measures for a reduce_scatter_block of Block bytes per rank: Open MPI the
/// block, MPICH's selection the whole vector (total_msg_size).
uint64_t reduceScatterBlockBytes(Library L, int CommSize, uint64_t Block);
uint64_t reduceScatterBlockBytes(int CommSize, uint64_t Block);

} // namespace mpiete::coll

#endif // MPIETE_RUNTIME_COLLDECISION_H
