// Reliability: `gpucap fit` and `gpucap catalog` under hostile input (issue 26, round three).
// Paths derived from data stay in the output's folder; what fit and catalog import write loads
// back in gpucap (validate, the loader); user text on the terminal is escaped and cut; numbers
// are read strictly.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

#include "support/process.hpp"
#include "support/scratch_dir.hpp"

namespace {

namespace fs = std::filesystem;
using gpucap::testing_support::ProcessOutcome;
using gpucap::testing_support::read_all;
using gpucap::testing_support::run_gpucap;

const std::string kPools =
    "name: fitted workloads\n"
    "horizon: 14d\n"
    "seed: 3\n"
    "pools:\n"
    "  od: {gpu: H100, purchase: on_demand, price_usd_per_gpu_hour: 2.5, quota: 64}\n";

class FitCatalogHostile : public gpucap::testing_support::ScratchDirTest {
 protected:
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return path(name);
  }
  /// Validates the section at `yaml` under kPools (written beside it, so that samples files
  /// resolve); expects exit 0.
  void expect_section_loads(const std::string& yaml) const {
    const std::string scenario = write("s.yaml", kPools + read_all(yaml));
    const ProcessOutcome validate = run_gpucap({"validate", scenario});
    EXPECT_EQ(validate.exit_code, 0) << validate.output << read_all(yaml).substr(0, 4000);
  }
  /// Every entry under dir_, recursively, relative to it.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(dir_))
      names.push_back(fs::relative(e.path(), dir_).string());
    std::sort(names.begin(), names.end());
    return names;
  }
};

/// `rows` jobs of class value `value`, one every 100 s, run times spread over 1 s to 2 h.
std::string trace_rows(int rows, const std::string& value, int first = 0) {
  std::string csv;
  for (int i = 0; i < rows; ++i)
    csv += std::to_string((first + i) * 100) + ",1," + std::to_string(1 + (i * 7919) % 7200) + "," +
           value + "\n";
  return csv;
}

// Row 3: a class column named 'd/../../escaped' with a folder w.d/ present wrote
// w.d/../../escaped-x.runtimes.csv, two folders above the output's.
TEST_F(FitCatalogHostile, PathsFromDataStayInTheOutputsFolder) {
  fs::create_directories(dir_ / "out" / "w.d");
  const std::string trace =
      write("t.csv", "submit_s,gpus,duration_s,d/../../escaped\n" + trace_rows(200, "x"));
  const std::string output = (dir_ / "out" / "w.yaml").string();
  const ProcessOutcome fit = run_gpucap(
      {"fit", trace, "-o", output, "--class-by", "d/../../escaped", "--family", "empirical"});
  ASSERT_EQ(fit.exit_code, 0) << fit.output;
  EXPECT_EQ(entries(),
            (std::vector<std::string>{"out", "out/w.d", "out/w.d_.._.._escaped-x.runtimes.csv",
                                      "out/w.yaml", "t.csv"}));
  const std::string yaml = read_all(output);
  EXPECT_NE(yaml.find("- name: \"d_.._.._escaped-x\""), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("file: \"w.d_.._.._escaped-x.runtimes.csv\""), std::string::npos);
  // Class values too: slashes, dots, a NUL-free control byte, and names equal but for case.
  std::string csv = "submit_s,gpus,duration_s,team\n";
  csv += trace_rows(30, "../../up", 0) + trace_rows(30, "/abs/path", 30) +
         trace_rows(30, "Team", 60) + trace_rows(30, "team", 90) +
         trace_rows(30, "\"a\x1b]0;t\x07\"", 120);
  const ProcessOutcome fit2 = run_gpucap(
      {"fit", write("t2.csv", csv), "-o", output, "--class-by", "team", "--family", "empirical"});
  ASSERT_EQ(fit2.exit_code, 0) << fit2.output;
  EXPECT_EQ(fit2.output.find('\x1b'), std::string::npos) << fit2.output;
  for (const std::string& e : entries())
    EXPECT_TRUE(e.rfind("out", 0) == 0 || e == "t.csv" || e == "t2.csv") << e;
  EXPECT_TRUE(fs::exists(dir_ / "out" / "w.team-.._.._up.runtimes.csv"));
  EXPECT_TRUE(fs::exists(dir_ / "out" / "w.team-_abs_path.runtimes.csv"));
  EXPECT_TRUE(fs::exists(dir_ / "out" / "w.team-Team.runtimes.csv"));
  EXPECT_TRUE(fs::exists(dir_ / "out" / "w.team-team-2.runtimes.csv"));
  EXPECT_TRUE(fs::exists(dir_ / "out" / "w.team-a__0_t_.runtimes.csv"));
  std::ofstream(dir_ / "out" / "s.yaml") << kPools << read_all(output);
  const ProcessOutcome validate = run_gpucap({"validate", (dir_ / "out" / "s.yaml").string()});
  EXPECT_EQ(validate.exit_code, 0) << validate.output;
}

