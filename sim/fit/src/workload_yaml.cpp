#include "gpucap/fit/workload_yaml.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "gpucap/detail/text.hpp"
#include "gpucap/fit/run_time_trend.hpp"

#include "llm_workload.hpp"

namespace gpucap::fit {
namespace {

std::string fmt(const char* format, double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
}

/// A duration for the YAML: seconds with 7 significant digits and the unit "s".
std::string duration(double s) { return fmt("%.7g", s) + "s"; }

/// A YAML double-quoted scalar. Names reach it checked (workload names are ASCII, pool names
/// have no control character); a control character left would be dropped.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) continue;
    out += c;
  }
  return out + "\"";
}

/// Text from the trace or the command line for a comment: printable ASCII kept, every other
/// byte written \xNN (so that no byte YAML or yaml-cpp could take for a line break, such as
/// U+0085 or U+2028, ends the comment), cut at `max_bytes` with "..." and the length.
std::string comment_text(const std::string& s, std::size_t max_bytes) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (out.size() >= max_bytes) return out + "... (" + std::to_string(s.size()) + " bytes in all)";
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

/// "Thursday 14:00": the calendar hour `offset_s` after a Monday 00:00, rounded to the hour.
std::string week_hour(double offset_s) {
  static const char* const kDays[] = {"Monday",   "Tuesday", "Wednesday", "Thursday",
                                      "Friday",   "Saturday", "Sunday"};
  const long hour = std::lround(offset_s / 3600.0) % 168;
  const long h = hour < 0 ? hour + 168 : hour;
  return std::string(kDays[h / 24]) + " " + fmt("%02d:00", static_cast<int>(h % 24));
}

/// `burst: {...}` of over-dispersed arrivals and `drift: {...}` of a level that wanders, each a
/// key of the arrivals (none, one or both).
std::vector<std::string> modulation_yaml(const BurstFit& b, const DriftFit& d) {
  std::vector<std::string> out;
  if (b.over_dispersed && b.cv > 0)
    out.push_back("burst: {interval: " + duration(b.interval_s) + ", cv: " + fmt("%.4g", b.cv) +
                  "}");
  if (d.sd_log_per_day > 0)
    out.push_back("drift: {interval: 86400s, sd_log: " + fmt("%.4g", d.sd_log_per_day) + "}");
  return out;
}

std::string arrivals_yaml(const ArrivalFit& a, double start_offset_s, const BurstFit& b,
                          const DriftFit& d) {
  std::ostringstream out;
  const double rate = a.profile_rate_per_s;
  if (rate * 1.0 > 1e9)
    throw std::invalid_argument("the fitted arrival rate " + fmt("%.4g", rate) +
                                " jobs/s is above the scenario format's 1e9 jobs/s");
  std::string rate_key;
  if (rate >= 1.0)
    rate_key = "rate_per_s: " + fmt("%.7g", rate);
  else if (rate * 3600 >= 1.0)
    rate_key = "rate_per_hour: " + fmt("%.7g", rate * 3600);
  else
    rate_key = "rate_per_day: " + fmt("%.7g", rate * 86400);
  const std::vector<std::string> modulation = modulation_yaml(b, d);
  if (!a.profile_chosen) {
    out << "    arrivals: {process: poisson, " << rate_key;
    for (const std::string& m : modulation) out << ", " << m;
    out << "}\n";
    return out.str();
  }
  out << "    arrivals:\n      process: nhpp\n      " << rate_key << "\n";
  for (const std::string& m : modulation) out << "      " << m << "\n";
  // From the hour of the scenario's t = 0 (the forecast's start), or from Monday 00:00.
  const bool rotated = start_offset_s >= 0;
  const std::vector<double> m =
      rotated ? rotated_profile(a, start_offset_s) : a.multipliers;
  const std::string first =
      rotated ? (a.period_hours == 168 ? week_hour(start_offset_s)
                                       : week_hour(start_offset_s).substr(
                                             week_hour(start_offset_s).find(' ') + 1)) +
                    " (t = 0, the forecast's start) first"
              : (a.period_hours == 168 ? std::string("Monday 00:00 first") : "00:00 first");
  if (a.period_hours == 168) {
    out << "      # multipliers of hour 0..167 of the week, " << first << "; 12 h per line\n"
        << "      weekly_profile: [\n";
  } else {
    out << "      # multipliers of hour 0..23 of the day, " << first << "; 6 h per line\n"
        << "      hourly_profile: [\n";
  }
  const int per_line = a.period_hours == 168 ? 12 : 6;
  for (int h = 0; h < a.period_hours; ++h) {
    if (h % per_line == 0) out << "        ";
    out << fmt("%.4g", m[h]) << (h + 1 < a.period_hours ? "," : "");
    out << ((h + 1) % per_line == 0 ? "\n" : " ");
  }
  out << "      ]\n";
  return out.str();
}

