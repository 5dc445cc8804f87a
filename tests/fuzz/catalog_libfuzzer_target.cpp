// The libFuzzer target of `gpucap catalog` (preset fuzz, clang): the first 4 input bytes are the
// case's options (fuzz::fit_catalog_options; an even first byte makes a SkyPilot catalog to
// import, an odd one a gpucap catalog to list), the rest the catalog; the case runs through
// fuzz::run_sky_case (the import, then its catalog loaded back) or fuzz::run_catalog_case; a
// finding aborts, so that libFuzzer saves the input.
//
//   build/fuzz/tests/catalog_libfuzzer -max_total_time=600 -timeout=20 -rss_limit_mb=4096 CORPUS
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
    char name[] = "/tmp/gpucap-catalog-libfuzzer-XXXXXX";
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
  options.kind =
      (bits & 1) ? gpucap::fuzz::FitCatalogKind::catalog : gpucap::fuzz::FitCatalogKind::sky;
  const std::string text(reinterpret_cast<const char*>(data) + (size >= 4 ? 4 : size),
                         size >= 4 ? size - 4 : 0);
  const std::string finding = gpucap::fuzz::run_fit_catalog_case(text, options, work_dir());
  if (!finding.empty()) {
    std::fprintf(stderr, "finding: %s\n", finding.c_str());
    std::abort();
  }
  return 0;
}
