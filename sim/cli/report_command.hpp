// gpucap report: the command that writes a results file's HTML report (docs/report.md).
#pragma once
#include <string>
#include <vector>

namespace gpucap::cli {

/// `gpucap report RESULTS.h5 -o REPORT.html [--objective M] [--versus M] [--force]` with the
/// arguments after "report". Returns 0 when written; throws boost::program_options::error or
/// std::invalid_argument for bad usage (exit 2), std::runtime_error for a results file that
/// cannot be read and gpucap::OutputError for a refused output (exit 1), as main() maps them.
int report_command(const std::vector<std::string>& args);

}  // namespace gpucap::cli
