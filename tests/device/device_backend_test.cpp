// A device backend (kernels/device_backend.cu) against the CPU backend: the same bits per
// replication and the same summaries on every shipped scenario, whatever the batching, worker
// count, memory budget, first replication or number of sweep points.
//
// Built twice by tests/CMakeLists.txt: as device_backend_omp_test (GPUCAP_TEST_BACKEND =
// "thrust-omp", the row of the backend table, suite ThrustOmpBackend, label unit: runs
// everywhere, in CI) and as cuda_backend_test ("cuda", suite CudaBackend, label gpu: skips
// visibly without a usable CUDA device).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/backend.hpp"
#include "gpucap/compile.hpp"
#include "gpucap/replication.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"
#include "gpucap/streaming_summary.hpp"

#if !defined(GPUCAP_TEST_BACKEND) || !defined(GPUCAP_TEST_SUITE)
#error "define GPUCAP_TEST_BACKEND (\"thrust-omp\" or \"cuda\") and GPUCAP_TEST_SUITE"
#endif

namespace {

namespace fs = std::filesystem;
using gpucap::Backend;

/// The backend under test, or a skip that says why it cannot run here.
#define REQUIRE_DEVICE_BACKEND(backend)                                                          \
  const Backend* backend = gpucap::find_backend(GPUCAP_TEST_BACKEND);                            \
  ASSERT_NE(backend, nullptr) << "the backend table has no " GPUCAP_TEST_BACKEND;                \
  ASSERT_EQ(backend->kind, gpucap::BackendKind::device);                                         \
  if (!backend->built())                                                                         \
    GTEST_SKIP() << "this build has no " << backend->name << " backend: " << backend->not_built; \
  {                                                                                              \
    const gpucap::DeviceProbe probe = backend->probe();                                          \
    if (!probe.usable()) GTEST_SKIP() << backend->name << " cannot run: " << probe.why_none;     \
  }

/// The project's root: $GPUCAP_SOURCE_DIR when set (a prebuilt bundle run from another checkout,
/// see scripts/make_device_bundle.sh), else the source tree this test was built from.
std::string source_dir() {
  const char* env = std::getenv("GPUCAP_SOURCE_DIR");
  return env && *env ? env : GPUCAP_SOURCE_DIR;
}

gpucap::BackendChoice choice_of(const Backend* backend) {
  return gpucap::parse_backend(backend->name);
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

bool same_summary(const gpucap::MetricSummary& a, const gpucap::MetricSummary& b) {
  return a.n == b.n && std::memcmp(&a.mean, &b.mean, sizeof(double) * 7) == 0;
}

/// Sets GPUCAP_THRUST_OMP_DEVICES for a test's lifetime (the OpenMP system then presents that
/// many simulated devices; CUDA ignores it).
class SimulatedDevices {
 public:
  explicit SimulatedDevices(int n) {
    setenv("GPUCAP_THRUST_OMP_DEVICES", std::to_string(n).c_str(), 1);
  }
  ~SimulatedDevices() { unsetenv("GPUCAP_THRUST_OMP_DEVICES"); }
};

/// Index of the first differing value, for the failure message.
std::size_t first_difference(const std::vector<double>& a, const std::vector<double>& b) {
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0) return i;
  return std::min(a.size(), b.size());
}

/// Replications per scenario: enough for several moment blocks where a replication is cheap;
/// the inference scenarios simulate weeks of requests per replication.
uint64_t replications_for(const std::string& file) {
#if defined(GPUCAP_TEST_MANY_REPLICATIONS)
  const uint64_t scale = 8;
#else
  const uint64_t scale = 1;
#endif
  if (file == "serverless_vs_dedicated.yaml" || file == "edge_vs_cloud_inference.yaml" ||
      file == "spot_inference_fallback.yaml")
    return 3 * scale;
  if (file == "inference_mmc_validation.yaml") return 16 * scale;
  // A day of 2.2 million LLM requests: about 1.4 s a replication on one core.
  if (file == "llm_fleet_mix.yaml") return scale;
  if (file == "llm_published_benchmark.yaml") return 8 * scale;
  return 300 * scale;
}

/// The shipped scenarios (scenarios/*.yaml), sorted.
std::vector<fs::path> shipped_scenarios() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(source_dir() + "/scenarios"))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(GPUCAP_TEST_SUITE, EveryShippedScenarioGivesTheCpuBits) {
  REQUIRE_DEVICE_BACKEND(backend);
  const std::vector<fs::path> files = shipped_scenarios();
  ASSERT_GE(files.size(), 19u);
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.filename().string());
    const gpucap::Scenario scenario = gpucap::load_scenario(file.string());
    gpucap::RunOptions options;
    options.replications = replications_for(file.filename().string());
    options.backend = gpucap::BackendChoice::cpu;
    const gpucap::RunResults cpu = gpucap::run(scenario, options);
    options.backend = choice_of(backend);
    const gpucap::RunResults device = gpucap::run(scenario, options);
    EXPECT_EQ(device.backend, backend->name);
    EXPECT_FALSE(device.block_moments.empty());
    EXPECT_TRUE(same_bits(cpu.scalars, device.scalars))
        << "first difference at value " << first_difference(cpu.scalars, device.scalars);
    EXPECT_TRUE(same_bits(cpu.pool_values, device.pool_values))
        << "first difference at value " << first_difference(cpu.pool_values, device.pool_values);
    ASSERT_EQ(cpu.summary.size(), device.summary.size());
    for (std::size_t m = 0; m < cpu.summary.size(); ++m)
      EXPECT_TRUE(same_summary(cpu.summary[m], device.summary[m])) << "summary of metric " << m;
    for (std::size_t m = 0; m < cpu.pool_summary.size(); ++m)
      EXPECT_TRUE(same_summary(cpu.pool_summary[m], device.pool_summary[m]))
          << "pool summary " << m;
  }
}

