// gpucap data: the job-log import front (see job_import.hpp) and what the readers share.
#include "gpucap/data/job_import.hpp"

#include <charconv>
#include <chrono>
#include <stdexcept>

#include "gpucap/data/delimited.hpp"
#include "gpucap/detail/text.hpp"

#include "job_logs.hpp"

namespace gpucap::data {
namespace detail {

JobState classify_state(std::string_view state) {
  std::string word;
  for (char c : state) {
    if (c == ' ' || c == '+' || c == '(') break;
    word += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  }
  if (word == "CANCELLED" || word == "CANCELED" || word == "KILLED") return JobState::cancelled;
  if (word == "PENDING" || word == "QUEUED" || word == "WAITING") return JobState::pending;
  if (word == "RUNNING" || word == "SUSPENDED" || word == "COMPLETING" || word == "CONFIGURING" ||
      word == "RESIZING" || word == "STOPPED" || word == "SIGNALING" || word == "STAGE_OUT" ||
      word == "PROCESSING")
    return JobState::running;
  if (word == "REQUEUED" || word == "REQUEUE_HOLD" || word == "REQUEUE_FED")
    return JobState::requeued;
  if (word == "COMPLETED" || word == "FAILED" || word == "TIMEOUT" || word == "NODE_FAIL" ||
      word == "OUT_OF_MEMORY" || word == "OUT_OF_ME" || word == "PREEMPTED" ||
      word == "BOOT_FAIL" || word == "DEADLINE" || word == "PASS" || word == "SUCCEEDED" ||
      word == "SUCCEED" || word == "SUCCESS" || word == "DONE")
    return JobState::ended;
  return JobState::unknown;
}

bool parse_gpu_count(std::string_view text, uint64_t& gpus) {
  // Digits, optionally followed by a decimal point and zeros ("4", "4.0", "4."): no sign, no
  // exponent, no spaces.
  const std::size_t point = text.find('.');
  const std::string_view whole = text.substr(0, point);
  if (whole.empty() || whole.find_first_not_of("0123456789") != std::string_view::npos)
    return false;
  if (point != std::string_view::npos &&
      text.find_first_not_of('0', point + 1) != std::string_view::npos)
    return false;
  uint64_t value = 0;
  const auto r = std::from_chars(whole.data(), whole.data() + whole.size(), value);
  if (r.ec != std::errc() || r.ptr != whole.data() + whole.size() || value > kMaxGpuCount)
    return false;
  gpus = value;
  return true;
}

std::vector<std::string> read_header(LineReader& in, char separator, bool quotes,
                                     const std::string& format) {
  std::string_view line;
  std::vector<std::string_view> fields;
  std::vector<std::string> scratch;
  while (in.next(line)) {
    if (in.line_number() == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    if (!split_fields(line, separator, quotes, fields, scratch))
      throw DataFileError(text::excerpt(in.path(), 300) + ":" + std::to_string(in.line_number()) +
                          ": the header has a quoted field that is not closed");
    return std::vector<std::string>(fields.begin(), fields.end());
  }
  throw DataFileError(text::excerpt(in.path(), 300) + ": the file is empty; a " + format +
                      " log starts with a header line naming its columns (see "
                      "docs/importing.md)");
}

int find_column(const std::vector<std::string>& header, const std::string& name, bool required,
                const LineReader& in, const std::string& needs) {
  const int c = column_of(header, name);
  if (c >= 0 || !required) return c;
  std::vector<std::string> shown;
  for (const std::string& h : header) shown.push_back(text::excerpt(h, 40));
  if (shown.size() > 30) shown.resize(30), shown.push_back("...");
  throw DataFileError(text::excerpt(in.path(), 300) + ": the header has no column \"" +
                      text::excerpt(name) + "\"; " + needs +
                      "; columns found: " + text::join(shown, ", "));
}

MappedColumns::MappedColumns(std::vector<std::string> header, const ImportOptions& options)
    : header_(std::move(header)), file_columns_(header_.size()), options_(options) {
  for (const auto& [field, value] : options.constants) header_.push_back("=" + field);
}

std::string MappedColumns::column_for(const std::string& field,
                                      const std::string& default_column) const {
  for (const auto& [f, value] : options_.constants)
    if (f == field) return "=" + field;
  for (const auto& [f, column] : options_.mapping)
    if (f == field) return column;
  return default_column;
}

bool MappedColumns::user_named(const std::string& field) const {
  for (const auto& [f, value] : options_.constants)
    if (f == field) return true;
  for (const auto& [f, column] : options_.mapping)
    if (f == field) return true;
  return false;
}

void MappedColumns::with_constants(std::vector<std::string_view>& fields) const {
  for (const auto& [field, value] : options_.constants) fields.emplace_back(value);
}

bool TableRows::next() {
  std::string_view text;
  while (in_.next(text)) {
    if (text.find_first_not_of(" \t") == std::string_view::npos) continue;
    ++report_.records;
    line_ = in_.line_number();
    if (!split_fields(text, separator_, true, fields_, scratch_)) {
      report_.drop(kUnclosedQuote, line_);
      continue;
    }
    if (fields_.size() != columns_.file_columns()) {
      report_.drop(fields_.size() < columns_.file_columns() ? kMissingFields : kExtraFields, line_);
      continue;
    }
    columns_.with_constants(fields_);
    return true;
  }
  return false;
}

void append_extra(std::string& extra, std::string_view field, uint64_t line, ImportReport& report) {
  extra += ',';
  TextRepairs repairs;
  extra += csv_text_field(field, &repairs);
  if (repairs.replaced) report.note(kRepairedText, line);
  if (repairs.formula) report.note(kFormulaText, line);
}

}  // namespace detail

const std::vector<std::string>& job_log_format_names() {
  static const std::vector<std::string> names = {"slurm", "kubernetes", "philly", "helios", "csv",
                                                   "llm"};
  return names;
}

JobLogFormat parse_job_log_format(const std::string& name) {
  const auto& names = job_log_format_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<JobLogFormat>(i);
  throw std::invalid_argument("unknown format '" + text::excerpt(name) +
                              "'; valid: " + text::join(names, ", ") + " (see docs/importing.md)");
}

std::vector<std::pair<std::string, std::string>> parse_column_mapping(const std::string& text,
                                                                      const std::string& option) {
  const bool constants = option == "--set-column";
  static const std::vector<std::string> fields = {"submit", "start", "end",   "duration", "gpus",
                                                  "state",  "class", "context", "output"};
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& part : text::split(text, ',')) {
    const std::string item = text::trim(part);
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    const std::string field = text::trim(item.substr(0, eq));
    if (eq == std::string::npos || text::trim(item.substr(eq + 1)).empty())
      throw std::invalid_argument(
          option +
          (constants ? " takes field=value pairs separated by commas, e.g. gpus=1,state=done"
                     : " takes field=column pairs separated by commas, e.g. "
                       "submit=created_at,end=finished,gpus=n_gpu") +
          "; got \"" + text::excerpt(item) + "\"");
    bool known = false;
    for (const std::string& f : fields) known |= f == field;
    if (!known)
      throw std::invalid_argument(option + ": unknown field '" + text::excerpt(field) +
                                  "'; valid: " + text::join(fields, ", "));
    for (const auto& [f, c] : out)
      if (f == field)
        throw std::invalid_argument(option + ": the field '" + field + "' is given twice");
    out.emplace_back(field, text::trim(item.substr(eq + 1)));
  }
  return out;
}

ImportReport import_job_log(JobLogFormat format, const std::string& input,
                            const ImportOptions& options, const TraceWriter::Sink& sink) {
  const auto started = std::chrono::steady_clock::now();
  ImportReport report;
  report.format = job_log_format_names()[static_cast<std::size_t>(format)];
  report.input = input;
  std::vector<std::string> extra;
  switch (format) {
    case JobLogFormat::slurm:
      extra = {"partition", "account"};
      break;
    case JobLogFormat::kubernetes:
      extra = {"gpu_milli", "gpu_model", "qos"};
      break;
    case JobLogFormat::philly:
      extra = {"vc", "user", "status"};
      break;
    case JobLogFormat::helios:
      extra = {"user", "vc", "type"};
      break;
    case JobLogFormat::csv:
      for (const auto& [field, column] : options.mapping)
        if (field == "class") extra = {"class"};
      break;
    case JobLogFormat::llm:
      extra = {"context_tokens", "output_tokens"};
      for (const auto* given : {&options.mapping, &options.constants})
        for (const auto& [field, column] : *given)
          if (field == "class") extra.push_back("class");
      break;
  }
  TraceOptions trace = options.trace;
  trace.requests = format == JobLogFormat::llm;
  TraceWriter writer(extra, trace, report, sink);
  if (format == JobLogFormat::philly) {
    detail::read_philly_log(input, options, writer, report);
  } else {
    LineReader in(input);
    switch (format) {
      case JobLogFormat::slurm:
        detail::read_slurm_log(in, options, writer, report);
        break;
      case JobLogFormat::kubernetes:
        detail::read_kubernetes_log(in, options, writer, report);
        break;
      case JobLogFormat::llm:
        detail::read_token_log(in, options, writer, report);
        break;
      default:
        detail::read_table_log(in, format, options, writer, report);
        break;
    }
  }
  writer.finish();
  report.times = time_format_text(options.time_format);
  report.zone_offset_minutes = options.zone.offset_minutes;
  report.relative_times = is_relative(options.time_format);
  // Epoch times before 2000 in a GPU log are almost surely times since the log's start.
  constexpr int64_t k2000Ms = 946684800000;
  if (!report.relative_times && options.time_format != TimeFormat::iso8601 && report.has_origin &&
      report.origin_ms < k2000Ms && report.kept > 0)
    report.warnings.push_back(
        "the times read as calendar times fall before 2000 (the origin is " +
        format_utc(report.origin_ms) +
        "): if they count from the log's start, give --time-format seconds (or ms)");
  report.jobs = report.kept + report.dropped();
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

}  // namespace gpucap::data
