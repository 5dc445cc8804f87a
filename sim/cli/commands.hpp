// gpucap CLI: the subcommands that live in files of their own. Each takes the arguments after
// its name and returns the exit status; usage errors throw boost::program_options::error or
// std::invalid_argument (exit 2), I/O and unusable inputs throw other std::exception (exit 1),
// as main() maps them.
#pragma once
#include <string>
#include <vector>

namespace gpucap::cli {

/// `gpucap import --format FORMAT INPUT -o trace.csv`: job logs into a trace CSV.
int import_command(const std::vector<std::string>& args);

/// `gpucap catalog import|list ...`: price catalogs.
int catalog_command(const std::vector<std::string>& args);

}  // namespace gpucap::cli
