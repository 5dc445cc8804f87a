// gpucap: the HDF5 results file (layout in docs/results-format.md).
//
// The file holds every per-replication value of every metric, the across-replication summaries,
// the sweep grid and the run's provenance (version, scenario text, seed, backend). Both functions
// use the HDF5 C library, which (in its serial build) is not thread-safe: do not call them from
// several threads at once. They switch off HDF5's automatic printing of its error stack for the
// process; errors are reported only through the exceptions they throw.
#pragma once
#include <string>

#include "gpucap/results.hpp"

namespace gpucap {

/// Version of the file layout written by write_results_hdf5 (root attribute format_version).
inline constexpr int kResultsFormatVersion = 1;

/// Writes `results` to `path` atomically: into "<path>.tmp.<pid>" first, then rename(2). Throws
/// std::runtime_error with a clear message (path, what failed) on error, including when the
/// sizes of the result arrays do not match the layouts documented in results.hpp; never leaves a
/// partial file at `path` (an existing file there is replaced only on success).
void write_results_hdf5(const RunResults& results, const std::string& path);

/// Reads a file written by write_results_hdf5 back into a RunResults (all fields incl.
/// summaries). Throws std::runtime_error naming the path and the missing object on error.
RunResults read_results_hdf5(const std::string& path);

}  // namespace gpucap
