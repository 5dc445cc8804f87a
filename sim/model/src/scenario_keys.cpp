// gpucap: the table of scenario keys (see scenario_keys.hpp) and what is generated from it.
//
// The rows follow docs/scenario-format.md, whose key tables are written from them
// (tests/unit/generated_docs_test.cpp fails when they differ). Ranges here are the key's own;
// every number also stays within the ceiling of its unit kind (unit_ceiling below), which is
// what keeps every sum, product and loop of a run finite.
#include "gpucap/scenario_keys.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "gpucap/choices.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/purchase_options.hpp"
#include "gpucap/scenario.hpp"

namespace gpucap {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The purchase options a pool key applies to, by their properties (purchase_options.hpp).
bool every_option(const PurchaseOptionInfo&) { return true; }
bool priced_per_hold(const PurchaseOptionInfo& o) { return o.price == PriceRule::per_hold; }
bool priced_per_gpu_hour(const PurchaseOptionInfo& o) { return o.price != PriceRule::amortized; }
bool uncommitted(const PurchaseOptionInfo& o) { return !o.committed; }
bool committed(const PurchaseOptionInfo& o) { return o.committed; }
bool amortized(const PurchaseOptionInfo& o) { return o.price == PriceRule::amortized; }
bool runs_jobs(const PurchaseOptionInfo& o) { return !o.services_only; }
bool services_only(const PurchaseOptionInfo& o) { return o.services_only; }
bool preemptible(const PurchaseOptionInfo& o) { return o.preemptible; }

/// The discriminator of a pool: the key that names its purchase option.
constexpr const char* kPurchaseKey = "purchase";

/// A pool key's `applies`: "purchase: " and the options for which `which` holds, in the
/// table's order; kept for the program's life (called while kKeys is built).
const char* applies_to(bool (*which)(const PurchaseOptionInfo&)) {
  static std::deque<std::string> texts;
  std::string names;
  for (const PurchaseOptionInfo& o : purchase_options())
    if (which(o)) names += (names.empty() ? "" : ", ") + std::string(o.name);
  texts.push_back(std::string(kPurchaseKey) + ": " + names);
  return texts.back().c_str();
}

/// "`word`", kept for the program's life: the default of a choice key as the docs write it,
/// taken from the default of the field it fills (called while kKeys is built).
const char* as_code(const char* word) {
  static std::deque<std::string> texts;
  texts.push_back(std::string("`") + word + "`");
  return texts.back().c_str();
}

// clang-format off
const std::vector<ScenarioKey> kKeys = {
    {"name", "`name`", "top-level",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "*required*", "",
     "any text",
     "short title; stored in the results file (`scenario_name`)"},
    {"description", "`description`", "top-level",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "`\"\"`", "",
     "any text",
     "free description; not used by the simulation"},
    {"horizon", "`horizon`", "top-level",
     KeyType::duration, UnitKind::duration, "s", {0, true}, {kMaxHorizonS, false},
     "", "*required*", "",
     "",
     "simulated time of each replication, from t = 0; arrivals stop and the run ends here. Times are doubles in seconds: at 1000 years they still resolve 4 microseconds, so ties between events stay real ties"},
    {"warmup", "`warmup`", "top-level",
     KeyType::duration, UnitKind::duration, "s", {0, false}, {kInf, false},
     "", "`0`", "",
     "`<` `horizon`",
     "start of the statistics window `[warmup, horizon]`; see [Warm-up](#warm-up-and-the-statistics-window)"},
    {"seed", "`seed`", "top-level",
     KeyType::integer, UnitKind::none, "–", {0, false}, {18446744073709551615.0, false},
     "", "`1`", "",
     "plain digits; anything larger, negative or in another form is an error (never clamped or wrapped)",
     "random seed; `gpucap run --seed S` overrides it"},
    {"replications", "`replications`", "top-level",
     KeyType::integer, UnitKind::count, "replications", {1, false}, {1000000000, false},
     "", "`1000`", "",
     "",
     "number of independent replications; `gpucap run -r N` overrides it"},
    {"catalog", "`catalog`", "top-level",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none", "",
     "a readable CSV file laid out like `data/gpu_prices.csv` (at least the columns `key`, `gpu_model`, `gpu_memory_gb`, `on_demand_usd_per_gpu_hour`, `spot_usd_per_gpu_hour`); relative paths are relative to the scenario file's directory",
     "price catalog from which `on_demand`, `spot`, `marketplace` and `serverless` pools take GPU model, memory and price with `catalog_row`; see [Price catalog](#price-catalog)"},
    {"providers", "`providers`", "top-level",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none", "",
     "see [`providers`](#providers)",
     "cloud providers, by name"},
    {"regions", "`regions`", "top-level",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none", "",
     "see [`regions`](#regions)",
     "regions, by name, with the latency, bandwidth and egress price of the network between them"},
    {"pools", "`pools`", "top-level",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "*required*", "",
     "non-empty; see [`pools`](#pools)",
     "the capacity: pool name → pool"},
    {"workloads", "`workloads`", "top-level",
     KeyType::list, UnitKind::none, "–", {1, false}, {65535, false},
     "", "*required*", "",
     "job classes and inference services together; see [`workloads`](#workloads)",
     "the demand: job classes and [inference services](#inference-services-kind-inference)"},
    {"policy", "`policy`", "top-level",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "see [`policy`](#policy)", "",
     "see [`policy`](#policy)",
     "queue discipline, backfill, waiting room"},
    {"timeseries", "`timeseries`", "top-level",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none", "",
     "`{step: DURATION}`, at most 100,000 bins over the horizon; see `timeseries.step`",
     "also record, per replication and pool, the mean number of GPUs in use in each bin of `step` over `[0, horizon]` (warm-up included; the last bin ends at the horizon). \"In use\" is what `gpu_hours_used` counts: jobs' runs and replicas' busy periods. Stored as `/timeseries/gpus_in_use` in results files, `Results.timeseries` in Python, plotted by `gpucap.plot.utilization`. A sweep may not change the bins (`timeseries.step` or `horizon`)"},
    {"records", "`records`", "top-level",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none", "",
     "`{jobs: N}`; see `records.jobs`",
     "also keep a record of every job of the first replications, for debugging a surprising run: its arrival, first launch, completion, pool, runs, preemptions, wait and cost. Stored as the `/jobs` table of results files, `Results.jobs` in Python; printed nowhere. Made after the run by simulating those replications again on the host (the same bits on every backend; the run itself is not slowed)"},
    {"goals", "`goals`", "top-level",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none", "",
     "at most 64 goals; see [Goals](#goals)",
     "indicator metrics evaluated on each replication (a goal is met when all its conditions hold); reported with exact intervals for their probability and used by chance constraints (`--chance NAME>=LEVEL`)"},
    {"providers.NAME.kind", "`providers.NAME.kind`", "providers",
     KeyType::choice, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     choice_words<ProviderKind>(), as_code(choice_name(ProviderSpec{}.kind)), "",
     "",
     "kind of provider"},
    {"regions.NAME.latency_ms", "`regions.NAME.latency_ms`", "regions",
     KeyType::number_map, UnitKind::latency_ms, "ms", {0, false}, {kInf, false},
     "", "none", "",
     "keys: declared region names",
     "one-way network latency between this region and others, in milliseconds; added once to every data transfer and every [checkpoint copy](#checkpoints-that-change-region) on that link; twice that is the round trip of every request of an [inference service](#inference-services-kind-inference) whose `users_region` is at one end and whose pool is at the other"},
    {"regions.NAME.bandwidth_gbps", "`regions.NAME.bandwidth_gbps`", "regions",
     KeyType::number_map, UnitKind::bandwidth_gbps, "Gbit/s", {0, true}, {kInf, false},
     "", "none", "",
     "keys: declared region names",
     "transfer bandwidth between this region and others, in gigabits per second; a workload's [data](#data-locality) can be fetched, and a [checkpoint](#checkpoints-that-change-region) copied, only over a link with a bandwidth"},
    {"regions.NAME.egress_usd_per_gb", "`regions.NAME.egress_usd_per_gb`", "regions",
     KeyType::number, UnitKind::usd_per_gb, "USD per GB", {0, false}, {kInf, false},
     "", "`0`", "",
     "",
     "price of each GB of data leaving this region; charged for every run that fetches a workload's [data](#data-locality) that lives here, for every run that copies a [checkpoint](#checkpoints-that-change-region) written here to another region, and for the responses (`response_kb`) of every request served by an [inference service](#inference-services-kind-inference) whose pool is here"},
    {"pools.NAME.provider", "`provider`", "pools-common",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none", "",
     "a name declared in `providers`; any text if none are declared",
     "the provider; descriptive"},
    {"pools.NAME.region", "`region`", "pools-common",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none", "",
     "a name declared in `regions`; any text if none are declared",
     "the region; runs here of a workload whose [data](#data-locality) lives in another region fetch it first, and runs here that resume from a checkpoint written in another region copy it first (see [Checkpoints that change region](#checkpoints-that-change-region); a pool without a region never copies or sends one). Every pool in the placement list of a workload with `data` needs one"},
    {"pools.NAME.gpu", "`gpu`", "pools-common",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "*required*, except with `catalog_row` (then the row's `gpu_model`)", "",
     "any text, e.g. `H100`",
     "the GPU model; descriptive (use `speed` for performance, `gpu_memory_gb` for memory); given together with `catalog_row`, it wins"},
    {"pools.NAME.gpu_memory_gb", "`gpu_memory_gb`", "pools-common",
     KeyType::number, UnitKind::gpu_memory_gb, "GB per GPU", {0, true}, {kInf, false},
     "", "with `catalog_row` the row's `gpu_memory_gb`, else none (undeclared: every job fits)", "",
     "",
     "memory of each GPU; see [GPU memory](#gpu-memory); given together with `catalog_row`, it wins"},
    {"pools.NAME.purchase", "`purchase`", "pools-common",
     KeyType::choice, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     choice_words<PurchaseOption>(), as_code(choice_name(PoolSpec{}.purchase)), "",
     "",
     "purchase option; it decides which of the keys below the pool takes, see [Purchase option](#purchase-option)"},
    {"pools.NAME.speed", "`speed`", "pools-common",
     KeyType::number, UnitKind::factor, "– (ratio)", {0, true}, {kInf, false},
     "", "`1`", "",
     "",
     "throughput relative to the reference GPU: computing time = work / speed; a request's service time = `service` / speed"},
    {"pools.NAME.gpus_per_node", "`gpus_per_node`", "pools-common",
     KeyType::integer, UnitKind::count, "GPUs per node", {1, false}, {1024, false},
     "", "none (a job never spans nodes)", "",
     "",
     "GPUs of one node; a job of more GPUs spans `ceil(gpus / gpus_per_node)` nodes, see [Nodes and interconnect](#nodes-and-interconnect)"},
    {"pools.NAME.interconnect", "`interconnect`", "pools-common",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none", "",
     "keys `latency` (duration `>= 0`, required) and `bandwidth_gbps` (Gbit/s `> 0`, required); needs `gpus_per_node`",
     "the network between the pool's nodes, over which jobs that span nodes all-reduce their gradients ([`sync`](#multi-node-jobs-sync))"},
    {"pools.NAME.provisioning_delay", "`provisioning_delay`", "pools-common",
     KeyType::distribution, UnitKind::duration, "s", {-kInf, false}, {kInf, false},
     "", "none (jobs start running at once)", applies_to(runs_jobs),
     "any [distribution](#distributions); not on `serverless` pools",
     "time from launch (GPUs taken from the quota) to running (billing starts); on a pool of an inference service, part of every replica's [cold start](#cold-start)"},
    {"pools.NAME.slowdown", "`slowdown`", "pools-purchase",
     KeyType::distribution, UnitKind::factor, "– (factor)", {-kInf, false}, {kInf, false},
     "", "none (every run at `speed`)", applies_to(priced_per_hold),
     "`on_demand`, `spot`, `marketplace`: a [distribution](#distributions) of plain numbers that cannot reach 0 (no fixed value `<= 0`, no `uniform` with `min` `<= 0`, no `exponential`, no `empirical` value `<= 0`), e.g. `1.25` or `{dist: uniform, min: 1.0, max: 1.8}`; see [Slowdown](#slowdown)",
     "factor drawn afresh for every run: the run computes at `speed / factor`, so for `work × factor / speed` seconds"},
    {"pools.NAME.price_usd_per_gpu_hour", "`price_usd_per_gpu_hour`", "pools-purchase",
     KeyType::number, UnitKind::usd_per_gpu_hour, "USD per GPU-hour", {0, false}, {kInf, false},
     "", "*required* for `reserved`, and for `on_demand`, `spot`, `marketplace` without `catalog_row` (with it: the row's on-demand price, or for `spot` its spot price); optional with a `price_process` of `model: trace` (then the mean of the trace's prices); `serverless`: *required* unless the pool gives `price_usd_per_gpu_second` or a `catalog_row` (then the row's on-demand price)", applies_to(priced_per_gpu_hour),
     "",
     "`on_demand`, `spot`, `marketplace`: price of one GPU for one hour of a hold; with a `price_process`, the median level of a `mean_reverting` price, the mean (and median) of an `ornstein_uhlenbeck` price, and no part of the cost with a `trace` (see [Price process](#price-process)); `serverless`: price of one GPU for one hour of a replica's billed time (see [Serverless](#serverless)); `reserved`: the committed price, charged for every GPU of `count` for the whole window; given together with `catalog_row`, it wins"},
    {"pools.NAME.price_usd_per_gpu_second", "`price_usd_per_gpu_second`", "pools-purchase",
     KeyType::number, UnitKind::usd_per_gpu_second, "USD per GPU-second", {0, false}, {kInf, false},
     "", "none", applies_to(services_only),
     "`serverless` only; not together with `price_usd_per_gpu_hour`",
     "the serverless price per GPU-second, as serverless providers publish it (× 3,600 = `price_usd_per_gpu_hour`); wins over a `catalog_row`'s price"},
    {"pools.NAME.catalog_row", "`catalog_row`", "pools-purchase",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none", applies_to(uncommitted),
     "`on_demand`, `spot`, `marketplace`, `serverless`: the `key` (`provider/instance_type/region`) of a row of the top-level `catalog`",
     "take `gpu`, `gpu_memory_gb` and `price_usd_per_gpu_hour` from this catalog row, each unless given in the pool; see [Price catalog](#price-catalog)"},
    {"pools.NAME.price_process", "`price_process`", "pools-purchase",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none (the price stays `price_usd_per_gpu_hour`)", applies_to(priced_per_hold),
     "`on_demand`, `spot`, `marketplace`: `model: trace` with keys `file`, `column`, `step`, `start`; `model: mean_reverting` with keys `volatility_per_sqrt_hour`, `reversion_per_hour`, `step`; or `model: ornstein_uhlenbeck` with keys `volatility_per_sqrt_hour`, `reversion_per_hour`; see [Price process](#price-process)",
     "the price per GPU-hour changes over time: every `step`, read from a repeating trace or a random log-price pulled back to `price_usd_per_gpu_hour`; or continuously, a random price pulled back to it; each hold pays the price over its run"},
    {"pools.NAME.billing_increment", "`billing_increment`", "pools-purchase",
     KeyType::duration, UnitKind::duration, "s", {0, true}, {kInf, false},
     "", "`1s`", applies_to(uncommitted),
     "",
     "`on_demand`, `spot`, `marketplace`, `serverless`: each hold's (for inference replicas: each replica lifetime's) billed time is rounded up to a multiple of this"},
    {"pools.NAME.billing_minimum", "`billing_minimum`", "pools-purchase",
     KeyType::duration, UnitKind::duration, "s", {0, false}, {kInf, false},
     "", "`0`", applies_to(uncommitted),
     "",
     "`on_demand`, `spot`, `marketplace`, `serverless`: each hold (replica lifetime) is billed at least this long"},
    {"pools.NAME.quota", "`quota`", "pools-purchase",
     KeyType::integer, UnitKind::count, "GPUs", {1, false}, {1048575, false},
     "", "*required* for `on_demand`, `spot`, `marketplace`; optional for `serverless` (default: the sum over the inference services on the pool of `max_replicas × gpus`)", applies_to(uncommitted),
     "",
     "most GPUs the pool may hold at once (provisioning or running jobs, starting or warm replicas); with `availability`, at most this many of those the trace shows"},
    {"pools.NAME.bill_idle", "`bill_idle`", "pools-purchase",
     KeyType::boolean, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "`true`", applies_to(services_only),
     "`serverless` only",
     "`true`: a replica is billed for its whole lifetime, idle keep-alive included; `false`: only for its cold start and the time it has requests in service; see [Billing](#billing)"},
    {"pools.NAME.cold_start", "`cold_start`", "pools-purchase",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none (a replica is warm after the pool's `provisioning_delay`, if any)", applies_to(every_option),
     "`on_demand`, `spot`, `marketplace`, `serverless`, `reserved`, `owned`: keys `container`, `weights_gb_per_s`, `snapshot_restore`; see [Cold start](#cold-start)",
     "how long a replica of an inference service takes to start"},
    {"pools.NAME.preemption", "`preemption`", "pools-purchase",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "*required* for `spot` and `marketplace` without `availability`; optional with it", applies_to(preemptible),
     "`spot`, `marketplace`: keys `time_to_preemption`, `max_runtime`, `zone_events`, `notice`; see [Preemption](#preemption-spot-marketplace)",
     "how the pool's instances are reclaimed (on a marketplace: node failures)"},
    {"pools.NAME.availability", "`availability`", "pools-purchase",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none (the whole quota is always available)", applies_to(priced_per_hold),
     "`on_demand`, `spot`, `marketplace`: keys `file`, `column`, `step`, `gpus_per_instance`, `start`, `after_end`; see [Availability trace](#availability-trace)",
     "capacity over time from a trace of available instances; when it falls, jobs are reclaimed"},
    {"pools.NAME.stockout", "`stockout`", "pools-purchase",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none (no launch fails)", applies_to(priced_per_hold),
     "`on_demand`, `spot`, `marketplace`: keys `probability` (required), `retry_after`; see [Stockouts](#stockouts)",
     "a share of the launches that find free GPUs fail anyway (the provider has no capacity); the job fails over to the next pool of its placement list"},
    {"pools.NAME.count", "`count`", "pools-purchase",
     KeyType::integer, UnitKind::count, "GPUs", {1, false}, {1048575, false},
     "", "*required* for `reserved`, `owned`", applies_to(committed),
     "",
     "GPUs committed: the most the pool may hold at once, and the number charged for the whole window, used or not"},
    {"pools.NAME.capex_usd_per_gpu", "`capex_usd_per_gpu`", "pools-purchase",
     KeyType::number, UnitKind::usd_per_gpu, "USD per GPU", {0, false}, {kInf, false},
     "", "*required* for `owned`", applies_to(amortized),
     "",
     "purchase price of one GPU"},
    {"pools.NAME.amortize_years", "`amortize_years`", "pools-purchase",
     KeyType::number, UnitKind::years, "years", {0, true}, {1000, false},
     "", "*required* for `owned`", applies_to(amortized),
     "",
     "years over which the purchase price is spread (8,760 hours a year)"},
    {"pools.NAME.opex_usd_per_gpu_hour", "`opex_usd_per_gpu_hour`", "pools-purchase",
     KeyType::number, UnitKind::usd_per_gpu_hour, "USD per GPU-hour", {0, false}, {kInf, false},
     "", "`0`", applies_to(amortized),
     "",
     "`owned`: power and operations per GPU-hour, for every GPU of `count`"},
    {"pools.NAME.price_usd_per_gpu_second", "`price_usd_per_gpu_second`", "serverless-pools",
     KeyType::number, UnitKind::usd_per_gpu_second, "USD per GPU-second", {0, false}, {kInf, false},
     "", "none", applies_to(services_only),
     "exactly one of this and `price_usd_per_gpu_hour` (or neither, with `catalog_row`)",
     "price of one GPU for one second of a replica's billed time"},
    {"pools.NAME.price_usd_per_gpu_hour", "`price_usd_per_gpu_hour`", "serverless-pools",
     KeyType::number, UnitKind::usd_per_gpu_hour, "USD per GPU-hour", {0, false}, {kInf, false},
     "", "with `catalog_row`, the row's `on_demand_usd_per_gpu_hour`", applies_to(priced_per_gpu_hour),
     "exactly one of this and `price_usd_per_gpu_second` (or neither, with `catalog_row`)",
     "the same price per GPU-hour"},
    {"pools.NAME.catalog_row", "`catalog_row`", "serverless-pools",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none", applies_to(uncommitted),
     "a row of the top-level `catalog`",
     "GPU model, memory and (unless a price key is given) the row's on-demand price; see [Price catalog](#price-catalog)"},
    {"pools.NAME.billing_increment", "`billing_increment`", "serverless-pools",
     KeyType::duration, UnitKind::duration, "s", {0, true}, {kInf, false},
     "", "`1s`", applies_to(uncommitted),
     "",
     "each replica lifetime's billed time is rounded up to a multiple of this"},
    {"pools.NAME.billing_minimum", "`billing_minimum`", "serverless-pools",
     KeyType::duration, UnitKind::duration, "s", {0, false}, {kInf, false},
     "", "`0`", applies_to(uncommitted),
     "",
     "each replica lifetime is billed at least this long"},
    {"pools.NAME.quota", "`quota`", "serverless-pools",
     KeyType::integer, UnitKind::count, "GPUs", {1, false}, {1048575, false},
     "", "the sum, over the inference services on the pool, of `max_replicas × gpus`", applies_to(uncommitted),
     "",
     "most GPUs its replicas (starting or warm) hold at once; the autoscaler starts no replica that does not fit"},
    {"pools.NAME.bill_idle", "`bill_idle`", "serverless-pools",
     KeyType::boolean, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "`true`", applies_to(services_only),
     "`true`, `false` (and the other [boolean](#types) spellings)",
     "`true`: a replica is billed from its start to its stop, cold start, busy and idle keep-alive time alike; `false`: only its cold start and the time it has at least one request in service"},
    {"pools.NAME.cold_start", "`cold_start`", "serverless-pools",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none", applies_to(every_option),
     "keys `container`, `weights_gb_per_s`, `snapshot_restore`; see [Cold start](#cold-start)",
     "how long a replica takes to start"},
    {"catalog", "`catalog` (top level)", "price-catalog",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none", "",
     "a readable CSV file (see the columns below); a relative path is relative to the scenario file's directory (also through `--set`)",
     "the price catalog"},
    {"pools.NAME.catalog_row", "`pools.NAME.catalog_row`", "price-catalog",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none", applies_to(uncommitted),
     "`on_demand`, `spot`, `marketplace` and `serverless` pools only; the `key` of a row of `catalog` (exact, case-sensitive)",
     "the row the pool takes `gpu`, `gpu_memory_gb` and `price_usd_per_gpu_hour` from"},
    {"pools.NAME.price_process.model", "`price_process.model`", "price-process",
     KeyType::choice, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     choice_words<CompiledPool::PriceModel>(), "*required*", "",
     "",
     "how the price changes; decides which of the keys below the mapping takes (any other is an unknown key)"},
    {"pools.NAME.price_process.step", "`price_process.step`", "price-process",
     KeyType::duration, UnitKind::duration, "s", {0, true}, {kInf, false},
     "", "*required* for `trace`, `mean_reverting`", "model: trace, mean_reverting",
     "`trace`, `mean_reverting` only (an `ornstein_uhlenbeck` price changes continuously)",
     "time between price changes: each row of a trace holds for one step; a mean-reverting log-price is drawn anew every step"},
    {"pools.NAME.price_process.file", "`price_process.file`", "price-process",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "*required* for `trace`", "model: trace",
     "`trace` only; a readable CSV file ([Data files](#data-files-csv-and-json)); relative paths are relative to the scenario file's directory",
     "the price trace, one row per step in file order (there is no time column; other columns are ignored)"},
    {"pools.NAME.price_process.column", "`price_process.column`", "price-process",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "`price_usd_per_gpu_hour`", "model: trace",
     "`trace` only; a column of the file holding numbers `>= 0`, at least one row",
     "the price of each step, USD per GPU-hour"},
    {"pools.NAME.price_process.start", "`price_process.start`", "price-process",
     KeyType::trace_start, UnitKind::duration, "s", {-kInf, false}, {kInf, false},
     "", "`0`", "model: trace",
     "`trace` only; a duration `>= 0`, or exactly `random`",
     "trace time at t = 0 (the trace is entered that far in); `random`: uniform over the trace's period, drawn anew for each replication"},
    {"pools.NAME.price_process.volatility_per_sqrt_hour", "`price_process.volatility_per_sqrt_hour`", "price-process",
     KeyType::number, UnitKind::rate, "per √hour", {0, false}, {kInf, false},
     "", "*required* for `mean_reverting`, `ornstein_uhlenbeck`", "model: mean_reverting, ornstein_uhlenbeck",
     "`mean_reverting`, `ornstein_uhlenbeck` only; `ornstein_uhlenbeck`: at most `0.25 × √(2 × reversion_per_hour)`",
     "σ: `mean_reverting`, the volatility of the log-price; `ornstein_uhlenbeck`, the price's volatility as a fraction of its level"},
    {"pools.NAME.price_process.reversion_per_hour", "`price_process.reversion_per_hour`", "price-process",
     KeyType::number, UnitKind::rate, "per hour", {0, true}, {kInf, false},
     "", "*required* for `mean_reverting`, `ornstein_uhlenbeck`", "model: mean_reverting, ornstein_uhlenbeck",
     "`mean_reverting`, `ornstein_uhlenbeck` only",
     "θ, the rate at which the log-price is pulled back to 0 (`mean_reverting`), or the price to its level (`ornstein_uhlenbeck`)"},
    {"pools.NAME.preemption.time_to_preemption", "`preemption.time_to_preemption`", "preemption",
     KeyType::distribution, UnitKind::duration, "s", {-kInf, false}, {kInf, false},
     "", "none (no random reclaims)", applies_to(preemptible),
     "any [distribution](#distributions); this, `max_runtime` or `zone_events` (or several) is required",
     "running time after which an instance is reclaimed; drawn afresh for every run"},
    {"pools.NAME.preemption.max_runtime", "`preemption.max_runtime`", "preemption",
     KeyType::duration, UnitKind::duration, "s", {0, true}, {kInf, false},
     "", "none (no limit)", applies_to(preemptible),
     "this, `time_to_preemption` or `zone_events` (or several) is required",
     "an instance is reclaimed at the latest after running this long"},
    {"pools.NAME.preemption.zone_events", "`preemption.zone_events`", "preemption",
     KeyType::distribution, UnitKind::duration, "s", {-kInf, false}, {kInf, false},
     "", "none (no zone-wide events)", applies_to(preemptible),
     "any [distribution](#distributions) with a mean `> 0`; this, `time_to_preemption` or `max_runtime` (or several) is required",
     "time between two zone-wide events, each of which reclaims every job of the pool at once; see [Zone-wide events](#zone-wide-events)"},
    {"pools.NAME.preemption.notice", "`preemption.notice`", "preemption",
     KeyType::duration, UnitKind::duration, "s", {0, false}, {kInf, false},
     "", "`0` (no warning)", applies_to(preemptible),
     "",
     "warning before the reclaim (also before a zone-wide event); a long enough notice lets a checkpointing job write an emergency checkpoint"},
    {"pools.NAME.availability.file", "`availability.file`", "availability",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "*required*", applies_to(priced_per_hold),
     "a readable trace file; relative paths are relative to the scenario file's directory. A name ending in `.json` (lower case) is read as JSON, any other as CSV",
     "the trace (formats below)"},
    {"pools.NAME.availability.column", "`availability.column`", "availability",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "`available`", applies_to(priced_per_hold),
     "CSV only (rejected for JSON); a column of the file holding numbers `>= 0`",
     "instances available at each step"},
    {"pools.NAME.availability.step", "`availability.step`", "availability",
     KeyType::duration, UnitKind::duration, "s", {0, true}, {kInf, false},
     "", "*required* for CSV", applies_to(priced_per_hold),
     "CSV only (rejected for JSON)",
     "time between two rows of the CSV trace"},
    {"pools.NAME.availability.gpus_per_instance", "`availability.gpus_per_instance`", "availability",
     KeyType::integer, UnitKind::count, "GPUs per instance", {1, false}, {1024, false},
     "", "`1`", applies_to(priced_per_hold),
     "",
     "GPUs that one available instance contributes"},
    {"pools.NAME.availability.start", "`availability.start`", "availability",
     KeyType::trace_start, UnitKind::duration, "s", {-kInf, false}, {kInf, false},
     "", "`0`", applies_to(priced_per_hold),
     "a duration `>= 0`, or exactly `random`",
     "trace time at t = 0 (the trace is entered that far in); `random`: uniform over the trace's period, drawn anew for each replication"},
    {"pools.NAME.availability.after_end", "`availability.after_end`", "availability",
     KeyType::choice, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     choice_words<TraceEnd>(), as_code(choice_name(PoolSpec{}.availability_after_end)), applies_to(priced_per_hold),
     "",
     "what the trace shows after its last row: itself again from the first row (`repeat`), no instance (`unavailable`), or its last row for ever (`last`)"},
    {"pools.NAME.stockout.probability", "`stockout.probability`", "stockout",
     KeyType::number, UnitKind::probability, "– (probability)", {0, false}, {1, true},
     "", "*required*", applies_to(priced_per_hold),
     "1 is rejected: a pool that never launches would stall its jobs; use a smaller probability or remove the pool",
     "probability that a launch tried in the pool fails although the pool has the free GPUs; `0` is the same as no `stockout`"},
    {"pools.NAME.stockout.retry_after", "`stockout.retry_after`", "stockout",
     KeyType::duration, UnitKind::duration, "s", {0, true}, {kInf, false},
     "", "`300` (5 min)", applies_to(priced_per_hold),
     "",
     "back-off: waiting jobs are dispatched again this long after a failed launch"},
    {"pools.NAME.slowdown", "`slowdown`", "slowdown",
     KeyType::distribution, UnitKind::factor, "– (factor)", {-kInf, false}, {kInf, false},
     "", "none (every run computes at `speed`)", applies_to(priced_per_hold),
     "a [distribution](#distributions) of plain numbers whose every draw is `> 0` (see below), e.g. `1.25` (fixed) or `{dist: uniform, min: 1.0, max: 1.8}`; not on `reserved`, `owned` pools",
     "the run's slowdown factor: the run computes at `speed / factor`"},
    {"pools.NAME.cold_start.container", "`cold_start.container`", "cold-start",
     KeyType::distribution, UnitKind::duration, "s", {-kInf, false}, {kInf, false},
     "", "none (0 s)", applies_to(every_option),
     "any [distribution](#distributions); not with `snapshot_restore`",
     "time to start the container (runtime, model server), drawn afresh for every cold start"},
    {"pools.NAME.cold_start.weights_gb_per_s", "`cold_start.weights_gb_per_s`", "cold-start",
     KeyType::number, UnitKind::throughput_gb_per_s, "GB/s", {0, true}, {kInf, false},
     "", "none (the weights load in 0 s)", applies_to(every_option),
     "not with `snapshot_restore`",
     "bandwidth at which a replica loads its service's `model_gb` of weights"},
    {"pools.NAME.cold_start.snapshot_restore", "`cold_start.snapshot_restore`", "cold-start",
     KeyType::duration, UnitKind::duration, "s", {0, false}, {kInf, false},
     "", "none", applies_to(every_option),
     "not with `container` or `weights_gb_per_s`",
     "time to restore a snapshot of a warm replica, instead of the container start and the weights load"},
    {"pools.NAME.gpus_per_node", "`gpus_per_node`", "interconnect",
     KeyType::integer, UnitKind::count, "GPUs per node", {1, false}, {1024, false},
     "", "none (a job never spans nodes)", "",
     "any purchase option",
     "GPUs of one node"},
    {"pools.NAME.interconnect.latency", "`interconnect.latency`", "interconnect",
     KeyType::duration, UnitKind::duration, "s", {0, false}, {kInf, false},
     "", "*required*", "",
     "",
     "one-way latency of a message between two nodes"},
    {"pools.NAME.interconnect.bandwidth_gbps", "`interconnect.bandwidth_gbps`", "interconnect",
     KeyType::number, UnitKind::bandwidth_gbps, "Gbit/s", {0, true}, {kInf, false},
     "", "*required*", "",
     "",
     "bandwidth between two nodes, in gigabits per second"},
    {"workloads[].name", "`name`", "workloads",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "*required*", "",
     "unique among workloads",
     "the class name; `--set` can address the item by it"},
    {"workloads[].kind", "`kind`", "workloads",
     KeyType::choice, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     choice_words<WorkloadKind>(), as_code(choice_name(JobClassSpec{}.kind)), "",
     "",
     "`training` and `batch` are descriptive labels that do not change the simulation; `inference` makes the item an [inference service](#inference-services-kind-inference), with other keys"},
    {"workloads[].gpus", "`gpus`", "workloads",
     KeyType::integer, UnitKind::count, "GPUs", {1, false}, {1048575, false},
     "", "`1`", "",
     "must fit some pool of `placement` whose memory fits",
     "gang size: every job needs this many GPUs, all in one pool, at once"},
    {"workloads[].priority", "`priority`", "workloads",
     KeyType::integer, UnitKind::none, "–", {-1000000, false}, {1000000, false},
     "", "`0`", "kind: training, batch",
     "",
     "under `policy.queue: priority`, larger runs first; ignored otherwise"},
    {"workloads[].work", "`work`", "workloads",
     KeyType::distribution, UnitKind::duration, "s", {-kInf, false}, {kInf, false},
     "", "*required*, except for trace arrivals (forbidden there)", "kind: training, batch",
     "any [distribution](#distributions)",
     "run time of one job on the reference GPU (speed 1), without checkpoints"},
    {"workloads[].arrivals", "`arrivals`", "workloads",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "*required*", "",
     "see [`arrivals`](#arrivals)",
     "when jobs of this class arrive"},
    {"workloads[].placement", "`placement`", "workloads",
     KeyType::text_list, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "every pool, in the order of `pools`, except `serverless` pools and pools that run an inference service", "kind: training, batch",
     "non-empty; declared pool names, each at most once; no `serverless` pool, no pool that runs an inference service",
     "pools the class may use, most preferred first"},
    {"workloads[].vram_gb", "`vram_gb`", "workloads",
     KeyType::number, UnitKind::gpu_memory_gb, "GB per GPU", {0, true}, {kInf, false},
     "", "none (fits every pool)", "",
     "at least one pool of `placement` must have that much memory (or undeclared memory)",
     "GPU memory each GPU of a job needs; see [GPU memory](#gpu-memory)"},
    {"workloads[].data", "`data`", "workloads",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none (runs fetch nothing)", "kind: training, batch",
     "keys `size_gb`, `region` (both required); see [Data locality](#data-locality)",
     "input data that lives in one region: every run in a pool of another region fetches it first, in billed GPU time, and pays its egress"},
    {"workloads[].checkpoint", "`checkpoint`", "workloads",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none (no checkpoints)", "kind: training, batch",
     "keys `interval`, `write`, `restart`, `size_gb`; see [Checkpointing](#checkpointing)",
     "how jobs save and restore their progress, and how large their checkpoints are when a job resumes in another region ([Checkpoints that change region](#checkpoints-that-change-region))"},
    {"workloads[].deadline", "`deadline`", "workloads",
     KeyType::duration, UnitKind::duration, "s", {0, true}, {kInf, false},
     "", "none", "kind: training, batch",
     "",
     "time from arrival by which a job should finish; see [Deadline](#deadline)"},
    {"workloads[].fallback", "`fallback`", "workloads",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none (preemptible pools are never avoided)", "kind: training, batch",
     "keys `after_preemptions`, `when_slack_below`, `return_to_preemptible`; see [Fallback](#fallback)",
     "when jobs stop using preemptible (`spot`, `marketplace`) pools"},
    {"workloads[].placement_limit", "`placement_limit`", "workloads",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none (no pool is limited)", "kind: training, batch",
     "keys `pool` and one of `jobs`, `share`; see [Placement limit](#placement-limit-k-on-demand-the-rest-spot)",
     "at most `jobs` jobs, or a `share` of the class's jobs, at once in one pool of its placement list (\"k on-demand, the rest spot\")"},
    {"workloads[].sync", "`sync`", "workloads",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none (no synchronization between nodes)", "kind: training, batch",
     "keys `step` (duration `> 0`) and `gradient_gb` (GB `>= 0`), both required; not with trace arrivals; see [Multi-node jobs](#multi-node-jobs-sync)",
     "data-parallel training: after every `step` of computing, a job that spans nodes all-reduces `gradient_gb` over the pool's interconnect, which slows it"},
    {"workloads[].data.size_gb", "`data.size_gb`", "data",
     KeyType::number, UnitKind::data_gb, "GB", {0, false}, {kInf, false},
     "", "*required*", "kind: training, batch",
     "",
     "size of the data each run fetches; `0` fetches nothing (and the pool checks below are skipped)"},
    {"workloads[].data.region", "`data.region`", "data",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "*required*", "kind: training, batch",
     "a region declared in [`regions`](#regions) (so a workload with `data` needs a `regions` section)",
     "the region where the data lives"},
    {"workloads[].checkpoint.interval", "`checkpoint.interval`", "checkpoint",
     KeyType::duration, UnitKind::duration, "s", {0, true}, {kInf, false},
     "", "none (no periodic checkpoints)", "kind: training, batch",
     "",
     "computing time between two periodic checkpoints (wall-clock time on the instance, not scaled by `speed` or [`slowdown`](#slowdown))"},
    {"workloads[].checkpoint.write", "`checkpoint.write`", "checkpoint",
     KeyType::duration, UnitKind::duration, "s", {0, false}, {kInf, false},
     "", "`0`", "kind: training, batch",
     "",
     "time to write one checkpoint; part of the run time (the GPUs stay held and the hold billed)"},
    {"workloads[].checkpoint.restart", "`checkpoint.restart`", "checkpoint",
     KeyType::duration, UnitKind::duration, "s", {0, false}, {kInf, false},
     "", "`0`", "kind: training, batch",
     "",
     "time to restore at the start of every run after the job's first preemption (after the run's [data transfer](#data-locality) and [checkpoint copy](#checkpoints-that-change-region), if any)"},
    {"workloads[].checkpoint.size_gb", "`checkpoint.size_gb`", "checkpoint",
     KeyType::number, UnitKind::data_gb, "GB", {0, false}, {kInf, false},
     "", "`0`", "kind: training, batch",
     "",
     "size of the job's checkpoint: a run that resumes after a preemption in a pool of another region than the pool where its last checkpoint was written first copies it over the link between the two regions (`latency_ms / 1000 + size_gb * 8 / bandwidth_gbps` seconds of billed GPU time, in `gpu_hours_transferring`) and pays `size_gb × egress_usd_per_gb` of the checkpoint's region; `0` copies nothing (and the link checks are skipped); see [Checkpoints that change region](#checkpoints-that-change-region)"},
    {"workloads[].fallback.after_preemptions", "`fallback.after_preemptions`", "fallback",
     KeyType::integer, UnitKind::count, "preemptions", {0, false}, {1000000, false},
     "", "none (never)", "kind: training, batch",
     "",
     "skip preemptible (`spot`, `marketplace`) pools once the job has been preempted this many times; `0` skips them always"},
    {"workloads[].fallback.when_slack_below", "`fallback.when_slack_below`", "fallback",
     KeyType::duration, UnitKind::duration, "s", {0, false}, {kInf, false},
     "", "none (never)", "kind: training, batch",
     "needs `deadline` on the workload",
     "skip preemptible pools when the job's slack is below this"},
    {"workloads[].fallback.return_to_preemptible", "`fallback.return_to_preemptible`", "fallback",
     KeyType::boolean, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "`false` (a job that fell back never uses preemptible pools again)", "kind: training, batch",
     "needs `after_preemptions`",
     "`true`: the fallback lasts one run: a job whose run began on a pool that is not preemptible because of `after_preemptions` tries the preemptible pools first again at its next launch (after that run is reclaimed); see [Fallback](#fallback)"},
    {"workloads[].placement_limit.pool", "`placement_limit.pool`", "placement-limit",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "*required*", "kind: training, batch",
     "a pool of the workload's `placement` list",
     "the pool whose jobs of this class are limited"},
    {"workloads[].placement_limit.jobs", "`placement_limit.jobs`", "placement-limit",
     KeyType::integer, UnitKind::count, "jobs", {1, false}, {1000000, false},
     "", "*required*, unless `share` is given (not both)", "kind: training, batch",
     "`jobs × gpus` at most the pool's `quota`",
     "most jobs of the class holding GPUs in the pool at once (provisioning or running); the others use the other pools of the placement list, in order, or wait"},
    {"workloads[].placement_limit.share", "`placement_limit.share`", "placement-limit",
     KeyType::number, UnitKind::probability, "–", {0, true}, {1, false},
     "", "none (the limit is `jobs`)", "kind: training, batch",
     "not with `jobs`",
     "most fraction of the class's jobs holding GPUs (in any pool) that may hold them in this pool: a job launches there only if afterwards the class's jobs there are at most `share` × its jobs holding GPUs rounded up, both counting the new job; see [Placement limit](#placement-limit-k-on-demand-the-rest-spot)"},
    {"workloads[].sync.step", "`sync.step`", "sync",
     KeyType::duration, UnitKind::duration, "s", {0, true}, {kInf, false},
     "", "*required*", "kind: training, batch",
     "",
     "computing time of one training step on the reference GPU (speed 1)"},
    {"workloads[].sync.gradient_gb", "`sync.gradient_gb`", "sync",
     KeyType::number, UnitKind::data_gb, "GB", {0, false}, {kInf, false},
     "", "*required*", "kind: training, batch",
     "",
     "gradients all-reduced between the nodes after every step"},
    {"workloads[].name", "`name`", "inference",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "*required*", "",
     "unique among workloads",
     "the service's name; `--set` can address the item by it"},
    {"workloads[].kind", "`kind`", "inference",
     KeyType::choice, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     choice_words<WorkloadKind>(), "–", "kind: inference",
     "",
     "makes the item a service"},
    {"workloads[].pool", "`pool`", "inference",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "*required*", "kind: inference",
     "a declared pool without `availability`, `zone_events`, `price_process` or `slowdown`; `stockout` only on a `spot` or `marketplace` pool",
     "the pool whose GPUs run the replicas; it then runs no jobs. On a `spot` or `marketplace` pool each replica lifetime is reclaimed by the pool's `time_to_preemption` / `max_runtime`, and its requests in service restart (see [Spot replicas and fallback](#spot-replicas-and-fallback))"},
    {"workloads[].fallback_pool", "`fallback_pool`", "inference",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none (replicas run in `pool` only)", "kind: inference",
     "a declared `on_demand`, `reserved` or `owned` pool other than `pool`, without `availability`, `stockout`, `zone_events`, `price_process` or `slowdown`, whose GPUs fit the replica (`gpus`, `vram_gb`); only when `pool` is `spot` or `marketplace`",
     "where a replica starts when `pool` has no free GPU (quota full) or its launch there stocks out, with that pool's cold start, price, round trip and egress; it then runs no jobs. Requests go to replicas in `pool` first, so fallback replicas idle and stop first (a windowed autoscaler stops idle fallback replicas first); a fallback replica is not moved back to `pool` when GPUs free up there"},
    {"workloads[].arrivals", "`arrivals`", "inference",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "*required*", "",
     "`poisson` or `nhpp` (rates in requests per s / min / hour / day), or `trace` without `gpus_column`; see [`arrivals`](#arrivals)",
     "when requests arrive"},
    {"workloads[].service", "`service`", "inference",
     KeyType::distribution, UnitKind::duration, "s", {-kInf, false}, {kInf, false},
     "", "*required*, except for trace arrivals (forbidden there)", "kind: inference",
     "any [distribution](#distributions)",
     "service time of one request on the reference GPU (speed 1); in the pool it takes `service / speed`"},
    {"workloads[].gpus", "`gpus`", "inference",
     KeyType::integer, UnitKind::count, "GPUs per replica", {1, false}, {1048575, false},
     "", "`1`", "",
     "at most the pool's `quota` or `count`",
     "GPUs each replica holds, from its start to its stop"},
    {"workloads[].vram_gb", "`vram_gb`", "inference",
     KeyType::number, UnitKind::gpu_memory_gb, "GB per GPU", {0, true}, {kInf, false},
     "", "none (fits every pool)", "",
     "at most the pool's `gpu_memory_gb` (when declared)",
     "GPU memory each GPU of a replica needs"},
    {"workloads[].model_gb", "`model_gb`", "inference",
     KeyType::number, UnitKind::data_gb, "GB", {0, false}, {kInf, false},
     "", "`0`", "kind: inference",
     "",
     "model weights that every cold start loads at the pool's `cold_start.weights_gb_per_s` (see [Cold start](#cold-start))"},
    {"workloads[].concurrency", "`concurrency`", "inference",
     KeyType::integer, UnitKind::count, "requests per replica", {1, false}, {4096, false},
     "", "`1`", "kind: inference",
     "",
     "requests one warm replica serves at once"},
    {"workloads[].replicas", "`replicas`", "inference",
     KeyType::integer, UnitKind::count, "replicas", {1, false}, {100000, false},
     "", "–", "kind: inference",
     "exactly one of `replicas` and `autoscaling`",
     "a fixed count: all warm from t = 0 and never stopped (the same as `autoscaling: {min_replicas: N, max_replicas: N}`)"},
    {"workloads[].autoscaling", "`autoscaling`", "",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none", "kind: inference",
     "keys `min_replicas`, `max_replicas`, `idle_timeout`, `target_concurrency`, and for the [windowed autoscaler](#windowed-autoscaler) `stable_window`, `panic_window`, `panic_threshold_percentage`, `scale_down_delay`, `tick`; exactly one of `replicas` and `autoscaling`",
     "replicas started and stopped with the load"},
    {"workloads[].autoscaling.min_replicas", "`autoscaling.min_replicas`", "inference",
     KeyType::integer, UnitKind::count, "replicas", {0, false}, {100000, false},
     "", "`0`", "kind: inference",
     "`<= max_replicas`",
     "replicas always up, warm from t = 0"},
    {"workloads[].autoscaling.max_replicas", "`autoscaling.max_replicas`", "inference",
     KeyType::integer, UnitKind::count, "replicas", {1, false}, {100000, false},
     "", "*required*", "kind: inference",
     "",
     "most replicas up (starting or warm) at once"},
    {"workloads[].autoscaling.idle_timeout", "`autoscaling.idle_timeout`", "inference",
     KeyType::duration, UnitKind::duration, "s", {0, true}, {kInf, false},
     "", "*required*, unless `min_replicas` = `max_replicas` (then none: replicas never stop)", "kind: inference",
     "not with `stable_window` (the windowed autoscaler stops replicas itself)",
     "a warm replica without requests for this long stops, while more than `min_replicas` are up"},
    {"workloads[].autoscaling.target_concurrency", "`autoscaling.target_concurrency`", "inference",
     KeyType::number, UnitKind::count, "requests per replica", {0, true}, {4096, false},
     "", "`concurrency`", "kind: inference",
     "`<= concurrency`",
     "the autoscaler's aim: requests in the system (in service and waiting) per replica up; below `concurrency` it starts replicas before the slots fill"},
    {"workloads[].autoscaling.stable_window", "`autoscaling.stable_window`", "inference",
     KeyType::duration, UnitKind::duration, "s", {0, true}, {86400, false},
     "", "none (the autoscaler reacts to every arrival)", "kind: inference",
     "a whole number of `tick`s, at most 1 day and 100,000 ticks",
     "turns on the [windowed autoscaler](#windowed-autoscaler): every `tick` it wants ceil(average requests in the system over this window / `target_concurrency`) replicas"},
    {"workloads[].autoscaling.panic_window", "`autoscaling.panic_window`", "inference",
     KeyType::duration, UnitKind::duration, "s", {0, true}, {86400, false},
     "", "`stable_window` / 10", "kind: inference",
     "a whole number of `tick`s, `<= stable_window`; only with `stable_window`",
     "the short window whose average puts the autoscaler in panic (see `panic_threshold_percentage`)"},
    {"workloads[].autoscaling.panic_threshold_percentage", "`autoscaling.panic_threshold_percentage`", "inference",
     KeyType::number, UnitKind::factor, "%", {110, false}, {1000, false},
     "", "`200`", "kind: inference",
     "only with `stable_window`",
     "panic when the replicas the panic window wants are at least this share of the warm replicas; in panic the autoscaler follows the panic window and does not scale down until a stable window has passed without that"},
    {"workloads[].autoscaling.scale_down_delay", "`autoscaling.scale_down_delay`", "inference",
     KeyType::duration, UnitKind::duration, "s", {0, false}, {3600, false},
     "", "`0s`", "kind: inference",
     "a whole number of `tick`s, at most 1 h and 100,000 ticks; only with `stable_window`",
     "a lower replica count is applied only once every tick of this long has wanted at most it; scale-ups are immediate"},
    {"workloads[].autoscaling.tick", "`autoscaling.tick`", "inference",
     KeyType::duration, UnitKind::duration, "s", {0, true}, {3600, false},
     "", "`2s`", "kind: inference",
     "only with `stable_window`",
     "how often the windowed autoscaler decides"},
    {"workloads[].users_region", "`users_region`", "inference",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none (round trip 0)", "kind: inference",
     "a declared region; the pool needs a `region`, and unless it is the same region, a `latency_ms` between the two (on either side)",
     "where the requests come from: every request's latency includes a round trip of 2 × the one-way latency (0 within one region)"},
    {"workloads[].slo", "`slo`", "",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none", "kind: inference",
     "key `latency`",
     "the latency objective of the service's requests"},
    {"workloads[].slo.latency", "`slo.latency`", "inference",
     KeyType::duration, UnitKind::duration, "s", {0, true}, {kInf, false},
     "", "none (no SLO)", "kind: inference",
     "",
     "latency bound of the service; see `slo_violation_share` in [Output metrics](#output-metrics)"},
    {"workloads[].queue_capacity", "`queue_capacity`", "inference",
     KeyType::integer, UnitKind::count, "requests", {0, false}, {1000000, false},
     "", "`1000`", "kind: inference",
     "",
     "waiting room: the most requests waiting at once; a request that would have to wait beyond it is dropped (`policy.queue_capacity` is for jobs only)"},
    {"workloads[].response_kb", "`response_kb`", "inference",
     KeyType::number, UnitKind::kilobytes, "KB per request", {0, false}, {kInf, false},
     "", "`0`", "kind: inference",
     "",
     "size of a response: each served request pays `response_kb / 10⁶ × egress_usd_per_gb` of the pool's region"},
    {"workloads[].arrivals.process", "`process`", "poisson",
     KeyType::choice, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     choice_words<ArrivalKind>(), "*required*", "process: poisson",
     "",
     "homogeneous Poisson process"},
    {"workloads[].arrivals.rate_per_s", "`rate_per_*`", "poisson",
     KeyType::number, UnitKind::rate, "jobs per s / min / hour / day", {0, true}, {kInf, false},
     "", "*required*, exactly one", "process: poisson",
     "",
     "arrival rate λ"},
    {"workloads[].arrivals.rate_per_min", "`rate_per_*`", "poisson",
     KeyType::number, UnitKind::rate, "jobs per s / min / hour / day", {0, true}, {kInf, false},
     "", "*required*, exactly one", "process: poisson",
     "",
     "arrival rate λ"},
    {"workloads[].arrivals.rate_per_hour", "`rate_per_*`", "poisson",
     KeyType::number, UnitKind::rate, "jobs per s / min / hour / day", {0, true}, {kInf, false},
     "", "*required*, exactly one", "process: poisson",
     "",
     "arrival rate λ"},
    {"workloads[].arrivals.rate_per_day", "`rate_per_*`", "poisson",
     KeyType::number, UnitKind::rate, "jobs per s / min / hour / day", {0, true}, {kInf, false},
     "", "*required*, exactly one", "process: poisson",
     "",
     "arrival rate λ"},
    {"workloads[].arrivals.process", "`process`", "nhpp",
     KeyType::choice, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     choice_words<ArrivalKind>(), "*required*", "process: nhpp",
     "",
     "non-homogeneous Poisson process"},
    {"workloads[].arrivals.rate_per_s", "`rate_per_*`", "nhpp",
     KeyType::number, UnitKind::rate, "jobs per s / min / hour / day", {0, true}, {kInf, false},
     "", "*required*, exactly one", "process: nhpp",
     "",
     "base rate, multiplied by the profile"},
    {"workloads[].arrivals.rate_per_min", "`rate_per_*`", "nhpp",
     KeyType::number, UnitKind::rate, "jobs per s / min / hour / day", {0, true}, {kInf, false},
     "", "*required*, exactly one", "process: nhpp",
     "",
     "base rate, multiplied by the profile"},
    {"workloads[].arrivals.rate_per_hour", "`rate_per_*`", "nhpp",
     KeyType::number, UnitKind::rate, "jobs per s / min / hour / day", {0, true}, {kInf, false},
     "", "*required*, exactly one", "process: nhpp",
     "",
     "base rate, multiplied by the profile"},
    {"workloads[].arrivals.rate_per_day", "`rate_per_*`", "nhpp",
     KeyType::number, UnitKind::rate, "jobs per s / min / hour / day", {0, true}, {kInf, false},
     "", "*required*, exactly one", "process: nhpp",
     "",
     "base rate, multiplied by the profile"},
    {"workloads[].arrivals.hourly_profile", "`hourly_profile`", "nhpp",
     KeyType::number_list, UnitKind::factor, "– (multipliers)", {0, false}, {kInf, false},
     "", "exactly one of the two profiles", "process: nhpp",
     "exactly 24 numbers `>= 0`, at least one `> 0`",
     "item *h* applies from *h*:00 to *h*+1:00; repeats every 24 h from t = 0"},
    {"workloads[].arrivals.weekly_profile", "`weekly_profile`", "nhpp",
     KeyType::number_list, UnitKind::factor, "– (multipliers)", {0, false}, {kInf, false},
     "", "exactly one of the two profiles", "process: nhpp",
     "exactly 168 numbers `>= 0`, at least one `> 0`",
     "item *k* applies to hour *k* of the week, Monday 00:00 first (t = 0 is Monday 00:00); repeats every 168 h"},
    {"workloads[].arrivals.process", "`process`", "trace",
     KeyType::choice, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     choice_words<ArrivalKind>(), "*required*", "process: trace",
     "",
     "trace replay"},
    {"workloads[].arrivals.file", "`file`", "trace",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "*required*", "process: trace",
     "a readable CSV file; relative paths are relative to the scenario file's directory",
     "the trace"},
    {"workloads[].arrivals.submit_column", "`submit_column`", "trace",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "`submit_s`", "process: trace",
     "a column of the file",
     "submit time since t = 0, in `time_unit`s; each value `>= 0`"},
    {"workloads[].arrivals.gpus_column", "`gpus_column`", "trace",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "`gpus`", "process: trace",
     "a column of the file",
     "GPUs of the job; each a whole number `>= 1`"},
    {"workloads[].arrivals.duration_column", "`duration_column`", "trace",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "`duration_s`", "process: trace",
     "a column of the file",
     "run time on the reference GPU (speed 1), in `time_unit`s; each `> 0`"},
    {"workloads[].arrivals.time_unit", "`time_unit`", "trace",
     KeyType::duration, UnitKind::duration, "s", {0, true}, {kInf, false},
     "", "`1s`", "process: trace",
     "",
     "the unit of the submit and duration columns, e.g. `1ms`, `1min`, `1h`"},
    {"workloads[].arrivals.start", "`start`", "trace",
     KeyType::duration, UnitKind::duration, "s", {0, false}, {kInf, false},
     "", "`0`", "process: trace",
     "not with `resample` (blocks start where the bootstrap draws them)",
     "trace time at t = 0: jobs submitted before it are not replayed, the others are replayed `start` earlier"},
    {"workloads[].arrivals.scale_rate", "`scale_rate`", "trace",
     KeyType::number, UnitKind::factor, "– (multiplier)", {0, true}, {16, false},
     "", "`1`", "process: trace",
     "above 1 only with `resample`",
     "multiplies the rate of arrivals: below 1, each job is replayed with this probability (thinning, drawn anew in each replication); above 1, ⌊f⌋ independent resamples of the trace are superposed, plus one more thinned to the fraction f − ⌊f⌋; see [Trace bootstrap](#trace-bootstrap)"},
    {"workloads[].arrivals.resample", "`resample`", "trace",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "none (the trace is replayed as it is, the same in every replication)", "process: trace",
     "keys `block`, `method`, `phase`, `period`; see [Trace bootstrap](#trace-bootstrap)",
     "a block bootstrap: each replication replays blocks of the trace drawn at random, so replications differ and intervals show how much the answer depends on the particular weeks logged"},
    {"workloads[].arrivals.resample.block", "`resample.block`", "trace-resample",
     KeyType::duration, UnitKind::duration, "s", {0, true}, {kInf, false},
     "", "*required*", "process: trace",
     "",
     "length of a block (`moving`), or its mean length (`stationary`); e.g. `1d`, `7d`"},
    {"workloads[].arrivals.resample.method", "`resample.method`", "trace-resample",
     KeyType::choice, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     choice_words<TraceResample>(), "`moving`", "process: trace",
     "",
     "`moving`: blocks of fixed length `block` (a circular moving-block bootstrap); `stationary`: lengths drawn from an exponential distribution with mean `block` (Politis and Romano's stationary bootstrap)"},
    {"workloads[].arrivals.resample.phase", "`resample.phase`", "trace-resample",
     KeyType::duration, UnitKind::duration, "s", {0, true}, {kInf, false},
     "", "`1d`", "process: trace",
     "`period` is a whole multiple of it",
     "the cycle a block keeps: a block replayed from t starts in the trace at t modulo `phase` plus a whole number of phases, so `1d` keeps the time of day and `7d` the day of the week"},
    {"workloads[].arrivals.resample.period", "`resample.period`", "trace-resample",
     KeyType::duration, UnitKind::duration, "s", {0, true}, {kInf, false},
     "", "the shortest whole number of `phase`s after the last submit time", "process: trace",
     "a whole multiple of `phase`, after the last submit time",
     "length of the trace as a loop: a block that runs past its end continues from its start"},
    {"policy.queue", "`queue`", "policy",
     KeyType::choice, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     choice_words<QueueDiscipline>(), as_code(choice_name(PolicySpec{}.discipline)), "",
     "",
     "order of the waiting queue"},
    {"policy.backfill", "`backfill`", "policy",
     KeyType::boolean, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "`false`", "",
     "`true`/`yes`/`on`, `false`/`no`/`off`",
     "let any waiting job that fits start, not only the head"},
    {"policy.queue_capacity", "`queue_capacity`", "policy",
     KeyType::integer, UnitKind::count, "jobs", {0, false}, {100000000, false},
     "", "`10000`", "",
     "",
     "waiting room: the most jobs waiting at once"},
    {"timeseries.step", "`timeseries.step`", "",
     KeyType::duration, UnitKind::duration, "s", {0, true}, {kInf, false},
     "", "*required*", "",
     "at most 100,000 bins over the horizon",
     "width of each bin of the per-pool series of GPUs in use"},
    {"records.jobs", "`records.jobs`", "",
     KeyType::integer, UnitKind::count, "replications", {0, false}, {1000000, false},
     "", "`0`", "",
     "at most the run's replications are recorded; the records of all points together may hold at most 10,000,000 jobs (a run that would need more is refused before recording)",
     "record every job of replications `first_replication` to `first_replication + N - 1` of each point (0: no records)"},
    {"goals.NAME.require", "`require`", "goals",
     KeyType::text_list, UnitKind::none, "–", {1, false}, {16, false},
     "", "*required*", "",
     "1 to 16 conditions `METRIC OP VALUE`: `METRIC` a scalar metric or `pools.POOL.METRIC`; `OP` `<=`, `<`, `>=`, `>`; `VALUE` a number (a duration such as `25d` for metrics in s), a metric, or `NUMBER * METRIC` of the same kind of unit",
     "conditions that must all hold in a replication for the goal to be met there; a condition on a metric that is undefined in the replication (NaN) does not hold"},
    {"goals.NAME.target", "`target`", "goals",
     KeyType::number, UnitKind::probability, "probability", {0, true}, {1, true},
     "", "none", "",
     "",
     "the probability of meeting the goal that is wanted; `gpucap run` says whether the 95% exact interval of the estimate lies above it, below it, or cannot tell, and `--chance NAME` uses it as the level"},
    {"goals.NAME.description", "`description`", "goals",
     KeyType::text, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "`\"\"`", "",
     "any text",
     "what the goal means, for reports"},
    {"goals.NAME", "`goals.NAME`", "",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "", "",
     "",
     "a goal: a name (a letter, then letters, digits and `_`) and its conditions"},
    {"pools.NAME", "`pools.NAME`", "",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "", "",
     "",
     "a pool of GPUs of one model, price and purchase option"},
    {"providers.NAME", "`providers.NAME`", "",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "", "",
     "",
     "a cloud provider"},
    {"regions.NAME", "`regions.NAME`", "",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "", "",
     "",
     "a region and its network links"},
    {"workloads[]", "`workloads[]`", "",
     KeyType::mapping, UnitKind::none, "–", {-kInf, false}, {kInf, false},
     "", "", "",
     "",
     "a job class (`kind: training` or `batch`) or an inference service (`kind: inference`)"},
};

/// Parameters of each distribution kind. Time-like ones take the unit of the key (durations
/// for times, plain numbers for `slowdown`); shapes are plain numbers where the samplers stay
/// exact and finite: a coefficient of variation or a lognormal sigma from 0.001 to 100 (10 for
/// sigma: exp(10 Z) already spans 1e-40 to 1e40 at Z = ±9), so gamma's shape 1/cv^2 lies in
/// [1e-4, 1e6]; Weibull, gamma and Pareto shapes from 0.01 to 1000.
const std::vector<DistributionParameter> kDistributionParameters = {
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
    {"empirical", "preemption_log", false, {-kInf, false}, {kInf, false}, "a log of one instance's states (running > 0, preempted 0) at a fixed step, JSON as the public spot traces or CSV with `column` and `step`: its running periods are the samples; see [Preemption logs](#preemption-logs)"},
    {"empirical", "step", true, {0, true}, {kInf, false}, "a CSV preemption log's time between rows"},
    {"empirical", "partial", false, {-kInf, false}, {kInf, false}, "`keep` (default) or `drop`: a running period cut by the start or the end of a preemption log"},
};
// clang-format on

}  // namespace

namespace {

/// The largest value of each unit kind, whatever the key: with these, every sum and product a
/// run forms stays finite (a duration beyond the horizon, at most 1000 years, only ever ends
/// something after the run; 1e6 USD per GPU-hour x 1,048,575 GPUs x 8.8e6 hours (1000 years)
/// is 9e18 USD; no ratio of two bounded values overflows). That loops over steps end in
/// practice is the event budget's part (check_event_budget in scenario_loader.cpp).
double unit_ceiling(UnitKind unit) {
  switch (unit) {
    case UnitKind::duration: return 1e4 * 365.25 * 86400.0;  // 10,000 years
    case UnitKind::usd_per_gpu_hour: return 1e6;  // 10^4 times the dearest GPU-hour sold
    case UnitKind::usd_per_gpu_second: return 250;  // 9e5 USD per GPU-hour
    case UnitKind::usd_per_gpu: return 1e9;
    case UnitKind::usd_per_gb: return 1e4;
    case UnitKind::gpu_memory_gb: return 1e6;  // a petabyte per GPU
    case UnitKind::data_gb: return 1e9;        // an exabyte
    case UnitKind::bandwidth_gbps: return 1e6;  // a petabit per second
    case UnitKind::throughput_gb_per_s: return 1e6;
    case UnitKind::latency_ms: return 1e7;  // 2.8 hours one way
    case UnitKind::rate: return 1e9;        // per s, min, hour or day, as the key says
    case UnitKind::factor: return 1e6;
    case UnitKind::probability: return 1;
    case UnitKind::years: return 1000;
    case UnitKind::kilobytes: return 1e9;
    case UnitKind::count:
    case UnitKind::none: break;
  }
  return kInf;
}

std::string with_thousands(double v) {
  if (v >= 1.8e19) return "18,446,744,073,709,551,615 (2^64 - 1)";
  const bool negative = v < 0;
  std::string digits = std::to_string(static_cast<unsigned long long>(std::fabs(v)));
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (negative ? "−" : "") + out;
}

/// A bound as text in the key's unit: 1000 years, 1e+06, 0.
std::string bound_text(const ScenarioKey& key, double v) {
  constexpr double kYear = 365.25 * 86400.0;
  if (key.unit == UnitKind::duration && v >= kYear && std::fmod(v, kYear) == 0)
    return text::format_number(v / kYear) + " years";
  if (key.type == KeyType::integer || (std::fabs(v) >= 1000 && v == std::floor(v) && v < 1e16))
    return with_thousands(v);
  return text::format_number(v);
}

std::string strip_markdown(std::string s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '`' || s[i] == '*') continue;
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '|') continue;
    if (s[i] == ']' && i + 1 < s.size() && s[i + 1] == '(') {  // [text](link) -> text
      const std::size_t close = s.find(')', i);
      if (close != std::string::npos) {
        i = close;
        continue;
      }
    }
    if (s[i] == '[') continue;
    out += s[i];
  }
  return out;
}

