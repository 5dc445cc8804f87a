// gpucap: scenario loader, inference services (`kind: inference`): the service's pools, its
// requests, its replicas and autoscaler, and the pools services take for themselves.
#include "loader.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace gpucap::loader {
namespace {

/// The number of ticks in `value_s` (a window or delay of the windowed autoscaler), which
/// must be a whole number of them, at least `least`, at most kMaxAutoscaleTicks.
uint32_t whole_ticks(const Context& ctx, const YAML::Node& node, const std::string& path,
                     double value_s, double tick_s, double least = 1) {
  constexpr double kMaxAutoscaleTicks = 100000;
  const double ticks = value_s / tick_s;
  const double whole = std::round(ticks);
  if (std::fabs(ticks - whole) > 1e-9 * std::max(1.0, whole))
    ctx.fail(node, path,
             "must be a whole number of ticks (autoscaling.tick, " + text::format_duration(tick_s) +
                 "), got " + text::format_duration(value_s) + " = " + text::format_number(ticks) +
                 " ticks");
  if (whole < least)
    ctx.fail(node, path,
             "must be at least one tick (autoscaling.tick, " + text::format_duration(tick_s) +
                 "), got " + text::format_duration(value_s));
  if (whole > kMaxAutoscaleTicks)
    ctx.fail(node, path,
             "is " + text::format_number(whole) + " ticks of " + text::format_duration(tick_s) +
                 "; at most " + text::format_number(kMaxAutoscaleTicks) +
                 " are supported (make the tick longer)");
  return static_cast<uint32_t>(whole);
}

/// The windowed autoscaler's keys of `autoscaling` (stable_window is present).
void read_windowed_autoscaler(const Context& ctx, const YAML::Node& as, const std::string& apath,
                              ServiceSpec& svc) {
  svc.windowed = true;
  if (as["idle_timeout"])
    ctx.fail(as["idle_timeout"], apath + ".idle_timeout",
             "the windowed autoscaler (stable_window) stops replicas itself; remove idle_timeout");
  if (as["tick"]) svc.tick_s = read_key_duration(ctx, as["tick"], apath + ".tick");
  svc.stable_window_s = read_key_duration(ctx, as["stable_window"], apath + ".stable_window");
  whole_ticks(ctx, as["stable_window"], apath + ".stable_window", svc.stable_window_s,
              svc.tick_s);
  if (as["panic_window"]) {
    svc.panic_window_s = read_key_duration(ctx, as["panic_window"], apath + ".panic_window");
    if (svc.panic_window_s > svc.stable_window_s)
      ctx.fail(as["panic_window"], apath + ".panic_window",
               "must be at most the stable window (" +
                   text::format_duration(svc.stable_window_s) + "), got " +
                   text::format_duration(svc.panic_window_s));
    whole_ticks(ctx, as["panic_window"], apath + ".panic_window", svc.panic_window_s,
                svc.tick_s);
  } else {
    svc.panic_window_s = svc.stable_window_s / 10;
    const double ticks = svc.panic_window_s / svc.tick_s;
    if (std::fabs(ticks - std::round(ticks)) > 1e-9 * std::max(1.0, ticks) || ticks < 0.5)
      ctx.fail(as["stable_window"], apath + ".stable_window",
               "the default panic window, stable_window / 10 = " +
                   text::format_duration(svc.panic_window_s) +
                   ", is not a whole number of ticks (" + text::format_duration(svc.tick_s) +
                   "); give autoscaling.panic_window");
  }
  if (as["panic_threshold_percentage"])
    svc.panic_threshold = read_key_number(ctx, as["panic_threshold_percentage"],
                                          apath + ".panic_threshold_percentage") /
                          100;
  if (as["scale_down_delay"]) {
    svc.scale_down_delay_s =
        read_key_duration(ctx, as["scale_down_delay"], apath + ".scale_down_delay");
    whole_ticks(ctx, as["scale_down_delay"], apath + ".scale_down_delay",
                svc.scale_down_delay_s, svc.tick_s, 0);
  }
}


/// What pool p has that applies to jobs and not to inference replicas (stockouts do apply to
/// them when `stockouts_apply`), or null.
const char* jobs_only_feature(const PoolSpec& p, bool stockouts_apply) {
  if (!p.availability.empty()) return "an availability trace";
  if (p.stockout_probability > 0 && !stockouts_apply) return "stockouts";
  if (p.has_zone_events) return "zone_events";
  if (p.price_model != CompiledPool::kFixedPrice) return "a price process";
  if (p.has_slowdown) return "a slowdown";
  return nullptr;
}

/// `pool` and `fallback_pool`: the service's pool, and the pool its replicas go to when a
/// preemptible pool reclaims them.
void read_service_pools(const Context& ctx, const YAML::Node& node, const std::string& path,
                        const Scenario& s, ServiceSpec& svc) {
  std::vector<std::string> pool_names;
  for (const auto& p : s.pools) pool_names.push_back(p.name);
  svc.pool = read_reference(
      ctx, require(ctx, node, path, "pool", "the pool whose GPUs run the service's replicas"),
      join_path(path, "pool"), pool_names, "pool");
  const PoolSpec& pool = s.pools[s.pool_index(svc.pool)];
  const PurchaseOptionInfo& option = purchase_info(pool.purchase);
  // Stockouts apply to replicas of preemptible pools (the launch goes to the fallback pool, or
  // waits for the autoscaler's next decision); the rest apply to jobs only.
  if (const char* feature = jobs_only_feature(pool, option.preemptible))
    ctx.fail(node["pool"], join_path(path, "pool"),
             "pool \"" + svc.pool + "\" has " + feature +
                 ", which applies to jobs only; give the service a pool without it");
  if (!node["fallback_pool"]) return;
  const YAML::Node f = node["fallback_pool"];
  const std::string fpath = join_path(path, "fallback_pool");
  svc.fallback_pool = read_reference(ctx, f, fpath, pool_names, "pool");
  const PoolSpec& fallback = s.pools[s.pool_index(svc.fallback_pool)];
  if (!option.preemptible)
    ctx.fail(f, fpath,
             "pool \"" + svc.pool + "\" is " + option.name +
                 ", not preemptible: replicas there are never reclaimed, so there is nothing to "
                 "fall back from; a fallback pool needs a " +
                 purchase_option_list(is_preemptible, " or ") + " pool");
  if (svc.fallback_pool == svc.pool)
    ctx.fail(f, fpath,
             "is the service's own pool; name another pool (" +
                 purchase_option_list(is_dedicated, " or ") + ")");
  if (!is_dedicated(purchase_info(fallback.purchase)))
    ctx.fail(f, fpath,
             "pool \"" + svc.fallback_pool + "\" is " + purchase_info(fallback.purchase).name +
                 "; a fallback pool is " + purchase_option_list(is_dedicated, " or ") +
                 " (never reclaimed, always billed by the hold)");
  if (const char* feature = jobs_only_feature(fallback, false))
    ctx.fail(f, fpath,
             "pool \"" + svc.fallback_pool + "\" has " + feature +
                 ", which applies to jobs only (a fallback pool has room whenever its quota "
                 "has); give the service a fallback pool without it");
}

/// `arrivals` and `service`: the requests; what a replica needs (`gpus`, `vram_gb`) must fit
/// the service's pools' memory.
void read_service_demand(const Context& ctx, const YAML::Node& node, const std::string& path,
                         const Scenario& s, JobClassSpec& w) {
  const ServiceSpec& svc = w.service;
  w.arrivals = read_arrivals(
      ctx, require(ctx, node, path, "arrivals", "a request arrival process (poisson, nhpp, trace)"),
      join_path(path, "arrivals"), node["llm"] ? ArrivalsOf::llm_requests : ArrivalsOf::requests);
  if (node["llm"]) {
    if (w.arrivals.kind == ArrivalKind::trace) assign_trace_tokens(ctx, node, path, w);
  } else if (w.arrivals.kind == ArrivalKind::trace) {
    if (node["service"])
      ctx.fail(node["service"], join_path(path, "service"),
               "a request trace gives each request's service time (its duration column); remove "
               "'service'");
  } else {
    w.work_s = read_distribution(
        ctx, require(ctx, node, path, "service", "the service time of one request (distribution)"),
        join_path(path, "service"));
  }
  const PoolSpec& pool = s.pools[s.pool_index(svc.pool)];
  if (!fits_memory(w, pool))
    ctx.fail(node["vram_gb"], join_path(path, "vram_gb"),
             "a replica needing " + text::format_number(w.vram_gb) + " GB per GPU does not fit " +
                 "pool \"" + svc.pool + "\" (" + text::format_number(pool.gpu_memory_gb) +
                 " GB per GPU)");
  if (svc.fallback_pool.empty()) return;
  const PoolSpec& fallback = s.pools[s.pool_index(svc.fallback_pool)];
  if (!fits_memory(w, fallback))
    ctx.fail(node["vram_gb"], join_path(path, "vram_gb"),
             "a replica needing " + text::format_number(w.vram_gb) +
                 " GB per GPU does not fit its fallback pool \"" + svc.fallback_pool + "\" (" +
                 text::format_number(fallback.gpu_memory_gb) + " GB per GPU)");
}

/// `autoscaling`: {min_replicas, max_replicas, idle_timeout, target_concurrency}, and the
/// windowed autoscaler's keys.
void read_autoscaling(const Context& ctx, const YAML::Node& as, const std::string& apath,
                      ServiceSpec& svc) {
  expect_map(ctx, as, apath, scenario_child_keys("workloads[].autoscaling"));
  if (as["min_replicas"])
    svc.min_replicas =
        static_cast<uint32_t>(read_key_integer(ctx, as["min_replicas"], apath + ".min_replicas"));
  svc.max_replicas = static_cast<uint32_t>(read_key_integer(
      ctx, require(ctx, as, apath, "max_replicas", "the most replicas at once"),
      apath + ".max_replicas"));
  if (svc.min_replicas > svc.max_replicas)
    ctx.fail(as["min_replicas"], apath + ".min_replicas",
             "must be at most max_replicas (" + std::to_string(svc.max_replicas) + ")");
  svc.idle_timeout_s = std::numeric_limits<double>::infinity();
  if (as["stable_window"]) {
    read_windowed_autoscaler(ctx, as, apath, svc);
  } else {
    for (const char* key : {"panic_window", "panic_threshold_percentage", "scale_down_delay", "tick"})
      if (as[key])
        ctx.fail(as[key], apath + "." + key,
                 "belongs to the windowed autoscaler; give autoscaling.stable_window too (e.g. "
                 "stable_window: 60s), or remove it");
  }
  if (as["idle_timeout"])
    svc.idle_timeout_s = read_key_duration(ctx, as["idle_timeout"], apath + ".idle_timeout");
  else if (svc.min_replicas < svc.max_replicas && !svc.windowed)
    ctx.fail(as, apath,
             "needs idle_timeout (how long a replica stays warm without requests before it "
             "stops), e.g. idle_timeout: 5min");
  if (as["target_concurrency"]) {
    svc.target_concurrency =
        read_key_number(ctx, as["target_concurrency"], apath + ".target_concurrency");
    if (svc.target_concurrency > svc.concurrency)
      ctx.fail(as["target_concurrency"], apath + ".target_concurrency",
               "must be at most the concurrency per replica (" + std::to_string(svc.concurrency) +
                   ")");
  }
}

/// The replica policy: `replicas` (fixed) or `autoscaling`.
void read_replicas(const Context& ctx, const YAML::Node& node, const std::string& path,
                   ServiceSpec& svc) {
  svc.target_concurrency = svc.concurrency;
  if (node["replicas"] && node["autoscaling"])
    ctx.fail(node["replicas"], join_path(path, "replicas"),
             "give either a fixed count (replicas) or autoscaling, not both");
  if (node["replicas"]) {
    svc.min_replicas = svc.max_replicas = static_cast<uint32_t>(
        read_key_integer(ctx, node["replicas"], join_path(path, "replicas")));
    svc.idle_timeout_s = std::numeric_limits<double>::infinity();
    return;
  }
  read_autoscaling(ctx,
                   require(ctx, node, path, "autoscaling",
                           "the replica policy: autoscaling: {min_replicas, max_replicas, "
                           "idle_timeout, target_concurrency}, or a fixed count: replicas: N"),
                   join_path(path, "autoscaling"), svc);
}

/// `users_region`: where the requests come from; each of the service's pools needs a region
/// with a declared latency to it.
void read_users_region(const Context& ctx, const YAML::Node& node, const std::string& path,
                       const Scenario& s, ServiceSpec& svc) {
  std::vector<std::string> region_names;
  for (const auto& r : s.regions) region_names.push_back(r.name);
  svc.users_region = read_reference(ctx, node, path, region_names, "region");
  const PoolSpec& pool = s.pools[s.pool_index(svc.pool)];
  if (pool.region.empty())
    ctx.fail(node, path,
             "pool \"" + svc.pool + "\" has no region, so the network round trip is unknown");
  if (svc.users_region != pool.region && s.latency_ms(svc.users_region, pool.region) < 0)
    ctx.fail(node, path,
             "no latency between " + svc.users_region + " and " + pool.region + "; add regions." +
                 svc.users_region + ".latency_ms." + pool.region);
  if (svc.fallback_pool.empty()) return;
  const PoolSpec& fallback = s.pools[s.pool_index(svc.fallback_pool)];
  if (fallback.region.empty())
    ctx.fail(node, path,
             "fallback pool \"" + svc.fallback_pool +
                 "\" has no region, so the network round trip is unknown");
  if (svc.users_region != fallback.region && s.latency_ms(svc.users_region, fallback.region) < 0)
    ctx.fail(node, path,
             "no latency between " + svc.users_region + " and " + fallback.region +
                 " (fallback pool \"" + svc.fallback_pool + "\"); add regions." +
                 svc.users_region + ".latency_ms." + fallback.region);
}

/// A replica fits the quota of the service's pools, and the service's sizes stay within the
/// engine's limits.
void check_service_size(const Context& ctx, const YAML::Node& node, const std::string& path,
                        const Scenario& s, const JobClassSpec& w) {
  const ServiceSpec& svc = w.service;
  const PoolSpec& pool = s.pools[s.pool_index(svc.pool)];
  const uint64_t need = static_cast<uint64_t>(svc.max_replicas) * w.gpus;
  // A pool of count or quota 0 holds nothing (a serverless pool's 0 is its unset quota).
  const auto holds_nothing = [](const PoolSpec& q) {
    return q.quota_gpus == 0 && !purchase_info(q.purchase).services_only;
  };
  const auto size_of = [](const PoolSpec& q) {
    return purchase_info(q.purchase).committed ? "commits no GPUs (count 0)"
                                               : "holds no GPUs (quota 0)";
  };
  if (holds_nothing(pool))
    ctx.fail(node["pool"] ? node["pool"] : node, join_path(path, "pool"),
             "pool \"" + svc.pool + "\" " + size_of(pool) +
                 ", so no replica of the service could start; give the pool GPUs or the service "
                 "another pool");
  if (pool.quota_gpus > 0 && w.gpus > pool.quota_gpus)
    ctx.fail(node["gpus"] ? node["gpus"] : node, join_path(path, "gpus"),
             "a replica of " + std::to_string(w.gpus) + " GPUs does not fit pool \"" + svc.pool +
                 "\" (quota " + std::to_string(pool.quota_gpus) + ")");
  if (!svc.fallback_pool.empty()) {
    const PoolSpec& fallback = s.pools[s.pool_index(svc.fallback_pool)];
    if (holds_nothing(fallback))
      ctx.fail(node["fallback_pool"] ? node["fallback_pool"] : node, join_path(path, "fallback_pool"),
               "pool \"" + svc.fallback_pool + "\" " + size_of(fallback) +
                   "; a fallback pool must hold some");
    if (fallback.quota_gpus > 0 && w.gpus > fallback.quota_gpus)
      ctx.fail(node["gpus"] ? node["gpus"] : node, join_path(path, "gpus"),
               "a replica of " + std::to_string(w.gpus) + " GPUs does not fit its fallback pool \"" +
                   svc.fallback_pool + "\" (quota " + std::to_string(fallback.quota_gpus) + ")");
  }
  if (static_cast<uint64_t>(svc.max_replicas) * svc.concurrency > (1u << 20))
    ctx.fail(node["concurrency"] ? node["concurrency"] : node, join_path(path, "concurrency"),
             "max_replicas x concurrency is above 1048576 requests in service at once");
  if (need > kMaxTotalQuotaGpus)
    ctx.fail(node, path,
             "max_replicas x gpus is too large (at most " + std::to_string(kMaxTotalQuotaGpus) +
                 " GPUs)");
}

}  // namespace

