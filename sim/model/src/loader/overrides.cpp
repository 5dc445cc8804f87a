// gpucap: scenario loader, overrides (--set, --unset, Python overrides=, sweep grids): a value written at a key path of
// the YAML tree; sequence items by index or by name.
#include "loader.hpp"

#include <algorithm>
#include <cstdlib>

#include "gpucap/detail/yaml_document.hpp"

namespace gpucap::loader {

/// Applies "a.b.c=value" to the YAML tree. Sequence items are addressed by index or by name.
std::string display_path(const YAML::Node& root, const std::string& dotted);

/// `container` (a map) with `key` bound to `value`, in its place (or appended when new), or
/// without `key` when `remove`; the other entries are the same nodes (they keep their places in
/// the file).
YAML::Node with_key(const YAML::Node& container, const std::string& key, const YAML::Node& value,
                    bool remove) {
  YAML::Node out(YAML::NodeType::Map);
  bool found = false;
  if (container.IsMap()) {
    for (const auto& kv : container) {
      const bool here = kv.first.Scalar() == key;
      found = found || here;
      if (here && remove) continue;
      out.force_insert(kv.first, here ? value : kv.second);
    }
  }
  if (!found && !remove) out.force_insert(key, value);
  return out;
}

/// `container` (a sequence) with item `index` replaced by `value`, or without it when `remove`.
YAML::Node with_index(const YAML::Node& container, std::size_t index, const YAML::Node& value,
                      bool remove) {
  YAML::Node out(YAML::NodeType::Sequence);
  for (std::size_t i = 0; i < container.size(); ++i) {
    if (i == index && remove) continue;
    out.push_back(i == index ? value : container[i]);
  }
  return out;
}

/// Applies one override as a functional update: every container on its path is rebuilt around
/// the new value and nothing is written into an existing node. So an alias (`b: *a`, which
/// shares a's node) is never changed through: --set b.quota=4 leaves a alone, whatever else
/// the file shares, and costs only the containers on the path (aliases of aliases are not
/// expanded). The rebuilt containers are recorded in ctx.copied, so that messages about them
/// still point into the file.
YAML::Node set_path(Context& ctx, const YAML::Node& root, const YAML::Node& node,
                    const std::vector<std::string>& parts, std::size_t i, const YAML::Node& value,
                    const std::string& assignment, const std::string& walked) {
  if (i == parts.size()) return value;
  const std::string& part = parts[i];
  if (part.empty())
    throw ScenarioError("--set " + text::excerpt(assignment) + ": empty key in the path");
  const std::string next_walked = join_path(walked, part);
  // A null value (`--set path=null`, `--unset path`, None in Python) deletes the key or item:
  // no scenario key takes null, and deleting is how one form replaces another (autoscaling for
  // replicas).
  const bool remove = i + 1 == parts.size() && value.IsNull();
  YAML::Node rebuilt;
  if (node.IsSequence()) {
    std::size_t index = node.size();
    char* end = nullptr;
    const unsigned long n = std::strtoul(part.c_str(), &end, 10);
    if (*end == '\0') {
      index = n;
    } else {
      for (std::size_t k = 0; k < node.size(); ++k)
        if (node[k].IsMap() && node[k]["name"] && node[k]["name"].Scalar() == part) index = k;
    }
    if (index >= node.size())
      throw ScenarioError("--set " + text::excerpt(assignment) + ": " +
                          (walked.empty() ? "the root" : walked) + " has no item \"" +
                          text::excerpt(part) + "\" (use an index from 0 to " +
                          std::to_string(node.size() - 1) + " or an item's name)");
    rebuilt.reset(with_index(
        node, index, set_path(ctx, root, node[index], parts, i + 1, value, assignment, next_walked),
        remove));
  } else if (node.IsMap() || !node.IsDefined() || node.IsNull()) {
    const YAML::Node child = node.IsMap() && node[part] ? node[part] : YAML::Node();
    rebuilt.reset(with_key(node, part,
                           set_path(ctx, root, child, parts, i + 1, value, assignment, next_walked),
                           remove));
  } else {
    throw ScenarioError("--set " + text::excerpt(assignment) + ": " + walked +
                        " is a single value, so it has no key \"" + text::excerpt(part) + "\"");
  }
  if (node.Mark().pos >= 0) ctx.copied.emplace_back(display_path(root, walked), node);
  return rebuilt;
}

/// Segments of an override's key path. The deepest scenario key has six (e.g.
/// workloads.0.arrivals.profile.hourly.0); the bound keeps the walk, its messages and the
/// functional update of set_path shallow and linear whatever the user passes.
constexpr std::size_t kMaxKeyPathSegments = 32;

void apply_override(Context& ctx, YAML::Node& root, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ScenarioError("--set " + text::excerpt(assignment) +
                        ": expected dotted.path=value, e.g. pools.aws-od.quota=16");
  if (const std::size_t bad = text::first_invalid_utf8(assignment); bad != std::string::npos)
    throw ScenarioError("--set " + text::excerpt(assignment) + ": byte " + std::to_string(bad + 1) +
                        " is not valid UTF-8; overrides are UTF-8 text");
  const std::string path = assignment.substr(0, eq);
  const std::size_t segments = 1 + static_cast<std::size_t>(std::count(path.begin(), path.end(), '.'));
  if (segments > kMaxKeyPathSegments)
    throw ScenarioError("--set " + text::excerpt(assignment) + ": the key path has " +
                        std::to_string(segments) + " segments; scenario key paths have at most " +
                        std::to_string(kMaxKeyPathSegments) +
                        " (e.g. workloads.0.checkpoint.interval)");
  const std::string value_text = assignment.substr(eq + 1);
  if (value_text.size() > ctx.limits.scenario_bytes)
    throw ScenarioError("--set " + text::excerpt(assignment) + ": the value is " +
                        format_bytes(value_text.size()) + ", over the scenario's limit of " +
                        format_bytes(ctx.limits.scenario_bytes) +
                        " (raise it with --max-scenario-size)");
  YAML::Node value;
  try {
    value = detail::load_yaml_document(value_text, "the value");
  } catch (const ScenarioError& e) {
    throw ScenarioError("--set " + text::excerpt(assignment) + ": " + e.what());
  }
  const YAML::Node updated =
      set_path(ctx, root, root, text::split(path, '.'), 0, value, assignment, "");
  root.reset(updated);
}

std::string display_path(const YAML::Node& root, const std::string& dotted) {
  const std::vector<std::string> parts = text::split(dotted, '.');
  std::string out;
  YAML::Node node = root;
  for (const auto& part : parts) {
    if (node && node.IsSequence()) {
      std::size_t index = node.size();
      char* end = nullptr;
      const unsigned long n = std::strtoul(part.c_str(), &end, 10);
      if (*end == '\0')
        index = n;
      else
        for (std::size_t k = 0; k < node.size(); ++k)
          if (node[k].IsMap() && node[k]["name"] && node[k]["name"].Scalar() == part) index = k;
      out += "[" + std::to_string(index) + "]";
      node.reset(index < node.size() ? node[index] : YAML::Node());
    } else {
      out = join_path(out, part);
      node.reset(node && node.IsMap() ? node[part] : YAML::Node());
    }
  }
  return out;
}

}  // namespace gpucap::loader
