// A deterministic mutation fuzzer for `gpucap fit` (job trace CSVs) and `gpucap catalog`
// (SkyPilot catalogs to import, gpucap catalogs to list), built with any compiler: it mutates
// seed texts with the format-independent mutations of tests/fuzz/text_mutations.hpp and a few
// that know these inputs (many classes, hostile column names, hostile class values), under
// random options, and runs each case through fuzz::run_fit_catalog_case (the command's library
// calls, and what they write loaded back by gpucap).
//
//   fit_catalog_mutation_fuzz [--seconds S] [--cases N] [--seed K] [--save DIR] [--max-mb M]
//                             [--case-seconds T] [KIND=]SEED...
//   fit_catalog_mutation_fuzz --replay FILE --options BITS
//
// A seed's kind is the start of its file name (fit*, sky*, catalog*, state*), or is given as
// KIND=PATH.
// The options, the watchdog, the memory limit and the files of a finding are the shared
// driver's (tests/fuzz/text_fuzz_driver.hpp; case files end in .txt).
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fit_catalog_fuzz_case.hpp"
#include "fuzz/text_fuzz_driver.hpp"
#include "fuzz/text_mutations.hpp"

namespace {

using gpucap::fuzz::FitCatalogKind;
using gpucap::fuzz::kFitCatalogKindNames;
using gpucap::fuzz::kFitCatalogKinds;
using gpucap::fuzz::pick;
using gpucap::fuzz::pick_from;

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

/// The fit and catalog fuzzer, for the shared driver (text_fuzz_driver.hpp): a seed's kind is
/// its FitCatalogKind.
struct Driver {
  gpucap::fuzz::Random random;
  std::vector<gpucap::fuzz::TextSeed> seeds;

  /// A seed of the same kind, for splicing.
  const std::string& donor(FitCatalogKind kind) {
    for (int tries = 0; tries < 8; ++tries) {
      const gpucap::fuzz::TextSeed& s = pick_from(random, seeds);
      if (s.kind == static_cast<std::size_t>(kind)) return s.text;
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

  std::string mutate_once(std::string text, std::size_t kind_index) {
    namespace m = gpucap::fuzz;
    const FitCatalogKind kind = static_cast<FitCatalogKind>(kind_index);
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

  /// Options bits for a case of the kind `kind` (see fuzz::fit_catalog_options).
  uint32_t options_bits(std::size_t kind) {
    const uint32_t rest = static_cast<uint32_t>(random() & 0xFFFFFu);
    return static_cast<uint32_t>(kind) + static_cast<uint32_t>(kFitCatalogKinds) * rest;
  }

  std::string run_case(const std::string& text, uint32_t bits, const std::string& work) {
    return gpucap::fuzz::run_fit_catalog_case(text, gpucap::fuzz::fit_catalog_options(bits), work);
  }

  void add_generated_seeds() {}

  std::string summary() const {
    return std::to_string(gpucap::fuzz::g_fit_catalog_counts.refused) + " refused, " +
           std::to_string(gpucap::fuzz::g_fit_catalog_counts.loaded) + " written and loaded back";
  }
};

}  // namespace

int main(int argc, char** argv) {
  const gpucap::fuzz::TextFuzzer fuzzer{
      "fit_catalog_mutation_fuzz", ".txt",
      std::vector<std::string>(kFitCatalogKindNames, kFitCatalogKindNames + kFitCatalogKinds)};
  Driver driver;
  return gpucap::fuzz::run_text_fuzzer(fuzzer, driver, argc, argv);
}
