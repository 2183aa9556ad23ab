// Issue 14, findings 2, 3 and 6: every bad value of a machine file and of a timing probe's
// rank file gives one error naming the file, the place and what was expected; never an
// exception, never a value silently taken as 0.
#include "SampleFiles.h"
#include "mpiete/basedata/MachineFile.h"
#include "mpiete/basedata/TimingFile.h"
#include "mpiete/support/Diagnostics.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace mpiete;

namespace {

std::string with(std::string Text, const std::string &From, const std::string &To) {
  size_t At = Text.find(From);
  EXPECT_NE(At, std::string::npos) << From;
  return At == std::string::npos ? Text : Text.replace(At, From.size(), To);
}

/// The error parseMachineFile reports (empty if it read the file).
std::string machineError(const std::string &Text) {
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  MachineFile F;
  bool Ok = false;
  EXPECT_NO_THROW(Ok = parseMachineFile("m.yaml", Text, F, Diags));
  EXPECT_EQ(Ok, Errors.str().empty()) << Errors.str();
  return Errors.str();
}

const std::string Machine = samples::MachineText;
const std::string Block3 = "kind: block, executions: 10, mean_seconds: 1.0e-7";

} // namespace

TEST(MachineBadInputTest, TheSampleReads) { EXPECT_EQ(machineError(Machine), ""); }

TEST(MachineBadInputTest, MeanSecondsNotAFiniteTime) {
  for (const char *V : {".nan", ".inf", "-1.0e-7", "1e7", "fast", "[1]", "{a: 1}"})
    EXPECT_EQ(
        machineError(with(Machine, "mean_seconds: 1.0e-7", std::string("mean_seconds: ") + V)),
        std::string("m.yaml:10:71: error: 'mean_seconds' must be a finite number in [0, "
                    "604800] (got ") +
            (V[0] == '['   ? "a list"
             : V[0] == '{' ? "a map"
                           : "'" + std::string(V) + "'") +
            ") [mpiete-compute]\n")
        << V;
  EXPECT_EQ(machineError(with(Machine, ", mean_seconds: 1.0e-7", "")),
            "m.yaml:10:9: error: missing 'mean_seconds' [mpiete-compute]\n");
}

TEST(MachineBadInputTest, CountsAndSpreadOfTheirTypes) {
  EXPECT_EQ(machineError(with(Machine, "executions: 10", "executions: many")),
            "m.yaml:10:53: error: 'executions' must be a whole number in [0, "
            "4611686018427387904] (got 'many') [mpiete-compute]\n");
  EXPECT_NE(machineError(with(Machine, "executions: 10", "executions: -3")).find("'executions'"),
            std::string::npos);
  EXPECT_NE(machineError(with(Machine, "iterations: 2000", "iterations: 1.5")).find("'iterations'"),
            std::string::npos);
  EXPECT_NE(machineError(with(Machine, "stddev_seconds: 0", "stddev_seconds: [0]"))
                .find("'stddev_seconds' must be a finite number"),
            std::string::npos);
  EXPECT_NE(machineError(with(Machine, "min_seconds: 0", "min_seconds: .nan"))
                .find("'min_seconds' must be a finite number"),
            std::string::npos);
  EXPECT_NE(machineError(with(Machine, "min_seconds: 0", "min_seconds: 1"))
                .find("'min_seconds' is larger than 'max_seconds'"),
            std::string::npos);
  EXPECT_EQ(machineError(with(Machine, "kind: block", "kind: [block]")),
            "m.yaml:10:34: error: 'kind' must be a string (got a list) [mpiete-compute]\n");
  EXPECT_EQ(machineError(with(Machine, "kind: block", "kind: blok")),
            "m.yaml:10:9: error: 'kind' must be block or loop (got 'blok') [mpiete-compute]\n");
  EXPECT_NE(
      machineError(with(Machine, "timer_overhead_seconds: 2.0e-8", "timer_overhead_seconds: -1"))
          .find("'timer_overhead_seconds'"),
      std::string::npos);
}

