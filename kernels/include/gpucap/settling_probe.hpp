// gpucap: the settling probe of a run that records no time series. The first replications of
// each point are simulated again on the host with GPUs in use recorded in kSettlingBins bins
// over the horizon; their mean series (result_warnings.hpp) says whether the statistics start
// before the system settles (a start-up transient that outlasts the warm-up). The replications
// are the run's own: each is checked bit for bit against the row the run kept, and a run whose
// rows the host does not reproduce (a device backend that differs on the scenario) is left
// unprobed. Cost: up to kSettlingReplications replications per point, on the host's cores.
#pragma once
#include <atomic>
#include <cstddef>
#include <vector>

#include "gpucap/results.hpp"
#include "gpucap/scenario.hpp"

namespace gpucap {

/// Bins of the probe's series over the horizon (MSER-5 takes 80 batches of 5 of them).
inline constexpr std::size_t kSettlingBins = 400;
/// Replications of each point the probe simulates again, at most (and at most the run's).
inline constexpr std::size_t kSettlingReplications = 32;

/// Fills r.settling (RunResults) for a run with no time series of its own: the mean over the
/// first min(kSettlingReplications, r.replications) replications of each point of the GPUs in
/// use, summed over pools, per bin. Nothing when the run records a time series (its own series
/// is used), has no horizon, or replays a trace or starts from a state at t = 0 (a workload's
/// `process: trace` or `initial_state`): those ask about a given period, not a steady state;
/// nothing either for a sweep of the horizon, or when a replication simulated again differs
/// from the run's row. With `cancel`, a cancel (Ctrl-C, CancelToken) stops the probe within
/// milliseconds, as it stops the run's own replications, and throws RunCancelled.
void add_settling_probe(RunResults& r, const std::vector<Scenario>& points,
                        const std::atomic<bool>* cancel = nullptr);

}  // namespace gpucap
