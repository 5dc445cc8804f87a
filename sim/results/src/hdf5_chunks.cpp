// gpucap: HDF5 chunks encoded outside HDF5 (shuffle, deflate, Fletcher32) and the thread loop
// that encodes many at once.
#include "gpucap/hdf5_chunks.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <zlib.h>

// Chunks hold the host's doubles as the file's H5T_IEEE_F64LE bytes.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "HDF5 chunks assume a little-endian host");

namespace gpucap {

uint32_t hdf5_fletcher32(const unsigned char* data, std::size_t size) {
  // As H5_checksum_fletcher32: 360 words at most between reductions (no 32-bit overflow).
  std::size_t words = size / 2;
  uint32_t sum1 = 0, sum2 = 0;
  while (words > 0) {
    const std::size_t block = std::min<std::size_t>(words, 360);
    words -= block;
    for (std::size_t k = 0; k < block; ++k, data += 2) {
      sum1 += (static_cast<uint32_t>(data[0]) << 8) | data[1];
      sum2 += sum1;
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  }
  if (size % 2 != 0) {
    sum1 += static_cast<uint32_t>(*data) << 8;
    sum2 += sum1;
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  }
  sum1 = (sum1 & 0xffff) + (sum1 >> 16);
  sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  return (sum2 << 16) | sum1;
}

void hdf5_shuffle(const unsigned char* in, std::size_t count, std::size_t element_bytes,
                  unsigned char* out) {
  if (element_bytes == 8) {  // doubles: one 8-byte load per element, eight sequential planes
    for (std::size_t i = 0; i < count; ++i) {
      uint64_t v;
      std::memcpy(&v, in + 8 * i, 8);
      for (std::size_t b = 0; b < 8; ++b)
        out[b * count + i] = static_cast<unsigned char>(v >> (8 * b));  // little-endian host
    }
    return;
  }
  for (std::size_t b = 0; b < element_bytes; ++b) {
    unsigned char* plane = out + b * count;
    const unsigned char* from = in + b;
    for (std::size_t i = 0; i < count; ++i) plane[i] = from[i * element_bytes];
  }
}

namespace {

/// Writes the Fletcher32 checksum of out[0, at) into out[at, at + 4), little-endian, as the
/// Fletcher32 filter stores it.
void append_checksum(std::vector<unsigned char>& out, std::size_t at) {
  const uint32_t checksum = hdf5_fletcher32(out.data(), at);
  for (int k = 0; k < 4; ++k) out[at + k] = static_cast<unsigned char>(checksum >> (8 * k));
}

/// One zlib compressor per thread, reset for each chunk (no allocation per chunk).
class Deflater {
 public:
  Deflater() {
    // Run-length matches only (Z_RLE): on shuffled doubles (planes of sign and exponent bytes,
    // runs of zeros) it compresses as well as level 1's full matching at twice its speed. The
    // stream is an ordinary zlib stream, which every inflate (HDF5's deflate filter) reads.
    ok_ = deflateInit2(&stream_, kChunkDeflateLevel, Z_DEFLATED, 15, 8, Z_RLE) == Z_OK;
  }
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;
  ~Deflater() {
    if (ok_) deflateEnd(&stream_);
  }

  /// Compresses `in` into `out` (resized to the compressed size plus `reserve` bytes).
  void compress(const unsigned char* in, std::size_t size, std::vector<unsigned char>& out,
                std::size_t reserve) {
    if (!ok_) throw std::runtime_error("starting zlib failed (out of memory)");
    int status = deflateReset(&stream_);
    out.resize(deflateBound(&stream_, static_cast<uLong>(size)) + reserve);
    stream_.next_in = const_cast<unsigned char*>(in);
    stream_.avail_in = static_cast<uInt>(size);
    stream_.next_out = out.data();
    stream_.avail_out = static_cast<uInt>(out.size() - reserve);
    if (status == Z_OK) status = deflate(&stream_, Z_FINISH);
    if (status != Z_STREAM_END)
      throw std::runtime_error("compressing a chunk of " + std::to_string(size) +
                               " bytes failed (zlib error " + std::to_string(status) + ")");
    out.resize(stream_.total_out + reserve);
  }

 private:
  z_stream stream_{};
  bool ok_ = false;
};

}  // namespace

void encode_chunk(const double* values, std::size_t count, bool compress,
                  std::vector<unsigned char>& scratch, std::vector<unsigned char>& out) {
  const std::size_t bytes = count * sizeof(double);
  if (!compress) {
    out.resize(bytes + 4);
    if (bytes > 0) std::memcpy(out.data(), values, bytes);
    append_checksum(out, bytes);
    return;
  }
  scratch.resize(bytes);
  hdf5_shuffle(reinterpret_cast<const unsigned char*>(values), count, sizeof(double),
               scratch.data());
  thread_local Deflater deflater;
  deflater.compress(scratch.data(), bytes, out, 4);
  append_checksum(out, out.size() - 4);
}

}  // namespace gpucap
