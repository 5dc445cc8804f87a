// gpucap: joining results along sweep points or replications (gpucap/concat.hpp).
#include "gpucap/concat.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpucap {
namespace {

[[noreturn]] void refuse(std::size_t part, const std::string& what) {
  throw std::invalid_argument("concat: part " + std::to_string(part) +
                              " cannot be joined: " + what);
}

/// Per-point row counts of each array: the elements one (point, replication) takes.
struct RowWidths {
  std::size_t scalars, pools, series;
};

RowWidths widths(const RunResults& r) {
  return {kScalarMetricCount, r.pool_count() * kPoolMetricCount,
          r.pool_count() * r.timeseries_bins};
}

/// Appends replications [0, r.replications) of point `p` of `r` to the arrays of `out`.
void append_point_rows(const RunResults& r, std::size_t p, RunResults& out) {
  const RowWidths w = widths(r);
  const std::size_t reps = r.replications;
  const auto copy = [&](const std::vector<double>& from, std::size_t width,
                        std::vector<double>& to) {
    const auto first = from.begin() + static_cast<std::ptrdiff_t>(p * reps * width);
    to.insert(to.end(), first, first + static_cast<std::ptrdiff_t>(reps * width));
  };
  copy(r.scalars, w.scalars, out.scalars);
  copy(r.pool_values, w.pools, out.pool_values);
  copy(r.timeseries, w.series, out.timeseries);
}

/// Whether point `a` of `x` and point `b` of `y` hold the same bits in every row.
bool same_rows(const RunResults& x, std::size_t a, const RunResults& y, std::size_t b) {
  const RowWidths w = widths(x);
  const std::size_t reps = x.replications;
  const auto same = [&](const std::vector<double>& u, const std::vector<double>& v,
                        std::size_t width) {
    const std::size_t n = reps * width;
    return n == 0 || std::memcmp(u.data() + a * n, v.data() + b * n, n * sizeof(double)) == 0;
  };
  return same(x.scalars, y.scalars, w.scalars) && same(x.pool_values, y.pool_values, w.pools) &&
         same(x.timeseries, y.timeseries, w.series);
}

/// The values of `r`'s parameters at point `p`, in the order of `paths`.
std::vector<std::string> point_values(const RunResults& r, std::size_t p,
                                      const std::vector<std::string>& paths) {
  std::vector<std::string> values;
  for (const std::string& path : paths)
    for (const SweepParameter& s : r.sweep)
      if (s.path == path) values.push_back(s.values[p]);
  return values;
}

std::vector<std::string> sorted_paths(const RunResults& r) {
  std::vector<std::string> paths;
  for (const SweepParameter& s : r.sweep) paths.push_back(s.path);
  std::sort(paths.begin(), paths.end());
  return paths;
}

/// Refuses a part that is not a slice of the same run as `base` (the checks of both axes).
void check_same_run(const RunResults& base, const RunResults& r, std::size_t i) {
  if (r.scenario_original_text != base.scenario_original_text)
    refuse(i, "its scenario text differs from part 0's (only results of the same scenario join)");
  if (r.scenario_overrides != base.scenario_overrides)
    refuse(i, "its overrides differ from part 0's");
  if (r.seed != base.seed)
    refuse(i, "its seed is " + std::to_string(r.seed) + ", part 0's " + std::to_string(base.seed) +
                  " (only results of the same seed share random numbers)");
  if (r.pool_names != base.pool_names) refuse(i, "its pools differ from part 0's");
  if (!same_goals(r.goals, base.goals)) refuse(i, "its goals differ from part 0's");
  if (r.timeseries_bins != base.timeseries_bins || r.timeseries_step_s != base.timeseries_step_s)
    refuse(i, "its time series (step, bins) differ from part 0's");
  const std::size_t pr = r.points * r.replications;
  if (r.scalars.size() != pr * kScalarMetricCount ||
      r.pool_values.size() != pr * r.pool_count() * kPoolMetricCount ||
      r.timeseries.size() != pr * r.pool_count() * r.timeseries_bins)
    refuse(i, "its arrays do not have the sizes of its points, replications and pools");
  for (const SweepParameter& s : r.sweep)
    if (s.values.size() != r.points)
      refuse(i, "sweep parameter '" + s.path + "' has " + std::to_string(s.values.size()) +
                    " values for " + std::to_string(r.points) + " points");
}

std::string common_or_mixed(const std::vector<const RunResults*>& parts,
                            std::string RunResults::*field) {
  for (const RunResults* r : parts)
    if (r->*field != parts[0]->*field) return "mixed";
  return parts[0]->*field;
}

RunResults join_points(const std::vector<const RunResults*>& parts, RunResults out) {
  const RunResults& base = *parts[0];
  std::vector<std::string> paths;
  for (const SweepParameter& s : base.sweep) paths.push_back(s.path);
  const std::vector<std::string> base_sorted = sorted_paths(base);
  // Point index in `out` of each parameter tuple seen, to drop repeated points.
  std::vector<std::vector<std::string>> seen;
  std::vector<std::pair<std::size_t, std::size_t>> origin;  // (part, point) of each out point
  out.points = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const RunResults& r = *parts[i];
    if (r.replications != base.replications || r.first_replication != base.first_replication)
      refuse(i, "it has replications [" + std::to_string(r.first_replication) + ", " +
                    std::to_string(r.first_replication + r.replications) + "), part 0 [" +
                    std::to_string(base.first_replication) + ", " +
                    std::to_string(base.first_replication + base.replications) +
                    ") (join along points needs the same replications)");
    if (sorted_paths(r) != base_sorted)
      refuse(i,
             "its swept parameters differ from part 0's (along points every part must sweep "
             "the same parameters; give a parameter kept fixed as a one-value grid)");
    for (std::size_t p = 0; p < r.points; ++p) {
      std::vector<std::string> values = point_values(r, p, paths);
      const auto found = std::find(seen.begin(), seen.end(), values);
      if (found != seen.end()) {
        const auto [pi, pp] = origin[static_cast<std::size_t>(found - seen.begin())];
        if (!same_rows(*parts[pi], pp, r, p))
          refuse(i, "its point " + std::to_string(p) + " has the parameter values of part " +
                        std::to_string(pi) + "'s point " + std::to_string(pp) +
                        " but other results (a different gpucap version or backend?)");
        continue;  // the same point twice: kept once
      }
      seen.push_back(values);
      origin.emplace_back(i, p);
      append_point_rows(r, p, out);
      ++out.points;
    }
  }
  for (std::size_t k = 0; k < paths.size(); ++k) {
    out.sweep[k].values.clear();
    for (const auto& values : seen) out.sweep[k].values.push_back(values[k]);
  }
  return out;
}