// Row 3, the samples file's name: the output's stem and the class name; over 255 bytes (a
// file system's limit) it is refused before anything is written.
TEST_F(FitCatalogHostile, ASamplesFileNameOverTheLimitIsRefused) {
  const std::string trace = write("t.csv", "submit_s,gpus,duration_s,team\n" + trace_rows(30, "x"));
  const std::string output = path(std::string(240, 'w') + ".yaml");
  const ProcessOutcome fit =
      run_gpucap({"fit", trace, "-o", output, "--class-by", "team", "--family", "empirical"});
  EXPECT_EQ(fit.exit_code, 2);
  EXPECT_NE(fit.output.find("the samples file of class team-x would be named with 260 bytes"),
            std::string::npos)
      << fit.output;
  EXPECT_NE(fit.output.find("give the output a shorter name"), std::string::npos);
  EXPECT_EQ(entries(), std::vector<std::string>{"t.csv"});
}

// Row 3, the workload names of many values that agree on their first 60 bytes: unique, and
// found in linear time (a scan from suffix 2 for each was quadratic).
TEST_F(FitCatalogHostile, LongValuesThatShareTheirStartGetUniqueNames) {
  std::string csv = "submit_s,gpus,duration_s,team\n";
  const std::string prefix(70, 'v');
  for (int i = 0; i < 250; ++i)
    csv += std::to_string(i * 60) + ",1,60," + prefix + std::to_string(i) + "\n";
  const ProcessOutcome fit =
      run_gpucap({"fit", write("t.csv", csv), "-o", path("w.yaml"), "--class-by", "team", "-q"});
  ASSERT_EQ(fit.exit_code, 0) << fit.output;
  const std::string yaml = read_all(path("w.yaml"));
  EXPECT_NE(yaml.find("- name: \"team-" + std::string(60, 'v') + "\"\n"), std::string::npos);
  EXPECT_NE(yaml.find("- name: \"team-" + std::string(60, 'v') + "-250\"\n"), std::string::npos);
  expect_section_loads(path("w.yaml"));
}

// Row 10: 1,000 classes wrote a YAML over validate's 1 MiB, 100,000 one the loader refuses;
// fit exited 0 and printed a warning per class even under -q.
TEST_F(FitCatalogHostile, TooManyClassesAreRefusedWithOneMessage) {
  std::string csv = "submit_s,gpus,duration_s,team\n";
  for (int i = 0; i < 100000; ++i) csv += std::to_string(i) + ",1,60,t" + std::to_string(i) + "\n";
  const ProcessOutcome fit =
      run_gpucap({"fit", write("t.csv", csv), "-o", path("w.yaml"), "--class-by", "team", "-q"});
  EXPECT_EQ(fit.exit_code, 2);
  EXPECT_EQ(
      fit.output,
      "gpucap fit: cannot fit the trace: " + path("t.csv") +
          ": column \"team\" has more than 4096 distinct values, and fit writes one workload per "
          "value: at most 256 (so that the scenario stays loadable: 1 MiB of YAML); class "
          "by a column with fewer values (e.g. --class-by gpus), or merge values in the "
          "trace\n");
  EXPECT_FALSE(fs::exists(path("w.yaml")));
}

