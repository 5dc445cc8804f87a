// gpucap._core: the HTML report of results (gpucap/report/report_page.hpp), for
// Results.report in the Python package.
#include <optional>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <string>
#include <vector>

#include "gpucap/output_file.hpp"
#include "gpucap/report/report_page.hpp"
#include "gpucap/results.hpp"

#include "text_caster.hpp"

namespace py = pybind11;

namespace {

gpucap::report::ReportOptions report_options(const std::string& objective,
                                             const std::optional<std::string>& versus,
                                             const std::vector<std::string>& constraints,
                                             const std::vector<std::string>& chance,
                                             bool conservative) {
  gpucap::report::ReportOptions options;
  options.objective = objective;
  if (versus) options.versus = *versus;
  options.constraints = constraints;
  options.chance = chance;
  options.conservative = conservative;
  return options;
}

}  // namespace

/// Adds render_report and write_report to the module (called from core.cpp's PYBIND11_MODULE,
/// after the Results class is registered). Unknown metric names raise ValueError; refused
/// outputs gpucap.OutputError (an OSError).
void bind_report(py::module_& m) {
  m.def(
      "render_report",
      [](const gpucap::RunResults& results, const std::string& objective,
         const std::optional<std::string>& versus, const std::vector<std::string>& constraints,
         const std::vector<std::string>& chance, bool conservative) {
        return gpucap::report::render_report(
            results, report_options(objective, versus, constraints, chance, conservative));
      },
      py::arg("results"), py::arg("objective") = "cost", py::arg("versus") = py::none(),
      py::arg("constraints") = std::vector<std::string>(),
      py::arg("chance") = std::vector<std::string>(), py::arg("conservative") = false,
      "The self-contained HTML report of the results, as text");
  m.def(
      "write_report",
      [](const gpucap::RunResults& results, const std::string& path, const std::string& objective,
         const std::optional<std::string>& versus, bool force,
         const std::vector<std::string>& constraints, const std::vector<std::string>& chance,
         bool conservative) {
        gpucap::OutputOptions output;
        output.force = force;
        const gpucap::report::ReportOptions options =
            report_options(objective, versus, constraints, chance, conservative);
        gpucap::OutputReport written;
        {
          py::gil_scoped_release release;
          written = gpucap::report::write_report(results, path, options, output);
        }
        return written.removed_stale;
      },
      py::arg("results"), py::arg("path"), py::arg("objective") = "cost",
      py::arg("versus") = py::none(), py::arg("force") = false,
      py::arg("constraints") = std::vector<std::string>(),
      py::arg("chance") = std::vector<std::string>(), py::arg("conservative") = false,
      "Writes the HTML report atomically; returns stale temporary files it removed");
}
