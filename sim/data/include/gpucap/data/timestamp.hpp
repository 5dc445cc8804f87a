// gpucap data: timestamps of job logs, as whole milliseconds since 1970-01-01T00:00:00Z.
//
// Accepted forms (TimeFormat::automatic tries them in this order):
//   epoch seconds    1700000000, 1700000000.25, 0 (the Alibaba traces count from 0)
//   ISO 8601         2024-03-01T12:34:56, 2024-03-01 12:34:56.5, 2024-03-01T12:34Z,
//                    2024-03-01T12:34:56+02:00, ...-0530, ...+02, 2024-03-01 (midnight)
// An ISO time without an offset is local time of the log's zone (--timezone); one with an
// offset (Z, +HH:MM, +HHMM, +HH) uses its own. Zones are fixed offsets from UTC: an IANA name
// such as Europe/Berlin is refused, because its offset changes with daylight saving time and
// a local time in the autumn's repeated hour is ambiguous; give the offset in force instead.
// Years 1000 to 9999; seconds may be 60 (a leap second, counted as the next second).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace gpucap::data {

/// How a log writes its times.
enum class TimeFormat {
  automatic,      ///< a plain number is epoch seconds, anything else ISO 8601
  epoch_seconds,  ///< seconds since 1970-01-01T00:00:00Z (fractions allowed)
  epoch_millis,   ///< milliseconds since 1970-01-01T00:00:00Z
  iso8601,        ///< ISO 8601 date and time
  /// Seconds (fractions allowed) or milliseconds since the log's own start, not a calendar
  /// time: read as if since the epoch, and the origin (submit_s = 0) is the log's 0 unless
  /// --origin (in seconds) moves it.
  relative_seconds,
  relative_millis,
};

/// Whether `f` counts from the log's start rather than from the epoch.
inline bool is_relative(TimeFormat f) {
  return f == TimeFormat::relative_seconds || f == TimeFormat::relative_millis;
}

/// How `f` reads times, for import reports ("epoch seconds or ISO 8601 (auto)", ...).
std::string time_format_text(TimeFormat f);

/// "auto", "epoch", "epoch_ms", "iso", "seconds", "ms"; throws std::invalid_argument naming the
/// valid names.
TimeFormat parse_time_format(const std::string& text);

/// Offset of local time from UTC, in minutes (+120 for +02:00).
struct TimeZone {
  int offset_minutes = 0;
};

/// "UTC", "Z", "GMT", "+02:00", "-05:30", "+0530", "+2", "UTC+02:00". Throws
/// std::invalid_argument saying what is valid (and why IANA names are not).
TimeZone parse_time_zone(const std::string& text);

enum class TimeParse {
  ok,
  absent,     ///< empty, "Unknown", "None", "null", "N/A", "NaN": the log has no time here
  malformed,  ///< text that is no accepted form, or a date that does not exist
};

/// Parses `text` into `ms` (milliseconds since the epoch, UTC).
TimeParse parse_timestamp(std::string_view text, TimeFormat format, TimeZone zone, int64_t& ms);

/// A duration written as a clock, as Slurm's Elapsed: "[D-]HH:MM:SS", "MM:SS", with an optional
/// fraction of a second; also plain seconds ("3600"). In milliseconds; false when malformed.
bool parse_clock_duration(std::string_view text, int64_t& ms);

/// Days since 1970-01-01 of a civil (proleptic Gregorian) date.
int64_t days_from_civil(int64_t year, unsigned month, unsigned day);

/// "2024-03-01T12:34:56Z" (with ".250" when there are milliseconds): a time for messages.
std::string format_utc(int64_t ms);

}  // namespace gpucap::data
