// gpucap: scenario loader, the `goals` section: indicator metrics evaluated on each replication.
#include "loader.hpp"

#include <utility>

namespace gpucap::loader {

std::vector<GoalSpec> read_goals(const Context& ctx, const YAML::Node& node, const Scenario& s) {
  if (!node.IsMap() || node.size() == 0)
    ctx.fail(node, "goals",
             "must be a mapping of goal names to {require: [CONDITION, ...]}, got " +
                 describe(node));
  expect_unique_keys(ctx, node, "goals");
  if (node.size() > kMaxGoals)
    ctx.fail(node, "goals",
             "has " + std::to_string(node.size()) + " goals; at most " + std::to_string(kMaxGoals));
  std::vector<std::string> pool_names;
  for (const PoolSpec& p : s.pools) pool_names.push_back(p.name);
  std::vector<GoalSpec> goals;
  for (const auto& kv : node) {
    GoalSpec g;
    g.name = kv.first.Scalar();
    const std::string path = "goals." + g.name;
    if (!valid_goal_name(g.name))
      ctx.fail(kv.first, path,
               "a goal's name must start with a letter and hold only letters, digits and _ "
               "(it is used in --chance NAME>=LEVEL), got \"" + text::excerpt(g.name) + "\"");
    expect_map(ctx, kv.second, path, scenario_child_keys("goals.NAME"));
    if (kv.second["description"])
      g.description = read_string(ctx, kv.second["description"], path + ".description");
    if (kv.second["target"])
      g.target = read_key_number(ctx, kv.second["target"], path + ".target");
    const YAML::Node require_node =
        require(ctx, kv.second, path, "require", "a list of conditions such as [cost <= 500000]");
    const std::string require_path = path + ".require";
    if (!require_node.IsSequence() || require_node.size() == 0)
      ctx.fail(require_node, require_path,
               "must be a non-empty list of conditions, e.g. [completion_p99 <= 25d]; got " +
                   describe(require_node));
    if (require_node.size() > kMaxGoalConditions)
      ctx.fail(require_node, require_path,
               "has " + std::to_string(require_node.size()) + " conditions; at most " +
                   std::to_string(kMaxGoalConditions));
    for (std::size_t i = 0; i < require_node.size(); ++i) {
      const std::string item = require_path + "[" + std::to_string(i) + "]";
      const std::string condition = read_string(ctx, require_node[i], item);
      try {
        g.conditions.push_back(parse_goal_condition(condition, pool_names));
      } catch (const std::invalid_argument& e) {
        ctx.fail(require_node[i], item, e.what());
      }
    }
    goals.push_back(std::move(g));
  }
  return goals;
}

}  // namespace gpucap::loader
