// The report's hand-drawn SVG charts (internal to report/).
#ifndef MPIETE_REPORT_LIB_HTMLCHARTS_H
#define MPIETE_REPORT_LIB_HTMLCHARTS_H

#include "mpiete/report/ReportData.h"

#include <ostream>

namespace mpiete::report::charts {

inline constexpr const char *ComputeColor = "#4e79a7", *CommColor = "#f28e2b",
                            *WaitColor = "#bab0ac", *HighlightColor = "#e15759",
                            *ArrowColor = "#222222";

/// A horizontal bar of Compute/Comm/Wait parts, Width px for Scale seconds.
void stackedBar(std::ostream &OS, double Compute, double Comm, double Wait, double Scale,
                int Width = 240);
/// Each rank's compute / communication / wait as stacked bars with a legend.
void rankBars(std::ostream &OS, const std::vector<RankTimes> &Ranks);
/// The zoomable timeline: a track per rank (and a highlighted one where there are
/// highlights), spans coloured by kind, messages as lines from send to receive.
void timeline(std::ostream &OS, const TimelineData &T);
/// Efficiency over (size, rank count) as a banded grid (a filled contour at steps of 0.1).
void efficiencyGrid(std::ostream &OS, const SurfaceData &S);

} // namespace mpiete::report::charts

#endif
