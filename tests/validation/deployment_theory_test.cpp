// Validation of deployments (kind: deployment, long-running instances) against closed forms
// (docs/validation.md). Instances arrive as a Poisson process at rate lambda and live L on the
// wall clock (mean 1 / mu), one GPU each:
//  - on an unlimited pool the instances alive form an M/G/infinity system: their mean count is
//    lambda E[L] (Little, for any lifetime distribution) and the count at a given time is
//    Poisson, so its variance equals its mean;
//  - on c GPUs with no waiting room (policy.queue_capacity: 0), an instance that finds them all
//    busy is lost: the unserved share of instance-hours is Erlang B(c, lambda / mu);
//  - on c GPUs with a waiting room, a waiting instance's lifetime runs on (it leaves when it
//    ends, served or not), so every instance in the system leaves at rate mu whatever it does:
//    the count in the system N is Poisson(a = lambda / mu) (M/M/infinity), the instances served
//    are min(N, c), and the unserved share is E[(N - c)+] / a. (Erlang C, where the lifetime
//    only starts once served, is not this model: there the count would grow without a bound
//    that a lifetime on the wall clock gives it.)
//  - an instance on a preemptible pool with exponential time to preemption (mean MTTP) and a
//    fixed provisioning delay d is down a share d / (MTTP + d) of its life (an alternating
//    renewal process), and every restore takes exactly d.
#include <cmath>
#include <cstdio>
#include <string>

#include "gpucap/compile.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"

#include "support/scenario_fixture.hpp"
#include "support/theory_checks.hpp"

