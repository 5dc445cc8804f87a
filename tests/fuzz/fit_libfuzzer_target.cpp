// The libFuzzer target of `gpucap fit` (preset fuzz, clang): the first 4 input bytes are the
// case's options (fuzz::fit_catalog_options, kind fit), the rest the trace CSV; the case runs
// through fuzz::run_fit_case (fit, then the section loaded back); a finding aborts, so that
// libFuzzer saves the input.
//
//   build/fuzz/tests/fit_libfuzzer -max_total_time=600 -timeout=20 -rss_limit_mb=4096 CORPUS_DIR
//
// Keep what it finds in tests/reliability/fit_catalog_hostile_test.cpp, with what it did.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

#include "fuzz/fit_catalog_fuzz_case.hpp"

namespace {

/// A folder of this process for the files a case writes.
const std::string& work_dir() {
  static const std::string dir = [] {
    char name[] = "/tmp/gpucap-fit-libfuzzer-XXXXXX";
    if (::mkdtemp(name) == nullptr) std::abort();
    return std::string(name);
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uint32_t bits = 0;
  if (size >= 4) std::memcpy(&bits, data, 4);
  gpucap::fuzz::FitCatalogOptions options = gpucap::fuzz::fit_catalog_options(bits);
  options.kind = gpucap::fuzz::FitCatalogKind::fit;
  const std::string text(reinterpret_cast<const char*>(data) + (size >= 4 ? 4 : size),
                         size >= 4 ? size - 4 : 0);
  const std::string finding = gpucap::fuzz::run_fit_case(text, options, work_dir());
  if (!finding.empty()) {
    std::fprintf(stderr, "finding: %s\n", finding.c_str());
    std::abort();
  }
  return 0;
}
