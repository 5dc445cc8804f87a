// gpucap: the rows of the scenario key table, private to sim/model: scenario_keys.cpp joins them
// into the table (pool rows, then workload rows, in the order of docs/scenario-format.md).
#pragma once
#include <limits>
#include <type_traits>
#include <vector>

#include "gpucap/compiled_model.hpp"
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
  else if constexpr (std::is_same_v<Spec, PolicySpec>) return KeyTarget::policy;
  else if constexpr (std::is_same_v<Spec, Scenario>) return KeyTarget::scenario;
  else if constexpr (std::is_same_v<Spec, CommitmentSpec>) return KeyTarget::commitment;
  else {
    static_assert(std::is_same_v<Spec, ServiceSpec>,
                  "a key binds a field of a pool, job class, service, policy, commitment or the scenario");
    return KeyTarget::service;
  }
}

/// The discriminator whose values are enum E's.
template <typename E>
constexpr Discriminator discriminator_of() {
  if constexpr (std::is_same_v<E, PurchaseOption>) return Discriminator::purchase;
  else if constexpr (std::is_same_v<E, WorkloadKind>) return Discriminator::kind;
  else if constexpr (std::is_same_v<E, ArrivalKind>) return Discriminator::process;
  else {
    static_assert(std::is_same_v<E, CompiledPool::PriceModel>,
                  "a condition is on purchase, kind, process or model");
    return Discriminator::model;
  }
}

/// The bit of a KeyCondition's `values` that stands for `value`.
template <typename E>
constexpr uint32_t value_bit(E value) {
  static_assert(sizeof(E) == 1, "discriminators are uint8_t enums");
  return 1u << static_cast<unsigned>(value);
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
             "", "", {}, "", ""} {}
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
  /// A bound key the mapping must give; `what` ends the error when it is missing ("is
  /// required: GB each run fetches"). The docs' default reads *required*.
  KeyRow& required(const char* what) {
    row_.default_text = "*required*";
    row_.binding.required = what;
    return *this;
  }
  /// The discriminator's values the key applies to: `.applies(WorkloadKind::inference)`,
  /// `.applies(ArrivalKind::poisson, ArrivalKind::profile)`; pool keys take
  /// applies_to(property) from the purchase options' table.
  template <typename E, typename... More>
  KeyRow& applies(E first, More... more) {
    static_assert((std::is_same_v<E, More> && ...), "one discriminator per condition");
    row_.applies.on = discriminator_of<E>();
    row_.applies.values = value_bit(first) | (0u | ... | value_bit(more));
    return *this;
  }
  KeyRow& applies(KeyCondition condition) { row_.applies = condition; return *this; }
  KeyRow& valid(const char* markdown) { row_.valid_note = markdown; return *this; }
  KeyRow& means(const char* markdown) { row_.description = markdown; return *this; }
  /// The field of PoolSpec, JobClassSpec, ServiceSpec, PolicySpec or Scenario a plain key fills:
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
/// The `llm:` block of an inference service (scenario_key_rows_llm.cpp).
std::vector<ScenarioKey> llm_service_rows();
/// The parameters of each distribution kind (scenario_key_rows_workloads.cpp).
std::vector<DistributionParameter> distribution_parameter_rows();

/// "`word`", kept for the program's life: the default of a choice key as the docs write it,
/// taken from the default of the field it fills (called while kKeys is built).
const char* as_code(const char* word);

}  // namespace gpucap::key_rows
