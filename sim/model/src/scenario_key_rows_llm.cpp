// gpucap: the scenario key table's rows for the `llm:` block of an inference service (an LLM
// service; docs/llm-serving.md), see scenario_keys.hpp for the fields.
#include <vector>

#include "gpucap/scenario.hpp"
#include "key_rows.hpp"

namespace gpucap::key_rows {

// clang-format off
std::vector<ScenarioKey> llm_service_rows() {
  return {
    key("workloads[].llm").shown("`llm`").table("")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none (a request is one service time on a concurrency slot)").applies(WorkloadKind::inference)
        .valid("keys `model`, `models_file`, `gpu_specs_file`, `tokens`, `max_sequences`, `max_batched_tokens`, `block_tokens`, `chunked_prefill`, `efficiency`, `profile`, `slo`; not with `service` or `concurrency`; with trace arrivals, without `tokens`; see [LLM services](#llm-services-llm)")
        .means("makes the service an LLM service: requests carry prompt and output tokens, and each replica batches them per iteration (continuous batching, a KV cache, TTFT and TPOT); docs/llm-serving.md"),
    key("workloads[].llm.model").shown("`llm.model`").table("llm")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("*required*").applies(WorkloadKind::inference)
        .valid("a `model` of the shipped data/llm_models.csv (llama-2-7b, llama-2-13b, llama-2-70b, llama-3-8b, llama-3-70b, mistral-7b) or of `models_file`")
        .means("the LLM each replica serves: its parameters, layers, hidden size, heads and KV heads (BF16 weights and KV cache)"),
    key("workloads[].llm.models_file").shown("`llm.models_file`").table("llm")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("the shipped table").applies(WorkloadKind::inference)
        .valid("a CSV with columns `model`, `parameters_b`, `layers`, `hidden`, `heads`, `kv_heads`")
        .means("your own model shapes"),
    key("workloads[].llm.gpu_specs_file").shown("`llm.gpu_specs_file`").table("llm")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("the shipped data/gpu_specs.csv (H100, H200, A100, A100-80GB, L4, L40S)").applies(WorkloadKind::inference)
        .valid("a CSV with columns `gpu`, `memory_gb`, `bf16_dense_tflops`, `memory_tb_per_s`, `interconnect_gb_per_s`")
        .means("the hardware of the GPUs the service's pools name with `gpu` (the pool's `gpu_memory_gb`, when given, replaces the table's memory)"),
    key("workloads[].llm.tokens").shown("`llm.tokens`").table("llm")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("*required* with a rate; none with trace arrivals (the trace's rows give each request's tokens)").applies(WorkloadKind::inference)
        .valid("`{context: N, output: M}` (counts, or distributions drawn independently), or `{sample: FILE}`, a CSV of one row per request with columns `context_tokens` and `output_tokens` (or Azure's `ContextTokens` and `GeneratedTokens`); whole numbers >= 1")
        .means("each request's prompt (context) and output token counts: fixed, or a row of the joint sample drawn with equal probability"),
    key("workloads[].llm.max_sequences").shown("`llm.max_sequences`").table("llm")
        .type(KeyType::integer, UnitKind::count, "requests per replica").range({1, false}, {4096, false})
        .by_default("`256`").applies(WorkloadKind::inference)
        .means("most requests in a replica's batch (vLLM's max_num_seqs); the service's `concurrency`, and the autoscaler's default `target_concurrency`"),
    key("workloads[].llm.max_batched_tokens").shown("`llm.max_batched_tokens`").table("llm")
        .type(KeyType::integer, UnitKind::count, "tokens per iteration").range({1, false}, {1048576, false})
        .by_default("`8192`").applies(WorkloadKind::inference)
        .means("most tokens (prefill and decode) an iteration computes (vLLM's max_num_batched_tokens)"),
    key("workloads[].llm.block_tokens").shown("`llm.block_tokens`").table("llm")
        .type(KeyType::integer, UnitKind::count, "tokens per block").range({1, false}, {1024, false})
        .by_default("`16`").applies(WorkloadKind::inference)
        .means("tokens per KV-cache block (paged attention)"),
    key("workloads[].llm.chunked_prefill").shown("`llm.chunked_prefill`").table("llm")
        .type(KeyType::boolean, UnitKind::none, "–")
        .by_default("`true`").applies(WorkloadKind::inference)
        .means("`true`: prompts are prefilled in chunks beside the decodes of an iteration (vLLM v1, Sarathi-Serve); `false`: an iteration prefills whole prompts or decodes (vLLM v0)"),
    key("workloads[].llm.efficiency").shown("`llm.efficiency`").table("llm")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("`{flops: 0.5, bandwidth: 0.8, interconnect: 0.7, overhead: 2ms, memory_share: 0.9, activation_reserve_gb: 1}`").applies(WorkloadKind::inference)
        .valid("those keys: shares in (0, 1], `overhead` a duration, `activation_reserve_gb` >= 0")
        .means("what the roofline cannot know: the shares of peak FLOP/s, memory bandwidth and interconnect an iteration reaches, its fixed time, and the share of GPU memory the engine may use (minus a reserve per GPU) for weights and KV cache"),
    key("workloads[].llm.profile").shown("`llm.profile`").table("llm")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("none (the roofline)").applies(WorkloadKind::inference)
        .valid("a CSV with `num_tokens` and `time_ms`, or Vidur's MLP profile (rows of `gpus` tensor-parallel workers)")
        .means("measured time of an iteration's linear layers against its tokens, interpolated, in the service's own pool (a fallback pool uses the roofline)"),
    key("workloads[].llm.slo").shown("`llm.slo`").table("llm")
        .type(KeyType::mapping, UnitKind::none, "–")
        .by_default("none").applies(WorkloadKind::inference)
        .valid("keys `ttft`, `tpot` (durations > 0)")
        .means("the token objectives: a request is good (`goodput_share`) when its time to first token is at most `ttft` and its time per output token at most `tpot`"),
    key("workloads[].llm.tokens.context").shown("`llm.tokens.context`").table("llm")
        .type(KeyType::distribution, UnitKind::count, "tokens").range({1, false}, {1000000, false})
        .by_default("–").applies(WorkloadKind::inference)
        .valid("a whole number (every request the same) or any [distribution](#distributions) of token counts (drawn once, at load, into 16,384 requests from a fixed stream; rounded, kept within 1 to 1,000,000)")
        .means("prompt tokens of each request"),
    key("workloads[].llm.tokens.output").shown("`llm.tokens.output`").table("llm")
        .type(KeyType::distribution, UnitKind::count, "tokens").range({1, false}, {1000000, false})
        .by_default("–").applies(WorkloadKind::inference)
        .valid("a whole number (every request the same) or any [distribution](#distributions) of token counts (drawn once, at load, into 16,384 requests from a fixed stream; rounded, kept within 1 to 1,000,000)")
        .means("output tokens of each request"),
    key("workloads[].llm.tokens.sample").shown("`llm.tokens.sample`").table("llm")
        .type(KeyType::text, UnitKind::none, "–")
        .by_default("–").applies(WorkloadKind::inference)
        .valid("columns `context_tokens` and `output_tokens`, or `ContextTokens` and `GeneratedTokens`; rows with a count below 1 are left out")
        .means("a CSV of requests' token counts (one row each), drawn jointly with equal probability"),
    key("workloads[].llm.efficiency.flops").shown("`llm.efficiency.flops`").table("llm")
        .type(KeyType::number, UnitKind::factor, "–").range({0, true}, {1, false})
        .by_default("`0.5`").applies(WorkloadKind::inference)
        .means("share of the GPUs' peak dense BF16 FLOP/s an iteration reaches"),
    key("workloads[].llm.efficiency.bandwidth").shown("`llm.efficiency.bandwidth`").table("llm")
        .type(KeyType::number, UnitKind::factor, "–").range({0, true}, {1, false})
        .by_default("`0.8`").applies(WorkloadKind::inference)
        .means("share of the memory bandwidth an iteration reaches"),
    key("workloads[].llm.efficiency.interconnect").shown("`llm.efficiency.interconnect`").table("llm")
        .type(KeyType::number, UnitKind::factor, "–").range({0, true}, {1, false})
        .by_default("`0.7`").applies(WorkloadKind::inference)
        .means("share of the interconnect bandwidth the tensor-parallel all-reduce reaches"),
    key("workloads[].llm.efficiency.overhead").shown("`llm.efficiency.overhead`").table("llm")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, false}, {10, false})
        .by_default("`2ms`").applies(WorkloadKind::inference)
        .means("fixed time of every iteration (scheduling, kernel launches)"),
    key("workloads[].llm.efficiency.memory_share").shown("`llm.efficiency.memory_share`").table("llm")
        .type(KeyType::number, UnitKind::factor, "–").range({0, true}, {1, false})
        .by_default("`0.9`").applies(WorkloadKind::inference)
        .means("share of GPU memory the engine takes for weights, activations and KV cache (vLLM's gpu_memory_utilization)"),
    key("workloads[].llm.efficiency.activation_reserve_gb").shown("`llm.efficiency.activation_reserve_gb`").table("llm")
        .type(KeyType::number, UnitKind::gpu_memory_gb, "GB per GPU").range({0, false}, {1000, false})
        .by_default("`1`").applies(WorkloadKind::inference)
        .means("GPU memory kept for activations, out of the KV cache"),
    key("workloads[].llm.slo.ttft").shown("`llm.slo.ttft`").table("llm")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .by_default("none").applies(WorkloadKind::inference)
        .means("bound on a request's time to first token (round trip included)"),
    key("workloads[].llm.slo.tpot").shown("`llm.slo.tpot`").table("llm")
        .type(KeyType::duration, UnitKind::duration, "s").range({0, true}, {kInf, false})
        .by_default("none").applies(WorkloadKind::inference)
        .means("bound on a request's time per output token after the first"),
  };
}
// clang-format on

}  // namespace gpucap::key_rows
