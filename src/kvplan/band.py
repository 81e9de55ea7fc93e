"""The uncertainty band `kvplan fit` shows: p10-p90 of the KV-pool residuals `kvplan validate` measured on real
startups of the plan's family and era (data/residuals.json, written by tools/fit_calibration.py write_residuals from
`validate.residual_table`).

Its own module so that a plan's band is read without importing `validate` (and the log parser it scores records
with): `kvplan fit` needs the table, not the scorer.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from kvplan.plan import ENV_EFFECTS, Plan
from kvplan.resolve import GIB
from kvplan.versions import NEWEST_READ, OLDEST_READ, architecture_refusal, outside_read


def model_family(model) -> str:
    if model.compressed_attention:
        return "compressed-attention (DeepSeek-V4)"  # no startup with a logged pool yet
    if model.is_hybrid:
        return "hybrid"
    return "moe" if model.is_moe else "dense"


def model_architecture(model) -> str:
    """The model's architecture as its config names it (its model_type where the config names none)."""
    return model.architectures[0] if model.architectures else str(model.model_type)


def era_group(era: str) -> str:
    return {"V0-a": "V0", "V0-b": "V0", "V0-c": "V0", "V1-a": "V1 <= 0.10", "V1-b": "V1 <= 0.10"}.get(era, "V1 >= 0.11")


@lru_cache(maxsize=1)
def _residuals() -> dict:
    try:
        return json.loads(resources.files("kvplan.data").joinpath("residuals.json").read_text())
    except (FileNotFoundError, OSError):
        return {}


def band_bounds(value: float, band: dict) -> tuple[float, float]:
    """(low, high) of what vLLM would log for a predicted `value`, given a band's p10/p90 residuals. A residual is the
    logged value relative to the predicted one, (logged - predicted) / predicted, as `residual_table` stores it, so
    logged = predicted x (1 + residual): an over-predicting family (negative residuals) puts the real value below the
    prediction."""
    def at(r: float) -> float:
        return value * max(1 + r, 0.0)

    a, b = at(band["hi"]), at(band["lo"])
    return (a, b) if a <= b else (b, a)


# ---- the engine arguments the validated startups ran with (residual_table's "args_seen", uncertainty_band)

# vLLM's default of an engine argument where it is not None / False / "auto" (EngineArgs, vllm/engine/arg_utils.py and
# config/parallel.py, cache.py: the same in 0.6.0-0.34.0 for these): a value equal to it is not "set away from the
# default", whether the user wrote it or not
ARG_DEFAULTS = {"tensor_parallel_size": 1, "pipeline_parallel_size": 1, "data_parallel_size": 1,
                "decode_context_parallel_size": 1, "prefill_context_parallel_size": 1, "dcp_kv_cache_interleave_size": 1,
                "cp_kv_cache_interleave_size": 1, "num_redundant_experts": 0, "cpu_offload_gb": 0, "entrypoint": "serve",
                "expert_placement_strategy": "linear", "runner": "auto", "performance_mode": "balanced"}
# the arguments whose value, not only whether it was set, decides the arithmetic: a validated startup that ran another
# value did not exercise this one (an fp8 KV cache does not validate an fp8_e5m2 one's page, nor a Triton MoE backend
# the CUTLASS one). The tri-state switches (--[no-]enable-prefix-caching ...) are read as their value too: "on" and
# "off"; --env as the names of the variables set
# --quantization is not read by value: most uses name the checkpoint's own method, which the startups of such
# checkpoints exercised without the flag (a record of an AWQ checkpoint often carries none), so a value no record gave
# says nothing of what was validated. --async-scheduling is read as the startup ran it (async_scheduling_ran)
ENUM_ARGS = frozenset({"kv_cache_dtype", "dtype", "mamba_cache_dtype", "mamba_ssm_cache_dtype",
                       "moe_backend", "gdn_prefill_backend", "performance_mode", "runner", "expert_placement_strategy",
                       "entrypoint", "enable_prefix_caching", "enable_chunked_prefill", "async_scheduling",
                       "disable_hybrid_kv_cache_manager", "enable_extensible_kv_cache", "env"})
