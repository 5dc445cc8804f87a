// gpucap CLI: the one parser of every command's options, and the options that several commands
// take, each declared here once (the help text says what it means for the command at hand).
//
//   gpucap::cli::CommandLine line("gpucap report RESULTS.h5 -o REPORT.html [options]", "results");
//   add_output_option(line.options(), "the HTML file to write (...)");
//   const po::variables_map vm = line.parse(args);
//   if (vm.count("help")) std::cout << "Writes ...\n\n" << line.options();
#pragma once
#include <boost/program_options.hpp>
#include <string>
#include <vector>

namespace gpucap::cli {

/// A command's options and how its command line is parsed: `--help` first, then the options the
/// command adds (its --help lists them in that order), and one positional argument.
class CommandLine {
 public:
  /// `usage`: the caption of --help, e.g. "gpucap run SCENARIO.yaml [options]". `positional`:
  /// the name under which the one positional argument is stored (e.g. "scenario"); when
  /// `takes_positional` is false the command takes none (boost refuses one), and the name is a
  /// hidden option the command may refuse with its own message.
  CommandLine(const std::string& usage, const char* positional, bool takes_positional = true);

  /// What --help prints; commands add their own options and groups to it.
  boost::program_options::options_description& options() { return visible_; }
  const boost::program_options::options_description& options() const { return visible_; }

  /// The options given in `args` (boost::program_options::error when one is unknown, malformed
  /// or repeated, or when there is more than one positional argument).
  boost::program_options::variables_map parse(const std::vector<std::string>& args) const;

 private:
  boost::program_options::options_description visible_;
  const char* positional_;
  bool takes_positional_;
};

/// -o, --output FILE.
void add_output_option(boost::program_options::options_description& o, const char* help);
/// --force (a switch).
void add_force_option(boost::program_options::options_description& o, const char* help);
/// -q, --quiet (a switch).
void add_quiet_option(boost::program_options::options_description& o, const char* help);
/// --max-data-size SIZE.
void add_max_data_size_option(boost::program_options::options_description& o, const char* help);
/// -m, --metrics M1,M2.
void add_metrics_option(boost::program_options::options_description& o, const char* help);
/// --objective METRIC, with a default value when `default_value` is not null.
void add_objective_option(boost::program_options::options_description& o, const char* help,
                          const char* default_value = nullptr);

}  // namespace gpucap::cli
