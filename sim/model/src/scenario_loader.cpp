// gpucap: scenario file parsing and validation (format v1).
//
// Each reader below takes a YAML node and its dotted key path, checks the node's shape and the
// values' ranges, and converts units. Errors name file:line:column, the key path, the problem and
// what would be valid (see fail()).
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

#include "gpucap/data_file.hpp"
#include "gpucap/csv_table.hpp"
#include "gpucap/json_reader.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/detail/yaml_document.hpp"
#include "gpucap/scenario_keys.hpp"

namespace gpucap {
namespace {

// Event payloads carry 21 bits (a job slot, one per GPU of quota); kept well inside that.
constexpr uint32_t kMaxTotalQuotaGpus = 0xFFFFF;
/// Bins of a time series (per pool and replication: its values are output, not arena state).
constexpr uint32_t kMaxTimeseriesBins = 100000;
/// Pools of a scenario: the compiled model keeps a table of every pair of pools (links for
/// checkpoint moves), 16 bytes each, so 1024 pools take 16 MiB.
constexpr std::size_t kMaxPools = 1024;
/// (workload, pool) pairs: the compiled model keeps a transfer time and price for each.
constexpr std::size_t kMaxClassPoolPairs = std::size_t{1} << 22;

/// One row of a price catalog (data/gpu_prices.csv): what a pool can take from it.
struct CatalogRow {
  std::string gpu_model;
  double gpu_memory_gb = 0;
  double on_demand_usd_per_gpu_hour = 0;
  double spot_usd_per_gpu_hour = -1;  ///< < 0: the catalog has no spot price
};
using Catalog = std::map<std::string, CatalogRow>;  ///< by "provider/instance_type/region"

/// A scenario error with its place in the file, so that several can be listed in file order.
class LocatedError : public ScenarioError {
 public:
  LocatedError(const std::string& message, int line, int column)
      : ScenarioError(message), line(line), column(column) {}
  int line, column;  ///< 0-based; -1 when the problem has no place in the file (an override)
};

/// Most problems one file reports at once.
constexpr std::size_t kMaxListedErrors = 20;

/// Plain numbers (prices, rates, sizes, factors) are 0 or within [1e-12, 1e12] in magnitude: a
/// price of 1e12 USD per GPU-hour over 1e6 GPUs and 1000 years stays far inside a double, and
/// no reciprocal or quotient of two such numbers overflows.
constexpr double kMinMagnitude = 1e-12, kMaxMagnitude = 1e12;
/// Durations are 0 or within [1 us, 10000 years]: below 1 us a recurring process no longer moves
/// the clock, and 10000 years bound every sum of durations far inside a double's exact range.
constexpr double kMinDurationS = 1e-6, kMaxDurationS = 1e4 * 365.25 * 86400.0;

/// Longest message a scenario error carries (bytes); longer ones are cut with their length.
constexpr std::size_t kMaxMessageBytes = 2000;

struct Context {
  std::string origin;                ///< file name shown in messages
  std::string base_dir;              ///< for relative data files
  const Catalog* catalog = nullptr;  ///< the scenario's `catalog`, when it names one
  /// (scenario key path, the assignment as given) of each --set override
  std::vector<std::pair<std::string, std::string>> overrides;

  std::string where(const YAML::Node& node, const std::string& path) const {
    if (const std::string* value = override_of(path))
      return origin + ": (from --set " + text::excerpt(*value) + ")";
    const YAML::Mark mark = mark_of(node, path);
    if (mark.line < 0) {
      // A node without a place in the file: created by an override on its way to its key
      // (`checkpoint` for --set workloads.0.checkpoint.interval=1h, or the pool `b` for
      // --set pools.b.gpu=H100). Name the override that reaches deepest into its path.
      for (std::string scope = path; !scope.empty();) {
        for (auto it = overrides.rbegin(); it != overrides.rend(); ++it)
          if (it->first.rfind(scope + ".", 0) == 0 || it->first.rfind(scope + "[", 0) == 0)
            return origin + ": (created by --set " + text::excerpt(it->second) + ")";
        const std::size_t cut = scope.find_last_of(".[");
        scope = cut == std::string::npos ? std::string() : scope.substr(0, cut);
      }
      return origin;
    }
    return origin + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
  }

  /// The override (as given) whose value holds the key `path`, or nullptr.
  const std::string* override_of(const std::string& path) const {
    for (const auto& [opath, value] : overrides)
      if (path == opath || path.rfind(opath + ".", 0) == 0 || path.rfind(opath + "[", 0) == 0)
        return &value;
    return nullptr;
  }

  /// The place in the file of `node`, the value at `path`: its own, or in a container an
  /// override rebuilt, its original's. A mapping reported for a missing key (path = the
  /// mapping's path + the key) is placed where the mapping was.
  YAML::Mark mark_of(const YAML::Node& node, const std::string& path) const {
    YAML::Mark mark = node.Mark();
    if (mark.line < 0) mark = original_mark(path);
    const std::size_t cut = path.find_last_of(".[");
    if (mark.line < 0 && node.IsMap() && cut != std::string::npos)
      mark = original_mark(path.substr(0, cut));
    return mark;
  }

  /// The place in the file of the node at `path` inside a copy of an alias (its original's),
  /// or a mark with line -1.
  YAML::Mark original_mark(const std::string& path) const {
    for (const auto& [prefix, original] : copied) {
      if (path != prefix && path.rfind(prefix + ".", 0) != 0 && path.rfind(prefix + "[", 0) != 0)
        continue;
      YAML::Node node = original;
      std::string rest = path.substr(prefix.size());
      while (!rest.empty() && node) {
        if (rest[0] == '[') {
          const std::size_t close = rest.find(']');
          const std::size_t index = std::strtoul(rest.c_str() + 1, nullptr, 10);
          if (close == std::string::npos || !node.IsSequence() || index >= node.size()) break;
          node.reset(node[index]);
          rest = rest.substr(close + 1);
        } else {
          const std::size_t end = rest.find_first_of(".[", 1);
          const std::string key = rest.substr(1, end == std::string::npos ? end : end - 1);
          if (!node.IsMap() || !node[key]) break;
          node.reset(node[key]);
          rest = end == std::string::npos ? std::string() : rest.substr(end);
        }
      }
      if (rest.empty() && node) return node.Mark();
    }
    return YAML::Mark::null_mark();
  }

  [[noreturn]] void fail(const YAML::Node& node, const std::string& path,
                         const std::string& message) const {
    // Every value quoted in `message` is an excerpt already; the cap is a last line of defence
    // against keys and paths of hostile length.
    // A value from an override has no place in the file (its text's marks start at 0:0).
    const YAML::Mark mark = override_of(path) ? YAML::Mark::null_mark() : mark_of(node, path);
    throw LocatedError(
        text::excerpt(where(node, path) + ": " + (path.empty() ? "" : path + ": ") + message,
                      kMaxMessageBytes),
        mark.line, mark.column);
  }

  std::string resolve(const std::string& file) const {
    if (file.empty() || file[0] == '/' || base_dir.empty()) return file;
    return base_dir + "/" + file;
  }

  /// The data file `file` that the key `path` (at `node`) names: resolved against the
  /// scenario's folder, read within the data budget (once per process: read_data_file shares
  /// it) and recorded as an input of the run. A file that cannot be read raises
  /// InputFileError located at the key.
  std::shared_ptr<const DataFile> read_data(const YAML::Node& node, const std::string& path,
                                            const std::string& file) const {
    const std::string resolved = resolve(file);
    try {
      std::shared_ptr<const DataFile> content =
          read_data_file(resolved, limits.data_bytes, "data file", "--max-data-size");
      if (inputs) inputs->push_back(resolved);
      if (data_files) data_files->push_back({file, resolved, content});
      return content;
    } catch (const InputFileError& e) {
      throw InputFileError(where(node, path) + ": " + path + ": " + e.what());
    }
  }

  /// A data file read as a CSV table (see read_data), its structure and number columns shared.
  CsvTable read_csv(const YAML::Node& node, const std::string& path,
                            const std::string& file) const {
    const std::string resolved = resolve(file);
    return CsvTable::of(read_data(node, path, file), resolved);
  }

  InputLimits limits;                          ///< byte budgets of the files read
  std::vector<std::string>* inputs = nullptr;  ///< every data file read, resolved
  /// Each data file read: (path as given, as resolved, the file). Their provenance records are
  /// made once the scenario is read, so that a large file's SHA-256 runs while it is parsed.
  struct DataFileRead {
    std::string path, resolved;
    std::shared_ptr<const DataFile> file;
  };
  std::vector<DataFileRead>* data_files = nullptr;
  /// Aliased nodes an override copied: (the copy's key path, the original node). A copy has
  /// no place in the file; messages about it point at the original.
  std::vector<std::pair<std::string, YAML::Node>> copied;
};

std::string join_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string describe(const YAML::Node& node) {
  if (node.IsScalar()) return "\"" + text::excerpt(node.Scalar()) + "\"";
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  return "nothing";
}

/// Rejects a mapping that names the same key twice (YAML parsers keep both silently).
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

/// Checks that `node` is a mapping whose keys are all in `allowed`.
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

/// A seed: a whole number from 0 to 2^64 - 1 (the Philox key's width).
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

/// A duration: a number of seconds or text with a unit (us, ms, s, min, h, d, w).
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

/// The row of the key at `path` ("pools.a100.quota" -> pools.NAME.quota); a key the table
/// lacks is a programming error (std::logic_error).
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

/// The upper end of `k`'s range, checked after its lower end: "must be at most 1e+06 USD per
/// GPU-hour (...)". `v` is in the key's unit (seconds for a duration).
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

/// A number of the key at `path`, within the key table's range for it.
double read_key_number(const Context& ctx, const YAML::Node& node, const std::string& path) {
  const ScenarioKey& k = key_row(path);
  const double v = read_number(ctx, node, path);
  if (std::isfinite(k.lo.value) && (k.lo.open ? !(v > k.lo.value) : !(v >= k.lo.value)))
    ctx.fail(node, path, "must be " + key_requirement(k) + ", got " + text::excerpt(node.Scalar()));
  check_key_upper(ctx, node, path, k, v);
  return v;
}

/// A whole number of the key at `path`, within the key table's range for it.
int64_t read_key_integer(const Context& ctx, const YAML::Node& node, const std::string& path) {
  const ScenarioKey& k = key_row(path);
  return read_integer(ctx, node, path, static_cast<int64_t>(k.lo.value),
                      static_cast<int64_t>(scenario_key_upper(k).value));
}

/// A duration of the key at `path` (seconds), within the key table's range for it.
double read_key_duration(const Context& ctx, const YAML::Node& node, const std::string& path) {
  const ScenarioKey& k = key_row(path);
  const double v = read_duration(ctx, node, path, !(k.lo.open && k.lo.value == 0));
  check_key_upper(ctx, node, path, k, v);
  return v;
}

template <typename Enum>
Enum read_choice(const Context& ctx, const YAML::Node& node, const std::string& path,
                 const std::vector<std::pair<std::string, Enum>>& choices) {
  const std::string s = read_string(ctx, node, path);
  std::vector<std::string> names;
  for (const auto& [name, value] : choices) {
    if (name == s) return value;
    names.push_back(name);
  }
  std::string message = "unknown value " + describe(node);
  const std::string suggestion = text::closest(s, names);
  if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
  ctx.fail(node, path, message + "; valid: " + text::join(names, ", "));
}

/// Where a trace starts at t = 0: `random` (each replication draws a uniform offset; sets
/// `random`) or a duration >= 0 into the trace. A spelling of "random" in other letters
/// ("Random", "RANDOM") gets a suggestion rather than a duration's message.
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

/// A plain number where the key table asks for a factor: a value with a time unit ("1.5d") gets
/// its own message, since it would otherwise be read as that many seconds.
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

/// The two values of an availability trace in JSON, {"metadata": {"gap_seconds": N}, "data":
/// [counts...]}, read strictly: a string is not a number, every count is a number >= 0, the gap
/// a number of seconds > 0 (within the bounds of every duration). Other metadata is ignored.
class AvailabilityJson : public JsonVisitor {
 public:
  bool has_gap = false, has_data = false;
  double gap_s = 0;
  std::vector<double> counts;

  void begin_object(const std::string& path, const JsonPosition& at) override {
    if (path == "data" || is_count(path)) refuse(path, "an object", at);
  }
  void begin_array(const std::string& path, const JsonPosition& at) override {
    if (path == "data") {
      has_data = true;
      return;
    }
    if (path == "" || path == "metadata" || path == "metadata.gap_seconds" || is_count(path))
      refuse(path, "a list", at);
  }
  void end(const std::string&) override {}
  void number(const std::string& path, double v, const JsonPosition& at) override {
    if (path == "metadata.gap_seconds") {
      if (!(v >= kMinDurationS && v <= kMaxDurationS))
        throw JsonError(at,
                                "metadata.gap_seconds must be a number of seconds from 1e-6 "
                                "to 3.156e11, got " +
                                    text::format_number(v));
      gap_s = v;
      has_gap = true;
    } else if (is_count(path)) {
      if (!(v >= 0 && v <= kMaxMagnitude))
        throw JsonError(at, path + " (instances) must be a count from 0 to 1e12, got " +
                                        text::format_number(v));
      counts.push_back(v);
    } else if (path == "" || path == "metadata" || path == "data") {
      refuse(path, "a number", at);
    }
  }
  void other(const std::string& path, const char* kind, const std::string& value,
             const JsonPosition& at) override {
    if (path == "" || path == "metadata" || path == "metadata.gap_seconds" || path == "data" ||
        is_count(path))
      refuse(path,
             std::string("the ") + kind + " " +
                 (std::string(kind) == "string" ? "\"" + text::excerpt(value) + "\"" : value),
             at);
  }

