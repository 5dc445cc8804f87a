// gpucap: the CPU backend: OpenMP over (point, replication), one arena per thread.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <unistd.h>
#include <vector>

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

void ensure_threads_can_start(int threads) {
  static std::mutex mutex;
  static int verified = 1;  // the calling thread
  const std::lock_guard<std::mutex> lock(mutex);
  if (threads <= verified) return;
  // Threads with the default attributes (OpenMP's, unless OMP_STACKSIZE says otherwise), all
  // alive at once, as a parallel region's team is.
  std::mutex gate;
  std::condition_variable opened;
  bool open = false;
  std::vector<std::thread> started;
  started.reserve(static_cast<std::size_t>(threads - 1));
  std::string refused;
  try {
    for (int k = 1; k < threads; ++k)
      started.emplace_back([&] {
        std::unique_lock<std::mutex> wait(gate);
        opened.wait(wait, [&] { return open; });
      });
  } catch (const std::system_error& e) {
    refused = e.what();
  }
  {
    const std::lock_guard<std::mutex> release(gate);
    open = true;
  }
  opened.notify_all();
  for (std::thread& t : started) t.join();
  if (refused.empty()) {
    verified = threads;
    return;
  }
  const int could = static_cast<int>(started.size()) + 1;
  throw RunError("cannot run " + std::to_string(threads) + " threads: the system refused thread " +
                 std::to_string(could + 1) + " (" + refused +
                 "), as a limit on the address space (ulimit -v), on threads (ulimit -u) or a "
                 "container's memory does; ask for at most " +
                 std::to_string(std::max(1, could / 2)) + " threads (--threads, threads=)");
}

void run_replications_cpu(const ReplicationTask& task, int threads) {
  const int team = resolve_thread_count(threads);
  ensure_threads_can_start(team);
  std::size_t arena_bytes = 0;
  for (std::size_t p = 0; p < task.points; ++p)
    arena_bytes = std::max(arena_bytes, replication_arena_bytes(task.models[p].model()));
  const std::size_t pool_stride = static_cast<std::size_t>(task.pool_count()) * kPoolMetricCount;
  const std::size_t series_stride = task.timeseries_stride();
  const int64_t n = static_cast<int64_t>(task.points * task.count);
  int64_t failed = -1;
  std::atomic<bool> out_of_memory{false};
#if defined(_OPENMP)
#pragma omp parallel num_threads(team)
#endif
  {
    // 8-byte aligned and left uninitialized: the engine initializes what it uses, and pages of a
    // large waiting room that are never reached are never touched.
    const std::unique_ptr<uint64_t[]> arena(new (std::nothrow) uint64_t[(arena_bytes + 7) / 8]);
    // An exception may not leave a parallel region: a thread without its arena says so.
    if (!arena) out_of_memory.store(true, std::memory_order_relaxed);
    // Whether this thread's replications are long enough (over 2^20 events, some 50 ms) for a
    // cancel to be checked inside them: the check costs about 1% of a short replication's time,
    // and a short one ends soon anyway. The first replication of each thread is checked.
    bool long_replications = true;
#if defined(_OPENMP)
#pragma omp for schedule(dynamic, 1)
#endif
    for (int64_t item = 0; item < n; ++item) {
      // OpenMP loops cannot break: skip what is left
      if (task.cancelled() || out_of_memory.load(std::memory_order_relaxed)) continue;
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
  if (out_of_memory.load())
    throw RunError("not enough memory for an engine arena of " +
                   std::to_string((arena_bytes + (1 << 20) - 1) >> 20) + " MiB on each of " +
                   std::to_string(team) +
                   " threads; run with fewer threads (--threads, threads=)");
  if (task.cancelled()) throw RunCancelled();
  if (failed >= 0)
    throw RunError("replication " + std::to_string(task.first + failed % task.count) +
                   (task.points > 1 ? " of point " + std::to_string(failed / task.count) : "") +
                   " overflowed its event calendar; this is a gpucap bug, please report it");
}

}  // namespace gpucap
