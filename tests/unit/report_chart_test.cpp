// The report's SVG chart primitives and HTML text helpers: nice ticks, tick labels, histogram
// binning and its exact bar coordinates, escaping, number formats, display units.
#include <cmath>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "gpucap/report/html.hpp"
#include "gpucap/report/svg_chart.hpp"

namespace {

using namespace gpucap::report;

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(NiceScale, StepsAreOneTwoOrFiveTimesAPowerOfTen) {
  NiceScale s = nice_scale(0, 97, 5);  // raw step 19.4 -> 20
  EXPECT_EQ(s.step, 20);
  EXPECT_EQ(s.low, 0);
  EXPECT_EQ(s.high, 100);
  EXPECT_EQ(s.ticks, (std::vector<double>{0, 20, 40, 60, 80, 100}));

  s = nice_scale(0.013, 0.087, 5);  // raw 0.0148 -> 0.02
  EXPECT_DOUBLE_EQ(s.step, 0.02);
  EXPECT_DOUBLE_EQ(s.low, 0);
  EXPECT_DOUBLE_EQ(s.high, 0.1);
  ASSERT_EQ(s.ticks.size(), 6u);
  EXPECT_DOUBLE_EQ(s.ticks[3], 0.06);

  s = nice_scale(41000, 129000, 5);  // raw 17600 -> 20000; out to [40000, 140000]
  EXPECT_EQ(s.step, 20000);
  EXPECT_EQ(s.low, 40000);
  EXPECT_EQ(s.high, 140000);

  s = nice_scale(0.3, 0.6, 3);  // 0.3 / 0.1 must not floor to 2
  EXPECT_DOUBLE_EQ(s.step, 0.1);
  EXPECT_DOUBLE_EQ(s.low, 0.3);
  EXPECT_DOUBLE_EQ(s.high, 0.6);
  EXPECT_EQ(s.ticks.size(), 4u);
}

TEST(NiceScale, EmptyAndInvalidRangesAndAMinimumStep) {
  NiceScale s = nice_scale(0, 0, 5);
  EXPECT_EQ(s.low, 0);
  EXPECT_EQ(s.high, 1);
  s = nice_scale(50, 50, 5);  // widened to [45, 55], step 2
  EXPECT_EQ(s.step, 2);
  EXPECT_EQ(s.low, 44);
  EXPECT_EQ(s.high, 56);
  s = nice_scale(std::nan(""), 3, 5);
  EXPECT_EQ(s.low, 0);
  EXPECT_EQ(s.high, 1);
  s = nice_scale(0, 2, 5, 1);  // counts: whole steps only
  EXPECT_EQ(s.step, 1);
  EXPECT_EQ(s.ticks, (std::vector<double>{0, 1, 2}));
}

TEST(TickLabel, AsManyDecimalsAsTheStepNeeds) {
  EXPECT_EQ(tick_label(0.75, 0.25), "0.75");
  EXPECT_EQ(tick_label(0.5, 0.1), "0.5");
  EXPECT_EQ(tick_label(0.06000000000000001, 0.02), "0.06");
  EXPECT_EQ(tick_label(40, 20), "40");
  EXPECT_EQ(tick_label(120000, 20000),
            "120\xE2\x80\x89"
            "000");
  EXPECT_EQ(tick_label(1e-17, 0.1), "0.0");
}

TEST(Histogram, BinsAreNiceEdgesAndCountEveryFiniteValue) {
  const Histogram h = make_histogram({0.5, 1.5, 1.5, 2.5, std::nan("")}, 3);
  EXPECT_EQ(h.edges, (std::vector<double>{0, 1, 2, 3}));
  EXPECT_EQ(h.counts, (std::vector<std::size_t>{1, 2, 1}));
  EXPECT_EQ(h.left_out, 1u);
  // A value on an inner edge goes to the bin above; the maximum on the last edge to the last.
  const Histogram e = make_histogram({0, 1, 2}, 2);
  EXPECT_EQ(e.edges, (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(e.counts, (std::vector<std::size_t>{1, 2}));
}

TEST(Histogram, BarsAtExactCoordinates) {
  // Plot area of the default frame: x in [72, 580] (508 px) for [0, 3], y in [30, 270]
  // (240 px) for counts [0, 2].
  const Histogram h = make_histogram({0.5, 1.5, 1.5, 2.5}, 3);
  const std::string svg = histogram_svg(h, {"title", "x [s]", "replications"});
  EXPECT_NE(svg.find("<rect x=\"72\" y=\"150\" width=\"169.33\" height=\"120\">"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("<rect x=\"241.33\" y=\"30\" width=\"169.33\" height=\"240\">"),
            std::string::npos);
  EXPECT_NE(svg.find("<rect x=\"410.67\" y=\"150\" width=\"169.33\" height=\"120\">"),
            std::string::npos);
  EXPECT_EQ(count_of(svg, "<title>"), 4u);  // the chart's and one per bar
  EXPECT_NE(svg.find(">x [s]</text>"), std::string::npos);
  EXPECT_NE(svg.find(">replications</text>"), std::string::npos);
  // Tick labels 0..3 under the x axis (y = 270 + 18), counts 0, 1, 2 beside the y axis.
  EXPECT_NE(svg.find("<text x=\"241.33\" y=\"288\" text-anchor=\"middle\">1</text>"),
            std::string::npos);
  EXPECT_NE(svg.find("<text x=\"66\" y=\"154\" text-anchor=\"end\">1</text>"), std::string::npos);
}

TEST(Charts, EscapeTheirTextAndDrawEveryMark) {
  const std::string hostile = "</svg><script>alert(1)</script>";
  Series s{hostile, {0, 1, 2}, {1, 2, 3}, {0.5, 1.5, 2.5}, {1.5, 2.5, 3.5}};
  const std::string lines = line_band_svg({s}, {hostile, "t [h]", "GPUs"});
  EXPECT_EQ(lines.find("<script"), std::string::npos);
  EXPECT_NE(lines.find("&lt;/svg&gt;&lt;script&gt;"), std::string::npos);
  EXPECT_EQ(count_of(lines, "<polyline"), 1u);
  EXPECT_EQ(count_of(lines, "<polygon"), 1u);

  const std::string scatter =
      scatter_svg({{1, 10, "a", true, true}, {2, 5, "b", true, false}, {3, 20, "c<", false, false}},
                  {"frontier", "wait [h]", "cost [USD]"});
  EXPECT_EQ(count_of(scatter, "<circle"), 4u);  // three points and the chosen one's ring
  EXPECT_EQ(count_of(scatter, "class=\"frontier\""), 1u);
  EXPECT_NE(scatter.find("c&lt;"), std::string::npos);

  const std::string bars = bar_svg({{"p1", 0.5, 0.4, 0.6}, {"p2", 0.25, std::nan(""), 0}},
                                   {"utilization", "pool", "utilization [fraction]"});
  EXPECT_EQ(count_of(bars, "class=\"whisker\""), 1u);  // p2 has no interval
  EXPECT_EQ(bars.find("http"), std::string::npos);
}

TEST(EscapeHtml, MarkupQuotesControlsAndInvalidUtf8) {
  EXPECT_EQ(escape_html("<a href='x'>&\"</a>"), "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
  EXPECT_EQ(escape_html("line\nnext\ttab"), "line\nnext\ttab");
  EXPECT_EQ(escape_html(std::string("a\x01z", 3)), "a\xEF\xBF\xBDz");
  EXPECT_EQ(escape_html("\xC3\xA9t\xC3\xA9"), "\xC3\xA9t\xC3\xA9");  // valid UTF-8 kept
  EXPECT_EQ(escape_html("\xFF<"), "\xEF\xBF\xBD&lt;");               // invalid byte replaced
  EXPECT_EQ(escape_html("\xC0\xBC"), "\xEF\xBF\xBD\xEF\xBF\xBD");    // overlong '<'
}

TEST(FormatNumber, FourDigitsGroupedThousandsAndNa) {
  EXPECT_EQ(format_number(std::nan("")), "n/a");
  EXPECT_EQ(format_number(0), "0");
  EXPECT_EQ(format_number(0.39654), "0.3965");
  EXPECT_EQ(format_number(9999.4), "9999");
  EXPECT_EQ(format_number(90856.4),
            "90\xE2\x80\x89"
            "856");
  EXPECT_EQ(format_number(-1234567),
            "-1\xE2\x80\x89"
            "234\xE2\x80\x89"
            "567");
  EXPECT_EQ(format_number(3.161e-4), "3.161e-04");
}

TEST(DisplayUnit, DurationsInMinutesHoursOrDaysWhenLarge) {
  EXPECT_EQ(display_unit("s", 90).name, "s");
  EXPECT_EQ(display_unit("s", 80000).name, "h");
  EXPECT_EQ(display_unit("s", 80000).scale, 3600);
  EXPECT_EQ(display_unit("s", 3 * 86400).name, "d");
  EXPECT_EQ(display_unit("s", 300).name, "min");
  EXPECT_EQ(display_unit("USD", 1e9).name, "USD");
  EXPECT_EQ(display_unit("USD", 1e9).scale, 1);
}

}  // namespace
