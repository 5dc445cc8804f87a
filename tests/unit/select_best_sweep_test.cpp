// Selecting the best over sweep points simulated by the engine (select_best_points) and from the
// CLI (gpucap sweep --select-best): an M/M/c queue whose largest pool has the shortest wait, the
// values the procedure used being exactly those of a plain run of the same replications (and
// the same on the device backend's source), and the CLI's errors.
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "gpucap/backend.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"
#include "gpucap/select_best.hpp"
#include "gpucap/sweep.hpp"

#include "support/cli.hpp"

namespace {

using gpucap::testing_support::gpucap_cli;

const std::string kMmc = std::string(GPUCAP_SOURCE_DIR) + "/scenarios/mmc_validation.yaml";
// At 6.4 jobs/h of 1 h each the mean wait is about 1200 s with 8 GPUs, 400 s with 9 and 20 s
// with 12 (Erlang C): 12 GPUs is the best by far more than delta = 60 s.
const std::string kArgs = "sweep " + kMmc +
                          " --grid pools.gpus.quota=8,9,12 --set horizon=200h --set warmup=10h "
                          "--select-best --objective wait_mean --delta 60";

TEST(SelectBestSweep, PicksTheLargestPoolAndUsesThePlainRunsValues) {
  const gpucap::Scenario base = gpucap::load_scenario(kMmc, {"horizon=200h", "warmup=10h"});
  const std::vector<gpucap::SweepParameter> grid =
      gpucap::expand_grid({gpucap::parse_grid_axis("pools.gpus.quota=8,12,9")});
  const std::vector<gpucap::Scenario> points = gpucap::load_sweep_points(
      base.original_text, kMmc, std::string(GPUCAP_SOURCE_DIR) + "/scenarios",
      {"horizon=200h", "warmup=10h"}, grid);
  gpucap::SelectionOptions o;
  o.delta = 20;
  o.initial = 10;
  gpucap::RunOptions run;
  run.backend = gpucap::BackendChoice::cpu;
  run.threads = 2;
  const gpucap::SelectionResult s =
      gpucap::select_best_points(points, base, gpucap::kWaitMeanS, o, run);
  ASSERT_TRUE(s.guaranteed);
  EXPECT_EQ(s.best, 1u);  // 12 GPUs
  for (std::size_t i = 0; i < points.size(); ++i) {
    // The procedure's values of point i are replications [0, used) of a plain run of it.
    gpucap::RunOptions plain = run;
    plain.replications = s.points[i].replications;
    const gpucap::RunResults r = gpucap::run_points({points[i]}, {}, base, plain);
    EXPECT_DOUBLE_EQ(s.points[i].mean, r.summary_of(0, gpucap::kWaitMeanS).mean) << i;
    EXPECT_NEAR(s.points[i].ci95_high, r.summary_of(0, gpucap::kWaitMeanS).ci95_high,
                1e-9 * s.points[i].ci95_high)
        << i;
    EXPECT_GE(s.points[i].simulated, s.points[i].replications);
  }
  // The device backend's source, on Thrust's OpenMP system where it is built: the same race.
  const gpucap::Backend* device = gpucap::find_backend("thrust-omp");
  if (device && device->built() && device->probe().usable()) {
    gpucap::RunOptions on_device = run;
    on_device.backend = gpucap::BackendChoice::thrust_omp;
    const gpucap::SelectionResult d =
        gpucap::select_best_points(points, base, gpucap::kWaitMeanS, o, on_device);
    EXPECT_EQ(d.best, s.best);
    for (std::size_t i = 0; i < points.size(); ++i) {
      EXPECT_EQ(d.points[i].replications, s.points[i].replications) << i;
      EXPECT_EQ(d.points[i].mean, s.points[i].mean) << i;  // same bits
    }
  }
}

TEST(SelectBestSweep, CliPrintsTheTableWithUnitsAndTheSameOutcomeOnAnyThreadCount) {
  const auto outcome = gpucap_cli(kArgs + " --threads 1");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const std::string& out = outcome.output;
  EXPECT_NE(out.find("wait_mean [s]"), std::string::npos) << out;
  EXPECT_NE(out.find("95% CI of mean [s]"), std::string::npos) << out;
  EXPECT_NE(out.find("delta 60 s, alpha 0.05"), std::string::npos) << out;
  EXPECT_NE(out.find("best: point 2 (pools.gpus.quota = 12)"), std::string::npos) << out;
  EXPECT_NE(out.find("eliminated at replication"), std::string::npos) << out;
  const auto tail = [](const std::string& text) { return text.substr(text.find("\n\n")); };
  const auto two = gpucap_cli(kArgs + " --threads 2");
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_EQ(tail(out), tail(two.output));  // all but the first line (backend and time)
  const auto quiet = gpucap_cli(kArgs + " -q");
  EXPECT_EQ(quiet.output.rfind("best: point 2", 0), 0u) << quiet.output;
}

TEST(SelectBestSweep, CliRefusesBadOptionsWithWhatIsValid) {
  const std::string grid = "sweep " + kMmc + " --grid pools.gpus.quota=8,9 ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--select-best --objective cost --delta 0", "--delta must be above 0 (in USD)"},
      {"--select-best --objective cost --delta ten", "--delta must be a number above 0 in USD"},
      {"--select-best --objective cost --delta 1 --alpha 0.5", "below 1 - 1/k = 0.5"},
      {"--select-best --objective cost --delta 1 --initial 1",
       "--initial must be a whole number from 2"},
      {"--select-best --objective cost --delta 1 --max-replications 5",
       "--max-replications must be a whole number from 20"},
      {"--select-best --objective price --delta 1",
       "--objective: unknown metric 'price'; valid: cost"},
      {"--select-best --delta 1", "needs --objective"},
      {"--select-best --objective cost", "needs --delta"},
      {"--select-best --objective cost --delta 1 -r 100", "--replications does not apply"},
      {"--select-best --objective cost --delta 1 -o out.h5", "--output does not apply"},
      {"--delta 1", "--delta only applies with --select-best"},
  };
  for (const auto& [args, message] : cases) {
    const auto o = gpucap_cli(grid + args);
    EXPECT_EQ(o.exit_code, 2) << args << ": " << o.output;
    EXPECT_NE(o.output.find(message), std::string::npos) << args << ": " << o.output;
  }
  const auto one = gpucap_cli(
      "sweep " + kMmc + " --grid pools.gpus.quota=8 --select-best --objective cost --delta 1");
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_NE(one.output.find("needs at least 2 sweep points, the grid gives 1"), std::string::npos)
      << one.output;
}

}  // namespace
