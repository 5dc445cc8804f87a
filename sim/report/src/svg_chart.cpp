#include "gpucap/report/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

#include "gpucap/report/html.hpp"

namespace gpucap::report {

namespace {

/// A coordinate with at most 2 decimals and no trailing zeros: "240", "12.5".
std::string coord(double v) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.2f", v);
  std::string s = buffer;
  if (s.find('.') != std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

/// Maps a value of `scale` onto [from, to] pixels.
double map(const NiceScale& scale, double v, double from, double to) {
  return from + (v - scale.low) / (scale.high - scale.low) * (to - from);
}

std::string svg_open(const ChartFrame& f, const ChartText& text) {
  return "<svg class=\"chart\" width=\"" + coord(f.width) + "\" height=\"" + coord(f.height) +
         "\" viewBox=\"0 0 " + coord(f.width) + " " + coord(f.height) +
         "\" role=\"img\" aria-label=\"" + escape_html(text.title) + "\">\n<title>" +
         escape_html(text.title) + "</title>\n<text x=\"" + coord(f.width / 2) +
         "\" y=\"18\" class=\"chart-title\" text-anchor=\"middle\">" + escape_html(text.title) +
         "</text>\n";
}

std::string text_at(double x, double y, const std::string& anchor, const std::string& text,
                    const std::string& extra = "") {
  return "<text x=\"" + coord(x) + "\" y=\"" + coord(y) + "\" text-anchor=\"" + anchor + "\"" +
         extra + ">" + escape_html(text) + "</text>\n";
}

/// `f` with a left margin wide enough for the y tick labels (about 7 px a character at the
/// charts' 11 px font) beside the rotated axis label (centred 16 px from the left edge), so that
/// no number is cut at the chart's edge.
ChartFrame with_room_for(const ChartFrame& f, const NiceScale& y) {
  std::size_t longest = 0;
  for (double t : y.ticks) longest = std::max(longest, tick_label(t, y.step).size());
  ChartFrame out = f;
  out.margin_left = std::max(f.margin_left, 34.0 + 7.0 * static_cast<double>(longest));
  return out;
}

/// Grid lines, ticks, tick labels and axis labels of a chart with scales x and y.
std::string axes(const ChartFrame& f, const NiceScale& x, const NiceScale& y,
                 const ChartText& text) {
  std::string out = "<g class=\"axes\">\n";
  for (double t : y.ticks) {
    const double py = map(y, t, f.plot_bottom(), f.plot_top());
    out += "<line x1=\"" + coord(f.plot_left()) + "\" y1=\"" + coord(py) + "\" x2=\"" +
           coord(f.plot_right()) + "\" y2=\"" + coord(py) + "\" class=\"grid\"/>\n";
    out += text_at(f.plot_left() - 6, py + 4, "end", tick_label(t, y.step));
  }
  // Labels of x ticks every `stride` ticks, so that they do not overlap (about 7 px a
  // character at the charts' 11 px font).
  std::size_t longest = 0;
  for (double t : x.ticks) longest = std::max(longest, tick_label(t, x.step).size());
  const double spacing = x.ticks.size() > 1 ? (f.plot_right() - f.plot_left()) /
                                                  static_cast<double>(x.ticks.size() - 1)
                                            : 1e9;
  const std::size_t stride =
      static_cast<std::size_t>(std::ceil((7 * static_cast<double>(longest) + 12) / spacing));
  for (std::size_t i = 0; i < x.ticks.size(); ++i) {
    const double px = map(x, x.ticks[i], f.plot_left(), f.plot_right());
    out += "<line x1=\"" + coord(px) + "\" y1=\"" + coord(f.plot_bottom()) + "\" x2=\"" +
           coord(px) + "\" y2=\"" + coord(f.plot_bottom() + 5) + "\" class=\"tick\"/>\n";
    if (i % std::max<std::size_t>(stride, 1) == 0)
      out += text_at(px, f.plot_bottom() + 18, "middle", tick_label(x.ticks[i], x.step));
  }
  out += "<rect x=\"" + coord(f.plot_left()) + "\" y=\"" + coord(f.plot_top()) + "\" width=\"" +
         coord(f.plot_right() - f.plot_left()) + "\" height=\"" +
         coord(f.plot_bottom() - f.plot_top()) + "\" class=\"frame\"/>\n";
  out += text_at((f.plot_left() + f.plot_right()) / 2, f.height - 10, "middle", text.x_label,
                 " class=\"axis-label\"");
  const double cy = (f.plot_top() + f.plot_bottom()) / 2;
  out += text_at(16, cy, "middle", text.y_label,
                 " class=\"axis-label\" transform=\"rotate(-90 16 " + coord(cy) + ")\"");
  return out + "</g>\n";
}

/// Smallest and largest finite value of `values` (NaN, NaN when none).
std::pair<double, double> finite_range(const std::vector<double>& values) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double v : values)
    if (std::isfinite(v)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  if (lo > hi) return {std::nan(""), std::nan("")};
  return {lo, hi};
}

std::string legend(const ChartFrame& f, const std::vector<std::string>& names) {
  std::string out = "<g class=\"legend\">\n";
  double y = f.plot_top() + 14;
  for (std::size_t k = 0; k < names.size(); ++k, y += 16) {
    out += "<rect x=\"" + coord(f.plot_left() + 8) + "\" y=\"" + coord(y - 9) +
           "\" width=\"12\" height=\"10\" fill=\"" + series_colour(k) + "\"/>\n";
    out += text_at(f.plot_left() + 24, y, "start", names[k]);
  }
  return out + "</g>\n";
}

}  // namespace

NiceScale nice_scale(double low, double high, int target, double min_step) {
  NiceScale s;
  if (!std::isfinite(low) || !std::isfinite(high)) low = 0, high = 1;
  if (high < low) std::swap(low, high);
  if (high == low) {
    const double pad = low == 0 ? 1 : std::fabs(low) * 0.1;
    high = low == 0 ? 1 : high + pad;
    low = low == 0 ? 0 : low - pad;
  }
  const double raw = (high - low) / std::max(1, target);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / magnitude;
  s.step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * magnitude;
  if (min_step > 0) s.step = std::max(s.step, min_step);
  // Floors and ceilings with a tolerance, so that 0.3 / 0.1 = 2.9999... stays 3.
  const double eps = 1e-9;
  const double first = std::floor(low / s.step + eps), last = std::ceil(high / s.step - eps);
  s.low = first * s.step;
  s.high = last * s.step;
  for (double k = first; k <= last + 0.5; ++k) s.ticks.push_back(k * s.step == 0 ? 0 : k * s.step);
  return s;
}

std::string tick_label(double value, double step) {
  if (std::fabs(value) < step * 1e-6) value = 0;
  const double a = std::max(std::fabs(value), step);
  char buffer[48];
  if (a >= 1e12 || step < 1e-6) {
    std::snprintf(buffer, sizeof buffer, "%.3g", value);
    return buffer;
  }
  if (step >= 1) return format_number(std::round(value));
  const int decimals = static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  std::snprintf(buffer, sizeof buffer, "%.*f", std::max(0, decimals), value);
  std::string s = buffer;
  // A step of 0.25 needs two decimals where log10 says one.
  if (std::fabs(std::stod(s) - value) > step * 1e-6) {
    std::snprintf(buffer, sizeof buffer, "%.*f", std::max(0, decimals + 1), value);
    s = buffer;
  }
  return s;
}

const char* series_colour(std::size_t k) {
  static const char* kPalette[10] = {"#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3",
                                     "#937860", "#da8bc3", "#8c8c8c", "#ccb974", "#64b5cd"};
  return kPalette[k % 10];
}

Histogram make_histogram(const std::vector<double>& values, int target_bins) {
  Histogram h;
  const auto [lo, hi] = finite_range(values);
  const NiceScale scale = std::isnan(lo) ? nice_scale(0, 1, 1) : nice_scale(lo, hi, target_bins);
  h.edges = scale.ticks;
  h.counts.assign(h.edges.size() - 1, 0);
  for (double v : values) {
    if (!std::isfinite(v)) {
      ++h.left_out;
      continue;
    }
    const auto above = std::upper_bound(h.edges.begin(), h.edges.end(), v);
    std::size_t bin =
        static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, above - h.edges.begin() - 1));
    ++h.counts[std::min(bin, h.counts.size() - 1)];
  }
  return h;
}

