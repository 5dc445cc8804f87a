// gpucap benchmark: paired measurement against the reference loop (see paired_measurement.hpp).
#include "paired_measurement.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <utility>

namespace gpucap::bench {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double quantile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  const double at = p * static_cast<double>(values.size() - 1);
  const std::size_t below = static_cast<std::size_t>(std::floor(at));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  return values[below] + (at - static_cast<double>(below)) * (values[above] - values[below]);
}

PairedMeasurement::PairedMeasurement(BatchRunner reference, double slice_s)
    : reference_(std::move(reference)), slice_(slice_s) {
  double cpu_s = 0;
  const uint64_t count = calibrate(reference_, reference_next_, cpu_s);
  reference_cpu_per_replication_ = cpu_s / static_cast<double>(count);
}

uint64_t PairedMeasurement::calibrate(const BatchRunner& runner, uint64_t& next_first,
                                      double& cpu_s) const {
  uint64_t count = 1;
  for (;;) {
    const Batch b = runner(next_first, count);
    next_first += count;
    cpu_s = b.cpu_s;
    if (b.cpu_s >= 0.5 * slice_) return count;
    // Grow towards slice_ (at most 32x a step: the first, cold batch may mislead).
    const double grow = b.cpu_s > 0 ? std::min(32.0, slice_ / b.cpu_s) : 32.0;
    count = std::max<uint64_t>(count + 1, static_cast<uint64_t>(std::ceil(count * grow)));
  }
}

Batch PairedMeasurement::run_reference(uint64_t count) {
  const Batch b = reference_(reference_next_, count);
  reference_next_ += count;
  reference_eps_.push_back(b.events_per_s());
  reference_events_ += b.events;
  reference_replications_ += static_cast<double>(b.replications);
  return b;
}

double PairedMeasurement::reference_events_per_replication() const {
  return reference_replications_ > 0 ? reference_events_ / reference_replications_ : 0;
}

PairedFigures PairedMeasurement::measure(const BatchRunner& scenario, double min_seconds,
                                         uint64_t min_pairs) {
  uint64_t next_first = 0;
  double batch_cpu_s = 0;
  const uint64_t count = calibrate(scenario, next_first, batch_cpu_s);
  // Reference batches as long as the scenario's (one replication of a scenario may run longer
  // than a slice), so that both sides of a pair see the same stretch of the machine's load.
  const uint64_t reference_count = std::max<uint64_t>(
      1, static_cast<uint64_t>(std::llround(batch_cpu_s / reference_cpu_per_replication_)));
  std::vector<double> ratios, eps, ns_per_event, ns_per_replication;
  double spent = 0, events = 0, replications = 0;
  double before = run_reference(reference_count).events_per_s();
  while (spent < min_seconds || ratios.size() < min_pairs) {
    const Batch s = scenario(next_first, count);
    next_first += count;
    const double after = run_reference(reference_count).events_per_s();
    ratios.push_back(s.events_per_s() / std::sqrt(before * after));
    before = after;
    eps.push_back(s.events_per_s());
    ns_per_event.push_back(s.events > 0 ? 1e9 * s.cpu_s / s.events
                                        : std::numeric_limits<double>::infinity());
    ns_per_replication.push_back(1e9 * s.cpu_s / static_cast<double>(s.replications));
    spent += s.cpu_s;
    events += s.events;
    replications += static_cast<double>(s.replications);
  }
  PairedFigures f;
  f.ratio = quantile(ratios, 0.5);
  f.ratio_p25 = quantile(ratios, 0.25);
  f.ratio_p75 = quantile(ratios, 0.75);
  f.measured_events_per_s = quantile(eps, 0.5);
  f.cpu_ns_per_event = quantile(ns_per_event, 0.5);
  f.cpu_ns_per_replication = quantile(ns_per_replication, 0.5);
  f.events_per_replication = events / replications;
  f.pairs = ratios.size();
  f.replications_per_batch = count;
  return f;
}

}  // namespace gpucap::bench
