// gpucap: procedure KN (Kim & Nelson 2001) for selecting the best point; see select_best.hpp.
#include "gpucap/select_best.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "gpucap/scenario.hpp"
#include "gpucap/summary.hpp"

namespace gpucap {

const char* selection_status_name(SelectionStatus status) {
  switch (status) {
    case SelectionStatus::best:
      return "best";
    case SelectionStatus::eliminated:
      return "eliminated";
    case SelectionStatus::tied:
      return "tied";
    case SelectionStatus::at_cap:
      return "at_cap";
  }
  return "?";
}

std::string selection_status_text(const SelectionResult& result, std::size_t i) {
  const SelectionPoint& p = result.points.at(i);
  switch (p.status) {
    case SelectionStatus::best:
      return result.guaranteed ? "best" : "best mean at the cap (no guarantee)";
    case SelectionStatus::eliminated:
      return "eliminated at replication " + std::to_string(p.replications) + " by point " +
             std::to_string(p.eliminated_by);
    case SelectionStatus::tied:
      return "tied with point " + std::to_string(p.eliminated_by) + " (identical in all " +
             std::to_string(p.replications) + " replications)";
    case SelectionStatus::at_cap:
      return "in the race at the cap";
  }
  return "?";
}

void check_selection_options(std::size_t k, const SelectionOptions& o) {
  if (k < 2)
    throw std::invalid_argument("selecting the best needs at least 2 points, got " +
                                std::to_string(k) + "; give a grid with several values");
  if (k > kMaxSelectionPoints)
    throw std::invalid_argument("selecting the best takes at most " +
                                std::to_string(kMaxSelectionPoints) + " points, got " +
                                std::to_string(k) + "; narrow the grid");
  if (!(o.delta > 0) || !std::isfinite(o.delta))
    throw std::invalid_argument(
        "delta (the indifference zone: the smallest difference in the objective worth "
        "detecting, in its unit) must be a finite number above 0, got " +
        std::to_string(o.delta));
  const double alpha_max = 1.0 - 1.0 / static_cast<double>(k);
  if (!(o.alpha > 0) || !(o.alpha < alpha_max))
    throw std::invalid_argument(
        "alpha (1 - the probability of correct selection) must be above 0 and below 1 - 1/k = " +
        std::to_string(alpha_max) + " for " + std::to_string(k) + " points, got " +
        std::to_string(o.alpha));
  if (o.initial < 2)
    throw std::invalid_argument(
        "initial (the first-stage replications of every point) must be at least 2 (it "
        "estimates variances), got " +
        std::to_string(o.initial));
  if (o.max_replications < o.initial || o.max_replications > kMaxReplications)
    throw std::invalid_argument(
        "max_replications must be from initial (" + std::to_string(o.initial) + ") to " +
        std::to_string(kMaxReplications) + ", got " + std::to_string(o.max_replications));
  if (o.batch_max < 1) throw std::invalid_argument("batch_max must be at least 1");
}

namespace {

/// Running mean and sum of squared deviations (Welford) of one point's used values.
struct Running {
  uint64_t n = 0;
  double mean = 0, m2 = 0;
  void add(double x) {
    ++n;
    const double d = x - mean;
    mean += d / static_cast<double>(n);
    m2 += d * (x - mean);
  }
};

/// The state of the procedure between replications.
class Procedure {
 public:
  Procedure(std::size_t k, const SelectionOptions& o)
      : k_(k),
        o_(o),
        sign_(o.maximize ? 1.0 : -1.0),
        sums_(k, 0.0),
        stats_(k),
        s2_(k * k, 0.0),
        same_(k * k, 1),
        result_() {
    result_.points.resize(k);
    const double n0 = static_cast<double>(o.initial);
    result_.eta =
        0.5 * (std::pow(2.0 * o.alpha / static_cast<double>(k - 1), -2.0 / (n0 - 1.0)) - 1.0);
    result_.h2 = 2.0 * result_.eta * (n0 - 1.0);
    for (std::size_t i = 0; i < k; ++i) survivors_.push_back(i);
  }

