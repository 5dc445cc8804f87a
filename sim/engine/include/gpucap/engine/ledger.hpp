// gpucap engine: the ledger: what a replication bills and counts, turned into its metrics at
// the end.
//
// During the run the pool rows (kPoolMetricCount per pool) hold GPU-seconds (used, billed) and
// USD (price-process cost, egress); finish() turns them into GPU-hours and USD. Usage is
// clipped to the statistics window [warmup, horizon]; a job's hold is billed when it ends
// inside the window, a deployment instance's run (as a replica's lifetime) for its share
// inside it. Counters and sums cover the jobs of the window (arrived at or after the warm-up).
#pragma once
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/billing.hpp"
#include "gpucap/compiled_model.hpp"
#include "gpucap/engine/deployment_totals.hpp"
#include "gpucap/engine/engine_features.hpp"
#include "gpucap/engine/job_slots.hpp"
#include "gpucap/engine/price_process.hpp"
#include "gpucap/engine/run_arithmetic.hpp"
#include "gpucap/engine/usage_series.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/philox.hpp"
#include "gpucap/portable.hpp"
#include "gpucap/portable_math.hpp"
#include "gpucap/quantile_recorder.hpp"

namespace gpucap::engine {
GPUCAP_ARENA_NAMESPACE_BEGIN

/// The per-replication percentiles of durations, p50, p95 and p99, into out[0..2] (metrics.hpp
/// keeps them in this order). The probabilities are local: device code reads no host arrays.
GPUCAP_HD inline void write_percentiles(QuantileRecorder& recorder, double* out) {
  const double percentiles[3] = {0.50, 0.95, 0.99};
  recorder.quantiles(percentiles, 3, out);
}
static_assert(kWaitP95S == kWaitP50S + 1 && kWaitP99S == kWaitP50S + 2 &&
                  kCompletionP95S == kCompletionP50S + 1 &&
                  kCompletionP99S == kCompletionP50S + 2 && kLatencyP95S == kLatencyP50S + 1 &&
                  kLatencyP99S == kLatencyP50S + 2 && kRequestWaitP95S == kRequestWaitP50S + 1 &&
                  kRequestWaitP99S == kRequestWaitP50S + 2,
              "percentile metrics are consecutive");

/// Job counters and sums of the statistics window.
struct JobTotals {
  uint64_t arrived = 0, launched = 0, started = 0, completed = 0, dropped = 0, waited = 0;
  uint64_t late = 0, preemptions = 0, launch_failures = 0;
  double wait_sum_s = 0, completion_sum_s = 0, provisioning_sum_s = 0;
  double lost_gpu_s = 0, checkpointing_gpu_s = 0, restarting_gpu_s = 0, transferring_gpu_s = 0;
  double queue_area = 0, running_area = 0;  ///< integrals of jobs waiting, holding GPUs (job-s)
  double queue_area_late = 0;  ///< of queue_area, the part in the window's second half
};

/// The arena parts the ledger writes.
struct LedgerStorage {
  double* pool_rows;                ///< [pool][kPoolMetricCount], the replication's output
  ArenaPtr<double> price_marks;     ///< per job slot: its pool's price integral when its run began
  ArenaPtr<QuantileRecorder> wait;  ///< waits of first launches, s
  ArenaPtr<QuantileRecorder> completion;  ///< arrival to finish, s
  ArenaPtr<QuantileRecorder> restore;     ///< deployments: reclaim to serving again, s (null: none)
  ArenaPtr<PriceState> prices;            ///< per pool
  ArenaPtr<RandomStream> price_streams;   ///< per pool
  UsageSeries usage;
  /// Per period of every billing commitment (CompiledCommitment): GPU-s used, on-demand USD.
  ArenaPtr<double> commitment_usage;
};

class Ledger {
 public:
  GPUCAP_HD explicit Ledger(const CompiledModel& m)
      : m_(m), run_(m), window_mid_s_(0.5 * (m.warmup_s + m.horizon_s)) {}

