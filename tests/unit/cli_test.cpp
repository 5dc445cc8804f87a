// The gpucap command line: exit codes, messages, quiet mode, HDF5 output.
#include "support/same_bits.hpp"
#include "support/cli.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <sys/wait.h>

#include "gpucap/backend.hpp"
#include "gpucap/hdf5_results.hpp"

namespace {

namespace fs = std::filesystem;

using Outcome = gpucap::testing_support::CliOutcome;
using gpucap::testing_support::gpucap_cli;

const std::string kScenarios = std::string(GPUCAP_SOURCE_DIR) + "/scenarios/";

fs::path temp_dir() {
  const fs::path dir = fs::path(testing::TempDir()) / ("gpucap_cli_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir;
}

TEST(Cli, HelpAndInfoSucceed) {
  EXPECT_EQ(gpucap_cli("--help").exit_code, 0);
  const Outcome run_help = gpucap_cli("run --help");
  EXPECT_EQ(run_help.exit_code, 0);
  EXPECT_NE(run_help.output.find("--replications"), std::string::npos);
  const Outcome info = gpucap_cli("info");
  EXPECT_EQ(info.exit_code, 0);
  EXPECT_NE(info.output.find("cpu-"), std::string::npos);
}

TEST(Cli, UnknownCommandAndMissingArgumentAreUsageErrors) {
  EXPECT_EQ(gpucap_cli("frobnicate").exit_code, 2);
  const Outcome o = gpucap_cli("run");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.output.find("needs a SCENARIO.yaml"), std::string::npos);
}

TEST(Cli, EveryShippedScenarioValidates) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(kScenarios)) {
    if (entry.path().extension() != ".yaml") continue;
    const Outcome o = gpucap_cli("validate " + entry.path().string());
    EXPECT_EQ(o.exit_code, 0) << entry.path() << ": " << o.output;
    EXPECT_NE(o.output.find(": valid:"), std::string::npos) << o.output;
    ++count;
  }
  EXPECT_GE(count, 4);
}

TEST(Cli, InvalidScenarioExitsTwoWithLocation) {
  const fs::path bad = temp_dir() / "bad.yaml";
  std::ofstream(bad) << "name: x\nhorizon: 1d\npools:\n  p: {gpu: H100, price_usd_per_gpu_hour: 1, "
                        "quota: 8}\nworkloads:\n  - name: a\n    gpus: 16\n"
                        "    arrivals: {process: poisson, rate_per_s: 1}\n    work: 1h\n";
  const Outcome o = gpucap_cli("validate " + bad.string());
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.output.find(bad.string() + ":7:11: workloads[0].gpus: a job of 16 GPUs fits no pool"),
            std::string::npos)
      << o.output;
  // A file that cannot be read is an I/O failure (exit 1), with the system's reason.
  const Outcome missing = gpucap_cli("run /nonexistent/scenario.yaml");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.output,
            "gpucap: error: cannot read scenario file '/nonexistent/scenario.yaml': No such file "
            "or directory\n");
}

TEST(Cli, BadSetOverrideIsReported) {
  const Outcome o =
      gpucap_cli("validate " + kScenarios + "mmc_validation.yaml --set pools.gpus.quota=-1");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.output.find("(from --set pools.gpus.quota=-1)"), std::string::npos) << o.output;
}

TEST(Cli, QuietRunPrintsNothingAndWritesReadableResults) {
  const fs::path out = temp_dir() / "results.h5";
  const Outcome o = gpucap_cli("run " + kScenarios + "mmc_validation.yaml -r 6 --seed 3 -q -o " +
                               out.string() + " --set horizon=100h --set warmup=0s");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_EQ(o.output, "");  // quiet: no table; piped: no progress bar
  const gpucap::RunResults r = gpucap::read_results_hdf5(out.string());
  EXPECT_EQ(r.replications, 6u);
  EXPECT_EQ(r.seed, 3u);
  ASSERT_EQ(r.pool_names.size(), 1u);
  EXPECT_EQ(r.pool_names[0], "gpus");
  EXPECT_NE(r.scenario_text.find("--set horizon=100h"), std::string::npos);
  for (size_t i = 0; i < r.replications; ++i) EXPECT_GT(r.scalar(0, i, gpucap::kJobsArrived), 0);
}

TEST(Cli, TableHasUnitsAndSameSeedGivesSameOutput) {
  const std::string args =
      "run " + kScenarios + "mmc_validation.yaml -r 4 --set horizon=100h --backend cpu";
  const Outcome a = gpucap_cli(args + " -t 1"), b = gpucap_cli(args + " -t 2");
  ASSERT_EQ(a.exit_code, 0);
  EXPECT_NE(a.output.find("wait_mean                s"), std::string::npos) << a.output;
  EXPECT_NE(a.output.find("cost                     USD"), std::string::npos);
  // Everything from the table on is identical; only the header line's timing may differ.
  auto table = [](const std::string& s) {
    const auto from = s.find("metric"), to = s.find("events/s");
    return s.substr(from, s.rfind('\n', to) - from);
  };
  EXPECT_EQ(table(a.output), table(b.output));
}

