"""KV-cache specs and groups: what one block of each layer holds once the weights are loaded.

Pipeline stages and the layers each holds, the weights per rank, the KV groups vLLM's KVCacheConfig builds
(build_groups: full attention, sliding windows, mamba / linear-attention state, DeepSeek-V4's compressed and
sparse-MLA groups), which windows a release keeps, the V0 cache, mamba pages and the blocks each group takes
per request. Imports kvplan.plan.args and kvplan.plan.multimodal.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace
from typing import Iterable, NamedTuple

from kvplan.errors import InputError, RefusedByVLLMError
from kvplan.plan.args import COUNT_EXAMPLES, DEFAULT_BLOCK_SIZE, DRAFT_METHODS, EngineArgs, KVGroup, cdiv
from kvplan.plan.multimodal import _text_only, mrope_cache_factor
from kvplan.plan.kv_transfer import kv_transfer_of, manager_off_by_connector
from kvplan.resolve import DTYPE_BYTES, GPUSpec, LayerSpec, ModelSpec, QuantSpec, heads_per_rank, is_ct_wna16, once
from kvplan.versions import (DEEPSEEK_V4_ARCHITECTURES, GDN_FLASHINFER_FALLBACK_WARNING, GDN_PREFILL_ROCM_MISSING,
                             VersionRules, canonical_quant, moe_backend_oracle, release_from)
from kvplan.weights import (RankWeights, ct_experts_module, ct_module_scheme, kv_dtype_bytes, moe_layers, pp_layer_split,
                            splits_exclude_list, weights_per_rank)


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
    # a ModelOpt exclude list as apply_vllm_mapper rewrites it (weights.quant_as_read)
    split = splits_exclude_list(quant, model.architectures, rules.release, rules.modelopt_exclude_split)
    kwargs = dict(tp=tp, pp=pp, quant=quant, dtype_bytes=DTYPE_BYTES[args.dtype] if not model.checkpoint else None,
                  gpu_cc=gpu.cc, ep=args.expert_parallel_size,
                  mtp=bool(spec and spec[0] == "mtp"), gpu_vendor=gpu.vendor,
                  vision=not _text_only(model, args, rules), dp=(args.data_parallel_size or 1) * args.pcp,  # experts over TP x PCP x DP
                  mxfp4_hopper_backend=rules.mxfp4_hopper_backend,
                  mxfp4_triton_cc_majors=rules.mxfp4_triton_cc_majors,
                  mxfp4_triton_keeps_scales=rules.mxfp4_triton_keeps_scales,
                  mxfp4_triton_swizzle_align=rules.mxfp4_triton_swizzle_align,
                  mxfp4_marlin_forced=mxfp4_marlin_forced(args, rules, gpu.cc, model),
                  mxfp4_triton_forced=mxfp4_triton_forced(args, rules, gpu.cc, model),
                  mrope_cache_factor=mrope_cache_factor(model, rules),
                  bnb_nested_absmax=rules.bnb_nested_absmax, bnb_experts=rules.bnb_quantizes_experts,
                  module_paths=rules.layer_module_paths, exclude_split=split,
                  stages=pp_stages(model, args, rules) if pp > 1 else None,
                  mla_kv_b_copy=rules.mla_kv_b_copy,
                  marlin_moe=marlin_moe_experts(model, gpu, rules, quant, args),
                  marlin_dense=marlin_dense_group(model, gpu, rules, quant),
                  dense_zeros_freed=gptq_zero_points_freed(model, gpu, args, rules, quant),
                  mtp_fc_unquantized=(model.model_type.startswith(rules.mtp_fc_unquantized)
                                      or (quant is not None and quant.method == "modelopt"
                                          and str(quant.scheme or "").startswith("nvfp4")
                                          and model.model_type.startswith(rules.mtp_fc_nvfp4_unquantized))),
                  ct_experts_ignore=rules.ct_moe_ignore_read, ct_fused_first=rules.ct_fused_match_first,
                  mla_absorbed=rules.mla_absorbed_weights and runs_mla(model, args, rules)
                  and args.env_value("VLLM_MLA_PERFORM_MATRIX_ABSORPTION") not in ("0",),
                  mla_requantize=args.env_value("VLLM_MLA_DISABLE_REQUANTIZATION") in (None, "0"),
                  redundant_experts=args.eplb_redundant)
    if kwargs["stages"] is not None:
        kwargs["stages"] = tuple(kwargs["stages"])
    # the same in every row of a sweep that varies what the weights do not depend on (resolve.answers_kept)
    return once(lambda: weights_per_rank(model, **kwargs), "rank_weights", model, tuple(kwargs.items()))


def _quantization_config(model: ModelSpec) -> dict:
    qc = model.raw_config.get("quantization_config") or (model.text_config or {}).get("quantization_config") or {}
    return qc if isinstance(qc, dict) else {}


def experts_quant(model: ModelSpec, quant: QuantSpec | None, rules: VersionRules) -> QuantSpec | None:
    """The scheme a MoE model's routed experts are built with, which their kernel, its workspace and its padding follow:
    `quant` itself, but for a compressed-tensors checkpoint the scheme CompressedTensorsMoEMethod.get_moe_method reads
    for the first MoE layer, expert 0's down_proj's with the fused-experts class (compressed_tensors_moe.py 0.12.0-0.17.1,
    compressed_tensors_moe/compressed_tensors_moe.py 0.20.0-0.33.0; weights.ct_module_scheme): the group whose target
    names the experts (a W4A16 group on the experts beside an FP8 one on attention), None where the ignore list (from
    0.12.0, rules ct_moe_ignore_read) or the targets leave them out (UnquantizedFusedMoEMethod); before 0.12.0 a
    "Linear" group's scheme whatever else names them (ct_module_scheme linear_first). The weight count sizes the
    experts by the same module (weights._ct_grouped_bytes)."""
    if quant is None or quant.method != "compressed-tensors" or not model.num_experts:
        return quant
    layers = sorted(moe_layers(model))
    module = ct_experts_module(model.model_type, rules.layer_module_paths, layers[0]) if layers else None
    if module is None:
        return quant
    return ct_module_scheme(quant, layers[0], module, "FusedMoE", model.model_type, rules.layer_module_paths,
                            ignore=rules.ct_moe_ignore_read, linear_first=not rules.ct_moe_ignore_read)


def dense_quants(model: ModelSpec, quant: QuantSpec | None) -> tuple[QuantSpec, ...]:
    """The schemes the dense Linear layers may be built with: a compressed-tensors checkpoint's config groups' (each
    module takes its own group's: weights.ct_module_scheme), else `quant` alone."""
    if quant is None:
        return ()
    if quant.method == "compressed-tensors" and quant.group_schemes:
        return tuple(dict.fromkeys(sp for _, sp in quant.group_schemes))
    return (quant,)


def marlin_moe_experts(model: ModelSpec, gpu: GPUSpec, rules: VersionRules, quant: QuantSpec | None,
                       args: EngineArgs | None = None) -> tuple[int, bool] | None:
    """Where the routed experts run on Marlin's fused MoE in a release whose weight prep pads them to its thread tiles
    (rules marlin_moe_tile_pad, from 0.25.0): (the group size, -1 per channel; whether the method checks the shape
    first), for weights.marlin_moe_width. None elsewhere. The experts' own scheme decides (experts_quant: a
    compressed-tensors checkpoint's group that names them).

    Which experts: FP8 weights (Fp8Config, compressed-tensors, ModelOpt; online --quantization fp8) on a CUDA GPU
    without FP8 compute (cc 7.5 to 8.8), which the FP8 MoE oracle gives Marlin (fused_moe/oracle/fp8.py: MarlinExperts
    takes kFp8StaticTensorSym / ChannelSym / 128-block weights on cc >= 7.5; the kernels before it need 8.9), padded
    without a check (prepare_fp8_moe_layer_for_marlin; group: the block's k width, else per channel); integer
    weight-only experts (AWQ, GPTQ, compressed-tensors int4/int8 without input activations) on cc >= 7.5, which
    auto_awq.py / auto_gptq.py / compressed_tensors_moe get_moe_method hand to the WNA16 oracle after
    check_moe_marlin_supports_layer (fused_moe/oracle/int_wna16.py select_wna16_moe_backend: FLASHINFER_TRTLLM first,
    which takes symmetric int4 in groups of 32 on Blackwell 10.x alone, trtllm_mxint4_moe.py; then MARLIN). In
    "no_actorder" releases an act-order checkpoint (GPTQ desc_act, compressed-tensors actorder group / dynamic) keeps
    the strict check, so it is never padded. MXFP4 experts have their own layout (weights.mxfp4_expert_layout);
    NVFP4's Marlin prep does not pad (marlin_utils_fp4.py, 0.25.0-0.33.0).
    --moe-backend (`args`) moves the experts where the oracle reads it (moe_backend_for): marlin puts FP8 experts on
    Marlin on any cc >= 7.5 and keeps WNA16 ones off FlashInfer TRTLLM; another value keeps them off Marlin."""
    scope = rules.marlin_moe_tile_pad
    if not scope or not model.num_experts:
        return None
    quant = experts_quant(model, quant, rules)
    if quant is None or gpu.vendor != "NVIDIA" or gpu.cc is None or gpu.cc < (7, 5) or not quant.bits:
        return None
    fp8 = quant.bits == 8 and (quant.method in ("fp8", "modelopt") or "fp8" in str(quant.scheme or ""))
    asked = moe_backend_for(model, args, rules, "fp8" if fp8 else "wna16") if args is not None else None
    if asked not in (None, "marlin"):
        return None
    if fp8:
        if gpu.cc >= (8, 9) and asked != "marlin":
            return None
        return (quant.weight_block[1] if quant.weight_block else -1, False)
    qc = _quantization_config(model)
    group = quant.group_size or -1
    if quant.method == "awq" and quant.bits == 4:
        actorder = False
    elif quant.method == "gptq" and quant.bits in (4, 8) and qc.get("sym", True) is not False:
        # AutoGPTQConfig's Marlin types are symmetric 4- and 8-bit
        actorder = gptq_act_order(model, quant)
    elif is_ct_wna16(quant) and quant.bits in (4, 8):  # W8A8 / W4A8 integer schemes: other MoE methods
        actorder = quant.act_order
    else:
        return None
    if (10, 0) <= gpu.cc < (11, 0) and quant.bits == 4 and group == 32 and not quant.zero_points and asked != "marlin":
        return None  # FlashInfer TRTLLM's MXINT4 experts may take it: not Marlin
    if not marlin_moe_padded(scope, actorder):
        return None
    return (group, True)


def gptq_act_order(model: ModelSpec, quant: QuantSpec) -> bool:
    """Whether a GPTQ checkpoint is read as act order: desc_act with groups; act order with one group per channel is
    read as none (auto_gptq.py AutoGPTQConfig.__init__, 0.25.0)."""
    return bool(_quantization_config(model).get("desc_act")) and (quant.group_size or 0) > 0


def marlin_moe_padded(scope: str, actorder: bool) -> bool:
    """Whether Marlin's MoE weight prep pads a layer's experts to its thread tiles (allow_tile_padding) in a release
    whose rules marlin_moe_tile_pad is `scope`: every layer where "all", a layer without act order where
    "no_actorder", none where ""."""
    return scope == "all" or (scope == "no_actorder" and not actorder)


def _marlin_dense_of(model: ModelSpec, gpu: GPUSpec, quant: QuantSpec) -> int | None:
    """The Marlin group size (-1 per channel) of dense Linear layers built with scheme `quant` on `gpu`, None where that
    scheme does not run on Marlin there (marlin_dense_group)."""
    if quant.bits == 8 and (quant.method in ("fp8", "modelopt") or "fp8" in str(quant.scheme or "")):
        return (quant.weight_block[1] if quant.weight_block else -1) if gpu.cc < (8, 9) else None
    qc = _quantization_config(model)
    group = quant.group_size or -1
    if quant.method == "awq" and quant.bits == 4:
        return group
    if quant.method == "gptq" and quant.bits in (4, 8) and qc.get("sym", True) is not False:
        return None if qc.get("desc_act") and group > 0 else group
    if is_ct_wna16(quant) and quant.bits in (4, 8):
        return None if quant.act_order else group
    return None


def marlin_dense_group(model: ModelSpec, gpu: GPUSpec, rules: VersionRules,
                       quant: QuantSpec | None) -> int | tuple | None:
    """Where the dense Linear layers run on Marlin in a release whose weight prep pads them to its thread tiles (rules
    marlin_dense_tile_pad, from 0.24.0): the quantization's group size (-1 per channel), for weights.marlin_dense_pad.
    None elsewhere. Which layers: FP8 weights on a CUDA GPU without FP8 compute (cc 7.5 to 8.8:
    prepare_fp8_layer_for_marlin, the block's k width as the group); AWQ 4-bit (auto_awq.py get_quant_method takes
    Marlin where check_marlin_supported passes, 0.24.0), GPTQ symmetric 4/8-bit and compressed-tensors WNA16 on
    cc >= 7.5 without act order (MarlinLinearKernel pads unless the layer has a g_idx). A compressed-tensors checkpoint
    whose config groups hold different schemes builds each layer with its own group's scheme
    (CompressedTensorsConfig.get_scheme -> _get_scheme_from_parts per layer, compressed_tensors.py 0.10.2-0.33.0), so
    only the layers of a Marlin scheme pad: (scheme, its group size or None) for each of its schemes, None where none
    runs on Marlin. Not read: NVFP4 / MXFP4 Marlin (marlin_utils_fp4.py pads too, on GPUs below their native kernels)."""
    if (not rules.marlin_dense_tile_pad or quant is None or gpu.vendor != "NVIDIA" or gpu.cc is None
            or gpu.cc < (7, 5)):
        return None
    schemes = dense_quants(model, quant)
    groups = tuple((sp, _marlin_dense_of(model, gpu, sp) if sp.bits else None) for sp in schemes)
    if not any(g is not None for _, g in groups):
        return None
    return groups if quant.method == "compressed-tensors" and quant.group_schemes else groups[0][1]


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
    qc = _quantization_config(spec)
    if str(qc.get("quant_method", "")).lower() != method or qc.get("group_size") not in MARLIN_GROUP_SIZES:
        return None
    if method == "awq":
        fits = qc.get("bits") == 4 and qc.get("zero_point") is not None
    else:
        fits = qc.get("bits") in (4, 8) and qc.get("sym") is True and qc.get("desc_act") is not None
    return marlin if fits else None


def _dense_linear_shapes(model: ModelSpec, tp: int) -> tuple[tuple[int, int], ...] | None:
    """(in_features, out_features) on a rank of a plain decoder's dense Linear layers, as the kernel config sees them
    (MPLinearLayerConfig.partition_weight_shape: a fused layer's output partitions summed): qkv_proj, o_proj, and
    gate_up_proj / down_proj where the model has a dense MLP. None for a model whose layers are not all plain attention
    (MLA, recurrent, compressed, windowed by another head layout), whose shapes this does not spell out."""
    if any(l.kind not in ("full", "sliding", "chunked") for l in model.layers) or not model.head_dim:
        return None
    h, d = model.hidden_size, model.head_dim
    q, kv = model.num_attention_heads // tp, heads_per_rank(model.num_kv_heads, tp)
    shapes = [(h, (q + 2 * kv) * d), (q * d, h)]
    if model.intermediate_size and not model.num_experts:
        i = model.intermediate_size // tp
        shapes += [(h, 2 * i if model.gated is not False else i), (i, h)]
    return tuple(shapes)


def gptq_linear_kernel(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules,
                       quant: QuantSpec | None) -> str | None:
    """The kernel vLLM gives a GPTQ checkpoint's dense Linear layers on this GPU: "marlin" (MarlinLinearKernel),
    "machete" (Hopper), "allspark" (8-bit per channel on Ampere / Ada), "exllama" (the plain GPTQ method, or the
    Exllama kernel below Marlin's capability). None where it is not known: not a GPTQ checkpoint, a GPU not NVIDIA's or
    of unknown capability, an asymmetric checkpoint, or layers Machete would take only in part (its shape check is per
    layer). choose_mp_linear_kernel tries Machete, AllSpark, Marlin, then Exllama (rules rows gptq_machete,
    gptq_allspark, marlin_linear_min_cc); up to 0.21 --quantization gptq, or a GPU or checkpoint GPTQ-Marlin does not
    take (plan.terms.marlin_method), leaves the layers to the plain GPTQ method (rules row gptq_flag_auto_kernel)."""
    if quant is None or quant.method != "gptq" or gpu.vendor != "NVIDIA" or gpu.cc is None:
        return None
    qc = _quantization_config(model)
    if qc.get("sym") is False:
        return None
    flag = canonical_quant(args.quantization or "")
    if not rules.gptq_flag_auto_kernel and (flag == "gptq" or marlin_method(replace(model, quant=quant), gpu,
                                                                             rules.version) is None):
        return "exllama"
    group = quant.group_size or -1
    scope, groups = rules.gptq_machete
    if (gpu.cc == (9, 0) or (scope == "from_90" and gpu.cc >= (9, 0))) and quant.bits in (4, 8) and group in groups:
        shapes = _dense_linear_shapes(model, args.tensor_parallel_size)
        if shapes is None:
            return None
        fits = [k % 64 == 0 and n % 128 == 0 for k, n in shapes]
        if qc.get("desc_act") and args.tensor_parallel_size > 1 and not rules.gptq_flag_auto_kernel:
            return None  # act order on a row-parallel layer: Machete refuses that layer alone
        if all(fits):
            return "machete"
        if any(fits):
            return None
    if rules.gptq_allspark and quant.bits == 8 and group == -1 and (8, 0) <= gpu.cc < (9, 0):
        return "allspark"
    if gpu.cc >= rules.marlin_linear_min_cc:
        return "marlin"
    return "exllama"


def gptq_zero_points_freed(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules,
                           quant: QuantSpec | None) -> bool:
    """Whether the release frees the checkpoint's qzeros of the dense Linear layers before "Model loading took" is
    measured: symmetric GPTQ on MarlinLinearKernel up to 0.33 (rules row gptq_marlin_zeros_kept). The kernel as
    resolve_args read it from the flags given (args.gptq_kernel), else read from `args` as they stand."""
    if rules.gptq_marlin_zeros_kept:
        return False
    kernel = args.gptq_kernel if args.gptq_kernel is not None else gptq_linear_kernel(model, gpu, args, rules, quant)
    return kernel == "marlin"


def moe_backend_for(model: ModelSpec | None, args: EngineArgs, rules: VersionRules, scheme: str) -> str | None:
    """The --moe-backend value the release's oracle for experts of `scheme` ("unquantized", "fp8", "nvfp4", "mxfp4",
    "wna16": versions.MOE_BACKEND_ORACLES) selects with: the value given, where that oracle reads the flag and maps it;
    None for "auto", no flag, a release whose experts of the scheme ignore it, a value it refuses
    (plan.serve_flags.moe_backend refuses those), or DeepSeek-V4, whose model code picks its MoE kernel itself (not read)."""
    asked = args.moe_backend
    if not asked or asked == "auto":
        return None
    if model is not None and set(model.architectures) & set(DEEPSEEK_V4_ARCHITECTURES):
        return None
    oracle = moe_backend_oracle(scheme, rules.release)
    return asked if oracle and asked in oracle[1] else None


def mxfp4_marlin_forced(args: EngineArgs, rules: VersionRules, cc: tuple[int, int] | None,
                        model: ModelSpec | None = None) -> bool:
    """Whether --env VLLM_MXFP4_USE_MARLIN=1 puts MXFP4 experts on Marlin on a GPU of compute capability `cc` where
    the release would pick another kernel (rules row mxfp4_marlin_env: any GPU in 0.10.1, not read in 0.10.2-0.11.0,
    Hopper only in 0.11.1-0.18, any GPU in 0.19-0.23, not read from 0.24), or --moe-backend marlin does where the
    MXFP4 oracle reads it (0.19 on: fused_moe/oracle/mxfp4.py select_mxfp4_moe_backend maps "marlin" to
    Mxfp4MoeBackend.MARLIN ahead of any priority list, and another value over the variable); the weights' padding and
    the experts' workspace both follow it."""
    asked = moe_backend_for(model, args, rules, "mxfp4")
    if asked is not None:  # the oracle reads moe_backend before the variable (oracle/mxfp4.py 0.19.0-0.23.0)
        return cc is not None and asked == "marlin"
    scope = rules.mxfp4_marlin_env
    return bool(scope and cc is not None and args.env_on("VLLM_MXFP4_USE_MARLIN") and (scope == "any" or cc == (9, 0)))


def mxfp4_triton_forced(args: EngineArgs, rules: VersionRules, cc: tuple[int, int] | None,
                        model: ModelSpec | None = None) -> bool:
    """Whether --moe-backend triton puts MXFP4 experts on the OAI Triton kernels (0.19 on), on a GPU whose compute
    capability they take (rules mxfp4_triton_cc_until; plan.serve_flags.moe_backend refuses the others)."""
    return bool(cc is not None and (9, 0) <= cc < rules.mxfp4_triton_cc_until
                and moe_backend_for(model, args, rules, "mxfp4") == "triton")


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


def _conv_dtype(args: EngineArgs) -> str:
    """The recurrent layers' conv state dtype: --mamba-cache-dtype, the model dtype where it is auto
    (MambaStateDtypeCalculator: get_kv_cache_torch_dtype(mamba_cache_dtype, model_dtype), model_executor/layers/mamba/
    mamba_utils.py, 0.33.0 wheel)."""
    if args.mamba_cache_dtype and args.mamba_cache_dtype != "auto":
        return args.mamba_cache_dtype
    return args.dtype


def _ssm_dtype(model: ModelSpec, args: EngineArgs, kind: str = "") -> str:
    """The SSM (temporal) state dtype of a recurrent layer of `kind`: --mamba-ssm-cache-dtype, else the model's rule
    (NemotronH and Qwen3.5+ keep fp32 SSM state, section 3.1; their config hooks set an auto flag), else the conv state's
    dtype (_conv_dtype: MambaStateDtypeCalculator._mamba_state_dtype takes the conv dtype for an auto SSM dtype). A
    linear-attention layer's one state is typed by --mamba-cache-dtype alone (linear_attention_state_dtype)."""
    if kind == "linear":
        return _conv_dtype(args)
    if args.mamba_ssm_cache_dtype and args.mamba_ssm_cache_dtype != "auto":
        return args.mamba_ssm_cache_dtype
    if model.mamba_ssm_dtype:
        return str(model.mamba_ssm_dtype).replace("torch.", "")
    if model.model_type == "nemotron_h":
        return "float32"
    return _conv_dtype(args)


class GdnPrefill(NamedTuple):
    """The GDN prefill kernel vLLM runs for a model's Gated DeltaNet layers (gdn_prefill): `kernel` flashinfer,
    cutedsl, triton, aiter_flydsl or hip (None: the model has no GDN layer, or which one runs cannot be told);
    `refusal` vLLM's message where the start stops on the flag; `warning` vLLM's where it falls back; `note` what
    kvplan says of the choice."""

    kernel: str | None = None
    refusal: str | None = None
    warning: str | None = None
    note: str | None = None


def _gdn_flashinfer_runs(rec, gpu: GPUSpec) -> bool:
    """Whether FlashInfer's GDN prefill kernel runs on `gpu`: _resolve_gdn_prefill_backend (mamba/gdn/
    qwen_gdn_linear_attn.py, 0.33.0 and 0.34.0 wheels) takes it on CUDA at compute capability 9.0, or 10.x / 12.x when
    linear_key_head_dim is 128 (and the CUDA runtime is 13, as those wheels' cu13 dependencies give)."""
    cc = gpu.compute_capability or ""
    major = cc.split(".")[0]
    return cc == "9.0" or (major in ("10", "12") and all(r.key_head_dim == 128 for r in rec))


def _gdn_cutedsl_runs(rec, gpu: GPUSpec, rules: VersionRules) -> bool:
    """Whether the in-tree CuteDSL kernel runs where it is asked for: with 128-wide keys, on the GPU families of rules
    row gdn_cutedsl_cc_majors (_resolve_gdn_prefill_backend's supports_cutedsl)."""
    major = (gpu.compute_capability or "").split(".")[0]
    return major in rules.gdn_cutedsl_cc_majors and all(r.key_head_dim == 128 for r in rec)


def gdn_prefill(layers: Iterable[LayerSpec], gpu: GPUSpec | None, args: EngineArgs, rules: VersionRules) -> GdnPrefill:
    """The GDN prefill kernel for `layers` with --gdn-prefill-backend (args.gdn_prefill_backend; None: vLLM's own
    choice), as _resolve_gdn_prefill_backend picks it (mamba/gdn/qwen_gdn_linear_attn.py, 0.33.0 and 0.34.0 wheels;
    the refusals and the warnings by release from the gdn_* rules rows). Which kernel runs sets a KV-cache figure only
    where Qwen's GDN layers export prefill checkpoints (rules row mamba_checkpoint_page: FlashInfer's, from 0.33), so
    before that release only the flag's refusals and fallbacks are told. A model without GDN layers never reads the
    flag (it stays in additional_config)."""
    rec = [l.recurrent for l in layers if l.kind == "recurrent" and l.recurrent is not None and l.recurrent.kind == "gdn"]
    asked = args.gdn_prefill_backend
    if not rec:
        return GdnPrefill(note=f"--gdn-prefill-backend {asked}: the model has no Gated DeltaNet layers, so vLLM does "
                               "not read it" if asked else None)
    requested = asked or "auto"
    vendor = (gpu.vendor or "NVIDIA").upper() if gpu is not None else None
    platform = {"NVIDIA": "cuda", "AMD": "rocm"}.get(vendor or "")
    other = dict(rules.gdn_other_platform_refusals).get(requested)
    if other and (requested == "sycl" or platform == "cuda"):  # (no XPU in the catalog: sycl is refused everywhere)
        return GdnPrefill(refusal=other.format(platform=platform) + f" (vLLM {rules.version} stops while it builds the "
                          "model's GDN layers)")
    kernels_matter = "gdn" in rules.mamba_checkpoint_page
    if gpu is None or platform is None:  # an unknown GPU, or a platform whose choice kvplan does not model
        kernel = "flashinfer" if requested in ("auto", "flashinfer") and gpu is None else None
        return GdnPrefill(kernel=kernel, note=f"--gdn-prefill-backend {asked}: which GDN prefill kernel runs on "
                                              f"{gpu.name if gpu else 'an unknown GPU'} is not modelled" if asked else None)
    if platform == "rocm":
        return _gdn_prefill_rocm(rec, gpu, args, rules, requested)
    if requested in ("auto", "flashinfer") and _gdn_flashinfer_runs(rec, gpu):
        kernel = "flashinfer"
    elif requested == "cutedsl" and _gdn_cutedsl_runs(rec, gpu, rules):
        kernel = "cutedsl"
    else:
        kernel = "triton"
    warning = None
    if requested == "flashinfer" and rules.gdn_flashinfer_fallback_warns and gpu.compute_capability != "9.0":
        warning = GDN_FLASHINFER_FALLBACK_WARNING  # (up to 0.21 FlashInfer ran on SM 9.0 alone)
    note = None
    if asked and kernels_matter:
        names = {"flashinfer": "FlashInfer", "cutedsl": "CuteDSL", "triton": "Triton/FLA"}
        note = (f"--gdn-prefill-backend {asked}: vLLM {rules.version} runs the {names[kernel]} GDN prefill kernel on "
                f"{gpu.name} ('Using {names[kernel]} GDN prefill kernel (requested={asked}, head_k_dim="
                f"{rec[0].key_head_dim}).')" + ("" if kernel == "flashinfer" else
                                                 ": no prefill checkpoints, so no 64-token block alignment or checkpoint page"))
    elif asked:
        note = (f"--gdn-prefill-backend {asked}: the GDN prefill kernel sets no KV-cache figure in vLLM {rules.version} "
                "(its GDN layers export no prefill checkpoints before 0.33)")
    return GdnPrefill(kernel=kernel, warning=warning, note=note)


def _gdn_prefill_rocm(rec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules, requested: str) -> GdnPrefill:
    """gdn_prefill on ROCm, where FlashInfer never runs (no prefill checkpoints): aiter_flydsl (from 0.32) and hip
    (from 0.34) are refused where their kernels are missing (versions.GDN_PREFILL_ROCM_MISSING), and fall back to
    Triton/FLA with vLLM's warning where they cannot serve the model; whether the installed AITER exports the FlyDSL
    kernels is not an input, so that start is told, not planned."""
    asked = args.gdn_prefill_backend
    if requested not in GDN_PREFILL_ROCM_MISSING:
        warning = (GDN_FLASHINFER_FALLBACK_WARNING if requested == "flashinfer" and rules.gdn_flashinfer_fallback_warns
                   else None)
        return GdnPrefill(kernel=None if requested == "auto" else "triton", warning=warning, note=(
            f"--gdn-prefill-backend {asked}: vLLM {rules.version} runs the Triton/FLA GDN prefill kernel on ROCm "
            "(no prefill checkpoints)") if asked else None)
    dk, dv = rec[0].key_head_dim, rec[0].head_dim
    if requested == "aiter_flydsl":
        available = args.env_on("VLLM_ROCM_USE_AITER")
        reasons = ([f"linear head dims are K={dk} V={dv}; FlyDSL requires 128/128"] if (dk, dv) != (128, 128) else []) + (
            [f"model dtype is torch.{args.dtype}; FlyDSL requires bfloat16"] if args.dtype and args.dtype != "bfloat16" else [])
        needs = ("the installed AITER must export the FlyDSL prefill kernels on a CDNA 3 or newer Instinct GPU, which "
                 "kvplan cannot see")
    else:  # hip: RDNA3.5 (gfx1150-gfx1153) are the integrated GPUs of AMD's Ryzen AI APUs
        available = gpu.integrated_memory
        reasons = ([f"linear head dims are K={dk} V={dv}; the HIP kernel requires 128/128"] if (dk, dv) != (128, 128) else []) + (
            [f"model dtype is torch.{args.dtype}; the HIP kernel requires bfloat16 or float16"]
            if args.dtype and args.dtype not in ("bfloat16", "float16") else [])
        needs = "the vLLM build must include the _rocm_C.rdna35_gdn_chunked op, which kvplan cannot see"
    if not available:
        return GdnPrefill(refusal=GDN_PREFILL_ROCM_MISSING[requested] + f" (vLLM {rules.version} stops while it builds "
                          "the model's GDN layers)")
    if not rules.gdn_rocm_fallback_all_reasons:
        reasons = reasons[:1]
    if reasons:
        return GdnPrefill(kernel="triton", warning=f"GDN prefill backend '{requested}' was requested but "
                                                   f"{'; '.join(reasons)}. Falling back to Triton/FLA.")
    return GdnPrefill(kernel=requested, note=f"--gdn-prefill-backend {requested}: {needs}; vLLM stops with "
                                             f"'{GDN_PREFILL_ROCM_MISSING[requested]}' where it does not")


def _gdn_exports_checkpoints(layers: list[LayerSpec], gpu: GPUSpec | None, args: EngineArgs,
                             rules: VersionRules, gdn: GdnPrefill | None = None) -> bool:
    """Whether Qwen's GDN layers export prefill checkpoints, so that (in 0.33) each holds a checkpoint page in align mode:
    only with FlashInfer's GDN prefill kernel (gdn_prefill: vLLM's own choice on CUDA at compute capability 9.0, or
    10.x / 12.x with 128-wide keys, unless --gdn-prefill-backend asks for another; Triton/FLA elsewhere: ROCm, Ampere,
    Ada), which sets the layer's _checkpoint_alignment only then (mamba/gdn/qwen_gdn_linear_attn.py, 0.33.0 and 0.34.0
    wheels). And only when every recurrent layer can (get_mamba_prefill_checkpoint_alignment is None otherwise). An
    unknown GPU keeps the page where vLLM's own choice is asked. `gdn`: gdn_prefill's answer for these layers where the
    caller has it already (None: worked out here)."""
    rec = [l.recurrent for l in layers if l.kind == "recurrent" and l.recurrent is not None]
    if not rec or any(r.kind != "gdn" for r in rec):
        return False
    return (gdn if gdn is not None else gdn_prefill(layers, gpu, args, rules)).kernel == "flashinfer"


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
                 gpu: GPUSpec | None = None, gdn: GdnPrefill | None = None) -> tuple[tuple[KVGroup, ...], int, str]:
    """Per-layer specs -> KV-cache groups, bytes per block and how that block was sized (sections 2.4, 3.1, 3.2, 3.3).
    `gdn`: the GDN prefill kernel (gdn_prefill of the model's layers, `gpu`, `args`, `rules`) where the caller has
    worked it out already; None: worked out here where the model has GDN layers.

    The formula opens with the arithmetic that gives the bytes ("36 x 65,536 B", "25 x 98,304 B + 5 x 196,608 B"),
    then ": " and what its terms are, so --explain shows a product that adds up for every model."""
    tp = args.tensor_parallel_size
    kvb = kv_dtype_bytes(args.kv_cache_dtype, args.dtype)
    bs = args.block_size
    all_layers = [l for l in model.layers if l.kind != "none"]
    # Mamba2 always can; GDN as _gdn_exports_checkpoints says (rules row mamba_checkpoint_page: which kinds, from when)
    ckpt_capable = not any(l.recurrent is not None and l.recurrent.kind == "gdn" for l in all_layers) \
        or _gdn_exports_checkpoints(all_layers, gpu, args, rules, gdn)
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
    # the hybrid KV-cache manager off: by the flag, or by a KV connector the release turns it off for (plan.kv_transfer)
    off_by = "--disable-hybrid-kv-cache-manager" if args.disable_hybrid_kv_cache_manager else \
        manager_off_by_connector(args, rules)
    if off_by and (model.compressed_attention or model.sparse_mla):
        raise InputError(off_by.split(" ")[0], f"kvplan has not read what vLLM {rules.version}'s "
                         f"unify_hybrid_kv_cache_specs makes of {model.id}'s "
                         + ("compressed and sliding-window latent caches" if model.compressed_attention else
                            "latent cache beside its indexer's keys") + f" with the hybrid KV-cache manager off ({off_by})",
                         f"leave out {off_by.split(' ')[0]} to plan it")
    if model.compressed_attention:
        return _deepseek_v4_groups(model, layers, args, rules, notes)
    if model.sparse_mla:
        return _sparse_mla_groups(model, layers, args, rules, notes, gpu)
    if (args.kv_cache_dtype or "").lower() == "fp8_ds_mla":
        raise InputError("--kv-cache-dtype", "fp8_ds_mla is DeepSeek's sparse-attention cache layout; kvplan models it for "
                         "DeepSeek-V3.2 and -V4 only", "use fp8 (or auto) for this model")
    if rules.engine == "v0" and any(l.kind == "cross" for l in layers):
        raise InputError("--vllm-version", f"{model.id}: this release runs encoder-decoder models (Whisper) on its V0 "
                         "engine, whose cross-attention blocks kvplan does not model",
                         "plan with --vllm-version 0.10.2 or newer (V1's CrossAttentionSpec)")
    if rules.engine == "v0":
        return _v0_cache(model, attn, args, rules, notes)
    if (args.disable_hybrid_kv_cache_manager is False and rules.hybrid_flag_explicit_on
            and rules.chunked_local_spec == "manager_off" and any(l.kind == "chunked" for l in layers)):
        # VllmConfig.__post_init__ (0.13): the release turns the manager off for chunked local attention, which an
        # explicit --no-disable-hybrid-kv-cache-manager contradicts (rules row hybrid_flag_explicit_on)
        raise RefusedByVLLMError("--no-disable-hybrid-kv-cache-manager", f"vLLM {rules.version} turns the hybrid KV-cache "
                                 f"manager off for {model.id}'s chunked local attention, and refuses the flag that keeps "
                                 "it on (ValueError: \"Hybrid KV cache manager was explicitly enabled but is not supported "
                                 "in this configuration. Consider omitting the --no-disable-hybrid-kv-cache-manager flag "
                                 "to let vLLM decide automatically.\")", "leave out --no-disable-hybrid-kv-cache-manager, "
                                 "or set VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1 (--env)",
                                 rule="hma_explicit_on")
    layers, checked = _windows_kept(layers, rules, notes, warns, flag_off=bool(off_by),
                                    off_by=off_by or "--disable-hybrid-kv-cache-manager")
    if off_by:
        _refuse_ununified(model, layers, rules, off_by)

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
        kind = rec[0].recurrent.kind if rec[0].recurrent else ""
        conv_b, ssm_b = DTYPE_BYTES[_conv_dtype(args)], DTYPE_BYTES[_ssm_dtype(model, args, kind)]
        if args.mamba_cache_dtype and args.mamba_cache_dtype != "auto":
            notes.append(f"--mamba-cache-dtype {args.mamba_cache_dtype}: the recurrent layers' "
                         + ("state" if kind == "linear" else f"conv state in {args.mamba_cache_dtype}, their SSM state "
                            f"in {_ssm_dtype(model, args, kind)}")
                         + (f" in {args.mamba_cache_dtype}" if kind == "linear" else
                            " (--mamba-ssm-cache-dtype, or the model's own SSM dtype, where set; else the conv state's)"))
        mamba_page = _state_bytes(rec[0], tp, conv_b, ssm_b, spec_tokens if rules.mamba_spec_pages else 0)
        if attn:
            # hybrid: raise the attention block size until its page holds the Mamba state (section 2.4)
            per_token = max(_attention_page_per_token(l, tp, kvb) for l in attn)
            align = max(bs, DEFAULT_BLOCK_SIZE)
            if (ckpt_capable and "gdn" in rules.mamba_checkpoint_page and rec[0].recurrent is not None
                    and rec[0].recurrent.kind == "gdn" and prefix_caching_on(args, rules, hybrid=True)
                    and rules.mamba_cache_mode == "align"):
                # align mode with GDN prefill checkpoints: blocks also land on the checkpoint alignment (rules row
                # gdn_checkpoint_block_alignment_tokens; _gdn_exports_checkpoints says when all layers export them)
                align = math.lcm(align, rules.gdn_checkpoint_block_alignment_tokens)
            all_mode = (rec[0].recurrent is not None and rec[0].recurrent.kind in ("mamba1", "mamba2")
                        and rules.mamba_cache_mode.startswith("all_if_supported")
                        and prefix_caching_on(args, rules, hybrid=True))
            if all_mode:
                # "all" mode (a Mamba1/2 family under prefix caching, 0.11.1-0.27): the block lands on the SSD
                # kernel's chunk, --mamba-block-size where given, else the model's (get_mamba_chunk_size), in lcm with
                # the kernel block (models/config.py HybridAttentionMambaModelConfig, 0.11.1-0.18.0 wheels;
                # platforms/interface.py update_block_size_for_backend, 0.27.0)
                base = args.mamba_block_size or rec[0].recurrent.chunk_size
                chunk = math.lcm(base, align)
                bs = chunk * cdiv(cdiv(mamba_page, per_token), chunk)
                notes.append(f"Mamba prefix caching ('all' mode, vLLM {rules.version}): the block is a multiple of "
                             f"lcm({base}, {align}) = {chunk} tokens, the " + (
                                 f"--mamba-block-size {base}" if args.mamba_block_size else
                                 f"model's Mamba chunk size {base}") + " and the kernel block")
            else:
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
                                  checkpoint_capable=ckpt_capable, encoder_len=ls[0].encoder_len,
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


