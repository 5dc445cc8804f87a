// gpucap: host memory estimates (see memory_estimate.hpp).
#include "gpucap/memory_estimate.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>

#include "gpucap/input_file.hpp"
#include "gpucap/metrics.hpp"

namespace gpucap {
namespace {

constexpr uint64_t kUnknown = std::numeric_limits<uint64_t>::max();

/// a * b, or UINT64_MAX when it overflows.
uint64_t saturating_mul(uint64_t a, uint64_t b) {
  if (a != 0 && b > kUnknown / a) return kUnknown;
  return a * b;
}

uint64_t saturating_add(uint64_t a, uint64_t b) { return b > kUnknown - a ? kUnknown : a + b; }

/// The first line of a small system file as a number; kUnknown when absent or not a number
/// ("max" in a cgroup file means no limit).
uint64_t read_number_file(const char* path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return kUnknown;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(line.c_str(), &end, 10);
  if (end == line.c_str()) return kUnknown;
  return static_cast<uint64_t>(v);
}

/// MemAvailable of /proc/meminfo, in bytes.
uint64_t mem_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  unsigned long long kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return saturating_mul(kib, 1024);
  return kUnknown;
}

/// The cgroup's limit minus its usage (v2, then v1), in bytes.
uint64_t cgroup_headroom() {
  uint64_t limit = read_number_file("/sys/fs/cgroup/memory.max");
  uint64_t usage = read_number_file("/sys/fs/cgroup/memory.current");
  if (limit == kUnknown) {
    limit = read_number_file("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    usage = read_number_file("/sys/fs/cgroup/memory/memory.usage_in_bytes");
  }
  if (limit == kUnknown || limit >= (uint64_t{1} << 60)) return kUnknown;  // no limit set
  if (usage == kUnknown) usage = 0;
  return limit > usage ? limit - usage : 0;
}

std::string part(const char* name, uint64_t bytes) {
  return std::string(name) + " " + (bytes == kUnknown ? "too much to count" : format_bytes(bytes));
}

}  // namespace

uint64_t MemoryEstimate::total_bytes() const {
  return saturating_add(saturating_add(saturating_add(rows_bytes, arenas_bytes), output_bytes),
                        summaries_bytes);
}

std::string MemoryEstimate::describe() const {
  const uint64_t total = total_bytes();
  std::string text = (total == kUnknown ? std::string("more than 16 EiB") : format_bytes(total)) +
                     " (" + part("result rows", rows_bytes) + ", " +
                     part("engine state", arenas_bytes);
  if (summaries_bytes > 0) text += ", " + part("summaries", summaries_bytes);
  if (output_bytes > 0) text += ", " + part("output file image", output_bytes);
  return text + ")";
}

MemoryEstimate estimate_run_memory(uint64_t points, uint64_t replications, uint64_t pools,
                                   uint64_t bins, uint64_t arena_bytes, uint64_t threads,
                                   bool writes_file) {
  const uint64_t values_per_row =
      saturating_add(saturating_add(kScalarMetricCount, saturating_mul(pools, kPoolMetricCount)),
                     saturating_mul(pools, bins));
  MemoryEstimate e;
  e.rows_bytes = saturating_mul(
      saturating_mul(saturating_mul(points, replications), values_per_row), sizeof(double));
  e.arenas_bytes = saturating_mul(arena_bytes, threads);
  // The file holds the rows once (compression is not counted on), plus the copy of one
  // metric's column that the writer transposes at a time.
  e.output_bytes = writes_file ? e.rows_bytes : 0;
  return e;
}

MemoryEstimate estimate_streaming_run_memory(uint64_t points, uint64_t kept_rows,
                                             uint64_t chunk_replications, uint64_t pools,
                                             uint64_t bins, uint64_t arena_bytes, uint64_t threads,
                                             bool writes_file) {
  MemoryEstimate e = estimate_run_memory(points, saturating_add(kept_rows, chunk_replications),
                                         pools, bins, arena_bytes, threads, false);
  if (writes_file)
    e.output_bytes = estimate_run_memory(points, kept_rows, pools, bins, 0, 0, false).rows_bytes;
  // Per column: a chunk's block moments (and its differences'), and two sketches (the chunk's
  // and the fold's) of about 4 octaves of 512 buckets of 24 bytes.
  const uint64_t columns = saturating_add(saturating_mul(2, kScalarMetricCount),
                                          saturating_mul(pools, kPoolMetricCount));
  const uint64_t blocks = (chunk_replications + 255) / 256;
  const uint64_t per_column = saturating_add(saturating_mul(blocks, 24), 2 * 4 * 512 * 24);
  e.summaries_bytes = saturating_mul(saturating_mul(points, columns), per_column);
  return e;
}

uint64_t default_chunk_replications(uint64_t row_bytes, bool on_device) {
  const uint64_t budget = (on_device ? uint64_t{256} : uint64_t{32}) << 20;
  const uint64_t blocks = std::max<uint64_t>(1, budget / std::max<uint64_t>(1, row_bytes) / 256);
  return blocks * 256;
}

uint64_t available_host_memory_bytes() {
  uint64_t available = std::min(mem_available(), cgroup_headroom());
  if (const char* limit = std::getenv("GPUCAP_MEMORY_LIMIT")) {
    try {
      available = std::min(available, parse_byte_size(limit));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("GPUCAP_MEMORY_LIMIT: ") + e.what());
    }
  }
  return available;
}

}  // namespace gpucap
