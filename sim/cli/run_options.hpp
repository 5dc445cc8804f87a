// gpucap CLI: the options of the commands that load and run a scenario (run, sweep, validate),
// each declared once, and their readers. Usage errors throw boost::program_options::error
// (exit 2) with a message that says what is valid.
#pragma once
#include <boost/program_options.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "gpucap/fit/workload_yaml.hpp"
#include "gpucap/input_file.hpp"
#include "gpucap/output_file.hpp"
#include "gpucap/run.hpp"

namespace gpucap::cli {

/// "scenario options": --set, --unset, --max-scenario-size, --max-data-size.
boost::program_options::options_description scenario_options();

/// "run options" of run and sweep: how many replications, where, and what to write.
boost::program_options::options_description execution_options();

/// The overrides of --unset and --set: every --unset first (as "path=null", which deletes the
/// key or item), then every --set, each in the order given.
std::vector<std::string> overrides_of(const boost::program_options::variables_map& vm);

/// The byte budgets of the files a scenario reads (--max-scenario-size, --max-data-size).
InputLimits read_input_limits(const boost::program_options::variables_map& vm);

/// A whole number for option `name` in [lo, hi]; anything else (a sign, a fraction, digits
/// beyond 64 bits) is a usage error that says what is valid.
uint64_t parse_count(const std::string& name, const std::string& text, uint64_t lo, uint64_t hi);

/// A duration for option `name` ("--window"): seconds above 0 and at most 10000 years; anything
/// else is a usage error that says what is valid.
double parse_duration_option(const std::string& name, const std::string& text);

/// --trend of fit and backtest: average, extrapolate or last-week (a usage error otherwise).
fit::TrendChoice parse_trend(const std::string& text);

/// The run options given (execution_options()), checked; the journal's timing and size from
/// GPUCAP_JOURNAL_* in the environment when the run writes a file.
RunOptions read_execution_options(const boost::program_options::variables_map& vm);

/// Starts the GPU's probe in the background (warm_up_devices) when --backend is auto or cuda:
/// first thing in `run` and `sweep`, before the scenario is read. A bad --backend is left to
/// read_execution_options to report.
void warm_up_devices_for(const boost::program_options::variables_map& vm);

/// Where and how -o writes: --force, and the run's inputs (never replaced); its chunks are
/// compressed on the run's threads (--threads).
OutputOptions output_options(const boost::program_options::variables_map& vm,
                             const std::vector<std::string>& inputs);

}  // namespace gpucap::cli
