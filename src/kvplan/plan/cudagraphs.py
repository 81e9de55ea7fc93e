"""The model runner, CUDA graphs and the cold start: what vLLM does after the memory profile.

Which GPU model runner a release picks (model_runner_choice; VLLM_USE_V2_MODEL_RUNNER), the capture sizes it
derives or is given (cudagraph_capture_sizes, given_capture_sizes, the spec-decode rounding), the graphs a
start captures (CudaGraphPlan, cudagraph_plan), whether Inductor compiles, and the cold start: the pool a first
start loses to the compile inside the profile (ColdStartLoss, cold_start_pool_loss_bytes) and its warning.
Imports kvplan.plan.args and kvplan.plan.multimodal.
"""

from __future__ import annotations

import bisect
import math

from dataclasses import dataclass, replace
from typing import Iterable

from kvplan.calibration import GIB, MRV2_G_PER
from kvplan.errors import InputError, RefusedByVLLMError
from kvplan.plan.args import (MRV2_ENV, EngineArgs, cdiv, compilation_object, parse_capture_sizes,
                              speculative_object)
from kvplan.plan.multimodal import _mm_limits_all_off
from kvplan.resolve import DTYPE_BYTES, GPUSpec, ModelSpec
from kvplan.versions import VersionRules, release_from
from kvplan.weights import padded_vocab


# --------------------------------------------------------------------------- measured terms


def _full_graph_sizes(sizes: Iterable[int], max_num_seqs: int, q: int = 1) -> int:
    """Model runner v2's FULL uniform-decode graphs: each capture size rounded up to a multiple of the decode query
    length q, kept while it is within max_num_seqs x q tokens and the largest size, deduplicated (q = 1: the sizes up
    to max_num_seqs). v1/worker/gpu/cudagraph_utils.py CudaGraphManager._init_candidates (0.29.0, 0.33.0 wheels)."""
    sizes = list(sizes)
    if not sizes:
        return 0
    top = min(max_num_seqs * q, max(sizes))
    return len({cdiv(s, q) * q for s in sizes if cdiv(s, q) * q <= top})


# vLLM's floor for the per-graph cost of a FULL graph past the sampled ones, "driver overhead per graph"
# (v1/worker/gpu/cudagraph_utils.py _MIN_PER_GRAPH_BYTES, 0.29.0 and 0.33.0 wheels; the V1 runner's profile_cudagraph_memory
# takes the same 1 MiB floor per mode, v1/worker/gpu_model_runner.py, 0.21.0-0.33.0)
MIN_PER_GRAPH_BYTES = 1 << 20
# the FULL graphs model runner v2's profile captures (the largest ones) before extrapolating the rest
# (cudagraph_utils.py _FULL_GRAPH_PROFILING_SAMPLES, 0.29.0 and 0.33.0 wheels)
MRV2_FULL_SAMPLES = 2


def mrv2_graph_estimate_bytes(measured: float, full_graphs: int) -> float:
    """Model runner v2's CUDA-graph estimate (0.29+), given `measured`, the capture its profile measures, and
    `full_graphs`, the FULL graphs the real capture takes (_full_graph_sizes x LoRA cases).

    vLLM (v1/worker/gpu/cudagraph_utils.py profile_cudagraph_memory and _extrapolate_full_graph_memory, read in the
    0.29.0 and 0.33.0 wheels) runs the real capture_model() against a throwaway pool with FULL capture capped at the
    MRV2_FULL_SAMPLES largest FULL graphs: every PIECEWISE graph (and encoder or speculator graph) is captured and
    measured in full, beside the two FULL samples s0 >= s1; it returns measured - (s0 + s1) + s0 + (full - 1) x
    max(s1, 1 MiB). The second sample is the free memory the second FULL graph costs: its activations reuse the pool
    the PIECEWISE captures (larger batches, captured first) and the first FULL graph left, and the runner's persistent
    buffers (inputs, attention and GDN metadata, the hidden-states output) are allocated outside the sampled window,
    so what it measures is the driver's and the allocator's per-graph cost, which nothing in the model or vLLM's
    source gives; kvplan takes vLLM's floor, so the estimate is measured + (full - 2) x 1 MiB (the logged 0.29-0.31
    starts imply 1-5 MiB: tools/fit_calibration.py --estimates)."""
    return measured + max(full_graphs - MRV2_FULL_SAMPLES, 0) * MIN_PER_GRAPH_BYTES


def rocm_graph_units(graphs: "CudaGraphPlan", n_layers: int, max_num_seqs: int, q: int = 1) -> int:
    """The hipGraphs a ROCm capture holds (calibration.py ROCM_G_PER_GRAPH): a PIECEWISE capture size is one graph per
    piece of the split model, decoder layers + 1 (the attention ops split it: config/compilation.py splitting_ops), a
    FULL one a single graph; FULL_AND_PIECEWISE captures every size PIECEWISE and the uniform-decode sizes FULL
    (_full_graph_sizes), FULL_DECODE_ONLY only the latter, FULL every size once. The drafter's PIECEWISE graphs count
    one per drafter layer and graph, as the CUDA formula counts them, its FULL ones (model runner v2:
    CudaGraphPlan.drafter_full_graphs) one each. --enable-lora captures the target's graphs once
    per LoRA case (CudaGraphPlan.lora_cases)."""
    whole = graphs.full_count(max_num_seqs, q)  # none where the mode has no FULL graph
    return (graphs.lora_cases * ((n_layers + 1) * graphs.piecewise_count + whole)
            + graphs.drafter_layers * graphs.drafter_graphs + graphs.drafter_full_graphs)


def mrv2_env_value(args: EngineArgs, rules: VersionRules) -> bool | None:
    """VLLM_USE_V2_MODEL_RUNNER as the release reads it (rules row mrv2_env): bool(int(value)), or None where it is
    unset or the release does not read it (before 0.12; from 0.34, where =1 is the only runner and any other value is
    refused in _env_rules). A value int() refuses is refused in _env_rules."""
    value = args.env_value(MRV2_ENV)
    if value is None or rules.mrv2_env in ("unread", "removed"):
        return None
    try:
        return bool(int(value.strip()))
    except ValueError:
        return None