/// A chunk summary of the scenario at these points (none: the scenario alone), no rows kept,
/// on `choice` with `limits`.
gpucap::ChunkSummary chunk_summary_of(const gpucap::Scenario& scenario,
                                      const std::vector<gpucap::Scenario>& points,
                                      const std::vector<gpucap::SweepParameter>& sweep,
                                      uint64_t replications, gpucap::BackendChoice choice,
                                      const gpucap::DeviceLimits& limits = {}, uint64_t chunk = 0) {
  gpucap::RunOptions options;
  options.replications = replications;
  options.backend = choice;
  options.device_limits = limits;
  options.chunk_replications = chunk;
  return gpucap::run_chunk_summary(
      points.empty() ? std::vector<gpucap::Scenario>{scenario} : points, sweep, scenario, options);
}

/// `--rows none` on a device reduces each batch there (batch_reduction.hpp) to the chunk
/// summary the CPU reduces from the rows: the same bytes (block moments, paired differences,
/// every sketch bucket's count, smallest and largest value, goal counts), every shipped scenario.
TEST(GPUCAP_TEST_SUITE, RowsNoneReducesToTheCpusSummaryOnEveryShippedScenario) {
  REQUIRE_DEVICE_BACKEND(backend);
  const std::vector<fs::path> files = shipped_scenarios();
  ASSERT_GE(files.size(), 19u);
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.filename().string());
    const gpucap::Scenario scenario = gpucap::load_scenario(file.string());
    const uint64_t n = replications_for(file.filename().string());
    const gpucap::ChunkSummary cpu =
        chunk_summary_of(scenario, {}, {}, n, gpucap::BackendChoice::cpu);
    const gpucap::ChunkSummary device = chunk_summary_of(scenario, {}, {}, n, choice_of(backend));
    ASSERT_EQ(cpu.count, n);
    uint64_t sketched = 0;
    for (const gpucap::QuantileSketch& sketch : cpu.sketches) sketched += sketch.count();
    EXPECT_GT(sketched, n);  // most metrics are defined in most replications
    EXPECT_EQ(cpu.serialize(), device.serialize());
  }
}

