// gpucap data: Kubernetes pod lists such as Alibaba's openb (cluster-trace-gpu-v2023):
//   name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,
//   deletion_time,scheduled_time
// (see docs/importing.md, "kubernetes"). A pod is a job: submitted at creation_time, started
// at scheduled_time, ended at deletion_time, on num_gpu GPUs.
// - gpu_milli is the share of each GPU the pod asks for, in thousandths (1000 = whole GPUs).
//   A pod with 0 < gpu_milli < 1000 shares its GPU with others; gpucap has no GPU sharing, so
//   such a pod counts as num_gpu whole GPUs (--fractional-gpus whole, the default; noted in the
//   report) or is dropped (--fractional-gpus drop).
// - A pod never scheduled (no scheduled_time, or pod_phase Pending) never ran: dropped.
// - A pod whose pod_phase is Running with a deletion_time ran until it was deleted: its run
//   ends there (in openb the deletion times of Running pods spread over the whole log: 4,149
//   pods, of which only 32 were deleted at its very end). It is censored (or dropped with
//   --running drop) only when --log-end is given and the deletion is at or after it: its run
//   then ends at the log's end, where observation stopped. A Running pod without a
//   deletion_time is still running: censored at the log's end.
#include "gpucap/data/delimited.hpp"

#include "job_logs.hpp"

namespace gpucap::data::detail {
namespace {

constexpr const char* kNeeds =
    "a Kubernetes pod list needs the columns creation_time, scheduled_time, deletion_time and "
    "num_gpu (and may have gpu_milli, gpu_spec, qos, pod_phase), as Alibaba's openb pod lists; "
    "--map names others (submit=, start=, end=, gpus=, state=) and --set-column gives a field "
    "one value (gpus=1)";

}  // namespace

void read_kubernetes_log(LineReader& in, const ImportOptions& options, TraceWriter& out,
                         ImportReport& report) {
  // The fields' columns: openb's names, unless --map renames them or --set-column sets them.
  const MappedColumns columns(read_header(in, ',', true, "kubernetes"), options);
  const std::vector<std::string>& header = columns.header();
  const auto need = [&](const char* field, const char* name) {
    return find_column(header, columns.column_for(field, name), true, in, kNeeds);
  };
  const auto may = [&](const char* field, const char* name) {
    return find_column(header, columns.column_for(field, name), columns.user_named(field), in,
                       kNeeds);
  };
  const bool instances = options.trace.instances;  // they need no scheduled_time
  const int c_create = need("submit", "creation_time"),
            c_sched = instances ? may("start", "scheduled_time") : need("start", "scheduled_time"),
            c_delete = need("end", "deletion_time"), c_gpus = need("gpus", "num_gpu");
  const int c_milli = find_column(header, "gpu_milli", false, in, kNeeds),
            c_spec = find_column(header, "gpu_spec", false, in, kNeeds),
            c_qos = find_column(header, "qos", false, in, kNeeds),
            c_phase = may("state", "pod_phase");

  TableRows rows(in, ',', columns, report);
  while (rows.next()) {
    const std::vector<std::string_view>& f = rows.fields();
    const uint64_t n = rows.line();
    JobRecord job;
    job.line = n;
    if (!parse_gpu_count(f[c_gpus], job.gpus)) {
      report.drop(kBadGpus, n);
      continue;
    }
    uint64_t milli = 1000;
    if (c_milli >= 0 && !f[c_milli].empty()) {
      if (!parse_gpu_count(f[c_milli], milli) || milli > 1000) {
        report.drop("malformed gpu_milli (thousandths of a GPU, 0 to 1000)", n);
        continue;
      }
    }
    if (job.gpus == 0 || milli == 0) {
      report.drop("zero GPUs", n);
      continue;
    }
    if (milli < 1000 && options.fractional_gpus == FractionalGpus::drop) {
      report.drop("a fraction of a GPU (gpu_milli < 1000; --fractional-gpus drop)", n);
      continue;
    }
    const std::string_view phase = c_phase >= 0 ? f[c_phase] : std::string_view();
    const JobState state = classify_state(phase);
    const TimeParse created =
        parse_timestamp(f[c_create], options.time_format, options.zone, job.submit_ms);
    if (created != TimeParse::ok && !(instances && created == TimeParse::absent)) {
      report.drop(kBadSubmit, n);
      continue;
    }
    if (instances) {  // an instance demands GPUs from its creation to its deletion
      job.submit_unknown = created == TimeParse::absent;
      job.start_ms = job.submit_ms;
      const TimeParse deleted =
          parse_timestamp(f[c_delete], options.time_format, options.zone, job.end_ms);
      if (deleted == TimeParse::malformed) {
        report.drop(kBadEnd, n);
        continue;
      }
      job.running = deleted == TimeParse::absent;
      append_extra(job.extra, c_milli >= 0 ? f[c_milli] : std::string_view("1000"), n, report);
      append_extra(job.extra, c_spec >= 0 ? f[c_spec] : std::string_view(), n, report);
      append_extra(job.extra, c_qos >= 0 ? f[c_qos] : std::string_view(), n, report);
      out.add(std::move(job));
      continue;
    }
    const TimeParse start =
        parse_timestamp(f[c_sched], options.time_format, options.zone, job.start_ms);
    if (start == TimeParse::malformed) {
      report.drop(kBadStart, n);
      continue;
    }
    if (start == TimeParse::absent || state == JobState::pending) {
      report.drop("never scheduled (no scheduled_time, or pod_phase Pending)", n);
      continue;
    }
    const TimeParse end =
        parse_timestamp(f[c_delete], options.time_format, options.zone, job.end_ms);
    if (end == TimeParse::malformed) {
      report.drop(kBadEnd, n);
      continue;
    }
    if (state == JobState::running) {
      if (end == TimeParse::absent)
        job.running = true;
      else if (options.trace.log_end_ms && job.end_ms >= *options.trace.log_end_ms) {
        // Deleted at or after the log's end: observed running up to the log's end only.
        if (*options.trace.log_end_ms <= job.start_ms) {
          report.drop("still running, started at or after the log's end (--log-end)", n);
          continue;
        }
        job.end_ms = *options.trace.log_end_ms;
        job.censored = true;
      }
    } else if (end == TimeParse::absent) {
      report.drop(kNoEnd, n);
      continue;
    }
    if (milli < 1000)
      report.note("pods on a fraction of a GPU counted as whole GPUs (--fractional-gpus whole)", n);
    append_extra(job.extra, c_milli >= 0 ? f[c_milli] : std::string_view("1000"), n, report);
    append_extra(job.extra, c_spec >= 0 ? f[c_spec] : std::string_view(), n, report);
    append_extra(job.extra, c_qos >= 0 ? f[c_qos] : std::string_view(), n, report);
    out.add(std::move(job));
  }
}

}  // namespace gpucap::data::detail
