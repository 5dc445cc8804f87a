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
#include <stdexcept>
#include <string>

#include "gpucap/compiled_model.hpp"
#include "gpucap/results.hpp"
#include "gpucap/scenario.hpp"

namespace gpucap {

class ProgressBar;

struct RunOptions {
  uint64_t replications = 0;  ///< 0: the scenario's `replications`
  uint64_t seed = 0;          ///< used when has_seed; otherwise the scenario's seed
  bool has_seed = false;
  int threads = 0;        ///< 0: all cores (OMP_NUM_THREADS or the hardware)
  bool progress = false;  ///< draw a progress bar on stderr
};

/// Error from a backend (e.g. an engine invariant broken): the message says which replication.
class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Runs replications [first, first + count) of `model` on the CPU with `threads` OpenMP threads
/// (dynamic schedule), writing rows into scalars [count][kScalarMetricCount] and pool_values
/// [count][pools][kPoolMetricCount]. `progress` may be null.
void run_replications_cpu(const CompiledModel& model, uint64_t seed, uint64_t first, uint64_t count,
                          int threads, double* scalars, double* pool_values, ProgressBar* progress);

/// The number of threads `threads` (0 = all) resolves to.
int resolve_thread_count(int threads);

/// Compiles and runs `scenario`, then summarizes the replications.
RunResults run(const Scenario& scenario, const RunOptions& options);

/// Name of the CPU backend in this build: "cpu-openmp" or "cpu-serial".
std::string cpu_backend_name();

}  // namespace gpucap
