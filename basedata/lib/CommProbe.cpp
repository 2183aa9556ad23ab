// Reads the comm probe's text output (runtime/comm_probe prints it between its markers).
#include "mpiete/basedata/CommProbe.h"

#include <algorithm>
#include <cmath>
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

/// A time in seconds: finite, not negative, below an hour (a probe measures microseconds).
bool plausible(double V) { return std::isfinite(V) && V >= 0 && V < 3600; }

bool readSpread(std::istringstream &In, Spread &S) {
  return static_cast<bool>(In >> S.Median >> S.P10 >> S.P90) && plausible(S.Median) &&
         plausible(S.P10) && plausible(S.P90);
}

/// A count: a whole number in [Min, 2^31) (">>" into an unsigned would wrap "-1").
template <typename T> bool readCount(std::istringstream &In, T &Out, long long Min) {
  long long V = 0;
  if (!(In >> V) || V < Min || V >= (1LL << 31))
    return false;
  Out = T(V);
  return true;
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
      Ok = readCount(Fields, Out.Ranks, 2);
    else if (Key == "pairs")
      Ok = readCount(Fields, Out.Pairs, 1);
    else if (Key == "host0")
      Out.Host0 = Rest;
    else if (Key == "host1")
      Out.Host1 = Rest;
    else if (Key == "library")
      Out.Library = Rest;
    else if (Key == "tolerance")
      Ok = static_cast<bool>(Fields >> Out.Tolerance) && std::isfinite(Out.Tolerance) &&
           Out.Tolerance >= 0;
    else if (Key == "min-reps")
      Ok = readCount(Fields, Out.MinReps, 0);
    else if (Key == "max-reps")
      Ok = readCount(Fields, Out.MaxReps, 0);
    else if (Key == "row") {
      CommRow R;
      long long Bytes = -1;
      Ok = static_cast<bool>(Fields >> Bytes) && Bytes >= 0 && Bytes < (1LL << 50) &&
           readCount(Fields, R.Repetitions, 1) && readSpread(Fields, R.Recv) &&
           readSpread(Fields, R.IsendStart) && readSpread(Fields, R.IrecvStart) &&
           readSpread(Fields, R.Arrived);
      R.Bytes = uint64_t(Bytes);
      if (Ok)
        Out.Rows.push_back(R);
    } else if (Key == "copy" || Key == "same" || Key == "exchange") {
      CopyRow R;
      long long Bytes = -1;
      Ok = static_cast<bool>(Fields >> Bytes) && Bytes >= 0 && Bytes < (1LL << 50) &&
           readCount(Fields, R.Repetitions, 1) && readSpread(Fields, R.Time);
      R.Bytes = uint64_t(Bytes);
      if (Ok)
        (Key == "copy" ? Out.Copies : Key == "same" ? Out.SameBuffer : Out.Exchange).push_back(R);
    } else if (Key == "exchange-packed" || Key == "packed" || Key == "unpacked" ||
               Key == "copy-packed") {
      // "<key> piece bytes count stats": a table per piece length; the exchange has one.
      CopyRow R;
      long long Piece = -1, Bytes = -1;
      Ok = static_cast<bool>(Fields >> Piece >> Bytes) && Piece >= 1 && Piece < (1LL << 40) &&
           Bytes >= 0 && Bytes < (1LL << 50) && readCount(Fields, R.Repetitions, 1) &&
           readSpread(Fields, R.Time);
      R.Bytes = uint64_t(Bytes);
      if (Ok && Key == "exchange-packed") {
        Ok = Out.ExchangePacked.empty() || Out.ExchangePiece == uint64_t(Piece);
        Out.ExchangePiece = uint64_t(Piece);
        if (Ok)
          Out.ExchangePacked.push_back(R);
      } else if (Ok) {
        auto &Tables = Key == "packed"     ? Out.Packed
                       : Key == "unpacked" ? Out.Unpacked
                                           : Out.PackedCopies;
        if (Tables.empty() || Tables.back().first != uint64_t(Piece))
          Tables.push_back({uint64_t(Piece), {}});
        Tables.back().second.push_back(R);
      }
    } else if (Key == "stream") {
      Ok = readCount(Fields, Out.StreamLength, 1) && readCount(Fields, Out.StreamReps, 1) &&
           readSpread(Fields, Out.Stream);
    }
    // Unknown keys come from a newer probe: ignored.
    if (!Ok)
      return "malformed comm probe line " + std::to_string(LineNo) + ": '" + Line.substr(0, 200) +
             "' (" + Key + ": counts must be whole numbers, times finite seconds >= 0)";
  }
  if (!Begun)
    return "the comm probe printed no table";
  if (!Ended)
    return "the comm probe's table is truncated (no end marker)";
  if (Out.Rows.empty())
    return "the comm probe's table has no rows";
  return {};
}

std::vector<uint64_t> spikySizes(const CommProbeOutput &D, double Factor) {
  std::vector<uint64_t> Out;
  for (size_t I = 1; I + 1 < D.Rows.size(); ++I) {
    const double Around = std::max(D.Rows[I - 1].Recv.Median, D.Rows[I + 1].Recv.Median);
    if (Around > 0 && D.Rows[I].Recv.Median > Factor * Around)
      Out.push_back(D.Rows[I].Bytes);
  }
  return Out;
}

std::vector<uint64_t> mendSpikes(CommProbeOutput &D, const CommProbeOutput &Again, double Factor) {
  const std::vector<uint64_t> Spiky = spikySizes(D, Factor), SpikyAgain = spikySizes(Again, Factor);
  for (uint64_t Bytes : Spiky) {
    if (std::find(SpikyAgain.begin(), SpikyAgain.end(), Bytes) != SpikyAgain.end())
      continue;
    auto Same = [Bytes](const CommRow &R) { return R.Bytes == Bytes; };
    auto From = std::find_if(Again.Rows.begin(), Again.Rows.end(), Same);
    auto To = std::find_if(D.Rows.begin(), D.Rows.end(), Same);
    if (From != Again.Rows.end() && To != D.Rows.end())
      *To = *From;
  }
  return spikySizes(D, Factor);
}

} // namespace mpiete