  GPUCAP_HD void bind(const LedgerStorage& s) {
    rows_ = s.pool_rows;
    price_marks_ = s.price_marks;
    wait_ = s.wait;
    completion_ = s.completion;
    price_streams_ = s.price_streams;
    usage_ = s.usage;
    usage_.clear();
    commitment_usage_ = s.commitment_usage;
    for (uint32_t i = 0; i < 2 * m_.commitment_bins; ++i) commitment_usage_[i] = 0;
    prices_.bind(m_, s.prices);
    wait_->clear();
    completion_->clear();
    deployments_.bind(m_, s.restore);
    for (uint32_t i = 0; i < m_.pool_count * kPoolMetricCount; ++i) rows_[i] = 0;
  }

  GPUCAP_HD JobTotals& jobs() { return jobs_; }
  GPUCAP_HD PriceProcess& prices() { return prices_; }
  GPUCAP_HD DeploymentTotals& deployments() { return deployments_; }

  // ---- events of the run ------------------------------------------------------------------

  /// The clock moves from `from_s` to `to_s` with these jobs waiting and holding GPUs; returns
  /// the seconds of that move inside the statistics window.
  GPUCAP_HD GPUCAP_FORCEINLINE double elapse(double from_s, double to_s, uint32_t waiting,
                                             uint32_t holding) {
    const double dt = m_.in_window(from_s, to_s);
    if (dt > 0) {
      jobs_.queue_area += static_cast<double>(waiting) * dt;
      jobs_.running_area += static_cast<double>(holding) * dt;
      // The part in the window's second half (to_s is at most the horizon).
      const double late_from = from_s > window_mid_s_ ? from_s : window_mid_s_;
      if (to_s > late_from) jobs_.queue_area_late += static_cast<double>(waiting) * (to_s - late_from);
    }
    return dt;
  }

  /// `count` jobs wait over [from_s, to_s]: to the time series' queue row, when it has one
  /// (the settling probe's).
  GPUCAP_HD GPUCAP_FORCEINLINE void waiting(double from_s, double to_s, uint32_t count) {
    usage_.waiting(from_s, to_s, static_cast<double>(count));
  }

  /// A job of the window launches for the first time, after waiting `wait_s`.
  GPUCAP_HD GPUCAP_FORCEINLINE void first_launch(double wait_s) {
    ++jobs_.launched;
    jobs_.wait_sum_s += wait_s;
    if (wait_s > 0) ++jobs_.waited;
    wait_->add(wait_s);
  }

  /// A job of the window begins its first run in pool p after `provisioning_s`.
  GPUCAP_HD GPUCAP_FORCEINLINE void first_start(uint32_t p, double provisioning_s) {
    ++jobs_.started;
    rows_[p * kPoolMetricCount + kPoolJobsStarted] += 1;
    jobs_.provisioning_sum_s += provisioning_s;
  }

  /// A deployment's instance (re)starts in pool p at `now_s` (not one running at t = 0): a start
  /// of the pool's when in the window.
  GPUCAP_HD GPUCAP_FORCEINLINE void instance_start(uint32_t p, double now_s) {
    if (now_s >= m_.warmup_s) rows_[p * kPoolMetricCount + kPoolJobsStarted] += 1;
  }

  /// A job of the window completes `completion_s` after it arrived.
  GPUCAP_HD GPUCAP_FORCEINLINE void completion(double completion_s, bool late) {
    ++jobs_.completed;
    jobs_.completion_sum_s += completion_s;
    completion_->add(completion_s);
    if (late) ++jobs_.late;
  }

  /// A run in pool p was reclaimed (in the window).
  GPUCAP_HD void preemption(uint32_t p) {
    ++jobs_.preemptions;
    rows_[p * kPoolMetricCount + kPoolPreemptions] += 1;
  }