 private:
  /// "data[N]": one count (deeper paths are refused where they start).
  static bool is_count(const std::string& path) {
    return path.size() > 6 && path.compare(0, 5, "data[") == 0 &&
           path.find('[', 5) == std::string::npos && path.back() == ']';
  }
  [[noreturn]] static void refuse(const std::string& path, const std::string& got,
                                  const JsonPosition& at) {
    const std::string what = path.empty()                     ? "the document"
                             : path == "metadata"             ? "metadata"
                             : path == "metadata.gap_seconds" ? "metadata.gap_seconds"
                             : path == "data"                 ? "data"
                                                              : path + " (instances)";
    const std::string valid = path.empty()                     ? "an object with metadata and data"
                              : path == "metadata"             ? "an object with gap_seconds"
                              : path == "data"                 ? "a list of counts"
                              : path == "metadata.gap_seconds" ? "a number of seconds"
                                                               : "a number";
    throw JsonError(at, what + " must be " + valid + ", got " + got);
  }
};

/// The samples of an empirical distribution read from a preemption log: one instance's state
/// at a fixed step (running when > 0, preempted or relaunching when 0), from JSON in the format
/// of the public spot traces ({"metadata": {"gap_seconds": N}, "data": [...]}) or from a CSV
/// column with `step`. Each maximal run of running steps is one lifetime (steps x step s); the
/// preempted steps between them (relaunch delays) are not lifetimes. A run cut by the log's
/// start (left-truncated) or end (still running: right-censored) is a lower bound of its
/// lifetime: kept as it is (`partial: keep`, the default) or dropped (`partial: drop`).
std::vector<double> read_preemption_log(const Context& ctx, const YAML::Node& node,
                                        const std::string& path) {
  const YAML::Node file_node = node["preemption_log"];
  const std::string fpath = join_path(path, "preemption_log");
  const std::string file = read_string(ctx, file_node, fpath);
  const std::string resolved = ctx.resolve(file);
  const bool json = resolved.size() >= 5 && resolved.substr(resolved.size() - 5) == ".json";
  double step_s = 0;
  std::vector<double> states;
  if (json) {
    if (node["column"] || node["step"])
      ctx.fail(node, path,
               "a JSON preemption log carries its own step (metadata.gap_seconds) and states; "
               "remove column and step");
    AvailabilityJson log;
    try {
      read_json(ctx.read_data(file_node, fpath, file)->text(), log);
    } catch (const JsonError& e) {
      ctx.fail(file_node, fpath, text::excerpt(resolved, 300) + ":" + e.what());
    }
    if (!log.has_gap || !log.has_data)
      ctx.fail(file_node, fpath,
               text::excerpt(resolved, 300) +
                   ": expected {\"metadata\": {\"gap_seconds\": N}, \"data\": [states...]}; "
                   "missing " + (log.has_gap ? "data" : "metadata.gap_seconds"));
    step_s = log.gap_s;
    states = std::move(log.counts);
  } else {
    const std::string column = read_string(
        ctx, require(ctx, node, path, "column", "the CSV column of states (running > 0)"),
        join_path(path, "column"));
    step_s = read_duration(ctx, require(ctx, node, path, "step", "the time between rows"),
                           join_path(path, "step"), false);
    states = read_csv_column(ctx, file_node, fpath, file, column);
    for (double v : states)
      if (!(v >= 0))
        ctx.fail(file_node, fpath, "column '" + column + "' must hold states >= 0 (0: preempted)");
  }
  bool keep_partial = true;
  if (node["partial"])
    keep_partial = read_choice<bool>(ctx, node["partial"], join_path(path, "partial"),
                                     {{"keep", true}, {"drop", false}});
  std::vector<double> lifetimes;
  std::size_t partial = 0;
  for (std::size_t i = 0; i < states.size();) {
    if (!(states[i] > 0)) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < states.size() && states[end] > 0) ++end;
    const bool cut = i == 0 || end == states.size();
    partial += cut;
    if (!cut || keep_partial) lifetimes.push_back(static_cast<double>(end - i) * step_s);
    i = end;
  }
  if (lifetimes.empty())
    ctx.fail(file_node, fpath,
             text::excerpt(resolved, 300) + ": the log has no " +
                 (partial > 0 ? "complete running period (its only one is cut by the log's "
                                "start or end; use partial: keep)"
                              : "running period (no state > 0)"));
  return lifetimes;
}

/// A distribution: a fixed value or a mapping with `dist` and its parameters. The key table
/// says what it measures: a time (parameters are durations, any time unit) or a plain factor
/// (`slowdown`: parameters are numbers without units). Shapes are plain numbers in the ranges
/// of distribution_parameters().
DistributionSpec read_distribution(const Context& ctx, const YAML::Node& node,
                                   const std::string& path) {
  const ScenarioKey& key = key_row(path);
  const bool time = key.unit == UnitKind::duration;
  DistributionSpec d;
  if (node.IsScalar()) {
    d.kind = DistKind::deterministic;
    if (time) {
      d.p0 = read_duration(ctx, node, path, true);
    } else {
      d.p0 = read_factor(ctx, node, path);
      if (d.p0 < 0) ctx.fail(node, path, "must be a factor >= 0, got " + describe(node));
      check_key_upper(ctx, node, path, key, d.p0);
    }
    return d;
  }
  if (!node.IsMap())
    ctx.fail(node, path,
             std::string("must be ") + (time ? "a duration" : "a factor") +
                 " or a mapping with 'dist'; got " + describe(node));
  const YAML::Node kind_node =
      require(ctx, node, path, "dist",
              "one of deterministic, exponential, uniform, lognormal, gamma, weibull, pareto, "
              "empirical");
  d.kind = read_choice<DistKind>(ctx, kind_node, join_path(path, "dist"),
                                 {{"deterministic", DistKind::deterministic},
                                  {"exponential", DistKind::exponential},
                                  {"uniform", DistKind::uniform},
                                  {"lognormal", DistKind::lognormal},
                                  {"gamma", DistKind::gamma},
                                  {"weibull", DistKind::weibull},
                                  {"pareto", DistKind::pareto},
                                  {"empirical", DistKind::empirical}});
  const std::string dist_name = kind_node.Scalar();
  const auto parameter = [&](const char* name) -> const DistributionParameter& {
    for (const DistributionParameter& p : distribution_parameters())
      if (dist_name == p.dist && std::string(name) == p.key) return p;
    throw std::logic_error("no distribution parameter " + dist_name + "." + name);
  };
  // The mapping may hold `dist` and the parameters of its kind only.
  std::vector<std::string> allowed{"dist"};
  for (const DistributionParameter& p : distribution_parameters())
    if (dist_name == p.dist) allowed.push_back(p.key);
  expect_map(ctx, node, path, allowed);
  // One value of a parameter (or of an item of `values`), in the unit the key table gives it.
  const auto value_of = [&](const DistributionParameter& p, const YAML::Node& n,
                            const std::string& at) {
    if (p.in_key_unit && time) return read_duration(ctx, n, at, !(p.lo.open && p.lo.value == 0));
    const double v = p.in_key_unit ? read_factor(ctx, n, at) : read_number(ctx, n, at);
    const KeyBound hi = p.in_key_unit ? scenario_key_upper(key) : p.hi;
    const bool above = p.lo.open ? v > p.lo.value : v >= p.lo.value;
    if (!above || v > hi.value) {
      if (std::isfinite(p.hi.value))
        ctx.fail(n, at,
                 "must be from " + text::format_number(p.lo.value) + " to " +
                     text::format_number(p.hi.value) + ", got " + describe(n));
      if (!above)
        ctx.fail(n, at,
                 std::string("must be a ") + (p.in_key_unit ? "factor" : "number") +
                     (p.lo.open ? " > " : " >= ") + text::format_number(p.lo.value) + ", got " +
                     describe(n));
      check_key_upper(ctx, n, at, key, v);
    }
    return v;
  };
  const auto read_parameter = [&](const char* name, const char* what) {
    return value_of(parameter(name), require(ctx, node, path, name, what), join_path(path, name));
  };
  const auto param = [&](const char* name) {
    return read_parameter(name, !parameter(name).in_key_unit ? "a number > 0"
                                : time                       ? "a duration"
                                                             : "a factor");
  };
  switch (d.kind) {
    case DistKind::deterministic:
      d.p0 = param("value");
      break;
    case DistKind::exponential:
      d.p0 = param("mean");
      break;
    case DistKind::uniform:
      d.p0 = param("min");
      d.p1 = param("max");
      if (!(d.p1 > d.p0))
        ctx.fail(node[std::string("max")], join_path(path, "max"), "must be greater than min");
      break;
    case DistKind::lognormal:
      if (node["median"]) {
        if (node["mean"] || node["cv"])
          ctx.fail(node, path, "give either median and sigma, or mean and cv, not both");
        d.p0 = std::log(param("median"));
        d.p1 = param("sigma");
      } else {
        const double mean = param("mean"), cv = param("cv");
        d.p1 = std::sqrt(std::log1p(cv * cv));
        d.p0 = std::log(mean) - 0.5 * d.p1 * d.p1;
      }
      break;
    case DistKind::gamma:
      if (node["shape"]) {
        if (node["mean"] || node["cv"])
          ctx.fail(node, path, "give either shape and scale, or mean and cv, not both");
        d.p0 = param("shape");
        d.p1 = param("scale");
      } else {
        const double mean = param("mean"), cv = param("cv");
        d.p0 = 1.0 / (cv * cv);
        d.p1 = mean / d.p0;
      }
      break;
    case DistKind::weibull:
      d.p0 = param("shape");
      d.p1 = param("scale");
      break;
    case DistKind::pareto:
      d.p0 = param("shape");
      d.p1 = param("scale");
      break;
    case DistKind::empirical: {
      if (node["preemption_log"]) {
        if (!time)
          ctx.fail(node["preemption_log"], join_path(path, "preemption_log"),
                   "gives durations (an instance's running periods); this distribution is a plain "
                   "factor");
        if (node["values"] || node["file"])
          ctx.fail(node, path, "give one of values, file or preemption_log");
        d.samples = read_preemption_log(ctx, node, path);
      } else if (node["step"] || node["partial"]) {
        ctx.fail(node, path, std::string("'") + (node["step"] ? "step" : "partial") +
                                 "' only applies with preemption_log");
      } else if (node["values"]) {
        const YAML::Node values = node["values"];
        const std::string vpath = join_path(path, "values");
        if (!values.IsSequence() || values.size() == 0)
          ctx.fail(values, vpath,
                   std::string("must be a non-empty list of ") + (time ? "durations" : "factors"));
        for (std::size_t i = 0; i < values.size(); ++i)
          d.samples.push_back(value_of(parameter("values"), values[i],
                                       vpath + "[" + std::to_string(i) + "]"));
      } else {
        const std::string file =
            read_string(ctx, require(ctx, node, path, "file", "a CSV file (or give 'values')"),
                        join_path(path, "file"));
        const std::string column =
            read_string(ctx, require(ctx, node, path, "column", "the CSV column holding seconds"),
                        join_path(path, "column"));
        d.samples = read_csv_column(ctx, node["file"], join_path(path, "file"), file, column);
        for (double v : d.samples)
          if (!(v >= 0))
            ctx.fail(node["file"], join_path(path, "file"),
                     "column '" + column + "' must hold " +
                         (time ? "durations >= 0 s" : "factors >= 0"));
      }
      const double scale = node["scale"]
                               ? value_of(parameter("scale"), node["scale"], join_path(path, "scale"))
                               : 1.0;
      for (double& v : d.samples) v *= scale;
      break;
    }
  }
  return d;
}

// ---- sections -------------------------------------------------------------------------------

double read_rate_per_s(const Context& ctx, const YAML::Node& node, const std::string& path) {
  static const std::vector<std::pair<std::string, double>> units = {{"rate_per_s", 1.0},
                                                                    {"rate_per_min", 60.0},
                                                                    {"rate_per_hour", 3600.0},
                                                                    {"rate_per_day", 86400.0}};
  double rate = -1;
  for (const auto& [key, per_s] : units) {
    if (!node[key]) continue;
    if (rate >= 0)
      ctx.fail(node, path,
               "give exactly one of rate_per_s, rate_per_min, "
               "rate_per_hour, rate_per_day");
    rate = read_key_number(ctx, node[key], join_path(path, key)) / per_s;
  }
  if (rate < 0)
    ctx.fail(node, path,
             "needs a rate: one of rate_per_s, rate_per_min, rate_per_hour, "
             "rate_per_day");
  return rate;
}

/// How a trace is replayed: `start`, `scale_rate` and `resample` (a block bootstrap). `a.trace`
/// holds the rows, sorted.
void read_trace_replay(const Context& ctx, const YAML::Node& node, const std::string& path,
                       ArrivalSpec& a) {
  const double last_submit_s = a.trace.back().submit_s;
  if (node["start"]) {
    const std::string spath = join_path(path, "start");
    a.trace_start_s = read_key_duration(ctx, node["start"], spath);
    if (a.trace_start_s > last_submit_s)
      ctx.fail(node["start"], spath,
               "is after the trace's last submit time (" + text::format_number(last_submit_s) +
                   " s): no job would be replayed");
  }
  if (node["scale_rate"])
    a.scale_rate = read_key_number(ctx, node["scale_rate"], join_path(path, "scale_rate"));
  if (!node["resample"]) {
    if (a.scale_rate > 1)
      ctx.fail(node["scale_rate"], join_path(path, "scale_rate"),
               "above 1 superposes independent resamples of the trace; add resample: {block: "
               "1d} (replaying the same trace twice would submit every job twice at once)");
    return;
  }
  const std::string rpath = join_path(path, "resample");
  const YAML::Node r = node["resample"];
  if (!r.IsMap())
    ctx.fail(r, rpath, "must be a mapping with 'block' (e.g. {block: 1d}); got " + describe(r));
  expect_map(ctx, r, rpath, scenario_child_keys("workloads[].arrivals.resample"));
  if (node["start"])
    ctx.fail(node["start"], join_path(path, "start"),
             "cannot be combined with resample: the bootstrap draws where each block starts");
  a.resample_block_s = read_key_duration(
      ctx, require(ctx, r, rpath, "block", "the block length, e.g. 1d"), join_path(rpath, "block"));
  a.resample = TraceResample::moving;
  if (r["method"])
    a.resample = read_choice<TraceResample>(ctx, r["method"], join_path(rpath, "method"),
                                            {{"moving", TraceResample::moving},
                                             {"stationary", TraceResample::stationary}});
  a.resample_phase_s = 86400;
  if (r["phase"]) a.resample_phase_s = read_key_duration(ctx, r["phase"], join_path(rpath, "phase"));
  const double phase = a.resample_phase_s;
  if (r["period"]) {
    const std::string ppath = join_path(rpath, "period");
    a.resample_period_s = read_key_duration(ctx, r["period"], ppath);
    const double phases = a.resample_period_s / phase;
    if (std::fabs(phases - std::round(phases)) > 1e-9 * phases || std::round(phases) < 1)
      ctx.fail(r["period"], ppath,
               "must be a whole multiple of phase (" + text::format_number(phase) + " s), got " +
                   text::format_number(a.resample_period_s) + " s");
    a.resample_period_s = std::round(phases) * phase;
    if (!(a.resample_period_s > last_submit_s))
      ctx.fail(r["period"], ppath,
               "must be after the trace's last submit time (" + text::format_number(last_submit_s) +
                   " s), got " + text::format_number(a.resample_period_s) + " s");
  } else {
    a.resample_period_s = (std::floor(last_submit_s / phase) + 1) * phase;
  }
  if (a.resample_period_s / phase > 4294967295.0)
    ctx.fail(r, rpath, "period / phase must be at most 2^32 - 1 phases; use a longer phase");
}

/// Arrivals of jobs, or (requests = true) of inference requests, whose traces have no GPU column:
/// their duration column is each request's service time.
ArrivalSpec read_arrivals(const Context& ctx, const YAML::Node& node, const std::string& path,
                          bool requests = false) {
  ArrivalSpec a;
  if (!node.IsMap())
    ctx.fail(node, path,
             "must be a mapping with 'process' (poisson, nhpp, trace); got " + describe(node));
  const YAML::Node process = require(ctx, node, path, "process", "poisson, nhpp or trace");
  a.kind = read_choice<ArrivalKind>(ctx, process, join_path(path, "process"),
                                    {{"poisson", ArrivalKind::poisson},
                                     {"nhpp", ArrivalKind::profile},
                                     {"trace", ArrivalKind::trace}});
  // The keys of each process, from the key table.
  const auto keys_of_process = [&](const char* process) {
    return scenario_child_keys("workloads[].arrivals", "process", process);
  };
  if (a.kind == ArrivalKind::poisson) {
    expect_map(ctx, node, path, keys_of_process("poisson"));
    a.rate_per_s = read_rate_per_s(ctx, node, path);
  } else if (a.kind == ArrivalKind::profile) {
    expect_map(ctx, node, path, keys_of_process("nhpp"));
    a.rate_per_s = read_rate_per_s(ctx, node, path);
    const bool hourly = static_cast<bool>(node["hourly_profile"]);
    if (hourly == static_cast<bool>(node["weekly_profile"]))
      ctx.fail(node, path,
               "give exactly one of hourly_profile (24 multipliers, hour 0 first) or "
               "weekly_profile (168 multipliers, Monday 00:00 first)");
    const std::string key = hourly ? "hourly_profile" : "weekly_profile";
    const YAML::Node prof = node[key];
    const std::size_t want = hourly ? 24 : 168;
    if (!prof.IsSequence() || prof.size() != want)
      ctx.fail(prof, join_path(path, key),
               "must be a list of exactly " + std::to_string(want) + " multipliers >= 0");
    double sum = 0;
    for (std::size_t i = 0; i < want; ++i) {
      a.profile.push_back(read_key_number(ctx, prof[i], join_path(path, key) + "[" + std::to_string(i) + "]"));
      sum += a.profile.back();
    }
    if (!(sum > 0)) ctx.fail(prof, join_path(path, key), "must have a multiplier > 0");
    a.profile_bin_s = 3600;
  } else {
    std::vector<std::string> keys = keys_of_process("trace");
    // Requests have no GPU count: an inference trace has no gpus_column.
    if (requests) keys.erase(std::find(keys.begin(), keys.end(), "gpus_column"));
    expect_map(ctx, node, path, keys);
    a.trace_file =
        read_string(ctx, require(ctx, node, path, "file", "a CSV file"), join_path(path, "file"));
    auto column = [&](const char* key, const char* fallback) {
      return node[key] ? read_string(ctx, node[key], join_path(path, key)) : std::string(fallback);
    };
    const std::string submit = column("submit_column", "submit_s");
    const std::string gpus = column("gpus_column", "gpus");
    const std::string duration = column("duration_column", "duration_s");
    double unit_s = 1.0;
    if (node["time_unit"])
      unit_s = read_key_duration(ctx, node["time_unit"], join_path(path, "time_unit"));
    const YAML::Node file_node = node["file"];
    const std::string fpath = join_path(path, "file");
    bool in_order = true;
    try {
      const CsvTable table = ctx.read_csv(file_node, fpath, a.trace_file);
      const NumberColumn t = table.number_column(submit), w = table.number_column(duration);
      const NumberColumn g =
          requests ? NumberColumn(t.size(), 1.0) : table.number_column(gpus);
      const std::size_t n = t.size();
      a.trace.reserve(a.trace.size() + n);
      advise_huge_pages(a.trace.data(), a.trace.capacity() * sizeof(TraceRow));
      // Whether the rows are in submit order, checked as they are made (is_sorted's answer).
      double last_submit_s = a.trace.empty() ? -HUGE_VAL : a.trace.back().submit_s;
      for (std::size_t i = 0; i < n; ++i) {
        const double ti = t[i], gi = g[i], wi = w[i];
        // A whole number in [1, kMaxTotalQuotaGpus] converts to uint32_t and back unchanged.
        const bool gpus_ok = gi >= 1 && gi <= kMaxTotalQuotaGpus &&
                             static_cast<double>(static_cast<uint32_t>(gi)) == gi;
        if (!(ti >= 0) || !gpus_ok || !(wi > 0)) {
          const std::string row = a.trace_file + " data row " + std::to_string(i + 1) + ": ";
          if (!(ti >= 0)) ctx.fail(file_node, fpath, row + submit + " must be >= 0");
          if (!gpus_ok) ctx.fail(file_node, fpath, row + gpus + " must be a whole number >= 1");
          ctx.fail(file_node, fpath, row + duration + " must be > 0");
        }
        const double submit_s = ti * unit_s;
        in_order = in_order && !(submit_s < last_submit_s);
        last_submit_s = submit_s;
        a.trace.push_back({submit_s, static_cast<uint32_t>(gi), wi * unit_s});
      }
    } catch (const std::runtime_error& e) {
      if (dynamic_cast<const ScenarioError*>(&e)) throw;
      ctx.fail(file_node, fpath, e.what());
    }
    if (a.trace.empty()) ctx.fail(file_node, fpath, "the trace has no rows");
    const auto by_submit = [](const TraceRow& x, const TraceRow& y) { return x.submit_s < y.submit_s; };
    // Logs are nearly always in order already (checked as the rows were made); the sort costs
    // a copy.
    if (!in_order)
      std::stable_sort(a.trace.begin(), a.trace.end(), by_submit);
    read_trace_replay(ctx, node, path, a);
  }
  return a;
}

std::vector<std::string> keys_of(const YAML::Node& map) {
  std::vector<std::string> keys;
  for (const auto& kv : map) keys.push_back(kv.first.Scalar());
  return keys;
}

/// A reference by name to an entry of `section` (e.g. a pool named in a placement list).
std::string read_reference(const Context& ctx, const YAML::Node& node, const std::string& path,
                           const std::vector<std::string>& names, const std::string& section) {
  const std::string s = read_string(ctx, node, path);
  if (std::find(names.begin(), names.end(), s) != names.end()) return s;
  std::string message = "no " + section + " named \"" + text::excerpt(s) + "\"";
  const std::string suggestion = text::closest(s, names);
  if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
  ctx.fail(node, path, message + "; declared: " + text::join(names, ", "));
}

/// `preemption` of a spot pool: time_to_preemption (a distribution), notice, max_runtime.
void read_preemption(const Context& ctx, const YAML::Node& node, const std::string& path,
                     PoolSpec& p) {
  expect_map(ctx, node, path, scenario_child_keys("pools.NAME.preemption"));
  if (node["time_to_preemption"]) {
    p.has_time_to_preemption = true;
    p.time_to_preemption_s =
        read_distribution(ctx, node["time_to_preemption"], join_path(path, "time_to_preemption"));
    // A run reclaimed the instant it starts would relaunch and be reclaimed again at the same
    // time for ever.
    if (!(p.time_to_preemption_s.mean() > 0))
      ctx.fail(node["time_to_preemption"], join_path(path, "time_to_preemption"),
               "the time to preemption must have a mean > 0 (a run reclaimed the instant it "
               "starts would never end)");
  }
  if (node["max_runtime"])
    p.max_runtime_s =
        read_key_duration(ctx, node["max_runtime"], join_path(path, "max_runtime"));
  if (node["notice"])
    p.notice_s = read_key_duration(ctx, node["notice"], join_path(path, "notice"));
  if (node["zone_events"]) {
    p.has_zone_events = true;
    p.zone_event_gap_s =
        read_distribution(ctx, node["zone_events"], join_path(path, "zone_events"));
    if (!(p.zone_event_gap_s.mean() > 0))
      ctx.fail(node["zone_events"], join_path(path, "zone_events"),
               "the time between zone-wide events must have a mean > 0");
  }
  if (!p.has_time_to_preemption && p.max_runtime_s == 0 && !p.has_zone_events)
    ctx.fail(node, path,
             "needs time_to_preemption (a distribution, e.g. {dist: exponential, "
             "mean: 20h}), max_runtime, zone_events, or several of them");
}


/// `availability` of a pool: a trace of available instances at a fixed step, from a JSON file
/// ({"metadata": {"gap_seconds": N}, "data": [...]}, the format of the public spot traces) or
/// from a CSV column with an explicit step.
void read_availability(const Context& ctx, const YAML::Node& node, const std::string& path,
                       PoolSpec& p) {
  expect_map(ctx, node, path, scenario_child_keys("pools.NAME.availability"));
  const YAML::Node file_node = require(ctx, node, path, "file", "a JSON or CSV trace file");
  const std::string fpath = join_path(path, "file");
  p.availability_file = read_string(ctx, file_node, fpath);
  const std::string resolved = ctx.resolve(p.availability_file);
  const bool json = resolved.size() >= 5 && resolved.substr(resolved.size() - 5) == ".json";
  if (json) {
    if (node["column"] || node["step"])
      ctx.fail(node, path,
               "a JSON trace carries its own step (metadata.gap_seconds) and data; "
               "remove column and step");
    const std::shared_ptr<const DataFile> json_file =
        ctx.read_data(file_node, fpath, p.availability_file);
    std::shared_ptr<const AvailabilityJson> parsed;
    try {
      // Parsed once per file and process, like the CSV tables.
      parsed = json_file->derived<AvailabilityJson>(
          "availability-json",
          [&] {
            auto t = std::make_shared<AvailabilityJson>();
            read_json(json_file->text(), *t);
            return std::shared_ptr<const AvailabilityJson>(std::move(t));
          },
          [](const AvailabilityJson& t) { return sizeof t + t.counts.capacity() * sizeof(double); });
    } catch (const JsonError& e) {
      ctx.fail(file_node, fpath, text::excerpt(resolved, 300) + ":" + e.what());
    }
    const AvailabilityJson& trace = *parsed;
    if (!trace.has_gap || !trace.has_data)
      ctx.fail(file_node, fpath,
               text::excerpt(resolved, 300) +
                   ": expected {\"metadata\": {\"gap_seconds\": N}, \"data\": [counts...]}; "
                   "missing " +
                   (trace.has_gap ? "data" : "metadata.gap_seconds"));
    p.availability_step_s = trace.gap_s;
    p.availability = trace.counts;
  } else {
    const std::string column = node["column"]
                                   ? read_string(ctx, node["column"], join_path(path, "column"))
                                   : std::string("available");
    p.availability_step_s = read_key_duration(ctx, require(ctx, node, path, "step", "the time between rows of the CSV trace"), join_path(path, "step"));
    p.availability = read_csv_column(ctx, file_node, fpath, p.availability_file, column);
    for (double v : p.availability)
      if (!(v >= 0)) ctx.fail(file_node, fpath, "column '" + column + "' must hold counts >= 0");
  }
  if (p.availability.empty()) ctx.fail(file_node, fpath, "the availability trace has no rows");
  if (node["gpus_per_instance"])
    p.gpus_per_instance = static_cast<double>(read_key_integer(ctx, node["gpus_per_instance"], join_path(path, "gpus_per_instance")));
  if (node["start"])
    p.availability_start_s =
        read_trace_start(ctx, node["start"], join_path(path, "start"), p.availability_random_start);
  if (node["after_end"])
    p.availability_after_end = read_choice<TraceEnd>(
        ctx, node["after_end"], join_path(path, "after_end"),
        {{"repeat", TraceEnd::repeat}, {"unavailable", TraceEnd::unavailable}, {"last", TraceEnd::last}});
}

/// The largest stationary standard deviation of an ornstein_uhlenbeck price, as a fraction of
/// its level: the price is Gaussian, so it is below zero with probability Phi(-4) = 3.2e-5.
constexpr double kMaxOrnsteinUhlenbeckRelativeSd = 0.25;

/// `price_process` of a pool: {model: trace, file, column, step, start}, {model:
/// mean_reverting, volatility_per_sqrt_hour, reversion_per_hour, step} or {model:
/// ornstein_uhlenbeck, volatility_per_sqrt_hour, reversion_per_hour}.
void read_price_process(const Context& ctx, const YAML::Node& node, const std::string& path,
                        PoolSpec& p) {
  if (!node.IsMap())
    ctx.fail(node, path,
             "must be a mapping with 'model' (trace, mean_reverting or ornstein_uhlenbeck); got " +
                 describe(node));
  p.price_model = read_choice<CompiledPool::PriceModel>(
      ctx, require(ctx, node, path, "model", "trace, mean_reverting or ornstein_uhlenbeck"),
      join_path(path, "model"),
      {{"trace", CompiledPool::kTracePrice},
       {"mean_reverting", CompiledPool::kMeanRevertingPrice},
       {"ornstein_uhlenbeck", CompiledPool::kOrnsteinUhlenbeckPrice}});
  if (p.price_model == CompiledPool::kOrnsteinUhlenbeckPrice) {
    expect_map(ctx, node, path,
               scenario_child_keys("pools.NAME.price_process", "model", "ornstein_uhlenbeck"));
    const YAML::Node sigma_node =
        require(ctx, node, path, "volatility_per_sqrt_hour", "sigma, as a fraction of the level");
    p.price_volatility_per_sqrt_hour =
        read_key_number(ctx, sigma_node, join_path(path, "volatility_per_sqrt_hour"));
    p.price_reversion_per_hour = read_key_number(
        ctx, require(ctx, node, path, "reversion_per_hour", "theta, the pull to the level"),
        join_path(path, "reversion_per_hour"));
    // The price itself is Gaussian: keep it away from zero (P(price < 0) <= 3.2e-5).
    const double relative_sd =
        p.price_volatility_per_sqrt_hour / std::sqrt(2 * p.price_reversion_per_hour);
    if (relative_sd > kMaxOrnsteinUhlenbeckRelativeSd)
      ctx.fail(sigma_node, join_path(path, "volatility_per_sqrt_hour"),
               "gives a stationary standard deviation of " + text::format_number(relative_sd) +
                   " x the level (sigma / sqrt(2 theta)); at most 0.25 is valid, so that the "
                   "price stays above zero (use model: mean_reverting, a log-price, for wider "
                   "swings)");
    return;
  }
  p.price_step_s =
      read_key_duration(ctx, require(ctx, node, path, "step", "how often the price changes, e.g. 1h"), join_path(path, "step"));
  if (p.price_model == CompiledPool::kTracePrice) {
    expect_map(ctx, node, path, scenario_child_keys("pools.NAME.price_process", "model", "trace"));
    const YAML::Node file_node = require(ctx, node, path, "file", "a CSV of prices");
    const std::string column = node["column"]
                                   ? read_string(ctx, node["column"], join_path(path, "column"))
                                   : std::string("price_usd_per_gpu_hour");
    p.price_trace_usd_per_gpu_hour =
        read_csv_column(ctx, file_node, join_path(path, "file"),
                        read_string(ctx, file_node, join_path(path, "file")), column);
    if (p.price_trace_usd_per_gpu_hour.empty())
      ctx.fail(file_node, join_path(path, "file"), "the price trace has no rows");
    for (double v : p.price_trace_usd_per_gpu_hour)
      if (!(v >= 0))
        ctx.fail(file_node, join_path(path, "file"),
                 "column '" + column + "' must hold prices >= 0 USD per GPU-hour");
    if (node["start"])
      p.price_start_s =
          read_trace_start(ctx, node["start"], join_path(path, "start"), p.price_random_start);
  } else {
    expect_map(ctx, node, path,
               scenario_child_keys("pools.NAME.price_process", "model", "mean_reverting"));
    p.price_volatility_per_sqrt_hour = read_key_number(ctx, require(ctx, node, path, "volatility_per_sqrt_hour", "sigma of the log-price"), join_path(path, "volatility_per_sqrt_hour"));
    p.price_reversion_per_hour = read_key_number(ctx, require(ctx, node, path, "reversion_per_hour", "theta, the pull to the level"), join_path(path, "reversion_per_hour"));
  }
}

PoolSpec read_pool(const Context& ctx, const YAML::Node& node, const std::string& path,
                   const std::string& name, const Scenario& s) {
  if (!node.IsMap()) ctx.fail(node, path, "must be a mapping (a pool); got " + describe(node));
  PoolSpec p;
  p.name = name;
  if (node["purchase"])
    p.purchase = read_choice<PurchaseOption>(ctx, node["purchase"], join_path(path, "purchase"),
                                             {{"on_demand", PurchaseOption::on_demand},
                                              {"spot", PurchaseOption::spot},
                                              {"reserved", PurchaseOption::reserved},
                                              {"owned", PurchaseOption::owned},
                                              {"marketplace", PurchaseOption::marketplace},
                                              {"serverless", PurchaseOption::serverless}});
  // Each purchase option takes the keys the key table marks for it.
  expect_map(ctx, node, path,
             scenario_child_keys("pools.NAME", "purchase",
                                 node["purchase"] ? node["purchase"].Scalar()
                                                  : scenario_discriminator_default("pools.NAME")));

  if (node["provider"]) {
    std::vector<std::string> names;
    for (const auto& pr : s.providers) names.push_back(pr.name);
    p.provider = names.empty() ? read_string(ctx, node["provider"], join_path(path, "provider"))
                               : read_reference(ctx, node["provider"], join_path(path, "provider"),
                                                names, "provider");
  }
  if (node["region"]) {
    std::vector<std::string> names;
    for (const auto& r : s.regions) names.push_back(r.name);
    p.region = names.empty() ? read_string(ctx, node["region"], join_path(path, "region"))
                             : read_reference(ctx, node["region"], join_path(path, "region"), names,
                                              "region");
  }
  // A catalog row supplies the GPU model, its memory and the price, unless given here.
  const CatalogRow* row = nullptr;
  if (node["catalog_row"]) {
    const YAML::Node key_node = node["catalog_row"];
    if (ctx.catalog == nullptr)
      ctx.fail(key_node, join_path(path, "catalog_row"),
               "needs a price catalog: add catalog: ../data/gpu_prices.csv at the top level");
    std::vector<std::string> keys_in_catalog;
    for (const auto& [key, value] : *ctx.catalog) keys_in_catalog.push_back(key);
    const std::string key = read_reference(ctx, key_node, join_path(path, "catalog_row"),
                                           keys_in_catalog, "catalog row");
    row = &ctx.catalog->at(key);
    p.gpu = row->gpu_model;
    p.gpu_memory_gb = row->gpu_memory_gb;
  }
  if (!row || node["gpu"])
    p.gpu = read_string(ctx, require(ctx, node, path, "gpu", "the GPU model, e.g. H100"),
                        join_path(path, "gpu"));
  if (node["gpu_memory_gb"])
    p.gpu_memory_gb = read_key_number(ctx, node["gpu_memory_gb"], join_path(path, "gpu_memory_gb"));
  const bool committed =
      p.purchase == PurchaseOption::reserved || p.purchase == PurchaseOption::owned;
  const char* size_key = committed ? "count" : "quota";
  // A serverless pool without a quota gets what its services' max_replicas need (set later).
  if (p.purchase != PurchaseOption::serverless || node["quota"])
    p.quota_gpus = static_cast<uint32_t>(read_key_integer(ctx, require(ctx, node, path, size_key,
                committed ? "the number of GPUs committed" : "the most GPUs held at once"), join_path(path, size_key)));
  auto price = [&](const char* key, const std::string& what) {
    return read_key_number(ctx, require(ctx, node, path, key, what), join_path(path, key));
  };
  switch (p.purchase) {
    case PurchaseOption::on_demand:
    case PurchaseOption::spot:
    case PurchaseOption::marketplace:
      if (node["price_process"])
        read_price_process(ctx, node["price_process"], join_path(path, "price_process"), p);
      if (p.price_model == CompiledPool::kTracePrice && !node["price_usd_per_gpu_hour"]) {
        double sum = 0;  // for reports only: the trace sets every price
        for (double v : p.price_trace_usd_per_gpu_hour) sum += v;
        p.price_usd_per_gpu_hour = sum / p.price_trace_usd_per_gpu_hour.size();
      } else if (row && !node["price_usd_per_gpu_hour"]) {
        p.price_usd_per_gpu_hour = p.purchase == PurchaseOption::spot
                                       ? row->spot_usd_per_gpu_hour
                                       : row->on_demand_usd_per_gpu_hour;
        if (p.price_usd_per_gpu_hour < 0)
          ctx.fail(node["catalog_row"], join_path(path, "catalog_row"),
                   "this catalog row has no spot price; give price_usd_per_gpu_hour");
      } else {
        p.price_usd_per_gpu_hour = price("price_usd_per_gpu_hour", "a price >= 0 USD per GPU-hour");
      }
      break;
    case PurchaseOption::serverless:
      if (node["price_usd_per_gpu_second"] && node["price_usd_per_gpu_hour"])
        ctx.fail(node["price_usd_per_gpu_second"], join_path(path, "price_usd_per_gpu_second"),
                 "give the price once: price_usd_per_gpu_second or price_usd_per_gpu_hour");
      if (node["price_usd_per_gpu_second"])
        p.price_usd_per_gpu_hour =
            3600.0 * price("price_usd_per_gpu_second", "a price >= 0 USD per GPU-second");
      else if (row && !node["price_usd_per_gpu_hour"])
        p.price_usd_per_gpu_hour = row->on_demand_usd_per_gpu_hour;
      else
        p.price_usd_per_gpu_hour =
            price("price_usd_per_gpu_hour",
                  "a price >= 0 USD per GPU-hour (or price_usd_per_gpu_second)");
      if (node["bill_idle"])
        p.bills_idle = read_bool(ctx, node["bill_idle"], join_path(path, "bill_idle"));
      break;
    case PurchaseOption::reserved:
      p.committed_usd_per_gpu_hour =
          price("price_usd_per_gpu_hour", "a committed price >= 0 USD per GPU-hour");
      break;
    case PurchaseOption::owned: {
      const double capex = price("capex_usd_per_gpu", "a purchase price >= 0 USD per GPU");
      const double years = read_key_number(ctx, require(ctx, node, path, "amortize_years", "years over which to spread the capex"), join_path(path, "amortize_years"));
      const double opex = node["opex_usd_per_gpu_hour"] ? price("opex_usd_per_gpu_hour",
                                                                "power and operations >= 0 USD "
                                                                "per GPU-hour")
                                                        : 0.0;
      p.committed_usd_per_gpu_hour = capex / (years * 8760.0) + opex;  // 8760 h in a year
      break;
    }
  }
  if (node["billing_increment"])
    p.billing_increment_s =
        read_key_duration(ctx, node["billing_increment"], join_path(path, "billing_increment"));
  if (node["billing_minimum"])
    p.billing_minimum_s =
        read_key_duration(ctx, node["billing_minimum"], join_path(path, "billing_minimum"));
  if (node["speed"])
    p.speed = read_key_number(ctx, node["speed"], join_path(path, "speed"));
  if (node["provisioning_delay"]) {
    p.has_provisioning_delay = true;
    p.provisioning_delay_s =
        read_distribution(ctx, node["provisioning_delay"], join_path(path, "provisioning_delay"));
  }
  if (node["availability"])
    read_availability(ctx, node["availability"], join_path(path, "availability"), p);
  if (node["stockout"]) {
    const YAML::Node so = node["stockout"];
    const std::string spath = join_path(path, "stockout");
    expect_map(ctx, so, spath, scenario_child_keys("pools.NAME.stockout"));
    p.stockout_probability = read_key_number(
        ctx, require(ctx, so, spath, "probability", "the share of launches that fail, 0 to 1"),
        spath + ".probability");
    if (so["retry_after"])
      p.stockout_retry_s = read_key_duration(ctx, so["retry_after"], spath + ".retry_after");
  }
  if (node["slowdown"]) {
    p.has_slowdown = true;
    p.slowdown = read_distribution(ctx, node["slowdown"], join_path(path, "slowdown"));
    // A factor of 0 would make a run take no time: only distributions that stay above 0.
    const DistributionSpec& d = p.slowdown;
    bool positive = true;
    if (d.kind == DistKind::deterministic || d.kind == DistKind::uniform) positive = d.p0 > 0;
    if (d.kind == DistKind::exponential) positive = false;
    if (d.kind == DistKind::empirical)
      positive = std::all_of(d.samples.begin(), d.samples.end(), [](double v) { return v > 0; });
    if (!positive)
      ctx.fail(node["slowdown"], join_path(path, "slowdown"),
               "slowdown factors must all be > 0: use a fixed factor > 0, uniform with min > 0, "
               "lognormal, gamma, weibull or pareto");
  }
  if (node["gpus_per_node"])
    p.gpus_per_node = static_cast<uint32_t>(
        read_key_integer(ctx, node["gpus_per_node"], join_path(path, "gpus_per_node")));
  if (node["interconnect"]) {
    const YAML::Node ic = node["interconnect"];
    const std::string ipath = join_path(path, "interconnect");
    expect_map(ctx, ic, ipath, scenario_child_keys("pools.NAME.interconnect"));
    if (!node["gpus_per_node"])
      ctx.fail(ic, ipath, "needs gpus_per_node on the pool (the interconnect links its nodes)");
    p.interconnect_latency_s =
        read_key_duration(ctx, require(ctx, ic, ipath, "latency", "one-way latency between nodes"), ipath + ".latency");
    p.interconnect_gbps = read_key_number(ctx, require(ctx, ic, ipath, "bandwidth_gbps", "bandwidth between nodes, Gbit/s"), ipath + ".bandwidth_gbps");
  }
  if (node["cold_start"]) {
    const YAML::Node cs = node["cold_start"];
    const std::string cpath = join_path(path, "cold_start");
    expect_map(ctx, cs, cpath, scenario_child_keys("pools.NAME.cold_start"));
    if (cs["snapshot_restore"] && (cs["container"] || cs["weights_gb_per_s"]))
      ctx.fail(cs["snapshot_restore"], cpath + ".snapshot_restore",
               "a snapshot restore replaces the container start and the weights load; give "
               "either snapshot_restore or container and weights_gb_per_s");
    if (cs["container"]) {
      p.has_container_start = true;
      p.container_start_s = read_distribution(ctx, cs["container"], cpath + ".container");
    }
    if (cs["weights_gb_per_s"])
      p.weights_gb_per_s = read_key_number(ctx, cs["weights_gb_per_s"], cpath + ".weights_gb_per_s");
    if (cs["snapshot_restore"])
      p.snapshot_restore_s =
          read_key_duration(ctx, cs["snapshot_restore"], cpath + ".snapshot_restore");
  }
  if (p.purchase == PurchaseOption::spot || p.purchase == PurchaseOption::marketplace) {
    // Reclaimed by its preemption model (node failures on a marketplace), its availability
    // trace, or both.
    if (node["preemption"] || p.availability.empty())
      read_preemption(ctx,
                      require(ctx, node, path, "preemption",
                              "how instances are reclaimed: time_to_preemption, notice, "
                              "max_runtime (or give an availability trace)"),
                      join_path(path, "preemption"), p);
  }
  return p;
}

/// The number of ticks in `value_s` (a window or delay of the windowed autoscaler), which
/// must be a whole number of them, at least `least`, at most kMaxAutoscaleTicks.
uint32_t whole_ticks(const Context& ctx, const YAML::Node& node, const std::string& path,
                     double value_s, double tick_s, double least = 1) {
  constexpr double kMaxAutoscaleTicks = 100000;
  const double ticks = value_s / tick_s;
  const double whole = std::round(ticks);
  if (std::fabs(ticks - whole) > 1e-9 * std::max(1.0, whole))
    ctx.fail(node, path,
             "must be a whole number of ticks (autoscaling.tick, " + text::format_duration(tick_s) +
                 "), got " + text::format_duration(value_s) + " = " + text::format_number(ticks) +
                 " ticks");
  if (whole < least)
    ctx.fail(node, path,
             "must be at least one tick (autoscaling.tick, " + text::format_duration(tick_s) +
                 "), got " + text::format_duration(value_s));
  if (whole > kMaxAutoscaleTicks)
    ctx.fail(node, path,
             "is " + text::format_number(whole) + " ticks of " + text::format_duration(tick_s) +
                 "; at most " + text::format_number(kMaxAutoscaleTicks) +
                 " are supported (make the tick longer)");
  return static_cast<uint32_t>(whole);
}

/// The windowed autoscaler's keys of `autoscaling` (stable_window is present).
void read_windowed_autoscaler(const Context& ctx, const YAML::Node& as, const std::string& apath,
                              ServiceSpec& svc) {
  svc.windowed = true;
  if (as["idle_timeout"])
    ctx.fail(as["idle_timeout"], apath + ".idle_timeout",
             "the windowed autoscaler (stable_window) stops replicas itself; remove idle_timeout");
  if (as["tick"]) svc.tick_s = read_key_duration(ctx, as["tick"], apath + ".tick");
  svc.stable_window_s = read_key_duration(ctx, as["stable_window"], apath + ".stable_window");
  whole_ticks(ctx, as["stable_window"], apath + ".stable_window", svc.stable_window_s,
              svc.tick_s);
  if (as["panic_window"]) {
    svc.panic_window_s = read_key_duration(ctx, as["panic_window"], apath + ".panic_window");
    if (svc.panic_window_s > svc.stable_window_s)
      ctx.fail(as["panic_window"], apath + ".panic_window",
               "must be at most the stable window (" +
                   text::format_duration(svc.stable_window_s) + "), got " +
                   text::format_duration(svc.panic_window_s));
    whole_ticks(ctx, as["panic_window"], apath + ".panic_window", svc.panic_window_s,
                svc.tick_s);
  } else {
    svc.panic_window_s = svc.stable_window_s / 10;
    const double ticks = svc.panic_window_s / svc.tick_s;
    if (std::fabs(ticks - std::round(ticks)) > 1e-9 * std::max(1.0, ticks) || ticks < 0.5)
      ctx.fail(as["stable_window"], apath + ".stable_window",
               "the default panic window, stable_window / 10 = " +
                   text::format_duration(svc.panic_window_s) +
                   ", is not a whole number of ticks (" + text::format_duration(svc.tick_s) +
                   "); give autoscaling.panic_window");
  }
  if (as["panic_threshold_percentage"])
    svc.panic_threshold = read_key_number(ctx, as["panic_threshold_percentage"],
                                          apath + ".panic_threshold_percentage") /
                          100;
  if (as["scale_down_delay"]) {
    svc.scale_down_delay_s =
        read_key_duration(ctx, as["scale_down_delay"], apath + ".scale_down_delay");
    whole_ticks(ctx, as["scale_down_delay"], apath + ".scale_down_delay",
                svc.scale_down_delay_s, svc.tick_s, 0);
  }
}


/// The scenario's word for a purchase option.
const char* purchase_word(PurchaseOption purchase) {
  switch (purchase) {
    case PurchaseOption::on_demand: return "on_demand";
    case PurchaseOption::spot: return "spot";
    case PurchaseOption::reserved: return "reserved";
    case PurchaseOption::owned: return "owned";
    case PurchaseOption::marketplace: return "marketplace";
    case PurchaseOption::serverless: return "serverless";
  }
  return "?";
}

/// What pool p has that applies to jobs and not to inference replicas (stockouts do apply to
/// them when `stockouts_apply`), or null.
const char* jobs_only_feature(const PoolSpec& p, bool stockouts_apply) {
  if (!p.availability.empty()) return "an availability trace";
  if (p.stockout_probability > 0 && !stockouts_apply) return "stockouts";
  if (p.has_zone_events) return "zone_events";
  if (p.price_model != CompiledPool::kFixedPrice) return "a price process";
  if (p.has_slowdown) return "a slowdown";
  return nullptr;
}

/// A workload of kind inference: a service answering requests with replicas in one pool (and,
/// on a spot or marketplace pool, a fallback pool).
JobClassSpec read_inference_workload(const Context& ctx, const YAML::Node& node,
                                     const std::string& path, const Scenario& s, JobClassSpec w) {
  expect_map(ctx, node, path, scenario_child_keys("workloads[]", "kind", "inference"));
  ServiceSpec& svc = w.service;
  std::vector<std::string> pool_names;
  for (const auto& p : s.pools) pool_names.push_back(p.name);
  svc.pool = read_reference(
      ctx, require(ctx, node, path, "pool", "the pool whose GPUs run the service's replicas"),
      join_path(path, "pool"), pool_names, "pool");
  const PoolSpec& pool = s.pools[s.pool_index(svc.pool)];
  const bool preemptible =
      pool.purchase == PurchaseOption::spot || pool.purchase == PurchaseOption::marketplace;
  // Stockouts apply to replicas of spot and marketplace pools (the launch goes to the fallback
  // pool, or waits for the autoscaler's next decision); the rest apply to jobs only.
  if (const char* feature = jobs_only_feature(pool, preemptible))
    ctx.fail(node["pool"], join_path(path, "pool"),
             "pool \"" + svc.pool + "\" has " + feature +
                 ", which applies to jobs only; give the service a pool without it");
  if (node["fallback_pool"]) {
    const YAML::Node f = node["fallback_pool"];
    const std::string fpath = join_path(path, "fallback_pool");
    svc.fallback_pool = read_reference(ctx, f, fpath, pool_names, "pool");
    const PoolSpec& fallback = s.pools[s.pool_index(svc.fallback_pool)];
    if (!preemptible)
      ctx.fail(f, fpath,
               "pool \"" + svc.pool + "\" is " + purchase_word(pool.purchase) +
                   ", not preemptible: replicas there are never reclaimed, so there is nothing to "
                   "fall back from; a fallback pool needs a spot or marketplace pool");
    if (svc.fallback_pool == svc.pool)
      ctx.fail(f, fpath, "is the service's own pool; name another pool (on_demand, reserved or owned)");
    if (fallback.purchase != PurchaseOption::on_demand &&
        fallback.purchase != PurchaseOption::reserved && fallback.purchase != PurchaseOption::owned)
      ctx.fail(f, fpath,
               "pool \"" + svc.fallback_pool + "\" is " + purchase_word(fallback.purchase) +
                   "; a fallback pool is on_demand, reserved or owned (never reclaimed, always "
                   "billed by the hold)");
    if (const char* feature = jobs_only_feature(fallback, false))
      ctx.fail(f, fpath,
               "pool \"" + svc.fallback_pool + "\" has " + feature +
                   ", which applies to jobs only (a fallback pool has room whenever its quota "
                   "has); give the service a fallback pool without it");
  }
  w.placement = {svc.pool};
  w.arrivals = read_arrivals(
      ctx, require(ctx, node, path, "arrivals", "a request arrival process (poisson, nhpp, trace)"),
      join_path(path, "arrivals"), true);
  if (w.arrivals.kind == ArrivalKind::trace) {
    if (node["service"])
      ctx.fail(node["service"], join_path(path, "service"),
               "a request trace gives each request's service time (its duration column); remove "
               "'service'");
  } else {
    w.work_s = read_distribution(
        ctx, require(ctx, node, path, "service", "the service time of one request (distribution)"),
        join_path(path, "service"));
  }
  if (node["gpus"])
    w.gpus = static_cast<uint32_t>(
        read_key_integer(ctx, node["gpus"], join_path(path, "gpus")));
  if (node["vram_gb"])
    w.vram_gb = read_key_number(ctx, node["vram_gb"], join_path(path, "vram_gb"));
  if (!fits_memory(w, pool))
    ctx.fail(node["vram_gb"], join_path(path, "vram_gb"),
             "a replica needing " + text::format_number(w.vram_gb) + " GB per GPU does not fit " +
                 "pool \"" + svc.pool + "\" (" + text::format_number(pool.gpu_memory_gb) +
                 " GB per GPU)");
  if (!svc.fallback_pool.empty()) {
    const PoolSpec& fallback = s.pools[s.pool_index(svc.fallback_pool)];
    if (!fits_memory(w, fallback))
      ctx.fail(node["vram_gb"], join_path(path, "vram_gb"),
               "a replica needing " + text::format_number(w.vram_gb) +
                   " GB per GPU does not fit its fallback pool \"" + svc.fallback_pool + "\" (" +
                   text::format_number(fallback.gpu_memory_gb) + " GB per GPU)");
  }
  if (node["model_gb"])
    svc.model_gb = read_key_number(ctx, node["model_gb"], join_path(path, "model_gb"));
  if (node["concurrency"])
    svc.concurrency = static_cast<uint32_t>(
        read_key_integer(ctx, node["concurrency"], join_path(path, "concurrency")));
  svc.target_concurrency = svc.concurrency;
  if (node["replicas"] && node["autoscaling"])
    ctx.fail(node["replicas"], join_path(path, "replicas"),
             "give either a fixed count (replicas) or autoscaling, not both");
  if (node["replicas"]) {
    svc.min_replicas = svc.max_replicas = static_cast<uint32_t>(
        read_key_integer(ctx, node["replicas"], join_path(path, "replicas")));
    svc.idle_timeout_s = std::numeric_limits<double>::infinity();
  } else {
    const YAML::Node as =
        require(ctx, node, path, "autoscaling",
                "the replica policy: autoscaling: {min_replicas, max_replicas, idle_timeout, "
                "target_concurrency}, or a fixed count: replicas: N");
    const std::string apath = join_path(path, "autoscaling");
    expect_map(ctx, as, apath, scenario_child_keys("workloads[].autoscaling"));
    if (as["min_replicas"])
      svc.min_replicas = static_cast<uint32_t>(
          read_key_integer(ctx, as["min_replicas"], apath + ".min_replicas"));
    svc.max_replicas = static_cast<uint32_t>(
        read_key_integer(ctx, require(ctx, as, apath, "max_replicas", "the most replicas at once"), apath + ".max_replicas"));
    if (svc.min_replicas > svc.max_replicas)
      ctx.fail(as["min_replicas"], apath + ".min_replicas",
               "must be at most max_replicas (" + std::to_string(svc.max_replicas) + ")");
    svc.idle_timeout_s = std::numeric_limits<double>::infinity();
    if (as["stable_window"]) {
      read_windowed_autoscaler(ctx, as, apath, svc);
    } else {
      for (const char* key : {"panic_window", "panic_threshold_percentage", "scale_down_delay", "tick"})
        if (as[key])
          ctx.fail(as[key], apath + "." + key,
                   "belongs to the windowed autoscaler; give autoscaling.stable_window too (e.g. "
                   "stable_window: 60s), or remove it");
    }
    if (as["idle_timeout"])
      svc.idle_timeout_s = read_key_duration(ctx, as["idle_timeout"], apath + ".idle_timeout");
    else if (svc.min_replicas < svc.max_replicas && !svc.windowed)
      ctx.fail(as, apath,
               "needs idle_timeout (how long a replica stays warm without requests before it "
               "stops), e.g. idle_timeout: 5min");
    if (as["target_concurrency"]) {
      svc.target_concurrency =
          read_key_number(ctx, as["target_concurrency"], apath + ".target_concurrency");
      if (svc.target_concurrency > svc.concurrency)
        ctx.fail(as["target_concurrency"], apath + ".target_concurrency",
                 "must be at most the concurrency per replica (" + std::to_string(svc.concurrency) +
                     ")");
    }
  }
  if (node["users_region"]) {
    std::vector<std::string> region_names;
    for (const auto& r : s.regions) region_names.push_back(r.name);
    svc.users_region = read_reference(ctx, node["users_region"], join_path(path, "users_region"),
                                      region_names, "region");
    if (pool.region.empty())
      ctx.fail(node["users_region"], join_path(path, "users_region"),
               "pool \"" + svc.pool + "\" has no region, so the network round trip is unknown");
    if (svc.users_region != pool.region && s.latency_ms(svc.users_region, pool.region) < 0)
      ctx.fail(node["users_region"], join_path(path, "users_region"),
               "no latency between " + svc.users_region + " and " + pool.region + "; add regions." +
                   svc.users_region + ".latency_ms." + pool.region);
    if (!svc.fallback_pool.empty()) {
      const PoolSpec& fallback = s.pools[s.pool_index(svc.fallback_pool)];
      if (fallback.region.empty())
        ctx.fail(node["users_region"], join_path(path, "users_region"),
                 "fallback pool \"" + svc.fallback_pool +
                     "\" has no region, so the network round trip is unknown");
      if (svc.users_region != fallback.region &&
          s.latency_ms(svc.users_region, fallback.region) < 0)
        ctx.fail(node["users_region"], join_path(path, "users_region"),
                 "no latency between " + svc.users_region + " and " + fallback.region +
                     " (fallback pool \"" + svc.fallback_pool + "\"); add regions." +
                     svc.users_region + ".latency_ms." + fallback.region);
    }
  }
  if (node["slo"]) {
    const YAML::Node slo = node["slo"];
    const std::string spath = join_path(path, "slo");
    expect_map(ctx, slo, spath, scenario_child_keys("workloads[].slo"));
    svc.slo_latency_s =
        read_key_duration(ctx, require(ctx, slo, spath, "latency", "the latency bound, e.g. 2s"), spath + ".latency");
  }
  if (node["queue_capacity"])
    svc.queue_capacity = static_cast<uint32_t>(
        read_key_integer(ctx, node["queue_capacity"], join_path(path, "queue_capacity")));
  if (node["response_kb"])
    svc.response_kb = read_key_number(ctx, node["response_kb"], join_path(path, "response_kb"));
  const uint64_t need = static_cast<uint64_t>(svc.max_replicas) * w.gpus;
  if (pool.quota_gpus > 0 && w.gpus > pool.quota_gpus)
    ctx.fail(node["gpus"] ? node["gpus"] : node, join_path(path, "gpus"),
             "a replica of " + std::to_string(w.gpus) + " GPUs does not fit pool \"" + svc.pool +
                 "\" (quota " + std::to_string(pool.quota_gpus) + ")");
  if (!svc.fallback_pool.empty()) {
    const PoolSpec& fallback = s.pools[s.pool_index(svc.fallback_pool)];
    if (fallback.quota_gpus > 0 && w.gpus > fallback.quota_gpus)
      ctx.fail(node["gpus"] ? node["gpus"] : node, join_path(path, "gpus"),
               "a replica of " + std::to_string(w.gpus) + " GPUs does not fit its fallback pool \"" +
                   svc.fallback_pool + "\" (quota " + std::to_string(fallback.quota_gpus) + ")");
  }
  if (static_cast<uint64_t>(svc.max_replicas) * svc.concurrency > (1u << 20))
    ctx.fail(node["concurrency"] ? node["concurrency"] : node, join_path(path, "concurrency"),
             "max_replicas x concurrency is above 1048576 requests in service at once");
  if (need > kMaxTotalQuotaGpus)
    ctx.fail(node, path,
             "max_replicas x gpus is too large (at most " + std::to_string(kMaxTotalQuotaGpus) +
                 " GPUs)");
  return w;
}

JobClassSpec read_workload(const Context& ctx, const YAML::Node& node, const std::string& path,
                           const Scenario& s) {
  if (!node.IsMap()) ctx.fail(node, path, "must be a mapping (a workload); got " + describe(node));
  JobClassSpec w;
  w.name =
      read_string(ctx, require(ctx, node, path, "name", "a unique name"), join_path(path, "name"));
  if (node["kind"])
    w.kind = read_choice<WorkloadKind>(ctx, node["kind"], join_path(path, "kind"),
                                       {{"training", WorkloadKind::training},
                                        {"batch", WorkloadKind::batch},
                                        {"inference", WorkloadKind::inference}});
  if (w.kind == WorkloadKind::inference) return read_inference_workload(ctx, node, path, s, w);
  expect_map(ctx, node, path, scenario_child_keys("workloads[]", "kind", "batch"));
  if (node["gpus"])
    w.gpus = static_cast<uint32_t>(
        read_key_integer(ctx, node["gpus"], join_path(path, "gpus")));
  if (node["priority"])
    w.priority = static_cast<int32_t>(
        read_key_integer(ctx, node["priority"], join_path(path, "priority")));
  w.arrivals = read_arrivals(
      ctx, require(ctx, node, path, "arrivals", "an arrival process (poisson, nhpp, trace)"),
      join_path(path, "arrivals"));
  if (w.arrivals.kind == ArrivalKind::trace) {
    if (node["work"])
      ctx.fail(node["work"], join_path(path, "work"),
               "a trace-driven workload takes each job's run time from its trace; remove 'work'");
  } else {
    w.work_s = read_distribution(
        ctx, require(ctx, node, path, "work", "the run time on the reference GPU (distribution)"),
        join_path(path, "work"));
  }

  std::vector<std::string> pool_names;
  for (const auto& p : s.pools) pool_names.push_back(p.name);
  if (node["placement"]) {
    const YAML::Node list = node["placement"];
    const std::string lpath = join_path(path, "placement");
    if (!list.IsSequence() || list.size() == 0)
      ctx.fail(list, lpath,
               "must be a non-empty list of pool names; declared pools: " +
                   text::join(pool_names, ", "));
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string ipath = lpath + "[" + std::to_string(i) + "]";
      const std::string name = read_reference(ctx, list[i], ipath, pool_names, "pool");
      if (std::find(w.placement.begin(), w.placement.end(), name) != w.placement.end())
        ctx.fail(list[i], ipath, "pool \"" + name + "\" is listed twice");
      if (s.pools[s.pool_index(name)].purchase == PurchaseOption::serverless)
        ctx.fail(list[i], ipath,
                 "pool \"" + name +
                     "\" is serverless: it runs inference services (kind: inference), not jobs");
      w.placement.push_back(name);
    }
  } else {
    for (const auto& p : s.pools)
      if (p.purchase != PurchaseOption::serverless) w.placement.push_back(p.name);
    if (w.placement.empty())
      ctx.fail(node, path,
               "every pool is serverless, and serverless pools run inference services only; add "
               "a pool for these jobs or make the workload kind: inference");
  }

