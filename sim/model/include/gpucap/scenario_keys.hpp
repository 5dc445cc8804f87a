// gpucap: the table of scenario keys, the single description of the scenario format.
//
// Each row names one key by its path pattern (NAME: any name of a providers/regions/pools entry,
// []: any item of a list) and gives its type, unit kind, range, default, where it applies and a
// description. The loader takes from it the keys each mapping accepts and the range and unit of
// every number, duration and count it reads; `gpucap schema`, `gpucap explain`,
// `gpucap.scenario_keys()` and the key tables of docs/scenario-format.md are generated from it.
// Rules that link several keys (warmup < horizon, exactly one of two keys, references to
// declared names) stay in the loader as explicit code.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace gpucap {

enum class KeyType : uint8_t {
  text,          ///< a YAML scalar taken as text
  choice,        ///< one word of `choices`
  number,        ///< a finite decimal number
  integer,       ///< a whole number in decimal digits
  boolean,       ///< true/yes/on, false/no/off
  duration,      ///< seconds, or a number with a time unit
  trace_start,   ///< a duration >= 0, or the word `random`
  distribution,  ///< a fixed value or a mapping with `dist` (parameters in the key's unit)
  mapping,       ///< a mapping of the keys below it
  name_map,      ///< a mapping of user-chosen names to entries (providers, regions, pools)
  number_map,    ///< a mapping of declared names to numbers in the key's unit
  list,          ///< a list of mappings (workloads)
  text_list,     ///< a list of text
  number_list,   ///< a list of numbers in the key's unit
};

/// What a number measures. The loader reads a `duration` (and a distribution of durations) with
/// time units; every other kind is a plain number, so `1.5d` is refused where a factor is due.
enum class UnitKind : uint8_t {
  none,                ///< text, choices, booleans, mappings
  duration,            ///< seconds (time units accepted)
  factor,              ///< a plain ratio or multiplier
  probability,         ///< a share from 0 to 1
  count,               ///< a whole number of things (GPUs, replicas, requests, ...)
  gpu_memory_gb,       ///< GB of memory per GPU
  data_gb,             ///< GB of data
  bandwidth_gbps,      ///< Gbit/s
  throughput_gb_per_s, ///< GB/s
  latency_ms,          ///< milliseconds
  usd_per_gpu_hour,    ///< USD per GPU-hour
  usd_per_gpu_second,  ///< USD per GPU-second
  usd_per_gpu,         ///< USD per GPU (purchase price)
  usd_per_gb,          ///< USD per GB
  rate,                ///< events per unit of time (the unit is in the key's name)
  years,               ///< years of 8,760 hours
  kilobytes,           ///< KB
  usd_per_hour,        ///< USD per hour (a spend rate)
};

/// One end of a range: `value` (±infinity when there is no bound) and whether it is excluded.
struct KeyBound {
  double value;
  bool open;
};

/// The key of a mapping whose value selects which of its siblings apply: a pool's `purchase`
/// (PurchaseOption), a workload's `kind` (WorkloadKind), arrivals' `process` (ArrivalKind), a
/// price process's `model` (CompiledPool::PriceModel).
enum class Discriminator : uint8_t { none, purchase, kind, process, model };

/// Where a key applies: always (`on` none), or when the discriminator `on` of its nearest
/// enclosing mapping takes one of `values` (bit i set: the enum value i). Typed, so a condition
/// cannot name a value its discriminator lacks (tests/unit/choices_and_purchase_options_test.cpp).
struct KeyCondition {
  Discriminator on = Discriminator::none;
  uint32_t values = 0;
};

/// The spec a plain key's value is stored in (see KeyBinding).
enum class KeyTarget : uint8_t { none, pool, job_class, service, policy, scenario, commitment };

/// Where a plain key's value goes: a field of a pool, a job class or a service, filled by the
/// loader's one generic reader (read_plain_keys) rather than by a line of a section reader.
/// Keys whose values are linked to others by rules keep hand-written code.
struct KeyBinding {
  KeyTarget target = KeyTarget::none;
  /// Stores `value` in the field: in the key's unit (seconds for a duration), a whole number
  /// for an integer key, 0 or 1 for a boolean.
  void (*store)(void* spec, double value) = nullptr;
  /// For a key the mapping must give: what to give, as the error says it ("is required: the
  /// share of launches that fail, 0 to 1"); nullptr for an optional key.
  const char* required = nullptr;
};

