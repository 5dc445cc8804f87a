// gpucap: what is generated from the scenario key table: `gpucap explain`, the key tables of
// docs/scenario-format.md and the JSON Schema of `gpucap schema`.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "gpucap/choices.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/scenario_keys.hpp"
#include "key_rows.hpp"

namespace gpucap {
namespace {

using key_rows::kInf;

std::string strip_markdown(std::string s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '`' || s[i] == '*') continue;
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '|') continue;
    if (s[i] == ']' && i + 1 < s.size() && s[i + 1] == '(') {  // [text](link) -> text
      const std::size_t close = s.find(')', i);
      if (close != std::string::npos) {
        i = close;
        continue;
      }
    }
    if (s[i] == '[') continue;
    out += s[i];
  }
  return out;
}

}  // namespace

namespace {

void explain_row(std::ostringstream& out, const ScenarioKey& k, bool first) {
  const auto line = [&](const char* label, const std::string& value) {
    if (!value.empty()) out << "  " << label << std::string(13 - std::string(label).size(), ' ')
                            << value << "\n";
  };
  if (first) {
    out << k.path << "\n";
    line("type:", strip_markdown(key_type_name(k.type)));
    std::string unit = k.unit_text;
    if (unit.rfind("–", 0) == 0 || unit.empty()) unit = "";
    if (k.unit != UnitKind::none)
      unit = (unit.empty() ? std::string() : unit + " ") + "(" + unit_kind_name(k.unit) + ")";
    line("unit:", unit);
    if (k.type != KeyType::distribution) line("range:", describe_key_range(k));
    if (k.type == KeyType::choice) line("choices:", text::join(text::split(k.choices, ' '), ", "));
  }
  line("default:", strip_markdown(k.default_text));
  line("applies to:", scenario_key_applies_text(k));
  line("valid:", strip_markdown(k.valid_note));
  line("meaning:", strip_markdown(k.description));
}

}  // namespace

std::string explain_scenario_key(const std::string& path) {
  std::ostringstream out;
  // A path with an empty part ("pools..quota", ".x", "x.") names no key.
  if (path.empty() || path.front() == '.' || path.back() == '.' ||
      path.find("..") != std::string::npos)
    return "";
  // "pools.quota" is short for "pools.NAME.quota", "workloads.gpus" for "workloads[].gpus".
  std::string pattern = path;
  for (const char* section : {"providers.", "regions.", "pools.", "goals."}) {
    const std::size_t n = std::strlen(section);
    if (path.rfind(section, 0) == 0 && path.compare(n, 5, "NAME.") != 0) {
      const std::string rest = path.substr(n);
      const std::string first = rest.substr(0, rest.find_first_of(".["));
      if (find_scenario_key(std::string(section) + "NAME." + first))
        pattern = std::string(section) + "NAME." + rest;
    }
  }
  if (path.rfind("workloads.", 0) == 0) pattern = "workloads[]." + path.substr(10);
  pattern = scenario_key_pattern(pattern);
  const std::vector<const ScenarioKey*> rows = scenario_key_rows(pattern);
  if (!rows.empty()) {
    // The same key in several tables: its first row, then what the others add.
    std::vector<std::string> shown;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::string said = std::string(rows[i]->default_text) + "|" +
                               scenario_key_applies_text(*rows[i]) + "|" +
                               rows[i]->valid_note + "|" + rows[i]->description;
      if (std::find(shown.begin(), shown.end(), said) != shown.end()) continue;
      if (i > 0) out << "  --- also (" << rows[i]->doc_table << "):\n";
      explain_row(out, *rows[i], i == 0);
      shown.push_back(said);
    }
    const std::vector<std::string> children =
        scenario_child_keys(pattern + (rows[0]->type == KeyType::list ? "[]" : ""));
    std::vector<std::string> named = scenario_child_keys(pattern + ".NAME");
    if (!children.empty()) out << "  keys:        " << text::join(children, ", ") << "\n";
    if (!named.empty()) out << "  entry keys:  " << text::join(named, ", ") << "\n";
    if (rows[0]->type == KeyType::distribution) {
      out << "  forms:       a fixed value, or {dist: KIND, ...} with KIND one of deterministic, "
             "exponential, uniform, lognormal, gamma, weibull, pareto, empirical ("
          << (rows[0]->unit == UnitKind::duration ? "time parameters are durations"
                                                  : "parameters are plain numbers, no units")
          << "; see gpucap explain " << pattern << ".PARAMETER)\n";
    }
    return out.str();
  }
  // A distribution's parameter: "workloads[].work.sigma".
  const std::size_t dot = pattern.rfind('.');
  if (dot != std::string::npos) {
    const ScenarioKey* parent = find_scenario_key(pattern.substr(0, dot));
    const std::string param = pattern.substr(dot + 1);
    if (parent && parent->type == KeyType::distribution) {
      if (param == "dist") {
        out << pattern
            << "\n  type:        text\n  choices:     deterministic, exponential, uniform, "
               "lognormal, gamma, weibull, pareto, empirical\n  meaning:     the kind of "
               "distribution; each kind takes its own parameters\n";
        return out.str();
      }
      // One line for each kind that has the parameter (`scale` is a time in some, a factor
      // in others).
      for (const DistributionParameter& p : distribution_parameters()) {
        if (param != p.key) continue;
        if (out.tellp() == 0)
          out << pattern << " (a parameter of the distribution " << parent->path << ")\n";
        const bool plain = !p.in_key_unit || parent->unit != UnitKind::duration;
        ScenarioKey shown = *parent;
        shown.type = plain ? KeyType::number : KeyType::duration;
        shown.unit = plain && !p.in_key_unit ? UnitKind::factor : parent->unit;
        shown.lo = p.lo;
        shown.hi = p.hi;
        const std::string range = describe_key_range(shown);
        out << "  with dist: " << p.dist << ": " << (plain ? "number" : "duration")
            << (range.empty() ? "" : ", " + range) << "; " << p.description << "\n";
      }
      return out.str();
    }
  }
  return "";
}

