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

from kvplan.errors import RefusedByVLLMError
from kvplan.plan.args import EngineArgs
from kvplan.plan.kv import experts_quant
from kvplan.resolve import ModelSpec, QuantSpec
from kvplan.versions import (EPLB_ARCHITECTURES, VersionRules, eplb_architecture, eplb_quant_support,
                             first_release_where, release_text)
from kvplan.weights import moe_layers, pp_layer_split

# EPLBConfig.window_size's default (config/parallel.py, 0.10.2-0.34.0 wheels; ParallelConfig.eplb_window_size = 1000 in
# 0.9.2-0.10.1)
EPLB_WINDOW_DEFAULT = 1000


def eplb_quant_key(model: ModelSpec, quant: QuantSpec | None, rules: VersionRules) -> str:
    """The routed experts' MoE method as versions.EPLB_QUANT_METHODS keys it (the experts' own compressed-tensors
    scheme: kv.experts_quant)."""
    q = experts_quant(model, quant, rules)
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


def resolve_eplb(model: ModelSpec, quant: QuantSpec | None, args: EngineArgs, rules: VersionRules,
                 notes: list[str], warns: list[str] | None = None) -> int:
    """The redundant experts per MoE layer vLLM `rules.version` builds for these (resolved) args (0 without EPLB or
    where the model class does not balance), raising RefusedByVLLMError with vLLM's own message where it refuses the
    start.
    `notes` / `warns` take what was assumed."""
    given = args.redundant_experts_given
    warns = notes if warns is None else warns
    if not args.enable_eplb and not given:
        return 0
    if rules.eplb_form is None:  # no EPLB in the release: the flag check (versions.SERVE_FLAG_SINCE) names it
        return 0
    if not args.enable_eplb:
        # ParallelConfig.__post_init__ / _validate_parallel_config: redundant experts without EPLB
        message = (f"num_redundant_experts should be used with EPLB.{given}." if rules.eplb_form == "flag" else
                   f"num_redundant_experts is set to {given} but EPLB is not enabled. Either enable EPLB or unset "
                   "num_redundant_experts.")
        raise RefusedByVLLMError(_flag(args, rules), message, "add --enable-eplb (with --enable-expert-parallel over "
                                 "several GPUs), or leave num_redundant_experts unset", rule="redundant experts without EPLB")
    if not model.is_moe:
        raise RefusedByVLLMError("--enable-eplb", f"{model.id} has no experts to balance",
                                 "drop --enable-eplb (it applies to MoE models with --enable-expert-parallel)",
                                 rule="EPLB on a dense model")
    tp, dp = args.tensor_parallel_size, args.data_parallel_size
    if rules.eplb_parallel_checks == "ep":
        if not args.enable_expert_parallel:
            raise RefusedByVLLMError("--enable-eplb", "enable_expert_parallel must be True to use EPLB.",
                                     "add --enable-expert-parallel, or drop --enable-eplb", rule="EPLB without expert parallelism")
        if tp * dp <= 1:
            message = (f"EPLB requires tensor, prefill-context, or data parallelism, but got TP={tp}, PCP=1, DP={dp}."
                       if rules.eplb_one_rank_message == "tp_pcp_dp" else
                       f"EPLB requires tensor_parallel_size or data_parallel_size to be greater than 1, but got "
                       f"TP={tp},DP={dp}.")
            raise RefusedByVLLMError("--enable-eplb", message, "drop --enable-eplb, or run expert parallelism over several "
                                     "GPUs (--tensor-parallel-size or --data-parallel-size above 1)",
                                     rule="EPLB on one rank")
    ep = args.expert_parallel_size
    e = int(model.num_experts or 0)
    if given is not None:
        redundant = given
    elif rules.eplb_redundant_default == "min_divisible":
        # ParallelConfig.compute_eplb_num_redundant_experts (0.34.0): the fewest that make E + R divisible by the EP size
        redundant = (ep - e % ep) % ep
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
        low = (ep - e % ep) % ep
        raise RefusedByVLLMError(_flag(args, rules), "EPLB currently only supports even distribution of experts across "
                                 f"ranks. Got {e + redundant} experts and {ep} EP ranks.",
                                 f"give num_redundant_experts so that {e} + it is a multiple of {ep} (e.g. {low} or "
                                 f"{low + ep})", rule="EPLB with experts not divisible by the EP size")
    key = eplb_quant_key(model, quant, rules)
    support = eplb_quant_support(key, rules.release)
    method = "unquantized" if key == "unquantized" else f"{quant.method if quant else key} ({key})"
    if support == "no":
        if rules.eplb_quant_check in ("fp8_only", "fp8_or_unquantized"):
            message = "EPLB is only supported for FP8 quantization for now."
        else:
            # FusedMoE (fused_moe/layer.py 0.12.0-0.20.0, routed_experts.py 0.33.0-0.34.0) names the method's class
            message = (f"EPLB is not supported {{the {method} experts' MoE method class}}. (the method's supports_eplb "
                       f"is False in vLLM {rules.version})")
        later = first_release_where("eplb_quant_check", lambda v: v == "supports_eplb")
        raise RefusedByVLLMError("--enable-eplb", message,
                                 "drop --enable-eplb, or serve a checkpoint whose experts are FP8 or unquantized"
                                 + (f" (vLLM {later} and later balance more methods)" if rules.eplb_quant_check != "supports_eplb" else ""),
                                 rule="EPLB with an unsupported MoE quantization method")
    if support == "backend":
        warns.append(f"--enable-eplb with {method} experts: vLLM {rules.version} balances them only on some of the "
                     "method's kernel backends (its supports_eplb), chosen at load; kvplan cannot see which, and vLLM "
                     "refuses otherwise ('EPLB is not supported ...')")
    notes.append(f"EPLB: {e} logical + {redundant} redundant = {e + redundant} physical experts per MoE layer"
                 + (f", {(e + redundant) // ep} per EP rank over {ep} ranks" if ep > 1 else ", all on every rank")
                 + f" ({'--num-redundant-experts' if rules.eplb_form == 'flag' else '--eplb-config num_redundant_experts'})")
    return redundant


