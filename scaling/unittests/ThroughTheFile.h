// A learnt structure written to a model file and read back, for the structure tests that
// check what the file keeps.
#ifndef MPIETE_SCALING_UNITTESTS_THROUGHTHEFILE_H
#define MPIETE_SCALING_UNITTESTS_THROUGHTHEFILE_H

#include "mpiete/scaling/CommStructure.h"
#include "mpiete/scaling/ModelFile.h"
#include "mpiete/support/Diagnostics.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace mpiete::scaling::test {

/// S written to a model file and read back (the text written in Text).
inline ScalingModelFile throughTheFile(const CommStructure &S, std::string &Text) {
  ScalingModelFile File;
  File.Tool = "mpiete test";
  File.StructureAccepted = true;
  File.Learnt = S;
  std::ostringstream First;
  writeScalingModel(First, File);
  Text = First.str();
  // One file per process: ctest runs the tests of this binary in parallel processes.
  const std::string Path = (std::filesystem::temp_directory_path() /
                            ("mpiete-structure-test-" + std::to_string(::getpid()) + ".yaml"))
                               .string();
  std::ofstream(Path) << Text;
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  ScalingModelFile G;
  EXPECT_TRUE(loadScalingModel(Path, G, Diags)) << Errors.str();
  std::filesystem::remove(Path);
  return G;
}

} // namespace mpiete::scaling::test

#endif
