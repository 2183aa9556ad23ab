// Text, YAML and JSON summaries of an estimate.
#include "mpiete/estimator/Report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mpiete::estimator {

namespace {

std::string describe(const ReportOptions &Opt, BlockId B) {
  return Opt.Describe ? Opt.Describe(B) : std::string();
}

std::string describeSegment(const ReportOptions &Opt, const SegmentResult &G) {
  return Opt.DescribeSegment ? Opt.DescribeSegment(G.From, G.To)
                             : formatBlock(G.From) + " -> " + formatBlock(G.To);
}

/// The segment executions replayed with their segment's mean because the compute base data
/// measured fewer (SegmentResult::Unmeasured), against all of them and all the compute.
/// A share of the compute as the YAML and JSON give it.
std::string shareText(double Share) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.6g", Share);
  return Buf;
}

struct Extrapolated {
  uint64_t Executions = 0, Of = 0;
  TimeNs Compute = 0, AllCompute = 0;
  double share() const { return AllCompute > 0 ? double(Compute) / double(AllCompute) : 0.0; }
};

Extrapolated extrapolated(const EstimateResult &R) {
  Extrapolated X;
  for (const SegmentResult &G : R.Segments) {
    X.Executions += G.Unmeasured;
    X.Of += G.Executions;
    X.Compute += G.UnmeasuredCompute;
    X.AllCompute += G.Compute;
  }
  return X;
}

std::string listOf(const std::vector<std::string> &Items, bool Quoted) {
  std::string L;
  for (const std::string &C : Items)
    L += (L.empty() ? "" : ", ") + (Quoted ? quotedString(C) : C);
  return L;
}

/// The sampled loops' estimate: seconds, and its share of the predicted compute.
struct Sampled {
  TimeNs Estimated = 0;
  double Share = 0;
};

Sampled sampled(const ReportOptions &Opt, const Extrapolated &X) {
  Sampled S;
  S.Estimated = static_cast<TimeNs>(std::llround(Opt.SampledSeconds * 1e9));
  S.Share = X.AllCompute > 0 ? std::min(1.0, double(S.Estimated) / double(X.AllCompute)) : 0.0;
  return S;
}

} // namespace

std::string regionInstanceName(int RegionInstance) {
  return RegionInstance == 0    ? "all"
         : RegionInstance == -1 ? "last"
                                : std::to_string(RegionInstance);
}

