// gpucap: how often a goal was met across replications, with its intervals, and what that says
// about a wanted probability (a goal's target, or a chance constraint's level).
#pragma once
#include <cstdint>
#include <limits>
#include <string>

#include "gpucap/binomial_interval.hpp"

namespace gpucap {

/// Confidence of the goal intervals that summaries store and reports print.
inline constexpr double kGoalConfidence = 0.95;

struct GoalSummary {
  uint64_t met = 0;  ///< replications where the goal was met
  uint64_t n = 0;    ///< replications (every one counts: an undefined metric fails its condition)
  double probability = std::numeric_limits<double>::quiet_NaN();  ///< met / n
  BinomialInterval exact{std::numeric_limits<double>::quiet_NaN(),
                         std::numeric_limits<double>::quiet_NaN()};  ///< Clopper-Pearson, 95%
  BinomialInterval wilson{std::numeric_limits<double>::quiet_NaN(),
                          std::numeric_limits<double>::quiet_NaN()};  ///< Wilson score, 95%
};

/// Summary of a goal met in `met` of `n` replications (n = 0: NaN estimate and intervals).
GoalSummary summarize_goal(uint64_t met, uint64_t n);

/// Whether the probability is at least `level`, judged by the exact 95% interval.
enum class ChanceVerdict : uint8_t {
  meets,        ///< the whole interval is at or above the level
  fails,        ///< the whole interval is below the level
  cannot_tell,  ///< the interval contains the level: more replications would decide
};

ChanceVerdict judge_chance(const GoalSummary& s, double level);

/// "meets", "fails", "cannot tell".
const char* chance_verdict_name(ChanceVerdict v);

/// The verdict against a goal's `target` as reports print it: "meets", "fails", or "cannot tell
/// (about N replications)"; "" when there is no target (target <= 0).
std::string target_verdict_text(const GoalSummary& s, double target);

/// About how many replications in all would make the exact interval exclude `level` if the
/// estimate stayed where it is; 0 when it already does, UINT64_MAX when the estimate equals the
/// level (no number of replications would).
uint64_t replications_to_decide(const GoalSummary& s, double level);

}  // namespace gpucap