  /// Stage 0: values[i * n0 + t] of every point; sets the variances and screens at r = n0.
  void first_stage(const std::vector<double>& values) {
    const uint64_t n0 = o_.initial;
    for (std::size_t i = 0; i < k_; ++i) result_.points[i].simulated = n0;
    for (uint64_t t = 0; t < n0; ++t) {
      std::vector<double> x(k_);
      for (std::size_t i = 0; i < k_; ++i) x[i] = values[i * n0 + t];
      add(x, t);
    }
    // S2_il: sample variance of the paired differences y_i - y_l over stage 0 (two passes).
    double largest = 0;
    for (std::size_t i = 0; i < k_; ++i)
      for (std::size_t l = i + 1; l < k_; ++l) {
        const double mean_d = (sums_[i] - sums_[l]) / static_cast<double>(n0);
        double ss = 0;
        for (uint64_t t = 0; t < n0; ++t) {
          const double d = sign_ * (values[i * n0 + t] - values[l * n0 + t]) - mean_d;
          ss += d * d;
        }
        const double s2 = same_[i * k_ + l] ? 0.0 : ss / static_cast<double>(n0 - 1);
        s2_[i * k_ + l] = s2_[l * k_ + i] = s2;
        largest = std::max(largest, s2);
      }
    const double end = std::ceil(result_.h2 * largest / (o_.delta * o_.delta));
    result_.bound = end >= static_cast<double>(kMaxReplications)
                        ? kMaxReplications
                        : std::max<uint64_t>(n0, static_cast<uint64_t>(end));
    r_ = n0;
    screen();
  }

  bool running() const { return survivors_.size() > 1 && !tied_ && r_ < o_.max_replications; }
  uint64_t r() const { return r_; }
  const std::vector<std::size_t>& survivors() const { return survivors_; }

  /// The replication by which the survivors' race ends at the latest (ties aside).
  uint64_t survivors_bound() const {
    double largest = 0;
    for (std::size_t a = 0; a < survivors_.size(); ++a)
      for (std::size_t b = a + 1; b < survivors_.size(); ++b)
        largest = std::max(largest, s2_[survivors_[a] * k_ + survivors_[b]]);
    const double end = std::ceil(result_.h2 * largest / (o_.delta * o_.delta));
    return end >= static_cast<double>(o_.max_replications) ? o_.max_replications
                                                           : static_cast<uint64_t>(end);
  }

  /// One batch: values[j * count + t] of batch_points[j] (the survivors when it was asked for)
  /// at replication r + t. Uses them one replication at a time while the race goes on.
  void batch(const std::vector<std::size_t>& batch_points, const std::vector<double>& values,
             uint64_t count) {
    std::vector<std::size_t> slot(k_, 0);
    for (std::size_t j = 0; j < batch_points.size(); ++j) {
      slot[batch_points[j]] = j;
      result_.points[batch_points[j]].simulated += count;
    }
    for (uint64_t t = 0; t < count && running(); ++t) {
      std::vector<double> x(k_, 0.0);
      for (std::size_t i : survivors_) x[i] = values[slot[i] * count + t];
      add(x, r_);
      ++r_;
      screen();
    }
  }

  SelectionResult finish() {
    SelectionResult& s = result_;
    s.replications = r_;
    s.guaranteed = survivors_.size() == 1 || tied_;
    // The best survivor: the largest mean of y (the lowest index among equals).
    std::size_t best = survivors_.front();
    for (std::size_t i : survivors_)
      if (sums_[i] > sums_[best]) best = i;
    s.best = best;
    for (std::size_t i : survivors_) {
      SelectionPoint& p = s.points[i];
      p.replications = r_;
      p.status = i == best ? SelectionStatus::best
                 : tied_   ? SelectionStatus::tied
                           : SelectionStatus::at_cap;
      if (tied_ && i != best) p.eliminated_by = best;
    }
    for (std::size_t i = 0; i < k_; ++i) {
      SelectionPoint& p = s.points[i];
      const Running& st = stats_[i];
      p.mean = st.mean;
      p.std = st.n >= 2 ? std::sqrt(st.m2 / static_cast<double>(st.n - 1))
                        : std::numeric_limits<double>::quiet_NaN();
      const double half = st.n >= 2 ? student_t_quantile(0.95, st.n - 1) * p.std /
                                          std::sqrt(static_cast<double>(st.n))
                                    : std::numeric_limits<double>::quiet_NaN();
      p.ci95_low = p.mean - half;
      p.ci95_high = p.mean + half;
      s.used += p.replications;
      s.simulated += p.simulated;
    }
    return s;
  }

