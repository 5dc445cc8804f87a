// gpucap: the name tables of the scenario's enumerated keys (see choices.hpp).
#include "gpucap/choices.hpp"

#include "gpucap/purchase_options.hpp"

namespace gpucap {

template <>
const std::vector<Choice<ProviderKind>>& choices_of<ProviderKind>() {
  static const std::vector<Choice<ProviderKind>> kTable = {
      {"hyperscaler", ProviderKind::hyperscaler}, {"gpu_cloud", ProviderKind::gpu_cloud},
      {"serverless", ProviderKind::serverless},   {"marketplace", ProviderKind::marketplace},
      {"onprem", ProviderKind::onprem}};
  return kTable;
}

template <>
const std::vector<Choice<PurchaseOption>>& choices_of<PurchaseOption>() {
  static const std::vector<Choice<PurchaseOption>> kTable = [] {
    std::vector<Choice<PurchaseOption>> table;
    for (const PurchaseOptionInfo& o : purchase_options()) table.push_back({o.name, o.option});
    return table;
  }();
  return kTable;
}

template <>
const std::vector<Choice<CompiledPool::PriceModel>>& choices_of<CompiledPool::PriceModel>() {
  static const std::vector<Choice<CompiledPool::PriceModel>> kTable = {
      {"trace", CompiledPool::kTracePrice},
      {"mean_reverting", CompiledPool::kMeanRevertingPrice},
      {"ornstein_uhlenbeck", CompiledPool::kOrnsteinUhlenbeckPrice}};
  return kTable;
}

template <>
const std::vector<Choice<TraceEnd>>& choices_of<TraceEnd>() {
  static const std::vector<Choice<TraceEnd>> kTable = {
      {"repeat", TraceEnd::repeat}, {"unavailable", TraceEnd::unavailable}, {"last", TraceEnd::last}};
  return kTable;
}

template <>
const std::vector<Choice<WorkloadKind>>& choices_of<WorkloadKind>() {
  static const std::vector<Choice<WorkloadKind>> kTable = {{"training", WorkloadKind::training},
                                                           {"batch", WorkloadKind::batch},
                                                           {"inference", WorkloadKind::inference},
                                                           {"deployment", WorkloadKind::deployment}};
  return kTable;
}

template <>
const std::vector<Choice<ArrivalKind>>& choices_of<ArrivalKind>() {
  static const std::vector<Choice<ArrivalKind>> kTable = {
      {"poisson", ArrivalKind::poisson}, {"nhpp", ArrivalKind::profile}, {"trace", ArrivalKind::trace}};
  return kTable;
}

template <>
const std::vector<Choice<TraceResample>>& choices_of<TraceResample>() {
  static const std::vector<Choice<TraceResample>> kTable = {
      {"moving", TraceResample::moving}, {"stationary", TraceResample::stationary}};
  return kTable;
}

template <>
const std::vector<Choice<QueueDiscipline>>& choices_of<QueueDiscipline>() {
  static const std::vector<Choice<QueueDiscipline>> kTable = {
      {"fifo", QueueDiscipline::fifo},
      {"priority", QueueDiscipline::priority},
      {"sjf", QueueDiscipline::shortest_job_first},
      {"shortest_job_first", QueueDiscipline::shortest_job_first}};
  return kTable;
}

template <>
const std::vector<Choice<DistKind>>& choices_of<DistKind>() {
  static const std::vector<Choice<DistKind>> kTable = {
      {"deterministic", DistKind::deterministic}, {"exponential", DistKind::exponential},
      {"uniform", DistKind::uniform},             {"lognormal", DistKind::lognormal},
      {"gamma", DistKind::gamma},                 {"weibull", DistKind::weibull},
      {"pareto", DistKind::pareto},               {"empirical", DistKind::empirical}};
  return kTable;
}

template <>
const std::vector<Choice<PartialPeriods>>& choices_of<PartialPeriods>() {
  static const std::vector<Choice<PartialPeriods>> kTable = {{"keep", PartialPeriods::keep},
                                                             {"drop", PartialPeriods::drop}};
  return kTable;
}

template <>
const std::vector<Choice<BlankEnd>>& choices_of<BlankEnd>() {
  static const std::vector<Choice<BlankEnd>> kTable = {{"still_running", BlankEnd::still_running}};
  return kTable;
}

}  // namespace gpucap
