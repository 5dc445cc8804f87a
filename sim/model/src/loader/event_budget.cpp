// gpucap: scenario loader, the event budget: the events one replication may be expected to process, estimated from the
// keys that set how often something recurs.
#include "loader.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpucap::loader {

/// The most events one replication may be expected to process. At 10 to 20 M events/s per core
/// that is a minute or more per replication; a scenario above it is almost always a unit
/// mistake (a step of 1us meant as 1h, a rate per second meant per day), and one far above it
/// would run for years. Every key that sets how often something recurs (arrivals, price steps,
/// trace steps, zone-wide events, preemptions, maximum run times, stockout retries) is checked
/// against it, so that every loop of a run is finite in practice, not only in principle.
constexpr double kMaxEventsPerReplication = 1e9;

namespace {

/// One key's share of the events of a replication: where it is, and how it is estimated.
struct Source {
  double events;
  YAML::Node node;
  std::string path, how;
};

/// How many times something recurs over `horizon` at a mean gap of `mean_gap_s` (infinite at 0).
double per(double horizon, double mean_gap_s) {
  return mean_gap_s > 0 ? horizon / mean_gap_s : std::numeric_limits<double>::infinity();
}

/// The events of each pool: price and trace steps, zone-wide events, preemptions, maximum run
/// times and stockout retries.
void add_pool_sources(const YAML::Node& root, const Scenario& s, std::vector<Source>& sources) {
  const double horizon = s.horizon_s;
  const YAML::Node pools = root["pools"];
  for (const PoolSpec& p : s.pools) {
    const YAML::Node node = pools[p.name];
    const std::string path = "pools." + p.name;
    const double quota = std::max<double>(p.quota_gpus, 1);
    // Price steps are not events, but a trace or log-price steps every `step` (an
    // ornstein_uhlenbeck price has no steps: it is drawn when a run starts or ends).
    if (p.price_model == CompiledPool::kTracePrice ||
        p.price_model == CompiledPool::kMeanRevertingPrice)
      sources.push_back({per(horizon, p.price_step_s), node["price_process"]["step"],
                         path + ".price_process.step", "one price step per step over the horizon"});
    if (!p.availability.empty())
      sources.push_back({per(horizon, p.availability_step_s), node["availability"],
                         path + ".availability", "up to one change per trace step"});
    const YAML::Node preemption = node["preemption"];
    if (p.has_zone_events)
      sources.push_back({per(horizon, p.zone_event_gap_s.mean()), preemption["zone_events"],
                         path + ".preemption.zone_events", "horizon / mean time between events"});
    if (p.has_time_to_preemption)
      sources.push_back({quota * per(horizon, p.time_to_preemption_s.mean()),
                         preemption["time_to_preemption"], path + ".preemption.time_to_preemption",
                         "GPUs of quota x horizon / mean time to preemption"});
    if (p.max_runtime_s > 0)
      sources.push_back({quota * per(horizon, p.max_runtime_s), preemption["max_runtime"],
                         path + ".preemption.max_runtime",
                         "GPUs of quota x horizon / max_runtime"});
    if (p.stockout_probability > 0)
      sources.push_back({per(horizon, p.stockout_retry_s), node["stockout"], path + ".stockout",
                         "one retry per retry_after over the horizon"});
  }
}

/// The events of each workload: arrivals (and a resampled trace's blocks) and autoscaler ticks.
void add_workload_sources(const YAML::Node& root, const Scenario& s,
                          std::vector<Source>& sources) {
  const double horizon = s.horizon_s;
  const YAML::Node workloads = root["workloads"];
  for (std::size_t i = 0; i < s.workloads.size(); ++i) {
    const ArrivalSpec& a = s.workloads[i].arrivals;
    double expected = static_cast<double>(a.trace.size());
    if (a.kind != ArrivalKind::trace) {
      double multiplier = 1;
      if (!a.profile.empty()) {
        multiplier = 0;
        for (double m : a.profile) multiplier += m / static_cast<double>(a.profile.size());
      }
      expected = a.rate_per_s * multiplier * horizon;
    } else if (a.resample != TraceResample::none) {
      // The trace's rows per period, over the horizon, in ceil(scale_rate) layers, and a block
      // drawn per block length (not events, but work of the same kind).
      const double layers = std::ceil(a.scale_rate);
      expected = layers * static_cast<double>(a.trace.size()) * (horizon / a.resample_period_s + 1);
      const std::string rpath = "workloads[" + std::to_string(i) + "].arrivals.resample";
      sources.push_back({layers * per(horizon, a.resample_block_s),
                         workloads[i]["arrivals"]["resample"]["block"], rpath + ".block",
                         "one block per block length over the horizon, per layer"});
    }
    sources.push_back({expected, workloads[i]["arrivals"],
                       "workloads[" + std::to_string(i) + "].arrivals", "rate x horizon"});
    const ServiceSpec& svc = s.workloads[i].service;
    if (s.workloads[i].kind == WorkloadKind::inference && svc.windowed) {
      const YAML::Node as = workloads[i]["autoscaling"];
      sources.push_back({per(horizon, svc.tick_s), as["tick"] ? as["tick"] : as["stable_window"],
                         "workloads[" + std::to_string(i) + "].autoscaling.tick",
                         "one autoscaler tick per tick over the horizon"});
    }
  }
}

}  // namespace

void check_event_budget(const Context& ctx, const YAML::Node& root, const Scenario& s) {
  std::vector<Source> sources;
  const double horizon = s.horizon_s;
  add_pool_sources(root, s, sources);
  add_workload_sources(root, s, sources);
  double total = 0;
  const Source* largest = nullptr;
  for (const Source& source : sources) {
    total += source.events;
    if (largest == nullptr || source.events > largest->events) largest = &source;
  }
  if (!(total > kMaxEventsPerReplication) || largest == nullptr) return;
  ctx.fail(largest->node, largest->path,
           "makes one replication process about " + text::format_number(largest->events) +
               " events (" + largest->how + ", horizon " + text::format_duration(horizon) +
               "); with the rest of the scenario about " + text::format_number(total) +
               " in all, where at most " + text::format_number(kMaxEventsPerReplication) +
               " are accepted (at 10-20 M events/s, a minute or more per replication); check "
               "the unit or shorten the horizon");
}

}  // namespace gpucap::loader
