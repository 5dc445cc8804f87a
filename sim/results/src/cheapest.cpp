// gpucap: the cheapest feasible sweep point under mean and chance constraints (cheapest.hpp).
#include "gpucap/cheapest.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "gpucap/detail/text.hpp"
#include "gpucap/quantities.hpp"

namespace gpucap {
namespace {

bool compare(double a, GoalOp op, double b) {
  switch (op) {
    case GoalOp::le:
      return a <= b;
    case GoalOp::lt:
      return a < b;
    case GoalOp::ge:
      return a >= b;
    case GoalOp::gt:
      return a > b;
  }
  return false;
}

bool upper_bound(GoalOp op) { return op == GoalOp::le || op == GoalOp::lt; }

std::string format(double v) { return text::format_number(v); }

std::string interval(const BinomialInterval& i) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "[%.4f, %.4f]", i.low, i.high);
  return buffer;
}

std::string probability(double p) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4f", p);
  return buffer;
}

}  // namespace

MeanConstraint parse_mean_constraint(const std::string& text_in) {
  const GoalCondition c = parse_goal_condition(text_in, {});
  if (c.lhs.is_pool || c.has_rhs_metric)
    throw std::invalid_argument("constraint \"" + text::excerpt(c.text) +
                                "\": write METRIC OP NUMBER with a scalar metric and a number, "
                                "e.g. wait_p95<=3600 (a bound on the metric's mean)");
  MeanConstraint m;
  m.metric = static_cast<ScalarMetric>(c.lhs.metric);
  m.op = c.op;
  m.bound = c.constant;
  m.text = c.text;
  return m;
}

ChanceConstraint parse_chance_constraint(const std::string& text_in, const RunResults& r) {
  const std::string t = text::trim(text_in);
  std::vector<std::string> names;
  for (const GoalSpec& g : r.goals) names.push_back(g.name);
  const std::string goals_named =
      names.empty() ? std::string(
                          "these results have no goals (add a `goals:` section to the "
                          "scenario)")
                    : "goals: " + text::join(names, ", ");
  const std::size_t at = t.find(">=");
  const std::string name = text::trim(at == std::string::npos ? t : t.substr(0, at));
  if (name.find_first_of("<>=") != std::string::npos)
    throw std::invalid_argument("chance constraint \"" + text::excerpt(t) +
                                "\": write GOAL>=LEVEL (a probability from 0 to 1, e.g. "
                                "on_time>=0.95) or GOAL (its target)");
  const int index = r.goal_index(name);
  if (index < 0) {
    std::string message = "chance constraint \"" + text::excerpt(t) + "\": no goal named '" +
                          text::excerpt(name) + "'";
    const std::string suggestion = text::closest(name, names);
    if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
    throw std::invalid_argument(message + "; " + goals_named);
  }
  ChanceConstraint c;
  c.goal = static_cast<std::size_t>(index);
  if (at == std::string::npos) {
    c.level = r.goals[c.goal].target;
    if (!(c.level > 0))
      throw std::invalid_argument("chance constraint \"" + text::excerpt(t) + "\": goal '" + name +
                                  "' has no target; give the level: " + name + ">=0.95");
    return c;
  }
  const std::string level = text::trim(t.substr(at + 2));
  char* end = nullptr;
  c.level = std::strtod(level.c_str(), &end);
  if (level.empty() || *end != '\0' || !(c.level > 0 && c.level < 1))
    throw std::invalid_argument("chance constraint \"" + text::excerpt(t) + "\": the level '" +
                                text::excerpt(level) +
                                "' must be a probability between 0 and 1 (exclusive), e.g. 0.95");
  return c;
}

