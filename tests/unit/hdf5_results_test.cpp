// Tests of the HDF5 results file: exact round trips, atomic writing and error reporting.
#include "gpucap/hdf5_results.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <limits>
#include <random>
#include <regex>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include "gpucap/detail/hdf5_item_handling.hpp"
#include "gpucap/hdf5_layout.hpp"

namespace gpucap {
namespace {

namespace fs = std::filesystem;

/// Open HDF5 files and file objects (groups, datasets, attributes, committed types) anywhere.
ssize_t open_hdf5_objects() { return H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL); }

/// A fresh temporary directory, removed with everything in it at the end of each test, which
/// also checks that every HDF5 file and object opened during the test was closed.
class Hdf5ResultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    H5open();
    ASSERT_EQ(open_hdf5_objects(), 0);
    std::random_device rd;
    dir_ = fs::temp_directory_path() /
           ("gpucap_hdf5_test_" + std::to_string(::getpid()) + "_" + std::to_string(rd()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    EXPECT_EQ(open_hdf5_objects(), 0) << "an HDF5 file or object was left open";
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> dir_entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      names.push_back(entry.path().filename().string());
    }
    return names;
  }

  fs::path dir_;
};

MetricSummary distinct_summary(double base) {
  MetricSummary s;
  s.n = static_cast<std::size_t>(base < 0 ? 100 - base : base) + 3;  // a negative base: n >= 103
  s.mean = base + 0.125;
  s.std = base * 0.5 + 1.0 / 3.0;
  s.ci95_low = base - 1.75;
  s.ci95_high = base + 2.0625;
  s.p5 = base - 0.1;
  s.p50 = base + 0.2;
  s.p95 = base + 0.3e-7;
  return s;
}

/// 2 points, 3 replications, 2 pools, one sweep parameter, every value distinct.
RunResults sample_results() {
  RunResults r;
  r.gpucap_version = "0.1.0-test";
  r.scenario_name = "two-pool sweep";
  r.scenario_text =
      "name: two-pool sweep\n# unicode: \xc3\xa9t\xc3\xa9\npools:\n  - name: h100\n"
      "  - name: a100\n";
  r.scenario_original_text = "name: two-pool sweep\r\n# before overrides\n";
  // Values a user may give: a newline, quotes, '#', an empty value, non-ASCII text.
  r.scenario_overrides = {{"name", "\"a\nb # c\""},
                          {"pools.h100.quota", ""},
                          {"description", "'\xc3\xa9t\xc3\xa9' # x"}};
  r.backend = "cpu-serial";
  r.seed = 0xFEDCBA9876543210ULL;
  r.points = 2;
  r.replications = 3;
  r.threads = 7;
  r.wall_time_s = 12.345678901234567;
  r.pool_names = {"h100-spot", "a100-on-demand"};
  r.sweep = {{"workload.arrival_rate", {"1.5", "2.5e+1"}}};
  r.scalars.resize(r.points * r.replications * kScalarMetricCount);
  for (std::size_t i = 0; i < r.scalars.size(); ++i) r.scalars[i] = 1000.0 + i * 1.0625 + 1e-9;
  r.pool_values.resize(r.points * r.replications * r.pool_count() * kPoolMetricCount);
  for (std::size_t i = 0; i < r.pool_values.size(); ++i) r.pool_values[i] = -5.0 - i / 7.0;
  for (std::size_t i = 0; i < r.points * kScalarMetricCount; ++i) {
    r.summary.push_back(distinct_summary(10.0 * i));
  }
  for (std::size_t i = 0; i < r.points * r.pool_count() * kPoolMetricCount; ++i) {
    r.pool_summary.push_back(distinct_summary(-3.0 * i - 0.5));
  }
  return r;
}

/// Zeroes gpucap's header (the 512-byte user block), as a tool that rewrote the file would lose
/// it: the file then reads without the whole-file checksum, through HDF5's own checks.
void remove_user_block(const std::string& path) {
  std::fstream io(path, std::ios::in | std::ios::out | std::ios::binary);
  const std::string zeros(512, '\0');
  io.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
}

/// Bitwise equality of doubles, so that NaN payloads and the sign of zero count too.
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void expect_same_doubles(const std::vector<double>& a, const std::vector<double>& b,
                         const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(same_bits(a[i], b[i])) << what << "[" << i << "]: " << a[i] << " vs " << b[i];
  }
}

void expect_same_summaries(const std::vector<MetricSummary>& a, const std::vector<MetricSummary>& b,
                           const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(std::string(what) + "[" + std::to_string(i) + "]");
    EXPECT_EQ(a[i].n, b[i].n);
    EXPECT_TRUE(same_bits(a[i].mean, b[i].mean));
    EXPECT_TRUE(same_bits(a[i].std, b[i].std));
    EXPECT_TRUE(same_bits(a[i].ci95_low, b[i].ci95_low));
    EXPECT_TRUE(same_bits(a[i].ci95_high, b[i].ci95_high));
    EXPECT_TRUE(same_bits(a[i].p5, b[i].p5));
    EXPECT_TRUE(same_bits(a[i].p50, b[i].p50));
    EXPECT_TRUE(same_bits(a[i].p95, b[i].p95));
  }
}

void expect_same_results(const RunResults& a, const RunResults& b) {
  EXPECT_EQ(a.gpucap_version, b.gpucap_version);
  EXPECT_EQ(a.scenario_name, b.scenario_name);
  EXPECT_EQ(a.scenario_text, b.scenario_text);
  EXPECT_EQ(a.scenario_original_text, b.scenario_original_text);
  EXPECT_EQ(a.scenario_overrides, b.scenario_overrides);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.points, b.points);
  EXPECT_EQ(a.replications, b.replications);
  EXPECT_EQ(a.threads, b.threads);
  EXPECT_TRUE(same_bits(a.wall_time_s, b.wall_time_s));
  EXPECT_EQ(a.pool_names, b.pool_names);
  ASSERT_EQ(a.sweep.size(), b.sweep.size());
  for (std::size_t i = 0; i < a.sweep.size(); ++i) {
    EXPECT_EQ(a.sweep[i].path, b.sweep[i].path);
    EXPECT_EQ(a.sweep[i].values, b.sweep[i].values);
  }
  expect_same_doubles(a.scalars, b.scalars, "scalars");
  expect_same_doubles(a.pool_values, b.pool_values, "pool_values");
  expect_same_summaries(a.summary, b.summary, "summary");
  expect_same_summaries(a.pool_summary, b.pool_summary, "pool_summary");
}