JobClassSpec read_inference_workload(const Context& ctx, const YAML::Node& node,
                                     const std::string& path, const Scenario& s, JobClassSpec w) {
  expect_map(ctx, node, path, scenario_child_keys("workloads[]", "kind", "inference"));
  ServiceSpec& svc = w.service;
  read_plain_keys(ctx, node, path, "workloads[]",
                  {{KeyTarget::job_class, &w}, {KeyTarget::service, &svc}});
  read_service_pools(ctx, node, path, s, svc);
  w.placement = {svc.pool};
  if (node["llm"]) read_llm_service(ctx, node, path, s, w);
  read_service_demand(ctx, node, path, s, w);
  if (node["uncertainty"]) {
    const std::string upath = join_path(path, "uncertainty");
    read_uncertainty(ctx, node["uncertainty"], upath, w);
    if (node["llm"] && w.scale_sd_log > 0)
      ctx.fail(node["uncertainty"]["scale_sd_log"], upath + ".scale_sd_log",
               "an LLM service's requests take the time their tokens take on the replica's "
               "iterations: there is no service-time scale to doubt; give rate_sd_log only");
  }
  read_replicas(ctx, node, path, svc);
  if (node["users_region"])
    read_users_region(ctx, node["users_region"], join_path(path, "users_region"), s, svc);
  if (node["slo"]) {
    const YAML::Node slo = node["slo"];
    const std::string spath = join_path(path, "slo");
    expect_map(ctx, slo, spath, scenario_child_keys("workloads[].slo"));
    svc.slo_latency_s = read_key_duration(
        ctx, require(ctx, slo, spath, "latency", "the latency bound, e.g. 2s"), spath + ".latency");
  }
  check_service_size(ctx, node, path, s, w);
  return w;
}

