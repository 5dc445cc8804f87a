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

std::string excerpt(const std::string& s, std::size_t max_bytes) {
  std::string out;
  std::size_t i = 0;
  for (; i < s.size() && out.size() < max_bytes; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (i < s.size()) {
    // Do not end inside a UTF-8 sequence: drop continuation bytes and their lead byte.
    while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
    if (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0xC0) out.pop_back();
    out += "... (" + std::to_string(s.size()) + " bytes in all)";
  }
  return out;
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

}  // namespace gpucap::text
