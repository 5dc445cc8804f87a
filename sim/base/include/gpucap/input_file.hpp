// gpucap: reading the files a run depends on (the scenario, traces, catalogs, samples) safely.
//
// Every input is read through read_input_file: it must be a regular file (a directory, a device
// such as /dev/zero, a FIFO or a socket is refused before a byte is read), no larger than a
// byte budget (checked from its size and again while reading, so a file that grows or lies
// about its size cannot exhaust memory), and its line breaks are normalized (CR-only files,
// as old Mac tools write them, read like LF files; CRLF is kept for the parsers, which accept
// it). Failures throw InputFileError with the path and the operating system's reason.
//
//   gpucap::InputLimits limits;                       // 1 MiB scenarios, 256 MiB data files
//   std::string text = gpucap::read_input_file("trace.csv", limits.data_bytes, "data file");
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gpucap/scenario_error.hpp"

namespace gpucap {

/// Largest files gpucap reads, in bytes. The CLI sets them with --max-scenario-size and
/// --max-data-size; Python with Scenario(..., limits=...).
struct InputLimits {
  /// 1 MiB: real scenarios take kilobytes, and yaml-cpp keeps about 500 bytes per value, so a
  /// scenario of 1 MiB of tiny values parses in about a second into 250 MB at most.
  static constexpr uint64_t kDefaultScenarioBytes = uint64_t{1} << 20;
  /// 256 MiB: CSV and JSON files are read into what they hold (8 bytes per number), within a
  /// few times their size.
  static constexpr uint64_t kDefaultDataBytes = uint64_t{256} << 20;
  uint64_t scenario_bytes = kDefaultScenarioBytes;  ///< the scenario (YAML) file
  uint64_t data_bytes = kDefaultDataBytes;          ///< each data file it names (CSV, JSON)
};

/// A file that cannot be read: missing, unreadable, not a regular file, or over its byte
/// budget. A ScenarioError (the scenario cannot be used), but the CLI exits 1 for it, as for
/// every I/O failure.
class InputFileError : public ScenarioError {
 public:
  using ScenarioError::ScenarioError;
};

/// Identity of a file on this machine: (device, inode). Two paths name the same file (through
/// links or different spellings) exactly when their identities are equal.
struct FileIdentity {
  uint64_t device = 0;
  uint64_t inode = 0;
  bool operator==(const FileIdentity& o) const { return device == o.device && inode == o.inode; }
};

/// What identifies one version of a file's content on this machine: its identity, size and
/// change times. Any write to the file changes ctime (the kernel sets it; a user cannot), so an
/// equal stamp means unchanged content, except for a write within the same tick of the
/// filesystem's clock (see DataFileCache for how that window is closed).
struct FileStamp {
  FileIdentity identity;
  uint64_t size_bytes = 0;
  int64_t mtime_ns = 0;  ///< last modification, ns since the epoch
  int64_t ctime_ns = 0;  ///< last status change (every write changes it), ns since the epoch
  bool operator==(const FileStamp& o) const {
    return identity == o.identity && size_bytes == o.size_bytes && mtime_ns == o.mtime_ns &&
           ctime_ns == o.ctime_ns;
  }
  bool operator!=(const FileStamp& o) const { return !(*this == o); }
};

/// An input file opened for reading and checked as read_input_file describes (a regular file
/// within its byte budget), in two steps so that a caller can look at its stamp before reading
/// (the data file cache does). Closes the file when destroyed. Throws InputFileError.
///
///   gpucap::InputFile f("trace.csv", limits.data_bytes, "data file", "--max-data-size");
///   std::string raw = f.read_all();   // bytes as on disk, line breaks not normalized
class InputFile {
 public:
  InputFile(const std::string& path, uint64_t max_bytes, const std::string& what,
            const std::string& limit_hint);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  /// The stamp taken when the file was opened.
  const FileStamp& stamp() const { return stamp_; }
  /// The stamp now (fstat of the open file), to see whether it changed while read.
  FileStamp stamp_now() const;
  /// Every byte from the start, within the budget (never trusting st_size: files in /proc
  /// report 0 and still hold data). Line breaks are not normalized.
  std::string read_all();

 private:
  std::string path_, what_, limit_hint_;
  uint64_t max_bytes_ = 0;
  int fd_ = -1;
  FileStamp stamp_;
};

/// The whole content of `path`, with CR-only line breaks turned into LF. `what` names the file
/// in messages ("scenario file", "data file"); `limit_hint` says how to raise the budget
/// ("--max-data-size"). Throws InputFileError, e.g.
///   "cannot read data file 'traces/a.csv': No such file or directory"
///   "data file '/dev/zero' is a character device, not a regular file"
///   "data file 'big.csv' is 2.1 GiB, over the limit of 256 MiB (raise it with --max-data-size)"
std::string read_input_file(const std::string& path, uint64_t max_bytes, const std::string& what,
                            const std::string& limit_hint);

/// What kind of file a stat(2) mode is, for messages: "a directory", "a character device",
/// "a block device", "a FIFO (named pipe)", "a socket", "a symbolic link", or "a regular file".
const char* file_type_name(unsigned mode);

/// Turns lone CR line breaks (not followed by LF) into LF, in place. CRLF is left alone.
void normalize_line_breaks(std::string& text);

/// "1.5 GiB", "16 MiB", "512 bytes": a byte count for messages.
std::string format_bytes(uint64_t bytes);

/// Parses a size for a command-line option: "64MiB", "1GiB", "500MB", "4096" (bytes), with
/// KiB/MiB/GiB/TiB (powers of 1024) or kB/MB/GB/TB (powers of 1000). Throws
/// std::invalid_argument naming what is valid.
uint64_t parse_byte_size(const std::string& text);

/// Advice for a large buffer not yet touched (Linux; elsewhere nothing): back the whole 2 MiB
/// pages within [data, data + bytes) with huge pages, so that first writing it takes a page
/// fault per 2 MiB instead of per 4 KiB (a 2-million-row trace's arrays: ~35,000 faults fewer).
/// Only where transparent huge pages are enabled for advised memory; buffers under 4 MiB are
/// left alone. Changes no value.
void advise_huge_pages(const void* data, std::size_t bytes);

}  // namespace gpucap
