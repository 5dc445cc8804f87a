// gpucap: the backends that run replications, and how a run chooses one.
//
// One table, backends(), lists every backend this source knows, in this order, whether or not
// this build has it (Thrust's device systems are the model: the host's cores are one system
// beside the others):
//
//   cpu         OpenMP over replications on the host (kernels/cpu_backend.cpp).
//   cuda        one GPU: kernels/device_backend.cu built with nvcc (GPUCAP_ENABLE_CUDA).
//   thrust-omp  the same kernels source built with the host compiler for Thrust's OpenMP device
//               system: the device orchestration (batches, arenas, reductions) without a GPU.
//
// `gpucap info`, `--backend`, Python's gpucap.backends() and its backend= argument all read the
// table, so a new backend is one row there (kernels/backend.cpp) plus its code.
//
//   const gpucap::Backend& b = gpucap::resolve_backend(gpucap::parse_backend("auto"));
//   gpucap::DeviceRunStats stats = b.run(task, gpucap::DeviceLimits{});
//
// Every backend runs the same portable core (gpucap/replication.hpp), so for one seed they give
// the same bits per replication, and the same summaries (gpucap/moments.hpp).
#pragma once
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/backend_choice.hpp"
#include "gpucap/compile.hpp"
#include "gpucap/moments.hpp"
#include "gpucap/streaming_summary.hpp"

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
/// A device run that keeps no rows (`summary` not null, device backends only) reduces each
/// batch on the device to the chunk summary of the task's replications (streaming_summary.hpp:
/// block moments into `block_moments` = summary->blocks, paired differences from point 0,
/// quantile sketches, goal counts) and copies back no rows: scalars, pool_values and
/// timeseries are then null. The summary is the bits summarize_chunk gives of the rows.
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
  /// Not null: reduce on the device, keep no rows (above). Shaped by empty_chunk_summary; the
  /// backend adds to its difference blocks, sketches and goal counts.
  ChunkSummary* summary = nullptr;
  const std::vector<GoalSpec>* goals = nullptr;  ///< the goals summary->goal_met counts
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

/// A device as a backend sees it: a GPU, or the host (for the cpu and thrust-omp backends).
struct DeviceInfo {
  int index = 0;
  std::string name;
  std::size_t total_memory_bytes = 0;
  std::size_t free_memory_bytes = 0;
  int compute_major = 0, compute_minor = 0;  ///< compute capability (0.0 for the host)
  int multiprocessors = 0;                   ///< SMs, or host threads
  /// Seconds the first probe in this process took (driver start and a context on each GPU):
  /// part of a device run's start-up, which `auto` weighs (backend_choice.hpp); 0 for the host.
  double startup_s = 0;
};

/// The devices a backend sees, and why it cannot run when it cannot (no driver, no device,
/// device 0 older than the build's targets). Runs use every device listed, or those
/// DeviceLimits::devices names. Thrust's OpenMP system lists GPUCAP_THRUST_OMP_DEVICES
/// simulated devices (default 1), each the host with its share of the threads.
struct DeviceProbe {
  std::vector<DeviceInfo> devices;
  std::string why_none;  ///< one line; empty when device 0 can run the kernels

  bool usable() const { return why_none.empty() && !devices.empty(); }
};

/// Caps on a run; 0 leaves the choice to the backend (tests set them to force batching).
/// The cpu backend reads only `workers` (its OpenMP threads, each with one arena).
struct DeviceLimits {
  std::size_t memory_bytes = 0;     ///< device memory the run may use (default 90% of free)
  uint64_t batch_replications = 0;  ///< replications per point in one batch (whole moment blocks)
  uint64_t workers = 0;             ///< device threads (cpu: host threads), each with one arena
  /// Device backends: the devices to use, by index (`--devices 0,1`); empty: every one the
  /// probe lists. Batches go to whichever device is free; the bits do not depend on it.
  std::vector<int> devices;
  /// Device backends: CPU threads that join the devices as one more (`--host-threads`; `auto`
  /// sets it where the cost model expects both to help). They take batches of whole moment
  /// blocks from the same cursor, so the bits do not depend on who ran what. 0: none.
  int host_threads = 0;
};

/// What a run on a backend did.
struct DeviceRunStats {
  std::string device;  ///< e.g. "NVIDIA H200 (sm_90)", "host, 16 threads"
  uint64_t batches = 0;
  uint64_t workers = 0;         ///< device worker threads, or the cpu's threads
  std::size_t arena_bytes = 0;  ///< per worker
  /// Device memory the arenas take: whole groups of interleaved arenas (arena_ptr.hpp), so on
  /// a device at least workers x arena_bytes (0 on the cpu).
  std::size_t arena_memory_bytes = 0;
  std::size_t memory_budget_bytes = 0;  ///< what the batches were sized to (0 on the cpu)
};