bool is_name_segment(const std::string& parent) {
  return parent == "providers" || parent == "regions" || parent == "pools" || parent == "goals";
}

}  // namespace

const std::vector<ScenarioKey>& scenario_keys() { return kKeys; }

const std::vector<DistributionParameter>& distribution_parameters() {
  return kDistributionParameters;
}

const ScenarioKey* find_scenario_key(const std::string& pattern) {
  for (const ScenarioKey& k : kKeys)
    if (pattern == k.path) return &k;
  return nullptr;
}

const ScenarioKey& scenario_key(const std::string& pattern) {
  const ScenarioKey* k = find_scenario_key(pattern);
  if (k == nullptr) throw std::logic_error("the scenario key table has no row '" + pattern + "'");
  return *k;
}

std::vector<const ScenarioKey*> scenario_key_rows(const std::string& pattern) {
  std::vector<const ScenarioKey*> rows;
  for (const ScenarioKey& k : kKeys)
    if (pattern == k.path) rows.push_back(&k);
  return rows;
}

bool scenario_key_applies(const ScenarioKey& key, const std::string& discriminator,
                          const std::string& value) {
  const std::string applies = key.applies;
  if (applies.empty() || discriminator.empty() || value.empty()) return true;
  const std::size_t colon = applies.find(": ");
  if (applies.substr(0, colon) != discriminator) return true;
  for (const std::string& v : text::split(applies.substr(colon + 2), ','))
    if (text::trim(v) == value) return true;
  return false;
}

