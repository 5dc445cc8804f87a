// gpucap internals: reading one YAML document from user text (a scenario, a variants file, an
// override's value) strictly: UTF-8 text without control characters, one document, and every
// failure a ScenarioError that names origin:line:column.
#pragma once
#include <cstddef>
#include <string>
#include <yaml-cpp/yaml.h>

namespace gpucap::detail {

/// "origin:line:column" of byte `offset` of `text` (1-based; the column counts characters).
std::string text_position(const std::string& text, std::size_t offset, const std::string& origin);

/// Throws a ScenarioError at the first character of `text` that YAML does not allow in a
/// stream: a byte that is not valid UTF-8, or a control character other than tab, line feed
/// and carriage return (NUL, ESC, DEL, C1 controls but U+0085).
void refuse_unprintable_text(const std::string& text, const std::string& origin);

/// The one YAML document of `text` (an empty text gives a null node). Refuses, with
/// origin:line:column: what refuse_unprintable_text refuses, a syntax error, a second document
/// with content (after a `---` line, which a plain load would ignore silently), and nesting
/// deeper than yaml-cpp's recursion guard (a few hundred levels; a scenario is six deep).
YAML::Node load_yaml_document(const std::string& text, const std::string& origin);

}  // namespace gpucap::detail