namespace {

using gpucap::testing_support::erlang_b;
using gpucap::testing_support::expect_matches;

class DeploymentTheory : public gpucap::testing_support::ScenarioFixture {
 protected:
  gpucap::RunResults simulate(const std::string& yaml, uint64_t replications) {
    gpucap::RunOptions options;
    options.replications = replications;
    options.seed = 11;
    return gpucap::run(parse(yaml), options);
  }
};

/// A pool of `quota` on-demand GPUs and one deployment of 1-GPU instances arriving at 2 an hour.
std::string fleet(const std::string& horizon, const std::string& warmup, int quota,
                  const std::string& lifetime, const std::string& extra = "") {
  return "name: deployment-theory\nhorizon: " + horizon + "\nwarmup: " + warmup +
         "\npools:\n  gpus:\n    gpu: H100\n    purchase: on_demand\n    quota: " +
         std::to_string(quota) + "\n    price_usd_per_gpu_hour: 2\n" + extra +
         "workloads:\n  - name: fleet\n    kind: deployment\n"
         "    arrivals: {process: poisson, rate_per_hour: 2}\n    lifetime: " +
         lifetime + "\n";
}

// Little: lambda E[L] = 2/h x 10 h = 20 instances, for exponential and lognormal lifetimes.
TEST_F(DeploymentTheory, MeanInstancesIsLambdaTimesMeanLifetime) {
  const char* lifetimes[] = {"{dist: exponential, mean: 10h}",
                             "{dist: lognormal, median: 6.0653066h, sigma: 1}"};
  for (const char* lifetime : lifetimes) {
    const gpucap::RunResults r = simulate(fleet("40d", "5d", 100000, lifetime), 200);
    expect_matches(r, gpucap::kInstancesServedMean, 20.0,
                   std::string("M/G/inf mean instances, ") + (lifetime[7] == 'e' ? "exp" : "logn"));
    // Nothing waits on an unlimited pool: every demanded hour is served.
    EXPECT_EQ(r.summary_of(0, gpucap::kInstanceHoursUnserved).mean, 0.0);
    EXPECT_EQ(r.summary_of(0, gpucap::kUnservedFraction).mean, 0.0);
  }
}

// The count at one moment (a window of 1 ms at t = 10 d) is Poisson(20): variance = mean. The
// sample variance of n Poisson(m) counts has standard deviation sqrt((m + 2 m^2) / n).
TEST_F(DeploymentTheory, CountAtAMomentIsPoisson) {
  const uint64_t n = 3000;
  const gpucap::RunResults r =
      simulate(fleet("864000.001s", "10d", 100000, "{dist: exponential, mean: 10h}"), n);
  const gpucap::MetricSummary& s = r.summary_of(0, gpucap::kInstancesServedMean);
  const double m = 20.0;
  const double mean_sd = std::sqrt(m / n), var_sd = std::sqrt((m + 2 * m * m) / n);
  std::printf("  count at t: mean %.4f (Poisson %g +- %.3f), variance %.4f (%g +- %.3f)\n",
              s.mean, m, mean_sd, s.std * s.std, m, var_sd);
  EXPECT_NEAR(s.mean, m, 3.3 * mean_sd);
  EXPECT_NEAR(s.std * s.std, m, 3.3 * var_sd);
}

// Erlang B: c = 10 GPUs, a = 8, no waiting room.
TEST_F(DeploymentTheory, NoWaitingRoomLosesErlangBOfTheHours) {
  const gpucap::RunResults r = simulate(
      fleet("200d", "5d", 10, "{dist: exponential, mean: 4h}", "policy:\n  queue_capacity: 0\n"),
      400);
  expect_matches(r, gpucap::kUnservedFraction, erlang_b(10, 8.0), "Erlang B unserved, c 10 a 8");
  // A lost instance never launched: its hours all waited for capacity.
  const double unserved = r.summary_of(0, gpucap::kInstanceHoursUnserved).mean;
  EXPECT_NEAR(r.summary_of(0, gpucap::kInstanceHoursWaiting).mean, unserved, 1e-9 * unserved);
}

// A waiting room: N ~ Poisson(a), served min(N, c). c = 10, a = 8 and 12.
TEST_F(DeploymentTheory, WaitingInstancesLiveOnTheirWallClock) {
  for (const double a : {8.0, 12.0}) {
    const double mean_h = a / 2.0;  // lambda = 2 per hour
    const gpucap::RunResults r = simulate(
        fleet("200d", "5d", 10, "{dist: exponential, mean: " + std::to_string(mean_h) + "h}"),
        800);
    double p = std::exp(-a), served = 0;  // P(N = k), E[min(N, c)]
    for (int k = 0; k < 400; ++k) {
      served += p * (k < 10 ? k : 10);
      p *= a / (k + 1);
    }
    const std::string tag = "c 10 a " + std::to_string(static_cast<int>(a));
    expect_matches(r, gpucap::kInstancesServedMean, served, "served E[min(N,c)], " + tag);
    expect_matches(r, gpucap::kUnservedFraction, (a - served) / a, "unserved share, " + tag);
  }
}

// Interruptions: 40 instances alive at t = 0 for ever, on spot GPUs reclaimed after Exp(10 h),
// relaunched after a fixed 1 h: down d / (MTTP + d) = 1/11; every restore takes 1 h.
TEST_F(DeploymentTheory, InterruptionsLeaveDOverMttpPlusDUnserved) {
  std::string rows = "start_s,end_s,gpus\n";
  for (int i = 0; i < 40; ++i) rows += ",,1\n";
  rows += "1e12,,1\n";  // new arrivals: one, after the horizon
  write("alive.csv", rows);
  const std::string yaml =
      "name: interruptions\nhorizon: 400d\nwarmup: 10d\npools:\n  spot:\n    gpu: H100\n"
      "    purchase: spot\n    quota: 1000\n    price_usd_per_gpu_hour: 1\n"
      "    provisioning_delay: 1h\n"
      "    preemption: {time_to_preemption: {dist: exponential, mean: 10h}}\n"
      "workloads:\n  - name: fleet\n    kind: deployment\n"
      "    arrivals: {process: trace, file: alive.csv, submit_column: start_s, end_column: "
      "end_s, blank_end: still_running}\n";
  const gpucap::RunResults r = simulate(yaml, 100);
  expect_matches(r, gpucap::kUnservedFraction, 1.0 / 11.0, "down share d/(MTTP+d)");
  EXPECT_NEAR(r.summary_of(0, gpucap::kRestoreMeanS).mean, 3600.0, 1e-6);
  EXPECT_NEAR(r.summary_of(0, gpucap::kRestoreP99S).mean, 3600.0, 3600.0 / 256);
  // Interruptions: 40 instances x 390 days / 11 h per cycle.
  expect_matches(r, gpucap::kInterruptions, 40.0 * 390 * 24 / 11, "interruptions");
  // Nothing waited for capacity: every unserved hour is after a launch.
  EXPECT_EQ(r.summary_of(0, gpucap::kInstanceHoursWaiting).mean, 0.0);
}

// Unknown remaining lifetimes: N = 200 instances alive at t = 0, each aged 8 h, with their
// remaining lifetime drawn given the age. Alive at t: Binomial(N, S(8 h + t) / S(8 h)), read as
// the instances served in a window of 1 ms at t = 6 h, on an unlimited pool (arrivals: one in a
// million days). Exponential (mean m = 10 h): N e^(-t/m), whatever the age; Weibull (k = 2,
// lambda = 10 h): N e^(-((14/10)^2 - (8/10)^2)), where aging matters; lognormal (median 10 h,
// sigma 1): N Phi-bar(ln 1.4) / Phi-bar(ln 0.8).
TEST_F(DeploymentTheory, StateWithUnknownRemainingDecaysAsTheResidualLife) {
  const int n_alive = 200;
  std::string rows = "age,remaining\n";
  for (int i = 0; i < n_alive; ++i) rows += "8,unknown\n";
  write("state.csv", rows);
  const auto upper = [](double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); };
  const struct {
    const char* lifetime;
    double alive_share;
  } cases[] = {
      {"{dist: exponential, mean: 10h}", std::exp(-6.0 / 10.0)},
      {"{dist: weibull, shape: 2, scale: 10h}", std::exp(-(1.4 * 1.4 - 0.8 * 0.8))},
      {"{dist: lognormal, median: 10h, sigma: 1}", upper(std::log(1.4)) / upper(std::log(0.8))},
  };
  const uint64_t replications = 2000;
  for (const auto& c : cases) {
    const std::string yaml =
        std::string("name: residual\nhorizon: 21600.001s\nwarmup: 6h\npools:\n  gpus:\n") +
        "    gpu: H100\n    purchase: on_demand\n    quota: 100000\n"
        "    price_usd_per_gpu_hour: 2\nworkloads:\n  - name: fleet\n    kind: deployment\n"
        "    arrivals: {process: poisson, rate_per_day: 0.000001}\n    lifetime: " +
        c.lifetime + "\n    initial_state: {file: state.csv, time_unit: 1h}\n";
    const gpucap::RunResults r = simulate(yaml, replications);
    const gpucap::MetricSummary& alive = r.summary_of(0, gpucap::kInstancesServedMean);
    const double p = c.alive_share, mean = n_alive * p;
    const double sd = std::sqrt(n_alive * p * (1 - p) / replications);
    std::printf("  alive at 6 h of %d aged 8 h, %s: %.4f (theory %.4f +- %.4f)\n", n_alive,
                c.lifetime, alive.mean, mean, sd);
    EXPECT_NEAR(alive.mean, mean, 3.3 * sd) << c.lifetime;
    // Binomial: variance N p (1 - p), with the sample variance's standard error.
    const double var = n_alive * p * (1 - p);
    EXPECT_NEAR(alive.std * alive.std, var, 3.3 * var * std::sqrt(2.0 / replications))
        << c.lifetime;
  }
}

}  // namespace
