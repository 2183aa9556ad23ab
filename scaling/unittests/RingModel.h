// The hand-built model the surface and best-configuration tests share: a ring exchange learnt
// from traces at 2, 4 and 8 ranks between two compute segments, and a link of a fixed cost.
#ifndef MPIETE_SCALING_UNITTESTS_RINGMODEL_H
#define MPIETE_SCALING_UNITTESTS_RINGMODEL_H

#include "mpiete/estimator/Models.h"
#include "mpiete/scaling/CommStructure.h"
#include "mpiete/scaling/ModelFile.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace mpiete::scaling::ringmodel {

using estimator::BlockId;
using estimator::Event;

/// The exchange's call and the call after the second segment.
constexpr BlockId SiteA = (BlockId(0x0aa758c0) << 32) | 3;
constexpr BlockId SiteB = (BlockId(0x0aa758c0) << 32) | 7;

/// Rank R of P: compute, receive from the left, send to the right, compute, wait for both.
inline std::vector<Event> ring(int R, int P) {
  const int Next = (R + 1) % P, Prev = (R + P - 1) % P;
  return {Event::segment(mpiete::ProgramStart, SiteA), Event::recv(SiteA, Prev, 1, 64, 1),
          Event::send(SiteA, Next, 1, 64, 2), Event::segment(SiteA, SiteB),
          Event::completion(SiteB, {{1, Prev, 1}, {2}})};
}

/// The structure learnt from the ring at 2, 4 and 8 ranks, each run of problem size Size.
inline CommStructure ringStructure(double Size) {
  std::vector<MeasuredRun> Runs;
  for (int P : {2, 4, 8}) {
    MeasuredRun Run{P, Size, {}, {}};
    for (int R = 0; R < P; ++R)
      Run.PerRank.push_back(ring(R, P));
    Runs.push_back(std::move(Run));
  }
  CommStructure S;
  Refusal Why;
  EXPECT_TRUE(learnStructure(Runs, S, Why)) << Why.Message;
  return S;
}

/// The two segments: Work (program start to SiteA) with these terms and coefficients, then
/// 1e-4 s from SiteA to SiteB.
inline ScalingModelFile ringModel(std::vector<Term> WorkTerms, std::vector<double> WorkCoeffs) {
  ScalingModelFile F;
  SegmentModel Work;
  Work.From = mpiete::ProgramStart;
  Work.To = SiteA;
  Work.M.Terms = std::move(WorkTerms);
  Work.M.Coeffs = std::move(WorkCoeffs);
  SegmentModel Post;
  Post.From = SiteA;
  Post.To = SiteB;
  Post.M.Terms = {Term{}};
  Post.M.Coeffs = {1e-4};
  F.Segments = {Work, Post};
  F.StructureAccepted = true;
  return F;
}

/// A link where every message takes Seconds (0: a free network).
inline std::shared_ptr<estimator::TableLinkModel> fixedLink(double Seconds) {
  return std::make_shared<estimator::TableLinkModel>(
      std::vector<estimator::TableLinkModel::Point>{{1, Seconds}, {1 << 20, Seconds}}, 0, 0,
      uint64_t(1) << 30);
}

} // namespace mpiete::scaling::ringmodel

#endif
