// gpucap: a loop over indices on several threads (the results' summaries, the HDF5 chunks).
#pragma once
#include <cstddef>
#include <functional>

namespace gpucap {

/// Runs task(i) for every i in [0, count) on up to `threads` threads (0: every core), the
/// caller's among them, each taking the next index; rethrows the first exception a task threw,
/// after every thread ended. Tasks must not depend on which thread runs them or in what order.
void parallel_for(std::size_t count, unsigned threads,
                  const std::function<void(std::size_t)>& task);

/// The threads `threads` stands for: itself, or every core when 0.
unsigned resolve_parallel_threads(unsigned threads);

}  // namespace gpucap
