// gpucap: model shapes, GPU specs and iteration profiles of LLM serving (llm_catalog.hpp).
#include "gpucap/llm_catalog.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "gpucap/csv_table.hpp"
#include "gpucap/input_file.hpp"

namespace gpucap {
namespace {

CsvTable read_table(const std::string& path) {
  return CsvTable::parse(
      read_input_file(path, InputLimits::kDefaultDataBytes, "data file", "--max-data-size"),
      path);
}

void require_columns(const CsvTable& t, const std::string& path,
                     const std::vector<std::string>& columns) {
  for (const auto& c : columns)
    if (!t.has_column(c))
      throw std::runtime_error(path + ": no column '" + c + "' (needs " + [&] {
        std::string all;
        for (const auto& x : columns) all += (all.empty() ? "" : ", ") + x;
        return all;
      }() + ")");
}

/// Where data row `row` of `t` lies, for messages: "FILE:LINE: ".
std::string where(const CsvTable& t, std::size_t row) {
  return t.origin() + ":" + std::to_string(t.line_of_row(row)) + ": ";
}

/// A whole number >= 1 read from column `column` of data row `row`.
uint32_t whole(const CsvTable& t, const std::string& column, std::size_t row, double v) {
  if (!(v >= 1 && v <= 1e9 && v == std::floor(v)))
    throw std::runtime_error(where(t, row) + column + " must be a whole number >= 1, not " +
                             std::to_string(v));
  return static_cast<uint32_t>(v);
}

double positive(const CsvTable& t, const std::string& column, std::size_t row, double v) {
  if (!(v > 0 && std::isfinite(v)))
    throw std::runtime_error(where(t, row) + column + " must be a positive number, not " +
                             std::to_string(v));
  return v;
}

}  // namespace

std::vector<LlmModelShape> read_llm_models(const std::string& path) {
  return read_llm_models(read_table(path));
}

std::vector<LlmModelShape> read_llm_models(const CsvTable& t) {
  const std::string& path = t.origin();
  require_columns(t, path, {"model", "parameters_b", "layers", "hidden", "heads", "kv_heads"});
  const auto names = t.strings("model");
  const auto params = t.numbers("parameters_b"), layers = t.numbers("layers"),
             hidden = t.numbers("hidden"), heads = t.numbers("heads"),
             kv = t.numbers("kv_heads");
  std::vector<LlmModelShape> out;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    LlmModelShape m;
    m.name = names[r];
    m.parameters = positive(t, "parameters_b", r, params[r]) * 1e9;
    m.layers = whole(t, "layers", r, layers[r]);
    m.hidden = whole(t, "hidden", r, hidden[r]);
    m.heads = whole(t, "heads", r, heads[r]);
    m.kv_heads = whole(t, "kv_heads", r, kv[r]);
    if (m.hidden % m.heads != 0 || m.heads % m.kv_heads != 0)
      throw std::runtime_error(where(t, r) +
                               "hidden must be a multiple of heads, and heads of kv_heads");
    out.push_back(m);
  }
  return out;
}

std::vector<GpuSpec> read_gpu_specs(const std::string& path) {
  return read_gpu_specs(read_table(path));
}

std::vector<GpuSpec> read_gpu_specs(const CsvTable& t) {
  const std::string& path = t.origin();
  require_columns(t, path, {"gpu", "memory_gb", "bf16_dense_tflops", "memory_tb_per_s",
                            "interconnect_gb_per_s"});
  const auto names = t.strings("gpu");
  const auto mem = t.numbers("memory_gb"), tflops = t.numbers("bf16_dense_tflops"),
             tbs = t.numbers("memory_tb_per_s"), link = t.numbers("interconnect_gb_per_s");
  std::vector<GpuSpec> out;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    GpuSpec g;
    g.gpu = names[r];
    g.memory_gb = positive(t, "memory_gb", r, mem[r]);
    g.flops_per_s = positive(t, "bf16_dense_tflops", r, tflops[r]) * 1e12;
    g.memory_bytes_per_s = positive(t, "memory_tb_per_s", r, tbs[r]) * 1e12;
    g.interconnect_bytes_per_s = positive(t, "interconnect_gb_per_s", r, link[r]) * 1e9;
    out.push_back(g);
  }
  return out;
}

const std::vector<std::string>& vidur_layer_operators() {
  static const std::vector<std::string> ops = {
      "input_layernorm", "attn_pre_proj", "attn_rope",   "attn_post_proj", "post_attention_layernorm",
      "mlp_up_proj",     "mlp_act",       "mlp_down_proj", "add"};
  return ops;
}

std::vector<std::pair<double, double>> read_llm_profile(const std::string& path, uint32_t layers,
                                                        uint32_t tensor_parallel) {
  return read_llm_profile(read_table(path), layers, tensor_parallel);
}

