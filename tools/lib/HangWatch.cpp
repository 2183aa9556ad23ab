// probe-program's progress watchdog: a thread polls the ranks' status files; when every
// unfinished rank waits inside an MPI call and no MPI call began or returned on any rank (and no
// rank finished) for the timeout, counted from the first rank's MPI_Init, it notes where each
// rank is and stops the launcher's process group (TERM, then KILL three seconds later). A rank
// running its own code, however long, is progress still to come, never a hang.
#include "HangWatch.h"

#include "mpiete/BlockId.h"
#include "mpiete/RankStatus.h"
#include "mpiete/basedata/ProgramModel.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <map>
#include <sys/types.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace mpiete {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<status::RankStatus> readStatuses(const fs::path &Dir) {
  std::vector<status::RankStatus> Out;
  std::error_code EC;
  for (const fs::directory_entry &E : fs::directory_iterator(Dir, EC)) {
    if (E.path().filename().string().rfind(status::FilePrefix, 0) != 0)
      continue;
    std::ifstream In(E.path(), std::ios::binary);
    status::RankStatus S{};
    if (In.read(reinterpret_cast<char *>(&S), sizeof S) && S.Magic == status::Magic)
      Out.push_back(S);
  }
  std::sort(Out.begin(), Out.end(), [](const auto &A, const auto &B) { return A.Pid < B.Pid; });
  return Out;
}

/// Our own children (the launcher runProcess started in its own process group).
std::vector<pid_t> children() {
  std::vector<pid_t> Out;
  const pid_t Self = getpid();
  std::error_code EC;
  for (const fs::directory_entry &E : fs::directory_iterator("/proc", EC)) {
    const std::string Name = E.path().filename().string();
    if (Name.empty() || !std::all_of(Name.begin(), Name.end(), ::isdigit))
      continue;
    std::ifstream In(E.path() / "stat");
    std::string Stat;
    std::getline(In, Stat);
    // pid (comm) state ppid ...: comm may hold spaces and parentheses.
    const size_t Close = Stat.rfind(')');
    if (Close == std::string::npos)
      continue;
    char State = 0;
    long Parent = 0;
    if (std::sscanf(Stat.c_str() + Close + 1, " %c %ld", &State, &Parent) == 2 && Parent == Self)
      Out.push_back(static_cast<pid_t>(std::stol(Name)));
  }
  return Out;
}

/// Whether process Pid (of this host) is gone: no /proc entry, or a zombie not reaped yet.
bool gone(int64_t Pid) {
  std::ifstream In("/proc/" + std::to_string(Pid) + "/stat");
  std::string Stat;
  if (!std::getline(In, Stat))
    return true;
  const size_t Close = Stat.rfind(')');
  char State = 0;
  return Close != std::string::npos && std::sscanf(Stat.c_str() + Close + 1, " %c", &State) == 1 &&
         (State == 'Z' || State == 'X');
}

bool finished(const fs::path &TraceDir, int Rank) {
  std::error_code EC;
  return fs::exists(TraceDir / ("rank" + std::to_string(Rank) + ".trace"), EC);
}

void signalJob(const std::vector<pid_t> &Kids, int Signal) {
  for (pid_t P : Kids)
    kill(getpgid(P) == P ? -P : P, Signal);
}

} // namespace

HangWatch::HangWatch(fs::path StatusDir, fs::path TraceDir, int Np, double Timeout,
                     const BlockMap &Map)
    : StatusDir(std::move(StatusDir)), TraceDir(std::move(TraceDir)), Np(Np), Timeout(Timeout),
      Map(Map) {
  std::error_code EC;
  fs::remove_all(this->StatusDir, EC);
  fs::create_directories(this->StatusDir, EC);
  Thread = std::thread([this] { run(); });
}

HangWatch::~HangWatch() { finish(); }

void HangWatch::finish() {
  Done = true;
  if (Thread.joinable())
    Thread.join();
}