/// Reads a double dataset with the HDF5 C API (independent of the reader under test).
std::vector<double> read_raw(const std::string& path, const char* name,
                             std::vector<hsize_t>* dims = nullptr, H5D_layout_t* layout = nullptr) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT_GE(file, 0);
  const hid_t dset = H5Dopen2(file, name, H5P_DEFAULT);
  EXPECT_GE(dset, 0) << name;
  const hid_t space = H5Dget_space(dset);
  const int rank = H5Sget_simple_extent_ndims(space);
  std::vector<hsize_t> shape(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space, shape.data(), nullptr);
  std::vector<double> data(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  if (!data.empty()) H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data());
  if (layout != nullptr) {
    const hid_t dcpl = H5Dget_create_plist(dset);
    *layout = H5Pget_layout(dcpl);
    H5Pclose(dcpl);
  }
  if (dims != nullptr) *dims = shape;
  H5Sclose(space);
  H5Dclose(dset);
  H5Fclose(file);
  return data;
}

TEST_F(Hdf5ResultsTest, RoundTripRestoresEveryFieldExactly) {
  const RunResults written = sample_results();
  const std::string path = file("run.h5");
  write_results_hdf5(written, path);
  const RunResults read = read_results_hdf5(path);
  expect_same_results(written, read);
}

TEST_F(Hdf5ResultsTest, GoalsAndTheStoppingRuleRoundTrip) {
  RunResults written = sample_results();
  written.stopping_rule = "relative half-width of the 95% interval of the mean <= 0.01 for cost";
  // Costs are 1000 + 1.0625 i: the first goal holds in some replications and not others.
  GoalSpec cheap;
  cheap.name = "cheap";
  cheap.description = "a \"quoted\" description";
  cheap.target = 0.3;
  cheap.conditions.push_back(parse_goal_condition("cost <= 1100", written.pool_names));
  cheap.conditions.push_back(
      parse_goal_condition("pools.h100-spot.cost < 0.5 * cost", written.pool_names));
  GoalSpec busy;
  busy.name = "busy";
  busy.conditions.push_back(parse_goal_condition("gpu_hours_used >= 0.999 * gpu_hours_billed", written.pool_names));
  written.goals = {cheap, busy};
  written.evaluate_goals();
  uint64_t met = 0;
  for (uint8_t m : written.goal_met) met += m;
  ASSERT_GT(met, 0u);
  ASSERT_LT(met, written.goal_met.size());
  const std::string path = file("goals.h5");
  write_results_hdf5(written, path);
  const RunResults read = read_results_hdf5(path);
  expect_same_results(written, read);
  EXPECT_EQ(read.stopping_rule, written.stopping_rule);
  ASSERT_EQ(read.goals.size(), 2u);
  EXPECT_TRUE(same_goals(read.goals, written.goals));
  EXPECT_EQ(read.goals[0].description, cheap.description);
  EXPECT_EQ(read.goal_met, written.goal_met);
  for (std::size_t i = 0; i < written.goal_summary.size(); ++i) {
    EXPECT_EQ(read.goal_summary[i].met, written.goal_summary[i].met);
    EXPECT_EQ(read.goal_summary[i].exact.low, written.goal_summary[i].exact.low);
  }
  // The indicator dataset is [P, R, G] of 0 and 1.
  std::vector<hsize_t> dims;
  const std::vector<double> raw = read_raw(path, "/goals/met", &dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{2, 3, 2}));
  for (std::size_t i = 0; i < raw.size(); ++i) EXPECT_EQ(raw[i], written.goal_met[i]);
}

// The writer and the reader walk the layout table's plain rows generically
// (sim/results/src/hdf5_items.cpp): every row is handled exactly once, every plain row (a
// number or string attribute of a group, a column of /inputs, /goals or /jobs) by the walkers,
// and every row handled otherwise says why.
TEST(Hdf5ItemHandling, EveryLayoutRowIsHandledOnceAndEveryPlainRowGenerically) {
  const std::vector<detail::Hdf5ItemHandling> handling = detail::hdf5_item_handling();
  EXPECT_EQ(handling.size(), std::size(kHdf5Layout));
  const auto entry = [&handling](const Hdf5Item* item) {
    return std::count_if(handling.begin(), handling.end(),
                         [item](const detail::Hdf5ItemHandling& h) { return h.item == item; });
  };
  // Attributes whose reading or writing is the file's logic, not a value of the results.
  const Hdf5Item* const by_hand_attributes[] = {&h5::kFormatVersion, &h5::kContentChecksum,
                                                &h5::kCoordinates};
  for (const Hdf5Item* item : kHdf5Layout) {
    SCOPED_TRACE(hdf5_item_path(*item));
    ASSERT_EQ(entry(item), 1);
    const detail::Hdf5ItemHandling& h =
        *std::find_if(handling.begin(), handling.end(),
                      [item](const detail::Hdf5ItemHandling& e) { return e.item == item; });
    const bool plain_attribute =
        item->kind == Hdf5Kind::attribute &&
        std::string(item->parent) != kHdf5EveryMetricDataset &&
        std::find(std::begin(by_hand_attributes), std::end(by_hand_attributes), item) ==
            std::end(by_hand_attributes);
    const std::string shape = item->shape;
    const bool record_column = item->kind == Hdf5Kind::dataset &&
                               (shape == "[I]" || shape == "[G]" || shape == "[J]");
    if (plain_attribute || record_column) {
      EXPECT_NE(h.handling, detail::Hdf5Handling::by_hand) << "a plain row handled by hand";
    }
    if (h.handling == detail::Hdf5Handling::generic) {
      EXPECT_STREQ(h.why, "");
    } else {
      EXPECT_GT(std::strlen(h.why), 10u) << "a row handled otherwise must say why";
    }
    if (h.handling != detail::Hdf5Handling::by_hand) {  // the walkers take only plain rows
      EXPECT_TRUE(plain_attribute || record_column);
    }
  }
}