std::string histogram_svg(const Histogram& h, const ChartText& text, const ChartFrame& frame) {
  NiceScale x;
  x.low = h.edges.front();
  x.high = h.edges.back();
  x.step = h.edges.size() > 1 ? h.edges[1] - h.edges[0] : 1;
  // Every edge when they are few, else every other one (labels must not overlap).
  const std::size_t every = (h.edges.size() + 9) / 10;
  for (std::size_t i = 0; i < h.edges.size(); i += every) x.ticks.push_back(h.edges[i]);
  x.step *= static_cast<double>(every);
  const std::size_t most =
      h.counts.empty() ? 0 : *std::max_element(h.counts.begin(), h.counts.end());
  const NiceScale y = nice_scale(0, static_cast<double>(std::max<std::size_t>(most, 1)), 5, 1);
  const ChartFrame f = with_room_for(frame, y);
  std::string out = svg_open(f, text) + axes(f, x, y, text) + "<g class=\"bars\" fill=\"" +
                    series_colour(0) + "\">\n";
  for (std::size_t b = 0; b < h.counts.size(); ++b) {
    if (h.counts[b] == 0) continue;
    const double x0 = map(x, h.edges[b], f.plot_left(), f.plot_right());
    const double x1 = map(x, h.edges[b + 1], f.plot_left(), f.plot_right());
    const double top = map(y, static_cast<double>(h.counts[b]), f.plot_bottom(), f.plot_top());
    out += "<rect x=\"" + coord(x0) + "\" y=\"" + coord(top) + "\" width=\"" + coord(x1 - x0) +
           "\" height=\"" + coord(f.plot_bottom() - top) + "\"><title>" +
           escape_html(format_number(h.edges[b]) + " to " + format_number(h.edges[b + 1]) + ": " +
                       std::to_string(h.counts[b])) +
           "</title></rect>\n";
  }
  return out + "</g>\n</svg>\n";
}

