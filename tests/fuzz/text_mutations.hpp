// Format-independent mutations of text inputs for the deterministic fuzz drivers: numbers, lines,
// fields between separators, quotes, nesting, long tokens and raw bytes. Each mutation takes the
// text by value and returns the mutated text (the same text when it has nothing to mutate), and
// draws only from a std::mt19937_64 (whose output the C++ standard fixes, unlike the
// distributions'): the same seed gives the same cases with every compiler and standard library.
// To keep that true, every draw is a statement of its own: two draws in one expression (two
// arguments of a call, two operands of +) happen in an order the compiler chooses, and so does
// reading `text` in an argument beside std::move(text).
//
// Every mutation keeps the text under a byte budget (kMaxMutatedBytes unless given), so that a
// chain of mutations cannot grow a case without bound.
//
//   gpucap::fuzz::Random random(seed);
//   std::string text = seed_text;
//   text = gpucap::fuzz::replace_number(std::move(text), random, gpucap::fuzz::kExtremeIntegers);
//   text = gpucap::fuzz::delete_field(std::move(text), random, ',');
#pragma once
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace gpucap::fuzz {

/// The generator every mutation draws from.
using Random = std::mt19937_64;

/// Bytes a mutation lets a text grow to (1 MiB): enough for long tokens and deep nesting, small
/// enough for thousands of cases a minute.
inline constexpr std::size_t kMaxMutatedBytes = std::size_t{1} << 20;

/// A uniform index in [0, n) (0 when n is 0), from the generator's raw output.
inline std::size_t pick(Random& random, std::size_t n) {
  return n == 0 ? 0 : static_cast<std::size_t>(random() % n);
}

/// One of the values, chosen uniformly (the list must not be empty).
template <typename T>
const T& pick_from(Random& random, const std::vector<T>& values) {
  return values[pick(random, values.size())];
}

/// A half-open byte range [begin, end) of a text.
struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
};

/// Integers at the edges of every integer type and of a double's exact range (2^53), with the
/// spellings a parser might half-accept (sign, exponent, hex, separators, spaces, empty).
inline const std::vector<std::string> kExtremeIntegers{"0",
                                                       "-0",
                                                       "-1",
                                                       "1",
                                                       "+1",
                                                       "00000000000000000000001",
                                                       "127",
                                                       "128",
                                                       "255",
                                                       "256",
                                                       "32767",
                                                       "65535",
                                                       "65536",
                                                       "2147483647",
                                                       "2147483648",
                                                       "-2147483649",
                                                       "4294967295",
                                                       "4294967296",
                                                       "9007199254740991",
                                                       "9007199254740992",
                                                       "9007199254740993",
                                                       "9223372036854775807",
                                                       "9223372036854775808",
                                                       "-9223372036854775808",
                                                       "-9223372036854775809",
                                                       "18446744073709551615",
                                                       "18446744073709551616",
                                                       "99999999999999999999999999999999999999",
                                                       "1e3",
                                                       "1E308",
                                                       "0x10",
                                                       "0b1",
                                                       "1_000",
                                                       "1,000",
                                                       " 1",
                                                       "1 ",
                                                       "",
                                                       "-",
                                                       "+"};

/// Reals at the edges of a double (subnormals, overflow, not-a-number) and spellings of them.
inline const std::vector<std::string> kExtremeReals{
    "0.0",     "-0.0",     "0.5",   "1e-308",
    "5e-324",  "2.5e-324", "1e308", "1.7976931348623157e308",
    "1.8e308", "-1e308",   "1e400", "-1e400",
    "nan",     "NaN",      "-nan",  "inf",
    "-inf",    "Infinity", "1e",    "1e+",
    ".",       "1.",       ".5",    "1.0.0",
    "0x1p3",   "1e-9",     "1e22",  "1e-22",
    "3.14",    "-3.14"};

