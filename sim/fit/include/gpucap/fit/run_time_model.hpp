// gpucap fitting: choosing a run-time distribution for one job class.
//
// Every family of distribution_family.hpp is fit by maximum likelihood and scored by its AIC;
// each gets KS (and, without censoring, AD) statistics. The choice (when not forced):
//   1. the parametric family with the lowest AIC among those the scenario format can write
//      (shapes 0.01..1000, lognormal sigma 0.001..10, durations 1 us..10000 years);
//   2. replaced by the empirical distribution when the sample is large (>= 500 finished jobs)
//      and even the best family fails KS at 1% (D above the 1% critical value of Kolmogorov's
//      law, ≈ 1.628/√n for n finished jobs): so many jobs that every parametric shape is
//      visibly wrong, and enough of them to be the distribution. AIC cannot compare the
//      empirical distribution (it has as many parameters as jobs), hence this rule;
//   3. fallbacks: no finished job (all censored): empirical over the lower bounds, which
//      understates run times; one finished job, or all finished times equal: exponential with
//      the censored MLE mean. Each says so in `reason` and `warnings`.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "gpucap/fit/maximum_likelihood.hpp"
#include "gpucap/fit/run_time_sample.hpp"

namespace gpucap::fit {

/// Limits of the scenario format (docs/scenario-format.md, Distributions).
constexpr double kMinDurationS = 1e-6, kMaxDurationS = 1e4 * 365.25 * 86400.0;

/// Empty when `fit`'s parameters are within the scenario format's ranges; else why not, e.g.
/// "shape 0.004 is below the format's 0.01".
std::string unwritable_reason(Family family, const FamilyParams& params);

struct CandidateFit {
  FamilyFit fit;
  std::string unwritable;    ///< non-empty: fitted, but the format cannot hold the parameters
  double ks_d = 0;           ///< KS distance to the Kaplan-Meier estimate (probability)
  double ks_p = 1;           ///< conservative p-value (see goodness_of_fit.hpp)
  double ad = -1;            ///< A², or −1 when censored jobs make it undefined
  double ad_p = -1;          ///< its p-value, or −1
};

enum class RunTimeChoice { automatic, exponential, lognormal, gamma, weibull, empirical };

struct RunTimeModel {
  std::size_t jobs = 0, finished = 0;
  std::vector<CandidateFit> candidates;  ///< one per family, in kFamilies order
  bool empirical = false;                ///< true: `values`; false: `family` and `params`
  Family family = Family::exponential;
  FamilyParams params;
  std::vector<double> values;  ///< the empirical distribution's equally likely values, seconds
  /// With `empirical`: the Kaplan-Meier mass beyond the last finished job (censored lifetimes
  /// that outlast every observed one), written as the distribution's tail: with this
  /// probability the largest value plus an exponential of mean tail_mean_s (the best family's
  /// mean residual life there). 0: no tail (every value is in `values`).
  double tail_probability = 0;
  double tail_mean_s = 0;
  std::string reason;          ///< one line: why this model
  std::vector<std::string> warnings;
};

/// The mean excess beyond `t` (seconds) of the model's tail: the mean residual life
/// ∫_t^∞ S(u) du / S(t) of the best usable family by AIC among m.candidates (trapezoids on a
/// geometric grid up to where S falls below 1e-9 S(t)); without one, t itself.
double mean_residual_life(const RunTimeModel& m, double t);

/// An empirical model without a tail, of which some instances running at the log's end (their
/// ages: `ages_at_end_s`) are at least as old as its longest value: gives it the tail those
/// survivors imply (their share of n + survivors, the best family's mean residual life beyond
/// the longest value), so that --state end can draw each one's rest. Nothing for a family, a
/// model with a tail, or when no survivor is that old.
void add_tail_for_survivors(RunTimeModel& m, const std::vector<double>& ages_at_end_s);

/// Finished jobs needed before the empirical distribution may replace a parametric family.
constexpr std::size_t kEmpiricalMinFinished = 500;

/// Fits every family and chooses by the rule above; `choice` forces a family or the empirical
/// distribution instead (a forced family that cannot be fit or written falls back by the rule,
/// with a warning). `sample` must be non-empty.
RunTimeModel choose_run_time_model(const RunTimeSample& sample,
                                   RunTimeChoice choice = RunTimeChoice::automatic);

}  // namespace gpucap::fit
