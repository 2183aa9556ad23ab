// Temporary files for unit tests: a directory per test, removed afterwards.
#ifndef MPIETE_TESTS_UNIT_TESTFILES_H
#define MPIETE_TESTS_UNIT_TESTFILES_H

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace mpiete {

class TempDir {
public:
  TempDir() {
    const testing::TestInfo *Info = testing::UnitTest::GetInstance()->current_test_info();
    std::string Name = std::string("mpiete-unit-") + Info->test_suite_name() + "-" + Info->name();
    Path = std::filesystem::temp_directory_path() / Name;
    std::filesystem::remove_all(Path);
    std::filesystem::create_directories(Path);
  }
  ~TempDir() { std::filesystem::remove_all(Path); }

  std::string write(const std::string &Name, const std::string &Text) const {
    std::filesystem::path P = Path / Name;
    std::filesystem::create_directories(P.parent_path());
    std::ofstream(P, std::ios::binary) << Text;
    return P.string();
  }
  std::string path(const std::string &Name) const { return (Path / Name).string(); }

private:
  std::filesystem::path Path;
};

} // namespace mpiete

#endif
