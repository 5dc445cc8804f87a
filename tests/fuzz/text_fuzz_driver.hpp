// The command-line driver shared by the mutation fuzzers of text inputs (the importers' logs;
// fit's traces and the catalogs): options, seeds, the case loop, the watchdog, the memory limit,
// findings and the summary line. Each fuzzer brings its mutations, its options and its case.
//
//   PROGRAM [--seconds S] [--cases N] [--seed K] [--save DIR] [--max-mb M] [--case-seconds T]
//           [KIND=]SEED...
//   PROGRAM --replay FILE --options BITS
//
// A seed's kind is the start of its file name, or is given as KIND=PATH (KIND exactly one of
// the fuzzer's kinds). Seeds larger than 256 KiB are cut at a line end. The same seed (--seed)
// and seed files give the same cases with every compiler (the last line prints an FNV-1a digest
// of every case's text and options). Before each case its text is written to
// DIR/current.EXT and its options (a number, as --options takes it) to DIR/current.options, so
// that a crash (caught by the sanitizers) or a hang (a watchdog alarm of T s, default 20) leaves
// the culprit there; every finding is saved as DIR/finding-N.EXT with DIR/finding-N.options (its
// description after the number). Memory: the address space is limited to M MiB (default 4096;
// not under ASan or TSan, whose shadow memory needs more). Exit 0 when nothing was found, 1
// otherwise, 2 on bad usage.
//
// A fuzzer is a Driver with:
//   Random random; std::vector<TextSeed> seeds;
//   std::string mutate_once(std::string text, std::size_t kind);   // one mutation
//   uint32_t options_bits(std::size_t kind);                        // a case's random options
//   std::string run_case(const std::string& text, uint32_t bits, const std::string& work);
//   void add_generated_seeds();         // after the seed files (may add none)
//   std::string summary() const;        // more for the last line ("" for nothing)
#pragma once
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

#include "fuzz/text_mutations.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GPUCAP_FUZZ_SHADOW_MEMORY 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define GPUCAP_FUZZ_SHADOW_MEMORY 1
#endif
#endif

namespace gpucap::fuzz {

/// A seed text and its kind (an index into TextFuzzer::kinds).
struct TextSeed {
  std::size_t kind;
  std::string text;
};

/// What the driver says of a fuzzer.
struct TextFuzzer {
  std::string program;             ///< "import_mutation_fuzz", in messages
  std::string extension;           ///< of the case files: ".log", ".txt"
  std::vector<std::string> kinds;  ///< seed kinds; a seed's file name starts with one
};

namespace detail {

inline std::string g_alarm_message;  ///< written by the watchdog (set before it is armed)

inline void on_alarm(int) {
  ssize_t ignored = ::write(STDERR_FILENO, g_alarm_message.data(), g_alarm_message.size());
  (void)ignored;
  ::_exit(3);
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// The kind whose name `name` starts with (exactly equal when `exact`); false when none.
inline bool kind_of(const TextFuzzer& f, const std::string& name, bool exact, std::size_t& kind) {
  for (std::size_t i = 0; i < f.kinds.size(); ++i)
    if (exact ? name == f.kinds[i] : name.compare(0, f.kinds[i].size(), f.kinds[i]) == 0) {
      kind = i;
      return true;
    }
  return false;
}

inline int usage(const TextFuzzer& f) {
  std::string kinds;
  for (const std::string& k : f.kinds) kinds += (kinds.empty() ? "" : ", ") + k;
  std::cerr << "usage: " << f.program
            << " [--seconds S] [--cases N] [--seed K] [--save DIR] [--max-mb M] "
               "[--case-seconds T] [KIND=]SEED...\n       "
            << f.program << " --replay FILE --options BITS\n(a seed's kind is the start of its "
            << "file name: " << kinds << ")\n";
  return 2;
}

}  // namespace detail

/// Runs the fuzzer `driver` as the command line says; returns the exit status.
template <class Driver>
int run_text_fuzzer(const TextFuzzer& f, Driver& driver, int argc, char** argv) {
  namespace fs = std::filesystem;
  constexpr std::size_t kMaxSeedBytes = std::size_t{256} << 10;
  double seconds = 60;
  uint64_t max_cases = UINT64_MAX, seed = 1, max_mb = 4096;
  unsigned case_seconds = 20;
  fs::path save = f.program + "-findings", replay;
  bool have_options = false;
  uint32_t replay_bits = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool value = i + 1 < argc;
    if (a == "--seconds" && value) {
      seconds = std::atof(argv[++i]);
    } else if (a == "--cases" && value) {
      max_cases = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--seed" && value) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--save" && value) {
      save = argv[++i];
    } else if (a == "--max-mb" && value) {
      max_mb = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--case-seconds" && value) {
      case_seconds = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--replay" && value) {
      replay = argv[++i];
    } else if (a == "--options" && value) {
      replay_bits = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
      have_options = true;
    } else if (!a.empty() && a[0] != '-') {
      std::size_t kind = 0;
      std::string path = a;
      const std::size_t eq = a.find('=');
      if (eq != std::string::npos && detail::kind_of(f, a.substr(0, eq), true, kind)) {
        path = a.substr(eq + 1);
      } else if (!detail::kind_of(f, fs::path(a).filename().string(), false, kind)) {
        std::cerr << f.program << ": cannot tell the kind of seed '" << a << "'\n";
        return detail::usage(f);
      }
      std::string text = detail::read_file(path);
      if (text.size() > kMaxSeedBytes) {
        text.resize(kMaxSeedBytes);
        text.resize(text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1);
      }
      driver.seeds.push_back({kind, std::move(text)});
    } else {
      return detail::usage(f);
    }
  }
  fs::create_directories(save);
  const fs::path work = fs::absolute(save / "case");
  fs::create_directories(work);
  const fs::path current = save / ("current" + f.extension);
  detail::g_alarm_message = f.program + ": a case ran over its time budget (a hang): see " +
                            current.string() + " and current.options\n";
  std::signal(SIGALRM, detail::on_alarm);
#ifndef GPUCAP_FUZZ_SHADOW_MEMORY
  if (max_mb > 0) {
    const rlimit limit{static_cast<rlim_t>(max_mb) << 20, static_cast<rlim_t>(max_mb) << 20};
    ::setrlimit(RLIMIT_AS, &limit);
  }
#endif

