// Inference replicas on spot pools, reclaimed by the pool's preemption model, and the on-demand
// fallback pool (fallback_pool): small request traces whose every figure is worked out by hand
// in the comments, and the loader's messages for the key's mistakes.
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

class SpotInference : public testing_support::ScenarioFixture {};

// One fixed replica (replicas: 1) of concurrency 2 on a spot pool of one GPU at 1 USD per
// GPU-second; every replica lifetime is reclaimed after 30 s (max_runtime); a cold start is a
// 5 s container start; the waiting room holds 3. Requests (arrival, service): (10,5) (25,10)
// (27,10) (28,10) (29,1).
//   t=0   A is warm (pre-provisioned), reclaimed at 30.
//   t=10  r1 served on A, done at 15: latency 5.
//   t=25  r2 on A (done at 35); t=27 r3 on A (37). t=28 r4 waits; t=29 r5 waits.
//   t=30  A is reclaimed: r2 and r3 restart, earliest first; no warm replica has a free slot
//         and the room has space for one: r2 goes to its front (room: r2 r4 r5), r3 is dropped.
//         The autoscaler starts B (3 requests want 2 replicas, at most 1): ready 35, reclaimed
//         at 60. r2 now waits for a cold start.
//   t=35  B serves r2 (latency 35 - 25 + 10 = 20) and r4 (35 - 28 + 10 = 17), both done at 45;
//         r5 then takes r2's slot: 45 - 29 + 1 = 17. B is idle from 46.
//   t=60  B is reclaimed idle: nothing restarts; min_replicas 1 starts C (ready 65, reclaimed
//         at 90); t=90 D (ready 95; its reclaim at 120 is after the horizon).
// Served 4 of 5 (r3 dropped), latency (5 + 20 + 17 + 17) / 4; one request restarted; three
// replica preemptions and cold starts; one served request (r2) waited for a cold start.
// Billed: A 30 s, B 30 s, C 30 s, D 10 s = 100 USD; busy (used) 10 s on A, 11 s on B.
const char* kSpotReplica =
    "name: t\nhorizon: 100s\n"
    "pools:\n"
    "  spot: {gpu: L4, purchase: spot, price_usd_per_gpu_hour: 3600, quota: 1,\n"
    "         preemption: {max_runtime: 30s}, cold_start: {container: 5s}}\n"
    "workloads:\n"
    "  - {name: api, kind: inference, pool: spot, arrivals: {process: trace, file: "
    "requests.csv},\n"
    "     concurrency: 2, replicas: 1, queue_capacity: 3}\n";

TEST_F(SpotInference, PreemptedReplicaRestartsItsRequestsWorkedByHand) {
  write("requests.csv", "submit_s,duration_s\n10,5\n25,10\n27,10\n28,10\n29,1\n");
  const Row r = run_once(parse(kSpotReplica));
  EXPECT_EQ(r[kRequestsArrived], 5.0);
  EXPECT_EQ(r[kRequestsServed], 4.0);
  EXPECT_EQ(r[kRequestsDropped], 1.0);
  EXPECT_EQ(r[kRequestsRestarted], 1.0);
  EXPECT_EQ(r[kReplicaPreemptions], 3.0);
  EXPECT_EQ(r.pool(0, kPoolPreemptions), 3.0);
  EXPECT_EQ(r[kPreemptions], 0.0);  // runs of jobs
  EXPECT_EQ(r[kColdStarts], 3.0);
  EXPECT_DOUBLE_EQ(r[kColdStartShare], 0.25);
  EXPECT_DOUBLE_EQ(r[kLatencyMeanS], (5.0 + 20 + 17 + 17) / 4);
  EXPECT_DOUBLE_EQ(r[kCostUsd], 100.0);
  EXPECT_DOUBLE_EQ(r.pool(0, kPoolCostUsd), 100.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursBilled] * 3600, 100.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursUsed] * 3600, 21.0);
  EXPECT_DOUBLE_EQ(r[kReplicasMean], 1.0);  // a replacement starts at the instant of a reclaim
  EXPECT_DOUBLE_EQ(r[kCostPer1000RequestsUsd], 100.0 / 4 * 1000);
  // 5 arrivals, 4 services completed (r2's and r3's first ones were taken out), 3 replicas
  // ready, 3 reclaims.
  EXPECT_EQ(r[kEvents], 15.0);
}