TEST(MachineBadInputTest, ShapesNeverThrow) {
  // The two fuzz crashes: a rank without blocks, a scalar in a blocks list.
  EXPECT_EQ(machineError(with(Machine,
                              "    blocks:\n      - {id: \"0aa758c0:3\", " + Block3 +
                                  ", stddev_seconds: 0, min_seconds: 0, max_seconds: 0}\n"
                                  "      - {id",
                              "    hostblocks:\n      - {id")),
            "m.yaml:7:5: error: a rank needs 'blocks' [mpiete-compute]\n");
  EXPECT_EQ(machineError(with(Machine,
                              "{id: \"0aa758c0:3\", kind: block, executions: 10, "
                              "mean_seconds: 2.0e-7, stddev_seconds: 0, min_seconds: 0, "
                              "max_seconds: 0}",
                              "word")),
            "m.yaml:15:9: error: 'blocks' must be a list of maps (got 'word') [mpiete-compute]\n");
  EXPECT_EQ(machineError(with(Machine, "  - rank: 0\n", "  - rank: zero\n")),
            "m.yaml:7:11: error: 'rank' must be a whole number in [0, 16777215] (got 'zero') "
            "[mpiete-compute]\n");
  EXPECT_EQ(machineError(with(Machine, "ranks:\n  - rank: 0", "ranks: 3\nr:\n  - rank: 0")),
            "m.yaml:6:8: error: 'ranks' must be a list (got '3') [mpiete-compute]\n");
  EXPECT_EQ(machineError("- a\n- b\n"),
            "m.yaml:1:1: error: not a compute file: 'format: mpiete-compute' expected "
            "[mpiete-compute]\n");
  EXPECT_EQ(machineError(with(Machine, "provenance: {", "provenance: {arguments: 3, ")),
            "m.yaml:4:25: error: 'arguments' must be a list (got '3') [mpiete-compute]\n");
  EXPECT_EQ(machineError(with(Machine, "provenance: {", "provenance: {token_passing: maybe, ")),
            "m.yaml:4:29: error: 'token_passing' must be true or false (got 'maybe') "
            "[mpiete-compute]\n");
}

TEST(MachineBadInputTest, RanksOfTheRunEachOnce) {
  // A rank the run did not have, a rank twice, a rank of the run without data (finding 6).
  EXPECT_EQ(machineError(with(Machine, "  - rank: 1\n", "  - rank: 5\n")),
            "m.yaml:12:5: error: rank 5 in a file measured with 2 ranks (provenance 'ranks') "
            "[mpiete-compute]\n");
  EXPECT_EQ(machineError(with(Machine, "  - rank: 1\n", "  - rank: 0\n")),
            "m.yaml:12:5: error: rank 0 appears twice [mpiete-compute]\n");
  std::string OneRank = Machine.substr(0, Machine.find("  - rank: 1\n"));
  EXPECT_EQ(machineError(OneRank),
            "m.yaml:2:1: error: no compute data for rank 1 (collect it with probe-compute at the "
            "program's rank count) [mpiete-compute]\n");
  // A block map named without its fingerprint would skip the build check silently.
  EXPECT_EQ(machineError(with(Machine, "ranks: 2}", "ranks: 2, block_map: app.blocks.yaml}")),
            "m.yaml:4:13: error: 'block_map' without its 'fingerprint': the check that the traces "
            "come from the same build needs it [mpiete-compute]\n");
  EXPECT_EQ(machineError(with(Machine, "ranks: 2}",
                              "ranks: 2, block_map: app.blocks.yaml, fingerprint: 49d39c21}")),
            "");
}

