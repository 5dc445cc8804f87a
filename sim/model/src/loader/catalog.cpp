// gpucap: scenario loader, the price catalog a scenario names with `catalog` (data/gpu_prices.csv's layout).
#include "loader.hpp"

#include <cmath>
#include <cstdlib>

namespace gpucap::loader {

/// The price catalog named by `catalog` (a CSV with the columns of data/gpu_prices.csv).
/// A catalog value that a pool takes for the key `pattern` (its price or GPU memory), held to
/// what the key itself accepts when written in the scenario: a plain decimal number (no hex, no
/// NaN or infinity), 0 or of magnitude 1e-12 to 1e12, within the key's range. `text` is the
/// cell; throws std::runtime_error naming `where` and the column.
double catalog_value(const std::string& text_in, const std::string& where, const char* column,
                     const char* pattern) {
  const ScenarioKey& k = scenario_key(pattern);
  const std::string t = text::trim(text_in);
  char* end = nullptr;
  const bool decimal = !t.empty() && t.find_first_not_of("0123456789.eE+-") == std::string::npos;
  const double v = decimal ? std::strtod(t.c_str(), &end) : NAN;
  const KeyBound hi = scenario_key_upper(k);
  const bool in_range =
      decimal && *end == '\0' && std::isfinite(v) &&
      (v == 0 || (std::fabs(v) >= kMinMagnitude && std::fabs(v) <= kMaxMagnitude)) &&
      (k.lo.open ? v > k.lo.value : v >= k.lo.value) && (hi.open ? v < hi.value : v <= hi.value);
  if (!in_range)
    throw std::runtime_error(where + column + " holds \"" + text::excerpt(t) +
                             "\"; it must be a decimal number " + describe_key_range(k) +
                             " (as the pool's own key)");
  return v;
}

Catalog read_catalog(const Context& ctx, const YAML::Node& node) {
  const std::string file = read_string(ctx, node, "catalog");
  Catalog catalog;
  try {
    const CsvTable table = ctx.read_csv(node, "catalog", file);
    const auto keys = table.strings("key"), models = table.strings("gpu_model"),
               spot = table.strings("spot_usd_per_gpu_hour"),
               memory = table.strings("gpu_memory_gb"),
               on_demand = table.strings("on_demand_usd_per_gpu_hour");
    for (std::size_t r = 0; r < keys.size(); ++r) {
      const std::string where = table.origin() + ":" + std::to_string(table.line_of_row(r)) + ": ";
      CatalogRow row{models[r],
                     catalog_value(memory[r], where, "gpu_memory_gb", "pools.NAME.gpu_memory_gb"),
                     catalog_value(on_demand[r], where, "on_demand_usd_per_gpu_hour",
                                   "pools.NAME.price_usd_per_gpu_hour"),
                     -1};
      if (!text::trim(spot[r]).empty())
        row.spot_usd_per_gpu_hour = catalog_value(spot[r], where, "spot_usd_per_gpu_hour",
                                                  "pools.NAME.price_usd_per_gpu_hour");
      if (!catalog.emplace(keys[r], row).second)
        throw std::runtime_error(where + "the key \"" + text::excerpt(keys[r]) +
                                 "\" appears twice");
    }
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const ScenarioError*>(&e)) throw;
    ctx.fail(node, "catalog", e.what());
  }
  return catalog;
}

}  // namespace gpucap::loader
