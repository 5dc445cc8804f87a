#include "composed_scenario.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "gpucap/detail/text.hpp"

namespace gpucap::cli {

YAML::Node read_pools_scenario(const std::string& path, const InputLimits& limits,
                               const std::string& option, const std::string& must_be) {
  const std::string text =
      read_input_file(path, limits.scenario_bytes, "scenario file", "--max-scenario-size");
  YAML::Node base;
  try {
    base = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument(option + " " + text::excerpt(path) + ": not YAML: " + e.what());
  }
  if (!base.IsMap() || !base["pools"])
    throw std::invalid_argument(option + " " + text::excerpt(path) + " must be " + must_be);
  return base;
}

void absolute_side_files(YAML::Node workload, const std::filesystem::path& folder) {
  for (const char* key : {"work", "service", "lifetime", "initial_state"}) {
    YAML::Node n = workload[key];
    if (n && n.IsMap() && n["file"])
      n["file"] = (folder / n["file"].as<std::string>()).lexically_normal().string();
  }
}

std::string composed_text(const YAML::Node& base, const YAML::Node& workloads, double horizon_s) {
  YAML::Node s = YAML::Clone(base);
  s["workloads"] = workloads;
  if (horizon_s > 0) {
    s["horizon"] = text::format_number(horizon_s) + "s";
    s.remove("warmup");
  }
  YAML::Emitter out;
  out << s;
  return out.c_str();
}

std::vector<double> defined_values(const RunResults& r, std::size_t p, ScalarMetric m) {
  std::vector<double> v;
  for (std::size_t i = 0; i < r.rows_per_point(); ++i)
    if (!std::isnan(r.scalar(p, i, m))) v.push_back(r.scalar(p, i, m));
  return v;
}

uint32_t largest_class_gpus(const fit::JobTrace& trace) {
  uint32_t most = 1;
  for (const fit::JobClass& c : trace.classes) most = std::max(most, c.gpus);
  return most;
}

}  // namespace gpucap::cli
