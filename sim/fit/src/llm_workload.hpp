// gpucap fitting, private: what `gpucap fit --kind llm` writes for a class of LLM requests, and
// the comment every service gets (llm_workload.cpp), beside the parts every kind shares
// (workload_yaml.cpp).
#pragma once
#include <string>

#include "gpucap/fit/job_trace.hpp"
#include "gpucap/fit/workload_yaml.hpp"

namespace gpucap::fit::detail {

/// A YAML double-quoted scalar (workload_yaml.cpp).
std::string yaml_quoted(const std::string& s);

/// An LLM service's `uncertainty`: the doubt about its rate (its tokens are the log's own
/// sample, with no scale to doubt).
std::string llm_uncertainty_yaml(const ClassFit& c);

/// Comment lines on the class's tokens: requests, and the mean, median and 99th percentile of
/// the context and output counts.
std::string token_comments(const JobClass& c);

/// The keys before `arrivals`: kind, gpus (tensor parallel), pool (the first --placement
/// pool) and replicas (1, with how to size them).
std::string llm_head_yaml(const WorkloadYamlOptions& options);

/// The `llm:` block: the model and the tokens sample file (`tokens_file`, beside the YAML).
std::string llm_block_yaml(const ClassFit& c, const WorkloadYamlOptions& options);

/// The class's joint token sample: `context_tokens,output_tokens`, one request per row, in
/// submit order.
std::string render_tokens_csv(const JobClass& c);

}  // namespace gpucap::fit::detail
