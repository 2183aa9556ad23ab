// The what-if report: text for people, YAML and JSON for programs (the contract of
// docs/whatif.md: tool, version, command, predicted_seconds, suggestions, critical_path).
#include "mpiete/whatif/Analysis.h"

#include "mpiete/estimator/Report.h"
#include "mpiete/estimator/Timeline.h"

#include <cstdio>

namespace mpiete::whatif {

namespace {

using estimator::formatSeconds;
using estimator::quotedString;
using estimator::spanKindName;

std::string share(double X) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.4f", X);
  return Buf;
}

} // namespace

void writeWhatIfText(std::ostream &OS, const WhatIfReport &R) {
  const Analysis &A = *R.F1;
  OS << "predicted time: " << formatSeconds(A.Base) << " s\n";
  if (R.ScenarioLabel) {
    OS << "what if " << *R.ScenarioLabel << ": " << formatSeconds(R.ScenarioPredicted)
       << " s (replayed)\n";
    OS << "  upper bound on the improvement (F3, sum of times, no DAG): "
       << formatSeconds(R.ScenarioBound) << " s\n";
  }
  OS << "\nsuggestions (predicted time after each, from a replay of the same base data):\n";
  OS << "  rank  predicted (s)    saving (s)  kind             what / where\n";
  for (const Suggestion &S : A.Suggestions) {
    char Line[200];
    std::snprintf(Line, sizeof Line, "  %4u %14s %13s  %-16s ", S.Rank,
                  formatSeconds(S.Predicted).c_str(), formatSeconds(S.Saving).c_str(),
                  S.Kind.c_str());
    OS << Line << S.What << (S.Bound ? " [bound]" : "") << "\n"
       << std::string(52, ' ') << "at " << S.Where << "\n";
  }
  if (!A.Domino.Waits.empty())
    OS << "\ndomino path: " << A.Domino.Waits.size() << " waits, predicted "
       << formatSeconds(A.Domino.Predicted) << " s (" << A.Domino.Replays << " replays)\n";
  OS << "\ncritical path (" << formatSeconds(A.Path.Length) << " s, " << A.Path.Intervals
     << " intervals), by site:\n";
  OS << "  share   seconds        kind     where\n";
  for (size_t I = 0; I < A.Shares.size() && I < 15; ++I) {
    const CriticalShare &C = A.Shares[I];
    char Line[120];
    std::snprintf(Line, sizeof Line, "  %5.1f%% %14s %-8s ", 100 * C.Share,
                  formatSeconds(C.Seconds).c_str(), spanKindName(C.Kind));
    OS << Line << C.Where << "\n";
  }
}

namespace {

/// One writer for both YAML and JSON (JSON is YAML's flow subset written out in full).
void writeData(std::ostream &OS, const WhatIfReport &R, bool Json) {
  const Analysis &A = *R.F1;
  const char *Sep = Json ? "," : "";
  auto key = [&](const std::string &K, const std::string &V, int Indent, bool Last = false) {
    OS << std::string(size_t(Indent), ' ') << (Json ? quotedString(K) : K) << ": " << V
       << (Json && !Last ? "," : "") << "\n";
  };
  if (Json)
    OS << "{\n";
  for (const auto &[K, V] : R.Provenance)
    key(K, quotedString(V), Json ? 2 : 0);
  key("predicted_seconds", formatSeconds(A.Base), Json ? 2 : 0);
  if (R.ScenarioLabel) {
    OS << (Json ? "  \"scenario\": {\n" : "scenario:\n");
    key("what", quotedString(*R.ScenarioLabel), 2 + (Json ? 2 : 0));
    key("predicted_seconds", formatSeconds(R.ScenarioPredicted), 2 + (Json ? 2 : 0));
    key("bound_seconds", formatSeconds(R.ScenarioBound), 2 + (Json ? 2 : 0), true);
    OS << (Json ? "  },\n" : "");
  }
  OS << (Json ? "  \"suggestions\": [\n" : "suggestions:\n");
  for (size_t I = 0; I < A.Suggestions.size(); ++I) {
    const Suggestion &S = A.Suggestions[I];
    if (Json)
      OS << "    {\n";
    int In = Json ? 6 : 4;
    OS << (Json ? "" : "  - ");
    OS << (Json ? std::string(size_t(In), ' ') + "\"rank\": " : "rank: ") << S.Rank << Sep << "\n";
    key("kind", quotedString(S.Kind), In);
    key("what", quotedString(S.What), In);
    key("where", quotedString(S.Where), In);
    key("predicted_seconds", formatSeconds(S.Predicted), In);
    key("saving_seconds", formatSeconds(S.Saving), In);
    key("bound", S.Bound ? "true" : "false", In, true);
    if (Json)
      OS << "    }" << (I + 1 < A.Suggestions.size() ? "," : "") << "\n";
  }
  OS << (Json ? "  ],\n  \"critical_path\": [\n" : "critical_path:\n");
  for (size_t I = 0; I < A.Shares.size(); ++I) {
    const CriticalShare &C = A.Shares[I];
    int In = Json ? 6 : 4;
    if (Json)
      OS << "    {\n"
         << std::string(size_t(In), ' ') << "\"where\": " << quotedString(C.Where) << ",\n";
    else
      OS << "  - where: " << quotedString(C.Where) << "\n";
    key("kind", quotedString(spanKindName(C.Kind)), In);
    key("seconds", formatSeconds(C.Seconds), In);
    key("share", share(C.Share), In, true);
    if (Json)
      OS << "    }" << (I + 1 < A.Shares.size() ? "," : "") << "\n";
  }
  if (Json)
    OS << "  ]\n}\n";
}

} // namespace

void writeWhatIfYaml(std::ostream &OS, const WhatIfReport &R) { writeData(OS, R, false); }
void writeWhatIfJson(std::ostream &OS, const WhatIfReport &R) { writeData(OS, R, true); }

} // namespace mpiete::whatif
