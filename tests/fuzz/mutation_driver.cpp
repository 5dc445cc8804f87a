// A deterministic mutation fuzzer for scenario files, built with any compiler (libFuzzer needs
// clang): it mutates the seed files with mutations that know YAML's shape (numbers, durations,
// lines, keys) as well as raw bytes, and runs each case through fuzz::run_case.
//
//   scenario_mutation_fuzz [--seconds S] [--cases N] [--seed K] [--save DIR] SEED.yaml...
//
// The same seed (--seed) and seed files give the same cases. Before each case the text is
// written to DIR/current.yaml, so that a crash (caught by the sanitizers) or a hang (caught by a
// watchdog alarm of 20 s) leaves the culprit there; every finding of run_case is saved as
// DIR/finding-N.yaml with its description. Exit 0 when nothing was found, 1 otherwise, 2 on bad
// usage. Data files named by cases resolve against the first seed file's folder.
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

#include "fuzz/fuzz_case.hpp"

namespace {

namespace fs = std::filesystem;

/// Values that probe the edges of every kind of number a scenario holds.
const std::vector<std::string> kExtremeNumbers{"0",
                                               "-0",
                                               "-1",
                                               "1",
                                               "1e-308",
                                               "5e-324",
                                               "1e308",
                                               "1.7976931348623157e308",
                                               "-1e308",
                                               "nan",
                                               ".nan",
                                               "inf",
                                               ".inf",
                                               "-.inf",
                                               "9223372036854775807",
                                               "9223372036854775808",
                                               "18446744073709551615",
                                               "18446744073709551616",
                                               "4294967295",
                                               "4294967296",
                                               "2147483648",
                                               "65535",
                                               "65536",
                                               "1048575",
                                               "1048576",
                                               "0.5",
                                               "1e-9",
                                               "1e22",
                                               "3",
                                               "0x10",
                                               "1_000",
                                               "~",
                                               "null",
                                               "\"\"",
                                               "[]",
                                               "{}",
                                               "true",
                                               "random",
                                               "Random"};

/// Durations at the edges of time.
const std::vector<std::string> kExtremeDurations{
    "0s",         "1us",    "1e-300s", "1e300s", "9007199254740992s",
    "1e22s",      "52000w", "60000w",  "-1s",    "1ms",
    "24h",        "1d",     "nanmin",  "infh",   "1e308d",
    "0.000001us", "365d",   "7d",      "1min"};

struct Driver {
  std::mt19937_64 random;
  std::vector<std::string> seeds;

  std::size_t pick(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(random() % n); }

