// gpucap: the JSON availability trace a pool's `availability` and a distribution's `preemption_log`
// read (the public spot traces' layout). Private to the loader.
#pragma once
#include <string>
#include <vector>

#include "gpucap/json_reader.hpp"

namespace gpucap::loader {

/// The two values of an availability trace in JSON, {"metadata": {"gap_seconds": N}, "data":
/// [counts...]}, read strictly: a string is not a number, every count is a number >= 0, the gap
/// a number of seconds > 0 (within the bounds of every duration). Other metadata is ignored.
class AvailabilityJson : public JsonVisitor {
 public:
  bool has_gap = false, has_data = false;
  double gap_s = 0;
  std::vector<double> counts;

  void begin_object(const std::string& path, const JsonPosition& at) override {
    if (path == "data" || is_count(path)) refuse(path, "an object", at);
  }
  void begin_array(const std::string& path, const JsonPosition& at) override {
    if (path == "data") {
      has_data = true;
      return;
    }
    if (path == "" || path == "metadata" || path == "metadata.gap_seconds" || is_count(path))
      refuse(path, "a list", at);
  }
  void end(const std::string&) override {}
  void number(const std::string& path, double v, const JsonPosition& at) override {
    if (path == "metadata.gap_seconds") {
      if (!(v >= kMinDurationS && v <= kMaxDurationS))
        throw JsonError(at,
                                "metadata.gap_seconds must be a number of seconds from 1e-6 "
                                "to 3.156e11, got " +
                                    text::format_number(v));
      gap_s = v;
      has_gap = true;
    } else if (is_count(path)) {
      if (!(v >= 0 && v <= kMaxMagnitude))
        throw JsonError(at, path + " (instances) must be a count from 0 to 1e12, got " +
                                        text::format_number(v));
      counts.push_back(v);
    } else if (path == "" || path == "metadata" || path == "data") {
      refuse(path, "a number", at);
    }
  }
  void other(const std::string& path, const char* kind, const std::string& value,
             const JsonPosition& at) override {
    if (path == "" || path == "metadata" || path == "metadata.gap_seconds" || path == "data" ||
        is_count(path))
      refuse(path,
             std::string("the ") + kind + " " +
                 (std::string(kind) == "string" ? "\"" + text::excerpt(value) + "\"" : value),
             at);
  }

 private:
  /// "data[N]": one count (deeper paths are refused where they start).
  static bool is_count(const std::string& path) {
    return path.size() > 6 && path.compare(0, 5, "data[") == 0 &&
           path.find('[', 5) == std::string::npos && path.back() == ']';
  }
  [[noreturn]] static void refuse(const std::string& path, const std::string& got,
                                  const JsonPosition& at) {
    const std::string what = path.empty()                     ? "the document"
                             : path == "metadata"             ? "metadata"
                             : path == "metadata.gap_seconds" ? "metadata.gap_seconds"
                             : path == "data"                 ? "data"
                                                              : path + " (instances)";
    const std::string valid = path.empty()                     ? "an object with metadata and data"
                              : path == "metadata"             ? "an object with gap_seconds"
                              : path == "data"                 ? "a list of counts"
                              : path == "metadata.gap_seconds" ? "a number of seconds"
                                                               : "a number";
    throw JsonError(at, what + " must be " + valid + ", got " + got);
  }
};

}  // namespace gpucap::loader
