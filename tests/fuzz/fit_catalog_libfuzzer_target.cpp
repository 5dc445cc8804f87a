// The libFuzzer targets of `gpucap fit` and `gpucap catalog` (preset fuzz, clang), one source
// built twice: the first 4 input bytes are the case's options (fuzz::fit_catalog_options), the
// rest the input. fit_libfuzzer (GPUCAP_FUZZ_CATALOG 0) reads it as a trace CSV and runs
// fuzz::run_fit_case (fit, then the section loaded back); catalog_libfuzzer (1) as a catalog:
// an even first byte makes a SkyPilot catalog to import, an odd one a gpucap catalog to list
// (fuzz::run_fit_catalog_case: the import, then its catalog loaded back). A finding aborts, so
// that libFuzzer saves the input.
//
//   build/fuzz/tests/fit_libfuzzer -max_total_time=600 -timeout=20 -rss_limit_mb=4096 CORPUS_DIR
//   build/fuzz/tests/catalog_libfuzzer -max_total_time=600 -timeout=20 -rss_limit_mb=4096 CORPUS
//
// Keep what they find in tests/reliability/fit_catalog_hostile_test.cpp, with what it did.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

#include "fuzz/fit_catalog_fuzz_case.hpp"

#ifndef GPUCAP_FUZZ_CATALOG
#error "build with GPUCAP_FUZZ_CATALOG=0 (fit) or 1 (catalog)"
#endif

namespace {

/// A folder of this process for the files a case writes.
const std::string& work_dir() {
  static const std::string dir = [] {
    char name[] = "/tmp/gpucap-fit-catalog-libfuzzer-XXXXXX";
    if (::mkdtemp(name) == nullptr) std::abort();
    return std::string(name);
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fuzz = gpucap::fuzz;
  uint32_t bits = 0;
  if (size >= 4) std::memcpy(&bits, data, 4);
  fuzz::FitCatalogOptions options = fuzz::fit_catalog_options(bits);
  const std::string text(reinterpret_cast<const char*>(data) + (size >= 4 ? 4 : size),
                         size >= 4 ? size - 4 : 0);
#if GPUCAP_FUZZ_CATALOG
  options.kind = (bits & 1) ? fuzz::FitCatalogKind::catalog : fuzz::FitCatalogKind::sky;
  const std::string finding = fuzz::run_fit_catalog_case(text, options, work_dir());
#else
  options.kind = fuzz::FitCatalogKind::fit;
  const std::string finding = fuzz::run_fit_case(text, options, work_dir());
#endif
  if (!finding.empty()) {
    std::fprintf(stderr, "finding: %s\n", finding.c_str());
    std::abort();
  }
  return 0;
}
