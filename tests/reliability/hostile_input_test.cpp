// Reliability: hostile and careless inputs get a clear message and the documented exit code,
// never a crash, a hang, unbounded memory or a silently wrong result.
//   exit 1: a file cannot be read (missing, a directory, a device, a FIFO, over its size limit)
//   exit 2: bad usage (counts, seeds, sizes out of range; a run that does not fit in memory;
//           a grid naming a path twice) or an invalid scenario
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "gpucap/hdf5_results.hpp"
#include "gpucap/input_file.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"

#include "support/process.hpp"
#include "support/scratch_dir.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GPUCAP_SHADOW_MEMORY 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define GPUCAP_SHADOW_MEMORY 1
#endif
#endif
#ifndef GPUCAP_SHADOW_MEMORY
#define GPUCAP_SHADOW_MEMORY 0
#endif

namespace gpucap {
namespace {

namespace fs = std::filesystem;
using testing_support::ProcessOutcome;
using testing_support::run_gpucap;

const std::string kScenarios = std::string(GPUCAP_SOURCE_DIR) + "/scenarios/";
const std::string kMmc = kScenarios + "mmc_validation.yaml";

/// Equal bit for bit (NaN included).
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

using testing_support::read_all;

class HostileInput : public testing_support::ScratchDirTest {
 protected:
  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return dir_ / name;
  }
  /// Every outcome: no crash, no hang, one error prefix, a message of sane length.
  static void expect_clean(const ProcessOutcome& o) {
    EXPECT_FALSE(o.timed_out) << o.output;
    EXPECT_EQ(o.term_signal, 0) << o.output;
    EXPECT_EQ(o.output.find("gpucap: error: gpucap"), std::string::npos) << o.output;
    EXPECT_LT(o.output.size(), 4000u) << "message not truncated";
  }
};

/// A small valid scenario; `trace` replaces the arrivals by a trace file when not empty.
std::string scenario_text(const std::string& trace = "", const std::string& horizon = "100h") {
  std::string arrivals = "{process: poisson, rate_per_hour: 4}";
  if (!trace.empty()) arrivals = "{process: trace, file: " + trace + "}";
  return "name: hostile\nhorizon: " + horizon +
         "\nseed: 5\npools:\n  gpus: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 8}\n"
         "workloads:\n  - name: jobs\n    arrivals: " +
         arrivals + "\n" + (trace.empty() ? "    work: {dist: exponential, mean: 1h}\n" : "");
}

TEST_F(HostileInput, FilesThatAreNotRegularFilesAreRefusedWithoutReading) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo.yaml").c_str(), 0600), 0);  // no writer: reading would hang
  struct Case {
    std::string path, message;
  };
  std::vector<Case> cases{
      {dir_.string(), "scenario file '" + dir_.string() + "' is a directory, not a regular file"},
      {(dir_ / "fifo.yaml").string(), "scenario file '" + (dir_ / "fifo.yaml").string() +
                                          "' is a FIFO (named pipe), not a "
                                          "regular file"},
      {(dir_ / "missing.yaml").string(), "cannot read scenario file '" +
                                             (dir_ / "missing.yaml").string() +
                                             "': No such file or directory"}};
  if (fs::exists("/dev/zero"))
    cases.push_back({"/dev/zero",
                     "scenario file '/dev/zero' is a character device, not a "
                     "regular file"});
  for (const Case& c : cases) {
    for (const std::vector<std::string>& args : {std::vector<std::string>{"validate", c.path},
                                                 std::vector<std::string>{"run", c.path, "-q"}}) {
      const ProcessOutcome o = run_gpucap(args, {}, std::chrono::seconds(20));
      expect_clean(o);
      EXPECT_EQ(o.exit_code, 1) << o.output;
      EXPECT_EQ(o.output, "gpucap: error: " + c.message + "\n");
    }
  }
}

