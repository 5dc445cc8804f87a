// The libFuzzer target of the job-log importers (preset fuzz, clang): the first two bytes of an
// input pick the format and the import options (fuzz::options_from_bits; the first byte modulo
// 6 is the format: slurm, kubernetes, philly, helios, csv, llm), the rest is the log, run through
// fuzz::run_import_case; a finding aborts, so that libFuzzer saves the input.
//
//   cmake --preset fuzz && cmake --build --preset fuzz --target import_libfuzzer
//   build/fuzz/tests/import_libfuzzer -max_total_time=600 -timeout=20 -rss_limit_mb=4096 CORPUS
//
// A seed corpus: each file of tests/fuzz/import_seeds with a first byte naming its format and a
// second byte 0 (e.g. printf '\0\0' | cat - tests/fuzz/import_seeds/slurm.txt > CORPUS/slurm).
// The mutation driver replays what this target saves: the options are the first two bytes as
// a little-endian number (import_mutation_fuzz --replay LOG --options N, LOG without them).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

#include "fuzz/import_fuzz_case.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string dir = [] {
    char name[] = "/tmp/gpucap_import_libfuzzer_XXXXXX";
    if (::mkdtemp(name) == nullptr) std::abort();
    return std::string(name);
  }();
  if (size < 2) return 0;
  const uint32_t bits = static_cast<uint32_t>(data[0]) | (static_cast<uint32_t>(data[1]) << 8);
  const std::string text(reinterpret_cast<const char*>(data) + 2, size - 2);
  const std::string finding =
      gpucap::fuzz::run_import_case(text, gpucap::fuzz::options_from_bits(bits), dir);
  if (!finding.empty()) {
    std::fprintf(stderr, "finding: %s\n", finding.c_str());
    std::abort();
  }
  return 0;
}
