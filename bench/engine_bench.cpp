// gpucap benchmark: the speed of the path users run, as ratios to a hand-written reference loop.
//
//   build/cpu-release/bench/engine_bench [--min-seconds S] [--scenarios NAME,...] [--json]
//                                        [--device auto|cuda|thrust-omp|none] [--device-scale K]
//   build/cpu-release/bench/engine_bench --verify-reference
//
// Each scenario (bench_scenarios.hpp) runs through gpucap::run_points, the entry `gpucap run`
// and Python's gpucap.run call, on the cpu backend with 1 thread, in batches taken in turns
// with the reference loop (reference_mmc.hpp: M/M/8 written by hand, with the engine's random
// numbers) in this process: reference, scenario, reference, scenario, ..., reference. Reported
// per scenario (paired_measurement.hpp):
//   ratio_to_reference      median over its batches of (its events/s) / (the reference's
//                           events/s around it): stable under other load on the machine
//   events_per_s            ratio_to_reference x reference_events_per_s, the median of all
//                           reference batches: its speed with the machine's drift taken out
//   cpu_ns_per_event,       medians over its batches of CPU time per event and per replication
//   cpu_ns_per_replication  (the replication's share of compiling and summarizing included,
//                           as in `gpucap run`)
// Times are CPU time of the measuring thread, not wall time; events are calendar events
// (arrivals, run starts after provisioning, completions, preemptions, ...). --min-seconds S
// (default 1): each scenario runs at least S CPU seconds (and 5 pairs), in batches of about S/12
// (at least one replication), the reference's beside them as long.
// --json prints one object (docs/performance.md lists its fields) instead of the table.
// --floors FILE (the CI guard, bench/speed_floors.txt): lines "SCENARIO RATIO"; after the
// measurement, exit 1 naming every scenario whose median ratio is below its floor. --quick: the
// floors' scenarios only, 2 CPU s each (under a minute on 2 cores). --slow-engine K (to test the
// guard): each scenario batch runs its replications K times, its events counted once.
// --verify-reference checks that the reference loop simulates mmc's futures: replications 0-15
// through run_points and through the loop process the same events, one by one.
//
// --device NAME (default auto: a GPU when one works): for each scenario with a device batch
// size, also events/s on the CPU with all threads and on that device backend (its table row's
// run, which run_points calls, without the host-side summary of a million replications), in
// wall time: CPU batches repeated for S seconds (the best reported), device batches grown from
// 4096 replications until one runs S seconds or reaches K (--device-scale, default 1) times the
// scenario's device batch. bench/device_check.sh runs this mode.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/backend.hpp"
#include "gpucap/compile.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/run.hpp"

#include "bench_scenarios.hpp"
#include "paired_measurement.hpp"
#include "reference_mmc.hpp"

namespace gb = gpucap::bench;

