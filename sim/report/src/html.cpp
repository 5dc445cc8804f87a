#include "gpucap/report/html.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace gpucap::report {

namespace {

/// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not one.
std::size_t utf8_sequence_length(const std::string& s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  std::size_t n;
  uint32_t code;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) {
    n = 2;
    code = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3;
    code = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4;
    code = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  // Overlong forms, surrogates and code points past U+10FFFF are not valid UTF-8.
  static const uint32_t kMinimum[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < kMinimum[n] || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) return 0;
  return n;
}

}  // namespace

std::string escape_html(const std::string& text) {
  static const char* kReplacement = "\xEF\xBF\xBD";  // U+FFFD
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const std::size_t n = utf8_sequence_length(text, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    if (n > 1) {
      out.append(text, i, n);
      i += n;
      continue;
    }
    ++i;
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      case '\t':
      case '\n':
        out += c;
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F)
          out += kReplacement;
        else
          out += c;
    }
  }
  return out;
}

std::string format_number(double value) {
  if (std::isnan(value)) return "n/a";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0) return "0";
  char buffer[64];
  const double a = std::fabs(value);
  if (a >= 1e12 || a < 1e-3) {
    std::snprintf(buffer, sizeof buffer, "%.3e", value);
    return buffer;
  }
  if (a < 1e4) {
    std::snprintf(buffer, sizeof buffer, "%.4g", value);
    return buffer;
  }
  // Whole numbers from 10,000 up, grouped by three with thin spaces (U+2009).
  std::snprintf(buffer, sizeof buffer, "%.0f", a);
  const std::string digits = buffer;
  std::string out = value < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += "\xE2\x80\x89";
    out += digits[i];
  }
  return out;
}

DisplayUnit display_unit(const std::string& unit, double typical) {
  if (unit != "s" || !std::isfinite(typical)) return {unit, 1};
  const double a = std::fabs(typical);
  if (a >= 2 * 86400) return {"d", 86400};
  if (a >= 2 * 3600) return {"h", 3600};
  if (a >= 2 * 60) return {"min", 60};
  return {"s", 1};
}

}  // namespace gpucap::report
