"""resolve_args: the arguments as vLLM's config classes leave them, the release's defaults applied.

What vLLM's EngineArgs.create_engine_config and the config classes' __post_init__ / _verify_args do to the
arguments given, before any memory is counted: the dtype (_resolve_dtype), the quantization method and its
capability gate (_resolve_quant, quant_capability_error), the block size, the tensor- and pipeline-parallel
refusals (accepted_tp_sizes, pp_speculative_refusal), the batch defaults and the multimodal item checks. Runs
first in _plan; imports kvplan.plan.args, multimodal, cudagraphs and terms (the AWQ kernel choice).
"""

from __future__ import annotations

import json

from dataclasses import replace

from kvplan.errors import InputError, RefusedByVLLMError, UndeterminedError
from kvplan.inputs import json_loads
from kvplan.plan.args import (BATCHED_TOKENS_BELOW_MAX_MODEL_LEN, DRAFT_METHODS,
                              MM_ITEM_ABOVE_BATCHED_TOKENS, _DTYPE_ALIASES, EngineArgs, _speculative_method,
                              speculative_method_given, speculative_object)
from kvplan.plan.cudagraphs import model_runner, mrv2_env_value
from kvplan.plan.extensible import default_utilization
from kvplan.plan.kv import runs_mla
from kvplan.plan.multimodal import _largest_active_mm_item, _mm_items_tokens, _prefix_lm_item_tokens
from kvplan.plan.kv import dense_quants, experts_quant, gptq_linear_kernel
from kvplan.plan.terms import awq_kernel_note, awq_linear_kernel
from kvplan.resolve import BNB_IN_FLIGHT, GPUSpec, ModelSpec, QuantSpec, context_limit
from kvplan.versions import (VersionRules, batch_defaults, canonical_quant, first_release_where, parse_version,
                             pp_supported_from, pp_unsupported_architecture,
                             quant_method_last_read, quant_min_capability, quantization_methods, release_from, rules_for)
from kvplan.weights import (FUSED_SHARDS, LAYER_PREFIXES, SUBSTRING_SKIP_METHODS, Component, component_modules, ct_module_scheme, PER_LAYER_HEADS_MODEL_TYPES, attn_output_gate, gated_mlp,
                            head_gate_width, layer_attention_heads, moe_layers, names_layer_module, names_module, quant_as_read,
                            vision_bnb_only_params, vision_linear_params)


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
# is gone from the list and no override there reads a bitsandbytes config). A GGUF file (resolve._from_gguf) has no
# way in from 0.24.0 either: that wheel drops the GGUF loader, quantization method and config reader together
# (model_loader/gguf_loader.py, layers/quantization/gguf.py, transformers_utils/gguf_utils.py, all in 0.23.0). An
# fp_quant checkpoint neither from 0.34.0, whose wheel drops layers/quantization/fp_quant.py and the name (no override
# in its config/model.py _verify_quantization list reads that config).
# Others a release dropped (auto-round) are served another way (an override) and are not refused here.
_CHECKPOINT_METHODS_NO_OVERRIDE = frozenset({"bitsandbytes", "gguf", "fp_quant"})


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


# the online FP8 names of vLLM's --quantization (vllm/config/quantization.py _ONLINE_SHORTHANDS, 0.27-0.33) and the
# weight scales each keeps
ONLINE_FP8_SHORTHANDS = {"fp8_per_tensor": "per tensor", "fp8_per_channel": "per output channel",
                         "fp8_per_block": "per 128x128 block"}


_CONFIG_FILE_METHODS = frozenset({"awq", "gptq", "auto_awq", "auto_gptq", "modelopt"})

# --quantization names that are only vLLM's online quantization (vllm/config/quantization.py _ONLINE_SHORTHANDS and
# "online", which reads --quantization-config; 0.33.0 and 0.34.0 wheels): on an unquantized checkpoint vLLM quantizes
# the weights at load time (model_loader/weight_utils.py get_quant_config builds an OnlineQuantizationConfig), so no
# quantized checkpoint is needed. INT8 weight-only experts, NVFP4 experts with per-token activations (0.27.0 on), an
# MXFP4 Linear with a 32-wide Hadamard rotation and LUT-B experts (both 0.34.0): kvplan sizes none of them. (mxfp4 and
# mxfp8 are checkpoint methods too, read as online only without a checkpoint config: not listed.)
ONLINE_ONLY_UNSIZED = frozenset({"online", "int8_per_channel_weight_only", "nvfp4_per_token", "mxfp4_hadamard32",
                                 "lut_b_moe"})


def _resolve_quant(model: ModelSpec, given: str | None, notes: list[str], gpu: GPUSpec, version: str) -> QuantSpec | None:
    q = model.quant
    if not given:
        last = _dropped_since(q.method, version) if q is not None and q.method in _CHECKPOINT_METHODS_NO_OVERRIDE else None
        if last is not None and q.method == "gguf":
            raise InputError("model", f"{model.id} is a GGUF file, and vLLM {version} has no GGUF support (its wheel has "
                             "no GGUF loader, quantization method or config reader; the newest release read that has "
                             f"them is {last})", f"pin --vllm-version {last} or earlier, or serve a safetensors "
                             "checkpoint of the same model (AWQ, GPTQ, FP8)")
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
    if family in ONLINE_FP8_SHORTHANDS:
        # vLLM >= 0.27's online shorthands (vllm/config/quantization.py _ONLINE_SHORTHANDS, 0.27-0.33): FP8 weights
        # quantized at load time, per tensor, per output channel or per 128x128 block; from 0.31
        # (model_loader/weight_utils.py get_quant_config) `--quantization fp8` on an unquantized checkpoint is itself
        # read as fp8_per_tensor, with the warning "--quantization fp8 is deprecated for online quantization"
        kept = (" but its MLP, which vLLM builds unquantized (SigLIP sizes not multiples of 64)"
                if vision_bnb_only_params(model) else "")
        notes.append(f"--quantization {method} on an unquantized checkpoint: weights quantized to FP8 at load time "
                     f"({ONLINE_FP8_SHORTHANDS[method]})" + tower + kept)
        return QuantSpec("fp8", 8, None, f"fp8 {ONLINE_FP8_SHORTHANDS[method]} (online)", applies_to="all_linear")
    if family == "fp8":
        kept = (" but its MLP, which vLLM builds unquantized (SigLIP sizes not multiples of 64)"
                if vision_bnb_only_params(model) else "")
        notes.append("--quantization fp8 on an unquantized checkpoint: weights quantized to FP8 at load time" + tower + kept)
        return QuantSpec("fp8", 8, None, "fp8 per-tensor (online)", applies_to="all_linear")
    if family == "bitsandbytes":
        notes.append("--quantization bitsandbytes on an unquantized checkpoint: 4-bit NF4 weights at load time" + tower)
        return BNB_IN_FLIGHT
    online_fp8 = ("" if quant_capability_error("fp8", gpu, version) else ", or use --quantization fp8 for online FP8")
    if family in ONLINE_ONLY_UNSIZED:
        raise UndeterminedError("--quantization", f"--quantization {given} quantizes {model.id}'s weights at load time "
                                f"(vLLM {version}'s online quantization), which kvplan does not size",
                                "plan it without --quantization (16-bit weights)" + online_fp8)
    # the methods that read their settings from a file beside config.json (get_config_filenames: AWQ's
    # quant_config.json / quantize_config.json, GPTQ's quantize_config.json, ModelOpt's hf_quant_config.json; awq.py,
    # gptq.py, modelopt.py, auto_awq.py, auto_gptq.py), which an unquantized checkpoint lacks: vLLM's loader stops with
    # get_quant_config's "Cannot find the config file for {quantization}" (model_loader/weight_utils.py, 0.6.3-0.33.0)
    vllm_says = (f": vLLM stops loading it with 'Cannot find the config file for {given}'"
                 if family in _CONFIG_FILE_METHODS else "")
    raise InputError("--quantization", f"{given} needs a checkpoint quantized with {given}, and {model.id} is not"
                     + vllm_says, f"pick {_article(given.upper())} {given.upper()} checkpoint of this model{online_fp8}")


# The gfx target of the AMD cards in the GPU catalog whose backend order a release changes (rules row
# rocm_triton_first_gfx): Navi 31 (gfx1100) and Navi 48 (gfx1201)
RADEON_GFX = {"radeon-pro-w7900": "gfx1100", "rx-7900-xtx": "gfx1100", "radeon-ai-pro-r9700": "gfx1201",
              "rx-9070-xt": "gfx1201", "rx-9070": "gfx1201"}


def _default_block_size(model: ModelSpec, gpu: GPUSpec, rules: VersionRules, args: EngineArgs) -> tuple[int, str]:
    """The block size vLLM picks before hybrid alignment (section 2.4). From 0.18 the backend's
    get_preferred_block_size(CacheConfig.DEFAULT_BLOCK_SIZE) (rules row default_block_size: 16, 64 from 0.34.0): the
    default where the backend supports it, else its smallest kernel block."""
    default = rules.default_block_size
    if runs_mla(model, args, rules):  # rules rows mla_kernels, mla_quant_methods
        cc = gpu.cc or (9, 0)
        if rules.mla_block_size == "triton" and cc >= (9, 0):  # rules row mla_block_size
            return 16, f"MLA: vLLM {rules.version} runs Triton MLA alone (FlashMLA from 0.8.0), block size 16"
        if rules.mla_block_size in ("forced", "flashmla", "triton"):
            if (10, 0) <= cc < (11, 0):
                if rules.mla_block_size == "forced":
                    return 128, "MLA on Blackwell: CUTLASS_MLA forces block size 128 (vllm/platforms/cuda.py, 0.10.1-0.17)"
                return 16, "MLA on Blackwell: Triton MLA, block size 16 (FlashMLA is Hopper's; CUTLASS_MLA the default from 0.10.1)"
            if cc == (9, 0):
                return 64, "MLA on Hopper: FlashMLA forces block size 64 (vllm/platforms/cuda.py, <= 0.17)"
            return 16, "MLA on pre-Hopper GPUs: Triton MLA, block size 16"
        if (10, 0) <= cc < (11, 0) and gpu.vendor.upper() != "AMD":
            # FlashInferMLABackend.get_supported_kernel_block_sizes [32, 64] (v1/attention/backends/mla/flashinfer_mla.py)
            if default in (32, 64):
                return default, (f"MLA on Blackwell: FLASHINFER_MLA takes the default block size {default} "
                                 f"(CacheConfig.DEFAULT_BLOCK_SIZE, vLLM {rules.version})")
            return 32, "MLA on Blackwell: FLASHINFER_MLA prefers block size 32 (>= 0.18)"
        if default == 16:
            return 16, "MLA: FLASH_ATTN_MLA / TRITON_MLA prefer block size 16 (>= 0.18)"
        return default, (f"MLA: FLASH_ATTN_MLA / TRITON_MLA take the default block size {default} "
                         f"(CacheConfig.DEFAULT_BLOCK_SIZE, vLLM {rules.version}; any multiple of 16)")
    if gpu.vendor.upper() == "AMD" and rules.rocm_attn_preferred_block_size:
        kv_dtype = (args.kv_cache_dtype or "auto").lower()
        if RADEON_GFX.get(gpu.id) in rules.rocm_triton_first_gfx and kv_dtype != "fp8_e5m2":
            return default, (f"{RADEON_GFX[gpu.id]}: vLLM {rules.version} puts TRITON_ATTN before ROCM_ATTN "
                             f"(platforms/rocm.py), which takes the default block size {default}")
        size = rules.rocm_attn_preferred_block_size
        return size, (f"ROCm: ROCM_ATTN asks for block size {size} whatever the default ({default} in vLLM "
                      f"{rules.version}; v1/attention/backends/rocm_attn.py get_preferred_block_size)")
    return default, f"default block size {default} (CacheConfig.DEFAULT_BLOCK_SIZE)"