def _windows_kept(layers: list[LayerSpec], rules: VersionRules, notes: list[str], warns: list[str],
                  flag_off: bool = False, off_by: str = "--disable-hybrid-kv-cache-manager",
                  ) -> tuple[list[LayerSpec], list[tuple[str, int] | None]]:
    """Windowed layers as the release keeps them: a window layer V1 cannot keep as one holds every token, like a
    full-attention layer (see the rules rows sliding_window_spec, chunked_local_spec and hybrid_kv_manager). Also,
    per layer, the (kind, window) the fit check still charges where the release has the window spec but holds the
    layer as full attention after the check (rules row fit_check_sees_windows), else None. `flag_off`:
    --disable-hybrid-kv-cache-manager, under which unify_hybrid_kv_cache_specs holds window layers beside
    full-attention ones as full attention (rules row hybrid_manager_off_refusal); `off_by`: what turned the manager off
    (the flag, or '--kv-transfer-config (NAME)': plan.kv_transfer), as the notes name it."""
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
    elif windows and (whole or promote) and flag_off:
        specced |= windows
        promote |= windows
        notes.append(f"{off_by}: vLLM {rules.version}'s unify_hybrid_kv_cache_specs turns the "
                     f"{' and '.join(sorted(windows))} layers beside full-attention ones into full-attention specs: every "
                     "layer holds every token, in one group of full-attention pages")
    elif flag_off and rules.hybrid_kv_manager:
        notes.append(f"{off_by}: " + (
            f"vLLM {rules.version} holds the window layers as full attention already" if promote and not windows else
            f"no full-attention layer beside the {'/'.join(sorted(windows))} layers: vLLM {rules.version} keeps them "
            "as windows (one type, nothing to unify)" if windows else
            f"the layers' KV specs are not windows: vLLM {rules.version} has nothing to unify"))
    if not promote:
        return layers, [None] * len(layers)
    if manager_off or (flag_off and rules.hybrid_kv_manager and windows):
        # the manager exists but is off for this model (by the release, or by the flag): vLLM says so
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


