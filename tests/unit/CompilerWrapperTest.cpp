// Unit tests of mpiete-cc's command-line reading: modes, inputs, outputs, variant flags.
#include "mpiete/tools/CompilerWrapper.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace mpiete {
namespace {

using Args = std::vector<std::string>;
using Mode = WrapperCommand::Mode;

std::vector<std::string> pick(const WrapperCommand &Cmd, const std::vector<size_t> &Indices) {
  std::vector<std::string> Out;
  for (size_t I : Indices)
    Out.push_back(Cmd.Native.at(I));
  return Out;
}

bool contains(const Args &A, const std::string &S) {
  return std::find(A.begin(), A.end(), S) != A.end();
}

TEST(CompilerWrapperTest, CompileWithSeparateOutput) {
  WrapperCommand Cmd = parseWrapperCommand({"-O2", "-c", "src/ring.c", "-o", "obj/ring.o"});
  EXPECT_EQ(Cmd.Kind, Mode::Compile);
  EXPECT_EQ(pick(Cmd, Cmd.Sources), Args{"src/ring.c"});
  EXPECT_TRUE(Cmd.Objects.empty());
  EXPECT_EQ(Cmd.output(), "obj/ring.o");
  EXPECT_EQ(objectFor(Cmd, "src/ring.c"), "obj/ring.o");
  EXPECT_EQ(sidecarPrefix(objectFor(Cmd, "src/ring.c")), "obj/.mpiete/ring.o");
}

TEST(CompilerWrapperTest, AttachedOutputIsSplitInTwo) {
  WrapperCommand Cmd = parseWrapperCommand({"-c", "a.c", "-oout/a.o"});
  EXPECT_EQ(Cmd.Kind, Mode::Compile);
  EXPECT_EQ(Cmd.output(), "out/a.o");
  ASSERT_GE(Cmd.OutputIndex, 1);
  EXPECT_EQ(Cmd.Native[Cmd.OutputIndex - 1], "-o");
  EXPECT_EQ(Cmd.Native, (Args{"-c", "a.c", "-o", "out/a.o"}));
}

TEST(CompilerWrapperTest, SeveralSourcesCompileToTheirBaseNames) {
  WrapperCommand Cmd = parseWrapperCommand({"-c", "lib/a.c", "b.c", "-Iinc"});
  EXPECT_EQ(Cmd.Kind, Mode::Compile);
  EXPECT_EQ(pick(Cmd, Cmd.Sources), (Args{"lib/a.c", "b.c"}));
  EXPECT_EQ(Cmd.OutputIndex, -1);
  EXPECT_EQ(objectFor(Cmd, "lib/a.c"), "a.o");
  EXPECT_EQ(objectFor(Cmd, "b.c"), "b.o");
  EXPECT_EQ(sidecarPrefix("a.o"), ".mpiete/a.o");
}

TEST(CompilerWrapperTest, LinkWithObjectsArchivesAndForeignSources) {
  WrapperCommand Cmd = parseWrapperCommand(
      {"main.c", "util.o", "libsolver.a", "kernel.f90", "-L/opt/lib", "-lm", "-o", "app"});
  EXPECT_EQ(Cmd.Kind, Mode::Link);
  EXPECT_EQ(pick(Cmd, Cmd.Sources), Args{"main.c"});
  EXPECT_EQ(pick(Cmd, Cmd.Objects), (Args{"util.o", "libsolver.a"}));
  EXPECT_EQ(pick(Cmd, Cmd.Foreign), Args{"kernel.f90"});
  EXPECT_EQ(Cmd.output(), "app");
}

TEST(CompilerWrapperTest, OptionValuesAreNotInputs) {
  WrapperCommand Cmd = parseWrapperCommand(
      {"-c", "-I", "include", "-D", "N=4", "-include", "config.h", "-x", "c", "x.c"});
  EXPECT_EQ(pick(Cmd, Cmd.Sources), Args{"x.c"});
  EXPECT_TRUE(Cmd.Objects.empty());
  EXPECT_TRUE(Cmd.Foreign.empty());
}

TEST(CompilerWrapperTest, DependencyOptionsStayOutOfVariantCompiles) {
  WrapperCommand Cmd = parseWrapperCommand({"-c", "a.c", "-o", "a.o", "-MD", "-MF", "a.d", "-MT",
                                            "a.o", "-MP", "-Wp,-MMD,b.d", "-O2", "-DX=1", "-Iinc"});
  EXPECT_EQ(Cmd.Kind, Mode::Compile);
  Args Flags = variantCompileFlags(Cmd);
  EXPECT_EQ(Flags, (Args{"-O2", "-DX=1", "-Iinc"}));
  EXPECT_EQ(instrumenterFlags(Cmd), Flags);
}

TEST(CompilerWrapperTest, VariantFlagsKeepSeparateValues) {
  WrapperCommand Cmd =
      parseWrapperCommand({"-c", "-std=c99", "-I", "inc dir", "-D", "A", "a.c", "-g"});
  EXPECT_EQ(variantCompileFlags(Cmd), (Args{"-std=c99", "-I", "inc dir", "-D", "A", "-g"}));
}

TEST(CompilerWrapperTest, PreprocessingIsPassedThrough) {
  for (const char *Opt : {"-E", "-S", "-M", "-MM", "-fsyntax-only"}) {
    WrapperCommand Cmd = parseWrapperCommand({Opt, "a.c"});
    EXPECT_EQ(Cmd.Kind, Mode::PassOnly) << Opt;
    EXPECT_NE(Cmd.PassOnlyReason.find(Opt), std::string::npos) << Cmd.PassOnlyReason;
  }
  EXPECT_EQ(parseWrapperCommand({"--version"}).Kind, Mode::PassOnly);
  EXPECT_EQ(parseWrapperCommand({"-showme:compile"}).Kind, Mode::PassOnly);
}

TEST(CompilerWrapperTest, SharedLibrariesAreNotInstrumented) {
  WrapperCommand Cmd = parseWrapperCommand({"-shared", "-fPIC", "a.c", "-o", "liba.so"});
  EXPECT_EQ(Cmd.Kind, Mode::PassOnly);
  EXPECT_NE(Cmd.PassOnlyReason.find("shared"), std::string::npos) << Cmd.PassOnlyReason;
}

TEST(CompilerWrapperTest, NoInputsIsPassOnly) {
  WrapperCommand Cmd = parseWrapperCommand({"-O2", "-Wall"});
  EXPECT_EQ(Cmd.Kind, Mode::PassOnly);
  EXPECT_EQ(Cmd.PassOnlyReason, "no input files");
}

TEST(CompilerWrapperTest, MpieteOptionsAreRemovedFromTheNativeLine) {
  WrapperCommand Cmd =
      parseWrapperCommand({"--mpiete-pass-through=MPI_Win_fence,MPI_Ibcast", "-c", "a.c",
                           "--mpiete-verbose", "--mpiete-pass-through=MPI_File_open"});
  EXPECT_EQ(Cmd.Native, (Args{"-c", "a.c"}));
  EXPECT_EQ(Cmd.PassThrough, (Args{"MPI_Win_fence", "MPI_Ibcast", "MPI_File_open"}));
  EXPECT_FALSE(Cmd.PassThroughAll);
  EXPECT_TRUE(Cmd.Verbose);
  ASSERT_EQ(Cmd.Sources.size(), 1u);
  EXPECT_EQ(Cmd.Native[Cmd.Sources[0]], "a.c");
}

TEST(CompilerWrapperTest, AlignLoopsOptionIsMpietes) {
  WrapperCommand Cmd = parseWrapperCommand({"--mpiete-align-loops=32", "-c", "a.c"});
  EXPECT_EQ(Cmd.AlignLoops, "32");
  EXPECT_EQ(Cmd.Native, (Args{"-c", "a.c"}));
  // The user's own alignment flag is the native compiler's.
  Cmd = parseWrapperCommand({"-falign-loops=16", "-c", "a.c"});
  EXPECT_TRUE(Cmd.AlignLoops.empty());
  EXPECT_TRUE(contains(variantCompileFlags(Cmd), "-falign-loops=16"));
}

TEST(CompilerWrapperTest, AlignmentsArePowersOfTwoOrNo) {
  for (const char *Good : {"1", "16", "64", "4096", "no"})
    EXPECT_TRUE(validAlignment(Good)) << Good;
  for (const char *Bad : {"", "0", "48", "8192", "-64", "64k", "yes", "00000064"})
    EXPECT_FALSE(validAlignment(Bad)) << Bad;
}

TEST(CompilerWrapperTest, PassThroughAll) {
  WrapperCommand Cmd = parseWrapperCommand({"--mpiete-pass-through=all", "a.c"});
  EXPECT_TRUE(Cmd.PassThroughAll);
  EXPECT_TRUE(Cmd.PassThrough.empty());
  EXPECT_FALSE(contains(Cmd.Native, "--mpiete-pass-through=all"));
}

TEST(CompilerWrapperTest, JoinedDependencyOptionsStayOutOfVariantCompiles) {
  WrapperCommand C = parseWrapperCommand(
      {"-O2",  "-I",  "inc",         "-Iinc2",    "-DX=1",     "-c",          "a.c",
       "-o",   "a.o", "-MD",         "-MF",       "a.d",       "-MT",         "t",
       "-MMD", "-MP", "-MFjoined.d", "-MTjoined", "-MQjoined", "-Wp,-MD,w.d", "-g"});
  EXPECT_EQ(variantCompileFlags(C), (Args{"-O2", "-I", "inc", "-Iinc2", "-DX=1", "-g"}));
}

TEST(CompilerWrapperTest, FortranWrapperInstrumentsFortranSources) {
  WrapperCommand Cmd =
      parseWrapperCommand({"-c", "-Jmod", "-O2", "solver.F90", "blas.f", "timer.c", "kernel.cpp"},
                          WrapperLanguage::Fortran);
  EXPECT_EQ(Cmd.Kind, Mode::Compile);
  EXPECT_EQ(pick(Cmd, Cmd.Sources), (Args{"solver.F90", "blas.f", "timer.c"}));
  EXPECT_EQ(pick(Cmd, Cmd.Foreign), Args{"kernel.cpp"});
  // -J with a separate value is no input.
  WrapperCommand Sep = parseWrapperCommand({"-c", "-J", "mod", "a.f90"}, WrapperLanguage::Fortran);
  EXPECT_EQ(pick(Sep, Sep.Sources), Args{"a.f90"});
  EXPECT_TRUE(Sep.Objects.empty());
  EXPECT_EQ(fortranModuleDirs(Sep.Native), Args{"mod"});
  EXPECT_EQ(fortranModuleDirs(Cmd.Native), Args{"mod"});
}

TEST(CompilerWrapperTest, FortranSourceKinds) {
  for (const char *S : {"a.f", "a.F", "a.for", "a.f77", "a.f90", "a.F90", "a.f95", "a.f08"})
    EXPECT_TRUE(isFortranSource(S)) << S;
  for (const char *S : {"a.c", "a.o", "a.fpp.txt", "f90"})
    EXPECT_FALSE(isFortranSource(S)) << S;
}

TEST(CompilerWrapperTest, FlangAnalysisFlagsFromGfortranFlags) {
  Args Flags = flangAnalysisFlags({"-O3", "-fallow-argument-mismatch", "-ffixed-line-length-132",
                                   "-fdefault-real-8", "-Iinc", "-I", "other", "-DN=4", "-cpp",
                                   "-Jmod", "-J", "mod2", "-Wall", "-g", "-march=native",
                                   "-ffixed-line-length-none", "-fopenmp"});
  EXPECT_EQ(Flags, (Args{"-ffixed-line-length=132", "-fdefault-real-8", "-Iinc", "-I", "other",
                         "-DN=4", "-cpp", "-ffixed-line-length=0", "-fopenmp"}));
}

} // namespace
} // namespace mpiete
