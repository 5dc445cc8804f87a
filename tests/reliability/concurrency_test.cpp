// Reliability: the threaded parts, as the tsan preset runs them under ThreadSanitizer: the
// OpenMP CPU backend, the progress bar drawn from its threads, cancellation from another thread
// (the Python bindings' path) and from a signal (the CLI's), with the monitor's counter read
// while workers write it. Under the other presets they check the same results.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <gtest/gtest.h>
#include <string>
#include <thread>
#include <vector>

#include "gpucap/interrupt.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"

namespace gpucap {
namespace {

using namespace std::chrono_literals;

const std::string kScenarios = std::string(GPUCAP_SOURCE_DIR) + "/scenarios/";

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

Scenario short_mmc() {
  return load_scenario(kScenarios + "mmc_validation.yaml", {"horizon=100h", "warmup=0s"});
}

TEST(Concurrency, ThreadsAndTheProgressBarDoNotChangeTheBits) {
  const Scenario s = load_scenario(kScenarios + "spot_training.yaml");
  RunOptions options;
  options.replications = 64;
  options.backend = BackendChoice::cpu;
  options.threads = 1;
  const RunResults serial = run(s, options);
  options.threads = 4;
  options.progress = true;  // drawn on stderr by whichever worker thread gets there
  const RunResults threaded = run(s, options);
  EXPECT_TRUE(same_bits(serial.scalars, threaded.scalars));
  EXPECT_TRUE(same_bits(serial.pool_values, threaded.pool_values));
}

TEST(Concurrency, AnotherThreadCancelsARunWhileReadingItsProgress) {
  const Scenario s = short_mmc();
  RunOptions options;
  options.replications = 2000000;  // far more than run in the test's time
  options.backend = BackendChoice::cpu;
  options.threads = 3;
  RunMonitor monitor;
  options.monitor = &monitor;
  std::atomic<uint64_t> seen{0};
  std::thread watcher([&] {
    // As the Python bindings do: poll the counter, then cancel.
    while (monitor.done.load() < 200) {
      seen = monitor.done.load();
      std::this_thread::sleep_for(1ms);
    }
    monitor.cancel = true;
  });
  EXPECT_THROW(run(s, options), RunCancelled);
  watcher.join();
  EXPECT_GE(monitor.done.load(), 200u);
  EXPECT_LT(monitor.done.load(), options.replications);
}

TEST(Concurrency, ASignalCancelsARunThroughTheInterruptHandler) {
  interrupt::install();
  const Scenario s = short_mmc();
  RunOptions options;
  options.replications = 2000000;
  options.backend = BackendChoice::cpu;
  options.threads = 2;
  RunMonitor monitor;
  options.monitor = &monitor;
  interrupt::set_cancel_flag(&monitor.cancel);
  std::thread sender([&] {
    while (monitor.done.load() < 100) std::this_thread::sleep_for(1ms);
    ::kill(::getpid(), SIGTERM);  // the handler sets the flag; the run stops
  });
  EXPECT_THROW(run(s, options), RunCancelled);
  sender.join();
  interrupt::set_cancel_flag(nullptr);
  EXPECT_EQ(interrupt::received(), SIGTERM);
}

TEST(Concurrency, SweepsOnManyThreadsGiveTheSerialBits) {
  const Scenario s = short_mmc();
  std::vector<Scenario> points{s,
                               load_scenario(kScenarios + "mmc_validation.yaml",
                                             {"horizon=100h", "warmup=0s", "pools.gpus.quota=9"})};
  const std::vector<SweepParameter> grid{{"pools.gpus.quota", {"8", "9"}}};
  RunOptions options;
  options.replications = 300;
  options.backend = BackendChoice::cpu;
  options.threads = 1;
  const RunResults serial = run_points(points, grid, s, options);
  options.threads = 5;
  const RunResults threaded = run_points(points, grid, s, options);
  EXPECT_TRUE(same_bits(serial.scalars, threaded.scalars));
  EXPECT_EQ(serial.summary_of(1, kCostUsd).mean, threaded.summary_of(1, kCostUsd).mean);
}

// The devices' background probe (warm_up_devices, which the CLI starts before reading a
// scenario) beside runs on auto from several threads, as Python may start them: every choice
// waits for the probe, and every run gives the serial bits.
TEST(Concurrency, DeviceWarmUpBesideRunsOnAutoFromSeveralThreads) {
  const Scenario s = short_mmc();
  RunOptions options;
  options.replications = 16;
  options.settling_probe = false;
  options.backend = BackendChoice::cpu;
  const RunResults reference = run(s, options);
  options.backend = BackendChoice::automatic;
  std::vector<RunResults> results(4);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < results.size(); ++i)
    threads.emplace_back([&, i] {
      warm_up_devices();
      results[i] = run(s, options);
    });
  warm_up_devices();
  for (std::thread& t : threads) t.join();
  const std::string expected = resolve_backend(BackendChoice::automatic).label;
  for (const RunResults& r : results) {
    EXPECT_TRUE(same_bits(reference.scalars, r.scalars));
    EXPECT_FALSE(r.backend_choice.empty());
    if (expected == cpu_backend_name()) EXPECT_EQ(r.backend, expected);
  }
}

}  // namespace
}  // namespace gpucap