struct ScenarioKey {
  const char* path;          ///< "pools.NAME.quota", "workloads[].arrivals.rate_per_s"
  const char* display;       ///< the key as docs/scenario-format.md's table shows it
  const char* doc_table;     ///< the generated table of docs/scenario-format.md it appears in
  KeyType type;
  UnitKind unit;
  const char* unit_text;     ///< the unit as the docs write it ("GPUs per node", "s", "–")
  KeyBound lo, hi;           ///< the range of a number, duration, count or list item
  const char* choices;       ///< words of a `choice`, space-separated
  const char* default_text;  ///< markdown: `1`, *required*, none (...)
  KeyCondition applies;      ///< where it applies (scenario_key_applies_text says it in words)
  const char* valid_note;   ///< markdown: constraints beyond the range (links to other keys)
  const char* description;  ///< markdown: what the key means
  KeyBinding binding = {};  ///< the field a plain key fills; target none for the others
};

/// Every row, in the order of the documentation. Several rows may share a path (the same key
/// shown in two tables, or for two discriminator values); they agree on type, unit and range.
const std::vector<ScenarioKey>& scenario_keys();

/// The first row whose path is `pattern`, or nullptr.
const ScenarioKey* find_scenario_key(const std::string& pattern);

/// The row for `pattern`; std::logic_error when the table lacks it (a programming error).
const ScenarioKey& scenario_key(const std::string& pattern);

/// Every row for `pattern` (the same key in several tables).
std::vector<const ScenarioKey*> scenario_key_rows(const std::string& pattern);

/// The keys directly under `parent` ("" for the top level, "pools.NAME", "workloads[]") that
/// apply when the discriminator `discriminator` has `value` ("" for either: every key), in table
/// order without repeats.
std::vector<std::string> scenario_child_keys(const std::string& parent,
                                             const std::string& discriminator = "",
                                             const std::string& value = "");

/// The discriminator of the mapping at `pattern`: the key whose value selects the other keys
/// (a pool's `purchase`, a workload's `kind`, arrivals' `process`, a price process's `model`),
/// or "" when it has none.
std::string scenario_discriminator(const std::string& pattern);

/// The value the discriminator of `pattern` takes when the mapping does not give it
/// (`on_demand`, `batch`), or "" when it is required.
std::string scenario_discriminator_default(const std::string& pattern);

/// The discriminator's key ("purchase", "kind", "process", "model"; "" for none).
const char* discriminator_key(Discriminator on);

/// Where `key` applies in words: "" (always) or "KEY: v1, v2", the values in the order of the
/// discriminator's name table ("purchase: reserved, owned").
std::string scenario_key_applies_text(const ScenarioKey& key);

/// The values of the key's condition, by name in the same order; empty when it always applies.
std::vector<std::string> scenario_key_applies_values(const ScenarioKey& key);

/// Whether `key` applies when `discriminator` (e.g. "purchase") has `value` (a word of its
/// choices); true when either is "" or the key's condition is on another discriminator.
bool scenario_key_applies(const ScenarioKey& key, const std::string& discriminator,
                          const std::string& value);

/// The pattern of a key path as messages write it: "pools.a100.quota" -> "pools.NAME.quota",
/// "workloads[2].work.mean" -> "workloads[].work.mean". Names that contain dots are read as
/// far as the table allows.
std::string scenario_key_pattern(const std::string& path);

/// The upper end of the key's range: its own, or its unit kind's ceiling when lower (every
/// number has one: see unit_ceiling in scenario_keys.cpp).
KeyBound scenario_key_upper(const ScenarioKey& key);

/// The range as text: "> 0", ">= 0 and < 1", "from 1 to 1,048,575", "" when unbounded.
std::string describe_key_range(const ScenarioKey& key, bool markdown = false);

/// The unit kind's name ("duration", "USD per GPU-hour", ...).
const char* unit_kind_name(UnitKind unit);
const char* key_type_name(KeyType type);

/// `gpucap explain PATH`: the rows for a key path (a pattern or a concrete path such as
/// "pools.a100.quota"), and the keys below it; empty when nothing matches.
std::string explain_scenario_key(const std::string& path);

/// The markdown key table `doc_table` of docs/scenario-format.md ("pools-common", ...).
std::string scenario_keys_markdown(const std::string& doc_table);

/// `gpucap schema`: a JSON Schema (draft 2020-12) of the scenario format, with descriptions.
std::string scenario_json_schema();

/// The parameters of each distribution kind and their ranges (a distribution's time-like
/// parameters take the unit of its key; shapes are plain numbers).
struct DistributionParameter {
  const char* dist;      ///< "lognormal"
  const char* key;       ///< "sigma"
  bool in_key_unit;      ///< a duration for a time distribution, a factor for `slowdown`
  KeyBound lo, hi;
  const char* description;
};
const std::vector<DistributionParameter>& distribution_parameters();

}  // namespace gpucap
