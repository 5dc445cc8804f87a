// gpucap: writing output files so that they cannot be hijacked and are never half written.
//
// write_output_atomically(path, bytes):
//  1. refuses a target that is not a regular file or a new name: a directory, a device (e.g.
//     /dev/null), a FIFO or a socket always; a symbolic link unless `force` (then the link
//     itself is replaced; its target is never written); and any file the run reads (the
//     scenario, its traces and catalogs), whatever name or link reaches it;
//  2. writes a temporary file in the target's folder, created with an unpredictable name and
//     O_CREAT | O_EXCL | O_NOFOLLOW (mkstemp semantics: a planted file or link at any name the
//     run could use makes the creation fail, never a write through it), of mode 0666 & ~umask;
//  3. fsyncs it, checks the target once more, renames it over the target and fsyncs the folder.
// On any failure the temporary file is removed and OutputError names the path and the system's
// reason (e.g. "No space left on device"); the target is left as it was. While the temporary
// file exists, SIGINT and SIGTERM remove it before the process ends (see interrupt.hpp). A
// temporary file left by a process that was killed (kill -9, a crash, a power cut) is named and
// removed by the next write to the same target (it carries its writer's process id).
#pragma once
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpucap {

/// An output that cannot or must not be written.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct OutputOptions {
  /// Replace a symbolic link at the output path (the link itself, never what it points to).
  /// Special files (directories, devices, FIFOs, sockets) and the run's inputs are refused even
  /// then.
  bool force = false;
  /// Files the run read: never replaced, whatever path reaches them.
  std::vector<std::string> inputs;
  /// Threads a writer may use to encode (compress) the file's data: 0 = every core. The
  /// file's bytes do not depend on it.
  unsigned threads = 0;
};

/// Checks that `path` may receive an output (rules 1 above, and a folder that exists and is
/// writable) without writing anything: the CLI calls it before a run, so that a refusal comes
/// before the simulation, not after. Throws OutputError.
void check_output_path(const std::string& path, const OutputOptions& options);

/// What a write did besides writing.
struct OutputReport {
  /// Temporary files of earlier, killed writes to the same target that were removed.
  std::vector<std::string> removed_stale;
};

/// Writes `size` bytes at `data` to `path` atomically (steps 1-3 above). Throws OutputError.
OutputReport write_output_atomically(const std::string& path, const void* data, std::size_t size,
                                     const OutputOptions& options);

/// An output written piece by piece (for outputs larger than memory, e.g. an imported trace of
/// tens of millions of rows), with the same guarantees as write_output_atomically, which is
/// built on it: the constructor checks the target and creates the temporary file (rules 1-2),
/// write() appends to it, commit() fsyncs and renames it over the target (rule 3). Until
/// commit() the target is untouched; an exception, abandon() or the destructor removes the
/// temporary file. Not copyable. Throws OutputError.
///
///   gpucap::AtomicOutputFile out("trace.csv", options);
///   out.write(chunk.data(), chunk.size());   // as often as needed
///   out.commit();
class AtomicOutputFile {
 public:
  AtomicOutputFile(const std::string& path, const OutputOptions& options);
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;
  ~AtomicOutputFile();

  /// Appends `size` bytes at `data` to the temporary file.
  void write(const void* data, std::size_t size);
  /// Publishes the file under its name; the object is finished afterwards.
  OutputReport commit();
  /// Removes the temporary file and leaves the target as it was (idempotent).
  void abandon() noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::string temporary_path_;  ///< kept alive for the interrupt handler, which reads it
};

/// The prefix of every temporary file name gpucap uses for `path`'s base name `base`:
/// ".<base>.gpucap-"; the full name is ".<base>.gpucap-<pid>-<random>.tmp".
std::string temporary_prefix(const std::string& base);

namespace detail {

/// A fresh temporary name for the target name `base`: temporary_prefix(base), this process's
/// id, 16 random hex digits (64 bits from getrandom), ".tmp"; at most 240 bytes.
std::string temporary_name(const std::string& base);

/// Creates `name` in the folder `folder_fd` for writing, exclusively and without following a
/// link (O_CREAT | O_EXCL | O_NOFOLLOW, mode 0666 & ~umask): the file descriptor, or -1 with
/// errno (EEXIST when anything, a link included, already has that name).
int create_exclusive(int folder_fd, const std::string& name);

}  // namespace detail

}  // namespace gpucap
