// The windowed autoscaler (Knative's model: stable window, panic window, scale-down delay, on
// ticks) on small request traces whose every figure is worked out by hand in the comments, and
// the loader's errors for its keys.
#include <gtest/gtest.h>
#include <string>

#include "gpucap/compile.hpp"
#include "gpucap/replication.hpp"

#include "support/one_replication.hpp"
#include "support/scenario_fixture.hpp"

namespace gpucap {
namespace {

using testing_support::Row;
using testing_support::run_once;

class WindowedAutoscaler : public testing_support::ScenarioFixture {};

// A serverless pool at 1 USD per GPU-second, cold start 1 s (a snapshot restore). One request
// per replica (concurrency 1, target 1), 1 to 10 replicas; tick 2 s, stable window 10 s (5
// ticks), panic window 2 s (1 tick), panic at 200 %, scale-down delay 4 s (the count applied is
// the largest wanted at the last 3 ticks). Horizon 60 s. A burst of 4 requests of 9 s at 0.5 s.
// "area" is the integral of requests in the system over the tick's 2 s; S the stable window's
// sum of areas over min(k, 5) ticks, P the panic window's.
//   t=0    A warm (min_replicas). t=0.5: r1 on A (to 9.5); r2, r3, r4 wait: 4 in the system.
//   t=2    area 4 x 1.5 = 6; S = 6 / 2 s = 3 -> 3; P = 3 -> 3; 3 / 1 warm >= 2: panic (since 2).
//          desired 3: B, C start (warm at 3, serve r2, r3 to 12).
//   t=4    area 8; S = 14 / 4 = 3.5 -> 4; P = 4 -> 4; 4 / 3 warm < 2 (panic goes on until a
//          stable window after 2). desired 4: D starts (warm at 5, serves r4 to 14).
//   t=6, 8 areas 8, 8: S = 22/6, 30/8 -> 4; P 4; desired 4.
//   t=10   r1 done at 9.5: area 4 x 1.5 + 3 x 0.5 = 7.5; S = 37.5 / 10 -> 4.
//   t=12   r2, r3 done (they finish before the tick: tie rule): area 3 x 2 = 6; S = 37.5 / 10
//          -> 4; P = 3 -> 3; in panic (2 + 10 is not before 12): max(4, 3, the panic's 4) = 4.
//   t=14   r4 done: area 2; S = 31.5 / 10 -> 4; P = 1; not over, 2 + 10 < 14: panic ends. 4.
//   t=16   area 0; S = 23.5 / 10 -> 3; the delay keeps max(4, 4, 3) = 4.
//   t=18   S = 15.5 / 10 -> 2; max(4, 3, 2) = 4.
//   t=20   S = 8 / 10 -> 1; max(3, 2, 1) = 3: D (idle, highest index) stops.
//   t=22   S = 2 / 10 -> 1; max(2, 1, 1) = 2: C stops. t=24: S = 0 -> 0; max(1, 1, 0) = 1: B
//          stops. Then 0 wanted, min_replicas 1: A stays to the horizon.
// Lifetimes: A 60, B 22, C 20, D 16 = 118 replica-seconds: replicas_mean 118 / 60, cost 118 USD.
// Latencies 9, 2.5 + 9, 2.5 + 9, 4.5 + 9: mean 45.5 / 4. Cold starts 3 (no request waited while
// one was starting: r2..r4 joined the room before the first tick). Events: 4 arrivals, 3 replica
// starts, 4 completions, 30 ticks (2 s .. 60 s).
const char* kBurst =
    "name: t\nhorizon: 60s\n"
    "pools:\n"
    "  sls: {gpu: H100, purchase: serverless, price_usd_per_gpu_second: 1,\n"
    "        cold_start: {snapshot_restore: 1s}}\n"
    "workloads:\n"
    "  - name: api\n    kind: inference\n    pool: sls\n"
    "    arrivals: {process: trace, file: requests.csv}\n"
    "    concurrency: 1\n"
    "    autoscaling: {min_replicas: 1, max_replicas: 10, stable_window: 10s, panic_window: 2s,\n"
    "                  panic_threshold_percentage: 200, scale_down_delay: 4s, tick: 2s}\n";

const char* kBurstRequests = "submit_s,duration_s\n0.5,9\n0.5,9\n0.5,9\n0.5,9\n";

TEST_F(WindowedAutoscaler, BurstWorkedByHand) {
  write("requests.csv", kBurstRequests);
  const Row r = run_once(parse(kBurst));
  EXPECT_EQ(r[kRequestsServed], 4.0);
  EXPECT_EQ(r[kColdStarts], 3.0);
  EXPECT_EQ(r[kColdStartShare], 0.0);
  EXPECT_DOUBLE_EQ(r[kLatencyMeanS], 45.5 / 4);
  EXPECT_DOUBLE_EQ(r[kReplicasMean], 118.0 / 60);
  EXPECT_DOUBLE_EQ(r[kCostUsd], 118.0);
  EXPECT_EQ(r[kEvents], 41.0);
}

// Without the scale-down delay the counts fall as the stable window empties: at t=16 the
// stable window wants 3 (D stops), at 18 2 (C stops), at 20 1 (B stops). Lifetimes 60 + 18 +
// 16 + 12 = 106.
TEST_F(WindowedAutoscaler, WithoutDelayScalesDownAsTheStableWindowEmpties) {
  write("requests.csv", kBurstRequests);
  std::string yaml = kBurst;
  yaml.replace(yaml.find(" scale_down_delay: 4s,"), 22, "");
  const Row r = run_once(parse(yaml));
  EXPECT_EQ(r[kColdStarts], 3.0);
  EXPECT_DOUBLE_EQ(r[kReplicasMean], 106.0 / 60);
  EXPECT_DOUBLE_EQ(r[kLatencyMeanS], 45.5 / 4);
}

// A request into an empty service starts a replica at once (scale from zero) and waits for its
// cold start; the windowed autoscaler then keeps it while the stable window remembers the load.
// min_replicas 0, one request at t=1 of 3 s, cold start 1 s, no delay: A starts at 1 (warm at
// 2), serves to 5 (latency 4 s, a cold start). Areas: (0,2] 1, (2,4] 2, (4,6] 1, then 0. The
// stable window (5 ticks) holds a positive area until the tick at 14 (k = 3..7: 1 at k=3);
// at 16 (k = 4..8) it is 0: A stops at 16. Lifetime 15 s.
TEST_F(WindowedAutoscaler, ScalesFromZeroAtOnceAndToZeroWithTheWindow) {
  write("requests.csv", "submit_s,duration_s\n1,3\n");
  std::string yaml = kBurst;
  yaml.replace(yaml.find("min_replicas: 1"), 15, "min_replicas: 0");
  yaml.replace(yaml.find(" scale_down_delay: 4s,"), 22, "");
  const Row r = run_once(parse(yaml));
  EXPECT_EQ(r[kColdStarts], 1.0);
  EXPECT_EQ(r[kColdStartShare], 1.0);
  EXPECT_DOUBLE_EQ(r[kLatencyMeanS], 4.0);
  EXPECT_DOUBLE_EQ(r[kReplicasMean], 15.0 / 60);
  EXPECT_DOUBLE_EQ(r[kCostUsd], 15.0);
}

TEST_F(WindowedAutoscaler, MistakesAreNamed) {
  auto edit = [](std::string text, const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  write("requests.csv", kBurstRequests);
  EXPECT_EQ(error_of(edit(kBurst, "panic_window: 2s", "panic_window: 12s")),
            "test.yaml:12:88: workloads[0].autoscaling.panic_window: must be at most the stable "
            "window (10 s), got 12 s");
  EXPECT_EQ(error_of(edit(kBurst, "tick: 2s", "tick: 0s")),
            "test.yaml:13:80: workloads[0].autoscaling.tick: must be a duration > 0, got 0s");
  EXPECT_EQ(error_of(edit(kBurst, "stable_window: 10s", "stable_window: 11s")),
            "test.yaml:12:69: workloads[0].autoscaling.stable_window: must be a whole number of "
            "ticks (autoscaling.tick, 2 s), got 11 s = 5.5 ticks");
  EXPECT_EQ(error_of(edit(kBurst, "tick: 2s}", "tick: 2s, idle_timeout: 1min}")),
            "test.yaml:13:98: workloads[0].autoscaling.idle_timeout: the windowed autoscaler "
            "(stable_window) stops replicas itself; remove idle_timeout");
  EXPECT_EQ(error_of(edit(kBurst, "stable_window: 10s, ", "")),
            "test.yaml:12:68: workloads[0].autoscaling.panic_window: belongs to the windowed "
            "autoscaler; give autoscaling.stable_window too (e.g. stable_window: 60s), or remove "
            "it");
  EXPECT_EQ(error_of(edit(kBurst, "panic_threshold_percentage: 200",
                          "panic_threshold_percentage: 100")),
            "test.yaml:13:47: workloads[0].autoscaling.panic_threshold_percentage: must be a "
            "factor >= 110 %, got 100");
  EXPECT_EQ(error_of(edit(kBurst, "stable_window: 10s, panic_window: 2s", "stable_window: 30s")),
            "test.yaml:12:69: workloads[0].autoscaling.stable_window: the default panic window, "
            "stable_window / 10 = 3 s, is not a whole number of ticks (2 s); give "
            "autoscaling.panic_window");
  EXPECT_EQ(error_of(edit(edit(kBurst, "stable_window: 10s", "stable_window: 1d"), "tick: 2s",
                          "tick: 0.5s")),
            "test.yaml:12:69: workloads[0].autoscaling.stable_window: is 172800 ticks of 500 ms; "
            "at most 100000 are supported (make the tick longer)");
  EXPECT_EQ(error_of(edit(edit(kBurst, "stable_window: 10s, panic_window: 2s",
                               "stable_window: 1us, panic_window: 1us"),
                          "tick: 2s", "tick: 1h")),
            "test.yaml:12:69: workloads[0].autoscaling.stable_window: must be at least one tick "
            "(autoscaling.tick, 1 h), got 0.001 ms");
  // Ticks count in the event budget.
  EXPECT_EQ(error_of(edit(edit(kBurst, "horizon: 60s", "horizon: 1000d"), "tick: 2s",
                          "tick: 1ms")),
            "test.yaml:13:80: workloads[0].autoscaling.tick: makes one replication process about "
            "8.64e+10 events (one autoscaler tick per tick over the horizon, horizon 1000 d); "
            "with the rest of the scenario about 8.64e+10 in all, where at most 1e+09 are "
            "accepted (at 10-20 M events/s, a minute or more per replication); check the unit or "
            "shorten the horizon");
}

}  // namespace
}  // namespace gpucap
