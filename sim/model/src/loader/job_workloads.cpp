// gpucap: scenario loader, job workloads (`kind: batch`, `training`): gpus, work, placement, data,
// checkpoints, fallback, placement limits and gradient sync, then the checks that link them to
// the pools (memory, gang size, links between regions); deployments (`kind: deployment`) take
// the same placement keys, a lifetime and a startup. A service is handed to services.cpp.
#include "loader.hpp"

#include <algorithm>

namespace gpucap::loader {
namespace {

std::vector<std::string> pool_names_of(const Scenario& s) {
  std::vector<std::string> names;
  for (const auto& p : s.pools) names.push_back(p.name);
  return names;
}

/// `placement`: the pools a job may run on, in order of preference; every pool that is not
/// serverless when the key is absent.
void read_placement(const Context& ctx, const YAML::Node& node, const std::string& path,
                    const Scenario& s, JobClassSpec& w) {
  if (!node["placement"]) {
    for (const auto& p : s.pools)
      if (!purchase_info(p.purchase).services_only) w.placement.push_back(p.name);
    if (w.placement.empty())
      ctx.fail(node, path,
               "every pool is serverless, and serverless pools run inference services only; add "
               "a pool for these jobs or make the workload kind: inference");
    return;
  }
  const std::vector<std::string> pool_names = pool_names_of(s);
  const YAML::Node list = node["placement"];
  const std::string lpath = join_path(path, "placement");
  if (!list.IsSequence() || list.size() == 0)
    ctx.fail(list, lpath,
             "must be a non-empty list of pool names; declared pools: " +
                 text::join(pool_names, ", "));
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string ipath = lpath + "[" + std::to_string(i) + "]";
    const std::string name = read_reference(ctx, list[i], ipath, pool_names, "pool");
    if (std::find(w.placement.begin(), w.placement.end(), name) != w.placement.end())
      ctx.fail(list[i], ipath, "pool \"" + name + "\" is listed twice");
    if (purchase_info(s.pools[s.pool_index(name)].purchase).services_only)
      ctx.fail(list[i], ipath,
               "pool \"" + name +
                   "\" is serverless: it runs inference services (kind: inference), not jobs");
    w.placement.push_back(name);
  }
}

/// `data`: {size_gb, region}, fetched by every run.
void read_data(const Context& ctx, const YAML::Node& data, const std::string& dpath,
               const Scenario& s, JobClassSpec& w) {
  expect_map(ctx, data, dpath, scenario_child_keys("workloads[].data"));
  read_plain_keys(ctx, data, dpath, "workloads[].data", {{KeyTarget::job_class, &w}});
  std::vector<std::string> region_names;
  for (const auto& r : s.regions) region_names.push_back(r.name);
  w.data_region =
      read_reference(ctx, require(ctx, data, dpath, "region", "the region where the data lives"),
                     dpath + ".region", region_names, "region");
}

/// `checkpoint`: {size_gb, interval, write, restart}.
void read_checkpoint(const Context& ctx, const YAML::Node& ck, const std::string& cpath,
                     JobClassSpec& w) {
  expect_map(ctx, ck, cpath, scenario_child_keys("workloads[].checkpoint"));
  read_plain_keys(ctx, ck, cpath, "workloads[].checkpoint", {{KeyTarget::job_class, &w}});
}

/// `fallback`: {after_preemptions, when_slack_below, return_to_preemptible}; needs `deadline`
/// read first.
void read_fallback(const Context& ctx, const YAML::Node& fb, const std::string& fpath,
                   JobClassSpec& w) {
  expect_map(ctx, fb, fpath, scenario_child_keys("workloads[].fallback"));
  read_plain_keys(ctx, fb, fpath, "workloads[].fallback", {{KeyTarget::job_class, &w}});
  if (fb["when_slack_below"]) {
    if (w.deadline_s <= 0)
      ctx.fail(fb["when_slack_below"], fpath + ".when_slack_below",
               "needs a deadline on the workload (slack = time to the deadline minus the work "
               "left)");
    w.fallback_slack_s =
        read_key_duration(ctx, fb["when_slack_below"], fpath + ".when_slack_below");
  }
  if (fb["return_to_preemptible"]) {
    w.fallback_returns =
        read_bool(ctx, fb["return_to_preemptible"], fpath + ".return_to_preemptible");
    if (w.fallback_returns && !fb["after_preemptions"])
      ctx.fail(fb["return_to_preemptible"], fpath + ".return_to_preemptible",
               "needs fallback.after_preemptions (the rule it lifts for the run after a "
               "fallback; when_slack_below is checked again at every launch anyway)");
  }
}

/// `placement_limit`: {pool, jobs | share}; needs `placement` and `gpus` read first.
void read_placement_limit(const Context& ctx, const YAML::Node& lim, const std::string& lpath,
                          const Scenario& s, JobClassSpec& w) {
  expect_map(ctx, lim, lpath, scenario_child_keys("workloads[].placement_limit"));
  const YAML::Node pool_node =
      require(ctx, lim, lpath, "pool", "the pool of the placement list whose jobs it limits");
  w.limit_pool =
      read_reference(ctx, pool_node, lpath + ".pool", w.placement, "pool of the placement list");
  if (lim["jobs"] && lim["share"])
    ctx.fail(lim["share"], lpath + ".share",
             "give either jobs (a fixed count) or share (a fraction of the class's jobs), not "
             "both");
  if (lim["commitment"]) {
    // The jobs a reservation's GPUs hold: a sweep of the commitment moves the limit with it.
    const std::string cpath = lpath + ".commitment";
    if (lim["jobs"] || lim["share"])
      ctx.fail(lim["commitment"], cpath,
               "gives the limit itself (the commitment's GPUs); leave out jobs and share");
    std::vector<std::string> names;
    for (const CommitmentSpec& c : s.commitments) names.push_back(c.name);
    const std::string name = read_reference(ctx, lim["commitment"], cpath, names, "commitment");
    const CommitmentSpec& c = s.commitments[static_cast<std::size_t>(s.commitment_index(name))];
    if (c.savings_plan)
      ctx.fail(lim["commitment"], cpath,
               "commitment \"" + text::excerpt(name) +
                   "\" is a savings plan (usd_per_hour); a limit takes a reservation's gpus");
    if (std::find(c.covers.begin(), c.covers.end(), w.limit_pool) == c.covers.end())
      ctx.fail(lim["commitment"], cpath,
               "commitment \"" + text::excerpt(name) + "\" does not cover pool \"" +
                   text::excerpt(w.limit_pool) + "\" (it covers " + text::join(c.covers, ", ") +
                   ")");
    w.limit_jobs = c.gpus;  // GPUs: a trace's jobs may ask for different counts
    w.limit_gpus = true;
    return;
  }
  if (lim["share"]) {
    w.limit_share = read_key_number(ctx, lim["share"], lpath + ".share");
    w.limit_jobs = 0;
    return;
  }
  const YAML::Node jobs_node = require(
      ctx, lim, lpath, "jobs",
      "the most jobs of the class in that pool at once (or share: the most fraction of the "
      "class's jobs)");
  w.limit_jobs = static_cast<uint32_t>(read_key_integer(ctx, jobs_node, lpath + ".jobs"));
  const uint32_t quota = s.pools[s.pool_index(w.limit_pool)].quota_gpus;
  if (static_cast<uint64_t>(w.limit_jobs) * w.gpus > quota)
    ctx.fail(lim["jobs"], lpath + ".jobs",
             std::to_string(w.limit_jobs) + " jobs of " + std::to_string(w.gpus) + " GPUs need " +
                 std::to_string(static_cast<uint64_t>(w.limit_jobs) * w.gpus) +
                 " GPUs, more than pool \"" + w.limit_pool + "\" has (quota " +
                 std::to_string(quota) + "); at most " + std::to_string(quota / w.gpus) + " jobs");
}

/// `sync`: {step, gradient_gb}; every pool where a job spans nodes needs an interconnect.
void read_sync(const Context& ctx, const YAML::Node& sy, const std::string& spath,
               const Scenario& s, JobClassSpec& w) {
  expect_map(ctx, sy, spath, scenario_child_keys("workloads[].sync"));
  if (w.arrivals.kind == ArrivalKind::trace)
    ctx.fail(sy, spath,
             "needs the GPUs of every job of the class (gpus), but a trace gives them job by "
             "job; remove sync or use a poisson or nhpp workload");
  read_plain_keys(ctx, sy, spath, "workloads[].sync", {{KeyTarget::job_class, &w}});
  for (const auto& name : w.placement) {
    const PoolSpec& p = s.pools[s.pool_index(name)];
    if (p.gpus_per_node > 0 && p.gpus_per_node < w.gpus && p.interconnect_gbps <= 0)
      ctx.fail(sy, spath,
               "a job of " + std::to_string(w.gpus) + " GPUs spans nodes of pool \"" + name +
                   "\" (" + std::to_string(p.gpus_per_node) +
                   " GPUs per node), which declares no interconnect; add pools." + name +
                   ".interconnect: {latency, bandwidth_gbps}");
  }
}

/// A fallback needs a pool of the placement list that is not preemptible.
void check_fallback_target(const Context& ctx, const YAML::Node& node, const std::string& path,
                           const Scenario& s, const JobClassSpec& w) {
  const bool has_fallback = w.fallback_after_preemptions != 0xFFFFFFFFu || w.fallback_slack_s >= 0;
  if (has_fallback &&
      std::all_of(w.placement.begin(), w.placement.end(), [&](const std::string& name) {
        return purchase_info(s.pools[s.pool_index(name)].purchase).preemptible;
      }))
    ctx.fail(node["fallback"], join_path(path, "fallback"),
             "falls back to pools that are not preemptible, but every pool of the placement list "
             "is " + purchase_option_list(is_preemptible, " or ") + "; add an " +
                 purchase_option_list(is_dedicated, " or ") + " pool to the placement");
}

/// Checkpoints and data that move between the regions of the placement list need declared links
/// (bandwidth) between them, and data a region on every pool.
void check_links(const Context& ctx, const YAML::Node& node, const std::string& path,
                 const Scenario& s, const JobClassSpec& w) {
  // A checkpoint may follow its job to any pool of the placement list.
  if (w.checkpoint_size_gb > 0) {
    for (const auto& from : w.placement)
      for (const auto& to : w.placement) {
        const PoolSpec& a = s.pools[s.pool_index(from)];
        const PoolSpec& b = s.pools[s.pool_index(to)];
        if (a.region.empty() || b.region.empty() || a.region == b.region) continue;
        if (s.bandwidth_gbps(a.region, b.region) < 0)
          ctx.fail(node["checkpoint"], join_path(path, "checkpoint"),
                   "a checkpoint may move between " + a.region + " and " + b.region + " (pools \"" +
                       from + "\" and \"" + to + "\"), but no bandwidth links them; add regions." +
                       a.region + ".bandwidth_gbps." + b.region);
      }
  }
  if (w.data_gb <= 0) return;
  for (const auto& name : w.placement) {
    const PoolSpec& p = s.pools[s.pool_index(name)];
    if (p.region.empty())
      ctx.fail(node["data"], join_path(path, "data"),
               "pool \"" + name +
                   "\" has no region, so the transfer of this data cannot be timed; give the pool "
                   "a region");
    if (p.region != w.data_region && s.bandwidth_gbps(w.data_region, p.region) < 0)
      ctx.fail(node["data"], join_path(path, "data"),
               "no bandwidth between " + w.data_region + " and " + p.region + " (pool \"" + name +
                   "\"); add regions." + w.data_region + ".bandwidth_gbps." + p.region);
  }
}

/// Every job must fit some pool of its placement list: GPU memory, and the whole gang.
void check_jobs_fit(const Context& ctx, const YAML::Node& node, const std::string& path,
                    const Scenario& s, const JobClassSpec& w) {
  uint32_t largest = 0;
  std::string quotas, memories;
  for (const auto& name : w.placement) {
    const PoolSpec& p = s.pools[s.pool_index(name)];
    memories += (memories.empty() ? "" : ", ") + name + " " +
                (p.gpu_memory_gb > 0 ? text::format_number(p.gpu_memory_gb) + " GB" : "undeclared");
    if (!fits_memory(w, p)) continue;
    largest = std::max(largest, p.quota_gpus);
    quotas += (quotas.empty() ? "" : ", ") + name + " " + std::to_string(p.quota_gpus);
  }
  check_links(ctx, node, path, s, w);
  if (quotas.empty())
    ctx.fail(node["vram_gb"], join_path(path, "vram_gb"),
             "a job needing " + text::format_number(w.vram_gb) +
                 " GB per GPU fits the memory of no pool of its placement list (" + memories + ")");
  uint32_t need = w.gpus;
  for (const auto& row : w.arrivals.trace) need = std::max(need, row.gpus);
  for (const auto& alive : w.arrivals.alive_at_start) need = std::max(need, alive.gpus);
  for (const auto& alive : w.initial_state) need = std::max(need, alive.gpus);
  if (need > largest) {
    const YAML::Node at = node["gpus"] ? node["gpus"] : node;
    ctx.fail(at, join_path(path, "gpus"),
             "a job of " + std::to_string(need) + " GPUs fits no pool of its placement list " +
                 "(quotas: " + quotas + "); lower gpus or raise a quota");
  }
}

/// A job class's arrivals and work; a deployment's arrivals and lifetime (kept in work_s).
void read_job_demand(const Context& ctx, const YAML::Node& node, const std::string& path,
                     JobClassSpec& w) {
  const bool instances = w.kind == WorkloadKind::deployment;
  w.arrivals = read_arrivals(
      ctx, require(ctx, node, path, "arrivals", "an arrival process (poisson, nhpp, trace)"),
      join_path(path, "arrivals"), instances ? ArrivalsOf::instances : ArrivalsOf::jobs);
  const char* key = instances ? "lifetime" : "work";
  if (w.arrivals.kind == ArrivalKind::trace) {
    if (node[key])
      ctx.fail(node[key], join_path(path, key),
               std::string("a trace-driven workload takes each ") +
                   (instances ? "instance's lifetime" : "job's run time") +
                   " from its trace; remove '" + key + "'");
  } else {
    w.work_s = read_distribution(
        ctx,
        require(ctx, node, path, key,
                instances ? "the wall-clock lifetime of an instance (distribution)"
                          : "the run time on the reference GPU (distribution)"),
        join_path(path, key));
  }
}

}  // namespace

