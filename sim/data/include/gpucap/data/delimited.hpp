// gpucap data: splitting one line of a delimited text (CSV, or sacct's pipe-separated output)
// into fields, and writing fields back as CSV.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace gpucap::data {

/// Splits `line` at `separator` into `fields` (cleared first). With `quotes`, a field may be
/// double-quoted ("a,b", with "" for a quote; the quotes are removed); fields are trimmed of
/// spaces and tabs. Returns false when a quoted field is not closed on the line (the row is
/// malformed; `fields` then holds what was read). `scratch` keeps the unquoted text of quoted
/// fields, which the views in `fields` may point into.
bool split_fields(std::string_view line, char separator, bool quotes,
                  std::vector<std::string_view>& fields, std::vector<std::string>& scratch);

/// `value` as one CSV field: quoted when it holds a comma, a quote, a line break or leading or
/// trailing spaces; bytes that are not valid UTF-8, and control characters, become '?'.
std::string csv_field(std::string_view value);

/// True when `text` is valid UTF-8.
bool is_valid_utf8(std::string_view text);

/// The column of `header` called `name` (exact match), or -1.
int column_of(const std::vector<std::string>& header, std::string_view name);

}  // namespace gpucap::data
