// What `--backend auto` picks (gpucap/backend_choice.hpp): the cost model on described devices
// (no GPU needed), against the measurements it was calibrated on (an H200 beside 16 host
// threads, issue 30), and how a run records the choice.
#include "gpucap/backend_choice.hpp"

#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "gpucap/backend.hpp"
#include "gpucap/event_estimate.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"

namespace {

const gpucap::DeviceDescription kH200{"NVIDIA H200 (sm_90)", 132, uint64_t{140} << 30, 0.1};
constexpr int kH200HostThreads = 16;

/// The model's estimate for `replications` of a shipped scenario on the H200's machine.
gpucap::BackendEstimate on_h200(const std::string& scenario, uint64_t replications,
                                int threads = kH200HostThreads) {
  const gpucap::Scenario s =
      gpucap::load_scenario(std::string(GPUCAP_SOURCE_DIR) + "/scenarios/" + scenario + ".yaml");
  const gpucap::RunShape shape{replications, gpucap::expected_events_per_replication(s), 1 << 16};
  return gpucap::estimate_backends(shape, threads, {kH200});
}

TEST(BackendChoice, PicksTheCpuWhereTheH200WasSlower) {
  // A one-replication run: 0.34-0.50 s on the GPU against 0.05 s on the CPU.
  for (const char* s : {"default", "checkpoint_validation", "spot_training", "mmc_validation"}) {
    SCOPED_TRACE(s);
    EXPECT_FALSE(on_h200(s, 1).device_faster());
  }
  // 8,192 replications, GPU against 16 threads: default 1.22 s against 0.77 s,
  // checkpoint_validation 0.44 s against 0.07 s, spot_training 0.43 s against 0.11 s.
  for (const char* s : {"default", "checkpoint_validation", "spot_training"}) {
    SCOPED_TRACE(s);
    const gpucap::BackendEstimate e = on_h200(s, 8192);
    EXPECT_FALSE(e.device_faster()) << e.reason("cuda", "cpu");
  }
  // Services: serverless_vs_dedicated at 16 and edge_vs_cloud_inference at 8 did not finish in
  // 40 s on the GPU (0.68 s and 0.90 s on the CPU); spot_inference_fallback at 256 took 27.95 s
  // against 2.58 s.
  const gpucap::BackendEstimate serverless = on_h200("serverless_vs_dedicated", 16);
  EXPECT_FALSE(serverless.device_faster());
  EXPECT_GT(serverless.device_s, 20.0);
  const gpucap::BackendEstimate edge = on_h200("edge_vs_cloud_inference", 8);
  EXPECT_FALSE(edge.device_faster());
  EXPECT_GT(edge.device_s, 40.0);
  const gpucap::BackendEstimate fallback = on_h200("spot_inference_fallback", 256);
  EXPECT_FALSE(fallback.device_faster());
  EXPECT_FALSE(fallback.hybrid_best());
  EXPECT_FALSE(serverless.hybrid_best());
  EXPECT_FALSE(edge.hybrid_best());
  std::printf("spot_inference_fallback at 256: %s\n", fallback.reason("cuda", "cpu").c_str());
  // The measured ratio, 27.95 / 2.58 = 10.8, within a factor of 1.5.
  EXPECT_GT(fallback.device_s / fallback.cpu_s, 10.8 / 1.5);
  EXPECT_LT(fallback.device_s / fallback.cpu_s, 10.8 * 1.5);
}

TEST(BackendChoice, PicksTheGpuWhereTheH200WasFaster) {
  // erlang_b_validation at 8,192 replications: 1.6 times 16 threads.
  const gpucap::BackendEstimate erlang = on_h200("erlang_b_validation", 8192);
  EXPECT_TRUE(erlang.device_faster()) << erlang.reason("cuda", "cpu");
  EXPECT_GT(erlang.cpu_s / erlang.device_s, 1.1);
  EXPECT_LT(erlang.cpu_s / erlang.device_s, 2.5);
  // At scale, 3 to 4 times 16 threads: M/M/16 at 65,536, spot_training and default at 2^20.
  for (const auto& [s, n] : std::vector<std::pair<const char*, uint64_t>>{
           {"mmc_validation", 65536}, {"spot_training", 1 << 20}, {"default", 1 << 20}}) {
    SCOPED_TRACE(s);
    const gpucap::BackendEstimate e = on_h200(s, n);
    EXPECT_TRUE(e.device_faster()) << e.reason("cuda", "cpu");
    std::printf("%s at %llu: %s\n", s, static_cast<unsigned long long>(n),
                e.reason("cuda", "cpu").c_str());
    EXPECT_GT(e.cpu_s / e.device_s, 1.5);
    EXPECT_LT(e.cpu_s / e.device_s, 4.7);  // 132 x 0.37 / 16 = 3.05 saturated, minus start-up
  }
}

TEST(BackendChoice, ReasonGivesBothTimesAndTheWork) {
  const gpucap::BackendEstimate e = on_h200("default", 8192);
  const std::string why = e.reason("cuda", "cpu");
  EXPECT_EQ(why.rfind("cpu: expected ", 0), 0u) << why;
  EXPECT_NE(why.find(" on 16 CPU threads against "), std::string::npos) << why;
  EXPECT_NE(why.find(" on NVIDIA H200 (sm_90) (0.30 s start-up, 8192 replications at once)"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find(" events expected"), std::string::npos) << why;
  // At scale, the GPU with the CPU's threads but one beside it.
  const gpucap::BackendEstimate big = on_h200("default", 1 << 20);
  ASSERT_TRUE(big.hybrid_best());
  const std::string both = big.reason("cuda", "cpu");
  EXPECT_EQ(both.rfind("cuda + 15 CPU threads: expected ", 0), 0u) << both;
  EXPECT_NE(both.find("% of the replications on NVIDIA H200 (sm_90), against "), std::string::npos)
      << both;
  EXPECT_NE(both.find(" alone (0.30 s start-up)"), std::string::npos) << both;
}

TEST(BackendChoice, ModelByHand) {
  // 1,000 replications of 1e6 events on 10 threads at 1e7 events/s: 10 s. A device of 10 SMs:
  // 1,000 threads busy, alone 1000 x 1e7 / 100 = 1e8 events/s, saturated 10 x 0.5 x 1e7 =
  // 5e7; together 1 / (1e-8 + 2e-8) = 3.33e7 events/s: 1e9 / 3.33e7 = 30 s, plus 1 s.
  gpucap::BackendCostModel model;
  model.host_events_per_second = 1e7;
  model.device_thread_slowdown = 100;
  model.device_host_threads_per_sm = 0.5;
  model.device_threads_per_sm = 1000;
  model.device_startup_s = 1;
  const gpucap::DeviceDescription device{"d", 10, 0, 0.5};
  const gpucap::BackendEstimate e =
      gpucap::estimate_backends({1000, 1e6, 0}, 10, {device}, model);
  EXPECT_DOUBLE_EQ(e.events, 1e9);
  EXPECT_DOUBLE_EQ(e.cpu_s, 10.0);
  EXPECT_NEAR(e.device_s, 31.0, 1e-9);
  EXPECT_DOUBLE_EQ(e.device_startup_s, 1.0);  // the model's, more than the measured 0.5
  EXPECT_EQ(e.device_threads, 1000u);
  EXPECT_FALSE(e.device_faster());
  // A slower measured start-up is the one used.
  const gpucap::BackendEstimate slow = gpucap::estimate_backends(
      {1000, 1e6, 0}, 10, {{"d", 10, 0, 4.0}}, model);
  EXPECT_NEAR(slow.device_s, 34.0, 1e-9);
  // Fewer replications than threads: the longest replication bounds the CPU (0.1 s).
  EXPECT_DOUBLE_EQ(gpucap::estimate_backends({3, 1e6, 0}, 10, {}, model).cpu_s, 0.1);
  // Arenas that fill the memory: 1 GiB free, 100 MiB each: 4 workers (45% of the memory).
  const gpucap::BackendEstimate tight = gpucap::estimate_backends(
      {1000, 1e6, 100 << 20}, 10, {{"d", 10, uint64_t{1} << 30, 0}}, model);
  EXPECT_EQ(tight.device_threads, 4u);
  EXPECT_GT(tight.device_s, e.device_s);
  // Two devices share the replications: 500 threads each, 1 / (2e-8 + 2e-8) = 2.5e7 events/s
  // for 5e8 events: 20 s, plus 1 s.
  const gpucap::BackendEstimate two =
      gpucap::estimate_backends({1000, 1e6, 0}, 10, {device, device}, model);
  EXPECT_NEAR(two.device_s, 21.0, 1e-9);
  EXPECT_EQ(two.device_name, "d x 2");
  EXPECT_EQ(two.device_threads, 1000u);
}

TEST(BackendChoice, BothTogetherByHand) {
  // 1,000 replications of 1e6 events; 10 host threads at 1e7 events/s: 10 s alone. A device
  // with no start-up, 10 times slower per thread, 1e8 events/s saturated: n replications on it
  // take n x 1e6 x (10 / (n x 1e7) + 1 / 1e8) = 1 + 0.01 n s (11 s for all 1,000). Beside it,
  // 9 host threads take the rest in (1000 - n) / 90 s. Both end together at n = 478.9: 478
  // replications to the device (5.78 s), 522 to the host (5.80 s).
  gpucap::BackendCostModel model;
  model.host_events_per_second = 1e7;
  model.device_thread_slowdown = 10;
  model.device_host_threads_per_sm = 1;
  model.device_threads_per_sm = 1000;
  model.device_startup_s = 0;
  const gpucap::DeviceDescription device{"d", 10, 0, 0};
  const gpucap::BackendEstimate e = gpucap::estimate_backends({1000, 1e6, 0}, 10, {device}, model);
  EXPECT_NEAR(e.cpu_s, 10.0, 1e-9);
  EXPECT_NEAR(e.device_s, 11.0, 1e-9);
  EXPECT_EQ(e.hybrid_host_threads, 9);
  EXPECT_NEAR(e.hybrid_device_share, 0.478, 1e-12);
  EXPECT_NEAR(e.hybrid_s, 522.0 / 90.0, 1e-9);
  EXPECT_TRUE(e.hybrid_best());
  // A device that helps little (start-up 1 s, 100 times slower per thread, 5e7 events/s): its
  // best share, 3 replications, saves a third of a second of 10: not worth the second backend.
  model.device_startup_s = 1;
  model.device_thread_slowdown = 100;
  model.device_host_threads_per_sm = 0.5;
  const gpucap::BackendEstimate weak = gpucap::estimate_backends({1000, 1e6, 0}, 10, {device}, model);
  EXPECT_NEAR(weak.hybrid_device_share, 0.003, 1e-12);
  EXPECT_FALSE(weak.hybrid_best());
  EXPECT_FALSE(weak.device_faster());
  // One host thread per device drives it: with a single host thread there is no host part.
  const gpucap::BackendEstimate lone = gpucap::estimate_backends({1000, 1e6, 0}, 1, {device}, model);
  EXPECT_FALSE(lone.hybrid_best());
}

TEST(BackendChoice, FewerHostThreadsLowerTheCrossover) {
  // The smallest power-of-two replication count at which the H200 wins, with 2 and 16 threads.
  auto crossover = [](int threads) {
    for (uint64_t n = 1; n <= (uint64_t{1} << 24); n *= 2)
      if (on_h200("mmc_validation", n, threads).device_faster()) return n;
    return uint64_t{0};
  };
  const uint64_t two = crossover(2), sixteen = crossover(16);
  EXPECT_GT(two, 0u);
  EXPECT_GT(sixteen, 0u);
  EXPECT_LT(two, sixteen);
}

TEST(BackendChoice, NoDeviceIsTheCpu) {
  const gpucap::BackendEstimate e = gpucap::estimate_backends({1 << 20, 1e6, 0}, 4, {});
  EXPECT_FALSE(e.has_device);
  EXPECT_FALSE(e.device_faster());
  EXPECT_EQ(e.reason("cuda", "cpu").rfind("cpu: expected ", 0), 0u);
}

TEST(BackendChoice, ARunRecordsWhyAutoChose) {
  const gpucap::Scenario s =
      gpucap::load_scenario(std::string(GPUCAP_SOURCE_DIR) + "/scenarios/mmc_validation.yaml");
  gpucap::RunOptions options;
  options.replications = 8;
  options.settling_probe = false;
  const gpucap::RunResults automatic = gpucap::run(s, options);
  const gpucap::Backend& expected = gpucap::resolve_backend(gpucap::BackendChoice::automatic);
  if (expected.kind == gpucap::BackendKind::cpu) {
    // No usable GPU here: the cpu, with the model's CPU time and why there is no device.
    EXPECT_EQ(automatic.backend, gpucap::cpu_backend_name());
    EXPECT_EQ(automatic.backend_choice.rfind("cpu: expected ", 0), 0u) << automatic.backend_choice;
    EXPECT_NE(automatic.backend_choice.find("; no "), std::string::npos)
        << automatic.backend_choice;
  }
  // A named backend records no choice.
  options.backend = gpucap::BackendChoice::cpu;
  EXPECT_EQ(gpucap::run(s, options).backend_choice, "");
  // Devices named with auto and no usable GPU: refused as before.
  if (expected.kind == gpucap::BackendKind::cpu) {
    options.backend = gpucap::BackendChoice::automatic;
    options.device_limits.devices = {0};
    EXPECT_THROW(gpucap::run(s, options), std::invalid_argument);
  }
}

}  // namespace
