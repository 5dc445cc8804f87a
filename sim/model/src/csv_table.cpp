#include "gpucap/detail/csv_table.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "gpucap/detail/text.hpp"

namespace gpucap::detail {
namespace {

std::vector<std::string> split_record(const std::string& line, const std::string& where) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(field);
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  if (quoted) throw std::runtime_error(where + ": unterminated quoted field");
  fields.push_back(field);
  return fields;
}

}  // namespace

CsvTable CsvTable::parse(const std::string& text, const std::string& origin) {
  CsvTable t;
  t.origin_ = origin;
  std::istringstream in(text);
  std::string line;
  std::size_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (text::trim(line).empty()) continue;
    const std::string where = origin + ":" + std::to_string(line_number);
    std::vector<std::string> fields = split_record(line, where);
    for (auto& f : fields) f = text::trim(f);
    if (t.header_.empty()) {
      t.header_ = fields;
      continue;
    }
    if (fields.size() != t.header_.size())
      throw std::runtime_error(where + ": " + std::to_string(fields.size()) + " fields, but the " +
                               "header has " + std::to_string(t.header_.size()));
    t.cells_.push_back(std::move(fields));
    t.line_of_row_.push_back(line_number);
  }
  if (t.header_.empty())
    throw std::runtime_error(origin +
                             ":1: the file is empty; it needs a header row naming its columns");
  return t;
}

std::size_t CsvTable::column_index(const std::string& column) const {
  for (std::size_t i = 0; i < header_.size(); ++i)
    if (header_[i] == column) return i;
  std::string message = origin_ + ":1: no column \"" + text::excerpt(column) + "\" in the header";
  const std::string suggestion = text::closest(column, header_);
  if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
  throw std::runtime_error(message + "; columns: " + text::excerpt(text::join(header_, ", "), 400));
}

std::vector<double> CsvTable::numbers(const std::string& column) const {
  const std::size_t c = column_index(column);
  std::vector<double> out;
  out.reserve(cells_.size());
  for (std::size_t r = 0; r < cells_.size(); ++r) {
    const std::string& s = cells_[r][c];
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || !std::isfinite(v))
      throw std::runtime_error(origin_ + ":" + std::to_string(line_of_row_[r]) + ": column \"" +
                               text::excerpt(column) + "\" holds \"" + text::excerpt(s) +
                               "\", not a number");
    out.push_back(v);
  }
  return out;
}

std::vector<std::string> CsvTable::strings(const std::string& column) const {
  const std::size_t c = column_index(column);
  std::vector<std::string> out;
  out.reserve(cells_.size());
  for (const auto& row : cells_) out.push_back(row[c]);
  return out;
}

}  // namespace gpucap::detail
