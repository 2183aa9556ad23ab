// Other processes' load during a measurement, and the progress line of long commands.
#include "MachineLoad.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/resource.h>
#include <unistd.h>

namespace mpiete {

std::optional<CpuTicks> parseProcStat(std::string_view Text, int Cpu) {
  std::istringstream In{std::string(Text)};
  std::string Line;
  const std::string Want = Cpu < 0 ? "cpu " : "cpu" + std::to_string(Cpu) + " ";
  while (std::getline(In, Line)) {
    if (Line.rfind(Want, 0) != 0)
      continue;
    std::istringstream L(Line.substr(Want.size()));
    // user nice system idle iowait irq softirq steal (guest time is already in user)
    unsigned long long V[8] = {};
    int N = 0;
    while (N < 8 && L >> V[N])
      ++N;
    if (N < 4)
      return std::nullopt;
    CpuTicks T;
    T.Busy = V[0] + V[1] + V[2] + V[5] + V[6] + V[7];
    for (unsigned long long X : V)
      T.Total += X;
    return T;
  }
  return std::nullopt;
}

std::string loadNotice(const LoadSample &S, double NeededCores, std::string_view What,
                       std::string_view Effect) {
  const double Spare = std::max(0.0, S.Cores - NeededCores);
  if (S.Seconds <= 0 || S.OtherCores <= Spare + 0.25)
    return {};
  char Buf[256];
  std::snprintf(Buf, sizeof Buf,
                "other processes used %.1f of this machine's %.0f processors during %s "
                "(%.1f s), which needed %.0f of its own: ",
                S.OtherCores, S.Cores, std::string(What).c_str(), S.Seconds, NeededCores);
  return std::string(Buf) + std::string(Effect);
}

std::string processorLoadNotice(double Share, int Cpu, double Seconds, std::string_view What,
                                std::string_view Effect) {
  if (Seconds <= 0 || Cpu < 0 || !(Share > 0.10))
    return {};
  char Buf[256];
  std::snprintf(Buf, sizeof Buf,
                "other processes used %.0f%% of processor %d, where %s ran its ranks, during it "
                "(%.1f s): ",
                100 * Share, Cpu, std::string(What).c_str(), Seconds);
  return std::string(Buf) + std::string(Effect);
}

namespace {

std::string readProcStatText() {
  std::ifstream F("/proc/stat");
  if (!F)
    return {};
  std::stringstream S;
  S << F.rdbuf();
  return S.str();
}

/// CPU seconds of this process and its waited-for children (the launcher and the ranks).
double ownCpuSeconds() {
  double Sum = 0;
  for (int Who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage U{};
    if (getrusage(Who, &U) == 0)
      Sum += static_cast<double>(U.ru_utime.tv_sec + U.ru_stime.tv_sec) +
             static_cast<double>(U.ru_utime.tv_usec + U.ru_stime.tv_usec) * 1e-6;
  }
  return Sum;
}

} // namespace

LoadMonitor::LoadMonitor()
    : StartText(readProcStatText()), OwnStart(ownCpuSeconds()),
      WallStart(std::chrono::steady_clock::now()) {}

std::optional<LoadSample> LoadMonitor::finish(int Cpu) const {
  const std::string EndText = readProcStatText();
  const long Hz = sysconf(_SC_CLK_TCK);
  LoadSample S;
  S.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - WallStart).count();
  S.Cores = static_cast<double>(sysconf(_SC_NPROCESSORS_ONLN));
  const double Own = ownCpuSeconds() - OwnStart;
  // Processors' worth of time others kept the line's processors busy: its busy time less the
  // measurement's own; nullopt where the line is missing from either sample.
  auto Others = [&](int Line) -> std::optional<double> {
    const auto Start = parseProcStat(StartText, Line), End = parseProcStat(EndText, Line);
    if (!Start || !End || Hz <= 0 || End->Busy < Start->Busy)
      return std::nullopt;
    const double Busy = static_cast<double>(End->Busy - Start->Busy) / static_cast<double>(Hz);
    return S.Seconds > 0 ? std::max(0.0, Busy - Own) / S.Seconds : 0;
  };
  const auto All = Others(-1);
  if (!All)
    return std::nullopt;
  S.OtherCores = *All;
  if (Cpu >= 0)
    if (const auto One = Others(Cpu))
      S.CpuShare = std::min(1.0, *One);
  return S;
}

ProgressTicker::ProgressTicker(std::string L) : Line(std::move(L)) {
  if (isatty(STDERR_FILENO) == 0)
    return;
  Thread = std::jthread([this](std::stop_token Stop) {
    const auto T0 = std::chrono::steady_clock::now();
    while (!Stop.stop_requested()) {
      const long Secs = static_cast<long>(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count());
      std::fprintf(stderr, "\r%s... %ld s ", Line.c_str(), Secs);
      std::fflush(stderr);
      for (int I = 0; I < 10 && !Stop.stop_requested(); ++I)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
}

ProgressTicker::~ProgressTicker() {
  if (!Thread.joinable())
    return;
  Thread.request_stop();
  Thread.join();
  std::fprintf(stderr, "\r%*s\r", static_cast<int>(Line.size()) + 16, "");
  std::fflush(stderr);
}

} // namespace mpiete
