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

from kvplan.plan import Plan
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
    if p.args.num_gpu_blocks_override is not None and not (p.rules.is_v1 and p.rules.gpu_blocks_override == "ignored"):
        # the blocks are given (0.9.1 logs the override and keeps the profiled count: banded as without it)
        return {"lo": 0.0, "hi": 0.0, "n": 0, "outside_validation": False,
                "text": "no band: the blocks are given (--num-gpu-blocks-override), not profiled; tokens and concurrency "
                        "follow from them by the block arithmetic"}
    table = _residuals()
    fam, era = model_family(p.model), era_group(p.era)
    key = f"{fam}|{era}"
    # a p10-p90 of fewer than MIN_BAND_RECORDS residuals is their extremes (or one residual, a band of width 0): the
    # family's all-eras residuals speak for it instead, and the era counts as not validated
    table = {k: v for k, v in table.items() if not isinstance(v, dict) or k.startswith("arch|") or v["n"] >= MIN_BAND_RECORDS}
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
    if p.kv_pool is not None:
        outside.append(f"no validated startup sizes its KV cache after warmup as vLLM {p.rules.version}'s extensible KV "
                       "cache does (the residuals are of pools sized by the profile's estimate)")
    if entry is None:
        return {"lo": None, "hi": None, "n": 0, "outside_validation": True, "family": fam, "era": era,
                "text": "outside what was validated: " + "; ".join(outside or ["no records"])}
    lo, hi = entry["p10_pct"] / 100, entry["p90_pct"] / 100
    kv = p.kv_cache_bytes / GIB
    if kv <= 0:  # the residuals are relative to a pool: none to scale
        return {"lo": None, "hi": None, "n": entry["n"], "outside_validation": bool(outside), "family": fam, "era": era,
                "text": f"no validated band: the predicted KV pool is {kv:.2f} GiB, none to scale by the "
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
            "era": era if key in table else "all eras", "text": text, "kv_cache_gib": kv_band, "max_concurrency": conc_band}
