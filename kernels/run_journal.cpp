// gpucap: the journal of a run (see run_journal.hpp).
#include "gpucap/run_journal.hpp"

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include "gpucap/detail/text.hpp"
#include "gpucap/sha256.hpp"

namespace gpucap {
namespace {

constexpr char kMagic[] = "GPUCAP RUN JOURNAL 2\n";
constexpr char kMagicVersion1[] = "GPUCAP RUN JOURNAL 1\n";  // read the same way
constexpr uint64_t kRecordMagic = 0x4b434843504350ULL;       // "PCPCHCK", a record's first word
constexpr uint64_t kMaxHeaderBytes = 1 << 20;
constexpr double kSyncEverySeconds = 30;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string quoted(const std::string& path) { return "'" + text::excerpt(path, 300) + "'"; }

std::string system_error(const std::string& what, const std::string& path) {
  return what + " " + quoted(path) + ": " + std::strerror(errno);
}

/// A 64-bit checksum of a byte stream fed in pieces of any size (words of 8 bytes, multiplied
/// and mixed): the same value however the stream is cut. Catches torn and damaged records; not
/// meant against someone who forges them.
class Checksum {
 public:
  void update(const void* data, std::size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    length_ += size;
    while (size > 0) {
      if (pending_size_ == 0) {  // whole words straight from the input
        while (size >= 8) {
          uint64_t word;
          std::memcpy(&word, bytes, 8);
          mix(word);
          bytes += 8;
          size -= 8;
        }
        if (size == 0) break;
      }
      pending_[pending_size_++] = *bytes++;
      --size;
      if (pending_size_ == 8) {
        uint64_t word;
        std::memcpy(&word, pending_, 8);
        mix(word);
        pending_size_ = 0;
      }
    }
  }
  uint64_t value() const {
    uint64_t h = h_;
    uint64_t tail = 0;
    std::memcpy(&tail, pending_, pending_size_);
    h = (h ^ tail) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ length_) * 0x94d049bb133111ebULL;
    return h ^ (h >> 31);
  }

