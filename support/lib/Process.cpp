// posix_spawn-based process helpers: no shell, so arguments reach the compiler unchanged.
#include "mpiete/support/Process.h"

#include <cerrno>
#include <cstring>
#include <spawn.h>
#include <sys/wait.h>
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

} // namespace

int runProcess(const std::vector<std::string> &Argv) {
  if (Argv.empty())
    return 127;
  std::vector<char *> CArgv = toArgv(Argv);
  pid_t Pid = 0;
  if (posix_spawnp(&Pid, CArgv[0], nullptr, nullptr, CArgv.data(), environ) != 0)
    return 127;
  return waitFor(Pid);
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
