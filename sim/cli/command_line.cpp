// gpucap CLI: the commands' one option parser (see command_line.hpp).
#include "command_line.hpp"

namespace po = boost::program_options;

namespace gpucap::cli {

CommandLine::CommandLine(const std::string& usage, const char* positional, bool takes_positional)
    : visible_(usage), positional_(positional), takes_positional_(takes_positional) {
  visible_.add_options()("help,h", "show this help");
}

po::variables_map CommandLine::parse(const std::vector<std::string>& args) const {
  po::options_description all = visible_;
  all.add_options()(positional_, po::value<std::string>());
  po::positional_options_description pos;
  if (takes_positional_) pos.add(positional_, 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  po::notify(vm);
  return vm;
}

void add_output_option(po::options_description& o, const char* help) {
  o.add_options()("output,o", po::value<std::string>(), help);
}

void add_force_option(po::options_description& o, const char* help) {
  o.add_options()("force", help);
}

void add_quiet_option(po::options_description& o, const char* help) {
  o.add_options()("quiet,q", help);
}

void add_max_data_size_option(po::options_description& o, const char* help) {
  o.add_options()("max-data-size", po::value<std::string>(), help);
}

void add_metrics_option(po::options_description& o, const char* help) {
  o.add_options()("metrics,m", po::value<std::string>(), help);
}

void add_objective_option(po::options_description& o, const char* help,
                          const char* default_value) {
  if (default_value != nullptr)
    o.add_options()("objective", po::value<std::string>()->default_value(default_value), help);
  else
    o.add_options()("objective", po::value<std::string>(), help);
}

}  // namespace gpucap::cli
