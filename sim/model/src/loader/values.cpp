// gpucap: scenario loader, the values every section reads: text, numbers, whole numbers, seeds,
// booleans, durations, factors, references to declared names, numbers within the key table's
// range for their key, and the plain keys a row binds to a field (read_plain_keys).
#include "loader.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <utility>

#include "gpucap/quantities.hpp"

namespace gpucap::loader {

std::string join_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string describe(const YAML::Node& node) {
  if (node.IsScalar()) return "\"" + text::excerpt(node.Scalar()) + "\"";
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  return "nothing";
}

void expect_unique_keys(const Context& ctx, const YAML::Node& map, const std::string& path) {
  std::set<std::string> seen;
  for (const auto& kv : map) {
    const std::string key = kv.first.Scalar();
    if (!seen.insert(key).second)
      ctx.fail(kv.first, join_path(path, key),
               "\"" + text::excerpt(key) + "\" is defined twice in " +
                   (path.empty() ? "the scenario" : path));
  }
}

void expect_map(const Context& ctx, const YAML::Node& node, const std::string& path,
                const std::vector<std::string>& allowed) {
  if (!node.IsMap())
    ctx.fail(node, path,
             "must be a mapping of " + text::join(allowed, ", ") + "; got " + describe(node));
  expect_unique_keys(ctx, node, path);
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string message = "unknown key '" + text::excerpt(key) + "'";
    const std::string suggestion = text::closest(key, allowed);
    if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
    message += "; valid keys: " + text::join(allowed, ", ");
    ctx.fail(kv.first, join_path(path, key), message);
  }
}

YAML::Node require(const Context& ctx, const YAML::Node& map, const std::string& path,
                   const std::string& key, const std::string& what) {
  const YAML::Node child = map[key];
  if (!child || child.IsNull()) ctx.fail(map, join_path(path, key), "is required: " + what);
  return child;
}

std::string read_string(const Context& ctx, const YAML::Node& node, const std::string& path) {
  if (!node.IsScalar()) ctx.fail(node, path, "must be a text value, got " + describe(node));
  return node.Scalar();
}

double read_number(const Context& ctx, const YAML::Node& node, const std::string& path) {
  if (!node.IsScalar()) ctx.fail(node, path, "must be a number, got " + describe(node));
  const std::string& s = node.Scalar();
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !std::isfinite(v))
    ctx.fail(node, path, "must be a finite number, got " + describe(node));
  if (v != 0 && !(std::fabs(v) >= kMinMagnitude && std::fabs(v) <= kMaxMagnitude))
    ctx.fail(node, path,
             "must be 0 or between 1e-12 and 1e12 in magnitude (prices, rates, sizes and factors "
             "beyond that overflow the sums of a long run or divide into infinity), got " +
                 describe(node));
  return v;
}

int64_t read_integer(const Context& ctx, const YAML::Node& node, const std::string& path,
                     int64_t lo, int64_t hi) {
  const std::string valid =
      "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
  if (!node.IsScalar()) ctx.fail(node, path, "must be " + valid + ", got " + describe(node));
  const std::string& s = node.Scalar();
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  // ERANGE: strtoll clamps values beyond 64 bits, which must not pass as the clamped value.
  if (s.empty() || *end != '\0' || errno == ERANGE || v < lo || v > hi)
    ctx.fail(node, path, "must be " + valid + ", got " + describe(node));
  return v;
}

uint64_t read_seed(const Context& ctx, const YAML::Node& node, const std::string& path) {
  const std::string valid = "a whole number from 0 to 18446744073709551615 (2^64 - 1)";
  if (!node.IsScalar()) ctx.fail(node, path, "must be " + valid + ", got " + describe(node));
  try {
    return parse_seed(node.Scalar());
  } catch (const std::invalid_argument&) {
    ctx.fail(node, path, "must be " + valid + ", got " + describe(node));
  }
}

bool read_bool(const Context& ctx, const YAML::Node& node, const std::string& path) {
  const std::string s = read_string(ctx, node, path);
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  ctx.fail(node, path, "must be true or false, got " + describe(node));
}

double read_duration(const Context& ctx, const YAML::Node& node, const std::string& path,
                     bool allow_zero) {
  if (!node.IsScalar())
    ctx.fail(node, path, "must be a duration such as 90s, 30min, 12h or 3d; got " + describe(node));
  double v = 0;
  try {
    v = parse_duration_s(node.Scalar());
  } catch (const std::invalid_argument& e) {
    ctx.fail(node, path, e.what());
  }
  if (v > kMaxDurationS)
    ctx.fail(node, path,
             "must be at most 10000 years (3.156e11 s), got " + text::format_number(v) + " s");
  if (v > 0 && v < kMinDurationS)
    ctx.fail(node, path,
             "must be 0 or at least 1 us (1e-6 s): shorter times stop the clock from advancing, "
             "got " +
                 text::format_number(v) + " s");
  if (allow_zero ? v < 0 : v <= 0)
    ctx.fail(node, path,
             std::string("must be a duration ") + (allow_zero ? ">= 0" : "> 0") + ", got " +
                 text::excerpt(node.Scalar()));
  return v;
}

