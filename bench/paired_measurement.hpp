// gpucap benchmark: a scenario measured in turns with the reference loop, as ratios.
//
//   PairedMeasurement paired(run_reference_batch, slice_s);
//   PairedFigures f = paired.measure(run_scenario_batch, min_seconds);
//   f.ratio   // median over pairs of (scenario events/s) / (reference events/s beside it)
//
// Batches alternate R0 S0 R1 S1 R2 ... Sk-1 Rk: each scenario batch S_i is compared with the
// geometric mean of the reference batches just before and just after it. A machine shared with
// other work slows both sides of a pair alike, so the median of the pairs' ratios holds still
// where events/s do not. Time is the CPU time of the measuring thread (CLOCK_THREAD_CPUTIME_ID),
// not wall time: waiting for a core does not count. A scenario's batches run about `slice_s` CPU
// seconds (at least one replication), and the reference's beside them as long as they do.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

namespace gpucap::bench {

/// One batch: replications [first, first + replications) of a scenario or of the reference.
struct Batch {
  double cpu_s = 0;   ///< CPU time of the measuring thread, s
  double events = 0;  ///< calendar events of all its replications
  uint64_t replications = 0;

  double events_per_s() const { return cpu_s > 0 ? events / cpu_s : 0; }
};

/// Runs `count` replications from `first` and returns what it measured (the runner times itself
/// with thread_cpu_seconds(), so that what it prepares or frees outside the run is left out).
using BatchRunner = std::function<Batch(uint64_t first, uint64_t count)>;

/// CPU time consumed by the calling thread, s.
double thread_cpu_seconds();

/// The p-quantile (0 <= p <= 1, linear between order statistics) of `values` (not empty).
double quantile(std::vector<double> values, double p);

struct PairedFigures {
  double ratio = 0;                     ///< median of the pairs' ratios
  double ratio_p25 = 0, ratio_p75 = 0;  ///< their quartiles (the spread)
  double measured_events_per_s = 0;     ///< median over the scenario's batches, per CPU s
  double cpu_ns_per_event = 0;          ///< median over batches; +inf for batches without events
  double cpu_ns_per_replication = 0;    ///< median over batches
  double events_per_replication = 0;    ///< over all its batches
  uint64_t pairs = 0;
  uint64_t replications_per_batch = 0;
};

class PairedMeasurement {
 public:
  /// Calibrates the reference's batch to about slice_s CPU seconds.
  PairedMeasurement(BatchRunner reference, double slice_s);

  /// Measures `scenario` until its batches have run min_seconds of CPU time and at least
  /// min_pairs pairs are done.
  PairedFigures measure(const BatchRunner& scenario, double min_seconds, uint64_t min_pairs = 5);

  /// Every reference batch so far (events/s of CPU time).
  const std::vector<double>& reference_events_per_s() const { return reference_eps_; }
  /// Events per replication of the reference, over all its batches.
  double reference_events_per_replication() const;

 private:
  Batch run_reference(uint64_t count);
  /// A count whose batch runs about slice_ CPU seconds (the runs made to find it warm up);
  /// `cpu_s` receives the last batch's CPU time.
  uint64_t calibrate(const BatchRunner& runner, uint64_t& next_first, double& cpu_s) const;

  BatchRunner reference_;
  double slice_;
  double reference_cpu_per_replication_ = 0;  ///< s, from the calibration
  uint64_t reference_next_ = 0;               ///< the reference's next replication index
  std::vector<double> reference_eps_;
  double reference_events_ = 0, reference_replications_ = 0;
};

}  // namespace gpucap::bench
