// gpucap: data files (traces, samples, catalogs, availability and price traces) read once per
// process and shared.
//
// read_data_file returns the file's text with its size and SHA-256, from a process-wide cache:
// every sweep point, every scenario loaded again (Python, Dask tasks on one worker) gets the
// same object, and what was parsed from it (a CSV table's index, its number columns) is kept on
// it (DataFile::derived), so a file is read and parsed once.
//
// Validity rule. Each call opens the file and takes its stamp (device, inode, size, mtime,
// ctime; FileStamp), so the checks of read_input_file (a regular file within its budget) run
// every time. A cached entry is used when its stamp equals the file's and
//   - it is settled: its ctime was at least kSettleNs before the moment it was read, so a write
//     after that read would carry a later ctime (every write sets ctime from the clock; 2 s
//     covers coarse filesystem clocks); or else
//   - the file's bytes, read again, have the same SHA-256 (a file written in the last 2 s is
//     re-hashed at each use, and still parsed once).
// A file that changed while it was read (its stamp moved, or fewer bytes than its size) is
// returned but not cached.
//
// Memory: the cache holds at most budget_bytes() of texts and derived parses (default 1 GiB,
// environment variable GPUCAP_DATA_CACHE_SIZE, e.g. "4GiB", or "0" for no cache); the least
// recently used files go first. An entry dropped while in use stays alive for its holders.
// Thread-safe: concurrent calls for one file read and parse it once.
#pragma once
#include <atomic>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gpucap/input_file.hpp"

namespace gpucap {

/// Tells the cache that a derived parse grew an entry, so that it trims to its budget.
void trim_data_file_cache();

/// One data file as read: its text and what proves it.
class DataFile {
 public:
  /// `sha256`: the digest, or its computation still running on another thread (a large
  /// file is hashed while it is parsed); sha256() waits for it.
  DataFile(std::string text, uint64_t size_bytes, std::shared_future<std::string> sha256,
           const FileStamp& stamp)
      : text_(std::move(text)), size_bytes_(size_bytes), stamp_(stamp),
        sha256_(std::move(sha256)) {}
  ~DataFile() {
    if (sha256_.valid()) sha256_.wait();  // the hash may read text_: it ends first
  }

  /// The content, lone CR line breaks turned into LF (as read_input_file returns it).
  const std::string& text() const { return text_; }
  /// Bytes read from the disk (before any line-break normalization).
  uint64_t size_bytes() const { return size_bytes_; }
  /// SHA-256 of those bytes, 64 lowercase hex digits (what sha256sum prints for the file).
  const std::string& sha256() const { return sha256_.get(); }
  const FileStamp& stamp() const { return stamp_; }

  /// What `make()` parses from this file, made once per `key` and kept while the file is:
  /// `make` returns std::shared_ptr<const T> and `bytes_of(const T&)` its memory, counted in the
  /// cache's budget. A `make` that throws keeps nothing (the next call tries again). Calls for
  /// other keys may nest inside `make`; the same key may not.
  template <class T, class Make, class Bytes>
  std::shared_ptr<const T> derived(const std::string& key, Make make, Bytes bytes_of) const {
    const std::shared_ptr<Slot> slot = slot_for(key);
    std::lock_guard<std::mutex> lock(slot->mutex);
    if (!slot->value) {
      std::shared_ptr<const T> value = make();
      derived_bytes_ += bytes_of(*value);
      slot->value = value;
      trim_data_file_cache();
      return value;
    }
    return std::static_pointer_cast<const T>(slot->value);
  }

  /// Sets the digest's computation (read_data_file, before it shares the object).
  void set_digest(std::shared_future<std::string> sha256) { sha256_ = std::move(sha256); }

  /// Memory this entry holds: the text and the derived parses, in bytes.
  uint64_t memory_bytes() const { return text_.capacity() + derived_bytes_.load(); }

 private:
  struct Slot {
    std::mutex mutex;
    std::shared_ptr<const void> value;
  };
  std::shared_ptr<Slot> slot_for(const std::string& key) const;

  std::string text_;
  uint64_t size_bytes_;
  FileStamp stamp_;
  std::shared_future<std::string> sha256_;  ///< after text_: destroyed (waited for) first
  mutable std::mutex slots_mutex_;
  mutable std::map<std::string, std::shared_ptr<Slot>> slots_;
  mutable std::atomic<uint64_t> derived_bytes_{0};
};

/// The data file `path`, from the cache when its entry is valid (see above), else read within
/// `max_bytes`. Messages as read_input_file's (`what`, `limit_hint`); throws InputFileError.
std::shared_ptr<const DataFile> read_data_file(const std::string& path, uint64_t max_bytes,
                                               const std::string& what,
                                               const std::string& limit_hint);

/// A data file a run used, for its results' provenance.
struct DataFileRecord {
  std::string path;           ///< as the scenario names it
  std::string resolved_path;  ///< absolute, links resolved (as given when that fails)
  uint64_t size_bytes = 0;    ///< bytes read
  std::string sha256;         ///< SHA-256 of those bytes, 64 lowercase hex digits
  bool operator==(const DataFileRecord& o) const {
    return path == o.path && resolved_path == o.resolved_path && size_bytes == o.size_bytes &&
           sha256 == o.sha256;
  }
};

/// The record of `file`, read from `resolved` (the path opened) as `path` named it.
DataFileRecord data_file_record(const DataFile& file, const std::string& path,
                                const std::string& resolved);

/// Appends to `records` each of `more` not in it yet (order of first use kept).
void merge_data_file_records(std::vector<DataFileRecord>& records,
                             const std::vector<DataFileRecord>& more);

/// Counters of the process-wide cache, for tests and benchmarks.
struct DataFileCacheStats {
  uint64_t reads = 0;        ///< files read from disk and hashed (a miss)
  uint64_t hits = 0;         ///< calls answered from the cache without a parse
  uint64_t rehashes = 0;     ///< hits on unsettled entries, verified by their SHA-256
  uint64_t entries = 0;      ///< files held now
  uint64_t bytes = 0;        ///< memory they hold (texts and derived parses)
  uint64_t budget_bytes = 0; ///< the most it holds
};
DataFileCacheStats data_file_cache_stats();

/// Sets the cache's budget in bytes (0: no cache) and trims to it.
void set_data_file_cache_budget(uint64_t bytes);

/// Empties the cache and zeroes its counters (tests; entries in use stay alive for holders).
void clear_data_file_cache();

}  // namespace gpucap