/// The run-time distribution under `key` (work for jobs, service for requests).
std::string work_yaml(const ClassFit& c, const char* key = "work") {
  const RunTimeModel& m = c.run_time;
  const std::string head = std::string("    ") + key + ": {dist: ";
  if (m.empirical) {
    // The tail beyond the longest observed value, when censored ones outlast it.
    const std::string tail = m.tail_probability > 0
                                 ? ", tail_probability: " + fmt("%.6g", m.tail_probability) +
                                       ", tail_mean: " + duration(m.tail_mean_s)
                                 : std::string();
    if (!c.samples_file.empty())
      return head + "empirical, file: " + quoted(c.samples_file) + ", column: duration_s" + tail +
             "}\n";
    std::string values;
    for (std::size_t i = 0; i < m.values.size(); ++i)
      values += (i ? ", " : "") + duration(m.values[i]);
    return head + "empirical, values: [" + values + "]" + tail + "}\n";
  }
  const FamilyParams& p = m.params;
  switch (m.family) {
    case Family::exponential:
      return head + "exponential, mean: " + duration(p.a) + "}\n";
    case Family::lognormal:
      return head + "lognormal, median: " + duration(std::exp(p.a)) +
             ", sigma: " + fmt("%.6g", p.b) + "}\n";
    case Family::gamma:
      return head + "gamma, shape: " + fmt("%.6g", p.a) + ", scale: " + duration(p.b) + "}\n";
    case Family::weibull:
      return head + "weibull, shape: " + fmt("%.6g", p.a) + ", scale: " + duration(p.b) + "}\n";
  }
  return "";
}

/// The mean of the fitted run-time model, seconds.
double model_mean_s(const RunTimeModel& m) {
  if (m.empirical) {
    double sum = 0;
    for (double v : m.values) sum += v;
    return m.values.empty() ? 0.0 : sum / static_cast<double>(m.values.size());
  }
  const FamilyParams& p = m.params;
  switch (m.family) {
    case Family::exponential:
      return p.a;
    case Family::lognormal:
      return std::exp(p.a + 0.5 * p.b * p.b);
    case Family::gamma:
      return p.a * p.b;
    case Family::weibull:
      return p.b * std::tgamma(1 + 1 / p.a);
  }
  return 0;
}

/// The workload's `uncertainty` (parameter_uncertainty.hpp), with where each figure comes from.
std::string uncertainty_yaml(const ClassFit& c, bool instances) {
  const RateUncertainty& r = c.arrival_uncertainty;
  std::string basis = std::to_string(c.arrivals.arrivals) + " arrivals";
  if (r.days) basis += ", day-to-day dispersion " + fmt("%.3g", r.dispersion) + " over " +
                       std::to_string(r.days) + " days";
  if (r.at_trend_end) basis += ", at the trend's end";
  const RunTimeModel& m = c.run_time;
  basis += "; " + (m.empirical ? std::to_string(m.values.size()) + " values"
                               : std::to_string(m.finished) + (instances ? " ended" : " finished"));
  return "    uncertainty: {rate_sd_log: " + fmt("%.4g", r.sd_log) +
         ", scale_sd_log: " + fmt("%.4g", c.scale_uncertainty) + "}  # the fit's doubt: " +
         basis + "\n";
}

/// A service's keys after its name: kind, gpus, pool, replicas for about 70% busy at the mean
/// load (λ E[S] replicas busy on average; at least 1), arrivals and service.
std::string service_yaml(const ClassFit& c, const WorkloadYamlOptions& options) {
  const JobClass& jc = *c.job_class;
  const double load = c.arrivals.profile_rate_per_s * model_mean_s(c.run_time);  // rate written
  const double replicas = std::max(1.0, std::ceil(load / 0.7));
  std::ostringstream out;
  out << "    kind: inference\n    gpus: " << jc.gpus
      << "\n    pool: " << quoted(options.placement.front())
      << "\n    replicas: " << fmt("%.0f", replicas) << "  # mean load " << fmt("%.4g", load)
      << " replicas busy (rate x mean service): about 70% busy; sweep it, or give autoscaling\n";
  out << arrivals_yaml(c.arrivals, options.start_offset_s, c.bursts, c.drift);
  out << work_yaml(c, "service") << uncertainty_yaml(c, false);
  return out.str();
}

