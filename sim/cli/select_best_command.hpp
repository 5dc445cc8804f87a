// gpucap sweep --select-best: the sweep mode that selects the best point with a guarantee
// (procedure KN, kernels/include/gpucap/select_best.hpp; docs/decisions.md).
//
//   gpucap sweep S.yaml --grid pools.a.quota=8,12,16 --select-best --objective cost
//       --delta 100 [--alpha 0.05] [--initial 20] [--max-replications 10000] [--maximize]
#pragma once
#include <boost/program_options.hpp>
#include <vector>

#include "gpucap/run.hpp"
#include "gpucap/scenario.hpp"

namespace gpucap::cli {

/// The sweep options of the mode (--select-best, --objective, --delta, ...).
boost::program_options::options_description select_best_options();

/// Throws boost::program_options::error when the mode's options are misused: one of them
/// without --select-best, or --select-best with options it replaces (-r, -o, --metrics).
void check_select_best_usage(const boost::program_options::variables_map& vm);

/// Runs the selection over the sweep's points and prints its table; returns the exit status
/// (0, or 128 + N when stopped by signal N). Usage errors throw as for the other commands.
int select_best_command(const boost::program_options::variables_map& vm,
                        const std::vector<Scenario>& points,
                        const std::vector<SweepParameter>& grid, const Scenario& base,
                        const RunOptions& options);

}  // namespace gpucap::cli