  static std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t end = text.find('\n', start);
      lines.push_back(
          text.substr(start, end == std::string::npos ? std::string::npos : end - start));
      if (end == std::string::npos) break;
      start = end + 1;
    }
    return lines;
  }
  static std::string join(const std::vector<std::string>& lines) {
    std::string text;
    for (std::size_t i = 0; i < lines.size(); ++i) text += (i ? "\n" : "") + lines[i];
    return text;
  }

  /// Positions [begin, end) of number-like tokens (digits with . e E + -, and a unit suffix).
  std::vector<std::pair<std::size_t, std::size_t>> numbers_in(const std::string& text) {
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    for (std::size_t i = 0; i < text.size();) {
      if (std::isdigit(static_cast<unsigned char>(text[i])) &&
          (i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1])))) {
        std::size_t j = i;
        while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) ||
                                   text[j] == '.' || text[j] == '+' || text[j] == '-'))
          ++j;
        spans.emplace_back(i, j);
        i = j;
      } else {
        ++i;
      }
    }
    return spans;
  }

  std::string mutate_once(std::string text) {
    switch (pick(11)) {
      case 0: {  // a number becomes an extreme value
        const auto spans = numbers_in(text);
        if (spans.empty()) break;
        const auto [b, e] = spans[pick(spans.size())];
        return text.replace(b, e - b, kExtremeNumbers[pick(kExtremeNumbers.size())]);
      }
      case 1: {  // a number becomes an extreme duration
        const auto spans = numbers_in(text);
        if (spans.empty()) break;
        const auto [b, e] = spans[pick(spans.size())];
        return text.replace(b, e - b, kExtremeDurations[pick(kExtremeDurations.size())]);
      }
      case 2: {  // delete a line
        auto lines = lines_of(text);
        if (lines.size() > 1) lines.erase(lines.begin() + static_cast<long>(pick(lines.size())));
        return join(lines);
      }
      case 3: {  // duplicate a line
        auto lines = lines_of(text);
        const std::size_t i = pick(lines.size());
        lines.insert(lines.begin() + static_cast<long>(i), lines[i]);
        return join(lines);
      }
      case 4: {  // swap two lines
        auto lines = lines_of(text);
        // One draw a statement: the order of two draws in one expression is the compiler's.
        const std::size_t a = pick(lines.size());
        const std::size_t b = pick(lines.size());
        std::swap(lines[a], lines[b]);
        return join(lines);
      }
      case 5: {  // splice a line of another seed
        auto lines = lines_of(text);
        const auto other = lines_of(seeds[pick(seeds.size())]);
        const std::size_t at = pick(lines.size() + 1);
        const std::size_t from = pick(other.size());
        lines.insert(lines.begin() + static_cast<long>(at), other[from]);
        return join(lines);
      }
      case 6:  // truncate
        return text.substr(0, pick(text.size() + 1));
      case 7: {  // flip a bit
        if (text.empty()) break;
        const std::size_t at = pick(text.size());
        const std::size_t bit = pick(8);
        text[at] ^= static_cast<char>(1 << bit);
        return text;
      }
      case 8: {  // insert a byte YAML cares about
        static const char kBytes[] = ":-[]{},#&*!|>'\"%@` \t\n\r\\0";
        const std::size_t at = pick(text.size() + 1);
        const std::size_t byte = pick(sizeof kBytes - 1);
        text.insert(at, 1, kBytes[byte]);
        return text;
      }
      case 9: {  // re-indent a line
        auto lines = lines_of(text);
        std::string& line = lines[pick(lines.size())];
        if (pick(2) == 0 && line.size() >= 2 && line.compare(0, 2, "  ") == 0)
          line.erase(0, 2);
        else
          line.insert(0, "  ");
        return join(lines);
      }
      default: {  // a value after "key: " becomes another key's value, or an alias
        auto lines = lines_of(text);
        std::string& line = lines[pick(lines.size())];
        const std::size_t colon = line.find(": ");
        if (colon == std::string::npos) break;
        const auto donor = lines_of(seeds[pick(seeds.size())]);
        const std::string& d = donor[pick(donor.size())];
        const std::size_t dc = d.find(": ");
        line = line.substr(0, colon + 2) + (dc == std::string::npos ? "*anchor" : d.substr(dc + 2));
        return join(lines);
      }
    }
    return text;
  }

  std::string next_case() {
    std::string text = seeds[pick(seeds.size())];
    const std::size_t count = 1 + pick(4);
    for (std::size_t i = 0; i < count; ++i) text = mutate_once(std::move(text));
    return text;
  }
};

fs::path g_current;

void on_alarm(int) {
  const char message[] =
      "scenario_mutation_fuzz: a case ran over 20 s (a hang): see current.yaml\n";
  ssize_t ignored = ::write(STDERR_FILENO, message, sizeof message - 1);
  (void)ignored;
  ::_exit(3);
}

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 60;
  uint64_t max_cases = UINT64_MAX, seed = 1;
  fs::path save = "fuzz-findings";
  Driver driver;
  fs::path data_dir;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seconds" && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else if (a == "--cases" && i + 1 < argc) {
      max_cases = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--seed" && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--save" && i + 1 < argc) {
      save = argv[++i];
    } else if (!a.empty() && a[0] != '-') {
      driver.seeds.push_back(read_all(a));
      if (data_dir.empty()) data_dir = fs::absolute(a).parent_path();
    } else {
      std::cerr
          << "usage: scenario_mutation_fuzz [--seconds S] [--cases N] [--seed K] [--save DIR] "
             "SEED.yaml...\n";
      return 2;
    }
  }
  if (driver.seeds.empty()) {
    std::cerr << "scenario_mutation_fuzz: no seed files\n";
    return 2;
  }
  driver.random.seed(seed);
  fs::create_directories(save);
  g_current = save / "current.yaml";
  std::signal(SIGALRM, on_alarm);

  const auto start = std::chrono::steady_clock::now();
  uint64_t cases = 0, findings = 0;
  while (cases < max_cases &&
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
             seconds) {
    const std::string text = driver.next_case();
    std::ofstream(g_current, std::ios::binary | std::ios::trunc) << text;
    ::alarm(20);
    const std::string finding = gpucap::fuzz::run_case(text, data_dir.string());
    ::alarm(0);
    ++cases;
    if (!finding.empty()) {
      ++findings;
      const fs::path path = save / ("finding-" + std::to_string(findings) + ".yaml");
      std::ofstream(path, std::ios::binary) << "# " << finding << "\n" << text;
      std::cerr << "finding " << findings << ": " << finding << " (" << path.string() << ")\n";
    }
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "scenario_mutation_fuzz: %llu cases in %.1f s (%.0f per s), seed %llu, %llu findings\n",
      static_cast<unsigned long long>(cases), elapsed, cases / elapsed,
      static_cast<unsigned long long>(seed), static_cast<unsigned long long>(findings));
  fs::remove(g_current);
  return findings == 0 ? 0 : 1;
}
