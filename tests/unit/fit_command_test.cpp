// gpucap fit (sim/cli/fit_command.cpp): the written workloads section validates and runs when
// combined with a pools section; hostile traces and outputs give clear errors and exit codes
// (2 for a trace that cannot be fitted or bad usage, 1 for I/O), never a crash.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <random>
#include <sstream>
#include <string>

#include "support/cli.hpp"
#include "support/scratch_dir.hpp"

using gpucap::testing_support::gpucap_cli;
using gpucap::testing_support::read_all;

namespace {

const std::string kPools =
    "name: fitted workloads\n"
    "horizon: 14d\n"
    "seed: 3\n"
    "pools:\n"
    "  od: {gpu: H100, purchase: on_demand, price_usd_per_gpu_hour: 2.5, quota: 64}\n";

class FitCommand : public gpucap::testing_support::ScratchDirTest {
 protected:
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return path(name);
  }
  /// Fits `trace`, then validates and runs the section under kPools; expects all to pass.
  void fit_validate_run(const std::string& trace, const std::string& options = "") {
    const auto fit = gpucap_cli("fit " + trace + " -o " + path("w.yaml") + " " + options);
    ASSERT_EQ(fit.exit_code, 0) << fit.output;
    const std::string scenario = write("s.yaml", kPools + read_all(path("w.yaml")));
    const auto validate = gpucap_cli("validate " + scenario);
    ASSERT_EQ(validate.exit_code, 0) << validate.output << read_all(path("w.yaml"));
    const auto run = gpucap_cli("run " + scenario + " -r 4 -q");
    ASSERT_EQ(run.exit_code, 0) << run.output;
  }
};

const std::string kSample = std::string(GPUCAP_SOURCE_DIR) + "/data/sample_week_trace.csv";

}  // namespace

TEST_F(FitCommand, SampleTraceSectionValidatesAndRuns) {
  fit_validate_run(kSample);
  const std::string yaml = read_all(path("w.yaml"));
  EXPECT_NE(yaml.find("workloads:\n"), std::string::npos);
  EXPECT_NE(yaml.find("- name: \"gpus-8\""), std::string::npos);
  EXPECT_NE(yaml.find("AIC"), std::string::npos);
  EXPECT_NE(yaml.find("KS D"), std::string::npos);
  EXPECT_NE(yaml.find("likelihood ratio vs a constant rate"), std::string::npos);
  // The sample trace has a day-night cycle: a profile is written.
  EXPECT_NE(yaml.find("process: nhpp"), std::string::npos);
}

TEST_F(FitCommand, WeeklyProfilePlacementAndEmpiricalFilesRun) {
  fit_validate_run(kSample, "--window 7d --placement od --family empirical");
  const std::string yaml = read_all(path("w.yaml"));
  EXPECT_NE(yaml.find("placement: [\"od\"]"), std::string::npos);
  EXPECT_NE(yaml.find("file: \"w.gpus-1.runtimes.csv\""), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(path("w.gpus-1.runtimes.csv")));
  // Each family forced in turn also validates.
  for (const char* family : {"exponential", "lognormal", "gamma", "weibull"}) {
    SCOPED_TRACE(family);
    fit_validate_run(kSample, std::string("--family ") + family);
    EXPECT_NE(read_all(path("w.yaml")).find(std::string("dist: ") + family), std::string::npos);
  }
}

TEST_F(FitCommand, CensoredTraceWithTextClassesRuns) {
  // Two queues over two weeks; jobs running at the end (t = 14 d) are censored there.
  std::mt19937_64 rng(5);
  std::exponential_distribution<double> gap(1 / 1800.0);
  std::lognormal_distribution<double> run(8.0, 1.0);
  std::string csv = "submit_s,gpus,duration_s,censored,queue\n";
  const double end = 14 * 86400.0;
  int censored = 0;
  for (double t = gap(rng); t < end; t += gap(rng)) {
    const double d = run(rng);
    const bool c = t + d > end;
    censored += c;
    csv += std::to_string(t) + "," + (t < end / 2 ? "1" : "4") + "," +
           std::to_string(c ? end - t : d) + "," + (c ? "1" : "0") + "," +
           (static_cast<int>(t) % 2 ? "prod" : "dev") + "\n";
  }
  ASSERT_GT(censored, 0);
  fit_validate_run(write("trace.csv", csv), "--class-by queue");
  const std::string yaml = read_all(path("w.yaml"));
  EXPECT_NE(yaml.find("- name: \"queue-dev\""), std::string::npos);
  EXPECT_NE(yaml.find("- name: \"queue-prod\""), std::string::npos);
  EXPECT_NE(yaml.find("Kaplan-Meier"), std::string::npos);
  EXPECT_NE(yaml.find("different GPU counts"), std::string::npos);
}

TEST_F(FitCommand, TinyClassesFallBackAndSaySo) {
  // gpus 8 has one job; gpus 2 only censored jobs: both still give a runnable section.
  std::string csv = "submit_s,gpus,duration_s,censored\n";
  for (int i = 0; i < 50; ++i)
    csv += std::to_string(i * 3000) + ",1," + std::to_string(100 + 37 * i) + ",0\n";
  csv += "5000,8,7200,0\n6000,2,900,1\n7000,2,1200,1\n";
  const std::string trace = write("trace.csv", csv);
  const auto fit = gpucap_cli("fit " + trace + " -o " + path("w.yaml"));
  ASSERT_EQ(fit.exit_code, 0) << fit.output;
  EXPECT_NE(fit.output.find("warning: class gpus-8: fallback: exponential"), std::string::npos)
      << fit.output;
  EXPECT_NE(fit.output.find("warning: class gpus-2: fallback: no job finished"),
            std::string::npos)
      << fit.output;
  fit_validate_run(trace);
}

