// gpucap: the journal of a run written to a file, so that a run that was killed (kill -9, a
// crash, Ctrl-C, a full disk at the end) continues where it stopped (`--resume`).
//
// A run with -o that takes more than one chunk of replications appends each finished chunk to
// `<output>.resume`: the rows it keeps and, when it keeps fewer rows than replications, the
// state of its summaries' fold after the chunk (streaming_summary.hpp: one moments per column
// and the sketches, whose size does not grow with replications), each record checksummed. With
// --resume, the run reads the journal, checks that it was written by the same run (gpucap version,
// scenario and sweep texts, data files, seed, replications, rows kept: any difference is named),
// replays its records (the rows placed as if the chunks had just run, the fold restored from the
// last record) and runs the rest. Replication r draws from the streams keyed by (seed, r) and the
// summaries fold block by block in order, so the results are the same bits as an uninterrupted
// run's, whatever chunks each part ran in. A record cut short by the kill (the last one) is dropped
// and run again. When the results file is written, the journal is removed.
//
// The journal is written with the output's care: created exclusively in the output's folder,
// never through a link, never onto a special file. Records are written by a thread of the
// journal's own, beside the simulation (at most two wait for it: the run's next chunk waits
// for the disk only when the disk is slower than the simulation), and synced to the disk at
// most every 30 seconds and at the end. A process killed loses at most the chunk in progress
// and the two waiting; a machine that loses power at most 30 seconds more.
//
// Layout: "GPUCAP RUN JOURNAL 1\n", then a header (u64 length, "key: value\n" lines, u64
// checksum), then records, each: u64 magic, u64 first, count, kept rows, the lengths of its
// summary bytes and of its scalars, pool values and time series (in doubles), those arrays,
// and a u64 checksum of the record. Little-endian. (Goal flags are not kept: they follow from
// the rows.)
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gpucap {

/// What identifies a run to its journal: (field, value) pairs, e.g. ("seed", "101").
using RunIdentity = std::vector<std::pair<std::string, std::string>>;

/// One finished chunk: replications [first, first + count) of every point; the rows of the
/// first `rows` of them, [point][rows][...] (the rows the run keeps that fall in the chunk).
struct JournalRecord {
  uint64_t first = 0, count = 0, rows = 0;
  std::string summary;  ///< SummaryFold::serialize() after it; empty when every row is kept
  std::vector<double> scalars, pool_values, timeseries;
};

class RunJournal {
 public:
  /// The journal of the output `output_path`: "<output_path>.resume".
  static std::string path_for(const std::string& output_path);

  /// Starts a journal at `path` for the run `identity`, replacing one an earlier run left (a
  /// regular file; a link or a special file there is refused). Throws std::runtime_error
  /// naming the path and the system's reason.
  static std::unique_ptr<RunJournal> start(const std::string& path, const RunIdentity& identity);

  /// Opens the journal at `path` to continue the run `identity`: reads its records (dropping a
  /// last record cut short, which is removed from the file) into records(). Throws
  /// std::invalid_argument when there is none or it is another run's (naming what differs),
  /// std::runtime_error when it cannot be read or is damaged before its last record.
  static std::unique_ptr<RunJournal> resume(const std::string& path, const RunIdentity& identity);

  /// Replications per point the journal at `path` holds (its records'), or 0 when there is no
  /// readable journal there. Reads only the records' headers.
  static uint64_t replications_in(const std::string& path);

  RunJournal(const RunJournal&) = delete;
  RunJournal& operator=(const RunJournal&) = delete;
  /// Writes the records still waiting, syncs and closes (errors are dropped here: finish()
  /// reports them).
  ~RunJournal();

  /// The records read by resume(), in order (empty after start()).
  const std::vector<JournalRecord>& records() const { return records_; }
  /// Frees the records read (after they were replayed).
  void release_records() { std::vector<JournalRecord>().swap(records_); }

  /// Hands a finished chunk to the writer thread; waits while two are already waiting. Throws
  /// std::runtime_error when an earlier record could not be written (e.g. the disk is full).
  void append(JournalRecord record);

  /// Waits until every record is written and synced. Throws std::runtime_error when one could
  /// not be.
  void finish();

  const std::string& path() const { return path_; }

 private:
  RunJournal() = default;
  void sync_now();
  void write_record(const JournalRecord& record);
  void start_writer();
  void writer_loop();
  void stop_writer() noexcept;

  std::string path_;
  int fd_ = -1;
  double last_sync_s_ = 0;  ///< steady-clock seconds of the last fdatasync
  std::vector<JournalRecord> records_;
  // The writer thread and the records waiting for it.
  std::thread writer_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<JournalRecord> waiting_;
  bool writing_ = false;  ///< the writer holds a record it took from waiting_
  bool closing_ = false;
  std::exception_ptr error_;
};

}  // namespace gpucap
