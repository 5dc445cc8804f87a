// The CSV reader: the same tables, numbers (to the bit) and errors as the first reader (kept
// below as the reference, a std::getline and per-character split with std::strtod), on chosen
// cases and on random texts of the characters that matter; shared tables read once.
#include "gpucap/csv_table.hpp"
#include "gpucap/input_file.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <gtest/gtest.h>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/detail/text.hpp"

namespace {

using gpucap::CsvTable;

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
  std::size_t header_line = 0;
};

ReferenceTable reference_parse(const std::string& text, const std::string& origin) {
  ReferenceTable t;
  // Since issue 26: a UTF-8 byte-order mark before the header is skipped.
  std::istringstream in(text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? text.substr(3) : text);
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
      t.header_line = line_number;
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
    // Since issue 26: decimal numbers only (no hexadecimal, no "infinity"), and a NUL byte does
    // not end the cell.
    const bool decimal = s.find_first_not_of("0123456789.eE+-") == std::string::npos &&
                         s.compare(0, 2, "+-") != 0 && s.compare(0, 2, "++") != 0;
    if (s.empty() || end != s.data() + s.size() || !decimal || !std::isfinite(v)) {
      const std::string body = s.empty() || (s[0] != '+' && s[0] != '-') ? s : s.substr(1);
      const bool hex = body.size() > 1 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X');
      throw std::runtime_error(origin + ":" + std::to_string(t.lines[r]) + ": column \"" +
                               gpucap::text::excerpt(column) + "\" holds \"" +
                               gpucap::text::excerpt(s) + "\", not a number" +
                               (hex ? " (write it in decimal: hexadecimal is not read)" : ""));
    }
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
    // The reference reads the text as a data file holds it: a lone CR ends a line.
    std::string normalized = text;
    gpucap::normalize_line_breaks(normalized);
    ref = reference_parse(normalized, origin);
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
    // A header that names a column twice: asking for it is an error (since issue 26).
    std::size_t first = 0, second = c;
    while (ref.header[first] != column) ++first;
    if (first == c)
      for (std::size_t k = c + 1; k < ref.header.size() && second == c; ++k)
        if (ref.header[k] == column) second = k;
    if (first != c) continue;
    if (second != c) {
      const std::string expected =
          origin + ":" + std::to_string(ref.header_line) + ": the header names column \"" +
          gpucap::text::excerpt(column) + "\" twice (columns " + std::to_string(c + 1) + " and " +
          std::to_string(second + 1) + "), so which one to read is ambiguous; rename one";
      for (int kind = 0; kind < 2; ++kind) {
        try {
          if (kind == 0)
            t.strings(column);
          else
            t.numbers(column);
          ADD_FAILURE() << "no error for the twice-named column " << column;
        } catch (const std::runtime_error& e) {
          EXPECT_EQ(e.what(), expected);
        }
      }
      continue;
    }
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
           // Since issue 26: a byte-order mark, hexadecimal and other non-decimal cells.
           "\xEF\xBB\xBFsubmit_s,b\n1,2\n",
           "\xEF\xBB\xBF\n\na\n1\n",
           "\xEF\xBB\xBF",
           "a\n0X1A\n",
           "a\n-0x10\n",
           "a\n0x1p4\n",
           "a\n++5\n",
           "a\n+-5\n",
           "a\n+.5e+3\n",
           "a\ninfinity\n",
           "a\n1e-320\n",
           "b,a,a\n1,2,3\n",
       })
    expect_same_as_reference(text);
  expect_same_as_reference(std::string("a,b\n1\0002,3\n", 11));  // an embedded NUL
  expect_same_as_reference(std::string("a\n5\0\n", 5));          // a NUL after a number
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
    const double v =
        std::ldexp(static_cast<double>(random() >> 11), -static_cast<int>(random() % 80));
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

namespace {

TEST(CsvTable, ParseDecimalReadsDecimalNumbersOnly) {
  using gpucap::parse_decimal;
  double v = -1;
  EXPECT_TRUE(parse_decimal("+1.5", v));
  EXPECT_EQ(v, 1.5);
  EXPECT_TRUE(parse_decimal("1e-400", v));
  EXPECT_EQ(v, 0.0);
  for (const char* bad : {"", "0x10", "0X1p4", "-0x10", "inf", "nan", "infinity", "1e400", "++1",
                          "+-1", " 1", "1 ", "1h", "."})
    EXPECT_FALSE(parse_decimal(bad, v)) << bad;
  EXPECT_FALSE(parse_decimal(std::string_view("5\0", 2), v));
}

TEST(CsvTable, HostileNamesInMessagesAreEscapedAndCut) {
  try {
    CsvTable::parse("a\n1\n", "evil\x1b]0;title\x07.csv").numbers("b");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.find('\x1b'), std::string::npos) << message;
    EXPECT_EQ(message.find('\x07'), std::string::npos) << message;
    EXPECT_NE(message.find("evil\\x1b]0;title\\x07.csv:1: no column \"b\""), std::string::npos)
        << message;
  }
  // A header of 500,000 columns (splitting it per column was quadratic: hours), one with an
  // escape sequence: parsed in one pass, and the message stays short.
  std::string header = "\x1b[31mred";
  for (int i = 0; i < 500000; ++i) header += ",c" + std::to_string(i);
  try {
    CsvTable::parse(header + "\n", "wide.csv").numbers("submit_s");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_LT(message.size(), 700u) << message.substr(0, 1000);
    EXPECT_EQ(message.find('\x1b'), std::string::npos);
    EXPECT_NE(message.find("(500001 columns in all)"), std::string::npos) << message;
  }
}

}  // namespace

namespace {

TEST(CsvTable, CategoriesCodeEachRowAndStopAtTheLimit) {
  const CsvTable t = CsvTable::parse("team,x\nb,1\n\"a\",2\n\nb ,3\nc,4\n", "t.csv");
  CsvTable::Categories c = t.categories("team", 3);
  EXPECT_EQ(c.values, (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_EQ(c.codes, (std::vector<uint32_t>{0, 1, 0, 2}));
  EXPECT_EQ(c.overflow_row, SIZE_MAX);
  c = t.categories("team", 2);
  EXPECT_EQ(c.values, (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(c.overflow_row, 3u);
  EXPECT_EQ(t.line_of_row(c.overflow_row), 6u);
}

}  // namespace
