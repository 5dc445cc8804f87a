// gpucap: scenario loader, the `policy` section: queue discipline, backfill, waiting room.
#include "loader.hpp"

namespace gpucap::loader {

PolicySpec read_policy(const Context& ctx, const YAML::Node& node, const std::string& path) {
  expect_map(ctx, node, path, scenario_child_keys("policy"));
  PolicySpec p;
  if (node["queue"])
    p.discipline =
        read_choice<QueueDiscipline>(ctx, node["queue"], join_path(path, "queue"));
  read_plain_keys(ctx, node, path, "policy", {{KeyTarget::policy, &p}});
  if (node["queue_capacity"]) {
    p.queue_capacity = static_cast<uint32_t>(
        read_key_integer(ctx, node["queue_capacity"], join_path(path, "queue_capacity")));
    p.queue_capacity_set = true;
  }
  return p;
}

}  // namespace gpucap::loader
