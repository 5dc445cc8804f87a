// Reliability of `gpucap import` under hostile job logs (issue 26, "Safe under hostile input,
// round three"): time linear in the input, checked integers and sums, run times censored where
// the docs say, memory bounded by bytes, no attempt dropped silently, and outputs (the trace
// CSV, the report JSON) that gpucap itself loads back, whatever text the log held.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "gpucap/data/delimited.hpp"
#include "gpucap/data/job_import.hpp"
#include "gpucap/data/timestamp.hpp"
#include "gpucap/data/trace_writer.hpp"
#include "gpucap/json_reader.hpp"
#include "gpucap/scenario_loader.hpp"

#include "support/process.hpp"
#include "support/scratch_dir.hpp"

namespace gpucap::data {
namespace {

namespace fs = std::filesystem;
using testing_support::read_all;
using testing_support::run_gpucap;

struct Imported {
  std::string csv;
  ImportReport report;
};

class ImportHostile : public testing_support::ScratchDirTest {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return (dir_ / name).string();
  }
  Imported import(JobLogFormat format, const std::string& text, ImportOptions options = {}) {
    Imported out;
    out.report = import_job_log(format, write("log", text), options,
                                [&](std::string_view b) { out.csv.append(b); });
    return out;
  }
  /// The rows of `trace_csv` as a scenario's `process: trace` loads them.
  std::vector<TraceRow> replay(const std::string& trace_csv) {
    write("trace.csv", trace_csv);
    const Scenario s = parse_scenario(
        "name: replay\nhorizon: 1000d\npools:\n  p: {gpu: H100, price_usd_per_gpu_hour: 1, "
        "quota: 1048575}\nworkloads:\n  - name: jobs\n    arrivals: {process: trace, file: "
        "trace.csv}\n",
        "replay.yaml", dir_.string());
    return s.workloads.at(0).arrivals.trace;
  }
};

/// Counts what a JSON document holds, to check that a written file loads back.
struct CountingVisitor : gpucap::JsonVisitor {
  std::size_t values = 0;
  std::vector<std::string> strings;
  void begin_object(const std::string&, const gpucap::JsonPosition&) override {}
  void begin_array(const std::string&, const gpucap::JsonPosition&) override {}
  void end(const std::string&) override {}
  void number(const std::string&, double, const gpucap::JsonPosition&) override {
    ++values;
  }
  void other(const std::string&, const char*, const std::string& text,
             const gpucap::JsonPosition&) override {
    ++values;
    strings.push_back(text);
  }
};

// Row 2: the JSON reader copied the key path for every element, so an array under a long key
// cost the key's length per element (a 3 MB object: ~10^12 bytes copied, many minutes). Now
// each element costs its own index.
TEST_F(ImportHostile, AnArrayUnderALongKeyIsReadInLinearTime) {
  const std::string key(std::size_t{1} << 20, 'k');
  std::string elements;
  for (int i = 0; i < 1000000; ++i) elements += i ? ",0" : "0";
  const Imported r = import(
      JobLogFormat::philly,
      "[{\"status\": \"Pass\", \"vc\": \"v\", \"user\": \"u\", \"submitted_time\": \"1000\", "
      "\"" +
          key + "\": [" + elements +
          "], \"attempts\": [{\"start_time\": \"1000\", "
          "\"end_time\": \"1060\", \"detail\": [{\"gpus\": [\"g0\", \"g1\"]}]}]}]\n");
  EXPECT_EQ(r.csv, "submit_s,gpus,duration_s,censored,vc,user,status\n0,2,60,0,v,u,Pass\n");

  // The reader itself, under a long key: every element visited.
  CountingVisitor counting;
  gpucap::read_json("{\"" + key + "\": [" + elements + "]}", counting);
  EXPECT_EQ(counting.values, 1000000u);
}

// Row 4: typed GPU counts were summed in 64 bits without a check (2^64 - 1 + 3 kept as 2
// GPUs), counts beyond 2^53 were accepted though the docs say 2^53, and "1e3" read as 1000.
TEST_F(ImportHostile, SlurmGpuCountsAndTheirSumsAreChecked) {
  const Imported r =
      import(JobLogFormat::slurm,
             "JobID|Submit|Start|End|State|AllocTRES\n"
             "1|100|100|200|COMPLETED|gres/gpu:a=18446744073709551615,gres/gpu:b=3\n"
             "2|100|100|200|COMPLETED|gres/gpu=1e3\n"
             "3|100|100|200|COMPLETED|gres/gpu=9007199254740993\n"
             "4|100|100|200|COMPLETED|gres/gpu:a=4503599627370496,gres/gpu:b=4503599627370497\n"
             "5|100|100|200|COMPLETED|gres/gpu=0x10\n"
             "6|100|100|200|COMPLETED|gres/gpu=4.5\n"
             "7|100|100|200|COMPLETED|gres/gpu=4.0,gres/gpu:a100=4\n"
             "8|100|100|200|COMPLETED|gres/gpu:a=3,gres/gpu:b=2\n");
  EXPECT_EQ(r.csv,
            "submit_s,gpus,duration_s,censored,partition,account\n0,4,100,0,,\n0,5,100,0,,\n");
  EXPECT_EQ(r.report.dropped_for("malformed GPU count"), 6u);
  const Imported gres = import(JobLogFormat::slurm,
                               "JobID|Submit|Start|End|State|AllocGRES\n"
                               "1|100|100|200|COMPLETED|gpu:a100:18446744073709551615,gpu:v100:2\n"
                               "2|100|100|200|COMPLETED|gpu:a100:2(IDX:0-1),gpu:v100:1\n");
  EXPECT_EQ(gres.csv, "submit_s,gpus,duration_s,censored,partition,account\n0,3,100,0,,\n");
  EXPECT_EQ(gres.report.dropped_for("malformed GPU count"), 1u);
}

// Row 5: a Running pod deleted after --log-end was written with its whole run (9,900 s) though
// marked censored; the docs say it is censored at the log's end (4,900 s).
TEST_F(ImportHostile, ARunningPodDeletedAfterTheLogsEndIsCensoredThere) {
  ImportOptions options;
  options.trace.log_end_ms = 5000 * 1000;
  const Imported r = import(JobLogFormat::kubernetes,
                            "name,num_gpu,pod_phase,creation_time,deletion_time,scheduled_time\n"
                            "p,1,Running,100,10000,100\n"
                            "late,1,Running,200,10000,6000\n"
                            "done,2,Succeeded,300,4000,300\n",
                            options);
  EXPECT_EQ(r.csv,
            "submit_s,gpus,duration_s,censored,gpu_milli,gpu_model,qos\n0,1,4900,1,1000,,\n"
            "200,2,3700,0,1000,,\n");
  EXPECT_EQ(r.report.censored, 1u);
  EXPECT_EQ(r.report.dropped_for("still running, started at or after the log's end (--log-end)"),
            1u);
}

// Row 6: the reorder window held 100,000 jobs whatever their text (600 rows with 1 MB text
// fields: 602 MB resident). Now it also holds at most reorder_window_bytes: rows are written
// as soon as the held ones pass it.
TEST_F(ImportHostile, TheReorderWindowIsBoundedByBytes) {
  ImportReport report;
  TraceOptions options;
  options.reorder_window_bytes = 10000000;
  std::size_t written = 0;
  TraceWriter writer({"text"}, options, report, [&](std::string_view b) { written += b.size(); });
  for (int i = 0; i < 100; ++i) {
    JobRecord job;
    job.submit_ms = job.start_ms = i * 1000;
    job.end_ms = job.start_ms + 1000;
    job.gpus = 1;
    job.extra = "," + std::string(1000000, 'x');
    writer.add(std::move(job));
  }
  // Rows of 1,000,001 bytes of text: 9 fit in 10^7 bytes, the other 91 are written already.
  EXPECT_EQ(report.kept, 91u);
  writer.finish();
  EXPECT_EQ(report.kept, 100u);
  EXPECT_EQ(kDefaultReorderWindowBytes, std::size_t{32} << 20);

  // By default the budget is 32 MiB, or 128 bytes per job of a larger window: a window of
  // 1,000,000 jobs holds 1,279 rows of 100,000 bytes of text (128 MB), not 335.
  ImportReport wide_report;
  TraceOptions wide;
  wide.reorder_window = 1000000;
  TraceWriter wide_writer({"text"}, wide, wide_report, [](std::string_view) {});
  for (int i = 0; i < 1300; ++i) {
    JobRecord job;
    job.submit_ms = job.start_ms = i * 1000;
    job.end_ms = job.start_ms + 1000;
    job.gpus = 1;
    job.extra = "," + std::string(99949, 'x');
    wide_writer.add(std::move(job));
  }
  // 128,000,000 bytes hold 1,279 rows of 99,950 bytes of text and the row's own 70 to 90.
  EXPECT_EQ(wide_report.kept, 1300u - 1279u);
  wide_writer.finish();

  // Running jobs held until the log's end have the same budget; beyond it they are counted.
  ImportReport running_report;
  TraceWriter running_writer({"text"}, options, running_report, [](std::string_view) {});
  for (int i = 0; i < 12; ++i) {
    JobRecord job;
    job.submit_ms = job.start_ms = i * 1000;
    job.running = true;
    job.gpus = 1;
    job.extra = "," + std::string(1000000, 'x');
    running_writer.add(std::move(job));
  }
  running_writer.finish();
  EXPECT_EQ(running_report.kept, 9u);
  EXPECT_EQ(running_report.dropped_for(
                "still running, beyond the reorder window of running jobs held until the log's "
                "end (raise --reorder-window or give --log-end)"),
            3u);
}

// Instances without a creation time wait for the origin (the first creation kept) before they
// can be written. Without --origin: one deleted before that first creation was not alive in
// the window and is dropped as such (it was written as `,-3600,1`, which `fit --kind
// deployment` then refused); and they are held within the reorder window's budget (3 M such
// rows took 375 MB), the rest dropped with a reason that says how to keep them.
TEST_F(ImportHostile, InstancesWithoutACreationTimeBeforeTheOrigin) {
  const Imported r = import(JobLogFormat::csv,
                            "created,deleted,gpus\n,2023-01-01T00:00:00Z,1\n"
                            ",2023-01-01T03:00:00Z,1\n2023-01-01T01:00:00Z,,2\n",
                            [] {
                              ImportOptions o;
                              o.trace.instances = true;
                              o.mapping = {{"submit", "created"}, {"end", "deleted"}, {"gpus", "gpus"}};
                              return o;
                            }());
  EXPECT_EQ(r.csv, "start_s,end_s,gpus\n,7200,1\n0,,2\n");
  EXPECT_EQ(r.report.kept, 2u);
  EXPECT_EQ(r.report.dropped_for("deleted at or before the origin (the first creation time, "
                                 "without --origin): not alive in the window"),
            1u);

  ImportReport report;
  TraceOptions options;
  options.instances = true;
  options.reorder_window = 1000;
  std::string csv;
  TraceWriter writer({}, options, report, [&](std::string_view b) { csv.append(b); });
  for (int i = 0; i < 5000; ++i) {
    JobRecord job;
    job.submit_unknown = true;
    job.running = true;
    job.gpus = 1;
    job.line = static_cast<uint64_t>(i + 2);
    writer.add(std::move(job));
  }
  JobRecord created;
  created.submit_ms = created.start_ms = 1000;
  created.running = true;
  created.gpus = 1;
  writer.add(std::move(created));
  writer.finish();
  EXPECT_EQ(report.kept, 1001u);
  EXPECT_EQ(report.dropped_for("no creation time, beyond the reorder window of such instances held "
                               "until the origin is known (give --origin, or raise "
                               "--reorder-window)"),
            4000u);
  // With --origin they are written as they come: none held, none dropped.
  ImportReport given;
  options.origin_ms = 0;
  TraceWriter direct({}, options, given, [](std::string_view) {});
  for (int i = 0; i < 5000; ++i) {
    JobRecord job;
    job.submit_unknown = true;
    job.running = true;
    job.gpus = 1;
    direct.add(std::move(job));
  }
  direct.finish();
  EXPECT_EQ(given.kept, 5000u);
}

// --log-end and --running apply to jobs: with --instances a running instance keeps a blank end
// whatever the log's end, so the report said run times were censored at a log end that changed
// no row. Both are refused.
TEST_F(ImportHostile, LogEndAndRunningDoNotApplyToInstances) {
  const std::string log = write("pods.csv", "created,deleted,gpus\n0,,1\n10,20,1\n");
  for (const std::string option : {"--log-end 5", "--running drop"}) {
    const auto o = run_gpucap({"import", log, "--format", "csv", "--instances", "--time-format",
                               "seconds", "--map", "submit=created,end=deleted,gpus=gpus",
                               "-o", (dir_ / "out.csv").string(), option.substr(0, option.find(' ')),
                               option.substr(option.find(' ') + 1)});
    EXPECT_EQ(o.exit_code, 2) << o.output;
    EXPECT_NE(o.output.find(option.substr(0, option.find(' ')) +
                            " does not apply with --instances"),
              std::string::npos)
        << o.output;
    EXPECT_FALSE(fs::exists(dir_ / "out.csv"));
  }
}

// Row 16: attempts past the 100,000th were dropped silently (1 GPU, 100,001 s instead of
// 8 GPUs, 186,402 s). Attempts are now folded as they are read, any number of them.
TEST_F(ImportHostile, EveryPhillyAttemptCounts) {
  std::string attempts;
  for (int i = 0; i < 100001; ++i)
    attempts += "{\"start_time\":\"1000\",\"end_time\":\"1001\",\"detail\":[{\"gpus\":[\"g\"]}]},";
  attempts +=
      "{\"start_time\":\"200000\",\"end_time\":\"286401\",\"detail\":[{\"gpus\":[\"0\",\"1\","
      "\"2\",\"3\"]},{\"gpus\":[\"0\",\"1\",\"2\",\"3\"]}]}";
  const Imported r = import(JobLogFormat::philly,
                            "[{\"status\":\"Pass\",\"vc\":\"v\",\"user\":\"u\",\"submitted_time\":"
                            "\"1000\",\"attempts\":[" +
                                attempts + "]}]");
  EXPECT_EQ(r.csv, "submit_s,gpus,duration_s,censored,vc,user,status\n0,8,186402,0,v,u,Pass\n");

  // Run times that add up beyond 64 bits are a drop, not a wrapped sum.
  std::string huge;
  for (int i = 0; i < 40000; ++i)
    huge +=
        std::string(i ? "," : "") + "{\"start_time\":\"1000-01-01\",\"end_time\":\"9999-12-31\"}";
  const Imported h = import(JobLogFormat::philly,
                            "[{\"status\":\"Pass\",\"submitted_time\":\"1000-01-01\","
                            "\"attempts\":[" +
                                huge + "]}]");
  EXPECT_EQ(h.report.kept, 0u);
  EXPECT_EQ(
      h.report.dropped_for("the attempts' run times add up beyond 2^63 ms (corrupt attempts)"), 1u);
}

// Row 21: formulas and bidirectional controls were copied into the trace's text columns.
TEST_F(ImportHostile, TextColumnsAreSafeInSpreadsheetsAndLoadBack) {
  const Imported r = import(JobLogFormat::slurm,
                            "JobID|Submit|Start|End|State|AllocTRES|Partition|Account\n"
                            "1|100|100|200|COMPLETED|gres/gpu=1|=cmd|' /C calc'!A0|\xe2\x80\xae"
                            "cba\n");
  // The pipe inside the formula is sacct's separator: the row is ragged. A formula that is
  // one field:
  EXPECT_EQ(r.report.dropped_for("more fields than the header (ragged row)"), 1u);
  const Imported f = import(JobLogFormat::slurm,
                            "JobID|Submit|Start|End|State|AllocTRES|Partition|Account\n"
                            "1|100|100|200|COMPLETED|gres/gpu=1|=HYPERLINK(\"x\",\"y\")|"
                            "\xe2\x80\xae"
                            "cba\xe2\x81\xa6\n"
                            "2|160|160|200|COMPLETED|gres/gpu=1|-1|+2.5\n"
                            "3|170|170|200|COMPLETED|gres/gpu=1|-1+1|@SUM(A1)\n");
  EXPECT_EQ(f.csv,
            "submit_s,gpus,duration_s,censored,partition,account\n"
            "0,1,100,0,\"'=HYPERLINK(\"\"x\"\",\"\"y\"\")\",?cba?\n"
            "60,1,40,0,-1,+2.5\n"
            "70,1,30,0,'-1+1,'@SUM(A1)\n");
  EXPECT_EQ(f.report.noted("text fields that a spreadsheet would read as a formula (=, +, -, @ "
                           "first) written with a leading '"),
            3u);
  EXPECT_EQ(f.report.noted("text fields with invalid UTF-8, control characters or bidirectional "
                           "controls written with '?'"),
            1u);
  const std::vector<TraceRow> rows = replay(f.csv);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[2].submit_s, 70);
  EXPECT_EQ(rows[2].work_s, 30);
}

