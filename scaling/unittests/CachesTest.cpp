// The cache sizes seed 001's steps are placed at: sysfs's layout parsed, the C library's
// reading when sysfs has none (virtual machines).
#include "mpiete/scaling/Caches.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace mpiete::scaling;
namespace fs = std::filesystem;

namespace {

void writeIndex(const fs::path &Dir, int K, const std::string &Type, const std::string &Size) {
  const fs::path I = Dir / ("index" + std::to_string(K));
  fs::create_directories(I);
  std::ofstream(I / "type") << Type << "\n";
  std::ofstream(I / "size") << Size << "\n";
}

fs::path tempDir(const std::string &Name) {
  const fs::path D = fs::temp_directory_path() / (Name + "-" + std::to_string(getpid()));
  fs::remove_all(D);
  fs::create_directories(D);
  return D;
}

TEST(CachesTest, ReadsSysfsDataAndUnifiedCaches) {
  const fs::path D = tempDir("mpiete-caches");
  writeIndex(D, 0, "Data", "48K");
  writeIndex(D, 1, "Instruction", "32K");
  writeIndex(D, 2, "Unified", "1024K");
  writeIndex(D, 3, "Unified", "32768K");
  std::string From;
  const std::vector<double> C = machineCacheSizes(D.string(), From);
  EXPECT_EQ(C, (std::vector<double>{49152, 1048576, 33554432}));
  EXPECT_EQ(From, D.string());
  fs::remove_all(D);
}

TEST(CachesTest, FallsBackToTheCLibraryWithoutSysfs) {
  const fs::path D = tempDir("mpiete-nocaches");
  std::string From;
  const std::vector<double> C = machineCacheSizes((D / "cache").string(), From);
  EXPECT_EQ(C, libcCacheSizes());
  EXPECT_EQ(From, C.empty() ? "" : "sysconf");
  for (size_t K = 1; K < C.size(); ++K)
    EXPECT_LT(C[K - 1], C[K]);
  fs::remove_all(D);
}

} // namespace