// With room for none, both requests in service at the reclaim are dropped (the waiting room
// already holds r4 and r5): 2 served (r1, r4 -> B at 35: 17; r5: 35 - 29 + 1 = 7), 3 dropped.
TEST_F(SpotInference, RequestsOfAReclaimedReplicaAreDroppedWhenTheRoomIsFull) {
  write("requests.csv", "submit_s,duration_s\n10,5\n25,10\n27,10\n28,10\n29,1\n");
  std::string yaml = kSpotReplica;
  yaml.replace(yaml.find("queue_capacity: 3"), 17, "queue_capacity: 2");
  const Row r = run_once(parse(yaml));
  EXPECT_EQ(r[kRequestsServed], 3.0);
  EXPECT_EQ(r[kRequestsDropped], 2.0);
  EXPECT_EQ(r[kRequestsRestarted], 0.0);
  EXPECT_DOUBLE_EQ(r[kLatencyMeanS], (5.0 + 17 + 7) / 3);
}

// Two services share a spot pool of one GPU (1 USD per GPU-second, lifetimes reclaimed after
// 30 s, 5 s cold starts); "api" falls back to an on-demand pool of one GPU at 2 USD per
// GPU-second (5 s cold starts). Concurrency 1 everywhere.
//   t=0    batchy's x1 (service 1) starts X on spot: ready 5, served 5-6 (latency 6).
//   t=1    api's y1 (4): spot is full (X), so B starts on the fallback pool: ready 6, serves
//          y1 6-10 (latency 9). B is idle from 10 (idle timeout 40 s: check at 50).
//   t=30   X is reclaimed idle; batchy wants no replica (min 0): the spot GPU is free.
//   t=31   y2 (4) finds B free: 31-35 (4). t=31.5: y3 (10) waits; 2 requests want 2
//          replicas: C starts on spot (ready 36.5, reclaimed at 61.5). At 35 y3 takes B's slot:
//          35-45 (13.5).
//   t=40   y4 (2): C is free: 40-42 (2).
//   t=50   y5 (1): B (idle since 45) and C (idle since 42) are both free; requests go to
//          replicas in the service's own pool first: C, 50-51 (1). B stops at 45 + 40 = 85.
//   t=61.5 C is reclaimed idle; nothing restarts, nothing replaces it.
// Billed: spot X 30 s + C 30 s = 60 USD; on-demand B 1..85 = 84 s x 2 = 168 USD. Used: spot
// 1 + 2 + 1 = 4 s; on-demand 4 + 14 = 18 s. (Had y5 gone to B, B would stop at 91: 180 USD.)
TEST_F(SpotInference, FallbackPoolTakesReplicasWhenSpotIsFullWorkedByHand) {
  write("x.csv", "submit_s,duration_s\n0,1\n");
  write("y.csv", "submit_s,duration_s\n1,4\n31,4\n31.5,10\n40,2\n50,1\n");
  const std::string yaml =
      "name: t\nhorizon: 100s\n"
      "pools:\n"
      "  spot: {gpu: L4, purchase: spot, price_usd_per_gpu_hour: 3600, quota: 1,\n"
      "         preemption: {max_runtime: 30s}, cold_start: {container: 5s}}\n"
      "  od: {gpu: L4, purchase: on_demand, price_usd_per_gpu_hour: 7200, quota: 1,\n"
      "       cold_start: {container: 5s}}\n"
      "workloads:\n"
      "  - {name: batchy, kind: inference, pool: spot, arrivals: {process: trace, file: x.csv},\n"
      "     autoscaling: {max_replicas: 1, idle_timeout: 1h}}\n"
      "  - {name: api, kind: inference, pool: spot, fallback_pool: od,\n"
      "     arrivals: {process: trace, file: y.csv},\n"
      "     autoscaling: {max_replicas: 2, idle_timeout: 40s}}\n";
  const Row r = run_once(parse(yaml));
  EXPECT_EQ(r[kRequestsServed], 6.0);
  EXPECT_EQ(r[kRequestsDropped], 0.0);
  EXPECT_EQ(r[kRequestsRestarted], 0.0);
  EXPECT_EQ(r[kReplicaPreemptions], 2.0);
  EXPECT_EQ(r.pool(0, kPoolPreemptions), 2.0);
  EXPECT_EQ(r.pool(1, kPoolPreemptions), 0.0);
  EXPECT_EQ(r[kColdStarts], 3.0);
  EXPECT_DOUBLE_EQ(r[kColdStartShare], 0.5);  // x1, y1, y3 waited while a replica started
  EXPECT_DOUBLE_EQ(r[kLatencyMeanS], (6.0 + 9 + 4 + 13.5 + 2 + 1) / 6);
  // Waits (latency less the service, no round trip): x1 5, y1 5, y2 0, y3 3.5, y4 0, y5 0.
  // Sorted 0 0 0 3.5 5 5: p50 halfway between 0 and 3.5, p95 and p99 between 5 and 5.
  EXPECT_DOUBLE_EQ(r[kRequestWaitMeanS], 13.5 / 6);
  EXPECT_DOUBLE_EQ(r[kRequestWaitP50S], 1.75);
  EXPECT_DOUBLE_EQ(r[kRequestWaitP95S], 5.0);
  EXPECT_DOUBLE_EQ(r[kRequestWaitP99S], 5.0);
  EXPECT_DOUBLE_EQ(r.pool(0, kPoolCostUsd), 60.0);
  EXPECT_DOUBLE_EQ(r.pool(1, kPoolCostUsd), 168.0);
  EXPECT_DOUBLE_EQ(r[kCostUsd], 228.0);
  EXPECT_DOUBLE_EQ(r.pool(0, kPoolGpuHoursUsed) * 3600, 4.0);
  EXPECT_DOUBLE_EQ(r.pool(1, kPoolGpuHoursUsed) * 3600, 18.0);
  EXPECT_DOUBLE_EQ(r.pool(1, kPoolGpuHoursBilled) * 3600, 84.0);
  // Up (starting or warm): spot X 0-30 and C 31.5-61.5, on-demand B 1-85. A pool of replicas
  // is busy over their up time: spot 4 of 60 s, on-demand 18 of 84 s; of the quota (1 GPU over
  // 100 s) 4% and 18%.
  EXPECT_DOUBLE_EQ(r.pool(0, kPoolGpuHoursUp) * 3600, 60.0);
  EXPECT_DOUBLE_EQ(r.pool(1, kPoolGpuHoursUp) * 3600, 84.0);
  EXPECT_DOUBLE_EQ(r.pool(0, kPoolUtilization), 4.0 / 60);
  EXPECT_DOUBLE_EQ(r.pool(1, kPoolUtilization), 18.0 / 84);
  EXPECT_DOUBLE_EQ(r.pool(0, kPoolQuotaUtilization), 0.04);
  EXPECT_DOUBLE_EQ(r.pool(1, kPoolQuotaUtilization), 0.18);
  EXPECT_DOUBLE_EQ(r[kCostPer1000RequestsUsd], 228.0 / 6 * 1000);
}

