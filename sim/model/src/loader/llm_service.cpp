// gpucap: scenario loader, the `llm:` block of an inference service (an LLM service; see
// docs/llm-serving.md and llm_serving.hpp).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "gpucap/distribution.hpp"
#include "gpucap/llm_catalog.hpp"
#include "loader.hpp"

namespace gpucap::loader {
namespace {

/// Names in a list, for messages: "a, b, c".
template <class Rows, class Name>
std::string names_of(const Rows& rows, Name name) {
  std::string all;
  for (const auto& r : rows) all += (all.empty() ? "" : ", ") + name(r);
  return all;
}

/// The GPU of pool `pool_name` in `specs` (its gpu_memory_gb, when declared, replaces the
/// table's memory).
GpuSpec pool_gpu(const Context& ctx, const YAML::Node& at, const std::string& path,
                 const Scenario& s, const std::string& pool_name,
                 const std::vector<GpuSpec>& specs, const std::string& table) {
  const PoolSpec& pool = s.pools[s.pool_index(pool_name)];
  for (const GpuSpec& g : specs)
    if (g.gpu == pool.gpu) {
      GpuSpec out = g;
      if (pool.gpu_memory_gb > 0) out.memory_gb = pool.gpu_memory_gb;
      return out;
    }
  ctx.fail(at, path,
           "pool \"" + pool_name + "\" has gpu \"" + text::excerpt(pool.gpu, 60) + "\", which " +
               table + " does not describe (it has " +
               names_of(specs, [](const GpuSpec& g) { return g.gpu; }) +
               "); name one of those in the pool's gpu, or give llm.gpu_specs_file");
  return {};
}

/// The (context, output) token columns of a token table: ours, or Azure's.
std::pair<std::string, std::string> token_columns(const Context& ctx, const YAML::Node& at,
                                                  const std::string& path, const CsvTable& t,
                                                  const std::string& file) {
  if (!t.has_column("context_tokens") && t.has_column("ContextTokens"))
    return {"ContextTokens", "GeneratedTokens"};
  if (!t.has_column("context_tokens") || !t.has_column("output_tokens"))
    ctx.fail(at, path,
             "'" + text::excerpt(file, 200) +
                 "' needs columns context_tokens and output_tokens (or Azure's ContextTokens "
                 "and GeneratedTokens)");
  return {"context_tokens", "output_tokens"};
}

/// The token counts of every row of `file` as (context, output) pairs; a row without a prompt
/// or an output token gets (0, 0) (nothing to run: the callers leave it out).
std::vector<uint32_t> read_token_rows(const Context& ctx, const YAML::Node& at,
                                      const std::string& path, const std::string& file) {
  const CsvTable t = ctx.read_csv(at, path, file);
  const auto [context, output] = token_columns(ctx, at, path, t, file);
  std::vector<double> c, o;
  try {
    c = t.numbers(context);
    o = t.numbers(output);
  } catch (const std::exception& e) {
    ctx.fail(at, path, e.what());
  }
  std::vector<uint32_t> pairs;
  pairs.reserve(2 * c.size());
  for (std::size_t r = 0; r < c.size(); ++r) {
    const bool runs = c[r] >= 1 && o[r] >= 1;
    if (runs && (c[r] > 1e6 || o[r] > 1e6 || c[r] != std::floor(c[r]) || o[r] != std::floor(o[r])))
      ctx.fail(at, path,
               "'" + text::excerpt(file, 200) + "' line " + std::to_string(t.line_of_row(r)) +
                   ": token counts must be whole numbers up to 1000000");
    pairs.push_back(runs ? static_cast<uint32_t>(c[r]) : 0u);
    pairs.push_back(runs ? static_cast<uint32_t>(o[r]) : 0u);
  }
  return pairs;
}

/// Requests drawn from token-count distributions at load time (`tokens: {context: {dist: ...}}`).
constexpr std::size_t kTokenDrawRows = 16384;

/// `kTokenDrawRows` counts of `spec`, drawn from a fixed stream (`stream`: the same sample on
/// every run and backend), rounded to whole tokens and kept within [1, 1000000].
std::vector<uint32_t> draw_token_counts(const DistributionSpec& spec, uint32_t stream) {
  std::vector<double> table = spec.samples;
  // With a tail the engine keeps an empirical sample sorted (compile.cpp): so does this draw.
  if (spec.kind == DistKind::empirical && spec.p0 > 0) std::sort(table.begin(), table.end());
  Distribution d;
  d.kind = spec.kind;
  d.p0 = spec.p0;
  d.p1 = spec.p1;
  d.table_count = static_cast<uint32_t>(table.size());
  RandomStream rng = RandomStream::make(0x6c6c6d746f6b656eull, 0, stream);  // "llmtoken"
  std::vector<uint32_t> counts(kTokenDrawRows);
  for (uint32_t& c : counts) {
    const double v = std::round(sample(d, rng, table.data()));
    c = static_cast<uint32_t>(std::min(std::max(v, 1.0), 1e6));
  }
  return counts;
}

/// One of `tokens`' counts: a whole number (every request the same), or a distribution (a
/// mapping with `dist`) drawn into kTokenDrawRows counts.
std::vector<uint32_t> read_token_count(const Context& ctx, const YAML::Node& node,
                                       const std::string& path, uint32_t stream) {
  if (node.IsMap())
    return draw_token_counts(read_distribution(ctx, node, path), stream);
  return {static_cast<uint32_t>(read_key_integer(ctx, node, path))};
}

/// `tokens`: {context, output} or {sample: FILE}, as (context, output) pairs.
std::vector<uint32_t> read_tokens(const Context& ctx, const YAML::Node& node,
                                  const std::string& path) {
  expect_map(ctx, node, path, {"context", "output", "sample"});
  std::vector<uint32_t> pairs;
  if (node["sample"]) {
    if (node["context"] || node["output"])
      ctx.fail(node["sample"], path + ".sample",
               "give either a sample file or fixed context and output counts, not both");
    const std::string file = read_string(ctx, node["sample"], path + ".sample");
    const std::vector<uint32_t> rows = read_token_rows(ctx, node["sample"], path + ".sample", file);
    // A request without a prompt token or an output token has nothing to run: left out.
    for (std::size_t i = 0; i + 1 < rows.size(); i += 2)
      if (rows[i] >= 1) pairs.insert(pairs.end(), {rows[i], rows[i + 1]});
    if (pairs.empty())
      ctx.fail(node["sample"], path + ".sample",
               "'" + text::excerpt(file, 200) + "' has no request with context and output >= 1");
    return pairs;
  }
  // Counts or distributions; a fixed count pairs with every draw of the other.
  const std::vector<uint32_t> context = read_token_count(
      ctx, require(ctx, node, path, "context", "prompt tokens per request (or sample: FILE)"),
      path + ".context", 0);
  const std::vector<uint32_t> output = read_token_count(
      ctx, require(ctx, node, path, "output", "output tokens per request"), path + ".output", 1);
  const std::size_t rows = std::max(context.size(), output.size());
  for (std::size_t r = 0; r < rows; ++r)
    pairs.insert(pairs.end(), {context[context.size() == 1 ? 0 : r], output[output.size() == 1 ? 0 : r]});
  return pairs;
}

void read_efficiency(const Context& ctx, const YAML::Node& node, const std::string& path,
                     LlmEfficiency& e) {
  expect_map(ctx, node, path,
             {"flops", "bandwidth", "interconnect", "overhead", "memory_share",
              "activation_reserve_gb"});
  if (node["flops"]) e.flops = read_key_number(ctx, node["flops"], path + ".flops");
  if (node["bandwidth"])
    e.bandwidth = read_key_number(ctx, node["bandwidth"], path + ".bandwidth");
  if (node["interconnect"])
    e.interconnect = read_key_number(ctx, node["interconnect"], path + ".interconnect");
  if (node["overhead"])
    e.overhead_s = read_key_duration(ctx, node["overhead"], path + ".overhead");
  if (node["memory_share"])
    e.memory_share = read_key_number(ctx, node["memory_share"], path + ".memory_share");
  if (node["activation_reserve_gb"])
    e.activation_reserve_gb =
        read_key_number(ctx, node["activation_reserve_gb"], path + ".activation_reserve_gb");
}

/// The model and GPU tables an LLM service names its rows in: the shipped ones, or the
/// scenario's files (`models_file`, `gpu_specs_file`), with their names for messages.
struct Catalogs {
  std::vector<LlmModelShape> models;
  std::vector<GpuSpec> specs;
  std::string models_table = "data/llm_models.csv", specs_table = "data/gpu_specs.csv";
};

Catalogs read_catalogs(const Context& ctx, const YAML::Node& l, const std::string& lpath) {
  Catalogs c;
  try {
    if (l["models_file"]) {
      const std::string file = read_string(ctx, l["models_file"], lpath + ".models_file");
      c.models = read_llm_models(ctx.read_csv(l["models_file"], lpath + ".models_file", file));
      c.models_table = "'" + text::excerpt(file, 200) + "'";
    } else {
      c.models = shipped_llm_models();
    }
    if (l["gpu_specs_file"]) {
      const std::string file = read_string(ctx, l["gpu_specs_file"], lpath + ".gpu_specs_file");
      c.specs = read_gpu_specs(ctx.read_csv(l["gpu_specs_file"], lpath + ".gpu_specs_file", file));
      c.specs_table = "'" + text::excerpt(file, 200) + "'";
    } else {
      c.specs = shipped_gpu_specs();
    }
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const InputFileError*>(&e) != nullptr) throw;
    ctx.fail(l, lpath, e.what());
  }
  return c;
}

/// The batching keys: max_sequences, max_batched_tokens, block_tokens, chunked_prefill.
void read_batching(const Context& ctx, const YAML::Node& l, const std::string& lpath,
                   LlmServiceSpec& llm) {
  if (l["max_sequences"])
    llm.max_sequences = static_cast<uint32_t>(
        read_key_integer(ctx, l["max_sequences"], lpath + ".max_sequences"));
  if (l["max_batched_tokens"])
    llm.max_batched_tokens = static_cast<uint32_t>(
        read_key_integer(ctx, l["max_batched_tokens"], lpath + ".max_batched_tokens"));
  if (l["block_tokens"])
    llm.block_tokens =
        static_cast<uint32_t>(read_key_integer(ctx, l["block_tokens"], lpath + ".block_tokens"));
  if (l["chunked_prefill"])
    llm.chunked_prefill = read_bool(ctx, l["chunked_prefill"], lpath + ".chunked_prefill");
}

/// Fails when the weights leave no KV-cache block on a replica of `gpus` GPUs of `gpu`.
void check_kv_cache(const Context& ctx, const YAML::Node& at, const std::string& path,
                    const LlmServiceSpec& llm, const GpuSpec& gpu, uint32_t gpus,
                    const std::string& pool_name) {
  if (llm_kv_cache_blocks(llm.model, gpu.memory_gb, gpus, llm.efficiency, llm.block_tokens) == 0)
    ctx.fail(at, path,
             llm.model.name + " (" + text::format_number(llm.model.weight_bytes() / 1e9) +
                 " GB of weights) leaves no room for a KV cache on " + std::to_string(gpus) +
                 " x " + gpu.gpu + " (" + text::format_number(gpu.memory_gb) +
                 " GB each) of pool \"" + pool_name +
                 "\"; give the workload more gpus (tensor parallel) or a larger GPU");
}

}  // namespace

