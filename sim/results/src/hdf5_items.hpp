// gpucap: the generic walkers of the results file's plain rows (private to sim/results/src).
// Each plain row of the layout table (gpucap/hdf5_layout.hpp) is bound, in hdf5_items.cpp, to
// its value in RunResults: a scalar or string attribute to a field of the results, a column of
// /inputs, /goals or /jobs to a field of its records. The writer and the reader walk those
// bindings instead of spelling each row; rows that need real logic keep code of their own
// (see gpucap/detail/hdf5_item_handling.hpp for which, and why).
#pragma once
#include <vector>

#include "gpucap/results.hpp"
#include "hdf5_handles.hpp"

namespace gpucap::hdf5_detail {

/// Writes the plain attributes of the group `group` (h5::kRoot, kPoolsGroup, kTimeseriesGroup,
/// kSweepGroup, kJobsGroup) on `loc`, in their table's order.
void write_plain_attributes(const Context& c, hid_t loc, const Hdf5Item& group,
                            const RunResults& r);

/// Reads the plain attributes of `group` from `loc` into `r`: those a file of `format` has
/// (the optional ones when present), checked as they are stored (counts bounded before they
/// size anything).
void read_plain_attributes(const Context& c, hid_t loc, const Hdf5Item& group, RunResults& r,
                           int format);

/// Writes the plain columns of a table of records in `loc`, one dataset of records.size() rows
/// per column, in their table's order: /inputs, the strings of /goals, the columns of /jobs.
void write_plain_columns(const Context& c, hid_t loc, const std::vector<DataFileRecord>& records);
void write_plain_columns(const Context& c, hid_t loc, const std::vector<GoalSpec>& records);
void write_plain_columns(const Context& c, hid_t loc, const std::vector<JobRecord>& records);

/// Reads those columns (`n` rows each; `records` resized to n) from `loc`; `r` holds what is
/// read already (the pool names that goals' conditions name).
void read_plain_columns(const Context& c, hid_t loc, const RunResults& r, hsize_t n,
                        std::vector<DataFileRecord>& records);
void read_plain_columns(const Context& c, hid_t loc, const RunResults& r, hsize_t n,
                        std::vector<GoalSpec>& records);
void read_plain_columns(const Context& c, hid_t loc, const RunResults& r, hsize_t n,
                        std::vector<JobRecord>& records);

}  // namespace gpucap::hdf5_detail
