// gpucap data: reading a text file line by line in bounded memory, for inputs larger than
// memory (job logs of tens of millions of rows).
//
// The file must be a regular file, as for read_input_file (input_file.hpp): a directory, a
// device, a FIFO or a socket is refused before a byte is read. It is read in chunks of
// kChunkBytes; a line may be at most max_line_bytes long (a longer one is an error naming its
// line number, so that a file without line breaks cannot exhaust memory). LF, CRLF and lone CR
// all end a line; a NUL byte is an error (a binary file, not a log).
//
//   gpucap::data::LineReader in("sacct.txt");
//   std::string_view line;
//   while (in.next(line)) use(line, in.line_number());
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpucap::data {

/// An input that cannot be used as a whole: unreadable, not a regular file, binary, a line over
/// the limit, or a layout the format does not have (e.g. a missing column). The CLI exits 1.
class DataFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class LineReader {
 public:
  static constexpr std::size_t kChunkBytes = std::size_t{1} << 20;      ///< 1 MiB per read
  static constexpr std::size_t kDefaultMaxLineBytes = std::size_t{1} << 20;  ///< 1 MiB

  /// Opens `path` (throws DataFileError naming it and the system's reason).
  explicit LineReader(const std::string& path, std::size_t max_line_bytes = kDefaultMaxLineBytes);
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;
  ~LineReader();

  /// The next line without its line break; false at the end of the file. The view stays valid
  /// until the next call.
  bool next(std::string_view& line);
  /// 1-based number of the line last returned.
  uint64_t line_number() const { return line_number_; }
  /// Bytes read so far.
  uint64_t bytes_read() const { return bytes_read_; }
  const std::string& path() const { return path_; }

 private:
  bool fill();  ///< reads one more chunk; false at the end of the file

  std::string path_;
  int fd_ = -1;
  std::size_t max_line_bytes_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0, end_ = 0;  ///< unread bytes are buffer_[begin_, end_)
  bool eof_ = false;
  bool skip_lf_ = false;  ///< the last line ended in CR: an LF right after it belongs to it
  uint64_t line_number_ = 0;
  uint64_t bytes_read_ = 0;
};

/// Opens `path` read-only, refusing anything but a regular file; returns the descriptor.
/// `what` names the file in messages ("job log"). Throws DataFileError.
int open_regular_file(const std::string& path, const std::string& what);

}  // namespace gpucap::data
