// Unit tests of mpiete-cc's command-line handling: modes, inputs, outputs, variant flags.
#include "mpiete/tools/CompilerWrapper.h"

#include <gtest/gtest.h>

using mpiete::parseWrapperCommand;
using mpiete::WrapperCommand;
using Args = std::vector<std::string>;

TEST(WrapperCommand, CompileWithJoinedOutput) {
  WrapperCommand C = parseWrapperCommand({"-O2", "-c", "src/a.c", "-oobj/a.o"});
  EXPECT_EQ(C.Kind, WrapperCommand::Mode::Compile);
  EXPECT_EQ(C.output(), "obj/a.o");
  ASSERT_EQ(C.Sources.size(), 1u);
  EXPECT_EQ(C.Native[C.Sources[0]], "src/a.c");
  EXPECT_EQ(mpiete::objectFor(C, "src/a.c"), "obj/a.o");
  EXPECT_EQ(mpiete::sidecarPrefix("obj/a.o"), "obj/.mpiete/a.o");
}

TEST(WrapperCommand, CompileSeveralSourcesWithoutOutput) {
  WrapperCommand C = parseWrapperCommand({"-c", "dir/a.c", "b.c"});
  EXPECT_EQ(C.Kind, WrapperCommand::Mode::Compile);
  EXPECT_EQ(mpiete::objectFor(C, "dir/a.c"), "a.o");
  EXPECT_EQ(mpiete::objectFor(C, "b.c"), "b.o");
}

TEST(WrapperCommand, LinkClassifiesInputs) {
  WrapperCommand C = parseWrapperCommand(
      {"-o", "app", "main.c", "util.o", "libx.a", "f.f90", "-L", "lib", "-l", "m", "-lfoo"});
  EXPECT_EQ(C.Kind, WrapperCommand::Mode::Link);
  EXPECT_EQ(C.output(), "app");
  ASSERT_EQ(C.Sources.size(), 1u);
  ASSERT_EQ(C.Objects.size(), 2u);
  EXPECT_EQ(C.Native[C.Objects[0]], "util.o");
  EXPECT_EQ(C.Native[C.Objects[1]], "libx.a");
  ASSERT_EQ(C.Foreign.size(), 1u);
  // The values of -L and -l are not inputs.
  EXPECT_EQ(C.Native.size(), 11u);
}

TEST(WrapperCommand, NoObjectModesPassThrough) {
  for (const Args &A : {Args{"-E", "a.c"}, Args{"-M", "a.c"}, Args{"-MM", "a.c"},
                        Args{"-S", "a.c"}, Args{"--version"}, Args{"-showme:compile"},
                        Args{"-shared", "-o", "libx.so", "a.c"}, Args{"-fsyntax-only", "a.c"}})
    EXPECT_EQ(parseWrapperCommand(A).Kind, WrapperCommand::Mode::PassOnly) << A[0];
}

TEST(WrapperCommand, OwnOptionsNeverReachTheCompiler) {
  WrapperCommand C = parseWrapperCommand(
      {"--mpiete-pass-through=MPI_Win_create,MPI_Win_free", "--mpiete-verbose", "-c", "a.c"});
  EXPECT_EQ(C.Native, (Args{"-c", "a.c"}));
  EXPECT_EQ(C.PassThrough, (Args{"MPI_Win_create", "MPI_Win_free"}));
  EXPECT_TRUE(C.Verbose);
  EXPECT_FALSE(C.PassThroughAll);
  EXPECT_TRUE(parseWrapperCommand({"--mpiete-pass-through=all", "-c", "a.c"}).PassThroughAll);
}

TEST(WrapperCommand, VariantFlagsDropInputsOutputsAndDependencies) {
  WrapperCommand C = parseWrapperCommand(
      {"-O2", "-I", "inc", "-Iinc2", "-DX=1", "-c", "a.c", "-o", "a.o", "-MD", "-MF", "a.d",
       "-MT", "t", "-MMD", "-MP", "-MFjoined.d", "-MTjoined", "-MQjoined", "-Wp,-MD,w.d", "-g"});
  EXPECT_EQ(mpiete::variantCompileFlags(C),
            (Args{"-O2", "-I", "inc", "-Iinc2", "-DX=1", "-g"}));
}