std::string scenario_discriminator(const std::string& pattern) {
  for (const ScenarioKey& k : kKeys) {
    const std::string applies = k.applies, path = k.path;
    if (applies.empty() || path.compare(0, pattern.size() + 1, pattern + ".") != 0) continue;
    const std::string key = applies.substr(0, applies.find(':'));
    if (find_scenario_key(pattern + "." + key)) return key;
  }
  return "";
}

std::string scenario_discriminator_default(const std::string& pattern) {
  const std::string key = scenario_discriminator(pattern);
  if (key.empty()) return "";
  const ScenarioKey& row = scenario_key(pattern + "." + key);
  std::string value = row.default_text;  // "`on_demand`", or "*required*"
  if (value.size() < 2 || value.front() != '`' || value.back() != '`') return "";
  value = value.substr(1, value.size() - 2);
  const std::vector<std::string> choices = text::split(row.choices, ' ');
  return std::find(choices.begin(), choices.end(), value) != choices.end() ? value : "";
}

std::vector<std::string> scenario_child_keys(const std::string& parent,
                                             const std::string& discriminator,
                                             const std::string& value) {
  const std::string prefix = parent.empty() ? "" : parent + ".";
  std::vector<std::string> keys;
  for (const ScenarioKey& k : kKeys) {
    const std::string path = k.path;
    if (path.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = path.substr(prefix.size());
    if (rest.empty() || rest.find_first_of(".[") != std::string::npos) continue;
    if (rest == "NAME") continue;
    if (!scenario_key_applies(k, discriminator, value)) continue;
    if (std::find(keys.begin(), keys.end(), rest) == keys.end()) keys.push_back(rest);
  }
  return keys;
}

std::string scenario_key_pattern(const std::string& path) {
  // Segments: "workloads[2]" -> "workloads", "[]"; names after providers/regions/pools/goals
  // -> NAME.
  std::vector<std::string> segments;
  std::string current;
  for (std::size_t i = 0; i <= path.size(); ++i) {
    const char c = i < path.size() ? path[i] : '.';
    // "[N]" (digits, or none in a pattern) is an index; a '[' otherwise is part of a name
    // ("a[1", "gpu[x]").
    std::size_t close = std::string::npos;
    if (c == '[') {
      close = path.find_first_not_of("0123456789", i + 1);
      if (close == std::string::npos || path[close] != ']') close = std::string::npos;
    }
    if (c == '.' || close != std::string::npos) {
      if (!current.empty()) segments.push_back(current);
      current.clear();
      if (close != std::string::npos) {
        segments.push_back("[]");
        i = close;
      }
    } else {
      current += c;
    }
  }
  std::string pattern;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    std::string segment = segments[i];
    if (i == 1 && is_name_segment(segments[0])) {
      // A name may contain dots: take segments up to the one after which the rest is a key.
      std::size_t last = i;
      for (std::size_t j = i; j + 1 < segments.size(); ++j)
        if (find_scenario_key(segments[0] + ".NAME." + segments[j + 1])) {
          last = j;
          break;
        }
      i = last;
      segment = "NAME";
    }
    const ScenarioKey* at = find_scenario_key(pattern);
    // The keys of a number_map are names, the items of a list of numbers or text its values.
    if (at && (at->type == KeyType::number_map || at->type == KeyType::number_list ||
               at->type == KeyType::text_list))
      break;
    if (segment == "[]")
      pattern += segment;
    else
      pattern += (pattern.empty() ? "" : ".") + segment;
  }
  return pattern;
}