/// The same with sweep points (paired differences), goals, a time series (not needed without
/// rows), batches of one moment block, several devices with host threads beside them, and rows
/// kept for the first replications only (those chunks keep their rows, the others reduce on
/// the device).
TEST(GPUCAP_TEST_SUITE, RowsNoneWithPointsGoalsAndSeveralDevices) {
  const SimulatedDevices two(2);
  REQUIRE_DEVICE_BACKEND(backend);
  const std::string file = source_dir() + "/scenarios/spot_training.yaml";
  const std::vector<std::string> common = {
      "goals.cheap.require=[cost <= 14000]",
      "goals.quick.require=[completion_p99 <= 9d, jobs_completed >= 0.9 * jobs_arrived]",
      "timeseries.step=1d"};
  const gpucap::Scenario base = gpucap::load_scenario(file, common);
  const std::vector<gpucap::SweepParameter> sweep = {
      {"pools.aws-h100-spot.price_usd_per_gpu_hour", {"2.5", "3.5", "4.5"}}};
  std::vector<gpucap::Scenario> points;
  for (const std::string& price : sweep[0].values) {
    std::vector<std::string> o = common;
    o.push_back(sweep[0].path + "=" + price);
    points.push_back(gpucap::load_scenario(file, o));
  }
  const uint64_t n = 1100;  // four blocks and a partial one
  const gpucap::ChunkSummary cpu =
      chunk_summary_of(base, points, sweep, n, gpucap::BackendChoice::cpu);
  ASSERT_EQ(cpu.goals, 2u);
  for (std::size_t p = 0; p < 3; ++p) {
    EXPECT_GT(cpu.goal_met[p * 2], 0u);
    EXPECT_LT(cpu.goal_met[p * 2], n);  // a goal met in some replications, not all
  }
  const std::string expected = cpu.serialize();
  gpucap::DeviceLimits small;
  small.batch_replications = 256;
  gpucap::DeviceLimits both;  // every device and 2 host threads
  both.host_threads = 2;
  gpucap::DeviceLimits one;
  one.devices = {0};
  for (const auto& [what, limits] :
       {std::pair<std::string, gpucap::DeviceLimits>{"the plan's batches", {}},
        {"batches of 256", small},
        {"every device and 2 host threads", both},
        {"device 0", one}}) {
    SCOPED_TRACE(what);
    EXPECT_EQ(chunk_summary_of(base, points, sweep, n, choice_of(backend), limits).serialize(),
              expected);
  }
  // Chunks of 512: three summaries appended, the same bytes.
  EXPECT_EQ(chunk_summary_of(base, points, sweep, n, choice_of(backend), small, 512).serialize(),
            expected);

  // Through run(): rows none, and the first 300 rows kept (chunks of 256: the first two keep
  // rows, the rest reduce on the device), give the CPU's summaries and rows.
  gpucap::RunOptions options;
  options.replications = n;
  options.chunk_replications = 256;
  for (uint64_t keep : {uint64_t{0}, uint64_t{300}}) {
    SCOPED_TRACE("rows kept: " + std::to_string(keep));
    options.keep_rows = keep;
    options.backend = gpucap::BackendChoice::cpu;
    const gpucap::RunResults on_cpu = gpucap::run_points(points, sweep, base, options);
    options.backend = choice_of(backend);
    const gpucap::RunResults on_device = gpucap::run_points(points, sweep, base, options);
    EXPECT_TRUE(same_bits(on_cpu.scalars, on_device.scalars));
    EXPECT_TRUE(same_bits(on_cpu.timeseries, on_device.timeseries));
    EXPECT_EQ(on_cpu.scalars.size(), 3 * keep * gpucap::kScalarMetricCount);
    ASSERT_EQ(on_cpu.summary.size(), on_device.summary.size());
    for (std::size_t m = 0; m < on_cpu.summary.size(); ++m)
      EXPECT_TRUE(same_summary(on_cpu.summary[m], on_device.summary[m])) << "metric " << m;
    for (std::size_t m = 0; m < on_cpu.pool_summary.size(); ++m)
      EXPECT_TRUE(same_summary(on_cpu.pool_summary[m], on_device.pool_summary[m])) << m;
    for (std::size_t m = 0; m < on_cpu.difference_summary.size(); ++m)
      EXPECT_TRUE(same_summary(on_cpu.difference_summary[m], on_device.difference_summary[m]))
          << "difference " << m;
    ASSERT_EQ(on_cpu.goal_summary.size(), 6u);
    for (std::size_t g = 0; g < 6; ++g)
      EXPECT_EQ(on_cpu.goal_summary[g].met, on_device.goal_summary[g].met);
  }
}

TEST(GPUCAP_TEST_SUITE, TimeSeriesGivesTheCpuBits) {
  REQUIRE_DEVICE_BACKEND(backend);
  const gpucap::Scenario scenario =
      gpucap::load_scenario(source_dir() + "/scenarios/default.yaml", {"timeseries.step=6h"});
  gpucap::RunOptions options;
  options.replications = 300;
  options.backend = gpucap::BackendChoice::cpu;
  const gpucap::RunResults cpu = gpucap::run(scenario, options);
  options.backend = choice_of(backend);
  options.device_limits.batch_replications = 256;
  const gpucap::RunResults device = gpucap::run(scenario, options);
  ASSERT_EQ(cpu.timeseries_bins, 120u);  // 30 days in 6 h bins
  EXPECT_EQ(cpu.timeseries.size(), 300u * 3u * 120u);
  EXPECT_TRUE(same_bits(cpu.timeseries, device.timeseries))
      << "first difference at value " << first_difference(cpu.timeseries, device.timeseries);
}