// Row 21: --report wrote raw 0xFF bytes (a non-UTF-8 path) into JSON; --map '' exited 1.
TEST_F(ImportHostile, TheReportIsValidJsonForAnyPathAndAnEmptyMapIsUsage) {
  const std::string log = write("sacct-\xff\xfe-\xe2\x80\xae.txt",
                                "JobID|Submit|Start|End|State|AllocTRES\n"
                                "1|100|100|200|COMPLETED|gres/gpu=1\n");
  const fs::path report = dir_ / "report.json";
  const auto o = run_gpucap({"import", "--format", "slurm", log, "-o",
                             (dir_ / "trace.csv").string(), "--report", report.string(), "-q"});
  ASSERT_EQ(o.exit_code, 0) << o.output;
  const std::string json = read_all(report);
  EXPECT_TRUE(is_valid_utf8(json)) << json;
  EXPECT_NE(json.find("sacct-\\ufffd\\ufffd-\\u202e.txt"), std::string::npos) << json;
  CountingVisitor counting;
  gpucap::read_json(json, counting);
  EXPECT_EQ(counting.strings.at(1),
            (dir_ / "sacct-\xef\xbf\xbd\xef\xbf\xbd-\xe2\x80\xae.txt").string());

  const auto empty_map =
      run_gpucap({"import", "--format", "csv", log, "-o", (dir_ / "t.csv").string(), "--map", ""});
  EXPECT_EQ(empty_map.exit_code, 2) << empty_map.output;
  EXPECT_NE(empty_map.output.find("--map names no column"), std::string::npos) << empty_map.output;
  const auto partial_map = run_gpucap(
      {"import", "--format", "csv", log, "-o", (dir_ / "t.csv").string(), "--map", "class=JobID"});
  EXPECT_EQ(partial_map.exit_code, 2) << partial_map.output;
  EXPECT_NE(partial_map.output.find("needs --map with at least submit, gpus, and end or duration"),
            std::string::npos)
      << partial_map.output;
}

