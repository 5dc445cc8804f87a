// gpucap: reading input files within a byte budget (see input_file.hpp).
#include "gpucap/input_file.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
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

}  // namespace

std::string read_input_file(const std::string& path, uint64_t max_bytes, const std::string& what,
                            const std::string& limit_hint) {
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
  // A regular file that reports a size of 0 can still hold data (files in /proc): read in
  // blocks up to the budget, never trusting st_size.
  std::string content;
  content.reserve(static_cast<std::size_t>(size));
  char block[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, block, sizeof block);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_errno(what, path, errno);
    }
    if (n == 0) break;
    if (content.size() + static_cast<uint64_t>(n) > max_bytes)
      fail_too_large(what, path, 0, max_bytes, limit_hint);
    content.append(block, static_cast<std::size_t>(n));
  }
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
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')) text[i] = '\n';
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

}  // namespace gpucap
