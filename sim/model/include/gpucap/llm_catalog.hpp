// gpucap: the facts LLM serving needs from outside the scenario (docs/llm-serving.md): model
// shapes (data/llm_models.csv), GPU hardware (data/gpu_specs.csv), a profile of the linear
// layers' time against tokens (a user's CSV, or Vidur's per-operator profile), and the compiled
// LlmShape and KV-cache size of a replica.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gpucap/csv_table.hpp"
#include "gpucap/llm_iteration.hpp"

namespace gpucap {

/// An LLM's shape (a row of data/llm_models.csv, or the scenario's own).
struct LlmModelShape {
  std::string name;
  double parameters = 0;  ///< count (not billions)
  uint32_t layers = 0;
  uint32_t hidden = 0;
  uint32_t heads = 0;
  uint32_t kv_heads = 0;
  double bytes_per_value = 2;  ///< weights and KV cache (2: BF16 / FP16)

  double head_size() const { return static_cast<double>(hidden) / heads; }
  /// KV-cache bytes a token holds: 2 (K and V) x layers x KV heads x head size x bytes.
  double kv_bytes_per_token() const { return 2.0 * layers * kv_heads * head_size() * bytes_per_value; }
  double weight_bytes() const { return parameters * bytes_per_value; }
};

/// A GPU's hardware (a row of data/gpu_specs.csv). Peak figures.
struct GpuSpec {
  std::string gpu;
  double memory_gb = 0;
  double flops_per_s = 0;               ///< dense BF16 tensor FLOP/s
  double memory_bytes_per_s = 0;        ///< HBM / GDDR bandwidth
  double interconnect_bytes_per_s = 0;  ///< per direction, between the GPUs of a replica
};

/// How well a replica uses its GPUs: shares of peak FLOP/s and bandwidth it reaches, the fixed
/// time of an iteration, and the share of GPU memory the engine may use (vLLM's
/// gpu_memory_utilization) for weights, activations and the KV cache.
struct LlmEfficiency {
  double flops = 0.5;
  double bandwidth = 0.8;
  double interconnect = 0.7;
  double overhead_s = 0.002;
  double memory_share = 0.9;
  double activation_reserve_gb = 1.0;  ///< per GPU, kept out of the KV cache
};

/// The rows of data/llm_models.csv (or another file of its columns: model, parameters_b, layers,
/// hidden, heads, kv_heads). Throws std::runtime_error naming file and line on a bad row.
std::vector<LlmModelShape> read_llm_models(const std::string& path);
std::vector<LlmModelShape> read_llm_models(const CsvTable& table);
/// The rows of data/gpu_specs.csv (gpu, memory_gb, bf16_dense_tflops, memory_tb_per_s,
/// interconnect_gb_per_s).
std::vector<GpuSpec> read_gpu_specs(const std::string& path);
std::vector<GpuSpec> read_gpu_specs(const CsvTable& table);

/// The shipped tables (data/llm_models.csv, data/gpu_specs.csv), built into the program: a
/// scenario names their rows without a file. Their CSV text, and the rows read once.
const char* shipped_llm_models_csv();
const char* shipped_gpu_specs_csv();
const std::vector<LlmModelShape>& shipped_llm_models();
const std::vector<GpuSpec>& shipped_gpu_specs();

/// A profile of the linear layers' time of one iteration against its tokens, (tokens, seconds)
/// rows, tokens strictly ascending. Two formats: a CSV with columns `num_tokens` and `time_ms`
/// (the iteration's linear time), or Vidur's per-operator profile (columns
/// time_stats.OP.median in ms and num_tokens, num_tensor_parallel_workers): the rows of
/// `tensor_parallel` workers, their per-layer operators' medians summed and times `layers`,
/// plus the embedding once. Rows of one token count are averaged (Vidur profiled 2,048 and
/// 4,096 tokens twice). Throws std::runtime_error naming the file when neither format fits.
std::vector<std::pair<double, double>> read_llm_profile(const std::string& path, uint32_t layers,
                                                        uint32_t tensor_parallel);
std::vector<std::pair<double, double>> read_llm_profile(const CsvTable& table, uint32_t layers,
                                                        uint32_t tensor_parallel);

/// The per-layer operators of Vidur's MLP profile that gpucap sums (each once a layer).
const std::vector<std::string>& vidur_layer_operators();

/// The shape of a replica of `gpus` GPUs (tensor parallel) of `gpu` running `model`, in the
/// roofline form (a profile's rows are the caller's to place: LlmShape::profile_offset).
LlmShape llm_shape(const LlmModelShape& model, const GpuSpec& gpu, uint32_t gpus,
                   const LlmEfficiency& efficiency);

/// KV-cache tokens of a replica: (gpus x memory_gb x memory_share - weights - gpus x activation
/// reserve) / KV bytes per token; negative when the weights do not fit. memory_gb: the pool's
/// GPU memory (or the spec's).
double llm_kv_cache_tokens(const LlmModelShape& model, double memory_gb, uint32_t gpus,
                           const LlmEfficiency& efficiency);

/// Whole KV-cache blocks of `block_tokens` tokens in that cache, at most 4e9; 0 when none fits.
uint32_t llm_kv_cache_blocks(const LlmModelShape& model, double memory_gb, uint32_t gpus,
                             const LlmEfficiency& efficiency, uint32_t block_tokens);

}  // namespace gpucap
