// gpucap benchmark (issue 15, "fast output"): where the time of a sweep with -o goes. Runs the
// sweep of `gpucap sweep SCENARIO --grid GRID -r R --threads T -o FILE` through the same library
// calls as the CLI and times each phase:
//
//   load      the scenario and every sweep point parsed and checked
//   simulate  the replications (the backend's run: RunResults::wall_time_s)
//   summary   the end-of-run work of run_points: compiling the points, allocating the rows, the
//             across-replication summaries (moments, percentiles) and the goals
//   journal   what the run's journal (OUTPUT.resume, run_journal.hpp) would cost: the same rows
//             in the run's chunks appended to a scratch journal. The CLI keeps one only for a run
//             expected to take more than a minute (or with --journal); this sweep's run, with
//             the journal path set as the CLI sets it, keeps none when it is quicker.
//   write     write_results_hdf5: the HDF5 file built, checksummed and written atomically
//   read      read_results_hdf5 of the file (every checksum verified), and a check that the
//             values read back equal those written
//
//   build/cpu-release/bench/output_bench [--scenario scenarios/spot_training.yaml]
//       [--grid pools.aws-h100-spot.quota=8,16,...,128] [-r 50000] [--threads 2]
//       [--output /tmp/gpucap-output-bench.h5] [--repeat-write 3]
//
// The write is repeated --repeat-write times and the best is reported (least disturbed by other
// load). The output share is write / (simulate + summary + write): the part of a run with -o
// spent writing (issue 15's target: at most 10%); it is also given with the journal's appends.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <time.h>
#include <vector>

#include "gpucap/hdf5_results.hpp"
#include "gpucap/memory_estimate.hpp"
#include "gpucap/run.hpp"
#include "gpucap/run_journal.hpp"
#include "gpucap/scenario_loader.hpp"
#include "gpucap/sweep.hpp"

namespace {

using Clock = std::chrono::steady_clock;

/// CPU seconds of this process so far (every thread).
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

[[noreturn]] void usage(const char* what) {
  std::fprintf(stderr,
               "output_bench: %s\nusage: output_bench [--scenario FILE] [--grid PATH=V1,V2,..] "
               "[-r REPLICATIONS] [--threads T] [--output FILE] [--repeat-write N]\n",
               what);
  std::exit(2);
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

}  // namespace

int main(int argc, char** argv) {
  std::string scenario_path = std::string(GPUCAP_SOURCE_DIR) + "/scenarios/spot_training.yaml";
  std::string grid = "pools.aws-h100-spot.quota=8,16,24,32,40,48,56,64,72,80,88,96,104,112,120,128";
  std::string output = "/tmp/gpucap-output-bench.h5";
  uint64_t replications = 50000;
  int threads = 2;
  int repeat_write = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage(("missing the value of " + arg).c_str());
    const char* value = argv[++i];
    if (arg == "--scenario")
      scenario_path = value;
    else if (arg == "--grid")
      grid = value;
    else if (arg == "-r")
      replications = std::strtoull(value, nullptr, 10);
    else if (arg == "--threads")
      threads = std::atoi(value);
    else if (arg == "--output")
      output = value;
    else if (arg == "--repeat-write")
      repeat_write = std::max(1, std::atoi(value));
    else
      usage(("unknown option " + arg).c_str());
  }
  if (replications == 0) usage("-r must be at least 1");
  if (threads < 0) usage("--threads must be 0 (every core) or more");