std::vector<bool> parse_point_list(const std::string& text, std::size_t points) {
  std::vector<bool> out(points, false);
  const auto index = [&](const std::string& s) -> std::size_t {
    const std::string t = text::trim(s);
    if (t.empty() || t.size() > 9 || t.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument("points: \"" + text::excerpt(t) +
                                  "\" is not a point index (0 to " + std::to_string(points - 1) +
                                  "); write e.g. 0,2,5-7");
    const std::size_t i = std::stoul(t);
    if (i >= points)
      throw std::invalid_argument("points: " + t + " is beyond the last point, " +
                                  std::to_string(points - 1));
    return i;
  };
  bool any = false;
  for (const std::string& part : text::split(text, ',')) {
    const std::size_t dash = part.find('-');
    const std::size_t lo = index(part.substr(0, dash));
    const std::size_t hi = dash == std::string::npos ? lo : index(part.substr(dash + 1));
    if (hi < lo) throw std::invalid_argument("points: the range " + text::trim(part) + " is empty");
    for (std::size_t i = lo; i <= hi; ++i) out[i] = any = true;
  }
  if (!any) throw std::invalid_argument("points: no point given; write e.g. 0,2,5-7");
  return out;
}

namespace {

/// A sweep value as a number: a plain number, or a duration with its unit in seconds; false
/// for other values (a name, a list, true).
bool numeric_value(const std::string& text_in, double& v) {
  const std::string t = text::trim(text_in);
  if (t.empty()) return false;
  char* end = nullptr;
  v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() + t.size() && std::isfinite(v)) return true;
  try {
    v = parse_duration_s(t);
    return std::isfinite(v);
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

std::string grid_edge_note(const RunResults& r, std::size_t point,
                           const std::vector<bool>& feasible, ScalarMetric objective) {
  std::string out;
  for (std::size_t k = 0; k < r.sweep.size(); ++k) {
    const SweepParameter& p = r.sweep[k];
    if (point >= p.values.size()) continue;
    std::vector<double> values;
    for (const std::string& text : p.values) {
      double v = 0;
      if (!numeric_value(text, v)) {
        values.clear();
        break;
      }
      values.push_back(v);
    }
    if (values.size() != p.values.size()) continue;
    std::vector<double> distinct = values;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    if (distinct.size() < 3) continue;  // two values compare options; they bound no range
    const double v = values[point];
    if (v != distinct.front() && v != distinct.back()) continue;
    const bool low = v == distinct.front();
    // The point one step inside the grid along this parameter, the others as at `point`: the
    // objective falls toward the edge when it is feasible and worse there. An infeasible one
    // means a constraint binds at the edge (the better points lie inside, not beyond).
    const double inner = low ? distinct[1] : distinct[distinct.size() - 2];
    bool improves = false;
    for (std::size_t q = 0; q < r.points && q < p.values.size(); ++q) {
      if (values[q] != inner) continue;
      bool same_elsewhere = true;
      for (std::size_t j = 0; j < r.sweep.size() && same_elsewhere; ++j)
        if (j != k && q < r.sweep[j].values.size() && point < r.sweep[j].values.size())
          same_elsewhere = r.sweep[j].values[q] == r.sweep[j].values[point];
      if (!same_elsewhere) continue;
      improves = q < feasible.size() && feasible[q] &&
                 r.summary_of(q, objective).mean > r.summary_of(point, objective).mean;
      break;
    }
    if (!improves) continue;
    out += "\nthe chosen point lies at the edge of the grid: " + p.path + " = " +
           text::excerpt(p.values[point]) + " is the " + (low ? "smallest" : "largest") +
           " value swept and the objective still falls toward it, so a better point may lie "
           "beyond it; extend the grid " +
           (low ? "below" : "above") + " it to know";
  }
  return out;
}

CheapestAnswer choose_cheapest(const RunResults& r, const CheapestQuery& q) {
  if (q.objective >= kScalarMetricCount) throw std::invalid_argument("objective out of range");
  for (const ChanceConstraint& c : q.chance)
    if (c.goal >= r.goals.size() || !(c.level > 0 && c.level < 1))
      throw std::invalid_argument("chance constraint out of range");
  for (const MeanConstraint& c : q.constraints)
    if (c.metric >= kScalarMetricCount) throw std::invalid_argument("constraint out of range");
  if (!q.candidates.empty() && q.candidates.size() != r.points)
    throw std::invalid_argument("candidate points: one flag per point is needed");
  const auto candidate = [&](std::size_t p) { return q.candidates.empty() || q.candidates[p]; };
  CheapestAnswer a;
  a.points.resize(r.points);
  for (std::size_t p = 0; p < r.points; ++p) {
    PointStanding& s = a.points[p];
    s.objective = r.summary_of(p, q.objective);
    s.feasible = !std::isnan(s.objective.mean);
    for (const MeanConstraint& c : q.constraints) {
      const MetricSummary& m = r.summary_of(p, c.metric);
      // Conservative: the interval's end far from the bound must meet it (the high end for an
      // upper bound). Undecided: the interval holds the bound (false when it is NaN).
      const double far = upper_bound(c.op) ? m.ci95_high : m.ci95_low;
      const bool ok = compare(q.conservative ? far : m.mean, c.op, c.bound);
      if (m.ci95_low <= c.bound && c.bound <= m.ci95_high) s.undecided = true;
      s.meets_constraint.push_back(ok);
      s.feasible = s.feasible && ok;
    }
    for (const ChanceConstraint& c : q.chance) {
      const GoalSummary& g = r.goal_summary_of(p, c.goal);
      const ChanceVerdict v = judge_chance(g, c.level);
      const bool ok = q.conservative ? v == ChanceVerdict::meets : g.probability >= c.level;
      if (v == ChanceVerdict::cannot_tell) s.undecided = true;
      s.chance.push_back(v);
      s.meets_chance.push_back(ok);
      s.feasible = s.feasible && ok;
    }
    if (s.feasible && candidate(p) &&
        (!a.found || s.objective.mean < a.points[a.best].objective.mean)) {
      a.found = true;
      a.best = p;
    }
  }
  const std::string objective = kScalarMetricInfo[q.objective].name;
  const std::string unit = kScalarMetricInfo[q.objective].unit;
  // Points that could change the answer: undecided and cheaper than the choice (any, if none).
  uint64_t need = 0;
  const auto why_undecided = [&](std::size_t p) {
    const PointStanding& s = a.points[p];
    std::string why;
    for (std::size_t i = 0; i < q.chance.size(); ++i) {
      if (s.chance[i] != ChanceVerdict::cannot_tell) continue;
      const GoalSummary& g = r.goal_summary_of(p, q.chance[i].goal);
      need = std::max(need, replications_to_decide(g, q.chance[i].level));
      why += std::string(why.empty() ? "" : "; ") + "P(" + r.goals[q.chance[i].goal].name +
             ") = " + probability(g.probability) + " " + interval(g.exact) + " around " +
             format(q.chance[i].level);
    }
    for (const MeanConstraint& c : q.constraints) {
      const MetricSummary& m = r.summary_of(p, c.metric);
      if (m.ci95_low <= c.bound && c.bound <= m.ci95_high)  // false when NaN
        why += std::string(why.empty() ? "" : "; ") + kScalarMetricInfo[c.metric].name + " mean " +
               format(m.mean) + " [" + format(m.ci95_low) + ", " + format(m.ci95_high) +
               "] around " + format(c.bound);
    }
    return "\n  point " + std::to_string(p) + ": " + why;
  };
  std::string cheaper_lines;
  for (std::size_t p = 0; p < r.points; ++p) {
    const PointStanding& s = a.points[p];
    if (!s.undecided || s.feasible || !candidate(p)) continue;
    if (a.found && !(s.objective.mean < a.points[a.best].objective.mean)) continue;
    a.undecided_cheaper.push_back(p);
    cheaper_lines += why_undecided(p);
  }
  if (a.found) {
    for (std::size_t p = 0; p < r.points; ++p)
      a.points[p].minus_best = paired_difference(r, q.objective, p, a.best);
    const PointStanding& b = a.points[a.best];
    a.certain = !b.undecided && a.undecided_cheaper.empty();
    a.explanation = "cheapest feasible point: " + std::to_string(a.best) + ", " + objective + " " +
                    format(b.objective.mean) + " " + unit;
    if (!std::isnan(b.objective.ci95_low))
      a.explanation +=
          " [" + format(b.objective.ci95_low) + ", " + format(b.objective.ci95_high) + "]";
    if (b.undecided)
      a.explanation +=
          "\nthe data cannot tell whether it meets every constraint:" + why_undecided(a.best);
    if (!a.undecided_cheaper.empty())
      a.explanation +=
          "\nthe data cannot tell whether these cheaper points are feasible:" + cheaper_lines;
    std::vector<bool> feasible(r.points);
    for (std::size_t p = 0; p < r.points; ++p) feasible[p] = a.points[p].feasible;
    a.explanation += grid_edge_note(r, a.best, feasible, q.objective);
  } else {
    a.explanation = q.candidates.empty() ? "no point meets the constraints"
                                         : "no point of those allowed meets the constraints";
    if (!a.undecided_cheaper.empty())
      a.explanation += "; the data cannot tell for these points:" + cheaper_lines;
  }
  a.replications_to_decide = need;
  if (need == UINT64_MAX)
    a.explanation +=
        "\na probability estimate sits exactly on its level: more replications "
        "may not decide it";
  else if (need > 0)
    a.explanation += "\nabout " + std::to_string(need) +
                     " replications per point would decide them, if the estimates hold (a "
                     "sweep's -r " + std::to_string(need) + ": every point runs that many, " +
                     std::to_string(need * r.points) + " in all)";
  else if (a.found)
    a.explanation += q.chance.empty() && q.constraints.empty()
                         ? ""
                         : "\nevery constraint is decided by its 95% interval";
  return a;
}

}  // namespace gpucap
