// The timeline sinks' messages and highlights: the engine's arrows on hand-written traces and
// the Chrome trace JSON they become.
#include "mpiete/estimator/Timeline.h"
#include "Replay.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace mpiete::estimator;
using mpiete::estimator::test::allErrors;
using mpiete::estimator::test::req;

namespace {

/// The network of EngineTest: T(k) = 1000 + k ns, o_s = 10 ns, o_r = 20 ns, eager up to 1024
/// bytes; block 1 computes 100 ns.
struct Models {
  TableComputeModel Compute;
  std::shared_ptr<LinkModel> Link = std::make_shared<TableLinkModel>(
      std::vector<TableLinkModel::Point>{{0, 1000e-9}, {1024, 2024e-9}}, 10e-9, 20e-9, 1024);
  ClusterNetworkModel Net{Link};
  Models() { Compute.setTime(Compute.addMachine(), 1, 100e-9); }
};

struct Recorder : TimelineSink {
  std::vector<MessageArrow> Messages;
  void span(int, SpanKind, BlockId, TimeNs, TimeNs) override {}
  void message(const MessageArrow &M) override { Messages.push_back(M); }
};

TEST(TimelineTest, EngineReportsEachMessageOnce) {
  Models M;
  Recorder Rec;
  EngineOptions Opt;
  Opt.Timeline = &Rec;
  // Eager 100 bytes: rank 0 computes 0..100 and sends (injected at 100, arrives 1200); rank 1
  // posted its receive at 0, so it completes at 1200. Then a rendezvous 2000 bytes back from
  // rank 1 at 1200 (its announcement arrives at 2200, where rank 0's receive posted at 110
  // waits): the transfer starts at the send's 1200 and takes 1000 + 2000 ns, done at 4200.
  EstimateResult R = test::replay(
      M.Compute, M.Net,
      {{Event::compute(1), Event::send(10, 1, 7, 100, 1), Event::completion(11, {req(1)}),
        Event::recv(12, 1, 8, 2000, 2), Event::completion(13, {req(2, 1, 8)})},
       {Event::recv(20, 0, 7, 100, 1), Event::completion(21, {req(1, 0, 7)}),
        Event::send(22, 0, 8, 2000, 2), Event::completion(23, {req(2)})}},
      Opt);
  ASSERT_TRUE(R.Ok) << allErrors(R);
  ASSERT_EQ(Rec.Messages.size(), 2u);
  const MessageArrow &A = Rec.Messages[0];
  EXPECT_EQ(A.Source, 0);
  EXPECT_EQ(A.Dest, 1);
  EXPECT_EQ(A.SendBegin, 100);
  EXPECT_EQ(A.RecvEnd, 1200);
  EXPECT_EQ(A.Bytes, 100u);
  EXPECT_EQ(A.Tag, 7);
  EXPECT_EQ(A.SendSite, BlockId(10));
  EXPECT_EQ(A.RecvSite, BlockId(20));
  const MessageArrow &B = Rec.Messages[1];
  EXPECT_EQ(B.Source, 1);
  EXPECT_EQ(B.Dest, 0);
  EXPECT_EQ(B.SendBegin, 1200);
  EXPECT_EQ(B.RecvEnd, 4200);
  EXPECT_EQ(B.Bytes, 2000u);
  EXPECT_EQ(B.SendSite, BlockId(22));
  EXPECT_EQ(B.RecvSite, BlockId(12));
  EXPECT_EQ(R.Predicted, 4200);
}

TEST(TimelineTest, ChromeFlowEventsAndHighlights) {
  std::ostringstream Json;
  {
    ChromeTraceWriter W(Json, 2);
    W.span(0, SpanKind::Comm, 10, 100, 110);
    W.span(1, SpanKind::Wait, 21, 20, 1200);
    W.message({0, 1, 100, 1200, 100, 7, 10, 20});
    W.highlight(1, 20, 1200, "critical \"path\"");
    W.highlight(0, 0, 100, "compute");
  }
  const std::string T = Json.str();
  EXPECT_NE(T.find("{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"s\",\"id\":1,\"pid\":0,"
                   "\"tid\":0,\"ts\":0.100,\"args\":{\"to\":1,\"bytes\":100,\"tag\":7,\"send\":"
                   "\"00000000:10\",\"recv\":\"00000000:20\"}}"),
            std::string::npos)
      << T;
  EXPECT_NE(T.find("{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"f\",\"bp\":\"e\",\"id\":1,"
                   "\"pid\":0,\"tid\":1,\"ts\":1.200}"),
            std::string::npos)
      << T;
  // The highlighted process's track names once, before the first highlight.
  EXPECT_NE(T.find("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":"
                   "\"rank 1 highlighted\"}},\n{\"name\":\"critical \\\"path\\\"\",\"cat\":"
                   "\"highlight\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0.020,\"dur\":1.180}"),
            std::string::npos)
      << T;
  EXPECT_EQ(T.find("\"process_name\",\"ph\":\"M\",\"pid\":1"),
            T.rfind("\"process_name\",\"ph\":\"M\",\"pid\":1"));
  EXPECT_EQ(T.substr(T.size() - 4), "\n]}\n");
}

} // namespace