  /// A replica lifetime in pool p was reclaimed (in the window): the pool's count only (the
  /// replication's count of runs is the jobs'; ServiceFleet counts replicas).
  GPUCAP_HD void replica_preempted(uint32_t p) {
    rows_[p * kPoolMetricCount + kPoolPreemptions] += 1;
  }

  /// A launch in pool p failed for a stockout (in the window).
  GPUCAP_HD void launch_failure(uint32_t p) {
    ++jobs_.launch_failures;
    rows_[p * kPoolMetricCount + kPoolLaunchFailures] += 1;
  }

  /// `gpus` GPUs of pool p in use over [from_s, to_s] (clipped to the window); kSeries false:
  /// the model keeps no time series.
  template <bool kSeries = true>
  GPUCAP_HD GPUCAP_FORCEINLINE void used(uint32_t p, double from_s, double to_s, double gpus) {
    rows_[p * kPoolMetricCount + kPoolGpuHoursUsed] += m_.in_window(from_s, to_s) * gpus;
    if constexpr (kSeries) usage_.add(p, from_s, to_s, gpus);
  }
  /// Bills one hold of `held_s` seconds of `gpus` GPUs in pool p (a job's run, a replica's
  /// lifetime): rounded up to the pool's increment and at least its minimum, times `share`
  /// (the part of a lifetime begun before the warm-up that falls in the window). Returns the
  /// billed seconds of the hold before the share.
  GPUCAP_HD double bill_hold(uint32_t p, double held_s, double gpus, double share = 1.0) {
    const CompiledPool& pool = m_.pools[p];
    const double billed_s =
        billed_seconds(held_s, pool.billing_increment_s, pool.billing_minimum_s);
    rows_[p * kPoolMetricCount + kPoolGpuHoursBilled] += billed_s * share * gpus;
    return billed_s;
  }
  /// Pool p's billed usage of `gpus` GPUs over [from_s, to_s], clipped to the window, to the
  /// periods of the billing commitment that covers it (nothing when none does): its GPU-s and
  /// their price at the pool's on-demand rate, period by period.
  GPUCAP_HD void commitment_use(uint32_t p, double from_s, double to_s, double gpus) {
    const CompiledPool& pool = m_.pools[p];
    if (pool.commitment == CompiledPool::kNoCommitment) return;
    const CompiledCommitment& c = m_.commitments[pool.commitment];
    const double lo = from_s > m_.warmup_s ? from_s : m_.warmup_s;
    const double hi = to_s < m_.horizon_s ? to_s : m_.horizon_s;
    if (!(hi > lo)) return;
    uint32_t k = static_cast<uint32_t>(lo / c.period_s);
    for (; k < c.bins; ++k) {
      const double begin = k * c.period_s;
      if (!(begin < hi)) break;
      const double end = begin + c.period_s;
      const double overlap = (hi < end ? hi : end) - (lo > begin ? lo : begin);
      if (overlap > 0) {
        const uint32_t b = 2 * (c.bin_offset + k);
        commitment_usage_[b] += overlap * gpus;
        commitment_usage_[b + 1] += overlap * gpus * pool.price_usd_per_gpu_s;
      }
    }
  }

  /// `gpus` GPUs of pool p held by a replica up (starting or warm) over [from_s, to_s], clipped
  /// to the window.
  GPUCAP_HD void replica_up(uint32_t p, double from_s, double to_s, double gpus) {
    rows_[p * kPoolMetricCount + kPoolGpuHoursUp] += m_.in_window(from_s, to_s) * gpus;
  }
  /// A deployment instance in pool p served over [from_s, to_s), clipped to the window.
  GPUCAP_HD void instance_served(uint32_t p, double from_s, double to_s) {
    rows_[p * kPoolMetricCount + kPoolInstanceHoursServed] += m_.in_window(from_s, to_s);
    deployments_.served(from_s, to_s);
  }
  GPUCAP_HD void egress(uint32_t p, double usd) {
    rows_[p * kPoolMetricCount + kPoolEgressUsd] += usd;
  }
  GPUCAP_HD double pool_value(uint32_t p, PoolMetric k) const {
    return rows_[p * kPoolMetricCount + k];
  }

