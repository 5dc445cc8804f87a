// Deployments (kind: deployment) worked by hand: instances alive at t = 0 (from a trace's rows
// that began before it), instances that wait for GPUs, lifetimes that end while waiting, the
// startup, interruptions and what each costs; and the loader's errors for their traces.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gpucap/compile.hpp"
#include "gpucap/data/job_import.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/run.hpp"
#include "gpucap/summary.hpp"

#include "support/one_replication.hpp"
#include "support/scenario_fixture.hpp"

namespace gpucap {
namespace {

using testing_support::Row;
using testing_support::run_once;

class Deployment : public testing_support::ScenarioFixture {
 protected:
  /// One on-demand pool of `quota` GPUs ($2 per GPU-hour, billed by the second) and one
  /// deployment replaying instances.csv (hours), horizon 10 h.
  Row run_trace(const std::string& rows, int quota, const std::string& extra = "") {
    write("instances.csv", "start,end,gpus\n" + rows);
    return run_once(parse(
        "name: hand\nhorizon: 10h\npools:\n  od:\n    gpu: H100\n    quota: " +
        std::to_string(quota) +
        "\n    price_usd_per_gpu_hour: 2\n    billing_increment: 1s\n"
        "workloads:\n  - name: fleet\n    kind: deployment\n" + extra +
        "    arrivals: {process: trace, file: instances.csv, submit_column: start, end_column: "
        "end, time_unit: 1h, blank_end: still_running}\n"));
  }
};

// An instance running at t = 0 (started at -5 h) ends at its remaining lifetime, 3 h; one
// arriving at 1 h for 4 h finds the 2 GPUs taken, waits until 3 h and serves until 5 h.
TEST_F(Deployment, StateAtZeroThenAWaitingArrival) {
  const Row r = run_trace("-5,3,2\n1,5,2\n", 2);
  EXPECT_DOUBLE_EQ(r[kInstanceHoursDemanded], 3.0 + 4.0);
  EXPECT_DOUBLE_EQ(r[kInstanceHoursServed], 3.0 + 2.0);
  EXPECT_DOUBLE_EQ(r[kInstanceHoursUnserved], 2.0);
  EXPECT_DOUBLE_EQ(r[kInstanceHoursWaiting], 2.0);
  EXPECT_DOUBLE_EQ(r[kInstanceHoursDown], 0.0);
  EXPECT_DOUBLE_EQ(r[kUnservedFraction], 2.0 / 7.0);
  EXPECT_DOUBLE_EQ(r[kInstancesPeak], 1.0);
  EXPECT_DOUBLE_EQ(r[kInstancesServedMean], 5.0 / 10.0);
  // 2 GPUs for 3 h, then 2 GPUs for 2 h, at $2: GPU-hours used and billed, and the cost.
  EXPECT_DOUBLE_EQ(r[kGpuHoursUsed], 10.0);
  EXPECT_DOUBLE_EQ(r[kCostUsd], 20.0);
  EXPECT_DOUBLE_EQ(r.pool(0, kPoolInstanceHoursServed), 5.0);
  EXPECT_DOUBLE_EQ(r[kInterruptions], 0.0);
  EXPECT_TRUE(std::isnan(r[kRestoreMeanS]));
  // Deployments are not jobs.
  EXPECT_DOUBLE_EQ(r[kJobsArrived], 0.0);
}

// Rows that ended before t = 0 are not there; a blank start with an end is alive until it; a
// blank end lives past the horizon; an instance whose lifetime ends while it waits leaves.
TEST_F(Deployment, BlankCellsAndLifetimesThatEndWhileWaiting) {
  // Alive at 0: (blank, 4) and (-2, blank); (-3, -1) ended before. The GPU is taken by the
  // first until 4 h; the arrival at 1 h lives until 2 h: it waits its whole life.
  const Row r = run_trace("-3,-1,1\n,4,1\n-2,,1\n1,2,1\n", 2);
  EXPECT_DOUBLE_EQ(r[kInstanceHoursDemanded], 4.0 + 10.0 + 1.0);
  EXPECT_DOUBLE_EQ(r[kInstanceHoursServed], 4.0 + 10.0);
  EXPECT_DOUBLE_EQ(r[kInstanceHoursWaiting], 1.0);
  EXPECT_DOUBLE_EQ(r[kInstancesPeak], 2.0);
}

// A startup of 30 min after every launch holds (and bills) the GPUs without serving; the
// state at t = 0 serves at once.
TEST_F(Deployment, StartupIsHeldAndBilledButNotServed) {
  const Row r = run_trace("-1,2,1\n1,3,1\n", 4, "    startup: 30min\n");
  EXPECT_DOUBLE_EQ(r[kInstanceHoursServed], 2.0 + 1.5);
  EXPECT_DOUBLE_EQ(r[kInstanceHoursDown], 0.5);
  EXPECT_DOUBLE_EQ(r[kInstanceHoursWaiting], 0.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursUsed], 2.0 + 2.0);
}

// A block bootstrap resamples the instances that start after t = 0 and keeps the state at
// t = 0 exactly once: over the first second (no resampled row arrives in it with this seed),
// every replication demands the same 3 instance-seconds, and none holds more than those 3.
TEST_F(Deployment, BootstrapKeepsTheStateAtZeroOnce) {
  write("instances.csv", "start,end,gpus\n-1,5,1\n,,1\n-2,,1\n0.5,3,1\n1.5,4,1\n2.5,,1\n");
  RunOptions o;
  o.replications = 32;
  const RunResults r = run(
      parse("name: boot\nhorizon: 1s\npools:\n  od: {gpu: H100, quota: 8, price_usd_per_gpu_hour: 2}\n"
            "workloads:\n  - name: fleet\n    kind: deployment\n"
            "    arrivals: {process: trace, file: instances.csv, submit_column: start, end_column: "
            "end, time_unit: 1h, blank_end: still_running, resample: {block: 1h}}\n"),
      o);
  const MetricSummary& d = r.summary_of(0, kInstanceHoursDemanded);
  EXPECT_DOUBLE_EQ(d.p5, 3.0 / 3600);
  EXPECT_DOUBLE_EQ(d.p95, 3.0 / 3600);
  EXPECT_DOUBLE_EQ(r.summary_of(0, kInstancesPeak).mean, 3.0);
}

/// Two on-demand pools of 1 and 2 GPUs (a: 10 min provisioning), horizon 4 h, and one
/// workload `body` (its kind, placement [a, b] and initial_state from state.csv in hours) whose
/// only arrival comes after the horizon.
std::string state_scenario(const std::string& body) {
  return "name: state\nhorizon: 4h\npools:\n"
         "  a: {gpu: H100, quota: 1, price_usd_per_gpu_hour: 2, provisioning_delay: 10min}\n"
         "  b: {gpu: H100, quota: 2, price_usd_per_gpu_hour: 2}\n"
         "workloads:\n  - name: w\n    placement: [a, b]\n"
         "    initial_state: {file: state.csv, time_unit: 1h}\n" + body;
}

// Instances in a state file: one in pool b until 2 h; one placed by its placement (a, at once,
// no provisioning) still running; one of 2 GPUs that fits nowhere (b has 1 free) waits and its
// lifetime ends at 1 h, in the queue.
TEST_F(Deployment, StateFilePlacesInstancesAtZero) {
  write("later.csv", "start,end,gpus\n1e6,,1\n");
  write("state.csv", "pool,gpus,remaining\nb,1,2\n,,\n,2,1\n");
  const Row r = run_once(parse(state_scenario(
      "    kind: deployment\n    arrivals: {process: trace, file: later.csv, submit_column: "
      "start, end_column: end, blank_end: still_running}\n")));
  EXPECT_DOUBLE_EQ(r[kInstanceHoursDemanded], 2.0 + 4.0 + 1.0);
  EXPECT_DOUBLE_EQ(r[kInstanceHoursServed], 2.0 + 4.0);
  EXPECT_DOUBLE_EQ(r[kInstanceHoursWaiting], 1.0);
  EXPECT_DOUBLE_EQ(r.pool(0, kPoolInstanceHoursServed), 4.0);
  EXPECT_DOUBLE_EQ(r.pool(1, kPoolInstanceHoursServed), 2.0);
}

// Jobs in a state file: 3 h of work running in a at t = 0 (no provisioning), then 1 h and 2 h
// placed by the placement list (a is full: both in b, at once); a job of 2 GPUs fits nowhere,
// waits, and starts when b is empty again at 2 h.
TEST_F(Deployment, StateFileStartsJobsAtZero) {
  write("later.csv", "submit_s,gpus,duration_s\n1e6,1,1\n");
  write("state.csv", "pool,gpus,remaining\na,1,3\n,1,1\n,1,2\n,2,1\n");
  const Row r = run_once(parse(state_scenario(
      "    arrivals: {process: trace, file: later.csv}\n")));
  EXPECT_DOUBLE_EQ(r[kJobsArrived], 4.0);
  EXPECT_DOUBLE_EQ(r[kJobsCompleted], 4.0);
  // Completions at 3 h, 1 h, 2 h and 2 + 1 = 3 h; only the last waited (2 h).
  EXPECT_DOUBLE_EQ(r[kCompletionMeanS], (3.0 + 1.0 + 2.0 + 3.0) / 4 * 3600);
  EXPECT_DOUBLE_EQ(r[kWaitMeanS], 2.0 / 4 * 3600);
  EXPECT_DOUBLE_EQ(r[kProvisioningMeanS], 0.0);
}

TEST_F(Deployment, StateFileErrorsNameTheRows) {
  const std::string jobs = "    arrivals: {process: poisson, rate_per_hour: 1}\n    work: 1h\n";
  write("state.csv", "pool,gpus,remaining\nb,1,2\nc,1,1\n");
  std::string e = error_of(state_scenario(jobs));
  EXPECT_NE(e.find("state.csv data row 2: pool \"c\" is not in the placement list of \"w\" (a, b)"),
            std::string::npos) << e;
  write("state.csv", "pool,gpus,remaining\nb,1,2\na,1,1\nb,1,1\nb,1,4\n");
  e = error_of(state_scenario(jobs));
  EXPECT_NE(e.find("puts 3 GPUs on pool \"b\", more than its quota of 2: state.csv rows 1, 3 and 4"),
            std::string::npos) << e;
  write("state.csv", "gpus,remaining\n1,\n");
  e = error_of(state_scenario(jobs));
  EXPECT_NE(e.find("data row 1: remaining is blank; a job's remaining work must be given"),
            std::string::npos) << e;
  write("state.csv", "pool,gpus\nb,1\n");
  e = error_of(state_scenario(jobs));
  EXPECT_NE(e.find("has no column 'remaining'"), std::string::npos) << e;
}

// Unknown remaining (`remaining: unknown`, drawn given `age`), with deterministic lifetimes and
// work so that the draw is exact: an instance of a 5 h lifetime aged 2 h has 3 h left; a job of
// 3 h of work of which 1 h is done (age) ends at 2 h; age blank: the whole lifetime.
TEST_F(Deployment, UnknownRemainingIsTheRestGivenTheAge) {
  write("state.csv", "pool,age,remaining\nb,2,unknown\n,,unknown\n");
  const Row r = run_once(parse(state_scenario(
      "    kind: deployment\n    arrivals: {process: poisson, rate_per_day: 0.000001}\n"
      "    lifetime: 5h\n")));
  EXPECT_DOUBLE_EQ(r[kInstanceHoursDemanded], 3.0 + 4.0);  // the second outlives the 4 h horizon
  EXPECT_DOUBLE_EQ(r[kInstanceHoursServed], 3.0 + 4.0);
  write("state.csv", "pool,age,remaining\na,1,unknown\n");
  const Row j = run_once(parse(state_scenario(
      "    arrivals: {process: poisson, rate_per_day: 0.000001}\n    work: 3h\n")));
  EXPECT_DOUBLE_EQ(j[kJobsCompleted], 1.0);
  EXPECT_DOUBLE_EQ(j[kCompletionMeanS], 2.0 * 3600);
}

TEST_F(Deployment, UnknownRemainingErrorsNameTheRow) {
  const std::string poisson = "    arrivals: {process: poisson, rate_per_hour: 1}\n";
  write("state.csv", "age,remaining\n1,2\n6,unknown\n");
  std::string e = error_of(state_scenario(poisson + "    work: 5h\n"));
  EXPECT_NE(e.find("state.csv data row 2: remaining is unknown and age is 21600 s, but the work "
                   "of \"w\" is at most 18000 s"),
            std::string::npos) << e;
  write("state.csv", "age,remaining\nsoon,unknown\n");
  e = error_of(state_scenario(poisson + "    work: 5h\n"));
  EXPECT_NE(e.find("data row 1: age holds \"soon\"; it must be a number >= 0"), std::string::npos)
      << e;
  write("later.csv", "submit_s,gpus,duration_s\n1e6,1,1\n");
  write("state.csv", "age,remaining\n1,unknown\n");
  e = error_of(state_scenario("    arrivals: {process: trace, file: later.csv}\n"));
  EXPECT_NE(e.find("data row 1: remaining is unknown, but \"w\" takes its works from its trace"),
            std::string::npos) << e;
  write("state.csv", "remaining\nlater\n");
  e = error_of(state_scenario(poisson + "    work: 5h\n"));
  EXPECT_NE(e.find("it must be a number > 0 (at most 10000 years) or unknown (drawn given the age)"),
            std::string::npos)
      << e;
  // Durations beyond 10000 years, as everywhere else: an age of 3e14 h (whose rest drew -1152 s
  // before) and a remaining of 1e9 h.
  write("state.csv", "age,remaining\n3e14,unknown\n");
  e = error_of(state_scenario(poisson + "    work: {dist: weibull, shape: 20, scale: 1h}\n"));
  EXPECT_NE(e.find("data row 1: age holds \"3e14\"; it must be a number >= 0 (in time_unit) and "
                   "at most 10000 years, or blank"),
            std::string::npos) << e;
  write("state.csv", "remaining\n1e9\n");
  e = error_of(state_scenario(poisson + "    work: 5h\n"));
  EXPECT_NE(e.find("data row 1: remaining holds \"1e9\"; it must be a number > 0 (at most 10000 "
                   "years)"),
            std::string::npos) << e;
}

// An old job in a light tail (Weibull shape 20, scale 1 h, aged 300 h): its rest is tiny and
// never negative, so its completion time is its remaining wait, >= 0 (it was -4.7e-10 s, and
// -1,152 s at larger ages, with an inverted interval).
TEST_F(Deployment, ResidualWorkFarInATailIsNeverNegative) {
  write("state.csv", "age,remaining\n300,unknown\n300,unknown\n");
  Scenario s = parse(state_scenario(
      "    arrivals: {process: poisson, rate_per_day: 0.000001}\n"
      "    work: {dist: weibull, shape: 20, scale: 1h}\n"));
  RunOptions o;
  o.replications = 64;
  const RunResults r = run(s, o);
  for (std::size_t k = 0; k < r.rows_per_point(); ++k) {
    EXPECT_EQ(r.scalar(0, k, kJobsCompleted), 2.0);
    EXPECT_GE(r.scalar(0, k, kCompletionMeanS), 0.0);
    EXPECT_LT(r.scalar(0, k, kCompletionMeanS), 1e-6);
  }
}

// The state at t = 0 holds at most 2,000,000 rows a workload, refused before anything is kept
// (10 M rows took 2.66 GB in `run`); memory is the rows kept, read without a string per cell.
TEST_F(Deployment, StateFileRowLimitNamesTheKey) {
  std::string rows = "remaining\n";
  rows.reserve(4000020);
  for (int i = 0; i < 2000001; ++i) rows += "1\n";
  write("state.csv", rows);
  const std::string e =
      error_of(state_scenario("    arrivals: {process: poisson, rate_per_hour: 1}\n    work: 5h\n"));
  EXPECT_NE(e.find("workloads[0].initial_state.file: state.csv has 2000001 data rows; the state at "
                   "t = 0 may hold at most 2000000 jobs or instances per workload"),
            std::string::npos) << e;
}

// Records carry the trace row: jobs from an unsorted trace, an instance of the state at t = 0
// and one drawn by a Poisson process keep the data row of the file they came from (0: drawn).
TEST_F(Deployment, RecordsCarryTheTraceRow) {
  write("jobs.csv", "submit_s,gpus,duration_s\n300,1,60\n100,1,60\n200,1,60\n");
  Scenario s = parse(
      "name: rows\nhorizon: 1h\nrecords: {jobs: 1}\npools:\n"
      "  od: {gpu: H100, quota: 8, price_usd_per_gpu_hour: 2}\n"
      "workloads:\n  - name: jobs\n    arrivals: {process: trace, file: jobs.csv}\n");
  RunOptions o;
  o.replications = 1;
  RunResults r = run(s, o);
  ASSERT_EQ(r.jobs.size(), 3u);
  EXPECT_EQ(r.jobs[0].trace_row, 2u);  // submitted at 100 s: the file's second row
  EXPECT_EQ(r.jobs[1].trace_row, 3u);
  EXPECT_EQ(r.jobs[2].trace_row, 1u);
  write("state.csv", "remaining\n1\n2\n");
  s = parse(state_scenario(
      "    kind: deployment\n    arrivals: {process: poisson, rate_per_hour: 2}\n"
      "    lifetime: 1h\n") + "records: {jobs: 1}\n");
  r = run(s, o);
  ASSERT_GE(r.jobs.size(), 2u);
  EXPECT_EQ(r.jobs[0].trace_row, 1u);
  EXPECT_EQ(r.jobs[1].trace_row, 2u);
  for (std::size_t i = 2; i < r.jobs.size(); ++i) EXPECT_EQ(r.jobs[i].trace_row, 0u);
}

// From an instance log to a run, as a user would: `gpucap import --instances` keeps the
// instances created before the log (blank start) and those still running (blank end), and the
// deployment replays them: 2 alive the whole 10 h window, one created at 1 h that lives 3 h.
TEST_F(Deployment, ImportedInstanceLogReplays) {
  write("pods.csv",
        "name,num_gpu,creation_time,deletion_time,scheduled_time\n"
        "a,1,,,\nb,1,,,\nc,1,3600,14400,3600\n");
  data::ImportOptions options;
  options.trace.instances = true;
  options.trace.origin_ms = 0;
  std::string csv;
  data::import_job_log(data::JobLogFormat::kubernetes, dir() + "/pods.csv", options,
                       [&](std::string_view b) { csv.append(b); });
  EXPECT_EQ(csv, "start_s,end_s,gpus,gpu_milli,gpu_model,qos\n,,1,1000,,\n,,1,1000,,\n3600,14400,1,1000,,\n");
  write("instances.csv", csv);
  const Row r = run_once(parse(
      "name: imported\nhorizon: 10h\npools:\n  od: {gpu: H100, quota: 8, price_usd_per_gpu_hour: 2}\n"
      "workloads:\n  - name: fleet\n    kind: deployment\n"
      "    arrivals: {process: trace, file: instances.csv, submit_column: start_s, end_column: "
      "end_s, blank_end: still_running}\n"));
  EXPECT_DOUBLE_EQ(r[kInstanceHoursDemanded], 2 * 10.0 + 3.0);
  EXPECT_DOUBLE_EQ(r[kInstanceHoursServed], 2 * 10.0 + 3.0);
  EXPECT_DOUBLE_EQ(r[kInstancesPeak], 3.0);
}

TEST_F(Deployment, TraceErrorsNameTheRowAndTheFix) {
  write("blank.csv", "start,end,gpus\n0,5,1\n1,,1\n");
  const std::string head =
      "name: e\nhorizon: 1d\npools:\n  od: {gpu: H100, quota: 8, price_usd_per_gpu_hour: 2}\n"
      "workloads:\n  - name: fleet\n    kind: deployment\n";
  const std::string blank =
      error_of(head + "    arrivals: {process: trace, file: blank.csv, submit_column: start, "
                      "end_column: end}\n");
  EXPECT_NE(blank.find("data row 2: end is blank"), std::string::npos) << blank;
  EXPECT_NE(blank.find("blank_end: still_running"), std::string::npos) << blank;

  write("backwards.csv", "start,end,gpus\n0,5,1\n4,3,1\n");
  const std::string backwards =
      error_of(head + "    arrivals: {process: trace, file: backwards.csv, submit_column: start, "
                      "end_column: end}\n");
  EXPECT_NE(backwards.find("data row 2: end (3) must be after start (4)"), std::string::npos)
      << backwards;

  write("nostart.csv", "start,duration_s,gpus\n0,5,1\n,3,1\n");
  const std::string no_start =
      error_of(head + "    arrivals: {process: trace, file: nostart.csv, submit_column: start}\n");
  EXPECT_NE(no_start.find("give the trace an end_column"), std::string::npos) << no_start;

  // Jobs have no ends to read; deployments have no run time.
  const std::string jobs_end = error_of(
      "name: e\nhorizon: 1d\npools:\n  od: {gpu: H100, quota: 8, price_usd_per_gpu_hour: 2}\n"
      "workloads:\n  - name: jobs\n    arrivals: {process: trace, file: blank.csv, "
      "submit_column: start, end_column: end}\n");
  EXPECT_NE(jobs_end.find("end_column"), std::string::npos) << jobs_end;
  const std::string work = error_of(head +
                                    "    arrivals: {process: poisson, rate_per_hour: 1}\n"
                                    "    work: 1h\n");
  EXPECT_NE(work.find("work"), std::string::npos) << work;
  const std::string no_life =
      error_of(head + "    arrivals: {process: poisson, rate_per_hour: 1}\n");
  EXPECT_NE(no_life.find("lifetime"), std::string::npos) << no_life;
}

}  // namespace
}  // namespace gpucap
