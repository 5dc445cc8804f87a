// gpucap: the layout of the HDF5 results file: every group, dataset, attribute and summary
// field, with its type, shape, unit and meaning.
//
// One table. The writer and the reader (sim/results/src/hdf5_write.cpp, hdf5_read.cpp; the plain
// rows through the generic walkers of hdf5_items.cpp) spell every name through it,
// docs/results-format.md's overview, root-attribute and summary-field tables are generated from
// it (hdf5_layout_markdown, checked by tests/unit/generated_docs_test.cpp), and Python sees it
// as gpucap._core.results_file_layout(). A new plain attribute or column is one row here plus
// its binding in hdf5_items.cpp; any other item, one row plus its write and read.
//
//   for (const gpucap::Hdf5Item* item : gpucap::kHdf5Layout)
//     std::printf("%s %s\n", gpucap::hdf5_item_path(*item).c_str(), item->description);
#pragma once
#include <cstddef>
#include <string>

namespace gpucap {

/// What an item of the file is.
enum class Hdf5Kind { group, dataset, attribute };

/// The type of an item's values (group: none).
enum class Hdf5Type {
  none,
  int32,
  uint32,
  uint64,
  float64,
  string,        ///< variable-length UTF-8
  fixed_string,  ///< null-padded UTF-8 of a fixed width (compound fields)
  compound,      ///< a table whose fields are kHdf5SummaryFields
};

/// One group, dataset or attribute of the file.
struct Hdf5Item {
  Hdf5Kind kind;
  /// The group it is in (an attribute: the object it is on), e.g. "/" or "/pools";
  /// kHdf5EveryMetricDataset for the attributes of every metric dataset.
  const char* parent;
  /// Its name there; "<metric>" and "<pool metric>" stand for one per metric of the tables in
  /// gpucap/metrics.hpp.
  const char* name;
  Hdf5Type type;
  /// Symbolic shape, e.g. "[P, R]" (see kHdf5Notation); "" for a scalar or a group.
  const char* shape;
  const char* unit;      ///< unit of the values; "" when they have none
  const char* presence;  ///< "" when always present, else when, e.g. "only when S > 0"
  const char* description;
};

/// The attributes with which HDF5 dimension scales (H5DS, as netCDF-4 writes them) name the
/// dimensions of datasets: CLASS and NAME on a scale (a coordinate dataset such as `/point`),
/// REFERENCE_LIST on a scale (the datasets attached to it), DIMENSION_LIST on every dataset with
/// named dimensions (from format version 4). HDF5's high-level library writes them; the reader
/// does not need them.
inline constexpr const char* kHdf5DimensionScaleAttributes[] = {"CLASS", "NAME", "REFERENCE_LIST",
                                                                "DIMENSION_LIST"};

/// The parent of the attributes that every metric dataset carries.
inline constexpr const char* kHdf5EveryMetricDataset = "every metric dataset";

/// Widths of the compound tables' fixed strings, in bytes; longer text is truncated.
inline constexpr std::size_t kHdf5MetricNameBytes = 32;
inline constexpr std::size_t kHdf5UnitBytes = 16;
inline constexpr std::size_t kHdf5PoolNameBytes = 64;

/// The user block that starts every file: gpucap's header with the file's checksum and size,
/// "GPUCAP RESULTS FILE\nchecksum: <16 hex digits>\nbytes: <file size>\n", then zeros.
inline constexpr std::size_t kHdf5UserBlockBytes = 512;
inline constexpr char kHdf5UserBlockMagic[] = "GPUCAP RESULTS FILE\n";

/// The items, by name. Their order in kHdf5Layout is the documentation's.
namespace h5 {

// clang-format off
inline constexpr Hdf5Item kRoot{Hdf5Kind::group, "", "/", Hdf5Type::none, "", "", "",
    "root attributes (provenance, see below)"};
inline constexpr Hdf5Item kFormatVersion{Hdf5Kind::attribute, "/", "format_version",
    Hdf5Type::int32, "", "", "", "layout version of this file (see the notation above)"};
inline constexpr Hdf5Item kGpucapVersion{Hdf5Kind::attribute, "/", "gpucap_version",
    Hdf5Type::string, "", "", "", "version of gpucap that wrote the file"};
inline constexpr Hdf5Item kScenarioName{Hdf5Kind::attribute, "/", "scenario_name",
    Hdf5Type::string, "", "", "", "the scenario's name"};
inline constexpr Hdf5Item kScenario{Hdf5Kind::attribute, "/", "scenario", Hdf5Type::string, "",
    "", "", "the scenario that ran, as YAML with its overrides applied: parsed again (with the "
    "scenario file's folder for relative data files) it gives the same scenario"};
inline constexpr Hdf5Item kScenarioSource{Hdf5Kind::attribute, "/", "scenario_source",
    Hdf5Type::string, "", "", "from format version 2",
    "the scenario file's text as it was read, before any override"};
inline constexpr Hdf5Item kOverridePaths{Hdf5Kind::attribute, "/", "override_paths",
    Hdf5Type::string, "[O]", "", "from format version 2",
    "the dotted path of each override (`--set`, Python `overrides`), in order"};
inline constexpr Hdf5Item kOverrideValues{Hdf5Kind::attribute, "/", "override_values",
    Hdf5Type::string, "[O]", "", "from format version 2",
    "the value of each override as given (YAML syntax), escaped by HDF5, never re-parsed"};
inline constexpr Hdf5Item kContentChecksum{Hdf5Kind::attribute, "/", "content_checksum",
    Hdf5Type::uint64, "", "", "from format version 2",
    "checksum of every value the reader returns (see [Integrity](#integrity))"};
inline constexpr Hdf5Item kBackend{Hdf5Kind::attribute, "/", "backend", Hdf5Type::string, "", "",
    "", "the backend that ran it, by its label in the backend table (`gpucap info`), e.g. "
    "`cpu-openmp`, `cuda`"};
inline constexpr Hdf5Item kBackendChoice{Hdf5Kind::attribute, "/", "backend_choice",
    Hdf5Type::string, "", "", "", "why `--backend auto` chose the backend: the cost model's "
    "expected seconds on the CPU and on the GPU, e.g. `cpu: expected 0.46 s on 16 CPU threads "
    "against 0.60 s on NVIDIA H200 (sm_90) (...); 74 M events expected`; empty when the backend "
    "was named, and in older files"};
inline constexpr Hdf5Item kDevice{Hdf5Kind::attribute, "/", "device", Hdf5Type::string, "", "",
    "", "what ran it: `NVIDIA H200 (sm_90)`, `host, 16 threads`"};
inline constexpr Hdf5Item kSeed{Hdf5Kind::attribute, "/", "seed", Hdf5Type::uint64, "", "", "",
    "the run's random seed"};
inline constexpr Hdf5Item kReplications{Hdf5Kind::attribute, "/", "replications",
    Hdf5Type::uint64, "", "", "", "replications per point that ran: every summary covers them "
    "all (`R` unless the run kept fewer rows)"};
inline constexpr Hdf5Item kKeptReplications{Hdf5Kind::attribute, "/", "kept_replications",
    Hdf5Type::uint64, "", "", "from format version 5", "`R`, replications per point whose rows "
    "the file holds (from first_replication on): all that ran unless the run kept fewer "
    "(`--rows none` or `first N`); older files hold them all"};
inline constexpr Hdf5Item kFirstReplication{Hdf5Kind::attribute, "/", "first_replication",
    Hdf5Type::uint64, "", "", "",
    "index of the first replication (0 unless the run was a chunk of a larger one)"};
inline constexpr Hdf5Item kPoints{Hdf5Kind::attribute, "/", "points", Hdf5Type::uint64, "", "",
    "", "`P`, sweep points"};
inline constexpr Hdf5Item kThreads{Hdf5Kind::attribute, "/", "threads", Hdf5Type::int32, "", "",
    "", "CPU threads, or device worker threads"};
inline constexpr Hdf5Item kWallTime{Hdf5Kind::attribute, "/", "wall_time_s", Hdf5Type::float64,
    "", "s", "", "wall-clock time of the simulation"};
inline constexpr Hdf5Item kCreatedUtc{Hdf5Kind::attribute, "/", "created_utc", Hdf5Type::string,
    "", "", "", "creation time, ISO 8601 UTC, e.g. `2026-11-29T22:40:50Z`"};

inline constexpr Hdf5Item kCoordinates{Hdf5Kind::attribute, "/", "coordinates", Hdf5Type::string,
    "", "", "from format version 4, only when S > 0", "the names of the sweep coordinates "
    "(`/<parameter>`), space-separated: netCDF readers (xarray) make them coordinates along point"};
inline constexpr Hdf5Item kPointCoordinate{Hdf5Kind::dataset, "/", "point", Hdf5Type::uint64,
    "[P]", "", "from format version 4", "dimension `point`: the sweep point indices 0 to P - 1"};
inline constexpr Hdf5Item kReplicationCoordinate{Hdf5Kind::dataset, "/", "replication",
    Hdf5Type::uint64, "[R]", "", "from format version 4", "dimension `replication`: the "
    "replication indices, first_replication to first_replication + R - 1"};
inline constexpr Hdf5Item kPoolCoordinate{Hdf5Kind::dataset, "/", "pool", Hdf5Type::string, "[K]",
    "", "from format version 4", "dimension `pool`: the pool names, in pool index order"};
inline constexpr Hdf5Item kTimeCoordinate{Hdf5Kind::dataset, "/", "time", Hdf5Type::float64, "[B]",
    "s", "from format version 4, only when the scenario sets timeseries.step",
    "dimension `time`: the start of each time-series bin (b step_s)"};
inline constexpr Hdf5Item kSweepCoordinate{Hdf5Kind::dataset, "/", "<parameter>",
    Hdf5Type::float64, "[P]", "", "from format version 4, only when S > 0",
    "one per sweep parameter, named by its dotted path, along `point`: its values as numbers "
    "(float64) when every value is a number, else as strings (a path that is not a usable name "
    "or is taken by another root item has none; `/sweep/values` has every value)"};

inline constexpr Hdf5Item kSummary{Hdf5Kind::dataset, "/", "summary", Hdf5Type::compound,
    "[P * M]", "", "", "scalar metric summaries (from format version 4 its own dimension scale, "
    "`summary`)"};
inline constexpr Hdf5Item kDifferenceSummary{Hdf5Kind::dataset, "/", "difference_summary",
    Hdf5Type::compound, "[P * M]", "", "from format version 5, only when R < replications",
    "the paired difference of each scalar metric from point 0 (point p minus point 0, "
    "replication by replication) over every replication that ran, with /summary's fields; its "
    "percentiles are NaN (the rows that would give them were not kept)"};
inline constexpr Hdf5Item kReplicationsGroup{Hdf5Kind::group, "/", "replications",
    Hdf5Type::none, "", "", "", "per-replication scalar metrics, in the metric table's order"};
inline constexpr Hdf5Item kScalarMetric{Hdf5Kind::dataset, "/replications", "<metric>",
    Hdf5Type::float64, "[P, R]", "", "", "one per scalar metric (M)"};
inline constexpr Hdf5Item kPoolsGroup{Hdf5Kind::group, "/", "pools", Hdf5Type::none, "", "", "",
    "per-replication pool metrics"};
inline constexpr Hdf5Item kPoolNamesAttr{Hdf5Kind::attribute, "/pools", "pool_names",
    Hdf5Type::string, "[K]", "", "", "the pool names, in pool index order"};
inline constexpr Hdf5Item kPoolNames{Hdf5Kind::dataset, "/pools", "names", Hdf5Type::string,
    "[K]", "", "", "pool names, in pool index order"};
inline constexpr Hdf5Item kPoolMetric{Hdf5Kind::dataset, "/pools", "<pool metric>",
    Hdf5Type::float64, "[P, R, K]", "", "", "one per pool metric (N)"};
inline constexpr Hdf5Item kMetricUnit{Hdf5Kind::attribute, kHdf5EveryMetricDataset, "unit",
    Hdf5Type::string, "", "", "", "the unit of the dataset's values"};
inline constexpr Hdf5Item kMetricDescription{Hdf5Kind::attribute, kHdf5EveryMetricDataset,
    "description", Hdf5Type::string, "", "", "", "what the dataset's values are"};
inline constexpr Hdf5Item kPoolSummary{Hdf5Kind::dataset, "/", "pool_summary",
    Hdf5Type::compound, "[P * K * N]", "", "", "pool metric summaries (from format version 4 its own dimension "
    "scale, `pool_summary`)"};
inline constexpr Hdf5Item kSweepGroup{Hdf5Kind::group, "/", "sweep", Hdf5Type::none, "", "", "",
    "the sweep grid"};
inline constexpr Hdf5Item kSweepParameters{Hdf5Kind::attribute, "/sweep", "parameters",
    Hdf5Type::int32, "", "", "", "`S`, the number of sweep parameters"};
inline constexpr Hdf5Item kSweepPoints{Hdf5Kind::attribute, "/sweep", "points", Hdf5Type::uint64,
    "", "", "", "`P`, sweep points"};
inline constexpr Hdf5Item kSweepPaths{Hdf5Kind::dataset, "/sweep", "paths", Hdf5Type::string,
    "[S]", "", "only when S > 0", "the dotted scenario path of each varied parameter"};
inline constexpr Hdf5Item kSweepValues{Hdf5Kind::dataset, "/sweep", "values", Hdf5Type::string,
    "[S, P]", "", "only when S > 0",
    "`values[i, p]`: parameter `i`'s value at point `p`, exactly as the user wrote it"};
inline constexpr Hdf5Item kTimeseriesGroup{Hdf5Kind::group, "/", "timeseries", Hdf5Type::none,
    "", "", "only when the scenario sets timeseries.step", "GPUs in use over time"};
inline constexpr Hdf5Item kTimeseriesStep{Hdf5Kind::attribute, "/timeseries", "step_s",
    Hdf5Type::float64, "", "s", "", "the bins' width"};
inline constexpr Hdf5Item kGpusInUse{Hdf5Kind::dataset, "/timeseries", "gpus_in_use",
    Hdf5Type::float64, "[P, R, K, B]", "GPUs", "",
    "mean GPUs in use per pool over each bin of step_s seconds"};
inline constexpr Hdf5Item kSettlingGroup{Hdf5Kind::group, "/", "settling", Hdf5Type::none, "",
    "", "only when the run records no time series and was probed",
    "the settling probe: GPUs in use over the horizon, summed over pools, and jobs waiting, "
    "averaged over the run's first replications, simulated again (what the start-up transient "
    "warning reads)"};
inline constexpr Hdf5Item kSettlingStep{Hdf5Kind::attribute, "/settling", "step_s",
    Hdf5Type::float64, "", "s", "", "the bins' width"};
inline constexpr Hdf5Item kSettlingReplications{Hdf5Kind::attribute, "/settling",
    "replications", Hdf5Type::uint64, "", "", "", "the replications averaged: the first ones"};
inline constexpr Hdf5Item kSettlingMean{Hdf5Kind::dataset, "/settling", "gpus_in_use_mean",
    Hdf5Type::float64, "[P * B]", "GPUs", "",
    "mean GPUs in use over each bin of step_s seconds, point-major"};
inline constexpr Hdf5Item kSettlingWaiting{Hdf5Kind::dataset, "/settling", "jobs_waiting_mean",
    Hdf5Type::float64, "[P * B]", "jobs", "from format version 3 (gpucap 0.1, December 2026)",
    "mean jobs (and deployment instances) waiting over each bin of step_s seconds, point-major"};
inline constexpr Hdf5Item kInputsGroup{Hdf5Kind::group, "/", "inputs", Hdf5Type::none, "", "",
    "from format version 3", "provenance of the data files the run read (traces, samples, "
    "catalogs, availability and price traces; not the scenario file, whose text is in the root "
    "attributes), each once, in the order first read; empty datasets when it read none"};
inline constexpr Hdf5Item kInputPath{Hdf5Kind::dataset, "/inputs", "path", Hdf5Type::string,
    "[I]", "", "", "each file's path as the scenario names it"};
inline constexpr Hdf5Item kInputResolvedPath{Hdf5Kind::dataset, "/inputs", "resolved_path",
    Hdf5Type::string, "[I]", "", "", "the absolute path read, links resolved"};
inline constexpr Hdf5Item kInputSize{Hdf5Kind::dataset, "/inputs", "size_bytes",
    Hdf5Type::uint64, "[I]", "bytes", "", "bytes read from the file"};
inline constexpr Hdf5Item kInputSha256{Hdf5Kind::dataset, "/inputs", "sha256", Hdf5Type::string,
    "[I]", "", "", "SHA-256 of the bytes parsed, 64 lowercase hex digits (as `sha256sum` prints)"};
inline constexpr Hdf5Item kStoppingRule{Hdf5Kind::attribute, "/", "stopping_rule",
    Hdf5Type::string, "", "", "from format version 4",
    "how the replication count was chosen: empty for a fixed count, else the stopping rule "
    "(`--precision`) and its outcome"};
inline constexpr Hdf5Item kGoalsGroup{Hdf5Kind::group, "/", "goals", Hdf5Type::none, "", "",
    "from format version 4, only when G > 0", "the scenario's goals and, per replication, "
    "whether each was met"};
inline constexpr Hdf5Item kGoalNames{Hdf5Kind::dataset, "/goals", "names", Hdf5Type::string,
    "[G]", "", "", "each goal's name"};
inline constexpr Hdf5Item kGoalDefinitions{Hdf5Kind::dataset, "/goals", "definitions",
    Hdf5Type::string, "[G]", "", "", "each goal's conditions, joined with ` and `"};
inline constexpr Hdf5Item kGoalDescriptions{Hdf5Kind::dataset, "/goals", "descriptions",
    Hdf5Type::string, "[G]", "", "", "each goal's description (empty when none)"};
inline constexpr Hdf5Item kGoalTargets{Hdf5Kind::dataset, "/goals", "targets", Hdf5Type::string,
    "[G]", "", "", "each goal's target probability as a decimal number (`%.17g`), empty when none"};
inline constexpr Hdf5Item kGoalMet{Hdf5Kind::dataset, "/goals", "met", Hdf5Type::float64,
    "[P, R, G]", "", "", "1 when the replication met the goal, else 0"};
inline constexpr Hdf5Item kGoalMetCount{Hdf5Kind::dataset, "/goals", "met_count",
    Hdf5Type::uint64, "[P * G]", "", "from format version 5", "replications that met each goal, "
    "of every one that ran (also when R < replications), point-major"};
inline constexpr Hdf5Item kJobsGroup{Hdf5Kind::group, "/", "jobs", Hdf5Type::none, "", "",
    "only when the scenario sets records.jobs", "per-job records for debugging: every job of "
    "the first replications of each point, by point, replication and job id (one row each)"};
inline constexpr Hdf5Item kJobsReplications{Hdf5Kind::attribute, "/jobs", "replications",
    Hdf5Type::uint64, "", "", "", "replications recorded per point: first_replication onwards, "
    "min(records.jobs, R)"};
inline constexpr Hdf5Item kJobClasses{Hdf5Kind::dataset, "/jobs", "classes", Hdf5Type::string,
    "[C]", "", "", "the workload names, in the scenario's order (what `class` indexes)"};
inline constexpr Hdf5Item kJobPoint{Hdf5Kind::dataset, "/jobs", "point", Hdf5Type::uint64, "[J]",
    "", "", "the job's sweep point"};
inline constexpr Hdf5Item kJobReplication{Hdf5Kind::dataset, "/jobs", "replication",
    Hdf5Type::uint64, "[J]", "", "", "the job's replication"};
inline constexpr Hdf5Item kJobId{Hdf5Kind::dataset, "/jobs", "job", Hdf5Type::uint64, "[J]", "",
    "", "the job's id: its arrival order in the replication, from 0 (requests to inference "
    "services are not jobs)"};
inline constexpr Hdf5Item kJobClass{Hdf5Kind::dataset, "/jobs", "class", Hdf5Type::uint32, "[J]",
    "", "", "the job's workload, an index into `classes`"};
inline constexpr Hdf5Item kJobArrival{Hdf5Kind::dataset, "/jobs", "arrival_s", Hdf5Type::float64,
    "[J]", "s", "", "arrival time, from the replication's start (warm-up included)"};
inline constexpr Hdf5Item kJobStart{Hdf5Kind::dataset, "/jobs", "start_s", Hdf5Type::float64,
    "[J]", "s", "", "first launch (its GPUs taken; provisioning follows); NaN when it never "
    "launched (still waiting at the horizon, or dropped)"};
inline constexpr Hdf5Item kJobEnd{Hdf5Kind::dataset, "/jobs", "end_s", Hdf5Type::float64, "[J]",
    "s", "", "completion; NaN when not completed by the horizon"};
inline constexpr Hdf5Item kJobWait{Hdf5Kind::dataset, "/jobs", "wait_s", Hdf5Type::float64, "[J]",
    "s", "", "start_s - arrival_s, the queue wait that `wait_mean_s` averages; NaN when it never "
    "launched"};
inline constexpr Hdf5Item kJobPool{Hdf5Kind::dataset, "/jobs", "pool", Hdf5Type::int32, "[J]", "",
    "", "pool index of its last launch; -1 when it never launched"};
inline constexpr Hdf5Item kJobRuns{Hdf5Kind::dataset, "/jobs", "runs", Hdf5Type::uint32, "[J]",
    "", "", "runs begun (a launch reclaimed while provisioning begins none)"};
inline constexpr Hdf5Item kJobPreemptions{Hdf5Kind::dataset, "/jobs", "preemptions",
    Hdf5Type::uint32, "[J]", "", "", "runs reclaimed (preemption, zone event, capacity drop)"};
inline constexpr Hdf5Item kJobCost{Hdf5Kind::dataset, "/jobs", "cost_usd", Hdf5Type::float64,
    "[J]", "USD", "", "what its holds were billed as `cost_usd` counts them: compute at the "
    "pool's price (none on committed pools, billed whole) plus egress"};
inline constexpr Hdf5Item kJobTraceRow{Hdf5Kind::dataset, "/jobs", "trace_row", Hdf5Type::uint64,
    "[J]", "", "absent from files written before it (read as 0)", "the data row (1 = the "
    "first) of the file the job or instance came from: its trace, or the `initial_state` file "
    "(or a deployment's trace) for the state at t = 0; 0 when an arrival process drew it"};
// clang-format on

}  // namespace h5

/// Every item, in the documentation's order (groups before what they hold).
inline constexpr const Hdf5Item* kHdf5Layout[] = {
    &h5::kRoot,
    &h5::kFormatVersion,
    &h5::kGpucapVersion,
    &h5::kScenarioName,
    &h5::kScenario,
    &h5::kScenarioSource,
    &h5::kOverridePaths,
    &h5::kOverrideValues,
    &h5::kContentChecksum,
    &h5::kBackend,
    &h5::kBackendChoice,
    &h5::kDevice,
    &h5::kSeed,
    &h5::kReplications,
    &h5::kKeptReplications,
    &h5::kFirstReplication,
    &h5::kPoints,
    &h5::kThreads,
    &h5::kWallTime,
    &h5::kCreatedUtc,
    &h5::kStoppingRule,
    &h5::kCoordinates,
    &h5::kPointCoordinate,
    &h5::kReplicationCoordinate,
    &h5::kPoolCoordinate,
    &h5::kTimeCoordinate,
    &h5::kSweepCoordinate,
    &h5::kSummary,
    &h5::kDifferenceSummary,
    &h5::kReplicationsGroup,
    &h5::kScalarMetric,
    &h5::kPoolsGroup,
    &h5::kPoolNamesAttr,
    &h5::kPoolNames,
    &h5::kPoolMetric,
    &h5::kMetricUnit,
    &h5::kMetricDescription,
    &h5::kPoolSummary,
    &h5::kSweepGroup,
    &h5::kSweepParameters,
    &h5::kSweepPoints,
    &h5::kSweepPaths,
    &h5::kSweepValues,
    &h5::kTimeseriesGroup,
    &h5::kTimeseriesStep,
    &h5::kGpusInUse,
    &h5::kSettlingGroup,
    &h5::kSettlingStep,
    &h5::kSettlingReplications,
    &h5::kSettlingMean,
    &h5::kSettlingWaiting,
    &h5::kInputsGroup,
    &h5::kInputPath,
    &h5::kInputResolvedPath,
    &h5::kInputSize,
    &h5::kInputSha256,
    &h5::kGoalsGroup,
    &h5::kGoalNames,
    &h5::kGoalDefinitions,
    &h5::kGoalDescriptions,
    &h5::kGoalTargets,
    &h5::kGoalMet,
    &h5::kGoalMetCount,
    &h5::kJobsGroup,
    &h5::kJobsReplications,
    &h5::kJobClasses,
    &h5::kJobPoint,
    &h5::kJobReplication,
    &h5::kJobId,
    &h5::kJobClass,
    &h5::kJobArrival,
    &h5::kJobStart,
    &h5::kJobEnd,
    &h5::kJobWait,
    &h5::kJobPool,
    &h5::kJobRuns,
    &h5::kJobPreemptions,
    &h5::kJobCost,
    &h5::kJobTraceRow,
};

/// One field of the compound tables /summary and /pool_summary.
struct Hdf5Field {
  const char* name;
  Hdf5Type type;
  std::size_t bytes;  ///< width of a fixed string; 0 otherwise
  bool pool_only;     ///< only in /pool_summary
  bool required;      ///< the reader refuses a table without it
  const char* description;
};

namespace h5 {

// clang-format off
inline constexpr Hdf5Field kFieldPoint{"point", Hdf5Type::uint32, 0, false, true,
    "sweep point index"};
inline constexpr Hdf5Field kFieldPool{"pool", Hdf5Type::uint32, 0, true, true, "pool index"};
inline constexpr Hdf5Field kFieldPoolName{"pool_name", Hdf5Type::fixed_string,
    kHdf5PoolNameBytes, true, false, "pool name (truncated here only; `/pools/names` has it whole)"};
inline constexpr Hdf5Field kFieldMetric{"metric", Hdf5Type::fixed_string, kHdf5MetricNameBytes,
    false, true, "metric name (scalar or pool metric table)"};
inline constexpr Hdf5Field kFieldUnit{"unit", Hdf5Type::fixed_string, kHdf5UnitBytes, false,
    false, "the metric's unit"};
inline constexpr Hdf5Field kFieldN{"n", Hdf5Type::uint64, 0, false, true,
    "number of replications summarized"};
inline constexpr Hdf5Field kFieldMean{"mean", Hdf5Type::float64, 0, false, true,
    "mean over replications, in the metric's unit"};
inline constexpr Hdf5Field kFieldStd{"std", Hdf5Type::float64, 0, false, true,
    "sample standard deviation (n - 1 denominator)"};
inline constexpr Hdf5Field kFieldCiLow{"ci95_low", Hdf5Type::float64, 0, false, true,
    "lower end of the 95 % Student t interval of the mean"};
inline constexpr Hdf5Field kFieldCiHigh{"ci95_high", Hdf5Type::float64, 0, false, true,
    "upper end of that interval"};
inline constexpr Hdf5Field kFieldP5{"p5", Hdf5Type::float64, 0, false, true,
    "5th percentile of the replication values"};
inline constexpr Hdf5Field kFieldP50{"p50", Hdf5Type::float64, 0, false, true,
    "median of the replication values"};
inline constexpr Hdf5Field kFieldP95{"p95", Hdf5Type::float64, 0, false, true,
    "95th percentile of the replication values"};
// clang-format on

}  // namespace h5

/// The compound tables' fields in /pool_summary's order; /summary has those not pool_only.
inline constexpr const Hdf5Field* kHdf5SummaryFields[] = {
    &h5::kFieldPoint, &h5::kFieldPool, &h5::kFieldPoolName, &h5::kFieldMetric, &h5::kFieldUnit,
    &h5::kFieldN,     &h5::kFieldMean, &h5::kFieldStd,      &h5::kFieldCiLow,  &h5::kFieldCiHigh,
    &h5::kFieldP5,    &h5::kFieldP50,  &h5::kFieldP95,
};

/// What the symbols of the shapes stand for: P sweep points, R replications per point, K pools,
/// S sweep parameters, B time-series bins, O overrides, I data files, M and N the scalar and pool metric
/// counts (gpucap/metrics.hpp).
inline constexpr const char* kHdf5Notation =
    "`P` = number of sweep points (1 for a plain run), `R` = replications per point whose rows "
    "the file holds (`kept_replications`: all that ran unless `--rows` kept fewer), `K` = "
    "number of pools, `S` = number of sweep parameters, `B` = time-series bins, `O` = number of "
    "overrides, `I` = number of data files read, `G` = number of goals, `J` = job records, `C` = "
    "number of workloads";

/// The item's full path: "/pools/names"; an attribute as "/pools@pool_names".
std::string hdf5_item_path(const Hdf5Item& item);

/// The item's type in words, e.g. "float64", "string", "fixed string, 32 bytes".
std::string hdf5_type_name(Hdf5Type type, std::size_t bytes = 0);

/// A generated part of docs/results-format.md: "notation", "overview", "root-attributes",
/// "group-attributes", "summary-fields" or "pool-summary-fields". Throws std::invalid_argument
/// for another name.
std::string hdf5_layout_markdown(const std::string& part);

}  // namespace gpucap