  try {
    auto t = Clock::now();
    const gpucap::Scenario base = gpucap::load_scenario(scenario_path);
    const std::vector<gpucap::SweepParameter> parameters =
        gpucap::expand_grid({gpucap::parse_grid_axis(grid)});
    const std::string dir = scenario_path.find('/') == std::string::npos
                                ? "."
                                : scenario_path.substr(0, scenario_path.rfind('/'));
    const std::vector<gpucap::Scenario> points =
        gpucap::load_sweep_points(base.original_text, scenario_path, dir, {}, parameters);
    const double load_s = seconds_since(t);

    gpucap::RunOptions options;
    options.replications = replications;
    options.threads = threads;
    options.backend = gpucap::BackendChoice::cpu;
    options.writes_file = true;
    options.journal_path = gpucap::RunJournal::path_for(output);  // as the CLI's -o
    t = Clock::now();
    gpucap::RunResults results = gpucap::run_points(points, parameters, base, options);
    const double run_s = seconds_since(t);
    const double simulate_s = results.wall_time_s;
    const double summary_s = run_s - simulate_s;

    // The journal's appends apart: the run's rows in its chunks, to a scratch journal.
    t = Clock::now();
    {
      const std::size_t pools = results.pool_count() * gpucap::kPoolMetricCount;
      const uint64_t chunk = gpucap::default_chunk_replications(
          results.points * 8 * (gpucap::kScalarMetricCount + pools), false);
      const auto journal = gpucap::RunJournal::start(output + ".bench", {{"bench", "1"}});
      for (uint64_t first = 0; first < results.replications; first += chunk) {
        gpucap::JournalRecord record;
        record.first = first;
        record.count = record.rows = std::min<uint64_t>(chunk, results.replications - first);
        for (std::size_t p = 0; p < results.points; ++p) {
          const auto row = [&](std::size_t r) { return p * results.replications + r; };
          record.scalars.insert(
              record.scalars.end(),
              results.scalars.begin() + row(first) * gpucap::kScalarMetricCount,
              results.scalars.begin() + row(first + record.count) * gpucap::kScalarMetricCount);
          record.pool_values.insert(
              record.pool_values.end(), results.pool_values.begin() + row(first) * pools,
              results.pool_values.begin() + row(first + record.count) * pools);
        }
        journal->append(std::move(record));
      }
      journal->finish();
    }
    const double journal_s = seconds_since(t);
    std::remove((output + ".bench").c_str());

    double write_s = 0, write_cpu_s = 0;
    for (int k = 0; k < repeat_write; ++k) {
      t = Clock::now();
      const double cpu = cpu_seconds();
      gpucap::OutputOptions write_options;  // as the CLI's -o: encoded on the run's threads
      write_options.threads = static_cast<unsigned>(threads);
      gpucap::write_results_hdf5(results, output, write_options);
      const double s = seconds_since(t);
      if (k == 0 || s < write_s) {
        write_s = s;
        write_cpu_s = cpu_seconds() - cpu;
      }
    }
    struct stat st {};
    const double megabytes = ::stat(output.c_str(), &st) == 0 ? st.st_size / 1e6 : 0.0;

    t = Clock::now();
    const gpucap::RunResults back = gpucap::read_results_hdf5(output);
    const double read_s = seconds_since(t);
    const bool same = same_bits(back.scalars, results.scalars) &&
                      same_bits(back.pool_values, results.pool_values) &&
                      same_bits(back.timeseries, results.timeseries);

    const double total_s = simulate_s + summary_s + write_s;
    std::printf("sweep: %zu points x %llu replications, %d threads, %s\n", results.points,
                static_cast<unsigned long long>(results.replications), results.threads,
                scenario_path.c_str());
    std::printf("  load      %8.3f s\n", load_s);
    std::printf("  simulate  %8.3f s\n", simulate_s);
    std::printf("  summary   %8.3f s   (compile, rows, summaries, goals)\n", summary_s);
    std::printf(
        "  journal   %8.3f s   (appends of the same rows, timed apart; kept by runs over a "
        "minute or with --journal)\n",
        journal_s);
    std::printf("  write     %8.3f s   (best of %d; %.3f s of CPU; %.1f MB, %.0f MB/s)\n", write_s,
                repeat_write, write_cpu_s, megabytes, write_s > 0 ? megabytes / write_s : 0.0);
    std::printf("  read      %8.3f s   (every checksum verified; values %s)\n", read_s,
                same ? "identical" : "DIFFER");
    std::printf("  output share of the run: %.1f %% (target <= 10 %%); with a journal %.1f %%\n",
                100.0 * write_s / total_s, 100.0 * (journal_s + write_s) / (total_s + journal_s));
    std::remove(output.c_str());
    std::remove(options.journal_path.c_str());  // as the CLI once the file is written
    return same ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "output_bench: error: %s\n", e.what());
    return 2;
  }
}
