// gpucap CLI: `gpucap catalog` imports price catalogs in SkyPilot's layout and lists catalog
// rows by price per GPU-hour.
//
//   gpucap catalog import vms.csv --provider aws --source "skypilot-catalog v7@abc"
//       --date 2025-06-30 -o catalog.csv
//   gpucap catalog list --gpu H100 [--provider aws] [--region us-east-1] [--catalog FILE]
#include <algorithm>
#include <boost/program_options.hpp>
#include <climits>
#include <cstdlib>
#include <iostream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "gpucap/data/catalog_import.hpp"
#include "gpucap/data/catalog_list.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/input_file.hpp"
#include "gpucap/output_file.hpp"

#include "command_line.hpp"
#include "commands.hpp"

namespace po = boost::program_options;

namespace gpucap::cli {
namespace {

const char* kCatalogUsage =
    "usage: gpucap catalog import SKYPILOT.csv [--provider P] [--source TEXT] [--date YYYY-MM-DD] "
    "-o CATALOG.csv\n"
    "       gpucap catalog list [--catalog FILE] [--gpu MODEL] [--provider P] [--region R] "
    "[--spot]\n"
    "\n"
    "  import  converts a SkyPilot price catalog (catalogs/v7/<cloud>/vms.csv) into gpucap's\n"
    "          catalog layout (data/gpu_prices.csv), one row per instance type and region\n"
    "  list    prints a catalog's rows, cheapest per GPU-hour first\n"
    "\n"
    "'gpucap catalog import --help' and 'gpucap catalog list --help' describe the options;\n"
    "docs/importing.md the layouts.\n";

bool regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

/// The project's catalog when --catalog is not given: data/gpu_prices.csv in the current
/// folder, else beside the build or install tree of this executable (build/<preset>/gpucap ->
/// data/gpu_prices.csv two folders up; bin/gpucap -> share/gpucap/gpu_prices.csv), else the
/// source tree this executable was built from (a build tree elsewhere: cmake -B /elsewhere).
std::string default_catalog() {
  std::vector<std::string> candidates = {"data/gpu_prices.csv"};
  char exe[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    std::string dir(exe, static_cast<std::size_t>(n));
    dir = dir.substr(0, dir.rfind('/'));
    candidates.push_back(dir + "/../../data/gpu_prices.csv");
    candidates.push_back(dir + "/../share/gpucap/gpu_prices.csv");
  }
#ifdef GPUCAP_SOURCE_CATALOG
  candidates.push_back(GPUCAP_SOURCE_CATALOG);
#endif
  for (const std::string& c : candidates)
    if (regular_file(c)) {
      char resolved[PATH_MAX];
      return ::realpath(c.c_str(), resolved) != nullptr ? std::string(resolved) : c;
    }
  throw po::error(
      "no --catalog given and the project's data/gpu_prices.csv was not found (looked "
      "in " +
      text::join(candidates, ", ") + "); give --catalog FILE");
}

int catalog_import(const std::vector<std::string>& args) {
  CommandLine line("gpucap catalog import SKYPILOT.csv -o CATALOG.csv [options]", "input");
  po::options_description& visible = line.options();
  add_output_option(visible, "the catalog to write (atomically)");
  visible.add_options()(
      "provider", po::value<std::string>(),
      "first part of each key (provider/instance_type/region), e.g. aws (default: the input's "
      "folder when it names a cloud, as catalogs/v7/aws/vms.csv)")(
      "source", po::value<std::string>(),
      "the source column, e.g. 'skypilot-org/skypilot-catalog catalogs/v7/aws/vms.csv@001367d' "
      "(default: the input's path)")("date", po::value<std::string>(),
                                     "the retrieved column: when the catalog was retrieved, "
                                     "YYYY-MM-DD (default: unknown)");
  add_max_data_size_option(visible, "largest input read (default 256MiB)");
  add_force_option(visible, "replace a symbolic link at the output path (the link itself)");
  add_quiet_option(visible, "print nothing on success");
  const po::variables_map vm = line.parse(args);
  if (vm.count("help")) {
    std::cout << "Converts a SkyPilot price catalog into gpucap's catalog layout: one row per "
                 "instance type and\nregion (zones folded, lowest prices kept), prices per "
                 "GPU-hour, with source and date.\nRows without accelerators are skipped and "
                 "counted.\n\n"
              << visible;
    return 0;
  }
  if (!vm.count("input")) throw po::error("catalog import needs a SKYPILOT.csv file");
  if (!vm.count("output")) throw po::error("catalog import needs -o CATALOG.csv");
  const std::string input = vm["input"].as<std::string>();
  const std::string output = vm["output"].as<std::string>();
  data::CatalogImportOptions options;
  options.provider =
      vm.count("provider") ? vm["provider"].as<std::string>() : data::provider_from_path(input);
  if (options.provider.empty())
    throw po::error(
        "give --provider (e.g. --provider aws): the input's folder does not name a "
        "cloud");
  if (vm.count("source")) options.source = vm["source"].as<std::string>();
  if (vm.count("date")) {
    options.retrieved = vm["date"].as<std::string>();
    data::check_date(options.retrieved);
  }
  if (vm.count("max-data-size")) {
    try {
      options.max_bytes = parse_byte_size(vm["max-data-size"].as<std::string>());
    } catch (const std::invalid_argument& e) {
      throw po::error(std::string("--max-data-size: ") + e.what());
    }
  }
  OutputOptions out_options;
  out_options.force = vm.count("force") > 0;
  out_options.inputs = {input};
  check_output_path(output, out_options);
  const data::CatalogImport result = data::import_skypilot_catalog(input, options);
  const data::ImportReport& r = result.report;
  if (r.kept == 0) {
    std::cerr << "gpucap: error: no row of '" << text::excerpt(input, 300)
              << "' is a GPU instance with a price and GPU memory (" << r.records
              << " rows read); nothing was written\n";
    for (const auto& c : r.drops())
      std::cerr << "  skipped " << c.count << " rows: " << c.reason << " (first at line "
                << c.first_line << ")\n";
    return 1;
  }
  write_output_atomically(output, result.csv.data(), result.csv.size(), out_options);
  if (!vm.count("quiet")) {
    std::cerr << "gpucap catalog import: " << r.records << " rows read, " << r.kept
              << " catalog rows written (one per instance type and region), " << r.dropped()
              << " rows skipped\n";
    for (const auto& c : r.drops())
      std::cerr << "  skipped " << c.count << " rows: " << c.reason << " (first at line "
                << c.first_line << ")\n";
    for (const auto& c : r.notes()) std::cerr << "  note: " << c.count << " x " << c.reason << "\n";
    std::cout << "catalog written to " << text::excerpt(output, 300) << " (" << r.kept
              << " rows)\n";
  }
  return 0;
}

int catalog_list(const std::vector<std::string>& args) {
  // No file argument: --input is refused with a message that says where the catalog goes.
  CommandLine line("gpucap catalog list [options]", "input", false);
  po::options_description& visible = line.options();
  visible.add_options()("catalog", po::value<std::string>(),
                        "the catalog (default: the project's data/gpu_prices.csv)")(
      "gpu", po::value<std::string>(), "only this GPU model, e.g. H100 (case-insensitive)")(
      "provider", po::value<std::string>(), "only this provider, e.g. aws")(
      "region", po::value<std::string>(), "only this region, e.g. us-east-1")(
      "spot", "sort by the spot price (rows without one left out)");
  add_max_data_size_option(visible, "largest catalog read (default 256MiB)");
  const po::variables_map vm = line.parse(args);
  if (vm.count("help")) {
    std::cout << "Prints the rows of a price catalog, cheapest per GPU-hour first (on-demand, "
                 "or spot with --spot).\n\n"
              << visible;
    return 0;
  }
  if (vm.count("input"))
    throw po::error("catalog list takes no file argument; give the catalog with --catalog FILE");
  uint64_t max_bytes = InputLimits::kDefaultDataBytes;
  if (vm.count("max-data-size")) {
    try {
      max_bytes = parse_byte_size(vm["max-data-size"].as<std::string>());
    } catch (const std::invalid_argument& e) {
      throw po::error(std::string("--max-data-size: ") + e.what());
    }
  }
  const std::string path =
      vm.count("catalog") ? vm["catalog"].as<std::string>() : default_catalog();
  const std::vector<data::CatalogEntry> rows = data::read_price_catalog(path, max_bytes);
  data::CatalogFilter filter;
  if (vm.count("gpu")) filter.gpu = vm["gpu"].as<std::string>();
  if (vm.count("provider")) filter.provider = vm["provider"].as<std::string>();
  if (vm.count("region")) filter.region = vm["region"].as<std::string>();
  filter.by_spot = vm.count("spot") > 0;
  const std::vector<data::CatalogEntry> selected = data::select_catalog_rows(rows, filter);
  if (selected.empty()) {
    std::vector<std::string> models;
    for (const data::CatalogEntry& e : rows) models.push_back(e.gpu_model);
    std::sort(models.begin(), models.end());
    models.erase(std::unique(models.begin(), models.end()), models.end());
    // The first models, each escaped and cut, and how many in all.
    std::string shown;
    std::size_t i = 0;
    for (; i < models.size() && shown.size() < 400; ++i)
      shown += (i ? ", " : "") + text::excerpt(models[i], 40);
    if (i < models.size()) shown += ", ... (" + std::to_string(models.size()) + " in all)";
    std::cerr << "gpucap catalog list: no row of " << text::excerpt(path, 300)
              << " matches; GPU models in it: " << (models.empty() ? "none" : shown) << "\n";
    return 1;
  }
  std::cout << "catalog " << text::excerpt(path, 300) << ": " << selected.size() << " of "
            << rows.size() << " rows, by " << (filter.by_spot ? "spot" : "on-demand")
            << " price per GPU-hour (USD/GPU-h; instance price / GPUs)\n\n"
            << data::format_catalog_table(selected);
  return 0;
}

}  // namespace

int catalog_command(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kCatalogUsage;
    return args.empty() ? 2 : 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  try {
    if (args[0] == "import") return catalog_import(rest);
    if (args[0] == "list") return catalog_list(rest);
  } catch (const po::error& e) {
    // boost quotes arguments as given: an escape sequence in one would reach the terminal.
    throw po::error(text::excerpt(e.what(), 2000));
  }
  std::cerr << "gpucap catalog: unknown subcommand '" << text::excerpt(args[0])
            << "'; valid: import, list\n\n"
            << kCatalogUsage;
  return 2;
}

}  // namespace gpucap::cli
