// Opens the trace variant's status file (RankStatus.h) on the first MPI call.
#include "RankStatus.h"

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace mpiete::status {

constinit RankStatus *Shared = nullptr;
constinit bool Decided = false;

// Best effort: a status file that cannot be made leaves the watchdog blind to this rank (it
// then reports it as not started), never fails the program.
void openFile() {
  Decided = true;
  const char *Dir = std::getenv("MPIETE_STATUS_DIR");
  if (Dir == nullptr || *Dir == '\0')
    return;
  char Path[4096];
  const int N =
      std::snprintf(Path, sizeof Path, "%s/%s%ld", Dir, FilePrefix, static_cast<long>(getpid()));
  if (N <= 0 || static_cast<size_t>(N) >= sizeof Path)
    return;
  const int Fd = ::open(Path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (Fd < 0)
    return;
  void *M = MAP_FAILED;
  if (ftruncate(Fd, sizeof(RankStatus)) == 0)
    M = mmap(nullptr, sizeof(RankStatus), PROT_READ | PROT_WRITE, MAP_SHARED, Fd, 0);
  ::close(Fd);
  if (M == MAP_FAILED)
    return;
  auto *S = static_cast<RankStatus *>(M);
  S->Pid = getpid();
  S->Rank = -1;
  S->State = Outside;
  S->Site = 0;
  S->Calls = 0;
  __atomic_store_n(&S->Magic, Magic, __ATOMIC_RELEASE);
  Shared = S;
}

} // namespace mpiete::status