// A Philly log saved with a UTF-8 byte-order mark was refused ("unexpected '\xef'"); the line
// formats skip one. A broken mark is an error naming it.
TEST_F(ImportHostile, APhillyLogMayStartWithAByteOrderMark) {
  const std::string job =
      "[{\"status\": \"Pass\", \"vc\": \"v\", \"user\": \"u\", \"submitted_time\": \"1000\", "
      "\"attempts\": [{\"start_time\": \"1000\", \"end_time\": \"1060\", \"detail\": "
      "[{\"gpus\": [\"g0\"]}]}]}]\n";
  EXPECT_EQ(import(JobLogFormat::philly, "\xEF\xBB\xBF" + job).csv,
            "submit_s,gpus,duration_s,censored,vc,user,status\n0,1,60,0,v,u,Pass\n");
  try {
    import(JobLogFormat::philly, "\xEF\xBB" + job);
    FAIL() << "accepted";
  } catch (const DataFileError& e) {
    EXPECT_NE(std::string(e.what()).find(":1: a broken byte-order mark at the start of the file"),
              std::string::npos)
        << e.what();
  }
}

// The extremes the importers accept (years 1000 and 9999, millisecond run times, 1,048,575
// GPUs) come out as a trace that process: trace loads with the same values.
TEST_F(ImportHostile, ATraceOfExtremeValuesLoadsBack) {
  ImportOptions options;
  options.mapping = {
      {"submit", "created"}, {"start", "started"}, {"end", "finished"}, {"gpus", "n"}};
  const Imported r = import(JobLogFormat::csv,
                            "created,started,finished,n\n"
                            "1000-01-01,1000-01-01,9999-12-31T23:59:59.999,1048575\n"
                            "9999-12-31T23:59:58,9999-12-31T23:59:58.001,9999-12-31T23:59:59,1\n"
                            "1000-01-01,1000-01-01T00:00:00.0004,1000-01-01T00:00:00.0006,1\n",
                            options);
  EXPECT_EQ(r.csv,
            "submit_s,gpus,duration_s,censored\n0,1048575,284012524799.999,0\n0,1,0.001,0\n"
            "284012524798,1,0.999,0\n");
  const std::vector<TraceRow> rows = replay(r.csv);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].gpus, 1048575u);
  EXPECT_EQ(rows[0].work_s, 284012524799.999);
  EXPECT_EQ(rows[1].work_s, 0.001);
  EXPECT_EQ(rows[2].submit_s, 284012524798.0);
}

