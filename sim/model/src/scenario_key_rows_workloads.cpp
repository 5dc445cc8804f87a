// gpucap: the scenario key table's rows for workloads, inference services, arrivals, policy,
// time series, records, goals and the entries of name maps, and the parameters of each
// distribution kind (see scenario_keys.hpp for the fields).
#include <string>
#include <vector>

#include "gpucap/choices.hpp"
#include "gpucap/scenario.hpp"
#include "key_rows.hpp"

namespace gpucap::key_rows {

// clang-format off
std::vector<ScenarioKey> workload_rows() {
  return {
    key("workloads[].name").shown("`name`").table("workloads")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("*required*")
        .valid("unique among workloads")
        .means("the class name; `--set` can address the item by it"),
    key("workloads[].kind").shown("`kind`").table("workloads")
        .type(KeyType::choice, UnitKind::none, "–")
        .choices(choice_words<WorkloadKind>()).by_default(as_code(choice_name(JobClassSpec{}.kind)))
        .means("`training` and `batch` are descriptive labels that do not change the simulation; `inference` makes the item an [inference service](#inference-services-kind-inference), and `deployment` a [deployment](#deployments-kind-deployment) of long-running instances, each with other keys"),
    key("workloads[].gpus").shown("`gpus`").table("workloads")
        .binds<&JobClassSpec::gpus>()
        .type(KeyType::integer, UnitKind::count, "GPUs").range({1, false}, {1048575, false})
        .by_default("`1`")
        .valid("must fit some pool of `placement` whose memory fits")
        .means("gang size: every job needs this many GPUs, all in one pool, at once"),
    key("workloads[].priority").shown("`priority`").table("workloads")
        .binds<&JobClassSpec::priority>()
        .type(KeyType::integer, UnitKind::none, "–").range({-1000000, false}, {1000000, false})
        .by_default("`0`").applies(WorkloadKind::training, WorkloadKind::batch, WorkloadKind::deployment)
        .means("under `policy.queue: priority`, larger runs first; ignored otherwise"),
    key("workloads[].work").shown("`work`").table("workloads")
        .type(KeyType::distribution, UnitKind::duration, "s")
        .by_default("*required*, except for trace arrivals (forbidden there)")
        .applies(WorkloadKind::training, WorkloadKind::batch)
        .valid("any [distribution](#distributions)")
        .means("run time of one job on the reference GPU (speed 1), without checkpoints"),
    key("workloads[].lifetime").shown("`lifetime`").table("deployments")
        .type(KeyType::distribution, UnitKind::duration, "s")
        .by_default("*required*, except for trace arrivals (forbidden there)")
        .applies(WorkloadKind::deployment)
        .valid("any [distribution](#distributions)")
        .means("wall-clock lifetime of one instance, from its arrival; it runs on while the instance waits or is down after a reclaim (see [Deployments](#deployments-kind-deployment))"),
    key("workloads[].startup").shown("`startup`").table("deployments")
        .binds<&JobClassSpec::startup_s>()
        .type(KeyType::duration, UnitKind::duration, "s").range({0, false}, {kInf, false})
        .by_default("`0`").applies(WorkloadKind::deployment)
        .means("after every launch (and the pool's provisioning delay), the time an instance holds its GPUs before it serves (container start, model load); billed, not served"),
    key("workloads[].arrivals").shown("`arrivals`").table("workloads")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("*required*")
        .valid("see [`arrivals`](#arrivals)")
        .means("when jobs of this class arrive"),
    key("workloads[].placement").shown("`placement`").table("workloads")
        .type(KeyType::text_list, UnitKind::none, "–")
        .by_default("every pool, in the order of `pools`, except `serverless` pools and pools that run an inference service")
        .applies(WorkloadKind::training, WorkloadKind::batch, WorkloadKind::deployment)
        .valid("non-empty; declared pool names, each at most once; no `serverless` pool, no pool that runs an inference service")
        .means("pools the class may use, most preferred first"),
    key("workloads[].vram_gb").shown("`vram_gb`").table("workloads")
        .binds<&JobClassSpec::vram_gb>()
        .type(KeyType::number, UnitKind::gpu_memory_gb, "GB per GPU").range({0, true}, {kInf, false})
        .by_default("none (fits every pool)")
        .valid("at least one pool of `placement` must have that much memory (or undeclared memory)")
        .means("GPU memory each GPU of a job needs; see [GPU memory](#gpu-memory)"),
    key("workloads[].data").shown("`data`").table("workloads")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none (runs fetch nothing)").applies(WorkloadKind::training, WorkloadKind::batch)
        .valid("keys `size_gb`, `region` (both required); see [Data locality](#data-locality)")
        .means("input data that lives in one region: every run in a pool of another region fetches it first, in billed GPU time, and pays its egress"),
    key("workloads[].checkpoint").shown("`checkpoint`").table("workloads")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none (no checkpoints)").applies(WorkloadKind::training, WorkloadKind::batch)
        .valid("keys `interval`, `write`, `restart`, `size_gb`; see [Checkpointing](#checkpointing)")
        .means("how jobs save and restore their progress, and how large their checkpoints are when a job resumes in another region ([Checkpoints that change region](#checkpoints-that-change-region))"),
    key("workloads[].uncertainty").shown("`uncertainty`").table("workloads")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none (every replication has the same parameters)").applies(WorkloadKind::training, WorkloadKind::batch, WorkloadKind::deployment, WorkloadKind::inference)
        .valid("keys `rate_sd_log`, `scale_sd_log`; see [Parameter uncertainty](#parameter-uncertainty-uncertainty)")
        .means("doubt about the model's own parameters, as a fit estimates them: each replication draws its own arrival rate and work (lifetime, service time) scale around the values given, so that intervals include that doubt, not only the randomness of one model"),
    key("workloads[].uncertainty.rate_sd_log").shown("`rate_sd_log`").table("uncertainty")
        .binds<&JobClassSpec::rate_sd_log>()
        .type(KeyType::number, UnitKind::factor, "–").range({0, false}, {3, false})
        .by_default("`0`").applies(WorkloadKind::training, WorkloadKind::batch, WorkloadKind::deployment, WorkloadKind::inference)
        .valid("arrivals of a rate (`poisson`, `nhpp`), not a trace")
        .means("standard deviation of the log of the arrival rate: each replication's rate is the rate given times e^(rate_sd_log Z - rate_sd_log²/2), Z a standard normal (profile and all; the rate given stays the mean)"),
    key("workloads[].uncertainty.scale_sd_log").shown("`scale_sd_log`").table("uncertainty")
        .binds<&JobClassSpec::scale_sd_log>()
        .type(KeyType::number, UnitKind::factor, "–").range({0, false}, {3, false})
        .by_default("`0`").applies(WorkloadKind::training, WorkloadKind::batch, WorkloadKind::deployment, WorkloadKind::inference)
        .valid("not with run times or lifetimes from a trace, nor for an LLM service (`llm`)")
        .means("standard deviation of the log of the work's (a deployment's lifetime's, a service's request time's) scale: each replication's draws are the distribution's times e^(scale_sd_log Z - scale_sd_log²/2), Z a standard normal of its own (the rest of an instance at t = 0 included; the mean given stays the mean)"),
    key("workloads[].deadline").shown("`deadline`").table("workloads")
        .binds<&JobClassSpec::deadline_s>()
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .by_default("none").applies(WorkloadKind::training, WorkloadKind::batch)
        .means("time from arrival by which a job should finish; see [Deadline](#deadline)"),
    key("workloads[].fallback").shown("`fallback`").table("workloads")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none (preemptible pools are never avoided)").applies(WorkloadKind::training, WorkloadKind::batch, WorkloadKind::deployment)
        .valid("keys `after_preemptions`, `when_slack_below`, `return_to_preemptible`; see [Fallback](#fallback)")
        .means("when jobs stop using preemptible (`spot`, `marketplace`) pools"),
    key("workloads[].placement_limit").shown("`placement_limit`").table("workloads")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none (no pool is limited)").applies(WorkloadKind::training, WorkloadKind::batch, WorkloadKind::deployment)
        .valid("keys `pool` and one of `jobs`, `share`; see [Placement limit](#placement-limit-k-on-demand-the-rest-spot)")
        .means("at most `jobs` jobs, or a `share` of the class's jobs, at once in one pool of its placement list (\"k on-demand, the rest spot\")"),
    key("workloads[].sync").shown("`sync`").table("workloads")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none (no synchronization between nodes)").applies(WorkloadKind::training, WorkloadKind::batch)
        .valid("keys `step` (duration `> 0`) and `gradient_gb` (GB `>= 0`), both required; not with trace arrivals; see [Multi-node jobs](#multi-node-jobs-sync)")
        .means("data-parallel training: after every `step` of computing, a job that spans nodes all-reduces `gradient_gb` over the pool's interconnect, which slows it"),
    key("workloads[].initial_state").shown("`initial_state`").table("workloads")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none (nothing runs or waits at t = 0)")
        .applies(WorkloadKind::training, WorkloadKind::batch, WorkloadKind::deployment)
        .valid("keys `file` (required) and `time_unit`; see [State at t = 0](#state-at-t--0-initial_state)")
        .means("what of this workload runs or waits when the run starts: a CSV file with one row per job or instance"),
    key("workloads[].initial_state.file").shown("`file`").table("initial-state")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("*required*").applies(WorkloadKind::training, WorkloadKind::batch, WorkloadKind::deployment)
        .valid("a readable CSV file of at most 2,000,000 data rows with a column `remaining`, and optionally `age`, `pool` and `gpus`; relative paths are relative to the scenario file's directory")
        .means("one row per job or instance running or waiting at t = 0"),
    key("workloads[].initial_state.time_unit").shown("`time_unit`").table("initial-state")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .by_default("`1s`").applies(WorkloadKind::training, WorkloadKind::batch, WorkloadKind::deployment)
        .means("the unit of the `remaining` column, e.g. `1min`, `1h`"),
    key("workloads[].data.size_gb").shown("`data.size_gb`").table("data")
        .binds<&JobClassSpec::data_gb>()
        .type(KeyType::number, UnitKind::data_gb, "GB").range({0, false}, {kInf, false})
        .required("GB each run fetches").applies(WorkloadKind::training, WorkloadKind::batch)
        .means("size of the data each run fetches; `0` fetches nothing (and the pool checks below are skipped)"),
    key("workloads[].data.region").shown("`data.region`").table("data")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("*required*").applies(WorkloadKind::training, WorkloadKind::batch)
        .valid("a region declared in [`regions`](#regions) (so a workload with `data` needs a `regions` section)")
        .means("the region where the data lives"),
    key("workloads[].checkpoint.interval").shown("`checkpoint.interval`").table("checkpoint")
        .binds<&JobClassSpec::checkpoint_interval_s>()
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .by_default("none (no periodic checkpoints)").applies(WorkloadKind::training, WorkloadKind::batch)
        .means("computing time between two periodic checkpoints (wall-clock time on the instance, not scaled by `speed` or [`slowdown`](#slowdown))"),
    key("workloads[].checkpoint.write").shown("`checkpoint.write`").table("checkpoint")
        .binds<&JobClassSpec::checkpoint_write_s>()
        .type(KeyType::duration, UnitKind::duration, "s").range({0, false}, {kInf, false})
        .by_default("`0`").applies(WorkloadKind::training, WorkloadKind::batch)
        .means("time to write one checkpoint; part of the run time (the GPUs stay held and the hold billed)"),
    key("workloads[].checkpoint.restart").shown("`checkpoint.restart`").table("checkpoint")
        .binds<&JobClassSpec::restart_s>()
        .type(KeyType::duration, UnitKind::duration, "s").range({0, false}, {kInf, false})
        .by_default("`0`").applies(WorkloadKind::training, WorkloadKind::batch)
        .means("time to restore at the start of every run after the job's first preemption (after the run's [data transfer](#data-locality) and [checkpoint copy](#checkpoints-that-change-region), if any)"),
    key("workloads[].checkpoint.size_gb").shown("`checkpoint.size_gb`").table("checkpoint")
        .binds<&JobClassSpec::checkpoint_size_gb>()
        .type(KeyType::number, UnitKind::data_gb, "GB").range({0, false}, {kInf, false})
        .by_default("`0`").applies(WorkloadKind::training, WorkloadKind::batch)
        .means("size of the job's checkpoint: a run that resumes after a preemption in a pool of another region than the pool where its last checkpoint was written first copies it over the link between the two regions (`latency_ms / 1000 + size_gb * 8 / bandwidth_gbps` seconds of billed GPU time, in `gpu_hours_transferring`) and pays `size_gb × egress_usd_per_gb` of the checkpoint's region; `0` copies nothing (and the link checks are skipped); see [Checkpoints that change region](#checkpoints-that-change-region)"),
    key("workloads[].fallback.after_preemptions").shown("`fallback.after_preemptions`").table("fallback")
        .binds<&JobClassSpec::fallback_after_preemptions>()
        .type(KeyType::integer, UnitKind::count, "preemptions").range({0, false}, {1000000, false})
        .by_default("none (never)").applies(WorkloadKind::training, WorkloadKind::batch, WorkloadKind::deployment)
        .means("skip preemptible (`spot`, `marketplace`) pools once the job has been preempted this many times; `0` skips them always"),
    key("workloads[].fallback.when_slack_below").shown("`fallback.when_slack_below`").table("fallback")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, false}, {kInf, false})
        .by_default("none (never)").applies(WorkloadKind::training, WorkloadKind::batch)
        .valid("needs `deadline` on the workload")
        .means("skip preemptible pools when the job's slack is below this"),
    key("workloads[].fallback.return_to_preemptible").shown("`fallback.return_to_preemptible`").table("fallback")
        .type(KeyType::boolean, UnitKind::none, "–")
        .by_default("`false` (a job that fell back never uses preemptible pools again)")
        .applies(WorkloadKind::training, WorkloadKind::batch, WorkloadKind::deployment)
        .valid("needs `after_preemptions`")
        .means("`true`: the fallback lasts one run: a job whose run began on a pool that is not preemptible because of `after_preemptions` tries the preemptible pools first again at its next launch (after that run is reclaimed); see [Fallback](#fallback)"),
    key("workloads[].placement_limit.pool").shown("`placement_limit.pool`").table("placement-limit")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("*required*").applies(WorkloadKind::training, WorkloadKind::batch, WorkloadKind::deployment)
        .valid("a pool of the workload's `placement` list")
        .means("the pool whose jobs of this class are limited"),
    key("workloads[].placement_limit.jobs").shown("`placement_limit.jobs`").table("placement-limit")
        .type(KeyType::integer, UnitKind::count, "jobs").range({1, false}, {1000000, false})
        .by_default("*required*, unless `share` is given (not both)")
        .applies(WorkloadKind::training, WorkloadKind::batch, WorkloadKind::deployment)
        .valid("`jobs × gpus` at most the pool's `quota`")
        .means("most jobs of the class holding GPUs in the pool at once (provisioning or running); the others use the other pools of the placement list, in order, or wait"),
    key("workloads[].placement_limit.commitment").shown("`placement_limit.commitment`").table("placement-limit")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("none (the limit is `jobs` or `share`)").applies(WorkloadKind::training, WorkloadKind::batch, WorkloadKind::deployment)
        .valid("a commitment of `commitments` with `gpus` that covers `pool`; not with `jobs` or `share`")
        .means("the limit counts GPUs, not jobs: the class's jobs in the pool hold at most the commitment's `gpus` GPUs at once (0 places nothing there; a trace's jobs may ask for different counts), so that a sweep of the commitment moves it; see [Billing commitments](#billing-commitments-commitments)"),
    key("workloads[].placement_limit.share").shown("`placement_limit.share`").table("placement-limit")
        .type(KeyType::number, UnitKind::probability, "–").range({0, true}, {1, false})
        .by_default("none (the limit is `jobs`)").applies(WorkloadKind::training, WorkloadKind::batch, WorkloadKind::deployment)
        .valid("not with `jobs`")
        .means("most fraction of the class's jobs holding GPUs (in any pool) that may hold them in this pool: a job launches there only if afterwards the class's jobs there are at most `share` × its jobs holding GPUs rounded up, both counting the new job; see [Placement limit](#placement-limit-k-on-demand-the-rest-spot)"),
    key("workloads[].sync.step").shown("`sync.step`").table("sync")
        .binds<&JobClassSpec::sync_step_s>()
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .required("the compute time of one training step").applies(WorkloadKind::training, WorkloadKind::batch)
        .means("computing time of one training step on the reference GPU (speed 1)"),
    key("workloads[].sync.gradient_gb").shown("`sync.gradient_gb`").table("sync")
        .binds<&JobClassSpec::sync_gradient_gb>()
        .type(KeyType::number, UnitKind::data_gb, "GB").range({0, false}, {kInf, false})
        .required("GB all-reduced after every step").applies(WorkloadKind::training, WorkloadKind::batch)
        .means("gradients all-reduced between the nodes after every step"),
    key("workloads[].name").shown("`name`").table("inference")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("*required*")
        .valid("unique among workloads")
        .means("the service's name; `--set` can address the item by it"),
    key("workloads[].kind").shown("`kind`").table("inference")
        .type(KeyType::choice, UnitKind::none, "–")
        .choices(choice_words<WorkloadKind>()).by_default("–").applies(WorkloadKind::inference)
        .means("makes the item a service"),
    key("workloads[].pool").shown("`pool`").table("inference")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("*required*").applies(WorkloadKind::inference)
        .valid("a declared pool without `availability`, `zone_events`, `price_process` or `slowdown`; `stockout` only on a `spot` or `marketplace` pool")
        .means("the pool whose GPUs run the replicas; it then runs no jobs. On a `spot` or `marketplace` pool each replica lifetime is reclaimed by the pool's `time_to_preemption` / `max_runtime`, and its requests in service restart (see [Spot replicas and fallback](#spot-replicas-and-fallback))"),
    key("workloads[].fallback_pool").shown("`fallback_pool`").table("inference")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("none (replicas run in `pool` only)").applies(WorkloadKind::inference)
        .valid("a declared `on_demand`, `reserved` or `owned` pool other than `pool`, without `availability`, `stockout`, `zone_events`, `price_process` or `slowdown`, whose GPUs fit the replica (`gpus`, `vram_gb`); only when `pool` is `spot` or `marketplace`")
        .means("where a replica starts when `pool` has no free GPU (quota full) or its launch there stocks out, with that pool's cold start, price, round trip and egress; it then runs no jobs. Requests go to replicas in `pool` first, so fallback replicas idle and stop first (a windowed autoscaler stops idle fallback replicas first); a fallback replica is not moved back to `pool` when GPUs free up there"),
    key("workloads[].arrivals").shown("`arrivals`").table("inference")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("*required*")
        .valid("`poisson` or `nhpp` (rates in requests per s / min / hour / day), or `trace` without `gpus_column`; see [`arrivals`](#arrivals)")
        .means("when requests arrive"),
    key("workloads[].service").shown("`service`").table("inference")
        .type(KeyType::distribution, UnitKind::duration, "s")
        .by_default("*required*, except for trace arrivals (forbidden there)")
        .applies(WorkloadKind::inference)
        .valid("any [distribution](#distributions)")
        .means("service time of one request on the reference GPU (speed 1); in the pool it takes `service / speed`"),
    key("workloads[].gpus").shown("`gpus`").table("inference")
        .binds<&JobClassSpec::gpus>()
        .type(KeyType::integer, UnitKind::count, "GPUs per replica").range({1, false}, {1048575, false})
        .by_default("`1`")
        .valid("at most the pool's `quota` or `count`")
        .means("GPUs each replica holds, from its start to its stop"),
    key("workloads[].vram_gb").shown("`vram_gb`").table("inference")
        .binds<&JobClassSpec::vram_gb>()
        .type(KeyType::number, UnitKind::gpu_memory_gb, "GB per GPU").range({0, true}, {kInf, false})
        .by_default("none (fits every pool)")
        .valid("at most the pool's `gpu_memory_gb` (when declared)")
        .means("GPU memory each GPU of a replica needs"),
    key("workloads[].model_gb").shown("`model_gb`").table("inference")
        .binds<&ServiceSpec::model_gb>()
        .type(KeyType::number, UnitKind::data_gb, "GB").range({0, false}, {kInf, false})
        .by_default("`0`; an LLM service (`llm`): its model's weights (parameters x 2 bytes)").applies(WorkloadKind::inference)
        .means("model weights that every cold start loads at the pool's `cold_start.weights_gb_per_s` (see [Cold start](#cold-start))"),
    key("workloads[].concurrency").shown("`concurrency`").table("inference")
        .binds<&ServiceSpec::concurrency>()
        .type(KeyType::integer, UnitKind::count, "requests per replica").range({1, false}, {4096, false})
        .by_default("`1`").applies(WorkloadKind::inference)
        .means("requests one warm replica serves at once"),
    key("workloads[].replicas").shown("`replicas`").table("inference")
        .type(KeyType::integer, UnitKind::count, "replicas").range({1, false}, {100000, false})
        .by_default("–").applies(WorkloadKind::inference)
        .valid("exactly one of `replicas` and `autoscaling`")
        .means("a fixed count: all warm from t = 0 and never stopped (the same as `autoscaling: {min_replicas: N, max_replicas: N}`)"),
    key("workloads[].autoscaling").shown("`autoscaling`").table("")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none").applies(WorkloadKind::inference)
        .valid("keys `min_replicas`, `max_replicas`, `idle_timeout`, `target_concurrency`, and for the [windowed autoscaler](#windowed-autoscaler) `stable_window`, `panic_window`, `panic_threshold_percentage`, `scale_down_delay`, `tick`; exactly one of `replicas` and `autoscaling`")
        .means("replicas started and stopped with the load"),
    key("workloads[].autoscaling.min_replicas").shown("`autoscaling.min_replicas`").table("inference")
        .type(KeyType::integer, UnitKind::count, "replicas").range({0, false}, {100000, false})
        .by_default("`0`").applies(WorkloadKind::inference)
        .valid("`<= max_replicas`")
        .means("replicas always up, warm from t = 0"),
    key("workloads[].autoscaling.max_replicas").shown("`autoscaling.max_replicas`").table("inference")
        .type(KeyType::integer, UnitKind::count, "replicas").range({1, false}, {100000, false})
        .by_default("*required*").applies(WorkloadKind::inference)
        .means("most replicas up (starting or warm) at once"),
    key("workloads[].autoscaling.idle_timeout").shown("`autoscaling.idle_timeout`").table("inference")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .by_default("*required*, unless `min_replicas` = `max_replicas` (then none: replicas never stop)")
        .applies(WorkloadKind::inference)
        .valid("not with `stable_window` (the windowed autoscaler stops replicas itself)")
        .means("a warm replica without requests for this long stops, while more than `min_replicas` are up"),
    key("workloads[].autoscaling.target_concurrency").shown("`autoscaling.target_concurrency`").table("inference")
        .type(KeyType::number, UnitKind::count, "requests per replica").range({0, true}, {4096, false})
        .by_default("`concurrency`").applies(WorkloadKind::inference)
        .valid("`<= concurrency`")
        .means("the autoscaler's aim: requests in the system (in service and waiting) per replica up; below `concurrency` it starts replicas before the slots fill"),
    key("workloads[].autoscaling.stable_window").shown("`autoscaling.stable_window`").table("inference")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {86400, false})
        .by_default("none (the autoscaler reacts to every arrival)").applies(WorkloadKind::inference)
        .valid("a whole number of `tick`s, at most 1 day and 100,000 ticks")
        .means("turns on the [windowed autoscaler](#windowed-autoscaler): every `tick` it wants ceil(average requests in the system over this window / `target_concurrency`) replicas"),
    key("workloads[].autoscaling.panic_window").shown("`autoscaling.panic_window`").table("inference")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {86400, false})
        .by_default("`stable_window` / 10").applies(WorkloadKind::inference)
        .valid("a whole number of `tick`s, `<= stable_window`; only with `stable_window`")
        .means("the short window whose average puts the autoscaler in panic (see `panic_threshold_percentage`)"),
    key("workloads[].autoscaling.panic_threshold_percentage").shown("`autoscaling.panic_threshold_percentage`").table("inference")
        .type(KeyType::number, UnitKind::factor, "%").range({110, false}, {1000, false})
        .by_default("`200`").applies(WorkloadKind::inference)
        .valid("only with `stable_window`")
        .means("panic when the replicas the panic window wants are at least this share of the warm replicas; in panic the autoscaler follows the panic window and does not scale down until a stable window has passed without that"),
    key("workloads[].autoscaling.scale_down_delay").shown("`autoscaling.scale_down_delay`").table("inference")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, false}, {3600, false})
        .by_default("`0s`").applies(WorkloadKind::inference)
        .valid("a whole number of `tick`s, at most 1 h and 100,000 ticks; only with `stable_window`")
        .means("a lower replica count is applied only once every tick of this long has wanted at most it; scale-ups are immediate"),
    key("workloads[].autoscaling.tick").shown("`autoscaling.tick`").table("inference")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {3600, false})
        .by_default("`2s`").applies(WorkloadKind::inference)
        .valid("only with `stable_window`")
        .means("how often the windowed autoscaler decides"),
    key("workloads[].users_region").shown("`users_region`").table("inference")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("none (round trip 0)").applies(WorkloadKind::inference)
        .valid("a declared region; the pool needs a `region`, and unless it is the same region, a `latency_ms` between the two (on either side)")
        .means("where the requests come from: every request's latency includes a round trip of 2 × the one-way latency (0 within one region)"),
    key("workloads[].slo").shown("`slo`").table("")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none").applies(WorkloadKind::inference)
        .valid("key `latency`")
        .means("the latency objective of the service's requests"),
    key("workloads[].slo.latency").shown("`slo.latency`").table("inference")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .by_default("none (no SLO)").applies(WorkloadKind::inference)
        .means("latency bound of the service; see `slo_violation_share` in [Output metrics](#output-metrics)"),
    key("workloads[].queue_capacity").shown("`queue_capacity`").table("inference")
        .binds<&ServiceSpec::queue_capacity>()
        .type(KeyType::integer, UnitKind::count, "requests").range({0, false}, {1000000, false})
        .by_default("`1000`").applies(WorkloadKind::inference)
        .means("waiting room: the most requests waiting at once; a request that would have to wait beyond it is dropped (`policy.queue_capacity` is for jobs only)"),
    key("workloads[].response_kb").shown("`response_kb`").table("inference")
        .binds<&ServiceSpec::response_kb>()
        .type(KeyType::number, UnitKind::kilobytes, "KB per request").range({0, false}, {kInf, false})
        .by_default("`0`").applies(WorkloadKind::inference)
        .means("size of a response: each served request pays `response_kb / 10⁶ × egress_usd_per_gb` of the pool's region"),
    key("workloads[].arrivals.process").shown("`process`").table("poisson")
        .type(KeyType::choice, UnitKind::none, "–")
        .choices(choice_words<ArrivalKind>()).by_default("*required*").applies(ArrivalKind::poisson)
        .means("homogeneous Poisson process"),
    key("workloads[].arrivals.rate_per_s").shown("`rate_per_*`").table("poisson")
        .type(KeyType::number, UnitKind::rate, "jobs per s / min / hour / day").range({0, true}, {kInf, false})
        .by_default("*required*, exactly one").applies(ArrivalKind::poisson)
        .means("arrival rate λ"),
    key("workloads[].arrivals.rate_per_min").shown("`rate_per_*`").table("poisson")
        .type(KeyType::number, UnitKind::rate, "jobs per s / min / hour / day").range({0, true}, {kInf, false})
        .by_default("*required*, exactly one").applies(ArrivalKind::poisson)
        .means("arrival rate λ"),
    key("workloads[].arrivals.rate_per_hour").shown("`rate_per_*`").table("poisson")
        .type(KeyType::number, UnitKind::rate, "jobs per s / min / hour / day").range({0, true}, {kInf, false})
        .by_default("*required*, exactly one").applies(ArrivalKind::poisson)
        .means("arrival rate λ"),
    key("workloads[].arrivals.rate_per_day").shown("`rate_per_*`").table("poisson")
        .type(KeyType::number, UnitKind::rate, "jobs per s / min / hour / day").range({0, true}, {kInf, false})
        .by_default("*required*, exactly one").applies(ArrivalKind::poisson)
        .means("arrival rate λ"),
    key("workloads[].arrivals.burst").shown("`burst`").table("poisson")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none (a Poisson process)").applies(ArrivalKind::poisson)
        .valid("keys `interval`, `cv`; see [Bursts](#bursts-burst)")
        .means("a doubly stochastic (Cox) rate: each interval's rate is the rate above times a gamma multiplier of mean 1, drawn anew in each interval and replication; arrivals burstier than Poisson, as real request logs are (`gpucap fit` tests for it)"),
    key("workloads[].arrivals.drift").shown("`drift`").table("poisson")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none (the rate given throughout)").applies(ArrivalKind::poisson)
        .valid("keys `interval`, `sd_log`; see [Drift](#drift-drift)")
        .means("the rate's level wanders: a geometric random walk from 1 at t = 0, drawn anew in each replication, so that a forecast's intervals widen with its horizon as the level of real demand does (`gpucap fit` estimates it from the days' counts)"),
    key("workloads[].arrivals.process").shown("`process`").table("nhpp")
        .type(KeyType::choice, UnitKind::none, "–")
        .choices(choice_words<ArrivalKind>()).by_default("*required*").applies(ArrivalKind::profile)
        .means("non-homogeneous Poisson process"),
    key("workloads[].arrivals.rate_per_s").shown("`rate_per_*`").table("nhpp")
        .type(KeyType::number, UnitKind::rate, "jobs per s / min / hour / day").range({0, true}, {kInf, false})
        .by_default("*required*, exactly one").applies(ArrivalKind::profile)
        .means("base rate, multiplied by the profile"),
    key("workloads[].arrivals.rate_per_min").shown("`rate_per_*`").table("nhpp")
        .type(KeyType::number, UnitKind::rate, "jobs per s / min / hour / day").range({0, true}, {kInf, false})
        .by_default("*required*, exactly one").applies(ArrivalKind::profile)
        .means("base rate, multiplied by the profile"),
    key("workloads[].arrivals.rate_per_hour").shown("`rate_per_*`").table("nhpp")
        .type(KeyType::number, UnitKind::rate, "jobs per s / min / hour / day").range({0, true}, {kInf, false})
        .by_default("*required*, exactly one").applies(ArrivalKind::profile)
        .means("base rate, multiplied by the profile"),
    key("workloads[].arrivals.rate_per_day").shown("`rate_per_*`").table("nhpp")
        .type(KeyType::number, UnitKind::rate, "jobs per s / min / hour / day").range({0, true}, {kInf, false})
        .by_default("*required*, exactly one").applies(ArrivalKind::profile)
        .means("base rate, multiplied by the profile"),
    key("workloads[].arrivals.hourly_profile").shown("`hourly_profile`").table("nhpp")
        .type(KeyType::number_list, UnitKind::factor, "– (multipliers)").range({0, false}, {kInf, false})
        .by_default("exactly one of the two profiles").applies(ArrivalKind::profile)
        .valid("exactly 24 numbers `>= 0`, at least one `> 0`")
        .means("item *h* applies from *h*:00 to *h*+1:00; repeats every 24 h from t = 0"),
    key("workloads[].arrivals.weekly_profile").shown("`weekly_profile`").table("nhpp")
        .type(KeyType::number_list, UnitKind::factor, "– (multipliers)").range({0, false}, {kInf, false})
        .by_default("exactly one of the two profiles").applies(ArrivalKind::profile)
        .valid("exactly 168 numbers `>= 0`, at least one `> 0`")
        .means("item *k* applies to hour *k* of the week, Monday 00:00 first (t = 0 is Monday 00:00); repeats every 168 h"),
    key("workloads[].arrivals.burst").shown("`burst`").table("nhpp")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none (a Poisson process)").applies(ArrivalKind::profile)
        .valid("keys `interval`, `cv`; see [Bursts](#bursts-burst)")
        .means("a doubly stochastic (Cox) rate: each interval's rate is the rate above times a gamma multiplier of mean 1, drawn anew in each interval and replication; arrivals burstier than Poisson, as real request logs are (`gpucap fit` tests for it)"),
    key("workloads[].arrivals.drift").shown("`drift`").table("nhpp")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none (the rate given throughout)").applies(ArrivalKind::profile)
        .valid("keys `interval`, `sd_log`; see [Drift](#drift-drift)")
        .means("the rate's level wanders: a geometric random walk from 1 at t = 0, drawn anew in each replication, so that a forecast's intervals widen with its horizon as the level of real demand does (`gpucap fit` estimates it from the days' counts)"),
    key("workloads[].arrivals.burst.interval").shown("`interval`").table("burst")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .by_default("*required*").applies(ArrivalKind::poisson, ArrivalKind::profile)
        .valid("one multiplier is drawn per interval: at most 10⁹ over the horizon (the event budget)")
        .means("how long a burst's rate lasts: intervals [k × interval, (k + 1) × interval) from t = 0"),
    key("workloads[].arrivals.burst.cv").shown("`cv`").table("burst")
        .type(KeyType::number, UnitKind::factor, "–").range({0, false}, {10, false})
        .by_default("*required*").applies(ArrivalKind::poisson, ArrivalKind::profile)
        .valid("`0`: no bursts")
        .means("coefficient of variation of the multiplier (gamma of shape 1/cv² and mean 1): the counts of an interval of mean μ arrivals have variance μ + cv² μ²"),
    key("workloads[].arrivals.drift.interval").shown("`interval`").table("drift")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .by_default("*required*").applies(ArrivalKind::poisson, ArrivalKind::profile)
        .valid("one step is drawn per interval: at most 10⁹ over the horizon (the event budget)")
        .means("how long the level holds between steps: intervals [k × interval, (k + 1) × interval) from t = 0"),
    key("workloads[].arrivals.drift.sd_log").shown("`sd_log`").table("drift")
        .type(KeyType::number, UnitKind::factor, "–").range({0, false}, {3, false})
        .by_default("*required*").applies(ArrivalKind::poisson, ArrivalKind::profile)
        .valid("`0`: no drift")
        .means("standard deviation of the log of each step: after k intervals the level is e^(sd_log (Z₁ + … + Z_k) − k sd_log²/2), mean 1, its log of sd sd_log √k"),
    key("workloads[].arrivals.process").shown("`process`").table("trace")
        .type(KeyType::choice, UnitKind::none, "–")
        .choices(choice_words<ArrivalKind>()).by_default("*required*").applies(ArrivalKind::trace)
        .means("trace replay"),
    key("workloads[].arrivals.file").shown("`file`").table("trace")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("*required*").applies(ArrivalKind::trace)
        .valid("a readable CSV file; relative paths are relative to the scenario file's directory")
        .means("the trace"),
    key("workloads[].arrivals.submit_column").shown("`submit_column`").table("trace")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("`submit_s`").applies(ArrivalKind::trace)
        .valid("a column of the file")
        .means("submit time since t = 0, in `time_unit`s; each value `>= 0`. For a deployment, the instance's start: blank or negative, it began before the window (alive at t = 0 if it ends after it)"),
    key("workloads[].arrivals.gpus_column").shown("`gpus_column`").table("trace")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("`gpus`").applies(ArrivalKind::trace)
        .valid("a column of the file")
        .means("GPUs of the job; each a whole number `>= 1`"),
    key("workloads[].arrivals.duration_column").shown("`duration_column`").table("trace")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("`duration_s`").applies(ArrivalKind::trace)
        .valid("a column of the file")
        .means("run time on the reference GPU (speed 1), in `time_unit`s; each `>= 0` (0: a job that ends as it starts, as a log's failed jobs do). For a deployment, its lifetime (`> 0`) (blank: still running, with `blank_end`). Not for an LLM service, whose trace gives each request's `context_tokens` and `output_tokens` (or Azure's `ContextTokens` and `GeneratedTokens`) instead"),
    key("workloads[].arrivals.end_column").shown("`end_column`").table("trace")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("none (lifetimes from `duration_column`)").applies(ArrivalKind::trace)
        .valid("a column of the file; deployments only, instead of `duration_column`")
        .means("when each instance ended, in `time_unit`s since t = 0, after its start (blank: still running when the log ends, with `blank_end`)"),
    key("workloads[].arrivals.blank_end").shown("`blank_end`").table("trace")
        .type(KeyType::choice, UnitKind::none, "–")
        .choices(choice_words<BlankEnd>()).by_default("none (a blank end is an error)").applies(ArrivalKind::trace)
        .valid("deployments only")
        .means("`still_running`: an instance whose end (or duration) is blank was still running when the log ended; its lifetime lasts past the horizon"),
    key("workloads[].arrivals.time_unit").shown("`time_unit`").table("trace")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .by_default("`1s`").applies(ArrivalKind::trace)
        .means("the unit of the submit and duration columns, e.g. `1ms`, `1min`, `1h`"),
    key("workloads[].arrivals.start").shown("`start`").table("trace")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, false}, {kInf, false})
        .by_default("`0`").applies(ArrivalKind::trace)
        .valid("not with `resample` (blocks start where the bootstrap draws them)")
        .means("trace time at t = 0: jobs submitted before it are not replayed, the others are replayed `start` earlier"),
    key("workloads[].arrivals.scale_rate").shown("`scale_rate`").table("trace")
        .type(KeyType::number, UnitKind::factor, "– (multiplier)").range({0, true}, {16, false})
        .by_default("`1`").applies(ArrivalKind::trace)
        .valid("above 1 only with `resample`")
        .means("multiplies the rate of arrivals: below 1, each job is replayed with this probability (thinning, drawn anew in each replication); above 1, ⌊f⌋ independent resamples of the trace are superposed, plus one more thinned to the fraction f − ⌊f⌋; see [Trace bootstrap](#trace-bootstrap)"),
    key("workloads[].arrivals.resample").shown("`resample`").table("trace")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none (the trace is replayed as it is, the same in every replication)")
        .applies(ArrivalKind::trace)
        .valid("keys `block`, `method`, `phase`, `period`; see [Trace bootstrap](#trace-bootstrap)")
        .means("a block bootstrap: each replication replays blocks of the trace drawn at random, so replications differ and intervals show how much the answer depends on the particular weeks logged"),
    key("workloads[].arrivals.resample.block").shown("`resample.block`").table("trace-resample")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .by_default("*required*").applies(ArrivalKind::trace)
        .means("length of a block (`moving`), or its mean length (`stationary`); e.g. `1d`, `7d`"),
    key("workloads[].arrivals.resample.method").shown("`resample.method`").table("trace-resample")
        .type(KeyType::choice, UnitKind::none, "–")
        .choices(choice_words<TraceResample>()).by_default("`moving`").applies(ArrivalKind::trace)
        .means("`moving`: blocks of fixed length `block` (a circular moving-block bootstrap); `stationary`: lengths drawn from an exponential distribution with mean `block` (Politis and Romano's stationary bootstrap)"),
    key("workloads[].arrivals.resample.phase").shown("`resample.phase`").table("trace-resample")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .by_default("`1d`").applies(ArrivalKind::trace)
        .valid("`period` is a whole multiple of it")
        .means("the cycle a block keeps: a block replayed from t starts in the trace at t modulo `phase` plus a whole number of phases, so `1d` keeps the time of day and `7d` the day of the week"),
    key("workloads[].arrivals.resample.period").shown("`resample.period`").table("trace-resample")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .by_default("the shortest whole number of `phase`s after the last submit time")
        .applies(ArrivalKind::trace)
        .valid("a whole multiple of `phase`, after the last submit time")
        .means("length of the trace as a loop: a block that runs past its end continues from its start"),
    key("policy.queue").shown("`queue`").table("policy")
        .type(KeyType::choice, UnitKind::none, "–")
        .choices(choice_words<QueueDiscipline>())
        .by_default(as_code(choice_name(PolicySpec{}.discipline)))
        .means("order of the waiting queue"),
    key("policy.backfill").shown("`backfill`").table("policy")
        .binds<&PolicySpec::backfill>()
        .type(KeyType::boolean, UnitKind::none, "–")
        .by_default("`false`")
        .valid("`true`/`yes`/`on`, `false`/`no`/`off`")
        .means("let any waiting job that fits start, not only the head"),
    key("policy.queue_capacity").shown("`queue_capacity`").table("policy")
        .type(KeyType::integer, UnitKind::count, "jobs").range({0, false}, {100000000, false})
        .by_default("`10000`")
        .means("waiting room: the most jobs waiting at once"),
    key("timeseries.step").shown("`timeseries.step`").table("")
        .binds<&Scenario::timeseries_step_s>()
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .required("a bin width such as 1h")
        .valid("at most 100,000 bins over the horizon")
        .means("width of each bin of the per-pool series of GPUs in use"),
    key("records.jobs").shown("`records.jobs`").table("")
        .binds<&Scenario::record_jobs>()
        .type(KeyType::integer, UnitKind::count, "replications").range({0, false}, {1000000, false})
        .by_default("`0`")
        .valid("at most the run's replications are recorded; the records of all points together may hold at most 10,000,000 jobs (a run that would need more is refused before recording)")
        .means("record every job of replications `first_replication` to `first_replication + N - 1` of each point (0: no records)"),
    key("goals.NAME.require").shown("`require`").table("goals")
        .type(KeyType::text_list, UnitKind::none, "–").range({1, false}, {16, false})
        .by_default("*required*")
        .valid("1 to 16 conditions `METRIC OP VALUE`: `METRIC` a scalar metric or `pools.POOL.METRIC`; `OP` `<=`, `<`, `>=`, `>`; `VALUE` a number (a duration such as `25d` for metrics in s), a metric, or `NUMBER * METRIC` of the same kind of unit")
        .means("conditions that must all hold in a replication for the goal to be met there; a condition on a metric that is undefined in the replication (NaN) does not hold"),
    key("goals.NAME.target").shown("`target`").table("goals")
        .type(KeyType::number, UnitKind::probability, "probability").range({0, true}, {1, true})
        .by_default("none")
        .means("the probability of meeting the goal that is wanted; `gpucap run` says whether the 95% exact interval of the estimate lies above it, below it, or cannot tell, and `--chance NAME` uses it as the level"),
    key("goals.NAME.description").shown("`description`").table("goals")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("`\"\"`")
        .valid("any text")
        .means("what the goal means, for reports"),
    key("goals.NAME").shown("`goals.NAME`").table("")
        .type(KeyType::mapping, UnitKind::none, "–")
        .means("a goal: a name (a letter, then letters, digits and `_`) and its conditions"),
    key("pools.NAME").shown("`pools.NAME`").table("")
        .type(KeyType::mapping, UnitKind::none, "–")
        .means("a pool of GPUs of one model, price and purchase option"),
    key("commitments.NAME").shown("`commitments.NAME`").table("")
        .type(KeyType::mapping, UnitKind::none, "–")
        .means("a billing commitment: a reservation of GPUs or a savings plan, over on-demand pools"),
    key("providers.NAME").shown("`providers.NAME`").table("")
        .type(KeyType::mapping, UnitKind::none, "–")
        .means("a cloud provider"),
    key("regions.NAME").shown("`regions.NAME`").table("")
        .type(KeyType::mapping, UnitKind::none, "–")
        .means("a region and its network links"),
    key("workloads[]").shown("`workloads[]`").table("")
        .type(KeyType::mapping, UnitKind::none, "–")
        .means("a job class (`kind: training` or `batch`) or an inference service (`kind: inference`)"),
  };
}