  if (node["vram_gb"])
    w.vram_gb = read_key_number(ctx, node["vram_gb"], join_path(path, "vram_gb"));
  if (node["data"]) {
    const YAML::Node data = node["data"];
    const std::string dpath = join_path(path, "data");
    expect_map(ctx, data, dpath, scenario_child_keys("workloads[].data"));
    w.data_gb = read_key_number(ctx, require(ctx, data, dpath, "size_gb", "GB each run fetches"), dpath + ".size_gb");
    std::vector<std::string> region_names;
    for (const auto& r : s.regions) region_names.push_back(r.name);
    w.data_region =
        read_reference(ctx, require(ctx, data, dpath, "region", "the region where the data lives"),
                       dpath + ".region", region_names, "region");
  }
  if (node["checkpoint"]) {
    const YAML::Node ck = node["checkpoint"];
    const std::string cpath = join_path(path, "checkpoint");
    expect_map(ctx, ck, cpath, scenario_child_keys("workloads[].checkpoint"));
    if (ck["size_gb"])
      w.checkpoint_size_gb =
          read_key_number(ctx, ck["size_gb"], cpath + ".size_gb");
    if (ck["interval"])
      w.checkpoint_interval_s = read_key_duration(ctx, ck["interval"], cpath + ".interval");
    if (ck["write"]) w.checkpoint_write_s = read_key_duration(ctx, ck["write"], cpath + ".write");
    if (ck["restart"]) w.restart_s = read_key_duration(ctx, ck["restart"], cpath + ".restart");
  }
  if (node["deadline"])
    w.deadline_s = read_key_duration(ctx, node["deadline"], join_path(path, "deadline"));
  if (node["fallback"]) {
    const YAML::Node fb = node["fallback"];
    const std::string fpath = join_path(path, "fallback");
    expect_map(ctx, fb, fpath, scenario_child_keys("workloads[].fallback"));
    if (fb["after_preemptions"])
      w.fallback_after_preemptions = static_cast<uint32_t>(
          read_key_integer(ctx, fb["after_preemptions"], fpath + ".after_preemptions"));
    if (fb["when_slack_below"]) {
      if (w.deadline_s <= 0)
        ctx.fail(fb["when_slack_below"], fpath + ".when_slack_below",
                 "needs a deadline on the workload (slack = time to the deadline minus the work "
                 "left)");
      w.fallback_slack_s =
          read_key_duration(ctx, fb["when_slack_below"], fpath + ".when_slack_below");
    }
    if (fb["return_to_preemptible"]) {
      w.fallback_returns =
          read_bool(ctx, fb["return_to_preemptible"], fpath + ".return_to_preemptible");
      if (w.fallback_returns && !fb["after_preemptions"])
        ctx.fail(fb["return_to_preemptible"], fpath + ".return_to_preemptible",
                 "needs fallback.after_preemptions (the rule it lifts for the run after a "
                 "fallback; when_slack_below is checked again at every launch anyway)");
    }
  }
  if (node["placement_limit"]) {
    const YAML::Node lim = node["placement_limit"];
    const std::string lpath = join_path(path, "placement_limit");
    expect_map(ctx, lim, lpath, scenario_child_keys("workloads[].placement_limit"));
    const YAML::Node pool_node =
        require(ctx, lim, lpath, "pool", "the pool of the placement list whose jobs it limits");
    w.limit_pool = read_reference(ctx, pool_node, lpath + ".pool", w.placement, "pool of the placement list");
    if (lim["jobs"] && lim["share"])
      ctx.fail(lim["share"], lpath + ".share",
               "give either jobs (a fixed count) or share (a fraction of the class's jobs), not "
               "both");
    if (lim["share"]) {
      w.limit_share = read_key_number(ctx, lim["share"], lpath + ".share");
      w.limit_jobs = 0;
    } else {
      const YAML::Node jobs_node = require(
          ctx, lim, lpath, "jobs",
          "the most jobs of the class in that pool at once (or share: the most fraction of the "
          "class's jobs)");
      w.limit_jobs = static_cast<uint32_t>(read_key_integer(ctx, jobs_node, lpath + ".jobs"));
    }
    const uint32_t quota = s.pools[s.pool_index(w.limit_pool)].quota_gpus;
    if (!lim["share"] && static_cast<uint64_t>(w.limit_jobs) * w.gpus > quota)
      ctx.fail(lim["jobs"], lpath + ".jobs",
               std::to_string(w.limit_jobs) + " jobs of " + std::to_string(w.gpus) +
                   " GPUs need " + std::to_string(static_cast<uint64_t>(w.limit_jobs) * w.gpus) +
                   " GPUs, more than pool \"" + w.limit_pool + "\" has (quota " +
                   std::to_string(quota) + "); at most " + std::to_string(quota / w.gpus) +
                   " jobs");
  }

