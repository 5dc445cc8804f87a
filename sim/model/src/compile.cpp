// gpucap: compiling a Scenario into the flat CompiledModel the engine reads (see compile.hpp).
#include "gpucap/compile.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "gpucap/llm_catalog.hpp"
#include "gpucap/purchase_options.hpp"

namespace gpucap {

ModelStorage& ModelStorage::operator=(ModelStorage&& other) noexcept {
  model_ = other.model_;
  pools_ = std::move(other.pools_);
  classes_ = std::move(other.classes_);
  placement_ = std::move(other.placement_);
  table_ = std::move(other.table_);
  trace_submit_s_ = std::move(other.trace_submit_s_);
  trace_gpus_ = std::move(other.trace_gpus_);
  trace_work_s_ = std::move(other.trace_work_s_);
  transfer_s_ = std::move(other.transfer_s_);
  transfer_egress_usd_ = std::move(other.transfer_egress_usd_);
  pool_link_s_per_gb_ = std::move(other.pool_link_s_per_gb_);
  pool_link_latency_s_ = std::move(other.pool_link_latency_s_);
  pool_egress_usd_per_gb_ = std::move(other.pool_egress_usd_per_gb_);
  run_speed_ = std::move(other.run_speed_);
  services_ = std::move(other.services_);
  initial_ = std::move(other.initial_);
  commitments_ = std::move(other.commitments_);
  llm_ = std::move(other.llm_);
  llm_tokens_ = std::move(other.llm_tokens_);
  bind();
  other.bind();
  return *this;
}

void ModelStorage::bind() {
  for_each_array(model_, [](auto& field, const auto& array) { field = array.data(); });
  model_.pool_count = static_cast<uint32_t>(pools_.size());
  model_.class_count = static_cast<uint32_t>(classes_.size());
  model_.service_count = static_cast<uint32_t>(services_.size());
  model_.initial_count = static_cast<uint32_t>(initial_.size());
  model_.commitment_count = static_cast<uint32_t>(commitments_.size());
  model_.llm_count = static_cast<uint32_t>(llm_.size());
}

namespace {

Distribution compile_distribution(const DistributionSpec& spec, std::vector<double>& table) {
  Distribution d;
  d.kind = spec.kind;
  d.p0 = spec.p0;
  d.p1 = spec.p1;
  if (spec.kind == DistKind::empirical) {
    d.table_offset = static_cast<uint32_t>(table.size());
    d.table_count = static_cast<uint32_t>(spec.samples.size());
    table.insert(table.end(), spec.samples.begin(), spec.samples.end());
    // With a tail (p0 > 0) the samples are kept sorted: the tail starts at the last one.
    if (spec.p0 > 0) std::sort(table.begin() + d.table_offset, table.end());
  }
  return d;
}

/// CompiledJobClass::placement_mask of a placement list: its pools' bits when there are four or
/// more, they increase and lie below 64, else 0 (placement then walks the list).
uint64_t placement_mask(const uint32_t* pools, uint32_t count) {
  if (count < 4) return 0;  // up to three pools the walk costs no more than the mask
  uint64_t mask = 0;
  for (uint32_t k = 0; k < count; ++k) {
    if (pools[k] >= 64 || (k > 0 && pools[k] <= pools[k - 1])) return 0;
    mask |= uint64_t{1} << pools[k];
  }
  return mask;
}

/// Speed of a job of class w in pool p: the pool's speed, times the share of each training step
/// left for computing when the job spans several nodes and all-reduces its gradients between
/// them after every step (ring all-reduce over n nodes: 2 (n - 1) messages of G / n each way,
/// each paying the interconnect latency; computing and communication do not overlap).
double run_speed(const JobClassSpec& w, const PoolSpec& p) {
  if (w.sync_step_s <= 0 || p.gpus_per_node == 0 || w.gpus <= p.gpus_per_node ||
      p.interconnect_gbps <= 0)
    return p.speed;
  const double nodes = std::ceil(static_cast<double>(w.gpus) / p.gpus_per_node);
  const double step_s = w.sync_step_s / p.speed;  // wall-clock compute per step in this pool
  const double allreduce_s =
      2.0 * (nodes - 1.0) *
      (p.interconnect_latency_s + w.sync_gradient_gb * 8.0 / (nodes * p.interconnect_gbps));
  return p.speed * step_s / (step_s + allreduce_s);
}

/// Round trip (s) between a service's users and its pool: twice the one-way latency between
/// their regions; 0 inside one region.
double network_rtt_s(const Scenario& s, const ServiceSpec& svc, const PoolSpec& pool) {
  if (svc.users_region.empty() || pool.region.empty()) return 0.0;
  const double one_way_ms = s.latency_ms(svc.users_region, pool.region);
  return one_way_ms > 0 ? 2.0 * one_way_ms / 1000.0 : 0.0;
}

/// What a replica of `svc` in `pool` takes to start (container start or snapshot restore, and
/// weights loading) and costs per request (round trip to the users, response egress).
CompiledServiceSite service_site(const Scenario& s, const ServiceSpec& svc, const PoolSpec& pool,
                                 std::vector<double>& table) {
  CompiledServiceSite site;
  if (pool.snapshot_restore_s >= 0) {
    site.has_container_start = true;
    site.container_start_s.kind = DistKind::deterministic;
    site.container_start_s.p0 = pool.snapshot_restore_s;
  } else {
    site.has_container_start = pool.has_container_start;
    if (pool.has_container_start)
      site.container_start_s = compile_distribution(pool.container_start_s, table);
    site.weights_load_s = pool.weights_gb_per_s > 0 ? svc.model_gb / pool.weights_gb_per_s : 0.0;
  }
  site.network_rtt_s = network_rtt_s(s, svc, pool);
  const RegionSpec* region = s.region(pool.region);
  site.egress_usd_per_request = svc.response_kb / 1e6 * (region ? region->egress_usd_per_gb : 0.0);
  return site;
}

/// The price process of pool p: a trace (its steps appended to `table`, USD per GPU-second),
/// a mean-reverting log-price or an Ornstein-Uhlenbeck price, with their derived constants.
void compile_price(const PoolSpec& p, CompiledPool& c, std::vector<double>& table) {
  c.price_model = p.price_model;
  c.price_step_s = p.price_step_s;
  c.price_random_start = p.price_random_start;
  c.price_start_s = p.price_start_s;
  if (p.price_model == CompiledPool::kTracePrice) {
    c.price_offset = static_cast<uint32_t>(table.size());
    c.price_count = static_cast<uint32_t>(p.price_trace_usd_per_gpu_hour.size());
    for (double v : p.price_trace_usd_per_gpu_hour) table.push_back(v / 3600.0);
  }
  c.price_level_usd_per_gpu_s = p.price_usd_per_gpu_hour / 3600.0;
  c.price_reversion_per_s = p.price_reversion_per_hour / 3600.0;
  c.price_volatility_per_sqrt_s = p.price_volatility_per_sqrt_hour / 60.0;  // sqrt(3600) = 60
  if (p.price_model == CompiledPool::kMeanRevertingPrice) {
    const double theta = c.price_reversion_per_s, sigma = c.price_volatility_per_sqrt_s;
    c.price_decay = std::exp(-theta * p.price_step_s);
    c.price_noise = sigma * std::sqrt(-std::expm1(-2 * theta * p.price_step_s) / (2 * theta));
    c.price_stationary_sd = sigma / std::sqrt(2 * theta);
  }
  if (p.price_model == CompiledPool::kOrnsteinUhlenbeckPrice) {
    const double theta = c.price_reversion_per_s;
    c.price_stationary_sd =
        c.price_volatility_per_sqrt_s * c.price_level_usd_per_gpu_s / std::sqrt(2 * theta);
    c.price_reversion_time_s = 1.0 / theta;
  }
}

/// Pool p as the engine reads it; its distributions and traces are appended to `table`. The
/// flags that depend on the purchase option come from its row of purchase_options.hpp.
CompiledPool compile_pool(const PoolSpec& p, std::vector<double>& table) {
  const PurchaseOptionInfo& option = purchase_info(p.purchase);
  CompiledPool c;
  c.price_usd_per_gpu_s = p.price_usd_per_gpu_hour / 3600.0;
  c.billing_increment_s = p.billing_increment_s;
  c.billing_minimum_s = p.billing_minimum_s;
  c.speed = p.speed;
  c.quota_gpus = p.quota_gpus;
  c.purchase = p.purchase;
  c.committed_quota = option.committed;
  c.has_provisioning_delay = p.has_provisioning_delay;
  if (p.has_provisioning_delay)
    c.provisioning_delay_s = compile_distribution(p.provisioning_delay_s, table);
  c.committed_usd_per_gpu_s = p.committed_usd_per_gpu_hour / 3600.0;
  c.stockout_probability = p.stockout_probability;
  c.stockout_retry_s = p.stockout_retry_s;
  c.preemptible = option.preemptible;
  c.has_zone_events = p.has_zone_events;
  if (p.has_zone_events) c.zone_event_gap_s = compile_distribution(p.zone_event_gap_s, table);
  c.launch_checks = c.preemptible || c.stockout_probability > 0;
  // Only a pool billed per replica lifetime can leave idle time unbilled.
  c.bills_idle = option.price == PriceRule::per_replica ? p.bills_idle : true;
  compile_price(p, c, table);
  c.has_slowdown = p.has_slowdown;
  if (p.has_slowdown) c.slowdown = compile_distribution(p.slowdown, table);
  c.has_time_to_preemption = p.has_time_to_preemption;
  if (p.has_time_to_preemption)
    c.time_to_preemption_s = compile_distribution(p.time_to_preemption_s, table);
  c.max_runtime_s = p.max_runtime_s;
  c.notice_s = p.notice_s;
  c.has_availability = !p.availability.empty();
  if (c.has_availability) {
    c.availability_offset = static_cast<uint32_t>(table.size());
    c.availability_count = static_cast<uint32_t>(p.availability.size());
    table.insert(table.end(), p.availability.begin(), p.availability.end());
    c.availability_step_s = p.availability_step_s;
    c.availability_start_s = p.availability_start_s;
    c.availability_random_start = p.availability_random_start;
    c.availability_after_end = p.availability_after_end;
    c.gpus_per_instance = p.gpus_per_instance;
  }
  return c;
}

/// The arrivals of class w: the profile appended to `table`; a trace's rows counted from
/// `trace_rows_so_far` and its layers (scale_rate f: ceil(f) layers, all but the last complete,
/// the last thinned to the rest) from `trace_layers`, both advanced.
void compile_arrivals(const JobClassSpec& w, CompiledJobClass& c, std::vector<double>& table,
                      std::size_t& trace_rows_so_far, uint32_t& trace_layers) {
  c.arrivals.kind = w.arrivals.kind;
  c.arrivals.rate_per_s = w.arrivals.rate_per_s;
  c.arrivals.profile_bin_s = w.arrivals.profile_bin_s;
  c.arrivals.profile_offset = static_cast<uint32_t>(table.size());
  c.arrivals.profile_count = static_cast<uint32_t>(w.arrivals.profile.size());
  table.insert(table.end(), w.arrivals.profile.begin(), w.arrivals.profile.end());
  c.arrivals.trace_offset = static_cast<uint32_t>(trace_rows_so_far);
  c.arrivals.trace_count = static_cast<uint32_t>(w.arrivals.trace.size());
  trace_rows_so_far += w.arrivals.trace.size();
  if (w.arrivals.burst_interval_s > 0 && w.arrivals.burst_cv > 0) {
    // Gamma of shape 1/cv^2 and scale cv^2: mean 1, coefficient of variation cv.
    const double v = w.arrivals.burst_cv * w.arrivals.burst_cv;
    c.arrivals.burst_interval_s = w.arrivals.burst_interval_s;
    c.arrivals.burst = Distribution{DistKind::gamma, 1.0 / v, v, 0, 0};
  }
  if (w.arrivals.drift_interval_s > 0 && w.arrivals.drift_sd_log > 0) {
    c.arrivals.drift_interval_s = w.arrivals.drift_interval_s;
    c.arrivals.drift_sd_log = w.arrivals.drift_sd_log;
  }
  if (w.arrivals.kind != ArrivalKind::trace) return;
  const double f = w.arrivals.scale_rate;
  const double layers = std::ceil(f);
  c.arrivals.layer_offset = trace_layers;
  c.arrivals.layer_count = static_cast<uint32_t>(layers);
  c.arrivals.last_layer_keep = f - (layers - 1);
  trace_layers += c.arrivals.layer_count;
  c.arrivals.trace_start_s = w.arrivals.trace_start_s;
  c.arrivals.resample = w.arrivals.resample;
  c.arrivals.block_s = w.arrivals.resample_block_s;
  c.arrivals.phase_s = w.arrivals.resample_phase_s;
  c.arrivals.period_s = w.arrivals.resample_period_s;
  if (w.arrivals.resample != TraceResample::none)
    c.arrivals.phases = static_cast<uint32_t>(
        std::llround(w.arrivals.resample_period_s / w.arrivals.resample_phase_s));
}

/// The windowed autoscaler of a service, in ticks; its history follows the services' so far.
void compile_windowed_autoscaler(const ServiceSpec& svc, CompiledService& cs, CompiledModel& m) {
  // The loader checked that windows and delay are whole ticks.
  cs.windowed = true;
  cs.tick_s = svc.tick_s;
  cs.stable_ticks = static_cast<uint32_t>(std::llround(svc.stable_window_s / svc.tick_s));
  cs.panic_ticks = static_cast<uint32_t>(std::llround(svc.panic_window_s / svc.tick_s));
  cs.delay_ticks = static_cast<uint32_t>(std::llround(svc.scale_down_delay_s / svc.tick_s));
  cs.panic_threshold = svc.panic_threshold;
  cs.history_offset = m.autoscale_history;
  m.autoscale_history += cs.stable_ticks + (cs.delay_ticks > 0 ? cs.delay_ticks + 1 : 0);
  ++m.windowed_service_count;
}

}  // namespace

/// The steps of compile_model that fill ModelStorage's arrays (its friend).
struct ModelCompiler {
  /// The inference service of class w (the class `job_class` of the model), with its replicas'
  /// and requests' places in the model's arrays.
  static CompiledService compile_service(const Scenario& s, const JobClassSpec& w,
                                         uint32_t job_class, ModelStorage& out, CompiledModel& m) {
    const ServiceSpec& svc = w.service;
    const int pool_index = s.pool_index(svc.pool);
    const PoolSpec& pool = s.pools[pool_index];
    CompiledService cs;
    cs.job_class = job_class;
    cs.pool = static_cast<uint32_t>(pool_index);
    out.pools_[pool_index].runs_replicas = true;
    cs.gpus_per_replica = w.gpus;
    cs.concurrency = svc.concurrency;
    cs.target_concurrency = svc.target_concurrency;
    cs.min_replicas = svc.min_replicas;
    cs.max_replicas = svc.max_replicas;
    cs.replica_offset = m.replica_count;
    cs.queue_offset = m.request_queue_capacity;
    cs.queue_capacity = svc.queue_capacity;
    cs.idle_timeout_s = svc.idle_timeout_s;
    if (svc.windowed) compile_windowed_autoscaler(svc, cs, m);
    const CompiledServiceSite site = service_site(s, svc, pool, out.table_);
    cs.has_container_start = site.has_container_start;
    cs.container_start_s = site.container_start_s;
    cs.weights_load_s = site.weights_load_s;
    cs.network_rtt_s = site.network_rtt_s;
    cs.egress_usd_per_request = site.egress_usd_per_request;
    cs.slo_latency_s = svc.slo_latency_s;
    cs.preemptible = purchase_info(pool.purchase).preemptible;
    // An LLM replica keeps its batch itself (llm_serving.hpp): no tracked requests, one
    // iteration event at a time.
    const bool llm = svc.llm.enabled;
    if (cs.preemptible) {
      cs.tracked_offset = m.tracked_requests;
      if (!llm) m.tracked_requests += svc.max_replicas * svc.concurrency;
      m.preemptible_replicas += svc.max_replicas;
    }
    if (!svc.fallback_pool.empty()) {
      const int fallback_index = s.pool_index(svc.fallback_pool);
      const PoolSpec& fallback = s.pools[fallback_index];
      cs.fallback = service_site(s, svc, fallback, out.table_);
      cs.fallback.pool = static_cast<uint32_t>(fallback_index);
      out.pools_[fallback_index].runs_replicas = true;
      cs.fallback.time_factor = pool.speed / fallback.speed;
    }
    if (llm) compile_llm(w, cs, out, m);
    m.replica_count += svc.max_replicas;
    m.request_queue_capacity += svc.queue_capacity;
    m.request_capacity += svc.max_replicas * (llm ? 1 : svc.concurrency);
    return cs;
  }

