// gpucap: the events one replication of a scenario is expected to process (event_estimate.hpp).
#include "gpucap/event_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpucap {

namespace {

/// How many times something recurs over `horizon` at a mean gap of `mean_gap_s` (infinite at 0).
double per(double horizon, double mean_gap_s) {
  return mean_gap_s > 0 ? horizon / mean_gap_s : std::numeric_limits<double>::infinity();
}

EventSource source(EventSource::Kind kind, double events, std::vector<std::string> keys,
                   std::string how, std::string or_last_key = "") {
  EventSource s;
  s.kind = kind;
  s.events = events;
  for (std::size_t i = 0; i < keys.size(); ++i)  // workloads is the one sequence
    s.path += i > 0 && keys[i - 1] == "workloads" ? "[" + keys[i] + "]"
                                                   : (i > 0 ? "." : "") + keys[i];
  s.keys = std::move(keys);
  s.or_last_key = std::move(or_last_key);
  s.how = std::move(how);
  return s;
}

/// The events of each pool: price and trace steps, zone-wide events, preemptions, maximum run
/// times and stockout retries.
void add_pool_sources(const Scenario& s, std::vector<EventSource>& sources) {
  const double horizon = s.horizon_s;
  constexpr EventSource::Kind recurring = EventSource::Kind::recurring;
  for (const PoolSpec& p : s.pools) {
    const double quota = std::max<double>(p.quota_gpus, 1);
    // Price steps are not events, but a trace or log-price steps every `step` (an
    // ornstein_uhlenbeck price has no steps: it is drawn when a run starts or ends).
    if (p.price_model == CompiledPool::kTracePrice ||
        p.price_model == CompiledPool::kMeanRevertingPrice)
      sources.push_back(source(recurring, per(horizon, p.price_step_s),
                               {"pools", p.name, "price_process", "step"},
                               "one price step per step over the horizon"));
    if (!p.availability.empty()) {
      sources.push_back(source(recurring, per(horizon, p.availability_step_s),
                               {"pools", p.name, "availability"},
                               "up to one change per trace step"));
      sources.back().pool = p.name;
    }
    if (p.has_zone_events)
      sources.push_back(source(recurring, per(horizon, p.zone_event_gap_s.mean()),
                               {"pools", p.name, "preemption", "zone_events"},
                               "horizon / mean time between events"));
    if (p.has_time_to_preemption) {
      sources.push_back(source(EventSource::Kind::run_clock,
                               quota * per(horizon, p.time_to_preemption_s.mean()),
                               {"pools", p.name, "preemption", "time_to_preemption"},
                               "GPUs of quota x horizon / mean time to preemption"));
      sources.back().gap_s = p.time_to_preemption_s.mean();
      sources.back().pool = p.name;
    }
    if (p.max_runtime_s > 0) {
      sources.push_back(source(EventSource::Kind::run_clock, quota * per(horizon, p.max_runtime_s),
                               {"pools", p.name, "preemption", "max_runtime"},
                               "GPUs of quota x horizon / max_runtime"));
      sources.back().gap_s = p.max_runtime_s;
      sources.back().pool = p.name;
    }
    if (p.stockout_probability > 0)
      sources.push_back(source(EventSource::Kind::retry, per(horizon, p.stockout_retry_s),
                               {"pools", p.name, "stockout"},
                               "one retry per retry_after over the horizon"));
  }
}

/// The events of each workload: arrivals (and a resampled trace's blocks) and autoscaler ticks.
void add_workload_sources(const Scenario& s, std::vector<EventSource>& sources) {
  const double horizon = s.horizon_s;
  for (std::size_t i = 0; i < s.workloads.size(); ++i) {
    const JobClassSpec& w = s.workloads[i];
    const std::string index = std::to_string(i);
    const ArrivalSpec& a = w.arrivals;
    double expected = static_cast<double>(a.trace.size());
    if (a.kind != ArrivalKind::trace) {
      double multiplier = 1;
      if (!a.profile.empty()) {
        multiplier = 0;
        for (double m : a.profile) multiplier += m / static_cast<double>(a.profile.size());
      }
      expected = a.rate_per_s * multiplier * horizon;
      // As compile keeps them: a cv or a step of 0 draws nothing.
      if (a.burst_interval_s > 0 && a.burst_cv > 0)
        sources.push_back(source(EventSource::Kind::recurring, per(horizon, a.burst_interval_s),
                                 {"workloads", index, "arrivals", "burst", "interval"},
                                 "one rate multiplier per burst interval over the horizon"));
      if (a.drift_interval_s > 0 && a.drift_sd_log > 0)
        sources.push_back(source(EventSource::Kind::recurring, per(horizon, a.drift_interval_s),
                                 {"workloads", index, "arrivals", "drift", "interval"},
                                 "one step of the rate's level per drift interval over the horizon"));
    } else if (a.resample != TraceResample::none) {
      // The trace's rows per period, over the horizon, in ceil(scale_rate) layers, and a block
      // drawn per block length (not events, but work of the same kind).
      const double layers = std::ceil(a.scale_rate);
      expected = layers * static_cast<double>(a.trace.size()) * (horizon / a.resample_period_s + 1);
      sources.push_back(source(EventSource::Kind::recurring,
                               layers * per(horizon, a.resample_block_s),
                               {"workloads", index, "arrivals", "resample", "block"},
                               "one block per block length over the horizon, per layer"));
    }
    const EventSource::Kind kind = w.kind == WorkloadKind::inference ? EventSource::Kind::request_arrivals
                                   : w.kind == WorkloadKind::deployment
                                       ? EventSource::Kind::instance_arrivals
                                       : EventSource::Kind::job_arrivals;
    sources.push_back(source(kind, expected, {"workloads", index, "arrivals"}, "rate x horizon"));
    // An LLM service's replica ends an iteration per output token of its batch: at most one
    // per decode step of each request (fewer when requests share iterations), and at most one
    // per shortest iteration (the weights read once, and the fixed time) of each replica.
    if (w.kind == WorkloadKind::inference && w.service.llm.enabled) {
      const LlmServiceSpec& llm = w.service.llm;
      const std::vector<uint32_t>& t = llm.tokens;
      double decodes = 0;
      for (std::size_t k = 1; k < t.size(); k += 2) decodes += t[k] - 1.0;
      if (t.size() >= 2) decodes /= static_cast<double>(t.size() / 2);
      const double bandwidth = llm.gpu.memory_bytes_per_s * llm.efficiency.bandwidth * w.gpus;
      const double shortest_s =
          llm.efficiency.overhead_s + (bandwidth > 0 ? llm.model.weight_bytes() / bandwidth : 0.0);
      const double most = shortest_s > 0 ? w.service.max_replicas * horizon / shortest_s : HUGE_VAL;
      sources.push_back(source(EventSource::Kind::recurring, std::min(expected * decodes, most),
                               {"workloads", index, "llm", "tokens"},
                               "a replica iteration per decode step of each request, at most one "
                               "per shortest iteration of each replica"));
    }
    if (w.kind == WorkloadKind::inference && w.service.windowed)
      sources.push_back(source(EventSource::Kind::recurring, per(horizon, w.service.tick_s),
                               {"workloads", index, "autoscaling", "tick"},
                               "one autoscaler tick per tick over the horizon", "stable_window"));
  }
}

}  // namespace

