// A deterministic mutation fuzzer for `gpucap fit` (job trace CSVs) and `gpucap catalog`
// (SkyPilot catalogs to import, gpucap catalogs to list), built with any compiler: it mutates
// seed texts with the format-independent mutations of tests/fuzz/text_mutations.hpp and a few
// that know these inputs (many classes, hostile column names, hostile class values), under
// random options, and runs each case through fuzz::run_fit_catalog_case (the command's library
// calls, and what they write loaded back by gpucap).
//
//   fit_catalog_mutation_fuzz [--seconds S] [--cases N] [--seed K] [--save DIR] [--max-mb M]
//                             [--case-seconds T] SEED...
//   fit_catalog_mutation_fuzz --replay FILE --options BITS
//
// A seed's kind is the start of its file name (fit*, sky*, catalog*), or is given as KIND=PATH.
// Seeds larger than 256 KiB are cut at a line end. The same seed (--seed) and seed files give
// the same cases. Before each case its text is written to DIR/current.txt and its options (a
// number, as --options takes it) to DIR/current.options, so that a crash (caught by the
// sanitizers) or a hang (a watchdog alarm of T s, default 20) leaves the culprit there; every
// finding is saved as DIR/finding-N.txt with DIR/finding-N.options (its description after the
// number). Memory: the address space is limited to M MiB (default 4096; not under ASan or TSan,
// whose shadow memory needs more). Exit 0 when nothing was found, 1 otherwise, 2 on bad usage.
#include <chrono>
#include <csignal>
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

#include "fuzz/fit_catalog_fuzz_case.hpp"
#include "fuzz/text_mutations.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GPUCAP_FUZZ_SHADOW_MEMORY 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define GPUCAP_FUZZ_SHADOW_MEMORY 1
#endif
#endif

namespace {

namespace fs = std::filesystem;
using gpucap::fuzz::FitCatalogKind;
using gpucap::fuzz::kFitCatalogKindNames;
using gpucap::fuzz::kFitCatalogKinds;
using gpucap::fuzz::pick;
using gpucap::fuzz::pick_from;

constexpr std::size_t kMaxSeedBytes = std::size_t{256} << 10;

/// Names a column or a class value could take to lead a file elsewhere, or to reach a terminal.
const std::vector<std::string> kHostileNames{"../../escaped",
                                             "d/../../escaped",
                                             "/etc/passwd",
                                             "..",
                                             ".",
                                             "",
                                             "a\\b",
                                             "C:\\x",
                                             "con",
                                             "x\x1b]0;owned\x07",
                                             "\x1b[2J",
                                             "\xe2\x80\xae"
                                             "gpj.exe",
                                             "\xc2\x85next line",
                                             "\xe2\x80\xa8"
                                             "workloads: []",
                                             "# comment",
                                             "\"quoted\"",
                                             "'single'",
                                             "a: b",
                                             "- item",
                                             "{x: 1}",
                                             "*anchor",
                                             "&anchor",
                                             "!!binary",
                                             "submit_s",
                                             "gpus",
                                             "SizeInMiB",
                                             std::string(300, 'n'),
                                             "TEAM",
                                             "team"};

struct Seed {
  FitCatalogKind kind;
  std::string text;
};

struct Driver {
  gpucap::fuzz::Random random;
  std::vector<Seed> seeds;

  /// A seed of the same kind, for splicing.
  const std::string& donor(FitCatalogKind kind) {
    for (int tries = 0; tries < 8; ++tries) {
      const Seed& s = pick_from(random, seeds);
      if (s.kind == kind) return s.text;
    }
    return pick_from(random, seeds).text;
  }

  /// The cell `column` of every data line gets a value of its own (the row's number with a
  /// prefix), on up to `rows` lines, each line repeated when there are fewer: many classes.
  std::string many_values(std::string text) {
    std::vector<std::string> lines = gpucap::fuzz::split_lines(text);
    if (lines.size() < 2) return text;
    const std::size_t want = 1 + pick(random, 400);
    const std::string prefix = pick(random, 2) ? "v" : pick_from(random, kHostileNames);
    const std::size_t column = pick(random, 6);
    std::vector<std::string> out{lines[0]};
    std::size_t bytes = lines[0].size();
    for (std::size_t i = 0; i < want && bytes < gpucap::fuzz::kMaxMutatedBytes / 2; ++i) {
      std::string line = lines[1 + i % (lines.size() - 1)];
      std::size_t begin = 0;
      for (std::size_t c = 0; c < column && begin != std::string::npos; ++c) {
        begin = line.find(',', begin);
        if (begin != std::string::npos) ++begin;
      }
      if (begin == std::string::npos) begin = line.size();
      const std::size_t end = std::min(line.find(',', begin), line.size());
      line.replace(begin, end - begin, prefix + std::to_string(i));
      bytes += line.size() + 1;
      out.push_back(std::move(line));
    }
    return gpucap::fuzz::join_lines(out);
  }

