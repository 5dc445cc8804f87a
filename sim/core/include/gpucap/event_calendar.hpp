// gpucap: the event calendar: an implicit 4-ary min-heap over caller-provided storage, plus one
// slot per recurring source (a job class's next arrival) kept beside the heap in a winner tree,
// so that replacing a source's event costs log2(sources) comparisons and no heap traffic.
//
// Events are ordered by (time, tie class, sequence number): at equal times the tie class of
// their kind decides (event_kinds.hpp: work that finishes, then runs ending, capacity changes,
// starts, arrivals), and within a class they leave in the order they were scheduled (FIFO).
// The rule is in the key, so every way an event is scheduled obeys it, and every run is
// deterministic. The storage is an array in the arena (arena_ptr.hpp) sized by the caller (no
// allocation); push() reports false instead of overflowing.
#pragma once
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/event_kinds.hpp"
#include "gpucap/portable.hpp"
#include "gpucap/portable_math.hpp"

namespace gpucap {
GPUCAP_ARENA_NAMESPACE_BEGIN

/// One scheduled event: 16 bytes. `key` = tie class | sequence | kind | payload (high to low
/// bits), so comparing keys applies the tie rule and then FIFO.
struct Event {
  static constexpr uint32_t kPayloadBits = 21;
  static constexpr uint32_t kKindBits = 6;
  static constexpr uint32_t kSequenceBits = 34;
  static constexpr uint32_t kTieBits = 3;
  static constexpr uint32_t kKindShift = kPayloadBits;
  static constexpr uint32_t kSequenceShift = kKindShift + kKindBits;
  static constexpr uint32_t kTieShift = kSequenceShift + kSequenceBits;
  static_assert(kTieShift + kTieBits == 64, "the key's fields fill 64 bits");

  double time_s;
  uint64_t key;

  GPUCAP_HD EventKind kind() const {
    return static_cast<EventKind>((key >> kKindShift) & ((1u << kKindBits) - 1));
  }
  GPUCAP_HD uint32_t payload() const {
    return static_cast<uint32_t>(key) & ((1u << kPayloadBits) - 1);
  }
  GPUCAP_HD TieClass tie() const { return static_cast<TieClass>(key >> kTieShift); }
};

/// Whether a leaves before b: the earlier time, then the smaller key. On the host: times are +0
/// or more (the calendar stores a -0 as +0), and such doubles order as their bit patterns do, so
/// the pair (time bits, key) orders as one unsigned 128-bit number: one comparison, no branch
/// (which of two events is earlier is a coin toss to a branch predictor). On the device the
/// plain rule, the same order: 128-bit integers cost registers there (every callee of the
/// kernel spilled more; tests/device/kernel_resource_budget.txt).
GPUCAP_HD GPUCAP_FORCEINLINE bool event_before(const Event& a, const Event& b) {
#ifdef __CUDA_ARCH__
  return a.time_s < b.time_s || (a.time_s == b.time_s && a.key < b.key);
#else
  __extension__ typedef unsigned __int128 U128;  // GCC and Clang; not ISO C++
  return ((static_cast<U128>(pmath::bits_of(a.time_s)) << 64) | a.key) <
         ((static_cast<U128>(pmath::bits_of(b.time_s)) << 64) | b.key);
#endif
}

struct EventCalendar {
  static constexpr uint32_t kMaxPayload = (1u << Event::kPayloadBits) - 1;
  static constexpr uint32_t kMaxEventKinds = 1u << Event::kKindBits;
  /// Sequence numbers of one replication: far beyond its event budget (1e9 events).
  static constexpr uint64_t kMaxSequence = (uint64_t{1} << Event::kSequenceBits) - 1;
  static constexpr int kArity = 4;
  static_assert(kEventKindCount <= kMaxEventKinds, "the key has room for every declared kind");

