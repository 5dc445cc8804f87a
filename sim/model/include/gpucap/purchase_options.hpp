// gpucap: the purchase options a pool can be bought under, as one table of their properties.
//
// The loader reads a pool's keys by these properties (how its price is given, whether it is
// preemptible, committed, or runs inference services only), compile derives the engine's flags
// from them, and the key table takes the words of `purchase` from here. A new option that
// combines existing behaviours is one row here and one enumerator of PurchaseOption
// (compiled_model.hpp). tests/unit/purchase_options_test.cpp fails when an option's name is
// spelled in C++ outside this table.
//
//   const gpucap::PurchaseOptionInfo& spot = gpucap::purchase_info(gpucap::PurchaseOption::spot);
//   if (spot.preemptible) ...
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gpucap/compiled_model.hpp"

namespace gpucap {

/// How a pool's price is given and billed.
enum class PriceRule : uint8_t {
  per_hold,      ///< price_usd_per_gpu_hour per GPU-hour held, a price_process, or a catalog row;
                 ///< each hold billed in billing_increment steps, at least billing_minimum
  per_replica,   ///< per GPU-second (or -hour) of a replica's lifetime, idle time billed or not
                 ///< (bill_idle); price_usd_per_gpu_second, _hour, or a catalog row's on-demand
  committed,     ///< price_usd_per_gpu_hour for every GPU of `count`, all the time, used or not
  amortized,     ///< capex_usd_per_gpu over amortize_years plus opex_usd_per_gpu_hour, all the time
};

/// The price column of a catalog row a pool takes with `catalog_row` (none: it takes no row).
enum class CatalogPrice : uint8_t { none, on_demand, spot };

struct PurchaseOptionInfo {
  PurchaseOption option;
  const char* name;           ///< the scenario's word (`purchase: spot`)
  PriceRule price;
  CatalogPrice catalog_price;
  bool preemptible;           ///< instances are reclaimed (preemption, availability); jobs may fall
                              ///< back from it to a pool that is not
  bool committed;             ///< sized by `count` and paid for all the time (never per hold)
  bool services_only;         ///< runs inference services' replicas only, never jobs; its quota
                              ///< defaults to what its services' max_replicas need
  bool billing_commitments;   ///< its usage may be paid by a billing commitment (`commitments:`)
  const char* description;    ///< one line for the docs
};

/// Every option, in the order of PurchaseOption's enumerators.
const std::vector<PurchaseOptionInfo>& purchase_options();

/// The row of `option`.
const PurchaseOptionInfo& purchase_info(PurchaseOption option);

/// The row named `name`, or nullptr.
const PurchaseOptionInfo* find_purchase_option(const std::string& name);

/// The options' names separated by `separator`, in table order ("on_demand spot ...").
std::string purchase_option_names(const char* separator = " ");

/// Reclaimed by the provider (spot, marketplace): what a job or a service falls back from.
inline bool is_preemptible(const PurchaseOptionInfo& o) { return o.preemptible; }
/// Never reclaimed and running jobs' kind of hold: what a job or a service falls back to.
inline bool is_dedicated(const PurchaseOptionInfo& o) { return !o.preemptible && !o.services_only; }

/// The names of the options for which `which` holds, for messages: "on_demand, reserved or
/// owned" (the last two joined by `last`).
std::string purchase_option_list(bool (*which)(const PurchaseOptionInfo&), const char* last);

}  // namespace gpucap