// Every value the generic walkers write and read back comes back the same, whatever table of
// bindings it is in (root, group attributes, the columns of /inputs, /goals and /jobs).
TEST_F(Hdf5ResultsTest, EveryRowTheGenericWalkersReadRoundTrips) {
  RunResults written = sample_results();
  written.device = "host, 7 threads";
  written.first_replication = 4096;
  written.stopping_rule = "reached at 3 replications";
  written.data_files = {{"a.csv", "/data/a.csv", 12, std::string(64, 'a')},
                        {"b \xc3\xa9.json", "/data/b.json", 1u << 30, std::string(64, 'b')}};
  GoalSpec goal;
  goal.name = "cheap";
  goal.description = "under budget";
  goal.target = 0.25;
  goal.conditions.push_back(parse_goal_condition("cost <= 1100", written.pool_names));
  written.goals = {goal};
  written.evaluate_goals();
  written.timeseries_step_s = 3600;
  written.timeseries_bins = 2;
  written.timeseries.assign(written.points * written.replications * written.pool_count() * 2, 0.5);
  written.job_replications = 1;
  written.job_classes = {"train"};
  JobRecord job;
  job.point = 1;
  job.replication = 4096;
  job.job = 7;
  job.pool = 1;
  job.runs = 3;
  job.preemptions = 2;
  job.arrival_s = 10;
  job.start_s = 12.5;
  job.end_s = std::numeric_limits<double>::quiet_NaN();
  job.cost_usd = 0.75;
  job.trace_row = 12;
  written.jobs = {job, JobRecord{}};
  const std::string path = file("generic.h5");
  write_results_hdf5(written, path);
  const RunResults read = read_results_hdf5(path);
  expect_same_results(written, read);
  EXPECT_EQ(read.device, written.device);
  EXPECT_EQ(read.first_replication, written.first_replication);
  EXPECT_EQ(read.stopping_rule, written.stopping_rule);
  EXPECT_EQ(read.data_files, written.data_files);
  ASSERT_EQ(read.goals.size(), 1u);
  EXPECT_TRUE(same_goals(read.goals, written.goals));
  EXPECT_EQ(read.goals[0].description, goal.description);
  EXPECT_EQ(read.timeseries_step_s, written.timeseries_step_s);
  EXPECT_EQ(read.job_replications, written.job_replications);
  EXPECT_EQ(read.job_classes, written.job_classes);
  ASSERT_EQ(read.jobs.size(), written.jobs.size());
  for (std::size_t i = 0; i < read.jobs.size(); ++i)
    EXPECT_EQ(std::memcmp(&read.jobs[i], &written.jobs[i], sizeof(JobRecord)), 0) << i;
}

// Files written before /jobs/trace_row read it as 0 (and their checksum holds: a file whose
// jobs all have row 0 hashes as before the column).
TEST_F(Hdf5ResultsTest, JobsWithoutTraceRowsReadAsZero) {
  RunResults written = sample_results();
  written.job_replications = 1;
  written.job_classes = {"train"};
  JobRecord job;
  job.arrival_s = 5;
  job.start_s = 6;
  job.end_s = 7;
  written.jobs = {job, job};
  const std::string path = file("old_jobs.h5");
  write_results_hdf5(written, path);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  ASSERT_GE(H5Ldelete(f, "/jobs/trace_row", H5P_DEFAULT), 0);
  ASSERT_GE(H5Fclose(f), 0);
  remove_user_block(path);  // changed after gpucap wrote it
  const RunResults read = read_results_hdf5(path);
  ASSERT_EQ(read.jobs.size(), 2u);
  EXPECT_EQ(read.jobs[0].trace_row, 0u);
  EXPECT_EQ(read.jobs[1].arrival_s, 5.0);
}

TEST_F(Hdf5ResultsTest, ReplicationDatasetsArePointsByReplications) {
  const RunResults r = sample_results();
  const std::string path = file("run.h5");
  write_results_hdf5(r, path);

  std::vector<hsize_t> dims;
  const std::vector<double> wait = read_raw(path, "/replications/wait_mean", &dims);
  ASSERT_EQ(dims, (std::vector<hsize_t>{2, 3}));
  for (std::size_t p = 0; p < 2; ++p) {
    for (std::size_t rep = 0; rep < 3; ++rep) {
      EXPECT_EQ(wait[p * 3 + rep], r.scalar(p, rep, kWaitMeanS));
    }
  }
  const std::vector<double> util = read_raw(path, "/pools/utilization", &dims);
  ASSERT_EQ(dims, (std::vector<hsize_t>{2, 3, 2}));
  for (std::size_t p = 0; p < 2; ++p) {
    for (std::size_t rep = 0; rep < 3; ++rep) {
      for (std::size_t k = 0; k < 2; ++k) {
        EXPECT_EQ(util[(p * 3 + rep) * 2 + k], r.pool_value(p, rep, k, kPoolUtilization));
      }
    }
  }
}