 private:
  void mix(uint64_t word) {
    h_ = (h_ ^ word) * 0xbf58476d1ce4e5b9ULL;
    h_ ^= h_ >> 29;
  }
  uint64_t h_ = 0x9e3779b97f4a7c15ULL;
  uint64_t length_ = 0;
  unsigned char pending_[8] = {};
  std::size_t pending_size_ = 0;
};

void write_all(int fd, const void* data, std::size_t size, const std::string& path) {
  const auto* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(system_error("cannot write the run's journal", path));
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
}

/// Reads exactly `size` bytes; false at the end of the file (or before `size` bytes).
bool read_exact(int fd, void* data, std::size_t size, const std::string& path) {
  auto* bytes = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = ::read(fd, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(system_error("cannot read the run's journal", path));
    if (n == 0) return false;
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

/// The folder and the name of `path`.
std::pair<std::string, std::string> split_path(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

/// Closes a file descriptor when it goes out of scope.
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  ~FdCloser() {
    if (fd_ >= 0) ::close(fd_);
  }
  /// Hands the descriptor over: it is no longer closed here.
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

int open_folder(const std::string& folder, const std::string& path) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(system_error("cannot open the folder of", path));
  return fd;
}

/// The longest file name the folder allows (255 bytes where it cannot be asked).
long name_max_of(const std::string& folder) {
  const long n = ::pathconf(folder.c_str(), _PC_NAME_MAX);
  return n > 0 ? n : NAME_MAX;
}

/// `name` + `suffix`, or, when that is longer than `name_max` bytes, the first bytes of `name`
/// (cut at a UTF-8 character's start), "~", 16 hex digits of its SHA-256 and `suffix`.
std::string fitted_name(const std::string& name, const std::string& suffix, long name_max) {
  if (name.size() + suffix.size() <= static_cast<std::size_t>(name_max)) return name + suffix;
  Sha256 digest;
  digest.update(name.data(), name.size());
  const std::string tag = "~" + digest.hex().substr(0, 16);
  const std::size_t fixed = suffix.size() + tag.size();
  std::size_t keep = static_cast<std::size_t>(name_max) > fixed
                         ? std::min(name.size(), static_cast<std::size_t>(name_max) - fixed)
                         : 0;
  while (keep > 0 && (static_cast<unsigned char>(name[keep]) & 0xC0) == 0x80) --keep;
  return name.substr(0, keep) + tag + suffix;
}

/// Where a rewrite of the journal at `path` is written before it is renamed over it.
std::string rewrite_path(const std::string& path) { return output_sidecar_path(path, ".new"); }

/// Removes `name` in the folder `dir` when it is a regular file (an earlier run's); throws when
/// a link or a special file has that name.
void remove_earlier(int dir, const std::string& name, const std::string& path) {
  struct stat st {};
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return;
  if (!S_ISREG(st.st_mode))
    throw std::runtime_error("cannot start the run's journal " + quoted(path) +
                             ": a link or special file has that name; remove it");
  ::unlinkat(dir, name.c_str(), 0);
}

std::string header_text(const RunIdentity& identity) {
  std::string text;
  for (const auto& [key, value] : identity) text += key + ": " + value + "\n";
  return text;
}

/// Writes the magic and the header `text` at the start of a new journal.
void write_header(int fd, const std::string& text, const std::string& path) {
  Checksum sum;
  sum.update(text.data(), text.size());
  const uint64_t length = text.size(), checksum = sum.value();
  write_all(fd, kMagic, sizeof(kMagic) - 1, path);
  write_all(fd, &length, 8, path);
  write_all(fd, text.data(), text.size(), path);
  write_all(fd, &checksum, 8, path);
}

/// The fixed fields of a record: magic, first, count, rows, then the lengths.
struct RecordHead {
  uint64_t magic, first, count, rows, summary_bytes, scalars, pool_values, timeseries;
};

/// The checksum of a record: its fixed fields, then its arrays, as written.
uint64_t record_checksum(const RecordHead& head, const JournalRecord& r) {
  Checksum sum;
  sum.update(&head, sizeof head);
  sum.update(r.summary.data(), r.summary.size());
  sum.update(r.scalars.data(), r.scalars.size() * 8);
  sum.update(r.pool_values.data(), r.pool_values.size() * 8);
  sum.update(r.timeseries.data(), r.timeseries.size() * 8);
  return sum.value();
}

}  // namespace

std::string output_sidecar_path(const std::string& output_path, const std::string& suffix) {
  const std::size_t slash = output_path.rfind('/');
  const std::string prefix = slash == std::string::npos ? "" : output_path.substr(0, slash + 1);
  const auto [folder, name] = split_path(output_path);
  return prefix + fitted_name(name, suffix, name_max_of(folder));
}

std::string RunJournal::path_for(const std::string& output_path) {
  return output_sidecar_path(output_path, ".resume");
}

std::unique_ptr<RunJournal> RunJournal::start(const std::string& path,
                                              const RunIdentity& identity) {
  const auto [folder, name] = split_path(path);
  const int dir_fd = open_folder(folder, path);
  FdCloser dir_closer(dir_fd);
  remove_earlier(dir_fd, name, path);  // an earlier run's journal
  const std::string rewrite = rewrite_path(path);
  remove_earlier(dir_fd, split_path(rewrite).second, rewrite);  // a rewrite killed midway
  std::unique_ptr<RunJournal> jp(new RunJournal());
  RunJournal& j = *jp;
  j.path_ = path;
  j.header_ = header_text(identity);
  j.fd_ =
      ::openat(dir_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (j.fd_ < 0) throw std::runtime_error(system_error("cannot create the run's journal", path));
  write_header(j.fd_, j.header_, path);
  j.sync_now();
  j.start_writer();
  return jp;
}

namespace {

/// Opens `path` without following a link (for reading and writing, or only reading); -1 with
/// errno.
int open_journal(const std::string& path, int mode = O_RDWR) {
  const auto [folder, name] = split_path(path);
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return -1;
  const int fd = ::openat(dir, name.c_str(), mode | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  const int saved = errno;
  ::close(dir);
  errno = saved;
  return fd;
}

/// Reads the header; the identity it holds, or false when it is not a journal's.
bool read_header(int fd, const std::string& path, RunIdentity& identity) {
  char magic[sizeof(kMagic) - 1];
  uint64_t length = 0, checksum = 0;
  if (!read_exact(fd, magic, sizeof magic, path) ||
      (std::memcmp(magic, kMagic, sizeof magic) != 0 &&
       std::memcmp(magic, kMagicVersion1, sizeof magic) != 0) ||
      !read_exact(fd, &length, 8, path) || length > kMaxHeaderBytes)
    return false;
  std::string text(length, '\0');
  if (!read_exact(fd, text.data(), length, path) || !read_exact(fd, &checksum, 8, path))
    return false;
  Checksum sum;
  sum.update(text.data(), text.size());
  if (sum.value() != checksum) return false;
  identity.clear();
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    const std::size_t colon = text.find(": ", at);
    if (end == std::string::npos || colon == std::string::npos || colon > end) return false;
    identity.emplace_back(text.substr(at, colon - at), text.substr(colon + 2, end - colon - 2));
    at = end + 1;
  }
  return true;
}

/// Whether a record's lengths fit in the `left` bytes that follow its head in the file (they
/// are checked before they size anything).
bool head_fits(const RecordHead& head, uint64_t left) {
  const uint64_t doubles = head.scalars + head.pool_values + head.timeseries;
  return head.magic == kRecordMagic && head.summary_bytes <= left && head.scalars <= left / 8 &&
         head.pool_values <= left / 8 && head.timeseries <= left / 8 && doubles <= left / 8 &&
         head.summary_bytes + doubles * 8 + 8 <= left;
}

/// Whether the run can continue from after a record: in a journal whose first record has a
/// fold state (a run that keeps fewer rows), from those with one; in any other, from each.
bool continues_after(bool first_has_state, uint64_t summary_bytes) {
  return !first_has_state || summary_bytes > 0;
}

}  // namespace

std::unique_ptr<RunJournal> RunJournal::resume(
    const std::string& path, const RunIdentity& identity,
    const std::function<void(const JournalRecord&)>& replay) {
  std::unique_ptr<RunJournal> jp(new RunJournal());
  RunJournal& j = *jp;
  j.path_ = path;
  j.header_ = header_text(identity);
  j.fd_ = open_journal(path);
  if (j.fd_ < 0) {
    if (errno == ENOENT)
      throw std::invalid_argument(
          "--resume: there is no journal " + quoted(path) +
          " to continue (a run keeps one once it is expected to take more than a minute, or "
          "from its first chunk with --journal): run without --resume");
    if (errno == ELOOP)
      throw std::runtime_error("cannot resume from " + quoted(path) + ": it is a symbolic link");
    throw std::runtime_error(system_error("cannot open the run's journal", path));
  }
  struct stat st {};
  if (::fstat(j.fd_, &st) != 0 || !S_ISREG(st.st_mode))
    throw std::runtime_error("cannot resume from " + quoted(path) + ": it is not a regular file");
  RunIdentity written;
  if (!read_header(j.fd_, path, written))
    throw std::runtime_error("cannot resume from " + quoted(path) +
                             ": it is not a gpucap run journal, or its header is damaged");
  for (const auto& [key, value] : identity) {
    std::string theirs = "(none)";
    for (const auto& [k, v] : written)
      if (k == key) theirs = v;
    if (theirs != value)
      throw std::invalid_argument("--resume: the journal " + quoted(path) +
                                  " is of another run: its " + key + " is " +
                                  text::excerpt(theirs, 100) + ", this run's is " + value +
                                  "; run without --resume to start over");
  }
  const off_t size = st.st_size;
  off_t good = ::lseek(j.fd_, 0, SEEK_CUR);  // the end of the last record to continue from
  off_t at = good;                           // the end of the last whole record
  bool first_has_state = false;
  uint64_t records = 0, replications = 0, rows_bytes = 0, state_bytes = 0;
  JournalRecord r;  // one at a time: memory does not grow with the journal
  for (;; ++records) {
    RecordHead head{};
    if (!read_exact(j.fd_, &head, sizeof head, path)) break;  // the end, or a cut head
    if (!head_fits(head, static_cast<uint64_t>(size - at) - sizeof head)) break;
    r.first = head.first;
    r.count = head.count;
    r.rows = head.rows;
    r.summary.resize(head.summary_bytes);
    r.scalars.resize(head.scalars);
    r.pool_values.resize(head.pool_values);
    r.timeseries.resize(head.timeseries);
    uint64_t checksum = 0;
    if (!read_exact(j.fd_, r.summary.data(), r.summary.size(), path) ||
        !read_exact(j.fd_, r.scalars.data(), r.scalars.size() * 8, path) ||
        !read_exact(j.fd_, r.pool_values.data(), r.pool_values.size() * 8, path) ||
        !read_exact(j.fd_, r.timeseries.data(), r.timeseries.size() * 8, path) ||
        !read_exact(j.fd_, &checksum, 8, path))
      break;
    const off_t end = ::lseek(j.fd_, 0, SEEK_CUR);
    if (record_checksum(head, r) != checksum) {
      if (end < size)
        throw std::runtime_error("cannot resume from " + quoted(path) + ": record " +
                                 std::to_string(records) +
                                 " is damaged (its checksum does not match); remove the journal "
                                 "and run again without --resume");
      break;  // the last record, cut or half written: run it again
    }
    replay(r);
    at = end;
    if (records == 0) first_has_state = !r.summary.empty();
    replications += r.count;
    rows_bytes += 8 * (r.scalars.size() + r.pool_values.size() + r.timeseries.size());
    state_bytes += r.summary.size();
    if (continues_after(first_has_state, r.summary.size())) {
      good = end;
      j.resumed_replications_ = replications;
      j.rows_bytes_ = rows_bytes;
      j.state_bytes_ = state_bytes;
      if (!r.summary.empty()) j.resumed_summary_.swap(r.summary);
    }
  }
  // Drop what follows the record to continue from and append after it.
  if (good < size && ::ftruncate(j.fd_, good) != 0)
    throw std::runtime_error(
        system_error("cannot cut the unfinished records off the journal", path));
  ::lseek(j.fd_, good, SEEK_SET);
  j.last_sync_s_ = now_s();
  j.start_writer();
  return jp;
}

uint64_t RunJournal::replications_in(const std::string& path) {
  const int fd = open_journal(path, O_RDONLY);
  if (fd < 0) return 0;
  FdCloser closer(fd);
  uint64_t total = 0, continued = 0;
  try {
    RunIdentity identity;
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !read_header(fd, path, identity)) return 0;
    RecordHead head{};
    bool first_has_state = false;
    for (uint64_t records = 0; read_exact(fd, &head, sizeof head, path); ++records) {
      const off_t at = ::lseek(fd, 0, SEEK_CUR);
      if (!head_fits(head, static_cast<uint64_t>(st.st_size - at))) break;
      ::lseek(fd,
              static_cast<off_t>(head.summary_bytes +
                                 (head.scalars + head.pool_values + head.timeseries) * 8 + 8),
              SEEK_CUR);
      if (records == 0) first_has_state = head.summary_bytes > 0;
      total += head.count;
      if (continues_after(first_has_state, head.summary_bytes)) continued = total;
    }
  } catch (const std::exception&) {
  }
  return continued;
}

void RunJournal::remove(const std::string& path) {
  const auto [folder, name] = split_path(path);
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return;
  FdCloser closer(dir);
  for (const std::string& file : {name, split_path(rewrite_path(path)).second}) {
    struct stat st {};
    if (::fstatat(dir, file.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
      ::unlinkat(dir, file.c_str(), 0);
  }
}

RunJournal::~RunJournal() {
  stop_writer();
  if (fd_ < 0) return;
  ::fdatasync(fd_);  // a stopped run's records, for the run that continues it
  ::close(fd_);
}

void RunJournal::start_writer() {
  writer_ = std::thread([this] { writer_loop(); });
}

void RunJournal::writer_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return closing_ || !waiting_.empty(); });
    if (waiting_.empty()) return;  // closing, nothing left
    Pending pending = std::move(waiting_.front());
    waiting_.pop_front();
    writing_ = true;
    const bool failed = error_ != nullptr;
    lock.unlock();
    std::exception_ptr error;
    try {
      if (failed) {
      } else if (pending.restart) {
        write_restart(pending.record);
      } else {
        write_record(fd_, pending.record);
        if (now_s() - last_sync_s_ >= kSyncEverySeconds) sync_now();
      }
    } catch (...) {
      error = std::current_exception();
    }
    pending = Pending{};  // its memory back before the next one is taken
    lock.lock();
    writing_ = false;
    if (error && !error_) error_ = error;
    changed_.notify_all();
  }
}

