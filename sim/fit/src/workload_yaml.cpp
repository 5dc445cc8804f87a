#include "gpucap/fit/workload_yaml.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "gpucap/detail/text.hpp"

namespace gpucap::fit {
namespace {

std::string fmt(const char* format, double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
}

/// A duration for the YAML: seconds with 7 significant digits and the unit "s".
std::string duration(double s) { return fmt("%.7g", s) + "s"; }

/// A YAML scalar that is safe unquoted only when plain; text from the trace is quoted.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out + "\"";
}

std::string arrivals_yaml(const ArrivalFit& a) {
  std::ostringstream out;
  const double rate = a.profile_rate_per_s;
  if (rate * 1.0 > 1e9)
    throw std::invalid_argument("the fitted arrival rate " + fmt("%.4g", rate) +
                                " jobs/s is above the scenario format's 1e9 jobs/s");
  std::string rate_key;
  if (rate >= 1.0) rate_key = "rate_per_s: " + fmt("%.7g", rate);
  else if (rate * 3600 >= 1.0) rate_key = "rate_per_hour: " + fmt("%.7g", rate * 3600);
  else rate_key = "rate_per_day: " + fmt("%.7g", rate * 86400);
  if (!a.profile_chosen) {
    out << "    arrivals: {process: poisson, " << rate_key << "}\n";
    return out.str();
  }
  out << "    arrivals:\n      process: nhpp\n      " << rate_key << "\n";
  if (a.period_hours == 168) {
    out << "      # multipliers of hour 0..167 of the week, Monday 00:00 first; 12 h per line\n"
        << "      weekly_profile: [\n";
  } else {
    out << "      # multipliers of hour 0..23 of the day, 00:00 first; 6 h per line\n"
        << "      hourly_profile: [\n";
  }
  const int per_line = a.period_hours == 168 ? 12 : 6;
  for (int h = 0; h < a.period_hours; ++h) {
    if (h % per_line == 0) out << "        ";
    out << fmt("%.4g", a.multipliers[h]) << (h + 1 < a.period_hours ? "," : "");
    out << ((h + 1) % per_line == 0 ? "\n" : " ");
  }
  out << "      ]\n";
  return out.str();
}

std::string work_yaml(const ClassFit& c) {
  const RunTimeModel& m = c.run_time;
  if (m.empirical) {
    if (!c.samples_file.empty())
      return "    work: {dist: empirical, file: " + quoted(c.samples_file) +
             ", column: duration_s}\n";
    std::string values;
    for (std::size_t i = 0; i < m.values.size(); ++i)
      values += (i ? ", " : "") + duration(m.values[i]);
    return "    work: {dist: empirical, values: [" + values + "]}\n";
  }
  const FamilyParams& p = m.params;
  switch (m.family) {
    case Family::exponential:
      return "    work: {dist: exponential, mean: " + duration(p.a) + "}\n";
    case Family::lognormal:
      return "    work: {dist: lognormal, median: " + duration(std::exp(p.a)) +
             ", sigma: " + fmt("%.6g", p.b) + "}\n";
    case Family::gamma:
      return "    work: {dist: gamma, shape: " + fmt("%.6g", p.a) + ", scale: " + duration(p.b) +
             "}\n";
    case Family::weibull:
      return "    work: {dist: weibull, shape: " + fmt("%.6g", p.a) +
             ", scale: " + duration(p.b) + "}\n";
  }
  return "";
}

std::string arrival_comments(const ArrivalFit& a, double alpha) {
  std::ostringstream out;
  out << "  # arrivals: " << a.arrivals << " in " << format_seconds(a.window_s) << ", mean "
      << fmt("%.4g", a.mean_rate_per_s * 86400) << " jobs/day\n";
  if (a.bin_hours == 0) {
    out << "  #   constant rate (poisson): " << a.bins_reason << "\n";
    return out.str();
  }
  out << "  #   profile: " << a.bins_reason << "\n"
      << "  #   likelihood ratio vs a constant rate: G = " << fmt("%.4g", a.g_statistic) << " on "
      << a.degrees_of_freedom << " df, p = " << fmt("%.3g", a.p_value) << " -> "
      << (a.profile_chosen ? std::string("profile (nhpp): significant at ")
                           : std::string("constant rate (poisson): not significant at "))
      << fmt("%g", alpha * 100) << "%\n";
  return out.str();
}

std::string run_time_comments(const ClassFit& c) {
  const RunTimeModel& m = c.run_time;
  std::ostringstream out;
  const JobClass& jc = *c.job_class;
  out << "  # run time: " << m.jobs << " jobs, " << m.finished << " finished, "
      << m.jobs - m.finished << " censored";
  if (jc.zero_duration_jobs)
    out << "; " << jc.zero_duration_jobs << " with run time 0 s left out";
  out << "\n";
  double best_aic = INFINITY;
  for (const CandidateFit& k : m.candidates)
    if (k.fit.ok) best_aic = std::min(best_aic, k.fit.aic);
  char line[256];
  std::snprintf(line, sizeof line, "  #   %-12s %-34s %12s %9s %7s %8s %9s %8s\n", "family",
                "maximum-likelihood parameters", "AIC", "dAIC", "KS D", "KS p", "AD A2", "AD p");
  out << line;
  for (const CandidateFit& k : m.candidates) {
    const char* name = family_name(k.fit.family);
    if (!k.fit.ok) {
      std::snprintf(line, sizeof line, "  #   %-12s not fitted: %s\n", name, k.fit.note.c_str());
      out << line;
      continue;
    }
    const std::string ad = k.ad < 0 ? "n/a" : fmt("%.4g", k.ad);
    const std::string ad_p = k.ad_p < 0 ? "n/a" : fmt("%.3g", k.ad_p);
    std::snprintf(line, sizeof line, "  #   %-12s %-34s %12.2f %9.2f %7.4f %8.3g %9s %8s\n", name,
                  describe(k.fit.family, k.fit.params).c_str(), k.fit.aic, k.fit.aic - best_aic,
                  k.ks_d, k.ks_p, ad.c_str(), ad_p.c_str());
    out << line;
    if (!k.unwritable.empty())
      out << "  #     (cannot be written: " << k.unwritable << ")\n";
  }
  out << "  #   -> " << m.reason << "\n";
  if (m.jobs > m.finished)
    out << "  #   (censored jobs: likelihoods use S(t); KS against Kaplan-Meier; AD n/a)\n";
  return out.str();
}

}  // namespace

