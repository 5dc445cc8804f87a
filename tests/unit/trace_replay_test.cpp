// Trace replay (engine/trace_replay.hpp): a trace as logged, from a later start, thinned,
// superposed, and resampled by moving-block and stationary bootstraps; and the loader's rules
// for `start`, `scale_rate` and `resample`. The component is driven directly, so each job it
// replays (target time, row) is seen.
#include "gpucap/engine/trace_replay.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gpucap/compile.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/replication.hpp"
#include "gpucap/run.hpp"

#include "support/one_replication.hpp"
#include "support/scenario_fixture.hpp"

namespace gpucap {
namespace {

using engine::TraceLayer;
using engine::TraceReplay;

constexpr double kDay = 86400;

struct Job {
  double t;
  uint32_t row;
};

/// Every job class 0 replays up to the horizon, in arrival order (the earliest layer first,
/// as the engine takes them).
std::vector<Job> replay(const ModelStorage& storage, uint64_t replication, uint64_t seed = 1) {
  const CompiledModel& m = storage.model();
  const CompiledArrivals& a = m.classes[0].arrivals;
  std::vector<TraceLayer> layers(a.layer_count);
  TraceReplay::start(m, a, ArenaPtr<TraceLayer>::contiguous(layers.data()), seed, replication, 0);
  std::vector<Job> jobs;
  for (;;) {
    const uint32_t l =
        TraceReplay::earliest(ArenaPtr<TraceLayer>::contiguous(layers.data()), a.layer_count);
    if (!(layers[l].next_s <= m.horizon_s)) break;
    jobs.push_back({layers[l].next_s, layers[l].next_row});
    TraceReplay::advance(m, a, layers[l], l + 1 == a.layer_count);
  }
  return jobs;
}

class TraceReplayTest : public testing_support::ScenarioFixture {
 protected:
  /// A scenario replaying trace.csv with `arrivals` keys added, over `horizon`.
  Scenario scenario(const std::string& arrivals, const std::string& horizon = "9d") {
    return parse("name: t\nhorizon: " + horizon +
                 "\npools:\n  p: {gpu: H100, price_usd_per_gpu_hour: 1, quota: 64}\n"
                 "workloads:\n  - name: w\n    arrivals: {process: trace, file: trace.csv" +
                 arrivals + "}\n    placement: [p]\n");
  }
  /// Three days: day d has d + 1 jobs of d + 1 GPUs, at hours 1, 2, 3 of the day.
  void write_three_days() {
    std::string csv = "submit_s,gpus,duration_s\n";
    for (int d = 0; d < 3; ++d)
      for (int j = 0; j <= d; ++j)
        csv += std::to_string(d * kDay + (j + 1) * 3600.0) + "," + std::to_string(d + 1) + ",600\n";
    write("trace.csv", csv);
  }
};

TEST_F(TraceReplayTest, AsLoggedEveryRowOnceAtItsSubmitTimeAndNoDraws) {
  write_three_days();
  const ModelStorage storage = compile(scenario(""));
  const std::vector<Job> jobs = replay(storage, 0);
  ASSERT_EQ(jobs.size(), 6u);
  for (uint32_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(jobs[i].row, i);
    EXPECT_EQ(jobs[i].t, storage.model().trace_submit_s[i]);
  }
  EXPECT_EQ(storage.model().trace_layer_count, 1u);
}

TEST_F(TraceReplayTest, RowsOutOfOrderAreSortedAndSizingNeedsNoRows) {
  // Rows out of submit order (ties kept in file order); two trace classes share the arrays.
  write("trace.csv", "submit_s,gpus,duration_s\n7200,1,60\n3600,2,60\n3600,3,60\n10800,4,60\n");
  write("second.csv", "submit_s,gpus,duration_s\n5,1,9\n6,2,9\n");
  const Scenario s = parse(
      "name: t\nhorizon: 1d\npools:\n  p: {gpu: H100, price_usd_per_gpu_hour: 1, quota: 64}\n"
      "workloads:\n  - name: w\n    arrivals: {process: trace, file: trace.csv, scale_rate: 0.5}\n"
      "    placement: [p]\n  - name: v\n    arrivals: {process: trace, file: second.csv}\n"
      "    placement: [p]\n");
  const ModelStorage full = compile(s);
  const CompiledModel& m = full.model();
  ASSERT_EQ(m.classes[0].arrivals.trace_count, 4u);
  const double submit[] = {3600, 3600, 7200, 10800};
  const uint32_t gpus[] = {2, 3, 1, 4};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(m.trace_submit_s[i], submit[i]);
    EXPECT_EQ(m.trace_gpus[i], gpus[i]);
  }
  const ModelStorage sized = compile_without_trace_rows(s);
  for (uint32_t c = 0; c < 2; ++c) {
    EXPECT_EQ(sized.model().classes[c].arrivals.trace_offset, m.classes[c].arrivals.trace_offset);
    EXPECT_EQ(sized.model().classes[c].arrivals.trace_count, m.classes[c].arrivals.trace_count);
  }
  EXPECT_EQ(m.classes[1].arrivals.trace_offset, 4u);
  EXPECT_EQ(sized.model().trace_layer_count, m.trace_layer_count);
  EXPECT_EQ(replication_arena_bytes(sized.model()), replication_arena_bytes(m));
}

TEST_F(TraceReplayTest, StartSkipsEarlierJobsAndShiftsTheRest) {
  write_three_days();
  const ModelStorage storage = compile(scenario(", start: 1d"));
  const std::vector<Job> jobs = replay(storage, 0);
  ASSERT_EQ(jobs.size(), 5u);  // day 0's job is before the start
  EXPECT_EQ(jobs[0].row, 1u);
  EXPECT_EQ(jobs[0].t, 3600.0);  // day 1, 01:00 replayed at t = 01:00
  EXPECT_EQ(jobs[4].t, kDay + 3 * 3600.0);
}

TEST_F(TraceReplayTest, HorizonEndsTheReplay) {
  write_three_days();
  const std::vector<Job> jobs = replay(compile(scenario("", "1d")), 0);
  EXPECT_EQ(jobs.size(), 1u);  // day 1's first job is at 1 d + 1 h
}

TEST_F(TraceReplayTest, MovingBlocksOfADayReplayWholeDaysAtTheirTimeOfDay) {
  write_three_days();
  const ModelStorage storage = compile(scenario(", resample: {block: 1d}", "30d"));
  EXPECT_EQ(storage.model().classes[0].arrivals.phases, 3u);  // period 3 d, phase 1 d
  std::map<int, int> chosen;                                  // source day -> how often
  const int replications = 200;
  for (int r = 0; r < replications; ++r) {
    std::map<int, std::vector<Job>> by_day;
    for (const Job& j : replay(storage, r)) by_day[static_cast<int>(j.t / kDay)].push_back(j);
    for (int day = 0; day < 30; ++day) {
      const std::vector<Job>& jobs = by_day[day];
      // Each target day is one source day: d + 1 jobs at hours 1..d+1, rows of that day.
      ASSERT_GE(jobs.size(), 1u);
      ASSERT_LE(jobs.size(), 3u);
      const int source = static_cast<int>(jobs.size()) - 1;
      ++chosen[source];
      for (std::size_t j = 0; j < jobs.size(); ++j) {
        EXPECT_EQ(jobs[j].t, day * kDay + (j + 1) * 3600.0);
        EXPECT_EQ(jobs[j].row, static_cast<uint32_t>(source * (source + 1) / 2 + j));
      }
    }
  }
  // Each source day with probability 1/3: 6000 draws, sd = sqrt(6000 * 2/9) = 36.5; 5 sd band.
  for (int d = 0; d < 3; ++d) EXPECT_NEAR(chosen[d], 2000, 183) << "source day " << d;
}

TEST_F(TraceReplayTest, ReplicationsDifferAndTheSameReplicationRepeats) {
  write_three_days();
  const ModelStorage storage = compile(scenario(", resample: {block: 1d}", "30d"));
  const std::vector<Job> a = replay(storage, 5), b = replay(storage, 5), c = replay(storage, 6);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].t, b[i].t);
  bool differ = a.size() != c.size();
  for (std::size_t i = 0; !differ && i < a.size(); ++i) differ = a[i].t != c[i].t;
  EXPECT_TRUE(differ);
}

