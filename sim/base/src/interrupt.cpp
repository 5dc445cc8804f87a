// gpucap: signal handling for the CLI (see interrupt.hpp).
#include "gpucap/interrupt.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <initializer_list>
#include <pthread.h>
#include <unistd.h>

namespace gpucap::interrupt {
namespace {

constexpr std::size_t kPathBytes = 4096;

std::atomic<int> g_received{0};
std::atomic<bool> g_installed{false};
std::atomic<std::atomic<bool>*> g_cancel_flag{nullptr};
// The temporary file: the path is written only while g_temporary_set is false, and read by the
// handler only while it is true.
char g_temporary_path[kPathBytes];
std::atomic<bool> g_temporary_set{false};
// The output's lock file, the same way.
char g_lock_path[kPathBytes];
std::atomic<bool> g_lock_set{false};
// The note said in place of "stopped, nothing was written", the same way.
char g_stop_note[kPathBytes];
std::atomic<bool> g_stop_note_set{false};
// Whether stderr is a terminal (read once at install: a progress bar may need its line ended).
std::atomic<bool> g_stderr_terminal{false};

static_assert(std::atomic<int>::is_always_lock_free, "signal handlers need lock-free atomics");
static_assert(std::atomic<bool>::is_always_lock_free, "signal handlers need lock-free atomics");
static_assert(std::atomic<std::atomic<bool>*>::is_always_lock_free,
              "signal handlers need lock-free atomics");

void write_stderr(const char* text) {
  ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

void handle(int signal) {
  const int saved_errno = errno;
  int expected = 0;
  const bool first = g_received.compare_exchange_strong(expected, signal);
  if (g_temporary_set.exchange(false)) ::unlink(g_temporary_path);
  std::atomic<bool>* cancel = g_cancel_flag.load();
  if (first && cancel != nullptr) {
    cancel->store(true);
    // The run stops at its next replication or batch; the CLI prints the final line.
    errno = saved_errno;
    return;
  }
  if (g_stderr_terminal.load()) write_stderr("\n");
  write_stderr("gpucap: interrupted by ");
  write_stderr(signal_name(signal));
  write_stderr("; ");
  write_stderr(g_stop_note_set.load() ? g_stop_note : "stopped, nothing was written");
  write_stderr("\n");
  if (g_lock_set.exchange(false)) ::unlink(g_lock_path);
  ::_exit(exit_status_for(signal));
}

void register_path(const char* path, char* slot, std::atomic<bool>& set) {
  set.store(false);
  if (path == nullptr) return;
  const std::size_t length = std::strlen(path);
  if (length >= kPathBytes) return;
  std::memcpy(slot, path, length + 1);
  set.store(true);
}

sigset_t stopping_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

}  // namespace

void install() {
  if (g_installed.exchange(true)) return;
  g_stderr_terminal.store(::isatty(STDERR_FILENO) == 1);
  struct sigaction action {};
  action.sa_handler = handle;
  sigemptyset(&action.sa_mask);
  // Block the other stopping signals while one is handled; no SA_RESTART: a blocking call
  // (a write) returns EINTR and its loop sees the state.
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  sigaddset(&action.sa_mask, SIGHUP);
  action.sa_flags = 0;
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal, &action, nullptr);
  std::signal(SIGXFSZ, SIG_IGN);
}

int received() { return g_received.load(); }

void set_cancel_flag(std::atomic<bool>* flag) { g_cancel_flag.store(flag); }

void set_temporary_file(const char* path) {
  register_path(path, g_temporary_path, g_temporary_set);
}

void set_lock_file(const char* path) { register_path(path, g_lock_path, g_lock_set); }

void set_stop_note(const char* note) {
  g_stop_note_set.store(false);
  if (note == nullptr) return;
  const std::size_t length = std::min(std::strlen(note), kPathBytes - 1);
  std::memcpy(g_stop_note, note, length);
  g_stop_note[length] = '\0';
  g_stop_note_set.store(true);
}

static_assert(sizeof(sigset_t) <= 128, "Deferred::saved_ holds a sigset_t");

Deferred::Deferred() {
  const sigset_t block = stopping_signals();
  ::pthread_sigmask(SIG_BLOCK, &block, reinterpret_cast<sigset_t*>(saved_));
}

Deferred::~Deferred() {
  ::pthread_sigmask(SIG_SETMASK, reinterpret_cast<const sigset_t*>(saved_), nullptr);
}

const char* signal_name(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
  }
}

}  // namespace gpucap::interrupt
