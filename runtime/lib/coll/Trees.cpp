// The trees of the tree-shaped algorithms, as Open MPI's coll/base topologies build them: each
// returns one rank's parent and children.
#include "CollBase.h"

namespace mpiete::coll {

/// Open MPI's binomial tree (bmtree): the parent clears the highest set bit of the virtual
/// rank; children are the virtual rank plus each higher power of two, smallest first.
Tree binomialTree(int Rank, int Root, int Size) {
  Tree T;
  const int V = shift(Rank, Root, Size);
  int Mask = 1;
  while (Mask <= V)
    Mask <<= 1;
  if (V != 0)
    T.Parent = unshift(V ^ (Mask >> 1), Root, Size);
  for (; Mask < Size; Mask <<= 1) {
    if ((V ^ Mask) >= Size)
      break;
    T.add(unshift(V ^ Mask, Root, Size));
  }
  return T;
}

/// Open MPI's in-order binomial tree: the parent clears the lowest set bit, so every subtree
/// is a contiguous range of virtual ranks [v, v + lowbit(v)).
Tree inOrderBinomialTree(int Rank, int Root, int Size) {
  Tree T;
  const int V = shift(Rank, Root, Size);
  for (int Mask = 1; Mask < Size; Mask <<= 1) {
    const int Remote = V ^ Mask;
    if (Remote < V) {
      T.Parent = unshift(Remote, Root, Size);
      break;
    }
    if (Remote < Size)
      T.add(unshift(Remote, Root, Size));
  }
  return T;
}

/// Open MPI's n-ary tree (fanout 2: its "binary" tree): level by level, a node of level L has
/// children v + k * fanout^L, k = 1..fanout.
Tree naryTree(int Rank, int Root, int Size, int Fanout) {
  Tree T;
  const int V = shift(Rank, Root, Size);
  int Level = 0, Nodes = 0, Width = 1;
  for (; Nodes + Width <= V; ++Level) {
    Nodes += Width;
    Width *= Fanout;
  }
  const int Delta = Width; // fanout^level
  for (int K = 1; K <= Fanout; ++K) {
    const int Child = V + Delta * K;
    if (Child >= Size)
      break;
    T.add(unshift(Child, Root, Size));
  }
  if (V != 0) {
    int Parent = V;
    if (Parent < Fanout) {
      Parent = 0;
    } else {
      const int Limit = Nodes; // nodes above my level
      while (Parent >= Limit)
        Parent -= Delta / Fanout;
    }
    T.Parent = unshift(Parent, Root, Size);
  }
  return T;
}

/// A single chain root -> root+1 -> ... (Open MPI's chain with one chain, and its pipeline).
Tree chainTree(int Rank, int Root, int Size) {
  Tree T;
  const int V = shift(Rank, Root, Size);
  if (V > 0)
    T.Parent = unshift(V - 1, Root, Size);
  if (V + 1 < Size)
    T.add(unshift(V + 1, Root, Size));
  return T;
}

/// Open MPI's k-nomial tree: children at distances mask * r (r = 1..radix-1), largest mask
/// first.
Tree knomialTree(int Rank, int Root, int Size, int Radix) {
  Tree T;
  const int V = shift(Rank, Root, Size);
  long Mask = 1;
  while (Mask < Size) {
    if (V % (Radix * Mask)) {
      T.Parent = unshift(static_cast<int>(V / (Radix * Mask) * (Radix * Mask)), Root, Size);
      break;
    }
    Mask *= Radix;
  }
  for (Mask /= Radix; Mask > 0; Mask /= Radix)
    for (int R = 1; R < Radix; ++R) {
      const long Child = V + Mask * R;
      if (Child < Size)
        T.add(unshift(static_cast<int>(Child), Root, Size));
    }
  return T;
}

/// Open MPI's in-order binary tree, rooted at Size - 1: node p's left child p - 1 holds the
/// upper part of the ranks below p, its right child the lower part, so an in-order walk visits
/// ranks in order (what a non-commutative reduction needs).
Tree inOrderBinaryTree(int Rank, int Size) {
  Tree T;
  int MyRank = Rank, Parent = Size - 1, Delta = 0, N = Size;
  while (true) {
    const int RightSize = N >> 1;
    int LChild = -1, RChild = -1;
    if (N - 1 > 0) {
      LChild = Parent - 1;
      if (LChild > 0)
        RChild = RightSize - 1;
    }
    if (MyRank == Parent) {
      if (LChild >= 0)
        T.add(LChild + Delta);
      if (RChild >= 0)
        T.add(RChild + Delta);
      break;
    }
    if (MyRank > RChild) {
      if (MyRank == LChild)
        T.Parent = Parent + Delta;
      N = N - RightSize - 1;
      Delta += RightSize;
      MyRank -= RightSize;
      Parent = N - 1;
    } else {
      if (MyRank == RChild)
        T.Parent = Parent + Delta;
      N = RightSize;
      Parent = RChild;
    }
  }
  return T;
}

Tree treeFor(Algo A, int Rank, int Root, int Size) {
  switch (A) {
  case Algo::Chain:
    return chainTree(Rank, Root, Size);
  case Algo::Binary:
  case Algo::SplitBinary:
    return naryTree(Rank, Root, Size, 2);
  case Algo::Knomial:
    return knomialTree(Rank, Root, Size, 4);
  case Algo::InOrderBinomial:
    return inOrderBinomialTree(Rank, Root, Size);
  default:
    return binomialTree(Rank, Root, Size);
  }
}

/// The subtree of virtual rank V in an in-order binomial tree over Size ranks: [V, V + n).
int inOrderSubtree(int V, int Size) {
  if (V == 0)
    return Size;
  const int Low = V & -V;
  return Low < Size - V ? Low : Size - V;
}

} // namespace mpiete::coll
