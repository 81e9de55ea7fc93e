"""Stage 2: vLLM's startup arithmetic, era by era. Pure functions, no I/O.

    requested  = total x gpu_memory_utilization
    available  = requested - weights - non_torch - activation_peak [- cudagraph]
    page       = bytes of one block of one layer (per KV spec); groups of layers share blocks
    num_blocks = available // bytes_per_block          (the minimum over ranks)
    tokens, concurrency, the fit check and its error text: as that vLLM version computes them

Every step cites docs/vllm-memory-model.md (section numbers in comments). Version
differences are read from `kvplan.versions.VersionRules` (the rows of versions._RULES and its
tables): no step here compares `rules.release` with a literal release; a new difference goes into
versions.py as a row (tests/test_versions_release_rows.py holds the rows moved here from inline
comparisons to what those comparisons gave), not here.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import asdict, dataclass, field, fields, replace
from fractions import Fraction
from functools import cached_property
from typing import Iterable, Sequence

from kvplan.calibration import CAPTURE_G_CONST, CAPTURE_G_PER, GIB, ROCM_G_PER_GRAPH, coefficients_for
from kvplan.errors import InputError, RefusedByVLLMError
from kvplan.resolve import (BNB_IN_FLIGHT, DTYPE_BYTES, GB, MAX_MEMORY_BYTES, GPUSpec, LayerSpec, ModelSpec, QuantSpec, context_limit,
                            heads_per_rank)
from kvplan.versions import (INTEGRATED_MEMORY_CC, V0_ONLY_ARCHITECTURES, VersionRules, architecture_refusal,
                             as_v0_engine, batch_defaults, canonical_quant, check_serve_env, check_serve_values, first_release_where, newer_than_read, parse_version, quant_method_last_read, quant_min_capability, quantization_methods, release_from, rules_for)
from kvplan.weights import (MXFP4_MARLIN_ALIGN, RankWeights, allocator_rounding_bytes, drafter_weights, eagle_aux_states, kv_dtype_bytes, lora_buffer_bytes, mxfp4_moe_backend, padded_vocab, pp_layer_split,
                            vision_bnb_only_params, vision_linear_params, vision_mlp_gated, weights_per_rank)

KV_CACHE_DTYPES = ("auto", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "fp8_ds_mla")  # vLLM CacheDType (fp8_inc: Intel Gaudi)
MODEL_DTYPES = ("auto", "half", "float16", "bfloat16", "float", "float32")
_DTYPE_ALIASES = {"half": "float16", "float": "float32"}  # vLLM's --dtype short names
MAMBA_DTYPES = ("auto", "float32", "float16", "bfloat16")
DEFAULT_BLOCK_SIZE = 16  # CacheConfig.DEFAULT_BLOCK_SIZE (section 2.4)
AUTO_FIT = -1  # --max-model-len -1 (section 4, "Auto-fit")
# SchedulerConfig._verify_args's refusal that chunked prefill lifts (RefusedByVLLMError.rule)
BATCHED_TOKENS_BELOW_MAX_MODEL_LEN = "max_num_batched_tokens < max_model_len without chunked prefill"
# a multimodal prefix-LM's largest allowed item above max_num_batched_tokens (plan._largest_active_mm_item)
MM_ITEM_ABOVE_BATCHED_TOKENS = "max_tokens_per_mm_item > max_num_batched_tokens with chunked MM input disabled"
# Speculative methods whose drafter is the checkpoint's own MTP layers (vLLM's SpeculativeConfig method names), and
# those that draft without weights or KV.
_MTP_METHODS = ("mtp", "deepseek_mtp", "qwen3_next_mtp", "qwen3_5_mtp", "glm4_moe_mtp", "mimo_mtp", "ernie_mtp",
                "longcat_flash_mtp", "minimax_m2_mtp")
_WEIGHTLESS_METHODS = ("ngram", "suffix")


def _mm_limits_object(value) -> dict | None:
    """--limit-mm-per-prompt as given (JSON text, "image=2,video=0", or a dict) -> its dict, entries unread ({"video":
    {"count": 1, "num_frames": 8}} stays so); None when not given."""
    if value in (None, "", {}):
        return None
    raw = value
    if isinstance(value, str):
        import json

        text = value.strip()
        try:
            raw = json.loads(text) if text.startswith("{") else dict(part.split("=", 1) for part in text.split(",") if part.strip())
        except (ValueError, TypeError):
            raise InputError("--limit-mm-per-prompt", f"cannot read {value!r}", '\'{"image": 2, "video": 0}\' or image=2,video=0') from None
    if not isinstance(raw, dict):
        raise InputError("--limit-mm-per-prompt", f"expected items per modality, got {value!r}", '\'{"image": 2, "video": 0}\'')
    return raw


def parse_mm_limits(value) -> dict[str, int] | None:
    """--limit-mm-per-prompt (JSON text, "image=2,video=0", or a dict) -> {modality: items}; None when not given."""
    raw = _mm_limits_object(value)
    if raw is None:
        return None
    out = {}
    for k, v in raw.items():
        count = v.get("count") if isinstance(v, dict) else v  # newer vLLM also takes {"image": {"count": 2, ...}}
        number = human_int(count) if isinstance(count, (int, float, str)) else None  # 2.0 counts; 2.5, inf, NaN do not
        if number is None:
            raise InputError("--limit-mm-per-prompt", f"{k}: {v!r} is not a whole number of items", '\'{"image": 2, "video": 0}\'')
        out[str(k).strip().lower()] = number
        if out[str(k).strip().lower()] < 0:
            raise InputError("--limit-mm-per-prompt", f"{k}: a negative limit", "0 (off) or more items")
    return out


def _json_object(value, flag: str, example: str, not_object: str, object_example: str | None = None) -> dict:
    """A JSON-object flag (JSON text or a dict) as a dict; InputError naming `flag` when it is not JSON or no object."""
    if isinstance(value, str):
        import json

        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise InputError(flag, f"not JSON ({exc.msg})", example) from None
    if not isinstance(value, dict):
        raise InputError(flag, not_object, object_example or example)
    return value


CUDAGRAPH_MODES = ("NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")  # vLLM's CUDAGraphMode


def compilation_object(value) -> dict:
    """--compilation-config (JSON text or a dict) as a dict, {} where it is not given."""
    if value in (None, "", {}):
        return {}
    return _json_object(value, "--compilation-config", 'e.g. \'{"cudagraph_mode": "PIECEWISE"}\'',
                        "kvplan reads a JSON object (not an optimization level)")


def parse_compilation_config(value) -> str | None:
    """--compilation-config (JSON text or a dict) -> its cudagraph_mode (one of CUDAGRAPH_MODES), or None where it sets
    none (vLLM's default for the release)."""
    mode = compilation_object(value).get("cudagraph_mode")
    if mode is None:
        return None
    if not isinstance(mode, str) or mode.strip().upper() not in CUDAGRAPH_MODES:
        raise InputError("--compilation-config", f"unknown cudagraph_mode {mode!r}", f"one of {', '.join(CUDAGRAPH_MODES)}")
    return mode.strip().upper()


_CAPTURE_SIZES_EXAMPLE = "e.g. 1,2,4,8 (vllm serve spells it --cudagraph-capture-sizes 1 2 4 8)"
_CUDA_GRAPH_SIZES_EXAMPLE = ("e.g. 1,2,4,8 (vllm serve spells it --cuda-graph-sizes 1 2 4 8; one value N: the sizes 1, "
                             "2, 4 and the multiples of 8 up to N before vLLM 0.11.1, N alone from 0.11.1)")
# the engine argument (as a record or EngineArgs field names it) -> (its flag, the example its errors give)
CAPTURE_SIZE_ARGS = {"cudagraph_capture_sizes": ("--cudagraph-capture-sizes", _CAPTURE_SIZES_EXAMPLE),
                     "cuda_graph_sizes": ("--cuda-graph-sizes", _CUDA_GRAPH_SIZES_EXAMPLE)}


def parse_capture_sizes(value, flag: str = "--cudagraph-capture-sizes",
                        example: str = _CAPTURE_SIZES_EXAMPLE) -> tuple[int, ...] | None:
    """--cudagraph-capture-sizes (or `flag`, --cuda-graph-sizes) as given: text of whole numbers separated by commas
    and/or spaces ("1,2,4,8", "1 2 4 8", "[1, 2, 4, 8]" as a record or JSON writes it) or a sequence of ints -> a tuple
    of positive ints in the order given; None (or "") where not given. Errors name `flag` and give `example`. vLLM
    asserts the list is not empty (config/vllm.py VllmConfig._set_cudagraph_sizes, 0.11.1-0.33.0)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str):
        parts = [p for p in re.split(r"[,\s]+", value.strip().strip("[]()")) if p]
    elif isinstance(value, (list, tuple)):
        parts = list(value)
    else:
        raise InputError(flag, f"must be a list of batch sizes, got {value!r}", example)
    sizes = []
    for part in parts:
        if isinstance(part, bool) or not isinstance(part, (int, str)) or not str(part).strip().isdigit():
            raise InputError(flag, f"{part!r} is not a whole number", example)
        if int(part) < 1:
            raise InputError(flag, f"a capture size must be at least 1, got {part}", example)
        sizes.append(int(part))
    if not sizes:
        raise InputError(flag, f"no size given (vLLM: '{flag.lstrip('-').replace('-', '_')} should contain at least "
                         "one element when using cuda graph')", example)
    return tuple(sizes)


# Speculative methods whose drafter is a separate checkpoint named by --speculative-config's "model": an EAGLE head
# (one or more decoder layers fed the target's hidden states), an EAGLE-3 head (fed three of the target's hidden
# states, with its own reduced draft vocabulary), or an independent small model ("draft_model").
DRAFT_METHODS = ("eagle", "eagle3", "draft_model")
_SPEC_EXAMPLE = 'e.g. {"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}'


def speculative_object(value) -> dict | None:
    """--speculative-config as a dict (JSON text or a dict); None when not given."""
    if value in (None, "", {}):
        return None
    return _json_object(value, "--speculative-config", 'e.g. \'{"method": "mtp", "num_speculative_tokens": 3}\'',
                        "must be a JSON object", 'e.g. {"method": "mtp", "num_speculative_tokens": 3}')


def _speculative_method(value: dict, *, eagle3_by_name: bool = True) -> str:
    """The method as vLLM settles it (vllm/config/speculative.py SpeculativeConfig.__post_init__, read in 0.19.0 and
    0.33.0): none given -> "ngram" for the model "ngram", else "draft_model"; a "draft_model" whose model name holds
    "eagle-" is "eagle", one holding "eagle3" is "eagle3". `eagle3_by_name` False: the rule up to 0.10.1 (rules row
    spec_infers_eagle3_by_name), where a name holding "eagle-" or "eagle3-" is "eagle"."""
    model = value.get("model")
    method = str(value.get("method") or "").strip().lower()
    if not method:
        if str(model or "").strip().lower() in ("ngram", "[ngram]"):
            return "ngram"
        method = "draft_model" if model else ""
    if method == "draft_model" and isinstance(model, str):
        name = model.lower()
        if "eagle-" in name or (not eagle3_by_name and "eagle3-" in name):
            return "eagle"
        if eagle3_by_name and "eagle3" in name:
            return "eagle3"
    return method


def speculative_method_given(value) -> bool:
    """Whether --speculative-config names its "method" (vLLM's release checks read the key as given, not the method
    its __post_init__ infers: v1_fallback, resolve_args)."""
    obj = speculative_object(value)
    return bool(obj and str(obj.get("method") or "").strip())


def parse_speculative_config(value) -> tuple[str, int] | None:
    """--speculative-config (JSON text or a dict) -> (kind, num_speculative_tokens), or None. kind: "mtp" (the
    checkpoint's own MTP layers), "ngram" (ngram/suffix: no drafter weights or KV), or one of DRAFT_METHODS (a drafter
    checkpoint named by "model": speculative_draft gives it)."""
    value = speculative_object(value)
    if value is None:
        return None
    method = _speculative_method(value)
    kind = ("mtp" if method in _MTP_METHODS or method.endswith("_mtp") else "ngram" if method in _WEIGHTLESS_METHODS
            else method if method in DRAFT_METHODS else None)
    if kind is None:  # before the token count: a misspelt method without one was told to add the count first
        raise InputError("--speculative-config", f"method {method or '(none)'!r} is not modelled by kvplan",
                         "kvplan models mtp (the checkpoint's MTP layers), ngram/suffix drafting, and a drafter checkpoint "
                         f"named by \"model\" with method {', '.join(DRAFT_METHODS)}")
    n = value.get("num_speculative_tokens")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise InputError("--speculative-config", f"num_speculative_tokens must be a whole number >= 1, got {n!r}",
                         'e.g. {"method": "mtp", "num_speculative_tokens": 3}')
    if kind in DRAFT_METHODS:
        model = value.get("model")
        if not isinstance(model, str) or not model.strip():
            raise InputError("--speculative-config", f'method {method!r} needs "model": the draft model\'s own checkpoint '
                             "(a Hub id, a local folder or its config.json), whose config kvplan reads", _SPEC_EXAMPLE)
    return kind, n


def speculative_draft(value) -> tuple[str, str | None] | None:
    """(the drafter's model reference, its revision) for a --speculative-config whose method loads a drafter
    checkpoint (DRAFT_METHODS); None otherwise."""
    spec = parse_speculative_config(value)
    if spec is None or spec[0] not in DRAFT_METHODS:
        return None
    obj = speculative_object(value)
    revision = obj.get("revision")
    return obj["model"].strip(), str(revision) if revision else None


_POOLING_TASKS = ("embed", "embedding", "classify", "score", "reward", "encode")
_LORA_RANKS = (1, 8, 16, 32, 64, 128, 256, 320, 512)  # vllm/config/lora.py MaxLoRARanks (0.33)


def serve_as(model: ModelSpec, args: EngineArgs) -> tuple[ModelSpec, str | None]:
    """The model as --runner serves it: a pooling model loads no lm_head and runs no sampler in the profile run
    (gpu_model_runner profile_run: a dummy pooler instead of a dummy sampler). Returns it and what was assumed."""
    kind = args.runner_type
    if kind is None:
        return model, ("served as a pooling model (vLLM's --runner auto): no lm_head, no sampler in the profile run"
                       if model.is_pooling else None)
    if (kind == "pooling") == model.is_pooling:
        return model, None
    if kind == "pooling":
        return replace(model, is_pooling=True), "--runner pooling: no lm_head loaded, no sampler in the profile run"
    return replace(model, is_pooling=False), "--runner generate: served as a generative model (lm_head and sampler counted)"


def _env_rules(args: EngineArgs, rules: VersionRules) -> tuple[VersionRules, list[str]]:
    """The release's rules as the server's environment changes them (ENV_EFFECTS), and a note for each variable."""
    notes = []
    for name, value in args.env:
        if name not in ENV_EFFECTS:
            notes.append(f"environment {name}={value}: not modelled (kvplan assumes it does not change memory)")
            continue
        # (0.11.0 still reads it, and its server stops on 0: versions.SERVE_ENV_REFUSED; rules rows use_v1_env_read,
        # v0_engine_shipped)
        inert = name == "VLLM_USE_V1" and (not rules.use_v1_env_read or not rules.is_v1
                                           or (not rules.v0_engine_shipped and value.strip() != "0"))
        unread = name == "VLLM_MXFP4_USE_MARLIN" and not rules.mxfp4_marlin_env  # rules row mxfp4_marlin_env
        if name == MRV2_ENV:
            if rules.mrv2_env == "unread":  # rules row mrv2_env: envs.py has it from 0.12
                notes.append(f"environment {name}={value}: not read by vLLM {rules.version} (from 0.12): model runner v1")
            continue  # otherwise _plan says which runner it selects, and why (model_runner_choice)
        notes.append(f"environment {name}={value}" + (f": no effect in vLLM {rules.version}, which has one engine" if inert
                                                      else f": not read by vLLM {rules.version}" if unread else ""))
    for name in INT_READ_ENV:
        value = args.env_value(name)
        if value is None or (name == "VLLM_MXFP4_USE_MARLIN" and not rules.mxfp4_marlin_env):
            continue
        try:
            int(value)
        except ValueError:
            raise InputError(f"--env {name}", f"{value!r} is not a value vLLM reads (it takes int(value)): the server "
                             "stops with a ValueError", f"{name}=1 (on) or {name}=0 (off)") from None
    mrv2 = args.env_value(MRV2_ENV)
    if mrv2 is not None and rules.mrv2_env != "unread":
        # vllm/envs.py reads it as bool(int(value)) (0.12-0.21) or maybe_convert_bool (0.22+), the same int()
        try:
            int(mrv2.strip())
        except ValueError:
            raise InputError(f"--env {MRV2_ENV}", f"{mrv2!r} is not a value vLLM {rules.version} reads (it takes "
                             "int(value)): the server stops with a ValueError",
                             f"{MRV2_ENV}=1 (model runner v2) or =0 (v1), or unset (the release's default)") from None
    use_v1 = args.env_value("VLLM_USE_V1")
    if use_v1 is not None and rules.use_v1_env_read:
        # rules row use_v1_env_read (bool(int(value))): a value int() refuses stops the server with a ValueError
        try:
            int(use_v1.strip())
        except ValueError:
            raise InputError("--env VLLM_USE_V1", f"{use_v1!r} is not a value vLLM {rules.version} reads (it takes "
                             "int(value)): the server stops with a ValueError", "VLLM_USE_V1=1 (the V1 engine) or =0 (V0)") from None
    if use_v1 == "0" and rules.is_v1 and rules.v0_engine_shipped:
        rules = replace(as_v0_engine(rules, "VLLM_USE_V1=0"), notes=rules.notes + (
            f"VLLM_USE_V1=0: vLLM {rules.version} runs its V0 engine",))
    if args.env_value("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS") == "0" and rules.cudagraph_subtracted:
        rules = replace(rules, cudagraph_subtracted=False)
    sampler = args.env_value("VLLM_USE_FLASHINFER_SAMPLER")
    if sampler is not None:
        # vllm/envs.py reads it as bool(int(value)); set either way it decides the V1 sampler's kernel (rules row
        # flashinfer_sampler), where V0's sampler keeps the one term of its era
        on = _FLASHINFER_SAMPLER_VALUES.get(sampler.strip().lower())
        if on is None:
            raise InputError("--env VLLM_USE_FLASHINFER_SAMPLER", f"{sampler!r} is not a value vLLM reads (it takes int(value))",
                             "VLLM_USE_FLASHINFER_SAMPLER=1 (FlashInfer's top-k/top-p kernel) or =0 (PyTorch-native)")
        if rules.is_v1:
            rules = replace(rules, flashinfer_sampler="on" if on else "off")
    if args.env_on("VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE") and rules.chunked_local_spec == "manager_off":
        rules = replace(rules, chunked_local_spec="kept")
    return rules, notes


# Variables vLLM reads as bool(int(value)) (vllm/envs.py: disable_compile_cache() for VLLM_DISABLE_COMPILE_CACHE,
# maybe_convert_bool for VLLM_MXFP4_USE_MARLIN, the VLLM_USE_DEEP_GEMM / VLLM_MOE_USE_DEEP_GEMM lambdas; 0.10.1.1,
# 0.11.1, 0.24.0 and 0.27.1 wheels): '2' is on, and a value int() refuses ('yes', 'true') raises a ValueError where
# vLLM reads it (in 0.24.0 and 0.27.1 envs.compile_factors reads every variable it knows for the compile cache key)
INT_READ_ENV = ("VLLM_DISABLE_COMPILE_CACHE", "VLLM_MXFP4_USE_MARLIN", "VLLM_USE_DEEP_GEMM", "VLLM_MOE_USE_DEEP_GEMM")


# VLLM_USE_FLASHINFER_SAMPLER as vLLM reads it (bool(int(value))): on or off
_FLASHINFER_SAMPLER_VALUES = {"1": True, "0": False}


# vLLM masks top-k/top-p with its Triton kernel only for this many rows or more; fewer are sorted
# (v1/sample/ops/topk_topp_sampler.py apply_top_k_top_p, 0.17.0-0.19.1 wheels)
TRITON_TOPK_TOPP_MIN_ROWS = 8


def _sampler_term(c, rules: VersionRules, sequences: int | None = None) -> tuple[float, str]:
    """(bytes per logit, which term) of the V1 runner's profile sampler run: "flashinfer", the era's FlashInfer term
    where the sampler runs FlashInfer's top-k/top-p kernel (VLLM_USE_FLASHINFER_SAMPLER=1, rules row
    flashinfer_sampler "on") and the era has one apart; "triton", the Triton term where the release masks in place
    with its Triton kernel (rules row topk_topp_triton, `sequences` >= 8 rows) and the era's own term was measured on
    the sort; else "fitted", the era's term."""
    if rules.flashinfer_sampler == "on" and c.a_sampler_flashinfer is not None:
        return c.a_sampler_flashinfer, "flashinfer"
    if (rules.topk_topp_triton and c.a_sampler_triton is not None
            and (sequences is None or sequences >= TRITON_TOPK_TOPP_MIN_ROWS)):
        return c.a_sampler_triton, "triton"
    return c.a_sampler, "fitted"


def profile_sampler_term(model: ModelSpec, args: EngineArgs, rules: VersionRules, c,
                         sequences: int | None) -> tuple[float, str]:
    """(bytes per logit, which term) of this deployment's profile sampler run: "mrv2", model runner v2's, read from the
    code (mrv2_sampler_bytes_per_logit), else the V1 runner's (_sampler_term: "flashinfer", "triton" or "fitted").
    measured_terms charges it and tools/fit_calibration.py holds every term but "fitted" fixed."""
    if model_runner(model, args, rules) == "v2":
        a = mrv2_sampler_bytes_per_logit(rules, DTYPE_BYTES[args.dtype], args.tensor_parallel_size)
        if a is not None:
            return a, "mrv2"
    return _sampler_term(c, rules, sequences)


# Model runner v2's Gumbel sampler (v1/worker/gpu/sample/gumbel.py gumbel_sample, 0.22.1-0.33.0 wheels): one int64
# argmax and one fp32 maximum per row and 1,024-logit block
_MRV2_GUMBEL_BYTES_PER_LOGIT = (8 + 4) / 1024


def mrv2_sampler_bytes_per_logit(rules: VersionRules, dtype_bytes: int, tp: int) -> float | None:
    """Bytes per logit of model runner v2's profile sampler run, read from the code (rules row mrv2_profile_sampler);
    None where kvplan charges the era's fitted term instead (0.33+, whose second warmup pass runs the fp32 pipeline).

    profile_run samples the dummy forward's last token of each of its min(max_num_batched_tokens, max_num_seqs)
    requests (v1/worker/gpu/model_runner.py _dummy_run: num_reqs = min(num_tokens, max_num_reqs); _dummy_sampler_run).
    The logits come out of compute_logits in the model's dtype (model_executor/layers/logits_processor.py; with TP > 1
    each rank all-gathers its 1/TP shard into the full rows, platforms/interface.py use_all_gather). The dummy batch
    adds no request, so SamplingStates keeps top-k = vocabulary and top-p = 1.0 for every row (sample/states.py) and
    get_top_k_top_p returns neither: no top-k/top-p pass. 0.22-0.25 copy the logits to fp32 for every row
    (sample/sampler.py apply_sampling_params) while the caller holds the model-dtype ones; 0.26 has no copy (in-place
    ops on the model-dtype logits), 0.27 copies only when Sampler._requires_logits_processing finds a row to process
    and 0.28+ only when needs_logits_processing does (the dummy rows need none), so from 0.26 the Gumbel argmax reads
    the model-dtype logits in place (rules row mrv2_profile_sampler gives the wheels read)."""
    mode = rules.mrv2_profile_sampler
    if mode == "warmup":
        return None
    gather = dtype_bytes / tp if tp > 1 else 0.0
    extra = 4.0 if mode == "fp32_copy" else _MRV2_GUMBEL_BYTES_PER_LOGIT
    return dtype_bytes + max(gather, extra)


def mrv2_sampler_state_bytes(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> int:
    """Per rank, the penalty state model runner v2's sampler keeps for every request slot: output token counts
    (int32, max_num_seqs x vocabulary) and the prompt's token bitmask (int32, max_num_seqs x ceil(vocabulary / 32))
    (v1/worker/gpu/sample/penalties.py PenaltiesState.__init__, the same in the 0.22.1, 0.25.0, 0.27.0, 0.28.0, 0.32.0
    and 0.33.0 wheels). Sampler() allocates it in load_model after the weights are measured, on the last pipeline
    rank of a generate model (v1/worker/gpu/model_runner.py, 0.28.0), so it is neither weights nor profile peak: it
    shrinks the KV budget only where the budget charges the memory consumed since the init snapshot (rules row
    budget_counts_runner_buffers, 0.27+). 0 for model runner v1, whose sampler keeps no such tensor."""
    if not rules.budget_counts_runner_buffers or model_runner(model, args, rules) != "v2":
        return 0
    v = model.vocab_size
    return args.max_num_seqs * (4 * v + 4 * cdiv(v, 32))


def sampler_kernel_note(rules: VersionRules, c, model: ModelSpec) -> str | None:
    """What kvplan assumed about the sampler's top-k/top-p kernel where the release's default depends on the install
    (rules row flashinfer_sampler) and the era has a FlashInfer term apart; None elsewhere."""
    if model.is_pooling or c.a_sampler_flashinfer is None or rules.flashinfer_sampler != "if_installed":
        return None
    return (f"sampler: vLLM {rules.version} samples top-k/top-p with FlashInfer's kernel when flashinfer is installed "
            f"(VLLM_USE_FLASHINFER_SAMPLER unset); kvplan charges the PyTorch-native path ({c.a_sampler:.3g} B per logit). "
            f"A log saying 'Using FlashInfer for top-p & top-k sampling' ran the other: --env VLLM_USE_FLASHINFER_SAMPLER=1 "
            f"charges it ({c.a_sampler_flashinfer:.3g} B per logit)")


def v1_fallback(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules) -> str | None:
    """Why a 0.8-0.10 release (V1 by default) runs this deployment on its V0 engine, in vLLM's words for the
    feature; None where it runs V1 (see the v0_* rules rows and V0_ONLY_ARCHITECTURES)."""
    if not rules.is_v1 or not rules.v0_engine_shipped:  # rules row v0_engine_shipped
        return None
    cc = gpu.cc
    if rules.v0_below_cc_major and gpu.vendor == "NVIDIA" and cc and cc[0] < rules.v0_below_cc_major:
        return "Compute Capability < 8.0"
    kv = (args.kv_cache_dtype or "auto").lower()
    if kv != "auto" and rules.v1_kv_dtype != "any":
        mode, fp8_on_hopper = rules.v1_kv_dtype, kv.startswith("fp8") and bool(cc) and cc[0] == 9
        kept = (mode != "auto_only" and fp8_on_hopper) or ("10.0" in mode and cc == (10, 0)) or (
            mode.endswith("_mla") and model.uses_mla)
        if not kept:
            return "--kv-cache-dtype"
    kind = args.runner_type
    if rules.v0_for_pooling and (kind == "pooling" or (kind is None and model.is_pooling)):
        return "--task embed"
    spec = args.speculative
    # 0.9.x's oracle (engine/arg_utils.py _is_v1_supported_oracle, 0.9.0 and 0.9.2 wheels) reads "method" as given:
    # none given keeps V1 only for the model "ngram"; an inferred eagle/eagle3/draft_model goes to V0
    inferred = spec and spec[0] != "ngram" and not speculative_method_given(args.speculative_config)
    if spec and (rules.v0_for_speculative == "all" or (rules.v0_for_speculative == "not_ngram_mtp" and (
            inferred or spec[0] not in ("ngram", "mtp", "eagle", "eagle3")))):
        return "Speculative Decoding"
    if rules.v0_for_lora and args.enable_lora:
        return "LORA"
    if rules.v0_for_cpu_offload and args.cpu_offload_gb:
        return "--cpu-offload-gb"
    if rules.v0_for_pipeline_parallel and (args.pipeline_parallel_size or 1) > 1:
        return "PP"
    if rules.v0_for_float32 and _DTYPE_ALIASES.get(args.dtype, args.dtype) == "float32":
        return "--dtype torch.float32"
    quant = canonical_quant(args.quantization or (model.quant.method if model.quant else ""))
    if quant in rules.v0_for_quantization:
        return f"--quantization {quant}"
    if rules.v0_for_recurrent and any(l.kind == "recurrent" for l in model.layers):
        return str(list(model.architectures) or [model.model_type])
    for arch, first, last in V0_ONLY_ARCHITECTURES:
        if arch in model.architectures and first <= rules.release <= last:
            return str(list(model.architectures))
    return None


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


# --------------------------------------------------------------------------- inputs


# vLLM environment variables that change what a startup allocates, and what kvplan does with each (the rest are
# carried into serve.sh and noted as not modelled)
ENV_EFFECTS = {
    "VLLM_USE_V1": "0 runs a 0.8-0.10 release on its V0 engine",
    "VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1 allows a max_model_len beyond the model's limit",
    "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE": "1 keeps chunked local attention as windows in 0.10.1-0.13",
    "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS": "0 leaves CUDA-graph memory out of the budget where it is subtracted",
    "VLLM_MXFP4_USE_MARLIN": "1 selects Marlin (its padding and workspace) for MXFP4 experts: on any GPU in 0.10.1 and "
                             "0.19-0.23, on Hopper in 0.11.1-0.18; not read in 0.10.2-0.11.0 nor from 0.24",
    "VLLM_USE_DEEP_GEMM": "0 / 1 removes / forces DeepGEMM for block-FP8 MoE experts (their persistent workspace, 0.17+)",
    "VLLM_MOE_USE_DEEP_GEMM": "0 / 1 removes / forces DeepGEMM for block-FP8 MoE experts (their persistent workspace, 0.17+)",
    "VLLM_PP_LAYER_PARTITION": "the decoder layers of each pipeline stage (its weights and KV layers), e.g. 16,32",
    "VLLM_USE_FLASHINFER_SAMPLER": "1 / 0 selects FlashInfer's / the PyTorch-native top-k/top-p sampler (its profile peak, V1 0.8-0.17)",
    "VLLM_USE_V2_MODEL_RUNNER": "1 / 0 forces model runner v2 / v1 from 0.22 (=1 opts in to v2 in 0.12-0.21): its sampler "
                                "state and profile, CUDA-graph estimate and capture, in-flight window (model_runner_choice)",
    "VLLM_DISABLE_COMPILE_CACHE": "1 loads no compiled graph from the cache: every start compiles inside the memory profile, "
                                  "as a first start does (the cold-start warning then speaks of every start)",
}


# `vllm serve --max-model-len` reads "human-readable" integers: one letter, a lowercase suffix decimal (32k = 32,000,
# 8m = 8,000,000), an uppercase one binary (32K = 32,768); decimals only with decimal suffixes; anything else ('32Ki',
# '32 k') goes to int() and is refused (vllm/engine/arg_utils.py, human_readable_int: fullmatch
# r"(\d+(?:\.\d+)?)([kKmMgGtT])").
_HUMAN_INT = re.compile(r"(\d+(?:\.\d+)?)([kmgtKMGT])?")
_DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_BINARY = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def is_auto_length(value) -> bool:
    """Whether a max_model_len as given asks for 'auto' (the largest length at which N requests fit)."""
    return isinstance(value, str) and value.strip().lower() == "auto"


def parse_max_model_len(value) -> int | None:
    """--max-model-len as vllm serve reads it: None for auto, -1 for auto-fit, else tokens."""
    if value is None or isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if is_auto_length(value):
        return None
    text = str(value).strip().replace(",", "").replace("_", "")
    if text == "-1":
        return -1
    if len(text) > 24:  # no context length has more digits; refused before any arithmetic overflows
        raise InputError("--max-model-len", f"{text[:12]}... ({len(text)} characters) is not a context length",
                         "e.g. 4096, 32k (= 32,000), 32K (= 32,768), -1 (auto-fit), or auto with --concurrency")
    number = human_int(text)
    if number is None:
        raise InputError("--max-model-len", f"not a length vllm serve reads: {value!r}",
                         "e.g. 4096, 32k (= 32,000), 32K (= 32,768), -1 (auto-fit), or auto with --concurrency")
    return number


def human_int(value) -> int | None:
    """A whole number as vllm serve's integer flags read it (8k = 8,000, 8K = 8,192, not 8Ki; 4,096 and 4_096 too),
    None when it is not one. vLLM >= 0.11 parses every int engine argument (--max-num-batched-tokens,
    --max-num-seqs, ...) this way (vllm/engine/arg_utils.py: int fields take human_readable_int as argparse type)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None  # inf and NaN are not integers
    m = _HUMAN_INT.fullmatch(str(value).strip().replace(",", "").replace("_", ""))
    number, suffix = (m.group(1), m.group(2)) if m else (None, None)
    if number is not None and (suffix in _DECIMAL or (suffix is None and "." not in number)):
        return int(Fraction(number) * _DECIMAL.get(suffix, 1))  # exact: no float overflow or rounding
    if number is not None and suffix in _BINARY and "." not in number:
        return int(number) * _BINARY[suffix]
    return None


ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def check_env_name(name: str, field: str = "--env") -> str:
    """`name` if it can be an environment variable (a shell and a compose file can export it), else InputError."""
    if not ENV_NAME.fullmatch(name):
        raise InputError(field, f"{name!r} is not an environment variable name",
                         "use letters, digits and _ only, not starting with a digit (e.g. VLLM_USE_V1)")
    return name


def parse_env(value) -> tuple[tuple[str, str], ...]:
    """--env KEY=VALUE (repeatable), a dict, or pairs -> sorted (key, value) pairs; InputError naming a bad entry."""
    if not value:
        return ()
    if isinstance(value, str):  # "A=1 B=2" or "A=1,B=2"; a comma not followed by KEY= is the value's (16,32)
        value = [v for v in re.split(r"\s+|,(?=\s*[A-Za-z_][A-Za-z0-9_]*=)", value) if v and v.strip()]
    items = value.items() if isinstance(value, dict) else value
    out = {}
    for item in items:
        if isinstance(item, str):
            key, sep, val = item.partition("=")
            if not sep or not key.strip():
                raise InputError("--env", f"{item!r} is not KEY=VALUE", "e.g. --env VLLM_USE_V1=0")
        else:
            key, val = item
        out[check_env_name(str(key).strip())] = str(val).strip()
    return tuple(sorted(out.items()))


def env_flag_on(env: Sequence[tuple[str, str]], name: str) -> bool:
    """Whether the server's environment `env` turns switch `name` on: bool(int(value)) for the variables vLLM reads so
    (INT_READ_ENV; a value int() refuses is refused in _env_rules), else 1 / true / yes / on."""
    value = str(dict(env).get(name) or "").strip()
    if name in INT_READ_ENV:
        try:
            return bool(int(value))
        except ValueError:
            return False
    return value.lower() in ("1", "true", "yes", "on")


# a value each count flag takes, for its refusal's hint ("e.g. 1" for --block-size named a size no backend takes)
COUNT_EXAMPLES = {
    "tensor_parallel_size": "e.g. 1, 2, 4 or 8", "pipeline_parallel_size": "e.g. 1 or 2", "data_parallel_size": "e.g. 1 or 2",
    "max_num_seqs": "e.g. 256", "max_num_batched_tokens": "e.g. 8192", "block_size": "e.g. 16 (vLLM's default)",
    "num_gpus": "e.g. 1", "max_model_len": "e.g. 4096",
}


@dataclass(frozen=True)
class EngineArgs:
    """The `vllm serve` flags kvplan models. None means "that vLLM version's default"."""

    max_model_len: int | None = None
    gpu_memory_utilization: float | None = None
    tensor_parallel_size: int | None = None
    pipeline_parallel_size: int | None = None
    kv_cache_dtype: str | None = None
    dtype: str | None = None
    quantization: str | None = None
    enforce_eager: bool = False
    block_size: int | None = None
    max_num_seqs: int | None = None
    max_num_batched_tokens: int | None = None
    mamba_ssm_cache_dtype: str | None = None
    enable_prefix_caching: bool | None = None
    enable_chunked_prefill: bool | None = None  # None: the release's default (V1 always; V0 for contexts > 32K)
    vllm_version: str | None = None
    num_gpus: int | None = None
    data_parallel_size: int | None = None      # engines, each with its own KV pool (vllm serve -dp)
    enable_expert_parallel: bool = False       # experts split over TP x DP ranks instead of sliced by TP
    overhead_gb: float | None = None
    kv_cache_memory_bytes: int | None = None  # vLLM's --kv-cache-memory-bytes (>= 0.10.2): the pool, exactly
    allow_long_max_model_len: bool = False     # VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (or a rope-scaling override)
    speculative_config: str | dict | None = None  # vLLM's --speculative-config JSON: {"method": ..., "num_speculative_tokens": N}
    compilation_config: str | dict | None = None  # vLLM's --compilation-config JSON; kvplan reads its cudagraph_mode
    # and (0.11.1+) its cudagraph_capture_sizes / max_cudagraph_capture_size (_capture_settings)
    # vLLM's --cudagraph-capture-sizes (0.11.1+): the batch sizes CUDA graphs are captured at, as given ("1,2,4,8",
    # "1 2 4 8" or a sequence of ints); None: the release derives them (cudagraph_capture_sizes)
    cudagraph_capture_sizes: str | tuple[int, ...] | list[int] | None = None
    max_cudagraph_capture_size: int | None = None  # vLLM's --max-cudagraph-capture-size (0.11.1+): the default grid's top
    # vLLM's --cuda-graph-sizes (0.9.0-0.12.x, as --cudagraph-capture-sizes takes it): one value N, the grid up to N
    # before 0.11.1; several, the sizes (_cuda_graph_sizes)
    cuda_graph_sizes: str | tuple[int, ...] | list[int] | None = None
    runner: str | None = None  # vLLM's --runner: auto (None), generate or pooling; --task embed/classify/score/reward map to pooling
    cpu_offload_gb: float | None = None  # vLLM's --cpu-offload-gb: GiB of weights per GPU kept in CPU memory (UVA)
    enable_lora: bool = False            # --enable-lora: max_loras slots of max_lora_rank on every supported layer
    max_loras: int | None = None         # vLLM default 1
    max_lora_rank: int | None = None     # vLLM default 16
    fully_sharded_loras: bool = False
    limit_mm_per_prompt: str | dict | None = None  # vLLM's --limit-mm-per-prompt: items per modality ('{"image": 2}')
    language_model_only: bool = False  # vLLM's --language-model-only (>= 0.17): every modality's limit is 0
    skip_mm_profiling: bool = False  # vLLM's --skip-mm-profiling (>= 0.10.1): the profile run encodes no items
    entrypoint: str | None = None  # "serve" (vllm serve, the default) or "llm" (vllm.LLM in Python: larger token budget)
    # set by resolve_args, not a vllm serve flag: "awq" where vLLM serves an AWQ checkpoint's Linear layers with its
    # plain AWQ method, "marlin" where AWQ-Marlin converts them (awq_linear_kernel); None for other checkpoints
    awq_kernel: str | None = None
    env: tuple[tuple[str, str], ...] = ()  # environment variables the server runs with (ENV_EFFECTS: those that move memory)

    def __post_init__(self):
        if isinstance(self.cudagraph_capture_sizes, list):  # as JSON gives it: kept hashable, as a frozen dataclass is
            object.__setattr__(self, "cudagraph_capture_sizes", tuple(self.cudagraph_capture_sizes))
        if isinstance(self.cuda_graph_sizes, list):
            object.__setattr__(self, "cuda_graph_sizes", tuple(self.cuda_graph_sizes))

    def env_value(self, name: str) -> str | None:
        return dict(self.env).get(name)

    def env_on(self, name: str) -> bool:
        return env_flag_on(self.env, name)

    @cached_property
    def mm_limits(self) -> dict[str, int] | None:
        """--limit-mm-per-prompt as {modality: items}: JSON ('{"image": 2, "video": 0}') or the older image=2,video=0."""
        return parse_mm_limits(self.limit_mm_per_prompt)

    @cached_property  # read per KV group and per request length by the planner: parse the JSON once
    def speculative(self) -> tuple[str, int] | None:
        """(kind, num_speculative_tokens): kind "mtp" (the checkpoint's own MTP layers draft) or "ngram" (no drafter
        weights or KV); None without speculative decoding."""
        return parse_speculative_config(self.speculative_config)

    @property
    def decode_query_len(self) -> int:
        """Tokens one request decodes per step: 1 + num_speculative_tokens (the q of the uniform-decode FULL graphs,
        _full_graph_sizes, and of the speculative rounding of the capture sizes)."""
        spec = self.speculative
        return 1 + (spec[1] if spec else 0)

    @cached_property
    def draft(self) -> ModelSpec | None:
        """The drafter checkpoint --speculative-config's "model" names (methods eagle, eagle3, draft_model), resolved
        like any model reference (resolve.resolve_draft: catalog, local config, the Hub); None for other methods."""
        ref = speculative_draft(self.speculative_config)
        if ref is None:
            return None
        from kvplan.resolve import resolve_draft

        return resolve_draft(*ref)

    @cached_property
    def cudagraph_mode(self) -> str | None:
        """--compilation-config's cudagraph_mode (NONE, PIECEWISE, FULL, FULL_DECODE_ONLY, FULL_AND_PIECEWISE), or None
        for the release's default."""
        return parse_compilation_config(self.compilation_config)

    @cached_property
    def capture_sizes_given(self) -> tuple[int, ...] | None:
        """--cudagraph-capture-sizes as a tuple of ints in the order given (None: not given)."""
        return parse_capture_sizes(self.cudagraph_capture_sizes)

    @cached_property
    def cuda_graph_sizes_given(self) -> tuple[int, ...] | None:
        """--cuda-graph-sizes (0.9.0-0.12.x) as a tuple of ints in the order given (None: not given)."""
        return parse_capture_sizes(self.cuda_graph_sizes, *CAPTURE_SIZE_ARGS["cuda_graph_sizes"])

    @property
    def captures_cuda_graphs(self) -> bool:
        """Whether vLLM captures CUDA graphs: not with --enforce-eager, nor with --compilation-config cudagraph_mode
        NONE (config/compilation.py CUDAGraphMode.NONE: no capture, so no graph memory and no capture line)."""
        return not self.enforce_eager and self.cudagraph_mode != "NONE"

    @property
    def runner_type(self) -> str | None:
        """"generate", "pooling", or None for vLLM's auto choice (from the architecture and a sentence-transformers
        Pooling module). The older --task values map as vLLM's deprecation did (PR #21470)."""
        r = str(self.runner or "auto").strip().lower()
        if r == "auto":
            return None
        if r in ("generate", "pooling"):
            return r
        if r in _POOLING_TASKS:
            return "pooling"
        raise InputError("--runner", f"unknown runner {self.runner!r}",
                         "auto, generate or pooling (older vLLM: --task embed, classify, score or reward = pooling)")

    def validate(self) -> None:
        self.speculative  # raises on a malformed or unmodelled --speculative-config
        self.cudagraph_mode  # raises on a malformed --compilation-config or an unknown cudagraph_mode
        self.mm_limits  # raises on a malformed --limit-mm-per-prompt
        self.capture_sizes_given  # raises on a malformed --cudagraph-capture-sizes
        self.cuda_graph_sizes_given  # raises on a malformed --cuda-graph-sizes
        self.runner_type  # raises on an unknown --runner
        u = self.gpu_memory_utilization
        if u is not None and not (0 < u <= 1):
            # 95 is a percentage written where vLLM takes a fraction: the fix is that fraction, not an example of 0.9.
            # 1.5 is no percentage anyone serves at (it was answered "0.015 for 1.5 %"): from 10 % up only
            fix = (f"a fraction, not a percentage: --gpu-memory-utilization {u / 100:g} for {u:g} %" if 10 <= u <= 100
                   else "e.g. 0.9 (the fraction of total GPU memory vLLM may claim)")
            raise InputError("--gpu-memory-utilization", f"must be in (0, 1], got {u}", fix)
        for name in ("tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size", "max_num_seqs", "max_num_batched_tokens",
                     "block_size", "num_gpus", "max_model_len"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
                raise InputError("--" + name.replace("_", "-"), f"must be a whole number, got {v!r}", COUNT_EXAMPLES[name])
            if name == "max_model_len":
                continue
            if v is not None and v < 1:
                raise InputError("--" + name.replace("_", "-"), f"must be a positive integer, got {v}", COUNT_EXAMPLES[name])
        if self.max_model_len is not None and self.max_model_len < 1 and self.max_model_len != AUTO_FIT:
            raise InputError("--max-model-len", f"must be a positive integer, got {self.max_model_len}",
                             "e.g. 4096 (or -1: vLLM >= 0.14 fits the longest length the KV pool holds)")
        if self.kv_cache_dtype is not None and self.kv_cache_dtype not in KV_CACHE_DTYPES:
            raise InputError("--kv-cache-dtype", f"unknown KV-cache dtype {self.kv_cache_dtype!r}", f"one of {', '.join(KV_CACHE_DTYPES)}")
        if self.dtype is not None and self.dtype not in MODEL_DTYPES:
            raise InputError("--dtype", f"unknown dtype {self.dtype!r}", f"one of {', '.join(MODEL_DTYPES)}")
        if self.mamba_ssm_cache_dtype is not None and self.mamba_ssm_cache_dtype not in MAMBA_DTYPES:
            raise InputError("--mamba-ssm-cache-dtype", f"unknown dtype {self.mamba_ssm_cache_dtype!r}", f"one of {', '.join(MAMBA_DTYPES)}")
        # --block-size: a positive int (above); which sizes a release takes is its own (versions.BLOCK_SIZE_CHOICES,
        # checked with the release: any positive int from 0.18, e.g. 96 starts gpt-oss-20b on 0.29 with TRITON_ATTN)
        for name, example in (("max_loras", "e.g. 4"), ("max_lora_rank", "e.g. 4"),
                              ("max_cudagraph_capture_size", "e.g. 64 (graphs at batch sizes 1, 2, 4, 8, ... 64)")):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise InputError("--" + name.replace("_", "-"), f"must be a positive whole number, got {v!r}", example)
        if self.max_lora_rank is not None and self.max_lora_rank not in _LORA_RANKS:
            raise InputError("--max-lora-rank", f"vLLM accepts ranks {', '.join(map(str, _LORA_RANKS))}, got {self.max_lora_rank}", "e.g. 16")
        if (self.max_loras or self.max_lora_rank or self.fully_sharded_loras) and not self.enable_lora:
            raise InputError("--enable-lora", "LoRA settings given without --enable-lora", "add --enable-lora (vLLM ignores them otherwise)")
        for flag, value, unit, fix in (("--cpu-offload-gb", self.cpu_offload_gb, " GiB", "e.g. 10 (GiB of weights per GPU kept in CPU memory)"),
                                       ("--overhead-gb", self.overhead_gb, "", "the seed uses 1")):
            if value is not None and (isinstance(value, bool) or not 0 <= value * GIB <= MAX_MEMORY_BYTES):
                raise InputError(flag, f"must be a finite number >= 0{unit} (at most {MAX_MEMORY_BYTES // GIB:,}), got {value!r}",
                                 fix)

# the integer engine arguments (EngineArgs' "int | None" fields), which human_int reads as vllm serve does
# (max_model_len apart: parse_max_model_len also takes auto and -1)
INT_ENGINE_ARGS = tuple(f.name for f in fields(EngineArgs) if f.type == "int | None" and f.name != "max_model_len")


@dataclass(frozen=True)
class KVGroup:
    """Layers that share one block table (section 3.2)."""

    kind: str               # full, sliding, chunked, mla, recurrent
    num_layers: int         # layers in this group (padding slots excluded)
    block_size: int         # tokens per block of this group
    page_bytes: int         # bytes of one block of one layer (after unification)
    window: int | None = None
    recurrent_kind: str | None = None  # mamba1, mamba2, gdn, linear (recurrent groups)
    fit_unit_bytes: int = 0  # DeepSeek-V4 up to 0.28: bytes the fit check charges per block a request holds
    # members held as full attention whose own window the fit check still charges (rules row fit_check_sees_windows):
    # (kind, window, layers)
    checked_windows: tuple[tuple[str, int, int], ...] = ()
    # a recurrent group whose layers can export a prefill checkpoint (Qwen's GDN in 0.33: FlashInfer's GDN prefill
    # kernel; see _gdn_exports_checkpoints); read with rules.mamba_checkpoint_page by mamba_pages
    checkpoint_capable: bool = True


@dataclass(frozen=True)
class Term:
    """One number in the plan and how it was produced (for --explain and JSON)."""

    name: str
    value: float
    unit: str
    formula: str
    source: str = ""


@dataclass(frozen=True)
class Fix:
    name: str
    flags: dict
    effect: str
    fits: bool
    # the fix's plan starts warm, but its first (compiling) start may be refused (Plan.first_start_refused: the
    # cold-start warning), and the flags at which a first start also holds one request (the same search with that
    # as the test: api._first_start_note); None where no such value was searched or none was found
    first_start_refused: bool = False
    first_start_flags: dict | None = None

    @property
    def command_text(self) -> str:
        return fix_command_text(self.flags)


def fix_command_text(flags: dict) -> str:
    """A fix's change as the user types it: a model first (the positional argument), then --flags."""
    import shlex  # a value as a shell reads it: a GPU's catalog name has spaces ('--gpu NVIDIA A100 80GB SXM4' ran
    # as --gpu NVIDIA with three stray arguments); the page's renderFixes (web/static/app.js) quotes alike

    model = flags.get("model")
    rest = " ".join(f"--{k.replace('_', '-')}" if v is True else f"--{k.replace('_', '-')} {shlex.quote(str(v))}"  # a switch: no value
                    for k, v in flags.items() if k != "model")
    return " ".join(x for x in (shlex.quote(str(model)) if model else "", rest) if x)


PER_ENGINE_FIELDS = ("kv_cache_bytes", "num_gpu_blocks", "kv_cache_tokens", "max_concurrency")


@dataclass(frozen=True)
class Plan:
    """What vLLM will do at startup, with every term that produced it."""

    model: ModelSpec
    gpu: GPUSpec
    args: EngineArgs                 # every default applied
    rules: VersionRules
    mode: str                        # "vllm" or "simple" (the seed's arithmetic)
    total_bytes: int
    requested_bytes: float
    weights_bytes: int               # per rank
    weights_exact: bool
    activation_peak_bytes: int
    non_torch_bytes: int
    cudagraph_bytes: int             # subtracted from the budget (0 where the era does not)
    cudagraph_capture_bytes: int     # predicted real capture (beyond the budget where not subtracted)
    kv_cache_bytes: float            # available KV memory per rank
    groups: tuple[KVGroup, ...]
    bytes_per_block: int
    num_gpu_blocks: int
    kv_cache_tokens: int
    max_concurrency: float
    kv_bytes_per_token: float        # grows with context: full-attention and MLA layers (per rank)
    state_bytes_per_sequence: int    # fixed per sequence: recurrent state, window-capped layers (per rank)
    fits: bool
    error: str | None
    estimated_max_model_len: int | None
    vllm_log: tuple[str, ...]
    terms: tuple[Term, ...]
    assumptions: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    fixes: tuple[Fix, ...] = ()
    failure: str | None = None       # None (starts), "memory" (the KV-cache checks), "load" (weights beyond the GPU),
                                     # "platform" (GPU generation, dtype), "architecture" (not registered) or
                                     # "state_blocks" (a hybrid's state blocks below max_num_seqs)
    weights_by_use: tuple[tuple[str, int], ...] = ()  # per rank, by what a decode step does with them (RankWeights.by_use)
    given_args: EngineArgs | None = None  # the flags as given, before defaults (a replan re-derives the defaults)
    # speculative decoding's own terms (method, tokens; a drafter checkpoint's weights, KV layers and profile bytes)
    speculative: dict | None = None
    # the site calibration (kvplan reconcile --calibrate) this plan applied, for its replans on the same GPU and model
    site_offsets: dict | None = field(default=None, compare=False, repr=False)
    # whether this plan looked its GPU and model up in the site calibration (api.fit's default, which every planning
    # command goes through): its replans on another GPU or model then look theirs up too (api.replan)
    site_calibration: bool = field(default=False, compare=False, repr=False)
    # the CUDA graphs captured: effective mode, capture sizes, the drafter's graphs, their bytes (CudaGraphPlan.to_dict)
    cudagraphs: dict | None = None
    # the GPU model runner planned, {"runner": "v1" | "v2", "why": ...} (model_runner_choice: the release's default
    # and VLLM_USE_V2_MODEL_RUNNER); None for the seed's arithmetic and V0
    model_runner: dict | None = None
    # a compiling (cold) first start's pool beside the warm one planned here (ColdStartLoss.to_dict); None where no
    # start compiles (--enforce-eager, V0, compilation off) or the pool is given (--kv-cache-memory-bytes)
    first_start: dict | None = None
    # whether that compiling first start may be refused where this warm plan starts (the cold-start warning says so:
    # its pool, first_start's loss_bytes_most smaller, fails vLLM's checks); False where it starts or nothing compiles
    first_start_refused: bool = False

    @property
    def vllm_version(self) -> str:
        return self.rules.version

    @property
    def era(self) -> str:
        return self.rules.era

    @property
    def block_size(self) -> int:
        return self.args.block_size or DEFAULT_BLOCK_SIZE

    @property
    def window_kv_per_token(self) -> tuple[float, int, int]:
        """(bytes per token per rank of the window-capped attention layers, the tokens per sequence they keep at most,
        the tokens' worth of pages vLLM reserves per sequence in them): their pages grow with each token up to the
        window, then stop; a sequence's reservation is the window plus the tokens of the steps in flight, in whole
        blocks (section 3.4), which is what state_bytes_per_sequence counts."""
        wins = [g for g in self.groups if g.kind in ("sliding", "chunked") and g.window]
        if not wins or self.mode != "vllm":
            return 0.0, 0, 0
        return (sum(g.num_layers * g.page_bytes / g.block_size for g in wins),
                max(min(g.window, self.args.max_model_len) for g in wins),
                max(_group_blocks(g, self.args.max_model_len, self.args, self.rules) * g.block_size for g in wins))

    def blocks_for_tokens(self, num_tokens: int) -> int:
        """Blocks one request holding `num_tokens` tokens takes across all KV groups (section 3.4)."""
        return sum(_group_blocks(g, num_tokens, self.args, self.rules) for g in self.groups)

    @property
    def engines(self) -> int:
        """Data-parallel engines (vllm serve -dp): each holds its own weights and its own KV pool, so the pool,
        blocks, tokens and concurrency of this plan are per engine."""
        return self.args.data_parallel_size or 1

    @property
    def gpus_used(self) -> int:
        """GPUs vLLM occupies: TP x PP ranks per engine, times the engines."""
        return self.args.tensor_parallel_size * self.args.pipeline_parallel_size * self.engines

    def with_fixes(self, fixes: tuple[Fix, ...]) -> "Plan":
        return replace(self, fixes=fixes)

    def to_dict(self) -> dict:
        a = {k: v for k, v in asdict(self.args).items()}
        return {
            "model": self.model.id,
            "model_source": self.model.source,
            "gpu": self.gpu.name,
            "gpu_total_bytes": self.total_bytes,
            "vllm_version": self.vllm_version,
            "era": self.era,
            "mode": self.mode,
            "args": a,
            "kv_bytes_per_token": self.kv_bytes_per_token,
            "state_bytes_per_sequence": self.state_bytes_per_sequence,
            "weights_bytes": self.weights_bytes,
            "weights_exact": self.weights_exact,
            "budget_bytes": self.requested_bytes,
            "requested_bytes": self.requested_bytes,
            "activation_peak_bytes": self.activation_peak_bytes,
            "non_torch_bytes": self.non_torch_bytes,
            "cudagraph_bytes": self.cudagraph_bytes,
            "cudagraph_capture_bytes": self.cudagraph_capture_bytes,
            "kv_cache_bytes": self.kv_cache_bytes,
            "block_size": self.block_size,
            "bytes_per_block": self.bytes_per_block,
            "kv_cache_groups": [asdict(g) for g in self.groups],
            "num_gpu_blocks": self.num_gpu_blocks,
            "kv_cache_tokens": self.kv_cache_tokens,
            "max_concurrency": self.max_concurrency,
            "gpus_used": self.gpus_used,
            "engines": self.engines,
            "per_engine": list(PER_ENGINE_FIELDS),  # with data parallelism, these are each engine's (of `engines`)
            "kv_cache_tokens_all_engines": self.kv_cache_tokens * self.engines,
            "max_concurrency_all_engines": self.max_concurrency * self.engines,
            "fits": self.fits,
            "error": self.error,
            "failure": self.failure,
            "estimated_max_model_len": self.estimated_max_model_len,
            "vllm_log": list(self.vllm_log),
            "terms": [asdict(t) for t in self.terms],
            "assumptions": list(self.assumptions),
            "warnings": list(self.warnings),
            "fixes": [asdict(f) for f in self.fixes],
            "speculative": self.speculative,
            "cudagraphs": self.cudagraphs,
            "model_runner": self.model_runner,
            "first_start": self.first_start,
            # the offsets `kvplan reconcile --calibrate` stored for this GPU and model, where this plan applied them
            # (the same key in fit --json, sweep --json rows and the web API's answers)
            "site_calibration": site_calibration_dict(self.site_offsets),
        }


def site_calibration_dict(offsets: dict | None) -> dict | None:
    """The site calibration a plan applied, as its JSON says it: where it came from and the bytes per rank it added
    to each measured term; None where none was applied."""
    if not offsets:
        return None
    out = {"source": offsets.get("source", "kvplan reconcile --calibrate")}
    for key in ("activation_peak_bytes", "non_torch_bytes", "cudagraph_bytes"):
        out[key] = int(offsets.get(key, 0))
    if offsets.get("n") is not None:
        out["startups"] = offsets.get("n")
    return out


# --------------------------------------------------------------------------- defaults


def _resolve_dtype(model: ModelSpec, gpu: GPUSpec, given: str | None, notes: list[str]) -> str:
    """vLLM's --dtype auto: the checkpoint dtype; fp32 checkpoints run in bf16/fp16; bf16 needs cc >= 8.0."""
    given = given or "auto"
    if given != "auto":
        return _DTYPE_ALIASES.get(given, given)
    dt = model.dtype
    if dt == "float32":
        dt = "bfloat16"
        notes.append("--dtype auto: a float32 checkpoint is served in bfloat16")
    cc = gpu.cc
    if dt == "bfloat16" and cc is not None and cc < (8, 0):
        notes.append(f"--dtype auto: {gpu.name} (compute capability {gpu.compute_capability}) has no bfloat16, so float16 is used")
        dt = "float16"
    return dt


# Checkpoint quantization methods that no other method's override claims: vLLM's ModelConfig._verify_quantization
# takes the config's quant_method as the method when no --quantization is given, lets each listed method's
# override_quantization_method claim the config, and otherwise raises "Unknown quantization method: ..." for a name
# QUANTIZATION_METHODS lacks (config/model.py and model_executor/layers/quantization/, vLLM 0.28.0 wheel: bitsandbytes
# is gone from the list and no override there reads a bitsandbytes config). Others a release dropped (auto-round,
# gguf) are served another way (an override, a load format) and are not refused here.
_CHECKPOINT_METHODS_NO_OVERRIDE = frozenset({"bitsandbytes"})


def _dropped_since(method: str, version: str) -> str | None:
    """The newest release read that lists quantization `method` where vLLM `version`'s list no longer does
    (versions.quant_method_last_read); None where the release lists it, no list is known, or no earlier list had it."""
    known = quantization_methods(version)
    if known is None or canonical_quant(method) in known:
        return None
    return quant_method_last_read(method, version)


def _pin_release_fix(last: str) -> str:
    return f"pin --vllm-version {last} or earlier, or serve a checkpoint quantized another way"


# method names said as words, not letter by letter, whose first letter's name starts with a vowel sound ("em", "aitch"):
# a ModelOpt, a MoE-WNA16, a Humming checkpoint
_SAID_AS_WORDS = ("MODELOPT", "MOE", "HUMMING", "MARLIN")


def _article(acronym: str) -> str:
    """'a' or 'an' before an acronym read letter by letter: an AWQ, an MXFP4, a GPTQ; a MODELOPT (said as a word)."""
    if acronym.upper().startswith(_SAID_AS_WORDS):
        return "a"
    return "an" if acronym[:1] in set("AEFHILMNORSX") else "a"


def _resolve_quant(model: ModelSpec, given: str | None, notes: list[str], gpu: GPUSpec, version: str) -> QuantSpec | None:
    q = model.quant
    if not given:
        last = _dropped_since(q.method, version) if q is not None and q.method in _CHECKPOINT_METHODS_NO_OVERRIDE else None
        if last is not None:
            raise InputError("model", f"{model.id} is a {q.method} checkpoint (its config's quant_method), and vLLM "
                             f"{version} no longer has that method (the newest release read that has it is {last}): "
                             f"vLLM refuses it as an unknown quantization method", _pin_release_fix(last))
        return q
    known = quantization_methods(version)
    method = canonical_quant(given)
    if known is not None and method not in known:
        last = _dropped_since(method, version)
        if last is not None:
            raise InputError("--quantization", f"vLLM {version} no longer has quantization method {given!r} (the "
                             f"newest release read that has it is {last})", _pin_release_fix(last))
        raise InputError("--quantization", f"unknown quantization method {given!r} for vLLM {version} "
                         f"(known: {', '.join(sorted(known))})", "drop --quantization to use the checkpoint's own")
    # the QuantSpec.method (resolve.quant_from_config) of the checkpoints the method serves
    family = {"awq_marlin": "awq", "gptq_marlin": "gptq", "modelopt_fp4": "modelopt", "auto-round": "auto_round"}.get(method, method)
    if q is not None:
        if family in (q.method, q.method.replace("-", "_")) or (family == "fp8" and "fp8" in q.scheme):
            return q
        raise InputError("--quantization", f"the checkpoint is {q.method}-quantized ({q.scheme}), not {given}",
                         f"drop --quantization, or pass --quantization {q.method}")
    tower = ("" if not model.is_multimodal else ", the vision tower's Linear layers included" if vision_linear_params(model)
             else "; the vision tower is counted in the model dtype (kvplan converts only the Qwen and Gemma 3 towers' "
             "Linear layers)")
    if family == "fp8":
        kept = (" but its MLP, which vLLM builds unquantized (SigLIP sizes not multiples of 64)"
                if vision_bnb_only_params(model) else "")
        notes.append("--quantization fp8 on an unquantized checkpoint: weights quantized to FP8 at load time" + tower + kept)
        return QuantSpec("fp8", 8, None, "fp8 per-tensor (online)", applies_to="all_linear")
    if family == "bitsandbytes":
        notes.append("--quantization bitsandbytes on an unquantized checkpoint: 4-bit NF4 weights at load time" + tower)
        return BNB_IN_FLIGHT
    online_fp8 = ("" if quant_capability_error("fp8", gpu, version) else ", or use --quantization fp8 for online FP8")
    raise InputError("--quantization", f"{given} needs a checkpoint quantized with {given}, and {model.id} is not",
                     f"pick {_article(given.upper())} {given.upper()} checkpoint of this model{online_fp8}")


def _default_block_size(model: ModelSpec, gpu: GPUSpec, rules: VersionRules) -> tuple[int, str]:
    """The block size vLLM picks before hybrid alignment (section 2.4)."""
    if model.uses_mla and rules.mla_kernels:  # rules row mla_kernels
        cc = gpu.cc or (9, 0)
        if rules.mla_block_size == "forced":  # rules row mla_block_size
            if (10, 0) <= cc < (11, 0):
                return 128, "MLA on Blackwell: CUTLASS_MLA forces block size 128 (vllm/platforms/cuda.py, <= 0.17)"
            if cc == (9, 0):
                return 64, "MLA on Hopper: FlashMLA forces block size 64 (vllm/platforms/cuda.py, <= 0.17)"
            return 16, "MLA on pre-Hopper GPUs: Triton MLA, block size 16"
        if (10, 0) <= cc < (11, 0):
            return 32, "MLA on Blackwell: FLASHINFER_MLA prefers block size 32 (>= 0.18)"
        return 16, "MLA: FLASH_ATTN_MLA / TRITON_MLA prefer block size 16 (>= 0.18)"
    return DEFAULT_BLOCK_SIZE, "default block size 16 (CacheConfig.DEFAULT_BLOCK_SIZE)"


def _tp_refusal(heads: int, kv_heads: int, tp: int) -> str | None:
    """Why vLLM cannot split these heads over `tp` ranks, or None: TP must divide the attention heads, and the KV
    heads must divide by TP or, fewer than TP, be replicated tp / kv_heads times exactly (QKVParallelLinear)."""
    if heads % tp:
        return f"{heads} attention heads are not divisible by TP={tp}"
    if kv_heads and kv_heads >= tp and kv_heads % tp:
        return f"{kv_heads} KV heads are not divisible by TP={tp}"
    if kv_heads and kv_heads < tp and tp % kv_heads:
        return f"TP={tp} cannot replicate {kv_heads} KV heads evenly (vLLM fails loading the model)"
    return None


def accepted_tp_sizes(model: ModelSpec, upto: int = 16) -> list[int]:
    """The tensor-parallel sizes up to `upto` that vLLM can split this model's heads over (_tp_refusal)."""
    return [t for t in range(1, upto + 1) if not _tp_refusal(model.num_attention_heads, model.num_kv_heads, t)]


PP_SPECULATIVE = "speculative decoding with pipeline parallelism"  # the rule of pp_speculative_refusal's refusals


def pp_speculative_refusal(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> tuple[str, str] | None:
    """(vLLM's message, the fix) where the release cannot start speculative decoding with pipeline parallelism, else
    None. Rules rows pp_spec_v0_refusal (V0: every method), pp_spec_drafter (V1: a drafter, i.e. MTP layers or a
    checkpoint of DRAFT_METHODS; n-gram holds no drafter and is planned) and pp_eagle3_aux_architectures (said, not
    refused: see plan's warning). Read in the wheels those rows name."""
    spec = args.speculative
    if not spec or (args.pipeline_parallel_size or 1) <= 1:
        return None
    fix = "--pipeline-parallel-size 1 (tensor parallelism instead), or no --speculative-config"
    if not rules.is_v1:
        if rules.pp_spec_v0_refusal:  # spec_decode/spec_decode_worker.py create_spec_worker's NotImplementedError
            return rules.pp_spec_v0_refusal, fix
        return None
    if spec[0] == "ngram" or (spec[0] == "mtp" and not model.mtp_layers):
        return None  # n-gram: no drafter anywhere; MTP without MTP layers: refused as such (resolve_args)
    runner = model_runner(model, args, rules)
    if rules.pp_spec_drafter == "mrv2" and runner == "v2":
        return None
    later = max((first_release_where("pp_spec_drafter", lambda v: v == "mrv2"),
                 first_release_where("mrv2_v1_spec_methods", lambda v: spec[0] not in v) or "0"), key=parse_version)
    crash = ("'GPUModelRunner' object has no attribute 'drafter' (model runner v1 builds the drafter on the last "
             "pipeline stage only, and the profile run of every other stage reaches it)")
    if rules.pp_spec_drafter == "mrv2" and mrv2_env_value(args, rules) is False:  # v1 forced by the environment
        return crash, (f"VLLM_USE_V2_MODEL_RUNNER=0 runs model runner v1, whose {spec[0]} drafter does not start with PP: "
                       f"unset it (vLLM {rules.version}'s model runner v2 runs the drafter on the last stage), or {fix}")
    if rules.pp_spec_drafter == "mrv2":  # model runner v1 kept for this method (rules row mrv2_v1_spec_methods)
        return crash, (f"vLLM {rules.version} keeps model runner v1 for method {spec[0]!r}, whose drafter does not start "
                       f"with PP: {fix}, or a release whose model runner v2 serves {spec[0]}")
    if spec[0] == "draft_model":
        return crash, f"{fix}; or vLLM {later} or newer (model runner v2 runs the drafter on the last stage)"
    # the drafter's config inherits the target's PP and its class (an EAGLE head, an MTP module) lacks SupportsPP
    return ("Pipeline parallelism is not supported for this model. Supported models implement the `SupportsPP` "
            f"interface. (the {spec[0]} drafter's config inherits --pipeline-parallel-size)",
            f"{fix}; or vLLM {later} or newer (model runner v2 runs the drafter on the last stage; an MTP module that "
            "implements SupportsPP passes this check and fails in the profile run instead)")


def resolve_args(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules) -> tuple[EngineArgs, QuantSpec | None, list[str]]:
    """Apply every default the vLLM version would; return the resolved args and what was assumed."""
    args.validate()
    notes: list[str] = []
    tp = args.tensor_parallel_size or 1
    pp = args.pipeline_parallel_size or 1
    dp = args.data_parallel_size or 1
    if args.num_gpus is not None and tp * pp * dp > args.num_gpus:
        raise InputError("--num-gpus", f"tensor x pipeline x data parallel = {tp * pp * dp} ranks but only {args.num_gpus} GPU(s)",
                         f"use --num-gpus {tp * pp * dp} or smaller parallel sizes")
    if args.enable_expert_parallel and not model.is_moe:
        raise InputError("--enable-expert-parallel", f"{model.id} has no experts", "drop the flag (it only applies to MoE models)")
    why_not = _tp_refusal(model.num_attention_heads, model.num_kv_heads, tp)
    if why_not:
        raise InputError("--tensor-parallel-size", why_not,
                         f"TP sizes up to 16 that vLLM accepts for this model: {', '.join(map(str, accepted_tp_sizes(model)))}")
    util = args.gpu_memory_utilization
    if util is None and args.overhead_gb is not None:
        util = 0.90
        notes.append("gpu_memory_utilization 0.9 (the seed's arithmetic uses vLLM's long-standing default)")
    elif util is None:
        util = rules.default_gpu_memory_utilization
        notes.append(f"gpu_memory_utilization {util} (vLLM {rules.version} default)")
    context = context_limit(model)
    limit = context.tokens
    max_len = args.max_model_len
    if max_len is None and rules.longrope_default_original and context.longrope_original:
        max_len = context.longrope_original
        notes.append(f"max_model_len {max_len:,}: vLLM {rules.version} serves a LongRoPE model at its "
                     f"original_max_position_embeddings by default (its limit is {limit:,})")
    elif max_len is None:
        max_len = limit
        notes.append(f"max_model_len {limit:,} (the model's limit, vLLM's default: {context.how})")
    elif max_len > limit and not context.stated:
        notes.append(f"max_model_len {max_len:,} as given: the config states no context length, and vLLM takes the "
                     f"one given (it assumes {limit:,} only when none is)")
    elif max_len > limit and (args.allow_long_max_model_len or args.env_on("VLLM_ALLOW_LONG_MAX_MODEL_LEN")):
        notes.append(f"max_model_len {max_len:,} exceeds the model's {limit:,} (allowed: VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 or a rope-scaling override)")
    elif max_len > limit:
        raise InputError("--max-model-len",
                         f"User-specified max_model_len ({max_len}) is greater than the derived max_model_len "
                         f"({context.how} in model's config.json)",
                         f"use --max-model-len {limit} or less (vLLM refuses longer contexts unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)")
    dtype = _resolve_dtype(model, gpu, args.dtype, notes)
    quant = _resolve_quant(model, args.quantization, notes, gpu, rules.version)
    kv_dtype = args.kv_cache_dtype or "auto"
    if (kv_dtype == "auto" and quant is not None and quant.kv_cache_fp8
            and ("modelopt" if quant.method.startswith("modelopt") else quant.method) in rules.kv_cache_auto_follows_checkpoint):
        kv_dtype = "fp8"
        notes.append(f"kv_cache_dtype auto -> fp8: the checkpoint declares an FP8 KV cache and vLLM {rules.version} follows it")
    elif args.kv_cache_dtype is None:
        notes.append(f"kv_cache_dtype auto ({dtype})")
    block_size, why = (args.block_size, "given") if args.block_size else _default_block_size(model, gpu, rules)
    if not args.block_size:
        notes.append(why)
    entry = (args.entrypoint or "serve").strip().lower()
    if entry not in ("serve", "llm"):
        raise InputError("--entrypoint", f"unknown entrypoint {args.entrypoint!r}", "serve (vllm serve) or llm (vllm.LLM in Python)")
    t_default, s_default = batch_defaults(rules, gpu.total_gib, gpu.name, gpu.compute_capability or "", entry)
    who = "vllm.LLM" if entry == "llm" else "vllm serve"
    max_seqs = args.max_num_seqs or s_default
    chunked = args.enable_chunked_prefill is not False  # V1: on unless turned off; V0 decides below
    if rules.engine == "v0":
        # V0 turns chunked prefill on by itself for contexts > 32K, except in the cases its release lists (rules row
        # v0_long_context_chunked_skips); otherwise the profile run takes max(max_model_len, 2048) tokens at once
        skips = rules.v0_long_context_chunked_skips
        cases = {"rocm": (gpu.vendor.upper() == "AMD", "a ROCm GPU"),
                 "multimodal": (model.is_multimodal, "a multimodal model"),
                 "mla": (model.uses_mla, "an MLA model"),
                 "sliding": (any(l.kind == "sliding" for l in model.layers), "a sliding-window model"),
                 "speculative": (bool(args.speculative), "speculative decoding"), "lora": (bool(args.enable_lora), "LoRA"),
                 "pooling": (model.is_pooling or args.runner_type == "pooling", "a pooling model")}
        excluded = ("this release" if skips is None else
                    next((what for key, (hit, what) in cases.items() if key in skips and hit), None))
        chunked = max_len > 32768 and excluded is None if args.enable_chunked_prefill is None else args.enable_chunked_prefill
    if args.max_num_batched_tokens:
        tokens = args.max_num_batched_tokens
    elif rules.engine == "v0":
        tokens = rules.v0_chunked_prefill_tokens if chunked else max(max_len, 2048)
        why = ("chunked prefill" + (" (given)" if args.enable_chunked_prefill else " for contexts > 32K") if chunked else
               "max(max_model_len, 2048)" + ("; --no-enable-chunked-prefill" if args.enable_chunked_prefill is False else
                                            f"; no automatic chunked prefill for {excluded}" if max_len > 32768 and excluded else ""))
        notes.append(f"max_num_batched_tokens {tokens} (V0: {why})")
    elif args.enable_chunked_prefill is False:
        # V1 without chunked prefill: the whole context in one step (rules row v1_unchunked_batched_tokens)
        tokens = (max_len if rules.v1_unchunked_batched_tokens == "max_model_len" or not t_default
                  else min(max(max_len, t_default), max_seqs * max_len))
        notes.append(f"max_num_batched_tokens {tokens} (--no-enable-chunked-prefill: a whole max_model_len prompt per step)")
    else:
        tokens = min(t_default, max_seqs * max_len) if t_default else max(max_len, 2048)
        notes.append(f"max_num_batched_tokens {tokens} ({who} default on {gpu.name} for {rules.version})")
    floor = _prefix_lm_item_tokens(model, args, rules)
    if floor and not args.max_num_batched_tokens and rules.engine != "v0" and floor > tokens:
        # raised before vLLM's cap at max_num_seqs x max_model_len (engine/arg_utils.py, same function)
        raised = min(floor, max_seqs * max_len)  # floor > tokens: the test above
        if raised > tokens:
            modality = max((t, m) for m, t in _mm_items_tokens(model, args).items())[1]
            notes.append(f"max_num_batched_tokens raised from {tokens} to {raised}: one {floor}-token {modality} item of "
                         f"this prefix-LM multimodal model must fit in a batch (vLLM's 'Raising max_num_batched_tokens ... "
                         f"to accommodate '{modality}' input for prefix-LM model', from 0.22.0)")
            tokens = raised
    if not args.max_num_seqs:
        if rules.is_v1:
            max_seqs = min(max_seqs, tokens)
        notes.append(f"max_num_seqs {max_seqs} ({who} default)")
    # SchedulerConfig._verify_args (config/scheduler.py; config.py before 0.10): vLLM refuses these before loading
    if tokens < max_len and not chunked:
        raise RefusedByVLLMError("--max-num-batched-tokens",
                         f"max_num_batched_tokens ({tokens}) is smaller than max_model_len ({max_len}). This effectively "
                         "limits the maximum sequence length to max_num_batched_tokens and makes vLLM reject longer "
                         "sequences. Please increase max_num_batched_tokens or decrease max_model_len.",
                         f"with chunked prefill off, give --max-num-batched-tokens {max_len} or more, or a shorter --max-model-len",
                         rule=BATCHED_TOKENS_BELOW_MAX_MODEL_LEN)
    if tokens < max_seqs:
        raise RefusedByVLLMError("--max-num-batched-tokens",
                                 f"max_num_batched_tokens ({tokens}) must be greater than or equal to max_num_seqs ({max_seqs}).",
                                 f"give --max-num-batched-tokens {max_seqs} or more, or --max-num-seqs {tokens} or less",
                                 rule="max_num_batched_tokens < max_num_seqs")
    item = _largest_active_mm_item(model, args, rules)
    if item and item[0] > tokens:
        raise RefusedByVLLMError("--max-num-batched-tokens",
                                 f"Chunked MM input disabled but max_tokens_per_mm_item ({item[0]}) is larger than "
                                 f"max_num_batched_tokens ({tokens}). Please increase max_num_batched_tokens.",
                                 f"give --max-num-batched-tokens {item[0]} or more (one {item[1]} item of this prefix-LM "
                                 f"model is never split across steps), or turn {item[1]} off with --limit-mm-per-prompt",
                                 rule=MM_ITEM_ABOVE_BATCHED_TOKENS)
    spec = args.speculative
    refusal = pp_speculative_refusal(model, args, rules)
    if refusal:
        raise RefusedByVLLMError("--speculative-config", refusal[0], refusal[1], rule=PP_SPECULATIVE)
    if spec and spec[0] == "mtp":
        if not model.mtp_layers:
            raise InputError("--speculative-config", f"{model.id}'s config declares no MTP layers (mtp_num_hidden_layers, "
                             "num_nextn_predict_layers or num_mtp_modules)", "use ngram, or a checkpoint that ships MTP layers")
        notes.append(f"speculative decoding: the checkpoint's {model.mtp_layers} MTP layer(s) draft {spec[1]} token(s) per step; "
                     "their weights and KV layers are counted (section 7 item 8)")
    elif spec and spec[0] in DRAFT_METHODS:
        given = speculative_method_given(args.speculative_config)
        if spec[0] not in rules.spec_draft_methods or not rules.is_v1:
            # the first release whose V1 engine serves the method (rules row spec_draft_methods: 0.9.0, draft_model 0.15.0)
            first = first_release_where("spec_draft_methods", lambda methods: spec[0] in methods)
            if spec[0] == "draft_model" and rules.draft_model_refusal and rules.is_v1:
                message = (rules.draft_model_refusal if given else
                           "Unknown speculative decoding method: draft_model")  # the V1 model runner's ValueError
                raise RefusedByVLLMError("--speculative-config", message,
                                         f"use vLLM {first} or newer, or an eagle/eagle3 head",
                                         rule="draft model speculative decoding before 0.15")
            fix = (f"plan with --vllm-version {first} or newer (the V1 engine's drafter)"
                   if spec[0] not in rules.spec_draft_methods else
                   "kvplan models the V1 engine's drafter; " + next(
                       (n for n in rules.notes if "runs this on its V0 engine" in n), "this plan runs V0")
                   + ("" if given else f'; vLLM {rules.version} keeps V1 only with "method" given'))
            raise InputError("--speculative-config", f"vLLM {rules.version} serves method {spec[0]!r} on its V0 engine "
                             "(spec_decode_worker, which splits the blocks between draft and target), which kvplan does "
                             "not model", fix)
        if not given:
            # the method this release infers from the drafter's name (rules row spec_infers_eagle3_by_name)
            obj = speculative_object(args.speculative_config)
            inferred = _speculative_method(obj, eagle3_by_name=rules.spec_infers_eagle3_by_name)
            if inferred != spec[0]:
                raise InputError("--speculative-config", f'no "method" given: vLLM {rules.version} infers {inferred!r} '
                                 f"from the drafter's name {obj.get('model')!r}, not {spec[0]!r} (a name holding "
                                 f"\"eagle3\" is read as eagle3 from vLLM {release_from('spec_infers_eagle3_by_name', True)})",
                                 f'give the method: {{"method": "{spec[0]}", "model": "{obj.get("model")}", ...}}')
        draft = args.draft
        notes.append(f"speculative decoding: {spec[0]} drafter {draft.id} ({draft.num_layers} decoder layer(s)) drafts "
                     f"{spec[1]} token(s) per step; its weights, KV layers and profile buffers are counted (section 7 "
                     f"item 8); the scheduler reserves {spec[1]} lookahead slot(s) per running sequence beyond its tokens "
                     "(config/vllm.py num_lookahead_tokens), which the pool, the fit check and the concurrency line do not count")
    elif spec:
        notes.append(f"speculative decoding: {spec[1]} n-gram draft token(s) per step (no drafter weights or KV)")
    mamba_dtype = args.mamba_ssm_cache_dtype or "auto"
    prefix = args.enable_prefix_caching
    if prefix is None and model.is_attention_free and rules.is_v1 and not rules.attention_free_prefix_caching_default:
        prefix = False
        notes.append(f"prefix caching off: vLLM {rules.version} does not turn it on for an attention-free model "
                     "(\"Attention free models do not support prefix caching\"), so each sequence holds one state page")
    awq_kernel = awq_linear_kernel(model, gpu, quant, args.quantization, rules)
    if awq_kernel is not None and not model.is_moe:
        notes.append(awq_kernel_note(model, gpu, quant, args.quantization, rules, awq_kernel))
    resolved = replace(args, max_model_len=max_len, enable_prefix_caching=prefix, gpu_memory_utilization=util, tensor_parallel_size=tp,
                       pipeline_parallel_size=pp, kv_cache_dtype=kv_dtype, dtype=dtype,
                       quantization=(quant.method if quant else None), block_size=block_size, max_num_seqs=max_seqs,
                       awq_kernel=awq_kernel,
                       max_num_batched_tokens=tokens, mamba_ssm_cache_dtype=mamba_dtype,
                       vllm_version=rules.version, num_gpus=args.num_gpus or tp * pp * dp, data_parallel_size=dp)
    return resolved, quant, notes


# --------------------------------------------------------------------------- KV specs and groups


def _attention_page_per_token(layer: LayerSpec, tp: int, kv_bytes: int) -> int:
    """Bytes per token of one attention layer on one rank (section 3.1)."""
    if layer.kind == "mla":
        return layer.head_dim * kv_bytes  # one latent, not split by TP
    heads = heads_per_rank(layer.num_kv_heads, tp)
    return heads * (layer.head_dim + (layer.head_dim_v or layer.head_dim)) * kv_bytes


def _state_bytes(layer: LayerSpec, tp: int, conv_bytes: int, ssm_bytes: int, spec_tokens: int = 0) -> int:
    conv, ssm = layer.recurrent.shapes(tp, spec_tokens)
    return math.prod(conv) * conv_bytes * (1 if any(conv) else 0) + math.prod(ssm) * ssm_bytes


def _v0_state_seqs(args: EngineArgs) -> int:
    """Sequences V0's MambaCacheManager holds: max_num_seqs, padded to a CUDA-graph batch size (multiples of 8)."""
    n = args.max_num_seqs
    return n if args.enforce_eager or n <= 2 else (4 if n <= 4 else cdiv(n, 8) * 8)


def pp_stages(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> list[tuple[int, int]]:
    """The decoder layers [lo, hi) of each pipeline stage: VLLM_PP_LAYER_PARTITION where set, else the release's split
    (weights.pp_layer_split, rules row pp_remainder). The one split that the weights per stage, the KV layers per
    stage and the binding stage's KV groups all read. Raises InputError on a partition vLLM refuses
    (vllm/distributed/utils.py get_pp_indices checks its count against pp and its sum against the layers; kvplan also
    refuses a stage of no layer, as it refuses more stages than layers)."""
    pp = args.pipeline_parallel_size or 1
    n = model.num_layers  # vLLM splits num_hidden_layers (decoder layers), not cache layers (stage_cache_layers)
    text = args.env_value("VLLM_PP_LAYER_PARTITION")
    partition = None
    if text is not None:
        field = "--env VLLM_PP_LAYER_PARTITION"
        try:
            partition = tuple(int(x) for x in text.split(","))
        except ValueError:
            raise InputError(field, f"{text!r} is not a comma-separated list of layer counts (vLLM: 'Invalid partition "
                             "string')", f"one count per stage adding up to {n}, e.g. {_even_partition(n, pp)}") from None
        if len(partition) != pp:
            raise InputError(field, f"{len(partition)} stage(s) given for --pipeline-parallel-size {pp} (vLLM: "
                             f"'len(partitions)={len(partition)} does not match pp_size={pp}')",
                             f"one count per stage, e.g. {_even_partition(n, pp)}")
        if sum(partition) != n:
            raise InputError(field, f"the counts add up to {sum(partition)}, not the model's {n} decoder layers (vLLM: "
                             f"'sum(partitions)={sum(partition)} does not match num_hidden_layers={n}')",
                             f"counts adding up to {n}, e.g. {_even_partition(n, pp)}")
        if min(partition) < 1:
            raise InputError(field, f"{text!r} leaves a stage without a decoder layer",
                             f"at least one layer per stage, e.g. {_even_partition(n, pp)}")
    return pp_layer_split(n, pp, remainder=rules.pp_remainder, partition=partition)


def stage_cache_layers(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> list[tuple[LayerSpec, ...]]:
    """The cache layers (model.layers) of each pipeline stage: a decoder layer that keeps attention and Mamba state side
    by side (Falcon-H1, kind "both") is two cache layers, so the decoder split of pp_stages is scaled by them."""
    stages = pp_stages(model, args, rules)
    n, k = model.num_layers, len(model.layers) // max(1, model.num_layers)
    if n and len(model.layers) != k * n:  # cache layers that do not map onto decoder layers: split them as they are
        return [tuple(model.layers[lo:hi]) for lo, hi in pp_layer_split(len(model.layers), len(stages),
                                                                           remainder=rules.pp_remainder)]
    return [tuple(model.layers[lo * k:hi * k]) for lo, hi in stages]


def _even_partition(n: int, pp: int) -> str:
    return "VLLM_PP_LAYER_PARTITION=" + ",".join(str(hi - lo) for lo, hi in pp_layer_split(n, max(1, pp)))


def rank_weights(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules, quant: QuantSpec | None, *,
                 pipeline: bool = True) -> RankWeights:
    """The weights on the busiest rank as the release loads them on this GPU: the kernels' padding (MXFP4 experts by
    compute capability and the release's Hopper backend, VLLM_MXFP4_USE_MARLIN included; DeepSeek-V4's by vendor), the
    rotary cache, bitsandbytes' statistics, the MTP drafter, the vision tower unless text-only, experts over TP x DP or
    EP. The full plan and the seed's arithmetic (`pipeline=False`: every layer on the rank, TP only) both count with it."""
    tp = args.tensor_parallel_size
    pp = args.pipeline_parallel_size if pipeline else 1
    spec = args.speculative
    return weights_per_rank(model, tp=tp, pp=pp, quant=quant, dtype_bytes=DTYPE_BYTES[args.dtype] if not model.checkpoint else None,
                            gpu_cc=gpu.cc, ep=tp * args.data_parallel_size if args.enable_expert_parallel else 1,
                            mtp=bool(spec and spec[0] == "mtp"), gpu_vendor=gpu.vendor,
                            vision=not _text_only(model, args, rules), dp=args.data_parallel_size,
                            mxfp4_hopper_backend=rules.mxfp4_hopper_backend,
                            mxfp4_triton_keeps_scales=rules.mxfp4_triton_keeps_scales,
                            mxfp4_triton_swizzle_align=rules.mxfp4_triton_swizzle_align,
                            mxfp4_marlin_forced=mxfp4_marlin_forced(args, rules, gpu.cc),
                            mrope_cache_factor=mrope_cache_factor(model, rules),
                            bnb_nested_absmax=rules.bnb_nested_absmax, bnb_experts=rules.bnb_quantizes_experts,
                            stages=pp_stages(model, args, rules) if pp > 1 else None,
                            mla_kv_b_copy=rules.mla_kv_b_copy)


def mxfp4_marlin_forced(args: EngineArgs, rules: VersionRules, cc: tuple[int, int] | None) -> bool:
    """Whether --env VLLM_MXFP4_USE_MARLIN=1 puts MXFP4 experts on Marlin on a GPU of compute capability `cc` where
    the release would pick another kernel (rules row mxfp4_marlin_env: any GPU in 0.10.1, not read in 0.10.2-0.11.0,
    Hopper only in 0.11.1-0.18, any GPU in 0.19-0.23, not read from 0.24); the weights' padding and the experts'
    workspace both follow it."""
    scope = rules.mxfp4_marlin_env
    return bool(scope and cc is not None and args.env_on("VLLM_MXFP4_USE_MARLIN") and (scope == "any" or cc == (9, 0)))


def _v0_mamba_cache_bytes(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> int:
    """V0 keeps recurrent state outside the KV cache: conv and SSM state of every Mamba-type layer for the padded
    max_num_seqs, in the model dtype (MambaCacheManager, allocated on the first forward)."""
    if rules.engine != "v0":
        return 0
    rec = [l for l in model.layers if l.kind in ("recurrent", "both") and l.recurrent is not None]
    if not rec:
        return 0
    b = DTYPE_BYTES[args.dtype]
    # the busiest stage's recurrent layers (every stage allocates for its own)
    per_pp = max(sum(1 for l in layers if l.kind in ("recurrent", "both") and l.recurrent is not None)
                 for layers in stage_cache_layers(model, args, rules))
    return per_pp * _v0_state_seqs(args) * _state_bytes(rec[0], args.tensor_parallel_size, b, b)


def _ssm_dtype(model: ModelSpec, args: EngineArgs) -> str:
    """--mamba-ssm-cache-dtype, else the model's rule: NemotronH and Qwen3.5+ keep fp32 SSM state (section 3.1)."""
    if args.mamba_ssm_cache_dtype and args.mamba_ssm_cache_dtype != "auto":
        return args.mamba_ssm_cache_dtype
    if model.mamba_ssm_dtype:
        return str(model.mamba_ssm_dtype).replace("torch.", "")
    if model.model_type == "nemotron_h":
        return "float32"
    return args.dtype


def _gdn_exports_checkpoints(layers: list[LayerSpec], gpu: GPUSpec | None) -> bool:
    """Whether Qwen's GDN layers export prefill checkpoints, so that (in 0.33) each holds a checkpoint page in align mode:
    only with FlashInfer's GDN prefill kernel, which _resolve_gdn_prefill_backend (mamba/gdn/qwen_gdn_linear_attn.py,
    0.33.0 wheel) picks on CUDA at compute capability 9.0, or 10.x / 12.x when linear_key_head_dim is 128 (and the CUDA
    runtime is 13, as the 0.33.0 wheel's cu13 dependencies give); Triton/FLA elsewhere (ROCm, Ampere, Ada). And only
    when every recurrent layer can (get_mamba_prefill_checkpoint_alignment is None otherwise). An unknown GPU keeps
    the page."""
    rec = [l.recurrent for l in layers if l.kind == "recurrent" and l.recurrent is not None]
    if not rec or any(r.kind != "gdn" for r in rec):
        return False
    if gpu is None:
        return True
    cc = gpu.compute_capability or ""
    if (gpu.vendor or "NVIDIA").upper() != "NVIDIA" or not cc:
        return False
    major = cc.split(".")[0]
    return cc == "9.0" or (major in ("10", "12") and all(r.key_head_dim == 128 for r in rec))


def drafter_kv_layers(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> list[LayerSpec]:
    """The KV-cache layers a drafter adds (V1), all on the last pipeline stage, which builds the drafter:
    - MTP: the checkpoint's MTP decoder layers keep KV like its full-attention (or MLA) layers (section 7 item 8: "an
      EAGLE layer adds one layer to a dense group");
    - a drafter checkpoint (DRAFT_METHODS): its attention layers are registered beside the target's, so
      get_kv_cache_spec returns them too (v1/spec_decode/llm_base_proposer.py load_model: the layers it adds are the
      draft layers, 0.33.0; v1/spec_decode/eagle.py load_model, 0.19.0); one of the same shape joins the target's
      group, another shape of the same type makes one group of summed pages (UniformTypeKVCacheSpecs), a different
      type its own group (build_groups)."""
    spec = args.speculative
    if not spec or not rules.is_v1:
        return []
    if spec[0] == "mtp":
        template = next((l for l in model.layers if l.kind in ("full", "mla")), None)
        return [template] * model.mtp_layers if template is not None else []
    if spec[0] in DRAFT_METHODS:
        return [l for l in args.draft.layers if l.kind != "none"]
    return []


def build_groups(model: ModelSpec, args: EngineArgs, rules: VersionRules, notes: list[str], warns: list[str],
                 gpu: GPUSpec | None = None) -> tuple[tuple[KVGroup, ...], int, str]:
    """Per-layer specs -> KV-cache groups, bytes per block and how that block was sized (sections 2.4, 3.1, 3.2, 3.3).

    The formula opens with the arithmetic that gives the bytes ("36 x 65,536 B", "25 x 98,304 B + 5 x 196,608 B"),
    then ": " and what its terms are, so --explain shows a product that adds up for every model."""
    tp = args.tensor_parallel_size
    kvb = kv_dtype_bytes(args.kv_cache_dtype, args.dtype)
    bs = args.block_size
    all_layers = [l for l in model.layers if l.kind != "none"]
    # Mamba2 always can; GDN as _gdn_exports_checkpoints says (rules row mamba_checkpoint_page: which kinds, from when)
    ckpt_capable = not any(l.recurrent is not None and l.recurrent.kind == "gdn" for l in all_layers) \
        or _gdn_exports_checkpoints(all_layers, gpu)
    # pipeline parallelism: each stage holds its own layers (pp_stages, the split the weights per stage use too); the
    # stage with most KV layers (the first of those) bounds N
    stage_layers = [[l for l in layers if l.kind != "none"] for layers in stage_cache_layers(model, args, rules)]
    layers = max(stage_layers, key=len)
    spec = args.speculative
    spec_tokens = spec[1] if spec else 0
    drafter_kv = drafter_kv_layers(model, args, rules)  # the drafter's KV layers, which live on the last pipeline stage
    if spec and spec[0] == "mtp" and drafter_kv:
        notes.append(f"{model.mtp_layers} MTP drafter layer(s) added to the KV cache as {drafter_kv[0].kind} attention")
    if spec and spec[0] in DRAFT_METHODS and rules.is_v1:
        draft = args.draft
        shapes = sorted({(l.kind, l.num_kv_heads, l.head_dim) for l in drafter_kv})
        notes.append(f"{len(drafter_kv)} {spec[0]} drafter layer(s) of {draft.id} added to the KV cache ("
                     + ", ".join(f"{k}: {n} KV heads x {d}" for k, n, d in shapes) + ")")
    if drafter_kv:
        # the drafter runs on the last pipeline stage (its weights too: _plan), so its layers join that stage's; the
        # stage with most KV layers then bounds N (with one stage: the model's layers and the drafter's)
        layers = max(layers, stage_layers[-1] + drafter_kv, key=len) if len(stage_layers) > 1 else layers + drafter_kv
    attn = [l for l in layers if l.is_attention]
    rec = [l for l in layers if l.kind == "recurrent"]
    if model.is_encoder_only:
        raise InputError("model", f"{model.id} is an encoder-only model ({model.model_type}): vLLM keeps no KV cache for "
                         "it, so there is no pool, block count or concurrency to predict",
                         "kvplan plans decoder models; decoder-based embedding models such as Qwen3-Embedding plan")
    if not layers:
        raise InputError("model", f"{model.id} has no layers that keep a KV cache", "kvplan plans decoder models")
    if model.compressed_attention:
        return _deepseek_v4_groups(model, layers, args, rules, notes)
    if model.sparse_mla:
        return _sparse_mla_groups(model, layers, args, rules, notes, gpu)
    if (args.kv_cache_dtype or "").lower() == "fp8_ds_mla":
        raise InputError("--kv-cache-dtype", "fp8_ds_mla is DeepSeek's sparse-attention cache layout; kvplan models it for "
                         "DeepSeek-V3.2 and -V4 only", "use fp8 (or auto) for this model")
    if rules.engine == "v0":
        return _v0_cache(model, attn, args, rules, notes)
    layers, checked = _windows_kept(layers, rules, notes, warns)

    # buckets of identical specs
    buckets: dict[tuple, list[LayerSpec]] = {}
    bucket_checked: dict[tuple, Counter] = {}
    for l, c in zip(layers, checked):
        key = (l.kind, l.window, l.num_kv_heads, l.head_dim, l.head_dim_v) if l.is_attention else ("recurrent",)
        buckets.setdefault(key, []).append(l)
        if c:
            bucket_checked.setdefault(key, Counter())[c] += 1

    def windows_of(keys) -> tuple[tuple[str, int, int], ...]:
        total = sum((bucket_checked.get(k, Counter()) for k in keys), Counter())
        return tuple((kind, window, n) for (kind, window), n in sorted(total.items()))

    pages: dict[tuple, int] = {}
    block_sizes: dict[tuple, int] = {}
    if rec:
        conv_b = DTYPE_BYTES[args.dtype]
        ssm_b = DTYPE_BYTES[_ssm_dtype(model, args)]
        mamba_page = _state_bytes(rec[0], tp, conv_b, ssm_b, spec_tokens if rules.mamba_spec_pages else 0)
        if attn:
            # hybrid: raise the attention block size until its page holds the Mamba state (section 2.4)
            per_token = max(_attention_page_per_token(l, tp, kvb) for l in attn)
            align = max(bs, DEFAULT_BLOCK_SIZE)
            bs = align * cdiv(mamba_page, align * per_token)
            notes.append(f"hybrid model: attention block size raised to {bs} tokens so one attention page "
                         f"({bs} x {per_token:,} B) holds one sequence's recurrent state ({mamba_page:,} B)")
            pad = bs * per_token - mamba_page
            if pad:
                warns.append(f"Padding mamba page size by {100 * pad / mamba_page:.2f}% to ensure that mamba page size and attention page size are exactly equal.")
            mamba_page = bs * per_token
        for key in buckets:
            if key[0] == "recurrent":
                pages[key], block_sizes[key] = mamba_page, bs
    for key, ls in buckets.items():
        if key[0] != "recurrent":
            pages[key] = bs * _attention_page_per_token(ls[0], tp, kvb)
            block_sizes[key] = bs

    # uniform: one group of all layers
    if len(buckets) == 1:
        key = next(iter(buckets))
        l0 = buckets[key][0]
        g = KVGroup(kind=l0.kind, num_layers=len(layers), block_size=block_sizes[key], page_bytes=pages[key], window=l0.window,
                    recurrent_kind=l0.recurrent.kind if l0.recurrent else None, checked_windows=windows_of([key]),
                    checkpoint_capable=ckpt_capable)
        return (g,), len(layers) * pages[key], (f"{len(layers)} x {pages[key]:,} B: {len(layers)} {l0.kind} layers' pages "
                                                 f"(block size {block_sizes[key]})")

    # same type, different shapes (rules row uniform_type_kv_specs): one group, pages summed
    kinds = {k[0] for k in buckets}
    if len(kinds) == 1 and not rec and rules.uniform_type_kv_specs and kinds <= {"full", "mla"}:
        total = sum(pages[k] * len(v) for k, v in buckets.items())
        l0 = layers[0]
        return (KVGroup(kind=l0.kind, num_layers=len(layers), block_size=bs, page_bytes=total // len(layers),
                        checked_windows=windows_of(buckets)),), total, (
            " + ".join(f"{len(v)} x {pages[k]:,} B" for k, v in buckets.items())
            + f": one group of {len(layers)} {l0.kind} layers of {len(buckets)} page sizes, summed (block size {bs})")

    # hybrid: unify page sizes (scale the block size by an integer ratio, else pad), then split buckets into groups
    top = max(pages.values())
    for key in list(pages):
        if pages[key] != top:
            ratio = top / pages[key]
            if ratio == int(ratio) and key[0] != "recurrent":
                block_sizes[key] = int(block_sizes[key] * ratio)
            else:
                warns.append(f"KV page of {key[0]} layers padded from {pages[key]:,} to {top:,} bytes")
            pages[key] = top
    sizes = [len(v) for v in buckets.values()]
    group_size = min(sizes)
    if rules.group_size_max_ratio and max(sizes) < rules.group_size_max_ratio * min(sizes):
        group_size = max(sizes)
    groups: list[KVGroup] = []
    padding = 0
    for key, ls in buckets.items():
        n_groups = cdiv(len(ls), group_size)
        padding += n_groups * group_size - len(ls)
        for gi in range(n_groups):
            members = len(ls[gi::n_groups])
            groups.append(KVGroup(kind=ls[0].kind, num_layers=members, block_size=block_sizes[key], page_bytes=pages[key], window=ls[0].window,
                                  recurrent_kind=ls[0].recurrent.kind if ls[0].recurrent else None,
                                  checkpoint_capable=ckpt_capable,
                                  checked_windows=windows_of([key]) if gi == 0 else ()))
    if padding:
        warns.append(f"Add {padding} padding layers, may waste at most {100 * padding / (len(groups) * group_size):.2f}% KV cache memory")
    kinds_text = ", ".join(f"{n} {kind}" for kind, n in Counter(g.kind for g in groups).items())
    return tuple(groups), group_size * top, (f"{group_size} x {top:,} B: {len(groups)} groups ({kinds_text}) of up to "
                                             f"{group_size} layers share each block, one page per layer slot "
                                             f"(block size {min(block_sizes.values())})")


# DeepSeek-V4's cache in the fp8_ds_mla layout vLLM uses with FlashMLA (CUDA) and on ROCm, read in the 0.33.0 wheel
# (models/deepseek_v4, v1/attention/backends/mla, kv_cache_interface, kv_cache_planning; the 0.28-0.32 wheels give the
# same pages and groups): a state is 584 B (448 fp8 latent + 64 bf16 rope + 8 scale bytes), pages are padded to a
# multiple of 576 B, the attention block is 256 tokens. Per layer of compression ratio r:
#   sliding window of the latent: block 64, window sliding_window;   compressed latent: 256 / r states per block;
#   compressor state (fp32): r = 4: block 4, 8,192 B, window 8;  r = 128: block 8, 4,096 B, window 128;
#   r = 4 also: indexer keys, 256 / r states of index_head_dim + 4 B; indexer compressor state: block 4, 2,048 B, window 8.
_DSV4_STATE_BYTES, _DSV4_ALIGN, _DSV4_BLOCK = 584, 576, 256
_DSV4_COMPRESSOR = {4: (4, 8192, 8), 128: (8, 4096, 128)}   # ratio -> (block, bytes per state, window)
_DSV4_INDEXER_COMPRESSOR = (4, 2048, 8)


def _dsv4_page(states: int, state_bytes: int) -> int:
    return cdiv(states * state_bytes, _DSV4_ALIGN) * _DSV4_ALIGN


def _sparse_mla_groups(model: ModelSpec, layers: list[LayerSpec], args: EngineArgs, rules: VersionRules,
                       notes: list[str], gpu: GPUSpec | None) -> tuple[tuple[KVGroup, ...], int]:
    """DeepSeek-V3.2: per layer the latent cache and the indexer's keys (index_head_dim fp8 + 4 B scale), both in
    64-token blocks and so one KV-cache group; one pool block is the sum of every layer's pages, and a request holds
    cdiv(L, 64) of them (read in the 0.11-0.33 wheels: models/deepseek_v2.py, v1/core/kv_cache_utils.py)."""
    if not rules.sparse_mla_served:  # rules row sparse_mla_served
        raise InputError("model", f"{model.id}: DeepSeek-V3.2 (sparse MLA) is served by vLLM 0.11 and newer",
                         "plan with --vllm-version 0.11 or newer")
    latent = _sparse_mla_latent_bytes(args, rules, gpu)
    per_token = latent + layers[0].index_head_dim + 4
    notes.append(f"sparse MLA (DeepSeek-V3.2): {latent} B of latent and {layers[0].index_head_dim + 4} B of indexer keys "
                 f"per token and layer, 64-token blocks")
    page = 64 * per_token
    return (KVGroup("mla", len(layers), 64, page),), len(layers) * page, (
        f"{len(layers)} x 64 x {per_token:,} B: {len(layers)} layers' pages of 64 tokens (latent and indexer keys)")


def _approximate_gcd(values: list[int], lower_bound: int) -> int:
    """The chunk d >= lower_bound that pads the values least when each is rounded up to a multiple of d, ties to the
    larger d (v1/core/kv_cache_utils.py::_approximate_gcd, in every release from 0.20 to 0.33)."""
    best, best_pad = lower_bound, None
    for d in range(lower_bound, max(values) + 1):
        pad = sum(cdiv(x, d) * d - x for x in values)
        if best_pad is None or pad <= best_pad:
            best, best_pad = d, pad
    return best


def _deepseek_v4_groups(model: ModelSpec, layers: list[LayerSpec], args: EngineArgs, rules: VersionRules,
                        notes: list[str]) -> tuple[tuple[KVGroup, ...], int]:
    """DeepSeek-V4's KV-cache groups: every attention-type page (compressed latents and indexer keys, block 256) in
    one group; the sliding windows split into groups of N "layer tuples", N the approximate GCD of the groups' tuple
    counts; the ratio-128 compressor states; the ratio-4 compressor and indexer states together. A request holds
    blocks in every group.

    How a block is sized depends on the release (the rules row dsv4_accounting, read in the 0.20-0.33 wheels,
    v1/core/kv_cache_utils.py). From 0.27 one block of the pool is the largest group's bytes; up to 0.28 the fit check
    charges N x (one page of each attention size) per block a request holds, from 0.29 one pool block. Up to 0.26
    window-type pages are padded to the next attention page size, the pool is divided by the layer tuple
    (0.20-0.22) or by each page size times its slots (0.23-0.26), and a request's share of the pool is its pages
    weighted by each group's bytes over the attention group's."""
    if not rules.deepseek_v4_served:  # rules row deepseek_v4_served
        raise InputError("model", f"{model.id}: DeepSeek-V4 is served by vLLM 0.20 and newer", "plan with --vllm-version 0.20 or newer")
    kv = (args.kv_cache_dtype or "auto").lower()
    if kv not in ("auto", "fp8", "fp8_e4m3", "fp8_ds_mla"):
        raise InputError("--kv-cache-dtype", f"DeepSeek-V4 runs its cache as fp8_ds_mla; {kv} is not modelled", "use auto or fp8")
    notes.append("DeepSeek-V4: fp8_ds_mla cache layout (FlashMLA / ROCm default; 'auto' resolves to it)")
    csa = [l for l in layers if l.kind == "csa"]
    hca = [l for l in layers if l.kind == "hca"]
    window_only = [l for l in layers if l.kind == "swa"]  # ratio-0 layers: a sliding window, nothing compressed
    n_swa = len(csa) + len(hca) + len(window_only)
    spec = args.speculative
    if spec and spec[0] == "mtp" and model.mtp_layers:
        n_swa += model.mtp_layers  # the MTP layer keeps a sliding window only
        notes.append(f"{model.mtp_layers} MTP drafter layer(s): a sliding window each")
    window = (csa or hca)[0].window
    # attention-type pages by size, with the layers holding each
    attn_pages: dict[int, int] = {}
    if csa:
        for page in (_dsv4_page(_DSV4_BLOCK // 4, _DSV4_STATE_BYTES), _dsv4_page(_DSV4_BLOCK // 4, csa[0].index_head_dim + 4)):
            attn_pages[page] = attn_pages.get(page, 0) + len(csa)
    if hca:
        page = _dsv4_page(_DSV4_BLOCK // 128, _DSV4_STATE_BYTES)
        attn_pages[page] = attn_pages.get(page, 0) + len(hca)
    tuples_full = max(attn_pages.values())
    counts = [tuples_full, n_swa] + ([len(csa)] if csa else []) + ([len(hca)] if hca else [])
    n_tuple = _approximate_gcd(counts, tuples_full)
    layer_tuple = sum(attn_pages)  # one page of each attention size
    old = rules.dsv4_accounting in ("layer_tuple", "page_slots")  # up to 0.26

    def padded(page: int) -> int:  # up to 0.26 a window-type page takes the next attention page size
        return min((a for a in attn_pages if a >= page), default=page) if old else page

    groups = [KVGroup("mla", 1, _DSV4_BLOCK, sum(p * n for p, n in attn_pages.items()),
                      fit_unit_bytes=n_tuple * layer_tuple if rules.dsv4_accounting != "stride" else 0)]
    slots = dict(attn_pages)  # page size -> the most layers of that size in one group (0.23-0.26 pool divisor)
    swa_page = padded(_dsv4_page(64, _DSV4_STATE_BYTES))
    n_swa_groups = cdiv(n_swa, n_tuple)
    for i in range(n_swa_groups):
        members = len(range(i, n_swa, n_swa_groups))
        groups.append(KVGroup("sliding", 1, 64, members * swa_page, window=window))
        slots[swa_page] = max(slots.get(swa_page, 0), members)
    if hca:
        block, nbytes, w = _DSV4_COMPRESSOR[128]
        page = padded(_dsv4_page(block, nbytes))
        groups.append(KVGroup("sliding", 1, block, len(hca) * page, window=w))
        slots[page] = max(slots.get(page, 0), len(hca))
    if csa:
        block, nbytes, w = _DSV4_COMPRESSOR[4]
        iblock, ibytes, _ = _DSV4_INDEXER_COMPRESSOR
        state, index_state = padded(_dsv4_page(block, nbytes)), padded(_dsv4_page(iblock, ibytes))
        groups.append(KVGroup("sliding", 1, block, len(csa) * (state + index_state), window=w))
        for page in (state, index_state):
            slots[page] = max(slots.get(page, 0), len(csa))
    if rules.dsv4_accounting == "layer_tuple":
        block_bytes = n_tuple * layer_tuple
        formula = f"{n_tuple} x {layer_tuple:,} B: {n_tuple} layer tuples of one page of each attention size"
    elif rules.dsv4_accounting == "page_slots":
        block_bytes = sum(p * n for p, n in slots.items())
        formula = " + ".join(f"{n} x {p:,} B" for p, n in slots.items()) + ": each page size times its most layers in a group"
    else:
        block_bytes = max(g.page_bytes for g in groups)
        formula = (f"max({', '.join(f'{g.page_bytes:,} B' for g in groups)}): the largest of the {len(groups)} groups' "
                   "pages (block size 256)")
    if rules.dsv4_accounting != "stride":
        notes.append(f"DeepSeek-V4 on vLLM {rules.version}: the fit check charges layer tuples, {n_tuple} x {layer_tuple:,} B "
                     f"per block{'; window pages padded to attention page sizes' if old else ''}; a block of the pool is "
                     f"{block_bytes:,} B")
    return tuple(groups), block_bytes, formula


# The vision towers whose profile-run memory kvplan computes, with the processor defaults vLLM profiles them at (the
# largest item of the modality with the most tokens): Qwen2/2.5-VL preprocessor max_pixels 12,845,056 and Qwen3-VL /
# Qwen3.5 / Qwen3.6 size.longest_edge 16,777,216 pixels, i.e. 16,384 tokens after the 2 x 2 merge; CLIP (LLaVA) one
# tile of (image_size / patch)^2 tokens plus the class token; Gemma 3's SigLIP one 896 x 896 image pooled to
# mm_tokens_per_image tokens (gemma3_mm.py: pan-and-scan off by default). rotary: the tower rotates q and k (two more
# copies of both).
_MM_TOWERS = {
    "qwen3": {"max_pixels": 16_777_216, "rotary": True},
    "qwen2_5": {"max_pixels": 12_845_056, "rotary": True},
    "qwen2": {"max_pixels": 12_845_056, "rotary": True},
    "clip": {"max_pixels": 0, "rotary": False},
    "siglip": {"max_pixels": 0, "rotary": False},  # Gemma 3: one 896 x 896 image = mm_tokens_per_image tokens
    # LLaVA-NeXT: CLIP over anyres tiles (_llava_next_item); Pixtral (Pixtral-12B, Mistral-Small-3.1/3.2): one image
    # of the tower's image_size square, rotary (2-D RoPE on q and k, in float32), gated MLP (_pixtral_item)
    "llava_next": {"max_pixels": 0, "rotary": False},
    "pixtral": {"max_pixels": 0, "rotary": True},
}


def _mm_tower(model: ModelSpec) -> str | None:
    v = model.vision_config or {}
    kind = str(v.get("model_type") or "")
    if kind.startswith(("qwen3_vl", "qwen3_5", "qwen3_6")):
        return "qwen3"
    if kind.startswith("qwen2_5_vl") or model.model_type.startswith("qwen2_5_vl"):
        return "qwen2_5"
    if kind.startswith("qwen2_vl") or model.model_type.startswith("qwen2_vl"):
        return "qwen2"
    if kind == "clip_vision_model" and model.model_type.startswith("llava") and not model.model_type.startswith(("llava_next", "llava_onevision")):
        return "clip"
    if kind == "siglip_vision_model" and str((model.raw_config or {}).get("model_type") or "").startswith("gemma3"):
        return "siglip"
    if kind == "clip_vision_model" and _hf_model_type(model) == "llava_next" and (model.raw_config or {}).get("image_grid_pinpoints"):
        return "llava_next"
    if kind == "pixtral":
        return "pixtral"
    return None


def _llava_next_item(model: ModelSpec) -> tuple[int, int, str]:
    """LLaVA-NeXT's profiled image: (tokens, CLIP tiles, the size), read in the 0.10.2 and 0.19.0 wheels. The dummy
    image is the grid pinpoint with the most features (models/llava_next.py
    LlavaNextProcessingInfo.get_image_size_with_most_features, which tries every image_grid_pinpoints entry); an image
    of exactly a pinpoint's size is tiled to that pinpoint (get_anyres_image_grid_shape), so the HF processor hands the
    tower 1 + (height / image_size) x (width / image_size) tiles of image_size square. Its tokens
    (get_num_image_tokens): the base tile's patches (the class token dropped by the "default" feature-select
    strategy), plus the unpadded grid features (the pinpoint's aspect equals the grid's, so nothing is cut) and one
    newline per grid row (_get_num_unpadded_features). llava-v1.6-mistral-7b-hf: 672 x 672, 5 tiles, 576 + 48 x 48 +
    48 = 2,928 tokens."""
    raw = model.raw_config or {}
    v = model.vision_config or {}
    size, patch = int(v.get("image_size") or 336), int(v.get("patch_size") or 14)
    side = size // patch
    base = side * side + (1 if raw.get("vision_feature_select_strategy") == "full" else 0)
    best = (0, 1, "")
    for height, width in raw.get("image_grid_pinpoints") or []:
        rows, cols = int(height) // size, int(width) // size
        tokens = base + (side * rows) * (side * cols) + side * rows
        if tokens > best[0]:
            best = (tokens, 1 + rows * cols, f"{width} x {height}")
    return best


def _pixtral_item(model: ModelSpec) -> tuple[int, int]:
    """Pixtral's profiled image: (tokens, tower patches), read in the 0.10.2 and 0.19.0 wheels. The dummy image is the
    largest the processor takes, max_image_size square (models/pixtral.py
    PixtralProcessingInfo.get_image_size_with_most_features; the mistral_common encoder's max_image_size, the
    vision_config image_size of the HF config, 1,540 for Mistral-Small-3.1 and 1,024 for Pixtral-12B; mistral3.py
    Mistral3ProcessingInfo the same): (image_size / patch)^2 tower patches, merged spatial_merge_size x
    spatial_merge_size into one image feature each (PatchMerger; 1 where the config has none). The prompt also holds
    an [IMG_BREAK] per row ([IMG_END] last), but the processor marks only the image tokens as embeddings
    (PromptUpdateDetails.select_token_id), and the encoder budget counts embeddings (multimodal/encoder_budget.py
    get_mm_max_toks_per_item: get_num_embeds; 0.10.2 multimodal/profiling.py _get_mm_max_tokens, mm_embeddings_only):
    Mistral-Small-3.1 55 x 55 = 3,025 tokens, which an 8,192-token budget takes twice (its 0.19.0 log: 'profiled with 2
    image items')."""
    v = model.vision_config or {}
    merge = int((model.raw_config or {}).get("spatial_merge_size") or v.get("spatial_merge_size") or 1)
    side = int(v.get("image_size") or 1024) // int(v.get("patch_size") or 16)
    return (side // merge) ** 2, side * side


def mrope_cache_factor(model: ModelSpec, rules: VersionRules) -> int:
    """How many times max_position_embeddings the multimodal rotary cache holds: 4 from 0.7.2 (rule
    mrope_cache_factor), but 1 for the Qwen3-VL and Qwen3.5/3.6 text models from 0.32, whose decoder layers pass a
    positions factor of 1 unless video pruning is on (rule qwen3_mrope_positions_one; kvplan takes no
    --video-pruning-rate)."""
    kind = str(model.text_config.get("model_type") or model.model_type or "")
    if rules.qwen3_mrope_positions_one and kind.startswith(("qwen3_vl", "qwen3_5")):
        return 1
    return rules.mrope_cache_factor


def deepstack_buffer_bytes(model: ModelSpec, args: EngineArgs, rules: VersionRules, text_only: bool) -> int:
    """Qwen3-VL's deepstack input buffers: one max_num_batched_tokens x text hidden_size tensor in the model dtype per
    deepstack level, zeros allocated while the model is built (so inside vLLM's "Model loading took"), whole on
    every TP rank; none when the vision tower is not built or the config lists no deepstack levels (Qwen3.5/3.6).
    Read in the 0.11.0, 0.12.0, 0.17.0-0.20.0 and 0.33.0 wheels: models/qwen3_vl.py
    Qwen3VLForConditionalGeneration.__init__ ("register buffer for deepstack"), which qwen3_vl_moe.py shares.
    Qwen3-VL-30B-A3B: 3 x 2,048 x 2,048 x 2 B = 24 MiB at the A100 / RTX 3090 default token budget, 96 MiB at
    the H100's 8,192."""
    levels = len((model.vision_config or {}).get("deepstack_visual_indexes") or [])
    if not levels or text_only or not model.is_multimodal or not rules.qwen3_vl_deepstack_buffers:
        return 0
    return levels * args.max_num_batched_tokens * model.hidden_size * DTYPE_BYTES.get(args.dtype, 2)


# Multimodal prefix-LM models (bidirectional attention over an image's or video's tokens), for which vLLM forces
# --disable-chunked-mm-input on CUDA (platforms/cuda.py check_and_update_config, read in 0.22.0 and 0.33.0): read in
# the 0.22.0, 0.26.0, 0.27.0 and 0.33.0 wheels, transformers_utils/model_arch_config_convertor.py is_mm_prefix_lm.
# Gemma 4 (Gemma4ModelArchConfigConvertor, model_type gemma4 / gemma4_text, from 0.33 also gemma4_unified and
# diffusion_gemma): text_config.use_bidirectional_attention == "vision"; any other model: the config's own
# is_mm_prefix_lm, else this list (ModelArchConfigConvertorBase; 0.22.0-0.27.0 also list "umm", 0.33.0 does not).
_MM_PREFIX_LM_TYPES = ("bagel", "gemma3", "molmo2", "moondream3", "paligemma")
_GEMMA4_ARCH_TYPES = ("gemma4", "gemma4_text", "gemma4_unified", "gemma4_unified_text", "diffusion_gemma",
                      "diffusion_gemma_text")


# The modalities each multimodal family's processor supports (its ProcessingInfo.get_supported_mm_limits, read in the
# 0.33.0 wheel's model_executor/models: gemma3_mm.py, llava.py (LLaVA-NeXT through BaseLlavaProcessingInfo),
# mllama4.py, mistral3.py, pixtral.py {"image"}; qwen2_vl.py (Qwen2.5-VL, Qwen3-VL and Qwen3.5/3.6 inherit it),
# llava_onevision.py {"image", "video"}; gemma4_mm.py image and video, and audio where the config has an audio tower).
# A text-only deployment sets 0 for each of them; a family not listed is taken to have image and video.
_SUPPORTED_MODALITIES: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("gemma3", "llava", "llava_next", "llama4", "mistral3", "pixtral", "mllama"), ("image",)),
    **dict.fromkeys(("qwen2_vl", "qwen2_5_vl", "qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe", "llava_onevision"),
                    ("image", "video")),
}


def supported_modalities(model: ModelSpec) -> tuple[str, ...]:
    """The modalities vLLM's processor takes for this multimodal model (_SUPPORTED_MODALITIES)."""
    kind = _hf_model_type(model)
    if kind in _GEMMA4_ARCH_TYPES:
        return ("image", "video") + (("audio",) if model.raw_config.get("audio_config") else ())
    return _SUPPORTED_MODALITIES.get(kind, ("image", "video"))


def _mm_limits_all_off(model: ModelSpec, args: EngineArgs) -> bool:
    """vLLM's text-only deployment of a multimodal model: --language-model-only, or a 0 limit for every modality the
    processor supports (config/model.py ModelConfig._supports_multimodal_inputs, 0.27.0-0.33.0; a modality not given
    is 999; supported_modalities). --enable-mm-embeds, which keeps it multimodal, is not modelled."""
    return _modalities_off(args, supported_modalities(model))


def _modalities_off(args: EngineArgs, modalities: tuple[str, ...]) -> bool:
    """--language-model-only, or --limit-mm-per-prompt 0 for each of `modalities` (one not given is 999)."""
    limits = args.mm_limits or {}
    return args.language_model_only or (bool(limits) and all(limits.get(m, 999) == 0 for m in modalities))


def _is_mm_prefix_lm(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> bool:
    """vLLM's ModelConfig.is_mm_prefix_lm for this deployment (see _MM_PREFIX_LM_TYPES). From 0.27.0 it is False when
    multimodal inputs are configuration-disabled (ModelConfig._supports_multimodal_for_mm_prefix, "Disabled mm_prefix
    attention mode because multimodal inputs are configuration-disabled"; absent from 0.26.0); up to 0.26 such a
    deployment is still a prefix-LM to vLLM."""
    if not model.is_multimodal:
        return False
    if rules.mm_prefix_lm_text_only_off and _mm_limits_all_off(model, args):
        return False
    kind = _hf_model_type(model)
    if kind in _GEMMA4_ARCH_TYPES:
        return model.text_config.get("use_bidirectional_attention") == "vision"
    if "is_mm_prefix_lm" in model.raw_config:
        return bool(model.raw_config["is_mm_prefix_lm"])
    return kind in _MM_PREFIX_LM_TYPES


def _hf_model_type(model: ModelSpec) -> str:
    """The config's top-level model_type (vLLM's hf_config.model_type: "gemma4", where ModelSpec.model_type is the
    text model's "gemma4_text")."""
    return str(model.raw_config.get("model_type") or model.model_type or "")


def _mm_items_tokens(model: ModelSpec, args: EngineArgs) -> dict[str, int]:
    """The processor's stated per-item token maxima by modality (ProcessingInfo.get_mm_max_tokens_per_item), {} where
    vLLM's answer is None (it then profiles dummy inputs instead). Of the prefix-LM models only Gemma 4, Bagel and
    Moondream 3 state them (read in 0.22.0 and 0.33.0); kvplan computes Gemma 4's (models/gemma4_mm.py
    Gemma4ProcessingInfo.get_mm_max_tokens_per_item): an image is vision_config.default_output_length soft tokens (or
    --mm-processor-kwargs max_soft_tokens, not modelled); a video min(32, the --limit-mm-per-prompt video
    num_frames) frames x (70 soft tokens + boi + eoi + 6 timestamp tokens), 2,496 at 32 frames, whatever the video
    count. An audio item is the processor's audio_seq_length, which no config.json holds; the Gemma 4 configs kvplan
    ships have no audio tower. Bagel's (vit_max_num_patch_per_side squared) and Moondream 3's are not computed."""
    if not model.is_multimodal or _hf_model_type(model) not in _GEMMA4_ARCH_TYPES:
        return {}
    frames = 32
    video = (_mm_limits_object(args.limit_mm_per_prompt) or {}).get("video")
    if isinstance(video, dict) and isinstance(video.get("num_frames"), int) and video["num_frames"] > 0:
        frames = min(frames, video["num_frames"])
    items = {"video": frames * (70 + 2 + 6)}
    image = int((model.vision_config or {}).get("default_output_length") or 0)
    if image:
        items["image"] = image
    return items


def _prefix_lm_item_tokens(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> int:
    """The largest multimodal item, in tokens, that vLLM makes room for in max_num_batched_tokens when it chose that
    number itself, for a multimodal prefix-LM model whose processor states its per-item maxima (read in the 0.22.0,
    0.25.1 and 0.33.0 wheels, absent from 0.21.0: engine/arg_utils.py _set_default_max_num_seqs_and_batched_tokens_args
    raises the default to EngineArgs._get_min_mm_batched_tokens when is_multimodal_model and is_mm_prefix_lm, vLLM PR
    #43051). That function asks for one item of every modality the model supports, not of those
    --limit-mm-per-prompt allows, so a 0 video limit still raises to a video item; only a text-only deployment from
    0.27.0 (_is_mm_prefix_lm) escapes it. Gemma 3's processor states no maxima, so vLLM keeps its default there.
    0 when vLLM raises nothing."""
    if not rules.mm_prefix_lm_batched_tokens_raise or not _is_mm_prefix_lm(model, args, rules):
        return 0
    return max(_mm_items_tokens(model, args).values(), default=0)


def _largest_active_mm_item(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> tuple[int, str] | None:
    """The largest item of the modalities a request may carry, when vLLM will not chunk it (a prefix-LM on CUDA:
    platforms/cuda.py forces --disable-chunked-mm-input), and so refuses a max_num_batched_tokens below it:
    multimodal/encoder_budget.py MultiModalBudget counts the modalities whose limit is above 0 (none with
    --language-model-only: config/multimodal.py get_limit_per_prompt), and v1/core/encoder_cache_manager.py
    compute_mm_encoder_budget raises "Chunked MM input disabled but max_tokens_per_mm_item (...) is larger than
    max_num_batched_tokens (...)" (read in 0.22.0 and 0.33.0; vllm-project/recipes issue #441 shows it before 0.22,
    which kvplan does not apply: those releases were not read). None when nothing is refused."""
    if not rules.mm_prefix_lm_item_refusal or not _is_mm_prefix_lm(model, args, rules) or args.language_model_only:
        return None
    limits = args.mm_limits or {}
    active = {m: n for m, n in _mm_items_tokens(model, args).items() if limits.get(m, 999) > 0}
    if not active:
        return None
    modality = max(active, key=active.__getitem__)
    return active[modality], modality


# the modalities vLLM's processors take (multimodal/processing/context.py names "image", "video" and "audio"; the
# per-modality dummy options of config/multimodal.py MultiModalConfig._validate_limit_per_prompt, 0.33.0)
_MODALITIES = ("image", "video", "audio")


def _mm_limit_warnings(model: ModelSpec, args: EngineArgs) -> list[str]:
    """What vLLM silently ignores in --limit-mm-per-prompt, said: every limit for a model that takes no multimodal
    input (config/model.py ModelConfig.__post_init__ builds the multimodal config, and reads the limits, only where the
    architecture supports multimodal input; 0.33.0), and a key that is no modality (MultiModalConfig takes any key;
    InputProcessingContext.allowed_mm_limits reads only the processor's own modalities), such as a typo."""
    limits = args.mm_limits
    if not limits:
        return []
    if not model.is_multimodal:
        return [f"--limit-mm-per-prompt: {model.id} takes no image, video or audio input, so vLLM ignores the limits "
                "(drop the flag)"]
    unknown = [k for k in limits if k not in _MODALITIES]
    if not unknown:
        return []
    return [f"--limit-mm-per-prompt: {', '.join(repr(k) for k in unknown)} {'is no modality' if len(unknown) == 1 else 'are no modalities'} "
            f"vLLM reads (image, video, audio), so vLLM ignores {'it' if len(unknown) == 1 else 'them'} and limits "
            "nothing there (check the spelling)"]


def _text_only(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> bool:
    """vLLM's text-only mode: every modality's limit is 0 (or --language-model-only), so the vision tower is not built
    or loaded. Qwen2.5-VL and Qwen3-VL skip it from 0.10.1 (multimodal/registry.py "running in text-only mode", their
    model classes), every tower marked with _mark_tower_model from 0.15 (model_executor/models/interfaces.py): rules row
    mm_text_only_towers."""
    if not model.is_multimodal:
        return False
    if not _modalities_off(args, supported_modalities(model)):
        return False
    return rules.mm_text_only_towers == "all" or (rules.mm_text_only_towers == "qwen2_5_qwen3"
                                                  and _mm_tower(model) in ("qwen2_5", "qwen3"))


def _multimodal_profile_bytes(model: ModelSpec, args: EngineArgs, rules: VersionRules, text_peak: int) -> tuple[int, str] | None:
    """What the profile run's multimodal pass adds to the torch peak (read in the 0.10-0.33 wheels:
    v1/worker/gpu_model_runner.py profile_run, multimodal/encoder_budget.py, v1/core/encoder_cache_manager.py).

    vLLM runs the encoder once on the largest items of the modality with the most tokens per item (T): budget
    max(max_num_batched_tokens, T), items max(1, min(budget // T, max_num_seqs x (max_model_len // T))). Its outputs
    stay cached, and up to 0.32 the V1 runner also keeps the pixel tensors, while the text dummy run follows, so the
    peak is max(encoder forward, text peak + cached outputs + pixels). The encoder forward per patch: the pixels
    (float32, in the model's dtype from 0.9.0; up to 0.8 the Qwen2/2.5-VL models add a copy in the model's dtype),
    then in bf16 the position embeddings, and the larger of one attention block (residual, norm, q/k/v, rotated q/k copies, context)
    and one MLP block, plus Qwen3-VL's deepstack features. 0.11-0.12 profile Qwen3-VL with a video whose output is
    padded to 12.5 x its 12,288 tokens (qwen3_vl.py get_max_video_tokens). Returns None for a text model, a note with
    0 bytes for a vision tower kvplan does not compute."""
    if not model.is_multimodal:
        return None
    tower = _mm_tower(model)
    v0 = rules.engine != "v1"
    if v0 and _hf_model_type(model) == "mllama" and isinstance((model.raw_config or {}).get("vision_config"), dict):
        return _mllama_v0_profile_bytes(model, args, rules, text_peak)
    if v0 and tower not in ("clip", "siglip"):
        return 0, ("multimodal: V0's profile run encodes its dummy images inside the model forward (max_num_seqs cut to "
                   "max_num_batched_tokens // the largest item's tokens); that pass is not computed for this tower, so the "
                   "peak may be higher")
    if tower is None:
        return 0, (f"multimodal: the profile run's encoder pass of this vision tower "
                   f"({(model.vision_config or {}).get('model_type') or model.model_type}) is not modelled; the peak may be higher")
    if model.raw_config and not isinstance(model.raw_config.get("vision_config"), dict):
        # the config as given has no vision_config: the class defaults transformers fills in are not the checkpoint's
        return 0, "multimodal: the config gives no vision_config, so the encoder's profile pass is not computed"
    v = model.vision_config or {}
    facts = _MM_TOWERS[tower]
    tp = args.tensor_parallel_size
    h = int(v.get("hidden_size") or v.get("embed_dim") or 0)
    inter = int(v.get("intermediate_size") or (h * int(v.get("mlp_ratio") or 4)))
    patch = int(v.get("patch_size") or 14)
    if not h:
        return 0, "multimodal: the vision config gives no hidden size; the encoder's profile pass is not modelled"
    if tower == "clip":
        per_item_tokens = (int(v.get("image_size") or 336) // patch) ** 2
        per_item_patches, pixels_per_patch = per_item_tokens + 1, 3 * patch * patch
        width = model.hidden_size
    elif tower == "llava_next":  # the CLIP tower over 1 + grid tiles of image_size square (class token included)
        per_item_tokens, tiles, _ = _llava_next_item(model)
        size = int(v.get("image_size") or 336)
        per_item_patches = tiles * ((size // patch) ** 2 + 1)
        # the tiles' pixels (3 x image_size^2 each) spread over the tower's positions (the class token has none)
        pixels_per_patch, width = 3 * size * size * tiles / per_item_patches, model.hidden_size
    elif tower == "pixtral":
        per_item_tokens, per_item_patches = _pixtral_item(model)
        pixels_per_patch, width = 3 * patch * patch, model.hidden_size
    elif tower == "siglip":  # Gemma 3 pools the tower's (896 / 14)^2 patches to mm_tokens_per_image (pan-and-scan off)
        per_item_patches = (int(v.get("image_size") or 896) // patch) ** 2
        per_item_tokens = int((model.raw_config or {}).get("mm_tokens_per_image") or 256)
        pixels_per_patch, width = 3 * patch * patch, model.hidden_size
    else:
        merge = int(v.get("spatial_merge_size") or 2)
        temporal = int(v.get("temporal_patch_size") or 2)
        per_item_patches = facts["max_pixels"] // (patch * patch)
        per_item_tokens = per_item_patches // (merge * merge)
        pixels_per_patch = 3 * temporal * patch * patch
        deepstack = len(v.get("deepstack_visual_indexes") or [])
        width = int(v.get("out_hidden_size") or model.hidden_size) * (1 + deepstack)
    limits = {"image": 0, "video": 0} if args.language_model_only else (args.mm_limits or {})
    image_ok = limits.get("image", 1) > 0
    video_ok = tower not in ("clip", "siglip", "llava_next", "pixtral") and limits.get("video", 1) > 0
    padded_tokens = 0
    if tower == "qwen3" and v.get("deepstack_visual_indexes") and rules.mm_video_padding and video_ok:
        per_item_tokens = 12_288  # video_preprocessor longest_edge 25,165,824 / (16^2 x 2^2 x 2 frames per patch)
        per_item_patches = per_item_tokens * 4
        padded_tokens = int(12.5 * per_item_tokens)
    elif not image_ok:
        if not video_ok:
            return 0, "multimodal: no modality is allowed (--limit-mm-per-prompt 0 or --language-model-only), so the profile run encodes none"
        if tower != "qwen3":
            return 0, "multimodal: only video is allowed; its profile pass is not modelled for this tower"
        per_item_tokens = 12_288
        per_item_patches = per_item_tokens * 4
    limit = limits.get("video" if padded_tokens or not image_ok else "image")
    if v0:
        # V0 (worker/model_runner.py profile_run): max_num_seqs = max(1, min(max_num_seqs, max_num_batched_tokens //
        # max_mm_tokens)) dummy sequences, each with the per-prompt limit of images (default 1), all encoded in the forward
        per_prompt = 1 if limit is None else max(1, limit)
        items = max(1, min(args.max_num_seqs, args.max_num_batched_tokens // (per_item_tokens * per_prompt))) * per_prompt
    else:
        # rules.mm_profile_items: up to 0.9.x the encoder budget's items are rounded up and neither floored at 1 nor
        # capped by max_model_len; from 0.10.1 a prompt holds at most max_model_len // T items (at least 1)
        budget = max(args.max_num_batched_tokens, per_item_tokens)
        if rules.mm_profile_items == "per_prompt":
            per_prompt = max(1, min(999 if limit is None else limit, args.max_model_len // per_item_tokens))
        else:
            per_prompt = 999 if limit is None else limit
        by_budget = cdiv(budget, per_item_tokens) if rules.mm_profile_items == "ceil" else budget // per_item_tokens
        items = max(1, min(by_budget, args.max_num_seqs * per_prompt))
    n = items * per_item_patches
    if tower == "pixtral":
        # the Mistral-format checkpoint vLLM loads for mistralai's Pixtral models (PixtralForConditionalGeneration:
        # "Resolved architecture" in the Mistral-Small-3.1 0.19.0 log) builds the tower of plain nn.Linear layers
        # (pixtral.py VisionTransformer, 0.10.2 and 0.19.0), whole on every rank; the HF-format PixtralHFVisionModel
        # (mistral3.py / llava.py) shards them, so at TP > 1 this is its upper bound
        tp = 1
    attention = 3 * h + (8 if facts["rotary"] else 4) * h / tp + (h if tp > 1 else 0)
    # intermediate tensors alive in the MLP: fc1 and its activation, or gate, up and their product for a gated one
    mlp = 3 * h + (3 if vision_mlp_gated(model) else 2) * inter / tp
    deep = (len(v.get("deepstack_visual_indexes") or []) * int(v.get("out_hidden_size") or 0) / 4) if tower == "qwen3" else 0
    # the HF image processors hand vLLM float32 pixels (4 B a value), cast to the model's dtype on their way to the GPU
    # from 0.9.0 (rules.mm_pixels_model_dtype); they stay alive through the encoder. Up to 0.8.x the Qwen2-VL and
    # Qwen2.5-VL models also hold a copy in the tower's dtype for the whole tower (_process_image_input's
    # pixel_values.type(self.visual.dtype), qwen2_vl.py and qwen2_5_vl.py in the 0.8.5 wheel; a no-op on the already
    # cast pixels of 0.9.0.1, gone from 0.9.2, where the tower's own x.to(dtype) copy lives only until the patch
    # embedding)
    pixel_bytes = DTYPE_BYTES.get(args.dtype, 2) if rules.mm_pixels_model_dtype else 4
    pixel_copy = DTYPE_BYTES.get(args.dtype, 2) if tower in ("qwen2", "qwen2_5") and not rules.mm_pixels_model_dtype else 0
    encoder = (pixel_bytes + pixel_copy) * n * pixels_per_patch + 2 * n * (h + max(attention, mlp) + deep)
    mask = 0
    if tower == "pixtral" and rules.pixtral_sdpa_mask:
        # without xformers the tower's SDPA takes one (patches, patches) block-diagonal mask over all the items'
        # patches, in the activation dtype, alive through every layer (rules.pixtral_sdpa_mask)
        mask = DTYPE_BYTES.get(args.dtype, 2) * n * n
        encoder += mask
    cached = 2 * items * (per_item_tokens + padded_tokens) * width
    pixels = pixel_bytes * n * pixels_per_patch if rules.mm_pixels_held and not v0 else 0
    extra = max(0, int(max(encoder, text_peak + cached + pixels) - text_peak))
    what = f"{items} item(s) of {per_item_tokens:,} tokens each ({n:,} patches in all)"
    caution = ""
    if tower == "pixtral":
        caution = (f"; the tower attends through a {mask / GIB:.2f} GiB patches x patches mask (PyTorch's SDPA: "
                   "xformers is no longer a vLLM dependency from 0.12), inside the encoder peak" if mask else
                   "; xformers (a vLLM dependency up to 0.11) attends without a patches x patches mask")
    if tower in ("qwen2", "qwen2_5") and video_ok and image_ok and rules.qwen2_vl_video_profile and args.max_model_len > 16384:
        # qwen2_vl.py get_mm_max_tokens_per_item (rules row qwen2_vl_video_profile): a video of up to 14 frames sized from max_model_len outnumbers the
        # image (114,688 tokens at 128K); its frames' size comes from the HF video processor, so it is not computed
        video_tokens = min(7, args.max_model_len // per_item_tokens) * per_item_tokens  # 14 frames = 7 temporal patches
        caution = (f"; vLLM profiles a video of up to {video_tokens:,} tokens instead, whose frame size comes from the video "
                   "processor and is not computed: the peak may be much higher (--limit-mm-per-prompt "
                   "'{\"video\": 0}' makes the image the profiled item)")
    return extra, (f"multimodal: the profile run encodes {what}: encoder peak {encoder / GIB:.2f} GiB, its outputs "
                   f"kept for the text pass {cached / GIB:.2f} GiB{' (padded)' if padded_tokens else ''}, pixels "
                   f"{pixels / GIB:.2f} GiB; the activation peak is {extra / GIB:.2f} GiB above the text-only one{caution}")


def _mllama_v0_profile_bytes(model: ModelSpec, args: EngineArgs, rules: VersionRules, text_peak: int) -> tuple[int, str]:
    """Llama-3.2-Vision (mllama) on the V0 engine: what its profile run's vision pass adds to the torch peak, computed
    from the source (read in the 0.6.3, 0.6.6.post1, 0.7.0-0.7.3, 0.8.5, 0.9.0.1, 0.9.2 and 0.10.0 wheels).

    worker/enc_dec_model_runner.py EncoderDecoderModelRunner.profile_run builds max_num_seqs dummy sequences, each with
    the per-prompt image limit of dummy images (1 unless --limit-mm-per-prompt says more), and runs them in one forward:
    unlike the decoder-only V0 runner it does not cut the sequences to max_num_batched_tokens // the image's tokens. Each
    dummy image fills max_num_tiles tiles (1024 x 1024 up to 0.7.2, max_num_tiles x image_size by image_size from 0.7.3),
    of (image_size / patch)^2 + 1 patches, padded to a multiple of 8 (L), so the tower sees N images x S = tiles x L
    tokens. models/mllama.py MllamaVisionModel.forward then holds, in the model dtype, with H = N x S x hidden:
    - the aspect-ratio attention mask, N x S x S (built by a matmul and a multiply: two copies while it is made);
    - after the 32 local layers, the encoder's output tuple (the final hidden state and the len(intermediate_layers_indices)
      kept states) and their torch.stack, while the 8 gated global layers run, each with its input, the global input the
      forward still holds, the attention output, the norm and the MLP's fc1 output and activation (2 x intermediate/TP):
      (5 + 2 x kept + 2 x intermediate / hidden / TP) x H, the peak of the pass (the local layers hold fewer, the final
      concatenation frees the stack first);
    - the pixels, float32 until 0.9.0 casts them (rules.mm_pixels_model_dtype), in rules.mllama_v0_pixel_copies copies.
    The language model's forward follows with the projected cross-attention states (N x tiles x patches x the text
    hidden size) beside the pixels."""
    v = model.raw_config["vision_config"]
    db = DTYPE_BYTES.get(args.dtype, 2)
    tp = args.tensor_parallel_size
    limit = (args.mm_limits or {}).get("image")
    per_seq = 0 if args.language_model_only else (1 if limit is None else limit)
    if not per_seq:
        return 0, "multimodal: no image is allowed (--limit-mm-per-prompt 0 or --language-model-only), so the profile run encodes none"
    size, patch = int(v.get("image_size") or 560), int(v.get("patch_size") or 14)
    tiles = int(v.get("max_num_tiles") or 4)
    hidden = int(v.get("hidden_size") or 1280)
    inter = int(v.get("intermediate_size") or 4 * hidden)
    kept = len(v.get("intermediate_layers_indices") or [3, 7, 15, 23, 30])
    patches = (size // patch) ** 2 + 1
    padded = cdiv(patches, 8) * 8
    n = args.max_num_seqs * per_seq
    seq = tiles * padded
    h = n * seq * hidden * db
    mask = n * seq * seq * db
    pixel_bytes = db if rules.mm_pixels_model_dtype else 4
    pixels = rules.mllama_v0_pixel_copies * pixel_bytes * n * tiles * 3 * size * size
    vision = pixels + max(2 * mask + h, mask + (5 + 2 * kept + 2 * inter / hidden / tp) * h)
    cross = n * tiles * patches * model.hidden_size * db
    extra = max(0, int(max(vision, text_peak + pixels + cross) - text_peak))
    return extra, (f"multimodal: the V0 encoder-decoder profile run encodes {n} dummy image(s) ({args.max_num_seqs} sequences "
                   f"x {per_seq}) of {tiles} tiles x {padded} tokens: the vision pass holds a {mask / GIB:.2f} GiB attention "
                   f"mask, {(5 + 2 * kept + 2 * inter / hidden / tp):.0f} hidden-state tensors of {h / GIB:.2f} GiB and "
                   f"{pixels / GIB:.2f} GiB of pixels, {vision / GIB:.2f} GiB; {extra / GIB:.2f} GiB above the text peak "
                   "(computed from models/mllama.py, not fitted)")


SKIP_MM_PROFILING_NOTE = (
    "multimodal: --skip-mm-profiling: the profile run encodes no items, so the peak holds neither the encoder forward "
    "nor its cached outputs (v1/worker/gpu_model_runner.py profile_run, vLLM PR #22950, read in the 0.10.1, 0.19.0 and "
    "0.27.1 wheels, and 0.27.1's v1/worker/gpu/model_runner.py; the text dummy run keeps its multimodal inputs, and the "
    "scheduler's encoder-cache budget is unchanged)")


def mm_profiling_skipped(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> bool:
    """Whether --skip-mm-profiling takes the encoder pass out of the profile run: a multimodal model on the V1 engine
    (the V0 runner, worker/model_runner.py of the 0.10.1 wheel, never reads the flag; a text model has no pass) with
    a modality allowed (with none the pass encodes nothing anyway). vLLM logs "Skipping memory profiling for
    multimodal encoder and encoder cache." (the V1 runner; 0.27.1's second runner skips it silently)."""
    if not (args.skip_mm_profiling and model.is_multimodal and rules.is_v1):
        return False
    limits = {"image": 0, "video": 0} if args.language_model_only else (args.mm_limits or {})
    return not all(limits.get(m, 1) == 0 for m in ("image", "video"))


def skip_mm_profiling_says(model: ModelSpec, args: EngineArgs, rules: VersionRules,
                           text_peak: int) -> tuple[str | None, str | None]:
    """(an assumption, a warning) about --skip-mm-profiling: the risk vLLM's help names ("shifts the responsibility to
    users for estimating the peak memory usage of the activation of multimodal encoder and embedding cache",
    MultiModalConfig.skip_mm_profiling), or why the flag changes nothing here."""
    if not args.skip_mm_profiling:
        return None, None
    if not model.is_multimodal:
        return "--skip-mm-profiling: a text model has no encoder pass to skip; the flag changes nothing", None
    if not rules.is_v1:
        return None, ("--skip-mm-profiling: the V0 engine's profile run does not read the flag (worker/model_runner.py, "
                      "0.10.1 wheel), so the encoder pass is profiled and planned as without it")
    if not mm_profiling_skipped(model, args, rules):
        return "--skip-mm-profiling: no modality is allowed, so there is no encoder pass to skip", None
    mm = _multimodal_profile_bytes(model, args, rules, text_peak)
    held = f"the {mm[0] / GIB:.2f} GiB" if mm and mm[0] else "the memory"
    return None, (f"--skip-mm-profiling: the KV pool takes {held} the encoder pass would have added to the profiled peak; "
                  "a step that encodes images or video needs it beside the pool and may fail with CUDA out of memory "
                  "(vLLM leaves that estimate to the user; lower --gpu-memory-utilization or --limit-mm-per-prompt to "
                  "leave room)")


DRAFTER_PROFILE_LABEL = "speculative drafter buffers"


def computed_profile_terms(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules,
                           text_peak: int) -> list[tuple[str, int, str]]:
    """Profile-run memory kvplan computes from the model and the flags rather than fits: (label, bytes, note) for the
    multimodal encoder pass and the sparse-attention buffers of DeepSeek-V3.2 and -V4. `text_peak` is the fitted
    activation peak they are compared with or added to."""
    out = []
    mm = _multimodal_profile_bytes(model, args, rules, text_peak)
    if mm is not None and mm_profiling_skipped(model, args, rules):
        out.append(("multimodal encoder profile", 0, f"{SKIP_MM_PROFILING_NOTE}; with it the pass would add: {mm[1]}"))
    elif mm is not None:
        out.append(("multimodal encoder profile", mm[0], mm[1]))
    drafter = _drafter_profile_bytes(model, args, rules)
    if drafter is not None:
        out.append((DRAFTER_PROFILE_LABEL, drafter[0], drafter[1]))
    for label, fn in (("DeepSeek-V4 workspaces", _dsv4_workspace_bytes), ("sparse-MLA indexer buffers", _sparse_mla_buffers)):
        term = fn(model, gpu, args, rules)
        if term:
            out.append((label, term[0], term[1]))
    return out


def _drafter_profile_bytes(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> tuple[int, str] | None:
    """What a drafter checkpoint (DRAFT_METHODS) adds to the profile run's peak, per rank, computed not fitted:
    - the proposer's persistent buffers, allocated with the model runner before the profile, T = max_num_batched_tokens
      rows: hidden_states and inputs_embeds (T x H_draft in the model dtype), input_ids and the arange (int32) and
      positions (int64) (v1/spec_decode/eagle.py EagleProposer.__init__, 0.19.0; v1/spec_decode/llm_base_proposer.py
      SpecDecodeBaseProposer.__init__, 0.33.0);
    - EAGLE-3: the target's auxiliary hidden states (num_aux x T x H, model dtype) that its forward keeps for the head
      (SupportsEagle3 models append hidden_states + residual at the aux layers), alive through the rest of the forward.
    The drafter's own dummy forward (_dummy_run -> drafter.dummy_run, one or a few layers) runs after the target's
    intermediates are freed and is taken to stay below the fitted peak."""
    spec = args.speculative
    if not spec or spec[0] not in DRAFT_METHODS or not rules.is_v1:
        return None
    draft, t, db = args.draft, args.max_num_batched_tokens, DTYPE_BYTES[args.dtype]
    buffers = t * (2 * draft.hidden_size * db + 4 + 8 + 4)
    aux = eagle_aux_states(draft) if spec[0] == "eagle3" else 0
    aux_bytes = aux * t * model.hidden_size * db
    text = (f"speculative drafter in the profile run: its buffers {t:,} tokens x (2 x {draft.hidden_size} x {db} B + 16 B) = "
            f"{buffers / 1024 ** 2:.0f} MiB")
    if aux_bytes:
        text += (f" + the target's {aux} auxiliary hidden states for the EAGLE-3 head, {aux} x {t:,} x {model.hidden_size} x "
                 f"{db} B = {aux_bytes / 1024 ** 2:.0f} MiB")
    return buffers + aux_bytes, text + " (computed, not fitted)"


def _sparse_mla_buffers(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules) -> tuple[int, str] | None:
    """DeepSeek-V3.2's lightning-indexer buffers in the profile run, per rank (read in the 0.11-0.33 wheels:
    models/deepseek_v2.py, v1/attention/backends/mla/indexer.py and flashmla_sparse.py, layers/sparse_attn_indexer.py):
    the top-k indices T x index_topk int32; up to 0.12 a 2 L x 132 B indexer stand-in; from 0.13 one shared
    workspace, the larger of the indexer's keys (8 x factor x L entries of index_head_dim + 4 B) and, with the
    fp8_ds_mla cache, FlashMLA's bf16 prefill buffers (factor x L x 576, from 0.18 also q_concat T x heads x 576, from
    0.31 T x 64 x 576), factor 5 (from 0.32: 5 up to 256K tokens, else 2);
    from 0.19 a 512 MiB logits buffer; from 0.32 with TP > 1 a 2 x T x index_topk fp32 exchange."""
    if not model.sparse_mla:
        return None
    layer = next(l for l in model.layers if l.kind == "mla" and l.index_head_dim)
    t, length = args.max_num_batched_tokens, args.max_model_len
    topk = int(model.text_config.get("index_topk") or 2048)
    key_bytes = layer.index_head_dim + 4
    total = t * topk * 4
    if not rules.sparse_mla_shared_workspace:  # the rows sparse_mla_* of versions.py
        total += 2 * length * key_bytes
    else:
        factor = 5 if rules.sparse_mla_workspace_factor == "fixed" or length <= 262144 else 2
        prefill = 0
        if _sparse_mla_latent_bytes(args, rules, gpu) == 656:  # FlashMLA sparse: bf16 prefill gathers
            heads = heads_per_rank(model.num_attention_heads, args.tensor_parallel_size)
            prefill = factor * length * 576 * 2
            prefill += t * heads * 576 * 2 if rules.sparse_mla_prefill_q_concat else 0  # q_concat
            prefill += t * 64 * 576 * 2 if rules.sparse_mla_prefill_token_buffers else 0  # per-token buffers, heads padded to 64
        total += max(8 * factor * length * key_bytes, prefill)
        if rules.sparse_mla_logits_buffer:
            total += 512 * 1024 ** 2
        if rules.sparse_mla_tp_topk_exchange and args.tensor_parallel_size > 1:
            total += 2 * t * topk * 4
    return total, (f"sparse MLA (DeepSeek-V3.2): indexer buffers {total / GIB:.2f} GiB per rank in the profile run "
                   f"(max_model_len {length:,}, {t:,} batched tokens)")


def _sparse_mla_latent_bytes(args: EngineArgs, rules: VersionRules, gpu: GPUSpec | None) -> int:
    """Bytes per token of DeepSeek-V3.2's latent cache: 656 in the fp8_ds_mla layout (512 fp8 + 16 scale + 128 bf16
    rope; 0.11.0 turns every cache dtype into it, later releases only fp8), 576 x 2 in bf16; 576 with FlashInfer's
    sparse MLA on Blackwell in 0.33 (models/config.py, mla_attention.py, platforms/cuda.py)."""
    kv = (args.kv_cache_dtype or "auto").lower()
    if rules.sparse_mla_cache_layout == "fp8_ds_mla" or kv == "fp8_ds_mla":  # rules row sparse_mla_cache_layout
        return 656
    if kv.startswith("fp8"):
        cc = (gpu.cc if gpu else None) or (9, 0)
        return 576 if rules.sparse_mla_flashinfer_blackwell and (10, 0) <= cc < (11, 0) else 656
    return 576 * 2


def _dsv4_workspace_bytes(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules) -> tuple[int, str] | None:
    """DeepSeek-V4's sparse-attention buffers that the profile run sees, per rank, as read in the 0.28-0.33 wheels
    (models/deepseek_v4, v1/attention/backends/mla/indexer.py, v1/attention/ops/rocm_aiter_mla_sparse.py,
    v1/worker/workspace.py). They scale with max_num_batched_tokens T and max_model_len L, not with the model's
    activations, so the calibrated peak does not hold them:

    - the top-k index buffer, T x index_topk int32, and on ROCm one fp32 compressor scratch T x head_dim per ratio-128
      layer;
    - one shared workspace, grown to its largest request (not their sum): the attention gather, 4 x (L/4 + 128 + T)
      x head_dim bf16; the indexer's prefill keys, 10 L (up to 0.31; then 8 x factor x L / 4, the factor 5 up to
      256K tokens, else 2) entries of index_head_dim + 4 bytes; on ROCm the decode logits, rows x L/4 fp32 with T rows
      (up to 0.29) or min(T, max_num_seqs) rows;
    - a 512 MiB logits buffer the indexer allocates during the profile (VLLM_SPARSE_INDEXER_MAX_LOGITS_MB).
    """
    if not model.compressed_attention:
        return None
    layers = [l for l in model.layers if l.kind in ("csa", "hca", "swa")]
    t, length, seqs = args.max_num_batched_tokens, args.max_model_len, args.max_num_seqs
    head = layers[0].head_dim
    index_dim = next((l.index_head_dim for l in layers if l.index_head_dim), 128)
    topk = int(model.text_config.get("index_topk") or 0)
    rocm = gpu.vendor.upper() == "AMD"
    fixed = t * topk * 4 + (sum(1 for l in layers if l.kind == "hca") * t * head * 4 if rocm else 0)
    gather = 4 * (cdiv(length, 4) + 128 + t) * head * 2
    entries = 10 * length if rules.dsv4_indexer_factor == "fixed" else length * 8 * (5 if length <= 262144 else 2) // 4
    index_keys = entries * (index_dim + 4)
    rows = t if rules.dsv4_rocm_logit_rows == "tokens" else min(t, seqs)
    logits = rows * cdiv(length, 4) * 4 if rocm else 0
    workspace, which = max((gather, "attention gather"), (index_keys, "indexer prefill keys"),
                           (logits, f"ROCm decode logits ({rows:,} rows)"))
    total = fixed + workspace + 512 * 1024 ** 2
    era = "" if rules.dsv4_sparse_buffers_read else f"; as read in 0.28-0.33, applied to {rules.version}"
    return total, (f"DeepSeek-V4 sparse-attention buffers: {total / GIB:.2f} GiB per rank in the profile run (largest: the "
                   f"{which}, {workspace / GIB:.2f} GiB, at max_model_len {length:,} and {t:,} batched tokens{era})")


def _windows_kept(layers: list[LayerSpec], rules: VersionRules, notes: list[str],
                  warns: list[str]) -> tuple[list[LayerSpec], list[tuple[str, int] | None]]:
    """Windowed layers as the release keeps them: a window layer V1 cannot keep as one holds every token, like a
    full-attention layer (see the rules rows sliding_window_spec, chunked_local_spec and hybrid_kv_manager). Also,
    per layer, the (kind, window) the fit check still charges where the release has the window spec but holds the
    layer as full attention after the check (rules row fit_check_sees_windows), else None."""
    kinds = {l.kind for l in layers}
    specced = set()  # kinds whose window spec exists (the check sees them) but which are held as full attention
    promote = set()
    if "sliding" in kinds and not rules.sliding_window_spec:
        promote.add("sliding")
        notes.append(f"vLLM {rules.version} has no sliding-window KV spec: window layers hold every token")
    manager_off = "chunked" in kinds and rules.chunked_local_spec == "manager_off"
    if "chunked" in kinds and rules.chunked_local_spec == "none":
        promote.add("chunked")
        notes.append(f"vLLM {rules.version} has no chunked-local KV spec: chunked attention layers hold every token")
    if manager_off:
        specced |= {"chunked", "sliding"} - promote
        promote |= {"chunked", "sliding"}
        notes.append(f"vLLM {rules.version} turns the hybrid KV-cache manager off for chunked local attention (unless "
                     "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1): its layers hold every token")
    windows, whole = kinds & {"sliding", "chunked"} - promote, kinds & {"full", "mla"}
    if windows and (whole or promote) and not rules.hybrid_kv_manager:
        specced |= windows
        promote |= windows
        notes.append(f"vLLM {rules.version} has no hybrid KV-cache manager: window layers beside full-attention ones "
                     "hold every token")
    if not promote:
        return layers, [None] * len(layers)
    if manager_off:  # the manager exists but is off for this model: vLLM says so
        warns.append("Hybrid KV cache manager is disabled for this hybrid model, This means we do not enable any "
                     "optimizations for saving KV cache memory (e.g., dropping the KV cache outside the sliding window). "
                     "The compute of layers like sliding window is still saved.")
    seen = specced if rules.fit_check_sees_windows else set()
    if seen and any(l.kind in seen for l in layers):
        notes.append(f"vLLM {rules.version} runs the fit check before it holds the window layers as full attention: "
                     "they are charged only their window there, so a start can pass with a pool smaller than one "
                     "max-length request")
    checked = [(l.kind, l.window) if l.kind in seen and l.window else None for l in layers]
    return [replace(l, kind="full", window=None) if l.kind in promote else l for l in layers], checked


def _v0_cache(model: ModelSpec, attn: list[LayerSpec], args: EngineArgs, rules: VersionRules, notes: list[str]):
    """V0's one cache: every attention layer holds every token (no window saving, no groups; section 3.3).

    cache_block_size = L_attn x bs x (K_entry + V_entry) x b. DeepSeek's MLA entry was padded to 256 bytes
    (0.7-0.10); 0.6.x ran DeepSeek-V2 without MLA, all heads at head size 256 (section 3.1).
    """
    tp, bs = args.tensor_parallel_size, args.block_size
    kvb = kv_dtype_bytes(args.kv_cache_dtype, args.dtype)
    if not attn and model.is_attention_free:
        first = release_from("v0_for_recurrent", False)
        raise InputError("model", f"vLLM {rules.version} runs {model.id} on its V0 engine, which keeps a Mamba model's "
                         "state outside the KV cache (model_executor/models/mamba_cache.py): an attention-free model has "
                         f"no KV blocks there to plan, and V1 runs it only from {first}",
                         f"plan with --vllm-version {first} or newer")
    if not attn:
        raise InputError("model", f"{model.id} keeps no attention KV cache in vLLM's V0 engine", "plan with --vllm-version 0.8 or newer")
    per_token = 0
    for l in attn:
        if l.kind == "mla" and not rules.mla_kernels:
            heads = heads_per_rank(model.num_attention_heads, tp)
            per_token += 2 * heads * 256 * kvb
        elif l.kind == "mla":
            per_token += cdiv(l.head_dim * kvb, 256) * 256
        else:
            per_token += _attention_page_per_token(l, tp, kvb)
    if any(l.kind == "mla" for l in attn):
        notes.append("V0 engine: " + ("DeepSeek MLA disabled, heads padded to 256" if not rules.mla_kernels
                                      else "the MLA entry padded to a multiple of 256 bytes"))
    if any(l.kind in ("sliding", "chunked") for l in attn):
        notes.append("V0 engine: sliding-window layers hold every token (no per-window saving)")
    page = per_token * bs
    return (KVGroup("full", len(attn), bs, page // len(attn)),), page, (
        f"{bs} x {per_token:,} B: {bs} tokens x every attention layer's bytes per token ({len(attn)} layers, one cache)")


def prefix_caching_on(args: EngineArgs, rules: VersionRules, hybrid: bool) -> bool:
    """Whether the engine caches prefixes: the flag where given, else the version's default -- on in the V1 engine
    ("V1 turns on prefix caching by default", vLLM tests/v1/engine/test_engine_args.py), off in V0
    (EngineArgs.enable_prefix_caching = False), and for hybrid models per the rules row hybrid_prefix_caching_default."""
    if args.enable_prefix_caching is not None:
        return bool(args.enable_prefix_caching)
    if rules.engine != "v1":
        return False
    return rules.hybrid_prefix_caching_default if hybrid else True


def mamba_cache_mode(g: KVGroup, args: EngineArgs, rules: VersionRules) -> str:
    """vLLM's mamba_cache_mode for a recurrent group: "none" without prefix caching, else "align", or "all" for the
    Mamba1/2 families in 0.15-0.27 (see the rules rows hybrid_prefix_caching_default and mamba_cache_mode)."""
    on = prefix_caching_on(args, rules, hybrid=True)
    if not on or rules.mamba_cache_mode == "none":
        return "none"
    supported = g.recurrent_kind in ("mamba1", "mamba2")  # the families that implement Mamba prefix caching
    if rules.mamba_cache_mode.startswith("all_if_supported") and supported:
        return "all"
    return "none" if rules.mamba_cache_mode.endswith("_else_none") else "align"


def mamba_pages(g: KVGroup, args: EngineArgs, rules: VersionRules, num_tokens: int = 0) -> int:
    """Pages one sequence of `num_tokens` holds in a recurrent group: 1 in "none" mode; 2 in "align" mode, plus a
    prefill-checkpoint page for the Mamba2 mixer from 0.32 and for GDN from 0.33 where its layers export checkpoints
    (rules row mamba_checkpoint_page); one per block in "all" mode (sections 2.4, 3.4)."""
    mode = mamba_cache_mode(g, args, rules)
    spec = args.speculative
    extra = spec[1] if spec and rules.mamba_spec_pages else 0  # one page per speculative token (>= 0.17)
    if mode == "none":
        return 1 + extra
    if mode == "all":
        return cdiv(max(num_tokens, 1), g.block_size) + extra
    return 2 + extra + (1 if g.recurrent_kind in rules.mamba_checkpoint_page and g.checkpoint_capable else 0)


def window_extra_tokens(args: EngineArgs, rules: VersionRules) -> int:
    """Tokens a window group may hold beyond the window: in-flight batches x max_num_batched_tokens (section 3.4)."""
    pp = args.pipeline_parallel_size or 1
    kind = "one" if args.runner_type == "pooling" else rules.window_inflight  # pooling models run no async scheduling
    batches = {"one": 1, "mrv1-async": 2 if pp == 1 else pp, "mrv2": pp + 1}[kind]
    return batches * args.max_num_batched_tokens


def _group_blocks(g: KVGroup, num_tokens: int, args: EngineArgs, rules: VersionRules) -> int:
    """Blocks one request of `num_tokens` tokens holds in one group (per layer slot; section 3.4)."""
    if g.kind == "recurrent":
        return mamba_pages(g, args, rules, num_tokens)
    if g.kind == "sliding":
        return cdiv(min(g.window - 1 + window_extra_tokens(args, rules), num_tokens), g.block_size) + 1
    if g.kind == "chunked":
        return cdiv(min(g.window + window_extra_tokens(args, rules), num_tokens), g.block_size)
    return cdiv(num_tokens, g.block_size)


def _blocks_per_request(groups: Iterable[KVGroup], num_tokens: int, args: EngineArgs, rules: VersionRules) -> int:
    return sum(_group_blocks(g, num_tokens, args, rules) for g in groups)


# --------------------------------------------------------------------------- measured terms


def _full_graph_sizes(sizes: Iterable[int], max_num_seqs: int, q: int = 1) -> int:
    """Model runner v2's FULL uniform-decode graphs: each capture size rounded up to a multiple of the decode query
    length q, kept while it is within max_num_seqs x q tokens and the largest size, deduplicated (q = 1: the sizes up
    to max_num_seqs). v1/worker/gpu/cudagraph_utils.py CudaGraphManager._init_candidates (0.29.0, 0.33.0 wheels)."""
    sizes = list(sizes)
    if not sizes:
        return 0
    top = min(max_num_seqs * q, max(sizes))
    return len({cdiv(s, q) * q for s in sizes if cdiv(s, q) * q <= top})


def rocm_graph_units(graphs: "CudaGraphPlan", n_layers: int, max_num_seqs: int, q: int = 1) -> int:
    """The hipGraphs a ROCm capture holds (calibration.py ROCM_G_PER_GRAPH): a PIECEWISE capture size is one graph per
    piece of the split model, decoder layers + 1 (the attention ops split it: config/compilation.py splitting_ops), a
    FULL one a single graph; FULL_AND_PIECEWISE captures every size PIECEWISE and the uniform-decode sizes FULL
    (_full_graph_sizes), FULL_DECODE_ONLY only the latter, FULL every size once. The drafter's PIECEWISE graphs count
    one per drafter layer and graph, as the CUDA formula counts them."""
    mode = graphs.mode or "PIECEWISE"
    n = len(graphs.sizes)
    full = _full_graph_sizes(graphs.sizes, max_num_seqs, q)
    piecewise = n if mode in ("PIECEWISE", "FULL_AND_PIECEWISE") else 0
    whole = full if mode in ("FULL_AND_PIECEWISE", "FULL_DECODE_ONLY") else n if mode == "FULL" else 0
    return (n_layers + 1) * piecewise + whole + graphs.drafter_layers * graphs.drafter_graphs


MRV2_ENV = "VLLM_USE_V2_MODEL_RUNNER"


def mrv2_env_value(args: EngineArgs, rules: VersionRules) -> bool | None:
    """VLLM_USE_V2_MODEL_RUNNER as the release reads it (rules row mrv2_env): bool(int(value)), or None where it is
    unset or the release does not read it (before 0.12). A value int() refuses is refused in _env_rules."""
    value = args.env_value(MRV2_ENV)
    if value is None or rules.mrv2_env == "unread":
        return None
    try:
        return bool(int(value.strip()))
    except ValueError:
        return None


def _default_model_runner(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> tuple[str, str]:
    """(runner, why) as the release picks it with VLLM_USE_V2_MODEL_RUNNER unset (see model_runner_choice)."""
    mode = rules.model_runner_v2
    if mode == "none":
        return "v1", f"vLLM {rules.version} runs model runner v1 (v2 is opt-in or absent)"
    if args.runner_type == "pooling" or model.is_pooling:
        return "v1", "a pooling model: kvplan plans model runner v1's terms"
    spec = args.speculative
    if spec:
        method = "mtp" if spec[0] == "mtp" else _speculative_method(speculative_object(args.speculative_config))
        if method in rules.mrv2_v1_spec_methods:
            return "v1", (f"vLLM {rules.version} keeps model runner v1 for speculative method {method!r} "
                          "(model runner v2 does not yet support it)")
    if mode == "all":
        return "v2", f"vLLM {rules.version}'s default for every model"
    listed = bool(set(model.architectures or ()) & set(rules.mrv2_architectures))
    if mode == "dense":
        hybrid = any(l.kind == "recurrent" for l in model.layers)
        v2 = not hybrid and (not model.is_moe or listed)
        return ("v2", f"vLLM {rules.version}'s default for a model neither hybrid nor MoE (or listed)") if v2 else \
            ("v1", f"vLLM {rules.version} keeps model runner v1 for a " + ("hybrid" if hybrid else "MoE") + " model")
    if mode == "listed_dense":
        v2 = listed and not model.is_moe and model.quant is None
        return ("v2", f"vLLM {rules.version}'s default for {'/'.join(model.architectures)}, unquantized dense") if v2 else \
            ("v1", f"vLLM {rules.version} runs model runner v2 by default only for unquantized dense "
                   f"{', '.join(rules.mrv2_architectures)}")
    return ("v2", f"vLLM {rules.version}'s default for {'/'.join(model.architectures)}") if listed else \
        ("v1", f"vLLM {rules.version} runs model runner v2 by default only for {', '.join(rules.mrv2_architectures)}")


def model_runner_choice(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> tuple[str, str]:
    """("v1" or "v2", why): the GPU model runner vLLM builds, which every model-runner-v2 term follows (the sampler
    profile and penalty state, the CUDA-graph estimate and capture, the in-flight window, a drafter beside PP).

    The release's default (config/vllm.py use_v2_model_runner and DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES, read in
    the 0.22-0.33 wheels; rules rows model_runner_v2 and mrv2_architectures): 0.22-0.24 listed architectures of
    generate models (0.22-0.23 unquantized dense only); 0.25-0.28 generate models that are not hybrid and not MoE (or
    listed); 0.29+ every model. In each, a speculative method model runner v2 lacks keeps v1 (rules row
    mrv2_v1_spec_methods: n-gram to 0.31, suffix, a draft model to 0.30).

    VLLM_USE_V2_MODEL_RUNNER (rules row mrv2_env): not read before 0.12; 0.12-0.21 =1 builds model runner v2
    (v1/worker/gpu_worker.py Worker.__init__), =0 is the default; from 0.22 VllmConfig.use_v2_model_runner returns a
    set value before every default check, so =1 forces v2 and =0 forces v1 (features the forced runner lacks are
    refused: check_model_runner_env). kvplan keeps a pooling model on v1's terms either way (v2's pooling runner is
    not modelled)."""
    default, why = _default_model_runner(model, args, rules)
    forced = mrv2_env_value(args, rules)
    if forced is None:
        return default, why
    runner = "v2" if forced else "v1"
    setting = f"{MRV2_ENV}={args.env_value(MRV2_ENV)}"
    if args.runner_type == "pooling" or model.is_pooling:
        return "v1", f"{setting}; a pooling model: kvplan plans model runner v1's terms (v2's pooling runner is not modelled)"
    if rules.mrv2_env == "opt_in":
        return runner, (f"{setting}: vLLM {rules.version} builds its experimental model runner v2 (opt-in until 0.22; "
                        "kvplan charges v2's terms as read in the 0.22+ wheels)" if forced
                        else f"{setting}, vLLM {rules.version}'s default")
    if runner == default:
        return runner, f"{setting}, as unset would ({why})"
    return runner, f"{setting} (unset, vLLM {rules.version} would run {default}: {why})"


def model_runner(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> str:
    """"v1" or "v2": the GPU model runner vLLM builds for this deployment (model_runner_choice)."""
    return model_runner_choice(model, args, rules)[0]


def check_model_runner_env(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> None:
    """InputError where VLLM_USE_V2_MODEL_RUNNER=1 forces model runner v2 on a deployment vLLM refuses it for
    (VllmConfig._validate_v2_model_runner, config/vllm.py, from 0.20; "VLLM_USE_V2_MODEL_RUNNER does not yet
    support: ..." in 0.20-0.22, "Model Runner V2 does not yet support: ..." from 0.23): a speculative method it lacks
    (0.20-0.21 anything but eagle, eagle3 and mtp, read in the 0.20.0 and 0.21.0 wheels; then rules row
    mrv2_v1_spec_methods) and hybrid/mamba models (has_inner_state, 0.20-0.23; 0.24 only with mamba_cache_mode
    align, gone in 0.25: 0.24.0 and 0.25.1 wheels)."""
    if not mrv2_env_value(args, rules) or args.runner_type == "pooling" or model.is_pooling:
        return
    if rules.mrv2_forced_refusals == "none":  # rules rows mrv2_forced_refusals, mrv2_refusal_*
        return
    unsupported = []
    spec = args.speculative
    if spec:
        method = "mtp" if spec[0] == "mtp" else _speculative_method(speculative_object(args.speculative_config))
        if rules.mrv2_forced_refusals == "listed":
            lacks = method in rules.mrv2_v1_spec_methods
        else:  # 0.20-0.21: every method but these
            lacks = method not in ("eagle", "eagle3", "mtp")
        if lacks:
            unsupported.append("ngram/ngram_gpu speculative decoding" if method == "ngram" and rules.mrv2_refusal_ngram_gpu
                               else f"speculative method '{method}'")
    if rules.mrv2_refuses_hybrid and any(l.kind == "recurrent" for l in model.layers):
        unsupported.append("hybrid/mamba models")
    if unsupported:
        prefix = rules.mrv2_refusal_prefix
        raise InputError(f"--env {MRV2_ENV}", f"vLLM {rules.version} refuses it: ValueError: {prefix} does not yet "
                         f"support: {', '.join(unsupported)}", f"unset {MRV2_ENV} (or =0), or drop what model runner v2 lacks")


def _step8_grid(top: int) -> list[int]:
    """0.8-0.11.0's grid (V1's SchedulerConfig.cuda_graph_sizes of one value N): 1, 2, 4 and the multiples of 8 up to
    `top`."""
    return [1, 2, 4] + list(range(8, top + 1, 8))


def _size_grid(largest: int) -> list[int]:
    """vLLM's default grid: 1, 2, 4, multiples of 8 below 256, multiples of 16 from 256, up to `largest`."""
    return [s for s in [1, 2, 4] + list(range(8, 256, 8)) + list(range(256, largest + 1, 16)) if s <= largest]


def cudagraph_capture_sizes(max_num_seqs: int, max_tokens: int, *, num_speculative_tokens: int = 0,
                            rules: VersionRules | None = None, gpu: GPUSpec | None = None) -> list[int]:
    """vLLM's default CUDA-graph capture sizes before any speculative-decoding rounding (vllm/config/vllm.py
    VllmConfig._set_cudagraph_sizes, section 1.5). Without `rules`: the grid up to min(2 x max_num_seqs, 512,
    max_num_batched_tokens) that every release shares without speculative decoding. With them, the release's rows
    (versions.py cudagraph_max_size_spec_query, cudagraph_max_size_cc10, cudagraph_capture_max_tokens,
    cudagraph_uniform_decode_sizes): the decode query length q = 1 + num_speculative_tokens widens the largest size to
    2 x max_num_seqs x q (0.13.0 on), a compute-capability-10.x GPU raises the 512 ceiling to 1024 (0.28.0 on),
    max_num_batched_tokens is appended when within the largest size (0.21.0 on), and the uniform decode sizes n x q
    (0.29.0 on; max_num_seqs itself without speculative decoding, 0.31.0 on)."""
    if rules is None:
        return _size_grid(min(max_num_seqs * 2, 512, max_tokens))
    if rules.engine == "v0":  # one FULL graph per batch size up to max_num_seqs padded (versions.py cudagraph_size_grid)
        possible = [1, 2, 4] + [8 * i for i in range(1, 1025)]
        top = next((s for s in possible if s >= max_num_seqs), possible[-1])
        return [s for s in possible if s <= top]
    if rules.cudagraph_size_grid != "grid":  # 0.8-0.11.0: every multiple of 8, within max_num_batched_tokens
        top = 512 if rules.cudagraph_size_grid == "step8_512" else min(max_num_seqs * 2, 512)
        return [s for s in _step8_grid(top) if s <= max_tokens]
    q = 1 + num_speculative_tokens if rules.cudagraph_max_size_spec_query else 1
    cc10 = gpu is not None and gpu.vendor == "NVIDIA" and bool(gpu.cc) and gpu.cc[0] == 10
    ceiling = rules.cudagraph_max_size_cc10 if cc10 else 512
    base = min(max_num_seqs * q * 2, ceiling)
    largest = min(max_tokens, base)
    sizes = _size_grid(largest)
    if rules.cudagraph_capture_max_tokens and max_tokens <= largest:
        sizes.append(max_tokens)
    if rules.cudagraph_uniform_decode_sizes != "none":
        decode: list[int] = []
        if q > 1:
            reqs = min(max_num_seqs, ceiling)
            decode = [n * q for n in set(_size_grid(reqs) + [reqs]) if n * q <= base]
        elif rules.cudagraph_uniform_decode_sizes == "spec_and_seqs" and max_num_seqs <= base:
            decode = [max_num_seqs]
        sizes += [d for d in decode if d <= max_tokens]
    return sorted(set(sizes))


def _capture_settings(args: EngineArgs, rules: VersionRules) -> tuple[tuple[int, ...] | None, int | None, tuple[str, str]]:
    """(the capture sizes given, the largest size given, the names they were given by): the flags, else the same
    fields of --compilation-config, which the flags only fill in (vllm/engine/arg_utils.py create_engine_config,
    0.11.1-0.33.0: each flag copied into CompilationConfig, refused with "... are mutually exclusive" where the JSON
    sets the field too). --compilation-config's fields are read from 0.11.1, the first release whose CompilationConfig
    has max_cudagraph_capture_size and filters a given list at max_num_batched_tokens (rules row cudagraph_size_grid
    "grid"); before it kvplan keeps the release's default sizes."""
    comp = compilation_object(args.compilation_config) if rules.cudagraph_size_grid == "grid" else {}
    sizes, top = args.capture_sizes_given, args.max_cudagraph_capture_size
    names = ["--cudagraph-capture-sizes", "--max-cudagraph-capture-size"]
    old = args.cuda_graph_sizes_given
    if old is not None and rules.cudagraph_size_grid == "grid":
        # 0.11.1-0.12.x: --cuda-graph-sizes is CompilationConfig.cudagraph_capture_sizes' deprecated alias, copied into
        # it first (vllm/engine/arg_utils.py EngineArgs.create_engine_config, 0.11.1 and 0.12.0 wheels: "cuda_graph_sizes
        # and compilation_config.cudagraph_capture_sizes are mutually exclusive" beside the JSON's field, then
        # "cudagraph_capture_sizes and compilation_config.cudagraph_capture_sizes ..." beside --cudagraph-capture-sizes),
        # so one value N is the one size N, not a grid
        if comp.get("cudagraph_capture_sizes") is not None or sizes is not None:
            first = "cuda_graph_sizes" if comp.get("cudagraph_capture_sizes") is not None else "cudagraph_capture_sizes"
            raise RefusedByVLLMError("--cuda-graph-sizes", f"{first} and compilation_config.cudagraph_capture_sizes are "
                                     "mutually exclusive", "give one of --cuda-graph-sizes, --cudagraph-capture-sizes and "
                                     "--compilation-config's cudagraph_capture_sizes",
                                     rule="capture-size flag and --compilation-config")
        sizes, names[0] = old, "--cuda-graph-sizes"
    for i, (key, flag_value) in enumerate((("cudagraph_capture_sizes", sizes), ("max_cudagraph_capture_size", top))):
        if comp.get(key) is None:
            continue
        if flag_value is not None:
            raise RefusedByVLLMError(names[i], f"{key} and compilation_config.{key} are mutually exclusive",
                                     f"give {names[i]} or --compilation-config's {key}, not both",
                                     rule="capture-size flag and --compilation-config")
        names[i] = f"--compilation-config {key}"
        if key == "cudagraph_capture_sizes":
            try:
                sizes = parse_capture_sizes(comp[key])
            except InputError as exc:
                raise InputError("--compilation-config", f"cudagraph_capture_sizes: {exc.message}", exc.fix) from None
        else:
            v = comp[key]
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise InputError("--compilation-config", f"max_cudagraph_capture_size must be a positive whole number, "
                                 f"got {v!r}", 'e.g. {"max_cudagraph_capture_size": 64}')
            top = v
    return sizes, top, (names[0], names[1])


def given_capture_sizes(args: EngineArgs, rules: VersionRules) -> tuple[list[int], str] | None:
    """The capture sizes vLLM takes from --cudagraph-capture-sizes / --max-cudagraph-capture-size (0.11.1 on), before
    any speculative-decoding rounding, and what they came from; None where neither is given (the release's default,
    cudagraph_capture_sizes). As config/vllm.py VllmConfig._set_cudagraph_sizes does it (0.11.1, 0.13.0, 0.21.0,
    0.25.1, 0.29.0, 0.33.0 wheels read):
    - a given list is deduplicated, sorted, and every size above max_num_batched_tokens dropped (with a warning);
      nothing else caps it: not max_num_seqs, not the 512 ceiling, and nothing is added to it (neither
      max_num_batched_tokens nor the uniform decode sizes, which only the default gets);
    - a given largest size alone is capped at max_num_batched_tokens ("Truncating max_cudagraph_capture_size") and
      builds the default grid up to it (1, 2, 4, multiples of 8 below 256, of 16 from 256), with
      max_num_batched_tokens appended where within it (0.21.0 on, rules row cudagraph_capture_max_tokens); it is
      not scaled by the decode query length, and no uniform decode sizes are added (0.29.0 on: only for the default);
    - both given: the largest kept size must equal the given largest, else vLLM raises "customized
      max_cudagraph_capture_size(=N) should be consistent with the max value of cudagraph_capture_sizes(=M)"."""
    if rules.cudagraph_size_grid != "grid":
        whole = _compilation_sizes_before_grid(args, rules)
        if whole is not None:
            return whole
        if args.cuda_graph_sizes_given is not None:
            return _cuda_graph_sizes(args, rules)
    given, top, via = _capture_settings(args, rules)
    if given is None and top is None:
        return None
    mnbt = int(args.max_num_batched_tokens)
    if given is not None:
        sizes = sorted({s for s in given if s <= mnbt})
        valid = sizes[-1] if sizes else 0
        dropped = sorted({s for s in given if s > mnbt})
        if top is not None and top != valid:
            raise RefusedByVLLMError(
                "--max-cudagraph-capture-size",
                f"customized max_cudagraph_capture_size(={top}) should be consistent with the max value of "
                f"cudagraph_capture_sizes(={valid})",
                "give only one of --cudagraph-capture-sizes and --max-cudagraph-capture-size, or a largest size equal "
                f"to the largest capture size within max_num_batched_tokens {mnbt:,}",
                rule="max_cudagraph_capture_size and cudagraph_capture_sizes")
        source = via[0] + (f" with {via[1]}" if top is not None else "")
        if dropped:
            source += (f"; {', '.join(map(str, dropped))} dropped, above max_num_batched_tokens {mnbt:,} (vLLM warns "
                       "'cudagraph_capture_sizes specified in compilation_config ... is overridden by config')")
        return sizes, source
    largest = min(mnbt, top)
    sizes = _size_grid(largest)
    if rules.cudagraph_capture_max_tokens and mnbt <= largest:
        sizes.append(mnbt)
    sizes = sorted(set(sizes))
    source = f"{via[1]} {top}: vLLM's grid up to it"
    if sizes and sizes[-1] != top:
        source += (f", truncated to {sizes[-1]:,} (max_num_batched_tokens {mnbt:,}; vLLM warns 'Truncating "
                   "max_cudagraph_capture_size')" if top > mnbt else f", whose largest size is {sizes[-1]:,}")
    return sizes, source


def _compilation_sizes_before_grid(args: EngineArgs, rules: VersionRules) -> tuple[list[int], str] | None:
    """--compilation-config's cudagraph_capture_sizes before 0.11.1 (rules row compilation_capture_sizes_whole): the
    list itself, each size once, in place of the engine's own sizes and of --cuda-graph-sizes', not capped; None where
    the JSON gives none. Before 0.6.6 (no release read with the field) the release's default sizes, said so."""
    given = compilation_object(args.compilation_config).get("cudagraph_capture_sizes")
    if given is None:
        return None
    if not rules.compilation_capture_sizes_whole:
        return (cudagraph_capture_sizes(args.max_num_seqs, args.max_num_batched_tokens, rules=rules),
                f"default (--compilation-config's cudagraph_capture_sizes is not read for vLLM {rules.version}: the "
                "oldest release kvplan read with the field is 0.6.6)")
    try:
        sizes = parse_capture_sizes(given)
    except InputError as exc:
        raise InputError("--compilation-config", f"cudagraph_capture_sizes: {exc.message}", exc.fix) from None
    source = "--compilation-config cudagraph_capture_sizes (kept whole before vLLM 0.11.1"
    if args.cuda_graph_sizes_given is not None:
        source += "; it overrides --cuda-graph-sizes"
    return sorted(set(sizes)), source + ")"


def _cuda_graph_sizes(args: EngineArgs, rules: VersionRules) -> tuple[list[int], str]:
    """--cuda-graph-sizes before 0.11.1 (SchedulerConfig.cuda_graph_sizes, read by VllmConfig._set_cudagraph_sizes'
    V1 branch: vllm/config.py 0.9.0.1 and 0.10.0, vllm/config/__init__.py 0.11.0 wheels): one value N captures 1, 2, 4
    and the multiples of 8 up to N, several values are the sizes, sorted; either way only the sizes within
    max_num_batched_tokens are kept (no max_num_seqs, no 512 ceiling). The V0 engine's branch does not read it (its
    sizes follow max_num_seqs): the release's default there, said so. vLLM sorts a list without deduplicating it;
    kvplan counts each size once."""
    if rules.engine == "v0":
        return (cudagraph_capture_sizes(args.max_num_seqs, args.max_num_batched_tokens, rules=rules),
                "default (the V0 engine's sizes follow max_num_seqs; it does not read --cuda-graph-sizes)")
    given = args.cuda_graph_sizes_given
    mnbt = int(args.max_num_batched_tokens)
    if len(given) == 1:
        grid = _step8_grid(given[0])
        source = f"--cuda-graph-sizes {given[0]}: vLLM's sizes 1, 2, 4 and the multiples of 8 up to it"
    else:
        grid, source = list(given), "--cuda-graph-sizes"
    sizes = sorted({s for s in grid if s <= mnbt})
    dropped = sorted({s for s in grid if s > mnbt})
    if dropped:
        source += f"; {len(dropped)} size(s) above max_num_batched_tokens {mnbt:,} dropped"
    return sizes, source


def round_sizes_for_spec_decode(sizes: Iterable[int], q: int) -> list[int]:
    """vLLM's rounding of the capture sizes to multiples of the decode query length q (compilation.py
    CompilationConfig.adjust_cudagraph_sizes_for_spec_decode, 0.11.1-0.33.0 wheels): each size rounded up, kept while
    within the largest size, deduplicated; q itself when none is kept but q fits. Empty where vLLM raises "No valid
    cudagraph sizes after rounding" (q above the largest size)."""
    sizes = list(sizes)
    if q <= 1 or not sizes:
        return sizes
    largest = max(sizes)
    rounded = sorted({cdiv(s, q) * q for s in sizes if cdiv(s, q) * q <= largest})
    return rounded or ([q] if q <= largest else [])


def _spec_rounded_sizes(sizes: list[int], q: int, tp: int, rules: VersionRules) -> tuple[list[int], int]:
    """The capture sizes after the speculative-decoding rounding, and the multiple they were rounded to (1: kept
    unrounded), as the release does it (rows cudagraph_spec_round_with_tp, cudagraph_spec_round_none_kept); a
    RefusedByVLLMError with vLLM's ValueError where it refuses (compilation.py adjust_cudagraph_sizes_for_spec_decode)."""
    multiple = q
    if rules.cudagraph_spec_round_with_tp and tp > 1:
        multiple = max(q, tp)
        if multiple % q or multiple % tp:
            raise RefusedByVLLMError(
                "--speculative-config",
                f"Can't determine cudagraph shapes that are both a multiple of {q} (num_speculative_tokens + 1) required "
                f"by spec-decode and {tp} (tensor_parallel_size) required by sequence parallelism please adjust "
                "num_speculative_tokens or disable sequence parallelism",
                f"vLLM {rules.version} rounds the CUDA-graph sizes to a multiple of both at any TP > 1 (0.12.0 on: only "
                f"with sequence parallelism): give num_speculative_tokens so that 1 + it divides {tp} or is a multiple "
                "of it, use vLLM 0.12.0 or newer, or --enforce-eager", rule="spec-decode capture sizes and TP")
    rounded = round_sizes_for_spec_decode(sizes, multiple)
    if rounded:
        return rounded, multiple
    if rules.cudagraph_spec_round_none_kept == "keep":  # 0.11.1-0.11.2: a warning, the sizes stay as they were
        return list(sizes), 1
    sp = " or tp if sequence parallelism is enabled" if rules.cudagraph_spec_round_none_kept == "raise" else ""
    largest = max(sizes) if sizes else 0
    raise RefusedByVLLMError(
        "--speculative-config",
        f"No valid cudagraph sizes after rounding to multiple of {multiple} (num_speculative_tokens + 1{sp}) please "
        f"adjust num_speculative_tokens ({q - 1}) or max_cudagraph_capture_size ({largest}) or cudagraph_capture_sizes "
        f"({sorted(sizes)})",
        f"the largest capture size, {largest} (2 x max_num_seqs, 512 or max_num_batched_tokens at most), is below "
        f"1 + num_speculative_tokens = {q}: raise --max-num-seqs, lower num_speculative_tokens, or --enforce-eager",
        rule="spec-decode capture sizes after rounding")


_FULL_DECODE_MODES = ("FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")


@dataclass(frozen=True)
class CudaGraphPlan:
    """The CUDA graphs vLLM captures at startup, per rank: the effective cudagraph_mode, the capture sizes (after the
    speculative-decoding rounding where it applies) and the drafter's own PIECEWISE graphs."""

    mode: str | None                   # effective cudagraph_mode (None: no graphs, or V0, which has no mode)
    sizes: tuple[int, ...]             # the capture sizes the target's graphs are captured at
    rounded_to: int                    # the multiple the sizes were rounded to (1: not rounded)
    drafter_layers: int = 0            # decoder layers of the drafter (MTP layers, an EAGLE head, a draft model)
    drafter_graphs: int = 0            # the drafter's PIECEWISE graphs (one per capture size)
    mode_note: str = ""                # why the mode differs from the requested/default one
    source: str = "default"            # where the sizes came from: "default" (the release's own list) or the flags

    @property
    def largest(self) -> int:
        return max(self.sizes) if self.sizes else 0

    def to_dict(self) -> dict:
        return {"mode": self.mode, "capture_sizes": list(self.sizes), "num_capture_sizes": len(self.sizes),
                "largest": self.largest, "rounded_to_multiple_of": self.rounded_to,
                "drafter_layers": self.drafter_layers, "drafter_graphs": self.drafter_graphs,
                "drafter_shares_graph_pool": bool(self.drafter_graphs), "capture_sizes_source": self.source}


def _drafter_decoder_layers(model: ModelSpec, args: EngineArgs) -> int:
    """Decoder layers of the speculative drafter's model (0 for n-gram drafting, which has none)."""
    spec = args.speculative
    if not spec or spec[0] == "ngram":
        return 0
    if spec[0] == "mtp":
        return model.mtp_layers
    return args.draft.num_layers if args.draft is not None else 0


# V1 compiles the model with torch.compile unless --enforce-eager, and the memory profile's run is the model's first
# forward, where the graphs are compiled or loaded from vLLM's compile cache (vllm/compilation/decorators.py,
# v1/worker/gpu_worker.py determine_available_memory): a compiling start counts the compiler's scratch. Two public starts
# of one command, cold then warm: Qwen2.5-Coder-7B RTX 4090 0.23.0, 6.06 -> 6.84 GiB (StellaLee/vllm-experiment
# findings/chunk_20260706_093754 server_dynchunk0/1.log; kvplan 6.69, -2.2 % of the warm); Qwen2.5-7B RTX 5090 0.29.0,
# 11.17 -> 12.91 GiB, +0.98 GiB consumed and +0.76 GiB peak cold (wrbooth/vllm-serve-bench raw/engine-logs
# 2026-09-27-7b-baseline.log and -rerun.log; kvplan +1.1 % of the warm); vLLM issue #54383 (0.28) about 5 %.
# The most KV pool a cold first start (Inductor compiling inside the memory profile) has logged below the warm restart of
# the same command on a discrete GPU: 0.78 GiB (RTX 4090, 0.23.0), 0.99 and 1.05 GiB (RTX 4090, 0.27.1) and 1.74 GiB
# (RTX 5090, 0.29.0) in the public pairs listed at reconcile.py COLD_COMPILE_GAP_GIB and tests/data/SOURCES-logs.md.
# The largest of them, not a fit: what a release without the rule cold_compile_embedding_copy is warned with
# (cold_start_pool_loss_bytes gives the mechanism's bytes where the rule holds).
COLD_START_POOL_LOSS_BYTES = int(1.74 * GIB)


@dataclass(frozen=True)
class ColdStartLoss:
    """How much less KV pool a compiling (cold) first start gets than the warm restart a plan describes, per rank:
    at least `least`, at most `most`; `embedding_copy` is the random embedding table Inductor allocates (0: none)."""

    least: int
    most: int
    embedding_copy: int
    formula: str
    modelled: bool  # False: the release has no rule; `most` is the public pairs' largest (COLD_START_POOL_LOSS_BYTES)

    def to_dict(self, warm_pool: float) -> dict:
        return {"kv_cache_bytes_least": max(0.0, warm_pool - self.most), "kv_cache_bytes_most": max(0.0, warm_pool - self.least),
                "loss_bytes_least": self.least, "loss_bytes_most": self.most, "embedding_copy_bytes": self.embedding_copy,
                "formula": self.formula, "modelled": self.modelled}


def cold_start_pool_loss_bytes(model: ModelSpec, args: EngineArgs, rules: VersionRules, activation_peak: int) -> ColdStartLoss:
    """What a compiling start costs the pool against a warm one (args resolved; activation_peak the plan's term).

    Where the rule cold_compile_embedding_copy holds (vLLM 0.11.1+), Inductor's combo-kernel benchmark runs while the
    first forward compiles, inside the memory profile, on rand_strided copies of each benchmarked kernel's buffers
    (torch 2.13 _inductor/codegen/triton.py benchmark_codegened_module, codegen_kernel_benchmark get_args): the
    embedding gather's, a padded_vocab / TP x hidden table in the activation dtype (VocabParallelEmbedding's shard),
    and its max_num_batched_tokens x hidden output. The allocator's peak takes that copy where it passes the forward's
    own peak: `least` = copy + output - activation peak (at least 0). Freed, the copy's segment can stay reserved
    (empty_cache releases only whole free segments, and a later allocation the profile keeps may be carved from it),
    and then the consumed memory (v1/worker/gpu_worker.py determine_available_memory, utils/mem_utils.py
    memory_profiling: free memory before creation minus after profiling) holds it once more: `most` = least + copy.
    Public cold/warm pairs: Qwen3-8B RTX 4090 0.27.1 0.99 GiB (least 1.00: peak 0.19 -> 1.18, non-torch unchanged),
    Qwen2.5-Coder-7B RTX 4090 0.23.0 0.78 (least 0.79), Qwen3-1.7B RTX 4090 0.27.1 1.05 (most 1.08: +0.50 peak, +0.56
    non-torch), Qwen2.5-7B RTX 5090 0.29.0 1.74 (most 1.80: +0.76 peak, +0.98 consumed). A multimodal model's profile
    passes inputs_embeds (gpu_model_runner.py _dummy_run / _prepare_mm_inputs, 0.27.1): no gather is compiled, no copy.
    Where the rule does not hold, 0 to COLD_START_POOL_LOSS_BYTES (the pairs' largest)."""
    if not rules.cold_compile_embedding_copy:
        return ColdStartLoss(0, COLD_START_POOL_LOSS_BYTES, 0, f"vLLM {rules.version}: no mechanism read; up to the public "
                             "cold/warm pairs' largest (RTX 4090 and 5090, vLLM 0.23-0.29)", False)
    inductor = compilation_object(args.compilation_config).get("inductor_compile_config")
    inductor = inductor if isinstance(inductor, dict) else {}
    # vLLM sets both only where neither is given (config/compilation.py __post_init__); Inductor's defaults are off
    given = "combo_kernels" in inductor or "benchmark_combo_kernel" in inductor
    if given and not (inductor.get("combo_kernels") and inductor.get("benchmark_combo_kernel")):
        return ColdStartLoss(0, 0, 0, "inductor_compile_config leaves Inductor's combo-kernel benchmark off: no random "
                             "copies in the profile", True)
    if model.is_multimodal and not _mm_limits_all_off(model, args):
        return ColdStartLoss(0, 0, 0, "a multimodal model's profile passes inputs_embeds: the embedding table is not "
                             "in the compiled graph, so no copy of it is benchmarked", True)
    width = DTYPE_BYTES.get(args.dtype, 2)
    tp = max(1, args.tensor_parallel_size or 1)
    copy = padded_vocab(model) // tp * model.hidden_size * width
    out = (args.max_num_batched_tokens or 0) * model.hidden_size * width
    least = max(0, copy + out - int(activation_peak))
    return ColdStartLoss(least, least + copy, copy,
                         f"a random copy of the embedding table, {padded_vocab(model):,}{f' / {tp}' if tp > 1 else ''} x "
                         f"{model.hidden_size:,} x {width} B = {copy / GIB:.2f} GiB, and its {args.max_num_batched_tokens:,}-token "
                         f"output ({out / GIB:.2f} GiB) in Inductor's combo-kernel benchmark: {least / GIB:.2f} GiB above the "
                         f"{activation_peak / GIB:.2f} GiB activation peak, {(least + copy) / GIB:.2f} GiB where the freed "
                         "copy's segment stays reserved", True)


def cold_start_margin_bytes(plan) -> int:
    """The most KV pool a plan's compiling first start loses (its first_start loss_bytes_most, per rank); the public
    pairs' largest (COLD_START_POOL_LOSS_BYTES) for a plan that carries none (V0, eager, a given pool)."""
    first = getattr(plan, "first_start", None)
    return int(first["loss_bytes_most"]) if isinstance(first, dict) and "loss_bytes_most" in first \
        else COLD_START_POOL_LOSS_BYTES


# how fit's cold-first-start warning begins, in both its forms (a given length, --max-model-len -1)
COLD_START_WARNING = "a first start compiles its torch.compile graphs inside the memory profile"
# where the margin comes from, as both forms of the warning say it where no mechanism is modelled for the release
_COLD_START_EVIDENCE = "(public cold/warm pairs, RTX 4090 and 5090, vLLM 0.23-0.29)"


def _cold_start_evidence(loss: ColdStartLoss) -> str:
    """Where a warning's cold-start margin comes from: the mechanism's bytes, or the public pairs' largest."""
    if not loss.modelled:
        return _COLD_START_EVIDENCE
    # where the forward's own peak covers the copy, 'no more peak' (it read '0.00 GiB more peak, up to ...')
    peak = (f"{loss.least / GIB:.2f} GiB more peak" if round(loss.least / GIB, 2) > 0
            else "no more peak than the forward's own")
    return (f"(Inductor's combo-kernel benchmark allocates a random copy of the {loss.embedding_copy / GIB:.2f} GiB "
            f"embedding table inside the profile: {peak}, up to {loss.most / GIB:.2f} GiB "
            "where the freed copy stays reserved; public cold/warm pairs, vLLM 0.23-0.29)")
# and how it begins where VLLM_DISABLE_COMPILE_CACHE=1 makes every start a first one
_KEEP_COMPILE_CACHE = "unset VLLM_DISABLE_COMPILE_CACHE (then only a first start compiles)"
EVERY_START_COLD_WARNING = "VLLM_DISABLE_COMPILE_CACHE=1: every start compiles its torch.compile graphs inside the memory profile"

# how the compile-cache assumption begins; compile_cache_note completes it with what a first start costs the plan
COMPILE_CACHE_NOTE = ("torch.compile: planned as a start that loads its compiled graphs from vLLM's compile cache "
                      "(VLLM_CACHE_ROOT)")


def compile_cache_note(loss: ColdStartLoss | None, given_pool: bool = False) -> str:
    """The compile-cache assumption with what a compiling first start costs this plan's pool (cold_start_pool_loss_bytes),
    or the public pairs' range where the release has no mechanism read. With a given pool (--kv-cache-memory-bytes)
    vLLM still runs the profile run, which compiles, but returns the given bytes without measuring memory
    (v1/worker/gpu_worker.py Worker.determine_available_memory, 0.11+: 'still need a profile run which compiles the
    model', then 'skipped memory profiling'): a first start gets the same pool."""
    if given_pool:
        return (f"{COMPILE_CACHE_NOTE}; a first start compiles them in its profile run, but the KV pool is the one "
                "--kv-cache-memory-bytes gives (vLLM skips the memory profile), so a first start gets the same pool; "
                "keep the cache on a persistent volume for faster restarts")
    if loss is None or not loss.modelled:
        # the top as the warning, preflight, serve.sh and first_start in --json give it (COLD_START_POOL_LOSS_BYTES);
        # it read '0.8-1.7 GiB' beside their 1.74
        cost = (f"has logged up to {COLD_START_POOL_LOSS_BYTES / GIB:.2f} GiB less KV pool (public cold/warm pairs, "
                "0.78-1.74 GiB: RTX 4090 0.23.0 and 0.27.1, RTX 5090 0.29.0)")
    elif loss.most <= 0:
        cost = f"costs the pool nothing kvplan has read ({loss.formula})"
    else:
        cost = (f"leaves {loss.least / GIB:.2f}-{loss.most / GIB:.2f} GiB less KV pool here (kv_cache (first start) in "
                "--explain, first_start in --json)")
    return f"{COMPILE_CACHE_NOTE}; a first start compiles them inside the memory profile and {cost}; keep the cache on a persistent volume"


def block_size_backend(model: ModelSpec, gpu: GPUSpec, block_size: int | None, resolved: EngineArgs,
                       rules: VersionRules) -> tuple[str | None, str | None]:
    """What a given --block-size off the standard kernels' multiple (rules attention_block_multiple) does on NVIDIA's V1
    attention backends: (vLLM's refusal, None) where no backend takes it, (None, a warning) where it runs on
    FlexAttention, (None, None) otherwise. MLA backends have sizes of their own, and a recurrent hybrid's attention
    block size is vLLM's, not the flag's."""
    multiple = rules.attention_block_multiple
    if not (block_size and multiple and block_size % multiple and rules.engine == "v1" and not model.uses_mla
            and "recurrent" not in model.cache_kinds and gpu.vendor.upper() != "AMD"):
        return None, None
    # FlexAttention, last in the list, refuses the block size too from 0.21 (versions.py
    # flex_attention_block_multiple), and an fp8 KV cache from 0.16 (flex_attention_kv_dtypes): then vLLM's
    # backend selection finds none and stops (kvplan's wording of its reasons, not its AttentionSelectorConfig repr;
    # validate_configuration lists the dtype before the block size)
    flex_dtypes, flex_multiple = rules.flex_attention_kv_dtypes, rules.flex_attention_block_multiple
    flex_reasons = ((["kv_cache_dtype not supported"] if flex_dtypes and resolved.kv_cache_dtype not in flex_dtypes
                     else []) + (["block_size not supported"] if flex_multiple and block_size % flex_multiple else []))
    if flex_reasons:
        return (f"No valid attention backend found for cuda with block_size={block_size}, "
                f"kv_cache_dtype={resolved.kv_cache_dtype}. Reasons: FLASH_ATTN, FLASHINFER, TRITON_ATTN: "
                f"[block_size not supported]; FLEX_ATTENTION: [{', '.join(flex_reasons)}]."), None
    # the fallback is said for models FlexAttention serves alike; sliding-window models (gpt-oss's sinks, Gemma 2's
    # soft-capping) may find no backend instead, which kvplan has not read for every family: no claim there
    if model.is_hybrid:
        return None, None
    return None, (f"--block-size {block_size} is not a multiple of {multiple}, which FlashAttention, FlashInfer and "
                  "Triton attention need: vLLM falls back to FlexAttention, much slower (versions.py "
                  f"attention_block_multiple); {multiple}, 32 or 64 keep the fast kernels")


@dataclass(frozen=True)
class ColdStartOutcome:
    """A compiling start's pool, loss.most below the warm one planned, put through the plan's checks
    (_cold_start_outcome): the one reading _cold_start_warning words and Plan.first_start_refused carries."""

    fits: bool                    # the fit check (_fit_check) holds one max_model_len request in the colder pool
    estimated_max_model_len: int  # the longest length the colder pool holds (_fit_check's estimate; auto-fit's length)
    blocks: int                   # the colder pool's blocks
    state_refusal: str | None     # the state-block check's refusal of those blocks (a hybrid's), else None
    shorter: bool                 # --max-model-len -1 serves a shorter length instead of refusing the start
    refused: bool                 # the start is refused


def _cold_start_outcome(groups, available: float, bytes_per_block: int, resolved: EngineArgs, rules: VersionRules,
                        gpu: GPUSpec, auto_fit: bool, loss: ColdStartLoss) -> ColdStartOutcome:
    """A compiling start's pool, loss.most below the warm one planned (`available`), put through the same checks."""
    cold = available - loss.most
    cold_blocks = max(0, int(cold // bytes_per_block))
    cold_fits, _, cold_len = _fit_check(groups, cold, bytes_per_block, cold_blocks, resolved, rules)
    # a hybrid's colder pool also holds fewer state blocks: the state-block check (state_blocks_refusal) refuses a
    # first start whose blocks fall below max_num_seqs, at any length (auto-fit's shorter one included)
    cold_state = state_blocks_refusal(groups, cold_blocks, resolved, rules, gpu) if cold_fits else None
    # --max-model-len -1 sizes the length from the colder pool instead of refusing it, unless not even one block is
    # left or the state blocks fall short
    shorter = auto_fit and not cold_fits and cold_len > 0 and not cold_state
    refused = bool(not cold_fits or cold_state) and not shorter
    return ColdStartOutcome(fits=cold_fits, estimated_max_model_len=cold_len, blocks=cold_blocks,
                            state_refusal=cold_state, shorter=shorter, refused=refused)


class ColdStartWarning(str):
    """fit's cold-start warning (_cold_start_warning) as Plan.warnings holds it, a str, carrying what preflight's 'first
    start' / 'every start' check says of it as data, so that check reads none of its wording: `head`, the warning up to
    its advice (the check's message); `every_start`, whether every start compiles (VLLM_DISABLE_COMPILE_CACHE=1), not
    only the first; `changes_start`, whether the colder pool refuses the start or (auto-fit) serves a shorter length
    (ColdStartOutcome refused / shorter), not only a smaller pool."""

    def __new__(cls, head: str, rest: str, every_start: bool, changes_start: bool):
        self = super().__new__(cls, head + rest)
        self.head, self.every_start, self.changes_start = head, every_start, changes_start
        return self

    def __getnewargs__(self):  # copy, deepcopy (dataclasses.asdict: preflight --json's request) and pickle keep it whole
        return self.head, str(self)[len(self.head):], self.every_start, self.changes_start


def _cold_start_warning(resolved: EngineArgs, max_len: int, auto_fit: bool, loss: ColdStartLoss,
                        outcome: ColdStartOutcome) -> ColdStartWarning | None:
    """What a compiling start, with loss.most less pool than planned (cold_start_pool_loss_bytes), does to a plan that
    starts warm: a first start that may be refused (or, under --max-model-len -1, served a shorter length); under
    VLLM_DISABLE_COMPILE_CACHE=1 every start, said whether or not its colder pool still starts. None where nothing
    is to be said (a compiling start that costs the pool nothing included)."""
    if loss.most <= 0:
        return None
    margin = f"{loss.most / GIB:.2f} GiB less KV pool"
    evidence = _cold_start_evidence(loss)
    cold_head = f"{COLD_START_WARNING} and can get up to {margin} than the warm restart planned here {evidence}"
    changes_start = outcome.refused or outcome.shorter
    if resolved.env_on("VLLM_DISABLE_COMPILE_CACHE"):
        # vllm/compilation/backends.py: with the variable set no compiled graph is loaded or saved ("torch.compile
        # cache is disabled"), so the warm start planned here never happens
        head = (f"{EVERY_START_COLD_WARNING}, as a first start does, and such starts can get up to "
                f"{margin} than the warm start planned here {evidence}")
        return ColdStartWarning(
            head, (f"; vLLM's auto-fit (--max-model-len -1) would size max_model_len from that smaller pool on "
                   f"every start: about {outcome.estimated_max_model_len:,} tokens instead of the {max_len:,} planned "
                   f"here; leave that much more room (a higher --gpu-memory-utilization) or {_KEEP_COMPILE_CACHE}"
                   if outcome.shorter else
                   "; with that much less this pool would not start, so any start may be refused: leave that "
                   f"much more room (a higher --gpu-memory-utilization) or {_KEEP_COMPILE_CACHE}"
                   if outcome.refused else "; expect the pool below the plan on every start"), True, changes_start)
    if auto_fit and not outcome.fits:
        # --max-model-len -1: vLLM sizes the length from the pool the profile left (section 4, "Auto-fit"), so a
        # colder pool is a shorter length, not a refusal, unless not even one block is left
        shorter = (f"vLLM's auto-fit (--max-model-len -1) would size max_model_len from that smaller pool: about "
                   f"{outcome.estimated_max_model_len:,} tokens on the very first start instead of the {max_len:,} "
                   "planned here" if outcome.estimated_max_model_len > 0
                   else "vLLM's auto-fit (--max-model-len -1) would find no length at all and refuse the very first start")
        return ColdStartWarning(f"{cold_head}; {shorter}", ". The compile cache a start writes (VLLM_CACHE_ROOT, on a "
                                "persistent volume in kvplan scaffold's files) makes later starts warm, at the planned "
                                "length; a length given instead of -1 is the same on every start, but a first start "
                                "whose pool cannot hold it is refused", False, changes_start)
    if not outcome.fits:
        return ColdStartWarning(
            f"{cold_head}; with that much less this pool would not hold one {max_len:,}-token request, so the very "
            "first start may be refused", ". The compile cache a start writes (VLLM_CACHE_ROOT, on a persistent volume "
            "in kvplan scaffold's files; keyed on the model config, max_model_len included) makes later starts warm; "
            "for the first, leave that much more room (a higher --gpu-memory-utilization) or expect one retry",
            False, changes_start)
    if outcome.state_refusal:
        return ColdStartWarning(
            f"{cold_head}; with that much less this pool would hold {outcome.blocks:,} Mamba cache blocks, below "
            f"max_num_seqs ({resolved.max_num_seqs}), which vLLM's state-block check refuses, so the very first start "
            "may be refused", ". The compile cache a start writes (VLLM_CACHE_ROOT) makes later starts warm; for the "
            "first, leave that much more room (a higher --gpu-memory-utilization), give --max-num-seqs "
            f"{outcome.blocks} or less, or expect one retry", False, changes_start)
    return None


def inductor_compiles(args: EngineArgs) -> bool:
    """Whether a V1 start compiles the model with TorchInductor inside its memory profile (what a cold first start pays
    and vLLM's compile cache saves): not with --enforce-eager, nor with a --compilation-config mode (or level) NONE / 0,
    'No torch.compile compilation is applied' (config/compilation.py CompilationMode, 0.11+; level 0 NO_COMPILATION
    before), nor with the backend "eager", which 'turns off TorchInductor' (docs/design/debug_vllm_compile.md, 0.11+)."""
    if _eager_forward(args):  # --enforce-eager or mode NONE
        return False
    return str(compilation_object(args.compilation_config).get("backend") or "").strip().lower() != "eager"


def cudagraph_plan(model: ModelSpec, gpu: GPUSpec | None, args: EngineArgs, rules: VersionRules) -> CudaGraphPlan:
    """Which CUDA graphs vLLM captures: the effective mode (--compilation-config's, else the release's default,
    PIECEWISE for pooling models; speculative decoding downgrades FULL decode graphs to PIECEWISE where an attention
    backend lacks uniform multi-token decode graphs, _spec_decode_piecewise), the capture sizes
    (cudagraph_capture_sizes), rounded to multiples of 1 + num_speculative_tokens where the release does so for that
    mode and model runner (rows cudagraph_spec_round_modes / _runners), and the drafter's PIECEWISE graphs (row
    drafter_cuda_graphs; a draft_model drafter's from 0.26.0, row draft_model_cuda_graphs), one per capture size, while
    the mode's mixed part is PIECEWISE."""
    if not args.captures_cuda_graphs:
        return CudaGraphPlan(mode=None, sizes=(), rounded_to=1)
    spec = args.speculative
    k = spec[1] if spec else 0
    given = given_capture_sizes(args, rules)
    if given is not None:
        sizes, source = given
    else:
        sizes = cudagraph_capture_sizes(args.max_num_seqs, args.max_num_batched_tokens, num_speculative_tokens=k,
                                        rules=rules, gpu=gpu)
        source = "default"
    if not rules.is_v1:
        return CudaGraphPlan(mode=None, sizes=tuple(sizes), rounded_to=1, source=source)
    pooling = args.runner_type == "pooling" or model.is_pooling
    mode = args.cudagraph_mode or ("PIECEWISE" if pooling else rules.cudagraph_mode_default)
    note = ""
    if spec and mode in _FULL_DECODE_MODES:
        why = _spec_decode_piecewise({l.recurrent.kind for l in model.layers if l.recurrent}, args, rules, gpu)
        if why:
            mode, note = "PIECEWISE", f"with speculative decoding {why}, so vLLM downgrades the graphs to PIECEWISE"
    q, rounded_to = 1 + k, 1
    runner = model_runner(model, args, rules)
    # an empty list (every given size above max_num_batched_tokens) is left as it is: adjust_cudagraph_sizes_for_spec_decode
    # returns at once on no sizes (config/compilation.py, 0.11.1-0.33.0)
    if q > 1 and sizes and mode in rules.cudagraph_spec_round_modes and runner in rules.cudagraph_spec_round_runners:
        sizes, rounded_to = _spec_rounded_sizes(sizes, q, args.tensor_parallel_size, rules)
    layers = _drafter_decoder_layers(model, args)
    # model runner v2's speculators keep CUDA-graph managers of their own (v1/worker/gpu/spec_decode/*/speculator.py),
    # measured inside its profile_cudagraph_memory's one pool (v1/worker/gpu/cudagraph_utils.py, 0.33.0), which
    # kvplan's v2 estimate (measured_terms) does not split: their graphs are not counted here
    # a draft_model drafter captures none before 0.26.0: its dispatcher keys are never initialized (row
    # draft_model_cuda_graphs, v1/worker/gpu_model_runner.py _check_and_update_cudagraph_mode)
    drafter_captures = rules.drafter_cuda_graphs and (not spec or spec[0] != "draft_model"
                                                      or rules.draft_model_cuda_graphs)
    graphs = (len(sizes) if drafter_captures and layers and runner == "v1"
              and mode in ("PIECEWISE", "FULL_AND_PIECEWISE") else 0)
    return CudaGraphPlan(mode=mode, sizes=tuple(sizes), rounded_to=rounded_to, drafter_layers=layers,
                         drafter_graphs=graphs, mode_note=note, source=source)


@dataclass(frozen=True)
class TermFeatures:
    """The shapes the measured terms scale with (per rank); coefficients turn them into bytes."""

    forward_bytes: float        # dense MLP live set: T x dtype x (3 H + 3 I / TP), 4 H where dense_hidden_rows says
    moe_bytes: float            # fused-MoE caches: T x top-k x dtype x (3 I_e / TP + H)
    sampler_elements: float     # logits of the profile's sequences: S x V_pad
    tp_gt_1: bool
    graph_layer_sizes: float    # decoder layers x CUDA-graph capture sizes (0 with --enforce-eager), the drafter's
                                # layers x its PIECEWISE graphs included
    integrated_memory: bool     # GPU shares memory with the CPU (GB10, Jetson): free memory is the OS's
    t: int
    s: int
    v_pad: int
    n_layers: int
    n_sizes: int
    nvls: bool = False          # NCCL's NVLink SHARP buffers: Hopper-or-later GPUs on an NVSwitch, more than 2 TP ranks
    nvlink_tp: bool = False     # TP > 1 over NVLink on Hopper or later (cc 9.x/10.x)
    graphs: CudaGraphPlan | None = None  # the mode, capture sizes and drafter graphs behind n_sizes
    moe_workspace_bytes: float = 0.0  # the persistent fused-MoE workspace (rules moe_workspace_persistent), held under
                                      # the sampler too; moe_bytes is 0 where it is set
    hidden_rows: int = 3        # the T x H rows forward_bytes counts (dense_hidden_rows; 3 for MoE models)
    reduce_bytes: float = 0.0   # dense live set at down_proj's out-of-place all-reduce (allreduce_live_bytes; 0 where
                                # not counted): the forward's peak is the larger of it and forward_bytes
    moe_path: str = ""          # the quantized fused-MoE path (quantized_moe_experts' name) where it sets the terms

    @property
    def forward_peak_bytes(self) -> float:
        """The dense forward's peak live set: the MLP's at SiluAndMul or, where counted, at down_proj's all-reduce."""
        return max(self.forward_bytes, self.reduce_bytes)


def nvlink_tp_capable(gpu: GPUSpec) -> bool:
    """An NVIDIA GPU of compute capability 9.x/10.x whose tensor-parallel peers are on NVLink (bridged or switched)."""
    cc = gpu.cc or (0, 0)
    return gpu.vendor == "NVIDIA" and cc[0] in (9, 10) and bool(gpu.has_nvlink)


def nvls_capable(gpu: GPUSpec) -> bool:
    """Such a GPU on an NVLink switch (SXM/HGX boards, not PCIe or bridged cards), where NCCL turns NVLink SHARP on
    for communicators of more than 2 GPUs (vLLM issue #9699, measured on H100/H200)."""
    ic = str(gpu.interconnect or "").lower()
    return nvlink_tp_capable(gpu) and "bridge" not in ic and "c2c" not in ic.split(";")[0]


# FlashInfer's all-reduce + RMSNorm fusion workspace (versions.py fi_allreduce_fusion): the largest input the fused
# kernel takes, in MB per compute capability (major x 10 + minor) and TP size, as each table the pass reads
# (compilation/passes/fusion/allreduce_rms_fusion.py FI_ALLREDUCE_FUSION_MAX_SIZE_MB; config/compilation.py
# PassConfig.flashinfer_max_size: TP sizes outside the table build no workspace).
_FI_AR_MAX_MB_017 = {90: {2: 64, 4: 2, 8: 0.5}, 100: {2: 64, 4: 32, 8: 1}}
_FI_AR_MAX_MB_019 = {**_FI_AR_MAX_MB_017, 103: {2: 64, 4: 64, 8: 2}}
_FI_AR_MAX_MB_025 = {90: _FI_AR_MAX_MB_017[90], 100: {**_FI_AR_MAX_MB_017[100], 16: 64}, 103: {**_FI_AR_MAX_MB_019[103], 16: 64}}
_FI_AR_MAX_MB_027 = {**_FI_AR_MAX_MB_025, 107: {2: 64, 4: 64, 8: 2}}
FI_AR_FUSION_MAX_MB = {"0.17": _FI_AR_MAX_MB_017, "0.19": _FI_AR_MAX_MB_019, "0.25": _FI_AR_MAX_MB_025,
                       "0.27": _FI_AR_MAX_MB_027, "0.29": {**_FI_AR_MAX_MB_027, 103: {**_FI_AR_MAX_MB_025[103], 8: 4}}}
# The multicast granularity the driver recommends on Hopper/Blackwell NVSwitch systems, which flashinfer's
# SymmDeviceMemory rounds each buffer up to (flashinfer/comm/mnnvl.py _get_allocation_prop:
# cuMulticastGetGranularity(CU_MULTICAST_GRANULARITY_RECOMMENDED)): 512 MiB, as the workspace addresses logged in
# sgl-project/sglang PR #18341 (TP2, the same flashinfer allocator) show, each buffer 0x20000000 bytes past the last,
# the 2 MiB flag buffer included. The llm-d-planner 0.19.0 H100 sweep agrees (tests/data/extra_records.jsonl,
# the five beside calibration.py's workspace note): TP2/TP4 startups log 2.06-2.21 GiB of non-torch
# memory against 0.24-0.27 at TP1 and 0.54-0.55 at TP2 before 0.17, i.e. 1.4-1.6 GiB more, three such buffers.
FI_AR_MULTICAST_GRANULARITY = 512 * 1024 ** 2
_ALLOC_GRANULARITY = 2 * 1024 ** 2   # cuMemGetAllocationGranularity(RECOMMENDED) on these GPUs
_FI_AR_BARRIER_FLAGS = 256           # flashinfer/comm/trtllm_ar.py BarrierFlagCount
_FI_AR_MAX_COMM = 2147483647 & ~(_ALLOC_GRANULARITY - 1)  # trtllm_ar.py MAX_COMM_SIZE
_SIGNAL_PAD = 2048                   # mnnvl.py SIGNAL_PAD_SIZE (torch's symmetric memory keeps a pad of its own)


def _compiles(args: EngineArgs) -> bool:
    """Whether vLLM compiles the model with its own backend (and so builds its fusion passes): not with --enforce-eager
    (config/vllm.py sets the compilation mode NONE, 0.19.0) nor with a --compilation-config whose mode (or level) is
    other than VLLM_COMPILE (3): NONE (0), STOCK_TORCH_COMPILE (1) and DYNAMO_TRACE_ONCE (2) run no vLLM pass
    (config/vllm.py VllmConfig.__post_init__ 0.17.0, 0.19.1: 'optimizations settings that are only active during
    inductor compilation will be ignored'), nor with the backend "eager"."""
    if args.enforce_eager:
        return False
    cfg = compilation_object(args.compilation_config)
    mode = cfg.get("mode", cfg.get("level"))
    if mode is not None and str(mode).strip().upper() not in ("3", "VLLM_COMPILE", "PIECEWISE"):
        return False
    if str(cfg.get("backend") or "").strip().lower() == "eager":
        return False
    passes = cfg.get("pass_config")
    return not (isinstance(passes, dict) and passes.get("fuse_allreduce_rms") is False)


def fi_allreduce_workspace_bytes(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules) -> tuple[int, str]:
    """Per rank: the workspace of FlashInfer's all-reduce + RMSNorm fusion pass, allocated outside torch's allocator
    while the compile inside the profile run builds the pass, so vLLM counts it as non-torch memory (0 where the pass
    is off). With its text.

    The pass (compilation/passes/fusion/allreduce_rms_fusion.py AllReduceFusionPass.__init__, 0.19.0) sizes it for
    T = min(max size / (hidden x dtype bytes), max_num_batched_tokens) tokens and asks flashinfer for the 'trtllm'
    workspace (distributed/device_communicators/flashinfer_all_reduce.py get_fi_ar_workspace; the quantized patterns
    reuse it), three buffers per rank (flashinfer/comm/trtllm_ar.py trtllm_create_ipc_workspace_for_all_reduce_fusion):
    TP x T x hidden x 2 B, TP x 256 x 4 B of flags, and 3 Lamport buffers of TP x T x hidden x 2 B (4 B in float32),
    each rounded up to the multicast granularity (SymmDeviceMemory) or the allocation granularity (torch's symmetric
    memory), versions.py fi_allreduce_workspace_alloc. SymmDeviceMemory refuses a GPU without multicast support (no
    NVSwitch), and vLLM then runs without the fusion."""
    table = FI_AR_FUSION_MAX_MB.get(rules.fi_allreduce_fusion)
    tp = args.tensor_parallel_size
    cc = gpu.cc
    if not table or tp <= 1 or gpu.vendor != "NVIDIA" or cc is None or not _compiles(args):
        return 0, ""
    if not (cc == (9, 0) or (cc == (10, 0) if rules.fi_allreduce_fusion == "0.17" else cc[0] == 10)):
        return 0, ""
    if rules.fi_allreduce_fusion_pp_dp_1 and ((args.pipeline_parallel_size or 1) > 1 or (args.data_parallel_size or 1) > 1):
        return 0, ""
    max_mb = table.get(cc[0] * 10 + cc[1], {}).get(tp)
    multicast = rules.fi_allreduce_workspace_alloc == "multicast"
    if max_mb is None or (multicast and not nvls_capable(gpu)):
        return 0, ""
    db = DTYPE_BYTES[args.dtype]
    h = model.hidden_size
    t = min(int(max_mb * 1024 ** 2) // (h * db), args.max_num_batched_tokens)
    lamport_b = 4 if db == 4 else 2
    sizes = (tp * t * h * 2, tp * _FI_AR_BARRIER_FLAGS * 4, 3 * min(tp * t * h * lamport_b, _FI_AR_MAX_COMM))
    gran = FI_AR_MULTICAST_GRANULARITY if multicast else _ALLOC_GRANULARITY
    total = sum(-(-(s + _SIGNAL_PAD) // gran) * gran for s in sizes)
    how = (f"each rounded up to the {gran // 1024 ** 2} MiB multicast granularity" if multicast
           else "torch symmetric memory, 2 MiB granularity")
    return total, (f"FlashInfer all-reduce + RMSNorm fusion workspace (TP {tp}, T {t}: buffers of "
                   + ", ".join(f"{s / 1024 ** 2:.1f}" for s in sizes) + f" MiB, {how})")


def _profile_forward_eager(args: EngineArgs, rules: VersionRules) -> bool:
    """Whether the profile run's forward runs op by op in Python: V1 where _eager_forward says so; V0 unless a
    --compilation-config asks for a compilation level (V0 compiles nothing by default)."""
    if rules.is_v1:
        return _eager_forward(args)
    mode = _compilation_mode(args)
    return mode is None or mode in _NO_COMPILATION_MODES


def allreduce_live_bytes(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> int:
    """Per rank: the dense live set of an eager profile forward at down_proj's all-reduce, where TP > 1 and the
    all-reduce writes a new tensor (rules allreduce_out_of_place); 0 elsewhere.

    RowParallelLinear.forward (model_executor/layers/linear.py, read in the 0.6.5, 0.7.2 and 0.22.1 wheels; LoRA's
    RowParallelLinearWithLoRA the same, lora/layers/row_parallel_linear.py 0.22.1) keeps its GEMM output
    (output_parallel, T x H) referenced while tensor_model_parallel_all_reduce returns the reduced copy, so both are
    alive at once. Whichever path reduces it writes a new tensor (versions.py allreduce_out_of_place): the custom
    all-reduce (up to 8 MiB by default, custom_all_reduce.py CustomAllreduce.all_reduce: torch.empty_like, 0.6.5 and
    0.7.2 wheels) and pynccl past it (a T x H bfloat16 tensor is 80-640 MiB at T 8,192-32,768). Run eagerly, the
    caller's frames hold the three T x H rows of the live set (term_features) and the MLP's activation (I/TP), which
    down_proj is called with; Qwen2MLP also keeps gate_up (2 I/TP) under its own name (GATE_UP_HELD_MODEL_TYPES;
    models/qwen2.py Qwen2MLP.forward, 0.7.2 wheel too): T x dtype x (5 H + I/TP [+ 2 I/TP]). That passes the
    SiluAndMul point (3 H + 3 I/TP) for Qwen2-style MLPs at any TP > 1, for the others only where I/TP < H (LlamaMLP
    rebinds x, so gate_up is gone). The V0 Qwen2 TP 2 startups log it: Qwen2.5-14B, 0.7.2, T 32,768: 2.84 GiB (this
    term 2.83, the SiluAndMul point 2.20); Qwen2.5-32B, 0.7.1, T 10,000: 1.26 (1.25 / 1.06); DeepSeek-R1-Distill-
    Qwen-14B, 0.7.2, T 2,048: 0.19 (0.18 / 0.14). A compiled forward (Inductor frees the activation after its GEMM and
    the graph's own buffers differ) is not counted: its live set there is not read. At TP 1 (or an in-place all-reduce)
    the GEMM point beside a held gate_up, 4 H + 3 I/TP, is term_features' forward_bytes (dense_hidden_rows)."""
    if (model.is_moe or not model.intermediate_size or args.tensor_parallel_size <= 1
            or not rules.allreduce_out_of_place or not _profile_forward_eager(args, rules)):
        return 0
    inter = model.intermediate_size / args.tensor_parallel_size
    held = 2 * inter if model.model_type in GATE_UP_HELD_MODEL_TYPES else 0.0
    return int(args.max_num_batched_tokens * DTYPE_BYTES[args.dtype] * (5 * model.hidden_size + inter + held))


def dense_hidden_rows(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> int:
    """The T x H rows of the dense MLP's peak live set beside gate_up's output (2 I/TP) and the activation (I/TP)
    (term_features): 3, or 4 where an eager profile forward (_profile_forward_eager: V0, V1 with --enforce-eager or a
    compilation mode NONE) runs an MLP that keeps gate_up's output under its own name through down_proj
    (GATE_UP_HELD_MODEL_TYPES: Qwen2MLP.forward binds gate_up, then x = act_fn(gate_up), then down_proj(x),
    models/qwen2.py, read in the 0.6.4.post1, 0.7.2, 0.10.2, 0.17.0 and 0.29.0 wheels; qwen3.py imports it as
    Qwen3MLP): at down_proj's GEMM its T x H output is written while gate_up, the activation and the three rows are
    alive, 4 H + 3 I/TP, above the SiluAndMul point (3 H + 3 I/TP). LlamaMLP rebinds x, so gate_up is freed before
    down_proj (4 H + I/TP there, below SiluAndMul). Logged: Qwen2.5-14B on 0.7.2 at T 32,768 TP 1 3.79 GiB (4 H + 3 I:
    3.78, 3 H + 3 I: 3.47); Qwen3-8B on 0.29.0 eager 0.41 (0.406 / 0.38). A compiled forward frees gate_up after the
    activation (Inductor), not counted."""
    if model.model_type in GATE_UP_HELD_MODEL_TYPES and _profile_forward_eager(args, rules):
        return 4
    return 3


def term_features(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules) -> TermFeatures:
    tp = args.tensor_parallel_size
    db = DTYPE_BYTES[args.dtype]
    t = args.max_num_batched_tokens
    s = min(args.max_num_seqs, t) if rules.is_v1 else args.max_num_seqs
    h = model.hidden_size
    v_pad = padded_vocab(model)
    rows = 3  # the dense live set's T x H rows (dense_hidden_rows); MoE models count none of them
    moe_path = ""
    if model.is_moe:
        # fused-MoE caches are sized by the tokens the layer holds (fused_moe.py fused_experts_impl: M x top-k x width):
        # with DP > 1 the dispatch gathers every engine's batch (layer.py naive / all-gather dispatch), up to the
        # release's chunk (rules row fused_moe_chunk_tokens); expert parallelism holds whole experts, else they are
        # sliced over TP x DP (weights_per_rank)
        dp = args.data_parallel_size or 1
        m = t * dp
        if rules.fused_moe_chunk_tokens:
            m = min(m, rules.fused_moe_chunk_tokens)
        width = model.moe_intermediate_size if args.enable_expert_parallel else model.moe_intermediate_size / (tp * dp)
        fwd, moe = 0.0, m * model.num_experts_per_tok * db * (3 * width + h)
        workspace = moe_workspace_bytes(model, args, rules, t * dp, width) if rules.moe_workspace_persistent else 0.0
        quantized = quantized_moe_experts(model, gpu, args, rules, width)
        if quantized and quantized[0] in rules.moe_quant_workspace:
            workspace = float(modular_workspace_bytes(t * dp, rules.fused_moe_chunk_tokens, model.num_experts_per_tok,
                                                      quantized[1], quantized[2], DTYPE_BYTES[args.dtype]))
        if quantized and quantized[0] == "nvfp4_vllm_cutlass":
            # its workspace (persistent) and its own copies (transient) replace the generic fused-MoE cache term
            workspace, moe = cutlass_fp4_moe_bytes(t * dp, model.num_experts_per_tok, quantized[1], quantized[2], db)
            moe_path = quantized[0]
        elif workspace:
            moe = 0.0
    else:
        # the dense MLP's live set at SiluAndMul: gate_up's output (2 I / TP) and the activation's (I / TP) beside three
        # T x H tensors. Eager (V0, --enforce-eager): the residual (updated in place by fused_add_rms_norm,
        # _custom_ops.py / layers/layernorm.py RMSNorm.forward_cuda), the attention output that post_attention_layernorm
        # normalises in place and the decoder layer hands to self.mlp, and the layer's input, which
        # LlamaModel.forward's loop variable still holds while the layer runs (models/llama.py LlamaModel.forward /
        # LlamaDecoderLayer.forward, read in the 0.6.4.post1, 0.7.2 and 0.17.0 wheels; Qwen2's the same). Compiled
        # (V1): compilation/backends.py split_graph cuts the graph at the attention ops (torch.fx split_module, 0.10.2
        # and 0.17.0 wheels), so the piece that runs a layer's MLP takes the attention output and the residual as
        # inputs, which the split module's frame holds through the piece, and keeps the new residual (o_proj output +
        # residual, RMSNorm.forward_native) for the layer's last add. kvplan counted 2 H until stop 27; the logged
        # peaks of the forward-dominated startups sit one T x H above that (Llama-3.1-8B 0.6.4 at T 20,000 / 29,000: 2.07 /
        # 2.99 GiB logged, 3 H + 3 I 2.06 / 2.99). Not read in the source, so not counted: at 65,536-131,072 tokens the
        # logs show one T x H more again (Llama-3.1-8B on an H200 NVL MIG slice, vLLM 0.10.0, warm, ssaketh-ch/llama31b-benchmark
        # logs that are not records (tests/data/SOURCES-logs.md, Thirtieth round): 40.44 GiB at 65,536
        # and 33.19 at 131,072, T x 2 B x (4 H + 3 I) apart; the 0.9.2 ROCm V0 start at 131,072 logs 14.63 GiB), where
        # 0.17.1's 8,192- and 16,384-token starts are 3 H + 3 I apart
        if model.intermediate_size:
            rows = dense_hidden_rows(model, args, rules)
        fwd, moe, workspace = t * db * (rows * h + 3 * model.intermediate_size / tp), 0.0, 0.0
    graphs = cudagraph_plan(model, gpu, args, rules)
    n_sizes = len(graphs.sizes)
    n_layers = len([l for l in model.layers if l.kind != "none"])
    return TermFeatures(forward_bytes=fwd, moe_bytes=moe, moe_workspace_bytes=workspace, sampler_elements=0.0 if model.is_pooling else float(s * v_pad),
                        tp_gt_1=tp > 1, graph_layer_sizes=float(n_layers * n_sizes + graphs.drafter_layers * graphs.drafter_graphs),
                        graphs=graphs,
                        integrated_memory=(gpu.compute_capability in INTEGRATED_MEMORY_CC), t=t, s=s, v_pad=v_pad,
                        n_layers=n_layers, n_sizes=n_sizes, nvls=tp > 2 and nvls_capable(gpu),
                        nvlink_tp=tp > 1 and nvlink_tp_capable(gpu),
                        hidden_rows=rows, reduce_bytes=float(allreduce_live_bytes(model, args, rules)), moe_path=moe_path)


def workspace_rounded(nbytes: float) -> int:
    """A buffer of the worker's WorkspaceManager as it is allocated: get_simultaneous rounds each size up to 256 B
    (v1/worker/workspace.py, 0.14.0-0.33.0)."""
    return cdiv(int(nbytes), 256) * 256


def modular_workspace_bytes(m_full: int, chunk: int, top_k: int, n_half: int, k: int, db: int) -> int:
    """What a FusedMoEModularKernel of TritonExperts or MarlinExperts takes from the worker's WorkspaceManager for
    m_full tokens: FusedMoEModularKernel._allocate_buffers (modular_kernel.py 0.14.0-0.33.0) asks the experts'
    workspace_shapes for workspace13 (M, top-k, max(n_half, k)) and workspace2 (M, top-k, max(2 n_half, k)), in the
    activation dtype, n_half the expert's intermediate width as the kernel holds it (TritonExperts: N = w13's rows =
    2 n_half, SiLU-and-mul halving it, fused_moe.py 0.14.0-0.19.0 / experts/triton_moe.py 0.33.0; MarlinExperts:
    N = marlin_moe_intermediate_size = n_half, with workspace1 (M x top-k, max(N, K)) and workspace2 (M x top-k x
    max(2N, K)), fused_marlin_moe.py 0.17.0-0.19.1: the same two sizes), k the hidden size as the kernel holds it;
    one chunk shares workspace13 with the output (M, k); get_simultaneous rounds each up to 256 B
    (v1/worker/workspace.py). Past `chunk` tokens (VLLM_FUSED_MOE_CHUNK_SIZE, rules fused_moe_chunk_tokens; 0 = no
    chunking) the two are sized for one chunk beside the whole output."""
    m = min(m_full, chunk) if chunk else m_full
    ws13 = m * top_k * max(n_half, k) * db
    ws2 = m * top_k * max(2 * n_half, k) * db
    if m == m_full:
        return workspace_rounded(max(ws13, m_full * k * db)) + workspace_rounded(ws2)
    return workspace_rounded(ws13) + workspace_rounded(ws2) + workspace_rounded(m_full * k * db)


def cutlass_fp4_moe_bytes(m: int, top_k: int, n: int, k: int, db: int) -> tuple[float, float]:
    """(persistent workspace, transient peak) bytes of vLLM's CUTLASS NVFP4 experts (CutlassExpertsFp4 in a
    FusedMoEKernelModularImpl) for m tokens, n the expert's intermediate width, k the hidden size (read in the 0.20.2
    wheel; 0.24.0's run_cutlass_moe_fp4 is the same).

    Workspace: CutlassExpertsFp4.workspace_shapes (fused_moe/experts/cutlass_moe.py) asks workspace13 (M x top-k,
    max(2N, K)), workspace2 (M x top-k, N) and the output (M, K); FusedMoEKernelModularImpl._allocate_buffers
    (modular_kernel.py; no chunking there in 0.20.2) takes workspace13 and the output as one buffer of the larger size
    beside workspace2 from the WorkspaceManager, which keeps them (each rounded up to 256 B).

    Transient: run_cutlass_moe_fp4 allocates outside the workspace. `a = ops.shuffle_rows(a, a_map)` expands the input
    to (M x top-k, K) in the activation dtype (_custom_ops.py shuffle_rows: torch.empty of the map's length) and keeps
    it bound to `a` to the end; after the second GEMM `c3 = ops.shuffle_rows(c3, c_map)` makes another (M x top-k, K);
    the output is then `(c3.view(m, top-k, k) * topk_weights...).sum(dim=1)`, a third (M, top-k, K) and its (M, K) sum,
    beside the (M, K) output FusedMoEKernelModularImpl.apply made with torch.empty_like(hidden_states). The FP4 copies
    of the input (M x top-k x K/2 B, scaled_fp4_experts_quant) are freed before the second GEMM, below that point."""
    workspace = workspace_rounded(max(m * top_k * max(2 * n, k), m * k) * db) + workspace_rounded(m * top_k * n * db)
    transient = m * db * (3 * top_k * k + 2 * k)
    return float(workspace), float(transient)


def _fp8_block_moe_experts(cc: tuple[int, int], args: EngineArgs, rules: VersionRules, width: float,
                           hidden: int) -> tuple[str, int, int]:
    """Block FP8 ([128, 128]) experts by GPU class, in fused_moe/oracle/fp8.py select_fp8_moe_backend's order (0.17.0,
    0.19.1, 0.20.0, 0.22.1, 0.23.0, 0.24.0, 0.27.1, 0.28.0, 0.29.0, 0.33.0 wheels: AITER, FLASHINFER_TRTLLM,
    FLASHINFER_CUTLASS, DEEPGEMM, VLLM_CUTLASS, TRITON, MARLIN, the first whose experts class supports the device and
    the scheme). "fp8_block_triton" (TritonExperts, FusedMoEKernel built by make_fp8_moe_kernel): Hopper without expert
    parallelism (_get_priority_backends moves TRITON to the front: "On Hopper for Block Fp8, prefer Triton for TP and
    FI CUTLASS for EP"), and cc 8.9 / 12.x, where FlashInfer TRTLLM (Blackwell family 100 only) and CUTLASS (block
    scales on 9.0 only) do not run it, VLLM_CUTLASS (CutlassExpertsFp8) takes no block scales, and DeepGEMM runs on 9.0
    and 10.x only up to 0.23 and on 12.x too from 0.24 (platforms/cuda.py support_deep_gemm; rules deep_gemm_sm12x)
    with VLLM_USE_DEEP_GEMM on (its default). Before 0.17 there is no Hopper preference (rules fp8_block_hopper_triton):
    FlashInfer CUTLASS (block scales on 9.0) and DeepGEMM come before Triton there, so Hopper gets
    "fp8_block_flashinfer"; cc 8.9 and 12.x get TritonExperts from 0.14.0 too (0.14.0-0.16.0 wheels; rules
    moe_quant_workspace). Not charged: "fp8_block_deepgemm" (TritonOrDeepGemmExperts, whose
    DeepGEMM buffers are 'strictly larger than the triton workspaces' and padded per expert: not counted here),
    "fp8_block_flashinfer" (Hopper with EP, Blackwell 10.x: the workspace inside flashinfer) and "fp8_block_marlin"
    (below cc 8.9, TritonExperts needing current_platform.supports_fp8(): no startup to check it on). VLLM_USE_DEEP_GEMM
    or VLLM_MOE_USE_DEEP_GEMM set to 1 forces DeepGEMM, set to 0 removes it."""
    deep_gemm_env = [(n, args.env_value(n)) for n in ("VLLM_USE_DEEP_GEMM", "VLLM_MOE_USE_DEEP_GEMM")]
    deep_gemm_off = any(v is not None and not args.env_on(n) for n, v in deep_gemm_env)
    deep_gemm_forced = not deep_gemm_off and any(v is not None for _, v in deep_gemm_env)
    n_half = int(width)
    if deep_gemm_forced:
        return ("fp8_block_deepgemm", n_half, hidden)
    if cc == (9, 0) and not rules.fp8_block_hopper_triton:
        # before 0.17: FlashInfer CUTLASS, then DeepGEMM, ahead of Triton (rules fp8_block_hopper_triton): not charged
        return ("fp8_block_flashinfer", n_half, hidden)
    if cc == (9, 0):
        # ep_size > 1 in the oracle: --enable-expert-parallel splits the experts only over more than one rank
        # (fused_moe/config.py FusedMoEParallelConfig.make: use_ep = dp x pcp x tp > 1 and enable_expert_parallel,
        # 0.17.0 and 0.27.1 wheels); on one GPU the flag leaves ep_size 1, and Triton first
        expert_parallel = args.enable_expert_parallel and args.tensor_parallel_size * args.data_parallel_size > 1
        return ("fp8_block_flashinfer" if expert_parallel else "fp8_block_triton", n_half, hidden)
    if (10, 0) <= cc < (11, 0):
        return ("fp8_block_flashinfer", n_half, hidden)
    if cc < (8, 9):
        return ("fp8_block_marlin", n_half, hidden)
    if cc[0] == 12 and rules.deep_gemm_sm12x and not deep_gemm_off:
        return ("fp8_block_deepgemm", n_half, hidden)
    return ("fp8_block_triton", n_half, hidden)


def quantized_moe_experts(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules,
                          width: float) -> tuple[str, int, int] | None:
    """The quantized fused-MoE path a checkpoint gets on this GPU, as (path, the expert's intermediate width and the
    hidden size as its kernel holds them), for the paths kvplan has read the workspace of (rules moe_quant_workspace
    says from which release each keeps it); None for the others.

    gpt-oss's MXFP4 ("mxfp4_marlin", "mxfp4_triton", "mxfp4_flashinfer"): quantization/mxfp4.py get_mxfp4_backend
    (0.16.0-0.18.0) and fused_moe/oracle/mxfp4.py select_mxfp4_moe_backend (0.19.1-0.33.0) give SM100 FlashInfer,
    SM90 (and 10.x without FlashInfer) the Triton kernels, and every other CUDA GPU Marlin, which needs the triton
    kernels on (9, 0) <= cc < (11, 0) only; VLLM_MXFP4_USE_MARLIN=1 forces it where the release reads it
    (mxfp4_marlin_forced), and before 0.12 Hopper runs Marlin too (rules mxfp4_hopper_backend). Marlin pads the expert's width to 128 and the hidden size to 256
    (mxfp4_round_up_hidden_size_and_intermediate_size, oracle/mxfp4.py 0.19.1; weights.mxfp4_expert_layout).

    Block FP8: _fp8_block_moe_experts. Not pinned, so not named here (their workspace stays 0 and the fused-MoE cache
    term stands): per-tensor / per-channel FP8 (online --quantization fp8 included: FlashInfer CUTLASS or vLLM CUTLASS
    first where they run), NVFP4 (oracle/nvfp4.py: FlashInfer CUTLASS on 12.x, whose FlashInferExperts.workspace_shapes
    ask the WorkspaceManager only for (M, K) and the output, flashinfer's own workspace allocated inside the kernel, not
    read) and AWQ/GPTQ Marlin MoE (awq_marlin.py calls fused_marlin_moe() in 0.20.0 and builds MarlinExperts in 0.22.1;
    0.21 not read; an explicit --quantization awq keeps AWQConfig's own MoE method)."""
    q = model.quant
    if q is None or gpu.vendor != "NVIDIA" or gpu.cc is None or not model.num_experts_per_tok:
        return None
    if q.method == "fp8" and q.weight_block:
        return _fp8_block_moe_experts(gpu.cc, args, rules, width, model.hidden_size)
    if (q.bits == 4 and "nvfp4" in str(q.scheme or "") and q.method in ("modelopt", "compressed-tensors")
            and model.model_type.startswith("gemma4") and (10, 0) <= gpu.cc < (13, 0) and rules.nvfp4_gelu_vllm_cutlass):
        # NVFP4 experts with Gemma 4's gated GELU on Blackwell: VLLM_CUTLASS, the first NVFP4 backend that takes GELU
        # (rules nvfp4_gelu_vllm_cutlass; the RTX 5090 0.20.2 start logs "Using 'VLLM_CUTLASS' NvFp4 MoE backend");
        # its buffers: cutlass_fp4_moe_bytes
        return ("nvfp4_vllm_cutlass", int(width), model.hidden_size)
    if (q.method == "compressed-tensors" and q.bits == 4 and str(q.scheme or "").startswith("int4 w4a16")
            and (7, 5) <= gpu.cc and not (10, 0) <= gpu.cc < (11, 0)):
        # compressed-tensors int4 weight-only experts: CompressedTensorsWNA16MarlinMoEMethod (compressed_tensors_moe/
        # compressed_tensors_moe_wna16_marlin.py) calls fused_marlin_moe() from apply in 0.22.1 and builds a
        # FusedMoEKernel of MarlinExperts from 0.23.0 (oracle/int_wna16.py select_wna16_moe_backend: FLASHINFER_TRTLLM,
        # Blackwell family 100 only, then MARLIN; make_wna16_moe_kernel; 0.23.0, 0.25.1, 0.29.0 wheels); N = the
        # expert's width (marlin_moe_intermediate_size), K = hidden. Blackwell 10.x left out (TRTLLM's MXINT4 kernels
        # take some of these checkpoints: not pinned)
        return ("ct_wna16_marlin", int(width), model.hidden_size)
    if q.method != "mxfp4":
        return None
    backend = mxfp4_moe_backend(gpu.cc, rules.mxfp4_hopper_backend, mxfp4_marlin_forced(args, rules, gpu.cc))
    if backend != "marlin":
        return (f"mxfp4_{backend}", int(width), model.hidden_size)
    i_align, h_align = MXFP4_MARLIN_ALIGN
    return ("mxfp4_marlin", -(-int(width) // i_align) * i_align, -(-model.hidden_size // h_align) * h_align)


def moe_workspace_bytes(model: ModelSpec, args: EngineArgs, rules: VersionRules, m_full: int, width: float) -> float:
    """The fused-MoE workspace an unquantized MoE model keeps from its profile run on (rules moe_workspace_persistent):
    TritonExperts' two buffers (modular_workspace_bytes) at N = 2 x the expert's intermediate width on the rank,
    K = hidden; FusedMoEModularKernel gets both from the worker's WorkspaceManager (v1/worker/workspace.py). 0 where
    another kernel runs the experts (a quantized checkpoint's: quantized_moe_experts and the rules row
    moe_quant_workspace charge the paths read), online quantization (--quantization fp8 on a bf16 checkpoint)
    included: its config gives the MoE layers its own method (Fp8Config.get_quant_method -> Fp8OnlineMoEMethod,
    quantization/fp8.py 0.19.1), not UnquantizedFusedMoEMethod."""
    if (model.quant is not None or args.quantization or args.dtype not in ("bfloat16", "float16")
            or not model.num_experts_per_tok):
        return 0.0
    return float(modular_workspace_bytes(m_full, rules.fused_moe_chunk_tokens, model.num_experts_per_tok, int(width),
                                         model.hidden_size, DTYPE_BYTES[args.dtype]))


def _pipeline_stage_pool(model: ModelSpec, args: EngineArgs, rules: VersionRules, groups, w: RankWeights,
                         requested: float, nt: float, cg: float, act_last: float, act_other: float,
                         nt_other: float | None = None):
    """V1 with pipeline parallelism sizes each rank's blocks from its own pool and its own layers, then gives every rank
    the smallest count (v1/core/kv_cache_utils.py unify_kv_cache_configs; 0.10.0 wheel). A stage's pool is the budget
    less its own weights (the first stage holds the embedding, the last the LM head) and its own profile peak: only the
    last rank runs the dummy sampler (v1/worker/gpu_model_runner.py profile_run, `if get_pp_group().is_last_rank`) and,
    under model runner v2, holds the sampler's state (`nt_other`: the other ranks' non-torch term, default `nt`).
    Returns (the binding stage's pool, its bytes per block, a note, each stage's (pool, bytes per block)), or None where
    one pool stands for every rank: no PP, V0, --kv-cache-memory-bytes, per-stage weights unknown, or more than one KV
    group (the uniform-type path only)."""
    pp = args.pipeline_parallel_size or 1
    if (pp <= 1 or not rules.is_v1 or args.kv_cache_memory_bytes is not None or len(groups) != 1
            or len(w.stage_bytes) != pp or groups[0].kind == "recurrent"):
        return None
    per_stage = [sum(l.kind != "none" for l in layers) for layers in stage_cache_layers(model, args, rules)]
    if min(per_stage) <= 0:
        return None
    page = groups[0].page_bytes
    stage_bpb = [page * n for n in per_stage]
    drafter = drafter_kv_layers(model, args, rules)
    if drafter:
        # the drafter's KV layers are registered on the stage that builds it, the last (model runner v2 builds its
        # speculator under is_last_pp_rank: v1/worker/gpu/model_runner.py, 0.30.0-0.33.0 wheels; rules row
        # pp_spec_drafter), so only that stage's block holds their pages. MTP layers copy the model's own (its page);
        # a drafter checkpoint's layers are paged by their own shape (one group of summed pages where it differs)
        if args.speculative[0] == "mtp":
            own, extra_pages = page, page * len(drafter)
        elif model.sparse_mla or model.compressed_attention or groups[0].kind not in ("full", "mla"):
            return None  # a drafter beside DeepSeek's sparse layouts or in a windowed group: one pool (not modelled)
        else:
            kvb = kv_dtype_bytes(args.kv_cache_dtype, args.dtype)
            tp, bs = args.tensor_parallel_size, groups[0].block_size
            target = next(l for l in model.layers if l.kind != "none")
            own = bs * _attention_page_per_token(target, tp, kvb)
            extra_pages = sum(bs * _attention_page_per_token(l, tp, kvb) for l in drafter)
        stage_bpb = [own * n for n in per_stage]
        stage_bpb[-1] += extra_pages
        per_stage[-1] += len(drafter)
    extra = w.bytes - max(w.stage_bytes)  # what is added to every rank after counting (allocator rounding, LoRA, ...)
    stages = []
    for s, (wb, n, bpb) in enumerate(zip(w.stage_bytes, per_stage, stage_bpb)):
        last = s == pp - 1
        pool = requested - (wb + extra) - (nt if last or nt_other is None else nt_other) - (act_last if last else act_other) - cg
        stages.append((max(0, int(pool // bpb)) if pool > 0 else 0, pool, bpb, n, s))
    blocks, pool, bpb, n, s = min(stages)
    note = (f"pipeline parallel: each of the {pp} stages sizes its blocks from its own pool and layers and every rank takes "
            f"the smallest count; the binding stage is stage {s} ({n} KV layers, {pool / GIB:.2f} GiB"
            + (", no sampler in its profile" if s != pp - 1 else
               ", the sampler's profile" + (f" and the {args.speculative[0]} drafter's weights and {len(drafter)} KV "
                                            "layer(s)" + (", its profile buffers" if args.speculative[0] in DRAFT_METHODS
                                                          else "") if drafter else "")) + "); per stage: "
            + ", ".join(f"{p / GIB:.2f} GiB / {k} layers" for _, p, _, k, _ in stages))
    return pool, bpb, note, [(p, b) for _, p, b, _, _ in stages]


def pipeline_cold_start_loss(model: ModelSpec, args: EngineArgs, rules: VersionRules, stages, pool: float, bpb: int,
                             act_first: int, loss: ColdStartLoss) -> ColdStartLoss:
    """A compiling first start under pipeline parallelism: only the first stage compiles the embedding gather whose
    table Inductor's combo-kernel benchmark copies (cold_start_pool_loss_bytes). vLLM's decoders build embed_tokens on
    the first rank (and, tied, on the last for the LM head) and run it only `if get_pp_group().is_first_rank`; later
    stages start from the intermediate tensors (models/llama.py LlamaModel and models/qwen2.py Qwen2Model, __init__ and
    forward, 0.27.1 wheel). So the copy costs the first stage's pool, with its own profile peak (`act_first`: no
    sampler), and every rank then takes the smallest block count (_pipeline_stage_pool). `stages` holds each stage's
    (pool, bytes per block), `pool` / `bpb` the warm binding stage's; `loss` the single-pool loss (its formula kept).
    Returns the loss relative to the warm binding pool, so that first_start, the cold-start checks and the note read it
    as they read one pool's."""
    first = cold_start_pool_loss_bytes(model, args, rules, act_first)
    def cold_pool(cut: int) -> float:  # the binding stage's cold pool, each stage's pool in the binding stage's blocks
        return min((p - (cut if s == 0 else 0)) / b * bpb for s, (p, b) in enumerate(stages))
    least, most = (max(0, int(pool - cold_pool(cut))) for cut in (first.least, first.most))
    return ColdStartLoss(least, most, first.embedding_copy,
                         f"{first.formula}; pipeline parallel: on stage 0 only, which holds embed_tokens (its pool "
                         f"{stages[0][0] / GIB:.2f} GiB against the binding {pool / GIB:.2f} GiB), so the ranks' smallest "
                         f"pool loses {least / GIB:.2f}-{most / GIB:.2f} GiB", True)


# vLLM's plain AWQ linear method multiplies through a float16 copy of the weight once a call holds this many tokens:
# AWQLinearMethod.apply (model_executor/layers/quantization/awq.py, read in the 0.3.3 to 0.23.0 wheels) and
# AutoAWQLinearMethod.apply (auto_awq.py, 0.24.0, 0.25.1, 0.33.0) take FP16_MATMUL_HEURISTIC_CONDITION =
# x.shape[:-1].numel() >= 256, then ops.awq_dequantize(qweight, scales, qzeros, 0, 0, 0) builds the whole (in, out)
# weight in the activation dtype and torch.matmul multiplies it; fewer tokens run ops.awq_gemm without the copy.
# The Marlin methods (awq_marlin.py, auto_awq.py AutoAWQMarlinLinearMethod) never build it.
AWQ_DEQUANT_MIN_TOKENS = 256


# Group sizes the Marlin int4/int8 kernels take (MARLIN_SUPPORTED_GROUP_SIZES, -1 = per channel) and the weight types
# they convert: AWQ 4-bit with its zero point, GPTQ 4- or 8-bit symmetric -- vLLM 0.20.0 wheel,
# model_executor/layers/quantization/utils/marlin_utils.py, awq_marlin.py AWQMarlinConfig.TYPE_MAP /
# is_awq_marlin_compatible and gptq_marlin.py GPTQMarlinConfig.TYPE_MAP / is_gptq_marlin_compatible (each needs the
# listed keys present in quantization_config, else no conversion).
MARLIN_GROUP_SIZES = (-1, 32, 64, 128)


def marlin_method(spec: ModelSpec, gpu: GPUSpec, version: str) -> str | None:
    """awq_marlin / gptq_marlin where vLLM `version` would convert this AWQ / GPTQ checkpoint to Marlin by itself on
    `gpu` (its override_quantization_method, which claims the checkpoint when no --quantization or the Marlin name is
    given): the release has the method and the GPU passes its capability step (versions.QUANT_MIN_CAPABILITY), and
    the checkpoint's quantization_config is one the Marlin kernels take. None otherwise (vLLM then serves the plain
    method)."""
    from kvplan.versions import quant_min_capability

    method = spec.quant.method
    marlin = f"{method}_marlin"
    need = quant_min_capability(marlin, version)  # None: the release has no such method
    if gpu.vendor != "NVIDIA" or gpu.cc is None or need is None or gpu.cc < need:
        return None
    qc = spec.raw_config.get("quantization_config") or (spec.text_config or {}).get("quantization_config") or {}
    if str(qc.get("quant_method", "")).lower() != method or qc.get("group_size") not in MARLIN_GROUP_SIZES:
        return None
    if method == "awq":
        fits = qc.get("bits") == 4 and qc.get("zero_point") is not None
    else:
        fits = qc.get("bits") in (4, 8) and qc.get("sym") is True and qc.get("desc_act") is not None
    return marlin if fits else None


def awq_linear_kernel(model: ModelSpec, gpu: GPUSpec, quant: QuantSpec | None, given: str | None,
                      rules: VersionRules) -> str | None:
    """"awq" where vLLM `rules.version` serves this AWQ checkpoint's Linear layers with its plain AWQ method, "marlin"
    where AWQ-Marlin converts them (rules row awq_auto_marlin; --quantization awq_marlin names Marlin itself). None where
    it is not known: a checkpoint that is not AWQ, a GPU not NVIDIA's (ROCm's Triton AWQ path not read) or of unknown
    capability, or a config without its quantization_config when no flag decides (the checkpoint's group size and
    zero point, which Marlin's conversion checks, are then unread)."""
    if quant is None or quant.method != "awq" or gpu.vendor != "NVIDIA" or gpu.cc is None:
        return None
    flag = canonical_quant(given or "")
    if flag == "awq_marlin":
        return "marlin"
    if flag == "awq" and not rules.awq_auto_marlin:
        return "awq"
    if not (model.raw_config.get("quantization_config") or (model.text_config or {}).get("quantization_config")):
        return None
    return "marlin" if marlin_method(replace(model, quant=quant), gpu, rules.version) else "awq"


def awq_kernel_note(model: ModelSpec, gpu: GPUSpec, quant: QuantSpec, given: str | None, rules: VersionRules,
                    kernel: str) -> str:
    """Which kernel serves an AWQ checkpoint's Linear layers (awq_linear_kernel), said as an assumption: the plain one
    costs the profile a float16 weight copy (awq_dequant_bytes), and where --quantization awq alone forces it, the
    note says so and names the fix (vLLM's own log there: "Use quantization=awq_marlin for faster inference",
    awq_marlin.py override_quantization_method, 0.20.0 wheel)."""
    if kernel == "marlin":
        return (f"AWQ: vLLM {rules.version} converts the Linear layers to AWQ-Marlin"
                + (" (--quantization awq_marlin)" if canonical_quant(given or "") == "awq_marlin" else "")
                + ", which builds no float16 weight copy")
    forced = canonical_quant(given or "") == "awq" and not rules.awq_auto_marlin
    would_convert = forced and marlin_method(replace(model, quant=quant), gpu, rules.version) is not None
    return (f"AWQ: vLLM {rules.version} serves the Linear layers with its plain AWQ kernel"
            + (" because --quantization awq forces it (before 0.24)" if forced else
               " (no AWQ-Marlin conversion for this GPU or checkpoint)")
            + f": at {AWQ_DEQUANT_MIN_TOKENS} or more batched tokens it multiplies through a float16 copy of each "
            "weight, counted in the activation peak"
            + ("; drop --quantization awq (or give awq_marlin) and vLLM converts them to AWQ-Marlin, faster and "
               "without the copy" if would_convert else ""))


def awq_dequant_bytes(model: ModelSpec, args: EngineArgs, rows: int = 3) -> tuple[int, str]:
    """The float16 weight copy the plain AWQ method adds to the profile forward's live set (AWQ_DEQUANT_MIN_TOKENS):
    the dense MLP's live set (term_features: T x (3 H + 3 I), 4 H where dense_hidden_rows counts down_proj's output,
    passed as rows) is what stays alive through Qwen2MLP.forward's down_proj
    call (gate_up is still referenced there, models/qwen2.py, 0.20.0-0.29.0 wheels), which adds down_proj's copy
    (I x H); at gate_up_proj's call x, the residual, gate_up_proj's copy (H x 2 I) and its output are alive, T x I less
    than the live set. The larger of the two, with I the rank's slice. 0 for other kernels, MoE models (their experts
    run the MoE methods) and profile batches under the threshold."""
    t = args.max_num_batched_tokens or 0
    if args.awq_kernel != "awq" or model.is_moe or not model.intermediate_size or t < AWQ_DEQUANT_MIN_TOKENS:
        return 0, ""
    db, h = DTYPE_BYTES[args.dtype], model.hidden_size
    inter = model.intermediate_size / args.tensor_parallel_size
    # with 4 rows (dense_hidden_rows: down_proj's output counted in the live set) the gate_up_proj point (T x (3 H +
    # 2 I) + 2 I x H) sits T x (H + I) below the live set plus its copy, not T x I
    below = t * ((rows - 3) * h + inter)
    extra = int(db * max(inter * h, 2 * inter * h - below))
    return extra, (f" + {extra / GIB:.3f} GiB plain-AWQ float16 weight copy (T({t}) >= {AWQ_DEQUANT_MIN_TOKENS}: "
                   + (f"I/TP({inter:g}) x {db} B x max(H({h}), 2 H - T)" if rows == 3 else
                      f"{db} B x max(I/TP({inter:g}) x H({h}), 2 I/TP x H - T x (H + I/TP))")
                   + ", awq_dequantize + torch.matmul)")


# Model types whose vLLM dense MLP keeps gate_up_proj's output referenced through the down_proj call: Qwen2MLP
# (models/qwen2.py, imported by qwen3.py as Qwen3MLP) and Qwen2MoeMLP (models/qwen2_moe.py, imported by qwen3_5.py and
# qwen3_next.py as Qwen3NextMLP), whose forward binds gate_up and the activation to different names (0.17.0, 0.21.0,
# 0.27.1 wheels). LlamaMLP (models/llama.py) rebinds one name, so gate_up is freed before down_proj and a copy made there
# stays below the peak at the activation (not listed).
GATE_UP_HELD_MODEL_TYPES = frozenset({"qwen2", "qwen3", "qwen3_5", "qwen3_5_text"})


# a --compilation-config mode (or level) that compiles nothing: CompilationMode.NONE (0.11+), level 0 NO_COMPILATION
_NO_COMPILATION_MODES = ("0", "NONE", "NO_COMPILATION")


def _compilation_mode(args: EngineArgs) -> str | None:
    """The --compilation-config mode (or, before 0.11, level) given, upper-cased; None where none is given."""
    cfg = compilation_object(args.compilation_config)
    mode = cfg.get("mode", cfg.get("level"))
    return None if mode is None else str(mode).strip().upper()


def _eager_forward(args: EngineArgs) -> bool:
    """Whether V1 runs the profile forward eagerly, op by op (--enforce-eager, or a --compilation-config mode NONE), so
    each Python-level tensor lives until its name is dropped; compiled (Inductor) graphs free a tensor after its last
    use and fuse the activation with its quantization."""
    return args.enforce_eager or _compilation_mode(args) in _NO_COMPILATION_MODES


def fp8_act_quant_bytes(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules) -> tuple[int, str]:
    """The FP8 copy of down_proj's input that a W8A8 FP8 Linear method adds to an eager profile forward's live set.

    Fp8LinearMethod and Fp8OnlineLinearMethod (layers/quantization/fp8.py, 0.17.0-0.27.1) on NVIDIA compute capability
    8.9 or later run a kernel that quantizes the activation into a new FP8 tensor before its GEMM, and keep neither a
    workspace nor a 16-bit weight copy: per-tensor weights (online FP8) on CUTLASS with per-token activation scales
    (kernels/linear/scaled_mm/cutlass.py CutlassFP8ScaledMMLinearKernel, FP8ScaledMMLinearKernel.apply_weights'
    quant_fp8, 0.17.0-0.27.1; FlashInfer's per-tensor kernel needs per-tensor activation scales; the 0.29.0 RTX 5090
    log names CUTLASS), block weights on CUTLASS or Triton (Fp8BlockScaledMMLinearKernel.apply_weights, 0.21.0/0.27.1;
    12.0 has no DeepGEMM, platforms/cuda.py support_deep_gemm 9.0 / 10.x, so not the FlashInfer + DeepGEMM kernel
    either), DeepGEMM on 9.0. Below 8.9 the weights go to FP8 Marlin, which keeps activations in 16 bits
    (MarlinFP8ScaledMMLinearKernel.is_supported, 0.21.0/0.27.1), as VLLM_TEST_FORCE_FP8_MARLIN=1 forces. The copy,
    T x I/TP x 1 B (its scales, 4 B per token or per 128 values, are under 4 % of it), is made while gate_up_proj's
    output, the activation and the residual stream are alive (GATE_UP_HELD_MODEL_TYPES), the live set term_features
    counts. Only where the forward is eager (_eager_forward): compiled, the graph frees gate_up after its last use, and
    vLLM's compiling RTX 5090 FP8 start on 0.29.0 logs a peak no larger than the BF16 one's (Qwen2.5-7B,
    tests/data/blind_records.jsonl notes: 1.36 against 1.4 GiB). V0 and other vendors: not read, 0."""
    q = model.quant
    t = args.max_num_batched_tokens or 0
    if (q is None or q.method != "fp8" or model.is_moe or not model.intermediate_size or not rules.is_v1
            or model.model_type not in GATE_UP_HELD_MODEL_TYPES or not _eager_forward(args)
            or gpu.vendor != "NVIDIA" or gpu.cc is None or gpu.cc < (8, 9) or args.env_on("VLLM_TEST_FORCE_FP8_MARLIN")):
        return 0, ""
    inter = model.intermediate_size / args.tensor_parallel_size
    extra = int(t * inter)
    return extra, (f" + {extra / GIB:.3f} GiB FP8 copy of down_proj's input (T({t}) x I/TP({inter:g}) x 1 B, "
                   "eager forward, gate_up still held)")


def measured_terms(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules) -> dict[str, tuple[int, str, str]]:
    """Activation peak, non-torch and CUDA-graph bytes per rank, each with its formula and source."""
    c = coefficients_for(rules.era)
    f = term_features(model, gpu, args, rules)
    tp, db, h = args.tensor_parallel_size, DTYPE_BYTES[args.dtype], model.hidden_size
    runner = model_runner(model, args, rules)
    # the forward's live set and the sampler's logits are not alive at once: the peak is the larger
    rows = f.hidden_rows
    awq_copy, awq_formula = awq_dequant_bytes(model, args, rows)
    fp8_copy, fp8_formula = fp8_act_quant_bytes(model, gpu, args, rules)
    # the AWQ and FP8 copies live only inside down_proj's GEMM call, gone before its all-reduce
    forward = max(c.a_forward * f.forward_bytes + awq_copy + fp8_copy, c.a_forward * f.reduce_bytes) + c.a_moe * f.moe_bytes
    a_sampler, sampler = profile_sampler_term(model, args, rules, c, f.s)
    ws = f.moe_workspace_bytes  # held from the forward through the sampler run: beside the larger of the two
    # 0.27+: the budget charges total_consumed (free memory at the init snapshot minus free memory after the profile)
    # plus only the transient headroom (torch peak minus torch allocated after the profile)
    # (utils/mem_utils.py memory_profiling, v1/worker/gpu_worker.py determine_available_memory, 0.30.0 wheel). The
    # fused-MoE workspace stays allocated after the profile (v1/worker/workspace.py WorkspaceManager keeps
    # _current_workspaces, 0.30.0), so vLLM's summary counts it in 'consumed memory (weights + non-torch)', not in
    # 'peak activation': the same bytes, filed where the log prints them (the KV budget is unchanged)
    ws_nt = ws if rules.budget_counts_runner_buffers else 0
    ws_act = ws - ws_nt
    act = max(forward, a_sampler * f.sampler_elements) + c.a_const + ws_act
    act_formula = "max(" + (f"{c.a_forward:g} x T({f.t}) x {db} B x ({rows} x {h} + 3 x {model.intermediate_size}/{tp})"
                            + (" at down_proj's GEMM (eager, gate_up still held)" if rows == 4 else "") if not model.is_moe
                            else f"{c.a_moe:g} x T({f.t}) x {db} B x (3 x top-k({model.num_experts_per_tok}) x H({h}) + 2 x H)"
                            " CUTLASS NVFP4 experts' expanded input, expanded output, weighted product, sum and output"
                            " (run_cutlass_moe_fp4)" if f.moe_path == "nvfp4_vllm_cutlass"
                            else "0" if ws else
                            f"{c.a_moe:g} x T({f.t}) x top-k({model.num_experts_per_tok}) x {db} B x (3 x {model.moe_intermediate_size}/{tp} + {h})")
    act_formula += awq_formula + fp8_formula
    if f.reduce_bytes:
        held = model.model_type in GATE_UP_HELD_MODEL_TYPES
        act_formula += (f", {c.a_forward:g} x T({f.t}) x {db} B x (5 x {h} + {'3' if held else '1'} x "
                        f"{model.intermediate_size}/{tp}) at down_proj's out-of-place all-reduce (eager: its GEMM output"
                        " and the reduced copy beside the live set" + (", gate_up still held" if held else "") + ")")
    act_formula += (f", {a_sampler:.3g} B x S({f.s}) x V_pad({f.v_pad})"
                    + (" model runner v2: " + ("model-dtype logits + their fp32 copy" if rules.mrv2_profile_sampler == "fp32_copy"
                                               else "model-dtype logits, no top-k/top-p") if sampler == "mrv2"
                       else " FlashInfer top-k/top-p" if sampler == "flashinfer" and a_sampler != c.a_sampler
                       else " Triton top-k/top-p" if sampler == "triton" and a_sampler != c.a_sampler else "") + ")"
                    + (f" + {c.a_const / GIB:.2f} GiB" if c.a_const else "")
                    + ((f" + {ws / GIB:.2f} GiB CUTLASS NVFP4 MoE workspace kept from the forward (T({f.t}) x top-k("
                        f"{model.num_experts_per_tok}) x {db} B x (max(2 I_e, H) + I_e), WorkspaceManager)"
                        if f.moe_path == "nvfp4_vllm_cutlass" else
                        f" + {ws / GIB:.2f} GiB fused-MoE workspace kept from the forward (T({f.t}) x top-k("
                        f"{model.num_experts_per_tok}) x {db} B x (max(I_e, H) + max(2 I_e, H)), WorkspaceManager)") if ws_act else ""))
    tp_term = c.n_tp if f.tp_gt_1 and rules.nccl_charged else 0.0
    nvls_term = c.n_nvls if f.nvls and rules.nccl_charged else 0.0
    nvlink_term = c.n_nvlink_tp if f.nvlink_tp else 0.0
    nt = c.n_const + tp_term + nvls_term + nvlink_term + (c.n_integrated if f.integrated_memory else 0.0)
    nt_formula = f"{c.n_const / GIB:.2f} GiB" + (f" + {c.n_tp / GIB:.2f} GiB NCCL/all-reduce buffers (TP>1, charged in {rules.era})" if tp_term else "")
    if nvlink_term:
        nt_formula += f" + {nvlink_term / GIB:.2f} GiB (TP>1 over NVLink on Hopper or later)"
    if nvls_term:
        nt_formula += f" + {nvls_term / GIB:.2f} GiB NCCL NVLink SHARP buffers (TP>2 on an NVSwitch, charged in {rules.era})"
    if f.integrated_memory:
        nt_formula += f" + {c.n_integrated / GIB:.2f} GiB (integrated memory: CPU-side use counts as consumed)"
    if ws_nt:
        nt += ws_nt
        nt_formula += (f" + {ws / GIB:.2f} GiB fused-MoE workspace kept after the profile (T({f.t}) x top-k("
                       f"{model.num_experts_per_tok}) x {db} B x (max(I_e, H) + max(2 I_e, H)), WorkspaceManager; consumed memory in {rules.era})")
    fi_ws, fi_text = fi_allreduce_workspace_bytes(model, gpu, args, rules)
    if fi_ws:
        nt += fi_ws
        nt_formula += f" + {fi_ws / GIB:.2f} GiB {fi_text}"
    state = mrv2_sampler_state_bytes(model, args, rules)
    if state:
        nt += state
        nt_formula += (f" + {state / GIB:.2f} GiB model runner v2 penalty state (S({args.max_num_seqs}) x (4 x V({model.vocab_size})"
                       " + 4 x ceil(V/32)) B, held from load; consumed memory in " + rules.era + ")")
    gc = c  # the graph coefficients: the estimate's where the budget subtracts it, the capture's where it only captures
    if runner == "v2" and rules.cudagraph_subtracted and not rules.mrv2_cudagraph_estimate:
        # model runner v2 before 0.29 (rules row mrv2_cudagraph_estimate) subtracts no estimate and captures after the KV allocation (below), as the eras
        # that subtract none do: the capture fit of those eras (calibration.py _G_CONST), not V1-e/f's estimate's
        gc = replace(c, g_const=CAPTURE_G_CONST, g_per_layer_size=CAPTURE_G_PER)
    capture = gc.g_const + gc.g_per_layer_size * f.graph_layer_sizes if args.captures_cuda_graphs else 0.0
    g = f.graphs
    cg_formula = (f"{gc.g_const / GIB:.2f} GiB + {gc.g_per_layer_size / 1024 ** 2:.3f} MiB x {f.n_layers} layers x {f.n_sizes} capture sizes"
                  if args.captures_cuda_graphs else "0 (--enforce-eager: no CUDA graphs)" if args.enforce_eager
                  else "0 (--compilation-config cudagraph_mode NONE: no CUDA graphs)")
    if args.captures_cuda_graphs and g is not None:
        if g.drafter_graphs:
            cg_formula += (f" + {gc.g_per_layer_size / 1024 ** 2:.3f} MiB x {g.drafter_layers} drafter layer(s) x "
                           f"{g.drafter_graphs} PIECEWISE graphs ({gc.g_per_layer_size * g.drafter_layers * g.drafter_graphs / GIB:.3f} "
                           "GiB, in the same graph pool)")
        cg_formula += (f" [{g.mode + ', ' if g.mode else ''}largest {g.largest}"
                       + (f", rounded to multiples of {g.rounded_to}" if g.rounded_to > 1 else "")
                       + (f", sizes from {g.source.split(';')[0]}" if g.source != "default" else "") + "]")
    estimate = capture  # what the budget subtracts where the era does: the same formula, but for model runner v2
    if runner == "v2" and args.captures_cuda_graphs and rules.cudagraph_subtracted:
        if not rules.mrv2_cudagraph_estimate:
            # the estimate is 0 (v1/worker/gpu/model_runner.py profile_cudagraph_memory returns 0, 0.26.0 and 0.28.0
            # wheels), but capture_model still captures PIECEWISE then FULL graphs into the global pool after the KV
            # allocation (v1/worker/gpu/cudagraph_utils.py CudaGraphManager.capture, 0.26.0), as the V1 runner does: the
            # capture keeps the V1 formula, beyond the budget
            estimate = 0.0
            cg_formula = ("0: model runner v2 before 0.29 estimates no CUDA-graph memory (profile_cudagraph_memory "
                          f"returns 0); its capture, after the KV allocation, ~{capture / GIB:.2f} GiB = " + cg_formula)
        else:
            # 0.29+: the real capture against a throwaway pool (all piecewise graphs measured, one shared pool), FULL
            # graphs past the second extrapolated at >= 1 MiB each (v1/worker/gpu/cudagraph_utils.py)
            full = _full_graph_sizes(g.sizes, args.max_num_seqs, args.decode_query_len)
            capture = estimate = c.g_const + max(full - 1, 0) * 1024 ** 2
            cg_formula = (f"model runner v2: {c.g_const / GIB:.2f} GiB (one shared pool) + {max(full - 1, 0)} further FULL "
                          "decode graphs x 1 MiB")
    if (args.captures_cuda_graphs and g is not None and rules.cudagraph_rocm_cost == "per_graph"
            and (gpu.vendor or "").upper() == "AMD"):
        # ROCm from 0.26 (rules row cudagraph_rocm_cost; the releases that profile the graphs on ROCm too): a fixed cost
        # per hipGraph, not CUDA's shared pool (calibration.py ROCM_G_PER_GRAPH); the estimate, where the release
        # subtracts one, is a capture of the same graphs (model runner v2 0.29+) or the second capture of each mode
        # extrapolated (the V1 runner), each costing what every graph does
        units = rocm_graph_units(g, f.n_layers, args.max_num_seqs, args.decode_query_len)
        capture = gc.g_const + ROCM_G_PER_GRAPH * units
        rocm_formula = (f"{gc.g_const / GIB:.2f} GiB + {ROCM_G_PER_GRAPH / 1024 ** 2:.2f} MiB x {units:,} hipGraphs (ROCm: "
                        f"{f.n_layers} layers + 1 pieces per PIECEWISE size, 1 per FULL size) [{g.mode or 'PIECEWISE'}, "
                        f"largest {g.largest}]; the per-graph rate fitted on 3 ROCm startups of 0.27-0.30 "
                        "(calibration.py ROCM_G_PER_GRAPH)")
        if runner == "v2" and rules.cudagraph_subtracted and not rules.mrv2_cudagraph_estimate:
            estimate = 0.0
            cg_formula = ("0: model runner v2 before 0.29 estimates no CUDA-graph memory (profile_cudagraph_memory returns "
                          f"0); its capture, after the KV allocation, ~{capture / GIB:.2f} GiB = " + rocm_formula)
        else:
            estimate = capture
            cg_formula = rocm_formula
    return {
        # the peak of a rank that runs no sampler (a pipeline stage before the last: profile_run samples on the last rank)
        "activation_no_sampler": (int(forward + c.a_const + ws_act), "", c.source),
        "activation_peak": (int(act), act_formula, c.source),
        "non_torch": (int(nt), nt_formula, c.source),
        # a rank before the last pipeline stage builds no sampler, so it holds no sampler state
        "non_torch_no_sampler": (int(nt - state), "", c.source),
        # the estimate the budget subtracts (where the era subtracts one) and the graphs' real capture
        "cudagraph": (int(estimate), cg_formula, c.source),
        "cudagraph_capture": (int(capture), cg_formula, c.source),
        # the fused-MoE workspace filed under non-torch (0.27+) but allocated during the profile's forward: part of the
        # allocator's peak a cold start's Inductor copies are measured against (cold_start_pool_loss_bytes)
        "moe_workspace_in_non_torch": (int(ws_nt), "", c.source),
    }


# --------------------------------------------------------------------------- the plan


def _format_gib(x: float) -> str:
    """vLLM's format_gib: str(round(x, 2)) (section 5)."""
    return str(round(x / GIB, 2))


def plan(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, *, rules: VersionRules | None = None,
         extra_assumptions: Iterable[str] = (), site_offsets: dict | None = None, check_architecture: bool = True,
         pool_given: bool = False) -> Plan:
    """vLLM's startup for `model` on `gpu` with `args` (None fields = the version's defaults). `check_architecture`
    False: the release stands for an era (a record without a version), so neither its registry nor its argparse is
    checked. `pool_given`: args.kv_cache_memory_bytes is the pool a startup log recorded, taken as given to check the
    arithmetic after it (validate --given-kv), not vLLM's --kv-cache-memory-bytes, which the release may lack."""
    if check_architecture:  # the release is the one the user runs (validate infers some: not held to their argparse)
        # a flag or value `vllm serve` of this release refuses before sizing anything: refused here as the launch
        # files refuse it
        version = (rules or rules_for(args.vllm_version)).version
        check_serve_values({"--kv-cache-dtype": args.kv_cache_dtype, "--block-size": args.block_size,
                            "--max-lora-rank": args.max_lora_rank if args.enable_lora else None,
                            "--mamba-ssm-cache-dtype": args.mamba_ssm_cache_dtype,
                            "--kv-cache-memory-bytes": None if pool_given else args.kv_cache_memory_bytes,
                            "--skip-mm-profiling": True if args.skip_mm_profiling else None,
                            # written by the launch files (deploy.spec_from_plan) under the same conditions, so fit
                            # refuses what scaffold refuses (a release older than the flag: SERVE_FLAG_SINCE)
                            "--data-parallel-size": args.data_parallel_size if (args.data_parallel_size or 1) > 1 else None,
                            "--enable-expert-parallel": True if args.enable_expert_parallel else None,
                            "--speculative-config": args.speculative_config or None,
                            "--compilation-config": args.compilation_config or None,
                            "--cudagraph-capture-sizes": args.capture_sizes_given,
                            "--max-cudagraph-capture-size": args.max_cudagraph_capture_size,
                            "--cuda-graph-sizes": args.cuda_graph_sizes_given,
                            "--limit-mm-per-prompt": args.limit_mm_per_prompt or None,
                            "--language-model-only": True if args.language_model_only else None,
                            "--cpu-offload-gb": args.cpu_offload_gb or None}, version)
        check_serve_env(args.env, version)
    p = _plan(model, gpu, args, rules=rules, extra_assumptions=extra_assumptions, site_offsets=site_offsets,
              check_architecture=check_architecture)
    if p.fits and p.args.kv_cache_memory_bytes is not None and not pool_given:
        p = _given_pool_allocation(p)
    # the flags as given (-1 too), not what an auto-fit planned with; the site calibration, for replans
    return replace(p, given_args=args, site_offsets=site_offsets or None)


def largest_given_pool_bytes(p: Plan) -> int:
    """The largest --kv-cache-memory-bytes whose blocks, CUDA graphs and a full step's activation peak still fit beside
    the weights and non-torch memory on the card (whole MiB)."""
    room = p.total_bytes - p.weights_bytes - p.non_torch_bytes - p.cudagraph_capture_bytes - p.activation_peak_bytes
    return max(0, int(room) // 2**20 * 2**20)


def _given_pool_allocation(p: Plan) -> Plan:
    """--kv-cache-memory-bytes (vLLM >= 0.10.2, PR #21489): gpu_worker's determine_available_memory returns the given
    bytes without checking them against the card ("This does not respect the gpu_memory_utilization config ... If
    OOM'ed, check the difference of initial free memory"). After the profile run frees its activations, the blocks
    are allocated beside the weights and non-torch memory, then the CUDA graphs are captured: a pool beyond what is
    left fails there with PyTorch's "CUDA out of memory", and one that leaves no room for the activation peak of a
    full step fails on the first such step."""
    pool = p.num_gpu_blocks * p.bytes_per_block
    resident = p.weights_bytes + p.non_torch_bytes + p.cudagraph_capture_bytes + pool
    if resident > p.total_bytes:
        error = (f"CUDA out of memory while allocating the KV cache: --kv-cache-memory-bytes {pool / GIB:.2f} GiB of "
                 f"blocks beside {p.weights_bytes / GIB:.2f} GiB of weights, {p.non_torch_bytes / GIB:.2f} GiB non-torch "
                 f"and {p.cudagraph_capture_bytes / GIB:.2f} GiB of CUDA graphs exceed the {p.total_bytes / GIB:.2f} GiB of "
                 f"{p.gpu.name} (the flag ignores gpu_memory_utilization; {largest_given_pool_bytes(p) / GIB:.2f} GiB leaves room for a full "
                 f"step's activations)")
        before_capture = tuple(line for line in p.vllm_log if not line.startswith("Graph capturing"))
        return replace(p, fits=False, error=error, failure="kv_alloc",
                       vllm_log=before_capture + ("torch.OutOfMemoryError: " + error,))
    if resident + p.activation_peak_bytes > p.total_bytes:
        short = resident + p.activation_peak_bytes - p.total_bytes
        return replace(p, warnings=p.warnings + (
            f"--kv-cache-memory-bytes leaves {(p.total_bytes - resident) / GIB:.2f} GiB for a step's activations, "
            f"{short / GIB:.2f} GiB less than the profiled peak of {p.activation_peak_bytes / GIB:.2f} GiB: the first "
            f"full step of max_num_batched_tokens may fail with CUDA out of memory",))
    return p


def _plan(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, *, rules: VersionRules | None = None,
          extra_assumptions: Iterable[str] = (), site_offsets: dict | None = None, check_architecture: bool = True,
          auto_fit: bool = False) -> Plan:
    rules = rules or rules_for(args.vllm_version)
    rules, env_notes = _env_rules(args, rules)
    if rules.cudagraph_subtracted and not rules.cudagraph_subtracted_rocm and (gpu.vendor or "").upper() == "AMD":
        # 0.20-0.25 profile no CUDA-graph memory on ROCm (rules row cudagraph_subtracted_rocm): the graphs are captured
        # after the KV allocation, beyond the budget, as before 0.20
        rules = replace(rules, cudagraph_subtracted=False)
        env_notes = env_notes + [f"ROCm: vLLM {rules.version} takes no CUDA-graph memory estimate on ROCm "
                                 "(gpu_worker.py determine_available_memory profiles it on CUDA only until 0.26.0); "
                                 "the graphs are captured after the KV allocation, beyond the budget"]
    why_v0 = v1_fallback(model, gpu, args, rules)
    if why_v0:
        rules = as_v0_engine(rules, why_v0)
    if args.max_model_len == AUTO_FIT:
        return _auto_fit_plan(model, gpu, args, rules, extra_assumptions, site_offsets, check_architecture)
    resolved, quant, notes = resolve_args(model, gpu, args, rules)
    model, runner_note = serve_as(model, resolved)
    if runner_note:
        notes.append(runner_note)
    if model.is_pooling and resolved.runner_type != "pooling":
        resolved = replace(resolved, runner="pooling")  # resolved: vLLM's auto choice, made explicit
    check_model_runner_env(model, resolved, rules)
    runner, runner_why = model_runner_choice(model, resolved, rules)
    if rules.window_inflight != "one":
        # the steps in flight follow the runner built (config/vllm.py VllmConfig.max_concurrent_batches, 0.26.0,
        # 0.29.0 and 0.33.0 wheels: pp + 1 on model runner v2, else 2 at PP=1 / pp): section 3.4
        rules = replace(rules, window_inflight="mrv2" if runner == "v2" else "mrv1-async")
    if resolved.env_value(MRV2_ENV) is not None and rules.mrv2_env != "unread":
        env_notes = env_notes + [f"model runner {runner}: {runner_why}"]
    notes = list(extra_assumptions) + list(rules.notes) + env_notes + notes + list(model.notes)
    beyond = newer_than_read(rules)
    if resolved.overhead_gb is not None:  # the seed's arithmetic has no warnings: said among its assumptions
        _refuse_what_the_seed_ignores(model, args)
        return _simple_plan(model, gpu, resolved, rules, quant, notes + ([beyond] if beyond else []))
    warns: list[str] = [beyond] if beyond else []
    if resolved.cudagraph_mode and resolved.captures_cuda_graphs:  # NONE is modelled: no graphs, no graph memory
        warns.append(f"--compilation-config cudagraph_mode {resolved.cudagraph_mode}: kvplan reads it for the hybrid "
                     "state-block check, the speculative-decoding rounding of the capture sizes and the drafter's graphs; "
                     "the CUDA-graph memory per layer and capture size is still the one fitted on the releases' default mode")
    if why_v0:  # vLLM's own warning (engine/arg_utils.py _raise_or_fallback)
        warns.append(f"{why_v0} is not supported by the V1 Engine. Falling back to V0.")
    backend_error, block_warning = block_size_backend(model, gpu, args.block_size, resolved, rules)
    if block_warning:
        warns.append(block_warning)
    if quant is not None and quant.method == "gguf" and resolved.dtype == "bfloat16" and gpu.cc and gpu.cc >= (10, 0):
        # GGUFConfig.get_supported_act_dtypes drops bfloat16 on Blackwell (vLLM PR #30408, Dec 2025; the GGUF plugin
        # later restored it): which releases refuse is not pinned, so this is said, not planned
        warns.append("GGUF on a Blackwell GPU: vLLM releases since PR #30408 (Dec 2025) refuse bfloat16 for GGUF "
                     "weights there ('torch.bfloat16 is not supported for quantization method gguf'); pass --dtype float16")
    warns += _mm_limit_warnings(model, resolved)
    tp, pp = resolved.tensor_parallel_size, resolved.pipeline_parallel_size
    if pp > model.num_layers:  # a stage would hold no decoder layer: not a split kvplan can plan (nor one worth GPUs)
        raise InputError("--pipeline-parallel-size", f"{pp:,} stages for {model.num_layers} decoder layers leave stages "
                         "without a layer", f"at most {model.num_layers} (one layer per stage)")
    total = gpu.total_bytes
    util = resolved.gpu_memory_utilization
    requested = math.ceil(total * util) if rules.requested_is_ceil else total * util
    ep = tp * resolved.data_parallel_size if resolved.enable_expert_parallel else 1
    spec = resolved.speculative
    text_only = _text_only(model, resolved, rules)
    w: RankWeights = rank_weights(model, gpu, resolved, rules, quant)
    if not 0.5 <= w.checkpoint_ratio <= 2.0:  # the bytes are the files', which then describe another model than the config
        files = model.checkpoint.total_bytes
        warns.append(f"the checkpoint's weight files hold {files / GIB:,.2f} GiB, but its config.json counts "
                     f"{files / w.checkpoint_ratio / GIB:,.2f} GiB of weights: a partial download (shards missing), or files "
                     "and config of different models? The plan uses the files' bytes")
    if text_only:
        notes.append("text-only mode (--limit-mm-per-prompt 0 for every modality, or --language-model-only): vLLM loads no "
                     "vision tower and profiles no encoder pass")
    if resolved.data_parallel_size > 1:
        notes.append(f"data parallel: {resolved.data_parallel_size} engines, each with the pool below; "
                     f"{resolved.data_parallel_size} x the concurrency in all")
    notes.append(f"weights: {w.method}")
    if rules.engine != "v0" and inductor_compiles(resolved) and not resolved.env_on("VLLM_DISABLE_COMPILE_CACHE"):
        # whole here where the pool is given; else completed below, once the plan's cold-start loss is known
        notes.append(compile_cache_note(None, given_pool=resolved.kv_cache_memory_bytes is not None))
    # in bytes, so the parts add up to the term: the checkpoint's share per rank, then what loading adds or moves
    w_formula = f"{w.bytes:,} B per rank (TP={tp}, PP={pp}; rotary cache {w.rotary_bytes / 1024 ** 2:.1f} MiB included)"
    if quant is None or quant.bits == 8 and quant.scheme.startswith("fp8"):  # linear weights of 2 or 1 byte(s)
        rounding = allocator_rounding_bytes(model, tp=tp, dtype_bytes=1 if quant is not None else DTYPE_BYTES[resolved.dtype],
                                            ep=ep, dp=resolved.data_parallel_size, split_limit=rules.allocator_split_limit,
                                            embed_bytes=DTYPE_BYTES[resolved.dtype])
        if rounding:
            w = replace(w, bytes=w.bytes + rounding)
            w_formula += f" + {rounding:,} B allocator rounding"
            notes.append(f"weights load under a 20 MiB allocator split limit: tensors of 20 MiB or more are rounded up to "
                         f"2 MiB blocks, {rounding / 1024 ** 2:.1f} MiB per rank" if rules.allocator_split_limit else
                         f"the caching allocator keeps the rest (1 MiB or less) of the 2 MiB-rounded blocks of weight tensors "
                         f"of 10 MiB or more: {rounding / 1024 ** 2:.1f} MiB per rank")
    spec_info = {"method": spec[0], "num_speculative_tokens": spec[1]} if spec else None
    if (spec and spec[0] == "eagle3" and pp > 1 and rules.pp_spec_drafter == "mrv2"
            and not set(model.architectures or ()) & set(rules.pp_eagle3_aux_architectures)):
        # model runner v2 relays the target's auxiliary hidden states to the last stage only for decoders that can
        # (rules row pp_eagle3_aux_architectures; eagle3_utils.py verify_supports_aux_hidden_states_over_pp)
        warns.append(f"EAGLE-3 with pipeline parallelism: vLLM {rules.version} starts it only where the target's decoder "
                     "relays its auxiliary hidden states between stages (supports_aux_hidden_states_over_pp: LlamaModel, "
                     f"Qwen2Model and their subclasses); {'/'.join(model.architectures or ()) or model.id} is not among "
                     "the architectures kvplan read as doing so, and vLLM refuses it otherwise ('... does not support "
                     "eagle3 with pipeline parallelism')")
    if spec and spec[0] in DRAFT_METHODS:
        d_bytes, d_parts, d_notes = drafter_weights(resolved.draft, model, spec[0], tp=tp, pp=pp, dtype_bytes=DTYPE_BYTES[resolved.dtype],
                                              gpu_cc=gpu.cc, gpu_vendor=gpu.vendor)
        # the drafter loads on the last pipeline stage: the busiest rank grows only as far as that stage outgrows it
        stages = tuple(w.stage_bytes[:-1]) + (w.stage_bytes[-1] + d_bytes,) if w.stage_bytes else ()
        busiest = w.bytes - max(w.stage_bytes) + max(stages) if stages else w.bytes + d_bytes
        w = replace(w, bytes=busiest, exact=w.exact and spec[0] == "draft_model" and resolved.draft.checkpoint is not None,
                    by_use=tuple(w.by_use) + (("drafter", d_bytes),) if w.by_use else w.by_use, stage_bytes=stages)
        w_formula += f" + {d_bytes:,} B {spec[0]} drafter ({resolved.draft.id})"
        spec_info.update(draft_model=resolved.draft.id, draft_source=resolved.draft.source, draft_commit=resolved.draft.commit,
                         draft_decoder_layers=resolved.draft.num_layers,
                         draft_kv_layers=sum(l.kind != "none" for l in resolved.draft.layers) if rules.is_v1 else 0,
                         draft_weights_bytes=d_bytes, draft_weights_parts=dict(d_parts),
                         draft_profile_bytes=(_drafter_profile_bytes(model, resolved, rules) or (0,))[0],
                         lookahead_slots_per_sequence=spec[1])
        notes.extend(d_notes)
    if resolved.enable_lora:
        loras, rank = resolved.max_loras or 1, resolved.max_lora_rank or 16
        lora = lora_buffer_bytes(model, max_loras=loras, max_lora_rank=rank, dtype_bytes=DTYPE_BYTES[resolved.dtype], tp=tp,
                                 fully_sharded=resolved.fully_sharded_loras, extra_vocab=rules.lora_extra_vocab,
                                 moe_lora=rules.lora_moe)
        w = replace(w, bytes=w.bytes + lora)
        w_formula += f" + {lora:,} B LoRA slots"
        notes.append(f"--enable-lora: {lora / GIB:.2f} GiB of LoRA slots per rank ({loras} x rank {rank} on every supported "
                     "layer, embedding and lm_head), allocated while the model loads")
    deepstack = deepstack_buffer_bytes(model, resolved, rules, text_only)
    if deepstack:
        w = replace(w, bytes=w.bytes + deepstack)
        w_formula += f" + {deepstack:,} B deepstack buffers"
        notes.append(f"Qwen3-VL deepstack buffers: {len(model.vision_config['deepstack_visual_indexes'])} x "
                     f"{resolved.max_num_batched_tokens:,} tokens x {model.hidden_size:,} x "
                     f"{DTYPE_BYTES.get(resolved.dtype, 2)} B = {deepstack / 1024 ** 2:.0f} MiB per rank, allocated while the "
                     "model loads (models/qwen3_vl.py)")
    if resolved.cpu_offload_gb:
        # UVA offload moves whole parameters to pinned CPU memory until the budget is reached (model_executor/offloader/
        # uva.py), so the GPU keeps the rest; the last parameter moved can overshoot the budget by its own size
        moved = min(w.bytes, int(resolved.cpu_offload_gb * GIB))
        w = replace(w, bytes=w.bytes - moved)
        w_formula += f" - {moved:,} B CPU offload"
        notes.append(f"--cpu-offload-gb {resolved.cpu_offload_gb:g}: {moved / GIB:.2f} GiB of weights per GPU stay in CPU memory "
                     "(streamed over PCIe every forward; up to one parameter more may move)")
    notes += list(w.notes)
    measured = measured_terms(model, gpu, resolved, rules)
    act, act_f, src = measured["activation_peak"]
    sampler_note = sampler_kernel_note(rules, coefficients_for(rules.era), model)
    if sampler_note:
        notes.append(sampler_note)
    nt, nt_f, _ = measured["non_torch"]
    estimate, cg_f, _ = measured["cudagraph"]
    capture = measured["cudagraph_capture"][0]
    if site_offsets:
        act += int(site_offsets.get("activation_peak_bytes", 0))
        nt += int(site_offsets.get("non_torch_bytes", 0))
        estimate += int(site_offsets.get("cudagraph_bytes", 0))
        capture += int(site_offsets.get("cudagraph_bytes", 0))
        notes.append(f"site calibration applied: {site_offsets.get('source', 'kvplan reconcile --calibrate')}")
        # shown, not only listed: the numbers differ from an uncalibrated plan's (`kvplan validate`'s, --overhead-gb's)
        moved = [f"{name} {int(site_offsets.get(key, 0)) / GIB:+.2f} GiB" for key, name in
                 (("activation_peak_bytes", "activation"), ("non_torch_bytes", "non-torch"), ("cudagraph_bytes", "CUDA graphs"))
                 if int(site_offsets.get(key, 0))]
        warns.append(f"site calibration applied ({site_offsets.get('source', 'kvplan reconcile --calibrate')}): "
                     + (", ".join(moved) if moved else "no term moved") + " per rank, as those startups measured")
    cg = estimate if rules.cudagraph_subtracted else 0
    graphs = cudagraph_plan(model, gpu, resolved, rules)
    runner = model_runner(model, resolved, rules)
    graph_info = None
    if resolved.captures_cuda_graphs:
        g_per = coefficients_for(rules.era).g_per_layer_size
        drafter_graph_bytes = int(g_per * graphs.drafter_layers * graphs.drafter_graphs)
        graph_info = dict(graphs.to_dict(), capture_bytes=capture, drafter_graph_bytes=drafter_graph_bytes,
                          model_runner=runner)
        if runner == "v2" and rules.cudagraph_subtracted:
            graph_info["drafter_graph_bytes"] = drafter_graph_bytes = 0  # v2's estimate is its own (measured_terms)
        if spec_info is not None:
            spec_info.update(drafter_cudagraphs=graphs.drafter_graphs, drafter_cudagraph_bytes=drafter_graph_bytes)
        if graphs.mode_note:
            notes.append(f"CUDA graphs: {graphs.mode_note}")
        if graphs.source != "default":
            shown = ", ".join(map(str, graphs.sizes)) if len(graphs.sizes) <= 12 else (
                f"{', '.join(map(str, graphs.sizes[:6]))}, ... {graphs.sizes[-1]}")
            notes.append(f"CUDA graphs: {len(graphs.sizes)} capture size(s) ({shown or 'none'}) from {graphs.source} "
                         "(config/vllm.py VllmConfig._set_cudagraph_sizes), not vLLM's default list")
        if graphs.rounded_to > 1:
            how = (f"1 + {spec[1]} = {graphs.rounded_to}" if graphs.rounded_to == 1 + spec[1] else
                   f"max(1 + {spec[1]}, TP {resolved.tensor_parallel_size}) = {graphs.rounded_to}")
            notes.append(f"CUDA graphs: speculative decoding rounds the capture sizes to multiples of {how} "
                         f"({len(graphs.sizes)} sizes, largest {graphs.largest}; compilation.py "
                         "adjust_cudagraph_sizes_for_spec_decode)")
        if graphs.drafter_layers and not graphs.drafter_graphs and runner == "v2":
            notes.append("CUDA graphs: model runner v2 captures the drafter's graphs with its speculator's own graph "
                         "managers, measured in the same pool as the target's (v1/worker/gpu/cudagraph_utils.py "
                         "profile_cudagraph_memory, 0.33.0); kvplan's v2 estimate does not count them apart")
        if graphs.drafter_graphs:
            notes.append(f"CUDA graphs: the drafter's {graphs.drafter_layers} layer(s) capture {graphs.drafter_graphs} "
                         f"PIECEWISE graphs of their own in the target's graph pool ({drafter_graph_bytes / GIB:.3f} GiB "
                         "at the per-layer graph rate; llm_base_proposer.py initialize_cudagraph_keys)")
    v0_state = _v0_mamba_cache_bytes(model, resolved, rules)
    if v0_state:
        act += v0_state
        act_f += f" + V0 Mamba cache {v0_state / GIB:.2f} GiB"
        notes.append(f"V0 engine: the Mamba state of {_v0_state_seqs(resolved)} sequences ({v0_state / GIB:.2f} GiB) is allocated on the "
                     "profile run's first forward, so it is part of the peak (model_executor/models/mamba_cache.py)")
    drafter_profile = 0  # the drafter's profile buffers: on the last pipeline stage only, where the drafter is built
    for label, extra, note in computed_profile_terms(model, gpu, resolved, rules, act):
        act += extra
        if label == DRAFTER_PROFILE_LABEL:
            drafter_profile = extra
        if extra:
            act_f += f" + {label} {extra / GIB:.2f} GiB"
        notes.append(note)
    skip_note, skip_warning = skip_mm_profiling_says(model, resolved, rules, act)
    notes += [skip_note] if skip_note else []
    warns += [skip_warning] if skip_warning else []
    available = requested - w.bytes - nt - act - cg
    if resolved.kv_cache_memory_bytes is not None:
        # --kv-cache-memory-bytes: profiling still runs, but the pool is exactly this (section 1.3)
        available = float(resolved.kv_cache_memory_bytes)
        notes.append(f"KV-cache memory given: {available / GIB:.2f} GiB (--kv-cache-memory-bytes); utilization ignored")

    groups, bytes_per_block, block_formula = build_groups(model, resolved, rules, notes, warns, gpu)
    act_first = act - measured["activation_peak"][0] + measured["activation_no_sampler"][0] - drafter_profile
    staged = _pipeline_stage_pool(model, resolved, rules, groups, w, requested, nt, cg, act, act_first,
                                  nt - measured["non_torch"][0] + measured["non_torch_no_sampler"][0])
    if staged is not None:
        available, bytes_per_block, stage_note, stage_pools = staged
        block_formula += f"; {stage_note}"
        notes.append(stage_note)
    bs = min(g.block_size for g in groups)
    if model.compressed_attention:
        bs = _DSV4_BLOCK  # "Setting kv cache block size to 256 for DEEPSEEK_SPARSE_SWA backend": the attention block
    resolved = replace(resolved, block_size=bs)
    num_blocks = max(0, int(available // bytes_per_block)) if available > 0 else 0
    max_len = resolved.max_model_len
    group_blocks = [_group_blocks(g, max_len, resolved, rules) for g in groups]
    per_req = sum(group_blocks)
    # its formula: each group's blocks, equal groups counted ("6 x 1,089 sliding"), so the parts add up to the term
    per_kind = Counter((g.kind, b) for g, b in zip(groups, group_blocks))
    per_req_formula = (" + ".join(f"{n} x {b:,} {kind}" if n > 1 else f"{b:,} {kind}" for (kind, b), n in per_kind.items())
                       + f": one {max_len:,}-token request's blocks in each of {len(groups)} group(s)")
    if rules.dsv4_accounting in ("layer_tuple", "page_slots") and groups[0].fit_unit_bytes:
        # DeepSeek-V4 up to 0.26: a request's blocks weighted by each group's bytes over the attention group's
        per_req = cdiv(sum(b * g.page_bytes for g, b in zip(groups, group_blocks)), groups[0].page_bytes)
        per_req_formula = (f"cdiv({' + '.join(f'{b:,} x {g.page_bytes:,} B' for g, b in zip(groups, group_blocks))}, "
                           f"{groups[0].page_bytes:,} B): each group's blocks weighted by its page over the attention group's")
    logged_block = [_logged_block_size(g, max_len, resolved, rules) for g in groups]
    conc, tokens, conc_formula, tokens_formula = _capacity(groups, num_blocks, per_req, max_len, bs, rules, logged_block)

    kv_per_token, state_per_seq = _per_token_and_state(groups, resolved, rules)
    kv_per_token_formula = _per_token_formula(model, groups, resolved)
    fits, error, est_len = _fit_check(groups, available, bytes_per_block, num_blocks, resolved, rules)
    failure = None if fits else "memory"
    if fits:
        state_error = state_blocks_refusal(groups, num_blocks, resolved, rules, gpu, notes, warns)
        if state_error:
            fits, error, failure = False, state_error, "state_blocks"
    load_error = _load_oom(gpu, w.bytes)
    if load_error:
        fits, error, failure, est_len = False, load_error, "load", None
    startup_error = _startup_error(gpu, resolved, rules, quant, args.quantization) or backend_error
    if startup_error:
        fits, error, failure = False, startup_error, "platform"
    arch = architecture_refusal(model.architectures, rules.release) if check_architecture else None
    if arch and arch[0] == "unknown":
        warns.append(arch[1])
    elif arch:  # ModelConfig refuses it while reading the config: before any worker, GPU check or load
        fits, error, failure = False, arch[1], "architecture"
    # a compiling first start's pool beside the warm one planned here (fit --json first_start, --explain)
    moe_ws = measured.get("moe_workspace_in_non_torch", (0,))[0]
    cold_loss = (cold_start_pool_loss_bytes(model, resolved, rules, act + moe_ws)
                 if rules.engine != "v0"
                 and inductor_compiles(resolved) and resolved.kv_cache_memory_bytes is None else None)
    if cold_loss is not None and staged is not None and cold_loss.modelled and cold_loss.most > 0:
        cold_loss = pipeline_cold_start_loss(model, resolved, rules, stage_pools, available, bytes_per_block,
                                             act_first + moe_ws, cold_loss)
    cache_note = compile_cache_note(None)
    if cold_loss is not None and cache_note in notes:
        notes[notes.index(cache_note)] = compile_cache_note(cold_loss)
    first_refused = False
    if fits and cold_loss is not None:
        outcome = _cold_start_outcome(groups, available, bytes_per_block, resolved, rules, gpu, auto_fit, cold_loss)
        cold_warning = _cold_start_warning(resolved, max_len, auto_fit, cold_loss, outcome)
        if cold_warning:
            warns.append(cold_warning)
        first_refused = outcome.refused  # refused implies a warning: the one reading of both
    if fits and conc < 1:
        # the release's own check passed (0.14-0.18 count only the first KV group's need), yet its log prints a
        # concurrency below 1x: the pool cannot hold one request of max_model_len in all its groups
        warns.append(f"vLLM {rules.version} starts, but the pool holds {conc:.2f}x of one {max_len:,}-token request "
                     f"({num_blocks:,} of the {per_req:,} blocks it needs): a request that long cannot be held whole; "
                     "--max-model-len auto --concurrency 1 gives the length that can")
    terms = (
        Term("total", total, "bytes", f"{gpu.name}: {total / GIB:.2f} GiB", gpu.total_source),
        Term("requested", requested, "bytes", f"{'ceil(' if rules.requested_is_ceil else ''}{total / GIB:.2f} GiB x {util}{')' if rules.requested_is_ceil else ''}", "vllm-memory-model.md §1.2"),
        Term("weights", w.bytes, "bytes", w_formula, w.method),
        Term("non_torch", nt, "bytes", nt_f, src),
        Term("activation_peak", act, "bytes", act_f, src),
        Term("cudagraph", cg, "bytes", cg_f if rules.cudagraph_subtracted else f"not subtracted in {rules.era} (captured after the KV allocation: ~{capture / GIB:.2f} GiB beyond the budget)", src),
        Term("kv_cache", available, "bytes", "requested - weights - non_torch - activation_peak - cudagraph"
             if resolved.kv_cache_memory_bytes is None else f"--kv-cache-memory-bytes {resolved.kv_cache_memory_bytes:,} as given "
             "(the budget's other terms are profiled, not subtracted)", "vllm-memory-model.md §1.3"),
        Term("kv_bytes_per_token", kv_per_token, "B/token", kv_per_token_formula, "vllm-memory-model.md §3.1"),
        Term("bytes_per_block", bytes_per_block, "B", block_formula, "vllm-memory-model.md §3.1-3.3"),
        Term("num_gpu_blocks", num_blocks, "blocks", f"floor({available / GIB:.4f} GiB / {bytes_per_block:,} B)", "vllm-memory-model.md §3.3"),
        Term("blocks_per_request", per_req, "blocks", per_req_formula, "vllm-memory-model.md §3.4"),
        Term("max_concurrency", conc, "x", conc_formula, "vllm-memory-model.md §3.5"),
        Term("kv_cache_tokens", tokens, "tokens", tokens_formula, "vllm-memory-model.md §3.5"),
    )
    # a state-block refusal comes while the CUDA graphs are set up, after the pool is sized and logged: the pool's lines,
    # then vLLM's ValueError (not a KV-cache check's error line)
    state_refused = failure == "state_blocks"
    log = _log_lines(rules, gpu, util, requested, w.bytes, nt, act, cg, capture, available, num_blocks, bytes_per_block,
                     tokens, conc, max_len, fits, None if state_refused else error, bs, resolved,
                     runner=runner)
    if state_refused:
        log += ("ValueError: " + error,)
    if failure == "load":  # the weights' allocations fail mid-load: no "Model loading took", budget or pool line
        log = ("torch.OutOfMemoryError: " + error,)
    if failure == "architecture":
        log = ("ValueError: " + error,)
    if failure == "platform":  # stopped at worker start (dtype check) or its first kernel: nothing is loaded or sized
        log = (("RuntimeError: " if "no kernel image" in error else "ValueError: ") + error,)
    return Plan(model=model, gpu=gpu, args=resolved, rules=rules, mode="vllm", total_bytes=total, requested_bytes=requested,
                weights_bytes=w.bytes, weights_exact=w.exact, weights_by_use=w.by_use, activation_peak_bytes=act, non_torch_bytes=nt,
                cudagraph_bytes=cg, cudagraph_capture_bytes=capture, kv_cache_bytes=available, groups=groups,
                bytes_per_block=bytes_per_block, num_gpu_blocks=num_blocks, kv_cache_tokens=tokens, max_concurrency=conc,
                kv_bytes_per_token=kv_per_token, state_bytes_per_sequence=state_per_seq, fits=fits, error=error,
                estimated_max_model_len=est_len, vllm_log=log, terms=terms, assumptions=tuple(dict.fromkeys(notes)),
                warnings=tuple(warns), failure=failure, speculative=spec_info, cudagraphs=graph_info,
                model_runner={"runner": runner, "why": runner_why} if rules.is_v1 else None,
                first_start=cold_loss.to_dict(available) if cold_loss is not None else None,
                first_start_refused=first_refused)


def _auto_fit_plan(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules,
                   extra_assumptions: Iterable[str], site_offsets: dict | None, check_architecture: bool) -> Plan:
    """--max-model-len -1 (>= 0.14, section 4): plan at the model's limit; when one request of that length does not
    fit, vLLM takes the estimated maximum length the fit check computes (a binary search of the same need) instead."""
    if not rules.max_model_len_auto_fit:
        raise InputError("--max-model-len", f"-1 (auto-fit) is not a vLLM {rules.version} option",
                         "give a length, or plan with --vllm-version 0.14 or newer")
    full = _plan(model, gpu, replace(args, max_model_len=None), rules=rules, extra_assumptions=extra_assumptions,
                 site_offsets=site_offsets, check_architecture=check_architecture, auto_fit=True)
    limit = full.args.max_model_len
    if not full.fits and (full.failure != "memory" or full.kv_cache_bytes <= 0):
        return full  # a platform error, or "No available memory for the cache blocks", comes first
    if full.fits:
        note = f"Auto-fit max_model_len: full model context length {limit} fits in available KV cache memory"
        return replace(full, assumptions=full.assumptions + (note,), vllm_log=full.vllm_log + (note,))
    if not full.estimated_max_model_len:
        error = ("Cannot auto-fit max_model_len: not enough GPU memory available to serve even a single token. "
                 "Try increasing `gpu_memory_utilization`.")
        return replace(full, error=error, vllm_log=full.vllm_log + (error,))
    fitted = _plan(model, gpu, replace(args, max_model_len=full.estimated_max_model_len), rules=rules,
                   extra_assumptions=extra_assumptions, site_offsets=site_offsets, check_architecture=check_architecture,
                   auto_fit=True)
    note = (f"Auto-fit max_model_len: reduced from {limit} to {fitted.args.max_model_len} to fit in available KV cache "
            f"memory ({fitted.kv_cache_bytes / GIB:.2f} GiB GPU)")
    log = list(fitted.vllm_log)
    at = next((i for i, line in enumerate(log) if "KV cache size" in line or "Maximum concurrency" in line), len(log))
    log.insert(at, note)  # logged while the KV-cache config is built, before the capacity lines
    return replace(fitted, assumptions=fitted.assumptions + (note,), vllm_log=tuple(log))


def state_blocks_refusal(groups, num_blocks: int, args: EngineArgs, rules: VersionRules, gpu: GPUSpec | None = None,
                         notes: list[str] | None = None, warns: list[str] | None = None) -> str | None:
    """vLLM's refusal (rule state_blocks_refuse_max_num_seqs) of a hybrid model whose pool holds fewer blocks than
    max_num_seqs: each decoding sequence holds one recurrent-state block in a full CUDA graph, so the graphs cannot
    be captured; None when it does not apply (no recurrent group, --enforce-eager, a release before the check, or
    speculative decoding that downgrades the graphs to PIECEWISE: _spec_decode_piecewise, noted in `notes`). Refused
    with speculative decoding, a warning in `warns` names the attention-backend choice kvplan does not model."""
    if not rules.state_blocks_refuse_max_num_seqs or args.enforce_eager:
        return None
    if not any(g.kind == "recurrent" for g in groups) or num_blocks >= args.max_num_seqs:
        return None
    seqs = f"max_num_seqs ({args.max_num_seqs}) above the {num_blocks} Mamba cache blocks"
    if args.cudagraph_mode in ("NONE", "PIECEWISE"):
        if notes is not None:
            notes.append(f"{seqs} not refused: --compilation-config cudagraph_mode {args.cudagraph_mode} captures no FULL "
                         "decode graphs, and vLLM's state-block check runs only with them (config/compilation.py "
                         "resolve_cudagraph_mode_and_sizes: cudagraph_mode.has_full_cudagraphs())")
        return None
    if args.speculative:
        why = _spec_decode_piecewise((g.recurrent_kind for g in groups), args, rules, gpu)
        if why:
            if notes is not None:
                notes.append(f"{seqs} not refused: with speculative decoding {why}, so vLLM {rules.version} downgrades "
                             "the CUDA graphs to PIECEWISE ('not supported with spec-decode ...; setting "
                             "cudagraph_mode=PIECEWISE'), and its state-block check runs only with FULL decode graphs "
                             "(config/compilation.py resolve_cudagraph_mode_and_sizes)")
            return None
        if warns is not None:
            warns.append(f"{seqs} with speculative decoding: refused as vLLM does when it keeps FULL decode CUDA graphs, "
                         "which needs every attention backend to support uniform multi-token decode graphs "
                         "(UNIFORM_BATCH). kvplan expects the backend vLLM picks by default here to support them "
                         "(FlashAttention; FlashInfer with TRTLLM kernels on Blackwell) and does not model a fallback "
                         "or an --attention-backend choice without that support (e.g. FlashInfer without TRTLLM "
                         "kernels), under which vLLM downgrades to PIECEWISE graphs and starts (vLLM issue #49547)")
    return (f"max_num_seqs ({args.max_num_seqs}) exceeds available Mamba cache blocks ({num_blocks}). Each decode sequence "
            "requires one Mamba cache block, so CUDA graph capture cannot proceed. Please lower max_num_seqs to at most "
            f"{num_blocks} or increase gpu_memory_utilization.")


_FP8_KV = ("fp8", "fp8_e4m3", "fp8_e5m2")


def _spec_decode_piecewise(recurrent_kinds: Iterable[str | None], args: EngineArgs, rules: VersionRules,
                           gpu: GPUSpec | None) -> str | None:
    """Why speculative decoding leaves no FULL decode graphs (an attention backend below UNIFORM_BATCH graph support;
    rules spec_decode_piecewise_*), or None where kvplan expects vLLM to keep them. `recurrent_kinds`: the model's
    recurrent layer kinds (mamba1, mamba2, gdn, linear)."""
    kinds = sorted({k for k in recurrent_kinds if k in rules.spec_decode_piecewise_recurrent_kinds})
    if kinds:
        return (f"the {', '.join(kinds)} recurrent layers' metadata builder supports single-token decode graphs only "
                "(UNIFORM_SINGLE_TOKEN_DECODE, v1/attention/backends/linear_attn.py)")
    kv = (args.kv_cache_dtype or "auto").lower()
    if (gpu is not None and gpu.vendor == "NVIDIA" and gpu.cc and gpu.cc[0] in rules.spec_decode_piecewise_fp8_kv_cc_majors
            and kv in _FP8_KV):
        return (f"the {kv} KV cache on {gpu.name} (compute capability {gpu.compute_capability}) is served by FlashInfer "
                "(FlashAttention takes fp8 KV only on Hopper) without TRTLLM kernels, whose graphs cover single-token "
                "decode only (UNIFORM_SINGLE_TOKEN_DECODE)")
    return None


def _load_oom(gpu: GPUSpec, weights_per_rank: int) -> str | None:
    """Weights per rank beyond the GPU's whole memory: the load itself fails (PyTorch's caching allocator raises
    torch.OutOfMemoryError, "CUDA out of memory. Tried to allocate ..."), before vLLM profiles or sizes a KV pool, so
    gpu_memory_utilization cannot help. Weights within the card but beyond the budget load, and vLLM then reports
    "No available memory for the cache blocks" (the memory check of _fit_check)."""
    total = gpu.total_bytes
    if weights_per_rank <= total:
        return None
    return (f"CUDA out of memory while loading the model weights: {weights_per_rank / GIB:.2f} GiB per rank do not fit "
            f"in the {total / GIB:.2f} GiB of {gpu.name}")


def vllm_quant_method(quant: QuantSpec | None) -> str | None:
    """The --quantization name vLLM serves a checkpoint's quantization with (None: unquantized or unknown)."""
    if quant is None:
        return None
    if quant.method == "modelopt":  # ModelOpt FP8 and NVFP4 are two methods in vLLM; mixed precision a third
        return "modelopt" if quant.bits == 8 else ("modelopt_fp4" if "nvfp4" in quant.scheme else None)
    return quant.method


def quant_capability_error(method: str | None, gpu: GPUSpec, version: str) -> str | None:
    """vLLM's refusal when `method` needs a newer GPU than `gpu` (versions.QUANT_MIN_CAPABILITY), else None."""
    need = quant_min_capability(method, version)
    if need is None or gpu.cc is None or gpu.vendor != "NVIDIA" or gpu.cc >= need:
        return None
    return (f"The quantization method {method} is not supported for the current GPU. Minimum capability: "
            f"{need[0]}{need[1]}. Current capability: {gpu.cc[0]}{gpu.cc[1]}. ({gpu.name}; vLLM {version})")


def _startup_error(gpu: GPUSpec, args: EngineArgs, rules: VersionRules, quant: QuantSpec | None = None,
                   given_quant: str | None = None) -> str | None:
    """Errors vLLM stops with before it sizes anything: the GPU generation, the dtype and the quantization method it
    supports."""
    if gpu.cc is None or gpu.vendor != "NVIDIA":
        return None
    floor = rules.min_compute_capability
    if gpu.cc < floor:
        return (f"{gpu.name} has compute capability {gpu.compute_capability}, below the {floor[0]}.{floor[1]} that vLLM {rules.version}'s "
                f"wheels are built for (CUDA error: no kernel image is available for execution on the device)")
    if args.dtype == "bfloat16" and gpu.cc < (8, 0):
        return (f"Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your {gpu.name} GPU has compute "
                f"capability {gpu.compute_capability}. You can use float16 instead by explicitly setting the `dtype` flag in CLI, "
                f"for example: --dtype=half.")
    method = canonical_quant(given_quant) if given_quant else vllm_quant_method(quant)
    return quant_capability_error(method, gpu, rules.version)


def _logged_block_size(g: KVGroup, max_len: int, args: EngineArgs, rules: VersionRules) -> int:
    """The block size of a group's spec as vLLM holds it: a Mamba group's is max_model_len in "none" mode (one page a
    sequence: cache_config.mamba_block_size = max_model_len), the attention block size otherwise."""
    if g.kind == "recurrent" and mamba_cache_mode(g, args, rules) == "none":
        return max_len
    return g.block_size


def _capacity(groups, num_blocks: int, per_req: int, max_len: int, bs: int,
              rules: VersionRules, logged_block: list[int]) -> tuple[float, int, str, str]:
    """(max concurrency, KV-cache tokens) exactly as the version computes them (section 3.5), each with its formula
    in words and in the numbers that give it. `logged_block`: each group's spec block size (_logged_block_size)."""
    if rules.tokens_formula == "blocks_x_block_size":
        tokens = num_blocks * bs
        return (tokens / max_len, tokens, f"{num_blocks:,} x {bs} / {max_len:,}",
                f"num_gpu_blocks x block_size = {num_blocks:,} x {bs}")
    conc = num_blocks / per_req if per_req else 0.0
    conc_formula = f"{num_blocks:,} / {per_req:,}"
    if rules.tokens_formula == "blocks_per_group_x_block_size":
        if len(groups) == 1 and rules.uniform_spec_tokens_block == "cache":  # one spec: the cache's block size
            return (conc, num_blocks * bs, conc_formula, f"num_gpu_blocks x block_size = {num_blocks:,} x {bs}")
        min_bs = min(logged_block)
        return (conc, num_blocks // len(groups) * min_bs, conc_formula,
                f"num_gpu_blocks // num_groups x min block size = {num_blocks:,} // {len(groups)} x {min_bs}")
    return conc, int(conc * max_len), conc_formula, f"int(max_concurrency x max_model_len) = int({conc_formula} x {max_len:,})"


def _per_token_and_state(groups, args: EngineArgs, rules: VersionRules) -> tuple[float, int]:
    """Bytes that grow with each token (full attention, MLA) vs fixed per sequence (state, windows)."""
    per_token = 0.0
    state = 0
    for g in groups:
        if g.kind in ("full", "mla"):
            per_token += g.num_layers * g.page_bytes / g.block_size
        else:
            state += g.num_layers * g.page_bytes * _group_blocks(g, args.max_model_len, args, rules)
    return per_token, state


def _per_token_formula(model: ModelSpec, groups, args: EngineArgs) -> str:
    """How kv_bytes_per_token adds up: each growing group's layers x its bytes per token and layer (page / block size),
    with one attention layer's bytes spelled out (section 3.1)."""
    growing = [g for g in groups if g.kind in ("full", "mla")]
    if not growing:
        return "0: no layer keeps every token (window and state layers are a fixed cost per sequence)"
    per_layer = [g.page_bytes / g.block_size for g in growing]
    sums = " + ".join(f"{g.num_layers} x " + f"{b:,.4f}".rstrip("0").rstrip(".") + " B" for g, b in zip(growing, per_layer))
    shapes = {(l.num_kv_heads, l.head_dim, l.head_dim_v) for l in model.layers if l.is_attention}
    layer = next((l for l in model.layers if l.kind == growing[0].kind), None) if len(shapes) == 1 else None
    kvb = kv_dtype_bytes(args.kv_cache_dtype, args.dtype)
    if layer is None or model.compressed_attention or model.sparse_mla:
        how = "layers x bytes per token and layer (mean over the layers' shapes where they differ)"
    elif layer.kind == "mla":
        how = f"layers x one latent of {layer.head_dim} x {kvb} B per token, on every rank"
    else:
        heads = heads_per_rank(layer.num_kv_heads, args.tensor_parallel_size)
        how = (f"layers x {heads} KV head(s) per rank x (K {layer.head_dim} + V {layer.head_dim_v or layer.head_dim}) "
               f"x {kvb} B per token")
    return f"{sums}: {how}"


def _fit_check(groups, available: float, bytes_per_block: int, num_blocks: int, args: EngineArgs, rules: VersionRules):
    """Does one max_model_len request fit? (section 4) -> (fits, vLLM's error text, estimated max length)."""
    max_len = args.max_model_len
    bs = min(g.block_size for g in groups)
    # V1 stops on available <= 0; V0 on no whole block (section 4)
    if available <= 0 or (rules.engine == "v0" and num_blocks <= 0):
        text = "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."
        if rules.no_memory_error_format == "short-see":
            text += " See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."
        if rules.no_memory_error_format == "long":
            text = ("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine "
                    "(this flag also controls CPU memory reservation on the CPU backend, despite its name). "
                    "See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.")
        return False, text, 0
    if rules.fit_error_format == "v0":
        pp = args.pipeline_parallel_size if rules.v0_capacity_per_stage else 1
        capacity = bs * (num_blocks // pp)
        if max_len > capacity:
            return False, (f"The model's max seq len ({max_len}) is larger than the maximum number of tokens that can be stored in KV cache "
                           f"({capacity}). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."), capacity
        return True, None, capacity
    avail = available - (bytes_per_block if rules.null_block_in_fit_check else 0)

    def needed(length: int) -> int:
        """Memory one request of `length` tokens needs, as this version's check computes it (section 4)."""
        if groups[0].fit_unit_bytes:  # DeepSeek-V4 up to 0.28: layer tuples
            return groups[0].fit_unit_bytes * _blocks_per_request(groups, length, args, rules)
        if rules.fit_need_formula == "sum_layers":  # each real layer's own need: padding slots do not count
            need = sum(g.num_layers * g.page_bytes * _group_blocks(g, length, args, rules) for g in groups)
            for g in groups:  # window layers held as full attention, charged their own window (fit_check_sees_windows)
                full = _group_blocks(g, length, args, rules)
                for kind, window, n in g.checked_windows:
                    need -= n * g.page_bytes * (full - _group_blocks(replace(g, kind=kind, window=window), length, args, rules))
            return need
        if rules.fit_need_formula == "first_group":
            return bytes_per_block * _group_blocks(groups[0], length, args, rules)
        return bytes_per_block * _blocks_per_request(groups, length, args, rules)

    need = needed(max_len)
    if need <= avail:
        return True, None, None
    lo, hi = 0, max_len
    while lo < hi:  # largest length whose need fits
        mid = (lo + hi + 1) // 2
        if needed(mid) <= avail:
            lo = mid
        else:
            hi = mid - 1
    est = lo
    fmt = rules.fit_error_format
    est_text = f"Based on the available memory, the estimated maximum model length is {est}. " if est else ""
    if fmt in ("v1-models-2f", "v1-models-2f-see"):
        see = " See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details." if fmt.endswith("-see") else ""
        return False, (f"To serve at least one request with the models's max seq len ({max_len}), ({need / GIB:.2f} GiB KV cache is needed, "
                       f"which is larger than the available KV cache memory ({avail / GIB:.2f} GiB). {est_text}Try increasing "
                       f"`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.{see}"), est
    if fmt == "v1-models-gib":
        return False, (f"To serve at least one request with the models's max seq len ({max_len}), ({_format_gib(need)} GiB KV cache is needed, "
                       f"which is larger than the available KV cache memory ({_format_gib(avail)} GiB). {est_text}Try increasing "
                       f"`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine. "
                       f"See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."), est
    return False, (f"To serve at least one request with the model's max seq len ({max_len}), ({_format_gib(need)} GiB KV cache is needed, "
                   f"which is larger than the available KV cache memory ({_format_gib(avail)} GiB). {est_text}Try increasing "
                   f"`gpu_memory_utilization` (which also controls CPU memory on the CPU backend) or decreasing `max_model_len` when "
                   f"initializing the engine. See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."), est


def _log_lines(rules: VersionRules, gpu: GPUSpec, util: float, requested: float, weights: int, nt: int, act: int, cg: int,
               capture: int, available: float, num_blocks: int, bytes_per_block: int, tokens: int, conc: float,
               max_len: int, fits: bool, error: str | None, bs: int, args: EngineArgs, runner: str = "v1") -> tuple[str, ...]:
    """The startup lines this vLLM version would print (formats: section 8). Model runner v2 prints no "Estimated CUDA
    graph memory" line (v1/worker/gpu/model_runner.py)."""
    lines = []
    fmt = rules.weights_log_format
    w = weights / GIB
    lines.append({"gb": f"Loading model weights took {w:.4f} GB",
                  "gib-4f": f"Model loading took {w:.4f} GiB and … seconds",
                  "gib-4f-memory": f"Model loading took {w:.4f} GiB memory and … seconds",
                  "gib-round-memory": f"Model loading took {round(w, 2)} GiB memory and … seconds"}[fmt])
    if rules.engine == "v0" and rules.era == "V0-c":
        lines.append(f"Memory profiling takes … seconds\nthe current vLLM instance can use total_gpu_memory ({gpu.total_gib:.2f}GiB) x "
                     f"gpu_memory_utilization ({util:.2f}) = {requested / GIB:.2f}GiB\nmodel weights take {w:.2f}GiB; non_torch_memory takes "
                     f"{nt / GIB:.2f}GiB; PyTorch activation peak memory takes {act / GIB:.2f}GiB; the rest of the memory reserved for KV Cache is "
                     f"{available / GIB:.2f}GiB.")
    if rules.is_v1 and rules.log_cudagraph_estimate and cg and runner == "v1":
        lines.append(f"Estimated CUDA graph memory: {cg / GIB:.2f} GiB total")
    if rules.is_v1 and args.kv_cache_memory_bytes is not None:  # gpu_worker's determine_available_memory (>= 0.10.2)
        lines.append(f"Initial free memory … GiB, reserved {available / GIB:.2f} GiB memory for KV Cache as specified by "
                     "kv_cache_memory_bytes config and skipped memory profiling.")
    elif rules.is_v1 and rules.available_kv_log:  # rules row available_kv_log
        lines.append(f"Available KV cache memory: {_format_gib(available) if rules.available_kv_log == 'format_gib' else f'{available / GIB:.2f}'} GiB")
    if rules.engine == "v0":
        cpu_blocks = int(4 * GIB // bytes_per_block) if bytes_per_block else 0
        dev = rules.v0_blocks_log_device
        lines.append(f"# {dev} blocks: {num_blocks}, # CPU blocks: {cpu_blocks}")
        lines.append(f"Maximum concurrency for {max_len} tokens per request: {conc:.2f}x")
    elif error:
        pass  # V1 raises in get_kv_cache_config's memory check, before it logs the KV cache size
    elif rules.kv_log_format == "v1-one-line":
        lines.append(f"GPU KV cache size: {tokens:,} tokens, Maximum concurrency for {max_len:,} tokens per request: {conc:.2f}x")
    else:
        lines.append(f"GPU KV cache size: {tokens:,} tokens")
        lines.append(f"Maximum concurrency for {max_len:,} tokens per request: {conc:.2f}x")
    if args.captures_cuda_graphs and fits:
        lines.append(f"Graph capturing finished in … secs, took {capture / GIB:.2f} GiB")
    if error:
        lines.append(("ValueError: " if not error.startswith("No available") else "ValueError: ") + error)
    return tuple(lines)


def _refuse_what_the_seed_ignores(model: ModelSpec, args: EngineArgs) -> None:
    """The seed's arithmetic (--overhead-gb: GPU GB x utilization - weights / TP - overhead) has no pipeline stages,
    LoRA slots, given pool, CPU offload, online quantization or drafter: a flag for one would be dropped unread, and
    the numbers silently those of a deployment without it. InputError naming the first."""
    spec = args.speculative
    ignored = [("--pipeline-parallel-size", (args.pipeline_parallel_size or 1) > 1, "pipeline stages"),
               ("--enable-lora", args.enable_lora, "LoRA slots"),
               ("--kv-cache-memory-bytes", args.kv_cache_memory_bytes is not None, "given KV pool"),
               ("--cpu-offload-gb", bool(args.cpu_offload_gb), "CPU offload"),
               ("--quantization", args.quantization is not None and model.quant is None,
                "online quantization (it counts the checkpoint's own weights)"),
               ("--speculative-config", bool(spec and (spec[0] == "mtp" or spec[0] in DRAFT_METHODS)),
                f"{spec[0] if spec else ''} drafter")]
    for flag, given, what in ignored:
        if given:
            raise InputError(flag, f"the seed's arithmetic (--overhead-gb) has no {what}, so {flag} would be ignored",
                             f"drop --overhead-gb to plan {flag} as vLLM starts it, or drop {flag}")


def _simple_plan(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules, quant: QuantSpec | None,
                 notes: list[str]) -> Plan:
    """The seed's arithmetic (anatomy-of-a-vllm-setup.txt, "Try It"), in decimal GB as it prints.

    KV bytes/token = 2 x layers x kv_heads x head_dim x dtype bytes (all layers full attention);
    budget = GPU GB x utilization; KV = budget - weights - overhead; tokens = KV / per-token;
    concurrency = tokens / max_model_len.
    """
    tp = args.tensor_parallel_size
    kv_dtype = kv_dtype_bytes(args.kv_cache_dtype, args.dtype)
    heads = heads_per_rank(model.num_kv_heads, tp)
    per_token = 2 * model.num_layers * heads * model.head_dim * kv_dtype
    # a quantized model, catalog or checkpoint: its weights as the full plan loads them (rank_weights: this GPU's MXFP4
    # backend and its padding too, the rotary cache), all layers on the rank; unquantized, the seed's parameter bytes
    weights = model.weights_bytes // tp if model.quant is None else rank_weights(
        model, gpu, args, rules, quant, pipeline=False).bytes
    total_gb = gpu.total_bytes / GB
    budget = total_gb * args.gpu_memory_utilization * GB
    overhead = args.overhead_gb * GB
    kv = budget - weights - overhead
    tokens_f = kv / per_token if kv > 0 else 0.0
    conc = tokens_f / args.max_model_len
    fits = tokens_f >= args.max_model_len
    error = None if fits else (f"KV budget {kv / GB:.2f} GB holds {tokens_f:,.0f} tokens, fewer than one {args.max_model_len:,}-token request"
                               if kv > 0 else f"weights and overhead exceed the budget: {kv / GB:.2f} GB left for the KV cache")
    notes = notes + [f"simple arithmetic (the seed's): {args.overhead_gb:g} GB overhead, all {model.num_layers} layers full attention, decimal GB"]
    terms = (
        Term("kv_bytes_per_token", per_token, "B/token", f"2 x {model.num_layers} layers x {heads} kv_heads x {model.head_dim} head_dim x {kv_dtype} B", "seed"),
        Term("weights", weights, "bytes", f"{weights / GB:.2f} GB ({weights:,} bytes)", "seed: real parameter bytes"),
        Term("budget", budget, "bytes", f"{total_gb:.2f} GB x {args.gpu_memory_utilization} = {budget / GB:.2f} GB", "seed"),
        Term("kv_cache", kv, "bytes", f"{budget / GB:.2f} - {weights / GB:.2f} - {args.overhead_gb:g} = {kv / GB:.2f} GB", "seed"),
        Term("kv_cache_tokens", tokens_f, "tokens", f"{kv:,.0f} B / {per_token:,} B = {tokens_f:,.0f}", "seed"),
        Term("max_concurrency", conc, "x", f"{tokens_f:,.0f} / {args.max_model_len:,} = {conc:,.0f}", "seed"),
    )
    log = (f"KV per token         : {per_token / 1024:.1f} KB", f"weights              : {weights / GB:.2f} GB",
           f"budget @ {args.gpu_memory_utilization:.0%}         : {budget / GB:.2f} GB", f"available for KV     : {kv / GB:.2f} GB",
           f"total cacheable tokens   : {tokens_f:,.0f}", f"concurrent seqs @ {args.max_model_len:<6}: {conc:,.0f}")
    return Plan(model=model, gpu=gpu, args=args, rules=rules, mode="simple", total_bytes=gpu.total_bytes, requested_bytes=budget,
                weights_bytes=int(weights), weights_exact=model.checkpoint is not None, activation_peak_bytes=0, non_torch_bytes=int(overhead),
                cudagraph_bytes=0, cudagraph_capture_bytes=0, kv_cache_bytes=kv, groups=(KVGroup("full", model.num_layers, args.block_size, per_token // model.num_layers * args.block_size),),
                bytes_per_block=per_token * args.block_size, num_gpu_blocks=max(0, int(kv // (per_token * args.block_size))),
                kv_cache_tokens=int(round(tokens_f)), max_concurrency=conc, kv_bytes_per_token=per_token, state_bytes_per_sequence=0,
                fits=fits, error=error, estimated_max_model_len=int(tokens_f) if not fits else None, vllm_log=log, terms=terms,
                assumptions=tuple(dict.fromkeys(notes)), failure=None if fits else "memory")
