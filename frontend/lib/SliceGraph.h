// The skeleton slice's dependence graph, language-neutral (Boost.Graph): statements with the
// memory classes they define and use, the head of the construct around each, and the MPI calls
// whose received data may steer the program. Solved by breadth-first search from the criteria.
#ifndef MPIETE_FRONTEND_LIB_SLICEGRAPH_H
#define MPIETE_FRONTEND_LIB_SLICEGRAPH_H

#include <set>
#include <string>
#include <vector>

namespace mpiete::slice {

/// An MPI call of a statement: what it sends and what it receives, as memory classes.
struct GraphCall {
  std::string Routine;       ///< as the tables spell it, MPI_Allreduce
  bool PointToPoint = false; ///< a send or receive of any kind, else a collective
  std::set<unsigned> SendBuffers, RecvBuffers;
};

struct GraphNode {
  int Parent = -1; ///< the head of the enclosing construct, kept with it
  int Target = -1; ///< a jump that a kept loop or switch needs kept (C: break)
  /// Other nodes kept whenever this one is (C: an early return that could skip it).
  std::vector<int> Keeps;
  bool Criterion = false;        ///< kept whatever
  std::set<unsigned> Defs, Uses; ///< resolved memory classes
  std::vector<GraphCall> Calls;
  /// Values the node only passes on: From is needed only when a kept node uses a class of
  /// Into (a call's result into the variable assigned, an argument into its parameter, a
  /// return's value into the procedure's result). A kept node with a flow not needed has that
  /// value's text replaced (C: by 0).
  struct Flow {
    std::set<unsigned> Into, From;
  };
  std::vector<Flow> Flows;
};

struct SliceResult {
  std::vector<char> Relevant;                ///< per node: kept
  std::vector<std::vector<char>> FlowNeeded; ///< per node, per flow: its value is needed
  /// What the kept nodes read: their uses, the values of their flows needed, the contents of
  /// their sends of a needed kind.
  std::set<unsigned> Used;
  bool KeepsMessageData = false;     ///< some send's contents are kept for a steering receive
  bool PointToPoint = false;         ///< every point-to-point send's contents are needed
  std::set<std::string> Collectives; ///< these collectives' send contents are needed
  /// The kinds whose received data steers a kept node of this graph (PointToPointKind or a
  /// collective's routine): what the whole-program link step learns from this unit.
  std::set<std::string> Steered;
};

/// The kept nodes: the criteria, the heads around every kept node, every definer of a class a
/// kept node uses (or a kept node's flow whose value is needed passes on); and, when a kept node
/// uses a class some receive wrote, the contents of every send of that kind (any point-to-point
/// send for a point-to-point receive, the same routine for a collective), until no new kind is
/// steered (docs/skeleton.md). SteeredElsewhere: the kinds other units' kept statements steer on
/// (the link step's program summary), whose send contents are needed from the start.
SliceResult solveSlice(const std::vector<GraphNode> &Nodes,
                       const std::set<std::string> &SteeredElsewhere = {});

} // namespace mpiete::slice

#endif
