// What the engine tests share: replaying hand-written traces, completed requests, error text.
#ifndef MPIETE_ESTIMATOR_UNITTESTS_REPLAY_H
#define MPIETE_ESTIMATOR_UNITTESTS_REPLAY_H

#include "mpiete/estimator/Engine.h"

#include <memory>
#include <string>
#include <vector>

namespace mpiete::estimator::test {

/// Replays one trace per rank (named rank<R>.trace in diagnostics) with these models.
inline EstimateResult replay(const ComputeModel &Compute, const NetworkModel &Net,
                             std::vector<std::vector<Event>> Traces, EngineOptions Opt = {}) {
  std::vector<std::unique_ptr<EventSource>> Owned;
  std::vector<EventSource *> Sources;
  for (size_t R = 0; R < Traces.size(); ++R) {
    Owned.push_back(std::make_unique<VectorEventSource>("rank" + std::to_string(R) + ".trace",
                                                        std::move(Traces[R])));
    Sources.push_back(Owned.back().get());
  }
  Engine E(Compute, Net, Opt);
  return E.run(Sources);
}

inline CompletedRequest req(uint64_t Id, int32_t Source = NoStatus, int32_t Tag = NoStatus) {
  return CompletedRequest{Id, Source, Tag};
}

/// Every error of a run, one per line, for assertion messages.
inline std::string allErrors(const EstimateResult &R) {
  std::string S;
  for (const EngineError &E : R.Errors)
    S += E.File + ": " + E.Message + "\n";
  return S;
}

} // namespace mpiete::estimator::test

#endif
