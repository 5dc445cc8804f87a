// gpucap backtest: its results as a table (stdout), as JSON, and as an HTML page with charts
// (the truth against the forecast's 90% and 50% intervals at every origin, per metric; the
// plan's regret against the look-back recommender's).
#pragma once
#include <iosfwd>
#include <string>

#include "backtest.hpp"

namespace gpucap::cli {

void print_backtest(const BacktestResult& r, const BacktestOptions& o, std::ostream& out);
std::string backtest_json(const BacktestResult& r, const BacktestOptions& o);
std::string backtest_html(const BacktestResult& r, const BacktestOptions& o);

}  // namespace gpucap::cli
