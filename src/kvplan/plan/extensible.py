"""vLLM 0.34's extensible KV cache (versions.py row kv_pool_sizing "extensible"): whether a start uses it, the pool it
commits, and the lines and error hints it prints.

With it, vLLM still profiles and logs "Available KV cache memory: X GiB" = requested - (consumed + transient peak) -
CUDA-graph estimate (v1/worker/gpu_worker.py Worker.determine_available_memory, 0.34.0 wheel), now at
gpu_memory_utilization 1.0 by default (config/cache.py CacheConfig.resolved_gpu_memory_utilization). That figure is
only the capacity: get_kv_cache_configs checks one max-length request against it and reserves its blocks as virtual
memory. After kernel warmup, the KV-cache sizing warmup and the real CUDA-graph capture, measure_kv_cache_blocks
(v1/worker/extensible_kv_cache.py) empties torch's cache, reads the free memory and commits

    non_kv_used = init_free - free_after_warmup - committed        (weights, non-torch, CUDA-graph pool, buffers)
    margin      = max(KV_CACHE_MARGIN_FLOOR_BYTES, 0.75 x P)       (1 GiB on CUDA, 3 GiB on ROCm)
    available   = min(requested - non_kv_used, init_free - non_kv_used - margin) - max(P, torch reserve growth)

with P the transient peak (reserved_headroom_bytes: max of peak_activation_memory = the profile's transient peak +
the CUDA-graph estimate, and the sizing warmup's allocated peak), then the blocks whose segments, each rounded up to the
2 MiB VMM granule (utils/extensible_tensor.py granule_size), fit in it (ExtensibleKVCache.blocks_within). The minimum
over ranks, and at most the capacity, is the pool (v1/core/kv_cache_planning.py finalize_extensible_kv_cache), checked
again for one max-length request and logged "GPU KV cache size: N tokens" (update_kv_cache_capacity).

In kvplan's terms: non_kv_used = weights + non_torch + the captured CUDA-graph pool (plan.cudagraph_capture_bytes),
P = activation_peak + the CUDA-graph estimate, so

    pool = capacity - capture - max(0, requested + margin - init_free),    init_free = total - startup_used

(the two caps of `available` written over the capacity: requested - non_kv_used - P = capacity - capture). Weights are
computed; non_torch, activation_peak, the CUDA-graph estimate and capture are the measured terms kvplan fitted on
earlier releases (calibration.py, era V1-f), carried over unchanged: no 0.34 startup log was there to fit them on.
The margin floor and fraction, the granule and the default utilization are 0.34.0 source constants.
"""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.calibration import GIB
from kvplan.errors import RefusedByVLLMError
from kvplan.plan.args import EngineArgs
from kvplan.resolve import GPUSpec
from kvplan.versions import VersionRules