  if (!replay.empty()) {
    if (!have_options) return detail::usage(f);
    const std::string finding =
        driver.run_case(detail::read_file(replay), replay_bits, work.string());
    std::printf("%s\n", finding.empty() ? "no finding" : finding.c_str());
    return finding.empty() ? 0 : 1;
  }
  if (driver.seeds.empty()) {
    std::cerr << f.program << ": no seed files\n";
    return detail::usage(f);
  }
  driver.random.seed(seed);
  driver.add_generated_seeds();

  const auto start = std::chrono::steady_clock::now();
  uint64_t cases = 0, findings = 0;
  uint64_t digest = 14695981039346656037ull;  // FNV-1a of every case: the same on every compiler
  std::vector<uint64_t> per_kind(f.kinds.size(), 0);
  while (cases < max_cases &&
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
             seconds) {
    const TextSeed& s = pick_from(driver.random, driver.seeds);
    std::string text = s.text;
    const std::size_t count = 1 + pick(driver.random, 4);
    for (std::size_t i = 0; i < count; ++i) text = driver.mutate_once(std::move(text), s.kind);
    const uint32_t bits = driver.options_bits(s.kind);
    for (char c : text + std::to_string(bits))
      digest = (digest ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    std::ofstream(current, std::ios::binary | std::ios::trunc) << text;
    std::ofstream(save / "current.options", std::ios::trunc) << bits << "\n";
    ::alarm(case_seconds);
    const std::string finding = driver.run_case(text, bits, work.string());
    ::alarm(0);
    ++cases;
    ++per_kind[s.kind];
    if (!finding.empty()) {
      ++findings;
      const std::string stem = "finding-" + std::to_string(findings);
      std::ofstream(save / (stem + f.extension), std::ios::binary) << text;
      std::ofstream(save / (stem + ".options")) << bits << "\n# " << finding << "\n";
      std::cerr << "finding " << findings << ": " << finding.substr(0, 2000) << " ("
                << (save / (stem + f.extension)).string() << ", --options " << bits << ")\n";
    }
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string kinds;
  for (std::size_t k = 0; k < f.kinds.size(); ++k)
    kinds += (k ? ", " : "") + f.kinds[k] + " " + std::to_string(per_kind[k]);
  const std::string more = driver.summary();
  std::printf(
      "%s: %llu cases in %.1f s (%.0f per s; %s%s%s), seed %llu, digest %016llx, %llu "
      "findings\n",
      f.program.c_str(), static_cast<unsigned long long>(cases), elapsed,
      elapsed > 0 ? static_cast<double>(cases) / elapsed : 0.0, kinds.c_str(),
      more.empty() ? "" : "; ", more.c_str(), static_cast<unsigned long long>(seed),
      static_cast<unsigned long long>(digest), static_cast<unsigned long long>(findings));
  fs::remove(current);
  fs::remove(save / "current.options");
  fs::remove_all(work);
  return findings == 0 ? 0 : 1;
}

}  // namespace gpucap::fuzz