const char* unit_kind_name(UnitKind unit) {
  switch (unit) {
    case UnitKind::none: return "none";
    case UnitKind::duration: return "duration";
    case UnitKind::factor: return "plain factor";
    case UnitKind::probability: return "probability";
    case UnitKind::count: return "count";
    case UnitKind::gpu_memory_gb: return "GPU memory (GB)";
    case UnitKind::data_gb: return "data size (GB)";
    case UnitKind::bandwidth_gbps: return "bandwidth (Gbit/s)";
    case UnitKind::throughput_gb_per_s: return "throughput (GB/s)";
    case UnitKind::latency_ms: return "latency (ms)";
    case UnitKind::usd_per_gpu_hour: return "USD per GPU-hour";
    case UnitKind::usd_per_gpu_second: return "USD per GPU-second";
    case UnitKind::usd_per_gpu: return "USD per GPU";
    case UnitKind::usd_per_gb: return "USD per GB";
    case UnitKind::rate: return "rate";
    case UnitKind::years: return "years";
    case UnitKind::kilobytes: return "KB";
  }
  return "?";
}

const char* key_type_name(KeyType type) {
  switch (type) {
    case KeyType::text: return "text";
    case KeyType::choice: return "text";
    case KeyType::number: return "number";
    case KeyType::integer: return "integer";
    case KeyType::boolean: return "boolean";
    case KeyType::duration: return "duration";
    case KeyType::trace_start: return "duration, or the text `random`";
    case KeyType::distribution: return "distribution";
    case KeyType::mapping: return "mapping";
    case KeyType::name_map: return "mapping";
    case KeyType::number_map: return "mapping";
    case KeyType::list: return "list";
    case KeyType::text_list: return "list of text";
    case KeyType::number_list: return "list of numbers";
  }
  return "?";
}

