// gpucap: the regret table of a robust plan and its two choices.
#include "gpucap/robust_plan.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>

#include "gpucap/detail/text.hpp"
#include "gpucap/variants.hpp"

namespace gpucap {
namespace {

/// Summary over replications of sum_i c_i x_r(point_i) (NaN terms make the replication's value
/// NaN, which summarize leaves out).
MetricSummary combination(const RunResults& r, ScalarMetric m,
                          const std::vector<std::pair<std::size_t, double>>& terms) {
  std::vector<double> x(r.replications, 0.0);
  for (std::size_t i = 0; i < r.replications; ++i)
    for (const auto& term : terms) x[i] += term.second * r.scalar(term.first, i, m);
  return summarize(std::move(x));
}

/// A number as the CLI prints it: 4 significant digits, no exponent between 1e-3 and 1e12.
std::string number(double v) { return text::format_table_value(v); }

std::string interval(const MetricSummary& s) {
  if (std::isnan(s.ci95_low)) return "[n/a]";
  return "[" + number(s.ci95_low) + ", " + number(s.ci95_high) + "]";
}

std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

/// The index of `value` in `list`, appended when absent.
std::size_t index_of(std::vector<std::string>& list, const std::string& value) {
  for (std::size_t i = 0; i < list.size(); ++i)
    if (list[i] == value) return i;
  list.push_back(value);
  return list.size() - 1;
}

/// A comparison with the runner-up whose difference has the summary `difference`.
RobustComparison compare(std::size_t runner_up, double mean_difference,
                         const MetricSummary& difference) {
  RobustComparison c;
  c.runner_up = runner_up;
  c.difference = mean_difference;
  c.interval = difference;
  c.distinguishable =
      !std::isnan(difference.ci95_low) && (difference.ci95_low > 0 || difference.ci95_high < 0);
  return c;
}

/// The index of the smallest value (the first on ties) and of the next one (kNone if none).
std::pair<std::size_t, std::size_t> two_smallest(const std::vector<double>& v) {
  std::size_t first = 0;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i] < v[first]) first = i;
  std::size_t second = RobustComparison::kNone;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (i != first && (second == RobustComparison::kNone || v[i] < v[second])) second = i;
  return {first, second};
}

}  // namespace

std::string RobustPlan::decision_label(std::size_t d) const {
  std::string label;
  for (std::size_t k = 0; k < decision_paths.size(); ++k)
    label += (k ? ", " : "") + text::excerpt(decision_paths[k], 60) + "=" +
             text::excerpt(decisions[d][k], 40);
  return label.empty() ? "(the scenario)" : label;
}

