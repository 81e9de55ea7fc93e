"""vLLM's --enable-sleep-mode (ModelConfig.enable_sleep_mode, vLLM PR #11743): the weights and the KV cache are
allocated in the CuMem allocator's pools (vllm/device_allocator/cumem.py CuMemAllocator, tags "weights" and
"kv_cache"), so that sleep() can offload the weights to CPU memory and discard the KV cache, and wake_up() map them
again. RL frameworks (verl, OpenRLHF) start vLLM this way.

What it changes at startup (facts per release in versions.py: rows sleep_mode_*):
- nothing in the budget: the pools are PyTorch MemPools over a pluggable allocator, so every tensor in them goes
  through the caching allocator (its 2 MiB blocks, its allocated-bytes counters), and "Model loading took"
  (max_memory_allocated), the profile's torch peak and the non-torch memory read them as without the pools
  (vllm/utils.py / utils/mem_utils.py memory_profiling, 0.7.2-0.26.0; total_consumed from mem_get_info from 0.27.0).
  The KV cache's blocks are counted before the pool allocates them (gpu_worker.py initialize_from_config).
- vLLM's refusals: a platform without the allocator (rows sleep_mode_vendors, sleep_mode_platform_refusal) and, in
  0.8.0-0.20.0, expandable_segments:True in PYTORCH_CUDA_ALLOC_CONF (row sleep_mode_expandable).
- from 0.20.1, expandable segments are turned off inside the pools, so the weights keep the 2 MiB-block rounding
  (sleep_pool_keeps_block_rounding, used by plan.planner).
- risks kvplan does not size, said as warnings: the weights outside the pool in 0.14.0-0.16.x, a checkpoint whose
  weights are converted after loading, whose freed pool segments vLLM's accounting misreads (0.11-0.26) or the pool
  keeps (pytorch#159674), and expandable segments in 0.7.x, which vLLM does not check yet.
- vLLM 0.34's extensible KV cache stays on under sleep mode and outside the pools (the note says so).
"""

from __future__ import annotations

from kvplan.errors import RefusedByVLLMError
from kvplan.plan.args import EngineArgs
from kvplan.resolve import GPUSpec, QuantSpec
from kvplan.versions import VersionRules, first_release_where

# the variable, and the exact text, vLLM's CuMemAllocator.__init__ tests (cumem.py, 0.8.0-0.20.0 wheels)
_CUMEM_ENV, _EXPANDABLE = "PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"


def sleep_mode_refusal(gpu: GPUSpec, args: EngineArgs, rules: VersionRules) -> None:
    """RefusedByVLLMError, with vLLM's own text, where vLLM `rules.version` refuses --enable-sleep-mode: on a GPU
    whose platform its build has no sleep mode for, or with expandable segments its CuMemAllocator asserts against."""
    if not args.enable_sleep_mode:
        return
    vendor = (gpu.vendor or "NVIDIA").upper()
    if vendor not in {v.upper() for v in rules.sleep_mode_vendors}:
        platform = "ROCm" if vendor == "AMD" else vendor
        since = first_release_where("sleep_mode_vendors", lambda vendors: "AMD" in vendors)
        later = (f", or plan with --vllm-version {since} or later (its ROCm build takes it)"
                 if vendor == "AMD" and since else "")
        raise RefusedByVLLMError("--enable-sleep-mode", f"{rules.sleep_mode_platform_refusal} (vLLM {rules.version} "
                                 f"on {gpu.name}, a {platform} GPU: ModelConfig refuses it before loading anything)",
                                 "drop --enable-sleep-mode" + later, rule="sleep mode platform")
    if rules.sleep_mode_expandable == "refused" and _EXPANDABLE in (args.env_value(_CUMEM_ENV) or ""):
        off_since = first_release_where("sleep_mode_expandable", lambda v: v == "off_in_pool")
        raise RefusedByVLLMError("--env", "Expandable segments are not compatible with memory pool. Please track "
                                 "https://github.com/pytorch/pytorch/issues/147851 for the latest updates. (vLLM "
                                 f"{rules.version}'s CuMemAllocator asserts it with --enable-sleep-mode and "
                                 f"{_CUMEM_ENV}={args.env_value(_CUMEM_ENV)}, before loading the weights)",
                                 f"remove expandable_segments:True from {_CUMEM_ENV}, drop --enable-sleep-mode, or plan "
                                 f"with --vllm-version {off_since} or later (its pool turns expandable segments off "
                                 "inside itself)", rule="sleep mode with expandable segments")