TEST(Cli, InfoSaysWhichBackendsAreBuiltAndWhereAutoRuns) {
  const Outcome info = gpucap_cli("info");
  ASSERT_EQ(info.exit_code, 0);
  // Every row of the backend table, in its order, the cpu with its label and its threads.
  std::size_t at = 0;
  for (const gpucap::Backend& b : gpucap::backends()) {
    const std::size_t line = info.output.find(std::string("\n  ") + b.name, at);
    ASSERT_NE(line, std::string::npos) << b.name << " missing or out of order:\n" << info.output;
    at = line + 1;
  }
  EXPECT_NE(info.output.find("  cpu (" + gpucap::cpu_backend_name() + "): built for "),
            std::string::npos)
      << info.output;
  EXPECT_NE(info.output.find(", " + std::to_string(gpucap::resolve_thread_count(0)) + " threads"),
            std::string::npos)
      << info.output;
  EXPECT_NE(info.output.find(std::string("--backend auto runs on: ") +
                             gpucap::resolve_backend(gpucap::BackendChoice::automatic).name),
            std::string::npos)
      << info.output;
  const gpucap::Backend& cuda = *gpucap::find_backend("cuda");
  if (!cuda.built()) {
    EXPECT_NE(info.output.find(std::string("  cuda: not built (") + cuda.not_built + ")"),
              std::string::npos)
        << info.output;
  } else if (!cuda.probe().usable()) {
    EXPECT_NE(info.output.find("unavailable: " + cuda.probe().why_none), std::string::npos);
  } else {
    EXPECT_NE(info.output.find("compute capability"), std::string::npos) << info.output;
  }
}

TEST(Cli, UnknownBackendIsAUsageError) {
  const Outcome o = gpucap_cli("run " + kScenarios + "mmc_validation.yaml -r 2 --backend tpu");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.output.find("--backend: unknown backend 'tpu'; valid: auto, cpu, cuda, thrust-omp"),
            std::string::npos)
      << o.output;
}

TEST(Cli, CudaWithoutAUsableDeviceIsAOneLineError) {
  const gpucap::Backend& cuda = *gpucap::find_backend("cuda");
  const Outcome o = gpucap_cli("run " + kScenarios +
                               "mmc_validation.yaml -r 2 -q --backend cuda "
                               "--set horizon=50h --set warmup=0s");
  if (cuda.built() && cuda.probe().usable()) {
    EXPECT_EQ(o.exit_code, 0) << o.output;  // this machine has a GPU: the run works
    return;
  }
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.output.rfind("gpucap: error: backend cuda: ", 0), 0u) << o.output;
  EXPECT_EQ(std::count(o.output.begin(), o.output.end(), '\n'), 1) << o.output;
}

TEST(Cli, ThrustOmpBackendWritesTheCpuResults) {
  if (!gpucap::find_backend("thrust-omp")->built())
    GTEST_SKIP() << "this build has no thrust-omp backend";
  const fs::path cpu = temp_dir() / "cpu.h5", omp = temp_dir() / "omp.h5";
  const std::string args = "run " + kScenarios + "default.yaml -r 40 -q --set horizon=10d ";
  ASSERT_EQ(gpucap_cli(args + "--backend cpu -o " + cpu.string()).exit_code, 0);
  ASSERT_EQ(gpucap_cli(args + "--backend thrust-omp -o " + omp.string()).exit_code, 0);
  const gpucap::RunResults a = gpucap::read_results_hdf5(cpu.string());
  const gpucap::RunResults b = gpucap::read_results_hdf5(omp.string());
  EXPECT_EQ(b.backend, "thrust-omp");
  EXPECT_TRUE(gpucap::testing_support::same_bits(a.scalars, b.scalars));
  EXPECT_TRUE(gpucap::testing_support::same_bits(a.pool_values, b.pool_values));
  ASSERT_EQ(a.summary.size(), b.summary.size());
  for (std::size_t m = 0; m < a.summary.size(); ++m) {
    EXPECT_TRUE(gpucap::testing_support::same_bits(a.summary[m].mean, b.summary[m].mean)) << m;
    EXPECT_TRUE(gpucap::testing_support::same_bits(a.summary[m].std, b.summary[m].std)) << m;
    EXPECT_EQ(a.summary[m].n, b.summary[m].n) << m;
  }
}

