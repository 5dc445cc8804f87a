#include "gpucap/progress.hpp"

#include <cstdio>
#include <unistd.h>

namespace gpucap {

ProgressBar::ProgressBar(uint64_t total, std::string unit, bool enabled)
    : total_(total),
      unit_(std::move(unit)),
      enabled_(enabled),
      start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() {
  if (enabled_ && !finished_) finish();
}

bool ProgressBar::stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

void ProgressBar::advance(uint64_t n) {
  if (!enabled_) return;
  const uint64_t done = done_.fetch_add(n, std::memory_order_relaxed) + n;
  const int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::steady_clock::now() - start_)
                             .count();
  if (now_ns - last_draw_ns_.load(std::memory_order_relaxed) < 100000000) return;
  bool expected = false;
  if (!drawing_.compare_exchange_strong(expected, true)) return;
  last_draw_ns_.store(now_ns, std::memory_order_relaxed);
  draw(done, false);
  drawing_.store(false);
}

void ProgressBar::finish() {
  if (!enabled_ || finished_) return;
  finished_ = true;
  draw(done_.load(), true);
}

void ProgressBar::draw(uint64_t done, bool final_draw) {
  constexpr int kWidth = 30;
  const double fraction = total_ > 0 ? static_cast<double>(done) / total_ : 1.0;
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const int filled = static_cast<int>(fraction * kWidth);
  char bar[kWidth + 1];
  for (int i = 0; i < kWidth; ++i) bar[i] = i < filled ? '#' : '.';
  bar[kWidth] = '\0';
  const double eta_s = fraction > 0 ? elapsed_s * (1.0 - fraction) / fraction : 0.0;
  std::fprintf(stderr, "\r[%s] %5.1f%%  %llu/%llu %s  %.1f s elapsed, %.1f s left   ", bar,
               100.0 * fraction, static_cast<unsigned long long>(done),
               static_cast<unsigned long long>(total_), unit_.c_str(), elapsed_s,
               final_draw ? 0.0 : eta_s);
  if (final_draw) std::fputc('\n', stderr);
  std::fflush(stderr);
}

}  // namespace gpucap
