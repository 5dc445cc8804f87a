// Reliability: an output (-o, Results.save) can neither be hijacked nor replace what it must not,
// and is never left half written: planted links, special files, the run's own inputs, stale
// temporary files, a full file system and a file size limit.
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "gpucap/hdf5_results.hpp"
#include "gpucap/output_file.hpp"

#include "support/process.hpp"
#include "support/scratch_dir.hpp"

namespace gpucap {
namespace {

namespace fs = std::filesystem;
using testing_support::ProcessOutcome;
using testing_support::run_gpucap;

const std::string kScenarios = std::string(GPUCAP_SOURCE_DIR) + "/scenarios/";

using testing_support::read_all;

class OutputSafety : public testing_support::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    fs::create_directories(dir_ / "out");
    outside_ = dir_ / "precious.txt";
    std::ofstream(outside_) << "must never change\n";
  }
  /// Names in the output folder (everything, hidden files included).
  std::set<std::string> out_entries() const {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_ / "out")) names.insert(e.path().filename());
    return names;
  }
  ProcessOutcome run_to(const fs::path& output, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"run",          kScenarios + "mmc_validation.yaml",
                                  "-r",           "4",
                                  "-q",           "--set",
                                  "horizon=50h",  "--set",
                                  "warmup=0s",    "-o",
                                  output.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_gpucap(args);
  }
  void expect_outside_untouched() const {
    EXPECT_EQ(read_all(outside_), "must never change\n");
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(outside_)));
  }

  fs::path outside_;
};

TEST_F(OutputSafety, TemporaryNamesAreUnpredictableAndShort) {
  std::set<std::string> names;
  for (int i = 0; i < 1000; ++i) {
    const std::string name = detail::temporary_name("results.h5");
    EXPECT_EQ(name.rfind(".results.h5.gpucap-" + std::to_string(::getpid()) + "-", 0), 0u) << name;
    EXPECT_EQ(name.substr(name.size() - 4), ".tmp");
    names.insert(name);
  }
  EXPECT_EQ(names.size(), 1000u) << "64 random bits per name: no repeats in 1000";
  EXPECT_LE(detail::temporary_name(std::string(255, 'x')).size(), 240u);
}

TEST_F(OutputSafety, ExclusiveCreationNeverFollowsAPlantedLink) {
  const int folder = ::open((dir_ / "out").c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(folder, 0);
  fs::create_symlink(outside_, dir_ / "out" / "planted.tmp");
  errno = 0;
  EXPECT_EQ(detail::create_exclusive(folder, "planted.tmp"), -1);
  EXPECT_EQ(errno, EEXIST);
  fs::create_symlink(dir_ / "nowhere", dir_ / "out" / "dangling.tmp");  // a dangling link too
  EXPECT_EQ(detail::create_exclusive(folder, "dangling.tmp"), -1);
  EXPECT_FALSE(fs::exists(dir_ / "nowhere"));
  const int fd = detail::create_exclusive(folder, "fresh.tmp");
  EXPECT_GE(fd, 0);
  ::close(fd);
  ::close(folder);
  expect_outside_untouched();
}

TEST_F(OutputSafety, LinksPlantedAtTheOldPredictableNamesAreIgnored) {
  // The names gpucap used to write ("P.tmp.<pid>"), for every pid near this one.
  const fs::path target = dir_ / "out" / "results.h5";
  for (int pid = ::getpid(); pid < ::getpid() + 300; ++pid)
    fs::create_symlink(outside_, target.string() + ".tmp." + std::to_string(pid));
  const ProcessOutcome o = run_to(target);
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(target)));
  EXPECT_NO_THROW(read_results_hdf5(target.string()));
  expect_outside_untouched();
}

TEST_F(OutputSafety, ASymbolicLinkAtTheTargetIsRefusedUnlessForced) {
  const fs::path target = dir_ / "out" / "results.h5";
  fs::create_symlink(outside_, target);
  const ProcessOutcome refused = run_to(target);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(refused.output, "gpucap: error: cannot write '" + target.string() +
                                "': it is a symbolic link; gpucap replaces only regular files "
                                "(with --force it replaces the link itself, never the file it "
                                "points to)\n");
  expect_outside_untouched();
  EXPECT_TRUE(fs::is_symlink(target));

  const ProcessOutcome forced = run_to(target, {"--force"});
  EXPECT_EQ(forced.exit_code, 0) << forced.output;
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(target)));  // the link was replaced
  expect_outside_untouched();
  EXPECT_EQ(out_entries(), std::set<std::string>{"results.h5"});
}

