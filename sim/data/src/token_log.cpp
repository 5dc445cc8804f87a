// gpucap data: LLM request logs, one row per request with its time and token counts: the Azure
// LLM inference traces' layout (TIMESTAMP,ContextTokens,GeneratedTokens) by default, gpucap's
// own (submit_s,context_tokens,output_tokens) when the header has it, or any CSV whose columns
// --map names (submit, context, output, class). See docs/importing.md, "llm".
//
// Each request becomes a row `submit_s,context_tokens,output_tokens[,class]`, the layout that
// an LLM service replays (`arrivals: {process: trace}`) and `gpucap fit --kind llm` fits.
// Token counts are whole numbers from 0 to kMaxRequestTokens; a request without a prompt token
// or an output token has nothing to run and is dropped, counted by reason.
#include "gpucap/data/delimited.hpp"
#include "gpucap/detail/text.hpp"

#include "job_logs.hpp"

namespace gpucap::data::detail {
namespace {

/// Largest token count of a request (the scenario loader's limit).
constexpr uint64_t kMaxRequestTokens = 1000000;

/// The column of each field: --map's, else Azure's name, else gpucap's when the header has it.
struct TokenColumns {
  int submit = -1, context = -1, output = -1, klass = -1;
};

TokenColumns token_columns(const MappedColumns& columns, const LineReader& in) {
  const std::vector<std::string>& header = columns.header();
  const bool ours = column_of(header, "TIMESTAMP") < 0 && column_of(header, "submit_s") >= 0;
  const std::string needs =
      "an LLM request log needs a time and two token columns: Azure's TIMESTAMP, "
      "ContextTokens and GeneratedTokens, gpucap's submit_s, context_tokens and output_tokens, "
      "or others named with --map submit=...,context=...,output=...";
  const auto find = [&](const char* field, const char* azure, const char* own) {
    const std::string column = columns.column_for(field, ours ? own : azure);
    return find_column(header, column, true, in, needs);
  };
  TokenColumns c;
  c.submit = find("submit", "TIMESTAMP", "submit_s");
  c.context = find("context", "ContextTokens", "context_tokens");
  c.output = find("output", "GeneratedTokens", "output_tokens");
  if (columns.user_named("class")) c.klass = find("class", "", "");
  return c;
}

/// A token count: a whole number up to kMaxRequestTokens ("12", "12.0").
bool parse_tokens(std::string_view text, uint64_t& tokens) {
  return parse_gpu_count(text, tokens) && tokens <= kMaxRequestTokens;
}

}  // namespace

void read_token_log(LineReader& in, const ImportOptions& options, TraceWriter& out,
                    ImportReport& report) {
  const char separator = options.separator;
  const MappedColumns columns(read_header(in, separator, true, "llm"), options);
  const TokenColumns c = token_columns(columns, in);
  TableRows rows(in, separator, columns, report);
  while (rows.next()) {
    const std::vector<std::string_view>& f = rows.fields();
    const uint64_t n = rows.line();
    JobRecord request;
    request.line = n;
    if (parse_timestamp(f[c.submit], options.time_format, options.zone, request.submit_ms) !=
        TimeParse::ok) {
      report.drop("malformed or missing request time", n);
      continue;
    }
    uint64_t context = 0, output = 0;
    if (!parse_tokens(f[c.context], context) || !parse_tokens(f[c.output], output)) {
      report.drop("malformed token count (a whole number from 0 to 1000000)", n);
      continue;
    }
    if (context == 0 || output == 0) {
      report.drop(context == 0 ? "no prompt token (nothing to prefill)"
                               : "no output token (nothing to generate)",
                  n);
      continue;
    }
    // A request holds no GPU of its own and ends when the simulation says: one GPU, run 0 s
    // (the writer's request rows leave both out).
    request.start_ms = request.end_ms = request.submit_ms;
    request.gpus = 1;
    request.extra = "," + std::to_string(context) + "," + std::to_string(output);
    if (c.klass >= 0) append_extra(request.extra, f[c.klass], n, report);
    out.add(std::move(request));
  }
}

}  // namespace gpucap::data::detail