  if (node["sync"]) {
    const YAML::Node sy = node["sync"];
    const std::string spath = join_path(path, "sync");
    expect_map(ctx, sy, spath, scenario_child_keys("workloads[].sync"));
    if (w.arrivals.kind == ArrivalKind::trace)
      ctx.fail(sy, spath,
               "needs the GPUs of every job of the class (gpus), but a trace gives them job by "
               "job; remove sync or use a poisson or nhpp workload");
    w.sync_step_s =
        read_key_duration(ctx, require(ctx, sy, spath, "step", "the compute time of one training step"), spath + ".step");
    w.sync_gradient_gb = read_key_number(ctx, require(ctx, sy, spath, "gradient_gb", "GB all-reduced after every step"), spath + ".gradient_gb");
    for (const auto& name : w.placement) {
      const PoolSpec& p = s.pools[s.pool_index(name)];
      if (p.gpus_per_node > 0 && p.gpus_per_node < w.gpus && p.interconnect_gbps <= 0)
        ctx.fail(sy, spath,
                 "a job of " + std::to_string(w.gpus) + " GPUs spans nodes of pool \"" + name +
                     "\" (" + std::to_string(p.gpus_per_node) +
                     " GPUs per node), which declares no interconnect; add pools." + name +
                     ".interconnect: {latency, bandwidth_gbps}");
    }
  }

