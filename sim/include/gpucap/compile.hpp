// gpucap: compiling a validated Scenario into the flat CompiledModel the engine runs.
//
//   gpucap::ModelStorage storage = gpucap::compile(scenario);
//   const gpucap::CompiledModel& model = storage.model();
#pragma once
#include <cstdint>
#include <vector>

#include "gpucap/compiled_model.hpp"
#include "gpucap/scenario.hpp"

namespace gpucap {

/// Owns the arrays a CompiledModel points into. Not copyable (the view would dangle); movable.
class ModelStorage {
 public:
  ModelStorage() = default;
  ModelStorage(const ModelStorage&) = delete;
  ModelStorage& operator=(const ModelStorage&) = delete;
  ModelStorage(ModelStorage&& other) noexcept { *this = std::move(other); }
  ModelStorage& operator=(ModelStorage&& other) noexcept;

  const CompiledModel& model() const { return model_; }

 private:
  friend ModelStorage compile(const Scenario& scenario);
  void bind();  ///< points model_ at the vectors below

  CompiledModel model_;
  std::vector<CompiledPool> pools_;
  std::vector<CompiledJobClass> classes_;
  std::vector<uint32_t> placement_;
  std::vector<double> table_;
  std::vector<double> trace_submit_s_;
  std::vector<uint32_t> trace_gpus_;
  std::vector<double> trace_work_s_;
  std::vector<double> transfer_s_;
  std::vector<double> transfer_egress_usd_;
  std::vector<double> pool_link_s_per_gb_;
  std::vector<double> pool_link_latency_s_;
  std::vector<double> pool_egress_usd_per_gb_;
  std::vector<double> run_speed_;
  std::vector<CompiledService> services_;
};

ModelStorage compile(const Scenario& scenario);

}  // namespace gpucap
