// gpucap._core: the pybind11 module under the Python package gpucap.
//
// Thin: scenarios are parsed and validated by the C++ loader (same messages as the CLI), runs go
// through gpucap::run_points on any backend, and results stay in the C++ RunResults, which numpy
// arrays view without copying. The Python package (bindings/python/gpucap) builds the friendly
// API on top.
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <string>
#include <utility>
#include <vector>

#include "gpucap/backend.hpp"
#include "gpucap/csv_table.hpp"
#include "gpucap/data_file.hpp"
#include "gpucap/hdf5_layout.hpp"
#include "gpucap/hdf5_results.hpp"
#include "gpucap/metric_explain.hpp"
#include "gpucap/result_warnings.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/moments.hpp"
#include "gpucap/run.hpp"
#include "gpucap/run_journal.hpp"
#include "gpucap/scenario_keys.hpp"
#include "gpucap/scenario_loader.hpp"
#include "gpucap/streaming_summary.hpp"
#include "gpucap/summary.hpp"
#include "gpucap/sweep.hpp"
#include "gpucap/version.hpp"

#include "cancellable_call.hpp"
#include "text_caster.hpp"  // C++ text decodes with replacement (see the file)

namespace py = pybind11;

void bind_select_best(py::module_& m);  // select_best.cpp
void bind_robust_plan(py::module_& m);  // robust_plan.cpp
/// gpucap._core.concat_results (bindings/src/concat.cpp).
void bind_concat(py::module_& m);
void bind_report(py::module_& m);   // report.cpp
void bind_records(py::module_& m);  // records.cpp
void bind_catalog(py::module_& m);  // catalog.cpp

