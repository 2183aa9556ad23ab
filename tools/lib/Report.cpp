// `mpiete report`: one self-contained HTML page from an estimate and, where given, its
// timeline, measured run times, what-if suggestions and rank/size surface.
#include "CommandUtil.h"

#include "mpiete/report/HtmlReport.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/support/Version.h"
#include "mpiete/tools/Commands.h"

#include <fstream>
#include <iostream>
#include <sstream>

namespace mpiete {

int runReport(const CommandArgs &Args) {
  DiagnosticSink Diags(std::cerr);
  const DiagLoc Tool{"mpiete report", 0, 0};
  CommandLine C("report",
                "usage: mpiete report --estimate estimate.yaml [--timeline run.json]\n"
                "                     [--measured SECONDS|FILE]... [--whatif whatif.yaml]\n"
                "                     [--surface surface.yaml] [--title TEXT] -o report.html",
                "Writes one HTML page that opens without network access: the predicted time, "
                "each rank's\ncompute / communication / wait, the call sites and segments that "
                "cost most, the\npredicted timeline (zoomable, messages as lines from send to "
                "receive), predicted against\nmeasured run times, and the what-if suggestions "
                "and the efficiency over ranks and sizes\nwhen their files are given. The "
                "estimate is the YAML or JSON of `mpiete estimate`.",
                "  mpiete report --estimate estimate.yaml --timeline run.json --measured 1.84 "
                "-o report.html\n"
                "  (estimate.yaml and run.json from: mpiete estimate ... --format yaml -o "
                "estimate.yaml --timeline run.json)\n");
  std::string Estimate, Timeline, WhatIf, Surface, Out, Title;
  std::vector<std::string> Measured;
  C.App.add_option("--estimate", Estimate, "the estimate (mpiete estimate --format yaml|json)")
      ->type_name("FILE");
  C.App.add_option("--timeline", Timeline, "its timeline (mpiete estimate --timeline)")
      ->type_name("FILE");
  C.App
      .add_option("--measured", Measured,
                  "a measured run time in seconds, or a file of them (one per line, or YAML "
                  "measured_seconds: [..]); repeatable")
      ->type_name("SECONDS|FILE");
  C.App.add_option("--whatif", WhatIf, "what-if suggestions (whatif.yaml)")->type_name("FILE");
  C.App.add_option("--surface", Surface, "predicted times over ranks and sizes (surface.yaml)")
      ->type_name("FILE");
  C.App.add_option("--title", Title, "the page's title (default: mpiete prediction)")
      ->type_name("TEXT");
  C.App.add_option("-o", Out, "the HTML file to write (required)")->type_name("FILE");
  if (std::optional<int> Status = C.parseOrExit(Args, Diags, Tool))
    return *Status;
  for (auto [Value, Name] : {std::pair{&Estimate, "--estimate"}, {&Out, "-o"}})
    if (Value->empty()) {
      Diags.error(Tool, std::string("missing ") + Name, "usage");
      std::cerr << C.help();
      return 1;
    }
  report::ReportInput In;
  if (!Title.empty())
    In.Title = Title;
  // A reader's error already names the file and record.
  auto failed = [&](const std::string &Err) {
    if (Err.empty())
      return false;
    Diags.error(Tool, Err, "report");
    return true;
  };
  if (failed(report::readEstimate(Estimate, In.Estimate)))
    return 1;
  if (!Timeline.empty()) {
    In.Timeline.emplace();
    if (failed(report::readChromeTimeline(Timeline, *In.Timeline)))
      return 1;
  }
  for (const std::string &M : Measured)
    if (failed(report::readMeasured(M, In.Measured)))
      return 1;
  if (!WhatIf.empty()) {
    In.WhatIf.emplace();
    if (failed(report::readWhatIf(WhatIf, *In.WhatIf)))
      return 1;
  }
  if (!Surface.empty()) {
    In.Surface.emplace();
    if (failed(report::readSurface(Surface, *In.Surface)))
      return 1;
    if (!In.Surface->SvgFile.empty()) {
      std::ifstream S(In.Surface->SvgFile);
      std::stringstream Buf;
      Buf << S.rdbuf();
      In.SurfaceSvg = Buf.str();
      // Inline SVG takes the element alone, without the XML prologue.
      const size_t Start = In.SurfaceSvg.find("<svg");
      if (!S || Start == std::string::npos) {
        Diags.error({In.Surface->SvgFile, 0, 0}, "not an SVG image (named by " + Surface + ")",
                    "report");
        return 1;
      }
      In.SurfaceSvg.erase(0, Start);
    }
  }
  const std::string Command = joinArgs("report", Args);
  In.Provenance = {{"tool", "mpiete " MPIETE_VERSION}, {"command", Command}};
  if (In.Timeline && In.Timeline->Dropped)
    Diags.note(Tool,
               std::to_string(In.Timeline->Dropped) +
                   " spans and messages past the first 20000 are not drawn in the page",
               "report");
  std::ofstream OS(Out);
  if (!OS) {
    Diags.error({Out, 0, 0}, "cannot write the report", "io");
    return 1;
  }
  report::writeHtml(OS, In);
  if (!OS.flush()) {
    Diags.error({Out, 0, 0}, "cannot write the report", "io");
    return 1;
  }
  return 0;
}

} // namespace mpiete
