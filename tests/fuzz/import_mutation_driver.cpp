// A deterministic mutation fuzzer for the job-log importers (`gpucap import`), built with any
// compiler: it mutates seed logs of every format (Slurm sacct text, Kubernetes pod lists, Philly
// JSON, Helios and mapped CSV tables) and small logs it generates itself, with mutations that
// know each format (numbers, times, GPU counts, fields and separators, quotes, JSON nesting and
// values, raw bytes; tests/fuzz/text_mutations.hpp), under random import options, and runs each
// case through fuzz::run_import_case (the import, its counts, and the trace and report loaded
// back; each case's output is held to 16 bytes per input byte).
//
//   import_mutation_fuzz [--seconds S] [--cases N] [--seed K] [--save DIR] [--max-mb M]
//                        [--case-seconds T] [FORMAT=]SEED...
//   import_mutation_fuzz --replay LOG --options BITS
//
// A seed's format is the start of its file name (slurm*, kubernetes*, philly*, helios*, csv*), or
// is given as FORMAT=PATH. The options, the watchdog, the memory limit and the files of a
// finding are the shared driver's (tests/fuzz/text_fuzz_driver.hpp; case files end in .log).
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/import_fuzz_case.hpp"
#include "fuzz/text_fuzz_driver.hpp"
#include "fuzz/text_mutations.hpp"