  const bool has_fallback = w.fallback_after_preemptions != 0xFFFFFFFFu || w.fallback_slack_s >= 0;
  if (has_fallback &&
      std::all_of(w.placement.begin(), w.placement.end(), [&](const std::string& name) {
        const PurchaseOption purchase = s.pools[s.pool_index(name)].purchase;
        return purchase == PurchaseOption::spot || purchase == PurchaseOption::marketplace;
      }))
    ctx.fail(node["fallback"], join_path(path, "fallback"),
             "falls back to pools that are not preemptible, but every pool of the placement list "
             "is spot or marketplace; add an on_demand, reserved or owned pool to the placement");

  // Every job must fit some pool of its placement list: GPU memory, and the whole gang.
  uint32_t largest = 0;
  std::string quotas, memories;
  for (const auto& name : w.placement) {
    const PoolSpec& p = s.pools[s.pool_index(name)];
    memories += (memories.empty() ? "" : ", ") + name + " " +
                (p.gpu_memory_gb > 0 ? text::format_number(p.gpu_memory_gb) + " GB" : "undeclared");
    if (!fits_memory(w, p)) continue;
    largest = std::max(largest, p.quota_gpus);
    quotas += (quotas.empty() ? "" : ", ") + name + " " + std::to_string(p.quota_gpus);
  }
  // A checkpoint may follow its job to any pool of the placement list: regions that differ need
  // a declared link.
  if (w.checkpoint_size_gb > 0) {
    for (const auto& from : w.placement)
      for (const auto& to : w.placement) {
        const PoolSpec& a = s.pools[s.pool_index(from)];
        const PoolSpec& b = s.pools[s.pool_index(to)];
        if (a.region.empty() || b.region.empty() || a.region == b.region) continue;
        if (s.bandwidth_gbps(a.region, b.region) < 0)
          ctx.fail(node["checkpoint"], join_path(path, "checkpoint"),
                   "a checkpoint may move between " + a.region + " and " + b.region + " (pools \"" +
                       from + "\" and \"" + to +
                       "\"), but no bandwidth links "
                       "them; add regions." +
                       a.region + ".bandwidth_gbps." + b.region);
      }
  }
  // Data fetched from another region needs a declared link (bandwidth) to every pool's region.
  if (w.data_gb > 0) {
    for (const auto& name : w.placement) {
      const PoolSpec& p = s.pools[s.pool_index(name)];
      if (p.region.empty())
        ctx.fail(node["data"], join_path(path, "data"),
                 "pool \"" + name +
                     "\" has no region, so the transfer of this data cannot be "
                     "timed; give the pool a region");
      if (p.region != w.data_region && s.bandwidth_gbps(w.data_region, p.region) < 0)
        ctx.fail(node["data"], join_path(path, "data"),
                 "no bandwidth between " + w.data_region + " and " + p.region + " (pool \"" + name +
                     "\"); add regions." + w.data_region + ".bandwidth_gbps." + p.region);
    }
  }
  if (quotas.empty())
    ctx.fail(node["vram_gb"], join_path(path, "vram_gb"),
             "a job needing " + text::format_number(w.vram_gb) +
                 " GB per GPU fits the memory of "
                 "no pool of its placement list (" +
                 memories + ")");
  uint32_t need = w.gpus;
  for (const auto& row : w.arrivals.trace) need = std::max(need, row.gpus);
  if (need > largest) {
    const YAML::Node at = node["gpus"] ? node["gpus"] : node;
    ctx.fail(at, join_path(path, "gpus"),
             "a job of " + std::to_string(need) + " GPUs fits no pool of its placement list " +
                 "(quotas: " + quotas + "); lower gpus or raise a quota");
  }
  return w;
}

