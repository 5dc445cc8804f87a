// gpucap: what `--backend auto` runs on: the faster of the host's cores and a GPU for this run,
// from a cost model of both that needs nothing but what is known before the run starts.
//
//   gpucap::RunShape shape{replications, expected_events_per_replication(s), arena_bytes};
//   gpucap::BackendEstimate e = gpucap::estimate_backends(shape, {threads}, {h200});
//   e.device_faster(), e.reason()  // "cpu: 0.46 s on 16 CPU threads against 0.60 s on ..."
//
// The model (docs/backends.md, "What auto picks"): a run's work is replications x expected
// events (event_estimate.hpp). A host thread processes kHostEventsPerSecond; the CPU runs the
// replications on min(threads, replications) threads, never faster than its longest one. A GPU
// pays a start-up (context, module load, copies), then runs one replication per device thread:
// alone, a device thread is kDeviceThreadSlowdown times slower than a host thread; together,
// the device saturates at kDeviceHostThreadsPerSm host threads per SM. Its rate with n threads
// busy is the harmonic combination of the two limits, so a few long replications (a week of
// requests each) stay slow on the device and many short ones approach its full rate.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace gpucap {

/// Calibration, from an H200 (132 SMs) beside 16 host threads (issue 30's measurements).
struct BackendCostModel {
  /// Calendar events one host thread processes per second: 10.9 M on M/M/16, 7.2 M on
  /// default, 5.2 M on spot_training (16 threads of the H200's host, rows none).
  double host_events_per_second = 1.0e7;
  /// One device thread alone against one host thread: spot_inference_fallback, 256
  /// replications (a week of requests each) took 27.95 s on the H200 and 2.58 s on 16 threads,
  /// so 256 device threads did what 16 x 2.58 / 27.95 = 1.5 host threads do: 171 each.
  double device_thread_slowdown = 170;
  /// A saturated device, per SM, in host threads: M/M/16 579 M events/s on 132 SMs against
  /// 174 M on 16 threads (0.40), default 355 M against 115 M (0.37), spot_training 235 M
  /// against 83 M (0.34).
  double device_host_threads_per_sm = 0.37;
  /// Device threads resident per SM: the simulation kernel's occupancy at its 64 registers per
  /// thread, 4 blocks of 256 (tests/device/kernel_resource_budget.txt).
  double device_threads_per_sm = 1024;
  /// Seconds a device run spends before its first replication: a one-replication run took 0.34
  /// to 0.50 s on the H200 against 0.05 s on the CPU.
  double device_startup_s = 0.30;
};

/// What is known of a run before it starts.
struct RunShape {
  uint64_t replications = 0;            ///< of every point together
  double events_per_replication = 0;    ///< expected, the largest point's (event_estimate.hpp)
  uint64_t arena_bytes = 0;             ///< one replication's engine state
};

/// A device as the model sees it.
struct DeviceDescription {
  std::string name;                  ///< e.g. "NVIDIA H200 (sm_90)"
  int multiprocessors = 0;           ///< SMs
  uint64_t free_memory_bytes = 0;
  double startup_s = 0;              ///< measured; the model uses at least its calibration's
};

/// The model's expectation for one run: seconds on the CPU and on the devices.
struct BackendEstimate {
  double events = 0;          ///< replications x events per replication
  int host_threads = 0;
  double cpu_s = 0;
  bool has_device = false;    ///< false: no usable device, cpu_s only
  std::string device_name;    ///< the first device's, with " x N" for several
  double device_s = 0;        ///< start-up included
  double device_startup_s = 0;
  uint64_t device_threads = 0;  ///< replications running at once on the devices

  /// The devices and the CPU together (DeviceLimits::host_threads): the host's threads but one
  /// per device take batches beside them. The model splits the replications so both finish
  /// together; 0 replications to the device when it would not finish first even with one.
  double hybrid_s = 0;
  int hybrid_host_threads = 0;
  double hybrid_device_share = 0;  ///< of the replications, in [0, 1]

  bool device_faster() const { return has_device && device_s < cpu_s; }
  /// Both together, when the model expects them to beat the better alone by 10% or more (less
  /// is within the model's error, and a lone backend is simpler to reason about).
  bool hybrid_best() const {
    return has_device && hybrid_host_threads > 0 && hybrid_device_share > 0 &&
           hybrid_s < 0.9 * std::min(cpu_s, device_s);
  }
  /// One line: the choice, the times and what they rest on, e.g. "cpu: expected 0.38 s on 16
  /// CPU threads against 0.55 s on NVIDIA H200 (sm_90) (0.30 s start-up, 8192 replications at
  /// once); 61 M events expected". `device_backend` names the device's backend ("cuda").
  std::string reason(const std::string& device_backend, const std::string& cpu_backend) const;
};

/// The model's times for `shape` on `host_threads` CPU threads and on `devices` (empty: none
/// usable). Replications are shared by the devices as the multi-device path shares batches.
BackendEstimate estimate_backends(const RunShape& shape, int host_threads,
                                  const std::vector<DeviceDescription>& devices,
                                  const BackendCostModel& model = {});

}  // namespace gpucap
