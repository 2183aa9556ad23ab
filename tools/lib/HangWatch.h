// probe-program's progress watchdog (issue 14, finding 8): reads the status files the trace
// runtime keeps (mpiete/RankStatus.h) and stops a job in which every unfinished rank waits in
// an MPI call and none began or finished one for the timeout, saying where each rank waits.
#ifndef MPIETE_TOOLS_HANGWATCH_H
#define MPIETE_TOOLS_HANGWATCH_H

#include "mpiete/basedata/BlockMap.h"
#include "mpiete/support/Diagnostics.h"

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace mpiete {

class HangWatch {
public:
  /// Watches StatusDir (emptied, created) and the finished traces rank<N>.trace in TraceDir.
  /// Map (may be empty) turns call sites into file:line and routine. Starts at once.
  HangWatch(std::filesystem::path StatusDir, std::filesystem::path TraceDir, int Np, double Timeout,
            const BlockMap &Map);
  ~HangWatch();
  HangWatch(const HangWatch &) = delete;
  HangWatch &operator=(const HangWatch &) = delete;

  /// Ends the watch (the launch returned); then stopped() and report() may be asked.
  void finish();
  /// Whether it stopped the job.
  bool stopped() const { return Stopped; }
  /// The error and a located note per rank not finished (when stopped()).
  void report(DiagnosticSink &Diags) const;

private:
  void run();
  void snapshot(); // Lines: where each unfinished rank is, taken when progress stopped

  std::filesystem::path StatusDir, TraceDir;
  int Np;
  double Timeout;
  const BlockMap &Map;
  std::atomic<bool> Done{false}, Stopped{false};
  struct Note {
    DiagLoc Loc;
    std::string Text;
  };
  std::vector<Note> Notes;
  int Finished = 0;
  std::thread Thread;
};

} // namespace mpiete

#endif // MPIETE_TOOLS_HANGWATCH_H
