"""Expert-parallel load balancing (vLLM's --enable-eplb): the redundant experts a release builds, its refusals, and the
EPLB state it keeps on every rank.

What changes under EPLB (facts per release in versions.py: rows eplb_*, EPLB_ARCHITECTURES, EPLB_QUANT_METHODS):
- every MoE layer holds E + R physical experts (R redundant copies), so an EP rank holds (E + R) / ep whole experts
  (weights.weights_per_rank `redundant_experts`);
- the model runner keeps the balancer's state (distributed/eplb/eplb_state.py EplbState.build / add_model): expert
  load counters over a window of steps, the logical <-> physical maps and, from 0.12.0, a copy of one MoE layer's
  local expert tensors for the weight exchange (eplb_state_bytes).
"""

from __future__ import annotations

import math
from dataclasses import replace

from kvplan.errors import InputError, RefusedByVLLMError, UndeterminedError
from kvplan.plan.args import EngineArgs, whole_number
from kvplan.plan.kv import experts_quant, gptq_act_order, marlin_method, marlin_moe_padded, pp_stages
from kvplan.resolve import GPUSpec, ModelSpec, QuantSpec
from kvplan.versions import (EPLB_ARCHITECTURES, VersionRules, canonical_quant, eplb_architecture, eplb_config_keys,
                             eplb_moe_class, eplb_quant_support, first_release_where, release_text)
from kvplan.weights import moe_layers

# EPLBConfig.window_size's default (config/parallel.py, 0.10.2-0.34.0 wheels; ParallelConfig.eplb_window_size = 1000 in
# 0.9.2-0.10.1)
EPLB_WINDOW_DEFAULT = 1000
# EplbState.build / add_model's MAX_EXPERT_REDUNDANCY (distributed/eplb/eplb_state.py, 0.10.0-0.34.0 wheels): the replica
# slots of logical_to_physical_map are this + 1 where rules eplb_replica_slots is "max"
MAX_EXPERT_REDUNDANCY = 1023


def _moe_marlin_supports_layer(model: ModelSpec, q: QuantSpec, gpu: GPUSpec | None, tile_pad: str,
                               router_check: bool) -> bool | None:
    """utils/marlin_utils.py check_moe_marlin_supports_layer for integer weight-only experts under expert parallelism
    (a rank holds whole experts: the width is moe_intermediate_size), None where the group size or the experts' shape is
    not known. False on a GPU not NVIDIA's (current_platform.is_rocm()). The hidden size a multiple of 128 and the group
    one of -1 / 32 / 64 / 128; the width a multiple of max(64, group), or, where the Marlin weight prep pads the width
    (`tile_pad`: rules marlin_moe_tile_pad, kv.marlin_moe_padded), only of the group; and, where `router_check`, no
    router weight applied on the input (Llama 4's MoE)."""
    if gpu is not None and gpu.vendor != "NVIDIA":
        return False
    group = q.group_size
    width, hidden = int(model.moe_intermediate_size or 0), int(model.hidden_size or 0)
    if group is None or not width or not hidden:
        return None
    group = -1 if group <= 0 else int(group)
    if marlin_moe_padded(tile_pad, q.method == "gptq" and gptq_act_order(model, q)):
        shape = hidden % 128 == 0 and (group <= 0 or width % group == 0)
    else:
        shape = hidden % 128 == 0 and width % max(64, group) == 0
    on_input = router_check and str(model.model_type or "").startswith("llama4")
    return shape and group in (-1, 32, 64, 128) and not on_input