TEST_F(OutputSafety, SpecialFilesAreRefusedEvenWithForce) {
  const fs::path fifo = dir_ / "out" / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const fs::path socket_path = dir_ / "out" / "sock";
  const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "%s", socket_path.c_str());
  const bool have_socket = socket_path.string().size() < sizeof address.sun_path &&
                           ::bind(sock, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  struct Case {
    fs::path path;
    std::string kind;
  };
  std::vector<Case> cases{{fifo, "a FIFO (named pipe)"}, {dir_ / "out", "a directory"}};
  if (have_socket) cases.push_back({socket_path, "a socket"});
  if (fs::exists("/dev/null")) cases.push_back({"/dev/null", "a character device"});
  for (const Case& c : cases) {
    for (const std::vector<std::string>& extra :
         {std::vector<std::string>{}, std::vector<std::string>{"--force"}}) {
      const ProcessOutcome o = run_to(c.path, extra);
      EXPECT_EQ(o.exit_code, 1) << c.path << o.output;
      EXPECT_NE(o.output.find("it is " + c.kind + ", not a regular file"), std::string::npos)
          << o.output;
    }
  }
  EXPECT_TRUE(fs::is_fifo(fifo));
  if (fs::exists("/dev/null")) {
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
  }
  // A trailing slash or "." names a folder, not a file.
  for (const std::string& name : {(dir_ / "out").string() + "/", (dir_ / "out").string() + "/."}) {
    const ProcessOutcome o = run_to(name);
    EXPECT_EQ(o.exit_code, 1);
    EXPECT_NE(o.output.find("it names a folder"), std::string::npos) << o.output;
  }
  ::close(sock);
}

TEST_F(OutputSafety, TheRunsOwnInputsAreNeverReplacedWhateverTheSpelling) {
  // A scenario with a trace file, copied so that a mistake cannot hurt the repository.
  fs::copy_file(kScenarios + "trace_replay.yaml", dir_ / "scenario.yaml");
  fs::copy_file(std::string(GPUCAP_SOURCE_DIR) + "/data/sample_week_trace.csv",
                dir_ / "sample_week_trace.csv");
  std::string text = read_all(dir_ / "scenario.yaml");
  const std::size_t at = text.find("../data/sample_week_trace.csv");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("../data/sample_week_trace.csv").size(), "sample_week_trace.csv");
  std::ofstream(dir_ / "scenario.yaml") << text;
  fs::create_symlink(dir_ / "scenario.yaml", dir_ / "out" / "link.yaml");
  fs::create_hard_link(dir_ / "sample_week_trace.csv", dir_ / "out" / "hard.csv");
  const std::string scenario_before = read_all(dir_ / "scenario.yaml");
  const std::string trace_before = read_all(dir_ / "sample_week_trace.csv");
  const std::vector<std::string> targets{
      (dir_ / "scenario.yaml").string(), (dir_ / "out" / ".." / "scenario.yaml").string(),
      (dir_ / "sample_week_trace.csv").string(), (dir_ / "out" / "hard.csv").string(),
      (dir_ / "out" / "link.yaml").string()};
  for (const std::string& target : targets) {
    for (const std::vector<std::string>& extra :
         {std::vector<std::string>{}, std::vector<std::string>{"--force"}}) {
      std::vector<std::string> args{"run", (dir_ / "scenario.yaml").string(), "-r", "2", "-q", "-o",
                                    target};
      args.insert(args.end(), extra.begin(), extra.end());
      const ProcessOutcome o = run_gpucap(args);
      EXPECT_EQ(o.exit_code, 1) << target << ": " << o.output;
      // A link is refused as a link first; with --force, as the input it reaches.
      EXPECT_TRUE(o.output.find("an input of this run") != std::string::npos ||
                  o.output.find("symbolic link") != std::string::npos)
          << o.output;
    }
  }
  EXPECT_EQ(read_all(dir_ / "scenario.yaml"), scenario_before);
  EXPECT_EQ(read_all(dir_ / "sample_week_trace.csv"), trace_before);
  // The same through the sweep command.
  const ProcessOutcome sweep = run_gpucap({"sweep", (dir_ / "scenario.yaml").string(), "--grid",
                                           "pools.cloud-h100.quota=16,32", "-r", "2", "-q", "-o",
                                           (dir_ / "sample_week_trace.csv").string()});
  EXPECT_EQ(sweep.exit_code, 1) << sweep.output;
  EXPECT_NE(sweep.output.find("an input of this run"), std::string::npos) << sweep.output;
  EXPECT_EQ(read_all(dir_ / "sample_week_trace.csv"), trace_before);
}