// ---- values read as the key table says -------------------------------------------------------

const ScenarioKey& key_row(const std::string& path) {
  return scenario_key(scenario_key_pattern(path));
}

/// What a value of `k` must be, for messages: "a price >= 0 USD per GPU-hour", "a rate > 0".
std::string key_requirement(const ScenarioKey& k) {
  std::string noun;
  switch (k.unit) {
    case UnitKind::duration: noun = "a duration"; break;
    case UnitKind::usd_per_gpu_hour:
    case UnitKind::usd_per_gpu_second:
    case UnitKind::usd_per_gpu:
    case UnitKind::usd_per_gb: noun = "a price"; break;
    case UnitKind::rate: noun = "a rate"; break;
    case UnitKind::probability: noun = "a probability"; break;
    case UnitKind::factor: noun = "a factor"; break;
    case UnitKind::years: noun = "a number of years"; break;
    case UnitKind::gpu_memory_gb: noun = "GB of memory per GPU"; break;
    case UnitKind::bandwidth_gbps: noun = "a bandwidth"; break;
    case UnitKind::throughput_gb_per_s: noun = "a throughput"; break;
    case UnitKind::latency_ms: noun = "a latency"; break;
    case UnitKind::data_gb:
    case UnitKind::kilobytes: noun = "a size"; break;
    default: noun = "a number"; break;
  }
  std::string range;
  if (std::isfinite(k.lo.value))
    range = std::string(k.lo.open ? " > " : " >= ") + text::format_number(k.lo.value);
  if (std::isfinite(k.hi.value) && k.hi.open)
    range += std::string(range.empty() ? " " : " and ") + "< " + text::format_number(k.hi.value);
  std::string unit = k.unit_text;
  const bool plain = unit.empty() || unit.rfind("–", 0) == 0 || unit == "s" ||
                     (k.unit == UnitKind::rate && unit.rfind("per ", 0) != 0) || k.unit == UnitKind::years ||
                     k.unit == UnitKind::gpu_memory_gb;
  return noun + range + (plain ? "" : " " + unit);
}

void check_key_upper(const Context& ctx, const YAML::Node& node, const std::string& path,
                     const ScenarioKey& k, double v) {
  const KeyBound hi = scenario_key_upper(k);
  if (hi.open ? v < hi.value : v <= hi.value) return;
  if (hi.open)  // the key's note says why its end is excluded
    ctx.fail(node, path,
             "must be " + key_requirement(k) + (*k.valid_note ? std::string(" (") + k.valid_note + ")" : "") +
                 ", got " + describe(node));
  const bool own = hi.value == k.hi.value;
  std::string bound = text::format_number(hi.value);
  if (k.unit == UnitKind::duration) {  // "1000 years (3.15576e+10 s)"
    const std::string range = describe_key_range(k);
    bound = range.substr(range.rfind("at most ") + 8) + " (" + bound + " s)";
  }
  else if (k.unit_text[0] != '\0' && std::string(k.unit_text).rfind("–", 0) != 0)
    bound += std::string(" ") + k.unit_text;
  ctx.fail(node, path,
           "must be at most " + bound +
               (own ? std::string()
                    : std::string(" (the largest ") + unit_kind_name(k.unit) +
                          " gpucap accepts, so that the sums of a long run stay finite)") +
               ", got " +
               (k.unit == UnitKind::duration ? text::format_number(v) + " s" : describe(node)));
}

double read_key_number(const Context& ctx, const YAML::Node& node, const std::string& path) {
  const ScenarioKey& k = key_row(path);
  const double v = read_number(ctx, node, path);
  if (std::isfinite(k.lo.value) && (k.lo.open ? !(v > k.lo.value) : !(v >= k.lo.value)))
    ctx.fail(node, path, "must be " + key_requirement(k) + ", got " + text::excerpt(node.Scalar()));
  check_key_upper(ctx, node, path, k, v);
  return v;
}

int64_t read_key_integer(const Context& ctx, const YAML::Node& node, const std::string& path) {
  const ScenarioKey& k = key_row(path);
  return read_integer(ctx, node, path, static_cast<int64_t>(k.lo.value),
                      static_cast<int64_t>(scenario_key_upper(k).value));
}