RunResults join_replications(std::vector<const RunResults*> parts, RunResults out) {
  std::stable_sort(parts.begin(), parts.end(), [](const RunResults* a, const RunResults* b) {
    return a->first_replication < b->first_replication;
  });
  const RunResults& base = *parts[0];
  out.first_replication = base.first_replication;
  out.replications = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const RunResults& r = *parts[i];
    if (r.points != base.points)
      refuse(i, "it has " + std::to_string(r.points) + " points, the first chunk " +
                    std::to_string(base.points) +
                    " (join along replications needs the same points)");
    if (r.sweep.size() != base.sweep.size())
      refuse(i, "its swept parameters differ from the first chunk's");
    for (std::size_t k = 0; k < r.sweep.size(); ++k)
      if (r.sweep[k].path != base.sweep[k].path || r.sweep[k].values != base.sweep[k].values)
        refuse(i, "its sweep grid differs from the first chunk's (parameter '" + r.sweep[k].path +
                      "')");
    // Consecutive ranges: each starts where the last ended, and none passes 2^64 - 1 (so the
    // end of the last, and `expected`, cannot wrap around).
    if (r.replications > 0 && r.first_replication > UINT64_MAX - (r.replications - 1))
      refuse(i, "its replications run past index 2^64 - 1");
    const uint64_t expected = base.first_replication + out.replications;
    if (r.first_replication != expected)
      refuse(i, "its replications start at " + std::to_string(r.first_replication) + ", expected " +
                    std::to_string(expected) +
                    " (the chunks must be consecutive, without gaps or overlaps)");
    out.replications += r.replications;
  }
  for (std::size_t p = 0; p < base.points; ++p)
    for (const RunResults* r : parts) append_point_rows(*r, p, out);
  return out;
}

}  // namespace

