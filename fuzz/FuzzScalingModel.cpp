// model.yaml (mpiete model's scaling models): read, and where its structure is accepted, every
// rank's generated stream at a few rank counts (bounded) and the compute model at two.
#include "FuzzInput.h"
#include "mpiete/scaling/ModelFile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  using namespace mpiete::scaling;
  mpiete::DiagnosticSink Diags(mpiete::fuzz::nullStream());
  ScalingModelFile F;
  // A file without its learnt classes is learnt again from its runs (estimate --ranks).
  if (!loadScalingModel(mpiete::fuzz::asFile(Data, Size, ".yaml"), F, Diags) ||
      !F.StructureAccepted || F.Learnt.Classes.empty())
    return 0;
  Event E;
  for (int P : {1, 2, 6})
    for (int R = 0; R < P; ++R) {
      SyntheticEventSource Gen(F.Learnt, R, P, 64);
      for (int K = 0; K < 20000 && Gen.next(E); ++K) {
      }
    }
  for (double P : {2.0, 64.0}) {
    ScaledComputeModel C(F, P, 64);
    for (const SegmentModel &S : F.Segments)
      C.segment(int(P) - 1, S.From, S.To);
  }
  return 0;
}