void writeText(std::ostream &OS, const EstimateResult &R, const ReportOptions &Opt) {
  OS << "predicted time: " << formatSeconds(R.Predicted) << " s";
  if (R.Instances.size() > 1 || R.RegionInstance != 0)
    OS << " (region instance" << (R.RegionInstance == 0 ? "s: " : ": ")
       << regionInstanceName(R.RegionInstance) << " of " << R.Instances.size() << ")";
  OS << "\n";
  if (R.Instances.size() > 1) {
    for (size_t I = 0; I < R.Instances.size(); ++I)
      OS << "  instance " << I + 1 << ": " << formatSeconds(R.Instances[I].predicted()) << " s ("
         << R.Instances[I].Ranks << " ranks)\n";
    OS << "  all instances: " << formatSeconds(R.InstancesTotal) << " s\n";
  }
  OS << "events replayed: " << R.Events << ", messages: " << R.Messages << "\n";
  const Extrapolated X = extrapolated(R);
  if (X.Executions > 0) {
    char Line[200];
    std::snprintf(Line, sizeof Line,
                  "extrapolated: %llu of %llu compute segment executions (%s s, %.1f%% of the "
                  "predicted compute) take their segment's mean, not a time of their own",
                  (unsigned long long)X.Executions, (unsigned long long)X.Of,
                  formatSeconds(X.Compute).c_str(), 100.0 * X.share());
    OS << Line;
    if (Opt.SampleCap > 0)
      OS << ": the timing probe left loops early (--cap " << Opt.SampleCap
         << "): " << listOf(Opt.CappedLoops, false) << "\n";
    else
      OS << ": the timing run made them fewer times than the traces (another input or rank "
            "count, or a nondeterministic program)\n";
  }
  if (Opt.SampleStride > 0 && !Opt.SampledLoops.empty()) {
    const Sampled S = sampled(Opt, X);
    char Line[200];
    std::snprintf(Line, sizeof Line,
                  "sampled: %s s (%.1f%% of the predicted compute) is the timing probe's "
                  "estimate for skipped iterations of loops of pure computation (--sample %d): ",
                  formatSeconds(S.Estimated).c_str(), 100.0 * S.Share, Opt.SampleStride);
    OS << Line << listOf(Opt.SampledLoops, false) << "\n";
  }
  if (R.NondeterministicReceives)
    OS << "warning: " << R.NondeterministicReceives
       << " wildcard receives are predicted to match a different message than recorded "
          "(the program is nondeterministic)\n";
  OS << "\n  rank     compute (s)        comm (s)        wait (s)\n";
  for (const RankResult &K : R.Ranks) {
    char Line[160];
    std::snprintf(Line, sizeof Line, "%6d %15s %15s %15s%s\n", K.Rank,
                  formatSeconds(K.Compute).c_str(), formatSeconds(K.Comm).c_str(),
                  formatSeconds(K.Wait).c_str(), K.Reached ? "" : "  (region not reached)");
    OS << Line;
  }
  OS << "\nblocks that contribute most (summed over ranks):\n";
  OS << "  block                total (s)     compute (s)        comm (s)        wait (s)  where\n";
  for (const BlockResult &B : R.topBlocks(Opt.TopBlocks)) {
    char Line[200];
    std::snprintf(Line, sizeof Line, "  %-18s %15s %15s %15s %15s  ", formatBlock(B.Block).c_str(),
                  formatSeconds(B.total()).c_str(), formatSeconds(B.Compute).c_str(),
                  formatSeconds(B.Comm).c_str(), formatSeconds(B.Wait).c_str());
    OS << Line << describe(Opt, B.Block) << '\n';
  }
  std::vector<SegmentResult> Segments = R.topSegments(Opt.TopSegments);
  if (Segments.empty())
    return;
  OS << "\nsegments that compute most (summed over ranks):\n";
  OS << "      compute (s)  executions  segment\n";
  for (const SegmentResult &G : Segments) {
    char Line[120];
    std::snprintf(Line, sizeof Line, "  %15s %11llu  ", formatSeconds(G.Compute).c_str(),
                  (unsigned long long)G.Executions);
    OS << Line << describeSegment(Opt, G) << '\n';
  }
}

