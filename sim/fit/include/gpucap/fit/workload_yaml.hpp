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
#include "gpucap/fit/burst_fit.hpp"
#include "gpucap/fit/drift_fit.hpp"
#include "gpucap/fit/fleet_trend.hpp"
#include "gpucap/fit/job_trace.hpp"
#include "gpucap/fit/parameter_uncertainty.hpp"
#include "gpucap/fit/run_time_model.hpp"
#include "gpucap/fit/survivors.hpp"

namespace gpucap::fit {

constexpr std::size_t kInlineEmpiricalValues = 20;

/// What was fitted for one class.
struct ClassFit {
  /// Deployments: the `initial_state` file's name (relative to the YAML's folder); empty when
  /// no instance is in the state chosen.
  std::string state_file;
  std::size_t state_rows = 0;  ///< its instances
  const JobClass* job_class = nullptr;
  ArrivalFit arrivals;
  RunTimeModel run_time;
  /// When run_time is empirical with more than kInlineEmpiricalValues values: the samples
  /// file's name as the YAML refers to it (relative to the YAML's folder).
  std::string samples_file;
  /// About the arrivals: a rate that drifts, and what was done about it (YAML comments and
  /// stderr, as the run-time warnings).
  std::vector<std::string> arrival_notes;
  bool arrival_warning = false;  ///< arrival_notes hold a warning (a drift left averaged)
  /// The doubt about the rate written and the run time's (lifetime's) scale, written as the
  /// workload's `uncertainty` (parameter_uncertainty.hpp).
  RateUncertainty arrival_uncertainty;
  /// The over-dispersion test of the arrivals and, where they are burstier than Poisson, the
  /// Cox process written as `arrivals.burst` (burst_fit.hpp).
  BurstFit bursts;
  /// How fast the rate's level wanders from day to day (drift_fit.hpp), written as
  /// `arrivals.drift` when positive.
  DriftFit drift;
  double scale_uncertainty = 0;
  /// Deployments with --state end: the instances running at the forecast's start still running
  /// after 1 day and after the window's length, by the fitted lifetime and by the log's own
  /// survival curve (survivors.hpp).
  std::vector<SurvivorCheck> survivors;
};

/// "after 1 d: 75.2 of 3100 by the lifetime, 17.0 by the log's survival curve (over 3050 it
/// covers: 74.1 by the lifetime)": one line per SurvivorCheck.
std::string describe_survivors(const SurvivorCheck& c);

/// What `gpucap fit` does with an arrival rate that drifts over the window (the trend test of
/// arrival_fit.hpp):
enum class TrendChoice {
  average,      ///< the window's average rate (said loudly when the drift is significant)
  extrapolate,  ///< the fitted level at the window's end (the log-linear trend carried there)
  last_week,    ///< fitted on the window's last 7 days alone (windows of at least 14 days)
};

/// What the trace's rows are, and so which kind of workload each class becomes.
enum class FitKind {
  job,         ///< jobs: `kind: batch` with `work` (a run on the reference GPU)
  service,     ///< requests of an inference service: `kind: inference` with `service`, on the
               ///< first --placement pool, with replicas for about 70% busy at the mean load
  deployment,  ///< instances of an instance log: `kind: deployment` with `lifetime` and an
               ///< `initial_state` file (StateChoice)
  llm,         ///< requests of an LLM request log: `kind: inference` with `llm` (the model,
               ///< tensor parallel, and the joint token sample as a file), on the first
               ///< --placement pool
};

/// Which moment of an instance log a deployment's `initial_state` file describes.
enum class StateChoice {
  start,  ///< the log's start (t = 0): the instances alive then, with their logged ends
          ///< (blank when still running at the log's end), to run the log's own window
  end,    ///< the log's end: the instances still running, `remaining: unknown` with their age
          ///< then, drawn from the fitted lifetime given the age: a forecast from today
};

struct WorkloadYamlOptions {
  std::string source;                  ///< the trace's path, for the header comment
  std::vector<std::string> placement;  ///< pools for every class; empty: a comment instead
  double alpha = 0.01;                 ///< the arrival test's level, for the comments
  /// The calendar time of t = 0, as given to --origin (empty: taken as Monday 00:00).
  std::string origin;
  FitKind kind = FitKind::job;
  StateChoice state = StateChoice::start;  ///< deployments only
  /// Seconds after a Monday 00:00 at which the scenario's t = 0 falls (the forecast's start: a
  /// deployment's log start with --state start, its end with --state end): profiles are written
  /// from that hour on. < 0: from Monday 00:00 (job and request logs, whose scenario's t = 0 the
  /// format takes as Monday 00:00).
  double start_offset_s = -1;
  /// FitKind::llm: the model served (a row of data/llm_models.csv) and the GPUs per replica.
  std::string llm_model;
  uint32_t llm_gpus = 1;
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

/// Largest section fit_workloads writes, bytes: the loader reads at most 1 MiB of scenario,
/// and the section leaves 64 KiB of it to the scenario's name, horizon and pools.
constexpr std::size_t kMaxWorkloadsYamlBytes = (std::size_t{1} << 20) - (std::size_t{64} << 10);

/// A file written beside the YAML: the samples of an empirical run-time distribution, or a
/// deployment's state at t = 0.
struct SamplesFile {
  std::string name;  ///< as the YAML names it: "<stem>.<class name>.runtimes.csv" (or
                     ///< ".state.csv", or an LLM class's ".tokens.csv"), no folder
  std::string path;  ///< the output's folder / name
  std::string csv;   ///< render_samples_csv's text
};

struct FitWorkloadsOptions {
  WorkloadYamlOptions yaml;
  RunTimeChoice family = RunTimeChoice::automatic;
  /// t = 0 of the trace is this long after a Monday 00:00 (gpucap fit --origin): profiles are of
  /// the calendar's hours.
  double origin_offset_s = 0;
  TrendChoice trend = TrendChoice::average;
  /// The scenario's t = 0 is the window's end whatever the kind (gpucap backtest forecasts
  /// jobs and requests from there too): every profile is written from that hour.
  bool forecast_from_end = false;
};

/// What `gpucap fit` writes for a trace: the fits, the section and its samples files.
struct FittedWorkloads {
  std::vector<ClassFit> fits;        ///< one per class of the trace (pointing into it)
  /// About the whole log: an instance log's fleet level that drifts (fleet_trend.hpp); also
  /// written as '# WARNING' comments at the section's top.
  std::vector<std::string> warnings;
  std::vector<SamplesFile> samples;  ///< to write before the YAML, which names them
  std::string yaml;
};

/// Fits every class of `trace` (arrivals at options.yaml.alpha, run times by options.family; a
/// class whose every job ran 0 s gets `work` 0 s, with a warning) and renders the section that
/// `output_path` is to hold. Every samples file is named in the output's folder: the name is
/// the output's stem and the class name (letters, digits, '-', '_', '.'), so no data can lead
/// it elsewhere. Throws std::invalid_argument when a file name would exceed 255 bytes, when the
/// section would exceed kMaxWorkloadsYamlBytes, or when a rate is beyond the format's range.
FittedWorkloads fit_workloads(const JobTrace& trace, const std::string& output_path,
                              const FitWorkloadsOptions& options);

}  // namespace gpucap::fit
