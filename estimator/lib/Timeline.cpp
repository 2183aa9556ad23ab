// Chrome trace JSON output of the predicted timeline, streamed span by span.
#include "mpiete/estimator/Timeline.h"

#include <cstdio>

namespace mpiete::estimator {

TimelineSink::~TimelineSink() = default;

namespace {
/// Microseconds with three decimals, from integer nanoseconds, without floating point.
void writeMicros(std::ostream &OS, TimeNs Ns) {
  char Buf[40];
  std::snprintf(Buf, sizeof Buf, "%lld.%03lld", (long long)(Ns / 1000), (long long)(Ns % 1000));
  OS << Buf;
}

const char *kindName(SpanKind K) {
  switch (K) {
  case SpanKind::Compute:
    return "compute";
  case SpanKind::Comm:
    return "comm";
  case SpanKind::Wait:
    return "wait";
  }
  return "?";
}
} // namespace

ChromeTraceWriter::ChromeTraceWriter(std::ostream &OS, int Ranks) : OS(OS) {
  OS << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  OS << "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"predicted\"}}";
  for (int R = 0; R < Ranks; ++R)
    OS << ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":" << R
       << ",\"args\":{\"name\":\"rank " << R << "\"}}";
}

ChromeTraceWriter::~ChromeTraceWriter() { finish(); }

void ChromeTraceWriter::span(int Rank, SpanKind Kind, BlockId Block, TimeNs Begin, TimeNs End) {
  std::string B = formatBlock(Block);
  OS << ",\n{\"name\":\"" << kindName(Kind) << ' ' << B << "\",\"cat\":\"" << kindName(Kind)
     << "\",\"ph\":\"X\",\"pid\":0,\"tid\":" << Rank << ",\"ts\":";
  writeMicros(OS, Begin);
  OS << ",\"dur\":";
  writeMicros(OS, End - Begin);
  OS << ",\"args\":{\"block\":\"" << B << "\"}}";
}

void ChromeTraceWriter::finish() {
  if (Finished)
    return;
  Finished = true;
  OS << "\n]}\n";
  OS.flush();
}

} // namespace mpiete::estimator
