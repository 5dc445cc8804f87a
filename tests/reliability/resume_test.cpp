// Reliability: a run killed with SIGKILL (no handler runs) and continued with --resume, once or
// after being killed again, writes the data an uninterrupted run writes: the same rows,
// summaries and goal counts, bit for bit, keeping every row, some or none, for runs and
// sweeps. A journal cut short is continued from its last whole record; a damaged one, another
// run's, a missing one or a link are refused with what is wrong.
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

#include "support/process.hpp"
#include "support/same_bits.hpp"
#include "support/scratch_dir.hpp"

namespace gpucap {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing_support::ChildProcess;
using testing_support::ProcessOutcome;
using testing_support::same_bits;

const std::string kTraining = std::string(GPUCAP_SOURCE_DIR) + "/scenarios/spot_training.yaml";

class Resume : public testing_support::ScratchDirTest {
 protected:
  /// The command for output `name`, with `extra` arguments (rows, grid), in chunks of 256.
  std::vector<std::string> command(const std::string& verb, const std::string& name,
                                   const std::vector<std::string>& extra) const {
    std::vector<std::string> argv = {GPUCAP_BINARY, verb,      kTraining, "-r",
                                     "12000",       "--chunk", "256",     "-q",
                                     "--threads",   "2",       "-o",      (dir_ / name).string(),
                                     "--journal"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
  }
  std::string journal(const std::string& name) const {
    return (dir_ / (name + ".resume")).string();
  }

  /// Starts `argv` (writing `output`), waits until its journal holds at least `bytes` bytes,
  /// then kills it with SIGKILL. False when the run ended first (it was too quick to stop).
  bool kill_midway(const std::vector<std::string>& argv, const fs::path& output, uintmax_t bytes) {
    const std::string journal_path = output.string() + ".resume";
    ChildProcess child(argv);
    const auto limit = std::chrono::steady_clock::now() + 120s;
    std::error_code ec;
    while (!(fs::exists(journal_path, ec) && fs::file_size(journal_path, ec) >= bytes) &&
           !fs::exists(output, ec) && std::chrono::steady_clock::now() < limit)
      std::this_thread::sleep_for(1ms);
    child.signal(SIGKILL);
    const ProcessOutcome o = child.wait(60s);
    return o.term_signal == SIGKILL;
  }
};

/// The data of two results files: rows, summaries and goal counts, bit for bit.
void expect_same_data(const std::string& a_path, const std::string& b_path) {
  const RunResults a = read_results_hdf5(a_path), b = read_results_hdf5(b_path);
  EXPECT_EQ(a.replications, b.replications);
  EXPECT_EQ(a.rows_per_point(), b.rows_per_point());
  EXPECT_TRUE(same_bits(a.scalars, b.scalars));
  EXPECT_TRUE(same_bits(a.pool_values, b.pool_values));
  EXPECT_EQ(a.goal_met, b.goal_met);
  EXPECT_TRUE(same_bits(a.summary, b.summary));
  EXPECT_TRUE(same_bits(a.pool_summary, b.pool_summary));
  ASSERT_EQ(a.difference_summary.size(), b.difference_summary.size());
  for (std::size_t i = 0; i < a.difference_summary.size(); ++i)
    EXPECT_TRUE(same_bits(a.difference_summary[i].mean, b.difference_summary[i].mean));
  ASSERT_EQ(a.goal_summary.size(), b.goal_summary.size());
  for (std::size_t i = 0; i < a.goal_summary.size(); ++i)
    EXPECT_EQ(a.goal_summary[i].met, b.goal_summary[i].met);
}

TEST_F(Resume, AKilledRunResumedWritesTheUninterruptedData) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> runs = {
      {"run", {"--set", "goals.cheap.require=[cost <= 14000]"}},
      {"run", {"--rows", "none"}},
      {"sweep", {"-g", "pools.aws-h100-spot.quota=16,32", "--rows", "first 300"}},
  };
  int interrupted = 0;
  for (const auto& [verb, extra] : runs) {
    SCOPED_TRACE(verb + " " + extra.back());
    const ProcessOutcome reference = ChildProcess(command(verb, "ref.h5", extra)).wait();
    ASSERT_EQ(reference.exit_code, 0) << reference.output;
    EXPECT_FALSE(fs::exists(journal("ref.h5")));  // removed once the results were written

    // Killed after about a tenth, resumed and killed again after about half, resumed to the end.
    const auto argv = command(verb, "cut.h5", extra);
    auto resumed = argv;
    resumed.push_back("--resume");
    // Killed after its first records, resumed and killed again some records later, resumed to
    // the end (a run too quick to be stopped is skipped: it could not be interrupted).
    if (!kill_midway(argv, dir_ / "cut.h5", 64 << 10)) continue;
    ++interrupted;
    ASSERT_TRUE(fs::exists(journal("cut.h5")));
    EXPECT_FALSE(fs::exists(dir_ / "cut.h5"));
    if (kill_midway(resumed, dir_ / "cut.h5", fs::file_size(journal("cut.h5")) + (200 << 10))) {
      const ProcessOutcome done = ChildProcess(resumed).wait();
      ASSERT_EQ(done.exit_code, 0) << done.output;
    }
    EXPECT_FALSE(fs::exists(journal("cut.h5")));
    expect_same_data((dir_ / "ref.h5").string(), (dir_ / "cut.h5").string());
    fs::remove(dir_ / "cut.h5");
    fs::remove(dir_ / "ref.h5");
  }
  EXPECT_EQ(interrupted, 3) << "some runs ended before they could be killed";
}

TEST_F(Resume, AJournalStartedLateHoldsTheChunksBeforeItAsOneRecord) {
  // Without --journal, a run keeps one once it is expected to run long: here at once (0 s), so
  // that its first record holds the first chunk, written from the kept rows and the fold.
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--rows", "first 700"}, std::vector<std::string>{}}) {
    auto reference = command("run", "ref.h5", extra);
    ASSERT_EQ(ChildProcess(reference).wait().exit_code, 0);
    auto argv = command("run", "cut.h5", extra);
    argv.erase(std::find(argv.begin(), argv.end(), "--journal"));
    const std::vector<std::string> now = {"GPUCAP_JOURNAL_AFTER_SECONDS=0"};
    {
      ChildProcess child(argv, now);
      const auto limit = std::chrono::steady_clock::now() + 120s;
      std::error_code ec;
      while (
          !(fs::exists(journal("cut.h5"), ec) && fs::file_size(journal("cut.h5"), ec) > 300000) &&
          !fs::exists(dir_ / "cut.h5", ec) && std::chrono::steady_clock::now() < limit)
        std::this_thread::sleep_for(1ms);
      child.signal(SIGKILL);
      if (child.wait(60s).term_signal != SIGKILL) continue;  // too quick to stop
    }
    argv.push_back("--resume");
    const ProcessOutcome done = ChildProcess(argv, now).wait();
    ASSERT_EQ(done.exit_code, 0) << done.output;
    expect_same_data((dir_ / "ref.h5").string(), (dir_ / "cut.h5").string());
    fs::remove(dir_ / "ref.h5");
    fs::remove(dir_ / "cut.h5");
  }
  // A short run (expected under a minute) keeps none.
  auto quick = command("run", "quick.h5", {});
  quick.erase(std::find(quick.begin(), quick.end(), "--journal"));
  ChildProcess child(quick);
  bool journal_seen = false;
  while (!fs::exists(dir_ / "quick.h5")) {
    journal_seen = journal_seen || fs::exists(journal("quick.h5"));
    if (::waitpid(child.pid(), nullptr, WNOHANG) != 0) break;
  }
  EXPECT_FALSE(journal_seen);
}

