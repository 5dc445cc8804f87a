// Fuzzing: one case is a scenario text, loaded (with data files resolved in the shipped
// scenarios' folder), compiled and, when it is small enough to finish in well under a second,
// run for one replication. Shared by the libFuzzer target (clang) and the deterministic mutation
// driver (any compiler).
//
// What counts as a finding (the function returns a description, "" otherwise):
//   - any exception but ScenarioError (InputFileError included) from loading or compiling;
//   - an engine status other than kReplicationOk;
//   - a metric that is +-inf, or NaN;
// and, caught by the sanitizers or the driver's watchdog rather than here, a crash or a hang.
#pragma once
#include <cmath>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "gpucap/compile.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/replication.hpp"
#include "gpucap/scenario_loader.hpp"

namespace gpucap::fuzz {

/// Events after which a case's replication is stopped: a valid scenario may take far longer
/// (a preemption every millisecond is valid), and such a run is not a finding; a loop that never
/// returns to the calendar is, and the driver's watchdog catches it.
inline constexpr uint64_t kMaxRunEvents = 2000000;

/// Steps a replication takes outside the calendar (price and availability steps, whole):
/// cases with more are not run.
inline double stepped_work(const Scenario& s) {
  double steps = 0;
  for (const PoolSpec& p : s.pools) {
    if (p.price_step_s > 0) steps += s.horizon_s / p.price_step_s;
    if (p.availability_step_s > 0) steps += s.horizon_s / p.availability_step_s;
  }
  return steps;
}

/// Runs one case; returns "" when gpucap behaved (refused the text with a ScenarioError, or ran
/// it to finite metrics), else what went wrong.
inline std::string run_case(const std::string& text, const std::string& data_dir) {
  InputLimits limits;
  limits.scenario_bytes = 1 << 20;
  limits.data_bytes = 64 << 20;
  Scenario s;
  try {
    s = parse_scenario(text, "fuzz.yaml", data_dir, {}, limits);
  } catch (const ScenarioError&) {
    return "";
  } catch (const std::exception& e) {
    return std::string("loading threw a non-scenario error: ") + e.what();
  }
  if (!(stepped_work(s) <= 1e6)) return "";
  try {
    const ModelStorage storage = compile(s);
    const CompiledModel& model = storage.model();
    const std::size_t arena_bytes = replication_arena_bytes(model);
    if (arena_bytes > (std::size_t{256} << 20)) return "";  // valid, but too big to run here
    std::vector<uint64_t> arena((arena_bytes + 7) / 8);
    std::vector<double> scalars(kScalarMetricCount);
    std::vector<double> pools(static_cast<std::size_t>(model.pool_count) * kPoolMetricCount);
    std::vector<double> series(static_cast<std::size_t>(model.pool_count) * model.timeseries_bins);
    const int status =
        run_replication_limited(model, 7, 0, arena.data(), scalars.data(), pools.data(),
                                series.empty() ? nullptr : series.data(), kMaxRunEvents);
    if (status == kReplicationEventLimit) return "";  // long, not wrong
    if (status != kReplicationOk) return "the engine returned status " + std::to_string(status);
    for (uint32_t m = 0; m < kScalarMetricCount; ++m)
      // NaN only where the metric may be undefined (no observation); never infinite.
      if (!std::isfinite(scalars[m]) &&
          !(std::isnan(scalars[m]) && kScalarMetricInfo[m].defined_when != nullptr))
        return std::string("metric ") + kScalarMetricInfo[m].name + " is " +
               std::to_string(scalars[m]);
    for (std::size_t i = 0; i < pools.size(); ++i)
      if (!std::isfinite(pools[i]))
        return std::string("pool metric ") + kPoolMetricInfo[i % kPoolMetricCount].name + " is " +
               std::to_string(pools[i]);
  } catch (const std::exception& e) {
    return std::string("compiling or running threw: ") + e.what();
  }
  return "";
}

}  // namespace gpucap::fuzz
