// gpucap engine: what the instances of deployment workloads (kind: deployment) demanded and
// were served in the statistics window, turned into their metrics at the end.
//
// An instance demands its GPUs over [arrival, arrival + lifetime) on the wall clock; it is
// served while it runs past its startup. Every figure is clipped to the window [warmup,
// horizon] and kept in instance-seconds until finish(). By construction
//   demanded = served + waiting (before its first launch) + down (after it: provisioning,
//              startup, and the time from a reclaim until it serves again),
// so `down` is computed, not summed, and the three always add up.
#pragma once
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/compiled_model.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/portable.hpp"
#include "gpucap/portable_math.hpp"
#include "gpucap/quantile_recorder.hpp"

namespace gpucap::engine {
GPUCAP_ARENA_NAMESPACE_BEGIN

class DeploymentTotals {
 public:
  GPUCAP_HD void bind(const CompiledModel& m, ArenaPtr<QuantileRecorder> restore) {
    m_ = &m;
    restore_ = restore;
    if (restore_ != nullptr) restore_->clear();
  }

  /// An instance alive over [from_s, to_s) (to_s may be +infinity: it outlives the horizon).
  GPUCAP_HD void demand(double from_s, double to_s) { demanded_s_ += m_->in_window(from_s, to_s); }
  /// An instance served over [from_s, to_s).
  GPUCAP_HD void served(double from_s, double to_s) { served_s_ += m_->in_window(from_s, to_s); }
  /// An instance waited for capacity before its first launch over [from_s, to_s).
  GPUCAP_HD void waited(double from_s, double to_s) { waiting_s_ += m_->in_window(from_s, to_s); }
  /// A running instance was reclaimed at now_s.
  GPUCAP_HD void interrupted(double now_s) {
    if (now_s >= m_->warmup_s) ++interruptions_;
  }
  /// An instance reclaimed at `since_s` serves again at `back_s` (counted when it was reclaimed
  /// in the window).
  GPUCAP_HD void restored(double since_s, double back_s) {
    if (since_s < m_->warmup_s) return;
    ++restores_;
    restore_sum_s_ += back_s - since_s;
    restore_->add(back_s - since_s);
  }
  /// An instance could not wait (the waiting room was full) at now_s.
  GPUCAP_HD void dropped(double now_s) {
    if (now_s >= m_->warmup_s) ++dropped_;
  }
  /// The count of instances holding GPUs changes by +1 or -1.
  GPUCAP_HD void holding(int delta) { up_ = static_cast<uint32_t>(static_cast<int>(up_) + delta); }
  /// The clock moves by `dt` seconds of the window with up_ instances holding GPUs.
  GPUCAP_HD void elapse(double dt) {
    if (dt > 0 && up_ > peak_up_) peak_up_ = up_;
  }

  /// The deployment metrics (instance-hours, fractions, counts, seconds) into out.
  GPUCAP_HD void finish(double* out) const {
    const double window_s = m_->horizon_s - m_->warmup_s;
    // Demanded and served sum the same intervals in other orders: a difference within their
    // rounding (kRoundingShare of the demand) is none.
    const double rounding_s = kRoundingShare * demanded_s_;
    const double unserved_s = demanded_s_ - served_s_ > rounding_s ? demanded_s_ - served_s_ : 0.0;
    const double down_s = unserved_s - waiting_s_ > rounding_s ? unserved_s - waiting_s_ : 0.0;
    const double nan = pmath::quiet_nan();
    out[kInstanceHoursDemanded] = demanded_s_ / 3600.0;
    out[kInstanceHoursServed] = served_s_ / 3600.0;
    out[kInstanceHoursUnserved] = unserved_s / 3600.0;
    out[kInstanceHoursWaiting] = waiting_s_ / 3600.0;
    out[kInstanceHoursDown] = down_s / 3600.0;
    out[kUnservedFraction] = demanded_s_ > 0 ? unserved_s / demanded_s_ : nan;
    out[kInterruptions] = static_cast<double>(interruptions_);
    out[kInstancesDropped] = static_cast<double>(dropped_);
    out[kRestoreMeanS] = restores_ > 0 ? restore_sum_s_ / static_cast<double>(restores_) : nan;
    if (restore_ != nullptr) {
      const double percentiles[3] = {0.50, 0.95, 0.99};
      restore_->quantiles(percentiles, 3, out + kRestoreP50S);
    } else {
      out[kRestoreP50S] = out[kRestoreP95S] = out[kRestoreP99S] = nan;
    }
    out[kInstancesServedMean] = window_s > 0 ? served_s_ / window_s : 0.0;
    out[kInstancesPeak] = static_cast<double>(peak_up_);
  }

 private:
  static constexpr double kRoundingShare = 1e-11;
  const CompiledModel* m_ = nullptr;
  ArenaPtr<QuantileRecorder> restore_ = nullptr;  ///< null when the model has no deployment
  double demanded_s_ = 0, served_s_ = 0, waiting_s_ = 0, restore_sum_s_ = 0;
  uint64_t interruptions_ = 0, restores_ = 0, dropped_ = 0;
  uint32_t up_ = 0, peak_up_ = 0;
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