TEST_F(OutputSafety, AMissingFolderOrAnEmptyNameIsAClearError) {
  const ProcessOutcome o = run_to(dir_ / "no" / "such" / "folder" / "r.h5");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.output.find("cannot be opened: No such file or directory"), std::string::npos)
      << o.output;
  EXPECT_THROW(check_output_path("", OutputOptions{}), OutputError);
}

TEST_F(OutputSafety, StaleTemporariesOfKilledRunsAreNamedAndRemovedOthersKept) {
  // A pid that no longer runs: a child that has exited and been reaped.
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  const fs::path out = dir_ / "out";
  const std::string prefix = temporary_prefix("results.h5");
  const fs::path stale = out / (prefix + std::to_string(dead) + "-0123456789abcdef.tmp");
  const fs::path live = out / (prefix + std::to_string(::getpid()) + "-0123456789abcdef.tmp");
  const fs::path stale_link = out / (prefix + std::to_string(dead) + "-fedcba9876543210.tmp");
  const fs::path other = out / (temporary_prefix("other.h5") + std::to_string(dead) + "-00.tmp");
  std::ofstream(stale) << "partial";
  std::ofstream(live) << "being written by a live process";
  std::ofstream(other) << "another target's";
  fs::create_symlink(outside_, stale_link);
  const ProcessOutcome o = run_to(out / "results.h5");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("gpucap: removed '" + stale.string() +
                          "', a temporary file left by an earlier run that was killed while "
                          "writing"),
            std::string::npos)
      << o.output;
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));            // its writer runs
  EXPECT_TRUE(fs::exists(other));           // not this target's
  EXPECT_TRUE(fs::is_symlink(stale_link));  // not a regular file: neither removed nor followed
  expect_outside_untouched();
}

/// In a child process with a file size limit of `limit_bytes`: writes results of `replications`
/// rows over `path` (which holds "old"); returns the OutputError's message, or "" on success.
std::string write_under_size_limit(const fs::path& path, std::size_t replications,
                                   rlim_t limit_bytes) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(fds[0]);
    std::signal(SIGXFSZ, SIG_IGN);  // as the CLI does: EFBIG instead of a killed process
    const rlimit limit{limit_bytes, limit_bytes};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    RunResults r;
    r.replications = replications;
    r.scalars.assign(replications * kScalarMetricCount, 1.5);
    r.summary.assign(kScalarMetricCount, MetricSummary{});
    std::string message;
    try {
      write_results_hdf5(r, path.string());
    } catch (const std::exception& e) {
      message = e.what();
    }
    if (::write(fds[1], message.data(), message.size()) < 0) ::_exit(3);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string message;
  char buffer[512];
  ssize_t n;
  while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) message.append(buffer, n);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the writer crashed";
  return message;
}

TEST_F(OutputSafety, AFileSizeLimitFailsCleanlyAndLeavesTheOldFile) {
  const fs::path target = dir_ / "out" / "results.h5";
  std::ofstream(target) << "old";
  const std::string message = write_under_size_limit(target, 20000, 64 * 1024);
  EXPECT_NE(message.find("writing the temporary file failed: File too large"), std::string::npos)
      << message;
  EXPECT_EQ(read_all(target), "old");
  EXPECT_EQ(out_entries(), std::set<std::string>{"results.h5"}) << "no temporary file left";
  EXPECT_EQ(write_under_size_limit(target, 10, 1 << 30), "");  // and a small one fits
  EXPECT_NO_THROW(read_results_hdf5(target.string()));
}

TEST_F(OutputSafety, AFullFileSystemFailsCleanly) {
  // A 256 KiB tmpfs, where this process may mount one (root with CAP_SYS_ADMIN).
  const fs::path mount_point = dir_ / "tiny";
  fs::create_directories(mount_point);
  if (::mount("tmpfs", mount_point.c_str(), "tmpfs", 0, "size=256k") != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs here (" << std::strerror(errno)
                 << "); the file size limit test covers the same path";
  const ProcessOutcome o = run_gpucap({"run", kScenarios + "mmc_validation.yaml", "-r", "20000",
                                       "-q", "--set", "horizon=10h", "--set", "warmup=0s", "-o",
                                       (mount_point / "results.h5").string()});
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(mount_point)) left.push_back(e.path().filename());
  ::umount2(mount_point.c_str(), MNT_DETACH);
  EXPECT_EQ(o.exit_code, 1) << o.output;
  EXPECT_EQ(o.term_signal, 0) << "crashed: " << o.output;
  EXPECT_NE(o.output.find("No space left on device"), std::string::npos) << o.output;
  EXPECT_TRUE(left.empty()) << left.size() << " files left, e.g. " << left[0];
}

}  // namespace
}  // namespace gpucap
