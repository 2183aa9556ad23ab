// Shared runtime helpers: directory creation and the out-of-memory path of Scratch.
#include "Util.h"

#include "Recorder.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

namespace mpiete {

void failOutOfMemory(const char *What, size_t Entries) {
  Recorder::get().fail("out of memory growing %s to %zu entries", What, Entries);
}

bool makeDirs(const char *Path) {
  char Buf[4096];
  const size_t Len = std::strlen(Path);
  if (Len == 0 || Len >= sizeof Buf) {
    errno = ENAMETOOLONG;
    return false;
  }
  std::memcpy(Buf, Path, Len + 1);
  for (size_t I = 1; I <= Len; ++I) {
    if (Buf[I] != '/' && Buf[I] != '\0')
      continue;
    const char Saved = Buf[I];
    Buf[I] = '\0';
    if (::mkdir(Buf, 0777) != 0 && errno != EEXIST)
      return false;
    Buf[I] = Saved;
  }
  struct stat St;
  if (::stat(Path, &St) != 0)
    return false;
  if (!S_ISDIR(St.st_mode)) {
    errno = ENOTDIR;
    return false;
  }
  return true;
}

} // namespace mpiete
