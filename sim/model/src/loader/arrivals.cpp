// gpucap: scenario loader, a workload's `arrivals`: Poisson, NHPP with profiles, trace replay and its resampling.
#include "loader.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace gpucap::loader {

double read_rate_per_s(const Context& ctx, const YAML::Node& node, const std::string& path) {
  static const std::vector<std::pair<std::string, double>> units = {{"rate_per_s", 1.0},
                                                                    {"rate_per_min", 60.0},
                                                                    {"rate_per_hour", 3600.0},
                                                                    {"rate_per_day", 86400.0}};
  double rate = -1;
  for (const auto& [key, per_s] : units) {
    if (!node[key]) continue;
    if (rate >= 0)
      ctx.fail(node, path,
               "give exactly one of rate_per_s, rate_per_min, "
               "rate_per_hour, rate_per_day");
    rate = read_key_number(ctx, node[key], join_path(path, key)) / per_s;
  }
  if (rate < 0)
    ctx.fail(node, path,
             "needs a rate: one of rate_per_s, rate_per_min, rate_per_hour, "
             "rate_per_day");
  return rate;
}

/// How a trace is replayed: `start`, `scale_rate` and `resample` (a block bootstrap). `a.trace`
/// holds the rows, sorted.
void read_trace_replay(const Context& ctx, const YAML::Node& node, const std::string& path,
                       ArrivalSpec& a) {
  const double last_submit_s = a.trace.back().submit_s;
  if (node["start"]) {
    const std::string spath = join_path(path, "start");
    a.trace_start_s = read_key_duration(ctx, node["start"], spath);
    if (a.trace_start_s > last_submit_s)
      ctx.fail(node["start"], spath,
               "is after the trace's last submit time (" + text::format_number(last_submit_s) +
                   " s): no job would be replayed");
  }
  if (node["scale_rate"])
    a.scale_rate = read_key_number(ctx, node["scale_rate"], join_path(path, "scale_rate"));
  if (!node["resample"]) {
    if (a.scale_rate > 1)
      ctx.fail(node["scale_rate"], join_path(path, "scale_rate"),
               "above 1 superposes independent resamples of the trace; add resample: {block: "
               "1d} (replaying the same trace twice would submit every job twice at once)");
    return;
  }
  const std::string rpath = join_path(path, "resample");
  const YAML::Node r = node["resample"];
  if (!r.IsMap())
    ctx.fail(r, rpath, "must be a mapping with 'block' (e.g. {block: 1d}); got " + describe(r));
  expect_map(ctx, r, rpath, scenario_child_keys("workloads[].arrivals.resample"));
  if (node["start"])
    ctx.fail(node["start"], join_path(path, "start"),
             "cannot be combined with resample: the bootstrap draws where each block starts");
  a.resample_block_s = read_key_duration(
      ctx, require(ctx, r, rpath, "block", "the block length, e.g. 1d"), join_path(rpath, "block"));
  a.resample = TraceResample::moving;
  if (r["method"])
    a.resample = read_choice<TraceResample>(ctx, r["method"], join_path(rpath, "method"));
  a.resample_phase_s = 86400;
  if (r["phase"]) a.resample_phase_s = read_key_duration(ctx, r["phase"], join_path(rpath, "phase"));
  const double phase = a.resample_phase_s;
  if (r["period"]) {
    const std::string ppath = join_path(rpath, "period");
    a.resample_period_s = read_key_duration(ctx, r["period"], ppath);
    const double phases = a.resample_period_s / phase;
    if (std::fabs(phases - std::round(phases)) > 1e-9 * phases || std::round(phases) < 1)
      ctx.fail(r["period"], ppath,
               "must be a whole multiple of phase (" + text::format_number(phase) + " s), got " +
                   text::format_number(a.resample_period_s) + " s");
    a.resample_period_s = std::round(phases) * phase;
    if (!(a.resample_period_s > last_submit_s))
      ctx.fail(r["period"], ppath,
               "must be after the trace's last submit time (" + text::format_number(last_submit_s) +
                   " s), got " + text::format_number(a.resample_period_s) + " s");
  } else {
    a.resample_period_s = (std::floor(last_submit_s / phase) + 1) * phase;
  }
  if (a.resample_period_s / phase > 4294967295.0)
    ctx.fail(r, rpath, "period / phase must be at most 2^32 - 1 phases; use a longer phase");
}

