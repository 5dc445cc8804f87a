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

bool has_column(const CsvTable& table, const std::string& name) {
  const auto& h = table.header();
  return std::find(h.begin(), h.end(), name) != h.end();
}

/// The largest value `d` can take (+infinity when unbounded).
double largest_value(const DistributionSpec& d) {
  switch (d.kind) {
    case DistKind::deterministic:
      return d.p0;
    case DistKind::uniform:
      return d.p1;
    case DistKind::empirical:
      return d.samples.empty() ? 0.0 : *std::max_element(d.samples.begin(), d.samples.end());
    default:
      return HUGE_VAL;
  }
}

/// A row's `remaining` (text_value, in time_unit) into alive.end_s, or alive.residual for
/// `unknown` (the row's age already read).
void read_remaining(const Context& ctx, const YAML::Node& file_node, const std::string& fpath,
                    const std::string& row, const std::string& text_value, double unit_s,
                    const JobClassSpec& w, AliveAtStart& alive) {
  const bool instances = w.kind == WorkloadKind::deployment;
  const char* what = instances ? "lifetime" : "work";
  if (text_value == "unknown") {
    if (w.arrivals.kind == ArrivalKind::trace)
      ctx.fail(file_node, fpath,
               row + "remaining is unknown, but \"" + w.name + "\" takes its " + what +
                   "s from its trace, not from a distribution to draw the rest from; give "
                   "the remaining " +
                   what + " (or model the " + what + " with `" + (instances ? "lifetime" : "work") +
                   "`)");
    const double largest = largest_value(w.work_s);
    if (!(largest > alive.age_s))
      ctx.fail(file_node, fpath,
               row + "remaining is unknown and age is " + text::format_number(alive.age_s) +
                   " s, but the " + what + " of \"" + w.name + "\" is at most " +
                   text::format_number(largest) + " s: no " + what +
                   " lasts that long; give the remaining " + what);
    alive.residual = true;
  } else if (text_value.empty()) {
    if (!instances)
      ctx.fail(file_node, fpath,
               row + "remaining is blank; a job's remaining work must be given (reference-GPU " +
                   "time, in time_unit), or be unknown (drawn from its work given its age)");
  } else {
    double v = 0;
    if (!parse_decimal(text_value, v) || !(v > 0))
      ctx.fail(file_node, fpath,
               row + "remaining holds \"" + text::excerpt(text_value) +
                   "\"; it must be a number > 0" +
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
    if (!has_column(table, "remaining"))
      ctx.fail(file_node, fpath,
               w.initial_state_file +
                   " has no column 'remaining' (and may have 'age', 'pool' and 'gpus')");
    const std::vector<std::string> remaining = table.strings("remaining");
    const std::vector<std::string> pools =
        has_column(table, "pool") ? table.strings("pool") : std::vector<std::string>();
    const std::vector<std::string> gpus =
        has_column(table, "gpus") ? table.strings("gpus") : std::vector<std::string>();
    const std::vector<std::string> ages =
        has_column(table, "age") ? table.strings("age") : std::vector<std::string>();
    for (std::size_t i = 0; i < remaining.size(); ++i) {
      const std::string row = w.initial_state_file + " data row " + std::to_string(i + 1) + ": ";
      AliveAtStart alive{HUGE_VAL, w.gpus, ""};
      alive.row = static_cast<uint32_t>(i + 1);
      if (!ages.empty() && !ages[i].empty()) {
        double v = 0;
        if (!parse_decimal(ages[i], v) || !(v >= 0) || !std::isfinite(v))
          ctx.fail(file_node, fpath,
                   row + "age holds \"" + text::excerpt(ages[i]) +
                       "\"; it must be a number >= 0 (in time_unit), or blank");
        alive.age_s = v * unit_s;
      }
      read_remaining(ctx, file_node, fpath, row, remaining[i], unit_s, w, alive);
      if (!gpus.empty() && !gpus[i].empty()) {
        double g = 0;
        if (!parse_decimal(gpus[i], g) || !(g >= 1 && g <= kMaxTotalQuotaGpus) ||
            static_cast<double>(static_cast<uint32_t>(g)) != g)
          ctx.fail(file_node, fpath,
                   row + "gpus must be a whole number >= 1 (or blank: the workload's gpus)");
        alive.gpus = static_cast<uint32_t>(g);
      }
      if (!pools.empty() && !pools[i].empty()) {
        if (std::find(w.placement.begin(), w.placement.end(), pools[i]) == w.placement.end())
          ctx.fail(file_node, fpath,
                   row + "pool \"" + text::excerpt(pools[i]) +
                       "\" is not in the placement list of \"" + w.name + "\" (" +
                       text::join(w.placement, ", ") + ")");
        alive.pool = pools[i];
      }
      w.initial_state.push_back(std::move(alive));
    }
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
