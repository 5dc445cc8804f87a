// gpucap CLI: goals and decisions in the run and sweep reports: the goals table, the sweep
// table's goal columns, and the cheapest point under mean and chance constraints
// (--objective, --constraint, --chance, --conservative).
#pragma once
#include <boost/program_options.hpp>
#include <ostream>
#include <string>

#include "gpucap/results.hpp"

namespace gpucap::cli {

/// The options of a decision over a sweep's points.
boost::program_options::options_description decision_options();

/// --constraint, --chance and --conservative alone (gpucap report has its own --objective).
void add_constraint_options(boost::program_options::options_description& o);

/// Checks the decision options against the results (goal names, levels, metrics) before
/// printing; throws boost::program_options::error naming what is valid.
void check_decision_options(const boost::program_options::variables_map& vm,
                            const RunResults& r);

/// Whether the options ask for a decision (--objective, --constraint or --chance).
bool wants_decision(const boost::program_options::variables_map& vm);

/// The goals of point `point`: met in how many replications, the probability with its exact
/// and Wilson 95% intervals, and against the goal's target.
void print_goals(const RunResults& r, std::size_t point, std::ostream& out);

/// The decision the options ask for, with every point's standing.
void print_decision(const boost::program_options::variables_map& vm, const RunResults& r,
                    std::ostream& out);

}  // namespace gpucap::cli
