// gpucap fitting: a sample of run times, some right-censored, and its Kaplan-Meier estimate.
//
// A censored time is a lower bound: the job was still running when the log ended, so its run
// time is at least time_s[i]. Invariant: time_s and censored have the same length, every time
// is finite and > 0 (seconds).
//
//   RunTimeSample s{{600, 1200, 3600}, {0, 0, 1}};   // the 3600 s job had not finished
//   std::vector<KaplanMeierStep> km = kaplan_meier(s);  // steps at 600 s and 1200 s
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpucap::fit {

struct RunTimeSample {
  std::vector<double> time_s;      ///< run time, or its lower bound when censored; seconds > 0
  std::vector<uint8_t> censored;   ///< 1: still running at the log's end; 0: finished

  std::size_t size() const { return time_s.size(); }
  /// Number of finished (uncensored) jobs.
  std::size_t events() const;
};

/// One step of the Kaplan-Meier estimate: at `time_s` (a time at which at least one job
/// finished) the estimated CDF jumps from cdf_before to cdf_after.
struct KaplanMeierStep {
  double time_s;
  double cdf_before;
  double cdf_after;
};

/// The Kaplan-Meier (product-limit) estimate of the run-time CDF: S(t) = Π_{t_j <= t}
/// (1 − d_j / n_j), d_j jobs finished at t_j among the n_j with time >= t_j (a job censored at
/// t_j counts as at risk at t_j). Without censoring it is the empirical CDF. Steps ascend by
/// time; empty when no job finished.
std::vector<KaplanMeierStep> kaplan_meier(const RunTimeSample& sample);

/// `count` equally weighted values that reproduce the Kaplan-Meier estimate: the value for
/// probability (i + 0.5) / count is the smallest time whose estimated CDF reaches it. The mass
/// that the estimate leaves beyond the last finished job (when the longest jobs are censored)
/// goes to the largest time in the sample, a lower bound of those run times. Without censoring
/// and with count = size(), these are the sorted times themselves.
std::vector<double> kaplan_meier_values(const RunTimeSample& sample, std::size_t count);

/// The same for the body of the estimate alone: `count` equally weighted values of the run time
/// given that it is at most the last finished job's (the probability (i + 0.5) / count x
/// body, body = the estimate's CDF there); the rest, 1 − body, is the tail beyond it.
std::vector<double> kaplan_meier_body_values(const RunTimeSample& sample, std::size_t count,
                                             double& body);

}  // namespace gpucap::fit
