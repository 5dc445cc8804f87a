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

/// The next line of a whole text held in memory, from `pos` on: the line without its LF or
/// CRLF, and `pos` moved past it. False once the text is used up (a final line without a line
/// break is still returned; so is an empty last line after a final LF, as a blank line).
inline bool next_text_line(std::string_view text, std::size_t& pos, std::string_view& line) {
  if (pos > text.size()) return false;
  std::size_t stop = text.find('\n', pos);
  if (stop == std::string_view::npos) stop = text.size();
  line = text.substr(pos, stop - pos);
  pos = stop + 1;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return true;
}

/// `value` as one CSV field: quoted when it holds a comma, a quote, a line break or leading or
/// trailing spaces; bytes that are not valid UTF-8, and control characters, become '?'.
std::string csv_field(std::string_view value);

/// What csv_text_field changed in a value.
struct TextRepairs {
  bool replaced = false;  ///< bytes written as '?' (invalid UTF-8, controls, bidi controls)
  bool formula = false;   ///< a leading apostrophe added (the value would read as a formula)
};

/// Free text copied from an input into a CSV that people open in spreadsheets (the extra
/// columns of an imported trace), as one field: as csv_field, and besides
/// - bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to
///   U+2069), which can make a row display in another order than it is stored, become '?';
/// - a value that a spreadsheet would run as a formula gets a leading apostrophe: one starting
///   with '=' or '@', or with '+' or '-' when it is not a plain number ("-1" and "+2.5" stay,
///   "-1+1" and "+cmd" become "'-1+1" and "'+cmd").
/// `repairs`, when given, says which of these (and of csv_field's) were done.
std::string csv_text_field(std::string_view value, TextRepairs* repairs = nullptr);

/// True when `text` is valid UTF-8.
bool is_valid_utf8(std::string_view text);

/// The column of `header` called `name` (exact match), or -1.
int column_of(const std::vector<std::string>& header, std::string_view name);

}  // namespace gpucap::data
