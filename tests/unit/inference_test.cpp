// Inference services: replicas, autoscaling, cold starts, idle timeouts, billing and latency on
// small request traces whose every figure is worked out by hand in the comments; the scenario
// checks that belong to services; and multi-node training slowed by its interconnect.
#include <cmath>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "gpucap/compile.hpp"
#include "gpucap/replication.hpp"

#include "support/one_replication.hpp"
#include "support/scenario_fixture.hpp"

namespace gpucap {
namespace {

using testing_support::Row;
using testing_support::run_once;

class Inference : public testing_support::ScenarioFixture {};

// A serverless pool at 1 USD per GPU-second; a cold start is a 10 s container start plus 20 GB
// of weights at 2 GB/s (10 s): 20 s. Replicas serve 2 requests at once, scale between 0 and 2
// and stop after 60 s idle. Users are 50 ms away (100 ms round trip). Requests (arrival,
// service): (0,5) (1,5) (2,5) (100,1) (150,1) (300,1).
//   t=0   r1 waits; the autoscaler wants ceil(1/2) = 1 replica: A starts (ready at 20).
//   t=1   r2 waits (2 requests: still 1 replica). t=2: r3 waits; 3 requests want 2: B starts.
//   t=20  A serves r1 (latency 0.1 + 20 + 5 = 25.1) and r2 (0.1 + 19 + 5 = 24.1).
//   t=22  B serves r3 (25.1). A idles from 25, B from 27: they stop at 85 and 87.
//   t=100 r4 waits; A starts again (ready 120), serves it: 21.1; idle from 121.
//   t=150 r5 finds A warm: 0.1 + 0 + 1 = 1.1; idle from 151, so A stops at 211, not 181.
//   t=300 r6: cold again, 21.1; A stops at 381.
// Latency: (25.1 + 24.1 + 25.1 + 21.1 + 1.1 + 21.1) / 6 = 19.6 s. Five of six waited for a
// cold start; four cold starts. Lifetimes 85 + 85 + 111 + 81 = 362 s billed (idle included);
// busy 5 + 5 + 1 + 1 + 1 = 13 s used. SLO 22 s: 3 of 6 requests violate it.
const char* kServerless =
    "name: t\nhorizon: 1h\n"
    "regions:\n  users: {latency_ms: {cloud: 50}}\n  cloud: {}\n"
    "pools:\n"
    "  sls:\n"
    "    gpu: H100\n    region: cloud\n    purchase: serverless\n"
    "    price_usd_per_gpu_second: 1\n"
    "    cold_start: {container: 10s, weights_gb_per_s: 2}\n"
    "workloads:\n"
    "  - name: api\n    kind: inference\n    pool: sls\n    users_region: users\n"
    "    arrivals: {process: trace, file: requests.csv}\n"
    "    model_gb: 20\n    concurrency: 2\n    slo: {latency: 22s}\n"
    "    autoscaling: {min_replicas: 0, max_replicas: 2, idle_timeout: 60s}\n";

const char* kRequests = "submit_s,duration_s\n0,5\n1,5\n2,5\n100,1\n150,1\n300,1\n";

TEST_F(Inference, ServerlessTraceWorkedByHand) {
  write("requests.csv", kRequests);
  const Row r = run_once(parse(kServerless));
  EXPECT_EQ(r[kRequestsArrived], 6.0);
  EXPECT_EQ(r[kRequestsServed], 6.0);
  EXPECT_EQ(r[kRequestsDropped], 0.0);
  EXPECT_NEAR(r[kLatencyMeanS], 19.6, 1e-12);
  EXPECT_EQ(r[kColdStarts], 4.0);
  EXPECT_DOUBLE_EQ(r[kColdStartShare], 5.0 / 6.0);
  EXPECT_DOUBLE_EQ(r[kSloViolationShare], 0.5);
  EXPECT_DOUBLE_EQ(r[kGpuHoursBilled] * 3600, 362.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursUsed] * 3600, 13.0);
  EXPECT_DOUBLE_EQ(r[kCostUsd], 362.0);
  EXPECT_DOUBLE_EQ(r[kCostPer1000RequestsUsd], 362.0 / 6 * 1000);
  EXPECT_DOUBLE_EQ(r[kReplicasMean], 362.0 / 3600);
  // 6 arrivals, 4 replica starts, 6 completions, idle checks at 85, 87, 181 (A busy since:
  // checked again at 211), 211 and 381.
  EXPECT_EQ(r[kEvents], 21.0);
  EXPECT_EQ(r[kJobsArrived], 0.0);
}

// Without idle billing a replica pays its cold start and its busy time only:
// (20 + 5) + (20 + 5) + (20 + 1 + 1) + (20 + 1) = 93 s.
TEST_F(Inference, ServerlessWithoutIdleBillingPaysColdStartsAndBusyTime) {
  write("requests.csv", kRequests);
  std::string yaml = kServerless;
  yaml.replace(yaml.find("    cold_start"), 0, "    bill_idle: false\n");
  const Row r = run_once(parse(yaml));
  EXPECT_DOUBLE_EQ(r[kCostUsd], 93.0);
  EXPECT_NEAR(r[kLatencyMeanS], 19.6, 1e-12);  // the same service
}

// A snapshot restore replaces the container start and weights load: a 2 s cold start.
// r1..r3 wait 2, 1, 0 s... B starts at t=2 for r3 (ready at 4): latencies 0.1 + 2 + 5,
// 0.1 + 1 + 5, 0.1 + 2 + 5; r4, r6: 0.1 + 2 + 1; r5: 1.1. Sum 7.1 + 6.1 + 7.1 + 3.1 + 1.1 + 3.1.
TEST_F(Inference, SnapshotRestoreShortensColdStarts) {
  write("requests.csv", kRequests);
  std::string yaml = kServerless;
  const std::string slow = "{container: 10s, weights_gb_per_s: 2}";
  yaml.replace(yaml.find(slow), slow.size(), "{snapshot_restore: 2s}");
  const Row r = run_once(parse(yaml));
  EXPECT_NEAR(r[kLatencyMeanS], (7.1 + 6.1 + 7.1 + 3.1 + 1.1 + 3.1) / 6, 1e-12);
  EXPECT_DOUBLE_EQ(r[kSloViolationShare], 0.0);
}

// A full waiting room drops requests: one replica of concurrency 1, room for 1 waiting request,
// requests at 0, 0.5 and 1 s of 10 s each (min_replicas 1: warm from the start). r1 is served,
// r2 waits, r3 is dropped and counts against the SLO. Latencies 10 and 19.5.
TEST_F(Inference, FullWaitingRoomDropsRequests) {
  write("requests.csv", "submit_s,duration_s\n0,10\n0.5,10\n1,10\n");
  const std::string yaml =
      "name: t\nhorizon: 1h\n"
      "pools:\n  gpu: {gpu: L4, purchase: on_demand, price_usd_per_gpu_hour: 3600, quota: 1}\n"
      "workloads:\n"
      "  - {name: api, kind: inference, pool: gpu, arrivals: {process: trace, file: "
      "requests.csv},\n"
      "     concurrency: 1, replicas: 1, queue_capacity: 1, slo: {latency: 15s}}\n";
  const Row r = run_once(parse(yaml));
  EXPECT_EQ(r[kRequestsArrived], 3.0);
  EXPECT_EQ(r[kRequestsServed], 2.0);
  EXPECT_EQ(r[kRequestsDropped], 1.0);
  EXPECT_DOUBLE_EQ(r[kLatencyMeanS], (10 + 19.5) / 2);
  EXPECT_DOUBLE_EQ(r[kSloViolationShare], 2.0 / 3.0);  // the slow one and the dropped one
  // A dedicated replica is up (and billed) the whole hour; it was busy 20 s.
  EXPECT_DOUBLE_EQ(r[kCostUsd], 3600.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursUsed] * 3600, 20.0);
  EXPECT_EQ(r[kColdStarts], 0.0);
  EXPECT_DOUBLE_EQ(r[kReplicasMean], 1.0);
}

