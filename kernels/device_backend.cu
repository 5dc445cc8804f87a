// gpucap: the device backend. One source, built for two Thrust device systems:
//   nvcc                                              -> "cuda"       (cuda_backend_code)
//   g++ -x c++ -fopenmp -DTHRUST_DEVICE_SYSTEM=..._OMP -> "thrust-omp" (thrust_omp_backend_code)
// each the code of a row of the backend table (kernels/backend.cpp, gpucap/backend.hpp). So the
// orchestration below (batches, arenas, work distribution, reductions) is tested on
// machines without a GPU, and the CUDA build differs only in where memory lives.
//
// A run:
//  1. copies each sweep point's compiled model into device memory (plain allocations);
//  2. sizes the work from the free device memory: `workers` persistent device threads, each with
//     its own arena (replication_arena_bytes, reused from one replication to the next), and
//     batches of replications whose metric rows fit beside them. The arenas of a warp's threads
//     are interleaved element by element (a group of kArenaLanes, arena_ptr.hpp), so that the
//     threads' loads of the same part of their state coalesce;
//  3. per batch: the workers take (point, replication) items from an atomic counter until the
//     batch is done. Replications vary in length (a spot job preempted ten times runs ten times
//     the events), and a thread that finishes early takes the next item instead of idling, so
//     there is no long tail of threads waiting for the slowest replication of their own slice.
//     Then one device thread per (point, block of kMomentBlock replications, metric) reduces the
//     block's moments (gpucap/moments.hpp), and the batch's rows and moments are copied back;
//     a run that keeps no rows (ReplicationTask::summary) instead reduces the batch on the
//     device to its chunk summary (batch_reduction.hpp: paired differences, goal counts, and
//     the values sorted by quantile-sketch bucket and reduced to a count, smallest and largest
//     per bucket) and copies back only that;
//  4. reports progress after every batch.
// Replication r of a point always draws from the Philox streams keyed by (seed, r), and the
// portable core uses the same floating-point operations everywhere (no FMA contraction, its own
// log and exp), so every row is the same bits as on the CPU backend.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <thrust/copy.h>
#include <thrust/device_free.h>
#include <thrust/device_malloc.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/tuple.h>
#include <type_traits>
#include <vector>

#include "gpucap/backend.hpp"
#include "gpucap/progress.hpp"
#include "gpucap/replication.hpp"

#include "backend_code.hpp"
#include "batch_reduction.hpp"

#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
#include <cuda_runtime.h>
#define GPUCAP_DEVICE_IS_CUDA 1
#elif THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_OMP
#include <omp.h>
#include <unistd.h>
#define GPUCAP_DEVICE_IS_CUDA 0
#else
#error "device_backend.cu builds for Thrust's CUDA or OpenMP device system"
#endif

namespace gpucap {
namespace {

namespace thr = THRUST_NS_QUALIFIER;

constexpr int kScalars = kScalarMetricCount;
/// Arenas start on this boundary (a GPU's memory transaction size).
constexpr std::size_t kArenaAlignment = 256;

/// Workers that share a group of kArenaLanes interleaved arenas (arena_ptr.hpp) as its lanes:
/// a warp's threads on CUDA. On the OpenMP system each worker has a group of its own, as lane
/// worker % kArenaLanes (the CUDA layout, without two threads writing one cache line).
#if GPUCAP_DEVICE_IS_CUDA
constexpr uint64_t kWorkersPerGroup = kArenaLanes;
#else
constexpr uint64_t kWorkersPerGroup = 1;
#endif
/// Groups of arenas that `workers` workers use.
GPUCAP_HD inline uint64_t arena_groups(uint64_t workers) {
  return (workers + kWorkersPerGroup - 1) / kWorkersPerGroup;
}
/// Batches per run when the run is long enough to keep the device busy: progress granularity.
constexpr uint64_t kTargetBatches = 8;
/// A batch holds at least this many items per worker, so that a worker's last replication (the
/// batch's tail) is a small part of the batch. Fewer items per worker give more batches, hence
/// more progress updates and quicker cancellation, on runs of a few hundred thousand.
constexpr uint64_t kItemsPerWorker = 2;

#if GPUCAP_DEVICE_IS_CUDA
constexpr const char* kBackendName = "cuda";
// Set by kernels/CMakeLists.txt from CMAKE_CUDA_ARCHITECTURES.
constexpr const char* kTargets = GPUCAP_CUDA_TARGETS;

[[noreturn]] void throw_cuda(cudaError_t error, const char* what) {
  cudaGetLastError();  // clears the error where it can be cleared (not after a kernel fault)
  throw RunError(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(error) + " (" +
                 cudaGetErrorName(error) + ")");
}
void check_cuda(cudaError_t error, const char* what) {
  if (error != cudaSuccess) throw_cuda(error, what);
}
#else
constexpr const char* kBackendName = "thrust-omp";
constexpr const char* kTargets = "the host, through Thrust's OpenMP system";
#endif

/// An uninitialized array in device memory (cudaMalloc on CUDA, the heap on OpenMP).
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) : size_(n) {
    if (n > 0) ptr_ = thr::device_malloc<T>(n);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    // Never throw from here: after a fatal kernel error cudaFree reports that error again, and
    // the buffer is being freed while that error is already on its way to the caller.
    if (size_ == 0) return;
    try {
      thr::device_free(ptr_);
    } catch (...) {
    }
  }
  T* get() const { return thr::raw_pointer_cast(ptr_); }
  thr::device_ptr<T> begin() const { return ptr_; }
  std::size_t size() const { return size_; }

 private:
  std::size_t size_ = 0;
  thr::device_ptr<T> ptr_;
};

/// Host to device copy of n elements (plain data).
template <class T>
void upload(const T* host, std::size_t n, DeviceBuffer<T>& device) {
  if (n > 0) thr::copy(host, host + n, device.begin());
}
/// Device to host copy of n elements starting at element `offset` of `device`.
template <class T>
void download(const DeviceBuffer<T>& device, std::size_t offset, std::size_t n, T* host) {
  if (n > 0) thr::copy(device.begin() + offset, device.begin() + offset + n, host);
}

