// gpucap: the scalar values scenarios, command lines and generated files write as text: seeds and
// durations with a time unit. The loader adds the key's range and position to their messages.
//
//   double s = gpucap::parse_duration_s("30min");  // 1800
#pragma once
#include <cstdint>
#include <string>

namespace gpucap {

/// Parses a seed: plain digits, 0 to 2^64 - 1. Throws std::invalid_argument (signs, other
/// characters, or a value beyond 64 bits, which would otherwise wrap or clamp silently).
uint64_t parse_seed(const std::string& text);

/// Parses a duration in seconds: a number of seconds or a string with a unit, "250ms", "90s",
/// "30min", "12h", "3d", "1w". Throws std::invalid_argument with what is valid.
double parse_duration_s(const std::string& text);

}  // namespace gpucap
