// gpucap benchmark: events and replications per second on M/M/c and on the cloud-model
// scenarios, for the CPU backend (1 thread and all threads) and a device backend, with the
// ratio device / CPU.
//
//   build/release/bench/engine_bench [--min-seconds S] [--device auto|cuda|thrust-omp|none]
//                                    [--device-scale K]
//
// A CPU measurement repeats batches of replications until at least S seconds (default 2) have
// run and reports the best batch (least disturbed by other load). A device measurement grows its
// batch until one batch runs S seconds, up to K times (default 1) a size that fills an H200
// several times over, and reports that batch, copies of the results to the host included.
// Events are calendar events (arrivals, run starts after provisioning, completions,
// preemptions, ...).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gpucap/backend.hpp"
#include "gpucap/compile.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/scenario_loader.hpp"

namespace {

// M/M/8 at utilization 0.9: lambda = 7.2 per hour, mean run time 1 hour.
const char* kMmc = R"(
name: bench M/M/8 rho 0.9
horizon: 2000h
pools:
  gpus: {gpu: H100, price_usd_per_gpu_hour: 2.0, quota: 8}
workloads:
  - name: jobs
    arrivals: {process: poisson, rate_per_hour: 7.2}
    work: {dist: exponential, mean: 1h}
policy: {queue_capacity: 2000}  # keeps the arena small (a few KiB per replication) for GPU occupancy
)";

struct Measurement {
  double events_per_s = 0;
  double replications_per_s = 0;
};

/// Events in the rows of one batch.
double events_of(const std::vector<double>& scalars, uint64_t batch) {
  double events = 0;
  for (uint64_t i = 0; i < batch; ++i)
    events += scalars[i * gpucap::kScalarMetricCount + gpucap::kEvents];
  return events;
}

