// gpucap: scenario loader, distributions (fixed values, parametric, empirical samples, preemption logs).
#include "loader.hpp"

#include <cmath>
#include <utility>

#include "availability_json.hpp"
#include "gpucap/json_reader.hpp"

namespace gpucap::loader {

/// The samples of an empirical distribution read from a preemption log: one instance's state
/// at a fixed step (running when > 0, preempted or relaunching when 0), from JSON in the format
/// of the public spot traces ({"metadata": {"gap_seconds": N}, "data": [...]}) or from a CSV
/// column with `step`. Each maximal run of running steps is one lifetime (steps x step s); the
/// preempted steps between them (relaunch delays) are not lifetimes. A run cut by the log's
/// start (left-truncated) or end (still running: right-censored) is a lower bound of its
/// lifetime: kept as it is (`partial: keep`, the default) or dropped (`partial: drop`).
std::vector<double> read_preemption_log(const Context& ctx, const YAML::Node& node,
                                        const std::string& path) {
  const YAML::Node file_node = node["preemption_log"];
  const std::string fpath = join_path(path, "preemption_log");
  const std::string file = read_string(ctx, file_node, fpath);
  const std::string resolved = ctx.resolve(file);
  const bool json = resolved.size() >= 5 && resolved.substr(resolved.size() - 5) == ".json";
  double step_s = 0;
  std::vector<double> states;
  if (json) {
    if (node["column"] || node["step"])
      ctx.fail(node, path,
               "a JSON preemption log carries its own step (metadata.gap_seconds) and states; "
               "remove column and step");
    AvailabilityJson log;
    try {
      read_json(ctx.read_data(file_node, fpath, file)->text(), log);
    } catch (const JsonError& e) {
      ctx.fail(file_node, fpath, text::excerpt(resolved, 300) + ":" + e.what());
    }
    if (!log.has_gap || !log.has_data)
      ctx.fail(file_node, fpath,
               text::excerpt(resolved, 300) +
                   ": expected {\"metadata\": {\"gap_seconds\": N}, \"data\": [states...]}; "
                   "missing " + (log.has_gap ? "data" : "metadata.gap_seconds"));
    step_s = log.gap_s;
    states = std::move(log.counts);
  } else {
    const std::string column = read_string(
        ctx, require(ctx, node, path, "column", "the CSV column of states (running > 0)"),
        join_path(path, "column"));
    step_s = read_duration(ctx, require(ctx, node, path, "step", "the time between rows"),
                           join_path(path, "step"), false);
    states = read_csv_column(ctx, file_node, fpath, file, column);
    for (double v : states)
      if (!(v >= 0))
        ctx.fail(file_node, fpath, "column '" + column + "' must hold states >= 0 (0: preempted)");
  }
  bool keep_partial = true;
  if (node["partial"])
    keep_partial = read_choice<PartialPeriods>(ctx, node["partial"], join_path(path, "partial")) ==
                   PartialPeriods::keep;
  std::vector<double> lifetimes;
  std::size_t partial = 0;
  for (std::size_t i = 0; i < states.size();) {
    if (!(states[i] > 0)) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < states.size() && states[end] > 0) ++end;
    const bool cut = i == 0 || end == states.size();
    partial += cut;
    if (!cut || keep_partial) lifetimes.push_back(static_cast<double>(end - i) * step_s);
    i = end;
  }
  if (lifetimes.empty())
    ctx.fail(file_node, fpath,
             text::excerpt(resolved, 300) + ": the log has no " +
                 (partial > 0 ? "complete running period (its only one is cut by the log's "
                                "start or end; use partial: keep)"
                              : "running period (no state > 0)"));
  return lifetimes;
}

namespace {

/// A distribution given as a plain duration or factor: a fixed value.
DistributionSpec read_fixed_distribution(const Context& ctx, const YAML::Node& node,
                                         const std::string& path, const ScenarioKey& key,
                                         bool time) {
  DistributionSpec d;
  d.kind = DistKind::deterministic;
  if (time) {
    d.p0 = read_duration(ctx, node, path, true);
  } else {
    d.p0 = read_factor(ctx, node, path);
    if (d.p0 < 0) ctx.fail(node, path, "must be a factor >= 0, got " + describe(node));
    check_key_upper(ctx, node, path, key, d.p0);
  }
  return d;
}

/// Reads the parameters of one distribution mapping (`dist` is `dist_name`), each in the unit
/// the key table gives it.
struct ParameterReader {
  const Context& ctx;
  const YAML::Node& node;
  const std::string& path;
  const ScenarioKey& key;
  bool time;
  std::string dist_name;