RobustPlan robust_plan(const RunResults& r, ScalarMetric objective,
                       const std::string& variant_parameter,
                       const std::vector<std::pair<std::string, double>>& weights) {
  RobustPlan plan;
  plan.objective = objective;
  const std::string metric = kScalarMetricInfo[objective].name;
  std::size_t iv = r.sweep.size();
  for (std::size_t k = 0; k < r.sweep.size(); ++k)
    if (r.sweep[k].path == variant_parameter) iv = k;
  if (iv == r.sweep.size()) {
    std::vector<std::string> paths;
    for (const SweepParameter& p : r.sweep) paths.push_back(p.path);
    throw std::invalid_argument(
        "these results have no sweep parameter '" + text::excerpt(variant_parameter) +
        "' to take as the variants" +
        (paths.empty() ? std::string(" (they are a plain run)")
                       : "; their parameters are " + text::join(paths, ", ")) +
        ". A robust plan comes from `gpucap sweep --variant` or gpucap.robust_plan");
  }
  // The decision parameters, and where the stored weights are.
  const bool layout = variant_parameter == kVariantParameter;
  std::vector<std::size_t> decision_columns;
  for (std::size_t k = 0; k < (layout ? iv : r.sweep.size()); ++k)
    if (k != iv) decision_columns.push_back(k);
  const SweepParameter* stored_weights =
      layout && iv + 1 < r.sweep.size() && r.sweep[iv + 1].path == kVariantWeightParameter
          ? &r.sweep[iv + 1]
          : nullptr;
  for (std::size_t k : decision_columns) plan.decision_paths.push_back(r.sweep[k].path);

  // Group the points: decisions and variants in order of first appearance.
  std::vector<std::string> decision_keys;
  std::vector<std::pair<std::size_t, std::size_t>> cell_of_point(r.points);
  for (std::size_t p = 0; p < r.points; ++p) {
    std::string key;
    std::vector<std::string> values;
    for (std::size_t k : decision_columns) {
      key += r.sweep[k].values[p] + '\x1f';
      values.push_back(r.sweep[k].values[p]);
    }
    const std::size_t d = index_of(decision_keys, key);
    if (d == plan.decisions.size()) plan.decisions.push_back(values);
    cell_of_point[p] = {d, index_of(plan.variants, r.sweep[iv].values[p])};
  }
  const std::size_t D = plan.decisions.size(), V = plan.variants.size();
  plan.points.assign(D * V, RobustComparison::kNone);
  for (std::size_t p = 0; p < r.points; ++p) {
    const auto [d, v] = cell_of_point[p];
    if (plan.points[d * V + v] != RobustComparison::kNone)
      throw std::invalid_argument("decision " + plan.decision_label(d) + " has variant '" +
                                  text::excerpt(plan.variants[v]) + "' twice (points " +
                                  std::to_string(plan.points[d * V + v]) + " and " +
                                  std::to_string(p) + ")");
    plan.points[d * V + v] = p;
  }
  for (std::size_t d = 0; d < D; ++d)
    for (std::size_t v = 0; v < V; ++v)
      if (plan.points[d * V + v] == RobustComparison::kNone)
        throw std::invalid_argument("decision " + plan.decision_label(d) +
                                    " did not run under variant '" +
                                    text::excerpt(plan.variants[v]) +
                                    "' (a skipped point?): a robust plan needs every decision "
                                    "under every variant");

  // Weights: given, stored, or equal; normalized.
  std::vector<double> w(V, 1.0);
  if (!weights.empty()) {
    std::vector<bool> seen(V, false);
    for (const auto& [name, weight] : weights) {
      std::size_t v = V;
      for (std::size_t i = 0; i < V; ++i)
        if (plan.variants[i] == name) v = i;
      if (v == V)
        throw std::invalid_argument("weights: no variant '" + text::excerpt(name) +
                                    "'; the variants are " + text::join(plan.variants, ", "));
      if (seen[v])
        throw std::invalid_argument("weights: variant '" + text::excerpt(name) + "' weighed twice");
      if (!std::isfinite(weight) || weight <= 0)
        throw std::invalid_argument("weights: variant '" + text::excerpt(name) + "' has weight " +
                                    number(weight) + "; weights are positive numbers");
      seen[v] = true;
      w[v] = weight;
    }
    for (std::size_t v = 0; v < V; ++v)
      if (!seen[v])
        throw std::invalid_argument("weights: variant '" + text::excerpt(plan.variants[v]) +
                                    "' has no weight; weigh every variant");
  } else if (stored_weights && !stored_weights->values.empty() &&
             !stored_weights->values.front().empty()) {
    for (std::size_t p = 0; p < r.points; ++p) {
      const std::string& text = stored_weights->values[p];
      char* end = nullptr;
      const double x = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(x) || x <= 0)
        throw std::invalid_argument("point " + std::to_string(p) + ": variant weight '" +
                                    text::excerpt(text) + "' is not a positive number");
      w[cell_of_point[p].second] = x;
    }
  }
  w = normalize_weights(std::move(w), plan.variants);
  plan.probabilities = w;

  // Means, each variant's best decision, regrets, and the per-decision criteria.
  plan.objective_summary.resize(D * V);
  for (std::size_t i = 0; i < D * V; ++i) {
    plan.objective_summary[i] = r.summary_of(plan.points[i], objective);
    if (std::isnan(plan.objective_summary[i].mean))
      throw std::invalid_argument(
          metric + " is not defined in any replication of point " + std::to_string(plan.points[i]) +
          " (" + plan.decision_label(i / V) + ", variant '" + text::excerpt(plan.variants[i % V]) +
          "'); choose another objective");
  }
  const auto mean = [&](std::size_t d, std::size_t v) {
    return plan.objective_summary[d * V + v].mean;
  };
  plan.best.assign(V, 0);
  for (std::size_t v = 0; v < V; ++v)
    for (std::size_t d = 1; d < D; ++d)
      if (mean(d, v) < mean(plan.best[v], v)) plan.best[v] = d;
  plan.regret.resize(D * V);
  plan.regret_interval.resize(D * V);
  plan.max_regret.assign(D, 0);
  plan.worst_variant.assign(D, 0);
  plan.expected.assign(D, 0);
  plan.expected_interval.resize(D);
  for (std::size_t d = 0; d < D; ++d) {
    std::vector<std::pair<std::size_t, double>> terms;
    for (std::size_t v = 0; v < V; ++v) {
      const std::size_t b = plan.best[v];
      plan.regret[d * V + v] = mean(d, v) - mean(b, v);
      plan.regret_interval[d * V + v] = combination(
          r, objective, {{plan.points[d * V + v], 1.0}, {plan.points[b * V + v], -1.0}});
      if (plan.regret[d * V + v] > plan.max_regret[d] || v == 0) {
        plan.max_regret[d] = plan.regret[d * V + v];
        plan.worst_variant[d] = v;
      }
      plan.expected[d] += w[v] * mean(d, v);
      terms.push_back({plan.points[d * V + v], w[v]});
    }
    plan.expected_interval[d] = combination(r, objective, terms);
  }

  // The choices and their runners-up. Max regret: runner-up's regret at its worst variant minus
  // the choice's at its own, each against that variant's best decision.
  const auto [mm, mm2] = two_smallest(plan.max_regret);
  const auto [ex, ex2] = two_smallest(plan.expected);
  plan.minimax_choice = mm;
  plan.expected_choice = ex;
  if (mm2 != RobustComparison::kNone) {
    const std::size_t v2 = plan.worst_variant[mm2], v1 = plan.worst_variant[mm];
    const MetricSummary s = combination(r, objective,
                                        {{plan.points[mm2 * V + v2], 1.0},
                                         {plan.points[plan.best[v2] * V + v2], -1.0},
                                         {plan.points[mm * V + v1], -1.0},
                                         {plan.points[plan.best[v1] * V + v1], 1.0}});
    plan.minimax_runner_up = compare(mm2, plan.max_regret[mm2] - plan.max_regret[mm], s);
  }
  if (ex2 != RobustComparison::kNone) {
    std::vector<std::pair<std::size_t, double>> terms;
    for (std::size_t v = 0; v < V; ++v) {
      terms.push_back({plan.points[ex2 * V + v], w[v]});
      terms.push_back({plan.points[ex * V + v], -w[v]});
    }
    plan.expected_runner_up =
        compare(ex2, plan.expected[ex2] - plan.expected[ex], combination(r, objective, terms));
  }
  return plan;
}

