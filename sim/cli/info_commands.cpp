// gpucap CLI: the commands that describe gpucap itself: explain (a scenario key), schema (the
// scenario format's JSON Schema), info (version, build, backends and their devices).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "gpucap/backend.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/metric_explain.hpp"
#include "gpucap/scenario_keys.hpp"
#include "gpucap/version.hpp"

#include "commands.hpp"

namespace gpucap::cli {
namespace {

std::string gibibytes(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1u << 30));
  return text;
}

/// One backend's lines of `gpucap info`: what it was built for and whether it can run here,
/// then the devices it sees.
void print_backend(const Backend& backend) {
  std::cout << "  " << backend.name;
  if (backend.built() && std::string(backend.label) != backend.name)
    std::cout << " (" << backend.label << ")";
  std::cout << ": ";
  if (!backend.built()) {
    std::cout << "not built (" << backend.not_built << ")\n";
    return;
  }
  const DeviceProbe probe = backend.probe();
  std::cout << "built for " << backend.targets << "; "
            << (probe.usable() ? "available" : "unavailable: " + probe.why_none) << "\n";
  for (const DeviceInfo& d : probe.devices) {
    std::cout << "    device " << d.index << ": " << d.name << ", "
              << gibibytes(d.total_memory_bytes) << " (" << gibibytes(d.free_memory_bytes)
              << " free)";
    if (d.compute_major > 0)
      std::cout << ", compute capability " << d.compute_major << "." << d.compute_minor << ", "
                << d.multiprocessors << " SMs";
    else
      std::cout << ", " << d.multiprocessors << " threads";
    std::cout << "\n";
  }
}

}  // namespace

/// `gpucap explain KEY_PATH|METRIC...`: what the key table says of each key, or the metric
/// tables of each metric; exit 2 for a name that is neither.
int explain_command(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << "usage: gpucap explain KEY_PATH|METRIC...\n\n"
                 "Prints the type, unit, range, default, where it applies and the meaning of each\n"
                 "scenario key, from the table the loader itself reads. KEY_PATH is a pattern\n"
                 "(pools.NAME.quota, workloads[].work) or a path as messages write it\n"
                 "(pools.a100.quota, workloads[0].work.sigma); pools.quota is short for\n"
                 "pools.NAME.quota. 'gpucap explain .' lists the top-level keys.\n\n"
                 "For an output metric (latency_p99, unserved_fraction, cost, ...) it prints its\n"
                 "unit, meaning, the workloads that produce it, when it is NaN, where results\n"
                 "store it and how goals and constraints name it. 'gpucap explain metrics' lists\n"
                 "the metrics.\n";
    return args.empty() ? 2 : 0;
  }
  int status = 0;
  for (const std::string& path : args) {
    if (path == ".") {
      std::cout << "top-level keys: " << text::join(scenario_child_keys(""), ", ") << "\n";
      continue;
    }
    if (path == "metrics") {
      std::cout << "metrics: " << text::join(metric_names(), ", ") << "\n";
      continue;
    }
    const std::string key_text = explain_scenario_key(path);
    const std::string metric_text = explain_metric(path);
    if (!key_text.empty() || !metric_text.empty()) {
      std::cout << key_text << (key_text.empty() || metric_text.empty() ? "" : "\n") << metric_text;
      continue;
    }
    // Suggest the key whose last part is nearest to the last part given, or the nearest metric.
    const auto last_part = [](const std::string& p) { return p.substr(p.find_last_of(".]") + 1); };
    std::vector<std::string> names;
    for (const ScenarioKey& k : scenario_keys()) names.push_back(last_part(k.path));
    const std::vector<std::string> metrics = metric_names();
    names.insert(names.end(), metrics.begin(), metrics.end());
    const std::string near = text::closest(last_part(path), names);
    std::string suggestion = std::find(metrics.begin(), metrics.end(), near) != metrics.end() &&
                                     path.find('.') == std::string::npos
                                 ? near
                                 : "";
    for (const ScenarioKey& k : scenario_keys())
      if (suggestion.empty() && !near.empty() && last_part(k.path) == near) {
        suggestion = k.path;
        break;
      }
    std::cerr << "gpucap explain: no scenario key or metric '" << text::excerpt(path) << "'"
              << (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)")
              << "; 'gpucap explain .' lists the top-level keys, 'gpucap explain metrics' the "
                 "metrics\n";
    status = 2;
  }
  return status;
}

/// `gpucap schema`: the JSON Schema of scenario files, for editors' YAML language servers.
int schema_command(const std::vector<std::string>& args) {
  if (!args.empty()) {
    std::cout << "usage: gpucap schema > gpucap-scenario.schema.json\n\n"
                 "Prints a JSON Schema (draft 2020-12) of the scenario format, generated from\n"
                 "the loader's key table. See the README for editor set-up.\n";
    return args[0] == "--help" || args[0] == "-h" ? 0 : 2;
  }
  std::cout << scenario_json_schema();
  return 0;
}

int info_command() {
  std::cout << "gpucap " << kVersion << "\n"
            << "build: " << kBuildType << ", " << kCompiler << ", OpenMP "
            << (kOpenMP ? "on" : "off") << ", HDF5 " << kHdf5Version << "\n"
            << "backends:\n";
  for (const Backend& backend : backends()) print_backend(backend);
  // auto weighs each run (backend_choice.hpp): with a usable GPU, either one.
  const Backend& device = resolve_backend(BackendChoice::automatic);
  std::cout << "--backend " << kAutoBackendName << " runs on: " << device.name;
  if (device.kind == BackendKind::device)
    std::cout << " or cpu, whichever a cost model expects to finish the run first (`gpucap run "
                 "-v` says which and why)";
  std::cout << "\n";
  return 0;
}

}  // namespace gpucap::cli