# Laguna's per-layer head counts (weights.PER_LAYER_HEADS_MODEL_TYPES): LagunaAttention asserts
# total_num_heads % tp_size == 0 (a bare AssertionError while the model loads; 0.21.0, 0.24.0, 0.29.0 and 0.33.0
# wheels). ModelConfig.verify_with_parallel_config checks only num_attention_heads (config/model.py, 0.29.0: "Total
# number of attention heads (48) must be divisible by tensor parallel size"), so Laguna's 72-head sliding-window layers
# are refused only at load


def per_layer_head_counts(model: ModelSpec) -> list[tuple[int, str]]:
    """Each distinct attention head count a layer kind gets beyond num_attention_heads, as (heads, the layer kind as the
    config's layer_types names it), where vLLM builds per-layer head counts (PER_LAYER_HEADS_MODEL_TYPES)."""
    t = model.text_config
    per_layer = t.get("num_attention_heads_per_layer")
    if model.model_type not in PER_LAYER_HEADS_MODEL_TYPES or not isinstance(per_layer, list):
        return []
    types = t.get("layer_types") if isinstance(t.get("layer_types"), list) else []
    out: dict[int, str] = {}
    for i, heads in enumerate(per_layer):
        if isinstance(heads, int) and heads != model.num_attention_heads and heads not in out:
            out[heads] = str(types[i]) if i < len(types) else f"layer {i}"
    return sorted(out.items())


def _model_tp_refusal(model: ModelSpec, tp: int) -> str | None:
    """_tp_refusal for the model's num_attention_heads, then for each per-layer head count (per_layer_head_counts)."""
    why = _tp_refusal(model.num_attention_heads, model.num_kv_heads, tp)
    if why:
        return why
    for heads, kind in per_layer_head_counts(model):
        if heads % tp:
            return (f"the {kind} layers' {heads} attention heads (num_attention_heads_per_layer) are not divisible by "
                    f"TP={tp}: vLLM's LagunaAttention asserts total_num_heads % tp_size == 0 and the model fails to load "
                    f"(models/laguna.py); its check of num_attention_heads ({model.num_attention_heads}) alone passes")
    return None


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


def _block_fp8_moe_refusal(model: ModelSpec, quant: QuantSpec | None, tp: int, dp: int,
                           expert_parallel: bool, rules: VersionRules | None = None) -> tuple[str, str] | None:
    """(vLLM's refusal, the fix) where a block-FP8 checkpoint's experts, split over the ranks, are not whole quantization
    blocks, else None. vLLM's Fp8MoEMethod.create_weights (vllm/model_executor/layers/quantization/fp8.py, from the
    block-FP8 MoE support of 0.7 through the newest release kvplan knows) raises "The output_size of gate's and up's
    weight = N is not divisible by weight quantization block_n = B" when the per-rank intermediate size N is not a
    multiple of block_n (and, with more than one rank, of block_k). Without expert parallelism the experts are split
    over TP x DP ranks (FusedMoEParallelConfig, flatten_tp_across_dp); with it each rank holds whole experts. The
    padding proposed in vLLM PRs #39046 and #48173 was closed unmerged, #52915 (open) pads dense layers only.
    compressed-tensors block FP8 (CompressedTensorsW8A8Fp8MoEMethod.create_weights, the same check and message from
    0.11.0: rules row ct_fp8_block) is checked where its experts are quantized (_ct_experts_quantized)."""
    if quant is not None and quant.method == "compressed-tensors" and quant.group_schemes:
        # config groups of different schemes: the experts' own group decides (experts_quant)
        quant = experts_quant(model, quant, rules if rules is not None else rules_for())
    if (quant is None or not quant.weight_block or not model.is_moe or not model.moe_intermediate_size
            or expert_parallel or not _block_fp8_checked(quant, rules, None, dense=False)):
        return None
    if quant.method == "compressed-tensors" and not _ct_experts_quantized(model, quant):
        return None
    block_n, block_k = quant.weight_block
    moe_tp = tp * max(1, dp)
    part = model.moe_intermediate_size / moe_tp

    def whole(n: float, ranks: int) -> bool:
        return n == int(n) and int(n) % block_n == 0 and (ranks == 1 or int(n) % block_k == 0)

    if whole(part, moe_tp):
        return None
    ok = [t for t in accepted_tp_sizes(model) if whole(model.moe_intermediate_size / (t * max(1, dp)), t * max(1, dp))]
    over = f"TP {tp} x DP {dp}" if dp > 1 else f"TP {tp}"
    return (f"the experts' intermediate size {model.moe_intermediate_size} split over {over} is {part:g} per rank, not a "
            f"multiple of the checkpoint's FP8 block {block_n} ({_block_field(quant)}): vLLM "
            f"refuses with \"The output_size of gate's and up's weight = {part:g} is not divisible by weight quantization "
            f"block_n = {block_n}\"",
            "add --enable-expert-parallel (each rank then holds whole experts)"
            + (f", or a --tensor-parallel-size of {', '.join(map(str, ok))}" if ok else ""))


def _block_fp8_checked(quant: QuantSpec | None, rules: VersionRules | None, cc: tuple[int, int] | None,
                       dense: bool) -> bool:
    """Whether this release checks a block-FP8 checkpoint's TP slices: Fp8Config (quant_method fp8) in every release
    kvplan knows; compressed-tensors block FP8 from 0.11.0 (rules row ct_fp8_block), its dense layers below compute
    capability 8.9 (the CompressedTensorsW8A16Fp8 fallback) from 0.16.0 (rules row ct_fp8_block_w8a16_checked)."""
    if quant is None or not quant.weight_block:
        return False
    if quant.method == "fp8":
        return True
    if quant.method != "compressed-tensors" or (rules is not None and not rules.ct_fp8_block):
        return False
    return not dense or cc is None or cc >= (8, 9) or rules is None or rules.ct_fp8_block_w8a16_checked


# the fused modules' shards and the layer prefixes a skip list is matched against: weights.py's, with its matcher
_FUSED_SHARDS, _CT_PREFIXES = FUSED_SHARDS, LAYER_PREFIXES


def _ct_names_module(patterns: tuple[str, ...], layer: int, module: str, class_name: str = "") -> bool:
    """Whether `patterns` (an ignore list, or a config group's targets with `class_name` given) name decoder layer
    `layer`'s `module` as vLLM reads them (compressed_tensors/utils.py should_ignore_layer / find_matched_target): the
    weight count's matcher (weights.names_layer_module), exact or "re:" entries."""
    return names_layer_module(patterns, layer, module, class_name)


# what vLLM's is_layer_skipped says of a fused layer whose shards a skip list names only in part (quant_utils.py, every
# release read)
FUSED_SHARDS_SKIP_ERROR = ("Detected some but not all shards of {layer} are quantized. All shards of fused layers to "
                           "have the same precision.")


def _mixed_fused_shards(model: ModelSpec, quant: QuantSpec | None, rules: VersionRules | None = None) -> str | None:
    """The first fused layer (qkv_proj, gate_up_proj, in_proj_qkvz, in_proj_ba) whose shards a skip list names only in
    part, as vLLM would name it, else None, for the configs that refuse it: a compressed-tensors ignore list
    (should_ignore_layer raises "Found a different quantization schemes for [shards] in <layer>. vLLM requires all to
    use the same scheme.": compressed_tensors/utils.py, 0.10.2-0.29.0; "Found different quantization schemes for the
    shards of <layer>." in 0.33.0), and the methods of the release's rules row fused_skip_refusal (FP8, AWQ from
    0.12.0: is_layer_skipped, FUSED_SHARDS_SKIP_ERROR), each entry matched as the method's config matches it
    (weights.names_module: AWQ by substring). A layer whose fused name itself is named is skipped whole, for
    is_layer_skipped from 0.24.0 (rules fused_skip_name_first: before, the shards alone decide)."""
    if quant is None or not quant.skip:
        return None
    refusing = rules.fused_skip_refusal if rules is not None else ("fp8",)
    if quant.method != "compressed-tensors" and quant.method not in refusing:
        return None
    how = {"substring": quant.method in SUBSTRING_SKIP_METHODS}
    ignore = tuple(map(str, quant.skip))
    # compressed-tensors asks the fused name first in every release read; is_layer_skipped from 0.24.0
    name_first = quant.method == "compressed-tensors" or rules is None or rules.fused_skip_name_first
    for path, _kind, _parts, _full, i in _dense_block_slices(model, 1):
        head, _, last = path.rpartition(".")
        shards = _FUSED_SHARDS.get(last)
        if not shards or (name_first and any(names_module(ignore, f"{prefix}.{i}.{path}", **how)
                                             for prefix in _CT_PREFIXES)):
            continue
        for prefix in _CT_PREFIXES:
            named = [names_module(ignore, f"{prefix}.{i}.{head}.{s}", **how) for s in shards]
            if any(named) and not all(named):
                return f"{prefix}.{i}.{path}"
    return None


