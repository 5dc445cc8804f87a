// gpucap: internal to kernels/: what a device run that keeps no rows (`--rows none`) computes from
// a batch's rows where they lie, so that only the chunk summary crosses to the host
// (streaming_summary.hpp; ReplicationTask::summary). One functor per part, each called once per
// index (a device thread each, or a host loop) and each the same arithmetic as summarize_chunk:
//
//   DifferenceBlocks  (point, block, scalar metric) -> moments of the paired differences from
//                     point 0 (difference_block_moments)
//   CountGoals        (point, goal)                 -> replications where every condition holds
//   SketchKeys        (point, row, column)          -> (segment, bucket) key and the value, which
//                     the device then sorts and reduces by key to (count, smallest, largest) per
//                     bucket: QuantileSketch::add_bucket gives the bits of adding the values
//
// Batch rows are row-major: scalars [point][row][kScalarMetricCount], pool values
// [point][row][pool_stride]; `batch_count` rows per point.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpucap/goal.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/moments.hpp"
#include "gpucap/portable.hpp"
#include "gpucap/sketch_bucket.hpp"

namespace gpucap {

/// Moments of one (point, block, scalar metric) of a batch's paired differences from point 0:
/// index = (point * blocks + block) * kScalarMetricCount + metric.
struct DifferenceBlocks {
  const double* scalars;
  uint64_t batch_count;
  uint64_t blocks;
  Moments* out;

  GPUCAP_HD void operator()(uint64_t index) const {
    constexpr uint64_t kScalars = kScalarMetricCount;
    const uint64_t metric = index % kScalars;
    const uint64_t block = index / kScalars % blocks;
    const uint64_t point = index / kScalars / blocks;
    const uint64_t row = block * kMomentBlock;
    const uint64_t left = batch_count - row;
    const uint64_t n = left < kMomentBlock ? left : kMomentBlock;
    out[index] = difference_block_moments(scalars + ((point * batch_count + row) * kScalars + metric),
                                          scalars + (row * kScalars + metric), n, kScalars);
  }
};

/// Replications of one (point, goal) of a batch that meet the goal: index = point * goals + goal.
/// Goal g's conditions are tests[first[g]] to tests[first[g + 1] - 1].
struct CountGoals {
  const double* scalars;
  const double* pool_values;
  uint64_t batch_count;
  std::size_t pool_stride;
  const ConditionTest* tests;
  const uint32_t* first;
  uint64_t goals;
  uint64_t* met;

  GPUCAP_HD void operator()(uint64_t index) const {
    const uint64_t point = index / goals, goal = index % goals;
    uint64_t n = 0;
    for (uint64_t r = 0; r < batch_count; ++r) {
      const double* row = scalars + (point * batch_count + r) * kScalarMetricCount;
      const double* pools = pool_values + (point * batch_count + r) * pool_stride;
      bool all = true;
      for (uint32_t c = first[goal]; c < first[goal + 1] && all; ++c)
        all = condition_holds(tests[c], row, pools);
      n += all ? 1 : 0;
    }
    met[index] = n;
  }
};

/// A value left out of the sketches (NaN: undefined in that replication); sorts last.
constexpr uint64_t kNoBucket = ~uint64_t{0};

/// The sketch key of one value of a batch: (point * columns + column) << 32 | its bucket, with
/// columns = the scalars then the pool values; index = (point * batch_count + row) * columns +
/// column. The segment (point, column) must be below 2^32 - 1 (run_on_device checks it).
struct SketchKeys {
  const double* scalars;
  const double* pool_values;
  uint64_t batch_count;
  std::size_t pool_stride;
  uint64_t* keys;
  double* values;

  GPUCAP_HD void operator()(uint64_t index) const {
    constexpr uint64_t kScalars = kScalarMetricCount;
    const uint64_t columns = kScalars + pool_stride;
    const uint64_t column = index % columns;
    const uint64_t item = index / columns;  // point * batch_count + row
    const uint64_t point = item / batch_count;
    const double x = column < kScalars ? scalars[item * kScalars + column]
                                       : pool_values[item * pool_stride + (column - kScalars)];
    values[index] = x;
    keys[index] = x != x ? kNoBucket
                         : (point * columns + column) << 32 | uint64_t{sketch_bucket_key(x)};
  }
};

/// Goals' conditions in one array: goal g's are tests[first[g]] to tests[first[g + 1] - 1].
struct GoalTests {
  std::vector<ConditionTest> tests;
  std::vector<uint32_t> first{0};
};

inline GoalTests goal_tests(const std::vector<GoalSpec>& goals) {
  GoalTests t;
  for (const GoalSpec& goal : goals) {
    for (const ConditionTest& c : goal.conditions) t.tests.push_back(c);
    t.first.push_back(static_cast<uint32_t>(t.tests.size()));
  }
  return t;
}

}  // namespace gpucap
