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
/// did not run) or the product exceeds kMaxSweepPoints.
std::vector<SweepParameter> expand_grid(const std::vector<SweepAxis>& axes);

/// Number of points of `grid` (1 when it has no parameters).
std::size_t grid_points(const std::vector<SweepParameter>& grid);

/// Every point of `grid` as a validated scenario: the YAML text with `overrides` and then the
/// point's values applied ("path=value" each). Errors name the point.
std::vector<Scenario> load_sweep_points(const std::string& yaml_text, const std::string& origin,
                                        const std::string& base_dir,
                                        const std::vector<std::string>& overrides,
                                        const std::vector<SweepParameter>& grid,
                                        const InputLimits& limits = {});

}  // namespace gpucap
