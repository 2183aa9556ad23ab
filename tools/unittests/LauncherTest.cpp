// Unit tests of the launcher command lines and of the probe command-line parser.
#include "mpiete/tools/Launcher.h"

#include <gtest/gtest.h>

using namespace mpiete;
using Words = std::vector<std::string>;

namespace {

ProbeCommandLine parse(const Words &Args, bool WantProgram = true) {
  ProbeCommandLine Out;
  std::string Err = parseProbeCommandLine(
      Args, {{"-o", true}, {"--max-size", true}, {"--verbose", false}}, WantProgram, Out);
  EXPECT_EQ(Err, "") << "for the command line given";
  return Out;
}

std::string parseError(const Words &Args, bool WantProgram = true) {
  ProbeCommandLine Out;
  return parseProbeCommandLine(Args, {{"-o", true}}, WantProgram, Out);
}

} // namespace

TEST(LaunchArgv, OpenMpiExportsWithX) {
  LaunchSpec S;
  S.Launcher = "mpirun.openmpi";
  S.Np = 4;
  S.LauncherArgs = {"--hostfile", "hosts"};
  S.Program = {"./app.trace", "-n", "10"};
  S.Env = {{"MPIETE_OUTDIR", "/tmp/out dir"}, {"MPIETE_FINGERPRINT", "abc"}};
  EXPECT_EQ(launchArgv(S),
            (Words{"mpirun.openmpi", "-np", "4", "-x", "MPIETE_OUTDIR=/tmp/out dir", "-x",
                   "MPIETE_FINGERPRINT=abc", "--hostfile", "hosts", "./app.trace", "-n", "10"}));
  S.Launcher = "/opt/ompi/bin/mpiexec";
  EXPECT_EQ(launchArgv(S)[1], "-np");
  EXPECT_EQ(launchArgv(S)[3], "-x");
}

TEST(LaunchArgv, SrunTakesEnvironmentAndDashN) {
  LaunchSpec S;
  S.Launcher = "srun";
  S.Np = 2;
  S.LauncherArgs = {"-N", "2", "--partition=debug"};
  S.Program = {"comm_probe"};
  S.Env = {{"MPIETE_OUTDIR", "/x"}};
  EXPECT_EQ(launchArgv(S),
            (Words{"srun", "-n", "2", "-N", "2", "--partition=debug", "comm_probe"}));
}

TEST(LaunchArgv, HydraUsesGenvAndSeveralWordLaunchers) {
  LaunchSpec S;
  S.Launcher = "mpiexec.hydra";
  S.Np = 3;
  S.Program = {"a"};
  S.Env = {{"K", "V"}};
  EXPECT_EQ(launchArgv(S), (Words{"mpiexec.hydra", "-n", "3", "-genv", "K", "V", "a"}));
  S.Launcher = "flux run";
  S.Env.clear();
  EXPECT_EQ(launchArgv(S), (Words{"flux", "run", "-n", "3", "a"}));
}

TEST(LaunchArgv, HydraDropsOpenMpisOversubscribe) {
  LaunchSpec S;
  S.Launcher = "/usr/bin/mpiexec.mpich";
  S.Np = 4;
  S.LauncherArgs = {"--oversubscribe", "-ppn", "4"};
  S.Program = {"a"};
  EXPECT_EQ(launchArgv(S), (Words{"/usr/bin/mpiexec.mpich", "-n", "4", "-ppn", "4", "a"}));
  S.Launcher = "srun";
  EXPECT_EQ(launchArgv(S), (Words{"srun", "-n", "4", "--oversubscribe", "-ppn", "4", "a"}));
}

TEST(LaunchArgv, RanksRunHereOnlyForLocalLaunches) {
  LaunchSpec S;
  S.Launcher = "mpirun.openmpi";
  EXPECT_TRUE(ranksRunHere(S));
  S.LauncherArgs = {"--map-by", "slot", "-H", "n1,n2"};
  EXPECT_FALSE(ranksRunHere(S));
  S.Launcher = "mpiexec.mpich";
  S.LauncherArgs = {"-f=hosts"};
  EXPECT_FALSE(ranksRunHere(S));
  S.LauncherArgs.clear();
  EXPECT_TRUE(ranksRunHere(S));
  S.Launcher = "srun";
  EXPECT_FALSE(ranksRunHere(S));
}

TEST(LaunchArgv, NoRankCountLeavesItToTheLauncher) {
  LaunchSpec S;
  S.Program = {"a"};
  EXPECT_EQ(launchArgv(S), (Words{defaultLauncher(), "a"}));
}

TEST(ProbeParser, ProgramArgumentsAreUntouched) {
  ProbeCommandLine P = parse({"-o", "out", "-np", "4", "./app.trace", "-o", "x", "-np", "9",
                              "--launcher", "srun", "--", "--help"});
  EXPECT_EQ(P.Launch.Np, 4);
  EXPECT_EQ(P.Launch.Launcher, defaultLauncher());
  EXPECT_TRUE(P.Launch.LauncherArgs.empty());
  EXPECT_EQ(P.Launch.Program,
            (Words{"./app.trace", "-o", "x", "-np", "9", "--launcher", "srun", "--", "--help"}));
  ASSERT_EQ(P.Options.size(), 1u);
  EXPECT_EQ(P.Options[0].first, "-o");
  EXPECT_EQ(P.Options[0].second, "out");
  EXPECT_FALSE(P.Help);
}