TEST_F(HostileInput, DataFilesThatAreNotRegularFilesAreRefused) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo.csv").c_str(), 0600), 0);
  for (const std::string& data : {std::string("/dev/zero"), (dir_ / "fifo.csv").string(),
                                  dir_.string(), (dir_ / "nothere.csv").string()}) {
    if (!fs::exists(fs::symlink_status(data)) && data.find("nothere") == std::string::npos)
      continue;
    const fs::path s = write("s.yaml", scenario_text(data));
    const ProcessOutcome o = run_gpucap({"validate", s.string()}, {}, std::chrono::seconds(20));
    expect_clean(o);
    EXPECT_EQ(o.exit_code, 1) << o.output;
    EXPECT_NE(o.output.find("s.yaml:8:"), std::string::npos)
        << "names the key's place: " << o.output;
    EXPECT_NE(o.output.find("workloads[0].arrivals.file: "), std::string::npos) << o.output;
  }
}

TEST_F(HostileInput, UnreadableFilesGiveTheSystemsReason) {
  const fs::path s = write("s.yaml", scenario_text());
  fs::permissions(s, fs::perms::none);
  // Root reads files whatever their permissions: then gpucap runs as "nobody" (65534).
  testing_support::ChildProcess child({GPUCAP_BINARY, "validate", s.string()}, {},
                                      ::geteuid() == 0 ? 65534 : 0);
  const ProcessOutcome o = child.wait();
  if (o.exit_code == 126 || o.exit_code == 127)
    GTEST_SKIP() << "cannot run gpucap as another user here: " << o.output;
  EXPECT_EQ(o.exit_code, 1) << o.output;
  EXPECT_EQ(o.output,
            "gpucap: error: cannot read scenario file '" + s.string() + "': Permission denied\n");
}

TEST_F(HostileInput, FilesOverTheirSizeLimitAreRefusedAndTheLimitCanBeRaised) {
  // 2 MiB of comments and a valid scenario: over the 1 MiB default.
  std::string big = scenario_text();
  big += std::string((2 << 20) - big.size() - 1, '#') + "\n";
  const fs::path s = write("big.yaml", big);
  const ProcessOutcome refused = run_gpucap({"validate", s.string()});
  expect_clean(refused);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(refused.output, "gpucap: error: scenario file '" + s.string() +
                                "' is 2 MiB, over the limit of 1 MiB (raise it with "
                                "--max-scenario-size)\n");
  const ProcessOutcome raised = run_gpucap({"validate", s.string(), "--max-scenario-size", "3MiB"});
  EXPECT_EQ(raised.exit_code, 0) << raised.output;

  write("trace.csv", "submit_s,gpus,duration_s\n0,1,3600\n10,1,3600\n");
  const fs::path t = write("t.yaml", scenario_text("trace.csv"));
  const ProcessOutcome small = run_gpucap({"validate", t.string(), "--max-data-size", "16"});
  EXPECT_EQ(small.exit_code, 1);
  EXPECT_NE(small.output.find("data file '" + (dir_ / "trace.csv").string() +
                              "' is 44 bytes, over the limit of 16 bytes (raise it with "
                              "--max-data-size)"),
            std::string::npos)
      << small.output;
  for (const char* bad : {"0", "-1", "12XB", "abc", "1e30GiB", ""}) {
    const ProcessOutcome o = run_gpucap({"validate", t.string(), "--max-data-size", bad});
    expect_clean(o);
    EXPECT_EQ(o.exit_code, 2) << bad << ": " << o.output;
    EXPECT_NE(o.output.find("--max-data-size: "), std::string::npos) << o.output;
  }
}

TEST_F(HostileInput, HugeValuesAreQuotedAsExcerpts) {
  const std::string base = scenario_text();
  const std::vector<std::string> hostile{
      std::string(base).replace(base.find("quota: 8"), 8, "quota: " + std::string(1 << 19, '9')),
      std::string(base).replace(base.find("mean: 1h"), 8, "mean: 1" + std::string(1 << 19, 'h')),
      std::string(base).replace(base.find("gpu: H100"), 9,
                                "gpu: H100, purchase: \"" + std::string(1 << 19, 'x') + "\""),
      std::string(base).replace(
          base.find("name: jobs"), 10,
          "name: jobs\n    placement: [\"" + std::string(1 << 19, 'p') + "\"]")};
  for (const std::string& text : hostile) {
    const fs::path s = write("h.yaml", text);
    const ProcessOutcome o = run_gpucap({"validate", s.string()});
    expect_clean(o);
    EXPECT_EQ(o.exit_code, 2) << o.output.substr(0, 300);
    EXPECT_NE(o.output.find(" bytes in all)"), std::string::npos) << o.output.substr(0, 300);
  }
  // Control characters in a quoted value cannot forge extra lines.
  const fs::path s = write(
      "c.yaml", std::string(base).replace(base.find("gpu: H100"), 9,
                                          "gpu: H100, purchase: \"spot\\ngpucap: fake line\""));
  const ProcessOutcome o = run_gpucap({"validate", s.string()});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.output.find("\\ngpucap: fake line"), std::string::npos) << o.output;
  EXPECT_EQ(std::count(o.output.begin(), o.output.end(), '\n'), 1) << o.output;
}

