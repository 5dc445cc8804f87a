// gpucap: what a table of results should warn about because its numbers cannot be trusted as
// they look: every replication identical (zero-width intervals that say nothing of other
// futures). The CLI prints these under its table, the report shows them, Python has them as
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

/// One sentence per warning, without a trailing newline; empty when there is nothing to say.
std::vector<std::string> result_warnings(const RunResults& r);

}  // namespace gpucap