void RunJournal::stop_writer() noexcept {
  if (!writer_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  changed_.notify_all();
  writer_.join();
}

void RunJournal::count_bytes(const JournalRecord& record) {
  rows_bytes_ += 8 * (record.scalars.size() + record.pool_values.size() + record.timeseries.size());
  state_bytes_ += record.summary.size();
}

void RunJournal::append(JournalRecord record) {
  count_bytes(record);
  enqueue(Pending{std::move(record), false});
}

void RunJournal::restart(JournalRecord record) {
  rows_bytes_ = state_bytes_ = 0;
  count_bytes(record);
  enqueue(Pending{std::move(record), true});
}

void RunJournal::enqueue(Pending pending) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return error_ || waiting_.size() < 2; });
  if (error_) std::rethrow_exception(error_);
  waiting_.push_back(std::move(pending));
  changed_.notify_all();
}

void RunJournal::finish() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return error_ || (waiting_.empty() && !writing_); });
    if (error_) std::rethrow_exception(error_);
  }
  sync_now();
}

void RunJournal::sync_now() {
  if (::fdatasync(fd_) != 0)
    throw std::runtime_error(system_error("cannot sync the run's journal", path_));
  last_sync_s_ = now_s();
}

void RunJournal::write_record(int fd, const JournalRecord& r) {
  const RecordHead head{kRecordMagic,
                        r.first,
                        r.count,
                        r.rows,
                        r.summary.size(),
                        r.scalars.size(),
                        r.pool_values.size(),
                        r.timeseries.size()};
  const uint64_t checksum = record_checksum(head, r);
  write_all(fd, &head, sizeof head, path_);
  write_all(fd, r.summary.data(), r.summary.size(), path_);
  write_all(fd, r.scalars.data(), r.scalars.size() * 8, path_);
  write_all(fd, r.pool_values.data(), r.pool_values.size() * 8, path_);
  write_all(fd, r.timeseries.data(), r.timeseries.size() * 8, path_);
  write_all(fd, &checksum, 8, path_);
}

