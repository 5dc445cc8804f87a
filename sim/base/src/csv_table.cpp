// gpucap internals: the CSV reader (see csv_table.hpp).
//
// Rules, kept from the first reader (std::getline per line, then a per-character split): a line
// ends at LF; a line of only spaces, tabs and CRs is blank and skipped; a field ends at a comma
// outside quotes; inside quotes "" is one quote and every other character is kept; outside
// quotes a quote toggles quoting and CR is dropped; fields are then trimmed of spaces, tabs, CRs
// and LFs. A field with no quote and no CR (nearly all) is read in place as a view of the text.
// Since then: a UTF-8 byte-order mark before the header is skipped; numbers are decimal only
// (parse_decimal: no hexadecimal, and a NUL byte no longer ends a cell early); a column the
// header names twice is refused when it is asked for.
#include "gpucap/csv_table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <unordered_map>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "gpucap/detail/text.hpp"
#include "gpucap/input_file.hpp"

namespace gpucap {

/// The checked structure of a table: its header and where its data rows are. No cell is kept.
struct CsvTable::Structure {
  std::vector<std::string> header;
  std::size_t rows = 0;
  std::size_t data_begin = 0;   ///< offset of the first line after the header's
  std::size_t header_line = 0;  ///< 1-based line number of the header
  /// Blank lines among the data rows, as (row index, blank lines before it in total) at each
  /// row where that total grows; line_of_row reads it. Empty when the rows are contiguous.
  std::vector<std::pair<std::size_t, std::size_t>> gaps;
  /// Each column's numbers, read in the same pass when every cell is a plain decimal number
  /// (ok); other columns are read, with their errors, when asked for. `values` holds `rows`.
  struct Numbers {
    std::unique_ptr<double[]> values;
    bool ok = true;
  };
  std::vector<Numbers> numeric;
  uint64_t bytes() const {
    uint64_t b = sizeof *this + gaps.capacity() * sizeof gaps[0];
    for (const auto& h : header) b += h.capacity() + sizeof h;
    for (const auto& column : numeric) b += column.ok ? rows * sizeof(double) : 0;
    return b;
  }
};

namespace {

std::atomic<uint64_t> g_structure_parses{0};
std::atomic<uint64_t> g_column_parses{0};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view trimmed(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

/// Columns read as numbers in the structure's pass, at most (a wide table's are read on demand).
constexpr std::size_t kMaxNumericColumns = 32;

/// Reads a whole cell as a number: true with `v` exactly as strtod reads it (correctly rounded),
/// or false where another reading is needed (a '+' sign, hex, an embedded NUL, text, a value
/// out of range, or no value at all). Plain decimals with at most 15 significant digits and 22
/// decimals take the exact fast path (an integer below 2^53 divided by a power of ten, each
/// exact in a double, so one correctly rounded division); the rest std::from_chars.
bool read_number(std::string_view cell, double& v) {
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char* p = cell.data();
  const char* const end = p + cell.size();
  const bool negative = p < end && *p == '-';
  if (negative) ++p;
  uint64_t mantissa = 0;
  int digits = 0, decimals = 0;
  const char* q = p;
  for (; q < end && *q >= '0' && *q <= '9'; ++q, ++digits)
    mantissa = mantissa * 10 + static_cast<uint64_t>(*q - '0');
  if (q < end && *q == '.') {
    for (++q; q < end && *q >= '0' && *q <= '9'; ++q, ++digits, ++decimals)
      mantissa = mantissa * 10 + static_cast<uint64_t>(*q - '0');
  }
  if (q == end && digits > 0 && digits <= 15 && decimals <= 22) {
    const double m = static_cast<double>(mantissa);  // < 10^15 < 2^53: exact
    v = decimals == 0 ? m : m / kPow10[decimals];
    if (negative) v = -v;
    return true;
  }
  const auto [stop, error] = std::from_chars(cell.data(), end, v);
  return error == std::errc() && stop == end && std::isfinite(v);
}

/// A cell that looks like a hexadecimal number ("0x10", "-0X1p4"), for the message.
bool looks_hexadecimal(std::string_view cell) {
  if (!cell.empty() && (cell[0] == '+' || cell[0] == '-')) cell.remove_prefix(1);
  return cell.size() > 1 && cell[0] == '0' && (cell[1] == 'x' || cell[1] == 'X');
}

/// The fast path of read_number for a cell read in place: when the field at `begin` of `line`
/// is exactly [-]digits[.digits] (at most 15 digits, no space, quote or CR) ending at a comma
/// or the line's end, its value (read_number's, exactly) and the field's end; else npos.
std::size_t plain_decimal(std::string_view line, std::size_t begin, double& v) {
  static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  const char* p = line.data() + begin;
  const char* const end = line.data() + line.size();
  const bool negative = p < end && *p == '-';
  if (negative) ++p;
  const char* const first = p;
  uint64_t mantissa = 0;
  for (; p < end && static_cast<unsigned char>(*p - '0') < 10; ++p)
    mantissa = mantissa * 10 + static_cast<uint64_t>(*p - '0');
  int digits = static_cast<int>(p - first), decimals = 0;
  if (p < end && *p == '.') {
    const char* const point = ++p;
    for (; p < end && static_cast<unsigned char>(*p - '0') < 10; ++p)
      mantissa = mantissa * 10 + static_cast<uint64_t>(*p - '0');
    decimals = static_cast<int>(p - point);
    digits += decimals;
  }
  if (digits == 0 || digits > 15 || (p < end && *p != ',')) return std::string_view::npos;
  const double m = static_cast<double>(mantissa);  // < 10^15 < 2^53: exact
  v = decimals == 0 ? m : m / kPow10[decimals];
  if (negative) v = -v;
  return static_cast<std::size_t>(p - line.data());
}

/// Walks the lines of a text: each call to next() gives the next line (without its LF) that is
/// not blank, with its 1-based line number.
class Lines {
 public:
  Lines(const std::string& text, std::size_t begin, std::size_t first_line)
      : Lines(text, begin, text.size(), first_line) {}
  /// The lines that start in [begin, end) (`end` just after a LF, or the text's end).
  Lines(const std::string& text, std::size_t begin, std::size_t end, std::size_t first_line)
      : data_(text.data()), size_(end), pos_(begin), line_(first_line - 1) {}

  bool next(std::string_view& line, std::size_t& number) {
    while (pos_ < size_) {
      const char* start = data_ + pos_;
      const void* lf = std::memchr(start, '\n', size_ - pos_);
      const std::size_t length =
          lf ? static_cast<std::size_t>(static_cast<const char*>(lf) - start) : size_ - pos_;
      pos_ += length + 1;
      ++line_;
      const std::string_view l(start, length);
      if (!trimmed(l).empty()) {
        line = l;
        number = line_;
        return true;
      }
    }
    return false;
  }
  std::size_t position() const { return std::min(pos_, size_); }

 private:
  const char* data_;
  std::size_t size_;
  std::size_t pos_;
  std::size_t line_;
};

/// The end of the field that starts at `begin` in `line` (a comma outside quotes, or the line's
/// end); `plain` says whether it holds no quote and no CR, so that it reads in place.
std::size_t field_end(std::string_view line, std::size_t begin, bool& plain, bool& unterminated) {
  bool quoted = false;
  plain = true;
  std::size_t i = begin;
  for (; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"')
          ++i;
        else
          quoted = false;
      }
    } else if (c == ',') {
      break;
    } else if (c == '"') {
      quoted = true;
      plain = false;
    } else if (c == '\r') {
      plain = false;
    }
  }
  unterminated = quoted;
  return i;
}

/// The value of a field that is not plain: quotes resolved, CRs outside quotes dropped.
void decode_field(std::string_view raw, std::string& out) {
  out.clear();
  bool quoted = false;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (quoted) {
      if (c == '"' && i + 1 < raw.size() && raw[i + 1] == '"') {
        out += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c != '\r') {
      out += c;
    }
  }
}

/// Counts the fields of a line, checking its quotes.
std::size_t count_fields(std::string_view line, const std::string& origin, std::size_t number) {
  std::size_t fields = 0;
  for (std::size_t begin = 0;;) {
    bool plain, unterminated;
    const std::size_t end = field_end(line, begin, plain, unterminated);
    if (unterminated)
      throw std::runtime_error(origin + ":" + std::to_string(number) +
                               ": unterminated quoted field");
    ++fields;
    if (end >= line.size()) return fields;
    begin = end + 1;
  }
}

/// Field `c` of a line, trimmed; `scratch` holds it when it is not plain.
std::string_view field_of(std::string_view line, std::size_t c, std::string& scratch) {
  std::size_t begin = 0;
  for (std::size_t k = 0;; ++k) {
    bool plain, unterminated;
    const std::size_t end = field_end(line, begin, plain, unterminated);
    if (k == c) {
      const std::string_view raw = line.substr(begin, end - begin);
      if (plain) return trimmed(raw);
      decode_field(raw, scratch);
      return trimmed(scratch);
    }
    begin = end + 1;  // the structure check guarantees field c exists
  }
}

/// One part of the data rows, checked (and its plain numbers read) by one thread. Line numbers
/// and rows are counted from the part's start; check_structure makes them absolute.
struct Part {
  std::size_t begin = 0, end = 0;  ///< bytes [begin, end) of the text, whole lines
  std::size_t lines = 0;           ///< lines in it (a last line without LF counts)
  std::size_t first_slot = 0;      ///< where its rows go in the number columns (lines before it)
  std::size_t rows = 0;
  std::vector<std::pair<std::size_t, std::size_t>> gaps;  ///< as Structure::gaps, in the part
  std::vector<char> ok;  ///< per number column: every cell plain and numeric
  // The part's first error: a quote left open, or a row of another field count (line > 0).
  std::size_t error_line = 0, error_fields = 0;
  bool unterminated = false;
  std::exception_ptr failure;  ///< anything else (out of memory)
};

/// The fast path of plain_decimal on raw text: when [p, end) starts with [-]digits[.digits]
/// (1 to 15 digits), its value (plain_decimal's, exactly) and the end of the number; else null.
/// The caller checks what follows it.
inline const char* plain_number(const char* p, const char* const end, double& v) {
  static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  const bool negative = p < end && *p == '-';
  if (negative) ++p;
  const char* const first = p;
  uint64_t mantissa = 0;
  for (; p < end && static_cast<unsigned char>(*p - '0') < 10; ++p)
    mantissa = mantissa * 10 + static_cast<uint64_t>(*p - '0');
  std::ptrdiff_t digits = p - first, decimals = 0;
  if (p < end && *p == '.') {
    const char* const point = ++p;
    for (; p < end && static_cast<unsigned char>(*p - '0') < 10; ++p)
      mantissa = mantissa * 10 + static_cast<uint64_t>(*p - '0');
    decimals = p - point;
    digits += decimals;
  }
  if (digits == 0 || digits > 15) return nullptr;
  const double m = static_cast<double>(mantissa);  // < 10^15 < 2^53: exact
  v = decimals == 0 ? m : m / kPow10[decimals];
  if (negative) v = -v;
  return p;
}

void check_part(const std::string& text, std::size_t columns, CsvTable::Structure& s, Part& part) {
  try {
    const char* const data = text.data();
    const char* const stop = data + part.end;
    const char* at = data + part.begin;
    std::size_t number = 0, previous = 0, blanks = 0;
    part.ok.assign(s.numeric.size(), 1);
    // The columns' storage, and whether every column is read as numbers so far (the fast rows).
    double* values[kMaxNumericColumns];
    for (std::size_t c = 0; c < s.numeric.size(); ++c) values[c] = s.numeric[c].values.get();
    bool all_numeric = columns > 0 && s.numeric.size() == columns;
    const auto accept = [&] {
      if (number != previous + 1) {
        blanks += number - previous - 1;
        part.gaps.emplace_back(part.rows, blanks);
      }
      previous = number;
      ++part.rows;
    };
    while (at < stop) {
      ++number;
      const std::size_t slot = part.first_slot + part.rows;
      if (all_numeric) {
        // The common row: every cell a plain decimal, ending at a comma (the last at a LF or
        // the end), read in one scan. Anything else is read again by the general path below.
        const char* p = at;
        std::size_t c = 0;
        for (;; ++c) {
          double v;
          const char* const e = plain_number(p, stop, v);
          if (e == nullptr) break;
          values[c][slot] = v;
          if (c + 1 == columns) {
            if (e == stop) {
              p = e;
              ++c;
            } else if (*e == '\n') {
              p = e + 1;
              ++c;
            }
            break;
          }
          if (e == stop || *e != ',') break;
          p = e + 1;
        }
        if (c == columns) {
          at = p;
          accept();
          continue;
        }
      }
      // A line of the general form: its end, then blank or split into fields.
      const void* lf = std::memchr(at, '\n', static_cast<std::size_t>(stop - at));
      const char* const line_end = lf ? static_cast<const char*>(lf) : stop;
      const std::string_view line(at, static_cast<std::size_t>(line_end - at));
      at = line_end + 1;
      if (trimmed(line).empty()) continue;
      std::size_t fields = 0;
      for (std::size_t begin = 0;;) {
        if (fields < part.ok.size() && part.ok[fields]) {
          // The common cell: a plain decimal ending the field, read in the same scan.
          double v;
          const std::size_t end = plain_decimal(line, begin, v);
          if (end != std::string_view::npos) {
            values[fields][slot] = v;
            ++fields;
            if (end >= line.size()) break;
            begin = end + 1;
            continue;
          }
        }
        bool plain, unterminated;
        const std::size_t end = field_end(line, begin, plain, unterminated);
        if (unterminated) {
          part.error_line = number;
          part.unterminated = true;
          return;
        }
        if (fields < part.ok.size() && part.ok[fields]) {
          double v;
          if (plain && read_number(trimmed(line.substr(begin, end - begin)), v)) {
            values[fields][slot] = v;
          } else {
            part.ok[fields] = 0;
            all_numeric = false;
          }
        }
        ++fields;
        if (end >= line.size()) break;
        begin = end + 1;
      }
      if (fields != columns) {
        part.error_line = number;
        part.error_fields = fields;
        return;
      }
      accept();
    }
  } catch (...) {
    part.failure = std::current_exception();
  }
}

/// The LFs in [p, end): 16 bytes a step with SSE2 (each step adds 1 to a byte counter per LF,
/// summed every 255 steps before a counter can overflow).
std::size_t count_line_feeds(const char* p, const char* const end) {
  std::size_t n = 0;
#if defined(__SSE2__)
  const __m128i lf = _mm_set1_epi8('\n');
  while (end - p >= 16) {
    const std::size_t steps = std::min<std::size_t>(255, static_cast<std::size_t>(end - p) / 16);
    __m128i counts = _mm_setzero_si128();
    for (std::size_t i = 0; i < steps; ++i, p += 16) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      counts = _mm_sub_epi8(counts, _mm_cmpeq_epi8(bytes, lf));  // a match is -1
    }
    const __m128i sums = _mm_sad_epu8(counts, _mm_setzero_si128());
    n += static_cast<std::size_t>(_mm_cvtsi128_si32(sums)) +
         static_cast<std::size_t>(_mm_cvtsi128_si32(_mm_unpackhi_epi64(sums, sums)));
  }
#endif
  for (; p < end; ++p) n += *p == '\n';
  return n;
}

