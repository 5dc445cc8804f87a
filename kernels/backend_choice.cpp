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

  // The devices: each takes its share of the replications (batches from a shared cursor).
  e.has_device = true;
  const DeviceDescription& first = devices.front();
  e.device_name = first.name + (devices.size() > 1 ? " x " + std::to_string(devices.size()) : "");
  const double share = std::ceil(replications / static_cast<double>(devices.size()));
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
      e.device_startup_s = startup;
    }
    e.device_threads += static_cast<uint64_t>(busy);
  }
  e.device_s = slowest;
  return e;
}

std::string BackendEstimate::reason(const std::string& device_backend,
                                    const std::string& cpu_backend) const {
  const std::string cpu_part = seconds(cpu_s) + " on " + std::to_string(host_threads) +
                               " CPU thread" + (host_threads == 1 ? "" : "s");
  const std::string work = count(events) + " events expected";
  if (!has_device) return cpu_backend + ": expected " + cpu_part + "; " + work;
  const std::string device_part = seconds(device_s) + " on " + device_name + " (" +
                                  seconds(device_startup_s) + " start-up, " +
                                  count(static_cast<double>(device_threads)) +
                                  " replications at once)";
  return device_faster()
             ? device_backend + ": expected " + device_part + " against " + cpu_part + "; " + work
             : cpu_backend + ": expected " + cpu_part + " against " + device_part + "; " + work;
}

}  // namespace gpucap
