// Unit tests of the compiler option table and of every view derived from it.
#include "mpiete/frontend/CompilerOptions.h"
#include "mpiete/tools/CompilerWrapper.h"

#include <gtest/gtest.h>

#include <set>

namespace mpiete {
namespace {

using Args = std::vector<std::string>;

std::set<std::string> spellingsWhere(bool (*Pred)(const CompilerOption &)) {
  std::set<std::string> Out;
  for (const CompilerOption &O : compilerOptions())
    if (Pred(O))
      Out.insert(std::string(O.Spelling));
  return Out;
}

TEST(CompilerOptionsTest, SpellingsAreUniqueAndWellFormed) {
  std::set<std::string_view> Seen;
  for (const CompilerOption &O : compilerOptions()) {
    EXPECT_TRUE(Seen.insert(O.Spelling).second) << O.Spelling;
    EXPECT_TRUE(O.Spelling.starts_with("-")) << O.Spelling;
    EXPECT_EQ(O.Category == OptionCategory::Mpiete, O.Spelling.starts_with("--mpiete-"))
        << O.Spelling;
    // Only mpiete's own options are listed in a help.
    EXPECT_TRUE(O.Help.empty() || O.Category == OptionCategory::Mpiete) << O.Spelling;
  }
}

TEST(CompilerOptionsTest, SeparateValuesAreTheWrappersList) {
  // The options whose value the wrapper takes from the next argument (before the table, its
  // takesValue list), plus ifort's -module.
  std::set<std::string> Expected = {"-o",
                                    "-I",
                                    "-D",
                                    "-U",
                                    "-include",
                                    "-imacros",
                                    "-iquote",
                                    "-isystem",
                                    "-idirafter",
                                    "-MF",
                                    "-MT",
                                    "-MQ",
                                    "-x",
                                    "-L",
                                    "-l",
                                    "-Xlinker",
                                    "-Xassembler",
                                    "-Xpreprocessor",
                                    "-u",
                                    "-T",
                                    "-e",
                                    "--param",
                                    "-aux-info",
                                    "-z",
                                    "-isysroot",
                                    "--sysroot",
                                    "-iprefix",
                                    "-iwithprefix",
                                    "-iwithprefixbefore",
                                    "-A",
                                    "-J",
                                    "-module"};
  EXPECT_EQ(spellingsWhere([](const CompilerOption &O) { return O.takesSeparateValue(); }),
            Expected);
}

TEST(CompilerOptionsTest, NoObjectOptions) {
  std::set<std::string> Expected = {
      "-E",        "-S",           "-M",           "-MM",     "-fsyntax-only",
      "--version", "-dumpversion", "-dumpmachine", "-print-", "-showme",
      "--showme",  "-###",         "--help"};
  EXPECT_EQ(spellingsWhere([](const CompilerOption &O) { return O.uses(UseNoObject); }), Expected);
}

TEST(CompilerOptionsTest, LongestSpellingWins) {
  auto spelling = [](std::string_view Arg) -> std::string {
    const CompilerOption *O = findCompilerOption(Arg);
    return O ? std::string(O->Spelling) : "(none)";
  };
  EXPECT_EQ(spelling("-O2"), "-O");
  EXPECT_EQ(spelling("-Ofast"), "-Ofast");
  EXPECT_EQ(spelling("--sysroot=/s"), "--sysroot=");
  EXPECT_EQ(spelling("--sysroot"), "--sysroot");
  EXPECT_EQ(spelling("-MF"), "-MF");
  EXPECT_EQ(spelling("-MFdeps.d"), "-MF");
  EXPECT_EQ(spelling("-MMD"), "-MMD");
  EXPECT_EQ(spelling("-Wp,-MD,x.d"), "-Wp,-M");
  EXPECT_EQ(spelling("-isystem/usr/x"), "-isystem");
  EXPECT_EQ(spelling("-fopenmp=libomp"), "-fopenmp=");
  EXPECT_EQ(spelling("-ffixed-line-length-132"), "-ffixed-line-length-");
  EXPECT_EQ(spelling("--mpiete-verbose"), "--mpiete-verbose");
  EXPECT_EQ(spelling("--mpiete-whatever"), "--mpiete-");
  // Separate-only spellings match exactly: -undef is not -u, -includex is unknown.
  EXPECT_EQ(spelling("-undef"), "(none)");
  EXPECT_EQ(spelling("-includecfg.h"), "(none)");
  EXPECT_EQ(spelling("-xc"), "(none)");
  EXPECT_EQ(spelling("main.c"), "(none)");
  EXPECT_EQ(spelling("-"), "(none)");
}

TEST(CompilerOptionsTest, ParseCountsSeparateValues) {
  Args In = {"-I", "inc", "-Iinc2", "x.c", "-o", "x.o", "-MF"};
  std::vector<ParsedOption> P = parseCompilerArgs(In);
  ASSERT_EQ(P.size(), 5u);
  EXPECT_EQ(P[0].Count, 2u);
  EXPECT_EQ(P[0].Value, "inc");
  EXPECT_EQ(P[1].Value, "inc2");
  EXPECT_EQ(P[2].Option, nullptr);
  EXPECT_EQ(P[3].Value, "x.o");
  EXPECT_EQ(P[4].Count, 1u); // no value left
  EXPECT_TRUE(P[4].Value.empty());
}

TEST(CompilerOptionsTest, EveryConsumerKeepsItsOwnOptions) {
  Args In = {"-O2",      "-Ofast",        "-Iinc",    "-D",   "X=1",          "-UY",
             "-include", "cfg.h",         "-std=c99", "-cpp", "-ffixed-form", "-Jmod",
             "-fopenmp", "-march=native", "-lm",      "-g"};
  EXPECT_EQ(parsingArgs(In), (Args{"-O2", "-Iinc", "-D", "X=1", "-UY", "-include", "cfg.h",
                                   "-std=c99", "-fopenmp", "-march=native"}));
  EXPECT_EQ(flangAnalysisFlags(In),
            (Args{"-Iinc", "-D", "X=1", "-UY", "-cpp", "-ffixed-form", "-fopenmp"}));
  EXPECT_EQ(unitDefines(In), (Args{"-DX=1", "-UY", "-include cfg.h"}));
}

TEST(CompilerOptionsTest, ValuesOfUnkeptOptionsAreNotSwallowed) {
  // -Xpreprocessor hands its value to the preprocessor: the macro selects the unit's code.
  Args In = {"-Xpreprocessor", "-DFROM_CPP", "-c", "a.c"};
  EXPECT_EQ(unitDefines(In), Args{"-DFROM_CPP"});
  EXPECT_EQ(parsingArgs(In), Args{"-DFROM_CPP"});
}

TEST(CompilerOptionsTest, SeparateOptionWithoutValueIsDropped) {
  EXPECT_TRUE(parsingArgs({"-O2", "-include"}) == Args{"-O2"});
  EXPECT_TRUE(unitDefines({"-D"}).empty());
  EXPECT_TRUE(flangAnalysisFlags({"-I"}).empty());
}

TEST(CompilerOptionsTest, FortranModuleDirsOfEverySpelling) {
  EXPECT_EQ(fortranModuleDirs({"-Jmod1", "-J", "mod2", "-module", "mod3", "-J"}),
            (Args{"mod1", "mod2", "mod3"}));
}

TEST(CompilerOptionsTest, WrapperTakesTheModuleDirectoryAsAValue) {
  WrapperCommand Cmd =
      parseWrapperCommand({"-c", "-module", "mods", "a.f90"}, WrapperLanguage::Fortran);
  EXPECT_TRUE(Cmd.Objects.empty());
  ASSERT_EQ(Cmd.Sources.size(), 1u);
  EXPECT_EQ(Cmd.Native[Cmd.Sources[0]], "a.f90");
}

TEST(CompilerOptionsTest, VariantFlagsDropByCategory) {
  WrapperCommand Cmd = parseWrapperCommand(
      {"-c", "a.c", "-o", "a.o", "-MMD", "-MQ", "q", "-Xlinker", "-z", "-Dx", "-J", "m"});
  EXPECT_EQ(variantCompileFlags(Cmd), (Args{"-Xlinker", "-z", "-Dx", "-J", "m"}));
}

TEST(CompilerOptionsTest, HelpComesFromTheTable) {
  EXPECT_EQ(mpieteOptionsHelp(),
            "  --mpiete-pass-through=MPI_X[,MPI_Y]  leave these unsupported MPI routines "
            "uninstrumented\n"
            "                                       (a warning; predictions ignore their cost); "
            "'all' for all\n"
            "  --mpiete-verbose                     print every command run\n"
            "  --mpiete-sample-loops                the timing probe gets the hooks of the loops "
            "of pure computation\n"
            "                                       probe-compute --sample samples (also "
            "MPIETE_SAMPLE_LOOPS=1)\n"
            "  --mpiete-seed-blocks                 seed 004's compute blocks (every loop and "
            "branch ends one)\n"
            "                                       instead of segments between MPI calls, for "
            "comparison\n"
            "  --mpiete-coarse-blocks               C: compute blocks between MPI calls (loops of "
            "pure\n"
            "                                       computation inside them) instead of "
            "segments\n"
            "  --mpiete-align-loops=match|N|no      where the timing probe's loops start: match "
            "(the default\n"
            "                                       with GCC) where the program's do, within "
            "their 64-byte lines;\n"
            "                                       N on N-byte boundaries; no: where the "
            "compiler puts them\n"
            "                                       (also MPIETE_ALIGN_LOOPS): docs/probes.md\n");
}

} // namespace
} // namespace mpiete