TEST_F(FitCommand, OneJobAndZeroDurations) {
  fit_validate_run(write("one.csv", "submit_s,gpus,duration_s\n100,2,3600\n"));
  // One job at t = 0 spans no time: say so, and how to give the window.
  auto r = gpucap_cli("fit " + write("zero.csv", "submit_s,gpus,duration_s\n0,2,3600\n") +
                      " -o " + path("w.yaml"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--window"), std::string::npos) << r.output;
  fit_validate_run(path("zero.csv"), "--window 1d");
  // Run times of 0 s are arrivals but not run-time samples.
  r = gpucap_cli("fit " + write("z.csv", "submit_s,gpus,duration_s\n0,1,0\n10,1,60\n20,1,90\n") +
                 " -o " + path("w.yaml"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 job(s) with run time 0 s"), std::string::npos) << r.output;
  fit_validate_run(write("allzero.csv", "submit_s,gpus,duration_s\n0,1,0\n10,1,0\n"));
}

TEST_F(FitCommand, HostileTracesGiveClearErrors) {
  struct Case {
    const char* name;
    std::string text;
    int exit_code;
    std::string message;
  };
  const Case cases[] = {
      {"empty.csv", "", 2, "empty.csv:1: the file is empty"},
      {"header.csv", "submit_s,gpus,duration_s\n", 2, "no jobs"},
      {"negative.csv", "submit_s,gpus,duration_s\n0,1,10\n5,1,-5\n", 2,
       "negative.csv:3: column \"duration_s\" holds -5"},
      {"nan.csv", "submit_s,gpus,duration_s\n0,1,nan\n", 2, "holds \"nan\", not a number"},
      {"inf.csv", "submit_s,gpus,duration_s\ninf,1,10\n", 2, "holds \"inf\", not a number"},
      {"text.csv", "submit_s,gpus,duration_s\n0,1,1h\n", 2, "holds \"1h\", not a number"},
      {"huge.csv", "submit_s,gpus,duration_s\n0,1,1e300\n", 2, "10000 years"},
      {"gpus.csv", "submit_s,gpus,duration_s\n0,1.5,10\n", 2, "whole number"},
      {"censored.csv", "submit_s,gpus,duration_s,censored\n0,1,10,2\n", 2,
       "column \"censored\" holds 2"},
      {"ragged.csv", "submit_s,gpus,duration_s\n0,1\n", 2, "ragged.csv:2: 2 fields"},
      {"columns.csv", "submit,gpus,duration_s\n0,1,10\n", 2, "no column \"submit_s\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto r = gpucap_cli("fit " + write(c.name, c.text) + " -o " + path("w.yaml"));
    EXPECT_EQ(r.exit_code, c.exit_code) << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(path("w.yaml")));
  }
}

TEST_F(FitCommand, BadUsageAndOutputs) {
  auto r = gpucap_cli("fit " + kSample + " -o " + dir_.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("directory"), std::string::npos) << r.output;
  r = gpucap_cli("fit " + path("missing.csv") + " -o " + path("w.yaml"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("No such file"), std::string::npos) << r.output;
  r = gpucap_cli("fit " + dir_.string() + " -o " + path("w.yaml"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  r = gpucap_cli("fit " + kSample);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("-o WORKLOAD.yaml"), std::string::npos);
  r = gpucap_cli("fit " + kSample + " -o " + path("w.yaml") + " --family normal");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--family must be"), std::string::npos);
  r = gpucap_cli("fit " + kSample + " -o " + path("w.yaml") + " --alpha 2");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = gpucap_cli("fit " + kSample + " -o " + path("w.yaml") + " --window 1h");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("after the end of the window"), std::string::npos) << r.output;
  // The trace itself is never an output.
  const std::string trace = write("t.csv", read_all(kSample));
  r = gpucap_cli("fit " + trace + " -o " + trace);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(read_all(trace), read_all(kSample));
  r = gpucap_cli("fit --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("--class-by"), std::string::npos);
}

// A rate that triples over 3 weeks (arrivals at the quantiles of a log-linear intensity): the
// fit warns and names --trend; extrapolate writes the level at the end, last-week the last
// week's mean; --origin aligns the calendar and is named in the header; each section runs.
TEST_F(FitCommand, TrendsWarnAndTheTrendChoiceApplies) {
  const double window = 21 * 86400.0, b = std::log(3.0) / window;
  std::string csv = "submit_s,gpus,duration_s\n";
  const int n = 3000;
  for (int i = 0; i < n; ++i) {  // t_i = F^-1((i + 0.5) / n), F(t) = (e^(bt) - 1) / (e^(bW) - 1)
    const double u = (i + 0.5) / n;
    csv += std::to_string(std::log1p(u * std::expm1(b * window)) / b) + ",1,600\n";
  }
  const std::string trace = write("rising.csv", csv);
  const auto averaged = gpucap_cli("fit " + trace + " -o " + path("a.yaml") + " --window 21d");
  ASSERT_EQ(averaged.exit_code, 0) << averaged.output;
  EXPECT_NE(averaged.output.find("warning: class gpus-1: the arrival rate rises 44.2% a week (x3 "
                                 "over the window"),
            std::string::npos)
      << averaged.output;
  EXPECT_NE(averaged.output.find("--trend extrapolate"), std::string::npos);
  EXPECT_NE(read_all(path("a.yaml")).find("# WARNING: the arrival rate rises"), std::string::npos);
  EXPECT_NE(read_all(path("a.yaml")).find("taken as Monday 00:00: give --origin"),
            std::string::npos);
  // Averaged: 3000 / 21 d = 142.9 jobs/day; at the end: x (ln 3 · 3 / 2) = 1.648: 235.4/day.
  EXPECT_NE(read_all(path("a.yaml")).find("rate_per_hour: 5.952381"), std::string::npos);
  fit_validate_run(trace, "--window 21d --trend extrapolate --origin 2024-11-15T16:57:50+08:00");
  const std::string end = read_all(path("w.yaml"));
  EXPECT_NE(end.find("from t = 0 (2024-11-15T16:57:50+08:00)"), std::string::npos);
  const std::size_t rate = end.find("rate_per_hour: ");
  ASSERT_NE(rate, std::string::npos);
  EXPECT_NEAR(std::stod(end.substr(rate + 15)), 3000.0 / 504 * std::log(3.0) * 1.5, 0.05);
  fit_validate_run(trace, "--window 21d --trend last-week");
  const std::string last = read_all(path("w.yaml"));
  const std::size_t r2 = last.find("rate_per_hour: ");
  ASSERT_NE(r2, std::string::npos);
  // Arrivals in the last week: n (1 - F(2W/3)) = 3000 (1 - (3^(2/3) - 1) / 2) = 1379.8.
  EXPECT_NEAR(std::stod(last.substr(r2 + 15)) * 168, 3000 * (1 - (std::cbrt(9.0) - 1) / 2), 1);
  EXPECT_EQ(gpucap_cli("fit " + trace + " -o " + path("x.yaml") + " --trend linear").exit_code, 2);
  EXPECT_EQ(gpucap_cli("fit " + trace + " -o " + path("x.yaml") + " --origin friday").exit_code, 2);
  const auto short_window =
      gpucap_cli("fit " + trace + " -o " + path("x.yaml") + " --window 10d --trend last-week");
  EXPECT_EQ(short_window.exit_code, 2) << short_window.output;
}

// --kind service: each class becomes an inference service on the first --placement pool, its
// run times the service time, with replicas for about 70% busy at the mean load; the section
// validates and runs. A service needs its pool; other kinds are refused with the way to go.
TEST_F(FitCommand, ServicesFromARequestLog) {
  // 1,200 requests over 2 days, one every 144 s, 60 s each: load 60 / 144 = 0.417 replicas
  // busy, so ceil(0.417 / 0.7) = 1 replica.
  std::string csv = "submit_s,gpus,duration_s\n";
  for (int i = 0; i < 1200; ++i) csv += std::to_string(144.0 * i) + ",1,60\n";
  const std::string trace = write("requests.csv", csv);
  fit_validate_run(trace, "--kind service --placement od --window 2d");
  const std::string yaml = read_all(path("w.yaml"));
  EXPECT_NE(yaml.find("    kind: inference\n    gpus: 1\n    pool: \"od\"\n    replicas: 1  # "
                      "mean load 0.4167 replicas busy"),
            std::string::npos)
      << yaml;
  EXPECT_NE(yaml.find("    service: {dist: "), std::string::npos);
  EXPECT_EQ(yaml.find("    work: "), std::string::npos);
  // The doubt about the rate is drawn for a service too: 1/√1200 (days as even as Poisson's).
  EXPECT_NE(yaml.find("    uncertainty: {rate_sd_log: 0.02887, scale_sd_log: "), std::string::npos)
      << yaml;
  const auto no_pool = gpucap_cli("fit " + trace + " -o " + path("x.yaml") + " --kind service");
  EXPECT_EQ(no_pool.exit_code, 2);
  EXPECT_NE(no_pool.output.find("--kind service needs --placement POOL"), std::string::npos);
  const auto other = gpucap_cli("fit " + trace + " -o " + path("x.yaml") + " --kind notebook");
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.output.find("--kind must be job, service, deployment or llm"), std::string::npos)
      << other.output;
}

namespace {

/// A 10-day instance log (start_s,end_s,gpus): Poisson creations at 10 an hour with
/// exponential lifetimes of mean 48 h, the log cutting those still running at 240 h (blank
/// end, about 18% of them); and 60 instances created before the log: 20 with a blank start and
/// a blank end, 20 with a blank start ending at 3600 s * (1..20), 20 created 7200 s before t = 0
/// and still running. The generator is written out (inverse CDF of a fixed mt19937_64), so the
/// log is the same everywhere.
/// With `growth` > 1 the creations rise instead, from 5 an hour to 5 x growth an hour at the
/// log's end (exponentially; by thinning).
std::string instance_log(double growth = 1) {
  std::mt19937_64 rng(20261205);
  auto uniform = [&] { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53; };
  const double window = 240 * 3600.0, mean_life = 48 * 3600.0;
  const double rate = growth == 1 ? 10 / 3600.0 : 5 * growth / 3600.0;  // the largest
  std::string csv = "start_s,end_s,gpus\n";
  for (int i = 0; i < 20; ++i) csv += ",,1\n";
  for (int i = 1; i <= 20; ++i) csv += "," + std::to_string(3600 * i) + ",1\n";
  for (int i = 0; i < 20; ++i) csv += "-7200,,1\n";
  for (double t = -std::log(uniform()) / rate; t < window; t += -std::log(uniform()) / rate) {
    if (growth != 1 && uniform() > std::pow(growth, t / window - 1)) continue;
    const double end = t - mean_life * std::log(uniform());
    char row[96];
    if (end < window)
      std::snprintf(row, sizeof row, "%.3f,%.3f,1\n", t, end);
    else
      std::snprintf(row, sizeof row, "%.3f,,1\n", t);
    csv += row;
  }
  return csv;
}

/// The number after `key` in `text` (e.g. "mean: " in "{dist: exponential, mean: 1.7e5s}").
double number_after(const std::string& text, const std::string& key) {
  const std::size_t at = text.find(key);
  if (at == std::string::npos) return NAN;
  return std::strtod(text.c_str() + at + key.size(), nullptr);
}

}  // namespace

// --kind deployment: an instance log becomes a deployment per class. Its lifetime is fitted
// with the censoring of the instances still running at the log's end: the exponential's MLE is
// the total time observed over the instances that ended, so the mean comes back within 4
// standard errors (mean/sqrt(events): 2.3%) of 48 h, where reading the cut lifetimes as ended
// would give 48 (1 - (48 / 240)(1 - e^-5)) = 38.5 h. The rate comes back within 4 standard errors
// (2%) of 10 an hour.
// --state start writes the 60 instances alive at t = 0 with their logged ends; --state end the
// instances still running at the log's end, remaining unknown, with their ages.
TEST_F(FitCommand, DeploymentsFromAnInstanceLog) {
  const std::string log = write("instances.csv", instance_log());
  const auto fit =
      gpucap_cli("fit " + log + " -o " + path("w.yaml") +
                 " --kind deployment --family exponential --placement od --window 10d");
  ASSERT_EQ(fit.exit_code, 0) << fit.output;
  EXPECT_NE(fit.output.find("60 alive at t = 0"), std::string::npos) << fit.output;
  EXPECT_NE(fit.output.find("state at t = 0 (the log's start): 60 instance(s)"), std::string::npos)
      << fit.output;
  const std::string yaml = read_all(path("w.yaml"));
  EXPECT_NE(yaml.find("    kind: deployment\n    gpus: 1\n"), std::string::npos) << yaml;
  EXPECT_NEAR(number_after(yaml, "lifetime: {dist: exponential, mean: ") / 3600, 48, 48 * 0.092)
      << yaml;
  EXPECT_NEAR(number_after(yaml, "rate_per_hour: "), 10, 10 * 0.08) << yaml;
  EXPECT_NE(yaml.find("initial_state: {file: \"w.gpus-1.state.csv\", time_unit: 1s}"),
            std::string::npos)
      << yaml;
  // The state at the log's start: 20 x (blank, blank), 20 x (3600 i, blank), 20 x (blank, 7200).
  const std::string state = read_all(path("w.gpus-1.state.csv"));
  EXPECT_EQ(state.rfind("gpus,remaining,age\n", 0), 0u);
  std::size_t unknown_age = 0, running = 0, aged = 0;
  double ends = 0;
  std::istringstream rows(state.substr(state.find('\n') + 1));
  for (std::string row; std::getline(rows, row);) {
    const std::string remaining = row.substr(2, row.rfind(',') - 2);
    const std::string age = row.substr(row.rfind(',') + 1);
    unknown_age += age.empty();
    aged += age == "7200";
    running += remaining.empty();
    if (!remaining.empty()) ends += std::stod(remaining);
  }
  EXPECT_EQ(unknown_age, 40u);
  EXPECT_EQ(aged, 20u);
  EXPECT_EQ(running, 40u);
  EXPECT_EQ(ends, 3600.0 * 210);  // 3600 (1 + ... + 20)

  // The section validates and runs: on 2,000 GPUs (about 480 instances at once, 60 at t = 0).
  const std::string pools =
      "name: fitted fleet\nhorizon: 10d\nseed: 3\npools:\n"
      "  od: {gpu: H100, purchase: on_demand, price_usd_per_gpu_hour: 2.5, quota: 2000}\n";
  const std::string scenario = write("s.yaml", pools + yaml);
  const auto run = gpucap_cli("run " + scenario + " -r 2 -q -o " + path("r.h5"));
  ASSERT_EQ(run.exit_code, 0) << run.output;

  // The state at the log's end: every instance still running then, remaining unknown, its age
  // the window less its start (the 20 created before the log: the window, a lower bound).
  const auto end = gpucap_cli("fit " + log + " -o " + path("e.yaml") +
                              " --kind deployment --family exponential --state end --window 10d");
  ASSERT_EQ(end.exit_code, 0) << end.output;
  const std::string end_yaml = read_all(path("e.yaml"));
  EXPECT_NE(end_yaml.find("have the window as their age, a lower bound"), std::string::npos);
  const std::string end_state = read_all(path("e.gpus-1.state.csv"));
  std::size_t still_running = 0;  // rows of the log with a blank end
  std::istringstream log_rows(instance_log());
  std::string line;
  std::getline(log_rows, line);
  while (std::getline(log_rows, line))
    still_running += line.back() == '1' && line[line.size() - 3] == ',';
  std::size_t unknown_rows = 0, window_ages = 0;
  std::istringstream erows(end_state.substr(end_state.find('\n') + 1));
  for (std::string row; std::getline(erows, row);) {
    unknown_rows += row.find(",unknown,") != std::string::npos;
    window_ages += row.substr(row.rfind(',') + 1) == "864000";
  }
  EXPECT_EQ(unknown_rows, still_running);
  EXPECT_EQ(window_ages, 20u);
  EXPECT_GT(still_running, 200u);
  const std::string end_scenario = write("e_s.yaml", pools + end_yaml);
  const auto end_run = gpucap_cli("run " + end_scenario + " -r 2 -q -o " + path("e.h5"));
  ASSERT_EQ(end_run.exit_code, 0) << end_run.output;
}

// --family empirical with --state end: the instances still running at the log's end are older
// than the longest lifetime observed (a lifetime seen in a 10-day window is at most 10 days; the
// 20 created before the log have the window as their age). The Kaplan-Meier mass that censored
// lifetimes leave beyond the last one that ended is written as the empirical's tail, so each of
// them has a rest to draw: the fit no longer refuses (it did: "leaves nothing to draw"), and
// says how many of them the lifetime and the log's own (delayed-entry) survival curve expect
// to be running after 1 day and after the window.
TEST_F(FitCommand, AnEmpiricalLifetimeWithItsTailServesTheStateAtTheEnd) {
  const std::string log = write("instances.csv", instance_log());
  const auto fit = gpucap_cli("fit " + log + " -o " + path("t.yaml") +
                              " --kind deployment --family empirical --state end --window 10d");
  ASSERT_EQ(fit.exit_code, 0) << fit.output;
  const std::string yaml = read_all(path("t.yaml"));
  const double tail = number_after(yaml, "tail_probability: ");
  // Exponential lifetimes of mean 48 h seen for at most 240 h: e^-5 = 0.7% of them outlast the
  // window; the KM estimate beyond its last event is of that order.
  EXPECT_GT(tail, 0.0005) << yaml;
  EXPECT_LT(tail, 0.05) << yaml;
  // The tail's mean excess: the best family's (exponential: its mean, 48 h) mean residual life.
  EXPECT_NEAR(number_after(yaml, "tail_mean: ") / 3600, 48, 48 * 0.15) << yaml;
  EXPECT_NE(fit.output.find("still running after 1 d: "), std::string::npos) << fit.output;
  EXPECT_NE(yaml.find("#   still running after 1 d: "), std::string::npos) << yaml;
  // The section runs with its state: every unknown rest is drawn.
  const std::string pools =
      "name: fitted fleet\nhorizon: 10d\nseed: 3\npools:\n"
      "  od: {gpu: H100, purchase: on_demand, price_usd_per_gpu_hour: 2.5, quota: 2000}\n";
  const std::string scenario = write("t_s.yaml", pools + yaml);
  const auto run = gpucap_cli("run " + scenario + " -r 4 -q -o " + path("t.h5"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
}

// Instance logs that cannot be fitted, and options that do not apply, give clear errors.
TEST_F(FitCommand, DeploymentLogErrors) {
  struct Case {
    const char* csv;
    const char* options;
    const char* message;
  };
  const Case cases[] = {
      {"start_s,end_s,gpus\n0,100,1\n50,20,1\n", "", ":3: column \"end_s\" holds 20, not after"},
      {"start_s,end_s,gpus\n0,100,1\n-50,-5,1\n", "",
       ":3: column \"end_s\" holds -5: the instance "
       "ended at or before t = 0"},
      {"start_s,end_s,gpus\n0,100,1\nabc,200,1\n", "", ":3: column \"start_s\" holds \"abc\""},
      {"start_s,end_s,gpus\n0,100,0\n", "", "GPUs are a whole number"},
      {"start_s,gpus\n0,1\n", "", "end_s"},
      {"start_s,end_s,gpus\n,,8\n0,100,1\n50,,1\n", "",
       "class gpus-8: no instance was created in the window"},
      {"start_s,end_s,gpus\n,,1\n", "", "no start or end after t = 0"},
      {"submit_s,gpus,duration_s\n0,1,5\n", "--kind job --state end",
       "--state applies to --kind deployment only"},
      {"start_s,end_s,gpus\n0,100,1\n", "--state middle", "--state must be start or end"},
  };
  for (const Case& c : cases) {
    const std::string log = write("bad.csv", c.csv);
    std::string options = c.options;
    if (options.find("--kind") == std::string::npos) options += " --kind deployment";
    const auto fit = gpucap_cli("fit " + log + " -o " + path("x.yaml") + " " + options);
    EXPECT_EQ(fit.exit_code, 2) << c.csv << fit.output;
    EXPECT_NE(fit.output.find(c.message), std::string::npos) << c.csv << fit.output;
  }
}

// The fleet's level: a log whose creations triple over its 10 days (the fleet grows with them)
// warns that its level rises; the steady log does not.
TEST_F(FitCommand, AFleetWhoseLevelDriftsWarns) {
  const auto rising = gpucap_cli("fit " + write("rising.csv", instance_log(3)) + " -o " +
                                 path("r.yaml") + " --kind deployment --state end");
  ASSERT_EQ(rising.exit_code, 0) << rising.output;
  EXPECT_NE(rising.output.find("warning: the fleet's level (GPUs in use, daily means) rises"),
            std::string::npos)
      << rising.output;
  EXPECT_EQ(read_all(path("r.yaml")).rfind("# WARNING: the fleet's level", 0), 0u);
  const auto steady = gpucap_cli("fit " + write("steady.csv", instance_log()) + " -o " +
                                 path("s.yaml") + " --kind deployment --state end");
  ASSERT_EQ(steady.exit_code, 0) << steady.output;
  EXPECT_EQ(steady.output.find("the fleet's level"), std::string::npos) << steady.output;
  EXPECT_EQ(steady.output.find("lifetimes change"), std::string::npos) << steady.output;
}

// Instances too short to observe (a life under 1 us: no run time) add nothing to the fleet's
// level and shift nothing: the warning reads as without them, to its last digit (the level once
// took each later instance's life from its neighbour's after such a row).
TEST_F(FitCommand, InstancesTooShortToObserveLeaveTheFleetsLevelAlone) {
  const std::string rising = instance_log(3);
  std::string with_short = rising.substr(0, rising.find('\n') + 1);
  for (int i = 1; i <= 20; ++i)
    with_short += std::to_string(3600 * i) + ".25," + std::to_string(3600 * i) + ".2500001,1\n";
  with_short += rising.substr(rising.find('\n') + 1);
  const auto a = gpucap_cli("fit " + write("a.csv", rising) + " -o " + path("a.yaml") +
                            " --kind deployment --state end");
  const auto b = gpucap_cli("fit " + write("b.csv", with_short) + " -o " + path("b.yaml") +
                            " --kind deployment --state end");
  ASSERT_EQ(a.exit_code, 0) << a.output;
  ASSERT_EQ(b.exit_code, 0) << b.output;
  const auto level = [](const std::string& out) {
    const std::size_t at = out.find("the fleet's level");
    return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
  };
  EXPECT_NE(level(a.output), "");
  EXPECT_EQ(level(a.output), level(b.output));
}

// Lifetimes that shorten: instances created in the log's second half live a third as long
// (mean 16 h, from 48 h). The fit warns on stderr and above the class in the YAML, with the
// log-rank figures; the steady log above does not.
TEST_F(FitCommand, LifetimesThatChangeWarn) {
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> gap(10 / 3600.0), life(1 / (48 * 3600.0));
  const double window = 240 * 3600.0;
  std::string csv = "start_s,end_s,gpus\n";
  for (double t = gap(rng); t < window; t += gap(rng)) {
    const double end = t + life(rng) / (t < window / 2 ? 1 : 3);
    csv += std::to_string(t) + "," + (end < window ? std::to_string(end) : std::string()) + ",1\n";
  }
  const auto fit = gpucap_cli("fit " + write("shorter.csv", csv) + " -o " + path("l.yaml") +
                              " --kind deployment --state end");
  ASSERT_EQ(fit.exit_code, 0) << fit.output;
  EXPECT_NE(fit.output.find("warning: class gpus-1: lifetimes change over the window: instances "
                            "created in its second half end at "),
            std::string::npos)
      << fit.output;
  EXPECT_NE(fit.output.find("log-rank chi2 = "), std::string::npos) << fit.output;
  EXPECT_NE(read_all(path("l.yaml")).find("# WARNING: lifetimes change over the window"),
            std::string::npos);
}

// Every lifetime seen in the window ended (no Kaplan-Meier tail), and the instance created
// before the log, still running, is older than all of them: the empirical lifetime gets the tail
// that survivor implies (1 of 2 + 1), so its rest can be drawn (this was refused).
TEST_F(FitCommand, ASurvivorOlderThanEveryLifetimeGivesTheEmpiricalATail) {
  const std::string log = write("old.csv", "start_s,end_s,gpus\n,,1\n0,10,1\n2,12,1\n");
  const auto fit = gpucap_cli("fit " + log + " -o " + path("w.yaml") +
                              " --kind deployment --family empirical --state end");
  ASSERT_EQ(fit.exit_code, 0) << fit.output;
  const std::string yaml = read_all(path("w.yaml"));
  EXPECT_NEAR(number_after(yaml, "tail_probability: "), 1.0 / 3, 1e-5) << yaml;
  EXPECT_NE(yaml.find("1 instance(s) running at the log's end are at least as old as the "
                      "longest lifetime"),
            std::string::npos)
      << yaml;
}

// --check: the log replayed and the fitted model side by side on the pools of a scenario. A
// fit of a steady log reproduces it: the log's instance-hours, peak and mean instances and cost
// lie within the central 95% of the model's replications (each a 5% chance to miss when the
// model is right; with this seed none does). A log whose creations triple over its window,
// fitted at its average rate, does not: the model starts too busy and ends too quiet, so the
// log's peak (at its end) is above every one of the model's futures. The fit is written and the
// exit code is 0 either way.
TEST_F(FitCommand, CheckAgainstTheLog) {
  const std::string base =
      write("base.yaml",
            "name: fleet\nhorizon: 10d\nseed: 5\npools:\n"
            "  od: {gpu: H100, purchase: on_demand, price_usd_per_gpu_hour: 2.5, quota: 2000}\n");
  const std::string metrics = "instance_hours_demanded,instances_peak,instances_served_mean,cost";
  const std::string steady = write("steady.csv", instance_log());
  const auto fit = gpucap_cli("fit " + steady + " -o " + path("w.yaml") +
                              " --kind deployment --family exponential --window 10d --check " +
                              metrics + " --check-scenario " + base + " --check-replications 60");
  ASSERT_EQ(fit.exit_code, 0) << fit.output;
  for (const char* m :
       {"instance_hours_demanded ", "instances_peak ", "instances_served_mean ", "cost "}) {
    const std::size_t row = fit.output.find(std::string("\n") + m);
    ASSERT_NE(row, std::string::npos) << m << fit.output;
    const std::string line = fit.output.substr(row + 1, fit.output.find('\n', row + 1) - row - 1);
    EXPECT_NE(line.find("  agree"), std::string::npos) << line;
  }
  EXPECT_EQ(fit.output.find("does not reproduce"), std::string::npos) << fit.output;
  EXPECT_TRUE(std::filesystem::exists(path("w.yaml")));
  // What it could not test: the 60 instances alive at the log's start replay their ends.
  EXPECT_NE(fit.output.find("note: --check ran both from the log's start, where its 60 "
                            "instances alive replay their logged ends"),
            std::string::npos)
      << fit.output;

  const std::string rising = write("rising.csv", instance_log(3));
  const auto trend = gpucap_cli("fit " + rising + " -o " + path("r.yaml") +
                                " --kind deployment --family exponential --window 10d --check " +
                                metrics + " --check-scenario " + base + " --check-replications 60");
  ASSERT_EQ(trend.exit_code, 0) << trend.output;
  const std::size_t peak = trend.output.find("\ninstances_peak ");
  ASSERT_NE(peak, std::string::npos) << trend.output;
  const std::string line = trend.output.substr(peak + 1, trend.output.find('\n', peak + 1) - peak);
  EXPECT_NE(line.find("100.0%  DISAGREE"), std::string::npos) << line;
  EXPECT_NE(trend.output.find("warning: the fitted model does not reproduce the log's "
                              "instances_peak"),
            std::string::npos)
      << trend.output;
  EXPECT_NE(trend.output.find("the arrival rate rises"), std::string::npos) << trend.output;
}

// --check's errors: what it needs, what it cannot compare.
TEST_F(FitCommand, CheckErrors) {
  const std::string log = write("log.csv", instance_log());
  const std::string base = write("base.yaml",
                                 "name: b\nhorizon: 1d\npools:\n"
                                 "  od: {gpu: H100, purchase: on_demand, "
                                 "price_usd_per_gpu_hour: 2.5, quota: 2000}\n");
  const std::string no_pools = write("nopools.yaml", "name: b\nhorizon: 1d\n");
  std::string requests = "submit_s,gpus,duration_s\n";
  for (int i = 0; i < 200; ++i)
    requests += std::to_string(60 * i) + "," + (i % 2 ? "1" : "2") + ",5\n";
  const std::string request_log = write("requests.csv", requests);
  const std::string dep = " --kind deployment --check cost";
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {log + dep, "--check needs --check-scenario"},
      {log + " --kind deployment --check costs --check-scenario " + base,
       "--check: unknown metric 'costs'; valid: cost,"},
      {log + dep + " --check-scenario " + base + " --state end", "--state end starts from"},
      {log + dep + " --check-scenario " + no_pools,
       "must be a scenario with name, horizon and pools"},
      {log + dep + " --check-scenario " + base + " --check-replications 1", "--check-replications"},
      {log + " --kind deployment --check-scenario " + base, "apply with --check METRIC"},
      {request_log + " --kind service --placement od --check latency_p99 --check-scenario " + base,
       "--check of a request log needs one class (this one has 2)"},
      {log + dep + " --check-scenario " + path("missing.yaml"), "missing.yaml"},
  };
  for (const Case& c : cases) {
    const auto fit = gpucap_cli("fit " + c.args + " -o " + path("x.yaml"));
    EXPECT_NE(fit.exit_code, 0) << c.args << fit.output;
    EXPECT_NE(fit.output.find(c.message), std::string::npos) << c.args << "\n" << fit.output;
  }
}

// A bursty request log (data/bursty_requests.csv: a Poisson background of 1 request/s and 6
// bursts of 20 s at 20 requests/s over 30 min) is burstier than Poisson at 1 min (index of
// dispersion far above 1), so the service is fitted with bursts; a Poisson log of the same
// length is not. --check runs the service on the replicas of the check scenario's inference
// workload (3), where the log's latency p99 (about 100 s) lies within the bursty model's
// futures; the Poisson model's p99 at that load is under 3 s (docs/fitting.md).
TEST_F(FitCommand, BurstyRequestsAreFittedWithBurstsAndCheckedOnTheGivenReplicas) {
  std::string csv = "submit_s,gpus,duration_s\n";
  {
    std::ifstream in(std::string(GPUCAP_SOURCE_DIR) + "/data/bursty_requests.csv");
    std::string line;
    std::getline(in, line);  // submit_s,duration_s
    while (std::getline(in, line)) {
      const std::size_t comma = line.find(',');
      csv += line.substr(0, comma) + ",1" + line.substr(comma) + "\n";
    }
  }
  const std::string bursty = write("bursty.csv", csv);
  const std::string base = write(
      "base.yaml",
      "name: b\nhorizon: 1798s\nseed: 3\npools:\n"
      "  od: {gpu: H100, purchase: on_demand, price_usd_per_gpu_hour: 2.5, quota: 64}\n"
      "workloads:\n  - {name: s, kind: inference, pool: od, replicas: 3}\n");
  const auto fit = gpucap_cli("fit " + bursty + " -o " + path("w.yaml") +
                              " --kind service --placement od --check latency_p99 "
                              "--check-scenario " + base + " --check-replications 60");
  ASSERT_EQ(fit.exit_code, 0) << fit.output;
  const std::string yaml = read_all(path("w.yaml"));
  EXPECT_NE(yaml.find("burst: {interval: 60s, cv: "), std::string::npos) << yaml;
  const double cv = number_after(yaml, "burst: {interval: 60s, cv: ");
  EXPECT_GT(cv, 0.8);  // ĉ at 1 min: the bursts' 20 requests/s over 1/s
  EXPECT_LT(cv, 2.0);
  EXPECT_NE(yaml.find("-> burstier than Poisson"), std::string::npos);
  const std::size_t row = fit.output.find("\nlatency_p99 ");
  ASSERT_NE(row, std::string::npos) << fit.output;
  const std::string line = fit.output.substr(row + 1, fit.output.find('\n', row + 1) - row - 1);
  EXPECT_NE(line.find("  agree"), std::string::npos) << line;
  std::istringstream cells(line);
  std::string name, unit;
  double log = 0, model = 0;
  cells >> name >> unit >> log >> model;
  EXPECT_GT(log, 50.0);    // 3 replicas under the bursts' queue
  EXPECT_GT(model, 20.0);  // the bursty model's mean p99, against under 3 s for Poisson

  // A Poisson log of 1 request/s over 30 min: no burst.
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> gap(1.0);
  std::string poisson = "submit_s,gpus,duration_s\n";
  for (double t = gap(rng); t < 1800; t += gap(rng)) poisson += std::to_string(t) + ",1,0.5\n";
  const auto plain = gpucap_cli("fit " + write("poisson.csv", poisson) + " -o " + path("p.yaml") +
                                " --kind service --placement od");
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  const std::string p_yaml = read_all(path("p.yaml"));
  EXPECT_EQ(p_yaml.find("burst: {"), std::string::npos) << p_yaml;
  EXPECT_NE(p_yaml.find("-> consistent with Poisson"), std::string::npos) << p_yaml;

  // The check scenario's workloads must be one inference service for a request log.
  const std::string batch = write(
      "batch.yaml",
      "name: b\nhorizon: 1798s\npools:\n"
      "  od: {gpu: H100, purchase: on_demand, price_usd_per_gpu_hour: 2.5, quota: 64}\n"
      "workloads:\n  - {name: j, kind: batch, gpus: 1, work: 1h, "
      "arrivals: {process: poisson, rate_per_hour: 1}}\n");
  const auto refused = gpucap_cli("fit " + bursty + " -o " + path("x.yaml") +
                                  " --kind service --placement od --check latency_p99 "
                                  "--check-scenario " + batch);
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("one workload of kind: inference"), std::string::npos)
      << refused.output;
}

// --check of a job trace: the week of data/sample_week_trace.csv (600 jobs) replayed and its
// fit (a daily profile per class) on 64 on-demand GPUs. The model's arrivals are Poisson with
// mean 600 over the week: its mean over 60 replications is within 4 standard errors
// (4 sqrt(600 / 60) = 12.6) of 600, and the log's 600 lies within the model's 95% of futures,
// as do its GPU-hours and cost.
TEST_F(FitCommand, CheckAJobTrace) {
  const std::string base = write(
      "base.yaml",
      "name: week\nhorizon: 7d\nseed: 5\npools:\n"
      "  od: {gpu: H100, purchase: on_demand, price_usd_per_gpu_hour: 2.5, quota: 64}\n");
  const auto fit = gpucap_cli("fit " + kSample + " -o " + path("w.yaml") +
                              " --placement od --window 7d --check jobs_arrived,gpu_hours_used,"
                              "cost --check-scenario " + base + " --check-replications 60");
  ASSERT_EQ(fit.exit_code, 0) << fit.output;
  for (const char* m : {"jobs_arrived ", "gpu_hours_used ", "cost "}) {
    const std::size_t row = fit.output.find(std::string("\n") + m);
    ASSERT_NE(row, std::string::npos) << m << fit.output;
    const std::string line = fit.output.substr(row + 1, fit.output.find('\n', row + 1) - row - 1);
    EXPECT_NE(line.find("  agree"), std::string::npos) << line;
  }
  const std::size_t row = fit.output.find("\njobs_arrived ");
  std::istringstream cells(fit.output.substr(row + 1));
  std::string name, unit;
  double log = 0, model = 0;
  cells >> name >> unit >> log >> model;
  EXPECT_EQ(log, 600);
  EXPECT_NEAR(model, 600, 4 * std::sqrt(600.0 / 60)) << fit.output;
}

// --check replays exactly the rows the fit accepted: a job of run time 0 s is an arrival of the
// fit (with a note), and the replay runs it as arriving and ending at once (it was exit 2 with
// an error located in the composed scenario, which the user never wrote).
TEST_F(FitCommand, CheckReplaysTheRowsTheFitAccepted) {
  const std::string base = write(
      "base.yaml", "name: z\nhorizon: 1d\nseed: 5\npools:\n"
                   "  od: {gpu: H100, purchase: on_demand, price_usd_per_gpu_hour: 2, quota: 8}\n");
  const std::string trace =
      write("z.csv", "submit_s,gpus,duration_s\n0,1,0\n600,1,60\n3600,1,90\n7200,1,120\n");
  const auto fit = gpucap_cli("fit " + trace + " -o " + path("w.yaml") +
                              " --placement od --window 1d --check jobs_arrived,jobs_completed "
                              "--check-scenario " + base + " --check-replications 20");
  ASSERT_EQ(fit.exit_code, 0) << fit.output;
  EXPECT_NE(fit.output.find("1 job(s) with run time 0 s"), std::string::npos) << fit.output;
  const std::size_t row = fit.output.find("\njobs_completed ");
  ASSERT_NE(row, std::string::npos) << fit.output;
  std::istringstream cells(fit.output.substr(row + 1));
  std::string name, unit;
  double log = 0;
  cells >> name >> unit >> log;
  EXPECT_EQ(log, 4) << fit.output;  // the 0 s job completes in the replay
}

// The output may not be an input of the check: `-o pools.yaml --check-scenario pools.yaml`
// overwrote the user's scenario with the fitted section (then refused it). Refused before
// anything is written, the file left as it was.
TEST_F(FitCommand, TheOutputCannotBeTheCheckScenario) {
  const std::string text =
      "name: z\nhorizon: 7d\nseed: 5\npools:\n"
      "  od: {gpu: H100, purchase: on_demand, price_usd_per_gpu_hour: 2, quota: 64}\n";
  const std::string base = write("pools.yaml", text);
  const auto fit = gpucap_cli("fit " + kSample + " -o " + base +
                              " --placement od --window 7d --check cost --check-scenario " + base);
  EXPECT_NE(fit.exit_code, 0) << fit.output;
  EXPECT_NE(fit.output.find("pools.yaml"), std::string::npos) << fit.output;
  std::ifstream in(base);
  const std::string after((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(after, text);
}