  /// The token-level part of LLM service w: its sites (iteration time and KV cache in its pool
  /// and fallback pool), its token sample and its running requests' place in the arena.
  static void compile_llm(const JobClassSpec& w, CompiledService& cs, ModelStorage& out,
                          CompiledModel& m) {
    const LlmServiceSpec& spec = w.service.llm;
    const auto site = [&](const GpuSpec& gpu, bool with_profile) {
      CompiledLlmSite x;
      x.shape = llm_shape(spec.model, gpu, w.gpus, spec.efficiency);
      if (with_profile && !spec.profile.empty()) {
        x.shape.profile_offset = static_cast<uint32_t>(out.table_.size());
        x.shape.profile_rows = static_cast<uint32_t>(spec.profile.size());
        for (const auto& [tokens, seconds] : spec.profile) {
          out.table_.push_back(tokens);
          out.table_.push_back(seconds);
        }
      }
      x.sched.max_sequences = spec.max_sequences;
      x.sched.max_batched_tokens = spec.max_batched_tokens;
      x.sched.block_tokens = spec.block_tokens;
      x.sched.chunked_prefill = spec.chunked_prefill ? 1 : 0;
      x.sched.kv_blocks = llm_kv_cache_blocks(spec.model, gpu.memory_gb, w.gpus,
                                              spec.efficiency, spec.block_tokens);
      return x;
    };
    CompiledLlm l;
    l.site = site(spec.gpu, true);
    l.fallback = w.service.fallback_pool.empty() ? l.site : site(spec.fallback_gpu, false);
    l.token_offset = static_cast<uint32_t>(out.llm_tokens_.size() / 2);
    l.token_rows = static_cast<uint32_t>(spec.tokens.size() / 2);
    out.llm_tokens_.insert(out.llm_tokens_.end(), spec.tokens.begin(), spec.tokens.end());
    l.seq_offset = m.llm_sequences;
    m.llm_sequences += w.service.max_replicas * spec.max_sequences;
    l.ttft_slo_s = spec.ttft_slo_s;
    l.tpot_slo_s = spec.tpot_slo_s;
    cs.llm = static_cast<uint32_t>(out.llm_.size());
    out.llm_.push_back(l);
  }

