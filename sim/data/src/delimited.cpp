// gpucap data: delimited fields (see delimited.hpp).
#include "gpucap/data/delimited.hpp"

#include <cstdint>

#include "gpucap/detail/text.hpp"

namespace gpucap::data {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

bool split_fields(std::string_view line, char separator, bool quotes,
                  std::vector<std::string_view>& fields, std::vector<std::string>& scratch) {
  fields.clear();
  scratch.clear();
  // Views into scratch must survive its growth: reserve one slot per possible quoted field.
  std::size_t quoted_fields = 0;
  if (quotes)
    for (char c : line) quoted_fields += c == '"';
  scratch.reserve(quoted_fields / 2 + 1);
  std::size_t i = 0;
  for (;;) {
    // Skip leading blanks to see whether the field is quoted.
    std::size_t j = i;
    while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) ++j;
    if (quotes && j < line.size() && line[j] == '"') {
      std::string value;
      std::size_t k = j + 1;
      bool closed = false;
      while (k < line.size()) {
        if (line[k] == '"') {
          if (k + 1 < line.size() && line[k + 1] == '"') {
            value += '"';
            k += 2;
            continue;
          }
          closed = true;
          ++k;
          break;
        }
        value += line[k++];
      }
      scratch.push_back(std::move(value));
      fields.push_back(scratch.back());
      if (!closed) return false;
      // Anything between the closing quote and the separator must be blank.
      while (k < line.size() && line[k] != separator) {
        if (line[k] != ' ' && line[k] != '\t') return false;
        ++k;
      }
      if (k >= line.size()) return true;
      i = k + 1;
      continue;
    }
    const std::size_t stop = line.find(separator, i);
    if (stop == std::string_view::npos) {
      fields.push_back(trim(line.substr(i)));
      return true;
    }
    fields.push_back(trim(line.substr(i, stop - i)));
    i = stop + 1;
  }
}

bool is_valid_utf8(std::string_view s) { return text::first_invalid_utf8(s) == std::string::npos; }

std::string csv_field(std::string_view value) {
  std::string clean;
  clean.reserve(value.size());
  bool needs_quotes = !value.empty() && (value.front() == ' ' || value.back() == ' ');
  for (std::size_t i = 0; i < value.size();) {
    const std::size_t n = text::utf8_sequence_length(value, i);
    const unsigned char c = static_cast<unsigned char>(value[i]);
    if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7F))) {
      clean += '?';
      ++i;
      continue;
    }
    if (c == ',' || c == '"') needs_quotes = true;
    if (c == '"') clean += '"';
    clean.append(value.substr(i, n));
    i += n;
  }
  return needs_quotes ? "\"" + clean + "\"" : clean;
}

namespace {}  // namespace

namespace {

/// [+-]digits[.digits]: a number, not a formula.
bool is_signed_plain_number(std::string_view value) {
  std::size_t i = 1, digits = 0;
  while (i < value.size() && value[i] >= '0' && value[i] <= '9') ++i, ++digits;
  if (i < value.size() && value[i] == '.') {
    ++i;
    while (i < value.size() && value[i] >= '0' && value[i] <= '9') ++i, ++digits;
  }
  return digits > 0 && i == value.size();
}

}  // namespace

std::string csv_text_field(std::string_view value, TextRepairs* repairs) {
  // One pass: printable ASCII (nearly all text) is copied as it is; the rest decoded.
  TextRepairs done;
  std::string clean;
  clean.reserve(value.size() + 3);
  clean += '"';  // dropped below when no quotes are needed
  bool needs_quotes = !value.empty() && (value.front() == ' ' || value.back() == ' ');
  const char first = value.empty() ? '\0' : value.front();
  if (first == '=' || first == '@' ||
      ((first == '+' || first == '-') && value.size() > 1 && !is_signed_plain_number(value))) {
    clean += '\'';
    done.formula = true;
  }
  for (std::size_t i = 0; i < value.size();) {
    const unsigned char c = static_cast<unsigned char>(value[i]);
    if (c >= 0x20 && c < 0x7F) {
      if (c == ',' || c == '"') needs_quotes = true;
      if (c == '"') clean += '"';
      clean += static_cast<char>(c);
      ++i;
      continue;
    }
    uint32_t code = 0;
    const std::size_t n = text::utf8_sequence_length(value, i, &code);
    if (n == 0 || n == 1) {  // not UTF-8, or a control character
      clean += '?';
      done.replaced = true;
      ++i;
    } else if (text::is_bidi_control(code)) {
      clean += '?';
      done.replaced = true;
      i += n;
    } else {
      clean.append(value.data() + i, n);
      i += n;
    }
  }
  if (repairs != nullptr) *repairs = done;
  if (needs_quotes) return clean += '"';
  return clean.substr(1);
}

int column_of(const std::vector<std::string>& header, std::string_view name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return static_cast<int>(i);
  return -1;
}

}  // namespace gpucap::data