// Mixed fleets: placement_limit (k jobs on on-demand) and fallback.return_to_preemptible, whose
// flag matters only when an on-demand run is cut short: here by an availability trace on the
// on-demand pool. The CPU results with and without the option differ, so the rule is exercised.
TEST(GPUCAP_TEST_SUITE, MixedFleetRulesGiveTheCpuBits) {
  REQUIRE_DEVICE_BACKEND(backend);
  const std::string od_trace =
      "pools.aws-h100-od.availability={file: ../data/sample_spot_availability.json, "
      "gpus_per_instance: 32, start: random}";
  const std::string file = source_dir() + "/scenarios/mixed_fleet.yaml";
  const gpucap::Scenario scenario = gpucap::load_scenario(
      file, {od_trace, "workloads.finetune.fallback.return_to_preemptible=true"});
  gpucap::RunOptions options;
  options.replications = 300;
  options.backend = gpucap::BackendChoice::cpu;
  const gpucap::RunResults cpu = gpucap::run(scenario, options);
  const gpucap::RunResults stays = gpucap::run(gpucap::load_scenario(file, {od_trace}), options);
  EXPECT_FALSE(same_bits(cpu.scalars, stays.scalars));
  options.backend = choice_of(backend);
  options.device_limits.batch_replications = 128;
  const gpucap::RunResults device = gpucap::run(scenario, options);
  EXPECT_TRUE(same_bits(cpu.scalars, device.scalars))
      << "first difference at value " << first_difference(cpu.scalars, device.scalars);
  EXPECT_TRUE(same_bits(cpu.pool_values, device.pool_values))
      << "first difference at value " << first_difference(cpu.pool_values, device.pool_values);
}

/// The M/M/c model of the tests below, with `gpus` servers.
gpucap::ModelStorage mmc_model(int gpus) {
  const std::string text = R"(
name: device batching
horizon: 300h
warmup: 10h
pools:
  gpus: {gpu: H100, price_usd_per_gpu_hour: 2.0, quota: )" +
                           std::to_string(gpus) + R"(}
workloads:
  - name: jobs
    arrivals: {process: poisson, rate_per_hour: 3.0}
    work: {dist: exponential, mean: 1h}
policy: {queue_capacity: 500}
)";
  return gpucap::compile(gpucap::parse_scenario(text, "device-batching", "."));
}

/// Rows and block moments of one task.
struct TaskOutput {
  std::vector<double> scalars, pool_values;
  std::vector<gpucap::Moments> moments;
  gpucap::DeviceRunStats stats;
};

/// Runs points x [first, first + count) on `backend` (null: the cpu row) with `limits`.
TaskOutput run_task(const Backend* backend, const std::vector<gpucap::ModelStorage>& models,
                    uint64_t first, uint64_t count, const gpucap::DeviceLimits& limits) {
  const std::size_t pools = models[0].model().pool_count;
  const std::size_t columns = gpucap::kScalarMetricCount + pools * gpucap::kPoolMetricCount;
  TaskOutput out;
  out.scalars.assign(models.size() * count * gpucap::kScalarMetricCount, -1.0);
  out.pool_values.assign(models.size() * count * pools * gpucap::kPoolMetricCount, -1.0);
  gpucap::ReplicationTask task;
  task.models = models.data();
  task.points = models.size();
  task.seed = 2026;
  task.first = first;
  task.count = count;
  task.scalars = out.scalars.data();
  task.pool_values = out.pool_values.data();
  if (backend) {
    if (first % gpucap::kMomentBlock == 0) {
      out.moments.resize(models.size() *
                         ((count + gpucap::kMomentBlock - 1) / gpucap::kMomentBlock) * columns);
      task.block_moments = out.moments.data();
    }
    out.stats = backend->run(task, limits);
  } else {  // the table's cpu row, with 2 threads
    gpucap::DeviceLimits two_threads;
    two_threads.workers = 2;
    out.stats = gpucap::find_backend("cpu")->run(task, two_threads);
  }
  return out;
}

std::vector<gpucap::ModelStorage> points_of(std::initializer_list<int> gpus) {
  std::vector<gpucap::ModelStorage> models;
  for (int g : gpus) models.push_back(mmc_model(g));
  return models;
}

/// Sets GPUCAP_SHARED_CALENDARS for a test's lifetime.
class SharedCalendars {
 public:
  explicit SharedCalendars(const char* value) { setenv("GPUCAP_SHARED_CALENDARS", value, 1); }
  ~SharedCalendars() { unsetenv("GPUCAP_SHARED_CALENDARS"); }
};

