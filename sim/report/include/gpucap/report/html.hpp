// gpucap report: text made safe for HTML and SVG, and numbers as the report prints them.
#pragma once
#include <string>

namespace gpucap::report {

/// `text` escaped for HTML/SVG element content and quoted attribute values: & < > " ' become
/// entities, control characters other than tab and newline become U+FFFD, and bytes that are
/// not valid UTF-8 become U+FFFD, so that a string from a results file (a scenario name, its
/// YAML, a path) can neither close an element nor open a new one.
std::string escape_html(const std::string& text);

/// A number as the report prints it: 4 significant digits, no exponent between 1e-3 and 1e12,
/// thousands separated by a thin space from 10,000 up, "n/a" for NaN.
std::string format_number(double value);

/// A readable unit for values of `unit` whose magnitude is about `typical`: durations ("s")
/// become min, h or d when they reach 2 of those; other units are kept. Values are divided by
/// `seconds_per_unit` (1 when the unit is kept).
struct DisplayUnit {
  std::string name;
  double scale = 1;  ///< shown value = value / scale
};
DisplayUnit display_unit(const std::string& unit, double typical);

}  // namespace gpucap::report