// ---- documentation ---------------------------------------------------------------------------

std::string scenario_keys_markdown(const std::string& doc_table) {
  std::string out =
      "| key | type | unit | default | valid values | meaning |\n|---|---|---|---|---|---|\n";
  std::string last_display;
  for (const ScenarioKey& k : scenario_keys()) {
    if (doc_table != k.doc_table || last_display == k.display) continue;
    last_display = k.display;
    std::string valid = describe_key_range(k, true);
    if (k.type == KeyType::choice) {
      // A discriminator shown in the table of one of its values lists only those.
      std::vector<std::string> words = text::split(k.choices, ' ');
      const std::string last = std::string(k.path).substr(std::string(k.path).find_last_of('.') + 1);
      if (last == discriminator_key(k.applies.on)) words = scenario_key_applies_values(k);
      for (const std::string& w : words) valid += (valid.empty() ? "`" : ", `") + w + "`";
    }
    if (k.type == KeyType::distribution) valid.clear();  // its parameters have the ranges
    if (*k.valid_note) valid += (valid.empty() ? "" : "; ") + std::string(k.valid_note);
    out += "| " + std::string(k.display) + " | " + key_type_name(k.type) + " | " + k.unit_text +
           " | " + k.default_text + " | " + valid + " | " + k.description + " |\n";
  }
  return out;
}

// ---- JSON Schema -----------------------------------------------------------------------------

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
          out += buffer;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string json_number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

/// "minimum": .., "exclusiveMaximum": .. for a range (empty when unbounded), with a leading comma.
std::string json_range(KeyBound lo, KeyBound hi) {
  std::string out;
  if (std::isfinite(lo.value))
    out += std::string(", \"") + (lo.open ? "exclusiveMinimum" : "minimum") +
           "\": " + json_number(lo.value);
  if (std::isfinite(hi.value))
    out += std::string(", \"") + (hi.open ? "exclusiveMaximum" : "maximum") +
           "\": " + json_number(hi.value);
  return out;
}