void read_llm_service(const Context& ctx, const YAML::Node& node, const std::string& path,
                      const Scenario& s, JobClassSpec& w) {
  const YAML::Node l = node["llm"];
  const std::string lpath = join_path(path, "llm");
  expect_map(ctx, l, lpath, scenario_child_keys("workloads[].llm"));
  ServiceSpec& svc = w.service;
  LlmServiceSpec& llm = svc.llm;
  llm.enabled = true;
  for (const char* key : {"service", "concurrency"})
    if (node[key])
      ctx.fail(node[key], join_path(path, key),
               std::string("an LLM service's requests take the time their tokens take, and a "
                           "replica batches up to llm.max_sequences of them; remove '") +
                   key + "'");
  Catalogs catalogs = read_catalogs(ctx, l, lpath);
  const std::vector<LlmModelShape>& models = catalogs.models;
  const std::vector<GpuSpec>& specs = catalogs.specs;
  const std::string& models_table = catalogs.models_table;
  const std::string& specs_table = catalogs.specs_table;
  const std::string name =
      read_string(ctx, require(ctx, l, lpath, "model", "the LLM, e.g. llama-2-7b"), lpath + ".model");
  bool found = false;
  for (const LlmModelShape& m : models)
    if (m.name == name) llm.model = m, found = true;
  if (!found)
    ctx.fail(l["model"], lpath + ".model",
             "\"" + text::excerpt(name, 60) + "\" is not a model of " + models_table + " (" +
                 names_of(models, [](const LlmModelShape& m) { return m.name; }) + ")");
  llm.gpu = pool_gpu(ctx, node["pool"], join_path(path, "pool"), s, svc.pool, specs, specs_table);
  if (!svc.fallback_pool.empty())
    llm.fallback_gpu = pool_gpu(ctx, node["fallback_pool"], join_path(path, "fallback_pool"), s,
                                svc.fallback_pool, specs, specs_table);
  // A request trace gives each request's tokens (assign_trace_tokens, once the arrivals are
  // read); a rate needs `tokens`.
  const YAML::Node arrivals = node["arrivals"];
  const bool trace = arrivals && arrivals.IsMap() && arrivals["process"] &&
                     arrivals["process"].IsScalar() && arrivals["process"].Scalar() == "trace";
  if (trace && l["tokens"])
    ctx.fail(l["tokens"], lpath + ".tokens",
             "the request trace gives each request's tokens (its context_tokens and "
             "output_tokens columns, or Azure's ContextTokens and GeneratedTokens); remove "
             "llm.tokens, or give a rate (poisson or nhpp) to draw them from it");
  if (!trace)
    llm.tokens = read_tokens(ctx, require(ctx, l, lpath, "tokens",
                                          "the requests' token counts: {context: N, output: M} "
                                          "or {sample: FILE} (or replay a request trace: "
                                          "arrivals: {process: trace, file: ...})"),
                             lpath + ".tokens");
  read_batching(ctx, l, lpath, llm);
  if (l["efficiency"]) read_efficiency(ctx, l["efficiency"], lpath + ".efficiency", llm.efficiency);
  if (l["profile"]) {
    const std::string file = read_string(ctx, l["profile"], lpath + ".profile");
    try {
      llm.profile = read_llm_profile(ctx.read_csv(l["profile"], lpath + ".profile", file),
                                     llm.model.layers, w.gpus);
    } catch (const std::runtime_error& e) {
      if (dynamic_cast<const InputFileError*>(&e) != nullptr) throw;
      ctx.fail(l["profile"], lpath + ".profile", e.what());
    }
  }
  if (l["slo"]) {
    const YAML::Node slo = l["slo"];
    expect_map(ctx, slo, lpath + ".slo", {"ttft", "tpot"});
    if (slo["ttft"]) llm.ttft_slo_s = read_key_duration(ctx, slo["ttft"], lpath + ".slo.ttft");
    if (slo["tpot"]) llm.tpot_slo_s = read_key_duration(ctx, slo["tpot"], lpath + ".slo.tpot");
  }
  check_kv_cache(ctx, node["pool"], join_path(path, "pool"), llm, llm.gpu, w.gpus, svc.pool);
  if (!svc.fallback_pool.empty())
    check_kv_cache(ctx, node["fallback_pool"], join_path(path, "fallback_pool"), llm,
              llm.fallback_gpu, w.gpus, svc.fallback_pool);
  svc.concurrency = llm.max_sequences;
  // A cold start loads the model's weights unless the scenario says how much.
  if (!node["model_gb"]) svc.model_gb = llm.model.weight_bytes() / 1e9;
  // The class's work draw picks a request of the sample: a uniform on [0, 1).
  w.work_s = DistributionSpec{};
  w.work_s.kind = DistKind::uniform;
  w.work_s.p0 = 0;
  w.work_s.p1 = 1;
}

