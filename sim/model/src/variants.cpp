// gpucap: named scenario variants: the CLI's text form, the variants file, and their checks.
#include "gpucap/variants.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <yaml-cpp/yaml.h>

#include "gpucap/detail/text.hpp"
#include "gpucap/detail/yaml_document.hpp"
#include "gpucap/input_file.hpp"
#include "gpucap/scenario_error.hpp"

namespace gpucap {
namespace {

/// Splits at `separator` outside [], {} and quotes; a ScenarioError naming `what` when they do
/// not balance.
std::vector<std::string> split_outside_brackets(const std::string& text, char separator,
                                                const std::string& what) {
  try {
    return text::split_outside_brackets(text, separator);
  } catch (const std::invalid_argument& e) {
    throw ScenarioError(what + " " + text::excerpt(text) + ": " + e.what());
  }
}

/// A weight as written: a positive finite number, else a ScenarioError naming `where`.
std::string checked_weight(const std::string& text, const std::string& where) {
  const std::string t = text::trim(text);
  char* end = nullptr;
  errno = 0;
  const double w = t.empty() ? NAN : std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || errno == ERANGE || !std::isfinite(w) || w <= 0)
    throw ScenarioError(where + ": weight '" + text::excerpt(t) +
                        "' is not a positive number (e.g. 0.25; the weights are normalized to "
                        "sum to 1)");
  return t;
}

/// A YAML node as override text: a scalar as written, anything else in flow style.
std::string override_text(const YAML::Node& node) {
  if (node.IsScalar()) {
    if (node.Tag() != "!") return node.Scalar();  // plain: the text as written
    YAML::Emitter quoted;                         // quoted: keep it a string
    quoted << YAML::DoubleQuoted << node.Scalar();
    return quoted.c_str();
  }
  if (node.IsNull()) return "null";
  YAML::Emitter out;
  out << YAML::Flow << node;
  return out.c_str();
}

std::string where_in(const std::string& origin, const YAML::Node& node, const std::string& path) {
  const YAML::Mark m = node.Mark();
  if (m.line < 0) return origin + ": " + path;
  return origin + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + ": " +
         path;
}

}  // namespace

Variant parse_variant(const std::string& text) {
  const std::string what = "--variant";
  const std::string valid =
      "; expected NAME: path=value, path=value (e.g. \"low: "
      "workloads.0.arrivals.rate_per_day=3\"), "
      "or a NAME alone for the scenario unchanged";
  Variant v;
  const auto colon = text.find(':');
  v.name = text::trim(text.substr(0, colon));
  if (v.name.empty())
    throw ScenarioError(what + " " + text::excerpt(text) + ": the variant has no name" + valid);
  if (colon == std::string::npos || text::trim(text.substr(colon + 1)).empty()) return v;
  for (const std::string& part : split_outside_brackets(text.substr(colon + 1), ',', what)) {
    const std::string assignment = text::trim(part);
    const auto eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == assignment.size())
      throw ScenarioError(what + " '" + text::excerpt(v.name) + "': '" + text::excerpt(assignment) +
                          "' is not path=value" + valid);
    v.overrides.emplace_back(text::trim(assignment.substr(0, eq)),
                             text::trim(assignment.substr(eq + 1)));
  }
  return v;
}

void apply_weights(std::vector<Variant>& variants, const std::string& text) {
  for (Variant& v : variants) v.weight.clear();  // the text replaces any weights given before
  std::set<std::string> seen;
  for (const std::string& part : text::split(text, ',')) {
    const std::string item = text::trim(part);
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw ScenarioError("--weights: '" + text::excerpt(item) +
                          "' is not name=weight; e.g. --weights low=0.25,base=0.5,high=0.25");
    const std::string name = text::trim(item.substr(0, eq));
    Variant* found = nullptr;
    std::vector<std::string> names;
    for (Variant& v : variants) {
      names.push_back(v.name);
      if (v.name == name) found = &v;
    }
    if (!found)
      throw ScenarioError("--weights: no variant '" + text::excerpt(name) + "'; the variants are " +
                          text::join(names, ", "));
    if (!seen.insert(name).second)
      throw ScenarioError("--weights: variant '" + text::excerpt(name) + "' is weighted twice");
    found->weight = checked_weight(item.substr(eq + 1), "--weights " + text::excerpt(name));
  }
  for (const Variant& v : variants)
    if (v.weight.empty())
      throw ScenarioError("--weights: variant '" + text::excerpt(v.name) +
                          "' has no weight; give every variant one, or none (equal weights)");
}

std::vector<Variant> read_variants_file(const std::string& path, uint64_t max_bytes) {
  return parse_variants_yaml(
      read_input_file(path, max_bytes, "variants file", "--max-scenario-size"), path);
}

