// gpucap._core: running long C++ work from Python with the GIL released, and cancelling it:
// Ctrl-C, a CancelToken from any thread, gpucap.cancel_runs(), or interpreter exit.
#pragma once
#include <Python.h>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <pybind11/pybind11.h>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gpucap/backend.hpp"

namespace gpucap::bindings {

/// gpucap.CancelToken: a cancel its holder can trigger from any thread (a GUI, a timer, the main
/// thread while the run is in another). Passed as cancel= to a run, it stops the run at its next
/// replication (the CPU) or batch (a device), and the run raises gpucap.RunCancelled. One
/// token may serve several runs; once cancelled it stays cancelled.
class CancelToken {
 public:
  void cancel() { cancelled_.store(true); }
  bool cancelled() const { return cancelled_.load(); }

 private:
  std::atomic<bool> cancelled_{false};
};

/// gpucap.RunCancelled with a message that says who cancelled the run (a RunCancelled, so that
/// its Python translation applies).
class CancelledRun : public RunCancelled {
 public:
  explicit CancelledRun(std::string text) : text_(std::move(text)) {}
  const char* what() const noexcept override { return text_.c_str(); }

 private:
  std::string text_;
};

/// The calls of call_cancellable in progress in this process, so that gpucap.cancel_runs() and
/// the hook at interpreter exit can cancel them and wait until they have returned. Never
/// destroyed: a call may still be unwinding while the process exits.
class ActiveCalls {
 public:
  struct Call {
    RunMonitor* monitor = nullptr;
    bool daemon = false;                    ///< its Python thread is a daemon thread
    std::atomic<const char*> why{nullptr};  ///< who cancelled it through this registry
  };

  static ActiveCalls& instance() {
    static ActiveCalls* calls = new ActiveCalls;
    return *calls;
  }

  void add(Call* call) {
    std::lock_guard<std::mutex> lock(mutex_);
    calls_.push_back(call);
  }

  void remove(Call* call) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::size_t i = 0; i < calls_.size(); ++i)
      if (calls_[i] == call) {
        calls_.erase(calls_.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    changed_.notify_all();
  }

  /// Cancels the calls in progress (only those on daemon threads when daemon_only), saying
  /// `why` in their RunCancelled; returns how many.
  std::size_t cancel(bool daemon_only, const char* why) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t n = 0;
    for (Call* call : calls_)
      if (!daemon_only || call->daemon) {
        const char* none = nullptr;
        call->why.compare_exchange_strong(none, why);
        call->monitor->cancel = true;
        ++n;
      }
    return n;
  }

  /// Waits (call without the GIL) until no call is in progress or `timeout_s` has passed;
  /// returns whether none is.
  bool wait_idle(double timeout_s) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, std::chrono::duration<double>(timeout_s),
                             [this] { return calls_.empty(); });
  }

  std::size_t size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return calls_.size();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Call*> calls_;
};

/// Whether the calling Python thread is a daemon thread (call with the GIL).
inline bool current_thread_is_daemon() {
  namespace py = pybind11;
  try {
    return py::module_::import("threading").attr("current_thread")().attr("daemon").cast<bool>();
  } catch (const py::error_already_set&) {
    return false;  // the interpreter is shutting down; no hook will look at this call
  }
}

/// Runs `work` on a worker thread with the GIL released. Every 50 ms, with the GIL, it checks
/// Python's signals and calls `progress` (when set) with monitor.done; a signal handler that
/// raises (KeyboardInterrupt for Ctrl-C, only in the main thread) or a progress callback that
/// raises sets monitor.cancel, and that exception is raised once the work has stopped. A
/// cancelled `token` (checked before the start and every 50 ms, from any thread) or
/// ActiveCalls::cancel also set monitor.cancel, and the call raises gpucap.RunCancelled (a
/// token cancelled before the start: before anything runs; one cancelled while the work was
/// finishing: even when it finished). Otherwise an exception of `work` is rethrown, and
/// `progress` is called a last time. `work` must not need the GIL.
inline void call_cancellable(RunMonitor& monitor, const std::function<void()>& work,
                             const std::function<void(uint64_t)>& progress = nullptr,
                             const CancelToken* token = nullptr) {
  namespace py = pybind11;
  if (token && token->cancelled())
    throw CancelledRun("the run was not started: its CancelToken was cancelled already");
  // Shared with the worker, which may outlive this frame only while it is being joined.
  struct State {
    std::mutex mutex;
    std::condition_variable cv;
    bool finished = false;
    std::exception_ptr error;
  };
  auto state = std::make_shared<State>();
  ActiveCalls::Call call;
  call.monitor = &monitor;
  call.daemon = current_thread_is_daemon();
  // Registered until this call returns or unwinds; the worker is cancelled and joined first
  // (guards are destroyed in reverse order), whatever ends the call: an exception with the GIL
  // held, or a daemon thread unwound by the interpreter's exit (which holds no GIL: the worker
  // never needs it).
  struct Registration {
    ActiveCalls::Call* call;
    explicit Registration(ActiveCalls::Call* c) : call(c) { ActiveCalls::instance().add(c); }
    ~Registration() { ActiveCalls::instance().remove(call); }
  } registration(&call);
  struct Worker {
    RunMonitor& monitor;
    std::thread thread;
    ~Worker() {
      if (thread.joinable()) {
        monitor.cancel = true;
        thread.join();
      }
    }
  } worker{monitor, std::thread([state, &work] {
             std::exception_ptr error;
             try {
               work();
             } catch (...) {
               error = std::current_exception();
             }
             std::lock_guard<std::mutex> lock(state->mutex);
             state->error = error;
             state->finished = true;
             state->cv.notify_all();
           })};

  std::unique_ptr<py::error_already_set> signal_error;
  std::unique_ptr<py::error_already_set> callback_error;
  bool token_cancelled = false;
  // The GIL is released and taken back by hand, not by a guard: taking it back is where a daemon
  // thread is stopped at interpreter exit, which must not happen in a destructor.
  PyThreadState* saved = PyEval_SaveThread();
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(state->mutex);
      if (state->cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return state->finished; }))
        break;
    }
    if (token && !token_cancelled && token->cancelled()) {
      token_cancelled = true;
      monitor.cancel = true;
    }
    PyEval_RestoreThread(saved);
    if (!signal_error && PyErr_CheckSignals() != 0) {
      // A signal handler raised (KeyboardInterrupt for Ctrl-C, or whatever a handler of the
      // caller's raises): cancel the run, and raise that same exception once it has stopped.
      signal_error = std::make_unique<py::error_already_set>();
      monitor.cancel = true;
    }
    if (progress && !callback_error && !signal_error) {
      try {
        progress(monitor.done.load());
      } catch (py::error_already_set& e) {
        callback_error = std::make_unique<py::error_already_set>(std::move(e));
        monitor.cancel = true;
      }
    }
    saved = PyEval_SaveThread();
  }
  worker.thread.join();
  PyEval_RestoreThread(saved);
  if (signal_error) throw std::move(*signal_error);
  if (callback_error) throw std::move(*callback_error);
  if (token && token->cancelled())
    throw CancelledRun("the run was cancelled by its CancelToken after " +
                       std::to_string(monitor.done.load()) + " replications");
  if (const char* why = call.why.load())
    throw CancelledRun(std::string("the run was cancelled by ") + why + " after " +
                       std::to_string(monitor.done.load()) + " replications");
  if (state->error) std::rethrow_exception(state->error);
  if (progress) progress(monitor.done.load());
}

}  // namespace gpucap::bindings
