// gpucap: what a table of results should warn about because its numbers cannot be trusted as
// they look: every replication identical (zero-width intervals that say nothing of other
// futures), and a start-up transient that outlasts the warm-up: seen in the time series of GPUs
// in use (the run's own, or the settling probe's), in the probe's series of jobs waiting, and in
// every replication's queue_length_drift (the queue still growing over the window, which biases
// waits; at high load the GPUs in use settle long before the waits do). Runs that replay a
// trace or start from a state at t = 0 ask about a given period and are not checked for it.
// The CLI prints these under its table, the report shows them, Python has them as
// Results.warnings.
//
//   for (const std::string& w : gpucap::result_warnings(results)) std::cout << "warning: " << w;
#pragma once
#include <string>
#include <vector>

#include "gpucap/results.hpp"

namespace gpucap {

/// Whether the replications of `point` all gave the same value of every scalar metric (bit for
/// bit where their rows are kept; else a standard deviation of 0 in every summary). False with
/// fewer than 2 replications.
bool replications_identical(const RunResults& r, std::size_t point);

/// Where the mean time series of GPUs in use (all pools, averaged over the kept replications of
/// `point`) settles, by MSER-5 (White 1997): the series in batches of 5 bins, y_0..y_{m-1}; the
/// truncation d minimizing Σ_{j>=d} (y_j - mean_d)² / (m - d)² over d <= m / 2. Returns the
/// time it settles (d · 5 · step, seconds), or a negative number when there is no series (or
/// fewer than 10 batches). result_warnings warns only when the batches between the warm-up and
/// that truncation differ from those after it by more than 5 standard errors and 2% (MSER also
/// truncates noise).
double transient_end_s(const RunResults& r, std::size_t point);

/// One sentence per warning, without a trailing newline; empty when there is nothing to say.
std::vector<std::string> result_warnings(const RunResults& r);

}  // namespace gpucap
