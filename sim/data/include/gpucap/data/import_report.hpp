// gpucap data: what an import kept, dropped and why, for stderr and for --report FILE.json.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace gpucap::data {

/// Counts of one import. Reasons are kept in the order they first occurred, so the report of
/// one input is always the same text.
class ImportReport {
 public:
  struct Count {
    std::string reason;
    uint64_t count = 0;
    uint64_t first_line = 0;  ///< 1-based line (or record number) of the first occurrence
  };

  std::string format;       ///< the input format ("slurm", ...)
  std::string input;        ///< the input file
  uint64_t records = 0;     ///< records read (data lines, or JSON objects), steps included
  uint64_t jobs = 0;        ///< jobs after folding steps and repeated records
  uint64_t kept = 0;        ///< rows written
  uint64_t censored = 0;    ///< of the kept rows, jobs still running at the log's end
  int64_t origin_ms = 0;    ///< epoch time (ms, UTC) of submit_s = 0
  int64_t log_end_ms = 0;   ///< epoch time (ms, UTC) that censored run times end at
  bool instances = false;   ///< the rows are instances (--instances): the text says so
  bool requests = false;    ///< the rows are LLM requests (--format llm): the text says so
  bool has_origin = false;
  bool has_log_end = false;
  std::string times;          ///< how times were read (time_format_text), for the report
  bool relative_times = false;  ///< times count from the log's start: origins print as seconds
  int zone_offset_minutes = 0;  ///< the zone times without an offset were read in (--timezone)
  /// What the user should check about the reading as a whole (times that look relative, ...).
  std::vector<std::string> warnings;
  double seconds = 0;       ///< wall time of the import, s

  /// A job not written, for `reason`, first seen at `line`.
  void drop(const std::string& reason, uint64_t line) { add(dropped_, reason, line); }
  /// Something done to kept data that the user should know about (folded steps, repaired
  /// text, rows written out of order).
  void note(const std::string& what, uint64_t line) { add(notes_, what, line); }

  uint64_t dropped() const;
  const std::vector<Count>& drops() const { return dropped_; }
  const std::vector<Count>& notes() const { return notes_; }
  uint64_t dropped_for(const std::string& reason) const;
  uint64_t noted(const std::string& what) const;

  /// Lines for stderr: counts with their units, each reason with its count and first line.
  std::string text() const;
  /// The same as a JSON object.
  std::string json() const;

 private:
  static void add(std::vector<Count>& counts, const std::string& reason, uint64_t line);
  std::vector<Count> dropped_, notes_;
};

}  // namespace gpucap::data
