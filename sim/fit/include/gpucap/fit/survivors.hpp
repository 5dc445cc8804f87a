// gpucap fitting: how many of the instances running at a forecast's start are still running
// d seconds later, by the fitted lifetime and by the log's own survival curve, so that a fit
// whose lifetimes end the old instances too soon (or too late) says so.
//
// The log's curve is the Kaplan-Meier estimate with delayed entry (left truncation): every
// instance whose start is known enters the risk set at its age when the log began (0 for one
// created in the window) and leaves it at its end (an event) or at the log's end (censored), so
// instances already old at the log's start inform the survival of old ages. An instance of age
// a then survives d more with probability S(a + d) / S(a), both of the model and of the log's
// curve; the expected survivors are the sum over the instances running at the log's end. The
// log's curve says nothing beyond the oldest age it saw: instances for which a + d lies beyond
// it are counted apart.
//
//   const LogSurvival curve = log_survival(job_class, trace.window_s);
//   SurvivorCheck c = expected_survivors(job_class, curve, model, 86400);  // after 1 day
#pragma once
#include <cstddef>
#include <vector>

#include "gpucap/fit/job_trace.hpp"
#include "gpucap/fit/run_time_model.hpp"

namespace gpucap::fit {

struct SurvivorCheck {
  double after_s = 0;        ///< d
  std::size_t running = 0;   ///< instances running at the log's end
  double model = 0;          ///< expected still running after d, by the fitted lifetime
  double log = 0;            ///< the same by the log's survival curve, over those it covers
  std::size_t covered = 0;   ///< instances for which the log's curve reaches a + d
  double model_covered = 0;  ///< the model's expectation over those same instances
};

/// The log's Kaplan-Meier curve with delayed entry: its event ages and S just after each.
struct LogSurvival {
  std::vector<double> time_s, survival;
  double oldest_s = 0;  ///< the oldest age any instance was seen at: the curve's reach

  /// S(t): 1 before the first event.
  double at(double t) const;
};

/// The class's delayed-entry curve over a log of `window_s` seconds: the instances created in
/// it enter at age 0, those running at its start at their age then (those of unknown start are
/// left out); an end after the window is censored at the window's end.
LogSurvival log_survival(const JobClass& c, double window_s);

/// The model's survival function S(t) = P(L > t) of a fitted lifetime (family or empirical with
/// its tail).
double model_survival(const RunTimeModel& m, double t_s);

/// Expected survivors after `after_s` of the class's instances running at its log's end (their
/// ages: JobClass::age_at_end_s), by the model and by the log's curve (log_survival).
SurvivorCheck expected_survivors(const JobClass& c, const LogSurvival& curve,
                                 const RunTimeModel& m, double after_s);

/// Whether the check says the model ends the old instances at another pace than the log's
/// curve does, beyond chance: over at least 5 covered instances, the model's expected survivors
/// differ from the log's by more than 3 binomial standard deviations of the log's (plus 1).
bool survivors_disagree(const SurvivorCheck& c);

/// The log's curve as an empirical lifetime: `count` equally likely
/// values, its body's quantiles at (i + 0.5) / count of the mass up to its last event, and the
/// mass beyond (instances outlasting every ended one) as its tail, of the mean excess of
/// `fitted`'s best family (mean_residual_life). Unlike a fit of the instances created in the
/// window alone, it learns long lifetimes from the instances that were already old when the
/// log began. `fitted` gives the candidates; the result has no values when nothing ended.
RunTimeModel delayed_entry_model(const LogSurvival& curve, std::size_t count,
                                 const RunTimeModel& fitted);

}  // namespace gpucap::fit
