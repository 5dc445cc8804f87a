// gpucap CLI: the commands that describe gpucap itself: explain (a scenario key), schema (the
// scenario format's JSON Schema), info (version, build, backends and their devices).
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "gpucap/backend.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/scenario_keys.hpp"
#include "gpucap/version.hpp"

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

/// `gpucap explain KEY_PATH...`: what the key table says of each key; exit 2 for an unknown key.
int explain_command(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << "usage: gpucap explain KEY_PATH...\n\n"
                 "Prints the type, unit, range, default, where it applies and the meaning of each\n"
                 "scenario key, from the table the loader itself reads. KEY_PATH is a pattern\n"
                 "(pools.NAME.quota, workloads[].work) or a path as messages write it\n"
                 "(pools.a100.quota, workloads[0].work.sigma); pools.quota is short for\n"
                 "pools.NAME.quota. 'gpucap explain .' lists the top-level keys.\n";
    return args.empty() ? 2 : 0;
  }
  int status = 0;
  for (const std::string& path : args) {
    if (path == ".") {
      std::cout << "top-level keys: " << text::join(scenario_child_keys(""), ", ")
                << "\n";
      continue;
    }
    const std::string text = explain_scenario_key(path);
    if (!text.empty()) {
      std::cout << text;
      continue;
    }
    // Suggest the key whose last part is nearest to the last part given.
    const auto last_part = [](const std::string& p) { return p.substr(p.find_last_of(".]") + 1); };
    std::vector<std::string> names;
    for (const ScenarioKey& k : scenario_keys()) names.push_back(last_part(k.path));
    const std::string near = text::closest(last_part(path), names);
    std::string suggestion;
    for (const ScenarioKey& k : scenario_keys())
      if (!near.empty() && last_part(k.path) == near) {
        suggestion = k.path;
        break;
      }
    std::cerr << "gpucap explain: no scenario key '" << text::excerpt(path) << "'"
              << (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)")
              << "; 'gpucap explain .' lists the top-level keys\n";
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
  std::cout << "--backend " << kAutoBackendName
            << " runs on: " << resolve_backend(BackendChoice::automatic).name
            << "\n";
  return 0;
}

}  // namespace gpucap::cli