namespace {

using gpucap::data::JobLogFormat;
using gpucap::fuzz::pick;
using gpucap::fuzz::pick_from;
using gpucap::fuzz::Random;

constexpr std::size_t kFormats = gpucap::fuzz::kImportFormats;

/// Times at the edges of what the importers accept (years 1000 to 9999, epoch seconds to
/// 253402300799, offsets to 18 h, leap seconds) and just past them.
const std::vector<std::string> kTimes{"0",
                                      "1",
                                      "1.5",
                                      "1709290000",
                                      "1709290000.999",
                                      "253402300799",
                                      "253402300800",
                                      "1e10",
                                      "99999999999999999999999",
                                      "1000-01-01",
                                      "0999-12-31T23:59:59",
                                      "9999-12-31T23:59:59",
                                      "9999-12-31T23:59:60-18:00",
                                      "10000-01-01",
                                      "2024-02-29T00:00:00",
                                      "2023-02-29T00:00:00",
                                      "2024-03-01T24:00:00",
                                      "2024-03-01T12:00:60",
                                      "2024-03-01T12:00:00.123456789",
                                      "2024-03-01T12:00:00.1234567890",
                                      "2024-03-01T12:00:00,5",
                                      "2024-03-01T12:00:00Z",
                                      "2024-03-01T12:00:00+18:00",
                                      "2024-03-01T12:00:00+19:00",
                                      "2024-03-01T12:00:00-0530",
                                      "2024-03-01T12:00:00+2",
                                      "2024-03-01t12:00",
                                      "2024-03-01 12:00",
                                      "2024-3-1",
                                      "Unknown",
                                      "None",
                                      "null",
                                      "NaT",
                                      "nan",
                                      "",
                                      "-1",
                                      "+1"};

/// Slurm and Helios elapsed times and durations.
const std::vector<std::string> kDurations{"00:00:00",
                                          "00:00:01",
                                          "59:59",
                                          "60:00",
                                          "1-00:00:00",
                                          "3000000-23:59:59",
                                          "3000001-00:00:00",
                                          "1000000:59:59",
                                          "1000001:00:00",
                                          "99999999999999999999:00:00",
                                          "-1-00:00:00",
                                          "1-",
                                          "1:2:3:4",
                                          "00:00:59.9999",
                                          "00:00:60",
                                          "253402300799",
                                          "253402300800",
                                          "0.0005",
                                          "Unknown",
                                          ""};

/// GPU fields of sacct (TRES and GRES lists).
const std::vector<std::string> kTres{"gres/gpu=1",
                                     "gres/gpu=0",
                                     "gres/gpu=1048575",
                                     "gres/gpu=1048576",
                                     "gres/gpu=9007199254740992",
                                     "gres/gpu=9007199254740993",
                                     "gres/gpu=18446744073709551615",
                                     "gres/gpu=18446744073709551616",
                                     "gres/gpu=1e3",
                                     "gres/gpu=4.0",
                                     "gres/gpu=4.5",
                                     "gres/gpu=-1",
                                     "gres/gpu=",
                                     "gres/gpu",
                                     "gres/gpux=1",
                                     "gres/gpu:a100=18446744073709551615,gres/gpu:v100=3",
                                     "gres/gpu:a=4503599627370496,gres/gpu:b=4503599627370497",
                                     "gres/gpu:a100=2,gres/gpu=3",
                                     "gpu:2",
                                     "gpu:a100:2(IDX:0-1)",
                                     "gpu:a100:18446744073709551615,gpu:v100:2",
                                     "gpu:",
                                     "gpu:(",
                                     "billing=8,cpu=8,mem=64G,node=1",
                                     ",,,,",
                                     ""};

/// Job ids of sacct: steps, array tasks and ranges, heterogeneous components.
const std::vector<std::string> kJobIds{"1",       "1.batch", "1.extern",  "1.0", "1_2",
                                       "1_[2-5]", "1+0",     "1+1",       "",    ".",
                                       "_",       "[",       "1.batch.0", "100", "101"};

/// States of every format, in their spellings.
const std::vector<std::string> kStates{
    "COMPLETED", "CANCELLED by 1000", "CANCELLED+",   "PENDING",   "RUNNING", "REQUEUED", "FAILED",
    "TIMEOUT",   "Running",           "Pending",      "Succeeded", "Failed",  "Pass",     "Killed",
    "",          "running ",          "UNKNOWN_STATE"};

/// JSON values for Philly fields and attempts.
const std::vector<std::string> kJsonValues{
    "null",
    "\"None\"",
    "\"\"",
    "[]",
    "{}",
    "true",
    "0",
    "-0",
    "1e308",
    "1e999",
    "\"\\u0000\"",
    "\"\\ud800\"",
    "\"\\ud800\\udc00\"",
    "\"\\u202e\"",
    "\"=cmd\"",
    "\"\\\"\"",
    "[[[[[[]]]]]]",
    "{\"a\":{\"b\":{}}}",
    "\"2017-10-07 01:12:09\"",
    "\"1507000000\"",
    "\"9999-12-31\"",
    "\"1000-01-01\"",
    "[{\"start_time\":\"1\",\"end_time\":\"2\"}]",
    "[{\"start_time\":\"1\",\"end_time\":null},{\"start_time\":\"3\",\"end_time\":\"4\"}]",
    "[{\"gpus\":[\"a\",\"b\",\"c\"]}]"};

char separator_of(JobLogFormat f) { return f == JobLogFormat::slurm ? '|' : ','; }

/// Syntax bytes of each format, for insertions.
std::string syntax_of(JobLogFormat f) {
  switch (f) {
    case JobLogFormat::slurm:
      return "|,=:/()[]_.+-\n\r ";
    case JobLogFormat::philly:
      return "[]{}\":,\\ \n\t";
    default:
      return ",\"\n\r :-T.Z+";
  }
}

/// Spans [begin, end) of the contents of JSON strings (between the quotes).
std::vector<gpucap::fuzz::Span> json_string_spans(const std::string& text) {
  std::vector<gpucap::fuzz::Span> spans;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '"') continue;
    std::size_t j = i + 1;
    while (j < text.size() && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
    if (j >= text.size()) break;
    spans.push_back({i + 1, j});
    i = j;
  }
  return spans;
}

