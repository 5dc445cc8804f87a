// gpucap: the results file's integrity (see hdf5_integrity.hpp).
#include "hdf5_integrity.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <type_traits>
#include <unistd.h>

namespace gpucap::hdf5_detail {
namespace {

/// The hash of both checksums: words are mixed with a 64-bit multiply-xorshift; a changed bit
/// anywhere changes the result with probability 1 - 2^-64.
class ContentHash {
 public:
  void word(uint64_t w) {
    state_ = (state_ ^ w) * 0x9E3779B97F4A7C15ull;
    state_ ^= state_ >> 29;
  }
  void number(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    word(bits);
  }
  void text(const std::string& s) {
    word(s.size());
    for (std::size_t i = 0; i < s.size(); i += 8) {
      uint64_t w = 0;
      for (std::size_t k = 0; k < 8 && i + k < s.size(); ++k)
        w |= static_cast<uint64_t>(static_cast<unsigned char>(s[i + k])) << (8 * k);
      word(w);
    }
  }
  void numbers(const std::vector<double>& values) {
    word(values.size());
    for (double v : values) number(v);
  }
  void summaries(const std::vector<MetricSummary>& values) {
    word(values.size());
    for (const MetricSummary& s : values) {
      word(s.n);
      for (double v : {s.mean, s.std, s.ci95_low, s.ci95_high, s.p5, s.p50, s.p95}) number(v);
    }
  }
  uint64_t value() const { return state_ ^ (state_ >> 31); }

 private:
  uint64_t state_ = 0x6A09E667F3BCC908ull;
};

uint64_t bytes_checksum(const char* data, std::size_t size) {
  ContentHash h;
  h.word(size);
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t w;
    std::memcpy(&w, data + i, 8);
    h.word(w);
  }
  uint64_t tail = 0;
  for (std::size_t k = 0; i + k < size; ++k)
    tail |= static_cast<uint64_t>(static_cast<unsigned char>(data[i + k])) << (8 * k);
  h.word(tail);
  return h.value();
}

/// The run's provenance and shape, the pool names and the sweep grid.
void hash_description(ContentHash& h, const RunResults& r) {
  for (const std::string* s : {&r.gpucap_version, &r.scenario_name, &r.scenario_text,
                               &r.scenario_original_text, &r.backend, &r.device})
    h.text(*s);
  if (!r.backend_choice.empty()) h.text(r.backend_choice);  // files before it keep their sum
  h.word(r.scenario_overrides.size());
  for (const auto& [path, value] : r.scenario_overrides) {
    h.text(path);
    h.text(value);
  }
  for (uint64_t v : {r.seed, static_cast<uint64_t>(r.points), static_cast<uint64_t>(r.replications),
                     r.first_replication, static_cast<uint64_t>(static_cast<int64_t>(r.threads)),
                     static_cast<uint64_t>(r.timeseries_bins)})
    h.word(v);
  h.number(r.wall_time_s);
  h.number(r.timeseries_step_s);
  h.word(r.pool_names.size());
  for (const std::string& name : r.pool_names) h.text(name);
  h.word(r.sweep.size());
  for (const SweepParameter& p : r.sweep) {
    h.text(p.path);
    h.word(p.values.size());
    for (const std::string& v : p.values) h.text(v);
  }
}

/// The entries of `all` ([...][metric], `count` metrics) but those of the metrics in `absent`
/// (columns a file written before them lacks).
template <typename T>
std::vector<T> present_columns(const std::vector<T>& all, std::size_t count,
                               const std::vector<std::size_t>& absent) {
  std::vector<T> present;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (std::find(absent.begin(), absent.end(), i % count) == absent.end()) present.push_back(all[i]);
  return present;
}

/// Hashes the values of `all` ([...][metric], `count` metrics), without the columns of the
/// metrics in `absent` (no copy when there are none: the rows may be most of memory).
template <typename T>
void hash_columns(ContentHash& h, const std::vector<T>& all, std::size_t count,
                  const std::vector<std::size_t>& absent) {
  if constexpr (std::is_same_v<T, double>) {
    if (absent.empty()) h.numbers(all); else h.numbers(present_columns(all, count, absent));
  } else {
    if (absent.empty()) h.summaries(all); else h.summaries(present_columns(all, count, absent));
  }
}

/// The rows and the summaries, without the columns of `absent` metrics.
void hash_rows(ContentHash& h, const RunResults& r, const AbsentMetrics& absent) {
  hash_columns(h, r.scalars, kScalarMetricCount, absent.scalar);
  hash_columns(h, r.pool_values, kPoolMetricCount, absent.pool);
  h.numbers(r.timeseries);
  hash_columns(h, r.summary, kScalarMetricCount, absent.scalar);
  hash_columns(h, r.pool_summary, kPoolMetricCount, absent.pool);
}

/// What formats 3 to 5 added: data files, goals and the stopping rule, rows kept.
void hash_later_formats(ContentHash& h, const RunResults& r, int format,
                        const AbsentMetrics& absent) {
  if (format >= 3) {
    h.word(r.data_files.size());
    for (const DataFileRecord& f : r.data_files) {
      h.text(f.path);
      h.text(f.resolved_path);
      h.word(f.size_bytes);
      h.text(f.sha256);
    }
  }
  // Version 4's goals and stopping rule; a file with neither hashes as version 3 did.
  if (format >= 4 && (!r.stopping_rule.empty() || !r.goals.empty())) {
    h.text(r.stopping_rule);
    h.word(r.goals.size());
    for (const GoalSpec& g : r.goals) {
      h.text(g.name);
      h.text(g.definition());
      h.text(g.description);
      h.number(g.target);
    }
    for (uint8_t met : r.goal_met) h.word(met);
  }
  // Version 5's kept rows: a file that kept them all hashes as version 4 did.
  if (format >= 5 && !r.all_rows()) {
    h.word(r.rows_per_point());
    hash_columns(h, r.difference_summary, kScalarMetricCount, absent.scalar);
    for (const GoalSummary& g : r.goal_summary) h.word(g.met);
  }
}

/// The per-job records (/jobs); a file without them hashes as before.
void hash_jobs(ContentHash& h, const RunResults& r) {
  if (r.job_replications == 0) return;
  h.word(r.job_replications);
  h.word(r.job_classes.size());
  for (const std::string& name : r.job_classes) h.text(name);
  h.word(r.jobs.size());
  for (const JobRecord& j : r.jobs) {
    for (uint64_t w : {j.point, j.replication, j.job, static_cast<uint64_t>(j.job_class),
                       static_cast<uint64_t>(static_cast<int64_t>(j.pool)),
                       static_cast<uint64_t>(j.runs), static_cast<uint64_t>(j.preemptions)})
      h.word(w);
    for (double v : {j.arrival_s, j.start_s, j.end_s, j.cost_usd}) h.number(v);
  }
  // The trace rows (a later column): hashed only when some job has one, so that a file
  // written before them (all 0 when read) hashes as it did.
  const bool rows = std::any_of(r.jobs.begin(), r.jobs.end(),
                                [](const JobRecord& j) { return j.trace_row != 0; });
  if (rows)
    for (const JobRecord& j : r.jobs) h.word(j.trace_row);
}

}  // namespace

