// The what-if report: text for people, YAML and JSON for programs (the contract of
// docs/whatif.md: tool, version, command, predicted_seconds, suggestions, critical_path).
#include "mpiete/whatif/Analysis.h"

#include "mpiete/estimator/Report.h"
#include "mpiete/estimator/Timeline.h"

#include <algorithm>
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
  static const char *const Heading[] = {
      "remedies: changes of the program's structure, ranked by the predicted time after each "
      "(a replay of the same base data)",
      "sensitivities: what if a part of the run were faster (where the time goes, not a change "
      "to make), ranked the same way",
      "bound (F3, no replay)"};
  const bool AnyRemedy =
      !A.Suggestions.empty() && A.Suggestions.front().Class == SuggestionClass::Remedy;
  const auto Others = [&] {
    return std::to_string(A.RemediesNotShorter) +
           (A.RemediesNotShorter == 1 ? " change" : " changes") +
           " of the program's structure replayed would not shorten the run";
  };
  if (!AnyRemedy && A.RemediesNotShorter)
    OS << "\nremedies: none; the " << Others() << "\n";
  for (size_t I = 0; I < A.Suggestions.size(); ++I) {
    const Suggestion &S = A.Suggestions[I];
    if (S.Rank == 1 && (I == 0 || A.Suggestions[I - 1].Class != S.Class))
      OS << "\n"
         << Heading[size_t(S.Class)]
         << ":\n  rank  predicted (s)    saving (s)  kind             what / where\n";
    char Line[200];
    std::snprintf(Line, sizeof Line, "  %4u %14s %13s  %-16s ", S.Rank,
                  formatSeconds(S.Predicted).c_str(), formatSeconds(S.Saving).c_str(),
                  S.Kind.c_str());
    OS << Line << S.What << (S.Bound ? " [bound]" : "") << "\n"
       << std::string(52, ' ') << "at " << S.Where << "\n";
    const bool LastRemedy =
        S.Class == SuggestionClass::Remedy &&
        (I + 1 == A.Suggestions.size() || A.Suggestions[I + 1].Class != SuggestionClass::Remedy);
    if (LastRemedy && A.RemediesNotShorter)
      OS << "  (" << Others() << ")\n";
    // The best remedy is first: below 1% of the run, no change of the structure is worth much.
    if (LastRemedy && A.Base > 0 && 100 * A.Suggestions.front().Saving < A.Base)
      OS << "  (no remedy saves 1% of the run: its parallel structure leaves little to gain; "
            "the sensitivities say where the time goes)\n";
  }
  if (!A.Domino.Waits.empty()) {
    const auto Data = std::count(A.Domino.ForData.begin(), A.Domino.ForData.end(), true);
    OS << "\ndomino path: " << A.Domino.Waits.size() << " waits (" << Data
       << " for data), predicted " << formatSeconds(A.Domino.Predicted)
       << " s if each partner started early enough (seed 003; " << A.Domino.Replays
       << " replays; its remedies zero only the waits a call change removes)\n";
  }
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

void writeKey(std::ostream &OS, bool Json, const std::string &K, const std::string &V, int Indent,
              bool Last = false) {
  OS << std::string(size_t(Indent), ' ') << (Json ? quotedString(K) : K) << ": " << V
     << (Json && !Last ? "," : "") << "\n";
}

/// The entries of one list (the caller writes its key and, in JSON, what closes it).
void writeSuggestions(std::ostream &OS, const std::vector<const Suggestion *> &List, bool Json) {
  const int In = Json ? 6 : 4;
  for (size_t I = 0; I < List.size(); ++I) {
    const Suggestion &S = *List[I];
    if (Json)
      OS << "    {\n" << std::string(size_t(In), ' ') << "\"rank\": " << S.Rank << ",\n";
    else
      OS << "  - rank: " << S.Rank << "\n";
    writeKey(OS, Json, "kind", quotedString(S.Kind), In);
    writeKey(OS, Json, "what", quotedString(S.What), In);
    writeKey(OS, Json, "where", quotedString(S.Where), In);
    writeKey(OS, Json, "predicted_seconds", formatSeconds(S.Predicted), In);
    writeKey(OS, Json, "saving_seconds", formatSeconds(S.Saving), In);
    writeKey(OS, Json, "bound", S.Bound ? "true" : "false", In, true);
    if (Json)
      OS << "    }" << (I + 1 < List.size() ? "," : "") << "\n";
  }
  if (Json && !List.empty())
    OS << "  ],\n";
}

/// One writer for both YAML and JSON (JSON is YAML's flow subset written out in full).
void writeData(std::ostream &OS, const WhatIfReport &R, bool Json) {
  const Analysis &A = *R.F1;
  auto key = [&](const std::string &K, const std::string &V, int Indent, bool Last = false) {
    writeKey(OS, Json, K, V, Indent, Last);
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
  key("remedies_not_shorter", std::to_string(A.RemediesNotShorter), Json ? 2 : 0);
  // One list per class (remedies, sensitivities, bounds), each ranked on its own; a list with
  // no entry is written empty.
  for (SuggestionClass C :
       {SuggestionClass::Remedy, SuggestionClass::Sensitivity, SuggestionClass::Bound}) {
    std::vector<const Suggestion *> List;
    for (const Suggestion &S : A.Suggestions)
      if (S.Class == C)
        List.push_back(&S);
    const std::string Name = suggestionClassName(C, true);
    if (Json)
      OS << "  \"" << Name << "\": [" << (List.empty() ? "],\n" : "\n");
    else
      OS << Name << ":" << (List.empty() ? " []\n" : "\n");
    writeSuggestions(OS, List, Json);
  }
  OS << (Json               ? "  \"critical_path\": [\n"
         : A.Shares.empty() ? "critical_path: []\n"
                            : "critical_path:\n");
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