void writeYaml(std::ostream &OS, const EstimateResult &R, const ReportOptions &Opt) {
  OS << "format_version: 1\n";
  if (!Opt.Provenance.empty()) {
    OS << "provenance:\n";
    for (const auto &[K, V] : Opt.Provenance)
      OS << "  " << K << ": " << quotedString(V) << "\n";
  }
  OS << "predicted_seconds: " << formatSeconds(R.Predicted) << "\n";
  OS << "region_instance: " << quotedString(regionInstanceName(R.RegionInstance)) << "\n";
  OS << "instances_total_seconds: " << formatSeconds(R.InstancesTotal) << "\n";
  OS << "instances:\n";
  for (size_t I = 0; I < R.Instances.size(); ++I)
    OS << "  - {instance: " << I + 1
       << ", predicted_seconds: " << formatSeconds(R.Instances[I].predicted())
       << ", start_seconds: " << formatSeconds(R.Instances[I].Start)
       << ", end_seconds: " << formatSeconds(R.Instances[I].End)
       << ", ranks: " << R.Instances[I].Ranks << "}\n";
  OS << "events: " << R.Events << "\nmessages: " << R.Messages << "\n";
  OS << "nondeterministic_receives: " << R.NondeterministicReceives << "\n";
  const Extrapolated X = extrapolated(R);
  OS << "extrapolated: {executions: " << X.Executions << ", of: " << X.Of
     << ", compute_seconds: " << formatSeconds(X.Compute)
     << ", share_of_compute: " << shareText(X.share()) << ", sample_cap: " << Opt.SampleCap
     << ", capped_loops: [" << listOf(Opt.CappedLoops, true) << "]}\n";
  const Sampled S = sampled(Opt, X);
  OS << "sampled: {sample_stride: " << Opt.SampleStride
     << ", estimated_seconds: " << formatSeconds(S.Estimated)
     << ", share_of_compute: " << shareText(S.Share) << ", loops: ["
     << listOf(Opt.SampledLoops, true) << "]}\n";
  OS << "ranks:\n";
  for (const RankResult &K : R.Ranks)
    OS << "  - {rank: " << K.Rank << ", compute_seconds: " << formatSeconds(K.Compute)
       << ", comm_seconds: " << formatSeconds(K.Comm) << ", wait_seconds: " << formatSeconds(K.Wait)
       << ", start_seconds: " << formatSeconds(K.Start) << ", end_seconds: " << formatSeconds(K.End)
       << ", reached: " << (K.Reached ? "true" : "false") << "}\n";
  OS << "top_blocks:\n";
  for (const BlockResult &B : R.topBlocks(Opt.TopBlocks))
    OS << "  - {block: \"" << formatBlock(B.Block)
       << "\", total_seconds: " << formatSeconds(B.total())
       << ", compute_seconds: " << formatSeconds(B.Compute)
       << ", comm_seconds: " << formatSeconds(B.Comm) << ", wait_seconds: " << formatSeconds(B.Wait)
       << ", executions: " << B.Executions << ", where: " << quotedString(describe(Opt, B.Block))
       << "}\n";
  OS << "top_segments:\n";
  for (const SegmentResult &G : R.topSegments(Opt.TopSegments))
    OS << "  - {from: \"" << formatBlock(G.From) << "\", to: \"" << formatBlock(G.To)
       << "\", compute_seconds: " << formatSeconds(G.Compute) << ", executions: " << G.Executions
       << ", unmeasured: " << G.Unmeasured << ", where: " << quotedString(describeSegment(Opt, G))
       << "}\n";
  if (Opt.ExtraYaml)
    Opt.ExtraYaml(OS);
}