// Two fixed replicas on a spot pool of one GPU: at t=0 A takes the spot GPU and B the fallback
// pool's; at 30 A is reclaimed and its replacement takes the spot GPU again (the pool's own
// first). Billed: spot 4 lifetimes of 30 s... over 100 s: 0-30, 30-60, 60-90, 90-100 = 100 USD;
// on-demand B the whole 100 s at 2 USD = 200 USD.
TEST_F(SpotInference, FixedReplicasFillTheSpotQuotaThenTheFallbackPool) {
  write("requests.csv", "submit_s,duration_s\n10,1\n");
  const std::string yaml =
      "name: t\nhorizon: 100s\n"
      "pools:\n"
      "  spot: {gpu: L4, purchase: spot, price_usd_per_gpu_hour: 3600, quota: 1,\n"
      "         preemption: {max_runtime: 30s}}\n"
      "  od: {gpu: L4, purchase: on_demand, price_usd_per_gpu_hour: 7200, quota: 4}\n"
      "workloads:\n"
      "  - {name: api, kind: inference, pool: spot, fallback_pool: od, replicas: 2,\n"
      "     arrivals: {process: trace, file: requests.csv}}\n";
  const Row r = run_once(parse(yaml));
  EXPECT_EQ(r[kReplicaPreemptions], 3.0);
  EXPECT_DOUBLE_EQ(r.pool(0, kPoolCostUsd), 100.0);
  EXPECT_DOUBLE_EQ(r.pool(1, kPoolCostUsd), 200.0);
  EXPECT_DOUBLE_EQ(r[kReplicasMean], 2.0);
  EXPECT_DOUBLE_EQ(r.pool(0, kPoolGpuHoursUsed) * 3600, 1.0);  // r1 on A, the spot replica
  EXPECT_DOUBLE_EQ(r[kLatencyMeanS], 1.0);
}

