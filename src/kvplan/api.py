"""The public entry points: resolve + plan in one call, the fixes, and the inverse questions."""

from __future__ import annotations

from dataclasses import replace

from kvplan.errors import InputError
from kvplan.plan import EngineArgs, Fix, Plan, parse_env, parse_max_model_len, plan
from kvplan.resolve import ChoiceNote, GPUSpec, ModelSpec, gpu_catalog, gpu_count_in_name, resolve_gpu, resolve_model
from kvplan.versions import rules_for

_ENGINE_FIELDS = set(EngineArgs.__dataclass_fields__)


def engine_args(**kwargs) -> EngineArgs:
    """EngineArgs from keyword arguments named as `vllm serve` flags in snake_case."""
    unknown = set(kwargs) - _ENGINE_FIELDS
    if unknown:
        raise InputError(sorted(unknown)[0], "not a vllm serve flag kvplan models", f"known: {', '.join(sorted(_ENGINE_FIELDS))}")
    if "max_model_len" in kwargs:
        kwargs["max_model_len"] = parse_max_model_len(kwargs["max_model_len"])
    if "env" in kwargs:
        kwargs["env"] = parse_env(kwargs["env"])
    return EngineArgs(**kwargs)


def fit(model: str | ModelSpec | None = None, gpu: str | GPUSpec | None = None, *, gpu_gib: float | None = None,
        gpu_gb: float | None = None, revision: str | None = None, fixes: bool = True, detect_gpu: bool = True,
        site_calibration: bool = True, **flags) -> Plan:
    """Predict vLLM's startup for `model` on `gpu` with `vllm serve` flags (snake_case keywords).

    >>> p = fit("Qwen/Qwen2.5-0.5B-Instruct", gpu="T4", max_model_len=4096)
    >>> p.fits, p.kv_cache_tokens, round(p.max_concurrency, 2)
    """
    spec = model if isinstance(model, ModelSpec) else resolve_model(model, revision=revision)
    notes: list[str] = []
    if model is None and flags.get("max_model_len") is None:
        flags["max_model_len"] = 4096
        notes.append("no model given: the seed's example, Qwen/Qwen2.5-0.5B-Instruct at max_model_len 4096")
    named_count = None
    if isinstance(gpu, GPUSpec):
        gspec = gpu
    else:
        gspec, gpu_notes = resolve_gpu(gpu, gib=gpu_gib, gb=gpu_gb, detect=detect_gpu)
        notes += gpu_notes
        named_count = gpu_count_in_name(gpu)
        if named_count and flags.get("num_gpus") is None:
            flags["num_gpus"] = named_count  # '2x L40S': the GPUs available; vLLM's ranks are still its flags'
    args = engine_args(**flags)
    offsets = None
    if site_calibration and args.overhead_gb is None:
        offsets = _site_offsets(gspec, spec)
    p = plan(spec, gspec, args, extra_assumptions=notes, site_offsets=offsets)
    choices = tuple(n for n in notes if isinstance(n, ChoiceNote))
    if choices:
        p = replace(p, warnings=p.warnings + choices)
    ranks = p.args.tensor_parallel_size * p.args.pipeline_parallel_size * (p.args.data_parallel_size or 1)
    if named_count and named_count > ranks:
        p = replace(p, warnings=p.warnings + (
            f"{gpu!r} names {named_count} GPUs, but vLLM uses {ranks} (TP {p.args.tensor_parallel_size} x PP "
            f"{p.args.pipeline_parallel_size}): give --tensor-parallel-size {named_count} to plan them all",))
    if fixes and p.mode == "vllm":
        p = p.with_fixes(compute_fixes(p))
    return p


def _site_offsets(gpu: GPUSpec, model: ModelSpec) -> dict | None:
    """A site calibration stored by `kvplan reconcile --calibrate`, when that module is present."""
    try:
        from kvplan.reconcile import load_site_calibration
    except ImportError:
        return None
    try:
        return load_site_calibration(gpu.name, model.id)
    except Exception:
        return None


def replan(p: Plan, *, model: ModelSpec | None = None, gpu: GPUSpec | None = None, **changes) -> Plan:
    """The same plan with some flags changed (no fixes computed)."""
    given = {k: getattr(p.args, k) for k in _ENGINE_FIELDS}
    given.update(changes)
    return plan(model or p.model, gpu or p.gpu, EngineArgs(**given))


def _try(p: Plan, **kw) -> Plan | None:
    try:
        return replan(p, **kw)
    except InputError:
        return None


