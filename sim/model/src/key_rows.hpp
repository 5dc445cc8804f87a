// gpucap: the rows of the scenario key table, private to sim/model: scenario_keys.cpp joins them
// into the table (pool rows, then workload rows, in the order of docs/scenario-format.md).
#pragma once
#include <limits>
#include <type_traits>
#include <vector>

#include "gpucap/scenario.hpp"
#include "gpucap/scenario_keys.hpp"

namespace gpucap::key_rows {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

template <typename T>
struct MemberOf;
template <typename S, typename F>
struct MemberOf<F S::*> {
  using Spec = S;
  using Field = F;
};

template <typename Spec>
constexpr KeyTarget target_of() {
  if constexpr (std::is_same_v<Spec, PoolSpec>) return KeyTarget::pool;
  else if constexpr (std::is_same_v<Spec, JobClassSpec>) return KeyTarget::job_class;
  else {
    static_assert(std::is_same_v<Spec, ServiceSpec>, "a key binds a pool, job class or service field");
    return KeyTarget::service;
  }
}

/// A row of the key table declared by named fields, in the style of ns-3's
/// TypeId::AddAttribute, so that no field can take its neighbour's place:
///
///   key("pools.NAME.speed").shown("`speed`").table("pools-common")
///       .type(KeyType::number, UnitKind::factor, "– (ratio)").range({0, true}, {kInf, false})
///       .by_default("`1`").means("throughput relative to the reference GPU"),
///
/// Fields not given keep their defaults: no range, no choices, no default text, applies always.
class KeyRow {
 public:
  explicit KeyRow(const char* path)
      : row_{path, "", "", KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
             "", "", "", "", ""} {}
  /// The key as the docs' table shows it, and the generated table it appears in.
  KeyRow& shown(const char* display) { row_.display = display; return *this; }
  KeyRow& table(const char* doc_table) { row_.doc_table = doc_table; return *this; }
  KeyRow& type(KeyType type, UnitKind unit, const char* unit_text) {
    row_.type = type;
    row_.unit = unit;
    row_.unit_text = unit_text;
    return *this;
  }
  KeyRow& range(KeyBound lo, KeyBound hi) { row_.lo = lo; row_.hi = hi; return *this; }
  /// The words of a `choice`: choice_words<E>() of the enum it fills (choices.hpp).
  KeyRow& choices(const char* words) { row_.choices = words; return *this; }
  KeyRow& by_default(const char* markdown) { row_.default_text = markdown; return *this; }
  /// "KEY: v1, v2"; pool keys take applies_to(property) from the purchase options' table.
  KeyRow& applies(const char* condition) { row_.applies = condition; return *this; }
  KeyRow& valid(const char* markdown) { row_.valid_note = markdown; return *this; }
  KeyRow& means(const char* markdown) { row_.description = markdown; return *this; }
  /// The field of PoolSpec, JobClassSpec or ServiceSpec a plain key fills:
  /// `.binds<&PoolSpec::speed>()`. The loader reads the key by its type and range and stores it.
  template <auto Member>
  KeyRow& binds() {
    using Spec = typename MemberOf<decltype(Member)>::Spec;
    using Field = typename MemberOf<decltype(Member)>::Field;
    row_.binding.target = target_of<Spec>();
    row_.binding.store = [](void* spec, double value) {
      static_cast<Spec*>(spec)->*Member = static_cast<Field>(value);
    };
    return *this;
  }
  operator ScenarioKey() const { return row_; }  // NOLINT: rows convert where the table is built

 private:
  ScenarioKey row_;
};

inline KeyRow key(const char* path) { return KeyRow(path); }

/// The top level, providers, regions and pools (scenario_key_rows_pools.cpp).
std::vector<ScenarioKey> pool_rows();
/// Workloads, services, arrivals, policy, time series, records, goals and the entries of
/// name maps (scenario_key_rows_workloads.cpp).
std::vector<ScenarioKey> workload_rows();
/// The parameters of each distribution kind (scenario_key_rows_workloads.cpp).
std::vector<DistributionParameter> distribution_parameter_rows();

/// "`word`", kept for the program's life: the default of a choice key as the docs write it,
/// taken from the default of the field it fills (called while kKeys is built).
const char* as_code(const char* word);

}  // namespace gpucap::key_rows
