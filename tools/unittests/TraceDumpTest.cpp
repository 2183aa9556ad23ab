// `mpiete trace dump`: the header and one readable line per record, errors located.
#include "TraceWriter.h"
#include "mpiete/tools/Commands.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace mpiete;

namespace {

/// Runs runTraceDump on Args, capturing stdout and stderr.
int dump(const CommandArgs &Args, std::string &Out, std::string &Err) {
  std::ostringstream O, E;
  auto *OldOut = std::cout.rdbuf(O.rdbuf());
  auto *OldErr = std::cerr.rdbuf(E.rdbuf());
  const int Rc = runTraceDump(Args);
  std::cout.rdbuf(OldOut);
  std::cerr.rdbuf(OldErr);
  Out = O.str();
  Err = E.str();
  return Rc;
}

} // namespace

TEST(TraceDump, PrintsHeaderAndOneLinePerRecord) {
  const std::string Dir =
      (std::filesystem::temp_directory_path() / ("mpiete-dump-test-" + std::to_string(::getpid())))
          .string();
  std::filesystem::remove_all(Dir);
  ::unsetenv("MPIETE_FINGERPRINT");
  auto W = std::make_unique<TraceWriter>();
  W->enable(Dir.c_str());
  W->block(MPIETE_ID(0xabc123, 5));
  W->start(0, 2);
  W->callBegin();
  W->init(MPIETE_ID(0xabc123, 1));
  W->callEnd(MPIETE_ID(0xabc123, 1));
  W->loop(MPIETE_ID(0xabc123, 10), 5);
  W->callBegin();
  W->send(MPIETE_ID(0xabc123, 12), 1, 7, 0, 4, trace::SendMode::Standard, trace::Context::User, 2);
  W->recv(MPIETE_ID(0x10, 99), trace::AnySource, trace::AnyTag, 1, 8, trace::Context::Collective,
          true);
  W->wait(MPIETE_ID(0xabc123, 13), trace::WaitOp::Waitall, 2);
  W->sendCompleted(1);
  W->recvCompleted(2, 1, 3, 8);
  W->wait(MPIETE_ID(0xabc123, 14), trace::WaitOp::Test, 0);
  W->probe(MPIETE_ID(0xabc123, 15), false, trace::ProcNull, 0, 0, false, 0, 0, 0);
  const int Members[] = {1, 0};
  W->commCreate(MPIETE_ID(0xabc123, 16), 0, true, 0x1234, 2, Members);
  W->commCreate(MPIETE_ID(0xabc123, 17), 0, false, 0, 0, nullptr);
  W->commFree(MPIETE_ID(0xabc123, 18), 0x1234);
  W->requestFree(MPIETE_ID(0xabc123, 19), 2);
  W->callEnd(MPIETE_ID(0xabc123, 12));
  W->callBegin();
  W->collective(MPIETE_ID(0xabc123, 20), trace::CollKind::Bcast, 0, 1, 64);
  W->callEnd(MPIETE_ID(0xabc123, 20));
  for (int I = 0; I < 3; ++I) { // three identical iterations: one stored, a repeat of 2
    W->iter(MPIETE_ID(0xabc123, 30));
    W->callBegin();
    W->callEnd(MPIETE_ID(0xabc123, 21));
  }
  W->loopExit(MPIETE_ID(0xabc123, 30));
  W->callBegin();
  W->finalize(MPIETE_ID(0xabc123, 2));
  W->callEnd(MPIETE_ID(0xabc123, 2));
  W->finish();

  std::string Out, Err;
  const std::string Path = Dir + "/rank0.trace";
  ASSERT_EQ(dump({Path}, Out, Err), 0) << Err;
  EXPECT_EQ(Err, "");
  const std::string Header = "# mpiete trace " + Path +
                             "\nformat 4\nrank 0 of 2\n"
                             "fingerprint -\nhost ";
  EXPECT_EQ(Out.rfind(Header, 0), 0u) << Out;
  const size_t Body = Out.find("00abc123:5 block\n");
  ASSERT_NE(Body, std::string::npos) << Out;
  EXPECT_EQ(Out.substr(Body),
            "00abc123:5 block\n"
            "00abc123:1 init call-start\n"
            "00abc123:10 loop trips=5\n"
            "00abc123:12 send call-start req=1 to=1 tag=7 comm=world bytes=4 mode=standard "
            "ctx=user packed=<64\n"
            "00000010:99 recv req=2 from=any tag=any comm=self bytes=8 ctx=collective same-buffer\n"
            "00abc123:13 wait op=waitall done=2 [req=1] [req=2 from=1 tag=3 bytes=8]\n"
            "00abc123:14 wait op=test done=0\n"
            "00abc123:15 probe nonblocking from=null tag=0 comm=world none\n"
            "00abc123:16 comm-create parent=world new=0000000000001234 members=1,0\n"
            "00abc123:17 comm-create parent=world new=null\n"
            "00abc123:18 comm-free comm=0000000000001234\n"
            "00abc123:19 request-free req=2\n"
            "00abc123:20 collective call-start kind=bcast comm=world root=1 bytes=64\n"
            "00abc123:21 call call-start\n"
            "00abc123:21 call call-start\n"
            "00abc123:21 call call-start\n"
            "00abc123:2 finalize call-start\n"
            "end records=18 units=2\n");
  // --raw: the repeat as stored, request ids as stored (distances; starts carry none).
  ASSERT_EQ(dump({"--raw", Path}, Out, Err), 0) << Err;
  EXPECT_NE(Out.find("00abc123:12 send call-start req=0 to=1"), std::string::npos) << Out;
  EXPECT_NE(Out.find("[req=2] [req=1 from=1 tag=3 bytes=8]"), std::string::npos) << Out;
  EXPECT_NE(Out.find("00abc123:21 call call-start\nrepeat count=2 bytes=3\n"
                     "00abc123:2 finalize call-start\n"),
            std::string::npos)
      << Out;

  // A truncated copy: the records before the cut are printed, then the located error.
  std::filesystem::resize_file(Path, std::filesystem::file_size(Path) - 2);
  EXPECT_EQ(dump({"dump", Path}, Out, Err), 1);
  EXPECT_NE(Err.find(Path + ": error: record "), std::string::npos) << Err;
  EXPECT_NE(Err.find("[mpiete-trace]"), std::string::npos) << Err;
  EXPECT_EQ(dump({}, Out, Err), 2);
  std::filesystem::remove_all(Dir);
}
