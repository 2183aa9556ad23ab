// A rank's trace: the header, then every record to the end or the first error; read twice, as
// stored and with the estimator's consistency checks.
#include "FuzzInput.h"
#include "mpiete/trace/TraceReader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  for (bool Check : {false, true}) {
    mpiete::DiagnosticSink Diags(mpiete::fuzz::nullStream());
    mpiete::trace::TraceReader R(Diags);
    R.setCheckConsistency(Check);
    if (!R.openBuffer("rank0.trace", std::string(reinterpret_cast<const char *>(Data), Size)))
      return 0;
    mpiete::trace::Record Rec;
    for (int N = 0; N < 100000 && R.next(Rec); ++N) {
    }
  }
  return 0;
}
