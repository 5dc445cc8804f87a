// gpucap CLI: goals tables and chance-constrained choices (see decision_report.hpp).
#include "decision_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gpucap/cheapest.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/metric_explain.hpp"

#include "command_line.hpp"

namespace po = boost::program_options;

namespace gpucap::cli {
namespace {

std::string number(double v) { return text::format_table_value(v); }

std::string share(double p) {
  if (std::isnan(p)) return "n/a";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4f", p);
  return buffer;
}

std::string bounds(const BinomialInterval& i) {
  return "[" + share(i.low) + ", " + share(i.high) + "]";
}

ScalarMetric objective_named(const std::string& name) {
  try {
    return scalar_metric_named("--objective", name);
  } catch (const std::invalid_argument& e) {
    throw po::error(e.what());
  }
}

CheapestQuery query_of(const po::variables_map& vm, const RunResults& r) {
  CheapestQuery q;
  if (vm.count("objective")) q.objective = objective_named(vm["objective"].as<std::string>());
  try {
    if (vm.count("constraint"))
      for (const std::string& c : vm["constraint"].as<std::vector<std::string>>())
        q.constraints.push_back(parse_mean_constraint(c));
    if (vm.count("chance"))
      for (const std::string& c : vm["chance"].as<std::vector<std::string>>())
        q.chance.push_back(parse_chance_constraint(c, r));
  } catch (const std::invalid_argument& e) {
    throw po::error(std::string(vm.count("chance") ? "--chance/--constraint: " : "--constraint: ") +
                    e.what());
  }
  q.conservative = vm.count("conservative") > 0;
  if (vm.count("points")) {
    try {
      q.candidates = parse_point_list(vm["points"].as<std::string>(), r.points);
    } catch (const std::invalid_argument& e) {
      throw po::error(std::string("--") + e.what());
    }
  }
  return q;
}

}  // namespace

po::options_description decision_options() {
  po::options_description o("decision options (the cheapest point that meets constraints)");
  add_objective_option(o,
                       "the metric whose mean to minimize, e.g. cost (default cost when "
                       "--constraint or --chance is given)");
  add_constraint_options(o);
  return o;
}

void add_constraint_options(po::options_description& o) {
  o.add_options()("constraint", po::value<std::vector<std::string>>()->composing(),
                  "a bound on a metric's mean: METRIC<=VALUE or METRIC>=VALUE (repeatable), e.g. "
                  "wait_p95<=1h")(
      "chance", po::value<std::vector<std::string>>()->composing(),
      "a bound on the probability of a goal of the scenario's `goals:`: GOAL>=LEVEL, or GOAL "
      "for its target (repeatable), e.g. on_time>=0.95")(
      "conservative",
      "a point meets a constraint only when the whole 95% interval does (the exact interval "
      "for a probability), not just the estimate")(
      "points", po::value<std::string>(),
      "the points that may be chosen, part of the grid: indices and ranges, e.g. 0,2,5-7 (the "
      "others are still shown with their standing)");
}

bool wants_decision(const po::variables_map& vm) {
  return vm.count("objective") || vm.count("constraint") || vm.count("chance") ||
         vm.count("points");
}

void check_decision_options(const po::variables_map& vm, const RunResults& r) {
  if (vm.count("conservative") && !wants_decision(vm))
    throw po::error("--conservative only applies with --objective, --constraint or --chance");
  if (wants_decision(vm)) (void)query_of(vm, r);
}

void print_goals(const RunResults& r, std::size_t point, std::ostream& out) {
  if (r.goals.empty()) return;
  char line[512];
  out << "\ngoals (met in a replication when every condition holds; 95% intervals of the "
         "probability)\n";
  std::snprintf(line, sizeof line, "%-20s %13s %11s  %-20s %-20s %-8s %s\n", "goal", "met",
                "probability", "exact (C-P) 95%", "Wilson 95%", "target", "verdict");
  out << line;
  for (std::size_t g = 0; g < r.goals.size(); ++g) {
    const GoalSummary& s = r.goal_summary_of(point, g);
    const GoalSpec& spec = r.goals[g];
    const std::string met = std::to_string(s.met) + "/" + std::to_string(s.n);
    std::string verdict = target_verdict_text(s, spec.target);
    if (verdict.empty()) verdict = "-";
    std::snprintf(line, sizeof line, "%-20s %13s %11s  %-20s %-20s %-8s %s\n", spec.name.c_str(),
                  met.c_str(), share(s.probability).c_str(), bounds(s.exact).c_str(),
                  bounds(s.wilson).c_str(), spec.target > 0 ? number(spec.target).c_str() : "-",
                  verdict.c_str());
    out << line;
  }
  for (const GoalSpec& spec : r.goals)
    out << "  " << spec.name << ": " << text::excerpt(spec.definition(), 400)
        << (spec.description.empty() ? "" : "  (" + text::excerpt(spec.description, 200) + ")")
        << "\n";
}

void print_decision(const po::variables_map& vm, const RunResults& r, std::ostream& out) {
  const CheapestQuery q = query_of(vm, r);
  const CheapestAnswer a = choose_cheapest(r, q);
  const MetricInfo& objective = kScalarMetricInfo[q.objective];
  out << "\ndecision: minimize the mean " << objective.name << " (" << objective.unit << ")";
  for (const MeanConstraint& c : q.constraints) out << ", mean " << c.text;
  for (const ChanceConstraint& c : q.chance)
    out << ", P(" << r.goals[c.goal].name << ") >= " << number(c.level);
  out << (q.conservative ? " (conservative: by the 95% intervals)" : " (by the estimates)") << "\n";
  char cell[160];
  // Each point's parameter values beside its index, as the sweep table shows them.
  std::vector<std::size_t> widths;
  std::string header = "point  ";
  for (const SweepParameter& p : r.sweep) {
    std::size_t w = std::min<std::size_t>(p.path.size(), 40);
    for (const std::string& v : p.values) w = std::max(w, std::min<std::size_t>(v.size(), 24));
    widths.push_back(w);
    std::snprintf(cell, sizeof cell, "%-*s  ", static_cast<int>(w),
                  text::excerpt(p.path, 40).c_str());
    header += cell;
  }
  header += "feasible  ";
  std::snprintf(cell, sizeof cell, "%14s  ",
                (std::string(objective.name) + " [" + objective.unit + "]").c_str());
  header += cell;
  for (const ChanceConstraint& c : q.chance) {
    std::snprintf(cell, sizeof cell, "%-34s",
                  ("P(" + r.goals[c.goal].name + ") [exact 95%]").c_str());
    header += cell;
  }
  header += "minus best (95% CI)";
  out << header << "\n";
  for (std::size_t p = 0; p < r.points; ++p) {
    const PointStanding& s = a.points[p];
    std::string row;
    std::snprintf(cell, sizeof cell, "%5zu  ", p);
    row += cell;
    for (std::size_t k = 0; k < r.sweep.size(); ++k) {
      const std::vector<std::string>& values = r.sweep[k].values;
      std::snprintf(cell, sizeof cell, "%-*s  ", static_cast<int>(widths[k]),
                    p < values.size() ? text::excerpt(values[p], 24).c_str() : "");
      row += cell;
    }
    std::snprintf(cell, sizeof cell, "%-8s  %14s  ",
                  s.feasible ? (s.undecided ? "yes?" : "yes") : (s.undecided ? "no?" : "no"),
                  number(s.objective.mean).c_str());
    row += cell;
    for (std::size_t i = 0; i < q.chance.size(); ++i) {
      const GoalSummary& g = r.goal_summary_of(p, q.chance[i].goal);
      std::snprintf(cell, sizeof cell, "%-34s",
                    (share(g.probability) + " " + bounds(g.exact) + " " +
                     (s.chance[i] == ChanceVerdict::cannot_tell ? "?" : ""))
                        .c_str());
      row += cell;
    }
    if (a.found)
      row += p == a.best ? "(chosen)"
                         : number(s.minus_best.mean) + " [" + number(s.minus_best.ci95_low) + ", " +
                               number(s.minus_best.ci95_high) + "]";
    row.erase(row.find_last_not_of(' ') + 1);
    out << row << "\n";
  }
  out << "(? = the 95% interval contains the bound: the data cannot tell)\n";
  out << a.explanation << "\n";
}

}  // namespace gpucap::cli