TEST_F(HostileInput, OldMacLineEndingsReadLikeUnixOnes) {
  std::string cr = scenario_text();
  for (char& c : cr)
    if (c == '\n') c = '\r';
  const fs::path unix_file = write("lf.yaml", scenario_text());
  const fs::path mac_file = write("cr.yaml", cr);
  std::string crlf;
  for (char c : scenario_text()) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  const fs::path dos_file = write("crlf.yaml", crlf);
  RunOptions options;
  options.replications = 20;
  const RunResults lf = run(load_scenario(unix_file.string()), options);
  for (const fs::path& other : {mac_file, dos_file}) {
    const RunResults r = run(load_scenario(other.string()), options);
    EXPECT_TRUE(same_bits(r.scalars, lf.scalars)) << other;
  }
  // CR-only data files too.
  std::string trace = "submit_s,gpus,duration_s\r0,1,3600\r600,2,1800\r";
  write("cr.csv", trace);
  const Scenario with_trace = load_scenario(write("t.yaml", scenario_text("cr.csv")).string());
  ASSERT_EQ(with_trace.workloads[0].arrivals.trace.size(), 2u);
  EXPECT_EQ(with_trace.workloads[0].arrivals.trace[1].gpus, 2u);
}

TEST_F(HostileInput, CountsSeedsAndThreadsOutOfRangeAreUsageErrors) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases{
      {{"-r", "-1"}, "--replications must be a whole number from 1 to 1000000000, got \"-1\""},
      {{"-r", "0"}, "--replications must be a whole number from 1 to 1000000000, got 0"},
      {{"-r", "1000000001"},
       "--replications must be a whole number from 1 to 1000000000, got "
       "1000000001"},
      {{"-r", "1.5"}, "got \"1.5\""},
      {{"-r", "99999999999999999999999"}, "got \"99999999999999999999999\""},
      {{"-r", "ten"}, "got \"ten\""},
      {{"--threads", "65535"}, "--threads must be a whole number from 0 to 1024, got 65535"},
      {{"--threads", "-1"}, "--threads must be a whole number from 0 to 1024, got \"-1\""},
      {{"--seed", "-1"}, "--seed: \"-1\" is not a whole number from 0 to 18446744073709551615"},
      {{"--seed", "18446744073709551616"}, "--seed: \"18446744073709551616\" is not"},
      {{"--seed", "1e3"}, "--seed: \"1e3\" is not"},
      {{"--force"}, "--force only applies with -o"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args{"run", kMmc, "-q"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const ProcessOutcome o = run_gpucap(args);
    expect_clean(o);
    EXPECT_EQ(o.exit_code, 2) << c.args[0] << ": " << o.output;
    EXPECT_NE(o.output.find(c.message), std::string::npos) << o.output;
  }
  // The largest seed is valid, and kept exactly.
  const ProcessOutcome top = run_gpucap({"run", kMmc, "-r", "2", "--seed", "18446744073709551615",
                                         "--set", "horizon=10h", "--set", "warmup=0s"});
  EXPECT_EQ(top.exit_code, 0) << top.output;
  EXPECT_NE(top.output.find("seed 18446744073709551615"), std::string::npos) << top.output;
}

// 1024 threads (inside the documented range) where the address space is capped, as in a
// memory-capped container: OpenMP ended the process ("Thread creation failed"); now a clean
// error that says how many threads to ask for, and the same run with fewer threads works.
TEST_F(HostileInput, ThreadsTheSystemRefusesAreAnErrorNotACrash) {
#if GPUCAP_SHADOW_MEMORY
  GTEST_SKIP() << "a sanitizer's shadow memory does not fit a 4 GB address space";
#endif
  const std::string command = "ulimit -v 4000000; exec " + std::string(GPUCAP_BINARY) + " run " +
                              kMmc + " -r 64 -q --set horizon=10h --set warmup=0s --threads ";
  const ProcessOutcome many = testing_support::run_program({"/bin/sh", "-c", command + "1024"});
  expect_clean(many);
  EXPECT_EQ(many.exit_code, 1) << many.output;
  EXPECT_NE(many.output.find("gpucap: error: cannot run 1024 threads: the system refused thread "),
            std::string::npos)
      << many.output;
  EXPECT_NE(many.output.find("ask for at most "), std::string::npos) << many.output;
  const ProcessOutcome few = testing_support::run_program({"/bin/sh", "-c", command + "16"});
  EXPECT_EQ(few.exit_code, 0) << few.output;
}

// A stopping rule on a metric no replication defines (wait_mean where only deployments run)
// ran all 1,000,000 replications, then said "NOT reached (worst inf)"; now refused after the
// first batch, naming the metric and what it needs.
TEST_F(HostileInput, APrecisionOnAnUndefinedMetricIsRefused) {
  const fs::path s = write("fleet.yaml",
                           "name: fleet\nhorizon: 2d\nseed: 1\npools:\n"
                           "  od: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 4}\n"
                           "workloads:\n  - name: f\n    kind: deployment\n    gpus: 1\n"
                           "    arrivals: {process: poisson, rate_per_hour: 1}\n"
                           "    lifetime: {dist: exponential, mean: 3h}\n");
  const ProcessOutcome o = run_gpucap(
      {"run", s.string(), "-q", "--precision", "0.01", "--metrics", "wait_mean"}, {},
      std::chrono::seconds(60));
  expect_clean(o);
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_NE(o.output.find("the precision metric wait_mean is not defined in any of the 1024 "
                          "replications of the run (it needs: a job of the window launched)"),
            std::string::npos)
      << o.output;
  // A metric the scenario defines reaches its precision as before.
  const ProcessOutcome ok = run_gpucap(
      {"run", s.string(), "-q", "--precision", "0.05", "--metrics", "instance_hours_demanded"});
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  // Deployments alone: the sweep table's default columns are theirs, not the jobs' waits (n/a
  // at every point).
  const ProcessOutcome sweep = run_gpucap({"sweep", s.string(), "-r", "50", "-g",
                                           "pools.od.quota=1,2,4"});
  EXPECT_EQ(sweep.exit_code, 0) << sweep.output;
  EXPECT_NE(sweep.output.find("unserved_fraction [fraction]"), std::string::npos) << sweep.output;
  EXPECT_NE(sweep.output.find("instances_served_mean [instances]"), std::string::npos)
      << sweep.output;
  EXPECT_EQ(sweep.output.find("wait_mean"), std::string::npos) << sweep.output;
}

// Instances alive at t = 0 beyond the quota wait in the default waiting room (10,000): those it
// cannot hold were dropped without the warning that dropped jobs get.
TEST_F(HostileInput, DroppedInstancesOfTheDefaultWaitingRoomAreWarnedOf) {
  std::string state = "remaining,gpus\n";
  for (int i = 0; i < 15000; ++i) state += ",1\n";
  write("state.csv", state);
  const fs::path s = write("fleet.yaml",
                           "name: fleet\nhorizon: 1d\nseed: 1\npools:\n"
                           "  od: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 100}\n"
                           "workloads:\n  - name: f\n    kind: deployment\n    gpus: 1\n"
                           "    arrivals: {process: poisson, rate_per_hour: 1}\n"
                           "    lifetime: {dist: exponential, mean: 10h}\n"
                           "    initial_state: {file: state.csv}\n");
  const ProcessOutcome o = run_gpucap({"run", s.string(), "-r", "4"});
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("deployment instances per replication were dropped because the waiting "
                          "room was full (default policy.queue_capacity = 10000"),
            std::string::npos)
      << o.output;
  const ProcessOutcome set = run_gpucap(
      {"run", s.string(), "-r", "4", "--set", "policy.queue_capacity=20000"});
  EXPECT_EQ(set.exit_code, 0) << set.output;
  EXPECT_EQ(set.output.find("were dropped"), std::string::npos) << set.output;
}

