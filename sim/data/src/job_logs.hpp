// gpucap data internals: what the job-log readers share. Each format's reader lives in its
// own file (slurm_log.cpp, kubernetes_log.cpp, philly_log.cpp, table_log.cpp).
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "gpucap/data/job_import.hpp"

namespace gpucap::data::detail {

/// A job's state as the logs write it, in the few classes the importer acts on.
enum class JobState {
  ended,      ///< COMPLETED, FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, PREEMPTED, Pass, ...
  cancelled,  ///< CANCELLED (also "CANCELLED by 123"), Killed
  pending,    ///< PENDING, Pending: never started
  running,    ///< RUNNING, SUSPENDED, COMPLETING, ...: still running at the log's end
  requeued,   ///< REQUEUED: an earlier run of a job that was queued again
  unknown,    ///< no state column, or a word not listed
};

/// The class of `state` (case-insensitive; only the first word counts).
JobState classify_state(std::string_view state);

/// The largest GPU count read from a log (2^53: every count up to it is exact in a double).
/// Counts and sums of counts above it are malformed.
inline constexpr uint64_t kMaxGpuCount = uint64_t{1} << 53;

/// A whole number of GPUs: "4", "4.0"; false for anything else (negative, fractional, an
/// exponent, junk, beyond kMaxGpuCount).
bool parse_gpu_count(std::string_view text, uint64_t& gpus);

/// `sum` = a + b; false (and `sum` unchanged) when that overflows.
inline bool checked_add(int64_t a, int64_t b, int64_t& sum) {
  if ((b > 0 && a > std::numeric_limits<int64_t>::max() - b) ||
      (b < 0 && a < std::numeric_limits<int64_t>::min() - b))
    return false;
  sum = a + b;
  return true;
}

/// Reads the first non-blank line as the header (cells trimmed, a UTF-8 byte-order mark
/// dropped). Throws DataFileError when the file has none.
std::vector<std::string> read_header(LineReader& in, char separator, bool quotes,
                                     const std::string& format);

/// The column called `name` in `header`; throws DataFileError (file, line 1, the columns
/// found, what the format needs) when it is missing and `required`, else returns -1.
int find_column(const std::vector<std::string>& header, const std::string& name, bool required,
                const LineReader& in, const std::string& needs);

/// The columns of a table log seen through --map and --set-column: a constant field becomes a
/// column named "=FIELD" after the file's own, whose cell every row gets (with_constants).
class MappedColumns {
 public:
  MappedColumns(std::vector<std::string> header, const ImportOptions& options);
  /// The column name that holds `field`: a constant's, the mapped column, or `default_column`.
  std::string column_for(const std::string& field, const std::string& default_column) const;
  /// Whether the user named `field` (mapped or set): then its column must exist.
  bool user_named(const std::string& field) const;
  /// The file's header followed by the constant columns.
  const std::vector<std::string>& header() const { return header_; }
  std::size_t file_columns() const { return file_columns_; }
  /// A row's fields (file_columns() of them, checked) followed by the constants.
  void with_constants(std::vector<std::string_view>& fields) const;

 private:
  std::vector<std::string> header_;
  std::size_t file_columns_;
  const ImportOptions& options_;
};

/// The data rows of a table log, split and checked: blank lines are skipped, every other line
/// counts as a record, and one with an unclosed quote or another field count than the header
/// is dropped with its reason; a usable row's fields are followed by the constants.
///
///   TableRows rows(in, ',', columns, report);
///   while (rows.next()) use(rows.fields(), rows.line());
class TableRows {
 public:
  TableRows(LineReader& in, char separator, const MappedColumns& columns, ImportReport& report)
      : in_(in), separator_(separator), columns_(columns), report_(report) {}
  /// Moves to the next usable row; false at the end of the input.
  bool next();
  const std::vector<std::string_view>& fields() const { return fields_; }
  uint64_t line() const { return line_; }  ///< the row's 1-based line

 private:
  LineReader& in_;
  char separator_;
  const MappedColumns& columns_;
  ImportReport& report_;
  std::vector<std::string_view> fields_;
  std::vector<std::string> scratch_;
  uint64_t line_ = 0;
};

/// Common reasons, so that every reader reports them in the same words.
inline const char* const kMissingFields = "missing fields (fewer fields than the header)";
inline const char* const kExtraFields = "more fields than the header (ragged row)";
inline const char* const kUnclosedQuote = "a quoted field not closed on its line";
inline const char* const kBadSubmit = "malformed or missing submit time";
inline const char* const kBadStart = "malformed start time";
inline const char* const kBadEnd = "malformed end time";
inline const char* const kBadGpus = "malformed GPU count";
inline const char* const kCancelledBeforeStart = "cancelled before it started";
inline const char* const kNeverStarted = "never started (pending, or no start time)";
inline const char* const kNoEnd = "no end time (and no duration) for a job that is not running";
inline const char* const kRepairedText =
    "text fields with invalid UTF-8, control characters or bidirectional controls written with "
    "'?'";
inline const char* const kFormulaText =
    "text fields that a spreadsheet would read as a formula (=, +, -, @ first) written with a "
    "leading '";

/// The readers: each reads `in` to its end, sending jobs to `out` and counting what it skips in
/// `report`.
void read_slurm_log(LineReader& in, const ImportOptions& options, TraceWriter& out,
                    ImportReport& report);
void read_kubernetes_log(LineReader& in, const ImportOptions& options, TraceWriter& out,
                         ImportReport& report);
void read_table_log(LineReader& in, JobLogFormat format, const ImportOptions& options,
                    TraceWriter& out, ImportReport& report);
/// LLM request logs (token_log.cpp): requests with their token counts.
void read_token_log(LineReader& in, const ImportOptions& options, TraceWriter& out,
                    ImportReport& report);
/// Philly reads its JSON by bytes, not lines.
void read_philly_log(const std::string& path, const ImportOptions& options, TraceWriter& out,
                     ImportReport& report);

/// ",field" for JobRecord::extra; notes repaired text in the report.
void append_extra(std::string& extra, std::string_view field, uint64_t line, ImportReport& report);

}  // namespace gpucap::data::detail
