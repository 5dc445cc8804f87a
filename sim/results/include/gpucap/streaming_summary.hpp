// gpucap: the summaries of a run built chunk by chunk, so that its rows need not be kept
// (`gpucap run --rows none`, Python rows="none", streaming Dask sweeps).
//
// A chunk is consecutive replications of every point, starting at a multiple of kMomentBlock.
// summarize_chunk reduces its rows to a ChunkSummary:
//   - per (point, column: the scalar metrics, then the pools' metrics) the moments of each block
//     of kMomentBlock replications (moments.hpp) and a quantile sketch (quantile_sketch.hpp);
//   - per (point, scalar metric) the block moments of the paired difference from point 0;
//   - per (point, goal) how many replications met the goal.
// A SummaryFold takes chunk summaries in replication order and merges the block moments one
// block at a time, in the order column_moments merges them: its means, deviations, intervals,
// paired differences from point 0 and goal counts are the same bits as summaries of all the
// rows, however the replications were cut into chunks and wherever they ran. Its percentiles
// come from the sketches: within QuantileSketch::kRelativeError (< 0.1%) of the exact ones.
//
// Memory: a fold holds one Moments and one sketch per column (the sketch does not grow with
// replications); a chunk summary 24 bytes per column per block of 256 replications.
//
//   SummaryFold fold(described);                  // describe_run: points, pools, goals
//   for (each chunk of rows) fold.add(summarize_chunk(chunk_rows, threads));
//   fold.finish(described);                       // fills the summaries; rows stay as they are
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpucap/moments.hpp"
#include "gpucap/quantile_sketch.hpp"
#include "gpucap/results.hpp"

namespace gpucap {

/// What summarize_chunk keeps of replications [first, first + count) of every point.
struct ChunkSummary {
  std::size_t points = 0;
  std::size_t columns = 0;  ///< kScalarMetricCount + pools * kPoolMetricCount
  std::size_t goals = 0;
  uint64_t first = 0, count = 0;
  std::vector<Moments> blocks;             ///< [point][block][column]
  std::vector<Moments> difference_blocks;  ///< [point][block][scalar metric]: point p minus 0
  std::vector<QuantileSketch> sketches;    ///< [point][column]
  std::vector<uint64_t> goal_met;          ///< [point][goal]: replications that met it

  std::size_t block_count() const { return (count + kMomentBlock - 1) / kMomentBlock; }

  /// Appends `next`, whose replications start where these end (a chunk that ends before its
  /// last block is full must be the last); throws std::invalid_argument otherwise.
  void append(const ChunkSummary& next);

  /// A portable byte form (for a cluster's workers to send back) and its inverse, which checks
  /// every size and count (std::invalid_argument: what is wrong).
  std::string serialize() const;
  static ChunkSummary deserialize(const std::string& bytes);
};

/// The summary of no values of replications [described.first_replication, +
/// described.replications) of its points, pools and goals: zero moments, empty sketches, no
/// goal met. Whoever reduces the rows (summarize_chunk, a device backend) adds to it.
ChunkSummary empty_chunk_summary(const RunResults& described);

/// The summary of `rows`: a RunResults with every row of its replications (all_rows()), whose
/// first_replication is a multiple of kMomentBlock. Columns are reduced on up to `threads`
/// threads (0: every core), with the same bits on any count.
ChunkSummary summarize_chunk(const RunResults& rows, unsigned threads);

/// Chunk summaries folded in replication order (see the file comment).
class SummaryFold {
 public:
  /// A fold for the points, pools and goals of `described`, starting at its first_replication.
  explicit SummaryFold(const RunResults& described);

  /// Adds the next chunk: it must start where the last one ended, have the fold's shape, and
  /// the last one must have ended on a whole block. Throws std::invalid_argument otherwise.
  void add(const ChunkSummary& chunk);

  /// Replications folded so far, per point.
  uint64_t replications() const { return replications_; }

  /// Fills r's summary, pool_summary, goal_summary and difference_summary from the fold
  /// (r.replications must be replications()); leaves r's rows as they are.
  void finish(RunResults& r) const;

  /// The fold's state in a portable byte form (a run's journal keeps it after every chunk:
  /// its size does not grow with replications), and a fold of `described` restored from it.
  /// restore throws std::invalid_argument when the bytes are not a fold of that shape.
  std::string serialize() const;
  static SummaryFold restore(const RunResults& described, const std::string& bytes);

 private:
  std::size_t points_, columns_, goals_;
  uint64_t next_;  ///< the next replication expected
  uint64_t replications_ = 0;
  bool ended_partial_block_ = false;
  std::vector<Moments> moments_;             ///< [point][column]
  std::vector<Moments> difference_moments_;  ///< [point][scalar metric]
  std::vector<QuantileSketch> sketches_;     ///< [point][column]
  std::vector<uint64_t> goal_met_;           ///< [point][goal]
};

}  // namespace gpucap