/// Runs replications [first, first + batch) on the CPU (device null) or the device; seconds.
double time_batch(const gpucap::ModelStorage& storage, const gpucap::Backend* device, int threads,
                  uint64_t first, uint64_t batch, std::vector<double>& scalars) {
  std::vector<double> pool_values(batch * storage.model().pool_count * gpucap::kPoolMetricCount);
  scalars.resize(batch * gpucap::kScalarMetricCount);
  gpucap::ReplicationTask task;
  task.models = &storage;
  task.seed = 1;
  task.first = first;
  task.count = batch;
  task.scalars = scalars.data();
  task.pool_values = pool_values.data();
  const auto t0 = std::chrono::steady_clock::now();
  if (device)
    device->run(task, gpucap::DeviceLimits{});
  else
    gpucap::run_replications_cpu(task, threads);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// CPU: the best of repeated batches of `batch` replications, until min_seconds have run.
Measurement measure_cpu(const gpucap::ModelStorage& storage, int threads, uint64_t batch,
                        double min_seconds) {
  Measurement best;
  std::vector<double> scalars;
  double spent = 0;
  for (uint64_t first = 0; spent < min_seconds; first += batch) {
    const double s = time_batch(storage, nullptr, threads, first, batch, scalars);
    best.events_per_s = std::max(best.events_per_s, events_of(scalars, batch) / s);
    best.replications_per_s = std::max(best.replications_per_s, batch / s);
    spent += s;
  }
  return best;
}

/// Device: batches that grow (from 4096 replications, up to max_batch) until one runs for
/// min_seconds: a device is only fast when every worker is busy, and slow scenarios must not
/// run for minutes. The last (largest) batch is reported.
Measurement measure_device(const gpucap::ModelStorage& storage, const gpucap::Backend* device,
                           uint64_t max_batch, double min_seconds) {
  Measurement m;
  std::vector<double> scalars;
  uint64_t batch = std::min<uint64_t>(4096, max_batch);
  for (uint64_t first = 0;; first += batch) {
    const double s = time_batch(storage, device, 0, first, batch, scalars);
    m.events_per_s = events_of(scalars, batch) / s;
    m.replications_per_s = batch / s;
    if (s >= min_seconds || batch >= max_batch) break;
    const double grow = std::min(8.0, std::max(2.0, 1.2 * min_seconds / s));
    batch = std::min<uint64_t>(max_batch, static_cast<uint64_t>(batch * grow));
  }
  return m;
}

void print_row(const std::string& name, const std::string& on, const Measurement& m,
               const std::string& note) {
  std::printf("%-30s %-18s %10.2f M events/s %12.1f replications/s  %s\n", name.c_str(), on.c_str(),
              m.events_per_s / 1e6, m.replications_per_s, note.c_str());
}

std::string ratio(const char* label, double x) {
  char text[64];
  std::snprintf(text, sizeof text, "%s %.1fx", label, x);
  return text;
}

/// One scenario: CPU with 1 thread and all threads, then the device backend if any.
void report(const std::string& name, const gpucap::Scenario& scenario, uint64_t cpu_batch,
            uint64_t device_batch, const gpucap::Backend* device, double min_seconds) {
  const gpucap::ModelStorage storage = gpucap::compile(scenario);
  const int all = gpucap::resolve_thread_count(0);
  const Measurement one = measure_cpu(storage, 1, cpu_batch, min_seconds);
  const Measurement many = measure_cpu(storage, all, cpu_batch, min_seconds);
  print_row(name, "cpu, 1 thread", one, "");
  print_row(name, "cpu, " + std::to_string(all) + " threads", many,
            ratio("scaling", many.events_per_s / one.events_per_s));
  if (device) {
    const Measurement d = measure_device(storage, device, device_batch, min_seconds);
    print_row(name, device->name, d,
              ratio("vs 1 thread", d.events_per_s / one.events_per_s) + ", " +
                  ratio(("vs " + std::to_string(all) + " threads").c_str(),
                        d.events_per_s / many.events_per_s));
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Line by line even into a file: a benchmark stopped at a time limit keeps what it measured.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  double min_seconds = 2.0;
  double device_scale = 1.0;
  std::string device_name = "auto";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--min-seconds" && i + 1 < argc) {
      min_seconds = std::atof(argv[++i]);
    } else if (a == "--device" && i + 1 < argc) {
      device_name = argv[++i];
    } else if (a == "--device-scale" && i + 1 < argc) {
      device_scale = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: engine_bench [--min-seconds S] [--device auto|cuda|thrust-omp|none] "
                   "[--device-scale K]\n");
      return 2;
    }
  }
  try {
    const gpucap::Backend* device = nullptr;
    if (device_name != "none") {
      const gpucap::Backend& chosen = gpucap::resolve_backend(gpucap::parse_backend(device_name));
      if (chosen.kind == gpucap::BackendKind::device) device = &chosen;  // the cpu runs anyway
    }
    std::string on = "no device backend";
    if (device) {
      const gpucap::DeviceProbe probe = device->probe();
      on = std::string(device->name) + " on " + probe.devices.at(0).name;
    }
    std::printf("gpucap engine benchmark (%s, %d threads; %s; best batch of at least %.1f s)\n",
                gpucap::cpu_backend_name().c_str(), gpucap::resolve_thread_count(0), on.c_str(),
                min_seconds);
    const auto device_batch = [&](double n) {
      return std::max<uint64_t>(1, static_cast<uint64_t>(n * device_scale));
    };
    // $GPUCAP_SOURCE_DIR: the checkout, when a prebuilt bundle runs
    // (scripts/make_device_bundle.sh).
    const char* root = std::getenv("GPUCAP_SOURCE_DIR");
    const std::string scenarios =
        std::string(root && *root ? root : GPUCAP_SOURCE_DIR) + "/scenarios/";
    report("M/M/8 rho=0.9", gpucap::parse_scenario(kMmc, "bench-mmc", "."), 64,
           device_batch(1 << 20), device, min_seconds);
    report("default (3 pools, 2 classes)", gpucap::load_scenario(scenarios + "default.yaml"), 64,
           device_batch(1 << 19), device, min_seconds);
    report("spot training (checkpoints)", gpucap::load_scenario(scenarios + "spot_training.yaml"),
           256, device_batch(1 << 20), device, min_seconds);
    report("trace-driven spot failover",
           gpucap::load_scenario(scenarios + "spot_availability_failover.yaml"), 256,
           device_batch(1 << 20), device, min_seconds);
    report("inference: serverless, daily",
           gpucap::load_scenario(scenarios + "serverless_vs_dedicated.yaml"), 2,
           device_batch(1 << 15), device, min_seconds);
    report("inference: 4 dedicated",
           gpucap::load_scenario(scenarios + "edge_vs_cloud_inference.yaml"), 2,
           device_batch(1 << 15), device, min_seconds);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "engine_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
