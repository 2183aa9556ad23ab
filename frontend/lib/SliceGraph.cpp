// The skeleton slice's dependence graph (SliceGraph.h): Boost.Graph's adjacency list and
// breadth-first search, with the fixed point over received data that steers.
#include "SliceGraph.h"

#include "mpiete/basedata/LinkSummary.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>

#include <map>

namespace mpiete::slice {
namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;

/// Marks every node reached (discover_vertex) as relevant.
struct Reach : boost::default_bfs_visitor {
  std::vector<char> *Relevant;
  template <class V, class G> void discover_vertex(V U, const G &) { (*Relevant)[U] = 1; }
};

void search(const Graph &G, const std::vector<GraphNode> &Nodes, std::vector<char> &Relevant) {
  Relevant.assign(Nodes.size(), 0);
  std::vector<size_t> Seeds;
  for (size_t I = 0; I < Nodes.size(); ++I)
    if (Nodes[I].Criterion)
      Seeds.push_back(I);
  if (Seeds.empty())
    return;
  Reach Vis;
  Vis.Relevant = &Relevant;
  std::vector<boost::default_color_type> Colors(Nodes.size(), boost::white_color);
  boost::queue<size_t> Queue;
  boost::breadth_first_search(
      G, Seeds.begin(), Seeds.end(), Queue, Vis,
      boost::make_iterator_property_map(Colors.begin(), boost::get(boost::vertex_index, G)));
}

} // namespace

SliceResult solveSlice(const std::vector<GraphNode> &Nodes,
                       const std::set<std::string> &SteeredElsewhere) {
  SliceResult R;
  std::map<unsigned, std::vector<size_t>> Definers;
  for (size_t I = 0; I < Nodes.size(); ++I)
    for (unsigned C : Nodes[I].Defs)
      Definers[C].push_back(I);
  Graph G(Nodes.size());
  // An edge A -> B: if A is kept, B must be.
  auto dependsOnDefiners = [&](size_t I, const std::set<unsigned> &Classes) {
    for (unsigned C : Classes) {
      auto It = Definers.find(C);
      if (It != Definers.end())
        for (size_t D : It->second)
          if (D != I)
            boost::add_edge(I, D, G);
    }
  };
  for (size_t I = 0; I < Nodes.size(); ++I) {
    const GraphNode &N = Nodes[I];
    if (N.Parent >= 0)
      boost::add_edge(I, size_t(N.Parent), G);
    if (N.Target >= 0)
      boost::add_edge(size_t(N.Target), I, G);
    for (int K : N.Keeps)
      boost::add_edge(I, size_t(K), G);
    dependsOnDefiners(I, N.Uses);
  }
  // The contents of every send of a needed kind: its senders depend on their definers.
  auto needSends = [&] {
    for (size_t I = 0; I < Nodes.size(); ++I)
      for (const GraphCall &C : Nodes[I].Calls)
        if (C.PointToPoint ? R.PointToPoint : R.Collectives.count(C.Routine) > 0) {
          dependsOnDefiners(I, C.SendBuffers);
          R.KeepsMessageData = true;
        }
  };
  for (const std::string &K : SteeredElsewhere)
    if (K == PointToPointKind)
      R.PointToPoint = true;
    else
      R.Collectives.insert(K);
  needSends();
  R.FlowNeeded.resize(Nodes.size());
  for (size_t I = 0; I < Nodes.size(); ++I)
    R.FlowNeeded[I].assign(Nodes[I].Flows.size(), 0);
  // What kept nodes use: their own uses and the values of their flows needed.
  auto used = [&] {
    std::set<unsigned> Used;
    for (size_t I = 0; I < Nodes.size(); ++I) {
      if (!R.Relevant[I])
        continue;
      Used.insert(Nodes[I].Uses.begin(), Nodes[I].Uses.end());
      for (const GraphCall &C : Nodes[I].Calls)
        if (C.PointToPoint ? R.PointToPoint : R.Collectives.count(C.Routine) > 0)
          Used.insert(C.SendBuffers.begin(), C.SendBuffers.end());
      for (size_t F = 0; F < Nodes[I].Flows.size(); ++F)
        if (R.FlowNeeded[I][F])
          Used.insert(Nodes[I].Flows[F].From.begin(), Nodes[I].Flows[F].From.end());
    }
    return Used;
  };
  search(G, Nodes, R.Relevant);
  // Received data that steers a kept statement: what the other ranks sent matters too. Sends
  // are not matched with receives, so the contents of every send of that kind are needed, and
  // what they make relevant may be steered by other received data: until nothing changes.
  // First the flows: a kept node's flow whose target a kept node uses needs its value.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (bool Flowed = true; Flowed;) {
      Flowed = false;
      const std::set<unsigned> Used = used();
      for (size_t I = 0; I < Nodes.size(); ++I) {
        if (!R.Relevant[I])
          continue;
        for (size_t F = 0; F < Nodes[I].Flows.size(); ++F) {
          if (R.FlowNeeded[I][F])
            continue;
          bool Needed = false;
          for (unsigned C : Nodes[I].Flows[F].Into)
            Needed |= Used.count(C) > 0;
          if (!Needed)
            continue;
          R.FlowNeeded[I][F] = 1;
          dependsOnDefiners(I, Nodes[I].Flows[F].From);
          Flowed = true;
        }
      }
      if (Flowed)
        search(G, Nodes, R.Relevant);
    }
    const std::set<unsigned> Steering = used();
    for (const GraphNode &N : Nodes)
      for (const GraphCall &C : N.Calls) {
        bool Steers = false;
        for (unsigned B : C.RecvBuffers)
          Steers |= Steering.count(B) > 0;
        if (!Steers)
          continue;
        R.Steered.insert(C.PointToPoint ? std::string(PointToPointKind) : C.Routine);
        if (C.PointToPoint && !R.PointToPoint)
          Changed = R.PointToPoint = true;
        else if (!C.PointToPoint && R.Collectives.insert(C.Routine).second)
          Changed = true;
      }
    if (!Changed)
      break;
    R.KeepsMessageData = true;
    needSends();
    search(G, Nodes, R.Relevant);
  }
  R.Used = used();
  return R;
}

} // namespace mpiete::slice
