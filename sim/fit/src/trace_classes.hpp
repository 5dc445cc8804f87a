// gpucap fitting, private: the classes of a trace (job_trace.cpp) shared by the job-trace and
// instance-log readers (instance_log.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "gpucap/csv_table.hpp"
#include "gpucap/fit/job_trace.hpp"

namespace gpucap::fit::detail {

/// Distinct texts of the class column read at most: more than kMaxClasses, as "1" and "1.0"
/// are one class, but bounded, so that a column of unique ids costs no more than these.
constexpr std::size_t kMaxClassTexts = 16 * kMaxClasses;

/// Makes trace.classes from the class column, ordered by number when every value is one
/// (values of equal number, "1" and "1.0", are one class), else by text, and returns each
/// text's class (index into class_values.values -> index into trace.classes). Throws
/// TraceDataError beyond kMaxClasses.
std::vector<uint32_t> make_classes(const gpucap::CsvTable& table, const TraceColumns& columns,
                                   const gpucap::CsvTable::Categories& class_values,
                                   JobTrace& trace);

/// Each class's GPUs: the most common count among its rows (`counts`, per class, GPUs -> rows).
void set_class_gpus(const std::vector<std::map<uint32_t, std::size_t>>& counts, JobTrace& trace);

/// An LLM request log (columns.context set): see job_trace.hpp. Throws TraceDataError.
JobTrace read_request_log(const gpucap::CsvTable& table, const TraceColumns& columns,
                          double window_s);

/// An instance log (columns.end set): see job_trace.hpp. Throws TraceDataError.
JobTrace read_instance_log(const gpucap::CsvTable& table, const TraceColumns& columns,
                           const gpucap::CsvTable::Categories& class_values, double window_s);

}  // namespace gpucap::fit::detail
