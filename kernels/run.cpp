// gpucap: compile a scenario, run its replications on a backend, summarize.
#include "gpucap/run.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "gpucap/compile.hpp"
#include "gpucap/concat.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/event_estimate.hpp"
#include "gpucap/input_file.hpp"
#include "gpucap/job_records_run.hpp"
#include "gpucap/memory_estimate.hpp"
#include "gpucap/progress.hpp"
#include "gpucap/replication.hpp"
#include "gpucap/run_journal.hpp"
#include "gpucap/settling_probe.hpp"
#include "gpucap/sha256.hpp"
#include "gpucap/stopping_rule.hpp"
#include "gpucap/streaming_summary.hpp"
#include "gpucap/version.hpp"

namespace gpucap {

namespace {

/// Refuses (std::invalid_argument) replications [first, first + count) that run past the last
/// replication index, 2^64 - 1: the index would wrap around to 0 and repeat the random numbers
/// of replications already run.
void check_replication_range(uint64_t first, uint64_t count, const char* count_name) {
  if (count > 0 && first > UINT64_MAX - (count - 1))
    throw std::invalid_argument(
        "first_replication + " + std::string(count_name) +
        " must be at most 2^64 (replication indices run from 0 to 18446744073709551615), got "
        "first_replication " +
        std::to_string(first) + " and " + std::to_string(count) + " " + count_name +
        ": the index would wrap around to 0 and repeat the random numbers of replications "
        "from 0 on");
}

/// run_points with a precision: batches of run_points_fixed, each appended to the rows before,
/// for as long as the stopping rule asks for more (stopping_rule.hpp). The rule only decides;
/// the batches run here.
RunResults run_to_precision(const std::vector<Scenario>& points,
                            const std::vector<SweepParameter>& sweep, const Scenario& base,
                            const RunOptions& options) {
  StoppingRule rule(options.precision, options.precision_metrics, options.max_replications,
                    options.first_replication);
  if (points.empty()) throw std::invalid_argument("run_points: no points");
  RunOptions batch = options;
  batch.precision = 0;
  batch.precision_metrics.clear();
  batch.max_replications = 0;
  batch.replications =
      rule.first_batch(options.replications > 0 ? options.replications : points[0].replications);
  RunResults r = run_points_fixed(points, sweep, base, batch);
  while (const uint64_t next =
             rule.next_total(r, available_host_memory_bytes(), options.writes_file)) {
    batch.replications = next - r.replications;
    batch.first_replication = options.first_replication + r.replications;
    const RunResults more = run_points_fixed(points, sweep, base, batch);
    r = concat_results({&r, &more}, ConcatAxis::replications);
  }
  r.stopping_rule = rule.outcome(r);
  return r;
}

}  // namespace

RunResults run(const Scenario& scenario, const RunOptions& options) {
  return run_points({scenario}, {}, scenario, options);
}

RunResults describe_run(const std::vector<Scenario>& points,
                        const std::vector<SweepParameter>& sweep, const Scenario& base,
                        const RunOptions& options) {
  if (points.empty()) throw std::invalid_argument("run_points: no points");
  if (options.replications > kMaxReplications)
    throw std::invalid_argument("replications must be from 1 to " +
                                std::to_string(kMaxReplications) + ", got " +
                                std::to_string(options.replications));
  const Scenario& first = points.front();
  for (std::size_t p = 1; p < points.size(); ++p) {
    bool same = points[p].pools.size() == first.pools.size();
    for (std::size_t k = 0; same && k < first.pools.size(); ++k)
      same = points[p].pools[k].name == first.pools[k].name;
    if (!same)
      throw std::invalid_argument("sweep point " + std::to_string(p) +
                                  " has other pools than point 0; a sweep may change pools' "
                                  "settings but not which pools there are");
  }
  for (const SweepParameter& parameter : sweep)
    if (parameter.path == "seed" || parameter.path == "replications")
      throw std::invalid_argument(
          "a sweep cannot vary '" + parameter.path +
          "': every point runs the same replications with the same random numbers; give "
          "them with the run's replications and seed options instead");
  for (std::size_t p = 1; p < points.size(); ++p)
    if ((!options.has_seed && points[p].seed != first.seed) ||
        (options.replications == 0 && points[p].replications != first.replications))
      throw std::invalid_argument("sweep point " + std::to_string(p) +
                                  " has another seed or replication count than point 0; a "
                                  "sweep's points share both");
  for (const SweepParameter& parameter : sweep)
    if (parameter.values.size() != points.size())
      throw std::invalid_argument("sweep parameter " + parameter.path + " has " +
                                  std::to_string(parameter.values.size()) + " values for " +
                                  std::to_string(points.size()) + " points");
  // The time series' bins must line up across points.
  for (std::size_t p = 1; p < points.size(); ++p)
    if (points[p].timeseries_bins() != first.timeseries_bins() ||
        points[p].timeseries_step_s != first.timeseries_step_s)
      throw std::invalid_argument("sweep point " + std::to_string(p) +
                                  " records another time series than point 0 (timeseries.step "
                                  "or horizon differ); a sweep must keep them");
  for (std::size_t p = 1; p < points.size(); ++p)
    if (!same_goals(points[p].goals, first.goals))
      throw std::invalid_argument("sweep point " + std::to_string(p) +
                                  " has other goals than point 0; a sweep may not change goals "
                                  "(their names, conditions or targets)");
  RunResults r;
  r.gpucap_version = kVersion;
  r.goals = first.goals;
  r.timeseries_step_s = first.timeseries_step_s;
  r.timeseries_bins = static_cast<std::size_t>(first.timeseries_bins());
  r.scenario_name = first.name;
  r.scenario_text = base.source_text;
  r.scenario_original_text = base.original_text;
  r.scenario_overrides = base.overrides;
  r.input_files = base.input_files;
  for (const Scenario& point : points)
    r.input_files.insert(r.input_files.end(), point.input_files.begin(), point.input_files.end());
  r.data_files = base.data_files;
  for (const Scenario& point : points) merge_data_file_records(r.data_files, point.data_files);
  r.seed = options.has_seed ? options.seed : first.seed;
  r.points = points.size();
  r.replications = options.replications > 0 ? options.replications : first.replications;
  r.first_replication = options.first_replication;
  check_replication_range(r.first_replication, r.replications, "replications");
  r.sweep = sweep;
  for (const PoolSpec& p : first.pools) r.pool_names.push_back(p.name);
  return r;
}

RunResults run_points(const std::vector<Scenario>& points, const std::vector<SweepParameter>& sweep,
                      const Scenario& base, const RunOptions& options) {
  RunResults r;
  if (options.precision != 0) {
    if (options.keep_rows != RunOptions::kKeepAllRows)
      throw std::invalid_argument(
          "a run to a precision keeps every row (it joins its batches' "
          "rows); --rows applies to runs of a fixed count");
    if (options.resume)
      throw std::invalid_argument(
          "--resume applies to runs of a fixed count, not to a run to a "
          "precision (its batches keep no journal)");
    // Before the first batch: the last batch may reach max_replications.
    check_replication_range(
        options.first_replication,
        options.max_replications > 0 ? options.max_replications : kDefaultMaxReplications,
        "max_replications");
    RunOptions batches = options;
    batches.journal_path.clear();
    r = run_to_precision(points, sweep, base, batches);
  } else {
    if (!options.precision_metrics.empty() || options.max_replications != 0)
      throw std::invalid_argument("precision metrics and max replications apply only with a "
                                  "precision (the stopping rule)");
    r = run_points_fixed(points, sweep, base, options);
  }
  add_job_records(r, points, options.threads);  // after the run: it neither slows nor changes it
  if (options.settling_probe)
    add_settling_probe(r, points, options.monitor ? &options.monitor->cancel : nullptr,
                       options.threads);
  return r;
}

namespace {

/// A run's compiled points and the backend that runs them.
struct PreparedRun {
  const Backend* backend = nullptr;
  std::string backend_choice;  ///< auto's one-line reason; "" when the backend was named
  bool on_device = false;
  int host_threads = 0;  ///< CPU threads beside the devices (DeviceLimits::host_threads)
  std::vector<ModelStorage> models;
  uint64_t arena_bytes = 0;  ///< the largest point's engine arena
};

/// Bytes of one replication's row at every point: scalars, pool values, time series, goals.
uint64_t row_bytes(const RunResults& r) {
  return r.points * (sizeof(double) * (r.moment_columns() + r.pool_count() * r.timeseries_bins) +
                     r.goals.size());
}

/// Replications per chunk of a run that keeps fewer rows: `asked` (whole moment blocks), or
/// default_chunk_replications, never more than the run's replications rounded up to a block.
uint64_t chunk_replications(const RunResults& r, bool on_device, uint64_t asked) {
  if (asked > 0) {
    if (asked % kMomentBlock != 0)
      throw std::invalid_argument("chunk replications must be a multiple of " +
                                  std::to_string(kMomentBlock) + ", got " + std::to_string(asked));
    return asked;
  }
  return std::min<uint64_t>(default_chunk_replications(row_bytes(r), on_device),
                            (r.replications + kMomentBlock - 1) / kMomentBlock * kMomentBlock);
}

/// Runs r's replications [r.first_replication, + r.replications) of every point into r's rows
/// (allocated here), advancing `bar`; sets r's backend, device and threads. `summary` not null
/// (a device run, from a multiple of kMomentBlock): the device reduces the rows to it
/// (empty_chunk_summary(r) before) and r keeps no rows.
void run_rows(const PreparedRun& run, const RunOptions& options, RunResults& r, ProgressBar& bar,
              ChunkSummary* summary = nullptr) {
  const std::size_t rows = summary ? 0 : r.points * r.replications;
  r.scalars.assign(rows * kScalarMetricCount, 0.0);
  r.pool_values.assign(rows * r.pool_count() * kPoolMetricCount, 0.0);
  r.timeseries.assign(rows * r.pool_count() * r.timeseries_bins, 0.0);
  r.goal_met.clear();
  ReplicationTask task;
  task.models = run.models.data();
  task.points = run.models.size();
  task.seed = r.seed;
  task.first = r.first_replication;
  task.count = r.replications;
  task.scalars = summary ? nullptr : r.scalars.data();
  task.pool_values = summary ? nullptr : r.pool_values.data();
  task.timeseries = r.timeseries_bins > 0 && !summary ? r.timeseries.data() : nullptr;
  task.monitor = options.monitor;
  task.progress = &bar;
  // The device reduces the summary's moments when its blocks line up with the host's.
  r.block_moments.clear();
  if (summary) {
    task.summary = summary;
    task.goals = &r.goals;
    task.block_moments = summary->blocks.data();
  } else if (run.on_device && task.first % kMomentBlock == 0) {
    r.block_moments.assign(
        r.points * ((r.replications + kMomentBlock - 1) / kMomentBlock) * r.moment_columns(),
        Moments{});
    task.block_moments = r.block_moments.data();
  }
  DeviceLimits limits = options.device_limits;
  if (!run.on_device) limits.workers = static_cast<uint64_t>(options.threads);
  if (!run.on_device) limits.devices.clear();  // `auto` chose the cpu over the named devices
  limits.host_threads = run.on_device ? run.host_threads : 0;
  const DeviceRunStats stats = run.backend->run(task, limits);
  r.backend = run.backend->label;
  r.backend_choice = run.backend_choice;
  r.device = stats.device;
  r.threads = static_cast<int>(stats.workers);
}

/// Copies the rows of `part` (replications part.first_replication on, every row kept) that
/// fall within r's first r.rows_per_point() into r's rows.
void keep_rows_of(const RunResults& part, RunResults& r) {
  const std::size_t kept = r.rows_per_point();
  const std::size_t offset = part.first_replication - r.first_replication;
  if (offset >= kept) return;
  const std::size_t n = std::min(kept - offset, part.replications);
  const std::size_t pool_stride = r.pool_count() * kPoolMetricCount;
  const std::size_t series_stride = r.pool_count() * r.timeseries_bins;
  for (std::size_t p = 0; p < r.points; ++p) {
    std::copy_n(part.scalars.begin() + p * part.replications * kScalarMetricCount,
                n * kScalarMetricCount,
                r.scalars.begin() + (p * kept + offset) * kScalarMetricCount);
    std::copy_n(part.pool_values.begin() + p * part.replications * pool_stride, n * pool_stride,
                r.pool_values.begin() + (p * kept + offset) * pool_stride);
    std::copy_n(part.timeseries.begin() + p * part.replications * series_stride, n * series_stride,
                r.timeseries.begin() + (p * kept + offset) * series_stride);
  }
}

/// The run's backend and compiled points, after the checks every run makes (threads, the
/// start of a streaming run).
PreparedRun prepare_run(const std::vector<Scenario>& points, const RunResults& r,
                        const RunOptions& options, bool streaming) {
  if (options.threads < 0 || options.threads > kMaxThreads)
    throw std::invalid_argument("threads must be from 0 (all cores) to " +
                                std::to_string(kMaxThreads) + ", got " +
                                std::to_string(options.threads));
  if (streaming && r.first_replication % kMomentBlock != 0)
    throw std::invalid_argument(
        "a run that keeps fewer rows than replications (--rows) must "
        "start at a multiple of " +
        std::to_string(kMomentBlock) + " replications, got " + std::to_string(r.first_replication));
  PreparedRun run;
  if (options.backend == BackendChoice::cpu && !options.device_limits.devices.empty())
    throw std::invalid_argument(
        "devices apply to the device backends (cuda, thrust-omp); this run is on the cpu "
        "backend");
  run.models.reserve(points.size());
  for (const Scenario& point : points) run.models.push_back(compile(point));
  for (const ModelStorage& m : run.models)
    run.arena_bytes = std::max<uint64_t>(run.arena_bytes, replication_arena_bytes(m.model()));
  // `auto` weighs the run: all its replications, its longest point's expected events.
  RunShape shape;
  shape.replications = r.points * r.replications;
  for (const Scenario& point : points)
    shape.events_per_replication =
        std::max(shape.events_per_replication, expected_events_per_replication(point));
  shape.arena_bytes = run.arena_bytes;
  const BackendPick pick =
      choose_backend(options.backend, shape, options.threads, options.device_limits.devices);
  run.backend = pick.backend;
  run.backend_choice = pick.why;
  run.on_device = run.backend->kind == BackendKind::device;
  // Named by --host-threads (with auto: when it picks a device), or auto's choice of both.
  run.host_threads = options.device_limits.host_threads > 0 ? options.device_limits.host_threads
                                                            : pick.host_threads;
  if (options.backend == BackendChoice::cpu && options.device_limits.host_threads > 0)
    throw std::invalid_argument(
        "host threads join the devices of a device backend (cuda, thrust-omp); this run is on "
        "the cpu backend (its threads are --threads)");
  if (!run.on_device && !options.device_limits.devices.empty() &&
      resolve_backend(options.backend).kind == BackendKind::cpu)
    throw std::invalid_argument(
        "devices apply to the device backends (cuda, thrust-omp); this run is on the cpu "
        "backend (no usable GPU)");
  return run;
}

/// Refuses (std::invalid_argument, before anything is allocated) a run whose estimate exceeds
/// the memory available. `chunk` > 0: a streaming run keeping options.keep_rows rows.
void check_memory(const PreparedRun& run, const RunResults& r, const RunOptions& options,
                  uint64_t chunk) {
  // A device backend holds the same host rows (and an arena per host thread beside its
  // devices); the cpu one an arena per thread.
  const uint64_t threads = run.on_device
                               ? static_cast<uint64_t>(run.host_threads)
                               : static_cast<uint64_t>(resolve_thread_count(options.threads));
  const bool streaming = chunk > 0;
  const MemoryEstimate estimate =
      streaming
          ? estimate_streaming_run_memory(
                r.points, std::min<uint64_t>(options.keep_rows, r.replications), chunk,
                r.pool_count(), r.timeseries_bins, run.arena_bytes, threads, options.writes_file)
          : estimate_run_memory(r.points, r.replications, r.pool_count(), r.timeseries_bins,
                                run.arena_bytes, threads, options.writes_file);
  const uint64_t available = available_host_memory_bytes();
  if (estimate.total_bytes() > available)
    throw std::invalid_argument(
        std::to_string(r.points * r.replications) + " replications need about " +
        estimate.describe() + ", more than the " + format_bytes(available) +
        " of memory available; " +
        (streaming ? std::string("keep fewer rows (--rows none), run fewer sweep points or "
                                 "time-series bins, or fewer threads")
                   : std::string("keep fewer rows (--rows none or first N: the summaries "
                                 "still cover every replication), run fewer replications "
                                 "(-r; or fewer sweep points, threads or time-series bins), "
                                 "or split the run (first_replication)")));
}

/// Runs r's replications from `done` on, chunk by chunk (`chunk` each, whole moment blocks),
/// and hands each chunk's rows (every row of the chunk) and, when `summarize`, its summary to
/// `consume`, in order; sets r's backend, device and threads. A device run reduces a chunk
/// to its summary on the device, and hands no rows, when `summarize` and the chunk lies past
/// the first `rows_wanted` replications (those whose rows `consume` keeps).
void run_in_chunks(const PreparedRun& run, const RunOptions& options, RunResults& r, uint64_t chunk,
                   uint64_t done, bool summarize, uint64_t rows_wanted, ProgressBar& bar,
                   const std::function<void(const RunResults&, ChunkSummary&&)>& consume) {
  const unsigned summary_threads =
      run.on_device ? 0u : static_cast<unsigned>(resolve_thread_count(options.threads));
  RunResults part;  // the description; each chunk's rows replace its arrays
  part.points = r.points;
  part.seed = r.seed;
  part.pool_names = r.pool_names;
  part.timeseries_bins = r.timeseries_bins;
  part.goals = r.goals;
  for (; done < r.replications; done += chunk) {
    part.first_replication = r.first_replication + done;
    part.replications = static_cast<std::size_t>(std::min<uint64_t>(chunk, r.replications - done));
    if (summarize && run.on_device && done >= rows_wanted) {
      ChunkSummary summary = empty_chunk_summary(part);
      run_rows(run, options, part, bar, &summary);
      consume(part, std::move(summary));
      continue;
    }
    run_rows(run, options, part, bar);
    if (summarize) part.evaluate_goals();
    consume(part, summarize ? summarize_chunk(part, summary_threads) : ChunkSummary{});
  }
  if (!part.backend.empty()) {
    r.backend = part.backend;
    r.backend_choice = part.backend_choice;
    r.device = part.device;
    r.threads = part.threads;
  }
}

/// What identifies a run to its journal: gpucap's version, a digest of every text and data
/// file that defines its points, the seed, the replications and the rows it keeps.
RunIdentity run_identity(const std::vector<Scenario>& points, const RunResults& r,
                         const RunOptions& options) {
  Sha256 digest;
  const auto text = [&digest](const std::string& t) {
    const uint64_t n = t.size();
    digest.update(&n, sizeof n);
    digest.update(t.data(), t.size());
  };
  text(r.scenario_text);
  text(r.scenario_original_text);
  for (const auto& [path, value] : r.scenario_overrides) {
    text(path);
    text(value);
  }
  for (const SweepParameter& p : r.sweep) {
    text(p.path);
    for (const std::string& v : p.values) text(v);
  }
  for (const Scenario& point : points) text(point.source_text);
  for (const DataFileRecord& f : r.data_files) text(f.sha256);
  // The metric columns of a row: a build that adds a metric reads no journal of one before.
  const std::string columns =
      std::to_string(kScalarMetricCount) + " scalar, " + std::to_string(kPoolMetricCount) + " per pool";
  return {{"gpucap_version", kVersion},
          {"metric_columns", columns},
          {"scenario_sha256", digest.hex()},
          {"seed", std::to_string(r.seed)},
          {"first_replication", std::to_string(r.first_replication)},
          {"replications", std::to_string(r.replications)},
          {"points", std::to_string(r.points)},
          {"rows_kept", options.keep_rows >= r.replications ? std::string("all")
                                                            : std::to_string(options.keep_rows)}};
}

/// Places a journal record's rows in r (its kept rows, at its replications' places). Throws
/// std::runtime_error when it does not fit r.
void replay_rows(const JournalRecord& record, uint64_t expected_first, RunResults& r,
                 const std::string& path) {
  const std::size_t kept = r.rows_per_point();
  const std::size_t pool_stride = r.pool_count() * kPoolMetricCount;
  const std::size_t series_stride = r.pool_count() * r.timeseries_bins;
  const uint64_t offset = record.first - r.first_replication;
  const uint64_t rows = offset < kept ? std::min<uint64_t>(kept - offset, record.count) : 0;
  if (record.first != expected_first || record.count == 0 ||
      record.count > r.replications - offset || record.rows != rows ||
      record.scalars.size() != r.points * rows * kScalarMetricCount ||
      record.pool_values.size() != r.points * rows * pool_stride ||
      record.timeseries.size() != r.points * rows * series_stride)
    throw std::runtime_error(
        "cannot resume from '" + text::excerpt(path, 300) + "': a record of replications " +
        std::to_string(record.first) + " to " + std::to_string(record.first + record.count) +
        " does not fit this run (expected the next from " + std::to_string(expected_first) + ")");
  if (rows == 0) return;  // no rows kept (r's vectors may be empty: no offset into them)
  for (std::size_t p = 0; p < r.points; ++p) {
    std::copy_n(record.scalars.begin() + p * rows * kScalarMetricCount, rows * kScalarMetricCount,
                r.scalars.begin() + (p * kept + offset) * kScalarMetricCount);
    std::copy_n(record.pool_values.begin() + p * rows * pool_stride, rows * pool_stride,
                r.pool_values.begin() + (p * kept + offset) * pool_stride);
    std::copy_n(record.timeseries.begin() + p * rows * series_stride, rows * series_stride,
                r.timeseries.begin() + (p * kept + offset) * series_stride);
  }
}

/// The journal record of r's replications [from, to) (counted from r.first_replication), whose
/// kept rows are in r already: those rows, and the fold's state after them (`fold` null: none).
JournalRecord record_of_range(const RunResults& r, uint64_t from, uint64_t to,
                              const SummaryFold* fold) {
  JournalRecord record;
  record.first = r.first_replication + from;
  record.count = to - from;
  const std::size_t kept = r.rows_per_point();
  record.rows = from < kept ? std::min<uint64_t>(kept - from, to - from) : 0;
  if (fold) record.summary = fold->serialize();
  const std::size_t rows = record.rows;
  const auto take = [&](const std::vector<double>& all, std::size_t stride,
                        std::vector<double>& out) {
    out.resize(r.points * rows * stride);
    if (out.empty()) return;  // no rows kept (`all` may be empty: no offset into it)
    for (std::size_t p = 0; p < r.points; ++p)
      std::copy_n(all.begin() + (p * kept + from) * stride, rows * stride,
                  out.begin() + p * rows * stride);
  };
  take(r.scalars, kScalarMetricCount, record.scalars);
  take(r.pool_values, r.pool_count() * kPoolMetricCount, record.pool_values);
  take(r.timeseries, r.pool_count() * r.timeseries_bins, record.timeseries);
  return record;
}

/// Seconds until the fold's next state is due in the journal after one of `bytes`: the
/// option's seconds per 8 MiB of state, at least the option's seconds.
double state_interval_s(const RunOptions& options, std::size_t bytes) {
  return options.journal_state_every_seconds *
         std::max(1.0, static_cast<double>(bytes) / static_cast<double>(8 << 20));
}

}  // namespace

RunResults run_points_fixed(const std::vector<Scenario>& points,
                            const std::vector<SweepParameter>& sweep, const Scenario& base,
                            const RunOptions& options) {
  RunResults r = describe_run(points, sweep, base, options);
  const bool streaming = options.keep_rows < r.replications;
  if (options.resume && options.journal_path.empty())
    throw std::invalid_argument("--resume continues a run that writes a file: give its -o");
  const PreparedRun run = prepare_run(points, r, options, streaming);
  const uint64_t chunk = chunk_replications(r, run.on_device, options.chunk_replications);
  // A run that writes a file and takes more than one chunk may keep a journal (run_journal.hpp):
  // from the start with --journal or --resume, else once it is expected to run for longer
  // than options.journal_after_seconds (its first chunks are then written as one record).
  const bool journal_possible =
      !options.journal_path.empty() && (streaming || chunk < r.replications);
  if (options.resume && !journal_possible)
    throw std::invalid_argument(
        "--resume: this run takes one chunk of replications, so it keeps no journal to continue "
        "from; run it without --resume");
  check_memory(run, r, options, streaming || journal_possible ? chunk : 0);

  const auto start = std::chrono::steady_clock::now();
  const auto seconds = [&start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const unsigned summary_threads =
      run.on_device ? 0u : static_cast<unsigned>(resolve_thread_count(options.threads));
  ProgressBar bar(r.points * r.replications, "replications", options.progress);
  if (!streaming && !journal_possible) {
    run_rows(run, options, r, bar);
    bar.finish();
    r.wall_time_s = seconds();
    r.summarize_all(summary_threads);  // on the run's CPU threads (a device run: every core)
    return r;
  }
  // Chunk by chunk: run, summarize, keep the rows asked for, drop the rest; journal each.
  if (streaming) r.kept_rows = static_cast<std::size_t>(options.keep_rows);
  const std::size_t kept = r.rows_per_point();
  r.scalars.assign(r.points * kept * kScalarMetricCount, 0.0);
  r.pool_values.assign(r.points * kept * r.pool_count() * kPoolMetricCount, 0.0);
  r.timeseries.assign(r.points * kept * r.pool_count() * r.timeseries_bins, 0.0);
  SummaryFold fold(r);
  uint64_t done = 0, done_before = 0;  // replications per point done; of them, in the journal
  uint64_t journaled = 0;              // replications per point in the journal's records
  double state_due_s = 0;  // when the fold's next state is due in the journal (run seconds)
  std::unique_ptr<RunJournal> journal;
  const auto identity = [&] { return run_identity(points, r, options); };
  if (options.resume) {
    // Record by record (memory: one record), then the fold from the last state.
    uint64_t replayed = 0;
    journal =
        RunJournal::resume(options.journal_path, identity(), [&](const JournalRecord& record) {
          replay_rows(record, r.first_replication + replayed, r, options.journal_path);
          replayed += record.count;
        });
    done = journal->resumed_replications();
    if (streaming && done > 0) {
      fold = SummaryFold::restore(r, journal->resumed_summary());
      if (fold.replications() != done)
        throw std::runtime_error("cannot resume from '" + text::excerpt(options.journal_path, 300) +
                                 "': its summaries cover " + std::to_string(fold.replications()) +
                                 " replications, its records " + std::to_string(done));
      state_due_s = seconds() + state_interval_s(options, journal->resumed_summary().size());
    }
    bar.advance(r.points * done);
    done_before = journaled = done;
  } else if (journal_possible && options.journal_always) {
    journal = RunJournal::start(options.journal_path, identity());
  }
  run_in_chunks(
      run, options, r, chunk, done, streaming, r.rows_per_point(), bar,
      [&](const RunResults& part, ChunkSummary&& summary) {
        if (streaming) fold.add(summary);
        keep_rows_of(part, r);
        const uint64_t finished = part.first_replication + part.replications - r.first_replication;
        if (!journal && journal_possible && finished < r.replications &&
            seconds() / static_cast<double>(finished - done_before) *
                    static_cast<double>(r.replications - done_before) >
                options.journal_after_seconds) {
          // A long run: journal what ran so far as one record, then its next chunks.
          journal = RunJournal::start(options.journal_path, identity());
          state_due_s = 0;
        }
        if (!journal) return;
        // A run that keeps every row journals each chunk; one that keeps fewer, the rows it
        // keeps and now and then the fold's state (with its last chunk always), and rewrites
        // the journal as one record once the states in it outweigh its rows and the limit.
        const bool with_state =
            streaming && (finished == r.replications || seconds() >= state_due_s);
        if (streaming && !with_state && journaled >= r.rows_per_point()) return;
        const bool restart = with_state && journal->wants_restart(options.journal_compact_bytes);
        JournalRecord record =
            record_of_range(r, restart ? 0 : journaled, finished, with_state ? &fold : nullptr);
        if (with_state) state_due_s = seconds() + state_interval_s(options, record.summary.size());
        if (restart)
          journal->restart(std::move(record));
        else
          journal->append(std::move(record));
        journaled = finished;
      });
  if (journal) journal->finish();  // every record written and synced
  bar.finish();
  if (r.backend.empty()) {  // every chunk was in the journal: nothing ran here
    r.backend = run.backend->label;
    r.backend_choice = run.backend_choice;
    r.device = "none (resumed from the journal: every replication had run)";
  }
  r.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (streaming) {
    fold.finish(r);
    r.evaluate_goals();  // goal_met of the kept rows (the summaries are the fold's)
  } else {
    r.summarize_all(summary_threads);
  }
  return r;
}

ChunkSummary run_chunk_summary(const std::vector<Scenario>& points,
                               const std::vector<SweepParameter>& sweep, const Scenario& base,
                               const RunOptions& options, RunResults* ran) {
  RunResults r = describe_run(points, sweep, base, options);
  const PreparedRun run = prepare_run(points, r, options, true);
  const uint64_t chunk = chunk_replications(r, run.on_device, options.chunk_replications);
  RunOptions no_rows = options;
  no_rows.keep_rows = 0;
  no_rows.writes_file = false;
  check_memory(run, r, no_rows, chunk);
  ProgressBar bar(r.points * r.replications, "replications", options.progress);
  ChunkSummary total;
  bool first = true;
  run_in_chunks(run, options, r, chunk, 0, true, 0, bar,
                [&](const RunResults&, ChunkSummary&& summary) {
                  if (first)
                    total = std::move(summary);
                  else
                    total.append(summary);
                  first = false;
                });
  bar.finish();
  if (ran) *ran = std::move(r);
  return total;
}

RunResults fold_chunk_summaries(const std::vector<Scenario>& points,
                                const std::vector<SweepParameter>& sweep, const Scenario& base,
                                const RunOptions& options,
                                const std::vector<ChunkSummary>& chunks) {
  RunResults r = describe_run(points, sweep, base, options);
  r.kept_rows = 0;
  SummaryFold fold(r);
  for (const ChunkSummary& chunk : chunks) fold.add(chunk);
  if (fold.replications() != r.replications)
    throw std::invalid_argument("the chunk summaries cover " + std::to_string(fold.replications()) +
                                " replications of the " + std::to_string(r.replications) +
                                " asked for");
  fold.finish(r);
  r.evaluate_goals();
  return r;
}

}  // namespace gpucap