TEST_F(HostileInput, SeedsInTheScenarioMustFitExactly) {
  for (const char* seed : {"99999999999999999999", "-1", "1.5", "0x10", "[1]"}) {
    std::string text = scenario_text();
    text.replace(text.find("seed: 5"), 7, std::string("seed: ") + seed);
    const fs::path s = write("s.yaml", text);
    const ProcessOutcome o = run_gpucap({"validate", s.string()});
    EXPECT_EQ(o.exit_code, 2) << seed << ": " << o.output;
    EXPECT_NE(o.output.find(":3:7: seed: must be a whole number from 0 to 18446744073709551615"),
              std::string::npos)
        << o.output;
  }
  std::string text = scenario_text();
  text.replace(text.find("seed: 5"), 7, "seed: 18446744073709551615");
  EXPECT_EQ(load_scenario(write("s.yaml", text).string()).seed, 18446744073709551615ull);
}

TEST_F(HostileInput, RunsThatCannotFitInMemoryAreRefusedBeforeAllocating) {
  const ProcessOutcome huge = run_gpucap({"run", kMmc, "-r", "1000000000", "-q"});
  expect_clean(huge);
  EXPECT_EQ(huge.exit_code, 2) << huge.output;
  EXPECT_NE(huge.output.find("1000000000 replications need about "), std::string::npos)
      << huge.output;
  EXPECT_NE(huge.output.find("of memory available; keep fewer rows (--rows none or first N"),
            std::string::npos)
      << huge.output;
  // A stated limit makes the refusal independent of this machine: 30,000 rows of 50 values.
  const ProcessOutcome limited =
      run_gpucap({"run", kMmc, "-r", "30000", "-q"}, {"GPUCAP_MEMORY_LIMIT=1MiB"});
  EXPECT_EQ(limited.exit_code, 2) << limited.output;
  EXPECT_NE(limited.output.find("more than the 1 MiB of memory available"), std::string::npos)
      << limited.output;
  // validate prints the same estimate, and says that such a run would be refused.
  const ProcessOutcome validate =
      run_gpucap({"validate", kMmc, "--set", "replications=30000"}, {"GPUCAP_MEMORY_LIMIT=1MiB"});
  EXPECT_EQ(validate.exit_code, 0) << validate.output;
  EXPECT_NE(validate.output.find("memory for a run of 30000 replications on "), std::string::npos)
      << validate.output;
  EXPECT_NE(validate.output.find("available 1 MiB (more than available: such a run is refused"),
            std::string::npos)
      << validate.output;
  const ProcessOutcome malformed =
      run_gpucap({"run", kMmc, "-r", "3", "-q"}, {"GPUCAP_MEMORY_LIMIT=lots"});
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_NE(malformed.output.find("GPUCAP_MEMORY_LIMIT: "), std::string::npos) << malformed.output;
}