// A windowed autoscaler that scales down stops idle fallback replicas before the others, and
// requests go to replicas in the service's own pool first. Spot and on-demand pools of one GPU
// each (1 and 2 USD per GPU-second, no cold starts, no reclaim within the horizon). "batchy"
// holds the spot GPU from 0 (x1: 0-1) until its replica idles out at 21. "api" (concurrency 1,
// tick 10 s, stable and panic windows 10 s, no panic: threshold 1000%):
//   t=5    y1 (60) finds no replica: one starts, spot is full, so on demand (slot 0): 5-65.
//   t=25   y2 (40) waits. Tick 30: (5 + 2 x 5) / 10 = 1.5 requests: 2 replicas; the spot GPU
//          is free: slot 1 on spot, y2 30-70 (latency 45).
//   ticks 40..70 want 2. t=70.25 y3 (9.5) finds both idle and takes the spot replica.
//   tick 80: 9.5 / 10 requests: 1 replica: the idle fallback replica stops (slot 0), not the
//          spot one (slot 1), which the highest-index-first rule alone would pick.
//   tick 90: 0 requests: the spot replica stops.
// Billed: on demand 5..80 = 75 s x 2 = 150 USD; spot 0..21 and 30..90 = 81 USD.
TEST_F(SpotInference, WindowedScaleDownStopsFallbackReplicasFirst) {
  write("x.csv", "submit_s,duration_s\n0,1\n");
  write("y.csv", "submit_s,duration_s\n5,60\n25,40\n70.25,9.5\n");
  const std::string yaml =
      "name: t\nhorizon: 100s\n"
      "pools:\n"
      "  spot: {gpu: L4, purchase: spot, price_usd_per_gpu_hour: 3600, quota: 1,\n"
      "         preemption: {max_runtime: 1000h}}\n"
      "  od: {gpu: L4, purchase: on_demand, price_usd_per_gpu_hour: 7200, quota: 1}\n"
      "workloads:\n"
      "  - {name: batchy, kind: inference, pool: spot, arrivals: {process: trace, file: x.csv},\n"
      "     autoscaling: {max_replicas: 1, idle_timeout: 20s}}\n"
      "  - {name: api, kind: inference, pool: spot, fallback_pool: od,\n"
      "     arrivals: {process: trace, file: y.csv},\n"
      "     autoscaling: {max_replicas: 2, stable_window: 10s, panic_window: 10s, tick: 10s,\n"
      "                   panic_threshold_percentage: 1000}}\n";
  const Row r = run_once(parse(yaml));
  EXPECT_EQ(r[kRequestsServed], 4.0);
  EXPECT_DOUBLE_EQ(r[kLatencyMeanS], (1.0 + 60 + 45 + 9.5) / 4);
  EXPECT_DOUBLE_EQ(r.pool(1, kPoolCostUsd), 150.0);
  EXPECT_DOUBLE_EQ(r.pool(0, kPoolCostUsd), 81.0);
  EXPECT_DOUBLE_EQ(r.pool(0, kPoolGpuHoursUsed) * 3600, 1 + 40 + 9.5);
  EXPECT_DOUBLE_EQ(r.pool(1, kPoolGpuHoursUsed) * 3600, 60.0);
  EXPECT_EQ(r[kReplicaPreemptions], 0.0);
}

