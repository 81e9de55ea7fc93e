"""Stage 2: vLLM's startup arithmetic, era by era. Pure functions, no I/O.

    requested  = total x gpu_memory_utilization
    available  = requested - weights - non_torch - activation_peak [- cudagraph]
    page       = bytes of one block of one layer (per KV spec); groups of layers share blocks
    num_blocks = available // bytes_per_block          (the minimum over ranks)
    tokens, concurrency, the fit check and its error text: as that vLLM version computes them
    (vLLM >= 0.34, the extensible KV cache: `available` is the capacity; the blocks are those the memory measured
     after warmup leaves, min(requested - non_kv_used, init_free - non_kv_used - margin) - transient_peak:
     kvplan.plan.extensible)

Every step cites docs/vllm-memory-model.md (section numbers in comments). Version
differences are read from `kvplan.versions.VersionRules` (the rows of versions._RULES and its
tables): no step here compares `rules.release` with a literal release; a new difference goes into
versions.py as a row (tests/test_versions_release_rows.py holds the rows moved here from inline
comparisons to what those comparisons gave), not here.

The stage's modules, in the order vLLM's startup meets them (each imports only those above it):

    kvplan.plan.args        the engine arguments as given: `EngineArgs`, the flag parsers (parse_*), the
                            environment it reads, the dataclasses a plan is made of (KVGroup, Term, Fix)
    kvplan.plan.multimodal  the encoder pass of the profile run: the vision tower, items per prompt, the
                            multimodal profile bytes, --skip-mm-profiling
    kvplan.plan.kv_transfer --kv-transfer-config: vLLM's checks of the KV connector, whether the release turns the
                            hybrid KV-cache manager off for it, the plan's notes and warnings
    kvplan.plan.kv          KV specs and groups: pipeline stages, rank weights, build_groups (DeepSeek-V4 and
                            sparse-MLA groups included), kept windows, mamba pages, blocks per group
    kvplan.plan.serve_flags the serve flags resolved and checked on their own: --enable-sleep-mode, --load-format,
                            --[no-]async-scheduling, --moe-backend (vLLM's refusals, the plan's notes, the resolved
                            async flag, the experts' kernel)
    kvplan.plan.eplb        expert-parallel load balancing: the redundant experts a release builds, its refusals,
                            the balancer's state on every rank
    kvplan.plan.cudagraphs  the model runner (v1 / v2), CUDA-graph capture sizes, CudaGraphPlan, and the cold
                            start (the compile inside the profile and its pool loss)
    kvplan.plan.terms       the measured terms and workspaces: term_features, all-reduce, MoE / AWQ / FP8
                            workspaces, the sampler, computed profile terms, measured_terms
    kvplan.plan.extensible  vLLM 0.34's extensible KV cache: whether a start uses it, its default utilization, the
                            pool measured after warmup, its log lines and error hints
    kvplan.plan.defaults    resolve_args: the release's defaults and refusals applied to the arguments given
    kvplan.plan.planner     the plan itself: `Plan`, plan(), the fit check, capacity, the log lines, the
                            cold-start outcome, and the seed's simple plan

This package re-exports the names other modules import from `kvplan.plan`.
"""

from __future__ import annotations

from kvplan.plan.args import (BATCHED_TOKENS_BELOW_MAX_MODEL_LEN, CAPTURE_SIZE_ARGS, COUNT_EXAMPLES, ENGINE_FLAGS,
                              ENV_EFFECTS, INT_ENGINE_ARGS, MAMBA_DTYPES, MM_ITEM_ABOVE_BATCHED_TOKENS, EngineArgs, Fix, KVGroup, cdiv,
                              check_env_name, env_flag_on, fix_command_text, human_int, is_auto_length,
                              parse_capture_sizes, parse_env, parse_max_model_len, parse_mm_limits,
                              parse_speculative_config, speculative_draft, speculative_object, unknown_keyword)
from kvplan.plan.multimodal import (_is_mm_prefix_lm, _llava_next_item, _multimodal_profile_bytes, _pixtral_item,
                                    _prefix_lm_item_tokens, deepstack_buffer_bytes, mrope_cache_factor,
                                    supported_modalities)