def compute_fixes(p: Plan) -> tuple[Fix, ...]:
    """The nearest changes that make (or keep) the plan starting, each with its computed effect."""
    fixes: list[Fix] = []
    a = p.args
    if p.fits:
        return ()
    if p.failure == "platform":
        if a.dtype == "bfloat16" and p.gpu.cc and p.gpu.cc < (8, 0):
            q = _try(p, dtype="float16")
            if q:
                fixes.append(Fix("float16 instead of bfloat16", {"dtype": "half"}, _effect(q), q.fits))
        g = smallest_gpu(p, any_size=True)
        if g is not None:
            q = _try(p, gpu=g)
            fixes.append(Fix("a supported GPU", {"gpu": g.name}, _effect(q) + f" on {g.name} (compute capability {g.compute_capability})", True))
        return tuple(fixes)
    best_len = largest_max_model_len(p)
    if best_len:
        q = _try(p, max_model_len=best_len)
        if q and q.fits:
            fixes.append(Fix("lower max_model_len", {"max_model_len": best_len},
                             f"starts: {q.kv_cache_tokens:,} tokens, {q.max_concurrency:.2f}x concurrency at {best_len:,}", True))
    if a.kv_cache_dtype == "auto" and p.gpu.cc and p.gpu.cc >= (8, 9):
        q = _try(p, kv_cache_dtype="fp8")
        if q:
            fixes.append(Fix("fp8 KV cache", {"kv_cache_dtype": "fp8"}, _effect(q), q.fits))
    if a.gpu_memory_utilization < 0.98:
        u = smallest_utilization(p)
        if u is not None:
            q = _try(p, gpu_memory_utilization=u)
            fixes.append(Fix("raise gpu_memory_utilization", {"gpu_memory_utilization": u}, _effect(q) + " (less headroom; OOM risk under load)", True))
    if p.model.quant is None:
        from kvplan.resolve import QuantSpec

        for name, quant in (("an FP8 checkpoint", QuantSpec("fp8", 8, None, "fp8 per-tensor")),
                            ("an AWQ/GPTQ 4-bit checkpoint", QuantSpec("awq", 4, 128, "int4 w4a16 group 128"))):
            if quant.method == "fp8" and not (p.gpu.cc and p.gpu.cc >= (8, 9)):
                continue
            model = replace(p.model, quant=quant, checkpoint=None)
            q = _try(p, model=model, quantization=None)
            if q:
                fixes.append(Fix(f"serve {name}", {"quantization": quant.method}, _effect(q), q.fits))
                if q.fits:
                    break
    tp = a.tensor_parallel_size * 2
    if p.model.num_attention_heads % tp == 0:
        q = _try(p, tensor_parallel_size=tp, num_gpus=None)
        if q:
            fixes.append(Fix(f"tensor parallel {tp}", {"tensor_parallel_size": tp}, _effect(q) + f" on {tp} x {p.gpu.name}", q.fits))
    g = smallest_gpu(p)
    if g is not None:
        q = _try(p, gpu=g)
        if q:
            fixes.append(Fix("a larger GPU", {"gpu": g.name}, _effect(q) + f" on {g.name} ({g.total_gib:.1f} GiB)", q.fits))
    return tuple(fixes)


def _effect(q: Plan | None) -> str:
    if q is None:
        return "not possible with these flags"
    if not q.fits:
        return f"still does not fit ({q.kv_cache_bytes / 1024 ** 3:.2f} GiB for KV)"
    return f"starts: {q.kv_cache_tokens:,} tokens, {q.max_concurrency:.2f}x concurrency at {q.args.max_model_len:,}"


def largest_max_model_len(p: Plan) -> int | None:
    """The largest max_model_len that starts, with everything else unchanged (a multiple of the block size)."""
    if p.estimated_max_model_len:
        bs = p.block_size
        return max(bs, p.estimated_max_model_len // bs * bs)
    return None


def max_model_len_for_concurrency(p: Plan, concurrency: float) -> int | None:
    """The largest max_model_len at which `concurrency` full-length requests fit the pool."""
    limit = p.model.max_position_embeddings or p.args.max_model_len
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        q = _try(p, max_model_len=mid)
        if q is not None and q.fits and q.max_concurrency >= concurrency:
            lo = mid
        else:
            hi = mid - 1
    return lo or None


def smallest_utilization(p: Plan, ceiling: float = 0.98) -> float | None:
    """The smallest gpu_memory_utilization (2 decimals, <= ceiling) at which the plan starts."""
    lo, hi = int(round(p.args.gpu_memory_utilization * 100)), int(ceiling * 100)
    q = _try(p, gpu_memory_utilization=hi / 100)
    if q is None or not q.fits:
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        q = _try(p, gpu_memory_utilization=mid / 100)
        if q is not None and q.fits:
            hi = mid
        else:
            lo = mid + 1
    return lo / 100


def smallest_gpu(p: Plan, *, any_size: bool = False) -> GPUSpec | None:
    """The smallest catalog GPU (by memory; larger than this one unless `any_size`) on which the plan starts,
    of the same form as this one where one starts (a datacenter card is answered with a datacenter card, a desktop
    card with a desktop or workstation card), else of any form but a laptop or an integrated-memory part (GB10,
    Jetson: the host's memory at a fraction of the bandwidth) unless this GPU is one."""
    form = p.gpu.form
    others: list[GPUSpec] = []
    for g in sorted(gpu_catalog(), key=lambda g: g.total_bytes):
        if (g.total_bytes <= p.gpu.total_bytes and not any_size) or g.vendor != p.gpu.vendor or g.id == p.gpu.id:
            continue
        if g.form != form:
            if not g.one_per_machine:
                others.append(g)
            continue
        q = _try(p, gpu=g)
        if q is not None and q.fits:
            return g
    for g in others:
        q = _try(p, gpu=g)
        if q is not None and q.fits:
            return g
    return None


def smallest_gpu_and_tp(model: ModelSpec, args: EngineArgs, vendor: str = "NVIDIA") -> tuple[GPUSpec, int, Plan] | None:
    """`--gpu auto`: the smallest catalog GPU x TP (1, 2, 4, 8) that starts, by total memory."""
    options = []
    for g in gpu_catalog():
        if g.vendor != vendor:
            continue
        for tp in (1, 2, 4, 8):
            if tp > 1 and g.one_per_machine:
                continue
            options.append((g.total_bytes * tp, tp, g))
    for _, tp, g in sorted(options, key=lambda o: (o[0], o[1])):
        try:
            q = plan(model, g, replace(args, tensor_parallel_size=tp, num_gpus=None))
        except InputError:
            continue
        if q.fits:
            return g, tp, q
    return None


def known_versions() -> list[str]:
    from kvplan.versions import RELEASES_READ

    return list(RELEASES_READ)


__all__ = ["fit", "replan", "compute_fixes", "largest_max_model_len", "max_model_len_for_concurrency",
           "smallest_utilization", "smallest_gpu", "smallest_gpu_and_tp", "engine_args", "rules_for"]
