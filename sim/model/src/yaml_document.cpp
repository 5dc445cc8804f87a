// gpucap internals: one strict YAML document from user text (see yaml_document.hpp).
#include "gpucap/detail/yaml_document.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <yaml-cpp/depthguard.h>

#include "gpucap/detail/text.hpp"
#include "gpucap/scenario_error.hpp"

namespace gpucap::detail {

std::string text_position(const std::string& text, std::size_t offset, const std::string& origin) {
  offset = std::min(offset, text.size());
  const std::size_t line_start = offset == 0 ? 0 : text.rfind('\n', offset - 1) + 1;
  const std::size_t line =
      1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + line_start, '\n'));
  std::size_t column = 1;
  for (std::size_t i = line_start; i < offset; ++i)
    column += (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
  return text::excerpt(origin, 200) + ":" + std::to_string(line) + ":" + std::to_string(column);
}

void refuse_unprintable_text(const std::string& text, const std::string& origin) {
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      ++i;
      continue;
    }
    char shown[40];
    if (c == '\t' || c == '\n' || c == '\r') {
      ++i;
      continue;
    }
    uint32_t code = c;
    const std::size_t n = c < 0x80 ? 1 : text::utf8_sequence_length(text, i, &code);
    if (n == 0) {
      std::snprintf(shown, sizeof shown, "byte 0x%02X is not valid UTF-8", c);
    } else if (code < 0x20 || code == 0x7F || (code >= 0x80 && code <= 0x9F && code != 0x85)) {
      std::snprintf(shown, sizeof shown, "control character U+%04X", static_cast<unsigned>(code));
    } else {
      i += n;
      continue;
    }
    throw ScenarioError(text_position(text, i, origin) + ": " + shown +
                        "; YAML text is UTF-8 without control characters other than tab and "
                        "line breaks (write it as an escape in a double-quoted string, e.g. "
                        "\"\\t\", or convert the file, e.g. iconv -f latin1 -t utf-8)");
  }
}

namespace {

/// Whether `line` is a document marker: "---" or "..." at its start, then a blank or its end.
/// YAML forbids such a line inside any scalar, so it always separates documents.
bool is_marker(std::string_view line, const char* marker) {
  return line.compare(0, 3, marker) == 0 &&
         (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r');
}

/// Whether `line` holds nothing a document could contain: blank, or a comment.
bool is_empty_line(std::string_view line) {
  const std::size_t first = line.find_first_not_of(" \t\r");
  return first == std::string_view::npos || line[first] == '#';
}

/// Byte offset of the first content of a second document in `text`, or npos when it has one
/// document (a leading "---", directives, comments, and markers with nothing after them do not
/// count). Found from the document markers, line by line: yaml-cpp's LoadAll never returns on
/// some malformed texts.
std::size_t second_document_at(const std::string& text) {
  bool content = false, ended = false;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + start, end - start);
    const bool opens = is_marker(line, "---"), closes = is_marker(line, "...");
    if ((opens && content) || closes) ended = ended || content;
    // What follows "--- " on its line is content of the document it opens.
    const std::string_view rest = opens ? line.substr(3) : line;
    const bool holds = !closes && !is_empty_line(rest) && !(!content && line[0] == '%');
    if (holds) {
      if (ended) return start + (opens ? 3 : 0) + rest.find_first_not_of(" \t");
      content = true;
    }
    start = end + 1;
  }
  return std::string::npos;
}

}  // namespace

YAML::Node load_yaml_document(const std::string& text, const std::string& origin) {
  refuse_unprintable_text(text, origin);
  if (const std::size_t second = second_document_at(text); second != std::string::npos)
    throw ScenarioError(text_position(text, second, origin) +
                        ": a second YAML document starts here; this text holds one (remove the "
                        "`---` line before it, or put each document in a file of its own)");
  const auto at = [&](const YAML::Mark& mark) {
    return text::excerpt(origin, 200) + ":" + std::to_string(mark.line + 1) + ":" +
           std::to_string(mark.column + 1);
  };
  try {
    return YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    throw ScenarioError(at(e.mark) +
                        ": lists and maps are nested too deeply for the YAML "
                        "parser (it stops at " +
                        std::to_string(e.depth()) +
                        " levels of recursion; the deepest scenario key is six levels down)");
  } catch (const YAML::Exception& e) {
    throw ScenarioError(at(e.mark) + ": not valid YAML: " + text::excerpt(e.msg, 300));
  }
}

}  // namespace gpucap::detail