/// Threads for a text of `bytes`: one per 4 MiB, at most the cores (8 at most; the environment
/// variable GPUCAP_PARSE_THREADS sets that cap, for benchmarks).
std::size_t threads_for(std::size_t bytes) {
  std::size_t cores = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  if (const char* env = std::getenv("GPUCAP_PARSE_THREADS"))
    cores = std::max(1l, std::min(64l, std::strtol(env, nullptr, 10)));
  return std::max<std::size_t>(1, std::min(cores, bytes / (std::size_t{4} << 20)));
}

std::shared_ptr<const CsvTable::Structure> check_structure(const std::string& text,
                                                           const std::string& origin) {
  ++g_structure_parses;
  auto s = std::make_shared<CsvTable::Structure>();
  // A UTF-8 byte-order mark (as spreadsheet programs write) is not part of the first column's
  // name.
  const bool bom = text.compare(0, 3, "\xEF\xBB\xBF") == 0;
  Lines lines(text, bom ? 3 : 0, 1);
  std::string_view line;
  std::size_t number = 0;
  std::string scratch;
  if (!lines.next(line, number))
    throw std::runtime_error(origin +
                             ":1: the file is empty; it needs a header row naming its columns");
  const std::size_t columns = count_fields(line, origin, number);
  // The names in one pass over the line (field_of per column would walk it again each time).
  s->header.reserve(columns);
  for (std::size_t begin = 0;;) {
    bool plain, unterminated;
    const std::size_t end = field_end(line, begin, plain, unterminated);
    const std::string_view raw = line.substr(begin, end - begin);
    if (plain) {
      s->header.emplace_back(trimmed(raw));
    } else {
      decode_field(raw, scratch);
      s->header.emplace_back(trimmed(scratch));
    }
    if (end >= line.size()) break;
    begin = end + 1;
  }
  s->header_line = number;
  s->data_begin = lines.position();

  // The data rows in parts of whole lines, checked in parallel; each writes its numbers into
  // its own range of the columns (sized for every line: blank lines are squeezed out after).
  const std::size_t size = text.size();
  std::vector<Part> parts(threads_for(size - s->data_begin));
  for (std::size_t k = 0, at = s->data_begin; k < parts.size(); ++k) {
    std::size_t end =
        k + 1 == parts.size()
            ? size
            : std::max(at, s->data_begin + (size - s->data_begin) * (k + 1) / parts.size());
    if (end < size) {
      const void* lf = std::memchr(text.data() + end, '\n', size - end);
      end = lf ? static_cast<std::size_t>(static_cast<const char*>(lf) - text.data()) + 1 : size;
    }
    parts[k].begin = at;
    parts[k].end = end;
    parts[k].lines = count_line_feeds(text.data() + at, text.data() + end);
    if (end == size && end > at && text[end - 1] != '\n') ++parts[k].lines;
    parts[k].first_slot = k == 0 ? 0 : parts[k - 1].first_slot + parts[k - 1].lines;
    at = end;
  }
  const std::size_t slots = parts.back().first_slot + parts.back().lines;
  s->numeric.resize(std::min(columns, kMaxNumericColumns));
  for (auto& column : s->numeric) {
    column.values.reset(new double[std::max<std::size_t>(1, slots)]);
    advise_huge_pages(column.values.get(), slots * sizeof(double));
  }
  {
    std::vector<std::thread> threads;
    for (std::size_t k = 1; k < parts.size(); ++k)
      threads.emplace_back(check_part, std::cref(text), columns, std::ref(*s), std::ref(parts[k]));
    check_part(text, columns, *s, parts[0]);
    for (auto& t : threads) t.join();
  }

  // The first error in file order, with its line number in the file.
  std::size_t lines_before = 0;
  for (const Part& part : parts) {
    if (part.failure) std::rethrow_exception(part.failure);
    if (part.error_line > 0) {
      const std::string where =
          origin + ":" + std::to_string(s->header_line + lines_before + part.error_line);
      if (part.unterminated) throw std::runtime_error(where + ": unterminated quoted field");
      throw std::runtime_error(where + ": " + std::to_string(part.error_fields) +
                               " fields, but the header has " + std::to_string(columns));
    }
    lines_before += part.lines;
  }
  // Join the parts: rows, blank-line gaps, and the numbers moved up over blank lines.
  std::size_t blanks_before = 0;
  for (const Part& part : parts) {
    if (part.rows > 0 && blanks_before > (s->gaps.empty() ? 0 : s->gaps.back().second))
      s->gaps.emplace_back(s->rows, blanks_before);
    for (const auto& [row, blanks] : part.gaps)
      s->gaps.emplace_back(s->rows + row, blanks_before + blanks);
    for (std::size_t c = 0; c < s->numeric.size(); ++c) {
      auto& column = s->numeric[c];
      column.ok = column.ok && part.ok[c];
      if (column.ok && part.first_slot != s->rows)
        std::memmove(column.values.get() + s->rows, column.values.get() + part.first_slot,
                     part.rows * sizeof(double));
    }
    s->rows += part.rows;
    blanks_before += part.lines - part.rows;
  }
  for (auto& column : s->numeric)
    if (!column.ok) column.values.reset();
  return s;
}

}  // namespace

