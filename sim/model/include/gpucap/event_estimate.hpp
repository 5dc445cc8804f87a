// gpucap: how many events one replication of a scenario is expected to process, estimated from
// the keys that set how often something recurs, before anything runs.
//
// Two readers: the loader refuses a scenario whose estimate is far beyond what a run can do
// (check_event_budget, loader/event_budget.cpp: names the largest source's key), and `--backend
// auto` weighs a run's work against a device's start-up (backend_choice.hpp).
//
//   for (const gpucap::EventSource& s : gpucap::event_sources(scenario)) ...  // per key
//   double events = gpucap::expected_events_per_replication(scenario);        // a run's work
#pragma once
#include <string>
#include <vector>

#include "gpucap/scenario.hpp"

namespace gpucap {

/// One key's share of the events of a replication.
struct EventSource {
  /// What recurs: arrivals (a job's or instance's, or a request); a clock that runs per GPU of
  /// quota here and only while a job runs in the pool (preemptions, run-time limits); stockout
  /// retries; and the rest (price and trace steps, zone-wide events, autoscaler ticks,
  /// bootstrap blocks). expected_events_per_replication weighs them by the events each brings.
  enum class Kind { job_arrivals, request_arrivals, instance_arrivals, run_clock, retry, recurring };
  Kind kind = Kind::recurring;
  double events = 0;  ///< expected per replication; +inf for a zero gap
  double gap_s = 0;   ///< run_clock: the mean time between two of its events, s
  std::string pool;   ///< run_clock: its pool
  /// Where in the scenario file, key by key from the root (a sequence index as digits);
  /// `or_last_key` replaces the last key when the file lacks it (a default's neighbour).
  std::vector<std::string> keys;
  std::string or_last_key;
  std::string path;  ///< the same as a key path: "pools.spot.preemption.zone_events"
  std::string how;   ///< how it is estimated, e.g. "rate x horizon"
};

/// Every source of events of `s` (a loaded scenario), pools first, then workloads in order.
/// The counts are the budget's: upper-end estimates (a preemption clock per GPU of quota),
/// not the events those occurrences cause.
std::vector<EventSource> event_sources(const Scenario& s);

/// Calendar events one replication of `s` is expected to process (what the `events` metric
/// counts), within a factor of about 2 on the shipped scenarios (docs/backends.md): the sources
/// weighed by the events each occurrence causes (a job's arrival, start and end; a request's
/// arrival and completion), the rest counted once, and a floor for the run's own start and end.
/// A zero gap gives +inf.
double expected_events_per_replication(const Scenario& s);

}  // namespace gpucap