// Reserved replicas are charged for the whole count whatever the load.
TEST_F(Inference, ReservedReplicasCostTheSameAtAnyLoad) {
  auto cost_at = [&](const std::string& rate) {
    const std::string yaml =
        "name: t\nhorizon: 10h\nseed: 3\n"
        "pools:\n  res: {gpu: L4, purchase: reserved, price_usd_per_gpu_hour: 0.5, count: 4}\n"
        "workloads:\n"
        "  - {name: api, kind: inference, pool: res, arrivals: {process: poisson, rate_per_s: " +
        rate + "}, service: {dist: exponential, mean: 200ms}, concurrency: 4, replicas: 4}\n";
    return run_once(parse(yaml));
  };
  const Row low = cost_at("1"), high = cost_at("50");
  EXPECT_DOUBLE_EQ(low[kCostUsd], 4 * 0.5 * 10);
  EXPECT_DOUBLE_EQ(high[kCostUsd], 4 * 0.5 * 10);
  EXPECT_GT(high[kGpuHoursUsed], 5 * low[kGpuHoursUsed]);
  EXPECT_LT(high[kCostPer1000RequestsUsd], low[kCostPer1000RequestsUsd] / 40);
}

// Target concurrency below the slot count scales out before replicas fill: with concurrency 4
// and target 1, two simultaneous long requests run on one warm replica, and the autoscaler
// starts a second one for the second request (2 requests / target 1 = 2 replicas).
TEST_F(Inference, TargetConcurrencyScalesOutEarly) {
  write("requests.csv", "submit_s,duration_s\n0,100\n0,100\n");
  const std::string yaml =
      "name: t\nhorizon: 1h\n"
      "pools:\n  sls: {gpu: H100, purchase: serverless, price_usd_per_gpu_second: 1,\n"
      "    cold_start: {container: 30s}}\n"
      "workloads:\n"
      "  - {name: api, kind: inference, pool: sls, arrivals: {process: trace, file: "
      "requests.csv},\n"
      "     concurrency: 4, autoscaling: {min_replicas: 1, max_replicas: 3, idle_timeout: 10min,\n"
      "     target_concurrency: 1}}\n";
  const Row r = run_once(parse(yaml));
  EXPECT_EQ(r[kColdStarts], 1.0);
  EXPECT_DOUBLE_EQ(r[kLatencyMeanS], 100.0);  // both served at once by the warm replica
  EXPECT_EQ(r[kColdStartShare], 0.0);
  // The pool holds no more than its services need: 3 replicas x 1 GPU.
  const Scenario s = parse(yaml);
  EXPECT_EQ(s.pools[0].quota_gpus, 3u);
}

