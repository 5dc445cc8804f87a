// gpucap: the scenario loader's shared parts, private to sim/model: the limits every reader
// applies, the reading context (file, overrides, data files read) whose fail() places each error at
// file:line:column and key path, and the section readers each file of this folder defines.
//
// A reader takes a YAML node and its dotted key path, checks the node's shape and its values'
// ranges (from the key table, scenario_keys.cpp), converts units, and fills its part of Scenario.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>
#include <yaml-cpp/yaml.h>

#include "gpucap/choices.hpp"
#include "gpucap/csv_table.hpp"
#include "gpucap/data_file.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/input_file.hpp"
#include "gpucap/purchase_options.hpp"
#include "gpucap/scenario.hpp"
#include "gpucap/scenario_error.hpp"
#include "gpucap/scenario_keys.hpp"

namespace gpucap::loader {

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
/// The most rows of one `initial_state` file (jobs or instances of a workload at t = 0): more
/// than any fleet runs and queues at once, and about 150 MB of loaded state at most.
constexpr std::size_t kMaxInitialStateRows = 2000000;

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

// ---- values.cpp --------------------------------------------------------------------------------

std::string join_path(const std::string& parent, const std::string& key);

std::string describe(const YAML::Node& node);

/// Rejects a mapping that names the same key twice (YAML parsers keep both silently).
void expect_unique_keys(const Context& ctx, const YAML::Node& map, const std::string& path);

/// Checks that `node` is a mapping whose keys are all in `allowed`.
void expect_map(const Context& ctx, const YAML::Node& node, const std::string& path,
                const std::vector<std::string>& allowed);

YAML::Node require(const Context& ctx, const YAML::Node& map, const std::string& path,
                   const std::string& key, const std::string& what);

std::string read_string(const Context& ctx, const YAML::Node& node, const std::string& path);

double read_number(const Context& ctx, const YAML::Node& node, const std::string& path);

/// A seed: a whole number from 0 to 2^64 - 1 (the Philox key's width).
uint64_t read_seed(const Context& ctx, const YAML::Node& node, const std::string& path);

bool read_bool(const Context& ctx, const YAML::Node& node, const std::string& path);

/// A duration: a number of seconds or text with a unit (us, ms, s, min, h, d, w).
double read_duration(const Context& ctx, const YAML::Node& node, const std::string& path,
                     bool allow_zero);

/// The row of the key at `path` ("pools.a100.quota" -> pools.NAME.quota); a key the table
/// lacks is a programming error (std::logic_error).
const ScenarioKey& key_row(const std::string& path);

/// The upper end of `k`'s range, checked after its lower end: "must be at most 1e+06 USD per
/// GPU-hour (...)". `v` is in the key's unit (seconds for a duration).
void check_key_upper(const Context& ctx, const YAML::Node& node, const std::string& path,
                     const ScenarioKey& k, double v);

/// A number of the key at `path`, within the key table's range for it.
double read_key_number(const Context& ctx, const YAML::Node& node, const std::string& path);

/// A whole number of the key at `path`, within the key table's range for it.
int64_t read_key_integer(const Context& ctx, const YAML::Node& node, const std::string& path);

/// A duration of the key at `path` (seconds), within the key table's range for it.
double read_key_duration(const Context& ctx, const YAML::Node& node, const std::string& path);

/// Where a trace starts at t = 0: `random` (each replication draws a uniform offset; sets
/// `random`) or a duration >= 0 into the trace. A spelling of "random" in other letters
/// ("Random", "RANDOM") gets a suggestion rather than a duration's message.
double read_trace_start(const Context& ctx, const YAML::Node& node, const std::string& path,
                        bool& random);

std::vector<double> read_csv_column(const Context& ctx, const YAML::Node& at,
                                    const std::string& path, const std::string& file,
                                    const std::string& column);

/// A plain number where the key table asks for a factor: a value with a time unit ("1.5d") gets
/// its own message, since it would otherwise be read as that many seconds.
double read_factor(const Context& ctx, const YAML::Node& node, const std::string& path);

std::vector<std::string> keys_of(const YAML::Node& map);

/// A reference by name to an entry of `section` (e.g. a pool named in a placement list).
std::string read_reference(const Context& ctx, const YAML::Node& node, const std::string& path,
                           const std::vector<std::string>& names, const std::string& section);

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

/// A spec whose fields a mapping's plain keys fill (see KeyBinding).
struct BoundSpec {
  KeyTarget target;
  void* spec;
};

/// Reads every plain key of the mapping `node` at `path` (of pattern `pattern`, e.g.
/// "pools.NAME") whose row binds a field of one of `specs`, in the file's order, by the key's
/// type and range (read_key_number, read_key_integer, read_key_duration, read_bool), and stores
/// it there; a required key (KeyBinding::required) missing or empty fails where require() would.
/// The section's reader keeps the keys that rules link to others.
void read_plain_keys(const Context& ctx, const YAML::Node& node, const std::string& path,
                     const std::string& pattern, std::initializer_list<BoundSpec> specs);

/// A word of the name table of Enum (choices.hpp), the words the key table lists for the key.
template <typename Enum>
Enum read_choice(const Context& ctx, const YAML::Node& node, const std::string& path) {
  std::vector<std::pair<std::string, Enum>> words;
  for (const Choice<Enum>& c : choices_of<Enum>()) words.emplace_back(c.word, c.value);
  return read_choice(ctx, node, path, words);
}

// ---- distributions.cpp -------------------------------------------------------------------------

/// A distribution: a fixed value or a mapping with `dist` and its parameters. The key table
/// says what it measures: a time (parameters are durations, any time unit) or a plain factor
/// (`slowdown`: parameters are numbers without units). Shapes are plain numbers in the ranges
/// of distribution_parameters().
DistributionSpec read_distribution(const Context& ctx, const YAML::Node& node,
                                   const std::string& path);

// ---- arrivals.cpp ------------------------------------------------------------------------------

/// What a workload's arrivals bring: jobs; inference requests (their traces have no GPU
/// column: the duration column is each request's service time); an LLM service's requests
/// (their traces have neither: each row's tokens are read by assign_trace_tokens); or
/// deployment instances (their traces may hold instances begun before the window, and blank
/// ends; instance_trace.cpp).
enum class ArrivalsOf : uint8_t { jobs, requests, llm_requests, instances };

ArrivalSpec read_arrivals(const Context& ctx, const YAML::Node& node, const std::string& path,
                          ArrivalsOf what = ArrivalsOf::jobs);

/// An LLM service replaying a request trace: each row's (context, output) tokens, from the
/// trace file's context_tokens and output_tokens columns (or Azure's ContextTokens and
/// GeneratedTokens), become w.service.llm.tokens, and each trace row's work its own row of
/// them (the uniform that picks a row, at the row's middle: the replay is exact). Rows without
/// a prompt or an output token are left out of the replay, as a sample leaves them out.
void assign_trace_tokens(const Context& ctx, const YAML::Node& node, const std::string& path,
                         JobClassSpec& w);

/// The columns of a trace file: submit (or start) times, GPU counts, durations, and for
/// deployments optionally end times ("": lifetimes from the duration column).
struct TraceColumns {
  std::string submit, gpus, duration, end;
};

// ---- initial_state.cpp -------------------------------------------------------------------------

/// `initial_state: {file, time_unit}` of a job workload or deployment: what runs or waits at
/// t = 0, into w.initial_state (needs w.placement and w.gpus read first).
void read_initial_state(const Context& ctx, const YAML::Node& node, const std::string& path,
                        const Scenario& s, JobClassSpec& w);
/// The rows of every workload's initial_state that name a pool fit its quota; the error names
/// them.
void check_initial_state_fits(const Context& ctx, const YAML::Node& workloads, const Scenario& s);

// ---- instance_trace.cpp ------------------------------------------------------------------------

/// A deployment's trace (ArrivalsOf::instances): one row per instance, appended to a.trace
/// (started at or after t = 0, lifetimes in work_s, +infinity when still running) or to
/// a.alive_at_start (started before, blank or negative start, and ending after t = 0). A blank
/// end or duration needs `still_running` (blank_end). Returns whether a.trace is in submit order.
bool read_instance_rows(const Context& ctx, const YAML::Node& file_node, const std::string& fpath,
                        const TraceColumns& columns, double unit_s, bool still_running,
                        ArrivalSpec& a);

// ---- pools.cpp ---------------------------------------------------------------------------------

/// `commitments`: the billing commitments over the pools (read after them), into s.commitments.
void read_commitments(const Context& ctx, const YAML::Node& root, Scenario& s);

PoolSpec read_pool(const Context& ctx, const YAML::Node& node, const std::string& path,
                   const std::string& name, const Scenario& s);

// ---- catalog.cpp -------------------------------------------------------------------------------

Catalog read_catalog(const Context& ctx, const YAML::Node& node);

// ---- job_workloads.cpp -------------------------------------------------------------------------

JobClassSpec read_workload(const Context& ctx, const YAML::Node& node, const std::string& path,
                           const Scenario& s);

/// `uncertainty` of a job class, deployment or service (after its arrivals): {rate_sd_log,
/// scale_sd_log}, neither with a trace.
void read_uncertainty(const Context& ctx, const YAML::Node& u, const std::string& upath,
                      JobClassSpec& w);

// ---- services.cpp ------------------------------------------------------------------------------

/// A workload of kind inference: a service answering requests with replicas in one pool (and,
/// on a spot or marketplace pool, a fallback pool).
JobClassSpec read_inference_workload(const Context& ctx, const YAML::Node& node,
                                     const std::string& path, const Scenario& s, JobClassSpec w);

/// A pool that runs inference replicas runs nothing else: jobs that named it are an error, and
/// default placements leave it out. A serverless pool without a quota gets what its services'
/// max_replicas need.
void check_service_pools(const Context& ctx, const YAML::Node& workloads, Scenario& s);

// ---- llm_service.cpp ---------------------------------------------------------------------------

/// `llm:` of an inference service (node: the workload): the model, its pools' GPUs, the
/// batching, the token counts and SLOs, into svc.llm; the service's concurrency becomes its
/// max_sequences. Call after read_service_pools.
void read_llm_service(const Context& ctx, const YAML::Node& node, const std::string& path,
                      const Scenario& s, JobClassSpec& w);

// ---- policy.cpp --------------------------------------------------------------------------------

PolicySpec read_policy(const Context& ctx, const YAML::Node& node, const std::string& path);

// ---- goals.cpp ---------------------------------------------------------------------------------

/// The `goals` section: name -> {require: [CONDITION, ...], target, description}.
std::vector<GoalSpec> read_goals(const Context& ctx, const YAML::Node& node, const Scenario& s);

// ---- key_check.cpp -----------------------------------------------------------------------------

/// Checks `node`, the mapping at `path` (pattern `pattern`), against the key table alone, each
/// key on its own: unknown keys, and each value's type, unit and range. Every problem goes to
/// `errors`, so that a file with several mistakes in one pool lists them all. Rules that link
/// keys, references to names and data files are left to the readers.
void check_keys(const Context& ctx, const YAML::Node& node, const std::string& pattern,
                const std::string& path, ErrorList& errors);

// ---- event_budget.cpp --------------------------------------------------------------------------

/// Refuses a scenario whose recurring processes would make one replication process more than
/// kMaxEventsPerReplication events: names the key of the largest contributor, its expected
/// count and how it was estimated.
void check_event_budget(const Context& ctx, const YAML::Node& root, const Scenario& s);

// ---- top_level.cpp -----------------------------------------------------------------------------

/// Reads a scenario, reporting every problem of its independent parts at once: the top-level
/// values, each provider, each region, each pool, each workload and the policy. A later part
/// that depends on an earlier one (pools on providers, regions and the catalog; workloads on
/// pools) is read only when the earlier one had no problem, so that no error follows from
/// another.
Scenario read_scenario(const Context& ctx, const YAML::Node& root);

// ---- overrides.cpp -----------------------------------------------------------------------------

void apply_override(Context& ctx, YAML::Node& root, const std::string& assignment);

/// The scenario path of an override ("workloads.0.gpus" -> "workloads[0].gpus") for messages.
std::string display_path(const YAML::Node& root, const std::string& dotted);

}  // namespace gpucap::loader
