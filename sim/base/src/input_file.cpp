// gpucap: reading input files within a byte budget (see input_file.hpp).
#include "gpucap/input_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#include <unistd.h>

#include "gpucap/detail/text.hpp"

namespace gpucap {
namespace {

/// Closes a file descriptor when it goes out of scope.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

std::string quoted(const std::string& path) { return "'" + text::excerpt(path, 200) + "'"; }

[[noreturn]] void fail_errno(const std::string& what, const std::string& path, int error) {
  throw InputFileError("cannot read " + what + " " + quoted(path) + ": " + std::strerror(error));
}

/// `size_bytes` is the file's size, or 0 when only "more than the limit" is known.
[[noreturn]] void fail_too_large(const std::string& what, const std::string& path,
                                 uint64_t size_bytes, uint64_t max_bytes,
                                 const std::string& limit_hint) {
  std::string size = size_bytes > 0 ? format_bytes(size_bytes) : "larger than the limit";
  std::string limit = format_bytes(max_bytes);
  if (size == limit) {  // the same when rounded: say it in bytes
    size = std::to_string(size_bytes) + " bytes";
    limit = std::to_string(max_bytes) + " bytes (" + limit + ")";
  }
  throw InputFileError(
      what + " " + quoted(path) + " is " + size + ", over the limit of " + limit +
      (limit_hint.empty() ? std::string() : " (raise it with " + limit_hint + ")"));
}

FileStamp stamp_of(const struct stat& st) {
  FileStamp s;
  s.identity = {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
  s.size_bytes = static_cast<uint64_t>(st.st_size);
  s.mtime_ns = int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
  s.ctime_ns = int64_t{st.st_ctim.tv_sec} * 1000000000 + st.st_ctim.tv_nsec;
  return s;
}

}  // namespace

InputFile::InputFile(const std::string& path, uint64_t max_bytes, const std::string& what,
                     const std::string& limit_hint)
    : path_(path), what_(what), limit_hint_(limit_hint), max_bytes_(max_bytes) {
  if (path.empty()) throw InputFileError(what + ": the file name is empty");
  if (path.find('\0') != std::string::npos)
    throw InputFileError(what + " " + quoted(path) + ": a file name cannot hold a NUL byte");
  // O_NONBLOCK: opening a FIFO with no writer must not hang; O_NOCTTY: a terminal device must
  // not become the controlling terminal. Both are refused right after by the type check.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) fail_errno(what, path, errno);
  FdCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail_errno(what, path, errno);
  if (!S_ISREG(st.st_mode))
    throw InputFileError(what + " " + quoted(path) + " is " + file_type_name(st.st_mode) +
                         ", not a regular file");
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes) fail_too_large(what, path, size, max_bytes, limit_hint);
  stamp_ = stamp_of(st);
  fd_ = fd;
  closer.fd = -1;  // kept open: this object closes it
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

FileStamp InputFile::stamp_now() const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) fail_errno(what_, path_, errno);
  return stamp_of(st);
}

std::string InputFile::read_all() {
  if (::lseek(fd_, 0, SEEK_SET) < 0) fail_errno(what_, path_, errno);
  // Read straight into the string, one byte past the reported size so that the end (or a file
  // that grew) shows; a file that reports 0 (in /proc) grows the buffer in 64 KiB steps.
  std::string content;
  std::size_t used = 0;
  const std::size_t expected =
      static_cast<std::size_t>(std::min<uint64_t>(stamp_.size_bytes, max_bytes_)) + 1;
  content.reserve(expected);
  advise_huge_pages(content.data(), content.capacity());
  content.resize(expected);
  for (;;) {
    if (used == content.size()) content.resize(content.size() + (1 << 16));
    const ssize_t n = ::read(fd_, &content[used], content.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_errno(what_, path_, errno);
    }
    if (n == 0) break;
    if (used + static_cast<uint64_t>(n) > max_bytes_)
      fail_too_large(what_, path_, 0, max_bytes_, limit_hint_);
    used += static_cast<std::size_t>(n);
  }
  content.resize(used);
  return content;
}

std::string read_input_file(const std::string& path, uint64_t max_bytes, const std::string& what,
                            const std::string& limit_hint) {
  InputFile file(path, max_bytes, what, limit_hint);
  std::string content = file.read_all();
  normalize_line_breaks(content);
  return content;
}

const char* file_type_name(unsigned mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "a regular file";
}

void normalize_line_breaks(std::string& text) {
  char* const data = text.data();
  const std::size_t size = text.size();
  for (std::size_t i = 0; i < size; ++i) {
    const void* cr = std::memchr(data + i, '\r', size - i);
    if (cr == nullptr) return;
    i = static_cast<std::size_t>(static_cast<const char*>(cr) - data);
    if (i + 1 == size || data[i + 1] != '\n') data[i] = '\n';
  }
}

std::string format_bytes(uint64_t bytes) {
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  double value = static_cast<double>(bytes) / 1024.0;
  int unit = 0;
  while (value >= 1024.0 && unit < 5) {
    value /= 1024.0;
    ++unit;
  }
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, value == std::floor(value) ? "%.0f %s" : "%.3g %s", value,
                units[unit]);
  return buffer;
}

uint64_t parse_byte_size(const std::string& text_in) {
  const std::string t = text::trim(text_in);
  const std::string valid =
      "a size in bytes, or with a unit KiB, MiB, GiB, TiB (powers of 1024) or kB, MB, GB, TB "
      "(powers of 1000), e.g. 64MiB";
  if (t.empty() || !(t[0] >= '0' && t[0] <= '9'))
    throw std::invalid_argument("\"" + text::excerpt(text_in, 40) + "\" is not " + valid);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(t.c_str(), &end);
  if (errno == ERANGE || !std::isfinite(v))
    throw std::invalid_argument("\"" + text::excerpt(text_in, 40) + "\" is not " + valid);
  const std::string unit = text::trim(std::string(end));
  static const struct {
    const char* name;
    double factor;
  } units[] = {{"", 1},
               {"B", 1},
               {"KiB", 1024.0},
               {"MiB", 1048576.0},
               {"GiB", 1073741824.0},
               {"TiB", 1099511627776.0},
               {"kB", 1e3},
               {"KB", 1e3},
               {"MB", 1e6},
               {"GB", 1e9},
               {"TB", 1e12}};
  for (const auto& u : units) {
    if (unit != u.name) continue;
    const double bytes = v * u.factor;
    if (!(bytes >= 1) || bytes > 9.0e18)
      throw std::invalid_argument("\"" + text::excerpt(text_in, 40) +
                                  "\" is out of range: give at least 1 byte and at most 8 EiB");
    return static_cast<uint64_t>(bytes);
  }
  throw std::invalid_argument("\"" + text::excerpt(text_in, 40) + "\" has an unknown unit \"" +
                              text::excerpt(unit, 20) + "\"; " + valid);
}

void advise_huge_pages(const void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  if (bytes < 2 * kHuge) return;
  const auto at = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t begin = (at + kHuge - 1) & ~(kHuge - 1), end = (at + bytes) & ~(kHuge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace gpucap
