// gpucap: scenario loader, a deployment's trace: one row per instance, with its start (blank or
// negative: before the window), its GPUs and its end or lifetime (blank: still running when
// the log ends). Instances that began before t = 0 and end after it are the state at t = 0.
#include <cmath>
#include <string_view>

#include "gpucap/csv_table.hpp"

#include "loader.hpp"

namespace gpucap::loader {
namespace {

/// A cell of a time column: its value, or NaN when blank. Fails for anything else.
double time_cell(const Context& ctx, const YAML::Node& file_node, const std::string& fpath,
                 const std::string& row, const std::string& column, const std::string& cell) {
  if (cell.empty()) return std::nan("");
  double v = 0;
  if (!parse_decimal(cell, v))
    ctx.fail(file_node, fpath,
             row + column + " holds \"" + text::excerpt(cell) + "\", not a number (or blank)");
  return v;
}

}  // namespace

bool read_instance_rows(const Context& ctx, const YAML::Node& file_node, const std::string& fpath,
                        const TraceColumns& columns, double unit_s, bool still_running,
                        ArrivalSpec& a) {
  const bool by_end = !columns.end.empty();
  const std::string& life_column = by_end ? columns.end : columns.duration;
  bool in_order = true;
  try {
    const CsvTable table = ctx.read_csv(file_node, fpath, a.trace_file);
    const std::vector<std::string> starts = table.strings(columns.submit);
    const std::vector<std::string> lives = table.strings(life_column);
    const NumberColumn g = table.number_column(columns.gpus);
    double last_start_s = -HUGE_VAL;
    for (std::size_t i = 0; i < starts.size(); ++i) {
      const std::string row = a.trace_file + " data row " + std::to_string(i + 1) + ": ";
      const double gi = g[i];
      if (!(gi >= 1 && gi <= kMaxTotalQuotaGpus &&
            static_cast<double>(static_cast<uint32_t>(gi)) == gi))
        ctx.fail(file_node, fpath, row + columns.gpus + " must be a whole number >= 1");
      const double start = time_cell(ctx, file_node, fpath, row, columns.submit, starts[i]);
      const double life = time_cell(ctx, file_node, fpath, row, life_column, lives[i]);
      if (std::isnan(life) && !still_running)
        ctx.fail(file_node, fpath,
                 row + life_column +
                     " is blank; if the instance was still running when the log ended, say so "
                     "with blank_end: still_running");
      // Its end in s since t = 0 (+infinity: still running); NaN: unknown (no start, a duration).
      double end_s = HUGE_VAL;
      if (!std::isnan(life)) {
        if (by_end)
          end_s = life * unit_s;
        else if (!std::isnan(start))
          end_s = (start + life) * unit_s;
        else
          ctx.fail(file_node, fpath,
                   row + columns.submit + " is blank, so the remaining lifetime of this instance " +
                       "is unknown from its duration; give the trace an end_column");
        if (!by_end && !(life > 0)) ctx.fail(file_node, fpath, row + life_column + " must be > 0");
        if (by_end && !std::isnan(start) && !(life > start))
          ctx.fail(file_node, fpath,
                   row + life_column + " (" + text::format_number(life) + ") must be after " +
                       columns.submit + " (" + text::format_number(start) + ")");
      }
      const uint32_t gpus = static_cast<uint32_t>(gi);
      if (std::isnan(start) || start < 0) {  // began before the window
        if (end_s > 0) {
          AliveAtStart alive{end_s, gpus, ""};
          alive.row = static_cast<uint32_t>(i + 1);
          a.alive_at_start.push_back(std::move(alive));
        }
        continue;
      }
      const double start_s = start * unit_s;
      in_order = in_order && !(start_s < last_start_s);
      last_start_s = start_s;
      a.trace.push_back({start_s, gpus, static_cast<uint32_t>(i + 1), end_s - start_s});
    }
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const ScenarioError*>(&e)) throw;
    ctx.fail(file_node, fpath, e.what());
  }
  return in_order;
}

}  // namespace gpucap::loader
