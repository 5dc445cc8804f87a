// gpucap: the settling probe of a run that records no time series. The first replications of
// each point are simulated again on the host with GPUs in use recorded in kSettlingBins bins
// over the horizon; their mean series (result_warnings.hpp) says whether the statistics start
// before the system settles (a start-up transient that outlasts the warm-up). The replications
// are the run's own: each is checked bit for bit against the row the run kept, and a run whose
// rows the host does not reproduce (a device backend that differs on the scenario) is left
// unprobed. Cost: one replication in kSettlingEvery of each point's, up to kSettlingReplications,
// on the host's cores: a probed replication (the whole engine with a series) costs about 1.6
// times a run's (the core engine on M/M/8), so the probe takes under 2% of a run's time; a run
// of fewer than kSettlingEvery replications is not probed (queue_length_drift still warns of a
// queue that grows).
#pragma once
#include <atomic>
#include <cstddef>
#include <vector>

#include "gpucap/results.hpp"
#include "gpucap/scenario.hpp"

namespace gpucap {

/// Bins of the probe's series over the horizon (MSER-5 takes 80 batches of 5 of them).
inline constexpr std::size_t kSettlingBins = 400;
/// Replications of each point the probe simulates again, at most: one in kSettlingEvery of the
/// run's.
inline constexpr std::size_t kSettlingReplications = 32;
inline constexpr std::size_t kSettlingEvery = 100;

/// The replications of each point a run of `replications` probes.
inline std::size_t settling_probe_replications(std::size_t replications) {
  const std::size_t share = replications / kSettlingEvery;
  return share < kSettlingReplications ? share : kSettlingReplications;
}

/// Fills r.settling (RunResults) for a run with no time series of its own: the mean over the
/// first settling_probe_replications(r.replications) replications of each point of the GPUs in
/// use, summed over pools, per bin. Nothing when the run records a time series (its own series
/// is used), fewer than kSettlingEvery replications, has no horizon, or replays a trace or starts
/// from a state at t = 0 (a workload's
/// `process: trace` or `initial_state`): those ask about a given period, not a steady state;
/// nothing either for a sweep of the horizon, or when a replication simulated again differs
/// from the run's row. With `cancel`, a cancel (Ctrl-C, CancelToken) stops the probe within
/// milliseconds, as it stops the run's own replications, and throws RunCancelled. It runs on
/// the run's `threads` CPU threads (0: all), checked first (ensure_threads_can_start); a thread
/// that cannot have its engine arena leaves the run unprobed.
void add_settling_probe(RunResults& r, const std::vector<Scenario>& points,
                        const std::atomic<bool>* cancel = nullptr, int threads = 0);

}  // namespace gpucap