/// The models of all points in device memory, and a device array of their views.
class DeviceModels {
 public:
  explicit DeviceModels(const ReplicationTask& task) {
    std::vector<CompiledModel> views(task.points);
    for (std::size_t p = 0; p < task.points; ++p) {
      views[p] = task.models[p].model();
      task.models[p].for_each_array(views[p], [&](auto& field, const auto& array) {
        using T = typename std::decay_t<decltype(array)>::value_type;
        const std::size_t bytes = array.size() * sizeof(T);
        arrays_.push_back(std::make_unique<DeviceBuffer<unsigned char>>(bytes));
        upload(reinterpret_cast<const unsigned char*>(array.data()), bytes, *arrays_.back());
        field = bytes > 0 ? reinterpret_cast<const T*>(arrays_.back()->get()) : nullptr;
        bytes_ += bytes;
      });
    }
    views_ = std::make_unique<DeviceBuffer<CompiledModel>>(views.size());
    upload(views.data(), views.size(), *views_);
    bytes_ += views.size() * sizeof(CompiledModel);
  }
  const CompiledModel* views() const { return views_->get(); }
  std::size_t bytes() const { return bytes_; }

 private:
  std::vector<std::unique_ptr<DeviceBuffer<unsigned char>>> arrays_;
  std::unique_ptr<DeviceBuffer<CompiledModel>> views_;
  std::size_t bytes_ = 0;
};

using Counter = unsigned long long;

GPUCAP_HD inline Counter fetch_add(Counter* counter, Counter value) {
#if defined(__CUDA_ARCH__)
  return atomicAdd(counter, value);
#else
  return __atomic_fetch_add(counter, value, __ATOMIC_RELAXED);
#endif
}

GPUCAP_HD inline void fetch_min(Counter* counter, Counter value) {
#if defined(__CUDA_ARCH__)
  atomicMin(counter, value);
#else
  Counter seen = __atomic_load_n(counter, __ATOMIC_RELAXED);
  while (value < seen && !__atomic_compare_exchange_n(counter, &seen, value, true, __ATOMIC_RELAXED,
                                                      __ATOMIC_RELAXED)) {
  }
#endif
}

/// counters[0]: the next item to take; counters[1]: the smallest failed item (~0: none).
enum : int { kNextItem = 0, kFirstFailure = 1, kCounterCount = 2 };

/// One persistent worker: takes items (point * batch_count + i = replication first + i of the
/// point) until none is left, each run in the worker's own arena.
struct SimulateItems {
  const CompiledModel* models;
  uint64_t seed;
  uint64_t first;           ///< first replication of the batch
  uint64_t batch_count;     ///< replications per point in the batch
  uint64_t items;           ///< points * batch_count
  unsigned char* arenas;    ///< arena_groups(workers) groups of group_bytes
  std::size_t group_bytes;  ///< kArenaLanes x one replication's arena bytes
  double* scalars;          ///< [point][batch_count][kScalars]
  double* pool_values;      ///< [point][batch_count][pool_stride]
  std::size_t pool_stride;
  double* timeseries;         ///< [point][batch_count][series_stride]; null: none
  std::size_t series_stride;  ///< pools x bins
  Counter* counters;
  /// Each worker's event calendar apart from its arena, calendar_bytes each (0: in the arena),
  /// interleaved as the arenas are: on CUDA in the block's shared memory, on the OpenMP system
  /// in `calendars` (its rehearsal).
  std::size_t calendar_bytes;
  unsigned char* calendars;

  GPUCAP_HD void operator()(uint64_t worker) const {
    const uint64_t group = worker / kWorkersPerGroup;
    const uint32_t lane = static_cast<uint32_t>(worker % kArenaLanes);
    void* arena = arenas + group * group_bytes;
    void* calendar = nullptr;
    if (calendar_bytes > 0) {
#if defined(__CUDA_ARCH__)
      // The launch's dynamic shared memory: the block's groups' calendars (place_calendars).
      // Blocks are whole groups, so the thread's group in its block is threadIdx.x / lanes.
      extern __shared__ double shared_calendars[];
      calendar = reinterpret_cast<unsigned char*>(shared_calendars) +
                 threadIdx.x / kArenaLanes * kArenaLanes * calendar_bytes;
#else
      calendar = calendars + group * kArenaLanes * calendar_bytes;
#endif
    }
    for (;;) {
      const Counter item = fetch_add(counters + kNextItem, 1);
      if (item >= items) return;
      const uint64_t point = item / batch_count;
      const uint64_t replication = first + item % batch_count;
      const int status =
          run_replication(models[point], seed, replication, arena, scalars + item * kScalars,
                          pool_values + item * pool_stride,
                          timeseries ? timeseries + item * series_stride : nullptr, calendar, lane);
      if (status != kReplicationOk) fetch_min(counters + kFirstFailure, item);
    }
  }
};

/// Moments of one (point, block, column) of a batch: index = (point * blocks + block) *
/// columns + column, columns = the scalars then the pool values.
struct ReduceBlocks {
  const double* scalars;
  const double* pool_values;
  uint64_t batch_count;
  uint64_t blocks;
  std::size_t pool_stride;
  Moments* moments;

  GPUCAP_HD void operator()(uint64_t index) const {
    const uint64_t columns = kScalars + pool_stride;
    const uint64_t column = index % columns;
    const uint64_t block = index / columns % blocks;
    const uint64_t point = index / columns / blocks;
    const uint64_t row = point * batch_count + block * kMomentBlock;
    const uint64_t left = batch_count - block * kMomentBlock;
    const uint64_t n = left < kMomentBlock ? left : kMomentBlock;
    moments[index] =
        column < static_cast<uint64_t>(kScalars)
            ? block_moments(scalars + row * kScalars + column, n, kScalars)
            : block_moments(pool_values + row * pool_stride + (column - kScalars), n, pool_stride);
  }
};

/// (count, smallest, largest) of a run of values of one sketch bucket.
using BucketTuple = thr::tuple<uint64_t, double, double>;

/// Two runs of one bucket as one: counts add, the smaller minimum and the larger maximum (no
/// NaN reaches here, and -0 and +0 lie in different buckets, so the order does not matter).
struct BucketMerge {
  GPUCAP_HD BucketTuple operator()(const BucketTuple& a, const BucketTuple& b) const {
    const double min_a = thr::get<1>(a), min_b = thr::get<1>(b);
    const double max_a = thr::get<2>(a), max_b = thr::get<2>(b);
    return BucketTuple(thr::get<0>(a) + thr::get<0>(b), min_b < min_a ? min_b : min_a,
                       max_b > max_a ? max_b : max_a);
  }
};

