// gpucap: the parts of the results file's writer that live in files of their own (private to
// sim/results/src): the chunked metric datasets, encoded on many threads
// (hdf5_metric_datasets.cpp), and the named dimensions of format 4 (hdf5_dimensions.cpp).
#pragma once
#include <vector>

#include "gpucap/metrics.hpp"
#include "gpucap/results.hpp"
#include "hdf5_handles.hpp"

namespace gpucap::hdf5_detail {

/// Datasets of one shape [points, replications, trailing...] whose values lie strided in one
/// row-major array of (point, replication) rows: element (p, r, t) of dataset d (t the flat
/// index of the trailing dimensions) is source[(p * replications + r) * row_width +
/// d * dataset_stride + t * trailing_stride].
struct MetricSource {
  const double* source = nullptr;
  std::size_t row_width = 0;
  std::size_t dataset_stride = 0;
  std::size_t trailing_stride = 1;
};

/// Writes one double dataset per entry of `infos` (shape `dims`, values from `src`), each with
/// its unit and description. Chunked along replications and checksummed (Fletcher32); large
/// ones also shuffled and deflated. The chunks are encoded on `threads` threads and written in
/// a fixed order: the file's bytes do not depend on the thread count.
void write_metric_datasets(const Context& c, hid_t loc, const std::string& loc_path,
                           const std::vector<MetricInfo>& infos, const MetricSource& src,
                           const std::vector<hsize_t>& dims, unsigned threads);

/// The coordinate datasets and dimension scales of format 4, attached to every array dataset.
void write_dimensions(const Context& c, hid_t file, const RunResults& r);

}  // namespace gpucap::hdf5_detail