# max(KV_CACHE_MARGIN_FLOOR_BYTES, KV_CACHE_MARGIN_FRACTION x transient peak) is kept free beside the transient peak
# (v1/worker/extensible_kv_cache.py, 0.34.0 wheel: 1 GiB on CUDA, 3 GiB on ROCm, where ROCr maps kernel scratch
# outside the allocator)
MARGIN_FLOOR_BYTES_CUDA = 1 << 30
MARGIN_FLOOR_BYTES_ROCM = 3 << 30
MARGIN_FRACTION = 0.75
# The commit granule: the driver's granularity floored at 2 MiB (utils/extensible_tensor.py granule_size, 0.34.0; CUDA
# reports 2 MiB, ROCm 4 KiB, both give 2 MiB)
GRANULE_BYTES = 2 << 20
# Blocks committed while the sizing is measured: the null block (ExtensibleKVCache.min_committed_blocks, 1 under the
# layer-outermost layouts vLLM prefers, 2 under block-outermost ones)
MIN_COMMITTED_BLOCKS = 1
# Device memory in use before vLLM's init snapshot (init_free = total - this): the CUDA context and the cuBLAS /
# cuBLASLt handles Worker.init_device creates before MemorySnapshot, and under tensor parallelism the NCCL
# communicators and custom all-reduce buffers init_worker_distributed_environment sets up before it (gpu_worker.py
# Worker.init_device, 0.34.0 wheel), plus anything another process holds. No earlier release's pool depended on it
# (the estimate is measured from the snapshot: docs/vllm-memory-model.md section 1.2), so kvplan never fitted it. These
# two figures are judgement calls, not fits: the records' startup lines 'Free memory on device (F/T GiB) on startup'
# (T - F, vLLM 0.10-0.31) spread with the GPU's size on one GPU, 0.07-0.11 GiB on a GTX 1660 SUPER and an RTX 3060,
# 0.10 on a T4, 0.19 on an L4, 0.26 on an A40, 0.33 on an MI300X, 0.38-0.41 on an RTX 4090 48 GB and an A100, 0.51-0.61
# on an H100, an RTX 5090 and a B300 (0.88 on an RTX 4090 that also drives a display): 0.5 GiB is the H100 / B300
# class, and on a smaller GPU, where the device cap binds (utilization 1.0), the pool comes out up to ~0.4 GiB smaller
# than vLLM's. Under TP they read 1.53-1.55 GiB (Llama-3.1-8B and Qwen2.5-7B on H100 TP2 / TP4, 0.19.0), 2.01-2.07
# (gpt-oss-20b and Mixtral TP2, Llama-4-Scout TP4 on H100, 0.19.0), 0.96 (4 x RTX PRO 6000, 0.27.1), 0.60 (2 x H200,
# 0.10.2): 1.5 GiB is the middle of the H100 figures. No record shows a pipeline-parallel start's line: PP takes the TP
# figure unread. On a unified-memory GPU free memory is the OS's (unified_memory_warning) and neither figure applies.
STARTUP_USED_ONE_GPU_BYTES = int(0.5 * GIB)
STARTUP_USED_PARALLEL_BYTES = int(1.5 * GIB)


def extensible_kv_cache(gpu: GPUSpec, args: EngineArgs, rules: VersionRules) -> tuple[bool, str]:
    """(whether vLLM `rules.version` sizes the pool with the extensible KV cache, why not where it does not): on by
    default from 0.34.0 on CUDA and ROCm (config/vllm.py VllmConfig._resolve_extensible_kv_cache); off with
    --no-enable-extensible-kv-cache, --kv-cache-memory-bytes, --num-gpu-blocks-override, another platform, and where the driver lacks virtual
    memory management (gpu_worker.py extensible_kv_cache_unsupported_reason -> utils/vmm_driver.py
    vmm_unavailable_reason, whose probe covers WSL2: core.py _initialize_kv_caches then falls back with a warning).
    --enable-extensible-kv-cache where the config rules it out is vLLM's ValueError."""
    if rules.kv_pool_sizing != "extensible" or not rules.is_v1:
        return False, ""
    asked = args.enable_extensible_kv_cache
    vendor = (gpu.vendor or "").upper()
    unsupported = None
    if vendor not in ("NVIDIA", "AMD"):
        unsupported = "it is only supported on CUDA and ROCm"
    elif args.kv_cache_memory_bytes is not None:
        unsupported = "it sizes the KV cache from measured memory, which kv_cache_memory_bytes overrides"
    elif args.num_gpu_blocks_override is not None:  # config/vllm.py _resolve_extensible_kv_cache, 0.34.0
        unsupported = "it sizes the KV cache from measured memory, which num_gpu_blocks_override overrides"
    if asked and unsupported:
        raise RefusedByVLLMError("--enable-extensible-kv-cache", f"enable_extensible_kv_cache: {unsupported}.",
                                 "drop --enable-extensible-kv-cache" + (" or --kv-cache-memory-bytes"
                                                                        if args.kv_cache_memory_bytes is not None else
                                                                        " or --num-gpu-blocks-override"
                                                                        if args.num_gpu_blocks_override is not None else ""),
                                 rule="the extensible KV cache where the config rules it out")
    if asked is False:
        return False, "--no-enable-extensible-kv-cache"
    if unsupported:
        return False, unsupported
    if "under WSL2" in (gpu.total_source or ""):
        return False, "WSL2's driver has no CUDA virtual memory management (vmm_unavailable_reason)"
    return True, ""


