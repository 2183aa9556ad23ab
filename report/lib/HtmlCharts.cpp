// The report's charts as inline SVG written here, so the page needs no chart library.
#include "HtmlCharts.h"

#include "mpiete/report/HtmlReport.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

namespace mpiete::report::charts {

namespace {
std::string num(double V) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.6g", V);
  return Buf;
}

const char *colorOf(SpanKind K) {
  switch (K) {
  case SpanKind::Compute:
    return ComputeColor;
  case SpanKind::Comm:
    return CommColor;
  case SpanKind::Wait:
    return WaitColor;
  case SpanKind::Highlight:
    return HighlightColor;
  }
  return ComputeColor;
}
} // namespace

void stackedBar(std::ostream &OS, double Compute, double Comm, double Wait, double Scale,
                int Width) {
  OS << "<svg class=\"bar\" width=\"" << Width << "\" height=\"14\" role=\"img\">";
  double X = 0;
  for (auto [V, Color, Name] : {std::tuple{Compute, ComputeColor, "compute"},
                                {Comm, CommColor, "communication"},
                                {Wait, WaitColor, "wait"}}) {
    const double W = Scale > 0 ? V / Scale * Width : 0;
    if (W > 0)
      OS << "<rect x=\"" << num(X) << "\" y=\"1\" width=\"" << num(W) << "\" height=\"12\" fill=\""
         << Color << "\"><title>" << Name << ": " << humanSeconds(V) << "</title></rect>";
    X += W;
  }
  OS << "</svg>";
}

void rankBars(std::ostream &OS, const std::vector<RankTimes> &Ranks) {
  double Max = 0;
  for (const RankTimes &K : Ranks)
    Max = std::max(Max, K.Compute + K.Comm + K.Wait);
  const int Label = 70, Width = 640, Row = 18;
  const int Height = int(Ranks.size()) * Row + 24;
  OS << "<svg id=\"rank-bars\" width=\"" << Label + Width + 90 << "\" height=\"" << Height
     << "\" role=\"img\" aria-label=\"time per rank\">\n";
  for (size_t I = 0; I < Ranks.size(); ++I) {
    const RankTimes &K = Ranks[I];
    const int Y = int(I) * Row;
    OS << "<text x=\"" << Label - 6 << "\" y=\"" << Y + 12 << "\" text-anchor=\"end\">rank "
       << K.Rank << "</text>";
    double X = Label;
    for (auto [V, Color, Name] : {std::tuple{K.Compute, ComputeColor, "compute"},
                                  {K.Comm, CommColor, "communication"},
                                  {K.Wait, WaitColor, "wait"}}) {
      const double W = Max > 0 ? V / Max * Width : 0;
      if (W > 0)
        OS << "<rect x=\"" << num(X) << "\" y=\"" << Y + 2 << "\" width=\"" << num(W)
           << "\" height=\"" << Row - 4 << "\" fill=\"" << Color << "\"><title>rank " << K.Rank
           << " " << Name << ": " << humanSeconds(V) << "</title></rect>";
      X += W;
    }
    OS << "<text x=\"" << num(X + 6) << "\" y=\"" << Y + 12 << "\">"
       << humanSeconds(K.Compute + K.Comm + K.Wait) << (K.Reached ? "" : " (region not reached)")
       << "</text>\n";
  }
  const int Y = int(Ranks.size()) * Row + 8;
  int X = Label;
  for (auto [Color, Name] :
       {std::pair{ComputeColor, "compute"}, {CommColor, "communication"}, {WaitColor, "wait"}}) {
    OS << "<rect x=\"" << X << "\" y=\"" << Y << "\" width=\"12\" height=\"12\" fill=\"" << Color
       << "\"/><text x=\"" << X + 16 << "\" y=\"" << Y + 11 << "\">" << Name << "</text>";
    X += 130;
  }
  OS << "</svg>\n";
}

