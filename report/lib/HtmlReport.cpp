// The report page: sections in the order a reader asks (how long, where, when, what if).
#include "mpiete/report/HtmlReport.h"

#include "HtmlCharts.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace mpiete::report {

std::string humanSeconds(double S) {
  const double A = std::fabs(S);
  const char *Unit = "s";
  double V = S;
  if (A == 0) {
    return "0 s";
  } else if (A < 1e-6) {
    V = S * 1e9, Unit = "ns";
  } else if (A < 1e-3) {
    V = S * 1e6, Unit = "µs";
  } else if (A < 1) {
    V = S * 1e3, Unit = "ms";
  }
  char Buf[48];
  std::snprintf(Buf, sizeof Buf, "%.3g %s", V, Unit);
  return Buf;
}

std::string escapeHtml(std::string_view S) {
  std::string Out;
  Out.reserve(S.size());
  for (char C : S) {
    switch (C) {
    case '&':
      Out += "&amp;";
      break;
    case '<':
      Out += "&lt;";
      break;
    case '>':
      Out += "&gt;";
      break;
    case '"':
      Out += "&quot;";
      break;
    default:
      Out += C;
    }
  }
  return Out;
}

namespace {

const char *const Style = R"(
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd}
.big{font-size:30px;font-weight:600}.note{color:#666}
table{border-collapse:collapse}td,th{padding:3px 10px;text-align:left;vertical-align:middle}
th{border-bottom:1px solid #aaa}td.n{text-align:right;font-variant-numeric:tabular-nums}
tr:nth-child(even){background:#f6f6f6}svg text{font:12px system-ui,sans-serif;fill:#222}
.timeline{display:flex;border:1px solid #ccc}.tracks{flex:none;padding-right:6px;font-size:12px}
.tracks div{display:flex;align-items:center;white-space:nowrap}.plot{flex:1;overflow:hidden}
#timeline{display:block;cursor:grab;background:#fcfcfc}.axis{display:flex;justify-content:space-between;font-size:12px;color:#666}
.msg line{stroke:#222;stroke-width:1;vector-effect:non-scaling-stroke}.msg .head{stroke-width:3}
footer{margin-top:32px;font-size:12px;color:#666}
)";

// Wheel zooms around the pointer, a drag pans, the buttons zoom and reset; only the x range
// of the viewBox changes, so tracks keep their height. Written here (some 40 lines) rather
// than vendored: no chart library draws this page.
const char *const Script = R"(
(function(){
  var svg=document.getElementById('timeline');
  if(!svg)return;
  var end=parseFloat(svg.dataset.end),h=svg.viewBox.baseVal.height,x0=0,w=end;
  function unit(us){var s=us*1e-6,a=Math.abs(s);
    if(a===0)return '0 s';if(a<1e-6)return (s*1e9).toPrecision(3)+' ns';
    if(a<1e-3)return (s*1e6).toPrecision(3)+' µs';if(a<1)return (s*1e3).toPrecision(3)+' ms';
    return s.toPrecision(3)+' s';}
  function show(){w=Math.min(Math.max(w,end*1e-6),end);x0=Math.min(Math.max(x0,0),end-w);
    svg.setAttribute('viewBox',x0+' 0 '+w+' '+h);
    document.getElementById('t0').textContent=unit(x0);
    document.getElementById('t1').textContent=unit(x0+w);}
  function zoom(f,at){var c=x0+w*at;w*=f;x0=c-w*at;show();}
  svg.addEventListener('wheel',function(e){e.preventDefault();
    var r=svg.getBoundingClientRect();zoom(e.deltaY<0?0.8:1.25,(e.clientX-r.left)/r.width);},
    {passive:false});
  var drag=null;
  svg.addEventListener('mousedown',function(e){drag={x:e.clientX,x0:x0};});
  window.addEventListener('mouseup',function(){drag=null;});
  window.addEventListener('mousemove',function(e){if(!drag)return;
    var r=svg.getBoundingClientRect();x0=drag.x0-(e.clientX-drag.x)/r.width*w;show();});
  document.getElementById('zoom-in').onclick=function(){zoom(0.5,0.5);};
  document.getElementById('zoom-out').onclick=function(){zoom(2,0.5);};
  document.getElementById('zoom-reset').onclick=function(){x0=0;w=end;show();};
  show();
})();
document.body.setAttribute('data-rendered','ok');
)";

void section(std::ostream &OS, const char *Id, const char *Title) {
  OS << "<h2 id=\"" << Id << "\">" << Title << "</h2>\n";
}

void measured(std::ostream &OS, const ReportInput &In) {
  section(OS, "measured", "Predicted and measured");
  if (In.Measured.empty()) {
    OS << "<p class=\"note\">No measured run given (<code>--measured SECONDS</code> or a file "
          "of run times).</p>\n";
    return;
  }
  std::vector<double> V;
  for (const MeasuredRun &M : In.Measured)
    V.push_back(M.Seconds);
  std::sort(V.begin(), V.end());
  // The median: one slow run (a loaded machine) does not move it.
  const double Median =
      V.size() % 2 ? V[V.size() / 2] : (V[V.size() / 2 - 1] + V[V.size() / 2]) / 2;
  const double P = In.Estimate.Predicted;
  double Max = P;
  for (double S : V)
    Max = std::max(Max, S);
  auto row = [&](const std::string &Label, double S, const char *Color) {
    char Err[32] = "";
    if (Color != charts::ComputeColor)
      std::snprintf(Err, sizeof Err, "%+.1f%%", (P - S) / S * 100);
    OS << "<tr><td>" << escapeHtml(Label) << "</td><td class=\"n\">" << humanSeconds(S)
       << "</td><td class=\"n\">" << Err << "</td><td><svg class=\"bar\" width=\"300\" "
       << "height=\"14\"><rect x=\"0\" y=\"1\" height=\"12\" width=\""
       << (Max > 0 ? S / Max * 300 : 0) << "\" fill=\"" << Color << "\"/></svg></td></tr>\n";
  };
  OS << "<table id=\"measured-table\"><tr><th>run</th><th>time</th><th>prediction's error</th>"
        "<th></th></tr>\n";
  row("predicted", P, charts::ComputeColor);
  for (const MeasuredRun &M : In.Measured)
    row(M.Label, M.Seconds, charts::WaitColor);
  if (In.Measured.size() > 1)
    row("measured, median of " + std::to_string(In.Measured.size()), Median, charts::CommColor);
  OS << "</table>\n<p class=\"note\">error = (predicted - measured) / measured: positive when "
        "the prediction is over.</p>\n";
}

void sites(std::ostream &OS, const EstimateData &E) {
  section(OS, "sites", "Call sites that cost most");
  if (E.Sites.empty()) {
    OS << "<p class=\"note\">The estimate lists no call sites.</p>\n";
  } else {
    double Max = 0;
    for (const SiteTimes &S : E.Sites)
      Max = std::max(Max, S.total());
    OS << "<table id=\"sites-table\"><tr><th>where</th><th>block</th><th>total</th>"
          "<th>compute</th><th>comm</th><th>wait</th><th>executions</th><th></th></tr>\n";
    for (const SiteTimes &S : E.Sites) {
      OS << "<tr><td>" << escapeHtml(S.Where.empty() ? "?" : S.Where) << "</td><td><code>"
         << escapeHtml(S.Block) << "</code></td>";
      for (double V : {S.total(), S.Compute, S.Comm, S.Wait})
        OS << "<td class=\"n\">" << humanSeconds(V) << "</td>";
      OS << "<td class=\"n\">" << S.Executions << "</td><td>";
      charts::stackedBar(OS, S.Compute, S.Comm, S.Wait, Max);
      OS << "</td></tr>\n";
    }
    OS << "</table>\n<p class=\"note\">Summed over ranks.</p>\n";
  }
  section(OS, "segments", "Segments that compute most");
  if (E.Segments.empty()) {
    OS << "<p class=\"note\">No segments (the compute base data has blocks, not segments).</p>\n";
    return;
  }
  double Max = 0;
  for (const SegmentTimes &G : E.Segments)
    Max = std::max(Max, G.Compute);
  OS << "<table id=\"segments-table\"><tr><th>segment</th><th>compute</th><th>executions</th>"
        "<th></th></tr>\n";
  for (const SegmentTimes &G : E.Segments) {
    OS << "<tr><td>" << escapeHtml(G.Where.empty() ? G.From + " -> " + G.To : G.Where)
       << "</td><td class=\"n\">" << humanSeconds(G.Compute) << "</td><td class=\"n\">"
       << G.Executions << "</td><td>";
    charts::stackedBar(OS, G.Compute, 0, 0, Max);
    OS << "</td></tr>\n";
  }
  OS << "</table>\n";
}

void whatIf(std::ostream &OS, const WhatIfData &W) {
  section(OS, "whatif", "What if");
  OS << "<p>Predicted as run: <b>" << humanSeconds(W.Predicted) << "</b></p>\n";
  // One table per list (remedies: what to change; sensitivities: what the run depends on;
  // bounds), each largest saving first; one bar scale for all.
  double Max = 0;
  for (const auto &G : W.Suggestions)
    Max = std::max(Max, G.Saving);
  for (const char *Class : {"remedies", "sensitivities", "bounds", ""}) {
    std::vector<WhatIfData::Suggestion> S;
    for (const auto &G : W.Suggestions)
      if (G.Class == Class)
        S.push_back(G);
    if (S.empty())
      continue;
    std::stable_sort(S.begin(), S.end(),
                     [](const auto &A, const auto &B) { return A.Saving > B.Saving; });
    if (*Class)
      OS << "<h3>" << char(std::toupper(Class[0])) << (Class + 1) << "</h3>\n";
    OS << "<table id=\"whatif-" << (*Class ? Class : "table")
       << "\"><tr><th>rank</th><th>kind</th><th>what</th><th>where</th>"
          "<th>predicted</th><th>saving</th><th>bound</th><th></th></tr>\n";
    for (const auto &G : S) {
      OS << "<tr><td>" << (G.Rank < 0 ? std::string("all") : std::to_string(G.Rank)) << "</td><td>"
         << escapeHtml(G.Kind) << "</td><td>" << escapeHtml(G.What) << "</td><td>"
         << escapeHtml(G.Where) << "</td><td class=\"n\">" << humanSeconds(G.Predicted)
         << "</td><td class=\"n\">" << humanSeconds(G.Saving) << "</td><td>" << escapeHtml(G.Bound)
         << "</td><td>";
      charts::stackedBar(OS, 0, G.Saving, 0, Max, 160);
      OS << "</td></tr>\n";
    }
    OS << "</table>\n";
  }
  if (W.CriticalPath.empty())
    return;
  OS << "<h3>Critical path</h3>\n<table id=\"critical-path-table\"><tr><th>where</th>"
        "<th>kind</th><th>time</th><th>share</th><th></th></tr>\n";
  for (const auto &P : W.CriticalPath) {
    char Share[16];
    std::snprintf(Share, sizeof Share, "%.1f%%", P.Share * 100);
    OS << "<tr><td>" << escapeHtml(P.Where) << "</td><td>" << escapeHtml(P.Kind)
       << "</td><td class=\"n\">" << humanSeconds(P.Seconds) << "</td><td class=\"n\">" << Share
       << "</td><td>";
    charts::stackedBar(OS, 0, 0, P.Share, 1, 160);
    OS << "</td></tr>\n";
  }
  OS << "</table>\n";
}

void surface(std::ostream &OS, const ReportInput &In) {
  const SurfaceData &S = *In.Surface;
  section(OS, "surface", "Ranks and problem sizes");
  OS << "<h3>Parallel efficiency</h3>\n";
  if (!In.SurfaceSvg.empty())
    OS << "<div id=\"surface-svg\">" << In.SurfaceSvg << "</div>\n";
  charts::efficiencyGrid(OS, S);
  OS << "<h3>Predicted time</h3>\n<table id=\"surface-table\"><tr><th>size \\ ranks</th>";
  for (int R : S.Ranks)
    OS << "<th>" << R << "</th>";
  OS << "</tr>\n";
  for (size_t I = 0; I < S.Sizes.size(); ++I) {
    OS << "<tr><td>" << escapeHtml(S.Sizes[I]) << "</td>";
    for (double T : S.Time[I])
      OS << "<td class=\"n\">" << humanSeconds(T) << "</td>";
    OS << "</tr>\n";
  }
  OS << "</table>\n";
}

} // namespace

void writeHtml(std::ostream &OS, const ReportInput &In) {
  const EstimateData &E = In.Estimate;
  OS << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  for (const auto &[K, V] : In.Provenance)
    OS << "<meta name=\"mpiete-" << escapeHtml(K) << "\" content=\"" << escapeHtml(V) << "\">\n";
  OS << "<title>" << escapeHtml(In.Title) << "</title>\n<style>" << Style << "</style></head>\n"
     << "<body>\n<h1>" << escapeHtml(In.Title) << "</h1>\n";
  OS << "<p>Predicted run time <span class=\"big\" id=\"predicted\">" << humanSeconds(E.Predicted)
     << "</span> on " << E.Ranks.size() << " ranks (" << E.Events << " events, " << E.Messages
     << " messages replayed).</p>\n";
  measured(OS, In);
  section(OS, "ranks", "Each rank's time");
  charts::rankBars(OS, E.Ranks);
  sites(OS, E);
  section(OS, "timeline-section", "Predicted timeline");
  if (!In.Timeline) {
    OS << "<p class=\"note\">No timeline given (<code>mpiete estimate --timeline run.json</code>, "
          "then <code>--timeline run.json</code> here).</p>\n";
  } else {
    OS << "<p><button id=\"zoom-in\">zoom in</button> <button id=\"zoom-out\">zoom out</button> "
          "<button id=\"zoom-reset\">whole run</button> <span class=\"note\">(wheel zooms, "
          "drag pans; hover for names; lines are messages from send to receive)</span></p>\n";
    charts::timeline(OS, *In.Timeline);
    if (In.Timeline->Dropped)
      OS << "<p class=\"note\">" << In.Timeline->Dropped
         << " later spans and messages are not drawn; open the timeline in Perfetto "
            "(ui.perfetto.dev) or the OTF2 export in Vampir for all of them.</p>\n";
  }
  if (In.WhatIf)
    whatIf(OS, *In.WhatIf);
  if (In.Surface)
    surface(OS, In);
  OS << "<footer>";
  for (const auto &[K, V] : In.Provenance)
    OS << escapeHtml(K) << ": <code>" << escapeHtml(V) << "</code><br>\n";
  for (const auto &[K, V] : E.Provenance)
    OS << "estimate " << escapeHtml(K) << ": <code>" << escapeHtml(V) << "</code><br>\n";
  OS << "</footer>\n<script>" << Script << "</script>\n</body></html>\n";
}

} // namespace mpiete::report
