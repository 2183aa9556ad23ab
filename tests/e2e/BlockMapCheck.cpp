// e2e helper: reads a linked program's block map with mpiete's own reader and checks its shape.
//
// usage: mpiete-e2e-blockmap-check MAP [--source=FILE]... [--units=N]
// Prints one summary line. Fails (exit 1) when the map does not parse, has no unit or no
// block, when a block id repeats, when an MPI block names no routine, or when the units'
// sources are not exactly the --source files given (if any).
#include "mpiete/BlockId.h"
#include "mpiete/basedata/BlockMap.h"
#include "mpiete/support/Diagnostics.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>
#include <string>

int main(int Argc, char **Argv) {
  if (Argc < 2) {
    std::cerr << "usage: mpiete-e2e-blockmap-check MAP [--source=FILE]... [--units=N]\n";
    return 2;
  }
  std::string Path = Argv[1];
  std::multiset<std::string> Expected;
  int ExpectedUnits = -1;
  for (int I = 2; I < Argc; ++I) {
    std::string A = Argv[I];
    if (A.starts_with("--source="))
      Expected.insert(std::filesystem::path(A.substr(9)).filename().string());
    else if (A.starts_with("--units="))
      ExpectedUnits = std::atoi(A.c_str() + 8);
    else {
      std::cerr << "blockmap-check: unknown option '" << A << "'\n";
      return 2;
    }
  }

  mpiete::DiagnosticSink Diags(std::cerr);
  mpiete::BlockMap Map;
  if (!mpiete::readBlockMap(Path, Map, Diags))
    return 1;

  bool Ok = true;
  auto fail = [&](const std::string &Msg) {
    std::cerr << Path << ": check failed: " << Msg << "\n";
    Ok = false;
  };
  std::set<uint64_t> Ids;
  std::multiset<std::string> Sources;
  size_t Blocks = 0, Compute = 0, Mpi = 0, Loops = 0;
  for (const mpiete::UnitModel &U : Map.Units) {
    // By file name: a Makefile may name its sources relative or absolute.
    Sources.insert(std::filesystem::path(U.Source).filename().string());
    for (const mpiete::Block &B : U.Blocks) {
      ++Blocks;
      if (!Ids.insert(U.blockId(B.Index)).second)
        fail("block id " + mpiete::formatBlockId(U.blockId(B.Index)) + " appears twice");
      if (B.Kind == mpiete::BlockKind::Compute) {
        ++Compute;
      } else if (B.Kind == mpiete::BlockKind::Loop) {
        ++Loops;
      } else {
        ++Mpi;
        if (B.Routine.empty())
          fail("MPI block " + mpiete::formatBlockId(U.blockId(B.Index)) + " names no routine");
      }
      if (B.File.empty() || B.BeginLine == 0)
        fail("block " + mpiete::formatBlockId(U.blockId(B.Index)) + " has no source position");
    }
  }
  if (Map.Units.empty())
    fail("no units");
  if (Blocks == 0)
    fail("no blocks");
  if (Mpi == 0)
    fail("no MPI blocks");
  if (ExpectedUnits >= 0 && Map.Units.size() != static_cast<size_t>(ExpectedUnits))
    fail("expected " + std::to_string(ExpectedUnits) + " units, found " +
         std::to_string(Map.Units.size()));
  if (!Expected.empty() && Expected != Sources) {
    std::string Got;
    for (const std::string &S : Sources)
      Got += " " + S;
    fail("unit sources are" + Got);
  }
  std::cout << "units=" << Map.Units.size() << " blocks=" << Blocks << " compute=" << Compute
            << " mpi=" << Mpi << " loops=" << Loops << "\n";
  return Ok ? 0 : 1;
}