#if GPUCAP_DEVICE_IS_CUDA
/// Threads per block of the CUDA kernels.
constexpr int kBlockThreads = 256;
static_assert(kBlockThreads % kArenaLanes == 0, "a block holds whole groups of arenas");

/// f(i) for every i < n, one CUDA thread each (one thread per worker: the worker loop must not
/// be unrolled into one thread, as Thrust's for_each does with several items per thread).
template <class F>
__global__ void __launch_bounds__(kBlockThreads) for_each_index(F f, uint64_t n) {
  const uint64_t i = static_cast<uint64_t>(blockIdx.x) * kBlockThreads + threadIdx.x;
  if (i < n) f(i);
}
#endif

/// f(i) for every i < n on the device; on CUDA with `shared_bytes` of dynamic shared memory per
/// block of kBlockThreads.
template <class F>
void launch(const F& f, uint64_t n, std::size_t shared_bytes = 0) {
  if (n == 0) return;
#if GPUCAP_DEVICE_IS_CUDA
  const uint64_t blocks = (n + kBlockThreads - 1) / kBlockThreads;
  for_each_index<<<static_cast<unsigned>(blocks), kBlockThreads, shared_bytes>>>(f, n);
  check_cuda(cudaGetLastError(), "a kernel launch");
#else
  (void)shared_bytes;
  thr::for_each_n(thr::device, thr::counting_iterator<uint64_t>(0), n, f);
#endif
}

#if !GPUCAP_DEVICE_IS_CUDA
/// Most devices Thrust's OpenMP system may pretend to have.
constexpr int kMaxSimulatedDevices = 64;

/// Devices the OpenMP system presents: GPUCAP_THRUST_OMP_DEVICES (1 to 64, default 1), each
/// the host with its share of the threads, so that several-device runs are tested without GPUs.
int simulated_device_count() {
  const char* text = std::getenv("GPUCAP_THRUST_OMP_DEVICES");
  if (!text || !*text) return 1;
  char* end = nullptr;
  const long n = std::strtol(text, &end, 10);
  if (*end != '\0' || n < 1 || n > kMaxSimulatedDevices)
    throw std::invalid_argument("GPUCAP_THRUST_OMP_DEVICES must be a whole number from 1 to " +
                                std::to_string(kMaxSimulatedDevices) + ", got '" + text + "'");
  return static_cast<int>(n);
}
#endif

/// Device `index` as this system sees it (on CUDA, after cudaSetDevice(index) in this thread).
DeviceInfo describe_device(int index) {
  DeviceInfo d;
  d.index = index;
#if GPUCAP_DEVICE_IS_CUDA
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, index), "cudaGetDeviceProperties");
  check_cuda(cudaMemGetInfo(&d.free_memory_bytes, &d.total_memory_bytes), "cudaMemGetInfo");
  d.name = prop.name;
  d.compute_major = prop.major;
  d.compute_minor = prop.minor;
  d.multiprocessors = prop.multiProcessorCount;
#else
  const long page = sysconf(_SC_PAGESIZE);
  const int devices = simulated_device_count();
  d.name = "host (Thrust OpenMP system)";
  if (devices > 1)
    d.name += ", simulated device " + std::to_string(index) + " of " + std::to_string(devices);
  d.total_memory_bytes = static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) * page / devices;
  d.free_memory_bytes = static_cast<std::size_t>(sysconf(_SC_AVPHYS_PAGES)) * page / devices;
  d.multiprocessors = std::max(1, omp_get_max_threads() / devices);
#endif
  return d;
}

/// Worker threads the device keeps resident at once (the simulation kernel's occupancy):
/// every worker runs from the start, so none waits for a slot while others finish.
uint64_t resident_threads(const DeviceInfo& d) {
#if GPUCAP_DEVICE_IS_CUDA
  int blocks_per_sm = 0;
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                 &blocks_per_sm, for_each_index<SimulateItems>, kBlockThreads, 0),
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  return static_cast<uint64_t>(d.multiprocessors) * static_cast<uint64_t>(blocks_per_sm) *
         kBlockThreads;
#else
  return static_cast<uint64_t>(d.multiprocessors);
#endif
}

/// Where the workers' event calendars live: apart from the arenas, `bytes` each (0: in the
/// arenas), in `shared_bytes` of shared memory per block of kBlockThreads on CUDA.
struct CalendarPlacement {
  std::size_t bytes = 0;
  std::size_t shared_bytes = 0;
};

/// Largest calendar the OpenMP system keeps apart (its rehearsal of shared memory): a block of
/// 256 such calendars is 256 KiB, about an SM's shared memory.
constexpr std::size_t kRehearsedCalendarBytes = 1024;

/// GPUCAP_SHARED_CALENDARS: "on" keeps each worker's event calendar apart from its arena, in
/// shared memory on CUDA, where it fits without lowering the kernel's occupancy; "off" keeps it
/// in the arena. Unset: off on CUDA (not yet measured on a device), on for the OpenMP system
/// (so that its tests run the path). The results are the same bits either way.
bool shared_calendars_wanted() {
  const char* text = std::getenv("GPUCAP_SHARED_CALENDARS");
  if (!text || !*text) return !GPUCAP_DEVICE_IS_CUDA;
  const std::string v = text;
  if (v == "on" || v == "1") return true;
  if (v == "off" || v == "0") return false;
  throw std::invalid_argument("GPUCAP_SHARED_CALENDARS must be on or off, got '" + v + "'");
}

/// The placement of calendars of `calendar_bytes` (8-byte multiple) on `device`.
CalendarPlacement place_calendars(const DeviceInfo& device, std::size_t calendar_bytes) {
  CalendarPlacement none;
  if (calendar_bytes == 0 || !shared_calendars_wanted()) return none;
#if GPUCAP_DEVICE_IS_CUDA
  const std::size_t per_block = calendar_bytes * kBlockThreads;
  int most = 0;
  check_cuda(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, device.index),
             "cudaDeviceGetAttribute");
  if (per_block > static_cast<std::size_t>(most)) return none;
  check_cuda(cudaFuncSetAttribute(for_each_index<SimulateItems>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(per_block)),
             "cudaFuncSetAttribute");
  int without = 0, with = 0;
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&without, for_each_index<SimulateItems>,
                                                           kBlockThreads, 0),
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&with, for_each_index<SimulateItems>,
                                                           kBlockThreads, per_block),
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  if (with < without) return none;  // fewer resident workers would cost more than it saves
  return {calendar_bytes, per_block};
