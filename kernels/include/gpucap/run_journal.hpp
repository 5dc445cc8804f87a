// gpucap: the journal of a run written to a file, so that a run that was killed (kill -9, a
// crash, Ctrl-C, a full disk at the end) continues where it stopped (`--resume`).
//
// A run with -o that takes more than one chunk of replications appends its finished chunks to
// `<output>.resume`: the rows it keeps and, when it keeps fewer rows than replications, now and
// then the state of its summaries' fold (streaming_summary.hpp: one moments per column and the
// sketches, whose size does not grow with replications), each record checksummed. With
// --resume, the run reads the journal, checks that it was written by the same run (gpucap version,
// scenario and sweep texts, data files, seed, replications, rows kept: any difference is named),
// replays its records one at a time (the rows placed as if the chunks had just run, the fold
// restored from the last state) and runs the rest. Replication r draws from the streams keyed by
// (seed, r) and the summaries fold block by block in order, so the results are the same bits as
// an uninterrupted run's, whatever chunks each part ran in. A record cut short by the kill (the
// last one) is dropped and run again. When the results file is written, the journal is removed.
//
// Size: a run that keeps fewer rows writes a fold state at most once a second (and once per
// 8 MiB of it: a state of 80 MiB at most every 10 s) and with its last chunk; records between
// two states hold only rows. Resume continues from the last record with a state (later records
// are dropped and run again). Once the states a journal holds reach 16 MiB, or the bytes of its
// rows when those are more, the journal is rewritten as one record (its rows and the last state)
// and swapped in by a rename: it never holds more than about twice its rows plus 16 MiB and two
// states, however long the run. A run that keeps every row journals each chunk's rows: at most
// the size of its results.
//
// The journal is written with the output's care: created exclusively in the output's folder,
// never through a link, never onto a special file. Its name is the output's with ".resume"; when
// that is longer than the folder allows (255 bytes on most file systems), the output's name is
// cut and 16 hex digits of its SHA-256 follow ("<first bytes>~<16 hex>.resume"): the same name for
// the same output. Records are written by a thread of the journal's own, beside the simulation
// (at most two wait for it: the run's next chunk waits for the disk only when the disk is slower
// than the simulation), and synced to the disk at most every 30 seconds, at each rewrite and at
// the end. A process killed loses at most the last second, the chunk in progress and the two
// waiting; a machine that loses power at most 30 seconds more.
//
// One run at a time per output: OutputLock, an flock(2) on "<output>.lock", held from before the
// run until its results are written and its journal removed. A second run with the same -o is
// refused and told the first's process id; the system drops the lock when its process ends,
// however it ends, and a lock file left by a killed run is taken over (and said so).
//
// Layout: "GPUCAP RUN JOURNAL 2\n" (1: every record of a run that keeps fewer rows has a state;
// read the same way), then a header (u64 length, "key: value\n" lines, u64 checksum), then
// records, each: u64 magic, u64 first, count, kept rows, the lengths of its summary bytes (0: no
// state) and of its scalars, pool values and time series (in doubles), those arrays, and a u64
// checksum of the record. Little-endian. (Goal flags are not kept: they follow from the rows.)
// A journal whose first record has a state continues from its last record with one; any other
// from its last whole record.
#pragma once
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gpucap {

/// What identifies a run to its journal: (field, value) pairs, e.g. ("seed", "101").
using RunIdentity = std::vector<std::pair<std::string, std::string>>;

/// The path of a file beside the output `output_path` named after it: its name followed by
/// `suffix` (".resume"), or, when that is longer than the folder allows (pathconf's
/// _PC_NAME_MAX, 255 bytes where it cannot be read), the name's first bytes (cut at a UTF-8
/// character's start), "~", 16 hex digits of the name's SHA-256 and `suffix`.
std::string output_sidecar_path(const std::string& output_path, const std::string& suffix);

/// Replications [first, first + count) of every point: the rows of the first `rows` of them,
/// [point][rows][...] (the rows the run keeps that fall in the range), and, when the run keeps
/// fewer rows than replications, maybe the fold's state after them.
struct JournalRecord {
  uint64_t first = 0, count = 0, rows = 0;
  std::string summary;  ///< SummaryFold::serialize() after it; empty: no state in this record
  std::vector<double> scalars, pool_values, timeseries;
};

class RunJournal {
 public:
  /// The journal of the output `output_path`: output_sidecar_path(output_path, ".resume").
  static std::string path_for(const std::string& output_path);

  /// Starts a journal at `path` for the run `identity`, replacing one an earlier run left (a
  /// regular file; a link or a special file there is refused). Throws std::runtime_error
  /// naming the path and the system's reason.
  static std::unique_ptr<RunJournal> start(const std::string& path, const RunIdentity& identity);

  /// Opens the journal at `path` to continue the run `identity`: reads its records one at a
  /// time, hands each whole one to `replay` (which throws to refuse it), and cuts off the file
  /// what follows the last record to continue from (see the file comment), which then gives
  /// resumed_replications() and resumed_summary(). Memory: one record at a time. Throws
  /// std::invalid_argument when there is no journal or it is another run's (naming what
  /// differs), std::runtime_error when it cannot be read or is damaged before its last record.
  static std::unique_ptr<RunJournal> resume(
      const std::string& path, const RunIdentity& identity,
      const std::function<void(const JournalRecord&)>& replay);

  /// Replications per point the journal at `path` continues from (as resume() would), or 0 when
  /// there is no readable journal there. Reads only the records' heads.
  static uint64_t replications_in(const std::string& path);

  /// Removes the journal at `path` and what a rewrite killed midway left beside it (regular
  /// files only, never through a link). Errors are ignored: there is nothing left to protect.
  static void remove(const std::string& path);

  RunJournal(const RunJournal&) = delete;
  RunJournal& operator=(const RunJournal&) = delete;
  /// Writes the records still waiting, syncs and closes (errors are dropped here: finish()
  /// reports them).
  ~RunJournal();

  /// After resume(): the replications per point of the records up to the one to continue from,
  /// and that record's fold state (empty when the run keeps every row, or there was none).
  uint64_t resumed_replications() const { return resumed_replications_; }
  const std::string& resumed_summary() const { return resumed_summary_; }

  /// Hands a finished chunk to the writer thread; waits while two are already waiting. Throws
  /// std::runtime_error when an earlier record could not be written (e.g. the disk is full).
  void append(JournalRecord record);

  /// Like append(), but `record` (from the run's first replication, with a fold state) replaces
  /// every record: the writer writes a journal of it alone beside this one ("<name>.new"),
  /// syncs it and renames it over this one, so that a kill at any moment leaves one whole.
  void restart(JournalRecord record);

  /// Whether the fold states in the journal (those handed over, counted when handed) reach
  /// max(`limit_bytes`, the bytes of its rows): then restart() bounds its size.
  bool wants_restart(uint64_t limit_bytes) const {
    return state_bytes_ > 0 && state_bytes_ >= std::max(limit_bytes, rows_bytes_);
  }

  /// Waits until every record is written and synced. Throws std::runtime_error when one could
  /// not be.
  void finish();

  const std::string& path() const { return path_; }

 private:
  /// A record for the writer; `restart`: it replaces the journal's records.
  struct Pending {
    JournalRecord record;
    bool restart = false;
  };

  RunJournal() = default;
  void sync_now();
  void write_record(int fd, const JournalRecord& record);
  void write_restart(const JournalRecord& record);
  void enqueue(Pending pending);
  void count_bytes(const JournalRecord& record);
  void start_writer();
  void writer_loop();
  void stop_writer() noexcept;

  std::string path_;
  std::string header_;  ///< the header's text (the run's identity)
  int fd_ = -1;
  double last_sync_s_ = 0;  ///< steady-clock seconds of the last fdatasync
  uint64_t resumed_replications_ = 0;
  std::string resumed_summary_;
  // Bytes of rows and of fold states in the journal (counted when handed to the writer).
  uint64_t rows_bytes_ = 0, state_bytes_ = 0;
  // The writer thread and the records waiting for it.
  std::thread writer_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Pending> waiting_;
  bool writing_ = false;  ///< the writer holds a record it took from waiting_
  bool closing_ = false;
  std::exception_ptr error_;
};

/// The lock of an output, held by the one run that writes it (its journal, then its results):
/// an flock(2) on output_sidecar_path(output, ".lock"), a file holding "gpucap process <pid> on
/// host <name>". The system releases the lock when the process ends, however it ends; the
/// destructor also removes the file.
///
///   auto lock = gpucap::OutputLock::acquire("results.h5");   // throws if another run holds it
///   ... run, write results.h5, remove its journal ...
///   lock.reset();
class OutputLock {
 public:
  static std::string path_for(const std::string& output_path);

  /// Takes the lock of the output `output_path`. Throws std::runtime_error when another
  /// process holds it (naming its process id and host), when the lock's name is a link, a
  /// special file or a file that is not a gpucap lock, or when it cannot be created. A lock
  /// file whose process ended is taken over; note() then says whose it was.
  static std::unique_ptr<OutputLock> acquire(const std::string& output_path);

  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  /// Removes the lock file (when its name still holds it) and releases the lock.
  ~OutputLock();

  const std::string& path() const { return path_; }
  /// For the user, or empty: the lock taken over from a process that ended, or a file system
  /// without locks (the run then goes on unlocked).
  const std::string& note() const { return note_; }

 private:
  OutputLock() = default;
  std::string path_, note_;
  int fd_ = -1;      ///< the lock file, locked
  int dir_fd_ = -1;  ///< its folder
};

}  // namespace gpucap
