// `mpiete report`'s page: one self-contained HTML file (inline hand-drawn SVG, a little inline
// script for the timeline's zoom; no network) from an estimate and what else is given.
#ifndef MPIETE_REPORT_HTMLREPORT_H
#define MPIETE_REPORT_HTMLREPORT_H

#include "mpiete/report/ReportData.h"

#include <optional>
#include <ostream>

namespace mpiete::report {

struct ReportInput {
  std::string Title = "mpiete prediction";
  EstimateData Estimate;
  std::optional<TimelineData> Timeline;
  std::vector<MeasuredRun> Measured;
  std::optional<WhatIfData> WhatIf;
  std::optional<SurfaceData> Surface;
  std::string SurfaceSvg; ///< the surface's own contour image (SVG text), if given
  /// The tool version, command and input files, shown at the foot and in a comment.
  std::vector<std::pair<std::string, std::string>> Provenance;
};

void writeHtml(std::ostream &OS, const ReportInput &In);

/// Seconds for people: "1.23 s", "45.6 ms", "789 µs", "12 ns" (three significant digits).
std::string humanSeconds(double S);
/// Text safe inside HTML elements and attributes.
std::string escapeHtml(std::string_view S);

} // namespace mpiete::report

#endif
