// The libFuzzer target (preset fuzz, clang): each input is a scenario text, run through
// fuzz::run_case; a finding aborts, so that libFuzzer saves the input.
//
//   cmake --preset fuzz && cmake --build --preset fuzz
//   build/fuzz/tests/scenario_libfuzzer -max_total_time=600 -timeout=20 CORPUS_DIR scenarios/
//
// A crash, a hang or a finding is saved by libFuzzer as crash-*/timeout-*; keep it in
// tests/fuzz/regressions/ with a comment saying what it did.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz/fuzz_case.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string finding =
      gpucap::fuzz::run_case(text, std::string(GPUCAP_SOURCE_DIR) + "/scenarios");
  if (!finding.empty()) {
    std::fprintf(stderr, "finding: %s\n", finding.c_str());
    std::abort();
  }
  return 0;
}