def _ct_untargeted_layer(model: ModelSpec, quant: QuantSpec | None) -> str | None:
    """The first Linear layer of the decoder (attention, linear-attention mixer, dense MLP) that a compressed-tensors
    checkpoint neither ignores nor names in any config group's targets, as vLLM would name it, else None: such a layer
    loads unquantized from 0.21.0 and makes find_matched_target raise before it (rules row ct_untargeted_unquantized)."""
    if quant is None or quant.method != "compressed-tensors" or not quant.targets:
        return None
    ignore, targets = tuple(map(str, quant.skip)), tuple(quant.targets)
    for path, _kind, _parts, _full, i in _dense_block_slices(model, 1):
        if not _ct_names_module(ignore, i, path) and not _ct_names_module(targets, i, path, "Linear"):
            return f"{_CT_PREFIXES[0]}.{i}.{path}"
    return None


def _ct_quantized(quant: QuantSpec, layer: int, module: str, class_name: str = "Linear",
                  targets: tuple[str, ...] | None = None) -> bool:
    """Whether a compressed-tensors checkpoint quantizes decoder layer `layer`'s `module` with its weights' scheme:
    not in its ignore list and named by its config group's targets (a group without targets is read as "Linear")."""
    return (not _ct_names_module(tuple(map(str, quant.skip)), layer, module)
            and _ct_names_module(targets or quant.targets or ("Linear",), layer, module, class_name))


def _ct_experts_quantized(model: ModelSpec, quant: QuantSpec) -> bool:
    """Whether any MoE layer's routed experts take the compressed-tensors scheme: CompressedTensorsMoEMethod.get_moe_method
    matches expert 0's projections ("mlp.experts.0.down_proj", the one whose scheme it keeps) against the ignore list
    and the targets, where a "Linear" target also names the fused-experts class (_add_fused_moe_to_target_scheme_map:
    FusedMoE, RoutedExperts in 0.33); an ignored one leaves the layer's experts unquantized."""
    targets = _ct_expert_targets(quant)
    return any(_ct_quantized(quant, i, "mlp.experts.0.down_proj", "FusedMoE", targets) for i in sorted(moe_layers(model)))


def _ct_expert_targets(quant: QuantSpec) -> tuple[str, ...]:
    """A compressed-tensors config group's targets as vLLM matches the fused experts against them: a group without
    targets is read as "Linear", and a "Linear" target also names the fused-experts classes FusedMoE and RoutedExperts
    (_add_fused_moe_to_target_scheme_map; RoutedExperts in 0.33)."""
    targets = tuple(quant.targets or ("Linear",))
    return targets + ("FusedMoE", "RoutedExperts") if "Linear" in targets else targets


MOE_MIXED_SCHEMES_ERROR = "All MoE projections need to have same quantization scheme but found multiple"


def ct_moe_mixed_schemes(model: ModelSpec, quant: QuantSpec | None, rules: VersionRules) -> str | None:
    """vLLM's refusal of a compressed-tensors checkpoint whose ignore list names some but not all of expert 0's
    gate_proj, up_proj and down_proj in a MoE layer (rules row ct_moe_mixed_refusal), as the plan's message, else None:
    CompressedTensorsMoEMethod.get_moe_method asks the scheme of those three (None for an ignored one) and raises
    ValueError when they differ (compressed_tensors_moe.py, 0.12.0-0.33.0). The experts are named where the release
    builds them (weights.component_modules); the first MoE layer built refuses."""
    if (quant is None or quant.method != "compressed-tensors" or not (quant.skip or quant.group_schemes)
            or not rules.ct_moe_mixed_refusal):
        return None
    targets = _ct_expert_targets(quant)
    projections = ("gate_proj", "up_proj", "down_proj")
    for i in sorted(moe_layers(model)):
        experts = component_modules(Component("experts", 0, "tp", i, True, kind="experts"), model.model_type,
                                    rules.layer_module_paths)
        if not experts:
            return None
        if quant.group_schemes:
            # config groups of different schemes: each projection's own group (None where ignored or untargeted)
            schemes = [ct_module_scheme(quant, i, f"{experts[0]}.0.{p}", "FusedMoE", model.model_type,
                                        rules.layer_module_paths) for p in projections]
            if len(set(schemes)) > 1:
                each = ", ".join(f"{p} {sp.scheme if sp is not None else 'unquantized'}"
                                 for p, sp in zip(projections, schemes))
                return (f"{MOE_MIXED_SCHEMES_ERROR} ({model.id}: the compressed-tensors config groups give layer {i}'s "
                        f"{experts[0]}.0 {each}; vLLM {rules.version} loads each layer's experts with one scheme, read "
                        "from expert 0's three projections); name gate_proj, up_proj and down_proj in one group's "
                        "targets (or ignore all three)")
            continue
        quantized = [_ct_quantized(quant, i, f"{experts[0]}.0.{p}", "FusedMoE", targets) for p in projections]
        if any(quantized) and not all(quantized):
            kept = [p for p, q in zip(projections, quantized) if not q]
            return (f"{MOE_MIXED_SCHEMES_ERROR} ({model.id}: the compressed-tensors ignore list keeps {', '.join(kept)} of "
                    f"layer {i}'s {experts[0]}.0 unquantized and not {', '.join(p for p in projections if p not in kept)}; "
                    f"vLLM {rules.version} loads each layer's experts with one scheme, read from expert 0's three "
                    "projections); list all three in the ignore list, or none")
    return None


def _skipped_module(skip: tuple[str, ...], layer: int, path: str) -> bool:
    """Whether a quant_method fp8 checkpoint's skip list (modules_to_not_convert / ignored_layers) keeps decoder layer
    `layer`'s module `path` ("mlp.down_proj") unquantized, as Fp8Config asks it: is_layer_skipped with
    ignored_layers_match_mode "exact" (quantization/fp8.py and utils/quant_utils.py, 0.14.1 and 0.29.0), the whole
    name or every shard of a fused module; the weight count's matcher (weights.names_layer_module)."""
    return names_layer_module(tuple(map(str, skip)), layer, path)