namespace {

/// Results shared between Python objects and the numpy arrays that view them.
using ResultsPtr = std::shared_ptr<gpucap::RunResults>;

/// A results file that cannot be read (missing, not HDF5, corrupt): gpucap.ResultsFileError, an
/// OSError.
class ResultsFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

gpucap::InputLimits input_limits(std::optional<uint64_t> scenario_bytes,
                                 std::optional<uint64_t> data_bytes) {
  gpucap::InputLimits limits;
  if (scenario_bytes) limits.scenario_bytes = *scenario_bytes;
  if (data_bytes) limits.data_bytes = *data_bytes;
  return limits;
}

/// A read-only numpy view of `values` with `shape` (C order), kept alive by `owner`.
py::array view(const std::vector<double>& values, std::vector<py::ssize_t> shape,
               const py::object& owner) {
  py::ssize_t elements = 1;
  for (py::ssize_t n : shape) elements *= n;
  if (static_cast<py::ssize_t>(values.size()) != elements)
    throw std::invalid_argument(
        "these results hold no rows (a description of a run, not its output)");
  const double* data = values.data();
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t stride = sizeof(double);
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  py::array a(py::dtype::of<double>(), shape, strides, data, owner);
  a.attr("setflags")(py::arg("write") = false);
  return a;
}

/// Summaries as an array [..., 7]: mean, std, ci95_low, ci95_high, p5, p50, p95 (a copy).
py::array_t<double> summary_array(const std::vector<gpucap::MetricSummary>& s,
                                  std::vector<py::ssize_t> shape) {
  shape.push_back(7);
  py::array_t<double> a(shape);
  double* out = a.mutable_data();
  for (const gpucap::MetricSummary& m : s) {
    const double row[7] = {m.mean, m.std, m.ci95_low, m.ci95_high, m.p5, m.p50, m.p95};
    out = std::copy(row, row + 7, out);
  }
  return a;
}

/// How many replications each summary is over (where its metric is defined), [...] (a copy).
py::array_t<uint64_t> summary_counts(const std::vector<gpucap::MetricSummary>& s,
                                     std::vector<py::ssize_t> shape) {
  py::array_t<uint64_t> a(shape);
  uint64_t* out = a.mutable_data();
  for (const gpucap::MetricSummary& m : s) *out++ = m.n;
  return a;
}

/// Data files' provenance as Python dicts: path, resolved_path (as os.fsdecode names them),
/// size_bytes, sha256.
py::list data_file_dicts(const std::vector<gpucap::DataFileRecord>& files) {
  py::list out;
  for (const gpucap::DataFileRecord& f : files) {
    py::dict d;
    d["path"] = gpucap::bindings::path_from_bytes(f.path);
    d["resolved_path"] = gpucap::bindings::path_from_bytes(f.resolved_path);
    d["size_bytes"] = f.size_bytes;
    d["sha256"] = f.sha256;
    out.append(d);
  }
  return out;
}

/// A sweep's parameters as Python passes them: [(path, [value at each point])].
using SweepArg = std::vector<std::pair<std::string, std::vector<std::string>>>;

/// describe_run of the points (replications 0: the scenario's; no seed: the scenario's).
gpucap::RunResults describe(const std::vector<gpucap::Scenario>& points, const SweepArg& sweep,
                            const gpucap::Scenario& base, uint64_t replications,
                            std::optional<uint64_t> seed) {
  gpucap::RunOptions options;
  options.replications = replications;
  if (seed) {
    options.seed = *seed;
    options.has_seed = true;
  }
  std::vector<gpucap::SweepParameter> grid;
  for (const auto& [path, values] : sweep) grid.push_back({path, values});
  return gpucap::describe_run(points, grid, base, options);
}

/// Runs `points` on a worker thread with the GIL released (call_cancellable). The calling thread
/// wakes every 50 ms to report progress and to check for signals and `token`: Ctrl-C
/// (KeyboardInterrupt) or a cancelled token cancels the run, which stops at its next replication
/// or batch, and the error is raised once the worker has stopped.
ResultsPtr run_points(const std::vector<gpucap::Scenario>& points,
                      const std::vector<std::pair<std::string, std::vector<std::string>>>& sweep,
                      const gpucap::Scenario& base, uint64_t replications,
                      std::optional<uint64_t> seed, uint64_t first_replication,
                      const std::string& backend, int threads,
                      const std::function<void(uint64_t)>& progress, double precision,
                      const std::vector<std::string>& precision_metrics, uint64_t max_replications,
                      std::optional<uint64_t> keep_rows, const std::vector<int>& devices,
                      const gpucap::bindings::CancelToken* token, int host_threads) {
  gpucap::RunOptions options;
  if (keep_rows) options.keep_rows = *keep_rows;
  options.device_limits.devices = devices;
  options.device_limits.host_threads = host_threads;
  options.replications = replications;
  options.precision = precision;
  options.max_replications = max_replications;
  for (const std::string& name : precision_metrics) {
    bool found = false;
    for (uint32_t k = 0; k < gpucap::kScalarMetricCount && !found; ++k)
      if (name == gpucap::kScalarMetricInfo[k].name) {
        options.precision_metrics.push_back(static_cast<gpucap::ScalarMetric>(k));
        found = true;
      }
    if (!found) throw py::key_error("unknown metric '" + name + "'");
  }
  if (seed) {
    options.seed = *seed;
    options.has_seed = true;
  }
  options.first_replication = first_replication;
  options.backend = gpucap::parse_backend(backend);
  options.threads = threads;
  options.progress = false;
  gpucap::RunMonitor monitor;
  options.monitor = &monitor;
  std::vector<gpucap::SweepParameter> grid;
  for (const auto& [path, values] : sweep) grid.push_back({path, values});

  auto results = std::make_shared<gpucap::RunResults>();
  gpucap::bindings::call_cancellable(
      monitor, [&] { *results = gpucap::run_points(points, grid, base, options); }, progress,
      token);
  return results;
}

py::dict device_dict(const gpucap::DeviceInfo& d) {
  py::dict out;
  out["index"] = d.index;
  out["name"] = d.name;
  out["total_memory_bytes"] = d.total_memory_bytes;
  out["free_memory_bytes"] = d.free_memory_bytes;
  out["compute_capability"] = py::make_tuple(d.compute_major, d.compute_minor);
  out["multiprocessors"] = d.multiprocessors;
  return out;
}

/// One row of the backend table, as gpucap.backends() shows it.
py::dict backend_dict(const gpucap::Backend& backend) {
  py::dict out;
  out["kind"] = backend.kind == gpucap::BackendKind::cpu ? "cpu" : "device";
  out["description"] = backend.description;
  out["built"] = backend.built();
  if (!backend.built()) {
    out["usable"] = false;
    out["why"] = backend.not_built;
    out["devices"] = py::list();
    return out;
  }
  const gpucap::DeviceProbe probe = backend.probe();
  out["usable"] = probe.usable();
  out["why"] = probe.why_none;
  out["name"] = backend.label;
  out["targets"] = backend.targets;
  py::list devices;
  for (const gpucap::DeviceInfo& d : probe.devices) devices.append(device_dict(d));
  out["devices"] = devices;
  if (backend.kind == gpucap::BackendKind::cpu)
    out["threads"] = probe.devices.empty() ? 0 : probe.devices[0].multiprocessors;
  return out;
}

/// The Python exception type of a C++ exception, as the translators above choose it.
py::object python_error_type(std::exception_ptr error) {
  const py::module_ core = py::module_::import("gpucap._core");
  const auto builtin = [](PyObject* type) { return py::reinterpret_borrow<py::object>(type); };
  try {
    std::rethrow_exception(error);
  } catch (const gpucap::InputFileError&) {
    return core.attr("InputFileError");
  } catch (const gpucap::ScenarioError&) {
    return core.attr("ScenarioError");
  } catch (const gpucap::OutputError&) {
    return core.attr("OutputError");
  } catch (const ResultsFileError&) {
    return core.attr("ResultsFileError");
  } catch (const gpucap::RunCancelled&) {
    return core.attr("RunCancelled");
  } catch (const gpucap::BackendUnavailable&) {
    return core.attr("BackendUnavailable");
  } catch (const gpucap::RunError&) {
    return core.attr("RunError");
  } catch (const std::bad_alloc&) {
    return builtin(PyExc_MemoryError);
  } catch (const std::domain_error&) {
    return builtin(PyExc_ValueError);
  } catch (const std::invalid_argument&) {
    return builtin(PyExc_ValueError);
  } catch (const std::length_error&) {
    return builtin(PyExc_ValueError);
  } catch (const std::out_of_range&) {
    return builtin(PyExc_IndexError);
  } catch (const std::range_error&) {
    return builtin(PyExc_ValueError);
  } catch (const std::overflow_error&) {
    return builtin(PyExc_OverflowError);
  } catch (...) {
    return builtin(PyExc_RuntimeError);
  }
}

/// pybind11 raises an error whose text is not UTF-8 as a UnicodeDecodeError, hiding the error:
/// a text that quotes a data file's bytes, a results file's attribute or a path. Such a text is
/// raised as its own exception (python_error_type), each invalid byte replaced by U+FFFD; any
/// other exception goes on to pybind11's translators.
void translate_non_utf8_error(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const py::error_already_set&) {
    throw;
  } catch (const py::builtin_exception&) {
    throw;
  } catch (const std::exception& e) {
    const char* what = e.what();
    if (gpucap::bindings::is_utf8(what, std::strlen(what))) throw;
    const py::object type = python_error_type(error);
    const py::str text = gpucap::bindings::text_from_bytes(what, std::strlen(what));
    PyErr_SetObject(type.ptr(), text.ptr());
  }
}

