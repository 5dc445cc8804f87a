// gpucap: the process-wide cache of data files (see data_file.hpp for its validity rule).
#include "gpucap/data_file.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits.h>
#include <cstring>
#include <ctime>
#include <future>
#include <list>
#include <stdexcept>
#include <unordered_map>

#include "gpucap/sha256.hpp"

namespace gpucap {
namespace {

/// A file whose ctime is at least this long before the moment it was read is settled: a later
/// write would set a later ctime (2 s: beyond the coarsest clock tick of local filesystems).
constexpr int64_t kSettleNs = 2'000'000'000;
constexpr uint64_t kDefaultBudgetBytes = uint64_t{1} << 30;

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

struct StampHash {
  std::size_t operator()(const FileStamp& s) const {
    uint64_t h = s.identity.device * 0x9E3779B97F4A7C15ull;
    for (uint64_t w : {s.identity.inode, s.size_bytes, static_cast<uint64_t>(s.mtime_ns),
                       static_cast<uint64_t>(s.ctime_ns)})
      h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>(h ^ (h >> 32));
  }
};

/// A cached file: the parsed entry and whether it is settled (see kSettleNs). `mutex` makes
/// concurrent first reads of one file wait for a single read.
struct Slot {
  std::mutex mutex;
  std::shared_ptr<const DataFile> file;
  bool settled = false;
  std::list<FileStamp>::iterator lru;  ///< its place in Cache::lru
};

/// The cache: slots by stamp, least recently used first in `lru`.
struct Cache {
  std::mutex mutex;
  std::unordered_map<FileStamp, std::shared_ptr<Slot>, StampHash> slots;
  std::list<FileStamp> lru;
  uint64_t budget_bytes = kDefaultBudgetBytes;
  DataFileCacheStats stats;

  Cache() {
    if (const char* env = std::getenv("GPUCAP_DATA_CACHE_SIZE")) {
      const std::string value = env;
      try {
        budget_bytes = value == "0" ? 0 : parse_byte_size(value);
      } catch (const std::invalid_argument&) {
        // An unreadable setting keeps the default: a cache size never stops a run.
      }
    }
  }

  /// Drops least recently used entries until the held memory fits the budget. Holds `mutex`.
  void trim_locked() {
    uint64_t total = 0;
    for (const auto& [stamp, slot] : slots)
      if (slot->file) total += slot->file->memory_bytes();
    while (total > budget_bytes && !lru.empty()) {
      const auto it = slots.find(lru.front());
      lru.pop_front();
      if (it == slots.end()) continue;
      if (it->second->file) total -= it->second->file->memory_bytes();
      slots.erase(it);
    }
    stats.entries = slots.size();
    stats.bytes = total;
  }
};

Cache& cache() {
  static Cache* instance = new Cache();  // never destroyed: safe to use from exit handlers
  return *instance;
}

/// Files at least this large are hashed on another thread while they are parsed.
constexpr std::size_t kHashInBackgroundBytes = std::size_t{1} << 20;

/// Reads `file` whole and hashes the bytes as read; the text has its line breaks normalized.
std::shared_ptr<const DataFile> read_and_hash(InputFile& file) {
  std::string bytes = file.read_all();
  const uint64_t size = bytes.size();
  const bool lone_cr = [&] {
    for (const char* p = bytes.data(), *end = p + bytes.size();
         (p = static_cast<const char*>(std::memchr(p, '\r', static_cast<std::size_t>(end - p))));
         ++p)
      if (p + 1 == end || p[1] != '\n') return true;
    return false;
  }();
  if (size < kHashInBackgroundBytes) {
    std::promise<std::string> digest;
    digest.set_value(sha256_hex(bytes.data(), bytes.size()));
    normalize_line_breaks(bytes);
    return std::make_shared<const DataFile>(std::move(bytes), size, digest.get_future().share(),
                                            file.stamp());
  }
  if (lone_cr) {
    // The text differs from the bytes: the hash keeps the bytes, the parse gets a copy.
    auto raw = std::make_shared<const std::string>(bytes);
    normalize_line_breaks(bytes);
    std::shared_future<std::string> digest =
        std::async(std::launch::async, [raw] { return sha256_hex(raw->data(), raw->size()); })
            .share();
    return std::make_shared<const DataFile>(std::move(bytes), size, std::move(digest),
                                            file.stamp());
  }
  // The text is the bytes: hashed in place (read-only, as the parse reads it); ~DataFile waits.
  auto data = std::make_shared<DataFile>(std::move(bytes), size, std::shared_future<std::string>(),
                                         file.stamp());
  const DataFile* target = data.get();
  data->set_digest(
      std::async(std::launch::async,
                 [target] { return sha256_hex(target->text().data(), target->text().size()); })
          .share());
  return data;
}

}  // namespace

std::shared_ptr<DataFile::Slot> DataFile::slot_for(const std::string& key) const {
  std::lock_guard<std::mutex> lock(slots_mutex_);
  std::shared_ptr<Slot>& slot = slots_[key];
  if (!slot) slot = std::make_shared<Slot>();
  return slot;
}

std::shared_ptr<const DataFile> read_data_file(const std::string& path, uint64_t max_bytes,
                                               const std::string& what,
                                               const std::string& limit_hint) {
  InputFile file(path, max_bytes, what, limit_hint);
  const FileStamp stamp = file.stamp();
  Cache& c = cache();
  std::shared_ptr<Slot> slot;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    if (c.budget_bytes == 0) {
      ++c.stats.reads;
      slot = nullptr;
    } else {
      std::shared_ptr<Slot>& found = c.slots[stamp];
      if (!found) {
        found = std::make_shared<Slot>();
        c.lru.push_back(stamp);
        found->lru = std::prev(c.lru.end());
      } else {
        c.lru.splice(c.lru.end(), c.lru, found->lru);  // most recently used
      }
      slot = found;
    }
  }
  if (!slot) return read_and_hash(file);

