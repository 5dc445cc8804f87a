// gpucap: SHA-256 (FIPS 180-4), for the provenance of the data files a run reads.
//
// Incremental: feed bytes with update() in any pieces, then read hex() once.
//
//   gpucap::Sha256 h;
//   h.update(text.data(), text.size());
//   std::string digest = h.hex();   // 64 lowercase hex digits, as sha256sum prints
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace gpucap {

class Sha256 {
 public:
  Sha256();
  /// Adds `size` bytes at `data` to the message.
  void update(const void* data, std::size_t size);
  /// Ends the message and returns its 32-byte digest; the object is then spent (call reset()).
  std::array<uint8_t, 32> digest();
  /// The digest as 64 lowercase hex digits.
  std::string hex();
  /// Starts a new message.
  void reset();

 private:
  /// `blocks` 64-byte blocks into state_: with the x86 SHA extensions where the CPU has them
  /// (about 1.5 GB/s), else in portable C++ (about 0.25 GB/s); the same digest either way.
  void compress(const uint8_t* data, std::size_t blocks);

  std::array<uint32_t, 8> state_{};
  std::array<uint8_t, 64> buffer_{};  ///< bytes of a block not yet compressed
  std::size_t buffered_ = 0;          ///< bytes in buffer_, < 64
  uint64_t length_bytes_ = 0;         ///< message length so far
};

/// Whether this CPU hashes with the x86 SHA extensions (tests compare both paths).
bool sha256_uses_cpu_extensions();
/// Forces the portable path (true) or lets the CPU's be used (false), for tests.
void sha256_force_portable(bool portable);

/// SHA-256 of `size` bytes at `data`, as 64 lowercase hex digits.
std::string sha256_hex(const void* data, std::size_t size);

}  // namespace gpucap
