#include "gpucap/result_warnings.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <yaml-cpp/yaml.h>

#include "gpucap/detail/text.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/quantities.hpp"

namespace gpucap {
namespace {

/// What the warnings read from the run's scenario text (parsed once).
struct ScenarioFacts {
  double warmup_s = 0;      ///< the scenario's warm-up (0 when its text does not say)
  bool starts_empty = true;  ///< no workload replays a trace or has a state at t = 0 (those
                             ///< ask about a given period, whose "transient" is the data)
};

ScenarioFacts scenario_facts(const RunResults& r) {
  ScenarioFacts f;
  YAML::Node root;
  try {
    root = YAML::Load(r.scenario_text);
  } catch (const std::exception&) {
    return f;
  }
  if (!root.IsMap()) return f;
  try {
    if (root["warmup"]) f.warmup_s = parse_duration_s(root["warmup"].as<std::string>());
  } catch (const std::exception&) {
  }
  try {
    if (root["workloads"] && root["workloads"].IsSequence())
      for (const YAML::Node& w : root["workloads"]) {
        if (!w.IsMap()) continue;
        const YAML::Node a = w["arrivals"];
        if (w["initial_state"] || (a && a.IsMap() && a["process"] && a["process"].IsScalar() &&
                                   a["process"].Scalar() == "trace"))
          f.starts_empty = false;
      }
  } catch (const std::exception&) {
  }
  return f;
}

/// The warm-up of `point`, seconds: its sweep value when the sweep varies it, else the
/// scenario's.
double warmup_of(const RunResults& r, const ScenarioFacts& facts, std::size_t point) {
  try {
    for (const SweepParameter& p : r.sweep)
      if (p.path == "warmup" && point < p.values.size()) return parse_duration_s(p.values[point]);
  } catch (const std::exception&) {
    return 0;
  }
  return facts.warmup_s;
}

}  // namespace

namespace {

/// Bins per batch of MSER-5.
constexpr std::size_t kBatch = 5;

/// The bin width and count of the series batch_series reads: the run's time series, else the
/// settling probe's.
double series_step_s(const RunResults& r) {
  return r.timeseries_bins > 0 ? r.timeseries_step_s : r.settling.step_s;
}
std::size_t series_bins(const RunResults& r) {
  return r.timeseries_bins > 0 ? r.timeseries_bins : r.settling.bins;
}

/// What a transient check watches: the GPUs in use, or the jobs waiting (the queue, which
/// settles later: at high load the GPUs in use reach their level long before the waits do).
enum class Watched { gpus_in_use, jobs_waiting };

/// The settling probe's jobs-waiting series in batches of kBatch bins; empty without one.
std::vector<double> batch_waiting(const RunResults& r, std::size_t point) {
  if (r.timeseries_bins > 0 || r.settling.bins == 0 || point >= r.points ||
      r.settling.mean_waiting.size() < r.points * r.settling.bins)
    return {};
  const std::size_t m = r.settling.bins / kBatch;
  if (m < 10) return {};
  std::vector<double> y(m, 0.0);
  const double* series = r.settling.mean_waiting.data() + point * r.settling.bins;
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t b = 0; b < kBatch; ++b) y[j] += series[j * kBatch + b];
  return y;
}

/// The mean series of GPUs in use in batches of kBatch bins (all pools, summed over the kept
/// replications of `point`, or the settling probe's mean when the run has no time series);
/// empty without a series or with fewer than 10 batches. Jobs waiting: batch_waiting.
std::vector<double> batch_series(const RunResults& r, std::size_t point,
                                 Watched watched = Watched::gpus_in_use) {
  if (watched == Watched::jobs_waiting) return batch_waiting(r, point);
  const std::size_t bins = r.timeseries_bins, pools = r.pool_count(), rows = r.rows_per_point();
  if (bins == 0 && r.settling.bins > 0 && point < r.points &&
      r.settling.mean_in_use.size() >= r.points * r.settling.bins) {
    // No time series of the run's own: the settling probe's mean series.
    const std::size_t m = r.settling.bins / kBatch;
    if (m < 10) return {};
    std::vector<double> y(m, 0.0);
    const double* series = r.settling.mean_in_use.data() + point * r.settling.bins;
    for (std::size_t j = 0; j < m; ++j)
      for (std::size_t b = 0; b < kBatch; ++b) y[j] += series[j * kBatch + b];
    return y;
  }
  if (bins == 0 || rows == 0 || point >= r.points ||
      r.timeseries.size() < r.points * rows * pools * bins)
    return {};
  const std::size_t m = bins / kBatch;  // whole batches (a last partial one is left out)
  if (m < 10) return {};
  std::vector<double> y(m, 0.0);
  for (std::size_t k = 0; k < rows; ++k)
    for (std::size_t p = 0; p < pools; ++p) {
      const double* series = r.timeseries.data() + ((point * rows + k) * pools + p) * bins;
      for (std::size_t j = 0; j < m; ++j)
        for (std::size_t b = 0; b < kBatch; ++b) y[j] += series[j * kBatch + b];
    }
  return y;
}

/// MSER's truncation of `y`, in batches.
std::size_t mser_batches(const std::vector<double>& y) {
  const std::size_t m = y.size();
  std::vector<double> value(m / 2 + 1);
  double level = 0;
  for (double v : y) level += v;
  level /= static_cast<double>(m);
  for (std::size_t d = 0; d <= m / 2; ++d) {
    double mean = 0;
    for (std::size_t j = d; j < m; ++j) mean += y[j];
    mean /= static_cast<double>(m - d);
    double ss = 0;
    for (std::size_t j = d; j < m; ++j) ss += (y[j] - mean) * (y[j] - mean);
    value[d] = ss / static_cast<double>((m - d) * (m - d));
  }
  // The first d at the minimum, values within rounding of it (1e-12 of the level squared) being
  // ties: a flat series settles at once.
  const double least = *std::min_element(value.begin(), value.end());
  std::size_t best = 0;
  while (value[best] > least + 1e-12 * level * level) ++best;
  return best;
}

/// Whether batches [from, d) differ from batches [d, m) by more than 5 standard errors (the
/// batch means' spread after d; adjacent batches are correlated and d is chosen where they
/// differ most, hence 5, not 2) and by more than 2% of the level: MSER also truncates noise,
/// which this leaves out; and whether that stretch moves the mean of batches [from, m) by more
/// than 1% of the level (a short, small transient biases no statistic that matters).
bool differs(const std::vector<double>& y, std::size_t from, std::size_t d) {
  const std::size_t m = y.size();
  if (from >= d || m - d < 2) return false;
  double before = 0, after = 0;
  for (std::size_t j = from; j < d; ++j) before += y[j];
  for (std::size_t j = d; j < m; ++j) after += y[j];
  before /= static_cast<double>(d - from);
  after /= static_cast<double>(m - d);
  double ss = 0;
  for (std::size_t j = d; j < m; ++j) ss += (y[j] - after) * (y[j] - after);
  const double sd = std::sqrt(ss / static_cast<double>(m - d - 1));
  const double se =
      sd * std::sqrt(1.0 / static_cast<double>(d - from) + 1.0 / static_cast<double>(m - d));
  // And it matters: the stretch moves the mean of the window after the warm-up by over 1%.
  const double shift =
      std::fabs(before - after) * static_cast<double>(d - from) / static_cast<double>(m - from);
  return std::fabs(before - after) > std::max(5 * se, 0.02 * std::fabs(after)) &&
         shift > 0.01 * std::fabs(after);
}

}  // namespace