def ct_wna16_marlin(model: ModelSpec, q: QuantSpec, gpu: GPUSpec | None,
                    rules: VersionRules | None = None) -> bool | None:
    """Whether CompressedTensorsMoEMethod.get_moe_method builds CompressedTensorsWNA16MarlinMoEMethod (True) or
    CompressedTensorsWNA16MoEMethod (False) for integer weight-only experts under expert parallelism (0.11.1-0.26.x:
    compressed_tensors_moe.py / compressed_tensors_moe/compressed_tensors_moe.py get_moe_method, "Prefer to use the
    MarlinMoE kernel when it is supported": Marlin unless check_moe_marlin_supports_layer fails or the platform is
    ROCm). The check as `rules.version` asks it (utils/marlin_utils.py check_moe_marlin_supports_layer of the 0.12.0,
    0.15.0, 0.19.1, 0.20.0, 0.21.0-0.26.0 wheels): allow_tile_padding=not is_actorder from 0.25.0 (rules
    marlin_moe_tile_pad; actorder group / dynamic keeps the strict shape), none before, and the router weight test
    (rules moe_marlin_router_check). Without `rules`, 0.11.1-0.24.x's check (no padding, the router test). None where
    the group size or the experts' shape is not known."""
    tile_pad = rules.marlin_moe_tile_pad if rules is not None else ""
    if getattr(q, "act_order", False) and tile_pad != "all":
        tile_pad = ""  # allow_tile_padding=not is_actorder (0.25.0-0.29.x); True from 0.30.0
    router_check = rules.moe_marlin_router_check if rules is not None else True
    return _moe_marlin_supports_layer(model, q, gpu, tile_pad=tile_pad, router_check=router_check)


def wna16_marlin_fits(model: ModelSpec, q: QuantSpec, rules: VersionRules, gpu: GPUSpec | None) -> bool | None:
    """check_moe_marlin_supports_layer as vLLM `rules.version` asks it for AWQ / GPTQ experts under expert parallelism
    (_moe_marlin_supports_layer): the width only a multiple of the group where the Marlin weight prep pads it
    (allow_tile_padding: rules marlin_moe_tile_pad -- AWQ from 0.25.0, GPTQ without act order 0.25.0-0.29.x and with it
    from 0.30.0; auto_awq.py / auto_gptq.py get_quant_method), and, up to 0.26 (rules moe_marlin_router_check), the
    router weight test. utils/marlin_utils.py check_moe_marlin_supports_layer / check_moe_marlin_supports_config of the
    0.21.0-0.34.0 wheels."""
    return _moe_marlin_supports_layer(model, q, gpu, rules.marlin_moe_tile_pad, rules.moe_marlin_router_check)


def wna16_moe_class(model: ModelSpec, experts: QuantSpec, args: EngineArgs, rules: VersionRules,
                    gpu: GPUSpec | None) -> str | None:
    """The MoE method class vLLM `rules.version` builds for AWQ / GPTQ experts under expert parallelism
    (versions.EPLB_MOE_CLASSES awq_marlin / gptq_marlin / moe_wna16), None where kvplan cannot tell. The Marlin class
    where check_moe_marlin_supports_layer passes (wna16_marlin_fits; AWQ takes it whichever of awq / awq_marlin serves
    the checkpoint), for GPTQ up to 0.21 only where vLLM converts the checkpoint to gptq_marlin (kv.marlin_method,
    unless --quantization gptq forces the plain method; from 0.22.0 AutoGPTQConfig serves every GPTQ name: rules
    gptq_flag_auto_kernel); MoeWNA16Method otherwise."""
    fits = wna16_marlin_fits(model, experts, rules, gpu)
    if fits is False:
        return eplb_moe_class("moe_wna16", rules.release)
    if fits is None:
        return None
    # AutoAWQMoEMethod / AutoGPTQMoEMethod refuse other bit widths as they are built ("... only supports 4bit now.",
    # "... only supports int4 and int8 now.": auto_awq.py, auto_gptq.py), before FusedMoE asks for EPLB
    if experts.method == "awq":
        # (AutoAWQConfig from 0.24.0: rules awq_auto_marlin)
        return None if rules.awq_auto_marlin and experts.bits != 4 else eplb_moe_class("awq_marlin", rules.release)
    if rules.gptq_flag_auto_kernel:
        return eplb_moe_class("gptq_marlin", rules.release) if experts.bits in (4, 8) else None
    if gpu is None:
        return None
    converts = (canonical_quant(args.quantization or "") != "gptq"
                and marlin_method(replace(model, quant=experts), gpu, rules.version) is not None)
    return eplb_moe_class("gptq_marlin" if converts else "moe_wna16", rules.release)


