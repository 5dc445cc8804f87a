// gpucap._core: goals, their intervals and the chance-constrained choice on Results
// (gpucap/goal_summary.hpp, gpucap/cheapest.hpp). Added to the Results class that core.cpp
// defines, so that the Python package reads the C++ answer instead of repeating it.
#include <memory>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <string>
#include <vector>

#include "gpucap/binomial_interval.hpp"
#include "gpucap/cheapest.hpp"
#include "gpucap/results.hpp"

#include "text_caster.hpp"

namespace py = pybind11;

namespace {

py::dict interval_dict(const gpucap::BinomialInterval& i) {
  py::dict d;
  d["low"] = i.low;
  d["high"] = i.high;
  return d;
}

const char* verdict_name(gpucap::ChanceVerdict v) { return gpucap::chance_verdict_name(v); }

}  // namespace

void bind_decisions(py::module_& m) {
  using Results = gpucap::RunResults;
  auto cls =
      py::reinterpret_borrow<py::class_<Results, std::shared_ptr<Results>>>(m.attr("Results"));
  cls.def_readonly("stopping_rule", &Results::stopping_rule,
                   "how the replication count was chosen ('' for a fixed count)")
      .def_property_readonly(
          "goals",
          [](const Results& r) {
            py::list out;
            for (const gpucap::GoalSpec& g : r.goals) {
              py::dict d;
              d["name"] = g.name;
              d["definition"] = g.definition();
              d["description"] = g.description;
              d["target"] =
                  g.target > 0 ? py::object(py::float_(g.target)) : py::object(py::none());
              py::list conditions;
              for (const gpucap::GoalCondition& c : g.conditions) conditions.append(c.text);
              d["conditions"] = conditions;
              out.append(d);
            }
            return out;
          },
          "the scenario's goals: dicts with name, definition, conditions, description, target")
      .def_property_readonly(
          "goal_met",
          [](const Results& r) {
            py::array_t<uint8_t> a({static_cast<py::ssize_t>(r.points),
                                    static_cast<py::ssize_t>(r.rows_per_point()),
                                    static_cast<py::ssize_t>(r.goals.size())});
            std::copy(r.goal_met.begin(), r.goal_met.end(), a.mutable_data());
            return a;
          },
          "[points, replications, goals]: 1 where the replication met the goal (a copy)")
      .def_property_readonly(
          "goal_summary",
          [](const Results& r) {
            py::list out;  // one dict per (point, goal), point-major
            for (std::size_t p = 0; p < r.points; ++p)
              for (std::size_t g = 0; g < r.goals.size(); ++g) {
                const gpucap::GoalSummary& s = r.goal_summary_of(p, g);
                py::dict d;
                d["point"] = p;
                d["goal"] = r.goals[g].name;
                d["met"] = s.met;
                d["n"] = s.n;
                d["probability"] = s.probability;
                d["exact_low"] = s.exact.low;
                d["exact_high"] = s.exact.high;
                d["wilson_low"] = s.wilson.low;
                d["wilson_high"] = s.wilson.high;
                const double target = r.goals[g].target;
                d["target"] = target > 0 ? py::object(py::float_(target)) : py::object(py::none());
                d["verdict"] =
                    target > 0 ? py::object(py::str(verdict_name(gpucap::judge_chance(s, target))))
                               : py::object(py::none());
                const uint64_t need = target > 0 ? gpucap::replications_to_decide(s, target) : 0;
                d["replications_to_decide"] =
                    need == UINT64_MAX ? py::object(py::none()) : py::object(py::int_(need));
                out.append(d);
              }
            return out;
          },
          "goal summaries, one dict per (point, goal)")
      .def(
          "cheapest",
          [](const Results& r, const std::string& objective,
             const std::vector<std::string>& constraints, const std::vector<std::string>& chance,
             bool conservative, const std::vector<std::size_t>& allowed) {
            gpucap::CheapestQuery q;
            if (!allowed.empty()) {
              q.candidates.assign(r.points, false);
              for (std::size_t p : allowed) {
                if (p >= r.points)
                  throw std::invalid_argument("points: " + std::to_string(p) +
                                              " is beyond the last point, " +
                                              std::to_string(r.points - 1));
                q.candidates[p] = true;
              }
            }
            const gpucap::MeanConstraint o = gpucap::parse_mean_constraint(objective + " <= 0");
            q.objective = o.metric;
            for (const std::string& c : constraints)
              q.constraints.push_back(gpucap::parse_mean_constraint(c));
            for (const std::string& c : chance)
              q.chance.push_back(gpucap::parse_chance_constraint(c, r));
            q.conservative = conservative;
            const gpucap::CheapestAnswer a = gpucap::choose_cheapest(r, q);
            py::dict out;
            out["found"] = a.found;
            out["best"] = a.found ? py::object(py::int_(a.best)) : py::object(py::none());
            out["certain"] = a.certain;
            out["explanation"] = a.explanation;
            out["undecided_cheaper"] = a.undecided_cheaper;
            out["replications_to_decide"] = a.replications_to_decide == UINT64_MAX
                                                ? py::object(py::none())
                                                : py::object(py::int_(a.replications_to_decide));
            py::list points;
            for (const gpucap::PointStanding& s : a.points) {
              py::dict d;
              d["feasible"] = s.feasible;
              d["undecided"] = s.undecided;
              d["meets_constraint"] = s.meets_constraint;
              py::list verdicts;
              for (gpucap::ChanceVerdict v : s.chance) verdicts.append(verdict_name(v));
              d["chance"] = verdicts;
              d["meets_chance"] = s.meets_chance;
              points.append(d);
            }
            out["points"] = points;
            py::list levels;
            for (const gpucap::ChanceConstraint& c : q.chance)
              levels.append(py::make_tuple(r.goals[c.goal].name, c.level));
            out["chance_levels"] = levels;
            return out;
          },
          py::arg("objective"), py::arg("constraints"), py::arg("chance"), py::arg("conservative"),
          py::arg("points") = std::vector<std::size_t>(),
          "the cheapest point under mean constraints (METRIC OP NUMBER) and chance constraints "
          "(GOAL>=LEVEL or GOAL): a dict");
  m.def(
      "clopper_pearson_interval",
      [](uint64_t successes, uint64_t trials, double confidence) {
        return interval_dict(gpucap::clopper_pearson_interval(successes, trials, confidence));
      },
      py::arg("successes"), py::arg("trials"), py::arg("confidence") = 0.95,
      "exact (Clopper-Pearson) interval of a probability: {low, high}");
  m.def(
      "wilson_interval",
      [](uint64_t successes, uint64_t trials, double confidence) {
        return interval_dict(gpucap::wilson_interval(successes, trials, confidence));
      },
      py::arg("successes"), py::arg("trials"), py::arg("confidence") = 0.95,
      "Wilson score interval of a probability: {low, high}");
}
