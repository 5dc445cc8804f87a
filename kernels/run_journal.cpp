// gpucap: the journal of a run (see run_journal.hpp).
#include "gpucap/run_journal.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace gpucap {
namespace {

constexpr char kMagic[] = "GPUCAP RUN JOURNAL 1\n";
constexpr uint64_t kRecordMagic = 0x4b434843504350ULL;  // "PCPCHCK", a record's first word
constexpr uint64_t kMaxHeaderBytes = 1 << 20;
constexpr double kSyncEverySeconds = 30;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string system_error(const std::string& what, const std::string& path) {
  return what + " '" + path + "': " + std::strerror(errno);
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

int open_folder(const std::string& folder, const std::string& path) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(system_error("cannot open the folder of the journal", path));
  return fd;
}

std::string header_text(const RunIdentity& identity) {
  std::string text;
  for (const auto& [key, value] : identity) text += key + ": " + value + "\n";
  return text;
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

std::string RunJournal::path_for(const std::string& output_path) { return output_path + ".resume"; }

std::unique_ptr<RunJournal> RunJournal::start(const std::string& path,
                                              const RunIdentity& identity) {
  const auto [folder, name] = split_path(path);
  const int dir = open_folder(folder, path);
  struct stat st {};
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (!S_ISREG(st.st_mode)) {
      ::close(dir);
      throw std::runtime_error("cannot start the run's journal '" + path +
                               "': a link or special file has that name; remove it");
    }
    ::unlinkat(dir, name.c_str(), 0);  // an earlier run's journal
  }
  std::unique_ptr<RunJournal> jp(new RunJournal());
  RunJournal& j = *jp;
  j.path_ = path;
  j.fd_ = ::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  const int saved = errno;
  ::close(dir);
  errno = saved;
  if (j.fd_ < 0) throw std::runtime_error(system_error("cannot create the run's journal", path));
  const std::string text = header_text(identity);
  Checksum sum;
  sum.update(text.data(), text.size());
  const uint64_t length = text.size(), checksum = sum.value();
  write_all(j.fd_, kMagic, sizeof(kMagic) - 1, path);
  write_all(j.fd_, &length, 8, path);
  write_all(j.fd_, text.data(), text.size(), path);
  write_all(j.fd_, &checksum, 8, path);
  j.sync_now();
  j.start_writer();
  return jp;
}

namespace {

/// Opens `path` for reading and writing without following a link; -1 with errno.
int open_journal(const std::string& path) {
  const auto [folder, name] = split_path(path);
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return -1;
  const int fd = ::openat(dir, name.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  const int saved = errno;
  ::close(dir);
  errno = saved;
  return fd;
}

/// Reads the header; the identity it holds, or false when it is not a journal's.
bool read_header(int fd, const std::string& path, RunIdentity& identity) {
  char magic[sizeof(kMagic) - 1];
  uint64_t length = 0, checksum = 0;
  if (!read_exact(fd, magic, sizeof magic, path) || std::memcmp(magic, kMagic, sizeof magic) != 0 ||
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

}  // namespace

std::unique_ptr<RunJournal> RunJournal::resume(const std::string& path,
                                               const RunIdentity& identity) {
  std::unique_ptr<RunJournal> jp(new RunJournal());
  RunJournal& j = *jp;
  j.path_ = path;
  j.fd_ = open_journal(path);
  if (j.fd_ < 0) {
    if (errno == ENOENT)
      throw std::invalid_argument(
          "--resume: there is no journal '" + path +
          "' to continue (a run keeps one once it is expected to take more than a minute, or "
          "from its first chunk with --journal): run without --resume");
    if (errno == ELOOP)
      throw std::runtime_error("cannot resume from '" + path + "': it is a symbolic link");
    throw std::runtime_error(system_error("cannot open the run's journal", path));
  }
  struct stat st {};
  if (::fstat(j.fd_, &st) != 0 || !S_ISREG(st.st_mode))
    throw std::runtime_error("cannot resume from '" + path + "': it is not a regular file");
  RunIdentity written;
  if (!read_header(j.fd_, path, written))
    throw std::runtime_error("cannot resume from '" + path +
                             "': it is not a gpucap run journal, or its header is damaged");
  for (const auto& [key, value] : identity) {
    std::string theirs = "(none)";
    for (const auto& [k, v] : written)
      if (k == key) theirs = v;
    if (theirs != value)
      throw std::invalid_argument("--resume: the journal '" + path + "' is of another run: its " +
                                  key + " is " + theirs + ", this run's is " + value +
                                  "; run without --resume to start over");
  }
  const off_t size = st.st_size;
  off_t good = ::lseek(j.fd_, 0, SEEK_CUR);
  for (;;) {
    RecordHead head{};
    if (!read_exact(j.fd_, &head, sizeof head, path)) break;  // the end, or a cut head
    const uint64_t left = static_cast<uint64_t>(size - good) - sizeof head;
    const uint64_t doubles = head.scalars + head.pool_values + head.timeseries;
    // Lengths are checked against what is left before they size anything.
    if (head.magic != kRecordMagic || head.summary_bytes > left || doubles > left / 8 ||
        head.summary_bytes + doubles * 8 + 8 > left)
      break;
    JournalRecord r;
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
        throw std::runtime_error("cannot resume from '" + path + "': record " +
                                 std::to_string(j.records_.size()) +
                                 " is damaged (its checksum does not match); remove the journal "
                                 "and run again without --resume");
      break;  // the last record, cut or half written: run it again
    }
    j.records_.push_back(std::move(r));
    good = end;
  }
  // Drop what follows the last whole record and append after it.
  if (good < size && ::ftruncate(j.fd_, good) != 0)
    throw std::runtime_error(
        system_error("cannot cut the unfinished record off the journal", path));
  ::lseek(j.fd_, good, SEEK_SET);
  j.last_sync_s_ = now_s();
  j.start_writer();
  return jp;
}

uint64_t RunJournal::replications_in(const std::string& path) {
  const int fd = open_journal(path);
  if (fd < 0) return 0;
  uint64_t total = 0;
  try {
    RunIdentity identity;
    if (read_header(fd, path, identity)) {
      RecordHead head{};
      while (read_exact(fd, &head, sizeof head, path) && head.magic == kRecordMagic) {
        const uint64_t skip =
            head.summary_bytes + (head.scalars + head.pool_values + head.timeseries) * 8 + 8;
        const off_t at = ::lseek(fd, 0, SEEK_CUR);
        struct stat st {};
        if (::fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_size - at) < skip) break;
        ::lseek(fd, static_cast<off_t>(skip), SEEK_CUR);
        total += head.count;
      }
    }
  } catch (const std::exception&) {
  }
  ::close(fd);
  return total;
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
    JournalRecord record = std::move(waiting_.front());
    waiting_.pop_front();
    writing_ = true;
    lock.unlock();
    std::exception_ptr error;
    try {
      if (!error_) write_record(record);
    } catch (...) {
      error = std::current_exception();
    }
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

void RunJournal::append(JournalRecord record) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return error_ || waiting_.size() < 2; });
  if (error_) std::rethrow_exception(error_);
  waiting_.push_back(std::move(record));
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

void RunJournal::write_record(const JournalRecord& r) {
  const RecordHead head{kRecordMagic,
                        r.first,
                        r.count,
                        r.rows,
                        r.summary.size(),
                        r.scalars.size(),
                        r.pool_values.size(),
                        r.timeseries.size()};
  const uint64_t checksum = record_checksum(head, r);
  write_all(fd_, &head, sizeof head, path_);
  write_all(fd_, r.summary.data(), r.summary.size(), path_);
  write_all(fd_, r.scalars.data(), r.scalars.size() * 8, path_);
  write_all(fd_, r.pool_values.data(), r.pool_values.size() * 8, path_);
  write_all(fd_, r.timeseries.data(), r.timeseries.size() * 8, path_);
  write_all(fd_, &checksum, 8, path_);
  if (now_s() - last_sync_s_ >= kSyncEverySeconds) sync_now();
}

}  // namespace gpucap
