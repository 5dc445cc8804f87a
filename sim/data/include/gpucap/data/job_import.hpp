// gpucap data: importing job logs (Slurm accounting, Kubernetes pod lists, the Philly and
// Helios/Acme traces, any CSV) into gpucap's trace CSV (see trace_writer.hpp for the layout
// and docs/importing.md for each format's columns, with examples).
//
// Streaming: the input is read once, line by line (JSON objects one at a time for philly), and
// the output is written as it goes, so memory is bounded by the reorder window, not by the log.
//
//   gpucap::data::ImportOptions options;
//   options.zone = gpucap::data::parse_time_zone("+02:00");
//   gpucap::data::ImportReport report = gpucap::data::import_job_log(
//       gpucap::data::JobLogFormat::slurm, "sacct.txt", options,
//       [&](std::string_view bytes) { out.write(bytes.data(), bytes.size()); });
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "gpucap/data/import_report.hpp"
#include "gpucap/data/line_reader.hpp"
#include "gpucap/data/timestamp.hpp"
#include "gpucap/data/trace_writer.hpp"

namespace gpucap::data {

/// llm: requests of an LLM service with their token counts (Azure's LLM inference traces, or
/// any CSV with --map); its rows are submit_s,context_tokens,output_tokens[,class].
enum class JobLogFormat { slurm, kubernetes, philly, helios, csv, llm };

/// The formats' names, in the order of JobLogFormat: "slurm", "kubernetes", "philly", "helios",
/// "csv", "llm".
const std::vector<std::string>& job_log_format_names();
/// The format called `name`; throws std::invalid_argument listing the valid names.
JobLogFormat parse_job_log_format(const std::string& name);

/// How a Kubernetes pod that asks for part of a GPU (gpu_milli < 1000) is counted.
enum class FractionalGpus {
  whole,  ///< as a whole GPU each (num_gpu GPUs): the GPU cannot serve another job in gpucap
  drop,   ///< dropped with the reason "a fraction of a GPU"
};

struct ImportOptions {
  /// Zone of times written without an offset (Slurm's are local time of the cluster).
  TimeZone zone;
  /// How times are written: for csv (and helios, philly, kubernetes, whose defaults are auto).
  TimeFormat time_format = TimeFormat::automatic;
  TraceOptions trace;
  FractionalGpus fractional_gpus = FractionalGpus::whole;
  /// csv, helios, kubernetes, llm: which column holds each field, e.g. {"submit",
  /// "created_at"}; fields: submit, start, end, duration, gpus, state, class (llm: submit,
  /// context, output, class). Helios and kubernetes take their
  /// columns by default; a mapping renames them.
  std::vector<std::pair<std::string, std::string>> mapping;
  /// csv, helios, kubernetes: fields that hold one value in every row, e.g. {"gpus", "1"} for
  /// a log without a GPU column (gpucap import --set-column). A field is mapped or set, not both.
  std::vector<std::pair<std::string, std::string>> constants;
  /// csv: the field separator (',' by default; '\t' for TSV, '|' for other tools).
  char separator = ',';
};

/// Parses "--map" text: "submit=created_at,start=started,gpus=n_gpu" into pairs (or, with
/// option "--set-column", "gpus=1" into constant fields); throws std::invalid_argument naming
/// the option and the valid fields.
std::vector<std::pair<std::string, std::string>> parse_column_mapping(
    const std::string& text, const std::string& option = "--map");

/// Reads `input` in `format` and sends the trace CSV to `sink`. Rows that cannot become jobs
/// are counted in the report, never fatal; an input that cannot be used at all (unreadable,
/// not a regular file, binary, a header without the format's columns) throws DataFileError
/// naming the file, the line and what is valid.
ImportReport import_job_log(JobLogFormat format, const std::string& input,
                            const ImportOptions& options, const TraceWriter::Sink& sink);

}  // namespace gpucap::data