KeyBound scenario_key_upper(const ScenarioKey& key) {
  const double ceiling = unit_ceiling(key.unit);
  if (ceiling < key.hi.value) return {ceiling, false};
  return key.hi;
}

std::string describe_key_range(const ScenarioKey& key, bool markdown) {
  const auto code = [&](const std::string& s) { return markdown ? "`" + s + "`" : s; };
  const KeyBound lo = key.lo, hi = scenario_key_upper(key);
  const bool has_lo = std::isfinite(lo.value), has_hi = std::isfinite(hi.value);
  if (key.type == KeyType::integer || key.type == KeyType::list) {
    if (has_lo && has_hi) {
      return markdown ? bound_text(key, lo.value) + " to " + bound_text(key, hi.value)
                      : "from " + text::format_number(lo.value) + " to " +
                            (hi.value >= 1.8e19 ? std::string("18446744073709551615")
                                                : std::to_string(static_cast<long long>(hi.value)));
    }
    if (has_lo) return code(">= " + bound_text(key, lo.value));
    return "";
  }
  std::string out;
  if (has_lo) out = code((lo.open ? "> " : ">= ") + bound_text(key, lo.value));
  if (has_hi) {
    std::string upper = hi.open ? code("< " + bound_text(key, hi.value))
                                : "at most " + bound_text(key, hi.value);
    out += out.empty() ? upper : (hi.open ? " and " : ", ") + upper;
  }
  return out;
}