#else
  (void)device;
  if (calendar_bytes > kRehearsedCalendarBytes) return none;
  return {calendar_bytes, 0};
#endif
}

std::string device_label(const DeviceInfo& d) {
#if GPUCAP_DEVICE_IS_CUDA
  return d.name + " (sm_" + std::to_string(d.compute_major) + std::to_string(d.compute_minor) + ")";
#else
  return d.name + ", " + std::to_string(d.multiprocessors) + " threads";
#endif
}

std::string megabytes(std::size_t bytes) {
  return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
}

/// Device bytes per value of a batch that a run keeping no rows sorts by sketch bucket: its key
/// and value, Thrust's sorted copies of both, and a bucket's key, count, minimum and maximum.
constexpr std::size_t kSortBytesPerValue = 8 + 8 + 16 + 32;

/// How a run is cut: workers and replications per batch (per point).
struct BatchPlan {
  uint64_t workers = 0;
  uint64_t batch_count = 0;
  std::size_t budget_bytes = 0;
};

BatchPlan plan_batches(const ReplicationTask& task, const DeviceLimits& limits,
                       const DeviceInfo& device, std::size_t model_bytes, std::size_t arena_bytes,
                       std::size_t device_count) {
  const uint64_t items = task.points * task.count;
  const std::size_t columns =
      kScalars + static_cast<std::size_t>(task.pool_count()) * kPoolMetricCount;
  // A run that keeps no rows also sorts every value by sketch bucket (kSortBytesPerValue).
  const std::size_t row_bytes = sizeof(double) * (columns + task.timeseries_stride()) +
                                (task.summary ? columns * kSortBytesPerValue : 0);
  // Moments per replication: one Moments per column per kMomentBlock rows (rounded up below),
  // and per scalar metric for the paired differences of a run that keeps no rows.
  const std::size_t moment_block_bytes =
      sizeof(Moments) * (columns + (task.summary ? kScalars : 0));
  BatchPlan plan;
  const std::size_t available =
      limits.memory_bytes > 0 ? limits.memory_bytes : device.free_memory_bytes / 10 * 9;
  plan.budget_bytes = available > model_bytes ? available - model_bytes : 0;

  // One block of rows for every point must fit beside one arena.
  const std::size_t min_rows_bytes =
      task.points * (std::min<uint64_t>(kMomentBlock, task.count) * row_bytes + moment_block_bytes);
  // Arenas come in groups of kArenaLanes (interleaved; arena_ptr.hpp), one at least.
  const std::size_t group_bytes = kArenaLanes * arena_bytes;
  if (plan.budget_bytes < group_bytes + min_rows_bytes)
    throw RunError(std::string(kBackendName) + ": not enough device memory: " +
                   (kArenaLanes > 1 ? "a group of " + std::to_string(kArenaLanes) +
                                          " replications (their arenas interleaved) needs "
                                    : std::string("a replication needs ")) +
                   megabytes(group_bytes) + " of state and a batch " + megabytes(min_rows_bytes) +
                   " of results, but only " + megabytes(plan.budget_bytes) +
                   " are free for the run");

  // Workers: enough to fill the device, no more than items, their arenas in at most half the
  // budget and leaving room for one block of rows.
  const std::size_t arena_room =
      std::min(plan.budget_bytes / 2, plan.budget_bytes - min_rows_bytes);
  uint64_t workers = limits.workers > 0 ? limits.workers : resident_threads(device);
  workers = std::min<uint64_t>(workers, items);
  workers = std::min<uint64_t>(workers, arena_room / group_bytes * kWorkersPerGroup);
  workers = std::max<uint64_t>(workers, 1);
  plan.workers = workers;

  // Replications per point per batch: what fits in the rest; about kTargetBatches batches when
  // each still gives every worker kItemsPerWorker items; whole moment blocks.
  const std::size_t per_replication_bytes =
      task.points * (row_bytes + (moment_block_bytes + kMomentBlock - 1) / kMomentBlock);
  const uint64_t fits =
      (plan.budget_bytes - arena_groups(workers) * group_bytes) / per_replication_bytes;
  const uint64_t busy = (workers * kItemsPerWorker + task.points - 1) / task.points;
  // (With several devices, about kTargetBatches per device, which they take as they finish.)
  const uint64_t target = kTargetBatches * device_count;
  uint64_t batch = std::max<uint64_t>((task.count + target - 1) / target, busy);
  if (limits.batch_replications > 0) batch = limits.batch_replications;
  batch = std::min<uint64_t>({batch, fits, task.count});
  if (batch < task.count)
    batch = std::max<uint64_t>(kMomentBlock, batch / kMomentBlock * kMomentBlock);
  plan.batch_count = std::min<uint64_t>(batch, task.count);
  return plan;
}

DeviceProbe probe_devices();

/// The devices a run uses, by index: limits.devices (each once, each one the probe lists),
/// or every device the probe lists. Throws std::invalid_argument for others.
std::vector<int> devices_to_use(const DeviceLimits& limits, const DeviceProbe& probe) {
  std::vector<int> all;
  for (const DeviceInfo& d : probe.devices) all.push_back(d.index);
  if (limits.devices.empty()) return all;
  std::string listed;
  for (const DeviceInfo& d : probe.devices)
    listed += (listed.empty() ? "" : ", ") + std::to_string(d.index) + " (" + d.name + ")";
  for (std::size_t i = 0; i < limits.devices.size(); ++i) {
    const int want = limits.devices[i];
    if (std::find(all.begin(), all.end(), want) == all.end())
      throw std::invalid_argument("device " + std::to_string(want) + " does not exist; " +
                                  kBackendName + " sees " +
                                  (listed.empty() ? std::string("none") : listed));
    if (std::find(limits.devices.begin(), limits.devices.begin() + i, want) !=
        limits.devices.begin() + i)
      throw std::invalid_argument("device " + std::to_string(want) + " is named twice");
  }
  return limits.devices;
}

