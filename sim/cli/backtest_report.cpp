#include "backtest_report.hpp"

#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>

#include "gpucap/detail/text.hpp"
#include "gpucap/report/html.hpp"
#include "gpucap/report/svg_chart.hpp"

namespace gpucap::cli {
namespace {

constexpr double kDayS = 86400.0;

std::string value(double v) { return text::format_table_value(v); }

std::string percent(double v) {
  if (std::isnan(v)) return "n/a";
  char b[32];
  std::snprintf(b, sizeof b, "%.1f%%", v * 100);
  return b;
}

std::string share(std::size_t k, std::size_t n) {
  if (n == 0) return "n/a";
  char b[48];
  std::snprintf(b, sizeof b, "%.1f%% (%zu/%zu)", 100.0 * k / n, k, n);
  return b;
}

std::string plan_value(const BacktestOptions& o, std::size_t i) {
  return i < o.plan_values.size() ? o.plan_values[i] : std::string("-");
}

/// A JSON number (null for NaN or infinity) and string.
std::string jnum(double v) {
  if (!std::isfinite(v)) return "null";
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}
std::string jstr(const std::string& s) { return text::json_string(s); }

}  // namespace

void print_backtest(const BacktestResult& r, const BacktestOptions& o, std::ostream& out) {
  out << "backtest of " << text::excerpt(o.log_path, 200) << ": " << r.origins.size()
      << " origins from day " << value(o.first_s / kDayS) << " every "
      << text::format_duration(o.every_s) << ", each forecasting "
      << text::format_duration(o.horizon_s) << " (" << o.replications
      << " futures) against what happened (replayed, " << o.truth_replications
      << " replications)\n";
  char line[512];
  if (!o.plan_path.empty()) {
    out << "\nplan " << o.plan_path << " minimizing the mean " << kScalarMetricInfo[o.objective].name
        << " [" << kScalarMetricInfo[o.objective].unit << "]";
    if (r.lookback_ratio > 0)
      out << "; look-back recommender: the " << value((1 - r.lookback_ratio) * 100)
          << "% quantile of the last " << text::format_duration(o.lookback_s)
          << " of hourly usage (ratio " << value(r.lookback_ratio) << ")";
    out << "\n";
    std::snprintf(line, sizeof line, "%-10s %-12s %-12s %-12s %12s %16s\n", "origin", "forecast's",
                  "look-back", "hindsight", "regret", "look-back regret");
    out << line;
    for (const OriginResult& g : r.origins) {
      const std::string t = "day " + value(g.origin_s / kDayS);
      if (!g.error.empty()) {
        out << t << "  not forecast: " << g.error << "\n";
        continue;
      }
      std::snprintf(line, sizeof line, "%-10s %-12s %-12s %-12s %12s %16s\n", t.c_str(),
                    plan_value(o, g.chosen).c_str(),
                    g.has_lookback ? value(g.lookback_value).c_str() : "n/a",
                    plan_value(o, g.best).c_str(), percent(g.regret).c_str(),
                    g.has_lookback ? percent(g.lookback_regret).c_str() : "n/a");
      out << line;
    }
  }
  out << "\n";
  std::snprintf(line, sizeof line, "%-10s %-24s %-12s %12s %12s %12s %12s %7s\n", "origin",
                "metric", "unit", "truth", "p5", "p50", "p95", "PIT");
  out << line;
  for (const OriginResult& g : r.origins) {
    const std::string t = "day " + value(g.origin_s / kDayS);
    if (!g.error.empty()) {
      if (o.plan_path.empty()) out << t << "  not forecast: " << g.error << "\n";
      continue;
    }
    for (const MetricForecast& f : g.metrics) {
      const MetricInfo& info = kScalarMetricInfo[f.metric];
      char pit[16] = "n/a";
      if (f.defined) std::snprintf(pit, sizeof pit, "%.3f", f.pit);
      std::snprintf(line, sizeof line, "%-10s %-24s %-12s %12s %12s %12s %12s %7s\n", t.c_str(),
                    info.name, info.unit, f.defined ? value(f.truth).c_str() : "n/a",
                    value(f.q05).c_str(), value(f.q50).c_str(), value(f.q95).c_str(), pit);
      out << line;
    }
    for (const std::string& n : g.notes) out << "           note: " << n << "\n";
  }
  out << "\n";
  std::snprintf(line, sizeof line, "%-24s %-10s %-20s %-20s %9s\n", "metric", "origins",
                "50% interval covers", "90% interval covers", "mean PIT");
  out << line;
  for (const MetricCoverage& c : r.coverage) {
    char pit[16] = "n/a";
    if (c.origins) std::snprintf(pit, sizeof pit, "%.3f", c.mean_pit);
    std::snprintf(line, sizeof line, "%-24s %-10zu %-20s %-20s %9s\n",
                  kScalarMetricInfo[c.metric].name, c.origins, share(c.in50, c.origins).c_str(),
                  share(c.in90, c.origins).c_str(), pit);
    out << line;
  }
  if (!o.plan_path.empty())
    out << "\nmean regret over " << r.planned << " origins: " << percent(r.mean_regret)
        << " (gpucap's plan)" << (r.lookback_ratio > 0
                                      ? ", " + percent(r.mean_lookback_regret) +
                                            " (the look-back recommender)"
                                      : std::string())
        << "\n";
}

std::string backtest_json(const BacktestResult& r, const BacktestOptions& o) {
  std::ostringstream j;
  j << "{\n  \"log\": " << jstr(o.log_path) << ",\n  \"horizon_s\": " << jnum(o.horizon_s)
    << ",\n  \"replications\": " << o.replications
    << ",\n  \"truth_replications\": " << o.truth_replications
    << ",\n  \"plan\": " << jstr(o.plan_path) << ",\n  \"plan_values\": [";
  for (std::size_t i = 0; i < o.plan_values.size(); ++i)
    j << (i ? ", " : "") << jstr(o.plan_values[i]);
  j << "],\n  \"objective\": " << jstr(kScalarMetricInfo[o.objective].name)
    << ",\n  \"lookback_s\": " << jnum(o.lookback_s)
    << ",\n  \"lookback_ratio\": " << jnum(r.lookback_ratio) << ",\n  \"origins\": [";
  for (std::size_t i = 0; i < r.origins.size(); ++i) {
    const OriginResult& g = r.origins[i];
    j << (i ? "," : "") << "\n    {\"origin_s\": " << jnum(g.origin_s);
    if (!g.error.empty()) {
      j << ", \"error\": " << jstr(g.error) << "}";
      continue;
    }
    if (!o.plan_path.empty()) {
      j << ", \"chosen\": " << jstr(plan_value(o, g.chosen)) << ", \"best\": "
        << jstr(plan_value(o, g.best)) << ", \"regret\": " << jnum(g.regret);
      if (g.has_lookback)
        j << ", \"lookback\": " << jnum(g.lookback_value) << ", \"lookback_regret\": "
          << jnum(g.lookback_regret);
      j << ", \"forecast_objective\": [";
      for (std::size_t p = 0; p < g.forecast_objective.size(); ++p)
        j << (p ? ", " : "") << jnum(g.forecast_objective[p]);
      j << "], \"truth_objective\": [";
      for (std::size_t p = 0; p < g.truth_objective.size(); ++p)
        j << (p ? ", " : "") << jnum(g.truth_objective[p]);
      j << "]";
    }
    j << ", \"notes\": [";
    for (std::size_t k = 0; k < g.notes.size(); ++k) j << (k ? ", " : "") << jstr(g.notes[k]);
    j << "], \"metrics\": {";
    for (std::size_t k = 0; k < g.metrics.size(); ++k) {
      const MetricForecast& f = g.metrics[k];
      j << (k ? ", " : "") << jstr(kScalarMetricInfo[f.metric].name) << ": {\"truth\": "
        << jnum(f.defined ? f.truth : NAN) << ", \"mean\": " << jnum(f.mean) << ", \"p5\": "
        << jnum(f.q05) << ", \"p25\": " << jnum(f.q25) << ", \"p50\": " << jnum(f.q50)
        << ", \"p75\": " << jnum(f.q75) << ", \"p95\": " << jnum(f.q95)
        << ", \"pit\": " << jnum(f.defined ? f.pit : NAN) << "}";
    }
    j << "}}";
  }
  j << "\n  ],\n  \"coverage\": {";
  for (std::size_t k = 0; k < r.coverage.size(); ++k) {
    const MetricCoverage& c = r.coverage[k];
    j << (k ? "," : "") << "\n    " << jstr(kScalarMetricInfo[c.metric].name)
      << ": {\"origins\": " << c.origins << ", \"in50\": " << c.in50 << ", \"in90\": " << c.in90
      << ", \"mean_pit\": " << jnum(c.mean_pit) << "}";
  }
  j << "\n  },\n  \"mean_regret\": " << jnum(r.mean_regret)
    << ",\n  \"mean_lookback_regret\": " << jnum(r.mean_lookback_regret) << "\n}\n";
  return j.str();
}

std::string backtest_html(const BacktestResult& r, const BacktestOptions& o) {
  using report::escape_html;
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>gpucap "
       "backtest: "
    << escape_html(o.log_path)
    << "</title>\n<style>body{font-family:system-ui,sans-serif;max-width:980px;margin:2em auto;"
       "color:#222}table{border-collapse:collapse}td,th{padding:2px 10px;text-align:right;"
       "border-bottom:1px solid #ddd}th{text-align:left}</style>\n</head>\n<body>\n<h1>Backtest "
       "of "
    << escape_html(o.log_path) << "</h1>\n<p>" << r.origins.size() << " origins, each forecasting "
    << escape_html(text::format_duration(o.horizon_s)) << " with " << o.replications
    << " futures, against what happened (the log replayed).</p>\n";
  h << "<h2>Coverage</h2>\n<table><tr><th>metric</th><th>origins</th><th>50% interval "
       "covers</th><th>90% interval covers</th><th>mean PIT</th></tr>\n";
  for (const MetricCoverage& c : r.coverage)
    h << "<tr><th>" << escape_html(kScalarMetricInfo[c.metric].name) << "</th><td>" << c.origins
      << "</td><td>" << share(c.in50, c.origins) << "</td><td>" << share(c.in90, c.origins)
      << "</td><td>" << report::format_number(c.mean_pit) << "</td></tr>\n";
  h << "</table>\n";
  for (const MetricCoverage& c : r.coverage) {
    const MetricInfo& info = kScalarMetricInfo[c.metric];
    report::Series band90{"forecast: median, 90% interval", {}, {}, {}, {}};
    report::Series band50{"forecast: 50% interval", {}, {}, {}, {}};
    report::Series truth{"what happened", {}, {}, {}, {}};
    for (const OriginResult& g : r.origins)
      for (const MetricForecast& f : g.metrics)
        if (f.metric == c.metric && f.defined && g.error.empty()) {
          const double day = g.origin_s / kDayS;
          band90.x.push_back(day);
          band90.y.push_back(f.q50);
          band90.low.push_back(f.q05);
          band90.high.push_back(f.q95);
          band50.x.push_back(day);
          band50.y.push_back(f.q50);
          band50.low.push_back(f.q25);
          band50.high.push_back(f.q75);
          truth.x.push_back(day);
          truth.y.push_back(f.truth);
        }
    if (truth.x.empty()) continue;
    h << "<h2>" << escape_html(info.name) << "</h2>\n"
      << report::line_band_svg({band90, band50, truth},
                               {std::string(info.name) + " over the horizon after each origin",
                                "origin [day of the log]",
                                std::string(info.name) + " [" + info.unit + "]"})
      << "\n";
  }
  if (!o.plan_path.empty()) {
    report::Series mine{"gpucap's plan", {}, {}, {}, {}};
    report::Series lookback{"look-back recommender", {}, {}, {}, {}};
    for (const OriginResult& g : r.origins) {
      if (!g.error.empty()) continue;
      mine.x.push_back(g.origin_s / kDayS);
      mine.y.push_back(g.regret * 100);
      if (g.has_lookback) {
        lookback.x.push_back(g.origin_s / kDayS);
        lookback.y.push_back(g.lookback_regret * 100);
      }
    }
    std::vector<report::Series> series = {mine};
    if (!lookback.x.empty()) series.push_back(lookback);
    h << "<h2>Regret of the plan (" << escape_html(o.plan_path) << ")</h2>\n<p>Mean: "
      << percent(r.mean_regret) << " (gpucap)"
      << (r.lookback_ratio > 0 ? ", " + percent(r.mean_lookback_regret) + " (look-back)" : "")
      << ".</p>\n"
      << report::line_band_svg(series, {std::string("true ") + kScalarMetricInfo[o.objective].name +
                                            " over the best plan in hindsight",
                                        "origin [day of the log]", "regret [%]"})
      << "\n";
  }
  h << "</body>\n</html>\n";
  return h.str();
}

}  // namespace gpucap::cli
