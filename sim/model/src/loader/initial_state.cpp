// gpucap: scenario loader, a workload's `initial_state`: a CSV file of what of the workload runs
// or waits at t = 0, one row each: `remaining` (a deployment instance's remaining lifetime,
// blank: still running past the horizon; a job's remaining work on the reference GPU; `unknown`:
// drawn from the workload's distribution given the row's `age`), and optionally `age` (how long
// it has lasted: wall clock for an instance, reference-GPU work done for a job), `pool` (where
// it runs at t = 0; blank or absent: placed by its placement list) and `gpus` (blank or absent:
// the workload's `gpus`). Then the check that the rows naming a pool, over every workload, fit
// its quota.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <string_view>

#include "gpucap/csv_table.hpp"

#include "loader.hpp"

namespace gpucap::loader {
namespace {

/// "rows 2, 5 and 9" (the first 10, then how many more).
std::string row_list(const std::vector<std::size_t>& rows) {
  std::string out = rows.size() == 1 ? "row " : "rows ";
  const std::size_t shown = std::min<std::size_t>(rows.size(), 10);
  for (std::size_t i = 0; i < shown; ++i)
    out += (i == 0 ? "" : i + 1 == rows.size() ? " and " : ", ") + std::to_string(rows[i]);
  if (rows.size() > shown) out += " and " + std::to_string(rows.size() - shown) + " more";
  return out;
}

/// The largest value `d` can take (+infinity when unbounded).
double largest_value(const DistributionSpec& d) {
  switch (d.kind) {
    case DistKind::deterministic:
      return d.p0;
    case DistKind::uniform:
      return d.p1;
    case DistKind::empirical:  // a tail reaches beyond the largest sample
      if (d.p0 > 0) return HUGE_VAL;
      return d.samples.empty() ? 0.0 : *std::max_element(d.samples.begin(), d.samples.end());
    default:
      return HUGE_VAL;
  }
}

/// "FILE data row N: ", the start of a message about data row i (built only for a message).
std::string row_prefix(const JobClassSpec& w, std::size_t i) {
  return w.initial_state_file + " data row " + std::to_string(i + 1) + ": ";
}

/// Data row i's `remaining` (text_value, in time_unit) into alive.end_s, or alive.residual for
/// `unknown` (the row's age already read); `largest_s`: the most w's work can be (its
/// largest_value, computed once by the caller).
void read_remaining(const Context& ctx, const YAML::Node& file_node, const std::string& fpath,
                    std::size_t i, std::string_view text_value, double unit_s,
                    const JobClassSpec& w, double largest_s, AliveAtStart& alive) {
  const bool instances = w.kind == WorkloadKind::deployment;
  const char* what = instances ? "lifetime" : "work";
  if (text_value == "unknown") {
    if (w.arrivals.kind == ArrivalKind::trace)
      ctx.fail(file_node, fpath,
               row_prefix(w, i) + "remaining is unknown, but \"" + w.name + "\" takes its " + what +
                   "s from its trace, not from a distribution to draw the rest from; give "
                   "the remaining " +
                   what + " (or model the " + what + " with `" + (instances ? "lifetime" : "work") +
                   "`)");
    if (!(largest_s > alive.age_s))
      ctx.fail(file_node, fpath,
               row_prefix(w, i) + "remaining is unknown and age is " + text::format_number(alive.age_s) +
                   " s, but the " + what + " of \"" + w.name + "\" is at most " +
                   text::format_number(largest_s) + " s: no " + what +
                   " lasts that long; give the remaining " + what);
    alive.residual = true;
  } else if (text_value.empty()) {
    if (!instances)
      ctx.fail(file_node, fpath,
               row_prefix(w, i) + "remaining is blank; a job's remaining work must be given (reference-GPU " +
                   "time, in time_unit), or be unknown (drawn from its work given its age)");
  } else {
    double v = 0;
    if (!parse_decimal(text_value, v) || !(v > 0) || !(v * unit_s <= kMaxDurationS))
      ctx.fail(file_node, fpath,
               row_prefix(w, i) + "remaining holds \"" + text::excerpt(std::string(text_value)) +
                   "\"; it must be a number > 0 (at most 10000 years)" +
                   (instances ? ", blank (still running) or unknown (drawn given the age)"
                              : " or unknown (drawn given the age)"));
    alive.end_s = v * unit_s;
  }
}

}  // namespace

void read_initial_state(const Context& ctx, const YAML::Node& node, const std::string& path,
                        const Scenario& /*s*/, JobClassSpec& w) {
  expect_map(ctx, node, path, scenario_child_keys("workloads[].initial_state"));
  const YAML::Node file_node = require(ctx, node, path, "file", "a CSV file of the state at t = 0");
  const std::string fpath = join_path(path, "file");
  w.initial_state_file = read_string(ctx, file_node, fpath);
  const double unit_s =
      node["time_unit"] ? read_key_duration(ctx, node["time_unit"], join_path(path, "time_unit"))
                        : 1.0;
  try {
    const CsvTable table = ctx.read_csv(file_node, fpath, w.initial_state_file);
    if (!table.has_column("remaining"))
      ctx.fail(file_node, fpath,
               w.initial_state_file +
                   " has no column 'remaining' (and may have 'age', 'pool' and 'gpus')");
    if (table.rows() > kMaxInitialStateRows)
      ctx.fail(file_node, fpath,
               w.initial_state_file + " has " + std::to_string(table.rows()) +
                   " data rows; the state at t = 0 may hold at most " +
                   std::to_string(kMaxInitialStateRows) +
                   " jobs or instances per workload (more than any fleet runs and queues at "
                   "once); keep the rows that run or wait at t = 0");
    // Column by column, each cell read in place (no string per row): memory is the rows kept.
    const auto row_of = [&](std::size_t i) { return row_prefix(w, i); };
    std::vector<double> ages(table.rows(), 0.0);
    if (table.has_column("age"))
      table.for_each_cell("age", [&](std::size_t i, std::string_view cell) {
        if (cell.empty()) return;
        double v = 0;
        if (!parse_decimal(cell, v) || !(v >= 0) || !(v * unit_s <= kMaxDurationS))
          ctx.fail(file_node, fpath,
                   row_of(i) + "age holds \"" + text::excerpt(std::string(cell)) +
                       "\"; it must be a number >= 0 (in time_unit) and at most 10000 years, "
                       "or blank");
        ages[i] = v * unit_s;
      });
    w.initial_state.reserve(table.rows());
    const double largest_s = largest_value(w.work_s);
    table.for_each_cell("remaining", [&](std::size_t i, std::string_view cell) {
      AliveAtStart alive{HUGE_VAL, w.gpus, ""};
      alive.row = static_cast<uint32_t>(i + 1);
      alive.age_s = ages[i];
      read_remaining(ctx, file_node, fpath, i, cell, unit_s, w, largest_s, alive);
      w.initial_state.push_back(std::move(alive));
    });
    std::vector<double>().swap(ages);
    if (table.has_column("gpus"))
      table.for_each_cell("gpus", [&](std::size_t i, std::string_view cell) {
        if (cell.empty()) return;
        double g = 0;
        if (!parse_decimal(cell, g) || !(g >= 1 && g <= kMaxTotalQuotaGpus) ||
            static_cast<double>(static_cast<uint32_t>(g)) != g)
          ctx.fail(file_node, fpath,
                   row_of(i) + "gpus must be a whole number >= 1 (or blank: the workload's gpus)");
        w.initial_state[i].gpus = static_cast<uint32_t>(g);
      });
    if (table.has_column("pool"))
      table.for_each_cell("pool", [&](std::size_t i, std::string_view cell) {
        if (cell.empty()) return;
        const auto in_placement = std::find(w.placement.begin(), w.placement.end(), cell);
        if (in_placement == w.placement.end())
          ctx.fail(file_node, fpath,
                   row_of(i) + "pool \"" + text::excerpt(std::string(cell)) +
                       "\" is not in the placement list of \"" + w.name + "\" (" +
                       text::join(w.placement, ", ") + ")");
        w.initial_state[i].pool = *in_placement;
      });
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const ScenarioError*>(&e)) throw;
    ctx.fail(file_node, fpath, e.what());
  }
}