def _refuse_ununified(model: ModelSpec, layers: list[LayerSpec], rules: VersionRules,
                      off_by: str = "--disable-hybrid-kv-cache-manager") -> None:
    """--disable-hybrid-kv-cache-manager on a model whose KV specs stay of several types once the window layers are
    full attention (Mamba / GDN state or cross attention beside attention layers): vLLM raises the ValueError of rules
    row hybrid_manager_off_refusal as it builds the KV-cache groups (unify_hybrid_kv_cache_specs)."""
    kinds = {"state" if l.kind == "recurrent" else l.kind for l in layers}
    if len(kinds) <= 1:
        return
    what = {"state": "Mamba / linear-attention state", "cross": "cross-attention", "full": "full-attention",
            "mla": "MLA", "sliding": "sliding-window", "chunked": "chunked-local"}
    flag = off_by.split(" ")[0]
    raise InputError(flag,
                     f"{model.id} keeps {' and '.join(what.get(k, k) for k in sorted(kinds))} layers, which vLLM "
                     f"{rules.version} cannot hold as one KV-cache type without its hybrid KV-cache manager"
                     + ("" if flag == off_by else f" (turned off for {off_by})") + ": it refuses "
                     f"(\"ValueError: {rules.hybrid_manager_off_refusal}\")",
                     f"leave out {flag}: this model needs the hybrid manager's groups" if flag == off_by else
                     f"leave out {flag}, or use a connector that subclasses SupportsHMA on vLLM "
                     f"{release_from('kv_transfer_hybrid', 'unless_hma')} or newer"
                     + (f" ({', '.join(rules.kv_connectors_hma)})" if rules.kv_connectors_hma else ""))