/// A deployment's keys after its name: kind, gpus, arrivals, lifetime, placement (by the
/// caller) and initial_state.
std::string deployment_yaml(const ClassFit& c, double start_offset_s) {
  const JobClass& jc = *c.job_class;
  std::ostringstream out;
  out << "    kind: deployment\n    gpus: " << jc.gpus;
  if (jc.mixed_gpus)
    out << "  # instances of this class ask for different GPU counts: the most common";
  out << "\n" << arrivals_yaml(c.arrivals, start_offset_s, c.bursts, c.drift) << work_yaml(c, "lifetime")
      << uncertainty_yaml(c, true);
  out << "    # startup: 5min  # optional: each (re)start's time before serving (not in the log)\n";
  return out.str();
}

/// The comment and key of a deployment's state file.
std::string initial_state_yaml(const ClassFit& c, const WorkloadYamlOptions& options) {
  const JobClass& jc = *c.job_class;
  std::ostringstream out;
  if (options.state == StateChoice::start) {
    std::size_t running = 0;
    for (const AliveInstance& a : jc.alive_at_start) running += a.remaining_s == HUGE_VAL;
    out << "    # the state at t = 0, the log's start: " << jc.alive_at_start.size()
        << " instances created before it, each with its logged end; " << running
        << " still running at the log's end have a blank remaining, so they run past any "
           "horizon (--state end: the state at the log's end, for a forecast)\n";
  } else {
    out << "    # the state at the log's end (t = 0 of a forecast): " << jc.age_at_end_s.size()
        << " instances still running, remaining: unknown, drawn from the lifetime above given "
           "each one's age";
    if (jc.ages_at_end_lower_bounds)
      out << "; " << jc.ages_at_end_lower_bounds
          << " created before the log have the window as their age, a lower bound";
    out << "\n";
    for (const SurvivorCheck& sc : c.survivors)
      out << "    #   still running " << describe_survivors(sc) << "\n";
  }
  if (c.state_file.empty()) return out.str() + "    # (none: no initial_state)\n";
  out << "    initial_state: {file: " << quoted(c.state_file) << ", time_unit: 1s}\n";
  return out.str();
}

/// The over-dispersion test's lines: each interval length's index of dispersion, p and ĉ.
std::string burst_comments(const BurstFit& b, double alpha) {
  if (!b.tested) return "  #   bursts: not tested (fewer than 50 arrivals, or a window under 10 minutes)\n";
  std::ostringstream out;
  out << "  #   bursts: counts per interval against Poisson (index of dispersion X2/(K-1), about 1 "
         "for Poisson; c: squared cv of a gamma rate that explains the excess)\n";
  for (const DispersionAtLength& at : b.lengths)
    out << "  #     " << text::format_duration(at.interval_s) << ": " << at.intervals
        << " intervals, index " << fmt("%.3g", at.index) << ", p = " << fmt("%.3g", at.p_value)
        << ", c = " << fmt("%.3g", at.c) << "\n";
  if (b.over_dispersed)
    out << "  #     -> burstier than Poisson (smallest p below " << fmt("%g", alpha * 100) << "% / "
        << b.lengths.size() << "): a gamma rate per " << text::format_duration(b.interval_s)
        << " of cv " << fmt("%.3g", b.cv) << " (burst)\n";
  else
    out << "  #     -> consistent with Poisson at " << fmt("%g", alpha * 100) << "% / "
        << b.lengths.size() << " (no burst)\n";
  return out.str();
}

