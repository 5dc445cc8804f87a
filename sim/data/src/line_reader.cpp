// gpucap data: bounded line-by-line reading (see line_reader.hpp).
#include "gpucap/data/line_reader.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpucap/detail/text.hpp"
#include "gpucap/input_file.hpp"

namespace gpucap::data {

int open_regular_file(const std::string& path, const std::string& what) {
  const std::string name = what + " '" + text::excerpt(path, 300) + "'";
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused just below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw DataFileError("cannot read " + name + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int error = errno;
    ::close(fd);
    throw DataFileError("cannot read " + name + ": " + std::strerror(error));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw DataFileError(name + " is " + file_type_name(st.st_mode) + ", not a regular file");
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

LineReader::LineReader(const std::string& path, std::size_t max_line_bytes)
    : path_(path), max_line_bytes_(max_line_bytes) {
  fd_ = open_regular_file(path, "input file");
  buffer_.resize(kChunkBytes + max_line_bytes_ + 1);
}

LineReader::~LineReader() {
  if (fd_ >= 0) ::close(fd_);
}

bool LineReader::fill() {
  if (eof_) return false;
  // Keep the unread part at the front, then read after it.
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  const std::size_t room = buffer_.size() - end_;
  if (room == 0) return true;  // the caller reports the over-long line
  for (;;) {
    const ssize_t n = ::read(fd_, buffer_.data() + end_, std::min(room, kChunkBytes));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw DataFileError("cannot read input file '" + text::excerpt(path_, 300) +
                          "': " + std::strerror(errno));
    if (n == 0) {
      eof_ = true;
      return false;
    }
    end_ += static_cast<std::size_t>(n);
    bytes_read_ += static_cast<uint64_t>(n);
    return true;
  }
}

bool LineReader::next(std::string_view& line) {
  for (;;) {
    if (skip_lf_ && begin_ < end_) {
      if (buffer_[begin_] == '\n') ++begin_;
      skip_lf_ = false;
    }
    const char* start = buffer_.data() + begin_;
    std::size_t length = end_ - begin_;
    const char* stop = nullptr;
    for (std::size_t i = 0; i < length; ++i) {
      const char c = start[i];
      if (c == '\n' || c == '\r') {
        stop = start + i;
        break;
      }
      if (c == '\0')
        throw DataFileError(text::excerpt(path_, 300) + ":" + std::to_string(line_number_ + 1) +
                            ": a NUL byte; this is a binary file, not a text log");
    }
    if (stop != nullptr) {
      line = std::string_view(start, static_cast<std::size_t>(stop - start));
      if (line.size() > max_line_bytes_) break;
      begin_ += line.size() + 1;
      if (*stop == '\r') skip_lf_ = true;
      ++line_number_;
      return true;
    }
    if (length > max_line_bytes_) break;
    if (!fill()) {
      if (skip_lf_) skip_lf_ = false;
      if (begin_ == end_) return false;
      line = std::string_view(buffer_.data() + begin_, end_ - begin_);  // no final line break
      begin_ = end_;
      ++line_number_;
      return true;
    }
  }
  throw DataFileError(text::excerpt(path_, 300) + ":" + std::to_string(line_number_ + 1) +
                      ": a line longer than " + format_bytes(max_line_bytes_) +
                      "; this is not a log of one record per line");
}

}  // namespace gpucap::data