std::string line_band_svg(const std::vector<Series>& series, const ChartText& text,
                          const ChartFrame& frame) {
  std::vector<double> xs, ys;
  for (const Series& s : series) {
    xs.insert(xs.end(), s.x.begin(), s.x.end());
    ys.insert(ys.end(), s.y.begin(), s.y.end());
    ys.insert(ys.end(), s.low.begin(), s.low.end());
    ys.insert(ys.end(), s.high.begin(), s.high.end());
  }
  const auto [x_lo, x_hi] = finite_range(xs);
  auto [y_lo, y_hi] = finite_range(ys);
  if (!(y_lo < 0)) y_lo = 0;
  const NiceScale x = nice_scale(x_lo, x_hi, 8);
  const NiceScale y = nice_scale(y_lo, y_hi, 5);
  const ChartFrame f = with_room_for(frame, y);
  std::string out = svg_open(f, text) + axes(f, x, y, text);
  const auto point = [&](double px, double py) {
    return coord(map(x, px, f.plot_left(), f.plot_right())) + "," +
           coord(map(y, py, f.plot_bottom(), f.plot_top()));
  };
  std::vector<std::string> names;
  for (std::size_t k = 0; k < series.size(); ++k) {
    const Series& s = series[k];
    names.push_back(s.name);
    if (!s.low.empty() && s.low.size() == s.x.size() && s.high.size() == s.x.size()) {
      std::string band;
      for (std::size_t i = 0; i < s.x.size(); ++i)
        if (std::isfinite(s.x[i]) && std::isfinite(s.high[i]))
          band += point(s.x[i], s.high[i]) + " ";
      for (std::size_t i = s.x.size(); i-- > 0;)
        if (std::isfinite(s.x[i]) && std::isfinite(s.low[i])) band += point(s.x[i], s.low[i]) + " ";
      out += "<polygon class=\"band\" fill=\"" + std::string(series_colour(k)) +
             "\" fill-opacity=\"0.2\" points=\"" + band + "\"/>\n";
    }
    std::string line;
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) line += point(s.x[i], s.y[i]) + " ";
    out += "<polyline class=\"line\" fill=\"none\" stroke=\"" + std::string(series_colour(k)) +
           "\" stroke-width=\"1.5\" points=\"" + line + "\"/>\n";
  }
  return out + legend(f, names) + "</svg>\n";
}