  /// The row of parameter `name` of this distribution.
  const DistributionParameter& parameter(const char* name) const;
  /// One value of a parameter (or of an item of `values`), in the unit the key table gives it.
  double value_of(const DistributionParameter& p, const YAML::Node& n, const std::string& at) const;
  /// The required parameter `name`, described as `what` when missing.
  double read_parameter(const char* name, const char* what) const;
  /// The required parameter `name`, described by its unit when missing.
  double param(const char* name) const;
};

const DistributionParameter& ParameterReader::parameter(const char* name) const {
  for (const DistributionParameter& p : distribution_parameters())
    if (dist_name == p.dist && std::string(name) == p.key) return p;
  throw std::logic_error("no distribution parameter " + dist_name + "." + name);
}

double ParameterReader::value_of(const DistributionParameter& p, const YAML::Node& n,
                                 const std::string& at) const {
  if (p.in_key_unit && time) return read_duration(ctx, n, at, !(p.lo.open && p.lo.value == 0));
  const double v = p.in_key_unit ? read_factor(ctx, n, at) : read_number(ctx, n, at);
  const KeyBound hi = p.in_key_unit ? scenario_key_upper(key) : p.hi;
  const bool above = p.lo.open ? v > p.lo.value : v >= p.lo.value;
  if (!above || v > hi.value) {
    if (std::isfinite(p.hi.value))
      ctx.fail(n, at,
               "must be from " + text::format_number(p.lo.value) + " to " +
                   text::format_number(p.hi.value) + ", got " + describe(n));
    if (!above)
      ctx.fail(n, at,
               std::string("must be a ") + (p.in_key_unit ? "factor" : "number") +
                   (p.lo.open ? " > " : " >= ") + text::format_number(p.lo.value) + ", got " +
                   describe(n));
    check_key_upper(ctx, n, at, key, v);
  }
  return v;
}

double ParameterReader::read_parameter(const char* name, const char* what) const {
  return value_of(parameter(name), require(ctx, node, path, name, what), join_path(path, name));
}

double ParameterReader::param(const char* name) const {
  return read_parameter(name, !parameter(name).in_key_unit ? "a number > 0"
                              : time                       ? "a duration"
                                                           : "a factor");
}

/// `dist: uniform`: min and max, max above min.
void read_uniform(const ParameterReader& r, DistributionSpec& d) {
  d.p0 = r.param("min");
  d.p1 = r.param("max");
  if (!(d.p1 > d.p0))
    r.ctx.fail(r.node[std::string("max")], join_path(r.path, "max"), "must be greater than min");
}

/// `dist: lognormal`: median and sigma, or mean and cv.
void read_lognormal(const ParameterReader& r, DistributionSpec& d) {
  if (r.node["median"]) {
    if (r.node["mean"] || r.node["cv"])
      r.ctx.fail(r.node, r.path, "give either median and sigma, or mean and cv, not both");
    d.p0 = std::log(r.param("median"));
    d.p1 = r.param("sigma");
  } else {
    const double mean = r.param("mean"), cv = r.param("cv");
    d.p1 = std::sqrt(std::log1p(cv * cv));
    d.p0 = std::log(mean) - 0.5 * d.p1 * d.p1;
  }
}

/// `dist: gamma`: shape and scale, or mean and cv.
void read_gamma(const ParameterReader& r, DistributionSpec& d) {
  if (r.node["shape"]) {
    if (r.node["mean"] || r.node["cv"])
      r.ctx.fail(r.node, r.path, "give either shape and scale, or mean and cv, not both");
    d.p0 = r.param("shape");
    d.p1 = r.param("scale");
  } else {
    const double mean = r.param("mean"), cv = r.param("cv");
    d.p0 = 1.0 / (cv * cv);
    d.p1 = mean / d.p0;
  }
}

/// The samples of `dist: empirical` listed in `values`.
void read_empirical_values(const ParameterReader& r, DistributionSpec& d) {
  const YAML::Node values = r.node["values"];
  const std::string vpath = join_path(r.path, "values");
  if (!values.IsSequence() || values.size() == 0)
    r.ctx.fail(values, vpath,
               std::string("must be a non-empty list of ") + (r.time ? "durations" : "factors"));
  for (std::size_t i = 0; i < values.size(); ++i)
    d.samples.push_back(r.value_of(r.parameter("values"), values[i],
                                   vpath + "[" + std::to_string(i) + "]"));
}

/// The samples of `dist: empirical` read from a CSV `file`'s `column`.
void read_empirical_file(const ParameterReader& r, DistributionSpec& d) {
  const Context& ctx = r.ctx;
  const YAML::Node& node = r.node;
  const std::string& path = r.path;
  const std::string file =
      read_string(ctx, require(ctx, node, path, "file", "a CSV file (or give 'values')"),
                  join_path(path, "file"));
  const std::string column =
      read_string(ctx, require(ctx, node, path, "column", "the CSV column holding seconds"),
                  join_path(path, "column"));
  d.samples = read_csv_column(ctx, node["file"], join_path(path, "file"), file, column);
  for (double v : d.samples)
    if (!(v >= 0))
      ctx.fail(node["file"], join_path(path, "file"),
               "column '" + column + "' must hold " +
                   (r.time ? "durations >= 0 s" : "factors >= 0"));
}

/// `dist: empirical`: samples from a preemption log, `values` or a CSV file, times `scale`.
void read_empirical(const ParameterReader& r, DistributionSpec& d) {
  const Context& ctx = r.ctx;
  const YAML::Node& node = r.node;
  const std::string& path = r.path;
  if (node["preemption_log"]) {
    if (!r.time)
      ctx.fail(node["preemption_log"], join_path(path, "preemption_log"),
               "gives durations (an instance's running periods); this distribution is a plain "
               "factor");
    if (node["values"] || node["file"])
      ctx.fail(node, path, "give one of values, file or preemption_log");
    d.samples = read_preemption_log(ctx, node, path);
  } else if (node["step"] || node["partial"]) {
    ctx.fail(node, path, std::string("'") + (node["step"] ? "step" : "partial") +
                             "' only applies with preemption_log");
  } else if (node["values"]) {
    read_empirical_values(r, d);
  } else {
    read_empirical_file(r, d);
  }
  const double scale = node["scale"]
                           ? r.value_of(r.parameter("scale"), node["scale"], join_path(path, "scale"))
                           : 1.0;
  for (double& v : d.samples) v *= scale;
  // A tail beyond the largest sample: with probability tail_probability the value is the
  // largest plus an exponential of mean tail_mean (what a fit of censored lifetimes leaves
  // beyond its longest observed one). Kept in p0 and p1, which an empirical leaves unused.
  if (node["tail_probability"] || node["tail_mean"]) {
    if (!r.time)
      ctx.fail(node["tail_probability"] ? node["tail_probability"] : node["tail_mean"], path,
               "a tail applies to durations, not to a plain factor");
    d.p0 = r.param("tail_probability");
    d.p1 = r.param("tail_mean");
  }
}

}  // namespace