  /// Slot s begins a run now: remembers its pool's price integral (pools whose price moves).
  GPUCAP_HD GPUCAP_FORCEINLINE void run_begins(uint32_t s, uint32_t p, double now_s) {
    if (PriceProcess::moves(m_.pools[p]))
      price_marks_[s] = prices_.integral_at(p, now_s, price_streams_[p]);
  }

  /// Bills and records the usage of a running job's GPUs from its start to `end_s`; F: the
  /// engine's Features (what the model may use).
  template <typename F = AllFeatures>
  GPUCAP_HD void bill_hold(uint32_t s, const JobSlot& slot, double end_s) {
    const CompiledPool& p = m_.pools[slot.pool];
    used<F::kTimeseries>(slot.pool, slot.start_s, end_s, slot.gpus);
    // Egress of the data this run fetched: charged, like the billed time, when the run ends.
    if (F::kTransfers && m_.has_transfers && end_s >= m_.warmup_s)
      egress(slot.pool, m_.transfer_egress_usd[slot.job_class * m_.pool_count + slot.pool]);
    if (F::kTransfers && run_.moves_checkpoint(slot) && end_s >= m_.warmup_s)
      egress(slot.pool, m_.classes[slot.job_class].checkpoint_size_gb *
                            m_.pool_egress_usd_per_gb[slot.checkpoint_pool]);
    if (F::kCommitments) commitment_use(slot.pool, slot.start_s, end_s, slot.gpus);
    if (end_s < m_.warmup_s || p.committed()) return;  // committed pools: charged in finish()
    const double held_s = end_s - slot.start_s;
    // A job's hold is billed whole when it ends in the window. A deployment instance's run
    // that began before the warm-up pays, as a replica's lifetime does, only the share of its
    // bill inside the window (its served hours are clipped to it too).
    double share = 1.0;
    if (F::kDeployments && slot.start_s < m_.warmup_s && held_s > 0 &&
        m_.classes[slot.job_class].deployment)
      share = m_.in_window(slot.start_s, end_s) / held_s;
    const double billed_s = bill_hold(slot.pool, held_s, slot.gpus, share);
    if (F::kMovingPrices && PriceProcess::moves(p)) {
      // The price paid over the run, and the end price for billed time beyond it.
      const double run_usd =
          prices_.integral_at(slot.pool, end_s, price_streams_[slot.pool]) - price_marks_[s];
      rows_[slot.pool * kPoolMetricCount + kPoolCostUsd] +=
          (run_usd + (billed_s - held_s) * prices_.price(slot.pool)) * slot.gpus * share;
    }
  }

  /// Checkpoint writing, run prefix (fetching data, then restoring) and lost time (wall-clock
  /// s) of a run that ends at now_s.
  GPUCAP_HD void overheads(const JobSlot& slot, double now_s, double writing_s, double prefix_s,
                           double lost_s) {
    if (now_s < m_.warmup_s) return;
    const double gpus = slot.gpus;
    const double fetch_s = run_.transfer_s(slot);
    const double transferring_s = prefix_s < fetch_s ? prefix_s : fetch_s;
    jobs_.checkpointing_gpu_s += writing_s * gpus;
    jobs_.transferring_gpu_s += transferring_s * gpus;
    jobs_.restarting_gpu_s += (prefix_s - transferring_s) * gpus;
    jobs_.lost_gpu_s += lost_s * gpus;
  }

  // ---- end of the run ---------------------------------------------------------------------

