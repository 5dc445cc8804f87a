// gpucap: what SIGINT (Ctrl-C), SIGTERM and SIGHUP do to a command-line run.
//
// The CLI calls install() once. Then a signal:
//  - during a run that registered its cancel flag: sets the flag, so the run stops at its next
//    replication (CPU) or batch (device) and the CLI exits with 128 + the signal number (130 for
//    Ctrl-C) and a one-line message; a second signal ends the process at once;
//  - while an output's temporary file exists: removes it, then ends the process (128 + signal);
//    a registered lock file of the output (held by this process) is removed the same way;
//  - otherwise: ends the process (128 + signal) with a one-line message: "stopped, nothing was
//    written", or the note a command registered once it has written something (set_stop_note).
// SIGXFSZ (a file size limit reached) is ignored, so that a write fails with EFBIG and a
// message instead of killing the process.
//
// The handler only uses async-signal-safe calls (unlink, write, _exit) and lock-free atomics.
// Without install() (the Python module, where Python owns SIGINT) the registrations below
// are harmless no-ops.
#pragma once
#include <atomic>

namespace gpucap::interrupt {

/// Installs the handlers (idempotent).
void install();

/// The first signal received since install(), or 0.
int received();

/// While set, a first signal sets `*flag` instead of ending the process. Pass nullptr to clear.
void set_cancel_flag(std::atomic<bool>* flag);

/// While set, a signal removes this file before the process ends. The path is copied (at most
/// 4095 bytes; longer paths are not registered). Pass nullptr to clear.
void set_temporary_file(const char* path);

/// While set, a signal that ends the process removes this file too: the lock file of the output
/// (run_journal.hpp), registered only while this process holds its lock. Copied like the
/// temporary file's path. Pass nullptr to clear (before the lock is released).
void set_lock_file(const char* path);

/// While set, a signal that ends the process says this after "interrupted by SIGINT; " in
/// place of "stopped, nothing was written": for a command that has written its outputs and
/// goes on (fit --check: "the fit was written to ...; its check stopped"). Copied like the
/// temporary file's path (at most 4095 bytes; a longer note is cut). Pass nullptr to clear.
void set_stop_note(const char* note);

/// Holds SIGINT, SIGTERM and SIGHUP back on this thread while it lives; a signal that arrives
/// meanwhile is handled when it ends. For steps that must not be cut in two (taking a lock and
/// registering it).
class Deferred {
 public:
  Deferred();
  ~Deferred();
  Deferred(const Deferred&) = delete;
  Deferred& operator=(const Deferred&) = delete;

 private:
  /// The thread's previous mask (a sigset_t: at most 128 bytes).
  alignas(16) unsigned char saved_[128];
};

/// 128 + signal: the exit status of a process ended by `signal`, as shells report it.
inline int exit_status_for(int signal) { return 128 + signal; }

/// "SIGINT", "SIGTERM", "SIGHUP" or "signal N".
const char* signal_name(int signal);

}  // namespace gpucap::interrupt
