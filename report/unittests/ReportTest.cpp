// The report's readers on the hand-written samples in report/test/samples, and the page they
// make: exact values in, exact text out.
#include "mpiete/report/HtmlReport.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

using namespace mpiete::report;

namespace {

const std::string Samples = MPIETE_REPORT_SAMPLES;

/// Removes the files temp() wrote when the test program ends.
struct TempFiles {
  std::vector<std::filesystem::path> Paths;
  ~TempFiles() {
    std::error_code Ignored;
    for (const auto &P : Paths)
      std::filesystem::remove(P, Ignored);
  }
} Temps;

std::string temp(const std::string &Name, const std::string &Text) {
  auto P = std::filesystem::temp_directory_path() /
           ("mpiete-report-test-" + std::to_string(::getpid()) + "-" + Name);
  std::ofstream(P) << Text;
  Temps.Paths.push_back(P);
  return P.string();
}

TEST(ReportDataTest, ReadsTheEstimate) {
  EstimateData E;
  ASSERT_EQ(readEstimate(Samples + "/estimate.yaml", E), "");
  EXPECT_DOUBLE_EQ(E.Predicted, 12e-6);
  EXPECT_EQ(E.Events, 42u);
  EXPECT_EQ(E.Messages, 4u);
  ASSERT_EQ(E.Ranks.size(), 3u);
  EXPECT_EQ(E.Ranks[2].Rank, 2);
  EXPECT_DOUBLE_EQ(E.Ranks[2].Compute, 10e-6);
  EXPECT_DOUBLE_EQ(E.Ranks[1].Wait, 6e-6);
  ASSERT_EQ(E.Sites.size(), 3u);
  EXPECT_EQ(E.Sites[1].Where, "jacobi.c:61 exchange: MPI_Waitall");
  EXPECT_EQ(E.Sites[1].Executions, 4u);
  ASSERT_EQ(E.Segments.size(), 1u);
  EXPECT_EQ(E.Segments[0].To, "0aa758c0:10");
  ASSERT_EQ(E.Provenance.size(), 4u);
  EXPECT_EQ(E.Provenance[3], std::make_pair(std::string("network_model"), std::string("table")));
}

TEST(ReportDataTest, ReadsTheTimelineWithItsArrowsAndHighlights) {
  TimelineData T;
  ASSERT_EQ(readChromeTimeline(Samples + "/timeline.json", T), "");
  EXPECT_EQ(T.Ranks, 3);
  ASSERT_EQ(T.Spans.size(), 10u);
  EXPECT_EQ(T.Spans[2].Kind, SpanKind::Wait);
  EXPECT_DOUBLE_EQ(T.Spans[2].Begin, 9.0);
  EXPECT_DOUBLE_EQ(T.Spans[2].End, 12.0);
  EXPECT_EQ(T.Spans[9].Kind, SpanKind::Highlight);
  EXPECT_EQ(T.Spans[9].Name, "critical path");
  ASSERT_EQ(T.Arrows.size(), 4u);
  EXPECT_EQ(T.Arrows[0].From, 1);
  EXPECT_EQ(T.Arrows[0].To, 0);
  EXPECT_DOUBLE_EQ(T.Arrows[0].Begin, 4.0);
  EXPECT_DOUBLE_EQ(T.Arrows[0].End, 12.0);
  EXPECT_EQ(T.Arrows[0].Bytes, 800u);
  // The drawing limit: what is left out is counted.
  TimelineData Few;
  ASSERT_EQ(readChromeTimeline(Samples + "/timeline.json", Few, 5), "");
  EXPECT_EQ(Few.Spans.size() + Few.Arrows.size(), 5u);
  EXPECT_EQ(Few.Dropped, 9u);
}

TEST(ReportDataTest, ReadsMeasuredTimesWhatIfAndSurface) {
  std::vector<MeasuredRun> M;
  ASSERT_EQ(readMeasured("1.5", M), "");
  ASSERT_EQ(readMeasured(Samples + "/measured.txt", M), "");
  const std::string Yaml = temp("measured.yaml", "measured_seconds: [2.0, 3.0]\n");
  ASSERT_EQ(readMeasured(Yaml, M), "");
  ASSERT_EQ(M.size(), 6u);
  EXPECT_DOUBLE_EQ(M[0].Seconds, 1.5);
  EXPECT_DOUBLE_EQ(M[3].Seconds, 19e-6);
  EXPECT_EQ(M[3].Label, Samples + "/measured.txt run 3");
  EXPECT_DOUBLE_EQ(M[5].Seconds, 3.0);

  WhatIfData W;
  ASSERT_EQ(readWhatIf(Samples + "/whatif.yaml", W), "");
  ASSERT_EQ(W.Suggestions.size(), 2u);
  EXPECT_EQ(W.Suggestions[0].Rank, 2);
  EXPECT_EQ(W.Suggestions[1].Rank, -1);
  EXPECT_DOUBLE_EQ(W.Suggestions[0].Saving, 5e-6);
  ASSERT_EQ(W.CriticalPath.size(), 3u);
  EXPECT_DOUBLE_EQ(W.CriticalPath[1].Share, 0.125);

  SurfaceData S;
  ASSERT_EQ(readSurface(Samples + "/surface.yaml", S), "");
  EXPECT_EQ(S.Ranks, (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(S.Sizes[2], "1024^2");
  EXPECT_DOUBLE_EQ(S.Efficiency[1][2], 0.833);
  EXPECT_EQ(S.SvgFile, Samples + "/surface.svg");
}

TEST(ReportDataTest, ErrorsNameTheFileAndRecord) {
  std::vector<MeasuredRun> M;
  const std::string Bad = temp("bad-measured.txt", "1.0\nfast\n");
  EXPECT_EQ(readMeasured(Bad, M), Bad + ":2: 'fast' is not a run time in seconds");
  EXPECT_EQ(readMeasured("-3", M), "--measured -3: a run time must be positive");

  EstimateData E;
  const std::string Est = temp("bad-estimate.yaml", "predicted_seconds: 1.0\nranks:\n"
                                                    "  - {rank: 0, compute_seconds: 1}\n");
  EXPECT_EQ(readEstimate(Est, E), Est + ":3:5: missing field 'comm_seconds'");

  SurfaceData S;
  const std::string Surf = temp("bad-surface.yaml", "ranks: [1, 2]\nsizes: [a]\n"
                                                    "time_seconds: [[1, 2]]\nefficiency: [[1]]\n");
  EXPECT_EQ(readSurface(Surf, S),
            Surf + ":4:14: efficiency row 1 has 1 values, one per rank count (2) expected");
  TimelineData T;
  EXPECT_EQ(readChromeTimeline("/nonexistent/run.json", T),
            "/nonexistent/run.json: cannot read the file");
}

TEST(HtmlReportTest, ThePageHasEverySectionAndNoExternalResource) {
  ReportInput In;
  ASSERT_EQ(readEstimate(Samples + "/estimate.yaml", In.Estimate), "");
  In.Timeline.emplace();
  ASSERT_EQ(readChromeTimeline(Samples + "/timeline.json", *In.Timeline), "");
  ASSERT_EQ(readMeasured(Samples + "/measured.txt", In.Measured), "");
  In.WhatIf.emplace();
  ASSERT_EQ(readWhatIf(Samples + "/whatif.yaml", *In.WhatIf), "");
  In.Surface.emplace();
  ASSERT_EQ(readSurface(Samples + "/surface.yaml", *In.Surface), "");
  In.Provenance = {{"tool", "mpiete 9.9"}, {"command", "mpiete report <x>"}};
  std::ostringstream OS;
  writeHtml(OS, In);
  const std::string H = OS.str();
  EXPECT_NE(H.find("<span class=\"big\" id=\"predicted\">12 µs</span> on 3 ranks"),
            std::string::npos);
  // Predicted 12 us against the median 13 us of 12.5, 13 and 19: 7.7 % under.
  EXPECT_NE(H.find("<td>measured, median of 3</td><td class=\"n\">13 µs</td><td class=\"n\">"
                   "-7.7%</td>"),
            std::string::npos)
      << H;
  EXPECT_NE(H.find("<title>rank 1 wait: 6 µs</title>"), std::string::npos);
  EXPECT_NE(H.find("<td>jacobi.c:61 exchange: MPI_Waitall</td><td><code>0aa758c0:21</code>"),
            std::string::npos);
  EXPECT_NE(H.find("jacobi.c:61 (MPI_Waitall) -&gt; jacobi.c:58 (MPI_Isend) in main"),
            std::string::npos);
  // The timeline: 12 us wide, 3 rank tracks and 3 highlighted ones, rank 1 -> 0 from 4 to 12.
  EXPECT_NE(H.find("<svg id=\"timeline\" data-end=\"12\" viewBox=\"0 0 12 132\""),
            std::string::npos);
  EXPECT_NE(H.find("<line x1=\"4\" y1=\"33\" x2=\"12\" y2=\"11\"/>"), std::string::npos);
  EXPECT_NE(H.find("<div style=\"height:22px\">rank 2 highlighted</div>"), std::string::npos);
  // What-if: the larger saving first.
  EXPECT_LT(H.find("sweep 2x faster on rank 2"), H.find("latency halved"));
  EXPECT_NE(H.find("<td class=\"n\">83.3%</td>"), std::string::npos);
  // The surface: the efficiency grid and the contour image inline.
  EXPECT_NE(H.find("1024^2 at 4 ranks: efficiency 0.952, 42 ms"), std::string::npos);
  EXPECT_NE(H.find("<meta name=\"mpiete-command\" content=\"mpiete report &lt;x&gt;\">"),
            std::string::npos);
  // Self-contained: nothing is fetched.
  for (const char *External : {"src=\"http", "href=\"http", "<link", "@import", "<script src"})
    EXPECT_EQ(H.find(External), std::string::npos) << External;
}

/// `mpiete whatif` writes remedies, sensitivities and bounds as lists of their own, each
/// ranked on its own; the page keeps them apart.
TEST(HtmlReportTest, WhatIfRemediesAndSensitivitiesAreTablesOfTheirOwn) {
  const std::string File = temp(
      "whatif-lists.yaml", "predicted_seconds: 1.0\n"
                           "remedies:\n"
                           "  - {rank: 1, kind: balance-segment, what: balance it, where: a.c:1,"
                           " predicted_seconds: 0.8, saving_seconds: 0.2, bound: false}\n"
                           "sensitivities:\n"
                           "  - {rank: 1, kind: faster-kernel, what: twice as fast, where: a.c:2,"
                           " predicted_seconds: 0.6, saving_seconds: 0.4, bound: false}\n"
                           "bounds:\n"
                           "  - {rank: 1, kind: bound, what: no wait, where: every wait,"
                           " predicted_seconds: 0.5, saving_seconds: 0.5, bound: true}\n"
                           "critical_path: []\n");
  ReportInput In;
  In.WhatIf.emplace();
  ASSERT_EQ(readWhatIf(File, *In.WhatIf), "");
  ASSERT_EQ(In.WhatIf->Suggestions.size(), 3u);
  EXPECT_EQ(In.WhatIf->Suggestions[0].Class, "remedies");
  EXPECT_EQ(In.WhatIf->Suggestions[1].Class, "sensitivities");
  EXPECT_EQ(In.WhatIf->Suggestions[2].Class, "bounds");
  std::ostringstream OS;
  writeHtml(OS, In);
  const std::string H = OS.str();
  // The remedy first although the sensitivity saves more.
  const size_t R = H.find("id=\"whatif-remedies\""), S = H.find("id=\"whatif-sensitivities\""),
               B = H.find("id=\"whatif-bounds\"");
  ASSERT_NE(R, std::string::npos);
  ASSERT_NE(S, std::string::npos);
  ASSERT_NE(B, std::string::npos);
  EXPECT_LT(R, H.find("balance it"));
  EXPECT_LT(H.find("balance it"), S);
  EXPECT_LT(S, H.find("twice as fast"));
  EXPECT_LT(H.find("twice as fast"), B);
}

TEST(HtmlReportTest, MissingInputsAreSaidNotDrawn) {
  ReportInput In;
  In.Estimate.Predicted = 2.5;
  std::ostringstream OS;
  writeHtml(OS, In);
  const std::string H = OS.str();
  EXPECT_NE(H.find(">2.5 s</span> on 0 ranks"), std::string::npos);
  EXPECT_NE(H.find("No measured run given"), std::string::npos);
  EXPECT_NE(H.find("No timeline given"), std::string::npos);
  EXPECT_EQ(H.find("id=\"whatif\""), std::string::npos);
  EXPECT_EQ(H.find("id=\"surface\""), std::string::npos);
}

TEST(HtmlReportTest, HumanSeconds) {
  EXPECT_EQ(humanSeconds(0), "0 s");
  EXPECT_EQ(humanSeconds(12e-9), "12 ns");
  EXPECT_EQ(humanSeconds(4.56e-5), "45.6 µs");
  EXPECT_EQ(humanSeconds(0.1234), "123 ms");
  EXPECT_EQ(humanSeconds(61.0), "61 s");
  EXPECT_EQ(escapeHtml("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
}

} // namespace