def eplb_quant_key(model: ModelSpec, quant: QuantSpec | None, rules: VersionRules) -> str:
    """The routed experts' MoE method as versions.EPLB_QUANT_METHODS keys it (the experts' own compressed-tensors
    scheme: kv.experts_quant)."""
    return _experts_key(experts_quant(model, quant, rules))


def _experts_key(q: QuantSpec | None) -> str:
    """eplb_quant_key for the experts' own quantization `q` (kv.experts_quant)."""
    if q is None:
        return "unquantized"
    scheme = str(q.scheme or "").lower()
    if q.method == "fp8":
        return "fp8"
    if q.method == "compressed-tensors":
        if scheme.startswith("fp8"):
            return "ct_w8a8_fp8"
        if scheme.startswith("nvfp4"):
            return "ct_nvfp4"
        if scheme.startswith("mxfp4"):
            return "ct_mxfp4"
        return "ct_wna16" if getattr(q, "weight_only", False) else "ct_" + scheme.split(" ")[0]
    if q.method == "modelopt":
        return "modelopt_nvfp4" if scheme.startswith("nvfp4") else "modelopt_" + scheme.split(" ")[0]
    if q.method == "quark":
        return "quark_mx" if "mxfp" in scheme else "quark_" + scheme.split(" ")[0]
    if q.method in ("online", "fp8_per_tensor", "fp8_per_block", "fp8_per_channel"):
        return "online"
    return q.method


def _flag(args: EngineArgs, rules: VersionRules) -> str:
    """The flag that carries the redundant experts in this release."""
    return "--num-redundant-experts" if rules.eplb_form == "flag" or args.num_redundant_experts is not None \
        else "--eplb-config"


# EPLBConfig's bounded fields (config/parallel.py): (key, pydantic's words, the least value taken, the level of rules
# row eplb_config_bounds from which its Field holds the bound): num_redundant_experts Field(ge=0) from
# "redundant_field" (0.11.1), window_size / step_interval / log_balancedness_interval Field(gt=0) from "fields" (0.20.0)
_EPLB_BOUNDS = (("window_size", "Input should be greater than 0", 1, "fields"),
                ("step_interval", "Input should be greater than 0", 1, "fields"),
                ("num_redundant_experts", "Input should be greater than or equal to 0", 0, "redundant_field"),
                ("log_balancedness_interval", "Input should be greater than 0", 1, "fields"))


def _out_of_bounds(settings: dict, args: EngineArgs, rules: VersionRules) -> list[tuple[str, str, int]]:
    """(key, pydantic's words, the least value taken) for each --eplb-config value below the bound of its EPLBConfig
    Field in vLLM `rules.version`, in the fields' order. --num-redundant-experts (0.11.1-0.11.2) is assigned to the
    built EPLBConfig, which pydantic does not validate again: not bounded here."""
    level = rules.eplb_config_bounds
    if level is None or level == "post_init":
        return []
    out = []
    for key, words, least, since in _EPLB_BOUNDS:
        if since == "fields" and level != "fields":
            continue
        if key == "num_redundant_experts" and args.num_redundant_experts is not None:
            continue
        v = whole_number(settings.get(key))
        if v is not None and v < least:
            out.append((key, words, least))
    return out