/// Bytes that are hostile wherever text is copied to an output: NUL, controls, CR, invalid
/// UTF-8 (a lone continuation byte, 0xFF, a truncated sequence, an overlong '/'), a byte order
/// mark, bidirectional overrides (U+202E, U+2066), and the starts of spreadsheet formulas.
inline const std::vector<std::string> kHostileBytes{std::string(1, '\0'),
                                                    "\r",
                                                    "\r\n",
                                                    "\x1b[31m",
                                                    "\x7f",
                                                    "\x80",
                                                    "\xff",
                                                    "\xc3",
                                                    "\xe2\x82",
                                                    "\xc0\xaf",
                                                    "\xed\xa0\x80",
                                                    "\xef\xbb\xbf",
                                                    "\xe2\x80\xae",
                                                    "\xe2\x81\xa6",
                                                    "=cmd|' /C calc'!A0",
                                                    "+1+1",
                                                    "-1-1",
                                                    "@SUM(A1)",
                                                    "\t",
                                                    "\\",
                                                    "\\u0000",
                                                    "\\ud800",
                                                    "%s%n"};

/// The text cut into lines at '\n' (the last line may be empty; "" is one empty line).
inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

/// The lines joined with '\n' (the inverse of split_lines).
inline std::string join_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i) text += '\n';
    text += lines[i];
  }
  return text;
}

/// Number-like tokens: a digit not preceded by a letter or digit, and the letters, digits,
/// '.', '+' and '-' that follow it (so "1e-3", "2.5h" and "0x1F" are one token each).
inline std::vector<Span> number_spans(const std::string& text) {
  std::vector<Span> spans;
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (std::size_t i = 0; i < text.size();) {
    if (std::isdigit(static_cast<unsigned char>(text[i])) && (i == 0 || !alnum(text[i - 1]))) {
      std::size_t j = i;
      while (j < text.size() &&
             (alnum(text[j]) || text[j] == '.' || text[j] == '+' || text[j] == '-'))
        ++j;
      spans.push_back({i, j});
      i = j;
    } else {
      ++i;
    }
  }
  return spans;
}

/// Fields of the text: the ranges between separators and line ends (quotes are not special,
/// so that a mutation can also cut a quoted field in two).
inline std::vector<Span> field_spans(const std::string& text, char separator) {
  std::vector<Span> spans;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == separator || text[i] == '\n') {
      spans.push_back({start, i});
      start = i + 1;
    }
  }
  return spans;
}

/// The text with `insert` put at `at`, unless that would pass max_bytes.
inline std::string insert_at(std::string text, std::size_t at, const std::string& insert,
                             std::size_t max_bytes = kMaxMutatedBytes) {
  if (text.size() + insert.size() > max_bytes) return text;
  text.insert(std::min(at, text.size()), insert);
  return text;
}

/// The text with the span replaced, unless that would pass max_bytes.
inline std::string replace_span(std::string text, Span span, const std::string& with,
                                std::size_t max_bytes = kMaxMutatedBytes) {
  if (text.size() - (span.end - span.begin) + with.size() > max_bytes) return text;
  return text.replace(span.begin, span.end - span.begin, with);
}

/// A number-like token becomes one of the values (e.g. kExtremeIntegers).
inline std::string replace_number(std::string text, Random& random,
                                  const std::vector<std::string>& values) {
  const std::vector<Span> spans = number_spans(text);
  if (spans.empty() || values.empty()) return text;
  const Span span = pick_from(random, spans);
  const std::string& value = pick_from(random, values);
  return replace_span(std::move(text), span, value);
}

/// A number-like token gets digits appended (a count, a time or an id past every range).
inline std::string lengthen_number(std::string text, Random& random) {
  const std::vector<Span> spans = number_spans(text);
  if (spans.empty()) return text;
  const Span span = pick_from(random, spans);
  const std::string digits(1 + pick(random, 40), '9');
  return insert_at(std::move(text), span.end, digits);
}

/// A line is deleted (when there are two or more).
inline std::string delete_line(std::string text, Random& random) {
  std::vector<std::string> lines = split_lines(text);
  if (lines.size() < 2) return text;
  lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(pick(random, lines.size())));
  return join_lines(lines);
}

/// A line is repeated 1 to `max_copies` times in place (within the byte budget).
inline std::string duplicate_line(std::string text, Random& random, std::size_t max_copies = 1,
                                  std::size_t max_bytes = kMaxMutatedBytes) {
  std::vector<std::string> lines = split_lines(text);
  const std::size_t i = pick(random, lines.size());
  std::size_t copies = 1 + pick(random, std::max<std::size_t>(max_copies, 1));
  copies = std::min(copies, (max_bytes - std::min(max_bytes, text.size())) / (lines[i].size() + 1));
  lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(i), copies, lines[i]);
  return join_lines(lines);
}