TEST_F(TraceReplayTest, BlocksOfTwoDaysWrapAroundTheTrace) {
  write_three_days();
  const ModelStorage storage = compile(scenario(", resample: {block: 2d}", "20d"));
  std::set<std::pair<int, int>> pairs;  // (jobs on the block's first day, on its second)
  for (int r = 0; r < 100; ++r) {
    std::map<int, int> count;
    for (const Job& j : replay(storage, r)) ++count[static_cast<int>(j.t / kDay)];
    for (int day = 0; day < 20; day += 2) pairs.insert({count[day], count[day + 1]});
  }
  // Consecutive source days of the 3-day loop: (1,2), (2,3), (3,1) only.
  EXPECT_EQ(pairs, (std::set<std::pair<int, int>>{{1, 2}, {2, 3}, {3, 1}}));
}

TEST_F(TraceReplayTest, PhaseOfAWeekKeepsTheDayOfTheWeek) {
  // 14 days, day d has one job at 12:00 and d + 1 GPUs: the GPUs tell the source day.
  std::string csv = "submit_s,gpus,duration_s\n";
  for (int d = 0; d < 14; ++d)
    csv += std::to_string(d * kDay + 43200) + "," + std::to_string(d + 1) + ",60\n";
  write("trace.csv", csv);
  const ModelStorage storage = compile(scenario(", resample: {block: 1d, phase: 7d}", "28d"));
  const CompiledModel& m = storage.model();
  for (int r = 0; r < 50; ++r)
    for (const Job& j : replay(storage, r)) {
      const int target_day = static_cast<int>(j.t / kDay);
      const int source_day = static_cast<int>(m.trace_gpus[j.row]) - 1;
      EXPECT_EQ(source_day % 7, target_day % 7);
      EXPECT_EQ(std::fmod(j.t, kDay), 43200.0);
    }
}

