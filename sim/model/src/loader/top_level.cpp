// gpucap: scenario loader, the top level of a scenario: its scalar keys, providers, regions, timeseries, records, and the
// order in which the sections are read (a section that depends on another is read only after it).
#include "loader.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace gpucap::loader {

namespace {

/// The known top-level key closest to each unknown one (a required key that is missing because
/// it was misspelt is reported once, as the typo).
std::set<std::string> misspelt_keys(const YAML::Node& root,
                                    const std::vector<std::string>& top_keys) {
  std::set<std::string> misspelt;
  for (const auto& kv : root)
    if (std::find(top_keys.begin(), top_keys.end(), kv.first.Scalar()) == top_keys.end())
      misspelt.insert(text::closest(kv.first.Scalar(), top_keys));
  return misspelt;
}

/// A required top-level key; one missing because it was misspelt is reported as the typo only.
YAML::Node required_key(const Context& ctx, const YAML::Node& root,
                        const std::set<std::string>& misspelt, const char* key, const char* what) {
  if (!root[key] && misspelt.count(key)) throw ScenarioError("");  // reported as the typo
  return require(ctx, root, "", key, what);
}

/// The scalar keys (name, description, horizon, warmup, seed, replications), each on its own.
/// Returns whether the horizon is sound.
bool read_scalar_keys(const Context& ctx, const YAML::Node& root,
                      const std::set<std::string>& misspelt, Scenario& s, ErrorList& errors) {
  errors.attempt([&] {
    s.name = read_string(ctx, required_key(ctx, root, misspelt, "name", "a short title"), "name");
  });
  errors.attempt([&] {
    if (root["description"]) s.description = read_string(ctx, root["description"], "description");
  });
  const bool horizon_ok = errors.attempt([&] {
    // At most kMaxHorizonS (the key table's range), where event times still resolve 4 us.
    s.horizon_s = read_key_duration(
        ctx, required_key(ctx, root, misspelt, "horizon", "a duration such as 30d"), "horizon");
  });
  errors.attempt([&] {
    if (!root["warmup"]) return;
    s.warmup_s = read_key_duration(ctx, root["warmup"], "warmup");
    if (horizon_ok && s.warmup_s >= s.horizon_s)
      ctx.fail(root["warmup"], "warmup",
               "must be shorter than the horizon (" + text::format_duration(s.horizon_s) + ")");
  });
  errors.attempt([&] {
    if (root["seed"]) s.seed = read_seed(ctx, root["seed"], "seed");
  });
  errors.attempt([&] {
    if (root["replications"])
      s.replications = static_cast<uint64_t>(read_key_integer(ctx, root["replications"], "replications"));
  });
  return horizon_ok;
}

/// `timeseries`: the bin width, within the number of bins supported over the horizon.
void read_timeseries(const Context& ctx, const YAML::Node& root, Scenario& s) {
  if (!root["timeseries"]) return;
  const YAML::Node ts = root["timeseries"];
  expect_map(ctx, ts, "timeseries", scenario_child_keys("timeseries"));
  read_plain_keys(ctx, ts, "timeseries", "timeseries", {{KeyTarget::scenario, &s}});
  const double bins = s.timeseries_bins();
  if (bins > kMaxTimeseriesBins)
    ctx.fail(ts["step"], "timeseries.step",
             "gives " + text::format_number(bins) + " bins over the horizon; at most " +
                 std::to_string(kMaxTimeseriesBins) + " are supported (use a wider step)");
}

/// `records`: how many jobs to record.
void read_records(const Context& ctx, const YAML::Node& root, Scenario& s) {
  if (!root["records"]) return;
  const YAML::Node rec = root["records"];
  expect_map(ctx, rec, "records", scenario_child_keys("records"));
  read_plain_keys(ctx, rec, "records", "records", {{KeyTarget::scenario, &s}});
}

/// `providers`: a mapping of names to their kind (hyperscaler when empty).
void read_providers(const Context& ctx, const YAML::Node& root, Scenario& s) {
  if (!root["providers"]) return;
  const YAML::Node providers = root["providers"];
  if (!providers.IsMap()) ctx.fail(providers, "providers", "must be a mapping of names");
  expect_unique_keys(ctx, providers, "providers");
  for (const auto& kv : providers) {
    const std::string name = kv.first.Scalar();
    const std::string path = "providers." + name;
    ProviderSpec p{name, ProviderKind::hyperscaler};
    if (kv.second.IsMap()) {
      expect_map(ctx, kv.second, path, scenario_child_keys("providers.NAME"));
      if (kv.second["kind"])
        p.kind = read_choice<ProviderKind>(ctx, kv.second["kind"], path + ".kind");
    } else if (!kv.second.IsNull()) {
      ctx.fail(kv.second, path, "must be a mapping (e.g. {kind: gpu_cloud}) or empty");
    }
    s.providers.push_back(p);
  }
}

/// A region's map from other regions to a number: latency (ms >= 0) or bandwidth (Gbit/s > 0).
void read_region_links(const Context& ctx, const YAML::Node& region, const std::string& path,
                       const char* key, const std::string& valid,
                       const std::vector<std::string>& region_names,
                       std::map<std::string, double>& into) {
  const YAML::Node links = region[key];
  if (!links) return;
  if (!links.IsMap())
    ctx.fail(links, path + "." + key, "must map region names to " + valid);
  for (const auto& l : links) {
    const std::string lpath = path + "." + key + "." + l.first.Scalar();
    const std::string other = read_reference(ctx, l.first, lpath, region_names, "region");
    into[other] = read_key_number(ctx, l.second, lpath);
  }
}

/// `regions`: a mapping of names to their links to other regions and egress price, or empty.
void read_regions(const Context& ctx, const YAML::Node& root, Scenario& s) {
  if (!root["regions"]) return;
  const YAML::Node regions = root["regions"];
  if (!regions.IsMap()) ctx.fail(regions, "regions", "must be a mapping of names");
  expect_unique_keys(ctx, regions, "regions");
  const std::vector<std::string> region_names = keys_of(regions);
  for (const auto& kv : regions) {
    RegionSpec r;
    r.name = kv.first.Scalar();
    const std::string path = "regions." + r.name;
    if (kv.second.IsMap()) {
      expect_map(ctx, kv.second, path, scenario_child_keys("regions.NAME"));
      read_region_links(ctx, kv.second, path, "latency_ms", "ms >= 0", region_names, r.latency_ms);
      read_region_links(ctx, kv.second, path, "bandwidth_gbps", "Gbit/s > 0", region_names,
                        r.bandwidth_gbps);
      if (kv.second["egress_usd_per_gb"])
        r.egress_usd_per_gb =
            read_key_number(ctx, kv.second["egress_usd_per_gb"], path + ".egress_usd_per_gb");
    } else if (!kv.second.IsNull()) {
      ctx.fail(kv.second, path, "must be a mapping (e.g. {latency_ms: {us-west: 62}}) or empty");
    }
    s.regions.push_back(r);
  }
}

/// `pools` as a whole: a non-empty mapping of at most kMaxPools named pools.
void check_pool_map(const Context& ctx, const YAML::Node& pools) {
  if (!pools.IsMap() || pools.size() == 0)
    ctx.fail(pools, "pools", "must be a non-empty mapping of pool names to pools");
  if (pools.size() > kMaxPools)
    ctx.fail(pools, "pools",
             "has " + std::to_string(pools.size()) + " pools; at most " +
                 std::to_string(kMaxPools) +
                 " are supported (the model keeps a table of every pair of pools)");
  expect_unique_keys(ctx, pools, "pools");
  for (const auto& kv : pools)  // reported by check_keys; nothing to read without a name
    if (!kv.first.IsScalar() || kv.first.Scalar().empty()) throw ScenarioError("");
}

/// Every pool, each on its own, adding up their quotas. Returns whether every pool is sound.
bool read_pools(const Context& pool_ctx, const YAML::Node& pools, Scenario& s,
                uint64_t& total_quota, ErrorList& errors) {
  bool pools_ok = true;
  for (const auto& kv : pools) {
    const std::string name = kv.first.Scalar();
    pools_ok = errors.attempt([&] {
      s.pools.push_back(read_pool(pool_ctx, kv.second, "pools." + name, name, s));
      total_quota += s.pools.back().quota_gpus;
    }) && pools_ok;
  }
  return pools_ok;
}

/// The pools' quotas together: at most kMaxTotalQuotaGpus.
void check_total_quota(const Context& ctx, const YAML::Node& pools, uint64_t total_quota) {
  if (total_quota > kMaxTotalQuotaGpus)
    ctx.fail(pools, "pools",
             "the quotas add up to " + std::to_string(total_quota) + " GPUs; at most " +
                 std::to_string(kMaxTotalQuotaGpus) + " are supported");
}

/// `workloads` as a whole: a non-empty list of at most 65535 job classes.
void check_workload_list(const Context& ctx, const YAML::Node& workloads) {
  if (!workloads.IsSequence() || workloads.size() == 0)
    ctx.fail(workloads, "workloads", "must be a non-empty list of job classes");
  if (workloads.size() > 0xFFFF) ctx.fail(workloads, "workloads", "at most 65535 job classes");
}

/// The (workload, pool) pairs: at most kMaxClassPoolPairs.
void check_class_pool_pairs(const Context& ctx, const YAML::Node& workloads, const Scenario& s) {
  if (workloads.size() * s.pools.size() > kMaxClassPoolPairs)
    ctx.fail(workloads, "workloads",
             std::to_string(workloads.size()) + " workloads and " + std::to_string(s.pools.size()) +
                 " pools make " + std::to_string(workloads.size() * s.pools.size()) +
                 " (workload, pool) pairs; at most " + std::to_string(kMaxClassPoolPairs) +
                 " are supported (the model keeps a transfer table for each)");
}

/// Every workload, each on its own, with a name no other has. Returns whether each is sound.
bool read_workloads(const Context& ctx, const YAML::Node& workloads, Scenario& s,
                    ErrorList& errors) {
  std::map<std::string, std::size_t> workload_index;  // name -> first index
  bool workloads_ok = true;
  for (std::size_t i = 0; i < workloads.size(); ++i) {
    const std::string path = "workloads[" + std::to_string(i) + "]";
    workloads_ok = errors.attempt([&] {
      JobClassSpec w = read_workload(ctx, workloads[i], path, s);
      const auto [it, fresh] = workload_index.emplace(w.name, i);
      if (!fresh)
        ctx.fail(workloads[i]["name"], path + ".name",
                 "\"" + text::excerpt(w.name) + "\" is already the name of workloads[" +
                     std::to_string(it->second) + "]");
      s.workloads.push_back(std::move(w));
    }) && workloads_ok;
  }
  if (workloads_ok) workloads_ok = errors.attempt([&] { check_initial_state_fits(ctx, workloads, s); });
  return workloads_ok;
}

}  // namespace