std::string arrival_comments(const ArrivalFit& a, double alpha, const char* noun) {
  std::ostringstream out;
  out << "  # arrivals: " << a.arrivals << " in " << format_seconds(a.window_s) << ", mean "
      << fmt("%.4g", a.mean_rate_per_s * 86400) << " " << noun << "/day\n";
  if (a.trend_tried && !a.trend_significant)
    out << "  #   no trend: log-linear rate vs constant, G = " << fmt("%.3g", a.trend_g)
        << " on 1 df, p = " << fmt("%.3g", a.trend_p_value) << "\n";
  if (a.bin_hours == 0) {
    out << "  #   constant rate (poisson): " << a.bins_reason << "\n";
    return out.str();
  }
  out << "  #   profile: " << a.bins_reason << "\n"
      << "  #   likelihood ratio vs a constant rate: G = " << fmt("%.4g", a.g_statistic)
      << (a.dispersion > 1 ? ", over the counts' dispersion " + fmt("%.3g", a.dispersion) +
                                 " (quasi-Poisson): " + fmt("%.4g", a.g_statistic / a.dispersion)
                           : std::string())
      << " on " << a.degrees_of_freedom << " df, p = " << fmt("%.3g", a.p_value) << " -> "
      << (a.profile_chosen ? std::string("profile (nhpp): significant at ")
                           : std::string("constant rate (poisson): not significant at "))
      << fmt("%g", alpha * 100) << "%\n";
  return out.str();
}

std::string run_time_comments(const ClassFit& c, bool instances) {
  const RunTimeModel& m = c.run_time;
  std::ostringstream out;
  const JobClass& jc = *c.job_class;
  if (instances)
    out << "  # lifetime: " << m.jobs << " instances created in the window, " << m.finished
        << " ended, " << m.jobs - m.finished << " censored (still running at the log's end)";
  else
    out << "  # run time: " << m.jobs << " jobs, " << m.finished << " finished, "
        << m.jobs - m.finished << " censored";
  if (jc.zero_duration_jobs)
    out << "; " << jc.zero_duration_jobs
        << (instances ? " created at the log's end left out" : " with run time 0 s left out");
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
    if (!k.unwritable.empty()) out << "  #     (cannot be written: " << k.unwritable << ")\n";
  }
  out << "  #   -> " << m.reason << "\n";
  if (m.jobs > m.finished)
    out << "  #   (censored " << (instances ? "instances" : "jobs")
        << ": likelihoods use S(t); KS against Kaplan-Meier; AD n/a)\n";
  return out.str();
}

/// The arrivals of class `c`, with the trend choice applied (TrendChoice); then their bursts,
/// drift and rate uncertainty, once, from the arrivals the written rate comes from.
void fit_class_arrivals(const JobClass& c, double window_s, const FitWorkloadsOptions& options,
                        ClassFit& f) {
  const double alpha = options.yaml.alpha;
  f.arrivals = fit_arrivals(c.submit_s, window_s, alpha, options.origin_offset_s);
  const std::vector<double>* seen = &c.submit_s;  // the arrivals fitted, over `span` seconds
  double span = window_s;
  std::vector<double> last;  // --trend last-week: the last 7 days' arrivals
  bool extrapolate = false;
  const ArrivalFit& a = f.arrivals;
  if (a.trend_tried && a.trend_significant) {
    const double per_week = std::expm1(a.trend_per_s * 7 * 86400) * 100;
    std::string drift =
        "the arrival rate " + std::string(per_week >= 0 ? "rises " : "falls ") +
        fmt("%.3g", std::fabs(per_week)) + "% a week (x" +
        fmt("%.3g", std::exp(a.trend_per_s * window_s)) +
        " over the window; log-linear trend, likelihood ratio G = " + fmt("%.3g", a.trend_g) +
        ", p = " + fmt("%.3g", a.trend_p_value) + ")";
    if (a.step_chosen)
      drift = "the arrival rate steps x" +
              fmt("%.3g", a.step_rate_after_per_s / a.step_rate_before_per_s) + " at " +
              text::format_duration(a.step_at_s) + " (from " +
              fmt("%.4g", a.step_rate_before_per_s * 86400) + " to " +
              fmt("%.4g", a.step_rate_after_per_s * 86400) +
              " a day; one step fits better than a log-linear trend: G = 2 (l_step - l_trend) / " +
              "phi_day = " + fmt("%.3g", a.step_gain / a.step_dispersion) + ", p = " +
              fmt("%.3g", a.step_p_value) + " over the window's days; trend test p = " +
              fmt("%.3g", a.trend_p_value) + ")";
    switch (options.trend) {
      case TrendChoice::average:
        f.arrival_warning = true;
        f.arrival_notes.push_back(drift +
                                  ": the rate written is the window's average, which the "
                                  "start of the window overstates and its end understates; "
                                  "--trend extrapolate writes the level at the window's end, "
                                  "--trend last-week fits the last 7 days alone");
        break;
      case TrendChoice::extrapolate:
        extrapolate = true;
        f.arrival_notes.push_back(drift +
                                  ": --trend extrapolate: the rate written is the fitted "
                                  "level at the window's end" +
                                  std::string(a.step_chosen ? " (since the step)" : "") + ", x" +
                                  fmt("%.4g", a.trend_end_factor) + " the window's average");
        break;
      case TrendChoice::last_week: {
        constexpr double kWeekS = 7 * 86400.0;
        if (window_s < 2 * kWeekS)
          throw std::invalid_argument(
              "--trend last-week needs a window of at least 14 days (this "
              "one is " +
              format_seconds(window_s) + ")");
        const double from = window_s - kWeekS;
        for (double t : c.submit_s)
          if (t >= from) last.push_back(t - from);
        f.arrivals =
            fit_arrivals(last, kWeekS, alpha, std::fmod(options.origin_offset_s + from, kWeekS));
        seen = &last;
        span = kWeekS;
        f.arrival_notes.push_back(drift + ": --trend last-week: fitted on the last 7 days alone (" +
                                  std::to_string(last.size()) + " arrivals)");
        break;
      }
    }
  }
  f.bursts = fit_bursts(*seen, span, f.arrivals, alpha);
  f.drift = fit_drift(*seen, span, f.arrivals);
  if (extrapolate) f.arrivals.profile_rate_per_s *= f.arrivals.trend_end_factor;
  f.arrival_uncertainty = rate_uncertainty(f.arrivals, *seen, span, extrapolate);
}

}  // namespace

