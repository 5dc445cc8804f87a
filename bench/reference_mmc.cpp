// gpucap benchmark: the reference M/M/c loop (see reference_mmc.hpp).
#include "reference_mmc.hpp"

#include <stdexcept>
#include <vector>

#include "gpucap/distribution.hpp"
#include "gpucap/philox.hpp"

namespace gpucap::bench {

ReferenceTotals run_reference_mmc(const ReferenceMmc& model, uint64_t seed, uint64_t first,
                                  uint64_t count) {
  if (model.servers < 1 || model.servers > kMaxReferenceServers)
    throw std::invalid_argument("reference loop: servers must be from 1 to 64");
  ReferenceTotals totals;
  struct Waiting {
    double arrived_s, service_s;
  };
  std::vector<Waiting> waiting(model.queue_capacity > 0 ? model.queue_capacity : 1);
  const uint32_t c = model.servers;
  const uint32_t capacity = model.queue_capacity;
  const double horizon = model.horizon_s;
  for (uint64_t r = first; r < first + count; ++r) {
    RandomStream gaps = RandomStream::make(seed, r, stream_id(StreamKind::arrivals, 0));
    RandomStream sizes = RandomStream::make(seed, r, stream_id(StreamKind::job_size, 0));
    double done_at[kMaxReferenceServers];  // completion times of the busy servers, unordered
    uint32_t busy = 0;
    uint32_t head = 0, queued = 0;  // FIFO ring in `waiting`
    double now = 0, area = 0, wait = 0, events = 0, dropped = 0;
    double next_arrival = sample_standard_exponential(gaps) / model.arrival_rate_per_s;
    for (;;) {
      uint32_t k = 0;
      double next_done = horizon;
      for (uint32_t i = 0; i < busy; ++i)
        if (done_at[i] < next_done) next_done = done_at[i], k = i;
      const double t = next_arrival < next_done ? next_arrival : next_done;
      if (t >= horizon) {
        area += (horizon - now) * (busy + queued);
        break;
      }
      area += (t - now) * (busy + queued);
      now = t;
      events += 1;
      if (next_arrival < next_done) {  // an arrival: a free server, else the queue
        // Its service time is drawn now, in arrival order, as the engine draws a job's work.
        const double service = model.mean_service_s * sample_standard_exponential(sizes);
        if (busy < c) {
          done_at[busy++] = now + service;
        } else if (queued < capacity) {
          const uint32_t tail = head + queued < capacity ? head + queued : head + queued - capacity;
          waiting[tail] = {now, service};
          ++queued;
        } else {
          dropped += 1;
        }
        next_arrival = now + sample_standard_exponential(gaps) / model.arrival_rate_per_s;
      } else if (queued > 0) {  // a completion: the longest-waiting job starts on that server
        wait += now - waiting[head].arrived_s;
        done_at[k] = now + waiting[head].service_s;
        if (++head == capacity) head = 0;
        --queued;
      } else {  // a completion: the server goes idle
        done_at[k] = done_at[--busy];
      }
    }
    totals.events += events;
    totals.wait_s += wait;
    totals.jobs_in_system_s += area;
    totals.dropped += dropped;
  }
  return totals;
}

}  // namespace gpucap::bench
