// gpucap: the results file's named dimensions (format 4): HDF5 dimension scales as netCDF-4
// writes them, so that netCDF readers (xarray with h5netcdf) see dimensions point,
// replication, pool and time with their coordinates instead of anonymous ones. The dimensions
// live in the root group; netCDF's scoping makes them visible in every group below it.
#include <hdf5_hl.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "hdf5_write.hpp"

namespace gpucap::hdf5_detail {
namespace {

/// Whether `text` is a plain decimal number (digits, sign, point, exponent: "4", "-2.5e+1"),
/// parsed whole into `value`; "inf", "nan", hexadecimal and durations ("1h") are not.
bool plain_number(const std::string& text, double& value) {
  if (text.empty() || text.size() > 64) return false;
  bool digit = false;
  for (const char ch : text) {
    if (ch >= '0' && ch <= '9')
      digit = true;
    else if (std::strchr("+-.eE", ch) == nullptr)
      return false;
  }
  if (!digit) return false;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(value);
}

/// Makes the dataset `path` (of `file`) a dimension scale named after it.
void make_scale(const Context& c, hid_t file, const std::string& path, const std::string& name) {
  Handle dset = c.dataset(H5Dopen2(file, path.c_str(), H5P_DEFAULT), "opening '" + path + "'");
  c.check_status(H5DSset_scale(dset.get(), name.c_str()),
                 "making '" + path + "' the dimension scale '" + name + "'");
}

/// Attaches the scales `scales` (paths; "" leaves that axis anonymous) to the axes of `path`.
void attach_scales(const Context& c, hid_t file, const std::string& path,
                   const std::vector<std::string>& scales) {
  Handle dset = c.dataset(H5Dopen2(file, path.c_str(), H5P_DEFAULT), "opening '" + path + "'");
  for (std::size_t axis = 0; axis < scales.size(); ++axis) {
    if (scales[axis].empty()) continue;
    Handle scale = c.dataset(H5Dopen2(file, scales[axis].c_str(), H5P_DEFAULT),
                             "opening '" + scales[axis] + "'");
    c.check_status(
        H5DSattach_scale(dset.get(), scale.get(), static_cast<unsigned>(axis)),
        "attaching '" + scales[axis] + "' to axis " + std::to_string(axis) + " of '" + path + "'");
  }
}

/// Writes a one-dimensional float64 dataset `name` in `loc` with its unit and description.
void write_coordinate(const Context& c, hid_t loc, const std::string& full, const char* name,
                      const std::vector<double>& values, const char* unit,
                      const std::string& description) {
  const std::string what = "dataset '" + full + "'";
  Handle space = make_space(c, {values.size()});
  Handle dcpl = checksummed_rows(c, values.size(), what);
  Handle dset = c.dataset(
      H5Dcreate2(loc, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
      "creating " + what);
  if (!values.empty())
    c.check_status(
        H5Dwrite(dset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
        "writing " + what);
  write_string_attr(c, dset.get(), full, h5::kMetricUnit.name, unit);
  write_string_attr(c, dset.get(), full, h5::kMetricDescription.name, description);
}

/// Whether a sweep path can name a root dataset that netCDF readers take as a coordinate: no
/// '/', no white space (the `coordinates` attribute separates names by spaces), not a name the
/// root group already has.
bool usable_coordinate_name(const std::string& path) {
  if (path.empty() || path == "." || path == "..") return false;
  for (const char ch : path)
    if (ch == '/' || std::isspace(static_cast<unsigned char>(ch)) || ch == '\0') return false;
  for (const Hdf5Item* item : kHdf5Layout)
    if (std::strcmp(item->parent, "/") == 0 && path == item->name) return false;
  return true;
}


}  // namespace

/// The coordinate datasets and dimension scales of format 4, attached to every array dataset.
void write_dimensions(const Context& c, hid_t file, const RunResults& r) {
  const std::size_t points = r.points, reps = r.rows_per_point();
  {
    std::vector<uint64_t> indices(points);
    for (std::size_t p = 0; p < points; ++p) indices[p] = p;
    write_uint64_dataset(c, file, h5::kPointCoordinate, indices);
    indices.resize(reps);
    for (std::size_t i = 0; i < reps; ++i) indices[i] = r.first_replication + i;
    write_uint64_dataset(c, file, h5::kReplicationCoordinate, indices);
  }
  write_strings_dataset(c, file, h5::kPoolCoordinate, r.pool_names, {r.pool_count()});
  const std::string point = hdf5_item_path(h5::kPointCoordinate);
  const std::string replication = hdf5_item_path(h5::kReplicationCoordinate);
  const std::string pool = hdf5_item_path(h5::kPoolCoordinate);
  const std::string time = hdf5_item_path(h5::kTimeCoordinate);
  make_scale(c, file, point, h5::kPointCoordinate.name);
  make_scale(c, file, replication, h5::kReplicationCoordinate.name);
  make_scale(c, file, pool, h5::kPoolCoordinate.name);
  if (r.timeseries_bins > 0) {
    std::vector<double> starts(r.timeseries_bins);
    for (std::size_t b = 0; b < starts.size(); ++b)
      starts[b] = static_cast<double>(b) * r.timeseries_step_s;
    write_coordinate(c, file, time, h5::kTimeCoordinate.name, starts, h5::kTimeCoordinate.unit,
                     h5::kTimeCoordinate.description);
    make_scale(c, file, time, h5::kTimeCoordinate.name);
  }

  // The sweep parameters as coordinates along point: numbers when every value is one.
  std::string coordinates;
  for (const SweepParameter& p : r.sweep) {
    if (!usable_coordinate_name(p.path) ||
        H5Lexists(file, p.path.c_str(), H5P_DEFAULT) != 0)  // taken (or a repeated path)
      continue;
    std::vector<double> numbers(p.values.size());
    bool numeric = true;
    for (std::size_t i = 0; i < p.values.size() && numeric; ++i)
      numeric = plain_number(p.values[i], numbers[i]);
    const std::string full = "/" + p.path;
    if (numeric) {
      write_coordinate(c, file, full, p.path.c_str(), numbers, "",
                       "sweep parameter " + p.path + " at each point");
    } else {
      write_strings_dataset(c, file, "/", p.path.c_str(), p.values, {points});
      Handle dset =
          c.dataset(H5Dopen2(file, p.path.c_str(), H5P_DEFAULT), "opening '" + full + "'");
      write_string_attr(c, dset.get(), full, h5::kMetricUnit.name, "");
      write_string_attr(c, dset.get(), full, h5::kMetricDescription.name,
                        "sweep parameter " + p.path + " at each point");
    }
    attach_scales(c, file, full, {point});
    coordinates += (coordinates.empty() ? "" : " ") + p.path;
  }
  if (!coordinates.empty()) write_string_attr(c, file, h5::kCoordinates, coordinates);

  // Every array dataset's axes.
  for (const MetricInfo& m : kScalarMetricInfo)
    attach_scales(c, file, join_path(h5::kScalarMetric.parent, m.name), {point, replication});
  for (const MetricInfo& m : kPoolMetricInfo)
    attach_scales(c, file, join_path(h5::kPoolMetric.parent, m.name), {point, replication, pool});
  attach_scales(c, file, hdf5_item_path(h5::kPoolNames), {pool});
  if (r.timeseries_bins > 0)
    attach_scales(c, file, hdf5_item_path(h5::kGpusInUse), {point, replication, pool, time});
  // The summary tables and the data files' table index themselves: a row's dimension is its table.
  make_scale(c, file, hdf5_item_path(h5::kSummary), h5::kSummary.name);
  make_scale(c, file, hdf5_item_path(h5::kPoolSummary), h5::kPoolSummary.name);
  if (H5Lexists(file, h5::kSettlingGroup.name, H5P_DEFAULT) > 0) {  // the probe's series: [P * B]
    make_scale(c, file, hdf5_item_path(h5::kSettlingMean), h5::kSettlingMean.name);
    if (H5Lexists(file, hdf5_item_path(h5::kSettlingWaiting).c_str(), H5P_DEFAULT) > 0)
      make_scale(c, file, hdf5_item_path(h5::kSettlingWaiting), h5::kSettlingWaiting.name);
  }
  const std::string input = hdf5_item_path(h5::kInputPath);
  make_scale(c, file, input, h5::kInputPath.name);
  for (const Hdf5Item* item : {&h5::kInputResolvedPath, &h5::kInputSize, &h5::kInputSha256})
    attach_scales(c, file, hdf5_item_path(*item), {input});
  if (!r.sweep.empty()) {
    const std::string paths = hdf5_item_path(h5::kSweepPaths);
    make_scale(c, file, paths, h5::kSweepPaths.name);
    attach_scales(c, file, hdf5_item_path(h5::kSweepValues), {paths, point});
  }
}

}  // namespace gpucap::hdf5_detail
