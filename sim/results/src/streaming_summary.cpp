// gpucap: summaries folded chunk by chunk (see streaming_summary.hpp).
#include "gpucap/streaming_summary.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "gpucap/parallel_for.hpp"
#include "gpucap/scenario.hpp"

namespace gpucap {
namespace {

constexpr char kMagic[] = "GPUCAP CHUNK SUMMARY 1\n";
constexpr char kFoldMagic[] = "GPUCAP SUMMARY FOLD 1\n";

template <typename T>
void put(std::string& out, T v) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  out.append(bytes, sizeof(T));
}

template <typename T>
T take(const std::string& data, std::size_t& pos) {
  if (pos > data.size() || data.size() - pos < sizeof(T))
    throw std::invalid_argument("chunk summary: the bytes end early");
  T v;
  std::memcpy(&v, data.data() + pos, sizeof(T));
  pos += sizeof(T);
  return v;
}

/// A count read from bytes, refused above `limit` (before it sizes anything).
uint64_t take_count(const std::string& data, std::size_t& pos, uint64_t limit, const char* what) {
  const uint64_t n = take<uint64_t>(data, pos);
  if (n > limit)
    throw std::invalid_argument(std::string("chunk summary: ") + what + " " + std::to_string(n) +
                                " is out of range");
  return n;
}

}  // namespace

void ChunkSummary::append(const ChunkSummary& next) {
  if (next.points != points || next.columns != columns || next.goals != goals)
    throw std::invalid_argument("chunk summaries of different runs cannot be joined");
  if (next.first != first + count || (count % kMomentBlock != 0 && next.count != 0))
    throw std::invalid_argument("chunk summary of replications from " + std::to_string(next.first) +
                                " cannot follow one that ends at " + std::to_string(first + count) +
                                (count % kMomentBlock != 0 ? " within a block" : ""));
  const std::size_t a = block_count(), b = next.block_count();
  std::vector<Moments> joined(points * (a + b) * columns);
  std::vector<Moments> joined_differences(points * (a + b) * kScalarMetricCount);
  for (std::size_t p = 0; p < points; ++p) {
    std::copy_n(blocks.begin() + p * a * columns, a * columns,
                joined.begin() + p * (a + b) * columns);
    std::copy_n(next.blocks.begin() + p * b * columns, b * columns,
                joined.begin() + (p * (a + b) + a) * columns);
    const std::size_t m = kScalarMetricCount;
    std::copy_n(difference_blocks.begin() + p * a * m, a * m,
                joined_differences.begin() + p * (a + b) * m);
    std::copy_n(next.difference_blocks.begin() + p * b * m, b * m,
                joined_differences.begin() + (p * (a + b) + a) * m);
  }
  blocks = std::move(joined);
  difference_blocks = std::move(joined_differences);
  for (std::size_t i = 0; i < sketches.size(); ++i) sketches[i].merge(next.sketches[i]);
  for (std::size_t i = 0; i < goal_met.size(); ++i) goal_met[i] += next.goal_met[i];
  count += next.count;
}

std::string ChunkSummary::serialize() const {
  std::string out(kMagic);
  for (const uint64_t v : {uint64_t{points}, uint64_t{columns}, uint64_t{goals}, first, count})
    put<uint64_t>(out, v);
  for (const std::vector<Moments>* list : {&blocks, &difference_blocks})
    for (const Moments& m : *list) {
      put<double>(out, m.n);
      put<double>(out, m.mean);
      put<double>(out, m.m2);
    }
  for (const QuantileSketch& s : sketches) s.serialize(out);
  for (const uint64_t met : goal_met) put<uint64_t>(out, met);
  return out;
}

