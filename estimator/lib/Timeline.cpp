// Chrome trace JSON output of the predicted timeline, streamed span by span.
#include "mpiete/estimator/Timeline.h"

#include <cstdio>

namespace mpiete::estimator {

TimelineSink::~TimelineSink() = default;

const char *spanKindName(SpanKind K) {
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

namespace {
/// Microseconds with three decimals, from integer nanoseconds, without floating point.
void writeMicros(std::ostream &OS, TimeNs Ns) {
  char Buf[40];
  std::snprintf(Buf, sizeof Buf, "%lld.%03lld", (long long)(Ns / 1000), (long long)(Ns % 1000));
  OS << Buf;
}

/// A JSON string's body: labels come from callers and may hold quotes.
void writeEscaped(std::ostream &OS, std::string_view S) {
  for (char C : S) {
    if (C == '"' || C == '\\')
      OS << '\\' << C;
    else if ((unsigned char)C < 0x20)
      OS << ' ';
    else
      OS << C;
  }
}
} // namespace

ChromeTraceWriter::ChromeTraceWriter(std::ostream &OS, int Ranks) : OS(OS), Ranks(Ranks) {
  OS << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  OS << "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"predicted\"}}";
  for (int R = 0; R < Ranks; ++R)
    OS << ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":" << R
       << ",\"args\":{\"name\":\"rank " << R << "\"}}";
}

ChromeTraceWriter::~ChromeTraceWriter() { finish(); }

void ChromeTraceWriter::span(int Rank, SpanKind Kind, BlockId Block, TimeNs Begin, TimeNs End) {
  std::string B = formatBlock(Block);
  OS << ",\n{\"name\":\"" << spanKindName(Kind) << ' ' << B << "\",\"cat\":\"" << spanKindName(Kind)
     << "\",\"ph\":\"X\",\"pid\":0,\"tid\":" << Rank << ",\"ts\":";
  writeMicros(OS, Begin);
  OS << ",\"dur\":";
  writeMicros(OS, End - Begin);
  OS << ",\"args\":{\"block\":\"" << B << "\"}}";
}

void ChromeTraceWriter::message(const MessageArrow &M) {
  // A flow starts in the slice enclosing its "s" timestamp and ends in the one enclosing its
  // "f" ("bp":"e"): the send's comm span and the receive's or wait's span.
  const uint64_t Id = ++Flows;
  OS << ",\n{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"s\",\"id\":" << Id
     << ",\"pid\":0,\"tid\":" << M.Source << ",\"ts\":";
  writeMicros(OS, M.SendBegin);
  OS << ",\"args\":{\"to\":" << M.Dest << ",\"bytes\":" << M.Bytes << ",\"tag\":" << M.Tag
     << ",\"send\":\"" << formatBlock(M.SendSite) << "\",\"recv\":\"" << formatBlock(M.RecvSite)
     << "\"}}";
  OS << ",\n{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"f\",\"bp\":\"e\",\"id\":" << Id
     << ",\"pid\":0,\"tid\":" << M.Dest << ",\"ts\":";
  writeMicros(OS, M.RecvEnd);
  OS << "}";
}

void ChromeTraceWriter::highlight(int Rank, TimeNs Begin, TimeNs End, std::string_view Label) {
  if (!HighlightTracks) {
    HighlightTracks = true;
    OS << ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":"
          "\"highlighted\"}}";
    for (int R = 0; R < Ranks; ++R)
      OS << ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":" << R
         << ",\"args\":{\"name\":\"rank " << R << " highlighted\"}}";
  }
  OS << ",\n{\"name\":\"";
  writeEscaped(OS, Label);
  OS << "\",\"cat\":\"highlight\",\"ph\":\"X\",\"pid\":1,\"tid\":" << Rank << ",\"ts\":";
  writeMicros(OS, Begin);
  OS << ",\"dur\":";
  writeMicros(OS, End - Begin);
  OS << "}";
}

void ChromeTraceWriter::finish() {
  if (Finished)
    return;
  Finished = true;
  OS << "\n]}\n";
  OS.flush();
}

} // namespace mpiete::estimator