PolicySpec read_policy(const Context& ctx, const YAML::Node& node, const std::string& path) {
  expect_map(ctx, node, path, scenario_child_keys("policy"));
  PolicySpec p;
  if (node["queue"])
    p.discipline =
        read_choice<QueueDiscipline>(ctx, node["queue"], join_path(path, "queue"),
                                     {{"fifo", QueueDiscipline::fifo},
                                      {"priority", QueueDiscipline::priority},
                                      {"sjf", QueueDiscipline::shortest_job_first},
                                      {"shortest_job_first", QueueDiscipline::shortest_job_first}});
  if (node["backfill"]) p.backfill = read_bool(ctx, node["backfill"], join_path(path, "backfill"));
  if (node["queue_capacity"]) {
    p.queue_capacity = static_cast<uint32_t>(
        read_key_integer(ctx, node["queue_capacity"], join_path(path, "queue_capacity")));
    p.queue_capacity_set = true;
  }
  return p;
}

/// The price catalog named by `catalog` (a CSV with the columns of data/gpu_prices.csv).
/// A catalog value that a pool takes for the key `pattern` (its price or GPU memory), held to
/// what the key itself accepts when written in the scenario: a plain decimal number (no hex, no
/// NaN or infinity), 0 or of magnitude 1e-12 to 1e12, within the key's range. `text` is the
/// cell; throws std::runtime_error naming `where` and the column.
double catalog_value(const std::string& text_in, const std::string& where, const char* column,
                     const char* pattern) {
  const ScenarioKey& k = scenario_key(pattern);
  const std::string t = text::trim(text_in);
  char* end = nullptr;
  const bool decimal = !t.empty() && t.find_first_not_of("0123456789.eE+-") == std::string::npos;
  const double v = decimal ? std::strtod(t.c_str(), &end) : NAN;
  const KeyBound hi = scenario_key_upper(k);
  const bool in_range =
      decimal && *end == '\0' && std::isfinite(v) &&
      (v == 0 || (std::fabs(v) >= kMinMagnitude && std::fabs(v) <= kMaxMagnitude)) &&
      (k.lo.open ? v > k.lo.value : v >= k.lo.value) && (hi.open ? v < hi.value : v <= hi.value);
  if (!in_range)
    throw std::runtime_error(where + column + " holds \"" + text::excerpt(t) +
                             "\"; it must be a decimal number " + describe_key_range(k) +
                             " (as the pool's own key)");
  return v;
}