namespace {

/// The keys of an arrival `process`, from the key table.
std::vector<std::string> keys_of_process(const char* process) {
  return scenario_child_keys("workloads[].arrivals", "process", process);
}

/// `process: nhpp`: a rate and an hourly or weekly profile of multipliers.
void read_profile_arrivals(const Context& ctx, const YAML::Node& node, const std::string& path,
                           ArrivalSpec& a) {
  expect_map(ctx, node, path, keys_of_process("nhpp"));
  a.rate_per_s = read_rate_per_s(ctx, node, path);
  const bool hourly = static_cast<bool>(node["hourly_profile"]);
  if (hourly == static_cast<bool>(node["weekly_profile"]))
    ctx.fail(node, path,
             "give exactly one of hourly_profile (24 multipliers, hour 0 first) or "
             "weekly_profile (168 multipliers, Monday 00:00 first)");
  const std::string key = hourly ? "hourly_profile" : "weekly_profile";
  const YAML::Node prof = node[key];
  const std::size_t want = hourly ? 24 : 168;
  if (!prof.IsSequence() || prof.size() != want)
    ctx.fail(prof, join_path(path, key),
             "must be a list of exactly " + std::to_string(want) + " multipliers >= 0");
  double sum = 0;
  for (std::size_t i = 0; i < want; ++i) {
    a.profile.push_back(read_key_number(ctx, prof[i], join_path(path, key) + "[" + std::to_string(i) + "]"));
    sum += a.profile.back();
  }
  if (!(sum > 0)) ctx.fail(prof, join_path(path, key), "must have a multiplier > 0");
  a.profile_bin_s = 3600;
}

/// The rows of a trace file (submit times and durations in `unit_s`), appended to `a.trace`.
/// Returns whether they are in submit order.
/// `tokens`: an LLM service's requests, whose durations are not read (assign_trace_tokens
/// gives each row its work).
bool read_trace_rows(const Context& ctx, const YAML::Node& file_node, const std::string& fpath,
                     const TraceColumns& columns, double unit_s, bool requests, bool tokens,
                     ArrivalSpec& a) {
  const std::string& submit = columns.submit;
  const std::string& gpus = columns.gpus;
  const std::string& duration = columns.duration;
  bool in_order = true;
  try {
    const CsvTable table = ctx.read_csv(file_node, fpath, a.trace_file);
    const NumberColumn t = table.number_column(submit);
    const NumberColumn w = tokens ? NumberColumn(t.size(), 0.0) : table.number_column(duration);
    const NumberColumn g =
        requests ? NumberColumn(t.size(), 1.0) : table.number_column(gpus);
    const std::size_t n = t.size();
    a.trace.reserve(a.trace.size() + n);
    advise_huge_pages(a.trace.data(), a.trace.capacity() * sizeof(TraceRow));
    // Whether the rows are in submit order, checked as they are made (is_sorted's answer).
    double last_submit_s = a.trace.empty() ? -HUGE_VAL : a.trace.back().submit_s;
    for (std::size_t i = 0; i < n; ++i) {
      const double ti = t[i], gi = g[i], wi = w[i];
      // A whole number in [1, kMaxTotalQuotaGpus] converts to uint32_t and back unchanged.
      const bool gpus_ok = gi >= 1 && gi <= kMaxTotalQuotaGpus &&
                           static_cast<double>(static_cast<uint32_t>(gi)) == gi;
      // A run time of 0 (a job that failed at once, as logs hold) arrives and ends at once, as
      // a work distribution's 0 does.
      if (!(ti >= 0) || !gpus_ok || !(wi >= 0) || !(wi * unit_s <= kMaxDurationS)) {
        const std::string row = a.trace_file + " data row " + std::to_string(i + 1) + ": ";
        if (!(ti >= 0)) ctx.fail(file_node, fpath, row + submit + " must be >= 0");
        if (!gpus_ok) ctx.fail(file_node, fpath, row + gpus + " must be a whole number >= 1");
        ctx.fail(file_node, fpath, row + duration + " must be >= 0 and at most 10000 years");
      }
      const double submit_s = ti * unit_s;
      in_order = in_order && !(submit_s < last_submit_s);
      last_submit_s = submit_s;
      a.trace.push_back({submit_s, static_cast<uint32_t>(gi), static_cast<uint32_t>(i + 1), wi * unit_s});
    }
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const ScenarioError*>(&e)) throw;
    ctx.fail(file_node, fpath, e.what());
  }
  return in_order;
}

