// The HTML report page: the summary with units and intervals, only the scenario's metric
// groups, a hostile scenario escaped, nothing loaded from elsewhere, a sweep's chosen point and
// Pareto points, and the output rules of write_report.
#include "gpucap/report/report_page.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>

#include "gpucap/goal.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/output_file.hpp"
#include "gpucap/results.hpp"

#include "support/scratch_dir.hpp"

namespace {

using gpucap::RunResults;
using gpucap::report::render_report;
using gpucap::report::ReportOptions;

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// Results of `points` points x 4 replications of a jobs scenario with two pools: cost at
/// point p, replication i is 1000 (p + 1) + 10 i, except that point 1 is the cheapest (500 + i);
/// wait_p95 is 7200 s / (p + 1) (+ i); every other metric is 0.
RunResults sample(std::size_t points) {
  RunResults r;
  r.gpucap_version = "0.1.0";
  r.scenario_name = "team month";
  r.scenario_text = "name: team month\npools: {a: {quota: 8}}\n";
  r.scenario_original_text = r.scenario_text;
  r.backend = "cpu-serial";
  r.device = "host, 1 thread";
  r.seed = 42;
  r.points = points;
  r.replications = 4;
  r.pool_names = {"pool-a", "pool-b"};
  if (points > 1) {
    gpucap::SweepParameter q{"pools.a.quota", {}};
    for (std::size_t p = 0; p < points; ++p) q.values.push_back(std::to_string(8 * (p + 1)));
    r.sweep = {q};
  }
  r.scalars.assign(points * r.replications * gpucap::kScalarMetricCount, 0.0);
  r.pool_values.assign(points * r.replications * r.pool_count() * gpucap::kPoolMetricCount, 0.0);
  for (std::size_t p = 0; p < points; ++p)
    for (std::size_t i = 0; i < r.replications; ++i) {
      double* row = &r.scalars[(p * r.replications + i) * gpucap::kScalarMetricCount];
      row[gpucap::kCostUsd] = p == 1 ? 500.0 + i : 1000.0 * (p + 1) + 10.0 * i;
      row[gpucap::kJobsArrived] = 100;
      row[gpucap::kWaitP95S] = 7200.0 / (p + 1) + i;
      row[gpucap::kUtilization] = 0.25 + 0.01 * i;
    }
  r.summarize_all();
  return r;
}

TEST(ReportPage, SummaryValuesWithUnitsAndIntervals) {
  const RunResults r = sample(1);
  const std::string page = render_report(r);
  // cost: mean 1015 USD, t interval 1015 +- 3.182 * 12.91 / 2 = [994.5, 1036]; p5 1001.5.
  EXPECT_NE(page.find("<td class=\"text\">USD</td><td>1015</td><td>[994.5, 1036]</td>"
                      "<td>1002</td><td>1015</td><td>1028</td>"),
            std::string::npos)
      << page;
  // wait_p95: mean 7201.5 s is shown in hours (2.000 h).
  EXPECT_NE(page.find(">wait_p95</td><td class=\"text\">h</td><td>2</td>"), std::string::npos);
  EXPECT_NE(page.find(">utilization</td><td class=\"text\">fraction</td><td>0.265</td>"),
            std::string::npos);
  // A jobs scenario: no inference rows.
  EXPECT_EQ(page.find(">latency_p95<"), std::string::npos);
  EXPECT_NE(page.find(">completion_mean<"), std::string::npos);
  // Histograms of the key metrics, and per-pool utilization bars (no timeseries).
  EXPECT_NE(page.find("cost (4 replications)"), std::string::npos);
  EXPECT_NE(page.find("Utilization per pool"), std::string::npos);
  EXPECT_EQ(page.find("Utilization over time"), std::string::npos);
  EXPECT_EQ(page.find("<h2>Sweep</h2>"), std::string::npos);
}

TEST(ReportPage, EscapesEveryStringFromTheResults) {
  RunResults r = sample(2);
  const std::string hostile = "</script><img src=x onerror=alert(1)><script>alert(2)</script>";
  r.scenario_name = hostile;
  r.scenario_text = "name: \"" + hostile + "\"\n# </pre></details><iframe src=\"http://x\">\n";
  r.scenario_overrides = {{"name", hostile}};
  r.pool_names = {hostile, "b&b"};
  r.sweep[0].path = hostile;
  r.sweep[0].values[1] = "<b>";
  gpucap::DataFileRecord f;
  f.path = hostile;
  f.resolved_path = "/data/<x>.csv";
  f.sha256 = "\"><svg onload=alert(3)>";
  r.data_files = {f};
  const std::string page = render_report(r);
  for (const char* forbidden :
       {"<script", "<img", "<iframe", "<svg onload", "<b>", "</pre></details><"})
    EXPECT_EQ(page.find(forbidden), std::string::npos) << forbidden;
  EXPECT_NE(page.find("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_NE(page.find("b&amp;b"), std::string::npos);
  EXPECT_NE(page.find("&lt;b&gt;"), std::string::npos);
}

TEST(ReportPage, SelfContainedWithNothingLoadedFromElsewhere) {
  RunResults r = sample(3);
  r.timeseries_step_s = 3600;
  r.timeseries_bins = 24;
  r.timeseries.assign(r.points * r.replications * r.pool_count() * r.timeseries_bins, 2.0);
  const std::string page = render_report(r);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("<meta charset=\"utf-8\">"), std::string::npos);
  for (const char* external : {"http:", "https:", "src=", "href=", "url(", "@import", "<script",
                               "<link", "<iframe", "<object", "<embed"})
    EXPECT_EQ(page.find(external), std::string::npos) << external;
  EXPECT_NE(page.find("Utilization over time"), std::string::npos);
  EXPECT_NE(page.find("bins of 1 h"), std::string::npos);
  // Every <svg> is closed: the page's figures are well formed.
  const std::size_t opened = count_of(page, "<svg "), closed = count_of(page, "</svg>");
  EXPECT_EQ(opened, closed);
  EXPECT_GE(opened,
            6u);  // frontier, 4 histograms (cost, utilization, wait_mean, wait_p95...), time
}

TEST(ReportPage, SweepChoosesTheLowestMeanObjectiveAndMarksParetoPoints) {
  const RunResults r = sample(3);
  const std::string page = render_report(r);
  // Point 1 has the lowest mean cost (501.5 USD); point 2 has the lowest wait_p95 (2401.5 s),
  // so both are Pareto points; point 0 (cost 1015, wait 7201.5 s) is dominated by point 1.
  EXPECT_NE(page.find("<strong>Chosen point: 1</strong> (pools.a.quota=16), the lowest mean "
                      "cost: 501.5 USD"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("<h2>Summary of point 1</h2>"), std::string::npos);
  EXPECT_NE(page.find("<tr class=\"chosen\"><td>1 (chosen)</td>"), std::string::npos);
  const std::size_t row0 = page.find("<tr><td>0</td>");
  const std::size_t row2 = page.find("<tr><td>2</td>");
  ASSERT_NE(row0, std::string::npos);
  ASSERT_NE(row2, std::string::npos);
  EXPECT_EQ(page.substr(row0, page.find("</tr>", row0) - row0).find(">yes<"), std::string::npos);
  EXPECT_NE(page.substr(row2, page.find("</tr>", row2) - row2).find(">yes<"), std::string::npos);
  // Paired differences from the chosen point: point 0 minus point 1 = 500 + 9 i, mean 513.5.
  EXPECT_NE(page.find("<td>513.5 ["), std::string::npos);

  ReportOptions options;
  options.objective = "wait_p95";
  options.versus = "cost";
  EXPECT_NE(render_report(r, options).find("<strong>Chosen point: 2</strong>"), std::string::npos);
}

// Deployments alone: the frontier is cost against unserved_fraction (against wait_p95 it plotted
// nothing: n/a at every point), and the histograms are the deployments' own.
TEST(ReportPage, ADeploymentOnlySweepPlotsItsOwnServiceLevel) {
  RunResults r = sample(3);
  for (std::size_t p = 0; p < r.points; ++p)
    for (std::size_t i = 0; i < r.replications; ++i) {
      double* row = &r.scalars[(p * r.replications + i) * gpucap::kScalarMetricCount];
      row[gpucap::kJobsArrived] = 0;
      row[gpucap::kWaitP95S] = std::nan("");
      row[gpucap::kInstanceHoursDemanded] = 100;
      row[gpucap::kUnservedFraction] = 0.1 / (p + 1) + 0.001 * i;
    }
  r.summarize_all();
  const std::string page = render_report(r);
  EXPECT_NE(page.find("frontier: cost vs unserved_fraction"), std::string::npos) << page;
  EXPECT_EQ(page.find("frontier: cost vs wait_p95"), std::string::npos);
  EXPECT_NE(page.find("instances_served_mean"), std::string::npos);
}

// The question asked: with constraints the chosen point is the cheapest that meets them, the
// sweep table gives every point's standing, and when none meets them none is recommended.
TEST(ReportPage, ConstraintsChooseTheCheapestFeasiblePointOrNone) {
  const RunResults r = sample(5);
  ReportOptions options;
  // wait_p95 is 7200 / (p + 1) + i s: only points 3 and 4 keep its mean under 2000 s; point 1,
  // the cheapest, does not, so point 3 (cost 4015) is chosen.
  options.constraints = {"wait_p95<=2000"};
  const std::string page = render_report(r, options);
  EXPECT_NE(page.find("<strong>Chosen point: 3</strong> (pools.a.quota=32), the lowest mean "
                      "cost among the points that meet mean wait_p95&lt;=2000: 4015 USD"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("<h2>Summary of point 3</h2>"), std::string::npos);
  EXPECT_NE(page.find("<th class=\"text\">meets the constraints</th>"), std::string::npos);
  const std::size_t row1 = page.find("<tr><td>1</td>");
  ASSERT_NE(row1, std::string::npos);
  EXPECT_NE(page.substr(row1, page.find("</tr>", row1) - row1).find(">no<"), std::string::npos);
  EXPECT_EQ(page.find("<strong>Chosen point: 1</strong>"), std::string::npos);
  // Nothing meets a bound of 10 s: no recommendation, and the page says why.
  options.constraints = {"wait_p95<=10s"};
  const std::string none = render_report(r, options);
  EXPECT_NE(none.find("<strong>No point meets the constraints</strong> (mean wait_p95&lt;=10s): "
                      "none is recommended."),
            std::string::npos)
      << none;
  EXPECT_EQ(none.find("Chosen point"), std::string::npos);
  EXPECT_EQ(none.find("(chosen)"), std::string::npos);
  // A run of one point answers whether it meets them.
  const RunResults one = sample(1);
  options.constraints = {"cost<=2000"};
  EXPECT_NE(render_report(one, options).find("<strong>The run meets the constraints</strong>"),
            std::string::npos);
  options.constraints = {"cost<=10"};
  EXPECT_NE(render_report(one, options).find("<strong>The run does not meet the constraints"),
            std::string::npos);
  // Constraints that do not parse, or name no goal, are errors that say so.
  options.constraints = {"cost=<10"};
  EXPECT_THROW(render_report(r, options), std::invalid_argument);
  options.constraints.clear();
  options.chance = {"on_time>=0.9"};
  EXPECT_THROW(render_report(r, options), std::invalid_argument);
}

// Tick labels of any length stay inside the chart: the left margin grows with them.
TEST(ReportPage, LongTickLabelsWidenTheMargin) {
  RunResults r = sample(3);
  for (std::size_t i = 0; i < r.scalars.size(); i += gpucap::kScalarMetricCount)
    r.scalars[i + gpucap::kCostUsd] *= 1e6;  // costs of about 10^9 USD: 10-character labels
  r.summarize_all();
  const std::string page = render_report(r);
  // Every y tick label's text ends at plot_left - 6 >= 34 + 7 x its length - 6: never left of
  // the chart's edge (x >= 0 once its length is taken away). Labels such as "1 500 000 000"
  // (13 characters) were cut at the default margin of 72 px.
  std::size_t long_labels = 0;
  for (std::size_t at = page.find("text-anchor=\"end\">"); at != std::string::npos;
       at = page.find("text-anchor=\"end\">", at + 1)) {
    const std::size_t x_at = page.rfind("<text x=\"", at) + 9;
    const double x = std::stod(page.substr(x_at, page.find('"', x_at) - x_at));
    const std::size_t start = at + 18;
    std::string label = page.substr(start, page.find('<', start) - start);
    // Thousands are grouped with a thin space (U+2009, 3 bytes): one character.
    for (std::size_t k; (k = label.find("\xE2\x80\x89")) != std::string::npos;)
      label.replace(k, 3, " ");
    if (label.find_first_not_of("0123456789.e+- ") != std::string::npos) continue;  // not a tick
    long_labels += label.size() >= 11;
    EXPECT_GE(x - 7.0 * static_cast<double>(label.size()), 20.0) << label << " at " << x;
  }
  EXPECT_GE(long_labels, 3u);
}

TEST(ReportPage, UnknownMetricsAreUsageErrorsListingTheValidNames) {
  const RunResults r = sample(2);
  ReportOptions options;
  options.objective = "costs";
  try {
    render_report(r, options);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--objective: unknown metric 'costs'; valid: cost, "),
              std::string::npos)
        << e.what();
  }
  options.objective = "cost";
  options.versus = "latency";
  EXPECT_THROW(render_report(r, options), std::invalid_argument);
}

TEST(ReportPage, GoalsWithTheirExactIntervalsAndVerdicts) {
  RunResults r = sample(2);
  gpucap::GoalSpec cheap;
  cheap.name = "cheap<i>";  // names are checked by the loader; the page escapes them anyway
  cheap.conditions.push_back(gpucap::parse_goal_condition("cost <= 1005", r.pool_names));
  cheap.target = 0.9;
  r.goals = {cheap};
  r.stopping_rule = "relative half-width <= 0.01 for cost: reached at 4 replications";
  r.summarize_all();
  const std::string page = render_report(r);
  // Point 1 is chosen (costs 500..503: met in 4 of 4); exact 95% interval [0.3976, 1]
  // (Clopper-Pearson lower bound 0.025^(1/4)); the target 0.9 is inside: cannot tell.
  EXPECT_NE(page.find("<h3>Goals</h3>"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"text\">cheap&lt;i&gt;</td><td class=\"text\">cost &lt;= "),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("<td>4 of 4</td><td>1</td><td>[0.3976, 1]</td>"), std::string::npos);
  EXPECT_NE(page.find("<td>0.9</td><td class=\"text\">cannot tell"), std::string::npos);
  // The sweep table: point 0 (costs 1000..1030) met it once (cost 1000).
  EXPECT_NE(page.find("<th>P(cheap&lt;i&gt;) [exact 95% interval]</th>"), std::string::npos)
      << page;
  EXPECT_NE(page.find("<td>0.25 [0.006309, 0.8059]</td>"), std::string::npos);
  EXPECT_NE(page.find("reached at 4 replications"), std::string::npos);
}

class ReportFile : public gpucap::testing_support::ScratchDirTest {};

TEST_F(ReportFile, WritesAtomicallyAndNeverOntoAnInputOrThroughALink) {
  RunResults r = sample(1);
  const std::string out = (dir_ / "report.html").string();
  gpucap::report::write_report(r, out);
  EXPECT_EQ(gpucap::testing_support::read_all(out), render_report(r));

  const std::string input = (dir_ / "results.h5").string();
  std::ofstream(input) << "results";
  gpucap::OutputOptions options;
  options.inputs = {input};
  EXPECT_THROW(gpucap::report::write_report(r, input, {}, options), gpucap::OutputError);
  EXPECT_EQ(gpucap::testing_support::read_all(input), "results");
  r.input_files = {input};
  EXPECT_THROW(gpucap::report::write_report(r, input), gpucap::OutputError);

  const std::filesystem::path link = dir_ / "link.html";
  std::filesystem::create_symlink(input, link);
  EXPECT_THROW(gpucap::report::write_report(sample(1), link.string()), gpucap::OutputError);
  EXPECT_EQ(gpucap::testing_support::read_all(input), "results");
  gpucap::OutputOptions force;
  force.force = true;
  gpucap::report::write_report(sample(1), link.string(), {}, force);  // replaces the link itself
  EXPECT_FALSE(std::filesystem::is_symlink(link));
  EXPECT_EQ(gpucap::testing_support::read_all(input), "results");
}

}  // namespace