TEST_F(HostileInput, HorizonsBeyondAThousandYearsAreRefusedAndLongOnesRunSafely) {
  write("trace.csv", "submit_s,gpus,duration_s\n0,1,3600\n100,1,3600\n");
  // 2^53 s and more once read past the trace's end (a heap overflow); now refused.
  for (const auto& [horizon, limit] :
       std::vector<std::pair<std::string, std::string>>{{"9007199254740992s", "10000 years"},
                                                        {"1e300s", "10000 years"},
                                                        {"60000w", "1000 years"}}) {
    const fs::path s = write("s.yaml", scenario_text("trace.csv", horizon));
    const ProcessOutcome o = run_gpucap({"validate", s.string()});
    EXPECT_EQ(o.exit_code, 2) << horizon << ": " << o.output;
    EXPECT_NE(o.output.find("horizon: must be at most " + limit), std::string::npos) << o.output;
  }
  // 999 years with a two-row trace: both jobs run, nothing more arrives (run under ASan too).
  const Scenario s = load_scenario(write("s.yaml", scenario_text("trace.csv", "52000w")).string());
  RunOptions options;
  options.replications = 3;
  const RunResults r = run(s, options);
  for (std::size_t rep = 0; rep < 3; ++rep) {
    EXPECT_EQ(r.scalar(0, rep, kJobsArrived), 2.0);
    EXPECT_EQ(r.scalar(0, rep, kJobsCompleted), 2.0);
  }
}