// A --map column that the header lacks is named in the message as an excerpt.
TEST_F(ImportHostile, AMissingMappedColumnIsQuotedAsAnExcerpt) {
  ImportOptions options;
  options.mapping = {{"submit", "a"}, {"gpus", "b"}, {"end", std::string(5000, '\xff')}};
  try {
    import(JobLogFormat::csv, "a,b,c\n1,1,2\n", options);
    FAIL() << "accepted";
  } catch (const DataFileError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(": the header has no column \"\\xff\\xff"), std::string::npos)
        << message;
    EXPECT_LT(message.size(), 2000u);
    EXPECT_TRUE(is_valid_utf8(message));
  }
}

// Options that name no zone or time format are quoted as excerpts (escaped and cut), not copied
// raw into the message.
TEST(ImportOptionsHostile, UnknownZonesAndTimeFormatsAreQuotedAsExcerpts) {
  const std::string hostile = std::string(2000, '\xff') + "\x1b[2J";
  for (int which = 0; which < 2; ++which) {
    try {
      if (which == 0)
        parse_time_zone(hostile);
      else
        parse_time_format(hostile);
      FAIL() << "accepted";
    } catch (const std::invalid_argument& e) {
      const std::string message = e.what();
      EXPECT_LT(message.size(), 600u) << message;
      EXPECT_TRUE(is_valid_utf8(message)) << message;
      EXPECT_EQ(message.find('\x1b'), std::string::npos) << message;
      EXPECT_NE(message.find(which == 0 ? "unknown time zone '" : "unknown time format '"),
                std::string::npos)
          << message;
    }
  }
}

}  // namespace
}  // namespace gpucap::data
