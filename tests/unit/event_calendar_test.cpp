// Tests of the event calendar (4-ary min-heap): order by time, FIFO among equal times, capacity,
// the tie rule, the key's fields, the arrival slots, and a randomized comparison against a
// reference order.
#include "gpucap/event_calendar.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <limits>
#include <queue>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

namespace gpucap {
namespace {

struct Calendar {
  explicit Calendar(uint32_t capacity) : storage(capacity) {
    cal.reset(ArenaPtr<Event>::contiguous(storage.data()), capacity);
  }
  std::vector<Event> storage;
  EventCalendar cal;
};

constexpr EventKind kArrival = EventKind::arrival;

TEST(EventCalendar, PopsInTimeOrder) {
  Calendar c(16);
  const double times[] = {5.0, 1.0, 9.5, 3.25, 0.0, 7.0, 2.0, 8.0, 4.0, 6.0};
  for (uint32_t i = 0; i < 10; ++i) ASSERT_TRUE(c.cal.push(times[i], kArrival, i));
  EXPECT_EQ(c.cal.size, 10u);
  EXPECT_EQ(c.cal.top().time_s, 0.0);
  double last = -1;
  for (int i = 0; i < 10; ++i) {
    const Event e = c.cal.pop();
    EXPECT_GE(e.time_s, last);
    EXPECT_EQ(e.time_s, times[e.payload()]);
    last = e.time_s;
  }
  EXPECT_TRUE(c.cal.empty());
}

// event_before compares (time bits, key) as one 128-bit number: for every pair of times a
// calendar holds (+0 up to +infinity, subnormals and neighbours in the last bit included) it
// must order as "earlier time, then smaller key".
TEST(EventCalendar, EventBeforeIsEarlierTimeThenSmallerKey) {
  const double inf = std::numeric_limits<double>::infinity();
  const double times[] = {0.0,
                          std::numeric_limits<double>::denorm_min(),
                          2.2250738585072014e-308,
                          1e-300,
                          1.0,
                          std::nextafter(1.0, 2.0),
                          std::nextafter(1.0, 0.0),
                          3600.0,
                          2.5e9,
                          std::numeric_limits<double>::max(),
                          inf};
  const uint64_t keys[] = {0, 1, 0xFFFFFFFFull, 0x8000000000000000ull, ~uint64_t{0}};
  for (double ta : times)
    for (double tb : times)
      for (uint64_t ka : keys)
        for (uint64_t kb : keys) {
          const bool expected = ta < tb || (ta == tb && ka < kb);
          EXPECT_EQ(event_before(Event{ta, ka}, Event{tb, kb}), expected)
              << ta << " key " << ka << " vs " << tb << " key " << kb;
        }
}

// A time of -0 (equal to 0 as a number, but its sign bit would order it after every time) is kept
// as +0: it leaves with the other events at 0 by the tie rule and FIFO, before any later time.
TEST(EventCalendar, ANegativeZeroTimeLeavesAsZero) {
  Calendar c(8);
  ASSERT_TRUE(c.cal.push(1e-9, kArrival, 0));
  ASSERT_TRUE(c.cal.push(-0.0, kArrival, 1));
  ASSERT_TRUE(c.cal.push(0.0, kArrival, 2));
  Event e = c.cal.pop();
  EXPECT_EQ(e.payload(), 1u);
  EXPECT_FALSE(std::signbit(e.time_s));
  EXPECT_EQ(c.cal.pop().payload(), 2u);
  EXPECT_EQ(c.cal.pop().payload(), 0u);
}

TEST(EventCalendar, EqualTimesOfOneTieClassLeaveInInsertionOrder) {
  const uint32_t n = 1000;
  Calendar c(n);
  // Many events at a few equal times, scheduled in a scrambled order of times; all of kinds in
  // the tie class `arrive`.
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> pick(0, 4);
  std::vector<std::vector<uint32_t>> expected(5);
  for (uint32_t i = 0; i < n; ++i) {
    const int t = pick(gen);
    ASSERT_TRUE(c.cal.push(10.0 * t, i % 2 ? EventKind::arrival : EventKind::retry, i));
    expected[t].push_back(i);
  }
  for (int t = 0; t < 5; ++t) {
    for (uint32_t payload : expected[t]) {
      const Event e = c.cal.pop();
      EXPECT_EQ(e.time_s, 10.0 * t);
      EXPECT_EQ(e.payload(), payload);
      EXPECT_EQ(e.kind(), payload % 2 ? EventKind::arrival : EventKind::retry);
    }
  }
  EXPECT_TRUE(c.cal.empty());
}

TEST(EventCalendar, EqualTimesLeaveByTieClassWhateverTheOrderScheduled) {
  // Every kind, scheduled at one instant in reverse order of its tie class: they leave by tie
  // class (finish, run_end, capacity, start, arrive), and FIFO within a class.
  Calendar c(64);
  for (uint32_t round = 0; round < 2; ++round)
    for (uint32_t k = kEventKindCount; k-- > 0;)
      ASSERT_TRUE(c.cal.push(7.0, static_cast<EventKind>(k), round * 100 + k));
  std::vector<std::pair<TieClass, uint32_t>> got;
  while (!c.cal.empty()) {
    const Event e = c.cal.pop();
    EXPECT_EQ(e.time_s, 7.0);
    EXPECT_EQ(e.tie(), tie_class(e.kind()));
    EXPECT_EQ(e.payload() % 100, static_cast<uint32_t>(e.kind()));
    got.emplace_back(e.tie(), e.payload());
  }
  ASSERT_EQ(got.size(), 2 * kEventKindCount);
  for (size_t i = 1; i < got.size(); ++i) {
    ASSERT_LE(got[i - 1].first, got[i].first) << "tie classes in order, at " << i;
    if (got[i - 1].first == got[i].first) {  // within a class: scheduled order (round, k down)
      EXPECT_TRUE(got[i - 1].second / 100 < got[i].second / 100 ||
                  (got[i - 1].second / 100 == got[i].second / 100 &&
                   got[i - 1].second % 100 > got[i].second % 100));
    }
  }
  // The rule the docs state, kind by kind.
  EXPECT_EQ(tie_class(EventKind::completion), TieClass::finish);
  EXPECT_EQ(tie_class(EventKind::request_done), TieClass::finish);
  EXPECT_EQ(tie_class(EventKind::preemption), TieClass::run_end);
  EXPECT_EQ(tie_class(EventKind::availability), TieClass::capacity);
  EXPECT_EQ(tie_class(EventKind::zone_event), TieClass::capacity);
  EXPECT_EQ(tie_class(EventKind::idle_check), TieClass::capacity);
  EXPECT_EQ(tie_class(EventKind::run_start), TieClass::start);
  EXPECT_EQ(tie_class(EventKind::replica_ready), TieClass::start);
  EXPECT_EQ(tie_class(EventKind::arrival), TieClass::arrive);
  EXPECT_EQ(tie_class(EventKind::retry), TieClass::arrive);
}

TEST(EventCalendar, AnEarlierTimeAlwaysBeatsABetterTieClass) {
  Calendar c(4);
  ASSERT_TRUE(c.cal.push(std::nextafter(5.0, 6.0), EventKind::completion, 1));
  ASSERT_TRUE(c.cal.push(5.0, EventKind::arrival, 2));
  EXPECT_EQ(c.cal.pop().payload(), 2u);
  EXPECT_EQ(c.cal.pop().payload(), 1u);
}

TEST(EventCalendar, AllEqualTimesAreFifo) {
  const uint32_t n = 777;
  Calendar c(n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_TRUE(c.cal.push(42.0, EventKind::run_start, i));
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(c.cal.pop().payload(), i);
}

TEST(EventCalendar, PushReportsFalseWhenFull) {
  Calendar c(3);
  EXPECT_TRUE(c.cal.push(3.0, kArrival, 0));
  EXPECT_TRUE(c.cal.push(1.0, kArrival, 1));
  EXPECT_TRUE(c.cal.push(2.0, kArrival, 2));
  EXPECT_FALSE(c.cal.push(0.5, kArrival, 3));
  EXPECT_EQ(c.cal.size, 3u);
  EXPECT_EQ(c.cal.top().payload(), 1u);  // the rejected event left no trace
  EXPECT_EQ(c.cal.pop().payload(), 1u);
  EXPECT_TRUE(c.cal.push(0.5, kArrival, 3));  // room again
  EXPECT_EQ(c.cal.pop().payload(), 3u);
  EXPECT_EQ(c.cal.pop().payload(), 2u);
  EXPECT_EQ(c.cal.pop().payload(), 0u);
  EXPECT_TRUE(c.cal.empty());

  Calendar none(0);
  EXPECT_FALSE(none.cal.push(1.0, kArrival, 0));
  EXPECT_TRUE(none.cal.empty());
  none.cal.schedule(1.0, kArrival, 0);
  EXPECT_TRUE(none.cal.overflowed);
}

TEST(EventCalendar, RunningOutOfSequenceNumbersIsReported) {
  Calendar c(4);
  c.cal.next_sequence = EventCalendar::kMaxSequence;
  EXPECT_TRUE(c.cal.push(1.0, kArrival, 0));  // the last number
  EXPECT_FALSE(c.cal.exhausted());
  EXPECT_TRUE(c.cal.push(1.0, kArrival, 1));  // one too many: the replication is failed at its end
  EXPECT_TRUE(c.cal.exhausted());
  // The wrapped number cannot reach the kind and tie fields.
  EXPECT_EQ(c.cal.pop().kind(), kArrival);
  EXPECT_EQ(c.cal.pop().tie(), TieClass::arrive);
}

TEST(EventCalendar, KindAndPayloadRoundTrip) {
  const uint32_t payloads[] = {0u, 1u, 12345u, EventCalendar::kMaxPayload - 1,
                               EventCalendar::kMaxPayload};
  // Room for every declared kind with every payload (a new kind needs no change here).
  Calendar c(kEventKindCount * (sizeof payloads / sizeof payloads[0]));
  uint32_t count = 0;
  for (uint32_t k = 0; k < kEventKindCount; ++k)
    for (uint32_t p : payloads)
      ASSERT_TRUE(c.cal.push(static_cast<double>(count++), static_cast<EventKind>(k), p));
  for (uint32_t k = 0; k < kEventKindCount; ++k) {
    for (uint32_t p : payloads) {
      const Event e = c.cal.pop();
      EXPECT_EQ(e.kind(), static_cast<EventKind>(k));
      EXPECT_EQ(e.payload(), p);
    }
  }
  // Fields of the key: tie << 61 | sequence << 27 | kind << 21 | payload; the largest kind the
  // key can hold (63) round-trips too, so declaring more kinds needs no redesign.
  const Event e{0.0, (uint64_t{4} << 61) | (uint64_t{5} << 27) | (uint64_t{63} << 21) | 0x1ABCDEu};
  EXPECT_EQ(static_cast<uint32_t>(e.kind()), 63u);
  EXPECT_EQ(e.payload(), 0x1ABCDEu);
  EXPECT_EQ(e.tie(), TieClass::arrive);
  EXPECT_EQ(EventCalendar::kMaxEventKinds, 64u);
}

TEST(EventCalendar, SequenceKeepsCountingAfterPops) {
  // FIFO among equal times also holds for events pushed after earlier ones were popped.
  Calendar c(8);
  ASSERT_TRUE(c.cal.push(1.0, kArrival, 0));
  ASSERT_TRUE(c.cal.push(2.0, kArrival, 1));
  EXPECT_EQ(c.cal.pop().payload(), 0u);
  ASSERT_TRUE(c.cal.push(2.0, kArrival, 2));
  ASSERT_TRUE(c.cal.push(2.0, kArrival, 3));
  EXPECT_EQ(c.cal.pop().payload(), 1u);
  EXPECT_EQ(c.cal.pop().payload(), 2u);
  EXPECT_EQ(c.cal.pop().payload(), 3u);
}

TEST(EventCalendar, ResetEmptiesTheCalendar) {
  Calendar c(4);
  ASSERT_TRUE(c.cal.push(1.0, kArrival, 0));
  ASSERT_TRUE(c.cal.push(2.0, kArrival, 1));
  c.cal.reset(ArenaPtr<Event>::contiguous(c.storage.data()), 4);
  EXPECT_TRUE(c.cal.empty());
  EXPECT_EQ(c.cal.next_sequence, 0u);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_TRUE(c.cal.push(5.0, kArrival, i));
  EXPECT_FALSE(c.cal.push(5.0, kArrival, 4));
}

TEST(EventCalendar, SlotsAndHeapFollowOneOrder) {
  // Events kept in slots beside the heap leave in the same order as if they were in it.
  std::vector<Event> heap(8), slots(EventCalendar::slot_storage_events(3));
  EventCalendar cal;
  cal.reset(ArenaPtr<Event>::contiguous(heap.data()), 8, ArenaPtr<Event>::contiguous(slots.data()),
            3);
  ASSERT_TRUE(cal.push(2.0, EventKind::completion, 10));
  cal.set_slot(0, 2.0, EventKind::arrival, 0);  // same time, later class: after the completion
  cal.set_slot(1, 1.0, EventKind::arrival, 1);
  ASSERT_TRUE(cal.push(2.0, EventKind::run_start, 11));
  cal.set_slot(2, EventCalendar::kNever, EventKind::arrival, 2);  // none
  std::vector<uint32_t> order;
  Event e{0.0, 0};
  while (cal.pop_until(10.0, e)) {
    order.push_back(e.payload());
    // The contract: the source of a slot event taken sets its next one (here: none).
    if (e.kind() == EventKind::arrival)
      cal.set_slot(e.payload(), EventCalendar::kNever, EventKind::arrival, e.payload());
  }
  EXPECT_EQ(order, (std::vector<uint32_t>{1, 10, 11, 0}));
  EXPECT_TRUE(cal.empty());
  // pop_until leaves events after its bound in place.
  ASSERT_TRUE(cal.push(20.0, EventKind::completion, 12));
  EXPECT_FALSE(cal.pop_until(19.0, e));
  EXPECT_TRUE(cal.pop_until(20.0, e));
  EXPECT_EQ(e.payload(), 12u);
}

// The winner tree of slots at every shape (one source, a power of two, one past it, many):
// random slot replacements, clearings and heap pushes leave in exactly the order of one sorted
// list of (time, tie class, sequence), whatever the number of sources.
TEST(EventCalendar, SlotWinnerTreeKeepsTheOrderForAnySourceCount) {
  for (const uint32_t sources : {1u, 2u, 3u, 5u, 16u, 17u, 64u, 100u}) {
    const uint32_t capacity = 64;
    std::vector<Event> heap(capacity), slots(EventCalendar::slot_storage_events(sources));
    EventCalendar cal;
    cal.reset(ArenaPtr<Event>::contiguous(heap.data()), capacity,
              ArenaPtr<Event>::contiguous(slots.data()), sources);
    ASSERT_TRUE(cal.empty());
    // Reference: each source's pending (time, key) or none, and the heap's events.
    std::vector<Event> pending(sources, Event{EventCalendar::kNever, 0});
    std::vector<Event> in_heap;
    std::mt19937_64 gen(sources);
    double now = 0;
    int popped = 0;
    const auto next_time = [&] { return now + static_cast<double>(gen() % 8); };  // many ties
    // Sets source i's slot to t (kNever: none), in the calendar and in the reference.
    const auto set = [&](uint32_t i, double t) {
      const uint64_t seq = cal.next_sequence;
      cal.set_slot(i, t, EventKind::arrival, i);
      pending[i] = t == EventCalendar::kNever
                       ? Event{EventCalendar::kNever, 0}
                       : Event{t, EventCalendar::key_fields(EventKind::arrival, i) |
                                      seq << Event::kSequenceShift};
    };
    for (uint32_t i = 0; i < sources; ++i)
      if (gen() % 4 != 0) set(i, next_time());  // some sources start with nothing pending
    for (int step = 0; step < 20000; ++step) {
      if (gen() % 3 == 0 && in_heap.size() < capacity) {
        const EventKind k = gen() % 2 ? EventKind::completion : EventKind::run_start;
        const uint32_t payload = static_cast<uint32_t>(gen() % 1000);
        const double t = next_time();
        const uint64_t seq = cal.next_sequence;
        ASSERT_TRUE(cal.push(t, k, payload));
        in_heap.push_back(
            Event{t, EventCalendar::key_fields(k, payload) | seq << Event::kSequenceShift});
        continue;
      }
      // The expected next event: the earliest of the pending slots and the heap.
      const Event* want = nullptr;
      for (const Event& e : pending)
        if (e.time_s != EventCalendar::kNever && (!want || event_before(e, *want))) want = &e;
      for (const Event& e : in_heap)
        if (!want || event_before(e, *want)) want = &e;
      Event got{0.0, 0};
      if (!want) {  // all drained: the calendar says so, and a source comes back
        ASSERT_FALSE(cal.pop_until(1e300, got));
        ASSERT_TRUE(cal.empty());
        set(static_cast<uint32_t>(gen() % sources), next_time());
        continue;
      }
      ASSERT_TRUE(cal.pop_until(1e300, got));
      ASSERT_EQ(got.time_s, want->time_s) << sources << " sources, pop " << popped;
      ASSERT_EQ(got.key, want->key) << sources << " sources, pop " << popped;
      now = got.time_s;
      ++popped;
      if (got.kind() == EventKind::arrival) {
        // The source sets its next event (the contract), sometimes none.
        set(got.payload(), gen() % 8 == 0 ? EventCalendar::kNever : next_time());
        // Now and then another source's pending arrival is replaced or cleared too.
        if (gen() % 4 == 0) {
          const uint32_t other = static_cast<uint32_t>(gen() % sources);
          set(other, gen() % 4 == 0 ? EventCalendar::kNever : next_time());
        }
      } else {
        const auto it = std::find_if(in_heap.begin(), in_heap.end(),
                                     [&](const Event& e) { return e.key == got.key; });
        ASSERT_NE(it, in_heap.end());
        in_heap.erase(it);
      }
      // Everything pending lies at or after now: pop_until(now - 1) takes nothing.
      Event later{0.0, 0};
      ASSERT_FALSE(cal.pop_until(now - 1.0, later));
    }
    EXPECT_GT(popped, 5000) << sources << " sources";
  }
}

TEST(EventCalendar, MatchesReferenceOrderUnderRandomInterleaving) {
  struct Ref {
    double time;
    uint32_t tie;
    uint64_t seq;
    uint32_t kind, payload;
  };
  struct Later {  // std::priority_queue is a max-heap: "less" = later
    bool operator()(const Ref& a, const Ref& b) const {
      return std::tie(a.time, a.tie, a.seq) > std::tie(b.time, b.tie, b.seq);
    }
  };
  const uint32_t capacity = 257;
  Calendar c(capacity);
  std::priority_queue<Ref, std::vector<Ref>, Later> ref;
  std::mt19937_64 gen(12345);
  // Few distinct times (many ties) mixed with continuous times; time moves forward like a DES.
  std::uniform_int_distribution<int> coarse(0, 20);
  std::uniform_real_distribution<double> fine(0.0, 50.0);
  std::uniform_int_distribution<uint32_t> payload(0, EventCalendar::kMaxPayload);
  std::uniform_int_distribution<uint32_t> kind(0, kEventKindCount - 1);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  uint64_t seq = 0;
  double now = 0;
  int pops = 0, full = 0;
  for (int step = 0; step < 200000; ++step) {
    // Phases that favour pushing, then popping, so the heap fills up and drains repeatedly.
    const double push_probability = (step / 5000) % 2 == 0 ? 0.7 : 0.3;
    if (coin(gen) < push_probability) {
      const double t = now + (coin(gen) < 0.5 ? static_cast<double>(coarse(gen)) : fine(gen));
      const uint32_t k = kind(gen), p = payload(gen);
      const bool ok = c.cal.push(t, static_cast<EventKind>(k), p);
      ASSERT_EQ(ok, ref.size() < capacity);
      if (ok) {
        ref.push({t, static_cast<uint32_t>(tie_class(static_cast<EventKind>(k))), seq, k, p});
        ++seq;
      } else {
        ++full;
      }
    } else if (!ref.empty()) {
      ASSERT_FALSE(c.cal.empty());
      const Ref want = ref.top();
      ref.pop();
      ASSERT_EQ(c.cal.top().time_s, want.time);
      const Event got = c.cal.pop();
      ASSERT_EQ(got.time_s, want.time) << "pop " << pops;
      ASSERT_EQ(got.payload(), want.payload) << "pop " << pops;
      ASSERT_EQ(static_cast<uint32_t>(got.kind()), want.kind) << "pop " << pops;
      now = got.time_s;
      ++pops;
    }
    ASSERT_EQ(c.cal.size, ref.size());
  }
  while (!ref.empty()) {
    const Event got = c.cal.pop();
    ASSERT_EQ(got.time_s, ref.top().time);
    ASSERT_EQ(got.payload(), ref.top().payload);
    ref.pop();
  }
  EXPECT_TRUE(c.cal.empty());
  EXPECT_GT(pops, 50000);
  EXPECT_GT(full, 0);  // the full-calendar path was exercised
}

// remove() takes out one pending event (by payload and kind) and keeps the heap in order:
// checked against a sorted reference under random pushes, pops and removals.
TEST(EventCalendarRemove, RemovesTheRightEventAndKeepsTheOrder) {
  std::vector<Event> storage(512);
  EventCalendar cal;
  cal.reset(ArenaPtr<Event>::contiguous(storage.data()), 512);
  std::mt19937_64 gen(11);
  // (time, tie class, payload); payloads unique and increasing, so FIFO = lower payload first.
  std::vector<std::tuple<double, TieClass, uint32_t>> reference;
  const EventKind kinds[] = {EventKind::run_start, EventKind::completion, EventKind::preemption};
  const uint64_t slot_kinds = kind_bit(EventKind::run_start) | kind_bit(EventKind::completion) |
                              kind_bit(EventKind::preemption);
  uint32_t next_payload = 0;
  for (int step = 0; step < 20000; ++step) {
    const int action = static_cast<int>(gen() % 3);
    if (action == 0 || reference.empty()) {
      const double t = static_cast<double>(gen() % 1000);
      const EventKind k = kinds[next_payload % 3];
      ASSERT_TRUE(cal.push(t, k, next_payload));
      reference.emplace_back(t, tie_class(k), next_payload++);
      if (reference.size() > 400) {  // keep within capacity: drain one
        const Event e = cal.pop();
        auto it = std::min_element(reference.begin(), reference.end());
        EXPECT_EQ(e.payload(), std::get<2>(*it));
        reference.erase(it);
      }
    } else if (action == 1) {
      const size_t k = gen() % reference.size();
      const uint32_t payload = std::get<2>(reference[k]);
      EXPECT_FALSE(cal.remove(payload, kind_bit(EventKind::arrival)));  // wrong kind: nothing
      EXPECT_TRUE(cal.remove(payload, slot_kinds));
      reference.erase(reference.begin() + static_cast<long>(k));
    } else {
      // Earliest time first; among equal times, by tie class, then the one pushed earlier.
      const Event e = cal.pop();
      auto it = std::min_element(reference.begin(), reference.end());
      EXPECT_EQ(e.time_s, std::get<0>(*it));
      EXPECT_EQ(e.payload(), std::get<2>(*it));
      reference.erase(it);
    }
    ASSERT_EQ(cal.size, reference.size());
  }
  EXPECT_FALSE(cal.remove(next_payload + 1, ~uint64_t{0}));
}

}  // namespace
}  // namespace gpucap
