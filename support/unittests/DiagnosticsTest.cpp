// The diagnostic sink: the one line shape, the counts, and recorded lines printed once.
#include "mpiete/support/Diagnostics.h"

#include <gtest/gtest.h>

#include <sstream>

namespace mpiete {
namespace {

TEST(Diagnostics, OneLineShapeAndCounts) {
  std::ostringstream OS;
  DiagnosticSink D(OS);
  D.error({"a.f", 3, 7}, "bad", "io");
  D.warning({"b.yaml", 2, 0}, "odd", "basedata");
  D.note({"mpiete estimate", 0, 0}, "why", "");
  EXPECT_EQ(OS.str(), "a.f:3:7: error: bad [mpiete-io]\n"
                      "b.yaml:2: warning: odd [mpiete-basedata]\n"
                      "mpiete estimate: note: why\n");
  EXPECT_EQ(D.errorCount(), 1u);
  EXPECT_EQ(D.warningCount(), 1u);
}

TEST(Diagnostics, ARunThatStartsOverPrintsEachLineOnce) {
  std::unordered_set<std::string> Shown;
  std::ostringstream First, Second;
  {
    DiagnosticSink D(First);
    D.recordLines(Shown, false);
    D.warning({"m.yaml", 4, 0}, "slow clock", "basedata");
    D.warning({"m.yaml", 4, 0}, "slow clock", "basedata"); // the first run prints what it says
  }
  DiagnosticSink D(Second);
  D.recordLines(Shown, true);
  D.warning({"m.yaml", 4, 0}, "slow clock", "basedata");
  D.warning({"t", 0, 0}, "new", "whatif");
  D.error({"m.yaml", 4, 0}, "slow clock", "basedata"); // another severity is another line
  EXPECT_EQ(First.str(), "m.yaml:4: warning: slow clock [mpiete-basedata]\n"
                         "m.yaml:4: warning: slow clock [mpiete-basedata]\n");
  EXPECT_EQ(Second.str(), "t: warning: new [mpiete-whatif]\n"
                          "m.yaml:4: error: slow clock [mpiete-basedata]\n");
  // Lines not printed still count: a command still fails on an error it said before.
  EXPECT_EQ(D.warningCount(), 2u);
  EXPECT_EQ(D.errorCount(), 1u);
  // What the command says after the start over is printed whatever came before.
  D.stopRecording();
  D.warning({"t", 0, 0}, "new", "whatif");
  EXPECT_EQ(Second.str(), "t: warning: new [mpiete-whatif]\n"
                          "m.yaml:4: error: slow clock [mpiete-basedata]\n"
                          "t: warning: new [mpiete-whatif]\n");
}

} // namespace
} // namespace mpiete