std::string format_seconds(double seconds) {
  return fmt("%.6g", seconds) + " s (" + text::format_duration(seconds) + ")";
}

std::string render_workloads_yaml(const JobTrace& trace, const std::vector<ClassFit>& fits,
                                  const WorkloadYamlOptions& options) {
  std::ostringstream out;
  out << "# Written by `gpucap fit` from " << text::excerpt(options.source, 200) << ".\n"
      << "# " << trace.rows << " jobs in " << fits.size() << " class(es); " << trace.censored_rows
      << " censored (still running at the log's end); observation window "
      << format_seconds(trace.window_s) << " from t = 0 (Monday 00:00).\n"
      << "# Put this section into a scenario that has name, horizon and pools (docs/fitting.md).\n"
      << "# AIC = 2 parameters - 2 ln L (lower is better); KS D is the largest CDF distance to\n"
      << "# the data; p-values treat the parameters as known (conservative).\n"
      << "workloads:\n";
  for (const ClassFit& c : fits) {
    const JobClass& jc = *c.job_class;
    out << "\n  # class " << text::excerpt(jc.name) << " (column value "
        << quoted(text::excerpt(jc.value, 60)) << "): " << jc.submit_s.size() << " jobs\n";
    out << arrival_comments(c.arrivals, options.alpha);
    out << run_time_comments(c);
    for (const std::string& w : c.run_time.warnings) out << "  # WARNING: " << w << "\n";
    out << "  - name: " << quoted(jc.name) << "\n    kind: batch\n    gpus: " << jc.gpus;
    if (jc.mixed_gpus) out << "  # jobs of this class ask for different GPU counts: the most common";
    out << "\n";
    out << arrivals_yaml(c.arrivals);
    out << work_yaml(c);
    if (options.placement.empty()) {
      out << "    # placement: [POOL, ...]  # optional; without it the class may use every "
             "pool (serverless excepted)\n";
    } else {
      out << "    placement: [";
      for (std::size_t i = 0; i < options.placement.size(); ++i)
        out << (i ? ", " : "") << quoted(options.placement[i]);
      out << "]\n";
    }
  }
  return out.str();
}

std::string render_samples_csv(const std::vector<double>& values_s) {
  std::string out = "duration_s\n";
  char buffer[40];
  for (double v : values_s) {
    std::snprintf(buffer, sizeof buffer, "%.17g\n", v);
    out += buffer;
  }
  return out;
}

}  // namespace gpucap::fit