/// Each worker's event calendar apart from its arena (CUDA: in shared memory, where it keeps
/// the occupancy; the OpenMP system: a buffer of its own, up to 1 KiB) gives the same bits as
/// the calendar inside the arena, and as the CPU; a calendar too large stays in the arena.
TEST(GPUCAP_TEST_SUITE, CalendarsApartFromTheArenasGiveTheSameBits) {
  REQUIRE_DEVICE_BACKEND(backend);
  const bool omp = std::string(backend->name) == "thrust-omp";
  const auto models = points_of({3, 5});
  const std::size_t calendar_bytes = gpucap::replication_calendar_bytes(models[1].model());
  EXPECT_GT(calendar_bytes, 0u);
  EXPECT_EQ(calendar_bytes % 8, 0u);
  EXPECT_LT(calendar_bytes, gpucap::replication_arena_bytes(models[1].model()));
  const TaskOutput cpu = run_task(nullptr, models, 512, 2300, {});
  TaskOutput inside, apart;
  {
    const SharedCalendars off("off");
    inside = run_task(backend, models, 512, 2300, {});
  }
  {
    const SharedCalendars on("on");
    apart = run_task(backend, models, 512, 2300, {});
  }
  EXPECT_EQ(inside.stats.device.find("calendars"), std::string::npos) << inside.stats.device;
  if (omp) {
    ASSERT_LE(calendar_bytes, 1024u);
    EXPECT_NE(apart.stats.device.find(", calendars apart (" + std::to_string(calendar_bytes) +
                                      " B each)"),
              std::string::npos)
        << apart.stats.device;
  }
  for (const TaskOutput* out : {&inside, &apart}) {
    EXPECT_TRUE(same_bits(cpu.scalars, out->scalars))
        << out->stats.device << ": first difference at value "
        << first_difference(cpu.scalars, out->scalars);
    EXPECT_TRUE(same_bits(cpu.pool_values, out->pool_values));
  }
  ASSERT_EQ(inside.moments.size(), apart.moments.size());
  EXPECT_EQ(std::memcmp(inside.moments.data(), apart.moments.data(),
                        inside.moments.size() * sizeof(gpucap::Moments)),
            0);
  {
    // The unset default is on for the OpenMP system; a calendar of 300 GPUs' events (over
    // 1 KiB) stays in the arena there.
    const auto large = points_of({300});
    ASSERT_GT(gpucap::replication_calendar_bytes(large[0].model()), 1024u);
    const TaskOutput in_arena = run_task(backend, large, 0, 300, {});
    if (omp) {
      EXPECT_EQ(in_arena.stats.device.find("calendars"), std::string::npos);
    }
    EXPECT_TRUE(same_bits(run_task(nullptr, large, 0, 300, {}).scalars, in_arena.scalars));
  }
  const SharedCalendars wrong("maybe");
  try {
    run_task(backend, models, 0, 10, {});
    ADD_FAILURE() << "GPUCAP_SHARED_CALENDARS=maybe was taken";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("GPUCAP_SHARED_CALENDARS must be on or off, got 'maybe'"),
              std::string::npos)
        << e.what();
  }
}

TEST(GPUCAP_TEST_SUITE, BatchesAndWorkersDoNotChangeTheBits) {
  REQUIRE_DEVICE_BACKEND(backend);
  const auto models = points_of({4});
  const TaskOutput cpu = run_task(nullptr, models, 0, 1000, {});
  const TaskOutput whole = run_task(backend, models, 0, 1000, {});
  gpucap::DeviceLimits small;
  small.batch_replications = 256;
  small.workers = 3;
  const TaskOutput batched = run_task(backend, models, 0, 1000, small);
  EXPECT_EQ(batched.stats.batches, 4u);  // 256 + 256 + 256 + 232
  EXPECT_EQ(batched.stats.workers, 3u);
  EXPECT_TRUE(same_bits(cpu.scalars, whole.scalars));
  EXPECT_TRUE(same_bits(cpu.scalars, batched.scalars));
  EXPECT_TRUE(same_bits(cpu.pool_values, batched.pool_values));
  ASSERT_EQ(whole.moments.size(), batched.moments.size());
  EXPECT_EQ(std::memcmp(whole.moments.data(), batched.moments.data(),
                        whole.moments.size() * sizeof(gpucap::Moments)),
            0);
}

TEST(GPUCAP_TEST_SUITE, DeviceMomentsAreTheHostMoments) {
  REQUIRE_DEVICE_BACKEND(backend);
  const auto models = points_of({4});
  gpucap::DeviceLimits limits;
  limits.batch_replications = 512;
  const TaskOutput device = run_task(backend, models, 0, 1300, limits);
  const std::size_t columns = device.moments.size() / 6;  // 1300 rows: 6 blocks
  ASSERT_EQ(device.moments.size(), 6 * columns);
  for (std::size_t c = 0; c < gpucap::kScalarMetricCount; ++c) {
    gpucap::Moments merged;
    for (std::size_t b = 0; b < 6; ++b)
      merged = gpucap::merge_moments(merged, device.moments[b * columns + c]);
    const gpucap::Moments host =
        gpucap::column_moments(device.scalars.data() + c, 1300, gpucap::kScalarMetricCount);
    EXPECT_EQ(std::memcmp(&merged, &host, sizeof merged), 0) << "metric " << c;
    // n counts the replications where the metric is defined (NaN: not defined).
    double defined = 0;
    for (std::size_t r = 0; r < 1300; ++r)
      defined += std::isnan(device.scalars[r * gpucap::kScalarMetricCount + c]) ? 0.0 : 1.0;
    EXPECT_EQ(merged.n, defined) << "metric " << c;
  }
}

