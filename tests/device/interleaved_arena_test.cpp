// Interleaved arenas (gpucap/arena_ptr.hpp), the layout of the device backends: this file is
// built with GPUCAP_ARENA_LANES=32 (a CUDA warp), so its engine keeps the state of 32
// replications interleaved element by element in one group. Every lane of a group, run at the
// same time as the others, must give the bits of the same replication in a contiguous arena
// (contiguous_replication.cpp, built with the host's layout), write nothing outside the group,
// and read nothing it did not write (the group starts filled with a poison pattern).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <thread>
#include <vector>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/compile.hpp"
#include "gpucap/engine/arena_layout.hpp"
#include "gpucap/replication.hpp"
#include "gpucap/scenario_loader.hpp"

#include "contiguous_replication.hpp"

namespace fs = std::filesystem;
using gpucap::ArenaPtr;
using gpucap::kArenaLanes;
using gpucap::testing_support::ReplicationOutput;

static_assert(kArenaLanes == 32, "this test is built with GPUCAP_ARENA_LANES=32");

namespace {

constexpr uint64_t kSeed = 7;
constexpr uint64_t kFirstReplication = 100;
/// Events per replication: enough to reach every kind of event of every shipped scenario (their
/// first hours), few enough that 23 scenarios x 2 x 32 lanes run in seconds.
constexpr uint64_t kMaxEvents = 20000;
constexpr unsigned char kPoison = 0xA5;
constexpr std::size_t kGuardBytes = 4096;

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

std::vector<fs::path> shipped_scenarios() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(GPUCAP_SOURCE_DIR) / "scenarios"))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

/// Storage of one group and a guard after it, filled with kPoison; 8-byte aligned.
struct PoisonedGroup {
  explicit PoisonedGroup(std::size_t group_bytes)
      : bytes(group_bytes), words((group_bytes + kGuardBytes + 7) / 8) {
    std::memset(words.data(), kPoison, words.size() * 8);
  }
  unsigned char* data() { return reinterpret_cast<unsigned char*>(words.data()); }
  /// True when no byte of the guard after the group changed.
  bool guard_intact() {
    const unsigned char* guard = data() + bytes;
    return std::all_of(guard, guard + kGuardBytes, [](unsigned char c) { return c == kPoison; });
  }
  std::size_t bytes;
  std::vector<uint64_t> words;
};

}  // namespace

TEST(ArenaPtr, InterleavesElementsLaneByLane) {
  struct Item {
    double a;
    uint32_t b, c;
  };
  std::vector<Item> group(kArenaLanes * 5);
  for (uint32_t lane = 0; lane < kArenaLanes; ++lane) {
    ArenaPtr<Item> p = ArenaPtr<Item>::in_group(group.data(), lane);
    EXPECT_EQ(&p[0], &group[lane]);
    EXPECT_EQ(&p[3], &group[3 * kArenaLanes + lane]);
    EXPECT_EQ(&(p + 2)[1], &group[3 * kArenaLanes + lane]);
    EXPECT_EQ(p->a, group[lane].a);
    ++p;
    EXPECT_EQ(&*p, &group[kArenaLanes + lane]);
    EXPECT_TRUE(static_cast<bool>(p));
  }
  // Lane l's element k is written through lane l's pointer only: every element of the group once.
  for (uint32_t lane = 0; lane < kArenaLanes; ++lane) {
    const ArenaPtr<Item> p = ArenaPtr<Item>::in_group(group.data(), lane);
    for (uint32_t k = 0; k < 5; ++k) p[k] = Item{1.0 * lane, k, 7};
  }
  for (std::size_t i = 0; i < group.size(); ++i) {
    EXPECT_EQ(group[i].a, static_cast<double>(i % kArenaLanes));
    EXPECT_EQ(group[i].b, i / kArenaLanes);
  }
  const ArenaPtr<Item> none = nullptr;
  EXPECT_FALSE(static_cast<bool>(none));
  EXPECT_TRUE(none == nullptr);
  EXPECT_EQ(sizeof(ArenaPtr<Item>), sizeof(Item*));
}

/// Each shipped scenario, its calendars in the arenas and then apart from them (a GPU's shared
/// memory): the 32 lanes of one group run at once, one thread each.
TEST(InterleavedArenas, EveryLaneOfAGroupGivesTheContiguousArenasBits) {
  const std::vector<fs::path> files = shipped_scenarios();
  ASSERT_GE(files.size(), 19u);
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.filename().string());
    const gpucap::ModelStorage storage = gpucap::compile(gpucap::load_scenario(file.string()));
    const gpucap::CompiledModel& model = storage.model();
    const gpucap::engine::ArenaLayout layout = gpucap::engine::ArenaLayout::of(model);
    std::vector<ReplicationOutput> expected(kArenaLanes);
    for (uint32_t lane = 0; lane < kArenaLanes; ++lane)
      expected[lane] = gpucap::testing_support::run_contiguous(
          model, kSeed, kFirstReplication + lane, kMaxEvents);
    for (const bool calendars_apart : {false, true}) {
      SCOPED_TRACE(calendars_apart ? "calendars apart" : "calendars in the arenas");
      PoisonedGroup arenas(kArenaLanes * layout.total_bytes);
      PoisonedGroup calendars(kArenaLanes * layout.calendar_part_bytes);
      std::vector<ReplicationOutput> got(kArenaLanes);
      std::vector<std::thread> lanes;
      for (uint32_t lane = 0; lane < kArenaLanes; ++lane)
        lanes.emplace_back([&, lane] {
          ReplicationOutput& out = got[lane];
          out.scalars.assign(gpucap::kScalarMetricCount, 0.0);
          out.pools.assign(static_cast<std::size_t>(model.pool_count) * gpucap::kPoolMetricCount,
                           0.0);
          out.series.assign(static_cast<std::size_t>(model.pool_count) * model.timeseries_bins,
                            0.0);
          out.status = gpucap::run_replication_limited(
              model, kSeed, kFirstReplication + lane, arenas.data(), out.scalars.data(),
              out.pools.data(), out.series.data(), kMaxEvents,
              calendars_apart ? calendars.data() : nullptr, lane);
        });
      for (std::thread& t : lanes) t.join();
      for (uint32_t lane = 0; lane < kArenaLanes; ++lane) {
        SCOPED_TRACE("lane " + std::to_string(lane));
        EXPECT_EQ(got[lane].status, expected[lane].status);
        EXPECT_TRUE(same_bits(got[lane].scalars, expected[lane].scalars));
        EXPECT_TRUE(same_bits(got[lane].pools, expected[lane].pools));
        EXPECT_TRUE(same_bits(got[lane].series, expected[lane].series));
      }
      EXPECT_TRUE(arenas.guard_intact());
      EXPECT_TRUE(calendars.guard_intact());
      if (calendars_apart) {
        // The calendars lived apart: the arenas' calendar parts were never touched.
        const unsigned char* part = arenas.data();
        EXPECT_TRUE(std::all_of(part, part + kArenaLanes * layout.calendar_part_bytes,
                                [](unsigned char c) { return c == kPoison; }));
      }
    }
  }
}