Catalog read_catalog(const Context& ctx, const YAML::Node& node) {
  const std::string file = read_string(ctx, node, "catalog");
  Catalog catalog;
  try {
    const CsvTable table = ctx.read_csv(node, "catalog", file);
    const auto keys = table.strings("key"), models = table.strings("gpu_model"),
               spot = table.strings("spot_usd_per_gpu_hour"),
               memory = table.strings("gpu_memory_gb"),
               on_demand = table.strings("on_demand_usd_per_gpu_hour");
    for (std::size_t r = 0; r < keys.size(); ++r) {
      const std::string where = table.origin() + ":" + std::to_string(table.line_of_row(r)) + ": ";
      CatalogRow row{models[r],
                     catalog_value(memory[r], where, "gpu_memory_gb", "pools.NAME.gpu_memory_gb"),
                     catalog_value(on_demand[r], where, "on_demand_usd_per_gpu_hour",
                                   "pools.NAME.price_usd_per_gpu_hour"),
                     -1};
      if (!text::trim(spot[r]).empty())
        row.spot_usd_per_gpu_hour = catalog_value(spot[r], where, "spot_usd_per_gpu_hour",
                                                  "pools.NAME.price_usd_per_gpu_hour");
      if (!catalog.emplace(keys[r], row).second)
        throw std::runtime_error(where + "the key \"" + text::excerpt(keys[r]) +
                                 "\" appears twice");
    }
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const ScenarioError*>(&e)) throw;
    ctx.fail(node, "catalog", e.what());
  }
  return catalog;
}

/// A pool that runs inference replicas runs nothing else: jobs that named it are an error, and
/// default placements leave it out. A serverless pool without a quota gets what its services'
/// max_replicas need.
void check_service_pools(const Context& ctx, const YAML::Node& workloads, Scenario& s) {
  std::map<std::string, std::string> service_of_pool;
  uint64_t replicas = 0;
  for (const JobClassSpec& w : s.workloads) {
    if (w.kind != WorkloadKind::inference) continue;
    service_of_pool.emplace(w.service.pool, w.name);
    if (!w.service.fallback_pool.empty()) service_of_pool.emplace(w.service.fallback_pool, w.name);
    replicas += w.service.max_replicas;
  }
  if (replicas >= (1u << 19))
    ctx.fail(workloads, "workloads",
             "the services' max_replicas add up to " + std::to_string(replicas) +
                 "; at most 524287 replicas are supported");
  for (std::size_t i = 0; i < s.workloads.size(); ++i) {
    JobClassSpec& w = s.workloads[i];
    if (w.kind == WorkloadKind::inference) continue;
    const std::string path = "workloads[" + std::to_string(i) + "].placement";
    std::vector<std::string> kept;
    for (const std::string& name : w.placement) {
      const auto it = service_of_pool.find(name);
      if (it == service_of_pool.end()) {
        kept.push_back(name);
        continue;
      }
      if (workloads[i]["placement"])
        ctx.fail(
            workloads[i]["placement"], path,
            "pool \"" + name + "\" runs the inference service \"" + it->second +
                "\"; a pool runs either jobs or inference replicas, so give jobs another pool");
    }
    if (kept.empty())
      ctx.fail(
          workloads[i], path,
          "every pool runs an inference service; add a pool for the jobs of \"" + w.name + "\"");
    w.placement = kept;
  }
  for (PoolSpec& p : s.pools) {
    if (p.purchase != PurchaseOption::serverless || p.quota_gpus > 0) continue;
    uint64_t need = 0;
    for (const JobClassSpec& w : s.workloads)
      if (w.kind == WorkloadKind::inference && w.service.pool == p.name)
        need += static_cast<uint64_t>(w.service.max_replicas) * w.gpus;
    p.quota_gpus = static_cast<uint32_t>(std::min<uint64_t>(need, kMaxTotalQuotaGpus));
  }
  uint64_t total_quota = 0;
  for (const PoolSpec& p : s.pools) total_quota += p.quota_gpus;
  if (total_quota > kMaxTotalQuotaGpus)
    ctx.fail(workloads, "workloads",
             "with the serverless quotas the services need, the quotas add up to " +
                 std::to_string(total_quota) + " GPUs; at most " +
                 std::to_string(kMaxTotalQuotaGpus) + " are supported");
}

/// The most events one replication may be expected to process. At 10 to 20 M events/s per core
/// that is a minute or more per replication; a scenario above it is almost always a unit
/// mistake (a step of 1us meant as 1h, a rate per second meant per day), and one far above it
/// would run for years. Every key that sets how often something recurs (arrivals, price steps,
/// trace steps, zone-wide events, preemptions, maximum run times, stockout retries) is checked
/// against it, so that every loop of a run is finite in practice, not only in principle.
constexpr double kMaxEventsPerReplication = 1e9;

/// Refuses a scenario whose recurring processes would make one replication process more than
/// kMaxEventsPerReplication events: names the key of the largest contributor, its expected
/// count and how it was estimated.
void check_event_budget(const Context& ctx, const YAML::Node& root, const Scenario& s) {
  struct Source {
    double events;
    YAML::Node node;
    std::string path, how;
  };
  std::vector<Source> sources;
  const double horizon = s.horizon_s;
  const auto per = [&](double mean_gap_s) {
    return mean_gap_s > 0 ? horizon / mean_gap_s : std::numeric_limits<double>::infinity();
  };
  const YAML::Node pools = root["pools"];
  for (const PoolSpec& p : s.pools) {
    const YAML::Node node = pools[p.name];
    const std::string path = "pools." + p.name;
    const double quota = std::max<double>(p.quota_gpus, 1);
    // Price steps are not events, but a trace or log-price steps every `step` (an
    // ornstein_uhlenbeck price has no steps: it is drawn when a run starts or ends).
    if (p.price_model == CompiledPool::kTracePrice ||
        p.price_model == CompiledPool::kMeanRevertingPrice)
      sources.push_back({per(p.price_step_s), node["price_process"]["step"],
                         path + ".price_process.step", "one price step per step over the horizon"});
    if (!p.availability.empty())
      sources.push_back({per(p.availability_step_s), node["availability"],
                         path + ".availability", "up to one change per trace step"});
    const YAML::Node preemption = node["preemption"];
    if (p.has_zone_events)
      sources.push_back({per(p.zone_event_gap_s.mean()), preemption["zone_events"],
                         path + ".preemption.zone_events", "horizon / mean time between events"});
    if (p.has_time_to_preemption)
      sources.push_back({quota * per(p.time_to_preemption_s.mean()),
                         preemption["time_to_preemption"], path + ".preemption.time_to_preemption",
                         "GPUs of quota x horizon / mean time to preemption"});
    if (p.max_runtime_s > 0)
      sources.push_back({quota * per(p.max_runtime_s), preemption["max_runtime"],
                         path + ".preemption.max_runtime",
                         "GPUs of quota x horizon / max_runtime"});
    if (p.stockout_probability > 0)
      sources.push_back({per(p.stockout_retry_s), node["stockout"], path + ".stockout",
                         "one retry per retry_after over the horizon"});
  }
  const YAML::Node workloads = root["workloads"];
  for (std::size_t i = 0; i < s.workloads.size(); ++i) {
    const ArrivalSpec& a = s.workloads[i].arrivals;
    double expected = static_cast<double>(a.trace.size());
    if (a.kind != ArrivalKind::trace) {
      double multiplier = 1;
      if (!a.profile.empty()) {
        multiplier = 0;
        for (double m : a.profile) multiplier += m / static_cast<double>(a.profile.size());
      }
      expected = a.rate_per_s * multiplier * horizon;
    } else if (a.resample != TraceResample::none) {
      // The trace's rows per period, over the horizon, in ceil(scale_rate) layers, and a block
      // drawn per block length (not events, but work of the same kind).
      const double layers = std::ceil(a.scale_rate);
      expected = layers * static_cast<double>(a.trace.size()) * (horizon / a.resample_period_s + 1);
      const std::string rpath = "workloads[" + std::to_string(i) + "].arrivals.resample";
      sources.push_back({layers * per(a.resample_block_s),
                         workloads[i]["arrivals"]["resample"]["block"], rpath + ".block",
                         "one block per block length over the horizon, per layer"});
    }
    sources.push_back({expected, workloads[i]["arrivals"],
                       "workloads[" + std::to_string(i) + "].arrivals", "rate x horizon"});
    const ServiceSpec& svc = s.workloads[i].service;
    if (s.workloads[i].kind == WorkloadKind::inference && svc.windowed) {
      const YAML::Node as = workloads[i]["autoscaling"];
      sources.push_back({per(svc.tick_s), as["tick"] ? as["tick"] : as["stable_window"],
                         "workloads[" + std::to_string(i) + "].autoscaling.tick",
                         "one autoscaler tick per tick over the horizon"});
    }
  }
  double total = 0;
  const Source* largest = nullptr;
  for (const Source& source : sources) {
    total += source.events;
    if (largest == nullptr || source.events > largest->events) largest = &source;
  }
  if (!(total > kMaxEventsPerReplication) || largest == nullptr) return;
  ctx.fail(largest->node, largest->path,
           "makes one replication process about " + text::format_number(largest->events) +
               " events (" + largest->how + ", horizon " + text::format_duration(horizon) +
               "); with the rest of the scenario about " + text::format_number(total) +
               " in all, where at most " + text::format_number(kMaxEventsPerReplication) +
               " are accepted (at 10-20 M events/s, a minute or more per replication); check "
               "the unit or shorten the horizon");
}

/// Collects the problems of independent parts of a scenario, so that one run reports them all
/// (up to kMaxListedErrors, in file order). A file that cannot be read is not collected: it
/// stops the loading at once (InputFileError).
class ErrorList {
 public:
  /// Runs `read`; a ScenarioError it throws is kept. Returns whether it succeeded.
  template <typename Read>
  bool attempt(Read&& read) {
    try {
      read();
      return true;
    } catch (const InputFileError&) {
      throw;
    } catch (const LocatedError& e) {
      // One place in the file, one problem: the parts that alias it report it once.
      for (const Entry& seen : errors_)
        if ((e.line >= 0 && seen.line == e.line && seen.column == e.column) ||
            seen.message == e.what())
          return false;
      errors_.push_back({e.line < 0 ? INT32_MAX : e.line, e.column, e.what()});
    } catch (const ScenarioError& e) {
      if (*e.what() != '\0') errors_.push_back({INT32_MAX, 0, e.what()});  // "": already said
    }
    return false;
  }
  bool empty() const { return errors_.empty(); }

  /// Throws the errors collected, if any: one as it is, several as a list in file order.
  void throw_if_any(const std::string& origin) {
    if (errors_.empty()) return;
    if (errors_.size() == 1) throw ScenarioError(errors_[0].message);
    std::stable_sort(errors_.begin(), errors_.end(), [](const Entry& a, const Entry& b) {
      return a.line != b.line ? a.line < b.line : a.column < b.column;
    });
    std::string message =
        text::excerpt(origin, 200) + ": " + std::to_string(errors_.size()) + " problems:";
    for (std::size_t i = 0; i < errors_.size() && i < kMaxListedErrors; ++i)
      message += "\n  " + errors_[i].message;
    if (errors_.size() > kMaxListedErrors)
      message += "\n  ... and " + std::to_string(errors_.size() - kMaxListedErrors) + " more";
    throw ScenarioError(message);
  }

 private:
  struct Entry {
    int line, column;
    std::string message;
  };
  std::vector<Entry> errors_;
};

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

/// Checks `node`, the mapping at `path` (pattern `pattern`), against the key table alone, each
/// key on its own: unknown keys, and each value's type, unit and range. Every problem goes to
/// `errors`, so that a file with several mistakes in one pool lists them all. Rules that link
/// keys, references to names and data files are left to the readers.
void check_keys(const Context& ctx, const YAML::Node& node, const std::string& pattern,
                const std::string& path, ErrorList& errors) {
  if (!node.IsMap()) return;  // the reader says what it must be
  // The discriminator's value selects the keys; an invalid value selects them all (it is
  // reported itself, and must not make every other key unknown).
  const std::string discriminator = scenario_discriminator(pattern);
  std::string value;
  if (!discriminator.empty() && node[discriminator] && node[discriminator].IsScalar()) {
    value = node[discriminator].Scalar();
    const std::vector<std::string> choices =
        text::split(scenario_key(pattern + "." + discriminator).choices, ' ');
    if (std::find(choices.begin(), choices.end(), value) == choices.end()) value.clear();
  } else if (!discriminator.empty()) {
    value = scenario_discriminator_default(pattern);  // "" when the key is required
  }
  const std::vector<std::string> allowed = scenario_child_keys(pattern, discriminator, value);
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    const std::string child = join_path(path, key);
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      errors.attempt([&] {
        std::string message = "unknown key '" + text::excerpt(key) + "'";
        const std::string suggestion = text::closest(key, allowed);
        if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
        ctx.fail(kv.first, child, message + "; valid keys: " + text::join(allowed, ", "));
      });
      continue;
    }
    const std::string child_pattern = pattern.empty() ? key : pattern + "." + key;
    const ScenarioKey& k = scenario_key(child_pattern);
    const YAML::Node v = kv.second;
    if (v.IsNull()) continue;
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
        errors.attempt([&] {
          std::vector<std::pair<std::string, int>> choices;
          for (const std::string& c : text::split(k.choices, ' ')) choices.emplace_back(c, 0);
          read_choice<int>(ctx, v, child, choices);
        });
        break;
      case KeyType::distribution:
        // Empirical samples from a file are read (once) by the reader.
        if (!(v.IsMap() && v["file"])) errors.attempt([&] { read_distribution(ctx, v, child); });
        break;
      case KeyType::mapping:
        if (find_scenario_key(child_pattern + ".NAME")) {
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
}

