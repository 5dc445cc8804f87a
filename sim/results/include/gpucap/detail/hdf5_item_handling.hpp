// gpucap: how the HDF5 results file's writer and reader handle each row of the layout table
// (gpucap/hdf5_layout.hpp). Plain rows (a scalar or string attribute, a column of a table of
// records) are written and read by generic walkers over tables that bind each row to its value
// in RunResults (sim/results/src/hdf5_items.cpp); the others have code of their own, for a
// reason given here. tests/unit/hdf5_results_test.cpp checks that every row is handled once
// and every plain row generically.
#pragma once
#include <vector>

#include "gpucap/hdf5_layout.hpp"

namespace gpucap::detail {

/// How the writer and the reader handle a row.
enum class Hdf5Handling {
  generic,             ///< written and read back by the generic walkers
  generic_write_only,  ///< written by the generic walkers, not read back (`why` says why)
  by_hand,             ///< code of its own (`why` says why)
};

struct Hdf5ItemHandling {
  const Hdf5Item* item;
  Hdf5Handling handling;
  const char* why;  ///< "" for Hdf5Handling::generic
};

/// Every row the writer and the reader handle, the generic ones first (in the order they are
/// written), then those handled by hand.
std::vector<Hdf5ItemHandling> hdf5_item_handling();

}  // namespace gpucap::detail
