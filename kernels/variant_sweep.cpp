// gpucap: a robust plan's points: decisions x variants, every one checked before anything runs.
#include "gpucap/variant_sweep.hpp"

#include "gpucap/detail/text.hpp"
#include "gpucap/scenario_loader.hpp"

namespace gpucap {

std::vector<SweepParameter> robust_plan_grid(const std::vector<SweepParameter>& decisions,
                                             const std::vector<Variant>& variants) {
  const std::size_t n_decisions = grid_points(decisions), n_variants = variants.size();
  std::vector<SweepParameter> grid;
  for (const SweepParameter& d : decisions) {
    SweepParameter p{d.path, {}};
    for (std::size_t i = 0; i < n_decisions; ++i)
      for (std::size_t v = 0; v < n_variants; ++v) p.values.push_back(d.values[i]);
    grid.push_back(std::move(p));
  }
  SweepParameter names{kVariantParameter, {}}, weights{kVariantWeightParameter, {}};
  std::vector<std::string> paths;  // every overridden path, in order of first appearance
  for (const Variant& v : variants)
    for (const auto& [path, value] : v.overrides) {
      bool seen = false;
      for (const std::string& p : paths) seen = seen || p == path;
      if (!seen) paths.push_back(path);
    }
  std::vector<SweepParameter> overridden;
  for (const std::string& path : paths) overridden.push_back({path, {}});
  for (std::size_t i = 0; i < n_decisions; ++i)
    for (const Variant& v : variants) {
      names.values.push_back(v.name);
      weights.values.push_back(v.weight);
      for (SweepParameter& p : overridden) {
        std::string value;
        for (const auto& o : v.overrides)
          if (o.first == p.path) value = o.second;
        p.values.push_back(value);
      }
    }
  grid.push_back(std::move(names));
  grid.push_back(std::move(weights));
  for (SweepParameter& p : overridden) grid.push_back(std::move(p));
  return grid;
}

SweepPoints check_robust_points(const std::string& yaml_text, const std::string& origin,
                                const std::string& base_dir,
                                const std::vector<std::string>& overrides,
                                const std::vector<SweepParameter>& decisions,
                                const std::vector<Variant>& variants, const InputLimits& limits) {
  std::vector<std::string> decision_paths;
  for (const SweepParameter& d : decisions) decision_paths.push_back(d.path);
  check_variants(variants, decision_paths);
  const std::size_t n_decisions = grid_points(decisions), n_variants = variants.size();
  if (n_variants > kMaxSweepPoints / n_decisions)
    throw ScenarioError(std::to_string(n_decisions) + " decisions x " + std::to_string(n_variants) +
                        " variants is more than the " + std::to_string(kMaxSweepPoints) +
                        " points a sweep may have");
  const Scenario base = parse_scenario(yaml_text, origin, base_dir, overrides, limits);
  std::vector<std::vector<Scenario>> loaded;  // [variant][decision]
  for (const Variant& v : variants) {
    const std::string who = "variant '" + text::excerpt(v.name) + "'";
    std::vector<std::string> all = overrides;
    for (const auto& [path, value] : v.overrides) all.push_back(path + "=" + value);
    Scenario changed;
    try {
      changed = parse_scenario(yaml_text, origin, base_dir, all, limits);
    } catch (const InputFileError& e) {
      throw InputFileError(who + ": " + e.what());
    } catch (const ScenarioError& e) {
      throw ScenarioError(who + ": " + e.what());
    }
    std::vector<std::string> before, after;
    for (const PoolSpec& p : base.pools) before.push_back(p.name);
    for (const PoolSpec& p : changed.pools) after.push_back(p.name);
    if (before != after)
      throw ScenarioError(who + " changes which pools exist (" + text::join(before, ", ") +
                          " becomes " + text::join(after, ", ") +
                          "); a variant may change any key but the set of pools");
    try {
      loaded.push_back(
          check_sweep_points(yaml_text, origin, base_dir, all, decisions, limits, false).points);
    } catch (const InputFileError& e) {
      throw InputFileError(who + ": " + e.what());
    } catch (const ScenarioError& e) {
      throw ScenarioError(who + ": " + e.what());
    }
  }
  SweepPoints out;
  for (std::size_t d = 0; d < n_decisions; ++d)
    for (std::size_t v = 0; v < n_variants; ++v) {
      out.points.push_back(std::move(loaded[v][d]));
      out.valid_indices.push_back(d * n_variants + v);
    }
  out.grid = robust_plan_grid(decisions, variants);
  return out;
}

}  // namespace gpucap
