// What `mpiete report` draws, and the readers that take it from the files other commands write:
// an estimate (`mpiete estimate --format yaml|json`), its timeline (`--timeline`, Chrome trace
// JSON), measured run times, what-if suggestions and a rank/size surface.
#ifndef MPIETE_REPORT_REPORTDATA_H
#define MPIETE_REPORT_REPORTDATA_H

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mpiete::report {

struct RankTimes {
  int Rank = 0;
  double Compute = 0, Comm = 0, Wait = 0; ///< seconds
  bool Reached = true;
};

/// A call site (block) of the estimate's top_blocks.
struct SiteTimes {
  std::string Block, Where;
  double Compute = 0, Comm = 0, Wait = 0;
  uint64_t Executions = 0;
  double total() const { return Compute + Comm + Wait; }
};

struct SegmentTimes {
  std::string From, To, Where;
  double Compute = 0;
  uint64_t Executions = 0;
};

struct EstimateData {
  double Predicted = 0;
  uint64_t Events = 0, Messages = 0;
  std::vector<std::pair<std::string, std::string>> Provenance;
  std::vector<RankTimes> Ranks;
  std::vector<SiteTimes> Sites;
  std::vector<SegmentTimes> Segments;
};

enum class SpanKind : uint8_t { Compute, Comm, Wait, Highlight };

struct Span {
  int Rank = 0;
  SpanKind Kind = SpanKind::Compute;
  double Begin = 0, End = 0; ///< microseconds, as the Chrome trace has them
  std::string Name;
};

struct Arrow {
  int From = 0, To = 0;
  double Begin = 0, End = 0; ///< microseconds
  uint64_t Bytes = 0;
};

struct TimelineData {
  int Ranks = 0;
  std::vector<Span> Spans;
  std::vector<Arrow> Arrows;
  uint64_t Dropped = 0; ///< spans and arrows past the drawing limit
};

struct MeasuredRun {
  std::string Label;
  double Seconds = 0;
};

/// `whatif.yaml` (the what-if analysis' output).
struct WhatIfData {
  struct Suggestion {
    int Rank = -1; ///< -1: every rank
    /// The list it came from: "remedies", "sensitivities", "bounds" (each ranked on its own),
    /// or "" for the single `suggestions:` list of the first rounds.
    std::string Class;
    std::string Kind, What, Where;
    double Predicted = 0, Saving = 0;
    std::string Bound;
  };
  struct PathStep {
    std::string Where, Kind;
    double Seconds = 0, Share = 0;
  };
  double Predicted = 0;
  std::vector<Suggestion> Suggestions;
  std::vector<PathStep> CriticalPath;
};

/// `surface.yaml` (predicted times over rank counts and problem sizes).
struct SurfaceData {
  std::vector<int> Ranks;
  std::vector<std::string> Sizes;
  std::vector<std::vector<double>> Time, Efficiency; ///< [size][rank count]
  std::string SvgFile;                               ///< a contour image beside it, if any
};

/// Each reader returns an empty string or the error, as `file: record: message`.
std::string readEstimate(const std::string &File, EstimateData &Out);
/// Keeps at most MaxItems spans and arrows (the rest are counted in Dropped).
std::string readChromeTimeline(const std::string &File, TimelineData &Out, size_t MaxItems = 20000);
/// A number of seconds, or a file: numbers one per line (a `#` starts a comment), or YAML
/// with `measured_seconds:` (a number or a list).
std::string readMeasured(const std::string &Spec, std::vector<MeasuredRun> &Out);
std::string readWhatIf(const std::string &File, WhatIfData &Out);
std::string readSurface(const std::string &File, SurfaceData &Out);

} // namespace mpiete::report

#endif