  /// Billing commitment c settled over its periods: returns its fee for the window (USD) and
  /// sets `paid_usd` to the on-demand price of the covered usage it pays for.
  GPUCAP_HD double settle_commitment(uint32_t c, double& paid_usd) const {
    const CompiledCommitment& k = m_.commitments[c];
    double fee = 0;
    paid_usd = 0;
    for (uint32_t i = 0; i < k.bins; ++i) {
      const double begin = i * k.period_s;
      const double end = begin + k.period_s;
      const double w = m_.in_window(begin, end < m_.horizon_s ? end : m_.horizon_s);
      if (!(w > 0)) continue;
      fee += k.fee_usd_per_s * w;
      const double used_gpu_s = commitment_usage_[2 * (k.bin_offset + i)];
      const double on_demand_usd = commitment_usage_[2 * (k.bin_offset + i) + 1];
      if (!(used_gpu_s > 0)) continue;
      // The share of the period's usage the commitment pays for: a reservation's GPU-seconds,
      // or a savings plan's spend at its own rates.
      const double room = k.savings_plan ? k.fee_usd_per_s * w : k.gpus * w;
      const double need = k.savings_plan ? k.plan_rate * on_demand_usd : used_gpu_s;
      paid_usd += on_demand_usd * (room >= need ? 1.0 : room / need);
    }
    return fee;
  }

