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

  /// For backends that copy the model to a device: calls visit(field, array) for every array
  /// the model points into, where `field` is the matching pointer member of `view` (a copy of
  /// model()) and `array` the std::vector that owns the data; the visitor repoints the field.
  ///   storage.for_each_array(view, [&](auto& field, const auto& array) { field = upload(array);
  ///   });
  template <class Visit>
  void for_each_array(CompiledModel& view, Visit&& visit) const {
    visit(view.pools, pools_);
    visit(view.classes, classes_);
    visit(view.placement, placement_);
    visit(view.table, table_);
    visit(view.trace_submit_s, trace_submit_s_);
    visit(view.trace_gpus, trace_gpus_);
    visit(view.trace_work_s, trace_work_s_);
    visit(view.transfer_s, transfer_s_);
    visit(view.transfer_egress_usd, transfer_egress_usd_);
    visit(view.pool_link_s_per_gb, pool_link_s_per_gb_);
    visit(view.pool_link_latency_s, pool_link_latency_s_);
    visit(view.pool_egress_usd_per_gb, pool_egress_usd_per_gb_);
    visit(view.run_speed, run_speed_);
    visit(view.services, services_);
    visit(view.initial, initial_);
    visit(view.commitments, commitments_);
    visit(view.llm, llm_);
    visit(view.llm_tokens, llm_tokens_);
  }

 private:
  friend ModelStorage compile_model(const Scenario& scenario, bool with_trace_rows);
  friend struct ModelCompiler;  ///< compile_model's steps (compile.cpp)
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
  std::vector<InitialInstance> initial_;
  std::vector<CompiledCommitment> commitments_;
  std::vector<CompiledLlm> llm_;
  std::vector<uint32_t> llm_tokens_;
};

ModelStorage compile(const Scenario& scenario);

/// As compile, but without copying the trace rows (the trace arrays stay empty; each class's
/// trace_offset and trace_count are as compile sets them): a model to size, not to run, e.g.
/// replication_arena_bytes of a scenario whose trace has millions of rows.
ModelStorage compile_without_trace_rows(const Scenario& scenario);

/// The one implementation of both (with_trace_rows: compile).
ModelStorage compile_model(const Scenario& scenario, bool with_trace_rows);

}  // namespace gpucap
