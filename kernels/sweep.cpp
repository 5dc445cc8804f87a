// gpucap: sweep grids: parsing, the cartesian product, and loading every point.
#include "gpucap/sweep.hpp"

#include <cstdint>

#include "gpucap/detail/text.hpp"
#include "gpucap/scenario_loader.hpp"

namespace gpucap {

SweepAxis parse_grid_axis(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw ScenarioError("--grid " + gpucap::text::excerpt(text) +
                        ": expected dotted.path=value1,value2,..., e.g. "
                        "pools.reserved.count=0,8,16");
  SweepAxis axis;
  axis.path = text.substr(0, eq);
  std::vector<std::string> values;
  try {
    values = gpucap::text::split_outside_brackets(text.substr(eq + 1), ',');
  } catch (const std::invalid_argument& e) {
    throw ScenarioError("--grid " + gpucap::text::excerpt(text) + ": " + e.what());
  }
  for (const std::string& value : values) {
    if (value.empty())
      throw ScenarioError("--grid " + gpucap::text::excerpt(text) +
                          ": empty value (two commas in a row?)");
    axis.values.push_back(value);
  }
  return axis;
}

std::vector<SweepParameter> expand_grid(const std::vector<SweepAxis>& axes,
                                        const std::string& grid_name) {
  std::size_t points = 1;
  bool overflow = false;  // more points than a size_t counts
  for (std::size_t a = 0; a < axes.size(); ++a) {
    for (std::size_t b = 0; b < a; ++b)
      if (axes[a].path == axes[b].path)
        throw ScenarioError(grid_name + " names '" + text::excerpt(axes[a].path) +
                            "' twice; give each path once, with all its values");
    if (axes[a].values.empty())
      throw ScenarioError(grid_name + " entry '" + text::excerpt(axes[a].path) + "' has no values");
    if (axes[a].values.size() > SIZE_MAX / points) overflow = true;
    points = overflow ? SIZE_MAX : points * axes[a].values.size();
  }
  if (points > kMaxSweepPoints)
    throw ScenarioError(grid_name + " has " + (overflow ? "over " : "") + std::to_string(points) +
                        " points, more than the " + std::to_string(kMaxSweepPoints) +
                        " a sweep may have; sweep fewer values at once");
  std::vector<SweepParameter> grid;
  std::size_t inner = points;  // points per value of the current axis
  for (const SweepAxis& axis : axes) {
    inner /= axis.values.size();
    SweepParameter p;
    p.path = axis.path;
    for (std::size_t point = 0; point < points; ++point)
      p.values.push_back(axis.values[point / inner % axis.values.size()]);
    grid.push_back(p);
  }
  return grid;
}

std::size_t grid_points(const std::vector<SweepParameter>& grid) {
  return grid.empty() ? 1 : grid.front().values.size();
}

SweepPoints check_sweep_points(const std::string& yaml_text, const std::string& origin,
                               const std::string& base_dir,
                               const std::vector<std::string>& overrides,
                               const std::vector<SweepParameter>& grid, const InputLimits& limits,
                               bool skip_invalid) {
  constexpr std::size_t kListed = 20;
  SweepPoints out;
  out.grid = grid;
  for (SweepParameter& p : out.grid) p.values.clear();
  const std::size_t n = grid_points(grid);
  for (std::size_t point = 0; point < n; ++point) {
    std::vector<std::string> all = overrides;
    std::string label;
    for (const SweepParameter& p : grid) {
      all.push_back(p.path + "=" + p.values[point]);
      label += (label.empty() ? "" : ", ") + p.path + " = " + p.values[point];
    }
    try {
      out.points.push_back(parse_scenario(yaml_text, origin, base_dir, all, limits));
      out.valid_indices.push_back(point);
      for (std::size_t k = 0; k < grid.size(); ++k)
        out.grid[k].values.push_back(grid[k].values[point]);
    } catch (const InputFileError& e) {
      throw InputFileError("sweep point " + std::to_string(point) + ": " + e.what());
    } catch (const ScenarioError& e) {
      out.invalid.push_back("sweep point " + std::to_string(point) + " (" +
                            text::excerpt(label, 200) + "): " + e.what());
    }
  }
  if (!out.invalid.empty() && (!skip_invalid || out.points.empty())) {
    std::string message = std::to_string(out.invalid.size()) + " of " + std::to_string(n) +
                          " sweep points are invalid" +
                          (skip_invalid ? " (all of them)" : " (--skip-invalid runs the others)") +
                          ":";
    for (std::size_t i = 0; i < out.invalid.size() && i < kListed; ++i)
      message += "\n  " + out.invalid[i];
    if (out.invalid.size() > kListed)
      message += "\n  ... and " + std::to_string(out.invalid.size() - kListed) + " more";
    throw ScenarioError(message);
  }
  return out;
}

std::vector<Scenario> load_sweep_points(const std::string& yaml_text, const std::string& origin,
                                        const std::string& base_dir,
                                        const std::vector<std::string>& overrides,
                                        const std::vector<SweepParameter>& grid,
                                        const InputLimits& limits) {
  return check_sweep_points(yaml_text, origin, base_dir, overrides, grid, limits, false).points;
}

}  // namespace gpucap