ChunkSummary ChunkSummary::deserialize(const std::string& bytes) {
  const std::size_t magic = sizeof(kMagic) - 1;
  if (bytes.compare(0, magic, kMagic) != 0)
    throw std::invalid_argument("not a gpucap chunk summary (it does not start with its header)");
  std::size_t pos = magic;
  ChunkSummary c;
  c.points = take_count(bytes, pos, kMaxReplications, "point count");
  c.columns = take_count(bytes, pos, bytes.size(), "column count");
  c.goals = take_count(bytes, pos, bytes.size(), "goal count");
  c.first = take_count(bytes, pos, kMaxReplications, "first replication");
  c.count = take_count(bytes, pos, kMaxReplications, "replication count");
  if (c.columns < kScalarMetricCount || (c.columns - kScalarMetricCount) % kPoolMetricCount != 0)
    throw std::invalid_argument("chunk summary: " + std::to_string(c.columns) +
                                " columns are not the scalar metrics plus whole pools");
  // Every Moments is 24 bytes: the sizes must fit in what is left before they are allocated.
  const uint64_t moments =
      static_cast<uint64_t>(c.points) * c.block_count() * (c.columns + kScalarMetricCount);
  if (c.points == 0 || moments > (bytes.size() - pos) / 24)
    throw std::invalid_argument("chunk summary: the sizes do not match the bytes");
  c.blocks.resize(c.points * c.block_count() * c.columns);
  c.difference_blocks.resize(c.points * c.block_count() * kScalarMetricCount);
  for (std::vector<Moments>* list : {&c.blocks, &c.difference_blocks})
    for (Moments& m : *list) {
      m.n = take<double>(bytes, pos);
      m.mean = take<double>(bytes, pos);
      m.m2 = take<double>(bytes, pos);
      if (!(m.n >= 0 && m.n <= static_cast<double>(kMomentBlock)))
        throw std::invalid_argument("chunk summary: a block counts more values than it has");
    }
  c.sketches.reserve(c.points * c.columns);
  for (std::size_t i = 0; i < c.points * c.columns; ++i) {
    c.sketches.push_back(QuantileSketch::deserialize(bytes, pos));
    if (c.sketches.back().count() > c.count)
      throw std::invalid_argument("chunk summary: a sketch holds more values than replications");
  }
  if (c.goals > (bytes.size() - pos) / 8 / c.points)
    throw std::invalid_argument("chunk summary: the goal counts do not match the bytes");
  c.goal_met.resize(c.points * c.goals);
  for (uint64_t& met : c.goal_met) {
    met = take<uint64_t>(bytes, pos);
    if (met > c.count) throw std::invalid_argument("chunk summary: a goal met more often than run");
  }
  if (pos != bytes.size()) throw std::invalid_argument("chunk summary: bytes left after its end");
  return c;
}

ChunkSummary empty_chunk_summary(const RunResults& described) {
  ChunkSummary c;
  c.points = described.points;
  c.columns = described.moment_columns();
  c.goals = described.goals.size();
  c.first = described.first_replication;
  c.count = described.replications;
  c.blocks.assign(c.points * c.block_count() * c.columns, Moments{});
  c.difference_blocks.assign(c.points * c.block_count() * kScalarMetricCount, Moments{});
  c.sketches.resize(c.points * c.columns);
  c.goal_met.assign(c.points * c.goals, 0);
  return c;
}