std::vector<Variant> parse_variants_yaml(const std::string& text, const std::string& origin) {
  const YAML::Node root = detail::load_yaml_document(text, origin);
  const std::string shape =
      "; expected\n  variants:\n    - name: low\n      weight: 0.25   # optional\n      set:    "
      "       # optional\n        workloads.0.arrivals.rate_per_day: 3.75";
  if (!root.IsMap() || !root["variants"])
    throw ScenarioError(origin + ": no top-level key 'variants'" + shape);
  for (const auto& kv : root)
    if (!kv.first.IsScalar() || kv.first.Scalar() != "variants")
      throw ScenarioError(
          where_in(origin, kv.first,
                   kv.first.IsScalar() ? text::excerpt(kv.first.Scalar()) : "a key") +
          ": unknown key; a variants file has only 'variants'");
  const YAML::Node list = root["variants"];
  if (!list.IsSequence() || list.size() == 0)
    throw ScenarioError(where_in(origin, list, "variants") + ": expected a list of variants" +
                        shape);
  std::vector<Variant> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node item = list[i];
    const std::string path = "variants[" + std::to_string(i) + "]";
    if (!item.IsMap())
      throw ScenarioError(where_in(origin, item, path) + ": expected a map with name, weight, set");
    Variant v;
    for (const auto& kv : item) {
      if (!kv.first.IsScalar())
        throw ScenarioError(where_in(origin, kv.first, path) +
                            ": expected a key (name, weight or set)");
      const std::string key = kv.first.Scalar();
      const std::string key_path = path + "." + key;
      if (key == "name") {
        if (!kv.second.IsScalar())
          throw ScenarioError(where_in(origin, kv.second, key_path) + ": expected a name");
        v.name = kv.second.Scalar();
      } else if (key == "weight") {
        if (!kv.second.IsScalar())
          throw ScenarioError(where_in(origin, kv.second, key_path) + ": expected a number");
        v.weight = checked_weight(kv.second.Scalar(), where_in(origin, kv.second, key_path));
      } else if (key == "set") {
        if (kv.second.IsNull()) continue;
        if (!kv.second.IsMap())
          throw ScenarioError(where_in(origin, kv.second, key_path) +
                              ": expected a map of dotted.path: value");
        for (const auto& o : kv.second) {
          if (!o.first.IsScalar() || o.first.Scalar().empty())
            throw ScenarioError(where_in(origin, o.first, key_path) +
                                ": expected a dotted scenario path as key");
          v.overrides.emplace_back(o.first.Scalar(), override_text(o.second));
        }
      } else {
        throw ScenarioError(where_in(origin, kv.first, key_path) +
                            ": unknown key; a variant has name, weight and set");
      }
    }
    if (v.name.empty())
      throw ScenarioError(where_in(origin, item, path) + ": the variant has no name");
    out.push_back(std::move(v));
  }
  return out;
}

void check_variants(const std::vector<Variant>& variants,
                    const std::vector<std::string>& decision_paths) {
  if (variants.empty()) throw ScenarioError("a robust plan needs at least one variant");
  std::set<std::string> names;
  std::size_t weighted = 0;
  for (const Variant& v : variants) {
    const std::string who = "variant '" + text::excerpt(v.name) + "'";
    if (v.name.empty()) throw ScenarioError("a variant has an empty name");
    for (const char ch : v.name)
      if (static_cast<unsigned char>(ch) < 0x20 || ch == '=' || ch == ',' || ch == ':')
        throw ScenarioError(who + ": a name may not hold control characters, '=', ',' or ':'");
    if (!names.insert(v.name).second)
      throw ScenarioError(who + " is named twice; give each variant its own name");
    if (!v.weight.empty()) {
      checked_weight(v.weight, who);
      ++weighted;
    }
    std::set<std::string> paths;
    for (const auto& [path, value] : v.overrides) {
      if (path == kVariantParameter || path == kVariantWeightParameter)
        throw ScenarioError(who + ": '" + path + "' is not a scenario path");
      for (const std::string& d : decision_paths)
        if (path == d)
          throw ScenarioError(who + " overrides '" + text::excerpt(path) +
                              "', which the grid varies: a variant may not change a decision");
      if (!paths.insert(path).second)
        throw ScenarioError(who + " sets '" + text::excerpt(path) + "' twice");
      if (value.empty())
        throw ScenarioError(who + ": '" + text::excerpt(path) +
                            "' has an empty value (null deletes a key)");
    }
  }
  if (weighted != 0 && weighted != variants.size())
    throw ScenarioError(std::to_string(weighted) + " of " + std::to_string(variants.size()) +
                        " variants have a weight; give every variant one, or none (equal "
                        "weights)");
}

std::vector<double> normalize_weights(std::vector<double> weights,
                                      const std::vector<std::string>& names) {
  double total = 0;
  for (double w : weights) total += w;
  if (!std::isfinite(total)) {
    // The sum overflowed (1e308 + 1e308): scaled by the largest, each weight is in (0, 1]
    // and their sum in [1, n]. (Only then, so that other weights keep their bits.)
    double largest = 0;
    for (double w : weights) largest = std::max(largest, w);
    total = 0;
    for (double& w : weights) total += w /= largest;
  }
  for (std::size_t i = 0; i < weights.size(); ++i) {
    weights[i] /= total;
    if (!(weights[i] > 0))
      throw std::invalid_argument("variant '" + text::excerpt(names[i]) +
                                  "': its weight is too small next to the largest to give a "
                                  "probability above 0 (weights are normalized to sum to 1)");
  }
  return weights;
}

}  // namespace gpucap
