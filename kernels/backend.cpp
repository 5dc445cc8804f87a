// gpucap: the backend table, and how a run's choice resolves on this machine.
#include "gpucap/backend.hpp"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "backend_code.hpp"

namespace gpucap {

static_assert(static_cast<std::size_t>(BackendChoice::automatic) == kBackendCount,
              "BackendChoice lists the table's rows, in order, then automatic");

namespace {

/// A row: the table's own facts, and the code when this build has it.
Backend row(const char* name, BackendKind kind, const char* description, bool automatic,
            const char* not_built, const BackendCode* code) {
  if (!code) return {name, kind, description, automatic, not_built, "", "", nullptr, nullptr};
  return {name,        kind,          description, automatic, "",
          code->label, code->targets, code->probe, code->run};
}

/// The background probe of warm_up_devices: waited for before any other probe, and at exit.
/// Its thread is detached and says when it is done: a thread left joinable would be reported
/// as leaked by ThreadSanitizer when a signal ends the process (_exit) before anyone joins it.
struct DeviceWarmUp {
  std::mutex mutex;
  std::condition_variable done_changed;
  bool started = false;
  bool done = false;
  ~DeviceWarmUp() { wait(); }
  void wait() {
    std::unique_lock<std::mutex> lock(mutex);
    done_changed.wait(lock, [this] { return !started || done; });
  }
};

DeviceWarmUp& device_warm_up() {
  static DeviceWarmUp warm_up;
  return warm_up;
}

/// Waits for warm_up_devices' probe, if one runs.
void wait_for_warm_up() { device_warm_up().wait(); }

}  // namespace

void warm_up_devices() {
  DeviceWarmUp& w = device_warm_up();
  const std::lock_guard<std::mutex> lock(w.mutex);
  if (w.started) return;
  w.started = true;
  std::thread([&w] {
    for (const Backend& b : backends())
      if (b.automatic && b.built()) b.probe();
    const std::lock_guard<std::mutex> done_lock(w.mutex);
    w.done = true;
    w.done_changed.notify_all();  // under the lock: the waiter returns only after it is released
  }).detach();
}

const std::array<Backend, kBackendCount>& backends() {
  static const std::array<Backend, kBackendCount> table = [] {
    const BackendCode cpu = cpu_backend_code();
#if GPUCAP_HAVE_CUDA_BACKEND
    const BackendCode cuda_code = cuda_backend_code();
    const BackendCode* cuda = &cuda_code;
#else
    const BackendCode* cuda = nullptr;
#endif
#if GPUCAP_HAVE_THRUST_OMP_BACKEND
    const BackendCode omp_code = thrust_omp_backend_code();
    const BackendCode* omp = &omp_code;
#else
    const BackendCode* omp = nullptr;
#endif
    // The order is BackendChoice's.
    return std::array<Backend, kBackendCount>{
        row("cpu", BackendKind::cpu, "OpenMP threads over replications on this machine's cores",
            false, "", &cpu),
        row("cuda", BackendKind::device, "one NVIDIA GPU (device 0), through CUDA", true,
            "GPUCAP_ENABLE_CUDA was OFF or nvcc was not found when gpucap was configured; "
            "rebuild with -DGPUCAP_ENABLE_CUDA=ON on a machine with the CUDA toolkit",
            cuda),
        row("thrust-omp", BackendKind::device,
            "the device kernels on this machine's cores, through Thrust's OpenMP system (for "
            "testing)",
            false, "the CCCL headers or OpenMP were not found when gpucap was configured", omp),
    };
  }();
  return table;
}

const Backend* find_backend(const std::string& name) {
  for (const Backend& b : backends())
    if (name == b.name) return &b;
  return nullptr;
}

std::vector<std::string> backend_choice_names() {
  std::vector<std::string> names{kAutoBackendName};
  for (const Backend& b : backends()) names.push_back(b.name);
  return names;
}

BackendChoice parse_backend(const std::string& name) {
  if (name == kAutoBackendName) return BackendChoice::automatic;
  if (const Backend* b = find_backend(name))
    return static_cast<BackendChoice>(b - backends().data());
  std::string valid;
  for (const std::string& n : backend_choice_names()) valid += (valid.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown backend '" + name + "'; valid: " + valid);
}

const Backend& resolve_backend(BackendChoice choice) {
  wait_for_warm_up();
  const auto& table = backends();
  if (choice == BackendChoice::automatic) {
    for (const Backend& b : table)
      if (b.automatic && b.built() && b.probe().usable()) return b;
    return table[static_cast<std::size_t>(BackendChoice::cpu)];
  }
  const Backend& b = table.at(static_cast<std::size_t>(choice));
  if (!b.built())
    throw BackendUnavailable(std::string("backend ") + b.name + ": this build of gpucap has no " +
                             b.name + " backend (" + b.not_built + ")");
  const DeviceProbe probe = b.probe();
  if (!probe.usable())
    throw BackendUnavailable(std::string("backend ") + b.name + ": " +
                             (probe.why_none.empty() ? "no device found" : probe.why_none));
  return b;
}

BackendPick choose_backend(BackendChoice choice, const RunShape& shape, int host_threads,
                           const std::vector<int>& only_devices) {
  wait_for_warm_up();
  BackendPick pick;
  if (choice != BackendChoice::automatic) {
    pick.backend = &resolve_backend(choice);
    return pick;
  }
  const auto& table = backends();
  const Backend& cpu = table[static_cast<std::size_t>(BackendChoice::cpu)];
  pick.backend = &cpu;
  const int threads = resolve_thread_count(host_threads);
  std::string no_device = "no GPU backend in this build";
  for (const Backend& b : table) {
    if (!b.automatic || !b.built()) continue;
    const DeviceProbe probe = b.probe();
    if (!probe.usable()) {
      no_device = std::string("no usable ") + b.name + " device: " + probe.why_none;
      continue;
    }
    std::vector<DeviceDescription> devices;
    for (const DeviceInfo& d : probe.devices)
      if (only_devices.empty() ||
          std::find(only_devices.begin(), only_devices.end(), d.index) != only_devices.end())
        devices.push_back({d.name + " (sm_" + std::to_string(d.compute_major) +
                               std::to_string(d.compute_minor) + ")",
                           d.multiprocessors, d.free_memory_bytes, d.startup_s});
    if (devices.size() < only_devices.size()) {  // a device named twice or not there:
      pick.backend = &b;                          // the device backend's run says which
      return pick;
    }
    const BackendEstimate estimate = estimate_backends(shape, threads, devices);
    pick.why = estimate.reason(b.name, cpu.name);
    if (estimate.hybrid_best()) {
      pick.backend = &b;
      pick.host_threads = estimate.hybrid_host_threads;
    } else if (estimate.device_faster()) {
      pick.backend = &b;
    }
    return pick;
  }
  pick.why = estimate_backends(shape, threads, {}).reason("", cpu.name) + "; " + no_device;
  return pick;
}

}  // namespace gpucap