void RunJournal::write_restart(const JournalRecord& record) {
  // The new journal beside this one, whole and synced before its rename: a kill at any moment
  // leaves either journal.
  const auto [folder, name] = split_path(path_);
  const std::string rewrite = rewrite_path(path_);
  const std::string rewrite_name = split_path(rewrite).second;
  const int dir = open_folder(folder, path_);
  FdCloser dir_closer(dir);
  remove_earlier(dir, rewrite_name, rewrite);
  const int fd = ::openat(dir, rewrite_name.c_str(),
                          O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) throw std::runtime_error(system_error("cannot create the run's journal", rewrite));
  try {
    write_header(fd, header_, rewrite);
    write_record(fd, record);
    if (::fdatasync(fd) != 0)
      throw std::runtime_error(system_error("cannot sync the run's journal", rewrite));
    if (::renameat(dir, rewrite_name.c_str(), dir, name.c_str()) != 0)
      throw std::runtime_error(system_error("cannot rename the rewritten journal to", path_));
  } catch (...) {
    ::close(fd);
    ::unlinkat(dir, rewrite_name.c_str(), 0);
    throw;
  }
  ::fsync(dir);  // the rename itself (best effort: it is visible already)
  ::close(fd_);
  fd_ = fd;
  last_sync_s_ = now_s();
}