TEST(GPUCAP_TEST_SUITE, MemoryBudgetSizesWorkersAndBatches) {
  REQUIRE_DEVICE_BACKEND(backend);
  const auto models = points_of({4});
  const TaskOutput cpu = run_task(nullptr, models, 0, 2000, {});
  const std::size_t arena = gpucap::replication_arena_bytes(models[0].model());
  gpucap::DeviceLimits tight;
  // Room for the model, 2 groups of interleaved arenas (kArenaLanes each: a warp's) and about
  // 600 result rows: several batches of 256.
  const std::size_t lanes = GPUCAP_TEST_ARENA_LANES;
  tight.memory_bytes =
      64 * 1024 + 4 * lanes * (arena + 256) + 600 * 8 * (gpucap::kScalarMetricCount + 8);
  const TaskOutput device = run_task(backend, models, 0, 2000, tight);
  EXPECT_GE(device.stats.arena_memory_bytes, device.stats.workers * device.stats.arena_bytes);
  EXPECT_EQ(device.stats.arena_memory_bytes % (lanes * device.stats.arena_bytes), 0u);
  EXPECT_LE(device.stats.arena_memory_bytes, device.stats.memory_budget_bytes / 2);
  if (lanes > 1)
    EXPECT_NE(device.stats.device.find(", arenas interleaved by " + std::to_string(lanes)),
              std::string::npos)
        << device.stats.device;
  EXPECT_GE(device.stats.batches, 4u);
  EXPECT_TRUE(same_bits(cpu.scalars, device.scalars));

  gpucap::DeviceLimits none;
  none.memory_bytes = 4096;
  try {
    run_task(backend, models, 0, 100, none);
    FAIL() << "a 4 KiB budget should not be enough";
  } catch (const gpucap::RunError& e) {
    EXPECT_NE(std::string(e.what()).find("not enough device memory"), std::string::npos)
        << e.what();
  }
}

TEST(GPUCAP_TEST_SUITE, SweepPointsAndAnOffsetFirstReplication) {
  REQUIRE_DEVICE_BACKEND(backend);
  const auto models = points_of({3, 4, 6});
  gpucap::DeviceLimits limits;
  limits.batch_replications = 256;
  limits.workers = 5;
  for (uint64_t first : {uint64_t{0}, uint64_t{512}, uint64_t{77}}) {
    SCOPED_TRACE("first replication " + std::to_string(first));
    const TaskOutput cpu = run_task(nullptr, models, first, 600, {});
    const TaskOutput device = run_task(backend, models, first, 600, limits);
    EXPECT_TRUE(same_bits(cpu.scalars, device.scalars));
    EXPECT_TRUE(same_bits(cpu.pool_values, device.pool_values));
    EXPECT_EQ(device.stats.batches, 3u);
  }
  // Different points give different results (the points really are different models).
  const TaskOutput out = run_task(backend, models, 0, 10, {});
  EXPECT_NE(out.scalars[gpucap::kWaitMeanS],
            out.scalars[10 * gpucap::kScalarMetricCount + gpucap::kWaitMeanS]);
}

// A core_only point beside one that needs the whole engine, in one batch: each runs its own
// instantiation (run_replication's dispatch), with the CPU's bits, and the core point gives the
// same bits as when it runs alone.
TEST(GPUCAP_TEST_SUITE, CoreAndWholeEnginePointsGiveTheCpuBits) {
  REQUIRE_DEVICE_BACKEND(backend);
  std::vector<gpucap::ModelStorage> models = points_of({4});
  const std::string spot = R"(
name: device batching, preemptible
horizon: 300h
warmup: 10h
pools:
  gpus:
    gpu: H100
    purchase: spot
    price_usd_per_gpu_hour: 2.0
    quota: 4
    preemption: {time_to_preemption: {dist: exponential, mean: 20h}}
workloads:
  - name: jobs
    arrivals: {process: poisson, rate_per_hour: 3.0}
    work: {dist: exponential, mean: 1h}
policy: {queue_capacity: 500}
)";
  models.push_back(gpucap::compile(gpucap::parse_scenario(spot, "device-spot", ".")));
  ASSERT_TRUE(models[0].model().core_only);
  ASSERT_FALSE(models[1].model().core_only);
  gpucap::DeviceLimits limits;
  limits.batch_replications = 256;
  const TaskOutput cpu = run_task(nullptr, models, 0, 700, {});
  const TaskOutput mixed = run_task(backend, models, 0, 700, limits);
  EXPECT_TRUE(same_bits(cpu.scalars, mixed.scalars))
      << "first difference at value " << first_difference(cpu.scalars, mixed.scalars);
  EXPECT_TRUE(same_bits(cpu.pool_values, mixed.pool_values));
  // The core point alone: the same bits as within the mixed run.
  const std::vector<gpucap::ModelStorage> core = points_of({4});
  const TaskOutput alone = run_task(backend, core, 0, 700, limits);
  EXPECT_EQ(std::memcmp(alone.scalars.data(), mixed.scalars.data(),
                        alone.scalars.size() * sizeof(double)),
            0);
  EXPECT_EQ(std::memcmp(alone.moments.data(), mixed.moments.data(),
                        alone.moments.size() * sizeof(gpucap::Moments)),
            0);
}