TEST_F(TraceReplayTest, StationaryBlocksHaveTheStatedMeanLength) {
  // One job per hour for 10 days, rows numbered in time order: a block is a run of rows that
  // follow one another, and a new block starts wherever the row does not follow.
  std::string csv = "submit_s,gpus,duration_s\n";
  for (int h = 0; h < 240; ++h) csv += std::to_string(h * 3600.0 + 1800) + ",1,60\n";
  write("trace.csv", csv);
  const ModelStorage storage =
      compile(scenario(", resample: {block: 6h, method: stationary, phase: 1h}", "400d"));
  const std::vector<Job> jobs = replay(storage, 0);
  ASSERT_EQ(jobs.size(), 9600u);  // one job in every hour of the horizon
  int breaks = 0;
  for (std::size_t i = 1; i < jobs.size(); ++i)
    breaks += jobs[i].row != (jobs[i - 1].row + 1) % 240;
  // Blocks of mean 6 h end at each hour with probability 1 - exp(-1/6) = 0.1535 (an end and a
  // draw of the next row can coincide by chance, 1/240 of the time): 9599 hours, mean
  // 9599 * 0.1535 * (239/240) = 1467, sd 35; 5 sd band.
  EXPECT_NEAR(breaks, 1467, 176);
}

TEST_F(TraceReplayTest, ScaleRateBelowOneThinsEachJob) {
  std::string csv = "submit_s,gpus,duration_s\n";
  for (int i = 0; i < 10000; ++i) csv += std::to_string(i * 60.0) + ",1,60\n";
  write("trace.csv", csv);
  const std::vector<Job> jobs = replay(compile(scenario(", scale_rate: 0.3", "7d")), 0);
  // Binomial(10000, 0.3): mean 3000, sd 45.8; 5 sd band.
  EXPECT_NEAR(static_cast<double>(jobs.size()), 3000, 229);
  for (std::size_t i = 1; i < jobs.size(); ++i) EXPECT_GT(jobs[i].row, jobs[i - 1].row);
}

TEST_F(TraceReplayTest, ScaleRateAboveOneSuperposesIndependentResamples) {
  std::string csv = "submit_s,gpus,duration_s\n";
  for (int i = 0; i < 1440; ++i) csv += std::to_string(i * 60.0 + 30) + ",1,60\n";  // 1 per min
  write("trace.csv", csv);
  const ModelStorage storage = compile(scenario(", scale_rate: 2.5, resample: {block: 1d}", "10d"));
  EXPECT_EQ(storage.model().classes[0].arrivals.layer_count, 3u);
  EXPECT_EQ(storage.model().classes[0].arrivals.last_layer_keep, 0.5);
  const std::vector<Job> jobs = replay(storage, 0);
  // Two full layers (2 x 14400) and one thinned to 0.5: Binomial(14400, 0.5), sd 60; 5 sd.
  EXPECT_NEAR(static_cast<double>(jobs.size()), 2 * 14400 + 7200, 300);
  for (std::size_t i = 1; i < jobs.size(); ++i) EXPECT_GE(jobs[i].t, jobs[i - 1].t);
}