TEST_F(Resume, AJournalCutShortContinuesFromItsLastWholeRecord) {
  const std::vector<std::string> extra = {"--rows", "first 100"};
  ASSERT_EQ(ChildProcess(command("run", "ref.h5", extra)).wait().exit_code, 0);
  const auto argv = command("run", "cut.h5", extra);
  ASSERT_TRUE(kill_midway(argv, dir_ / "cut.h5", 200000));
  // A torn tail: the last record loses its last bytes, and garbage follows.
  const uintmax_t size = fs::file_size(journal("cut.h5"));
  fs::resize_file(journal("cut.h5"), size - 13);
  std::ofstream(journal("cut.h5"), std::ios::app) << "half a record";
  auto resumed = argv;
  resumed.push_back("--resume");
  const ProcessOutcome done = ChildProcess(resumed).wait();
  ASSERT_EQ(done.exit_code, 0) << done.output;
  expect_same_data((dir_ / "ref.h5").string(), (dir_ / "cut.h5").string());
}

TEST_F(Resume, WhatCannotBeContinuedIsRefusedWithTheReason) {
  const auto argv = command("run", "cut.h5", {"--rows", "none"});
  auto resumed = argv;
  resumed.push_back("--resume");
  // No journal: nothing to continue.
  ProcessOutcome o = ChildProcess(resumed).wait();
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_NE(o.output.find("there is no journal"), std::string::npos) << o.output;
  // Another run's journal: the field that differs is named, and it is left for its own run.
  ASSERT_TRUE(kill_midway(argv, dir_ / "cut.h5", 400000));  // three records or more
  auto other = resumed;
  other[4] = "13000";  // -r
  o = ChildProcess(other).wait();
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_NE(o.output.find("its replications is 12000, this run's is 13000"), std::string::npos)
      << o.output;
  EXPECT_TRUE(fs::exists(journal("cut.h5")));
  // A damaged record before the last: refused, nothing written. The byte flipped is in the
  // first record's data: past the magic (21 bytes), the header (its length, text and
  // checksum) and the record's 64 bytes of counts and lengths.
  {
    std::fstream f(journal("cut.h5"), std::ios::in | std::ios::out | std::ios::binary);
    uint64_t header = 0;
    f.seekg(21);
    f.read(reinterpret_cast<char*>(&header), 8);
    const std::streamoff data = 21 + 8 + static_cast<std::streamoff>(header) + 8 + 64 + 100;
    f.seekg(data);
    const char was = static_cast<char>(f.get());
    f.seekp(data);
    f.put(static_cast<char>(was ^ 0x5a));
  }
  o = ChildProcess(resumed).wait();
  EXPECT_EQ(o.exit_code, 1) << o.output;
  EXPECT_NE(o.output.find("is damaged"), std::string::npos) << o.output;
  EXPECT_FALSE(fs::exists(dir_ / "cut.h5"));
  // A link where the journal goes: never followed, its target untouched.
  fs::remove(journal("cut.h5"));
  std::ofstream(dir_ / "precious") << "keep me";
  fs::create_symlink(dir_ / "precious", journal("cut.h5"));
  o = ChildProcess(argv).wait();
  EXPECT_EQ(o.exit_code, 1) << o.output;
  EXPECT_NE(o.output.find("a link or special file has that name"), std::string::npos) << o.output;
  o = ChildProcess(resumed).wait();
  EXPECT_EQ(o.exit_code, 1) << o.output;
  EXPECT_EQ(testing_support::read_all(dir_ / "precious"), "keep me");
  // --resume without -o is a usage error.
  o = ChildProcess({GPUCAP_BINARY, "run", kTraining, "--resume"}).wait();
  EXPECT_EQ(o.exit_code, 2) << o.output;
}

}  // namespace
}  // namespace gpucap
