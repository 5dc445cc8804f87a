// gpucap: running replications of a scenario on a backend.
//
//   gpucap::RunOptions options;
//   options.replications = 10000;
//   gpucap::RunResults results = gpucap::run(scenario, options);
//
// Replication r of a run uses Philox streams keyed by (seed, r, stream), so the results depend
// on the scenario and the seed alone: not on the thread count, batch size or backend.
#pragma once
#include <cstdint>
#include <string>

#include "gpucap/backend.hpp"
#include "gpucap/results.hpp"
#include "gpucap/scenario.hpp"

namespace gpucap {

struct RunOptions {
  uint64_t replications = 0;  ///< 0: the scenario's `replications`
  uint64_t seed = 0;          ///< used when has_seed; otherwise the scenario's seed
  bool has_seed = false;
  BackendChoice backend = BackendChoice::automatic;
  int threads = 0;        ///< CPU backend: 0 = all cores (OMP_NUM_THREADS or the hardware)
  bool progress = false;  ///< draw a progress bar on stderr
  DeviceLimits device_limits;  ///< device backends: memory, batch and worker caps (0 = theirs)
};

/// Compiles and runs `scenario` on the chosen backend, then summarizes the replications.
/// Throws BackendUnavailable when the backend cannot run here, RunError when a run fails.
RunResults run(const Scenario& scenario, const RunOptions& options);

}  // namespace gpucap