bool parse_decimal(std::string_view cell, double& value) {
  if (read_number(cell, value)) return true;
  // What read_number leaves: a leading '+', a value out of range, or no decimal number at all.
  // Only the characters of a decimal number are read: no hexadecimal, "inf", "nan", spaces or
  // NUL bytes (std::strtod would read some of them, or stop at a NUL as if the cell ended).
  std::string_view digits = cell;
  if (!digits.empty() && digits[0] == '+') {
    digits.remove_prefix(1);
    if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) return false;
  }
  if (digits.empty()) return false;
  for (const char c : digits)
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
      return false;
  double v = 0;
  const auto [stop, error] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (stop != digits.data() + digits.size()) return false;
  if (error == std::errc::result_out_of_range) {
    // Above the largest double (refused below), or below the smallest: strtod's correctly
    // rounded subnormal or zero, as the first reader gave.
    const std::string copy(digits);
    v = std::strtod(copy.c_str(), nullptr);
  } else if (error != std::errc()) {
    return false;
  }
  if (!std::isfinite(v)) return false;
  value = v;
  return true;
}

CsvTable CsvTable::parse(const std::string& text, const std::string& origin) {
  CsvTable t;
  t.origin_ = text::excerpt(origin, 300);
  // Line breaks as a data file's (CsvTable::of): a lone CR ends a line there too, so that a
  // text parsed here and the same bytes read from a file give the same table.
  std::string own = text;
  normalize_line_breaks(own);
  t.own_text_ = std::make_shared<const std::string>(std::move(own));
  t.structure_ = check_structure(*t.own_text_, t.origin_);
  return t;
}