/// Spans of JSON values after a key ("key": VALUE up to the next , } or ]), one level only.
std::vector<gpucap::fuzz::Span> json_value_spans(const std::string& text) {
  std::vector<gpucap::fuzz::Span> spans;
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] != ':') continue;
    std::size_t b = i + 1;
    while (b < text.size() && text[b] == ' ') ++b;
    std::size_t e = b;
    int depth = 0;
    bool in_string = false;
    for (; e < text.size(); ++e) {
      const char c = text[e];
      if (in_string) {
        if (c == '\\')
          ++e;
        else if (c == '"')
          in_string = false;
        continue;
      }
      if (c == '"')
        in_string = true;
      else if (c == '[' || c == '{')
        ++depth;
      else if ((c == ']' || c == '}') && depth-- == 0)
        break;
      else if (c == ',' && depth == 0)
        break;
    }
    spans.push_back({b, std::min(e, text.size())});
  }
  return spans;
}

/// The importers' fuzzer, for the shared driver (text_fuzz_driver.hpp): a seed's kind is its
/// JobLogFormat.
struct Driver {
  Random random;
  std::vector<gpucap::fuzz::TextSeed> seeds;

  const gpucap::fuzz::TextSeed& seed_of_format(JobLogFormat f) {
    std::vector<const gpucap::fuzz::TextSeed*> same;
    for (const gpucap::fuzz::TextSeed& s : seeds)
      if (static_cast<JobLogFormat>(s.kind) == f) same.push_back(&s);
    return *pick_from(random, same);
  }

  std::string mutate_once(std::string text, std::size_t kind) {
    namespace m = gpucap::fuzz;
    const JobLogFormat format = static_cast<JobLogFormat>(kind);
    const char sep = separator_of(format);
    const bool json = format == JobLogFormat::philly;
    switch (pick(random, 26)) {
      case 0:
        return m::replace_number(std::move(text), random, m::kExtremeIntegers);
      case 1:
        return m::replace_number(std::move(text), random, m::kExtremeReals);
      case 2:
        return m::lengthen_number(std::move(text), random);
      case 3:
        return m::delete_line(std::move(text), random);
      case 4:  // many rows: the reorder window, running jobs held, job folding
        return m::duplicate_line(std::move(text), random, pick(random, 4) == 0 ? 5000 : 3);
      case 5:
        return m::swap_lines(std::move(text), random);
      case 6:
        return m::splice_line(std::move(text), random, seed_of_format(format).text);
      case 7:
        return m::truncate(std::move(text), random);
      case 8:
        return m::flip_bit(std::move(text), random);
      case 9:
        return m::insert_byte(std::move(text), random, syntax_of(format));
      case 10:
        return m::delete_byte(std::move(text), random);
      case 11:
        return m::insert_hostile_bytes(std::move(text), random, sep);
      case 12:
        return m::delete_field(std::move(text), random, sep);
      case 13:
        return m::duplicate_field(std::move(text), random, sep);
      case 14:
        return m::swap_fields(std::move(text), random, sep);
      case 15:  // a time where a field was
        if (json) break;
        return m::replace_field(std::move(text), random, sep, pick_from(random, kTimes));
      case 16:
        if (json) break;
        return m::replace_field(std::move(text), random, sep,
                                pick_from(random, pick(random, 2) ? kDurations : kStates));
      case 17:  // GPU lists (sacct) or a JobID
        if (format == JobLogFormat::slurm)
          return m::replace_field(std::move(text), random, sep,
                                  pick_from(random, pick(random, 2) ? kTres : kJobIds));
        return m::replace_field(std::move(text), random, sep,
                                pick_from(random, m::kExtremeIntegers));
      case 18:  // a long field or string: lines near the 1 MiB limit, long keys
        return m::lengthen_field(std::move(text), random, json ? '"' : sep,
                                 pick(random, 8) == 0 ? (std::size_t{1} << 20) + 8 : 4096);
      case 19:
        return m::mutate_quote(std::move(text), random, '"', sep);
      case 20:  // nesting
        if (json)
          return pick(random, 2) ? m::deepen_nesting(std::move(text), random, "[", "]", 200)
                                 : m::deepen_nesting(std::move(text), random, "{\"a\":", "}", 200);
        return m::deepen_nesting(std::move(text), random, "\"", "\"", 4);
      case 21:  // a repeated span: many elements, attempts, rows or a long key
        return m::repeat_span(std::move(text), random, 512, pick(random, 4) == 0 ? 20000 : 8);
      case 22:
        return m::change_line_ends(std::move(text), random);
      case 23: {  // a JSON string's content becomes a time or another text
        if (!json) break;
        const auto spans = json_string_spans(text);
        if (spans.empty()) break;
        const std::string& value =
            pick(random, 2) ? pick_from(random, kTimes) : pick_from(random, kStates);
        const gpucap::fuzz::Span span = pick_from(random, spans);
        return m::replace_span(std::move(text), span, value);
      }
      case 24: {  // a JSON value becomes another kind of value
        if (!json) break;
        const auto spans = json_value_spans(text);
        if (spans.empty()) break;
        const gpucap::fuzz::Span span = pick_from(random, spans);
        const std::string& value = pick_from(random, kJsonValues);
        return m::replace_span(std::move(text), span, value);
      }
      default:  // the header: a column renamed, dropped or doubled
        if (json) break;
        {
          const std::size_t end = text.find('\n');
          std::string header = text.substr(0, end);
          const std::string rest = end == std::string::npos ? "" : text.substr(end);
          switch (pick(random, 3)) {
            case 0:
              header = m::delete_field(std::move(header), random, sep);
              break;
            case 1:
              header = m::duplicate_field(std::move(header), random, sep);
              break;
            default:
              header = m::insert_hostile_bytes(std::move(header), random, sep);
              break;
          }
          return header + rest;
        }
    }
    return m::flip_bit(std::move(text), random);
  }