/// Parameters of each distribution kind. Time-like ones take the unit of the key (durations
/// for times, plain numbers for `slowdown`); shapes are plain numbers where the samplers stay
/// exact and finite: a coefficient of variation or a lognormal sigma from 0.001 to 100 (10 for
/// sigma: exp(10 Z) already spans 1e-40 to 1e40 at Z = ±9), so gamma's shape 1/cv^2 lies in
/// [1e-4, 1e6]; Weibull, gamma and Pareto shapes from 0.01 to 1000.
std::vector<DistributionParameter> distribution_parameter_rows() {
  return {
    {"deterministic", "value", true, {0, false}, {kInf, false}, "the fixed value"},
    {"exponential", "mean", true, {0, true}, {kInf, false}, "the mean"},
    {"uniform", "min", true, {0, false}, {kInf, false}, "the lower end"},
    {"uniform", "max", true, {0, false}, {kInf, false}, "the upper end, > min"},
    {"lognormal", "median", true, {0, true}, {kInf, false}, "the median (with sigma)"},
    {"lognormal", "sigma", false, {1e-3, false}, {10, false}, "the log-space standard deviation"},
    {"lognormal", "mean", true, {0, true}, {kInf, false}, "the mean (with cv)"},
    {"lognormal", "cv", false, {1e-3, false}, {100, false}, "the coefficient of variation"},
    {"gamma", "shape", false, {1e-2, false}, {1e3, false}, "the shape k (with scale)"},
    {"gamma", "scale", true, {0, true}, {kInf, false}, "the scale θ"},
    {"gamma", "mean", true, {0, true}, {kInf, false}, "the mean (with cv)"},
    {"gamma", "cv", false, {1e-3, false}, {100, false}, "the coefficient of variation"},
    {"weibull", "shape", false, {1e-2, false}, {1e3, false}, "the shape k"},
    {"weibull", "scale", true, {0, true}, {kInf, false}, "the scale λ"},
    {"pareto", "shape", false, {1e-2, false}, {1e3, false}, "the shape α"},
    {"pareto", "scale", true, {0, true}, {kInf, false}, "the scale x_m (the minimum)"},
    {"empirical", "file", false, {-kInf, false}, {kInf, false}, "a CSV file of samples"},
    {"empirical", "column", false, {-kInf, false}, {kInf, false}, "the column of samples"},
    {"empirical", "values", true, {0, false}, {kInf, false}, "the samples (a list)"},
    {"empirical", "scale", false, {0, true}, {kInf, false}, "a factor applied to every sample"},
    {"empirical", "tail_probability", false, {0, true}, {1, true}, "with `tail_mean`: the probability of a value beyond the largest sample, the largest plus an exponential of mean `tail_mean` (the mass a fit of censored lifetimes leaves beyond the longest observed; residual lives of any age are drawn from it)"},
    {"empirical", "tail_mean", true, {0, true}, {kInf, false}, "with `tail_probability`: the mean of the tail's excess over the largest sample"},
    {"empirical", "preemption_log", false, {-kInf, false}, {kInf, false}, "a log of one instance's states (running > 0, preempted 0) at a fixed step, JSON as the public spot traces or CSV with `column` and `step`: its running periods are the samples; see [Preemption logs](#preemption-logs)"},
    {"empirical", "step", true, {0, true}, {kInf, false}, "a CSV preemption log's time between rows"},
    {"empirical", "partial", false, {-kInf, false}, {kInf, false}, "`keep` (default) or `drop`: a running period cut by the start or the end of a preemption log"},
  };
}
// clang-format on

}  // namespace gpucap::key_rows
