// gpucap import and gpucap catalog on the command line: an imported trace replays with
// `gpucap run`, an imported catalog loads with `gpucap validate`; usage errors exit 2, unusable
// inputs and refused outputs exit 1.
#include "support/cli.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;
using gpucap::testing_support::gpucap_cli;

fs::path dir() {
  const fs::path d = fs::path(testing::TempDir()) / ("gpucap_import_cli_" + std::to_string(getpid()));
  fs::create_directories(d);
  return d;
}

std::string write(const std::string& name, const std::string& text) {
  std::ofstream(dir() / name, std::ios::binary) << text;
  return (dir() / name).string();
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const char* kSacct =
    "JobID|Submit|Start|End|Elapsed|State|AllocTRES|Partition|Account\n"
    "1|2024-03-01T00:00:00|2024-03-01T00:00:00|2024-03-01T02:00:00|02:00:00|COMPLETED|"
    "gres/gpu=8|p|a\n"
    "1.batch|2024-03-01T00:00:00|2024-03-01T00:00:00|2024-03-01T02:00:00|02:00:00|COMPLETED|"
    "gres/gpu=8|p|a\n"
    "2|2024-03-01T01:00:00|2024-03-01T01:10:00|2024-03-01T05:10:00|04:00:00|COMPLETED|"
    "gres/gpu=4|p|a\n"
    "3|2024-03-01T03:00:00|None|2024-03-01T03:00:05|00:00:00|CANCELLED by 0||p|a\n";

TEST(ImportCli, AnImportedSlurmTraceReplays) {
  const std::string log = write("sacct.txt", kSacct);
  const fs::path trace = dir() / "trace.csv";
  const fs::path report = dir() / "report.json";
  const auto o = gpucap_cli("import --format slurm " + log + " -o " + trace.string() +
                            " --report " + report.string());
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_EQ(read(trace),
            "submit_s,gpus,duration_s,censored,partition,account\n0,8,7200,0,p,a\n"
            "3600,4,14400,0,p,a\n");
  EXPECT_NE(o.output.find("dropped 1 jobs: cancelled before it started (first at line 5)"),
            std::string::npos)
      << o.output;
  EXPECT_NE(read(report).find("\"kept\": 2"), std::string::npos);

  write("replay.yaml",
        "name: imported trace\nhorizon: 2d\nreplications: 2\n"
        "pools:\n  h100: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 8}\n"
        "workloads:\n  - name: jobs\n    gpus: 8\n"
        "    arrivals: {process: trace, file: trace.csv}\n");
  const auto run = gpucap_cli("run " + (dir() / "replay.yaml").string() + " -r 2");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  // Both jobs complete: 8 x 2 h + 4 x 4 h = 32 GPU-hours.
  EXPECT_NE(run.output.find("gpu_hours_used"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find(" 32 "), std::string::npos) << run.output;
}

/// One log per format, imported on the command line and replayed by `gpucap run`: the GPU-hours
/// used are those the kept jobs ran (gpus x duration, by hand below), and every job completes.
struct FormatCase {
  const char* format;
  const char* options;
  const char* log;
  const char* expected_trace;
  const char* gpu_hours;  ///< as `gpucap run` prints it
};

class ImportEachFormat : public testing::TestWithParam<FormatCase> {};

TEST_P(ImportEachFormat, ItsTraceReplays) {
  const FormatCase c = GetParam();
  const std::string log = write(std::string("log_") + c.format, c.log);
  const fs::path trace = dir() / (std::string("trace_") + c.format + ".csv");
  const auto o = gpucap_cli(std::string("import --format ") + c.format + " " + c.options + " " +
                            log + " -o " + trace.string() + " -q");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_EQ(read(trace), c.expected_trace);
  const std::string yaml = std::string("name: imported ") + c.format +
                           "\nhorizon: 3d\npools:\n  p: {gpu: H100, price_usd_per_gpu_hour: 1, "
                           "quota: 16}\nworkloads:\n  - name: jobs\n    arrivals: {process: trace, "
                           "file: trace_" + c.format + ".csv}\n";
  write(std::string("replay_") + c.format + ".yaml", yaml);
  const auto run = gpucap_cli("run " + (dir() / (std::string("replay_") + c.format + ".yaml")).string() +
                              " -r 2");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find(c.gpu_hours), std::string::npos) << run.output;
}

INSTANTIATE_TEST_SUITE_P(
    Formats, ImportEachFormat,
    testing::Values(
        // Pods: 1 GPU x 390 s, 2 x 840 s (Running, deleted at 1000), 1 x 100 s: 2170 GPU-s.
        FormatCase{"kubernetes", "",
                   "name,num_gpu,gpu_milli,pod_phase,creation_time,deletion_time,scheduled_time\n"
                   "p0,1,1000,Succeeded,100,500,110\np1,2,1000,Running,150,1000,160\n"
                   "p2,1,1000,Failed,200,300,200\n",
                   "submit_s,gpus,duration_s,censored,gpu_milli,gpu_model,qos\n0,1,390,0,1000,,\n"
                   "50,2,840,0,1000,,\n100,1,100,0,1000,,\n",
                   "0.6028"},
        // Two attempts on at most 4 GPUs: 74 s + 3600 s = 3674 s x 4 = 14696 GPU-s.
        FormatCase{"philly", "",
                   "[{\"status\": \"Pass\", \"vc\": \"v1\", \"jobid\": \"a1\", \"user\": \"u1\",\n"
                   " \"submitted_time\": \"2017-10-07 01:11:39\", \"attempts\": [\n"
                   "  {\"start_time\": \"2017-10-07 01:12:09\", \"end_time\": \"2017-10-07 01:13:23\",\n"
                   "   \"detail\": [{\"ip\": \"m47\", \"gpus\": [\"gpu0\", \"gpu1\"]}]},\n"
                   "  {\"start_time\": \"2017-10-07 01:13:30\", \"end_time\": \"2017-10-07 02:13:30\",\n"
                   "   \"detail\": [{\"ip\": \"m4\", \"gpus\": [\"gpu0\", \"gpu1\"]},\n"
                   "               {\"ip\": \"m5\", \"gpus\": [\"gpu0\", \"gpu1\"]}]}]}]\n",
                   "submit_s,gpus,duration_s,censored,vc,user,status\n0,4,3674,0,v1,u1,Pass\n",
                   "4.082"},
        // 8 GPUs x 3600 s and 4 x 7200 s: 16 GPU-hours.
        FormatCase{"helios", "",
                   "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,"
                   "duration,queue\n"
                   "j1,u1,vcA,8,64,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:00:10,"
                   "2020-04-01 01:00:10,3600,10\n"
                   "j4,u3,vcB,4,8,1,TIMEOUT,2020-04-01 00:20:00,2020-04-01 00:30:00,,7200,600\n",
                   "submit_s,gpus,duration_s,censored,user,vc,type\n0,8,3600,0,u1,vcA,\n"
                   "1200,4,7200,0,u3,vcB,\n",
                   " 16 "},
        // 2 GPUs x 1 h and 3 x 2 h: 8 GPU-hours.
        FormatCase{"csv", "--map submit=created,start=started,end=finished,gpus=n",
                   "created,started,finished,n\n2024-05-01T00:00:00Z,2024-05-01T00:00:00Z,"
                   "2024-05-01T01:00:00Z,2\n2024-05-01T00:30:00Z,2024-05-01T00:40:00Z,"
                   "2024-05-01T02:40:00Z,3\n",
                   "submit_s,gpus,duration_s,censored\n0,2,3600,0\n1800,3,7200,0\n", " 8 "}),
    [](const testing::TestParamInfo<FormatCase>& info) { return std::string(info.param.format); });

TEST(ImportCli, UsageAndIoErrors) {
  const std::string log = write("sacct2.txt", kSacct);
  // Usage: exit 2.
  EXPECT_EQ(gpucap_cli("import --format lsf " + log + " -o x.csv").exit_code, 2);
  EXPECT_EQ(gpucap_cli("import " + log + " -o x.csv").exit_code, 2);
  EXPECT_EQ(gpucap_cli("import --format slurm " + log).exit_code, 2);
  const auto tz = gpucap_cli("import --format slurm " + log + " -o " +
                             (dir() / "t.csv").string() + " --timezone Europe/Berlin");
  EXPECT_EQ(tz.exit_code, 2);
  EXPECT_NE(tz.output.find("fixed offset"), std::string::npos) << tz.output;
  EXPECT_EQ(gpucap_cli("import --format csv " + log + " -o " + (dir() / "t.csv").string())
                .exit_code,
            2);
  // I/O: the output is a directory or the input itself, the input is missing or a directory.
  EXPECT_EQ(gpucap_cli("import --format slurm " + log + " -o " + dir().string()).exit_code, 1);
  const auto same = gpucap_cli("import --format slurm " + log + " -o " + log);
  EXPECT_EQ(same.exit_code, 1);
  EXPECT_NE(same.output.find("an input of this run"), std::string::npos) << same.output;
  EXPECT_EQ(read(log), kSacct);
  EXPECT_EQ(gpucap_cli("import --format slurm /nonexistent -o " + (dir() / "t.csv").string())
                .exit_code,
            1);
  const auto d = gpucap_cli("import --format slurm " + dir().string() + " -o " +
                            (dir() / "t.csv").string());
  EXPECT_EQ(d.exit_code, 1);
  EXPECT_NE(d.output.find("is a directory"), std::string::npos) << d.output;
  // Nothing to keep (a header alone, an empty file): exit 1, nothing written.
  const std::string header = write("header.txt", "JobID|Submit|Start|End|State|AllocTRES\n");
  const fs::path none = dir() / "none.csv";
  EXPECT_EQ(gpucap_cli("import --format slurm " + header + " -o " + none.string()).exit_code, 1);
  EXPECT_FALSE(fs::exists(none));
  const auto empty =
      gpucap_cli("import --format slurm " + write("empty.txt", "") + " -o " + none.string());
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_NE(empty.output.find("the file is empty"), std::string::npos) << empty.output;
  EXPECT_FALSE(fs::exists(none));
}

// A request log in seconds since its start, without a GPU column, from the command line: the
// trace keeps the log's times, the report says how it read them; conflicting or misplaced
// options are usage errors that say why.
TEST(ImportCli, RelativeTimesAndConstantColumns) {
  const std::string log = write("requests.csv",
                                "t,exec_s,status\n"
                                "3973,12.5,SUCCESS\n"
                                "4100,,PENDING\n"
                                "4200,7,SUCCESS\n");
  const fs::path trace = dir() / "requests_trace.csv";
  const std::string base = "import --format csv " + log + " -o " + trace.string() +
                           " --map submit=t,duration=exec_s,state=status";
  const auto o = gpucap_cli(base + " --set-column gpus=1 --time-format seconds");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_EQ(read(trace), "submit_s,gpus,duration_s,censored\n3973,1,12.5,0\n4200,1,7,0\n");
  EXPECT_NE(o.output.find("times read as seconds since the log's start (--time-format seconds)"),
            std::string::npos)
      << o.output;
  EXPECT_NE(o.output.find("submit_s = 0 s at the log's 0 s"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("never started"), std::string::npos) << o.output;
  // --origin in seconds of the log moves t = 0 there.
  const auto moved = gpucap_cli(base + " --set-column gpus=1 --time-format seconds --origin 3900");
  ASSERT_EQ(moved.exit_code, 0) << moved.output;
  EXPECT_EQ(read(trace), "submit_s,gpus,duration_s,censored\n73,1,12.5,0\n300,1,7,0\n");
  // Read as calendar times, the same log warns.
  const auto guessed = gpucap_cli(base + " --set-column gpus=1");
  ASSERT_EQ(guessed.exit_code, 0) << guessed.output;
  EXPECT_NE(guessed.output.find("warning: the times read as calendar times fall before 2000"),
            std::string::npos)
      << guessed.output;
  // Without gpus mapped or set: the csv needs them, and the message names --set-column.
  const auto no_gpus = gpucap_cli(base);
  EXPECT_EQ(no_gpus.exit_code, 2);
  EXPECT_NE(no_gpus.output.find("--set-column gpus=1"), std::string::npos) << no_gpus.output;
  const auto both = gpucap_cli(base + ",gpus=n --set-column gpus=1");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.output.find("both mapped"), std::string::npos) << both.output;
  const auto slurm = gpucap_cli("import --format slurm " + log + " -o " + trace.string() +
                                " --set-column gpus=1");
  EXPECT_EQ(slurm.exit_code, 2);
  EXPECT_NE(slurm.output.find("applies to the csv, helios, kubernetes and llm formats"),
            std::string::npos)
      << slurm.output;
  const auto format = gpucap_cli(base + " --set-column gpus=1 --time-format hours");
  EXPECT_EQ(format.exit_code, 2);
  EXPECT_NE(format.output.find("seconds or ms (since the log's start)"), std::string::npos)
      << format.output;
}

TEST(CatalogCli, ImportThenValidateThenList) {
  const std::string vms = write(
      "vms.csv",
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
      "Region,AvailabilityZone\n"
      "p5.48xlarge,H100,8.0,192.0,2048.0,\"{'Gpus': [{'MemoryInfo': {'SizeInMiB': 81920}}]}\","
      "98.32,20.9934,us-east-1,use1-az1\n"
      "m5.large,,,2.0,8.0,,0.096,0.03,us-east-1,use1-az1\n");
  const fs::path catalog = dir() / "catalog.csv";
  const auto o = gpucap_cli("catalog import " + vms + " --provider aws --source test --date "
                            "2025-06-30 -o " + catalog.string());
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("skipped 1 rows: no accelerator"), std::string::npos) << o.output;
  write("uses_catalog.yaml",
        "name: imported catalog\nhorizon: 1d\ncatalog: catalog.csv\n"
        "pools:\n  h100: {catalog_row: aws/p5.48xlarge/us-east-1, quota: 8}\n"
        "workloads:\n  - name: jobs\n    gpus: 8\n"
        "    arrivals: {process: poisson, rate_per_day: 1}\n    work: 1h\n");
  const auto v = gpucap_cli("validate " + (dir() / "uses_catalog.yaml").string());
  EXPECT_EQ(v.exit_code, 0) << v.output;
  const auto list = gpucap_cli("catalog list --catalog " + catalog.string() + " --gpu H100");
  ASSERT_EQ(list.exit_code, 0) << list.output;
  EXPECT_NE(list.output.find("on-demand USD/GPU-h"), std::string::npos) << list.output;
  EXPECT_NE(list.output.find("aws/p5.48xlarge/us-east-1"), std::string::npos) << list.output;
  // The project's catalog by default (from the build tree), filtered by provider.
  const auto project = gpucap_cli("catalog list --gpu H100 --provider aws");
  EXPECT_EQ(project.exit_code, 0) << project.output;
  EXPECT_NE(project.output.find("aws/p5.48xlarge/us-east-1"), std::string::npos);
  EXPECT_EQ(gpucap_cli("catalog list --gpu NoSuchGpu").exit_code, 1);
  // From a build tree elsewhere (the binary copied out of the source tree, run from a folder
  // without data/): the source tree's catalog is found all the same.
  const fs::path elsewhere = dir() / "elsewhere" / "bin";
  fs::create_directories(elsewhere);
  fs::copy_file(GPUCAP_BINARY, elsewhere / "gpucap", fs::copy_options::overwrite_existing);
  const std::string moved = "cd " + elsewhere.string() + " && ./gpucap catalog list --gpu H100 " +
                            "--provider aws 2>&1";
  FILE* pipe = popen(moved.c_str(), "r");
  std::string moved_output;
  char buffer[4096];
  std::size_t got;
  while ((got = fread(buffer, 1, sizeof buffer, pipe)) > 0) moved_output.append(buffer, got);
  EXPECT_EQ(pclose(pipe), 0) << moved_output;
  EXPECT_NE(moved_output.find("aws/p5.48xlarge/us-east-1"), std::string::npos) << moved_output;
  EXPECT_EQ(gpucap_cli("catalog frobnicate").exit_code, 2);
  EXPECT_EQ(gpucap_cli("catalog import " + vms + " -o " + catalog.string() + " --date 30.6.2025")
                .exit_code,
            2);
  EXPECT_EQ(gpucap_cli("catalog import " + vms + " -o " + catalog.string()).exit_code, 2);
}

}  // namespace