void HangWatch::run() {
  std::vector<std::pair<int64_t, uint64_t>> Last;
  int LastFinished = -1;
  Clock::time_point Changed = Clock::now();
  while (!Done) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::vector<std::pair<int64_t, uint64_t>> Now;
    // A live, unfinished rank outside MPI computes: its next call is progress still to come.
    // (A rank with no status file yet has not reached MPI_Init: it starts, or computes first.)
    bool Computing = false;
    const std::vector<status::RankStatus> All = readStatuses(StatusDir);
    for (const status::RankStatus &S : All) {
      Now.emplace_back(S.Pid, S.Calls);
      if (S.State != status::InCall && !(S.Rank >= 0 && finished(TraceDir, S.Rank)) && !gone(S.Pid))
        Computing = true;
    }
    Computing |= All.size() < static_cast<size_t>(Np);
    int Fin = 0;
    for (int R = 0; R < Np; ++R)
      Fin += finished(TraceDir, R);
    // The clock starts with the first status file: launchers take their time to start ranks.
    if (Now.empty() || Computing || Now != Last || Fin != LastFinished) {
      Last = std::move(Now);
      LastFinished = Fin;
      Changed = Clock::now();
      continue;
    }
    if (std::chrono::duration<double>(Clock::now() - Changed).count() < Timeout)
      continue;
    snapshot();
    Stopped = true;
    const std::vector<pid_t> Kids = children();
    signalJob(Kids, SIGTERM);
    for (int I = 0; I < 30 && !Done; ++I)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!Done)
      signalJob(Kids, SIGKILL);
    return;
  }
}

void HangWatch::snapshot() {
  // Call sites -> the block map's file, line and routine.
  std::map<uint64_t, const Block *> Sites;
  for (const UnitModel &U : Map.Units)
    for (const Block &B : U.Blocks)
      Sites.emplace(U.blockId(B.Index), &B);
  auto Where = [&](uint64_t Site, std::string &Routine) {
    auto It = Sites.find(Site);
    if (It == Sites.end()) {
      Routine = "an MPI call";
      return DiagLoc{Site ? "site " + formatBlockId(Site) : "mpiete"};
    }
    Routine = It->second->Routine.empty() ? "an MPI call" : It->second->Routine;
    return DiagLoc{It->second->File, It->second->BeginLine, It->second->BeginCol};
  };
  const std::vector<status::RankStatus> All = readStatuses(StatusDir);
  Finished = 0;
  for (int R = 0; R < Np; ++R) {
    if (finished(TraceDir, R)) {
      ++Finished;
      continue;
    }
    auto It = std::find_if(All.begin(), All.end(), [R](const auto &S) { return S.Rank == R; });
    if (It == All.end()) {
      // Before MPI_Init returned the rank is unknown: a process still in MPI_Init.
      Notes.push_back(
          {{"mpiete"},
           "rank " + std::to_string(R) + " never returned from MPI_Init (or has no status file)"});
      continue;
    }
    std::string Routine;
    DiagLoc Loc = Where(It->Site, Routine);
    const std::string Rank = "rank " + std::to_string(R) + " (pid " + std::to_string(It->Pid) + ")";
    // Outside MPI here is a rank that ended without its trace (the others wait for it).
    Notes.push_back({Loc, It->State == status::InCall
                              ? Rank + " waits in " + Routine + " here"
                              : Rank + " ended after " + Routine +
                                    " here returned, without finishing its trace"});
  }
}

void HangWatch::report(DiagnosticSink &Diags) const {
  char Secs[32];
  std::snprintf(Secs, sizeof Secs, "%.1f", Timeout);
  Diags.error({"mpiete"},
              std::string("probe-program: every unfinished rank waits in an MPI call and none "
                          "began or finished one for ") +
                  Secs + " s (--hang-timeout), so the job was stopped: " +
                  std::to_string(Np - Finished) + " of " + std::to_string(Np) +
                  " ranks never finished (a deadlock, or ranks waiting for one that hangs); no "
                  "trace is valid",
              "hang");
  size_t Shown = 0;
  for (const Note &N : Notes) {
    if (++Shown > 16) {
      Diags.note({"mpiete"}, std::to_string(Notes.size() - 16) + " more ranks not shown", "hang");
      break;
    }
    Diags.note(N.Loc, N.Text, "hang");
  }
}

} // namespace mpiete
