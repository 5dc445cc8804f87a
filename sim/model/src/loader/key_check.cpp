// gpucap: scenario loader, checks of every key against the key table before the sections are read: unknown keys with a
// suggestion, and names free of control and bidirectional characters.
#include "loader.hpp"

#include <algorithm>
#include <utility>

namespace gpucap::loader {

/// A name (the scenario's, a workload's, or the key of a provider, region or pool) is one line
/// of text that prints as itself: no control characters (C0, DEL, C1) and no bidirectional
/// overrides or isolates, which would reach terminals, tables and files as escape sequences,
/// extra lines or reordered text.
void check_name(const Context& ctx, const YAML::Node& node, const std::string& path) {
  const std::string& name = node.Scalar();
  for (std::size_t i = 0; i < name.size();) {
    uint32_t code = 0;
    const std::size_t n = std::max<std::size_t>(1, text::utf8_sequence_length(name, i, &code));
    const bool control = code < 0x20 || (code >= 0x7F && code <= 0x9F);
    const bool bidi = text::is_bidi_control(code);
    if (control || bidi)
      ctx.fail(node, path,
               "the name \"" + text::excerpt(name) + "\" holds " +
                   (control ? "a control character" : "a bidirectional text control") +
                   "; a name is one line of printable text");
    i += n;
  }
}

namespace {

/// The value of the discriminator of `pattern` that selects the keys of `node`: "" (every key)
/// when it is invalid (it is reported itself, and must not make every other key unknown), its
/// default when absent ("" when the key is required).
std::string discriminator_value(const YAML::Node& node, const std::string& pattern,
                                const std::string& discriminator) {
  std::string value;
  if (!discriminator.empty() && node[discriminator] && node[discriminator].IsScalar()) {
    value = node[discriminator].Scalar();
    const std::vector<std::string> choices =
        text::split(scenario_key(pattern + "." + discriminator).choices, ' ');
    if (std::find(choices.begin(), choices.end(), value) == choices.end()) value.clear();
  } else if (!discriminator.empty()) {
    value = scenario_discriminator_default(pattern);  // "" when the key is required
  }
  return value;
}

/// Reports a key that is not in `allowed`, with the closest allowed key as a suggestion.
void report_unknown_key(const Context& ctx, const YAML::Node& key_node, const std::string& key,
                        const std::string& child, const std::vector<std::string>& allowed,
                        ErrorList& errors) {
  errors.attempt([&] {
    std::string message = "unknown key '" + text::excerpt(key) + "'";
    const std::string suggestion = text::closest(key, allowed);
    if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
    ctx.fail(key_node, child, message + "; valid keys: " + text::join(allowed, ", "));
  });
}

/// The entries of a mapping of names (`child_pattern`.NAME): each named, by a valid name, and
/// its keys.
void check_named_entries(const Context& ctx, const YAML::Node& v,
                         const std::string& child_pattern, const std::string& child,
                         ErrorList& errors) {
  if (v.IsMap())
    for (const auto& entry : v) {
      // An empty name (YAML's "  : value") would make an empty key path segment.
      if (!entry.first.IsScalar() || entry.first.Scalar().empty()) {
        errors.attempt([&] {
          ctx.fail(entry.first, child,
                   "an entry without a name (a line starting with ':'?); every entry "
                   "of " + child + " needs a name");
        });
        continue;
      }
      errors.attempt([&] {
        check_name(ctx, entry.first, child + "." + entry.first.Scalar());
      });
      check_keys(ctx, entry.second, child_pattern + ".NAME",
                 child + "." + entry.first.Scalar(), errors);
    }
}

/// Whether a choice key holds one of its words.
void check_choice(const Context& ctx, const ScenarioKey& k, const YAML::Node& v,
                  const std::string& child, ErrorList& errors) {
  errors.attempt([&] {
    std::vector<std::pair<std::string, int>> choices;
    for (const std::string& c : text::split(k.choices, ' ')) choices.emplace_back(c, 0);
    read_choice<int>(ctx, v, child, choices);
  });
}

/// The value `v` of a known key `key` (row `k`) by its type: read on its own, or its keys.
void check_value(const Context& ctx, const ScenarioKey& k, const std::string& key,
                 const std::string& child_pattern, const std::string& child, const YAML::Node& v,
                 ErrorList& errors) {
  switch (k.type) {
    case KeyType::number:
      errors.attempt([&] { read_key_number(ctx, v, child); });
      break;
    case KeyType::integer:
      if (child_pattern != "seed") errors.attempt([&] { read_key_integer(ctx, v, child); });
      break;
    case KeyType::duration:
      errors.attempt([&] { read_key_duration(ctx, v, child); });
      break;
    case KeyType::boolean:
      errors.attempt([&] { read_bool(ctx, v, child); });
      break;
    case KeyType::choice:
      check_choice(ctx, k, v, child, errors);
      break;
    case KeyType::distribution:
      // Empirical samples from a file are read (once) by the reader.
      if (!(v.IsMap() && v["file"])) errors.attempt([&] { read_distribution(ctx, v, child); });
      break;
    case KeyType::mapping:
      if (find_scenario_key(child_pattern + ".NAME")) {
        check_named_entries(ctx, v, child_pattern, child, errors);
      } else {
        check_keys(ctx, v, child_pattern, child, errors);
      }
      break;
    case KeyType::list:
      if (v.IsSequence())
        for (std::size_t i = 0; i < v.size(); ++i)
          check_keys(ctx, v[i], child_pattern + "[]", child + "[" + std::to_string(i) + "]",
                     errors);
      break;
    case KeyType::number_map:
      if (v.IsMap())
        for (const auto& entry : v)
          errors.attempt(
              [&] { read_key_number(ctx, entry.second, child + "." + entry.first.Scalar()); });
      break;
    case KeyType::number_list:
      if (v.IsSequence())
        for (std::size_t i = 0; i < v.size(); ++i)
          errors.attempt(
              [&] { read_key_number(ctx, v[i], child + "[" + std::to_string(i) + "]"); });
      break;
    case KeyType::text:
      if (key == "name" && v.IsScalar()) errors.attempt([&] { check_name(ctx, v, child); });
      break;  // its reader checks the rest (names, files)
    case KeyType::text_list:
    case KeyType::trace_start:
    case KeyType::name_map:
      break;  // their readers check them (names, files, `random`)
  }
}

}  // namespace

void check_keys(const Context& ctx, const YAML::Node& node, const std::string& pattern,
                const std::string& path, ErrorList& errors) {
  if (!node.IsMap()) return;  // the reader says what it must be
  // The discriminator's value selects the keys; an invalid value selects them all (it is
  // reported itself, and must not make every other key unknown).
  const std::string discriminator = scenario_discriminator(pattern);
  const std::string value = discriminator_value(node, pattern, discriminator);
  const std::vector<std::string> allowed = scenario_child_keys(pattern, discriminator, value);
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    const std::string child = join_path(path, key);
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      report_unknown_key(ctx, kv.first, key, child, allowed, errors);
      continue;
    }
    const std::string child_pattern = pattern.empty() ? key : pattern + "." + key;
    const ScenarioKey& k = scenario_key(child_pattern);
    const YAML::Node v = kv.second;
    if (v.IsNull()) continue;
    check_value(ctx, k, key, child_pattern, child, v, errors);
  }
}

}  // namespace gpucap::loader