  /// Pool rows to GPU-hours and USD, and the scalar metrics of costs and jobs.
  GPUCAP_HD void finish(double* out) {
    const double window_s = m_.horizon_s - m_.warmup_s;
    double total_quota_h = 0;
    for (uint32_t c = 0; c < m_.commitment_count; ++c) {
      // The fee is the commitments' cost; the usage it pays for leaves its pools' bills, shared
      // among them by their bills in the window (billed GPU-s, still in seconds here).
      double paid = 0;
      const double fee = settle_commitment(c, paid);
      double billed_usd = 0;
      for (uint32_t p = 0; p < m_.pool_count; ++p)
        if (m_.pools[p].commitment == c)
          billed_usd += rows_[p * kPoolMetricCount + kPoolGpuHoursBilled] *
                        m_.pools[p].price_usd_per_gpu_s;
      for (uint32_t p = 0; p < m_.pool_count; ++p)
        if (m_.pools[p].commitment == c && billed_usd > 0)
          rows_[p * kPoolMetricCount + kPoolCostUsd] -=
              paid * (rows_[p * kPoolMetricCount + kPoolGpuHoursBilled] *
                      m_.pools[p].price_usd_per_gpu_s / billed_usd);
      out[kCostCommitmentsUsd] += fee;
      out[kCostUsd] += fee;
    }
    for (uint32_t p = 0; p < m_.pool_count; ++p) {
      double* row = rows_ + p * kPoolMetricCount;
      const CompiledPool& pool = m_.pools[p];
      // Committed pools bill every GPU of the count for the whole window, used or not.
      const double billed_gpu_s =
          pool.committed() ? pool.quota_gpus * window_s : row[kPoolGpuHoursBilled];
      // Pools with a price process have accumulated their cost hold by hold; a pool that a
      // billing commitment covers starts with minus the part of its usage the commitment paid.
      const double compute_usd =
          PriceProcess::moves(pool)
              ? row[kPoolCostUsd]
              : row[kPoolCostUsd] +
                    billed_gpu_s *
                        (pool.committed() ? pool.committed_usd_per_gpu_s : pool.price_usd_per_gpu_s);
      row[kPoolCostUsd] = compute_usd + row[kPoolEgressUsd];
      out[kEgressUsd] += row[kPoolEgressUsd];
      row[kPoolGpuHoursBilled] = billed_gpu_s / 3600.0;
      row[kPoolGpuHoursUsed] /= 3600.0;
      const double quota_h = pool.quota_gpus * window_s / 3600.0;
      total_quota_h += quota_h;
      row[kPoolGpuHoursUp] /= 3600.0;
      row[kPoolInstanceHoursServed] /= 3600.0;
      row[kPoolQuotaUtilization] = quota_h > 0 ? row[kPoolGpuHoursUsed] / quota_h : 0.0;
      // A pool of replicas is busy only while replicas are up: over their GPU-time.
      const double up_h = row[kPoolGpuHoursUp];
      row[kPoolUtilization] = !pool.runs_replicas ? row[kPoolQuotaUtilization]
                              : up_h > 0          ? row[kPoolGpuHoursUsed] / up_h
                                                  : 0.0;
      out[kCostUsd] += row[kPoolCostUsd];
      out[kCostOnDemandUsd + static_cast<uint32_t>(pool.purchase)] += row[kPoolCostUsd];
      out[kGpuHoursUsed] += row[kPoolGpuHoursUsed];
      out[kGpuHoursBilled] += row[kPoolGpuHoursBilled];
    }
    out[kUtilization] = total_quota_h > 0 ? out[kGpuHoursUsed] / total_quota_h : 0.0;
    usage_.finish(m_.horizon_s);
    const JobTotals& j = jobs_;
    const double arrived = static_cast<double>(j.arrived);
    const double started = static_cast<double>(j.started);
    const double completed = static_cast<double>(j.completed);
    out[kJobsArrived] = arrived;
    out[kJobsStarted] = started;
    out[kJobsCompleted] = completed;
    out[kJobsDropped] = static_cast<double>(j.dropped);
    out[kJobsLate] = static_cast<double>(j.late);
    out[kPreemptions] = static_cast<double>(j.preemptions);
    out[kLaunchFailures] = static_cast<double>(j.launch_failures);
    out[kGpuHoursLost] = j.lost_gpu_s / 3600.0;
    out[kGpuHoursCheckpointing] = j.checkpointing_gpu_s / 3600.0;
    out[kGpuHoursRestarting] = j.restarting_gpu_s / 3600.0;
    out[kGpuHoursTransferring] = j.transferring_gpu_s / 3600.0;
    // A ratio over no observations is not defined: NaN (the summary counts where it is).
    const double nan = pmath::quiet_nan();
    out[kDropFraction] = arrived > 0 ? out[kJobsDropped] / arrived : nan;
    const double launched = static_cast<double>(j.launched);
    out[kWaitProbability] = launched > 0 ? static_cast<double>(j.waited) / launched : nan;
    out[kWaitMeanS] = launched > 0 ? j.wait_sum_s / launched : nan;
    out[kProvisioningMeanS] = started > 0 ? j.provisioning_sum_s / started : nan;
    write_percentiles(*wait_, out + kWaitP50S);
    out[kCompletionMeanS] = completed > 0 ? j.completion_sum_s / completed : nan;
    write_percentiles(*completion_, out + kCompletionP50S);
    out[kQueueLengthMean] = window_s > 0 ? j.queue_area / window_s : 0.0;
    out[kQueueLengthDrift] =
        window_s > 0 ? (2.0 * j.queue_area_late - 2.0 * (j.queue_area - j.queue_area_late)) / window_s
                     : 0.0;
    out[kJobsRunningMean] = window_s > 0 ? j.running_area / window_s : 0.0;
    deployments_.finish(out);
  }

 private:
  const CompiledModel& m_;
  RunArithmetic run_;
  double window_mid_s_;  ///< the middle of the statistics window, s
  PriceProcess prices_;
  JobTotals jobs_;
  DeploymentTotals deployments_;
  double* rows_ = nullptr;
  ArenaPtr<double> price_marks_ = nullptr;
  ArenaPtr<QuantileRecorder> wait_ = nullptr;
  ArenaPtr<QuantileRecorder> completion_ = nullptr;
  ArenaPtr<RandomStream> price_streams_ = nullptr;
  UsageSeries usage_;
  ArenaPtr<double> commitment_usage_ = nullptr;
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