void timeline(std::ostream &OS, const TimelineData &T) {
  double End = 0;
  bool Highlights = false;
  for (const Span &S : T.Spans) {
    End = std::max(End, S.End);
    Highlights |= S.Kind == SpanKind::Highlight;
  }
  for (const Arrow &A : T.Arrows)
    End = std::max(End, A.End);
  if (End <= 0)
    End = 1;
  // Tracks: rank R at R, its highlights (if any) at Ranks + R.
  const int Tracks = T.Ranks * (Highlights ? 2 : 1);
  const int Row = 22, Bar = 16;
  auto trackOf = [&](const Span &S) {
    return S.Kind == SpanKind::Highlight ? T.Ranks + S.Rank : S.Rank;
  };
  OS << "<div class=\"timeline\"><div class=\"tracks\">";
  for (int I = 0; I < Tracks; ++I)
    OS << "<div style=\"height:" << Row << "px\">rank " << (I % std::max(1, T.Ranks))
       << (I >= T.Ranks ? " highlighted" : "") << "</div>";
  OS << "</div><div class=\"plot\">\n";
  // x in microseconds: the script zooms by changing the viewBox's x range only.
  OS << "<svg id=\"timeline\" data-end=\"" << num(End) << "\" viewBox=\"0 0 " << num(End) << " "
     << Tracks * Row << "\" preserveAspectRatio=\"none\" width=\"100%\" height=\"" << Tracks * Row
     << "\" role=\"img\" aria-label=\"predicted timeline\">\n";
  for (const Span &S : T.Spans) {
    const int Y = trackOf(S) * Row + (Row - Bar) / 2;
    OS << "<rect x=\"" << num(S.Begin) << "\" y=\"" << Y << "\" width=\""
       << num(std::max(S.End - S.Begin, 0.0)) << "\" height=\"" << Bar << "\" fill=\""
       << colorOf(S.Kind) << "\"><title>rank " << S.Rank << ": " << escapeHtml(S.Name) << ", "
       << humanSeconds(S.Begin * 1e-6) << " .. " << humanSeconds(S.End * 1e-6)
       << "</title></rect>\n";
  }
  // A message: a line from the send to the receive's end and a bar at its head (arrow heads
  // would stretch with the zoom).
  for (const Arrow &A : T.Arrows) {
    const int Y0 = A.From * Row + Row / 2, Y1 = A.To * Row + Row / 2;
    const int Head = Y1 > Y0 ? -7 : 7;
    OS << "<g class=\"msg\"><title>message rank " << A.From << " -> rank " << A.To << ", "
       << A.Bytes << " bytes, " << humanSeconds(A.Begin * 1e-6) << " .. "
       << humanSeconds(A.End * 1e-6) << "</title><line x1=\"" << num(A.Begin) << "\" y1=\"" << Y0
       << "\" x2=\"" << num(A.End) << "\" y2=\"" << Y1 << "\"/><line x1=\"" << num(A.End)
       << "\" y1=\"" << Y1 + Head << "\" x2=\"" << num(A.End) << "\" y2=\"" << Y1
       << "\" class=\"head\"/></g>\n";
  }
  OS << "</svg>\n<div class=\"axis\"><span id=\"t0\">0</span><span id=\"t1\">"
     << humanSeconds(End * 1e-6) << "</span></div></div></div>\n";
}

void efficiencyGrid(std::ostream &OS, const SurfaceData &S) {
  const int Cell = 64, Head = 90, Top = 24;
  const int W = std::max(Head + int(S.Ranks.size()) * Cell, 440);
  const int H = Top + int(S.Sizes.size()) * 28 + 30;
  OS << "<svg id=\"efficiency\" width=\"" << W << "\" height=\"" << H
     << "\" role=\"img\" aria-label=\"parallel efficiency\">\n";
  for (size_t J = 0; J < S.Ranks.size(); ++J)
    OS << "<text x=\"" << Head + int(J) * Cell + Cell / 2 << "\" y=\"16\" text-anchor=\"middle\">"
       << S.Ranks[J] << "</text>";
  for (size_t I = 0; I < S.Sizes.size(); ++I) {
    const int Y = Top + int(I) * 28;
    OS << "\n<text x=\"" << Head - 6 << "\" y=\"" << Y + 18 << "\" text-anchor=\"end\">"
       << escapeHtml(S.Sizes[I]) << "</text>";
    for (size_t J = 0; J < S.Ranks.size(); ++J) {
      const double E = S.Efficiency[I][J];
      // Bands of 0.1: the filled contour of a grid this coarse.
      const double Band = std::clamp(std::floor(E * 10) / 10, 0.0, 1.0);
      const int Light = 30 + int(Band * 55);
      OS << "<rect x=\"" << Head + int(J) * Cell << "\" y=\"" << Y << "\" width=\"" << Cell - 2
         << "\" height=\"26\" fill=\"hsl(" << int(Band * 120) << ",60%," << Light << "%)\"><title>"
         << escapeHtml(S.Sizes[I]) << " at " << S.Ranks[J] << " ranks: efficiency " << num(E)
         << ", " << humanSeconds(S.Time[I][J]) << "</title></rect><text x=\""
         << Head + int(J) * Cell + Cell / 2 - 1 << "\" y=\"" << Y + 18
         << "\" text-anchor=\"middle\">" << num(std::round(E * 100) / 100) << "</text>";
    }
  }
  OS << "\n<text x=\"" << Head << "\" y=\"" << H - 8
     << "\">columns: ranks; rows: sizes; colour bands of 0.1 efficiency</text></svg>\n";
}

} // namespace mpiete::report::charts
