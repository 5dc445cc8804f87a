// gpucap fitting: a job trace (the CSV layout of `process: trace`) read into job classes.
//
// Columns: submit time (s since t = 0, >= 0), GPUs (a whole number >= 1), run time (s, >= 0),
// and optionally `censored` (0, or 1 when the job was still running at the log's end, its run
// time then a lower bound). Other columns are ignored, or name the classes (`class_by`).
// Jobs with a run time of 0 s count as arrivals but are left out of the run-time sample (a
// continuous run-time family gives them no density); the count is kept. Every error names the
// file, the line, the column and what is valid, as a TraceDataError.
//
//   JobTrace t = read_job_trace(text, "trace.csv", TraceColumns{});
//   for (const JobClass& c : t.classes) fit_arrivals(c.submit_s, t.window_s);
//
// An instance log (TraceColumns::end set: what `gpucap import --instances` writes) has a start
// and an end per row instead, either blank: a blank or negative start is an instance created
// before the window (alive at t = 0), a blank end one still running when the log ended. The
// instances created in the window are the arrivals, their lifetimes the run times (censored at
// the window's end when still running); the others are each class's state at t = 0.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/csv_table.hpp"
#include "gpucap/fit/run_time_sample.hpp"

namespace gpucap::fit {

/// The trace's content is not a usable trace (a bad cell, no rows, a negative run time).
class TraceDataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Most classes a trace may have: one workload each, so that the section `gpucap fit` writes
/// stays loadable (a scenario is at most 1 MiB of YAML; a class takes 1.3 to 1.6 KiB, more with
/// a long placement list).
constexpr std::size_t kMaxClasses = 256;

struct TraceColumns {
  std::string submit = "submit_s";
  std::string duration = "duration_s";
  std::string gpus = "gpus";
  std::string censored = "censored";  ///< optional: used when the header has it
  std::string class_by = "gpus";      ///< one class per distinct value of this column
  /// An instance log's end column (s since t = 0, blank: still running at the log's end);
  /// empty for a job trace. `submit` is then the start column (blank or < 0: before t = 0)
  /// and `duration` and `censored` are not read.
  std::string end;
  /// An LLM request log's token columns (what `gpucap import --format llm` writes; Azure's
  /// ContextTokens and GeneratedTokens when the file has those instead of the defaults); empty
  /// for other traces. Only `submit` is read besides, and `class_by` when not empty (empty:
  /// one class, "llm").
  std::string context, output;
};

/// An instance of an instance log alive at t = 0 (created before it, not ended by it).
struct AliveInstance {
  double age_s = 0;        ///< how long it had run at t = 0; NaN when its start is blank
  double remaining_s = 0;  ///< its end; +infinity when still running at the log's end
  uint32_t gpus = 1;
};

struct JobClass {
  std::string value;  ///< the class column's value, as written
  /// A workload name, "<column>-<value>" ("gpus-8", "queue-prod"): letters, digits, '-', '_'
  /// and '.' only (other bytes become '_'; column cut at 40 bytes, value at 60), unique even
  /// when letter case is ignored ("-2", "-3" appended), so that it names a file safely.
  std::string name;
  uint32_t gpus = 1;             ///< GPUs per job: the most common value in the class
  bool mixed_gpus = false;       ///< jobs of the class ask for different GPU counts
  std::vector<double> submit_s;  ///< every job's submit time, seconds
  RunTimeSample run_times;       ///< jobs with run time > 0
  std::vector<double> run_time_submit_s;  ///< each run_times entry's submit time, index for index
  std::size_t zero_duration_jobs = 0;
  // Instance logs only:
  std::vector<AliveInstance> alive_at_start;  ///< created before t = 0, alive at it
  /// Every instance still running at the log's end: its age then (window end - start), s;
  /// for one whose start is blank, the window (a lower bound: it ran the whole window).
  std::vector<double> age_at_end_s;
  std::vector<uint32_t> gpus_at_end;         ///< their GPUs, index for index
  std::size_t ages_at_end_lower_bounds = 0;  ///< of them, those whose start is blank
  // LLM request logs only:
  /// Each request's (context, output) tokens, pairs in submit order (index for index with
  /// submit_s); every count from 1 to kMaxRequestTokens.
  std::vector<uint32_t> tokens;
};

/// Largest token count of an LLM request (the scenario loader's limit).
constexpr uint32_t kMaxRequestTokens = 1000000;

struct JobTrace {
  std::string origin;
  std::size_t rows = 0;
  std::size_t censored_rows = 0;
  std::size_t zero_duration_rows = 0;
  bool has_censored_column = false;
  bool instances = false;               ///< an instance log (TraceColumns::end)
  bool requests = false;                ///< an LLM request log (TraceColumns::context);
                                        ///< zero_duration_rows counts its requests without
                                        ///< a prompt or output token, left out
  std::size_t alive_at_start_rows = 0;  ///< instance logs: created before t = 0, alive at it
  /// Observation window, seconds: given, or the largest of every submit time and every
  /// censored job's submit + run time (when the log ended).
  double window_s = 0;
  std::vector<JobClass> classes;  ///< by numeric value when every value is a number, else text
};

/// Reads `text` (a whole CSV file; `origin` names it in messages). `window_s` > 0 fixes the
/// observation window (every submit time must lie inside it); 0 derives it from the data (for
/// an instance log: its last start or end). With columns.end set, reads an instance log.
/// Throws TraceDataError, also when the class column has more than kMaxClasses values.
JobTrace read_job_trace(const std::string& text, const std::string& origin,
                        const TraceColumns& columns, double window_s = 0);
/// The same from a table already parsed (`origin`: the name JobTrace::origin keeps).
JobTrace read_job_trace(const gpucap::CsvTable& table, const std::string& origin,
                        const TraceColumns& columns, double window_s = 0);

}  // namespace gpucap::fit
