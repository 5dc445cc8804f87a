// gpucap: a fast reader for comma-separated tables with a header row.
//
// Handles quoted fields ("a,b", "" for a quote inside quotes), CRLF line ends, blank lines,
// spaces around fields (trimmed) and a UTF-8 byte-order mark before the header (skipped).
// Numbers are decimal (parse_decimal). Errors (std::runtime_error) name the file (escaped and
// cut, as text::excerpt does), the line and the column; asking for a column that the header
// names twice is an error.
//
// Cheap to build and to share: parsing checks the structure (every row has the header's field
// count, every quote is closed) and keeps no cell; a column is read from the text when asked for,
// numbers with std::from_chars. Built from a DataFile (CsvTable::of), the check and each number
// column are made once per file and process and kept on the file (DataFile::derived), so every
// sweep point and every load of the scenario shares them.
//
//   auto file = gpucap::read_data_file("trace.csv", limits.data_bytes, "data file",
//   "--max-data-size"); const auto table = gpucap::CsvTable::of(file, "trace.csv");
//   std::vector<double> submit = table.numbers("submit_s");
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpucap/data_file.hpp"

namespace gpucap {

/// A column of numbers shared with the table (and its file's cache) rather than copied:
/// read-only, kept alive by the owner it holds.
class NumberColumn {
 public:
  NumberColumn() = default;
  NumberColumn(std::shared_ptr<const void> owner, const double* data, std::size_t size)
      : owner_(std::move(owner)), data_(data), size_(size) {}
  /// `n` copies of `value` (a column a file does not have, e.g. one GPU per request).
  NumberColumn(std::size_t n, double value);
  std::size_t size() const { return size_; }
  double operator[](std::size_t i) const { return data_[i]; }
  /// A copy as a vector.
  std::vector<double> vector() const;

 private:
  std::shared_ptr<const void> owner_;
  const double* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Reads a whole cell as a decimal number: an optional sign ('+' or '-'), digits with an
/// optional point, an optional exponent ("12", "+1.5", "-.5", "2.", "1e-3"), finite after
/// rounding; a value below the smallest double reads as it rounds (a subnormal or 0). False for
/// anything else: empty, hexadecimal ("0x10"), "inf", "nan", a unit, spaces or a NUL byte.
bool parse_decimal(std::string_view cell, double& value);

class CsvTable {
 public:
  /// Parses `text` (read with read_input_file), its line breaks normalized as a data file's
  /// (a lone CR ends a line); `origin` names it in messages. Throws std::runtime_error when
  /// rows are ragged or a quote is not closed.
  static CsvTable parse(const std::string& text, const std::string& origin);
  /// The table of a shared data file: its structure is checked once per file (later calls with
  /// the same file reuse it), and so is each number column. `origin` names it in messages.
  static CsvTable of(const std::shared_ptr<const DataFile>& file, const std::string& origin);

  const std::vector<std::string>& header() const;
  /// Whether the header names `column`.
  bool has_column(const std::string& column) const;
  std::size_t rows() const;

  /// The column as numbers; an empty or non-numeric cell is an error naming file:line.
  std::vector<double> numbers(const std::string& column) const;
  /// The same, shared with the file's cache rather than copied.
  NumberColumn number_column(const std::string& column) const;
  /// The column as text, cells as written (trimmed).
  std::vector<std::string> strings(const std::string& column) const;
  /// Calls visit(row, cell) for each data row's cell of the column in order (row 0 = the first
  /// data row; cell as strings() gives it, valid during the call only): a column read without a
  /// string per row.
  void for_each_cell(const std::string& column,
                     const std::function<void(std::size_t row, std::string_view cell)>& visit) const;
  /// A column of few distinct values (classes, names) without a string per row.
  struct Categories {
    std::vector<std::string> values;  ///< each distinct cell (as strings() gives it), by first row
    std::vector<uint32_t> codes;      ///< per row, the index of its cell in `values`
    /// When the column has more than the `max_values` asked for: the data row of the first
    /// cell beyond them (`codes` then stops there); else SIZE_MAX.
    std::size_t overflow_row = SIZE_MAX;
  };
  /// The column as categories, reading at most `max_values` (< 2^32) distinct cells, so that a
  /// column of unique ids costs no more than that many strings.
  Categories categories(const std::string& column, std::size_t max_values) const;
  /// 1-based line number of data row r, for messages.
  std::size_t line_of_row(std::size_t r) const;
  /// The file's name for messages: `origin` escaped and cut (text::excerpt, 300 bytes).
  const std::string& origin() const { return origin_; }

  /// How many times a text was checked (parse, or `of` with a file not checked before), and
  /// number columns read, in this process: tests use them to see that a file is parsed once.
  static uint64_t structure_parses();
  static uint64_t column_parses();

  struct Structure;  ///< what the check found (private to csv_table.cpp)

 private:
  std::size_t column_index(const std::string& column) const;
  std::vector<double> parse_numbers(std::size_t c, const std::string& column) const;

  std::string origin_;
  std::shared_ptr<const DataFile> file_;         ///< the shared file, when built by `of`
  std::shared_ptr<const std::string> own_text_;  ///< the text, when built by `parse`
  /// The structure; its `numeric` columns are shared with NumberColumns through this pointer.
  std::shared_ptr<const Structure> structure_;
};

}  // namespace gpucap
