// gpucap fit: the command that fits a job trace into a `workloads:` section (docs/fitting.md).
#pragma once
#include <string>
#include <vector>

namespace gpucap::cli {

/// `gpucap fit TRACE.csv -o WORKLOAD.yaml [options]` with the arguments after "fit". Returns the
/// exit status: 0 written; 1 a file cannot be read or written; 2 bad usage or a trace that
/// cannot be fitted (the message names file:line, the column and what is valid).
int fit_command(const std::vector<std::string>& args);

}  // namespace gpucap::cli