TEST_F(TraceReplayTest, ScaleRatesShareTheirBlocksCommonRandomNumbers) {
  // A sweep of scale_rate compares like with like: at 0.75 the jobs are a subset of those at
  // 1, and at 1.5 a superset (the first layer draws the same blocks in each).
  std::string csv = "submit_s,gpus,duration_s\n";
  for (int i = 0; i < 3 * 24; ++i) csv += std::to_string(i * 3600.0 + 60 * (i % 7)) + ",1,60\n";
  write("trace.csv", csv);
  const auto jobs_at = [&](const std::string& scale) {
    std::multiset<std::pair<double, uint32_t>> out;
    for (const Job& j :
         replay(compile(scenario(", scale_rate: " + scale + ", resample: {block: 1d}", "20d")), 3))
      out.insert({j.t, j.row});
    return out;
  };
  const auto low = jobs_at("0.75"), one = jobs_at("1"), high = jobs_at("1.5");
  EXPECT_EQ(one.size(), 20u * 24);
  EXPECT_LT(low.size(), one.size());
  EXPECT_GT(high.size(), one.size());
  EXPECT_TRUE(std::includes(one.begin(), one.end(), low.begin(), low.end()));
  EXPECT_TRUE(std::includes(high.begin(), high.end(), one.begin(), one.end()));
}

TEST_F(TraceReplayTest, ReplicationsOfABootstrapDifferInTheirResults) {
  // Jobs of 1, 8 and 6 GPU-hours on days 0, 1, 2: a replication's cost tells how often it drew
  // each day.
  write("trace.csv", "submit_s,gpus,duration_s\n0,1,3600\n90000,4,7200\n180000,2,10800\n");
  RunOptions options;
  options.replications = 64;
  const RunResults plain = run(scenario(""), options);
  const RunResults boot = run(scenario(", resample: {block: 1d}"), options);
  std::set<double> plain_costs, boot_costs;
  for (std::size_t r = 0; r < 64; ++r) {
    plain_costs.insert(plain.scalars[r * kScalarMetricCount + kCostUsd]);
    boot_costs.insert(boot.scalars[r * kScalarMetricCount + kCostUsd]);
  }
  EXPECT_EQ(plain_costs.size(), 1u);  // a trace as logged is the same in every replication
  // 9 blocks of 3 choices: the costs of 64 replications take many of the 55 possible values.
  EXPECT_GT(boot_costs.size(), 15u);
}

TEST_F(TraceReplayTest, LoaderRules) {
  write_three_days();
  const std::string head =
      "name: t\nhorizon: 9d\npools:\n  p: {gpu: H100, price_usd_per_gpu_hour: 1, quota: 8}\n"
      "workloads:\n  - name: w\n    placement: [p]\n    arrivals: {process: trace, file: "
      "trace.csv, ";
  const auto error = [&](const std::string& keys) { return error_of(head + keys + "}\n"); };
  EXPECT_NE(error("scale_rate: 2").find("add resample: {block: 1d}"), std::string::npos)
      << error("scale_rate: 2");
  EXPECT_NE(error("scale_rate: 0").find("scale_rate"), std::string::npos);
  EXPECT_NE(error("scale_rate: 17, resample: {block: 1d}").find("scale_rate"), std::string::npos);
  EXPECT_NE(error("start: 1d, resample: {block: 1d}").find("cannot be combined with resample"),
            std::string::npos);
  EXPECT_NE(error("start: 5d").find("after the trace's last submit time"), std::string::npos);
  EXPECT_NE(error("resample: {block: 0s}").find("resample.block"), std::string::npos);
  EXPECT_NE(error("resample: {}").find("block"), std::string::npos);
  EXPECT_NE(error("resample: 1d").find("must be a mapping"), std::string::npos);
  EXPECT_NE(error("resample: {block: 1d, method: circular}").find("valid: moving, stationary"),
            std::string::npos);
  EXPECT_NE(error("resample: {block: 1d, blocks: 2}").find("blocks"), std::string::npos);
  EXPECT_NE(error("resample: {block: 1d, period: 36h}").find("whole multiple of phase"),
            std::string::npos);
  EXPECT_NE(error("resample: {block: 1d, period: 2d}").find("after the trace's last submit"),
            std::string::npos);
  EXPECT_NE(error("resample: {block: 0.0005s}").find("events"), std::string::npos)
      << "a block of 0.5 ms over 9 days (1.6e9 blocks) is refused by the event budget";
  EXPECT_EQ(error("resample: {block: 1d, method: stationary, phase: 12h, period: 3d}"), "no error");
}

}  // namespace
}  // namespace gpucap
