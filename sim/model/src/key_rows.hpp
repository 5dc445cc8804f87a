// gpucap: the rows of the scenario key table, private to sim/model: scenario_keys.cpp joins them
// into the table (pool rows, then workload rows, in the order of docs/scenario-format.md).
#pragma once
#include <limits>
#include <vector>

#include "gpucap/scenario_keys.hpp"

namespace gpucap::key_rows {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// The top level, providers, regions and pools (scenario_key_rows_pools.cpp).
std::vector<ScenarioKey> pool_rows();
/// Workloads, services, arrivals, policy, time series, records, goals and the entries of
/// name maps (scenario_key_rows_workloads.cpp).
std::vector<ScenarioKey> workload_rows();
/// The parameters of each distribution kind (scenario_key_rows_workloads.cpp).
std::vector<DistributionParameter> distribution_parameter_rows();

/// "`word`", kept for the program's life: the default of a choice key as the docs write it,
/// taken from the default of the field it fills (called while kKeys is built).
const char* as_code(const char* word);

}  // namespace gpucap::key_rows