void check_initial_state_fits(const Context& ctx, const YAML::Node& workloads, const Scenario& s) {
  // Per pool: GPUs the rows naming it hold at t = 0, and those rows by workload.
  std::map<std::string, uint64_t> held;
  std::map<std::string, std::vector<std::pair<std::size_t, std::vector<std::size_t>>>> rows;
  for (std::size_t k = 0; k < s.workloads.size(); ++k) {
    const JobClassSpec& w = s.workloads[k];
    for (std::size_t i = 0; i < w.initial_state.size(); ++i) {
      const AliveAtStart& a = w.initial_state[i];
      if (a.pool.empty()) continue;
      held[a.pool] += a.gpus;
      auto& by_workload = rows[a.pool];
      if (by_workload.empty() || by_workload.back().first != k) by_workload.push_back({k, {}});
      by_workload.back().second.push_back(i + 1);
    }
  }
  for (const auto& [pool, gpus] : held) {
    const uint32_t quota = s.pools[s.pool_index(pool)].quota_gpus;
    if (gpus <= quota) continue;
    std::string which;
    for (const auto& [k, list] : rows[pool])
      which += (which.empty() ? "" : "; ") + s.workloads[k].initial_state_file + " " +
               row_list(list) + " (workload \"" + s.workloads[k].name + "\")";
    const std::size_t first = rows[pool].front().first;
    const std::string path = "workloads[" + std::to_string(first) + "].initial_state.file";
    ctx.fail(workloads[first]["initial_state"]["file"], path,
             "the state at t = 0 puts " + std::to_string(gpus) + " GPUs on pool \"" + pool +
                 "\", more than its quota of " + std::to_string(quota) + ": " + which);
  }
}

}  // namespace gpucap::loader