Scenario read_scenario(const Context& ctx, const YAML::Node& root) {
  ErrorList errors;
  Scenario s;
  const std::vector<std::string> top_keys = scenario_child_keys("");
  // Every key on its own first, so that several mistakes in one part are all listed; the
  // readers below then report what links keys (a problem found twice is listed once).
  if (root.IsMap()) check_keys(ctx, root, "", "", errors);
  errors.attempt([&] { expect_map(ctx, root, "", top_keys); });
  // A required key that is missing because it was misspelt is reported once, as the typo.
  const std::set<std::string> misspelt = misspelt_keys(root, top_keys);
  const bool horizon_ok = read_scalar_keys(ctx, root, misspelt, s, errors);
  // Everything below depends on the horizon.
  if (!horizon_ok) errors.throw_if_any(ctx.origin);
  errors.attempt([&] { read_timeseries(ctx, root, s); });
  errors.attempt([&] { read_records(ctx, root, s); });

  // The policy depends on nothing else.
  errors.attempt([&] {
    if (root["policy"]) s.policy = read_policy(ctx, root["policy"], "policy");
  });
  const bool providers_ok = errors.attempt([&] { read_providers(ctx, root, s); });
  const bool regions_ok = errors.attempt([&] { read_regions(ctx, root, s); });

  Catalog catalog;
  Context pool_ctx = ctx;
  const bool catalog_ok = errors.attempt([&] {
    if (!root["catalog"]) return;
    catalog = read_catalog(ctx, root["catalog"]);
    pool_ctx.catalog = &catalog;
  });
  // Pools name providers, regions and catalog rows: read them only when those are sound.
  if (!providers_ok || !regions_ok || !catalog_ok) errors.throw_if_any(ctx.origin);

  YAML::Node pools;
  const bool pool_map_ok = errors.attempt([&] {
    pools = required_key(ctx, root, misspelt, "pools", "a mapping of pool names to pools");
    check_pool_map(ctx, pools);
  });
  if (!pool_map_ok) errors.throw_if_any(ctx.origin);
  uint64_t total_quota = 0;
  const bool pools_ok = read_pools(pool_ctx, pools, s, total_quota, errors);
  // Workloads name pools: read them only when every pool is sound.
  if (!pools_ok) errors.throw_if_any(ctx.origin);
  errors.attempt([&] { check_total_quota(ctx, pools, total_quota); });

  // Goals name metrics of the pools: read once the pools are sound.
  errors.attempt([&] {
    if (root["goals"]) s.goals = read_goals(ctx, root["goals"], s);
  });
  // Commitments cover pools, and placement limits name commitments: between the two.
  const bool commitments_ok = errors.attempt([&] { read_commitments(ctx, root, s); });
  if (!commitments_ok) errors.throw_if_any(ctx.origin);

  YAML::Node workloads;
  const bool workload_list_ok = errors.attempt([&] {
    workloads = required_key(ctx, root, misspelt, "workloads", "a list of job classes");
    check_workload_list(ctx, workloads);
  });
  if (!workload_list_ok) errors.throw_if_any(ctx.origin);
  check_class_pool_pairs(ctx, workloads, s);
  const bool workloads_ok = read_workloads(ctx, workloads, s, errors);
  // Services share pools: checked across every workload once each is sound.
  if (workloads_ok) errors.attempt([&] { check_service_pools(ctx, workloads, s); });
  // How many events a replication would process, once every part is sound.
  if (workloads_ok && errors.empty()) errors.attempt([&] { check_event_budget(ctx, root, s); });
  errors.throw_if_any(ctx.origin);
  return s;
}

// ---- overrides ------------------------------------------------------------------------------

}  // namespace gpucap::loader