TEST(ProbeParser, LauncherOptionsKeepTheirValues) {
  ProbeCommandLine P = parse({"-o",
                              "d",
                              "--launcher",
                              "mpiexec",
                              "-np",
                              "2",
                              "--hostfile",
                              "hosts",
                              "--map-by",
                              "ppr:1:node",
                              "-H",
                              "h1,h2",
                              "--mca",
                              "btl",
                              "self,tcp",
                              "--oversubscribe",
                              "--bind-to=core",
                              "-x",
                              "FOO=1",
                              "./app",
                              "arg"});
  EXPECT_EQ(P.Launch.Launcher, "mpiexec");
  EXPECT_EQ(P.Launch.LauncherArgs,
            (Words{"--hostfile", "hosts", "--map-by", "ppr:1:node", "-H", "h1,h2", "--mca", "btl",
                   "self,tcp", "--oversubscribe", "--bind-to=core", "-x", "FOO=1"}));
  EXPECT_EQ(P.Launch.Program, (Words{"./app", "arg"}));
}

TEST(ProbeParser, RankCountForms) {
  EXPECT_EQ(parse({"-np", "3", "a"}).Launch.Np, 3);
  EXPECT_EQ(parse({"--np", "5", "a"}).Launch.Np, 5);
  EXPECT_EQ(parse({"-n", "6", "a"}).Launch.Np, 6);
  EXPECT_EQ(parse({"-np=7", "a"}).Launch.Np, 7);
  EXPECT_EQ(parse({"-n8", "a"}).Launch.Np, 8);
  EXPECT_EQ(parse({"a"}).Launch.Np, 0);
  EXPECT_NE(parseError({"-np", "x", "a"}), "");
  EXPECT_NE(parseError({"-np", "0", "a"}), "");
  EXPECT_NE(parseError({"-np"}), "");
}

TEST(ProbeParser, DoubleDashForcesTheProgram) {
  ProbeCommandLine P = parse({"-np", "2", "--", "-weird-name", "x"});
  EXPECT_EQ(P.Launch.Program, (Words{"-weird-name", "x"}));
}

TEST(ProbeParser, OwnOptionsAndErrors) {
  ProbeCommandLine P = parse({"--max-size=4096", "--verbose", "-o", "f", "a"});
  ASSERT_EQ(P.Options.size(), 3u);
  EXPECT_EQ(P.Options[0], (std::pair<std::string, std::string>{"--max-size", "4096"}));
  EXPECT_EQ(P.Options[1], (std::pair<std::string, std::string>{"--verbose", ""}));
  EXPECT_EQ(parseError({"-np", "2"}), "no program given");
  EXPECT_NE(parseError({"-o"}), "");
  EXPECT_EQ(parse({"--help"}, true).Help, true);
}

TEST(ProbeParser, WithoutProgram) {
  // probe-comm: no program; an unknown launcher option keeps its value, a stray word is an error.
  ProbeCommandLine P = parse({"-o", "n.yaml", "--some-opt", "v", "--report-bindings"}, false);
  EXPECT_TRUE(P.Launch.Program.empty());
  EXPECT_EQ(P.Launch.LauncherArgs, (Words{"--some-opt", "v", "--report-bindings"}));
  EXPECT_EQ(parseError({"-o", "n.yaml", "stray"}, false), "unexpected argument 'stray'");
}

TEST(LeanPml, AddedForOpenMpiAndForwardingLaunchers) {
  LaunchSpec S;
  S.Launcher = "mpirun.openmpi";
  S.Program = {"./app.timing"};
  EXPECT_TRUE(preferLeanPml(S, nullptr));
  EXPECT_EQ(S.Env, (std::vector<std::pair<std::string, std::string>>{{"OMPI_MCA_pml", "ob1"}}));
  EXPECT_FALSE(preferLeanPml(S, nullptr)) << "added once";
  EXPECT_EQ(S.Env.size(), 1u);
  LaunchSpec Srun;
  Srun.Launcher = "srun";
  EXPECT_TRUE(preferLeanPml(Srun, nullptr)); // srun forwards the environment to Open MPI ranks
}

TEST(LeanPml, TheUsersChoiceWins) {
  LaunchSpec S;
  S.Launcher = "mpirun.openmpi";
  EXPECT_FALSE(preferLeanPml(S, "ucx"));
  S.LauncherArgs = {"--mca", "pml", "ucx"};
  EXPECT_FALSE(preferLeanPml(S, nullptr));
  S.LauncherArgs = {"-x", "OMPI_MCA_pml=cm"};
  EXPECT_FALSE(preferLeanPml(S, nullptr));
  S.LauncherArgs = {"--mca", "btl", "self,tcp"}; // another component: ob1 still named
  EXPECT_TRUE(preferLeanPml(S, nullptr));
  EXPECT_TRUE(S.Env.size() == 1 && S.Env[0].first == "OMPI_MCA_pml");
}

TEST(LeanPml, NotForHydra) {
  LaunchSpec S;
  S.Launcher = "mpiexec.hydra";
  EXPECT_FALSE(preferLeanPml(S, nullptr));
  EXPECT_TRUE(S.Env.empty());
}

TEST(HurryFailedJobs, SetOnceAndTheUsersValueWins) {
  const char *Name = "OMPI_MCA_odls_base_sigkill_timeout";
  unsetenv(Name);
  unsetenv("PRTE_MCA_odls_base_sigkill_timeout");
  EXPECT_TRUE(hurryFailedJobs());
  EXPECT_STREQ(std::getenv(Name), "0");
  EXPECT_FALSE(hurryFailedJobs()) << "already set";
  setenv(Name, "5", 1);
  unsetenv("PRTE_MCA_odls_base_sigkill_timeout");
  EXPECT_TRUE(hurryFailedJobs()); // the other launcher's name only
  EXPECT_STREQ(std::getenv(Name), "5");
  unsetenv(Name);
  unsetenv("PRTE_MCA_odls_base_sigkill_timeout");
}
