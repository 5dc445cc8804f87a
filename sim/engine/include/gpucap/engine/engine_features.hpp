// gpucap engine: which optional parts of the engine an instantiation compiles in.
//
// The engine and its ledger test each optional part of the model (services, price processes,
// reclaims, ...) where it matters, at run time. A Features type turns those tests into
// compile-time facts: where a member is false, `if constexpr` removes that part's code from
// the event loop. An instantiation may only run a model that uses none of the parts it leaves
// out, and then makes the same floating-point operations in the same order as the whole engine
// (what it leaves out only ever adds zero, or is never reached): the same bits, with less code
// per event. run_replication picks CoreFeatures for models that CompiledModel::core_only marks
// (uses_core_only in compiled_model.hpp says which), AllFeatures for every other.
#pragma once

#include "gpucap/arena_ptr.hpp"

namespace gpucap::engine {
GPUCAP_ARENA_NAMESPACE_BEGIN

/// Every part: runs any model.
struct AllFeatures {
  static constexpr bool kServices = true;       ///< inference services (ServiceFleet)
  static constexpr bool kMovingPrices = true;   ///< pools with a price process
  static constexpr bool kReclaims = true;       ///< runs reclaimed: preemption, zone, availability
  static constexpr bool kLaunchChecks = true;   ///< stockouts, placement limits, fallback rules
  static constexpr bool kTransfers = true;      ///< data and checkpoints fetched across regions
  static constexpr bool kRunSpeeds = true;      ///< per-class run speeds, slowdown draws
  static constexpr bool kTraceArrivals = true;  ///< arrivals replayed from a trace
  static constexpr bool kTimeseries = true;     ///< the time series of GPUs in use
  static constexpr bool kDeployments = true;    ///< long-running instances (kind: deployment)
  static constexpr bool kCommitments = true;    ///< billing commitments over on-demand pools
  static constexpr bool kParameterDraws = true; ///< per-replication parameters (uncertainty)
  static constexpr bool kBursts = true;         ///< arrivals of a Cox rate (arrivals.burst)
};

/// The core: jobs on pools of fixed capacity and price (CompiledModel::core_only).
struct CoreFeatures {
  static constexpr bool kServices = false;
  static constexpr bool kMovingPrices = false;
  static constexpr bool kReclaims = false;
  static constexpr bool kLaunchChecks = false;
  static constexpr bool kTransfers = false;
  static constexpr bool kRunSpeeds = false;
  static constexpr bool kTraceArrivals = false;
  static constexpr bool kTimeseries = false;
  static constexpr bool kDeployments = false;
  static constexpr bool kCommitments = false;
  static constexpr bool kParameterDraws = false;
  static constexpr bool kBursts = false;
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
