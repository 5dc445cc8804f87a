// gpucap: the scenario key table's rows for the top level, providers, regions and pools (see
// scenario_keys.hpp for the fields). The `applies` of pool keys are made from the purchase
// options' properties (purchase_options.hpp), the words of choice keys from their name tables.
#include <deque>
#include <string>

#include "gpucap/choices.hpp"
#include "gpucap/purchase_options.hpp"
#include "gpucap/scenario.hpp"
#include "key_rows.hpp"

namespace gpucap::key_rows {
namespace {

// The purchase options a pool key applies to, by their properties (purchase_options.hpp).
bool every_option(const PurchaseOptionInfo&) { return true; }
bool priced_per_hold(const PurchaseOptionInfo& o) { return o.price == PriceRule::per_hold; }
bool priced_per_gpu_hour(const PurchaseOptionInfo& o) { return o.price != PriceRule::amortized; }
bool uncommitted(const PurchaseOptionInfo& o) { return !o.committed; }
bool committed(const PurchaseOptionInfo& o) { return o.committed; }
bool amortized(const PurchaseOptionInfo& o) { return o.price == PriceRule::amortized; }
bool runs_jobs(const PurchaseOptionInfo& o) { return !o.services_only; }
bool services_only(const PurchaseOptionInfo& o) { return o.services_only; }

/// A pool key's condition: the purchase options for which `which` holds.
KeyCondition applies_to(bool (*which)(const PurchaseOptionInfo&)) {
  KeyCondition condition{Discriminator::purchase, 0};
  for (const PurchaseOptionInfo& o : purchase_options())
    if (which(o)) condition.values |= value_bit(o.option);
  return condition;
}

}  // namespace

const char* as_code(const char* word) {
  static std::deque<std::string> texts;
  texts.push_back(std::string("`") + word + "`");
  return texts.back().c_str();
}

// clang-format off
std::vector<ScenarioKey> pool_rows() {
  return {
    key("name").shown("`name`").table("top-level")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("*required*")
        .valid("any text")
        .means("short title; stored in the results file (`scenario_name`)"),
    key("description").shown("`description`").table("top-level")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("`\"\"`")
        .valid("any text")
        .means("free description; not used by the simulation"),
    key("horizon").shown("`horizon`").table("top-level")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kMaxHorizonS, false})
        .by_default("*required*")
        .means("simulated time of each replication, from t = 0; arrivals stop and the run ends here. Times are doubles in seconds: at 1000 years they still resolve 4 microseconds, so ties between events stay real ties"),
    key("warmup").shown("`warmup`").table("top-level")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, false}, {kInf, false})
        .by_default("`0`")
        .valid("`<` `horizon`")
        .means("start of the statistics window `[warmup, horizon]`; see [Warm-up](#warm-up-and-the-statistics-window)"),
    key("seed").shown("`seed`").table("top-level")
        .type(KeyType::integer, UnitKind::none, "–").range({0, false}, {18446744073709551615.0, false})
        .by_default("`1`")
        .valid("plain digits; anything larger, negative or in another form is an error (never clamped or wrapped)")
        .means("random seed; `gpucap run --seed S` overrides it"),
    key("replications").shown("`replications`").table("top-level")
        .type(KeyType::integer, UnitKind::count, "replications").range({1, false}, {1000000000, false})
        .by_default("`1000`")
        .means("number of independent replications; `gpucap run -r N` overrides it"),
    key("catalog").shown("`catalog`").table("top-level")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("none")
        .valid("a readable CSV file laid out like `data/gpu_prices.csv` (at least the columns `key`, `gpu_model`, `gpu_memory_gb`, `on_demand_usd_per_gpu_hour`, `spot_usd_per_gpu_hour`); relative paths are relative to the scenario file's directory")
        .means("price catalog from which `on_demand`, `spot`, `marketplace` and `serverless` pools take GPU model, memory and price with `catalog_row`; see [Price catalog](#price-catalog)"),
    key("providers").shown("`providers`").table("top-level")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none")
        .valid("see [`providers`](#providers)")
        .means("cloud providers, by name"),
    key("regions").shown("`regions`").table("top-level")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none")
        .valid("see [`regions`](#regions)")
        .means("regions, by name, with the latency, bandwidth and egress price of the network between them"),
    key("pools").shown("`pools`").table("top-level")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("*required*")
        .valid("non-empty; see [`pools`](#pools)")
        .means("the capacity: pool name → pool"),
    key("commitments").shown("`commitments`").table("top-level")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none")
        .valid("at most 64; see [Billing commitments](#billing-commitments-commitments)")
        .means("billing commitments (reservations, savings plans) over on-demand pools: paid every period, used or not, and applied each period to whatever usage those pools have, as the clouds bill them"),
    key("workloads").shown("`workloads`").table("top-level")
        .type(KeyType::list, UnitKind::none, "–").range({1, false}, {65535, false})
        .by_default("*required*")
        .valid("job classes and inference services together; see [`workloads`](#workloads)")
        .means("the demand: job classes and [inference services](#inference-services-kind-inference)"),
    key("policy").shown("`policy`").table("top-level")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("see [`policy`](#policy)")
        .valid("see [`policy`](#policy)")
        .means("queue discipline, backfill, waiting room"),
    key("timeseries").shown("`timeseries`").table("top-level")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none")
        .valid("`{step: DURATION}`, at most 100,000 bins over the horizon; see `timeseries.step`")
        .means("also record, per replication and pool, the mean number of GPUs in use in each bin of `step` over `[0, horizon]` (warm-up included; the last bin ends at the horizon). \"In use\" is what `gpu_hours_used` counts: jobs' runs and replicas' busy periods. Stored as `/timeseries/gpus_in_use` in results files, `Results.timeseries` in Python, plotted by `gpucap.plot.utilization`. A sweep may not change the bins (`timeseries.step` or `horizon`)"),
    key("records").shown("`records`").table("top-level")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none")
        .valid("`{jobs: N}`; see `records.jobs`")
        .means("also keep a record of every job of the first replications, for debugging a surprising run: its arrival, first launch, completion, pool, runs, preemptions, wait and cost. Stored as the `/jobs` table of results files, `Results.jobs` in Python; printed nowhere. Made after the run by simulating those replications again on the host (the same bits on every backend; the run itself is not slowed)"),
    key("goals").shown("`goals`").table("top-level")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none")
        .valid("at most 64 goals; see [Goals](#goals)")
        .means("indicator metrics evaluated on each replication (a goal is met when all its conditions hold); reported with exact intervals for their probability and used by chance constraints (`--chance NAME>=LEVEL`)"),
    key("commitments.NAME.covers").shown("`covers`").table("commitments")
        .type(KeyType::text_list, UnitKind::none, "–").range({1, false}, {1024, false})
        .by_default("*required*")
        .valid("`on_demand` pools of a fixed price (no `price_process`), each covered by one commitment at most")
        .means("the pools whose usage the commitment pays for, period by period (a family of instances)"),
    key("commitments.NAME.gpus").shown("`gpus`").table("commitments")
        .binds<&CommitmentSpec::gpus>()
        .type(KeyType::integer, UnitKind::count, "GPUs").range({0, false}, {1048575, false})
        .by_default("*required*, unless `usd_per_hour` (not both)")
        .valid("`0` commits nothing, so a sweep may start there")
        .means("a reservation: GPUs paid for in every period; the covered pools' usage up to this many GPUs in the period is paid by it, the rest at the pools' prices"),
    key("commitments.NAME.price_usd_per_gpu_hour").shown("`price_usd_per_gpu_hour`").table("commitments")
        .binds<&CommitmentSpec::price_usd_per_gpu_hour>()
        .type(KeyType::number, UnitKind::usd_per_gpu_hour, "USD per GPU-hour").range({0, false}, {kInf, false})
        .by_default("*required* with `gpus`")
        .means("what a committed GPU-hour costs, used or not"),
    key("commitments.NAME.usd_per_hour").shown("`usd_per_hour`").table("commitments")
        .binds<&CommitmentSpec::usd_per_hour>()
        .type(KeyType::number, UnitKind::usd_per_hour, "USD per hour").range({0, false}, {kInf, false})
        .by_default("none (a reservation: `gpus`)")
        .valid("not with `gpus`")
        .means("a savings plan: spend committed per hour, used or not; each period it pays for the covered pools' usage valued at the plan's rates (their prices less `discount`) up to this spend, the rest at the pools' prices"),
    key("commitments.NAME.discount").shown("`discount`").table("commitments")
        .binds<&CommitmentSpec::discount>()
        .type(KeyType::number, UnitKind::probability, "–").range({0, false}, {1, true})
        .by_default("*required* with `usd_per_hour`")
        .means("the savings plan's discount: its rate for an hour of a covered pool is the pool's price × (1 − discount)"),
    key("commitments.NAME.period").shown("`period`").table("commitments")
        .binds<&CommitmentSpec::period_s>()
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .by_default("`1h`")
        .valid("at most 100,000 periods over the horizon")
        .means("the billing period: the commitment is settled against the usage of each period from t = 0 (clouds settle every hour)"),
    key("providers.NAME.kind").shown("`providers.NAME.kind`").table("providers")
        .type(KeyType::choice, UnitKind::none, "–")
        .choices(choice_words<ProviderKind>()).by_default(as_code(choice_name(ProviderSpec{}.kind)))
        .means("kind of provider"),
    key("regions.NAME.latency_ms").shown("`regions.NAME.latency_ms`").table("regions")
        .type(KeyType::number_map, UnitKind::latency_ms, "ms").range({0, false}, {kInf, false})
        .by_default("none")
        .valid("keys: declared region names")
        .means("one-way network latency between this region and others, in milliseconds; added once to every data transfer and every [checkpoint copy](#checkpoints-that-change-region) on that link; twice that is the round trip of every request of an [inference service](#inference-services-kind-inference) whose `users_region` is at one end and whose pool is at the other"),
    key("regions.NAME.bandwidth_gbps").shown("`regions.NAME.bandwidth_gbps`").table("regions")
        .type(KeyType::number_map, UnitKind::bandwidth_gbps, "Gbit/s").range({0, true}, {kInf, false})
        .by_default("none")
        .valid("keys: declared region names")
        .means("transfer bandwidth between this region and others, in gigabits per second; a workload's [data](#data-locality) can be fetched, and a [checkpoint](#checkpoints-that-change-region) copied, only over a link with a bandwidth"),
    key("regions.NAME.egress_usd_per_gb").shown("`regions.NAME.egress_usd_per_gb`").table("regions")
        .type(KeyType::number, UnitKind::usd_per_gb, "USD per GB").range({0, false}, {kInf, false})
        .by_default("`0`")
        .means("price of each GB of data leaving this region; charged for every run that fetches a workload's [data](#data-locality) that lives here, for every run that copies a [checkpoint](#checkpoints-that-change-region) written here to another region, and for the responses (`response_kb`) of every request served by an [inference service](#inference-services-kind-inference) whose pool is here"),
    key("pools.NAME.provider").shown("`provider`").table("pools-common")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("none")
        .valid("a name declared in `providers`; any text if none are declared")
        .means("the provider; descriptive"),
    key("pools.NAME.region").shown("`region`").table("pools-common")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("none")
        .valid("a name declared in `regions`; any text if none are declared")
        .means("the region; runs here of a workload whose [data](#data-locality) lives in another region fetch it first, and runs here that resume from a checkpoint written in another region copy it first (see [Checkpoints that change region](#checkpoints-that-change-region); a pool without a region never copies or sends one). Every pool in the placement list of a workload with `data` needs one"),
    key("pools.NAME.gpu").shown("`gpu`").table("pools-common")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("*required*, except with `catalog_row` (then the row's `gpu_model`)")
        .valid("any text, e.g. `H100`")
        .means("the GPU model; descriptive (use `speed` for performance, `gpu_memory_gb` for memory); given together with `catalog_row`, it wins"),
    key("pools.NAME.gpu_memory_gb").shown("`gpu_memory_gb`").table("pools-common")
        .type(KeyType::number, UnitKind::gpu_memory_gb, "GB per GPU").range({0, true}, {kInf, false})
        .by_default("with `catalog_row` the row's `gpu_memory_gb`, else none (undeclared: every job fits)")
        .means("memory of each GPU; see [GPU memory](#gpu-memory); given together with `catalog_row`, it wins"),
    key("pools.NAME.purchase").shown("`purchase`").table("pools-common")
        .type(KeyType::choice, UnitKind::none, "–")
        .choices(choice_words<PurchaseOption>())
        .by_default(as_code(choice_name(PoolSpec{}.purchase)))
        .means("purchase option; it decides which of the keys below the pool takes, see [Purchase option](#purchase-option)"),
    key("pools.NAME.speed").shown("`speed`").table("pools-common")
        .binds<&PoolSpec::speed>()
        .type(KeyType::number, UnitKind::factor, "– (ratio)").range({0, true}, {kInf, false})
        .by_default("`1`")
        .means("throughput relative to the reference GPU: computing time = work / speed; a request's service time = `service` / speed"),
    key("pools.NAME.gpus_per_node").shown("`gpus_per_node`").table("pools-common")
        .binds<&PoolSpec::gpus_per_node>()
        .type(KeyType::integer, UnitKind::count, "GPUs per node").range({1, false}, {1024, false})
        .by_default("none (a job never spans nodes)")
        .means("GPUs of one node; a job of more GPUs spans `ceil(gpus / gpus_per_node)` nodes, see [Nodes and interconnect](#nodes-and-interconnect)"),
    key("pools.NAME.interconnect").shown("`interconnect`").table("pools-common")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none")
        .valid("keys `latency` (duration `>= 0`, required) and `bandwidth_gbps` (Gbit/s `> 0`, required); needs `gpus_per_node`")
        .means("the network between the pool's nodes, over which jobs that span nodes all-reduce their gradients ([`sync`](#multi-node-jobs-sync))"),
    key("pools.NAME.provisioning_delay").shown("`provisioning_delay`").table("pools-common")
        .type(KeyType::distribution, UnitKind::duration, "s")
        .by_default("none (jobs start running at once)").applies(applies_to(runs_jobs))
        .valid("any [distribution](#distributions); not on `serverless` pools")
        .means("time from launch (GPUs taken from the quota) to running (billing starts); on a pool of an inference service, part of every replica's [cold start](#cold-start)"),
    key("pools.NAME.slowdown").shown("`slowdown`").table("pools-purchase")
        .type(KeyType::distribution, UnitKind::factor, "– (factor)")
        .by_default("none (every run at `speed`)").applies(applies_to(priced_per_hold))
        .valid("`on_demand`, `spot`, `marketplace`: a [distribution](#distributions) of plain numbers that cannot reach 0 (no fixed value `<= 0`, no `uniform` with `min` `<= 0`, no `exponential`, no `empirical` value `<= 0`), e.g. `1.25` or `{dist: uniform, min: 1.0, max: 1.8}`; see [Slowdown](#slowdown)")
        .means("factor drawn afresh for every run: the run computes at `speed / factor`, so for `work × factor / speed` seconds"),
    key("pools.NAME.price_usd_per_gpu_hour").shown("`price_usd_per_gpu_hour`").table("pools-purchase")
        .type(KeyType::number, UnitKind::usd_per_gpu_hour, "USD per GPU-hour").range({0, false}, {kInf, false})
        .by_default("*required* for `reserved`, and for `on_demand`, `spot`, `marketplace` without `catalog_row` (with it: the row's on-demand price, or for `spot` its spot price); optional with a `price_process` of `model: trace` (then the mean of the trace's prices); `serverless`: *required* unless the pool gives `price_usd_per_gpu_second` or a `catalog_row` (then the row's on-demand price)")
        .applies(applies_to(priced_per_gpu_hour))
        .means("`on_demand`, `spot`, `marketplace`: price of one GPU for one hour of a hold; with a `price_process`, the median level of a `mean_reverting` price, the mean (and median) of an `ornstein_uhlenbeck` price, and no part of the cost with a `trace` (see [Price process](#price-process)); `serverless`: price of one GPU for one hour of a replica's billed time (see [Serverless](#serverless)); `reserved`: the committed price, charged for every GPU of `count` for the whole window; given together with `catalog_row`, it wins"),
    key("pools.NAME.price_usd_per_gpu_second").shown("`price_usd_per_gpu_second`").table("pools-purchase")
        .type(KeyType::number, UnitKind::usd_per_gpu_second, "USD per GPU-second").range({0, false}, {kInf, false})
        .by_default("none").applies(applies_to(services_only))
        .valid("`serverless` only; not together with `price_usd_per_gpu_hour`")
        .means("the serverless price per GPU-second, as serverless providers publish it (× 3,600 = `price_usd_per_gpu_hour`); wins over a `catalog_row`'s price"),
    key("pools.NAME.catalog_row").shown("`catalog_row`").table("pools-purchase")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("none").applies(applies_to(uncommitted))
        .valid("`on_demand`, `spot`, `marketplace`, `serverless`: the `key` (`provider/instance_type/region`) of a row of the top-level `catalog`")
        .means("take `gpu`, `gpu_memory_gb` and `price_usd_per_gpu_hour` from this catalog row, each unless given in the pool; see [Price catalog](#price-catalog)"),
    key("pools.NAME.price_process").shown("`price_process`").table("pools-purchase")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none (the price stays `price_usd_per_gpu_hour`)")
        .applies(applies_to(priced_per_hold))
        .valid("`on_demand`, `spot`, `marketplace`: `model: trace` with keys `file`, `column`, `step`, `start`; `model: mean_reverting` with keys `volatility_per_sqrt_hour`, `reversion_per_hour`, `step`; or `model: ornstein_uhlenbeck` with keys `volatility_per_sqrt_hour`, `reversion_per_hour`; see [Price process](#price-process)")
        .means("the price per GPU-hour changes over time: every `step`, read from a repeating trace or a random log-price pulled back to `price_usd_per_gpu_hour`; or continuously, a random price pulled back to it; each hold pays the price over its run"),
    key("pools.NAME.billing_increment").shown("`billing_increment`").table("pools-purchase")
        .binds<&PoolSpec::billing_increment_s>()
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .by_default("`1s`").applies(applies_to(uncommitted))
        .means("`on_demand`, `spot`, `marketplace`, `serverless`: each hold's (for inference replicas: each replica lifetime's) billed time is rounded up to a multiple of this"),
    key("pools.NAME.billing_minimum").shown("`billing_minimum`").table("pools-purchase")
        .binds<&PoolSpec::billing_minimum_s>()
        .type(KeyType::duration, UnitKind::duration, "s").range({0, false}, {kInf, false})
        .by_default("`0`").applies(applies_to(uncommitted))
        .means("`on_demand`, `spot`, `marketplace`, `serverless`: each hold (replica lifetime) is billed at least this long"),
    key("pools.NAME.quota").shown("`quota`").table("pools-purchase")
        .type(KeyType::integer, UnitKind::count, "GPUs").range({0, false}, {1048575, false})
        .by_default("*required* for `on_demand`, `spot`, `marketplace`; optional for `serverless` (default: the sum over the inference services on the pool of `max_replicas × gpus`)")
        .valid("`0` holds nothing: the pool runs no job, so a sweep may include \"none of this pool\" (a workload needs another pool of its placement list; no inference service may run on it); a `serverless` pool's quota is at least 1")
        .applies(applies_to(uncommitted))
        .means("most GPUs the pool may hold at once (provisioning or running jobs, starting or warm replicas); with `availability`, at most this many of those the trace shows"),
    key("pools.NAME.bill_idle").shown("`bill_idle`").table("pools-purchase")
        .binds<&PoolSpec::bills_idle>()
        .type(KeyType::boolean, UnitKind::none, "–")
        .by_default("`true`").applies(applies_to(services_only))
        .valid("`serverless` only")
        .means("`true`: a replica is billed for its whole lifetime, idle keep-alive included; `false`: only for its cold start and the time it has requests in service; see [Billing](#billing)"),
    key("pools.NAME.cold_start").shown("`cold_start`").table("pools-purchase")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none (a replica is warm after the pool's `provisioning_delay`, if any)")
        .applies(applies_to(every_option))
        .valid("`on_demand`, `spot`, `marketplace`, `serverless`, `reserved`, `owned`: keys `container`, `weights_gb_per_s`, `snapshot_restore`; see [Cold start](#cold-start)")
        .means("how long a replica of an inference service takes to start"),
    key("pools.NAME.preemption").shown("`preemption`").table("pools-purchase")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("*required* for `spot` and `marketplace` without `availability`; optional with it")
        .applies(applies_to(is_preemptible))
        .valid("`spot`, `marketplace`: keys `time_to_preemption`, `max_runtime`, `zone_events`, `notice`; see [Preemption](#preemption-spot-marketplace)")
        .means("how the pool's instances are reclaimed (on a marketplace: node failures)"),
    key("pools.NAME.availability").shown("`availability`").table("pools-purchase")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none (the whole quota is always available)")
        .applies(applies_to(priced_per_hold))
        .valid("`on_demand`, `spot`, `marketplace`: keys `file`, `column`, `step`, `gpus_per_instance`, `start`, `after_end`; see [Availability trace](#availability-trace)")
        .means("capacity over time from a trace of available instances; when it falls, jobs are reclaimed"),
    key("pools.NAME.stockout").shown("`stockout`").table("pools-purchase")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none (no launch fails)").applies(applies_to(priced_per_hold))
        .valid("`on_demand`, `spot`, `marketplace`: keys `probability` (required), `retry_after`; see [Stockouts](#stockouts)")
        .means("a share of the launches that find free GPUs fail anyway (the provider has no capacity); the job fails over to the next pool of its placement list"),
    key("pools.NAME.count").shown("`count`").table("pools-purchase")
        .type(KeyType::integer, UnitKind::count, "GPUs").range({0, false}, {1048575, false})
        .by_default("*required* for `reserved`, `owned`").applies(applies_to(committed))
        .valid("`0` commits nothing: the pool runs no job and costs nothing, so a sweep of the count may start at 0 (a workload needs another pool of its placement list; no inference service may run on it)")
        .means("GPUs committed: the most the pool may hold at once, and the number charged for the whole window, used or not"),
    key("pools.NAME.capex_usd_per_gpu").shown("`capex_usd_per_gpu`").table("pools-purchase")
        .type(KeyType::number, UnitKind::usd_per_gpu, "USD per GPU").range({0, false}, {kInf, false})
        .by_default("*required* for `owned`").applies(applies_to(amortized))
        .means("purchase price of one GPU"),
    key("pools.NAME.amortize_years").shown("`amortize_years`").table("pools-purchase")
        .type(KeyType::number, UnitKind::years, "years").range({0, true}, {1000, false})
        .by_default("*required* for `owned`").applies(applies_to(amortized))
        .means("years over which the purchase price is spread (8,760 hours a year)"),
    key("pools.NAME.opex_usd_per_gpu_hour").shown("`opex_usd_per_gpu_hour`").table("pools-purchase")
        .type(KeyType::number, UnitKind::usd_per_gpu_hour, "USD per GPU-hour").range({0, false}, {kInf, false})
        .by_default("`0`").applies(applies_to(amortized))
        .means("`owned`: power and operations per GPU-hour, for every GPU of `count`"),
    key("pools.NAME.price_usd_per_gpu_second").shown("`price_usd_per_gpu_second`").table("serverless-pools")
        .type(KeyType::number, UnitKind::usd_per_gpu_second, "USD per GPU-second").range({0, false}, {kInf, false})
        .by_default("none").applies(applies_to(services_only))
        .valid("exactly one of this and `price_usd_per_gpu_hour` (or neither, with `catalog_row`)")
        .means("price of one GPU for one second of a replica's billed time"),
    key("pools.NAME.price_usd_per_gpu_hour").shown("`price_usd_per_gpu_hour`").table("serverless-pools")
        .type(KeyType::number, UnitKind::usd_per_gpu_hour, "USD per GPU-hour").range({0, false}, {kInf, false})
        .by_default("with `catalog_row`, the row's `on_demand_usd_per_gpu_hour`")
        .applies(applies_to(priced_per_gpu_hour))
        .valid("exactly one of this and `price_usd_per_gpu_second` (or neither, with `catalog_row`)")
        .means("the same price per GPU-hour"),
    key("pools.NAME.catalog_row").shown("`catalog_row`").table("serverless-pools")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("none").applies(applies_to(uncommitted))
        .valid("a row of the top-level `catalog`")
        .means("GPU model, memory and (unless a price key is given) the row's on-demand price; see [Price catalog](#price-catalog)"),
    key("pools.NAME.billing_increment").shown("`billing_increment`").table("serverless-pools")
        .binds<&PoolSpec::billing_increment_s>()
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .by_default("`1s`").applies(applies_to(uncommitted))
        .means("each replica lifetime's billed time is rounded up to a multiple of this"),
    key("pools.NAME.billing_minimum").shown("`billing_minimum`").table("serverless-pools")
        .binds<&PoolSpec::billing_minimum_s>()
        .type(KeyType::duration, UnitKind::duration, "s").range({0, false}, {kInf, false})
        .by_default("`0`").applies(applies_to(uncommitted))
        .means("each replica lifetime is billed at least this long"),
    key("pools.NAME.quota").shown("`quota`").table("serverless-pools")
        .type(KeyType::integer, UnitKind::count, "GPUs").range({0, false}, {1048575, false})
        .by_default("the sum, over the inference services on the pool, of `max_replicas × gpus`")
        .valid("at least 1 for a serverless pool")
        .applies(applies_to(uncommitted))
        .means("most GPUs its replicas (starting or warm) hold at once; the autoscaler starts no replica that does not fit"),
    key("pools.NAME.bill_idle").shown("`bill_idle`").table("serverless-pools")
        .binds<&PoolSpec::bills_idle>()
        .type(KeyType::boolean, UnitKind::none, "–")
        .by_default("`true`").applies(applies_to(services_only))
        .valid("`true`, `false` (and the other [boolean](#types) spellings)")
        .means("`true`: a replica is billed from its start to its stop, cold start, busy and idle keep-alive time alike; `false`: only its cold start and the time it has at least one request in service"),
    key("pools.NAME.cold_start").shown("`cold_start`").table("serverless-pools")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none").applies(applies_to(every_option))
        .valid("keys `container`, `weights_gb_per_s`, `snapshot_restore`; see [Cold start](#cold-start)")
        .means("how long a replica takes to start"),
    key("catalog").shown("`catalog` (top level)").table("price-catalog")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("none")
        .valid("a readable CSV file (see the columns below); a relative path is relative to the scenario file's directory (also through `--set`)")
        .means("the price catalog"),
    key("pools.NAME.catalog_row").shown("`pools.NAME.catalog_row`").table("price-catalog")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("none").applies(applies_to(uncommitted))
        .valid("`on_demand`, `spot`, `marketplace` and `serverless` pools only; the `key` of a row of `catalog` (exact, case-sensitive)")
        .means("the row the pool takes `gpu`, `gpu_memory_gb` and `price_usd_per_gpu_hour` from"),
    key("pools.NAME.price_process.model").shown("`price_process.model`").table("price-process")
        .type(KeyType::choice, UnitKind::none, "–")
        .choices(choice_words<CompiledPool::PriceModel>()).by_default("*required*")
        .means("how the price changes; decides which of the keys below the mapping takes (any other is an unknown key)"),
    key("pools.NAME.price_process.step").shown("`price_process.step`").table("price-process")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .by_default("*required* for `trace`, `mean_reverting`")
        .applies(CompiledPool::kTracePrice, CompiledPool::kMeanRevertingPrice)
        .valid("`trace`, `mean_reverting` only (an `ornstein_uhlenbeck` price changes continuously)")
        .means("time between price changes: each row of a trace holds for one step; a mean-reverting log-price is drawn anew every step"),
    key("pools.NAME.price_process.file").shown("`price_process.file`").table("price-process")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("*required* for `trace`").applies(CompiledPool::kTracePrice)
        .valid("`trace` only; a readable CSV file ([Data files](#data-files-csv-and-json)); relative paths are relative to the scenario file's directory")
        .means("the price trace, one row per step in file order (there is no time column; other columns are ignored)"),
    key("pools.NAME.price_process.column").shown("`price_process.column`").table("price-process")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("`price_usd_per_gpu_hour`").applies(CompiledPool::kTracePrice)
        .valid("`trace` only; a column of the file holding numbers `>= 0`, at least one row")
        .means("the price of each step, USD per GPU-hour"),
    key("pools.NAME.price_process.start").shown("`price_process.start`").table("price-process")
        .type(KeyType::trace_start, UnitKind::duration, "s")
        .by_default("`0`").applies(CompiledPool::kTracePrice)
        .valid("`trace` only; a duration `>= 0`, or exactly `random`")
        .means("trace time at t = 0 (the trace is entered that far in); `random`: uniform over the trace's period, drawn anew for each replication"),
    key("pools.NAME.price_process.volatility_per_sqrt_hour").shown("`price_process.volatility_per_sqrt_hour`").table("price-process")
        .type(KeyType::number, UnitKind::rate, "per √hour").range({0, false}, {kInf, false})
        .by_default("*required* for `mean_reverting`, `ornstein_uhlenbeck`")
        .applies(CompiledPool::kMeanRevertingPrice, CompiledPool::kOrnsteinUhlenbeckPrice)
        .valid("`mean_reverting`, `ornstein_uhlenbeck` only; `ornstein_uhlenbeck`: at most `0.25 × √(2 × reversion_per_hour)`")
        .means("σ: `mean_reverting`, the volatility of the log-price; `ornstein_uhlenbeck`, the price's volatility as a fraction of its level"),
    key("pools.NAME.price_process.reversion_per_hour").shown("`price_process.reversion_per_hour`").table("price-process")
        .type(KeyType::number, UnitKind::rate, "per hour").range({0, true}, {kInf, false})
        .by_default("*required* for `mean_reverting`, `ornstein_uhlenbeck`")
        .applies(CompiledPool::kMeanRevertingPrice, CompiledPool::kOrnsteinUhlenbeckPrice)
        .valid("`mean_reverting`, `ornstein_uhlenbeck` only")
        .means("θ, the rate at which the log-price is pulled back to 0 (`mean_reverting`), or the price to its level (`ornstein_uhlenbeck`)"),
    key("pools.NAME.preemption.time_to_preemption").shown("`preemption.time_to_preemption`").table("preemption")
        .type(KeyType::distribution, UnitKind::duration, "s")
        .by_default("none (no random reclaims)").applies(applies_to(is_preemptible))
        .valid("any [distribution](#distributions); this, `max_runtime` or `zone_events` (or several) is required")
        .means("running time after which an instance is reclaimed; drawn afresh for every run"),
    key("pools.NAME.preemption.max_runtime").shown("`preemption.max_runtime`").table("preemption")
        .binds<&PoolSpec::max_runtime_s>()
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .by_default("none (no limit)").applies(applies_to(is_preemptible))
        .valid("this, `time_to_preemption` or `zone_events` (or several) is required")
        .means("an instance is reclaimed at the latest after running this long"),
    key("pools.NAME.preemption.zone_events").shown("`preemption.zone_events`").table("preemption")
        .type(KeyType::distribution, UnitKind::duration, "s")
        .by_default("none (no zone-wide events)").applies(applies_to(is_preemptible))
        .valid("any [distribution](#distributions) with a mean `> 0`; this, `time_to_preemption` or `max_runtime` (or several) is required")
        .means("time between two zone-wide events, each of which reclaims every job of the pool at once; see [Zone-wide events](#zone-wide-events)"),
    key("pools.NAME.preemption.notice").shown("`preemption.notice`").table("preemption")
        .binds<&PoolSpec::notice_s>()
        .type(KeyType::duration, UnitKind::duration, "s").range({0, false}, {kInf, false})
        .by_default("`0` (no warning)").applies(applies_to(is_preemptible))
        .means("warning before the reclaim (also before a zone-wide event); a long enough notice lets a checkpointing job write an emergency checkpoint"),
    key("pools.NAME.availability.file").shown("`availability.file`").table("availability")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("*required*").applies(applies_to(priced_per_hold))
        .valid("a readable trace file; relative paths are relative to the scenario file's directory. A name ending in `.json` (lower case) is read as JSON, any other as CSV")
        .means("the trace (formats below)"),
    key("pools.NAME.availability.column").shown("`availability.column`").table("availability")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("`available`").applies(applies_to(priced_per_hold))
        .valid("CSV only (rejected for JSON); a column of the file holding numbers `>= 0`")
        .means("instances available at each step"),
    key("pools.NAME.availability.step").shown("`availability.step`").table("availability")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .by_default("*required* for CSV").applies(applies_to(priced_per_hold))
        .valid("CSV only (rejected for JSON)")
        .means("time between two rows of the CSV trace"),
    key("pools.NAME.availability.gpus_per_instance").shown("`availability.gpus_per_instance`").table("availability")
        .type(KeyType::integer, UnitKind::count, "GPUs per instance").range({1, false}, {1024, false})
        .by_default("`1`").applies(applies_to(priced_per_hold))
        .means("GPUs that one available instance contributes"),
    key("pools.NAME.availability.start").shown("`availability.start`").table("availability")
        .type(KeyType::trace_start, UnitKind::duration, "s")
        .by_default("`0`").applies(applies_to(priced_per_hold))
        .valid("a duration `>= 0`, or exactly `random`")
        .means("trace time at t = 0 (the trace is entered that far in); `random`: uniform over the trace's period, drawn anew for each replication"),
    key("pools.NAME.availability.after_end").shown("`availability.after_end`").table("availability")
        .type(KeyType::choice, UnitKind::none, "–")
        .choices(choice_words<TraceEnd>())
        .by_default(as_code(choice_name(PoolSpec{}.availability_after_end)))
        .applies(applies_to(priced_per_hold))
        .means("what the trace shows after its last row: itself again from the first row (`repeat`), no instance (`unavailable`), or its last row for ever (`last`)"),
    key("pools.NAME.stockout.probability").shown("`stockout.probability`").table("stockout")
        .binds<&PoolSpec::stockout_probability>()
        .type(KeyType::number, UnitKind::probability, "– (probability)").range({0, false}, {1, true})
        .required("the share of launches that fail, 0 to 1").applies(applies_to(priced_per_hold))
        .valid("1 is rejected: a pool that never launches would stall its jobs; use a smaller probability or remove the pool")
        .means("probability that a launch tried in the pool fails although the pool has the free GPUs; `0` is the same as no `stockout`"),
    key("pools.NAME.stockout.retry_after").shown("`stockout.retry_after`").table("stockout")
        .binds<&PoolSpec::stockout_retry_s>()
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .by_default("`300` (5 min)").applies(applies_to(priced_per_hold))
        .means("back-off: waiting jobs are dispatched again this long after a failed launch"),
    key("pools.NAME.slowdown").shown("`slowdown`").table("slowdown")
        .type(KeyType::distribution, UnitKind::factor, "– (factor)")
        .by_default("none (every run computes at `speed`)").applies(applies_to(priced_per_hold))
        .valid("a [distribution](#distributions) of plain numbers whose every draw is `> 0` (see below), e.g. `1.25` (fixed) or `{dist: uniform, min: 1.0, max: 1.8}`; not on `reserved`, `owned` pools")
        .means("the run's slowdown factor: the run computes at `speed / factor`"),
    key("pools.NAME.cold_start.container").shown("`cold_start.container`").table("cold-start")
        .type(KeyType::distribution, UnitKind::duration, "s")
        .by_default("none (0 s)").applies(applies_to(every_option))
        .valid("any [distribution](#distributions); not with `snapshot_restore`")
        .means("time to start the container (runtime, model server), drawn afresh for every cold start"),
    key("pools.NAME.cold_start.weights_gb_per_s").shown("`cold_start.weights_gb_per_s`").table("cold-start")
        .binds<&PoolSpec::weights_gb_per_s>()
        .type(KeyType::number, UnitKind::throughput_gb_per_s, "GB/s").range({0, true}, {kInf, false})
        .by_default("none (the weights load in 0 s)").applies(applies_to(every_option))
        .valid("not with `snapshot_restore`")
        .means("bandwidth at which a replica loads its service's `model_gb` of weights"),
    key("pools.NAME.cold_start.snapshot_restore").shown("`cold_start.snapshot_restore`").table("cold-start")
        .binds<&PoolSpec::snapshot_restore_s>()
        .type(KeyType::duration, UnitKind::duration, "s").range({0, false}, {kInf, false})
        .by_default("none").applies(applies_to(every_option))
        .valid("not with `container` or `weights_gb_per_s`")
        .means("time to restore a snapshot of a warm replica, instead of the container start and the weights load"),
    key("pools.NAME.gpus_per_node").shown("`gpus_per_node`").table("interconnect")
        .binds<&PoolSpec::gpus_per_node>()
        .type(KeyType::integer, UnitKind::count, "GPUs per node").range({1, false}, {1024, false})
        .by_default("none (a job never spans nodes)")
        .valid("any purchase option")
        .means("GPUs of one node"),
    key("pools.NAME.interconnect.latency").shown("`interconnect.latency`").table("interconnect")
        .binds<&PoolSpec::interconnect_latency_s>()
        .type(KeyType::duration, UnitKind::duration, "s").range({0, false}, {kInf, false})
        .required("one-way latency between nodes")
        .means("one-way latency of a message between two nodes"),
    key("pools.NAME.interconnect.bandwidth_gbps").shown("`interconnect.bandwidth_gbps`").table("interconnect")
        .binds<&PoolSpec::interconnect_gbps>()
        .type(KeyType::number, UnitKind::bandwidth_gbps, "Gbit/s").range({0, true}, {kInf, false})
        .required("bandwidth between nodes, Gbit/s")
        .means("bandwidth between two nodes, in gigabits per second"),
  };
}
// clang-format on

}  // namespace gpucap::key_rows