/// `process: trace`: a CSV file of jobs (requests: without GPU counts; instances: with their
/// ends), sorted by submit time, and how it is replayed.
void read_trace_arrivals(const Context& ctx, const YAML::Node& node, const std::string& path,
                         ArrivalsOf what, ArrivalSpec& a) {
  const bool requests = what == ArrivalsOf::requests || what == ArrivalsOf::llm_requests;
  const bool tokens = what == ArrivalsOf::llm_requests;
  std::vector<std::string> keys = keys_of_process("trace");
  // Requests have no GPU count: an inference trace has no gpus_column; an LLM service's
  // requests take the time their tokens take: no duration_column.
  if (requests) keys.erase(std::find(keys.begin(), keys.end(), "gpus_column"));
  if (tokens) keys.erase(std::find(keys.begin(), keys.end(), "duration_column"));
  // Only a deployment's trace has instances' ends.
  if (what != ArrivalsOf::instances)
    for (const char* key : {"end_column", "blank_end"}) keys.erase(std::find(keys.begin(), keys.end(), key));
  expect_map(ctx, node, path, keys);
  a.trace_file =
      read_string(ctx, require(ctx, node, path, "file", "a CSV file"), join_path(path, "file"));
  auto column = [&](const char* key, const char* fallback) {
    return node[key] ? read_string(ctx, node[key], join_path(path, key)) : std::string(fallback);
  };
  const std::string submit = column("submit_column", "submit_s");
  const std::string gpus = column("gpus_column", "gpus");
  const std::string duration = column("duration_column", "duration_s");
  const std::string end = column("end_column", "");
  if (node["end_column"] && node["duration_column"])
    ctx.fail(node["end_column"], join_path(path, "end_column"),
             "give either end_column (when each instance ended) or duration_column (its "
             "lifetime), not both");
  const bool still_running =
      node["blank_end"] && read_choice<BlankEnd>(ctx, node["blank_end"], join_path(path, "blank_end")) ==
                               BlankEnd::still_running;
  if (what == ArrivalsOf::instances && node["start"])
    ctx.fail(node["start"], join_path(path, "start"),
             "a deployment's trace starts at t = 0: instances that began earlier are the state "
             "at t = 0; trim the file or shift its times instead");
  double unit_s = 1.0;
  if (node["time_unit"])
    unit_s = read_key_duration(ctx, node["time_unit"], join_path(path, "time_unit"));
  const YAML::Node file_node = node["file"];
  const std::string fpath = join_path(path, "file");
  const TraceColumns columns{submit, gpus, duration, end};
  const bool in_order =
      what == ArrivalsOf::instances
          ? read_instance_rows(ctx, file_node, fpath, columns, unit_s, still_running, a)
          : read_trace_rows(ctx, file_node, fpath, columns, unit_s, requests, tokens, a);
  if (a.trace.empty())
    ctx.fail(file_node, fpath,
             what == ArrivalsOf::instances && !a.alive_at_start.empty()
                 ? "the trace has no instance that starts at or after t = 0 (only the state at "
                   "t = 0); a deployment's trace needs at least one arrival"
                 : "the trace has no rows");
  const auto by_submit = [](const TraceRow& x, const TraceRow& y) { return x.submit_s < y.submit_s; };
  // Logs are nearly always in order already (checked as the rows were made); the sort costs
  // a copy.
  if (!in_order)
    std::stable_sort(a.trace.begin(), a.trace.end(), by_submit);
  read_trace_replay(ctx, node, path, a);
}

/// `KEY: {interval, VALUE}` of a poisson or nhpp process (burst: cv; drift: sd_log): the
/// interval into `interval_s`, the value (a number >= 0) into `value`.
void read_interval_and_value(const Context& ctx, const YAML::Node& node, const std::string& path,
                             const std::string& key, const std::string& value_key,
                             double& interval_s, double& value) {
  const std::string kpath = join_path(path, key);
  const YAML::Node k = node[key];
  expect_map(ctx, k, kpath, scenario_child_keys("workloads[].arrivals." + key));
  interval_s = read_key_duration(ctx, require(ctx, k, kpath, "interval", "a duration > 0"),
                                 join_path(kpath, "interval"));
  value = read_key_number(ctx, require(ctx, k, kpath, value_key, "a number >= 0"),
                          join_path(kpath, value_key));
}

}  // namespace

ArrivalSpec read_arrivals(const Context& ctx, const YAML::Node& node, const std::string& path,
                          ArrivalsOf what) {
  ArrivalSpec a;
  if (!node.IsMap())
    ctx.fail(node, path,
             "must be a mapping with 'process' (poisson, nhpp, trace); got " + describe(node));
  const YAML::Node process = require(ctx, node, path, "process", "poisson, nhpp or trace");
  a.kind = read_choice<ArrivalKind>(ctx, process, join_path(path, "process"));
  if (a.kind == ArrivalKind::poisson) {
    expect_map(ctx, node, path, keys_of_process("poisson"));
    a.rate_per_s = read_rate_per_s(ctx, node, path);
  } else if (a.kind == ArrivalKind::profile) {
    read_profile_arrivals(ctx, node, path, a);
  } else {
    read_trace_arrivals(ctx, node, path, what, a);
  }
  if (a.kind != ArrivalKind::trace && node["burst"])
    read_interval_and_value(ctx, node, path, "burst", "cv", a.burst_interval_s, a.burst_cv);
  if (a.kind != ArrivalKind::trace && node["drift"])
    read_interval_and_value(ctx, node, path, "drift", "sd_log", a.drift_interval_s, a.drift_sd_log);
  return a;
}

}  // namespace gpucap::loader