std::string scatter_svg(const std::vector<ScatterPoint>& points, const ChartText& text,
                        const ChartFrame& frame) {
  constexpr std::size_t kMaxLabelledPoints = 20;
  std::vector<double> xs, ys;
  for (const ScatterPoint& p : points) {
    xs.push_back(p.x);
    ys.push_back(p.y);
  }
  const auto [x_lo, x_hi] = finite_range(xs);
  const auto [y_lo, y_hi] = finite_range(ys);
  const NiceScale x = nice_scale(x_lo, x_hi, 6);
  const NiceScale y = nice_scale(y_lo, y_hi, 5);
  const ChartFrame f = with_room_for(frame, y);
  std::string out = svg_open(f, text) + axes(f, x, y, text);
  const auto px = [&](double v) { return map(x, v, f.plot_left(), f.plot_right()); };
  const auto py = [&](double v) { return map(y, v, f.plot_bottom(), f.plot_top()); };
  std::vector<const ScatterPoint*> frontier;
  for (const ScatterPoint& p : points)
    if (p.highlighted && std::isfinite(p.x) && std::isfinite(p.y)) frontier.push_back(&p);
  std::sort(frontier.begin(), frontier.end(),
            [](const ScatterPoint* a, const ScatterPoint* b) { return a->x < b->x; });
  if (frontier.size() > 1) {
    std::string line;
    for (const ScatterPoint* p : frontier) line += coord(px(p->x)) + "," + coord(py(p->y)) + " ";
    out += "<polyline class=\"frontier\" fill=\"none\" stroke=\"" + std::string(series_colour(1)) +
           "\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\" points=\"" + line + "\"/>\n";
  }
  for (const ScatterPoint& p : points) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
    const std::string cx = coord(px(p.x)), cy = coord(py(p.y));
    out += "<circle cx=\"" + cx + "\" cy=\"" + cy + "\" r=\"" + (p.highlighted ? "5" : "4") +
           "\" fill=\"" + (p.highlighted ? series_colour(1) : "#9a9a9a") + "\"><title>" +
           escape_html(p.label) + "</title></circle>\n";
    if (p.chosen)
      out += "<circle cx=\"" + cx + "\" cy=\"" + cy + "\" r=\"9\" fill=\"none\" stroke=\"" +
             series_colour(3) + "\" stroke-width=\"2\" class=\"chosen\"/>\n";
  }
  // Labels, the chosen point's first, then the Pareto points', then the others': each goes
  // above or below its point where it overlaps no label placed before it and stays inside the
  // plot, or is left out (the point keeps its label as a tooltip). Labels run toward the middle
  // of the plot. Boxes are estimated at 6.5 px a character, 12 px high.
  struct Box {
    double left, right, top, bottom;
  };
  std::vector<Box> placed;
  std::vector<const ScatterPoint*> order;
  for (int rank = 0; rank < 3; ++rank)
    for (const ScatterPoint& p : points) {
      const int r = p.chosen ? 0 : p.highlighted ? 1 : 2;
      if (r == rank && std::isfinite(p.x) && std::isfinite(p.y) &&
          (r < 2 || points.size() <= kMaxLabelledPoints))
        order.push_back(&p);
    }
  for (const ScatterPoint* p : order) {
    const bool right_half = px(p->x) > (f.plot_left() + f.plot_right()) / 2;
    const double x = px(p->x) + (right_half ? -8 : 8);
    const double width = 6.5 * static_cast<double>(p->label.size());
    const Box across{right_half ? x - width : x, right_half ? x : x + width, 0, 0};
    for (double dy : {-8.0, 16.0, -20.0, 28.0}) {
      const double baseline = py(p->y) + dy;
      const Box b{across.left, across.right, baseline - 11, baseline + 1};
      const bool inside = b.top >= f.plot_top() && b.bottom <= f.plot_bottom() &&
                          b.left >= f.plot_left() - 4 && b.right <= f.plot_right() + 4;
      const bool clear = std::none_of(placed.begin(), placed.end(), [&](const Box& o) {
        return b.left < o.right && o.left < b.right && b.top < o.bottom && o.top < b.bottom;
      });
      if (!inside || !clear) continue;
      placed.push_back(b);
      out += text_at(x, baseline, right_half ? "end" : "start", p->label,
                     p->highlighted || p->chosen ? " class=\"point-label\""
                                                 : " class=\"point-label\" fill=\"#777\"");
      break;
    }
    if (p->chosen && placed.empty()) {  // the answer's label is shown, wherever it must go
      placed.push_back({across.left, across.right, py(p->y) - 19, py(p->y) - 7});
      out += text_at(x, py(p->y) - 8, right_half ? "end" : "start", p->label,
                     " class=\"point-label\"");
    }
  }
  return out + "</svg>\n";
}

