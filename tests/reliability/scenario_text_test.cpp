// Reliability: the scenario's text and the overrides laid on it, as a hostile user writes them.
// Every case is refused with where it is (file:line:column or the override) and the CLI's exit
// code for bad input (2), or accepted with the documented meaning; nothing crashes, recurses
// without bound or is dropped silently.
#include <chrono>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "gpucap/detail/text.hpp"
#include "gpucap/scenario_error.hpp"
#include "gpucap/scenario_loader.hpp"
#include "gpucap/variants.hpp"

#include "support/process.hpp"
#include "support/scratch_dir.hpp"

namespace gpucap {
namespace {

namespace fs = std::filesystem;
using testing_support::ProcessOutcome;
using testing_support::run_gpucap;

const std::string kMmc = std::string(GPUCAP_SOURCE_DIR) + "/scenarios/mmc_validation.yaml";

/// A small valid scenario whose scenario name and first pool's name are given.
std::string scenario(const std::string& name = "plain", const std::string& pool = "gpus") {
  return "name: " + name + "\nhorizon: 10h\nseed: 5\npools:\n  " + pool +
         ": {gpu: H100, price_usd_per_gpu_hour: 2, quota: 8}\n"
         "workloads:\n  - name: jobs\n    arrivals: {process: poisson, rate_per_hour: 4}\n"
         "    work: {dist: exponential, mean: 1h}\n";
}

/// The message of the ScenarioError that reading a variants file's `text` raises; "" if none.
std::string error_of_variants(const std::string& text) {
  try {
    parse_variants_yaml(text, "v.yaml");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

/// The message of the ScenarioError that parsing `text` (with `overrides`) raises; "" if none.
std::string refusal(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    parse_scenario(text, "s.yaml", ".", overrides);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

class ScenarioText : public testing_support::ScratchDirTest {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return (dir_ / name).string();
  }
  /// Runs gpucap and expects the bad-input exit (2), a message holding `fragment`, no crash.
  static void expect_refused(const std::vector<std::string>& args, const std::string& fragment) {
    const ProcessOutcome o = run_gpucap(args, {}, std::chrono::seconds(60));
    EXPECT_FALSE(o.timed_out);
    EXPECT_EQ(o.term_signal, 0) << o.output;
    EXPECT_EQ(o.exit_code, 2) << o.output;
    EXPECT_NE(o.output.find(fragment), std::string::npos) << o.output;
    EXPECT_LT(o.output.size(), 4000u) << "message not cut";
  }
};

/// 11,000 segments crashed every command (set_path recursed once per segment) and 10,000
/// took 10 s: the path's length is checked before any work.
TEST_F(ScenarioText, AKeyPathOfElevenThousandSegmentsIsAUsageError) {
  std::string path = "pools";
  for (int i = 0; i < 11000; ++i) path += ".a";
  const std::string fragment =
      "the key path has 11001 segments; scenario key paths have at most 32";
  expect_refused({"validate", kMmc, "--set", path + "=1"}, fragment);
  expect_refused({"run", kMmc, "-r", "4", "--unset", path}, fragment);
  expect_refused({"sweep", kMmc, "-r", "4", "--grid", path + "=1,2"}, fragment);
  EXPECT_NE(refusal(scenario(), {path + "=1"}).find(fragment), std::string::npos);
  // 32 segments are still walked (and this one names no key).
  std::string deep = "pools.gpus";
  for (int i = 0; i < 30; ++i) deep += ".a";
  EXPECT_NE(refusal(scenario(), {deep + "=1"}).find("unknown key 'a'"), std::string::npos);
}

TEST_F(ScenarioText, ASecondYamlDocumentIsRefusedWhereItStarts) {
  const std::string two = scenario() + "---\nname: second\n";
  EXPECT_NE(refusal(two).find("s.yaml:11:1: a second YAML document starts here"), std::string::npos)
      << refusal(two);
  expect_refused({"validate", write("two.yaml", two)}, "two.yaml:11:1: a second YAML document");
  // A marker with nothing after it, or a document end marker, changes nothing.
  EXPECT_EQ(refusal(scenario() + "---\n"), "");
  EXPECT_EQ(refusal(scenario() + "...\n"), "");
  EXPECT_EQ(refusal("---\n" + scenario()), "");
  // Markers are found line by line: content on a "---" line counts, a marker inside a block
  // scalar's indentation does not, directives before the first document do not.
  EXPECT_NE(refusal(scenario() + "--- name: second\n").find("s.yaml:10:5: a second YAML document"),
            std::string::npos);
  EXPECT_NE(refusal(scenario() + "...\n# a comment\nname: second\n").find("s.yaml:12:1: a second"),
            std::string::npos);
  EXPECT_EQ(refusal("%YAML 1.2\n---\n" + scenario() + "description: |\n  ---\n  text\n"), "");
  // A malformed text on which yaml-cpp's LoadAll never returned (a fuzz finding) is refused.
  EXPECT_NE(refusal("# a comment\n, then text\nname: x\n").find("s.yaml"), std::string::npos);
  // The same in a variants file, and in an override's value.
  EXPECT_NE(error_of_variants("variants:\n  - name: a\n---\nvariants: []\n")
                .find("v.yaml:4:1: a second YAML document"),
            std::string::npos);
  EXPECT_NE(refusal(scenario(), {"name=a\n---\nb"}).find("a second YAML document"),
            std::string::npos);
}

TEST_F(ScenarioText, BytesThatAreNotUtf8AreRefusedAtTheirLineAndColumn) {
  const std::string bad = scenario(
      "\"ab\xff"
      "cd\"");
  EXPECT_NE(refusal(bad).find("s.yaml:1:10: byte 0xFF is not valid UTF-8"), std::string::npos)
      << refusal(bad);
  expect_refused({"validate", write("bad.yaml", bad)}, "bad.yaml:1:10: byte 0xFF is not valid");
  // In a comment too (the text is kept in results files as UTF-8), and a cut sequence at the
  // end; the column counts characters, not bytes.
  EXPECT_NE(refusal(scenario() + "# caf\xc3\xa9 \xe2\x82\n").find("s.yaml:10:8: byte 0xE2"),
            std::string::npos);
  // An override carries its own check.
  EXPECT_NE(refusal(scenario(), {"name=\xc0\xaf"}).find("is not valid UTF-8"), std::string::npos);
  // Valid UTF-8 is kept as it is.
  EXPECT_EQ(parse_scenario(scenario("\"caf\xc3\xa9 \xf0\x9f\x9a\x80\""), "s.yaml", ".", {}).name,
            "caf\xc3\xa9 \xf0\x9f\x9a\x80");
}

TEST_F(ScenarioText, ControlCharactersAreRefusedInTheTextAndInNames) {
  // A raw NUL was "unknown escape character: m"; an ESC in the text is refused the same way.
  EXPECT_NE(refusal(scenario() + std::string("x: \0m\n", 6))
                .find("s.yaml:10:4: control character U+0000"),
            std::string::npos);
  EXPECT_NE(
      refusal(scenario() + "# \x1b]0;title\x07\n").find("s.yaml:10:3: control character U+001B"),
      std::string::npos);
  // Escapes in double quotes make control characters that the text check cannot see: a name
  // is refused for them, a pool's name (a key) as well as the scenario's.
  EXPECT_NE(refusal(scenario("\"x\\ny\\e]0;t\\a\""))
                .find("name: the name \"x\\ny\\x1b]0;t\\x07\" holds a control character"),
            std::string::npos)
      << refusal(scenario("\"x\\ny\\e]0;t\\a\""));
  EXPECT_NE(refusal(scenario("ok", "\"g\\e[31m\"")).find("holds a control character"),
            std::string::npos);
  EXPECT_NE(refusal(scenario("\"a\\u202Eb\"")).find("a bidirectional text control"),
            std::string::npos);
  EXPECT_NE(refusal(scenario(), {"name=\"a\\tb\""}).find("holds a control character"),
            std::string::npos);
}

/// A '[' in a pool's name made its keys look up the wrong row of the key table: "quota: must be
/// a whole number from -9223372036854775808 to -9223372036854775808, got 8".
TEST_F(ScenarioText, BracketsInANameAreNotAnIndex) {
  for (const std::string pool : {"\"a[31m\"", "\"a[\"", "\"a[1]x\"", "\"a]\""}) {
    EXPECT_EQ(refusal(scenario("ok", pool)), "") << pool;
    EXPECT_NE(
        refusal(scenario("ok", pool), {"pools." + pool.substr(1, pool.size() - 2) + ".quota=-1"})
            .find("must be a whole number from 0 to"),
        std::string::npos)
        << pool;
  }
}

TEST_F(ScenarioText, NestingTooDeepForTheParserSaysSo) {
  // yaml-cpp stops at about 500 levels with "bad file"; the message now says what it is.
  const std::string deep =
      scenario() + "x: " + std::string(600, '[') + std::string(600, ']') + "\n";
  EXPECT_NE(refusal(deep).find("s.yaml:10:"), std::string::npos) << refusal(deep);
  EXPECT_NE(refusal(deep).find("nested too deeply for the YAML parser"), std::string::npos);
  std::string block = scenario();
  for (int i = 0; i < 600; ++i) block += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
  EXPECT_NE(refusal(block).find("nested too deeply"), std::string::npos);
  // Well within the limit, nesting reaches the key check as usual.
  EXPECT_NE(refusal(scenario() + "x: [[[[1]]]]\n").find("unknown key 'x'"), std::string::npos);
}

/// A grid value prints as the user wrote it, escaped: "9\n" (YAML reads 9) broke the table's
/// row in two.
TEST_F(ScenarioText, SweepTablesEscapeGridValuesAndNames) {
  const std::string path = write("s.yaml", scenario("\"caf\xc3\xa9\""));
  const ProcessOutcome o = run_gpucap(
      {"sweep", path, "-r", "4", "--grid", "pools.gpus.quota=8,9\n"}, {}, std::chrono::seconds(60));
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("sweep of \"caf\xc3\xa9\": 2 points"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("    1  9\\n "), std::string::npos) << o.output;
  EXPECT_EQ(o.output.find("9\n"), std::string::npos) << o.output;
  // A grid value that would put a line break into a name is refused (names are one line).
  const ProcessOutcome name = run_gpucap({"sweep", path, "-r", "4", "--grid", "name=\"a\\nb\",c"},
                                         {}, std::chrono::seconds(60));
  EXPECT_EQ(name.exit_code, 2) << name.output;
  EXPECT_NE(name.output.find("holds a control character"), std::string::npos) << name.output;
}

/// A catalog's values reach pools as if written in the scenario, so they obey the same rules: a
/// spot price of nan, 1e999 or 0x10 loaded (and the run's cost came out n/a), as did an
/// on-demand price of 1e308 and a GPU memory of 1e300.
TEST_F(ScenarioText, CatalogValuesAreHeldToThePoolKeysRules) {
  const std::string yaml =
      "name: c\nhorizon: 10h\ncatalog: c.csv\npools:\n  p: {catalog_row: r1, quota: 8}\n"
      "workloads:\n  - name: j\n    arrivals: {process: poisson, rate_per_hour: 1}\n"
      "    work: {dist: exponential, mean: 1h}\n";
  const auto load = [&](const std::string& memory, const std::string& on_demand,
                        const std::string& spot) {
    std::ofstream(dir_ / "c.csv")
        << "key,gpu_model,gpu_memory_gb,on_demand_usd_per_gpu_hour,spot_usd_per_gpu_hour\nr1,H100,"
        << memory << "," << on_demand << "," << spot << "\n";
    try {
      parse_scenario(yaml, (dir_ / "c.yaml").string(), dir_.string(), {});
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(load("80", "10", "2.5"), "");
  EXPECT_EQ(load("80", "10", ""), "");
  for (const std::string bad : {"nan", "1e999", "0x10", "1e308", "-1", "inf", " "}) {
    if (bad != " ") {  // (a blank spot cell is no spot price)
      EXPECT_NE(load("80", "10", bad).find("c.csv:2: spot_usd_per_gpu_hour holds \"" + bad +
                                           "\"; it must be a decimal number >= 0"),
                std::string::npos)
          << bad << ": " << load("80", "10", bad);
    }
    EXPECT_NE(load("80", bad, "").find("on_demand_usd_per_gpu_hour holds"), std::string::npos)
        << bad;
    EXPECT_NE(load(bad, "10", "").find("gpu_memory_gb holds"), std::string::npos) << bad;
  }
  EXPECT_NE(load("1e300", "10", "").find("gpu_memory_gb holds \"1e300\"; it must be a decimal "
                                         "number > 0, at most 1,000,000"),
            std::string::npos)
      << load("1e300", "10", "");
}

/// An override's value is held to the scenario's byte limit before it is parsed (a 2 MiB list
/// took seconds before its error), and an unknown option's text reaches the terminal escaped.
TEST_F(ScenarioText, OverrideValuesAndOptionTextAreBounded) {
  std::string list = "[";
  for (int i = 0; i < 700000; ++i) list += "1,";
  list += "1]";
  // (a command line holds at most 128 KiB an argument: Python's overrides= and variants files
  // are where such values come from)
  EXPECT_NE(refusal(scenario(), {"pools.gpus.quota=" + list})
                .find("the value is 1.34 MiB, over the scenario's limit of 1 MiB"),
            std::string::npos);
  const ProcessOutcome o = run_gpucap({"validate", "--\x1b[2J", kMmc}, {}, std::chrono::seconds(60));
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_EQ(o.output.find('\x1b'), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("\\x1b[2J"), std::string::npos) << o.output;
  const ProcessOutcome c = run_gpucap({"\x1b]0;x\x07"}, {}, std::chrono::seconds(60));
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_NE(c.output.find("gpucap: unknown command '\\x1b]0;x\\x07'"), std::string::npos)
      << c.output;
}

}  // namespace
}  // namespace gpucap