def _default_model_runner(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> tuple[str, str]:
    """(runner, why) as the release picks it with VLLM_USE_V2_MODEL_RUNNER unset (see model_runner_choice)."""
    mode = rules.model_runner_v2
    if mode == "none":
        return "v1", f"vLLM {rules.version} runs model runner v1 (v2 is opt-in or absent)"
    if args.runner_type == "pooling" or model.is_pooling:
        if rules.mrv2_env == "removed":  # 0.34+: v1/worker/gpu/model_runner.py runs pooling models too (v1/worker/gpu/pool)
            return "v1", (f"a pooling model: vLLM {rules.version} has no model runner v1 and pools on model runner v2, "
                          "whose pooling runner kvplan does not model; it plans model runner v1's terms")
        return "v1", "a pooling model: kvplan plans model runner v1's terms"
    spec = args.speculative
    if spec:
        method = args.speculative_method
        if method in rules.mrv2_v1_spec_methods:
            return "v1", (f"vLLM {rules.version} keeps model runner v1 for speculative method {method!r} "
                          "(model runner v2 does not yet support it)")
    if mode == "all":
        return "v2", f"vLLM {rules.version}'s default for every model"
    listed = bool(set(model.architectures or ()) & set(rules.mrv2_architectures))
    if mode == "dense":
        hybrid = any(l.kind == "recurrent" for l in model.layers)
        v2 = not hybrid and (not model.is_moe or listed)
        return ("v2", f"vLLM {rules.version}'s default for a model neither hybrid nor MoE (or listed)") if v2 else \
            ("v1", f"vLLM {rules.version} keeps model runner v1 for a " + ("hybrid" if hybrid else "MoE") + " model")
    if mode == "listed_dense":
        v2 = listed and not model.is_moe and model.quant is None
        return ("v2", f"vLLM {rules.version}'s default for {'/'.join(model.architectures)}, unquantized dense") if v2 else \
            ("v1", f"vLLM {rules.version} runs model runner v2 by default only for unquantized dense "
                   f"{', '.join(rules.mrv2_architectures)}")
    return ("v2", f"vLLM {rules.version}'s default for {'/'.join(model.architectures)}") if listed else \
        ("v1", f"vLLM {rules.version} runs model runner v2 by default only for {', '.join(rules.mrv2_architectures)}")


def model_runner_choice(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> tuple[str, str]:
    """("v1" or "v2", why): the GPU model runner vLLM builds, which every model-runner-v2 term follows (the sampler
    profile and penalty state, the CUDA-graph estimate and capture, the in-flight window, a drafter beside PP).

    The release's default (config/vllm.py use_v2_model_runner and DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES, read in
    the 0.22-0.33 wheels; rules rows model_runner_v2 and mrv2_architectures): 0.22-0.24 listed architectures of
    generate models (0.22-0.23 unquantized dense only); 0.25-0.28 generate models that are not hybrid and not MoE (or
    listed); 0.29+ every model. In each, a speculative method model runner v2 lacks keeps v1 (rules row
    mrv2_v1_spec_methods: n-gram to 0.31, suffix, a draft model to 0.30).

    VLLM_USE_V2_MODEL_RUNNER (rules row mrv2_env): not read before 0.12; 0.12-0.21 =1 builds model runner v2
    (v1/worker/gpu_worker.py Worker.__init__), =0 is the default; from 0.22 VllmConfig.use_v2_model_runner returns a
    set value before every default check, so =1 forces v2 and =0 forces v1 (features the forced runner lacks are
    refused: check_model_runner_env); from 0.34 model runner v1 is gone (rules row mrv2_env "removed": any value but
    1 is refused, _env_rules). kvplan keeps a pooling model on v1's terms either way (v2's pooling runner is not
    modelled)."""
    default, why = _default_model_runner(model, args, rules)
    forced = mrv2_env_value(args, rules)
    if forced is None:
        return default, why
    runner = "v2" if forced else "v1"
    setting = f"{MRV2_ENV}={args.env_value(MRV2_ENV)}"
    if args.runner_type == "pooling" or model.is_pooling:
        return "v1", f"{setting}; a pooling model: kvplan plans model runner v1's terms (v2's pooling runner is not modelled)"
    if rules.mrv2_env == "opt_in":
        return runner, (f"{setting}: vLLM {rules.version} builds its experimental model runner v2 (opt-in until 0.22; "
                        "kvplan charges v2's terms as read in the 0.22+ wheels)" if forced
                        else f"{setting}, vLLM {rules.version}'s default")
    if runner == default:
        return runner, f"{setting}, as unset would ({why})"
    return runner, f"{setting} (unset, vLLM {rules.version} would run {default}: {why})"


def model_runner(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> str:
    """"v1" or "v2": the GPU model runner vLLM builds for this deployment (model_runner_choice)."""
    return model_runner_choice(model, args, rules)[0]


def check_model_runner_env(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> None:
    """InputError where VLLM_USE_V2_MODEL_RUNNER=1 forces model runner v2 on a deployment vLLM refuses it for
    (VllmConfig._validate_v2_model_runner, config/vllm.py, from 0.20; "VLLM_USE_V2_MODEL_RUNNER does not yet
    support: ..." in 0.20-0.22, "Model Runner V2 does not yet support: ..." from 0.23): a speculative method it lacks
    (0.20-0.21 anything but eagle, eagle3 and mtp, read in the 0.20.0 and 0.21.0 wheels; then rules row
    mrv2_v1_spec_methods) and hybrid/mamba models (has_inner_state, 0.20-0.23; 0.24 only with mamba_cache_mode
    align, gone in 0.25: 0.24.0 and 0.25.1 wheels)."""
    if not mrv2_env_value(args, rules) or args.runner_type == "pooling" or model.is_pooling:
        return
    if rules.mrv2_forced_refusals == "none":  # rules rows mrv2_forced_refusals, mrv2_refusal_*
        return
    unsupported = []
    spec = args.speculative
    if spec:
        method = args.speculative_method
        if rules.mrv2_forced_refusals == "listed":
            lacks = method in rules.mrv2_v1_spec_methods
        else:  # 0.20-0.21: every method but these
            lacks = method not in ("eagle", "eagle3", "mtp")
        if lacks:
            unsupported.append("ngram/ngram_gpu speculative decoding" if method == "ngram" and rules.mrv2_refusal_ngram_gpu
                               else f"speculative method '{method}'")
    if rules.mrv2_refuses_hybrid and any(l.kind == "recurrent" for l in model.layers):
        unsupported.append("hybrid/mamba models")
    if unsupported:
        prefix = rules.mrv2_refusal_prefix
        raise InputError(f"--env {MRV2_ENV}", f"vLLM {rules.version} refuses it: ValueError: {prefix} does not yet "
                         f"support: {', '.join(unsupported)}", f"unset {MRV2_ENV} (or =0), or drop what model runner v2 lacks")


def _step8_grid(top: int) -> list[int]:
    """0.8-0.11.0's grid (V1's SchedulerConfig.cuda_graph_sizes of one value N): 1, 2, 4 and the multiples of 8 up to
    `top`."""
    return [1, 2, 4] + list(range(8, top + 1, 8))


def _size_grid(largest: int, head: int = 0) -> list[int]:
    """vLLM's default grid: 1, 2, 4, multiples of 8 below 256, multiples of 16 from 256, up to `largest`; with `head`
    (--performance-mode interactivity, rules row cudagraph_interactivity_head) every size 1 .. min(largest, head) in
    place of 1, 2, 4 (config/vllm.py VllmConfig._set_cudagraph_sizes, 0.17.0-0.34.0 wheels)."""
    first = list(range(1, min(largest, head) + 1)) if head else [1, 2, 4]
    return sorted({s for s in first + list(range(8, 256, 8)) + list(range(256, largest + 1, 16)) if s <= largest})


def interactivity_head(args: EngineArgs, rules: VersionRules) -> int:
    """The dense head of the default grid (rules row cudagraph_interactivity_head) where --performance-mode
    interactivity is given and the release has the mode; 0 otherwise."""
    return rules.cudagraph_interactivity_head if args.performance == "interactivity" else 0


def _nvidia_cc10(gpu: GPUSpec | None) -> bool:
    """Whether `gpu` is an NVIDIA GPU of compute capability 10.x (B200, GB200, B300)."""
    return gpu is not None and gpu.vendor == "NVIDIA" and bool(gpu.cc) and gpu.cc[0] == 10


def _wide_grids(gpu: GPUSpec | None, rules: VersionRules, given: bool) -> bool:
    """Whether vLLM takes 0.34's wider prefill and decode grids (rules row cudagraph_wide_defaults_cc10): compute
    capability 10.x with no capture sizes given."""
    return bool(rules.cudagraph_wide_defaults_cc10) and _nvidia_cc10(gpu) and not given


def _dynamic_sd_schedule(schedule, max_batch: int, k: int) -> list[int]:
    """vLLM's dense batch size -> K lookup of a num_speculative_tokens_per_batch_size schedule (index 0 unused):
    inclusive (start, end, K) ranges sorted by start, a gap carrying the previous K forward, the tail the last one, each
    K within num_speculative_tokens (v1/spec_decode/dynamic/utils.py validate_and_normalize_dynamic_sd_schedule and
    build_dynamic_sd_schedule_lookup, 0.34.0 wheel). RefusedByVLLMError with vLLM's ValueError for a schedule it
    refuses (the scheduler builds the lookup at startup: v1/core/sched/scheduler.py Scheduler.__init__)."""
    def refuse(message: str) -> None:
        raise RefusedByVLLMError("--speculative-config", message, "give num_speculative_tokens_per_batch_size as "
                                 "[[1, 16, 3], [17, 64, 2], ...]: inclusive batch-size ranges from 1, each with its K",
                                 rule="dynamic speculative decoding schedule")

    if not isinstance(schedule, list):
        refuse("num_speculative_tokens_per_batch_size must be a non-empty list of (range_start, range_end, "
               "num_speculative_tokens) entries.")
    parsed = []
    for entry in schedule:
        if not isinstance(entry, (list, tuple)) or len(entry) != 3:
            refuse("Each num_speculative_tokens_per_batch_size entry must be a 3-item sequence: (range_start, "
                   "range_end, num_speculative_tokens).")
        try:
            start, end, kk = (int(v) for v in entry)
        except (TypeError, ValueError):
            raise InputError("--speculative-config", f"num_speculative_tokens_per_batch_size entry {entry!r} holds "
                             "something other than whole numbers", "e.g. [[1, 16, 3], [17, 256, 1]]") from None
        if start <= 0 or end <= 0:
            refuse(f"Batch-size range ({start}, {end}) must be positive.")
        if start > end:
            refuse(f"Batch-size range start must be <= end for ({start}, {end}, {kk}).")
        if kk < 0:
            refuse("num_speculative_tokens_per_batch_size values must be >= 0.")
        parsed.append((start, end, kk))
    parsed.sort(key=lambda e: e[0])
    previous = 0  # past this check each range starts after the one before ends
    for start, end, _ in parsed:
        if start <= previous:
            refuse("Batch-size ranges must be non-overlapping and sorted.")
        previous = end
    if parsed[0][0] != 1:
        refuse("The first batch-size range must start at 1 so every runtime batch size has a defined schedule.")
    dense = [0] * (max_batch + 1)
    nxt, last = 1, None
    for start, end, kk in parsed:
        if start > nxt and last is not None:
            for b in range(nxt, min(start, max_batch + 1)):
                dense[b] = min(k, last)
        for b in range(start, min(end, max_batch) + 1):  # start >= nxt: the ranges do not overlap
            dense[b] = min(k, kk)
        nxt, last = end + 1, kk
        if nxt > max_batch:
            break
    for b in range(nxt, max_batch + 1):
        dense[b] = min(k, last)
    return dense


def decode_query_lens(args: EngineArgs, rules: VersionRules, query_len: int | None = None) -> dict[int, int]:
    """The uniform-decode query lengths of a runner whose widest is `query_len` (the target's 1 + num_speculative_tokens
    where None), each mapped to the most requests its batches have (config/vllm.py
    VllmConfig.get_decode_cudagraph_query_lens, 0.34.0 wheel): {query_len: max_num_seqs}, unless --speculative-config
    gives num_speculative_tokens_per_batch_size and the release reads it for the capture sizes (rules row
    dynamic_sd_capture_tiers) without data parallelism (which drops it: _maybe_disable_dynamic_sd_for_data_parallel).
    Then each K the dense schedule holds is a tier: query length K + query_len - num_speculative_tokens, up to the
    widest batch drafting K. An empty list is no schedule (vLLM's lookup refuses it and the capture keeps the static
    width; the scheduler builds none)."""
    seqs = int(args.max_num_seqs)
    spec = args.speculative
    k = spec[1] if spec else 0
    q = 1 + k if query_len is None else query_len
    schedule = _dynamic_sd_schedule_given(args, rules)
    if schedule in (None, []) or k <= 0 or q - k <= 0 or (args.data_parallel_size or 1) > 1:
        return {q: seqs}
    dense = _dynamic_sd_schedule(schedule, seqs, k)
    return {kk + q - k: b for b, kk in enumerate(dense) if b > 0}


def _dynamic_sd_schedule_given(args: EngineArgs, rules: VersionRules):
    """--speculative-config's num_speculative_tokens_per_batch_size as given (unchecked), where the release reads it
    for the capture sizes (rules row dynamic_sd_capture_tiers); None where it is not given, there is no speculative
    decoding, or the release does not read it."""
    if rules.dynamic_sd_capture_tiers == "none" or not args.speculative:
        return None
    return (speculative_object(args.speculative_config) or {}).get("num_speculative_tokens_per_batch_size")


def dynamic_sd_dp_warning(args: EngineArgs, rules: VersionRules) -> str:
    """vLLM's warning where data parallelism drops num_speculative_tokens_per_batch_size (config/vllm.py
    VllmConfig._maybe_disable_dynamic_sd_for_data_parallel, 0.29.0 and 0.34.0 wheels); '' elsewhere."""
    if (args.data_parallel_size or 1) <= 1 or _dynamic_sd_schedule_given(args, rules) is None:
        return ""
    spec = args.speculative
    return ("Dynamic speculative decoding is not supported with data parallelism because data-parallel ranks can select "
            "different speculative-token counts, causing DP divergence and deadlocks. Disabling "
            f"num_speculative_tokens_per_batch_size and falling back to static num_speculative_tokens={spec[1]}.")


def decode_capture_shapes_for(sizes: Iterable[int], query_lens: dict[int, int],
                              max_tokens: int) -> list[tuple[int, int]]:
    """The (requests, q) uniform-decode graphs for request counts `sizes` at each query length q of `query_lens`, up to
    its most requests and `max_tokens` tokens, by query length then requests (config/compilation.py
    decode_cudagraph_capture_shapes, 0.34.0 wheel)."""
    sizes = list(sizes)
    shapes = {shape for qq, reqs in query_lens.items() for shape in decode_capture_shapes(sizes, qq, reqs, max_tokens)}
    return sorted(shapes, key=lambda shape: (shape[1], shape[0]))


def cudagraph_capture_sizes(max_num_seqs: int, max_tokens: int, *, num_speculative_tokens: int = 0,
                            rules: VersionRules | None = None, gpu: GPUSpec | None = None, head: int = 0,
                            query_lens: dict[int, int] | None = None) -> list[int]:
    """vLLM's default CUDA-graph capture sizes before any speculative-decoding rounding (vllm/config/vllm.py
    VllmConfig._set_cudagraph_sizes, section 1.5). Without `rules`: the grid up to min(2 x max_num_seqs, 512,
    max_num_batched_tokens) that every release shares without speculative decoding. With them, the release's rows
    (versions.py cudagraph_max_size_spec_query, cudagraph_max_size_cc10, cudagraph_capture_max_tokens,
    cudagraph_uniform_decode_sizes): the decode query length q = 1 + num_speculative_tokens widens the largest size to
    2 x max_num_seqs x q (0.13.0 on), a compute-capability-10.x GPU raises the 512 ceiling to 1024 (0.28.0 on),
    max_num_batched_tokens is appended when within the largest size (0.21.0 on), and the uniform decode sizes n x q
    (0.29.0 on; max_num_seqs itself without speculative decoding, 0.31.0 on). `head`: --performance-mode
    interactivity's every size 1 .. min(largest, head) at the grid's head (0.17.0 on; interactivity_head); the request
    counts of the uniform decode sizes keep 1, 2, 4 (VllmConfig._set_cudagraph_sizes' request_counts). `query_lens`
    (decode_query_lens): dynamic speculative decoding's tiers, each appending n x its query length up to its widest
    batch (VllmConfig._set_cudagraph_sizes decode_tiers, 0.29.0-0.34.0 wheels); None: q up to max_num_seqs."""
    if rules is None:
        return _size_grid(min(max_num_seqs * 2, 512, max_tokens))
    if rules.engine == "v0":  # one FULL graph per batch size up to max_num_seqs padded (versions.py cudagraph_size_grid)
        possible = [1, 2, 4] + [8 * i for i in range(1, 1025)]
        top = next((s for s in possible if s >= max_num_seqs), possible[-1])
        return [s for s in possible if s <= top]
    if rules.cudagraph_size_grid != "grid":  # 0.8-0.11.0: every multiple of 8, within max_num_batched_tokens
        top = 512 if rules.cudagraph_size_grid == "step8_512" else min(max_num_seqs * 2, 512)
        return [s for s in _step8_grid(top) if s <= max_tokens]
    q = 1 + num_speculative_tokens if rules.cudagraph_max_size_spec_query else 1
    ceiling = rules.cudagraph_max_size_cc10 if _nvidia_cc10(gpu) else 512
    base = min(max_num_seqs * q * 2, ceiling)
    largest = min(max_tokens, base)
    sizes = _size_grid(largest, head)
    if rules.cudagraph_capture_max_tokens and max_tokens <= largest:
        sizes.append(max_tokens)
    if rules.cudagraph_uniform_decode_sizes != "none":
        decode: list[int] = []
        if q > 1:
            decode = [n * qq for qq, tier in (query_lens or {q: max_num_seqs}).items()
                      for n in set(_size_grid(min(tier, ceiling)) + [min(tier, ceiling)]) if n * qq <= base]
        elif rules.cudagraph_uniform_decode_sizes == "spec_and_seqs" and max_num_seqs <= base:
            decode = [max_num_seqs]
        sizes += [d for d in decode if d <= max_tokens]
    return sorted(set(sizes))


def _walk_grid(limit: int, step) -> list[int]:
    """Sizes 1 .. `limit`: from each size the next multiple of the largest power of two not above step(size), then
    `limit` itself (config/compilation.py _walk_grid, 0.34.0 wheel)."""
    grid, size = [], 1
    while size < limit:
        grid.append(size)
        stride = 1 << max(0, math.floor(math.log2(max(1.0, step(size)))))
        size = (size // stride + 1) * stride
    return [*grid, limit] if limit else []


def prefill_capture_grid(max_tokens: int, head: int = 0) -> list[int]:
    """0.34's prefill (token-count) grid: 1, 2, 4, every 8 up to 64, four sizes per doubling up to 1024, then every 256
    and every 512 past 7,314 tokens: 54 sizes at 8,192 (config/compilation.py prefill_cudagraph_capture_grid, 0.34.0,
    performance_mode "balanced"). `head` (performance_mode "interactivity", its dense_head): every count 1 .. head below
    max_tokens besides."""
    grid = _walk_grid(max_tokens, lambda t: min(t, max(8, t / 4), 0.07 * max(t, 4096)))
    return sorted({*grid, *(t for t in range(1, head + 1) if t < max_tokens)}) if head else grid


def decode_capture_grid(max_requests: int) -> list[int]:
    """0.34's decode (request-count) grid: every count up to 6, then steps of the largest power of two not above
    0.65 n^(2/3): 64 sizes at 1,024 (config/compilation.py decode_cudagraph_capture_grid, 0.34.0)."""
    return _walk_grid(max_requests, lambda n: 0.65 * n ** (2 / 3))


def varlen_decode_capture_grid(max_tokens: int, dense_head: bool = False) -> list[int]:
    """0.34's token-count grid of adaptive verification's decode graphs: 1, 2, 4 (every count 1-32 with performance_mode
    "interactivity"), 8, then four sizes per doubling up to 1,024, every 128 up to 4,096 and every 256 beyond, up to
    and with `max_tokens` (config/compilation.py varlen_decode_cudagraph_capture_grid, 0.34.0 wheel)."""
    if not max_tokens:
        return []
    grid = set(range(1, 33)) if dense_head else {1, 2, 4}
    low = 8
    grid.add(low)
    while low < 1024:
        grid.update(range(low + low // 4, 2 * low + 1, low // 4))
        low *= 2
    grid.update(range(1024, 4096, 128), range(4096, max_tokens, 256))
    return sorted({s for s in grid if s < max_tokens} | {max_tokens})


def decode_capture_shapes(sizes: Iterable[int], q: int, max_reqs: int, max_tokens: int) -> list[tuple[int, int]]:
    """The (requests, q) uniform-decode graphs for request counts `sizes`: up to min(max_reqs, max_tokens // q)
    requests, the first size past that limit captured at the limit (config/compilation.py
    decode_cudagraph_capture_shapes, 0.34.0)."""
    sizes = sorted(set(sizes))
    limit = min(max_reqs, max_tokens // q)
    if limit < 1:
        return []
    reachable = sizes[:bisect.bisect_left(sizes, limit) + 1]
    return sorted({(min(n, limit), q) for n in reachable})


# the decode token budget of the wide defaults (config/vllm.py _split_cudagraph_capture_sizes sets
# max_decode_cudagraph_capture_tokens to 8192 on compute capability 10.x with no sizes given, 0.34.0 wheel)
WIDE_DECODE_MAX_TOKENS = 8192


@dataclass(frozen=True)
class SplitCaptureSizes:
    """0.34's capture sizes (rules row cudagraph_decode_keys "requests"): what split_capture_sizes returns."""

    prefill: tuple[int, ...]                      # token counts of the mixed-batch (PIECEWISE) graphs
    decode_requests: tuple[int, ...]              # the request counts of the uniform-decode graphs (n)
    decode_shapes: tuple[tuple[int, int], ...]    # the target's uniform-decode graphs (n, q): n x q tokens each
    draft_decode_shapes: tuple[tuple[int, int], ...]  # the drafter's one-token decode graphs (n, 1)
    recorded: tuple[int, ...]                     # vLLM's cudagraph_capture_sizes after the split (their union)
    # adaptive verification: the token counts of the FULL decode graphs uniform decode batches replay instead of the
    # request-count ones (varlen_decode_capture_grid); () without it
    varlen_decode: tuple[int, ...] = ()
    # the token counts of every decode graph within the decode token budget (the target's n x q, the varlen ones and
    # the drafter's): vLLM's decode_token_sizes in _split_cudagraph_capture_sizes
    decode_tokens: tuple[int, ...] = ()

    @property
    def decode_query_lens(self) -> list[int]:
        """The query lengths of the target's uniform-decode graphs, ascending (more than one under dynamic speculative
        decoding's tiers)."""
        return sorted({q for _, q in self.decode_shapes})


def split_decode_requests(shared: Iterable[int], q: int, max_num_seqs: int,
                          query_lens: Iterable[int] | None = None) -> list[int]:
    """0.34's request counts of the uniform-decode graphs off the wide defaults: each shared capture size s gives
    min(ceil(s / q), max_num_seqs) where ceil(s / q) x q is within the largest shared size (config/vllm.py
    VllmConfig._split_cudagraph_capture_sizes, 0.34.0 wheel). Where 0.33 rounded token sizes to multiples of q
    (round_sizes_for_spec_decode, _full_graph_sizes), 0.34 keys the graphs on requests and captures n x q tokens.
    `query_lens`: every query length of dynamic speculative decoding's tiers (decode_query_lens), each rounding the
    shared sizes alike; None: q alone."""
    shared = sorted(set(shared))
    top = shared[-1] if shared else 0
    lens = list(query_lens) if query_lens is not None else [q]
    return sorted({min(cdiv(s, qq), max_num_seqs) for s in shared for qq in lens if cdiv(s, qq) * qq <= top})


def split_capture_sizes(shared: Iterable[int], *, q: int, max_num_seqs: int, max_tokens: int, wide: bool,
                        draft: bool, decode_only: bool, head: int = 0, requests: Iterable[int] | None = None,
                        varlen: bool = False, prefill_sizes: Iterable[int] | None = None,
                        query_lens: dict[int, int] | None = None) -> SplitCaptureSizes:
    """vLLM 0.34's CUDA-graph sizes from the shared ones (cudagraph_capture_sizes / given_capture_sizes), as
    config/vllm.py VllmConfig._split_cudagraph_capture_sizes and v1/worker/gpu/cudagraph_utils.py
    CudaGraphManager._init_candidates (0.34.0 wheel) build them:

    - prefill (PIECEWISE) graphs: `prefill_sizes` (as _prefill_token_sizes resolves them from --compilation-config),
      else the shared token sizes as they are (no rounding to q), or with `wide` (compute
      capability 10.x, no sizes given: rules row cudagraph_wide_defaults_cc10) prefill_capture_grid(min(8192,
      max_num_batched_tokens), every count 1 .. `head` at its start under --performance-mode interactivity
      (interactivity_head);
    - the target's uniform-decode (FULL) graphs: request counts (`requests`, as _decode_request_sizes resolves them
      from --compilation-config; else split_decode_requests, or decode_capture_grid with `wide`), each captured at
      n x q tokens, kept up to min(max_num_seqs, max tokens // q) by decode_capture_shapes;
    - with `varlen` (adaptive verification), the token-keyed FULL decode graphs varlen_decode_capture_grid up to the
      largest request count x q, within the decode token budget (VllmConfig.get_varlen_decode_cudagraph_token_sizes);
    - with `draft` (a drafter whose one-token draft decodes take graphs of their own: rules row
      draft_decode_cudagraph_methods, num_speculative_tokens >= 2), decode_capture_grid(max_num_seqs) at q = 1
      (VllmConfig.get_draft_decode_cudagraph_request_sizes; none where no decode request count is left);
    - recorded: vLLM's cudagraph_capture_sizes, the union of the decode tokens (the target's, the varlen ones and the
      drafter's) and the prefill sizes (the decode ones alone where `decode_only`: a mode with no mixed graphs, sizes
      not given the deprecated way); its largest is vLLM's max_cudagraph_capture_size, which bounds the managers'
      decode graphs (decode_cudagraph_capture_max_tokens).

    The decode token budget is max_num_batched_tokens, within 8,192 with `wide` (max_decode_cudagraph_capture_tokens).
    `max_tokens` is max_num_batched_tokens. `query_lens` (decode_query_lens): the target's decode query lengths, each
    with its most requests (dynamic speculative decoding's tiers); None: {q: max_num_seqs}."""
    shared = sorted(set(shared))
    decode_cap = WIDE_DECODE_MAX_TOKENS if wide else None
    if prefill_sizes is not None:
        prefill = sorted(set(prefill_sizes))
    else:
        prefill = prefill_capture_grid(min(WIDE_DECODE_MAX_TOKENS, max_tokens), head) if wide else list(shared)
    if requests is not None:
        requests = sorted(set(requests))
    else:
        requests = (decode_capture_grid(max_num_seqs) if wide
                    else split_decode_requests(shared, q, max_num_seqs, query_lens))
    budget = min(max_tokens, decode_cap or max_tokens)
    draft_requests = decode_capture_grid(max_num_seqs) if draft and requests else []
    top_tokens = max(requests, default=0) * q
    varlen_sizes = varlen_decode_capture_grid(min(top_tokens, max_tokens, decode_cap or top_tokens),
                                              bool(head)) if varlen else []
    lens = {qq: min(reqs, max_num_seqs) for qq, reqs in (query_lens or {q: max_num_seqs}).items()}
    decode_tokens = ({n * qq for n, qq in decode_capture_shapes_for(requests, lens, budget)}
                     | {n for n, _ in decode_capture_shapes(draft_requests, 1, max_num_seqs, budget)}
                     | set(varlen_sizes))
    recorded = sorted(decode_tokens if decode_only else decode_tokens | set(prefill))
    # the managers bound their decode graphs by the recorded largest size, within the decode budget
    # (config/compilation.py decode_cudagraph_capture_max_tokens)
    top = max(recorded, default=0)
    manager_cap = min(top, decode_cap or top)
    return SplitCaptureSizes(prefill=tuple(prefill), decode_requests=tuple(requests),
                             decode_shapes=tuple(decode_capture_shapes_for(requests, lens, manager_cap)),
                             draft_decode_shapes=tuple(decode_capture_shapes(draft_requests, 1, max_num_seqs, manager_cap)),
                             recorded=tuple(recorded), varlen_decode=tuple(varlen_sizes),
                             decode_tokens=tuple(sorted(decode_tokens)))


def multi_module_mtp(model: ModelSpec, k: int) -> bool:
    """Whether method mtp runs vLLM's multi-module MTP speculator, one MTP module per draft step (config/speculative.py
    SpeculativeConfig.use_multi_module_mtp, 0.34.0 wheel): min(n_predict, num_speculative_tokens) > 1, unless the
    config shares the indexer across MTP iterations (index_share_for_mtp_iteration) or the drafter is MiniMax-M3's."""
    if min(model.mtp_layers, k) <= 1:
        return False
    config = model.text_config or model.raw_config or {}
    return not config.get("index_share_for_mtp_iteration") and model.model_type not in ("minimax_m3", "minimax_m3_mtp")


def _capture_settings(args: EngineArgs, rules: VersionRules) -> tuple[tuple[int, ...] | None, int | None, tuple[str, str]]:
    """(the capture sizes given, the largest size given, the names they were given by): the flags, else the same
    fields of --compilation-config, which the flags only fill in (vllm/engine/arg_utils.py create_engine_config,
    0.11.1-0.33.0: each flag copied into CompilationConfig, refused with "... are mutually exclusive" where the JSON
    sets the field too). --compilation-config's fields are read from 0.11.1, the first release whose CompilationConfig
    has max_cudagraph_capture_size and filters a given list at max_num_batched_tokens (rules row cudagraph_size_grid
    "grid"); before it kvplan keeps the release's default sizes."""
    comp = compilation_object(args.compilation_config) if rules.cudagraph_size_grid == "grid" else {}
    sizes, top = args.capture_sizes_given, args.max_cudagraph_capture_size
    names = ["--cudagraph-capture-sizes", "--max-cudagraph-capture-size"]
    old = args.cuda_graph_sizes_given
    if old is not None and rules.cudagraph_size_grid == "grid":
        # 0.11.1-0.12.x: --cuda-graph-sizes is CompilationConfig.cudagraph_capture_sizes' deprecated alias, copied into
        # it first (vllm/engine/arg_utils.py EngineArgs.create_engine_config, 0.11.1 and 0.12.0 wheels: "cuda_graph_sizes
        # and compilation_config.cudagraph_capture_sizes are mutually exclusive" beside the JSON's field, then
        # "cudagraph_capture_sizes and compilation_config.cudagraph_capture_sizes ..." beside --cudagraph-capture-sizes),
        # so one value N is the one size N, not a grid
        if comp.get("cudagraph_capture_sizes") is not None or sizes is not None:
            first = "cuda_graph_sizes" if comp.get("cudagraph_capture_sizes") is not None else "cudagraph_capture_sizes"
            raise RefusedByVLLMError("--cuda-graph-sizes", f"{first} and compilation_config.cudagraph_capture_sizes are "
                                     "mutually exclusive", "give one of --cuda-graph-sizes, --cudagraph-capture-sizes and "
                                     "--compilation-config's cudagraph_capture_sizes",
                                     rule="capture-size flag and --compilation-config")
        sizes, names[0] = old, "--cuda-graph-sizes"
    for i, (key, flag_value) in enumerate((("cudagraph_capture_sizes", sizes), ("max_cudagraph_capture_size", top))):
        if comp.get(key) is None:
            continue
        if flag_value is not None:
            raise RefusedByVLLMError(names[i], f"{key} and compilation_config.{key} are mutually exclusive",
                                     f"give {names[i]} or --compilation-config's {key}, not both",
                                     rule="capture-size flag and --compilation-config")
        names[i] = f"--compilation-config {key}"
        if key == "cudagraph_capture_sizes":
            try:
                sizes = parse_capture_sizes(comp[key])
            except InputError as exc:
                raise InputError("--compilation-config", f"cudagraph_capture_sizes: {exc.message}", exc.fix) from None
        else:
            v = comp[key]
            if isinstance(v, bool) or not isinstance(v, int):  # one below 1: given_capture_sizes
                raise InputError("--compilation-config", f"max_cudagraph_capture_size must be a whole number, "
                                 f"got {v!r}", 'e.g. {"max_cudagraph_capture_size": 64}')
            top = v
    return sizes, top, (names[0], names[1])


def given_capture_sizes(args: EngineArgs, rules: VersionRules) -> tuple[list[int], str] | None:
    """The capture sizes vLLM takes from --cudagraph-capture-sizes / --max-cudagraph-capture-size (0.11.1 on), before
    any speculative-decoding rounding, and what they came from; None where neither is given (the release's default,
    cudagraph_capture_sizes). As config/vllm.py VllmConfig._set_cudagraph_sizes does it (0.11.1, 0.13.0, 0.21.0,
    0.25.1, 0.29.0, 0.33.0 wheels read):
    - a given list is deduplicated, sorted, and every size above max_num_batched_tokens dropped (with a warning);
      nothing else caps it: not max_num_seqs, not the 512 ceiling, and nothing is added to it (neither
      max_num_batched_tokens nor the uniform decode sizes, which only the default gets);
    - a given largest size alone is capped at max_num_batched_tokens ("Truncating max_cudagraph_capture_size") and
      builds the default grid up to it (1, 2, 4, multiples of 8 below 256, of 16 from 256), with
      max_num_batched_tokens appended where within it (0.21.0 on, rules row cudagraph_capture_max_tokens); it is
      not scaled by the decode query length, and no uniform decode sizes are added (0.29.0 on: only for the default);
    - both given: the largest kept size must equal the given largest, else vLLM raises "customized
      max_cudagraph_capture_size(=N) should be consistent with the max value of cudagraph_capture_sizes(=M)"."""
    if rules.cudagraph_size_grid != "grid":
        whole = _compilation_sizes_before_grid(args, rules)
        if whole is not None:
            return whole
        if args.cuda_graph_sizes_given is not None:
            return _cuda_graph_sizes(args, rules)
    given, top, via = _capture_settings(args, rules)
    if given is None and top is None:
        return None
    mnbt = int(args.max_num_batched_tokens)
    if top is not None and top < 1:
        _refuse_max_size_below_one(top, via[1], rules)
    if given is not None:
        sizes = sorted({s for s in given if s <= mnbt})
        valid = sizes[-1] if sizes else 0
        dropped = sorted({s for s in given if s > mnbt})
        if top is not None and top != valid:
            raise RefusedByVLLMError(
                "--max-cudagraph-capture-size",
                f"customized max_cudagraph_capture_size(={top}) should be consistent with the max value of "
                f"cudagraph_capture_sizes(={valid})",
                "give only one of --cudagraph-capture-sizes and --max-cudagraph-capture-size, or a largest size equal "
                f"to the largest capture size within max_num_batched_tokens {mnbt:,}",
                rule="max_cudagraph_capture_size and cudagraph_capture_sizes")
        source = via[0] + (f" with {via[1]}" if top is not None else "")
        if dropped:
            source += (f"; {', '.join(map(str, dropped))} dropped, above max_num_batched_tokens {mnbt:,} (vLLM warns "
                       "'cudagraph_capture_sizes specified in compilation_config ... is overridden by config')")
        return sizes, source
    largest = min(mnbt, top)
    head = interactivity_head(args, rules)  # the default grid's branch, which a largest size alone still takes
    sizes = _size_grid(largest, head)
    if rules.cudagraph_capture_max_tokens and mnbt <= largest:
        sizes.append(mnbt)
    sizes = sorted(set(sizes))
    source = f"{via[1]} {top}: vLLM's grid up to it" + (f" (every size 1-{min(largest, head)} at its head: "
                                                         "--performance-mode interactivity)" if head else "")
    if sizes and sizes[-1] != top:
        source += (f", truncated to {sizes[-1]:,} (max_num_batched_tokens {mnbt:,}; vLLM warns 'Truncating "
                   "max_cudagraph_capture_size')" if top > mnbt else f", whose largest size is {sizes[-1]:,}")
    return sizes, source


# vLLM's assertion on a largest capture size below 1 where graphs are captured (rules row cudagraph_max_size_below_one)
MAX_SIZE_BELOW_ONE = "Maximum cudagraph size should be greater than or equal to 1 when using cuda graph."


def _refuse_max_size_below_one(top: int, via: str, rules: VersionRules) -> None:
    """A max_cudagraph_capture_size below 1 (`via`: the flag or --compilation-config's field) where the start captures
    CUDA graphs (given_capture_sizes runs only then): RefusedByVLLMError with vLLM's AssertionError where the release
    asserts it (rules row cudagraph_max_size_below_one "assert", 0.11.1 on: config/vllm.py
    VllmConfig._set_cudagraph_sizes, assert min(max_num_batched_tokens, max_cudagraph_capture_size) >= 1, read in the
    0.11.1, 0.14.0, 0.18.1, 0.30.0, 0.33.0 and 0.34.0 wheels, before the check against cudagraph_capture_sizes); an
    InputError where kvplan has not read what the release does. --enforce-eager or cudagraph_mode NONE capture nothing,
    and vLLM then sets the size to 0 itself, unchecked."""
    field = "--compilation-config" if via.startswith("--compilation-config") else "--max-cudagraph-capture-size"
    if rules.cudagraph_max_size_below_one != "assert":
        raise InputError(field, f"max_cudagraph_capture_size must be a positive whole number, got {top}",
                         "e.g. 64 (graphs at batch sizes 1, 2, 4, 8, ... 64)")
    raise RefusedByVLLMError(field, f"AssertionError: {MAX_SIZE_BELOW_ONE}",
                             "give max_cudagraph_capture_size 1 or more (the largest CUDA-graph batch size), or drop it "
                             "for vLLM's default; --enforce-eager (or cudagraph_mode NONE) captures no graph at all",
                             rule="max_cudagraph_capture_size below 1")


def _compilation_sizes_before_grid(args: EngineArgs, rules: VersionRules) -> tuple[list[int], str] | None:
    """--compilation-config's cudagraph_capture_sizes before 0.11.1 (rules row compilation_capture_sizes_whole): the
    list itself, each size once, in place of the engine's own sizes and of --cuda-graph-sizes', not capped; None where
    the JSON gives none. Before 0.6.6 (no release read with the field) the release's default sizes, said so."""
    given = compilation_object(args.compilation_config).get("cudagraph_capture_sizes")
    if given is None:
        return None
    if not rules.compilation_capture_sizes_whole:
        return (cudagraph_capture_sizes(args.max_num_seqs, args.max_num_batched_tokens, rules=rules),
                f"default (--compilation-config's cudagraph_capture_sizes is not read for vLLM {rules.version}: the "
                "oldest release kvplan read with the field is 0.6.6)")
    try:
        sizes = parse_capture_sizes(given)
    except InputError as exc:
        raise InputError("--compilation-config", f"cudagraph_capture_sizes: {exc.message}", exc.fix) from None
    source = "--compilation-config cudagraph_capture_sizes (kept whole before vLLM 0.11.1"
    if args.cuda_graph_sizes_given is not None:
        source += "; it overrides --cuda-graph-sizes"
    return sorted(set(sizes)), source + ")"


def _cuda_graph_sizes(args: EngineArgs, rules: VersionRules) -> tuple[list[int], str]:
    """--cuda-graph-sizes before 0.11.1 (SchedulerConfig.cuda_graph_sizes, read by VllmConfig._set_cudagraph_sizes'
    V1 branch: vllm/config.py 0.9.0.1 and 0.10.0, vllm/config/__init__.py 0.11.0 wheels): one value N captures 1, 2, 4
    and the multiples of 8 up to N, several values are the sizes, sorted; either way only the sizes within
    max_num_batched_tokens are kept (no max_num_seqs, no 512 ceiling). The V0 engine's branch does not read it (its
    sizes follow max_num_seqs): the release's default there, said so. vLLM sorts a list without deduplicating it;
    kvplan counts each size once."""
    if rules.engine == "v0":
        return (cudagraph_capture_sizes(args.max_num_seqs, args.max_num_batched_tokens, rules=rules),
                "default (the V0 engine's sizes follow max_num_seqs; it does not read --cuda-graph-sizes)")
    given = args.cuda_graph_sizes_given
    mnbt = int(args.max_num_batched_tokens)
    if len(given) == 1:
        grid = _step8_grid(given[0])
        source = f"--cuda-graph-sizes {given[0]}: vLLM's sizes 1, 2, 4 and the multiples of 8 up to it"
    else:
        grid, source = list(given), "--cuda-graph-sizes"
    sizes = sorted({s for s in grid if s <= mnbt})
    dropped = sorted({s for s in grid if s > mnbt})
    if dropped:
        source += f"; {len(dropped)} size(s) above max_num_batched_tokens {mnbt:,} dropped"
    return sizes, source


def round_sizes_for_spec_decode(sizes: Iterable[int], q: int) -> list[int]:
    """vLLM's rounding of the capture sizes to multiples of the decode query length q (compilation.py
    CompilationConfig.adjust_cudagraph_sizes_for_spec_decode, 0.11.1-0.33.0 wheels): each size rounded up, kept while
    within the largest size, deduplicated; q itself when none is kept but q fits. Empty where vLLM raises "No valid
    cudagraph sizes after rounding" (q above the largest size)."""
    sizes = list(sizes)
    if q <= 1 or not sizes:
        return sizes
    largest = max(sizes)
    rounded = sorted({cdiv(s, q) * q for s in sizes if cdiv(s, q) * q <= largest})
    return rounded or ([q] if q <= largest else [])


def _spec_rounded_sizes(sizes: list[int], q: int, tp: int, rules: VersionRules) -> tuple[list[int], int]:
    """The capture sizes after the speculative-decoding rounding, and the multiple they were rounded to (1: kept
    unrounded), as the release does it (rows cudagraph_spec_round_with_tp, cudagraph_spec_round_none_kept); a
    RefusedByVLLMError with vLLM's ValueError where it refuses (compilation.py adjust_cudagraph_sizes_for_spec_decode)."""
    multiple = q
    if rules.cudagraph_spec_round_with_tp and tp > 1:
        multiple = max(q, tp)
        if multiple % q or multiple % tp:
            raise RefusedByVLLMError(
                "--speculative-config",
                f"Can't determine cudagraph shapes that are both a multiple of {q} (num_speculative_tokens + 1) required "
                f"by spec-decode and {tp} (tensor_parallel_size) required by sequence parallelism please adjust "
                "num_speculative_tokens or disable sequence parallelism",
                f"vLLM {rules.version} rounds the CUDA-graph sizes to a multiple of both at any TP > 1 (0.12.0 on: only "
                f"with sequence parallelism): give num_speculative_tokens so that 1 + it divides {tp} or is a multiple "
                "of it, use vLLM 0.12.0 or newer, or --enforce-eager", rule="spec-decode capture sizes and TP")
    rounded = round_sizes_for_spec_decode(sizes, multiple)
    if rounded:
        return rounded, multiple
    if rules.cudagraph_spec_round_none_kept == "keep":  # 0.11.1-0.11.2: a warning, the sizes stay as they were
        return list(sizes), 1
    sp = " or tp if sequence parallelism is enabled" if rules.cudagraph_spec_round_none_kept == "raise" else ""
    largest = max(sizes) if sizes else 0
    raise RefusedByVLLMError(
        "--speculative-config",
        f"No valid cudagraph sizes after rounding to multiple of {multiple} (num_speculative_tokens + 1{sp}) please "
        f"adjust num_speculative_tokens ({q - 1}) or max_cudagraph_capture_size ({largest}) or cudagraph_capture_sizes "
        f"({sorted(sizes)})",
        f"the largest capture size, {largest} (2 x max_num_seqs, 512 or max_num_batched_tokens at most), is below "
        f"1 + num_speculative_tokens = {q}: raise --max-num-seqs, lower num_speculative_tokens, or --enforce-eager",
        rule="spec-decode capture sizes after rounding")


_FULL_DECODE_MODES = ("FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")


def _encoder_decoder_mode(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> tuple[str, str]:
    """(the cudagraph_mode vLLM's config holds, why it differs from the given or default one): a pooling model's
    default is PIECEWISE; an encoder-decoder model's (Whisper's) as rules row encoder_decoder_cudagraph_mode says:
    "piecewise_default" (0.11.0: VllmConfig.__post_init__ sets an unset mode to PIECEWISE, not FULL_AND_PIECEWISE,
    for "pooling models and encoder-decoder models"; config/__init__.py), "piecewise_full" (0.11.1-0.12: any mode with
    full graphs becomes PIECEWISE, "Encoder-decoder models do not support full cudagraphs. Overriding cudagraph_mode
    to PIECEWISE."; config/vllm.py), "full_decode_only" (from 0.13: any mode but NONE and FULL_DECODE_ONLY becomes
    FULL_DECODE_ONLY, "Encoder-decoder models do not support <mode>. Overriding cudagraph_mode to FULL_DECODE_ONLY.";
    config/vllm.py, read in 0.13.0, 0.14.0, 0.20.0, 0.33.0 and 0.34.0)."""
    pooling = args.runner_type == "pooling" or model.is_pooling
    if not model.is_encoder_decoder or pooling:
        return args.cudagraph_mode or ("PIECEWISE" if pooling else rules.cudagraph_mode_default), ""
    rule = rules.encoder_decoder_cudagraph_mode
    mode = args.cudagraph_mode or ("PIECEWISE" if rule == "piecewise_default" else rules.cudagraph_mode_default)
    if rule == "piecewise_full" and mode in ("FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"):
        return "PIECEWISE", ("Encoder-decoder models do not support full cudagraphs. Overriding cudagraph_mode to "
                             "PIECEWISE.")
    if rule == "full_decode_only" and mode not in ("NONE", "FULL_DECODE_ONLY"):
        return "FULL_DECODE_ONLY", (f"Encoder-decoder models do not support {mode}. Overriding cudagraph_mode to "
                                    "FULL_DECODE_ONLY.")
    return mode, ""


@dataclass(frozen=True)
class CudaGraphPlan:
    """The CUDA graphs vLLM captures at startup, per rank: the effective cudagraph_mode, the capture sizes (after the
    speculative-decoding rounding where it applies) and the drafter's own PIECEWISE graphs."""

    mode: str | None                   # effective cudagraph_mode (None: no graphs, or V0, which has no mode)
    sizes: tuple[int, ...]             # the capture sizes the target's graphs are captured at
    rounded_to: int                    # the multiple the sizes were rounded to (1: not rounded)
    drafter_layers: int = 0            # decoder layers of the drafter (MTP layers, an EAGLE head, a draft model)
    drafter_graphs: int = 0            # the drafter's PIECEWISE graphs (one per capture size)
    mode_note: str = ""                # why the mode differs from the requested/default one
    source: str = "default"            # where the sizes came from: "default" (the release's own list) or the flags
    lora_cases: int = 1                # --enable-lora: the graphs captured per size (lora_graph_cases)
    # 0.34+ on compute capability 10.x (rules row cudagraph_wide_defaults_cc10): the token counts of the PIECEWISE
    # (prefill) graphs and the count of FULL uniform-decode graphs, which `sizes` (their union, vLLM's
    # cudagraph_capture_sizes) no longer gives; None elsewhere
    piecewise_sizes: tuple[int, ...] | None = None
    full_decode_graphs: int | None = None
    # 0.34+ (rules row cudagraph_decode_keys "requests"): the split sizes behind `sizes` (split_capture_sizes), whether
    # they are compute capability 10.x's wide grids, and the drafter's one-token decode graphs (FULL, its own manager);
    # None / False / 0 before
    split: SplitCaptureSizes | None = None
    wide_grids: bool = False
    drafter_decode_graphs: int = 0
    # 0.34+ with adaptive verification (rules row adaptive_verification "decode_graphs"): the token counts of the FULL
    # decode graphs uniform decode batches replay instead of the request-count ones (varlen_decode_capture_grid); ()
    # elsewhere
    adaptive_sizes: tuple[int, ...] = ()
    # model runner v2 (rules row mrv2_drafter_graph_methods): the drafter's FULL graphs, its draft-prefill manager's
    # and its one-token draft-decode manager's, which the estimate measures in full (drafter_graphs holds its PIECEWISE
    # ones); 0 elsewhere
    drafter_full_graphs: int = 0

    @property
    def largest(self) -> int:
        return max(self.sizes) if self.sizes else 0

    @property
    def piecewise_count(self) -> int:
        """The capture sizes the PIECEWISE graphs are captured at: none where the mode's mixed part is not PIECEWISE.
        FULL runs mixed batches on FULL graphs and FULL_DECODE_ONLY runs them eagerly, so neither captures a PIECEWISE
        graph (config/compilation.py CUDAGraphMode.mixed_mode; the V1 runner's CudagraphDispatcher keys and
        capture_model, 0.21.0-0.33.0; model runner v2's CudaGraphManager._init_candidates, 0.29.0-0.34.0 wheels)."""
        if self.mode in ("FULL", "FULL_DECODE_ONLY"):
            return 0
        return len(self.sizes if self.piecewise_sizes is None else self.piecewise_sizes)

    def full_count(self, max_num_seqs: int, q: int = 1) -> int:
        """Model runner v2's FULL graphs per LoRA case: the 0.34 decode shapes where the plan holds them, else by the
        mode (v1/worker/gpu/cudagraph_utils.py CudaGraphManager._init_candidates, 0.29.0 and 0.33.0 wheels, whose
        profile_cudagraph_memory extrapolates over len(_capture_descs[FULL])): FULL_AND_PIECEWISE and FULL_DECODE_ONLY
        (a separate decode routine, decode mode FULL) the uniform-decode sizes (_full_graph_sizes); FULL (no separate
        routine, mixed mode FULL) one graph per capture size; PIECEWISE, NONE and no mode none (decode and mixed mode
        are the mode itself, so no FULL descriptor is made; _split_graph_plan sets full_decode_graphs 0 for them)."""
        if self.full_decode_graphs is not None:
            return self.full_decode_graphs
        if self.mode in ("FULL_AND_PIECEWISE", "FULL_DECODE_ONLY"):
            return _full_graph_sizes(self.sizes, max_num_seqs, q)
        return len(self.sizes) if self.mode == "FULL" else 0

    @property
    def mrv2_drafter_full_bytes(self) -> int:
        """What model runner v2's CUDA-graph estimate (0.29+) adds for its speculator's FULL graphs
        (drafter_full_graphs), which profile_cudagraph_memory captures and measures in full: vLLM's floor per graph,
        1 MiB each (v1/worker/gpu/cudagraph_utils.py _MIN_PER_GRAPH_BYTES, 0.29.0 and 0.33.0 wheels); 0 where it
        captures none (rules row mrv2_drafter_graph_methods, _mrv2_drafter_captures)."""
        return self.drafter_full_graphs * MIN_PER_GRAPH_BYTES

    @property
    def mrv2_drafter_bytes(self) -> float:
        """The share of model runner v2's CUDA-graph estimate (0.29+) that is its speculator's graphs: the PIECEWISE
        ones at the per-layer rate MRV2_G_PER (drafter_layers x drafter_graphs, which the estimate's measured capture
        holds through graph_layer_sizes: terms.measured_terms) and the FULL ones at mrv2_drafter_full_bytes."""
        return MRV2_G_PER * self.drafter_layers * self.drafter_graphs + self.mrv2_drafter_full_bytes

    def to_dict(self) -> dict:
        out = {"mode": self.mode, "capture_sizes": list(self.sizes), "num_capture_sizes": len(self.sizes),
               "largest": self.largest, "rounded_to_multiple_of": self.rounded_to,
               "drafter_layers": self.drafter_layers, "drafter_graphs": self.drafter_graphs,
               "drafter_shares_graph_pool": bool(self.drafter_graphs), "capture_sizes_source": self.source,
               "lora_cases": self.lora_cases}
        if self.split is not None:  # 0.34+: the graphs behind vLLM's recorded sizes
            out.update(prefill_capture_sizes=list(self.piecewise_sizes or ()),
                       decode_capture_requests=[n for n, _ in self.split.decode_shapes],
                       decode_query_len=max(self.split.decode_query_lens, default=None),
                       full_decode_graphs=self.full_decode_graphs,
                       drafter_decode_requests=[n for n, _ in self.split.draft_decode_shapes],
                       drafter_decode_graphs=self.drafter_decode_graphs)
            lens = self.split.decode_query_lens
            if len(lens) > 1:  # dynamic speculative decoding's tiers: graphs at several query lengths
                out.update(decode_query_lens=lens,
                           decode_capture_tokens=sorted({n * q for n, q in self.split.decode_shapes}))
        if self.adaptive_sizes:
            out["adaptive_verification_sizes"] = list(self.adaptive_sizes)
        if self.drafter_full_graphs:
            out["drafter_full_graphs"] = self.drafter_full_graphs
        return out


def lora_graph_cases(args: EngineArgs, rules: VersionRules, runner: str) -> int:
    """How many graphs --enable-lora captures per capture size and mode (rules rows cudagraph_lora_cases for model
    runner v1, mrv2_lora_cases for v2): one without LoRA, where --compilation-config's cudagraph_specialize_lora is on
    (its default), plus one per active-LoRA count captured, which is only max_loras + 1 while
    LoRAConfig.specialize_active_lora is off (lora/utils.py get_captured_lora_counts, 0.16.0-0.33.0; kvplan takes no
    --specialize-active-lora, which captures powers of 2 up to max_loras besides). So 2 with the defaults from 0.11.1
    (v1) or 0.24.0 (v2); 1 before, without LoRA, and on v1 with cudagraph_specialize_lora false; v2 keeps 2 then
    (v1/worker/gpu/lora_utils.py get_lora_capture_cases, [0, max_loras + 1])."""
    if not args.enable_lora:
        return 1
    mode = rules.mrv2_lora_cases if runner == "v2" else rules.cudagraph_lora_cases
    if mode == "one":
        return 1
    specialize = compilation_object(args.compilation_config).get("cudagraph_specialize_lora", True)
    if specialize in (False, "false", "False", 0):
        return 2 if runner == "v2" else 1
    return 2


def _drafter_decoder_layers(model: ModelSpec, args: EngineArgs) -> int:
    """Decoder layers of the speculative drafter's model (0 for n-gram drafting, which has none)."""
    spec = args.speculative
    if not spec or spec[0] == "ngram":
        return 0
    if spec[0] == "mtp":
        return model.mtp_layers
    return args.draft.num_layers if args.draft is not None else 0


# V1 compiles the model with torch.compile unless --enforce-eager, and the memory profile's run is the model's first
# forward, where the graphs are compiled or loaded from vLLM's compile cache (vllm/compilation/decorators.py,
# v1/worker/gpu_worker.py determine_available_memory): a compiling start counts the compiler's scratch. Two public starts
# of one command, cold then warm: Qwen2.5-Coder-7B RTX 4090 0.23.0, 6.06 -> 6.84 GiB (StellaLee/vllm-experiment
# findings/chunk_20260706_093754 server_dynchunk0/1.log; kvplan 6.69, -2.2 % of the warm); Qwen2.5-7B RTX 5090 0.29.0,
# 11.17 -> 12.91 GiB, +0.98 GiB consumed and +0.76 GiB peak cold (wrbooth/vllm-serve-bench raw/engine-logs
# 2026-09-27-7b-baseline.log and -rerun.log; kvplan +1.1 % of the warm); vLLM issue #54383 (0.28) about 5 %.
# The most KV pool a cold first start (Inductor compiling inside the memory profile) has logged below the warm restart of
# the same command on a discrete GPU: 0.78 GiB (RTX 4090, 0.23.0), 0.99 and 1.05 GiB (RTX 4090, 0.27.1) and 1.74 GiB
# (RTX 5090, 0.29.0) in the public pairs listed at reconcile.py COLD_COMPILE_GAP_GIB and tests/data/SOURCES-logs.md.
# The largest of them, not a fit: what a release without the rule cold_compile_embedding_copy is warned with
# (cold_start_pool_loss_bytes gives the mechanism's bytes where the rule holds).
COLD_START_POOL_LOSS_BYTES = int(1.74 * GIB)


@dataclass(frozen=True)
class ColdStartLoss:
    """How much less KV pool a compiling (cold) first start gets than the warm restart a plan describes, per rank:
    at least `least`, at most `most`; `embedding_copy` is the random embedding table Inductor allocates (0: none)."""

    least: int
    most: int
    embedding_copy: int
    formula: str
    modelled: bool  # False: the release has no rule; `most` is the public pairs' largest (COLD_START_POOL_LOSS_BYTES)

    def to_dict(self, warm_pool: float) -> dict:
        return {"kv_cache_bytes_least": max(0.0, warm_pool - self.most), "kv_cache_bytes_most": max(0.0, warm_pool - self.least),
                "loss_bytes_least": self.least, "loss_bytes_most": self.most, "embedding_copy_bytes": self.embedding_copy,
                "formula": self.formula, "modelled": self.modelled}


def cold_start_pool_loss_bytes(model: ModelSpec, args: EngineArgs, rules: VersionRules, activation_peak: int) -> ColdStartLoss:
    """What a compiling start costs the pool against a warm one (args resolved; activation_peak the profile's own peak:
    the plan's activation term plus the fused-MoE workspace the profile allocates, which the plan books under non-torch,
    so the note names it the profile's peak rather than the activation row's figure).

    Where the rule cold_compile_embedding_copy holds (vLLM 0.11.1+), Inductor's combo-kernel benchmark runs while the
    first forward compiles, inside the memory profile, on rand_strided copies of each benchmarked kernel's buffers
    (torch 2.13 _inductor/codegen/triton.py benchmark_codegened_module, codegen_kernel_benchmark get_args): the
    embedding gather's, a padded_vocab / TP x hidden table in the activation dtype (VocabParallelEmbedding's shard),
    and its max_num_batched_tokens x hidden output. The allocator's peak takes that copy where it passes the forward's
    own peak: `least` = copy + output - activation peak (at least 0). Freed, the copy's segment can stay reserved
    (empty_cache releases only whole free segments, and a later allocation the profile keeps may be carved from it),
    and then the consumed memory (v1/worker/gpu_worker.py determine_available_memory, utils/mem_utils.py
    memory_profiling: free memory before creation minus after profiling) holds it once more: `most` = least + copy.
    Public cold/warm pairs: Qwen3-8B RTX 4090 0.27.1 0.99 GiB (least 1.00: peak 0.19 -> 1.18, non-torch unchanged),
    Qwen2.5-Coder-7B RTX 4090 0.23.0 0.78 (least 0.79), Qwen3-1.7B RTX 4090 0.27.1 1.05 (most 1.08: +0.50 peak, +0.56
    non-torch), Qwen2.5-7B RTX 5090 0.29.0 1.74 (most 1.80: +0.76 peak, +0.98 consumed). A multimodal model's profile
    passes inputs_embeds (gpu_model_runner.py _dummy_run / _prepare_mm_inputs, 0.27.1): no gather is compiled, no copy.
    Where the rule does not hold, 0 to COLD_START_POOL_LOSS_BYTES (the pairs' largest)."""
    if not rules.cold_compile_embedding_copy:
        return ColdStartLoss(0, COLD_START_POOL_LOSS_BYTES, 0, f"vLLM {rules.version}: no mechanism read; up to the public "
                             "cold/warm pairs' largest (RTX 4090 and 5090, vLLM 0.23-0.29)", False)
    inductor = compilation_object(args.compilation_config).get("inductor_compile_config")
    inductor = inductor if isinstance(inductor, dict) else {}
    # vLLM sets both only where neither is given (config/compilation.py __post_init__); Inductor's defaults are off
    given = "combo_kernels" in inductor or "benchmark_combo_kernel" in inductor
    if given and not (inductor.get("combo_kernels") and inductor.get("benchmark_combo_kernel")):
        return ColdStartLoss(0, 0, 0, "inductor_compile_config leaves Inductor's combo-kernel benchmark off: no random "
                             "copies in the profile", True)
    if model.is_multimodal and not _mm_limits_all_off(model, args):
        return ColdStartLoss(0, 0, 0, "a multimodal model's profile passes inputs_embeds: the embedding table is not "
                             "in the compiled graph, so no copy of it is benchmarked", True)
    width = DTYPE_BYTES.get(args.dtype, 2)
    tp = max(1, args.tensor_parallel_size or 1)
    copy = padded_vocab(model) // tp * model.hidden_size * width
    out = (args.max_num_batched_tokens or 0) * model.hidden_size * width
    least = max(0, copy + out - int(activation_peak))
    return ColdStartLoss(least, least + copy, copy,
                         f"a random copy of the embedding table, {padded_vocab(model):,}{f' / {tp}' if tp > 1 else ''} x "
                         f"{model.hidden_size:,} x {width} B = {copy / GIB:.2f} GiB, and its {args.max_num_batched_tokens:,}-token "
                         f"output ({out / GIB:.2f} GiB) in Inductor's combo-kernel benchmark: {least / GIB:.2f} GiB above the "
                         f"profile's own {activation_peak / GIB:.2f} GiB peak, {(least + copy) / GIB:.2f} GiB where the freed "
                         "copy's segment stays reserved", True)


# how fit's cold-first-start warning begins, in both its forms (a given length, --max-model-len -1)
COLD_START_WARNING = "a first start compiles its torch.compile graphs inside the memory profile"
# where the margin comes from, as both forms of the warning say it where no mechanism is modelled for the release
_COLD_START_EVIDENCE = "(public cold/warm pairs, RTX 4090 and 5090, vLLM 0.23-0.29)"


def _cold_start_evidence(loss: ColdStartLoss) -> str:
    """Where a warning's cold-start margin comes from: the mechanism's bytes, or the public pairs' largest."""
    if not loss.modelled:
        return _COLD_START_EVIDENCE
    # where the forward's own peak covers the copy, 'no more peak' (it read '0.00 GiB more peak, up to ...')
    peak = (f"{loss.least / GIB:.2f} GiB more peak" if round(loss.least / GIB, 2) > 0
            else "no more peak than the forward's own")
    return (f"(Inductor's combo-kernel benchmark allocates a random copy of the {loss.embedding_copy / GIB:.2f} GiB "
            f"embedding table inside the profile: {peak}, up to {loss.most / GIB:.2f} GiB "
            "where the freed copy stays reserved; public cold/warm pairs, vLLM 0.23-0.29)")
# and how it begins where VLLM_DISABLE_COMPILE_CACHE=1 makes every start a first one
_KEEP_COMPILE_CACHE = "unset VLLM_DISABLE_COMPILE_CACHE (then only a first start compiles)"
EVERY_START_COLD_WARNING = "VLLM_DISABLE_COMPILE_CACHE=1: every start compiles its torch.compile graphs inside the memory profile"

# how the compile-cache assumption begins; compile_cache_note completes it with what a first start costs the plan
COMPILE_CACHE_NOTE = ("torch.compile: planned as a start that loads its compiled graphs from vLLM's compile cache "
                      "(VLLM_CACHE_ROOT)")


def compile_cache_note(loss: ColdStartLoss | None, given_pool: bool = False) -> str:
    """The compile-cache assumption with what a compiling first start costs this plan's pool (cold_start_pool_loss_bytes),
    or the public pairs' range where the release has no mechanism read. With a given pool (--kv-cache-memory-bytes)
    vLLM still runs the profile run, which compiles, but returns the given bytes without measuring memory
    (v1/worker/gpu_worker.py Worker.determine_available_memory, 0.11+: 'still need a profile run which compiles the
    model', then 'skipped memory profiling'): a first start gets the same pool."""
    if given_pool:
        return (f"{COMPILE_CACHE_NOTE}; a first start compiles them in its profile run, but the KV pool is the one "
                "--kv-cache-memory-bytes gives (vLLM skips the memory profile), so a first start gets the same pool; "
                "keep the cache on a persistent volume for faster restarts")
    if loss is None or not loss.modelled:
        # the top as the warning, preflight, serve.sh and first_start in --json give it (COLD_START_POOL_LOSS_BYTES);
        # it read '0.8-1.7 GiB' beside their 1.74
        cost = (f"has logged up to {COLD_START_POOL_LOSS_BYTES / GIB:.2f} GiB less KV pool (public cold/warm pairs, "
                "0.78-1.74 GiB: RTX 4090 0.23.0 and 0.27.1, RTX 5090 0.29.0)")
    elif loss.most <= 0:
        cost = f"costs the pool nothing kvplan has read ({loss.formula})"
    else:
        cost = (f"leaves {loss.least / GIB:.2f}-{loss.most / GIB:.2f} GiB less KV pool here (kv_cache (first start) in "
                "--explain, first_start in --json)")
    return f"{COMPILE_CACHE_NOTE}; a first start compiles them inside the memory profile and {cost}; keep the cache on a persistent volume"


def block_size_backend(model: ModelSpec, gpu: GPUSpec, block_size: int | None, resolved: EngineArgs,
                       rules: VersionRules) -> tuple[str | None, str | None]:
    """What a given --block-size off the standard kernels' multiple (rules attention_block_multiple) does on NVIDIA's V1
    attention backends: (vLLM's refusal, None) where no backend takes it, (None, a warning) where it runs on
    FlexAttention, (None, None) otherwise. MLA backends have sizes of their own, and a recurrent hybrid's attention
    block size is vLLM's, not the flag's."""
    multiple = rules.attention_block_multiple
    if not (block_size and multiple and block_size % multiple and rules.engine == "v1" and not model.uses_mla
            and "recurrent" not in model.cache_kinds and gpu.vendor.upper() != "AMD"):
        return None, None
    # FlexAttention, last in the list, refuses the block size too from 0.21 (versions.py
    # flex_attention_block_multiple), and an fp8 KV cache from 0.16 (flex_attention_kv_dtypes): then vLLM's
    # backend selection finds none and stops (kvplan's wording of its reasons, not its AttentionSelectorConfig repr;
    # validate_configuration lists the dtype before the block size)
    flex_dtypes, flex_multiple = rules.flex_attention_kv_dtypes, rules.flex_attention_block_multiple
    flex_reasons = ((["kv_cache_dtype not supported"] if flex_dtypes and resolved.kv_cache_dtype not in flex_dtypes
                     else []) + (["block_size not supported"] if flex_multiple and block_size % flex_multiple else []))
    if flex_reasons:
        return (f"No valid attention backend found for cuda with block_size={block_size}, "
                f"kv_cache_dtype={resolved.kv_cache_dtype}. Reasons: FLASH_ATTN, FLASHINFER, TRITON_ATTN: "
                f"[block_size not supported]; FLEX_ATTENTION: [{', '.join(flex_reasons)}]."), None
    # the fallback is said for models FlexAttention serves alike; sliding-window models (gpt-oss's sinks, Gemma 2's
    # soft-capping) may find no backend instead, which kvplan has not read for every family: no claim there
    if model.is_hybrid:
        return None, None
    return None, (f"--block-size {block_size} is not a multiple of {multiple}, which FlashAttention, FlashInfer and "
                  "Triton attention need: vLLM falls back to FlexAttention, much slower (versions.py "
                  f"attention_block_multiple); {multiple}, 32 or 64 keep the fast kernels")


@dataclass(frozen=True)
class ColdStartOutcome:
    """A compiling start's pool, loss.most below the warm one planned, put through the plan's checks
    (_cold_start_outcome): the one reading _cold_start_warning words and Plan.first_start_refused carries."""

    fits: bool                    # the fit check (_fit_check) holds one max_model_len request in the colder pool
    estimated_max_model_len: int  # the longest length the colder pool holds (_fit_check's estimate; auto-fit's length)
    blocks: int                   # the colder pool's blocks
    state_refusal: str | None     # the state-block check's refusal of those blocks (a hybrid's), else None
    shorter: bool                 # --max-model-len -1 serves a shorter length instead of refusing the start
    refused: bool                 # the start is refused


class ColdStartWarning(str):
    """fit's cold-start warning (_cold_start_warning) as Plan.warnings holds it, a str, carrying what preflight's 'first
    start' / 'every start' check says of it as data, so that check reads none of its wording: `head`, the warning up to
    its advice (the check's message); `every_start`, whether every start compiles (VLLM_DISABLE_COMPILE_CACHE=1), not
    only the first; `changes_start`, whether the colder pool refuses the start or (auto-fit) serves a shorter length
    (ColdStartOutcome refused / shorter), not only a smaller pool."""

    def __new__(cls, head: str, rest: str, every_start: bool, changes_start: bool):
        self = super().__new__(cls, head + rest)
        self.head, self.every_start, self.changes_start = head, every_start, changes_start
        return self

    def __getnewargs__(self):  # copy, deepcopy (dataclasses.asdict: preflight --json's request) and pickle keep it whole
        return self.head, str(self)[len(self.head):], self.every_start, self.changes_start


def _more_room(resolved: EngineArgs) -> str:
    """How the cold-start warning's advice makes room for a compiling start: a higher --gpu-memory-utilization, unless
    the plan already claims all of the GPU (1.0, vLLM 0.34's default with its extensible KV cache, which
    kv_memory_hint's message then answers with a shorter max_model_len or fewer sequences)."""
    if (resolved.gpu_memory_utilization or 0) < 1.0:
        return "leave that much more room (a higher --gpu-memory-utilization)"
    return ("leave that much more room (gpu_memory_utilization is already 1.0: fewer or smaller CUDA-graph capture "
            "sizes, a shorter --max-model-len, or a GPU with more memory)")


def _cold_start_warning(resolved: EngineArgs, max_len: int, auto_fit: bool, loss: ColdStartLoss,
                        outcome: ColdStartOutcome) -> ColdStartWarning | None:
    """What a compiling start, with loss.most less pool than planned (cold_start_pool_loss_bytes), does to a plan that
    starts warm: a first start that may be refused (or, under --max-model-len -1, served a shorter length); under
    VLLM_DISABLE_COMPILE_CACHE=1 every start, said whether or not its colder pool still starts. None where nothing
    is to be said (a compiling start that costs the pool nothing included)."""
    if loss.most <= 0:
        return None
    margin = f"{loss.most / GIB:.2f} GiB less KV pool"
    evidence = _cold_start_evidence(loss)
    cold_head = f"{COLD_START_WARNING} and can get up to {margin} than the warm restart planned here {evidence}"
    changes_start = outcome.refused or outcome.shorter
    if resolved.env_on("VLLM_DISABLE_COMPILE_CACHE"):
        # vllm/compilation/backends.py: with the variable set no compiled graph is loaded or saved ("torch.compile
        # cache is disabled"), so the warm start planned here never happens
        head = (f"{EVERY_START_COLD_WARNING}, as a first start does, and such starts can get up to "
                f"{margin} than the warm start planned here {evidence}")
        return ColdStartWarning(
            head, (f"; vLLM's auto-fit (--max-model-len -1) would size max_model_len from that smaller pool on "
                   f"every start: about {outcome.estimated_max_model_len:,} tokens instead of the {max_len:,} planned "
                   f"here; {_more_room(resolved)} or {_KEEP_COMPILE_CACHE}"
                   if outcome.shorter else
                   "; with that much less this pool would not start, so any start may be refused: "
                   f"{_more_room(resolved)} or {_KEEP_COMPILE_CACHE}"
                   if outcome.refused else "; expect the pool below the plan on every start"), True, changes_start)
    if auto_fit and not outcome.fits:
        # --max-model-len -1: vLLM sizes the length from the pool the profile left (section 4, "Auto-fit"), so a
        # colder pool is a shorter length, not a refusal, unless not even one block is left
        shorter = (f"vLLM's auto-fit (--max-model-len -1) would size max_model_len from that smaller pool: about "
                   f"{outcome.estimated_max_model_len:,} tokens on the very first start instead of the {max_len:,} "
                   "planned here" if outcome.estimated_max_model_len > 0
                   else "vLLM's auto-fit (--max-model-len -1) would find no length at all and refuse the very first start")
        return ColdStartWarning(f"{cold_head}; {shorter}", ". The compile cache a start writes (VLLM_CACHE_ROOT, on a "
                                "persistent volume in kvplan scaffold's files) makes later starts warm, at the planned "
                                "length; a length given instead of -1 is the same on every start, but a first start "
                                "whose pool cannot hold it is refused", False, changes_start)
    if not outcome.fits:
        return ColdStartWarning(
            f"{cold_head}; with that much less this pool would not hold one {max_len:,}-token request, so the very "
            "first start may be refused", ". The compile cache a start writes (VLLM_CACHE_ROOT, on a persistent volume "
            "in kvplan scaffold's files; keyed on the model config, max_model_len included) makes later starts warm; "
            f"for the first, {_more_room(resolved)} or expect one retry",
            False, changes_start)
    if outcome.state_refusal:
        return ColdStartWarning(
            f"{cold_head}; with that much less this pool would hold {outcome.blocks:,} Mamba cache blocks, below "
            f"max_num_seqs ({resolved.max_num_seqs}), which vLLM's state-block check refuses, so the very first start "
            "may be refused", ". The compile cache a start writes (VLLM_CACHE_ROOT) makes later starts warm; for the "
            f"first, {_more_room(resolved)}, give --max-num-seqs "
            f"{outcome.blocks} or less, or expect one retry", False, changes_start)
    return None


def inductor_compiles(args: EngineArgs) -> bool:
    """Whether a V1 start compiles the model with TorchInductor inside its memory profile (what a cold first start pays
    and vLLM's compile cache saves): not with --enforce-eager, nor with a --compilation-config mode (or level) NONE / 0,
    'No torch.compile compilation is applied' (config/compilation.py CompilationMode, 0.11+; level 0 NO_COMPILATION
    before), nor with the backend "eager", which 'turns off TorchInductor' (docs/design/debug_vllm_compile.md, 0.11+)."""
    if _eager_forward(args):  # --enforce-eager or mode NONE
        return False
    return str(compilation_object(args.compilation_config).get("backend") or "").strip().lower() != "eager"


@dataclass(frozen=True)
class CaptureRequest:
    """What a start asks of the CUDA-graph capture before vLLM's model runner shapes it (capture_request): the shared
    capture sizes (given_capture_sizes, else the release's default, cudagraph_capture_sizes), where they came from,
    whether they were given, and the cudagraph_mode as the config holds it (--compilation-config's, else the release's
    default, PIECEWISE for pooling models, an encoder-decoder model's as _encoder_decoder_mode overrides it, with
    vLLM's message in mode_note), before any speculative-decoding downgrade or adaptive-verification resolution.
    cudagraph_plan builds the graphs from it and adaptive_verification_refusal checks it."""

    sizes: tuple[int, ...]
    source: str
    given: bool
    mode: str
    mode_note: str = ""
    # the target's decode query lengths, each with its most requests (decode_query_lens), where the default sizes were
    # built from them; None where the sizes were given or no graph is captured (worked out where first needed)
    query_lens: dict[int, int] | None = None
    # 0.34's split sizes with adaptive verification's varlen graphs (_resolved_split), where
    # adaptive_verification_refusal resolved them; None elsewhere
    adaptive_split: SplitCaptureSizes | None = None


def capture_request(model: ModelSpec, gpu: GPUSpec | None, args: EngineArgs, rules: VersionRules) -> CaptureRequest:
    """The CaptureRequest of a deployment (args resolved); no sizes where it captures no CUDA graphs."""
    mode, note = _encoder_decoder_mode(model, args, rules)
    if not args.captures_cuda_graphs:
        return CaptureRequest(sizes=(), source="default", given=False, mode=mode, mode_note=note)
    given = given_capture_sizes(args, rules)
    if given is not None:
        return CaptureRequest(sizes=tuple(given[0]), source=given[1], given=True, mode=mode, mode_note=note)
    lens = decode_query_lens(args, rules)
    sizes = cudagraph_capture_sizes(args.max_num_seqs, args.max_num_batched_tokens,
                                    num_speculative_tokens=args.speculative[1] if args.speculative else 0,
                                    rules=rules, gpu=gpu, head=interactivity_head(args, rules), query_lens=lens)
    return CaptureRequest(sizes=tuple(sizes), source="default", given=False, mode=mode, mode_note=note, query_lens=lens)


def cudagraph_plan(model: ModelSpec, gpu: GPUSpec | None, args: EngineArgs, rules: VersionRules,
                   request: CaptureRequest | None = None) -> CudaGraphPlan:
    """Which CUDA graphs vLLM captures: the effective mode (--compilation-config's, else the release's default,
    PIECEWISE for pooling models; speculative decoding downgrades FULL decode graphs to PIECEWISE where an attention
    backend lacks uniform multi-token decode graphs, _spec_decode_piecewise), the capture sizes
    (cudagraph_capture_sizes), rounded to multiples of 1 + num_speculative_tokens where the release does so for that
    mode and model runner (rows cudagraph_spec_round_modes / _runners), and the drafter's PIECEWISE graphs (row
    drafter_cuda_graphs; a draft_model drafter's from 0.26.0, row draft_model_cuda_graphs), one per capture size, while
    the mode's mixed part is PIECEWISE. `request`: the deployment's capture_request where the caller has it."""
    if not args.captures_cuda_graphs:
        return CudaGraphPlan(mode=None, sizes=(), rounded_to=1)
    request = request or capture_request(model, gpu, args, rules)
    sizes, source = list(request.sizes), request.source
    if not rules.is_v1:
        return CudaGraphPlan(mode=None, sizes=tuple(sizes), rounded_to=1, source=source)
    spec = args.speculative
    k = spec[1] if spec else 0
    mode = requested = request.mode
    note = request.mode_note
    if spec and mode in _FULL_DECODE_MODES:
        why = _spec_decode_piecewise({l.recurrent.kind for l in model.layers if l.recurrent}, args, rules, gpu)
        if why:
            mode, note = "PIECEWISE", f"with speculative decoding {why}, so vLLM downgrades the graphs to PIECEWISE"
    q, rounded_to = 1 + k, 1
    runner = model_runner(model, args, rules)
    # adaptive verification's varlen decode graphs (rules row adaptive_verification "decode_graphs") are 0.34's split
    # sizes, so every release with that row keys its decode graphs on requests (tests/test_adaptive_verification.py)
    if rules.cudagraph_decode_keys == "requests":
        return _split_graph_plan(model, gpu, args, rules, request, mode, requested, note, runner)

    # an empty list (every given size above max_num_batched_tokens) is left as it is: adjust_cudagraph_sizes_for_spec_decode
    # returns at once on no sizes (config/compilation.py, 0.11.1-0.33.0)
    if q > 1 and sizes and mode in rules.cudagraph_spec_round_modes and runner in rules.cudagraph_spec_round_runners:
        sizes, rounded_to = _spec_rounded_sizes(sizes, q, args.tensor_parallel_size, rules)
    layers = _drafter_decoder_layers(model, args)
    # model runner v1's drafter captures its PIECEWISE graphs inside the target's _dummy_run
    # (gpu_model_runner.py _dummy_run calls drafter.dummy_run while capturing), so the V1 estimate's samples
    # (profile_cudagraph_memory's _warmup_and_capture, 0.33.0 wheel) and the real capture hold them: drafter_graphs.
    # Model runner v2's speculators keep CUDA-graph managers of their own, counted below (_mrv2_drafter_captures)
    # a draft_model drafter captures none before 0.26.0: its dispatcher keys are never initialized (row
    # draft_model_cuda_graphs, v1/worker/gpu_model_runner.py _check_and_update_cudagraph_mode)
    drafter_captures = rules.drafter_cuda_graphs and (not spec or spec[0] != "draft_model"
                                                      or rules.draft_model_cuda_graphs)
    graphs = (len(sizes) if drafter_captures and layers and runner == "v1"
              and mode in ("PIECEWISE", "FULL_AND_PIECEWISE") else 0)
    plan = CudaGraphPlan(mode=mode, sizes=tuple(sizes), rounded_to=rounded_to, drafter_layers=layers,
                         drafter_graphs=graphs, mode_note=note, source=source,
                         lora_cases=lora_graph_cases(args, rules, runner))
    if _mrv2_drafter_captures(model, args, rules, runner):
        # the draft-prefill manager takes the target's mode and decode query length; the draft-decode one FULL graphs
        # at q = 1 over the same sizes (CudaGraphManager._init_candidates, decode_query_len=1), with k >= 2
        decode_one = _full_graph_sizes(sizes, args.max_num_seqs, 1) if k >= 2 and mode in _FULL_DECODE_MODES else 0
        plan = replace(plan, drafter_graphs=plan.piecewise_count,
                       drafter_full_graphs=plan.full_count(args.max_num_seqs, q) + decode_one)
    return plan


def _mrv2_drafter_captures(model: ModelSpec, args: EngineArgs, rules: VersionRules, runner: str) -> bool:
    """Whether the deployment's model-runner-v2 speculator captures the graphs rules row mrv2_drafter_graph_methods
    describes (a draft-prefill manager in the target's mode, a one-token draft-decode manager): its method is listed,
    it is not multi-module MTP, and the drafter has decoder layers."""
    spec = args.speculative
    if runner != "v2" or not spec or not _drafter_decoder_layers(model, args):
        return False
    method = args.speculative_method
    return method in rules.mrv2_drafter_graph_methods and not (method == "mtp" and multi_module_mtp(model, spec[1]))


def _split_graph_plan(model: ModelSpec, gpu: GPUSpec | None, args: EngineArgs, rules: VersionRules,
                      request: CaptureRequest, mode: str, requested: str, note: str, runner: str) -> CudaGraphPlan:
    """The graphs of a release that keys its uniform-decode graphs on request counts (rules row cudagraph_decode_keys
    "requests", 0.34+; split_capture_sizes): no speculative-decoding rounding of the sizes
    (adjust_cudagraph_sizes_for_spec_decode is gone with model runner v1); the target's PIECEWISE graphs at the prefill
    sizes; its FULL graphs the uniform-decode shapes n x q where the mode has a separate decode routine
    (FULL_AND_PIECEWISE, FULL_DECODE_ONLY), the prefill sizes where it is FULL, none where it is PIECEWISE
    (CudaGraphManager._init_candidates: num_full_graphs counts the manager's FULL descriptors); the drafter's one-token
    decode graphs in its own FULL_DECODE_ONLY manager where the decode mode is FULL
    (spec_decode/autoregressive/speculator.py init_cudagraph_manager, 0.34.0 wheel). `requested` is the mode vLLM's
    config holds when it records the sizes (before a speculative-decoding downgrade at the runner).

    With adaptive verification on (rules row adaptive_verification "decode_graphs"; adaptive_verification_refusal has
    passed) the decode routine is a separate one (v1/worker/gpu/spec_decode/adaptive_verification.py
    resolve_adaptive_cudagraph_mode: FULL becomes FULL_AND_PIECEWISE, or FULL_DECODE_ONLY where nothing is compiled),
    and uniform decode batches, whose requests verify up to q tokens each, replay token-keyed FULL graphs
    (split_capture_sizes `varlen`) instead of the request-count ones (config/vllm.py
    VllmConfig.get_varlen_decode_cudagraph_token_sizes and _split_cudagraph_capture_sizes; v1/worker/gpu/cudagraph_utils.py
    CudaGraphManager, varlen_decode). The drafter's decode manager takes the resolved mode, whose decode part is FULL,
    so it captures its one-token graphs as without adaptive verification (v1/worker/gpu/model_runner.py
    initialize_kv_cache passes the resolved mode to speculator.init_cudagraph_manager, 0.34.0 wheel)."""
    spec = args.speculative
    k = spec[1] if spec else 0
    q = 1 + k
    wide = _wide_grids(gpu, rules, request.given)
    adaptive = (rules.adaptive_verification == "decode_graphs" and bool(spec) and mode in _FULL_DECODE_MODES
                and adaptive_verification_on(args))
    if adaptive:
        compiled = _compilation_mode(args) not in _NO_COMPILATION_MODES
        resolved = mode if mode == "FULL_DECODE_ONLY" else "FULL_AND_PIECEWISE" if compiled else "FULL_DECODE_ONLY"
        if resolved != mode:
            note = "; ".join(n for n in (note, f"adaptive verification runs decode batches on a routine of their own, so "
                                         f"vLLM resolves cudagraph_mode {mode} to {resolved} (v1/worker/gpu/spec_decode/"
                                         "adaptive_verification.py resolve_adaptive_cudagraph_mode)") if n)
        mode = resolved
    method = args.speculative_method if spec else None
    split = (request.adaptive_split if adaptive and request.adaptive_split is not None
             else _resolved_split(model, gpu, args, rules, request, adaptive))
    if not split.recorded and rules.cudagraph_no_sizes_left == "none":
        # config/vllm.py VllmConfig._split_cudagraph_capture_sizes (0.34.0 wheel): with no token count recorded, vLLM sets
        # cudagraph_mode NONE (logger.info_once), so neither the target nor a speculator captures a graph
        note = "; ".join(n for n in (note, NO_SIZES_LEFT) if n)
        return CudaGraphPlan(mode="NONE", sizes=(), rounded_to=1, drafter_layers=_drafter_decoder_layers(model, args),
                             mode_note=note, source=request.source, lora_cases=lora_graph_cases(args, rules, runner),
                             piecewise_sizes=(), full_decode_graphs=0, split=split, wide_grids=wide)
    mixed = mode != "FULL_DECODE_ONLY"
    if adaptive:
        full = len(split.varlen_decode)
    elif mode in ("FULL_AND_PIECEWISE", "FULL_DECODE_ONLY"):
        full = len(split.decode_shapes)
    else:
        full = len(split.prefill) if mode == "FULL" else 0
    drafter_decode = len(split.draft_decode_shapes) if mode in _FULL_DECODE_MODES else 0
    plan = CudaGraphPlan(mode=mode, sizes=split.recorded, rounded_to=1, drafter_layers=_drafter_decoder_layers(model, args),
                         drafter_graphs=0, mode_note=note, source=request.source,
                         lora_cases=lora_graph_cases(args, rules, runner),
                         piecewise_sizes=split.prefill if mixed else (), full_decode_graphs=full, split=split,
                         wide_grids=wide, drafter_decode_graphs=drafter_decode, adaptive_sizes=split.varlen_decode)
    if _mrv2_drafter_captures(model, args, rules, runner):
        # the draft-prefill manager: the target's graphs, but a draft model's standalone speculator verifies at
        # q = k + 2 (its correction token: standalone_ar/speculator.py init_cudagraph_manager, 0.34.0 wheel)
        prefill_full = full
        if method == "draft_model" and mode in ("FULL_AND_PIECEWISE", "FULL_DECODE_ONLY") and not adaptive:
            top = max(split.recorded, default=0)
            cap = min(top, WIDE_DECODE_MAX_TOKENS) if wide else top
            prefill_full = len(decode_capture_shapes_for(split.decode_requests, decode_query_lens(args, rules, q + 1), cap))
        plan = replace(plan, drafter_graphs=plan.piecewise_count, drafter_full_graphs=prefill_full + drafter_decode)
    return plan


# vLLM's log line where no capture size is left (config/vllm.py VllmConfig._split_cudagraph_capture_sizes, 0.34.0 wheel;
# rules row cudagraph_no_sizes_left "none")
NO_SIZES_LEFT = "No CUDA graph capture sizes are left; setting cudagraph_mode to NONE."


def _resolved_split(model: ModelSpec, gpu: GPUSpec | None, args: EngineArgs, rules: VersionRules,
                    request: CaptureRequest, adaptive: bool) -> SplitCaptureSizes:
    """0.34's split capture sizes as config/vllm.py VllmConfig._split_cudagraph_capture_sizes resolves them (0.34.0
    wheel), refusals included: the prefill and decode sizes from --compilation-config's split keys or the shared
    sizes, the drafter's one-token decode sizes, adaptive verification's varlen ones, and the recorded union. The
    recording keeps the decode tokens alone where the config's cudagraph_mode (before any runner-time resolution:
    resolve_adaptive_cudagraph_mode runs in the model runner, later) has no mixed graphs, FULL_DECODE_ONLY, unless the
    deprecated sizes alone were given; with the deprecated sizes beside split keys the recorded sizes are the shared
    ones (_legacy_with_split_sizes)."""
    spec = args.speculative
    k = spec[1] if spec else 0
    given = request.given
    method = args.speculative_method if spec else None
    draft = (k >= 2 and method in rules.draft_decode_cudagraph_methods
             and not (method == "mtp" and multi_module_mtp(model, k)))
    prefill = _prefill_token_sizes(gpu, args, rules, given)  # vLLM resolves (and refuses) the prefill sizes first
    requests = _decode_request_sizes(gpu, args, rules, given)  # then the decode ones
    lens = request.query_lens if request.query_lens is not None else decode_query_lens(args, rules)
    if requests is None:
        requests = split_decode_requests(request.sizes, args.decode_query_len, int(args.max_num_seqs), lens)
    split = split_capture_sizes(request.sizes, q=1 + k, max_num_seqs=args.max_num_seqs,
                                max_tokens=int(args.max_num_batched_tokens), wide=_wide_grids(gpu, rules, given),
                                draft=draft, decode_only=request.mode == "FULL_DECODE_ONLY" and not given,
                                head=interactivity_head(args, rules), requests=requests, varlen=adaptive,
                                prefill_sizes=prefill, query_lens=lens)
    return _legacy_with_split_sizes(split, args, request)


def sizes_left(args: EngineArgs, graphs: "CudaGraphPlan | None") -> bool:
    """Whether the start captures CUDA graphs: args.captures_cuda_graphs, unless vLLM set cudagraph_mode NONE because no
    capture size was left (rules row cudagraph_no_sizes_left "none": the graph plan's mode is NONE)."""
    return args.captures_cuda_graphs and (graphs is None or graphs.mode != "NONE")


def capture_skipped(model: ModelSpec, args: EngineArgs, rules: VersionRules, runner: str,
                    graphs: "CudaGraphPlan | None") -> str:
    """The warning vLLM's capture_model logs in place of "Graph capturing finished" where it has no graph to capture,
    '' where it logs none. --enforce-eager: '' (v1/worker/gpu_worker.py compile_or_warm_up_model never calls
    capture_model). Model runner v1: where cudagraph_mode is NONE, the user's own or as vLLM sets it (rules row
    capture_none_log_v1); an empty capture list keeps the mode and logs the capture. Model runner v2 (rules row
    mrv2_capture_skipped_log): where no decoder graph is left (cudagraph_mode NONE, or no capture size: 0.33's empty
    list, 0.34's NONE for want of sizes; 0.12-0.16, rules row mrv2_full_graphs_only, also a mode without full graphs,
    PIECEWISE, as the config holds it: model runner v2 reads compilation_config.cudagraph_mode itself, without model
    runner v1's runner-time downgrades), unless it asks for encoder graphs (rules row mrv2_capture_asks_encoder) and
    --compilation-config cudagraph_mm_encoder is true on a multimodal model; else, with graphs to capture, under
    pipeline parallelism in 0.17-0.18 (rules row mrv2_pp_capture_skipped_log)."""
    if args.enforce_eager or not rules.is_v1:
        return ""
    mode_none = args.cudagraph_mode == "NONE" or (graphs is not None and graphs.mode == "NONE")
    if runner != "v2":
        return rules.capture_none_log_v1 if mode_none else ""
    no_full = rules.mrv2_full_graphs_only and _encoder_decoder_mode(model, args, rules)[0] not in _FULL_DECODE_MODES
    if not rules.mrv2_capture_skipped_log or not (mode_none or no_full or (graphs is not None and not graphs.sizes)
                                                  or _decode_only_sizes_left(args, rules, graphs) == 0):
        # needs_capture() is true: 0.17-0.18 still return before capturing under pipeline parallelism
        return rules.mrv2_pp_capture_skipped_log if (args.pipeline_parallel_size or 1) > 1 else ""
    if (rules.mrv2_capture_asks_encoder and model.is_multimodal
            and compilation_object(args.compilation_config).get("cudagraph_mm_encoder") is True):
        return ""
    return rules.mrv2_capture_skipped_log


def _decode_only_sizes_left(args: EngineArgs, rules: VersionRules, graphs: "CudaGraphPlan | None") -> int | None:
    """The capture sizes model runner v2 keeps for cudagraph_mode FULL_DECODE_ONLY (rules row mrv2_decode_only_bound):
    those up to max_num_seqs (0.12-0.16, get_cudagraph_sizes), or from decode_query_len to max_num_seqs x
    decode_query_len (0.18+, CudaGraphManager._init_candidates); None where the row or the mode does not apply."""
    bound = rules.mrv2_decode_only_bound
    if not bound or graphs is None or graphs.mode != "FULL_DECODE_ONLY" or not graphs.sizes:
        return None
    q = args.decode_query_len if bound == "decode_tokens" else 1
    return sum(1 for s in graphs.sizes if q <= s <= args.max_num_seqs * q)


def _span(counts: list[int]) -> str:
    return "none" if not counts else f"{counts[0]:,}" if len(counts) == 1 else f"{counts[0]:,} ... {counts[-1]:,}"


def split_graphs_note(graphs: CudaGraphPlan, rules: VersionRules) -> str:
    """The --explain / assumptions line of a release that keys decode graphs on request counts (split_capture_sizes):
    the target's PIECEWISE and FULL graphs, the drafter's decode graphs and vLLM's recorded sizes."""
    split = graphs.split
    assert split is not None
    lens = split.decode_query_lens
    q = lens[-1] if lens else None
    requests = [n for n, qq in split.decode_shapes if qq == q]
    parts = [f"CUDA graphs: vLLM {rules.version} keys its uniform-decode graphs on request counts and no longer rounds "
             "the capture sizes for speculative decoding (compilation.py adjust_cudagraph_sizes_for_spec_decode is gone; "
             "config/vllm.py VllmConfig._split_cudagraph_capture_sizes, v1/worker/gpu/cudagraph_utils.py "
             "CudaGraphManager._init_candidates): "
             f"{graphs.piecewise_count} PIECEWISE prefill size(s) up to {max(graphs.piecewise_sizes or (0,)):,} tokens"]
    if graphs.full_decode_graphs and graphs.mode != "FULL" and q and len(lens) > 1:
        tiers = ", ".join(f"q {qq}: {_span([n for n, x in split.decode_shapes if x == qq])} requests" for qq in lens)
        parts.append(f"{graphs.full_decode_graphs} FULL uniform-decode graph(s) at dynamic speculative decoding's query "
                     f"lengths, each up to the widest batch that drafts its tokens ({tiers}; config/vllm.py "
                     "VllmConfig.get_decode_cudagraph_query_lens)")
    elif graphs.full_decode_graphs and graphs.mode != "FULL" and q:
        parts.append(f"{graphs.full_decode_graphs} FULL uniform-decode graph(s) of n x {q} tokens for n = {_span(requests)} "
                     f"requests ({requests[0] * q:,} ... {requests[-1] * q:,} tokens)")
    elif graphs.mode == "FULL":
        parts.append(f"{graphs.full_decode_graphs} FULL graph(s) at the prefill sizes (cudagraph_mode FULL)")
    else:
        parts.append(f"no FULL decode graphs ({graphs.mode})")
    drafts = [n for n, _ in split.draft_decode_shapes]
    if graphs.drafter_decode_graphs:
        parts.append(f"the drafter's one-token draft decodes {graphs.drafter_decode_graphs} FULL graph(s) of its own for "
                     f"{_span(drafts)} requests (VllmConfig.get_draft_decode_cudagraph_request_sizes), measured in full with the "
                     "target's in one graph pool (profile_cudagraph_memory) and charged at vLLM's 1 MiB floor each")
    elif drafts:
        parts.append(f"the drafter's decode sizes ({_span(drafts)} requests) are recorded but, with no FULL decode mode, "
                     "not captured")
    parts.append(f"vLLM records cudagraph_capture_sizes as their union: {len(graphs.sizes)} size(s), "
                 f"max_cudagraph_capture_size {graphs.largest:,}")
    return "; ".join(parts)
# the rule name RefusedByVLLMError carries for every adaptive-verification refusal (adaptive_verification_refusal)
ADAPTIVE_VERIFICATION = "speculative decoding's adaptive verification"
# how a refusal's fix begins: the setting to drop
_DROP_ADAPTIVE = 'drop "enable_adaptive_verification" from --speculative-config (or set it false)'


def adaptive_verification_on(args: EngineArgs) -> bool:
    """Whether --speculative-config turns on adaptive verification ("enable_adaptive_verification": true; vLLM's
    default false). A value other than true or false is refused."""
    obj = speculative_object(args.speculative_config) if args.speculative_config else None
    value = (obj or {}).get("enable_adaptive_verification", False)
    if value is None or isinstance(value, bool):
        return bool(value)
    raise InputError("--speculative-config", f"enable_adaptive_verification must be true or false, got {value!r}",
                     '{"method": "mtp", "num_speculative_tokens": 3, "enable_adaptive_verification": true}')


def _capture_cap(comp: dict, key: str, example: int) -> int | None:
    """A --compilation-config cap on the split capture sizes (max_prefill_cudagraph_capture_tokens,
    max_decode_cudagraph_capture_requests): None where not given, else a whole number of at least 0 (CompilationConfig's
    pydantic Field(ge=0), config/compilation.py, 0.34.0 wheel; 0 leaves that grid empty); InputError otherwise."""
    cap = comp.get(key)
    if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 0):
        raise InputError("--compilation-config", f"{key} must be a whole number of at least 0, got {cap!r}",
                         f'e.g. {{"{key}": {example}}}')
    return cap


def _split_list_and_cap(comp: dict, list_key: str, cap_key: str, upper: int, unit: str, cap_example: int,
                        rule: str) -> tuple[list[int] | None, int | None]:
    """A --compilation-config split capture list and its cap, as config/vllm.py VllmConfig._split_cudagraph_capture_sizes
    takes them (0.34.0 wheel): (the list deduplicated, sorted and kept within [1, upper], the rest dropped with vLLM's
    "Dropping ..." warning, or None where not given; the cap, or None). A list above a given cap is refused with
    vLLM's "<list_key> holds N, above <cap_key>=M."; a list of anything but whole numbers, InputError."""
    cap = _capture_cap(comp, cap_key, cap_example)
    listed = comp.get(list_key)
    if listed is None:
        return None, cap
    if not isinstance(listed, list) or any(isinstance(n, bool) or not isinstance(n, int) for n in listed):
        raise InputError("--compilation-config", f"{list_key} must be a list of whole numbers, got {listed!r}",
                         f'{{"{list_key}": [1, 2, 4, 8]}}')
    kept = sorted({n for n in listed if 1 <= n <= upper})
    if cap is not None and kept and kept[-1] > cap:
        raise RefusedByVLLMError("--compilation-config", f"{list_key} holds {kept[-1]}, above {cap_key}={cap}.",
                                 f"give {unit} counts within {cap_key}, or only one of the two", rule=rule)
    return kept, cap


# --compilation-config's split capture-size keys (config/compilation.py CompilationConfig, 0.34.0 wheel)
SPLIT_CAPTURE_KEYS = ("prefill_cudagraph_capture_token_sizes", "max_prefill_cudagraph_capture_tokens",
                      "decode_cudagraph_capture_request_sizes", "max_decode_cudagraph_capture_requests")


def split_key_refusal(args: EngineArgs, rules: VersionRules) -> None:
    """RefusedByVLLMError where --compilation-config sets one of SPLIT_CAPTURE_KEYS and the release's CompilationConfig
    forbids unknown keys (rules row compilation_split_capture_keys "refused", 0.13.0-0.33.0): pydantic's own message
    ("N validation error(s) for CompilationConfig ... Unexpected keyword argument"). Nothing where the release reads
    the keys (0.34.0 on) or drops them unread (before 0.13.0)."""
    if rules.compilation_split_capture_keys != "refused":
        return
    comp = compilation_object(args.compilation_config)
    keys = [k for k in comp if k in SPLIT_CAPTURE_KEYS]
    if not keys:
        return
    lines = "\n".join(f"{k}\n  Unexpected keyword argument" for k in keys)
    raise RefusedByVLLMError(
        "--compilation-config", f"{len(keys)} validation error{'s' if len(keys) > 1 else ''} for CompilationConfig\n"
        f"{lines}", f"drop {', '.join(keys)} (vLLM {rules.version} does not have {'them' if len(keys) > 1 else 'it'}; "
        f"first in vLLM {release_from('compilation_split_capture_keys', 'read')}), or give the sizes as "
        "cudagraph_capture_sizes / max_cudagraph_capture_size",
        rule="split capture sizes before 0.34")


def _prefill_token_sizes(gpu: GPUSpec | None, args: EngineArgs, rules: VersionRules, given: bool) -> list[int] | None:
    """0.34's prefill_cudagraph_capture_token_sizes as config/vllm.py VllmConfig._split_cudagraph_capture_sizes
    resolves them (0.34.0 wheel): --compilation-config's list, deduplicated, sorted and kept within
    [1, max_num_batched_tokens] (vLLM warns "Dropping ..."), refused above a given max_prefill_cudagraph_capture_tokens
    ("... holds N, above max_prefill_cudagraph_capture_tokens=M."); else, with max_prefill_cudagraph_capture_tokens
    given, config/compilation.py prefill_cudagraph_capture_grid(min(it, max_num_batched_tokens)) (its dense head under
    --performance-mode interactivity). None where neither is given: split_capture_sizes keeps the shared sizes, or
    the wide grid up to 8,192 tokens (rules row cudagraph_wide_defaults_cc10)."""
    if rules.compilation_split_capture_keys != "read":
        return None
    mnbt = int(args.max_num_batched_tokens)
    kept, cap = _split_list_and_cap(compilation_object(args.compilation_config), "prefill_cudagraph_capture_token_sizes",
                                    "max_prefill_cudagraph_capture_tokens", mnbt, "token", 2048,
                                    "prefill capture token sizes")
    if kept is not None:
        return kept
    if cap is not None:
        return prefill_capture_grid(min(cap, mnbt), interactivity_head(args, rules))
    return None


def _legacy_with_split_sizes(split: SplitCaptureSizes, args: EngineArgs, request: CaptureRequest) -> SplitCaptureSizes:
    """0.34's rule for the deprecated cudagraph_capture_sizes / max_cudagraph_capture_size (flags or
    --compilation-config) given beside any of SPLIT_CAPTURE_KEYS (config/vllm.py
    VllmConfig._split_cudagraph_capture_sizes, 0.34.0 wheel): the shared sizes as resolved from the deprecated ones
    must be the split sizes' union (prefill and decode tokens) or their decode tokens alone, and are then recorded as
    they are; any other list is refused with vLLM's message. The split unchanged where the deprecated sizes or the
    split keys are not given."""
    comp = compilation_object(args.compilation_config)
    split_keys = [k for k in SPLIT_CAPTURE_KEYS if comp.get(k) is not None]
    if not request.given or not split_keys:
        return split
    shared = sorted(set(request.sizes))
    decode = sorted(split.decode_tokens)
    if shared not in (sorted(set(decode) | set(split.prefill)), decode):
        legacy = "--cudagraph-capture-sizes / --max-cudagraph-capture-size or --compilation-config's " \
                 "cudagraph_capture_sizes / max_cudagraph_capture_size"
        raise RefusedByVLLMError(
            "--compilation-config", "The deprecated cudagraph_capture_sizes and max_cudagraph_capture_size cannot be "
            "combined with the prefill and decode CUDA graph capture sizes; set only the latter.",
            f"drop {legacy} and keep {', '.join(split_keys)}", rule="deprecated and split capture sizes")
    return replace(split, recorded=tuple(shared))


def _decode_request_sizes(gpu: GPUSpec | None, args: EngineArgs, rules: VersionRules, given: bool) -> list[int] | None:
    """0.34's decode_cudagraph_capture_request_sizes as config/vllm.py VllmConfig._split_cudagraph_capture_sizes
    resolves them (0.34.0 wheel), for every mode and with or without adaptive verification: --compilation-config's
    decode_cudagraph_capture_request_sizes, kept within [1, max_num_seqs] (vLLM warns "Dropping ...") and refused
    above a given max_decode_cudagraph_capture_requests ("... holds N, above max_decode_cudagraph_capture_requests=M");
    else, with max_decode_cudagraph_capture_requests given or on compute capability 10.x with no deprecated sizes
    given (rules row cudagraph_wide_defaults_cc10), the request-count grid up to it (within max_num_seqs) or to
    max_num_seqs; else None: the request counts the decode query lengths round the shared sizes up to
    (split_decode_requests, min(cdiv(s, q), max_num_seqs) for each shared size s with cdiv(s, q) x q within the largest),
    which _resolved_split works out from the decode query lengths it carries."""
    seqs = int(args.max_num_seqs)
    kept, cap = _split_list_and_cap(compilation_object(args.compilation_config), "decode_cudagraph_capture_request_sizes",
                                    "max_decode_cudagraph_capture_requests", seqs, "request", 64,
                                    "decode capture request sizes")
    if kept is not None:
        return kept
    if cap is not None or _wide_grids(gpu, rules, given):
        return decode_capture_grid(seqs if cap is None else min(cap, seqs))
    return None


def adaptive_verification_refusal(model: ModelSpec, gpu: GPUSpec | None, args: EngineArgs,
                                  rules: VersionRules) -> CaptureRequest | None:
    """RefusedByVLLMError, with vLLM's own message, where --speculative-config's "enable_adaptive_verification": true
    meets what the release refuses it with (rules rows adaptive_verification, adaptive_verification_own_confidence_methods;
    args resolved). In vLLM's order: SpeculativeConfig.__post_init__ (config/speculative.py) first, 0.29 refusing every
    method but dspark (which kvplan does not plan) and 0.30+ use_local_argmax_reduction beside a method that estimates
    acceptance from the draft logits; then VllmConfig.__post_init__ (config/vllm.py): model runner v1 (0.29-0.33,
    _validate_v1_model_runner) and _validate_adaptive_verification: LoRA, no FULL CUDA graphs (cudagraph_mode NONE or
    PIECEWISE, --enforce-eager, or no capture size left), 0.34's separate decode routine without decode capture sizes,
    pipeline parallelism. Nothing where the release has no such setting or it is off. Returns the capture_request
    it checked (None where it checked none), with the split sizes it resolved at 0.34 (adaptive_split), for
    cudagraph_plan to build the graphs from."""
    check = rules.adaptive_verification
    if check == "unread" or not args.speculative or not adaptive_verification_on(args):
        return
    obj = speculative_object(args.speculative_config)
    method = args.speculative_method

    def refuse(message: str, fix: str) -> None:
        raise RefusedByVLLMError("--speculative-config", message, fix, rule=ADAPTIVE_VERIFICATION)

    if check == "dspark_only":
        refuse("Adaptive verification only supported with DSpark",
               f"{_DROP_ADAPTIVE}: vLLM {rules.version} takes it only with method dspark, which kvplan does not plan")
    if obj.get("use_local_argmax_reduction") is True and method not in rules.adaptive_verification_own_confidence_methods:
        refuse("Adaptive verification estimates per-position acceptance from the draft logits, which "
               "use_local_argmax_reduction never materializes. Disable one of them.",
               f'{_DROP_ADAPTIVE}, or drop "use_local_argmax_reduction"')
    pooling = args.runner_type == "pooling" or model.is_pooling
    if rules.mrv2_env != "removed" and not pooling and model_runner(model, args, rules) == "v1":
        refuse("Model Runner V1 does not support: adaptive draft verification",
               f"{_DROP_ADAPTIVE}: model runner v1 runs this deployment on vLLM {rules.version} "
               f"({model_runner_choice(model, args, rules)[1]}), and only model runner v2 verifies adaptively")
    if args.enable_lora:
        refuse("Adaptive verification is not currently compatible with LoRA", f"{_DROP_ADAPTIVE}, or drop --enable-lora")
    request = capture_request(model, gpu, args, rules)
    mode, shared = request.mode, list(request.sizes)
    # no size left: 0.34 has set cudagraph_mode NONE and refuses; 0.30-0.33 start (adaptive_verification_warning)
    no_sizes_refused = not shared and rules.adaptive_verification_no_sizes != "first_verify_fails"
    if not args.captures_cuda_graphs or mode not in _FULL_DECODE_MODES or no_sizes_refused:
        full = "--compilation-config '{\"cudagraph_mode\": \"FULL_AND_PIECEWISE\"}'"
        how = ("drop --enforce-eager, which captures no CUDA graphs" if args.enforce_eager else
               f"give {full} (cudagraph_mode NONE captures no CUDA graphs)" if not args.captures_cuda_graphs else
               f"give {full} (cudagraph_mode {mode} captures no FULL graph)" if mode not in _FULL_DECODE_MODES else
               f"give capture sizes within max_num_batched_tokens {int(args.max_num_batched_tokens):,} (none is left, "
               "so vLLM sets cudagraph_mode NONE)")
        refuse("Adaptive verification requires full CUDA graphs. Use cudagraph mode FULL, FULL_DECODE_ONLY, or "
               "FULL_AND_PIECEWISE, or disable adaptive verification.", f"{_DROP_ADAPTIVE}, or {how}")
    # the split sizes both 0.34 checks below read (vLLM resolves them, refusals included, before either), resolved once
    # and handed on to cudagraph_plan
    split = (_resolved_split(model, gpu, args, rules, request, True)
             if rules.cudagraph_no_sizes_left == "none" or check == "decode_graphs" else None)
    if rules.cudagraph_no_sizes_left == "none" and not split.recorded:
        # config/vllm.py (0.34.0 wheel): _split_cudagraph_capture_sizes has set cudagraph_mode NONE (no size is left)
        # before _validate_adaptive_verification checks for FULL graphs
        refuse("Adaptive verification requires full CUDA graphs. Use cudagraph mode FULL, FULL_DECODE_ONLY, or "
               "FULL_AND_PIECEWISE, or disable adaptive verification.",
               f"{_DROP_ADAPTIVE}, or give capture sizes that leave some within max_num_batched_tokens "
               f"{int(args.max_num_batched_tokens):,} (token counts) and max_num_seqs {int(args.max_num_seqs):,} "
               f"(request counts): none is left, so vLLM sets cudagraph_mode NONE ('{NO_SIZES_LEFT}')")
    if check == "decode_graphs" and mode in ("FULL_AND_PIECEWISE", "FULL_DECODE_ONLY") and not split.decode_requests:
        refuse("Adaptive verification needs decode CUDA graphs, but decode_cudagraph_capture_request_sizes is empty. "
               "Capture decode graphs, or disable adaptive verification (e.g. on a prefill-only kv_producer instance, "
               "which never verifies drafts).",
               f"{_DROP_ADAPTIVE}, or capture sizes of {args.decode_query_len} tokens or more (1 + "
               "num_speculative_tokens: a decode graph holds whole requests of that many tokens)")
    if (args.pipeline_parallel_size or 1) > 1:
        refuse("Adaptive verification is not currently compatible with pipeline parallelism",
               f"{_DROP_ADAPTIVE}, or serve without pipeline parallelism (--pipeline-parallel-size 1)")
    return request if split is None else replace(request, adaptive_split=split)


def adaptive_verification_warning(args: EngineArgs, rules: VersionRules, graphs: CudaGraphPlan) -> str:
    """What a start with adaptive verification and no CUDA-graph capture size left meets where the release starts it
    (rules row adaptive_verification_no_sizes "first_verify_fails", 0.30-0.33): model runner v2 skips the capture and
    with it the step-cost profile, so the first step that verifies drafts fails with vLLM's AssertionError; '' elsewhere
    (adaptive_verification_refusal has passed: model runner v2, FULL graphs configured)."""
    if (rules.adaptive_verification_no_sizes != "first_verify_fails" or not args.speculative
            or not adaptive_verification_on(args) or not args.captures_cuda_graphs or graphs.sizes):
        return ""
    mnbt = int(args.max_num_batched_tokens)
    return (f"adaptive verification with no CUDA-graph capture size left (none within max_num_batched_tokens {mnbt:,}): "
            f"vLLM {rules.version} starts, but model runner v2 captures no graph and so skips the step-cost profile "
            "adaptive verification prices its drafts with, and the first step that verifies drafts fails: AssertionError "
            "at 'assert self.cost_tables is not None' (v1/worker/gpu/spec_decode/adaptive_verification.py "
            f"AdaptiveVerificationManager.get_num_tokens). {_DROP_ADAPTIVE[0].upper()}{_DROP_ADAPTIVE[1:]}, or give "
            f"capture sizes within max_num_batched_tokens {mnbt:,}")


# a --compilation-config mode (or level) that compiles nothing: CompilationMode.NONE (0.11+), level 0 NO_COMPILATION
_NO_COMPILATION_MODES = ("0", "NONE", "NO_COMPILATION")


def _compilation_mode(args: EngineArgs) -> str | None:
    """The --compilation-config mode (or, before 0.11, level) given, upper-cased; None where none is given."""
    cfg = compilation_object(args.compilation_config)
    mode = cfg.get("mode", cfg.get("level"))
    return None if mode is None else str(mode).strip().upper()


def _eager_forward(args: EngineArgs) -> bool:
    """Whether V1 runs the profile forward eagerly, op by op (--enforce-eager, or a --compilation-config mode NONE), so
    each Python-level tensor lives until its name is dropped; compiled (Inductor) graphs free a tensor after its last
    use and fuse the activation with its quantization."""
    return args.enforce_eager or _compilation_mode(args) in _NO_COMPILATION_MODES


_FP8_KV = ("fp8", "fp8_e4m3", "fp8_e5m2")


def _spec_decode_piecewise(recurrent_kinds: Iterable[str | None], args: EngineArgs, rules: VersionRules,
                           gpu: GPUSpec | None) -> str | None:
    """Why speculative decoding leaves no FULL decode graphs (an attention backend below UNIFORM_BATCH graph support;
    rules spec_decode_piecewise_*), or None where kvplan expects vLLM to keep them. `recurrent_kinds`: the model's
    recurrent layer kinds (mamba1, mamba2, gdn, linear)."""
    kinds = sorted({k for k in recurrent_kinds if k in rules.spec_decode_piecewise_recurrent_kinds})
    if kinds:
        return (f"the {', '.join(kinds)} recurrent layers' metadata builder supports single-token decode graphs only "
                "(UNIFORM_SINGLE_TOKEN_DECODE, v1/attention/backends/linear_attn.py)")
    kv = (args.kv_cache_dtype or "auto").lower()
    if (gpu is not None and gpu.vendor == "NVIDIA" and gpu.cc and gpu.cc[0] in rules.spec_decode_piecewise_fp8_kv_cc_majors
            and kv in _FP8_KV):
        return (f"the {kv} KV cache on {gpu.name} (compute capability {gpu.compute_capability}) is served by FlashInfer "
                "(FlashAttention takes fp8 KV only on Hopper) without TRTLLM kernels, whose graphs cover single-token "
                "decode only (UNIFORM_SINGLE_TOKEN_DECODE)")
    return None
