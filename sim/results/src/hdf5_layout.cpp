// gpucap: the layout table of the HDF5 results file in words (gpucap/hdf5_layout.hpp): item
// paths, type names and the generated parts of docs/results-format.md.
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/detail/text.hpp"
#include "gpucap/hdf5_layout.hpp"
#include "gpucap/hdf5_results.hpp"
#include "gpucap/metrics.hpp"

namespace gpucap {

std::string hdf5_item_path(const Hdf5Item& item) {
  if (item.kind == Hdf5Kind::attribute) return std::string(item.parent) + "@" + item.name;
  if (*item.parent == '\0') return item.name;
  const std::string parent = item.parent;
  return parent == "/" ? "/" + std::string(item.name) : parent + "/" + item.name;
}

std::string hdf5_type_name(Hdf5Type type, std::size_t bytes) {
  switch (type) {
    case Hdf5Type::none:
      return "";
    case Hdf5Type::int32:
      return "int32";
    case Hdf5Type::uint32:
      return "uint32";
    case Hdf5Type::uint64:
      return "uint64";
    case Hdf5Type::float64:
      return "float64";
    case Hdf5Type::string:
      return "string";
    case Hdf5Type::fixed_string:
      return "fixed string, " + std::to_string(bytes) + " bytes";
    case Hdf5Type::compound:
      return "compound";
  }
  return "";
}

namespace {

/// `text` padded with spaces to `width`, and at least one space after it.
std::string pad(const std::string& text, std::size_t width) {
  return text.size() < width ? text + std::string(width - text.size(), ' ') : text + " ";
}

/// An item's type as the tables show it: "string (variable)", "string array [O]", "uint64".
std::string type_cell(const Hdf5Item& item) {
  std::string type = hdf5_type_name(item.type);
  if (item.type == Hdf5Type::string) type += *item.shape ? " array" : " (variable)";
  return *item.shape ? type + " " + item.shape : type;
}

std::string meaning_cell(const Hdf5Item& item) {
  std::string text = item.description;
  if (*item.presence) text += std::string(" (") + item.presence + ")";
  return text;
}

std::string overview_markdown() {
  // Rows of (path, kind, note), then printed in aligned columns.
  std::vector<std::array<std::string, 3>> rows;
  rows.push_back({"bytes 0-" + std::to_string(kHdf5UserBlockBytes - 1),
                  "user block: \"" +
                      std::string(kHdf5UserBlockMagic, sizeof kHdf5UserBlockMagic - 2) +
                      "\", checksum, size",
                  ""});
  for (const Hdf5Item* item : kHdf5Layout) {
    if (item->kind == Hdf5Kind::attribute) continue;
    const std::string path = hdf5_item_path(*item);
    const std::string note = *item->presence ? item->presence : item->description;
    if (item->kind == Hdf5Kind::dataset) {
      rows.push_back({path, pad(hdf5_type_name(item->type), 9) + item->shape, note});
    } else if (path == "/") {
      rows.push_back({path, item->description, ""});
    } else {
      std::vector<std::string> attributes;
      for (const Hdf5Item* a : kHdf5Layout)
        if (a->kind == Hdf5Kind::attribute && path == a->parent) attributes.push_back(a->name);
      std::string kind = "group";
      if (!attributes.empty())
        kind += std::string(attributes.size() == 1 ? ", attribute " : ", attributes ") +
                text::join(attributes, ", ");
      rows.push_back({path, kind, note});
    }
  }
  std::size_t path_width = 0, kind_width = 0;
  for (const auto& row : rows) {
    path_width = std::max(path_width, row[0].size() + 2);
    if (!row[2].empty()) kind_width = std::max(kind_width, row[1].size() + 2);
  }
  std::string out = "```\n";
  for (const auto& row : rows)
    out += pad(row[0], path_width) + (row[2].empty() ? row[1] : pad(row[1], kind_width) + row[2]) +
           "\n";
  return out + "```\n";
}

std::string notation_markdown() {
  return "This is format version " + std::to_string(kResultsFormatVersion) + " (root attribute `" +
         h5::kFormatVersion.name + "`). Notation: " + kHdf5Notation +
         ", `M` = number of scalar metrics (" + std::to_string(kScalarMetricCount) +
         "), `N` = number of pool metrics (" + std::to_string(kPoolMetricCount) + ").\n";
}

std::string root_attributes_markdown() {
  std::string out =
      "| attribute | type | unit | meaning |\n|-----------|------|------|---------|\n";
  for (const Hdf5Item* item : kHdf5Layout)
    if (item->kind == Hdf5Kind::attribute && std::string(item->parent) == "/")
      out += std::string("| `") + item->name + "` | " + type_cell(*item) + " | " + item->unit +
             " | " + meaning_cell(*item) + " |\n";
  return out;
}

std::string group_attributes_markdown() {
  std::string out =
      "| on | attribute | type | unit | meaning |\n|----|-----------|------|------|---------|\n";
  for (const Hdf5Item* item : kHdf5Layout)
    if (item->kind == Hdf5Kind::attribute && std::string(item->parent) != "/") {
      const bool generic = std::string(item->parent) == kHdf5EveryMetricDataset;
      out += "| " + (generic ? std::string(item->parent) : "`" + std::string(item->parent) + "`") +
             " | `" + item->name + "` | " + type_cell(*item) + " | " + item->unit + " | " +
             meaning_cell(*item) + " |\n";
    }
  return out;
}

std::string fields_markdown(bool pool) {
  std::string out = "| field | type | meaning |\n|-------|------|---------|\n";
  std::string order;
  for (const Hdf5Field* f : kHdf5SummaryFields) {
    if (f->pool_only && !pool) continue;
    order += (order.empty() ? "" : ", ") + std::string(f->name);
    if (pool && !f->pool_only) continue;  // the pool table lists what it adds
    out += std::string("| `") + f->name + "` | " + hdf5_type_name(f->type, f->bytes) + " | " +
           f->description + " |\n";
  }
  return out + "\nField order: `" + order + "`.\n";
}

}  // namespace

std::string hdf5_layout_markdown(const std::string& part) {
  if (part == "notation") return notation_markdown();
  if (part == "overview") return overview_markdown();
  if (part == "root-attributes") return root_attributes_markdown();
  if (part == "group-attributes") return group_attributes_markdown();
  if (part == "summary-fields") return fields_markdown(false);
  if (part == "pool-summary-fields") return fields_markdown(true);
  throw std::invalid_argument("hdf5_layout_markdown: no part '" + part +
                              "'; the parts are notation, overview, root-attributes, "
                              "group-attributes, summary-fields, pool-summary-fields");
}

}  // namespace gpucap