namespace {

constexpr int kExitUsage = 2;

struct Options {
  double min_seconds = 1.0;
  double device_scale = 1.0;
  std::string device = "auto";
  bool json = false;
  std::vector<std::string> scenarios;  ///< empty: all
  std::string floors;                  ///< --floors FILE: the guard
  bool quick = false;
  uint64_t slow_engine = 1;  ///< --slow-engine K: each batch's work K times over
};

/// A scenario's floor: the lowest median ratio to the reference loop it may measure.
struct Floor {
  std::string scenario;
  double ratio = 0;
};

/// Reads "SCENARIO RATIO" lines ('#' starts a comment); throws std::runtime_error on a bad one.
std::vector<Floor> read_floors(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (!f) throw std::runtime_error("--floors: cannot read " + path);
  std::vector<Floor> floors;
  char line[512];
  int number = 0;
  while (std::fgets(line, sizeof line, f)) {
    ++number;
    std::string text = line;
    text = text.substr(0, text.find('#'));
    char name[128];
    double ratio = 0;
    char rest[8];
    const int got = std::sscanf(text.c_str(), " %127s %lf %7s", name, &ratio, rest);
    if (got <= 0) continue;  // blank or a comment
    if (got != 2 || !(ratio > 0 && ratio < 10)) {
      std::fclose(f);
      throw std::runtime_error(path + ":" + std::to_string(number) +
                               ": expected 'SCENARIO RATIO' (a ratio in (0, 10)), got '" +
                               gpucap::text::trim(text) + "'");
    }
    floors.push_back({name, ratio});
  }
  std::fclose(f);
  if (floors.empty()) throw std::runtime_error(path + ": no floor");
  return floors;
}

/// Wall-time figures of --device mode.
struct WallFigures {
  double events_per_s = 0;
  double replications_per_s = 0;
};

struct Row {
  const gb::BenchScenario* scenario = nullptr;
  gb::PairedFigures paired;
  bool device_measured = false;
  int all_threads = 0;
  WallFigures all, device;
};

/// Events in the scalar rows of `replications` replications.
double events_in(const double* scalars, uint64_t replications) {
  double events = 0;
  for (uint64_t i = 0; i < replications; ++i)
    events += scalars[i * gpucap::kScalarMetricCount + gpucap::kEvents];
  return events;
}

/// The scenario through run_points on the cpu backend, 1 thread, with a run monitor as the CLI
/// and Python set one: the path users run.
gb::BatchRunner scenario_runner(const std::vector<gpucap::Scenario>& points,
                                gpucap::RunMonitor& monitor, uint64_t slow_engine) {
  return [&points, &monitor, slow_engine](uint64_t first, uint64_t count) {
    gpucap::RunOptions options;
    options.replications = count;
    options.first_replication = first;
    options.backend = gpucap::BackendChoice::cpu;
    options.threads = 1;
    options.monitor = &monitor;
    const double t0 = gb::thread_cpu_seconds();
    gpucap::RunResults r = gpucap::run_points(points, {}, points.front(), options);
    for (uint64_t k = 1; k < slow_engine; ++k)  // --slow-engine: the same work again
      r = gpucap::run_points(points, {}, points.front(), options);
    gb::Batch b;
    b.cpu_s = gb::thread_cpu_seconds() - t0;
    b.events = events_in(r.scalars.data(), count);
    b.replications = count;
    return b;
  };
}

volatile double g_reference_sink = 0;  // the reference's results, so that nothing is left out

/// mmc's model for the reference loop.
gb::ReferenceMmc reference_model() {
  gb::ReferenceMmc model;
  model.arrival_rate_per_s = 7.2 / 3600.0;
  model.mean_service_s = 3600.0;
  model.servers = 8;
  model.queue_capacity = 2000;
  model.horizon_s = 2000.0 * 3600.0;
  return model;
}

/// --verify-reference: replications 0-15 of mmc through run_points and through the reference
/// loop, under mmc's seed, must process the same events (the same futures); exit 0 when they do.
int verify_reference() {
  const gpucap::Scenario mmc = gb::bench_scenarios().front().load("", "mmc");
  gpucap::RunOptions options;
  options.replications = 16;
  options.backend = gpucap::BackendChoice::cpu;
  options.threads = 1;
  const gpucap::RunResults r = gpucap::run_points({mmc}, {}, mmc, options);
  int different = 0;
  for (uint64_t i = 0; i < options.replications; ++i) {
    const double engine = r.scalars[i * gpucap::kScalarMetricCount + gpucap::kEvents];
    const double reference = gb::run_reference_mmc(reference_model(), r.seed, i, 1).events;
    std::printf("replication %2llu: engine %.0f events, reference loop %.0f events%s\n",
                static_cast<unsigned long long>(i), engine, reference,
                engine == reference ? "" : "  DIFFERENT");
    different += engine != reference;
  }
  return different == 0 ? 0 : 1;
}

/// The reference loop on mmc's model.
gb::BatchRunner reference_runner() {
  return [model = reference_model()](uint64_t first, uint64_t count) {
    const double t0 = gb::thread_cpu_seconds();
    const gb::ReferenceTotals t = gb::run_reference_mmc(model, 1, first, count);
    gb::Batch b;
    b.cpu_s = gb::thread_cpu_seconds() - t0;
    b.events = t.events;
    b.replications = count;
    g_reference_sink = g_reference_sink + t.wait_s + t.jobs_in_system_s + t.dropped;
    return b;
  };
}

/// Runs replications [first, first + batch) through a backend's run (device null: the cpu's
/// run_replications_cpu with `threads`); wall seconds.
double time_batch(const gpucap::ModelStorage& storage, const gpucap::Backend* device, int threads,
                  uint64_t first, uint64_t batch, std::vector<double>& scalars) {
  std::vector<double> pool_values(batch * storage.model().pool_count * gpucap::kPoolMetricCount);
  std::vector<double> series(batch * storage.model().pool_count * storage.model().timeseries_bins);
  scalars.resize(batch * gpucap::kScalarMetricCount);
  gpucap::ReplicationTask task;
  task.models = &storage;
  task.seed = 1;
  task.first = first;
  task.count = batch;
  task.scalars = scalars.data();
  task.pool_values = pool_values.data();
  task.timeseries = series.empty() ? nullptr : series.data();
  const auto t0 = std::chrono::steady_clock::now();
  if (device)
    device->run(task, gpucap::DeviceLimits{});
  else
    gpucap::run_replications_cpu(task, threads);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// CPU on `threads` threads: the best of batches repeated until min_seconds have run.
WallFigures measure_all_threads(const gpucap::ModelStorage& storage, int threads, uint64_t batch,
                                double min_seconds) {
  WallFigures best;
  std::vector<double> scalars;
  double spent = 0;
  for (uint64_t first = 0; spent < min_seconds; first += batch) {
    const double s = time_batch(storage, nullptr, threads, first, batch, scalars);
    best.events_per_s = std::max(best.events_per_s, events_in(scalars.data(), batch) / s);
    best.replications_per_s = std::max(best.replications_per_s, batch / s);
    spent += s;
  }
  return best;
}

/// Device: batches that grow (from 4096 replications, up to max_batch) until one runs for
/// min_seconds: a device is only fast when every worker is busy, and slow scenarios must not
/// run for minutes. The last (largest) batch is reported.
WallFigures measure_device(const gpucap::ModelStorage& storage, const gpucap::Backend* device,
                           uint64_t max_batch, double min_seconds) {
  WallFigures m;
  std::vector<double> scalars;
  uint64_t batch = std::min<uint64_t>(4096, max_batch);
  for (uint64_t first = 0;; first += batch) {
    const double s = time_batch(storage, device, 0, first, batch, scalars);
    m.events_per_s = events_in(scalars.data(), batch) / s;
    m.replications_per_s = batch / s;
    if (s >= min_seconds || batch >= max_batch) break;
    const double grow = std::min(8.0, std::max(2.0, 1.2 * min_seconds / s));
    batch = std::min<uint64_t>(max_batch, static_cast<uint64_t>(batch * grow));
  }
  return m;
}

/// A number for JSON: shortest round-trip form; null for infinities and NaN.
std::string json_number(double x) {
  if (!std::isfinite(x)) return "null";
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", x);
  return text;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string format(const char* fmt, double x) {
  char text[64];
  std::snprintf(text, sizeof text, fmt, x);
  return text;
}

/// Cost per event of each scaling case against the first of its series (classes_1, pools_1):
/// the ratio of their ratios to the reference, measured in the same run.
std::map<std::string, double> scaling_factors(const std::vector<Row>& rows) {
  std::map<std::string, double> first_ratio, factors;
  for (const Row& row : rows) {
    const std::string& name = row.scenario->name;
    const std::size_t underscore = name.find('_');
    const std::string series = name.substr(0, underscore);
    if (series != "classes" && series != "pools") continue;
    if (name == series + "_1") first_ratio[series] = row.paired.ratio;
  }
  for (const Row& row : rows) {
    const std::string& name = row.scenario->name;
    const std::string series = name.substr(0, name.find('_'));
    const auto first = first_ratio.find(series);
    if (first != first_ratio.end() && row.paired.ratio > 0)
      factors[name] = first->second / row.paired.ratio;
  }
  return factors;
}

void print_json(const std::vector<Row>& rows, double reference_eps,
                const gb::PairedMeasurement& paired, const Options& options,
                const gpucap::Backend* device) {
  std::printf("{\"reference_events_per_s\": %s, \"scenarios\": [",
              json_number(reference_eps).c_str());
  const std::map<std::string, double> scaling = scaling_factors(rows);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    const gb::PairedFigures& f = row.paired;
    std::printf(
        "%s\n  {\"name\": %s, \"events_per_s\": %s, \"ratio_to_reference\": %s, "
        "\"cpu_ns_per_event\": %s, \"cpu_ns_per_replication\": %s, \"ratio_p25\": %s, "
        "\"ratio_p75\": %s, \"measured_events_per_s\": %s, \"events_per_replication\": %s, "
        "\"pairs\": %llu, \"replications_per_batch\": %llu, \"description\": %s",
        i ? "," : "", json_string(row.scenario->name).c_str(),
        json_number(f.ratio * reference_eps).c_str(), json_number(f.ratio).c_str(),
        json_number(f.cpu_ns_per_event).c_str(), json_number(f.cpu_ns_per_replication).c_str(),
        json_number(f.ratio_p25).c_str(), json_number(f.ratio_p75).c_str(),
        json_number(f.measured_events_per_s).c_str(), json_number(f.events_per_replication).c_str(),
        static_cast<unsigned long long>(f.pairs),
        static_cast<unsigned long long>(f.replications_per_batch),
        json_string(row.scenario->what).c_str());
    const auto factor = scaling.find(row.scenario->name);
    if (factor != scaling.end())
      std::printf(", \"cost_per_event_vs_series_first\": %s", json_number(factor->second).c_str());
    if (row.device_measured)
      std::printf(
          ", \"all_threads\": %d, \"all_threads_events_per_s\": %s, \"device\": %s, "
          "\"device_events_per_s\": %s, \"device_replications_per_s\": %s",
          row.all_threads, json_number(row.all.events_per_s).c_str(),
          json_string(device->name).c_str(), json_number(row.device.events_per_s).c_str(),
          json_number(row.device.replications_per_s).c_str());
    std::printf("}");
  }
  std::printf(
      "\n], \"reference_batches\": %zu, \"reference_events_per_replication\": %s, "
      "\"backend\": %s, \"threads\": 1, \"min_seconds\": %s}\n",
      paired.reference_events_per_s().size(),
      json_number(paired.reference_events_per_replication()).c_str(),
      json_string(gpucap::cpu_backend_name()).c_str(), json_number(options.min_seconds).c_str());
}

void print_table(const std::vector<Row>& rows, double reference_eps,
                 const gb::PairedMeasurement& paired) {
  const std::vector<double>& ref = paired.reference_events_per_s();
  std::printf(
      "reference loop (M/M/8 at utilization 0.9, hand-written): %.2f M events/s of CPU "
      "time, median of %zu batches (quartiles %.2f to %.2f M events/s), %.0f "
      "events/replication\n\n",
      reference_eps / 1e6, ref.size(), gb::quantile(ref, 0.25) / 1e6, gb::quantile(ref, 0.75) / 1e6,
      paired.reference_events_per_replication());
  std::printf("%-27s %-23s %15s %13s %17s %16s %6s\n", "scenario", "ratio to ref (quartiles)",
              "events/s", "CPU ns/event", "CPU us/replication", "events/replication", "pairs");
  for (const Row& row : rows) {
    const gb::PairedFigures& f = row.paired;
    const std::string ratio = format("%.3fx", f.ratio) + " (" + format("%.3f", f.ratio_p25) + "-" +
                              format("%.3fx", f.ratio_p75) + ")";
    std::printf("%-27s %-23s %9.2f M/s %10.1f ns %14.2f us %16.1f %6llu\n",
                row.scenario->name.c_str(), ratio.c_str(), f.ratio * reference_eps / 1e6,
                f.cpu_ns_per_event, f.cpu_ns_per_replication / 1e3, f.events_per_replication,
                static_cast<unsigned long long>(f.pairs));
  }
  const std::map<std::string, double> scaling = scaling_factors(rows);
  if (!scaling.empty()) {
    std::printf("\ncost per event against the first of its series (ratio of ratios):");
    for (const auto& [name, factor] : scaling) std::printf("  %s %.2fx", name.c_str(), factor);
    std::printf("\n");
  }
}

int usage(const std::string& why) {
  std::string names;
  for (const gb::BenchScenario& s : gb::bench_scenarios())
    names += (names.empty() ? "" : ", ") + s.name;
  std::fprintf(
      stderr,
      "engine_bench: %s\nusage: engine_bench [--min-seconds S] [--scenarios NAME,...] "
      "[--json] [--device auto|cuda|thrust-omp|none] [--device-scale K] [--verify-reference]\n"
      "scenarios: %s\n",
      why.c_str(), names.c_str());
  return kExitUsage;
}

/// A positive number, or NaN.
double positive(const char* text) {
  char* end = nullptr;
  const double x = std::strtod(text, &end);
  return *text && *end == '\0' && x > 0 && std::isfinite(x) ? x : NAN;
}

}  // namespace

int main(int argc, char** argv) {
  // Line by line even into a file: a benchmark stopped at a time limit keeps what it measured.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--min-seconds" && has_value) {
      options.min_seconds = positive(argv[++i]);
      if (std::isnan(options.min_seconds))
        return usage("--min-seconds: expected a positive number of seconds, got '" +
                     std::string(argv[i]) + "'");
    } else if (a == "--device" && has_value) {
      options.device = argv[++i];
    } else if (a == "--device-scale" && has_value) {
      options.device_scale = positive(argv[++i]);
      if (std::isnan(options.device_scale))
        return usage("--device-scale: expected a positive factor, got '" + std::string(argv[i]) +
                     "'");
    } else if (a == "--scenarios" && has_value) {
      options.scenarios = gpucap::text::split(argv[++i], ',');
    } else if (a == "--json") {
      options.json = true;
    } else if (a == "--floors" && has_value) {
      options.floors = argv[++i];
    } else if (a == "--quick") {
      options.quick = true;
    } else if (a == "--slow-engine" && has_value) {
      const double k = positive(argv[++i]);
      if (!(k >= 1 && k <= 1000 && k == std::floor(k)))
        return usage("--slow-engine: expected a whole factor from 1 to 1000, got '" +
                     std::string(argv[i]) + "'");
      options.slow_engine = static_cast<uint64_t>(k);
    } else if (a == "--verify-reference") {
      try {
        return verify_reference();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "engine_bench: %s\n", e.what());
        return 1;
      }
    } else if (a == "--help" || a == "-h") {
      std::printf(
          "engine_bench: the speed of gpucap's engine as ratios to a hand-written reference "
          "loop (docs/performance.md)\nusage: engine_bench [--min-seconds S] "
          "[--scenarios NAME,...] [--json] [--device auto|cuda|thrust-omp|none] "
          "[--device-scale K] [--verify-reference] [--floors FILE [--quick]] [--slow-engine K]\n");
      return 0;
    } else {
      return usage("unknown option '" + a + "'");
    }
  }
  std::vector<Floor> floors;
  if (!options.floors.empty()) {
    try {
      floors = read_floors(options.floors);
    } catch (const std::exception& e) {
      return usage(e.what());
    }
    if (options.quick) {
      options.scenarios.clear();
      for (const Floor& f : floors) options.scenarios.push_back(f.scenario);
      options.min_seconds = 2;
    }
  } else if (options.quick) {
    return usage("--quick measures the scenarios of --floors FILE");
  }
  std::vector<const gb::BenchScenario*> chosen;
  for (const gb::BenchScenario& s : gb::bench_scenarios())
    if (options.scenarios.empty() || std::find(options.scenarios.begin(), options.scenarios.end(),
                                               s.name) != options.scenarios.end())
      chosen.push_back(&s);
  for (const std::string& name : options.scenarios) {
    bool known = false;
    for (const gb::BenchScenario& s : gb::bench_scenarios()) known = known || s.name == name;
    if (!known) return usage("--scenarios: no scenario named '" + name + "'");
  }
  try {
    const gpucap::Backend* device = nullptr;
    if (options.device != "none") {
      const gpucap::Backend& b = gpucap::resolve_backend(gpucap::parse_backend(options.device));
      if (b.kind == gpucap::BackendKind::device) device = &b;  // the cpu runs anyway
    }
    // $GPUCAP_SOURCE_DIR: the checkout, when a prebuilt bundle runs
    // (scripts/make_device_bundle.sh).
    const char* root = std::getenv("GPUCAP_SOURCE_DIR");
    const std::string scenarios_dir =
        std::string(root && *root ? root : GPUCAP_SOURCE_DIR) + "/scenarios/";
    const double slice = std::clamp(options.min_seconds / 12, 1e-4, 0.1);
    if (!options.json)
      std::printf(
          "gpucap engine benchmark: %s, 1 thread, through run_points (the entry of "
          "`gpucap run` and gpucap.run); CPU time of the measuring thread; each scenario "
          "at least %.2f CPU s, in batches of about %.3f s taken in turns with the "
          "reference loop\n",
          gpucap::cpu_backend_name().c_str(), options.min_seconds, slice);
    gb::PairedMeasurement paired(reference_runner(), slice);
    std::vector<Row> rows;
    for (const gb::BenchScenario* s : chosen) {
      const std::vector<gpucap::Scenario> points{s->load(scenarios_dir, s->name)};
      gpucap::RunMonitor monitor;
      Row row;
      row.scenario = s;
      row.paired = paired.measure(scenario_runner(points, monitor, options.slow_engine),
                                  options.min_seconds);
      if (!options.json)
        std::fprintf(stderr, "  %-27s %.3fx the reference (%llu pairs), %.2f M events/s of CPU\n",
                     s->name.c_str(), row.paired.ratio,
                     static_cast<unsigned long long>(row.paired.pairs),
                     row.paired.measured_events_per_s / 1e6);
      rows.push_back(row);
    }
    const double reference_eps = gb::quantile(paired.reference_events_per_s(), 0.5);
    if (!options.json) print_table(rows, reference_eps, paired);
    if (!floors.empty()) {
      // The guard: every floor's scenario measured, at or above its floor.
      int below = 0;
      for (const Floor& f : floors) {
        const auto row = std::find_if(rows.begin(), rows.end(),
                                      [&](const Row& r) { return r.scenario->name == f.scenario; });
        if (row == rows.end()) {
          std::fprintf(stderr, "engine_bench: %s: no scenario named '%s'\n", options.floors.c_str(),
                       f.scenario.c_str());
          return kExitUsage;
        }
        const bool ok = row->paired.ratio >= f.ratio;
        below += !ok;
        std::printf("%s %-24s %.3fx the reference loop (quartiles %.3f-%.3fx), floor %.3fx\n",
                    ok ? "speed floor held:  " : "BELOW ITS FLOOR:   ", f.scenario.c_str(),
                    row->paired.ratio, row->paired.ratio_p25, row->paired.ratio_p75, f.ratio);
      }
      if (below) {
        std::printf("engine_bench: %d scenario(s) below their floor in %s: the engine got slower "
                    "(measure the commits with bench/paired_measurement; a floor is lowered only by "
                    "a commit that says why)\n",
                    below, options.floors.c_str());
        return 1;
      }
    }

    // --device: all threads and the device, in wall time, after every 1-thread measurement
    // (idle OpenMP threads would otherwise share the measuring thread's core).
    if (device) {
      const gpucap::DeviceProbe probe = device->probe();
      const int all = gpucap::resolve_thread_count(0);
      if (!options.json)
        std::printf("\n%s on %s against the cpu with %d threads (wall time, events/s):\n",
                    device->name, probe.devices.at(0).name.c_str(), all);
      for (Row& row : rows) {
        if (row.scenario->device_batch == 0) continue;
        const gpucap::ModelStorage storage =
            gpucap::compile(row.scenario->load(scenarios_dir, row.scenario->name));
        row.all_threads = all;
        row.all =
            measure_all_threads(storage, all, row.scenario->all_threads_batch, options.min_seconds);
        const uint64_t max_batch = std::max<uint64_t>(
            1, static_cast<uint64_t>(row.scenario->device_batch * options.device_scale));
        row.device = measure_device(storage, device, max_batch, options.min_seconds);
        row.device_measured = true;
        if (!options.json)
          std::printf(
              "%-27s cpu, %d threads %9.2f M events/s %12.1f replications/s | %-10s "
              "%9.2f M events/s %12.1f replications/s | %.1fx the %d threads, %.1fx 1 "
              "thread\n",
              row.scenario->name.c_str(), all, row.all.events_per_s / 1e6,
              row.all.replications_per_s, device->name, row.device.events_per_s / 1e6,
              row.device.replications_per_s, row.device.events_per_s / row.all.events_per_s, all,
              row.device.events_per_s / row.paired.measured_events_per_s);
      }
    }
    if (options.json) print_json(rows, reference_eps, paired, options, device);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "engine_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
