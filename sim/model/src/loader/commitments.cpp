// gpucap: scenario loader, `commitments`: billing commitments (reservations of GPUs, savings
// plans of USD per hour) over on-demand pools of a fixed price, each pool in one commitment at
// most; read after the pools they cover.
#include <algorithm>
#include <cmath>

#include "gpucap/purchase_options.hpp"

#include "loader.hpp"

namespace gpucap::loader {
namespace {

/// Most commitments a scenario may have.
constexpr std::size_t kMaxCommitments = 64;

/// `covers`: a non-empty list of on-demand pools of a fixed price, none covered twice.
void read_covers(const Context& ctx, const YAML::Node& node, const std::string& path,
                 const Scenario& s, CommitmentSpec& c) {
  const YAML::Node list = require(ctx, node, path, "covers", "a list of on-demand pools");
  const std::string lpath = join_path(path, "covers");
  if (!list.IsSequence() || list.size() == 0)
    ctx.fail(list, lpath, "must be a non-empty list of on-demand pools, e.g. [ondemand-h100]");
  std::vector<std::string> names;
  for (const PoolSpec& p : s.pools) names.push_back(p.name);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string ipath = lpath + "[" + std::to_string(i) + "]";
    const std::string name = read_reference(ctx, list[i], ipath, names, "pool");
    const PoolSpec& pool = s.pools[static_cast<std::size_t>(s.pool_index(name))];
    if (!purchase_info(pool.purchase).billing_commitments) {
      std::vector<std::string> covered;
      for (const PurchaseOptionInfo& o : purchase_options())
        if (o.billing_commitments) covered.push_back(o.name);
      ctx.fail(list[i], ipath,
               "pool \"" + text::excerpt(name) + "\" is " + purchase_info(pool.purchase).name +
                   "; a billing commitment covers " + text::join(covered, ", ") +
                   " pools (a reserved or owned pool is a capacity reservation of its own; the "
                   "clouds' reservations and savings plans do not cover spot, marketplace or "
                   "serverless usage)");
    }
    if (pool.price_model != CompiledPool::kFixedPrice)
      ctx.fail(list[i], ipath,
               "pool \"" + text::excerpt(name) +
                   "\" has a price_process; a commitment covers pools of a fixed price");
    if (std::find(c.covers.begin(), c.covers.end(), name) != c.covers.end())
      ctx.fail(list[i], ipath, "pool \"" + text::excerpt(name) + "\" is listed twice");
    for (const CommitmentSpec& other : s.commitments)
      if (std::find(other.covers.begin(), other.covers.end(), name) != other.covers.end())
        ctx.fail(list[i], ipath,
                 "pool \"" + text::excerpt(name) + "\" is covered by commitment \"" +
                     text::excerpt(other.name) + "\" already; a pool's usage is paid by one "
                     "commitment at most");
    c.covers.push_back(name);
  }
}

CommitmentSpec read_commitment(const Context& ctx, const YAML::Node& node, const std::string& path,
                               const std::string& name, const Scenario& s) {
  expect_map(ctx, node, path, scenario_child_keys("commitments.NAME"));
  CommitmentSpec c;
  c.name = name;
  read_covers(ctx, node, path, s, c);
  read_plain_keys(ctx, node, path, "commitments.NAME", {{KeyTarget::commitment, &c}});
  const bool gpus = static_cast<bool>(node["gpus"]), usd = static_cast<bool>(node["usd_per_hour"]);
  if (gpus == usd)
    ctx.fail(node, path,
             gpus ? "give either gpus (a reservation) or usd_per_hour (a savings plan), not both"
                  : "needs gpus (a reservation of GPUs, with price_usd_per_gpu_hour) or "
                    "usd_per_hour (a savings plan, with discount)");
  c.savings_plan = usd;
  if (gpus) {
    require(ctx, node, path, "price_usd_per_gpu_hour", "the committed price per GPU-hour");
    if (node["discount"])
      ctx.fail(node["discount"], join_path(path, "discount"),
               "applies to a savings plan (usd_per_hour); a reservation's price is "
               "price_usd_per_gpu_hour");
  } else {
    require(ctx, node, path, "discount",
            "the savings plan's discount off the pools' prices, from 0 to below 1");
    if (node["price_usd_per_gpu_hour"])
      ctx.fail(node["price_usd_per_gpu_hour"], join_path(path, "price_usd_per_gpu_hour"),
               "applies to a reservation (gpus); a savings plan commits usd_per_hour");
  }
  const double periods = std::ceil(s.horizon_s / c.period_s);
  if (periods > kMaxTimeseriesBins)
    ctx.fail(node["period"] ? node["period"] : node, join_path(path, "period"),
             "gives " + text::format_number(periods) + " periods over the horizon; at most " +
                 std::to_string(kMaxTimeseriesBins) + " are supported (use a longer period)");
  return c;
}

}  // namespace

void read_commitments(const Context& ctx, const YAML::Node& root, Scenario& s) {
  if (!root["commitments"]) return;
  const YAML::Node commitments = root["commitments"];
  if (!commitments.IsMap())
    ctx.fail(commitments, "commitments",
             "must be a mapping of names to commitments, e.g. {plan: {covers: [od], gpus: 8, "
             "price_usd_per_gpu_hour: 1.9}}");
  if (commitments.size() > kMaxCommitments)
    ctx.fail(commitments, "commitments",
             "has " + std::to_string(commitments.size()) + " commitments; at most " +
                 std::to_string(kMaxCommitments) + " are supported");
  expect_unique_keys(ctx, commitments, "commitments");
  for (const auto& kv : commitments) {
    const std::string name = kv.first.Scalar();
    s.commitments.push_back(read_commitment(ctx, kv.second, "commitments." + name, name, s));
  }
}

}  // namespace gpucap::loader
