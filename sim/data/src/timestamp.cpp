// gpucap data: timestamps (see timestamp.hpp).
#include "gpucap/data/timestamp.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "gpucap/detail/text.hpp"

namespace gpucap::data {
namespace {

/// Largest epoch time accepted: 9999-12-31T23:59:59Z, in seconds.
constexpr double kMaxEpochSeconds = 253402300799.0;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// Reads exactly `n` digits at s[i]; advances i.
bool digits(std::string_view s, std::size_t& i, std::size_t n, int& value) {
  if (i + n > s.size()) return false;
  value = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (!is_digit(s[i + k])) return false;
    value = value * 10 + (s[i + k] - '0');
  }
  i += n;
  return true;
}

bool is_absent(std::string_view s) {
  if (s.empty()) return true;
  for (const char* word : {"Unknown", "unknown", "UNKNOWN", "None", "none", "NONE", "null", "NULL",
                           "N/A", "n/a", "NA", "NaN", "nan", "NaT"})
    if (s == word) return true;
  return false;
}

bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned days_in_month(int64_t y, unsigned m) {
  static const unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : days[m - 1];
}

/// A plain non-negative decimal number (no sign, no exponent) as a double.
bool plain_number(std::string_view s, double& value) {
  if (s.empty()) return false;
  bool dot = false, digit = false;
  for (char c : s) {
    if (c == '.' && !dot)
      dot = true;
    else if (is_digit(c))
      digit = true;
    else
      return false;
  }
  if (!digit) return false;
  const auto result = std::from_chars(s.data(), s.data() + s.size(), value);
  return result.ec == std::errc() && result.ptr == s.data() + s.size() && std::isfinite(value);
}

/// An offset "Z", "+HH", "+HHMM", "+HH:MM" (or '-') filling all of s.
bool parse_offset(std::string_view s, int& minutes) {
  if (s == "Z" || s == "z") {
    minutes = 0;
    return true;
  }
  if (s.size() < 2 || (s[0] != '+' && s[0] != '-')) return false;
  std::size_t i = 1;
  int hours = 0, mins = 0;
  // One or two digits of hours (+2, +02), then optionally minutes (+0200, +02:00).
  if (!digits(s, i, 2, hours)) {
    i = 1;
    if (!digits(s, i, 1, hours) || i != s.size()) return false;
  }
  if (i < s.size() && s[i] == ':') ++i;
  if (i < s.size() && !digits(s, i, 2, mins)) return false;
  if (i != s.size() || hours > 18 || mins > 59) return false;
  minutes = (hours * 60 + mins) * (s[0] == '-' ? -1 : 1);
  return true;
}

TimeParse parse_iso(std::string_view s, TimeZone zone, int64_t& ms) {
  std::size_t i = 0;
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!digits(s, i, 4, year) || i >= s.size() || s[i++] != '-' || !digits(s, i, 2, month) ||
      i >= s.size() || s[i++] != '-' || !digits(s, i, 2, day))
    return TimeParse::malformed;
  int64_t millis = 0;
  if (i < s.size() && (s[i] == 'T' || s[i] == 't' || s[i] == ' ')) {
    ++i;
    if (!digits(s, i, 2, hour) || i >= s.size() || s[i++] != ':' || !digits(s, i, 2, minute))
      return TimeParse::malformed;
    if (i < s.size() && s[i] == ':') {
      ++i;
      if (!digits(s, i, 2, second)) return TimeParse::malformed;
      if (i < s.size() && (s[i] == '.' || s[i] == ',')) {
        ++i;
        // Milliseconds from the first three digits, rounded by the fourth; at most 9 digits.
        std::size_t n = 0;
        int64_t scaled = 0;
        while (i < s.size() && is_digit(s[i])) {
          if (n < 4) scaled = scaled * 10 + (s[i] - '0');
          ++n, ++i;
        }
        if (n == 0 || n > 9) return TimeParse::malformed;
        for (std::size_t k = n; k < 4; ++k) scaled *= 10;
        millis = (scaled + 5) / 10;
      }
    }
  }
  int offset = zone.offset_minutes;
  if (i < s.size() && !parse_offset(s.substr(i), offset)) return TimeParse::malformed;
  if (year < 1000 || month < 1 || month > 12 || day < 1 ||
      static_cast<unsigned>(day) > days_in_month(year, static_cast<unsigned>(month)) || hour > 23 ||
      minute > 59 || second > 60)
    return TimeParse::malformed;
  const int64_t days =
      days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  const int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset * 60;
  ms = seconds * 1000 + millis;
  return TimeParse::ok;
}

}  // namespace

int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  // Howard Hinnant's algorithm: exact for every proleptic Gregorian date.
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

std::string format_utc(int64_t ms) {
  int64_t seconds = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
  const int64_t millis = ms - seconds * 1000;
  int64_t days = seconds >= 0 ? seconds / 86400 : -((-seconds + 86399) / 86400);
  const int64_t rest = seconds - days * 86400;
  // civil_from_days (Hinnant).
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400 + (m <= 2);
  char text[64];
  std::snprintf(text, sizeof text, "%04lld-%02u-%02uT%02lld:%02lld:%02lld",
                static_cast<long long>(y), m, d, static_cast<long long>(rest / 3600),
                static_cast<long long>(rest / 60 % 60), static_cast<long long>(rest % 60));
  std::string out = text;
  if (millis != 0) {
    std::snprintf(text, sizeof text, ".%03lld", static_cast<long long>(millis));
    out += text;
  }
  return out + "Z";
}