double read_key_duration(const Context& ctx, const YAML::Node& node, const std::string& path) {
  const ScenarioKey& k = key_row(path);
  const double v = read_duration(ctx, node, path, !(k.lo.open && k.lo.value == 0));
  check_key_upper(ctx, node, path, k, v);
  return v;
}


double read_trace_start(const Context& ctx, const YAML::Node& node, const std::string& path,
                        bool& random) {
  if (node.IsScalar() && node.Scalar() == "random") {
    random = true;
    return 0;
  }
  if (node.IsScalar()) {
    std::string lower = node.Scalar();
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (text::trim(lower) == "random")
      ctx.fail(node, path,
               "unknown value " + describe(node) +
                   " (did you mean 'random'?); valid: random, or a duration >= 0 into the trace");
  }
  return read_duration(ctx, node, path, true);
}

// ---- distributions --------------------------------------------------------------------------

std::vector<double> read_csv_column(const Context& ctx, const YAML::Node& at,
                                    const std::string& path, const std::string& file,
                                    const std::string& column) {
  try {
    const CsvTable table = ctx.read_csv(at, path, file);
    return table.numbers(column);
  } catch (const ScenarioError&) {
    throw;
  } catch (const std::runtime_error& e) {
    ctx.fail(at, path, e.what());
  }
}

double read_factor(const Context& ctx, const YAML::Node& node, const std::string& path) {
  if (node.IsScalar()) {
    const std::string& s = node.Scalar();
    char* end = nullptr;
    std::strtod(s.c_str(), &end);
    if (end != s.c_str() && *end != '\0') {
      try {
        parse_duration_s(s);
        ctx.fail(node, path,
                 "is a plain factor, not a time: write a number without a unit, got " +
                     describe(node));
      } catch (const std::invalid_argument&) {
      }
    }
  }
  return read_number(ctx, node, path);
}

std::vector<std::string> keys_of(const YAML::Node& map) {
  std::vector<std::string> keys;
  for (const auto& kv : map) keys.push_back(kv.first.Scalar());
  return keys;
}

std::string read_reference(const Context& ctx, const YAML::Node& node, const std::string& path,
                           const std::vector<std::string>& names, const std::string& section) {
  const std::string s = read_string(ctx, node, path);
  if (std::find(names.begin(), names.end(), s) != names.end()) return s;
  std::string message = "no " + section + " named \"" + text::excerpt(s) + "\"";
  const std::string suggestion = text::closest(s, names);
  if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
  ctx.fail(node, path, message + "; declared: " + text::join(names, ", "));
}

namespace {

/// The row of `pattern`.`key` bound to one of `specs`, and the spec it fills; {nullptr, nullptr}
/// for a key no row binds there.
std::pair<const ScenarioKey*, void*> bound_row(const std::string& pattern, const std::string& key,
                                               std::initializer_list<BoundSpec> specs) {
  for (const ScenarioKey* row : scenario_key_rows(pattern + "." + key))
    for (const BoundSpec& b : specs)
      if (row->binding.target == b.target && row->binding.store) return {row, b.spec};
  return {nullptr, nullptr};
}

/// The value of a bound key by its row's type and range: in the key's unit, a whole number,
/// or 0 or 1.
double read_bound_value(const Context& ctx, const ScenarioKey& row, const YAML::Node& value,
                        const std::string& path) {
  switch (row.type) {
    case KeyType::number: return read_key_number(ctx, value, path);
    case KeyType::integer: return static_cast<double>(read_key_integer(ctx, value, path));
    case KeyType::duration: return read_key_duration(ctx, value, path);
    case KeyType::boolean: return read_bool(ctx, value, path) ? 1 : 0;
    default:
      throw std::logic_error(std::string("key ") + row.path + " binds a field but is not a "
                             "number, whole number, duration or boolean");
  }
}

}  // namespace

void read_plain_keys(const Context& ctx, const YAML::Node& node, const std::string& path,
                     const std::string& pattern, std::initializer_list<BoundSpec> specs) {
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    const auto [row, spec] = bound_row(pattern, key, specs);
    if (!row) continue;
    if (row->binding.required) require(ctx, node, path, key, row->binding.required);
    row->binding.store(spec, read_bound_value(ctx, *row, kv.second, join_path(path, key)));
  }
  // A required key the mapping lacks, in the table's order.
  for (const std::string& key : scenario_child_keys(pattern)) {
    const auto [row, spec] = bound_row(pattern, key, specs);
    if (row && row->binding.required) require(ctx, node, path, key, row->binding.required);
  }
}

}  // namespace gpucap::loader