TEST(GPUCAP_TEST_SUITE, MomentsNeedABlockAlignedFirstReplication) {
  REQUIRE_DEVICE_BACKEND(backend);
  const auto models = points_of({4});
  std::vector<double> scalars(10 * gpucap::kScalarMetricCount),
      pools(10 * gpucap::kPoolMetricCount);
  std::vector<gpucap::Moments> moments(gpucap::kScalarMetricCount + gpucap::kPoolMetricCount);
  gpucap::ReplicationTask task;
  task.models = models.data();
  task.first = 5;
  task.count = 10;
  task.scalars = scalars.data();
  task.pool_values = pools.data();
  task.block_moments = moments.data();
  EXPECT_THROW(backend->run(task, {}), gpucap::RunError);
}

TEST(GPUCAP_TEST_SUITE, ProbeDescribesDeviceZero) {
  REQUIRE_DEVICE_BACKEND(backend);
  const gpucap::DeviceProbe probe = backend->probe();
  ASSERT_FALSE(probe.devices.empty());
  EXPECT_EQ(probe.devices[0].index, 0);
  EXPECT_FALSE(probe.devices[0].name.empty());
  EXPECT_GT(probe.devices[0].total_memory_bytes, 0u);
  EXPECT_GT(probe.devices[0].multiprocessors, 0);
  EXPECT_NE(std::string(backend->targets), "");
}

TEST(GPUCAP_TEST_SUITE, SeveralDevicesGiveTheBitsOfOne) {
  const SimulatedDevices three(3);
  REQUIRE_DEVICE_BACKEND(backend);
  const gpucap::DeviceProbe probe = backend->probe();
  const int devices = static_cast<int>(probe.devices.size());
  if (std::string(backend->name) == "thrust-omp") {
    ASSERT_EQ(devices, 3);
    EXPECT_NE(probe.devices[2].name.find("simulated device 2 of 3"), std::string::npos);
  }
  const auto models = points_of({4, 6});
  gpucap::DeviceLimits one;
  one.devices = {0};
  one.batch_replications = 256;
  const TaskOutput single = run_task(backend, models, 512, 2300, one);
  gpucap::DeviceLimits all;  // every device, batches of 256 taken by whichever is free
  all.batch_replications = 256;
  const TaskOutput spread = run_task(backend, models, 512, 2300, all);
  EXPECT_EQ(spread.stats.batches, 9u);  // 8 x 256 + 252, whichever device ran them
  if (devices > 1) {
    EXPECT_EQ(spread.stats.device.find(std::to_string(devices) + " devices: "), 0u)
        << spread.stats.device;
  }
  EXPECT_TRUE(same_bits(single.scalars, spread.scalars))
      << "first difference at value " << first_difference(single.scalars, spread.scalars);
  EXPECT_TRUE(same_bits(single.pool_values, spread.pool_values));
  ASSERT_EQ(single.moments.size(), spread.moments.size());
  EXPECT_EQ(std::memcmp(single.moments.data(), spread.moments.data(),
                        single.moments.size() * sizeof(gpucap::Moments)),
            0);
  const TaskOutput cpu = run_task(nullptr, models, 512, 2300, {});
  EXPECT_TRUE(same_bits(cpu.scalars, spread.scalars));
  // A subset, in any order; a device that does not exist, or named twice, is refused.
  gpucap::DeviceLimits subset;
  subset.devices = {devices - 1, 0};
  if (devices == 1) subset.devices = {0};
  EXPECT_TRUE(same_bits(cpu.scalars, run_task(backend, models, 512, 2300, subset).scalars));
  gpucap::DeviceLimits missing;
  missing.devices = {devices};
  EXPECT_THROW(run_task(backend, models, 0, 300, missing), std::invalid_argument);
  gpucap::DeviceLimits twice;
  twice.devices = {0, 0};
  EXPECT_THROW(run_task(backend, models, 0, 300, twice), std::invalid_argument);

  // Through run(), with every device, keeping every row and keeping none: the CPU's summaries.
  const gpucap::Scenario scenario =
      gpucap::load_scenario(source_dir() + "/scenarios/spot_training.yaml");
  gpucap::RunOptions options;
  options.replications = 1500;
  options.backend = gpucap::BackendChoice::cpu;
  const gpucap::RunResults on_cpu = gpucap::run(scenario, options);
  options.backend = choice_of(backend);
  options.device_limits.batch_replications = 256;
  const gpucap::RunResults on_devices = gpucap::run(scenario, options);
  EXPECT_TRUE(same_bits(on_cpu.scalars, on_devices.scalars));
  for (std::size_t m = 0; m < on_cpu.summary.size(); ++m)
    EXPECT_TRUE(same_summary(on_cpu.summary[m], on_devices.summary[m])) << "metric " << m;
  options.keep_rows = 0;
  options.chunk_replications = 512;
  const gpucap::RunResults streamed = gpucap::run(scenario, options);
  options.backend = gpucap::BackendChoice::cpu;
  const gpucap::RunResults streamed_cpu = gpucap::run(scenario, options);
  for (std::size_t m = 0; m < on_cpu.summary.size(); ++m)
    EXPECT_TRUE(same_summary(streamed.summary[m], streamed_cpu.summary[m])) << "metric " << m;
  // The cpu backend has no devices to choose.
  options.device_limits.devices = {0};
  EXPECT_THROW(gpucap::run(scenario, options), std::invalid_argument);
}