/// Two lines trade places.
inline std::string swap_lines(std::string text, Random& random) {
  std::vector<std::string> lines = split_lines(text);
  const std::size_t a = pick(random, lines.size());
  const std::size_t b = pick(random, lines.size());
  std::swap(lines[a], lines[b]);
  return join_lines(lines);
}

/// A line of the donor text is inserted at a random line (mixing two seeds of one format).
inline std::string splice_line(std::string text, Random& random, const std::string& donor) {
  if (text.size() + donor.size() > kMaxMutatedBytes) return text;
  std::vector<std::string> lines = split_lines(text);
  const std::vector<std::string> other = split_lines(donor);
  const std::size_t at = pick(random, lines.size() + 1);
  const std::string& line = pick_from(random, other);
  lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), line);
  return join_lines(lines);
}

/// The text is cut at a random byte.
inline std::string truncate(std::string text, Random& random) {
  text.resize(pick(random, text.size() + 1));
  return text;
}

/// One bit of one byte flips.
inline std::string flip_bit(std::string text, Random& random) {
  if (text.empty()) return text;
  const std::size_t at = pick(random, text.size());
  const int bit = static_cast<int>(pick(random, 8));
  text[at] = static_cast<char>(text[at] ^ (1 << bit));
  return text;
}

/// One byte of the alphabet (the format's syntax: separators, quotes, brackets) is inserted.
inline std::string insert_byte(std::string text, Random& random, const std::string& alphabet) {
  if (alphabet.empty()) return text;
  const std::size_t at = pick(random, text.size() + 1);
  const std::string byte(1, alphabet[pick(random, alphabet.size())]);
  return insert_at(std::move(text), at, byte);
}

/// A byte is removed.
inline std::string delete_byte(std::string text, Random& random) {
  if (text.empty()) return text;
  text.erase(pick(random, text.size()), 1);
  return text;
}

/// One of kHostileBytes is inserted at a random byte, or at the start of a field (where a
/// spreadsheet would read a formula) when a separator is given.
inline std::string insert_hostile_bytes(std::string text, Random& random, char separator = 0) {
  const std::string& bytes = pick_from(random, kHostileBytes);
  if (separator != 0 && pick(random, 2) == 0) {
    const std::vector<Span> fields = field_spans(text, separator);
    const std::size_t at = pick_from(random, fields).begin;
    return insert_at(std::move(text), at, bytes);
  }
  const std::size_t at = pick(random, text.size() + 1);
  return insert_at(std::move(text), at, bytes);
}

/// A field (between separators) is removed together with one separator.
inline std::string delete_field(std::string text, Random& random, char separator) {
  const std::vector<Span> fields = field_spans(text, separator);
  const Span f = pick_from(random, fields);
  const std::size_t end = f.end < text.size() && text[f.end] == separator ? f.end + 1 : f.end;
  text.erase(f.begin, end - f.begin);
  return text;
}

/// A field is repeated right after itself (an extra column on one row).
inline std::string duplicate_field(std::string text, Random& random, char separator) {
  const std::vector<Span> fields = field_spans(text, separator);
  const Span f = pick_from(random, fields);
  const std::string copy = std::string(1, separator) + text.substr(f.begin, f.end - f.begin);
  return insert_at(std::move(text), f.end, copy);
}

/// Two fields trade contents (of one line or of two).
inline std::string swap_fields(std::string text, Random& random, char separator) {
  const std::vector<Span> fields = field_spans(text, separator);
  Span a = pick_from(random, fields), b = pick_from(random, fields);
  if (a.begin == b.begin) return text;
  if (b.begin < a.begin) std::swap(a, b);
  const std::string first = text.substr(a.begin, a.end - a.begin);
  const std::string second = text.substr(b.begin, b.end - b.begin);
  text.replace(b.begin, b.end - b.begin, first);  // the later span first: a's offsets hold
  text.replace(a.begin, a.end - a.begin, second);
  return text;
}

