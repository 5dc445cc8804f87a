// The job-log importers (sim/data): each format on small logs written here, with hand-worked
// expected traces, and hostile inputs (ragged rows, huge numbers, negative run times, non-UTF-8
// text, empty files, a header alone, special files, unknown formats).
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>

#include "gpucap/data/job_import.hpp"
#include "gpucap/data/line_reader.hpp"
#include "gpucap/data/timestamp.hpp"

namespace gpucap::data {
namespace {

namespace fs = std::filesystem;

fs::path scratch() {
  const fs::path dir =
      fs::path(testing::TempDir()) / ("gpucap_import_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

std::string write(const std::string& name, const std::string& text) {
  const fs::path p = scratch() / name;
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

struct Imported {
  std::string csv;
  ImportReport report;
};

Imported import(JobLogFormat format, const std::string& text, ImportOptions options = {}) {
  Imported out;
  const std::string path = write("log", text);
  out.report =
      import_job_log(format, path, options, [&](std::string_view b) { out.csv.append(b); });
  return out;
}

int64_t utc_ms(int y, unsigned m, unsigned d, int hh, int mm, int ss) {
  return (days_from_civil(y, m, d) * 86400 + hh * 3600 + mm * 60 + ss) * 1000;
}

// ---- timestamps ----

TEST(Timestamp, IsoEpochOffsetsAndZones) {
  int64_t ms = 0;
  ASSERT_EQ(parse_timestamp("2024-03-01T12:34:56", TimeFormat::automatic, {}, ms), TimeParse::ok);
  EXPECT_EQ(ms, utc_ms(2024, 3, 1, 12, 34, 56));
  ASSERT_EQ(parse_timestamp("2024-03-01 12:34:56.25", TimeFormat::automatic, {}, ms),
            TimeParse::ok);
  EXPECT_EQ(ms, utc_ms(2024, 3, 1, 12, 34, 56) + 250);
  // Local time of a +02:00 log is two hours ahead of UTC; an explicit offset wins.
  ASSERT_EQ(parse_timestamp("2024-03-01T12:00:00", TimeFormat::iso8601, {120}, ms), TimeParse::ok);
  EXPECT_EQ(ms, utc_ms(2024, 3, 1, 10, 0, 0));
  ASSERT_EQ(parse_timestamp("2024-03-01T12:00:00Z", TimeFormat::iso8601, {120}, ms), TimeParse::ok);
  EXPECT_EQ(ms, utc_ms(2024, 3, 1, 12, 0, 0));
  ASSERT_EQ(parse_timestamp("2024-03-01T12:00:00-0530", TimeFormat::iso8601, {}, ms),
            TimeParse::ok);
  EXPECT_EQ(ms, utc_ms(2024, 3, 1, 17, 30, 0));
  ASSERT_EQ(parse_timestamp("1700000000.5", TimeFormat::automatic, {}, ms), TimeParse::ok);
  EXPECT_EQ(ms, 1700000000500);
  ASSERT_EQ(parse_timestamp("1700000000500", TimeFormat::epoch_millis, {}, ms), TimeParse::ok);
  EXPECT_EQ(ms, 1700000000500);
  ASSERT_EQ(parse_timestamp("2024-02-29T00:00:00", TimeFormat::automatic, {}, ms), TimeParse::ok);
  EXPECT_EQ(format_utc(ms), "2024-02-29T00:00:00Z");
  for (const char* bad : {"2023-02-29T00:00:00", "2024-13-01", "2024-03-01T24:00:00", "1e300",
                          "-5", "2024-03-01T12:00:00+99:00", "yesterday", "2024-03-01T12"})
    EXPECT_EQ(parse_timestamp(bad, TimeFormat::automatic, {}, ms), TimeParse::malformed) << bad;
  for (const char* absent : {"", "Unknown", "None", "null"})
    EXPECT_EQ(parse_timestamp(absent, TimeFormat::automatic, {}, ms), TimeParse::absent);
}

TEST(Timestamp, ZonesAreFixedOffsets) {
  EXPECT_EQ(parse_time_zone("UTC").offset_minutes, 0);
  EXPECT_EQ(parse_time_zone("+02:00").offset_minutes, 120);
  EXPECT_EQ(parse_time_zone("-0530").offset_minutes, -330);
  EXPECT_EQ(parse_time_zone("UTC+8").offset_minutes, 480);
  try {
    parse_time_zone("Europe/Berlin");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("daylight saving"), std::string::npos);
  }
}

TEST(Timestamp, ClockDurations) {
  int64_t ms = 0;
  ASSERT_TRUE(parse_clock_duration("1-02:03:04", ms));
  EXPECT_EQ(ms, 93784000);
  ASSERT_TRUE(parse_clock_duration("02:03:04", ms));
  EXPECT_EQ(ms, 7384000);
  ASSERT_TRUE(parse_clock_duration("03:04.5", ms));
  EXPECT_EQ(ms, 184500);
  ASSERT_TRUE(parse_clock_duration("3600", ms));
  EXPECT_EQ(ms, 3600000);
  for (const char* bad : {"", "x", "1:2:3:4", "00:61:00", "-5"})
    EXPECT_FALSE(parse_clock_duration(bad, ms)) << bad;
}

// ---- the line reader ----

TEST(LineReader, LineBreaksAndLimits) {
  const std::string path = write("lines", "a\r\nb\rc\n\nd");
  LineReader in(path);
  std::string_view line;
  std::vector<std::string> lines;
  while (in.next(line)) lines.emplace_back(line);
  EXPECT_EQ(lines, (std::vector<std::string>{"a", "b", "c", "", "d"}));
  // A NUL byte (a binary file) and a line over the limit are errors naming the line.
  LineReader binary(write("bin", std::string("ok\nx\0y\n", 7)));
  EXPECT_TRUE(binary.next(line));
  EXPECT_THROW(binary.next(line), DataFileError);
  LineReader long_line(write("long", std::string(5000, 'x')), 1000);
  try {
    long_line.next(line);
    FAIL();
  } catch (const DataFileError& e) {
    EXPECT_NE(std::string(e.what()).find(":1: a line longer than"), std::string::npos) << e.what();
  }
  // Special files are refused before a byte is read.
  EXPECT_THROW(LineReader(scratch().string()), DataFileError);
  EXPECT_THROW(LineReader("/dev/zero"), DataFileError);
  EXPECT_THROW(LineReader((scratch() / "missing").string()), DataFileError);
}

// ---- slurm ----

const char* kSacct =
    "JobID|Submit|Start|End|Elapsed|State|AllocTRES|Partition|Account\n"
    "100|2024-03-01T10:00:00|2024-03-01T10:00:30|2024-03-01T11:00:30|01:00:00|COMPLETED|"
    "billing=8,cpu=8,gres/gpu=2,mem=64G,node=1|gpu|ml\n"
    "100.batch|2024-03-01T10:00:30|2024-03-01T10:00:30|2024-03-01T11:00:30|01:00:00|COMPLETED|"
    "cpu=8,gres/gpu=2,mem=64G,node=1||ml\n"
    "100.extern|2024-03-01T10:00:30|2024-03-01T10:00:30|2024-03-01T11:00:30|01:00:00|COMPLETED|"
    "cpu=8,gres/gpu=2,node=1||ml\n"
    "101|2024-03-01T10:05:00|Unknown|2024-03-01T10:06:00|00:00:00|CANCELLED by 1000||gpu|ml\n"
    "102_1|2024-03-01T10:10:00|2024-03-01T10:10:05|2024-03-01T10:20:05|00:10:00|FAILED|"
    "cpu=1,gres/gpu:a100=1,node=1|gpu|cv\n"
    "102_[2-5]|2024-03-01T10:10:00|Unknown|Unknown|00:00:00|PENDING||gpu|cv\n"
    "103|2024-03-01T09:59:00|2024-03-01T10:30:00|Unknown|01:30:00|RUNNING|"
    "cpu=4,gres/gpu=4,node=1|gpu|ml\n"
    "104|2024-03-01T10:20:00|2024-03-01T10:21:00|2024-03-01T12:00:00|01:39:00|COMPLETED|"
    "cpu=4,mem=8G,node=1|cpu|ml\n";

TEST(SlurmImport, StepsFoldedArraysCancelledAndRunningJobs) {
  const Imported r = import(JobLogFormat::slurm, kSacct);
  // 103 first (09:59, origin), censored at the log's end 12:00 (104's end): 5400 s.
  EXPECT_EQ(r.csv,
            "submit_s,gpus,duration_s,censored,partition,account\n"
            "0,4,5400,1,gpu,ml\n"
            "60,2,3600,0,gpu,ml\n"
            "660,1,600,0,gpu,cv\n");
  EXPECT_EQ(r.report.records, 8u);
  EXPECT_EQ(r.report.kept, 3u);
  EXPECT_EQ(r.report.censored, 1u);
  EXPECT_EQ(r.report.dropped_for("cancelled before it started"), 1u);
  EXPECT_EQ(r.report.dropped_for("zero GPUs"), 1u);
  EXPECT_EQ(r.report.noted("job steps folded into their job"), 2u);
  EXPECT_EQ(r.report.origin_ms, utc_ms(2024, 3, 1, 9, 59, 0));
  EXPECT_EQ(r.report.log_end_ms, utc_ms(2024, 3, 1, 12, 0, 0));
  // Dropping running jobs instead.
  ImportOptions drop;
  drop.trace.running = RunningJobs::drop;
  const Imported d = import(JobLogFormat::slurm, kSacct, drop);
  EXPECT_EQ(d.csv,
            "submit_s,gpus,duration_s,censored,partition,account\n"
            "0,2,3600,0,gpu,ml\n"
            "600,1,600,0,gpu,cv\n");
  EXPECT_EQ(d.report.dropped_for("still running at the log's end (--running drop)"), 1u);
}

TEST(SlurmImport, RequeuedRecordsAreOneJobFromTheFirstSubmission) {
  const Imported r = import(JobLogFormat::slurm,
                            "JobID|Submit|Start|End|State|AllocTRES\n"
                            "200|2024-03-01T00:00:00|2024-03-01T00:01:00|2024-03-01T00:11:00|"
                            "REQUEUED|gres/gpu=8\n"
                            "200|2024-03-01T00:11:00|2024-03-01T00:20:00|2024-03-01T01:20:00|"
                            "COMPLETED|gres/gpu=8\n"
                            "200.batch|2024-03-01T00:20:00|2024-03-01T00:20:00|"
                            "2024-03-01T01:20:00|COMPLETED|gres/gpu=8\n");
  EXPECT_EQ(r.csv, "submit_s,gpus,duration_s,censored,partition,account\n0,8,3600,0,,\n");
  EXPECT_EQ(r.report.noted("repeated records of one job folded (requeued runs, sacct -D)"), 1u);
}

TEST(SlurmImport, TimeZonesAndEndFromElapsed) {
  ImportOptions plus2;
  plus2.zone = parse_time_zone("+02:00");
  const Imported r = import(JobLogFormat::slurm,
                            "JobID|Submit|Start|End|Elapsed|State|ReqTRES\n"
                            "1|2024-03-01T10:00:00|2024-03-01T10:00:00|Unknown|1-00:00:01|"
                            "FAILED|gres/gpu=1\n"
                            "2|2024-03-01T08:30:00Z|2024-03-01T08:30:00Z|2024-03-01T08:31:00Z||"
                            "COMPLETED|gres/gpu=1\n",
                            plus2);
  // Job 1 is local 10:00 = 08:00Z, the origin; job 2 is 30 min later.
  EXPECT_EQ(r.csv,
            "submit_s,gpus,duration_s,censored,partition,account\n0,1,86401,0,,\n1800,1,60,0,,\n");
  EXPECT_EQ(r.report.origin_ms, utc_ms(2024, 3, 1, 8, 0, 0));
}

TEST(SlurmImport, HostileRows) {
  const Imported r = import(
      JobLogFormat::slurm,
      "JobID|Submit|Start|End|State|AllocTRES|Partition\n"
      "1|2024-03-01T00:00:00|2024-03-01T00:00:00|2024-03-01T01:00:00|COMPLETED|gres/gpu=1|p\xff\n"
      "2|2024-03-01T00:00:00|2024-03-01T00:00:00\n"                                    // ragged
      "3|2024-03-01T00:00:00|2024-03-01T00:00:00|2024-03-01T01:00:00|COMPLETED|gres/gpu=1|a|b\n"
      "4|2024-13-01T00:00:00|2024-03-01T00:00:00|2024-03-01T01:00:00|COMPLETED|gres/gpu=1|p\n"
      "5|2024-03-01T00:00:00|2024-03-01T02:00:00|2024-03-01T01:00:00|COMPLETED|gres/gpu=1|p\n"
      "6|2024-03-01T00:00:00|2024-03-01T00:00:00|2024-03-01T01:00:00|COMPLETED|"
      "gres/gpu=99999999999999999999999|p\n"
      "7|2024-03-01T00:00:00|2024-03-01T00:00:00|2024-03-01T01:00:00|COMPLETED|gres/gpu=2000000|p\n"
      "8.batch|2024-03-01T00:00:00|2024-03-01T00:00:00|2024-03-01T01:00:00|COMPLETED|gres/gpu=1|p\n");
  EXPECT_EQ(r.csv, "submit_s,gpus,duration_s,censored,partition,account\n0,1,3600,0,p?,\n");
  EXPECT_EQ(r.report.dropped_for("missing fields (fewer fields than the header)"), 1u);
  EXPECT_EQ(r.report.dropped_for("more fields than the header (ragged row)"), 1u);
  EXPECT_EQ(r.report.dropped_for("malformed or missing submit time"), 1u);
  EXPECT_EQ(r.report.dropped_for("ended before it started (negative run time)"), 1u);
  EXPECT_EQ(r.report.dropped_for("malformed GPU count"), 1u);
  EXPECT_EQ(r.report.dropped_for("more GPUs than a trace row may have (1048575)"), 1u);
  EXPECT_EQ(r.report.dropped_for("a job step without its job's record"), 1u);
  EXPECT_EQ(r.report.noted("text fields with invalid UTF-8, control characters or "
                           "bidirectional controls written with '?'"),
            1u);
}

TEST(SlurmImport, UnusableFilesAreErrors) {
  EXPECT_THROW(import(JobLogFormat::slurm, ""), DataFileError);
  try {
    import(JobLogFormat::slurm, "JobID|Submit|Start\n1|x|y\n");
    FAIL();
  } catch (const DataFileError& e) {
    EXPECT_NE(std::string(e.what()).find("no column \"End\""), std::string::npos) << e.what();
  }
  // A header alone: nothing to keep, no error from the library (the CLI refuses to write).
  const Imported header_only = import(JobLogFormat::slurm, "JobID|Submit|Start|End|State|AllocTRES\n");
  EXPECT_EQ(header_only.report.kept, 0u);
  EXPECT_THROW(parse_job_log_format("lsf"), std::invalid_argument);
}

// ---- kubernetes ----

const char* kPods =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n"
    "p0,1000,1,1,1000,V100,LS,Succeeded,100,500,110\n"
    "p1,1000,1,2,1000,,BE,Running,150,1000,160\n"
    "p2,1000,1,1,460,,LS,Failed,200,300,200\n"
    "p3,1000,1,0,0,,LS,Running,210,1000,220\n"
    "p4,1000,1,1,1000,,LS,Pending,220,1000,\n"
    "p5,1000,1,1,1000,,LS,Succeeded,abc,300,200\n"
    "p6,1,1\n";

TEST(KubernetesImport, PodsFractionalGpusAndRunningPods) {
  const Imported r = import(JobLogFormat::kubernetes, kPods);
  EXPECT_EQ(r.csv,
            "submit_s,gpus,duration_s,censored,gpu_milli,gpu_model,qos\n"
            "0,1,390,0,1000,V100,LS\n"
            "50,2,840,0,1000,,BE\n"
            "100,1,100,0,460,,LS\n");
  EXPECT_EQ(r.report.dropped_for("zero GPUs"), 1u);
  EXPECT_EQ(r.report.dropped_for("never scheduled (no scheduled_time, or pod_phase Pending)"), 1u);
  EXPECT_EQ(r.report.dropped_for("malformed or missing submit time"), 1u);
  EXPECT_EQ(r.report.dropped_for("missing fields (fewer fields than the header)"), 1u);
  ImportOptions drop;
  drop.fractional_gpus = FractionalGpus::drop;
  const Imported d = import(JobLogFormat::kubernetes, kPods, drop);
  EXPECT_EQ(d.report.kept, 2u);
  EXPECT_EQ(d.report.dropped_for("a fraction of a GPU (gpu_milli < 1000; --fractional-gpus drop)"),
            1u);
}

// --instances: a log of long-running instances keeps what jobs would drop: no creation time
// (created before the log: blank start), created before --origin (negative start), no deletion
// (still running: blank end); a pod never scheduled still demanded its GPUs.
TEST(InstanceImport, BlankCreationAndDeletionAreTheWindowsEdges) {
  const std::string log =
      "name,num_gpu,gpu_milli,pod_phase,creation_time,deletion_time,scheduled_time\n"
      "a,1,1000,Running,,,\n"                 // the whole log
      "b,1,1000,Running,,5000,\n"             // created before, deleted at 5000
      "c,2,1000,Running,100,,100\n"           // created at 100, still running
      "d,1,1000,Pending,200,400,\n"           // never scheduled, deleted at 400
      "e,1,1000,Succeeded,300,300,300\n"      // zero lifetime: dropped
      "f,1,1000,Succeeded,50,90,50\n";        // created and deleted before the origin
  ImportOptions options;
  options.trace.instances = true;
  options.trace.origin_ms = 100000;  // t = 0 at 100 s
  const Imported r = import(JobLogFormat::kubernetes, log, options);
  EXPECT_EQ(r.csv,
            "start_s,end_s,gpus,gpu_milli,gpu_model,qos\n"
            ",,1,1000,,\n"
            ",4900,1,1000,,\n"
            "0,,2,1000,,\n"
            "100,300,1,1000,,\n");
  EXPECT_EQ(r.report.kept, 4u);
  EXPECT_EQ(r.report.dropped_for("deleted at or before its creation (the replay needs a lifetime > 0)"), 1u);
  EXPECT_EQ(r.report.dropped_for("deleted at or before the origin (--origin): not alive in the window"), 1u);
  // Without --origin, the first creation kept is t = 0; an instance known only by its blank
  // creation and deletion, with nothing to place it against, is dropped with its reason.
  const Imported alone = import(JobLogFormat::csv, "created,deleted,gpus\n,,1\n", [] {
    ImportOptions o;
    o.trace.instances = true;
    o.mapping = {{"submit", "created"}, {"end", "deleted"}, {"gpus", "gpus"}};
    return o;
  }());
  EXPECT_EQ(alone.report.kept, 0u);
  EXPECT_EQ(alone.report.dropped_for(
                "no creation time, and no --origin or created instance to place its end against"),
            1u);
}

TEST(KubernetesImport, TheRealOpenbPodListWhenPresent) {
  const std::string path =
      std::string(GPUCAP_SOURCE_DIR) + "/../shared/data/workload/alibaba_openb_pod_list_default.csv";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent";
  std::string csv;
  const ImportReport r = import_job_log(JobLogFormat::kubernetes, path, {},
                                        [&](std::string_view b) { csv.append(b); });
  // Counted independently with awk over the file.
  EXPECT_EQ(r.records, 8152u);
  EXPECT_EQ(r.dropped_for("zero GPUs"), 1088u);
  EXPECT_EQ(r.dropped_for("never scheduled (no scheduled_time, or pod_phase Pending)"), 861u);
  EXPECT_EQ(r.kept, 6203u);
  EXPECT_EQ(r.censored, 0u);  // Running pods ran until their deletion (no --log-end given)
  EXPECT_EQ(r.noted("pods on a fraction of a GPU counted as whole GPUs (--fractional-gpus whole)"),
            2573u);
  EXPECT_EQ(csv.substr(0, csv.find('\n', csv.find('\n') + 1) + 1),
            "submit_s,gpus,duration_s,censored,gpu_milli,gpu_model,qos\n0,1,12537496,0,1000,,LS\n");
}

// The real GenAI request log, imported as a user would with no glue: ISO times, no GPU column
// (--set-column gpus=1), statuses SUCCEED, FAILED, PENDING and PROCESSING. Counts from Python's
// csv module over the file: 26,392 SUCCEED, 398 FAILED, 30 PENDING, 3 PROCESSING.
TEST(CsvImport, TheRealGenAiRequestLogWhenPresent) {
  const std::string path = std::string(GPUCAP_SOURCE_DIR) +
                           "/../shared/data/workload/alibaba_genai_lora_request_trace.csv";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent";
  ImportOptions o;
  o.mapping = parse_column_mapping("submit=gmt_create,duration=exec_time_seconds,state=predict_status");
  o.constants = parse_column_mapping("gpus=1", "--set-column");
  std::string csv;
  const ImportReport r =
      import_job_log(JobLogFormat::csv, path, o, [&](std::string_view b) { csv.append(b); });
  EXPECT_EQ(r.records, 26823u);
  EXPECT_EQ(r.dropped_for("never started (pending, or no start time)"), 30u);  // PENDING
  EXPECT_EQ(r.kept, 26392u + 398u + 3u);
  EXPECT_EQ(r.censored, 3u);  // PROCESSING at the log's end
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(format_utc(r.origin_ms), "2024-11-15T16:57:50Z");  // the first request
  EXPECT_NE(r.text().find("for gpucap fit (hour-of-week profiles on the log's calendar): --origin "
                          "2024-11-15T16:57:50Z\n"),
            std::string::npos)
      << r.text();
  ImportOptions east = o;
  east.zone = parse_time_zone("+08:00");  // the same clock read 8 h east of UTC
  const ImportReport e = import_job_log(JobLogFormat::csv, path, east, [](std::string_view) {});
  EXPECT_EQ(format_utc(e.origin_ms), "2024-11-15T08:57:50Z");
  EXPECT_NE(e.text().find("--origin 2024-11-15T16:57:50+08:00\n"), std::string::npos) << e.text();
  EXPECT_EQ(csv.substr(0, csv.find('\n', csv.find('\n') + 1) + 1),
            "submit_s,gpus,duration_s,censored\n0,1,32,0\n");
}

// ---- philly ----

TEST(PhillyImport, AttemptsGpusAndRunningJobs) {
  const Imported r = import(
      JobLogFormat::philly,
      "[{\"status\": \"Pass\", \"vc\": \"v1\", \"jobid\": \"a1\", \"user\": \"u1\",\n"
      "  \"submitted_time\": \"2017-10-07 01:11:39\", \"attempts\": [\n"
      "   {\"start_time\": \"2017-10-07 01:12:09\", \"end_time\": \"2017-10-07 01:13:23\",\n"
      "    \"detail\": [{\"ip\": \"m47\", \"gpus\": [\"gpu0\", \"gpu1\"]}]},\n"
      "   {\"start_time\": \"2017-10-07 01:13:30\", \"end_time\": \"2017-10-07 02:13:30\",\n"
      "    \"detail\": [{\"ip\": \"m4\", \"gpus\": [\"gpu0\", \"gpu1\"]},\n"
      "                {\"ip\": \"m5\", \"gpus\": [\"gpu0\", \"gpu1\"]}]}]},\n"
      " {\"status\": \"Killed\", \"vc\": \"v1\", \"jobid\": \"a2\", \"user\": \"u2\",\n"
      "  \"submitted_time\": \"2017-10-07 01:20:00\", \"attempts\": []},\n"
      " {\"status\": \"Running\", \"vc\": \"v2\", \"jobid\": \"a3\", \"user\": \"u3\",\n"
      "  \"submitted_time\": \"2017-10-07 01:30:00\", \"attempts\": [\n"
      "   {\"start_time\": \"2017-10-07 01:31:00\", \"end_time\": null,\n"
      "    \"detail\": [{\"ip\": \"m1\", \"gpus\": [\"gpu0\"]}]}]},\n"
      " {\"status\": \"Pass\", \"submitted_time\": broken}\n"
      "]\n");
  // a1: 74 s + 3600 s on at most 4 GPUs; a3 runs from 01:31:00 to the log's end, a1's
  // 01:12:09 + 3674 s = 02:13:23 (2543 s), submitted 1101 s after a1.
  EXPECT_EQ(r.csv,
            "submit_s,gpus,duration_s,censored,vc,user,status\n"
            "0,4,3674,0,v1,u1,Pass\n"
            "1101,1,2543,1,v2,u3,Running\n");
  EXPECT_EQ(r.report.records, 4u);
  EXPECT_EQ(r.report.dropped_for("cancelled before it started"), 1u);
  EXPECT_EQ(r.report.dropped_for("malformed JSON object"), 1u);
  EXPECT_EQ(r.report.drops()[1].first_line, 14u);
  // Truncated files and files that are not a list of objects.
  const Imported cut = import(JobLogFormat::philly, "[{\"status\": \"Pass\", \"attempts\": [");
  EXPECT_EQ(cut.report.dropped_for("a JSON object cut off by the end of the file (truncated)"), 1u);
  EXPECT_THROW(import(JobLogFormat::philly, "[1, 2]"), DataFileError);
  EXPECT_THROW(import(JobLogFormat::philly, ""), DataFileError);
}

// ---- helios and csv ----

TEST(HeliosImport, StatesDurationsAndHugeNumbers) {
  const Imported r = import(
      JobLogFormat::helios,
      "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,"
      "queue\n"
      "j1,u1,vcA,8,64,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:00:10,2020-04-01 01:00:10,"
      "3600,10\n"
      "j2,u2,vcA,1,8,1,CANCELLED,2020-04-01 00:05:00,,2020-04-01 00:06:00,0,0\n"
      "j3,u1,vcB,2,8,1,FAILED,2020-04-01 00:10:00,2020-04-01 00:10:00,2020-04-01 00:09:00,-60,0\n"
      "j4,u3,vcB,4,8,1,TIMEOUT,2020-04-01 00:20:00,2020-04-01 00:30:00,,7200,600\n"
      "j5,u3,vcB,1e400,8,1,COMPLETED,2020-04-01 00:20:00,2020-04-01 00:30:00,"
      "2020-04-01 00:40:00,600,600\n");
  EXPECT_EQ(r.csv,
            "submit_s,gpus,duration_s,censored,user,vc,type\n"
            "0,8,3600,0,u1,vcA,\n"
            "1200,4,7200,0,u3,vcB,\n");
  EXPECT_EQ(r.report.dropped_for("cancelled before it started"), 1u);
  EXPECT_EQ(r.report.dropped_for("ended before it started (negative run time)"), 1u);
  EXPECT_EQ(r.report.dropped_for("malformed GPU count"), 1u);
}

TEST(CsvImport, MappedColumnsQuotedClassAndEpochTimes) {
  ImportOptions o;
  o.mapping = parse_column_mapping("submit=created_at,start=started,end=finished,gpus=n_gpu,"
                                   "class=team");
  const Imported r = import(JobLogFormat::csv,
                            "created_at,started,finished,n_gpu,team\n"
                            "1700000000,1700000010,1700000070.5,2,\"a,b\"\n"
                            "1700000005,1700000005,1700000006,1,x\n"
                            "1700000006,\"1700000007,1\n",
                            o);
  EXPECT_EQ(r.csv,
            "submit_s,gpus,duration_s,censored,class\n"
            "0,2,60.5,0,\"a,b\"\n"
            "5,1,1,0,x\n");
  EXPECT_EQ(r.report.dropped_for("a quoted field not closed on its line"), 1u);
  EXPECT_THROW(parse_column_mapping("submit=a,colour=b"), std::invalid_argument);
  ImportOptions missing;
  missing.mapping = parse_column_mapping("submit=created_at,gpus=nope,end=finished");
  EXPECT_THROW(import(JobLogFormat::csv, "created_at,finished\n1,2\n", missing), DataFileError);
}

// A request log as real exports write it: times in seconds since the log's start, no GPU
// column, statuses. --time-format seconds keeps the log's 0 as submit_s = 0 (not the first
// submission), --set-column gives every row one GPU, a PENDING request never started.
TEST(CsvImport, RelativeTimesConstantColumnsAndPendingRows) {
  const std::string log =
      "t_submit,exec_s,status\n"
      "3973,12.5,SUCCESS\n"
      "4000,3,FAILED\n"
      "4100,,PENDING\n"
      "4200.25,7,SUCCESS\n";
  ImportOptions o;
  o.mapping = parse_column_mapping("submit=t_submit,duration=exec_s,state=status");
  o.constants = parse_column_mapping("gpus=1", "--set-column");
  o.time_format = parse_time_format("seconds");
  o.trace.origin_ms = 0;  // what the CLI sets for times since the log's start
  const Imported r = import(JobLogFormat::csv, log, o);
  EXPECT_EQ(r.csv,
            "submit_s,gpus,duration_s,censored\n"
            "3973,1,12.5,0\n"
            "4000,1,3,0\n"
            "4200.25,1,7,0\n");
  EXPECT_EQ(r.report.dropped_for("never started (pending, or no start time)"), 1u);
  EXPECT_NE(r.report.text().find("times read as seconds since the log's start"), std::string::npos);
  EXPECT_NE(r.report.text().find("submit_s = 0 s at the log's 0 s"), std::string::npos)
      << r.report.text();
  EXPECT_TRUE(r.report.warnings.empty());
  EXPECT_NE(r.report.json().find("\"origin_s\": 0"), std::string::npos);
  EXPECT_EQ(r.report.text().find("for gpucap fit"), std::string::npos);  // no calendar to give
  // Milliseconds since the start.
  ImportOptions ms = o;
  ms.time_format = parse_time_format("ms");
  const Imported m = import(JobLogFormat::csv, "t_submit,exec_s,status\n3973000,12.5,OK\n", ms);
  EXPECT_EQ(m.csv, "submit_s,gpus,duration_s,censored\n3973,1,12.5,0\n");
  // Read as epoch seconds (auto), the same log starts in 1970: the origin moves to the first
  // submission, and the report warns and names the fix.
  ImportOptions automatic = o;
  automatic.time_format = TimeFormat::automatic;
  automatic.trace.origin_ms.reset();
  const Imported a = import(JobLogFormat::csv, log, automatic);
  EXPECT_EQ(a.csv.substr(0, a.csv.find('\n', a.csv.find('\n') + 1) + 1),
            "submit_s,gpus,duration_s,censored\n0,1,12.5,0\n");
  ASSERT_EQ(a.report.warnings.size(), 1u);
  EXPECT_NE(a.report.warnings[0].find("1970-01-01T01:06:13Z"), std::string::npos);
  EXPECT_NE(a.report.text().find("warning: the times read as calendar times fall before 2000"),
            std::string::npos);
  EXPECT_NE(a.report.text().find("give --time-format seconds"), std::string::npos);
  // Calendar times of this century: no warning.
  ImportOptions epoch = o;
  epoch.time_format = TimeFormat::automatic;
  epoch.trace.origin_ms.reset();
  EXPECT_TRUE(import(JobLogFormat::csv, "t_submit,exec_s,status\n1700000000,5,OK\n", epoch)
                  .report.warnings.empty());
  // Bad constant lists.
  EXPECT_THROW(parse_column_mapping("gpus", "--set-column"), std::invalid_argument);
  EXPECT_THROW(parse_column_mapping("gpu=1", "--set-column"), std::invalid_argument);
  EXPECT_THROW(parse_column_mapping("gpus=1,gpus=2", "--set-column"), std::invalid_argument);
  EXPECT_THROW(parse_time_format("minutes"), std::invalid_argument);
  // A constant that is no GPU count drops every row with the reason.
  ImportOptions bad = o;
  bad.constants = {{"gpus", "one"}};
  const Imported b = import(JobLogFormat::csv, log, bad);
  EXPECT_EQ(b.report.kept, 0u);
  EXPECT_EQ(b.report.dropped_for("malformed GPU count"), 3u);
}

// A pod list with other column names and no GPU column: --map renames, --set-column fills.
TEST(KubernetesImport, MappedColumnsAndAConstantGpuCount) {
  const std::string log =
      "pod,created,scheduled,deleted,phase\n"
      "a,2024-03-01T00:00:00Z,2024-03-01T00:01:00Z,2024-03-01T01:01:00Z,Succeeded\n"
      "b,2024-03-01T00:10:00Z,,,Pending\n"
      "c,2024-03-01T00:20:00Z,2024-03-01T00:20:30Z,2024-03-01T00:30:30Z,Failed\n";
  ImportOptions o;
  o.mapping = parse_column_mapping("submit=created,start=scheduled,end=deleted,state=phase");
  o.constants = parse_column_mapping("gpus=4", "--set-column");
  const Imported r = import(JobLogFormat::kubernetes, log, o);
  EXPECT_EQ(r.csv,
            "submit_s,gpus,duration_s,censored,gpu_milli,gpu_model,qos\n"
            "0,4,3600,0,1000,,\n"
            "1200,4,600,0,1000,,\n");
  EXPECT_EQ(r.report.dropped_for("never scheduled (no scheduled_time, or pod_phase Pending)"), 1u);
  // Without the mapping the openb names are missing: the error names what --map can do.
  try {
    import(JobLogFormat::kubernetes, log);
    FAIL() << "no error";
  } catch (const DataFileError& e) {
    EXPECT_NE(std::string(e.what()).find("--set-column gives a field one value"),
              std::string::npos)
        << e.what();
  }
  // As instances: no scheduled time needed.
  ImportOptions inst = o;
  inst.trace.instances = true;
  inst.mapping = parse_column_mapping("submit=created,end=deleted");
  const Imported i = import(JobLogFormat::kubernetes,
                            "created,deleted\n2024-03-01T00:00:00Z,2024-03-01T02:00:00Z\n"
                            "2024-03-01T01:00:00Z,\n",
                            inst);
  EXPECT_EQ(i.csv, "start_s,end_s,gpus,gpu_milli,gpu_model,qos\n0,7200,4,1000,,\n3600,,4,1000,,\n");
}

// ---- the writer's ordering ----

TEST(TraceWriterOrder, ReorderWindowOriginAndOutOfOrderRows) {
  ImportOptions o;
  o.mapping = parse_column_mapping("submit=s,end=e,gpus=g");
  const std::string log = "s,e,g\n10,20,1\n5,20,1\n30,40,1\n20,40,1\n1,40,1\n";
  // A window of 2: 5 and 10 are sorted; 1 arrives after 5 was written: before the origin.
  o.trace.reorder_window = 2;
  const Imported r = import(JobLogFormat::csv, log, o);
  EXPECT_EQ(r.csv,
            "submit_s,gpus,duration_s,censored\n0,1,15,0\n5,1,10,0\n15,1,20,0\n25,1,10,0\n");
  EXPECT_EQ(r.report.dropped_for("submitted before the first row written (out of order beyond the "
                                 "reorder window; raise --reorder-window or give --origin)"),
            1u);
  // A window of 1 holds one job and writes the earlier of it and the next: 5, 10, 20, then 1
  // (after 20: out of order, kept, since the replay sorts; or dropped), and 30 at the end.
  o.trace.reorder_window = 1;
  o.trace.origin_ms = 0;
  const Imported kept = import(JobLogFormat::csv, log, o);
  EXPECT_EQ(kept.csv, "submit_s,gpus,duration_s,censored\n5,1,15,0\n10,1,10,0\n20,1,20,0\n"
                      "1,1,39,0\n30,1,10,0\n");
  EXPECT_EQ(kept.report.kept, 5u);
  EXPECT_EQ(kept.report.notes().size(), 1u);
  o.trace.drop_out_of_order = true;
  const Imported dropped = import(JobLogFormat::csv, log, o);
  EXPECT_EQ(dropped.csv,
            "submit_s,gpus,duration_s,censored\n5,1,15,0\n10,1,10,0\n20,1,20,0\n30,1,10,0\n");
  EXPECT_EQ(dropped.report.dropped_for("out of order beyond the reorder window (--out-of-order drop)"),
            1u);
}

}  // namespace
}  // namespace gpucap::data
