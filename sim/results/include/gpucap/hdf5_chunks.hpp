// gpucap: HDF5 chunks encoded outside HDF5, so that many threads can compress a results file's
// large datasets at once (HDF5's own filter pipeline runs on the calling thread, a chunk at a
// time, and the serial library may not be called from several threads).
//
// A chunk encoded here is what HDF5's filter pipeline stores for the filters byte shuffle,
// deflate, Fletcher32 (in that order) or Fletcher32 alone, and is written with H5Dwrite_chunk
// (filter mask 0: every filter applied). Any HDF5 reader (h5py, h5netcdf, netCDF-C, HDFView)
// decodes it with the built-in filters. Nothing here calls HDF5, so the functions may run on any
// thread.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpucap {

/// Deflate (zlib) level of compressed chunks, recorded in the datasets' filter pipeline. The
/// chunks are compressed with zlib's run-length strategy (Z_RLE): on shuffled doubles it gives
/// smaller files than level 1's full matching in half its time, and level 4 (gpucap before
/// issue 15) in a third (bench/output_bench). Any inflate reads the stream.
inline constexpr int kChunkDeflateLevel = 1;

/// HDF5's Fletcher32 checksum (H5_checksum_fletcher32): two sums of 16-bit big-endian words
/// folded with end-around carry (an odd last byte is the high byte of a word), sum2 << 16 |
/// sum1; the Fletcher32 filter stores it after the chunk's bytes, little-endian.
uint32_t hdf5_fletcher32(const unsigned char* data, std::size_t size);

/// HDF5's byte shuffle of `count` elements of `element_bytes` bytes: byte b of element i goes
/// to out[b * count + i] (all first bytes, then all second bytes, ...).
void hdf5_shuffle(const unsigned char* in, std::size_t count, std::size_t element_bytes,
                  unsigned char* out);

/// The stored bytes of one chunk of `count` doubles (a whole chunk: edge chunks padded by the
/// caller with the fill value 0): shuffled, deflated (Z_RLE) and checksummed when `compress`,
/// else only checksummed (then the very bytes HDF5's pipeline stores). `scratch` is reused between
/// calls. Throws std::runtime_error when zlib fails (out of memory).
void encode_chunk(const double* values, std::size_t count, bool compress,
                  std::vector<unsigned char>& scratch, std::vector<unsigned char>& out);

}  // namespace gpucap