CsvTable CsvTable::of(const std::shared_ptr<const DataFile>& file, const std::string& origin) {
  CsvTable t;
  t.origin_ = text::excerpt(origin, 300);
  t.file_ = file;
  // A structure error is thrown again (with this origin) at each call: nothing is kept.
  t.structure_ = file->derived<Structure>(
      "csv", [&] { return check_structure(file->text(), t.origin_); },
      [](const Structure& s) { return s.bytes(); });
  return t;
}

const std::vector<std::string>& CsvTable::header() const { return structure_->header; }
std::size_t CsvTable::rows() const { return structure_->rows; }
bool CsvTable::has_column(const std::string& column) const {
  const auto& h = structure_->header;
  return std::find(h.begin(), h.end(), column) != h.end();
}

std::size_t CsvTable::line_of_row(std::size_t r) const {
  const auto& gaps = structure_->gaps;
  // The blank lines before row r: those of the last gap at or before r.
  const auto after = std::upper_bound(gaps.begin(), gaps.end(), r,
                                      [](std::size_t row, const auto& g) { return row < g.first; });
  const std::size_t blanks = after == gaps.begin() ? 0 : std::prev(after)->second;
  return structure_->header_line + 1 + r + blanks;
}

std::size_t CsvTable::column_index(const std::string& column) const {
  const auto& header = structure_->header;
  const std::string where = origin_ + ":" + std::to_string(structure_->header_line) + ": ";
  const auto found = std::find(header.begin(), header.end(), column);
  if (found != header.end()) {
    const auto again = std::find(found + 1, header.end(), column);
    if (again != header.end())
      throw std::runtime_error(where + "the header names column \"" + text::excerpt(column) +
                               "\" twice (columns " + std::to_string(found - header.begin() + 1) +
                               " and " + std::to_string(again - header.begin() + 1) +
                               "), so which one to read is ambiguous; rename one");
    return static_cast<std::size_t>(found - header.begin());
  }
  std::string message = where + "no column \"" + text::excerpt(column) + "\" in the header";
  const std::string suggestion = text::closest(column, header);
  if (!suggestion.empty()) message += " (did you mean '" + text::excerpt(suggestion) + "'?)";
  throw std::runtime_error(message + "; columns: " + text::excerpt_list(header, 60));
}