TEST(Cli, VerboseSaysWhichBackendRanAndWhyAndResultsRecordIt) {
  const fs::path out = temp_dir() / "auto.h5";
  const std::string args = "run " + kScenarios + "mmc_validation.yaml -r 8 -q -v --set horizon=50h --set warmup=0s ";
  const Outcome automatic = gpucap_cli(args + "--force -o " + out.string());
  ASSERT_EQ(automatic.exit_code, 0) << automatic.output;
  const gpucap::RunResults r = gpucap::read_results_hdf5(out.string());
  const gpucap::Backend& device = gpucap::resolve_backend(gpucap::BackendChoice::automatic);
  if (device.kind == gpucap::BackendKind::cpu) {
    // No usable GPU: the cpu, with the model's time on this machine's threads and why.
    EXPECT_NE(automatic.output.find("gpucap: backend " + gpucap::cpu_backend_name() +
                                    " (host, "),
              std::string::npos)
        << automatic.output;
    EXPECT_NE(automatic.output.find("): --backend auto chose cpu: expected "), std::string::npos)
        << automatic.output;
    EXPECT_EQ(r.backend_choice.rfind("cpu: expected ", 0), 0u) << r.backend_choice;
  }
  EXPECT_NE(automatic.output.find(r.backend_choice), std::string::npos);  // the same line
  const Outcome named = gpucap_cli(args + "--backend cpu");
  EXPECT_NE(named.output.find("): named by --backend\n"), std::string::npos) << named.output;
  // Without -v, nothing.
  EXPECT_EQ(gpucap_cli("run " + kScenarios + "mmc_validation.yaml -r 8 -q --set horizon=50h --set warmup=0s")
                .output,
            "");
}

TEST(Cli, HostThreadsJoinADeviceBackendOnly) {
  const std::string args = "run " + kScenarios + "default.yaml -r 40 -q --set horizon=10d ";
  const Outcome on_cpu = gpucap_cli(args + "--backend cpu --host-threads 2");
  EXPECT_EQ(on_cpu.exit_code, 2) << on_cpu.output;
  EXPECT_NE(on_cpu.output.find("host threads join the devices of a device backend"),
            std::string::npos)
      << on_cpu.output;
  const Outcome too_many = gpucap_cli(args + "--backend cpu --host-threads 5000");
  EXPECT_EQ(too_many.exit_code, 2) << too_many.output;
  EXPECT_NE(too_many.output.find("--host-threads"), std::string::npos) << too_many.output;
  if (!gpucap::find_backend("thrust-omp")->built())
    GTEST_SKIP() << "this build has no thrust-omp backend";
  const fs::path cpu = temp_dir() / "cpu_h.h5", both = temp_dir() / "both_h.h5";
  ASSERT_EQ(gpucap_cli(args + "--backend cpu --force -o " + cpu.string()).exit_code, 0);
  const Outcome together =
      gpucap_cli(args + "--backend thrust-omp --host-threads 1 --force -o " + both.string());
  ASSERT_EQ(together.exit_code, 0) << together.output;
  const gpucap::RunResults a = gpucap::read_results_hdf5(cpu.string());
  const gpucap::RunResults b = gpucap::read_results_hdf5(both.string());
  EXPECT_NE(b.device.find(" + host, 1 threads"), std::string::npos) << b.device;
  EXPECT_TRUE(gpucap::testing_support::same_bits(a.scalars, b.scalars));
  for (std::size_t m = 0; m < a.summary.size(); ++m)
    EXPECT_TRUE(gpucap::testing_support::same_bits(a.summary[m].mean, b.summary[m].mean)) << m;
}

TEST(Cli, ValidateGivesTheWorkAndWhereAutoWouldRunIt) {
  const Outcome o = gpucap_cli("validate " + kScenarios + "spot_inference_fallback.yaml");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  // 3 days of requests: about 1.34 M events per replication (event_estimate.hpp).
  EXPECT_NE(o.output.find("work: about 1.34e+06 events per replication (horizon 259200 s, "
                          "warm-up 86400 s); --backend auto for "),
            std::string::npos)
      << o.output;
}

TEST(Cli, UnsetDeletesAKeySoThatAnotherFormCanReplaceIt) {
  const std::string edge = kScenarios + "edge_vs_cloud_inference.yaml";
  const std::string autoscaling =
      "'workloads.ranker.autoscaling={min_replicas: 1, max_replicas: 4, idle_timeout: 5min}'";
  EXPECT_EQ(gpucap_cli("validate " + edge + " --set " + autoscaling).exit_code, 2);
  const Outcome o =
      gpucap_cli("validate " + edge + " --unset workloads.ranker.replicas --set " + autoscaling);
  EXPECT_EQ(o.exit_code, 0) << o.output;
  const Outcome bad = gpucap_cli("validate " + edge + " --unset workloads.ranker.replicas=4");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("--unset takes a dotted path without a value"), std::string::npos)
      << bad.output;
}

}  // namespace
