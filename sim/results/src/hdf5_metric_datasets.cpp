// gpucap: the results file's metric datasets ([points, replications, ...] of doubles), chunked,
// and their chunks encoded on many threads (hdf5_chunks.hpp) and written whole.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "gpucap/hdf5_chunks.hpp"
#include "gpucap/parallel_for.hpp"
#include "hdf5_write.hpp"

namespace gpucap::hdf5_detail {
namespace {

/// Datasets with at least this many elements are chunked and deflated; smaller ones contiguous.
constexpr hsize_t kCompressMinElements = 4096;
/// Upper bound on the elements of one chunk of a metric dataset (131072 doubles = 1 MiB).
constexpr hsize_t kMaxChunkElements = 131072;

/// The chunk shape of a metric dataset of shape `dims` ([points, replications, trailing...]):
/// one point, a run of replications, every trailing dimension whole; at most kMaxChunkElements
/// (when the trailing dimensions alone exceed it, one replication and a run of the last
/// dimension). The run of replications depends on the trailing dimensions only (clamped to the
/// dataset), so datasets extendible along replications (unlimited maxdims) could keep it.
std::vector<hsize_t> metric_chunk_shape(const std::vector<hsize_t>& dims) {
  std::vector<hsize_t> chunk = dims;
  chunk[0] = 1;
  hsize_t inner = 1;
  for (std::size_t i = 2; i < dims.size(); ++i) inner *= dims[i];
  chunk[1] = std::max<hsize_t>(
      1, std::min<hsize_t>(dims[1], kMaxChunkElements / std::max<hsize_t>(1, inner)));
  if (inner > kMaxChunkElements) {  // many pools x bins: split the trailing dimensions too
    for (std::size_t i = 2; i < chunk.size(); ++i) chunk[i] = 1;
    chunk.back() = std::min<hsize_t>(dims.back(), kMaxChunkElements);
  }
  return chunk;
}

/// Creates the datasets of `infos` in `loc` (shape `dims`, chunks `chunk`), each with its unit
/// and description: the filter pipeline encode_chunk reproduces, when they have elements.
std::vector<Handle> create_metric_datasets(const Context& c, hid_t loc, const std::string& loc_path,
                                           const std::vector<MetricInfo>& infos,
                                           const std::vector<hsize_t>& dims,
                                           const std::vector<hsize_t>& chunk, bool compress) {
  const bool elements = element_count(dims) > 0;
  std::vector<Handle> datasets;
  for (const MetricInfo& info : infos) {
    const std::string full = join_path(loc_path, info.name);
    const std::string what = "dataset '" + full + "'";
    Handle space = make_space(c, dims);
    Handle dcpl = c.plist(H5Pcreate(H5P_DATASET_CREATE), "creating a dataset property list");
    if (elements) {
      c.check_status(H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()),
                     "setting the chunk shape of " + what);
      // The pipeline encode_chunk reproduces, in this order.
      if (compress) {
        c.check_status(H5Pset_shuffle(dcpl.get()), "enabling the byte shuffle for " + what);
        c.check_status(H5Pset_deflate(dcpl.get(), kChunkDeflateLevel),
                       "enabling deflate for " + what);
      }
      c.check_status(H5Pset_fletcher32(dcpl.get()), "enabling checksums for " + what);
    }
    datasets.push_back(c.dataset(H5Dcreate2(loc, info.name, H5T_IEEE_F64LE, space.get(),
                                            H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                                 "creating " + what));
    write_string_attr(c, datasets.back().get(), full, h5::kMetricUnit.name, info.unit);
    write_string_attr(c, datasets.back().get(), full, h5::kMetricDescription.name,
                      info.description);
  }
  return datasets;
}

/// One chunk of every dataset: rows x values of it hold data (the rest is the fill value 0).
struct ChunkJob {
  std::size_t point, row0, rows, t0, values;
  std::vector<hsize_t> offset;  ///< the chunk's first element in the dataset
};

/// The chunk grid of datasets of shape `dims` in chunks `chunk`: points x runs of replications x
/// runs of the flat trailing index, job j in that order.
class ChunkGrid {
 public:
  ChunkGrid(const std::vector<hsize_t>& dims, const std::vector<hsize_t>& chunk) : dims_(dims) {
    reps_ = dims[1];
    for (std::size_t i = 2; i < dims.size(); ++i) inner_ *= dims[i];
    // Split: the trailing dimensions exceed a chunk, which holds one row's run of the last one.
    split_ = dims.size() > 2 && inner_ > kMaxChunkElements;
    chunk_rows_ = chunk[1];
    last_ = dims.size() > 2 ? dims.back() : 1;
    chunk_inner_ = split_ ? chunk.back() : inner_;  // trailing values per row
    row_blocks_ = (reps_ + chunk_rows_ - 1) / chunk_rows_;
    blocks_per_row_ = split_ ? (last_ + chunk_inner_ - 1) / chunk_inner_ : 1;
    inner_blocks_ = split_ ? (inner_ / last_) * blocks_per_row_ : 1;
  }
  std::size_t jobs() const { return dims_[0] * row_blocks_ * inner_blocks_; }
  std::size_t chunk_rows() const { return chunk_rows_; }
  std::size_t chunk_inner() const { return chunk_inner_; }
  std::size_t chunk_elements() const { return chunk_rows_ * chunk_inner_; }
  std::size_t reps() const { return reps_; }