# arguments a plan is not asked for by a vllm serve flag of its own: the release (the band's era and outside_read say
# it), the GPU count (the GPU), the seed's overhead (simple mode has no band) and VLLM_ALLOW_LONG_MAX_MODEL_LEN (--env)
NOT_SERVE_ARGS = frozenset({"vllm_version", "num_gpus", "overhead_gb", "allow_long_max_model_len", "awq_kernel",
                            "gptq_kernel", "eplb_redundant", "async_scheduling_resolved"})
# set away from the default, and still not named by the band when no validated startup ran them: they move no figure
# a startup logs nor the block arithmetic. --calculate-kv-scales (plan.planner notes it: scales computed on the first
# forward, no memory), --load-format (the same weights on the GPU: plan.serve_flags), --dcp/--cp-kv-cache-interleave-size
# (where DCP places tokens, not how many: plan.kv.interleave_checks), --long-prefill-token-threshold[-adaptive] (the
# scheduler's chunk cap: simulate), --all2all-backend (written to the launch files; no buffer sized), --max-cpu-loras
# (CPU memory), --allow-deprecated-quantization (a refusal lifted), --enable-sleep-mode and --disable-custom-all-reduce
# (the same budget: plan.serve_flags, plan.terms custom_allreduce_says). --kv-cache-memory-bytes and
# --num-gpu-blocks-override have no band at all (uncertainty_band)
# --enable-extensible-kv-cache: the band says it itself (the pool sized after warmup; no validated startup was, and off
# the pool is sized by the profile's estimate as every validated startup's was). VLLM_ALLOW_LONG_MAX_MODEL_LEN allows
# a length; the arithmetic at that length is the same (the records are planned with it: validate._plan_record)
ARGS_MOVING_NOTHING = frozenset({"calculate_kv_scales", "load_format", "dcp_kv_cache_interleave_size",
                                 "cp_kv_cache_interleave_size", "long_prefill_token_threshold",
                                 "long_prefill_token_threshold_adaptive", "all2all_backend", "max_cpu_loras",
                                 "allow_deprecated_quantization", "enable_sleep_mode", "disable_custom_all_reduce",
                                 "kv_cache_memory_bytes", "num_gpu_blocks_override", "enable_extensible_kv_cache"})
ENV_MOVING_NOTHING = frozenset({"VLLM_ALLOW_LONG_MAX_MODEL_LEN"})


