#include "gpucap/detail/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace gpucap::text {

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

std::vector<std::string> split(const std::string& s, char separator) {
  std::vector<std::string> parts;
  std::string current;
  for (char c : s) {
    if (c == separator) {
      parts.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  parts.push_back(current);
  return parts;
}

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string closest(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  // A typo of a key or a name is short; a long word would only cost quadratic time.
  if (word.size() > 64) return best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    if (c.size() > word.size() + best_distance || word.size() > c.size() + best_distance) continue;
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::size_t utf8_sequence_length(std::string_view s, std::size_t i, uint32_t* code_point) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  std::size_t n = 0;
  uint32_t code = 0;
  if (c < 0x80)
    n = 1, code = c;
  else if ((c & 0xE0) == 0xC0)
    n = 2, code = c & 0x1F;
  else if ((c & 0xF0) == 0xE0)
    n = 3, code = c & 0x0F;
  else if ((c & 0xF8) == 0xF0)
    n = 4, code = c & 0x07;
  else
    return 0;
  if (n > s.size() - i) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  // No overlong forms, no surrogates, nothing above U+10FFFF.
  if ((n == 2 && code < 0x80) || (n == 3 && code < 0x800) || (n == 4 && code < 0x10000) ||
      (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF)
    return 0;
  if (code_point) *code_point = code;
  return n;
}

bool is_bidi_control(uint32_t code) {
  return code == 0x061C || code == 0x200E || code == 0x200F || (code >= 0x202A && code <= 0x202E) ||
         (code >= 0x2066 && code <= 0x2069);
}

std::size_t first_invalid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    // ASCII runs, the common case, a byte at a time without decoding.
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence_length(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string::npos;
}

std::string excerpt(const std::string& s, std::size_t max_bytes) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size() && out.size() < max_bytes) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    char escaped[16];
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    } else if (c < 0x80) {
      out += static_cast<char>(c);
    } else {
      uint32_t code = 0;
      const std::size_t n = utf8_sequence_length(s, i, &code);
      if (n == 0) {
        std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
        out += escaped;
      } else {
        if ((code >= 0x80 && code <= 0x9F) || is_bidi_control(code)) {  // C1 control, bidi
          std::snprintf(escaped, sizeof escaped, "\\u{%04X}", static_cast<unsigned>(code));
          out += escaped;
        } else {
          out.append(s, i, n);
        }
        i += n;
        continue;
      }
    }
    ++i;
  }
  // Only whole sequences were appended, so the cut falls on a character boundary.
  if (i < s.size()) out += "... (" + std::to_string(s.size()) + " bytes in all)";
  return out;
}

std::string excerpt_list(const std::vector<std::string>& items, std::size_t item_bytes,
                         std::size_t max_bytes, const std::string& noun) {
  std::string shown;
  std::size_t i = 0;
  for (; i < items.size() && shown.size() < max_bytes; ++i)
    shown += (i ? ", " : "") + excerpt(items[i], item_bytes);
  if (i < items.size()) shown += ", ... (" + std::to_string(items.size()) + " " + noun + " in all)";
  return shown;
}

std::vector<std::string> split_outside_brackets(const std::string& s, char separator) {
  std::vector<std::string> parts;
  std::string part;
  int depth = 0;
  char quote = 0;
  for (const char ch : s) {
    if (quote) {
      if (ch == quote) quote = 0;
    } else if (ch == '"' || ch == '\'') {
      quote = ch;
    } else if (ch == '[' || ch == '{') {
      ++depth;
    } else if (ch == ']' || ch == '}') {
      --depth;
    } else if (ch == separator && depth == 0) {
      parts.push_back(part);
      part.clear();
      continue;
    }
    part += ch;
  }
  if (quote || depth != 0) throw std::invalid_argument("unbalanced quotes or brackets");
  parts.push_back(part);
  return parts;
}

std::string format_table_value(double v) {
  char buffer[32];
  if (std::isnan(v)) return "n/a";
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e12 || a < 1e-3)
    std::snprintf(buffer, sizeof buffer, "%.3e", v);
  else if (a >= 1e4)
    std::snprintf(buffer, sizeof buffer, "%.0f", v);
  else
    std::snprintf(buffer, sizeof buffer, "%.4g", v);
  return buffer;
}

std::string format_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

std::string format_duration(double seconds) {
  struct Unit {
    const char* name;
    double size;
  };
  static const Unit units[] = {{"d", 86400}, {"h", 3600}, {"min", 60}, {"s", 1}, {"ms", 1e-3}};
  char buffer[64];
  for (const Unit& u : units) {
    if (seconds >= u.size || u.size == 1e-3) {
      std::snprintf(buffer, sizeof buffer, "%g %s", seconds / u.size, u.name);
      return buffer;
    }
  }
  std::snprintf(buffer, sizeof buffer, "%g s", seconds);
  return buffer;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  char escaped[8];
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    uint32_t code = 0;
    const std::size_t n = utf8_sequence_length(s, i, &code);
    if (n == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7F) {
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else if (is_bidi_control(code) || code == 0x2028 || code == 0x2029) {
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(code));
      out += escaped;
    } else {
      out.append(s, i, n);
    }
    i += n;
  }
  return out + "\"";
}

}  // namespace gpucap::text
