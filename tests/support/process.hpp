// Test support: run gpucap (or any program) as a child process without a shell, capture its
// output, send it signals, and wait with a time limit.
#pragma once
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <poll.h>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

namespace gpucap::testing_support {

/// How a child ended.
struct ProcessOutcome {
  int exit_code = -1;      ///< when it exited; -1 otherwise
  int term_signal = 0;     ///< when a signal killed it (e.g. SIGSEGV); 0 otherwise
  bool timed_out = false;  ///< killed by wait() after its limit
  std::string output;      ///< stdout and stderr together
};

/// A running child. Its stdout and stderr go to one pipe, read while waiting.
class ChildProcess {
 public:
  /// Starts `argv` (argv[0] is the program's path) with `environment` added ("NAME=value"),
  /// as the user `as_user` when it is not 0 (this process must be root then).
  ChildProcess(const std::vector<std::string>& argv,
               const std::vector<std::string>& environment = {}, uid_t as_user = 0) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) std::abort();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(fds[1], STDOUT_FILENO);
      ::dup2(fds[1], STDERR_FILENO);
      for (const std::string& e : environment) ::putenv(const_cast<char*>(e.c_str()));
      if (as_user != 0 && (::setgid(as_user) != 0 || ::setuid(as_user) != 0)) ::_exit(126);
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    ::close(fds[1]);
    read_fd_ = fds[0];
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() {
    if (!reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (read_fd_ >= 0) ::close(read_fd_);
  }

  pid_t pid() const { return pid_; }
  void signal(int sig) { ::kill(pid_, sig); }

  /// Reads output until `text` appears or `limit` passes; true when it appeared.
  bool wait_for_output(const std::string& text, std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (output_.find(text) == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          end - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !read_some(static_cast<int>(left.count()))) return false;
    }
    return true;
  }

  /// Waits for the child to end, at most `limit` (then kills it: timed_out).
  ProcessOutcome wait(std::chrono::milliseconds limit = std::chrono::milliseconds(120000)) {
    ProcessOutcome outcome;
    const auto end = std::chrono::steady_clock::now() + limit;
    while (read_some(50)) {
      if (std::chrono::steady_clock::now() > end) {
        ::kill(pid_, SIGKILL);
        outcome.timed_out = true;
        break;
      }
    }
    int status = 0;
    for (;;) {
      const pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) break;
      if (std::chrono::steady_clock::now() > end && !outcome.timed_out) {
        ::kill(pid_, SIGKILL);
        outcome.timed_out = true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    reaped_ = true;
    while (read_some(0)) {
    }
    if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) outcome.term_signal = WTERMSIG(status);
    outcome.output = output_;
    return outcome;
  }

 private:
  /// Reads what is available within `timeout_ms`; false at end of output.
  bool read_some(int timeout_ms) {
    if (read_fd_ < 0) return false;
    pollfd p{read_fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, timeout_ms);
    if (ready == 0) return true;  // nothing yet, not ended
    if (ready < 0) return errno == EINTR;
    char buffer[4096];
    const ssize_t n = ::read(read_fd_, buffer, sizeof buffer);
    if (n > 0) {
      output_.append(buffer, static_cast<std::size_t>(n));
      return true;
    }
    if (n < 0 && errno == EINTR) return true;
    ::close(read_fd_);
    read_fd_ = -1;
    return false;
  }

  pid_t pid_ = -1;
  int read_fd_ = -1;
  bool reaped_ = false;
  std::string output_;
};

/// Runs gpucap with `args` to its end (at most `limit`).
inline ProcessOutcome run_gpucap(
    const std::vector<std::string>& args, const std::vector<std::string>& environment = {},
    std::chrono::milliseconds limit = std::chrono::milliseconds(120000)) {
  std::vector<std::string> argv{GPUCAP_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  ChildProcess child(argv, environment);
  return child.wait(limit);
}

/// Runs any program (`argv[0]` its path) to its end (at most `limit`).
inline ProcessOutcome run_program(const std::vector<std::string>& argv,
                                  std::chrono::milliseconds limit = std::chrono::milliseconds(120000)) {
  ChildProcess child(argv);
  return child.wait(limit);
}

}  // namespace gpucap::testing_support