// YAML 1.1 readers (PyYAML) take `1e-3` and `5min` as text: numbers may be written as text too.
const char* const kNumberText =
    R"({"type": "string", "pattern": "^\\s*[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?\\s*$"})";
const char* const kDurationText =
    R"({"type": "string", "pattern": "^\\s*[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?\\s*(us|ms|s|sec|min|m|h|hr|d|day|days|w)?\\s*$"})";

std::string number_schema(KeyBound lo, KeyBound hi, bool duration) {
  return std::string("{\"anyOf\": [{\"type\": \"number\"") + json_range(lo, hi) + "}, " +
         (duration ? kDurationText : kNumberText) + "]}";
}

std::string distribution_schema(const ScenarioKey& key) {
  const bool time = key.unit == UnitKind::duration;
  std::string kinds;
  for (const Choice<DistKind>& c : choices_of<DistKind>())
    kinds += (kinds.empty() ? "" : ", ") + json_string(c.word);
  std::string properties = "\"dist\": {\"enum\": [" + kinds + "]}";
  std::vector<std::string> seen;
  for (const DistributionParameter& p : distribution_parameters()) {
    if (std::find(seen.begin(), seen.end(), p.key) != seen.end()) continue;
    seen.push_back(p.key);
    std::string schema;
    if (std::string(p.key) == "values")
      schema = "{\"type\": \"array\", \"minItems\": 1, \"items\": " +
               number_schema(p.lo, {kInf, false}, time) + "}";
    else if (std::string(p.key) == "file" || std::string(p.key) == "column")
      schema = "{\"type\": \"string\"}";
    else
      // A parameter such as `scale` is a duration in one kind and a plain number in another.
      schema = number_schema({-kInf, false}, {kInf, false}, time && p.in_key_unit);
    properties += ", " + json_string(p.key) + ": " + schema;
  }
  return "{\"anyOf\": [" + number_schema({0, false}, {kInf, false}, time) +
         ", {\"type\": \"object\", \"required\": [\"dist\"], \"additionalProperties\": false, "
         "\"properties\": {" +
         properties + "}}]}";
}

std::string description_of(const ScenarioKey& k) {
  std::string d = strip_markdown(k.description);
  const std::string range = describe_key_range(k);
  std::string unit = k.unit_text;
  if (unit != "–" && !unit.empty()) d += " Unit: " + unit + ".";
  if (!range.empty()) d += " Range: " + range + ".";
  if (*k.default_text) d += " Default: " + strip_markdown(k.default_text) + ".";
  if (k.applies.on != Discriminator::none) d += " Applies to " + scenario_key_applies_text(k) + ".";
  return d;
}

std::string schema_of(const std::string& pattern);

/// The object schema of the mapping at `parent` ("" for the whole file, "pools.NAME").
std::string object_schema(const std::string& parent, const std::string& description) {
  std::string properties;
  for (const std::string& key : scenario_child_keys(parent)) {
    const std::string path = parent.empty() ? key : parent + "." + key;
    properties += (properties.empty() ? "" : ", ") + json_string(key) + ": " + schema_of(path);
  }
  // The keys each value of the discriminator admits (a spot pool takes no `count`): one
  // if/then per value, and one for the default when the discriminator is left out.
  std::string variants;
  const std::string discriminator = scenario_discriminator(parent);
  const auto names = [&](const std::string& value) {
    std::string list;
    for (const std::string& key : scenario_child_keys(parent, discriminator, value))
      list += (list.empty() ? "" : ", ") + json_string(key);
    return "{\"propertyNames\": {\"enum\": [" + list + "]}}";
  };
  if (!discriminator.empty()) {
    for (const std::string& value :
         text::split(scenario_key(parent + "." + discriminator).choices, ' '))
      variants += (variants.empty() ? "" : ", ") + std::string("{\"if\": {\"required\": [") +
                  json_string(discriminator) + "], \"properties\": {" +
                  json_string(discriminator) + ": {\"const\": " + json_string(value) +
                  "}}}, \"then\": " + names(value) + "}";
    const std::string fallback = scenario_discriminator_default(parent);
    if (!fallback.empty())
      variants += ", {\"if\": {\"not\": {\"required\": [" + json_string(discriminator) +
                  "]}}, \"then\": " + names(fallback) + "}";
  }
  return "{\"type\": \"object\"" +
         (description.empty() ? std::string() : ", \"description\": " + json_string(description)) +
         ", \"additionalProperties\": false, \"properties\": {" + properties + "}" +
         (variants.empty() ? std::string() : ", \"allOf\": [" + variants + "]") + "}";
}

std::string schema_of(const std::string& pattern) {
  const ScenarioKey* k = find_scenario_key(pattern);
  if (k == nullptr) return "{}";
  const std::string d = ", \"description\": " + json_string(description_of(*k));
  const KeyBound hi = scenario_key_upper(*k);
  switch (k->type) {
    case KeyType::text:
      return "{\"type\": [\"string\", \"number\", \"boolean\"]" + d + "}";
    case KeyType::choice: {
      std::string values;
      for (const std::string& c : text::split(k->choices, ' '))
        values += (values.empty() ? "" : ", ") + json_string(c);
      return "{\"enum\": [" + values + "]" + d + "}";
    }
    case KeyType::number:
      return "{\"anyOf\": [{\"type\": \"number\"" + json_range(k->lo, hi) + "}, " + kNumberText +
             "]" + d + "}";
    case KeyType::integer:
      return "{\"type\": \"integer\"" + json_range(k->lo, hi) + d + "}";
    case KeyType::boolean:
      return "{\"anyOf\": [{\"type\": \"boolean\"}, {\"enum\": [\"true\", \"yes\", \"on\", "
             "\"false\", \"no\", \"off\"]}]" +
             d + "}";
    case KeyType::duration:
      return "{\"anyOf\": [{\"type\": \"number\"" + json_range(k->lo, hi) + "}, " +
             kDurationText + "]" + d + "}";
    case KeyType::trace_start:
      return "{\"anyOf\": [{\"const\": \"random\"}, {\"type\": \"number\", \"minimum\": 0}, " +
             std::string(kDurationText) + "]" + d + "}";
    case KeyType::distribution:
      return "{\"allOf\": [" + distribution_schema(*k) + "]" + d + "}";
    case KeyType::number_map:
      return "{\"type\": \"object\", \"additionalProperties\": " +
             number_schema(k->lo, hi, false) + d + "}";
    case KeyType::text_list:
      return "{\"type\": \"array\", \"minItems\": 1, \"items\": {\"type\": [\"string\", "
             "\"number\"]}" +
             d + "}";
    case KeyType::number_list:
      return "{\"type\": \"array\", \"items\": " + number_schema({0, false}, hi, false) + d +
             "}";
    case KeyType::list:
      return "{\"type\": \"array\", \"minItems\": " + json_number(k->lo.value) +
             ", \"maxItems\": " + json_number(hi.value) + ", \"items\": " + object_schema(pattern + "[]", "") + d + "}";
    case KeyType::mapping:
    case KeyType::name_map:
      if (find_scenario_key(pattern + ".NAME"))
        return "{\"type\": \"object\", \"additionalProperties\": " +
               object_schema(pattern + ".NAME",
                             strip_markdown(scenario_key(pattern + ".NAME").description)) +
               d + "}";
      return object_schema(pattern, description_of(*k));
  }
  return "{}";
}

}  // namespace

std::string scenario_json_schema() {
  std::string root = object_schema("", "");
  // Insert the header fields after the opening brace.
  const std::string header =
      "\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", \"$id\": "
      "\"https://gpucap.dev/schema/scenario-v1.json\", \"title\": \"gpucap scenario (format "
      "v1)\", \"description\": \"A gpucap scenario file: providers, regions, pools of GPUs, "
      "workloads and the policy. See docs/scenario-format.md.\", \"required\": [\"name\", "
      "\"horizon\", \"pools\", \"workloads\"], ";
  root.insert(1, header);
  return root + "\n";
}

}  // namespace gpucap