std::vector<std::pair<double, double>> read_llm_profile(const CsvTable& t, uint32_t layers,
                                                        uint32_t tensor_parallel) {
  const std::string& path = t.origin();
  std::vector<std::pair<double, double>> rows;
  if (t.has_column("num_tokens") && t.has_column("time_ms")) {
    const auto tokens = t.numbers("num_tokens"), ms = t.numbers("time_ms");
    for (std::size_t r = 0; r < t.rows(); ++r)
      rows.emplace_back(whole(t, "num_tokens", r, tokens[r]),
                        positive(t, "time_ms", r, ms[r]) / 1000.0);
  } else if (t.has_column("num_tokens") && t.has_column("num_tensor_parallel_workers") &&
             t.has_column("time_stats.emb.median")) {
    std::vector<std::string> columns = {"time_stats.emb.median"};
    for (const auto& op : vidur_layer_operators()) columns.push_back("time_stats." + op + ".median");
    require_columns(t, path, columns);
    const auto tokens = t.numbers("num_tokens"), tp = t.numbers("num_tensor_parallel_workers");
    std::vector<std::vector<double>> op_ms;
    for (const auto& c : columns) op_ms.push_back(t.numbers(c));
    for (std::size_t r = 0; r < t.rows(); ++r) {
      if (tp[r] != tensor_parallel) continue;
      double per_layer = 0;
      for (std::size_t k = 1; k < columns.size(); ++k) per_layer += op_ms[k][r];
      const double ms = op_ms[0][r] + layers * per_layer;
      rows.emplace_back(whole(t, "num_tokens", r, tokens[r]), positive(t, "the operators' medians (summed)", r, ms) / 1000.0);
    }
    if (rows.empty())
      throw std::runtime_error(path + ": no row for " + std::to_string(tensor_parallel) +
                               " tensor-parallel workers (num_tensor_parallel_workers)");
  } else {
    throw std::runtime_error(path +
                             ": an iteration profile needs columns num_tokens and time_ms, or "
                             "Vidur's time_stats.OP.median, num_tokens and "
                             "num_tensor_parallel_workers");
  }
  if (rows.empty()) throw std::runtime_error(path + ": no rows");
  // Rows of the same token count (profiled twice: Vidur's 2,048 and 4,096) are averaged, in
  // ascending order of their times.
  std::sort(rows.begin(), rows.end());
  std::vector<std::pair<double, double>> merged;
  for (std::size_t k = 0; k < rows.size();) {
    std::size_t end = k;
    double sum = 0;
    for (; end < rows.size() && rows[end].first == rows[k].first; ++end) sum += rows[end].second;
    merged.emplace_back(rows[k].first, sum / static_cast<double>(end - k));
    k = end;
  }
  return merged;
}

LlmShape llm_shape(const LlmModelShape& model, const GpuSpec& gpu, uint32_t gpus,
                   const LlmEfficiency& e) {
  LlmShape s;
  s.linear_flops_per_token = 2.0 * model.parameters;
  s.attention_flops_per_position = 4.0 * model.layers * model.hidden;
  s.weight_bytes = model.weight_bytes();
  s.kv_bytes_per_token = model.kv_bytes_per_token();
  s.flops_per_s = gpus * gpu.flops_per_s * e.flops;
  s.bytes_per_s = gpus * gpu.memory_bytes_per_s * e.bandwidth;
  s.overhead_s = e.overhead_s;
  if (gpus > 1) {
    const double ring = 2.0 * (gpus - 1) / gpus;
    s.allreduce_s_per_token = model.layers * 2.0 * model.hidden * model.bytes_per_value * ring /
                              (gpu.interconnect_bytes_per_s * e.interconnect);
  }
  return s;
}

double llm_kv_cache_tokens(const LlmModelShape& model, double memory_gb, uint32_t gpus,
                           const LlmEfficiency& e) {
  const double usable = gpus * (memory_gb * e.memory_share - e.activation_reserve_gb) * 1e9;
  return (usable - model.weight_bytes()) / model.kv_bytes_per_token();
}

uint32_t llm_kv_cache_blocks(const LlmModelShape& model, double memory_gb, uint32_t gpus,
                             const LlmEfficiency& e, uint32_t block_tokens) {
  const double blocks = std::floor(llm_kv_cache_tokens(model, memory_gb, gpus, e) / block_tokens);
  return blocks >= 1 ? static_cast<uint32_t>(std::min(blocks, 4e9)) : 0u;
}

const std::vector<LlmModelShape>& shipped_llm_models() {
  static const std::vector<LlmModelShape> models =
      read_llm_models(CsvTable::parse(shipped_llm_models_csv(), "data/llm_models.csv (shipped)"));
  return models;
}

const std::vector<GpuSpec>& shipped_gpu_specs() {
  static const std::vector<GpuSpec> specs =
      read_gpu_specs(CsvTable::parse(shipped_gpu_specs_csv(), "data/gpu_specs.csv (shipped)"));
  return specs;
}

}  // namespace gpucap