void writeJson(std::ostream &OS, const EstimateResult &R, const ReportOptions &Opt) {
  OS << "{\n  \"format_version\": 1,\n";
  if (!Opt.Provenance.empty()) {
    OS << "  \"provenance\": {";
    for (size_t I = 0; I < Opt.Provenance.size(); ++I)
      OS << (I ? ", " : "") << quotedString(Opt.Provenance[I].first) << ": "
         << quotedString(Opt.Provenance[I].second);
    OS << "},\n";
  }
  OS << "  \"predicted_seconds\": " << formatSeconds(R.Predicted) << ",\n";
  OS << "  \"region_instance\": " << quotedString(regionInstanceName(R.RegionInstance)) << ",\n";
  OS << "  \"instances_total_seconds\": " << formatSeconds(R.InstancesTotal) << ",\n";
  OS << "  \"instances\": [";
  for (size_t I = 0; I < R.Instances.size(); ++I)
    OS << (I ? ",\n    " : "\n    ") << "{\"instance\": " << I + 1
       << ", \"predicted_seconds\": " << formatSeconds(R.Instances[I].predicted())
       << ", \"start_seconds\": " << formatSeconds(R.Instances[I].Start)
       << ", \"end_seconds\": " << formatSeconds(R.Instances[I].End)
       << ", \"ranks\": " << R.Instances[I].Ranks << "}";
  OS << (R.Instances.empty() ? "],\n" : "\n  ],\n");
  OS << "  \"events\": " << R.Events << ",\n  \"messages\": " << R.Messages << ",\n";
  OS << "  \"nondeterministic_receives\": " << R.NondeterministicReceives << ",\n";
  const Extrapolated X = extrapolated(R);
  OS << "  \"extrapolated\": {\"executions\": " << X.Executions << ", \"of\": " << X.Of
     << ", \"compute_seconds\": " << formatSeconds(X.Compute)
     << ", \"share_of_compute\": " << shareText(X.share()) << ", \"sample_cap\": " << Opt.SampleCap
     << ", \"capped_loops\": [" << listOf(Opt.CappedLoops, true) << "]},\n";
  const Sampled S = sampled(Opt, X);
  OS << "  \"sampled\": {\"sample_stride\": " << Opt.SampleStride
     << ", \"estimated_seconds\": " << formatSeconds(S.Estimated)
     << ", \"share_of_compute\": " << shareText(S.Share) << ", \"loops\": ["
     << listOf(Opt.SampledLoops, true) << "]},\n";
  OS << "  \"ranks\": [";
  for (size_t I = 0; I < R.Ranks.size(); ++I) {
    const RankResult &K = R.Ranks[I];
    OS << (I ? ",\n    " : "\n    ") << "{\"rank\": " << K.Rank
       << ", \"compute_seconds\": " << formatSeconds(K.Compute)
       << ", \"comm_seconds\": " << formatSeconds(K.Comm)
       << ", \"wait_seconds\": " << formatSeconds(K.Wait)
       << ", \"start_seconds\": " << formatSeconds(K.Start)
       << ", \"end_seconds\": " << formatSeconds(K.End)
       << ", \"reached\": " << (K.Reached ? "true" : "false") << "}";
  }
  OS << "\n  ],\n  \"top_blocks\": [";
  std::vector<BlockResult> Top = R.topBlocks(Opt.TopBlocks);
  for (size_t I = 0; I < Top.size(); ++I) {
    const BlockResult &B = Top[I];
    OS << (I ? ",\n    " : "\n    ") << "{\"block\": \"" << formatBlock(B.Block)
       << "\", \"total_seconds\": " << formatSeconds(B.total())
       << ", \"compute_seconds\": " << formatSeconds(B.Compute)
       << ", \"comm_seconds\": " << formatSeconds(B.Comm)
       << ", \"wait_seconds\": " << formatSeconds(B.Wait) << ", \"executions\": " << B.Executions
       << ", \"where\": " << quotedString(describe(Opt, B.Block)) << "}";
  }
  OS << (Top.empty() ? "],\n" : "\n  ],\n");
  OS << "  \"top_segments\": [";
  std::vector<SegmentResult> Segments = R.topSegments(Opt.TopSegments);
  for (size_t I = 0; I < Segments.size(); ++I) {
    const SegmentResult &G = Segments[I];
    OS << (I ? ",\n    " : "\n    ") << "{\"from\": \"" << formatBlock(G.From) << "\", \"to\": \""
       << formatBlock(G.To) << "\", \"compute_seconds\": " << formatSeconds(G.Compute)
       << ", \"executions\": " << G.Executions << ", \"unmeasured\": " << G.Unmeasured
       << ", \"where\": " << quotedString(describeSegment(Opt, G)) << "}";
  }
  OS << (Segments.empty() ? "]" : "\n  ]");
  if (Opt.ExtraJson) {
    OS << ",\n";
    Opt.ExtraJson(OS);
    OS << "}\n";
  } else {
    OS << "\n}\n";
  }
}

std::string formatSeconds(TimeNs Ns) {
  char Buf[48];
  const char *Sign = Ns < 0 ? "-" : "";
  unsigned long long A = Ns < 0 ? (unsigned long long)(-Ns) : (unsigned long long)Ns;
  std::snprintf(Buf, sizeof Buf, "%s%llu.%09llu", Sign, A / 1000000000ULL, A % 1000000000ULL);
  return Buf;
}

std::string quotedString(const std::string &S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    if (C == '\n') {
      Out += "\\n";
      continue;
    }
    Out += C;
  }
  return Out + "\"";
}

} // namespace mpiete::estimator
