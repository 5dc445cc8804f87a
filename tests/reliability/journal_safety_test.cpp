// Reliability: the run journal (run_journal.hpp) under hostile conditions. One run at a time
// writes an output: a second with the same -o is refused and told the first's process id, and
// a lock left by a killed run is taken over and said. The journal's size does not grow with
// the replications of a run that keeps fewer rows (it keeps its last fold state), and --resume
// reads it one record at a time, from the last record with a state, to the same bits. An
// output name at the file system's limit keeps a journal whose name fits and resumes.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <vector>

#include "gpucap/hdf5_results.hpp"
#include "gpucap/run.hpp"
#include "gpucap/run_journal.hpp"
#include "gpucap/scenario_loader.hpp"

#include "support/process.hpp"
#include "support/same_bits.hpp"
#include "support/scratch_dir.hpp"

namespace gpucap {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing_support::ChildProcess;
using testing_support::ProcessOutcome;
using testing_support::read_all;
using testing_support::same_bits;

const std::string kTraining = std::string(GPUCAP_SOURCE_DIR) + "/scenarios/spot_training.yaml";

/// A journal's records as the layout in run_journal.hpp gives them: where each starts, its
/// first replication, count, kept rows and fold-state bytes.
struct RecordAt {
  uint64_t offset, first, count, rows, state_bytes;
};

std::vector<RecordAt> records_of(const fs::path& journal) {
  const std::string bytes = read_all(journal);
  const auto word = [&](std::size_t at) {
    uint64_t w = 0;
    std::memcpy(&w, bytes.data() + at, 8);
    return w;
  };
  std::vector<RecordAt> records;
  if (bytes.size() < 29) return records;
  std::size_t at = 21 + 8 + word(21) + 8;  // magic, header length, header, checksum
  while (at + 64 <= bytes.size()) {
    const uint64_t size =
        64 + word(at + 32) + 8 * (word(at + 40) + word(at + 48) + word(at + 56)) + 8;
    if (at + size > bytes.size()) break;
    records.push_back({at, word(at + 8), word(at + 16), word(at + 24), word(at + 32)});
    at += size;
  }
  return records;
}

/// Rows, summaries and goal counts of two results, bit for bit.
void expect_same_data(const RunResults& a, const RunResults& b) {
  EXPECT_EQ(a.replications, b.replications);
  EXPECT_EQ(a.rows_per_point(), b.rows_per_point());
  EXPECT_TRUE(same_bits(a.scalars, b.scalars));
  EXPECT_TRUE(same_bits(a.pool_values, b.pool_values));
  EXPECT_EQ(a.goal_met, b.goal_met);
  EXPECT_TRUE(same_bits(a.summary, b.summary));
  EXPECT_TRUE(same_bits(a.pool_summary, b.pool_summary));
  ASSERT_EQ(a.goal_summary.size(), b.goal_summary.size());
  for (std::size_t i = 0; i < a.goal_summary.size(); ++i)
    EXPECT_EQ(a.goal_summary[i].met, b.goal_summary[i].met);
}

class JournalSafety : public testing_support::ScratchDirTest {
 protected:
  /// A run of spot_training in chunks of 256, keeping `rows` rows (kKeepAllRows: every one).
  RunOptions options(uint64_t replications, uint64_t rows) const {
    RunOptions o;
    o.replications = replications;
    o.threads = 2;
    o.keep_rows = rows;
    o.chunk_replications = 256;
    return o;
  }
  /// The same with a journal from the first chunk at `journal`.
  RunOptions journaled(uint64_t replications, uint64_t rows, const fs::path& journal) const {
    RunOptions o = options(replications, rows);
    o.journal_path = journal.string();
    o.journal_always = true;
    return o;
  }

