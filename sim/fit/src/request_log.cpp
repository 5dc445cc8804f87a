// gpucap fitting: an LLM request log (submit_s, context_tokens, output_tokens; what `gpucap
// import --format llm` writes) read into classes of requests with their token counts, for
// `gpucap fit --kind llm` (job_trace.hpp).
#include <algorithm>
#include <cmath>
#include <vector>

#include "gpucap/csv_table.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/fit/job_trace.hpp"
#include "gpucap/fit/run_time_model.hpp"

#include "trace_classes.hpp"

namespace gpucap::fit::detail {
namespace {

/// The token column `name`, or Azure's `azure` when the file has that instead of ours.
std::string token_column(const gpucap::CsvTable& table, const std::string& name,
                         const char* ours, const char* azure) {
  return name == ours && !table.has_column(name) && table.has_column(azure) ? azure : name;
}

}  // namespace

JobTrace read_request_log(const gpucap::CsvTable& table, const TraceColumns& columns,
                          double window_s) {
  JobTrace trace;
  trace.origin = table.origin();
  trace.requests = true;
  const std::string context = token_column(table, columns.context, "context_tokens", "ContextTokens");
  const std::string output = token_column(table, columns.output, "output_tokens", "GeneratedTokens");
  gpucap::NumberColumn submit, c, o;
  gpucap::CsvTable::Categories class_values;
  try {
    if (!table.has_column(columns.submit) && table.has_column("TIMESTAMP"))
      throw TraceDataError(table.origin() +
                           ": the log's times are calendar times (TIMESTAMP); fit reads seconds "
                           "since t = 0: import it first (gpucap import --format llm LOG -o "
                           "requests.csv), then fit requests.csv");
    submit = table.number_column(columns.submit);
    c = table.number_column(context);
    o = table.number_column(output);
    if (!columns.class_by.empty())
      class_values = table.categories(columns.class_by, kMaxClassTexts);
  } catch (const TraceDataError&) {
    throw;
  } catch (const std::runtime_error& e) {
    throw TraceDataError(e.what());
  }
  trace.rows = table.rows();
  if (trace.rows == 0)
    throw TraceDataError(table.origin() + ": the log has a header but no requests");
  const auto where = [&](std::size_t r, const std::string& column) {
    return table.origin() + ":" + std::to_string(table.line_of_row(r)) + ": column \"" +
           text::excerpt(column) + "\" holds " + text::format_number(column == context ? c[r]
                                                                     : column == output ? o[r]
                                                                                        : submit[r]);
  };
  double last = 0;
  for (std::size_t r = 0; r < trace.rows; ++r) {
    if (!(submit[r] >= 0 && submit[r] <= kMaxDurationS))
      throw TraceDataError(where(r, columns.submit) +
                           "; a request time is seconds from 0 to 3.156e11 (10000 years)");
    for (const auto* column : {&context, &output}) {
      const double v = column == &context ? c[r] : o[r];
      if (!(v >= 0 && v <= kMaxRequestTokens && v == std::floor(v)))
        throw TraceDataError(where(r, *column) +
                             "; a token count is a whole number from 0 to 1000000");
    }
    if (window_s > 0 && submit[r] > window_s)
      throw TraceDataError(where(r, columns.submit) + " s, after the end of the window (--window " +
                           text::format_number(window_s) + " s)");
    last = std::max(last, submit[r]);
  }
  trace.window_s = window_s > 0 ? window_s : last;
  if (!(trace.window_s > 0))
    throw TraceDataError(table.origin() +
                         ": every request came at 0 s, so the log spans no time and no arrival "
                         "rate can be estimated; give the observation window with --window");
  std::vector<uint32_t> class_of(1, 0);
  if (columns.class_by.empty()) {
    JobClass one;
    one.name = "llm";
    trace.classes.push_back(std::move(one));
  } else {
    class_of = make_classes(table, columns, class_values, trace);
  }
  // Requests in submit order (a replay sorts them; the token pairs follow their requests).
  std::vector<std::size_t> order(trace.rows);
  for (std::size_t r = 0; r < trace.rows; ++r) order[r] = r;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return submit[a] < submit[b]; });
  for (const std::size_t r : order) {
    JobClass& k = trace.classes[class_of[columns.class_by.empty() ? 0 : class_values.codes[r]]];
    // A request without a prompt or an output token has nothing to run: left out (a replay
    // and a sample leave it out too).
    if (c[r] < 1 || o[r] < 1) {
      ++trace.zero_duration_rows;
      continue;
    }
    k.submit_s.push_back(submit[r]);
    k.tokens.push_back(static_cast<uint32_t>(c[r]));
    k.tokens.push_back(static_cast<uint32_t>(o[r]));
  }
  for (const JobClass& k : trace.classes)
    if (k.submit_s.empty())
      throw TraceDataError(table.origin() + ": class \"" + text::excerpt(k.value) +
                           "\" has no request with a prompt and an output token");
  return trace;
}

}  // namespace gpucap::fit::detail