std::vector<EventSource> event_sources(const Scenario& s) {
  std::vector<EventSource> sources;
  add_pool_sources(s, sources);
  add_workload_sources(s, sources);
  return sources;
}

namespace {

/// Seconds of jobs and instances expected to run in `pool` over a replication: those that
/// may be placed there (arrivals and state at t = 0, times the mean work or lifetime), no more
/// than the pool's quota over the horizon.
double running_seconds_in(const Scenario& s, const std::vector<EventSource>& sources,
                          const std::string& pool) {
  double seconds = 0;
  double quota = 1;
  for (const PoolSpec& p : s.pools)
    if (p.name == pool) quota = std::max<double>(p.quota_gpus, 1);
  const double horizon = s.horizon_s;
  for (std::size_t i = 0; i < s.workloads.size(); ++i) {
    const JobClassSpec& w = s.workloads[i];
    if (w.kind == WorkloadKind::inference ||
        std::find(w.placement.begin(), w.placement.end(), pool) == w.placement.end())
      continue;
    double arrivals = 0;
    for (const EventSource& a : sources)
      if ((a.kind == EventSource::Kind::job_arrivals ||
           a.kind == EventSource::Kind::instance_arrivals) &&
          a.keys.size() > 1 && a.keys[1] == std::to_string(i))
        arrivals += a.events;
    // A trace's rows carry their own work or lifetime (infinite: still running).
    double mean_work = std::min(w.work_s.mean(), horizon);
    if (w.arrivals.kind == ArrivalKind::trace && !w.arrivals.trace.empty()) {
      mean_work = 0;
      for (const TraceRow& row : w.arrivals.trace) mean_work += std::min(row.work_s, horizon);
      mean_work /= static_cast<double>(w.arrivals.trace.size());
    }
    seconds += arrivals * mean_work;
    for (const auto* state : {&w.initial_state, &w.arrivals.alive_at_start})
      for (const AliveAtStart& a : *state) seconds += a.residual ? horizon : std::min(a.end_s, horizon);
  }
  return std::min(seconds, quota * s.horizon_s);
}

/// The share of a source's steps that are events: of an availability trace, the steps whose
/// value differs from the one before (a step with no change is no event); 1 for the rest.
double changing_share(const Scenario& s, const EventSource& source) {
  if (source.keys.size() != 3 || source.keys[2] != "availability") return 1;
  for (const PoolSpec& p : s.pools) {
    if (p.name != source.pool || p.availability.size() < 2) continue;
    std::size_t changes = 0;
    for (std::size_t i = 1; i < p.availability.size(); ++i)
      changes += p.availability[i] != p.availability[i - 1];
    return static_cast<double>(changes) / static_cast<double>(p.availability.size());
  }
  return 1;
}

}  // namespace

double expected_events_per_replication(const Scenario& s) {
  // Events each occurrence causes, fitted to the `events` metric of the shipped scenarios: a
  // job arrives and ends, and waits or checkpoints at times (2.5); a request arrives and
  // completes (2); an instance arrives and ends (2); a preemption or a run-time limit stops a
  // run, which restarts (2). Initial state rows start and end. Stockout retries ride on
  // arrivals.
  const std::vector<EventSource> sources = event_sources(s);
  double events = 2;  // the run's start and end
  for (const EventSource& source : sources) {
    switch (source.kind) {
      case EventSource::Kind::job_arrivals: events += 2.5 * source.events; break;
      case EventSource::Kind::instance_arrivals: events += 2 * source.events; break;
      case EventSource::Kind::request_arrivals: events += 2 * source.events; break;
      case EventSource::Kind::run_clock:
        events += std::min(source.events,
                           2 * running_seconds_in(s, sources, source.pool) / source.gap_s);
        break;
      case EventSource::Kind::retry: break;
      case EventSource::Kind::recurring: events += source.events * changing_share(s, source); break;
    }
  }
  for (const JobClassSpec& w : s.workloads)
    events += 2 * static_cast<double>(w.initial_state.size() + w.arrivals.alive_at_start.size());
  return events;
}

}  // namespace gpucap