  /// The CLI's command for output `output`, in chunks of 256.
  std::vector<std::string> command(const std::string& replications, const fs::path& output,
                                   const std::vector<std::string>& extra) const {
    std::vector<std::string> argv = {GPUCAP_BINARY, "run",     kTraining, "-r",
                                     replications,  "--chunk", "256",     "-q",
                                     "--threads",   "2",       "-o",      output.string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
  }

  /// Whether the child ended (it is left to be reaped by its wait()).
  static bool ended(const ChildProcess& child) {
    siginfo_t info{};
    return ::waitid(P_PID, static_cast<id_t>(child.pid()), &info, WEXITED | WNOHANG | WNOWAIT) ==
               0 &&
           info.si_pid != 0;
  }

  /// Waits until `path` holds at least `bytes` bytes or the child ended; false when it ended.
  static bool wait_for_size(const ChildProcess& child, const fs::path& path, uintmax_t bytes) {
    const auto limit = std::chrono::steady_clock::now() + 120s;
    std::error_code ec;
    while (!(fs::exists(path, ec) && fs::file_size(path, ec) >= bytes) &&
           std::chrono::steady_clock::now() < limit) {
      if (ended(child)) return false;
      std::this_thread::sleep_for(1ms);
    }
    return true;
  }
};

// --- One run at a time per output (issue 26, row 7) ---

TEST_F(JournalSafety, ALockedOutputRefusesASecondLockNamingItsHolder) {
  const std::string output = (dir_ / "out.h5").string();
  auto first = OutputLock::acquire(output);
  EXPECT_EQ(first->path(), output + ".lock");
  EXPECT_EQ(first->note(), "");
  EXPECT_EQ(read_all(first->path())
                .rfind("gpucap process " + std::to_string(::getpid()) + " on host ", 0),
            0u);
  try {
    OutputLock::acquire(output);
    ADD_FAILURE() << "a second lock of the same output was taken";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("is being written by another gpucap run (process " +
                           std::to_string(::getpid()) + " on host "),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("wait until it ends, or give another output name"), std::string::npos);
  }
  first.reset();  // released and removed
  EXPECT_FALSE(fs::exists(output + ".lock"));
  EXPECT_EQ(OutputLock::acquire(output)->note(), "");
}

TEST_F(JournalSafety, ALockLeftByARunThatEndedIsTakenOverAndSaid) {
  const std::string output = (dir_ / "out.h5").string();
  // A killed run's lock file: its text stays, its flock went with its process.
  std::ofstream(output + ".lock") << "gpucap process 999999 on host elsewhere\n";
  {
    auto lock = OutputLock::acquire(output);
    EXPECT_EQ(lock->note(), "took over the lock '" + output +
                                ".lock' of process 999999 on host elsewhere, which ended without "
                                "removing it");
  }
  EXPECT_FALSE(fs::exists(output + ".lock"));
  // What is not a gpucap lock is neither taken nor followed.
  std::ofstream(dir_ / "precious") << "keep me";
  fs::create_symlink(dir_ / "precious", output + ".lock");
  try {
    OutputLock::acquire(output);
    ADD_FAILURE() << "a link was taken as the lock";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(".lock' is a symbolic link; remove it"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read_all(dir_ / "precious"), "keep me");
  fs::remove(output + ".lock");
  std::ofstream(output + ".lock") << "my notes";
  try {
    OutputLock::acquire(output);
    ADD_FAILURE() << "a file of someone else's was taken as the lock";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("holds something other than a gpucap lock"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read_all(output + ".lock"), "my notes");
}

TEST_F(JournalSafety, ASecondRunWithTheSameOutputIsRefusedAndTheFirstResumes) {
  const fs::path output = dir_ / "out.h5";
  const fs::path journal = dir_ / "out.h5.resume", lock = dir_ / "out.h5.lock";
  // The first: long enough to be running while the others start.
  ChildProcess first(command("1000000", output, {"--rows", "none", "--journal"}));
  ASSERT_TRUE(wait_for_size(first, journal, 1000)) << "the first run ended early";
  const std::string holder = "is being written by another gpucap run (process " +
                             std::to_string(first.pid()) + " on host ";
  for (const std::vector<std::string>& second :
       {command("2000", output, {}), command("1000000", output, {"--rows", "none", "--resume"}),
        std::vector<std::string>{GPUCAP_BINARY, "sweep", kTraining, "-r", "512", "-q", "-g",
                                 "pools.aws-h100-spot.quota=16,32", "-o", output.string()}}) {
    const ProcessOutcome o = ChildProcess(second).wait();
    EXPECT_EQ(o.exit_code, 1) << o.output;
    EXPECT_NE(o.output.find(holder), std::string::npos) << o.output;
  }
  // The first run's journal and lock are untouched; killed, it leaves both.
  EXPECT_TRUE(fs::exists(journal));
  first.signal(SIGKILL);
  first.wait();
  ASSERT_TRUE(fs::exists(lock));
  // The next run takes the lock over and says so; its results written, it removes the journal
  // it replaced and its lock.
  const ProcessOutcome next = ChildProcess(command("2000", output, {})).wait();
  EXPECT_EQ(next.exit_code, 0) << next.output;
  EXPECT_NE(next.output.find("gpucap: note: took over the lock '" + lock.string() +
                             "' of process " + std::to_string(first.pid()) + " on host "),
            std::string::npos)
      << next.output;
  EXPECT_TRUE(fs::exists(output));
  EXPECT_FALSE(fs::exists(journal));
  EXPECT_FALSE(fs::exists(lock));
}

// --- Bounded journal, bounded resume (row 8) ---

TEST_F(JournalSafety, AJournalRewrittenAtEveryStateHoldsOneRecordAndResumesToTheSameBits) {
  const Scenario scenario = load_scenario(kTraining);
  for (const uint64_t rows : {uint64_t{0}, uint64_t{300}}) {
    SCOPED_TRACE("rows " + std::to_string(rows));
    const fs::path journal = dir_ / ("r" + std::to_string(rows) + ".resume");
    const RunResults reference = run(scenario, options(4096, rows));
    RunOptions o = journaled(4096, rows, journal);
    o.journal_state_every_seconds = 0;  // a state with every chunk (16)...
    o.journal_compact_bytes = 0;        // ...each one rewriting the journal
    run(scenario, o);
    // Before: 16 records, each with a state of about 0.76 MB.
    const std::vector<RecordAt> records = records_of(journal);
    ASSERT_EQ(records.size(), 1u);
    EXPECT_EQ(records[0].first, 0u);
    EXPECT_EQ(records[0].count, 4096u);
    EXPECT_EQ(records[0].rows, rows);
    EXPECT_GT(records[0].state_bytes, 0u);
    EXPECT_FALSE(fs::exists(journal.string() + ".new"));
    EXPECT_EQ(RunJournal::replications_in(journal.string()), 4096u);
    o.resume = true;
    const RunResults resumed = run(scenario, o);
    EXPECT_EQ(resumed.device, "none (resumed from the journal: every replication had run)");
    expect_same_data(reference, resumed);
  }
}

TEST_F(JournalSafety, ResumeContinuesFromTheLastStateAndRunsTheRowsAfterItAgain) {
  const Scenario scenario = load_scenario(kTraining);
  const fs::path journal = dir_ / "r.resume";
  const RunResults reference = run(scenario, options(4096, 2000));
  RunOptions o = journaled(4096, 2000, journal);
  o.journal_state_every_seconds = 1e9;  // states only with the first chunk and the last
  run(scenario, o);
  // The first chunk with its state, the next seven with rows alone (to replication 2000), none
  // for the chunks that keep no rows, and the last with a state.
  const std::vector<RecordAt> records = records_of(journal);
  ASSERT_EQ(records.size(), 9u);
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(records[i].first, 256 * i);
    EXPECT_EQ(records[i].count, 256u);
    EXPECT_EQ(records[i].rows, i < 7 ? 256u : 2000u - 7 * 256);
    EXPECT_EQ(records[i].state_bytes > 0, i == 0) << i;
  }
  EXPECT_EQ(records[8].first, 2048u);
  EXPECT_EQ(records[8].count, 2048u);
  EXPECT_EQ(records[8].rows, 0u);
  EXPECT_GT(records[8].state_bytes, 0u);
  EXPECT_EQ(RunJournal::replications_in(journal.string()), 4096u);
  // The last record torn by a kill: the run continues from the first record's state; the rows
  // of records 1 to 7, replayed, are run again.
  fs::resize_file(journal, records[8].offset + 100);
  EXPECT_EQ(RunJournal::replications_in(journal.string()), 256u);
  o.resume = true;
  expect_same_data(reference, run(scenario, o));
  EXPECT_EQ(RunJournal::replications_in(journal.string()), 4096u);
}

TEST_F(JournalSafety, AKilledRunThatRewritesItsJournalResumesToTheSameBits) {
  const fs::path ref = dir_ / "ref.h5", cut = dir_ / "cut.h5";
  const fs::path journal = dir_ / "cut.h5.resume";
  const std::vector<std::string> extra = {"--rows", "first 300", "--journal"};
  ASSERT_EQ(ChildProcess(command("12000", ref, extra)).wait().exit_code, 0);
  // A state with every chunk and a rewrite with each: killed at any moment, the journal is one
  // whole record or two (before: 47 records of about 0.76 MB each).
  const std::vector<std::string> env = {"GPUCAP_JOURNAL_STATE_SECONDS=0",
                                        "GPUCAP_JOURNAL_COMPACT_BYTES=0"};
  ChildProcess child(command("12000", cut, extra), env);
  std::size_t most_records = 0;
  uint64_t covered = 0;
  const auto limit = std::chrono::steady_clock::now() + 120s;
  while (covered < 4000 && !ended(child) && std::chrono::steady_clock::now() < limit) {
    const std::vector<RecordAt> records = records_of(journal);
    most_records = std::max(most_records, records.size());
    if (!records.empty()) covered = records.back().first + records.back().count;
    std::this_thread::sleep_for(1ms);
  }
  child.signal(SIGKILL);
  if (child.wait(60s).term_signal != SIGKILL) GTEST_SKIP() << "the run ended before the kill";
  EXPECT_LE(most_records, 2u);
  EXPECT_LE(records_of(journal).size(), 2u);
  EXPECT_GE(RunJournal::replications_in(journal.string()), 256u);
  auto resumed = command("12000", cut, extra);
  resumed.push_back("--resume");
  const ProcessOutcome done = ChildProcess(resumed, env).wait();
  ASSERT_EQ(done.exit_code, 0) << done.output;
  EXPECT_FALSE(fs::exists(journal));
  EXPECT_FALSE(fs::exists(journal.string() + ".new"));
  const RunResults a = read_results_hdf5(ref.string()), b = read_results_hdf5(cut.string());
  expect_same_data(a, b);
}

// --- Names at the limit (row 9) ---

TEST(OutputSidecar, ANameThatWouldNotFitIsCutWithItsDigest) {
  // 252 bytes: with ".resume" 259, over the 255 a folder allows.
  const std::string name = std::string(249, 'n') + ".h5";
  const std::string journal = output_sidecar_path("/tmp/" + name, ".resume");
  ASSERT_EQ(journal.rfind("/tmp/", 0), 0u);
  const std::string fitted = journal.substr(5);
  EXPECT_EQ(fitted.size(), 255u);
  EXPECT_EQ(fitted.substr(0, 231), name.substr(0, 231));
  EXPECT_EQ(fitted[231], '~');
  EXPECT_EQ(fitted.substr(248), ".resume");
  // The same output, the same name; another output, another digest.
  EXPECT_EQ(output_sidecar_path("/tmp/" + name, ".resume"), journal);
  EXPECT_NE(output_sidecar_path("/tmp/" + name + "x", ".resume").substr(236, 12),
            fitted.substr(231, 12));
  // Cut at a character's start: 231 bytes of two-byte characters keep 230.
  std::string wide;
  while (wide.size() < 250) wide += "\xc3\xa9";  // é
  const std::string cut = output_sidecar_path(wide, ".resume");
  EXPECT_EQ(cut.size(), 254u);
  EXPECT_EQ(cut.substr(0, 230), wide.substr(0, 230));
  EXPECT_EQ(cut[230], '~');
  // Names that fit keep the plain suffix, folder and all.
  EXPECT_EQ(output_sidecar_path("a/b c\n.h5", ".lock"), "a/b c\n.h5.lock");
  EXPECT_EQ(RunJournal::path_for("out.h5"), "out.h5.resume");
}

TEST_F(JournalSafety, AnOutputNameAtTheLimitKeepsAJournalThatResumes) {
  // 252 bytes with a line break, quotes and two-byte characters where the name is cut (at
  // byte 231, inside one: the journal's name keeps 230).
  std::string name = "odd\n'name'";
  for (int i = 0; i < 119; ++i) name += "\xc3\xa9";
  name += "n.h5";
  ASSERT_EQ(name.size(), 252u);
  const fs::path ref = dir_ / "ref.h5", cut = dir_ / name;
  const std::vector<std::string> extra = {"--rows", "none", "--journal"};
  // Before: exit 1 after the first chunk, "cannot create the run's journal".
  ASSERT_EQ(ChildProcess(command("12000", ref, extra)).wait().exit_code, 0);
  const fs::path journal = output_sidecar_path(cut.string(), ".resume");
  EXPECT_EQ(journal.filename().string().size(), 254u);
  EXPECT_EQ(journal.filename().string().substr(0, 230), name.substr(0, 230));
  const std::vector<std::string> env = {"GPUCAP_JOURNAL_STATE_SECONDS=0"};
  {
    ChildProcess child(command("12000", cut, extra), env);
    const bool killed = wait_for_size(child, journal, 2000000);
    child.signal(SIGKILL);
    child.wait(60s);
    if (!killed) GTEST_SKIP() << "the run ended before the kill";
  }
  auto resumed = command("12000", cut, extra);
  resumed.push_back("--resume");
  const ProcessOutcome done = ChildProcess(resumed, env).wait();
  ASSERT_EQ(done.exit_code, 0) << done.output;
  EXPECT_NE(done.output.find("gpucap: note: took over the lock"), std::string::npos) << done.output;
  EXPECT_FALSE(fs::exists(journal));
  EXPECT_FALSE(fs::exists(OutputLock::path_for(cut.string())));
  expect_same_data(read_results_hdf5(ref.string()), read_results_hdf5(cut.string()));
}

TEST_F(JournalSafety, ARewriteLeftByAKilledRunIsReplacedAndALinkThereRefused) {
  const Scenario scenario = load_scenario(kTraining);
  const fs::path journal = dir_ / "r.resume", rewrite = dir_ / "r.resume.new";
  std::ofstream(rewrite) << "half a rewrite";
  RunOptions o = journaled(1024, 0, journal);
  o.journal_state_every_seconds = 0;
  o.journal_compact_bytes = 0;
  run(scenario, o);
  EXPECT_FALSE(fs::exists(rewrite));
  EXPECT_EQ(records_of(journal).size(), 1u);
  RunJournal::remove(journal.string());
  EXPECT_FALSE(fs::exists(journal));
  std::ofstream(dir_ / "precious") << "keep me";
  fs::create_symlink(dir_ / "precious", rewrite);
  try {
    run(scenario, o);
    ADD_FAILURE() << "a link at the rewrite's name was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("r.resume.new': a link or special file has that name"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read_all(dir_ / "precious"), "keep me");
}

}  // namespace
}  // namespace gpucap
