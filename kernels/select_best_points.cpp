// gpucap: procedure KN over sweep points simulated by the engine (select_best.hpp).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/run.hpp"
#include "gpucap/select_best.hpp"

namespace gpucap {

SelectionResult select_best_points(const std::vector<Scenario>& points, const Scenario& base,
                                   ScalarMetric objective, const SelectionOptions& options,
                                   const RunOptions& run) {
  check_selection_options(points.size(), options);
  std::vector<std::string> backends;  // each batch's, as `auto` chose for its size
  const SelectionSampler sample = [&](const std::vector<std::size_t>& which, uint64_t first,
                                      uint64_t count) {
    std::vector<Scenario> subset;
    subset.reserve(which.size());
    for (std::size_t p : which) subset.push_back(points[p]);
    RunOptions o = run;
    o.first_replication = first;
    o.replications = count;
    o.progress = false;
    o.writes_file = false;
    o.settling_probe = false;
    const RunResults results = run_points(subset, {}, base, o);
    if (std::find(backends.begin(), backends.end(), results.backend) == backends.end())
      backends.push_back(results.backend);
    std::vector<double> values(which.size() * count);
    for (std::size_t j = 0; j < which.size(); ++j)
      for (uint64_t t = 0; t < count; ++t) {
        const double v = results.scalar(j, t, objective);
        if (!std::isfinite(v))
          throw std::invalid_argument(
              std::string("the objective ") + kScalarMetricInfo[objective].name +
              " is not defined in replication " + std::to_string(first + t) + " of point " +
              std::to_string(which[j]) +
              " (e.g. a wait where no job started); selecting the best needs an objective "
              "defined in every replication");
        values[j * count + t] = v;
      }
    return values;
  };
  SelectionResult result = select_best(points.size(), sample, options);
  for (const std::string& b : backends) result.backend += (result.backend.empty() ? "" : " + ") + b;
  return result;
}

}  // namespace gpucap