DistributionSpec read_distribution(const Context& ctx, const YAML::Node& node,
                                   const std::string& path) {
  const ScenarioKey& key = key_row(path);
  const bool time = key.unit == UnitKind::duration;
  if (node.IsScalar()) return read_fixed_distribution(ctx, node, path, key, time);
  DistributionSpec d;
  if (!node.IsMap())
    ctx.fail(node, path,
             std::string("must be ") + (time ? "a duration" : "a factor") +
                 " or a mapping with 'dist'; got " + describe(node));
  const YAML::Node kind_node =
      require(ctx, node, path, "dist",
              "one of deterministic, exponential, uniform, lognormal, gamma, weibull, pareto, "
              "empirical");
  d.kind = read_choice<DistKind>(ctx, kind_node, join_path(path, "dist"));
  const ParameterReader r{ctx, node, path, key, time, kind_node.Scalar()};
  // The mapping may hold `dist` and the parameters of its kind only.
  std::vector<std::string> allowed{"dist"};
  for (const DistributionParameter& p : distribution_parameters())
    if (r.dist_name == p.dist) allowed.push_back(p.key);
  expect_map(ctx, node, path, allowed);
  switch (d.kind) {
    case DistKind::deterministic:
      d.p0 = r.param("value");
      break;
    case DistKind::exponential:
      d.p0 = r.param("mean");
      break;
    case DistKind::uniform:
      read_uniform(r, d);
      break;
    case DistKind::lognormal:
      read_lognormal(r, d);
      break;
    case DistKind::gamma:
      read_gamma(r, d);
      break;
    case DistKind::weibull:
      d.p0 = r.param("shape");
      d.p1 = r.param("scale");
      break;
    case DistKind::pareto:
      d.p0 = r.param("shape");
      d.p1 = r.param("scale");
      break;
    case DistKind::empirical:
      read_empirical(r, d);
      break;
  }
  return d;
}

// ---- sections -------------------------------------------------------------------------------

}  // namespace gpucap::loader