/// A field's content becomes the given value (e.g. an extreme number, an empty string).
inline std::string replace_field(std::string text, Random& random, char separator,
                                 const std::string& value) {
  const std::vector<Span> fields = field_spans(text, separator);
  const Span span = pick_from(random, fields);
  return replace_span(std::move(text), span, value);
}

/// A field's content becomes a long run of one byte (1 to max_length bytes, within the budget).
inline std::string lengthen_field(std::string text, Random& random, char separator,
                                  std::size_t max_length = 1 << 16) {
  const std::vector<Span> fields = field_spans(text, separator);
  static const char kFill[] = "a9 \"\\,.-\xff";
  const std::size_t length = 1 + pick(random, max_length);
  const std::string fill(length, kFill[pick(random, sizeof kFill - 1)]);
  const Span span = pick_from(random, fields);
  return replace_span(std::move(text), span, fill);
}

/// A quote character is inserted, removed or doubled at an existing quote (unbalanced or
/// escaped quotes), or a field is wrapped in quotes.
inline std::string mutate_quote(std::string text, Random& random, char quote,
                                char separator = ',') {
  std::vector<std::size_t> quotes;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == quote) quotes.push_back(i);
  switch (pick(random, 4)) {
    case 0:
      if (!quotes.empty()) {
        text.erase(pick_from(random, quotes), 1);
        return text;
      }
      break;
    case 1:
      if (!quotes.empty()) {
        const std::size_t at = pick_from(random, quotes);
        return insert_at(std::move(text), at, std::string(1, quote));
      }
      break;
    case 2: {
      const Span f = pick_from(random, field_spans(text, separator));
      text = insert_at(std::move(text), f.end, std::string(1, quote));
      return insert_at(std::move(text), f.begin, std::string(1, quote));
    }
    default:
      break;
  }
  const std::size_t at = pick(random, text.size() + 1);
  return insert_at(std::move(text), at, std::string(1, quote));
}

/// `depth` opening brackets at one point and as many closing ones after it (or none, for
/// unbalanced nesting): reaches recursion limits with a case of a few kilobytes.
inline std::string deepen_nesting(std::string text, Random& random, const std::string& open,
                                  const std::string& close, std::size_t max_depth = 100000) {
  const std::size_t depth = 1 + pick(random, max_depth);
  if (text.size() + depth * (open.size() + close.size()) > kMaxMutatedBytes) return text;
  const std::size_t at = pick(random, text.size() + 1);
  std::string opens, closes;
  opens.reserve(depth * open.size());
  for (std::size_t i = 0; i < depth; ++i) opens += open;
  if (pick(random, 4) != 0) {
    closes.reserve(depth * close.size());
    for (std::size_t i = 0; i < depth; ++i) closes += close;
  }
  const std::size_t after = at + pick(random, text.size() - at + 1);
  text.insert(after, closes);
  text.insert(at, opens);
  return text;
}

/// A random span (up to max_span bytes) is repeated right after itself up to max_copies times,
/// within the byte budget: many elements, many rows, or a long key from a few bytes.
inline std::string repeat_span(std::string text, Random& random, std::size_t max_span = 256,
                               std::size_t max_copies = 4096,
                               std::size_t max_bytes = kMaxMutatedBytes) {
  if (text.empty()) return text;
  const std::size_t begin = pick(random, text.size());
  const std::size_t length = 1 + pick(random, std::min(max_span, text.size() - begin));
  const std::string span = text.substr(begin, length);
  std::size_t copies = 1 + pick(random, max_copies);
  copies = std::min(copies, (max_bytes - std::min(max_bytes, text.size())) / span.size());
  std::string repeated;
  repeated.reserve(copies * span.size());
  for (std::size_t i = 0; i < copies; ++i) repeated += span;
  text.insert(begin + length, repeated);
  return text;
}

/// Line ends change style: '\n' becomes "\r\n" or '\r' everywhere, or the last one goes.
inline std::string change_line_ends(std::string text, Random& random) {
  const std::size_t choice = pick(random, 3);
  if (choice == 2) {
    if (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
  }
  std::string out;
  out.reserve(text.size() * 2);
  for (char c : text) {
    if (c == '\n')
      out += choice == 0 ? "\r\n" : "\r";
    else
      out += c;
  }
  return out.size() > kMaxMutatedBytes ? text : out;
}

}  // namespace gpucap::fuzz