  ArenaPtr<Event> heap = nullptr;
  uint32_t size = 0;
  uint32_t capacity = 0;
  uint64_t next_sequence = 0;
  /// The sources' slots as a winner tree over slot_leaves (a power of two >= the sources)
  /// leaves: tree[slot_leaves + i] is source i's pending event (time +inf: none, and every
  /// padding leaf), tree[j] for 1 <= j < slot_leaves the earlier of tree[2j] and tree[2j + 1],
  /// so tree[1] is the earliest slot event (tree[0] unused; with one source, tree[1] is its
  /// leaf). Null: no sources, every event goes through the heap.
  ArenaPtr<Event> tree = nullptr;
  uint32_t slot_count = 0;
  uint32_t slot_leaves = 0;
  bool overflowed = false;  ///< a schedule() found the heap full: the run is invalid

  /// Leaves of the winner tree of `sources` slots: the power of two at or above it.
  GPUCAP_HD static uint32_t leaves_for(uint32_t sources) {
    uint32_t leaves = 1;
    while (leaves < sources) leaves <<= 1;
    return leaves;
  }
  /// Events of slot storage that `sources` slots need (0 for none).
  GPUCAP_HD static uint32_t slot_storage_events(uint32_t sources) {
    return sources == 0 ? 0 : 2 * leaves_for(sources);
  }

  /// `slot_storage` holds slot_storage_events(slot_sources) events (0 sources: every event goes
  /// through the heap).
  GPUCAP_HD void reset(ArenaPtr<Event> storage, uint32_t storage_capacity,
                       ArenaPtr<Event> slot_storage = nullptr, uint32_t slot_sources = 0) {
    heap = storage;
    capacity = storage_capacity;
    size = 0;
    next_sequence = 0;
    slot_count = slot_sources;
    slot_leaves = slot_sources == 0 ? 0 : leaves_for(slot_sources);
    tree = slot_sources == 0 ? nullptr : slot_storage;
    overflowed = false;
    for (uint32_t i = 0; i < slot_storage_events(slot_sources); ++i) tree[i] = Event{kNever, 0};
  }

  GPUCAP_HD bool uses_slots() const { return slot_count > 0; }
  /// The earliest slot event (time +inf when no source has one). Precondition: uses_slots().
  GPUCAP_HD const Event& earliest_slot() const { return tree[1]; }
  GPUCAP_HD bool empty() const {
    return size == 0 && (!uses_slots() || earliest_slot().time_s == kNever);
  }

  /// The key's fields other than the sequence number (constant where the kind is).
  GPUCAP_HD GPUCAP_FORCEINLINE static uint64_t key_fields(EventKind kind, uint32_t payload) {
    return static_cast<uint64_t>(tie_class(kind)) << Event::kTieShift |
           static_cast<uint64_t>(kind) << Event::kKindShift | (payload & kMaxPayload);
  }

  /// The key of an event scheduled now, consuming a sequence number.
  GPUCAP_HD GPUCAP_FORCEINLINE uint64_t take_key(EventKind kind, uint32_t payload) {
    return key_fields(kind, payload) | (next_sequence++ & kMaxSequence) << Event::kSequenceShift;
  }

  /// Schedules an event of `kind` with `payload` (<= kMaxPayload) at time_s. False when the
  /// heap is full. (Running out of sequence numbers is checked once, by exhausted(), at the end
  /// of a replication: numbers only grow, so that one check covers every push.)
  GPUCAP_HD GPUCAP_FORCEINLINE bool push(double time_s, EventKind kind, uint32_t payload) {
    return push_fields(time_s, key_fields(kind, payload));
  }

