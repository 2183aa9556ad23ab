// posix_spawn-based process helpers: no shell, so arguments reach the compiler unchanged.
#include "mpiete/support/Process.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace mpiete {
namespace {

std::vector<char *> toArgv(const std::vector<std::string> &Argv) {
  std::vector<char *> Out;
  Out.reserve(Argv.size() + 1);
  for (const std::string &A : Argv)
    Out.push_back(const_cast<char *>(A.c_str()));
  Out.push_back(nullptr);
  return Out;
}

int waitFor(pid_t Pid) {
  int Status = 0;
  while (waitpid(Pid, &Status, 0) < 0) {
    if (errno != EINTR)
      return 127;
  }
  if (WIFEXITED(Status))
    return WEXITSTATUS(Status);
  if (WIFSIGNALED(Status))
    return 128 + WTERMSIG(Status);
  return 127;
}

/// Status of a child that ended (as waitFor), or -1 when it was stopped at Deadline: the group
/// gets SIGTERM (a launcher tells its ranks), then what is left of it SIGKILL.
int waitUntil(pid_t Pid, std::chrono::steady_clock::time_point Deadline) {
  int Status = 0;
  for (;;) {
    const pid_t W = waitpid(Pid, &Status, WNOHANG);
    if (W == Pid)
      return WIFEXITED(Status) ? WEXITSTATUS(Status) : 128 + WTERMSIG(Status);
    if (W < 0 && errno != EINTR)
      return 127;
    if (std::chrono::steady_clock::now() >= Deadline)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(-Pid, SIGTERM);
  for (int I = 0; I < 60 && waitpid(Pid, &Status, WNOHANG) == 0; ++I)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  kill(-Pid, SIGKILL);
  waitpid(Pid, &Status, 0);
  return -1;
}

} // namespace

int runProcess(const std::vector<std::string> &Argv, double TimeoutSeconds) {
  if (Argv.empty())
    return 127;
  std::vector<char *> CArgv = toArgv(Argv);
  pid_t Pid = 0;
  if (TimeoutSeconds <= 0) {
    if (posix_spawnp(&Pid, CArgv[0], nullptr, nullptr, CArgv.data(), environ) != 0)
      return 127;
    return waitFor(Pid);
  }
  // Its own process group, so the stop reaches every process it started (a launcher's ranks).
  posix_spawnattr_t Attr;
  posix_spawnattr_init(&Attr);
  posix_spawnattr_setflags(&Attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&Attr, 0);
  const int Rc = posix_spawnp(&Pid, CArgv[0], nullptr, &Attr, CArgv.data(), environ);
  posix_spawnattr_destroy(&Attr);
  if (Rc != 0)
    return 127;
  return waitUntil(Pid, std::chrono::steady_clock::now() +
                            std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(TimeoutSeconds)));
}

std::optional<std::string> captureProcess(const std::vector<std::string> &Argv) {
  if (Argv.empty())
    return std::nullopt;
  int Pipe[2];
  if (pipe(Pipe) != 0)
    return std::nullopt;
  posix_spawn_file_actions_t Actions;
  posix_spawn_file_actions_init(&Actions);
  posix_spawn_file_actions_adddup2(&Actions, Pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&Actions, Pipe[0]);
  posix_spawn_file_actions_addclose(&Actions, Pipe[1]);
  std::vector<char *> CArgv = toArgv(Argv);
  pid_t Pid = 0;
  int Rc = posix_spawnp(&Pid, CArgv[0], &Actions, nullptr, CArgv.data(), environ);
  posix_spawn_file_actions_destroy(&Actions);
  close(Pipe[1]);
  if (Rc != 0) {
    close(Pipe[0]);
    return std::nullopt;
  }
  std::string Out;
  char Buf[4096];
  for (;;) {
    ssize_t N = read(Pipe[0], Buf, sizeof Buf);
    if (N > 0) {
      Out.append(Buf, static_cast<size_t>(N));
    } else if (N == 0 || errno != EINTR) {
      break;
    }
  }
  close(Pipe[0]);
  if (waitFor(Pid) != 0)
    return std::nullopt;
  return Out;
}

std::string shellJoin(const std::vector<std::string> &Argv) {
  std::string Out;
  for (const std::string &A : Argv) {
    if (!Out.empty())
      Out += ' ';
    bool Plain =
        !A.empty() && A.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU"
                                          "VWXYZ0123456789-_./=:,+@%") == std::string::npos;
    if (Plain) {
      Out += A;
      continue;
    }
    Out += '\'';
    for (char C : A) {
      if (C == '\'')
        Out += "'\\''";
      else
        Out += C;
    }
    Out += '\'';
  }
  return Out;
}

std::vector<std::string> shellSplit(const std::string &Line) {
  std::vector<std::string> Words;
  std::string Cur;
  bool InWord = false;
  char Quote = 0;
  for (size_t I = 0; I < Line.size(); ++I) {
    char C = Line[I];
    if (Quote) {
      if (C == Quote)
        Quote = 0;
      else if (C == '\\' && Quote == '"' && I + 1 < Line.size())
        Cur += Line[++I];
      else
        Cur += C;
      continue;
    }
    if (C == '\'' || C == '"') {
      Quote = C;
      InWord = true;
    } else if (C == '\\' && I + 1 < Line.size()) {
      Cur += Line[++I];
      InWord = true;
    } else if (C == ' ' || C == '\t' || C == '\n' || C == '\r') {
      if (InWord)
        Words.push_back(std::move(Cur));
      Cur.clear();
      InWord = false;
    } else {
      Cur += C;
      InWord = true;
    }
  }
  if (InWord)
    Words.push_back(std::move(Cur));
  return Words;
}

} // namespace mpiete
