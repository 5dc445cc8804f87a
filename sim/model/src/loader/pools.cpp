// gpucap: scenario loader, the `pools` section: one pool, read by its purchase option's
// properties (purchase_options.hpp), with its preemption, availability trace and price process.
#include "loader.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "availability_json.hpp"
#include "gpucap/json_reader.hpp"

namespace gpucap::loader {

/// `preemption` of a spot pool: time_to_preemption (a distribution), notice, max_runtime.
void read_preemption(const Context& ctx, const YAML::Node& node, const std::string& path,
                     PoolSpec& p) {
  expect_map(ctx, node, path, scenario_child_keys("pools.NAME.preemption"));
  if (node["time_to_preemption"]) {
    p.has_time_to_preemption = true;
    p.time_to_preemption_s =
        read_distribution(ctx, node["time_to_preemption"], join_path(path, "time_to_preemption"));
    // A run reclaimed the instant it starts would relaunch and be reclaimed again at the same
    // time for ever.
    if (!(p.time_to_preemption_s.mean() > 0))
      ctx.fail(node["time_to_preemption"], join_path(path, "time_to_preemption"),
               "the time to preemption must have a mean > 0 (a run reclaimed the instant it "
               "starts would never end)");
  }
  read_plain_keys(ctx, node, path, "pools.NAME.preemption", {{KeyTarget::pool, &p}});
  if (node["zone_events"]) {
    p.has_zone_events = true;
    p.zone_event_gap_s =
        read_distribution(ctx, node["zone_events"], join_path(path, "zone_events"));
    if (!(p.zone_event_gap_s.mean() > 0))
      ctx.fail(node["zone_events"], join_path(path, "zone_events"),
               "the time between zone-wide events must have a mean > 0");
  }
  if (!p.has_time_to_preemption && p.max_runtime_s == 0 && !p.has_zone_events)
    ctx.fail(node, path,
             "needs time_to_preemption (a distribution, e.g. {dist: exponential, "
             "mean: 20h}), max_runtime, zone_events, or several of them");
}


/// `availability` of a pool: a trace of available instances at a fixed step, from a JSON file
/// ({"metadata": {"gap_seconds": N}, "data": [...]}, the format of the public spot traces) or
/// from a CSV column with an explicit step.
void read_availability(const Context& ctx, const YAML::Node& node, const std::string& path,
                       PoolSpec& p) {
  expect_map(ctx, node, path, scenario_child_keys("pools.NAME.availability"));
  const YAML::Node file_node = require(ctx, node, path, "file", "a JSON or CSV trace file");
  const std::string fpath = join_path(path, "file");
  p.availability_file = read_string(ctx, file_node, fpath);
  const std::string resolved = ctx.resolve(p.availability_file);
  const bool json = resolved.size() >= 5 && resolved.substr(resolved.size() - 5) == ".json";
  if (json) {
    if (node["column"] || node["step"])
      ctx.fail(node, path,
               "a JSON trace carries its own step (metadata.gap_seconds) and data; "
               "remove column and step");
    const std::shared_ptr<const DataFile> json_file =
        ctx.read_data(file_node, fpath, p.availability_file);
    std::shared_ptr<const AvailabilityJson> parsed;
    try {
      // Parsed once per file and process, like the CSV tables.
      parsed = json_file->derived<AvailabilityJson>(
          "availability-json",
          [&] {
            auto t = std::make_shared<AvailabilityJson>();
            read_json(json_file->text(), *t);
            return std::shared_ptr<const AvailabilityJson>(std::move(t));
          },
          [](const AvailabilityJson& t) { return sizeof t + t.counts.capacity() * sizeof(double); });
    } catch (const JsonError& e) {
      ctx.fail(file_node, fpath, text::excerpt(resolved, 300) + ":" + e.what());
    }
    const AvailabilityJson& trace = *parsed;
    if (!trace.has_gap || !trace.has_data)
      ctx.fail(file_node, fpath,
               text::excerpt(resolved, 300) +
                   ": expected {\"metadata\": {\"gap_seconds\": N}, \"data\": [counts...]}; "
                   "missing " +
                   (trace.has_gap ? "data" : "metadata.gap_seconds"));
    p.availability_step_s = trace.gap_s;
    p.availability = trace.counts;
  } else {
    const std::string column = node["column"]
                                   ? read_string(ctx, node["column"], join_path(path, "column"))
                                   : std::string("available");
    p.availability_step_s = read_key_duration(ctx, require(ctx, node, path, "step", "the time between rows of the CSV trace"), join_path(path, "step"));
    p.availability = read_csv_column(ctx, file_node, fpath, p.availability_file, column);
    for (double v : p.availability)
      if (!(v >= 0)) ctx.fail(file_node, fpath, "column '" + column + "' must hold counts >= 0");
  }
  if (p.availability.empty()) ctx.fail(file_node, fpath, "the availability trace has no rows");
  if (node["gpus_per_instance"])
    p.gpus_per_instance = static_cast<double>(read_key_integer(ctx, node["gpus_per_instance"], join_path(path, "gpus_per_instance")));
  if (node["start"])
    p.availability_start_s =
        read_trace_start(ctx, node["start"], join_path(path, "start"), p.availability_random_start);
  if (node["after_end"])
    p.availability_after_end =
        read_choice<TraceEnd>(ctx, node["after_end"], join_path(path, "after_end"));
}

/// The largest stationary standard deviation of an ornstein_uhlenbeck price, as a fraction of
/// its level: the price is Gaussian, so it is below zero with probability Phi(-4) = 3.2e-5.
constexpr double kMaxOrnsteinUhlenbeckRelativeSd = 0.25;

/// `price_process` of a pool: {model: trace, file, column, step, start}, {model:
/// mean_reverting, volatility_per_sqrt_hour, reversion_per_hour, step} or {model:
/// ornstein_uhlenbeck, volatility_per_sqrt_hour, reversion_per_hour}.
void read_price_process(const Context& ctx, const YAML::Node& node, const std::string& path,
                        PoolSpec& p) {
  if (!node.IsMap())
    ctx.fail(node, path,
             "must be a mapping with 'model' (trace, mean_reverting or ornstein_uhlenbeck); got " +
                 describe(node));
  p.price_model = read_choice<CompiledPool::PriceModel>(
      ctx, require(ctx, node, path, "model", "trace, mean_reverting or ornstein_uhlenbeck"),
      join_path(path, "model"));
  if (p.price_model == CompiledPool::kOrnsteinUhlenbeckPrice) {
    expect_map(ctx, node, path,
               scenario_child_keys("pools.NAME.price_process", "model", "ornstein_uhlenbeck"));
    const YAML::Node sigma_node =
        require(ctx, node, path, "volatility_per_sqrt_hour", "sigma, as a fraction of the level");
    p.price_volatility_per_sqrt_hour =
        read_key_number(ctx, sigma_node, join_path(path, "volatility_per_sqrt_hour"));
    p.price_reversion_per_hour = read_key_number(
        ctx, require(ctx, node, path, "reversion_per_hour", "theta, the pull to the level"),
        join_path(path, "reversion_per_hour"));
    // The price itself is Gaussian: keep it away from zero (P(price < 0) <= 3.2e-5).
    const double relative_sd =
        p.price_volatility_per_sqrt_hour / std::sqrt(2 * p.price_reversion_per_hour);
    if (relative_sd > kMaxOrnsteinUhlenbeckRelativeSd)
      ctx.fail(sigma_node, join_path(path, "volatility_per_sqrt_hour"),
               "gives a stationary standard deviation of " + text::format_number(relative_sd) +
                   " x the level (sigma / sqrt(2 theta)); at most 0.25 is valid, so that the "
                   "price stays above zero (use model: mean_reverting, a log-price, for wider "
                   "swings)");
    return;
  }
  p.price_step_s =
      read_key_duration(ctx, require(ctx, node, path, "step", "how often the price changes, e.g. 1h"), join_path(path, "step"));
  if (p.price_model == CompiledPool::kTracePrice) {
    expect_map(ctx, node, path, scenario_child_keys("pools.NAME.price_process", "model", "trace"));
    const YAML::Node file_node = require(ctx, node, path, "file", "a CSV of prices");
    const std::string column = node["column"]
                                   ? read_string(ctx, node["column"], join_path(path, "column"))
                                   : std::string("price_usd_per_gpu_hour");
    p.price_trace_usd_per_gpu_hour =
        read_csv_column(ctx, file_node, join_path(path, "file"),
                        read_string(ctx, file_node, join_path(path, "file")), column);
    if (p.price_trace_usd_per_gpu_hour.empty())
      ctx.fail(file_node, join_path(path, "file"), "the price trace has no rows");
    for (double v : p.price_trace_usd_per_gpu_hour)
      if (!(v >= 0))
        ctx.fail(file_node, join_path(path, "file"),
                 "column '" + column + "' must hold prices >= 0 USD per GPU-hour");
    if (node["start"])
      p.price_start_s =
          read_trace_start(ctx, node["start"], join_path(path, "start"), p.price_random_start);
  } else {
    expect_map(ctx, node, path,
               scenario_child_keys("pools.NAME.price_process", "model", "mean_reverting"));
    p.price_volatility_per_sqrt_hour = read_key_number(ctx, require(ctx, node, path, "volatility_per_sqrt_hour", "sigma of the log-price"), join_path(path, "volatility_per_sqrt_hour"));
    p.price_reversion_per_hour = read_key_number(ctx, require(ctx, node, path, "reversion_per_hour", "theta, the pull to the level"), join_path(path, "reversion_per_hour"));
  }
}

namespace {

/// `provider` and `region`: references to declared names, or any text when none are declared.
void read_pool_place(const Context& ctx, const YAML::Node& node, const std::string& path,
                     const Scenario& s, PoolSpec& p) {
  if (node["provider"]) {
    std::vector<std::string> names;
    for (const auto& pr : s.providers) names.push_back(pr.name);
    p.provider = names.empty() ? read_string(ctx, node["provider"], join_path(path, "provider"))
                               : read_reference(ctx, node["provider"], join_path(path, "provider"),
                                                names, "provider");
  }
  if (node["region"]) {
    std::vector<std::string> names;
    for (const auto& r : s.regions) names.push_back(r.name);
    p.region = names.empty() ? read_string(ctx, node["region"], join_path(path, "region"))
                             : read_reference(ctx, node["region"], join_path(path, "region"), names,
                                              "region");
  }
}

/// `catalog_row`, `gpu` and `gpu_memory_gb`: a catalog row supplies the GPU model, its memory
/// and the price, unless given here. Returns the row, or nullptr.
const CatalogRow* read_pool_gpu(const Context& ctx, const YAML::Node& node,
                                const std::string& path, PoolSpec& p) {
  const CatalogRow* row = nullptr;
  if (node["catalog_row"]) {
    const YAML::Node key_node = node["catalog_row"];
    if (ctx.catalog == nullptr)
      ctx.fail(key_node, join_path(path, "catalog_row"),
               "needs a price catalog: add catalog: ../data/gpu_prices.csv at the top level");
    std::vector<std::string> keys_in_catalog;
    for (const auto& [key, value] : *ctx.catalog) keys_in_catalog.push_back(key);
    const std::string key = read_reference(ctx, key_node, join_path(path, "catalog_row"),
                                           keys_in_catalog, "catalog row");
    row = &ctx.catalog->at(key);
    p.gpu = row->gpu_model;
    p.gpu_memory_gb = row->gpu_memory_gb;
  }
  if (!row || node["gpu"])
    p.gpu = read_string(ctx, require(ctx, node, path, "gpu", "the GPU model, e.g. H100"),
                        join_path(path, "gpu"));
  if (node["gpu_memory_gb"])
    p.gpu_memory_gb = read_key_number(ctx, node["gpu_memory_gb"], join_path(path, "gpu_memory_gb"));
  return row;
}

/// The price of a pool billed per hold: a price process's trace (its mean, for reports), the
/// catalog row's column, or price_usd_per_gpu_hour.
void read_hold_price(const Context& ctx, const YAML::Node& node, const std::string& path,
                     const PurchaseOptionInfo& option, const CatalogRow* row, PoolSpec& p) {
  if (node["price_process"])
    read_price_process(ctx, node["price_process"], join_path(path, "price_process"), p);
  if (p.price_model == CompiledPool::kTracePrice && !node["price_usd_per_gpu_hour"]) {
    double sum = 0;  // for reports only: the trace sets every price
    for (double v : p.price_trace_usd_per_gpu_hour) sum += v;
    p.price_usd_per_gpu_hour = sum / p.price_trace_usd_per_gpu_hour.size();
  } else if (row && !node["price_usd_per_gpu_hour"]) {
    p.price_usd_per_gpu_hour = option.catalog_price == CatalogPrice::spot
                                   ? row->spot_usd_per_gpu_hour
                                   : row->on_demand_usd_per_gpu_hour;
    if (p.price_usd_per_gpu_hour < 0)
      ctx.fail(node["catalog_row"], join_path(path, "catalog_row"),
               "this catalog row has no spot price; give price_usd_per_gpu_hour");
  } else {
    p.price_usd_per_gpu_hour =
        read_key_number(ctx, require(ctx, node, path, "price_usd_per_gpu_hour",
                                     "a price >= 0 USD per GPU-hour"),
                        join_path(path, "price_usd_per_gpu_hour"));
  }
}

/// The price of a pool billed per replica lifetime: per GPU-second or -hour, or the catalog
/// row's on-demand price.
void read_replica_price(const Context& ctx, const YAML::Node& node, const std::string& path,
                        const CatalogRow* row, PoolSpec& p) {
  auto price = [&](const char* key, const std::string& what) {
    return read_key_number(ctx, require(ctx, node, path, key, what), join_path(path, key));
  };
  if (node["price_usd_per_gpu_second"] && node["price_usd_per_gpu_hour"])
    ctx.fail(node["price_usd_per_gpu_second"], join_path(path, "price_usd_per_gpu_second"),
             "give the price once: price_usd_per_gpu_second or price_usd_per_gpu_hour");
  if (node["price_usd_per_gpu_second"])
    p.price_usd_per_gpu_hour =
        3600.0 * price("price_usd_per_gpu_second", "a price >= 0 USD per GPU-second");
  else if (row && !node["price_usd_per_gpu_hour"])
    p.price_usd_per_gpu_hour = row->on_demand_usd_per_gpu_hour;
  else
    p.price_usd_per_gpu_hour =
        price("price_usd_per_gpu_hour", "a price >= 0 USD per GPU-hour (or price_usd_per_gpu_second)");
}

/// The pool's size (`quota`, or `count` when committed) and its price, by its option's rule.
void read_pool_size_and_price(const Context& ctx, const YAML::Node& node, const std::string& path,
                              const CatalogRow* row, PoolSpec& p) {
  const PurchaseOptionInfo& option = purchase_info(p.purchase);
  const char* size_key = option.committed ? "count" : "quota";
  // A pool for services only, without a quota, gets what its services' max_replicas need (set
  // later).
  if (!option.services_only || node["quota"])
    p.quota_gpus = static_cast<uint32_t>(read_key_integer(
        ctx,
        require(ctx, node, path, size_key,
                option.committed ? "the number of GPUs committed" : "the most GPUs held at once"),
        join_path(path, size_key)));
  // A serverless pool's quota of 0 would read as "not given" (its services' need) later.
  if (option.services_only && node["quota"] && p.quota_gpus == 0)
    ctx.fail(node["quota"], join_path(path, "quota"),
             "must be at least 1 for a serverless pool (leave it out for the sum of its "
             "services' max_replicas x gpus)");
  auto price = [&](const char* key, const std::string& what) {
    return read_key_number(ctx, require(ctx, node, path, key, what), join_path(path, key));
  };
  switch (option.price) {
    case PriceRule::per_hold: read_hold_price(ctx, node, path, option, row, p); break;
    case PriceRule::per_replica: read_replica_price(ctx, node, path, row, p); break;
    case PriceRule::committed:
      p.committed_usd_per_gpu_hour =
          price("price_usd_per_gpu_hour", "a committed price >= 0 USD per GPU-hour");
      break;
    case PriceRule::amortized: {
      const double capex = price("capex_usd_per_gpu", "a purchase price >= 0 USD per GPU");
      const double years = price("amortize_years", "years over which to spread the capex");
      const double opex =
          node["opex_usd_per_gpu_hour"]
              ? price("opex_usd_per_gpu_hour", "power and operations >= 0 USD per GPU-hour")
              : 0.0;
      p.committed_usd_per_gpu_hour = capex / (years * 8760.0) + opex;  // 8760 h in a year
      break;
    }
  }
}

/// `stockout`: {probability, retry_after}.
void read_stockout(const Context& ctx, const YAML::Node& so, const std::string& spath,
                   PoolSpec& p) {
  expect_map(ctx, so, spath, scenario_child_keys("pools.NAME.stockout"));
  read_plain_keys(ctx, so, spath, "pools.NAME.stockout", {{KeyTarget::pool, &p}});
}

/// `slowdown`: a distribution of factors that stays above 0 (a factor of 0 would make a run
/// take no time).
void read_slowdown(const Context& ctx, const YAML::Node& node, const std::string& path,
                   PoolSpec& p) {
  p.has_slowdown = true;
  p.slowdown = read_distribution(ctx, node, path);
  const DistributionSpec& d = p.slowdown;
  bool positive = true;
  if (d.kind == DistKind::deterministic || d.kind == DistKind::uniform) positive = d.p0 > 0;
  if (d.kind == DistKind::exponential) positive = false;
  if (d.kind == DistKind::empirical)
    positive = std::all_of(d.samples.begin(), d.samples.end(), [](double v) { return v > 0; });
  if (!positive)
    ctx.fail(node, path,
             "slowdown factors must all be > 0: use a fixed factor > 0, uniform with min > 0, "
             "lognormal, gamma, weibull or pareto");
}

/// `interconnect`: {latency, bandwidth_gbps} between the pool's nodes (`gpus_per_node`).
void read_nodes(const Context& ctx, const YAML::Node& node, const std::string& path,
                PoolSpec& p) {
  if (!node["interconnect"]) return;
  const YAML::Node ic = node["interconnect"];
  const std::string ipath = join_path(path, "interconnect");
  expect_map(ctx, ic, ipath, scenario_child_keys("pools.NAME.interconnect"));
  if (!node["gpus_per_node"])
    ctx.fail(ic, ipath, "needs gpus_per_node on the pool (the interconnect links its nodes)");
  read_plain_keys(ctx, ic, ipath, "pools.NAME.interconnect", {{KeyTarget::pool, &p}});
}

/// `cold_start`: {container, weights_gb_per_s} or {snapshot_restore}.
void read_cold_start(const Context& ctx, const YAML::Node& cs, const std::string& cpath,
                     PoolSpec& p) {
  expect_map(ctx, cs, cpath, scenario_child_keys("pools.NAME.cold_start"));
  if (cs["snapshot_restore"] && (cs["container"] || cs["weights_gb_per_s"]))
    ctx.fail(cs["snapshot_restore"], cpath + ".snapshot_restore",
             "a snapshot restore replaces the container start and the weights load; give "
             "either snapshot_restore or container and weights_gb_per_s");
  read_plain_keys(ctx, cs, cpath, "pools.NAME.cold_start", {{KeyTarget::pool, &p}});
  if (cs["container"]) {
    p.has_container_start = true;
    p.container_start_s = read_distribution(ctx, cs["container"], cpath + ".container");
  }
}

/// Provisioning delay, availability and stockouts.
void read_pool_service_terms(const Context& ctx, const YAML::Node& node, const std::string& path,
                             PoolSpec& p) {
  if (node["provisioning_delay"]) {
    p.has_provisioning_delay = true;
    p.provisioning_delay_s =
        read_distribution(ctx, node["provisioning_delay"], join_path(path, "provisioning_delay"));
  }
  if (node["availability"])
    read_availability(ctx, node["availability"], join_path(path, "availability"), p);
  if (node["stockout"]) read_stockout(ctx, node["stockout"], join_path(path, "stockout"), p);
}

}  // namespace

PoolSpec read_pool(const Context& ctx, const YAML::Node& node, const std::string& path,
                   const std::string& name, const Scenario& s) {
  if (!node.IsMap()) ctx.fail(node, path, "must be a mapping (a pool); got " + describe(node));
  PoolSpec p;
  p.name = name;
  if (node["purchase"])
    p.purchase = read_choice<PurchaseOption>(ctx, node["purchase"], join_path(path, "purchase"));
  // Each purchase option takes the keys the key table marks for it.
  expect_map(ctx, node, path,
             scenario_child_keys("pools.NAME", "purchase",
                                 node["purchase"] ? node["purchase"].Scalar()
                                                  : scenario_discriminator_default("pools.NAME")));
  read_plain_keys(ctx, node, path, "pools.NAME", {{KeyTarget::pool, &p}});
  read_pool_place(ctx, node, path, s, p);
  const CatalogRow* row = read_pool_gpu(ctx, node, path, p);
  read_pool_size_and_price(ctx, node, path, row, p);
  read_pool_service_terms(ctx, node, path, p);
  if (node["slowdown"]) read_slowdown(ctx, node["slowdown"], join_path(path, "slowdown"), p);
  read_nodes(ctx, node, path, p);
  if (node["cold_start"]) read_cold_start(ctx, node["cold_start"], join_path(path, "cold_start"), p);
  // A preemptible pool is reclaimed by its preemption model (node failures on a marketplace),
  // its availability trace, or both.
  if (purchase_info(p.purchase).preemptible && (node["preemption"] || p.availability.empty()))
    read_preemption(ctx,
                    require(ctx, node, path, "preemption",
                            "how instances are reclaimed: time_to_preemption, notice, "
                            "max_runtime (or give an availability trace)"),
                    join_path(path, "preemption"), p);
  return p;
}

}  // namespace gpucap::loader