TEST(GPUCAP_TEST_SUITE, HostThreadsBesideTheDevicesGiveTheBitsOfOne) {
  const SimulatedDevices two(2);
  REQUIRE_DEVICE_BACKEND(backend);
  const auto models = points_of({3, 5});
  const TaskOutput cpu = run_task(nullptr, models, 512, 2300, {});
  gpucap::DeviceLimits alone;
  alone.devices = {0};
  const TaskOutput device = run_task(backend, models, 512, 2300, alone);
  // 1 or 3 host threads beside one device or every one, device batches of 256 or the plan's:
  // the rows and the block moments are the bits of the device alone, whoever ran what.
  for (int host_threads : {1, 3}) {
    for (bool every_device : {false, true}) {
      for (uint64_t batch : {uint64_t{0}, uint64_t{256}}) {
        SCOPED_TRACE(std::to_string(host_threads) + " host threads, " +
                     (every_device ? "every device" : "device 0") + ", batch " +
                     std::to_string(batch));
        gpucap::DeviceLimits limits;
        limits.host_threads = host_threads;
        limits.batch_replications = batch;
        if (!every_device) limits.devices = {0};
        const TaskOutput both = run_task(backend, models, 512, 2300, limits);
        EXPECT_NE(both.stats.device.find("host, " + std::to_string(host_threads) + " threads"),
                  std::string::npos)
            << both.stats.device;
        EXPECT_TRUE(same_bits(cpu.scalars, both.scalars))
            << "first difference at value " << first_difference(cpu.scalars, both.scalars);
        EXPECT_TRUE(same_bits(cpu.pool_values, both.pool_values));
        ASSERT_EQ(device.moments.size(), both.moments.size());
        EXPECT_EQ(std::memcmp(device.moments.data(), both.moments.data(),
                              device.moments.size() * sizeof(gpucap::Moments)),
                  0);
      }
    }
  }
  // A first replication off the blocks (no moments), and a task smaller than one batch.
  gpucap::DeviceLimits host;
  host.host_threads = 2;
  EXPECT_TRUE(same_bits(run_task(nullptr, models, 77, 600, {}).scalars,
                        run_task(backend, models, 77, 600, host).scalars));
  EXPECT_TRUE(same_bits(run_task(nullptr, models, 0, 5, {}).scalars,
                        run_task(backend, models, 0, 5, host).scalars));
  gpucap::DeviceLimits too_many;
  too_many.host_threads = gpucap::kMaxThreads + 1;
  EXPECT_THROW(run_task(backend, models, 0, 10, too_many), std::invalid_argument);

  // Through run(): --host-threads on a device backend gives the CPU's results and summaries,
  // and is refused on the cpu backend.
  const gpucap::Scenario scenario =
      gpucap::load_scenario(source_dir() + "/scenarios/spot_training.yaml");
  gpucap::RunOptions options;
  options.replications = 1300;
  options.backend = gpucap::BackendChoice::cpu;
  const gpucap::RunResults on_cpu = gpucap::run(scenario, options);
  options.backend = choice_of(backend);
  options.device_limits.host_threads = 1;
  options.device_limits.batch_replications = 256;
  const gpucap::RunResults together = gpucap::run(scenario, options);
  EXPECT_NE(together.device.find("host, 1 threads"), std::string::npos) << together.device;
  EXPECT_TRUE(same_bits(on_cpu.scalars, together.scalars));
  for (std::size_t m = 0; m < on_cpu.summary.size(); ++m)
    EXPECT_TRUE(same_summary(on_cpu.summary[m], together.summary[m])) << "metric " << m;
  options.backend = gpucap::BackendChoice::cpu;
  EXPECT_THROW(gpucap::run(scenario, options), std::invalid_argument);
}

}  // namespace