uint64_t content_checksum(const RunResults& r, int format, const AbsentMetrics& absent) {
  ContentHash h;
  hash_description(h, r);
  hash_rows(h, r, absent);
  hash_later_formats(h, r, format, absent);
  hash_jobs(h, r);
  return h.value();
}

// The file's checksum, in the user block (the first kUserBlockBytes bytes; see
// gpucap/hdf5_layout.hpp). The checksum covers every byte after the user block.

constexpr const auto& kUserBlockMagic = kHdf5UserBlockMagic;

/// Fills the user block (the first kUserBlockBytes of `image`, which HDF5 left as zeros).
void write_user_block(char* image, std::size_t size) {
  char header[kUserBlockBytes] = {};
  std::snprintf(header, sizeof header, "%schecksum: %016llx\nbytes: %llu\n", kUserBlockMagic,
                static_cast<unsigned long long>(
                    bytes_checksum(image + kUserBlockBytes, size - kUserBlockBytes)),
                static_cast<unsigned long long>(size));
  std::memcpy(image, header, sizeof header);
}

/// True when `image` starts with gpucap's user block and its checksum and size hold; throws
/// when the user block is there but they do not; false when there is none (a file written
/// before format 2, or rewritten by another tool).
bool verify_user_block(const Context& c, const std::vector<char>& image) {
  const std::size_t magic = sizeof kUserBlockMagic - 1;
  if (image.size() < kUserBlockBytes || std::memcmp(image.data(), kUserBlockMagic, magic) != 0)
    return false;
  const std::string header(image.data() + magic, image.data() + kUserBlockBytes);
  unsigned long long stored = 0, size = 0;
  if (std::sscanf(header.c_str(), "checksum: %16llx\nbytes: %llu\n", &stored, &size) != 2)
    c.fail("the file is corrupt: its header is damaged");
  if (size != image.size())
    c.fail("the file is corrupt or truncated: it has " + std::to_string(image.size()) +
           " bytes, its header says " + std::to_string(size));
  const uint64_t computed =
      bytes_checksum(image.data() + kUserBlockBytes, image.size() - kUserBlockBytes);
  if (computed != stored) {
    char detail[96];
    std::snprintf(detail, sizeof detail, "stored %016llx, computed %016llx", stored,
                  static_cast<unsigned long long>(computed));
    c.fail(std::string("the file is corrupt: its bytes do not match its checksum (") + detail +
           "); it was damaged or changed after gpucap wrote it");
  }
  return true;
}

/// True when an HDF5 superblock signature is at byte 0 or at a power of two from 512 on.
bool has_hdf5_signature(const std::vector<char>& image) {
  static const char kSignature[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  for (std::size_t at = 0; at + 8 <= image.size(); at = at == 0 ? 512 : at * 2)
    if (std::memcmp(image.data() + at, kSignature, 8) == 0) return true;
  return false;
}

/// The whole file at `path` (a regular file), as bytes.
std::vector<char> read_whole_file(const Context& c, const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) c.fail(std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    c.fail("not a regular file");
  }
  std::vector<char> bytes;
  bytes.reserve(static_cast<std::size_t>(st.st_size));
  char block[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, block, sizeof block);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      c.fail(std::strerror(error));
    }
    if (n == 0) break;
    bytes.insert(bytes.end(), block, block + n);
  }
  ::close(fd);
  return bytes;
}

}  // namespace gpucap::hdf5_detail