TEST_F(Hdf5ResultsTest, RootAttributesIncludeFormatVersionAndCreationTime) {
  const std::string path = file("run.h5");
  write_results_hdf5(sample_results(), path);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  int32_t version = 0;
  const hid_t va = H5Aopen(f, "format_version", H5P_DEFAULT);
  ASSERT_GE(va, 0);
  ASSERT_GE(H5Aread(va, H5T_NATIVE_INT32, &version), 0);
  H5Aclose(va);
  EXPECT_EQ(version, kResultsFormatVersion);
  EXPECT_EQ(version, 5);  // 3: /inputs; 4: named dimensions, goals, the stopping rule; 5: rows kept

  const hid_t ca = H5Aopen(f, "created_utc", H5P_DEFAULT);
  ASSERT_GE(ca, 0);
  const hid_t type = H5Aget_type(ca);
  char* text = nullptr;
  ASSERT_GE(H5Aread(ca, type, &text), 0);
  ASSERT_NE(text, nullptr);
  EXPECT_TRUE(std::regex_match(text, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"))) << text;
  H5free_memory(text);
  H5Tclose(type);
  H5Aclose(ca);
  H5Fclose(f);
}

/// The HDF5 class a layout type is stored as.
H5T_class_t layout_class(Hdf5Type type) {
  switch (type) {
    case Hdf5Type::int32:
    case Hdf5Type::uint32:
    case Hdf5Type::uint64:
      return H5T_INTEGER;
    case Hdf5Type::float64:
      return H5T_FLOAT;
    case Hdf5Type::string:
    case Hdf5Type::fixed_string:
      return H5T_STRING;
    case Hdf5Type::compound:
      return H5T_COMPOUND;
    case Hdf5Type::none:
      break;
  }
  return H5T_NO_CLASS;
}

/// The rank a symbolic shape ("[P, R, K]") stands for; 0 for a scalar, 1 for "[P * M]".
int layout_rank(const char* shape) {
  if (*shape == '\0') return 0;
  return 1 + static_cast<int>(std::count(shape, shape + std::strlen(shape), ','));
}

TEST_F(Hdf5ResultsTest, EveryItemOfTheLayoutTableIsInTheFileWithItsTypeAndRank) {
  RunResults r = sample_results();
  r.timeseries_bins = 4;
  r.timeseries_step_s = 3600.0;
  r.timeseries.assign(r.points * r.replications * r.pool_count() * r.timeseries_bins, 1.5);
  GoalSpec goal;  // /goals is written only when there are goals
  goal.name = "cheap";
  goal.conditions.push_back(parse_goal_condition("cost <= 1e9", r.pool_names));
  r.goals.push_back(goal);
  r.evaluate_goals();
  r.job_replications = 1;  // /jobs is written only with per-job records
  r.job_classes = {"w"};
  JobRecord job;
  job.pool = 0;
  job.arrival_s = 10;
  job.start_s = 20;
  job.end_s = 30;
  job.runs = 1;
  job.cost_usd = 0.5;
  r.jobs = {job, job};
  r.jobs[1].job = 1;
  const std::string path = file("run.h5");
  write_results_hdf5(r, path);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  // The datasets each metric dataset attribute is on.
  std::vector<std::string> metric_datasets;
  for (const MetricInfo& m : kScalarMetricInfo)
    metric_datasets.push_back(std::string("/replications/") + m.name);
  for (const MetricInfo& m : kPoolMetricInfo)
    metric_datasets.push_back(std::string("/pools/") + m.name);
  metric_datasets.push_back(hdf5_item_path(h5::kGpusInUse));
  std::size_t checked = 0;
  for (const Hdf5Item* item : kHdf5Layout) {
    SCOPED_TRACE(hdf5_item_path(*item));
    // Only in files that kept fewer rows than ran: streaming_summary_test checks it there.
    if (item == &h5::kDifferenceSummary) continue;
    // Only in files without a time series (this one has one): result_warnings_test checks it.
    if (std::string(item->parent) == "/settling" || item == &h5::kSettlingGroup) continue;
    std::vector<std::string> names = {item->name};
    if (std::string(item->name) == "<metric>") {
      names.clear();
      for (const MetricInfo& m : kScalarMetricInfo) names.push_back(m.name);
    } else if (std::string(item->name) == "<pool metric>") {
      names.clear();
      for (const MetricInfo& m : kPoolMetricInfo) names.push_back(m.name);
    } else if (std::string(item->name) == "<parameter>") {
      names = {r.sweep[0].path};  // numbers: float64
    }
    for (const std::string& name : names) {
      if (item->kind == Hdf5Kind::attribute) {
        const std::vector<std::string> owners = std::string(item->parent) == kHdf5EveryMetricDataset
                                                    ? metric_datasets
                                                    : std::vector<std::string>{item->parent};
        for (const std::string& owner : owners) {
          ASSERT_GT(H5Aexists_by_name(f, owner.c_str(), name.c_str(), H5P_DEFAULT), 0)
              << owner << " lacks the attribute " << name;
          const hid_t a = H5Aopen_by_name(f, owner.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
          const hid_t type = H5Aget_type(a), space = H5Aget_space(a);
          EXPECT_EQ(H5Tget_class(type), layout_class(item->type)) << owner << "@" << name;
          EXPECT_EQ(H5Sget_simple_extent_ndims(space), layout_rank(item->shape)) << name;
          if (item->type == Hdf5Type::string) {
            EXPECT_GT(H5Tis_variable_str(type), 0) << name;
          }
          H5Sclose(space);
          H5Tclose(type);
          H5Aclose(a);
          ++checked;
        }
        continue;
      }
      const std::string full =
          std::string(item->name) == "/"
              ? "/"
              : std::string(item->parent) + (std::string(item->parent) == "/" ? "" : "/") + name;
      if (full != "/") {
        ASSERT_GT(H5Lexists(f, full.c_str(), H5P_DEFAULT), 0) << full;
      }
      H5O_info_t info;
      ASSERT_GE(H5Oget_info_by_name(f, full.c_str(), &info, H5P_DEFAULT), 0) << full;
      if (item->kind == Hdf5Kind::group) {
        EXPECT_EQ(info.type, H5O_TYPE_GROUP) << full;
      } else {
        ASSERT_EQ(info.type, H5O_TYPE_DATASET) << full;
        const hid_t d = H5Dopen2(f, full.c_str(), H5P_DEFAULT);
        const hid_t type = H5Dget_type(d), space = H5Dget_space(d);
        EXPECT_EQ(H5Tget_class(type), layout_class(item->type)) << full;
        EXPECT_EQ(H5Sget_simple_extent_ndims(space), layout_rank(item->shape)) << full;
        if (item->type == Hdf5Type::compound) {
          // The fields, in the table's order, each of its type.
          const bool pool = item == &h5::kPoolSummary;
          int index = 0;
          for (const Hdf5Field* field : kHdf5SummaryFields) {
            if (field->pool_only && !pool) continue;
            char* member = H5Tget_member_name(type, static_cast<unsigned>(index));
            ASSERT_NE(member, nullptr);
            EXPECT_STREQ(member, field->name) << full << " field " << index;
            H5free_memory(member);
            const hid_t member_type = H5Tget_member_type(type, static_cast<unsigned>(index));
            EXPECT_EQ(H5Tget_class(member_type), layout_class(field->type)) << field->name;
            if (field->type == Hdf5Type::fixed_string) {
              EXPECT_EQ(H5Tget_size(member_type), field->bytes) << field->name;
            }
            H5Tclose(member_type);
            ++index;
          }
          EXPECT_EQ(H5Tget_nmembers(type), index) << full;
        }
        H5Sclose(space);
        H5Tclose(type);
        H5Dclose(d);
      }
      ++checked;
    }
  }
  H5Fclose(f);
  // 21 root attributes, 48 other items named once (5 of them /inputs, 5 coordinates, 7 /goals,
  // 16 /jobs; /difference_summary skipped), one dataset per metric, and two attributes on each
  // metric dataset.
  EXPECT_EQ(checked,
            21u + 48u + kScalarMetricCount + kPoolMetricCount + 2 * metric_datasets.size());
}

/// The value of the fixed-string attribute `name` of `object` ("" when absent).
std::string fixed_string_attr(hid_t f, const char* object, const char* name) {
  if (H5Aexists_by_name(f, object, name, H5P_DEFAULT) <= 0) return "";
  const hid_t a = H5Aopen_by_name(f, object, name, H5P_DEFAULT, H5P_DEFAULT);
  const hid_t type = H5Aget_type(a);
  std::string value(H5Tget_size(type), '\0');
  H5Aread(a, type, value.data());
  H5Tclose(type);
  H5Aclose(a);
  return value.substr(0, value.find('\0'));
}

/// A file whose replication range passes 2^64 - 1 (which no run can make: its indices would
/// wrap to 0) is refused when read; the last indices below 2^64 are kept.
TEST_F(Hdf5ResultsTest, ReplicationRangesPastTwoToTheSixtyFourAreRefused) {
  RunResults r = sample_results();
  r.first_replication = UINT64_MAX - (r.replications - 1);
  const std::string last = file("last.h5");
  write_results_hdf5(r, last);
  EXPECT_EQ(read_results_hdf5(last).first_replication, UINT64_MAX - (r.replications - 1));
  r.first_replication += 1;
  const std::string past = file("past.h5");
  write_results_hdf5(r, past);
  try {
    read_results_hdf5(past);
    ADD_FAILURE() << "read";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("give replication indices past 2^64 - 1"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(Hdf5ResultsTest, ArraysHaveNamedDimensionsWithCoordinates) {
  RunResults r = sample_results();
  r.first_replication = 40;
  r.timeseries_bins = 3;
  r.timeseries_step_s = 1800.0;
  r.timeseries.assign(r.points * r.replications * r.pool_count() * r.timeseries_bins, 2.0);
  r.sweep.push_back({"policy.queue", {"fifo", "sjf"}});  // text: a string coordinate
  r.sweep.push_back({"replications", {"1", "2"}});       // the name of a root group: none
  const std::string path = file("dims.h5");
  write_results_hdf5(r, path);
  EXPECT_EQ(read_raw(path, "/replication"), (std::vector<double>{40, 41, 42}));
  EXPECT_EQ(read_raw(path, "/point"), (std::vector<double>{0, 1}));
  EXPECT_EQ(read_raw(path, "/time"), (std::vector<double>{0, 1800, 3600}));
  EXPECT_EQ(read_raw(path, "/workload.arrival_rate"), (std::vector<double>{1.5, 25}));
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  for (const char* scale : {"/point", "/replication", "/pool", "/time", "/summary", "/pool_summary",
                            "/inputs/path", "/sweep/paths"})
    EXPECT_EQ(fixed_string_attr(f, scale, "CLASS"), "DIMENSION_SCALE") << scale;
  for (const char* dataset : {"/replications/cost", "/pools/cost", "/timeseries/gpus_in_use",
                              "/sweep/values", "/inputs/size_bytes", "/policy.queue"})
    EXPECT_GT(H5Aexists_by_name(f, dataset, "DIMENSION_LIST", H5P_DEFAULT), 0) << dataset;
  EXPECT_GT(H5Lexists(f, "/policy.queue", H5P_DEFAULT), 0);
  {
    const hid_t a = H5Aopen(f, "coordinates", H5P_DEFAULT);
    const hid_t type = H5Aget_type(a);
    char* text = nullptr;
    ASSERT_GE(H5Aread(a, type, &text), 0);
    EXPECT_STREQ(text, "workload.arrival_rate policy.queue");  // not "replications"
    H5free_memory(text);
    H5Tclose(type);
    H5Aclose(a);
  }
  H5Fclose(f);
  expect_same_results(r, read_results_hdf5(path));
}

TEST_F(Hdf5ResultsTest, FormatThreeFilesWithoutDimensionsAreStillRead) {
  RunResults r = sample_results();
  const std::string path = file("v3.h5");
  write_results_hdf5(r, path);
  // What format 3 wrote: no coordinates, no "coordinates" attribute, format_version 3.
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  for (const char* name : {"/point", "/replication", "/pool", "/workload.arrival_rate"})
    ASSERT_GE(H5Ldelete(f, name, H5P_DEFAULT), 0) << name;
  ASSERT_GE(H5Adelete(f, "coordinates"), 0);
  const hid_t a = H5Aopen(f, "format_version", H5P_DEFAULT);
  const int32_t three = 3;
  ASSERT_GE(H5Awrite(a, H5T_NATIVE_INT32, &three), 0);
  H5Aclose(a);
  ASSERT_GE(H5Fclose(f), 0);
  remove_user_block(path);  // changed after gpucap wrote it
  expect_same_results(r, read_results_hdf5(path));
}

// Files the build before the request-wait metrics wrote (tests/fixtures: a run of
// tests/fixtures/tiny_service.yaml, 3 replications, and a sweep of it over 2 points keeping the
// first row): they read, their content checksum verifies over the columns they hold, and the
// request waits they never recorded read as NaN, in every row and every summary.
TEST(Hdf5OlderFiles, MetricsAddedLaterReadAsNotRecorded) {
  const fs::path fixtures = fs::path(GPUCAP_SOURCE_DIR) / "tests" / "fixtures";
  for (const char* name : {"results_before_request_wait.h5", "sweep_before_request_wait.h5"}) {
    SCOPED_TRACE(name);
    const RunResults r = read_results_hdf5((fixtures / name).string());
    ASSERT_EQ(r.replications, 3u);
    ASSERT_GT(r.rows_per_point(), 0u);
    for (std::size_t p = 0; p < r.points; ++p) {
      for (std::size_t rep = 0; rep < r.rows_per_point(); ++rep) {
        EXPECT_GT(r.scalar(p, rep, kRequestsServed), 1000.0);  // about 3,600 requests an hour
        EXPECT_FALSE(std::isnan(r.scalar(p, rep, kLatencyMeanS)));
        for (ScalarMetric m : {kRequestWaitMeanS, kRequestWaitP50S, kRequestWaitP95S, kRequestWaitP99S})
          EXPECT_TRUE(std::isnan(r.scalar(p, rep, m))) << kScalarMetricInfo[m].name;
        // The deployment metrics, added later still, read as a run without deployments.
        for (uint32_t m = kInstanceHoursDemanded; m <= kInstancesPeak; ++m) {
          const bool unobserved = m == kUnservedFraction || (m >= kRestoreMeanS && m <= kRestoreP99S);
          if (unobserved)
            EXPECT_TRUE(std::isnan(r.scalar(p, rep, static_cast<ScalarMetric>(m)))) << kScalarMetricInfo[m].name;
          else
            EXPECT_EQ(r.scalar(p, rep, static_cast<ScalarMetric>(m)), 0.0) << kScalarMetricInfo[m].name;
        }
        EXPECT_EQ(r.pool_value(p, rep, 0, kPoolInstanceHoursServed), 0.0);
        // The cost by purchase option was not recorded (the pools' options are not in the file).
        for (uint32_t m = kCostOnDemandUsd; m <= kCostServerlessUsd; ++m)
          EXPECT_TRUE(std::isnan(r.scalar(p, rep, static_cast<ScalarMetric>(m)))) << kScalarMetricInfo[m].name;
      }
      EXPECT_EQ(r.summary_of(p, kInstanceHoursDemanded).mean, 0.0);
      EXPECT_TRUE(std::isnan(r.summary_of(p, kUnservedFraction).mean));
      EXPECT_TRUE(std::isnan(r.summary_of(p, kRequestWaitMeanS).mean));
      // Pool metrics added with them: replicas' up time was not recorded; the utilization of
      // the quota is what the file called utilization.
      for (std::size_t rep = 0; rep < r.rows_per_point(); ++rep) {
        EXPECT_TRUE(std::isnan(r.pool_value(p, rep, 0, kPoolGpuHoursUp)));
        EXPECT_EQ(r.pool_value(p, rep, 0, kPoolQuotaUtilization), r.pool_value(p, rep, 0, kPoolUtilization));
        EXPECT_GT(r.pool_value(p, rep, 0, kPoolUtilization), 0.4);  // 1 request/s of 1 s on 2 GPUs
      }
      const std::size_t row = p * r.pool_count() * kPoolMetricCount;
      EXPECT_EQ(r.pool_summary[row + kPoolQuotaUtilization].mean, r.pool_summary[row + kPoolUtilization].mean);
      EXPECT_TRUE(std::isnan(r.pool_summary[row + kPoolGpuHoursUp].mean));
      EXPECT_FALSE(std::isnan(r.summary_of(p, kLatencyMeanS).mean));
      if (!r.all_rows()) {  // the sweep: its differences from point 0
        EXPECT_TRUE(std::isnan(r.difference_summary[p * kScalarMetricCount + kRequestWaitMeanS].mean));
        EXPECT_EQ(r.difference_summary[p * kScalarMetricCount + kReplicaPreemptions].mean, 0.0);
      }
    }
  }
}

TEST_F(Hdf5ResultsTest, RoundTripPreservesSpecialDoubles) {
  RunResults r = sample_results();
  r.scalars[0] = std::numeric_limits<double>::quiet_NaN();
  r.scalars[1] = -0.0;
  r.scalars[2] = std::numeric_limits<double>::infinity();
  r.scalars[3] = -std::numeric_limits<double>::infinity();
  r.scalars[4] = std::numeric_limits<double>::denorm_min();
  r.pool_values[0] = std::numeric_limits<double>::max();
  r.summary[0].std = std::numeric_limits<double>::quiet_NaN();
  const std::string path = file("special.h5");
  write_results_hdf5(r, path);
  expect_same_results(r, read_results_hdf5(path));
}

TEST_F(Hdf5ResultsTest, ZeroReplicationsAndZeroPoolsRoundTrip) {
  RunResults r;
  r.gpucap_version = "0.1.0";
  r.scenario_name = "empty";
  r.backend = "cpu-serial";
  r.points = 1;
  r.replications = 0;
  r.summary.assign(kScalarMetricCount, MetricSummary{});
  const std::string path = file("empty.h5");
  write_results_hdf5(r, path);
  const RunResults read = read_results_hdf5(path);
  expect_same_results(r, read);
  EXPECT_TRUE(read.pool_names.empty());
  EXPECT_TRUE(read.sweep.empty());
}

TEST_F(Hdf5ResultsTest, ZeroPoolsWithReplicationsRoundTrip) {
  RunResults r = sample_results();
  r.pool_names.clear();
  r.pool_values.clear();
  r.pool_summary.clear();
  r.sweep.clear();
  const std::string path = file("no_pools.h5");
  write_results_hdf5(r, path);
  expect_same_results(r, read_results_hdf5(path));
}

/// The filters (H5Z_FILTER_*) of a dataset, in pipeline order.
std::vector<H5Z_filter_t> filters_of(const std::string& path, const char* dataset) {
  std::vector<H5Z_filter_t> out;
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
  const hid_t dcpl = H5Dget_create_plist(d);
  for (int i = 0; i < H5Pget_nfilters(dcpl); ++i) {
    unsigned flags = 0;
    std::size_t n = 0;
    unsigned config = 0;
    out.push_back(
        H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &n, nullptr, 0, nullptr, &config));
  }
  H5Pclose(dcpl);
  H5Dclose(d);
  H5Fclose(f);
  return out;
}

TEST_F(Hdf5ResultsTest, EveryDatasetIsChecksummedLargeOnesCompressed) {
  RunResults r = sample_results();
  r.replications = 1500;  // /replications: 2 x 1500 = 3000 < 4096; /pools: 6000 >= 4096
  r.scalars.resize(r.points * r.replications * kScalarMetricCount);
  for (std::size_t i = 0; i < r.scalars.size(); ++i) r.scalars[i] = std::sqrt(double(i));
  r.pool_values.resize(r.points * r.replications * r.pool_count() * kPoolMetricCount);
  for (std::size_t i = 0; i < r.pool_values.size(); ++i) r.pool_values[i] = i % 17;
  const std::string path = file("large.h5");
  write_results_hdf5(r, path);

  H5D_layout_t layout = H5D_LAYOUT_ERROR;
  read_raw(path, "/replications/cost", nullptr, &layout);
  EXPECT_EQ(layout, H5D_CHUNKED);  // Fletcher32 needs chunks
  EXPECT_EQ(filters_of(path, "/replications/cost"),
            std::vector<H5Z_filter_t>{H5Z_FILTER_FLETCHER32});
  EXPECT_EQ(
      filters_of(path, "/pools/cost"),
      (std::vector<H5Z_filter_t>{H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE, H5Z_FILTER_FLETCHER32}));
  EXPECT_EQ(filters_of(path, "/summary"), std::vector<H5Z_filter_t>{H5Z_FILTER_FLETCHER32});
  EXPECT_EQ(filters_of(path, "/pool_summary"), std::vector<H5Z_filter_t>{H5Z_FILTER_FLETCHER32});
  expect_same_results(r, read_results_hdf5(path));

  r.replications = 2048;  // 2 x 2048 = 4096: compressed too
  r.scalars.resize(r.points * r.replications * kScalarMetricCount, 0.25);
  r.pool_values.resize(r.points * r.replications * r.pool_count() * kPoolMetricCount, 0.5);
  write_results_hdf5(r, path);
  EXPECT_EQ(
      filters_of(path, "/replications/cost"),
      (std::vector<H5Z_filter_t>{H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE, H5Z_FILTER_FLETCHER32}));
  expect_same_results(r, read_results_hdf5(path));
}

/// The chunk shape, filters (with their settings) and chunk count of a dataset.
struct ChunkLayout {
  H5D_layout_t layout = H5D_LAYOUT_ERROR;
  std::vector<hsize_t> chunk;
  std::vector<H5Z_filter_t> filters;
  unsigned deflate_level = 0;
  hsize_t chunks = 0;
};

ChunkLayout chunk_layout_of(const std::string& path, const char* dataset) {
  ChunkLayout out;
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
  const hid_t dcpl = H5Dget_create_plist(d);
  out.layout = H5Pget_layout(dcpl);
  out.chunk.resize(8);
  out.chunk.resize(static_cast<std::size_t>(H5Pget_chunk(dcpl, 8, out.chunk.data())));
  for (int i = 0; i < H5Pget_nfilters(dcpl); ++i) {
    unsigned flags = 0, config = 0, values[4] = {};
    std::size_t n = 4;
    out.filters.push_back(
        H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &n, values, 0, nullptr, &config));
    if (out.filters.back() == H5Z_FILTER_DEFLATE && n >= 1) out.deflate_level = values[0];
  }
  const hid_t space = H5Dget_space(d);
  H5Dget_num_chunks(d, space, &out.chunks);
  H5Sclose(space);
  H5Pclose(dcpl);
  H5Dclose(d);
  H5Fclose(f);
  return out;
}

/// Doubles of every kind a run gives: fractions, whole counts, zeros of both signs, NaN.
std::vector<double> varied_doubles(std::size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1000.0);
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (i % 5) {
      case 0:
        v[i] = uniform(rng);
        break;
      case 1:
        v[i] = std::floor(uniform(rng) / 10);
        break;
      case 2:
        v[i] = (i % 2 == 0) ? 0.0 : -0.0;
        break;
      case 3:
        v[i] = i % 7 == 3 ? std::numeric_limits<double>::quiet_NaN() : 1e-300 * i;
        break;
      default:
        v[i] = -uniform(rng) * 1e12;
        break;
    }
  }
  return v;
}

TEST_F(Hdf5ResultsTest, MetricDatasetsAreChunkedAlongReplicationsShuffledAndDeflated) {
  // 2 points x 131 replications x 2 pools x 1000 bins: a chunk holds 65 replications (65 x 2 x
  // 1000 <= 131072 doubles = 1 MiB), so each point has chunks of 65, 65 and 1 replication (the
  // last one mostly fill), and 131 is no multiple of 65.
  RunResults r = sample_results();
  r.replications = 131;
  r.scalars = varied_doubles(r.points * r.replications * kScalarMetricCount, 1);
  r.pool_values = varied_doubles(r.points * r.replications * r.pool_count() * kPoolMetricCount, 2);
  r.timeseries_bins = 1000;
  r.timeseries_step_s = 60.0;
  r.timeseries = varied_doubles(r.points * r.replications * r.pool_count() * r.timeseries_bins, 3);
  const std::string path = file("chunks.h5");
  write_results_hdf5(r, path);

  const std::vector<H5Z_filter_t> compressed = {H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE,
                                                H5Z_FILTER_FLETCHER32};
  const ChunkLayout ts = chunk_layout_of(path, "/timeseries/gpus_in_use");
  EXPECT_EQ(ts.layout, H5D_CHUNKED);
  EXPECT_EQ(ts.chunk, (std::vector<hsize_t>{1, 65, 2, 1000}));
  EXPECT_EQ(ts.filters, compressed);
  EXPECT_EQ(ts.deflate_level, 1u);
  EXPECT_EQ(ts.chunks, 2u * 3u);
  // /replications: [2, 131] in one chunk per point; /pools: [2, 131, 2], the same.
  const ChunkLayout cost = chunk_layout_of(path, "/replications/cost");
  EXPECT_EQ(cost.chunk, (std::vector<hsize_t>{1, 131}));
  EXPECT_EQ(cost.filters, std::vector<H5Z_filter_t>{H5Z_FILTER_FLETCHER32});  // 262 < 4096
  EXPECT_EQ(cost.chunks, 2u);
  const ChunkLayout pool_cost = chunk_layout_of(path, "/pools/cost");
  EXPECT_EQ(pool_cost.chunk, (std::vector<hsize_t>{1, 131, 2}));

  // Every value back, bit for bit, through the HDF5 C API and through gpucap's reader.
  std::vector<hsize_t> dims;
  const std::vector<double> raw = read_raw(path, "/timeseries/gpus_in_use", &dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{2, 131, 2, 1000}));
  expect_same_doubles(raw, r.timeseries, "timeseries (HDF5)");
  const std::vector<double> pool_cost_raw = read_raw(path, "/pools/cost");
  ASSERT_EQ(pool_cost_raw.size(), r.points * r.replications * r.pool_count());
  for (std::size_t i = 0; i < pool_cost_raw.size(); ++i)
    ASSERT_TRUE(same_bits(pool_cost_raw[i], r.pool_values[i * kPoolMetricCount + kPoolCostUsd]))
        << i;
  const RunResults back = read_results_hdf5(path);
  expect_same_results(r, back);
  expect_same_doubles(back.timeseries, r.timeseries, "timeseries");
}

TEST_F(Hdf5ResultsTest, TrailingDimensionsLargerThanAChunkAreSplitAlongTheLast) {
  // 2 pools x 140001 bins = 280002 doubles per replication: more than a chunk (131072), so a
  // chunk is [1, 1, 1, 131072]: two per pool and replication, the second of 8929 values.
  RunResults r = sample_results();
  r.points = 1;
  r.replications = 3;
  r.sweep = {{"workload.arrival_rate", {"1.5"}}};
  r.scalars = varied_doubles(r.points * r.replications * kScalarMetricCount, 4);
  r.pool_values = varied_doubles(r.points * r.replications * r.pool_count() * kPoolMetricCount, 5);
  r.summary.resize(r.points * kScalarMetricCount);
  r.pool_summary.resize(r.points * r.pool_count() * kPoolMetricCount);
  r.timeseries_bins = 140001;
  r.timeseries_step_s = 1.0;
  r.timeseries = varied_doubles(r.points * r.replications * r.pool_count() * r.timeseries_bins, 6);
  const std::string path = file("split.h5");
  write_results_hdf5(r, path);
  const ChunkLayout ts = chunk_layout_of(path, "/timeseries/gpus_in_use");
  EXPECT_EQ(ts.chunk, (std::vector<hsize_t>{1, 1, 1, 131072}));
  EXPECT_EQ(ts.chunks, 3u * 2u * 2u);
  expect_same_doubles(read_raw(path, "/timeseries/gpus_in_use"), r.timeseries, "timeseries");
  expect_same_doubles(read_results_hdf5(path).timeseries, r.timeseries, "timeseries (gpucap)");
}

TEST_F(Hdf5ResultsTest, TheFileDoesNotDependOnTheEncodingThreads) {
  RunResults r = sample_results();
  r.replications = 700;
  r.scalars = varied_doubles(r.points * r.replications * kScalarMetricCount, 7);
  r.pool_values = varied_doubles(r.points * r.replications * r.pool_count() * kPoolMetricCount, 8);
  r.timeseries_bins = 300;
  r.timeseries_step_s = 60.0;
  r.timeseries = varied_doubles(r.points * r.replications * r.pool_count() * r.timeseries_bins, 9);
  // Every stored chunk (its file address, offset and bytes) of the large datasets is the same
  // whatever the thread count. (Whole files differ in their times: the creation time and HDF5's
  // object modification times, in seconds.)
  std::vector<std::vector<std::vector<unsigned char>>> chunks;
  for (unsigned threads : {1u, 3u, 8u}) {
    OutputOptions options;
    options.threads = threads;
    const std::string path = file("threads" + std::to_string(threads) + ".h5");
    write_results_hdf5(r, path, options);
    chunks.emplace_back();
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    for (const char* name :
         {"/replications/cost", "/pools/utilization", "/timeseries/gpus_in_use"}) {
      const hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
      const hid_t space = H5Dget_space(d);
      hsize_t n = 0;
      H5Dget_num_chunks(d, space, &n);
      EXPECT_GT(n, 0u) << name;
      for (hsize_t i = 0; i < n; ++i) {
        hsize_t offset[4] = {}, size = 0;
        haddr_t address = 0;
        unsigned mask = 0;
        ASSERT_GE(H5Dget_chunk_info(d, space, i, offset, &mask, &address, &size), 0);
        std::vector<unsigned char> bytes(size + 5 * sizeof(hsize_t));
        uint32_t filters = 0;
        ASSERT_GE(H5Dread_chunk(d, H5P_DEFAULT, offset, &filters, bytes.data()), 0);
        std::memcpy(bytes.data() + size, offset, 4 * sizeof(hsize_t));
        std::memcpy(bytes.data() + size + 4 * sizeof(hsize_t), &address, sizeof(hsize_t));
        chunks.back().push_back(bytes);
      }
      H5Sclose(space);
      H5Dclose(d);
    }
    H5Fclose(f);
  }
  EXPECT_TRUE(chunks[0] == chunks[1]);
  EXPECT_TRUE(chunks[0] == chunks[2]);
}

TEST_F(Hdf5ResultsTest, NoTemporaryFileRemainsAfterWrite) {
  write_results_hdf5(sample_results(), file("run.h5"));
  const std::vector<std::string> names = dir_entries();
  EXPECT_EQ(names, std::vector<std::string>{"run.h5"});
  for (const std::string& name : names) EXPECT_EQ(name.find(".tmp."), std::string::npos) << name;
}

TEST_F(Hdf5ResultsTest, OverwritingReplacesTheFile) {
  const std::string path = file("run.h5");
  RunResults first = sample_results();
  write_results_hdf5(first, path);
  RunResults second = sample_results();
  second.seed = 42;
  second.scalars[5] = 99.0;
  write_results_hdf5(second, path);
  expect_same_results(second, read_results_hdf5(path));
  EXPECT_EQ(dir_entries(), std::vector<std::string>{"run.h5"});
}

TEST_F(Hdf5ResultsTest, WriteIntoMissingDirectoryThrowsWithPathAndLeavesNoFile) {
  const std::string path = file("no/such/dir/run.h5");
  try {
    write_results_hdf5(sample_results(), path);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(dir_entries().empty());
}

TEST_F(Hdf5ResultsTest, WriteWithInconsistentSizesThrowsAndLeavesNoFile) {
  RunResults r = sample_results();
  r.scalars.pop_back();
  const std::string path = file("bad.h5");
  try {
    write_results_hdf5(r, path);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("scalars"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(dir_entries().empty());
}

TEST_F(Hdf5ResultsTest, ReadingNonHdf5FileThrowsWithPath) {
  const std::string path = file("not_hdf5.h5");
  std::ofstream(path) << "this is not an HDF5 file\n";
  try {
    read_results_hdf5(path);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST_F(Hdf5ResultsTest, ReadingMissingFileThrowsWithPath) {
  const std::string path = file("missing.h5");
  try {
    read_results_hdf5(path);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST_F(Hdf5ResultsTest, ReadingFileWithMissingDatasetNamesIt) {
  const std::string path = file("run.h5");
  write_results_hdf5(sample_results(), path);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  ASSERT_GE(H5Ldelete(f, "/replications/wait_mean", H5P_DEFAULT), 0);
  ASSERT_GE(H5Fclose(f), 0);
  // Changed after gpucap wrote it: the file's checksum (in the user block) no longer holds.
  try {
    read_results_hdf5(path);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find("the file is corrupt"), std::string::npos) << message;
  }
  // Without gpucap's header (a file rewritten by another tool), HDF5's structure is checked
  // and the missing dataset named.
  remove_user_block(path);
  try {
    read_results_hdf5(path);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find("/replications/wait_mean"), std::string::npos) << message;
  }
}

TEST_F(Hdf5ResultsTest, TheFileStartsWithItsChecksumAndSize) {
  const std::string path = file("run.h5");
  write_results_hdf5(sample_results(), path);
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 1024u);
  EXPECT_TRUE(std::regex_search(bytes.substr(0, 512),
                                std::regex("^GPUCAP RESULTS FILE\nchecksum: [0-9a-f]{16}\nbytes: " +
                                           std::to_string(bytes.size()) + "\n")));
  EXPECT_EQ(bytes.substr(512, 4), "\x89HDF");  // the HDF5 superblock after the user block
  // A truncated copy is refused with both sizes.
  std::ofstream(file("cut.h5"), std::ios::binary) << bytes.substr(0, bytes.size() - 1);
  try {
    read_results_hdf5(file("cut.h5"));
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("corrupt or truncated: it has " +
                                         std::to_string(bytes.size() - 1) +
                                         " bytes, its header "
                                         "says " +
                                         std::to_string(bytes.size())),
              std::string::npos)
        << e.what();
  }
}

TEST_F(Hdf5ResultsTest, AbsurdCountsInAFileAreRefusedBeforeAllocating) {
  for (const uint64_t absurd : {uint64_t{1} << 60, uint64_t{4}, uint64_t{2000000000}}) {
    const std::string path = file("absurd.h5");
    write_results_hdf5(sample_results(), path);
    {  // replications and the rows kept = absurd, and the header removed (as after another
       // tool rewrote it)
      const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
      for (const char* name : {"replications", "kept_replications"}) {
        const hid_t a = H5Aopen(f, name, H5P_DEFAULT);
        ASSERT_GE(H5Awrite(a, H5T_NATIVE_UINT64, &absurd), 0);
        H5Aclose(a);
      }
      H5Fclose(f);
    }
    remove_user_block(path);
    try {
      read_results_hdf5(path);
      FAIL() << "expected std::runtime_error for replications = " << absurd;
    } catch (const std::runtime_error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(path), std::string::npos) << message;
      EXPECT_TRUE(message.find("beyond the format's limit") != std::string::npos ||
                  message.find("has shape") != std::string::npos)
          << message;
    }
  }
}

}  // namespace
}  // namespace gpucap
