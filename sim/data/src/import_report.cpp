// gpucap data: the import report (see import_report.hpp).
#include "gpucap/data/import_report.hpp"

#include <cstdio>

#include "gpucap/data/delimited.hpp"
#include "gpucap/data/timestamp.hpp"
#include "gpucap/detail/text.hpp"

namespace gpucap::data {
namespace {

using text::json_string;

std::string json_counts(const std::vector<ImportReport::Count>& counts) {
  std::string out = "[";
  for (std::size_t i = 0; i < counts.size(); ++i)
    out += std::string(i ? ", " : "") + "{\"reason\": " + json_string(counts[i].reason) +
           ", \"count\": " + std::to_string(counts[i].count) +
           ", \"first_line\": " + std::to_string(counts[i].first_line) + "}";
  return out + "]";
}

}  // namespace

void ImportReport::add(std::vector<Count>& counts, const std::string& reason, uint64_t line) {
  for (Count& c : counts)
    if (c.reason == reason) {
      ++c.count;
      return;
    }
  counts.push_back({reason, 1, line});
}

uint64_t ImportReport::dropped() const {
  uint64_t n = 0;
  for (const Count& c : dropped_) n += c.count;
  return n;
}

uint64_t ImportReport::dropped_for(const std::string& reason) const {
  for (const Count& c : dropped_)
    if (c.reason == reason) return c.count;
  return 0;
}

uint64_t ImportReport::noted(const std::string& what) const {
  for (const Count& c : notes_)
    if (c.reason == what) return c.count;
  return 0;
}

std::string ImportReport::text() const {
  const std::string what = instances ? " instances" : requests ? " requests" : " jobs";
  // A request has no run time in the log: none is censored.
  const std::string running =
      requests ? ""
               : " (" + std::to_string(censored) +
                     (instances ? " still running at the log's end, blank end"
                                : " still running at the log's end, censored") +
                     ")";
  std::string out = "gpucap import: " + format + " log '" + text::excerpt(input, 300) +
                    "': " + std::to_string(records) + " records, " + std::to_string(jobs) + what +
                    "; kept " + std::to_string(kept) + what + running + ", dropped " +
                    std::to_string(dropped()) + what + "\n";
  for (const Count& c : dropped_)
    out += "  dropped " + std::to_string(c.count) + what + ": " + c.reason + " (first at line " +
           std::to_string(c.first_line) + ")\n";
  for (const Count& c : notes_)
    out += "  note: " + std::to_string(c.count) + " x " + c.reason + " (first at line " +
           std::to_string(c.first_line) + ")\n";
  // A time of the log: calendar (UTC) or, for relative times, seconds of the log.
  const auto when = [&](int64_t ms) {
    return relative_times
               ? "the log's " + text::format_number(static_cast<double>(ms) / 1000.0) + " s"
               : format_utc(ms);
  };
  if (!times.empty()) out += "  times read as " + times + "\n";
  for (const std::string& w : warnings) out += "  warning: " + w + "\n";
  if (has_origin)
    out += std::string(instances ? "  start_s = 0 s at " : "  submit_s = 0 s at ") +
           when(origin_ms) + "\n";
  if (has_log_end && censored > 0)
    out += "  censored run times end at the log's end, " + when(log_end_ms) + "\n";
  if (has_origin && !relative_times) {
    // The origin on the log's local clock, for gpucap fit's calendar profiles.
    std::string local = format_utc(origin_ms + int64_t{60000} * zone_offset_minutes);
    if (zone_offset_minutes != 0) {
      char zone[16];
      const int m = zone_offset_minutes < 0 ? -zone_offset_minutes : zone_offset_minutes;
      std::snprintf(zone, sizeof zone, "%c%02d:%02d", zone_offset_minutes < 0 ? '-' : '+', m / 60,
                    m % 60);
      local = local.substr(0, local.size() - 1) + zone;
    }
    out +=
        "  for gpucap fit (hour-of-week profiles on the log's calendar): --origin " + local + "\n";
  }
  char rate[128];
  std::snprintf(rate, sizeof rate, "  %.3g s, %.3g records/s\n", seconds,
                seconds > 0 ? static_cast<double>(records) / seconds : 0.0);
  return out + rate;
}

std::string ImportReport::json() const {
  std::string out = "{\n";
  out += "  \"format\": " + json_string(format) + ",\n";
  out += "  \"input\": " + json_string(input) + ",\n";
  out += "  \"records\": " + std::to_string(records) + ",\n";
  out += "  \"jobs\": " + std::to_string(jobs) + ",\n";
  out += "  \"kept\": " + std::to_string(kept) + ",\n";
  out += "  \"censored\": " + std::to_string(censored) + ",\n";
  out += "  \"dropped\": " + std::to_string(dropped()) + ",\n";
  out += "  \"dropped_by_reason\": " + json_counts(dropped_) + ",\n";
  out += "  \"notes\": " + json_counts(notes_) + ",\n";
  out += "  \"times\": " + json_string(times) + ",\n";
  out += "  \"warnings\": [";
  for (std::size_t i = 0; i < warnings.size(); ++i)
    out += (i ? ", " : "") + json_string(warnings[i]);
  out += "],\n";
  out += "  \"origin_utc\": " +
         (has_origin && !relative_times ? json_string(format_utc(origin_ms)) : "null") + ",\n";
  out += "  \"origin_s\": " +
         (has_origin && relative_times ? text::format_number(origin_ms / 1000.0) : "null") + ",\n";
  out +=
      "  \"log_end_utc\": " + (has_log_end ? json_string(format_utc(log_end_ms)) : "null") + ",\n";
  char seconds_text[32];
  std::snprintf(seconds_text, sizeof seconds_text, "%.6g", seconds);
  out += std::string("  \"wall_time_s\": ") + seconds_text + "\n}\n";
  return out;
}

}  // namespace gpucap::data