  ChunkJob job(std::size_t j) const {
    ChunkJob job;
    const std::size_t ib = j % inner_blocks_, rb = (j / inner_blocks_) % row_blocks_;
    job.point = j / inner_blocks_ / row_blocks_;
    job.row0 = rb * chunk_rows_;
    job.rows = std::min(chunk_rows_, reps_ - job.row0);
    job.offset.assign(dims_.size(), 0);
    job.offset[0] = job.point;
    job.offset[1] = job.row0;
    if (split_) {
      const std::size_t prefix = ib / blocks_per_row_, b0 = (ib % blocks_per_row_) * chunk_inner_;
      job.t0 = prefix * last_ + b0;
      job.values = std::min(chunk_inner_, last_ - b0);
      std::size_t rest = prefix;  // the prefix's index along every trailing dim but the last
      for (std::size_t i = dims_.size() - 1; i-- > 2;) {
        job.offset[i] = rest % dims_[i];
        rest /= dims_[i];
      }
      job.offset.back() = b0;
    } else {
      job.t0 = 0;
      job.values = inner_;
    }
    return job;
  }

 private:
  std::vector<hsize_t> dims_;
  std::size_t reps_ = 0, inner_ = 1, chunk_rows_ = 0, last_ = 1, chunk_inner_ = 0;
  std::size_t row_blocks_ = 0, blocks_per_row_ = 1, inner_blocks_ = 1;
  bool split_ = false;
};

/// Gathers job's chunk of each of `count` datasets from `src` and encodes it into encoded[d].
void encode_job(const ChunkGrid& grid, const ChunkJob& job, const MetricSource& src,
                std::size_t count, bool compress, std::vector<unsigned char>* encoded) {
  const std::size_t chunk_elements = grid.chunk_elements();
  // The job's chunks gathered (uninitialized but for edge chunks: they need the fill value).
  const std::unique_ptr<double[]> values(new double[count * chunk_elements]);
  thread_local std::vector<unsigned char> scratch;
  if (job.rows < grid.chunk_rows() || job.values < grid.chunk_inner())
    std::fill(values.get(), values.get() + count * chunk_elements, 0.0);
  for (std::size_t i = 0; i < job.rows; ++i) {
    const double* row = src.source + (job.point * grid.reps() + job.row0 + i) * src.row_width +
                        job.t0 * src.trailing_stride;
    for (std::size_t d = 0; d < count; ++d) {
      const double* from = row + d * src.dataset_stride;
      double* to = values.get() + d * chunk_elements + i * grid.chunk_inner();
      for (std::size_t t = 0; t < job.values; ++t) to[t] = from[t * src.trailing_stride];
    }
  }
  for (std::size_t d = 0; d < count; ++d)
    encode_chunk(values.get() + d * chunk_elements, chunk_elements, compress, scratch,
                 encoded[d]);
}

}  // namespace

/// Writes one double dataset per entry of `infos` (shape `dims`, values from `src`), each with
/// its unit and description. Chunked (metric_chunk_shape) and checksummed (Fletcher32); with at
/// least kCompressMinElements elements also shuffled and deflated. The chunks are gathered
/// from `src` and encoded on `threads` threads (hdf5_chunks.hpp), a bounded batch at a time,
/// and written whole with H5Dwrite_chunk in a fixed order: the file's bytes do not depend on
/// the thread count.
void write_metric_datasets(const Context& c, hid_t loc, const std::string& loc_path,
                           const std::vector<MetricInfo>& infos, const MetricSource& src,
                           const std::vector<hsize_t>& dims, unsigned threads) {
  const std::size_t count = infos.size();
  const hsize_t elements = element_count(dims);
  const bool compress = elements >= kCompressMinElements;
  const std::vector<hsize_t> chunk = elements > 0 ? metric_chunk_shape(dims) : dims;
  const std::vector<Handle> datasets =
      create_metric_datasets(c, loc, loc_path, infos, dims, chunk, compress);
  if (elements == 0 || count == 0) return;

  const ChunkGrid grid(dims, chunk);
  const std::size_t jobs = grid.jobs();
  // Encoded chunks of a batch of jobs (count per job), in job order; bounded to about
  // kBatchBytes of raw values (at least one job per thread, whole rounds of them).
  const unsigned workers = resolve_parallel_threads(threads);
  constexpr std::size_t kBatchBytes = std::size_t{64} << 20;
  const std::size_t job_bytes = count * grid.chunk_elements() * sizeof(double);
  const std::size_t batch =  // whole rounds of the workers
      workers *
      std::max<std::size_t>(1, kBatchBytes / std::max<std::size_t>(1, job_bytes) / workers);
  std::vector<std::vector<unsigned char>> encoded(std::min(batch, jobs) * count);
  for (std::size_t first = 0; first < jobs; first += batch) {
    const std::size_t n = std::min(batch, jobs - first);
    parallel_for(n, workers, [&](std::size_t k) {
      encode_job(grid, grid.job(first + k), src, count, compress, &encoded[k * count]);
    });
    for (std::size_t k = 0; k < n; ++k) {
      const ChunkJob job = grid.job(first + k);
      for (std::size_t d = 0; d < count; ++d) {
        const std::vector<unsigned char>& bytes = encoded[k * count + d];
        c.check_status(H5Dwrite_chunk(datasets[d].get(), H5P_DEFAULT, 0, job.offset.data(),
                                      bytes.size(), bytes.data()),
                       "writing a chunk of dataset '" + join_path(loc_path, infos[d].name) + "'");
      }
    }
  }
}

}  // namespace gpucap::hdf5_detail