// ---- scenario checks -----------------------------------------------------------------------

const char* kMixed =
    "name: t\nhorizon: 1d\n"
    "pools:\n"
    "  od: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 8}\n"
    "  sls: {gpu: H100, purchase: serverless, price_usd_per_gpu_hour: 4}\n"
    "workloads:\n"
    "  - {name: jobs, arrivals: {process: poisson, rate_per_hour: 1}, work: 1h}\n"
    "  - {name: api, kind: inference, pool: sls, arrivals: {process: poisson, rate_per_s: 1},\n"
    "     service: 100ms, autoscaling: {max_replicas: 2, idle_timeout: 1min}}\n";

TEST_F(Inference, JobsSkipServerlessPoolsByDefault) {
  const Scenario s = parse(kMixed);
  EXPECT_EQ(s.workloads[0].placement, std::vector<std::string>{"od"});
  EXPECT_EQ(s.workloads[1].kind, WorkloadKind::inference);
  EXPECT_EQ(s.pools[1].quota_gpus, 2u);
}

TEST_F(Inference, MistakesAreNamed) {
  auto edit = [](std::string text, const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  EXPECT_EQ(error_of(edit(kMixed, "work: 1h}", "work: 1h, placement: [sls]}")),
            "test.yaml:7:88: workloads[0].placement[0]: pool \"sls\" is serverless: it runs "
            "inference services (kind: inference), not jobs");
  EXPECT_EQ(error_of(edit(kMixed, "autoscaling: {max_replicas: 2, idle_timeout: 1min}",
                          "autoscaling: {max_replicas: 2}")),
            "test.yaml:9:35: workloads[1].autoscaling: needs idle_timeout (how long a replica "
            "stays warm without requests before it stops), e.g. idle_timeout: 5min");
  EXPECT_EQ(error_of(edit(kMixed, "service: 100ms, ", "")),
            "test.yaml:8:5: workloads[1].service: is required: the service time of one request "
            "(distribution)");
  EXPECT_EQ(error_of(edit(kMixed, "idle_timeout: 1min}",
                          "idle_timeout: 1min, "
                          "target_concurrency: 3}")),
            "test.yaml:9:93: workloads[1].autoscaling.target_concurrency: must be at most the "
            "concurrency per replica (1)");
  EXPECT_EQ(error_of(edit(kMixed, "pool: sls,", "pool: od,")),
            "test.yaml:7:5: workloads[0].placement: every pool runs an inference service; add a "
            "pool for the jobs of \"jobs\"");
  EXPECT_EQ(error_of(edit(kMixed, "price_usd_per_gpu_hour: 4}",
                          "price_usd_per_gpu_hour: 4, cold_start: {snapshot_restore: 1s, "
                          "container: 2s}}")),
            "test.yaml:5:100: pools.sls.cold_start.snapshot_restore: a snapshot restore replaces "
            "the container start and the weights load; give either snapshot_restore or "
            "container and weights_gb_per_s");
}

TEST_F(Inference, UsersNeedALatencyToThePool) {
  const std::string yaml =
      "name: t\nhorizon: 1d\n"
      "regions:\n  eu: {}\n  us: {}\n"
      "pools:\n  sls: {gpu: H100, region: us, purchase: serverless, price_usd_per_gpu_hour: 4}\n"
      "workloads:\n"
      "  - {name: api, kind: inference, pool: sls, users_region: eu,\n"
      "     arrivals: {process: poisson, rate_per_s: 1}, service: 100ms, replicas: 1}\n";
  EXPECT_EQ(error_of(yaml),
            "test.yaml:9:59: workloads[0].users_region: no latency between eu and us; add "
            "regions.eu.latency_ms.us");
}

// ---- multi-node training ------------------------------------------------------------------

// 16 GPUs on nodes of 8: 2 nodes. Each 1 s step all-reduces 10 GB over 100 Gbit/s with 1 ms
// latency: 2 (n - 1) (latency + G / (n bandwidth)) = 2 (0.001 + 80 / 200) = 0.802 s, so a job
// runs at 1 / 1.802 of the pool's speed: 1000 s of work take 1802 s. A job of 8 GPUs fits one
// node and runs at full speed.
TEST_F(Inference, MultiNodeJobsAreSlowedByTheirAllReduce) {
  const std::string yaml =
      "name: t\nhorizon: 10h\nseed: 5\n"
      "pools:\n  cluster: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 640, gpus_per_node: 8,\n"
      "    interconnect: {latency: 1ms, bandwidth_gbps: 100}}\n"
      "workloads:\n"
      "  - {name: big, gpus: 16, arrivals: {process: poisson, rate_per_hour: 1}, work: 1000s,\n"
      "     sync: {step: 1s, gradient_gb: 10}}\n"
      "  - {name: small, gpus: 8, arrivals: {process: poisson, rate_per_hour: 1}, work: 1000s,\n"
      "     sync: {step: 1s, gradient_gb: 10}}\n";
  const Scenario s = parse(yaml);
  const ModelStorage storage = compile(s);
  ASSERT_TRUE(storage.model().has_run_speeds);
  EXPECT_NEAR(storage.model().run_speed[0], 1.0 / 1.802, 1e-15);
  EXPECT_EQ(storage.model().run_speed[1], 1.0);
  // Jobs never wait (640 GPUs), so each completes in its run time: 1802 s for 16 GPUs, 1000 s
  // for 8.
  const Row r = run_once(parse(yaml, {"workloads.small.arrivals.rate_per_hour=0.000001"}));
  ASSERT_GT(r[kJobsCompleted], 0.0);
  EXPECT_EQ(r[kWaitMeanS], 0.0);
  EXPECT_NEAR(r[kCompletionMeanS], 1802.0, 1e-9);
  const Row small = run_once(parse(yaml, {"workloads.big.arrivals.rate_per_hour=0.000001"}));
  EXPECT_NEAR(small[kCompletionMeanS], 1000.0, 1e-9);
  EXPECT_EQ(error_of("name: t\nhorizon: 1d\n"
                     "pools:\n  c: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 64, "
                     "gpus_per_node: 8}\n"
                     "workloads:\n  - {name: big, gpus: 16, arrivals: {process: poisson, "
                     "rate_per_hour: 1}, work: 1h, sync: {step: 1s, gradient_gb: 1}}\n"),
            "test.yaml:6:91: workloads[0].sync: a job of 16 GPUs spans nodes of pool \"c\" (8 "
            "GPUs per node), which declares no interconnect; add pools.c.interconnect: "
            "{latency, bandwidth_gbps}");
}

}  // namespace
}  // namespace gpucap
