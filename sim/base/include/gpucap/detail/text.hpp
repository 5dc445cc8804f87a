// gpucap internals: small text helpers for messages and tables.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpucap::text {

std::string join(const std::vector<std::string>& items, const std::string& separator);
std::vector<std::string> split(const std::string& s, char separator);
std::string trim(const std::string& s);

/// Splits `s` at `separator` where it stands outside [], {} and quotes (YAML flow values stay
/// whole: "a=[1, 2], b={x: 1}" -> "a=[1, 2]", " b={x: 1}"); throws std::invalid_argument when
/// brackets or quotes do not balance.
std::vector<std::string> split_outside_brackets(const std::string& s, char separator);

/// Edit (Levenshtein) distance between a and b.
std::size_t edit_distance(const std::string& a, const std::string& b);

/// The candidate nearest to `word` when it is close enough to be a likely typo, else "".
std::string closest(const std::string& word, const std::vector<std::string>& candidates);

/// Length in bytes (1 to 4) of the well-formed UTF-8 sequence that starts at s[i], or 0 when
/// none does (a stray continuation byte, a cut sequence, an overlong form, a surrogate, a code
/// point above U+10FFFF). `code_point`, when given, receives the character.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i, uint32_t* code_point = nullptr);

/// Whether `code` is a bidirectional formatting character: U+061C, U+200E, U+200F, U+202A to
/// U+202E, U+2066 to U+2069 (they reorder how the text around them shows).
bool is_bidi_control(uint32_t code);

/// Byte offset of the first byte of `s` that does not start a well-formed UTF-8 sequence, or
/// std::string::npos when all of `s` is valid UTF-8.
std::size_t first_invalid_utf8(std::string_view s);

/// `s` made safe to quote in a message: control characters escaped (\n, \t, \xNN), bytes
/// that are not valid UTF-8 written \xNN, C1 controls and the bidirectional overrides and
/// isolates (U+202A-U+202E, U+2066-U+2069) written \u{XXXX}, and, when longer than
/// `max_bytes`, cut at a character boundary with "... (N bytes in all)" appended. So a hostile
/// value can neither flood a terminal, forge extra lines, send it escape sequences nor reorder
/// what it shows, and the message is always valid UTF-8.
std::string excerpt(const std::string& s, std::size_t max_bytes = 80);

/// The first of `items` for a message (a header may have millions of columns): each excerpted
/// to `item_bytes`, joined by ", " until about `max_bytes`, then ", ... (N `noun` in all)".
std::string excerpt_list(const std::vector<std::string>& items, std::size_t item_bytes = 40,
                         std::size_t max_bytes = 400, const std::string& noun = "columns");

/// `s` as a JSON string that is valid UTF-8 whatever `s` holds: controls, DEL, bidirectional
/// formatting characters and U+2028/U+2029 escaped as \uXXXX; each byte that is not part of
/// valid UTF-8 (a path in another encoding) written as U+FFFD, the replacement character.
std::string json_string(const std::string& s);

/// A number as short as it reads well: "80", "0.5", "1e+06".
std::string format_number(double value);

/// A value as the CLI's tables print it: 4 significant digits, whole numbers from 10^4, an
/// exponent below 10^-3 and from 10^12, "n/a" for NaN (a metric with no observation).
std::string format_table_value(double value);

/// "90 s", "30 min", "12 h", "3 d": a duration in the largest unit that keeps it readable.
std::string format_duration(double seconds);

}  // namespace gpucap::text