double transient_end_s(const RunResults& r, std::size_t point) {
  const std::vector<double> y = batch_series(r, point);
  if (y.empty()) return -1;
  return static_cast<double>(mser_batches(y) * kBatch) * series_step_s(r);
}

bool replications_identical(const RunResults& r, std::size_t point) {
  if (r.replications < 2 || point >= r.points) return false;
  const std::size_t rows = r.rows_per_point();
  if (rows >= 2 && rows == r.replications) {
    const double* first = r.scalars.data() + point * rows * kScalarMetricCount;
    for (std::size_t k = 1; k < rows; ++k)  // bit for bit: NaN equals NaN, 0 differs from -0
      if (std::memcmp(first, first + k * kScalarMetricCount, sizeof(double) * kScalarMetricCount))
        return false;
    return true;
  }
  for (uint32_t m = 0; m < kScalarMetricCount; ++m) {
    const MetricSummary& s = r.summary_of(point, static_cast<ScalarMetric>(m));
    if (s.n >= 2 && !(s.std <= 1e-12 * std::fabs(s.mean))) return false;
  }
  return true;
}

namespace {

/// Where the series `watched` of `r` settles past its point's warm-up by a stretch that
/// matters (over a batch and 2% of the window, and differing from the rest: `differs`), at the
/// point where it outlasts its warm-up the most: its end and that warm-up (s), or end < 0.
struct Unsettled {
  double end_s = -1, warmup_s = 0;
  std::size_t point = 0;
};
Unsettled unsettled(const RunResults& r, const ScenarioFacts& facts, Watched watched) {
  Unsettled u;
  const double batch_s = 5 * series_step_s(r);
  const double horizon = series_step_s(r) * static_cast<double>(series_bins(r));
  for (std::size_t p = 0; p < r.points; ++p) {
    const std::vector<double> y = batch_series(r, p, watched);
    if (y.empty()) continue;
    const std::size_t d = mser_batches(y);
    const double point_warmup = warmup_of(r, facts, p);
    // The batches after the warm-up and before the truncation must differ from the rest.
    const std::size_t from = static_cast<std::size_t>(
        std::ceil(point_warmup / (static_cast<double>(kBatch) * series_step_s(r))));
    const double end = static_cast<double>(d * kBatch) * series_step_s(r);
    // It matters when the unsettled stretch after the warm-up is over 2% of the window.
    const bool matters = end > point_warmup + batch_s &&
                         end - point_warmup > 0.02 * (horizon - point_warmup);
    if (matters && differs(y, from, d) && end - point_warmup > u.end_s - u.warmup_s)
      u.end_s = end, u.warmup_s = point_warmup, u.point = p;
  }
  return u;
}

}  // namespace