void check_service_pools(const Context& ctx, const YAML::Node& workloads, Scenario& s) {
  std::map<std::string, std::string> service_of_pool;
  uint64_t replicas = 0;
  for (const JobClassSpec& w : s.workloads) {
    if (w.kind != WorkloadKind::inference) continue;
    service_of_pool.emplace(w.service.pool, w.name);
    if (!w.service.fallback_pool.empty()) service_of_pool.emplace(w.service.fallback_pool, w.name);
    replicas += w.service.max_replicas;
  }
  if (replicas >= (1u << 19))
    ctx.fail(workloads, "workloads",
             "the services' max_replicas add up to " + std::to_string(replicas) +
                 "; at most 524287 replicas are supported");
  for (std::size_t i = 0; i < s.workloads.size(); ++i) {
    JobClassSpec& w = s.workloads[i];
    if (w.kind == WorkloadKind::inference) continue;
    const std::string path = "workloads[" + std::to_string(i) + "].placement";
    std::vector<std::string> kept;
    for (const std::string& name : w.placement) {
      const auto it = service_of_pool.find(name);
      if (it == service_of_pool.end()) {
        kept.push_back(name);
        continue;
      }
      if (workloads[i]["placement"])
        ctx.fail(
            workloads[i]["placement"], path,
            "pool \"" + name + "\" runs the inference service \"" + it->second +
                "\"; a pool runs either jobs or inference replicas, so give jobs another pool");
    }
    if (kept.empty())
      ctx.fail(
          workloads[i], path,
          "every pool runs an inference service; add a pool for the jobs of \"" + w.name + "\"");
    w.placement = kept;
  }
  for (PoolSpec& p : s.pools) {
    if (!purchase_info(p.purchase).services_only || p.quota_gpus > 0) continue;
    uint64_t need = 0;
    for (const JobClassSpec& w : s.workloads)
      if (w.kind == WorkloadKind::inference && w.service.pool == p.name)
        need += static_cast<uint64_t>(w.service.max_replicas) * w.gpus;
    p.quota_gpus = static_cast<uint32_t>(std::min<uint64_t>(need, kMaxTotalQuotaGpus));
  }
  uint64_t total_quota = 0;
  for (const PoolSpec& p : s.pools) total_quota += p.quota_gpus;
  if (total_quota > kMaxTotalQuotaGpus)
    ctx.fail(workloads, "workloads",
             "with the serverless quotas the services need, the quotas add up to " +
                 std::to_string(total_quota) + " GPUs; at most " +
                 std::to_string(kMaxTotalQuotaGpus) + " are supported");
}

}  // namespace gpucap::loader
