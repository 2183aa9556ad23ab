// Issue 14, finding 4: a trace whose records contradict each other (a completion of a request
// never started or already complete, more bytes than posted, another source or tag, peers
// outside the world, implausible counts) fails with its file and record number once the
// consistency checks are on, and reads as stored with them off.
#include "TraceBuilder.h"

#include "mpiete/trace/TraceReader.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace mpiete;
using namespace mpiete::trace;

namespace {

using mpiete::trace::test::Builder;

/// The reader's error on Data with the checks on ("" if it read to the end); with them off
/// it must read to the end.
std::string checkError(const std::string &Data) {
  for (bool Check : {false, true}) {
    std::ostringstream Errors;
    DiagnosticSink Diags(Errors);
    TraceReader R(Diags);
    R.setCheckConsistency(Check);
    Record Rec;
    EXPECT_TRUE(R.openBuffer("r.trace", Data)) << Errors.str();
    while (R.next(Rec)) {
    }
    if (Check)
      return Errors.str();
    EXPECT_TRUE(R.atEnd()) << Errors.str();
  }
  return "";
}

} // namespace

TEST(TraceChecksTest, AConsistentExchangeReads) {
  EXPECT_EQ(
      checkError(Builder().send(1, 5, 8).recv(1, 5, 8).waitSend(2).waitRecv(1, 1, 5, 8).done()),
      "");
  // Wildcards and a shorter message are fine.
  EXPECT_EQ(checkError(Builder().recv(AnySource, AnyTag, 64).waitRecv(1, 1, 9, 8).done()), "");
}

TEST(TraceChecksTest, CompletionsKeepWhatTheirStartPromised) {
  EXPECT_EQ(checkError(Builder().recv(1, 5, 8).waitRecv(1, 1, 5, 16).done()),
            "r.trace: error: record 2 at offset 29: corrupt trace: request 1 received 16 bytes "
            "into a receive of 8 [mpiete-trace]\n");
  EXPECT_EQ(checkError(Builder().recv(1, 5, 8).waitRecv(1, 1, 6, 8).done()),
            "r.trace: error: record 2 at offset 29: corrupt trace: request 1 posted for tag 5 "
            "matched tag 6 [mpiete-trace]\n");
  EXPECT_EQ(checkError(Builder().recv(1, 5, 8).waitRecv(1, 0, 5, 8).done()),
            "r.trace: error: record 2 at offset 29: corrupt trace: request 1 posted for rank 1 "
            "matched rank 0 [mpiete-trace]\n");
  EXPECT_EQ(checkError(Builder().send(1, 5, 8).waitRecv(1, 1, 5, 8).done()),
            "r.trace: error: record 2 at offset 30: corrupt trace: request 1 started as a send "
            "completes as a receive [mpiete-trace]\n");
  EXPECT_EQ(checkError(Builder().send(1, 5, 8).waitSend(1).waitSend(1).done()),
            "r.trace: error: record 3 at offset 36: corrupt trace: completion of request 1, which "
            "was never started or is already complete [mpiete-trace]\n");
}

TEST(TraceChecksTest, PeersInsideTheWorldAndPlausibleCounts) {
  EXPECT_EQ(checkError(Builder().send(2, 5, 8).done()),
            "r.trace: error: record 1 at offset 21: corrupt trace: send destination 2 outside the "
            "world of 2 ranks [mpiete-trace]\n");
  EXPECT_EQ(checkError(Builder().recv(-3, 5, 8).done()),
            "r.trace: error: record 1 at offset 21: corrupt trace: receive source -3 outside the "
            "world of 2 ranks [mpiete-trace]\n");
  EXPECT_EQ(checkError(Builder().recv(AnySource, 5, 8).waitRecv(1, 7, 5, 8).done()),
            "r.trace: error: record 2 at offset 29: corrupt trace: matched source 7 outside the "
            "world of 2 ranks [mpiete-trace]\n");
  // The loop of 2^62 trips (a negative rank end time once multiplied).
  EXPECT_EQ(checkError(Builder().loop(uint64_t(1) << 62).done()),
            "r.trace: error: record 1 at offset 21: corrupt trace: loop trips 4611686018427387904 "
            "(more than 2^48) [mpiete-trace]\n");
  EXPECT_EQ(checkError(Builder().send(1, 5, uint64_t(1) << 50).done()),
            "r.trace: error: record 1 at offset 21: corrupt trace: message bytes "
            "1125899906842624 (more than 2^48) [mpiete-trace]\n");
}

