// gpucap: parameter sweeps: the cartesian product of overrides, run as one batch with common
// random numbers.
//
//   std::vector<gpucap::SweepAxis> axes = {gpucap::parse_grid_axis("pools.reserved.count=0,8,16")};
//   std::vector<gpucap::SweepParameter> grid = gpucap::expand_grid(axes);
//   std::vector<gpucap::Scenario> points = gpucap::load_sweep_points(text, origin, dir, {}, grid);
//   gpucap::RunResults results = gpucap::run_points(points, grid, text, options);
#pragma once
#include <string>
#include <vector>

#include "gpucap/input_file.hpp"
#include "gpucap/results.hpp"
#include "gpucap/scenario.hpp"

namespace gpucap {

/// One axis of a grid: a dotted scenario path (as for --set) and the values it takes, each in
/// YAML syntax.
struct SweepAxis {
  std::string path;
  std::vector<std::string> values;
};

/// Parses "path=v1,v2,v3". Commas inside [], {} or quotes do not split, so list and map values
/// work: "workloads.0.placement=[a,b],[b,a]". Throws ScenarioError with what is valid.
SweepAxis parse_grid_axis(const std::string& text);

/// Most points one sweep may have.
inline constexpr std::size_t kMaxSweepPoints = 100000;

/// The points of the cartesian product of `axes`, the first axis slowest: one SweepParameter
/// per axis, holding its value at every point. No axes: one point and no parameters. Throws
/// ScenarioError when a path is named twice (its points would be labelled with values that
/// did not run), an axis has no values, or the product exceeds kMaxSweepPoints; the messages
/// start with `grid_name` (the CLI's "--grid", Python's "sweep: the grid"). The one expansion:
/// the CLI and Python's gpucap.sweep both call it.
std::vector<SweepParameter> expand_grid(const std::vector<SweepAxis>& axes,
                                        const std::string& grid_name = "--grid");

/// Number of points of `grid` (1 when it has no parameters).
std::size_t grid_points(const std::vector<SweepParameter>& grid);

/// A sweep's valid points, with the grid reduced to them, and the invalid ones.
struct SweepPoints {
  std::vector<Scenario> points;            ///< the valid points, in grid order
  std::vector<SweepParameter> grid;        ///< the grid's values at those points
  std::vector<std::size_t> valid_indices;  ///< their indices in the full grid
  std::vector<std::string> invalid;        ///< "sweep point 3 (path = v): message"
};

/// Every point of `grid` checked: the YAML text with `overrides` and then the point's values
/// applied ("path=value" each). Without `skip_invalid`, any invalid point throws one
/// ScenarioError listing every invalid point (up to 20, then how many more); with it, the valid
/// points are returned and the invalid ones described. A file that cannot be read is not a
/// point's fault: InputFileError is thrown either way.
SweepPoints check_sweep_points(const std::string& yaml_text, const std::string& origin,
                               const std::string& base_dir,
                               const std::vector<std::string>& overrides,
                               const std::vector<SweepParameter>& grid,
                               const InputLimits& limits = {}, bool skip_invalid = false);

/// The points of check_sweep_points without skipping: every point valid, or a ScenarioError.
std::vector<Scenario> load_sweep_points(const std::string& yaml_text, const std::string& origin,
                                        const std::string& base_dir,
                                        const std::vector<std::string>& overrides,
                                        const std::vector<SweepParameter>& grid,
                                        const InputLimits& limits = {});

}  // namespace gpucap
