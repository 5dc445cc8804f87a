// gpucap: how much host memory a run will take, checked before anything is allocated.
//
// A run keeps every replication's row (8 bytes per scalar metric, per pool metric and per time
// series bin), one engine arena per CPU thread, and, when the results are written to a file,
// the file's image while it is built. run_points refuses (std::invalid_argument, CLI exit 2)
// a run whose estimate exceeds the memory this process can use: MemAvailable, the cgroup's
// limit, or GPUCAP_MEMORY_LIMIT (e.g. "8GiB"), the smallest.
#pragma once
#include <cstdint>
#include <string>

namespace gpucap {

/// Bytes a run will hold at its peak, by part.
struct MemoryEstimate {
  uint64_t rows_bytes = 0;    ///< per-replication rows (scalars, pool values, time series)
  uint64_t arenas_bytes = 0;  ///< engine state, one arena per CPU thread
  uint64_t output_bytes = 0;  ///< the results file's image, when one is written
  /// Summaries folded chunk by chunk (--rows none | first N): block moments and quantile
  /// sketches; 0 when every row is kept.
  uint64_t summaries_bytes = 0;
  uint64_t total_bytes() const;
  /// "3.1 GiB (rows 2.8 GiB, engine state 12 MiB, output file 0.3 GiB)"
  std::string describe() const;
};

/// The estimate for `points` x `replications` rows of `pools` pools and `bins` time-series bins
/// each, `threads` arenas of `arena_bytes`, and a file image when `writes_file`. Saturates at
/// UINT64_MAX instead of overflowing.
MemoryEstimate estimate_run_memory(uint64_t points, uint64_t replications, uint64_t pools,
                                   uint64_t bins, uint64_t arena_bytes, uint64_t threads,
                                   bool writes_file);

/// The estimate for a run that keeps `kept_rows` rows per point of its `points` and summarizes
/// the rest in chunks of `chunk_replications` (streaming_summary.hpp): the kept rows, one
/// chunk's rows, the summaries (sketches estimated at 4 octaves of buckets per column: a guess,
/// they grow with the values' range, not with replications) and a file image of the kept rows.
MemoryEstimate estimate_streaming_run_memory(uint64_t points, uint64_t kept_rows,
                                             uint64_t chunk_replications, uint64_t pools,
                                             uint64_t bins, uint64_t arena_bytes, uint64_t threads,
                                             bool writes_file);

/// Replications per chunk of a streaming run when the caller gives none: whole blocks of 256
/// replications holding about 32 MiB of rows of `row_bytes` each (256 MiB on a device, whose
/// launches cost more), at least one block.
uint64_t default_chunk_replications(uint64_t row_bytes, bool on_device);

/// Memory this process may still use, in bytes: the smallest of /proc/meminfo's MemAvailable,
/// the cgroup (v2 or v1) limit minus its usage, and GPUCAP_MEMORY_LIMIT when set. UINT64_MAX
/// when none can be read. Throws std::invalid_argument when GPUCAP_MEMORY_LIMIT is malformed.
uint64_t available_host_memory_bytes();

}  // namespace gpucap
