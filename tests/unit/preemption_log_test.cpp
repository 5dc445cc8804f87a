// Preemption logs as samples of time_to_preemption ({dist: empirical, preemption_log: ...}),
// and what an availability trace shows after its end (`after_end`).
#include <filesystem>
#include <gtest/gtest.h>
#include <numeric>
#include <string>
#include <vector>

#include "gpucap/compile.hpp"
#include "gpucap/metrics.hpp"
#include "support/one_replication.hpp"
#include "support/scenario_fixture.hpp"

namespace gpucap {
namespace {

using testing_support::run_once;

class PreemptionLog : public testing_support::ScenarioFixture {
 protected:
  /// A spot pool whose time to preemption is `dist`, and one 60 s job.
  std::string spot(const std::string& dist) {
    return "name: t\nhorizon: 1d\npools:\n  s:\n    gpu: H100\n    purchase: spot\n"
           "    price_usd_per_gpu_hour: 1\n    quota: 1\n    preemption:\n"
           "      time_to_preemption: " + dist + "\n"
           "workloads:\n  - {name: w, arrivals: {process: poisson, rate_per_day: 1}, work: 60s, "
           "placement: [s]}\n";
  }
  /// The samples the pool's time_to_preemption draws from.
  std::vector<double> samples(const std::string& dist) {
    const ModelStorage storage = compile(parse(spot(dist)));
    const CompiledModel& m = storage.model();
    const Distribution& d = m.pools[0].time_to_preemption_s;
    EXPECT_EQ(d.kind, DistKind::empirical);
    return std::vector<double>(m.table + d.table_offset, m.table + d.table_offset + d.table_count);
  }
};

TEST_F(PreemptionLog, RunningPeriodsAreTheSamplesAndCutOnesAreKeptOrDropped) {
  // Steps of 10 s: running 2 (cut by the start), preempted 2, running 3, preempted 1, running 1
  // (cut by the end): lifetimes 20 s (partial), 30 s, 10 s (partial).
  write("log.json", R"({"metadata": {"gap_seconds": 10, "zone": "x"}, "data": [1,1,0,0,1,1,1,0,1]})");
  EXPECT_EQ(samples("{dist: empirical, preemption_log: log.json}"),
            (std::vector<double>{20, 30, 10}));
  EXPECT_EQ(samples("{dist: empirical, preemption_log: log.json, partial: drop}"),
            (std::vector<double>{30}));
  // Counts above 1 are running too (an instance count of a one-node log), and `scale` applies.
  write("log2.json", R"({"metadata": {"gap_seconds": 32}, "data": [0,2,1,0,0,1,0]})");
  EXPECT_EQ(samples("{dist: empirical, preemption_log: log2.json, scale: 2}"),
            (std::vector<double>{128, 64}));
}

TEST_F(PreemptionLog, CsvLogsNameTheirColumnAndStep) {
  write("log.csv", "t,running\n0,0\n1,1\n2,1\n3,0\n4,1\n5,0\n");
  EXPECT_EQ(samples("{dist: empirical, preemption_log: log.csv, column: running, step: 1min}"),
            (std::vector<double>{120, 60}));
}

TEST_F(PreemptionLog, BadLogsAreRefusedWithTheReason) {
  write("none.json", R"({"metadata": {"gap_seconds": 10}, "data": [0,0,0]})");
  write("cut.json", R"({"metadata": {"gap_seconds": 10}, "data": [1,1,0]})");
  write("log.csv", "running\n1\n0\n");
  write("bad.json", R"({"metadata": {"gap_seconds": 10}, "data": [1,"up",0]})");
  const auto error = [&](const std::string& dist) { return error_of(spot(dist)); };
  EXPECT_NE(error("{dist: empirical, preemption_log: none.json}").find("no running period"),
            std::string::npos);
  EXPECT_NE(error("{dist: empirical, preemption_log: cut.json, partial: drop}")
                .find("no complete running period"),
            std::string::npos);
  EXPECT_EQ(error("{dist: empirical, preemption_log: cut.json}"), "no error");
  EXPECT_NE(error("{dist: empirical, preemption_log: cut.json, partial: maybe}").find("valid: keep, drop"),
            std::string::npos);
  EXPECT_NE(error("{dist: empirical, preemption_log: cut.json, step: 1s}").find("remove column and step"),
            std::string::npos);
  EXPECT_NE(error("{dist: empirical, preemption_log: log.csv, column: running}").find("step"),
            std::string::npos);
  EXPECT_NE(error("{dist: empirical, preemption_log: bad.json}").find("\"up\""), std::string::npos);
  EXPECT_NE(error("{dist: empirical, values: [1h], preemption_log: cut.json}")
                .find("one of values, file or preemption_log"),
            std::string::npos);
  EXPECT_NE(error("{dist: empirical, values: [1h], step: 1s}").find("only applies with preemption_log"),
            std::string::npos);
  EXPECT_NE(error("{dist: empirical, preemption_log: missing.json}").find("missing.json"),
            std::string::npos);
}

TEST_F(PreemptionLog, TheSharedAwsLogGivesSixtyLifetimes) {
  const std::filesystem::path log = std::filesystem::path(GPUCAP_SOURCE_DIR) / ".." / "shared" /
                                    "data" / "spot" /
                                    "aws-2023-04-22_us-east-1f_v100_1node_preemption.json";
  if (!std::filesystem::exists(log)) GTEST_SKIP() << "absent: " << log;
  const std::vector<double> s =
      samples("{dist: empirical, preemption_log: " + std::filesystem::canonical(log).string() + "}");
  // 19,961 states of 32 s, starting and ending preempted: 60 running periods, 11,817 running
  // steps in all (counted independently with Python's itertools.groupby).
  EXPECT_EQ(s.size(), 60u);
  EXPECT_EQ(std::accumulate(s.begin(), s.end(), 0.0), 378144.0);
}

class AfterEnd : public testing_support::ScenarioFixture {
 protected:
  /// A 1-GPU spot pool whose availability trace is one instance for one hour, then `after_end`;
  /// one job of 5 h at t = 0 without checkpoints.
  testing_support::Row run_with(const std::string& after_end) {
    write("trace.csv", "available\n1\n");
    return run_once(parse(
        "name: t\nhorizon: 1d\npools:\n  s:\n    gpu: H100\n    purchase: spot\n"
        "    price_usd_per_gpu_hour: 1\n    quota: 1\n"
        "    availability: {file: trace.csv, step: 1h" + after_end + "}\n"
        "workloads:\n  - name: w\n    arrivals: {process: trace, file: job.csv}\n"
        "    placement: [s]\n"));
  }
  void SetUp() override {
    ScenarioFixture::SetUp();
    write("job.csv", "submit_s,gpus,duration_s\n0,1,18000\n");
  }
};

TEST_F(AfterEnd, RepeatAndLastKeepTheInstanceUnavailableTakesItAway) {
  for (const std::string& keys : {std::string(""), std::string(", after_end: repeat"),
                                  std::string(", after_end: last")}) {
    const testing_support::Row r = run_with(keys);
    EXPECT_EQ(r[kJobsCompleted], 1) << keys;
    EXPECT_EQ(r[kPreemptions], 0) << keys;
    EXPECT_EQ(r[kCompletionMeanS], 18000) << keys;
  }
  // After 1 h the trace shows no instance: the job is reclaimed at 3600 s and never resumes.
  const testing_support::Row r = run_with(", after_end: unavailable");
  EXPECT_EQ(r[kJobsCompleted], 0);
  EXPECT_EQ(r[kPreemptions], 1);
  EXPECT_EQ(r[kGpuHoursLost], 1.0);
}

TEST_F(AfterEnd, UnknownValueIsRefused) {
  write("trace.csv", "available\n1\n");
  const std::string e = error_of(
      "name: t\nhorizon: 1d\npools:\n  s: {gpu: H100, purchase: spot, price_usd_per_gpu_hour: 1, "
      "quota: 1, availability: {file: trace.csv, step: 1h, after_end: loop}}\n"
      "workloads:\n  - {name: w, arrivals: {process: poisson, rate_per_day: 1}, work: 1h, "
      "placement: [s]}\n");
  EXPECT_NE(e.find("valid: repeat, unavailable, last"), std::string::npos) << e;
}

}  // namespace
}  // namespace gpucap
