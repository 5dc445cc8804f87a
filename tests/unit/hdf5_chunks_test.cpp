// Tests of the HDF5 chunks gpucap encodes itself (hdf5_chunks.hpp): the bytes HDF5's own filter
// pipeline stores, chunks that HDF5 decodes to the same values, and the thread loop.
#include "gpucap/hdf5_chunks.hpp"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/parallel_for.hpp"

namespace gpucap {
namespace {

/// An HDF5 file in memory (core driver, no file on disk), closed at the end of the test.
class MemoryFile {
 public:
  MemoryFile() {
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_core(fapl, 1 << 20, 0);
    static int serial = 0;
    const std::string name = "hdf5_chunks_test_" + std::to_string(serial++);
    id_ = H5Fcreate(name.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
  }
  ~MemoryFile() { H5Fclose(id_); }
  hid_t id() const { return id_; }

 private:
  hid_t id_;
};

/// A one-dimensional dataset of `n` elements of `type` in one chunk, with the filters given
/// (in that order: shuffle, deflate at level 1, Fletcher32).
hid_t one_chunk_dataset(hid_t file, const char* name, hid_t type, hsize_t n, bool shuffle,
                        bool deflate) {
  const hid_t space = H5Screate_simple(1, &n, nullptr);
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 1, &n);
  if (shuffle) H5Pset_shuffle(dcpl);
  if (deflate) H5Pset_deflate(dcpl, kChunkDeflateLevel);
  H5Pset_fletcher32(dcpl);
  const hid_t dset = H5Dcreate2(file, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Pclose(dcpl);
  H5Sclose(space);
  return dset;
}

/// The stored (filtered) bytes of the chunk at 0 of `dset`.
std::vector<unsigned char> stored_chunk(hid_t dset) {
  const hsize_t offset = 0;
  hsize_t size = 0;
  EXPECT_GE(H5Dget_chunk_storage_size(dset, &offset, &size), 0);
  std::vector<unsigned char> bytes(size);
  uint32_t filters = 0;
  EXPECT_GE(H5Dread_chunk(dset, H5P_DEFAULT, &offset, &filters, bytes.data()), 0);
  EXPECT_EQ(filters, 0u);
  return bytes;
}

std::vector<double> random_doubles(std::size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1e6, 1e6);
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i % 3 == 0 ? std::floor(u(rng)) : u(rng);
  return v;
}

TEST(Hdf5Chunks, Fletcher32OfAHandWorkedBuffer) {
  // Words 0x0102, then the odd byte 0x03 as 0x0300: sum1 = 0x0102 + 0x0300 = 0x0402, sum2 =
  // 0x0102 + 0x0402 = 0x0504.
  const unsigned char bytes[] = {0x01, 0x02, 0x03};
  EXPECT_EQ(hdf5_fletcher32(bytes, 3), 0x05040402u);
  EXPECT_EQ(hdf5_fletcher32(bytes, 2), 0x01020102u);
}

TEST(Hdf5Chunks, Fletcher32MatchesHdf5OnOddAndEvenLengths) {
  MemoryFile file;
  for (const hsize_t n : {1u, 3u, 719u, 720u, 721u, 5001u}) {  // 360 words = 720 bytes a block
    std::vector<unsigned char> bytes(n);
    for (hsize_t i = 0; i < n; ++i) bytes[i] = static_cast<unsigned char>(i * 37 + 11);
    const std::string name = "u8_" + std::to_string(n);
    const hid_t dset =
        one_chunk_dataset(file.id(), name.c_str(), H5T_NATIVE_UINT8, n, false, false);
    ASSERT_GE(H5Dwrite(dset, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()), 0);
    const std::vector<unsigned char> stored = stored_chunk(dset);
    H5Dclose(dset);
    ASSERT_EQ(stored.size(), n + 4);
    const uint32_t sum = hdf5_fletcher32(bytes.data(), bytes.size());
    for (int k = 0; k < 4; ++k)
      EXPECT_EQ(stored[n + k], static_cast<unsigned char>(sum >> (8 * k))) << n << " byte " << k;
  }
}

TEST(Hdf5Chunks, PlainAndShuffledChunksAreTheBytesHdf5Stores) {
  MemoryFile file;
  const std::vector<double> values = random_doubles(1001, 1);
  std::vector<unsigned char> scratch, encoded;
  // Fletcher32 alone: the values' bytes, then the checksum.
  hid_t dset = one_chunk_dataset(file.id(), "plain", H5T_IEEE_F64LE, values.size(), false, false);
  ASSERT_GE(H5Dwrite(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  encode_chunk(values.data(), values.size(), false, scratch, encoded);
  EXPECT_EQ(stored_chunk(dset), encoded);
  H5Dclose(dset);
  // Shuffle and Fletcher32: HDF5's shuffle is hdf5_shuffle.
  dset = one_chunk_dataset(file.id(), "shuffled", H5T_IEEE_F64LE, values.size(), true, false);
  ASSERT_GE(H5Dwrite(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  std::vector<unsigned char> shuffled(values.size() * 8 + 4);
  hdf5_shuffle(reinterpret_cast<const unsigned char*>(values.data()), values.size(), 8,
               shuffled.data());
  const uint32_t sum = hdf5_fletcher32(shuffled.data(), values.size() * 8);
  for (int k = 0; k < 4; ++k)
    shuffled[values.size() * 8 + k] = static_cast<unsigned char>(sum >> (8 * k));
  EXPECT_EQ(stored_chunk(dset), shuffled);
  H5Dclose(dset);
}

TEST(Hdf5Chunks, CompressedChunksReadBackThroughHdf5BitForBit) {
  MemoryFile file;
  bool odd_seen = false;
  std::vector<std::size_t> sizes = {4096, 100003};
  for (std::size_t n = 1; n < 40; ++n) sizes.push_back(n);
  for (const std::size_t n : sizes) {
    std::vector<double> values = random_doubles(n, n);
    if (n > 2) {
      values[1] = -0.0;
      values[2] = std::numeric_limits<double>::quiet_NaN();
    }
    std::vector<unsigned char> scratch, encoded;
    encode_chunk(values.data(), n, true, scratch, encoded);
    odd_seen = odd_seen || (encoded.size() - 4) % 2 == 1;
    const std::string name = "deflated_" + std::to_string(n);
    const hid_t dset = one_chunk_dataset(file.id(), name.c_str(), H5T_IEEE_F64LE, n, true, true);
    const hsize_t offset = 0;
    ASSERT_GE(H5Dwrite_chunk(dset, H5P_DEFAULT, 0, &offset, encoded.size(), encoded.data()), 0);
    std::vector<double> back(n);
    ASSERT_GE(H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, back.data()), 0)
        << "HDF5 refused the chunk of " << n << " values (Fletcher32 or inflate)";
    EXPECT_EQ(std::memcmp(back.data(), values.data(), n * sizeof(double)), 0) << n;
    H5Dclose(dset);
  }
  // At least one checksum above ran over an odd length (else the odd-byte rule went untested).
  EXPECT_TRUE(odd_seen);
}

TEST(Hdf5Chunks, ACorruptedCompressedChunkIsRefusedByHdf5) {
  MemoryFile file;
  const std::vector<double> values = random_doubles(5000, 9);
  std::vector<unsigned char> scratch, encoded;
  encode_chunk(values.data(), values.size(), true, scratch, encoded);
  encoded[encoded.size() / 2] ^= 0x10;
  const hid_t dset = one_chunk_dataset(file.id(), "bad", H5T_IEEE_F64LE, values.size(), true, true);
  const hsize_t offset = 0;
  ASSERT_GE(H5Dwrite_chunk(dset, H5P_DEFAULT, 0, &offset, encoded.size(), encoded.data()), 0);
  std::vector<double> back(values.size());
  H5E_BEGIN_TRY {
    EXPECT_LT(H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, back.data()), 0);
  }
  H5E_END_TRY;
  H5Dclose(dset);
}

TEST(Hdf5Chunks, ParallelForRunsEveryIndexOnceAndRethrows) {
  std::vector<std::atomic<int>> runs(1000);
  parallel_for(runs.size(), 4, [&](std::size_t i) { ++runs[i]; });
  for (std::size_t i = 0; i < runs.size(); ++i) ASSERT_EQ(runs[i].load(), 1) << i;
  parallel_for(0, 4, [](std::size_t) { FAIL() << "no index to run"; });
  EXPECT_THROW(parallel_for(100, 3,
                            [](std::size_t i) {
                              if (i == 42) throw std::runtime_error("task 42");
                            }),
               std::runtime_error);
}

}  // namespace
}  // namespace gpucap
