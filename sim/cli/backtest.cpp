#include "backtest.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <yaml-cpp/yaml.h>

#include "gpucap/detail/text.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"
#include "gpucap/summary.hpp"
#include "gpucap/sweep.hpp"
#include "composed_scenario.hpp"
#include "lookback.hpp"

namespace gpucap::cli {
namespace fs = std::filesystem;
namespace {

double mean_of(const std::vector<double>& v) {
  if (v.empty()) return std::nan("");
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

fit::FitKind fit_kind(LogKind k) {
  return k == LogKind::instances ? fit::FitKind::deployment
         : k == LogKind::jobs    ? fit::FitKind::job
                                 : fit::FitKind::service;
}

/// The columns of the CSVs BacktestLog writes.
fit::TraceColumns written_columns(const BacktestLog& log) {
  fit::TraceColumns c;
  if (log.kind() == LogKind::instances) {
    c.submit = "start_s";
    c.end = "end_s";
  }
  c.class_by = log.class_column().empty() ? "gpus" : log.class_column();
  return c;
}

/// What happened, as one workload like the fitted first one: the instances alive at T as its
/// state at t = 0, and what arrived after T as a trace (with no arrival, a Poisson process of
/// one arrival in 10^12 s: none in practice, as a trace needs a row).
YAML::Node replay_workload(const YAML::Node& first, LogKind kind, const std::string& arrivals,
                           std::size_t arrived, const std::string& state, std::size_t alive,
                           uint32_t max_gpus) {
  YAML::Node w = YAML::Clone(first);
  w["name"] = "what happened";
  for (const char* key : {"work", "service", "lifetime", "initial_state", "uncertainty"})
    w.remove(key);
  YAML::Node a;
  if (arrived == 0) {
    a["process"] = "poisson";
    a["rate_per_s"] = 1e-12;
    if (kind == LogKind::instances) w["lifetime"] = "1s";
    else w[kind == LogKind::requests ? "service" : "work"] = "1s";
  } else {
    a["process"] = "trace";
    a["file"] = arrivals;
    if (kind == LogKind::instances) {
      a["submit_column"] = "start_s";
      a["end_column"] = "end_s";
      a["blank_end"] = "still_running";
    } else {
      a["submit_column"] = "submit_s";
      a["duration_column"] = "duration_s";
    }
    if (kind != LogKind::requests) a["gpus_column"] = "gpus";
  }
  if (kind != LogKind::requests) w["gpus"] = max_gpus;
  w["arrivals"] = a;
  if (alive > 0) {
    YAML::Node s;
    s["file"] = state;
    s["time_unit"] = "1s";
    w["initial_state"] = s;
  }
  return w;
}

/// Runs the scenario `text` over `grid`; `base` receives the scenario parsed (its points' base).
RunResults run_sweep(const std::string& text, const std::string& origin, const fs::path& dir,
                     const std::vector<SweepParameter>& grid, uint64_t replications,
                     const InputLimits& limits, Scenario& base) {
  const std::vector<Scenario> points =
      load_sweep_points(text, origin, dir.string(), {}, grid, limits);
  base = parse_scenario(text, origin, dir.string(), {}, limits);
  RunOptions options;
  options.replications = replications;
  options.backend = BackendChoice::cpu;
  return run_points(points, grid, base, options);
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

/// One origin, scored (OriginResult); throws what fails.
/// `dir`: an absolute folder for the origin's files; `pools_dir`: where the pools file's
/// relative paths resolve (the composed scenarios are parsed there).
OriginResult forecast_origin(const BacktestOptions& o, const BacktestLog& log,
                             const YAML::Node& base, double t, const fs::path& dir,
                             const fs::path& pools_dir, double& lookback_ratio) {
  OriginResult r;
  r.origin_s = t;
  const std::string label = text::excerpt(o.log_path, 200) + " at T = " + text::format_duration(t);
  const fit::JobTrace trace = fit::read_job_trace(log.known_at(t), label, written_columns(log), t);
  fit::FitWorkloadsOptions fo;
  fo.family = o.family;
  fo.trend = o.trend;
  fo.origin_offset_s = o.origin_offset_s;
  fo.forecast_from_end = true;
  fo.yaml.source = label;
  fo.yaml.placement = o.placement;
  fo.yaml.alpha = o.alpha;
  fo.yaml.kind = fit_kind(o.kind);
  fo.yaml.state = fit::StateChoice::end;
  const fit::FittedWorkloads fitted = fit::fit_workloads(trace, (dir / "fit.yaml").string(), fo);
  for (const fit::SamplesFile& s : fitted.samples) write_file(s.path, s.csv);
  for (const std::string& w : fitted.warnings) r.notes.push_back(w);
  for (const fit::ClassFit& f : fitted.fits) {
    if (f.arrival_warning)
      for (const std::string& n : f.arrival_notes) r.notes.push_back(f.job_class->name + ": " + n);
    for (const std::string& w : f.run_time.warnings) r.notes.push_back(f.job_class->name + ": " + w);
  }
  YAML::Node workloads = YAML::Load(fitted.yaml)["workloads"];
  for (YAML::Node w : workloads) absolute_side_files(w, dir);

  std::vector<SweepParameter> grid;
  if (!o.plan_path.empty()) grid.push_back(SweepParameter{o.plan_path, o.plan_values});
  const std::string forecast_text = composed_text(base, workloads, o.horizon_s);
  Scenario forecast_scenario;
  const RunResults forecast = run_sweep(forecast_text, label + " (forecast)", pools_dir, grid,
                                        o.replications, o.limits, forecast_scenario);

  // The look-back recommender's count, from the hours before T.
  if (!o.plan_path.empty() && lookback_ratio < 0 && o.lookback_ratio < 0) {
    try {
      lookback_ratio = lookback_ratio_of(forecast_scenario, o.plan_path);
    } catch (const std::invalid_argument&) {
      lookback_ratio = 0;  // none: the plan is not a commitment's count
    }
  }
  const double ratio = o.lookback_ratio >= 0 ? o.lookback_ratio : lookback_ratio;
  std::vector<SweepParameter> truth_grid = grid;
  if (!grid.empty() && ratio > 0 && ratio < 1) {
    const double from = std::max(0.0, t - o.lookback_s);
    r.lookback_value = lookback_commitment(log.hourly_usage(from, t), ratio);
    r.has_lookback = true;
    truth_grid[0].values.push_back(text::format_number(r.lookback_value));
  }
  std::size_t arrived = 0, alive = 0;
  const std::string arrivals_file = (dir / "arrived.csv").string();
  const std::string state_file = (dir / "alive.csv").string();
  write_file(arrivals_file, log.arrived(t, o.horizon_s, arrived));
  write_file(state_file, log.alive_at(t, alive));
  YAML::Node replay(YAML::NodeType::Sequence);
  replay.push_back(replay_workload(workloads[0], o.kind, arrivals_file, arrived, state_file, alive,
                                   largest_class_gpus(trace)));
  Scenario truth_scenario;
  const RunResults truth =
      run_sweep(composed_text(base, replay, o.horizon_s), label + " (what happened)", pools_dir,
                truth_grid, o.truth_replications, o.limits, truth_scenario);

  // The forecast's plan: the lowest mean objective.
  const std::size_t points = grid.empty() ? 1 : grid[0].values.size();
  for (std::size_t p = 0; p < points; ++p) {
    r.forecast_objective.push_back(mean_of(defined_values(forecast, p, o.objective)));
    r.truth_objective.push_back(mean_of(defined_values(truth, p, o.objective)));
    if (r.forecast_objective[p] < r.forecast_objective[r.chosen]) r.chosen = p;
    if (r.truth_objective[p] < r.truth_objective[r.best]) r.best = p;
  }
  if (!grid.empty()) {
    double best = r.truth_objective[r.best];
    if (r.has_lookback) {
      r.lookback_truth = mean_of(defined_values(truth, points, o.objective));
      best = std::min(best, r.lookback_truth);
      r.lookback_regret = r.lookback_truth / best - 1;
    }
    r.regret = r.truth_objective[r.chosen] / best - 1;
  }
  for (ScalarMetric m : o.metrics) {
    MetricForecast mf;
    mf.metric = m;
    std::vector<double> v = defined_values(forecast, r.chosen, m);
    const std::vector<double> real = defined_values(truth, r.chosen, m);
    std::sort(v.begin(), v.end());
    mf.defined = !v.empty() && !real.empty();
    if (mf.defined) {
      mf.truth = mean_of(real);
      mf.mean = mean_of(v);
      mf.q05 = type7_quantile(v, 0.05);
      mf.q25 = type7_quantile(v, 0.25);
      mf.q50 = type7_quantile(v, 0.5);
      mf.q75 = type7_quantile(v, 0.75);
      mf.q95 = type7_quantile(v, 0.95);
      const auto lo = std::lower_bound(v.begin(), v.end(), mf.truth);
      const auto hi = std::upper_bound(v.begin(), v.end(), mf.truth);
      mf.pit = (static_cast<double>(lo - v.begin()) + 0.5 * static_cast<double>(hi - lo)) /
               static_cast<double>(v.size());
    }
    r.metrics.push_back(mf);
  }
  return r;
}

}  // namespace

std::vector<double> backtest_origins(const BacktestOptions& o, double window_s) {
  std::vector<double> origins;
  for (double t = o.first_s; t + o.horizon_s <= window_s * (1 + 1e-12) &&
                             origins.size() < o.max_origins;
       t += o.every_s)
    origins.push_back(t);
  return origins;
}

BacktestResult run_backtest(const BacktestOptions& o, const std::string& log_text,
                            const std::function<void(std::size_t, std::size_t, double)>& progress) {
  const BacktestLog log = BacktestLog::read(log_text, o.log_path, o.kind, o.columns, o.window_s);
  const std::vector<double> origins = backtest_origins(o, log.window_s());
  if (origins.empty())
    throw std::invalid_argument(
        "the log ends at " + text::format_duration(log.window_s()) +
        ": no origin T = --first (" + text::format_duration(o.first_s) + ") leaves the horizon (" +
        text::format_duration(o.horizon_s) + ") inside it; give an earlier --first or a shorter "
        "--horizon");
  const YAML::Node base = read_pools_scenario(
      o.pools_path, o.limits, "--pools",
      "a scenario with name and pools (its horizon and workloads, if any, are replaced)");
  // Relative paths of the pools file resolve against its folder: the composed scenarios are
  // parsed there.
  const fs::path pools_dir = fs::absolute(fs::path(o.pools_path)).parent_path();
  BacktestResult result;
  double derived_ratio = -1;
  for (std::size_t i = 0; i < origins.size(); ++i) {
    if (progress) progress(i, origins.size(), origins[i]);
    const fs::path dir = fs::absolute(fs::path(o.work_dir) / ("origin-" + std::to_string(i)));
    fs::create_directories(dir);
    OriginResult r;
    try {
      r = forecast_origin(o, log, base, origins[i], dir, pools_dir, derived_ratio);
    } catch (const std::exception& e) {
      r.origin_s = origins[i];
      // Its first line (a sweep's error lists every point; they all fail alike).
      const std::string what = e.what();
      const std::size_t eol = what.find('\n');
      r.error = eol == std::string::npos ? what : what.substr(0, eol) + " (...)";
    }
    std::error_code ignored;
    fs::remove_all(dir, ignored);
    result.origins.push_back(std::move(r));
  }
  result.lookback_ratio = o.lookback_ratio >= 0 ? o.lookback_ratio : derived_ratio;
  for (ScalarMetric m : o.metrics) {
    MetricCoverage c;
    c.metric = m;
    double pit = 0;
    for (const OriginResult& r : result.origins)
      for (const MetricForecast& f : r.metrics)
        if (f.metric == m && f.defined && r.error.empty()) {
          ++c.origins;
          c.in50 += f.truth >= f.q25 && f.truth <= f.q75;
          c.in90 += f.truth >= f.q05 && f.truth <= f.q95;
          pit += f.pit;
        }
    c.mean_pit = c.origins ? pit / static_cast<double>(c.origins) : std::nan("");
    result.coverage.push_back(c);
  }
  double regret = 0, lookback = 0;
  std::size_t with_lookback = 0;
  for (const OriginResult& r : result.origins)
    if (r.error.empty() && !o.plan_path.empty()) {
      ++result.planned;
      regret += r.regret;
      if (r.has_lookback) {
        lookback += r.lookback_regret;
        ++with_lookback;
      }
    }
  result.mean_regret = result.planned ? regret / static_cast<double>(result.planned) : std::nan("");
  result.mean_lookback_regret =
      with_lookback ? lookback / static_cast<double>(with_lookback) : std::nan("");
  return result;
}

}  // namespace gpucap::cli
