// gpucap: the table of purchase options (see purchase_options.hpp).
#include "gpucap/purchase_options.hpp"

#include <stdexcept>

namespace gpucap {

const std::vector<PurchaseOptionInfo>& purchase_options() {
  // clang-format off
  static const std::vector<PurchaseOptionInfo> kOptions = {
      {PurchaseOption::on_demand, "on_demand", PriceRule::per_hold, CatalogPrice::on_demand,
       false, false, false, true, "pay per GPU-hour held, no commitment"},
      {PurchaseOption::spot, "spot", PriceRule::per_hold, CatalogPrice::spot,
       true, false, false, false, "spare capacity at a discount, reclaimed by the provider"},
      {PurchaseOption::reserved, "reserved", PriceRule::committed, CatalogPrice::none,
       false, true, false, false,
       "a capacity reservation: a count of GPUs held for the whole horizon, paid used or not"},
      {PurchaseOption::owned, "owned", PriceRule::amortized, CatalogPrice::none,
       false, true, false, false, "GPUs bought: capex amortized over years, plus opex"},
      {PurchaseOption::marketplace, "marketplace", PriceRule::per_hold, CatalogPrice::on_demand,
       true, false, false, false, "a decentralized marketplace: per GPU-hour, nodes fail or leave"},
      {PurchaseOption::serverless, "serverless", PriceRule::per_replica, CatalogPrice::on_demand,
       false, false, true, false, "replicas of inference services, cold-started and scaled to zero"},
  };
  // clang-format on
  return kOptions;
}

const PurchaseOptionInfo& purchase_info(PurchaseOption option) {
  const auto& options = purchase_options();
  const std::size_t i = static_cast<std::size_t>(option);
  if (i >= options.size() || options[i].option != option)
    throw std::logic_error("purchase option " + std::to_string(i) + " has no row in the table");
  return options[i];
}

const PurchaseOptionInfo* find_purchase_option(const std::string& name) {
  for (const PurchaseOptionInfo& o : purchase_options())
    if (name == o.name) return &o;
  return nullptr;
}

std::string purchase_option_names(const char* separator) {
  std::string out;
  for (const PurchaseOptionInfo& o : purchase_options())
    out += (out.empty() ? "" : separator) + std::string(o.name);
  return out;
}

std::string purchase_option_list(bool (*which)(const PurchaseOptionInfo&), const char* last) {
  std::vector<const char*> names;
  for (const PurchaseOptionInfo& o : purchase_options())
    if (which(o)) names.push_back(o.name);
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? last : ", ") + std::string(names[i]);
  return out;
}

}  // namespace gpucap