def default_utilization(gpu: GPUSpec, args: EngineArgs, rules: VersionRules) -> float:
    """gpu_memory_utilization when none is given: 1.0 with the extensible KV cache, the release's default otherwise
    (CacheConfig.resolved_gpu_memory_utilization, 0.34.0)."""
    on, _ = extensible_kv_cache(gpu, args, rules)
    if on and rules.extensible_gpu_memory_utilization is not None:
        return rules.extensible_gpu_memory_utilization
    return rules.default_gpu_memory_utilization


def startup_used_bytes(args: EngineArgs) -> int:
    """Memory in use on the GPU before vLLM's init snapshot (STARTUP_USED_*): more under tensor / pipeline parallelism."""
    world = (args.tensor_parallel_size or 1) * (args.pipeline_parallel_size or 1)
    return STARTUP_USED_PARALLEL_BYTES if world > 1 else STARTUP_USED_ONE_GPU_BYTES


# vLLM's default max_logprobs (config/model.py ModelConfig, 0.34.0 wheel), which kvplan takes no flag for: the sizing
# warmup requests that many prompt logprobs
DEFAULT_MAX_LOGPROBS = 20


def kv_sizing_warmup_steps(rules: VersionRules, extensible: bool, args: EngineArgs, *, pooling: bool = False,
                           encoder_decoder: bool = False) -> int:
    """The full-budget steps of vLLM's KV-cache sizing warmup (v1/worker/gpu/warmup.py run_kv_cache_sizing_warmup,
    0.34.0 wheel), each a forward over max_num_batched_tokens scheduled tokens with the sampler: 0 where the release
    runs none (rules row kv_cache_sizing_warmup), the pool is not the extensible KV cache's, or the model is a pooling
    (run_mixed_prefill_decode_warmup returns at once) or encoder-decoder one; 1, and a second where prompt logprobs
    (max_logprobs, DEFAULT_MAX_LOGPROBS) are measured on a single prompt because max_model_len < max_num_batched_tokens
    with more than one request slot. (The decode request's 2-token prefill before each, and MLA's context-prefill
    step, are smaller steps not counted.)"""
    if not (rules.kv_cache_sizing_warmup and extensible) or pooling or encoder_decoder:
        return 0
    budget = getattr(args, "max_num_batched_tokens", None)
    max_len = getattr(args, "max_model_len", None)
    if not budget:
        return 1
    split = (DEFAULT_MAX_LOGPROBS != 0 and max_len is not None and min(budget, max_len) < budget
             and (getattr(args, "max_num_seqs", None) or 0) > 1)
    return 2 if split else 1


def plan_kv_sizing_warmup_steps(plan) -> int:
    """kv_sizing_warmup_steps of a plan (a Plan, or any object with its rules, args, model and kv_pool), the one
    reading behind both startup predictions that show the phase: kvplan scaffold's (deploy.spec_from_plan) and
    diagnose's startupProbe advice (diagnose.probe_advice). The pool is the extensible KV cache's where the plan holds
    the pool it measured (kv_pool); the model is a pooling one (ModelSpec.is_pooling) or an encoder-decoder one as
    vLLM tells it (ModelSpec.is_encoder_decoder: run_kv_cache_sizing_warmup returns at once for
    model_runner.is_encoder_decoder, v1/worker/gpu/warmup.py, 0.34.0 wheel). 0 for a plan without such rules."""
    rules = getattr(plan, "rules", None)
    if rules is None or not hasattr(rules, "kv_cache_sizing_warmup"):
        return 0
    model = getattr(plan, "model", None)
    return kv_sizing_warmup_steps(rules, getattr(plan, "kv_pool", None) is not None, getattr(plan, "args", None),
                                  pooling=bool(getattr(model, "is_pooling", False)),
                                  encoder_decoder=bool(getattr(model, "is_encoder_decoder", False)))


