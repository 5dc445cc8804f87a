// Fitting real run times from ../shared/data (not part of the repository): skipped cleanly when
// absent. Philly's run times are heavy-tailed (mean ~4 h, median ~20 min), so a lognormal or
// Weibull must beat the exponential by AIC, by far.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "gpucap/csv_table.hpp"
#include "gpucap/fit/run_time_model.hpp"
#include "gpucap/input_file.hpp"

namespace fit = gpucap::fit;

TEST(FitSharedData, PhillyRunTimesAreHeavyTailed) {
  const std::string path =
      std::string(GPUCAP_SOURCE_DIR) + "/../shared/data/workload/philly_job_runtime_seconds.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "absent: " << path;
  const auto table = gpucap::CsvTable::parse(
      gpucap::read_input_file(path, gpucap::InputLimits::kDefaultDataBytes, "data file", ""),
      path);
  fit::RunTimeSample s;
  for (double t : table.numbers("runtime"))
    if (t > 0) s.time_s.push_back(t), s.censored.push_back(0);  // 0 s jobs: no density
  ASSERT_GT(s.size(), 80000u);
  const fit::RunTimeModel m = fit::choose_run_time_model(s);
  const auto& exponential = m.candidates[0].fit;
  const auto& lognormal = m.candidates[1].fit;
  const auto& weibull = m.candidates[3].fit;
  ASSERT_TRUE(exponential.ok && lognormal.ok && weibull.ok);
  EXPECT_LT(std::min(lognormal.aic, weibull.aic), exponential.aic - 1000);
  for (const auto& c : m.candidates)
    std::printf("%-12s %-36s AIC %.1f  KS D %.4f  AD %.1f\n", fit::family_name(c.fit.family),
                fit::describe(c.fit.family, c.fit.params).c_str(), c.fit.aic, c.ks_d, c.ad);
  std::printf("chosen: %s\n", m.reason.c_str());
}