  /// push() with the key's fields computed (one copy of the heap code, for the cache).
  GPUCAP_HD GPUCAP_FORCEINLINE bool push_fields(double time_s, uint64_t fields) {
    if (size == capacity) return false;
    const Event e{time_s + 0.0, fields | (next_sequence++ & kMaxSequence) << Event::kSequenceShift};
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

  /// push(), noting a failure in `overflowed` (the engine stops the replication).
  GPUCAP_HD GPUCAP_FORCEINLINE void schedule(double time_s, EventKind kind, uint32_t payload) {
    if (!push(time_s, kind, payload)) overflowed = true;
  }

  /// Sets source i's pending event (replacing any), or clears it when time_s is +infinity.
  /// It takes its sequence number now, exactly as push() would. Replays the winner tree's
  /// matches on the path from the source's leaf to the root: log2(slot_leaves) comparisons.
  GPUCAP_HD GPUCAP_FORCEINLINE void set_slot(uint32_t i, double time_s, EventKind kind,
                                             uint32_t payload) {
    uint32_t j = slot_leaves + i;
    Event winner{time_s + 0.0, time_s != kNever ? take_key(kind, payload) : 0};
    tree[j] = winner;
    for (; j > 1; j >>= 1) {
      const Event& rival = tree[j ^ 1u];
      if (event_before(rival, winner)) winner = rival;
      tree[j >> 1] = winner;
    }
  }

  /// True when more events were scheduled than the key has sequence numbers for (2^34, far
  /// beyond the event budget): from then on ties may have left in the wrong order, and the
  /// replication is reported as failed.
  GPUCAP_HD bool exhausted() const { return next_sequence > kMaxSequence + 1; }

  /// Takes the earliest event if it is at or before `until_s`; false (nothing taken) otherwise.
  /// Contract for a slot event taken: its source sets its next event (set_slot, kNever for
  /// none) before the next pop_until, which would otherwise find the same event again.
  GPUCAP_HD GPUCAP_FORCEINLINE bool pop_until(double until_s, Event& out) {
    if (uses_slots() && (size == 0 || event_before(earliest_slot(), heap[0]))) {
      if (earliest_slot().time_s > until_s) return false;
      out = earliest_slot();
      return true;
    }
    if (size == 0 || heap[0].time_s > until_s) return false;
    out = pop();
    return true;
  }

  GPUCAP_HD const Event& top() const { return heap[0]; }

  /// Removes the pending heap event with this payload whose kind is in `kinds` (kind_bit
  /// masks). A linear scan: for rare cancellations, so that the hot path keeps no
  /// back-pointers. Returns false when there is none.
  GPUCAP_HD bool remove(uint32_t payload, uint64_t kinds) {
    for (uint32_t i = 0; i < size; ++i) {
      if (heap[i].payload() != payload || !(kinds & kind_bit(heap[i].kind()))) continue;
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

  /// Removes and returns the earliest heap event. Precondition: size > 0.
  GPUCAP_HD Event pop() {
    const Event result = heap[0];
    const Event last = heap[--size];
    if (size > 0) heap[sift_down_from(0, last)] = last;
    return result;
  }

  static constexpr double kNever = __builtin_huge_val();

 private:
  /// Moves the hole at i down to where `moving` belongs (children earlier than it move up);
  /// returns that position.
  GPUCAP_HD uint32_t sift_down_from(uint32_t i, const Event& moving) {
    for (;;) {
      const uint32_t first_child = i * kArity + 1;
      if (first_child >= size) break;
      uint32_t best = first_child;
      if (first_child + kArity <= size) {  // all four children: compared without a loop
        static_assert(kArity == 4, "the unrolled comparisons below assume four children");
        if (event_before(heap[first_child + 1], heap[best])) best = first_child + 1;
        if (event_before(heap[first_child + 2], heap[best])) best = first_child + 2;
        if (event_before(heap[first_child + 3], heap[best])) best = first_child + 3;
      } else {
        for (uint32_t c = first_child + 1; c < size; ++c)
          if (event_before(heap[c], heap[best])) best = c;
      }
      if (!event_before(heap[best], moving)) break;
      heap[i] = heap[best];
      i = best;
    }
    return i;
  }
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap
