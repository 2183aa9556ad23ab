// Checks a network.yaml written by `mpiete probe-comm` against the sweep it was asked for:
//   check_network_yaml FILE MAX_SIZE STEP
// Exits non-zero naming the first thing that is wrong.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

static int fail(const std::string &Message) {
  std::cerr << "check_network_yaml: error: " << Message << '\n';
  return 1;
}

int main(int Argc, char **Argv) {
  if (Argc != 4)
    return fail("usage: check_network_yaml FILE MAX_SIZE STEP");
  uint64_t Max = std::stoull(Argv[2]), Step = std::stoull(Argv[3]);
  std::vector<uint64_t> Want;
  for (uint64_t K = 0; K <= Max; K += Step)
    Want.push_back(K);
  for (uint64_t P = 1; P <= Max; P *= 2) {
    Want.push_back(P);
    if (P >= 2 && P + P / 2 <= Max)
      Want.push_back(P + P / 2);
  }
  std::sort(Want.begin(), Want.end());
  Want.erase(std::unique(Want.begin(), Want.end()), Want.end());

  YAML::Node N = YAML::LoadFile(Argv[1]);
  if (N["format"].as<std::string>() != "mpiete-network" || N["version"].as<int>() != 1)
    return fail("wrong format or version");
  YAML::Node Prov = N["provenance"];
  auto Hosts = Prov["hosts"].as<std::vector<std::string>>();
  if (Hosts.size() != 2 || Hosts[0].empty())
    return fail("provenance.hosts must name two hosts");
  bool Same = Prov["same_node"].as<bool>();
  if (Same != (Hosts[0] == Hosts[1]))
    return fail("same_node disagrees with the hosts");
  if (N["class"].as<std::string>() != (Same ? "intra-node" : "inter-node"))
    return fail("class disagrees with same_node");
  if (Prov["mpi_library"].as<std::string>().empty() || Prov["date"].as<std::string>().empty() ||
      Prov["tool"].as<std::string>().rfind("mpiete ", 0) != 0)
    return fail("provenance incomplete");

  YAML::Node Rows = N["table"]["rows"];
  if (N["table"]["columns"].size() != 8)
    return fail("the table must have 8 columns");
  if (Rows.size() != Want.size())
    return fail("expected " + std::to_string(Want.size()) + " sizes, found " +
                std::to_string(Rows.size()));
  for (size_t I = 0; I < Rows.size(); ++I) {
    auto R = Rows[I];
    std::string Where = "row " + std::to_string(I);
    if (R.size() != 8)
      return fail(Where + ": 8 values expected");
    if (R[0].as<uint64_t>() != Want[I])
      return fail(Where + ": size " + R[0].as<std::string>() + ", expected " +
                  std::to_string(Want[I]));
    double Med = R[1].as<double>(), P10 = R[2].as<double>(), P90 = R[3].as<double>();
    if (!(Med > 0) || !(P10 <= Med) || !(Med <= P90))
      return fail(Where + ": recv median/p10/p90 out of order");
    for (int C = 4; C <= 6; ++C)
      if (!(R[C].as<double>() > 0))
        return fail(Where + ": column " + std::to_string(C) + " not positive");
    if (R[7].as<int>() < 20)
      return fail(Where + ": fewer than 20 repetitions");
  }
  YAML::Node P = N["loggps"];
  for (const char *K : {"L", "o_s", "o_r", "g", "G", "G_eager"}) {
    if (!P[K])
      return fail(std::string("loggps.") + K + " missing");
    double V = P[K].as<double>();
    if (!std::isfinite(V) || V < 0)
      return fail(std::string("loggps.") + K + " not a finite non-negative number");
  }
  if (!P["S"])
    return fail("loggps.S missing");
  if (!P["S"].IsNull()) {
    uint64_t S = P["S"].as<uint64_t>();
    if (std::find(Want.begin(), Want.end(), S) == Want.end())
      return fail("loggps.S is not a measured size");
  }
  if (!(P["fit"]["relative_rms_residual"].as<double>() >= 0))
    return fail("fit residual missing");
  if (!(P["g"].as<double>() >= P["o_s"].as<double>()))
    return fail("g below o_s");
  std::cout << "network.yaml ok: " << Rows.size() << " sizes, class " << N["class"] << ", S "
            << (P["S"].IsNull() ? std::string("none") : P["S"].as<std::string>()) << '\n';
  return 0;
}