std::string detail::yaml_quoted(const std::string& s) { return quoted(s); }

std::string describe_survivors(const SurvivorCheck& c) {
  std::string out = "after " + text::format_duration(c.after_s) + ": " + fmt("%.1f", c.model) +
                    " of " + std::to_string(c.running) + " by the lifetime";
  if (c.covered == 0) return out + "; the log's survival curve does not reach that far";
  out += ", " + fmt("%.1f", c.log) + " by the log's survival curve";
  if (c.covered < c.running)
    out += " (over the " + std::to_string(c.covered) + " it reaches: " +
           fmt("%.1f", c.model_covered) + " by the lifetime)";
  return out;
}

std::string format_seconds(double seconds) {
  return fmt("%.6g", seconds) + " s (" + text::format_duration(seconds) + ")";
}

std::string render_workloads_yaml(const JobTrace& trace, const std::vector<ClassFit>& fits,
                                  const WorkloadYamlOptions& options) {
  std::ostringstream out;
  const bool instances = options.kind == FitKind::deployment;
  out << "# Written by `gpucap fit` from " << comment_text(options.source, 200) << ".\n"
      << "# " << trace.rows << (instances ? " instances" : trace.requests ? " requests" : " jobs")
      << " in " << fits.size() << " class(es); ";
  if (instances) out << trace.alive_at_start_rows << " alive at t = 0 (created before it); ";
  if (trace.requests)
    out << trace.zero_duration_rows << " without a prompt or an output token left out";
  else
    out << trace.censored_rows << " censored (still running at the log's end)";
  out << "; observation window " << format_seconds(trace.window_s) << " from t = 0"
      << (options.origin.empty() ? std::string(" (taken as Monday 00:00: give --origin to align "
                                               "profiles with the log's calendar)")
                                 : " (" + comment_text(options.origin, 60) + ")")
      << ".\n"
      << "# Put this section into a scenario that has name, horizon and pools (docs/fitting.md).\n"
      << "# AIC = 2 parameters - 2 ln L (lower is better); KS D is the largest CDF distance to\n"
      << "# the data; p-values treat the parameters as known (conservative).\n"
      << "workloads:\n";
  for (const ClassFit& c : fits) {
    const JobClass& jc = *c.job_class;
    const char* noun = instances ? "instances" : trace.requests ? "requests" : "jobs";
    out << "\n  # class " << jc.name;
    // A request log read as one class has no class column.
    if (!(trace.requests && fits.size() == 1 && jc.value.empty()))
      out << " (column value \"" << comment_text(jc.value, 60) << "\")";
    out << ": " << jc.submit_s.size()
        << (instances ? " instances created in the window, " +
                            std::to_string(jc.alive_at_start.size()) + " before it\n"
                      : " " + std::string(noun) + "\n");
    out << arrival_comments(c.arrivals, options.alpha, noun);
    out << burst_comments(c.bursts, options.alpha);
    if (c.drift.days)
      out << "  #   drift: the days' log count ratios' semivariogram over lags 1-" << c.drift.lags
          << " of " << c.drift.days << " days grows "
          << (c.drift.sd_log_per_day > 0
                  ? "by a random walk of sd " + fmt("%.3g", c.drift.sd_log_per_day) + " a day (drift)"
                  : std::string("not at all (no drift)"))
          << "\n";
    for (const std::string& n : c.arrival_notes)
      out << (c.arrival_warning ? "  # WARNING: " : "  #   trend: ") << n << "\n";
    if (options.kind == FitKind::llm) {
      out << detail::token_comments(jc) << "  - name: " << quoted(jc.name) << "\n"
          << detail::llm_head_yaml(options)
          << arrivals_yaml(c.arrivals, options.start_offset_s, c.bursts, c.drift)
          << detail::llm_block_yaml(c, options) << detail::llm_uncertainty_yaml(c);
      continue;
    }
    out << run_time_comments(c, instances);
    for (const std::string& w : c.run_time.warnings) out << "  # WARNING: " << w << "\n";
    out << "  - name: " << quoted(jc.name) << "\n";
    if (options.kind == FitKind::service) {
      out << service_yaml(c, options);
      continue;
    }
    if (instances) {
      out << deployment_yaml(c, options.start_offset_s);
    } else {
      out << "    kind: batch\n    gpus: " << jc.gpus;
      if (jc.mixed_gpus)
        out << "  # jobs of this class ask for different GPU counts: the most common";
      out << "\n";
      out << arrivals_yaml(c.arrivals, options.start_offset_s, c.bursts, c.drift);
      out << work_yaml(c);
      out << uncertainty_yaml(c, false);
    }
    if (options.placement.empty()) {
      out << "    # placement: [POOL, ...]  # optional; without it the class may use every "
             "pool (serverless excepted)\n";
    } else {
      out << "    placement: [";
      for (std::size_t i = 0; i < options.placement.size(); ++i)
        out << (i ? ", " : "") << quoted(options.placement[i]);
      out << "]\n";
    }
    if (instances) out << initial_state_yaml(c, options);
  }
  return out.str();
}

