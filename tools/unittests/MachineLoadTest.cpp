// The load notice of the probes: /proc/stat parsing and when the note is printed, with its sign.
#include "../lib/MachineLoad.h"

#include <gtest/gtest.h>

namespace mpiete {
namespace {

TEST(MachineLoad, ParsesTheAggregateCpuLine) {
  const auto T = parseProcStat("cpu  100 5 20 1000 7 3 2 1 0 0\n"
                               "cpu0 50 2 10 500 3 1 1 0 0 0\nintr 12345\n");
  ASSERT_TRUE(T);
  EXPECT_EQ(T->Busy, 100u + 5 + 20 + 3 + 2 + 1);
  EXPECT_EQ(T->Total, 100u + 5 + 20 + 1000 + 7 + 3 + 2 + 1);
}

TEST(MachineLoad, ParsesOneProcessorsLine) {
  const std::string Text = "cpu  100 5 20 1000 7 3 2 1 0 0\n"
                           "cpu0 50 2 10 500 3 1 1 0 0 0\n"
                           "cpu1 50 3 10 500 4 2 1 1 0 0\n"
                           "cpu10 9 0 0 1 0 0 0 0 0 0\nintr 12345\n";
  const auto T0 = parseProcStat(Text, 0), T1 = parseProcStat(Text, 1),
             T10 = parseProcStat(Text, 10);
  ASSERT_TRUE(T0 && T1 && T10);
  EXPECT_EQ(T0->Busy, 50u + 2 + 10 + 1 + 1);
  EXPECT_EQ(T1->Busy, 50u + 3 + 10 + 2 + 1 + 1);
  EXPECT_EQ(T10->Busy, 9u); // "cpu1 " is not "cpu10 "
  EXPECT_FALSE(parseProcStat(Text, 2));
}

TEST(MachineLoad, ProcessorNoticeAboveATenth) {
  // The twentieth session's machine A: a co-runner on the probe's processor, the machine's
  // other processor free (the machine-wide notice quiet: 1.0 of 2 with 1 needed).
  EXPECT_EQ(loadNotice({1.6, 2, 1.0}, 1, "the timing probe", "E"), "");
  EXPECT_EQ(processorLoadNotice(0.30, 0, 1.6, "the timing probe", "too long"),
            "other processes used 30% of processor 0, where the timing probe ran its ranks, "
            "during it (1.6 s): too long");
  EXPECT_EQ(processorLoadNotice(0.10, 0, 1.6, "the timing probe", "E"), "");
  EXPECT_EQ(processorLoadNotice(0.5, -1, 1.6, "the timing probe", "E"), "");
}

TEST(MachineLoad, RejectsTextWithoutACpuLine) {
  EXPECT_FALSE(parseProcStat("cpu0 1 2 3 4\nintr 5\n"));
  EXPECT_FALSE(parseProcStat("cpu  1 2\n"));
  EXPECT_FALSE(parseProcStat(""));
}

TEST(MachineLoad, QuietWhileOthersFitInTheSpareProcessors) {
  // 2 processors, the probe needs 1: up to 1.25 processors of others is quiet.
  EXPECT_EQ(loadNotice({10, 2, 1.2}, 1, "the timing probe", "E"), "");
  EXPECT_EQ(loadNotice({10, 2, 0.2}, 2, "the timing probe", "E"), "");
}

TEST(MachineLoad, SaysHowMuchAndWhichWay) {
  EXPECT_EQ(loadNotice({12.5, 2, 1.8}, 1, "the timing probe", "times too long: over-estimates"),
            "other processes used 1.8 of this machine's 2 processors during the timing probe "
            "(12.5 s), which needed 1 of its own: times too long: over-estimates");
  // More ranks than processors: no spare at all.
  EXPECT_NE(loadNotice({1, 2, 0.3}, 4, "the comm probe", "E"), "");
}

} // namespace
} // namespace mpiete