TEST_F(FitCatalogHostile, TheMostClassesLoadAndWarningsAreBounded) {
  // 256 classes of one job each: every class warns (exponential fallback).
  std::string csv = "submit_s,gpus,duration_s,team\n";
  for (int i = 0; i < 256; ++i)
    csv +=
        std::to_string(100 + i) + ",1," + std::to_string(60 + i) + ",t" + std::to_string(i) + "\n";
  const std::string trace = write("t.csv", csv);
  ProcessOutcome fit = run_gpucap({"fit", trace, "-o", path("w.yaml"), "--class-by", "team", "-q"});
  ASSERT_EQ(fit.exit_code, 0) << fit.output;
  EXPECT_EQ(fit.output, "");  // -q: nothing; the warnings are comments in the YAML
  expect_section_loads(path("w.yaml"));
  fit = run_gpucap({"fit", trace, "-o", path("w.yaml"), "--class-by", "team"});
  ASSERT_EQ(fit.exit_code, 0) << fit.output;
  std::size_t warning_lines = 0;
  for (std::size_t at = 0; (at = fit.output.find("gpucap fit: warning:", at)) != std::string::npos;
       ++at)
    ++warning_lines;
  EXPECT_EQ(warning_lines, 20u);
  EXPECT_NE(fit.output.find("gpucap fit: 236 more warning(s): see the '# WARNING' comments in " +
                            path("w.yaml")),
            std::string::npos)
      << fit.output;
}

// Row 18: a UTF-8 byte-order mark made the first column unknown ("no column "submit_s";
// columns: submit_s"), to fit and to `process: trace`.
TEST_F(FitCatalogHostile, AByteOrderMarkIsSkipped) {
  const std::string trace =
      write("bom.csv", "\xEF\xBB\xBFsubmit_s,gpus,duration_s\n0,1,60\n3600,2,120\n7200,1,90\n");
  const ProcessOutcome fit = run_gpucap({"fit", trace, "-o", path("w.yaml"), "-q"});
  ASSERT_EQ(fit.exit_code, 0) << fit.output;
  expect_section_loads(path("w.yaml"));
  const std::string scenario =
      write("replay.yaml", kPools +
                               "workloads:\n  - name: replay\n    kind: batch\n    gpus: 1\n"
                               "    arrivals: {process: trace, file: bom.csv}\n");
  const ProcessOutcome validate = run_gpucap({"validate", scenario});
  EXPECT_EQ(validate.exit_code, 0) << validate.output;
}

// Row 21: fit read "0x10" as 16, and a header that names a column twice by its first.
TEST_F(FitCatalogHostile, HexadecimalCellsAndTwiceNamedColumnsAreRefused) {
  ProcessOutcome fit =
      run_gpucap({"fit", write("hex.csv", "submit_s,gpus,duration_s\n1,0x10,10\n5,2,20\n"), "-o",
                  path("w.yaml")});
  EXPECT_EQ(fit.exit_code, 2);
  EXPECT_NE(fit.output.find("hex.csv:2: column \"gpus\" holds \"0x10\", not a number (write it "
                            "in decimal: hexadecimal is not read)"),
            std::string::npos)
      << fit.output;
  fit = run_gpucap(
      {"fit", write("dup.csv", "submit_s,gpus,duration_s,gpus\n1,1,10,8\n"), "-o", path("w.yaml")});
  EXPECT_EQ(fit.exit_code, 2);
  EXPECT_NE(fit.output.find("dup.csv:1: the header names column \"gpus\" twice (columns 2 and "
                            "4), so which one to read is ambiguous; rename one"),
            std::string::npos)
      << fit.output;
  // A NUL byte no longer ends a cell early ("5\0junk" was read as 5).
  fit = run_gpucap({"fit",
                    write("nul.csv", std::string("submit_s,gpus,duration_s\n1,1,5\0junk\n", 36)),
                    "-o", path("w.yaml")});
  EXPECT_EQ(fit.exit_code, 2);
  EXPECT_NE(fit.output.find("nul.csv:2: column \"duration_s\" holds \"5\\x00junk\", not a number"),
            std::string::npos)
      << fit.output;
  EXPECT_FALSE(fs::exists(path("w.yaml")));
}

