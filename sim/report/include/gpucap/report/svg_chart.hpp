// gpucap report: charts as inline SVG text (no script, no external resource), for the HTML
// report. Each chart is one <svg> element of ChartFrame's size in CSS pixels: a plot area inside
// margins, axes with "nice" ticks (multiples of 1, 2 or 5 x 10^k), axis labels with units, and
// the marks. Coordinates are written with at most 2 decimals. Every text drawn is escaped.
//
//   const Histogram h = make_histogram(costs, 20);
//   page += histogram_svg(h, {"cost per replication", "cost [USD]", "replications"});
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace gpucap::report {

/// An axis range rounded out to whole ticks: low and high are multiples of step, and ticks are
/// every multiple of step from low to high (both included).
struct NiceScale {
  double low = 0, high = 1, step = 1;
  std::vector<double> ticks;
};

/// The scale whose step is the nice number (1, 2 or 5 x 10^k, and at least `min_step` when it
/// is positive) nearest above (high - low) / target, expanded to cover [low, high]. An empty
/// range (low == high) is widened by 10% of |low| each way (to [0, 1] at 0). E.g. (0, 97, 5):
/// step 20, [0, 100]; (0.013, 0.087, 5): step 0.02, [0, 0.1]. Non-finite bounds give [0, 1].
NiceScale nice_scale(double low, double high, int target = 5, double min_step = 0);

/// A tick's label: as many decimals as the step needs (step 0.25: "0.75"), thousands grouped.
std::string tick_label(double value, double step);

/// Size of a chart and the margins around its plot area, in CSS pixels.
struct ChartFrame {
  double width = 600, height = 320;
  double margin_left = 72, margin_right = 20, margin_top = 30, margin_bottom = 50;
  double plot_left() const { return margin_left; }
  double plot_right() const { return width - margin_right; }
  double plot_top() const { return margin_top; }
  double plot_bottom() const { return height - margin_bottom; }
};

/// A chart's title and axis labels (plain text; units in the labels, e.g. "wait_p95 [h]").
struct ChartText {
  std::string title, x_label, y_label;
};

/// Colour of series k (a fixed 10-colour palette, then repeated).
const char* series_colour(std::size_t k);

/// Counts of values in bins whose edges are a nice scale's ticks over [min, max] of the values
/// (about `target_bins` bins); NaN values are left out (`left_out` counts them). A value on an
/// inner edge goes to the bin above it; the maximum to the last bin.
struct Histogram {
  std::vector<double> edges;        ///< bins + 1 increasing edges
  std::vector<std::size_t> counts;  ///< one per bin
  std::size_t left_out = 0;
};
Histogram make_histogram(const std::vector<double>& values, int target_bins);

/// A histogram: one bar per bin, x from the first to the last edge, y counts from 0.
std::string histogram_svg(const Histogram& histogram, const ChartText& text,
                          const ChartFrame& frame = {});

/// One line of a line chart, with an optional band (low and high empty, or as long as x).
struct Series {
  std::string name;
  std::vector<double> x, y, low, high;
};

/// Lines (and their bands, translucent) over a shared x axis; y from 0 when every value is
/// non-negative. A legend names the series. Non-finite points are skipped.
std::string line_band_svg(const std::vector<Series>& series, const ChartText& text,
                          const ChartFrame& frame = {});

/// A point of a scatter plot; highlighted points are drawn in colour (and joined by a line in
/// x order, e.g. a Pareto frontier), the chosen one ringed. The label is drawn beside
/// highlighted and chosen points, and in grey beside the others when there are at most 20
/// points; it is every point's tooltip.
struct ScatterPoint {
  double x = 0, y = 0;
  std::string label;
  bool highlighted = false, chosen = false;
};
std::string scatter_svg(const std::vector<ScatterPoint>& points, const ChartText& text,
                        const ChartFrame& frame = {});

/// A bar with an interval (whiskers from low to high; NaN: none).
struct Bar {
  std::string label;
  double value = 0, low = 0, high = 0;
};
/// Vertical bars from 0, one per category, with whiskers.
std::string bar_svg(const std::vector<Bar>& bars, const ChartText& text,
                    const ChartFrame& frame = {});

}  // namespace gpucap::report
