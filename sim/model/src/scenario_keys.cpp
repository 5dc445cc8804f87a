// gpucap: the table of scenario keys (see scenario_keys.hpp): its rows joined, and looking keys up.
// What is generated from it (explain, markdown, JSON Schema) is in scenario_key_docs.cpp.
//
// The rows follow docs/scenario-format.md, whose key tables are written from them
// (tests/unit/generated_docs_test.cpp fails when they differ). Ranges here are the key's own;
// every number also stays within the ceiling of its unit kind (unit_ceiling below), which is
// what keeps every sum, product and loop of a run finite.
#include "gpucap/scenario_keys.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "gpucap/choices.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/scenario.hpp"
#include "key_rows.hpp"

namespace gpucap {

namespace {

using key_rows::kInf;

const std::vector<ScenarioKey> kKeys = [] {
  std::vector<ScenarioKey> rows = key_rows::pool_rows();
  const std::vector<ScenarioKey> workloads = key_rows::workload_rows();
  rows.insert(rows.end(), workloads.begin(), workloads.end());
  const std::vector<ScenarioKey> llm = key_rows::llm_service_rows();
  rows.insert(rows.end(), llm.begin(), llm.end());
  return rows;
}();
const std::vector<DistributionParameter> kDistributionParameters =
    key_rows::distribution_parameter_rows();

/// The largest value of each unit kind, whatever the key: with these, every sum and product a
/// run forms stays finite (a duration beyond the horizon, at most 1000 years, only ever ends
/// something after the run; 1e6 USD per GPU-hour x 1,048,575 GPUs x 8.8e6 hours (1000 years)
/// is 9e18 USD; no ratio of two bounded values overflows). That loops over steps end in
/// practice is the event budget's part (check_event_budget in scenario_loader.cpp).
double unit_ceiling(UnitKind unit) {
  switch (unit) {
    case UnitKind::duration: return 1e4 * 365.25 * 86400.0;  // 10,000 years
    case UnitKind::usd_per_gpu_hour: return 1e6;  // 10^4 times the dearest GPU-hour sold
    case UnitKind::usd_per_gpu_second: return 250;  // 9e5 USD per GPU-hour
    case UnitKind::usd_per_gpu: return 1e9;
    case UnitKind::usd_per_gb: return 1e4;
    case UnitKind::gpu_memory_gb: return 1e6;  // a petabyte per GPU
    case UnitKind::data_gb: return 1e9;        // an exabyte
    case UnitKind::bandwidth_gbps: return 1e6;  // a petabit per second
    case UnitKind::throughput_gb_per_s: return 1e6;
    case UnitKind::latency_ms: return 1e7;  // 2.8 hours one way
    case UnitKind::rate: return 1e9;        // per s, min, hour or day, as the key says
    case UnitKind::factor: return 1e6;
    case UnitKind::probability: return 1;
    case UnitKind::years: return 1000;
    case UnitKind::kilobytes: return 1e9;
    case UnitKind::usd_per_hour: return 1e9;  // 1,000 times the largest fleet's hourly bill
    case UnitKind::count:
    case UnitKind::none: break;
  }
  return kInf;
}

std::string with_thousands(double v) {
  if (v >= 1.8e19) return "18,446,744,073,709,551,615 (2^64 - 1)";
  const bool negative = v < 0;
  std::string digits = std::to_string(static_cast<unsigned long long>(std::fabs(v)));
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (negative ? "−" : "") + out;
}

/// A bound as text in the key's unit: 1000 years, 1e+06, 0.
std::string bound_text(const ScenarioKey& key, double v) {
  constexpr double kYear = 365.25 * 86400.0;
  if (key.unit == UnitKind::duration && v >= kYear && std::fmod(v, kYear) == 0)
    return text::format_number(v / kYear) + " years";
  if (key.type == KeyType::integer || (std::fabs(v) >= 1000 && v == std::floor(v) && v < 1e16))
    return with_thousands(v);
  return text::format_number(v);
}


bool is_name_segment(const std::string& parent) {
  return parent == "providers" || parent == "regions" || parent == "pools" || parent == "goals" ||
         parent == "commitments";
}

}  // namespace


const std::vector<ScenarioKey>& scenario_keys() { return kKeys; }

const std::vector<DistributionParameter>& distribution_parameters() {
  return kDistributionParameters;
}

const ScenarioKey* find_scenario_key(const std::string& pattern) {
  for (const ScenarioKey& k : kKeys)
    if (pattern == k.path) return &k;
  return nullptr;
}

const ScenarioKey& scenario_key(const std::string& pattern) {
  const ScenarioKey* k = find_scenario_key(pattern);
  if (k == nullptr) throw std::logic_error("the scenario key table has no row '" + pattern + "'");
  return *k;
}

std::vector<const ScenarioKey*> scenario_key_rows(const std::string& pattern) {
  std::vector<const ScenarioKey*> rows;
  for (const ScenarioKey& k : kKeys)
    if (pattern == k.path) rows.push_back(&k);
  return rows;
}

namespace {

/// The names of the values set in `values`, in the order of E's name table (one word a value).
template <typename E>
std::vector<std::string> condition_words(uint32_t values) {
  std::vector<std::string> words;
  uint32_t named = 0;
  for (const Choice<E>& c : choices_of<E>()) {
    const uint32_t bit = key_rows::value_bit(c.value);
    if ((values & bit) != 0 && (named & bit) == 0) words.emplace_back(c.word);
    named |= bit;
  }
  return words;
}

/// The bit of the value `word` names in E's table; 0 when no value has that name.
template <typename E>
uint32_t word_bit(const std::string& word) {
  for (const Choice<E>& c : choices_of<E>())
    if (word == c.word) return key_rows::value_bit(c.value);
  return 0;
}

std::vector<std::string> words_of(const KeyCondition& c) {
  switch (c.on) {
    case Discriminator::purchase: return condition_words<PurchaseOption>(c.values);
    case Discriminator::kind: return condition_words<WorkloadKind>(c.values);
    case Discriminator::process: return condition_words<ArrivalKind>(c.values);
    case Discriminator::model: return condition_words<CompiledPool::PriceModel>(c.values);
    case Discriminator::none: break;
  }
  return {};
}

uint32_t bit_of(Discriminator on, const std::string& word) {
  switch (on) {
    case Discriminator::purchase: return word_bit<PurchaseOption>(word);
    case Discriminator::kind: return word_bit<WorkloadKind>(word);
    case Discriminator::process: return word_bit<ArrivalKind>(word);
    case Discriminator::model: return word_bit<CompiledPool::PriceModel>(word);
    case Discriminator::none: break;
  }
  return 0;
}

}  // namespace

const char* discriminator_key(Discriminator on) {
  switch (on) {
    case Discriminator::purchase: return "purchase";
    case Discriminator::kind: return "kind";
    case Discriminator::process: return "process";
    case Discriminator::model: return "model";
    case Discriminator::none: break;
  }
  return "";
}

std::vector<std::string> scenario_key_applies_values(const ScenarioKey& key) {
  return words_of(key.applies);
}

std::string scenario_key_applies_text(const ScenarioKey& key) {
  if (key.applies.on == Discriminator::none) return "";
  return std::string(discriminator_key(key.applies.on)) + ": " +
         text::join(scenario_key_applies_values(key), ", ");
}

bool scenario_key_applies(const ScenarioKey& key, const std::string& discriminator,
                          const std::string& value) {
  if (key.applies.on == Discriminator::none || discriminator.empty() || value.empty()) return true;
  if (discriminator != discriminator_key(key.applies.on)) return true;
  return (key.applies.values & bit_of(key.applies.on, value)) != 0;
}

std::string scenario_discriminator(const std::string& pattern) {
  for (const ScenarioKey& k : kKeys) {
    const std::string path = k.path;
    if (k.applies.on == Discriminator::none || path.compare(0, pattern.size() + 1, pattern + ".") != 0)
      continue;
    const std::string key = discriminator_key(k.applies.on);
    if (find_scenario_key(pattern + "." + key)) return key;
  }
  return "";
}

std::string scenario_discriminator_default(const std::string& pattern) {
  const std::string key = scenario_discriminator(pattern);
  if (key.empty()) return "";
  const ScenarioKey& row = scenario_key(pattern + "." + key);
  std::string value = row.default_text;  // "`on_demand`", or "*required*"
  if (value.size() < 2 || value.front() != '`' || value.back() != '`') return "";
  value = value.substr(1, value.size() - 2);
  const std::vector<std::string> choices = text::split(row.choices, ' ');
  return std::find(choices.begin(), choices.end(), value) != choices.end() ? value : "";
}

std::vector<std::string> scenario_child_keys(const std::string& parent,
                                             const std::string& discriminator,
                                             const std::string& value) {
  const std::string prefix = parent.empty() ? "" : parent + ".";
  std::vector<std::string> keys;
  for (const ScenarioKey& k : kKeys) {
    const std::string path = k.path;
    if (path.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = path.substr(prefix.size());
    if (rest.empty() || rest.find_first_of(".[") != std::string::npos) continue;
    if (rest == "NAME") continue;
    if (!scenario_key_applies(k, discriminator, value)) continue;
    if (std::find(keys.begin(), keys.end(), rest) == keys.end()) keys.push_back(rest);
  }
  return keys;
}

std::string scenario_key_pattern(const std::string& path) {
  // Segments: "workloads[2]" -> "workloads", "[]"; names after providers/regions/pools/goals
  // -> NAME.
  std::vector<std::string> segments;
  std::string current;
  for (std::size_t i = 0; i <= path.size(); ++i) {
    const char c = i < path.size() ? path[i] : '.';
    // "[N]" (digits, or none in a pattern) is an index; a '[' otherwise is part of a name
    // ("a[1", "gpu[x]").
    std::size_t close = std::string::npos;
    if (c == '[') {
      close = path.find_first_not_of("0123456789", i + 1);
      if (close == std::string::npos || path[close] != ']') close = std::string::npos;
    }
    if (c == '.' || close != std::string::npos) {
      if (!current.empty()) segments.push_back(current);
      current.clear();
      if (close != std::string::npos) {
        segments.push_back("[]");
        i = close;
      }
    } else {
      current += c;
    }
  }
  std::string pattern;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    std::string segment = segments[i];
    if (i == 1 && is_name_segment(segments[0])) {
      // A name may contain dots: take segments up to the one after which the rest is a key.
      std::size_t last = i;
      for (std::size_t j = i; j + 1 < segments.size(); ++j)
        if (find_scenario_key(segments[0] + ".NAME." + segments[j + 1])) {
          last = j;
          break;
        }
      i = last;
      segment = "NAME";
    }
    const ScenarioKey* at = find_scenario_key(pattern);
    // The keys of a number_map are names, the items of a list of numbers or text its values.
    if (at && (at->type == KeyType::number_map || at->type == KeyType::number_list ||
               at->type == KeyType::text_list))
      break;
    if (segment == "[]")
      pattern += segment;
    else
      pattern += (pattern.empty() ? "" : ".") + segment;
  }
  return pattern;
}

const char* unit_kind_name(UnitKind unit) {
  switch (unit) {
    case UnitKind::none: return "none";
    case UnitKind::duration: return "duration";
    case UnitKind::factor: return "plain factor";
    case UnitKind::probability: return "probability";
    case UnitKind::count: return "count";
    case UnitKind::gpu_memory_gb: return "GPU memory (GB)";
    case UnitKind::data_gb: return "data size (GB)";
    case UnitKind::bandwidth_gbps: return "bandwidth (Gbit/s)";
    case UnitKind::throughput_gb_per_s: return "throughput (GB/s)";
    case UnitKind::latency_ms: return "latency (ms)";
    case UnitKind::usd_per_gpu_hour: return "USD per GPU-hour";
    case UnitKind::usd_per_gpu_second: return "USD per GPU-second";
    case UnitKind::usd_per_gpu: return "USD per GPU";
    case UnitKind::usd_per_gb: return "USD per GB";
    case UnitKind::rate: return "rate";
    case UnitKind::years: return "years";
    case UnitKind::kilobytes: return "KB";
    case UnitKind::usd_per_hour: return "USD per hour";
  }
  return "?";
}

const char* key_type_name(KeyType type) {
  switch (type) {
    case KeyType::text: return "text";
    case KeyType::choice: return "text";
    case KeyType::number: return "number";
    case KeyType::integer: return "integer";
    case KeyType::boolean: return "boolean";
    case KeyType::duration: return "duration";
    case KeyType::trace_start: return "duration, or the text `random`";
    case KeyType::distribution: return "distribution";
    case KeyType::mapping: return "mapping";
    case KeyType::name_map: return "mapping";
    case KeyType::number_map: return "mapping";
    case KeyType::list: return "list";
    case KeyType::text_list: return "list of text";
    case KeyType::number_list: return "list of numbers";
  }
  return "?";
}

KeyBound scenario_key_upper(const ScenarioKey& key) {
  const double ceiling = unit_ceiling(key.unit);
  if (ceiling < key.hi.value) return {ceiling, false};
  return key.hi;
}

std::string describe_key_range(const ScenarioKey& key, bool markdown) {
  const auto code = [&](const std::string& s) { return markdown ? "`" + s + "`" : s; };
  const KeyBound lo = key.lo, hi = scenario_key_upper(key);
  const bool has_lo = std::isfinite(lo.value), has_hi = std::isfinite(hi.value);
  if (key.type == KeyType::integer || key.type == KeyType::list) {
    if (has_lo && has_hi) {
      return markdown ? bound_text(key, lo.value) + " to " + bound_text(key, hi.value)
                      : "from " + text::format_number(lo.value) + " to " +
                            (hi.value >= 1.8e19 ? std::string("18446744073709551615")
                                                : std::to_string(static_cast<long long>(hi.value)));
    }
    if (has_lo) return code(">= " + bound_text(key, lo.value));
    return "";
  }
  std::string out;
  if (has_lo) out = code((lo.open ? "> " : ">= ") + bound_text(key, lo.value));
  if (has_hi) {
    std::string upper = hi.open ? code("< " + bound_text(key, hi.value))
                                : "at most " + bound_text(key, hi.value);
    out += out.empty() ? upper : (hi.open ? " and " : ", ") + upper;
  }
  return out;
}

// ---- explain ---------------------------------------------------------------------------------

}  // namespace gpucap
