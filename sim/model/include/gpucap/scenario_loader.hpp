// gpucap: loading and validating scenario files (format v1, docs/scenario-format.md).
//
//   gpucap::Scenario s = gpucap::load_scenario("scenarios/default.yaml", {"pools.a.quota=16"});
//
// Every problem raises ScenarioError whose message names the file, line and column, the key path
// and what would be valid, e.g.
//   scenarios/x.yaml:12:7: pools.aws-od.quota: must be a whole number from 1 to 1048575, got "-3"
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/input_file.hpp"
#include "gpucap/quantities.hpp"  // parse_seed, parse_duration_s: callers of the loader use them too
#include "gpucap/scenario.hpp"
#include "gpucap/scenario_error.hpp"

namespace gpucap {

/// Loads `path`, applies `overrides` ("dotted.path=value", value in YAML syntax; sequence items
/// are addressed by index or by their `name`), and validates the result.
/// The scenario file and every data file it names must be regular files within `limits`;
/// files that cannot be read raise InputFileError (a ScenarioError) with the system's reason.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {},
                       const InputLimits& limits = {});

/// As load_scenario, from YAML text; `origin` names it in messages. Relative data files (traces,
/// empirical samples) are resolved against `base_dir`.
Scenario parse_scenario(const std::string& yaml_text, const std::string& origin,
                        const std::string& base_dir, const std::vector<std::string>& overrides = {},
                        const InputLimits& limits = {});

}  // namespace gpucap