// Row 19: user text on the terminal (paths, column names) is escaped and cut.
TEST_F(FitCatalogHostile, FitEchoesNoEscapeSequence) {
  const std::string evil = "t\x1b]0;owned\x07\x1b[2J.csv";
  const std::string trace = write(evil, "submit_s,gpus,duration_s\n0,1,60\n3600,2,120\n");
  ProcessOutcome fit = run_gpucap({"fit", trace, "-o", path("w\x1b[31m.yaml")});
  ASSERT_EQ(fit.exit_code, 0) << fit.output;
  EXPECT_EQ(fit.output.find('\x1b'), std::string::npos) << fit.output;
  EXPECT_EQ(fit.output.find('\x07'), std::string::npos) << fit.output;
  EXPECT_EQ(read_all(path("w\x1b[31m.yaml")).find('\x1b'), std::string::npos);
  fit = run_gpucap({"fit", trace, "-o", path("w.yaml"), "--class-by", "\x1b[31mteam"});
  EXPECT_EQ(fit.exit_code, 2);
  EXPECT_EQ(fit.output.find('\x1b'), std::string::npos) << fit.output;
  // Option values and unknown options, which boost quotes as given.
  fit = run_gpucap({"fit", trace, "-o", path("w.yaml"), "--alpha", "\x1b[31m1"});
  EXPECT_EQ(fit.exit_code, 2);
  EXPECT_NE(fit.output.find("('\\x1b[31m1')"), std::string::npos) << fit.output;
  fit = run_gpucap({"fit", trace, "-o", path("w.yaml"), "--\x1b[2J"});
  EXPECT_EQ(fit.exit_code, 2);
  EXPECT_EQ(fit.output.find('\x1b'), std::string::npos) << fit.output;
  // A header of 2 million columns: the message lists the first few and says how many.
  std::string header = "\x1b[31mc0";
  for (int i = 1; i < 2000000; ++i) header += ",c" + std::to_string(i);
  fit = run_gpucap({"fit", write("wide.csv", header + "\n"), "-o", path("w.yaml")});
  EXPECT_EQ(fit.exit_code, 2);
  EXPECT_LT(fit.output.size(), 1000u);
  EXPECT_EQ(fit.output.find('\x1b'), std::string::npos);
  EXPECT_NE(fit.output.find("(2000000 columns in all)"), std::string::npos) << fit.output;
}

const std::string kSkyPilotHeader =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
    "AvailabilityZone\n";

/// A SkyPilot row: GpuInfo with `mib` MiB per GPU.
std::string sky_row(const std::string& type, const std::string& gpus, const std::string& mib,
                    const std::string& price, const std::string& spot,
                    const std::string& region = "us-east-1") {
  return type + ",H100," + gpus + ",8,64,\"{'Gpus': [{'MemoryInfo': {'SizeInMiB': " + mib +
         "}}]}\"," + price + "," + spot + "," + region + "," + region + "a\n";
}

/// A scenario with the catalog `catalog` and one pool on its row `key`.
std::string catalog_scenario(const std::string& catalog, const std::string& key) {
  return "name: catalog round trip\nhorizon: 1d\ncatalog: " + catalog +
         "\npools:\n  p: {catalog_row: \"" + key +
         "\", purchase: on_demand, quota: 8}\nworkloads:\n  - name: w\n    kind: batch\n"
         "    gpus: 1\n    arrivals: {process: poisson, rate_per_hour: 1}\n"
         "    work: {dist: exponential, mean: 1h}\n";
}

