// probe.yaml: written, read back field by field, and its located errors.
#include "mpiete/basedata/ProbeRun.h"
#include "mpiete/support/Diagnostics.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace mpiete;

TEST(ProbeRunTest, RoundTripsEveryField) {
  ProbeRun In;
  In.Variant = "skeleton";
  In.Program = "./app.trace";
  In.Arguments = {"-n", "64"};
  In.Ranks = 4;
  In.WallSeconds = 1.75;
  In.Date = "2026-01-02T03:04:05Z";
  In.Tool = "mpiete 0.1.0";
  std::ostringstream OS, Errors;
  writeProbeRun(OS, In);
  DiagnosticSink Diags(Errors);
  ProbeRun Out;
  ASSERT_TRUE(parseProbeRun("probe.yaml", OS.str(), Out, Diags)) << Errors.str();
  EXPECT_EQ(Out.Probe, "trace");
  EXPECT_EQ(Out.Variant, "skeleton");
  EXPECT_EQ(Out.Program, In.Program);
  EXPECT_EQ(Out.Arguments, In.Arguments);
  EXPECT_EQ(Out.Ranks, 4);
  EXPECT_DOUBLE_EQ(Out.WallSeconds, 1.75);
  EXPECT_EQ(Out.Date, In.Date);
  EXPECT_EQ(Out.Tool, In.Tool);
}

TEST(ProbeRunTest, NegativeWallTimeIsALocatedError) {
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  ProbeRun Out;
  EXPECT_FALSE(parseProbeRun("probe.yaml",
                             "format: mpiete-probe-run\nversion: 1\nprobe: trace\n"
                             "wall_seconds: -2\n",
                             Out, Diags));
  EXPECT_NE(Errors.str().find("probe.yaml:4:"), std::string::npos) << Errors.str();
}