ChunkSummary summarize_chunk(const RunResults& rows, unsigned threads) {
  if (!rows.all_rows()) throw std::logic_error("summarize_chunk needs every row of its chunk");
  if (rows.first_replication % kMomentBlock != 0)
    throw std::invalid_argument("a chunk must start at a multiple of " +
                                std::to_string(kMomentBlock) + " replications");
  ChunkSummary c = empty_chunk_summary(rows);
  const std::size_t n = rows.replications, blocks = c.block_count(), columns = c.columns;
  const std::size_t pool_stride = rows.pool_count() * kPoolMetricCount;

  // One task per (point, column), then per (point, scalar metric) for the differences.
  const std::size_t per_point = columns + kScalarMetricCount;
  parallel_for(c.points * per_point, threads, [&](std::size_t task) {
    const std::size_t point = task / per_point, k = task % per_point;
    if (k < columns) {
      const double* first;
      std::size_t stride;
      if (k < kScalarMetricCount) {
        first = rows.scalars.data() + point * n * kScalarMetricCount + k;
        stride = kScalarMetricCount;
      } else {
        first = rows.pool_values.data() + point * n * pool_stride + (k - kScalarMetricCount);
        stride = pool_stride;
      }
      // The blocks of a device run are its own reduction: the same bits (moments.hpp).
      const std::size_t device_blocks = rows.block_moments.empty() ? 0 : blocks;
      for (std::size_t b = 0; b < blocks; ++b) {
        const std::size_t start = b * kMomentBlock;
        c.blocks[(point * blocks + b) * columns + k] =
            device_blocks ? rows.block_moments[(point * blocks + b) * columns + k]
                          : block_moments(first + start * stride,
                                          std::min<std::size_t>(kMomentBlock, n - start), stride);
      }
      QuantileSketch& sketch = c.sketches[point * columns + k];
      for (std::size_t i = 0; i < n; ++i) {
        const double x = first[i * stride];
        if (x == x) sketch.add(x);
      }
    } else {
      const std::size_t m = k - columns;
      const double* mine = rows.scalars.data() + point * n * kScalarMetricCount + m;
      const double* base = rows.scalars.data() + m;  // point 0
      for (std::size_t b = 0; b < blocks; ++b) {
        const std::size_t start = b * kMomentBlock;
        const std::size_t count = std::min<std::size_t>(kMomentBlock, n - start);
        c.difference_blocks[(point * blocks + b) * kScalarMetricCount + m] =
            difference_block_moments(mine + start * kScalarMetricCount,
                                     base + start * kScalarMetricCount, count, kScalarMetricCount);
      }
    }
  });

  if (c.goals > 0) {
    if (rows.goal_met.size() != c.points * n * c.goals)
      throw std::logic_error("summarize_chunk: goal_met has the wrong shape");
    for (std::size_t point = 0; point < c.points; ++point)
      for (std::size_t r = 0; r < n; ++r)
        for (std::size_t g = 0; g < c.goals; ++g)
          c.goal_met[point * c.goals + g] += rows.goal_met[(point * n + r) * c.goals + g];
  }
  return c;
}

SummaryFold::SummaryFold(const RunResults& described)
    : points_(described.points),
      columns_(described.moment_columns()),
      goals_(described.goals.size()),
      next_(described.first_replication),
      moments_(points_ * columns_),
      difference_moments_(points_ * kScalarMetricCount),
      sketches_(points_ * columns_),
      goal_met_(points_ * goals_, 0) {}

void SummaryFold::add(const ChunkSummary& chunk) {
  if (chunk.points != points_ || chunk.columns != columns_ || chunk.goals != goals_)
    throw std::invalid_argument("a chunk summary of another run (points, pools or goals differ)");
  if (chunk.first != next_ || ended_partial_block_)
    throw std::invalid_argument(
        "chunk summary of replications from " + std::to_string(chunk.first) +
        " where the fold expected " + std::to_string(next_) +
        (ended_partial_block_ ? ", after a chunk that ended within a block" : ""));
  const std::size_t blocks = chunk.block_count();
  // Block by block, in order: column_moments' merge sequence over all the rows.
  for (std::size_t p = 0; p < points_; ++p) {
    for (std::size_t b = 0; b < blocks; ++b) {
      for (std::size_t k = 0; k < columns_; ++k)
        moments_[p * columns_ + k] = merge_moments(moments_[p * columns_ + k],
                                                   chunk.blocks[(p * blocks + b) * columns_ + k]);
      for (std::size_t m = 0; m < kScalarMetricCount; ++m)
        difference_moments_[p * kScalarMetricCount + m] =
            merge_moments(difference_moments_[p * kScalarMetricCount + m],
                          chunk.difference_blocks[(p * blocks + b) * kScalarMetricCount + m]);
    }
    for (std::size_t k = 0; k < columns_; ++k)
      sketches_[p * columns_ + k].merge(chunk.sketches[p * columns_ + k]);
    for (std::size_t g = 0; g < goals_; ++g)
      goal_met_[p * goals_ + g] += chunk.goal_met[p * goals_ + g];
  }
  next_ += chunk.count;
  replications_ += chunk.count;
  ended_partial_block_ = chunk.count % kMomentBlock != 0;
}

