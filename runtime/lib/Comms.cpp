// Communicator tracking: the handle -> record table, agreed ids, and members' world ranks.
#include "Comms.h"
#include "HandleMap.h"
#include "Recorder.h"
#include "mpiete/CommId.h"

#include <cstddef>
#include <cstdlib>
#include <new>

namespace mpiete::comms {
namespace {

/// A registered communicator. Info comes first so an Info reference leads back to its Entry.
struct Entry {
  Info I;
  uint64_t Children; // communicator-creating calls made on this communicator so far
  int Refs;          // 1 while registered, plus one per retain
};
static_assert(offsetof(Entry, I) == 0);

constinit HandleMap<Entry *> Table;

/// Allocates a record with room for Size world ranks (filled by the caller).
Entry *newEntry(uint64_t Id, int Size, int MyRank) {
  auto *E = static_cast<Entry *>(std::malloc(sizeof(Entry) + sizeof(int) * Size));
  if (E == nullptr)
    Recorder::get().fail("out of memory registering a communicator of %d ranks", Size);
  new (E) Entry{};
  E->I.Id = Id;
  E->I.Size = Size;
  E->I.MyRank = MyRank;
  E->I.World = reinterpret_cast<int *>(E + 1);
  E->Refs = 1;
  return E;
}

int *worldOf(Entry *E) { return reinterpret_cast<int *>(E + 1); }

void add(MPI_Comm Comm, Entry *E) { Table.insert(handleKey(Comm)) = E; }

void unref(Entry *E) {
  if (--E->Refs == 0)
    std::free(E);
}

} // namespace

void initWorld() {
  int Rank = 0, Size = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &Size);
  Entry *World = newEntry(0, Size, Rank);
  for (int R = 0; R < Size; ++R)
    worldOf(World)[R] = R;
  add(MPI_COMM_WORLD, World);
  Entry *Self = newEntry(1, 1, 0);
  worldOf(Self)[0] = Rank;
  add(MPI_COMM_SELF, Self);
}

const Info &lookup(MPI_Comm Comm, mpiete_site_t Block) {
  Entry **E = Table.find(handleKey(Comm));
  if (E == nullptr) [[unlikely]] {
    char Id[BlockIdBufferSize];
    formatBlockId(Block, Id, sizeof Id);
    if (Comm == MPI_COMM_NULL)
      Recorder::get().fail("block %s: MPI_COMM_NULL used as a communicator", Id);
    Recorder::get().fail("block %s: communicator not made by a rewritten MPI call (mpiete "
                         "cannot name its members)",
                         Id);
  }
  return (*E)->I;
}

int worldRank(const Info &C, int Rank) {
  if (Rank < 0 || Rank >= C.Size)
    return Rank; // MPI_PROC_NULL, MPI_ANY_SOURCE (and invalid ranks, left for MPI to reject)
  return C.World[Rank];
}

int localRank(const Info &C, int WorldRank) {
  for (int R = 0; R < C.Size; ++R)
    if (C.World[R] == WorldRank)
      return R;
  return -1;
}

void created(MPI_Comm Parent, MPI_Comm New, mpiete_site_t Block) {
  Entry *P = reinterpret_cast<Entry *>(const_cast<Info *>(&lookup(Parent, Block)));
  const uint64_t Seq = P->Children++;
  if (New == MPI_COMM_NULL)
    return;

  int Size = 0, MyRank = 0;
  PMPI_Comm_size(New, &Size);
  PMPI_Comm_rank(New, &MyRank);
  // The members' world ranks, in the new communicator's own order (Cart_create may reorder).
  MPI_Group NewGroup, WorldGroup;
  PMPI_Comm_group(New, &NewGroup);
  PMPI_Comm_group(MPI_COMM_WORLD, &WorldGroup);
  int *Ranks = static_cast<int *>(Recorder::get().scratch(sizeof(int) * Size));
  for (int R = 0; R < Size; ++R)
    Ranks[R] = R;
  Entry *E = newEntry(0, Size, MyRank);
  PMPI_Group_translate_ranks(NewGroup, Size, Ranks, WorldGroup, worldOf(E));
  PMPI_Group_free(&NewGroup);
  PMPI_Group_free(&WorldGroup);

  int MinWorld = worldOf(E)[0];
  for (int R = 1; R < Size; ++R)
    MinWorld = worldOf(E)[R] < MinWorld ? worldOf(E)[R] : MinWorld;
  E->I.Id = childCommId(P->I.Id, Seq, MinWorld); // mpiete/CommId.h
  add(New, E);
}

void freed(MPI_Comm Comm) {
  Entry *E = nullptr;
  if (Table.erase(handleKey(Comm), &E))
    unref(E);
}

void setShadow(MPI_Comm Comm, MPI_Comm Shadow) {
  if (Entry **E = Table.find(handleKey(Comm)))
    (*E)->I.Shadow = Shadow;
}

void retain(const Info &C) { ++reinterpret_cast<Entry *>(const_cast<Info *>(&C))->Refs; }
void release(const Info &C) { unref(reinterpret_cast<Entry *>(const_cast<Info *>(&C))); }

} // namespace mpiete::comms
