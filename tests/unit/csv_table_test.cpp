// The CSV reader: the same tables, numbers (to the bit) and errors as the first reader (kept
// below as the reference, a std::getline and per-character split with std::strtod), on chosen
// cases and on random texts of the characters that matter; shared tables read once.
#include "gpucap/detail/csv_table.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/detail/text.hpp"

namespace {

using gpucap::detail::CsvTable;

// ---- the reference: the reader before the fast one, unchanged ------------------------------

std::vector<std::string> reference_split(const std::string& line, const std::string& where) {
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

struct ReferenceTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> cells;
  std::vector<std::size_t> lines;
};

ReferenceTable reference_parse(const std::string& text, const std::string& origin) {
  ReferenceTable t;
  std::istringstream in(text);
  std::string line;
  std::size_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (gpucap::text::trim(line).empty()) continue;
    const std::string where = origin + ":" + std::to_string(line_number);
    std::vector<std::string> fields = reference_split(line, where);
    for (auto& f : fields) f = gpucap::text::trim(f);
    if (t.header.empty()) {
      t.header = fields;
      continue;
    }
    if (fields.size() != t.header.size())
      throw std::runtime_error(where + ": " + std::to_string(fields.size()) + " fields, but the " +
                               "header has " + std::to_string(t.header.size()));
    t.cells.push_back(std::move(fields));
    t.lines.push_back(line_number);
  }
  if (t.header.empty())
    throw std::runtime_error(origin +
                             ":1: the file is empty; it needs a header row naming its columns");
  return t;
}

std::vector<double> reference_numbers(const ReferenceTable& t, std::size_t c,
                                      const std::string& origin, const std::string& column) {
  std::vector<double> out;
  for (std::size_t r = 0; r < t.cells.size(); ++r) {
    const std::string& s = t.cells[r][c];
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || !std::isfinite(v))
      throw std::runtime_error(origin + ":" + std::to_string(t.lines[r]) + ": column \"" +
                               gpucap::text::excerpt(column) + "\" holds \"" +
                               gpucap::text::excerpt(s) + "\", not a number");
    out.push_back(v);
  }
  return out;
}

/// Bits of a number, so that -0.0 and 0.0 differ.
uint64_t bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

/// Expects the fast reader to agree with the reference on `text`: the same error, or the same
/// header, rows, line numbers, strings, and numbers or number errors for every column.
void expect_same_as_reference(const std::string& text) {
  SCOPED_TRACE("text: \"" + text + "\"");
  const std::string origin = "t.csv";
  std::string expected_error, actual_error;
  ReferenceTable ref;
  try {
    ref = reference_parse(text, origin);
  } catch (const std::runtime_error& e) {
    expected_error = e.what();
  }
  std::vector<CsvTable> tables;
  try {
    tables.push_back(CsvTable::parse(text, origin));
  } catch (const std::runtime_error& e) {
    actual_error = e.what();
  }
  ASSERT_EQ(actual_error, expected_error);
  if (!expected_error.empty()) return;
  const CsvTable& t = tables[0];
  ASSERT_EQ(t.header(), ref.header);
  ASSERT_EQ(t.rows(), ref.cells.size());
  for (std::size_t r = 0; r < ref.cells.size(); ++r) EXPECT_EQ(t.line_of_row(r), ref.lines[r]);
  for (std::size_t c = 0; c < ref.header.size(); ++c) {
    const std::string& column = ref.header[c];
    // A header that names a column twice: the reader, like the reference, finds the first.
    std::size_t first = 0;
    while (ref.header[first] != column) ++first;
    if (first != c) continue;
    std::vector<std::string> ref_strings;
    for (const auto& row : ref.cells) ref_strings.push_back(row[c]);
    EXPECT_EQ(t.strings(column), ref_strings);
    std::string ref_number_error, number_error;
    std::vector<double> ref_numbers, numbers;
    try {
      ref_numbers = reference_numbers(ref, c, origin, column);
    } catch (const std::runtime_error& e) {
      ref_number_error = e.what();
    }
    try {
      numbers = t.numbers(column);
    } catch (const std::runtime_error& e) {
      number_error = e.what();
    }
    EXPECT_EQ(number_error, ref_number_error);
    ASSERT_EQ(numbers.size(), ref_numbers.size());
    for (std::size_t i = 0; i < numbers.size(); ++i)
      EXPECT_EQ(bits(numbers[i]), bits(ref_numbers[i])) << "row " << i << " of " << column;
  }
}