  /// Class w's placement list (only the pools whose GPU memory holds the job; validation ensures
  /// one), its checkpoint, deadline, fallback and placement-limit rules.
  static void compile_placement(const Scenario& s, const JobClassSpec& w, CompiledJobClass& c,
                                ModelStorage& out) {
    c.placement_offset = static_cast<uint32_t>(out.placement_.size());
    for (const std::string& name : w.placement) {
      const int index = s.pool_index(name);
      if (fits_memory(w, s.pools[index])) out.placement_.push_back(static_cast<uint32_t>(index));
    }
    c.placement_count = static_cast<uint32_t>(out.placement_.size()) - c.placement_offset;
    c.placement_mask =
        placement_mask(out.placement_.data() + c.placement_offset, c.placement_count);
    out.model_.placement_by_mask = out.model_.placement_by_mask || c.placement_mask != 0;
    c.checkpoint_interval_s = w.checkpoint_interval_s;
    c.checkpoint_write_s = w.checkpoint_write_s;
    c.restart_s = w.restart_s;
    c.checkpoint_size_gb = w.checkpoint_size_gb;
    c.deadline_s = w.deadline_s;
    c.fallback_after_preemptions = w.fallback_after_preemptions;
    c.fallback_slack_s = w.fallback_slack_s;
    c.fallback_returns = w.fallback_returns;
    if (!w.limit_pool.empty()) {
      c.limit_pool = static_cast<uint32_t>(s.pool_index(w.limit_pool));
      c.limit_jobs = w.limit_share > 0 ? 0xFFFFFFFFu : w.limit_jobs;
      c.limit_counts_gpus = w.limit_gpus;
      c.limit_share = w.limit_share;
      out.pools_[c.limit_pool].launch_checks = true;  // find_pool checks the limit there
      out.model_.has_class_launch_rules = true;
    }
    if (w.fallback_returns) out.model_.has_class_launch_rules = true;
  }

