// gpucap fitting: do a class's run times (an instance log's lifetimes) change over the window?
// The fitted run-time model pools every job of the window; if jobs started late in it run
// shorter or longer than those started early, a forecast from the log's end misstates them,
// and the fit says so.
//
// Test: the log-rank test of the run times of the jobs started in the window's second half
// against those started in its first half, censoring included (a job still running at the log's
// end is at risk until then: the later half's shorter follow-up is no evidence of shorter
// lives). At each time t_j at which d_j jobs end, n_j of them at risk (n_late,j of the later
// half), the later half expects E = Σ d_j n_late,j / n_j ends, with variance
// V = Σ d_j (n_early,j n_late,j / n_j²) (n_j − d_j) / (n_j − 1); (O − E)² / V is χ²(1) when both
// halves share one hazard. The hazard ratio (O_late / E_late) / (O_early / E_early) says by how
// much: above 1, the later jobs end sooner. Tested with at least 10 ends in each half; the change
// is significant when p < alpha and the ratio is at least 1.25 or at most 0.8 (a change that
// matters: on the 26,793 requests of a real GenAI log, run times whose medians differ by 1 s
// give p = 1e-52 at a ratio of 0.83).
#pragma once
#include <cstddef>
#include <vector>

#include "gpucap/fit/run_time_sample.hpp"

namespace gpucap::fit {

struct RunTimeTrend {
  bool tested = false;
  std::size_t early_ends = 0, late_ends = 0;  ///< finished jobs started in each half
  double hazard_ratio = 1;  ///< the later half's hazard over the earlier half's
  double chi_square = 0;    ///< log-rank statistic on 1 df
  double p_value = 1;
  double early_median_s = 0, late_median_s = 0;  ///< Kaplan-Meier medians; NaN: not reached
  bool significant = false;
};

/// `sample` the run times, `submit_s` each one's start, index for index (same length);
/// `window_s` the log's window (halves at window_s / 2).
RunTimeTrend run_time_trend(const RunTimeSample& sample, const std::vector<double>& submit_s,
                            double window_s, double alpha = 0.01);

}  // namespace gpucap::fit
