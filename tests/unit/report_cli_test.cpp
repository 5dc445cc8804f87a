// `gpucap report` on the command line: reports of a run, a sweep with a time series and an
// inference scenario; a missing file, a file that is not results and an output onto the input
// are refused with a clear message and exit 1, usage errors exit 2.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>

#include "support/cli.hpp"
#include "support/scratch_dir.hpp"

namespace {

namespace fs = std::filesystem;
using gpucap::testing_support::gpucap_cli;
using gpucap::testing_support::read_all;

class ReportCli : public gpucap::testing_support::ScratchDirTest {
 protected:
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string scenario(const std::string& name) const {
    return std::string(GPUCAP_SOURCE_DIR) + "/scenarios/" + name;
  }
};

TEST_F(ReportCli, ReportsARunWithItsSummaryAndProvenance) {
  const auto run = gpucap_cli("run " + scenario("default.yaml") + " -r 8 -q -o " + path("r.h5"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto o = gpucap_cli("report " + path("r.h5") + " -o " + path("r.html"));
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("report written to " + path("r.html")), std::string::npos);
  const std::string page = read_all(path("r.html"));
  EXPECT_NE(page.find("gpucap report: research team on three on-demand clouds"), std::string::npos);
  EXPECT_NE(page.find("<tr><th class=\"text\">replications</th><td class=\"text\">8</td>"),
            std::string::npos);
  EXPECT_NE(page.find("gpu_prices.csv"), std::string::npos);  // the data file's provenance
  EXPECT_NE(page.find("<td class=\"text\" title=\"billed cost of GPU holds"), std::string::npos);
  EXPECT_NE(page.find("Utilization per pool"), std::string::npos);
  EXPECT_EQ(page.find("http"), std::string::npos);
}

TEST_F(ReportCli, ReportsASweepWithATimeSeriesAndAChosenPoint) {
  const auto run = gpucap_cli("sweep " + scenario("default.yaml") +
                              " -r 4 -q --grid pools.lambda-h100.quota=8,32 "
                              "--set timeseries.step=12h -o " +
                              path("s.h5"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto o = gpucap_cli("report " + path("s.h5") + " -o " + path("s.html") +
                            " --objective cost --versus completion_mean");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  const std::string page = read_all(path("s.html"));
  EXPECT_NE(page.find("<strong>Chosen point: "), std::string::npos);
  EXPECT_NE(page.find("frontier: cost vs completion_mean"), std::string::npos);
  EXPECT_NE(page.find("Utilization over time"), std::string::npos);
  EXPECT_NE(page.find("time [d]"), std::string::npos);  // a month's axis in days
  EXPECT_NE(page.find("<th class=\"text\">pools.lambda-h100.quota</th>"), std::string::npos);
}

TEST_F(ReportCli, ReportsAnInferenceScenarioWithItsRowsOnly) {
  const auto run = gpucap_cli("run " + scenario("inference_mmc_validation.yaml") +
                              " -r 3 -q --set horizon=1d --set warmup=1h -o " + path("i.h5"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto o = gpucap_cli("report " + path("i.h5") + " -o " + path("i.html"));
  ASSERT_EQ(o.exit_code, 0) << o.output;
  const std::string page = read_all(path("i.html"));
  EXPECT_NE(page.find(">latency_p95<"), std::string::npos);
  EXPECT_NE(page.find("latency_p95 (3 replications)"), std::string::npos);
  EXPECT_EQ(page.find(">wait_p95<"), std::string::npos);
}

TEST_F(ReportCli, RefusesUnreadableInputsAndAnOutputOntoTheInput) {
  auto o = gpucap_cli("report " + path("missing.h5") + " -o " + path("r.html"));
  EXPECT_EQ(o.exit_code, 1) << o.output;
  EXPECT_NE(o.output.find("missing.h5"), std::string::npos) << o.output;
  EXPECT_FALSE(fs::exists(path("r.html")));

  std::ofstream(path("text.h5")) << "not a results file\n";
  o = gpucap_cli("report " + path("text.h5") + " -o " + path("r.html"));
  EXPECT_EQ(o.exit_code, 1) << o.output;
  EXPECT_NE(o.output.find("text.h5"), std::string::npos) << o.output;
  EXPECT_FALSE(fs::exists(path("r.html")));

  o = gpucap_cli("report " + path("text.h5") + " -o " + path("text.h5"));
  EXPECT_EQ(o.exit_code, 1) << o.output;
  EXPECT_NE(o.output.find("input"), std::string::npos) << o.output;
  EXPECT_EQ(read_all(path("text.h5")), "not a results file\n");
}

TEST_F(ReportCli, UsageErrorsExit2) {
  EXPECT_EQ(gpucap_cli("report").exit_code, 2);
  auto o = gpucap_cli("report " + path("r.h5"));
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.output.find("report needs -o REPORT.html"), std::string::npos) << o.output;
  const auto run = gpucap_cli("run " + scenario("default.yaml") + " -r 2 -q -o " + path("r.h5"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  o = gpucap_cli("report " + path("r.h5") + " -o " + path("r.html") + " --objective nope");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_NE(o.output.find("--objective: unknown metric 'nope'; valid: cost,"), std::string::npos);
  EXPECT_FALSE(fs::exists(path("r.html")));
  o = gpucap_cli("report " + path("r.h5") + " -o " + path("r.html") + " --constraint 'cost=<1'");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_FALSE(fs::exists(path("r.html")));
  o = gpucap_cli("report " + path("r.h5") + " -o " + path("r.html") + " --chance on_time");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_EQ(gpucap_cli("report --help").exit_code, 0);
}

// The question from the command line: a sweep's report with a bound on the mean wait that the
// fewest GPUs miss chooses a point that meets it, and says so.
TEST_F(ReportCli, ConstraintsChooseAPointThatMeetsThem) {
  const auto sweep = gpucap_cli("sweep " + scenario("default.yaml") +
                                " --grid pools.lambda-h100.quota=8,32 -r 8 -q -o " + path("s.h5"));
  ASSERT_EQ(sweep.exit_code, 0) << sweep.output;
  const auto o = gpucap_cli("report " + path("s.h5") + " -o " + path("s.html") +
                            " --constraint 'cost>=1' --constraint 'jobs_arrived>=1'");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  const std::string page = read_all(path("s.html"));
  EXPECT_NE(page.find("among the points that meet mean cost&gt;=1, mean jobs_arrived&gt;=1"),
            std::string::npos);
  const auto none = gpucap_cli("report " + path("s.h5") + " -o " + path("n.html") +
                               " --constraint 'cost<=1'");
  ASSERT_EQ(none.exit_code, 0) << none.output;
  EXPECT_NE(read_all(path("n.html")).find("<strong>No point meets the constraints</strong>"),
            std::string::npos);
}

}  // namespace