def _dense_block_slices(model: ModelSpec, tp: int) -> list[tuple[str, str, list[int], int, int]]:
    """The TP-split Linear layers of one decoder layer's attention or linear-attention mixer and dense MLPs as vLLM
    builds them, in build order, for every decoder layer: (the module as vLLM names it, its kind, its per-rank slices,
    the whole layer's output size, the layer index). Kinds:
    "row" (RowParallelLinear: the input is split; o_proj, down_proj, out_proj), "merged" (MergedColumnParallelLinear /
    QKVParallelLinear: several outputs, each split), "column" (one split output). MoE experts are _block_fp8_moe_refusal's.
    A query with an output gate (attn_output_gate: Qwen3-Next, Qwen3.5) is twice the heads' width (qwen3_next.py
    Qwen3NextAttention builds QKVParallelLinear with total_num_heads * (1 + attn_output_gate), 0.33.0). A Gated DeltaNet layer
    (layers/mamba/gdn/qwen_gdn_linear_attn.py, 0.33.0; models/qwen3_next.py before) holds in_proj_qkvz, in_proj_ba and
    out_proj: Qwen3.5's checkpoint layout splits them into [key, key, value, value] and [value heads, value heads]
    (create_qkvz_proj / create_ba_proj), Qwen3-Next's interleaved one keeps one output each; conv1d is built without the
    quantization config. Mamba mixers are not checked here."""
    t = model.text_config
    moe = moe_layers(model) if model.is_moe else set()
    gated = gated_mlp(model)
    out: list[tuple[str, str, list[int], int, int]] = []

    def mlp(prefix: str, width: int, i: int) -> None:
        if not width or width % tp:
            return
        if gated:
            out.append((f"{prefix}.gate_up_proj", "merged", [width // tp, width // tp], 2 * width, i))
        else:
            out.append((f"{prefix}.up_proj", "column", [width // tp], width, i))
        out.append((f"{prefix}.down_proj", "row", [width // tp], model.hidden_size, i))

    nh = model.num_attention_heads
    q_gate = 2 if attn_output_gate(model) else 1
    for i, layer in enumerate(model.layers[:model.num_layers]):
        rec = layer.recurrent
        if layer.kind == "mla":
            v_dim, nope = int(t.get("v_head_dim", 128)), int(t.get("qk_nope_head_dim", 128))
            if nh % tp == 0:
                out.append(("self_attn.kv_b_proj", "column", [nh // tp * (nope + v_dim)], nh * (nope + v_dim), i))
                out.append(("self_attn.o_proj", "row", [nh // tp * v_dim], model.hidden_size, i))
        elif layer.kind in ("full", "sliding", "chunked") and layer_attention_heads(model, i) % tp == 0:
            hd = layer.head_dim or model.head_dim
            lh = layer_attention_heads(model, i)
            kv = model.num_kv_heads or lh
            out.append(("self_attn.qkv_proj", "merged",
                        [lh // tp * hd * q_gate, max(1, kv // tp) * hd, max(1, kv // tp) * hd], (q_gate * lh + 2 * kv) * hd, i))
            out.append(("self_attn.o_proj", "row", [lh // tp * hd], model.hidden_size, i))
            g_out = head_gate_width(model, lh, hd)
            if g_out and g_out % tp == 0:
                out.append(("self_attn.g_proj", "column", [g_out // tp], g_out, i))
        elif (layer.kind == "recurrent" and rec is not None and rec.kind == "gdn" and rec.key_heads
              and rec.key_heads % tp == 0 and rec.n_heads % tp == 0):
            key, val = rec.key_heads * rec.key_head_dim, rec.n_heads * rec.head_dim
            if model.model_type.startswith("qwen3_next"):  # interleaved: one output each
                out.append(("linear_attn.in_proj_qkvz", "column", [(2 * key + 2 * val) // tp], 2 * key + 2 * val, i))
                out.append(("linear_attn.in_proj_ba", "column", [2 * rec.n_heads // tp], 2 * rec.n_heads, i))
            else:
                out.append(("linear_attn.in_proj_qkvz", "merged", [key // tp, key // tp, val // tp, val // tp],
                            2 * key + 2 * val, i))
                out.append(("linear_attn.in_proj_ba", "merged", [rec.n_heads // tp] * 2, 2 * rec.n_heads, i))
            out.append(("linear_attn.out_proj", "row", [val // tp], model.hidden_size, i))
        if i in moe:
            mlp("mlp.shared_expert", model.shared_expert_intermediate_size, i)
        elif layer.kind != "recurrent" or model.model_type not in ("mamba", "mamba2", "falcon_mamba"):
            mlp("mlp", model.intermediate_size, i)
    return out


def _block_fp8_dense_refusal(model: ModelSpec, quant: QuantSpec | None, tp: int, rules: VersionRules,
                             cc: tuple[int, int] | None = None) -> tuple[str, str] | None:
    """(vLLM's refusal, the fix) where a block-FP8 checkpoint's dense Linear layers, split over `tp` ranks, are not whole
    quantization blocks, else None. Fp8LinearMethod.create_weights (vllm/model_executor/layers/quantization/fp8.py;
    the check moved to utils/fp8_utils.py validate_fp8_block_shape in 0.11; read in the 0.6.6.post1, 0.10.2, 0.11.0,
    0.12.0, 0.13.0, 0.14.1, 0.17.1, 0.20.0, 0.29.0 and 0.33.0 wheels) raises, with more than one rank,
    "Weight input_size_per_partition = K is not divisible by weight quantization block_k = B." for a row-parallel layer
    (o_proj, down_proj: the input is split) and "Weight output_partition_size = N is not divisible by weight
    quantization block_n = B." for a column-parallel one (each output slice). Merged layers (gate_up_proj, qkv_proj)
    are exempt from 0.14 (rules row fp8_block_merged_unchecked), so there the down_proj's input slice is what refuses a
    too-narrow MLP. vLLM builds the layers in order (attention, then the MLP; a shared expert before the routed
    experts), and the first one that fails is the message. The padding of vLLM PR #52915 (open) is not in a release.
    compressed-tensors block FP8 (CompressedTensorsW8A8Fp8, rules row ct_fp8_block; `cc` decides its fallback below 8.9)
    runs the same check on the layers its ignore list and targets leave quantized, merged layers included; where its
    config groups hold different schemes, on the layers of a block-FP8 group, with that group's block
    (weights.ct_module_scheme)."""
    grouped = quant is not None and quant.method == "compressed-tensors" and bool(quant.group_schemes)
    if not any(_block_fp8_checked(sp, rules, cc, dense=True) for sp in dense_quants(model, quant)):
        return None
    ct = quant.method == "compressed-tensors"
    for path, kind, parts, full, i in _dense_block_slices(model, tp):
        head, _, last = path.rpartition(".")
        scheme = quant
        if grouped:
            scheme = ct_module_scheme(quant, i, path, "Linear", model.model_type, rules.layer_module_paths,
                                      fused_first=rules.ct_fused_match_first)
            if scheme is None or not _block_fp8_checked(scheme, rules, cc, dense=True):
                continue
        elif ct:
            if not _ct_quantized(quant, i, path):
                continue
        elif _skipped_module(quant.skip, i, path) or any(_skipped_module(quant.skip, i, f"{head}.{s}")
                                                         for s in _FUSED_SHARDS.get(last, ())):
            continue
        block_n, block_k = scheme.weight_block
        if kind == "row":
            bad = parts[0] if tp > 1 and parts[0] % block_k else None
            block, what, side = block_k, "input_size_per_partition", "k"
        else:
            if (kind == "merged" and not ct and rules.fp8_block_merged_unchecked
                    and any(p % block_n for p in parts)):
                continue
            # "Required by column parallel or enabling merged weights": every slice of a layer split over the ranks
            # (output_size // sum(output_partition_sizes) == tp), all but the last of a merged layer that is not (KV
            # heads replicated, or one rank)
            split = tp > 1 and full // sum(parts) == tp
            checked = parts if split else parts[:-1] if kind == "merged" else []
            bad = next((p for p in checked if p % block_n), None)
            block, what, side = block_n, "output_partition_size", "n"
        if bad is None:
            continue
        return (f"{path}'s slice on each of TP {tp} ranks is {bad} {'input' if kind == 'row' else 'output'} columns "
                f"(layer {i} on), not a multiple of the checkpoint's FP8 block {block} ({_block_field(scheme)}): vLLM "
                f"refuses with \"Weight {what} = {bad} is not divisible by weight quantization block_{side} = {block}.\"", "")
    return None


def _block_field(quant: QuantSpec) -> str:
    """The config field that declares the checkpoint's FP8 block, as the checkpoint spells it."""
    name = "block_structure" if quant.method == "compressed-tensors" else "weight_block_size"
    return f"{name} {list(quant.weight_block)}"


def _block_fp8_refusal(model: ModelSpec, quant: QuantSpec | None, tp: int, dp: int, pp: int, expert_parallel: bool,
                       rules: VersionRules, cc: tuple[int, int] | None = None) -> tuple[str, str] | None:
    """(vLLM's refusal, the fix) where a block-FP8 checkpoint cannot be split over these ranks: its dense layers
    (_block_fp8_dense_refusal, built first: layer 0's attention, a shared expert before the routed experts) or its
    experts (_block_fp8_moe_refusal). The fix names the TP sizes that pass both."""
    dense = _block_fp8_dense_refusal(model, quant, tp, rules, cc)
    if dense is None:
        return _block_fp8_moe_refusal(model, quant, tp, dp, expert_parallel, rules)
    ok = [t for t in accepted_tp_sizes(model) if not _block_fp8_dense_refusal(model, quant, t, rules, cc)
          and not _block_fp8_moe_refusal(model, quant, t, dp, expert_parallel, rules)]
    fit = [t for t in ok if t < tp and tp % t == 0]
    fix = (f"--tensor-parallel-size {fit[-1]} --pipeline-parallel-size {pp * tp // fit[-1]} (the same {tp * pp} GPUs: "
           "pipeline stages split the layers, not their weights), or " if fit else "")
    fix += (f"a --tensor-parallel-size of {', '.join(map(str, ok))}" if ok else "no TP size up to 16 splits it")
    if model.is_moe and not expert_parallel and "shared_expert" in dense[0]:
        fix += "; --enable-expert-parallel does not help here: it keeps the routed experts whole, the shared expert is split by TP"
    return dense[0], fix


def accepted_tp_sizes(model: ModelSpec, upto: int = 16) -> list[int]:
    """The tensor-parallel sizes up to `upto` that vLLM can split this model's heads over (_model_tp_refusal)."""
    return [t for t in range(1, upto + 1) if not _model_tp_refusal(model, t)]


PP_SPECULATIVE = "speculative decoding with pipeline parallelism"  # the rule of pp_speculative_refusal's refusals


# vLLM's refusal of --pipeline-parallel-size > 1 for a model class without SupportsPP
# (ModelConfig.verify_with_parallel_config, config/model.py; 0.11.0 and 0.34.0 wheels)
NO_SUPPORTS_PP = ("Pipeline parallelism is not supported for this model. Supported models implement the `SupportsPP` "
                  "interface.")


def _pp_model_name(model: ModelSpec) -> str:
    """How the SupportsPP refusal's fix names the model: "Whisper" for a Whisper checkpoint, else its id."""
    return "Whisper" if model.model_type == "whisper" else model.id


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
    return (f"{NO_SUPPORTS_PP} (the {spec[0]} drafter's config inherits --pipeline-parallel-size)",
            f"{fix}; or vLLM {later} or newer (model runner v2 runs the drafter on the last stage; an MTP module that "
            "implements SupportsPP passes this check and fails in the profile run instead)")


# registered pooling classes whose default pooling type is not LAST (the interfaces_base.default_pooling_type decorator
# on the class; LAST where none is set, as on a *ForCausalLM converted by --runner pooling, models/adapters.py):
# models/qwen2_rm.py, internlm2.py and gritlm.py in the 0.10.2 and 0.11.0 wheels, qwen2_rm.py and internlm2.py in the
# 0.34.0 wheel (as tok_pooling_type). The BERT family (ModelSpec.is_encoder_only) is CLS or token ALL there.
_POOLING_CLASS_TYPES = {"Qwen2ForRewardModel": "ALL", "InternLM2ForRewardModel": "ALL",
                        "Qwen2ForProcessRewardModel": "STEP", "GritLM": "MEAN"}


# vLLM's pooling types (layers/pooler.py PoolingType up to 0.13; config/pooler.py SequencePoolingType and
# TokenPoolingType from 0.14: 0.9.2, 0.13.0, 0.14.0 and 0.34.0 wheels)
POOLING_TYPES = ("LAST", "ALL", "CLS", "STEP", "MEAN")
SEQ_POOLING_TYPES = ("CLS", "LAST", "MEAN")
TOK_POOLING_TYPES = ("ALL", "STEP")


def _st_pooling_name(key: str) -> str:
    """A Pooling config's key (or pooling_mode value) as vLLM names it: get_pooling_config_name (0.9.2-0.13.0) and
    parse_pooling_type (0.14.0-0.34.0) in transformers_utils/config.py cut 'pooling_mode_', keep the part before the
    first '_' and read 'lasttoken' as LAST: pooling_mode_mean_tokens MEAN, pooling_mode_mean_sqrt_len_tokens MEAN,
    pooling_mode_cls_token CLS, pooling_mode_max_tokens MAX, include_prompt INCLUDE."""
    name = key.replace("pooling_mode_", "") if "pooling_mode_" in key else key
    name = name.split("_", 1)[0] if "_" in name else name
    return ("last" if "lasttoken" in name else name).upper()


# the first releases that skip a Pooling-config mode without a type, and that split PoolerConfig's pooling type into
# seq_pooling_type / tok_pooling_type (rules rows st_pooling_mode_read, pooler_type_fields)
_ST_SKIPS_UNKNOWN_FROM = first_release_where("st_pooling_mode_read", lambda kind: kind.startswith("each"))
_SPLIT_TYPES_FROM = first_release_where("pooler_type_fields", lambda kind: kind == "split")


def st_pooling_types(model: ModelSpec, rules: VersionRules) -> tuple[dict[str, str | None], str] | None:
    """The pooling types vLLM `rules.version` takes from the checkpoint's sentence-transformers Pooling config, as
    {PoolerConfig field: type} ({"pooling_type": ...} up to 0.13, seq_pooling_type / tok_pooling_type from 0.14), and
    the entries it read; None where the checkpoint has no Pooling config or kvplan could not read it (rules rows
    st_pooling_mode_read, pooler_type_fields). RefusedByVLLMError where the release refuses the mode (0.10.1-0.13:
    NotImplementedError for a name outside its pooling types)."""
    modes = model.st_pooling_modes
    if model.st_pooling and modes is None and model.st_pooling_unread:
        return _st_pooling_config_unread(model.st_pooling_unread, rules)
    if not model.st_pooling or modes is None:
        return None
    kind = rules.st_pooling_mode_read
    if kind in ("first_or_none", "first_or_error"):
        first = next((k for k, v in modes if v is True), None)
        if first is None:
            return {"pooling_type": None}, "no mode set to true"
        name = _st_pooling_name(first)
        if name in POOLING_TYPES:
            return {"pooling_type": name}, f"{first}: true"
        if kind == "first_or_error":
            raise RefusedByVLLMError(
                "model", f"vLLM {rules.version} does not start this checkpoint: its sentence-transformers Pooling "
                f"config's first mode set to true is {first}, which get_pooling_config reads as {name} and refuses "
                f"(NotImplementedError: Pooling type {name} not supported; transformers_utils/config.py)",
                f"set one of its modes vLLM has a type for ({', '.join(POOLING_TYPES)}) first in the checkpoint's "
                f"Pooling config, or vLLM {_ST_SKIPS_UNKNOWN_FROM} or newer (which skips modes it has no type for); "
                "--pooler-config does not help: ModelConfig reads the checkpoint's Pooling config whatever is given",
                rule="sentence-transformers pooling mode")
        return {"pooling_type": None}, f"{first}: true, which vLLM {rules.version} has no type for"
    out: dict[str, str | None] = {}
    read: list[str] = []
    for key, value in modes:
        if key == "pooling_mode" and isinstance(value, str):
            if kind != "each_or_mode":
                continue
            name, entry = _st_pooling_name(value), f"pooling_mode: {value!r}"
        elif value is True:
            name, entry = _st_pooling_name(key), f"{key}: true"
        else:
            continue
        field = ("seq_pooling_type" if name in SEQ_POOLING_TYPES else
                 "tok_pooling_type" if name in TOK_POOLING_TYPES else None)
        if field:
            out[field] = name
            read.append(entry)
    return out, ", ".join(read) or "no mode vLLM has a type for"


def _pooler_flag_json(args: EngineArgs) -> tuple[str, dict] | None:
    """The flag that gives the PoolerConfig (--override-pooler-config wins where both are given: from 0.11 it replaces
    --pooler-config whole, config/model.py ModelConfig.__post_init__, 0.11.0 and 0.11.2 wheels) and its JSON object;
    None where neither is given. InputError where the JSON is no object."""
    flag, raw = next(((f, v) for f, v in (("--override-pooler-config", args.override_pooler_config),
                                            ("--pooler-config", args.pooler_config)) if v), (None, None))
    if flag is None:
        return None
    if isinstance(raw, str):
        try:
            raw = json_loads(raw)
        except json.JSONDecodeError as exc:
            raise InputError(flag, f"is not JSON ({exc.msg} at character {exc.pos})",
                             f"e.g. {flag} '{{\"pooling_type\": \"MEAN\"}}'") from None
    if not isinstance(raw, dict):
        raise InputError(flag, f"must be a JSON object, got {raw!r}", f"e.g. {flag} '{{\"pooling_type\": \"MEAN\"}}'")
    return flag, raw


def pooler_keys_ignored(args: EngineArgs, rules: VersionRules) -> tuple[str, list[str]] | None:
    """The flag and the pooling-type fields it gives that vLLM `rules.version`'s PoolerConfig has not and drops
    (seq_pooling_type / tok_pooling_type before 0.14, where the release ignores a field it has not: rules row
    pooler_config_unknown_keys "ignored"); None where none is dropped."""
    given = _pooler_flag_json(args)
    if given is None or rules.pooler_type_fields == "split" or rules.pooler_config_unknown_keys != "ignored":
        return None
    dropped = [k for k in ("seq_pooling_type", "tok_pooling_type") if given[1].get(k) is not None]
    return (given[0], dropped) if dropped else None


_ST_MISSING_EMPTY_FROM = first_release_where("st_pooling_config_missing", lambda kind: kind == "empty")


def _st_pooling_config_unread(unread: tuple[str, str], rules: VersionRules) -> tuple[dict[str, str | None], str]:
    """st_pooling_types where the checkpoint's Pooling config is not there or is no JSON object (ModelSpec.
    st_pooling_unread): vLLM's get_pooling_config reads it for every pooling run (and --runner auto) with json.load and
    calls .items() on what it got (transformers_utils/config.py). A file that is no JSON object stops the start in every
    release; a missing one up to 0.13 (AttributeError on None), while from 0.14 it reads as no mode (rules row
    st_pooling_config_missing)."""
    why, path = unread
    fix_file = (f"add {path} (sentence-transformers writes it with the model: its pooling_mode_* keys), or remove the "
                "Pooling module from modules.json")
    if why == "missing" and rules.st_pooling_config_missing == "empty":
        return ({"pooling_type": None} if rules.pooler_type_fields == "single" else {}), f"{path} is not in the checkpoint: no mode"
    if why == "missing":
        raise RefusedByVLLMError(
            "model", f"vLLM {rules.version} does not start this checkpoint: its modules.json lists a sentence-transformers "
            f"Pooling module whose {path} is not in the checkpoint, and get_pooling_config, which ModelConfig runs for a "
            "pooling model whatever flags are given, reads the missing file as None and fails on it (AttributeError: "
            "'NoneType' object has no attribute 'items'; transformers_utils/config.py)",
            f"{fix_file}; or vLLM {_ST_MISSING_EMPTY_FROM} or newer (which reads a missing Pooling config as no mode)",
            rule="sentence-transformers pooling config")
    raise RefusedByVLLMError(
        "model", f"vLLM {rules.version} does not start this checkpoint: its sentence-transformers Pooling config {path} "
        "is not a JSON object, and get_pooling_config, which ModelConfig runs for a pooling model whatever flags are "
        "given, reads it with json.load and takes its .items() (json.decoder.JSONDecodeError, or AttributeError for "
        "JSON of another kind; transformers_utils/config.py get_hf_file_to_dict)",
        f"repair {path} (a JSON object of pooling_mode_* keys), or remove the Pooling module from modules.json",
        rule="sentence-transformers pooling config")


def pooler_given(args: EngineArgs, rules: VersionRules,
                 model: ModelSpec | None = None) -> tuple[dict[str, str], str] | None:
    """The pooling types --pooler-config / --override-pooler-config give, as {PoolerConfig field: type}, and the flag
    they came from; None where neither gives one (_pooler_flag_json). RefusedByVLLMError for what the release's
    PoolerConfig refuses: a type it does not have (_pooling_type_refusal, rules row pooler_type_checked), seq_pooling_type
    / tok_pooling_type before 0.14 where the release refuses a field it has not (up to 0.9.0; from 0.9.1 to 0.13 they
    are dropped: pooler_keys_ignored, rules row pooler_config_unknown_keys), or pooling_type beside them ("Cannot set
    both `pooling_type` and `seq_pooling_type`", PoolerConfig.__post_init__, 0.14.0 and 0.34.0 wheels). The flag's
    release range is checked with the other flags (SERVE_FLAG_SINCE/UNTIL). Where the release checks the type only
    when the pooler is built (pooler_type_checked "model_build", up to 0.11.x), `model`'s sentence-transformers Pooling
    config is read first, and its refusal is the one given (st_pooling_types), as ModelConfig reads it before."""
    given = _pooler_flag_json(args)
    if given is None:
        return None
    flag, raw = given
    split = rules.pooler_type_fields == "split"
    allowed = {"pooling_type": POOLING_TYPES}
    if split:
        allowed.update(seq_pooling_type=SEQ_POOLING_TYPES, tok_pooling_type=TOK_POOLING_TYPES)
    out: dict[str, str] = {}
    for key in ("pooling_type", "seq_pooling_type", "tok_pooling_type"):
        value = raw.get(key)
        if value is None:
            continue
        if key not in allowed and rules.pooler_config_unknown_keys == "ignored":
            continue  # pydantic drops a field the PoolerConfig has not (said by pooler_keys_ignored)
        if key not in allowed:
            raise RefusedByVLLMError(flag, f"vLLM {rules.version}'s PoolerConfig has no {key} (it came in vLLM "
                                     f"{_SPLIT_TYPES_FROM}; before, the one type is pooling_type): building it from the "
                                     f"JSON raises TypeError: __init__() got an unexpected keyword argument '{key}'",
                                     f"give {flag} '{{\"pooling_type\": \"{value}\"}}', or vLLM {_SPLIT_TYPES_FROM} or "
                                     "newer",
                                     rule="pooler_config keys")
        if value not in allowed[key]:
            if rules.pooler_type_checked == "model_build" and model is not None:
                st_pooling_types(model, rules)  # ModelConfig reads the checkpoint's Pooling config before
            raise RefusedByVLLMError(flag, f"vLLM {rules.version} has no pooling type {value!r} for {key}: "
                                     + _pooling_type_refusal(key, value, rules), _pooling_type_fix(value, allowed[key]),
                                     rule="pooler_config pooling type")
        out[key] = value
    if split and "pooling_type" in out:
        both = next((k for k in ("seq_pooling_type", "tok_pooling_type") if k in out), None)
        if both:
            raise RefusedByVLLMError(flag, f"vLLM {rules.version} refuses the PoolerConfig: ValueError: Cannot set both "
                                     f"`pooling_type` and `{both}`", f"give {both} (and the other field) alone",
                                     rule="pooler_config keys")
        ptype = out.pop("pooling_type")
        out["seq_pooling_type" if ptype in SEQ_POOLING_TYPES else "tok_pooling_type"] = ptype
    return (out, flag) if out else None


def _literal_text(names: tuple[str, ...]) -> str:
    """A Literal's values as pydantic's literal_error lists them: 'LAST', 'ALL', 'CLS', 'STEP' or 'MEAN'."""
    quoted = [repr(n) for n in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def _pooling_type_refusal(key: str, value: object, rules: VersionRules) -> str:
    """How vLLM `rules.version` refuses `value` as PoolerConfig.`key` (rules row pooler_type_checked): up to 0.11.x the
    pooler's PoolingType[name] KeyError when the model is built, from 0.12.0 pydantic's literal_error when argparse
    builds the PoolerConfig from the JSON (engine/arg_utils.py parse_dataclass: "argument --pooler-config: 1 validation
    error for PoolerConfig"); from 0.14.0 pooling_type is a union of the sequence and the token Literal, each refusing it
    (config/pooler.py, 0.12.0, 0.13.0, 0.14.0 and 0.34.0 wheels)."""
    if rules.pooler_type_checked == "model_build":
        return (f"its PoolerConfig takes any string, and the pooler looks it up as PoolingType[{value!r}] when the model "
                f"is built: KeyError: {value!r} (layers/pooler.py)")
    if key == "pooling_type" and rules.pooler_type_fields == "split":
        literals = (SEQ_POOLING_TYPES, TOK_POOLING_TYPES)
    else:
        literals = ({"seq_pooling_type": SEQ_POOLING_TYPES, "tok_pooling_type": TOK_POOLING_TYPES}.get(key, POOLING_TYPES),)
    said = "; ".join(f"Input should be {_literal_text(names)} [type=literal_error, input_value={value!r}]"
                     for names in literals)
    return f"pydantic refuses the PoolerConfig as argparse builds it from the JSON ({key}: {said})"


def _pooling_type_fix(value: object, names: tuple[str, ...]) -> str:
    """The fix for a refused pooling type: its upper-case spelling where that is one of `names` (no release takes a
    lower-case name: PoolingType's members and the Literals are upper case), else the names."""
    if isinstance(value, str) and value.strip().upper() in names:
        return f"give {value.strip().upper()!r}: vLLM's pooling types are upper case"
    return f"one of {', '.join(names)} (upper case)"


def _class_pooling_type(model: ModelSpec) -> str:
    return "CLS" if model.is_encoder_only else next(
        (_POOLING_CLASS_TYPES[a] for a in model.architectures if a in _POOLING_CLASS_TYPES), "LAST")


def pooling_incremental_prefill(model: ModelSpec, rules: VersionRules,
                                flag_given: tuple[dict[str, str], str] | None) -> tuple[bool, str]:
    """(whether V1 turns chunked prefill and prefix caching on by default for this pooling model, why), by the rules row
    pooling_chunked_prefill_default. The pooling type is --pooler-config's (--override-pooler-config's) where it gives
    one (`flag_given`, pooler_given's answer), else the checkpoint's sentence-transformers Pooling config's where it sets one
    (st_pooling_types), else the class default read from the architecture (up to 0.10.0 the class default is not
    applied), field by field as vLLM fills its PoolerConfig; a Pooling config kvplan could not read leaves the class
    default as an assumption the reason says."""
    kind = rules.pooling_chunked_prefill_default
    encoder = model.is_encoder_only
    cls_type = _class_pooling_type(model)
    flag_types, flag = flag_given if flag_given is not None else ({}, "")
    st = st_pooling_types(model, rules)
    st_types, st_read = st if st is not None else ({}, "")
    where = f"the checkpoint's sentence-transformers Pooling config ({st_read})"

    def origin(field: str) -> str:
        return f"{field} {flag_types[field]} from {flag}" if field in flag_types else f"{field} {st_types[field]} from {where}"

    if rules.pooler_type_fields == "split":
        seq = (flag_types.get("seq_pooling_type") or st_types.get("seq_pooling_type")
               or (cls_type if cls_type in SEQ_POOLING_TYPES else "LAST"))
        tok = (flag_types.get("tok_pooling_type") or st_types.get("tok_pooling_type")
               or (cls_type if cls_type in TOK_POOLING_TYPES else "ALL"))
        named = [f for f in ("seq_pooling_type", "tok_pooling_type") if f in flag_types or st_types.get(f)]
        ptype = seq
        source = (f"; {' and '.join(origin(f) for f in named)}" if named else
                  f"; {where} sets no type: the class default" if st is not None else "")
    else:
        given = flag_types.get("pooling_type") or st_types.get("pooling_type")
        # (a Pooling config not read: its mode is assumed to be the class default, as said below)
        ptype = given or (None if kind == "given_last" and (st is not None or not model.st_pooling) else cls_type)
        source = (f"; pooling type {given} from {flag or where}" if given else
                  f"; {where} sets no type" + ("" if kind == "given_last" else ": the class default")
                  if st is not None else "")
    settled = bool(flag_types) and (rules.pooler_type_fields != "split" or len(flag_types) == 2)
    if kind == "given_last" and ptype is None:
        return False, (f"vLLM {rules.version} takes the pooling type only from a sentence-transformers Pooling config "
                       "or --override-pooler-config, and " + ("the checkpoint ships no Pooling module: the type is unset"
                                                             if not model.st_pooling else f"{where} sets none"))
    if encoder:
        on, what = False, "a bidirectional (encoder-only) model"
    elif kind == "last_or_all" and rules.pooler_type_fields == "split":
        on = not (seq in ("MEAN", "CLS") or tok == "STEP")
        what = f"a causal model with {seq}/{tok} (sequence/token) pooling"
    elif kind == "last_or_all":
        on, what = ptype not in ("MEAN", "CLS", "STEP"), f"a causal model with {ptype} pooling"
    else:
        on, what = ptype == "LAST", f"a causal model with {ptype} pooling"
    if model.st_pooling and st is None and not flag_types:
        source = (f"; assumed: the checkpoint's sentence-transformers Pooling config sets the pooling type, whose mode "
                  f"kvplan does not read, taken as the class default {'CLS or MEAN' if encoder else cls_type} (give "
                  "--enable-chunked-prefill / --no-enable-chunked-prefill to say)")
    elif model.st_pooling and st is None and not settled:
        source += ("; the checkpoint's sentence-transformers Pooling config, which kvplan could not read, may set the "
                   "other type")
    return on, what + source


def resolve_args(model: ModelSpec, gpu: GPUSpec, args: EngineArgs,
                 rules: VersionRules) -> tuple[EngineArgs, QuantSpec | None, list[str], bool]:
    """Apply every default the vLLM version would; return the resolved args, the quantization, what was assumed and
    whether the engine runs chunked prefill (SchedulerConfig.enable_chunked_prefill as the release leaves it: the
    flag given where the release honours it, the release's default for the model otherwise)."""
    args.validate()
    notes: list[str] = []
    tp = args.tensor_parallel_size or 1
    pp = args.pipeline_parallel_size or 1
    dp = args.data_parallel_size or 1
    pcp = args.prefill_context_parallel_size or 1  # ParallelConfig.world_size = PP x TP x PCP (config/parallel.py 0.12+)
    if args.num_gpus is not None and tp * pp * pcp * dp > args.num_gpus:
        names = "tensor x pipeline x prefill context x data parallel" if pcp > 1 else "tensor x pipeline x data parallel"
        raise InputError("--num-gpus", f"{names} = {tp * pp * pcp * dp} ranks but only {args.num_gpus} GPU(s)",
                         f"use --num-gpus {tp * pp * pcp * dp} or smaller parallel sizes")
    if args.enable_expert_parallel and not model.is_moe:
        raise InputError("--enable-expert-parallel", f"{model.id} has no experts", "drop the flag (it only applies to MoE models)")
    why_not = _model_tp_refusal(model, tp)
    if why_not:
        raise InputError("--tensor-parallel-size", why_not,
                         f"TP sizes up to 16 that vLLM accepts for this model: {', '.join(map(str, accepted_tp_sizes(model)))}")
    util = args.gpu_memory_utilization
    if util is None and args.overhead_gb is not None:
        util = 0.90
        notes.append("gpu_memory_utilization 0.9 (the seed's arithmetic uses vLLM's long-standing default)")
    elif util is None:
        util = default_utilization(gpu, args, rules)
        notes.append(f"gpu_memory_utilization {util} (vLLM {rules.version} default"
                     + (", with the extensible KV cache: CacheConfig.resolved_gpu_memory_utilization)"
                        if util != rules.default_gpu_memory_utilization else ")"))
    context = context_limit(model, rules)
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
        fix = f"use --max-model-len {limit} or less (vLLM refuses longer contexts unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)"
        ropes = [r for r in (model.text_config.get("rope_scaling"), model.text_config.get("rope_parameters"))
                 if isinstance(r, dict) and r.get("factor")]
        if args.config_overrides and any(str(r.get("rope_type") or r.get("type")) in rules.rope_unscaled_types for r in ropes):
            # from 0.30 a YaRN rope dict leaves the stated length as the limit (rules row rope_unscaled_types)
            fix = (f"use --max-model-len {limit} or less: vLLM {rules.version} applies no {'/'.join(sorted({str(r.get('rope_type') or r.get('type')) for r in ropes}))} "
                   f"factor to max_position_embeddings (it takes it as already scaled), so add "
                   f"\"max_position_embeddings\": {max_len} to --hf-overrides, or set VLLM_ALLOW_LONG_MAX_MODEL_LEN=1")
        raise InputError("--max-model-len",
                         f"User-specified max_model_len ({max_len}) is greater than the derived max_model_len "
                         f"({context.how} in model's config.json)", fix)
    dtype = _resolve_dtype(model, gpu, args.dtype, notes)
    quant = _resolve_quant(model, args.quantization, notes, gpu, rules.version)
    if quant is not None and quant.method == "compressed-tensors" and quant.weight_block and not rules.ct_fp8_block:
        since = first_release_where("ct_fp8_block", lambda v: v)
        raise InputError("--vllm-version", f"{model.id} is a compressed-tensors block-FP8 checkpoint (block_structure "
                         f"{list(quant.weight_block)}), and vLLM {rules.version} has no scheme for the block strategy: "
                         "it refuses with \"No compressed-tensors compatible scheme was found.\"",
                         f"vLLM {since} or newer (CompressedTensorsW8A8Fp8 reads block FP8 from there)")
    mixed = _mixed_fused_shards(model, quant, rules)
    if mixed and quant.method == "compressed-tensors":
        head, _, last = mixed.rpartition(".")
        raise InputError("model", f"{model.id}'s compressed-tensors ignore list names some but not all of "
                         f"{', '.join(_FUSED_SHARDS[last])} in {head}, which vLLM loads as one layer ({mixed}): it refuses "
                         "(\"Found different quantization schemes for the shards of ... vLLM requires all to use the same "
                         "scheme.\")", f"list every one of {', '.join(_FUSED_SHARDS[last])} in the ignore list, "
                         "or none (the checkpoint's weights must then match)")
    if mixed:
        head, _, last = mixed.rpartition(".")
        field = {"fp8": "ignored_layers / modules_to_not_convert", "awq": "modules_to_not_convert"}.get(quant.method, "skip list")
        raise InputError("model", f"{model.id}'s {quant.method} {field} names some but not all of "
                         f"{', '.join(_FUSED_SHARDS[last])} in {head}, which vLLM loads as one layer ({mixed}): vLLM "
                         f"{rules.version} refuses (\"{FUSED_SHARDS_SKIP_ERROR.format(layer=mixed)}\")",
                         f"list every one of {', '.join(_FUSED_SHARDS[last])} (or {last} itself), or none (the "
                         "checkpoint's weights must then match)")
    untargeted = None if rules.ct_untargeted_unquantized else _ct_untargeted_layer(model, quant)
    if untargeted:
        since = first_release_where("ct_untargeted_unquantized", lambda v: v)
        raise InputError("--vllm-version", f"{model.id}'s compressed-tensors config groups target {list(quant.targets)}, "
                         f"which name no scheme for {untargeted}, and its ignore list does not name it either: vLLM "
                         f"{rules.version} refuses (\"Unable to find matching target for {untargeted} in the "
                         "compressed-tensors config.\")", f"vLLM {since} or newer (a layer no target names loads "
                         "unquantized there), or a checkpoint whose ignore list names the layers its targets leave out")
    # the skip list read as the weights read it (a ModelOpt exclude list split where the release splits it)
    read = quant_as_read(quant, model.architectures, rules.release, rules.modelopt_exclude_split)
    why_not = _block_fp8_refusal(model, read, tp, dp, pp, bool(args.enable_expert_parallel), rules, gpu.cc)
    if why_not:
        raise InputError("--tensor-parallel-size", *why_not)
    kv_dtype = args.kv_cache_dtype or "auto"
    if (kv_dtype == "auto" and quant is not None and quant.kv_cache_fp8
            and ("modelopt" if quant.method.startswith("modelopt") else quant.method) in rules.kv_cache_auto_follows_checkpoint):
        kv_dtype = "fp8"
        notes.append(f"kv_cache_dtype auto -> fp8: the checkpoint declares an FP8 KV cache and vLLM {rules.version} follows it")
    elif args.kv_cache_dtype is None:
        notes.append(f"kv_cache_dtype auto ({dtype})")
    block_size, why = (args.block_size, "given") if args.block_size else _default_block_size(model, gpu, rules, args)
    if not args.block_size:
        notes.append(why)
    entry = (args.entrypoint or "serve").strip().lower()
    if entry not in ("serve", "llm"):
        raise InputError("--entrypoint", f"unknown entrypoint {args.entrypoint!r}", "serve (vllm serve) or llm (vllm.LLM in Python)")
    t_default, s_default = batch_defaults(rules, gpu.total_gib, gpu.name, gpu.compute_capability or "", entry)
    who = "vllm.LLM" if entry == "llm" else "vllm serve"
    factor = rules.performance_mode_throughput_factor if args.performance == "throughput" else 1
    if factor > 1:
        # --performance-mode throughput: each default not given, times the factor, before the clamps below
        # (engine/arg_utils.py EngineArgs._set_default_max_num_seqs_and_batched_tokens_args, 0.17.0-0.34.0 wheels)
        t_default = t_default * factor if t_default else t_default
        s_default = s_default * factor
    times = f" x {factor} (--performance-mode throughput)" if factor > 1 else ""
    max_seqs = args.max_num_seqs or s_default
    chunked = args.enable_chunked_prefill is not False  # V1: on unless turned off; V0 decides below
    # up to 0.11.0, V1 turns chunked prefill on for a generative model whatever is given (rules row v1_chunked_prefill_flag)
    flag_ignored = (rules.is_v1 and args.enable_chunked_prefill is False and rules.v1_chunked_prefill_flag == "forced_on"
                    and not (model.is_pooling or args.runner_type == "pooling"))
    if flag_ignored:
        chunked = True
        notes.append(f"--no-enable-chunked-prefill has no effect at {rules.version}: V1 always uses chunked prefill for a "
                     "generative model (engine/arg_utils.py; the flag is taken from 0.11.1)")
    encdec = bool(getattr(model, "is_encoder_decoder", False)) and rules.is_v1
    # V1 turns chunked prefill and prefix caching on for a pooling model only where it supports incremental prefill
    # (rules row pooling_chunked_prefill_default); a given flag stands
    pool_on = None
    pooling_run = args.runner_type != "generate" and (model.is_pooling or args.runner_type == "pooling")
    if pooling_run:
        # what the release's PoolerConfig refuses, V0 too (PoolingType from 0.6.4); and the checkpoint's Pooling config,
        # which ModelConfig reads for a pooling model whatever flags are given (config/model.py __post_init__, 0.11.0):
        # its refusal comes first where a given type is checked only when the pooler is built (pooler_type_checked)
        flag_given = pooler_given(args, rules, model)
        st_pooling_types(model, rules)
        dropped = pooler_keys_ignored(args, rules)
        if dropped:
            notes.append(f"{' and '.join(dropped[1])} in {dropped[0]} ignored: vLLM {rules.version}'s PoolerConfig has "
                         f"no such field (it came in vLLM {_SPLIT_TYPES_FROM}) and pydantic drops it: the pooling "
                         "type is taken as if it were not given (give pooling_type to set it)")
    if (rules.is_v1 and (args.enable_chunked_prefill is None or args.enable_prefix_caching is None) and pooling_run):
        pool_on, pool_why = pooling_incremental_prefill(model, rules, flag_given)
        unset = " and ".join(what for what, flag in (("chunked prefill", args.enable_chunked_prefill),
                                                      ("prefix caching", args.enable_prefix_caching)) if flag is None)
        # the generative default (on) is said only where something beside the class decides it
        if not pool_on or model.st_pooling or args.pooler_config or args.override_pooler_config:
            notes.append(f"{unset} {'on' if pool_on else 'off'} by default for this pooling model at vLLM "
                         f"{rules.version}: {pool_why}")
        if args.enable_chunked_prefill is None:
            chunked = pool_on
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
    elif ((args.enable_chunked_prefill is False and not flag_ignored)
          or (encdec and args.enable_chunked_prefill is None and rules.encoder_decoder_budget_default == "unchunked")
          or (pool_on is False and args.enable_chunked_prefill is None)):
        # V1 without chunked prefill: the whole context in one step (rules row v1_unchunked_batched_tokens); an
        # encoder-decoder model's unset flag reads as off from 0.12 (rules row encoder_decoder_budget_default)
        tokens = (max_len if rules.v1_unchunked_batched_tokens == "max_model_len" or not t_default
                  else min(max(max_len, t_default), max_seqs * max_len))
        off = ("--no-enable-chunked-prefill" if args.enable_chunked_prefill is False else
               "chunked prefill off by default for a pooling model" if pool_on is False else
               "chunked prefill off by default for an encoder-decoder model")
        notes.append(f"max_num_batched_tokens {tokens} ({off}: a whole max_model_len prompt per step)")
    else:
        tokens = min(t_default, max_seqs * max_len) if t_default else max(max_len, 2048)
        notes.append(f"max_num_batched_tokens {tokens} ({who} default on {gpu.name} for {rules.version}{times})")
    prefix = args.enable_prefix_caching
    if prefix is None and pool_on is False:
        prefix = False
    if (prefix is None and pool_on and (model.is_hybrid or model.is_attention_free) and rules.mamba_cache_mode != "none"
            and not (model.is_hybrid and rules.hybrid_prefix_caching_default)):
        # the pooling default turns prefix caching on whatever the model's layers: for a pooling model vLLM asks the
        # pooling type (and the class's declared attn_type, "decoder" unless it says otherwise: only the BERT family,
        # encoder_only, and Terratorch, attention_free, do), never is_hybrid / is_attention_free, which decide only a
        # generative model's default (ModelConfig.attn_type and is_prefix_caching_supported in config/model.py, 0.12.0
        # and 0.34.0 wheels; _set_default_args_v1 / _set_default_args in engine/arg_utils.py, 0.10.1-0.11.0). The Mamba
        # layers then go as for --enable-prefix-caching (MambaModelConfig.verify_and_update_config in
        # models/config.py: kept for the Mamba1/2 families, turned off for the others before 0.15; rules row
        # mamba_cache_mode; before 0.11.1 the Mamba layers keep one state page either way, and from 0.26.0 a generative
        # hybrid's default is on too)
        prefix = True
        notes.append(f"prefix caching on by default for this {'hybrid' if model.is_hybrid else 'attention-free'} "
                     f"pooling model at vLLM {rules.version}: the pooling default does not look at the Mamba layers "
                     "(a generative model's default would leave it off), so their state is kept as with "
                     "--enable-prefix-caching")
    if encdec:
        # vLLM turns both off for an encoder-decoder model after the budget above is chosen (rules rows
        # encoder_decoder_budget_default, encoder_decoder_prefix_caching, encoder_decoder_budget_check)
        chunked = not rules.encoder_decoder_budget_check
        if rules.encoder_decoder_prefix_caching == "forced_off" or prefix is None:
            prefix = False
        overridden = [f"--enable-{what}" for what, on in (("chunked-prefill", args.enable_chunked_prefill),
                                                           ("prefix-caching", args.enable_prefix_caching and not prefix))
                      if on]
        notes.append(f"vLLM {rules.version}: \"Encoder-decoder models do not support chunked prefill nor prefix caching; "
                     "disabling both.\"" + (f" ({', '.join(overridden)} given: overridden)" if overridden else "")
                     + ("" if prefix is False else "; prefix caching stays on as given (this release turns it off only "
                        "by default)"))
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
        notes.append(f"max_num_seqs {max_seqs} ({who} default{times})")
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
    lpt = args.long_prefill_token_threshold or 0
    if lpt > max_len and rules.long_prefill_threshold_checked and not model.is_encoder_decoder:
        # SchedulerConfig.verify_max_model_len from 0.27.0 (versions row long_prefill_threshold_checked); an
        # encoder-decoder model's threshold is set to 0 before it (simulate.serving_setup)
        raise RefusedByVLLMError(
            "--long-prefill-token-threshold", f"{lpt} is above max_model_len {max_len:,}: vLLM {rules.version} refuses "
            f"to start (\"long_prefill_token_threshold ({lpt}) cannot be greater than the max_model_len ({max_len})\")",
            f"give at most {max_len}, or 0 for no cap", rule="long_prefill_token_threshold > max_model_len")
    item = _largest_active_mm_item(model, args, rules)
    if item and item[0] > tokens:
        raise RefusedByVLLMError("--max-num-batched-tokens",
                                 f"Chunked MM input disabled but max_tokens_per_mm_item ({item[0]}) is larger than "
                                 f"max_num_batched_tokens ({tokens}). Please increase max_num_batched_tokens.",
                                 f"give --max-num-batched-tokens {item[0]} or more (one {item[1]} item of this prefix-LM "
                                 f"model is never split across steps), or turn {item[1]} off with --limit-mm-per-prompt",
                                 rule=MM_ITEM_ABOVE_BATCHED_TOKENS)
    no_pp = pp_unsupported_architecture(model.architectures, rules.release) if pp > 1 else None
    if no_pp:
        # the class vLLM builds for this architecture lacks SupportsPP in this release (versions.pp_support_table,
        # data/pp_support.json: e.g. WhisperForConditionalGeneration in models/whisper.py, 0.7.0 to 0.34.0 wheels),
        # which ModelConfig.verify_with_parallel_config refuses (config/model.py; 0.11.0 and 0.34.0 wheels)
        later = pp_supported_from(no_pp, rules.release)
        raise RefusedByVLLMError("--pipeline-parallel-size", NO_SUPPORTS_PP,
                                 f"use --pipeline-parallel-size 1 (tensor parallelism splits {_pp_model_name(model)}'s "
                                 "attention heads)" + (f", or vLLM {later} or newer ({no_pp} implements SupportsPP from "
                                                       f"{later})" if later else ""),
                                 rule="pipeline parallelism on a model without SupportsPP")
    spec = args.speculative
    refusal = pp_speculative_refusal(model, args, rules)
    if refusal:
        raise RefusedByVLLMError("--speculative-config", refusal[0], refusal[1], rule=PP_SPECULATIVE)
    if spec and spec[0] == "mtp":
        if not model.mtp_layers:
            raise InputError("--speculative-config", f"{model.id}'s config declares no MTP layers (mtp_num_hidden_layers, "
                             "num_nextn_predict_layers or num_mtp_modules)", "use ngram, or a checkpoint that ships MTP layers")
        # the MTP drafter is a draft model config too: __post_init__ verifies its draft_tensor_parallel_size
        _draft_tp_check(speculative_object(args.speculative_config), spec[0], tp, notes, rules,
                        model_runner(model, args, rules))
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
        obj = speculative_object(args.speculative_config)
        if (given and rules.spec_configured_method_kept and spec[0] != "draft_model"
                and str(obj.get("method")).strip().lower() == "draft_model"):
            # "method": "draft_model" with an EAGLE-named drafter: up to 0.33 read as eagle/eagle3 by the name; from
            # 0.34 kept (rules row spec_configured_method_kept), which kvplan does not plan
            raise InputError("--speculative-config", f'vLLM {rules.version} keeps the configured method "draft_model" (a '
                             "configured method is never changed based on the draft checkpoint) and loads "
                             f"{obj.get('model')!r} as an independent draft model, not as the {spec[0]} head its name "
                             f"suggests (vLLM before {release_from('spec_configured_method_kept', True)} read it as "
                             f"{spec[0]}); an EAGLE head's forward takes the target's hidden states, which the "
                             "draft-model speculator does not pass, so kvplan cannot tell whether it starts",
                             f'give "method": "{spec[0]}" (or leave "method" out: vLLM then detects {spec[0]} from the '
                             "name)")
        if not given:
            # the method this release infers from the drafter's name (rules row spec_infers_eagle3_by_name)
            obj = speculative_object(args.speculative_config)
            inferred = _speculative_method(obj, eagle3_by_name=rules.spec_infers_eagle3_by_name)
            if inferred != spec[0]:
                raise InputError("--speculative-config", f'no "method" given: vLLM {rules.version} infers {inferred!r} '
                                 f"from the drafter's name {obj.get('model')!r}, not {spec[0]!r} (a name holding "
                                 f"\"eagle3\" is read as eagle3 from vLLM {release_from('spec_infers_eagle3_by_name', True)})",
                                 f'give the method: {{"method": "{spec[0]}", "model": "{obj.get("model")}", ...}}')
        _draft_tp_check(obj, spec[0], tp, notes, rules, model_runner(model, args, rules))
        draft = args.draft
        notes.append(f"speculative decoding: {spec[0]} drafter {draft.id} ({draft.num_layers} decoder layer(s)) drafts "
                     f"{spec[1]} token(s) per step; its weights, KV layers and profile buffers are counted (section 7 "
                     f"item 8); the scheduler reserves {spec[1]} lookahead slot(s) per running sequence beyond its tokens "
                     "(config/vllm.py num_lookahead_tokens), which the pool, the fit check and the concurrency line do not count")
    elif spec:
        notes.append(f"speculative decoding: {spec[1]} n-gram draft token(s) per step (no drafter weights or KV)")
        if _speculative_method(speculative_object(args.speculative_config)) == "suffix" and rules.is_v1:
            notes.append("speculative decoding: suffix decoding " + (
                f"runs vLLM {rules.version}'s GPU suffix speculator (v1/worker/gpu/spec_decode/suffix/, no extra package)"
                if rules.suffix_gpu_corpus else
                f"needs the arctic-inference package in vLLM {rules.version} (SpeculativeConfig._validate_suffix_decoding "
                "raises ImportError \"Arctic Inference is required for suffix decoding\" without it), which kvplan "
                "cannot see; it drafts on the CPU"))
    mamba_dtype = args.mamba_ssm_cache_dtype or "auto"
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
                       awq_kernel=awq_kernel, gptq_kernel=gptq_linear_kernel(model, gpu, replace(args, tensor_parallel_size=tp), rules, quant) or "",
                       max_num_batched_tokens=tokens, mamba_ssm_cache_dtype=mamba_dtype,
                       vllm_version=rules.version, num_gpus=args.num_gpus or tp * pp * pcp * dp, data_parallel_size=dp)
    return resolved, quant, notes, bool(chunked)


def _draft_tp_check(obj: dict, method: str, tp: int, notes: list[str], rules: VersionRules, runner: str) -> None:
    """--speculative-config's draft_tensor_parallel_size as vLLM takes it: a value other than 1 or the target's TP is
    refused (config/speculative.py SpeculativeConfig._verify_and_get_draft_tp, 0.10.2 and 0.33.0); a draft model at
    another TP than the target's is refused when its proposer loads (v1/spec_decode/draft_model.py
    _raise_if_draft_tp_mismatch, 0.15.0, 0.17.0, 0.20.0, 0.33.0: its torch.compile cache would collide across ranks),
    which model runner v1 alone builds (v1/worker/gpu_model_runner.py, 0.31.0-0.33.0): model runner v2, the default for a
    draft model from 0.31 (rules row mrv2_v1_spec_methods), loads it through its own speculator
    (v1/worker/gpu/spec_decode/draft_model/speculator.py 0.31.0, standalone_ar/speculator.py 0.32.0 and 0.33.0,
    load_draft_model), which checks no TP and builds the layers in the target's TP group;
    an EAGLE head loads at the target's TP whatever it says (v1/spec_decode/eagle.py load_model builds it with the
    target's vllm_config, 0.10.2; llm_base_proposer.py _create_draft_vllm_config keeps its parallel config, 0.33.0), and
    so do MTP layers, whose draft model config (the target checkpoint's) passes the same check in __post_init__. From
    0.34 a draft model is not refused on any runner (rules row draft_model_tp_refusal: model runner v1 is gone)."""
    draft_tp = obj.get("draft_tensor_parallel_size")
    if draft_tp is None:
        return
    if isinstance(draft_tp, bool) or not isinstance(draft_tp, int) or draft_tp < 1:
        raise InputError("--speculative-config", f"draft_tensor_parallel_size must be a whole number >= 1, got {draft_tp!r}",
                         f"drop it (the drafter takes the target's TP, {tp})")
    if draft_tp not in (1, tp):
        raise RefusedByVLLMError("--speculative-config", f"speculative_draft_tensor_parallel_size={draft_tp} cannot be other "
                                 "value than 1 or target model tensor_parallel_size",
                                 f'drop "draft_tensor_parallel_size" or give {tp} (the target\'s --tensor-parallel-size)',
                                 rule="draft_tensor_parallel_size not 1 or TP")
    if draft_tp != tp and method == "draft_model" and rules.draft_model_tp_refusal and runner == "v1":
        raise RefusedByVLLMError("--speculative-config", f"Currently, 'draft_tensor_parallel_size' and 'tensor_parallel_size' "
                                 f"must be the same. Got {draft_tp} and {tp}. Please pass 'draft_tensor_parallel_size' in "
                                 "the speculative_config.",
                                 f'give "draft_tensor_parallel_size": {tp} or drop it (the draft model then shards over the '
                                 "target's ranks, and kvplan counts it so)", rule="draft model TP differs from the target's")
    if draft_tp != tp:
        if method == "draft_model":
            notes.append(f"speculative decoding: draft_tensor_parallel_size {draft_tp} names the draft model's parallel "
                         f"config, but vLLM {rules.version} builds its layers in the target's TP group, split over TP {tp} "
                         "(model runner v2's draft-model speculator, load_draft_model; no TP group of its own)")
            return
        notes.append(f"speculative decoding: draft_tensor_parallel_size {draft_tp} is not applied to the {method} head: vLLM "
                     f"loads it with the target's parallel config, split over TP {tp} (eagle.py / llm_base_proposer.py)")


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
