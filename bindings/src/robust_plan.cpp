// gpucap._core: robust plans (variants x decisions, the regret table), for gpucap.robust_plan
// and gpucap.RobustPlan in bindings/python/gpucap/robust.py. The checks, the grid layout, the
// regret computation and its text are the C++ ones the CLI uses.
#include "gpucap/robust_plan.hpp"

#include <optional>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gpucap/variant_sweep.hpp"
#include "gpucap/variants.hpp"

#include "text_caster.hpp"

namespace py = pybind11;

namespace {

/// A variant as Python passes it: (name, weight as text or "", [(path, value)]).
using VariantTuple =
    std::tuple<std::string, std::string, std::vector<std::pair<std::string, std::string>>>;
using Grid = std::vector<std::pair<std::string, std::vector<std::string>>>;

std::vector<gpucap::Variant> variants_of(const std::vector<VariantTuple>& in) {
  std::vector<gpucap::Variant> out;
  for (const auto& t : in) out.push_back({std::get<0>(t), std::get<1>(t), std::get<2>(t)});
  return out;
}

std::vector<gpucap::SweepParameter> grid_of(const Grid& in) {
  std::vector<gpucap::SweepParameter> out;
  for (const auto& p : in) out.push_back({p.first, p.second});
  return out;
}

Grid tuples_of(const std::vector<gpucap::SweepParameter>& grid) {
  Grid out;
  for (const gpucap::SweepParameter& p : grid) out.emplace_back(p.path, p.values);
  return out;
}

/// Mean, interval low and high, and n of each summary.
py::dict summaries(const std::vector<gpucap::MetricSummary>& s) {
  std::vector<double> mean, low, high;
  std::vector<std::size_t> n;
  for (const gpucap::MetricSummary& x : s) {
    mean.push_back(x.mean);
    low.push_back(x.ci95_low);
    high.push_back(x.ci95_high);
    n.push_back(x.n);
  }
  py::dict d;
  d["mean"] = mean;
  d["ci_low"] = low;
  d["ci_high"] = high;
  d["n"] = n;
  return d;
}

py::dict comparison(const gpucap::RobustComparison& c) {
  py::dict d;
  d["runner_up"] = c.runner_up == gpucap::RobustComparison::kNone
                       ? py::object(py::none())
                       : py::object(py::int_(c.runner_up));
  d["difference"] = c.difference;
  d["ci_low"] = c.interval.ci95_low;
  d["ci_high"] = c.interval.ci95_high;
  d["distinguishable"] = c.distinguishable;
  return d;
}

}  // namespace

void bind_robust_plan(py::module_& m) {
  m.attr("VARIANT_PARAMETER") = gpucap::kVariantParameter;
  m.attr("VARIANT_WEIGHT_PARAMETER") = gpucap::kVariantWeightParameter;
  m.def(
      "check_robust_points",
      [](const std::string& text, const std::string& origin, const std::string& base_dir,
         const std::vector<std::string>& overrides, const Grid& decisions,
         const std::vector<VariantTuple>& variants, std::optional<uint64_t> max_scenario_bytes,
         std::optional<uint64_t> max_data_bytes) {
        gpucap::InputLimits limits;
        if (max_scenario_bytes) limits.scenario_bytes = *max_scenario_bytes;
        if (max_data_bytes) limits.data_bytes = *max_data_bytes;
        gpucap::SweepPoints p = gpucap::check_robust_points(
            text, origin, base_dir, overrides, grid_of(decisions), variants_of(variants), limits);
        return std::make_pair(std::move(p.points), tuples_of(p.grid));
      },
      py::arg("text"), py::arg("origin"), py::arg("base_dir"), py::arg("overrides"),
      py::arg("decisions"), py::arg("variants"), py::arg("max_scenario_bytes") = py::none(),
      py::arg("max_data_bytes") = py::none(),
      "(points, grid) of a robust plan: every decision of the expanded grid under every variant "
      "(name, weight text or '', [(path, value)]), as gpucap sweep --variant loads them; "
      "ScenarioError naming the variant");
  m.def(
      "robust_plan",
      [](const gpucap::RunResults& r, int objective, const std::string& variant_parameter,
         const std::vector<std::pair<std::string, double>>& weights) {
        if (objective < 0 || objective >= static_cast<int>(gpucap::kScalarMetricCount))
          throw std::out_of_range("robust_plan: objective out of range");
        const gpucap::RobustPlan plan = gpucap::robust_plan(
            r, static_cast<gpucap::ScalarMetric>(objective), variant_parameter, weights);
        py::dict d;
        d["decision_paths"] = plan.decision_paths;
        d["decisions"] = plan.decisions;
        d["variants"] = plan.variants;
        d["probabilities"] = plan.probabilities;
        d["points"] = plan.points;
        d["objective"] = summaries(plan.objective_summary);
        d["best"] = plan.best;
        d["regret"] = plan.regret;
        d["regret_interval"] = summaries(plan.regret_interval);
        d["max_regret"] = plan.max_regret;
        d["worst_variant"] = plan.worst_variant;
        d["expected"] = plan.expected;
        d["expected_interval"] = summaries(plan.expected_interval);
        d["minimax_choice"] = plan.minimax_choice;
        d["expected_choice"] = plan.expected_choice;
        d["minimax_runner_up"] = comparison(plan.minimax_runner_up);
        d["expected_runner_up"] = comparison(plan.expected_runner_up);
        d["text"] = gpucap::format_robust_plan(plan);
        return d;
      },
      py::arg("results"), py::arg("objective"), py::arg("variant_parameter") = "variant",
      py::arg("weights") = std::vector<std::pair<std::string, double>>{},
      "The regret table of results (see gpucap/robust_plan.hpp) as a dict of lists over "
      "[d * V + v] or [d], with its text; ValueError when the results are not a complete "
      "decisions x variants grid");
}
