// gpucap benchmark: the reference loop, an M/M/c queue in the simplest hand-written form.
//
//   gpucap::bench::ReferenceMmc mmc{7.2 / 3600.0, 3600.0, 8, 2000, 2000 * 3600.0};
//   gpucap::bench::ReferenceTotals t = run_reference_mmc(mmc, seed, first, count);
//
// One loop over events (the next arrival or the earliest of c completion times, found by a scan),
// a FIFO ring of waiting jobs (arrival time, service time), and the time integral of jobs in the
// system: what a programmer writes by hand for this one model, with none of the engine's
// generality. It draws from the engine's streams (Philox keyed by seed, replication and the stream
// ids of job class 0's arrivals and sizes) with the engine's unit exponential (ziggurat), one
// inter-arrival gap and one service time per arrival in arrival order, as the engine does, so it
// simulates the same futures at the same cost per random number (`engine_bench --verify-reference`
// checks it on mmc: the same events in each replication). Events are counted as the engine counts
// them: arrivals and completions before the horizon.
//
// It lives in its own translation unit, compiled with the flags of the engine's (bench/
// CMakeLists.txt), so that the ratio of the two compares code, not compiler settings.
#pragma once
#include <cstdint>

namespace gpucap::bench {

/// The model: Poisson arrivals, exponential service, c servers, FIFO, a bounded queue.
struct ReferenceMmc {
  double arrival_rate_per_s = 0;  ///< lambda, 1/s
  double mean_service_s = 0;      ///< 1/mu, s
  uint32_t servers = 0;           ///< c, 1 to kMaxReferenceServers
  uint32_t queue_capacity = 0;    ///< waiting places; an arrival finding them full is dropped
  double horizon_s = 0;           ///< each replication runs [0, horizon_s)
};

inline constexpr uint32_t kMaxReferenceServers = 64;

/// Sums over the replications run (kept so that no work can be optimized away).
struct ReferenceTotals {
  double events = 0;            ///< arrivals + completions before the horizon
  double wait_s = 0;            ///< total waiting time of the jobs started from the queue, s
  double jobs_in_system_s = 0;  ///< integral over [0, horizon) of jobs in the system, job-s
  double dropped = 0;           ///< arrivals that found the queue full
};

/// Runs replications [first, first + count) of `model` under `seed`. Throws
/// std::invalid_argument for servers outside 1..kMaxReferenceServers.
ReferenceTotals run_reference_mmc(const ReferenceMmc& model, uint64_t seed, uint64_t first,
                                  uint64_t count);

}  // namespace gpucap::bench