namespace {

constexpr char kLockPrefix[] = "gpucap ";

/// The text of a lock file (its holder), at most 512 bytes; empty when there is none yet.
std::string lock_text(int fd) {
  char buffer[512];
  const ssize_t n = ::pread(fd, buffer, sizeof buffer, 0);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
}

/// "process 4242 on host a", from a lock file's text.
std::string holder_of(const std::string& text) {
  std::string holder = text.substr(std::min(text.size(), sizeof(kLockPrefix) - 1));
  while (!holder.empty() && holder.back() == '\n') holder.pop_back();
  return text::excerpt(holder, 200);
}

/// "process <pid> on host <name>": this process, as its lock file names it.
std::string this_process() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') std::strcpy(host, "unknown");
  return "process " + std::to_string(::getpid()) + " on host " + host;
}

}  // namespace

std::string OutputLock::path_for(const std::string& output_path) {
  return output_sidecar_path(output_path, ".lock");
}

std::unique_ptr<OutputLock> OutputLock::acquire(const std::string& output_path) {
  std::unique_ptr<OutputLock> lock(new OutputLock());
  lock->path_ = path_for(output_path);
  const std::string& path = lock->path_;
  const std::string cannot =
      "cannot lock the output " + quoted(output_path) + ": its lock " + quoted(path);
  const auto [folder, name] = split_path(path);
  const int dir = open_folder(folder, path);
  FdCloser dir_closer(dir);
  // A run that ends removes its lock file while it holds the lock: one opened before that is
  // no longer the file at the name, and is opened again.
  for (int attempt = 0; attempt < 100; ++attempt) {
    struct stat st {};
    if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
      throw std::runtime_error(
          cannot + (S_ISLNK(st.st_mode) ? " is a symbolic link" : " is not a regular file") +
          "; remove it");
    const int fd =
        ::openat(dir, name.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0666);
    if (fd < 0) {
      if (errno == ELOOP) throw std::runtime_error(cannot + " is a symbolic link; remove it");
      throw std::runtime_error(system_error("cannot create the lock of the output", path));
    }
    FdCloser closer(fd);
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
      throw std::runtime_error(cannot + " is not a regular file; remove it");
    bool locked = true;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno == EWOULDBLOCK) {
        // Its holder writes its name just after it locks.
        std::string holder = lock_text(fd);
        for (int wait = 0; wait < 50 && holder.empty(); ++wait) {
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          holder = lock_text(fd);
        }
        throw std::runtime_error(
            "the output " + quoted(output_path) + " is being written by another gpucap run (" +
            (holder.empty() ? std::string("its process is not named yet") : holder_of(holder)) +
            " holds its lock " + quoted(path) +
            "); wait until it ends, or give another output name");
      }
      if (errno != ENOLCK && errno != EOPNOTSUPP && errno != EINVAL)
        throw std::runtime_error(system_error("cannot lock", path));
      lock->note_ = "the file system of " + quoted(path) + " cannot lock files (" +
                    std::strerror(errno) +
                    "): this run goes on unlocked; another run with the same output at the same "
                    "time would replace its journal";
      locked = false;
    }
    struct stat now {};
    if (locked && (::fstatat(dir, name.c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0 ||
                   now.st_dev != st.st_dev || now.st_ino != st.st_ino))
      continue;  // its holder removed it meanwhile
    const std::string previous = lock_text(fd);
    if (!previous.empty()) {
      if (previous.compare(0, sizeof(kLockPrefix) - 1, kLockPrefix) != 0)
        throw std::runtime_error(cannot +
                                 " holds something other than a gpucap lock; remove it or give "
                                 "another output name");
      if (locked)
        lock->note_ = "took over the lock " + quoted(path) + " of " + holder_of(previous) +
                      ", which ended without removing it";
    }
    const std::string text = kLockPrefix + this_process() + "\n";
    if (::ftruncate(fd, 0) != 0 ||
        ::pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
      const std::string why = system_error("cannot write the lock of the output", path);
      if (locked) ::unlinkat(dir, name.c_str(), 0);  // ours now: nothing of it is left
      throw std::runtime_error(why);
    }
    lock->fd_ = closer.release();
    lock->dir_fd_ = dir_closer.release();
    return lock;
  }
  throw std::runtime_error(cannot + " was replaced 100 times while this run tried to take it");
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  // Removed while still held, and only when the name still holds this file.
  const auto name = split_path(path_).second;
  struct stat mine {
  }, there{};
  if (::fstat(fd_, &mine) == 0 &&
      ::fstatat(dir_fd_, name.c_str(), &there, AT_SYMLINK_NOFOLLOW) == 0 &&
      mine.st_dev == there.st_dev && mine.st_ino == there.st_ino)
    ::unlinkat(dir_fd_, name.c_str(), 0);
  ::close(fd_);
  ::close(dir_fd_);
}

}  // namespace gpucap
