// gpucap: the results file's integrity (private to sim/results/src): the checksum of its
// content (every value the reader returns, computed from the values, not the bytes), the user
// block at its start with the checksum and size of its bytes, and the whole-file read that
// checks them before HDF5 parses anything.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpucap/results.hpp"
#include "hdf5_handles.hpp"

namespace gpucap::hdf5_detail {

/// The metrics a file lacks because it was written before them (hdf5_read.cpp's may_be_absent):
/// scalar metrics and pool metrics, by index.
struct AbsentMetrics {
  std::vector<std::size_t> scalar, pool;
};

/// A 64-bit checksum of everything read_results_hdf5 returns, the same on any machine.
/// `format`: the file's format version (the data files count from version 3). `absent`: the
/// metrics the file lacks, hashed as the file's writer did, without their columns.
uint64_t content_checksum(const RunResults& r, int format, const AbsentMetrics& absent = {});

/// Fills the user block (the first kUserBlockBytes of `image`, which HDF5 left as zeros) with
/// the checksum and size of the `size` bytes of the image.
void write_user_block(char* image, std::size_t size);

/// True when `image` starts with gpucap's user block and its checksum and size hold; throws
/// when the user block is there but they do not; false when there is none (a file written
/// before format 2, or rewritten by another tool).
bool verify_user_block(const Context& c, const std::vector<char>& image);

/// True when an HDF5 superblock signature is at byte 0 or at a power of two from 512 on.
bool has_hdf5_signature(const std::vector<char>& image);

/// The whole file at `path` (a regular file), as bytes.
std::vector<char> read_whole_file(const Context& c, const std::string& path);

}  // namespace gpucap::hdf5_detail