TEST_F(SpotInference, MistakesAreNamed) {
  const std::string base =
      "name: t\nhorizon: 1d\n"
      "pools:\n"
      "  spot: {gpu: H100, purchase: spot, price_usd_per_gpu_hour: 1, quota: 8, preemption: "
      "{time_to_preemption: 1h}}\n"
      "  od: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 8}\n"
      "  sls: {gpu: H100, purchase: serverless, price_usd_per_gpu_hour: 4}\n"
      "  spot2: {gpu: H100, purchase: spot, price_usd_per_gpu_hour: 1, quota: 8, preemption: "
      "{time_to_preemption: 1h}}\n"
      "  small: {gpu: L4, gpu_memory_gb: 24, price_usd_per_gpu_hour: 1, quota: 8}\n"
      "workloads:\n"
      "  - {name: api, kind: inference, pool: spot, fallback_pool: od, vram_gb: 40,\n"
      "     arrivals: {process: poisson, rate_per_s: 1}, service: 100ms, replicas: 2}\n";
  auto edit = [](std::string text, const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  EXPECT_EQ(error_of(base), "no error");
  EXPECT_EQ(error_of(edit(base, "fallback_pool: od", "fallback_pool: odd")),
            "test.yaml:10:61: workloads[0].fallback_pool: no pool named \"odd\" (did you mean "
            "'od'?); declared: spot, od, sls, spot2, small");
  EXPECT_EQ(error_of(edit(base, "fallback_pool: od", "fallback_pool: spot2")),
            "test.yaml:10:61: workloads[0].fallback_pool: pool \"spot2\" is spot; a fallback pool "
            "is on_demand, reserved or owned (never reclaimed, always billed by the hold)");
  EXPECT_EQ(error_of(edit(base, "fallback_pool: od", "fallback_pool: sls")),
            "test.yaml:10:61: workloads[0].fallback_pool: pool \"sls\" is serverless; a fallback "
            "pool is on_demand, reserved or owned (never reclaimed, always billed by the hold)");
  EXPECT_EQ(error_of(edit(base, "fallback_pool: od", "fallback_pool: spot")),
            "test.yaml:10:61: workloads[0].fallback_pool: is the service's own pool; name another "
            "pool (on_demand, reserved or owned)");
  EXPECT_EQ(error_of(edit(base, "pool: spot, fallback_pool: od", "pool: sls, fallback_pool: od")),
            "test.yaml:10:60: workloads[0].fallback_pool: pool \"sls\" is serverless, not "
            "preemptible: replicas there are never reclaimed, so there is nothing to fall back "
            "from; a fallback pool needs a spot or marketplace pool");
  EXPECT_EQ(error_of(edit(base, "fallback_pool: od", "fallback_pool: small")),
            "test.yaml:10:77: workloads[0].vram_gb: a replica needing 40 GB per GPU does not fit "
            "its fallback pool \"small\" (24 GB per GPU)");
  EXPECT_EQ(error_of(edit(base, "quota: 8}\n  sls", "quota: 8, stockout: {probability: 0.1}}\n  sls")),
            "test.yaml:10:61: workloads[0].fallback_pool: pool \"od\" has stockouts, which "
            "applies to jobs only (a fallback pool has room whenever its quota has); give the "
            "service a fallback pool without it");
  EXPECT_EQ(error_of(edit(base, "{time_to_preemption: 1h}}\n  od",
                          "{time_to_preemption: 1h, zone_events: 1d}}\n  od")),
            "test.yaml:10:40: workloads[0].pool: pool \"spot\" has zone_events, which applies to "
            "jobs only; give the service a pool without it");
  // A pool that runs a service's fallback replicas runs no jobs.
  EXPECT_EQ(error_of(base + "  - {name: jobs, arrivals: {process: poisson, rate_per_hour: 1}, "
                            "work: 1h, placement: [od]}\n"),
            "test.yaml:12:87: workloads[1].placement: pool \"od\" runs the inference service "
            "\"api\"; a pool runs either jobs or inference replicas, so give jobs another pool");
  // Stockouts on the spot pool are allowed (a launch there that stocks out falls back).
  EXPECT_EQ(error_of(edit(base, "{time_to_preemption: 1h}}\n  od",
                          "{time_to_preemption: 1h}, stockout: {probability: 0.5}}\n  od")),
            "no error");
}

}  // namespace
}  // namespace gpucap