TimeFormat parse_time_format(const std::string& text) {
  if (text == "auto") return TimeFormat::automatic;
  if (text == "epoch" || text == "epoch_s") return TimeFormat::epoch_seconds;
  if (text == "epoch_ms") return TimeFormat::epoch_millis;
  if (text == "iso") return TimeFormat::iso8601;
  if (text == "seconds" || text == "s") return TimeFormat::relative_seconds;
  if (text == "ms") return TimeFormat::relative_millis;
  throw std::invalid_argument("unknown time format '" + gpucap::text::excerpt(text) +
                              "'; valid: auto (epoch seconds or ISO 8601), epoch (seconds since "
                              "1970-01-01 UTC), epoch_ms (milliseconds), iso (ISO 8601), "
                              "seconds or ms (since the log's start)");
}

std::string time_format_text(TimeFormat f) {
  switch (f) {
    case TimeFormat::epoch_seconds:
      return "epoch seconds (--time-format epoch)";
    case TimeFormat::epoch_millis:
      return "epoch milliseconds (--time-format epoch_ms)";
    case TimeFormat::iso8601:
      return "ISO 8601 (--time-format iso)";
    case TimeFormat::relative_seconds:
      return "seconds since the log's start (--time-format seconds)";
    case TimeFormat::relative_millis:
      return "milliseconds since the log's start (--time-format ms)";
    default:
      return "epoch seconds or ISO 8601 (--time-format auto)";
  }
}

TimeZone parse_time_zone(const std::string& text) {
  std::string_view s = text;
  if (s == "UTC" || s == "utc" || s == "GMT" || s == "Z") return {};
  if (s.substr(0, 3) == "UTC" || s.substr(0, 3) == "GMT") s.remove_prefix(3);
  int minutes = 0;
  if (s != "Z" && parse_offset(s, minutes)) return {minutes};
  throw std::invalid_argument(
      "unknown time zone '" + gpucap::text::excerpt(text) +
      "'; give UTC or a fixed offset such as +02:00, -05:30, +0530 or +2 (IANA names such as "
      "Europe/Berlin are not accepted: their offset changes with daylight saving time; give the "
      "offset in force during the log)");
}

TimeParse parse_timestamp(std::string_view text, TimeFormat format, TimeZone zone, int64_t& ms) {
  if (is_absent(text)) return TimeParse::absent;
  if (format == TimeFormat::iso8601) return parse_iso(text, zone, ms);
  double value = 0;
  const bool number = plain_number(text, value);
  if (format == TimeFormat::automatic && !number) return parse_iso(text, zone, ms);
  if (!number) return TimeParse::malformed;
  const bool millis = format == TimeFormat::epoch_millis || format == TimeFormat::relative_millis;
  const double seconds = millis ? value / 1000.0 : value;
  if (!(seconds <= kMaxEpochSeconds)) return TimeParse::malformed;
  ms = static_cast<int64_t>(std::llround(seconds * 1000.0));
  return TimeParse::ok;
}

bool parse_clock_duration(std::string_view s, int64_t& ms) {
  double plain = 0;
  if (plain_number(s, plain)) {
    if (!(plain <= kMaxEpochSeconds)) return false;
    ms = static_cast<int64_t>(std::llround(plain * 1000.0));
    return true;
  }
  int64_t days = 0;
  const std::size_t dash = s.find('-');
  if (dash != std::string_view::npos) {
    const auto r = std::from_chars(s.data(), s.data() + dash, days);
    if (r.ec != std::errc() || r.ptr != s.data() + dash || days < 0 || days > 3000000) return false;
    s.remove_prefix(dash + 1);
  }
  // Up to three clock parts: [HH:]MM:SS[.fff]
  int64_t parts[3] = {0, 0, 0};
  int count = 0;
  double seconds = 0;
  while (true) {
    const std::size_t colon = s.find(':');
    if (colon == std::string_view::npos) {
      if (!plain_number(s, seconds) || seconds >= 60) return false;
      break;
    }
    if (count == 2) return false;
    const auto r = std::from_chars(s.data(), s.data() + colon, parts[count]);
    if (r.ec != std::errc() || r.ptr != s.data() + colon || parts[count] < 0) return false;
    ++count;
    s.remove_prefix(colon + 1);
  }
  if (count == 0 && dash == std::string_view::npos) return false;
  const int64_t hours = count == 2 ? parts[0] : 0;
  const int64_t minutes = count == 2 ? parts[1] : parts[0];
  if (minutes > 59 || (count == 2 && dash != std::string_view::npos && hours > 23)) return false;
  if (hours > 1000000) return false;
  ms = ((days * 24 + hours) * 60 + minutes) * 60000 + std::llround(seconds * 1000.0);
  return true;
}

}  // namespace gpucap::data
