// gpucap internals: a small reader for comma-separated tables with a header row.
//
// Handles quoted fields ("a,b"), CRLF line ends and blank lines. Errors (std::runtime_error) name
// the file, the line and the column.
#pragma once
#include <string>
#include <vector>

namespace gpucap::detail {

class CsvTable {
 public:
  /// Parses `text` (read with read_input_file); `origin` names it in messages. Throws
  /// std::runtime_error when rows are ragged or a quote is not closed.
  static CsvTable parse(const std::string& text, const std::string& origin);

  const std::vector<std::string>& header() const { return header_; }
  std::size_t rows() const { return cells_.size(); }

  /// The column as numbers; an empty or non-numeric cell is an error naming file:line.
  std::vector<double> numbers(const std::string& column) const;
  /// The column as text, cells as written (trimmed).
  std::vector<std::string> strings(const std::string& column) const;
  /// 1-based line number of data row r, for messages.
  std::size_t line_of_row(std::size_t r) const { return line_of_row_[r]; }
  const std::string& origin() const { return origin_; }

 private:
  std::size_t column_index(const std::string& column) const;

  std::string origin_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> cells_;
  std::vector<std::size_t> line_of_row_;  ///< 1-based line number of each data row
};

}  // namespace gpucap::detail