std::vector<std::string> result_warnings(const RunResults& r) {
  std::vector<std::size_t> identical;
  for (std::size_t p = 0; p < r.points; ++p)
    if (replications_identical(r, p)) identical.push_back(p);
  std::vector<std::string> out;
  // A start-up transient past the warm-up, of the GPUs in use or of the jobs waiting (the
  // queue, and with it the waits, settles later), at the point that outlasts its warm-up most.
  const ScenarioFacts facts = scenario_facts(r);
  const double batch_s = 5 * series_step_s(r);
  const double horizon = series_step_s(r) * static_cast<double>(series_bins(r));
  bool probe_saw_queue = false;
  for (const Watched watched : {Watched::gpus_in_use, Watched::jobs_waiting}) {
    const Unsettled u = unsettled(r, facts, watched);
    if (!(u.end_s >= 0)) continue;
    const double latest = u.end_s, warmup = u.warmup_s;
    const bool queue = watched == Watched::jobs_waiting;
    probe_saw_queue = probe_saw_queue || queue;
    const std::string what = queue ? "the jobs waiting (and so the waits)" : "the GPUs in use";
    const std::string how =
        r.timeseries_bins > 0
            ? std::string("MSER-5 on the time series, averaged over replications")
            : "MSER-5 on the " + std::string(queue ? "jobs waiting" : "GPUs in use") +
                  " of the first " + std::to_string(r.settling.replications) +
                  " replications, simulated again";
    const bool at_cap = latest >= horizon / 2 - batch_s;
    const std::string where =
        r.points > 1 ? " (point " + std::to_string(u.point) + ")" : std::string();
    if (at_cap)
      out.push_back(what + " do not settle within the first half of the horizon" + where + " (" +
                    how +
                    "): demand drifts "
                    "over the run (a trend), or a start-up transient outlasts half of it; means "
                    "and percentiles are of a changing system, not of a steady state. For a "
                    "steady state, lengthen the horizon and the warm-up (now " +
                    (warmup > 0 ? text::format_duration(warmup) : std::string("none")) + ")");
    else
      out.push_back(
          what + " settle only after about " + text::format_duration(latest) + where + ", past " +
          (warmup > 0 ? "the warm-up of " + text::format_duration(warmup)
                      : "the start (no warm-up)") +
          " (" + how +
          "): the statistics include the "
          "start-up transient of a run that starts empty, which biases means and percentiles; "
          "set warmup to at least " +
          text::format_duration(latest) +
          " and keep the horizon several times longer than that, or start from today's state "
          "(initial_state)");
  }
  // The queue still growing over the window, from every replication of the run (the probe's
  // few replications can miss it at high load): jobs waiting over the window's second half
  // against its first, a paired difference per replication. A warning when it is over 4
  // standard errors above 0 and over 5% of the mean queue, and the probe said nothing of it.
  if (!probe_saw_queue && facts.starts_empty) {
    double worst_z = 0;
    std::size_t worst = r.points;
    for (std::size_t p = 0; p < r.points; ++p) {
      const MetricSummary& d = r.summary_of(p, kQueueLengthDrift);
      const MetricSummary& q = r.summary_of(p, kQueueLengthMean);
      if (d.n < 2 || !(d.std > 0) || !(d.mean > 0.05 * q.mean) || !(q.mean > 1e-3)) continue;
      const double z = d.mean / (d.std / std::sqrt(static_cast<double>(d.n)));
      if (z > 4 && z > worst_z) worst_z = z, worst = p;
    }
    if (worst < r.points) {
      const MetricSummary& d = r.summary_of(worst, kQueueLengthDrift);
      const double mean = r.summary_of(worst, kQueueLengthMean).mean;
      const double warmup = warmup_of(r, facts, worst);
      const std::string where =
          r.points > 1 ? " (point " + std::to_string(worst) + ")" : std::string();
      out.push_back(
          "the queue still grows over the window" + where + ": jobs waiting average " +
          text::format_number(mean + d.mean / 2) + " in its second half against " +
          text::format_number(mean - d.mean / 2) + " in its first (queue_length_drift " +
          text::format_number(d.mean) + " jobs, " + text::format_number(worst_z) +
          " standard errors above 0): a start-up transient outlasts the " +
          (warmup > 0 ? "warm-up of " + text::format_duration(warmup)
                      : std::string("start (no warm-up)")) +
          ", or the load exceeds the capacity, so waits and their percentiles are biased low; "
          "lengthen the warm-up and the horizon, or start from today's state (initial_state)");
    }
  }
  if (identical.empty()) return out;
  std::string which = r.points == 1 ? "all " + std::to_string(r.replications) + " replications"
                                    : "at " + std::to_string(identical.size()) + " of " +
                                          std::to_string(r.points) + " points, all replications";
  out.push_back(which +
                " gave the same values: no random draw of the scenario changed them (a trace "
                "replayed as it is, fixed times), so the intervals have zero width and say "
                "nothing about other futures. To sample them, resample the trace "
                "(workloads[].arrivals.resample: a block bootstrap) or draw times from "
                "distributions; 'gpucap explain workloads.arrivals.resample' says how");
  return out;
}

}  // namespace gpucap
