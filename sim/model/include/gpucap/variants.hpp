// gpucap: named scenario variants for robust plans: "what if demand is 0.75x or 1.5x?".
//
// A variant is a name, an optional weight (its probability, up to normalization) and a set of
// overrides of any scenario key (dotted path, YAML value, as for --set). A robust plan runs every
// decision of a sweep grid under every variant with common random numbers and compares them by
// regret (gpucap/robust_plan.hpp).
//
//   gpucap::Variant low = gpucap::parse_variant("low: workloads.0.arrivals.rate_per_day=3");
//   std::vector<gpucap::Variant> all = gpucap::read_variants_file("variants.yaml", 1 << 20);
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gpucap {

/// The sweep parameter that names each point's variant in a robust plan's results.
inline constexpr const char* kVariantParameter = "variant";
/// The sweep parameter that holds each point's variant weight (as written, "" when none given).
inline constexpr const char* kVariantWeightParameter = "variant_weight";

/// One named what-if of a scenario.
struct Variant {
  std::string name;
  /// Relative weight (probability up to normalization), > 0 and finite; "" when not given.
  std::string weight;
  /// The overrides, in order: dotted path and YAML value, applied after --set.
  std::vector<std::pair<std::string, std::string>> overrides;
};

/// Parses the CLI's "NAME: path=value, path=value" (the colon and overrides may be left out:
/// "base" is the scenario unchanged). Commas inside [], {} or quotes do not split. Throws
/// ScenarioError naming the text and what is valid.
Variant parse_variant(const std::string& text);

/// Sets the weights from "name=w,name=w" (the CLI's --weights), replacing any given before:
/// every variant must get one.
/// Throws ScenarioError for an unknown or repeated name, a variant without a weight, or a
/// weight that is not a positive finite number.
void apply_weights(std::vector<Variant>& variants, const std::string& text);

/// Reads a variants file:
///
///   variants:
///     - name: low
///       weight: 0.25            # optional; every variant or none
///       set:                    # optional; dotted path: value (any YAML value)
///         workloads.0.arrivals.rate_per_day: 3.75
///     - name: base
///
/// Throws InputFileError when it cannot be read, ScenarioError with file:line:column and the key
/// path for anything invalid.
std::vector<Variant> read_variants_file(const std::string& path, uint64_t max_bytes);

/// The same from YAML text; `origin` names it in messages.
std::vector<Variant> parse_variants_yaml(const std::string& text, const std::string& origin);

/// Checks a list of variants against the decision paths (a sweep grid's): at least one variant;
/// names non-empty, unique, without control characters or '='/','; weights given for all or none,
/// each a positive finite number; no override path that is a decision path, "variant" or
/// "variant_weight", nor given twice in one variant. Throws ScenarioError saying which.
void check_variants(const std::vector<Variant>& variants,
                    const std::vector<std::string>& decision_paths);

/// `weights` (each positive and finite; names[i] names weights[i] in messages) scaled to sum to
/// 1. When their sum overflows, they are scaled by the largest first (1e308 and 1e308 give 0.5
/// and 0.5); a weight too small next to the largest to give a probability above 0 (1e-300 beside
/// 1e300) is refused with std::invalid_argument.
std::vector<double> normalize_weights(std::vector<double> weights,
                                      const std::vector<std::string>& names);

}  // namespace gpucap
