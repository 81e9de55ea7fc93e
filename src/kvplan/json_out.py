"""Machine-readable output (`--json`), apart from kvplan.render so that printing JSON never loads rich."""

from __future__ import annotations

import json
from typing import Optional


def budget_segments(p) -> list[tuple[str, float]]:
    """The memory budget as (label, bytes) segments that add up to the GPU's total (per rank)."""
    kv = max(0.0, p.kv_cache_bytes)
    override = p.blocks_overridden
    if override:  # --num-gpu-blocks-override: the tensors are allocated at the override's size, whatever was profiled
        kv = float(p.num_gpu_blocks * p.bytes_per_block)
    # the extensible KV cache (vLLM >= 0.34) estimates no graphs before the allocation but measures their capture
    # after warmup: the captured pool is what they hold beside the KV cache
    graphs = float(p.cudagraph_capture_bytes if p.kv_cache_capacity_bytes is not None else p.cudagraph_bytes)
    used = p.weights_bytes + p.activation_peak_bytes + p.non_torch_bytes + graphs
    over = max(0.0, used - p.requested_bytes)  # weights etc. beyond the budget: shown, never hidden
    # a pool given by --kv-cache-memory-bytes is not what the requested memory leaves: vLLM allocates it as given, so
    # the card's unclaimed rest is the headroom (total - the others - the pool), not total - requested
    # (so is the extensible KV cache's, sized from the free memory measured after warmup, not from the requested memory)
    headroom = (p.total_bytes - used - kv if p.args.kv_cache_memory_bytes is not None or p.kv_cache_capacity_bytes is not None
                or override else p.total_bytes - p.requested_bytes - over)
    return [
        ("weights", float(p.weights_bytes)),
        ("activation", float(p.activation_peak_bytes)),
        ("non-torch", float(p.non_torch_bytes)),
        ("CUDA graphs", graphs),
        ("KV pool", kv),
        ("headroom", max(0.0, headroom)),
    ]


def headroom_formula(p) -> str:
    """How budget_segments' headroom is taken, in the terms' names (fit --explain's headroom row)."""
    override = p.blocks_overridden
    if p.args.kv_cache_memory_bytes is not None or p.kv_cache_capacity_bytes is not None or override:
        graphs = "cudagraph_capture" if p.kv_cache_capacity_bytes is not None else "cudagraph"
        pool = "num_gpu_blocks x bytes_per_block" if override else "kv_cache"
        return f"total - weights - activation_peak - non_torch - {graphs} - {pool}"
    # the terms past requested (a plan that does not start): the headroom is what they leave of the card
    return "total - weights - activation_peak - non_torch - cudagraph" if budget_overrun(p) > 0 else "total - requested"


def budget_overrun(p) -> float:
    segs = dict(budget_segments(p))
    return max(0.0, segs["weights"] + segs["activation"] + segs["non-torch"] + segs["CUDA graphs"] - p.requested_bytes)


def plan_json(p, note: Optional[str], band: Optional[dict]) -> dict:
    """`kvplan fit --json` (the web API's /api/plan adds its charts): the plan, the answer to an inverse question
    (`note`), the validated band."""
    d = p.to_dict()  # the memory bar's segments among them (budget_segments)
    if note:
        d["inverse"] = note
    if band:
        d["uncertainty"] = band
    return d


def to_json(obj) -> str:
    return json.dumps(obj, indent=2, default=lambda o: o.__dict__ if hasattr(o, "__dict__") else str(o))