RunResults concat_results(const std::vector<const RunResults*>& parts, ConcatAxis axis) {
  if (parts.empty()) throw std::invalid_argument("concat: no results to join");
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] == nullptr) refuse(i, "it is null");
    if (!parts[i]->all_rows())
      refuse(i, "it kept the rows of " + std::to_string(parts[i]->rows_per_point()) + " of its " +
                    std::to_string(parts[i]->replications) +
                    " replications (--rows), and joining needs every row: run the parts with "
                    "rows all");
    check_same_run(*parts[0], *parts[i], i);
  }
  // The metadata is part 0's; the arrays and what differs are rebuilt below.
  RunResults out;
  const RunResults& base = *parts[0];
  out.gpucap_version = base.gpucap_version;
  out.scenario_name = base.scenario_name;
  out.scenario_text = base.scenario_text;
  out.scenario_original_text = base.scenario_original_text;
  out.scenario_overrides = base.scenario_overrides;
  out.seed = base.seed;
  out.points = base.points;
  out.replications = base.replications;
  out.first_replication = base.first_replication;
  out.pool_names = base.pool_names;
  out.goals = base.goals;  // the scenario's, the same in every part; met and summaries recomputed
  out.sweep = base.sweep;
  out.timeseries_step_s = base.timeseries_step_s;
  out.timeseries_bins = base.timeseries_bins;
  out.backend = common_or_mixed(parts, &RunResults::backend);
  out.device = common_or_mixed(parts, &RunResults::device);
  out.backend_choice = common_or_mixed(parts, &RunResults::backend_choice);
  for (const RunResults* r : parts) {
    out.threads = std::max(out.threads, r->threads);
    out.wall_time_s += r->wall_time_s;
    for (const std::string& f : r->input_files)
      if (std::find(out.input_files.begin(), out.input_files.end(), f) == out.input_files.end())
        out.input_files.push_back(f);
    for (const DataFileRecord& f : r->data_files)
      if (std::find(out.data_files.begin(), out.data_files.end(), f) == out.data_files.end())
        out.data_files.push_back(f);
  }
  out = axis == ConcatAxis::points ? join_points(parts, std::move(out))
                                   : join_replications(parts, std::move(out));
  // The settling probe: part 0's first replications when parts add
  // replications; every part's points when they add points and were all probed alike.
  if (axis == ConcatAxis::replications) {
    out.settling = base.settling;
  } else {
    bool alike = base.settling.bins > 0;
    for (const RunResults* r : parts)
      alike = alike && r->settling.bins == base.settling.bins &&
              r->settling.replications == base.settling.replications &&
              r->settling.step_s == base.settling.step_s;
    if (alike) {
      out.settling = base.settling;
      out.settling.mean_in_use.clear();
      out.settling.mean_waiting.clear();
      bool waiting = true;  // every part has its jobs-waiting series (files before it do not)
      for (const RunResults* r : parts) {
        out.settling.mean_in_use.insert(out.settling.mean_in_use.end(),
                                        r->settling.mean_in_use.begin(),
                                        r->settling.mean_in_use.end());
        waiting = waiting && r->settling.mean_waiting.size() == r->settling.mean_in_use.size();
        out.settling.mean_waiting.insert(out.settling.mean_waiting.end(),
                                         r->settling.mean_waiting.begin(),
                                         r->settling.mean_waiting.end());
      }
      if (!waiting) out.settling.mean_waiting.clear();
    }
  }
  out.block_moments.clear();  // the host reduces: the same bits as a device's blocks
  out.summarize_all();
  return out;
}

}  // namespace gpucap