from kvplan.plan.kv import _state_bytes, build_groups, marlin_moe_experts, pp_stages, prefix_caching_on, stage_cache_layers
from kvplan.plan.cudagraphs import (COLD_START_POOL_LOSS_BYTES, COLD_START_WARNING, COMPILE_CACHE_NOTE,
                                    EVERY_START_COLD_WARNING, ColdStartWarning, CudaGraphPlan, _full_graph_sizes,
                                    cold_start_pool_loss_bytes, cudagraph_capture_sizes, inductor_compiles,
                                    model_runner, model_runner_choice, rocm_graph_units, round_sizes_for_spec_decode)
from kvplan.plan.terms import (AWQ_DEQUANT_MIN_TOKENS, FI_AR_FUSION_MAX_MB, FI_AR_MULTICAST_GRANULARITY,
                               awq_dequant_bytes, awq_linear_kernel, computed_profile_terms, cutlass_fp4_moe_bytes,
                               dense_hidden_rows, fi_allreduce_workspace_bytes, fp8_act_quant_bytes, marlin_method,
                               measured_terms, mrv2_sampler_bytes_per_logit, mrv2_sampler_state_bytes,
                               profile_sampler_term, quantized_moe_experts, term_features)
from kvplan.plan.extensible import device_shortfall_bytes, kv_sizing_warmup_steps, plan_kv_sizing_warmup_steps
from kvplan.plan.defaults import PP_SPECULATIVE, accepted_tp_sizes, resolve_args, vllm_quant_method
from kvplan.plan.planner import (FP8E4NV_ERROR, Plan, cold_start_margin_bytes, largest_given_pool_bytes,
                                 override_changes_text, plan, site_calibration_dict, state_blocks_refusal)

# the names other modules (src/, tests/, tools/, bench/) import from kvplan.plan
__all__ = [
    "AWQ_DEQUANT_MIN_TOKENS", "BATCHED_TOKENS_BELOW_MAX_MODEL_LEN", "CAPTURE_SIZE_ARGS", "COLD_START_POOL_LOSS_BYTES",
    "COLD_START_WARNING", "COMPILE_CACHE_NOTE", "COUNT_EXAMPLES", "ENGINE_FLAGS", "ColdStartWarning", "CudaGraphPlan", "ENV_EFFECTS",
    "EVERY_START_COLD_WARNING", "EngineArgs", "FI_AR_FUSION_MAX_MB", "FP8E4NV_ERROR", "FI_AR_MULTICAST_GRANULARITY", "Fix",
    "INT_ENGINE_ARGS", "KVGroup", "MAMBA_DTYPES", "MM_ITEM_ABOVE_BATCHED_TOKENS", "PP_SPECULATIVE", "Plan", "_full_graph_sizes",
    "_is_mm_prefix_lm", "_llava_next_item", "_multimodal_profile_bytes", "_pixtral_item", "_prefix_lm_item_tokens",
    "_state_bytes", "accepted_tp_sizes", "awq_dequant_bytes", "awq_linear_kernel", "build_groups", "cdiv",
    "check_env_name", "cold_start_margin_bytes", "cold_start_pool_loss_bytes", "computed_profile_terms",
    "cudagraph_capture_sizes", "cutlass_fp4_moe_bytes", "deepstack_buffer_bytes", "dense_hidden_rows", "device_shortfall_bytes", "env_flag_on", "kv_sizing_warmup_steps",
    "fi_allreduce_workspace_bytes", "fix_command_text", "fp8_act_quant_bytes", "human_int", "inductor_compiles",
    "is_auto_length", "largest_given_pool_bytes", "marlin_method", "marlin_moe_experts", "measured_terms", "model_runner",
    "model_runner_choice", "mrope_cache_factor", "mrv2_sampler_bytes_per_logit", "mrv2_sampler_state_bytes",
    "override_changes_text", "parse_capture_sizes", "parse_env", "parse_max_model_len", "parse_mm_limits", "parse_speculative_config", "plan",
    "plan_kv_sizing_warmup_steps", "pp_stages", "prefix_caching_on", "profile_sampler_term", "quantized_moe_experts", "resolve_args",
    "rocm_graph_units", "round_sizes_for_spec_decode", "site_calibration_dict", "speculative_draft",
    "speculative_object", "unknown_keyword", "stage_cache_layers", "state_blocks_refusal", "supported_modalities", "term_features",
    "vllm_quant_method",
]
