// gpucap._core.concat_results: joins results of one scenario and seed (gpucap/concat.hpp).
// Its own file so that the module's other bindings (core.cpp) change independently.
#include "gpucap/concat.hpp"

#include <memory>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <stdexcept>
#include <string>
#include <vector>

#include "text_caster.hpp"

namespace py = pybind11;

void bind_concat(py::module_& m) {
  m.def(
      "concat_results",
      [](const std::vector<std::shared_ptr<gpucap::RunResults>>& parts, const std::string& dim) {
        gpucap::ConcatAxis axis;
        if (dim == "point")
          axis = gpucap::ConcatAxis::points;
        else if (dim == "replication")
          axis = gpucap::ConcatAxis::replications;
        else
          throw std::invalid_argument("concat: dim is '" + dim +
                                      "'; valid: 'point' or 'replication'");
        std::vector<const gpucap::RunResults*> pointers;
        for (const auto& p : parts) pointers.push_back(p.get());
        std::shared_ptr<gpucap::RunResults> out;
        {
          py::gil_scoped_release release;
          out = std::make_shared<gpucap::RunResults>(gpucap::concat_results(pointers, axis));
        }
        return out;
      },
      py::arg("parts"), py::arg("dim"),
      "Results of one scenario and seed joined along 'point' or 'replication', summaries "
      "recomputed (the same bits as one run of the whole)");
}