  /// Class w's data transfers per pool (the loader checked that every needed link is declared).
  static void compile_transfers(const Scenario& s, const JobClassSpec& w, ModelStorage& out) {
    for (const PoolSpec& pool : s.pools) {
      double seconds = 0, egress = 0;
      if (w.data_gb > 0 && pool.region != w.data_region) {
        const double bandwidth = s.bandwidth_gbps(w.data_region, pool.region);
        const double latency = s.latency_ms(w.data_region, pool.region);
        if (bandwidth > 0) {
          seconds = (latency > 0 ? latency / 1000.0 : 0.0) + w.data_gb * 8.0 / bandwidth;
          egress = w.data_gb * s.region(w.data_region)->egress_usd_per_gb;
        }
      }
      out.model_.has_transfers = out.model_.has_transfers || seconds > 0 || egress > 0;
      out.transfer_s_.push_back(seconds);
      out.transfer_egress_usd_.push_back(egress);
    }
  }

  /// Links between pools (for checkpoints that change region); the loader checked that every
  /// link a checkpointing class may need is declared.
  static void compile_pool_links(const Scenario& s, ModelStorage& out) {
    for (const PoolSpec& from : s.pools) {
      const RegionSpec* region = s.region(from.region);
      out.pool_egress_usd_per_gb_.push_back(region ? region->egress_usd_per_gb : 0.0);
      for (const PoolSpec& to : s.pools) {
        const double bandwidth = s.bandwidth_gbps(from.region, to.region);
        const bool moves = from.region != to.region && bandwidth > 0;
        const double latency = s.latency_ms(from.region, to.region);
        out.pool_link_s_per_gb_.push_back(moves ? 8.0 / bandwidth : 0.0);
        out.pool_link_latency_s_.push_back(moves && latency > 0 ? latency / 1000.0 : 0.0);
      }
    }
    for (const JobClassSpec& w : s.workloads)
      out.model_.has_checkpoint_moves = out.model_.has_checkpoint_moves || w.checkpoint_size_gb > 0;
  }

