// Reads the comm probe's text output (runtime/comm_probe prints it between its markers).
#include "mpiete/basedata/CommProbe.h"

#include <sstream>

namespace mpiete {
namespace {

/// Splits "key rest-of-line".
std::pair<std::string, std::string> splitKey(const std::string &Line) {
  size_t Sp = Line.find(' ');
  if (Sp == std::string::npos)
    return {Line, ""};
  return {Line.substr(0, Sp), Line.substr(Sp + 1)};
}

bool readSpread(std::istringstream &In, Spread &S) {
  return static_cast<bool>(In >> S.Median >> S.P10 >> S.P90);
}

} // namespace

std::string parseCommProbeOutput(const std::string &Text, CommProbeOutput &Out) {
  std::istringstream In(Text);
  std::string Line;
  bool Begun = false, Ended = false;
  unsigned LineNo = 0;
  while (std::getline(In, Line)) {
    ++LineNo;
    // The launcher may prefix or interleave its own lines; keep only ours.
    if (!Begun) {
      if (Line.rfind("mpiete-comm-probe-begin", 0) == 0) {
        Begun = true;
        if (splitKey(Line).second != "1")
          return "unsupported comm probe output version '" + splitKey(Line).second + "'";
      }
      continue;
    }
    if (Line == "mpiete-comm-probe-end") {
      Ended = true;
      break;
    }
    auto [Key, Rest] = splitKey(Line);
    std::istringstream Fields(Rest);
    bool Ok = true;
    if (Key == "ranks")
      Ok = static_cast<bool>(Fields >> Out.Ranks);
    else if (Key == "pairs")
      Ok = static_cast<bool>(Fields >> Out.Pairs);
    else if (Key == "host0")
      Out.Host0 = Rest;
    else if (Key == "host1")
      Out.Host1 = Rest;
    else if (Key == "library")
      Out.Library = Rest;
    else if (Key == "tolerance")
      Ok = static_cast<bool>(Fields >> Out.Tolerance);
    else if (Key == "min-reps")
      Ok = static_cast<bool>(Fields >> Out.MinReps);
    else if (Key == "max-reps")
      Ok = static_cast<bool>(Fields >> Out.MaxReps);
    else if (Key == "row") {
      CommRow R;
      Ok = static_cast<bool>(Fields >> R.Bytes >> R.Repetitions) && readSpread(Fields, R.Recv) &&
           readSpread(Fields, R.IsendStart) && readSpread(Fields, R.IrecvStart) &&
           readSpread(Fields, R.Arrived);
      if (Ok)
        Out.Rows.push_back(R);
    } else if (Key == "stream") {
      Ok = static_cast<bool>(Fields >> Out.StreamLength >> Out.StreamReps) &&
           readSpread(Fields, Out.Stream);
    }
    // Unknown keys come from a newer probe: ignored.
    if (!Ok)
      return "malformed comm probe line " + std::to_string(LineNo) + ": '" + Line + "'";
  }
  if (!Begun)
    return "the comm probe printed no table";
  if (!Ended)
    return "the comm probe's table is truncated (no end marker)";
  if (Out.Rows.empty())
    return "the comm probe's table has no rows";
  return {};
}

} // namespace mpiete