namespace {

/// A file beside the output named "<stem>.<class name><suffix>", whose name stays in the
/// output's folder whatever the data.
SamplesFile side_file(const std::filesystem::path& out_path, const JobClass& c,
                      const std::string& suffix, std::string csv) {
  SamplesFile file;
  file.name = out_path.stem().string() + "." + c.name + suffix;
  // The class name holds no '/' (job_trace.hpp); checked again.
  if (c.name.find_first_of("/\\") != std::string::npos || c.name.find('\0') != std::string::npos)
    throw std::invalid_argument("class name \"" + comment_text(c.name, 80) +
                                "\" cannot name a file");
  if (file.name.size() > 255)
    throw std::invalid_argument(
        "the " + (suffix == ".state.csv" ? std::string("state") : std::string("samples")) +
        " file of class " + c.name + " would be named with " + std::to_string(file.name.size()) +
        " bytes (\"" + comment_text(file.name, 80) +
        "\"), above the 255 a file name may have; give the output a shorter name");
  file.path = (out_path.parent_path() / file.name).string();
  file.csv = std::move(csv);
  return file;
}

/// A number for a CSV cell: enough digits to read back the same double.
std::string cell(double v) { return fmt("%.17g", v); }

/// A deployment's state file (StateChoice), `gpus,remaining,age` in seconds; empty when no
/// instance is in the state. Throws std::invalid_argument when an age of --state end is beyond
/// every value of an empirical lifetime (no residual life to draw).
std::string render_state_csv(const ClassFit& f, StateChoice state, std::size_t& rows) {
  const JobClass& c = *f.job_class;
  std::string csv = "gpus,remaining,age\n";
  rows = 0;
  if (state == StateChoice::start) {
    for (const AliveInstance& a : c.alive_at_start) {
      csv += std::to_string(a.gpus) + "," + (a.remaining_s == HUGE_VAL ? "" : cell(a.remaining_s)) +
             "," + (std::isnan(a.age_s) ? "" : cell(a.age_s)) + "\n";
      ++rows;
    }
    return rows ? csv : std::string();
  }
  const RunTimeModel& m = f.run_time;
  // An empirical lifetime with a tail reaches every age; without one, only below its largest
  // (fit_workloads gives it a tail first when a survivor is that old).
  const double largest = m.empirical && !m.values.empty() && !(m.tail_probability > 0)
                             ? *std::max_element(m.values.begin(), m.values.end())
                             : HUGE_VAL;
  std::size_t beyond = 0;
  for (std::size_t i = 0; i < c.age_at_end_s.size(); ++i) {
    beyond += c.age_at_end_s[i] >= largest;
    csv += std::to_string(c.gpus_at_end[i]) + ",unknown," + cell(c.age_at_end_s[i]) + "\n";
    ++rows;
  }
  if (beyond)
    throw std::invalid_argument(
        "class " + c.name +
        ": --state end draws each running instance's remaining lifetime "
        "given its age, and " +
        std::to_string(beyond) +
        " of them are at least as old as the "
        "longest value of the empirical lifetime (" +
        format_seconds(largest) +
        "), which leaves nothing to draw; give a parametric --family (lognormal, weibull, "
        "gamma or exponential)");
  return rows ? csv : std::string();
}

}  // namespace

