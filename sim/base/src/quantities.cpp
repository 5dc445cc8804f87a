// gpucap: seeds and durations written as text (see quantities.hpp).
#include "gpucap/quantities.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <utility>
#include <vector>

#include "gpucap/detail/text.hpp"

namespace gpucap {

uint64_t parse_seed(const std::string& text_in) {
  const std::string t = text::trim(text_in);
  const std::string valid = "a whole number from 0 to 18446744073709551615 (2^64 - 1)";
  // strtoull accepts "-1" (as 2^64 - 1) and clamps on overflow: only plain digits pass here.
  if (t.empty() || t.size() > 20 || t.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument("\"" + text::excerpt(text_in) + "\" is not " + valid);
  errno = 0;
  const unsigned long long v = std::strtoull(t.c_str(), nullptr, 10);
  if (errno == ERANGE)
    throw std::invalid_argument("\"" + text::excerpt(text_in) + "\" is not " + valid);
  return static_cast<uint64_t>(v);
}

double parse_duration_s(const std::string& text_in) {
  const std::string t = text::trim(text_in);
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  const std::string valid =
      "a duration: a number of seconds, or a number with a unit us, ms, s, min, h, d or w "
      "(e.g. 90s, 30min, 12h)";
  if (t.empty() || end == t.c_str() || !std::isfinite(v))
    throw std::invalid_argument("\"" + text::excerpt(text_in) + "\" is not " + valid);
  const std::string unit = text::trim(std::string(end));
  static const std::vector<std::pair<std::string, double>> units = {
      {"", 1.0},        {"us", 1e-6},      {"ms", 1e-3},   {"s", 1.0},     {"sec", 1.0},
      {"min", 60.0},    {"m", 60.0},       {"h", 3600.0},  {"hr", 3600.0}, {"d", 86400.0},
      {"day", 86400.0}, {"days", 86400.0}, {"w", 604800.0}};
  for (const auto& [name, factor] : units)
    if (unit == name) return v * factor;
  throw std::invalid_argument("\"" + text::excerpt(text_in) + "\" has an unknown unit \"" +
                              text::excerpt(unit, 20) + "\"; " + valid);
}

}  // namespace gpucap
