// Tests of the event calendar (4-ary min-heap): order by time, FIFO among equal times, capacity,
// the key's fields, and a randomized comparison against std::priority_queue.
#include "gpucap/event_calendar.hpp"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <queue>
#include <random>
#include <tuple>
#include <vector>

namespace gpucap {
namespace {

struct Calendar {
  explicit Calendar(uint32_t capacity) : storage(capacity) { cal.reset(storage.data(), capacity); }
  std::vector<Event> storage;
  EventCalendar cal;
};

TEST(EventCalendar, PopsInTimeOrder) {
  Calendar c(16);
  const double times[] = {5.0, 1.0, 9.5, 3.25, 0.0, 7.0, 2.0, 8.0, 4.0, 6.0};
  for (uint32_t i = 0; i < 10; ++i) ASSERT_TRUE(c.cal.push(times[i], 0, i));
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

TEST(EventCalendar, EqualTimesLeaveInInsertionOrder) {
  const uint32_t n = 1000;
  Calendar c(n);
  // Many events at a few equal times, scheduled in a scrambled order of times.
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> pick(0, 4);
  std::vector<std::vector<uint32_t>> expected(5);
  for (uint32_t i = 0; i < n; ++i) {
    const int t = pick(gen);
    ASSERT_TRUE(c.cal.push(10.0 * t, i % 4, i));
    expected[t].push_back(i);
  }
  for (int t = 0; t < 5; ++t) {
    for (uint32_t payload : expected[t]) {
      const Event e = c.cal.pop();
      EXPECT_EQ(e.time_s, 10.0 * t);
      EXPECT_EQ(e.payload(), payload);
      EXPECT_EQ(e.type(), payload % 4);
    }
  }
  EXPECT_TRUE(c.cal.empty());
}

TEST(EventCalendar, AllEqualTimesAreFifo) {
  const uint32_t n = 777;
  Calendar c(n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_TRUE(c.cal.push(42.0, 1, i));
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(c.cal.pop().payload(), i);
}

TEST(EventCalendar, PushReportsFalseWhenFull) {
  Calendar c(3);
  EXPECT_TRUE(c.cal.push(3.0, 0, 0));
  EXPECT_TRUE(c.cal.push(1.0, 0, 1));
  EXPECT_TRUE(c.cal.push(2.0, 0, 2));
  EXPECT_FALSE(c.cal.push(0.5, 0, 3));
  EXPECT_EQ(c.cal.size, 3u);
  EXPECT_EQ(c.cal.top().payload(), 1u);  // the rejected event left no trace
  EXPECT_EQ(c.cal.pop().payload(), 1u);
  EXPECT_TRUE(c.cal.push(0.5, 0, 3));  // room again
  EXPECT_EQ(c.cal.pop().payload(), 3u);
  EXPECT_EQ(c.cal.pop().payload(), 2u);
  EXPECT_EQ(c.cal.pop().payload(), 0u);
  EXPECT_TRUE(c.cal.empty());

  Calendar none(0);
  EXPECT_FALSE(none.cal.push(1.0, 0, 0));
  EXPECT_TRUE(none.cal.empty());
}

TEST(EventCalendar, TypeAndPayloadRoundTrip) {
  Calendar c(64);
  const uint32_t payloads[] = {0u, 1u, 12345u, EventCalendar::kMaxPayload - 1,
                               EventCalendar::kMaxPayload};
  uint32_t count = 0;
  for (uint32_t type = 0; type < 8; ++type)
    for (uint32_t p : payloads) ASSERT_TRUE(c.cal.push(static_cast<double>(count++), type, p));
  for (uint32_t type = 0; type < 8; ++type) {
    for (uint32_t p : payloads) {
      const Event e = c.cal.pop();
      EXPECT_EQ(e.type(), type);
      EXPECT_EQ(e.payload(), p);
    }
  }
  // Fields of the key: sequence << 24 | type << 21 | payload.
  Event e{0.0, (uint64_t{5} << 24) | (uint64_t{6} << 21) | 0x1ABCDEu};
  EXPECT_EQ(e.type(), 6u);
  EXPECT_EQ(e.payload(), 0x1ABCDEu);
}

TEST(EventCalendar, SequenceKeepsCountingAfterPops) {
  // FIFO among equal times also holds for events pushed after earlier ones were popped.
  Calendar c(8);
  ASSERT_TRUE(c.cal.push(1.0, 0, 0));
  ASSERT_TRUE(c.cal.push(2.0, 0, 1));
  EXPECT_EQ(c.cal.pop().payload(), 0u);
  ASSERT_TRUE(c.cal.push(2.0, 0, 2));
  ASSERT_TRUE(c.cal.push(2.0, 0, 3));
  EXPECT_EQ(c.cal.pop().payload(), 1u);
  EXPECT_EQ(c.cal.pop().payload(), 2u);
  EXPECT_EQ(c.cal.pop().payload(), 3u);
}

TEST(EventCalendar, ResetEmptiesTheCalendar) {
  Calendar c(4);
  ASSERT_TRUE(c.cal.push(1.0, 0, 0));
  ASSERT_TRUE(c.cal.push(2.0, 0, 1));
  c.cal.reset(c.storage.data(), 4);
  EXPECT_TRUE(c.cal.empty());
  EXPECT_EQ(c.cal.next_sequence, 0u);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_TRUE(c.cal.push(5.0, 0, i));
  EXPECT_FALSE(c.cal.push(5.0, 0, 4));
}

TEST(EventCalendar, MatchesPriorityQueueReferenceUnderRandomInterleaving) {
  struct Ref {
    double time;
    uint64_t seq;
    uint32_t type, payload;
  };
  struct Later {  // std::priority_queue is a max-heap: "less" = later
    bool operator()(const Ref& a, const Ref& b) const {
      return std::tie(a.time, a.seq) > std::tie(b.time, b.seq);
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
  std::uniform_int_distribution<uint32_t> type(0, 3);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  uint64_t seq = 0;
  double now = 0;
  int pops = 0, full = 0;
  for (int step = 0; step < 200000; ++step) {
    // Phases that favour pushing, then popping, so the heap fills up and drains repeatedly.
    const double push_probability = (step / 5000) % 2 == 0 ? 0.7 : 0.3;
    if (coin(gen) < push_probability) {
      const double t = now + (coin(gen) < 0.5 ? static_cast<double>(coarse(gen)) : fine(gen));
      const uint32_t ty = type(gen), p = payload(gen);
      const bool ok = c.cal.push(t, ty, p);
      ASSERT_EQ(ok, ref.size() < capacity);
      if (ok) {
        ref.push({t, seq++, ty, p});
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
      ASSERT_EQ(got.type(), want.type) << "pop " << pops;
      ASSERT_EQ(got.key >> 24, want.seq) << "pop " << pops;
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

}  // namespace
}  // namespace gpucap

namespace gpucap {
namespace {

// remove() takes out one pending event (by payload and type) and keeps the heap in order:
// checked against a sorted reference under random pushes, pops and removals.
TEST(EventCalendarRemove, RemovesTheRightEventAndKeepsTheOrder) {
  std::vector<Event> storage(512);
  EventCalendar cal;
  cal.reset(storage.data(), 512);
  std::mt19937_64 gen(11);
  std::vector<std::pair<double, uint32_t>> reference;  // (time, payload), payloads unique
  uint32_t next_payload = 0;
  for (int step = 0; step < 20000; ++step) {
    const int action = static_cast<int>(gen() % 3);
    if (action == 0 || reference.empty()) {
      const double t = static_cast<double>(gen() % 1000);
      ASSERT_TRUE(cal.push(t, 1 + next_payload % 3, next_payload));
      reference.emplace_back(t, next_payload++);
      if (reference.size() > 400) {  // keep within capacity: drain one
        const Event e = cal.pop();
        auto it = std::min_element(reference.begin(), reference.end());
        EXPECT_EQ(e.payload(), it->second);
        reference.erase(it);
      }
    } else if (action == 1) {
      const size_t k = gen() % reference.size();
      const uint32_t payload = reference[k].second;
      EXPECT_FALSE(cal.remove(payload, 1u << 0));  // wrong type: nothing removed
      EXPECT_TRUE(cal.remove(payload, 0xFEu));
      reference.erase(reference.begin() + static_cast<long>(k));
    } else {
      // Earliest time first; among equal times, the lower payload (pushed earlier) first.
      const Event e = cal.pop();
      auto it = std::min_element(reference.begin(), reference.end());
      EXPECT_EQ(e.time_s, it->first);
      EXPECT_EQ(e.payload(), it->second);
      reference.erase(it);
    }
    ASSERT_EQ(cal.size, reference.size());
  }
  EXPECT_FALSE(cal.remove(next_payload + 1, 0xFFu));
}

}  // namespace
}  // namespace gpucap