std::string format_robust_plan(const RobustPlan& plan) {
  const MetricInfo& info = kScalarMetricInfo[plan.objective];
  const std::string unit = info.unit;
  const std::string name = info.name;
  const std::size_t D = plan.decision_count(), V = plan.variant_count();
  // Variant names as the tables show them: escaped and cut (they come from a results file).
  std::vector<std::string> variants(V);
  for (std::size_t v = 0; v < V; ++v) variants[v] = text::excerpt(plan.variants[v], 40);
  std::string out = "robust plan: " + name + " [" + unit + "], lower is better; " +
                    std::to_string(D) + " decisions x " + std::to_string(V) + " variants, weights";
  for (std::size_t v = 0; v < V; ++v)
    out += (v ? ", " : " ") + variants[v] + " " + number(plan.probabilities[v]);
  out += "\n";

  std::size_t label_width = 8;
  for (std::size_t d = 0; d < D; ++d)
    label_width = std::max(label_width, plan.decision_label(d).size());
  std::vector<std::string> cells(D * V);
  const auto table = [&](const std::string& title, const std::vector<std::string>& extra_names,
                         const std::vector<std::vector<std::string>>& extra) {
    std::vector<std::size_t> width(V + extra_names.size());
    for (std::size_t v = 0; v < V; ++v) {
      width[v] = variants[v].size();
      for (std::size_t d = 0; d < D; ++d) width[v] = std::max(width[v], cells[d * V + v].size());
    }
    for (std::size_t e = 0; e < extra_names.size(); ++e) {
      width[V + e] = extra_names[e].size();
      for (std::size_t d = 0; d < D; ++d) width[V + e] = std::max(width[V + e], extra[d][e].size());
    }
    out += "\n" + title + "\n" + pad("decision", label_width);
    for (std::size_t v = 0; v < V; ++v) out += "  " + pad(variants[v], width[v]);
    for (std::size_t e = 0; e < extra_names.size(); ++e)
      out += "  " + pad(extra_names[e], width[V + e]);
    out.erase(out.find_last_not_of(' ') + 1);
    out += "\n";
    for (std::size_t d = 0; d < D; ++d) {
      out += pad(plan.decision_label(d), label_width);
      for (std::size_t v = 0; v < V; ++v) out += "  " + pad(cells[d * V + v], width[v]);
      for (std::size_t e = 0; e < extra_names.size(); ++e)
        out += "  " + pad(extra[d][e], width[V + e]);
      out.erase(out.find_last_not_of(' ') + 1);
      out += "\n";
    }
  };
  for (std::size_t i = 0; i < D * V; ++i)
    cells[i] = number(plan.objective_summary[i].mean) + " " + interval(plan.objective_summary[i]);
  std::vector<std::vector<std::string>> expected(D);
  for (std::size_t d = 0; d < D; ++d)
    expected[d] = {number(plan.expected[d]) + " " + interval(plan.expected_interval[d])};
  table("mean " + name + " [" + unit + "] per decision and variant (95% CI)", {"expected " + name},
        expected);

  for (std::size_t i = 0; i < D * V; ++i)
    cells[i] = plan.best[i % V] == i / V
                   ? "0 (best)"
                   : number(plan.regret[i]) + " " + interval(plan.regret_interval[i]);
  std::vector<std::vector<std::string>> max_regret(D);
  for (std::size_t d = 0; d < D; ++d)
    max_regret[d] = {number(plan.max_regret[d]) + " (" + variants[plan.worst_variant[d]] + ")"};
  table("regret [" + unit + "]: " + name +
            " minus the variant's lowest mean (95% CI of the paired difference)",
        {"max regret"}, max_regret);

  const auto verdict = [&](const RobustComparison& c, const std::string& criterion) {
    if (c.runner_up == RobustComparison::kNone) return std::string("  (the only decision)\n");
    return "  runner-up " + plan.decision_label(c.runner_up) + ": " + criterion + " " +
           number(c.difference) + " " + unit + " higher " + interval(c.interval) + "; " +
           (c.distinguishable ? "the data tell them apart"
                              : "the interval includes 0: the data cannot tell them apart") +
           "\n";
  };
  out += "\nminimax-regret choice: " + plan.decision_label(plan.minimax_choice) + " (max regret " +
         number(plan.max_regret[plan.minimax_choice]) + " " + unit + ", under '" +
         variants[plan.worst_variant[plan.minimax_choice]] + "')\n";
  out += verdict(plan.minimax_runner_up, "max regret");
  out += "expected-" + name + " choice: " + plan.decision_label(plan.expected_choice) + " (" +
         number(plan.expected[plan.expected_choice]) + " " + unit + " " +
         interval(plan.expected_interval[plan.expected_choice]) + ")\n";
  out += verdict(plan.expected_runner_up, "expected " + name);
  out += plan.minimax_choice == plan.expected_choice
             ? "the two choices agree\n"
             : "the two choices differ: minimax regret guards against the worst variant, the "
               "expected choice bets on the weights\n";
  return out;
}

}  // namespace gpucap