namespace {

/// The error readRankTiming reports for a timing file of these lines after the first.
std::string timingError(const std::string &Lines) {
  std::string Path = (std::filesystem::temp_directory_path() /
                      ("mpiete-badtiming-" + std::to_string(::getpid()) + ".timing"))
                         .string();
  std::ofstream(Path) << "# mpiete timing rank 0 of 2\n# timer-overhead-ns 20.0\n"
                         "# token-passing on\n"
                      << Lines;
  RankTiming R;
  std::string E;
  EXPECT_NO_THROW(E = readRankTiming(Path, 0, R));
  std::filesystem::remove(Path);
  size_t At = E.find(Path);
  return At == std::string::npos ? E : E.replace(At, Path.size(), "r.timing");
}

} // namespace

TEST(MachineBadInputTest, TimingFileValues) {
  EXPECT_EQ(timingError("0aa758c0:3 block 10 1200 100.0 140.0 5.0\n"
                        "0aa758c0:7 loop 2 2000 5040 2500.0 2540.0 1.0\n"
                        "segment 0aa758c0:1 0aa758c0:2 4 400 90.0 110.0 1.0\n"
                        "series 0aa758c0:1 0aa758c0:2 2 2 200 200\n"),
            "");
  EXPECT_EQ(timingError("0aa758c0:3 block -10 1200 100.0 140.0 5.0\n"),
            "r.timing:4: field 'executions' of the block record must be a whole number >= 0 (got "
            "'-10')");
  EXPECT_EQ(timingError("0aa758c0:3 block 10 1200 nan 140.0 5.0\n"),
            "r.timing:4: malformed timed record '0aa758c0:3 block 10 1200 nan 140.0 5.0': min, "
            "max and stddev must be a finite number of nanoseconds >= 0, min <= max");
  EXPECT_NE(timingError("0aa758c0:3 block 10 1200 100 inf 5.0\n").find("r.timing:4: malformed"),
            std::string::npos);
  EXPECT_NE(timingError("0aa758c0:3 block 10 1200 100 90 5.0\n").find("min <= max"),
            std::string::npos);
  EXPECT_EQ(timingError("0aa758c0:7 loop 2 2e3 5040 2500.0 2540.0 1.0\n"),
            "r.timing:4: field 'trips' of the loop record must be a whole number >= 0 (got '2e3')");
  EXPECT_EQ(timingError("0aa758c0:3 block 10 1200 100.0 140.0\n"),
            "r.timing:4: malformed timed record '0aa758c0:3 block 10 1200 100.0 140.0' (7 fields "
            "expected)");
  EXPECT_EQ(timingError("0aa758c0:3 block 10 99999999999999999999999 1 2 3\n"),
            "r.timing:4: field 'nanoseconds' of the block record must be a whole number >= 0 (got "
            "'99999999999999999999999')");
  EXPECT_EQ(timingError("segment 0aa758c0:1 0aa758c0:2 0 400 90.0 110.0 1.0\n"),
            "r.timing:4: field 'executions' of the segment record must be a whole number >= 1 "
            "(got '0')");
  EXPECT_EQ(timingError("segment 0aa758c0:1 0aa758c0:2 4 400 90.0 110.0 1.0\n"
                        "series 0aa758c0:1 0aa758c0:2 2 3 200 200\n"),
            "r.timing:5: series of 3 buckets has only 2");
  EXPECT_EQ(timingError("# timer-overhead-ns -5\n"),
            "r.timing:4: field 'timer-overhead-ns' of the header record must be a finite number "
            "of nanoseconds in [0, 1e9] (got '-5')");
  EXPECT_EQ(timingError("# ranks-per-node 0\n"),
            "r.timing:4: field 'ranks-per-node' of the header record must be a whole number >= 1 "
            "(got '0')");
  EXPECT_EQ(timingError("# heap trimmed\n"),
            "r.timing:4: field 'heap' of the header record must be kept or native (got 'trimmed')");
  EXPECT_EQ(timingError("# token-passing yes\n"),
            "r.timing:4: field 'token-passing' of the header record must be on or off (got 'yes')");
}