std::string bar_svg(const std::vector<Bar>& bars, const ChartText& text, const ChartFrame& frame) {
  std::vector<double> ys = {0};
  for (const Bar& b : bars) {
    ys.push_back(b.value);
    ys.push_back(b.low);
    ys.push_back(b.high);
  }
  const auto [y_lo, y_hi] = finite_range(ys);
  const NiceScale y = nice_scale(y_lo, y_hi, 5);
  const ChartFrame f = with_room_for(frame, y);
  NiceScale x;  // no numeric x ticks: categories are labelled below their bars
  x.low = 0;
  x.high = static_cast<double>(std::max<std::size_t>(bars.size(), 1));
  std::string out = svg_open(f, text) + axes(f, x, y, text);
  const double slot = (f.plot_right() - f.plot_left()) / x.high;
  const double zero = map(y, 0, f.plot_bottom(), f.plot_top());
  for (std::size_t k = 0; k < bars.size(); ++k) {
    const Bar& b = bars[k];
    const double left = f.plot_left() + slot * (static_cast<double>(k) + 0.2);
    const double mid = f.plot_left() + slot * (static_cast<double>(k) + 0.5);
    if (std::isfinite(b.value)) {
      const double top = map(y, b.value, f.plot_bottom(), f.plot_top());
      out += "<rect x=\"" + coord(left) + "\" y=\"" + coord(std::min(top, zero)) + "\" width=\"" +
             coord(slot * 0.6) + "\" height=\"" + coord(std::fabs(zero - top)) + "\" fill=\"" +
             series_colour(k) + "\"><title>" +
             escape_html(b.label + ": " + format_number(b.value)) + "</title></rect>\n";
    }
    if (std::isfinite(b.low) && std::isfinite(b.high)) {
      const double y0 = map(y, b.low, f.plot_bottom(), f.plot_top());
      const double y1 = map(y, b.high, f.plot_bottom(), f.plot_top());
      out += "<path class=\"whisker\" d=\"M" + coord(mid) + " " + coord(y0) + "V" + coord(y1) +
             "M" + coord(mid - 5) + " " + coord(y0) + "h10M" + coord(mid - 5) + " " + coord(y1) +
             "h10\"/>\n";
    }
    out += text_at(mid, f.plot_bottom() + 18, "middle", b.label);
  }
  return out + "</svg>\n";
}

}  // namespace gpucap::report