def segment_strides(groups, bytes_per_block: int) -> list[int]:
    """The bytes each segment of the reservation adds per block: one segment per layer region under the
    layer-outermost layouts (ExtensibleKVCache._segments; hybrid groups alias the same regions), else one of the
    whole block."""
    pages = {g.page_bytes for g in groups}
    if len(pages) == 1:
        page = next(iter(pages))
        if page and bytes_per_block % page == 0:
            return [page] * (bytes_per_block // page)
    strides = [g.page_bytes for g in groups for _ in range(g.num_layers)]
    return strides if strides and sum(strides) == bytes_per_block else [bytes_per_block]


def physical_bytes_for(num_blocks: int, strides: list[int]) -> int:
    """Bytes a commit of `num_blocks` maps: each segment rounded up to the granule (physical_bytes_for)."""
    return sum(-(-num_blocks * s // GRANULE_BYTES) * GRANULE_BYTES for s in strides)


def blocks_within(num_bytes: float, bytes_per_block: int, strides: list[int], capacity_blocks: int) -> int:
    """The most blocks whose granule-rounded footprint fits in `num_bytes`, at most the capacity (blocks_within)."""
    if num_bytes <= 0 or bytes_per_block <= 0:
        return 0
    lo, hi = 0, min(int(num_bytes // bytes_per_block), capacity_blocks)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if physical_bytes_for(mid, strides) <= num_bytes:
            lo = mid
        else:
            hi = mid - 1
    return lo


@dataclass(frozen=True)
class MeasuredPool:
    """The pool the extensible KV cache commits, with each term of measure_kv_cache_bytes (bytes per rank)."""

    init_free_bytes: int         # total - startup_used: free at vLLM's init snapshot
    startup_used_bytes: int
    non_kv_used_bytes: int       # weights + non_torch + CUDA-graph pool
    transient_peak_bytes: int    # P: activation peak + CUDA-graph estimate
    margin_bytes: int            # max(floor, 0.75 P)
    committed_bytes: int         # the null block's granules, mapped while the sizing measures
    requested_bytes: float
    budget_cap_bytes: float      # requested - non_kv_used - P
    device_cap_bytes: float      # init_free - non_kv_used - margin - P
    available_bytes: float       # the smaller cap, at least 0
    measured_blocks: int         # blocks_within(available)
    num_blocks: int              # min(measured, capacity): the pool
    capacity_blocks: int
    physical_bytes: int          # granule-rounded bytes of the final blocks
    withheld_bytes: float        # free memory an explicit utilization keeps out (the device-bound pool less this one)
    segments: int

    @property
    def free_after_warmup_bytes(self) -> int:
        return self.init_free_bytes - self.non_kv_used_bytes - self.committed_bytes

    def to_dict(self) -> dict:
        return {"sizing": "extensible", "init_free_bytes": self.init_free_bytes,
                "startup_used_bytes": self.startup_used_bytes, "non_kv_used_bytes": self.non_kv_used_bytes,
                "transient_peak_bytes": self.transient_peak_bytes, "margin_bytes": self.margin_bytes,
                "committed_bytes": self.committed_bytes, "free_after_warmup_bytes": self.free_after_warmup_bytes,
                "requested_bytes": self.requested_bytes, "budget_cap_bytes": self.budget_cap_bytes,
                "device_cap_bytes": self.device_cap_bytes, "available_bytes": self.available_bytes,
                "measured_blocks": self.measured_blocks, "capacity_blocks": self.capacity_blocks,
                "num_blocks": self.num_blocks, "physical_bytes": self.physical_bytes,
                "withheld_bytes": self.withheld_bytes, "granule_bytes": GRANULE_BYTES, "segments": self.segments}


def device_shortfall_bytes(pool: dict) -> float:
    """Of a measured pool's terms (MeasuredPool.to_dict), the budget the device cannot hold beside the margin: what
    'requested - non_kv_used - P' exceeds 'init_free - non_kv_used - margin - P' by, else 0."""
    return max(0.0, pool["budget_cap_bytes"] - pool["device_cap_bytes"])


def measured_pool(*, total: int, requested: float, weights: int, non_torch: int, capture: int, activation_peak: int,
                  cudagraph_estimate: int, capacity_bytes: float, capacity_blocks: int, bytes_per_block: int, groups,
                  args: EngineArgs, rocm: bool) -> MeasuredPool:
    """measure_kv_cache_bytes and measure_kv_cache_blocks (v1/worker/extensible_kv_cache.py, 0.34.0) on kvplan's
    terms; `capacity_bytes` is the profile's "Available KV cache memory" (for a pipeline stage: that stage's), which
    holds requested - weights - non_torch - activation_peak - cudagraph_estimate."""
    used = startup_used_bytes(args)
    init_free = total - used
    non_kv = weights + non_torch + capture
    peak = activation_peak + cudagraph_estimate
    margin = max(MARGIN_FLOOR_BYTES_ROCM if rocm else MARGIN_FLOOR_BYTES_CUDA, int(peak * MARGIN_FRACTION))
    strides = segment_strides(groups, bytes_per_block)
    committed = physical_bytes_for(MIN_COMMITTED_BLOCKS, strides)
    # requested - non_kv_used - P, and the device's headroom less the margin and P, over the capacity
    budget_cap = capacity_bytes - capture
    device_cap = budget_cap + (init_free - requested) - margin
    available = max(min(budget_cap, device_cap), 0)
    measured = blocks_within(available, bytes_per_block, strides, max(capacity_blocks, 0))
    final = min(measured, max(capacity_blocks, 0))
    # the pool a budget of all the free memory would give, less this one (the 0.7 < u < 1.0 warning's figure)
    withheld = max(device_cap, 0) - available
    return MeasuredPool(init_free_bytes=init_free, startup_used_bytes=used, non_kv_used_bytes=non_kv,
                        transient_peak_bytes=peak, margin_bytes=margin, committed_bytes=committed,
                        requested_bytes=requested, budget_cap_bytes=budget_cap, device_cap_bytes=device_cap,
                        available_bytes=available, measured_blocks=measured, num_blocks=final,
                        capacity_blocks=capacity_blocks, physical_bytes=physical_bytes_for(final, strides),
                        withheld_bytes=withheld, segments=len(strides))


def cold_start_margin_growth_bytes(pool: MeasuredPool, transient_bytes: int, rocm: bool) -> int:
    """How much more margin a start keeps whose transient peak is `transient_bytes` larger (a compiling first start's
    Inductor copy, plan.cudagraphs.ColdStartLoss.least): max(floor, 0.75 x (P + x)) - max(floor, 0.75 x P)."""
    floor = MARGIN_FLOOR_BYTES_ROCM if rocm else MARGIN_FLOOR_BYTES_CUDA
    peak = pool.transient_peak_bytes
    return max(floor, int((peak + transient_bytes) * MARGIN_FRACTION)) - max(floor, int(peak * MARGIN_FRACTION))


def unified_memory_warning(gpu: GPUSpec, pool: MeasuredPool, rules: VersionRules) -> str | None:
    """On an NVIDIA GPU that shares its memory with the CPU (GB10, Jetson: GPUSpec.form 'integrated'), vLLM reads free
    memory as the OS's available memory (utils/mem_utils.py device_memory_info: psutil's virtual_memory().available where
    Platform.is_integrated_gpu, 0.34.0 wheel), so the extensible KV cache's init_free is what the OS, a desktop and
    every process, vLLM's own API server and engine core included, leave at the init snapshot: kvplan cannot see that,
    and the startup_used it subtracts (STARTUP_USED_*, read on discrete GPUs) is no figure for it. Said, not planned."""
    if gpu.form != "integrated" or (gpu.vendor or "").upper() != "NVIDIA":
        return None
    return (f"unified memory ({gpu.name}): vLLM {rules.version} measures free memory as the memory the OS reports "
            "available (utils/mem_utils.py device_memory_info), and its extensible KV cache takes what the OS, the "
            "desktop and every process on the machine, vLLM's own API server included, leave at startup, less what "
            f"vLLM uses; kvplan cannot see that and assumed only {_format_gib(pool.startup_used_bytes)} GiB in use before "
            "vLLM's snapshot, so each GiB more in use comes off the KV pool. vLLM advises setting "
            "--gpu-memory-utilization on unified-memory devices to leave the CPU its share (config/cache.py "
            "gpu_memory_utilization); plan with the value you will set.")


def _format_gib(x: float) -> str:
    return str(round(x / GIB, 2))


def utilization_text(util: float) -> str:
    """The utilization as vLLM's %s prints a float (0.9 -> '0.9', 1 -> '1.0')."""
    return repr(float(util))


def utilization_warning(pool: MeasuredPool, util_given: float | None) -> str | None:
    """measure_kv_cache_blocks' warning for an explicit gpu_memory_utilization in (0.7, 1.0) that keeps 1 GiB or more
    of free memory out of the KV cache; None otherwise."""
    if util_given is None or not 0.7 < util_given < 1.0 or pool.withheld_bytes < GIB:
        return None
    return (f"gpu_memory_utilization={utilization_text(util_given)} caps this instance at {_format_gib(pool.requested_bytes)} "
            f"GiB, keeping {_format_gib(pool.withheld_bytes)} GiB of free device memory out of the KV cache. The extensible "
            "KV cache is sized from the memory measured after warmup and CUDA graph capture, so vLLM's own use needs no "
            "headroom below 1.0. Leave gpu_memory_utilization unset unless it leaves room for memory vLLM does not "
            "measure: other processes sharing the GPU (including ones that allocate on it later), the CPU on a "
            "unified-memory device, weight transfer buffers for weight updates, or a KV connector's own device buffers.")


def memory_after_warmup_line(pool: MeasuredPool, bytes_per_block: int) -> str:
    """measure_kv_cache_blocks' INFO line; the torch reservation growth and torch's cap are not predicted (…)."""
    return (f"Memory after warmup: {_format_gib(pool.free_after_warmup_bytes)} GiB free, {_format_gib(pool.committed_bytes)} "
            f"GiB committed to the KV cache, {_format_gib(pool.transient_peak_bytes)} GiB kept for transient activations "
            f"({_format_gib(pool.transient_peak_bytes)} GiB allocated at peak, … GiB of torch reservation growth); "
            f"{pool.measured_blocks} KV cache blocks ({_format_gib(pool.measured_blocks * bytes_per_block)} GiB) fit within "
            f"the requested {_format_gib(pool.requested_bytes)} GiB. Torch may reserve up to … GiB.")


def extended_line(pool: MeasuredPool) -> str:
    """extend_kv_cache's INFO line (v1/worker/extensible_kv_cache.py, 0.34.0)."""
    return f"Extended KV cache to {pool.num_blocks} blocks ({pool.physical_bytes / GIB:.2f} GiB)."


def kv_memory_hint(extensible: bool, util: float, after_warmup: bool = False) -> str:
    """How vLLM tells the user to make room for the KV cache in its 0.34 errors (v1/core/kv_cache_planning.py
    _more_kv_cache_memory_hint, 0.34.0 wheel)."""
    if not extensible:
        return ("Try increasing `gpu_memory_utilization` when initializing the engine (this flag also controls CPU "
                "memory reservation on the CPU backend, despite its name).")
    used_by = "the model, its activations, CUDA graphs and warmup" if after_warmup else "the model and its activations"
    graphs = (" CUDA graphs take less with fewer or smaller capture sizes in the compilation config."
              if after_warmup else "")
    if util < 1.0:
        return (f"The KV cache gets what is left after {used_by} within `gpu_memory_utilization`={utilization_text(util)}; "
                "increase it (with the extensible KV cache it defaults to 1.0) or decrease `max_model_len` or "
                f"`max_num_seqs`.{graphs}")
    return (f"The extensible KV cache already takes all device memory left after {used_by}; decrease `max_model_len` "
            f"or `max_num_seqs`, or the model needs a device with more memory.{graphs}")


def fallback_note(rules: VersionRules, why: str, util: float) -> str:
    """The plan's note where a release that defaults to the extensible KV cache sizes this start with the estimate."""
    return (f"KV cache sized from the profile's estimate (vLLM {rules.version} without its extensible KV cache: {why}), "
            f"at gpu_memory_utilization {util}")

