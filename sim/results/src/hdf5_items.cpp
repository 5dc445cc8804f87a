// gpucap: the results file's plain rows bound to their values, and the generic walkers that
// write and read them (see hdf5_items.hpp). A new plain attribute or column is one row of the
// layout table (gpucap/hdf5_layout.hpp) plus one binding here: the writer and the reader need
// no other change.
#include "hdf5_items.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iterator>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "gpucap/detail/hdf5_item_handling.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/hdf5_results.hpp"

namespace gpucap::hdf5_detail {
namespace {

/// A plain attribute (a number, a string or an array of strings) bound to its value in the
/// results. The writer writes get(r); the reader, for a file of format since_format on (when
/// the file has it, if may_lack), reads it and stores it with set, which refuses a value the
/// results cannot hold. set is nullptr for a value that is not read back (not_read says why).
template <typename T>
struct AttributeRow {
  const Hdf5Item* item;
  int since_format;
  bool may_lack;
  T (*get)(const RunResults&);
  void (*set)(const Context&, RunResults&, T);
  const char* not_read = "";
};

/// A column of a table of records (one dataset of a row per record) bound to a field of the
/// record; set is nullptr for a derived column that is not read back (not_read says why). The
/// reader's set sees the results read so far.
template <typename Record, typename T>
struct ColumnRow {
  const Hdf5Item* item;
  T (*get)(const Record&);
  void (*set)(const Context&, const RunResults&, Record&, T);
  const char* not_read = "";
  bool may_lack = false;  ///< files written before the column lack it (the field keeps its default)
};

using Strings = std::vector<std::string>;

/// Refuses a count attribute beyond what gpucap writes (a corrupt or hostile file), before
/// anything is allocated from it.
void check_count(const Context& c, std::size_t value, const char* name) {
  if (value > kMaxResultsReplications)
    c.fail("attribute '" + std::string(name) + "' is " + std::to_string(value) +
           ", beyond the format's limit of " + std::to_string(kMaxResultsReplications));
}

std::size_t to_size(const Context& c, uint64_t value, const char* name) {
  if (value > SIZE_MAX) c.fail(std::string("attribute '") + name + "' is too large");
  return static_cast<std::size_t>(value);
}

/// Current time as ISO-8601 UTC, e.g. "2026-11-29T22:40:50Z".
std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// ------------------------------------------------------------------------------------------
// The bindings, each table in the order the writer writes its rows (the file's bytes depend
// on it). The root's format_version and content_checksum are written after these (by hand).

// clang-format off
const auto kAttributes = std::make_tuple(
    AttributeRow<std::string>{&h5::kGpucapVersion, 1, false,
        [](const RunResults& r) { return r.gpucap_version; },
        [](const Context&, RunResults& r, std::string v) { r.gpucap_version = std::move(v); }},
    AttributeRow<std::string>{&h5::kScenarioName, 1, false,
        [](const RunResults& r) { return r.scenario_name; },
        [](const Context&, RunResults& r, std::string v) { r.scenario_name = std::move(v); }},
    AttributeRow<std::string>{&h5::kScenario, 1, false,
        [](const RunResults& r) { return r.scenario_text; },
        [](const Context&, RunResults& r, std::string v) { r.scenario_text = std::move(v); }},
    AttributeRow<std::string>{&h5::kScenarioSource, 2, false,
        [](const RunResults& r) { return r.scenario_original_text; },
        [](const Context&, RunResults& r, std::string v) {
          r.scenario_original_text = std::move(v);
        }},
    AttributeRow<Strings>{&h5::kOverridePaths, 2, false,
        [](const RunResults& r) {
          Strings paths;
          for (const auto& override_ : r.scenario_overrides) paths.push_back(override_.first);
          return paths;
        },
        [](const Context&, RunResults& r, Strings paths) {
          r.scenario_overrides.clear();
          for (std::string& path : paths) r.scenario_overrides.emplace_back(std::move(path), "");
        }},
    AttributeRow<Strings>{&h5::kOverrideValues, 2, false,
        [](const RunResults& r) {
          Strings values;
          for (const auto& override_ : r.scenario_overrides) values.push_back(override_.second);
          return values;
        },
        [](const Context& c, RunResults& r, Strings values) {  // after the paths
          if (values.size() != r.scenario_overrides.size())
            c.fail(std::string("attributes '") + h5::kOverridePaths.name + "' and '" +
                   h5::kOverrideValues.name + "' differ in length");
          for (std::size_t i = 0; i < values.size(); ++i)
            r.scenario_overrides[i].second = std::move(values[i]);
        }},
    AttributeRow<std::string>{&h5::kBackend, 1, false,
        [](const RunResults& r) { return r.backend; },
        [](const Context&, RunResults& r, std::string v) { r.backend = std::move(v); }},
    AttributeRow<std::string>{&h5::kBackendChoice, 1, true,
        [](const RunResults& r) { return r.backend_choice; },
        [](const Context&, RunResults& r, std::string v) { r.backend_choice = std::move(v); }},
    AttributeRow<std::string>{&h5::kDevice, 1, true,
        [](const RunResults& r) { return r.device; },
        [](const Context&, RunResults& r, std::string v) { r.device = std::move(v); }},
    AttributeRow<uint64_t>{&h5::kSeed, 1, false,
        [](const RunResults& r) { return r.seed; },
        [](const Context&, RunResults& r, uint64_t v) { r.seed = v; }},
    AttributeRow<uint64_t>{&h5::kReplications, 1, false,
        [](const RunResults& r) { return static_cast<uint64_t>(r.replications); },
        [](const Context& c, RunResults& r, uint64_t v) {
          r.replications = to_size(c, v, h5::kReplications.name);
          check_count(c, r.replications, h5::kReplications.name);
        }},
    AttributeRow<uint64_t>{&h5::kKeptReplications, 5, false,
        [](const RunResults& r) { return static_cast<uint64_t>(r.rows_per_point()); },
        [](const Context& c, RunResults& r, uint64_t kept) {  // after the replications
          if (kept > r.replications)
            c.fail(std::string("attribute '") + h5::kKeptReplications.name + "' (" +
                   std::to_string(kept) + ") exceeds '" + h5::kReplications.name + "' (" +
                   std::to_string(r.replications) + ")");
          if (kept < r.replications) r.kept_rows = static_cast<std::size_t>(kept);
        }},
    AttributeRow<uint64_t>{&h5::kFirstReplication, 1, true,
        [](const RunResults& r) { return r.first_replication; },
        [](const Context& c, RunResults& r, uint64_t v) {  // after the replications
          r.first_replication = v;
          // Replication indices are 64-bit: a range past 2^64 would wrap to replication 0.
          if (r.replications > 0 && r.first_replication > UINT64_MAX - (r.replications - 1))
            c.fail(std::string("attributes '") + h5::kFirstReplication.name + "' (" +
                   std::to_string(r.first_replication) + ") and '" + h5::kReplications.name +
                   "' (" + std::to_string(r.replications) +
                   ") give replication indices past 2^64 - 1, which no run can have");
        }},
    AttributeRow<uint64_t>{&h5::kPoints, 1, false,
        [](const RunResults& r) { return static_cast<uint64_t>(r.points); },
        [](const Context& c, RunResults& r, uint64_t v) {
          r.points = to_size(c, v, h5::kPoints.name);
          check_count(c, r.points, h5::kPoints.name);
        }},
    AttributeRow<int32_t>{&h5::kThreads, 1, false,
        [](const RunResults& r) { return static_cast<int32_t>(r.threads); },
        [](const Context&, RunResults& r, int32_t v) { r.threads = v; }},
    AttributeRow<double>{&h5::kWallTime, 1, false,
        [](const RunResults& r) { return r.wall_time_s; },
        [](const Context&, RunResults& r, double v) { r.wall_time_s = v; }},
    AttributeRow<std::string>{&h5::kCreatedUtc, 1, false,
        [](const RunResults&) { return utc_now(); }, nullptr,
        "when the file was written: the writing run's own provenance, no field of RunResults"},
    AttributeRow<std::string>{&h5::kStoppingRule, 4, false,
        [](const RunResults& r) { return r.stopping_rule; },
        [](const Context&, RunResults& r, std::string v) { r.stopping_rule = std::move(v); }},
    AttributeRow<Strings>{&h5::kPoolNamesAttr, 1, false,
        [](const RunResults& r) { return r.pool_names; }, nullptr,
        "the reader takes the pool names from the dataset /pools/names"},
    AttributeRow<double>{&h5::kTimeseriesStep, 1, false,
        [](const RunResults& r) { return r.timeseries_step_s; },
        [](const Context&, RunResults& r, double v) { r.timeseries_step_s = v; }},
    AttributeRow<double>{&h5::kSettlingStep, 1, false,
        [](const RunResults& r) { return r.settling.step_s; },
        [](const Context&, RunResults& r, double v) { r.settling.step_s = v; }},
    AttributeRow<uint64_t>{&h5::kSettlingReplications, 1, false,
        [](const RunResults& r) { return static_cast<uint64_t>(r.settling.replications); },
        [](const Context& c, RunResults& r, uint64_t v) {
          r.settling.replications = to_size(c, v, h5::kSettlingReplications.name);
        }},
    AttributeRow<int32_t>{&h5::kSweepParameters, 1, false,
        [](const RunResults& r) { return static_cast<int32_t>(r.sweep.size()); }, nullptr,
        "read by hand: checked, it sizes the datasets of /sweep"},
    AttributeRow<uint64_t>{&h5::kSweepPoints, 1, false,
        [](const RunResults& r) { return static_cast<uint64_t>(r.points); }, nullptr,
        "the root attribute points holds the same count"},
    AttributeRow<uint64_t>{&h5::kJobsReplications, 1, false,
        [](const RunResults& r) { return static_cast<uint64_t>(r.job_replications); },
        [](const Context& c, RunResults& r, uint64_t v) {  // after the root attributes
          r.job_replications = to_size(c, v, h5::kJobsReplications.name);
          if (r.job_replications > r.rows_per_point())
            c.fail("attribute '" + hdf5_item_path(h5::kJobsReplications) + "' is " +
                   std::to_string(r.job_replications) + ", more than the file's " +
                   std::to_string(r.rows_per_point()) + " replications");
        }});

const auto kInputColumns = std::make_tuple(
    ColumnRow<DataFileRecord, std::string>{&h5::kInputPath,
        [](const DataFileRecord& f) { return f.path; },
        [](const Context&, const RunResults&, DataFileRecord& f, std::string v) {
          f.path = std::move(v);
        }},
    ColumnRow<DataFileRecord, std::string>{&h5::kInputResolvedPath,
        [](const DataFileRecord& f) { return f.resolved_path; },
        [](const Context&, const RunResults&, DataFileRecord& f, std::string v) {
          f.resolved_path = std::move(v);
        }},
    ColumnRow<DataFileRecord, uint64_t>{&h5::kInputSize,
        [](const DataFileRecord& f) { return f.size_bytes; },
        [](const Context&, const RunResults&, DataFileRecord& f, uint64_t v) {
          f.size_bytes = v;
        }},
    ColumnRow<DataFileRecord, std::string>{&h5::kInputSha256,
        [](const DataFileRecord& f) { return f.sha256; },
        [](const Context&, const RunResults&, DataFileRecord& f, std::string v) {
          f.sha256 = std::move(v);
        }});

const auto kGoalColumns = std::make_tuple(
    ColumnRow<GoalSpec, std::string>{&h5::kGoalNames,
        [](const GoalSpec& g) { return g.name; },
        [](const Context& c, const RunResults&, GoalSpec& g, std::string v) {
          g.name = std::move(v);
          if (!valid_goal_name(g.name))
            c.fail("goal name '" + text::excerpt(g.name) + "' is not valid");
        }},
    ColumnRow<GoalSpec, std::string>{&h5::kGoalDefinitions,
        [](const GoalSpec& g) { return g.definition(); },
        [](const Context& c, const RunResults& r, GoalSpec& g, std::string rest) {
          try {  // the conditions, parsed again against the pool names
            for (;;) {
              const std::size_t and_at = rest.find(" and ");
              g.conditions.push_back(parse_goal_condition(rest.substr(0, and_at), r.pool_names));
              if (and_at == std::string::npos) break;
              rest = rest.substr(and_at + 5);
            }
          } catch (const std::invalid_argument& e) {
            c.fail("goal '" + text::excerpt(g.name) + "': " + e.what());
          }
        }},
    ColumnRow<GoalSpec, std::string>{&h5::kGoalDescriptions,
        [](const GoalSpec& g) { return g.description; },
        [](const Context&, const RunResults&, GoalSpec& g, std::string v) {
          g.description = std::move(v);
        }},
    ColumnRow<GoalSpec, std::string>{&h5::kGoalTargets,
        [](const GoalSpec& g) {
          char target[32] = "";
          if (g.target > 0) std::snprintf(target, sizeof target, "%.17g", g.target);
          return std::string(target);
        },
        [](const Context& c, const RunResults&, GoalSpec& g, std::string v) {
          if (v.empty()) return;
          char* end = nullptr;
          g.target = std::strtod(v.c_str(), &end);
          if (*end != '\0' || !(g.target > 0 && g.target < 1))
            c.fail("goal '" + text::excerpt(g.name) + "': target '" + text::excerpt(v) +
                   "' is not a probability");
        }});

/// A JobRecord field as a column: written, and read back into the field.
#define GPUCAP_JOB_COLUMN(item, type, field)                                              \
  ColumnRow<JobRecord, type> {                                                            \
    &h5::item, [](const JobRecord& j) { return j.field; },                               \
        [](const Context&, const RunResults&, JobRecord& j, type v) { j.field = v; }      \
  }

const auto kJobColumns = std::make_tuple(
    GPUCAP_JOB_COLUMN(kJobPoint, uint64_t, point),
    GPUCAP_JOB_COLUMN(kJobReplication, uint64_t, replication),
    GPUCAP_JOB_COLUMN(kJobId, uint64_t, job),
    GPUCAP_JOB_COLUMN(kJobClass, uint32_t, job_class),
    GPUCAP_JOB_COLUMN(kJobArrival, double, arrival_s),
    GPUCAP_JOB_COLUMN(kJobStart, double, start_s),
    GPUCAP_JOB_COLUMN(kJobEnd, double, end_s),
    ColumnRow<JobRecord, double>{&h5::kJobWait,
        [](const JobRecord& j) { return j.start_s - j.arrival_s; }, nullptr,
        "derived: start_s - arrival_s"},
    GPUCAP_JOB_COLUMN(kJobPool, int32_t, pool),
    GPUCAP_JOB_COLUMN(kJobRuns, uint32_t, runs),
    GPUCAP_JOB_COLUMN(kJobPreemptions, uint32_t, preemptions),
    GPUCAP_JOB_COLUMN(kJobCost, double, cost_usd),
    ColumnRow<JobRecord, uint64_t>{&h5::kJobTraceRow,
        [](const JobRecord& j) { return j.trace_row; },
        [](const Context&, const RunResults&, JobRecord& j, uint64_t v) { j.trace_row = v; },
        "", true});

#undef GPUCAP_JOB_COLUMN
// clang-format on

// ------------------------------------------------------------------------------------------
// The walkers.

template <typename Tuple, typename F>
void for_each_row(const Tuple& rows, F&& f) {
  std::apply([&f](const auto&... row) { (f(row), ...); }, rows);
}

void write_value(const Context& c, hid_t loc, const Hdf5Item& item, const std::string& value) {
  write_string_attr(c, loc, item, value);
}
void write_value(const Context& c, hid_t loc, const Hdf5Item& item, const Strings& values) {
  write_strings_attr(c, loc, item, values, {values.size()});
}
template <typename T>
void write_value(const Context& c, hid_t loc, const Hdf5Item& item, T value) {
  write_attr<T>(c, loc, item, value);
}

template <typename T>
T read_value(const Context& c, hid_t loc, const Hdf5Item& item) {
  if constexpr (std::is_same_v<T, std::string>)
    return read_string_attr(c, loc, item);
  else if constexpr (std::is_same_v<T, Strings>)
    return read_strings_attr(c, loc, item);
  else
    return read_attr<T>(c, loc, item);
}

/// The file type of a numeric column: little-endian, as gpucap writes every number.
hid_t column_file_type(Hdf5Type type) {
  switch (type) {
    case Hdf5Type::int32:
      return H5T_STD_I32LE;
    case Hdf5Type::uint32:
      return H5T_STD_U32LE;
    case Hdf5Type::uint64:
      return H5T_STD_U64LE;
    default:
      return H5T_IEEE_F64LE;
  }
}

template <typename Record, typename Tuple>
void write_columns(const Context& c, hid_t loc, const std::vector<Record>& records,
                   const Tuple& columns) {
  for_each_row(columns, [&](const auto& column) {
    using T = decltype(column.get(records.front()));
    std::vector<T> values;
    values.reserve(records.size());
    for (const Record& record : records) values.push_back(column.get(record));
    if constexpr (std::is_same_v<T, std::string>)
      write_strings_dataset(c, loc, *column.item, values, {values.size()});
    else
      write_column(c, loc, *column.item, values, column_file_type(column.item->type));
  });
}

template <typename Record, typename Tuple>
void read_columns(const Context& c, hid_t loc, const RunResults& r, hsize_t n,
                  std::vector<Record>& records, const Tuple& columns) {
  for_each_row(columns, [&](const auto& column) {
    if (column.set == nullptr) return;
    if (column.may_lack && H5Lexists(loc, column.item->name, H5P_DEFAULT) <= 0) return;
    using T = decltype(column.get(records.front()));
    std::vector<T> values;
    if constexpr (std::is_same_v<T, std::string>)
      values = read_strings_dataset(c, loc, *column.item, {n});
    else
      values = read_column<T>(c, loc, *column.item, n);
    records.resize(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
      column.set(c, r, records[i], std::move(values[i]));
  });
}

/// The generic rows of a table of bindings, as hdf5_item_handling lists them.
template <typename Tuple>
void list_rows(const Tuple& rows, std::vector<detail::Hdf5ItemHandling>& out) {
  for_each_row(rows, [&out](const auto& row) {
    out.push_back({row.item,
                   row.set != nullptr ? detail::Hdf5Handling::generic
                                      : detail::Hdf5Handling::generic_write_only,
                   row.not_read});
  });
}

}  // namespace

void write_plain_attributes(const Context& c, hid_t loc, const Hdf5Item& group,
                            const RunResults& r) {
  const std::string parent = hdf5_item_path(group);
  for_each_row(kAttributes, [&](const auto& row) {
    if (row.item->parent == parent) write_value(c, loc, *row.item, row.get(r));
  });
}

void read_plain_attributes(const Context& c, hid_t loc, const Hdf5Item& group, RunResults& r,
                           int format) {
  const std::string parent = hdf5_item_path(group);
  for_each_row(kAttributes, [&](const auto& row) {
    if (row.item->parent != parent || row.set == nullptr || format < row.since_format) return;
    if (row.may_lack && H5Aexists(loc, row.item->name) <= 0) return;
    using T = decltype(row.get(r));
    row.set(c, r, read_value<T>(c, loc, *row.item));
  });
}

void write_plain_columns(const Context& c, hid_t loc, const std::vector<DataFileRecord>& records) {
  write_columns(c, loc, records, kInputColumns);
}
void write_plain_columns(const Context& c, hid_t loc, const std::vector<GoalSpec>& records) {
  write_columns(c, loc, records, kGoalColumns);
}
void write_plain_columns(const Context& c, hid_t loc, const std::vector<JobRecord>& records) {
  write_columns(c, loc, records, kJobColumns);
}

void read_plain_columns(const Context& c, hid_t loc, const RunResults& r, hsize_t n,
                        std::vector<DataFileRecord>& records) {
  read_columns(c, loc, r, n, records, kInputColumns);
}
void read_plain_columns(const Context& c, hid_t loc, const RunResults& r, hsize_t n,
                        std::vector<GoalSpec>& records) {
  read_columns(c, loc, r, n, records, kGoalColumns);
}
void read_plain_columns(const Context& c, hid_t loc, const RunResults& r, hsize_t n,
                        std::vector<JobRecord>& records) {
  read_columns(c, loc, r, n, records, kJobColumns);
}

}  // namespace gpucap::hdf5_detail

namespace gpucap::detail {

std::vector<Hdf5ItemHandling> hdf5_item_handling() {
  std::vector<Hdf5ItemHandling> out;
  hdf5_detail::list_rows(hdf5_detail::kAttributes, out);
  hdf5_detail::list_rows(hdf5_detail::kInputColumns, out);
  hdf5_detail::list_rows(hdf5_detail::kGoalColumns, out);
  hdf5_detail::list_rows(hdf5_detail::kJobColumns, out);
  constexpr Hdf5Handling kByHand = Hdf5Handling::by_hand;
  const char* const group = "a group: created with what it holds";
  const char* const dimension =
      "a named dimension (netCDF-4 style): derived from the file's shape, not read back";
  const char* const metric = "an array of doubles: chunked, encoded on many threads";
  const char* const summary = "a compound table: rows placed by point, pool and metric name";
  const Hdf5ItemHandling by_hand[] = {
      {&h5::kRoot, kByHand, group},
      {&h5::kFormatVersion, kByHand,
       "written after the other root attributes and read before them: it says how to read them"},
      {&h5::kContentChecksum, kByHand,
       "computed from every value while the datasets are written: created in its place, written "
       "at the end, checked against every value read"},
      {&h5::kCoordinates, kByHand,
       "derived from the sweep paths that can name a coordinate; written with the dimensions"},
      {&h5::kPointCoordinate, kByHand, dimension},
      {&h5::kReplicationCoordinate, kByHand, dimension},
      {&h5::kPoolCoordinate, kByHand, dimension},
      {&h5::kTimeCoordinate, kByHand, dimension},
      {&h5::kSweepCoordinate, kByHand, dimension},
      {&h5::kSummary, kByHand, summary},
      {&h5::kDifferenceSummary, kByHand, summary},
      {&h5::kReplicationsGroup, kByHand, group},
      {&h5::kScalarMetric, kByHand, metric},
      {&h5::kPoolsGroup, kByHand, group},
      {&h5::kPoolNames, kByHand, "the pool count that sizes every pool dataset: read first"},
      {&h5::kPoolMetric, kByHand, metric},
      {&h5::kMetricUnit, kByHand, "written with each float64 dataset, from its metric's row"},
      {&h5::kMetricDescription, kByHand,
       "written with each float64 dataset, from its metric's row"},
      {&h5::kPoolSummary, kByHand, summary},
      {&h5::kSweepGroup, kByHand, group},
      {&h5::kSweepPaths, kByHand, "the sweep's parameters, [S]: checked against parameters"},
      {&h5::kSweepValues, kByHand, "the sweep's values, [S, P]: split into its parameters"},
      {&h5::kTimeseriesGroup, kByHand, group},
      {&h5::kGpusInUse, kByHand, metric},
      {&h5::kSettlingGroup, kByHand, group},
      {&h5::kSettlingMean, kByHand, "[P * B]: the bins B are its length over P"},
      {&h5::kSettlingWaiting, kByHand, "[P * B], as gpus_in_use_mean: optional (older files)"},
      {&h5::kInputsGroup, kByHand, group},
      {&h5::kGoalsGroup, kByHand, group},
      {&h5::kGoalMet, kByHand, "an array of 0 and 1 per replication, checked as such"},
      {&h5::kGoalMetCount, kByHand, "counts over every replication, checked against them"},
      {&h5::kJobsGroup, kByHand, group},
      {&h5::kJobClasses, kByHand, "the workload names that the column class indexes"},
  };
  out.insert(out.end(), std::begin(by_hand), std::end(by_hand));
  return out;
}

}  // namespace gpucap::detail