// Row 11: a memory of 0.0001 MiB and a price of 1e-7 for 8 GPUs were written as 0, and the
// loader then refused the whole catalog (gpu_memory_gb must be > 0).
TEST_F(FitCatalogHostile, CatalogImportChecksValuesAsWritten) {
  const std::string sky = kSkyPilotHeader + sky_row("tiny.mem", "8.0", "0.0001", "98.32", "20") +
                          sky_row("cheap.price", "8.0", "81920", "0.0000001", "") +
                          sky_row("cheap.spot", "8.0", "81920", "8", "0.0000001") +
                          sky_row("dear", "1.0", "81920", "2000000", "") +
                          sky_row("ctrl", "8.0", "81920", "8", "", "r\x01") +
                          sky_row("ctrl", "8.0", "81920", "9", "", "r\x02") +
                          sky_row("free", "8.0", "81920", "0", "0") +
                          sky_row("p5.48xlarge", "8.0", "81920", "98.32", "20.9934");
  const ProcessOutcome import = run_gpucap(
      {"catalog", "import", write("vms.csv", sky), "--provider", "aws", "-o", path("cat.csv")});
  ASSERT_EQ(import.exit_code, 0) << import.output;
  EXPECT_NE(import.output.find("8 rows read, 2 catalog rows written (one per instance type and "
                               "region), 6 rows skipped"),
            std::string::npos)
      << import.output;
  for (const char* reason :
       {"skipped 1 rows: GPU memory below 0.0005 GB per GPU (written with 3 decimals it would "
        "read 0; the scenario loader needs a memory > 0) (first at line 2)",
        "skipped 2 rows: a price below 0.0000005 USD per GPU-hour (written with 6 decimals it "
        "would read 0) (first at line 3)",
        "skipped 1 rows: a price above 1e6 USD per GPU-hour (the scenario format's ceiling) "
        "(first at line 5)",
        "skipped 2 rows: a control character in the instance type, region or accelerator name "
        "(first at line 6)"})
    EXPECT_NE(import.output.find(reason), std::string::npos) << reason << "\n" << import.output;
  const std::string catalog = read_all(path("cat.csv"));
  EXPECT_NE(catalog.find("\naws/free/us-east-1,aws,free,us-east-1,H100,8,80,0,0,"),
            std::string::npos)
      << catalog;
  EXPECT_NE(catalog.find("\naws/p5.48xlarge/us-east-1,aws,p5.48xlarge,us-east-1,H100,8,80,12.29,"
                         "2.624175,"),
            std::string::npos)
      << catalog;
  // Loads back: the scenario loader reads the whole catalog, and catalog list lists it.
  for (const char* key : {"aws/p5.48xlarge/us-east-1", "aws/free/us-east-1"}) {
    const ProcessOutcome validate =
        run_gpucap({"validate", write("s.yaml", catalog_scenario("cat.csv", key))});
    EXPECT_EQ(validate.exit_code, 0) << validate.output;
  }
  const ProcessOutcome list = run_gpucap({"catalog", "list", "--catalog", path("cat.csv")});
  EXPECT_EQ(list.exit_code, 0) << list.output;
  EXPECT_NE(list.output.find(": 2 of 2 rows"), std::string::npos) << list.output;
  // A provider that would not survive the round trip is refused as bad usage.
  for (const char* provider : {" aws", "a\tb", "a\"b", "a,b", "a/b"}) {
    const ProcessOutcome bad = run_gpucap(
        {"catalog", "import", path("vms.csv"), "--provider", provider, "-o", path("c2.csv")});
    EXPECT_EQ(bad.exit_code, 2) << provider << bad.output;
    EXPECT_NE(bad.output.find("the provider must be a name of at most 100 bytes"),
              std::string::npos)
        << bad.output;
  }
}

