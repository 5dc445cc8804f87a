// gpucap: scenario file parsing and validation (format v1): the entry points. The text is checked
// (UTF-8, one document), overrides applied, and the sections read by the readers of loader/
// (loader.hpp). Errors name file:line:column, the key path, the problem and what would be valid.
#include "gpucap/scenario_loader.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>
#include <sstream>
#include <yaml-cpp/yaml.h>

#include "gpucap/detail/text.hpp"
#include "gpucap/detail/yaml_document.hpp"
#include "gpucap/scenario_keys.hpp"
#include "loader/loader.hpp"

namespace gpucap {

using namespace loader;

Scenario parse_scenario(const std::string& yaml_text_in, const std::string& origin,
                        const std::string& base_dir, const std::vector<std::string>& overrides,
                        const InputLimits& limits) {
  if (yaml_text_in.size() > limits.scenario_bytes)
    throw InputFileError(text::excerpt(origin, 200) + ": the scenario is " +
                         format_bytes(yaml_text_in.size()) + ", over the limit of " +
                         format_bytes(limits.scenario_bytes) +
                         " (raise it with --max-scenario-size)");
  std::string yaml_text = yaml_text_in;
  normalize_line_breaks(yaml_text);
  std::vector<std::string> inputs;
  std::vector<Context::DataFileRead> data_files;
  Context ctx{origin, base_dir, nullptr, {}, limits, &inputs, &data_files, {}};
  YAML::Node root = detail::load_yaml_document(yaml_text, origin);
  if (!root.IsMap())
    throw ScenarioError(text::excerpt(origin, 200) +
                        ": a scenario must be a YAML mapping with name, horizon, pools "
                        "and workloads; got " +
                        (root.IsSequence() ? "a list"
                         : root.IsScalar() ? "a single value"
                                           : "an empty document"));
  std::vector<std::pair<std::string, std::string>> assignments;
  for (const auto& assignment : overrides) {
    apply_override(ctx, root, assignment);
    const auto eq = assignment.find('=');
    ctx.overrides.emplace_back(display_path(root, assignment.substr(0, eq)), assignment);
    assignments.emplace_back(assignment.substr(0, eq), assignment.substr(eq + 1));
  }
  Scenario s = read_scenario(ctx, root);
  s.source_path = origin;
  s.original_text = yaml_text;
  s.overrides = std::move(assignments);
  s.input_files = std::move(inputs);
  for (const Context::DataFileRead& read : data_files)
    merge_data_file_records(s.data_files, {data_file_record(*read.file, read.path, read.resolved)});
  if (overrides.empty()) {
    s.source_text = yaml_text;
  } else {
    // The emitter quotes every value as YAML requires; the comment line is escaped (an override
    // may hold a newline or '#'), and the overrides themselves are kept in `overrides`.
    YAML::Emitter out;
    out << root;
    s.source_text = "# " + text::excerpt(origin, 200) + " with --set " +
                    text::excerpt(text::join(overrides, " --set "), 1000) + "\n" + out.c_str() +
                    "\n";
  }
  return s;
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides,
                       const InputLimits& limits) {
  const std::string text =
      read_input_file(path, limits.scenario_bytes, "scenario file", "--max-scenario-size");
  const auto slash = path.find_last_of('/');
  const std::string dir =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  Scenario s = parse_scenario(text, path, dir, overrides, limits);
  s.input_files.insert(s.input_files.begin(), path);
  return s;
}

}  // namespace gpucap
