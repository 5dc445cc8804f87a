#include "gpucap/compile.hpp"

#include <utility>

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
  bind();
  other.bind();
  return *this;
}

void ModelStorage::bind() {
  model_.pools = pools_.data();
  model_.pool_count = static_cast<uint32_t>(pools_.size());
  model_.classes = classes_.data();
  model_.class_count = static_cast<uint32_t>(classes_.size());
  model_.placement = placement_.data();
  model_.table = table_.data();
  model_.trace_submit_s = trace_submit_s_.data();
  model_.trace_gpus = trace_gpus_.data();
  model_.trace_work_s = trace_work_s_.data();
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
  }
  return d;
}

}  // namespace

ModelStorage compile(const Scenario& s) {
  ModelStorage out;
  uint32_t total_quota = 0;
  for (const PoolSpec& p : s.pools) {
    CompiledPool c;
    c.price_usd_per_gpu_s = p.price_usd_per_gpu_hour / 3600.0;
    c.billing_increment_s = p.billing_increment_s;
    c.billing_minimum_s = p.billing_minimum_s;
    c.speed = p.speed;
    c.quota_gpus = p.quota_gpus;
    c.purchase = p.purchase;
    c.has_provisioning_delay = p.has_provisioning_delay;
    if (p.has_provisioning_delay)
      c.provisioning_delay_s = compile_distribution(p.provisioning_delay_s, out.table_);
    out.pools_.push_back(c);
    total_quota += p.quota_gpus;
  }
  for (const JobClassSpec& w : s.workloads) {
    CompiledJobClass c;
    c.gpus = w.gpus;
    c.priority = w.priority;
    c.work_s = compile_distribution(w.work_s, out.table_);
    c.arrivals.kind = w.arrivals.kind;
    c.arrivals.rate_per_s = w.arrivals.rate_per_s;
    c.arrivals.profile_bin_s = w.arrivals.profile_bin_s;
    c.arrivals.profile_offset = static_cast<uint32_t>(out.table_.size());
    c.arrivals.profile_count = static_cast<uint32_t>(w.arrivals.profile.size());
    out.table_.insert(out.table_.end(), w.arrivals.profile.begin(), w.arrivals.profile.end());
    c.arrivals.trace_offset = static_cast<uint32_t>(out.trace_submit_s_.size());
    c.arrivals.trace_count = static_cast<uint32_t>(w.arrivals.trace.size());
    for (const TraceRow& row : w.arrivals.trace) {
      out.trace_submit_s_.push_back(row.submit_s);
      out.trace_gpus_.push_back(row.gpus);
      out.trace_work_s_.push_back(row.work_s);
    }
    c.placement_offset = static_cast<uint32_t>(out.placement_.size());
    c.placement_count = static_cast<uint32_t>(w.placement.size());
    for (const std::string& name : w.placement)
      out.placement_.push_back(static_cast<uint32_t>(s.pool_index(name)));
    out.classes_.push_back(c);
  }
  out.model_.horizon_s = s.horizon_s;
  out.model_.warmup_s = s.warmup_s;
  out.model_.discipline = s.policy.discipline;
  out.model_.backfill = s.policy.backfill;
  out.model_.queue_capacity = s.policy.queue_capacity;
  out.model_.total_quota_gpus = total_quota;
  out.bind();
  return out;
}

}  // namespace gpucap
