// gpucap internals: one strict YAML document from user text (see yaml_document.hpp).
#include "gpucap/detail/yaml_document.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
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

YAML::Node load_yaml_document(const std::string& text, const std::string& origin) {
  refuse_unprintable_text(text, origin);
  const auto at = [&](const YAML::Mark& mark) {
    return text::excerpt(origin, 200) + ":" + std::to_string(mark.line + 1) + ":" +
           std::to_string(mark.column + 1);
  };
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::DeepRecursion& e) {
    throw ScenarioError(at(e.mark) +
                        ": lists and maps are nested too deeply for the YAML "
                        "parser (it stops at " +
                        std::to_string(e.depth()) +
                        " levels of recursion; the deepest scenario key is six levels down)");
  } catch (const YAML::Exception& e) {
    throw ScenarioError(at(e.mark) + ": not valid YAML: " + text::excerpt(e.msg, 300));
  }
  for (std::size_t k = 1; k < documents.size(); ++k) {
    if (documents[k].IsNull()) continue;  // a bare `---` or `...` at the end holds nothing
    throw ScenarioError(at(documents[k].Mark()) +
                        ": a second YAML document starts here; this text holds one (remove the "
                        "`---` line before it, or put each document in a file of its own)");
  }
  return documents.empty() ? YAML::Node() : documents.front();
}

}  // namespace gpucap::detail
