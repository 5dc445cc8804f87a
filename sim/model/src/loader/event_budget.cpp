// gpucap: scenario loader, the event budget: a scenario whose recurring processes would make one
// replication process far more events than a run can is refused, at the key of the largest
// (the estimate is event_estimate.hpp's).
#include "gpucap/event_estimate.hpp"
#include "loader.hpp"

namespace gpucap::loader {

/// The most events one replication may be expected to process. At 10 to 20 M events/s per core
/// that is a minute or more per replication; a scenario above it is almost always a unit
/// mistake (a step of 1us meant as 1h, a rate per second meant per day), and one far above it
/// would run for years. Every key that sets how often something recurs (arrivals, price steps,
/// trace steps, zone-wide events, preemptions, maximum run times, stockout retries) is checked
/// against it, so that every loop of a run is finite in practice, not only in principle.
constexpr double kMaxEventsPerReplication = 1e9;

namespace {

/// The node of `source` in the scenario file (undefined when the file lacks it).
YAML::Node locate(const YAML::Node& root, const EventSource& source) {
  YAML::Node node = root;
  for (std::size_t i = 0; i < source.keys.size(); ++i) {
    const std::string& key = source.keys[i];
    // reset() rebinds; Node's operator= would write into the file's tree.
    const YAML::Node parent = node;
    node.reset(parent.IsSequence() ? parent[std::stoul(key)] : parent[key]);
    if (!node && i + 1 == source.keys.size() && !source.or_last_key.empty())
      node.reset(parent[source.or_last_key]);
    if (!node) return node;
  }
  return node;
}

}  // namespace

void check_event_budget(const Context& ctx, const YAML::Node& root, const Scenario& s) {
  const std::vector<EventSource> sources = event_sources(s);
  double total = 0;
  const EventSource* largest = nullptr;
  for (const EventSource& source : sources) {
    total += source.events;
    if (largest == nullptr || source.events > largest->events) largest = &source;
  }
  if (!(total > kMaxEventsPerReplication) || largest == nullptr) return;
  ctx.fail(locate(root, *largest), largest->path,
           "makes one replication process about " + text::format_number(largest->events) +
               " events (" + largest->how + ", horizon " + text::format_duration(s.horizon_s) +
               "); with the rest of the scenario about " + text::format_number(total) +
               " in all, where at most " + text::format_number(kMaxEventsPerReplication) +
               " are accepted (at 10-20 M events/s, a minute or more per replication); check "
               "the unit or shorten the horizon");
}

}  // namespace gpucap::loader