// The hostile matrix's last silent change: a waitall's receive completion flipped to request 0
// (the unknown request the runtime writes for a handle it did not start), so the receive is
// never waited for. MPI requires every request complete before MPI_Finalize: one still
// pending there is an error naming it and where it started.
TEST(TraceChecksTest, NoRequestPendingAtFinalize) {
  EXPECT_EQ(
      checkError(
          Builder().send(1, 5, 8).recv(1, 5, 8).waitSend(2).waitRecv(1, 1, 5, 8).finalize().done()),
      "");
  EXPECT_EQ(
      checkError(
          Builder().send(1, 5, 8).recv(1, 5, 8).waitSend(2).waitRecv(0, 1, 5, 8).finalize().done()),
      "r.trace: error: record 5 at offset 53: invalid trace: request 2 (a receive from rank "
      "1, tag 5, record 2) is still pending at MPI_Finalize, never completed or freed; MPI "
      "requires it: a program that does leave it pending must wait for it or free it before "
      "MPI_Finalize [mpiete-trace]\n");
  EXPECT_EQ(checkError(Builder().send(0, 3, 8).recv(AnySource, AnyTag, 8).finalize().done()),
            "r.trace: error: record 3 at offset 38: invalid trace: request 1 (a send to rank 0, "
            "tag 3, record 1) is still pending at MPI_Finalize, never completed or freed (1 "
            "more); MPI requires it: a program that does leave it pending must wait for it or "
            "free it before MPI_Finalize [mpiete-trace]\n");
  // A trace cut before MPI_Finalize (a rank stopped) is not held to the rule.
  EXPECT_EQ(checkError(Builder().recv(1, 5, 8).done()), "");
}

// Flips the hostile matrix left silent: a waitall turned into a wait of two requests, a
// receive's matched source turned into MPI_PROC_NULL (and the reverse).
TEST(TraceChecksTest, WhatEachWaitAndSourceCanBe) {
  EXPECT_EQ(checkError(Builder().send(1, 5, 8).send(1, 6, 8).waitTwoSends(WaitOp::Waitall).done()),
            "");
  EXPECT_EQ(checkError(Builder().send(1, 5, 8).send(1, 6, 8).waitTwoSends(WaitOp::Wait).done()),
            "r.trace: error: record 3 at offset 39: corrupt trace: a wait completing 2 requests "
            "(at most one) [mpiete-trace]\n");
  EXPECT_EQ(checkError(Builder().send(1, 5, 8).send(1, 6, 8).waitTwoSends(WaitOp::Testany).done()),
            "r.trace: error: record 3 at offset 39: corrupt trace: a testany completing 2 requests "
            "(at most one) [mpiete-trace]\n");
  EXPECT_EQ(checkError(Builder().recv(ProcNull, 5, 8).waitRecv(1, ProcNull, 5, 0).done()), "");
  EXPECT_EQ(checkError(Builder().recv(1, 5, 8).waitRecv(1, ProcNull, 5, 8).done()),
            "r.trace: error: record 2 at offset 29: corrupt trace: request 1 posted for rank 1 "
            "matched MPI_PROC_NULL [mpiete-trace]\n");
  EXPECT_EQ(checkError(Builder().recv(AnySource, 5, 8).waitRecv(1, ProcNull, 5, 0).done()),
            "r.trace: error: record 2 at offset 29: corrupt trace: request 1 posted for any rank "
            "matched MPI_PROC_NULL [mpiete-trace]\n");
  EXPECT_EQ(checkError(Builder().recv(ProcNull, 5, 8).waitRecv(1, 1, 5, 8).done()),
            "r.trace: error: record 2 at offset 29: corrupt trace: request 1 posted for "
            "MPI_PROC_NULL matched rank 1 [mpiete-trace]\n");
  EXPECT_EQ(checkError(Builder().recv(ProcNull, 5, 8).waitRecv(1, ProcNull, 5, 4).done()),
            "r.trace: error: record 2 at offset 29: corrupt trace: request 1 received 4 bytes "
            "from MPI_PROC_NULL [mpiete-trace]\n");
}
