// gpucap: a progress bar for long runs, on stderr, only when stderr is a terminal.
//
// Thread-safe: advance() may be called from any worker thread; at most one thread redraws, at
// most every 100 ms. Silent when disabled (quiet, or stderr piped or redirected).
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace gpucap {

class ProgressBar {
 public:
  /// `enabled` false makes every call a no-op; use stderr_is_terminal() && !quiet.
  ProgressBar(uint64_t total, std::string unit, bool enabled);
  ~ProgressBar();

  void advance(uint64_t n = 1);
  /// Draws the final state and ends the line.
  void finish();

  static bool stderr_is_terminal();

 private:
  void draw(uint64_t done, bool final_draw);

  uint64_t total_;
  std::string unit_;
  bool enabled_;
  bool finished_ = false;
  std::atomic<uint64_t> done_{0};
  std::atomic<bool> drawing_{false};
  std::atomic<int64_t> last_draw_ns_{0};
  std::chrono::steady_clock::time_point start_;
};

}  // namespace gpucap