def _eplb_since(architectures):
    for a in architectures or ():
        for at, on in EPLB_ARCHITECTURES.get(a, ()):
            if on:
                yield release_text(at)


def moe_layers_on_rank(model: ModelSpec, pp: int) -> int:
    """The MoE layers of the busiest pipeline stage (vLLM's num_moe_layers counts the rank's own)."""
    layers = moe_layers(model)
    if pp <= 1:
        return len(layers)
    return max(sum(1 for i in layers if lo <= i < hi) for lo, hi in pp_layer_split(model.num_layers, pp))


def eplb_state_bytes(model: ModelSpec, args: EngineArgs, rules: VersionRules, experts_bytes: int,
                     pp: int) -> tuple[int, list[tuple[str, int]]]:
    """(bytes, parts) of the EPLB state one rank holds (distributed/eplb/eplb_state.py EplbState.build in 0.9.2-0.11.2,
    EplbState.add_model from 0.12.0), for `args.eplb_redundant` redundant experts; `experts_bytes`: the rank's routed
    expert bytes (RankWeights.by_use "experts"), whose one-layer share the exchange buffer copies. L MoE layers,
    E logical, P = E + R physical experts, W the load window's steps:
    expert_load_window (W, L, P) int32 and expert_load_pass (L, P) int32 (P: the rank's local physical experts in 0.9.2-0.10.0),
    physical_to_logical_map (L, P) int64, logical_to_physical_map (L, E, R + 1) int64, logical_replica_count (L, E)
    int64, from 0.33.0 last_expert_load (L, E) int64, and from 0.12.0 expert_buffer, torch.empty_like of each tensor of
    the first MoE layer's local experts (not with 0.34's symm_mem communicator, which owns its own buffer)."""
    e = int(model.num_experts or 0)
    r = int(args.eplb_redundant)
    p = e + r
    local = p // args.expert_parallel_size
    layers = moe_layers_on_rank(model, pp)
    settings = args.eplb_settings
    window = int(settings.get("window_size") or EPLB_WINDOW_DEFAULT)
    counted = local if rules.eplb_load_over_local else p
    parts = [(f"expert_load_window {window} x {layers} x {counted} int32", window * layers * counted * 4),
             (f"expert_load_pass {layers} x {counted} int32", layers * counted * 4),
             (f"physical_to_logical_map {layers} x {p} int64", layers * p * 8),
             (f"logical_to_physical_map {layers} x {e} x {r + 1} int64", layers * e * (r + 1) * 8),
             (f"logical_replica_count {layers} x {e} int64", layers * e * 8)]
    if rules.eplb_last_load:
        parts.append((f"last_expert_load {layers} x {e} int64", layers * e * 8))
    if rules.eplb_expert_buffer and str(settings.get("communicator") or "") != "symm_mem" and layers:
        one = int(math.ceil(experts_bytes / layers))
        parts.append((f"expert_buffer (one MoE layer's {local} local experts)", one))
    return sum(b for _, b in parts), parts
