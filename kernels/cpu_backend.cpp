// gpucap: the CPU backend: OpenMP over (point, replication), one arena per thread.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <unistd.h>

#include "gpucap/backend.hpp"
#include "gpucap/memory_estimate.hpp"
#include "gpucap/progress.hpp"
#include "gpucap/replication.hpp"

#include "backend_code.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace gpucap {

namespace {

#if defined(_OPENMP)
constexpr const char* kCpuLabel = "cpu-openmp";
constexpr const char* kCpuTargets = "the host's cores, with OpenMP";
#else
constexpr const char* kCpuLabel = "cpu-serial";
constexpr const char* kCpuTargets = "the host, one thread (built without OpenMP)";
#endif

/// The host as the cpu backend's one device: its memory and threads.
DeviceProbe probe_host() {
  DeviceInfo host;
  host.name = "host";
  const long page = sysconf(_SC_PAGESIZE);
  const long pages = sysconf(_SC_PHYS_PAGES);
  if (page > 0 && pages > 0) host.total_memory_bytes = static_cast<std::size_t>(pages) * page;
  try {
    host.free_memory_bytes = static_cast<std::size_t>(available_host_memory_bytes());
  } catch (const std::invalid_argument&) {  // a bad GPUCAP_MEMORY_LIMIT: a run says so
    const long free_pages = sysconf(_SC_AVPHYS_PAGES);
    if (page > 0 && free_pages > 0)
      host.free_memory_bytes = static_cast<std::size_t>(free_pages) * page;
  }
  host.free_memory_bytes = std::min(host.free_memory_bytes, host.total_memory_bytes);
  host.multiprocessors = resolve_thread_count(0);
  DeviceProbe probe;
  probe.devices.push_back(host);
  return probe;
}

DeviceRunStats run_on_host(const ReplicationTask& task, const DeviceLimits& limits) {
  DeviceRunStats stats;
  const int threads = resolve_thread_count(
      static_cast<int>(std::min<uint64_t>(limits.workers, static_cast<uint64_t>(kMaxThreads))));
  stats.device = "host, " + std::to_string(threads) + " threads";
  stats.workers = static_cast<uint64_t>(threads);
  stats.batches = 1;
  if (task.summary)
    throw std::logic_error("the cpu backend runs into rows (summarize_chunk reduces them); "
                           "ReplicationTask::summary is for device backends");
  run_replications_cpu(task, threads);
  return stats;
}

}  // namespace

BackendCode cpu_backend_code() { return {kCpuLabel, kCpuTargets, &probe_host, &run_on_host}; }

std::string cpu_backend_name() { return kCpuLabel; }

int resolve_thread_count(int threads) {
  if (threads > 0) return threads;
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

void run_replications_cpu(const ReplicationTask& task, int threads) {
  std::size_t arena_bytes = 0;
  for (std::size_t p = 0; p < task.points; ++p)
    arena_bytes = std::max(arena_bytes, replication_arena_bytes(task.models[p].model()));
  const std::size_t pool_stride = static_cast<std::size_t>(task.pool_count()) * kPoolMetricCount;
  const std::size_t series_stride = task.timeseries_stride();
  const int64_t n = static_cast<int64_t>(task.points * task.count);
  int64_t failed = -1;
#if defined(_OPENMP)
#pragma omp parallel num_threads(resolve_thread_count(threads))
#endif
  {
    // 8-byte aligned and left uninitialized: the engine initializes what it uses, and pages of a
    // large waiting room that are never reached are never touched.
    const std::unique_ptr<uint64_t[]> arena(new uint64_t[(arena_bytes + 7) / 8]);
    // Whether this thread's replications are long enough (over 2^20 events, some 50 ms) for a
    // cancel to be checked inside them: the check costs about 1% of a short replication's time,
    // and a short one ends soon anyway. The first replication of each thread is checked.
    bool long_replications = true;
#if defined(_OPENMP)
#pragma omp for schedule(dynamic, 1)
#endif
    for (int64_t item = 0; item < n; ++item) {
      if (task.cancelled()) continue;  // OpenMP loops cannot break: skip what is left
      const std::size_t point = static_cast<std::size_t>(item) / task.count;
      const uint64_t replication = task.first + static_cast<uint64_t>(item) % task.count;
      double* const series = series_stride ? task.timeseries + item * series_stride : nullptr;
      // With a monitor, a cancel stops even a long replication under way within milliseconds.
      double* const scalars = task.scalars + item * kScalarMetricCount;
      const int status =
          task.monitor && long_replications
              ? run_replication_cancellable(task.models[point].model(), task.seed, replication,
                                            arena.get(), scalars,
                                            task.pool_values + item * pool_stride, series,
                                            &task.monitor->cancel)
              : run_replication(task.models[point].model(), task.seed, replication, arena.get(),
                                scalars, task.pool_values + item * pool_stride, series);
      if (status == kReplicationCancelled) continue;
      long_replications = scalars[kEvents] > 1048576.0;
      if (status != kReplicationOk) {
#if defined(_OPENMP)
#pragma omp critical(gpucap_failure)
#endif
        failed = failed < 0 ? item : std::min(failed, item);
      }
      if (task.progress) task.progress->advance(1);
      if (task.monitor) task.monitor->done.fetch_add(1, std::memory_order_relaxed);
    }
  }
  (void)threads;
  if (task.cancelled()) throw RunCancelled();
  if (failed >= 0)
    throw RunError("replication " + std::to_string(task.first + failed % task.count) +
                   (task.points > 1 ? " of point " + std::to_string(failed / task.count) : "") +
                   " overflowed its event calendar; this is a gpucap bug, please report it");
}

}  // namespace gpucap
