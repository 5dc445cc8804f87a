// gpucap._core: reading a price catalog (gpucap/data/catalog_list.hpp) for gpucap.catalog() in
// the Python package: the CLI's bounded, checked reader (`gpucap catalog list`) and its
// matching (GPU model and provider case-insensitive), so both give the same rows.
#include <cmath>
#include <cstdint>
#include <limits>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/data/catalog_list.hpp"
#include "gpucap/data/line_reader.hpp"
#include "gpucap/input_file.hpp"

#include "text_caster.hpp"

namespace py = pybind11;

/// Adds read_catalog to the module (called from core.cpp's PYBIND11_MODULE). A file that
/// cannot be read (missing, a FIFO, a device, over max_bytes) raises gpucap.InputFileError (an
/// OSError); a file that is not a price catalog raises ValueError naming file, line and column.
void bind_catalog(py::module_& m) {
  m.def(
      "read_catalog",
      [](const std::string& path, const std::string& gpu, const std::string& provider,
         const std::string& region, bool by_spot, uint64_t max_bytes) {
        std::vector<gpucap::data::CatalogEntry> rows;
        {
          py::gil_scoped_release release;
          try {
            gpucap::data::CatalogFilter filter;
            filter.gpu = gpu;
            filter.provider = provider;
            filter.region = region;
            filter.by_spot = by_spot;
            rows = gpucap::data::select_catalog_rows(
                gpucap::data::read_price_catalog(path, max_bytes), filter);
          } catch (const gpucap::data::DataFileError& e) {
            throw std::invalid_argument(std::string("not a usable price catalog: ") + e.what());
          }
        }
        const double nan = std::numeric_limits<double>::quiet_NaN();
        py::dict columns;
        std::vector<std::string> key, provider_, instance_type, region_, gpu_model, source,
            retrieved;
        std::vector<double> gpu_count, memory, on_demand, spot_price;
        for (const gpucap::data::CatalogEntry& e : rows) {
          key.push_back(e.key);
          provider_.push_back(e.provider);
          instance_type.push_back(e.instance_type);
          region_.push_back(e.region);
          gpu_model.push_back(e.gpu_model);
          gpu_count.push_back(e.gpu_count ? static_cast<double>(e.gpu_count) : nan);
          memory.push_back(e.gpu_memory_gb);
          on_demand.push_back(e.on_demand_usd_per_gpu_hour);
          spot_price.push_back(e.spot_usd_per_gpu_hour < 0 ? nan : e.spot_usd_per_gpu_hour);
          source.push_back(e.source);
          retrieved.push_back(e.retrieved);
        }
        columns["key"] = key;
        columns["provider"] = provider_;
        columns["instance_type"] = instance_type;
        columns["region"] = region_;
        columns["gpu_model"] = gpu_model;
        columns["gpu_count"] = gpu_count;
        columns["gpu_memory_gb"] = memory;
        columns["on_demand_usd_per_gpu_hour"] = on_demand;
        columns["spot_usd_per_gpu_hour"] = spot_price;
        columns["source"] = source;
        columns["retrieved"] = retrieved;
        return columns;
      },
      py::arg("path"), py::arg("gpu") = "", py::arg("provider") = "", py::arg("region") = "",
      py::arg("by_spot") = false, py::arg("max_bytes") = gpucap::InputLimits::kDefaultDataBytes,
      "The rows of a price catalog that match (gpu, provider: case-insensitive; region: exact; "
      "by_spot: rows with a spot price, cheapest spot first), cheapest first, as columns");
}
