// Tests of runs that keep fewer rows (--rows none | first N): their summaries are those of
// every row (means, deviations, intervals, goal probabilities and differences from point 0 the
// same bits; percentiles within the sketch's bound), whatever the chunks, threads or backend,
// the rows they keep are the run's, and files hold them.
#include "gpucap/streaming_summary.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/backend.hpp"
#include "gpucap/concat.hpp"
#include "gpucap/hdf5_layout.hpp"
#include "gpucap/hdf5_results.hpp"
#include "gpucap/memory_estimate.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"

#include "support/same_bits.hpp"

namespace gpucap {
namespace {

using testing_support::same_bits;

std::string shipped(const std::string& name) {
  return std::string(GPUCAP_SOURCE_DIR) + "/scenarios/" + name;
}

/// spot_training with a goal, a time series and a two-point sweep of the spot price.
struct Sweep {
  std::vector<Scenario> points;
  std::vector<SweepParameter> grid{{"pools.aws-h100-spot.price_usd_per_gpu_hour", {"2.5", "3.5"}}};
  Scenario base;
  Sweep() {
    const std::vector<std::string> common = {"goals.cheap.require=[cost <= 14000]",
                                             "timeseries.step=1d"};
    base = load_scenario(shipped("spot_training.yaml"), common);
    for (const std::string& price : grid[0].values) {
      std::vector<std::string> o = common;
      o.push_back(grid[0].path + "=" + price);
      points.push_back(load_scenario(shipped("spot_training.yaml"), o));
    }
  }
  RunResults run(uint64_t replications, uint64_t keep_rows, uint64_t chunk = 0, int threads = 0,
                 BackendChoice backend = BackendChoice::cpu) const {
    RunOptions o;
    o.replications = replications;
    o.keep_rows = keep_rows;
    o.chunk_replications = chunk;
    o.threads = threads;
    o.backend = backend;
    return run_points(points, grid, base, o);
  }
};

bool same_moments(const MetricSummary& a, const MetricSummary& b) {
  return a.n == b.n && same_bits(a.mean, b.mean) && same_bits(a.std, b.std) &&
         same_bits(a.ci95_low, b.ci95_low) && same_bits(a.ci95_high, b.ci95_high) &&
         a.clipped_low == b.clipped_low && a.clipped_high == b.clipped_high;
}

/// Every summary of `a` and `b` the same bits (percentiles included).
void expect_same_summaries(const RunResults& a, const RunResults& b) {
  ASSERT_EQ(a.summary.size(), b.summary.size());
  for (std::size_t i = 0; i < a.summary.size(); ++i)
    EXPECT_TRUE(same_bits(a.summary[i], b.summary[i])) << "summary " << i;
  ASSERT_EQ(a.pool_summary.size(), b.pool_summary.size());
  for (std::size_t i = 0; i < a.pool_summary.size(); ++i)
    EXPECT_TRUE(same_bits(a.pool_summary[i], b.pool_summary[i])) << "pool summary " << i;
  ASSERT_EQ(a.difference_summary.size(), b.difference_summary.size());
  for (std::size_t i = 0; i < a.difference_summary.size(); ++i)
    EXPECT_TRUE(same_moments(a.difference_summary[i], b.difference_summary[i])) << i;
  ASSERT_EQ(a.goal_summary.size(), b.goal_summary.size());
  for (std::size_t i = 0; i < a.goal_summary.size(); ++i)
    EXPECT_EQ(a.goal_summary[i].met, b.goal_summary[i].met);
}

/// p within the sketch's bound of the exact percentile e (relative, or of `scale` near zero).
void expect_within_bound(double p, double e, double scale, const std::string& what) {
  if (std::isnan(e)) {
    EXPECT_TRUE(std::isnan(p)) << what;
    return;
  }
  EXPECT_LE(std::fabs(p - e), QuantileSketch::kRelativeError * std::max(std::fabs(e), scale))
      << what << ": " << p << " vs " << e;
}

TEST(StreamingSummary, NoRowsGivesTheSameMomentsGoalsAndDifferencesAsEveryRow) {
  const Sweep sweep;
  const RunResults all = sweep.run(3000, RunOptions::kKeepAllRows);
  const RunResults none = sweep.run(3000, 0, 512);  // six chunks, the last one partial
  EXPECT_EQ(none.replications, 3000u);
  EXPECT_EQ(none.rows_per_point(), 0u);
  EXPECT_FALSE(none.all_rows());
  EXPECT_TRUE(none.scalars.empty() && none.pool_values.empty() && none.timeseries.empty());
  for (std::size_t i = 0; i < all.summary.size(); ++i) {
    EXPECT_TRUE(same_moments(all.summary[i], none.summary[i])) << i;
    const MetricSummary &a = all.summary[i], &n = none.summary[i];
    const double scale = std::fabs(a.mean) * 1e-9;
    expect_within_bound(n.p5, a.p5, scale, "p5 of " + std::to_string(i));
    expect_within_bound(n.p50, a.p50, scale, "p50 of " + std::to_string(i));
    expect_within_bound(n.p95, a.p95, scale, "p95 of " + std::to_string(i));
  }
  for (std::size_t i = 0; i < all.pool_summary.size(); ++i)
    EXPECT_TRUE(same_moments(all.pool_summary[i], none.pool_summary[i])) << i;
  ASSERT_EQ(none.goal_summary.size(), 2u);
  for (std::size_t p = 0; p < 2; ++p) {
    EXPECT_EQ(none.goal_summary[p].met, all.goal_summary[p].met);
    EXPECT_EQ(none.goal_summary[p].n, 3000u);
    EXPECT_TRUE(same_bits(none.goal_summary[p].exact.low, all.goal_summary[p].exact.low));
  }
  EXPECT_GT(all.goal_summary[0].met, 0u);  // the goal is neither always nor never met
  EXPECT_LT(all.goal_summary[0].met, 3000u);
  // Differences from point 0, either way round, as every row gives them; percentiles NaN.
  for (uint32_t m = 0; m < kScalarMetricCount; ++m) {
    const auto metric = static_cast<ScalarMetric>(m);
    EXPECT_TRUE(
        same_moments(paired_difference(none, metric, 1, 0), paired_difference(all, metric, 1, 0)))
        << kScalarMetricInfo[m].name;
    const MetricSummary back = paired_difference(none, metric, 0, 1);
    const MetricSummary rows_back = paired_difference(all, metric, 0, 1);
    // Negated exactly (a zero difference may come back as -0, which equals 0).
    EXPECT_TRUE(back.mean == rows_back.mean ||
                (std::isnan(back.mean) && std::isnan(rows_back.mean)))
        << kScalarMetricInfo[m].name;
    if (rows_back.n > 0) {
      EXPECT_NEAR(back.ci95_low, rows_back.ci95_low, 1e-9 * (1 + std::fabs(rows_back.ci95_low)));
    }
    EXPECT_TRUE(std::isnan(paired_difference(none, metric, 1, 0).p50));
  }
  EXPECT_GT(paired_difference(none, kCostUsd, 1, 0).mean, 0);  // a dearer spot price costs more
}

TEST(StreamingSummary, ChunksThreadsAndBackendsGiveTheSameBits) {
  const Sweep sweep;
  const RunResults reference = sweep.run(2600, 0, 256, 1);
  for (uint64_t chunk : {512u, 1024u, 2816u, 0u})
    for (int threads : {1, 2}) {
      SCOPED_TRACE("chunk " + std::to_string(chunk) + ", threads " + std::to_string(threads));
      expect_same_summaries(sweep.run(2600, 0, chunk, threads), reference);
    }
  // Chunk summaries run apart (a cluster's workers) and folded in order: the same bits.
  std::vector<ChunkSummary> parts;
  for (const auto& [first, count] :
       {std::pair<uint64_t, uint64_t>{0, 768}, {768, 256}, {1024, 1576}}) {
    RunOptions o;
    o.replications = count;
    o.first_replication = first;
    o.chunk_replications = 512;
    parts.push_back(ChunkSummary::deserialize(
        run_chunk_summary(sweep.points, sweep.grid, sweep.base, o).serialize()));
  }
  RunOptions whole;
  whole.replications = 2600;
  expect_same_summaries(fold_chunk_summaries(sweep.points, sweep.grid, sweep.base, whole, parts),
                        reference);
  // A fold saved after the first two chunks (a journal's record) and restored folds the rest
  // to the same bits; bytes of another shape or cut short are refused.
  {
    RunResults described = describe_run(sweep.points, sweep.grid, sweep.base, whole);
    described.kept_rows = 0;
    SummaryFold first_two(described);
    first_two.add(parts[0]);
    first_two.add(parts[1]);
    const std::string saved = first_two.serialize();
    SummaryFold restored = SummaryFold::restore(described, saved);
    EXPECT_EQ(restored.serialize(), saved);
    restored.add(parts[2]);
    restored.finish(described);
    expect_same_summaries(described, reference);
    EXPECT_THROW(SummaryFold::restore(described, saved.substr(0, saved.size() - 3)),
                 std::invalid_argument);
    RunResults other = described;
    other.points = 1;
    EXPECT_THROW(SummaryFold::restore(other, saved), std::invalid_argument);
  }
  // Out of order, or with a gap, the fold refuses.
  std::swap(parts[0], parts[1]);
  EXPECT_THROW(fold_chunk_summaries(sweep.points, sweep.grid, sweep.base, whole, parts),
               std::invalid_argument);
  parts.erase(parts.begin());
  EXPECT_THROW(fold_chunk_summaries(sweep.points, sweep.grid, sweep.base, whole, parts),
               std::invalid_argument);
  // Thrust's OpenMP device system reduces the blocks itself: the same bits.
  if (find_backend("thrust-omp")->built())
    expect_same_summaries(sweep.run(2600, 0, 1024, 0, BackendChoice::thrust_omp), reference);
}

TEST(StreamingSummary, TheFirstRowsKeptAreTheRunsRowsAndFilesHoldThem) {
  const Sweep sweep;
  const RunResults all = sweep.run(1200, RunOptions::kKeepAllRows);
  const RunResults first = sweep.run(1200, 300, 512);
  ASSERT_EQ(first.rows_per_point(), 300u);
  const std::size_t pool_row = all.pool_count() * kPoolMetricCount;
  const std::size_t series_row = all.pool_count() * all.timeseries_bins;
  ASSERT_GT(series_row, 0u);
  for (std::size_t p = 0; p < 2; ++p)
    for (std::size_t i = 0; i < 300; ++i) {
      for (uint32_t m = 0; m < kScalarMetricCount; ++m)
        ASSERT_TRUE(same_bits(first.scalar(p, i, static_cast<ScalarMetric>(m)),
                              all.scalar(p, i, static_cast<ScalarMetric>(m))));
      for (std::size_t k = 0; k < pool_row; ++k)
        ASSERT_TRUE(same_bits(first.pool_values[(p * 300 + i) * pool_row + k],
                              all.pool_values[(p * 1200 + i) * pool_row + k]));
      for (std::size_t k = 0; k < series_row; ++k)
        ASSERT_TRUE(same_bits(first.timeseries[(p * 300 + i) * series_row + k],
                              all.timeseries[(p * 1200 + i) * series_row + k]));
      ASSERT_EQ(first.goal_met[p * 300 + i], all.goal_met[p * 1200 + i]);
    }
  // Keeping more rows than ran keeps them all: the exact summaries.
  expect_same_summaries(sweep.run(1200, 5000), all);

  // Written and read back: the same rows and summaries, the counts of rows and replications.
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "gpucap_streaming";
  std::filesystem::create_directories(dir);
  const RunResults none = sweep.run(1200, 0, 512);
  for (const RunResults* written : {&first, &none}) {
    const std::string path = (dir / (written == &first ? "first.h5" : "none.h5")).string();
    std::filesystem::remove(path);
    write_results_hdf5(*written, path);
    const RunResults read = read_results_hdf5(path);
    EXPECT_EQ(read.replications, 1200u);
    EXPECT_EQ(read.rows_per_point(), written->rows_per_point());
    EXPECT_TRUE(same_bits(read.scalars, written->scalars));
    EXPECT_TRUE(same_bits(read.timeseries, written->timeseries));
    EXPECT_EQ(read.goal_met, written->goal_met);
    expect_same_summaries(read, *written);
  }
  {  // what a file that kept no rows holds: the counts, the differences, the goals' counts
    const std::string path = (dir / "none.h5").string();
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    uint64_t kept = 99, replications = 0;
    const hid_t k = H5Aopen(f, h5::kKeptReplications.name, H5P_DEFAULT);
    const hid_t n = H5Aopen(f, h5::kReplications.name, H5P_DEFAULT);
    H5Aread(k, H5T_NATIVE_UINT64, &kept);
    H5Aread(n, H5T_NATIVE_UINT64, &replications);
    H5Aclose(k);
    H5Aclose(n);
    EXPECT_EQ(kept, 0u);
    EXPECT_EQ(replications, 1200u);
    const hid_t d = H5Dopen2(f, hdf5_item_path(h5::kDifferenceSummary).c_str(), H5P_DEFAULT);
    ASSERT_GE(d, 0);
    const hid_t type = H5Dget_type(d);
    EXPECT_EQ(H5Tget_class(type), H5T_COMPOUND);
    H5Tclose(type);
    H5Dclose(d);
    EXPECT_GT(H5Lexists(f, hdf5_item_path(h5::kGoalMetCount).c_str(), H5P_DEFAULT), 0);
    H5Fclose(f);
  }
  std::filesystem::remove_all(dir);
}

TEST(StreamingSummary, WhatNeedsEveryRowSaysSoAndTheMemoryGuardCountsOnlyKeptRows) {
  const Sweep sweep;
  RunResults none = sweep.run(600, 0);
  // A difference between two points other than 0 needs the rows.
  Sweep three;
  three.grid[0].values.push_back("4.5");
  three.points.push_back(load_scenario(
      shipped("spot_training.yaml"),
      {"goals.cheap.require=[cost <= 14000]", "timeseries.step=1d", three.grid[0].path + "=4.5"}));
  const RunResults r3 = three.run(600, 0);
  try {
    paired_difference(r3, kCostUsd, 2, 1);
    FAIL() << "a difference of points 2 and 1 without rows";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--rows all"), std::string::npos) << e.what();
  }
  EXPECT_THROW(none.summarize_all(), std::logic_error);
  EXPECT_THROW(concat_results({&none, &none}, ConcatAxis::points), std::invalid_argument);
  // A streaming run starts on a block; a precision run keeps every row; chunks are whole blocks.
  RunOptions o;
  o.replications = 600;
  o.keep_rows = 0;
  o.first_replication = 100;
  EXPECT_THROW(run_points(sweep.points, sweep.grid, sweep.base, o), std::invalid_argument);
  o.first_replication = 0;
  o.chunk_replications = 300;
  EXPECT_THROW(run_points(sweep.points, sweep.grid, sweep.base, o), std::invalid_argument);
  o.chunk_replications = 0;
  o.precision = 0.05;
  EXPECT_THROW(run_points(sweep.points, sweep.grid, sweep.base, o), std::invalid_argument);

  // Under a 256 MiB limit, 10^6 replications' rows (about 1 GB) are refused before anything
  // runs, and the message names --rows; the estimate of the same run without rows fits.
  ASSERT_EQ(setenv("GPUCAP_MEMORY_LIMIT", "256MiB", 1), 0);
  RunOptions big;
  big.replications = 1000000;
  try {
    run_points(sweep.points, sweep.grid, sweep.base, big);
    unsetenv("GPUCAP_MEMORY_LIMIT");
    FAIL() << "10^6 replications' rows under 256 MiB";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--rows none"), std::string::npos) << e.what();
  }
  unsetenv("GPUCAP_MEMORY_LIMIT");
  const MemoryEstimate streaming =
      estimate_streaming_run_memory(2, 0, 65536, 2, 3, 1 << 20, 2, true);
  EXPECT_LT(streaming.total_bytes(), uint64_t{256} << 20);
  EXPECT_EQ(streaming.output_bytes, 0u);
  EXPECT_GT(streaming.summaries_bytes, 0u);
}

TEST(StreamingSummary, ChunkSummaryBytesRefuseWhatTheyDidNotWrite) {
  const Sweep sweep;
  RunOptions o;
  o.replications = 512;
  const std::string bytes = run_chunk_summary(sweep.points, sweep.grid, sweep.base, o).serialize();
  EXPECT_EQ(ChunkSummary::deserialize(bytes).serialize(), bytes);
  for (std::size_t cut :
       {std::size_t{0}, std::size_t{10}, std::size_t{40}, bytes.size() / 2, bytes.size() - 1})
    EXPECT_THROW(ChunkSummary::deserialize(bytes.substr(0, cut)), std::invalid_argument) << cut;
  EXPECT_THROW(ChunkSummary::deserialize(bytes + "x"), std::invalid_argument);
  std::string huge = bytes;  // a point count that would allocate without bound
  const uint64_t many = uint64_t{1} << 40;
  std::memcpy(&huge[23], &many, sizeof many);
  EXPECT_THROW(ChunkSummary::deserialize(huge), std::invalid_argument);
}

}  // namespace
}  // namespace gpucap