TEST(CsvTable, ChosenCasesReadAsTheReferenceReadsThem) {
  for (const char* text : {
           "",
           "\n\n  \t\r\n",
           "a,b\n1,2\n",
           "a,b\r\n1,2\r\n3,4",
           "a,b\n\n1,2\n   \n\n3,4\n",
           " a , b \n 1 , 2 \n",
           "a,b\n\"1\",\" 2 \"\n",
           "a,b\n\"x,y\",\"say \"\"hi\"\"\"\n",
           "a,b\n\"open,2\n",
           "a,b\n1,2,3\n",
           "a,b\n1\n",
           "a\n+5\n0x10\n1e3\n-0\n.5\n5.\n1e-400\n",
           "a\n1e400\n",
           "a\nnan\n",
           "a\ninf\n",
           "a\n\n",
           "a\n1 2\n",
           "a\n1\r2\n",
           "a\n\"1\"\r\n",
           "a\n0.1\n0.30000000000000004\n123456789012345678\n3.14159265358979323846\n",
           "a\n-\n",
           "a\n.\n",
           "a,a\n1,2\n",
           "x,y\n1,\n",
           "price\n2.5\n\"3.5\"\n",
           std::string("a\n1\0002\n", 7).c_str(),
       })
    expect_same_as_reference(text);
  expect_same_as_reference(std::string("a,b\n1\0002,3\n", 11));  // an embedded NUL
}

TEST(CsvTable, RandomTextsReadAsTheReferenceReadsThem) {
  const std::string alphabet = "0123456789.-+e,,,\"\r\n\n \tax";
  std::mt19937_64 random(13);
  for (int i = 0; i < 4000; ++i) {
    std::string text = i % 2 ? "a,b,c\n" : "";
    const std::size_t length = random() % 60;
    for (std::size_t k = 0; k < length; ++k) text += alphabet[random() % alphabet.size()];
    expect_same_as_reference(text);
    if (HasFatalFailure()) return;
  }
}

TEST(CsvTable, RandomNumbersReadToTheBit) {
  std::mt19937_64 random(7);
  std::string text = "v\n";
  char cell[64];
  for (int i = 0; i < 20000; ++i) {
    const double v = std::ldexp(static_cast<double>(random() >> 11), -static_cast<int>(random() % 80));
    const int precision = 1 + static_cast<int>(random() % 19);
    std::snprintf(cell, sizeof cell, i % 3 ? "%.*f\n" : "%.*g\n", precision % 12, v);
    text += cell;
  }
  expect_same_as_reference(text);
}

TEST(CsvTable, LargeTextsReadInPartsAsTheReferenceReadsThem) {
  // 9 MiB: checked in parts by several threads (one per 4 MiB), with blank lines and CRLF
  // anywhere (part boundaries among them), then errors late in the file.
  ASSERT_EQ(setenv("GPUCAP_PARSE_THREADS", "8", 1), 0);
  std::mt19937_64 random(3);
  std::string text = "submit_s,gpus,duration_s\n";
  char row[96];
  while (text.size() < (std::size_t{9} << 20)) {
    const int n = std::snprintf(row, sizeof row, "%.3f,%d,%.6g%s", (random() % 100000000) / 1e3,
                                1 << (random() % 5), (random() % 1000000) / 7.0,
                                random() % 5 == 0 ? "\r\n" : "\n");
    text.append(row, static_cast<std::size_t>(n));
    if (random() % 40 == 0) text += random() % 2 ? "\n" : "  \r\n";
  }
  expect_same_as_reference(text);
  expect_same_as_reference(text + "\n\n\n");
  std::string late_error = text;
  late_error.insert(late_error.size() - 40, "\n1,2\n");
  expect_same_as_reference(late_error);
  std::string late_text = text;
  late_text.insert(late_text.size() / 3 * 2, "\nx,1,2\n");
  expect_same_as_reference(late_text);
  std::string late_quote = text;
  late_quote.insert(late_quote.size() / 2, "\n\"1,2,3\n");
  expect_same_as_reference(late_quote);
  unsetenv("GPUCAP_PARSE_THREADS");
}

TEST(CsvTable, MessagesNameTheFileLineAndColumn) {
  try {
    CsvTable::parse("a,b\n1,2\n\n3,x\n", "trace.csv").numbers("b");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "trace.csv:4: column \"b\" holds \"x\", not a number");
  }
  try {
    CsvTable::parse("submit_s,gpus\n1,2\n", "trace.csv").numbers("gpu");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "trace.csv:1: no column \"gpu\" in the header (did you mean 'gpus'?); columns: "
                 "submit_s, gpus");
  }
}

}  // namespace
