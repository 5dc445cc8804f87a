// gpucap fitting: the `workloads:` section that `gpucap fit` writes, with comments that give
// each fit's quality (jobs, censored, AIC of every family, KS D and p, AD A² and p, the
// arrival test).
//
// The text is a complete top-level YAML key: appended to a scenario that has `name`, `horizon`
// and `pools`, it validates. An empirical run-time distribution of at most
// kInlineEmpiricalValues values is written inline (`values:`); a larger one names a CSV file of
// samples (column duration_s, seconds) that the caller writes next to the YAML.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "gpucap/fit/arrival_fit.hpp"
#include "gpucap/fit/job_trace.hpp"
#include "gpucap/fit/run_time_model.hpp"

namespace gpucap::fit {

constexpr std::size_t kInlineEmpiricalValues = 20;

/// What was fitted for one class.
struct ClassFit {
  const JobClass* job_class = nullptr;
  ArrivalFit arrivals;
  RunTimeModel run_time;
  /// When run_time is empirical with more than kInlineEmpiricalValues values: the samples
  /// file's name as the YAML refers to it (relative to the YAML's folder).
  std::string samples_file;
};

struct WorkloadYamlOptions {
  std::string source;                  ///< the trace's path, for the header comment
  std::vector<std::string> placement;  ///< pools for every class; empty: a comment instead
  double alpha = 0.01;                 ///< the arrival test's level, for the comments
};

/// The `workloads:` section. Throws std::invalid_argument when a fitted arrival rate is beyond
/// the format's range (above 1e9 jobs/s).
std::string render_workloads_yaml(const JobTrace& trace, const std::vector<ClassFit>& fits,
                                  const WorkloadYamlOptions& options);

/// A samples file for `empirical` `file:`/`column: duration_s`: a header and one value (s) per
/// line, with enough digits to read back the same doubles.
std::string render_samples_csv(const std::vector<double>& values_s);

/// "1.5 h", "874 s": seconds for comments (text::format_duration's units).
std::string format_seconds(double seconds);

}  // namespace gpucap::fit