  /// The instances or jobs of class `index` alive at t = 0 (a trace's rows that began before the
  /// window, then the initial_state rows); a sorted copy of an empirical work_s goes to the table
  /// when some row draws its rest given its age.
  static void compile_initial_state(const Scenario& s, const JobClassSpec& w, uint32_t index,
                                    ModelStorage& out) {
    uint32_t sorted_offset = 0;  // a sorted copy of an empirical work_s, for residual draws
    const bool residuals = std::any_of(w.initial_state.begin(), w.initial_state.end(),
                                       [](const AliveAtStart& a) { return a.residual; });
    if (residuals && w.work_s.kind == DistKind::empirical) {
      sorted_offset = static_cast<uint32_t>(out.table_.size());
      out.table_.insert(out.table_.end(), w.work_s.samples.begin(), w.work_s.samples.end());
      std::sort(out.table_.begin() + sorted_offset, out.table_.end());
    }
    for (const auto* rows : {&w.arrivals.alive_at_start, &w.initial_state})
      for (const AliveAtStart& alive : *rows) {
        InitialInstance x{alive.end_s, index, alive.gpus,
                          alive.pool.empty() ? InitialInstance::kAnyPool
                                             : static_cast<uint32_t>(s.pool_index(alive.pool))};
        x.residual = alive.residual ? 1 : 0;
        x.age_s = alive.age_s;
        x.sorted_offset = sorted_offset;
        out.initial_.push_back(x);
      }
  }
};

namespace {

/// The billing commitments, their periods laid out one after another, and each covered pool's
/// commitment index.
void compile_commitments(const Scenario& s, std::vector<CompiledCommitment>& out,
                         std::vector<CompiledPool>& pools, uint32_t& total_bins) {
  total_bins = 0;
  for (std::size_t c = 0; c < s.commitments.size(); ++c) {
    const CommitmentSpec& spec = s.commitments[c];
    CompiledCommitment k;
    k.savings_plan = spec.savings_plan;
    k.gpus = spec.gpus;
    k.fee_usd_per_s = spec.savings_plan ? spec.usd_per_hour / 3600.0
                                        : spec.gpus * spec.price_usd_per_gpu_hour / 3600.0;
    k.plan_rate = 1.0 - spec.discount;
    k.period_s = spec.period_s;
    k.bins = static_cast<uint32_t>(std::ceil(s.horizon_s / spec.period_s));
    k.bin_offset = total_bins;
    total_bins += k.bins;
    for (const std::string& name : spec.covers)
      pools[static_cast<std::size_t>(s.pool_index(name))].commitment = static_cast<uint32_t>(c);
    out.push_back(k);
  }
}

}  // namespace

/// compile (with_trace_rows) or compile_without_trace_rows.
ModelStorage compile_model(const Scenario& s, bool with_trace_rows) {
  ModelStorage out;
  uint32_t total_quota = 0;
  uint32_t trace_layers = 0;          // trace layers of all classes so far
  std::size_t trace_rows_so_far = 0;  // rows of the classes so far (their offsets)
  if (with_trace_rows) {
    std::size_t trace_rows = 0;
    for (const JobClassSpec& w : s.workloads) trace_rows += w.arrivals.trace.size();
    out.trace_submit_s_.reserve(trace_rows);
    out.trace_gpus_.reserve(trace_rows);
    out.trace_work_s_.reserve(trace_rows);
  }
  for (const PoolSpec& p : s.pools) {
    out.pools_.push_back(compile_pool(p, out.table_));
    total_quota += p.quota_gpus;
  }
  for (const JobClassSpec& w : s.workloads) {
    CompiledJobClass c;
    c.gpus = w.gpus;
    c.priority = w.priority;
    c.work_s = compile_distribution(w.work_s, out.table_);
    c.rate_sd_log = w.rate_sd_log;
    c.scale_sd_log = w.scale_sd_log;
    out.model_.has_parameter_draws =
        out.model_.has_parameter_draws || w.rate_sd_log > 0 || w.scale_sd_log > 0;
    compile_arrivals(w, c, out.table_, trace_rows_so_far, trace_layers);
    out.model_.has_bursts = out.model_.has_bursts || c.arrivals.burst_interval_s > 0 ||
                            c.arrivals.drift_interval_s > 0;
    if (with_trace_rows)
      for (const TraceRow& row : w.arrivals.trace) {
        out.trace_submit_s_.push_back(row.submit_s);
        out.trace_gpus_.push_back(row.gpus);
        out.trace_work_s_.push_back(row.work_s);
      }
    ModelCompiler::compile_placement(s, w, c, out);
    // Speeds first: a service's sites follow in the table, then the transfers.
    for (const PoolSpec& pool : s.pools) {
      const double speed = run_speed(w, pool);
      out.model_.has_run_speeds = out.model_.has_run_speeds || speed != pool.speed;
      out.run_speed_.push_back(speed);
    }
    if (w.kind == WorkloadKind::inference) {
      c.service = static_cast<uint32_t>(out.services_.size());
      out.services_.push_back(ModelCompiler::compile_service(
          s, w, static_cast<uint32_t>(out.classes_.size()), out, out.model_));
    }
    if (w.kind == WorkloadKind::deployment) {
      c.deployment = true;
      c.startup_s = w.startup_s;
      out.model_.has_deployments = true;
    }
    ModelCompiler::compile_initial_state(s, w, static_cast<uint32_t>(out.classes_.size()), out);
    ModelCompiler::compile_transfers(s, w, out);
    out.classes_.push_back(c);
  }
  ModelCompiler::compile_pool_links(s, out);
  compile_commitments(s, out.commitments_, out.pools_, out.model_.commitment_bins);
  out.model_.horizon_s = s.horizon_s;
  out.model_.warmup_s = s.warmup_s;
  out.model_.timeseries_step_s = s.timeseries_step_s;
  out.model_.timeseries_bins = static_cast<uint32_t>(s.timeseries_bins());
  out.model_.timeseries_queue_row = s.timeseries_queue_row && out.model_.timeseries_bins > 0;
  out.model_.discipline = s.policy.discipline;
  out.model_.backfill = s.policy.backfill;
  out.model_.queue_capacity = s.policy.queue_capacity;
  out.model_.total_quota_gpus = total_quota;
  out.model_.trace_layer_count = trace_layers;
  out.bind();
  out.model_.core_only = uses_core_only(out.model_);
  return out;
}

ModelStorage compile(const Scenario& s) { return compile_model(s, true); }

ModelStorage compile_without_trace_rows(const Scenario& s) { return compile_model(s, false); }

}  // namespace gpucap