  /// A small valid log of `format`, from the generator (rows with random times, GPUs, states).
  std::string generate(JobLogFormat format) {
    const std::size_t rows = 1 + pick(random, 60);
    int64_t t = 1709280000 + static_cast<int64_t>(pick(random, 100000));
    std::string out;
    switch (format) {
      case JobLogFormat::slurm:
        out = "JobID|Submit|Start|End|Elapsed|State|AllocTRES|Partition|Account\n";
        break;
      case JobLogFormat::kubernetes:
        out =
            "name,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,"
            "scheduled_time\n";
        break;
      case JobLogFormat::philly:
        out = "[";
        break;
      case JobLogFormat::helios:
        out =
            "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,"
            "duration,queue\n";
        break;
      case JobLogFormat::csv:
        out = "created,started,finished,took,n,state,team\n";
        break;
      case JobLogFormat::llm:
        out = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
        break;
    }
    for (std::size_t i = 0; i < rows; ++i) {
      t += static_cast<int64_t>(pick(random, 600)) - 60;  // a little out of order
      const int64_t start = t + static_cast<int64_t>(pick(random, 300));
      const int64_t end = start + static_cast<int64_t>(pick(random, 100000));
      const std::string gpus = std::to_string(pick(random, 9));
      const std::string& state = pick_from(random, kStates);
      const bool running = pick(random, 5) == 0;
      // Draws used below, one statement each (see text_mutations.hpp: the order of draws in
      // one expression is the compiler's).
      const std::size_t small = pick(random, 4);
      const std::size_t milli = pick(random, 1001);
      const bool with_duration = pick(random, 2) == 0;
      const std::string end_text = running ? "" : std::to_string(end);
      switch (format) {
        case JobLogFormat::slurm:
          out += std::to_string(i + 1) + "|" + std::to_string(t) + "|" + std::to_string(start) +
                 "|" + (running ? "Unknown" : end_text) + "|00:00:01|" + state +
                 "|gres/gpu=" + gpus + "|p" + std::to_string(small) + "|a\n";
          break;
        case JobLogFormat::kubernetes:
          out += "pod" + std::to_string(i) + "," + gpus + "," + std::to_string(milli) +
                 ",V100,LS," + state + "," + std::to_string(t) + "," + end_text + "," +
                 std::to_string(start) + "\n";
          break;
        case JobLogFormat::philly: {
          out += std::string(i ? ",\n" : "") + "{\"status\": \"" + state +
                 "\", \"vc\": \"v\", \"user\": \"u\", \"submitted_time\": \"" + std::to_string(t) +
                 "\", \"attempts\": [";
          const std::size_t attempts = pick(random, 4);
          int64_t a = start;
          for (std::size_t k = 0; k < attempts; ++k) {
            const int64_t b = a + static_cast<int64_t>(pick(random, 5000));
            out += std::string(k ? ", " : "") + "{\"start_time\": \"" + std::to_string(a) +
                   "\", \"end_time\": " +
                   (running && k + 1 == attempts ? std::string("null")
                                                 : "\"" + std::to_string(b) + "\"") +
                   ", \"detail\": [{\"ip\": \"m\", \"gpus\": [\"g0\"" +
                   (pick(random, 2) ? ", \"g1\"" : "") + "]}]}";
            a = b + static_cast<int64_t>(pick(random, 100));
          }
          out += "]}";
          break;
        }
        case JobLogFormat::helios:
          out += "j" + std::to_string(i) + ",u,vc," + gpus + ",8,1," + state + "," +
                 std::to_string(t) + "," + std::to_string(start) + "," + end_text + "," +
                 (with_duration ? std::to_string(end - start) : "") + ",0\n";
          break;
        case JobLogFormat::csv:
          out += std::to_string(t) + "," + std::to_string(start) + "," + end_text + "," +
                 (with_duration ? std::to_string(end - start) : "") + "," + gpus + "," + state +
                 ",team" + std::to_string(small) + "\n";
          break;
        case JobLogFormat::llm:
          // Epoch seconds with a fraction, or Azure's local times with 7 decimals; tokens
          // from 0 (dropped) to past the limit.
          out += (with_duration ? std::to_string(t) + "." + std::to_string(milli)
                                : "2023-11-16 18:" + std::to_string(10 + small) + ":0" +
                                      std::to_string(small) + ".979960" + std::to_string(small)) +
                 "," + std::to_string(milli * (small == 3 ? 1001 : 7)) + "," +
                 std::to_string(small ? milli / (small + 1) : 0) + "\n";
          break;
      }
    }
    if (format == JobLogFormat::philly) out += "]\n";
    return out;
  }

  /// Options bits for a case of the format `kind` (see fuzz::options_from_bits).
  uint32_t options_bits(std::size_t kind) {
    const uint32_t rest = static_cast<uint32_t>(random() & 0x3FFFu);  // bit 10: --instances
    return static_cast<uint32_t>(kind) + static_cast<uint32_t>(kFormats) * rest;
  }

  std::string run_case(const std::string& text, uint32_t bits, const std::string& work) {
    return gpucap::fuzz::run_import_case(text, gpucap::fuzz::options_from_bits(bits), work);
  }

  /// Generated logs join the seeds: 4 of each format.
  void add_generated_seeds() {
    for (std::size_t f = 0; f < kFormats; ++f)
      for (int k = 0; k < 4; ++k) seeds.push_back({f, generate(static_cast<JobLogFormat>(f))});
  }

  std::string summary() const { return ""; }
};

}  // namespace

int main(int argc, char** argv) {
  const auto& names = gpucap::data::job_log_format_names();
  const gpucap::fuzz::TextFuzzer fuzzer{"import_mutation_fuzz", ".log",
                                        std::vector<std::string>(names.begin(), names.end())};
  Driver driver;
  return gpucap::fuzz::run_text_fuzzer(fuzzer, driver, argc, argv);
}
