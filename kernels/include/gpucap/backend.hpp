// gpucap: the backends that run replications, and how a run chooses one.
//
//   cpu         OpenMP over replications on the host (kernels/cpu_backend.cpp).
//   cuda        one GPU: kernels/device_backend.cu built with nvcc (GPUCAP_ENABLE_CUDA).
//   thrust-omp  the same kernels source built with the host compiler for Thrust's OpenMP device
//               system: the device orchestration (batches, arenas, reductions) without a GPU.
//
// Every backend runs the same portable core (gpucap/replication.hpp), so for one seed they give
// the same bits per replication, and the same summaries (gpucap/moments.hpp).
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/compile.hpp"
#include "gpucap/moments.hpp"

namespace gpucap {

class ProgressBar;

/// Shared between a run and whoever watches it from another thread (the Python bindings):
/// `done` counts finished replications (all points); setting `cancel` makes the backend stop
/// early (the CPU before its next replication, a device before its next batch) and the run
/// throw RunCancelled.
struct RunMonitor {
  std::atomic<uint64_t> done{0};
  std::atomic<bool> cancel{false};
};

/// Work for a backend: replications [first, first + count) of each of `points` models (sweep
/// points, all with the same pools), under one seed. Outputs are row-major:
///   scalars        [point][count][kScalarMetricCount]
///   pool_values    [point][count][pool_count][kPoolMetricCount]
///   timeseries     [point][count][pool_count][bins], bins = the models' timeseries_bins (the
///                  same for every point); null when the models record no time series
///   block_moments  [point][block][kScalarMetricCount + pool_count * kPoolMetricCount], one block
///                  per kMomentBlock replications (device backends fill it when not null; first
///                  must then be a multiple of kMomentBlock).
struct ReplicationTask {
  const ModelStorage* models = nullptr;
  std::size_t points = 1;
  uint64_t seed = 0;
  uint64_t first = 0;
  uint64_t count = 0;
  double* scalars = nullptr;
  double* pool_values = nullptr;
  double* timeseries = nullptr;
  Moments* block_moments = nullptr;
  ProgressBar* progress = nullptr;  ///< advanced by the replications done (all points); may be null
  RunMonitor* monitor = nullptr;    ///< counts replications done and asks to cancel; may be null

  bool cancelled() const { return monitor && monitor->cancel.load(std::memory_order_relaxed); }

  uint32_t pool_count() const { return points > 0 ? models[0].model().pool_count : 0; }
  /// Values per replication of the time series (pools x bins); 0 when not recorded.
  std::size_t timeseries_stride() const {
    return timeseries && points > 0
               ? static_cast<std::size_t>(pool_count()) * models[0].model().timeseries_bins
               : 0;
  }
};

/// A GPU (or, for thrust-omp, the host) as a device backend sees it.
struct DeviceInfo {
  int index = 0;
  std::string name;
  std::size_t total_memory_bytes = 0;
  std::size_t free_memory_bytes = 0;
  int compute_major = 0, compute_minor = 0;  ///< compute capability (0.0 for the host)
  int multiprocessors = 0;                   ///< SMs, or host threads
};

/// The devices a backend sees, and why it cannot run when it cannot (no driver, no device,
/// device 0 older than the build's targets). Runs use device 0.
struct DeviceProbe {
  std::vector<DeviceInfo> devices;
  std::string why_none;  ///< one line; empty when device 0 can run the kernels

  bool usable() const { return why_none.empty() && !devices.empty(); }
};

/// Caps on a device run; 0 leaves the choice to the backend (tests set them to force batching).
struct DeviceLimits {
  std::size_t memory_bytes = 0;     ///< device memory the run may use (default 90% of free)
  uint64_t batch_replications = 0;  ///< replications per point in one batch (whole moment blocks)
  uint64_t workers = 0;             ///< device threads, each with one arena
};

/// What a device run did.
struct DeviceRunStats {
  std::string device;  ///< e.g. "NVIDIA H200 (sm_90)"
  uint64_t batches = 0;
  uint64_t workers = 0;
  std::size_t arena_bytes = 0;          ///< per worker
  std::size_t memory_budget_bytes = 0;  ///< what the batches were sized to
};

/// A device backend: kernels/device_backend.cu built for one Thrust device system.
struct DeviceBackend {
  const char* name;     ///< "cuda" or "thrust-omp"
  const char* targets;  ///< what the kernels were built for, e.g. "sm_90 + compute_90 PTX"
  DeviceProbe (*probe)();
  /// Runs `task` on device 0. Throws RunError (engine failure, out of memory, driver error).
  DeviceRunStats (*run)(const ReplicationTask& task, const DeviceLimits& limits);
};

/// The CUDA backend, or null when this build has none (nvcc was not found at configure time).
const DeviceBackend* cuda_backend();
/// The kernels on Thrust's OpenMP system, or null when not built (no CCCL headers, no OpenMP).
const DeviceBackend* thrust_omp_backend();

/// Why a build lacks the CUDA or the thrust-omp backend, for messages (`gpucap info`, errors).
extern const char* const kCudaNotBuilt;
extern const char* const kThrustOmpNotBuilt;

/// Runs `task` on the CPU with `threads` OpenMP threads (0 = all); leaves block_moments alone.
void run_replications_cpu(const ReplicationTask& task, int threads);

/// Most CPU threads a run may ask for: far beyond any machine's cores, and small enough that
/// every thread's stack and engine arena are reasonable.
inline constexpr int kMaxThreads = 1024;

/// The number of threads `threads` (0 = all) resolves to.
int resolve_thread_count(int threads);

/// Name of the CPU backend in this build: "cpu-openmp" or "cpu-serial".
std::string cpu_backend_name();

/// Which backend a run asks for.
enum class BackendChoice { cpu, cuda, automatic, thrust_omp };

/// Parses "cpu", "cuda", "auto" or "thrust-omp"; throws std::invalid_argument naming the valid
/// ones.
BackendChoice parse_backend(const std::string& name);

/// The backend a choice resolves to on this machine: null for the CPU, else a device backend
/// with at least one device. `auto` picks CUDA when a device works, else the CPU. Throws
/// BackendUnavailable (one line: what was asked and why it cannot run here) otherwise.
const DeviceBackend* resolve_backend(BackendChoice choice);

/// The asked-for backend cannot run on this machine or build.
class BackendUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Error from a backend (e.g. an engine invariant broken, a driver error): the message says
/// which replication or which call.
class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The run stopped because its RunMonitor asked it to (Ctrl-C in Python).
class RunCancelled : public RunError {
 public:
  RunCancelled() : RunError("the run was cancelled") {}
};

}  // namespace gpucap
