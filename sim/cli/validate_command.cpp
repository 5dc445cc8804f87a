// gpucap validate SCENARIO.yaml: checks a scenario without running it, and prints what a run
// of it would take (state per replication, memory on this machine's cores).
#include <boost/program_options.hpp>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "commands.hpp"
#include "gpucap/backend.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/event_estimate.hpp"
#include "gpucap/memory_estimate.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/replication.hpp"
#include "gpucap/scenario_loader.hpp"
#include "run_options.hpp"

namespace po = boost::program_options;

namespace gpucap::cli {
namespace {

std::string format_value(double v) { return text::format_table_value(v); }

}  // namespace

int validate_command(const std::vector<std::string>& args) {
  CommandLine line("gpucap validate SCENARIO.yaml [options]", "scenario");
  line.options().add(scenario_options());
  const po::variables_map vm = line.parse(args);
  if (vm.count("help")) {
    std::cout << "Checks a scenario file without running it.\n\n" << line.options();
    return 0;
  }
  if (!vm.count("scenario")) throw po::error("validate needs a SCENARIO.yaml argument");
  const auto overrides = overrides_of(vm);
  const Scenario s =
      load_scenario(vm["scenario"].as<std::string>(), overrides, read_input_limits(vm));
  uint64_t quota = 0;
  for (const auto& p : s.pools) quota += p.quota_gpus;
  std::size_t services = 0, deployments = 0;
  for (const auto& w : s.workloads) {
    services += w.kind == WorkloadKind::inference;
    deployments += w.kind == WorkloadKind::deployment;
  }
  std::cout << text::excerpt(vm["scenario"].as<std::string>(), 300) << ": valid: \""
            << text::excerpt(s.name, 200) << "\", " << s.pools.size() << " pools (" << quota
            << " GPUs of quota), " << s.workloads.size() << " workloads (" << services
            << " inference services"
            << (deployments > 0 ? ", " + std::to_string(deployments) + " deployments" : "")
            << "), horizon " << text::format_duration(s.horizon_s)
            << ", warm-up " << text::format_duration(s.warmup_s) << ", "
            << format_value(static_cast<double>(replication_arena_bytes(
                                compile_without_trace_rows(s).model())) /
                            1024.0)
            << " KiB of state per replication\n";
  // The memory a run of the scenario's replications would take on all cores (the guard that
  // refuses oversized runs applies the same estimate before allocating).
  const int threads = resolve_thread_count(0);
  const auto estimate = [&](bool writes_file) {
    return estimate_run_memory(
        1, s.replications, s.pools.size(), static_cast<uint64_t>(s.timeseries_bins()),
        replication_arena_bytes(compile_without_trace_rows(s).model()),
        static_cast<uint64_t>(threads), writes_file);
  };
  const uint64_t available = available_host_memory_bytes();
  std::cout << "memory for a run of " << s.replications << " replications on " << threads
            << " threads: about " << estimate(false).describe() << "; with -o about "
            << format_bytes(estimate(true).total_bytes()) << "; available "
            << (available == UINT64_MAX ? std::string("unknown") : format_bytes(available))
            << (estimate(false).total_bytes() > available
                    ? " (more than available: such a run is refused; give fewer replications "
                      "with -r, or keep fewer rows with --rows)"
                    : "")
            << "\n";
  // Keeping no rows: one chunk's rows and the summaries, whatever the replication count.
  const uint64_t row_bytes =
      8 *
      (kScalarMetricCount +
       s.pools.size() * (kPoolMetricCount + static_cast<uint64_t>(s.timeseries_bins())));
  std::cout << "with --rows none: about "
            << estimate_streaming_run_memory(
                   1, 0, default_chunk_replications(row_bytes, false), s.pools.size(),
                   static_cast<uint64_t>(s.timeseries_bins()),
                   replication_arena_bytes(compile_without_trace_rows(s).model()),
                   static_cast<uint64_t>(threads), true)
                   .describe()
            << " at any replication count\n";
  // The work, and where `--backend auto` would run the scenario's replications (the cost
  // model of backend_choice.hpp: a GPU only where it is expected to finish first).
  const RunShape shape{s.replications, expected_events_per_replication(s),
                       replication_arena_bytes(compile_without_trace_rows(s).model())};
  const std::string why = choose_backend(BackendChoice::automatic, shape, 0).why;
  char events[64];
  std::snprintf(events, sizeof events, "%.3g", shape.events_per_replication);
  std::cout << "work: about " << events << " events per replication (horizon "
            << format_value(s.horizon_s) << " s, warm-up " << format_value(s.warmup_s)
            << " s); --backend auto for "
            << s.replications << " replications: " << why << "\n";
  return 0;
}

}  // namespace gpucap::cli
