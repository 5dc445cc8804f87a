#include "report_command.hpp"

#include <boost/program_options.hpp>
#include <iostream>

#include "gpucap/detail/text.hpp"
#include "gpucap/hdf5_results.hpp"
#include "gpucap/output_file.hpp"
#include "gpucap/report/report_page.hpp"

#include "command_line.hpp"
#include "decision_report.hpp"

namespace po = boost::program_options;

namespace gpucap::cli {

int report_command(const std::vector<std::string>& args) {
  CommandLine line("gpucap report RESULTS.h5 -o REPORT.html [options]", "results");
  po::options_description& visible = line.options();
  add_output_option(visible,
                    "the HTML file to write (atomically; never onto the results file, a link or a "
                    "special file)");
  add_force_option(visible,
                   "replace a symbolic link at the output path (the link itself, never the file it "
                   "points to)");
  add_objective_option(visible, "for a sweep: the metric whose lowest mean chooses the point",
                       "cost");
  visible.add_options()(
      "versus", po::value<std::string>(),
      "for a sweep: the frontier's second metric (default wait_p95, or latency_p95 when the "
      "scenario has only inference services)");
  add_constraint_options(visible);
  const po::variables_map vm = line.parse(args);
  if (vm.count("help")) {
    std::cout << "Writes one self-contained HTML page (no script, nothing loaded from elsewhere: "
                 "inline style and\nSVG figures) describing a results file of `gpucap run -o` or "
                 "`gpucap sweep -o`: the\nscenario, the summary with 95% intervals, "
                 "distributions across replications, utilization,\nand for a sweep the frontier "
                 "and the chosen point: the lowest mean --objective, among\nthe points that meet "
                 "--constraint and --chance when they are given (none is chosen\nwhen no point "
                 "does; each point's standing is in the sweep table).\n\n"
              << visible;
    return 0;
  }
  if (!vm.count("results")) throw po::error("report needs a RESULTS.h5 argument");
  if (!vm.count("output")) throw po::error("report needs -o REPORT.html");
  const std::string input = vm["results"].as<std::string>();
  const std::string output_path = vm["output"].as<std::string>();

  report::ReportOptions options;
  options.objective = vm["objective"].as<std::string>();
  if (vm.count("versus")) options.versus = vm["versus"].as<std::string>();
  if (vm.count("constraint")) options.constraints = vm["constraint"].as<std::vector<std::string>>();
  if (vm.count("chance")) options.chance = vm["chance"].as<std::vector<std::string>>();
  options.conservative = vm.count("conservative") > 0;
  if (vm.count("points")) options.points = vm["points"].as<std::string>();
  options.source = input;
  OutputOptions output;
  output.force = vm.count("force") > 0;
  output.inputs = {input};
  // Refuse the output before reading: writing onto the results file is a mistake to name.
  check_output_path(output_path, output);
  const RunResults results = read_results_hdf5(input);
  const OutputReport written = report::write_report(results, output_path, options, output);
  for (const std::string& stale : written.removed_stale)
    std::cerr << "gpucap: removed '" << text::excerpt(stale, 300)
              << "', a temporary file left by an earlier run that was killed while writing\n";
  std::cout << "report written to " << output_path << "\n";
  return 0;
}

}  // namespace gpucap::cli