/// The `goals` section: name -> {require: [CONDITION, ...], target, description}.
std::vector<GoalSpec> read_goals(const Context& ctx, const YAML::Node& node, const Scenario& s) {
  if (!node.IsMap() || node.size() == 0)
    ctx.fail(node, "goals",
             "must be a mapping of goal names to {require: [CONDITION, ...]}, got " +
                 describe(node));
  expect_unique_keys(ctx, node, "goals");
  if (node.size() > kMaxGoals)
    ctx.fail(node, "goals",
             "has " + std::to_string(node.size()) + " goals; at most " + std::to_string(kMaxGoals));
  std::vector<std::string> pool_names;
  for (const PoolSpec& p : s.pools) pool_names.push_back(p.name);
  std::vector<GoalSpec> goals;
  for (const auto& kv : node) {
    GoalSpec g;
    g.name = kv.first.Scalar();
    const std::string path = "goals." + g.name;
    if (!valid_goal_name(g.name))
      ctx.fail(kv.first, path,
               "a goal's name must start with a letter and hold only letters, digits and _ "
               "(it is used in --chance NAME>=LEVEL), got \"" + text::excerpt(g.name) + "\"");
    expect_map(ctx, kv.second, path, scenario_child_keys("goals.NAME"));
    if (kv.second["description"])
      g.description = read_string(ctx, kv.second["description"], path + ".description");
    if (kv.second["target"])
      g.target = read_key_number(ctx, kv.second["target"], path + ".target");
    const YAML::Node require_node =
        require(ctx, kv.second, path, "require", "a list of conditions such as [cost <= 500000]");
    const std::string require_path = path + ".require";
    if (!require_node.IsSequence() || require_node.size() == 0)
      ctx.fail(require_node, require_path,
               "must be a non-empty list of conditions, e.g. [completion_p99 <= 25d]; got " +
                   describe(require_node));
    if (require_node.size() > kMaxGoalConditions)
      ctx.fail(require_node, require_path,
               "has " + std::to_string(require_node.size()) + " conditions; at most " +
                   std::to_string(kMaxGoalConditions));
    for (std::size_t i = 0; i < require_node.size(); ++i) {
      const std::string item = require_path + "[" + std::to_string(i) + "]";
      const std::string condition = read_string(ctx, require_node[i], item);
      try {
        g.conditions.push_back(parse_goal_condition(condition, pool_names));
      } catch (const std::invalid_argument& e) {
        ctx.fail(require_node[i], item, e.what());
      }
    }
    goals.push_back(std::move(g));
  }
  return goals;
}

/// Reads a scenario, reporting every problem of its independent parts at once: the top-level
/// values, each provider, each region, each pool, each workload and the policy. A later part
/// that depends on an earlier one (pools on providers, regions and the catalog; workloads on
/// pools) is read only when the earlier one had no problem, so that no error follows from
/// another.
Scenario read_scenario(const Context& ctx, const YAML::Node& root) {
  ErrorList errors;
  Scenario s;
  const std::vector<std::string> top_keys = scenario_child_keys("");
  // Every key on its own first, so that several mistakes in one part are all listed; the
  // readers below then report what links keys (a problem found twice is listed once).
  if (root.IsMap()) check_keys(ctx, root, "", "", errors);
  errors.attempt([&] { expect_map(ctx, root, "", top_keys); });
  // A required key that is missing because it was misspelt is reported once, as the typo.
  std::set<std::string> misspelt;
  for (const auto& kv : root)
    if (std::find(top_keys.begin(), top_keys.end(), kv.first.Scalar()) == top_keys.end())
      misspelt.insert(text::closest(kv.first.Scalar(), top_keys));
  const auto required = [&](const char* key, const char* what) {
    if (!root[key] && misspelt.count(key)) throw ScenarioError("");  // reported as the typo
    return require(ctx, root, "", key, what);
  };
  errors.attempt([&] { s.name = read_string(ctx, required("name", "a short title"), "name"); });
  errors.attempt([&] {
    if (root["description"]) s.description = read_string(ctx, root["description"], "description");
  });
  const bool horizon_ok = errors.attempt([&] {
    // At most kMaxHorizonS (the key table's range), where event times still resolve 4 us.
    s.horizon_s = read_key_duration(ctx, required("horizon", "a duration such as 30d"), "horizon");
  });
  errors.attempt([&] {
    if (!root["warmup"]) return;
    s.warmup_s = read_key_duration(ctx, root["warmup"], "warmup");
    if (horizon_ok && s.warmup_s >= s.horizon_s)
      ctx.fail(root["warmup"], "warmup",
               "must be shorter than the horizon (" + text::format_duration(s.horizon_s) + ")");
  });
  errors.attempt([&] {
    if (root["seed"]) s.seed = read_seed(ctx, root["seed"], "seed");
  });
  errors.attempt([&] {
    if (root["replications"])
      s.replications = static_cast<uint64_t>(read_key_integer(ctx, root["replications"], "replications"));
  });
  // Everything below depends on the horizon.
  if (!horizon_ok) errors.throw_if_any(ctx.origin);
  errors.attempt([&] {
    if (!root["timeseries"]) return;
    const YAML::Node ts = root["timeseries"];
    expect_map(ctx, ts, "timeseries", scenario_child_keys("timeseries"));
    s.timeseries_step_s =
        read_key_duration(ctx, require(ctx, ts, "timeseries", "step", "a bin width such as 1h"), "timeseries.step");
    const double bins = s.timeseries_bins();
    if (bins > kMaxTimeseriesBins)
      ctx.fail(ts["step"], "timeseries.step",
               "gives " + text::format_number(bins) + " bins over the horizon; at most " +
                   std::to_string(kMaxTimeseriesBins) + " are supported (use a wider step)");
  });

  errors.attempt([&] {
    if (!root["records"]) return;
    const YAML::Node rec = root["records"];
    expect_map(ctx, rec, "records", scenario_child_keys("records"));
    if (rec["jobs"])
      s.record_jobs = static_cast<uint64_t>(read_key_integer(ctx, rec["jobs"], "records.jobs"));
  });

  // The policy depends on nothing else.
  errors.attempt([&] {
    if (root["policy"]) s.policy = read_policy(ctx, root["policy"], "policy");
  });
  const bool providers_ok = errors.attempt([&] {
    if (!root["providers"]) return;
    const YAML::Node providers = root["providers"];
    if (!providers.IsMap()) ctx.fail(providers, "providers", "must be a mapping of names");
    expect_unique_keys(ctx, providers, "providers");
    for (const auto& kv : providers) {
      const std::string name = kv.first.Scalar();
      const std::string path = "providers." + name;
      ProviderSpec p{name, ProviderKind::hyperscaler};
      if (kv.second.IsMap()) {
        expect_map(ctx, kv.second, path, scenario_child_keys("providers.NAME"));
        if (kv.second["kind"])
          p.kind = read_choice<ProviderKind>(ctx, kv.second["kind"], path + ".kind",
                                             {{"hyperscaler", ProviderKind::hyperscaler},
                                              {"gpu_cloud", ProviderKind::gpu_cloud},
                                              {"serverless", ProviderKind::serverless},
                                              {"marketplace", ProviderKind::marketplace},
                                              {"onprem", ProviderKind::onprem}});
      } else if (!kv.second.IsNull()) {
        ctx.fail(kv.second, path, "must be a mapping (e.g. {kind: gpu_cloud}) or empty");
      }
      s.providers.push_back(p);
    }
  });
  const bool regions_ok = errors.attempt([&] {
    if (!root["regions"]) return;
    const YAML::Node regions = root["regions"];
    if (!regions.IsMap()) ctx.fail(regions, "regions", "must be a mapping of names");
    expect_unique_keys(ctx, regions, "regions");
    const std::vector<std::string> region_names = keys_of(regions);
    for (const auto& kv : regions) {
      RegionSpec r;
      r.name = kv.first.Scalar();
      const std::string path = "regions." + r.name;
      if (kv.second.IsMap()) {
        expect_map(ctx, kv.second, path, scenario_child_keys("regions.NAME"));
        // A map from other regions to a number: latency (ms >= 0) or bandwidth (Gbit/s > 0).
        auto read_links = [&](const char* key, const std::string& valid,
                              std::map<std::string, double>& into) {
          const YAML::Node links = kv.second[key];
          if (!links) return;
          if (!links.IsMap())
            ctx.fail(links, path + "." + key, "must map region names to " + valid);
          for (const auto& l : links) {
            const std::string lpath = path + "." + key + "." + l.first.Scalar();
            const std::string other = read_reference(ctx, l.first, lpath, region_names, "region");
            into[other] = read_key_number(ctx, l.second, lpath);
          }
        };
        read_links("latency_ms", "ms >= 0", r.latency_ms);
        read_links("bandwidth_gbps", "Gbit/s > 0", r.bandwidth_gbps);
        if (kv.second["egress_usd_per_gb"])
          r.egress_usd_per_gb =
              read_key_number(ctx, kv.second["egress_usd_per_gb"], path + ".egress_usd_per_gb");
      } else if (!kv.second.IsNull()) {
        ctx.fail(kv.second, path, "must be a mapping (e.g. {latency_ms: {us-west: 62}}) or empty");
      }
      s.regions.push_back(r);
    }
  });

  Catalog catalog;
  Context pool_ctx = ctx;
  const bool catalog_ok = errors.attempt([&] {
    if (!root["catalog"]) return;
    catalog = read_catalog(ctx, root["catalog"]);
    pool_ctx.catalog = &catalog;
  });
  // Pools name providers, regions and catalog rows: read them only when those are sound.
  if (!providers_ok || !regions_ok || !catalog_ok) errors.throw_if_any(ctx.origin);

  YAML::Node pools;
  const bool pool_map_ok = errors.attempt([&] {
    pools = required("pools", "a mapping of pool names to pools");
    if (!pools.IsMap() || pools.size() == 0)
      ctx.fail(pools, "pools", "must be a non-empty mapping of pool names to pools");
    if (pools.size() > kMaxPools)
      ctx.fail(pools, "pools",
               "has " + std::to_string(pools.size()) + " pools; at most " +
                   std::to_string(kMaxPools) +
                   " are supported (the model keeps a table of every pair of pools)");
    expect_unique_keys(ctx, pools, "pools");
    for (const auto& kv : pools)  // reported by check_keys; nothing to read without a name
      if (!kv.first.IsScalar() || kv.first.Scalar().empty()) throw ScenarioError("");
  });
  if (!pool_map_ok) errors.throw_if_any(ctx.origin);
  bool pools_ok = true;
  uint64_t total_quota = 0;
  for (const auto& kv : pools) {
    const std::string name = kv.first.Scalar();
    pools_ok = errors.attempt([&] {
      s.pools.push_back(read_pool(pool_ctx, kv.second, "pools." + name, name, s));
      total_quota += s.pools.back().quota_gpus;
    }) && pools_ok;
  }
  // Workloads name pools: read them only when every pool is sound.
  if (!pools_ok) errors.throw_if_any(ctx.origin);
  errors.attempt([&] {
    if (total_quota > kMaxTotalQuotaGpus)
      ctx.fail(pools, "pools",
               "the quotas add up to " + std::to_string(total_quota) + " GPUs; at most " +
                   std::to_string(kMaxTotalQuotaGpus) + " are supported");
  });

  // Goals name metrics of the pools: read once the pools are sound.
  errors.attempt([&] {
    if (root["goals"]) s.goals = read_goals(ctx, root["goals"], s);
  });

  YAML::Node workloads;
  const bool workload_list_ok = errors.attempt([&] {
    workloads = required("workloads", "a list of job classes");
    if (!workloads.IsSequence() || workloads.size() == 0)
      ctx.fail(workloads, "workloads", "must be a non-empty list of job classes");
    if (workloads.size() > 0xFFFF) ctx.fail(workloads, "workloads", "at most 65535 job classes");
  });
  if (!workload_list_ok) errors.throw_if_any(ctx.origin);
  if (workloads.size() * s.pools.size() > kMaxClassPoolPairs)
    ctx.fail(workloads, "workloads",
             std::to_string(workloads.size()) + " workloads and " + std::to_string(s.pools.size()) +
                 " pools make " + std::to_string(workloads.size() * s.pools.size()) +
                 " (workload, pool) pairs; at most " + std::to_string(kMaxClassPoolPairs) +
                 " are supported (the model keeps a transfer table for each)");
  std::map<std::string, std::size_t> workload_index;  // name -> first index
  bool workloads_ok = true;
  for (std::size_t i = 0; i < workloads.size(); ++i) {
    const std::string path = "workloads[" + std::to_string(i) + "]";
    workloads_ok = errors.attempt([&] {
      JobClassSpec w = read_workload(ctx, workloads[i], path, s);
      const auto [it, fresh] = workload_index.emplace(w.name, i);
      if (!fresh)
        ctx.fail(workloads[i]["name"], path + ".name",
                 "\"" + text::excerpt(w.name) + "\" is already the name of workloads[" +
                     std::to_string(it->second) + "]");
      s.workloads.push_back(std::move(w));
    }) && workloads_ok;
  }
  // Services share pools: checked across every workload once each is sound.
  if (workloads_ok) errors.attempt([&] { check_service_pools(ctx, workloads, s); });
  // How many events a replication would process, once every part is sound.
  if (workloads_ok && errors.empty()) errors.attempt([&] { check_event_budget(ctx, root, s); });
  errors.throw_if_any(ctx.origin);
  return s;
}

// ---- overrides ------------------------------------------------------------------------------

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

/// The scenario path of an override ("workloads.0.gpus" -> "workloads[0].gpus") for messages.
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

}  // namespace

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