  /// A cell of the header becomes a hostile name.
  std::string rename_column(std::string text) {
    const std::string header = text.substr(0, text.find('\n'));
    const std::vector<gpucap::fuzz::Span> cells = gpucap::fuzz::field_spans(header, ',');
    // One draw per statement: the order of draws in one call's arguments is the compiler's.
    const gpucap::fuzz::Span cell = pick_from(random, cells);
    const std::string& name = pick_from(random, kHostileNames);
    return gpucap::fuzz::replace_span(std::move(text), cell, name);
  }

  std::string mutate_once(std::string text, FitCatalogKind kind) {
    namespace m = gpucap::fuzz;
    switch (pick(random, 24)) {
      case 0:
        return m::replace_number(std::move(text), random, m::kExtremeIntegers);
      case 1:
        return m::replace_number(std::move(text), random, m::kExtremeReals);
      case 2:
        return m::lengthen_number(std::move(text), random);
      case 3:
        return m::delete_line(std::move(text), random);
      case 4:
        return m::duplicate_line(std::move(text), random, 2000);
      case 5:
        return m::swap_lines(std::move(text), random);
      case 6:
        return m::splice_line(std::move(text), random, donor(kind));
      case 7:
        return m::truncate(std::move(text), random);
      case 8:
        return m::flip_bit(std::move(text), random);
      case 9:
        return m::insert_byte(std::move(text), random, ",\"\r\n .-e+x'{}:");
      case 10:
        return m::delete_byte(std::move(text), random);
      case 11:
        return m::insert_hostile_bytes(std::move(text), random, ',');
      case 12:
        return m::delete_field(std::move(text), random, ',');
      case 13:
        return m::duplicate_field(std::move(text), random, ',');
      case 14:
        return m::swap_fields(std::move(text), random, ',');
      case 15:
        return m::replace_field(std::move(text), random, ',',
                                pick(random, 2) ? pick_from(random, m::kExtremeReals)
                                                : pick_from(random, kHostileNames));
      case 16:
        return m::lengthen_field(std::move(text), random, ',');
      case 17:
        return m::mutate_quote(std::move(text), random, '"');
      case 18:
        return m::repeat_span(std::move(text), random);
      case 19:
        return m::change_line_ends(std::move(text), random);
      case 20:
        return many_values(std::move(text));
      case 21:
        return rename_column(std::move(text));
      case 22:  // a byte-order mark before the header
        return text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? text.substr(3) : "\xEF\xBB\xBF" + text;
      default:
        return m::insert_hostile_bytes(std::move(text), random);
    }
  }

  /// Options bits for a case of `kind` (see fuzz::fit_catalog_options).
  uint32_t options_bits(FitCatalogKind kind) {
    const uint32_t rest = static_cast<uint32_t>(random() & 0xFFFFFu);
    return static_cast<uint32_t>(kind) + static_cast<uint32_t>(kFitCatalogKinds) * rest;
  }
};

void on_alarm(int) {
  const char message[] =
      "fit_catalog_mutation_fuzz: a case ran over its time budget (a hang): see current.txt "
      "and current.options\n";
  ssize_t ignored = ::write(STDERR_FILENO, message, sizeof message - 1);
  (void)ignored;
  ::_exit(3);
}

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool kind_of_name(const std::string& name, FitCatalogKind& kind) {
  for (std::size_t i = 0; i < kFitCatalogKinds; ++i)
    if (name.compare(0, std::string(kFitCatalogKindNames[i]).size(), kFitCatalogKindNames[i]) ==
        0) {
      kind = static_cast<FitCatalogKind>(i);
      return true;
    }
  return false;
}

int usage() {
  std::cerr << "usage: fit_catalog_mutation_fuzz [--seconds S] [--cases N] [--seed K] "
               "[--save DIR] [--max-mb M] [--case-seconds T] [KIND=]SEED...\n"
               "       fit_catalog_mutation_fuzz --replay FILE --options BITS\n"
               "(a seed's kind is the start of its file name: fit, sky, catalog)\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 60;
  uint64_t max_cases = UINT64_MAX, seed = 1, max_mb = 4096;
  unsigned case_seconds = 20;
  fs::path save = "fit-catalog-fuzz-findings", replay;
  bool have_options = false;
  uint32_t replay_bits = 0;
  Driver driver;
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
      FitCatalogKind kind;
      std::string path = a;
      const std::size_t eq = a.find('=');
      if (eq != std::string::npos && kind_of_name(a.substr(0, eq), kind)) {
        path = a.substr(eq + 1);
      } else if (!kind_of_name(fs::path(a).filename().string(), kind)) {
        std::cerr << "fit_catalog_mutation_fuzz: cannot tell the kind of seed '" << a << "'\n";
        return usage();
      }
      std::string text = read_all(path);
      if (text.size() > kMaxSeedBytes) {
        text.resize(kMaxSeedBytes);
        text.resize(text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1);
      }
      driver.seeds.push_back({kind, std::move(text)});
    } else {
      return usage();
    }
  }
  fs::create_directories(save);
  const fs::path work = fs::absolute(save / "case");
  fs::create_directories(work);
  std::signal(SIGALRM, on_alarm);
