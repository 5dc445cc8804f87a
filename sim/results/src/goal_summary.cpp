// gpucap: goal summaries and verdicts against a wanted probability (see goal_summary.hpp).
#include "gpucap/goal_summary.hpp"

#include <cmath>

namespace gpucap {

GoalSummary summarize_goal(uint64_t met, uint64_t n) {
  GoalSummary s;
  s.met = met;
  s.n = n;
  if (n == 0) return s;
  s.probability = static_cast<double>(met) / static_cast<double>(n);
  s.exact = clopper_pearson_interval(met, n, kGoalConfidence);
  s.wilson = wilson_interval(met, n, kGoalConfidence);
  return s;
}

ChanceVerdict judge_chance(const GoalSummary& s, double level) {
  if (s.n > 0 && s.exact.low >= level) return ChanceVerdict::meets;
  if (s.n > 0 && s.exact.high < level) return ChanceVerdict::fails;
  return ChanceVerdict::cannot_tell;
}

const char* chance_verdict_name(ChanceVerdict v) {
  switch (v) {
    case ChanceVerdict::meets: return "meets";
    case ChanceVerdict::fails: return "fails";
    case ChanceVerdict::cannot_tell: return "cannot tell";
  }
  return "?";
}

std::string target_verdict_text(const GoalSummary& s, double target) {
  if (!(target > 0)) return "";
  const ChanceVerdict v = judge_chance(s, target);
  std::string text = chance_verdict_name(v);
  if (v == ChanceVerdict::cannot_tell) {
    const uint64_t need = replications_to_decide(s, target);
    if (need != UINT64_MAX) text += " (about " + std::to_string(need) + " replications)";
  }
  return text;
}

uint64_t replications_to_decide(const GoalSummary& s, double level) {
  if (s.n > 0 && judge_chance(s, level) != ChanceVerdict::cannot_tell) return 0;
  if (s.n == 0) return UINT64_MAX;
  const double p = s.probability;
  const double z = normal_quantile(1 - (1 - kGoalConfidence) / 2);
  double n = 0;
  if (p == level) return UINT64_MAX;
  if (p == 1) {
    n = std::log((1 - kGoalConfidence) / 2) / std::log(level);  // level^n = alpha/2
  } else if (p == 0) {
    n = std::log((1 - kGoalConfidence) / 2) / std::log1p(-level);
  } else {
    // The interval's half-width is about z sqrt(p (1 - p) / n); the exact one is a little wider.
    n = 1.1 * z * z * p * (1 - p) / ((p - level) * (p - level));
  }
  if (!(n < 1e18)) return UINT64_MAX;
  const uint64_t need = static_cast<uint64_t>(std::ceil(n));
  return need > s.n ? need : s.n + 1;
}

}  // namespace gpucap