void SummaryFold::finish(RunResults& r) const {
  if (r.points != points_ || r.moment_columns() != columns_ || r.goals.size() != goals_ ||
      r.replications != replications_)
    throw std::logic_error("SummaryFold::finish: the results are not those of the fold");
  const std::size_t pool_stride = r.pool_count() * kPoolMetricCount;
  r.summary.assign(points_ * kScalarMetricCount, MetricSummary{});
  r.pool_summary.assign(points_ * pool_stride, MetricSummary{});
  r.difference_summary.assign(points_ * kScalarMetricCount, MetricSummary{});
  for (std::size_t p = 0; p < points_; ++p) {
    for (std::size_t k = 0; k < columns_; ++k) {
      const std::size_t i = p * columns_ + k;
      if (k < kScalarMetricCount)
        r.summary[p * kScalarMetricCount + k] =
            summarize(moments_[i], sketches_[i], metric_range(kScalarMetricInfo[k]));
      else
        r.pool_summary[p * pool_stride + k - kScalarMetricCount] =
            summarize(moments_[i], sketches_[i],
                      metric_range(kPoolMetricInfo[(k - kScalarMetricCount) % kPoolMetricCount]));
    }
    for (std::size_t m = 0; m < kScalarMetricCount; ++m) {
      // A difference is defined where both values are: its count is its moments'.
      const Moments& d = difference_moments_[p * kScalarMetricCount + m];
      r.difference_summary[p * kScalarMetricCount + m] = summarize_moments(d);
    }
  }
  r.goal_summary.assign(points_ * goals_, GoalSummary{});
  for (std::size_t i = 0; i < goal_met_.size(); ++i)
    r.goal_summary[i] = summarize_goal(goal_met_[i], replications_);
}

std::string SummaryFold::serialize() const {
  std::string out(kFoldMagic);
  for (const uint64_t v : {uint64_t{points_}, uint64_t{columns_}, uint64_t{goals_}, next_,
                           replications_, uint64_t{ended_partial_block_}})
    put<uint64_t>(out, v);
  for (const std::vector<Moments>* list : {&moments_, &difference_moments_})
    for (const Moments& m : *list) {
      put<double>(out, m.n);
      put<double>(out, m.mean);
      put<double>(out, m.m2);
    }
  for (const QuantileSketch& sketch : sketches_) sketch.serialize(out);
  for (const uint64_t met : goal_met_) put<uint64_t>(out, met);
  return out;
}

SummaryFold SummaryFold::restore(const RunResults& described, const std::string& bytes) {
  const std::size_t magic = sizeof(kFoldMagic) - 1;
  if (bytes.compare(0, magic, kFoldMagic) != 0)
    throw std::invalid_argument("not a gpucap summary fold (it does not start with its header)");
  std::size_t pos = magic;
  SummaryFold f(described);
  if (take<uint64_t>(bytes, pos) != f.points_ || take<uint64_t>(bytes, pos) != f.columns_ ||
      take<uint64_t>(bytes, pos) != f.goals_)
    throw std::invalid_argument("summary fold: of another run (points, pools or goals differ)");
  f.next_ = take<uint64_t>(bytes, pos);
  f.replications_ = take<uint64_t>(bytes, pos);
  f.ended_partial_block_ = take<uint64_t>(bytes, pos) != 0;
  if (f.next_ != described.first_replication + f.replications_ ||
      f.replications_ > described.replications)
    throw std::invalid_argument("summary fold: its replications do not fit this run");
  for (std::vector<Moments>* list : {&f.moments_, &f.difference_moments_})
    for (Moments& m : *list) {
      m.n = take<double>(bytes, pos);
      m.mean = take<double>(bytes, pos);
      m.m2 = take<double>(bytes, pos);
      if (!(m.n >= 0 && m.n <= static_cast<double>(f.replications_)))
        throw std::invalid_argument("summary fold: a count exceeds its replications");
    }
  for (QuantileSketch& sketch : f.sketches_) {
    sketch = QuantileSketch::deserialize(bytes, pos);
    if (sketch.count() > f.replications_)
      throw std::invalid_argument("summary fold: a sketch holds more values than replications");
  }
  for (uint64_t& met : f.goal_met_) {
    met = take<uint64_t>(bytes, pos);
    if (met > f.replications_)
      throw std::invalid_argument("summary fold: a goal met more often than run");
  }
  if (pos != bytes.size()) throw std::invalid_argument("summary fold: bytes left after its end");
  return f;
}

}  // namespace gpucap
