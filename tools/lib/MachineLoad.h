// What a measurement shares the machine with: the CPU time other processes took while a probe
// ran (from /proc/stat and the probe's own CPU time), the note that says so beside the figure,
// and the elapsed-time ticker long commands show on a terminal.
#ifndef MPIETE_TOOLS_LIB_MACHINELOAD_H
#define MPIETE_TOOLS_LIB_MACHINELOAD_H

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace mpiete {

/// CPU time from /proc/stat's aggregate "cpu" line, in clock ticks.
struct CpuTicks {
  unsigned long long Busy = 0; ///< user + nice + system + irq + softirq + steal
  unsigned long long Total = 0;
};
/// Parses the text of /proc/stat: the aggregate "cpu " line, or with Cpu >= 0 processor Cpu's
/// ("cpuN "); nullopt if it has no well-formed such line.
std::optional<CpuTicks> parseProcStat(std::string_view Text, int Cpu = -1);

/// What other processes did during one measurement.
struct LoadSample {
  double Seconds = 0;    ///< wall time of the measurement
  double Cores = 0;      ///< the machine's processors
  double OtherCores = 0; ///< processors' worth of CPU time other processes used meanwhile
  /// With a processor asked for: the share of it (0..1) other processes used meanwhile, its
  /// busy time less all of the measurement's own CPU time (a lower bound where the launcher ran
  /// elsewhere); -1 where not asked for or /proc/stat has no such processor.
  double CpuShare = -1;
};

/// The note for a measurement that needed NeededCores processors of its own, when others used
/// more than the rest (a quarter of a processor of slack, so a daemon's tick stays quiet); empty
/// otherwise. Effect says which way the figure is off, e.g. "the compute times are likely too
/// long: predictions from this file over-estimate".
std::string loadNotice(const LoadSample &S, double NeededCores, std::string_view What,
                       std::string_view Effect);

/// The note for a measurement whose every rank ran on processor Cpu (the timing probe under
/// token passing), when others used more than a tenth of that processor meanwhile (a share
/// that stretches the measured times by about as much, the accuracy the predictions aim at);
/// empty otherwise. Share: the processor's worth others used, 0..1.
std::string processorLoadNotice(double Share, int Cpu, double Seconds, std::string_view What,
                                std::string_view Effect);

/// Samples the machine around a measurement the caller runs as a child process (its CPU time,
/// and its waited-for children's, count as the measurement's own).
class LoadMonitor {
public:
  LoadMonitor();
  /// Call after the child was waited for; nullopt where /proc/stat cannot be read. Cpu >= 0:
  /// also the share of that processor others used (LoadSample::CpuShare).
  std::optional<LoadSample> finish(int Cpu = -1) const;

private:
  std::string StartText; ///< /proc/stat at the start
  double OwnStart = 0;
  std::chrono::steady_clock::time_point WallStart;
};

/// On a terminal (stderr a tty), rewrites one line "mpiete <cmd>: <what>... N s" every second
/// until destroyed, then clears it; does nothing in scripts (stderr a file or a pipe).
class ProgressTicker {
public:
  ProgressTicker(std::string Line);
  ~ProgressTicker();
  ProgressTicker(const ProgressTicker &) = delete;
  ProgressTicker &operator=(const ProgressTicker &) = delete;

private:
  std::string Line;
  std::jthread Thread;
};

} // namespace mpiete

#endif