#ifndef GPUCAP_FUZZ_SHADOW_MEMORY
  if (max_mb > 0) {
    const rlimit limit{static_cast<rlim_t>(max_mb) << 20, static_cast<rlim_t>(max_mb) << 20};
    ::setrlimit(RLIMIT_AS, &limit);
  }
#endif

  if (!replay.empty()) {
    if (!have_options) return usage();
    const std::string finding = gpucap::fuzz::run_fit_catalog_case(
        read_all(replay), gpucap::fuzz::fit_catalog_options(replay_bits), work.string());
    std::printf("%s\n", finding.empty() ? "no finding" : finding.c_str());
    return finding.empty() ? 0 : 1;
  }
  if (driver.seeds.empty()) {
    std::cerr << "fit_catalog_mutation_fuzz: no seed files\n";
    return usage();
  }
  driver.random.seed(seed);

  const auto start = std::chrono::steady_clock::now();
  uint64_t cases = 0, findings = 0;
  std::vector<uint64_t> per_kind(kFitCatalogKinds, 0);
  while (cases < max_cases &&
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
             seconds) {
    const Seed& s = pick_from(driver.random, driver.seeds);
    std::string text = s.text;
    const std::size_t count = 1 + pick(driver.random, 4);
    for (std::size_t i = 0; i < count; ++i) text = driver.mutate_once(std::move(text), s.kind);
    const uint32_t bits = driver.options_bits(s.kind);
    std::ofstream(save / "current.txt", std::ios::binary | std::ios::trunc) << text;
    std::ofstream(save / "current.options", std::ios::trunc) << bits << "\n";
    ::alarm(case_seconds);
    const std::string finding = gpucap::fuzz::run_fit_catalog_case(
        text, gpucap::fuzz::fit_catalog_options(bits), work.string());
    ::alarm(0);
    ++cases;
    ++per_kind[static_cast<std::size_t>(s.kind)];
    if (!finding.empty()) {
      ++findings;
      const std::string stem = "finding-" + std::to_string(findings);
      std::ofstream(save / (stem + ".txt"), std::ios::binary) << text;
      std::ofstream(save / (stem + ".options")) << bits << "\n# " << finding << "\n";
      std::cerr << "finding " << findings << ": " << finding.substr(0, 2000) << " ("
                << (save / (stem + ".txt")).string() << ", --options " << bits << ")\n";
    }
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "fit_catalog_mutation_fuzz: %llu cases in %.1f s (%.0f per s; fit %llu, sky %llu, "
      "catalog %llu; %llu refused, %llu written and loaded back), seed %llu, %llu findings\n",
      static_cast<unsigned long long>(cases), elapsed, cases / elapsed,
      static_cast<unsigned long long>(per_kind[0]), static_cast<unsigned long long>(per_kind[1]),
      static_cast<unsigned long long>(per_kind[2]),
      static_cast<unsigned long long>(gpucap::fuzz::g_fit_catalog_counts.refused),
      static_cast<unsigned long long>(gpucap::fuzz::g_fit_catalog_counts.loaded),
      static_cast<unsigned long long>(seed), static_cast<unsigned long long>(findings));
  fs::remove(save / "current.txt");
  fs::remove(save / "current.options");
  fs::remove_all(work);
  return findings == 0 ? 0 : 1;
}
