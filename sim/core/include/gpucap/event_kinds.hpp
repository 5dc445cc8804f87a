// gpucap: the declared list of event kinds, and the rule for events at the same instant.
//
// Every kind of event the engine schedules is one line of GPUCAP_EVENT_KINDS: its name, its
// tie class and what its payload is. A new kind is one new line here and its handler in the
// engine; the calendar (event_calendar.hpp) holds up to kMaxEventKinds of them.
//
// Simultaneous events. Events at equal times leave the calendar by tie class, and within a
// class in the order they were scheduled (FIFO), so every run is deterministic:
//   1. finish     work that ends: a job's completion, a request's service;
//   2. run_end    a run (or a replica lifetime) ends on its own instance: its reclaim draw or
//                 its max_runtime (a checkpoint completed at that instant is saved: see
//                 RunArithmetic; a request finished at that instant is served);
//   3. capacity   the capacity changes: an availability trace steps, a zone event reclaims a
//                 pool, an idle replica stops, a windowed autoscaler ticks (it may stop or
//                 start replicas);
//   4. start      provisioning ends: a job begins running, a replica becomes warm;
//   5. arrive     new work: arrivals, and waiting jobs retrying after a stockout.
// So work that finishes at the instant capacity drops is done and paid for, not reclaimed; GPUs
// freed at an instant are seen by every arrival of that instant; a job launched at the instant
// its pool loses capacity is reclaimed before it runs (and bills nothing).
#pragma once
#include <cstdint>

#include "gpucap/portable.hpp"

namespace gpucap {

/// Tie classes, in the order in which events at the same instant are handled.
enum class TieClass : uint32_t { finish = 0, run_end = 1, capacity = 2, start = 3, arrive = 4 };

// X(name, tie class, payload)
#define GPUCAP_EVENT_KINDS(X)                                                                    \
  X(arrival, arrive, "job class: a job or an inference request arrives")                         \
  X(run_start, start, "job slot: provisioning is over, the job begins to run")                   \
  X(completion, finish, "job slot: the job's work is done")                                      \
  X(preemption, run_end, "job slot: the instance is reclaimed (reclaim draw or max_runtime)")    \
  X(availability, capacity, "pool: its availability trace changes value")                        \
  X(retry, arrive, "unused: waiting jobs try to launch again after a stockout")                  \
  X(zone_event, capacity, "pool: a zone-wide event reclaims all its jobs")                       \
  X(request_done, finish, "replica: a request on it finished its service")                       \
  X(replica_ready, start, "replica: its cold start is over, it is warm")                         \
  X(idle_check, capacity, "replica: it may have been idle for the idle timeout")             \
  X(autoscale_tick, capacity, "service: its windowed autoscaler decides (every tick)")        \
  X(replica_preemption, run_end, "replica: its spot or marketplace instance is reclaimed")

enum class EventKind : uint32_t {
#define GPUCAP_EVENT_KIND_ENUM(name, tie, payload) name,
  GPUCAP_EVENT_KINDS(GPUCAP_EVENT_KIND_ENUM)
#undef GPUCAP_EVENT_KIND_ENUM
};
constexpr uint32_t kEventKindCount = 0
#define GPUCAP_EVENT_KIND_COUNT(name, tie, payload) +1
    GPUCAP_EVENT_KINDS(GPUCAP_EVENT_KIND_COUNT)
#undef GPUCAP_EVENT_KIND_COUNT
    ;

/// The tie class of a kind (a function, not a table: device code reads no host arrays).
GPUCAP_HD GPUCAP_FORCEINLINE constexpr TieClass tie_class(EventKind kind) {
  switch (kind) {
#define GPUCAP_EVENT_KIND_TIE(name, tie, payload) \
  case EventKind::name:                           \
    return TieClass::tie;
    GPUCAP_EVENT_KINDS(GPUCAP_EVENT_KIND_TIE)
#undef GPUCAP_EVENT_KIND_TIE
    default:
      return TieClass::arrive;
  }
}

/// Bit mask of a set of kinds (for EventCalendar::remove).
GPUCAP_HD constexpr uint64_t kind_bit(EventKind kind) {
  return uint64_t{1} << static_cast<uint32_t>(kind);
}

}  // namespace gpucap