def resolve_eplb(model: ModelSpec, quant: QuantSpec | None, args: EngineArgs, rules: VersionRules,
                 notes: list[str], warns: list[str] | None = None, gpu: GPUSpec | None = None) -> int:
    """The redundant experts per MoE layer vLLM `rules.version` builds for these (resolved) args (0 without EPLB or
    where the model class does not balance), raising RefusedByVLLMError with vLLM's own message where it refuses the
    start.
    `notes` / `warns` take what was assumed."""
    given = args.redundant_experts_given
    warns = notes if warns is None else warns
    if rules.eplb_form is None:  # no EPLB in the release: the flag check (versions.SERVE_FLAG_SINCE) names it
        return 0
    settings = args.eplb_settings
    known = eplb_config_keys(rules.release)
    extra = sorted(k for k in settings if known is not None and k not in known)
    # EPLBConfig(**eplb_config) (engine/arg_utils.py), built from --eplb-config whether EPLB is on or not: pydantic's
    # ValidationError, one line per field out of its bounds (rules eplb_config_bounds), then one per key @config's
    # ConfigDict(extra="forbid") refuses
    bounded = _out_of_bounds(settings, args, rules)
    if extra or bounded:
        errors = [f"{k}: {words}" for k, words, _ in bounded] + [f"{k}: Extra inputs are not permitted" for k in extra]
        raise RefusedByVLLMError("--eplb-config", f"{len(errors)} validation error{'s' if len(errors) > 1 else ''} for "
                                 "EPLBConfig: " + "; ".join(errors),
                                 "; ".join([f"give {k} of {least} or more" for k, _, least in bounded]
                                           + ([f"vLLM {rules.version}'s EPLBConfig takes {', '.join(sorted(known))}"]
                                              if extra else [])),
                                 rule="an --eplb-config value out of EPLBConfig's bounds" if bounded
                                 else "an unknown --eplb-config key")
    if not args.enable_eplb and not given:
        return 0
    use_async = settings.get("use_async", rules.eplb_async_default)
    if rules.eplb_async_nccl_refused and use_async and str(settings.get("communicator")) in ("torch_nccl", "pynccl"):
        # EPLBConfig._validate_eplb_config (config/parallel.py, 0.24.0-0.34.0 wheels), as the config is built; use_async
        # defaults to True from 0.23.0 (rules eplb_async_default)
        communicator = settings["communicator"]
        raise RefusedByVLLMError("--eplb-config", f"{communicator} communicator is incompatible with async EPLB due to "
                                 "NCCL multi-stream conflicts. Use 'torch_gloo' or 'nixl' instead, or leave communicator "
                                 "unset for automatic selection.", "leave communicator out of --eplb-config, give "
                                 "'torch_gloo' or 'nixl', or add \"use_async\": false",
                                 rule="EPLB's NCCL communicator with async EPLB")
    if not args.enable_eplb:
        # ParallelConfig.__post_init__ / _validate_parallel_config: redundant experts without EPLB
        message = (f"num_redundant_experts should be used with EPLB.{given}." if rules.eplb_form == "flag" else
                   f"num_redundant_experts is set to {given} but EPLB is not enabled. Either enable EPLB or unset "
                   "num_redundant_experts.")
        raise RefusedByVLLMError(_flag(args, rules), message, "add --enable-eplb (with --enable-expert-parallel over "
                                 "several GPUs), or leave num_redundant_experts unset", rule="redundant experts without EPLB")
    if given is not None and given < 0:
        if rules.eplb_config_bounds == "post_init":
            # ParallelConfig.__post_init__ under --enable-eplb (config.py 0.9.2-0.10.0, config/parallel.py 0.10.1-0.11.0)
            raise RefusedByVLLMError(_flag(args, rules), f"num_redundant_experts must be non-negative, but got {given}.",
                                     "give num_redundant_experts of 0 or more", rule="negative redundant experts")
        # 0.11.1-0.11.2's --num-redundant-experts, which vLLM copies into the EPLBConfig unchecked
        raise InputError(_flag(args, rules), f"num_redundant_experts must be non-negative, but got {given}: vLLM "
                         f"{rules.version} does not check the deprecated flag (EngineArgs.create_engine_config assigns it "
                         "to the EPLBConfig already built, which pydantic does not validate again), and kvplan does not "
                         "plan fewer physical experts than the model has", "give num_redundant_experts of 0 or more")
    window = whole_number(settings.get("window_size"))
    if window is not None and window < 1:
        # 0.10.2-0.19.x: EPLBConfig.window_size has no bound (config/parallel.py; Field(gt=0) from 0.20.0); the load
        # window is torch.zeros((window_size, MoE layers, physical experts)) in EplbState.build / add_model, and each
        # served step writes expert_load_window[step] (distributed/eplb/eplb_state.py step, 0.14.1 wheel)
        raise InputError("--eplb-config", f"window_size must be positive, but got {window}: vLLM {rules.version} does "
                         "not check it, and " + ("its first served step fails writing the step's expert load into a "
                                                 "load window of no steps (EplbState.step: IndexError)" if window == 0
                                                 else "the model load fails building a load window of a negative "
                                                 "number of steps (EplbState's torch.zeros)"),
                         "give window_size of 1 or more, e.g. 1000 (vLLM's default)")
    if not model.is_moe:
        raise RefusedByVLLMError("--enable-eplb", f"{model.id} has no experts to balance",
                                 "drop --enable-eplb (it applies to MoE models with --enable-expert-parallel)",
                                 rule="EPLB on a dense model")
    tp, dp = args.tensor_parallel_size, args.data_parallel_size
    if rules.eplb_parallel_checks == "ep":
        if not args.enable_expert_parallel:
            raise RefusedByVLLMError("--enable-eplb", "enable_expert_parallel must be True to use EPLB.",
                                     "add --enable-expert-parallel, or drop --enable-eplb", rule="EPLB without expert parallelism")
        if tp * dp * args.pcp <= 1:  # the EP group spans TP x PCP x DP (config/parallel.py 0.26.0-0.34.0)
            message = (f"EPLB requires tensor, prefill-context, or data parallelism, but got TP={tp}, PCP=1, DP={dp}."
                       if rules.eplb_one_rank_message == "tp_pcp_dp" else
                       f"EPLB requires tensor_parallel_size or data_parallel_size to be greater than 1, but got "
                       f"TP={tp},DP={dp}.")
            raise RefusedByVLLMError("--enable-eplb", message, "drop --enable-eplb, or run expert parallelism over several "
                                     "GPUs (--tensor-parallel-size or --data-parallel-size above 1)",
                                     rule="EPLB on one rank")
    ep = args.expert_parallel_size
    e = int(model.num_experts or 0)
    fewest_even = (ep - e % ep) % ep  # the fewest redundant experts that make E + R divisible by the EP size
    if given is not None:
        redundant = given
    elif rules.eplb_redundant_default == "min_divisible":
        # ParallelConfig.compute_eplb_num_redundant_experts (0.34.0): the fewest that make E + R divisible by the EP size
        redundant = fewest_even
        notes.append(f"EPLB: num_redundant_experts not given, vLLM {rules.version} takes the fewest that divide the "
                     f"{e} experts evenly over {ep} EP rank(s): {redundant}")
    else:
        redundant = int(rules.eplb_redundant_default or 0)
    arch = "/".join(model.architectures or ()) or model.id
    if not eplb_architecture(model.architectures, rules.release):
        since = next((v for v in _eplb_since(model.architectures)), None)
        warns.append(f"--enable-eplb: vLLM {rules.version}'s {arch} class does not implement MixtureOfExperts, so it "
                     "builds its experts without EPLB (no redundant experts, no balancing state) and starts unbalanced"
                     + (f"; its class balances from vLLM {since}" if since else ""))
        return 0
    if ep > 1 and (e + redundant) % ep:
        # FusedMoE.__init__ (fused_moe/layer.py 0.9.2-0.20.0; FusedMoEFactory 0.33.0-0.34.0), while the model loads
        raise RefusedByVLLMError(_flag(args, rules), "EPLB currently only supports even distribution of experts across "
                                 f"ranks. Got {e + redundant} experts and {ep} EP ranks.",
                                 f"give num_redundant_experts so that {e} + it is a multiple of {ep} (e.g. {fewest_even} "
                                 f"or {fewest_even + ep})", rule="EPLB with experts not divisible by the EP size")
    experts = experts_quant(model, quant, rules)  # the experts' own scheme, which the checks below all read
    key = _experts_key(experts)
    support = eplb_quant_support(key, rules.release)
    method = "unquantized" if key == "unquantized" else f"{quant.method if quant else key} ({key})"
    cls = eplb_moe_class(key, rules.release)
    if key in ("awq", "gptq") and experts is not None:
        cls = wna16_moe_class(model, experts, args, rules, gpu)
    if key == "ct_wna16" and rules.eplb_ct_wna16_marlin:
        # the Marlin class refuses EPLB, the Triton one takes it from 0.12.0 (EPLB_QUANT_METHODS), up to 0.26.x
        marlin = ct_wna16_marlin(model, experts, gpu, rules)
        if marlin is None:
            raise UndeterminedError("--enable-eplb", "kvplan cannot tell whether vLLM builds the experts' Marlin MoE "
                                    "method (CompressedTensorsWNA16MarlinMoEMethod, which refuses EPLB) or the Triton one "
                                    "(CompressedTensorsWNA16MoEMethod): the checkpoint's group size or the experts' "
                                    "shape is not known", "give a checkpoint whose config.json states the group size, "
                                    "or drop --enable-eplb")
        cls = "CompressedTensorsWNA16MarlinMoEMethod" if marlin else "CompressedTensorsWNA16MoEMethod"
        if marlin:
            support = "no"
    elif key == "ct_wna16" and support == "backend" and experts is not None and gpu is not None \
            and gpu.vendor == "NVIDIA" and gpu.cc is not None and gpu.cc >= (7, 5):
        # 0.27.0 on: CompressedTensorsWNA16MoEMethod.__init__ picks its backend (fused_moe/oracle/int_wna16.py
        # select_wna16_moe_backend: FLASHINFER_TRTLLM, MARLIN, BATCHED_MARLIN, TRITON, HUMMING in that order on CUDA,
        # HUMMING moved ahead of MARLIN where preferred) and supports_eplb is True on TRITON alone. FlashInfer TRTLLM
        # takes symmetric int4 in groups of 32 on Blackwell 10.x (kv.marlin_moe_experts); Marlin (MarlinExperts: CUDA
        # cc >= 7.5) wherever check_moe_marlin_supports_config passes: either way EPLB is refused. Where neither
        # takes the layer, TRITON or HUMMING may: left to the warning below
        trtllm = ((10, 0) <= gpu.cc < (11, 0) and experts.bits == 4 and experts.group_size == 32
                  and not experts.zero_points)
        if trtllm or ct_wna16_marlin(model, experts, gpu, rules):
            cls, support = "CompressedTensorsWNA16MoEMethod", "no"
    if support == "no":
        if rules.eplb_quant_check in ("fp8_only", "fp8_or_unquantized"):
            message = "EPLB is only supported for FP8 quantization for now."
        else:
            # FusedMoE.__init__ (fused_moe/layer.py 0.11.1-0.20.0, routed_experts.py 0.33.0-0.34.0) names the method's
            # class (rules eplb_quant_message; the class: versions.EPLB_MOE_CLASSES)
            name = cls or f"{{the {method} experts' MoE method class, which kvplan does not name for vLLM {rules.version}}}"
            message = f"EPLB is not supported {name}." + (" EPLB is only supported for FP8 quantization for now."
                                                          if rules.eplb_quant_message == "class_fp8_note" else "")
        later = first_release_where("eplb_quant_check", lambda v: v == "supports_eplb")
        raise RefusedByVLLMError("--enable-eplb", message,
                                 "drop --enable-eplb, or serve a checkpoint whose experts are FP8 or unquantized"
                                 + (f" (vLLM {later} and later balance more methods)" if rules.eplb_quant_check != "supports_eplb" else ""),
                                 rule="EPLB with an unsupported MoE quantization method")
    trtllm = fp8_trtllm_refusal(experts, args, rules, gpu) if key == "fp8" else None
    if trtllm:
        raise RefusedByVLLMError("--enable-eplb", trtllm, "drop --enable-eplb, or unset VLLM_USE_FLASHINFER_MOE_FP8 so "
                                 "that another FP8 MoE kernel runs the experts", rule="EPLB with FlashInfer's TRTLLM FP8 MoE kernel")
    if support == "backend":
        warns.append(f"--enable-eplb with {method} experts: vLLM {rules.version} balances them only on some of the "
                     "method's kernel backends (its supports_eplb), chosen at load; kvplan cannot see which, and vLLM "
                     "refuses otherwise ('EPLB is not supported ...')")
    if rules.eplb_max_redundant is not None and redundant > rules.eplb_max_redundant:
        # EplbState.build / add_model (distributed/eplb/eplb_state.py, 0.10.0-0.34.0 wheels) asserts it when it builds
        # the balancer's state, after the model loads (so after FusedMoE's checks above)
        raise RefusedByVLLMError(_flag(args, rules), f"num_redundant_experts {redundant} must be less than or equal to "
                                 f"{rules.eplb_max_redundant}", f"give num_redundant_experts of at most "
                                 f"{rules.eplb_max_redundant}", rule="EPLB with too many redundant experts")
    notes.append(f"EPLB: {e} logical + {redundant} redundant = {e + redundant} physical experts per MoE layer"
                 + (f", {(e + redundant) // ep} per EP rank over {ep} ranks" if ep > 1 else ", all on every rank")
                 + f" ({'--num-redundant-experts' if rules.eplb_form == 'flag' else '--eplb-config num_redundant_experts'})")
    return redundant


