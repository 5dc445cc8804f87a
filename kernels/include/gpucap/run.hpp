// gpucap: running replications of a scenario on a backend.
//
//   gpucap::RunOptions options;
//   options.replications = 10000;
//   gpucap::RunResults results = gpucap::run(scenario, options);
//
// Replication r of a run uses Philox streams keyed by (seed, r, stream), so the results depend
// on the scenario and the seed alone: not on the thread count, batch size or backend.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gpucap/backend.hpp"
#include "gpucap/results.hpp"
#include "gpucap/scenario.hpp"
#include "gpucap/streaming_summary.hpp"

namespace gpucap {

/// A run with a journal path starts its journal once it is expected to take longer than this:
/// a shorter run loses little when it is stopped, and the journal costs about a tenth of the
/// run on a 2-core machine when every row is kept.
inline constexpr double kJournalAfterSeconds = 60;
/// RunOptions::journal_state_every_seconds and journal_compact_bytes by default.
inline constexpr double kJournalStateEverySeconds = 1;
inline constexpr uint64_t kJournalCompactBytes = uint64_t{16} << 20;

struct RunOptions {
  uint64_t replications = 0;  ///< 0: the scenario's `replications`
  uint64_t seed = 0;          ///< used when has_seed; otherwise the scenario's seed
  bool has_seed = false;
  BackendChoice backend = BackendChoice::automatic;
  int threads = 0;                 ///< CPU backend: 0 = all cores (OMP_NUM_THREADS or the hardware)
  bool progress = false;           ///< draw a progress bar on stderr
  DeviceLimits device_limits;      ///< device backends: memory, batch and worker caps (0 = theirs)
  uint64_t first_replication = 0;  ///< run replications [first, first + replications): a chunk
  RunMonitor* monitor = nullptr;   ///< progress count and cancellation from another thread
  /// Simulate the first replications again with a coarse time series when the scenario records
  /// none (settling_probe.hpp), for the start-up transient warning; off for the many small
  /// batches of a selection.
  bool settling_probe = true;
  /// The caller will write the results to a file: the memory check counts the file's image.
  bool writes_file = false;
  /// Rows to keep per point (`--rows`): every one (kKeepAllRows), or those of the first
  /// keep_rows replications (0: none). With fewer than the replications, they run in chunks
  /// whose rows are summarized (streaming_summary.hpp) and dropped: memory does not grow with
  /// replications, means and intervals are the same bits, percentiles within 0.1%.
  uint64_t keep_rows = kKeepAllRows;
  static constexpr uint64_t kKeepAllRows = UINT64_MAX;
  /// Replications per chunk of a run that keeps fewer rows: a multiple of kMomentBlock, or 0
  /// for about 32 MiB of rows (256 MiB on a device). Any value gives the same results.
  uint64_t chunk_replications = 0;
  /// The run's journal (run_journal.hpp; the CLI gives "<output>.resume" with -o): a run of
  /// more than one chunk expected to take longer than kJournalAfterSeconds (or any, with
  /// journal_always) appends its finished chunks to it. Empty: no journal.
  std::string journal_path;
  /// Keep the journal from the first chunk (--journal), however short the run.
  bool journal_always = false;
  /// Seconds a run must be expected to take for its journal to start (the CLI reads
  /// GPUCAP_JOURNAL_AFTER_SECONDS; tests set 0).
  double journal_after_seconds = kJournalAfterSeconds;
  /// Continue the run from journal_path's records (--resume) instead of starting over.
  bool resume = false;
  /// A run that keeps fewer rows puts its summaries' fold state in the journal at most every
  /// this many seconds per 8 MiB of state (and with its last chunk); between two, a kill loses
  /// the chunks since the last (the CLI reads GPUCAP_JOURNAL_STATE_SECONDS; tests set 0: every
  /// chunk).
  double journal_state_every_seconds = kJournalStateEverySeconds;
  /// The journal is rewritten as one record once the fold states it holds reach this many bytes
  /// (or the bytes of its rows, when more): its size stays bounded however long the run (the
  /// CLI reads GPUCAP_JOURNAL_COMPACT_BYTES; tests set 0: at every state).
  uint64_t journal_compact_bytes = kJournalCompactBytes;
  /// Stopping rule (stopping_rule.hpp): with precision > 0, replications are added in whole
  /// blocks until the 95% interval of the mean of every metric of precision_metrics (default:
  /// cost), at every point, has a half-width at most precision x |mean|, or max_replications
  /// (0: kDefaultMaxReplications) is reached. `replications` is then the first batch.
  double precision = 0;
  std::vector<ScalarMetric> precision_metrics;
  uint64_t max_replications = 0;
};

/// Compiles and runs `scenario` on the chosen backend, then summarizes the replications.
/// Throws std::invalid_argument, before anything is allocated, for options out of range
/// (replications above kMaxReplications, threads above kMaxThreads, first_replication +
/// replications, or + max_replications with a precision, above 2^64) and for a run whose memory
/// estimate (memory_estimate.hpp) exceeds what this process can use; BackendUnavailable when
/// the backend cannot run here, RunCancelled when the monitor cancelled it, RunError when a
/// run fails.
RunResults run(const Scenario& scenario, const RunOptions& options);

/// The results of run_points before anything ran: version, scenario, seed, points, sweep, pool
/// names and replication range, with empty arrays (chunks run elsewhere are merged into it).
RunResults describe_run(const std::vector<Scenario>& points,
                        const std::vector<SweepParameter>& sweep, const Scenario& base,
                        const RunOptions& options);

/// Runs several variants of one scenario (sweep points) in one task on one backend. Replication
/// r of every point draws the same random numbers (common random numbers), so differences
/// between points are paired. All points must have the same pools (names, in order); seed and
/// replications default to the first point's. `sweep` gives each varied parameter's value at
/// every point (empty for a single point). `base` is the scenario the points vary (before the
/// sweep's own overrides): its text, original text and overrides are stored in the results.
RunResults run_points(const std::vector<Scenario>& points, const std::vector<SweepParameter>& sweep,
                      const Scenario& base, const RunOptions& options);

/// run_points for a fixed number of replications (options.precision is ignored): what the
/// stopping rule runs for each batch.
RunResults run_points_fixed(const std::vector<Scenario>& points,
                            const std::vector<SweepParameter>& sweep, const Scenario& base,
                            const RunOptions& options);

/// Replications [options.first_replication, + replications) of the points, run in chunks of
/// bounded memory and reduced to one ChunkSummary, no rows kept: what a cluster's worker sends
/// back for a sweep that keeps no rows. first_replication must be a multiple of kMomentBlock.
/// `ran`, when not null, receives the run's description (backend, device, threads; no rows).
ChunkSummary run_chunk_summary(const std::vector<Scenario>& points,
                               const std::vector<SweepParameter>& sweep, const Scenario& base,
                               const RunOptions& options, RunResults* ran = nullptr);

/// The results of `chunks` (run_chunk_summary's, covering options' replications in order)
/// folded as one run would fold them: describe_run's results with every summary and no rows
/// (the same bits as a local run with rows none). Throws std::invalid_argument when they do
/// not cover the replications in order or are of another run.
RunResults fold_chunk_summaries(const std::vector<Scenario>& points,
                                const std::vector<SweepParameter>& sweep, const Scenario& base,
                                const RunOptions& options, const std::vector<ChunkSummary>& chunks);

}  // namespace gpucap