 private:
  /// Adds replication `rep`'s values x[i] (objective units) of every survivor.
  void add(const std::vector<double>& x, uint64_t rep) {
    for (std::size_t i : survivors_) {
      if (!std::isfinite(x[i]))
        throw std::domain_error("point " + std::to_string(i) + ": the objective is " +
                                std::to_string(x[i]) + " in replication " + std::to_string(rep) +
                                "; selecting the best needs a finite value in every replication");
      sums_[i] += sign_ * x[i];
      stats_[i].add(x[i]);
    }
    for (std::size_t a = 0; a < survivors_.size(); ++a)
      for (std::size_t b = a + 1; b < survivors_.size(); ++b) {
        const std::size_t i = survivors_[a], l = survivors_[b];
        if (same_[i * k_ + l] && x[i] != x[l]) same_[i * k_ + l] = same_[l * k_ + i] = 0;
      }
  }

  /// KN's screening at r_ over the survivors I: i leaves when, for some l in I,
  /// sum_l - sum_i > r W_il(r) = max(0, h2 S2_il / (2 delta) - delta r / 2); all at once.
  void screen() {
    const double r = static_cast<double>(r_);
    std::vector<std::size_t> kept;
    for (std::size_t i : survivors_) {
      double worst = 0;
      std::size_t by = k_;
      for (std::size_t l : survivors_) {
        if (l == i) continue;
        const double w =
            std::max(0.0, result_.h2 * s2_[i * k_ + l] / (2.0 * o_.delta) - o_.delta * r / 2.0);
        const double margin = (sums_[l] - sums_[i]) - w;
        if (margin > worst) {
          worst = margin;
          by = l;
        }
      }
      if (by == k_) {
        kept.push_back(i);
        continue;
      }
      SelectionPoint& p = result_.points[i];
      p.status = SelectionStatus::eliminated;
      p.replications = r_;
      p.eliminated_by = by;
    }
    survivors_ = kept;
    // Survivors identical in every replication so far cannot be told apart by more of them.
    bool all_same = survivors_.size() > 1;
    for (std::size_t a = 0; all_same && a < survivors_.size(); ++a)
      for (std::size_t b = a + 1; all_same && b < survivors_.size(); ++b)
        all_same = same_[survivors_[a] * k_ + survivors_[b]] != 0;
    tied_ = all_same;
  }

  std::size_t k_;
  SelectionOptions o_;
  double sign_;                         ///< +1 maximizing, -1 minimizing: y = sign x
  std::vector<double> sums_;            ///< sum of y over the used replications, per point
  std::vector<Running> stats_;          ///< of x, per point
  std::vector<double> s2_;              ///< S2_il, k x k
  std::vector<char> same_;              ///< x_i == x_l in every replication so far, k x k
  std::vector<std::size_t> survivors_;  ///< ascending
  bool tied_ = false;
  uint64_t r_ = 0;
  SelectionResult result_;
};

std::vector<double> sample_checked(const SelectionSampler& sample,
                                   const std::vector<std::size_t>& points, uint64_t first,
                                   uint64_t count) {
  std::vector<double> values = sample(points, first, count);
  if (values.size() != points.size() * count)
    throw std::logic_error("select_best: the sampler returned " + std::to_string(values.size()) +
                           " values for " + std::to_string(points.size()) + " points x " +
                           std::to_string(count) + " replications");
  return values;
}

}  // namespace

SelectionResult select_best(std::size_t k, const SelectionSampler& sample,
                            const SelectionOptions& options) {
  check_selection_options(k, options);
  Procedure procedure(k, options);
  std::vector<std::size_t> all(k);
  for (std::size_t i = 0; i < k; ++i) all[i] = i;
  procedure.first_stage(sample_checked(sample, all, 0, options.initial));
  uint64_t batch =
      options.batch_first > 0 ? options.batch_first : std::max<uint64_t>(1, options.initial / 2);
  batch = std::min(batch, options.batch_max);
  while (procedure.running()) {
    const uint64_t r = procedure.r();
    uint64_t count = std::min(batch, options.max_replications - r);
    // Past the survivors' bound the race ends at the next replication but for exact ties.
    const uint64_t end = procedure.survivors_bound();
    count = std::max<uint64_t>(1, std::min(count, end > r ? end - r : 1));
    const std::vector<std::size_t> points = procedure.survivors();
    procedure.batch(points, sample_checked(sample, points, r, count), count);
    batch = std::min(batch * 2, options.batch_max);
  }
  return procedure.finish();
}

}  // namespace gpucap
