// A hand-built trace for the unit tests of its readers (trace/unittests, tools/unittests).
#ifndef MPIETE_TRACE_UNITTESTS_TRACEBUILDER_H
#define MPIETE_TRACE_UNITTESTS_TRACEBUILDER_H

#include "mpiete/TraceFormat.h"

#include <cstdint>
#include <string>

namespace mpiete::trace::test {

/// Unit 0 of every Builder trace.
inline constexpr uint32_t BuilderUnit = 0x0aa758c0;

/// A version 2 trace of rank 0 of 2 built record by record (docs/trace-format.md).
struct Builder {
  std::string Data;
  uint64_t Records = 0;
  uint64_t Next = 0; ///< the next record's block index, if at() set one

  Builder() {
    Data.assign(reinterpret_cast<const char *>(Magic), sizeof Magic);
    u(2), u(0), u(2);
    for (int I = 0; I < 4; ++I)
      u(0);                               // fingerprint, host, date, tool: empty strings
    tag(Tag::Unit), u(0), u(BuilderUnit); // unit index 0
  }
  void u(uint64_t V) {
    unsigned char B[MaxVarint];
    Data.append(reinterpret_cast<const char *>(B), putVarint(B, V));
  }
  void z(int64_t V) { u(zigzag(V)); }
  void tag(Tag T) {
    Data += static_cast<char>(T);
    ++Records;
  }
  /// The block of the next record: Index, unless at() chose another.
  void block(uint64_t Index) {
    u(0), u(Next != 0 ? Next : Index);
    Next = 0;
  }
  /// The next record is at block Index of the unit (not its kind's default block).
  Builder &at(uint64_t Index) {
    Next = Index;
    return *this;
  }
  Builder &send(int Peer, int Tg, uint64_t Bytes) {
    tag(Tag::Send), block(1), z(Peer), z(Tg), u(0), u(Bytes);
    Data += '\0', Data += '\0'; // standard mode, user context
    return *this;
  }
  Builder &recv(int Peer, int Tg, uint64_t Bytes) {
    tag(Tag::Recv), block(2), z(Peer), z(Tg), u(0), u(Bytes);
    Data += '\0';
    return *this;
  }
  /// A wait completing one request Distance starts back (1 = the latest).
  Builder &waitSend(uint64_t Distance) {
    tag(Tag::Wait), block(3), Data += '\0', u(1), u(Distance << 1);
    return *this;
  }
  Builder &waitRecv(uint64_t Distance, int Source, int Tg, uint64_t Bytes) {
    tag(Tag::Wait), block(3), Data += '\0', u(1), u(Distance << 1 | 1), z(Source), z(Tg), u(Bytes);
    return *this;
  }
  /// A wait of operation Op completing the two latest starts, both sends.
  Builder &waitTwoSends(WaitOp Op) {
    tag(Tag::Wait), block(3), Data += static_cast<char>(Op), u(2), u(2 << 1), u(1 << 1);
    return *this;
  }
  Builder &finalize() {
    tag(Tag::Finalize), block(5);
    return *this;
  }
  Builder &loop(uint64_t Trips) {
    tag(Tag::Loop), block(4), u(Trips);
    return *this;
  }
  std::string done() const {
    std::string Out = Data;
    unsigned char B[MaxVarint];
    Out += static_cast<char>(Tag::End);
    Out.append(reinterpret_cast<const char *>(B), putVarint(B, Records));
    return Out;
  }
};

} // namespace mpiete::trace::test

#endif