py::list metric_table(const gpucap::MetricInfo* info, int count) {
  py::list out;
  for (int m = 0; m < count; ++m) {
    const char* group = info[m].group == gpucap::MetricGroup::jobs             ? "jobs"
                        : info[m].group == gpucap::MetricGroup::inference      ? "inference"
                        : info[m].group == gpucap::MetricGroup::deployments    ? "deployments"
                        : info[m].group == gpucap::MetricGroup::cost_by_option ? "cost_by_option"
                        : info[m].group == gpucap::MetricGroup::llm            ? "llm"
                                                                               : "common";
    out.append(py::make_tuple(info[m].name, info[m].unit, info[m].description, group));
  }
  return out;
}

}  // namespace

void bind_decisions(py::module_& m);  // decisions.cpp

PYBIND11_MODULE(_core, m) {
  m.doc() = "gpucap's C++ engine (use the gpucap package, not this module)";
  m.attr("__version__") = gpucap::kVersion;
  // Facts the Python package reads from here instead of repeating them.
  m.attr("MOMENT_BLOCK") = gpucap::kMomentBlock;
  m.attr("MAX_SWEEP_POINTS") = gpucap::kMaxSweepPoints;
  m.attr("MAX_REPLICATIONS") = gpucap::kMaxReplications;
  m.attr("MAX_THREADS") = gpucap::kMaxThreads;
  m.attr("DEFAULT_SCENARIO_BYTES") = gpucap::InputLimits::kDefaultScenarioBytes;
  bind_select_best(m);

  // Scenario problems are ValueErrors; files that cannot be read or written, OSErrors (an input
  // file of a scenario is both); a backend that cannot run or a failed run, RuntimeErrors.
  const auto scenario_error =
      py::register_exception<gpucap::ScenarioError>(m, "ScenarioError", PyExc_ValueError);
  py::register_exception<gpucap::InputFileError>(
      m, "InputFileError", py::make_tuple(scenario_error, py::handle(PyExc_OSError)));
  py::register_exception<gpucap::OutputError>(m, "OutputError", PyExc_OSError);
  py::register_exception<ResultsFileError>(m, "ResultsFileError", PyExc_OSError);
  py::register_exception<gpucap::BackendUnavailable>(m, "BackendUnavailable", PyExc_RuntimeError);
  const auto run_error =
      py::register_exception<gpucap::RunError>(m, "RunError", PyExc_RuntimeError);
  // After RunError, so that it is tried first.
  py::register_exception<gpucap::RunCancelled>(m, "RunCancelled", run_error);
  // Last, so that it is tried first: an error text that is not UTF-8 raised as its exception
  // with U+FFFD for each invalid byte, not as a UnicodeDecodeError.
  py::register_exception_translator(&translate_non_utf8_error);

  py::class_<gpucap::bindings::CancelToken>(
      m, "CancelToken",
      "A cancel its holder can trigger from any thread: pass it as cancel= to gpucap.run "
      "(sweep, select_best, robust_plan); cancel() stops the run at its next replication (a "
      "device: batch) and the run raises gpucap.RunCancelled. Once cancelled it stays cancelled.")
      .def(py::init<>())
      .def("cancel", &gpucap::bindings::CancelToken::cancel,
           "Cancels every run given this token (now or later); safe from any thread")
      .def_property_readonly("cancelled", &gpucap::bindings::CancelToken::cancelled,
                             "whether cancel() was called")
      .def("__repr__", [](const gpucap::bindings::CancelToken& t) {
        return std::string("CancelToken(cancelled=") + (t.cancelled() ? "True" : "False") + ")";
      });
  m.def(
      "cancel_runs",
      [](bool daemon_only, bool at_exit) {
        return gpucap::bindings::ActiveCalls::instance().cancel(
            daemon_only, at_exit ? "the interpreter's exit" : "gpucap.cancel_runs()");
      },
      py::arg("daemon_only") = false, py::arg("at_exit") = false,
      "Cancels the runs in progress in this process (only those on daemon threads when "
      "daemon_only); returns how many. Each raises gpucap.RunCancelled once it has stopped, "
      "naming gpucap.cancel_runs() or, with at_exit, the interpreter's exit");
  m.def(
      "wait_for_runs",
      [](double timeout_s) {
        py::gil_scoped_release release;
        return gpucap::bindings::ActiveCalls::instance().wait_idle(timeout_s);
      },
      py::arg("timeout_s"),
      "Waits, the GIL released, until no run is in progress or timeout_s has passed; returns "
      "whether none is");
  m.def(
      "runs_in_progress", [] { return gpucap::bindings::ActiveCalls::instance().size(); },
      "How many runs (calls that run replications) are in progress in this process");
  bind_robust_plan(m);

  py::class_<gpucap::Scenario>(m, "Scenario", "A validated scenario (C++ gpucap::Scenario)")
      .def_readonly("name", &gpucap::Scenario::name)
      .def_readonly("source_text", &gpucap::Scenario::source_text)
      .def_readonly("original_text", &gpucap::Scenario::original_text)
      .def_readonly("overrides", &gpucap::Scenario::overrides)
      .def_property_readonly("input_files",
                             [](const gpucap::Scenario& s) {
                               py::list paths;
                               for (const std::string& path : s.input_files)
                                 paths.append(gpucap::bindings::path_from_bytes(path));
                               return paths;
                             })
      .def_property_readonly(
          "data_files", [](const gpucap::Scenario& s) { return data_file_dicts(s.data_files); })
      .def_readonly("seed", &gpucap::Scenario::seed)
      .def_readonly("replications", &gpucap::Scenario::replications)
      .def_readonly("horizon_s", &gpucap::Scenario::horizon_s)
      .def_readonly("warmup_s", &gpucap::Scenario::warmup_s)
      .def_property_readonly("pool_names",
                             [](const gpucap::Scenario& s) {
                               std::vector<std::string> names;
                               for (const auto& p : s.pools) names.push_back(p.name);
                               return names;
                             })
      .def_property_readonly("workload_names", [](const gpucap::Scenario& s) {
        std::vector<std::string> names;
        for (const auto& w : s.workloads) names.push_back(w.name);
        return names;
      });

  m.def(
      "parse_scenario",
      [](const std::string& text, const std::string& origin, const std::string& base_dir,
         const std::vector<std::string>& overrides, std::optional<uint64_t> max_scenario_bytes,
         std::optional<uint64_t> max_data_bytes) {
        return gpucap::parse_scenario(text, origin, base_dir, overrides,
                                      input_limits(max_scenario_bytes, max_data_bytes));
      },
      py::arg("text"), py::arg("origin"), py::arg("base_dir"),
      py::arg("overrides") = std::vector<std::string>{}, py::arg("max_scenario_bytes") = py::none(),
      py::arg("max_data_bytes") = py::none(),
      "Parses and validates YAML text; raises ScenarioError with file:line:column and key path");
  m.def(
      "load_scenario",
      [](const std::string& path, const std::vector<std::string>& overrides,
         std::optional<uint64_t> max_scenario_bytes, std::optional<uint64_t> max_data_bytes) {
        return gpucap::load_scenario(path, overrides,
                                     input_limits(max_scenario_bytes, max_data_bytes));
      },
      py::arg("path"), py::arg("overrides") = std::vector<std::string>{},
      py::arg("max_scenario_bytes") = py::none(), py::arg("max_data_bytes") = py::none(),
      "Reads (regular files within the byte limits only) and validates a scenario file");

  py::class_<gpucap::RunResults, ResultsPtr>(m, "Results", "Results of a run (C++ RunResults)")
      .def_readonly("gpucap_version", &gpucap::RunResults::gpucap_version)
      .def_readonly("scenario_name", &gpucap::RunResults::scenario_name)
      .def_readonly("scenario_text", &gpucap::RunResults::scenario_text)
      .def_readonly("scenario_original_text", &gpucap::RunResults::scenario_original_text)
      .def_readonly("scenario_overrides", &gpucap::RunResults::scenario_overrides)
      .def_readonly("backend", &gpucap::RunResults::backend)
      .def_readonly("device", &gpucap::RunResults::device)
      .def_readonly("backend_choice", &gpucap::RunResults::backend_choice)
      .def_readonly("seed", &gpucap::RunResults::seed)
      .def_readonly("points", &gpucap::RunResults::points)
      .def_readonly("replications", &gpucap::RunResults::replications)
      .def_property_readonly(
          "kept_replications", &gpucap::RunResults::rows_per_point,
          "replications per point whose rows are kept (all unless the run kept fewer, rows=)")
      .def_readonly("first_replication", &gpucap::RunResults::first_replication)
      .def_readonly("threads", &gpucap::RunResults::threads)
      .def_readonly("wall_time_s", &gpucap::RunResults::wall_time_s)
      .def_readonly("pool_names", &gpucap::RunResults::pool_names)
      .def_property_readonly(
          "data_files", [](const gpucap::RunResults& r) { return data_file_dicts(r.data_files); })
      .def_property_readonly("sweep",
                             [](const gpucap::RunResults& r) {
                               std::vector<std::pair<std::string, std::vector<std::string>>> out;
                               for (const auto& p : r.sweep) out.emplace_back(p.path, p.values);
                               return out;
                             })
      .def_property_readonly(
          "scalars",
          [](py::object self) {
            const auto& r = self.cast<const gpucap::RunResults&>();
            return view(r.scalars,
                        {static_cast<py::ssize_t>(r.points),
                         static_cast<py::ssize_t>(r.rows_per_point()), gpucap::kScalarMetricCount},
                        self);
          },
          "per-replication metrics [points, replications, metrics], a read-only view (no copy)")
      .def_property_readonly(
          "pool_values",
          [](py::object self) {
            const auto& r = self.cast<const gpucap::RunResults&>();
            return view(
                r.pool_values,
                {static_cast<py::ssize_t>(r.points), static_cast<py::ssize_t>(r.rows_per_point()),
                 static_cast<py::ssize_t>(r.pool_count()), gpucap::kPoolMetricCount},
                self);
          },
          "per-replication pool metrics [points, replications, pools, metrics], read-only view")
      .def_readonly("timeseries_step_s", &gpucap::RunResults::timeseries_step_s)
      .def_property_readonly(
          "timeseries",
          [](py::object self) -> py::object {
            const auto& r = self.cast<const gpucap::RunResults&>();
            if (r.timeseries_bins == 0) return py::none();
            return view(
                r.timeseries,
                {static_cast<py::ssize_t>(r.points), static_cast<py::ssize_t>(r.rows_per_point()),
                 static_cast<py::ssize_t>(r.pool_count()),
                 static_cast<py::ssize_t>(r.timeseries_bins)},
                self);
          },
          "GPUs in use [points, replications, pools, bins] (read-only view), or None")
      .def_property_readonly(
          "summary",
          [](const gpucap::RunResults& r) {
            return summary_array(r.summary,
                                 {static_cast<py::ssize_t>(r.points), gpucap::kScalarMetricCount});
          },
          "[points, metrics, 7]: mean, std, ci95_low, ci95_high, p5, p50, p95")
      .def_property_readonly(
          "summary_n",
          [](const gpucap::RunResults& r) {
            return summary_counts(r.summary,
                                  {static_cast<py::ssize_t>(r.points), gpucap::kScalarMetricCount});
          },
          "[points, metrics]: the replications where each metric is defined (not NaN)")
      .def_property_readonly(
          "pool_summary_n",
          [](const gpucap::RunResults& r) {
            return summary_counts(r.pool_summary, {static_cast<py::ssize_t>(r.points),
                                                   static_cast<py::ssize_t>(r.pool_count()),
                                                   gpucap::kPoolMetricCount});
          },
          "[points, pools, metrics]: the replications where each pool metric is defined")
      .def_property_readonly(
          "pool_summary",
          [](const gpucap::RunResults& r) {
            return summary_array(r.pool_summary, {static_cast<py::ssize_t>(r.points),
                                                  static_cast<py::ssize_t>(r.pool_count()),
                                                  gpucap::kPoolMetricCount});
          },
          "[points, pools, metrics, 7]")
      .def(
          "paired_difference",
          [](const gpucap::RunResults& r, int metric, std::size_t a, std::size_t b) {
            if (metric < 0 || metric >= gpucap::kScalarMetricCount || a >= r.points ||
                b >= r.points)
              throw std::out_of_range("paired_difference: metric or point out of range");
            const gpucap::MetricSummary s =
                gpucap::paired_difference(r, static_cast<gpucap::ScalarMetric>(metric), a, b);
            return py::make_tuple(s.n, s.mean, s.std);
          },
          py::arg("metric"), py::arg("a"), py::arg("b"),
          "(n, mean, std) of metric at point a minus point b, replication by replication")
      .def(
          "save",
          [](const gpucap::RunResults& r, const std::string& path, bool force) {
            gpucap::OutputOptions options;
            options.force = force;
            gpucap::OutputReport report;
            {
              py::gil_scoped_release release;
              // One writer per output: a CLI run writing `path` holds its lock (the save then
              // fails naming that run's process), and holds off while this save writes.
              std::unique_ptr<gpucap::OutputLock> lock;
              try {
                lock = gpucap::OutputLock::acquire(path);
              } catch (const std::runtime_error& e) {
                throw gpucap::OutputError(e.what());
              }
              report = gpucap::write_results_hdf5(r, path, options);
            }
            return report.removed_stale;
          },
          py::arg("path"), py::arg("force") = false,
          "Writes the HDF5 file atomically, under the output's lock (PATH.lock, as gpucap run "
          "-o takes it); returns stale temporary files it removed")
      .def_static("load",
                  [](const std::string& path) {
                    try {
                      return std::make_shared<gpucap::RunResults>(gpucap::read_results_hdf5(path));
                    } catch (const std::bad_alloc&) {
                      throw ResultsFileError("cannot read HDF5 results file '" + path +
                                             "': it describes more data than fits in memory");
                    } catch (const std::runtime_error& e) {
                      throw ResultsFileError(e.what());
                    }
                  })
      .def_static(
          "from_arrays",
          [](const gpucap::RunResults& like, py::array_t<double, py::array::c_style> scalars,
             py::array_t<double, py::array::c_style> pool_values, uint64_t first_replication,
             const std::string& backend, const std::string& device, int threads, double wall_time_s,
             std::optional<py::array_t<double, py::array::c_style>> series) {
            if (scalars.ndim() != 3 || scalars.shape(0) != static_cast<py::ssize_t>(like.points) ||
                scalars.shape(2) != gpucap::kScalarMetricCount)
              throw std::invalid_argument("scalars must be [points, replications, metrics]");
            if (pool_values.ndim() != 4 || pool_values.shape(1) != scalars.shape(1) ||
                pool_values.shape(0) != scalars.shape(0) ||
                pool_values.shape(2) != static_cast<py::ssize_t>(like.pool_count()) ||
                pool_values.shape(3) != gpucap::kPoolMetricCount)
              throw std::invalid_argument(
                  "pool_values must be [points, replications, pools, metrics]");
            auto r = std::make_shared<gpucap::RunResults>(like);
            r->replications = static_cast<std::size_t>(scalars.shape(1));
            r->first_replication = first_replication;
            r->backend = backend;
            r->device = device;
            r->threads = threads;
            r->wall_time_s = wall_time_s;
            r->scalars.assign(scalars.data(), scalars.data() + scalars.size());
            r->pool_values.assign(pool_values.data(), pool_values.data() + pool_values.size());
            r->timeseries.clear();
            if (like.timeseries_bins > 0) {
              if (!series || series->size() !=
                                 static_cast<py::ssize_t>(r->points * r->replications *
                                                          r->pool_count() * like.timeseries_bins))
                throw std::invalid_argument(
                    "timeseries must be [points, replications, pools, bins]");
              r->timeseries.assign(series->data(), series->data() + series->size());
            }
            r->block_moments.clear();
            r->summarize_all();
            return r;
          },
          py::arg("like"), py::arg("scalars"), py::arg("pool_values"), py::arg("first_replication"),
          py::arg("backend"), py::arg("device"), py::arg("threads"), py::arg("wall_time_s"),
          py::arg("timeseries") = py::none(),
          "Results with the metadata of `like` and these rows, summarized (merging chunks)");

  m.def(
      "run_chunk_summary",
      [](const std::vector<gpucap::Scenario>& points,
         const std::vector<std::pair<std::string, std::vector<std::string>>>& sweep, uint64_t first,
         uint64_t count, std::optional<uint64_t> seed, const std::string& backend, int threads) {
        gpucap::RunOptions options;
        options.replications = count;
        options.first_replication = first;
        if (seed) {
          options.seed = *seed;
          options.has_seed = true;
        }
        options.backend = gpucap::parse_backend(backend);
        options.threads = threads;
        std::vector<gpucap::SweepParameter> grid;
        for (const auto& [path, values] : sweep) grid.push_back({path, values});
        std::string bytes;
        gpucap::RunResults ran;
        gpucap::RunMonitor monitor;
        options.monitor = &monitor;
        gpucap::bindings::call_cancellable(monitor, [&] {
          bytes =
              gpucap::run_chunk_summary(points, grid, points.front(), options, &ran).serialize();
        });
        return py::make_tuple(py::bytes(bytes), ran.backend, ran.device, ran.threads);
      },
      py::arg("points"), py::arg("sweep"), py::arg("first"), py::arg("count"), py::arg("seed"),
      py::arg("backend"), py::arg("threads"),
      "Replications [first, first + count) of the points summarized in chunks, no rows kept: "
      "(chunk summary bytes, backend, device, threads), a cluster worker's answer for "
      "rows='none'");
  // Chunk summaries folded as they arrive (a cluster's answers, in replication order): the
  // driver holds one fold, not every chunk.
  struct ChunkFold {
    gpucap::RunResults described;
    gpucap::SummaryFold fold;
    explicit ChunkFold(gpucap::RunResults r) : described(std::move(r)), fold(described) {}
  };
  py::class_<ChunkFold>(m, "ChunkFold")
      .def(py::init([](const std::vector<gpucap::Scenario>& points, const SweepArg& sweep,
                       const gpucap::Scenario& base, uint64_t replications,
                       std::optional<uint64_t> seed) {
             gpucap::RunResults r = describe(points, sweep, base, replications, seed);
             r.kept_rows = 0;
             return std::make_unique<ChunkFold>(std::move(r));
           }),
           py::arg("points"), py::arg("sweep"), py::arg("base"), py::arg("replications"),
           py::arg("seed"))
      .def(
          "add",
          [](ChunkFold& f, const py::bytes& chunk) {
            f.fold.add(gpucap::ChunkSummary::deserialize(std::string(chunk)));
          },
          py::arg("chunk"), "folds the next chunk summary (run_chunk_summary's bytes)")
      .def(
          "finish",
          [](ChunkFold& f, const std::string& backend, const std::string& device, int threads,
             double wall_time_s) {
            if (f.fold.replications() != f.described.replications)
              throw std::invalid_argument("the chunk summaries cover " +
                                          std::to_string(f.fold.replications()) +
                                          " replications of the " +
                                          std::to_string(f.described.replications) + " asked for");
            auto r = std::make_shared<gpucap::RunResults>(f.described);
            f.fold.finish(*r);
            r->evaluate_goals();
            r->backend = backend;
            r->device = device;
            r->threads = threads;
            r->wall_time_s = wall_time_s;
            return r;
          },
          py::arg("backend"), py::arg("device"), py::arg("threads"), py::arg("wall_time_s"),
          "Results (summaries, no rows) of the chunks folded: the same bits as a local run with "
          "rows='none'");
  m.def(
      "describe_run",
      [](const std::vector<gpucap::Scenario>& points, const SweepArg& sweep,
         const gpucap::Scenario& base, uint64_t replications, std::optional<uint64_t> seed) {
        return std::make_shared<gpucap::RunResults>(
            describe(points, sweep, base, replications, seed));
      },
      py::arg("points"), py::arg("sweep"), py::arg("base"), py::arg("replications"),
      py::arg("seed"), "The metadata of a run, with no rows (chunks are merged into it)");

  m.def(
      "data_cache_stats",
      [] {
        const gpucap::DataFileCacheStats st = gpucap::data_file_cache_stats();
        py::dict d;
        d["reads"] = st.reads;
        d["hits"] = st.hits;
        d["rehashes"] = st.rehashes;
        d["entries"] = st.entries;
        d["bytes"] = st.bytes;
        d["budget_bytes"] = st.budget_bytes;
        d["csv_parses"] = gpucap::CsvTable::structure_parses();
        d["csv_column_parses"] = gpucap::CsvTable::column_parses();
        return d;
      },
      "Counters of this process's data file cache (each data file is read and parsed once per "
      "process): reads (from disk), hits, rehashes (hits verified by SHA-256), entries, bytes, "
      "budget_bytes, csv_parses and csv_column_parses");
  m.def("clear_data_cache", &gpucap::clear_data_file_cache,
        "Empties this process's data file cache and zeroes its counters");
  m.def("run", &run_points, py::arg("points"), py::arg("sweep"), py::arg("base"),
        py::arg("replications"), py::arg("seed"), py::arg("first_replication"), py::arg("backend"),
        py::arg("threads"), py::arg("progress"), py::arg("precision") = 0.0,
        py::arg("precision_metrics") = std::vector<std::string>{}, py::arg("max_replications") = 0,
        py::arg("keep_rows") = py::none(), py::arg("devices") = std::vector<int>{},
        py::arg("cancel") = nullptr, py::arg("host_threads") = 0,
        "Runs the points (sweep variants) with common random numbers; GIL released, Ctrl-C "
        "or the CancelToken cancel= cancels; precision > 0 applies the stopping rule; "
        "keep_rows: the rows of the first keep_rows replications per point (None: all), "
        "summaries of all; devices: the device backend's devices to use (empty: all); "
        "host_threads: CPU threads beside a device backend's devices (0: none)");
  m.def("student_t_quantile", &gpucap::student_t_quantile, py::arg("confidence"), py::arg("dof"),
        "two-sided Student t quantile, e.g. 1.96 for 0.95 and many degrees of freedom");
  m.def(
      "parse_grid_axis",
      [](const std::string& text) {
        const gpucap::SweepAxis a = gpucap::parse_grid_axis(text);
        return std::make_pair(a.path, a.values);
      },
      py::arg("text"), "(path, values) of a --grid argument 'path=v1,v2,...'");
  m.def(
      "expand_grid",
      [](const std::vector<std::pair<std::string, std::vector<std::string>>>& axes,
         const std::string& grid_name) {
        std::vector<gpucap::SweepAxis> in;
        for (const auto& [path, values] : axes) in.push_back({path, values});
        std::vector<std::pair<std::string, std::vector<std::string>>> out;
        for (gpucap::SweepParameter& p : gpucap::expand_grid(in, grid_name))
          out.emplace_back(std::move(p.path), std::move(p.values));
        return out;
      },
      py::arg("axes"), py::arg("grid_name") = "--grid",
      "The cartesian product of [(path, values)], first axis slowest, as [(path, value at each "
      "point)] (the CLI's expansion); ScenarioError (messages start with grid_name) for a path "
      "named twice, an axis without values or more than MAX_SWEEP_POINTS points");
  m.def("scalar_metrics",
        [] { return metric_table(gpucap::kScalarMetricInfo, gpucap::kScalarMetricCount); });
  m.def("pool_metrics",
        [] { return metric_table(gpucap::kPoolMetricInfo, gpucap::kPoolMetricCount); });
  m.def(
      "scenario_keys",
      [] {
        py::list rows;
        for (const gpucap::ScenarioKey& k : gpucap::scenario_keys()) {
          // One row per key: the first row of a key shown in several doc tables.
          if (gpucap::find_scenario_key(k.path) != &k) continue;
          const gpucap::KeyBound hi = gpucap::scenario_key_upper(k);
          py::dict row;
          row["path"] = k.path;
          row["type"] =
              k.type == gpucap::KeyType::choice ? "choice" : gpucap::key_type_name(k.type);
          row["unit_kind"] = gpucap::unit_kind_name(k.unit);
          row["unit"] = k.unit_text;
          row["min"] = k.lo.value;
          row["min_open"] = k.lo.open;
          row["max"] = hi.value;
          row["max_open"] = hi.open;
          row["range"] = gpucap::describe_key_range(k);
          row["choices"] = k.choices;
          row["default"] = k.default_text;
          row["applies"] = scenario_key_applies_text(k);
          row["valid"] = k.valid_note;
          row["description"] = k.description;
          rows.append(row);
        }
        return rows;
      },
      "every scenario key of the key table the loader reads, as dicts");
  m.def(
      "results_file_layout",
      [] {
        py::list rows;
        for (const gpucap::Hdf5Item* item : gpucap::kHdf5Layout) {
          py::dict row;
          row["kind"] = item->kind == gpucap::Hdf5Kind::group     ? "group"
                        : item->kind == gpucap::Hdf5Kind::dataset ? "dataset"
                                                                  : "attribute";
          row["parent"] = item->parent;
          row["name"] = item->name;
          row["path"] = gpucap::hdf5_item_path(*item);
          row["type"] = gpucap::hdf5_type_name(item->type);
          row["shape"] = item->shape;
          row["unit"] = item->unit;
          row["presence"] = item->presence;
          row["description"] = item->description;
          rows.append(row);
        }
        return rows;
      },
      "every group, dataset and attribute of the HDF5 results file, as dicts (the table the "
      "writer and reader use)");
  m.def(
      "results_file_fields",
      [] {
        py::list rows;
        for (const gpucap::Hdf5Field* field : gpucap::kHdf5SummaryFields) {
          py::dict row;
          row["name"] = field->name;
          row["type"] = gpucap::hdf5_type_name(field->type, field->bytes);
          row["pool_only"] = field->pool_only;
          row["description"] = field->description;
          rows.append(row);
        }
        return rows;
      },
      "the fields of /summary and /pool_summary (pool_only: /pool_summary's alone)");
  m.def("scenario_schema", &gpucap::scenario_json_schema,
        "the JSON Schema (draft 2020-12) of scenario files, as text");
  m.def("explain_key", &gpucap::explain_scenario_key, py::arg("path"),
        "what `gpucap explain PATH` prints; empty for an unknown key");
  m.def(
      "result_warnings", [](const gpucap::RunResults& r) { return gpucap::result_warnings(r); },
      py::arg("results"), "what a table of these results should warn about (result_warnings.hpp)");
  m.def("explain_metric", &gpucap::explain_metric, py::arg("name"),
        "what `gpucap explain METRIC` prints; empty for an unknown metric");
  m.def(
      "backends",
      [] {
        py::dict out;
        for (const gpucap::Backend& backend : gpucap::backends())
          out[backend.name] = backend_dict(backend);
        out[gpucap::kAutoBackendName] =
            gpucap::resolve_backend(gpucap::BackendChoice::automatic).name;
        return out;
      },
      "the backend table: {name: row} in its order, then 'auto': the GPU backend auto may use "
      "(each run weighs it against the cpu: Results.backend_choice says why), or 'cpu'");
  m.def(
      "backend_choices",
      [] {
        std::vector<std::pair<std::string, std::string>> out{
            {gpucap::kAutoBackendName, gpucap::kAutoBackendDescription}};
        for (const gpucap::Backend& backend : gpucap::backends())
          out.emplace_back(backend.name, backend.description);
        return out;
      },
      "(name, description) of every backend= value: 'auto', then the table's rows in order");
  bind_decisions(m);

  bind_concat(m);
  bind_records(m);
  bind_report(m);
  bind_catalog(m);
}
