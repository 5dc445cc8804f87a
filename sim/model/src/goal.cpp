// gpucap: parsing and evaluating goal conditions (see goal.hpp).
#include "gpucap/goal.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "gpucap/detail/text.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/quantities.hpp"

namespace gpucap {
namespace {

const char* const kGrammar =
    "write METRIC OP VALUE, e.g. \"cost <= 500000\", \"completion_p99 <= 25d\", "
    "\"jobs_completed >= jobs_arrived\" or \"pools.spot.preemptions < 0.1 * jobs_started\"; OP is "
    "<=, <, >= or >";

std::string scalar_names() {
  std::vector<std::string> names;
  for (uint32_t m = 0; m < kScalarMetricCount; ++m) names.push_back(kScalarMetricInfo[m].name);
  return text::join(names, ", ");
}

std::string pool_metric_names() {
  std::vector<std::string> names;
  for (uint32_t m = 0; m < kPoolMetricCount; ++m) names.push_back(kPoolMetricInfo[m].name);
  return text::join(names, ", ");
}

/// A metric reference: a scalar metric name or pools.POOL.METRIC (pool names may hold dots: the
/// longest declared name that fits is taken).
MetricRef parse_metric(const std::string& word, const std::vector<std::string>& pools,
                       const std::string& condition) {
  MetricRef ref;
  const std::string prefix = "pools.";
  if (word.rfind(prefix, 0) == 0) {
    const std::string rest = word.substr(prefix.size());
    std::size_t best = std::string::npos;
    for (std::size_t p = 0; p < pools.size(); ++p)
      if (rest.size() > pools[p].size() + 1 && rest.compare(0, pools[p].size(), pools[p]) == 0 &&
          rest[pools[p].size()] == '.' && (best == std::string::npos || pools[p].size() > pools[best].size()))
        best = p;
    if (best == std::string::npos)
      throw std::invalid_argument("\"" + text::excerpt(condition) + "\": '" + text::excerpt(word) +
                                  "' names no declared pool; pools: " + text::join(pools, ", ") +
                                  " (write pools.POOL.METRIC)");
    const std::string metric = rest.substr(pools[best].size() + 1);
    for (uint32_t m = 0; m < kPoolMetricCount; ++m)
      if (metric == kPoolMetricInfo[m].name) {
        ref.is_pool = true;
        ref.metric = m;
        ref.pool = static_cast<uint32_t>(best);
        return ref;
      }
    throw std::invalid_argument("\"" + text::excerpt(condition) + "\": unknown pool metric '" +
                                text::excerpt(metric) + "'; valid: " + pool_metric_names());
  }
  std::vector<std::string> names;
  for (uint32_t m = 0; m < kScalarMetricCount; ++m) {
    if (word == kScalarMetricInfo[m].name) {
      ref.metric = m;
      return ref;
    }
    names.push_back(kScalarMetricInfo[m].name);
  }
  std::string message = "\"" + text::excerpt(condition) + "\": unknown metric '" +
                        text::excerpt(word) + "'";
  const std::string suggestion = text::closest(word, names);
  if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
  throw std::invalid_argument(message + "; valid: " + scalar_names() +
                              ", or pools.POOL.METRIC with METRIC one of " + pool_metric_names());
}

const MetricInfo& info_of(const MetricRef& ref) {
  return ref.is_pool ? kPoolMetricInfo[ref.metric] : kScalarMetricInfo[ref.metric];
}

/// Seconds and USD compare only with themselves; counts and fractions with one another (jobs
/// with runs, a share with a count: the user's factor says how).
int unit_class(const char* unit) {
  if (std::strcmp(unit, "s") == 0) return 1;
  if (std::strcmp(unit, "USD") == 0) return 2;
  return 0;
}

bool is_metric_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

bool valid_goal_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || !std::isalpha(static_cast<unsigned char>(name[0])))
    return false;
  for (char ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') return false;
  return true;
}

GoalCondition parse_goal_condition(const std::string& text_in,
                                   const std::vector<std::string>& pool_names) {
  GoalCondition c;
  c.text = text::trim(text_in);
  const std::string& t = c.text;
  if (t.empty()) throw std::invalid_argument(std::string("an empty condition; ") + kGrammar);
  // The operator: the first '<' or '>' (metric names and numbers hold neither).
  const std::size_t at = t.find_first_of("<>");
  if (at == std::string::npos)
    throw std::invalid_argument("\"" + text::excerpt(t) + "\" has no comparison; " + kGrammar);
  const bool or_equal = at + 1 < t.size() && t[at + 1] == '=';
  c.op = t[at] == '<' ? (or_equal ? GoalOp::le : GoalOp::lt) : (or_equal ? GoalOp::ge : GoalOp::gt);
  const std::string lhs = text::trim(t.substr(0, at));
  const std::string rhs = text::trim(t.substr(at + (or_equal ? 2 : 1)));
  if (!lhs.empty() && (lhs.back() == '=' || lhs.back() == '!'))
    throw std::invalid_argument("\"" + text::excerpt(t) + "\": write <= or >= (not =< or =>); " +
                                kGrammar);
  if (rhs.find_first_of("<>=") != std::string::npos)
    throw std::invalid_argument("\"" + text::excerpt(t) + "\" has more than one comparison; " +
                                kGrammar);
  if (lhs.empty() || rhs.empty())
    throw std::invalid_argument("\"" + text::excerpt(t) + "\" needs a metric on the left and a "
                                "value on the right; " + std::string(kGrammar));
  if (!is_metric_start(lhs[0]))
    throw std::invalid_argument("\"" + text::excerpt(t) + "\": the left side must be a metric; " +
                                kGrammar);
  c.lhs = parse_metric(lhs, pool_names, t);
  const bool in_seconds = std::strcmp(info_of(c.lhs).unit, "s") == 0;

  // The right side: [NUMBER *] METRIC, or NUMBER [UNIT].
  std::string metric_word = rhs;
  const std::size_t star = rhs.find('*');
  if (star != std::string::npos) {
    const std::string number = text::trim(rhs.substr(0, star));
    metric_word = text::trim(rhs.substr(star + 1));
    char* end = nullptr;
    c.factor = std::strtod(number.c_str(), &end);
    if (number.empty() || *end != '\0' || !std::isfinite(c.factor))
      throw std::invalid_argument("\"" + text::excerpt(t) + "\": '" + text::excerpt(number) +
                                  "' is not a number (write NUMBER * METRIC)");
    if (metric_word.empty() || !is_metric_start(metric_word[0]))
      throw std::invalid_argument("\"" + text::excerpt(t) +
                                  "\": a factor must multiply a metric (write NUMBER * METRIC)");
  }
  if (is_metric_start(metric_word[0])) {
    c.has_rhs_metric = true;
    c.rhs_metric = parse_metric(metric_word, pool_names, t);
    const char* a = info_of(c.lhs).unit;
    const char* b = info_of(c.rhs_metric).unit;
    if (unit_class(a) != unit_class(b))
      throw std::invalid_argument("\"" + text::excerpt(t) + "\" compares " + a + " with " + b +
                                  "; both sides must have the same unit");
    return c;
  }
  if (in_seconds) {
    c.constant = parse_duration_s(rhs);  // throws with the units it knows
  } else {
    char* end = nullptr;
    c.constant = std::strtod(rhs.c_str(), &end);
    if (*end != '\0')
      throw std::invalid_argument(
          "\"" + text::excerpt(t) + "\": '" + text::excerpt(rhs) + "' is not a number (" +
          info_of(c.lhs).name + " is in " + info_of(c.lhs).unit +
          "; only metrics in s take a time unit)");
  }
  if (!std::isfinite(c.constant))
    throw std::invalid_argument("\"" + text::excerpt(t) + "\": the bound must be finite");
  return c;
}

bool goal_met_in(const GoalSpec& goal, const double* scalars, const double* pool_values) {
  for (const GoalCondition& c : goal.conditions)
    if (!condition_holds(c, scalars, pool_values)) return false;
  return true;
}

std::string GoalSpec::definition() const {
  std::vector<std::string> parts;
  for (const GoalCondition& c : conditions) parts.push_back(c.text);
  return text::join(parts, " and ");
}

bool same_goals(const std::vector<GoalSpec>& a, const std::vector<GoalSpec>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t g = 0; g < a.size(); ++g)
    if (a[g].name != b[g].name || a[g].definition() != b[g].definition() ||
        a[g].target != b[g].target)
      return false;
  return true;
}

}  // namespace gpucap