std::vector<double> CsvTable::parse_numbers(std::size_t c, const std::string& column) const {
  ++g_column_parses;
  const std::string& text = file_ ? file_->text() : *own_text_;
  std::vector<double> out;
  out.reserve(structure_->rows);
  Lines lines(text, structure_->data_begin, structure_->header_line + 1);
  std::string_view line;
  std::size_t number = 0;
  std::string scratch;
  while (lines.next(line, number)) {
    const std::string_view cell = field_of(line, c, scratch);
    double v = 0;
    if (!parse_decimal(cell, v))
      throw std::runtime_error(
          origin_ + ":" + std::to_string(number) + ": column \"" + text::excerpt(column) +
          "\" holds \"" + text::excerpt(std::string(cell)) + "\", not a number" +
          (looks_hexadecimal(cell) ? " (write it in decimal: hexadecimal is not read)" : ""));
    out.push_back(v);
  }
  return out;
}

NumberColumn CsvTable::number_column(const std::string& column) const {
  const std::size_t c = column_index(column);
  if (c < structure_->numeric.size() && structure_->numeric[c].ok)  // read with the structure
    return NumberColumn(structure_, structure_->numeric[c].values.get(), structure_->rows);
  std::shared_ptr<const std::vector<double>> values;
  if (!file_) {
    values = std::make_shared<const std::vector<double>>(parse_numbers(c, column));
  } else {
    // Kept on the file by column index: a column's numbers do not depend on its name.
    values = file_->derived<std::vector<double>>(
        "csv-numbers:" + std::to_string(c),
        [&] { return std::make_shared<const std::vector<double>>(parse_numbers(c, column)); },
        [](const std::vector<double>& v) { return v.capacity() * sizeof(double); });
  }
  return NumberColumn(values, values->data(), values->size());
}

