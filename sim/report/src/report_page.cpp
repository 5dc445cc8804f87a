#include "gpucap/report/report_page.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "gpucap/cheapest.hpp"
#include "gpucap/default_metrics.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/goal_summary.hpp"
#include "gpucap/metric_explain.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/report/html.hpp"
#include "gpucap/report/svg_chart.hpp"
#include "gpucap/result_warnings.hpp"
#include "gpucap/version.hpp"

namespace gpucap::report {

namespace {

const char* kStyle = R"(body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
margin:24px auto;max-width:1280px;padding:0 16px;color:#222;background:#fff}
h1{font-size:1.6em;margin-bottom:4px}h2{font-size:1.25em;margin-top:32px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:8px 0;font-size:0.9em}
th,td{padding:3px 10px;white-space:nowrap;border-bottom:1px solid #eee;text-align:right;vertical-align:top}
th{background:#f4f4f4;white-space:normal}td.text,th.text{text-align:left;white-space:normal}
td.text{overflow-wrap:anywhere}th.text{overflow-wrap:break-word}
tr.chosen td{background:#fff3e0;font-weight:600}
pre{background:#f7f7f7;padding:10px;overflow-x:auto;font-size:0.85em}
.note{color:#555;font-size:0.9em}.warning{background:#fff4e5;border-left:4px solid #e8a33d;padding:6px 10px}.wide{overflow-x:auto}.charts{display:flex;flex-wrap:wrap;gap:12px}
svg.chart{background:#fff;border:1px solid #e4e4e4;font-size:11px;font-family:inherit}
svg .grid{stroke:#e6e6e6}svg .tick{stroke:#666}svg .frame{fill:none;stroke:#888}
svg .chart-title{font-size:13px;font-weight:600}svg .axis-label{font-size:12px}
svg .whisker{stroke:#222;stroke-width:1.5;fill:none}svg .point-label{font-size:10px}
svg .bars rect{stroke:#fff;stroke-width:0.5}
)";

ScalarMetric metric_named(const std::string& option, const std::string& name) {
  return scalar_metric_named(option, name);
}

using Groups = MeasuredKinds;
Groups groups_of(const RunResults& r) { return measured_kinds(r); }

/// Largest finite magnitude among a summary's statistics (chooses a duration's display unit).
double magnitude(const MetricSummary& s) {
  double a = 0;
  for (double v : {s.mean, s.p95, s.ci95_high})
    if (std::isfinite(v)) a = std::max(a, std::fabs(v));
  return a;
}

std::string cell(const std::string& text, bool is_text = false) {
  return std::string(is_text ? "<td class=\"text\">" : "<td>") + text + "</td>";
}

std::string interval(const MetricSummary& s, double scale) {
  if (std::isnan(s.ci95_low) || std::isnan(s.ci95_high)) return "n/a";
  return "[" + format_number(s.ci95_low / scale) + (s.clipped_low ? "*" : "") + ", " +
         format_number(s.ci95_high / scale) + (s.clipped_high ? "*" : "") + "]";
}

/// Quantile q (type 7, as numpy's default) of sorted values.
double quantile_sorted(const std::vector<double>& v, double q) {
  if (v.empty()) return std::nan("");
  const double h = (static_cast<double>(v.size()) - 1) * q;
  const std::size_t lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

std::string scenario_section(const RunResults& r, const ReportOptions& options) {
  std::string out = "<h2>Scenario</h2>\n<table>\n";
  const auto row = [&](const std::string& key, const std::string& value) {
    out += "<tr><th class=\"text\">" + key + "</th>" + cell(escape_html(value), true) + "</tr>\n";
  };
  row("name", r.scenario_name);
  if (!options.source.empty()) row("results file", options.source);
  row("seed", std::to_string(r.seed));
  row("replications",
      std::to_string(r.replications) +
          (r.first_replication ? " (from replication " + std::to_string(r.first_replication) + ")"
                               : "") +
          (r.points > 1 ? " per point" : ""));
  if (!r.all_rows())
    row("rows kept", r.rows_per_point() == 0 ? std::string("none (--rows none)")
                                             : "the first " + std::to_string(r.rows_per_point()));
  if (r.points > 1) row("sweep points", std::to_string(r.points));
  if (!r.stopping_rule.empty()) row("stopping rule", r.stopping_rule);
  row("backend", r.backend + " (" + r.device + ")");
  row("wall time", format_number(r.wall_time_s) + " s");
  row("pools", [&] {
    std::string names;
    for (std::size_t p = 0; p < r.pool_count(); ++p) names += (p ? ", " : "") + r.pool_names[p];
    return names;
  }());
  row("simulated by", "gpucap " + r.gpucap_version);
  row("report by", std::string("gpucap ") + kVersion);
  out += "</table>\n";

  if (!r.scenario_overrides.empty()) {
    out +=
        "<h3>Overrides</h3>\n<table><tr><th class=\"text\">path</th><th class=\"text\">value"
        "</th></tr>\n";
    for (const auto& o : r.scenario_overrides)
      out +=
          "<tr>" + cell(escape_html(o.first), true) + cell(escape_html(o.second), true) + "</tr>\n";
    out += "</table>\n";
  }
  if (!r.sweep.empty()) {
    out +=
        "<h3>Swept parameters</h3>\n<table><tr><th class=\"text\">path</th>"
        "<th class=\"text\">values</th></tr>\n";
    for (const SweepParameter& p : r.sweep) {
      std::vector<std::string> distinct;
      for (const std::string& v : p.values)
        if (std::find(distinct.begin(), distinct.end(), v) == distinct.end()) distinct.push_back(v);
      std::string values;
      for (std::size_t k = 0; k < distinct.size(); ++k) values += (k ? ", " : "") + distinct[k];
      out += "<tr>" + cell(escape_html(p.path), true) + cell(escape_html(values), true) + "</tr>\n";
    }
    out += "</table>\n";
  }
  if (!r.data_files.empty()) {
    out +=
        "<h3>Data files read</h3>\n<table><tr><th class=\"text\">path</th>"
        "<th class=\"text\">resolved path</th><th>size [bytes]</th>"
        "<th class=\"text\">SHA-256</th></tr>\n";
    for (const DataFileRecord& f : r.data_files)
      out += "<tr>" + cell(escape_html(f.path), true) + cell(escape_html(f.resolved_path), true) +
             cell(std::to_string(f.size_bytes)) +
             cell("<code>" + escape_html(f.sha256) + "</code>", true) + "</tr>\n";
    out += "</table>\n";
  }
  out += "<details><summary>Scenario YAML as run (overrides applied)</summary>\n<pre>" +
         escape_html(r.scenario_text) + "</pre>\n</details>\n";
  if (!r.scenario_original_text.empty() && r.scenario_original_text != r.scenario_text)
    out += "<details><summary>Scenario YAML as read (before overrides)</summary>\n<pre>" +
           escape_html(r.scenario_original_text) + "</pre>\n</details>\n";
  return out;
}

std::string summary_section(const RunResults& r, std::size_t point, const Groups& groups) {
  std::string out = "<h2>Summary";
  if (r.points > 1) out += " of point " + std::to_string(point);
  out += "</h2>\n<p class=\"note\">Across " + std::to_string(r.replications) +
         " replications: the mean, Student's t 95% interval of the mean, and percentiles of "
         "the replications' values. Durations are shown in the unit that reads best.</p>\n"
         "<table class=\"summary\"><tr><th class=\"text\">metric</th><th class=\"text\">unit"
         "</th><th>mean</th><th>95% interval of the mean</th><th>p5</th><th>p50</th>"
         "<th>p95</th><th class=\"text\">note</th></tr>\n";
  bool clipped = false;
  for (uint32_t m = 0; m < kScalarMetricCount; ++m) {
    const ScalarMetric metric = static_cast<ScalarMetric>(m);
    if (!groups.shows(metric)) continue;
    const MetricInfo& info = kScalarMetricInfo[m];
    const MetricSummary& s = r.summary_of(point, metric);
    if (!metric_row_shown(info.group, s.mean)) continue;
    const DisplayUnit unit = display_unit(info.unit, magnitude(s));
    clipped |= s.clipped_low || s.clipped_high;
    const std::string note = s.n < r.replications
                                 ? "defined in " + std::to_string(s.n) + " of " +
                                       std::to_string(r.replications) + " replications"
                                 : "";
    out += "<tr><td class=\"text\" title=\"" + escape_html(info.description) + "\">" +
           escape_html(info.name) + "</td>" + cell(escape_html(unit.name), true) +
           cell(format_number(s.mean / unit.scale)) + cell(interval(s, unit.scale)) +
           cell(format_number(s.p5 / unit.scale)) + cell(format_number(s.p50 / unit.scale)) +
           cell(format_number(s.p95 / unit.scale)) + cell(note, true) + "</tr>\n";
  }
  out += "</table>\n";
  if (clipped)
    out +=
        "<p class=\"note\">* the t interval went past the metric's range (below 0, or a "
        "share above 1): cut there.</p>\n";

  out +=
      "<h3>Per pool (mean over replications)</h3>\n<table><tr><th class=\"text\">pool</th>"
      "<th>cost [USD]</th><th>used [GPU-h]</th><th>billed [GPU-h]</th>"
      "<th>utilization [fraction]</th><th>jobs started [jobs]</th><th>preemptions [runs]"
      "</th></tr>\n";
  for (std::size_t p = 0; p < r.pool_count(); ++p) {
    const auto mean = [&](PoolMetric m) {
      return cell(
          format_number(r.pool_summary[(point * r.pool_count() + p) * kPoolMetricCount + m].mean));
    };
    out += "<tr>" + cell(escape_html(r.pool_names[p]), true) + mean(kPoolCostUsd) +
           mean(kPoolGpuHoursUsed) + mean(kPoolGpuHoursBilled) + mean(kPoolUtilization) +
           mean(kPoolJobsStarted) + mean(kPoolPreemptions) + "</tr>\n";
  }
  return out + "</table>\n";
}

/// The goals (scenario key `goals`): how often each was met, with exact (Clopper-Pearson) and
/// Wilson 95% intervals, and the verdict against its target.
std::string goals_section(const RunResults& r, std::size_t point) {
  if (r.goals.empty() || r.goal_summary.size() < r.points * r.goals.size()) return "";
  const auto bounds = [](const BinomialInterval& b) {
    return std::isnan(b.low) ? std::string("n/a")
                             : "[" + format_number(b.low) + ", " + format_number(b.high) + "]";
  };
  std::string out =
      "<h3>Goals</h3>\n<p class=\"note\">A goal is met in a replication when every condition "
      "holds; the probability is the share of replications that met it, with exact "
      "(Clopper-Pearson) and Wilson 95% intervals. The verdict compares the exact interval "
      "with the goal's target.</p>\n<table class=\"goals\"><tr><th class=\"text\">goal</th>"
      "<th class=\"text\">definition</th><th>met [replications]</th><th>probability</th>"
      "<th>exact 95% interval</th><th>Wilson 95% interval</th><th>target</th>"
      "<th class=\"text\">verdict</th></tr>\n";
  for (std::size_t g = 0; g < r.goals.size(); ++g) {
    const GoalSpec& spec = r.goals[g];
    const GoalSummary& s = r.goal_summary_of(point, g);
    const std::string verdict = target_verdict_text(s, spec.target);
    const std::string definition =
        spec.definition() + (spec.description.empty() ? "" : " (" + spec.description + ")");
    out += "<tr>" + cell(escape_html(spec.name), true) + cell(escape_html(definition), true) +
           cell(std::to_string(s.met) + " of " + std::to_string(s.n)) +
           cell(format_number(s.probability)) + cell(bounds(s.exact)) + cell(bounds(s.wilson)) +
           cell(spec.target > 0 ? format_number(spec.target) : "") +
           cell(escape_html(verdict), true) + "</tr>\n";
  }
  return out + "</table>\n";
}

std::string distributions_section(const RunResults& r, std::size_t point, const Groups& groups) {
  std::vector<ScalarMetric> metrics = {kCostUsd, kUtilization};
  if (groups.shows(kWaitMeanS) && groups.jobs)
    metrics.insert(metrics.end(), {kWaitMeanS, kWaitP95S, kCompletionMeanS, kJobsCompleted});
  if (groups.services)
    metrics.insert(metrics.end(), {kLatencyP95S, kSloViolationShare, kCostPer1000RequestsUsd});
  if (groups.deployments)
    metrics.insert(metrics.end(), {kUnservedFraction, kInstancesServedMean, kInterruptions});
  std::string out = "<h2>Distributions across replications</h2>\n";
  const std::size_t rows = r.rows_per_point();
  if (rows == 0)
    return out +
           "<p class=\"note\">The run kept no per-replication rows (<code>--rows "
           "none</code>): the summaries above cover every replication, but there are no "
           "values to draw.</p>\n";
  if (!r.all_rows())
    out += "<p class=\"note\">Of the first " + std::to_string(rows) + " of " +
           std::to_string(r.replications) + " replications, the rows the run kept.</p>\n";
  out += "<div class=\"charts\">\n";
  const int bins = static_cast<int>(std::clamp(std::sqrt(static_cast<double>(rows)), 5.0, 30.0));
  for (ScalarMetric m : metrics) {
    const MetricInfo& info = kScalarMetricInfo[m];
    const MetricSummary& s = r.summary_of(point, m);
    if (s.n == 0) continue;
    const DisplayUnit unit = display_unit(info.unit, magnitude(s));
    std::vector<double> values(rows);
    for (std::size_t i = 0; i < rows; ++i) values[i] = r.scalar(point, i, m) / unit.scale;
    const Histogram h = make_histogram(values, bins);
    ChartFrame frame;
    frame.width = 400;
    frame.height = 260;
    std::string title =
        std::string(info.name) + " (" + std::to_string(rows - h.left_out) + " replications)";
    out += histogram_svg(
        h, {title, std::string(info.name) + " [" + unit.name + "]", "replications"}, frame);
  }
  return out + "</div>\n";
}

/// Mean GPUs in use per pool over time (bins grouped to at most 400 per series), with the band
/// from the 5th to the 95th percentile across replications.
std::string timeseries_section(const RunResults& r, std::size_t point) {
  const std::size_t bins = r.timeseries_bins, pools = r.pool_count(), reps = r.rows_per_point();
  const std::size_t group = (bins + 399) / 400;
  const double span_s = static_cast<double>(bins) * r.timeseries_step_s;
  const DisplayUnit unit = display_unit("s", span_s);
  std::vector<Series> series;
  std::vector<double> per_rep(reps);
  for (std::size_t p = 0; p < pools; ++p) {
    Series s;
    s.name = r.pool_names[p];
    for (std::size_t b0 = 0; b0 < bins; b0 += group) {
      const std::size_t b1 = std::min(bins, b0 + group);
      double total = 0;
      for (std::size_t i = 0; i < reps; ++i) {
        const double* row = &r.timeseries[((point * reps + i) * pools + p) * bins];
        double sum = 0;
        for (std::size_t b = b0; b < b1; ++b) sum += row[b];
        per_rep[i] = sum / static_cast<double>(b1 - b0);
        total += per_rep[i];
      }
      std::vector<double> sorted = per_rep;
      std::sort(sorted.begin(), sorted.end());
      s.x.push_back(0.5 * static_cast<double>(b0 + b1) * r.timeseries_step_s / unit.scale);
      s.y.push_back(total / static_cast<double>(reps));
      s.low.push_back(quantile_sorted(sorted, 0.05));
      s.high.push_back(quantile_sorted(sorted, 0.95));
    }
    series.push_back(std::move(s));
  }
  ChartFrame frame;
  frame.width = 1000;
  frame.height = 360;
  return "<h2>Utilization over time</h2>\n<p class=\"note\">GPUs in use per pool (jobs' runs "
         "and replicas' busy periods), mean over replications in bins of " +
         gpucap::text::format_duration(r.timeseries_step_s * static_cast<double>(group)) +
         "; the band spans the 5th to the 95th percentile across replications. Warm-up "
         "included.</p>\n" +
         line_band_svg(series, {"GPUs in use per pool", "time [" + unit.name + "]", "GPUs in use"},
                       frame);
}

std::string utilization_bars_section(const RunResults& r, std::size_t point) {
  std::vector<Bar> bars;
  for (std::size_t p = 0; p < r.pool_count(); ++p) {
    const MetricSummary& s =
        r.pool_summary[(point * r.pool_count() + p) * kPoolMetricCount + kPoolUtilization];
    bars.push_back({r.pool_names[p], s.mean, s.ci95_low, s.ci95_high});
  }
  ChartFrame frame;
  frame.width = std::max(420.0, 110.0 * static_cast<double>(bars.size()) + 100);
  return "<h2>Utilization per pool</h2>\n<p class=\"note\">Mean utilization (GPU-hours used / "
         "(quota x window); for a pool of inference replicas, / GPU-hours of replicas up) with "
         "its 95% interval. Record utilization over time with the "
         "scenario key <code>timeseries: {step: 1h}</code>.</p>\n" +
         bar_svg(bars, {"utilization per pool", "pool", "utilization [fraction]"}, frame);
}

/// The point the page recommends: the lowest mean objective where it is defined or, with
/// constraints, the cheapest point that meets them (choose_cheapest, as `gpucap sweep`
/// decides); none when no point qualifies.
struct Decision {
  bool constrained = false;
  bool have_choice = false;
  std::size_t chosen = 0;
  CheapestQuery query;
  CheapestAnswer answer;    ///< when constrained
  std::string constraints;  ///< "mean wait_p95<=1h, P(on_time) >= 0.95"
};

Decision decide(const RunResults& r, ScalarMetric objective, const ReportOptions& options) {
  Decision d;
  d.query.objective = objective;
  d.query.conservative = options.conservative;
  for (const std::string& c : options.constraints) {
    d.query.constraints.push_back(parse_mean_constraint(c));
    d.constraints +=
        (d.constraints.empty() ? "mean " : ", mean ") + d.query.constraints.back().text;
  }
  for (const std::string& c : options.chance) {
    d.query.chance.push_back(parse_chance_constraint(c, r));
    const ChanceConstraint& cc = d.query.chance.back();
    d.constraints += (d.constraints.empty() ? "P(" : ", P(") + r.goals[cc.goal].name +
                     ") >= " + format_number(cc.level);
  }
  if (!options.points.empty()) {
    d.query.candidates = parse_point_list(options.points, r.points);
    d.constraints += (d.constraints.empty() ? "" : ", ") + std::string("one of points ") +
                     text::trim(options.points);
  }
  d.constrained =
      !d.query.constraints.empty() || !d.query.chance.empty() || !d.query.candidates.empty();
  if (d.constrained) {
    d.answer = choose_cheapest(r, d.query);
    d.have_choice = d.answer.found;
    d.chosen = d.answer.best;
    return d;
  }
  for (std::size_t p = 0; p < r.points; ++p) {
    const double m = r.summary_of(p, objective).mean;
    if (r.summary_of(p, objective).n == 0 || !std::isfinite(m)) continue;
    if (!d.have_choice || m < r.summary_of(d.chosen, objective).mean) d.chosen = p;
    d.have_choice = true;
  }
  return d;
}

/// How point p stands against the constraints: yes, no, and whether more replications could
/// change that (its interval holds a bound).
std::string standing_text(const PointStanding& s) {
  return std::string(s.feasible ? "yes" : "no") + (s.undecided ? " (undecided)" : "");
}

/// The answer to a constrained question, for a run of one point (a sweep says it in its
/// section).
std::string question_section(const RunResults& r, const Decision& d) {
  if (!d.constrained || r.points != 1) return "";
  const PointStanding& s = d.answer.points[0];
  return "<h2>Question</h2>\n<p><strong>" +
         std::string(s.feasible ? "The run meets the constraints"
                                : "The run does not meet the "
                                  "constraints") +
         "</strong> (" + escape_html(d.constraints) + ")" +
         (s.undecided ? ": undecided, an interval holds a bound (more replications could change "
                        "this)"
                      : "") +
         ".</p>\n<p class=\"note\">" + escape_html(d.answer.explanation) + "</p>\n";
}

/// The frontier, the chosen point and the sweep table.
std::string sweep_section(const RunResults& r, ScalarMetric objective, ScalarMetric versus,
                          const Decision& d) {
  const std::size_t chosen = d.chosen;
  const bool have_choice = d.have_choice;
  const MetricInfo& oi = kScalarMetricInfo[objective];
  const MetricInfo& vi = kScalarMetricInfo[versus];
  double omax = 0, vmax = 0;
  for (std::size_t p = 0; p < r.points; ++p) {
    omax = std::max(omax, magnitude(r.summary_of(p, objective)));
    vmax = std::max(vmax, magnitude(r.summary_of(p, versus)));
  }
  const DisplayUnit ou = display_unit(oi.unit, omax), vu = display_unit(vi.unit, vmax);
  std::vector<bool> pareto(r.points, false);
  for (std::size_t p = 0; p < r.points; ++p) {
    const double o = r.summary_of(p, objective).mean, v = r.summary_of(p, versus).mean;
    if (!std::isfinite(o) || !std::isfinite(v)) continue;
    bool dominated = false;
    for (std::size_t q = 0; q < r.points && !dominated; ++q) {
      const double oq = r.summary_of(q, objective).mean, vq = r.summary_of(q, versus).mean;
      dominated =
          std::isfinite(oq) && std::isfinite(vq) && oq <= o && vq <= v && (oq < o || vq < v);
    }
    pareto[p] = !dominated;
  }
  const auto parameters = [&](std::size_t p) {
    std::string text;
    for (std::size_t k = 0; k < r.sweep.size(); ++k)
      text += (k ? ", " : "") + r.sweep[k].path + "=" + r.sweep[k].values[p];
    return text;
  };
  std::vector<ScatterPoint> points;
  for (std::size_t p = 0; p < r.points; ++p)
    points.push_back({r.summary_of(p, versus).mean / vu.scale,
                      r.summary_of(p, objective).mean / ou.scale,
                      "point " + std::to_string(p) + ": " + parameters(p), pareto[p],
                      have_choice && p == chosen});
  for (ScatterPoint& p : points)
    if (!p.chosen) p.label = p.label.substr(0, p.label.find(':'));
  ChartFrame frame;
  frame.width = 820;
  frame.height = 420;
  std::string out = "<h2>Sweep</h2>\n";
  const std::string among =
      d.constrained ? " among the points that meet " + escape_html(d.constraints) : "";
  if (have_choice)
    out += "<p><strong>Chosen point: " + std::to_string(chosen) + "</strong> (" +
           escape_html(parameters(chosen)) + "), the lowest mean " + escape_html(oi.name) + among +
           ": " + format_number(r.summary_of(chosen, objective).mean / ou.scale) + " " +
           escape_html(ou.name) + ", 95% interval " +
           interval(r.summary_of(chosen, objective), ou.scale) + " " + escape_html(ou.name) +
           ".</p>\n";
  else if (d.constrained)
    out += "<p><strong>No point meets the constraints</strong> (" + escape_html(d.constraints) +
           "): none is recommended.</p>\n";
  else
    out += "<p><strong>No point has a defined mean " + escape_html(oi.name) +
           "</strong>: no point is chosen.</p>\n";
  if (d.constrained) out += "<p class=\"note\">" + escape_html(d.answer.explanation) + "</p>\n";
  out += "<p class=\"note\">Each point's mean " + escape_html(oi.name) + " against its mean " +
         escape_html(vi.name) +
         "; the Pareto points (no other point is as low on both and lower on one) are in "
         "colour and joined, the chosen point ringed.</p>\n";
  out += scatter_svg(
      points,
      {"frontier: " + std::string(oi.name) + " vs " + vi.name,
       std::string(vi.name) + " [" + vu.name + "]", std::string(oi.name) + " [" + ou.name + "]"},
      frame);
  out += "<div class=\"wide\"><table class=\"sweep\"><tr><th>point</th>";
  for (const SweepParameter& p : r.sweep)
    out += "<th class=\"text\">" + escape_html(p.path) + "</th>";
  out +=
      "<th>" + escape_html(oi.name) + " [" + escape_html(ou.name) + "]</th><th>95% interval</th>";
  if (have_choice) out += "<th>minus chosen (paired 95% interval)</th>";
  out += "<th>" + escape_html(vi.name) + " [" + escape_html(vu.name) +
         "]</th><th>95% interval</th>"
         "<th class=\"text\">Pareto</th>";
  if (d.constrained) out += "<th class=\"text\">meets the constraints</th>";
  const bool goals = !r.goals.empty() && r.goal_summary.size() >= r.points * r.goals.size();
  if (goals)
    for (const GoalSpec& g : r.goals)
      out += "<th>P(" + escape_html(g.name) + ") [exact 95% interval]</th>";
  out += "</tr>\n";
  for (std::size_t p = 0; p < r.points; ++p) {
    const MetricSummary& o = r.summary_of(p, objective);
    const MetricSummary& v = r.summary_of(p, versus);
    out += std::string(have_choice && p == chosen ? "<tr class=\"chosen\">" : "<tr>") +
           cell(std::to_string(p) + (have_choice && p == chosen ? " (chosen)" : ""));
    for (const SweepParameter& k : r.sweep) out += cell(escape_html(k.values[p]), true);
    out += cell(format_number(o.mean / ou.scale)) + cell(interval(o, ou.scale));
    if (have_choice) {
      std::string diff;
      if (p != chosen && !r.all_rows() && chosen != 0 && p != 0) {
        diff = "n/a (rows not kept)";
      } else if (p != chosen) {
        const MetricSummary d = paired_difference(r, objective, p, chosen);
        diff = format_number(d.mean / ou.scale) +
               (std::isnan(d.ci95_low) ? " (n/a)"
                                       : " [" + format_number(d.ci95_low / ou.scale) + ", " +
                                             format_number(d.ci95_high / ou.scale) + "]");
      }
      out += cell(diff);
    }
    out += cell(format_number(v.mean / vu.scale)) + cell(interval(v, vu.scale)) +
           cell(pareto[p] ? "yes" : "", true);
    if (d.constrained) out += cell(standing_text(d.answer.points[p]), true);
    if (goals)
      for (std::size_t g = 0; g < r.goals.size(); ++g) {
        const GoalSummary& gs = r.goal_summary_of(p, g);
        out += cell(format_number(gs.probability) +
                    (std::isnan(gs.exact.low) ? ""
                                              : " [" + format_number(gs.exact.low) + ", " +
                                                    format_number(gs.exact.high) + "]"));
      }
    out += "</tr>\n";
  }
  return out + "</table></div>\n";
}

}  // namespace

std::string render_report(const RunResults& r, const ReportOptions& options) {
  const ScalarMetric objective = metric_named("--objective", options.objective);
  const Groups groups = groups_of(r);
  const ScalarMetric versus = options.versus.empty()
                                  ? default_service_level_metric(groups)
                                  : metric_named("--versus", options.versus);
  if (r.points == 0 || r.replications == 0)
    throw std::invalid_argument("the results have no points or no replications: nothing to report");

  // The chosen point: lowest mean objective among points where it is defined (first on ties),
  // among those that meet the constraints when there are some.
  const Decision decision = decide(r, objective, options);
  const std::size_t shown = decision.have_choice ? decision.chosen : 0;

  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>gpucap report: " +
      escape_html(r.scenario_name) + "</title>\n<style>\n" + kStyle +
      "</style>\n</head>\n<body>\n<h1>gpucap report: " + escape_html(r.scenario_name) +
      "</h1>\n<p class=\"note\">" +
      (r.points > 1 ? "A sweep of " + std::to_string(r.points) + " points x " : "") +
      std::to_string(r.replications) + " replications, seed " + std::to_string(r.seed) + ".</p>\n";
  for (const std::string& w : result_warnings(r))
    page += "<p class=\"warning\"><strong>Warning:</strong> " + escape_html(w) + "</p>\n";
  page += scenario_section(r, options);
  page += question_section(r, decision);
  if (r.points > 1) page += sweep_section(r, objective, versus, decision);
  page += summary_section(r, shown, groups);
  page += goals_section(r, shown);
  page += distributions_section(r, shown, groups);
  if (r.timeseries_bins > 0 && !r.timeseries.empty())
    page += timeseries_section(r, shown);
  else
    page += utilization_bars_section(r, shown);
  page += "</body>\n</html>\n";
  return page;
}

OutputReport write_report(const RunResults& results, const std::string& path,
                          const ReportOptions& options, const OutputOptions& output) {
  const std::string page = render_report(results, options);
  OutputOptions checked = output;
  checked.inputs.insert(checked.inputs.end(), results.input_files.begin(),
                        results.input_files.end());
  return write_output_atomically(path, page.data(), page.size(), checked);
}

}  // namespace gpucap::report
