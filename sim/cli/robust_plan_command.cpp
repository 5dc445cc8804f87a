// gpucap sweep --variant / --variants: reading the variants and printing the regret table.
#include "robust_plan_command.hpp"

#include "command_line.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/robust_plan.hpp"

namespace po = boost::program_options;

namespace gpucap::cli {

void add_robust_plan_options(po::options_description& sweep_options) {
  po::options_description o(
      "robust plan options (every decision of the grid under every variant; see "
      "docs/decisions.md)");
  o.add_options()(
      "variant", po::value<std::vector<std::string>>()->composing(),
      "a named variant of the scenario: 'NAME: path=value, path=value' (repeatable; a NAME "
      "alone is the scenario unchanged), e.g. --variant 'low: workloads.0.arrivals.rate_per_day=3' "
      "--variant base --variant 'high: workloads.0.arrivals.rate_per_day=9'; prints the regret "
      "table and the minimax-regret and expected choices")(
      "variants", po::value<std::string>(),
      "a YAML file of variants: 'variants:' then a list of {name, weight (optional), set: "
      "{dotted.path: value}}")(
      "weights", po::value<std::string>(),
      "the variants' weights (probabilities up to normalization), name=w,name=w; default "
      "equal (a --variants file may give them)");
  if (!sweep_options.find_nothrow("objective", false))
    add_objective_option(o, "the metric a robust plan minimizes (default cost)");
  sweep_options.add(o);
}

RobustPlanRequest read_robust_plan_request(const po::variables_map& vm, uint64_t max_bytes) {
  RobustPlanRequest request;
  if (vm.count("variant") && vm.count("variants"))
    throw po::error("give the variants either with --variant or in a --variants file, not both");
  if (vm.count("variant"))
    for (const std::string& text : vm["variant"].as<std::vector<std::string>>())
      request.variants.push_back(parse_variant(text));
  if (vm.count("variants")) {
    const std::string path = vm["variants"].as<std::string>();
    request.variants = read_variants_file(path, max_bytes);
    request.input_files.push_back(path);
  }
  if (!request.active()) {
    if (vm.count("weights")) throw po::error("--weights needs --variant or --variants");
    return request;
  }
  for (const char* option : {"constraint", "chance", "conservative"})
    if (vm.count(option))
      throw po::error(std::string("--") + option +
                      " does not go with variants: a robust plan compares decisions by the "
                      "regret of --objective alone");
  if (vm.count("skip-invalid"))
    throw po::error(
        "--skip-invalid cannot go with variants: a robust plan needs every decision under every "
        "variant");
  if (vm.count("weights")) {
    apply_weights(request.variants, vm["weights"].as<std::string>());
  }
  if (vm.count("objective") && !vm["objective"].empty()) {
    const std::string name = text::trim(vm["objective"].as<std::string>());
    std::vector<std::string> valid;
    bool found = false;
    for (uint32_t m = 0; m < kScalarMetricCount; ++m) {
      valid.push_back(kScalarMetricInfo[m].name);
      if (name == kScalarMetricInfo[m].name) {
        request.objective = static_cast<ScalarMetric>(m);
        found = true;
      }
    }
    if (!found)
      throw po::error("--objective: unknown metric '" + text::excerpt(name) +
                      "'; valid: " + text::join(valid, ", "));
  }
  return request;
}

void print_robust_plan(const RobustPlanRequest& request, const RunResults& results,
                       std::ostream& out) {
  out << format_robust_plan(robust_plan(results, request.objective));
}

}  // namespace gpucap::cli