DCP_FLAG = "--decode-context-parallel-size"


def dcp_checks(model: ModelSpec, args: EngineArgs, rules: VersionRules, groups: list[KVGroup], notes: list[str],
               warns: list[str], gpu: GPUSpec | None = None) -> None:
    """Decode context parallelism (--decode-context-parallel-size D > 1, args resolved): vLLM's refusals, raised as
    InputError with its text, and the note of what DCP changes. Each rank of a DCP group keeps 1/D of every sequence's
    tokens in a full-attention or MLA layer: its pool (bytes, blocks, block bytes) is the one without DCP, a request
    holds cdiv(max_model_len, D) of its tokens (FullAttentionSpec.max_memory_usage_bytes, v1/kv_cache_interface.py
    0.10.2-0.34.0), and the logged token count is D x the local one (_group_blocks, planner._capacity). Read in the
    0.10.2, 0.11.0, 0.11.1, 0.12.0, 0.14.0, 0.18.0, 0.22.0, 0.26.0, 0.27.0, 0.30.0 and 0.34.0 wheels."""
    dcp, tp, v = args.dcp, args.tensor_parallel_size, rules.version
    if dcp <= 1:
        return
    if rules.dcp_attention == "none" or rules.engine != "v1":
        raise InputError(DCP_FLAG, f"vLLM {v} runs this on its V0 engine, which has no decode context parallelism "
                         "(the V1 engine's KV-cache manager and attention impls carry it)",
                         f"drop {DCP_FLAG}, or a release that runs it on V1")
    if tp % dcp:
        # EngineArgs.create_engine_config (0.10.2-0.25.x, an assert that joins its two f-strings without a space);
        # ParallelConfig's ValueError from 0.26.0 (config/parallel.py)
        text = (f"AssertionError: tp_size={tp} must be divisible bydcp_size={dcp}." if rules.dcp_refusal_form == "assert"
                else f"ValueError: tp_size={tp} must be divisible by dcp_size={dcp}.")
        fits = [d for d in range(2, tp + 1) if tp % d == 0]
        raise InputError(DCP_FLAG, f"vLLM {v} refuses it: {text} (DCP splits each TP group of {tp} ranks into groups of "
                         f"{dcp}; it adds no GPUs)",
                         f"a divisor of --tensor-parallel-size {tp}: " + (", ".join(map(str, fits)) if fits else "none above 1"))
    mla = runs_mla(model, args, rules)
    if model.sparse_mla or model.compressed_attention:
        raise InputError(DCP_FLAG, f"kvplan does not model decode context parallelism for {model.id}'s sparse / compressed "
                         "attention (its indexer and compressed caches are sharded, or not, per release)",
                         f"plan without {DCP_FLAG}")
    lse_refusal = ("AssertionError: DCP requires attention impls to return the softmax lse for decode, but the impl {impl} "
                   "does not return the softmax lse for decode.")
    if mla and rules.dcp_attention == "mla" and gpu is not None:
        # 0.10.2-0.11.0 (platforms/cuda.py): CUTLASS MLA on Blackwell (cc 10.x), FlashMLA on Hopper (cc 9.0), else Triton
        # MLA (FlashMLA and FlashAttention-MLA need sm90), and on ROCm Triton / AITER MLA: neither returns the LSE there
        cc = gpu.cc or (9, 0)
        amd = gpu.vendor.upper() == "AMD"
        if amd or not (cc == (9, 0) or (10, 0) <= cc < (11, 0)):
            impl = "TritonMLAImpl" if not amd else "TritonMLAImpl (AiterMLAImpl with VLLM_ROCM_USE_AITER=1)"
            raise InputError(DCP_FLAG, f"vLLM {v} refuses it on {gpu.name}: \"{lse_refusal.format(impl=impl)}\" (in {v} only "
                             "FlashMLA on Hopper and CUTLASS MLA on Blackwell data-center GPUs return it; this GPU runs "
                             f"{'ROCm' if amd else 'Triton'} MLA)",
                             f"vLLM >= 0.11.1 (Triton MLA returns it), a Hopper / B200-class GPU, or drop {DCP_FLAG}")
    if not mla:
        if rules.dcp_attention == "mla":
            # gpu_model_runner.initialize_kv_cache (0.10.2-0.11.0): only the FlashMLA, FlashAttention-MLA and
            # CUTLASS-MLA impls set can_return_lse_for_decode
            raise InputError(DCP_FLAG, f"vLLM {v} refuses it for a non-MLA model: \""
                             + lse_refusal.format(impl="FlashAttentionImpl") + "\" (FlashAttention, NVIDIA's default "
                             f"backend; in {v} only the FlashMLA, FlashAttention-MLA and CUTLASS-MLA impls return it)",
                             f"vLLM >= 0.11.1 (FlashAttention and FlashInfer return it), or drop {DCP_FLAG}")
        kv, q = model.num_kv_heads, model.num_attention_heads
        old = rules.dcp_refusal_form != "value_error"  # ModelConfig.verify_with_parallel_config: asserts up to 0.26.x
        if tp <= kv:
            text = (f"AssertionError: tensor parallel size {tp} must be greater than total num kv heads {kv} when enable "
                    "decode context parallel for GQA/MQA" if old else
                    f"ValueError: Decode context parallelism for GQA/MQA requires `--tensor-parallel-size` ({tp}) to be "
                    f"greater than the model's total number of KV heads ({kv}). Increase `--tensor-parallel-size` or set "
                    "`--decode-context-parallel-size 1`.")
            raise InputError(DCP_FLAG, f"vLLM {v} refuses it: {text}",
                             f"--tensor-parallel-size above {kv} (the KV heads), or drop {DCP_FLAG}")
        if dcp > tp // kv:
            text = (f"AssertionError: decode context parallel size must less than or equal to (tensor parallel size {tp} "
                    f"// total num kv heads {kv}) = {tp // kv}, but got {dcp}" if old else
                    f"ValueError: `--decode-context-parallel-size` ({dcp}) exceeds the maximum supported value "
                    f"({tp // kv}) for `--tensor-parallel-size` ({tp}) and {kv} model KV heads.")
            raise InputError(DCP_FLAG, f"vLLM {v} refuses it: {text}", f"{DCP_FLAG} {tp // kv} or less")
        if (q // kv) % dcp:
            text = (f"AssertionError: Total number of q per kv attn heads ({q // kv}) must be divisible by dcp world size "
                    f"when enable decode context parallel for GQA ({dcp})." if old else
                    f"ValueError: The model's number of query heads per KV head ({q // kv}) must be divisible by "
                    f"`--decode-context-parallel-size` ({dcp}) for GQA/MQA.")
            raise InputError(DCP_FLAG, f"vLLM {v} refuses it: {text}",
                             f"a {DCP_FLAG} that divides {q // kv}, or drop it")
    kinds = sorted({g.kind for g in groups} - {"full", "mla"})
    if kinds:
        # 0.10.2-0.25.x: HybridKVCacheCoordinator asserts "DCP not support hybrid attn now." (kv_cache_coordinator.py);
        # from 0.26 the specs say which groups DCP shards (dcp_sharded, v1/kv_cache_interface.py 0.34.0): the state and
        # window groups keep every token on every rank, which kvplan does not model yet
        raise InputError(DCP_FLAG, f"kvplan does not model decode context parallelism beside {'/'.join(kinds)} layers "
                         f"(vLLM 0.10.2-0.25 asserts \"DCP not support hybrid attn now.\" for such a model; later "
                         "releases shard only the attention groups)", f"plan {model.id} without {DCP_FLAG}")
    if mla and rules.dcp_fp8_mla_asserts and (args.kv_cache_dtype or "auto").startswith("fp8"):
        warns.append(f"{DCP_FLAG} {dcp} with --kv-cache-dtype {args.kv_cache_dtype}: vLLM {v}'s MLA decode asserts "
                     "\"DCP not support fp8 kvcache now.\" where it runs fp8 attention (MLA forward_impl, fp8_attention; "
                     "the assert is gone from 0.25.0): the server may stop at its first decode")
    notes.append(f"decode context parallelism {dcp} (TP {tp} split into {tp // dcp} DCP group(s) of {dcp}): each rank keeps "
                 f"1/{dcp} of every sequence's tokens, so its pool (the same bytes and blocks as without DCP) holds {dcp} x "
                 f"the tokens: a {args.max_model_len:,}-token request takes cdiv({args.max_model_len:,}, {dcp}) tokens' "
                 f"blocks per rank and vLLM logs the tokens x {dcp} ('Multiplying the GPU KV cache size by the "
                 "dcp_world_size' up to 0.20.0; max concurrency x max_model_len after)"
                 + (". The MLA chunked-prefill workspace grows by 1/dcp (its DCP all-gather), made with the attention "
                    "metadata builders after the pool is sized: not a profile term" if mla else ""))


DCP_INTERLEAVE_FLAG = "--dcp-kv-cache-interleave-size"
CP_INTERLEAVE_FLAG = "--cp-kv-cache-interleave-size"


def interleave_checks(args: EngineArgs, rules: VersionRules, groups: list[KVGroup], notes: list[str],
                      warns: list[str]) -> None:
    """--dcp-kv-cache-interleave-size / --cp-kv-cache-interleave-size (args resolved, after dcp_checks): vLLM's refusals
    with its text (RefusedByVLLMError) and the note of what the flags change. The interleave size I places a sequence's
    tokens: I consecutive tokens on DCP rank r, the next I on rank r+1 (ParallelConfig's docstring; the slot mapping of
    v1/worker/block_table.py). It moves no figure kvplan predicts: the KV-cache manager hands a request its blocks as
    block_size x dcp "virtual" blocks and FullAttentionSpec.max_memory_usage_bytes divides max_model_len by dcp, neither
    reading an interleave size (v1/core/ and v1/kv_cache_interface.py of the 0.11.1-0.34.0 wheels have no
    'interleave'), and vLLM's check that I divides the block size keeps each rank's share of a virtual block one
    physical block. Which flag's value vLLM uses, and when it checks it: rules rows cp_interleave_source,
    cp_interleave_check_skipped_for, cp_interleave_mtp_check. Read in the 0.11.0-0.34.0 wheels listed there."""
    dcp_i, cp_i = args.dcp_kv_cache_interleave_size, args.cp_kv_cache_interleave_size
    if dcp_i is None and cp_i is None:
        return
    # vLLM takes any integer (ParallelConfig's int fields, no bound, in the 0.11.1-0.34.0 wheels: config/parallel.py,
    # engine/arg_utils.py); 0 or a negative size is refused below where vLLM refuses it (its block-size check under
    # DCP, its MTP check), with its text, and by kvplan's own text at the end where vLLM starts with it
    dcp_v, cp_v = (1 if x is None else x for x in (dcp_i, cp_i))  # vLLM's default 1 where not given
    source, v, dcp = rules.cp_interleave_source, rules.version, args.dcp
    given = [f"{flag} {value}" for flag, value in ((DCP_INTERLEAVE_FLAG, dcp_i), (CP_INTERLEAVE_FLAG, cp_i))
             if value is not None]
    if source == "none":
        raise InputError(DCP_INTERLEAVE_FLAG if dcp_i is not None else CP_INTERLEAVE_FLAG,
                         f"vLLM {v} has no KV-cache interleave size (--dcp-kv-cache-interleave-size first in vLLM "
                         "0.11.1, --cp-kv-cache-interleave-size in 0.12.0)", "drop it, or a later --vllm-version")
    kt = kv_transfer_of(args)
    late = False  # the dcp value applied after vLLM's block-size check (0.29-0.32 with a KV-transfer instance)
    # the value vLLM checks and places tokens with, the config field it names, and the flag that set it
    if source == "dcp":
        size, name, flag = dcp_v, "dcp_kv_cache_interleave_size", DCP_INTERLEAVE_FLAG
    else:
        size, name, flag = cp_v, "cp_kv_cache_interleave_size", CP_INTERLEAVE_FLAG
        # the dcp flag replaces the cp one under DCP: always (0.12-0.28), only for a KV-transfer instance from 0.29
        instance = kt is not None and kt.connector is not None and kt.role is not None
        applies = dcp > 1 and dcp_v > 1 and (source == "dcp_overrides_cp" or instance)
        # 0.29-0.32: each worker replaces it after the engine core's block-size check saw the cp value
        late = applies and source == "kv_transfer_unchecked"
        if applies and dcp_i != size:
            notes.append(f"vLLM {v} replaces --cp-kv-cache-interleave-size {size} with {DCP_INTERLEAVE_FLAG} {dcp_i} "
                         "and warns \"cp_kv_cache_interleave_size is overridden by dcp_kv_cache_interleave_size. And "
                         "dcp-kv-cache-interleave-size will be deprecated when PCP is fully supported.\"")
        if applies:
            size, flag = dcp_i, DCP_INTERLEAVE_FLAG
        elif dcp > 1 and dcp_v > 1 and source in ("kv_transfer_unchecked", "kv_transfer_only"):
            warns.append(f"{DCP_INTERLEAVE_FLAG} {dcp_i}: vLLM {v} reads it only for a KV-transfer instance "
                         "(VllmConfig.adjust_dcp_kv_cache_interleave_size, run with a --kv-transfer-config that names a "
                         f"kv_connector and kv_role); here it is not applied and DCP places tokens {size} at a time "
                         f"(cp_kv_cache_interleave_size {size}): give {CP_INTERLEAVE_FLAG} {dcp_i} for the "
                         "interleave asked")
    skipped_for = rules.cp_interleave_check_skipped_for
    connectors = () if kt is None else (kt.connector,) + tuple(c.connector for c in kt.children)
    skipped = kt is not None and (skipped_for == "any" and kt.connector is not None
                                  or skipped_for == "nixl" and "NixlConnector" in connectors)
    # VllmConfig.__post_init__ (0.11.1-0.19.x; after the platform settles the block size) / validate_block_size
    # (0.20.0-0.34.0, after update_block_size_for_backend): the block size of its cache config
    block = min((g.block_size for g in groups if g.kind in ("full", "mla")), default=0)
    # for the P/D connector vLLM sets the interleave size to the block size: any connector at 0.29, NIXL from 0.30
    # unless --cp-kv-cache-interleave-size is given (ParallelConfig._allow_auto_resolve_cp_interleave_size)
    pinned = dcp > 1 and skipped and block > 0 and (skipped_for == "any" or cp_i is None)
    if dcp > 1 and not skipped:
        checked, checked_flag = (cp_v, CP_INTERLEAVE_FLAG) if late else (size, flag)
        fits = [d for d in range(1, block + 1) if block % d == 0 and d & (d - 1) == 0]
        if checked == 0:  # vLLM's check computes block_size % 0 before its assert can speak
            raise RefusedByVLLMError(checked_flag, f"vLLM {v} refuses it: ZeroDivisionError: integer modulo by zero (its "
                                     f"check that {name} divides Block_size({block}) divides by 0)",
                                     f"{checked_flag} a divisor of the block size {block} (e.g. "
                                     f"{', '.join(map(str, fits))})", rule="cp_interleave_block_size")
        if checked > block or block % checked:  # (a negative size passes where it divides the block, as in vLLM)
            raise RefusedByVLLMError(checked_flag, f"vLLM {v} refuses it: AssertionError: Block_size({block}) should be "
                                     f"greater than or equal to and divisible by {name} ({checked})."
                                     + (f" (DCP's ranks each keep {checked} consecutive tokens of a {block}-token "
                                        "block in turn)" if checked > 0 else ""),
                                     f"{checked_flag} a divisor of the block size {block} (e.g. "
                                     f"{', '.join(map(str, fits))}), "
                                     "or --block-size a multiple of it", rule="cp_interleave_block_size")
    spec = args.speculative is not None
    mtp = rules.cp_interleave_mtp_check
    mtp_size = dcp_v if source == "dcp" else size
    # "config": VllmConfig asserts the size == 1 with a --speculative-config (0 or a negative one refused too, under
    # the "> 1" text); "impl": cp_utils checks interleave_size > 1
    refused_mtp = mtp_size != 1 if mtp == "config" else mtp_size > 1
    if spec and refused_mtp and (mtp == "config" or dcp > 1 or args.pcp > 1):
        text = (f"AssertionError: MTP with {name} > 1 is not supported now." if mtp == "config" else
                "AssertionError: MTP with cp_kv_cache_interleave_size > 1 is not supported in <the layer's impl "
                "class>.")
        where = ("VllmConfig.__post_init__, config/vllm.py, with or without DCP" if mtp == "config" else
                 "the KV-cache setup's check, v1/worker/cp_utils.py: no dense attention impl of vLLM 0.13-0.34 sets "
                 "supports_mtp_with_cp_non_trivial_interleave_size")
        raise RefusedByVLLMError(flag, f"vLLM {v} refuses it with --speculative-config: \"{text}\" ({where})",
                                 f"{flag} 1 (vLLM's default), or plan without --speculative-config",
                                 rule="cp_interleave_mtp")
    for value, value_flag in ((dcp_i, DCP_INTERLEAVE_FLAG), (cp_i, CP_INTERLEAVE_FLAG)):
        if value is not None and value < 1:  # vLLM starts with it (no check above refused it): refused as kvplan's
            raise InputError(value_flag, f"must be a positive integer, got {value}",
                             COUNT_EXAMPLES[value_flag[2:].replace("-", "_")])
    if dcp <= 1:
        notes.append(f"{' and '.join(given)}: where decode context parallelism places each sequence's tokens; without "
                     "--decode-context-parallel-size no rank shards the KV cache, so vLLM checks nothing against it and "
                     "it moves no figure")
        return
    set_by = (f"{flag} {size}" if (dcp_i if flag == DCP_INTERLEAVE_FLAG else cp_i) is not None
              else "vLLM's default")
    if pinned:
        size, set_by = block, f"the block size, which vLLM {v} sets for the P/D connector"
    notes.append(f"interleave size {size} ({set_by}): each of the {dcp} DCP ranks keeps {size} consecutive "
                 f"token(s) in turn; vLLM still gives a request its blocks as block_size x {dcp} virtual blocks "
                 "(v1/core's KV-cache managers and FullAttentionSpec.max_memory_usage_bytes, v1/kv_cache_interface.py, "
                 "read no interleave size), so the pool, blocks, tokens and concurrency are the ones without it"
                 + (" (vLLM skips its block-size check for the P/D connector)" if skipped else "")
                 + (f" (vLLM {v}'s workers apply {DCP_INTERLEAVE_FLAG} {dcp_i} after the engine's block-size check, "
                    f"which saw {CP_INTERLEAVE_FLAG}'s {cp_v}: it is not checked against the block size)"
                    if late and dcp > 1 and not skipped else ""))


PCP_FLAG = "--prefill-context-parallel-size"


def pcp_checks(model: ModelSpec, args: EngineArgs, rules: VersionRules, groups: list[KVGroup], notes: list[str],
               runner_choice: tuple[str, str], gpu: GPUSpec | None = None) -> None:
    """Prefill context parallelism (--prefill-context-parallel-size P > 1, args resolved): vLLM's refusals with its text,
    kvplan's refusals of what it has not read, and the note of what PCP changes. vLLM's world size per engine is
    PP x TP x PCP (ParallelConfig.world_size, config/parallel.py 0.12.0-0.34.0): P whole TP groups, each rank holding the
    TP shard of the dense and attention weights (replicated over PCP) and 1/(TP x PCP) of a MoE layer's experts
    (flatten_tp_across_dp_and_pcp, fused_moe/config.py 0.26.0-0.34.0; rank_weights). With DCP off every PCP rank keeps the
    whole KV cache ("PCP-only execution replicates the KV cache", ParallelConfig.pcp_shard_decode_requests 0.34.0;
    model_executor/layers/attention/pcp.py gathers the partitioned prefill's K/V before the cache write, 0.26.0): the
    pool, blocks, tokens and concurrency are the ones without PCP (the scheduler's KV-cache manager is built with
    pcp_world_size=1, v1/core/sched/scheduler.py 0.26.0). `runner_choice`: cudagraphs.model_runner_choice's (runner, why),
    PCP's prefill split being model runner v2's. Read in the 0.11.1-0.34.0 wheels."""
    pcp, tp, dp, dcp, v = args.pcp, args.tensor_parallel_size, args.data_parallel_size or 1, args.dcp, rules.version
    if pcp <= 1:
        return
    form = rules.pcp_support
    if form == "none" or rules.engine != "v1":
        raise InputError(PCP_FLAG, f"vLLM {v} has no prefill context parallelism (the flag came in vLLM 0.12.0)",
                         f"drop {PCP_FLAG}, or vLLM 0.26 or newer")
    if form == "refused":
        raise InputError(PCP_FLAG, f"vLLM {v} refuses it: ValueError: Prefill context parallelism is not fully "
                         "supported. Please set prefill_context_parallel_size to 1. (ParallelConfig, config/parallel.py)",
                         f"drop {PCP_FLAG}, or vLLM 0.26 or newer (MLA models)")
    if dp > 1 and rules.pcp_refuses_dp:
        raise InputError(PCP_FLAG, f"vLLM {v} refuses it beside --data-parallel-size {dp}: ValueError: PCP does not "
                         "support data parallelism yet. (ParallelConfig, config/parallel.py 0.26-0.29)",
                         "--data-parallel-size 1, or vLLM 0.30 or newer")
    if dcp > 1 and form == "mla" and dcp not in (pcp, tp * pcp):
        valid = sorted({1, pcp, tp * pcp})
        raise InputError(PCP_FLAG, f"vLLM {v} refuses it beside --decode-context-parallel-size {dcp}: ValueError: When "
                         "PCP is enabled, DCP must be disabled, span the PCP axis, or span the full TP x PCP axis. Got "
                         f"TP={tp}, PCP={pcp}, DCP={dcp}; valid DCP sizes are {valid}.",
                         f"--decode-context-parallel-size one of {', '.join(map(str, valid))}")
    mla = runs_mla(model, args, rules)
    if form == "no_impl":
        # v1/worker/cp_utils.check_attention_cp_compatibility (0.13.0-0.25.x), run at the KV-cache setup: no attention
        # impl of these releases sets supports_pcp (AttentionImplBase's False; MLA's True from 0.26.0)
        kind = "MLA" if mla else "attention"
        raise InputError(PCP_FLAG, f"vLLM {v} refuses it: \"AssertionError: PCP requires attention impls' support, but "
                         "the impl <the layer's impl class> does not support PCP.\" (the KV-cache setup's check, "
                         f"v1/worker/cp_utils.py: no attention impl of vLLM 0.13-0.25, this model's {kind} one included, "
                         "supports PCP; the MLA impls do from 0.26.0)",
                         f"drop {PCP_FLAG}, or vLLM 0.26 or newer (MLA models)")
    if not mla:
        # v1/attention/backend.py (0.26.0-0.34.0): a backend whose impl has not supports_pcp is invalid ("PCP not
        # supported"); only MLAAttentionImpl sets it, so a GQA / MHA model's layers find no backend
        raise InputError(PCP_FLAG, f"vLLM {v} refuses it for {model.id}, which does not run MLA: every attention backend "
                         "is invalid for it with the reason \"PCP not supported\" (only the MLA impls support PCP, "
                         "v1/attention/backend.py), so no backend is selected",
                         f"drop {PCP_FLAG} (an MLA model such as DeepSeek-V3 takes it)")
    if gpu is not None and gpu.vendor.upper() == "AMD":
        # platforms/rocm.py (0.26.0-0.34.0): "Prefill context parallel (PCP) is enabled, which is incompatible with full
        # CUDA graphs. Overriding cudagraph_mode to PIECEWISE." (and 0.34's MXFP4 indexer path declines PCP)
        raise InputError(PCP_FLAG, f"kvplan has not read prefill context parallelism on ROCm (vLLM {v} turns FULL CUDA "
                         "graphs to PIECEWISE for it there, 'Prefill context parallel (PCP) is enabled, which is "
                         "incompatible with full CUDA graphs.', platforms/rocm.py)", f"plan without {PCP_FLAG}")
    runner, why = runner_choice
    if runner != "v2":
        # PCP's batch split is model runner v2's (v1/worker/gpu/pcp_manager.py 0.26.0-0.34.0); model runner v1's
        # v1/worker/gpu_model_runner.py of 0.26.0-0.33.0 has no PCP code beyond cp_utils' backend check
        raise InputError(PCP_FLAG, f"kvplan has not read prefill context parallelism on model runner v1, which vLLM {v} "
                         f"runs here ({why}): its gpu_model_runner.py has no PCP code (the prefill split is model runner "
                         "v2's pcp_manager)", "VLLM_USE_V2_MODEL_RUNNER=1 (--env), or plan without " + PCP_FLAG)
    if model.sparse_mla or model.compressed_attention:
        raise InputError(PCP_FLAG, f"kvplan has not read prefill context parallelism for {model.id}'s sparse / compressed "
                         "attention (its indexer and compressed caches say per release whether they support PCP)",
                         f"plan without {PCP_FLAG}")
    kinds = sorted({g.kind for g in groups} - {"full", "mla"})
    if kinds:
        raise InputError(PCP_FLAG, f"kvplan has not read prefill context parallelism beside {'/'.join(kinds)} layers "
                         "(vLLM's sliding-window, chunked-local and Mamba managers assert \"PCP not support ... now.\", "
                         "v1/core/single_type_kv_cache_manager.py)", f"plan {model.id} without {PCP_FLAG}")
    if dcp > 1:
        raise InputError(PCP_FLAG, f"kvplan has not read how DCP {dcp} spanning the PCP axis (PCP {pcp}, TP {tp}) shards "
                         "the KV cache", f"plan without --decode-context-parallel-size, or without {PCP_FLAG}")
    if dp > 1:
        raise InputError(PCP_FLAG, f"kvplan has not read prefill context parallelism beside data parallelism (vLLM {v} "
                         "splits a MoE layer over TP x PCP x DP ranks)", "plan one engine (--data-parallel-size 1)")
    if args.speculative:
        raise InputError(PCP_FLAG, "kvplan has not read which speculative-decoding methods support prefill context "
                         "parallelism (each speculator says it per release)", "plan without --speculative-config")
    notes.append(f"prefill context parallelism {pcp}: {pcp} TP groups of {tp}, {tp * args.pipeline_parallel_size * pcp} "
                 f"GPUs per engine (PP x TP x PCP); a prefill's tokens are split over the {pcp} PCP ranks and its K/V "
                 "gathered back, so every PCP rank keeps the whole KV cache: the pool, tokens and concurrency below are "
                 "the ones without PCP (per rank, per engine)"
                 + (f"; the experts are split over TP x PCP = {tp * pcp} ranks" if model.is_moe else ""))


def runs_mla(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> bool:
    """Whether vLLM runs an MLA model's attention as MLA: from 0.7.1 (rules row mla_kernels), where 0.7.1 and 0.7.2
    disable it under a quantization other than those of rules row mla_quant_methods, and under compressed-tensors
    unless every config group's weights and input activations are typed "fp8" (ModelConfig.use_mla; llm-compressor
    writes FP8 as type "float", which that check does not take)."""
    if not (model.uses_mla and rules.mla_kernels):
        return False
    allowed = rules.mla_quant_methods
    method = canonical_quant(args.quantization or (model.quant.method if model.quant else ""))
    if not allowed or not method:
        return True
    if method not in allowed:
        return False
    if method == "compressed-tensors":
        for cfg in (_quantization_config(model).get("config_groups") or {"": {}}).values():
            for key in ("input_activations", "weights"):
                part = cfg.get(key, {}) if isinstance(cfg, dict) else None
                if not isinstance(part, dict) or part.get("type", "") != "fp8":
                    return False
    return True


def mla_disabled_note(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> str:
    """Why a DeepSeek MLA model runs without MLA in a release that has MLA kernels (runs_mla), or ""."""
    if not model.uses_mla or not rules.mla_kernels or runs_mla(model, args, rules):
        return ""
    method = canonical_quant(args.quantization or (model.quant.method if model.quant else ""))
    return (f"vLLM {rules.version} disables MLA under {method} quantization (ModelConfig.use_mla: fp8, or "
            "compressed-tensors with every group's weights and activations typed \"fp8\", until 0.7.3)")


def _v0_cache(model: ModelSpec, attn: list[LayerSpec], args: EngineArgs, rules: VersionRules, notes: list[str]):
    """V0's one cache: every attention layer holds every token (no window saving, no groups; section 3.3).

    cache_block_size = L_attn x bs x (K_entry + V_entry) x b. DeepSeek's MLA entry was padded to 256 bytes
    (0.7.1-0.10); 0.6.x and 0.7.0 ran DeepSeek-V2 without MLA, all heads at head size 256 (section 3.1).
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
    mla = runs_mla(model, args, rules)
    for l in attn:
        if l.kind == "mla" and not mla:
            heads = heads_per_rank(model.num_attention_heads, tp)
            per_token += 2 * heads * 256 * kvb
        elif l.kind == "mla":
            per_token += cdiv(l.head_dim * kvb, 256) * 256
        else:
            per_token += _attention_page_per_token(l, tp, kvb)
    if any(l.kind == "mla" for l in attn):
        why = mla_disabled_note(model, args, rules)
        notes.append("V0 engine: " + (f"DeepSeek MLA disabled{f' ({why})' if why else ''}, heads padded to 256" if not mla
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
    """Tokens a window group may hold beyond the window: in-flight batches x max_num_batched_tokens (section 3.4).
    From 0.26 the batches follow async scheduling as resolved (args.async_scheduling_resolved, plan.serve_flags): with it, 2
    at PP 1 on model runner v1 (pp above), pp + 1 on v2; without it, pp (VllmConfig.max_concurrent_batches)."""
    pp = args.pipeline_parallel_size or 1
    kind = rules.window_inflight
    on = args.async_scheduling_resolved
    if on is None:  # not resolved by the planner (plan.serve_flags): as given, else on but for a pooling model
        on = args.async_scheduling if args.async_scheduling is not None else args.runner_type != "pooling"
    if kind != "one" and not on:  # no async scheduling: max_concurrent_batches is pp (config/vllm.py 0.26.0-0.34.0)
        return pp * args.max_num_batched_tokens
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
    if g.kind == "cross":
        return cdiv(cross_attention_tokens(g, args, rules), g.block_size)
    # a full-attention / MLA group under decode context parallelism keeps cdiv(num_tokens, dcp) tokens per rank:
    # cdiv(cdiv(n, dcp), block) = cdiv(n, block x dcp), the KV-cache manager's block_size x dcp "virtual" blocks
    # (FullAttentionSpec.max_memory_usage_bytes, single_type_kv_cache_manager.py, 0.10.2-0.34.0; dcp_checks)
    return cdiv(num_tokens, g.block_size * args.dcp)


def cross_attention_tokens(g: KVGroup, args: EngineArgs, rules: VersionRules) -> int:
    """The encoder positions a cross-attention group charges one request, whatever its decoder length:
    CrossAttentionSpec.max_memory_usage_bytes takes cdiv(scheduler_config.max_num_encoder_input_tokens, block_size)
    pages (v1/kv_cache_interface.py). That count is the encoder's output length (Whisper's max_source_positions,
    MULTIMODAL_REGISTRY.get_encdec_max_encoder_len) from 0.10.2 to 0.12.x and max_num_batched_tokens from 0.13.0
    (SchedulerConfig.__post_init__ sets max_num_encoder_input_tokens = max_num_batched_tokens; config/scheduler.py,
    0.34.0 wheel) (rules row cross_attention_tokens)."""
    if rules.cross_attention_tokens == "batched_tokens":
        return args.max_num_batched_tokens
    return g.encoder_len


def _blocks_per_request(groups: Iterable[KVGroup], num_tokens: int, args: EngineArgs, rules: VersionRules) -> int:
    return sum(_group_blocks(g, num_tokens, args, rules) for g in groups)