/// Where a backend runs the replications: on the host's cores, or on a device through Thrust.
/// Device backends reduce the summary's moments themselves (ReplicationTask::block_moments).
enum class BackendKind { cpu, device };

/// One row of the backend table.
struct Backend {
  const char* name;  ///< what --backend and Python's backend= take: "cpu", "cuda", ...
  BackendKind kind;
  const char* description;  ///< one line: what runs the replications
  bool automatic;           ///< `auto` prefers it to the cpu when it is built and usable
  const char* not_built;    ///< why this build lacks it, with what would add it; "" when built
  /// The rest is the backend's code, null or "" when not built.
  const char* label;       ///< what results record as their backend: "cpu-openmp", "cuda", ...
  const char* targets;     ///< what the code was built for, e.g. "sm_90 + compute_90 PTX"
  DeviceProbe (*probe)();  ///< the devices it sees (the cpu: the host), or why it cannot run
  /// Runs `task` on the devices of `limits` (the cpu: on the host's cores). Throws RunError
  /// (engine failure, out of memory, driver error), RunCancelled when task.monitor asked it to
  /// stop, std::invalid_argument for a device that does not exist.
  DeviceRunStats (*run)(const ReplicationTask& task, const DeviceLimits& limits);

  bool built() const { return run != nullptr; }
};

/// Rows of the backend table.
inline constexpr std::size_t kBackendCount = 3;

/// Every backend, built or not: cpu, cuda, thrust-omp, in that order.
const std::array<Backend, kBackendCount>& backends();

/// The row named `name`, or null when there is none ("auto" is a choice, not a row).
const Backend* find_backend(const std::string& name);

/// What a run may ask for: a row of the table (the first three values, in the table's order),
/// or `automatic`.
enum class BackendChoice { cpu, cuda, thrust_omp, automatic };

/// The name and description of `auto`, the choice that is not a row.
inline constexpr const char* kAutoBackendName = "auto";
inline constexpr const char* kAutoBackendDescription =
    "whichever of the CPU and a working GPU a cost model expects to be faster for the run";

/// Every name parse_backend accepts, "auto" first, then the table's names in order.
std::vector<std::string> backend_choice_names();

/// Parses a name of backend_choice_names(); throws std::invalid_argument naming the valid ones.
BackendChoice parse_backend(const std::string& name);

/// The row a choice resolves to on this machine. `auto` picks the first `automatic` row that is
/// built and has a usable device, else the cpu: the device auto may use (a run's choice is
/// choose_backend's, which weighs the run). Throws BackendUnavailable (one line: what was
/// asked and why it cannot run here) when the row is not built or its probe finds no usable
/// device.
const Backend& resolve_backend(BackendChoice choice);

/// What a run runs on: a row, the CPU threads that join its devices, and why.
struct BackendPick {
  const Backend* backend = nullptr;
  /// A device row's DeviceLimits::host_threads: `auto`'s choice of both together (the host's
  /// threads but one per device), else 0.
  int host_threads = 0;
  std::string why;  ///< `auto`'s one-line reason (backend_choice.hpp); "" for a named row
};

/// What a run of `shape` runs on. A named row is resolve_backend's. `auto` takes the cpu, the
/// first `automatic` row that is built and usable, or both together, whichever the cost model
/// (backend_choice.hpp) expects to finish first with `host_threads` CPU threads (0 = all) and
/// the devices `only_devices` names (empty: every one).
BackendPick choose_backend(BackendChoice choice, const RunShape& shape, int host_threads,
                           const std::vector<int>& only_devices = {});

/// Starts, once per process, the GPU rows' probe on a thread of its own: the driver's start and
/// a context on each device (a third of a second or so) then overlap what a run does before it
/// needs them (reading and compiling the scenario). resolve_backend and choose_backend wait for
/// it. The CLI calls it first thing for `run` and `sweep` on auto or cuda. A process keeps its
/// contexts (nothing resets a device), so Python's later runs find them up.
void warm_up_devices();

/// Runs `task` on the CPU with `threads` OpenMP threads (0 = all); leaves block_moments alone.
/// The cpu row's `run` is this, with `threads` = limits.workers.
void run_replications_cpu(const ReplicationTask& task, int threads);

/// Most CPU threads a run may ask for: far beyond any machine's cores, and small enough that
/// every thread's stack and engine arena are reasonable.
inline constexpr int kMaxThreads = 1024;

/// The number of threads `threads` (0 = all) resolves to.
int resolve_thread_count(int threads);

/// Checks, once per larger count, that the system lets this process run `threads` threads at
/// once (a limit on address space, threads or a container's memory can refuse them), by
/// starting threads - 1 threads that wait and then end. Throws RunError naming how many
/// started: OpenMP itself ends the process when it cannot create a thread it asked for.
void ensure_threads_can_start(int threads);

/// Name of the CPU backend in this build, as results record it: "cpu-openmp" or "cpu-serial"
/// (the cpu row's label).
std::string cpu_backend_name();

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