def fp8_trtllm_refusal(experts: QuantSpec | None, args: EngineArgs, rules: VersionRules,
                       gpu: GPUSpec | None) -> str | None:
    """vLLM's refusal where FP8 experts (Fp8MoEMethod; `experts`: their quantization, kv.experts_quant) would run on
    FlashInfer's TRTLLM MoE kernel under EPLB (rules eplb_fp8_flashinfer_trtllm), None where that kernel is not
    chosen: a Blackwell GPU (compute capability 10.x, is_device_capability_family(100)) with
    VLLM_USE_FLASHINFER_MOE_FP8=1, and VLLM_FLASHINFER_MOE_BACKEND latency (envs.py's default in the 0.13.0-0.16.0 wheels; utils/flashinfer_utils.py get_flashinfer_moe_backend)."""
    how = rules.eplb_fp8_flashinfer_trtllm
    if not how or gpu is None or gpu.vendor != "NVIDIA" or not gpu.cc or gpu.cc[0] != 10:
        return None
    text = str(args.env_value("VLLM_USE_FLASHINFER_MOE_FP8") or "0")
    flag = whole_number(text)
    if flag is None:  # envs.py reads bool(int(...)): vLLM's ValueError
        raise InputError("--env", f"VLLM_USE_FLASHINFER_MOE_FP8={text!r}: vLLM reads it with int(), which refuses it",
                         "give VLLM_USE_FLASHINFER_MOE_FP8=1 or 0")
    if not flag:
        return None
    backend = args.env_value("VLLM_FLASHINFER_MOE_BACKEND")
    if how == "forward":
        # get_fp8_moe_backend (quantization/fp8.py 0.13.0, fused_moe/oracle/fp8.py 0.14.x), then Fp8MoEMethod.apply
        return "EPLB not supported for `Fp8MoEMethod` yet." if (backend or "latency") == "latency" else None
    # "load" / "load_repr": only an explicit latency backend is validated (and refused); otherwise the oracle passes
    # TRTLLM over
    scheme = str(experts.scheme or "") if experts else ""
    # the kernel's schemes: 128-block weights with dynamic 128-group activations (every FP8 block checkpoint), or static
    # per-tensor weights and activations (kvplan does not tell static from dynamic activations: not claimed)
    if backend == "latency" and "block 128x128" in scheme:
        # "load_repr" (0.17.0-0.23.x): the reason goes on with the rank's FusedMoEParallelConfig, which kvplan does not print
        return ("FP8 MoE backend FLASHINFER_TRTLLM does not support the deployment configuration since kernel does not "
                "support parallel config" + (" {the rank's FusedMoEParallelConfig(...)}." if how == "load_repr" else "."))
    return None