TEST_F(HostileInput, ASweepNamingAPathTwiceIsRefused) {
  const ProcessOutcome o = run_gpucap({"sweep", kMmc, "--grid", "pools.gpus.quota=8,9", "--grid",
                                       "pools.gpus.quota=10", "-r", "2", "-q"});
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_NE(o.output.find("--grid names 'pools.gpus.quota' twice"), std::string::npos) << o.output;
  const ProcessOutcome long_value = run_gpucap(
      {"sweep", kMmc, "--grid", "horizon=" + std::string(20000, '1') + "x,2h", "-r", "2", "-q"});
  expect_clean(long_value);
  EXPECT_EQ(long_value.exit_code, 2) << long_value.output.substr(0, 300);
  EXPECT_NE(long_value.output.find(" bytes in all)"), std::string::npos) << long_value.output;
}

TEST_F(HostileInput, OneReplicationPrintsNoInterval) {
  const ProcessOutcome o =
      run_gpucap({"run", kMmc, "-r", "1", "--set", "horizon=50h", "--set", "warmup=0s"});
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("cost                     USD"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("  n/a  "), std::string::npos) << o.output;
  EXPECT_EQ(o.output.find("[24"), std::string::npos) << "no zero-width interval: " << o.output;
}

TEST_F(HostileInput, KeysCreatedByAnOverrideSaySo) {
  const ProcessOutcome pool = run_gpucap({"validate", kMmc, "--set", "pools.extra.gpu=H100"});
  EXPECT_EQ(pool.exit_code, 2) << pool.output;
  EXPECT_EQ(pool.output, "gpucap: invalid scenario: " + kMmc +
                             ": (created by --set pools.extra.gpu=H100): pools.extra.quota: is "
                             "required: the most GPUs held at once\n");
  const ProcessOutcome nested =
      run_gpucap({"validate", kMmc, "--set", "workloads.0.arrivals.profile.x=1"});
  EXPECT_EQ(nested.exit_code, 2) << nested.output;
  EXPECT_NE(nested.output.find("(created by --set workloads.0.arrivals.profile.x=1): "
                               "workloads[0].arrivals.profile: unknown key 'profile'"),
            std::string::npos)
      << nested.output;
}

TEST_F(HostileInput, TheStoredScenarioIsTheOneThatRan) {
  // Values with a newline, quotes and '#': stored as data and in escaped YAML.
  const std::vector<std::string> overrides{"description=\"line one\\nline two # not a comment\"",
                                           "name='it''s \"quoted\" # too'", "horizon=60h",
                                           "warmup=0s"};
  const Scenario s = load_scenario(kMmc, overrides);
  EXPECT_EQ(s.description, "line one\nline two # not a comment");
  RunOptions options;
  options.replications = 8;
  const RunResults r = run(s, options);
  const fs::path out = dir_ / "r.h5";
  write_results_hdf5(r, out.string());
  const RunResults stored = read_results_hdf5(out.string());
  ASSERT_EQ(stored.scenario_overrides.size(), overrides.size());
  for (std::size_t i = 0; i < overrides.size(); ++i)
    EXPECT_EQ(stored.scenario_overrides[i].first + "=" + stored.scenario_overrides[i].second,
              overrides[i]);
  EXPECT_EQ(stored.scenario_original_text, read_all(kMmc));
  // The stored text reloads to the same scenario: same name, description and results.
  const Scenario again = parse_scenario(stored.scenario_text, "stored", kScenarios);
  EXPECT_EQ(again.name, s.name);
  EXPECT_EQ(again.description, s.description);
  EXPECT_TRUE(same_bits(run(again, options).scalars, r.scalars));
  // And the original text with the stored overrides, too.
  std::vector<std::string> assignments;
  for (const auto& [path, value] : stored.scenario_overrides)
    assignments.push_back(path + "=" + value);
  EXPECT_TRUE(same_bits(
      run(parse_scenario(stored.scenario_original_text, "o", kScenarios, assignments), options)
          .scalars,
      r.scalars));
}

}  // namespace
}  // namespace gpucap