// Found by the fit and catalog fuzzer (seed 4): an instance type of 1.3 MB made a key that no
// scenario within the 1 MiB limit could name in catalog_row.
TEST_F(FitCatalogHostile, CatalogImportSkipsOverlongNames) {
  const std::string sky = kSkyPilotHeader +
                          sky_row(std::string(257, 't'), "8.0", "81920", "8", "") +
                          sky_row(std::string(256, 't'), "8.0", "81920", "8", "");
  const ProcessOutcome import = run_gpucap(
      {"catalog", "import", write("vms.csv", sky), "--provider", "aws", "-o", path("cat.csv")});
  ASSERT_EQ(import.exit_code, 0) << import.output;
  EXPECT_NE(import.output.find("skipped 1 rows: an instance type, region or accelerator name "
                               "over 256 bytes (a key a scenario's catalog_row could hardly name) "
                               "(first at line 2)"),
            std::string::npos)
      << import.output;
  const ProcessOutcome validate = run_gpucap(
      {"validate", write("s.yaml", catalog_scenario(
                                       "cat.csv", "aws/" + std::string(256, 't') + "/us-east-1"))});
  EXPECT_EQ(validate.exit_code, 0) << validate.output;
}

// Row 19: a catalog header or an input path with ESC/OSC bytes reached the terminal; a header
// of 2 million columns was echoed whole (18.9 MB on stderr).
TEST_F(FitCatalogHostile, CatalogEchoesNoEscapeSequenceAndCutsWideHeaders) {
  std::string header = "\x1b]0;owned\x07name";
  for (int i = 0; i < 2000000; ++i) header += ",c" + std::to_string(i);
  const std::string wide = write("wide.csv", header + "\n");
  ProcessOutcome r =
      run_gpucap({"catalog", "import", wide, "--provider", "aws", "-o", path("cat.csv")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_LT(r.output.size(), 1500u);
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos);
  EXPECT_NE(r.output.find("\\x1b]0;owned\\x07name, c0, c1,"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(2000001 columns in all)"), std::string::npos) << r.output;
  r = run_gpucap({"catalog", "list", "--catalog", wide});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_LT(r.output.size(), 1500u);
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos);
  EXPECT_NE(r.output.find("(2000001 columns in all)"), std::string::npos) << r.output;
  // A path with escape sequences, to list (stdout) and import (stdout and stderr).
  const std::string evil = path("c\x1b[2J\x1b]0;x\x07.csv");
  std::ofstream(evil) << "key,gpu_model,gpu_memory_gb,on_demand_usd_per_gpu_hour,"
                         "spot_usd_per_gpu_hour\naws/a/r,\x1b[31mH100,80,2,1\n";
  r = run_gpucap({"catalog", "list", "--catalog", evil});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos) << r.output;
  r = run_gpucap({"catalog", "list", "--catalog", evil, "--\x1b[2J"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("'--\\x1b[2J'"), std::string::npos) << r.output;
  r = run_gpucap({"catalog", "list", "--catalog", evil, "--gpu", "A100"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("GPU models in it: \\x1b[31mH100"), std::string::npos) << r.output;
  const std::string sky = path("v\x1b[2J.csv");
  std::ofstream(sky) << kSkyPilotHeader << sky_row("p5", "8.0", "81920", "98.32", "20");
  r = run_gpucap({"catalog", "import", sky, "--provider", "aws", "-o", path("o\x1b[2J.csv")});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos) << r.output;
}

// Row 21: catalog list printed 1e308 as a 31-digit integer (4 decimals cut to its buffer).
TEST_F(FitCatalogHostile, CatalogListPrintsHugePricesReadably) {
  const std::string catalog =
      write("c.csv",
            "\xEF\xBB\xBFkey,gpu_model,gpu_memory_gb,on_demand_usd_per_gpu_hour,"
            "spot_usd_per_gpu_hour\naws/a/r,H100,80,1e308,\naws/b/r,H100,1e300,2.5,+1\n");
  const ProcessOutcome r = run_gpucap({"catalog", "list", "--catalog", catalog});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("aws/b/r  H100      -         1e+300                  2.5000            "
                          " 1.0000\n"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("aws/a/r  H100      -             80                  1e+308            "
                          "      -\n"),
            std::string::npos)
      << r.output;
}

}  // namespace