std::vector<double> CsvTable::numbers(const std::string& column) const {
  return number_column(column).vector();
}

NumberColumn::NumberColumn(std::size_t n, double value) {
  auto values = std::make_shared<const std::vector<double>>(n, value);
  data_ = values->data();
  size_ = n;
  owner_ = std::move(values);
}

std::vector<double> NumberColumn::vector() const {
  return std::vector<double>(data_, data_ + size_);
}

std::vector<std::string> CsvTable::strings(const std::string& column) const {
  const std::size_t c = column_index(column);
  const std::string& text = file_ ? file_->text() : *own_text_;
  std::vector<std::string> out;
  out.reserve(structure_->rows);
  Lines lines(text, structure_->data_begin, structure_->header_line + 1);
  std::string_view line;
  std::size_t number = 0;
  std::string scratch;
  while (lines.next(line, number)) out.emplace_back(field_of(line, c, scratch));
  return out;
}

void CsvTable::for_each_cell(
    const std::string& column,
    const std::function<void(std::size_t row, std::string_view cell)>& visit) const {
  const std::size_t c = column_index(column);
  const std::string& text = file_ ? file_->text() : *own_text_;
  Lines lines(text, structure_->data_begin, structure_->header_line + 1);
  std::string_view line;
  std::size_t number = 0, row = 0;
  std::string scratch;
  while (lines.next(line, number)) visit(row++, field_of(line, c, scratch));
}

CsvTable::Categories CsvTable::categories(const std::string& column, std::size_t max_values) const {
  const std::size_t c = column_index(column);
  const std::string& text = file_ ? file_->text() : *own_text_;
  Categories out;
  out.codes.reserve(structure_->rows);
  std::unordered_map<std::string, uint32_t> index;
  Lines lines(text, structure_->data_begin, structure_->header_line + 1);
  std::string_view line;
  std::size_t number = 0;
  std::string scratch, key;
  while (lines.next(line, number)) {
    key.assign(field_of(line, c, scratch));  // one buffer: no allocation per row
    auto found = index.find(key);
    if (found == index.end()) {
      if (out.values.size() == max_values) {
        out.overflow_row = out.codes.size();
        return out;
      }
      found = index.emplace(key, static_cast<uint32_t>(out.values.size())).first;
      out.values.push_back(key);
    }
    out.codes.push_back(found->second);
  }
  return out;
}

uint64_t CsvTable::structure_parses() { return g_structure_parses.load(); }
uint64_t CsvTable::column_parses() { return g_column_parses.load(); }

}  // namespace gpucap
