// gpucap internals: the strict JSON reader (see json_reader.hpp).
#include "gpucap/json_reader.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <set>

#include "gpucap/detail/text.hpp"

namespace gpucap {
namespace {

constexpr int kMaxDepth = 64;

class Reader {
 public:
  Reader(const std::string& text, JsonVisitor& visitor) : text_(text), visitor_(visitor) {}

  void document() {
    skip_space();
    value(0);
    skip_space();
    if (i_ < text_.size()) fail("text after the JSON value");
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw JsonError(here(), what); }
  JsonPosition here() const { return {line_, i_ - line_start_ + 1}; }

  void advance() {
    if (text_[i_] == '\n') {
      ++line_;
      line_start_ = i_ + 1;
    }
    ++i_;
  }
  void skip_space() {
    while (i_ < text_.size() &&
           (text_[i_] == ' ' || text_[i_] == '\t' || text_[i_] == '\n' || text_[i_] == '\r'))
      advance();
  }
  void expect(char c, const char* what) {
    if (i_ >= text_.size() || text_[i_] != c)
      fail(std::string("expected ") + what + (i_ >= text_.size() ? ", found the end" : ""));
    advance();
  }

  // The path of the value being read is path_, extended and cut back in place as the reader
  // goes down and up: an element costs the length of its own key or index, not of its path
  // (copying the path per element made an array under a long key quadratic).
  void value(int depth) {
    if (depth > kMaxDepth) fail("nested more than 64 levels deep");
    if (i_ >= text_.size()) fail("expected a value, found the end");
    const JsonPosition at = here();
    const char c = text_[i_];
    if (c == '{') {
      object(depth, at);
    } else if (c == '[') {
      array(depth, at);
    } else if (c == '"') {
      const std::string s = string();
      visitor_.other(path_, "string", s, at);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      const double v = number();
      visitor_.number(path_, v, at);
    } else if (literal("true")) {
      visitor_.other(path_, "boolean", "true", at);
    } else if (literal("false")) {
      visitor_.other(path_, "boolean", "false", at);
    } else if (literal("null")) {
      visitor_.other(path_, "null", "null", at);
    } else {
      fail(
          "expected a value (a number, a string, true, false, null, an object or an array), "
          "found '" +
          text::excerpt(std::string(1, c)) + "'");
    }
  }

  void object(int depth, const JsonPosition& at) {
    advance();  // {
    visitor_.begin_object(path_, at);
    const std::size_t base = path_.size();
    std::set<std::string> keys;
    skip_space();
    if (i_ < text_.size() && text_[i_] == '}') {
      advance();
      visitor_.end(path_);
      return;
    }
    for (;;) {
      skip_space();
      if (i_ >= text_.size() || text_[i_] != '"') fail("expected a key in double quotes");
      const std::string key = string();
      if (!keys.insert(key).second) fail("the key \"" + text::excerpt(key) + "\" appears twice");
      skip_space();
      expect(':', "':' after a key");
      skip_space();
      path_.resize(base);
      if (base != 0) path_ += '.';
      path_ += key;
      value(depth + 1);
      path_.resize(base);
      skip_space();
      if (i_ < text_.size() && text_[i_] == ',') {
        advance();
        continue;
      }
      expect('}', "',' or '}'");
      break;
    }
    visitor_.end(path_);
  }

  void array(int depth, const JsonPosition& at) {
    advance();  // [
    visitor_.begin_array(path_, at);
    const std::size_t base = path_.size();
    skip_space();
    if (i_ < text_.size() && text_[i_] == ']') {
      advance();
      visitor_.end(path_);
      return;
    }
    for (std::size_t index = 0;; ++index) {
      skip_space();
      char digits[24];
      const auto written = std::to_chars(digits, digits + sizeof digits, index);
      path_.resize(base);
      path_ += '[';
      path_.append(digits, written.ptr);
      path_ += ']';
      value(depth + 1);
      path_.resize(base);
      skip_space();
      if (i_ < text_.size() && text_[i_] == ',') {
        advance();
        continue;
      }
      expect(']', "',' or ']'");
      break;
    }
    visitor_.end(path_);
  }

  bool literal(const char* word) {
    const std::string w = word;
    if (text_.compare(i_, w.size(), w) != 0) return false;
    for (std::size_t k = 0; k < w.size(); ++k) advance();
    return true;
  }

  /// A number by JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
  double number() {
    const std::size_t start = i_;
    const auto digits = [&] {
      const std::size_t from = i_;
      while (i_ < text_.size() && text_[i_] >= '0' && text_[i_] <= '9') advance();
      return i_ > from;
    };
    if (text_[i_] == '-') advance();
    if (i_ < text_.size() && text_[i_] == '0') {
      advance();
      if (i_ < text_.size() && text_[i_] >= '0' && text_[i_] <= '9')
        fail("a number may not start with 0 (JSON has no octal)");
    } else if (!digits()) {
      fail("expected digits");
    }
    if (i_ < text_.size() && text_[i_] == '.') {
      advance();
      if (!digits()) fail("expected digits after the decimal point");
    }
    if (i_ < text_.size() && (text_[i_] == 'e' || text_[i_] == 'E')) {
      advance();
      if (i_ < text_.size() && (text_[i_] == '+' || text_[i_] == '-')) advance();
      if (!digits()) fail("expected digits in the exponent");
    }
    errno = 0;
    const double v = std::strtod(text_.substr(start, i_ - start).c_str(), nullptr);
    if (!std::isfinite(v)) fail("the number is beyond a double's range");
    return v;
  }

  /// A string's content, escapes decoded (\uXXXX to UTF-8, surrogate pairs joined).
  std::string string() {
    advance();  // "
    std::string out;
    for (;;) {
      if (i_ >= text_.size()) fail("the string does not end");
      const unsigned char c = static_cast<unsigned char>(text_[i_]);
      if (c == '"') {
        advance();
        return out;
      }
      if (c < 0x20) fail("a control character inside a string (write it as an escape)");
      if (c != '\\') {
        out += static_cast<char>(c);
        advance();
        continue;
      }
      advance();
      if (i_ >= text_.size()) fail("the string does not end");
      const char e = text_[i_];
      advance();
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned code = hex4();
          if (code >= 0xD800 && code <= 0xDBFF) {
            if (text_.compare(i_, 2, "\\u") != 0) fail("a lone high surrogate");
            advance();
            advance();
            const unsigned low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail("a high surrogate without its low half");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          } else if (code >= 0xDC00 && code <= 0xDFFF) {
            fail("a lone low surrogate");
          }
          append_utf8(out, code);
          break;
        }
        default:
          fail(std::string("an unknown escape \\") + text::excerpt(std::string(1, e)));
      }
    }
  }

  unsigned hex4() {
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
      if (i_ >= text_.size()) fail("expected 4 hex digits after \\u");
      const char h = text_[i_];
      v <<= 4;
      if (h >= '0' && h <= '9')
        v |= static_cast<unsigned>(h - '0');
      else if (h >= 'a' && h <= 'f')
        v |= static_cast<unsigned>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F')
        v |= static_cast<unsigned>(h - 'A' + 10);
      else
        fail("expected 4 hex digits after \\u");
      advance();
    }
    return v;
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  const std::string& text_;
  JsonVisitor& visitor_;
  std::string path_;  ///< the key path of the value being read ("" at the root)
  std::size_t i_ = 0, line_ = 1, line_start_ = 0;
};

}  // namespace

void read_json(const std::string& text, JsonVisitor& visitor) {
  Reader reader(text, visitor);
  reader.document();
}

}  // namespace gpucap
