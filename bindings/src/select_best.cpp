// gpucap._core.select_best: procedure KN over sweep points (kernels/include/gpucap/select_best.hpp)
// for gpucap.select_best. The selection runs on a worker thread with the GIL released; the
// calling thread checks for signals every 50 ms, and Ctrl-C cancels the run in progress
// (KeyboardInterrupt once it has stopped), as does a CancelToken (gpucap.RunCancelled).
#include "gpucap/select_best.hpp"

#include <memory>
#include <optional>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/backend.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/run.hpp"

#include "cancellable_call.hpp"
#include "text_caster.hpp"

namespace py = pybind11;

namespace {

gpucap::ScalarMetric objective_named(const std::string& name) {
  std::string valid;
  for (uint32_t m = 0; m < gpucap::kScalarMetricCount; ++m) {
    if (name == gpucap::kScalarMetricInfo[m].name) return static_cast<gpucap::ScalarMetric>(m);
    valid += std::string(m ? ", " : "") + gpucap::kScalarMetricInfo[m].name;
  }
  throw std::invalid_argument("select_best: unknown objective '" + name + "'; valid: " + valid);
}

py::dict selection_dict(const gpucap::SelectionResult& s) {
  py::dict out;
  out["best"] = s.best;
  out["guaranteed"] = s.guaranteed;
  out["replications"] = s.replications;
  out["used"] = s.used;
  out["simulated"] = s.simulated;
  out["eta"] = s.eta;
  out["h2"] = s.h2;
  out["bound"] = s.bound;
  py::list points;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const gpucap::SelectionPoint& p = s.points[i];
    py::dict d;
    d["status"] = gpucap::selection_status_name(p.status);
    d["detail"] = gpucap::selection_status_text(s, i);
    d["replications"] = p.replications;
    d["simulated"] = p.simulated;
    const bool by = p.status == gpucap::SelectionStatus::eliminated ||
                    p.status == gpucap::SelectionStatus::tied;
    d["eliminated_by"] = by ? py::object(py::int_(p.eliminated_by)) : py::object(py::none());
    d["mean"] = p.mean;
    d["std"] = p.std;
    d["ci95_low"] = p.ci95_low;
    d["ci95_high"] = p.ci95_high;
    points.append(d);
  }
  out["points"] = points;
  return out;
}

py::dict select_best(const std::vector<gpucap::Scenario>& points, const gpucap::Scenario& base,
                     const std::string& objective, double delta, double alpha, uint64_t initial,
                     std::optional<uint64_t> max_replications, bool maximize,
                     std::optional<uint64_t> seed, const std::string& backend, int threads,
                     const gpucap::bindings::CancelToken* token) {
  const gpucap::ScalarMetric metric = objective_named(objective);
  gpucap::SelectionOptions o;
  o.delta = delta;
  o.alpha = alpha;
  o.initial = initial;
  o.max_replications =
      max_replications ? *max_replications : std::max(gpucap::kDefaultSelectionCap, initial);
  o.maximize = maximize;
  try {
    gpucap::check_selection_options(points.size(), o);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("select_best: ") + e.what());
  }
  gpucap::RunOptions run;
  if (seed) {
    run.seed = *seed;
    run.has_seed = true;
  }
  run.backend = gpucap::parse_backend(backend);
  run.threads = threads;
  gpucap::RunMonitor monitor;
  run.monitor = &monitor;

  gpucap::SelectionResult result;
  gpucap::bindings::call_cancellable(
      monitor, [&] { result = gpucap::select_best_points(points, base, metric, o, run); }, nullptr,
      token);
  py::dict out = selection_dict(result);
  out["backend"] = result.backend;
  out["seed"] = seed ? *seed : points.front().seed;
  out["unit"] = gpucap::kScalarMetricInfo[metric].unit;
  return out;
}

}  // namespace

void bind_select_best(py::module_& m) {
  m.attr("DEFAULT_SELECTION_CAP") = gpucap::kDefaultSelectionCap;
  m.attr("MAX_SELECTION_POINTS") = gpucap::kMaxSelectionPoints;
  m.def("select_best", &select_best, py::arg("points"), py::arg("base"), py::arg("objective"),
        py::arg("delta"), py::arg("alpha"), py::arg("initial"), py::arg("max_replications"),
        py::arg("maximize"), py::arg("seed"), py::arg("backend"), py::arg("threads"),
        py::arg("cancel") = nullptr,
        "Selects the best point with procedure KN (Kim & Nelson 2001): a dict with best, "
        "guaranteed, replications, used, simulated, eta, h2, bound and one dict per point; GIL "
        "released, Ctrl-C or the CancelToken cancel= cancels");
}