void assign_trace_tokens(const Context& ctx, const YAML::Node& node, const std::string& path,
                         JobClassSpec& w) {
  ArrivalSpec& a = w.arrivals;
  const YAML::Node file_node = node["arrivals"]["file"];
  const std::string fpath = join_path(path, "arrivals.file");
  const std::vector<uint32_t> rows = read_token_rows(ctx, file_node, fpath, a.trace_file);
  // Each file row's index among those that run (or none), and the pairs of those.
  constexpr uint32_t kLeftOut = 0xFFFFFFFFu;
  std::vector<uint32_t> index(rows.size() / 2, kLeftOut);
  std::vector<uint32_t>& tokens = w.service.llm.tokens;
  tokens.clear();
  for (std::size_t r = 0; r < index.size(); ++r)
    if (rows[2 * r] >= 1) {
      index[r] = static_cast<uint32_t>(tokens.size() / 2);
      tokens.insert(tokens.end(), {rows[2 * r], rows[2 * r + 1]});
    }
  const double n = static_cast<double>(tokens.size() / 2);
  // A row's work is the uniform that picks its own token row: floor(u n) with u at the row's
  // middle, (k + 0.5) / n, is k whatever the rounding.
  std::size_t kept = 0;
  for (const TraceRow& row : a.trace) {
    if (row.row == 0 || row.row > index.size() || index[row.row - 1] == kLeftOut) continue;
    TraceRow r = row;
    r.work_s = (static_cast<double>(index[row.row - 1]) + 0.5) / n;
    a.trace[kept++] = r;
  }
  a.trace.resize(kept);
  if (a.trace.empty())
    ctx.fail(file_node, fpath,
             "'" + text::excerpt(a.trace_file, 200) +
                 "' has no request with context and output tokens >= 1 to replay");
}

}  // namespace gpucap::loader
