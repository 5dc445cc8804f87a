// gpucap._core: the per-job records of results (scenario key `records.jobs`), as columns for
// Results.jobs in the Python package.
#include <cstddef>
#include <cstdint>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <vector>

#include "gpucap/results.hpp"

#include "text_caster.hpp"

namespace py = pybind11;

namespace {

/// One column of the records, as a new numpy array.
template <typename T, typename Field>
py::array_t<T> column(const std::vector<gpucap::JobRecord>& jobs, Field field) {
  py::array_t<T> out(static_cast<py::ssize_t>(jobs.size()));
  T* data = out.mutable_data();
  for (std::size_t i = 0; i < jobs.size(); ++i) data[i] = static_cast<T>(field(jobs[i]));
  return out;
}

}  // namespace

/// Adds job_records to the module (called from core.cpp's PYBIND11_MODULE, after the Results
/// class is registered).
void bind_records(py::module_& m) {
  m.def(
      "job_records",
      [](const gpucap::RunResults& r) -> py::object {
        if (r.job_replications == 0) return py::none();
        using J = gpucap::JobRecord;
        const std::vector<J>& j = r.jobs;
        py::dict d;
        d["point"] = column<uint64_t>(j, [](const J& x) { return x.point; });
        d["replication"] = column<uint64_t>(j, [](const J& x) { return x.replication; });
        d["job"] = column<uint64_t>(j, [](const J& x) { return x.job; });
        d["class"] = column<uint32_t>(j, [](const J& x) { return x.job_class; });
        d["arrival_s"] = column<double>(j, [](const J& x) { return x.arrival_s; });
        d["start_s"] = column<double>(j, [](const J& x) { return x.start_s; });
        d["end_s"] = column<double>(j, [](const J& x) { return x.end_s; });
        d["wait_s"] = column<double>(j, [](const J& x) { return x.start_s - x.arrival_s; });
        d["pool"] = column<int32_t>(j, [](const J& x) { return x.pool; });
        d["runs"] = column<uint32_t>(j, [](const J& x) { return x.runs; });
        d["preemptions"] = column<uint32_t>(j, [](const J& x) { return x.preemptions; });
        d["cost_usd"] = column<double>(j, [](const J& x) { return x.cost_usd; });
        d["trace_row"] = column<uint64_t>(j, [](const J& x) { return x.trace_row; });
        d["classes"] = r.job_classes;
        d["replications"] = r.job_replications;
        return std::move(d);
      },
      py::arg("results"),
      "The per-job records as a dict of numpy columns (with the workload names `classes` and "
      "the replications recorded per point), or None when the scenario records none");
}
