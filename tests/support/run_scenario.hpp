// Test support: run a scenario file (or a shipped one, by name) with overrides on the CPU backend.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"

namespace gpucap::testing_support {

/// Runs the scenario at `path` with --set style overrides and this many replications.
inline RunResults run_scenario(const std::string& path, const std::vector<std::string>& overrides,
                               uint64_t replications) {
  RunOptions options;
  options.replications = replications;
  return run(load_scenario(path, overrides), options);
}

/// The same for a file of the project's scenarios/ folder, given by name.
inline RunResults simulate_shipped(const std::string& file,
                                   const std::vector<std::string>& overrides,
                                   uint64_t replications) {
  return run_scenario(std::string(GPUCAP_SOURCE_DIR) + "/scenarios/" + file, overrides,
                      replications);
}

}  // namespace gpucap::testing_support
