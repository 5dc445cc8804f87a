// gpucap: the CPU backend: OpenMP over replications, one arena per thread.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "gpucap/progress.hpp"
#include "gpucap/replication.hpp"
#include "gpucap/run.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace gpucap {

std::string cpu_backend_name() {
#if defined(_OPENMP)
  return "cpu-openmp";
#else
  return "cpu-serial";
#endif
}

int resolve_thread_count(int threads) {
  if (threads > 0) return threads;
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

void run_replications_cpu(const CompiledModel& model, uint64_t seed, uint64_t first, uint64_t count,
                          int threads, double* scalars, double* pool_values,
                          ProgressBar* progress) {
  const size_t arena_bytes = replication_arena_bytes(model);
  const size_t pool_stride = static_cast<size_t>(model.pool_count) * kPoolMetricCount;
  const int64_t n = static_cast<int64_t>(count);
  int64_t failed = -1;
#if defined(_OPENMP)
#pragma omp parallel num_threads(resolve_thread_count(threads))
#endif
  {
    // 8-byte aligned and left uninitialized: the engine initializes what it uses, and pages of a
    // large waiting room that are never reached are never touched.
    const std::unique_ptr<uint64_t[]> arena(new uint64_t[(arena_bytes + 7) / 8]);
#if defined(_OPENMP)
#pragma omp for schedule(dynamic, 1)
#endif
    for (int64_t i = 0; i < n; ++i) {
      const int status =
          run_replication(model, seed, first + static_cast<uint64_t>(i), arena.get(),
                          scalars + i * kScalarMetricCount, pool_values + i * pool_stride);
      if (status != kReplicationOk) {
#if defined(_OPENMP)
#pragma omp critical(gpucap_failure)
#endif
        failed = failed < 0 ? i : std::min(failed, i);
      }
      if (progress) progress->advance(1);
    }
  }
  (void)threads;
  if (failed >= 0)
    throw RunError("replication " + std::to_string(first + failed) +
                   " overflowed its event calendar; this is a gpucap bug, please report it");
}

}  // namespace gpucap