def _eplb_since(architectures):
    for a in architectures or ():
        for at, on in EPLB_ARCHITECTURES.get(a, ()):
            if on:
                yield release_text(at)


def moe_layers_on_rank(model: ModelSpec, stages: list[tuple[int, int]]) -> int:
    """The MoE layers of the busiest pipeline stage (vLLM's num_moe_layers counts the rank's own); `stages`: the
    decoder layers [lo, hi) of each stage (kv.pp_stages: the split the weights per stage read, VLLM_PP_LAYER_PARTITION
    where set)."""
    layers = moe_layers(model)
    if len(stages) <= 1:
        return len(layers)
    return max(sum(1 for i in layers if lo <= i < hi) for lo, hi in stages)


def eplb_state_bytes(model: ModelSpec, args: EngineArgs, rules: VersionRules,
                     experts_bytes: int) -> tuple[int, list[tuple[str, int]]]:
    """(bytes, parts) of the EPLB state one rank holds (distributed/eplb/eplb_state.py EplbState.build in 0.9.2-0.11.2,
    EplbState.add_model from 0.12.0), for `args.eplb_redundant` redundant experts; `experts_bytes`: the rank's routed
    expert bytes (RankWeights.by_use "experts"), whose one-layer share the exchange buffer copies. L MoE layers,
    E logical, P = E + R physical experts, W the load window's steps:
    expert_load_window (W, L, P) int32 and expert_load_pass (L, P) int32 (P: the rank's local physical experts in 0.9.2-0.10.0),
    physical_to_logical_map (L, P) int64, logical_to_physical_map (L, E, S) int64 with S = R + 1 replica slots (0.9.2,
    0.34.0) or 1024 (0.10.0-0.33.0: rules eplb_replica_slots), logical_replica_count (L, E) int64, from 0.31.0
    last_expert_load (L, E) int64, and from 0.12.0 expert_buffer, torch.empty_like of each tensor of
    the first MoE layer's local experts (not with 0.34's symm_mem communicator, which owns its own buffer)."""
    e = int(model.num_experts or 0)
    r = int(args.eplb_redundant)
    p = e + r
    local = p // args.expert_parallel_size
    layers = moe_layers_on_rank(model, pp_stages(model, args, rules))
    settings = args.eplb_settings
    given = settings.get("window_size")
    window = EPLB_WINDOW_DEFAULT if given is None else int(given)
    counted = local if rules.eplb_load_over_local else p
    # logical_to_physical_map's replica slots: R + 1, or MAX_EXPERT_REDUNDANCY + 1 whatever R (rules eplb_replica_slots)
    slots = MAX_EXPERT_REDUNDANCY + 1 if rules.eplb_replica_slots == "max" else r + 1
    parts = [(f"expert_load_window {window} x {layers} x {counted} int32", window * layers * counted * 4),
             (f"expert_load_pass {layers} x {counted} int32", layers * counted * 4),
             (f"physical_to_logical_map {layers} x {p} int64", layers * p * 8),
             (f"logical_to_physical_map {layers} x {e} x {slots} int64", layers * e * slots * 8),
             (f"logical_replica_count {layers} x {e} int64", layers * e * 8)]
    if rules.eplb_last_load:
        parts.append((f"last_expert_load {layers} x {e} int64", layers * e * 8))
    if rules.eplb_expert_buffer and str(settings.get("communicator") or "") != "symm_mem" and layers:
        one = int(math.ceil(experts_bytes / layers))
        parts.append((f"expert_buffer (one MoE layer's {local} local experts)", one))
    return sum(b for _, b in parts), parts
