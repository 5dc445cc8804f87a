// gpucap fitting: the workload `gpucap fit --kind llm` writes for a class of LLM requests: an
// inference service with `llm:`, its arrivals fitted as any kind's (workload_yaml.cpp) and its
// tokens the log's own joint (context, output) sample, in a file beside the YAML.
#include "llm_workload.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <vector>

namespace gpucap::fit::detail {
namespace {

struct Spread {
  double mean = 0, median = 0, p99 = 0;
};

/// Mean, median and 99th percentile (nearest rank) of every second value of `pairs` from
/// `first`.
Spread spread(const std::vector<uint32_t>& pairs, std::size_t first) {
  std::vector<uint32_t> v;
  v.reserve(pairs.size() / 2);
  double sum = 0;
  for (std::size_t i = first; i < pairs.size(); i += 2) {
    v.push_back(pairs[i]);
    sum += pairs[i];
  }
  Spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const auto rank = [&](double q) {
    const std::size_t k = static_cast<std::size_t>(q * static_cast<double>(v.size()));
    return static_cast<double>(v[std::min(k, v.size() - 1)]);
  };
  s.mean = sum / static_cast<double>(v.size());
  s.median = rank(0.5);
  s.p99 = rank(0.99);
  return s;
}

std::string describe(const char* what, const Spread& s) {
  char line[160];
  std::snprintf(line, sizeof line, "%s mean %.5g (median %.5g, p99 %.5g)", what, s.mean, s.median,
                s.p99);
  return line;
}

}  // namespace

std::string llm_uncertainty_yaml(const ClassFit& c) {
  char line[200];
  std::snprintf(line, sizeof line,
                "    uncertainty: {rate_sd_log: %.4g}  # the fit's doubt about the rate (%zu "
                "arrivals); the tokens are the log's own\n",
                c.arrival_uncertainty.sd_log, c.arrivals.arrivals);
  return line;
}

std::string token_comments(const JobClass& c) {
  return "  # tokens: " + std::to_string(c.tokens.size() / 2) + " requests; " +
         describe("context", spread(c.tokens, 0)) + ", " +
         describe("output", spread(c.tokens, 1)) +
         "; drawn jointly (a request's pair together) from the file below\n";
}

std::string llm_head_yaml(const WorkloadYamlOptions& options) {
  std::ostringstream out;
  out << "    kind: inference\n    gpus: " << options.llm_gpus
      << "  # tensor parallel: GPUs per replica\n    pool: "
      << yaml_quoted(options.placement.front())
      << "\n    replicas: 1  # size it: a replica's speed is its GPU's (the pool's gpu), so "
         "sweep replicas or give autoscaling (docs/llm-serving.md)\n";
  return out.str();
}

std::string llm_block_yaml(const ClassFit& c, const WorkloadYamlOptions& options) {
  std::ostringstream out;
  out << "    llm:\n      model: " << yaml_quoted(options.llm_model)
      << "\n      tokens: {sample: " << yaml_quoted(c.samples_file) << "}\n"
      << "      # slo: {ttft: 2s, tpot: 100ms}  # optional: the goodput's targets\n";
  return out.str();
}

std::string render_tokens_csv(const JobClass& c) {
  std::string out = "context_tokens,output_tokens\n";
  out.reserve(out.size() + 12 * c.tokens.size());
  for (std::size_t i = 0; i + 1 < c.tokens.size(); i += 2)
    out += std::to_string(c.tokens[i]) + "," + std::to_string(c.tokens[i + 1]) + "\n";
  return out;
}

}  // namespace gpucap::fit::detail
