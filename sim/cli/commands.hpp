// gpucap CLI: the subcommands that live in files of their own. Each takes the arguments after
// its name and returns the exit status; usage errors throw boost::program_options::error or
// std::invalid_argument (exit 2), I/O and unusable inputs throw other std::exception (exit 1),
// as main() maps them.
#pragma once
#include <string>
#include <vector>

namespace gpucap::cli {

/// `gpucap explain KEY_PATH...`: what the key table says of each key; exit 2 for an unknown key.
int explain_command(const std::vector<std::string>& args);

/// `gpucap schema`: the JSON Schema of scenario files, for editors' YAML language servers.
int schema_command(const std::vector<std::string>& args);

/// `gpucap info`: version, build options, the backends and the devices they see.
int info_command();

/// `gpucap validate SCENARIO.yaml`: checks a scenario without running it.
int validate_command(const std::vector<std::string>& args);

/// `gpucap import --format FORMAT INPUT -o trace.csv`: job logs into a trace CSV.
int import_command(const std::vector<std::string>& args);

/// `gpucap catalog import|list ...`: price catalogs.
int catalog_command(const std::vector<std::string>& args);

/// `gpucap backtest LOG.csv --pools P.yaml ...`: rolling-origin evaluation of the forecasts
/// (backtest.hpp).
int backtest_command(const std::vector<std::string>& args);

/// `gpucap recommend --lookback WINDOW LOG.csv --ratio R`: the look-back commitment
/// (lookback.hpp).
int recommend_command(const std::vector<std::string>& args);

}  // namespace gpucap::cli
