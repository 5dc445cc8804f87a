// gpucap._core: running long C++ work from Python with the GIL released and Ctrl-C honoured.
#pragma once
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <pybind11/pybind11.h>
#include <thread>

#include "gpucap/backend.hpp"

namespace gpucap::bindings {

/// Runs `work` on a worker thread with the GIL released. Every 50 ms, with the GIL, it checks
/// Python's signals and calls `progress` (when set) with monitor.done; a signal handler that
/// raises (KeyboardInterrupt for Ctrl-C) or a progress callback that raises sets monitor.cancel,
/// and that exception is raised once the work has stopped. Otherwise an exception of `work` is
/// rethrown, and `progress` is called a last time.
inline void call_cancellable(RunMonitor& monitor, const std::function<void()>& work,
                             const std::function<void(uint64_t)>& progress = nullptr) {
  namespace py = pybind11;
  std::exception_ptr error;
  std::mutex mutex;
  std::condition_variable cv;
  bool finished = false;
  std::unique_ptr<py::error_already_set> signal_error;
  std::unique_ptr<py::error_already_set> callback_error;
  {
    py::gil_scoped_release release;
    std::thread worker([&] {
      try {
        work();
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mutex);
      finished = true;
      cv.notify_all();
    });
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex);
        if (cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return finished; })) break;
      }
      py::gil_scoped_acquire acquire;
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
    }
    worker.join();
  }
  if (signal_error) throw std::move(*signal_error);
  if (callback_error) throw std::move(*callback_error);
  if (error) std::rethrow_exception(error);
  if (progress) progress(monitor.done.load());
}

}  // namespace gpucap::bindings