// ---- explain ---------------------------------------------------------------------------------

namespace {

void explain_row(std::ostringstream& out, const ScenarioKey& k, bool first) {
  const auto line = [&](const char* label, const std::string& value) {
    if (!value.empty()) out << "  " << label << std::string(13 - std::string(label).size(), ' ')
                            << value << "\n";
  };
  if (first) {
    out << k.path << "\n";
    line("type:", strip_markdown(key_type_name(k.type)));
    std::string unit = k.unit_text;
    if (unit.rfind("–", 0) == 0 || unit.empty()) unit = "";
    if (k.unit != UnitKind::none)
      unit = (unit.empty() ? std::string() : unit + " ") + "(" + unit_kind_name(k.unit) + ")";
    line("unit:", unit);
    if (k.type != KeyType::distribution) line("range:", describe_key_range(k));
    if (k.type == KeyType::choice) line("choices:", text::join(text::split(k.choices, ' '), ", "));
  }
  line("default:", strip_markdown(k.default_text));
  line("applies to:", k.applies);
  line("valid:", strip_markdown(k.valid_note));
  line("meaning:", strip_markdown(k.description));
}

}  // namespace

std::string explain_scenario_key(const std::string& path) {
  std::ostringstream out;
  // A path with an empty part ("pools..quota", ".x", "x.") names no key.
  if (path.empty() || path.front() == '.' || path.back() == '.' ||
      path.find("..") != std::string::npos)
    return "";
  // "pools.quota" is short for "pools.NAME.quota", "workloads.gpus" for "workloads[].gpus".
  std::string pattern = path;
  for (const char* section : {"providers.", "regions.", "pools.", "goals."}) {
    const std::size_t n = std::strlen(section);
    if (path.rfind(section, 0) == 0 && path.compare(n, 5, "NAME.") != 0) {
      const std::string rest = path.substr(n);
      const std::string first = rest.substr(0, rest.find_first_of(".["));
      if (find_scenario_key(std::string(section) + "NAME." + first))
        pattern = std::string(section) + "NAME." + rest;
    }
  }
  if (path.rfind("workloads.", 0) == 0) pattern = "workloads[]." + path.substr(10);
  pattern = scenario_key_pattern(pattern);
  const std::vector<const ScenarioKey*> rows = scenario_key_rows(pattern);
  if (!rows.empty()) {
    // The same key in several tables: its first row, then what the others add.
    std::vector<std::string> shown;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::string said = std::string(rows[i]->default_text) + "|" + rows[i]->applies + "|" +
                               rows[i]->valid_note + "|" + rows[i]->description;
      if (std::find(shown.begin(), shown.end(), said) != shown.end()) continue;
      if (i > 0) out << "  --- also (" << rows[i]->doc_table << "):\n";
      explain_row(out, *rows[i], i == 0);
      shown.push_back(said);
    }
    const std::vector<std::string> children =
        scenario_child_keys(pattern + (rows[0]->type == KeyType::list ? "[]" : ""));
    std::vector<std::string> named = scenario_child_keys(pattern + ".NAME");
    if (!children.empty()) out << "  keys:        " << text::join(children, ", ") << "\n";
    if (!named.empty()) out << "  entry keys:  " << text::join(named, ", ") << "\n";
    if (rows[0]->type == KeyType::distribution) {
      out << "  forms:       a fixed value, or {dist: KIND, ...} with KIND one of deterministic, "
             "exponential, uniform, lognormal, gamma, weibull, pareto, empirical ("
          << (rows[0]->unit == UnitKind::duration ? "time parameters are durations"
                                                  : "parameters are plain numbers, no units")
          << "; see gpucap explain " << pattern << ".PARAMETER)\n";
    }
    return out.str();
  }
  // A distribution's parameter: "workloads[].work.sigma".
  const std::size_t dot = pattern.rfind('.');
  if (dot != std::string::npos) {
    const ScenarioKey* parent = find_scenario_key(pattern.substr(0, dot));
    const std::string param = pattern.substr(dot + 1);
    if (parent && parent->type == KeyType::distribution) {
      if (param == "dist") {
        out << pattern
            << "\n  type:        text\n  choices:     deterministic, exponential, uniform, "
               "lognormal, gamma, weibull, pareto, empirical\n  meaning:     the kind of "
               "distribution; each kind takes its own parameters\n";
        return out.str();
      }
      // One line for each kind that has the parameter (`scale` is a time in some, a factor
      // in others).
      for (const DistributionParameter& p : kDistributionParameters) {
        if (param != p.key) continue;
        if (out.tellp() == 0)
          out << pattern << " (a parameter of the distribution " << parent->path << ")\n";
        const bool plain = !p.in_key_unit || parent->unit != UnitKind::duration;
        ScenarioKey shown = *parent;
        shown.type = plain ? KeyType::number : KeyType::duration;
        shown.unit = plain && !p.in_key_unit ? UnitKind::factor : parent->unit;
        shown.lo = p.lo;
        shown.hi = p.hi;
        const std::string range = describe_key_range(shown);
        out << "  with dist: " << p.dist << ": " << (plain ? "number" : "duration")
            << (range.empty() ? "" : ", " + range) << "; " << p.description << "\n";
      }
      return out.str();
    }
  }
  return "";
}

