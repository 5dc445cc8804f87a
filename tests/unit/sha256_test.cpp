// SHA-256 against the NIST test vectors (FIPS 180-4 examples and the CAVP short/long messages),
// on both the portable path and the CPU's SHA extensions where it has them.
#include "gpucap/sha256.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

struct Vector {
  std::string message;
  const char* digest;
};

std::vector<Vector> nist_vectors() {
  return {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrl"
       "mnopqrsmnopqrstnopqrstu",
       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
      {std::string(1000000, 'a'),
       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
      // CAVP SHA256ShortMsg: one byte 0xd3, and 0x5738c929c4f4ccb6.
      {std::string("\xd3", 1), "28969cdfa74a12c82f3bad960b0b000aca2ac329deea5c2328ebc6f2ba9802c1"},
      {std::string("\x57\x38\xc9\x29\xc4\xf4\xcc\xb6", 8),
       "963bb88f27f512777aab6c8b1a02c70ec0ad651d428f870036e1917120fb48bf"},
  };
}

void expect_vectors() {
  for (const Vector& v : nist_vectors()) {
    EXPECT_EQ(gpucap::sha256_hex(v.message.data(), v.message.size()), v.digest)
        << "message of " << v.message.size() << " bytes";
    // The same digest when fed in uneven pieces (buffering across blocks).
    gpucap::Sha256 h;
    for (std::size_t i = 0, step = 1; i < v.message.size(); i += step, step = step * 3 % 97 + 1)
      h.update(v.message.data() + i, std::min(step, v.message.size() - i));
    EXPECT_EQ(h.hex(), v.digest) << "message of " << v.message.size() << " bytes, in pieces";
  }
}

TEST(Sha256, NistVectorsOnThisCpu) { expect_vectors(); }

TEST(Sha256, NistVectorsPortable) {
  gpucap::sha256_force_portable(true);
  expect_vectors();
  gpucap::sha256_force_portable(false);
}

TEST(Sha256, BothPathsAgreeOnEveryLengthAroundBlocks) {
  std::string message;
  for (int i = 0; i < 300; ++i) {
    const std::string cpu = gpucap::sha256_hex(message.data(), message.size());
    gpucap::sha256_force_portable(true);
    const std::string portable = gpucap::sha256_hex(message.data(), message.size());
    gpucap::sha256_force_portable(false);
    ASSERT_EQ(cpu, portable) << "length " << message.size();
    message += static_cast<char>(i * 131 + 7);
  }
}

TEST(Sha256, ResetStartsANewMessage) {
  gpucap::Sha256 h;
  h.update("xyz", 3);
  (void)h.hex();
  h.reset();
  h.update("abc", 3);
  EXPECT_EQ(h.hex(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