  std::lock_guard<std::mutex> slot_lock(slot->mutex);
  const int64_t read_at_ns = now_ns();
  if (slot->file && slot->settled) {
    std::lock_guard<std::mutex> lock(c.mutex);
    ++c.stats.hits;
    return slot->file;
  }
  std::shared_ptr<const DataFile> fresh;
  try {
    fresh = read_and_hash(file);
  } catch (...) {
    // No entry for a file that could not be read (it grew past its budget, or an I/O error).
    std::lock_guard<std::mutex> lock(c.mutex);
    const auto it = c.slots.find(stamp);
    if (it != c.slots.end() && it->second == slot && !slot->file) {
      c.lru.erase(slot->lru);
      c.slots.erase(it);
    }
    throw;
  }
  // Cached only when nothing changed while it was read.
  const bool consistent = fresh->size_bytes() == stamp.size_bytes && file.stamp_now() == stamp;
  const bool settled = consistent && stamp.ctime_ns <= read_at_ns - kSettleNs;
  std::lock_guard<std::mutex> lock(c.mutex);
  if (slot->file && consistent && fresh->sha256() == slot->file->sha256()) {
    ++c.stats.hits;
    ++c.stats.rehashes;
    slot->settled = settled;
    return slot->file;  // verified: its parses stay valid
  }
  ++c.stats.reads;
  if (!consistent) {
    // Changing under us: the slot must not keep an entry for this stamp.
    const auto it = c.slots.find(stamp);
    if (it != c.slots.end() && it->second == slot && !slot->file) {
      c.lru.erase(slot->lru);
      c.slots.erase(it);
    }
    return fresh;
  }
  slot->file = fresh;
  slot->settled = settled;
  c.trim_locked();
  return fresh;
}

DataFileRecord data_file_record(const DataFile& file, const std::string& path,
                                const std::string& resolved) {
  DataFileRecord r;
  r.path = path;
  r.resolved_path = resolved;
  if (char* real = ::realpath(resolved.c_str(), nullptr)) {
    r.resolved_path = real;
    std::free(real);
  }
  r.size_bytes = file.size_bytes();
  r.sha256 = file.sha256();
  return r;
}

void merge_data_file_records(std::vector<DataFileRecord>& records,
                             const std::vector<DataFileRecord>& more) {
  for (const DataFileRecord& r : more)
    if (std::find(records.begin(), records.end(), r) == records.end()) records.push_back(r);
}

void trim_data_file_cache() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.trim_locked();
}

DataFileCacheStats data_file_cache_stats() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.trim_locked();
  DataFileCacheStats s = c.stats;
  s.budget_bytes = c.budget_bytes;
  return s;
}

void set_data_file_cache_budget(uint64_t bytes) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.budget_bytes = bytes;
  c.trim_locked();
}

void clear_data_file_cache() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.slots.clear();
  c.lru.clear();
  c.stats = DataFileCacheStats{};
}

}  // namespace gpucap