// ---- documentation ---------------------------------------------------------------------------

std::string scenario_keys_markdown(const std::string& doc_table) {
  std::string out =
      "| key | type | unit | default | valid values | meaning |\n|---|---|---|---|---|---|\n";
  std::string last_display;
  for (const ScenarioKey& k : kKeys) {
    if (doc_table != k.doc_table || last_display == k.display) continue;
    last_display = k.display;
    std::string valid = describe_key_range(k, true);
    if (k.type == KeyType::choice) {
      // A discriminator shown in the table of one of its values lists only those.
      std::string words = k.choices;
      const std::string applies = k.applies, last = std::string(k.path).substr(
                                                  std::string(k.path).find_last_of('.') + 1);
      if (applies.rfind(last + ": ", 0) == 0) {
        words.clear();
        for (const std::string& w : text::split(applies.substr(last.size() + 2), ','))
          words += (words.empty() ? "" : " ") + text::trim(w);
      }
      for (const std::string& w : text::split(words, ' '))
        valid += (valid.empty() ? "`" : ", `") + w + "`";
    }
    if (k.type == KeyType::distribution) valid.clear();  // its parameters have the ranges
    if (*k.valid_note) valid += (valid.empty() ? "" : "; ") + std::string(k.valid_note);
    out += "| " + std::string(k.display) + " | " + key_type_name(k.type) + " | " + k.unit_text +
           " | " + k.default_text + " | " + valid + " | " + k.description + " |\n";
  }
  return out;
}

