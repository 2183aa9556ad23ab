// The fuzz targets without libFuzzer (the default gcc build): runs LLVMFuzzerTestOneInput on
// every file named, or in a folder named, on the command line, so that the seeds and every
// crash found once stay regression tests of the default suite. Exits 1 if a path is missing.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size);

namespace {

void runOne(const std::filesystem::path &P) {
  std::ifstream In(P, std::ios::binary);
  std::vector<char> Bytes((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(Bytes.data()), Bytes.size());
}

} // namespace

int main(int Argc, char **Argv) {
  namespace fs = std::filesystem;
  size_t Count = 0;
  for (int I = 1; I < Argc; ++I) {
    fs::path P = Argv[I];
    std::error_code Ec;
    if (fs::is_directory(P, Ec)) {
      std::vector<fs::path> Files;
      for (const fs::directory_entry &E : fs::recursive_directory_iterator(P))
        if (E.is_regular_file())
          Files.push_back(E.path());
      std::sort(Files.begin(), Files.end());
      for (const fs::path &F : Files) {
        runOne(F);
        ++Count;
      }
    } else if (fs::is_regular_file(P, Ec)) {
      runOne(P);
      ++Count;
    } else {
      std::cerr << "fuzz replay: no such file or folder: " << P.string() << '\n';
      return 1;
    }
  }
  std::cout << "fuzz replay: " << Count << " inputs, no crash\n";
  return 0;
}
