// gpucap: the HDF5 results file (layout in docs/results-format.md).
//
// The file holds every per-replication value of every metric, the across-replication summaries,
// the sweep grid and the run's provenance (version, scenario text, seed, backend). Both functions
// use the HDF5 C library, which (in its serial build) is not thread-safe: do not call them from
// several threads at once. They switch off HDF5's automatic printing of its error stack for the
// process; errors are reported only through the exceptions they throw.
#pragma once
#include <cstddef>
#include <string>

#include "gpucap/output_file.hpp"
#include "gpucap/results.hpp"
#include "gpucap/scenario.hpp"

namespace gpucap {

/// Version of the file layout written by write_results_hdf5 (root attribute format_version).
/// 2 added the original scenario text, the overrides, Fletcher32 checksums on every dataset
/// and the content checksum; 3 the data files' provenance (/inputs); 4 named dimensions (HDF5
/// dimension scales and coordinate datasets, netCDF-4 style: xarray opens the file with
/// dimensions point, replication, pool, time), the goals (/goals) and the stopping rule; 5 the
/// rows kept (kept_replications, with /difference_summary and /goals/met_count: a run of
/// `--rows none | first N`). Files of version 1 are still read (without those checks), of
/// version 2 (without /inputs), 3 and 4.
inline constexpr int kResultsFormatVersion = 5;

/// Most replications (and sweep points) a results file may hold: larger counts in a file are
/// refused as corrupt before anything is allocated.
inline constexpr std::size_t kMaxResultsReplications = kMaxReplications;

/// Writes `results` to `path` atomically and safely (see output_file.hpp: never through a
/// link, never onto a special file or an input of the run (`results.input_files` and
/// `options.inputs`), a temporary file removed on failure or SIGINT/SIGTERM). The file is
/// built in memory, then written. Throws OutputError, or std::runtime_error naming the path and
/// what failed (including result arrays whose sizes do not match results.hpp's layouts).
OutputReport write_results_hdf5(const RunResults& results, const std::string& path,
                                const OutputOptions& options = {});

/// Reads a file written by write_results_hdf5 back into a RunResults (all fields incl.
/// summaries). Every dataset's Fletcher32 checksum and the file's content checksum are
/// verified, so a corrupt file is refused rather than read with changed values. Throws
/// std::runtime_error naming the path and what is wrong.
RunResults read_results_hdf5(const std::string& path);

}  // namespace gpucap