// ---- JSON Schema -----------------------------------------------------------------------------

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
          out += buffer;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string json_number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

/// "minimum": .., "exclusiveMaximum": .. for a range (empty when unbounded), with a leading comma.
std::string json_range(KeyBound lo, KeyBound hi) {
  std::string out;
  if (std::isfinite(lo.value))
    out += std::string(", \"") + (lo.open ? "exclusiveMinimum" : "minimum") +
           "\": " + json_number(lo.value);
  if (std::isfinite(hi.value))
    out += std::string(", \"") + (hi.open ? "exclusiveMaximum" : "maximum") +
           "\": " + json_number(hi.value);
  return out;
}

// YAML 1.1 readers (PyYAML) take `1e-3` and `5min` as text: numbers may be written as text too.
const char* const kNumberText =
    R"({"type": "string", "pattern": "^\\s*[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?\\s*$"})";
const char* const kDurationText =
    R"({"type": "string", "pattern": "^\\s*[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?\\s*(us|ms|s|sec|min|m|h|hr|d|day|days|w)?\\s*$"})";

std::string number_schema(KeyBound lo, KeyBound hi, bool duration) {
  return std::string("{\"anyOf\": [{\"type\": \"number\"") + json_range(lo, hi) + "}, " +
         (duration ? kDurationText : kNumberText) + "]}";
}

std::string distribution_schema(const ScenarioKey& key) {
  const bool time = key.unit == UnitKind::duration;
  std::string kinds;
  for (const Choice<DistKind>& c : choices_of<DistKind>())
    kinds += (kinds.empty() ? "" : ", ") + json_string(c.word);
  std::string properties = "\"dist\": {\"enum\": [" + kinds + "]}";
  std::vector<std::string> seen;
  for (const DistributionParameter& p : kDistributionParameters) {
    if (std::find(seen.begin(), seen.end(), p.key) != seen.end()) continue;
    seen.push_back(p.key);
    std::string schema;
    if (std::string(p.key) == "values")
      schema = "{\"type\": \"array\", \"minItems\": 1, \"items\": " +
               number_schema(p.lo, {kInf, false}, time) + "}";
    else if (std::string(p.key) == "file" || std::string(p.key) == "column")
      schema = "{\"type\": \"string\"}";
    else
      // A parameter such as `scale` is a duration in one kind and a plain number in another.
      schema = number_schema({-kInf, false}, {kInf, false}, time && p.in_key_unit);
    properties += ", " + json_string(p.key) + ": " + schema;
  }
  return "{\"anyOf\": [" + number_schema({0, false}, {kInf, false}, time) +
         ", {\"type\": \"object\", \"required\": [\"dist\"], \"additionalProperties\": false, "
         "\"properties\": {" +
         properties + "}}]}";
}

std::string description_of(const ScenarioKey& k) {
  std::string d = strip_markdown(k.description);
  const std::string range = describe_key_range(k);
  std::string unit = k.unit_text;
  if (unit != "–" && !unit.empty()) d += " Unit: " + unit + ".";
  if (!range.empty()) d += " Range: " + range + ".";
  if (*k.default_text) d += " Default: " + strip_markdown(k.default_text) + ".";
  if (*k.applies) d += " Applies to " + std::string(k.applies) + ".";
  return d;
}

std::string schema_of(const std::string& pattern);

/// The object schema of the mapping at `parent` ("" for the whole file, "pools.NAME").
std::string object_schema(const std::string& parent, const std::string& description) {
  std::string properties;
  for (const std::string& key : scenario_child_keys(parent)) {
    const std::string path = parent.empty() ? key : parent + "." + key;
    properties += (properties.empty() ? "" : ", ") + json_string(key) + ": " + schema_of(path);
  }
  // The keys each value of the discriminator admits (a spot pool takes no `count`): one
  // if/then per value, and one for the default when the discriminator is left out.
  std::string variants;
  const std::string discriminator = scenario_discriminator(parent);
  const auto names = [&](const std::string& value) {
    std::string list;
    for (const std::string& key : scenario_child_keys(parent, discriminator, value))
      list += (list.empty() ? "" : ", ") + json_string(key);
    return "{\"propertyNames\": {\"enum\": [" + list + "]}}";
  };
  if (!discriminator.empty()) {
    for (const std::string& value :
         text::split(scenario_key(parent + "." + discriminator).choices, ' '))
      variants += (variants.empty() ? "" : ", ") + std::string("{\"if\": {\"required\": [") +
                  json_string(discriminator) + "], \"properties\": {" +
                  json_string(discriminator) + ": {\"const\": " + json_string(value) +
                  "}}}, \"then\": " + names(value) + "}";
    const std::string fallback = scenario_discriminator_default(parent);
    if (!fallback.empty())
      variants += ", {\"if\": {\"not\": {\"required\": [" + json_string(discriminator) +
                  "]}}, \"then\": " + names(fallback) + "}";
  }
  return "{\"type\": \"object\"" +
         (description.empty() ? std::string() : ", \"description\": " + json_string(description)) +
         ", \"additionalProperties\": false, \"properties\": {" + properties + "}" +
         (variants.empty() ? std::string() : ", \"allOf\": [" + variants + "]") + "}";
}

std::string schema_of(const std::string& pattern) {
  const ScenarioKey* k = find_scenario_key(pattern);
  if (k == nullptr) return "{}";
  const std::string d = ", \"description\": " + json_string(description_of(*k));
  const KeyBound hi = scenario_key_upper(*k);
  switch (k->type) {
    case KeyType::text:
      return "{\"type\": [\"string\", \"number\", \"boolean\"]" + d + "}";
    case KeyType::choice: {
      std::string values;
      for (const std::string& c : text::split(k->choices, ' '))
        values += (values.empty() ? "" : ", ") + json_string(c);
      return "{\"enum\": [" + values + "]" + d + "}";
    }
    case KeyType::number:
      return "{\"anyOf\": [{\"type\": \"number\"" + json_range(k->lo, hi) + "}, " + kNumberText +
             "]" + d + "}";
    case KeyType::integer:
      return "{\"type\": \"integer\"" + json_range(k->lo, hi) + d + "}";
    case KeyType::boolean:
      return "{\"anyOf\": [{\"type\": \"boolean\"}, {\"enum\": [\"true\", \"yes\", \"on\", "
             "\"false\", \"no\", \"off\"]}]" +
             d + "}";
    case KeyType::duration:
      return "{\"anyOf\": [{\"type\": \"number\"" + json_range(k->lo, hi) + "}, " +
             kDurationText + "]" + d + "}";
    case KeyType::trace_start:
      return "{\"anyOf\": [{\"const\": \"random\"}, {\"type\": \"number\", \"minimum\": 0}, " +
             std::string(kDurationText) + "]" + d + "}";
    case KeyType::distribution:
      return "{\"allOf\": [" + distribution_schema(*k) + "]" + d + "}";
    case KeyType::number_map:
      return "{\"type\": \"object\", \"additionalProperties\": " +
             number_schema(k->lo, hi, false) + d + "}";
    case KeyType::text_list:
      return "{\"type\": \"array\", \"minItems\": 1, \"items\": {\"type\": [\"string\", "
             "\"number\"]}" +
             d + "}";
    case KeyType::number_list:
      return "{\"type\": \"array\", \"items\": " + number_schema({0, false}, hi, false) + d +
             "}";
    case KeyType::list:
      return "{\"type\": \"array\", \"minItems\": " + json_number(k->lo.value) +
             ", \"maxItems\": " + json_number(hi.value) + ", \"items\": " + object_schema(pattern + "[]", "") + d + "}";
    case KeyType::mapping:
    case KeyType::name_map:
      if (find_scenario_key(pattern + ".NAME"))
        return "{\"type\": \"object\", \"additionalProperties\": " +
               object_schema(pattern + ".NAME",
                             strip_markdown(scenario_key(pattern + ".NAME").description)) +
               d + "}";
      return object_schema(pattern, description_of(*k));
  }
  return "{}";
}

}  // namespace

std::string scenario_json_schema() {
  std::string root = object_schema("", "");
  // Insert the header fields after the opening brace.
  const std::string header =
      "\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", \"$id\": "
      "\"https://gpucap.dev/schema/scenario-v1.json\", \"title\": \"gpucap scenario (format "
      "v1)\", \"description\": \"A gpucap scenario file: providers, regions, pools of GPUs, "
      "workloads and the policy. See docs/scenario-format.md.\", \"required\": [\"name\", "
      "\"horizon\", \"pools\", \"workloads\"], ";
  root.insert(1, header);
  return root + "\n";
}

}  // namespace gpucap