/// `uncertainty`: {rate_sd_log, scale_sd_log}; the rate's needs a rate (not a trace), the
/// scale's a distribution (not a trace's run times).
void read_uncertainty(const Context& ctx, const YAML::Node& u, const std::string& upath,
                      JobClassSpec& w) {
  expect_map(ctx, u, upath, scenario_child_keys("workloads[].uncertainty"));
  read_plain_keys(ctx, u, upath, "workloads[].uncertainty", {{KeyTarget::job_class, &w}});
  if (w.arrivals.kind == ArrivalKind::trace && (w.rate_sd_log > 0 || w.scale_sd_log > 0))
    ctx.fail(u, upath,
             "a trace gives every arrival and its run time or lifetime as they were: there is no "
             "rate or distribution to doubt; fit the trace (gpucap fit) for a model with "
             "uncertainty, or resample it (arrivals.resample)");
}

JobClassSpec read_workload(const Context& ctx, const YAML::Node& node, const std::string& path,
                           const Scenario& s) {
  if (!node.IsMap()) ctx.fail(node, path, "must be a mapping (a workload); got " + describe(node));
  JobClassSpec w;
  w.name =
      read_string(ctx, require(ctx, node, path, "name", "a unique name"), join_path(path, "name"));
  if (node["kind"])
    w.kind = read_choice<WorkloadKind>(ctx, node["kind"], join_path(path, "kind"));
  if (w.kind == WorkloadKind::inference) return read_inference_workload(ctx, node, path, s, w);
  expect_map(ctx, node, path,
             scenario_child_keys("workloads[]", "kind",
                                 w.kind == WorkloadKind::deployment ? "deployment" : "batch"));
  read_plain_keys(ctx, node, path, "workloads[]", {{KeyTarget::job_class, &w}});
  read_job_demand(ctx, node, path, w);
  read_placement(ctx, node, path, s, w);
  if (node["data"]) read_data(ctx, node["data"], join_path(path, "data"), s, w);
  if (node["checkpoint"])
    read_checkpoint(ctx, node["checkpoint"], join_path(path, "checkpoint"), w);
  if (node["fallback"]) read_fallback(ctx, node["fallback"], join_path(path, "fallback"), w);
  if (node["placement_limit"])
    read_placement_limit(ctx, node["placement_limit"], join_path(path, "placement_limit"), s, w);
  if (node["sync"]) read_sync(ctx, node["sync"], join_path(path, "sync"), s, w);
  if (node["uncertainty"]) read_uncertainty(ctx, node["uncertainty"], join_path(path, "uncertainty"), w);
  if (node["initial_state"])
    read_initial_state(ctx, node["initial_state"], join_path(path, "initial_state"), s, w);
  check_fallback_target(ctx, node, path, s, w);
  check_jobs_fit(ctx, node, path, s, w);
  return w;
}

}  // namespace gpucap::loader