FittedWorkloads fit_workloads(const JobTrace& trace, const std::string& output_path,
                              const FitWorkloadsOptions& options) {
  const std::filesystem::path out_path(output_path);
  const bool instances = options.yaml.kind == FitKind::deployment;
  const bool llm = options.yaml.kind == FitKind::llm;
  if (instances != trace.instances)
    throw std::invalid_argument(instances ? "--kind deployment fits an instance log (start and "
                                            "end columns), not a job trace"
                                          : "an instance log fits only as --kind deployment");
  if (llm != trace.requests)
    throw std::invalid_argument(llm ? "--kind llm fits an LLM request log (submit_s, "
                                      "context_tokens, output_tokens; gpucap import --format llm "
                                      "writes one)"
                                    : "an LLM request log fits only as --kind llm");
  FittedWorkloads result;
  result.fits.reserve(trace.classes.size());
  for (const JobClass& c : trace.classes) {
    ClassFit f;
    f.job_class = &c;
    if (llm) {  // arrivals fitted; tokens the log's own joint sample, in a file
      fit_class_arrivals(c, trace.window_s, options, f);
      result.samples.push_back(side_file(out_path, c, ".tokens.csv", detail::render_tokens_csv(c)));
      f.samples_file = result.samples.back().name;
      result.fits.push_back(std::move(f));
      continue;
    }
    if (instances && c.run_times.size() == 0)
      throw std::invalid_argument(
          "class " + c.name + ": no instance was created in the window (" +
          std::to_string(c.alive_at_start.size()) +
          " were alive at its start), so neither an arrival rate nor a lifetime can be fitted; "
          "class by another column (--class-by), or replay the log (arrivals: {process: trace, "
          "end_column: ...}; docs/importing.md)");
    fit_class_arrivals(c, trace.window_s, options, f);
    if (c.run_times.size()) {
      f.run_time = choose_run_time_model(c.run_times, options.family);
      f.scale_uncertainty = scale_sd_log(f.run_time);
    } else {
      // Every job ran 0 s: `work` of 0 s, said loudly.
      f.run_time.empirical = true;
      f.run_time.values = {0.0};
      f.run_time.reason = "fallback: all " + std::to_string(c.zero_duration_jobs) +
                          " jobs ran 0 s, so no distribution can be fit; work is 0 s";
      f.run_time.warnings.push_back(f.run_time.reason);
    }
    // --state end draws the old instances' rests from the lifetime: when it ends them at
    // another pace than the log's own delayed-entry curve does (the check after the window's
    // length), the lifetime is that curve (it learns long lives from instances old at the log's
    // start).
    const bool survivors_checked = instances && options.yaml.state == StateChoice::end;
    const LogSurvival log_curve = survivors_checked ? log_survival(c, trace.window_s) : LogSurvival{};
    if (survivors_checked &&
        survivors_disagree(expected_survivors(c, log_curve, f.run_time, trace.window_s))) {
      RunTimeModel km = delayed_entry_model(log_curve, c.run_times.size(), f.run_time);
      if (!km.values.empty()) {
        km.reason = "the log's delayed-entry Kaplan-Meier curve (with the instances already "
                    "running at its start): the fitted lifetime (" + f.run_time.reason +
                    ") ends the instances running at the log's end at another pace than the "
                    "log does";
        f.run_time = std::move(km);
        f.scale_uncertainty = scale_sd_log(f.run_time);
      }
    }
    if (survivors_checked) add_tail_for_survivors(f.run_time, c.age_at_end_s);
    const RunTimeTrend trend =
        run_time_trend(c.run_times, c.run_time_submit_s, trace.window_s, options.yaml.alpha);
    if (trend.significant) {
      const char* what = instances ? "lifetimes" : "run times";
      const char* who = instances ? "instances created" : "jobs submitted";
      const auto median = [](double s) {
        return std::isnan(s) ? std::string("not reached") : text::format_duration(s);
      };
      f.run_time.warnings.push_back(
          std::string(what) + " change over the window: " + who + " in its second half end at " +
          fmt("%.3g", trend.hazard_ratio) + "x the rate of the first half's (log-rank chi2 = " +
          fmt("%.3g", trend.chi_square) + " on 1 df, p = " + fmt("%.3g", trend.p_value) +
          "; Kaplan-Meier medians " + median(trend.early_median_s) + " and " +
          median(trend.late_median_s) + "); the " + (instances ? "lifetime" : "run time") +
          " written pools both halves, so a forecast from the log's end may misstate how long "
          "new " + (instances ? "instances live" : "jobs run") +
          "; gpucap backtest shows how forecasts from this log held (docs/backtest.md)");
    }
    if (f.run_time.empirical && f.run_time.values.size() > kInlineEmpiricalValues) {
      result.samples.push_back(
          side_file(out_path, c, ".runtimes.csv", render_samples_csv(f.run_time.values)));
      f.samples_file = result.samples.back().name;
    }
    if (survivors_checked)
      for (double after : {86400.0, trace.window_s})
        f.survivors.push_back(expected_survivors(c, log_curve, f.run_time, after));
    if (instances) {
      std::string state = render_state_csv(f, options.yaml.state, f.state_rows);
      if (!state.empty()) {
        result.samples.push_back(side_file(out_path, c, ".state.csv", std::move(state)));
        f.state_file = result.samples.back().name;
      }
    }
    result.fits.push_back(std::move(f));
  }
  // A deployment's forecast starts at the log's start or end: its profiles begin at that hour
  // of the week (the origin's calendar, Monday 00:00 when none is given).
  WorkloadYamlOptions yaml = options.yaml;
  if (instances || options.forecast_from_end)
    yaml.start_offset_s =
        std::fmod(options.origin_offset_s +
                      (options.yaml.state == StateChoice::end || options.forecast_from_end
                           ? trace.window_s
                           : 0.0),
                  7 * 86400.0);
  if (instances) {
    const FleetTrend f = fleet_trend(trace);
    if (f.significant)
      result.warnings.push_back(
          "the fleet's level (GPUs in use, daily means) " +
          std::string(f.per_week >= 0 ? "rises " : "falls ") + fmt("%.3g", std::fabs(f.per_week) * 100) +
          "% a week over the window's " + std::to_string(f.days) + " days (" +
          fmt("%.4g", f.first_level) + " to " + fmt("%.4g", f.last_level) +
          " GPUs, t = " + fmt("%.3g", f.t_statistic) +
          "); the fitted lifetimes have no trend and the arrivals only their own (--trend), so a "
          "forecast from the log's end starts at the level reached but need not follow the "
          "drift; gpucap backtest shows how forecasts from this log held (docs/backtest.md)");
  }
  result.yaml = render_workloads_yaml(trace, result.fits, yaml);
  if (!result.warnings.empty()) {
    std::string head;
    for (const std::string& w : result.warnings) head += "# WARNING: " + w + "\n";
    result.yaml = head + result.yaml;
  }
  if (result.yaml.size() > kMaxWorkloadsYamlBytes)
    throw std::invalid_argument(
        "the workloads section would be " + std::to_string(result.yaml.size()) +
        " bytes, above the " + std::to_string(kMaxWorkloadsYamlBytes) +
        " a scenario can hold beside its pools (the loader reads at most 1 MiB); class by a "
        "column with fewer values, or give a shorter --placement (every class repeats it)");
  return result;
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