/// The device buffers of a run that keeps no rows (ReplicationTask::summary), for batches of up
/// to `batch_count` replications per point.
struct BatchSummaryBuffers {
  BatchSummaryBuffers(const ReplicationTask& task, const GoalTests& goals, uint64_t batch_count,
                      uint64_t max_blocks)
      : values_per_batch(
            task.points * batch_count *
            (kScalars + static_cast<std::size_t>(task.pool_count()) * kPoolMetricCount)),
        differences(task.points * max_blocks * kScalars),
        tests(goals.tests.size()),
        goal_first(goals.first.size()),
        goal_met(task.points * (goals.first.size() - 1)),
        keys(values_per_batch),
        values(values_per_batch),
        bucket_keys(values_per_batch),
        bucket_counts(values_per_batch),
        bucket_min(values_per_batch),
        bucket_max(values_per_batch) {
    upload(goals.tests.data(), goals.tests.size(), tests);
    upload(goals.first.data(), goals.first.size(), goal_first);
  }
  std::size_t values_per_batch;
  DeviceBuffer<Moments> differences;  ///< [point][block][scalar metric]
  DeviceBuffer<ConditionTest> tests;
  DeviceBuffer<uint32_t> goal_first;
  DeviceBuffer<uint64_t> goal_met;  ///< [point][goal]
  DeviceBuffer<uint64_t> keys;      ///< SketchKeys, then sorted
  DeviceBuffer<double> values;
  DeviceBuffer<uint64_t> bucket_keys, bucket_counts;
  DeviceBuffer<double> bucket_min, bucket_max;
};

/// Replications of every point claimed by the devices so far (a device claims its next batch
/// by adding its batch size), errors and cancellation shared by the devices of one run.
struct SharedCursor {
  std::atomic<uint64_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex summary_mutex;  ///< guards the sketches and goal counts of ReplicationTask::summary
};

/// Adds a batch's sketch buckets (sorted keys; kNoBucket last) and goal counts ([point][goal])
/// to the run's summary, under the cursor's lock (devices and the host add as they finish).
void add_to_summary(const ReplicationTask& task, const std::vector<uint64_t>& keys,
                    const std::vector<uint64_t>& counts, const std::vector<double>& min,
                    const std::vector<double>& max, const std::vector<uint64_t>& goal_met,
                    SharedCursor& cursor) {
  const std::lock_guard<std::mutex> lock(cursor.summary_mutex);
  ChunkSummary& summary = *task.summary;
  for (std::size_t i = 0; i < keys.size() && keys[i] != kNoBucket; ++i)
    summary.sketches[keys[i] >> 32].add_bucket(static_cast<uint32_t>(keys[i]), counts[i], min[i],
                                               max[i]);
  for (std::size_t i = 0; i < goal_met.size(); ++i) summary.goal_met[i] += goal_met[i];
}

/// A batch of `count` replications per point (from replication task.first + done), whose rows
/// are in `scalars` and `pool_values` on the device, reduced there to its part of the chunk
/// summary: the paired differences into summary->difference_blocks, and the sketch buckets and
/// goal counts added to the summary (add_to_summary). Only those cross to the host.
void reduce_batch(const ReplicationTask& task, const DeviceBuffer<double>& scalars,
                  const DeviceBuffer<double>& pool_values, uint64_t count, uint64_t done,
                  BatchSummaryBuffers& b, SharedCursor& cursor) {
  const std::size_t pool_stride = static_cast<std::size_t>(task.pool_count()) * kPoolMetricCount;
  const uint64_t blocks = (count + kMomentBlock - 1) / kMomentBlock;
  const uint64_t total_blocks = (task.count + kMomentBlock - 1) / kMomentBlock;
  const uint64_t goal_count = b.goal_first.size() - 1;
  const uint64_t values = task.points * count * (kScalars + pool_stride);
  launch(DifferenceBlocks{scalars.get(), count, blocks, b.differences.get()},
         task.points * blocks * kScalars);
  launch(CountGoals{scalars.get(), pool_values.get(), count, pool_stride, b.tests.get(),
                    b.goal_first.get(), goal_count, b.goal_met.get()},
         task.points * goal_count);
  launch(SketchKeys{scalars.get(), pool_values.get(), count, pool_stride, b.keys.get(),
                    b.values.get()},
         values);
  // Values by (point, column, bucket), then one (count, smallest, largest) per bucket. Raw
  // pointers under the device policy: Thrust's device_ptr references would read through a
  // null system pointer on the OpenMP system (undefined behaviour that UBSan reports).
  uint64_t* keys_first = b.keys.get();
  thr::sort_by_key(thr::device, keys_first, keys_first + values, b.values.get());
  const auto runs = thr::make_zip_iterator(
      thr::make_tuple(thr::make_constant_iterator<uint64_t>(1), b.values.get(), b.values.get()));
  const auto buckets_out = thr::make_zip_iterator(
      thr::make_tuple(b.bucket_counts.get(), b.bucket_min.get(), b.bucket_max.get()));
  const auto ends =
      thr::reduce_by_key(thr::device, keys_first, keys_first + values, runs, b.bucket_keys.get(),
                         buckets_out, thr::equal_to<uint64_t>(), BucketMerge{});
  const std::size_t buckets = static_cast<std::size_t>(ends.first - b.bucket_keys.get());
  std::vector<uint64_t> keys(buckets), counts(buckets), goal_met(task.points * goal_count);
  std::vector<double> min(buckets), max(buckets);
  download(b.bucket_keys, 0, buckets, keys.data());
  download(b.bucket_counts, 0, buckets, counts.data());
  download(b.bucket_min, 0, buckets, min.data());
  download(b.bucket_max, 0, buckets, max.data());
  download(b.goal_met, 0, goal_met.size(), goal_met.data());
  for (std::size_t p = 0; p < task.points; ++p)
    download(b.differences, p * blocks * kScalars, blocks * kScalars,
             task.summary->difference_blocks.data() +
                 (p * total_blocks + done / kMomentBlock) * kScalars);
  add_to_summary(task, keys, counts, min, max, goal_met, cursor);
}

