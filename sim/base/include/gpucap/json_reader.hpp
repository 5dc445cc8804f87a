// gpucap: a strict JSON reader (RFC 8259) that hands values to a visitor as it reads,
// so that a data file of millions of numbers costs the numbers the caller keeps, not a tree.
//
// Strict: a string is never a number ("300" is text), numbers follow JSON's grammar (no NaN,
// no hex, no leading '+' or zeros), there is exactly one value in the document, and objects may
// not repeat a key. Nesting is limited to 64 levels. Errors (JsonError) carry the 1-based line
// and column of the offending character.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>

namespace gpucap {

/// Where a value starts in the text (1-based).
struct JsonPosition {
  std::size_t line = 1, column = 1;
};

class JsonError : public std::runtime_error {
 public:
  JsonError(const JsonPosition& at, const std::string& what)
      : std::runtime_error(std::to_string(at.line) + ":" + std::to_string(at.column) + ": " + what),
        position(at) {}
  JsonPosition position;
};

/// Receives a document's parts in order. `path` names the value being visited, in the key path
/// style of scenario messages: "metadata.gap_seconds", "data[3]" ("" for the root).
class JsonVisitor {
 public:
  virtual ~JsonVisitor() = default;
  virtual void begin_object(const std::string& path, const JsonPosition& at) = 0;
  virtual void begin_array(const std::string& path, const JsonPosition& at) = 0;
  virtual void end(const std::string& path) = 0;  ///< the end of an object or array
  virtual void number(const std::string& path, double value, const JsonPosition& at) = 0;
  /// Strings, true, false and null: `kind` is "string", "boolean" or "null"; `text` as written
  /// (a string's decoded content).
  virtual void other(const std::string& path, const char* kind, const std::string& text,
                     const JsonPosition& at) = 0;
};

/// Reads `text` as one JSON document, calling `visitor` for each part. Throws JsonError for
/// text that is not JSON; exceptions from the visitor pass through.
void read_json(const std::string& text, JsonVisitor& visitor);

}  // namespace gpucap