def sleep_pool_keeps_block_rounding(args: EngineArgs, rules: VersionRules) -> bool:
    """Whether the weights load in the CuMem pool with expandable segments turned off (vLLM >= 0.20.1), so that
    expandable_segments:True does not change their block rounding."""
    return (args.enable_sleep_mode and rules.sleep_mode_expandable == "off_in_pool"
            and rules.sleep_mode_weights_in_pool and args.expandable_segments)


def sleep_mode_says(args: EngineArgs, rules: VersionRules, quant: QuantSpec | None,
                    extensible: bool = False) -> tuple[list[str], list[str]]:
    """(notes, warnings) of --enable-sleep-mode: that the budget is unchanged and why, and the risks kvplan does not
    size. `extensible`: vLLM 0.34's extensible KV cache is on, which sleep mode leaves on (config/vllm.py
    _resolve_extensible_kv_cache names no sleep mode); it lives outside the CuMem pool and sleep() releases its
    physical memory itself (gpu_worker.py Worker.sleep, 0.34.0 wheel)."""
    if not args.enable_sleep_mode:
        return [], []
    v = rules.version
    pooled = " and ".join((["weights"] if rules.sleep_mode_weights_in_pool else [])
                          + ([] if extensible else ["KV cache"]))
    measure = ("total_consumed: the free memory lost, from mem_get_info" if rules.budget_counts_runner_buffers else
               "weights + torch peak + non-torch memory")
    notes = [f"sleep mode: {pooled} in vLLM's CuMem pools (device_allocator/cumem.py CuMemAllocator); no change to the "
             f"budget in vLLM {v}: the pools allocate through PyTorch's caching allocator, so the weights, the "
             f"profiled peak and the budget ({measure}) count them as without sleep mode"
             + ("; the extensible KV cache stays outside the pools (sleep() releases its pages itself)" if extensible
                else ", and the KV blocks are counted before the pool allocates them")]
    warns: list[str] = []
    if rules.sleep_mode_expandable == "unchecked" and _EXPANDABLE in (args.env_value(_CUMEM_ENV) or ""):
        warns.append(f"--enable-sleep-mode with expandable_segments:True: vLLM {v} does not check it, but PyTorch's "
                     "MemPool does not support expandable segments (pytorch/pytorch#147851), which vLLM 0.8.0-0.20.0 "
                     f"refuse at startup; remove it from {_CUMEM_ENV}")
    if not rules.sleep_mode_weights_in_pool:
        warns.append(f"--enable-sleep-mode: vLLM {v} loads the weights outside the CuMem pool (gpu_worker.py load_model "
                     "enters only the second of `with pool and config:`; fixed in 0.17.0, vLLM PR #32947), so "
                     "sleep() frees the KV cache but keeps the weights on the GPU")
    if quant is not None and rules.sleep_mode_weights_in_pool:
        if rules.sleep_mode_pool_trim and not rules.budget_counts_runner_buffers:
            warns.append(f"--enable-sleep-mode with a quantized checkpoint on vLLM {v}: segments of the weights pool "
                         "freed while the weights are converted (a repack, online quantization) are unmapped behind "
                         "PyTorch's memory_reserved(), which the budget reads, so vLLM can size the KV pool larger than "
                         "the GPU holds and run out of memory (vLLM issues #37096, #40256: 5.16 GiB of KV cache with "
                         "sleep mode, 3.17 without); kvplan plans the budget without sleep mode's error")
        elif rules.budget_counts_runner_buffers:
            warns.append(f"--enable-sleep-mode with a quantized checkpoint on vLLM {v}: blocks freed while the weights "
                         "are converted stay in the weights pool, which the load cannot reuse (pytorch#159674; vLLM "
                         "issues #43951, #48680: out of memory while loading), and what the pool keeps is charged to "
                         "the budget; kvplan plans without it")
    return notes, warns