/// One device's part of a run: it claims batches of `plan.batch_count` replications (per
/// point) from `cursor` until none is left, runs each, and copies its rows and block moments to
/// the task's host arrays, at the rows of those replications. Batches start on whole moment
/// blocks, so any split between devices gives the same bits.
DeviceRunStats run_device_part(const ReplicationTask& task, const DeviceLimits& limits,
                               int device_index, std::size_t device_count, SharedCursor& cursor) {
  DeviceRunStats stats;
#if GPUCAP_DEVICE_IS_CUDA
  check_cuda(cudaSetDevice(device_index), "cudaSetDevice");
#else
  // The device's share of the host's threads for its parallel loops.
  if (device_count > 1)
    omp_set_num_threads(std::max(1, omp_get_max_threads() / static_cast<int>(device_count)));
#endif
  const DeviceModels models(task);
  const DeviceInfo device = describe_device(device_index);  // free memory after the models are in
  std::size_t arena_bytes = 0;
  for (std::size_t p = 0; p < task.points; ++p)
    arena_bytes = std::max(arena_bytes, replication_arena_bytes(task.models[p].model()));
  arena_bytes = (arena_bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
  // An explicit memory cap covers the models too; the free memory was read with them loaded.
  const std::size_t model_bytes = limits.memory_bytes > 0 ? models.bytes() : 0;
  const BatchPlan plan = plan_batches(task, limits, device, model_bytes, arena_bytes, device_count);
  std::size_t calendar_bytes = 0;
  for (std::size_t p = 0; p < task.points; ++p)
    calendar_bytes = std::max(calendar_bytes, replication_calendar_bytes(task.models[p].model()));
  const CalendarPlacement calendars = place_calendars(device, calendar_bytes);

  const std::size_t pool_stride = static_cast<std::size_t>(task.pool_count()) * kPoolMetricCount;
  const std::size_t columns = kScalars + pool_stride;
  const uint64_t max_blocks = (plan.batch_count + kMomentBlock - 1) / kMomentBlock;
  const std::size_t arena_memory_bytes = arena_groups(plan.workers) * kArenaLanes * arena_bytes;
  DeviceBuffer<unsigned char> arenas(arena_memory_bytes);
  DeviceBuffer<double> scalars(task.points * plan.batch_count * kScalars);
  DeviceBuffer<double> pool_values(task.points * plan.batch_count * pool_stride);
  const std::size_t series_stride = task.timeseries_stride();
  DeviceBuffer<double> timeseries(task.points * plan.batch_count * series_stride);
  DeviceBuffer<Moments> moments(task.block_moments ? task.points * max_blocks * columns : 0);
  DeviceBuffer<Counter> counters(kCounterCount);
  // The OpenMP system's stand-in for shared memory: one group of calendars per group of arenas.
  DeviceBuffer<unsigned char> calendar_memory(calendars.bytes > 0 && !GPUCAP_DEVICE_IS_CUDA
                                                  ? arena_groups(plan.workers) * kArenaLanes *
                                                        calendars.bytes
                                                  : 0);
  const GoalTests goals = task.summary ? goal_tests(*task.goals) : GoalTests{};
  const std::unique_ptr<BatchSummaryBuffers> reduced =
      task.summary
          ? std::make_unique<BatchSummaryBuffers>(task, goals, plan.batch_count, max_blocks)
          : nullptr;

  stats.device = device_label(device);
  if (kArenaLanes > 1) stats.device += ", arenas interleaved by " + std::to_string(kArenaLanes);
  if (calendars.bytes > 0)
    stats.device += std::string(GPUCAP_DEVICE_IS_CUDA ? ", calendars in shared memory ("
                                                      : ", calendars apart (") +
                    std::to_string(calendars.bytes) + " B each)";
  stats.workers = plan.workers;
  stats.arena_bytes = arena_bytes;
  stats.arena_memory_bytes = arena_memory_bytes;
  stats.memory_budget_bytes = plan.budget_bytes;
  const uint64_t total_blocks = (task.count + kMomentBlock - 1) / kMomentBlock;
  while (!cursor.stop.load(std::memory_order_relaxed)) {
    const uint64_t done = cursor.next.fetch_add(plan.batch_count);
    if (done >= task.count) break;
    const uint64_t count = std::min<uint64_t>(plan.batch_count, task.count - done);
    const Counter start[kCounterCount] = {0, ~Counter{0}};
    upload(start, kCounterCount, counters);
    const SimulateItems simulate{models.views(),
                                 task.seed,
                                 task.first + done,
                                 count,
                                 task.points * count,
                                 arenas.get(),
                                 kArenaLanes * arena_bytes,
                                 scalars.get(),
                                 pool_values.get(),
                                 pool_stride,
                                 series_stride ? timeseries.get() : nullptr,
                                 series_stride,
                                 counters.get(),
                                 calendars.bytes,
                                 calendar_memory.get()};
    launch(simulate, std::min<uint64_t>(plan.workers, task.points * count), calendars.shared_bytes);
    Counter result[kCounterCount];
    download(counters, 0, kCounterCount, result);  // waits for the workers
    if (result[kFirstFailure] != ~Counter{0}) {
      const uint64_t point = result[kFirstFailure] / count;
      throw RunError("replication " +
                     std::to_string(task.first + done + result[kFirstFailure] % count) +
                     (task.points > 1 ? " of point " + std::to_string(point) : "") +
                     " overflowed its event calendar; this is a gpucap bug, please report it");
    }
    const uint64_t blocks = (count + kMomentBlock - 1) / kMomentBlock;
    if (task.block_moments) {
      const ReduceBlocks reduce{scalars.get(), pool_values.get(), count,
                                blocks,        pool_stride,       moments.get()};
      launch(reduce, task.points * blocks * columns);
    }
    if (reduced) reduce_batch(task, scalars, pool_values, count, done, *reduced, cursor);
    for (std::size_t p = 0; p < task.points; ++p) {
      const std::size_t host_row = p * task.count + done;
      if (task.block_moments)
        download(moments, p * blocks * columns, blocks * columns,
                 task.block_moments + (p * total_blocks + done / kMomentBlock) * columns);
      if (reduced) continue;  // no rows to the host
      download(scalars, p * count * kScalars, count * kScalars, task.scalars + host_row * kScalars);
      download(pool_values, p * count * pool_stride, count * pool_stride,
               task.pool_values + host_row * pool_stride);
      download(timeseries, p * count * series_stride, count * series_stride,
               task.timeseries + host_row * series_stride);
    }
    ++stats.batches;
    if (task.progress) task.progress->advance(task.points * count);
    if (task.monitor) task.monitor->done.fetch_add(task.points * count);
    if (task.cancelled()) throw RunCancelled();
  }
  return stats;
}

/// The host's part of a run beside the devices (DeviceLimits::host_threads): it claims batches
/// of `batch` replications (whole moment blocks) from `cursor` until none is left, runs each on
/// `threads` CPU threads straight into the task's host arrays, and reduces the blocks' moments
/// as the device does (ReduceBlocks: the same block_moments of the same rows). A run that keeps
/// no rows runs each batch into rows of its own and reduces them with the device's functors
/// (batch_reduction.hpp), its sketches directly: the same bits as the device's.
DeviceRunStats run_host_part(const ReplicationTask& task, int threads, uint64_t batch,
                             SharedCursor& cursor) {
  DeviceRunStats stats;
  stats.device = "host, " + std::to_string(threads) + " threads";
  stats.workers = static_cast<uint64_t>(threads);
  const std::size_t pool_stride = static_cast<std::size_t>(task.pool_count()) * kPoolMetricCount;
  const std::size_t columns = kScalars + pool_stride;
  const std::size_t series_stride = task.timeseries_stride();
  const uint64_t total_blocks = (task.count + kMomentBlock - 1) / kMomentBlock;
  const GoalTests goals = task.summary ? goal_tests(*task.goals) : GoalTests{};
  const uint64_t goal_count = goals.first.size() - 1;
  std::vector<double> own_scalars, own_pools;  // a run that keeps no rows: [point][row][...]
  while (!cursor.stop.load(std::memory_order_relaxed)) {
    const uint64_t done = cursor.next.fetch_add(batch);
    if (done >= task.count) break;
    const uint64_t count = std::min<uint64_t>(batch, task.count - done);
    if (task.summary) {
      own_scalars.assign(task.points * count * kScalars, 0.0);
      own_pools.assign(task.points * count * pool_stride, 0.0);
    }
    for (std::size_t p = 0; p < task.points; ++p) {
      const std::size_t row = p * task.count + done;
      ReplicationTask part = task;
      part.models = task.models + p;
      part.points = 1;
      part.first = task.first + done;
      part.count = count;
      part.scalars =
          task.summary ? own_scalars.data() + p * count * kScalars : task.scalars + row * kScalars;
      part.pool_values = task.summary ? own_pools.data() + p * count * pool_stride
                                      : task.pool_values + row * pool_stride;
      part.timeseries = series_stride ? task.timeseries + row * series_stride : nullptr;
      part.block_moments = nullptr;
      part.summary = nullptr;
      run_replications_cpu(part, threads);  // advances progress and the monitor itself
      if (!task.block_moments) continue;
      for (uint64_t b = 0; b * kMomentBlock < count; ++b) {
        const uint64_t n = std::min<uint64_t>(kMomentBlock, count - b * kMomentBlock);
        Moments* out = task.block_moments + (p * total_blocks + done / kMomentBlock + b) * columns;
        const double* scalars = part.scalars + b * kMomentBlock * kScalars;
        const double* pools = part.pool_values + b * kMomentBlock * pool_stride;
        for (std::size_t c = 0; c < columns; ++c)
          out[c] = c < static_cast<std::size_t>(kScalars)
                       ? block_moments(scalars + c, n, kScalars)
                       : block_moments(pools + (c - kScalars), n, pool_stride);
      }
    }
    if (task.summary) {
      const uint64_t blocks = (count + kMomentBlock - 1) / kMomentBlock;
      std::vector<Moments> differences(task.points * blocks * kScalars);
      const DifferenceBlocks difference{own_scalars.data(), count, blocks, differences.data()};
      for (uint64_t i = 0; i < differences.size(); ++i) difference(i);
      for (std::size_t p = 0; p < task.points; ++p)
        std::copy_n(differences.begin() + p * blocks * kScalars, blocks * kScalars,
                    task.summary->difference_blocks.begin() +
                        (p * total_blocks + done / kMomentBlock) * kScalars);
      std::vector<uint64_t> goal_met(task.points * goal_count);
      const CountGoals count_goals{own_scalars.data(), own_pools.data(),   count,
                                   pool_stride,        goals.tests.data(), goals.first.data(),
                                   goal_count,         goal_met.data()};
      for (uint64_t i = 0; i < goal_met.size(); ++i) count_goals(i);
      std::vector<QuantileSketch> sketches(task.points * columns);
      for (std::size_t p = 0; p < task.points; ++p)
        for (uint64_t r = 0; r < count; ++r)
          for (std::size_t c = 0; c < columns; ++c) {
            const std::size_t item = p * count + r;
            const double x = c < static_cast<std::size_t>(kScalars)
                                 ? own_scalars[item * kScalars + c]
                                 : own_pools[item * pool_stride + (c - kScalars)];
            if (x == x) sketches[p * columns + c].add(x);
          }
      const std::lock_guard<std::mutex> lock(cursor.summary_mutex);
      for (std::size_t k = 0; k < sketches.size(); ++k)
        task.summary->sketches[k].merge(sketches[k]);
      for (std::size_t i = 0; i < goal_met.size(); ++i) task.summary->goal_met[i] += goal_met[i];
    }
    ++stats.batches;
  }
  return stats;
}

/// run_device_part with the backend's errors as RunError (the device named when there are
/// several).
DeviceRunStats run_device_part_checked(const ReplicationTask& task, const DeviceLimits& limits,
                                       int device_index, std::size_t device_count,
                                       SharedCursor& cursor) {
  const std::string where =
      std::string(kBackendName) +
      (device_count > 1 ? " device " + std::to_string(device_index) : std::string()) + ": ";
  try {
    return run_device_part(task, limits, device_index, device_count, cursor);
  } catch (const RunCancelled&) {
    throw;
  } catch (const RunError& e) {
    if (device_count > 1) throw RunError(where + e.what());
    throw;
  } catch (const std::bad_alloc&) {
    throw RunError(where +
                   "device memory allocation failed (another process may be using the "
                   "device)");
  } catch (const std::exception& e) {
    throw RunError(where + e.what());
  }
}

DeviceRunStats run_on_device(const ReplicationTask& task, const DeviceLimits& limits) {
  if (task.block_moments && task.first % kMomentBlock != 0)
    throw RunError("device backends reduce moments only from a replication that is a multiple of " +
                   std::to_string(kMomentBlock));
  if (task.summary) {
    const ChunkSummary& c = *task.summary;
    const std::size_t columns =
        kScalars + static_cast<std::size_t>(task.pool_count()) * kPoolMetricCount;
    if (!task.goals || c.points != task.points || c.columns != columns ||
        c.goals != task.goals->size() || c.first != task.first || c.count != task.count ||
        task.block_moments != c.blocks.data() || task.scalars || task.pool_values ||
        task.timeseries)
      throw std::logic_error(
          "a device run that keeps no rows needs a summary of its shape "
          "(empty_chunk_summary), its blocks as block_moments, and no rows");
    if (task.points * columns >= (uint64_t{1} << 32) - 1)
      throw RunError(std::to_string(task.points) + " points of " + std::to_string(columns) +
                     " metric columns are too many to reduce on the device; keep rows");
  }
  const std::vector<int> devices = devices_to_use(limits, probe_devices());
  if (devices.empty()) throw RunError(std::string(kBackendName) + ": no device to run on");
  if (task.points == 0 || task.count == 0) return DeviceRunStats{};
  if (limits.host_threads < 0 || limits.host_threads > kMaxThreads)
    throw std::invalid_argument("host threads must be from 0 to " + std::to_string(kMaxThreads) +
                                ", got " + std::to_string(limits.host_threads));
  SharedCursor cursor;
  const bool with_host = limits.host_threads > 0;
  if (devices.size() == 1 && !with_host)
    return run_device_part_checked(task, limits, devices[0], 1, cursor);

  // One host thread per device, and one for the host's part; the first error (in device order,
  // the host's last) stops the others after their current batch and is the one reported.
  const std::size_t parts_count = devices.size() + (with_host ? 1 : 0);
  std::vector<DeviceRunStats> parts(parts_count);
  std::vector<std::exception_ptr> errors(parts_count);
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < devices.size(); ++k)
    threads.emplace_back([&, k] {
      try {
        // (The host counts as a device for the batches' size: more, smaller batches.)
        parts[k] = run_device_part_checked(task, limits, devices[k], parts_count, cursor);
      } catch (...) {
        errors[k] = std::current_exception();
        cursor.stop = true;
      }
    });
  if (with_host) {
    // Small batches, whole moment blocks, at least two replications per thread: the host
    // finishes one soon after the devices run out, and takes more where they are slow.
    const uint64_t per_thread = 2 * static_cast<uint64_t>(limits.host_threads);
    const uint64_t batch = (per_thread + kMomentBlock - 1) / kMomentBlock * kMomentBlock;
    threads.emplace_back([&, batch] {
      try {
        parts.back() = run_host_part(task, limits.host_threads, batch, cursor);
      } catch (...) {
        errors.back() = std::current_exception();
        cursor.stop = true;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  DeviceRunStats stats;
  stats.device = devices.size() > 1 ? std::to_string(devices.size()) + " devices: " : "";
  for (std::size_t k = 0; k < parts_count; ++k) {
    stats.device += (k ? " + " : "") + parts[k].device;
    stats.batches += parts[k].batches;
    stats.workers += parts[k].workers;
    stats.memory_budget_bytes += parts[k].memory_budget_bytes;
    stats.arena_bytes = std::max(stats.arena_bytes, parts[k].arena_bytes);
    stats.arena_memory_bytes += parts[k].arena_memory_bytes;
  }
  return stats;
}

DeviceProbe probe_devices_untimed() {
  DeviceProbe probe;
#if GPUCAP_DEVICE_IS_CUDA
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    cudaGetLastError();
    probe.why_none = std::string("no usable CUDA driver or device: ") + cudaGetErrorString(error) +
                     " (" + cudaGetErrorName(error) + ")";
    return probe;
  }
  if (count == 0) {
    probe.why_none = "the CUDA driver reports no devices";
    return probe;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    DeviceInfo d;
    d.index = i;
    d.name = prop.name;
    d.compute_major = prop.major;
    d.compute_minor = prop.minor;
    d.multiprocessors = prop.multiProcessorCount;
    d.total_memory_bytes = prop.totalGlobalMem;
    if (cudaSetDevice(i) == cudaSuccess) {
      std::size_t free_bytes = 0, total_bytes = 0;
      if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess)
        d.free_memory_bytes = free_bytes;
    }
    cudaGetLastError();
    probe.devices.push_back(d);
  }
  cudaSetDevice(0);
  if (probe.devices.empty()) {
    probe.why_none = "no CUDA device could be queried";
  } else if (probe.devices[0].compute_major * 10 + probe.devices[0].compute_minor <
             GPUCAP_CUDA_MIN_ARCH) {
    const DeviceInfo& d = probe.devices[0];
    probe.why_none =
        "device 0 (" + device_label(d) + ") is older than this build's targets (" + kTargets + ")";
  }
#else
  try {
    for (int i = 0, n = simulated_device_count(); i < n; ++i)
      probe.devices.push_back(describe_device(i));
  } catch (const std::invalid_argument& e) {
    probe.why_none = e.what();
  }
#endif
  return probe;
}

/// probe_devices_untimed, with each device's start-up: what the first probe of this process
/// took (on CUDA the driver's start and a context on each device; later probes find them up).
DeviceProbe probe_devices() {
  static std::mutex first_mutex;
  static double first_probe_s = -1;
  const auto start = std::chrono::steady_clock::now();
  DeviceProbe probe = probe_devices_untimed();
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::lock_guard<std::mutex> lock(first_mutex);
  if (first_probe_s < 0) first_probe_s = took;
#if GPUCAP_DEVICE_IS_CUDA
  for (DeviceInfo& d : probe.devices) d.startup_s = first_probe_s;
#endif
  return probe;
}

}  // namespace

#if GPUCAP_DEVICE_IS_CUDA
BackendCode cuda_backend_code() { return {kBackendName, kTargets, &probe_devices, &run_on_device}; }
#else
BackendCode thrust_omp_backend_code() {
  return {kBackendName, kTargets, &probe_devices, &run_on_device};
}
#endif

}  // namespace gpucap
