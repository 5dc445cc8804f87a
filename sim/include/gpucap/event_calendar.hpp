// gpucap: the event calendar, an implicit 4-ary min-heap over caller-provided storage.
//
// Events are ordered by (time, sequence number): two events at the same time leave the calendar
// in the order they were scheduled (FIFO), so every run is deterministic. The storage is a plain
// array sized by the caller (no allocation); push() reports false instead of overflowing.
#pragma once
#include <cstdint>

#include "gpucap/portable.hpp"

namespace gpucap {

/// One scheduled event: 16 bytes. `key` = sequence << 24 | type << 21 | payload (21 bits).
struct Event {
  double time_s;
  uint64_t key;

  GPUCAP_HD uint32_t type() const { return static_cast<uint32_t>(key >> 21) & 0x7u; }
  GPUCAP_HD uint32_t payload() const { return static_cast<uint32_t>(key) & 0x1FFFFFu; }
};

GPUCAP_HD GPUCAP_FORCEINLINE bool event_before(const Event& a, const Event& b) {
  return a.time_s < b.time_s || (a.time_s == b.time_s && a.key < b.key);
}

struct EventCalendar {
  static constexpr uint32_t kMaxPayload = 0x1FFFFFu;
  static constexpr int kArity = 4;

  Event* heap = nullptr;
  uint32_t size = 0;
  uint32_t capacity = 0;
  uint64_t next_sequence = 0;

  GPUCAP_HD void reset(Event* storage, uint32_t storage_capacity) {
    heap = storage;
    capacity = storage_capacity;
    size = 0;
    next_sequence = 0;
  }

  GPUCAP_HD bool empty() const { return size == 0; }
  GPUCAP_HD const Event& top() const { return heap[0]; }

  /// The key of an event scheduled now, consuming a sequence number: for events that a caller
  /// keeps outside the heap but orders with event_before() against those inside.
  GPUCAP_HD uint64_t take_key(uint32_t type, uint32_t payload) {
    return (next_sequence++ << 24) | (static_cast<uint64_t>(type) << 21) | (payload & kMaxPayload);
  }

  /// Schedules an event of `type` (0..7) with `payload` (< 2^21) at time_s. False when full.
  GPUCAP_HD bool push(double time_s, uint32_t type, uint32_t payload) {
    if (size == capacity) return false;
    const Event e{time_s, take_key(type, payload)};
    uint32_t i = size++;
    while (i > 0) {
      const uint32_t parent = (i - 1) / kArity;
      if (!event_before(e, heap[parent])) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = e;
    return true;
  }

  /// Removes the pending event with this payload whose type is in `type_mask` (bit t for type
  /// t). A linear scan: for rare cancellations, so that the hot path keeps no back-pointers.
  /// Returns false when there is none.
  GPUCAP_HD bool remove(uint32_t payload, uint32_t type_mask) {
    for (uint32_t i = 0; i < size; ++i) {
      if (heap[i].payload() != payload || !((type_mask >> heap[i].type()) & 1u)) continue;
      const Event last = heap[--size];
      if (i == size) return true;
      // Put the last event in the hole, then restore the heap order up or down from there.
      uint32_t j = i;
      while (j > 0 && event_before(last, heap[(j - 1) / kArity])) {
        heap[j] = heap[(j - 1) / kArity];
        j = (j - 1) / kArity;
      }
      if (j == i) j = sift_down_from(i, last);
      heap[j] = last;
      return true;
    }
    return false;
  }

  /// Removes and returns the earliest event. Precondition: !empty().
  GPUCAP_HD Event pop() {
    const Event result = heap[0];
    const Event last = heap[--size];
    if (size > 0) heap[sift_down_from(0, last)] = last;
    return result;
  }

 private:
  /// Moves the hole at i down to where `moving` belongs (children earlier than it move up);
  /// returns that position.
  GPUCAP_HD uint32_t sift_down_from(uint32_t i, const Event& moving) {
    for (;;) {
      const uint32_t first_child = i * kArity + 1;
      if (first_child >= size) break;
      uint32_t best = first_child;
      const uint32_t end = first_child + kArity < size ? first_child + kArity : size;
      for (uint32_t c = first_child + 1; c < end; ++c)
        if (event_before(heap[c], heap[best])) best = c;
      if (!event_before(heap[best], moving)) break;
      heap[i] = heap[best];
      i = best;
    }
    return i;
  }
};

}  // namespace gpucap
