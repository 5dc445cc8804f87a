// gpucap: the cost model behind `--backend auto` (backend_choice.hpp).
#include "gpucap/backend_choice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpucap {

namespace {

/// "0.46 s", "12.3 s", "1.2e+03 s": seconds for a one-line reason.
std::string seconds(double s) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, s < 100 ? "%.2f s" : "%.3g s", s);
  return buffer;
}

/// "74.0 M", "9.03 k", "5": a count in a few digits.
std::string count(double n) {
  char buffer[32];
  if (n >= 1e9)
    std::snprintf(buffer, sizeof buffer, "%.3g G", n / 1e9);
  else if (n >= 1e6)
    std::snprintf(buffer, sizeof buffer, "%.3g M", n / 1e6);
  else if (n >= 1e4)
    std::snprintf(buffer, sizeof buffer, "%.3g k", n / 1e3);
  else
    std::snprintf(buffer, sizeof buffer, "%.0f", n);
  return buffer;
}

}  // namespace

BackendEstimate estimate_backends(const RunShape& shape, int host_threads,
                                  const std::vector<DeviceDescription>& devices,
                                  const BackendCostModel& model) {
  BackendEstimate e;
  const double replications = static_cast<double>(shape.replications);
  const double per_replication = std::max(shape.events_per_replication, 1.0);
  e.events = replications * per_replication;
  e.host_threads = std::max(host_threads, 1);
  // The CPU: replications shared by its threads, never faster than its longest one.
  const double host_rate = model.host_events_per_second;
  const double busy_threads = std::max(1.0, std::min<double>(e.host_threads, replications));
  e.cpu_s = std::max(e.events / (busy_threads * host_rate), per_replication / host_rate);
  if (devices.empty() || shape.replications == 0) return e;

  e.has_device = true;
  const DeviceDescription& first = devices.front();
  e.device_name = first.name + (devices.size() > 1 ? " x " + std::to_string(devices.size()) : "");
  // The devices: each takes its share of `n` replications (batches from a shared cursor);
  // the slowest ends the run. `busy` receives the device threads running at once.
  const auto devices_s = [&](double n, double* busy_threads, double* startup_s) {
    const double share = std::ceil(n / static_cast<double>(devices.size()));
    double slowest = 0;
    for (const DeviceDescription& d : devices) {
      const double sms = std::max(d.multiprocessors, 1);
      // Resident workers, as many as the arenas' memory (half of 90% of the free memory) allows.
      double resident = sms * model.device_threads_per_sm;
      if (shape.arena_bytes > 0 && d.free_memory_bytes > 0)
        resident = std::min(resident, std::floor(0.45 * static_cast<double>(d.free_memory_bytes) /
                                                 static_cast<double>(shape.arena_bytes)));
      const double busy = std::max(1.0, std::min(share, resident));
      const double alone = busy * host_rate / model.device_thread_slowdown;
      const double saturated = sms * model.device_host_threads_per_sm * host_rate;
      const double rate = 1 / (1 / alone + 1 / saturated);
      const double startup = std::max(d.startup_s, model.device_startup_s);
      const double s = startup + share * per_replication / rate;
      if (s > slowest) {
        slowest = s;
        if (startup_s) *startup_s = startup;
      }
      if (busy_threads) *busy_threads += busy;
    }
    return slowest;
  };
  double busy = 0;
  e.device_s = devices_s(replications, &busy, &e.device_startup_s);
  e.device_threads = static_cast<uint64_t>(busy);

  // Both together: the host's threads but one per device (each device has a host thread that
  // drives it) beside the devices. The share to the devices that ends both at once, by
  // bisection (the devices' time grows with their share, the host's shrinks).
  e.hybrid_host_threads = e.host_threads - static_cast<int>(devices.size());
  if (e.hybrid_host_threads < 1) return e;
  const auto host_s = [&](double n) {
    if (n < 1) return 0.0;
    const double threads = std::min<double>(e.hybrid_host_threads, n);
    return std::max(n * per_replication / (threads * host_rate), per_replication / host_rate);
  };
  const auto device_part_s = [&](double n) { return n < 1 ? 0.0 : devices_s(n, nullptr, nullptr); };
  double low = 0, high = 1;
  for (int i = 0; i < 60; ++i) {
    const double mid = (low + high) / 2;
    if (device_part_s(mid * replications) < host_s((1 - mid) * replications))
      low = mid;
    else
      high = mid;
  }
  // Whole replications: the device's share rounded down (the host finishes what is left).
  const double to_device = std::floor(low * replications);
  e.hybrid_device_share = to_device / replications;
  e.hybrid_s = std::max(device_part_s(to_device), host_s(replications - to_device));
  return e;
}

std::string BackendEstimate::reason(const std::string& device_backend,
                                    const std::string& cpu_backend) const {
  const std::string cpu_part = seconds(cpu_s) + " on " + std::to_string(host_threads) +
                               " CPU thread" + (host_threads == 1 ? "" : "s");
  const std::string work = count(events) + " events expected";
  if (!has_device) return cpu_backend + ": expected " + cpu_part + "; " + work;
  if (hybrid_best()) {
    char share[32];
    std::snprintf(share, sizeof share, "%.0f%%", 100 * hybrid_device_share);
    return device_backend + " + " + std::to_string(hybrid_host_threads) + " CPU threads: expected " +
           seconds(hybrid_s) + " with " + share + " of the replications on " + device_name +
           ", against " + cpu_part + " and " + seconds(device_s) + " on " + device_name +
           " alone (" + seconds(device_startup_s) + " start-up); " + work;
  }
  const std::string device_part = seconds(device_s) + " on " + device_name + " (" +
                                  seconds(device_startup_s) + " start-up, " +
                                  count(static_cast<double>(device_threads)) +
                                  " replications at once)";
  return device_faster()
             ? device_backend + ": expected " + device_part + " against " + cpu_part + "; " + work
             : cpu_backend + ": expected " + cpu_part + " against " + device_part + "; " + work;
}

}  // namespace gpucap