def _arg_value(name: str, value) -> str:
    """How args_seen files an enum-like argument's value: lower-case text, "on"/"off" for a switch."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value).strip().lower()


def args_set(args) -> dict[str, list[str] | None]:
    """The engine arguments of `args` (a plan's given_args, as the flags were given, before any default) set away
    from vLLM's default: name -> the values an enum-like one (ENUM_ARGS) was given, None for the others."""
    out: dict[str, list[str] | None] = {}
    if args is None:
        return out
    for name, default in type(args).__dataclass_fields__.items():
        if name in NOT_SERVE_ARGS:
            continue
        value = getattr(args, name)
        if name == "env":
            names = sorted({k for k, _ in value or ()})
            if names:
                out[name] = names
            continue
        if value is None or value == default.default or value == ARG_DEFAULTS.get(name, None) or value in ((), "", {}):
            continue
        if value is False and name not in ("enable_prefix_caching", "enable_chunked_prefill", "async_scheduling",
                                           "enable_extensible_kv_cache"):
            continue  # a switch given off that is off by default (--no-disable-hybrid-kv-cache-manager: the default)
        if isinstance(value, str) and value.strip().lower() == "auto":
            continue
        out[name] = [_arg_value(name, value)] if name in ENUM_ARGS else None
    return out


def async_scheduling_ran(args) -> dict[str, list[str]]:
    """{"async_scheduling": ["on" or "off"]}: async scheduling as the plan's startup runs it (args resolved:
    async_scheduling_resolved, the release's default where not given), {} where not resolved. A validated startup ran
    it so whether or not its record gave the flag: an explicit --async-scheduling is validated by those that ran it on."""
    ran = getattr(args, "async_scheduling_resolved", None)
    return {} if ran is None else {"async_scheduling": [_arg_value("async_scheduling", ran)]}


def args_seen_table(sets: list[dict], names) -> dict:
    """residual_table's "args_seen": for each engine argument of `names`, how many of the validated startups (their
    args_set) set it away from the default ("n"), and for an enum-like one how many ran each value ("values")."""
    out = {}
    for name in names:
        runs = [s[name] for s in sets if name in s]
        entry: dict = {"n": len(runs)}
        if name in ENUM_ARGS:
            values: dict[str, int] = {}
            for vals in runs:
                for v in vals or ():
                    values[v] = values.get(v, 0) + 1
            entry["values"] = dict(sorted(values.items()))
        out[name] = entry
    return out


def _flag(name: str) -> str:
    """vllm serve's spelling of an engine argument (api.FIT_PARAMS: its first flag, the --x of a --x/--no-x pair)."""
    from kvplan.api import FIT_PARAMS  # imported here: kvplan.api imports the planner this module is read beside

    for param in FIT_PARAMS:
        if param.name == name:
            return param.flags[0].split("/")[0]
    return "--" + name.replace("_", "-")


def unvalidated_args(p: Plan, seen: dict | None = None) -> list[str]:
    """The vllm serve flags of plan `p` set away from vLLM's default that no validated startup ran (or ran only with
    other values, for an enum-like one): from residuals.json's "args_seen", the startups the band's residuals come
    from. [] where the table has none (a residuals.json written before it)."""
    seen = _residuals().get("args_seen") if seen is None else seen
    if not seen:
        return []
    out = []
    given = args_set(p.given_args)
    if "async_scheduling" in given:  # given: checked as it runs (the release may run it off where it was asked for)
        given.update(async_scheduling_ran(p.args))
    # a KV dtype that is the model's own dtype (--kv-cache-dtype bfloat16 on a bfloat16 model) stores what 'auto' does
    # (weights.kv_dtype_bytes): the same pool, as validated
    model_dtype = str(getattr(p.args, "dtype", "") or "").lower()
    if given.get("kv_cache_dtype") and given["kv_cache_dtype"] == [model_dtype]:
        del given["kv_cache_dtype"]
    for name, values in given.items():
        if name in ARGS_MOVING_NOTHING:
            continue
        if name == "env":  # the variables the plan reads (ENV_EFFECTS); the others are only carried to serve.sh
            values = [v for v in values or () if v in ENV_EFFECTS and v not in ENV_MOVING_NOTHING]
            if not values:
                continue
        entry = seen.get(name, {"n": 0})
        if entry["n"] and values is not None:
            values = [v for v in values if v not in entry.get("values", {})]
        elif entry["n"]:
            continue
        if entry["n"] and not values:
            continue
        out.append(_spelled(name, values))
    return out


def _spelled(name: str, values: list[str] | None) -> str:
    """A flag as the band names it: --x, --no-x for a switch given off, --x VALUE for an enum-like one."""
    if name == "env":
        return "--env " + ", ".join(values or ())
    if values in (["on"], ["off"]):
        return _flag(name).replace("--", "--no-", 1) if values == ["off"] else _flag(name)
    return _flag(name) + (" " + ", ".join(values) if values else "")


# the fewest residuals a family-and-era band is read from (uncertainty_band)
MIN_BAND_RECORDS = 5


def uncertainty_band(p: Plan) -> dict | None:
    """p10-p90 of the KV-pool residuals validated for this family and era (None in simple mode)."""
    if p.mode != "vllm" or p.failure not in (None, "memory"):  # refused or failed before any pool is sized: none to band
        return None
    if architecture_refusal(p.model.architectures, p.rules.release):  # an architecture no release kvplan read registers
        return None
    if p.args.kv_cache_memory_bytes is not None:  # nothing profiled sizes it: the residuals of profiling do not apply
        return {"lo": 0.0, "hi": 0.0, "n": 0, "outside_validation": False,
                "text": "no band: the pool is given (--kv-cache-memory-bytes), not profiled; tokens and concurrency follow "
                        "from it by the block arithmetic (validate --given-kv scores that part)"}
    if p.blocks_overridden:
        # the blocks are given (0.9.1 logs the override and keeps the profiled count: banded as without it)
        return {"lo": 0.0, "hi": 0.0, "n": 0, "outside_validation": False,
                "text": "no band: the blocks are given (--num-gpu-blocks-override), not profiled; tokens and concurrency "
                        "follow from them by the block arithmetic"}
    table = _residuals()
    fam, era = model_family(p.model), era_group(p.era)
    key = f"{fam}|{era}"
    # a p10-p90 of fewer than MIN_BAND_RECORDS residuals is their extremes (or one residual, a band of width 0): the
    # family's all-eras residuals speak for it instead, and the era counts as not validated
    table = {k: v for k, v in table.items() if k != "args_seen" and (not isinstance(v, dict) or k.startswith("arch|")
                                                                      or v["n"] >= MIN_BAND_RECORDS)}
    entry = table.get(key) or table.get(f"{fam}|*")
    outside = []
    if key not in table:
        held = _residuals().get(key, {}).get("n", 0)
        outside.append(f"no validated records for {fam} models in the {era} era" if not held else
                       f"only {held} validated {fam} startup{'s' if held > 1 else ''} in the {era} era, too few "
                       f"for a p10–p90 (fewer than {MIN_BAND_RECORDS})")
    if p.model.quant is not None and p.model.quant.method == "gguf":
        outside.append("no GGUF startup among the validated records")
    # the family's residuals speak for the architectures they were measured on: a Mamba hybrid is banded by GDN and
    # sliding-window startups, a new dense architecture by Llama and Qwen ones (residual_table's "arch|" entries)
    arch = model_architecture(p.model)
    if any(k.startswith("arch|") for k in table) and f"arch|{arch}" not in table:
        outside.append(f"no validated startup of the {arch} architecture")
    # a release beyond the ones whose rules were read was never validated either, whatever its era's records say
    where = outside_read(p.rules.release)
    if where == "newer":
        outside.append(f"vLLM {p.rules.version} is newer than the newest release kvplan has read ({NEWEST_READ})")
    elif where == "older":
        outside.append(f"vLLM {p.rules.version} is older than the oldest release kvplan has read ({OLDEST_READ})")
    # vLLM >= 0.34 sizes the pool after warmup (the extensible KV cache, plan.extensible): no startup the residuals
    # come from was sized that way, so the era's band is shown for scale, not as validated
    # the flags set away from vLLM's default that no validated startup ran (residuals.json "args_seen"): the band's
    # residuals say nothing of the arithmetic those flags change
    unvalidated = unvalidated_args(p)
    if unvalidated:
        outside.append("no validated startup ran with " + ", ".join(unvalidated))
    if p.kv_pool is not None:
        outside.append(f"no validated startup sizes its KV cache after warmup as vLLM {p.rules.version}'s extensible KV "
                       "cache does (the residuals are of pools sized by the profile's estimate)")
    if entry is None:
        return {"lo": None, "hi": None, "n": 0, "outside_validation": True, "family": fam, "era": era,
                "unvalidated_args": unvalidated, "text": "outside what was validated: " + "; ".join(outside or ["no records"])}
    lo, hi = entry["p10_pct"] / 100, entry["p90_pct"] / 100
    kv = p.kv_cache_bytes / GIB
    if kv <= 0:  # the residuals are relative to a pool: none to scale
        return {"lo": None, "hi": None, "n": entry["n"], "outside_validation": bool(outside), "family": fam, "era": era,
                "unvalidated_args": unvalidated, "text": f"no validated band: the predicted KV pool is {kv:.2f} GiB, none to scale by the "
                        f"p10–p90 residuals of {entry['n']} real {fam} startups"}
    kv_band = list(band_bounds(kv, {"lo": lo, "hi": hi}))
    conc_band = list(band_bounds(p.max_concurrency, {"lo": lo, "hi": hi}))
    # the family and the era whose residuals these are: a user reads which startups the band speaks for
    which = f"vLLM {era}" if key in table else "all eras"
    text = (f"{'band' if outside else 'validated band'} (p10–p90 of {entry['n']} real {fam} startups, {which}): KV pool "
            f"{kv_band[0]:.2f}–{kv_band[1]:.2f} GiB, concurrency {conc_band[0]:.2f}–{conc_band[1]:.2f}x")
    if p.fits and conc_band[0] < 1 <= p.max_concurrency:
        text += " — near the edge: within the band vLLM may refuse this start (one max_model_len request may not fit)"
    elif not p.fits and p.failure == "memory" and conc_band[1] >= 1 > p.max_concurrency:
        text += " — near the edge: within the band vLLM may start after all"
    if outside:
        text += " — outside what was validated: " + "; ".join(outside)
    return {"lo": lo, "hi": hi, "n": entry["n"], "outside_validation": bool(outside), "family": fam,
            "era": era if key in table else "all eras", "unvalidated_args": unvalidated, "text": text,
            "kv_cache_gib": kv_band, "max_concurrency": conc_band}
