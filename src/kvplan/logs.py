"""Read a vLLM startup log of any era, and the one table of log signatures.

`parse_log(source)` streams a log (a path, bytes, a file object or lines) and returns
a frozen `StartupLog`: the version, the engine arguments, every memory figure vLLM
printed, the warnings that change what the deployment does, and every known error.
`StartupLog.to_record()` writes it in the startup-record format
(`../shared/docs/startup-record-format.md`).

`SIGNATURES` is the single table of known log lines. The parser uses the figure,
warning and error rows to fill `StartupLog`; `kvplan.diagnose` uses the symptom,
layer, cause and fix of the same rows to name what went wrong.

Formats are those listed in vllm-memory-model.md section 8 (read from the release
wheels of vLLM 0.6.3 - 0.33.0), plus error texts seen in public vLLM issues (each row
cites where the text comes from). A line that looks memory- or KV-related but matches
no row is kept in `StartupLog.unrecognised`, never dropped (save the lines known to hold no startup figure:
the serving statistics and progress bars of `_NOT_A_FIGURE`).
"""

from __future__ import annotations

import ast
import io
import json
import math
import os
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any, Callable, Iterable, Iterator, Mapping, Optional, Union

from kvplan.errors import InputError
from kvplan.inputs import GZIP_ERRORS, closing_bracket, damaged_gzip, existing_file, input_name, json_loads, open_binary, utf16_encoding
from kvplan.versions import MULTI_VALUE_FLAGS, rule_at

# --------------------------------------------------------------------------------------
# The signature table
# --------------------------------------------------------------------------------------

# What a row is for: a figure to read, a warning that changes the deployment, an error
# that stops the start, or context (version, arguments, startup markers).
FIGURE, WARNING, ERROR, CONTEXT = "figure", "warning", "error", "context"


@dataclass(frozen=True)
class Signature:
    """One known log line: how to recognise it and, when it is a problem, what it means.

    `anchor` is a lowercase literal every matching line contains; the parser only runs
    `pattern` on lines that contain the anchor (fast on huge logs). A pattern with
    alternatives that share no literal lists one anchor per alternative, separated by
    "|" (`anchors`): a line is tried when it holds any of them. `cause` and `fix`
    are templates filled with the pattern's named groups (missing ones read "?").
    `versions` is the vLLM release range that prints the line ("all" when unknown).
    `weight` is how strongly the line alone supports `symptom` (0..1).
    """

    name: str
    anchor: str
    pattern: re.Pattern
    kind: str
    symptom: Optional[str] = None
    layer: Optional[str] = None
    cause: str = ""
    fix: str = ""
    versions: str = "all"
    weight: float = 0.0
    source: str = ""
    fatal: bool = False

    @property
    def anchors(self) -> tuple[str, ...]:
        return tuple(a for a in self.anchor.split("|") if a)


def _sig(name, anchor, pattern, kind, *, flags=0, **kw) -> Signature:
    return Signature(name=name, anchor=anchor.lower(), pattern=re.compile(pattern, flags), kind=kind, **kw)


_I = re.IGNORECASE
_MM = "vllm-memory-model.md §8 (vLLM wheels 0.6.3-0.33.0)"

# the FP8 KV cache a memory fix offers: e4m3 (fp8) needs compute capability 8.9 in the Triton kernels vLLM V1 runs on
# older GPUs ("type fp8e4nv not supported in this architecture" on an RTX 3090, vLLM issue #26431, 0.11.0; the
# triton_fp8_type_unsupported signature below), where e5m2 is stored (the RTX 3090 startups of calibration.jsonl run fp8_e5m2)
_FP8_KV = "--kv-cache-dtype fp8; fp8_e5m2 on a GPU below compute capability 8.9, an RTX 3090 or A100"

SIGNATURES: tuple[Signature, ...] = (
    # ---- context: version, arguments, startup progress --------------------------------
    _sig("version_api_server", "vllm api server version", r"vLLM API server version (?P<version>\d[\w.+\-]*)", CONTEXT, source="vllm/entrypoints/openai/api_server.py"),
    _sig("version_engine", "llm engine (v", r"Initializing an? V\d LLM engine \(v(?P<version>\d[^)\s]*)\)", CONTEXT, source="vllm/v1/engine/core.py, vllm/engine/llm_engine.py"),
    _sig("version_banner", "version", r"█\s+version\s+(?P<version>\d+\.\d+[\w.+\-]*)", CONTEXT, source="vllm/entrypoints/utils.py banner (>=0.16)"),
    _sig("non_default_args", "non-default args:", r"non-default args: (?P<body>\{.*)$", CONTEXT, versions=">=0.9", source="vllm/entrypoints/utils.py::log_non_default_args"),
    # the keys --hf-overrides (and --rope-scaling / --rope-theta) set on the config, as ModelConfig logs them ("Overriding
    # HF config with {'architectures': [...]}", config.py:532 in a 0.9.1 development build, vLLM issue #19219; INFO in the
    # 0.6.6.post1 wheel's ModelConfig.__init__)
    _sig("hf_config_overridden", "overriding hf config with", r"Overriding HF config with (?P<body>\{.*)$", CONTEXT, source="vllm/config.py ModelConfig"),
    _sig("namespace_args", "args: namespace(", r"args: Namespace\((?P<body>.*)$", CONTEXT, versions="<=0.8", source="vllm/entrypoints/openai/api_server.py"),
    _sig("engine_config", "with config:", r"Initializing an? (?:V\d )?LLM (?:engine|server)(?: \(v[^)]*\))? with config: (?P<body>.*)$", CONTEXT, source="vllm/engine/llm_engine.py, vllm/v1/engine/core.py"),
    _sig("command_line", "vllm", r"(?:^|\s|\$ )(?P<cmd>(?:vllm serve|python\d?(?:\s+-\w)*\s+-m\s+vllm\.entrypoints\.[\w.]+)\s.*)$", CONTEXT, source="vllm CLI"),
    # the offline benchmarks, which run the engine in-process as vllm.LLM: `vllm bench latency|throughput` (vllm/benchmarks/
    # latency.py, throughput.py: EngineArgs.from_cli_args, then LLM(...); read in the 0.10.2, 0.20.0 wheels) and the
    # older scripts benchmarks/benchmark_latency.py / benchmark_throughput.py of vLLM's repository, run by path
    _sig("bench_command", "vllm bench|benchmark_latency|benchmark_throughput",
         r"(?:^|\s|\$ )(?P<cmd>(?:vllm bench (?P<kind>latency|throughput)|python\d?(?:\.\d+)?(?:\s+-\w)*\s+(?:-m\s+)?"
         r"\S*?benchmark_(?P<script>latency|throughput)(?:\.py)?)(?:\s.*)?)$", CONTEXT,
         source="vllm/benchmarks/latency.py, throughput.py (vllm bench); benchmarks/benchmark_latency.py, benchmark_throughput.py"),
    # the old benchmark scripts print their argparse Namespace first (`print(args)` in main), every engine argument
    # with its value, defaults included, on a line of its own: no logger prefix, unlike the server's "args: Namespace(...)"
    _sig("bench_namespace", "namespace(", r"^Namespace\((?P<body>.*)$", CONTEXT, versions="<=0.10",
         source="benchmarks/benchmark_latency.py, benchmark_throughput.py main (print(args))"),
    _sig("load_model_start", "starting to load model", r"Starting to load model (?P<model>\S+?)(?:\.\.\.)?$", CONTEXT,
         versions="<=0.33", source="vllm/v1/worker/gpu_model_runner.py load_model, vllm/worker/model_runner.py load_model; not in the 0.34.0 wheel (its V1 GPU model runner, v1/worker/gpu_model_runner.py, was removed)"),
    _sig("startup_complete", "application startup complete", r"Application startup complete", CONTEXT, source="uvicorn"),
    _sig("server_starting", "starting vllm api server", r"Starting vLLM API server", CONTEXT, source="vllm/entrypoints/openai/api_server.py"),
    _sig("init_engine_took", "init engine", r"init engine \(profile, create kv cache, warmup model\) took (?P<secs>[\d.]+) (?:seconds|s\b)", CONTEXT, versions=">=0.8", source="vllm/v1/engine/core.py ('took X seconds'; 0.29.0 _initialize_kv_caches: 'took X s', 'took X s (compilation: Y s)')"),
    _sig("engine_failed", "enginecore failed to start", r"EngineCore failed to start", CONTEXT, versions=">=0.8", source="vllm/v1/engine/core.py"),
    # the engine was built (it sized its pool) and then its busy loop raised: a crash while serving, not at the start
    _sig("engine_fatal_after_start", "enginecore encountered a fatal error", r"EngineCore encountered a fatal error", CONTEXT, versions=">=0.8 (V1)",
         source="vllm/v1/engine/core.py run_engine_core (0.9.1, 0.29.0: 'EngineCore failed to start.' when no engine was built)"),
    # the front end's (or the executor's) watch on its child processes: one exited without the shutdown asking
    _sig("engine_proc_died", "died unexpectedly", r"(?:Engine core proc|Worker proc) (?P<proc>\S+) died unexpectedly", CONTEXT, versions=">=0.8 (V1)",
         source="vllm/v1/engine/core_client.py MPClient monitor_engine_cores (0.17.0), vllm/v1/executor/multiproc_executor.py (0.29.0)"),
    # a worker's call raised (vllm/v1/executor/multiproc_executor.py WorkerProc.worker_busy_loop, 0.9.1:
    # logger.exception("WorkerProc hit an exception.")): after the pool was sized it is the warm-up or a step failing
    _sig("worker_proc_exception", "workerproc hit an exception", r"WorkerProc hit an exception", CONTEXT, versions=">=0.8 (V1)",
         source="vllm/v1/executor/multiproc_executor.py WorkerProc.worker_busy_loop (0.9.1)"),
    # torch.compile at startup: Inductor compiled the graphs (no cache to load) or they came from vLLM's compile cache;
    # the first forward that compiles or loads them is the memory profile's (StartupLog.compile_cache)
    _sig("compile_cold", "compiling a graph for", r"Compiling a graph for (?:general shape|dynamic shape|shape \S+|compile range .+?) takes (?P<secs>[\d.]+) s", CONTEXT, versions=">=0.8 (V1)", source="vllm/compilation/backends.py (0.8.5: 'general shape', 0.10-0.11: 'dynamic shape', 0.17-0.29: 'compile range')"),
    _sig("compile_warm", "directly load the compiled graph", r"Directly load the compiled graph(?:\(s\))? for .+ from the cache", CONTEXT, versions=">=0.8 (V1)", source="vllm/compilation/backends.py"),
    _sig("compile_aot_warm", "directly load aot compilation", r"Directly load AOT compilation from path", CONTEXT, versions=">=0.27", source="vllm/compilation/decorators.py (0.29.0)"),
    _sig("compile_cache_disabled", "torch.compile cache is disabled", r"torch\.compile cache is disabled", CONTEXT, versions=">=0.8 (V1)", source="vllm/compilation/backends.py (VLLM_DISABLE_COMPILE_CACHE)"),
    # ---- figures ----------------------------------------------------------------------
    _sig("weights_old", "loading model weights took", r"Loading model weights took (?P<weights>[\d.]+) GB", FIGURE, versions="<=0.7", source=_MM),
    _sig("weights", "model loading took", r"Model loading took (?P<weights>-?[\d.]+) Gi?B(?: memory)?(?: and (?P<secs>[\d.]+) seconds)?", FIGURE, versions=">=0.8", source=_MM),
    _sig("v0_profile_064", "memory profiling results:", r"Memory profiling results: total_gpu_memory=(?P<total>[\d.]+)GiB initial_memory_usage=(?P<init>[\d.]+)GiB peak_torch_memory=(?P<peak>[\d.]+)GiB memory_usage_post_profile=(?P<post>[\d.]+)GiB non_torch_memory=(?P<nt>-?[\d.]+)GiB kv_cache_size=(?P<kv>-?[\d.]+)GiB gpu_memory_utilization=(?P<util>[\d.]+)", FIGURE, versions="0.6.4", source=_MM),
    _sig("v0_profile_secs", "memory profiling takes", r"Memory profiling takes (?P<secs>[\d.]+) seconds", FIGURE, versions="0.6.5-0.10", source=_MM),
    _sig("v0_can_use", "the current vllm instance can use", r"the current vLLM instance can use total_gpu_memory \((?P<total>[\d.]+)GiB\) x gpu_memory_utilization \((?P<util>[\d.]+)\) = (?P<req>[\d.]+)GiB", FIGURE, versions="0.6.5-0.10", source=_MM),
    _sig("v0_split", "non_torch_memory takes", r"model weights take (?P<w>-?[\d.]+)GiB; non_torch_memory takes (?P<nt>-?[\d.]+)GiB; PyTorch activation peak memory takes (?P<act>-?[\d.]+)GiB; the rest of the memory reserved for KV Cache is (?P<kv>-?[\d.]+)GiB", FIGURE, versions="0.6.5-0.10", source=_MM),
    _sig("v0_blocks", "blocks:", r"(?:^|#|\s|`)\s*(?P<dev>GPU|cuda|CUDA|NPU|XPU|HPU|TPU) blocks: (?P<gpu>\d+), # CPU blocks: (?P<cpu>\d+)", FIGURE, versions="<=0.10 (V0)", source=_MM),
    _sig("v1_blocks_07", "# gpu blocks:", r"# GPU blocks: (?P<gpu>\d+)\s*$", FIGURE, versions="0.6.6-0.7 (V1)", source=_MM),
    _sig("metrics_blocks", "num_gpu_blocks is:", r"num_gpu_blocks is: (?P<gpu>\d+)", FIGURE, versions="0.9-0.10 (V1 metrics logger)", source="vllm/v1/metrics/loggers.py"),
    _sig("available_kv", "available kv cache memory", r"Available KV cache memory: (?P<kv>-?[\d.]+) GiB", FIGURE, versions=">=0.9.1", source=_MM),
    _sig("kv_bytes_given", "as specified by kv_cache_memory_bytes", r"reserved (?P<kv>[\d.]+) GiB memory for KV Cache as specified by kv_cache_memory_bytes", FIGURE, versions=">=0.10.2", source="vllm-memory-model.md §1.3"),
    _sig("kv_tokens", "kv cache size", r"(?P<dev>GPU|[A-Z]{2,5})(?: \+ host)? KV cache size:? (?P<tokens>\d[\d,]*) tokens", FIGURE, versions=">=0.8", source=_MM),
    _sig("concurrency", "maximum concurrency for", r"Maximum concurrency for (?P<len>\d[\d,]*) tokens per request: (?P<conc>[\d.]+)x", FIGURE, source=_MM),
    _sig("graph_capture", "graph capturing finished in", r"Graph capturing finished in (?P<secs>\d+) secs(?:, took (?P<gib>-?[\d.]+) GiB|\.)", FIGURE, source=_MM),
    _sig("graph_profile", "profiling cuda graph memory:", r"Profiling CUDA graph memory: (?P<groups>.+)$", FIGURE, versions="0.18-0.33", source="vllm-memory-model.md §8 (vLLM wheels 0.6.3-0.33.0); not in the 0.34.0 wheel (its V1 GPU model runner, v1/worker/gpu_model_runner.py, was removed)"),
    _sig("graph_estimate", "estimated cuda graph memory", r"Estimated CUDA graph memory: (?P<gib>[\d.]+) GiB total", FIGURE, versions="0.18-0.33", source="vllm-memory-model.md §8 (vLLM wheels 0.6.3-0.33.0); not in the 0.34.0 wheel (its V1 GPU model runner, v1/worker/gpu_model_runner.py, was removed); 0.34.0 prints the estimate in 'CUDA graph pool memory: ... (estimated)' only"),
    _sig("graph_equivalent", "without cuda graph memory profiling", r"--gpu-memory-utilization=(?P<cur>[\d.]+) is equivalent to --gpu-memory-utilization=(?P<eq>[\d.]+) without CUDA graph memory profiling", FIGURE, versions=">=0.20", source=_MM),
    _sig("graph_future_default", "cuda graph memory profiling will be enabled", r"CUDA graph memory profiling will be enabled by default", CONTEXT, versions="0.18-0.19", source="vllm/v1/worker/gpu_worker.py@0.19.1"),
    _sig("graph_profiling_disabled", "cuda graph memory profiling is disabled", r"CUDA graph memory profiling is disabled", CONTEXT, versions=">=0.20", source=_MM),
    _sig("graph_actual", "cuda graph pool memory:", r"CUDA graph pool memory: (?P<act>-?[\d.]+) GiB \(actual\), (?P<est>-?[\d.]+) GiB \(estimated\), difference: (?P<d>-?[\d.]+) GiB", FIGURE, versions=">=0.18", source=_MM),
    # vLLM 0.34's extensible KV cache (the default on CUDA and ROCm: config/vllm.py VllmConfig._resolve_extensible_kv_cache):
    # the pool's address range is reserved from the profile's estimate ("Available KV cache memory" is then that
    # capacity, not the pool), and after warmup and CUDA-graph capture each worker sizes the pool from the free memory
    # it measures (vllm/v1/worker/extensible_kv_cache.py measure_kv_cache_blocks, 0.34.0 wheel; figures are
    # utils/mem_utils.py format_gib, GiB rounded to 2 decimals). The engine takes the smallest rank's block count
    # (v1/core/kv_cache_planning.py finalize_extensible_kv_cache) and commits it (extend_kv_cache: "Extended KV cache to
    # N blocks (X GiB)", X the physical bytes, padded to the driver's granule).
    _sig("memory_after_warmup", "memory after warmup:",
         r"Memory after warmup: (?P<free>-?[\d.]+) GiB free, (?P<committed>-?[\d.]+) GiB committed to the KV cache, "
         r"(?P<kept>-?[\d.]+) GiB kept for transient activations \((?P<peak>-?[\d.]+) GiB allocated at peak, "
         r"(?P<growth>-?[\d.]+) GiB of torch reservation growth\); (?P<blocks>\d+) KV cache blocks \((?P<kv>-?[\d.]+) GiB\) "
         r"fit within the requested (?P<req>-?[\d.]+) GiB\.(?: Torch may reserve up to (?P<limit>-?[\d.]+) GiB)?", FIGURE,
         versions=">=0.34", source="vllm/v1/worker/extensible_kv_cache.py measure_kv_cache_blocks (0.34.0)"),
    _sig("extended_kv_cache", "extended kv cache to", r"Extended KV cache to (?P<blocks>\d+) blocks \((?P<gib>[\d.]+) GiB\)", FIGURE,
         versions=">=0.34", source="vllm/v1/worker/extensible_kv_cache.py extend_kv_cache (0.34.0)"),
    _sig("kv_cache_remapped", "remapping the kv cache from", r"Remapping the KV cache from (?P<old>\d+) to (?P<new>\d+) blocks to fit the measured budget", CONTEXT,
         versions=">=0.34", source="vllm/v1/worker/extensible_kv_cache.py extend_kv_cache (0.34.0: warmup committed more blocks than the measured budget fits)"),
    # the extensible KV cache left off: by the engine when a worker's driver cannot map growable memory (the reason is
    # utils/vmm_driver.py vmm_unavailable_reason's text, or "the model has no KV cache"; v1/executor/abstract.py
    # Executor.disable_extensible_kv_cache), or by the config when a KV connector would lose NVLink without an IMEX
    # channel (config/vllm.py _resolve_extensible_kv_cache); the pool is then sized from the profile, as in 0.33
    _sig("extensible_disabled", "disabling the extensible kv cache:", r"Disabling the extensible KV cache: (?P<reason>.+?)\. The KV cache will be sized from profiling estimates", WARNING,
         cause="vLLM could not use the extensible KV cache here ({reason}), so it sized the KV cache from the profile's estimate as 0.33 did, within gpu_memory_utilization (0.92 by default then).",
         fix="Nothing to fix for the start itself; for the measured sizing run on a driver that supports CUDA/HIP virtual memory (not WSL2), or plan it with --no-enable-extensible-kv-cache.",
         versions=">=0.34", source="vllm/v1/executor/abstract.py Executor.disable_extensible_kv_cache (0.34.0); reasons from vllm/utils/vmm_driver.py vmm_unavailable_reason"),
    _sig("extensible_off_imex", "extensible kv cache off: without an imex channel", r"Extensible KV cache off: without an IMEX channel", CONTEXT,
         versions=">=0.34", source="vllm/config/vllm.py VllmConfig._resolve_extensible_kv_cache (0.34.0)"),
    _sig("no_imex_channel", "no imex channel: with the extensible kv cache", r"No IMEX channel: with the extensible KV cache, KV transfers within a host", WARNING,
         cause="The extensible KV cache is on but this process cannot open an IMEX channel, so the KV connector's transfers within a host fall back to TCP (across hosts they use RDMA).",
         fix="Give the container an IMEX channel (/dev/nvidia-caps-imex-channels), or pass --no-enable-extensible-kv-cache to keep NVLink transfers with the profile-sized cache.",
         versions=">=0.34", source="vllm/config/vllm.py VllmConfig._resolve_extensible_kv_cache (0.34.0)"),
    # below 1.0 (and above 0.7) the explicit utilization withholds at least 1 GiB of free memory from the measured pool
    _sig("util_caps_extensible", "caps this instance at", r"gpu_memory_utilization=(?P<util>[\d.]+) caps this instance at (?P<req>[\d.]+) GiB, keeping (?P<withheld>[\d.]+) GiB of free device memory out of the KV cache", WARNING,
         cause="--gpu-memory-utilization {util} capped this instance at {req} GiB, keeping {withheld} GiB of free GPU memory out of the KV cache; with the extensible KV cache vLLM measures its own use after warmup and needs no headroom below 1.0.",
         fix="Leave --gpu-memory-utilization unset (1.0 with the extensible KV cache) unless the memory is for something vLLM does not measure (another process on the GPU, weight-transfer buffers, a KV connector's buffers).",
         versions=">=0.34", source="vllm/v1/worker/extensible_kv_cache.py measure_kv_cache_blocks (0.34.0)"),
    _sig("budget_after_fallback", "updated engine memory budget after disk fallback", r"Updated engine memory budget after disk fallback: (?P<req>[\d.]+) GiB", FIGURE,
         versions=">=0.34", source="vllm/v1/worker/gpu_worker.py Worker.load_model (0.34.0)"),
    # --max-model-len auto under the extensible KV cache: the length fitted to the reserved capacity is tentative, and is
    # fitted again to the pool measured after warmup (v1/core/kv_cache_planning.py _auto_fit_max_model_len, after_warmup)
    _sig("auto_fit_final", "auto reduced max_model_len from|auto-fit max_model_len: using max_model_len=",
         r"(?:--max-model-len auto reduced max_model_len from (?P<old>\d+) to (?P<new>\d+)|Auto-fit max_model_len: using max_model_len=(?P<kept>\d+), which fits)", FIGURE,
         versions=">=0.34", source="vllm/v1/core/kv_cache_planning.py _auto_fit_max_model_len (0.34.0)"),
    _sig("summary_old", "gib for non-torch memory", r"Free memory on device \((?P<free>[\d.]+)/(?P<total>[\d.]+) GiB\) on startup\. Desired GPU memory utilization is \((?P<util>[\d.]+), (?P<req>[\d.]+) GiB\)\. Actual usage is (?P<w>-?[\d.]+) GiB for weight, (?P<act>-?[\d.]+) GiB for peak activation, (?P<nt>-?[\d.]+) GiB for non-torch memory, and (?P<cg>-?[\d.]+) GiB for CUDAGraph memory", FIGURE, versions="0.10.2-0.26", source=_MM),
    _sig("summary_new", "for consumed memory", r"Free memory on device \((?P<free>[\d.]+)/(?P<total>[\d.]+) GiB\) on startup\. Desired GPU memory utilization is \((?P<util>[\d.]+), (?P<req>[\d.]+) GiB\)\. Actual usage is (?P<consumed>-?[\d.]+) GiB for consumed memory \(weights \+ non-torch\), (?P<act>-?[\d.]+) GiB for peak activation, and (?P<cg>-?[\d.]+) GiB for CUDAGraph memory", FIGURE, versions=">=0.27", source=_MM),
    _sig("kv_in_use", "current kv cache memory in use is", r"Current kv cache memory in use is (?P<kv>-?[\d.]+) ?(?P<unit>GiB|bytes)", FIGURE, versions=">=0.10.2", source=_MM),
    _sig("block_size", "block size", r"(?:Setting kv cache block size to (?P<a>\d+)|Forcing kv cache block size to (?P<b>\d+)|Setting attention block size to (?P<c>\d+) tokens)", FIGURE, source=_MM),
    _sig("override_blocks", "num_gpu_blocks_override", r"Overriding num_gpu_blocks=(?P<computed>\d+) with num_gpu_blocks_override=(?P<override>\d+)", FIGURE, source=_MM),
    _sig("max_model_len", "using max model len", r"Using max model len (?P<len>\d+)", FIGURE, versions=">=0.8", source=_MM),
    # the fused-MoE kernel's tuned-config file is named by the device ("Using configuration from ... for MoE layer." or
    # "Using default MoE config. ... Config file not found at ..."): the only place many V1 logs name their GPU
    _sig("moe_config_device", ",device_name=", r"E=\d+,N=\d+,device_name=(?P<device>[^,\s/\\]+?)(?:,[^/\\\s]*)?\.json", FIGURE,
         source="vllm/model_executor/layers/fused_moe/fused_moe.py get_config_file_name (0.4.0, 0.8.5: the CUDA device name, "
                "spaces as '_'; 0.29.0: spaces and '/' as '_', utils/platform_utils.py get_device_name_as_file_name, and "
                "every H200 part as NVIDIA_H200)"),
    _sig("chunked_prefill", "chunked prefill is enabled with", r"Chunked prefill is enabled with max_num_batched_tokens=(?P<t>\d+)", FIGURE, source=_MM),
    _sig("encoder_budget", "encoder cache will be initialized", r"Encoder cache will be initialized with a budget of (?P<budget>\d+) tokens, and profiled with (?P<n>\d+) (?P<mod>\w+) items", FIGURE, source=_MM),
    # decode (and from 0.12 prefill) context parallelism: 'by the dcp_world_size D.' in 0.10.2-0.11.x, 'by the
    # cp_world_size N (pcp_world_size P * dcp_world_size D).' in 0.12-0.20.0 (v1/core/kv_cache_utils.py)
    _sig("cp_multiplier", "multiplying the gpu kv cache size", r"Multiplying the GPU KV cache size by the d?cp_world_size (?P<n>\d+)", FIGURE, versions=">=0.10.2", source="vllm/v1/core/kv_cache_utils.py"),
    _sig("runner_resolved", "to `--runner", r"Resolved `--runner auto` to `--runner (?P<runner>\w+)`", CONTEXT, versions=">=0.10.1", source="vllm/config/model.py (_get_runner_type)"),
    _sig("mm_profiling_skipped", "skipping memory profiling for multimodal encoder", r"Skipping memory profiling for multimodal encoder and encoder cache", CONTEXT, versions="0.10.1-0.33", source="vllm/v1/worker/gpu_model_runner.py profile_run (--skip-mm-profiling, vLLM PR #22950); not in the 0.34.0 wheel (its V1 GPU model runner, v1/worker/gpu_model_runner.py, was removed)"),
    _sig("profile_run_mm", "starting profile run for multi-modal", r"Starting profile run for multi-modal models", CONTEXT, source="vllm/worker/enc_dec_model_runner.py"),
    _sig("backend_new", "attention backend out of potential backends", r"Using (?P<backend>\w+) attention backend out of potential backends: \[(?P<cands>[^\]]*)\]", FIGURE, versions=">=0.11", source=_MM),
    _sig("backend_old", "backend", r"Using (?P<backend>Flash ?Attention(?:-\d)?|FlashInfer|XFormers|Triton|FlashMLA|Cutlass MLA|FlashInfer MLA|Sparse MLA|Triton MLA|Torch SDPA|ROCmFlashAttention)\w* backend(?: on V1 engine)?\.", FIGURE, source=_MM),
    # ---- warnings that change the deployment -------------------------------------------
    _sig("mamba_padding", "padding mamba page size", r"Padding mamba page size by (?P<pct>[\d.]+)%", WARNING, versions=">=0.10", source=_MM),
    _sig("padding_layers", "padding layers", r"Add (?P<n>\d+) padding layers, may waste at most (?P<pct>[\d.]+)% KV cache memory", WARNING, source=_MM),
    _sig("auto_fit", "auto-fit max_model_len", r"Auto-fit max_model_len: reduced from (?P<old>\d+) to (?P<new>\d+)", WARNING, versions=">=0.14", source=_MM),
    _sig("swa_disabled", "sliding window", r"(?:[Dd]isabl\w+ sliding window|sliding window.{0,40}(?:not supported|disabled))", WARNING, source="vllm-memory-model.md §3.2 (sliding window treated as full attention)"),
    _sig("fallback_v0", "falling back to v0", r"(?P<what>.*?) is not supported by the V1 Engine\. Falling back to V0", WARNING,
         symptom="attention_backend_fallback", layer="gpu", weight=0.55,
         cause="vLLM fell back from the V1 engine to the older V0 engine ({what}); the server starts, but slower and with V0's memory behaviour.",
         fix="Drop or change what it names (e.g. an fp8 KV cache off Hopper, --task embed before 0.9.2, speculative decoding in 0.8), use a GPU of compute capability >= 8.0, or run vLLM >= 0.11 (V1 only); kvplan fit --vllm-version X predicts the same fallback.",
         versions="0.8-0.10", source="vllm/engine/arg_utils.py@0.8.2 (_is_v1_supported_oracle)"),
    _sig("fa_cannot_turing", "cannot use flashattention", r"Cannot use FlashAttention(?:-2)? backend for Volta and Turing GPUs", WARNING,
         symptom="attention_backend_fallback", layer="gpu", weight=0.8,
         cause="FlashAttention needs compute capability >= 8.0 (Ampere); on this Volta/Turing GPU vLLM fell back to a slower backend, and features that need FlashAttention are lost.",
         fix="Run on an Ampere-or-newer GPU (compute capability >= 8.0) if you need FlashAttention; otherwise accept the slower backend and check every feature you use supports it.",
         source="vllm/platforms/cuda.py (0.5-0.10); https://github.com/vllm-project/vllm/issues/15213"),
    _sig("fa_cannot_vllm_flash_attn", "vllm_flash_attn package is not found", r"Cannot use FlashAttention(?:-2)? backend because the vllm[_.]flash_attn package is not found", WARNING,
         symptom="attention_backend_fallback", layer="pytorch_wheel", weight=0.85,
         cause="The FlashAttention kernels bundled with the vLLM wheel (vllm-flash-attn) could not be imported, so vLLM silently fell back to a slower attention backend; the installed torch/CUDA stack does not match the wheel's.",
         fix="Install vLLM's default wheel (its pinned torch and CUDA variant) into a fresh virtualenv so the bundled vllm-flash-attn loads.",
         versions="0.4.3-0.5", source="https://github.com/vllm-project/vllm/issues/7112"),
    _sig("fa_cannot_flash_attn", "flash_attn package is not found|flashattention because the package is not found", r"Cannot use FlashAttention(?:-2)? backend because the flash_attn package is not found|Cannot use FlashAttention because the package is not found", WARNING,
         symptom="attention_backend_fallback", layer="vllm_version_flags", weight=0.8,
         cause="This vLLM release looks for the separately installed flash_attn package, which is missing or does not match torch, so it silently fell back to a slower attention backend.",
         fix="Upgrade vLLM (0.4.3 and later bundle their own vllm-flash-attn build), or install the flash_attn wheel built for your torch.",
         versions="<=0.4.2", source="https://github.com/vllm-project/vllm/pull/4686; 0.4.0's wording: https://github.com/vllm-project/vllm/issues/3912"),
    # vllm/platforms/cuda.py get_attn_backend_cls (0.7.2 read): logger.info("Cannot use FlashAttention-2 backend for FP8 KV
    # cache."), then a slower backend (0.6.x printed it from vllm/attention/selector.py); VLLM_FLASH_ATTN_VERSION=3 does not
    # change the choice in those releases. Gone from the 0.22.0 and 0.33.0 wheels.
    _sig("fa_cannot_fp8_kv", "backend for fp8 kv cache", r"Cannot use FlashAttention(?:-2)? backend for FP8 KV cache", WARNING,
         symptom="attention_backend_fallback", layer="vllm_version_flags", weight=0.7,
         cause="--kv-cache-dtype fp8 was asked for and this vLLM release's FlashAttention path takes no FP8 KV cache, so it fell back to another backend (a forced VLLM_ATTENTION_BACKEND=FLASH_ATTN or VLLM_FLASH_ATTN_VERSION=3 is not used).",
         fix="Use the backend the release pairs with an FP8 KV cache (FlashInfer, or the MLA backends for MLA models), drop --kv-cache-dtype fp8, or a release whose FlashAttention 3 path takes FP8.",
         versions="0.6-0.10", source="vllm/platforms/cuda.py get_attn_backend_cls (0.7.2); https://github.com/vllm-project/vllm/issues/12543"),
    _sig("fa_cannot_other", "cannot use flashattention", r"Cannot use FlashAttention(?:-2)? backend because (?P<why>(?!the (?:vllm_)?flash_attn package).+?)\.?$", WARNING,
         symptom="attention_backend_fallback", layer="vllm_version_flags", weight=0.6,
         cause="vLLM could not use FlashAttention ({why}) and fell back to a slower attention backend.",
         fix="Change the setting named in the message (dtype, KV-cache dtype, head size, sliding window) or accept the slower backend.",
         source="vllm/attention/selector.py (0.4-0.10)"),
    _sig("fa_needs_ampere", "flashattention only supports ampere", r"FlashAttention only supports Ampere GPUs or newer", ERROR,
         symptom="attention_backend_fallback", layer="gpu", weight=0.8, fatal=True,
         cause="FlashAttention needs an Ampere-or-newer GPU (compute capability >= 8.0); this GPU is older, so the model runs on a fallback backend that lacks a feature it needs.",
         fix="Use a compute-capability >= 8.0 GPU, or a backend/dtype the model supports on this GPU (check the model's features such as logit soft-capping).",
         source="flash-attn kernels; https://github.com/vllm-project/vllm/issues/6173"),
    _sig("backend_lacks_feature", "does not support", r"(?P<backend>XFormers|Triton|FlashInfer|TORCH_SDPA|Torch SDPA|FlexAttention)\w* does not support (?P<feature>[\w\s-]+)", ERROR,
         symptom="attention_backend_fallback", layer="gpu", weight=0.6, fatal=True,
         cause="The attention backend vLLM fell back to ({backend}) does not support {feature}, which this model needs.",
         fix="Run on a GPU where FlashAttention/FlashInfer are available (compute capability >= 8.0), or pick a model without that feature.",
         source="vllm/attention/backends/*.py"),
    _sig("connector_needs_fa", "only flashattention backend is supported", r"Only FlashAttention backend is supported", ERROR,
         symptom="attention_backend_fallback", layer="gpu", weight=0.5, fatal=True,
         cause="A component (e.g. a KV connector) requires FlashAttention, but vLLM is running on a fallback backend.",
         fix="Use a GPU where FlashAttention is available (compute capability >= 8.0) or disable the component that requires it.",
         source="LMCache connector; https://github.com/vllm-project/vllm/issues/15213"),
    _sig("quant_marlin_fallback", "does not have native support for fp", r"Your GPU does not have native support for (?P<fmt>FP\d)", WARNING,
         symptom="quant_unsupported_on_gpu", layer="gpu", weight=0.5,
         cause="This GPU has no native {fmt} compute, so vLLM runs the checkpoint weight-only through the Marlin kernel (slower than native).",
         fix="Accept the weight-only path, or use a GPU with native {fmt} support (FP8: compute capability >= 8.9; FP4: >= 10.0).",
         source="gpu-facts.md §4 (NVFP4 row)"),
    # ---- memory errors ------------------------------------------------------------------
    _sig("err_fit", "kv cache is needed", r"To serve at least one request with the models?'s max seq len \((?P<len>\d+)\), \(?(?P<need>[\d.]+) Gi?B KV cache is needed(?:, which is larger than the available KV cache memory \((?P<avail>-?[\d.]+) Gi?B\))?(?:\. ?(?:Based on the available memory, the estimated maximum model length is (?P<est>\d+))?)?", ERROR,
         symptom="max_seq_len_exceeds_kv", layer="memory_budget", weight=0.95, fatal=True,
         cause="One request of max_model_len={len} tokens needs {need} GiB of KV cache, but only {avail} GiB was left after weights, activations and overheads.",
         fix="Lower --max-model-len (to about {est} tokens here), raise --gpu-memory-utilization, use an FP8 KV cache (" + _FP8_KV + "), or add GPUs (tensor parallel).",
         versions=">=0.7 (V1)", source=_MM + " ERR_FIT"),
    # 0.34.0 ends both refusals with a hint that depends on the sizing (v1/core/kv_cache_planning.py
    # _more_kv_cache_memory_hint): with the extensible KV cache at gpu_memory_utilization 1.0 (its default) "The
    # extensible KV cache already takes all device memory left after {the model and its activations | the model, its
    # activations, CUDA graphs and warmup}; ...", where raising the utilization cannot help. The check runs twice: on the
    # profile's estimate, and after warmup on the measured pool (shrink_kv_cache_configs).
    _sig("err_fit_extensible_all_memory", "the extensible kv cache already takes all device memory left after",
         r"To serve at least one request with the model's max seq len \((?P<len>\d+)\), \((?P<need>[\d.]+) GiB KV cache is needed, which is larger than the available KV cache memory \((?P<avail>-?[\d.]+) GiB\)\. (?:Based on the available memory, the estimated maximum model length is (?P<est>\d+)\. )?The extensible KV cache already takes all device memory left after (?P<used_by>[^;]+);", ERROR,
         symptom="max_seq_len_exceeds_kv", layer="memory_budget", weight=0.95, fatal=True,
         cause="One request of max_model_len={len} tokens needs {need} GiB of KV cache, but the extensible KV cache got only {avail} GiB: all the GPU memory left after {used_by} (gpu_memory_utilization is already 1.0).",
         fix="Lower --max-model-len (to about {est} tokens here), use an FP8 KV cache (" + _FP8_KV + "), lower --max-num-seqs or capture fewer/smaller CUDA-graph sizes (less memory for activations and graphs), or add GPUs (tensor parallel); raising --gpu-memory-utilization does not help.",
         versions=">=0.34", source="vllm/v1/core/kv_cache_planning.py _check_enough_kv_cache_memory, _more_kv_cache_memory_hint (0.34.0)"),
    _sig("err_no_blocks_extensible", "no available memory for the cache blocks. the extensible kv cache",
         r"No available memory for the cache blocks\. The extensible KV cache already takes all device memory left after (?P<used_by>[^;]+);", ERROR,
         symptom="no_cache_blocks", layer="memory_budget", weight=0.95, fatal=True,
         cause="Nothing was left for the KV cache: {used_by} take all the GPU memory (the extensible KV cache already sizes from everything free; gpu_memory_utilization is 1.0).",
         fix="Use a smaller or quantized checkpoint, lower --max-num-seqs / --max-num-batched-tokens (smaller activation peak), capture fewer CUDA-graph sizes, free the GPU of other processes, or add GPUs; raising --gpu-memory-utilization does not help.",
         versions=">=0.34", source="vllm/v1/core/kv_cache_planning.py _check_enough_kv_cache_memory, _more_kv_cache_memory_hint (0.34.0)"),
    # --max-model-len auto re-fitted after warmup (0.34.0, v1/core/kv_cache_planning.py _auto_fit_max_model_len with
    # after_warmup): the measured pool holds no token
    _sig("err_autofit_after_warmup", "cuda graph capture and warmup left no memory for the kv cache", r"CUDA graph capture and warmup left no memory for the KV cache", ERROR,
         symptom="no_cache_blocks", layer="memory_budget", weight=0.95, fatal=True,
         cause="--max-model-len auto found no length: after CUDA-graph capture and warmup the measured KV cache holds not a single token.",
         fix="Raise --gpu-memory-utilization if it was set below 1.0, capture fewer or smaller CUDA-graph sizes (compilation config), lower --max-num-seqs, or add GPUs.",
         versions=">=0.34", source="vllm/v1/core/kv_cache_planning.py _auto_fit_max_model_len (0.34.0)"),
    # the extensible KV cache (0.34.0) asked for where it cannot run: config/vllm.py VllmConfig._resolve_extensible_kv_cache
    # raises ValueError(f"enable_extensible_kv_cache: {unsupported}.") for an explicit --enable-extensible-kv-cache off
    # CUDA/ROCm, with --kv-cache-memory-bytes or --num-gpu-blocks-override, elastic EP, a KV connector sharing the cache
    # through legacy CUDA IPC or its own memory pool, or a registering connector on ROCm; and for a connector that imports
    # the cache through POSIX file descriptors (LMCacheMPConnector with use_vmm_api) where it is off or unsupported
    _sig("err_extensible_unsupported", "enable_extensible_kv_cache: ", r"enable_extensible_kv_cache: (?P<why>(?:it |a KV connector|custom_mem_pool|elastic EP|on ROCm)[^\[]*?)\.?\s*(?:\[type=.*)?$", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="The extensible KV cache (sized after warmup, vLLM >= 0.34) was required but cannot be used here: {why}.",
         fix="Drop --enable-extensible-kv-cache (vLLM turns it on by itself where it is supported) or the setting it conflicts with (--kv-cache-memory-bytes, --num-gpu-blocks-override, the KV connector); a connector that needs it (LMCache with use_vmm_api) needs CUDA or ROCm and no such setting.",
         versions=">=0.34", source="vllm/config/vllm.py VllmConfig._resolve_extensible_kv_cache (0.34.0)"),
    # the engine found a worker's driver unable to map growable memory (utils/vmm_driver.py vmm_unavailable_reason)
    # while a connector needs the extensible cache: v1/executor/abstract.py Executor.disable_extensible_kv_cache
    _sig("err_extensible_fd_connector", "which needs the extensible kv cache, but", r"imports the KV cache through POSIX file descriptors, which needs the extensible KV cache, but (?P<why>.+?)\.?\s*$", ERROR,
         symptom="invalid_engine_flags", layer="nvidia_driver", weight=0.8, fatal=True,
         cause="The KV connector imports the KV cache through POSIX file descriptors, which needs the extensible KV cache, but this GPU's driver cannot back it: {why}.",
         fix="Run on a driver with CUDA/HIP virtual memory management (not WSL2; ROCm from TheRock 7.12), or turn off the connector's use_vmm_api (lmcache.mp.use_vmm_api) so the cache can be sized from the profile.",
         versions=">=0.34", source="vllm/v1/executor/abstract.py Executor.disable_extensible_kv_cache (0.34.0); vllm/utils/vmm_driver.py vmm_unavailable_reason"),
    _sig("err_connector_pool_extensible", "which the extensible kv cache cannot use", r"The KV connector allocates the KV cache from its own memory pool, which the extensible KV cache cannot use", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="The KV connector allocates the KV cache from its own memory pool, which vLLM 0.34's extensible KV cache (on by default) cannot use.",
         fix="Pass --no-enable-extensible-kv-cache.",
         versions=">=0.34", source="vllm/v1/worker/extensible_kv_cache.py extend_kv_cache (0.34.0)"),
    _sig("err_v0_max_seq", "is larger than the maximum number of tokens", r"The model's max seq len \((?P<len>\d+)\) is larger than the maximum number of tokens that can be stored in KV cache \((?P<cap>\d+)\)", ERROR,
         symptom="max_seq_len_exceeds_kv", layer="memory_budget", weight=0.95, fatal=True,
         cause="max_model_len={len} does not fit: the KV cache holds only {cap} tokens after weights, activations and overheads.",
         fix="Lower --max-model-len to at most {cap}, raise --gpu-memory-utilization, use an FP8 KV cache (" + _FP8_KV + "), or add GPUs (tensor parallel).",
         versions="<=0.10 (V0)", source=_MM + " ERR_V0"),
    # the CPU backend's KV cache given explicitly (vllm/v1/worker/cpu_worker.py CPUWorker.determine_available_memory,
    # 0.25.1: "Explicitly set (X/Y) GiB for KV cache on node N", from --kv-cache-memory-bytes or the legacy
    # VLLM_CPU_KVCACHE_SPACE in GiB, vllm/platforms/cpu.py check_and_update_config)
    _sig("cpu_kv_explicit", "for kv cache on node", r"Explicitly set \((?P<kv>[\d.]+)/(?P<total>[\d.]+)\) GiB for KV cache on node", CONTEXT,
         versions=">=0.25 (CPU backend)", source="vllm/v1/worker/cpu_worker.py CPUWorker.determine_available_memory (0.25.1)"),
    _sig("err_no_blocks", "no available memory for the cache blocks", r"No available memory for the cache blocks", ERROR,
         symptom="no_cache_blocks", layer="memory_budget", weight=0.95, fatal=True,
         cause="Nothing was left for the KV cache: weights plus the profiled activation peak and overheads use the whole gpu_memory_utilization budget.",
         fix="Raise --gpu-memory-utilization (it is a fraction of the whole GPU, not a safety margin), use a smaller or quantized checkpoint, lower --max-num-seqs/--max-num-batched-tokens, or add GPUs.",
         versions="<=0.21", source=_MM + " ERR_NOMEM"),
    _sig("v1_negative_kv", "available kv cache memory: -", r"Available KV cache memory: -(?P<short>[\d.]+) GiB", ERROR,
         symptom="no_cache_blocks", layer="memory_budget", weight=0.85, fatal=True,
         cause="The profile left a negative KV budget ({short} GiB short on this rank): weights, the activation peak, non-torch memory and (from 0.20) the CUDA-graph estimate exceed gpu_memory_utilization x the GPU, and the V1 engine refuses to start with no memory for the cache blocks.",
         fix="Raise --gpu-memory-utilization, lower --max-num-seqs / --max-num-batched-tokens (smaller activation peak), free the GPU of other processes, quantize the weights, or add GPUs (--tensor-parallel-size); kvplan fit says which one starts.",
         versions=">=0.9.1 (V1)", source="vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory: available_memory <= 0 raises 'No available memory for the cache blocks'"),
    _sig("mamba_blocks_below_seqs", "exceeds available mamba cache blocks", r"max_num_seqs \((?P<seqs>\d+)\) exceeds available Mamba cache blocks \((?P<blocks>\d+)\)", ERROR,
         symptom="state_blocks_below_max_num_seqs", layer="memory_budget", weight=0.95, fatal=True,
         cause="This hybrid model keeps one recurrent-state (Mamba) block per decode sequence for its full CUDA graphs; the pool holds {blocks} blocks, fewer than max_num_seqs {seqs}, and vLLM refuses rather than capping the graphs.",
         fix="Lower --max-num-seqs to {blocks} or less, raise --gpu-memory-utilization (a larger pool holds more state blocks), or start with --enforce-eager (no CUDA graphs, no such check).",
         versions=">=0.20", source="vllm/config/compilation.py resolve_cudagraph_mode_and_sizes; vLLM PR #38270"),
    _sig("kv_alloc_frame", "_allocate_kv_cache|initialize_kv_cache_tensors", r"\b(?:_allocate_kv_cache(?:_tensors)?|initialize_kv_cache_tensors)\b", CONTEXT,
         source="vllm/worker/cache_engine.py CacheEngine._allocate_kv_cache (V0); vllm/v1/worker/gpu_model_runner.py initialize_kv_cache_tensors (V1)"),
    _sig("oom_accounting_old", "total capacity;", r"\(GPU \d+; (?P<total>[\d.]+) (?P<total_u>[KMG]iB) total capacity; [\d.]+ [KMG]iB already allocated; (?P<free>[\d.]+) (?P<free_u>[KMG]iB|bytes) free; (?P<own>[\d.]+) (?P<own_u>[KMG]iB) reserved in total by PyTorch\)", CONTEXT,
         source="torch/csrc/cuda/CUDACachingAllocator.cpp OOM message (torch < 2.1): total, free and this process's PyTorch reserve"),
    _sig("oom_accounting_new", "including non-pytorch memory", r"GPU \d+ has a total capacity of (?P<total>[\d.]+) (?P<total_u>[KMG]iB) of which (?P<free>[\d.]+) (?P<free_u>[KMG]iB|bytes) is free\..*?Including non-PyTorch memory, this process has (?P<own>[\d.]+) (?P<own_u>[KMG]iB) memory in use", CONTEXT,
         source="torch/csrc/cuda/CUDACachingAllocator.cpp OOM message (torch >= 2.1): total, free and all of this process's memory"),
    _sig("err_autofit", "cannot auto-fit max_model_len", r"Cannot auto-fit max_model_len", ERROR,
         symptom="no_cache_blocks", layer="memory_budget", weight=0.9, fatal=True,
         cause="No KV cache memory was left to serve even one token (auto-fit of max_model_len failed).",
         fix="Raise --gpu-memory-utilization, use a smaller or quantized checkpoint, or add GPUs.",
         versions=">=0.14", source="vllm-memory-model.md §4"),
    _sig("err_free_memory", "on startup is less than desired gpu memory utilization", r"Free memory on device(?: \S+)? \((?P<free>[\d.]+)/(?P<total>[\d.]+) GiB\) on startup is less than desired GPU memory utilization \((?P<util>[\d.]+), (?P<req>[\d.]+) GiB\)", ERROR,
         symptom="free_memory_below_utilization", layer="memory_budget", weight=0.95, fatal=True,
         cause="Only {free} of {total} GiB was free when vLLM started, less than the {req} GiB that --gpu-memory-utilization {util} asks for: something else holds GPU memory.",
         fix="Stop the other process holding the GPU (nvidia-smi lists it), or lower --gpu-memory-utilization below the free fraction.",
         versions=">=0.9.1", source=_MM + " ERR_FREE; 0.34.0 raises it only with the extensible KV cache off (v1/worker/utils.py request_memory: with it the budget is a cap on reserved address space)"),
    _sig("err_profiling_memory", "error in memory profiling", r"Error in memory profiling\. Initial free memory (?P<init>[\d.]+) GiB, current free memory (?P<now>[\d.]+) GiB", ERROR,
         symptom="free_memory_below_utilization", layer="memory_budget", weight=0.7, fatal=True,
         cause="Another process on the same GPU released memory while vLLM was profiling, which breaks vLLM's measurement.",
         fix="Give vLLM the GPU alone during startup (start other tenants after it, or on another GPU).",
         source="vllm-memory-model.md §4"),
    _sig("err_sampler_oom", "warming up sampler", r"CUDA out of memory occurred when warming up sampler with (?P<n>\d+) dummy requests", ERROR,
         symptom="oom_graph_capture_or_profiling", layer="memory_budget", weight=0.9, fatal=True,
         cause="The sampler warm-up with {n} dummy requests ran out of memory after the KV cache was allocated: the profile under-estimated the sampler's peak (it grows with max_num_seqs x vocabulary).",
         fix="Lower --max-num-seqs (e.g. to {n} / 2) or --gpu-memory-utilization so the warm-up has room.",
         versions="0.8-0.33 (V1)", source="vllm-memory-model.md §4; not in the 0.34.0 wheel"),
    # vllm/v1/worker/gpu_model_runner.py GPUModelRunner.load_model (0.16.0): a torch OOM while the weights load is
    # re-raised as "Failed to load model - not enough GPU memory. Try lowering --gpu-memory-utilization ..."
    _sig("err_load_model_oom", "failed to load model - not enough gpu memory", r"Failed to load model - not enough GPU memory", ERROR,
         symptom="oom_graph_capture_or_profiling", layer="memory_budget", weight=0.9, fatal=True,
         cause="The GPU ran out of memory while the weights were loading: the checkpoint (in the dtype it is loaded in) does not fit in the memory this GPU has free, before any KV cache, profiling or CUDA graph.",
         fix="Serve a smaller model or a quantized checkpoint (AWQ/GPTQ/FP8) that fits, shard it over more GPUs (--tensor-parallel-size), or free the GPU of other processes; --enforce-eager and a lower --gpu-memory-utilization do not help here.",
         versions="0.16-0.33", source="vllm/v1/worker/gpu_model_runner.py GPUModelRunner.load_model (0.16.0); not in the 0.34.0 wheel (its V1 GPU model runner, v1/worker/gpu_model_runner.py, was removed)"),
    # torch's message (torch/csrc/cuda/CUDACachingAllocator.cpp) states the device's total further on, in every form
    # ('GPU 0 has a total capacity of T of which F is free.', cut or not, with or without the accounting the
    # oom_accounting rows read, HIP's too): total / total_u hold it where the line does (torch_gib); the message quoted
    # from 'Tried to allocate N. GPU n has a total capacity of' without its 'CUDA out of memory.' head is the same one
    _sig("err_cuda_oom", "out of memory|outofmemoryerror|tried to allocate", r"(?:OutOfMemoryError|CUDA out of memory\. Tried to allocate (?P<alloc>[\d.]+ [KMG]iB)|CUDA error: out of memory|Tried to allocate [\d.]+ [KMG]iB\.(?= GPU \d+ has a total capacity of ))(?=(?:.*?total capacity of (?P<total>[\d.]+) (?P<total_u>[KMG]iB))?)", ERROR,
         symptom="oom_graph_capture_or_profiling", layer="memory_budget", weight=0.7, fatal=True,
         cause="The GPU ran out of memory during startup (profiling, CUDA-graph capture or warm-up), outside the budget vLLM computed: CUDA graphs and warm-up buffers come on top of it.",
         fix="Try --enforce-eager (no CUDA graphs), lower --gpu-memory-utilization by 0.02-0.05, or lower --max-num-seqs.",
         source="torch.cuda OOM; https://github.com/vllm-project/vllm/issues (CUDA-graph capture OOMs)"),
    _sig("err_shared_mem_len", "vllm cannot currently support max_model_len", r"vLLM cannot currently support max_model_len=(?P<len>\d+) with block_size=(?P<bs>\d+) on GPU with compute capability \((?P<major>\d+), (?P<minor>\d+)\)", ERROR,
         symptom="unsupported_gpu", layer="gpu", weight=0.8, fatal=True,
         cause="The attention kernel of this old vLLM needs more shared memory than a GPU of compute capability {major}.{minor} has for max_model_len={len}.",
         fix="Lower --max-model-len, or upgrade vLLM (newer attention kernels lift this limit).",
         versions="<=0.2", source="vllm/worker/worker.py@0.2.x"),
    # ---- install: torch / compiled kernels / driver --------------------------------------
    _sig("undefined_symbol_torch", "undefined symbol", r"undefined symbol: (?P<sym>_Z\w+)", ERROR,
         symptom="import_undefined_symbol", layer="pytorch_wheel", weight=0.9, fatal=True,
         cause="vLLM's compiled kernels were built against a different torch than the one installed (a C++ symbol of libtorch is missing): torch was replaced or upgraded after vLLM was installed.",
         fix="Install vLLM into a fresh virtualenv and let it bring its own pinned torch (pip install vllm==<version>); do not install another torch over it.",
         source="seed 'anatomy of a vLLM setup' (Where it bites you); https://github.com/vllm-project/vllm/issues/3147"),
    _sig("undefined_symbol_driver", "undefined symbol", r"undefined symbol: (?P<sym>cu[A-Z]\w+)", ERROR,
         symptom="driver_too_old", layer="nvidia_driver", weight=0.8, fatal=True,
         cause="vLLM's kernels call a CUDA driver API ({sym}) that the installed NVIDIA driver does not provide: the driver is older than the CUDA runtime the wheel was built for.",
         fix="Update the host NVIDIA driver to one that supports the wheel's CUDA runtime, or install a vLLM/torch build for an older CUDA.",
         source="https://github.com/vllm-project/vllm/issues/11640"),
    # vllm/utils/deep_gemm.py's `_missing` placeholder, raised where a DeepGEMM entry point was asked for and the module's
    # symbol was not resolved (_lazy_init found no importable deep_gemm, or one without that API): "DeepGEMM backend is not
    # available. Please install the `deep_gemm` package ..." (0.11.0), "... is not available or outdated. Please install or
    # update ..." (0.12.0, 0.20.0), "... is unavailable in the current vLLM environment, or the available DeepGEMM package
    # does not provide the required APIs ..." (0.33.0). The wheels of 0.10.2-0.12.0 carry no DeepGEMM (it was installed
    # apart, tools/install_deepgemm.sh); 0.20.0 and 0.33.0 bundle it as vllm.third_party.deep_gemm and prefer an external
    # deep_gemm over it (utils/import_utils.py has_deep_gemm). Threads show three owners: the package not installed on a
    # release that needs it apart (DeepSeek-V3.2's indexer, vllm-project/recipes PR #183), an external one older than the
    # release's API, and 0.20's own warm-up (the deep_gemm_warmup_frame below), so the line alone is a hint
    _sig("deepgemm_unavailable", "deepgemm backend is",
         r"DeepGEMM backend is (?:not available|unavailable)(?P<tail>(?: or outdated|\. Please install the `deep_gemm` package| in the current vLLM environment)?)", ERROR,
         symptom="import_undefined_symbol", layer="pytorch_wheel", weight=0.55, fatal=True,
         cause="vLLM asked for a DeepGEMM kernel and could not load it: the deep_gemm package is not installed (wheels before DeepGEMM was bundled need it installed apart for the models and GPUs that use it), or an installed deep_gemm lacks the API this release calls (vLLM prefers an external deep_gemm over the copy its wheel bundles).",
         fix="Install the DeepGEMM this release expects into the same environment (vLLM's tools/install_deepgemm.sh), or remove an older external deep_gemm so the bundled copy loads; VLLM_USE_DEEP_GEMM=0 starts without it where the model does not need it (FP8 block GEMMs then use CUTLASS/Triton).",
         source="vllm/utils/deep_gemm.py _missing, _lazy_init; utils/import_utils.py has_deep_gemm (0.11.0, 0.12.0, 0.20.0, 0.33.0); https://github.com/vllm-project/recipes/pull/183"),
    # the warm-up frame over that line: kernel_warmup runs deep_gemm_warmup when VLLM_USE_DEEP_GEMM, has_deep_gemm() and the
    # platform's support_deep_gemm() hold, and 0.20.0's _count_warmup_iterations asks every module through
    # _fp8_linear_may_use_deep_gemm, which calls get_mk_alignment_for_contiguous_layout() before its FP8-block guard
    # (deep_gemm_warmup.py 0.20.0); 0.33.0 asks only layers whose kernel is DeepGEMM's (_deep_gemm_linear_data)
    _sig("deep_gemm_warmup_frame", "deep_gemm_warmup", r"\bin deep_gemm_warmup\b|\bdeep_gemm_warmup\(model|in _fp8_linear_may_use_deep_gemm\b", CONTEXT,
         versions=">=0.11", source="vllm/model_executor/warmup/kernel_warmup.py, deep_gemm_warmup.py (0.20.0, 0.33.0)"),
    # DeepGEMM's host-side DG_HOST_UNREACHABLE in its scale-factor layout and recipe dispatch (csrc/apis/layout.hpp,
    # utils/layout.hpp): no case for this GPU's architecture. vLLM sends FP8 block GEMMs to DeepGEMM on the GPUs
    # CudaPlatform.support_deep_gemm() lists (Hopper and SM100 in 0.20.0; SM120 too in 0.33.0, added in 0.24.0 by PR #43477)
    # and builds DeepGEMM from the revision cmake/external_projects/deepgemm.cmake pins (the `.deps/deepgemm-src` of the
    # path): a pin without that GPU's case aborts on the first FP8 block layer (weight post-processing) or in warm-up
    _sig("deepgemm_arch_unreachable", "unknown sf transformation|unknown recipe",
         r"Assertion error \((?P<file>[^()]*deep_?gemm[^()]*?)(?::\d+)?\): Unknown (?P<what>SF transformation|recipe)", ERROR, flags=_I,
         symptom="quant_unsupported_on_gpu", layer="vllm_version_flags", weight=0.75, fatal=True,
         cause="DeepGEMM has no {what} for this GPU's architecture: this release routes FP8 block-scaled GEMMs on this GPU to DeepGEMM (support_deep_gemm lists it) while the DeepGEMM revision it was built with does not cover it yet (the SM120 RTX PRO 6000 / RTX 5090 with 0.24.0's and 0.27's pins).",
         fix="Start with VLLM_USE_DEEP_GEMM=0 (CUTLASS or Triton FP8 block kernels are chosen instead), or use a release whose DeepGEMM pin supports this GPU.",
         source="vllm/platforms/cuda.py support_deep_gemm (0.20.0, 0.33.0); vllm/utils/deep_gemm.py is_deep_gemm_supported (VLLM_USE_DEEP_GEMM); https://github.com/vllm-project/vllm/issues/47436, https://github.com/deepseek-ai/DeepGEMM/pull/324"),
    # a KV-connector library of another vintage than the release: vLLM 0.8.2-0.9.0.1's V0 LMCache connector imports
    # lmcache.experimental.cache_engine (vllm/distributed/kv_transfer/kv_connector/lmcache_connector.py LMCacheConnector.__init__),
    # a module LMCache later renamed to lmcache.v1
    _sig("lmcache_module_missing", "no module named 'lmcache.", r"No module named '(?P<mod>lmcache\.[\w.]+)'", ERROR,
         symptom="import_undefined_symbol", layer="vllm_version_flags", weight=0.8, fatal=True,
         cause="This vLLM's LMCache connector imports {mod}, which the installed LMCache does not have: the two packages are of different vintages (LMCache renamed lmcache.experimental to lmcache.v1).",
         fix="Install the LMCache version this vLLM release was written against (or the vLLM release that matches the installed LMCache); with the V1 engine use LMCacheConnectorV1.",
         source="vllm/distributed/kv_transfer/kv_connector/lmcache_connector.py (0.8.2-0.9.0.1); https://github.com/LMCache/LMCache/issues/852"),
    # vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py NixlConnectorWorker.__init__ (0.9.0.1, 0.11.0;
    # nixl/base_worker.py in 0.33.0): logger.error("NIXL is not available"); raise RuntimeError("NIXL is not available")
    # when the nixl package cannot be imported. The bare warning of the module import is not fatal.
    # vllm/config.py CacheConfig.verify_with_parallel_config (0.7.2, 0.8.5.post1, 0.9.0.1): the swap space times the tensor
    # parallel size above 70% of total CPU memory raises ValueError("Too large swap space. " + "X GiB out of the Y GiB total
    # CPU memory is allocated for the swap space."); above 40% only warns ("Possibly too large swap space."). Added after the
    # fail9 held-out reading.
    _sig("swap_space_too_large", "too large swap space", r"(?<!Possibly )Too large swap space\. (?P<asked>[\d.]+) GiB out of the (?P<total>[\d.]+) GiB total CPU memory", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.8, fatal=True,
         cause="The CPU swap space asked for ({asked} GiB: --swap-space, 4 GiB per GPU by default, times the tensor-parallel size) is more than 70% of this host's {total} GiB of memory, which vLLM refuses.",
         fix="Pass a smaller --swap-space (swap_space=0 or 1 on small hosts; it is only used for preempted sequences), or run on a host with more memory.",
         versions="<=0.10", source="vllm/config.py CacheConfig.verify_with_parallel_config (0.7.2, 0.8.5.post1, 0.9.0.1)"),
    # ---- tenth round (fail10-) -----------------------------------------------------------
    # vllm/v1/worker/gpu/buffer_utils.py UvaBuffer.__init__ (0.29.0; Model Runner V2): RuntimeError("UVA is not available")
    # when vllm/utils/platform_utils.py is_uva_available() is false, i.e. pinned memory is unavailable; on WSL2
    # CudaPlatformBase.is_pin_memory_available() is false unless VLLM_WSL2_ENABLE_PIN_MEMORY=1 (vLLM PR #41496). Every public
    # thread is WSL2 under the V2 runner the release chose by default; the fix is the env var or the V1 runner.
    _sig("uva_not_available", "uva is not available", r"RuntimeError: UVA is not available", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.75, fatal=True,
         cause="The Model Runner V2 (which this release picks by default for the model) needs UVA, i.e. pinned host memory, and pinned memory is off here: on WSL2 vLLM leaves it off unless VLLM_WSL2_ENABLE_PIN_MEMORY=1.",
         fix="Set VLLM_WSL2_ENABLE_PIN_MEMORY=1 (WSL2 kernels >= 4.19.121), or run the V1 model runner (VLLM_USE_V2_MODEL_RUNNER=0 where the release has it), or a release that falls back to V1 when UVA is unavailable.",
         versions=">=0.20 (Model Runner V2)", source="vllm/v1/worker/gpu/buffer_utils.py UvaBuffer.__init__ (0.29.0); vllm/utils/platform_utils.py is_uva_available (0.29.0)"),
    # vllm/attention/layer.py Attention.__init__ (0.9.0.1) and vllm/model_executor/layers/attention/attention.py (0.29.0):
    # ValueError("fp8_e5m2 kv-cache is not supported with fp8 checkpoints.") when --kv-cache-dtype fp8_e5m2 meets a quant
    # method that loads KV scales (fp8 checkpoints; before vLLM PR #45040 any quantized checkpoint, e.g. INT4 AWQ).
    _sig("fp8_e5m2_kv_fp8_checkpoint", "fp8_e5m2 kv-cache is not supported", r"fp8_e5m2 kv-cache is not supported with fp8 checkpoints", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.75, fatal=True,
         cause="--kv-cache-dtype fp8_e5m2 was asked of a checkpoint whose quantization loads KV-cache scales (an FP8 checkpoint; releases before vLLM PR #45040 also refused weight-only INT4/AWQ checkpoints here), and vLLM refuses the combination: the scales are for e4m3.",
         fix="Use --kv-cache-dtype fp8 (fp8_e4m3) or auto with this checkpoint; for a weight-only quantized checkpoint, a release with PR #45040.",
         source="vllm/attention/layer.py Attention.__init__ (0.9.0.1); vllm/model_executor/layers/attention/attention.py (0.29.0)"),
    # vllm/worker/openvino_model_runner.py and vllm/worker/hpu_model_runner.py _prepare_prompt (0.7.2, 0.9.0.1; the
    # vllm-openvino plugin keeps it): RuntimeError("chunked prefill cannot be used with prefix caching now.")
    _sig("chunked_prefill_with_prefix_caching", "chunked prefill cannot be used with prefix caching", r"chunked prefill cannot be used with prefix caching", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.75, fatal=True,
         cause="This backend (OpenVINO or Gaudi/HPU model runner) cannot run chunked prefill together with prefix caching, and both are enabled.",
         fix="Disable one of them: drop --enable-chunked-prefill or pass --no-enable-prefix-caching.",
         source="vllm/worker/openvino_model_runner.py, vllm/worker/hpu_model_runner.py _prepare_prompt (0.7.2, 0.9.0.1)"),
    # Expandable segments with vLLM's CuMem memory pool (sleep mode): vllm/device_allocator/cumem.py CuMemAllocator.__init__
    # (0.9.0.1) asserts "Expandable segments are not compatible with memory pool."; where vLLM does not check, PyTorch's
    # c10/cuda/CUDACachingAllocator.cpp raises TORCH_CHECK "MemPool doesn't currently support expandable_segments." (the XPU
    # allocator: "torch.xpu.MemPool ..."). Owners in public threads: the environment, or the framework that sets
    # PYTORCH_CUDA_ALLOC_CONF for its training side (OpenPipe ART and Unsloth strip it in their own code): a hint.
    _sig("expandable_segments_mempool", "expandable_segments|expandable segments", r"(?:MemPool doesn't currently support expandable_segments|Expandable segments are not compatible with memory pool)", ERROR,
         symptom="invalid_engine_flags", layer="container_environment", weight=0.55, fatal=True,
         cause="PYTORCH_CUDA_ALLOC_CONF (or PYTORCH_ALLOC_CONF) has expandable_segments:True while vLLM allocates inside its CuMem memory pool (sleep mode), which PyTorch's MemPool does not support; the variable is set by the environment or by a training framework that runs vLLM.",
         fix="Remove expandable_segments:True from PYTORCH_CUDA_ALLOC_CONF for the vLLM process (or disable sleep mode); releases from 0.20.1 toggle it off around the pool themselves.",
         source="vllm/device_allocator/cumem.py CuMemAllocator.__init__ (0.9.0.1); PyTorch c10/cuda/CUDACachingAllocator.cpp (TORCH_CHECK in the allocator's malloc)"),
    # vllm/lora/peft_helper.py PEFTHelper._validate_features (0.9.0.1, 0.29.0): "vLLM only supports modules_to_save being None."
    _sig("lora_modules_to_save", "modules_to_save being none", r"vLLM only supports modules_to_save being None", ERROR,
         symptom="invalid_engine_flags", layer="model_weights", weight=0.7, fatal=True,
         cause="The LoRA adapter saves whole modules (modules_to_save, e.g. embed_tokens/lm_head after resizing the vocabulary), which vLLM's LoRA loader does not accept.",
         fix="Retrain without modules_to_save (no vocabulary resize), or merge the adapter into the base weights and serve the merged model.",
         source="vllm/lora/peft_helper.py PEFTHelper._validate_features (0.9.0.1, 0.29.0)"),
    # vllm/utils.py get_cuda_view_from_cpu_tensor (0.9.0.1; vllm/utils/torch_utils.py get_accelerator_view_from_cpu_tensor
    # later): assert cpu_tensor.is_pinned(), "CPU tensor must be pinned" -- the UVA weight offloader (--cpu-offload-gb).
    # Owners: a host without pinned memory (WSL2, VLLM_WEIGHT_OFFLOADING_DISABLE_PIN_MEMORY) or the release on XPU with
    # zero-element tensors (vLLM PR #51770): a hint.
    _sig("cpu_tensor_not_pinned", "cpu tensor must be pinned", r"CPU tensor must be pinned", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.5, fatal=True,
         cause="--cpu-offload-gb's UVA offloader found a CPU weight that is not pinned: pinned memory is unavailable or disabled on this host (WSL2, VLLM_WEIGHT_OFFLOADING_DISABLE_PIN_MEMORY), or the release's XPU path meets zero-element tensors of a quantized checkpoint (fixed by vLLM PR #51770).",
         fix="Run without --cpu-offload-gb, enable pinned memory (VLLM_WSL2_ENABLE_PIN_MEMORY=1 on WSL2), or use a release with the XPU offloading fix.",
         source="vllm/utils.py get_cuda_view_from_cpu_tensor (0.9.0.1)"),
    # vllm/config.py SpeculativeConfig (0.9.0.1): ValueError("num_speculative_tokens was provided without speculative_model.");
    # vllm/config/speculative.py (0.29.0): "num_speculative_tokens was provided but without speculative model."
    _sig("spec_tokens_without_model", "num_speculative_tokens was provided", r"num_speculative_tokens was provided (?:but )?without speculative[ _]model", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.8, fatal=True,
         cause="num_speculative_tokens was given without a draft model or method the checkpoint provides (MTP needs a checkpoint with MTP layers; distilled models have none).",
         fix="Name the draft model or method in --speculative-config (model / method), or drop num_speculative_tokens.",
         source="vllm/config.py SpeculativeConfig (0.9.0.1); vllm/config/speculative.py (0.29.0)"),
    # vllm/config.py SpeculativeConfig._verify_args (0.8.5): ValueError("num_speculative_tokens must be provided with speculative
    # model unless the draft model config contains an n_predict parameter.") -- a draft model named without the count.
    _sig("spec_tokens_required", "num_speculative_tokens must be provided", r"num_speculative_tokens must be provided with speculative model", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.8, fatal=True,
         cause="A draft model was given in the speculative config without num_speculative_tokens, and its config has no n_predict to take it from (older examples, EAGLE's among them, left it out).",
         fix="Add num_speculative_tokens to --speculative-config (e.g. 2-5 for EAGLE drafts).",
         source="vllm/config.py SpeculativeConfig._verify_args (0.8.5); https://github.com/vllm-project/vllm/pull/20375"),
    # Prefix caching refused with a sliding window: vllm/worker/model_runner.py ModelRunner._prepare_prompt (0.3.3) asserts
    # "Prefix caching is currently not supported with sliding window attention"; vllm/core/block_manager_v1.py
    # BlockSpaceManagerV1.__init__ (0.4.0.post1) raises NotImplementedError("Sliding window is not allowed with prefix caching
    # enabled!"). The window comes from the model's config.json (0.3.x read Qwen1.5's sliding_window even with
    # use_sliding_window false, vLLM PR #3377); V1 allows both (vLLM PR #13069).
    _sig("sliding_window_prefix_caching", "not allowed with prefix caching|not supported with sliding window attention",
         r"Sliding window is not allowed with prefix caching enabled|Prefix caching is currently not supported with sliding window attention", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.75, fatal=True,
         cause="Prefix caching was enabled for a model whose config declares a sliding window (Mistral-7B, Qwen1.5 configs), and this release's V0 block manager cannot prefix-cache with sliding-window attention.",
         fix="Pass --disable-sliding-window (max_model_len is then capped at the window), drop prefix caching, or use a V1 release, which allows both.",
         source="vllm/worker/model_runner.py ModelRunner._prepare_prompt (0.3.3); vllm/core/block_manager_v1.py BlockSpaceManagerV1.__init__ (0.4.0.post1); https://github.com/vllm-project/vllm/pull/13069"),
    # A request with more items of one modality than the server's limit: vllm/multimodal/registry.py
    # MultiModalRegistry.map_input (0.6.1.post2) "You set {key}={n} (or defaulted to 1) in `--limit-mm-per-prompt`, but found
    # {k} items in the same prompt." (a list counts each element, so a video passed as a list of frames is k items);
    # vllm/multimodal/processing.py BaseMultiModalProcessor._to_mm_items (0.8.5) "You set or defaulted to '{...}' in
    # `--limit-mm-per-prompt`, but passed {k} {modality} items in the same prompt." Owners in public threads: the client's
    # request (frames as separate items, Qwen3-VL#89) or the server's limit: a hint.
    _sig("mm_limit_per_prompt_exceeded", "in `--limit-mm-per-prompt`, but", r"in `--limit-mm-per-prompt`, but (?:found|passed) (?P<n>\d+)", ERROR,
         symptom="invalid_engine_flags", layer="client_code", weight=0.55, fatal=True,
         cause="A request carried {n} multimodal items of one kind, more than the server's --limit-mm-per-prompt (1 by default); a video or image set sent as a list is counted item by item.",
         fix="Send the video as one array/tensor (not a list of frames) or fewer items per prompt, or start the server with a higher --limit-mm-per-prompt.",
         source="vllm/multimodal/registry.py MultiModalRegistry.map_input (0.6.1.post2); vllm/multimodal/processing.py BaseMultiModalProcessor._to_mm_items (0.8.5)"),
    # vllm/entrypoints/openai/serving_chat.py OpenAIServingChat.create_chat_completion (0.6.1.post2, 0.8.5) answers a
    # request with tool_choice "auto" by: "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser
    # to be set". Owners in public threads: the server's flags, or a client that sends tools to a server not meant for
    # them: a hint.
    _sig("auto_tool_choice_flags", "tool choice requires --enable-auto-tool-choice", r"tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.55,
         cause="A chat request asked for tool_choice \"auto\" (tools sent), but the server was started without --enable-auto-tool-choice and a --tool-call-parser; the server refuses such requests.",
         fix="Start the server with --enable-auto-tool-choice --tool-call-parser <parser for the model> (hermes, llama3_json, mistral, ...), or stop sending tools/tool_choice to it.",
         source="vllm/entrypoints/openai/serving_chat.py OpenAIServingChat.create_chat_completion (0.6.1.post2, 0.8.5)"),
    # llguidance's API moved under vLLM: vllm/v1/structured_output/backend_guidance.py validate_guidance_grammar (0.8.5) calls
    # llguidance.LLMatcher.validate_grammar(guidance_grm, tokenizer) and the wheel pins llguidance>=0.7.9,<0.8.0; an
    # llguidance whose signature differs from the one the release calls makes CPython raise "... got some positional-only
    # arguments passed as keyword arguments" or "got an unexpected keyword argument" (Python/ceval.c).
    _sig("llguidance_api_mismatch", "llmatcher.", r"LLMatcher\.(?P<fn>\w+)\(\) (?:got some positional-only arguments passed as keyword arguments|got an unexpected keyword argument)", ERROR,
         symptom="import_undefined_symbol", layer="vllm_version_flags", weight=0.7, fatal=True,
         cause="The installed llguidance's LLMatcher.{fn} takes different arguments from the ones this vLLM passes: the llguidance version does not match the range the release was built against.",
         fix="Install the llguidance version the vLLM release requires (pip install 'vllm[...]' pins it; e.g. llguidance 0.7.11 for 0.8.x), or use another --guided-decoding-backend.",
         source="vllm/v1/structured_output/backend_guidance.py validate_guidance_grammar (0.8.5); https://github.com/vllm-project/vllm/issues/16339"),
    # vLLM's dense CUTLASS entry (csrc/quantization/.../scaled_mm_entry.cu cutlass_scaled_mm): the strings in the wheels'
    # extension ("No compiled cutlass_scaled_mm for CUDA device capability: " + ". Required capability: 90 or 100" in
    # vllm/_C.abi3.so 0.11.0 and vllm/_C_stable_libtorch.abi3.so 0.33.0, which adds "100 or 120"). No path of this build
    # covers the GPU: for a Blackwell (capability 100+) that is the build's kernel set, as for the MoE guard below.
    _sig("cutlass_scaled_mm_no_kernel_blackwell", "no compiled cutlass_scaled_mm for cuda device capability", r"No compiled cutlass_scaled_mm for CUDA device capability: (?P<cap>1\d\d)\b(?:\. Required capability: (?P<req>[\d, or]*\d))?", ERROR,
         symptom="quant_unsupported_on_gpu", layer="vllm_version_flags", weight=0.7, fatal=True,
         cause="This build of vLLM has no CUTLASS scaled_mm (FP8/INT8 GEMM) kernel for compute capability {cap} (it covers {req}): the FP8 path picked a CUTLASS kernel the build does not have for this Blackwell GPU.",
         fix="Use a build or release whose kernels cover this GPU (or the previous build that worked), or another kernel or MoE backend for the FP8 layers.",
         source="vllm csrc/quantization/cutlass_w8a8/scaled_mm_entry.cu cutlass_scaled_mm (strings of vllm/_C.abi3.so 0.11.0, vllm/_C_stable_libtorch.abi3.so 0.33.0); https://github.com/vllm-project/vllm/issues/32109"),
    _sig("cutlass_scaled_mm_no_kernel_older", "no compiled cutlass_scaled_mm for cuda device capability", r"No compiled cutlass_scaled_mm for CUDA device capability: (?P<cap>[1-9]\d)\b(?:\. Required capability: (?P<req>[\d, or]*\d))?", ERROR,
         symptom="quant_unsupported_on_gpu", layer="gpu", weight=0.5, fatal=True,
         cause="No CUTLASS scaled_mm kernel of this vLLM build runs on compute capability {cap} (the message names {req}): the GPU is older than the kernels, or the build left its kernels out.",
         fix="Use another quantization (or kernel) this GPU supports, or a build with kernels for it.",
         source="vllm csrc/quantization/cutlass_w8a8/scaled_mm_entry.cu cutlass_scaled_mm (strings of vllm/_C.abi3.so 0.11.0, 0.33.0)"),
    # csrc/quantization/.../scaled_mm_entry.cu (vLLM main; PR #24968 added SM120): STD_TORCH_CHECK_NOT_IMPLEMENTED "No compiled
    # get_cutlass_moe_mm_...: no cutlass_scaled_mm kernel for CUDA device capability: <N>. Required capability: 90, 100, or 120"
    # (older builds: "90 or 100"). A capability of 100 or more is a Blackwell the build has no kernels for: the release's.
    _sig("cutlass_moe_no_kernel_blackwell", "no cutlass_scaled_mm kernel for cuda device capability", r"No compiled (?P<fn>\w+): no cutlass_scaled_mm kernel for CUDA device capability: (?P<cap>1\d\d)\b", ERROR,
         symptom="quant_unsupported_on_gpu", layer="vllm_version_flags", weight=0.7, fatal=True,
         cause="This build of vLLM has no CUTLASS {fn} kernel for compute capability {cap} (a Blackwell GPU the release's kernels did not cover yet; SM120 MoE kernels came with vLLM PR #24968).",
         fix="Use a release built with kernels for this GPU (for SM120, one after PR #24968), or another quantization of the model (FP8, or a non-MoE path).",
         source="vllm csrc/quantization/cutlass_w8a8/scaled_mm_entry.cu (get_cutlass_moe_mm_* guards; PR #24968)"),
    _sig("cutlass_moe_no_kernel_older", "no cutlass_scaled_mm kernel for cuda device capability", r"No compiled (?P<fn>\w+): no cutlass_scaled_mm kernel for CUDA device capability: (?P<cap>[1-9]\d)\b(?:\. Required capability: (?P<req>[\d, or]*\d))?", ERROR,
         symptom="quant_unsupported_on_gpu", layer="gpu", weight=0.5, fatal=True,
         cause="The CUTLASS {fn} kernel exists only for Hopper and newer (capability 90+); this GPU is {cap}, or the build left its kernels out.",
         fix="Use another quantization or MoE backend this GPU supports, or a GPU of capability 90 or more.",
         source="vllm csrc/quantization/cutlass_w8a8/scaled_mm_entry.cu (get_cutlass_moe_mm_* guards)"),
    # vLLM's per-architecture kernel entry points are free functions named *_sm<arch> (cutlass_scaled_mm_sm90,
    # cutlass_moe_mm_sm100, declared in csrc/quantization/cutlass_w8a8/scaled_mm_entry.cu and guarded by ENABLE_*_SM<arch>):
    # an undefined one in vllm/_C is vLLM's build (a guard enabled without its kernel compiled), not torch's ABI.
    _sig("undefined_symbol_vllm_arch_kernel", "undefined symbol", r"_C[\w.]*\.so: undefined symbol: _Z\d+(?P<fn>[a-z]\w*?_sm\d+a?)(?=[A-Z]|$)", ERROR,
         symptom="import_undefined_symbol", layer="vllm_version_flags", weight=0.92, fatal=True,
         cause="vLLM's compiled extension calls its own per-architecture kernel {fn}, which the build did not compile: the build's architecture flags enabled the call without the kernel (a from-source build with this CUDA / TORCH_CUDA_ARCH_LIST, or a release's CMake bug).",
         fix="Rebuild with an architecture list that includes the kernel's architecture (or a fixed CMakeLists), or install a published wheel.",
         source="vllm csrc/quantization/cutlass_w8a8/scaled_mm_entry.cu (*_sm90/*_sm100 entry points, ENABLE_CUTLASS_MOE_SM100); https://github.com/vllm-project/vllm/issues/29030"),
    _sig("nixl_not_available", "nixl is not available", r"RuntimeError: NIXL is not available", ERROR,
         symptom="import_undefined_symbol", layer="container_environment", weight=0.75, fatal=True,
         cause="--kv-transfer-config asked for the NixlConnector, but the nixl package cannot be imported in this environment (not installed in the image, or a platform NIXL does not support), so the connector refuses to start.",
         fix="Install NIXL (the nixl package with its UCX) in the image on a platform it supports, or use another KV connector / no disaggregated prefill.",
         source="vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py (0.9.0.1, 0.11.0), nixl/base_worker.py (0.33.0)"),
    # vllm/distributed/kv_transfer/kv_connector/factory.py (0.8.5, 0.9.0.1): create_connector_v1 asserts
    # issubclass(connector_cls, KVConnectorBase_V1) and create_connector_v0 asserts issubclass(connector_cls, KVConnectorBase)
    # on the class registered under --kv-transfer-config's kv_connector name. The V1 engine's assert fires on a V0-only
    # connector name (PyNcclConnector -> SimpleConnector, the V0 LMCacheConnector), the V0 engine's on a V1-only one
    # (NixlConnector, LMCacheConnectorV1): the connector named does not belong to the engine that runs.
    _sig("kv_connector_v0_on_v1_engine", "assert issubclass(connector_cls, kvconnectorbase_v1)", r"assert issubclass\(connector_cls, KVConnectorBase_V1\)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.75, fatal=True,
         cause="--kv-transfer-config names a KV connector registered for the V0 engine (PyNcclConnector, the V0 LMCacheConnector) while the V1 engine runs, and V1 accepts only KVConnectorBase_V1 connectors.",
         fix="Name a V1 connector (NixlConnector, P2pNcclConnector, LMCacheConnectorV1, SharedStorageConnector), or run the V0 engine (VLLM_USE_V1=0) on a release that still has it.",
         source="vllm/distributed/kv_transfer/kv_connector/factory.py KVConnectorFactory.create_connector_v1 (0.8.5, 0.9.0.1)"),
    # The factory's lookup of the kv_connector name: ValueError(f"Unsupported connector type: {connector_name}")
    # (create_connector_v0 in 0.8.5; create_connector_v1 in 0.9.0.1; the one factory in 0.33.0): the name is not registered
    # in this release (a V0 name such as LMCacheConnector or PyNcclConnector after V0's removal, a V1 name under V0 in 0.8.x).
    _sig("kv_connector_unknown", "unsupported connector type", r"Unsupported connector type: (?P<name>[\w.]+)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.8, fatal=True,
         cause="--kv-transfer-config names a KV connector ({name}) that this vLLM release does not register for the engine that runs (a V0 connector name after V0 was removed, a V1 name under the V0 engine, or a name from another release's docs).",
         fix="Use a connector name this release registers for its engine (LMCacheConnectorV1 rather than LMCacheConnector, NixlConnector or P2pNcclConnector rather than PyNcclConnector), or load an external one with kv_connector_module_path.",
         source="vllm/distributed/kv_transfer/kv_connector/factory.py (0.8.5, 0.9.0.1, 0.33.0)"),
    # vllm/distributed/kv_transfer/kv_connector/v1/nixl/base_worker.py NixlBaseConnectorWorker.__init__ (0.29.0, 0.30.0,
    # 0.33.0): a hybrid (Mamba) model's conv state is sent in three reads, which asserts the DS layout ("3-read Mamba conv
    # transfer requires DS conv state layout. Set VLLM_SSM_CONV_STATE_LAYOUT=DS"); vllm/envs.py VLLM_SSM_CONV_STATE_LAYOUT
    # (SD or DS, unset = SD). 0.33.0's CPU platform selects DS itself when a NIXL connector is configured
    # (vllm/platforms/cpu.py); earlier CPU builds forced SD against the assert (https://github.com/vllm-project/vllm/issues/58034).
    _sig("nixl_mamba_conv_layout", "mamba conv transfer requires ds conv state layout", r"Mamba conv transfer requires DS conv state layout", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="The NIXL KV connector moves a hybrid (Mamba) model's conv state in three reads, which needs the DS conv-state layout, and this engine runs the default SD layout (VLLM_SSM_CONV_STATE_LAYOUT not set to DS; on the CPU backend before 0.33 the platform forced SD).",
         fix="Start every prefill and decode instance with VLLM_SSM_CONV_STATE_LAYOUT=DS (on the CPU backend, a release whose platform keeps DS for NIXL, 0.33.0 or later).",
         versions="0.29-0.33", source="vllm/distributed/kv_transfer/kv_connector/v1/nixl/base_worker.py NixlBaseConnectorWorker.__init__ (0.29.0, 0.30.0, 0.33.0); vllm/envs.py VLLM_SSM_CONV_STATE_LAYOUT"),
    _sig("kv_connector_v1_on_v0_engine", "assert issubclass(connector_cls, kvconnectorbase)", r"assert issubclass\(connector_cls, KVConnectorBase\)(?!_)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.65, fatal=True,
         cause="--kv-transfer-config names a connector that is not a V0 KVConnectorBase (a V1 connector such as NixlConnector or LMCacheConnectorV1) while the V0 engine runs (VLLM_USE_V1=0, or a GPU or feature the release does not run on V1).",
         fix="Run the V1 engine with a V1 connector (check the log for why the engine fell back to V0), or name a V0 connector.",
         source="vllm/distributed/kv_transfer/kv_connector/factory.py KVConnectorFactory.create_connector_v0 (0.8.5, 0.9.0.1)"),
    # vllm/model_executor/layers/quantization/compressed_tensors/compressed_tensors.py _get_scheme_from_parts (0.7.2,
    # 0.8.5.post1, 0.10.0, 0.20.0): NotImplementedError("No compressed-tensors compatible scheme was found."). Owners in
    # public threads: the GPU (a scheme's get_min_capability, e.g. NVFP4 W4A4 at 100), a scheme the release predates, the
    # compressed-tensors package version: a hint.
    _sig("compressed_tensors_no_scheme", "no compressed-tensors compatible scheme", r"No compressed-tensors compatible scheme was found", ERROR,
         symptom="quant_unsupported_on_gpu", layer="vllm_version_flags", weight=0.5, fatal=True,
         cause="No compressed-tensors scheme of this vLLM accepts the checkpoint's quantization on this GPU: the scheme needs a newer GPU (NVFP4 W4A4 asks for compute capability 10.0 where no fallback exists), the release predates the scheme (block FP8, a weights strategy 'block' with a block_structure, is read from vLLM 0.11.0), or the compressed-tensors package is too old for the checkpoint.",
         fix="Check the checkpoint's quantization_config against the release's supported schemes and the GPU's compute capability; use a newer release (fallback kernels), a GPU that has the scheme, or another quantization of the model.",
         source="vllm/model_executor/layers/quantization/compressed_tensors/compressed_tensors.py _get_scheme_from_parts (0.7.2, 0.8.5.post1, 0.10.0, 0.20.0)"),
    # the interpreter that ran the server has no vllm package: `python -m vllm.entrypoints.openai.api_server` prints
    # "Error while finding module specification for 'vllm.entrypoints.openai.api_server' (ModuleNotFoundError: No
    # module named 'vllm')" (CPython's runpy), `vllm serve` in a shell "vllm: command not found"; 'vllm._C' (a broken
    # build) is the signature below
    _sig("vllm_not_installed", "no module named 'vllm'|no module named vllm|vllm: command not found",
         r"No module named '?vllm'?(?=$|[)\s,])|\bvllm: command not found", ERROR,
         symptom="import_undefined_symbol", layer="pytorch_wheel", weight=0.9, fatal=True,
         cause="The Python (or shell) that ran the server has no vLLM installed: another virtualenv or conda env was active, the job's PATH points at a different interpreter, or the install failed.",
         fix="Run the server with the interpreter of the environment vLLM is installed in (check `which python` and `python -m pip show vllm` in the same job), or pip install vllm into that environment.",
         source="CPython runpy (python -m on a missing package); the bash 'command not found' message"),
    # A vLLM submodule that does not import: vLLM moves modules between releases (vllm/utils/torch_utils.py is absent in
    # 0.7.2 and 0.11.0 and present in 0.22.0 and 0.33.0; vllm/entrypoints/serve/render/ is in 0.22.0 and gone in 0.33.0), so
    # a plugin or framework built against one release (LMCache, KServe's huggingfaceserver) fails to import under another.
    # Private extension modules (vllm._C, vllm._rocm_C, ...) and the bundled flash-attn are other rows. A hint: a partial
    # install gives the same line. Only the exception's own line (a traceback's last, "ModuleNotFoundError: No module
    # named ..."): a WARNING that an optional import failed ("Failed to import ...: No module named 'vllm.x'") is a
    # start that went on, and a fatal signature on it would turn a healthy log into a failed one.
    _sig("vllm_submodule_missing", "no module named 'vllm.",
         r"(?:^|[\s:])(?:ModuleNotFoundError|ImportError): No module named '(?P<mod>vllm\.(?!vllm_flash_attn\b)[a-z][\w.]*)'", ERROR,
         symptom="import_undefined_symbol", layer="vllm_version_flags", weight=0.5, fatal=True,
         cause="Something imported {mod}, which this vLLM release does not have: a plugin or framework (a KV connector package, a serving framework) built for another vLLM release, or an incomplete install.",
         fix="Install the vLLM version the importing package supports (its pin or compatibility table), or a release of that package built for this vLLM; if vLLM itself imports it, reinstall vLLM.",
         source="Python ModuleNotFoundError; vllm/utils/torch_utils.py (absent in 0.7.2 and 0.11.0, present in 0.22.0 and 0.33.0), vllm/entrypoints/serve/render (0.22.0, gone in 0.33.0)"),
    _sig("vllm_c_missing", "no module named 'vllm._c'", r"No module named 'vllm\._C'", ERROR,
         symptom="import_undefined_symbol", layer="pytorch_wheel", weight=0.7,
         cause="vLLM's compiled extension (vllm._C) is missing: the install is broken or vLLM is run from a source tree that was never built.",
         fix="Reinstall vLLM from a wheel in a fresh virtualenv (or build it: pip install -e . in the source tree).",
         source="https://github.com/vllm-project/vllm/issues/9701"),
    _sig("driver_too_old", "driver on your system is too old", r"The NVIDIA driver on your system is too old(?: \(found version (?P<found>\d+)\))?", ERROR,
         symptom="driver_too_old", layer="nvidia_driver", weight=0.9, fatal=True,
         cause="The NVIDIA driver supports CUDA up to {found_cuda}, older than the CUDA runtime the installed torch/vLLM was built for.",
         fix="Update the host driver, or install the torch/vLLM build for the CUDA the driver supports.",
         source="torch/cuda/__init__.py; gpu-facts.md §6"),
    # CUDA's error string of cudaErrorUnsupportedPtxVersion (222): the PTX in the binary was produced by a newer toolkit than the
    # driver's JIT supports; vLLM's troubleshooting guide (docs/usage/troubleshooting.md, PR #28305) gives the driver as the fix
    _sig("ptx_unsupported_toolchain", "ptx was compiled with an unsupported toolchain", r"the provided PTX was compiled with an unsupported toolchain", ERROR,
         symptom="driver_too_old", layer="nvidia_driver", weight=0.8, fatal=True,
         cause="A kernel's PTX was built with a newer CUDA toolkit than the installed NVIDIA driver can JIT-compile: the driver is older than the CUDA the wheel (or its kernels) was built with.",
         fix="Update the NVIDIA driver to one that supports the wheel's CUDA version, or install a vLLM/torch build for the driver's CUDA.",
         source="CUDA runtime cudaErrorUnsupportedPtxVersion; vLLM docs/usage/troubleshooting.md (PR #28305); https://github.com/vllm-project/vllm/issues/31700"),
    _sig("driver_insufficient", "driver version is insufficient", r"CUDA driver version is insufficient for CUDA runtime version", ERROR,
         symptom="driver_too_old", layer="nvidia_driver", weight=0.85, fatal=True,
         cause="The NVIDIA driver is older than the CUDA runtime bundled with vLLM/torch (CUDA error 35).",
         fix="Update the host NVIDIA driver to the minimum for the wheel's CUDA runtime, or install a build for an older CUDA.",
         source="CUDA runtime error 35 (cudaErrorInsufficientDriver)"),
    _sig("container_cuda_requirement", "unsatisfied condition: cuda>=", r"requirement error: unsatisfied condition: cuda>=(?P<cuda>\d+\.\d+)", ERROR,
         symptom="driver_too_old", layer="nvidia_driver", weight=0.9, fatal=True,
         cause="The NVIDIA container toolkit refused to start the container: the image declares CUDA >= {cuda}, and the host driver supports an older CUDA.",
         fix="Update the host NVIDIA driver to one that supports CUDA {cuda}, or run an image built for an older CUDA (an older vLLM release).",
         source="libnvidia-container (nvidia-container-cli) NVIDIA_REQUIRE_CUDA check; https://github.com/vllm-project/vllm/issues/5635"),
    _sig("cuda_error_803", "error 803|cudaerrorsystemdrivermismatch", r"Error 803: system has unsupported display driver / cuda driver combination|Error 803\b|cudaErrorSystemDriverMismatch", ERROR,
         symptom="driver_too_old", layer="cuda_runtime", weight=0.7, fatal=True,
         cause="CUDA error 803: the CUDA user-space library loaded in the process does not match the kernel driver.",
         fix="Check the host driver version first (nvidia-smi).",
         source="https://github.com/vllm-project/vllm/issues/35593"),
    _sig("cuda_error_804", "error 804", r"Error 804: forward compatibility was attempted on non supported HW|Error 804\b", ERROR,
         symptom="driver_too_old", layer="nvidia_driver", weight=0.8, fatal=True,
         cause="CUDA error 804: the image's CUDA runtime is newer than the host driver, and forward compatibility (the cuda-compat package) is not supported on this GPU (consumer GPUs never support it).",
         fix="Update the host driver to the minimum for the image's CUDA runtime, or use an older vLLM image built for a CUDA the driver supports.",
         source="https://github.com/vllm-project/vllm/issues/5252; CUDA forward compatibility docs"),
    # ---- the container's command ----------------------------------------------------------
    # The container runtime cannot start the pod's or container's command: the image has no such executable on its
    # PATH. Go's os/exec (lp_unix.go: ErrNotFound "executable file not found in $PATH", Error.Error() = `exec: "NAME": `
    # + the error) as runc prints it ("unable to start container process: exec: \"vllm\": executable file not found in
    # $PATH: unknown", vllm-project/production-stack#454), and crun's own wording under CRI-O ("executable file `NAME`
    # not found in $PATH: No such file or directory", production-stack#869). Nothing of vLLM ran: the image (its tag, a
    # virtualenv left off PATH) or the command written for another image owns it.
    _sig("container_exec_not_found", "not found in $path",
         r"(?:\"|executable file `)(?P<exe>[^\"`\s]+)(?:\": executable file not found in \$PATH|` not found in \$PATH)", ERROR,
         symptom="import_undefined_symbol", layer="container_environment", weight=0.8, fatal=True,
         cause="The container runtime could not start the container's command: the image has no '{exe}' executable on its PATH (an image tag without vLLM or with it in a virtualenv off the PATH, or a command written for another image), so nothing of vLLM ran.",
         fix="Check the image: docker run --rm --entrypoint sh IMAGE -c 'command -v {exe}'; pin a tag whose PATH has it, call it by its full path (the image's virtualenv bin), or use the image's own entrypoint instead of overriding the command.",
         source="Go os/exec lp_unix.go (ErrNotFound) as runc prints it; crun under CRI-O; https://github.com/vllm-project/production-stack/issues/454, https://github.com/vllm-project/production-stack/issues/869"),
    # ---- GPU visibility in containers -----------------------------------------------------
    _sig("no_device_type", "failed to infer device type", r"Failed to infer device type", ERROR,
         symptom="gpu_not_detected_in_container", layer="nvidia_driver", weight=0.85, fatal=True,
         cause="vLLM found no CUDA platform: the NVIDIA driver libraries (libcuda, libnvidia-ml) are not visible inside the container or environment.",
         fix="Run the container with the GPU exposed (--gpus all / nvidia runtime / a GPU resource request) and make the driver libraries visible (on GKE add /usr/local/nvidia/lib64 to LD_LIBRARY_PATH).",
         source="https://github.com/vllm-project/vllm/issues/18859"),
    _sig("nvml_missing", "nvml shared library not found|libnvidia-ml.so", r"NVML Shared Library Not Found|libnvidia-ml\.so[.\d]*: cannot open shared object file", ERROR,
         symptom="gpu_not_detected_in_container", layer="nvidia_driver", weight=0.85,
         cause="The driver's NVML library is not on the library path inside the container, so vLLM cannot see the GPU.",
         fix="Expose the GPU to the container (nvidia container runtime) and put the mounted driver libraries on LD_LIBRARY_PATH (GKE: /usr/local/nvidia/lib64).",
         source="https://github.com/vllm-project/vllm/issues/23805"),
    _sig("no_cuda_gpus", "no cuda gpus are available|found no nvidia driver|could not select device driver|cuda platform is not available", r"No CUDA GPUs are available|Found no NVIDIA driver on your system|could not select device driver .* with capabilities: \[\[gpu\]\]|CUDA platform is not available", ERROR,
         symptom="gpu_not_detected_in_container", layer="nvidia_driver", weight=0.8, fatal=True,
         cause="No GPU is visible to the process: the driver is missing or the container was started without GPU access.",
         fix="Start the container with GPU access (--gpus all, the nvidia runtime, or a nvidia.com/gpu resource) and check nvidia-smi inside it.",
         source="torch/cuda; docker nvidia runtime"),
    _sig("no_hip_gpus", "no hip gpus are available", r"No HIP GPUs are available", ERROR,
         symptom="gpu_not_detected_in_container", layer="container_environment", weight=0.85, fatal=True,
         cause="PyTorch's ROCm build found no AMD GPU: the process cannot open /dev/kfd and /dev/dri (the container was started without those devices, or its user is not in the group that owns them on the host).",
         fix="Start the container with --device /dev/kfd --device /dev/dri and the render/video groups (--group-add video, or the host's numeric render GID; podman: --group-add keep-groups), then check rocminfo inside it.",
         source="torch/cuda/__init__.py _lazy_init (ROCm build); https://github.com/vllm-project/vllm/issues/34573, https://github.com/vllm-project/vllm/issues/7207"),
    _sig("cuda_busy", "busy or unavailable", r"CUDA-capable device\(s\) (?:is/are|are|is) busy or unavailable", ERROR,
         symptom="gpu_not_detected_in_container", layer="nvidia_driver", weight=0.8, fatal=True,
         cause="The GPU refuses a new CUDA context: it is in Exclusive_Process compute mode with another process on it, or the device handed to the container is held elsewhere.",
         fix="Free the GPU (nvidia-smi shows who holds it) or set the compute mode back to Default (nvidia-smi -c DEFAULT); in Kubernetes, do not share one GPU between pods.",
         source="CUDA cudaErrorDevicesUnavailable"),
    _sig("cuda_fork", "cannot re-initialize cuda in forked subprocess", r"Cannot re-initialize CUDA in forked subprocess", ERROR,
         symptom="cuda_fork_init", layer="client_code", weight=0.85, fatal=True,
         cause="CUDA was initialised in the parent process (a torch.cuda call or CUDA import before vLLM starts its workers), and a forked worker cannot use it.",
         fix="Do not touch CUDA before creating the engine, put the entry point under `if __name__ == \"__main__\":`, or set VLLM_WORKER_MULTIPROC_METHOD=spawn.",
         source="torch/cuda/__init__.py _lazy_init; vllm docs (multiprocessing)"),
    _sig("cuda_error_802", "error 802|cudaerrorsystemnotready", r"Error 802: system not yet initialized|cudaErrorSystemNotReady", ERROR,
         symptom="gpu_not_detected_in_container", layer="nvidia_driver", weight=0.85, fatal=True,
         cause="CUDA error 802 (system not yet initialized): the GPUs are visible but CUDA cannot initialise them. On NVSwitch systems (HGX A100/H100/H200/B200) this is the NVIDIA fabric manager not installed, not running, or not finished configuring the fabric.",
         fix="On the host: install nvidia-fabricmanager of the same version as the driver and start it (systemctl enable --now nvidia-fabricmanager), then check `nvidia-smi -q | grep -A2 Fabric` reads Completed before starting vLLM.",
         source="CUDA runtime cudaErrorSystemNotReady (802); https://github.com/gpustack/gpustack/issues/1254 (fabric manager installed, resolved)"),
    _sig("no_platform", "no platform detected|unspecifiedplatform", r"No platform detected, vLLM is running on UnspecifiedPlatform|running on UnspecifiedPlatform", ERROR,
         symptom="gpu_not_detected_in_container", layer="nvidia_driver", weight=0.75, fatal=True,
         cause="vLLM detected no platform (no CUDA device visible): the driver libraries or the GPU are not exposed to this process or container.",
         fix="Start the container with GPU access (--gpus all / the nvidia runtime / a nvidia.com/gpu request) and check nvidia-smi and torch.cuda.is_available() inside it.",
         versions=">=0.7", source="vllm/platforms/__init__.py (resolve_current_platform_cls_qualname)"),
    _sig("libcuda_missing", "libcuda.so", r"libcuda\.so(?:\.1)?: cannot open shared object file", ERROR,
         symptom="gpu_not_detected_in_container", layer="nvidia_driver", weight=0.8, fatal=True,
         cause="The driver's libcuda.so is not visible to the process: no NVIDIA driver on this host, or the container was started without the driver mounted.",
         fix="Expose the GPU and driver to the container (nvidia container toolkit, --gpus all) or install the NVIDIA driver on the host.",
         source="dynamic loader message for the CUDA driver library"),
    # vLLM maps each CUDA_VISIBLE_DEVICES entry to a physical index with int() (vllm/platforms/interface.py
    # Platform.device_id_to_physical_device_id, traceback of 0.20.1 in vllm-project/vllm#41848; the Ray executor of
    # 0.5.x did the same, #7211), so the UUID form CUDA accepts (MIG-..., GPU-...) stops the start
    _sig("visible_devices_uuid", "invalid literal for int() with base 10", r"invalid literal for int\(\) with base 10: '(?P<uuid>(?:MIG|GPU)-[0-9A-Fa-f][\w/-]*)'", ERROR,
         symptom="gpu_not_detected_in_container", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="CUDA_VISIBLE_DEVICES names the device by UUID ({uuid}), which CUDA accepts but this vLLM does not: it reads each entry as an integer index and fails before the model loads. The GPU (or MIG slice) is fine.",
         fix="Give the process only that device and address it by index: map it into a container (docker --gpus '\"device=0:0\"' or NVIDIA_VISIBLE_DEVICES=<uuid>; Apptainer: APPTAINERENV_CUDA_VISIBLE_DEVICES=0) and set CUDA_VISIBLE_DEVICES=0, or use a release that accepts UUIDs.",
         source="vllm/platforms/interface.py device_id_to_physical_device_id (0.20.1); https://github.com/vllm-project/vllm/issues/41848, https://github.com/vllm-project/vllm/issues/6551 (maintainers: use a container for MIG)"),
    # vLLM looks up its own distribution's version during platform detection (vllm/platforms/__init__.py
    # vllm_version_matches_substr: importlib.metadata.version('vllm'), this warning on PackageNotFoundError; 0.7.3-0.8.5
    # logs in sasha0552/pascal-pkgs-ci#13, #51): a build installed under another name finds no platform
    _sig("vllm_dist_missing", "the vllm package was not found", r"The vLLM package was not found, so its version could not be inspected", CONTEXT,
         source="vllm/platforms/__init__.py vllm_version_matches_substr (0.7.3-0.8.5)"),
    _sig("collect_env_no_cuda", "is cuda available: false|nvidia driver version: no cuda|gpu models and configuration: no cuda",
         r"^(?:Is CUDA available: False|Nvidia driver version: No CUDA|GPU models and configuration: No CUDA)\s*$", WARNING,
         symptom="gpu_not_detected_in_container", layer="nvidia_driver", weight=0.5,
         cause="torch in this environment sees no CUDA device (collect_env output): the GPU or driver is not visible here.",
         fix="Check that the GPU is exposed to the environment (container runtime, CUDA_VISIBLE_DEVICES) and that a CUDA build of torch is installed.",
         source="torch/vLLM collect_env.py output"),
    _sig("torch_cpu_build", "+cpu", r"(?:PyTorch version|\btorch)\s*(?::|==|\s)\s*(?P<torch>\d+\.\d+(?:\.\d+)?(?:\.\w+)?\+cpu)\b", CONTEXT,
         source="torch wheel local version '+cpu' (PyTorch's CPU-only index); collect_env 'PyTorch version:' line"),
    _sig("cuda_runtime_lib_missing", "cannot open shared object file",
         r"lib(?P<lib>cudart|cublas(?:Lt)?|nvrtc|cusparse|cufft|curand|cusolver|nvJitLink|cudnn)\.so(?:\.[\d.]+)?: cannot open shared object file", ERROR,
         symptom="import_undefined_symbol", layer="cuda_runtime", weight=0.75,
         cause="The CUDA runtime library lib{lib} that vLLM's compiled kernels were built against is not installed in this environment (torch or the nvidia-* wheels are for another CUDA major).",
         fix="Install vLLM with its pinned torch (and the matching nvidia-* CUDA wheels) in a fresh virtualenv, or a vLLM build for the CUDA installed here.",
         source="dynamic loader message; https://github.com/vllm-project/vllm/issues (Failed to import from vllm._C)"),
    _sig("glibc_too_old", "glibc_", r"version `GLIBC_(?P<glibc>2\.\d+)' not found", ERROR,
         symptom="import_undefined_symbol", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="A compiled extension of the installed vLLM wheel needs glibc {glibc}, newer than this OS provides, so it does not load (vllm._C missing means no custom kernels: the engine cannot run the model).",
         fix="Install a vLLM release whose wheels target this glibc (the manylinux tag of the wheel; vLLM 0.5.3 rebuilt its wheels for older glibc), or run on an OS with glibc >= {glibc} (the vllm/vllm-openai image brings one).",
         source="dynamic loader message; vLLM PR #6517 (0.5.3 wheels for older glibc); https://github.com/vllm-project/vllm/issues/6462"),
    _sig("nccl_lib_missing", "libnccl.so", r"libnccl\.so(?:\.[\d.]+)?: cannot open shared object file", ERROR,
         symptom="import_undefined_symbol", layer="pytorch_wheel", weight=0.75,
         cause="NCCL (libnccl), which torch's CUDA wheels bring as the nvidia-nccl package, is missing from this environment: a partial or mixed install of torch.",
         fix="Reinstall vLLM with its pinned torch in a fresh virtualenv (pip brings nvidia-nccl-cu12 with it); do not install torch separately from another index.",
         source="dynamic loader message; torch's nvidia-nccl-cu* dependency"),
    # vllm/_core_ext.py (0.5.x-0.6.x; lines 178-182 of 0.6.1.post2): `import vllm._core_C` inside a try, the warning
    # "Failed to import from vllm._core_C with %r" on ImportError, then torch.classes._core_C.ScalarType; the loader's
    # message names the torch library the build links and the installed torch lacks (libtorch_hip: a build for ROCm's
    # torch; libtorch_cuda: for CUDA's). The platform's vllm._C import warns the same way (platforms/interface.py
    # import_kernels, 0.22.0: "Failed to import from vllm._C: %r").
    _sig("torch_lib_missing", "failed to import from vllm",
         r"Failed to import from vllm\.(?P<ext>_\w*C)(?: with|:) ImportError\('lib(?P<lib>(?:torch|c10)\w*)\.so: cannot open shared object file", ERROR,
         symptom="import_undefined_symbol", layer="pytorch_wheel", weight=0.8, fatal=True,
         cause="vLLM's compiled extension {ext} links lib{lib}.so, which the torch installed here does not have: this vLLM was built for another torch (libtorch_hip: a ROCm build of torch; libtorch_cuda: a CUDA build) than the one in this environment.",
         fix="Install vLLM and torch as one pair in a fresh virtualenv (for ROCm: the ROCm vLLM image or a vLLM built against the ROCm torch installed; for CUDA: pip install vllm with its pinned torch); do not swap torch under it.",
         source="vllm/_core_ext.py (0.6.1.post2, lines 178-182); vllm/platforms/interface.py import_kernels (0.22.0)"),
    # the look-up that follows the failed import: torch.classes._core_C.ScalarType raises when _core_C did not load
    # (vllm/_core_ext.py, 0.6.1.post2 line 182); alone it says the extension is missing, not why
    _sig("core_c_class_missing", "tried to instantiate class '_core_c.",
         r"Tried to instantiate class '_core_C\.(?P<cls>\w+)', but it does not exist", ERROR,
         symptom="import_undefined_symbol", layer="pytorch_wheel", weight=0.55, fatal=True,
         cause="vLLM's _core_C extension did not load (the warning 'Failed to import from vllm._core_C' above says why), so its {cls} class is missing: usually a vLLM built for another torch or platform than the one installed.",
         fix="Read the 'Failed to import from vllm._core_C' line; reinstall vLLM and its torch as one pair in a fresh virtualenv.",
         source="vllm/_core_ext.py (0.6.1.post2, line 182)"),
    # A builtin type subscripted at import (a generic annotation evaluated when its def runs) on a Python where the type is
    # not yet generic: list/dict/tuple from 3.9 (PEP 585), array.array from 3.12 (Python 3.12 'What's New': array.array
    # supports subscription). flashinfer-python 0.6.16.post3, the release vLLM 0.27.1 pins, annotates
    # flashinfer/comm/fd_exchange.py _fd_ancillary with array.array[int] at import and declares Requires-Python >=3.10.
    # Two owners (the package's code and the interpreter it runs on): a hint.
    _sig("builtin_generic_old_python", "is not subscriptable", r"TypeError: type '(?P<type>[\w.]+)' is not subscriptable", ERROR,
         symptom="import_undefined_symbol", layer="container_environment", weight=0.5, fatal=True,
         cause="A module subscripts {type} at import (a generic annotation), which this Python does not support: builtin types became generic by version (list/dict/tuple in 3.9, array.array in 3.12), so the package needs a newer Python than this environment runs.",
         fix="Run vLLM in a Python new enough for the package (3.12 for array.array; the vLLM image uses 3.12), or pin a release of the package that supports this Python.",
         source="Python 3.12 What's New (array.array generic); flashinfer-python 0.6.16.post3 flashinfer/comm/fd_exchange.py line 55"),
    # ---- GPU capability -------------------------------------------------------------------
    _sig("bf16_unsupported", "bfloat16 is only supported", r"Bfloat16 is only supported on GPUs with compute capability of at least 8\.0\.(?: Your (?P<gpu>.+?) GPU has compute capability (?P<cc>\d+\.\d+))?", ERROR,
         symptom="unsupported_gpu", layer="gpu", weight=0.95, fatal=True,
         cause="The model's dtype is bfloat16, which needs compute capability >= 8.0; this GPU ({gpu}) has {cc}.",
         fix="Pass --dtype half (float16), or use a GPU of compute capability >= 8.0.",
         source="gpu-facts.md §4 (BF16 row); vllm _check_if_gpu_supports_dtype"),
    _sig("cc_unsupported", "compute capability", r"(?:GPU|device) (?:with|has) compute capability (?P<cc>\d+\.\d+).{0,60}(?:not supported|unsupported|is too old)|requires? (?:a )?(?:GPU with )?compute capability (?:of )?(?:at least |>= ?)(?P<need>\d+\.\d+)|GPUs? with compute capability (?:below|less than|lower than) (?P<below>\d+\.\d+) (?:are|is) not supported|only supported on (?:devices|GPUs) with compute capability (?:of at least |>= ?)(?P<only>\d+\.\d+)", ERROR,
         symptom="unsupported_gpu", layer="gpu", weight=0.7, fatal=True,
         cause="This GPU's compute capability is below what this vLLM build or feature needs.",
         fix="Use a GPU that meets the compute-capability gate (vLLM today: >= 7.5), or an older vLLM release that still supports this GPU.",
         source="gpu-facts.md §4-5"),
    # weight below diagnose.CONFIDENT: alone, the line has two owners in the blind threads (a GPU older than the build
    # targets, blind-no-kernel-image-1080ti; a wheel or image built without the GPU's architecture, fail4/fail5 Blackwell
    # rows and fail6-fp8-h100-no-kernel-image-image-090, vLLM PR #19648), so it is a hint, not an answer
    # vLLM's CUTLASS kernel wrappers guard their architecture in device code and trap outside it, printing "This kernel only
    # supports sm..." (csrc/cutlass_extensions/common.hpp enable_sm*_only guards; strings "This kernel only supports sm[75, 80)."
    # in the 0.33.0 wheel's _C_stable_libtorch.abi3.so): the build dispatched a kernel compiled for another architecture to this GPU
    _sig("kernel_arch_guard", "this kernel only supports sm", r"This kernel only supports (?P<arch>sm[\w\[\](), ]*?)\.?\s*$", ERROR,
         symptom="unsupported_gpu", layer="vllm_version_flags", weight=0.75, fatal=True,
         cause="A vLLM kernel built for {arch} ran on this GPU and trapped: this vLLM build dispatches it to a GPU outside the architectures it was compiled and guarded for (e.g. an sm120-only guard on GB10's SM12.1).",
         fix="Use a vLLM build whose kernels cover this GPU's architecture (for GB10 / SM12.1, a build with the sm120 family guard, or the official SM121 build), or a quantization that avoids the kernel.",
         source="vllm csrc/cutlass_extensions/common.hpp (enable_sm120_only); https://github.com/eugr/spark-vllm-docker/issues/143"),
    _sig("no_kernel_image", "no kernel image is available", r"no kernel image is available for execution on the device", ERROR,
         symptom="unsupported_gpu", layer="gpu", weight=0.55, fatal=True,
         cause="The installed kernels were not compiled for this GPU's architecture: the GPU is older than the build targets, or the wheel/image was built without this GPU's architecture (a GPU newer than an old build, or a build whose arch list dropped it).",
         fix="Use a GPU architecture the vLLM/torch build targets (current wheels: compute capability 7.5 - 12.0), or a build compiled for this GPU.",
         source="gpu-facts.md §5 (TORCH_CUDA_ARCH_LIST)"),
    # AITER (ROCm kernels vLLM selects with VLLM_ROCM_USE_AITER*) asserts the gfx target of kernels written for one CDNA
    # generation: "mla_gluon requires gfx950 (CDNA4), got gfx942" (ROCm/aiter aiter/ops/triton/gluon/mla_gluon.py, per
    # ROCm/aiter#4831; vLLM 0.27 on MI308X: https://github.com/vllm-project/vllm/issues/51964)
    _sig("rocm_gfx_required", "requires gfx", r"(?P<kernel>[\w.]+) requires (?P<need>gfx\d+[a-z0-9]*)(?: \((?P<family>[^)]*)\))?,? (?:but )?got (?P<got>gfx\d+[a-z0-9]*)", ERROR,
         symptom="unsupported_gpu", layer="gpu", weight=0.8, fatal=True,
         cause="The ROCm kernel vLLM selected ({kernel}) exists for {need} ({family}) only, and this GPU is {got}: the GPU lacks that kernel's architecture.",
         fix="Let vLLM choose a kernel this GPU has (unset the VLLM_ROCM_USE_AITER* switch that selects {kernel}, or pick another backend), or run on a {need} GPU.",
         source="ROCm/aiter gfx assertions (aiter/ops/triton/gluon/mla_gluon.py); https://github.com/ROCm/aiter/issues/4831"),
    # Triton's python/triton/language/core.py dtype.to_ir (3.x): f'type {self} not supported in this architecture. The supported
    # fp8 dtypes are {supported}'. e4m3 (fp8e4nv) needs NVIDIA SM89+. Owners in public threads: --kv-cache-dtype fp8 on Volta or
    # Ampere, an FP8 checkpoint whose block-FP8 GEMM or fused-MoE Triton kernels run there, ROCm gfx90a: a hint naming the GPU
    _sig("triton_fp8_type_unsupported", "not supported in this architecture", r"type (?P<t>fp8\w+) not supported in this architecture\. The supported fp8 dtypes are (?P<supported>\([^)]*\))", ERROR,
         symptom="quant_unsupported_on_gpu", layer="gpu", weight=0.55, fatal=True,
         cause="Triton cannot compile {t} on this GPU (it has only {supported}; e4m3, fp8e4nv, needs NVIDIA compute capability 8.9+): an FP8 (e4m3) KV cache (--kv-cache-dtype fp8) or an FP8 checkpoint's Triton kernels (block-FP8 GEMM, fused MoE) were asked of an older GPU.",
         fix="On this GPU use --kv-cache-dtype fp8_e5m2 (or auto) and a checkpoint that is not FP8 (or a release with a Marlin FP8 path for it); FP8 e4m3 kernels need an Ada/Hopper or newer GPU.",
         source="triton/language/core.py dtype.to_ir; https://github.com/1CatAI/1Cat-vLLM/issues/27"),
    # the older Triton wording of the same refusal (triton/language/semantic.py cast: assert builder.options.allow_fp8e4nv,
    # "fp8e4nv data type is not supported on CUDA arch < 89"); vLLM's own tests skip FP8 KV prefix-prefill below SM89 for it
    # (tests/kernels/attention/test_prefix_prefill.py "Triton limitation"). Added after the fail8 held-out reading.
    _sig("triton_fp8e4nv_arch", "data type is not supported on cuda arch", r"fp8e4nv data type is not supported on CUDA arch < 89", ERROR,
         symptom="quant_unsupported_on_gpu", layer="gpu", weight=0.55, fatal=True,
         cause="Triton cannot use the FP8 e4m3 type (fp8e4nv) below compute capability 8.9: an FP8 (e4m3) KV cache or FP8 weights reached a Triton kernel (prefix prefill, FP8 GEMM) on an older GPU; some releases route these GPUs around the Triton path, others do not.",
         fix="Use --kv-cache-dtype fp8_e5m2 (or auto), disable the path that needs it (chunked prefill / prefix caching with an FP8 KV cache in the affected releases), a release that avoids it, or a GPU of compute capability 8.9+.",
         source="triton/language/semantic.py cast; https://github.com/vllm-project/vllm/issues/7714"),
    # hipBLASLt's tensile_host.cpp: std::cerr << "rocblaslt error: Could not load " << path. The library file of a supported
    # arch (gfx90a/gfx942/gfx950) is in every ROCm torch wheel, so there a failed load is the process's open-files limit (eight
    # workers each opening the libraries: pytorch/pytorch#137695); for other archs the wheel may lack the file. Hints.
    _sig("hipblaslt_load_open_files", "rocblaslt error: could not load", r"rocblaslt error: Could not load \"?(?P<path>\S*TensileLibrary\w*_(?P<arch>gfx9(?:0a|42|50))\.dat)", ERROR,
         symptom="tp_init_hang", layer="container_environment", weight=0.5, fatal=True,
         cause="hipBLASLt could not open its {arch} kernel library, which ROCm torch wheels ship: with many workers (tensor parallelism) the processes run out of file descriptors (the shell's open-files limit, often 1024), or the install is damaged.",
         fix="Raise the open-files limit before starting (ulimit -n 131072, nofile in /etc/security/limits.conf or the container's --ulimit nofile), or reinstall torch if the file is missing.",
         source="hipBLASLt tensile_host.cpp ('rocblaslt error: Could not load'); https://github.com/pytorch/pytorch/issues/137695"),
    _sig("hipblaslt_load_arch_missing", "rocblaslt error: could not load", r"rocblaslt error: Could not load \"?(?P<path>\S*TensileLibrary\w*_(?P<arch>gfx(?!9(?:0a|42|50)\b)\w+)\.dat)", ERROR,
         symptom="unsupported_gpu", layer="pytorch_wheel", weight=0.5, fatal=True,
         cause="hipBLASLt could not load its kernel library for {arch}: the ROCm torch/hipBLASLt build does not ship one for this GPU (or the process ran out of file descriptors).",
         fix="Use a ROCm torch/hipBLASLt build that includes {arch} (or disable hipBLASLt where the release allows it); check ulimit -n if the file exists.",
         source="hipBLASLt tensile_host.cpp ('rocblaslt error: Could not load')"),
    _sig("hip_no_binary", "invalid device function|hiperrornobinaryforgpu", r"HIP error: invalid device function|hipErrorNoBinaryForGpu", ERROR,
         symptom="unsupported_gpu", layer="gpu", weight=0.6, fatal=True,
         cause="The ROCm kernels in this build have no code for this AMD GPU's gfx target (an image built for Instinct MI300 run on a Radeon card, or the reverse).",
         fix="Use a vLLM/PyTorch ROCm build that targets this GPU's gfx architecture (rocminfo names it), or run on the GPU the image was built for.",
         source="HIP runtime hipErrorInvalidDeviceFunction / hipErrorNoBinaryForGpu; https://github.com/ROCm/legacy-rocm-build/issues/4386"),
    _sig("torch_arch_too_new", "is not compatible with the current pytorch installation", r"with CUDA capability sm_(?P<sm>1\d\d|[89]\d) is not compatible with the current PyTorch installation", ERROR,
         symptom="unsupported_gpu", layer="pytorch_wheel", weight=0.85, fatal=True,
         cause="The installed PyTorch was built without kernels for this GPU's architecture (sm_{sm}): the GPU is newer than the wheel (Blackwell needs a CUDA 12.8+ build).",
         fix="Install a vLLM release whose wheel pins a PyTorch built for sm_{sm} (for Blackwell: vLLM >= 0.9 with its CUDA 12.8 torch), in a fresh virtualenv.",
         source="torch/cuda/__init__.py _check_capability; gpu-facts.md §5"),
    _sig("torch_arch_too_old", "is not compatible with the current pytorch installation", r"with CUDA capability sm_(?P<sm>[1-6]\d) is not compatible with the current PyTorch installation", ERROR,
         symptom="unsupported_gpu", layer="gpu", weight=0.85, fatal=True,
         cause="This GPU's architecture (sm_{sm}) is older than anything the installed PyTorch (and vLLM, which needs compute capability >= 7.0-7.5) is built for.",
         fix="Use a GPU of compute capability 7.5 or newer; no current wheel targets sm_{sm}.",
         source="torch/cuda/__init__.py _check_capability; gpu-facts.md §4-5"),
    # vllm/vllm_flash_attn/flash_attn_interface.py _is_fa2_supported (0.11.0): 'FA2 is only supported on devices with compute
    # capability >= 8' when the device's major capability is below 8; vllm/attention/utils/fa_utils.py get_flash_attn_version
    # logs it at ERROR and the engine picks another backend: a pre-Ampere GPU, not a failure
    _sig("fa2_below_cc8", "fa2 is only supported on devices with compute capability", r"FA2 is only supported on devices with compute capability >= 8\b", CONTEXT,
         source="vllm/vllm_flash_attn/flash_attn_interface.py _is_fa2_supported (0.11.0)"),
    _sig("triton_kernel_invalid", "device kernel image is invalid", r"Triton Error \[CUDA\]: device kernel image is invalid", ERROR,
         symptom="unsupported_gpu", layer="pytorch_wheel", weight=0.75, fatal=True,
         cause="Triton compiled a kernel this GPU cannot run: the Triton bundled with this torch is older than the GPU's architecture (typically a Blackwell GPU with a pre-CUDA-12.8 stack).",
         fix="Install a vLLM release whose torch/Triton support this GPU (Blackwell: vLLM >= 0.9 with its CUDA 12.8 torch), in a fresh virtualenv; clear ~/.triton/cache.",
         source="triton runtime (cuModuleLoadData CUDA_ERROR_INVALID_IMAGE)"),
    _sig("fa_version_unsupported", "is_fa_version_supported", r"assert is_fa_version_supported\(", ERROR,
         symptom="unsupported_gpu", layer="gpu", weight=0.6, fatal=True,
         cause="vLLM's FlashAttention backend found no FlashAttention version it ships that runs on this GPU (FlashAttention 2 needs compute capability >= 8.0): a Volta or Turing GPU on a V1 engine that chose FlashAttention for it.",
         fix="Use a GPU of compute capability >= 8.0; on 0.7-0.10 run the V0 engine (VLLM_USE_V1=0), or choose a backend this GPU supports (--attention-backend / VLLM_ATTENTION_BACKEND).",
         versions="0.7-0.10 (V1)", source="vllm/v1/attention/backends/flash_attn.py FlashAttentionImpl.__init__; https://github.com/vllm-project/vllm/issues/13398"),
    _sig("quant_unsupported", "not supported for the current gpu", r"The quantization method (?P<method>\w+) is not supported for the current GPU\. Minimum capability: (?P<min>\d+)\. Current capability: (?P<cur>\d+)", ERROR,
         symptom="quant_unsupported_on_gpu", layer="gpu", weight=0.95, fatal=True,
         cause="The {method} kernels need compute capability {min_cc}; this GPU has {cur_cc}.",
         fix="Use a checkpoint whose quantization runs on this GPU (e.g. an unquantized fp16 one, or GPTQ on Volta), or a GPU of compute capability >= {min_cc}.",
         source="vllm/model_executor/layers/quantization/*; gpu-facts.md §4"),
    # vllm/config/__init__.py VllmConfig._get_quantization_config (0.11.0), vllm/config/vllm.py (0.33.0): f"{model_config.dtype}
    # is not supported for quantization method {method}. Supported dtypes: {supported}". Two owners in threads: a GPU without
    # the dtype the method needs (vLLM casts bfloat16 to float16 on GPUs without bfloat16), or a --dtype given; so a hint
    _sig("quant_dtype_unsupported", "is not supported for quantization method", r"(?P<dtype>torch\.\w+) is not supported for quantization method (?P<method>\w+)\. Supported dtypes: \[?(?P<dtypes>[^\]]*)\]?", ERROR,
         symptom="quant_unsupported_on_gpu", layer="gpu", weight=0.5, fatal=True,
         cause="The {method} checkpoint runs only with activations in {dtypes}, and this start uses {dtype}: either the GPU has no {dtypes} (vLLM then falls back to float16, e.g. on Volta, Turing or AMD gfx906) or --dtype asked for {dtype}.",
         fix="If --dtype was given, drop it (or give one of {dtypes}); if the GPU lacks {dtypes}, use a GPU that has it or a checkpoint in another quantization.",
         source="vllm/config/vllm.py VllmConfig._get_quantization_config (0.11.0: vllm/config/__init__.py); https://github.com/nlzy/vllm-gfx906/issues/59"),
    _sig("quant_scheme_unsupported", "quantization scheme is not supported", r"Quantization scheme is not supported for\W+the current GPU\. Min capability: (?P<min>\d+)\.\W+Current capability: (?P<cur>\d+)", ERROR,
         symptom="quant_unsupported_on_gpu", layer="gpu", weight=0.95, fatal=True,
         cause="This checkpoint's quantization scheme needs compute capability {min_cc}; this GPU has {cur_cc} (e.g. Marlin int4 kernels need 8.0).",
         fix="Use a checkpoint quantized for this GPU, an unquantized fp16 one, or a GPU of compute capability >= {min_cc}.",
         source="vllm compressed_tensors.py; gpu-facts.md §4 (Marlin row)"),
    # ---- model weights: auth, disk, revision, remote code, architecture ---------------------
    # the cache directory cannot be created: huggingface_hub (file_download, HF_HUB_CACHE default ~/.cache/huggingface/hub) and
    # vLLM (envs.py VLLM_CACHE_ROOT default ~/.cache/vllm) write under $HOME, which a random-UID container (OpenShift's restricted
    # SCC) resolves to '/', so '/.cache' is not writable
    _sig("cache_dir_permission", "permission denied", r"PermissionError: \[Errno 13\] Permission denied: '(?P<path>[^']*(?:\.cache|huggingface)[^']*)'", ERROR,
         symptom="download_failed", layer="container_environment", weight=0.8, fatal=True,
         cause="The process cannot create its cache directory {path}: the container's user has no writable home (a random UID, e.g. OpenShift's restricted SCC, resolves ~ to /), so the Hugging Face and vLLM caches under ~/.cache cannot be written.",
         fix="Point HF_HOME (and VLLM_CACHE_ROOT, or HOME) at a writable mounted directory (an emptyDir or PVC), or run with a user that owns its home.",
         source="huggingface_hub file_download (cache dir under HF_HOME); vllm/envs.py VLLM_CACHE_ROOT; https://github.com/huggingface/inference-benchmarker/pull/47, https://github.com/vllm-project/vllm/issues/20127"),
    # the same cache on a read-only volume: huggingface_hub writes into the cache even for weights already in it -- the
    # revision's ref (file_download.py _cache_commit_hash_for_specific_revision: refs/<revision> when missing or stale)
    # and the download locks under .locks (_hf_hub_download_to_cache_dir), huggingface_hub 2.4.0; vLLM's own caches
    # (VLLM_CACHE_ROOT, ~/.cache/vllm: the torch.compile cache) are written at every start too
    _sig("cache_dir_readonly", "read-only file system", r"\[Errno 30\] Read-only file system: '(?P<path>[^']*(?:models--|datasets--|\.cache|huggingface|/hub\b)[^']*)'", ERROR,
         symptom="download_failed", layer="container_environment", weight=0.8, fatal=True,
         cause="{path} is on a read-only mount, and the start writes into its cache even when the weights are already there: huggingface_hub records the revision's ref and takes download locks inside the Hugging Face cache, and vLLM keeps its compile cache under ~/.cache/vllm.",
         fix="Mount the cache volume writable (readOnly: false), or keep the weights read-only and pass their snapshot directory itself as --model (with HF_HUB_OFFLINE=1), pointing HF_HOME and VLLM_CACHE_ROOT at a writable directory.",
         source="huggingface_hub file_download.py _cache_commit_hash_for_specific_revision, _hf_hub_download_to_cache_dir (2.4.0); vllm/envs.py VLLM_CACHE_ROOT; https://github.com/llm-d-incubation/llm-d-modelservice/issues/243"),
    _sig("hf_401", "401 client error|client error '401", r"401 Client Error(?:: Unauthorized for url: (?P<url>\S+))?|Client error '401 Unauthorized' for url(?:\s*$| '?(?P<hurl>https?://(?:[\w-]+\.)?(?:huggingface\.co|hf\.co)\S*))", ERROR,
         symptom="gated_repo_auth", layer="client_code", weight=0.55, fatal=True,
         cause="The Hugging Face Hub answered HTTP 401: the HF_TOKEN vLLM sent is invalid, expired or empty, or none was sent for a repository the Hub shows only to a signed-in account (private, gated, or an id that does not exist: the Hub answers those with 401 too). A public model does not need a token.",
         fix="Check the repository id; set a valid HF_TOKEN (or run huggingface-cli login) in the environment of the vLLM process, and unset an empty one.",
         source="huggingface_hub HTTP errors; https://github.com/vllm-project/vllm/issues/20190"),
    # huggingface_hub >= 1.0 uses httpx, whose raise_for_status prints "Client error '403 Forbidden' for url '...'"
    # (the requests wording was "403 Client Error: Forbidden for url"); the url may be cut at the line end
    _sig("hf_gated", "gated repo|gatedrepoerror|is restricted|403 client error|client error '403", r"(?:GatedRepoError|Cannot access gated repo|Access to model (?P<repo>\S+) is restricted|You are trying to access a gated repo|403 Client Error.{0,40}huggingface|Client error '403 Forbidden' for url(?:\s*$| '?https?://(?:[\w-]+\.)?(?:huggingface\.co|hf\.co)))", ERROR,
         symptom="gated_repo_auth", layer="model_weights", weight=0.85, fatal=True,
         cause="The model repository is gated: your Hugging Face account has not been granted access, or no token was sent.",
         fix="Accept the model's licence on its Hub page with the account whose HF_TOKEN vLLM uses, then set HF_TOKEN.",
         source="huggingface_hub GatedRepoError"),
    # the Hub's own 403 text for a fine-grained token that lacks the permission to read public gated repositories;
    # huggingface_hub's hf_raise_for_status (utils/_http.py) appends the server's message to its HfHubHTTPError
    # (fine-grained tokens: https://huggingface.co/docs/hub/security-tokens)
    _sig("hf_fine_grained_gated", "fine-grained token settings", r"enable access to public gated repositories in your fine-grained token settings", ERROR,
         symptom="gated_repo_auth", layer="model_weights", weight=0.9, fatal=True,
         cause="The Hub refused the gated repository to the token that was sent: it is a fine-grained token without the permission to read public gated repositories (the Hub's 403 says so), whether or not its account accepted the model's licence.",
         fix="In the token's settings (huggingface.co/settings/tokens) enable read access to public gated repositories, or use a read token, of an account that accepted the model's licence; then update the secret or HF_TOKEN vLLM reads.",
         source="Hugging Face Hub 403 message, appended by huggingface_hub utils/_http.py hf_raise_for_status; https://huggingface.co/docs/hub/security-tokens"),
    _sig("hf_not_logged_in", "please log in|must be authenticated|be authenticated to access it",
         r"(?:You must be authenticated to access it|be authenticated to access it\. Please log in)", ERROR,
         symptom="gated_repo_auth", layer="client_code", weight=0.88, fatal=True,
         cause="The Hub saw no (valid) credential for a gated repository: HF_TOKEN is missing or empty in the environment of the process that downloads the model.",
         fix="Set HF_TOKEN (a token of an account that has been granted access) in the environment vLLM runs in, e.g. -e HF_TOKEN=... for a container.",
         source="huggingface_hub GatedRepoError (unauthenticated)"),
    _sig("hf_not_authorized", "not in the authorized list|awaiting a review", r"not in the authorized list|awaiting a review from the repo authors", ERROR,
         symptom="gated_repo_auth", layer="model_weights", weight=0.9, fatal=True,
         cause="The token is valid, but its account has not been granted access to the gated model (licence not accepted or the request is still pending).",
         fix="Accept the licence on the model page with the token's account and wait until access is granted.",
         source="huggingface_hub GatedRepoError (authenticated, not authorized)"),
    _sig("modelscope_env", "vllm_use_modelscope", r"VLLM_USE_MODELSCOPE", CONTEXT, source="vllm/envs.py"),
    # which top-k/top-p kernel V1's sampler took (it sizes the profile's sampler peak: versions.py flashinfer_sampler);
    # logged once per worker when the sampler is built
    _sig("sampler_flashinfer", "using flashinfer for top-p & top-k sampling", r"Using FlashInfer for top-p & top-k sampling", CONTEXT,
         source="vllm/v1/sample/ops/topk_topp_sampler.py TopKTopPSampler (vLLM PR #11394)"),
    _sig("sampler_native", "top-p & top-k sampling|top-p/top-k sampling",
         r"Falling back to the PyTorch-native implementation of top-p & top-k sampling|FlashInfer top-p/top-k sampling (?:disabled|unavailable)",
         CONTEXT, source="vllm/v1/sample/ops/topk_topp_sampler.py TopKTopPSampler (FlashInfer absent, not enabled, or off)"),
    _sig("disk_full", "no space left on device|errno 28", r"No space left on device|\[Errno 28\]", ERROR,
         symptom="disk_full_download", layer="model_weights", weight=0.9, fatal=True,
         cause="The disk holding the Hugging Face cache (or /tmp) filled up while the weights were written.",
         fix="Point HF_HOME/HF_HUB_CACHE at a volume larger than the checkpoint (a persistent volume in containers) and free space.",
         source="seed 'anatomy of a vLLM setup' (HF cache defaults to the ephemeral root)"),
    _sig("disk_not_enough", "not enough free disk space", r"Not enough free disk space to download the file\. The expected file size is: (?P<need>[\d.]+) MB\. The target location (?P<path>\S+) only has (?P<free>[\d.]+) MB free", ERROR,
         symptom="disk_full_download", layer="model_weights", weight=0.95, fatal=True,
         cause="The model download needs {need} MB for one file but {path} has only {free} MB free.",
         fix="Give the model cache a volume larger than the whole checkpoint (HF_HOME on a big persistent volume).",
         source="huggingface_hub/file_download.py"),
    # EDQUOT (errno 122, "Disk quota exceeded"): the user's or the volume's quota ran out, not the disk; the Hub's
    # Xet downloader reports it as "IO Error: Disk quota exceeded (os error 122)" (a Rust std::io::Error)
    _sig("disk_quota", "disk quota exceeded|errno 122|os error 122", r"Disk quota exceeded|\[Errno 122\]|os error 122", ERROR,
         symptom="disk_full_download", layer="model_weights", weight=0.9, fatal=True,
         cause="The disk quota of the user or volume holding the Hugging Face cache (or /tmp) ran out while the weights were written (EDQUOT): the checkpoint does not fit in the quota.",
         fix="Point HF_HOME/HF_HUB_CACHE at a volume whose quota holds the whole checkpoint (cluster scratch rather than home), or free space within the quota (`quota -s`, `du -sh ~/.cache/huggingface`).",
         source="Linux errno 122 EDQUOT; huggingface_hub file_download.py xet_get (hf_xet's 'os error 122')"),
    _sig("disk_ray_full", "% full", r"(?P<path>/\S*) is over (?P<pct>\d+)% full", WARNING,
         symptom="disk_full_download", layer="model_weights", weight=0.6,
         cause="The disk is almost full ({path} over {pct}%); downloading the weights fills it.",
         fix="Move the HF cache (HF_HOME) and Ray's temp dir to a volume with room for the checkpoint.",
         source="ray file_system_monitor"),
    # vllm/transformers_utils/tokenizer.py get_cached_tokenizer reads tokenizer.all_special_tokens_extended (0.8.5,
    # 0.9.0.1, 0.11.0); Transformers 5 dropped the attribute and its tokenizers' __getattr__ raises "{cls} has no attribute
    # {key}" (transformers 5.1.0 tokenization_utils_base.py): a vLLM of the Transformers 4 line run with Transformers 5.
    _sig("tokenizer_attr_transformers5", "has no attribute all_special_tokens_extended", r"(?P<cls>\w+) has no attribute all_special_tokens_extended", ERROR,
         symptom="tokenizer_or_revision_mismatch", layer="vllm_version_flags", weight=0.75, fatal=True,
         cause="This vLLM reads all_special_tokens_extended from the tokenizer ({cls}), an attribute Transformers 5 removed: a vLLM built for Transformers 4 runs with Transformers 5 installed.",
         fix="Pin transformers<5 for this vLLM (the version its requirements name), or use a vLLM release that supports Transformers 5.",
         source="vllm/transformers_utils/tokenizer.py get_cached_tokenizer (0.8.5, 0.9.0.1, 0.11.0); transformers 5.1.0 tokenization_utils_base.py __getattr__"),
    # vllm/transformers_utils/config.py load_params_config: --config_format mistral reads params.json; 0.8.2 asserted the
    # result (None when the file is missing: a bare 'assert isinstance(config_dict, dict)'), 0.8.5 and later raise the
    # ValueError below (_download_mistral_config_file in 0.11.0 and 0.33.0).
    _sig("mistral_params_missing", "params.json' config for model", r"Failed to load mistral 'params\.json' config for model (?P<model>\S+?)\.", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="The mistral config format (--config_format mistral, or the mistral load/tokenizer modes) was asked of {model}, which has no params.json: it is a Hugging Face-format checkpoint.",
         fix="Drop --config_format / --load_format / --tokenizer_mode mistral for a Hugging Face-format checkpoint, or point at the mistral-format repository (with params.json and consolidated weights).",
         source="vllm/transformers_utils/config.py load_params_config (0.8.5, 0.9.0.1), _download_mistral_config_file (0.11.0, 0.33.0)"),
    _sig("mistral_params_assert", "assert isinstance(config_dict, dict)", r"assert isinstance\(config_dict, dict\)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.6, fatal=True,
         cause="vLLM's mistral config loader found no usable params.json (this release asserts instead of saying so): the mistral config format was asked of a checkpoint without one, usually a Hugging Face-format checkpoint.",
         fix="Drop --config_format / --load_format / --tokenizer_mode mistral for a Hugging Face-format checkpoint, or use the mistral-format repository.",
         versions="<=0.8.4", source="vllm/transformers_utils/config.py load_params_config (0.8.2)"),
    _sig("tokenizer_class_missing", "does not exist or is not currently imported", r"Tokenizer class (?P<cls>\w+) does not exist or is not currently imported", ERROR,
         symptom="tokenizer_or_revision_mismatch", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="The checkpoint's tokenizer_config.json names a tokenizer class ({cls}) the Transformers bundled with this vLLM does not have: the checkpoint was exported with a newer Transformers.",
         fix="Use a vLLM release whose Transformers knows {cls}, or pin a model revision exported with the older Transformers.",
         source="https://github.com/vllm-project/vllm/issues/37024"),
    _sig("tokenizer_cannot_load", "can't load tokenizer for", r"Can't load tokenizer for '(?P<repo>[^']+)'", ERROR,
         symptom="tokenizer_or_revision_mismatch", layer="model_weights", weight=0.75, fatal=True,
         cause="No tokenizer files were found for {repo}: the path or revision lacks tokenizer.json / tokenizer_config.json, or a local folder with the same name shadows the Hub repository.",
         fix="Point --tokenizer (or the model path) at a folder or pinned revision that has the tokenizer files, and rename any local folder named like the repository.",
         source="transformers tokenization_utils_base from_pretrained"),
    _sig("hub_rate_limited", "429 client error|too many requests", r"429 Client Error|Too Many Requests for url: https?://[^\s]*huggingface", ERROR,
         symptom="download_failed", layer="model_weights", weight=0.8,
         cause="The Hugging Face Hub rate-limited the downloads (HTTP 429): unauthenticated requests, or many replicas fetching at once.",
         fix="Set HF_TOKEN (authenticated requests get a higher limit), download the weights once into a persistent HF_HOME volume that every replica mounts, and pin the revision.",
         source="huggingface_hub HfHubHTTPError 429"),
    # openai_harmony (gpt-oss's Harmony format) loads its tiktoken vocab (o200k_base.tiktoken) from
    # TIKTOKEN_ENCODINGS_BASE or downloads it from openaipublic.blob.core.windows.net; openai/harmony
    # src/tiktoken_ext/public_encodings.rs LoadError::DownloadOrLoadVocabFile "error downloading or loading vocab file: {0}"
    # with RemoteVocabFileError "failed to download or load vocab file".
    _sig("harmony_vocab_download", "error downloading or loading vocab file", r"error downloading or loading vocab file", ERROR,
         symptom="download_failed", layer="container_environment", weight=0.8, fatal=True,
         cause="openai_harmony (the Harmony format gpt-oss is served with) could not download or read its tiktoken vocab file: the host has no route to openaipublic.blob.core.windows.net (an air-gapped pod, a TLS-intercepting proxy) and no local copy is configured.",
         fix="Pre-stage o200k_base.tiktoken (and cl100k_base.tiktoken) in a directory and set TIKTOKEN_ENCODINGS_BASE to it (or warm the tiktoken-rs cache, TIKTOKEN_RS_CACHE_DIR), or allow egress to that host.",
         source="openai/harmony src/tiktoken_ext/public_encodings.rs (LoadError::DownloadOrLoadVocabFile, RemoteVocabFileError)"),
    # The vocab file was found but is not o200k_base: openai_harmony 0.0.8 (the wheel's strings, LoadError::
    # InvalidTiktokenVocabFile "invalid tiktoken vocab file: {0}", with "hash mismatch: computed=..., expected=..." or
    # "expected token and rank, could not split on ' ' at line N"). vLLM loads the encoding when the API server builds
    # its gpt-oss endpoints, after the engine has sized its pool (0.15.1 traceback: api_server.py init_app_state ->
    # OpenAIServingResponses -> parser/harmony_utils.py get_encoding), so the start fails after the KV-cache lines.
    _sig("harmony_vocab_invalid", "invalid tiktoken vocab file", r"invalid tiktoken vocab file: (?P<detail>.{0,160})", ERROR,
         symptom="download_failed", layer="container_environment", weight=0.8, fatal=True,
         cause="openai_harmony (the Harmony format gpt-oss is served with) read a tiktoken vocab file that is not o200k_base ({detail}): a pre-staged or cached copy left empty or holding an error page by a download that failed (computed=e3b0c442... is the SHA-256 of an empty file). The engine had sized its KV cache; the API server failed building its endpoints.",
         fix="Replace the file in TIKTOKEN_ENCODINGS_BASE (or TIKTOKEN_RS_CACHE_DIR) with a verified o200k_base.tiktoken (sha256 446a9538...); download with curl -f and delete the file when the download fails, or allow egress to openaipublic.blob.core.windows.net.",
         source="openai_harmony 0.0.8 (LoadError::InvalidTiktokenVocabFile); vllm 0.15.1 entrypoints/openai/parser/harmony_utils.py get_encoding"),
    # The host could not resolve the Hub's name: urllib3 2.x NameResolutionError ("Failed to resolve '{host}' ({reason})",
    # urllib3/exceptions.py, 2.7.0) and urllib3 1.x's NewConnectionError under "HTTPSConnectionPool(host='huggingface.co',
    # ...)", the reason being the resolver's gaierror (glibc's EAI_AGAIN "Temporary failure in name resolution", EAI_NONAME
    # "Name or service not known"; macOS "nodename nor servname provided"). Nothing timed out: the host has no name
    # resolution (no network, an air-gapped pod, a DNS the container cannot reach), so vLLM can only start from weights
    # already on disk (https://github.com/vllm-project/vllm/issues/1986: "If you don't have internet then --model must
    # have already been cached").
    _sig("hub_name_resolution", "name resolution|name or service not known|nodename nor servname",
         r"(?:Failed to resolve |host=)\\?'(?P<host>(?:[\w-]+\.)*(?:huggingface\.co|hf\.co))\\?'(?=.*(?:name resolution|Name or service not known|nodename nor servname))", ERROR,
         symptom="weights_not_cached", layer="model_weights", weight=0.75, fatal=True,
         cause="This host cannot resolve {host} (no network or no DNS inside the container), and vLLM asked the Hub for the model: the weights are not on disk where this start looks for them, or this release still asks the Hub for a cached model.",
         fix="Download the model on a host with network access (huggingface-cli download) into the HF_HOME this start mounts, then start with HF_HUB_OFFLINE=1 or pass the local snapshot directory as --model; if the host should have network, fix its DNS (or set HF_ENDPOINT to a reachable mirror).",
         source="urllib3 exceptions.py NameResolutionError (2.7.0); glibc gai_strerror; https://github.com/vllm-project/vllm/issues/1986"),
    _sig("hub_timeout", "huggingface.co", r"(?:ReadTimeout|ConnectTimeout|ConnectionError|Read timed out)[^\n]{0,120}huggingface\.co|huggingface\.co[^\n]{0,120}(?:Read timed out|timed out)", ERROR,
         symptom="download_failed", layer="model_weights", weight=0.7,
         cause="A download from the Hugging Face Hub timed out: a slow or filtered network path to huggingface.co (or its CDN).",
         fix="Download the weights ahead of time into a persistent HF_HOME (huggingface-cli download, with HF_HUB_ENABLE_HF_TRANSFER for speed), raise HF_HUB_DOWNLOAD_TIMEOUT, or use a mirror via HF_ENDPOINT.",
         source="huggingface_hub file_download"),
    _sig("v0_negative_kv", "the rest of the memory reserved for kv cache is -", r"the rest of the memory reserved for KV Cache is -(?P<short>[\d.]+) ?GiB", ERROR,
         symptom="no_cache_blocks", layer="memory_budget", weight=0.85, fatal=True,
         cause="The profile left nothing for the KV cache: weights, the activation peak and non-torch memory already exceed the requested share of the GPU, by {short} GiB.",
         fix="Raise --gpu-memory-utilization, lower --max-num-seqs / --max-num-batched-tokens (smaller activation peak), quantize the weights, or add GPUs (--tensor-parallel-size); kvplan fit says which one starts.",
         source="vllm worker.py determine_num_available_blocks (V0 memory-profiling line)"),
    _sig("pip_no_matching_vllm", "could not find a version that satisfies the requirement vllm", r"Could not find a version that satisfies the requirement vllm(?:==(?P<version>[\w.+-]+))?", ERROR,
         symptom="import_undefined_symbol", layer="vllm_version_flags", weight=0.75, fatal=True,
         cause="pip found no vLLM wheel it can install here: vLLM publishes Linux x86_64 / aarch64 wheels for a few Python versions only (3.10-3.13 lately), none for macOS or Windows.",
         fix="Install on Linux with a supported Python (3.10-3.13), or use the vllm/vllm-openai container image; check that the version exists on PyPI.",
         source="pip; vLLM installation docs"),
    _sig("safetensors_corrupt", "safetensor|metadataincompletebuffer|incomplete metadata", r"SafetensorError: Error while deserializing header: (?P<what>\w+)|MetadataIncompleteBuffer|incomplete metadata, file not fully covered", ERROR,
         symptom="tokenizer_or_revision_mismatch", layer="model_weights", weight=0.9, fatal=True,
         cause="A weight shard is truncated or corrupt (the safetensors header cannot be read): an interrupted download, a full disk, or a bad upload of that revision.",
         fix="Delete the shard from the HF cache and download it again; pin a revision known to be good.",
         source="safetensors; https://github.com/vllm-project/vllm/issues/10060"),
    _sig("revision_not_found", "revision|invalid rev id", r"RevisionNotFoundError|Invalid rev id|revision .{0,40} not found", ERROR,
         symptom="tokenizer_or_revision_mismatch", layer="model_weights", weight=0.8, fatal=True,
         cause="The model revision asked for does not exist on the Hub.",
         fix="Pin an existing commit hash with --revision.",
         source="huggingface_hub RevisionNotFoundError"),
    _sig("trust_remote_code", "trust_remote_code|contains custom code|execute the configuration file", r"contains custom code which must be executed|requires you to execute the configuration file in that repo|set the option `?trust_remote_code=True`?|pass(?:ing)? the argument `trust_remote_code=True`", ERROR,
         symptom="trust_remote_code_required", layer="client_code", weight=0.9, fatal=True,
         cause="The model needs its own Python code from the repository, and the process that loads it did not pass trust_remote_code=True.",
         fix="Pass --trust-remote-code (vllm serve) or trust_remote_code=True (LLM(...)) in every place the model is loaded, after reading that code.",
         source="transformers dynamic_module_utils"),
    _sig("trc_config_hint", "consider setting `trust_remote_code=true`", r"Failed to load the model config\. If the model is a custom model not yet available in the HuggingFace transformers library, consider setting `trust_remote_code=True`", ERROR,
         symptom="trust_remote_code_required", layer="client_code", weight=0.55, fatal=True,
         cause="Transformers could not load the model config: the model needs its own code (trust_remote_code) that was not passed to vLLM, or this Transformers is too old for the model type.",
         fix="Pass --trust-remote-code / trust_remote_code=True to the vLLM engine itself; if the model type is new, upgrade transformers (or vLLM).",
         source="vllm/transformers_utils/config.py"),
    _sig("eof_prompt", "eoferror", r"EOFError: EOF when reading a line", ERROR,
         symptom="trust_remote_code_required", layer="client_code", weight=0.3,
         cause="A non-interactive process hit an interactive prompt (usually transformers asking to trust remote code).",
         fix="Pass trust_remote_code=True explicitly so no prompt is shown.",
         source="transformers resolve_trust_remote_code"),
    _sig("batched_tokens_below_seqs", "must be greater than or equal to max_num_seqs", r"max_num_batched_tokens \((?P<tokens>\d+)\) must be greater than or equal to max_num_seqs \((?P<seqs>\d+)\)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="The scheduler flags contradict each other: a step of {tokens} tokens cannot give each of {seqs} sequences one token, so vLLM refuses the engine arguments before loading anything.",
         fix="Raise --max-num-batched-tokens to {seqs} or more, or lower --max-num-seqs to {tokens} or less.",
         source="vllm/config/scheduler.py SchedulerConfig._verify_args"),
    _sig("batched_tokens_below_max_len", "is smaller than max_model_len", r"max_num_batched_tokens \((?P<tokens>\d+)\) is smaller than max_model_len \((?P<max_len>\d+)\)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="Chunked prefill is off, so a whole prompt must fit one step, and max_num_batched_tokens ({tokens}) is below max_model_len ({max_len}): vLLM refuses the engine arguments before loading anything.",
         fix="Turn chunked prefill on (--enable-chunked-prefill), raise --max-num-batched-tokens to {max_len}, or lower --max-model-len to {tokens}.",
         source="vllm/config/scheduler.py SchedulerConfig._verify_args (vllm/config.py before 0.10)"),
    # vllm/v1/core/encoder_cache_manager.py compute_mm_encoder_budget (0.22.0, 0.33.0): "Chunked MM input disabled but
    # max_tokens_per_mm_item ({}) is larger than max_num_batched_tokens ({})"; its opening clause alone is this refusal
    # (threads quote it wrapped over two lines)
    _sig("mm_item_above_batched_tokens", "is larger than max_num_batched_tokens|chunked mm input disabled but max_tokens_per_mm_item", r"max_tokens_per_mm_item \((?P<item>\d+)\) is larger(?: than max_num_batched_tokens \((?P<tokens>\d+)\))?", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="One multimodal item needs {item} tokens in a single step, but max_num_batched_tokens is {tokens} and multimodal input is not chunked, so vLLM refuses the engine arguments.",
         fix="Raise --max-num-batched-tokens to {item} or more (or lower the per-item size, e.g. a smaller image resolution limit).",
         source="vllm/v1/core/encoder_cache_manager.py compute_mm_encoder_budget"),
    # Python's argparse (Lib/argparse.py ArgumentParser._check_value: "argument %(argument_name)s: invalid choice:
    # %(value)r (choose from %(choices)s)"); vLLM's CLI parser (FlexibleArgumentParser) is an argparse.ArgumentParser, and
    # flags with a fixed list of values (--tool-call-parser in 0.6, --quantization, --dtype...) refuse other names so
    _sig("argparse_invalid_choice", "invalid choice:", r"argument (?P<flag>-[\w-]+)(?:/-[\w-]+)?: invalid choice: '?(?P<value>[^'\s]+)'? \(choose from (?P<choices>.*?)\)?$", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.8, fatal=True,
         cause="{flag} {value} is not one of the values this vLLM release accepts ({choices}): a name added in a later release (the docs of main list it), one removed since, or a misspelling.",
         fix="Use one of the listed values, or a vLLM release that has {value} (its release notes / `vllm serve --help` list the choices).",
         source="Python argparse ArgumentParser._check_value; https://github.com/vllm-project/vllm/issues/9312"),
    # argparse's parse_args: "unrecognized arguments: %s". Several owners in public threads: a flag the release removed or
    # renamed (--task gone by 0.13.0, --enable-reasoning by 0.10.0: vllm/engine/arg_utils.py of those wheels), one added
    # after it, a plugin's flag without the plugin, or a flag and its value passed as one list item ("--dtype auto" in a
    # compose/subprocess list), so the line alone is a hint
    _sig("argparse_unrecognized", "unrecognized arguments:", r"error: unrecognized arguments: (?P<args>.+)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.55, fatal=True,
         cause="The CLI of this vLLM has no {args}: a flag removed or renamed since the docs or recipe were written (--task, --enable-reasoning...), one added after this release, a plugin's flag without the plugin, or a flag and its value passed as a single argument.",
         fix="Check `vllm serve --help` of this release: drop or rename the flag (--task became --runner/--convert; --reasoning-parser alone enables reasoning), use the release that has it, or pass flag and value as separate arguments.",
         source="Python argparse parse_args; vllm/engine/arg_utils.py (0.11.0 has --task, 0.13.0 not; 0.9.0.1 deprecates --enable-reasoning, 0.10.0 has none); https://github.com/vllm-project/vllm/issues/35603, https://github.com/vllm-project/vllm/issues/8273"),
    # vllm/lora/utils.py parse_fine_tuned_lora_name (0.10.1.1, 0.22.0, 0.33.0): ValueError(f"{name} is unsupported LoRA weight").
    # Owners in public threads: an adapter saved with modules_to_save (full lm_head/embedding copies), or an adapter of
    # modules this release's LoRA support does not cover for the model (a vision tower): a hint. Added after the fail8
    # held-out reading.
    _sig("lora_weight_unsupported", "is unsupported lora weight", r"(?P<name>[\w.]+) is unsupported LoRA weight", ERROR,
         symptom="invalid_engine_flags", layer="model_weights", weight=0.55, fatal=True,
         cause="The LoRA adapter holds a weight vLLM's LoRA loader cannot apply ({name}): a full module copy saved with modules_to_save (lm_head, embeddings), or a module this release's LoRA support does not cover for the model.",
         fix="Export the adapter with lora_A/lora_B weights only (train without modules_to_save, or merge the adapter into the base weights and serve the merged model); check the release's LoRA support for the model's modules.",
         source="vllm/lora/utils.py parse_fine_tuned_lora_name; https://github.com/vllm-project/vllm/issues/9280"),
    # vllm/entrypoints/openai/api_server.py validate_parsed_serve_args (0.10.1.1, 0.22.0), vllm/entrypoints/common/cli_args.py
    # (0.33.0): KeyError(f"invalid tool call parser: {name} (chose from {{ ... }})"), and the same for reasoning parsers
    _sig("parser_name_unknown", "invalid tool call parser:|invalid reasoning parser:", r"invalid (?P<kind>tool call|reasoning) parser: (?P<name>\S+) \(chose from \{ ?(?P<choices>[^}]*)\}\)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="This vLLM release registers no {kind} parser named {name} (it has: {choices}): the parser came with a later release (model recipes often need the newest), or the name is misspelled.",
         fix="Use a vLLM release that ships the {name} parser (the recipe's minimum version), one of the listed parsers, or load it as a plugin (--tool-parser-plugin).",
         source="vllm/entrypoints/openai/api_server.py validate_parsed_serve_args (0.10.1.1, 0.22.0), vllm/entrypoints/common/cli_args.py (0.33.0); https://github.com/vllm-project/recipes/issues/51"),
    # vllm/config.py ModelConfig._init_multimodal_config (0.9.0.1): the registry does not see the architecture as multimodal
    # and a multimodal option was given. Owners in public threads: a multimodal model newer than the release (GLM-4.1V on
    # 0.9.x, zai-org/GLM-V#9), one served by a fork (Qwen2.5-Omni), or a text-only model given the option: a hint
    _sig("mm_option_text_only", "is only supported for multimodal models", r"`(?P<opt>limit_mm_per_prompt|mm_processor_kwargs|disable_mm_preprocessor_cache)` is only supported for\s+multimodal models", ERROR,
         symptom="unsupported_architecture", layer="vllm_version_flags", weight=0.55, fatal=True,
         cause="This vLLM does not register the model's architecture as multimodal, so {opt} is refused: a multimodal model newer than this release (or one that needs a fork), or a text-only model given a multimodal option.",
         fix="Use a vLLM release whose supported-models list has this multimodal architecture; for a text-only model drop {opt}.",
         source="vllm/config.py ModelConfig._init_multimodal_config (0.9.0.1); https://github.com/zai-org/GLM-V/issues/9"),
    # vllm/entrypoints/chat_utils.py apply_hf_chat_template (0.10.1.1), vllm/renderers/hf.py (0.22.0): no --chat-template and
    # no template in the tokenizer; the chat endpoint answers 400 while the server runs
    _sig("no_chat_template", "default chat template is no longer allowed", r"default chat template is no longer allowed, so you must provide a chat template if the tokenizer\s+does not define one", ERROR,
         symptom="tokenizer_or_revision_mismatch", layer="model_weights", weight=0.75,
         cause="The checkpoint's tokenizer defines no chat template (a base model, or a conversion that dropped it) and no --chat-template was given, so every chat-completions request is refused.",
         fix="Use the completions endpoint with the model's own prompt format, pass --chat-template with a template written for this model, or use a checkpoint whose tokenizer_config.json (or chat_template.jinja) has one.",
         source="vllm/entrypoints/chat_utils.py apply_hf_chat_template (0.10.1.1), vllm/renderers/hf.py (0.22.0); https://github.com/ByteDance-Seed/Seed-X-7B/issues/7"),
    _sig("chat_template_missing", "appears path-like|looks like a file path", r"The supplied chat template (?:string )?\((?P<path>[^)]*)\) (?:appears path-like, but doesn't exist|looks like a file path, but it failed to be opened)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="--chat-template names a file ({path}) that cannot be opened from where the server runs (a path of vLLM's source tree, which the pip wheel does not ship, or a path outside the container).",
         fix="Pass the real path of a .jinja template that exists where vLLM runs (download it from the vLLM repository at the matching release, or mount it into the container), or drop --chat-template to use the tokenizer's own.",
         source="vllm/entrypoints/chat_utils.py load_chat_template; https://github.com/vllm-project/vllm/issues/47600"),
    _sig("heads_not_divisible_by_tp", "must be divisible by tensor parallel size", r"Total number of (?P<what>attention heads|key.value heads|KV heads)\s*\((?P<heads>\d+)\) must be divisible by tensor parallel size \((?P<tp>\d+)\)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--tensor-parallel-size {tp} does not divide the model's {heads} {what}, so the heads cannot be split evenly across the GPUs.",
         fix="Pick a tensor-parallel size that divides {heads} (for example 1, 2, 4 or 8), and use pipeline parallelism for the rest of the GPUs.",
         source="vllm/config ModelConfig.verify_with_parallel_config"),
    _sig("max_len_over_derived", "is greater than the derived max_model_len", r"User-specified max_model_len \((?P<asked>\d+)\) is greater than the derived max_model_len(?: \((?P<derived>[^)]*)\))?", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--max-model-len {asked} exceeds the context the model's config allows ({derived}); vLLM refuses it rather than risk wrong outputs.",
         fix="Lower --max-model-len to the model's limit, or, where the model really extrapolates (a rope-scaling override), set VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.",
         source="vllm/config model.py _get_and_verify_max_len"),
    # vLLM 0.5.5-0.6.x _get_and_verify_max_len (vllm/config.py; 0.6.3 line 1764) asserts a 'factor' key for every
    # rope_scaling type but su/longrope/llama3 (and mrope from 0.6.3); 0.7.3 reads rope_scaling.get("factor", 1.0). A
    # config whose rope_scaling has no factor (a type that release does not know) stops there: the release, not the flags.
    _sig("rope_scaling_no_factor", 'assert "factor" in rope_scaling', r'assert "factor" in rope_scaling', ERROR,
         symptom="unsupported_architecture", layer="vllm_version_flags", weight=0.7, fatal=True, versions="0.5.5-0.6.x",
         cause="This vLLM release asserts a 'factor' key in the model's rope_scaling for every rope type it does not special-case; the checkpoint's rope_scaling has none (a rope type newer than the release, or one Transformers rewrote), so the maximum length cannot be derived.",
         fix="Use a vLLM release that reads this rope_scaling (0.7 and later take a missing factor as 1.0), or override rope_scaling to a type this release knows.",
         source="vllm/config.py _get_and_verify_max_len (0.5.5, 0.6.3; not in 0.7.3); https://github.com/verl-project/verl/issues/649"),
    _sig("unknown_quant_method", "unknown quantization method", r"Unknown quantization method: (?P<method>[\w.-]+)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="This vLLM release has no quantization method named {method} (a typo, or a method added in a later release).",
         fix="Use a --quantization name this release lists (the error prints them), leave it unset to take the checkpoint's own, or pin a vLLM release that has {method}.",
         source="vllm/model_executor/layers/quantization get_quantization_config"),
    # huggingface_hub raises OfflineModeIsEnabled for any HTTP request made while HF_HUB_OFFLINE=1 (utils/_http.py); a
    # cached file is read without a request and a missing one raises LocalEntryNotFoundError instead, so a refused call
    # to the Hub *API* is code that queried the Hub regardless of offline mode (vllm-project/vllm#3719, 0.4.0)
    _sig("offline_hub_api", "offline mode is enabled", r"OfflineModeIsEnabled: Cannot reach (?P<url>https?://[^\s/]+/api/\S*?): offline mode is enabled", ERROR,
         symptom="weights_not_cached", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="HF_HUB_OFFLINE is set and this vLLM (or the transformers it runs) still queried the Hub API ({url}), which offline mode refuses; a missing download would read 'Cannot find the requested files in the disk cache' instead.",
         fix="Pass the local snapshot directory as --model (and --tokenizer) so no repository id is looked up, or use a release that skips Hub API calls in offline mode.",
         source="huggingface_hub utils/_http.py OfflineModeIsEnabled; https://github.com/vllm-project/vllm/issues/3719"),
    # vllm/model_executor/model_loader (loader.py DefaultModelLoader._prepare_weights, 0.4-0.6) raises this when no
    # file of the load format's patterns is found at the model path
    _sig("no_model_weights", "cannot find any model weights", r"Cannot find any model weights with [`'\"]?(?P<path>[^`'\"\s]+)", ERROR,
         symptom="weights_not_cached", layer="model_weights", weight=0.7, fatal=True,
         cause="vLLM found no weight files of the format it looks for at {path}: the download is incomplete or the path is not the model's directory (or --load-format names a format the checkpoint does not have).",
         fix="Check the directory holds the *.safetensors (or *.bin) shards and download them again if not; leave --load-format at auto.",
         source="vllm/model_executor/model_loader/loader.py DefaultModelLoader._prepare_weights; https://github.com/vllm-project/vllm/issues/3329"),
    # huggingface_hub file_download.py _raise_on_head_call_error (2.4.0): with local_files_only (offline) a missing file
    # raises "Cannot find the requested files in the disk cache and outgoing traffic has been disabled"; a HEAD request
    # that failed for another reason than a 401, a missing or a gated repository (a connection failure, an outage, an
    # HTTP error such as a 403) raises "An error happened while trying to locate the file on the Hub and we cannot find
    # the requested files in the local cache" from that error: the Hub was asked, not switched off
    _sig("weights_not_cached_offline", "outgoing traffic has been disabled|cannot find the requested files in the", r"(?:LocalEntryNotFoundError|OfflineModeIsEnabled)(?![^\n]*An error happened while trying to locate the file on the Hub)[^\n]*|Cannot find the requested files in the (?:disk|local) cache and outgoing traffic has been disabled", ERROR,
         symptom="weights_not_cached", layer="model_weights", weight=0.85, fatal=True,
         cause="The Hub is switched off (HF_HUB_OFFLINE=1 or local_files_only) and the model's files are not in the cache at HF_HOME, so nothing can be loaded.",
         fix="Download the pinned revision into the persistent HF_HOME volume first (huggingface-cli download MODEL --revision SHA), or point the server at the same HF_HOME the download used.",
         source="huggingface_hub LocalEntryNotFoundError"),
    _sig("hub_lookup_failed", "error happened while trying to locate the file on the hub", r"An error happened while trying to locate the file on the Hub and we cannot find the requested files in the local cache", ERROR,
         symptom="download_failed", layer="container_environment", weight=0.6, fatal=True,
         cause="A file of the model was asked of the Hugging Face Hub and the request failed (not as a 401, a missing or a gated repository, which are raised as they are), and it is not in the local cache: a connection failure (no egress, proxy, DNS), a Hub outage, or an HTTP error such as a 403; the error chained above this line names which. Offline mode reads otherwise.",
         fix="Read the error above this line (its HTTP status or connection error); check that the container reaches huggingface.co (egress, HTTPS_PROXY, HF_ENDPOINT), or download the model into HF_HOME beforehand.",
         source="huggingface_hub file_download.py _raise_on_head_call_error (2.4.0)"),
    _sig("torch_without_cuda", "torch not compiled with cuda enabled", r"Torch not compiled with CUDA enabled", ERROR,
         symptom="gpu_not_detected_in_container", layer="pytorch_wheel", weight=0.85, fatal=True,
         cause="The installed PyTorch is a CPU-only build, so no CUDA device exists for vLLM, whatever the driver.",
         fix="Reinstall the torch build the vLLM wheel pins (a CUDA build: install vLLM into a fresh virtualenv so pip brings its own torch).",
         source="torch/cuda/__init__.py _lazy_init"),
    _sig("prompt_over_max_len", "is longer than the maximum model length", r"The (?:decoder )?prompt \(length (?P<length>\d+)\) is longer than the maximum model length of (?P<max_len>\d+)", ERROR,
         symptom="prompt_exceeds_max_model_len", layer="client_code", weight=0.8,
         cause="A request's prompt ({length} tokens) is longer than the server's max_model_len ({max_len}); the server started, and rejects that request.",
         fix="Truncate or split prompts on the client, or serve a larger --max-model-len if the KV pool holds it (kvplan fit says which fits).",
         source="vllm/v1/engine/processor.py _validate_model_input"),
    # the OpenAI server's own length check, before the engine sees the request: 0.9.1 vllm/entrypoints/openai/
    # serving_engine.py _validate_input ("... However, you requested N tokens (P in the messages, C in the
    # completion). Please reduce ..."), 0.29.0 vllm/renderers/params.py ("... you requested C output tokens and your
    # prompt contains [at least] P input tokens, for a total of ...", raised as VLLMValidationError)
    _sig("context_over_max_len", "maximum context length is",
         r"This model's maximum context length is (?P<max_len>\d+) tokens\. However, you requested (?P<what>.+?)[.,] Please reduce", ERROR,
         symptom="prompt_exceeds_max_model_len", layer="client_code", weight=0.8,
         cause="A request asked for more than the server's max_model_len ({max_len} tokens): {what}; the server started, and rejects that request (HTTP 400).",
         fix="Cap prompt plus max_tokens at {max_len} on the client (truncate or split prompts, lower max_tokens), or serve a larger --max-model-len if the KV pool holds it (kvplan fit says which fits).",
         source="vllm/entrypoints/openai/serving_engine.py _validate_input (0.9.1); vllm/renderers/params.py (0.29.0)"),
    _sig("arch_unsupported", "are not supported|is not supported", r"Model architectures? \[?'?(?P<arch>[\w', ]+?)'?\]? (?:are|is) not supported(?:.*?Supported architectures: (?P<supported>.*))?", ERROR,
         symptom="unsupported_architecture", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="This vLLM release does not implement the model's architecture ({arch}).",
         fix="Use a vLLM release that supports {arch} (see the supported-models list of newer releases), or a checkpoint of a supported architecture.",
         source="vllm/model_executor/models/registry.py"),
    _sig("transformers_unknown_model_type", "does not recognize this architecture", r"model type `?(?P<mt>[\w.-]+?)`? but Transformers does not recognize this architecture", ERROR,
         symptom="unsupported_architecture", layer="vllm_version_flags", weight=0.8, fatal=True,
         cause="The Transformers installed with this vLLM predates the model type `{mt}`, so its config cannot be read.",
         fix="Use a vLLM release (and its Transformers) that supports `{mt}`, or upgrade transformers if this vLLM allows it.",
         source="transformers CONFIG_MAPPING KeyError message"),
    # The older Transformers form of the same refusal: AutoConfig.from_pretrained's lookup
    # `config_class = CONFIG_MAPPING[config_dict["model_type"]]` (transformers/models/auto/configuration_auto.py; 5.24.0
    # wraps it in the ValueError above) raising a bare KeyError with the model type. The frame line is what names it.
    _sig("transformers_config_mapping_keyerror", 'config_mapping[config_dict["model_type"]]', r'config_class = CONFIG_MAPPING\[config_dict\["model_type"\]\]', ERROR,
         symptom="unsupported_architecture", layer="vllm_version_flags", weight=0.65, fatal=True,
         cause="Transformers' config mapping has no entry for the checkpoint's model_type (the KeyError after this frame names it): the Transformers installed with this vLLM predates the model type, or the checkpoint's config was changed to a type it does not know.",
         fix="Use a vLLM release (and its Transformers) that knows the model type, upgrade transformers where the release allows it, or pin the checkpoint revision that worked.",
         source="transformers/models/auto/configuration_auto.py AutoConfig.from_pretrained; https://github.com/vllm-project/vllm/issues/4315"),
    # transformers/models/auto/configuration_auto.py _LazyConfigMapping.register (5.24.0 read): ValueError(f"'{key}' is
    # already used by a Transformers config, pick another name."). vLLM registers its own configs at import
    # (vllm/transformers_utils/configs/*, e.g. the Ovis 'aimv2' config up to 0.9.2, renamed 'aimv2_visual_tokenizer' by
    # 0.19.0); a Transformers release that adds the same name (4.54.0 added aimv2) makes `import vllm` fail.
    _sig("transformers_config_name_taken", "is already used by a transformers config", r"'(?P<key>[\w.-]+)' is already used by a Transformers config, pick another name", ERROR,
         symptom="import_undefined_symbol", layer="vllm_version_flags", weight=0.75, fatal=True,
         cause="The installed Transformers now defines a config named '{key}' that this vLLM (or the fork/plugin importing it) also registers at import, so vllm cannot be imported: the Transformers version is newer than this vLLM supports.",
         fix="Install the Transformers version this vLLM release pins (for 'aimv2': transformers<4.54 with vLLM 0.9.x), or a vLLM release that renamed its config.",
         source="transformers/models/auto/configuration_auto.py _LazyConfigMapping.register; https://github.com/HabanaAI/vllm-fork/pull/1664"),
    # kernels/layer/layer.py LayerRepository.__init__ and kernels/layer/func.py FuncRepository.__init__ (kernels 0.15.1
    # read): ValueError("Either a revision or a version must be specified.") when neither is given (the "..., not both."
    # variant is a caller passing both). Unpinned Hub kernels were deprecated in kernels 0.12 and refused from 0.15;
    # Transformers' integrations/hub_kernels.py builds its kernel mapping (LayerRepository(...) without either) at
    # import, so `import transformers` -- and vLLM, which imports it at start -- fails with that pair.
    _sig("kernels_repository_unpinned", "either a revision or a version must be specified",
         r"Either a revision or a version must be specified\.", ERROR,
         symptom="import_undefined_symbol", layer="vllm_version_flags", weight=0.75, fatal=True,
         cause="The installed `kernels` package (0.15 or newer) refuses a Hub kernel repository given neither a revision nor a version, and the installed Transformers builds its hub_kernels mapping that way at import: the two packages' versions do not go together, so Transformers (and vLLM with it) cannot be imported.",
         fix="Pin kernels below 0.15 (pip install 'kernels<0.15'), or install a Transformers release whose hub_kernels.py passes a version; pin the set vLLM's release was built with rather than upgrading packages unpinned.",
         source="kernels/layer/layer.py LayerRepository.__init__, kernels/layer/func.py FuncRepository.__init__ (kernels 0.15.1); https://github.com/huggingface/transformers/issues/46291, https://github.com/sgl-project/sglang/pull/26704"),
    # transformers/modeling_gguf_pytorch_utils.py load_gguf_checkpoint (5.24.0 read): ValueError(f"GGUF model with architecture
    # {architecture} is not supported yet."). vLLM reads a .gguf file's config through it, so the release's Transformers
    # decides which GGUF architectures load (huggingface/transformers#39721 added qwen3moe).
    _sig("gguf_arch_unsupported", "gguf model with architecture", r"GGUF model with architecture (?P<arch>[\w.-]+) is not supported yet", ERROR,
         symptom="unsupported_architecture", layer="vllm_version_flags", weight=0.75, fatal=True,
         cause="The GGUF file's architecture ({arch}) has no mapping in the GGUF loader of the Transformers installed with this vLLM, so its config cannot be read; vLLM may support the model itself in safetensors form.",
         fix="Serve the model's safetensors checkpoint, a release whose Transformers' GGUF loader knows {arch}, or llama.cpp for that GGUF.",
         source="transformers/modeling_gguf_pytorch_utils.py load_gguf_checkpoint; https://github.com/huggingface/transformers/issues/39721"),
    # A model's layer-type table missing a name newer Transformers writes in config.layer_types: Transformers 5.13-5.16 renamed
    # 'attention'/'mamba' to 'full_attention'/'linear_attention' (vLLM PR #47867); vllm/model_executor/models/
    # granitemoehybrid.py ALL_DECODER_LAYER_TYPES has only the old keys in 0.20.0 and 0.22.0, both in 0.29.0, only the new in
    # 0.33.0. A bare KeyError on such a name: a hint.
    _sig("layer_type_keyerror", "keyerror: '", r"KeyError: '(?P<lt>(?:full|linear|sliding|chunked)_attention)'", ERROR,
         symptom="unsupported_architecture", layer="vllm_version_flags", weight=0.5, fatal=True,
         cause="A model class in this vLLM looked up the layer type '{lt}' in a table that lacks it: the config was written (or rewritten on load) by a Transformers release that renamed its layer types, newer than this vLLM supports.",
         fix="Use a vLLM release that knows the new layer-type names (0.26+ for GraniteMoeHybrid's 'full_attention'), or the Transformers version this vLLM pins.",
         source="vllm/model_executor/models/granitemoehybrid.py ALL_DECODER_LAYER_TYPES (0.20.0, 0.22.0, 0.29.0, 0.33.0); https://github.com/vllm-project/vllm/pull/47867"),
    # vllm/inputs/registry.py InputContext.get_hf_config (0.7.2, 0.8.5.post1) and vllm/multimodal/processing/context.py
    # (0.22.0, 0.33.0): TypeError("Invalid type of HuggingFace config. Expected type: {typ}, but found type: {type}").
    # Owners in public threads: a release that lacks a config class Transformers renamed (a text-only sub-config), and a
    # framework that built the config itself with Transformers' class of the same name (ms-swift #9139). Same class name
    # on both sides means the config did not come through vLLM's loader. Hints.
    _sig("hf_config_type_same_name", "invalid type of huggingface config", r"Invalid type of HuggingFace config\. Expected type: <class '[\w.]+\.(?P<cls>\w+)'>, but found type: <class 'transformers\.[\w.]+\.(?P=cls)'>", ERROR,
         symptom="unsupported_architecture", layer="client_code", weight=0.5, fatal=True,
         cause="vLLM expected its own {cls} class and got Transformers' class of the same name: the config object was built outside vLLM's config loader (a framework or script driving vLLM), or the Transformers version now defines the class this vLLM bundles.",
         fix="Let vLLM load the config itself (plain vllm serve of the same model shows which): update the framework driving vLLM, or use the Transformers version this vLLM pins.",
         source="vllm/inputs/registry.py (0.7.2, 0.8.5.post1), vllm/multimodal/processing/context.py (0.22.0, 0.33.0); https://github.com/modelscope/ms-swift/issues/9139"),
    _sig("hf_config_type_other", "invalid type of huggingface config", r"Invalid type of HuggingFace config\. Expected type: <class '[\w.]+\.(?P<want>\w+)'>, but found type: <class '[\w.]+\.(?P<got>\w+)'>", ERROR,
         symptom="unsupported_architecture", layer="vllm_version_flags", weight=0.5, fatal=True,
         cause="The model class wants a {want} config but the checkpoint's config loaded as {got}: a checkpoint saved with another (often text-only) config class, which this vLLM release does not map for the model.",
         fix="Use a vLLM release that accepts the {got} config for this model, or re-save the checkpoint with the config class the model expects.",
         source="vllm/inputs/registry.py (0.7.2, 0.8.5.post1), vllm/multimodal/processing/context.py (0.22.0, 0.33.0); https://github.com/vllm-project/vllm/issues/36236"),
    # vllm/model_executor/models/qwen2.py (0.7.2, 0.8.5.post1: ValueError in the decoder layer when the cache has a sliding
    # window and the config has max_window_layers; an assertion for mixed layer_types in 0.33.0). vLLM PR #17772 let Qwen2 use
    # a per-layer sliding window.
    _sig("sliding_window_some_layers", "sliding window for some but all layers", r"Sliding window for some but all layers is not supported", ERROR,
         symptom="unsupported_architecture", layer="vllm_version_flags", weight=0.8, fatal=True,
         cause="The checkpoint's config turns on a sliding window (use_sliding_window with max_window_layers) that this vLLM release's model code does not implement for only some layers, so it refuses the model.",
         fix="Use a release with vLLM PR #17772 (per-layer sliding window for Qwen2), or set use_sliding_window to false in the checkpoint's config.json (the window was not applied in these releases anyway).",
         source="vllm/model_executor/models/qwen2.py (0.7.2, 0.8.5.post1, 0.33.0); https://github.com/vllm-project/vllm/pull/17772"),
    _sig("arch_inspect_failed_new", "failed to be inspected", r"Model architectures? \[?'?(?P<arch>[\w', ]+?)'?\]? failed to be inspected", ERROR,
         symptom="unsupported_architecture", layer="pytorch_wheel", weight=0.5, fatal=True,
         cause="vLLM's model registry crashed while importing the model class ({arch}); the lines above name why (a broken install or an extension that does not load), it is not an unsupported model.",
         fix="Read the error logged before this line; reinstall vLLM (and any flash-attn/xformers) in a fresh virtualenv so the compiled extensions match torch.",
         versions=">=0.8", source="vllm/model_executor/models/registry.py"),
    _sig("arch_inspect_failed", "error in inspecting model architecture", r"Error in inspecting model architecture '(?P<arch>\w+)'", ERROR,
         symptom="unsupported_architecture", layer="pytorch_wheel", weight=0.6, fatal=True,
         cause="vLLM's model registry crashed while importing the model class ({arch}): usually a broken install, not an unsupported model.",
         fix="Reinstall vLLM in a fresh virtualenv and check that `python -c 'import vllm._C'` works.",
         source="vllm/model_executor/models/registry.py; https://github.com/vllm-project/vllm/issues/9701"),
    # ---- a feature or a weight shape this vLLM refuses at engine set-up ------------------------------------
    _sig("marlin_shape", "min_thread_", r"Weight (?P<dim>input|output)_size_per_partition = (?P<size>\d+) is not divisible by\s+min_thread_(?P<kn>[kn]) = (?P<tile>\d+)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="vLLM runs this quantized checkpoint on its Marlin kernel, which needs each weight's per-GPU {dim} size to be a multiple of {tile}; this model's shape, split across the tensor-parallel GPUs, gives {size}.",
         fix="Pick a --tensor-parallel-size whose per-GPU slice is a multiple of {tile} (often a smaller one), or serve on the non-Marlin kernel of the same format (--quantization awq or gptq, as the error suggests), which is slower but has no such tile. From vLLM 0.24.0 Marlin zero-pads such a layer instead (marlin_padded_nk), so there the error means an act-order checkpoint (GPTQ desc_act, compressed-tensors actorder), which keeps the strict check: upgrading helps every other checkpoint.",
         source="vllm/model_executor/layers/quantization/utils/marlin_utils.py verify_marlin_supports_shape, marlin_padded_nk (0.24.0); https://github.com/vllm-project/vllm/issues/9913"),
    # vLLM's dense block-FP8 check words its column-parallel refusal "Weight output_partition_size = N" and its
    # row-parallel one "Weight input_size_per_partition = N" (quantization/fp8.py Fp8LinearMethod.create_weights,
    # 0.6.6.post1-0.10.2; utils/fp8_utils.py validate_fp8_block_shape, 0.11.0-0.33.0); compressed-tensors block FP8
    # raises the same four messages (CompressedTensorsW8A8Fp8 / W8A16Fp8 and CompressedTensorsW8A8Fp8MoEMethod
    # create_weights, 0.11.0-0.33.0)
    _sig("quant_block_shape", "is not divisible by", r"(?:Weight (?:(?P<dim>input|output)_size_per_partition|output_partition_size)|The (?P<what>output_size of gate's and up's weight|input_size of down's weight)) = (?P<size>\d+) is not divisible by(?:\s+weight quantization block_(?P<kn>[kn]) = (?P<block>\d+))?\s*\.?$", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.8, fatal=True,
         cause="The checkpoint is block-quantized (FP8 blocks: weight_block_size in its config, or a compressed-tensors config group with strategy 'block' and a block_structure) and tensor parallelism splits a layer into per-GPU slices of {size}, which is not a whole number of quantization blocks; this vLLM does not pad such slices.",
         fix="Lower --tensor-parallel-size so each GPU holds whole quantization blocks (--pipeline-parallel-size keeps the GPU count: it splits the layers, not their weights); for the experts' message ('gate's and up's', 'down's'), --enable-expert-parallel keeps each expert whole, which does not help a dense layer's 'Weight ...' message; or use a vLLM release that pads partial blocks, or a checkpoint quantized without blocks.",
         source="vllm/model_executor/layers/quantization/fp8.py validate_fp8_block_shape, fused-MoE block check; compressed_tensors/schemes/compressed_tensors_w8a8_fp8.py and its MoE method (the same messages, 0.11.0-0.33.0); vLLM PRs #39046 and #52915 (padding)"),
    # a compressed-tensors ignore list that names some shards of a fused layer (q_proj but not k_proj, v_proj of
    # qkv_proj): compressed_tensors/utils.py should_ignore_layer, "Found a different quantization schemes for [shards]
    # in <layer>. vLLM requires all to use the same scheme." (0.10.2-0.29.0), "Found different quantization schemes
    # for the shards of <layer>." (0.33.0); Fp8Config's is_layer_skipped words it "Detected some but not all shards of
    # <layer> are quantized." (quantization/utils/quant_utils.py, 0.33.0)
    _sig("fused_shards_mixed_schemes", "quantization schemes for|not all shards of",
         r"Found (?:a )?different quantization schemes for (?:the shards of )?(?P<layer>\S+?)\.? vLLM requires all to use the same scheme"
         r"|Found (?:a )?different quantization schemes for .*? in (?P<layer2>\S+?)\. vLLM requires"
         r"|Detected some but not all shards of (?P<layer3>\S+) are quantized", ERROR,
         symptom="invalid_engine_flags", layer="model_weights", weight=0.85, fatal=True,
         cause="The checkpoint's quantization config keeps some shards of a layer vLLM fuses (q_proj, k_proj, v_proj into qkv_proj; gate_proj, up_proj into gate_up_proj) unquantized and quantizes the others; vLLM loads the fused layer with one scheme.",
         fix="Make the checkpoint's ignore list (compressed-tensors) or modules_to_not_convert name all shards of the fused layer or none, and requantize if the weights differ.",
         source="vllm/model_executor/layers/quantization/compressed_tensors/utils.py should_ignore_layer (0.10.2-0.33.0); quantization/utils/quant_utils.py is_layer_skipped (0.33.0)"),
    # a compressed-tensors ignore list that names some but not all of expert 0's gate_proj, up_proj, down_proj:
    # CompressedTensorsMoEMethod.get_moe_method (compressed_tensors_moe.py, 0.12.0-0.33.0; plan.defaults.
    # ct_moe_mixed_schemes)
    _sig("moe_projections_mixed_schemes", "all moe projections need to have same",
         r"All MoE projections need to have same quantization scheme but found multiple", ERROR,
         symptom="invalid_engine_flags", layer="model_weights", weight=0.85, fatal=True,
         cause="The checkpoint's compressed-tensors ignore list keeps some of a MoE layer's expert projections (gate_proj, up_proj, down_proj of expert 0, which vLLM reads for the whole layer's experts) unquantized and quantizes the others; vLLM loads each layer's experts with one scheme.",
         fix="Make the checkpoint's ignore list name all of the experts' gate_proj, up_proj and down_proj or none of them, and requantize if the weights differ.",
         source="vllm/model_executor/layers/quantization/compressed_tensors/compressed_tensors_moe.py CompressedTensorsMoEMethod.get_moe_method (0.12.0-0.33.0)"),
    _sig("marlin_moe_unsupported", "marlin moe method", r"(?P<what>[A-Z][\w ]*?) (?:is )?not supported for (?:fused )?Marlin MoE method", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.8, fatal=True,
         cause="The checkpoint's MoE layers run on vLLM's Marlin MoE kernel (AWQ/GPTQ/W4A16 weights), which in this release does not support what the start asks for: {what}.",
         fix="Drop what it names (expert parallelism: serve without --enable-expert-parallel, tensor parallel only), or use a vLLM release or a quantization format whose MoE method supports it.",
         source="vllm/model_executor/layers/quantization (awq_marlin.py, compressed_tensors_moe.py Marlin MoE methods); vLLM PR #18042; https://github.com/vllm-project/vllm/issues/15760"),
    _sig("lora_rank_above_max", "is greater than max_lora_rank", r"LoRA rank (?P<rank>\d+) is greater than max_lora_rank (?P<max>\d+)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="The LoRA adapter has rank {rank}, above the engine's max_lora_rank ({max}; the default is 16), so the adapter's slots cannot hold it.",
         fix="Start with --max-lora-rank {rank} or more (an allowed value: 8, 16, 32, 64, ...; larger ranks reserve more memory per LoRA slot).",
         source="vllm/lora/peft_helper.py PEFTHelper.validate_legal; https://github.com/vllm-project/vllm/issues/2847"),
    _sig("lora_adapter_missing", "no adapter found for", r"No adapter found for (?P<path>[^\"'\]\s]+)", ERROR,
         symptom="invalid_engine_flags", layer="client_code", weight=0.8, fatal=True,
         cause="The LoRA module path ({path}) holds no adapter vLLM can read: no adapter_config.json with adapter weights there (a training checkpoint directory, a wrong path, or a path outside the container).",
         fix="Point --lora-modules NAME=PATH at the directory that holds adapter_config.json and adapter_model.safetensors (saved with save_pretrained), mounted where the server runs.",
         source="vllm/lora/worker_manager.py _load_adapter"),
    # the model class does not implement LoRA (SupportsLoRA) in this release: "Model X does not support LoRA, but LoRA is
    # enabled. Support for this model may be added in the future." (vllm/model_executor/model_loader.py get_model, read
    # in the 0.4.0.post1 wheel) and "X does not support LoRA yet." (vllm/v1/worker/lora_model_runner_mixin.py
    # load_lora_model, V1 engine, read in the code index)
    _sig("lora_unsupported_model", "does not support lora", r"(?:Model )?(?P<arch>[A-Z]\w+) does not support LoRA(?:, but LoRA is enabled| yet)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="LoRA was enabled (--enable-lora / enable_lora / --lora-modules), and this vLLM release's {arch} class does not implement LoRA, so the start is refused; LoRA support is added per model class in later releases.",
         fix="Use a vLLM release whose {arch} supports LoRA (the supported-models table has a LoRA column), or merge the adapter into the weights and serve without --enable-lora.",
         source="vllm/model_executor/model_loader.py get_model (0.4.0.post1), vllm/v1/worker/lora_model_runner_mixin.py load_lora_model; https://github.com/vllm-project/vllm/issues/3044"),
    # a fused-MoE kernel oracle that refuses the backend for this checkpoint's format on this GPU or parallel layout:
    # "NvFp4 MoE backend 'FLASHINFER_CUTLASS' does not support the deployment configuration since kernel does not support
    # current device." (vllm/model_executor/layers/fused_moe/oracle/nvfp4.py select_nvfp4_moe_backend, 0.15+; also the
    # Fp8 and Mxfp4 oracles)
    _sig("moe_backend_unsupported", "moe backend", r"(?P<fmt>[A-Za-z0-9]+) MoE backend '?(?P<backend>\w+)'? does not support the(?: deployment configuration(?: since kernel does not support (?P<why>.+?))?)?\.?\s*$", ERROR,
         symptom="quant_unsupported_on_gpu", layer="vllm_version_flags", weight=0.8, fatal=True,
         cause="This vLLM release's {fmt} MoE kernel selection refuses backend {backend} for this checkpoint on this GPU or parallel layout; which MoE backends a release accepts for a GPU family changes between releases (vLLM 0.15.0 refused SM12.0 Blackwell, PR #33417).",
         fix="Let vLLM choose the MoE backend (unset VLLM_USE_FLASHINFER_MOE_* / --moe-backend), pick one the release supports on this GPU (e.g. marlin), or use the release that accepts this GPU.",
         source="vllm/model_executor/layers/fused_moe/oracle/nvfp4.py select_nvfp4_moe_backend; https://github.com/vllm-project/vllm/issues/33416"),
    _sig("spec_decode_unsupported", "speculative decoding|spec decode", r"(?P<what>(?:Speculative decoding|Draft model speculative decoding|Spec decode)[\w ]*?) is not (?:yet )?supported(?: yet)?(?!.*Falling back)(?P<where>[\w ]*)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True, flags=_I,
         cause="This vLLM release refuses the speculative decoding it was asked for ({what}{where}): that method or combination is not implemented in it.",
         fix="Use a speculative method this release supports (ngram, eagle/eagle3, mtp, medusa, as the error lists), a vLLM release that implements the one asked for, or start without --speculative-config.",
         source="vllm/config/speculative.py SpeculativeConfig.__post_init__; vLLM PR #24322 (draft models in V1); https://github.com/vllm-project/vllm/issues/31883"),
    # the V2 model runner's refusal, raised by VllmConfig._validate_v2_model_runner (vllm/config/vllm.py): "VLLM_USE_V2_MODEL_RUNNER
    # does not yet support: ..." in 0.20.0-0.22.x, "Model Runner V2 does not yet support: ..." in 0.28.0 (read in those wheels);
    # the warning "Model Runner V2 does not yet support %s; using the V1 model runner instead." (no colon) is not a refusal
    _sig("model_runner_v2_unsupported", "model runner v2 does not yet support:|vllm_use_v2_model_runner does not yet support:", r"(?:Model Runner V2|VLLM_USE_V2_MODEL_RUNNER) does not yet support: (?P<what>[^\[]+?)\s*(?:\[|$)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="vLLM's V2 model runner does not implement {what} yet, and the configuration validator refuses it.",
         fix="Run this configuration on the V1 model runner (where V2 is opt-in, do not enable it), or drop {what}.",
         versions="0.20-0.33", source="vllm/config/vllm.py VllmConfig._validate_v2_model_runner (0.20.0-0.22.x and 0.28.0 wordings); https://github.com/intel/intel-xpu-backend-for-triton/issues/7322; 0.34.0 words it 'The GPU model runner does not support:' (src_gpu_model_runner_unsupported)"),
    _sig("no_backend_for_gpu", "no valid attention backend found", r"No valid attention backend found for (?P<dev>\w+) with AttentionSelectorConfig\((?P<cfg>.*?)\)\.? Reasons: (?P<reasons>.*\bcompute capability not supported\b.*)", ERROR,
         symptom="unsupported_gpu", layer="gpu", weight=0.8, fatal=True,
         cause="No attention backend of this vLLM can run this model's attention on this GPU: the backend that implements it is refused for the GPU's compute capability (the error's reasons: {reasons}).",
         fix="Run this model on a GPU its attention kernels support (the reasons name the backends; datacenter Hopper/Blackwell for sparse MLA), or a model variant without that attention feature.",
         source="vllm/platforms/cuda.py get_attn_backend_cls (validate_configuration reasons); https://github.com/vllm-project/vllm/issues/31936"),
    _sig("no_backend_for_config", "no valid attention backend found", r"No valid attention backend found for (?P<dev>\w+)(?!.*\bcompute capability not supported\b).*?(?:Reasons: (?P<reasons>.*))?$", ERROR,
         symptom="attention_backend_fallback", layer="vllm_version_flags", weight=0.7, fatal=True,
         cause="No attention backend of this vLLM supports the combination the model and flags ask for (head size, KV-cache dtype, sinks, sparse attention...); the reasons list why each one is refused: {reasons}.",
         fix="Change what the reasons name (e.g. --kv-cache-dtype auto, no forced --attention-backend / VLLM_ATTENTION_BACKEND), or use a vLLM release whose backends support this model.",
         source="vllm/platforms/cuda.py get_attn_backend_cls"),
    # The same error wrapped over several lines (a terminal or an issue's paste): the reasons land on a later line,
    # "...). Reasons: {FLASH_ATTN_MLA: [sparse not supported, compute capability not" (vllm/platforms/cuda.py
    # get_attn_backend_cls joins each backend's validate_configuration reasons, vllm/v1/attention/backend.py 0.22.0, 0.33.0:
    # "compute capability not supported"). Context only: diagnose reads it after a "No valid attention backend found" line
    # whose reasons are missing (the debug line "Some attention backends are not valid ..." comes before that error).
    _sig("backend_reasons_capability", "compute capability not", r"Reasons: \{.*\bcompute capability not\b", CONTEXT,
         source="vllm/platforms/cuda.py get_attn_backend_cls; vllm/v1/attention/backend.py validate_configuration (0.22.0, 0.33.0)"),
    # vllm/v1/attention/backends/flash_attn.py FlashAttentionImpl.__init__ (0.10.1.1, 0.11.0, 0.33.0): a model with
    # attention sinks (gpt-oss) on the FlashAttention backend asserts "Sinks are only supported in FlashAttention 3" where
    # only FlashAttention 2 runs (before Hopper). The backend came from a forced --attention-backend /
    # VLLM_ATTENTION_BACKEND or the release's selection for this configuration: either way vLLM's flags or release.
    _sig("fa_sinks_need_fa3", "sinks are only supported in flashattention 3", r"Sinks are only supported in FlashAttention 3", ERROR,
         symptom="attention_backend_fallback", layer="vllm_version_flags", weight=0.75, fatal=True,
         cause="This model uses attention sinks (gpt-oss), and the FlashAttention backend chosen for it supports sinks only as FlashAttention 3 (Hopper): on this GPU only FlashAttention 2 runs. The backend was forced (--attention-backend, VLLM_ATTENTION_BACKEND) or picked by this release for the flags given.",
         fix="Use a backend with sinks on this GPU (TRITON_ATTN) and unset a forced FLASH_ATTN; drop flags that steer the selection (a forced --quantization), or use a release whose selection skips FlashAttention for sinks before Hopper.",
         versions=">=0.10.1", source="vllm/v1/attention/backends/flash_attn.py FlashAttentionImpl.__init__ (0.10.1.1, 0.11.0, 0.33.0)"),
    _sig("selected_backend_invalid", "is not valid for this configuration", r"Selected backend (?P<backend>[\w.]+) is not valid for this configuration\.(?: Reason: (?P<why>.*))?", ERROR,
         symptom="attention_backend_fallback", layer="vllm_version_flags", weight=0.8, fatal=True,
         cause="The attention backend chosen for this start ({backend}, by --attention-backend, VLLM_ATTENTION_BACKEND or the image's defaults) cannot run this model (vLLM's reason: {why}).",
         fix="Unset the forced backend so vLLM picks a valid one, or choose a backend that supports what the reason names (e.g. TRITON_ATTN for attention sinks).",
         source="vllm/platforms (cuda.py, rocm.py) get_attn_backend_cls; https://github.com/kyuz0/amd-strix-halo-vllm-toolboxes/issues/36"),
    # vllm/v1/attention/backends/flashinfer.py FlashInferImpl.__init__ (0.11.0): "FlashInfer backend currently does not support
    # attention sinks, please use trtllm on blackwell or flash attention on earlier GPUs." -- FlashInfer was chosen (forced, or
    # by the release) for a model with sinks where this release cannot use its trtllm attention
    _sig("flashinfer_sinks", "flashinfer backend currently does not support attention", r"FlashInfer backend currently does not support attention sinks", ERROR,
         symptom="attention_backend_fallback", layer="vllm_version_flags", weight=0.8, fatal=True,
         cause="The FlashInfer attention backend was used for a model with attention sinks (gpt-oss), and this vLLM can run sinks on FlashInfer only through its trtllm kernels, which it does not use here: the backend was forced (--attention-backend / VLLM_ATTENTION_BACKEND), or this build chose it (a regression on Blackwell).",
         fix="Unset a forced FlashInfer backend so vLLM picks one that supports sinks (FlashAttention 3 on Hopper, TRITON_ATTN elsewhere); on Blackwell use a release where FlashInfer's trtllm path is taken.",
         source="vllm/v1/attention/backends/flashinfer.py FlashInferImpl.__init__ (0.11.0); https://github.com/vllm-project/vllm/issues/30919"),
    _sig("head_size_backend", "is not supported by", r"Head size (?P<size>\d+) is not supported by (?P<backend>\w+)\. Supported head sizes(?: are)?: \[(?P<sizes>[^\]]*)\]", ERROR,
         symptom="attention_backend_fallback", layer="vllm_version_flags", weight=0.8, fatal=True,
         cause="The attention backend this start uses ({backend}) supports head sizes [{sizes}] only, and the model's attention has head size {size}; another backend of the same vLLM may support it.",
         fix="Select a backend that supports head size {size} (the error names one, e.g. FLEX_ATTENTION via VLLM_ATTENTION_BACKEND / --attention-backend), unset a forced backend, or use a vLLM release whose default backend supports it.",
         source="vllm/attention/backends (validate_head_size); https://github.com/vllm-project/vllm/issues/22193"),
    _sig("head_size_release", "is not supported. supported head sizes", r"head_size \((?P<size>\d+)\) is not supported\. Supported head sizes: \[(?P<sizes>[^\]]*)\]", ERROR,
         symptom="unsupported_architecture", layer="vllm_version_flags", weight=0.8, fatal=True,
         cause="This vLLM release's attention kernels support head sizes [{sizes}] only; the model's head size is {size}, so the model cannot run on it.",
         fix="Use a vLLM release whose kernels support head size {size} (later releases widened the list), or a model with a supported head size.",
         source="vllm/model_executor/layers/attention.py (0.1-0.2 PagedAttention head-size check); https://github.com/vllm-project/vllm/issues/336"),
    _sig("unknown_attention_backend", "unknown attention backend", r"Unknown attention backend: '?(?P<backend>[\w.]+)'?\.?(?: Valid options are: (?P<valid>.*))?", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="The attention backend named for this start ({backend}, by VLLM_ATTENTION_BACKEND, --attention-backend or a platform plugin) is not one this vLLM registers.",
         fix="Name one of the backends the error lists, or unset it; with a platform plugin (vllm-ascend, a hardware fork) install the vLLM release that plugin version is built for.",
         source="vllm/attention/backends/registry.py (backend name lookup); https://github.com/vllm-project/vllm-ascend/issues/4197"),
    _sig("spec_sequence_parallel_shapes", "required by sequence parallelism", r"Can't determine cudagraph shapes that are both a multiple of (?P<spec>\d+) \(num_speculative_tokens \+ 1\) required by spec-decode and (?P<tp>\d+) \(tensor_parallel_size\) required by sequence parallelism", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="This vLLM needs CUDA-graph sizes that are multiples of both {spec} (num_speculative_tokens + 1) and {tp} (tensor-parallel size for sequence parallelism) and refuses the combination (some releases assert it even without sequence parallelism, vLLM PR #29036).",
         fix="Choose num_speculative_tokens so that num_speculative_tokens + 1 is a multiple of {tp} (or divides it), disable sequence parallelism, or use a release with PR #29036.",
         source="vllm/config/compilation.py (cudagraph sizes for spec decode); vLLM PRs #28315, #29036"),
    _sig("fp8_kv_backend_unsupported", "fp8 kv cache is not supported by the", r"FP8 KV cache is not supported by the (?P<backend>[\w ]+?) attention backend(?: on (?P<gpu>.*?)(?: \(compute capability (?P<cc>[\d.]+)\))?)?[;.]?", ERROR,
         symptom="quant_unsupported_on_gpu", layer="vllm_version_flags", weight=0.8, fatal=True,
         cause="--kv-cache-dtype fp8 was asked for, and the attention backend this vLLM chose for this GPU ({backend}) has no FP8 KV cache here (compute capability {cc}); which backends a release allows on a GPU changes between releases.",
         fix="Drop --kv-cache-dtype fp8 (or use auto), force a backend that stores FP8 KV on this GPU (--attention-backend FLASHINFER where the release allows it), or the release that did.",
         source="vllm/v1/attention/backends/triton_attn.py; vLLM PR #47949 (FlashInfer floor raised in 0.24)"),
    _sig("rope_scaling_old_schema", "rope_scaling` must be a dictionary|rope_scaling must be a dictionary", r"`?rope_scaling`? must be a dictionary with (?:with )?two fields", ERROR,
         symptom="unsupported_architecture", layer="vllm_version_flags", weight=0.8, fatal=True,
         cause="The model's config uses a rope_scaling layout (e.g. Llama 3.1's rope_type 'llama3') that the transformers/vLLM of this install predate: they only know the old two-field form, so the config is refused.",
         fix="Upgrade to a vLLM release that supports the model (Llama 3.1: vLLM >= 0.5.3.post1 with transformers >= 4.43); do not edit rope_scaling in config.json, which changes the model's positions.",
         source="transformers LlamaConfig._rope_scaling_validation (< 4.43); vLLM PR #6693 / 0.5.3.post1; https://github.com/vllm-project/vllm/issues/6689"),
    # a pre-quantized bitsandbytes checkpoint stores each 4-bit weight's quant state beside it (bitsandbytes/functional.py
    # QuantState.as_dict: absmax, quant_map, nested_absmax, nested_quant_map, quant_state.bitsandbytes__nf4/fp4); a loader
    # that is not bitsandbytes' finds no parameter for them (unslothai/unsloth#1380: --load-format/--quantization bitsandbytes)
    _sig("bnb_quant_state_key", "absmax|quant_map|quant_state.bitsandbytes__", r"'(?P<name>[\w.]*?\bweight\.(?:nested_)?(?:absmax|quant_map)|[\w.]*?\bweight\.quant_state\.bitsandbytes__(?:nf4|fp4))'", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.8, fatal=True,
         cause="The checkpoint is pre-quantized with bitsandbytes (its tensors include the 4-bit quant state {name}) and was loaded with the default loader, which has no parameter for those tensors.",
         fix="Serve it with --quantization bitsandbytes --load-format bitsandbytes (releases that do not detect it), in a release that loads pre-quantized bitsandbytes checkpoints, or serve a 16-bit export.",
         source="bitsandbytes/functional.py QuantState.as_dict; https://github.com/unslothai/unsloth/issues/1380"),
    # vllm/model_executor/layers/quantization/base_config.py QuantizationConfig.get_from_keys: the method this release
    # chose reads keys the checkpoint's quantization_config does not have
    _sig("quant_config_missing_keys", "in the model's quantization config", r"Cannot find any of \[(?P<keys>[^\]]*)\] in the model's quantization config", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.8, fatal=True,
         cause="The quantization method this release uses for the checkpoint reads {keys} from its quantization_config, which the checkpoint does not have: the checkpoint's format is not the one this release's method (or the --quantization given) expects.",
         fix="Leave --quantization unset (or pass the checkpoint's own method), use a release that supports this checkpoint's quantization format, or serve a 16-bit export.",
         source="vllm/model_executor/layers/quantization/base_config.py QuantizationConfig.get_from_keys; https://github.com/unslothai/unsloth/issues/688"),
    # vllm/model_executor/model_loader/weight_utils.py get_quant_config (0.6.3, 0.33.0; weight_utils.py in 0.2.x):
    # f"Cannot find the config file for {quantization}" -- --quantization names a method whose config file (quantize_config.json
    # and the like) the checkpoint does not have, and no quantization_config in config.json: most often an unquantized checkpoint
    _sig("quant_config_file_missing", "cannot find the config file for", r"Cannot find the config file for (?P<method>[\w.-]+)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.7, fatal=True,
         cause="--quantization {method} was given, but the checkpoint has no {method} quantization config (neither in config.json nor a quantize_config file): vLLM loads only checkpoints already quantized with {method}; an unquantized checkpoint, or a quantized one whose config file was not downloaded.",
         fix="Drop --quantization for an unquantized checkpoint (or quantize it first, e.g. with AutoAWQ / llm-compressor), or point at the {method} checkpoint with its config file.",
         source="vllm/model_executor/model_loader/weight_utils.py get_quant_config; https://github.com/vllm-project/vllm/issues/1419"),
    _sig("quant_arg_mismatch", "does not match the quantization method specified in the", r"Quantization method specified in the model config \((?P<config>[\w.-]+)\) does not match the quantization method specified in the\W+quantization\W+argument \((?P<arg>[\w.-]+)\)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="--quantization {arg} contradicts the checkpoint's own quantization_config ({config}); vLLM refuses a method name that differs from the one the checkpoint declares (older releases even for a kernel variant of it, such as gptq_marlin for gptq).",
         fix="Leave --quantization unset (vLLM reads the checkpoint's method and picks the fastest kernel for it, Marlin included), or pass the name the checkpoint declares ({config}).",
         source="vllm/config ModelConfig._verify_quantization; https://github.com/vllm-project/vllm/issues/5677"),
    # vllm/engine/arg_utils.py EngineArgs.create_model_config (0.8.5) sets quantization = load_format = "gguf" itself for a
    # .gguf file, so a mismatch naming gguf as the argument means the config.json read beside the GGUF (the original
    # repo's, via --hf-config-path or the tokenizer directory) carries another checkpoint's quantization_config.
    _sig("quant_arg_mismatch_gguf", "does not match the quantization method specified in the", r"Quantization method specified in the model config \((?P<config>[\w.-]+)\) does not match the quantization method specified in the\W+quantization\W+argument \(gguf\)", ERROR,
         symptom="invalid_engine_flags", layer="model_weights", weight=0.8, fatal=True,
         cause="vLLM chose gguf itself for the .gguf file, but the config.json used with it declares {config} (it is the original, unquantized-or-{config} checkpoint's config, not the GGUF's).",
         fix="Use a config without that quantization_config for the GGUF (remove the field, or point --hf-config-path / --tokenizer at a repo whose config has none).",
         source="vllm/engine/arg_utils.py EngineArgs.create_model_config (0.8.5); vllm/config ModelConfig._verify_quantization; https://github.com/vllm-project/vllm/issues/19050"),
    _sig("pp_unsupported_model", "pipeline parallelism is not supported for this model|pipeline parallelism is only supported for the following",
         r"Pipeline parallelism is not supported for this model|Pipeline parallelism is only supported for the following\s+architectures", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="--pipeline-parallel-size > 1 was asked for a model class that does not implement vLLM's SupportsPP interface in this release (for speculative decoding, the draft model's class counts too).",
         fix="Serve with tensor parallelism only (--pipeline-parallel-size 1), or use a vLLM release whose model class implements SupportsPP (the supported-models list marks PP support).",
         source="vllm/config/model.py ModelConfig.verify_with_parallel_config (registry.is_pp_supported_model); before SupportsPP (0.5-0.6) vllm/config.py listed the architectures in the error; https://github.com/vllm-project/vllm/issues/16231, https://github.com/vllm-project/vllm/issues/9015"),
    # vllm/model_executor/models/utils.py AutoWeightsLoader._load_module (0.8.2, 0.8.5, 0.9.0.1; 0.33.0 adds "The
    # available parameters belonging to ..."): a checkpoint tensor name the model class has no parameter for. Owners in
    # public threads: the release (a quantized lm_head or a new layout it does not register, a weight-name remap bug in one
    # release) and the checkpoint (a fine-tuning tool's extra modules, a config naming another architecture). A hint.
    _sig("weight_name_unknown", "there is no module or parameter named", r"There is no module or parameter named '(?P<name>[^']+)'(?: in (?P<cls>\w+))?", ERROR,
         symptom="unsupported_architecture", layer="vllm_version_flags", weight=0.5, fatal=True,
         cause="The weight loader met a checkpoint tensor ('{name}') that the model class has no module or parameter for: this release does not know that part of the checkpoint's layout (a quantized lm_head, a new model's weight names, a remapping bug of one release), or the checkpoint carries modules the architecture does not have (extra modules saved by a fine-tuning tool, another architecture's config).",
         fix="Check which side is new: if the checkpoint is a published one, use a vLLM release that lists it (or the previous release if it loaded there); if it is your own export, save it without the extra modules (merge adapters, drop quantized heads) or with the architecture vLLM expects.",
         source="vllm/model_executor/models/utils.py AutoWeightsLoader._load_module (0.8.2, 0.8.5, 0.9.0.1, 0.33.0)"),
    # The same loader error in a class of vLLM's Transformers modeling backend (vllm/model_executor/models/transformers/
    # __init__.py: TransformersForCausalLM, TransformersMoEForCausalLM, TransformersMultiModal[MoE]ForCausalLM, ...,
    # named by ModelConfig._get_transformers_backend_cls, 0.29.0). The registry builds a model with that backend only
    # when no architecture the config names is registered natively and model_impl is "auto", or when --model-impl
    # transformers is given (_ModelRegistry.resolve_model_cls, "Fallback to transformers impl", 0.10.2, 0.14.0, 0.29.0):
    # a checkpoint tensor the generic backend has no module for is then a model this release does not implement yet
    # (PaddleOCR-VL before 0.11.1, vllm#28517; GLM-5.3-Flash before its native class, vllm#54062 and PR #53906).
    _sig("weight_name_unknown_transformers_backend", "there is no module or parameter named",
         r"There is no module or parameter named '(?P<name>[^']+)' in (?P<cls>Transformers\w+)", ERROR,
         symptom="unsupported_architecture", layer="vllm_version_flags", weight=0.7, fatal=True,
         cause="vLLM built this model through its generic Transformers modeling backend ({cls}), which it does when no architecture in the model's config is implemented natively in this release (or --model-impl transformers was given), and that backend has no module for the checkpoint's '{name}': this release does not implement the model yet.",
         fix="Use a vLLM release (or nightly) whose supported-models list has the model's architecture; if --model-impl transformers was set, drop it so the native class is used.",
         source="vllm/model_executor/models/registry.py _ModelRegistry.resolve_model_cls (Transformers fallback, 0.10.2, 0.14.0, 0.29.0); vllm/config/model.py _get_transformers_backend_cls (0.29.0); https://github.com/vllm-project/vllm/issues/28517, https://github.com/vllm-project/vllm/issues/54062"),
    # vllm/model_executor/model_loader/weight_utils.py default_weight_loader (0.6.1, 0.7.2, 0.11.0, 0.22.0, 0.33.0):
    # "Attempted to load weight ({loaded}) into parameter ({param})"; vllm/model_executor/layers/linear.py
    # ReplicatedLinear.weight_loader (0.11.0-0.33.0): "Tried to load weights of size {loaded}to a parameter of size {param}";
    # vllm/model_executor/parameter.py load_column_parallel_weight / load_row_parallel_weight (0.6.1-0.33.0): a bare
    # "assert self.data.shape == loaded_weight.shape" that the traceback prints. A checkpoint tensor whose shape differs from
    # the model's parameter. Owners in public threads: the release's model class for this checkpoint's variant (an NVFP4
    # MTP drafter, https://github.com/vllm-project/vllm/issues/35031; sharding under tensor parallelism), the checkpoint
    # (a merge or conversion with other shapes, https://github.com/verl-project/verl/issues/834), and code that loads a
    # trainer's weights into a live engine (ZeRO-3 partitioned parameters arrive with size 0,
    # https://github.com/modelscope/ms-swift/issues/9255). A hint.
    _sig("weight_shape_mismatch", "attempted to load weight|tried to load weights of size|assert self.data.shape == loaded_weight.shape",
         r"Attempted to load weight \((?P<got>torch\.Size\(\[[^\]]*\]\))\) into parameter \((?P<want>torch\.Size\(\[[^\]]*\]\))\)|Tried to load weights of size (?P<got2>torch\.Size\(\[[^\]]*\]\)) ?to a parameter of size (?P<want2>torch\.Size\(\[[^\]]*\]\))|assert self\.data\.shape == loaded_weight\.shape", ERROR,
         symptom="unsupported_architecture", layer="vllm_version_flags", weight=0.5, fatal=True,
         cause="A checkpoint tensor's shape differs from the model parameter vLLM built for it (the line alone does not say which side is wrong): this release's model class may not handle the checkpoint's variant (a quantized or MTP/draft head, a packed-module mapping, tensor-parallel sharding), the checkpoint may not match its own config (a merge or conversion that wrote other shapes), or code loading a trainer's weights into the engine may pass partitioned tensors (ZeRO-3 parameters of size 0).",
         fix="Compare the two shapes with the checkpoint's config: if the checkpoint is published and loads elsewhere, try a vLLM release that lists it (or without the speculative/draft head); if it is your own merge or export, re-export it with the base model's shapes; when a trainer syncs weights, gather full parameters before loading.",
         source="vllm/model_executor/model_loader/weight_utils.py default_weight_loader (0.6.1, 0.7.2, 0.11.0, 0.22.0, 0.33.0); vllm/model_executor/layers/linear.py ReplicatedLinear.weight_loader; vllm/model_executor/parameter.py (0.6.1-0.33.0)"),
    # FlashInfer's backend_requirement decorator (flashinfer/utils.py, 0.6.6): BackendSupportedError(f"{func} does not
    # support backend '{backend}' with capability {cap}") when the caller asks a GEMM for a backend FlashInfer does not
    # run on this GPU. The backend is the caller's choice (vLLM's kernel selection, a fork's commit, or a backend forced by
    # an environment variable): the release's or the flags', not the GPU's.
    _sig("flashinfer_backend_unsupported_gemm", "does not support backend", r"(?P<fn>\w*(?:mm|gemm)\w*) does not support backend '(?P<backend>[\w-]+)' with capability (?P<cap>\d+)", ERROR,
         symptom="quant_unsupported_on_gpu", layer="vllm_version_flags", weight=0.75, fatal=True,
         cause="FlashInfer's {fn} was called with its '{backend}' backend, which FlashInfer does not run on compute capability {cap}: the backend vLLM (or this build, or a forced backend setting) picked for the quantized GEMM does not cover this GPU.",
         fix="Let vLLM pick the GEMM backend (unset any forced FP4/FP8 GEMM backend variable), or use a release/build whose selection skips '{backend}' on capability {cap}.",
         source="flashinfer/utils.py backend_requirement (FlashInfer 0.6.6); https://github.com/intel/auto-round/issues/1864"),
    # vllm/v1/worker/gpu_model_runner.py GPUModelRunner.may_reinitialize_input_batch (0.9.2, 0.10.0, 0.11.0, 0.15.0, 0.19.1;
    # gone in 0.20.0): assert cpu_offload_gb == 0, "Cannot re-initialize the input batch when CPU weight offloading is
    # enabled. See https://github.com/vllm-project/vllm/pull/18298 for more details." -- the KV cache groups' block sizes
    # differ from --block-size (hybrid or multi-group models), so the runner rebuilds its input batch, which it refuses
    # with --cpu-offload-gb.
    _sig("cpu_offload_input_batch", "cannot re-initialize the input batch when cpu weight offloading", r"Cannot re-initialize the input batch when CPU weight offloading is enabled", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="This model's KV cache groups use block sizes other than --block-size (a hybrid or multi-group model), so the model runner must rebuild its input batch, and this release refuses that with CPU weight offloading (--cpu-offload-gb).",
         fix="Start without --cpu-offload-gb for this model (fit it with tensor parallelism or a smaller quantization), or use a release without the guard (0.20.0 or later).",
         versions="0.9.2-0.19", source="vllm/v1/worker/gpu_model_runner.py GPUModelRunner.may_reinitialize_input_batch (0.9.2, 0.10.0, 0.11.0, 0.15.0, 0.19.1; removed by 0.20.0)"),
    # vllm/config/lora.py (0.14.1, 0.22.0, 0.33.0): max_lora_rank: MaxLoRARanks = Literal[1, 8, 16, 32, 64, 128, 256, 320,
    # 512]; pydantic refuses another value with its literal_error ("Input should be 1, 8, ... or 512"). The CLI's
    # --max-lora-rank takes its choices from the same Literal (vllm/engine/arg_utils.py), so argparse refuses there first:
    # this error comes from code that builds the config itself (LLM(..., max_lora_rank=...), a framework's LoRA manager).
    _sig("lora_rank_literal", "[type=literal_error, input_value=", r"Input should be (?:1, )?8, 16, 32, 64, 128, 256, 320 or 512 \[type=literal_error, input_value=(?P<rank>\d+)", ERROR,
         symptom="invalid_engine_flags", layer="client_code", weight=0.75, fatal=True,
         cause="max_lora_rank={rank} was passed to vLLM's LoRA config, which accepts only 1, 8, 16, 32, 64, 128, 256, 320 or 512; the value came from code that builds the config itself (the CLI offers only those choices), often an adapter's own rank passed through.",
         fix="Round the rank up to the next allowed value (e.g. 48 -> 64) where the calling code builds LLM(...) / LoRAConfig.",
         versions=">=0.14", source="vllm/config/lora.py LoRAConfig.max_lora_rank (MaxLoRARanks, 0.14.1, 0.22.0, 0.33.0); https://github.com/vllm-project/vllm-omni/pull/1397"),
    # A pooling type on --pooler-config / --override-pooler-config vLLM has no member for; no release takes a lower-case
    # name ('mean'). From 0.12.0 PoolerConfig.pooling_type is a Literal (config/pooler.py PoolingTypeStr 'LAST', 'ALL',
    # 'CLS', 'STEP', 'MEAN' in 0.12.0 / 0.13.0; from 0.14.0 seq_pooling_type 'CLS', 'LAST', 'MEAN' and tok_pooling_type
    # 'ALL', 'STEP', pooling_type their union: 0.14.0, 0.34.0) that pydantic checks as argparse builds the PoolerConfig
    # from the JSON (engine/arg_utils.py _compute_kwargs parse_dataclass, TypeAdapter(cls).validate_json, which argparse
    # prints as "argument --pooler-config: 1 validation error for PoolerConfig"); up to 0.11.x any string is taken and
    # the pooler's lookup PoolingType[pooler_config.pooling_type] raises KeyError when the model is built (layers/pooler.py
    # ResolvedPoolingConfig.from_config / Pooler, 0.6.4, 0.9.2, 0.10.1, 0.11.0 and 0.11.2 wheels), the traceback showing
    # that source line (plan.defaults.pooler_given, rules row pooler_type_checked)
    _sig("pooler_type_literal", "[type=literal_error, input_value=",
         r"Input should be (?:'LAST', 'ALL', 'CLS', 'STEP' or 'MEAN'|'CLS', 'LAST' or 'MEAN'|'ALL' or 'STEP') \[type=literal_error, input_value='?(?P<value>[^',\]]*)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.8, fatal=True,
         cause="The pooling type given on --pooler-config ({value}) is not one vLLM's PoolerConfig has: it takes only LAST, ALL, CLS, STEP or MEAN (from 0.14 seq_pooling_type CLS/LAST/MEAN, tok_pooling_type ALL/STEP), in upper case.",
         fix="Give the type in upper case, e.g. --pooler-config '{{\"pooling_type\": \"MEAN\"}}'.",
         versions=">=0.12", source="vllm/config/pooler.py PoolerConfig (0.12.0, 0.13.0, 0.14.0, 0.34.0); vllm/engine/arg_utils.py parse_dataclass"),
    _sig("pooler_type_keyerror", "poolingtype[pooler_config.pooling_type]", r"PoolingType\[pooler_config\.pooling_type\]", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.75, fatal=True,
         cause="The pooling type given on --override-pooler-config / --pooler-config is no member of vLLM's PoolingType (LAST, ALL, CLS, STEP, MEAN, upper case): the PoolerConfig took the string and the pooler's lookup raised KeyError when the model was built (the KeyError line names it; a lower-case 'mean' is refused too).",
         fix="Give the type in upper case, e.g. --override-pooler-config '{{\"pooling_type\": \"MEAN\"}}'.",
         versions="0.6.4-0.11", source="vllm/model_executor/layers/pooler.py PoolingType lookup (0.6.4, 0.9.2, 0.10.1, 0.11.0, 0.11.2)"),
    # transformers_utils/config.py get_pooling_config_name (0.10.1, 0.11.0, 0.12.0, 0.13.0 wheels): the first mode set to
    # true in the checkpoint's sentence-transformers Pooling config (modules.json -> 1_Pooling/config.json), named without
    # 'pooling_mode_' and cut at its first '_', is none of LAST/ALL/CLS/STEP/MEAN (pooling_mode_max_tokens, weightedmean):
    # NotImplementedError. ModelConfig reads it for every pooling run (and --runner auto asks it), whatever --pooler-config
    # says; up to 0.10.0 such a mode is skipped, from 0.14.0 too (plan.defaults.st_pooling_types)
    _sig("st_pooling_type_unsupported", "not supported", r"Pooling type (?P<name>[A-Z][A-Z_]*) not supported", ERROR,
         symptom="unsupported_architecture", layer="model_weights", weight=0.8, fatal=True,
         cause="The checkpoint's sentence-transformers Pooling config (modules.json -> 1_Pooling/config.json) sets {name} pooling first, which this vLLM has no pooling type for; it reads that config for every pooling run, whatever --pooler-config gives.",
         fix="Set a mode vLLM has (pooling_mode_mean_tokens, cls_token or lasttoken) first in the checkpoint's Pooling config, or use vLLM 0.14.0 or newer, which skips a mode it has no type for.",
         versions="0.10.1-0.13", source="vllm/transformers_utils/config.py get_pooling_config_name (0.10.1, 0.11.0, 0.12.0, 0.13.0)"),
    # vllm/config/parallel.py ParallelConfig.__post_init__: with no --distributed-executor-backend and a world size above
    # the node's GPUs, 0.11.1-0.12.0 raise "Tensor parallel size (N) cannot be larger than the number of available GPUs
    # (M)." and 0.13.0-0.33.0 "World size (N) is larger than the number of available GPUs (M) in this node. If this is
    # intentional and you are using: - ray, set '--distributed-executor-backend ray'. ..." (earlier releases chose Ray
    # themselves). Owners in public threads: a multi-node start that relied on that choice, and a node or container that
    # shows fewer GPUs than the deployment expects. A hint.
    _sig("world_size_above_node_gpus", "cannot be larger than the number of available gpus|is larger than the number of available gpus",
         r"(?:Tensor parallel size|World size) \((?P<world>\d+)\) (?:cannot be larger|is larger) than the number of available GPUs \((?P<gpus>\d+)\)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.55, fatal=True,
         cause="The engine needs {world} GPUs and this node shows {gpus}, and no executor backend was named: since 0.11.1 vLLM no longer switches to Ray by itself, so a start across nodes needs --distributed-executor-backend ray (or --nnodes with multiprocessing); on one node, fewer GPUs are visible than expected (CUDA_VISIBLE_DEVICES, the container's device list).",
         fix="For several nodes, start with --distributed-executor-backend ray on a formed Ray cluster (or --nnodes/--node-rank with the mp backend, 0.13+); on one node, check nvidia-smi and CUDA_VISIBLE_DEVICES inside the container, or lower --tensor-parallel-size to {gpus}.",
         versions=">=0.11.1", source="vllm/config/parallel.py ParallelConfig.__post_init__ (0.11.1, 0.11.2, 0.12.0; 0.13.0, 0.14.1, 0.19.0, 0.33.0 'World size ... in this node')"),
    # vllm/v1/worker/gpu_worker.py Worker.init_device (0.19.0): on one node with the mp executor each data-parallel
    # engine's worker takes device index TP rank + DP local rank x TP x PP and asserts it is below
    # torch.accelerator.device_count(): "DP adjusted local rank N is out of bounds." A start whose DP x TP x PP is more
    # than the GPUs this node or container shows.
    _sig("dp_local_rank_out_of_bounds", "dp adjusted local rank", r"DP adjusted local rank (?P<rank>\d+) is out of bounds", ERROR,
         symptom="invalid_engine_flags", layer="container_environment", weight=0.8, fatal=True,
         cause="A data-parallel engine's worker needs GPU index {rank} (DP local rank x TP x PP + its TP rank), and this node or container shows fewer GPUs: --data-parallel-size x --tensor-parallel-size x --pipeline-parallel-size is more than the GPUs visible (a pod or container given fewer GPUs than that product, or CUDA_VISIBLE_DEVICES).",
         fix="Give the container DP x TP x PP GPUs (Kubernetes resources nvidia.com/gpu, docker --gpus, CUDA_VISIBLE_DEVICES) or lower --data-parallel-size to what it shows.",
         versions="0.19.0 (read)", source="vllm/v1/worker/gpu_worker.py Worker.init_device (0.19.0)"),
    # vllm/distributed/utils.py ensure_divisibility (0.19.0): `assert numerator % denominator == 0, "{} is not divisible
    # by {}"`, called through divide() wherever a tensor- or pipeline-parallel size splits a model dimension (the
    # embedding's vocabulary in vocab_parallel_embedding.py vocab_range_from_global_vocab_size, heads, MLP widths).
    # The message names neither the dimension nor who chose the parallel size, and public threads show three owners:
    # the user's --tensor-parallel-size, a launcher that picked it (GPUStack's scheduler, gpustack#3777) and the
    # release's own split (InternViT's 25 heads under TP, vllm#8097, fixed by PR #8061): a hint
    _sig("parallel_not_divisible", "is not divisible by", r"AssertionError: (?P<num>\d+) is not divisible by (?P<den>\d+)\s*$", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.55, fatal=True,
         cause="A dimension of the model ({num}) must split evenly across {den} parallel ranks and does not: the parallel size {den} does not divide it.",
         fix="Use a tensor/pipeline-parallel size that divides the model's dimensions (heads, KV heads, vocabulary, MLP width); powers of two usually do. Where a launcher or scheduler chose the size (GPUStack, a Helm chart), set it there.",
         source="vllm/distributed/utils.py ensure_divisibility (0.19.0, 0.27.1, 0.33.0)"),
    _sig("vocab_shard_frame", "vocab_range_from_global_vocab_size", r"in vocab_range_from_global_vocab_size", CONTEXT,
         source="vllm/model_executor/layers/vocab_parallel_embedding.py vocab_range_from_global_vocab_size (0.19.0)"),
    # PyTorch's dispatcher (aten/src/ATen/core/dispatch/OperatorEntry.cpp OperatorEntry::reportError): "Could not run
    # '<op>' with arguments from the '<key>' backend." For an operator of vLLM's own extensions (_C::, _moe_C::,
    # _rocm_C::) the installed vLLM build registered no kernel of it for this device: the build's, not the model's.
    _sig("vllm_op_not_on_backend", "with arguments from the", r"Could not run '(?P<op>_(?:C|moe_C|rocm_C|C_cache_ops|custom_ar)::\w+)' with arguments from the '(?P<key>\w+)' backend", ERROR,
         symptom="import_undefined_symbol", layer="vllm_version_flags", weight=0.7, fatal=True,
         cause="vLLM's operator {op} has no kernel for the {key} backend in the installed vLLM build: the build (an image's or a platform plugin's) was compiled without it, so the model that needs it cannot run.",
         fix="Use a vLLM build that includes {op} for this device (the project's wheel or image for this GPU), or a model that does not need it.",
         source="PyTorch aten/src/ATen/core/dispatch/OperatorEntry.cpp OperatorEntry::reportError; https://github.com/flagos-ai/vllm-plugin-FL/issues/520"),
    # vllm/config.py ParallelConfig._verify_args (0.5.1): NotImplementedError("Pipeline parallelism is not supported yet
    # with multiprocessing.") for --pipeline-parallel-size > 1 with the mp executor; gone by 0.5.3.post1.
    _sig("pp_multiprocessing_0_5", "pipeline parallelism is not supported yet with multiprocessing", r"Pipeline parallelism is not supported yet with multiprocessing", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="This release runs pipeline parallelism only with the Ray executor: --pipeline-parallel-size > 1 was asked with the multiprocessing (mp) executor.",
         fix="Start with --distributed-executor-backend ray (and a Ray cluster), or use a later release whose mp executor supports pipeline parallelism.",
         versions="0.5.1", source="vllm/config.py ParallelConfig._verify_args (0.5.1; removed by 0.5.3.post1)"),
    _sig("config_attribute_missing", "object has no attribute", r"AttributeError: '(?P<cfg>\w+Config)' object has no attribute '(?P<attr>\w+)'", ERROR,
         symptom="unsupported_architecture", layer="vllm_version_flags", weight=0.6, fatal=True,
         cause="This vLLM (with the transformers it runs) reads the model's {cfg} as a layout it knows and finds no '{attr}': the model is newer than this release supports (a nested text config, a new field).",
         fix="Use a vLLM release that lists this model (and the transformers it pins); check the supported-models list for the architecture in config.json.",
         source="vllm/config ModelConfig (hf_text_config reads); https://github.com/vllm-project/vllm/issues/14687"),
    _sig("dp_clients_timeout", "clients joined", r"Timed out after (?P<secs>\d+) seconds waiting for clients\. (?P<joined>\d+)/(?P<n>\d+) clients joined", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.7, fatal=True,
         cause="The engine waited {secs} s for {n} data-parallel ranks and only {joined} joined: the other ranks were never started (the V0 engine, VLLM_USE_V1=0, does not launch data-parallel ranks for --data-parallel-size).",
         fix="Use the V1 engine (unset VLLM_USE_V1=0) for --data-parallel-size, or run one server per GPU group behind a load balancer.",
         source="vllm/engine/multiprocessing/engine.py (V0 data-parallel handshake); https://github.com/vllm-project/vllm/issues/24036"),
    _sig("ray_driver_without_gpu", "does not allocate any gpus on the driver node", r"Ray does not allocate any GPUs on the driver node", ERROR,
         symptom="tp_init_hang", layer="container_environment", weight=0.85, fatal=True,
         cause="vLLM was started on a Ray node that got no GPU from the placement group (a CPU-only head node, or a pod outside the GPU bundles); its driver worker must sit on a GPU node.",
         fix="Start vllm serve on a GPU node of the Ray cluster (give the head node GPUs, or run the command inside a GPU worker), or adjust the placement group so the current node holds a bundle.",
         source="vllm/executor/ray_gpu_executor.py _init_workers_ray; https://github.com/vllm-project/vllm/issues/2406"),
    # three owners the line cannot tell apart (a node without GPUs in Ray, GPUs held by leaked placement groups, vLLM
    # nested in the caller's own Ray task): a hint, not an answer
    _sig("ray_node_no_gpu", "current node has no gpu available", r"Current node has no GPU available", ERROR,
         symptom="tp_init_hang", layer="container_environment", weight=0.55, fatal=True,
         cause="vLLM's Ray executor found no free GPU on the node it runs on: the node has none registered with Ray, its GPUs are held by placement groups left over from an earlier run, or vLLM was started inside a Ray task or actor that holds the GPUs itself.",
         fix="Check `ray status` (GPUs reserved in placement groups: `ray stop --force` on every node and restart the cluster), start vllm serve on a GPU node, and when vLLM runs inside your own Ray task use --distributed-executor-backend mp (or give the task the GPUs).",
         source="vllm/executor/ray_utils.py initialize_ray_cluster (available GPUs on the driver node); https://github.com/huggingface/lighteval/pull/841"),
    _sig("gloo_full_mesh", "gloo connectfullmesh failed", r"Gloo connectFullMesh failed", ERROR,
         symptom="tp_init_hang", layer="interconnect", weight=0.75, fatal=True,
         cause="The ranks could not open Gloo's CPU connections to each other (vLLM's coordination group): on hosts with several network interfaces Gloo binds to one the other node cannot reach, or to the loopback address when the hostname does not resolve.",
         fix="Set GLOO_SOCKET_IFNAME (and NCCL_SOCKET_IFNAME) to the interface the nodes reach each other on, in the environment of every rank (for Ray: before `ray start` on each node); check the hostname resolves to that address.",
         source="torch ProcessGroupGloo (gloo/transport/tcp/pair.cc); https://github.com/aws-samples/aws-do-eks/pull/50"),
    _sig("gloo_loopback", "using the loopback address as fallback|using the loopback", r"Unable to resolve hostname to a \(local\) address\. Using the loopback", WARNING,
         symptom="tp_init_hang", layer="interconnect", weight=0.6,
         cause="Gloo could not resolve this host's name to a routable address and fell back to the loopback address, which the other nodes cannot reach.",
         fix="Set GLOO_SOCKET_IFNAME (and NCCL_SOCKET_IFNAME) to the routable interface on every node, or make the hostname resolve to that address.",
         source="torch ProcessGroupGloo.cpp (hostname resolution fallback)"),
    # Ray's ray/_private/utils.py check_version_info: "Version mismatch: The cluster was started with:\n    Ray: ...\n    Python:
    # ...\nThis process on node ... was started with:" (a RuntimeError; a differing patch version of Python is only a warning,
    # "Python patch version mismatch", which this does not match)
    _sig("ray_version_mismatch", "version mismatch: the cluster was started with", r"(?<![Pp]atch )Version mismatch: The cluster was started with", ERROR,
         symptom="tp_init_hang", layer="container_environment", weight=0.8, fatal=True,
         cause="This process runs a different Ray (or Python) version from the one the Ray cluster was started with, and Ray refuses to join them: the vLLM environment on this node is not the one the head runs.",
         fix="Run the same Ray and Python versions on the head and every worker as the vLLM environment uses (the same image everywhere, or install vLLM's Ray into the head's environment).",
         source="ray/_private/utils.py check_version_info; https://github.com/gpustack/gpustack/issues/1640"),
    _sig("ray_node_unknown", "can fulfill resource request", r"No available node types can fulfill resource request \{'node:(?P<ip>[\w.:-]+)'", ERROR,
         symptom="tp_init_hang", layer="interconnect", weight=0.75, fatal=True,
         cause="vLLM pins one GPU of its placement group to its own node address ({ip}), and no node of the Ray cluster is registered under that address, so the group is never created (the IP vLLM sees differs from the one Ray uses).",
         fix="Make the address match on every node: set VLLM_HOST_IP to the IP Ray registered (ray start --node-ip-address), run vllm serve on the head node, and check `ray status` lists that node's GPUs.",
         source="vllm/executor/ray_utils.py initialize_ray_cluster (node:IP bundle); https://github.com/vllm-project/vllm/issues/13388"),
    # ---- orchestration and parallel start ---------------------------------------------------
    # a bare KeyboardInterrupt is SIGINT (Ctrl-C in the terminal, reaching the whole process group, or a wrapper's
    # `timeout -s INT`); vLLM's own SIGTERM handler raises KeyboardInterrupt("terminated") instead (probe_kill below:
    # vllm/entrypoints/openai/api_server.py signal_handler). Fatal only where the log shows no start (diagnose.py
    # FATAL_WITHOUT_START): after a start it is how the server was stopped
    _sig("interrupted", "keyboardinterrupt", r"^KeyboardInterrupt:?\s*$", ERROR,
         symptom="interrupted", layer="container_environment", weight=0.8,
         cause="The start was interrupted (SIGINT: Ctrl-C, or the script that launched vLLM stopping it) before the engine was ready; nothing in the log shows vLLM itself failing.",
         fix="Let the start finish: loading, torch.compile and CUDA graph capture can take minutes (a wrapper's timeout must cover them; `--enforce-eager` or a warm compile cache shortens it); if the process looked stuck, the last lines before the interrupt show the step it was in.",
         source="CPython's default SIGINT handler; vllm/entrypoints/openai/api_server.py (SIGTERM -> KeyboardInterrupt('terminated'))"),
    _sig("probe_kill", "terminated|probe failed|killing container|failed liveness probe|failed startup probe", r"KeyboardInterrupt: terminated|(?:Startup|Liveness|Readiness) probe failed|Killing container with id|Container \S+ failed (?:startup|liveness) probe", ERROR,
         symptom="k8s_probe_kill", layer="model_weights", weight=0.75, fatal=True,
         cause="The orchestrator's probe killed vLLM (SIGTERM) while it was still starting: downloading/loading weights, compiling and capturing CUDA graphs take longer than the probe allows.",
         fix="Add a startupProbe on /health whose failureThreshold x periodSeconds covers the whole startup, keep the weights on a persistent volume so restarts skip the download.",
         source="seed 'anatomy of a vLLM setup' (startup probe is the most common vLLM-on-Kubernetes bug)"),
    # vLLM's Ray executor logs "If you see error log from logging.cc regarding SIGTERM received, please ignore because
    # this is the expected termination process in Ray." while it shuts down after another error (vllm/v1/executor/
    # ray_executor.py shutdown): that note is not a kill
    _sig("sigterm", "sigterm|signal 15", r"(?:Received|Got) SIGTERM|signal 15|(?<!regarding )SIGTERM received(?!, please ignore)", WARNING,
         symptom="k8s_probe_kill", layer="model_weights", weight=0.4,
         cause="vLLM received SIGTERM during startup; under Kubernetes this is usually a failed probe.",
         fix="Check the pod events; give the pod a startupProbe covering the startup time.",
         source="seed 'anatomy of a vLLM setup'"),
    _sig("p2p_cache", "p2p access cache", r"generating GPU P2P access cache in", CONTEXT,
         symptom="tp_init_hang", layer="nvidia_driver", weight=0.35,
         cause="Startup stopped while vLLM tested GPU peer-to-peer access for its custom all-reduce: peer-to-peer over this host's PCIe/IOMMU setup hangs.",
         fix="Start with --disable-custom-all-reduce, or set NCCL_P2P_DISABLE=1; check the host's IOMMU/ACS settings (nvidia-smi topo -m).",
         source="https://github.com/vllm-project/vllm/issues/6201"),
    _sig("custom_allreduce_pcie", "custom allreduce is disabled", r"Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs", CONTEXT,
         symptom="tp_init_hang", layer="nvidia_driver", weight=0.3,
         cause="The GPUs talk over PCIe only; when the start then stops at NCCL set-up, NCCL peer-to-peer over this host's PCIe topology hangs.",
         fix="Try NCCL_P2P_DISABLE=1 (or NCCL_P2P_LEVEL=PHB) and check the host's IOMMU/ACS settings (nvidia-smi topo -m).",
         source="vllm custom_all_reduce.py; https://github.com/vllm-project/vllm/issues/13860"),
    _sig("ray_gpus_short", "exceeds the total number of available gpus", r"The number of required GPUs exceeds the total number of available GPUs in the placement group", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="tensor x pipeline parallel size asks for more GPUs than the Ray cluster (or this node) offers.",
         fix="Lower --tensor-parallel-size / --pipeline-parallel-size to the GPUs the cluster has, or add nodes/GPUs to the Ray cluster.",
         source="vllm/executor/ray_utils.py initialize_ray_cluster"),
    # vllm/executor/ray_utils.py _wait_until_pg_ready (not yet in the 0.4.0.post1 wheel; logged as ray_utils.py:214 and
    # :464 by the releases of aibrix#927 and gpustack#5509): logged while Ray has no room for the placement group; with no
    # start after it, the cluster does not offer the GPUs asked for
    _sig("ray_pg_waiting", "waiting for creating a placement group", r"Waiting for creating a placement group of specs for (?P<secs>\d+) seconds", WARNING,
         symptom="tp_init_hang", layer="container_environment", weight=0.65,
         cause="Ray has been waiting {secs} s for a placement group it cannot place: the Ray cluster does not offer the GPUs the tensor/pipeline size asks for (a node not joined, or a node whose GPUs Ray did not register as GPU).",
         fix="Run ray status: every node must show its GPUs under GPU; start workers with ray start --address=HEAD (and --num-gpus where detection fails), or lower the parallel size to the GPUs shown.",
         source="vllm/executor/ray_utils.py _wait_until_pg_ready; https://github.com/gpustack/gpustack/issues/5509"),
    # vllm/executor/ray_utils.py _wait_until_pg_ready (0.8.5, 0.9.0.1: "Cannot provide a placement group of
    # placement_group_specs=... within {PG_WAIT_TIMEOUT} seconds"; 0.29.0 v1/executor/ray_utils.py: "Cannot provide a
    # placement group requiring N GPUs ... within"): the wait ran out, the start is over (the wait's own WARNING above
    # is only a hint while it lasts)
    _sig("ray_pg_timeout", "cannot provide a placement group", r"Cannot provide a placement group (?:of|requiring).* within (?P<secs>\d+) seconds", ERROR,
         symptom="tp_init_hang", layer="container_environment", weight=0.85, fatal=True,
         cause="Ray gave up after {secs} s: the cluster never offered the GPUs of the placement group the tensor/pipeline size asks for (a node not joined, GPUs Ray did not register, or GPUs held by another job or server).",
         fix="Run `ray status`: free the GPUs another job holds, join the missing node (ray start --address=HEAD, --num-gpus where detection fails), or lower the parallel size to the GPUs shown.",
         source="vllm/executor/ray_utils.py _wait_until_pg_ready (0.8.5, 0.9.0.1), vllm/v1/executor/ray_utils.py (0.29.0)"),
    # CUDA's error string for cudaErrorNvlinkUncorrectable / CUDA_ERROR_NVLINK_UNCORRECTABLE (220; CUDA Runtime API,
    # enum cudaError: "This indicates that an uncorrectable NVLink error was detected during the execution."), raised
    # by whichever kernel ran when the fabric faulted (a Triton kernel, custom all-reduce, NCCL's "unhandled cuda error"
    # on the other ranks): a hardware fault of the GPUs' interconnect, not a setting
    _sig("nvlink_uncorrectable", "uncorrectable nvlink", r"uncorrectable NVLink error", ERROR,
         symptom="tp_init_hang", layer="interconnect", weight=0.9, fatal=True,
         cause="CUDA reported an uncorrectable NVLink error: the NVLink fabric between this host's GPUs faulted during a kernel (the other ranks' NCCL errors follow from it). It is hardware, not a vLLM or NCCL setting.",
         fix="Take the host out of service and check its NVLink (nvidia-smi nvlink -s and -e, the fabric manager's log, dmesg for Xid 74/79); rerun on a healthy node. Restarting on the same node usually fails the same way.",
         source="CUDA Runtime API enum cudaError (cudaErrorNvlinkUncorrectable = 220)"),
    # CUTLASS's cute/atom/copy_traits_sm90_tma.hpp (make_tma_copy_desc) prints "Error: Failed to initialize the TMA
    # descriptor <CUresult>" when cuTensorMapEncodeTiled fails. The code has several owners in public logs (1: bad
    # descriptor arguments of a kernel, 700: a sticky illegal address from an earlier kernel, 999: unknown); 220 is
    # CUDA_ERROR_NVLINK_UNCORRECTABLE (cuda.h, CUDA 13.0), an NVLink fault surfacing at the next driver call, but the
    # line itself never says NVLink: a hint
    _sig("tma_descriptor_nvlink", "failed to initialize the tma descriptor", r"Failed to initialize the TMA descriptor(?:, error code:)? 220\b", ERROR,
         symptom="tp_init_hang", layer="interconnect", weight=0.55, fatal=True,
         cause="A CUTLASS kernel could not build its TMA descriptor and the driver's error code is 220, CUDA_ERROR_NVLINK_UNCORRECTABLE: most likely an NVLink fault of this host reported at the next driver call (a sticky error; the code, not the kernel, names it).",
         fix="Check the host's NVLink (nvidia-smi nvlink -e, dmesg for Xid 74/79, the fabric manager) and rerun on another node; if the fabric is healthy, run the failing kernel with CUDA_LAUNCH_BLOCKING=1 to find the first error.",
         source="CUTLASS cute/atom/copy_traits_sm90_tma.hpp make_tma_copy_desc; cuda.h CUresult CUDA_ERROR_NVLINK_UNCORRECTABLE = 220"),
    # oneCCL (Intel XPU collectives) raises "oneCCL: <file>:<line> <function>: EXCEPTION: <what>" when it cannot start
    # (vLLM's XPU worker runs an all_reduce at init: vllm/worker/xpu_worker.py init_worker_distributed_environment)
    _sig("oneccl_exception", "oneccl:", r"oneCCL: (?P<where>\S+ \w+): EXCEPTION: (?P<what>.+)", ERROR,
         symptom="tp_init_hang", layer="interconnect", weight=0.7, fatal=True,
         cause="Intel's oneCCL could not set up the XPU collectives during the worker's distributed init ({where}: {what}).",
         fix="Check oneCCL's environment before vLLM (CCL_LOG_LEVEL=info; the XPU devices under /dev/dri visible to the process; CCL_ATL_TRANSPORT, affinity); the init all_reduce runs even with one XPU.",
         source="oneCCL exception format; https://github.com/vllm-project/vllm/issues/10109"),
    _sig("nccl_shm", "/dev/shm|shared memory segment|posix_fallocate", r"/dev/shm/nccl|Error while creating shared memory segment|posix_fallocate failed|failed to extend /dev/shm", ERROR,
         symptom="tp_init_hang", layer="container_environment", weight=0.85, fatal=True,
         cause="NCCL could not create its shared-memory segment in /dev/shm: the container's shared memory is too small for multi-GPU communication.",
         fix="Run the container with --ipc=host or a larger --shm-size (Kubernetes: an emptyDir with medium: Memory mounted at /dev/shm).",
         source="NCCL shm transport (include/shm.h)"),
    _sig("nccl_timeout", "nccl|watchdog caught collective|distbackenderror", r"Watchdog caught collective operation timeout|NCCL (?:error|WARN).{0,80}(?:timeout|unhandled system error|unhandled cuda error|remote process exited)|DistBackendError|NCCL_ERROR_SYSTEM_ERROR|ncclSystemError", ERROR,
         symptom="tp_init_hang", layer="nvidia_driver", weight=0.6, fatal=True,
         cause="NCCL could not complete communication between the ranks (timeout or system error): the interconnect or its driver setup between the GPUs fails.",
         fix="Run with NCCL_DEBUG=INFO; try NCCL_P2P_DISABLE=1; in containers give enough shared memory (--ipc=host or a large /dev/shm).",
         source="NCCL"),
    # NCCL's ncclInvalidUsage is a caller's error, not the interconnect's: its most common form at a vLLM start is two
    # ranks of one communicator on the same GPU, which NCCL's init (src/init.cc initTransportsRank, 2.18-2.27) reports
    # as WARN "Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx" before returning ncclInvalidUsage;
    # ncclGetErrorString words that "invalid usage (run with NCCL_DEBUG=WARN for details)", vLLM's pynccl_wrapper.py
    # NCCL_CHECK raises it as "NCCL error: {error_str}" (0.7.2-0.9.0.1) and PyTorch's ProcessGroupNCCL adds
    # "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.". Public threads give the device clash
    # several owners (a trainer sharing the server's GPU, huggingface/trl#3706; vLLM's V0 data parallel not splitting
    # CUDA_VISIBLE_DEVICES, vllm-project/vllm#16978; Ray's placement, verl-project/verl#161), so the lines are hints.
    _sig("nccl_duplicate_gpu", "duplicate gpu detected", r"Duplicate GPU detected\s*:\s*rank (?P<rank>\d+) and rank (?P<other>\d+) both on CUDA device\b(?:\s+(?P<bus>[0-9a-fA-F]+))?", ERROR,
         symptom="tp_init_hang", layer="client_code", weight=0.5, fatal=True,
         cause="NCCL found two ranks of one communicator on the same GPU (rank {rank} and rank {other}): the processes were not given distinct devices. Public threads trace this to a trainer or client that shares the server's GPU (TRL's weight sync), a data-parallel launcher that did not split CUDA_VISIBLE_DEVICES per rank (vLLM's V0 data parallel), or Ray's placement (a Ray version the framework does not support).",
         fix="Give every rank its own GPU: check CUDA_VISIBLE_DEVICES of each process (the vLLM server and a trainer on disjoint GPUs, one GPU per data-parallel rank); under Ray check `ray status` and the Ray version the framework pins.",
         source="NCCL src/init.cc initTransportsRank (2.18-2.27); https://github.com/huggingface/trl/issues/3706"),
    _sig("nccl_invalid_usage", "invalid usage|ncclinvalidusage", r"NCCL error.{0,80}\binvalid usage\b|ncclInvalidUsage", ERROR,
         symptom="tp_init_hang", layer="client_code", weight=0.45, fatal=True,
         cause="NCCL refused the communicator as invalid usage: a caller's error, most often two ranks on one GPU (a trainer and the server sharing a device, data-parallel ranks that see the same GPU, Ray placing two workers on one device).",
         fix="Rerun with NCCL_DEBUG=WARN to see NCCL's reason; if it says 'Duplicate GPU detected', give every rank its own GPU (CUDA_VISIBLE_DEVICES per process).",
         source="NCCL ncclGetErrorString ('invalid usage (run with NCCL_DEBUG=WARN for details)'); vllm/distributed/device_communicators/pynccl_wrapper.py NCCL_CHECK (0.7.2-0.9.0.1)"),
    _sig("nccl_ib", "ibv_|net/ib", r"NCCL WARN.{0,120}\bibv_\w+ failed|NET/IB\s*:.{0,120}(?:failed|[Ee]rror)", WARNING,
         symptom="tp_init_hang", layer="interconnect", weight=0.8,
         cause="NCCL's InfiniBand transport failed (an ibv_* call): registering or opening the IB resources between the ranks failed, so the communicator could not be set up.",
         fix="Check the IB setup NCCL uses (NCCL_DEBUG=INFO; NCCL_IB_HCA, RDMA/peer-memory modules, locked-memory limits) and leave NCCL_BUFFSIZE at its default; NCCL_IB_DISABLE=1 falls back to sockets.",
         source="NCCL transport/net_ib.cc, misc/ibvwrap.cc; https://github.com/vllm-project/vllm/issues/19613"),
    _sig("ray_shm_request", "exceeds memory available in /dev/shm", r"System memory request exceeds memory available in /dev/shm\. The request is for (?P<req>\d+) bytes, and the amount available is (?P<avail>\d+) bytes", ERROR,
         symptom="tp_init_hang", layer="container_environment", weight=0.85, fatal=True,
         cause="Ray's object store asked for {req} bytes of /dev/shm but the container offers {avail}: the container's shared memory is too small for the multi-node/pipeline-parallel start.",
         fix="Give the container more shared memory (--shm-size above the request, or --ipc=host; Kubernetes: an emptyDir with medium: Memory at /dev/shm).",
         source="Ray plasma store (src/ray/object_manager/plasma/store_runner.cc); https://github.com/gpustack/gpustack/issues/5014"),
    _sig("ray_shm_fallback", "instead of /dev/shm because /dev/shm has only", r"The object store is using /tmp instead of /dev/shm because /dev/shm has only (?P<avail>\d+) bytes available", WARNING,
         symptom="tp_init_hang", layer="container_environment", weight=0.5,
         cause="The container's /dev/shm holds only {avail} bytes (Docker's default is 64 MB); with tensor parallelism NCCL and vLLM's workers need shared memory there, and a start that stops after this warning fails for lack of it.",
         fix="Run the container with --ipc=host or a larger --shm-size (e.g. 10g); Kubernetes: an emptyDir with medium: Memory mounted at /dev/shm.",
         source="Ray services.py object-store warning; vLLM PR #1125 (--ipc=host for distributed inference); https://github.com/vllm-project/vllm/issues/1710"),
    _sig("bus_error", "bus error", r"Fatal Python error:\s*Bus error|bus error encountered in worker.{0,80}insufficient shared memory", ERROR,
         symptom="tp_init_hang", layer="container_environment", weight=0.7, fatal=True, flags=_I,
         cause="The process died of a bus error (SIGBUS): a shared-memory mapping in /dev/shm grew past the container's shared memory (Docker's default is 64 MB), which multi-process and multi-GPU starts use.",
         fix="Run the container with --ipc=host or a larger --shm-size (e.g. 16g or more); Kubernetes: an emptyDir with medium: Memory mounted at /dev/shm.",
         source="SIGBUS on an exhausted tmpfs (/dev/shm); PyTorch's 'insufficient shared memory (shm)' message; https://github.com/vllm-project/vllm/issues/1771"),
    # ---- serving socket -----------------------------------------------------------------------
    # pyzmq's bind error names the address; vLLM's own ZeroMQ sockets (engine RPC of 0.5.x,
    # vllm/entrypoints/openai/rpc/server.py; the multiproc MessageQueue, vllm/distributed/device_communicators/
    # shm_broadcast.py; KV-connector side channels) bind ports picked from VLLM_PORT or fixed defaults, not the user's --port
    # vllm/envs.py get_vllm_port (0.9.0.1, 0.33.0): a VLLM_PORT that parses as a URI. Kubernetes injects
    # <SERVICE>_PORT=tcp://<ip>:<port> into pods for every Service, so a Service named 'vllm' sets VLLM_PORT.
    _sig("vllm_port_uri", "appears to be a uri", r"VLLM_PORT '(?P<port>[^']*)' appears to be a URI", ERROR,
         symptom="invalid_engine_flags", layer="container_environment", weight=0.8, fatal=True,
         cause="VLLM_PORT in the environment is a URI ({port}), not a port number; Kubernetes sets VLLM_PORT=tcp://<ip>:<port> in every pod of a namespace with a Service named 'vllm', and vLLM reads it as its internal port.",
         fix="Rename the Kubernetes Service (anything but 'vllm'), set enableServiceLinks: false on the pod, or set VLLM_PORT to an integer explicitly.",
         versions=">=0.9", source="vllm/envs.py get_vllm_port (0.9.0.1, 0.33.0)"),
    _sig("zmq_port_in_use", "zmqerror: address already in use", r"ZMQError: Address already in use \(addr='tcp://(?P<host>[^:']+):(?P<port>\d+)'\)", ERROR,
         symptom="port_in_use", layer="vllm_version_flags", weight=0.88, fatal=True,
         cause="One of vLLM's internal ZeroMQ sockets could not bind {host}:{port}: another vLLM instance (or an engine of this one) on the host uses the same internal port, a fixed default in some releases or the same VLLM_PORT / connector port given to both.",
         fix="Give each instance its own internal ports (do not share one VLLM_PORT between instances; a distinct VLLM_RPC_PORT in 0.5.x, distinct connector ports), or use a release that picks free ports; the HTTP --port is not this port.",
         source="pyzmq Socket.bind; https://github.com/vllm-project/vllm/issues/7196, https://github.com/gpustack/gpustack/issues/4312"),
    # The same pyzmq error without the address: pyzmq's Socket.bind appends " (addr='...')" to the message, which older
    # pyzmq did not and pasted excerpts often drop (the bare "ZMQError: Address already in use"). A ZeroMQ socket is
    # one of vLLM's internal ones (never the HTTP --port), and public threads show several owners for its port: a
    # release's fixed default (5570 in 0.5.x, vllm#7196), a VLLM_PORT a launcher gives every instance
    # (gpustack#4312, #6019), two instances' connector side channels (vllm#20965), or the release's probe-then-bind
    # choice; so the line alone is a hint (the shm_broadcast_remote_bind_frame below names the socket).
    _sig("zmq_port_in_use_bare", "zmqerror: address already in use", r"ZMQError: Address already in use\s*$", ERROR,
         symptom="port_in_use", layer="vllm_version_flags", weight=0.55, fatal=True,
         cause="One of vLLM's internal ZeroMQ sockets could not bind its port (the line does not name it): a port another process already holds -- another vLLM instance on the host with the same VLLM_PORT or connector port, a fixed default of the release, or an engine of this one.",
         fix="Give each instance on a host its own internal ports (no VLLM_PORT shared between instances or set by a launcher for all of them; distinct connector ports), or use a release that binds them atomically; the HTTP --port is not this port.",
         source="pyzmq Socket.bind (ZMQError EADDRINUSE); https://github.com/vllm-project/vllm/issues/7196, https://github.com/gpustack/gpustack/issues/6019"),
    # vllm/distributed/device_communicators/shm_broadcast.py MessageQueue.__init__: for readers on other nodes the
    # writer binds an XPUB socket at `get_open_port()` -- which probes a port with a throwaway socket, closes it and
    # returns it, scanning up from VLLM_PORT when that is set (vllm/utils/network_utils.py _get_open_port) -- then
    # `self.remote_socket.bind(socket_addr)` (read in 0.10.2, 0.22, 0.24.0 and 0.26.0). From 0.28.0 it binds
    # `tcp://{connect_ip}:0` and reads the port the OS gave (0.28.0, 0.29.0, 0.33.0), so no other process can take it
    # in between.
    _sig("shm_broadcast_remote_bind_frame", "self.remote_socket.bind(socket_addr)", r"self\.remote_socket\.bind\(socket_addr\)", CONTEXT,
         versions="<0.28",
         source="vllm/distributed/device_communicators/shm_broadcast.py MessageQueue.__init__ (0.10.2-0.26.0; 0.28.0+ binds port 0)"),
    # Docker refusing to publish the container's port (`docker run -p 8000:8000`): the container never starts
    _sig("docker_port_allocated", "port is already allocated", r"Bind for (?P<host>\S+?):(?P<port>\d+) failed: port is already allocated", ERROR,
         symptom="port_in_use", layer="container_environment", weight=0.88, fatal=True,
         cause="Docker could not publish port {port} on {host}: another container (often the previous vLLM container, still running) or a host process holds it, so this container was not started.",
         fix="Stop or remove the container holding the port (docker ps --filter publish={port}; docker rm -f NAME), or publish another host port (-p OTHER:8000).",
         source="Docker daemon (libnetwork port mapper) error 'Bind for HOST:PORT failed: port is already allocated'"),
    _sig("port_in_use", "address already in use|eaddrinuse", r"error while attempting to bind on address \('?(?P<host>[^',]*)'?, (?P<port>\d+)\)|Address already in use|EADDRINUSE", ERROR,
         symptom="port_in_use", layer="container_environment", weight=0.85, fatal=True, flags=_I,
         cause="A port the server needs is already bound by another process (another server, an earlier vLLM that has not exited, or one of this vLLM's own processes).",
         fix="Find the holder (ss -ltnp or lsof -i :PORT), stop it or pass another --port; in a restart loop, wait for the old process to exit first.",
         source="uvicorn server.py startup ('[Errno 98] error while attempting to bind on address'); torch TCPStore EADDRINUSE; https://github.com/vllm-project/vllm/issues/8204"),
    # ---- just-in-time compilation at startup (Triton's C launcher, torch.compile) --------------------
    _sig("triton_python_h", "python.h", r"fatal error: Python\.h: No such file or directory", ERROR,
         symptom="jit_compile_failed", layer="container_environment", weight=0.85, fatal=True,
         cause="Triton builds a small C launcher at startup against the Python headers, and Python.h is not installed in this environment.",
         fix="Install the development headers of the Python that runs vLLM (python3.X-dev / python3-devel), or use an image that has them (vLLM's images do).",
         source="triton/runtime/build.py (_build compiles main.c/cuda_utils.c with the Python include dir); https://github.com/vllm-project/vllm/issues/3909"),
    _sig("nvcc_missing", "could not find nvcc|'nvcc'|nvcc: not found", r"Could not find nvcc|No such file or directory: 'nvcc'|nvcc: not found", ERROR,
         symptom="jit_compile_failed", layer="container_environment", weight=0.8, fatal=True,
         cause="A kernel library vLLM uses (FlashInfer: its sampler, attention or MoE kernels) compiles CUDA code just in time at startup and needs nvcc, and no CUDA toolkit is found in this environment.",
         fix="Install the CUDA toolkit (nvcc) matching the torch CUDA version and put it on PATH / CUDA_HOME, use an image that has it, or avoid the JIT path (VLLM_USE_FLASHINFER_SAMPLER=0 for the sampler; another --attention-backend); if nvcc is on PATH, check the flashinfer version the vLLM release pins.",
         source="flashinfer/jit (cpp_ext nvcc lookup); https://github.com/davanstrien/uv-scripts-for-ai/issues/9"),
    _sig("triton_no_cc", "failed to find c compiler", r"Failed to find C compiler\. Please specify via CC environment variable", ERROR,
         symptom="jit_compile_failed", layer="container_environment", weight=0.85, fatal=True,
         cause="Triton builds a small C launcher at startup and no C compiler (gcc/cc) is installed in this environment.",
         fix="Install a C compiler in the image (apt-get install build-essential / gcc) or point CC at one.",
         source="triton/runtime/build.py _build; https://github.com/vllm-project/vllm/issues/2997"),
    _sig("triton_gcc_failed", "calledprocesserror", r"CalledProcessError: Command '\['\S*(?:gcc|cc|clang)'.{0,200}main\.c", ERROR,
         symptom="jit_compile_failed", layer="container_environment", weight=0.6, fatal=True,
         cause="Triton's runtime build of its C launcher (main.c) failed: the compiler toolchain or headers it needs are missing in this environment; the compiler's own error line above says which.",
         fix="Read the compiler error just above (a missing Python.h needs python3.X-dev; a missing -lcuda needs the driver's libcuda.so on the library path) and install what it names.",
         source="triton/runtime/build.py _build (subprocess.check_call of the C compiler)"),
    # torch/utils/cpp_extension.py _run_ninja_build / _jit_compile: the just-in-time build of a C++/CUDA extension
    # (FlashInfer's sampler, attention or MoE kernels at vLLM's warm-up) with the local toolchain failed
    _sig("ninja_build_failed", "ninja build failed|error building extension|_run_ninja_build|ninja: build stopped",
         r"Ninja build failed|Error building extension '(?P<ext>[\w.]+)'|\b_run_ninja_build\b|ninja: build stopped: subcommand failed", ERROR,
         symptom="jit_compile_failed", layer="container_environment", weight=0.7, fatal=True,
         cause="A kernel library vLLM uses (FlashInfer's sampler, attention or MoE kernels) was compiled just in time at startup with this environment's toolchain, and the ninja build failed: nvcc missing or older than the library needs, or a compiler/header problem.",
         fix="Read the compiler lines above the error; install the CUDA toolkit matching torch's CUDA (or FlashInfer's prebuilt flashinfer-cubin / flashinfer-jit-cache, or an image that precompiles them), clear ~/.cache/flashinfer, or avoid the JIT path (VLLM_USE_FLASHINFER_SAMPLER=0 for the sampler).",
         source="torch/utils/cpp_extension.py _run_ninja_build; https://github.com/kserve/kserve/pull/4567, https://github.com/modelscope/ms-swift/issues/7100"),
    # Triton compiles its kernels with the ptxas it bundles (triton/backends/nvidia/compiler.py make_cubin raises PTXASError with
    # ptxas's stderr); a ptxas older than the GPU does not know its architecture: "ptxas fatal : Value 'sm_121a' is not defined
    # for option 'gpu-name'" (GB10; 'sm_110a' on Jetson Thor, vLLM's troubleshooting doc, PR #31338)
    # Triton's FpToFpOpConversion (lib/Conversion/TritonGPUToLLVM/ElementwiseOpToLLVM.cpp) has no lowering for some FP16
    # conversions on GPUs older than Ampere and prints 'Unsupported conversion from f16 to f16' before 'LLVM ERROR:
    # Unsupported rounding mode for conversion.' (triton-lang/triton#2780 on sm70/Turing, #6698, PR #3874 for Pascal); the
    # compile of that kernel then fails with 'PassManager::run failed'. Owners: the Triton release and the GPU: a hint.
    _sig("triton_fp_conversion", "unsupported conversion from",
         r"Unsupported conversion from (?P<src>(?:b?f|fp)\d+\w*) to (?P<dst>(?:b?f|fp)\d+\w*)", ERROR,
         symptom="jit_compile_failed", layer="pytorch_wheel", weight=0.55, fatal=True,
         cause="Triton could not lower a {src}-to-{dst} conversion for this GPU (Triton has no such lowering for GPUs older than Ampere): a Triton kernel (vLLM's Triton attention, or an Inductor/FlexAttention template) failed to compile.",
         fix="Keep Triton kernels off this GPU: an attention backend with prebuilt kernels (XFormers on the V1 engines that have it) and no torch.compile (--enforce-eager), or a GPU of compute capability 8.0 or newer; a later Triton may lower it.",
         source="triton lib/Conversion/TritonGPUToLLVM/ElementwiseOpToLLVM.cpp FpToFpOpConversion; https://github.com/triton-lang/triton/issues/2780, https://github.com/triton-lang/triton/issues/6698"),
    _sig("ptxas_unknown_arch", "is not defined for option 'gpu-name'", r"ptxas fatal\s*:\s*Value '(?P<arch>sm_\w+)' is not defined for option 'gpu-name'", ERROR,
         symptom="jit_compile_failed", layer="pytorch_wheel", weight=0.85, fatal=True,
         cause="Triton's bundled ptxas (shipped with the torch wheel's Triton) is older than this GPU and does not know {arch}, so every Triton kernel compile at startup fails.",
         fix="Point TRITON_PTXAS_PATH at a ptxas from a CUDA toolkit that knows {arch} (e.g. CUDA 13's /usr/local/cuda/bin/ptxas), or use a torch/Triton release whose bundled ptxas supports this GPU.",
         source="triton/backends/nvidia/compiler.py make_cubin; https://github.com/triton-lang/triton/issues/8539, https://github.com/vllm-project/vllm/pull/32704"),
    _sig("vllm_compile_failed", "vllm failed to compile the model", r"vLLM failed to compile the model", ERROR,
         symptom="jit_compile_failed", layer="pytorch_wheel", weight=0.6, fatal=True,
         cause="torch.compile of the model failed at startup: a corrupted or stale compile cache, or an inductor/torch version that does not work with this vLLM (or with an inductor setting in the environment).",
         fix="Remove ~/.cache/vllm/torch_compile_cache and start again to see the real error; unset TORCHINDUCTOR_* overrides; --enforce-eager (or -O0) starts without compiling; use the torch version the vLLM wheel pins.",
         source="vllm/compilation (compiler_interface.py error message); https://github.com/vllm-project/vllm/issues/21858"),
    # ---- startup refusals enumerated from vLLM's source (0.27.1 and 0.33.0 wheels) ------------------------------------
    # Each message below was read in the wheels' raise statements (file, function; present in both releases unless
    # noted) on the `vllm serve` startup path, and written as the traceback's last line the user sees; every one has
    # one owner (the flag or the checkpoint it names), so it is read as confidently as the other flag refusals.
    # docs/diagnose-validation.md "From the source" lists the enumeration and what diagnose read before.
    _sig("src_max_len_not_positive", "max_model_len must be a positive integer", r"max_model_len must be a positive integer, got (?:\w+|<class '\w+'>): (?P<got>\S+?)\.?(?:\s|$)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--max-model-len was given as {got}, which is not a positive integer of tokens.",
         fix="Pass --max-model-len as a positive token count (e.g. 8192, or 32k), or leave it out to take the model's own length.",
         versions="0.27.1, 0.33.0", source="vllm/config/model.py ModelConfig.validate_model_config_after (0.27.1, 0.33.0)"),
    # raised with the message and the method as two arguments (ValueError("... %s ...", method)), so the user sees a tuple
    _sig("src_quant_deprecated", "is deprecated and will be removed in future versions of vllm", r"The quantization method (?:%s|[\w-]+) is deprecated and will be removed in future versions of vLLM\. To bypass, set `?--allow-deprecated-quantization`?", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="The checkpoint's (or --quantization's) quantization method, named on the line, is deprecated in this vLLM release, which refuses it unless told otherwise.",
         fix="Add --allow-deprecated-quantization to start it anyway, or serve a checkpoint in a supported method (AWQ, GPTQ, FP8, compressed-tensors).",
         versions="0.27.1, 0.33.0", source="vllm/config/model.py ModelConfig._verify_quantization (0.27.1, 0.33.0)"),
    _sig("src_model_no_float16", "does not support float16. reason", r"The model type (?P<mtype>[\w-]+) does not support float16\. Reason: (?P<why>.+?)\s*$", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="float16 was asked for (--dtype half/float16) and vLLM refuses it for model type {mtype}: {why}",
         fix="Pass --dtype bfloat16 (or --dtype auto); on a GPU without bfloat16 (compute capability < 8.0) use --dtype float32 or a GPU that has it.",
         versions="0.27.1, 0.33.0", source="vllm/config/model.py _check_valid_dtype (0.27.1, 0.33.0)"),
    _sig("src_unknown_dtype", "unknown dtype:", r"^(?:ValueError: )?Unknown dtype: '?(?P<dtype>[^'\s]+)'?\s*$", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="--dtype {dtype} (or a head dtype override) is not a dtype name vLLM knows.",
         fix="Pass --dtype auto, half (float16), bfloat16 or float32.",
         versions="0.27.1, 0.33.0", source="vllm/config/model.py _get_and_verify_dtype, _get_head_dtype (0.27.1, 0.33.0)"),
    _sig("src_invalid_kv_cache_dtype", "invalid kv_cache_dtype", r"Invalid kv_cache_dtype: (?P<kv>\S+?)\.? Valid values are: (?P<valid>.+)$", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--kv-cache-dtype {kv} is not a KV-cache dtype this release knows.",
         fix="Pass --kv-cache-dtype auto (the model's dtype) or one of {valid}.",
         versions="0.33.0", source="vllm/config/cache.py CacheConfig._validate_cache_dtype (0.33.0)"),
    _sig("src_float_kv_cache_mismatch", "is incompatible with dtype=", r"kv_cache_dtype=\"?(?P<kv>\w+)\"? is incompatible with dtype=\"?(?P<dtype>\w+)\"?\.(?: Please set `?--kv-cache-dtype`? to (?P<want>\S+?)\.?$)?", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--kv-cache-dtype {kv} is a floating-point type other than the model's dtype {dtype}; vLLM does not convert between the two.",
         fix="Pass the --kv-cache-dtype the message names ({want}; auto takes the model's dtype), or an FP8 KV cache (--kv-cache-dtype fp8) where the GPU supports it.",
         versions="0.33.0", source="vllm/config/vllm.py VllmConfig._reject_mismatched_float_kv_cache (0.33.0)"),
    _sig("src_nvfp4_kv_mla", "nvfp4 kv cache is not supported with mla", r"nvfp4 KV cache is not supported with MLA", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--kv-cache-dtype nvfp4 was asked of a model that uses MLA (Multi-head Latent Attention), whose backends do not support an NVFP4 KV cache.",
         fix="Pass --kv-cache-dtype fp8 or auto (or nvfp4_ds_mla where the release offers it for DeepSeek-style MLA).",
         versions="0.27.1, 0.33.0", source="vllm/config/vllm.py validate_nvfp4_kv_cache_with_mla (0.27.1, 0.33.0)"),
    _sig("src_long_prefill_threshold", "long_prefill_token_threshold", r"long_prefill_token_threshold \((?P<thr>\d+)\) cannot be greater than the max_model_len \((?P<len>\d+)\)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--long-prefill-token-threshold {thr} is above max_model_len {len}; no prompt could reach it.",
         fix="Lower --long-prefill-token-threshold to at most {len} (or leave it at 0, off).",
         versions="0.27.1, 0.33.0", source="vllm/config/scheduler.py SchedulerConfig.verify_max_model_len (0.27.1, 0.33.0)"),
    _sig("src_unknown_executor_backend", "unrecognized distributed executor backend", r"Unrecognized distributed executor backend (?P<backend>\S+?)\.", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--distributed-executor-backend {backend} is not a backend vLLM knows.",
         fix="Pass --distributed-executor-backend mp (one node), ray (several nodes), uni or external_launcher, or leave it out.",
         versions="0.27.1, 0.33.0", source="vllm/config/parallel.py ParallelConfig._verify_args (0.27.1, 0.33.0)"),
    _sig("src_dp_local_above_dp", "must be <= data_parallel_size", r"data_parallel_size_local \((?P<local>\d+)\) must be <= data_parallel_size \((?P<dp>\d+)\)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--data-parallel-size-local {local} is more data-parallel ranks on this node than --data-parallel-size {dp} in all.",
         fix="Set --data-parallel-size-local to at most {dp} (the ranks this node runs), or raise --data-parallel-size.",
         versions="0.27.1, 0.33.0", source="vllm/config/parallel.py ParallelConfig._validate_parallel_config (0.27.1, 0.33.0)"),
    _sig("src_dcp_tp", "must be divisible by dcp_size", r"tp_size=(?P<tp>\d+) must be divisible by dcp_size=(?P<dcp>\d+)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--decode-context-parallel-size {dcp} does not divide --tensor-parallel-size {tp}.",
         fix="Pick a --decode-context-parallel-size that divides {tp} (1, 2, 4, ...), or change --tensor-parallel-size.",
         versions="0.27.1, 0.33.0", source="vllm/config/parallel.py ParallelConfig._validate_parallel_config (0.27.1, 0.33.0)"),
    _sig("src_dcp_kv_heads", "decode context parallelism for gqa/mqa requires", r"Decode context parallelism for GQA/MQA requires `?--tensor-parallel-size`? \((?P<tp>\d+)\) to be greater than the model's total number of KV heads \((?P<kv>\d+)\)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="Decode context parallelism splits the KV heads' sequence across ranks only when --tensor-parallel-size ({tp}) exceeds the model's {kv} KV heads.",
         fix="Set --decode-context-parallel-size 1, or raise --tensor-parallel-size above {kv}.",
         versions="0.27.1, 0.33.0", source="vllm/config/model.py ModelConfig.verify_with_parallel_config (0.27.1, 0.33.0)"),
    _sig("src_eplb_needs_ep", "enable_expert_parallel must be true to use eplb", r"enable_expert_parallel must be True to use EPLB", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--enable-eplb (expert-parallel load balancing) was asked without expert parallelism.",
         fix="Add --enable-expert-parallel, or drop --enable-eplb.",
         versions="0.27.1, 0.33.0", source="vllm/config/parallel.py ParallelConfig._validate_parallel_config (0.27.1, 0.33.0)"),
    _sig("src_runner_unsupported", "does not support `--runner", r"(?:This model|Embedding models) do(?:es)? not support `--runner (?P<runner>\w+)`", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--runner {runner} does not fit this checkpoint: a generative model served as a pooling (embedding/score) model without --convert, or an embedding/reward model served as a generator.",
         fix="Use --runner auto (vLLM picks from the architecture), pass --convert embed/classify to serve a generative model for pooling, or serve a checkpoint made for the task.",
         versions="0.27.1, 0.33.0", source="vllm/config/model.py ModelConfig.__post_init__ (0.27.1, 0.33.0)"),
    _sig("src_lora_unsupported_model", "supportslora` interface", r"LoRA is not supported for (?P<arch>\w+)(?: \((?P<mtype>[^)]*)\))?\. Supported models implement the `SupportsLoRA` interface", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="LoRA was enabled (--enable-lora / --lora-modules), and this vLLM release's {arch} class does not implement LoRA (SupportsLoRA), so the start is refused.",
         fix="Start without --enable-lora, merge the adapter into the weights and serve the merged model, or use a release whose {arch} supports LoRA (the supported-models table has a LoRA column).",
         versions="0.33.0 (0.27.1: 'X does not support LoRA yet.')", source="vllm/config/lora.py LoRAConfig.verify_with_model_config (0.33.0)"),
    _sig("src_max_cpu_loras", "must be >= max_loras", r"max_cpu_loras \((?P<cpu>\d+)\) must be >= max_loras \((?P<gpu>\d+)\)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--max-cpu-loras {cpu} is below --max-loras {gpu}: the CPU cache must hold at least the adapters the GPU batch holds.",
         fix="Raise --max-cpu-loras to {gpu} or more (or leave it out: it defaults to --max-loras).",
         versions="0.27.1, 0.33.0", source="vllm/config/lora.py LoRAConfig._validate_lora_config (0.27.1: __post_init__; 0.33.0)"),
    _sig("src_lora_bias", "adapter bias is not supported", r"Adapter bias is not supported", ERROR,
         symptom="invalid_engine_flags", layer="model_weights", weight=0.85, fatal=True,
         cause="The LoRA adapter was trained with bias terms (adapter_config.json bias other than \"none\"), which vLLM's LoRA layers do not apply.",
         fix="Retrain the adapter with bias=\"none\", or merge it into the base weights and serve the merged model.",
         versions="0.27.1, 0.33.0", source="vllm/lora/peft_helper.py PEFTHelper.validate_legal (0.27.1, 0.33.0)"),
    _sig("src_spec_tokens_not_positive", "expected num_speculative_tokens to be greater than zero", r"Expected num_speculative_tokens to be greater than zero \((?P<n>-?\d+)\)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--speculative-config gave num_speculative_tokens {n}; it must be at least 1.",
         fix="Set num_speculative_tokens to 1 or more in --speculative-config (e.g. 3-5), or drop the speculative config.",
         versions="0.27.1, 0.33.0", source="vllm/config/speculative.py SpeculativeConfig._verify_args (0.27.1, 0.33.0)"),
    _sig("src_spec_tp_key", "is not a valid argument in the speculative_config", r"'tensor_parallel_size' is not a valid argument in the speculative_config", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--speculative-config carries tensor_parallel_size, a key it does not take.",
         fix="Rename it to draft_tensor_parallel_size in --speculative-config (1 or the target's --tensor-parallel-size).",
         versions="0.27.1, 0.33.0", source="vllm/config/speculative.py SpeculativeConfig._verify_args (0.27.1, 0.33.0)"),
    _sig("src_spec_draft_tp", "cannot be other value than 1 or target model tensor_parallel_size", r"speculative_draft_tensor_parallel_size=(?P<dtp>\d+) cannot be other value than 1 or target model tensor_parallel_size", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="The draft model's tensor parallel size {dtp} is neither 1 nor the target model's --tensor-parallel-size.",
         fix="Set draft_tensor_parallel_size in --speculative-config to 1 or to the target's --tensor-parallel-size (or leave it out).",
         versions="0.27.1, 0.33.0", source="vllm/config/speculative.py SpeculativeConfig._verify_and_get_draft_tp (0.27.1, 0.33.0)"),
    _sig("src_spec_vocab", "should have the same vocabulary size", r"Target and draft model should have the same vocabulary size\. Target model vocab_size=(?P<target>\d+)\. Draft model vocab_size=(?P<draft>\d+)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="The draft model's vocabulary ({draft} tokens) is not the target's ({target}): it was trained with another tokenizer, and its token ids would not mean the target's.",
         fix="Use a draft model of the target's family (same tokenizer), e.g. the smaller model of the same series or the EAGLE/MTP head published for this target.",
         versions="0.27.1, 0.33.0", source="vllm/config/speculative.py SpeculativeConfig.verify_equal_vocab_size_if_draft_model (0.27.1, 0.33.0)"),
    _sig("src_spec_max_len", "cannot be larger than target_max_model_len|cannot be larger than draft_max_model_len", r"speculative_max_model_len=(?P<spec>\d+) cannot be larger than (?P<which>target|draft)_max_model_len=(?P<max>\d+)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="max_model_len in --speculative-config ({spec}) is above the {which} model's max_model_len ({max}).",
         fix="Lower max_model_len in --speculative-config to {max} or less, or leave it out.",
         versions="0.27.1, 0.33.0", source="vllm/config/speculative.py SpeculativeConfig._maybe_override_draft_max_model_len (0.27.1, 0.33.0)"),
    _sig("src_spec_ngram_lookup", "must be provided when using the ngram method", r"Either prompt_lookup_max or prompt_lookup_min must be provided when using the ngram method", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--speculative-config asks for the ngram method without prompt_lookup_max or prompt_lookup_min.",
         fix="Add prompt_lookup_max (e.g. 4) and optionally prompt_lookup_min to --speculative-config.",
         versions="0.27.1-0.33.0", source="vllm/config/speculative.py SpeculativeConfig.__post_init__ (0.27.1, 0.33.0); not in the 0.34.0 wheel"),
    _sig("src_spec_unknown_method", "unsupported speculative method", r"Unsupported speculative method: '?(?P<method>[\w-]+)'?", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="--speculative-config names method {method}, which this vLLM release does not implement.",
         fix="Use a method the release lists (ngram, eagle, eagle3, mtp, draft_model, medusa, suffix, ...), or a release that has {method}.",
         versions="0.27.1, 0.33.0", source="vllm/config/speculative.py SpeculativeConfig.__post_init__ (0.27.1, 0.33.0)"),
    # The refusal's two clauses are both vLLM's (_set_max_num_scheduled_tokens raises "max_num_scheduled_tokens is set to
    # N based on the speculative decoding settings, which does not allow any tokens to be scheduled. Increase ...",
    # 0.25.1-0.33.0); threads quote it with the middle clause left out (vllm#50708), so the second clause anchors too
    _sig("src_spec_no_token_slots", "based on the speculative decoding settings|not have enough slots to schedule a token|which does not allow any tokens to be scheduled",
         r"max_num_scheduled_tokens is set to (?P<n>-?\d+)(?: based on the speculative decoding settings|,? which does not allow any tokens to be scheduled)|does not have enough slots to schedule a token and support the speculative decoding settings", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--max-num-batched-tokens leaves no room for a token once each sequence's draft-token slots (num_speculative_tokens per sequence x max_num_seqs) are reserved.",
         fix="Raise --max-num-batched-tokens, or lower num_speculative_tokens or --max-num-seqs.",
         versions="0.25.1-0.33.0", source="vllm/config/vllm.py VllmConfig._set_max_num_scheduled_tokens (0.25.1, 0.27.1, 0.33.0)"),
    _sig("src_spec_cudagraph_sizes", "no valid cudagraph sizes after rounding", r"No valid cudagraph sizes after rounding to multiple of (?P<mult>\d+) \(num_speculative_tokens \+ 1\)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="With speculative decoding the CUDA-graph sizes are rounded to multiples of {mult} (num_speculative_tokens + 1), and none of the sizes asked for (max_cudagraph_capture_size / cudagraph_capture_sizes) is left.",
         fix="Raise max_cudagraph_capture_size (or list capture sizes that are multiples of {mult}), lower num_speculative_tokens, or start with --enforce-eager.",
         versions="0.27.1-0.33.0", source="vllm/config/compilation.py CompilationConfig.adjust_cudagraph_sizes_for_spec_decode (0.27.1, 0.33.0); not in the 0.34.0 wheel"),
    _sig("src_cudagraph_mode_backend", "cudagraphmode.", r"CUDAGraphMode\.(?P<mode>\w+) is not supported with (?P<backend>\w+) backend \(support:(?P<support>[^)]*)\)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="cudagraph_mode {mode} was asked for, and the attention backend {backend} cannot capture that mode ({support}).",
         fix="Pass -cc.cudagraph_mode=PIECEWISE (or FULL_AND_PIECEWISE, the default) with compilation mode VLLM_COMPILE, or pick an attention backend that supports {mode}.",
         versions="0.27.1, 0.33.0", source="vllm/config/compilation.py CompilationConfig.resolve_cudagraph_mode_and_sizes (0.27.1, 0.33.0)"),
    _sig("src_adaptive_verification", "adaptive verification", r"Adaptive verification (?P<why>requires full CUDA graphs|is not currently compatible with (?:LoRA|pipeline parallelism|enforce_eager/cudagraph_mode=none)|needs decode CUDA graphs|estimates per-position acceptance from the draft logits|only supported with DSpark)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--speculative-config turned on enable_adaptive_verification, which this release refuses here: adaptive verification {why}.",
         fix="Drop \"enable_adaptive_verification\" from --speculative-config (or set it false), or remove what it conflicts with: --enable-lora, --pipeline-parallel-size > 1, --enforce-eager or a cudagraph_mode without FULL graphs (NONE, PIECEWISE), use_local_argmax_reduction, capture sizes too small for one decode request of 1 + num_speculative_tokens tokens; 0.29 takes it with method dspark only.",
         versions="0.29.0-0.34.0", source="vllm/config/vllm.py VllmConfig._validate_adaptive_verification, vllm/config/speculative.py SpeculativeConfig.__post_init__ (0.29.0, 0.33.0, 0.34.0)"),
    _sig("src_adaptive_verification_v1", "does not support: adaptive draft verification", r"Model Runner V1 does not support: (?P<what>[^\n]*adaptive draft verification[^\n]*)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="Model runner v1 runs this deployment ({what}), and only model runner v2 verifies drafts adaptively.",
         fix="Drop \"enable_adaptive_verification\" from --speculative-config, or use a speculative method model runner v2 runs (not suffix in 0.32-0.33) and leave VLLM_USE_V2_MODEL_RUNNER unset (not 0).",
         versions="0.29.0-0.33.0", source="vllm/config/vllm.py VllmConfig._validate_v1_model_runner (0.29.0, 0.33.0)"),
    _sig("src_cudagraph_max_size", "should be consistent with the max value of cudagraph_capture_sizes", r"customized max_cudagraph_capture_size\(=(?P<max>\d+)\) should be consistent with the max value of cudagraph_capture_sizes\(=(?P<largest>\d+)\)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="max_cudagraph_capture_size {max} and the largest of cudagraph_capture_sizes {largest} disagree.",
         fix="Give only one of the two, or set max_cudagraph_capture_size to {largest}.",
         versions="0.27.1, 0.33.0", source="vllm/config/vllm.py VllmConfig._set_cudagraph_sizes (0.27.1, 0.33.0)"),
    _sig("src_compilation_mode", "invalid compilation mode", r"Invalid compilation mode: (?P<mode>\S+?)\.? Valid modes are", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="The compilation mode {mode} (-cc.mode / --compilation-config) is not one this release knows.",
         fix="Use a valid mode (0 NONE, 1 STOCK_TORCH_COMPILE, 2 DYNAMO_TRACE_ONCE, 3 VLLM_COMPILE), or -O0..-O3 for the optimization level.",
         versions="0.27.1, 0.33.0", source="vllm/config/compilation.py CompilationConfig.validate_mode_before (0.27.1, 0.33.0)"),
    _sig("src_mamba_block_size", "--mamba-block-size can only be set", r"--mamba-block-size can only be set with --enable-prefix-caching", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--mamba-block-size was given without prefix caching; it only applies to prefix-cached Mamba state.",
         fix="Add --enable-prefix-caching, or drop --mamba-block-size.",
         versions="0.27.1, 0.33.0", source="vllm/config/vllm.py validate_mamba_block_size (0.27.1, 0.33.0)"),
    _sig("src_hma_forced", "hybrid kv cache manager was explicitly enabled", r"Hybrid KV cache manager was explicitly enabled but is not supported in this configuration", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="The hybrid KV cache manager was forced on with --no-disable-hybrid-kv-cache-manager (vLLM 0.33+'s message calls it --enable-hybrid-kv-cache-manager, a flag no release has), and this configuration cannot use it: chunked local attention (0.13), KV events, chunked local attention with EAGLE, or a platform without the manager.",
         fix="Leave out --no-disable-hybrid-kv-cache-manager (the message's --enable-hybrid-kv-cache-manager) so vLLM decides, or drop the feature the message's configuration names.",
         versions="0.13.0-0.34.0", source="vllm/config/vllm.py VllmConfig.__post_init__ (0.27.1, 0.33.0, 0.13.0, 0.14.0; the flag named --no-disable-hybrid-kv-cache-manager up to 0.32.0, --enable-hybrid-kv-cache-manager from 0.33.0)"),
    # vllm/distributed/kv_transfer/kv_connector/factory.py KVConnectorFactory.create_connector (0.11.1-0.34.0): with the
    # hybrid manager on, a connector class that does not subclass SupportsHMA is refused; from 0.13 the manager stays on
    # for a connector only under --no-disable-hybrid-kv-cache-manager (config/vllm.py VllmConfig.__post_init__)
    _sig("src_connector_without_hma", "does not support hma but hma is enabled", r"Connector (?P<name>\w+) does not support HMA but HMA is enabled", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="The hybrid KV cache manager is kept on (--no-disable-hybrid-kv-cache-manager) while the KV connector {name} does not subclass SupportsHMA, so vLLM refuses to build it.",
         fix="Leave out --no-disable-hybrid-kv-cache-manager (vLLM then turns the manager off for the connector), or use a connector that supports the hybrid manager (NixlConnector from 0.18, OffloadingConnector / MultiConnector of such children from 0.21).",
         versions="0.13.0-0.34.0", source="vllm/distributed/kv_transfer/kv_connector/factory.py KVConnectorFactory.create_connector (0.22.0, 0.34.0, 0.12.0, 0.13.0, 0.18.0)"),
    _sig("src_hma_off_unify", "specs to one unified type",
         r"Hybrid KV cache manager is disabled but failed to convert the KV cache specs to one unified type|Failed to promote local KV cache specs to one unified type", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="The hybrid KV cache manager is off (--disable-hybrid-kv-cache-manager, or a KV connector without HMA support), and the model keeps KV specs that cannot be held as one type: Mamba / linear-attention state or cross attention beside attention layers.",
         fix="Leave out --disable-hybrid-kv-cache-manager (from vLLM 0.14 vLLM decides), or use a KV connector that supports the hybrid manager; hybrid Mamba / GDN models need its groups.",
         versions="0.9.1-0.34.0", source="vllm/v1/core/kv_cache_utils.py unify_hybrid_kv_cache_specs (0.9.1-0.26.0), _promote_local_kv_cache_specs (0.27.0-0.32.0; kv_cache_planning.py 0.33.0, 0.34.0)"),
    _sig("disable_sliding_window_rope", "disabling sliding window is not supported", r"Disabling sliding window is not supported for models (?:with rope_scaling|model_max_length in the config)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--disable-sliding-window on a model whose config has rope_scaling (or a model_max_length above the derived length), which this release refuses.",
         fix="Leave out --disable-sliding-window, or use vLLM 0.12.0 or newer, which takes it (capping max_model_len at the window).",
         versions="0.4.3-0.11.2", source="vllm/config/model.py _get_and_verify_max_len (0.11.0, 0.11.2; config.py 0.4.3-0.10.0, absent from 0.12.0)"),
    _sig("src_arch_removed", "and is not supported anymore", r"Model architecture (?P<arch>\w+) was supported in vLLM until v(?P<last>[\d.]+\w*), and is not supported anymore", ERROR,
         symptom="unsupported_architecture", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="{arch} was removed from vLLM after v{last}; this release no longer has it.",
         fix="Use vLLM {last} or earlier for this model, or a model of a supported architecture.",
         versions="0.27.1, 0.33.0", source="vllm/model_executor/models/registry.py _ModelRegistry._raise_for_unsupported (0.27.1, 0.33.0)"),
    # Transformers-backend resolution (--model-impl transformers, or the fallback for an architecture vLLM lacks): the
    # class is not in the installed Transformers and the config has no auto_map; a Transformers older than the model,
    # or a custom model without --trust-remote-code, both meet it: a hint
    _sig("src_transformers_no_module", "is not a registered model in the transformers library", r"Cannot find model module\. '?(?P<arch>\w+)'? is not a registered model in the Transformers library", ERROR,
         symptom="unsupported_architecture", layer="vllm_version_flags", weight=0.55, fatal=True,
         cause="vLLM has no native {arch} and its Transformers backend could not find the class either: the installed Transformers does not register it and the config's auto_map names no AutoModel.",
         fix="Use a vLLM release that supports {arch} natively, upgrade transformers to one that has it, or pass --trust-remote-code for a custom model whose repository ships the code.",
         versions="0.27.1, 0.33.0", source="vllm/model_executor/models/registry.py _ModelRegistry._try_resolve_transformers (0.27.1, 0.33.0)"),
    _sig("src_transformers_incompatible", "is not compatible with vllm", r"The Transformers implementation of (?P<arch>\w+) is not compatible with vLLM", ERROR,
         symptom="unsupported_architecture", layer="vllm_version_flags", weight=0.8, fatal=True,
         cause="vLLM has no native {arch}, and the model's Transformers implementation does not meet what vLLM's Transformers backend needs (attention interface support).",
         fix="Use a vLLM release that supports {arch} natively, or a model whose Transformers code supports the attention interface (is_backend_compatible).",
         versions="0.27.1, 0.33.0", source="vllm/model_executor/models/registry.py _ModelRegistry._try_resolve_transformers (0.27.1, 0.33.0)"),
    _sig("src_no_config_file", "could not detect config format", r"Could not detect config format for no config file found", ERROR,
         symptom="weights_not_cached", layer="model_weights", weight=0.75, fatal=True,
         cause="The model path or repository has neither config.json (Hugging Face format) nor params.json (Mistral format): a path that is not the model's directory, an incomplete download, or a repository laid out differently.",
         fix="Point the model argument at the directory that holds config.json (or download the repository again); for a custom layout pass --config-format.",
         versions="0.27.1, 0.33.0", source="vllm/transformers_utils/config.py get_config (0.27.1, 0.33.0)"),
    _sig("src_unknown_load_format", "unknown load_format", r"Unknown load_format: (?P<fmt>\S+)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--load-format {fmt} is not a format the default loader knows.",
         fix="Pass --load-format auto (or safetensors, pt, npcache, ...), or leave it out.",
         versions="0.27.1, 0.33.0", source="vllm/model_executor/model_loader/default_loader.py DefaultModelLoader._prepare_weights (0.27.1, 0.33.0)"),
    # the checkpoint lacks tensors the model class declares: a checkpoint of another revision or layout, or a release
    # whose weight mapping misses this checkpoint's names: a hint
    _sig("src_weights_not_initialized", "were not initialized from checkpoint", r"Following weights were not initialized from checkpoint: (?P<names>.{0,200})", ERROR,
         symptom="tokenizer_or_revision_mismatch", layer="model_weights", weight=0.55, fatal=True,
         cause="The checkpoint has no tensors for some of the model class's weights ({names}): its layout or revision is not the one this release's class expects, or the release does not map this checkpoint's names.",
         fix="Check the checkpoint is complete and of the architecture config.json names (quantized exports need their quantization config); try the revision or release the model card names.",
         versions="0.27.1, 0.33.0", source="vllm/model_executor/model_loader/default_loader.py DefaultModelLoader.track_weights_loading (0.27.1, 0.33.0)"),
    _sig("src_pooler_oom", "warming up pooler", r"CUDA out of memory occurred when warming up pooler(?: \(task=(?P<task>\w+)\))? with (?P<n>\d+) dummy requests", ERROR,
         symptom="oom_graph_capture_or_profiling", layer="memory_budget", weight=0.9, fatal=True,
         cause="The pooler warm-up with {n} dummy requests ran out of memory after the KV cache was allocated: the profile did not leave room for the pooling head's peak at max_num_seqs.",
         fix="Lower --max-num-seqs or --gpu-memory-utilization so the warm-up has room.",
         versions="0.27.1, 0.33.0", source="vllm/v1/worker/gpu_model_runner.py GPUModelRunner._dummy_pooler_run_task (0.27.1, 0.33.0)"),
    _sig("src_no_pooling_tasks", "does not support any pooling tasks", r"Model (?P<arch>\w+) does not support any pooling tasks", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="The model was started as a pooling model (--runner pooling, an embed/score task), and {arch} has no pooling head for any task.",
         fix="Serve it as a generator (--runner generate / auto), pass --convert embed or classify to adapt it, or use an embedding checkpoint.",
         versions="0.27.1-0.33.0", source="vllm/v1/worker/gpu_model_runner.py GPUModelRunner._dummy_pooler_run (0.27.1, 0.33.0); not in the 0.34.0 wheel (its V1 GPU model runner, v1/worker/gpu_model_runner.py, was removed)"),
    # 0.34.0 removed the V1 GPU model runner (vllm/v1/worker/gpu_model_runner.py): its one runner (v1/worker/gpu/)
    # refuses a start without Triton, off the standalone CPU runner (v1/worker/gpu_worker.py Worker.__init__)
    _sig("src_model_runner_needs_triton", "vllm's model runner requires triton", r"vLLM's model runner requires Triton", ERROR,
         symptom="invalid_engine_flags", layer="pytorch_wheel", weight=0.85, fatal=True,
         cause="vLLM's model runner (from 0.34 the only GPU runner) needs Triton, which this install or platform lacks.",
         fix="Install the Triton the torch wheel pins (a fresh virtualenv with vLLM's default wheel brings it); there is no runner without Triton on GPUs from 0.34.",
         versions=">=0.34", source="vllm/v1/worker/gpu_worker.py Worker.__init__ (0.34.0)"),
    # ... and its configuration validator refuses what that runner does not implement (config/vllm.py
    # VllmConfig._validate_model_runner, 0.34.0; 0.33's "Model Runner V2 does not yet support:" fell back to V1 for some)
    _sig("src_gpu_model_runner_unsupported", "the gpu model runner does not support:", r"The GPU model runner does not support: (?P<what>[^\[]+?)\s*(?:\[|$)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="vLLM's GPU model runner (from 0.34 the only one; the V1 runner was removed) does not implement {what}, and the configuration validator refuses it.",
         fix="Drop {what}, or run a release before 0.34 whose V1 model runner has it.",
         versions=">=0.34", source="vllm/config/vllm.py VllmConfig._validate_model_runner (0.34.0)"),
    _sig("src_mrv2_needs_triton", "model runner v2 requires triton", r"Model Runner V2 requires Triton", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="The V2 model runner (VLLM_USE_V2_MODEL_RUNNER=1) was asked for on a platform or install without Triton, which it needs.",
         fix="Unset VLLM_USE_V2_MODEL_RUNNER (use the V1 runner), or install the Triton the torch wheel pins.",
         versions="0.27.1-0.33.0", source="vllm/v1/worker/gpu_worker.py Worker.__init__ (0.33.0), vllm/config/vllm.py (0.27.1); 0.34.0 words it \"vLLM's model runner requires Triton.\" (src_model_runner_needs_triton)"),
    _sig("src_object_storage_load_format", "to load a model from object storage", r"To load a model from object storage \(S3/GCS(?:/Azure)?\), 'load_format' must be (?P<want>.+?), but got '(?P<fmt>\w+)'", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="The model is an object-storage URI (s3://, gs://, az://), which only the streaming loaders read, and --load-format is {fmt}.",
         fix="Pass --load-format runai_streamer (install vllm[runai]), or download the model to a local path first.",
         versions="0.27.1, 0.33.0", source="vllm/config/vllm.py VllmConfig.try_verify_and_update_config (0.27.1, 0.33.0)"),
    # the Hub's 404 (and, for a client without a token, its 401) for a repository id it does not show this client
    # (huggingface_hub utils/_http.py hf_raise_for_status "Repository Not Found for url: ...", read in 2.4.0), and
    # Transformers' wording of the same (transformers utils/hub.py cached_files, read in 5.24.0: "X is not a local
    # folder and is not a valid model identifier listed on 'https://huggingface.co/models'"). Owners: a misspelt id, a local path missing in the container, or a
    # private repository without a token: a hint
    _sig("hub_repo_not_found", "repository not found for url|is not a valid model identifier listed on",
         r"Repository Not Found for url: \S+|\S+ is not a local folder and is not a valid model identifier listed on", ERROR,
         symptom="download_failed", layer="model_weights", weight=0.55, fatal=True,
         cause="The model argument names no repository the Hub shows this client and no local directory: a misspelt id, a local path that does not exist where vLLM runs (a container without the mount), or a private repository asked for without a token.",
         fix="Check the model id's spelling (org/name, as on its Hub page) or mount the local path into the container; for a private repository set HF_TOKEN to a token with access.",
         source="huggingface_hub utils/_http.py hf_raise_for_status (2.4.0); transformers utils/hub.py cached_files (5.24.0)"),
    # huggingface_hub's hf_raise_for_status (utils/_http.py, read in 2.4.0) turns a 401 into RepositoryNotFoundError
    # only when the Hub's message is NOT "Invalid credentials in Authorization header" and the URL is a repository's: the
    # Hub answers 401 for a repository it does not show an unauthenticated client (missing, private or gated). So a
    # "RepositoryNotFoundError: 401" line is not a rejected token: it only shadows hf_401, and the "Repository Not Found
    # for url" line huggingface_hub prints with it reads as hub_repo_not_found (a hint: several owners)
    _sig("hub_401_repo_not_found", "repositorynotfounderror: 401",
         r"RepositoryNotFoundError: 401 Client Error", ERROR,
         source="huggingface_hub utils/_http.py hf_raise_for_status (2.4.0): 401 without 'Invalid credentials in Authorization header' on a repository URL -> RepositoryNotFoundError"),
    # vllm-ascend's check_kv_extra_config (vllm_ascend/utils.py, read in 0.18.0rc1) compares kv_connector_extra_config's
    # 'prefill' (producer) or 'decode' (consumer) tp_size/dp_size with the process's own tensor/data-parallel size. The
    # extra config, the launch flags, or how the release counts DP on that node (vllm-ascend#8344/#8345 are open and
    # triaged) can each be wrong: a hint
    _sig("ascend_kv_extra_config_conflict", "config has a conflicting",
         r"KV transfer '(?P<role>\w+)' config has a conflicting (?P<what>tensor|data) parallel size\. Expected (?P<expected>\d+), but got (?P<got>\d+)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.55, fatal=True,
         cause="--kv-transfer-config's kv_connector_extra_config gives the '{role}' side {what}-parallel size {got}, but this process runs with {expected}.",
         fix="Make kv_connector_extra_config's '{role}' tp_size/dp_size match the node's --tensor-parallel-size/--data-parallel-size (the values this process sees).",
         versions="vllm-ascend 0.18.0rc1", source="vllm_ascend/utils.py check_kv_extra_config (vllm-ascend 0.18.0rc1)"),
    _sig("src_sleep_mode_platform", "sleep mode is not supported on current platform", r"Sleep mode is not supported on current platform", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--enable-sleep-mode was asked on a platform without the CUDA memory allocator it needs.",
         fix="Drop --enable-sleep-mode on this platform (it needs NVIDIA CUDA or ROCm).",
         versions="0.27.1, 0.33.0", source="vllm/config/model.py ModelConfig.__post_init__ (0.27.1, 0.33.0)"),
    # ---- a second source pass: parallel, data-parallel launch and hybrid/Mamba refusals (0.27.1 and 0.33.0) -------
    # Read in the raise statements of vllm/config/parallel.py, engine/arg_utils.py (the data-parallel launch checks),
    # entrypoints/cli/serve.py, v1/engine/utils.py, distributed/, v1/worker, model_executor/layers/mamba/, the Mamba
    # and GDN attention builders and config/vllm.py's hybrid checks (docs/startup-errors-from-source.md, second pass).
    # data_parallel_external_lb is set by --data-parallel-external-lb or implicitly by --data-parallel-rank
    # (engine/arg_utils.py create_engine_config; config/parallel.py's docstring: "useful for a one-pod-per-rank wide-EP
    # setup"), i.e. by whatever launches one server per rank. Owners in public threads: a framework's launcher
    # (NovaSky-AI/SkyRL#1575, PrimeIntellect-ai/prime-rl PR #3094) and a user's launch script: a hint.
    _sig("src_dp_external_lb_without_dp", "data_parallel_external_lb can only be set when data_parallel_size", r"data_parallel_external_lb can only be set when data_parallel_size > 1", ERROR,
         symptom="invalid_engine_flags", layer="client_code", weight=0.55, fatal=True,
         cause="This server was started as one rank of an externally load-balanced data-parallel deployment (--data-parallel-rank or --data-parallel-external-lb, usually passed by the code or script that launches one server per rank), but its data_parallel_size is 1.",
         fix="Where the servers are launched, either give each rank the deployment's --data-parallel-size (> 1) with its --data-parallel-rank, or, for independent single-rank servers, drop --data-parallel-rank / --data-parallel-external-lb.",
         versions="0.9.2-0.33.0", source="vllm/config/parallel.py ParallelConfig._validate_parallel_config (0.27.1, 0.33.0; __post_init__ in 0.9.2-0.22); engine/arg_utils.py EngineArgs.create_engine_config"),
    _sig("src_dp_rank_range", "must be in the range [0,", r"data_parallel_rank \((?P<rank>-?\d+)\) must be in the range \[0, (?P<dp>\d+)\)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--data-parallel-rank {rank} is outside the deployment's {dp} data-parallel ranks (0 to {dp} - 1).",
         fix="Give each server a --data-parallel-rank from 0 to {dp} - 1, or raise --data-parallel-size to the number of ranks launched.",
         versions="0.27.1, 0.33.0", source="vllm/config/parallel.py ParallelConfig.__post_init__ (0.27.1, 0.33.0)"),
    _sig("src_eplb_needs_parallel", "eplb requires tensor", r"EPLB requires tensor(?:, prefill-context,)? (?:or data parallelism|_parallel_size or data_parallel_size)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--enable-eplb was asked on a single GPU (TP, PCP and DP all 1): expert-parallel load balancing moves experts between ranks and needs more than one.",
         fix="Drop --enable-eplb, or run expert parallelism over several GPUs (--tensor-parallel-size or --data-parallel-size above 1 with --enable-expert-parallel).",
         versions="0.27.1, 0.33.0 (older: 'EPLB requires tensor_parallel_size or data_parallel_size to be greater than 1')", source="vllm/config/parallel.py ParallelConfig._validate_parallel_config (0.27.1, 0.33.0)"),
    _sig("src_redundant_experts_without_eplb", "but eplb is not enabled", r"num_redundant_experts is set to (?P<n>\d+) but EPLB is not enabled", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--eplb-config num_redundant_experts={n} was given without --enable-eplb; redundant experts exist only under expert-parallel load balancing.",
         fix="Add --enable-eplb (with --enable-expert-parallel), or leave num_redundant_experts unset.",
         versions="0.27.1, 0.33.0", source="vllm/config/parallel.py ParallelConfig._validate_parallel_config (0.27.1, 0.33.0)"),
    _sig("src_nnodes_backend", "nnodes > 1 can only be set when distributed executor backend", r"nnodes > 1 can only be set when distributed executor backend is mp", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--nnodes above 1 was combined with a distributed executor backend other than mp, uni or external_launcher (Ray places multi-node workers itself).",
         fix="With Ray, drop --nnodes/--node-rank (Ray spans the nodes); with --nnodes, use --distributed-executor-backend mp.",
         versions="0.27.1, 0.33.0", source="vllm/config/parallel.py ParallelConfig.__post_init__ (0.27.1, 0.33.0)"),
    # data_parallel_size set without the serve path (the LLM class, VLLM_DP_SIZE) for a model without experts
    _sig("src_offline_dp_dense", "offline data parallel mode is not supported", r"Offline data parallel mode is not supported/useful for dense models", ERROR,
         symptom="invalid_engine_flags", layer="client_code", weight=0.85, fatal=True,
         cause="Offline (LLM class / VLLM_DP_SIZE) data parallelism was asked for a dense model; vLLM runs data-parallel engines in one process group only for MoE models.",
         fix="For a dense model run independent LLM instances (one per GPU group, each with its own CUDA_VISIBLE_DEVICES) or serve it with vllm serve --data-parallel-size; keep data_parallel_size 1 in the LLM(...) call.",
         versions="0.27.1, 0.33.0", source="vllm/config/parallel.py ParallelConfig.__post_init__ (0.27.1, 0.33.0)"),
    _sig("src_eplb_platform", "expert parallelism load balancing is only supported on", r"Expert parallelism load balancing is only supported on (?P<where>CUDA devices[\w ,]*?) now", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--enable-eplb was asked on a platform whose release has no EPLB (it runs on {where}).",
         fix="Drop --enable-eplb on this platform.",
         versions="0.27.1, 0.33.0", source="vllm/config/parallel.py ParallelConfig._validate_parallel_config (0.27.1: CUDA or ROCm; 0.33.0: or XPU)"),
    _sig("src_elastic_ep_config", "elastic ep is only supported with enable_eplb|elastic ep is not supported with pipeline parallelism|elastic ep is not compatible with data_parallel",
         r"Elastic EP is only supported with enable_eplb=True|Elastic EP is not supported with pipeline parallelism|Elastic EP is not compatible with data_parallel_\w+", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--enable-elastic-ep was combined with a setting it does not run with (it needs --enable-eplb, no pipeline parallelism, and one API server/core client rather than hybrid load balancing).",
         fix="Add --enable-eplb, set --pipeline-parallel-size 1 and drop --data-parallel-hybrid-lb, or start without --enable-elastic-ep.",
         versions="0.27.1, 0.33.0", source="vllm/config/parallel.py ParallelConfig.__post_init__ (0.27.1, 0.33.0)"),
    _sig("src_pcp_dcp", "when pcp is enabled, dcp must be disabled", r"When PCP is enabled, DCP must be disabled, span the PCP axis, or span the full TP x PCP axis\. Got TP=(?P<tp>\d+), PCP=(?P<pcp>\d+), DCP=(?P<dcp>\d+); valid DCP sizes are (?P<valid>\[[^\]]*\])", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--decode-context-parallel-size {dcp} does not fit prefill context parallelism {pcp} with TP {tp}.",
         fix="Set --decode-context-parallel-size to one of {valid}, or drop --prefill-context-parallel-size.",
         versions="0.27.1, 0.33.0", source="vllm/config/parallel.py ParallelConfig._validate_parallel_config (0.27.1, 0.33.0)"),
    # the data-parallel launch checks of create_engine_config (0.27.1, 0.33.0), each saying which flags conflict
    _sig("src_dp_launch_options", "invalid data-parallel launch options:", r"Invalid data-parallel launch options: (?P<what>.+?)\s*$", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="The data-parallel launch flags (--data-parallel-size/-size-local/-rank, --data-parallel-external-lb or -hybrid-lb, --nnodes/--node-rank, --data-parallel-backend) do not fit together: {what}",
         fix="Change the flags the message names as it says (external LB: one rank per server with --data-parallel-size-local 1 and its --data-parallel-rank; hybrid LB: --data-parallel-size-local set; --nnodes dividing the world size, with --data-parallel-backend mp).",
         versions="0.27.1, 0.33.0", source="vllm/engine/arg_utils.py EngineArgs.create_engine_config (0.27.1, 0.33.0)"),
    _sig("src_nnodes_dp_groups", "must be divisible by the number of data parallel node groups", r"nnodes \((?P<nnodes>\d+)\) must be divisible by the number of data parallel node groups \((?P<groups>\d+)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--nnodes {nnodes} is not a multiple of the {groups} data-parallel node groups (--data-parallel-size / --data-parallel-size-local).",
         fix="Set --nnodes to a multiple of {groups}, or change --data-parallel-size-local so that the node groups divide --nnodes.",
         versions="0.33.0", source="vllm/config/parallel.py ParallelConfig.nnodes_within_dp (0.33.0)"),
    _sig("src_non_moe_external_dp", "non-moe models do not support external data parallel mode", r"Non-MoE models do not support external data parallel mode", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--data-parallel-rank / --data-parallel-external-lb (external data-parallel load balancing) was given for a dense model; that mode exists for MoE (wide expert-parallel) deployments.",
         fix="Launch independent vLLM servers without --data-parallel-* arguments and balance over them, or use --data-parallel-size on one server (internal load balancing).",
         versions="0.27.1, 0.33.0", source="vllm/engine/arg_utils.py EngineArgs.create_engine_config (0.27.1, 0.33.0)"),
    _sig("src_fault_tolerance_dp", "fault tolerance requires external load balancer mode|fault tolerance requires a single api server process",
         r"Fault tolerance requires (?:external load balancer mode|a single API server process)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--enable-fault-tolerance was asked in a layout it does not run in: it needs external load-balancer mode (--data-parallel-external-lb or --data-parallel-rank) and one API server process.",
         fix="Launch the ranks with --data-parallel-rank (external LB) and --api-server-count 1, or start without --enable-fault-tolerance.",
         versions="0.27.1, 0.33.0", source="vllm/engine/arg_utils.py EngineArgs.create_engine_config; vllm/config/parallel.py ParallelConfig._validate_parallel_config (0.27.1, 0.33.0)"),
    _sig("src_dp_lb_modes", "cannot use more than one data parallel load balancing mode", r"Cannot use more than one data parallel load balancing mode", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="Two data-parallel load-balancing modes were asked at once (--data-parallel-multi-port-external-lb, --data-parallel-external-lb or --data-parallel-rank, --data-parallel-hybrid-lb or --data-parallel-start-rank).",
         fix="Keep the flags of one mode only: --data-parallel-rank for external LB, --data-parallel-start-rank with --data-parallel-size-local for hybrid LB.",
         versions="0.27.1, 0.33.0", source="vllm/entrypoints/cli/serve.py ServeSubcommand.cmd (0.27.1, 0.33.0)"),
    _sig("src_headless_api_servers", "cannot be used with --headless|api_server_count can't be set in headless mode|must be > 0 in headless mode|is not applicable in headless mode",
         r"--api-server-count=\d+ cannot be used with --headless|api_server_count can't be set in headless mode|data_parallel_size_local must be > 0 in headless mode|data_parallel_hybrid_lb is not applicable in headless mode", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="A --headless node (engine cores only, no API server) was given a flag that needs an API server or no local ranks (--api-server-count, --data-parallel-hybrid-lb, --data-parallel-size-local 0).",
         fix="On a --headless node drop --api-server-count and --data-parallel-hybrid-lb and give --data-parallel-size-local above 0; run the API server on the head node.",
         versions="0.27.1, 0.33.0", source="vllm/entrypoints/cli/serve.py ServeSubcommand.cmd, run_headless (0.27.1, 0.33.0)"),
    _sig("src_device_ids", "--device-ids provides|--device-ids index|--device-ids must not",
         r"--device-ids (?:provides (?P<have>\d+) devices, but DP rank (?P<rank>\d+) needs devices \[(?P<start>\d+), (?P<stop>\d+)\)|index \d+ is out of range for \w+=\S* \(\d+ devices visible\)|must not contain duplicates|must not mix integer IDs and UUIDs)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--device-ids does not name the GPUs this launch needs: too few for the data-parallel ranks x TP, an index beyond the visible devices, a duplicate, or integer IDs mixed with UUIDs.",
         fix="List one distinct visible device per rank x TP (as integers or as UUIDs, not both), within CUDA_VISIBLE_DEVICES; or drop --device-ids.",
         versions="0.27.1, 0.33.0", source="vllm/engine/arg_utils.py EngineArgs._resolve_device_ids; vllm/v1/engine/utils.py get_physical_gpu_ids_for_local_dp_rank (0.27.1, 0.33.0)"),
    _sig("src_dp_config_mismatch", "all dp workers must have identical configurations", r"Configuration mismatch detected for engine (?P<eng>\d+)\. All DP workers must have identical configurations", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="Data-parallel engine {eng} was started with parallel settings (e.g. --enable-eplb, the EPLB config) other than the head's.",
         fix="Start every data-parallel node with the same command-line arguments (only --data-parallel-start-rank/--headless/addresses differ).",
         versions="0.27.1, 0.33.0", source="vllm/v1/engine/utils.py wait_for_engine_startup (0.27.1, 0.33.0)"),
    _sig("src_remote_engine_headless", "must use --headless unless in external or hybrid dp lb mode|must not use --headless in external or hybrid dp lb mode",
         r"Remote engine (?P<eng>\d+) must (?:use --headless unless|not use --headless) in external or hybrid dp lb mode", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="Data-parallel engine {eng} on another node was launched with the wrong --headless setting for this load-balancing mode (internal LB wants headless secondary nodes; external or hybrid LB wants each node's own API server).",
         fix="Internal LB: start the secondary nodes with --headless; external/hybrid LB: start them without --headless.",
         versions="0.27.1, 0.33.0", source="vllm/v1/engine/utils.py wait_for_engine_startup (0.27.1, 0.33.0)"),
    _sig("src_runtime_lora_multi_api", "vllm_allow_runtime_lora_updating cannot be used with api_server_count", r"VLLM_ALLOW_RUNTIME_LORA_UPDATING cannot be used with api_server_count > 1", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="VLLM_ALLOW_RUNTIME_LORA_UPDATING was set with several API server processes (--api-server-count above 1, or the default with data parallelism), which cannot share runtime-loaded adapters.",
         fix="Pass --api-server-count 1, or unset VLLM_ALLOW_RUNTIME_LORA_UPDATING and give the adapters with --lora-modules.",
         versions="0.27.1, 0.33.0", source="vllm/entrypoints/cli/serve.py run_multi_api_server (0.27.1, 0.33.0)"),
    _sig("src_quant_group_tp_split", "is not divisible by group_size=", r"Weight input_size_per_partition=(?P<part>\d+)(?P<where>[^=]*?) is not divisible by group_size=(?P<group>\d+)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--tensor-parallel-size splits a quantized layer's input into shards of {part}, not a whole number of the checkpoint's quantization groups ({group}).",
         fix="Use a --tensor-parallel-size that divides the layer into whole groups of {group} (often a smaller one), add --pipeline-parallel-size instead, or a checkpoint quantized with a smaller group size.",
         versions="0.27.1, 0.33.0", source="vllm/distributed/utils.py verify_group_size_divides_partition (0.27.1, 0.33.0)"),
    _sig("src_pp_partition", "does not match num_hidden_layers|does not match pp_size",
         r"sum\(partitions\)=(?P<sum>\d+) does not match num_hidden_layers=(?P<layers>\d+)|len\(partitions\)=(?P<len>\d+) does not match pp_size=(?P<pp>\d+)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="VLLM_PP_LAYER_PARTITION does not fit the model and --pipeline-parallel-size: its parts must be one per pipeline stage and add up to the model's layers.",
         fix="Give VLLM_PP_LAYER_PARTITION one count per stage summing to num_hidden_layers, or unset it to split the layers evenly.",
         versions="0.27.1, 0.33.0", source="vllm/distributed/utils.py get_pp_indices (0.27.1, 0.33.0)"),
    _sig("src_shm_insufficient", "insufficient space in", r"Insufficient space in (?P<path>\S+?)(?: for (?P<what>[\w -]+))?: (?P<req>\d+) MiB required, (?P<free>\d+) MiB free", ERROR,
         symptom="tp_init_hang", layer="container_environment", weight=0.9, fatal=True,
         cause="{path} has {free} MiB free, less than the {req} MiB vLLM's shared-memory segment needs: the container's shared memory is too small.",
         fix="Run the container with --ipc=host or a larger --shm-size (Kubernetes: an emptyDir with medium: Memory mounted at /dev/shm).",
         versions="0.27.1, 0.33.0", source="vllm/distributed/device_communicators/shm_broadcast.py check_shm_free_space (0.27.1, 0.33.0)"),
    _sig("src_ray_missing", "failed to import ray:", r"Failed to import Ray: (?P<err>.+?)\.?\s*Please install Ray", ERROR,
         symptom="import_undefined_symbol", layer="container_environment", weight=0.85, fatal=True,
         cause="The Ray executor (--distributed-executor-backend ray, or a multi-node start) was asked for and Ray could not be imported: {err}.",
         fix="pip install ray (vllm[ray] pins the version the release was tested with), or use --distributed-executor-backend mp on one node.",
         versions="0.27.1, 0.33.0", source="vllm/v1/executor/ray_utils.py assert_ray_available (0.27.1, 0.33.0)"),
    _sig("src_external_launcher_pg", "external launcher initialized the default process group without", r"External launcher initialized the default process group without (?P<what>a CPU \(gloo\) backend|device_id)", ERROR,
         symptom="invalid_engine_flags", layer="client_code", weight=0.9, fatal=True,
         cause="The calling code (distributed_executor_backend external_launcher, e.g. torchrun) initialized torch.distributed without {what}, which vLLM needs to split the process group.",
         fix="Call torch.distributed.init_process_group(backend='cpu:gloo,cuda:nccl', device_id=torch.device(f'cuda:{{local_rank}}')) before building the LLM.",
         versions="0.27.1, 0.33.0", source="vllm/distributed/parallel_state.py _validate_default_pg_for_split_group (0.27.1, 0.33.0)"),
    # vLLM's own refusal quoted without its "max_num_seqs (N)" head (vllm/config/compilation.py
    # CompilationConfig.resolve_cudagraph_mode_and_sizes, 0.27.1, 0.33.0: "... exceeds available Mamba cache blocks (N).
    # Each decode sequence requires one Mamba cache block, so CUDA graph capture cannot proceed. Please lower max_num_seqs
    # to at most N or increase gpu_memory_utilization."); mamba_blocks_below_seqs reads the whole line first
    _sig("src_mamba_blocks_unheaded", "exceeds available mamba cache blocks|one mamba cache block, so cuda graph capture cannot proceed",
         r"exceeds available Mamba cache blocks \((?P<blocks>\d+)\)|requires one Mamba cache block, so CUDA graph capture cannot proceed", ERROR,
         symptom="state_blocks_below_max_num_seqs", layer="memory_budget", weight=0.9, fatal=True,
         cause="This hybrid model keeps one recurrent-state (Mamba) block per decode sequence for its full CUDA graphs; max_num_seqs is above the {blocks} blocks the pool holds, and vLLM refuses rather than capping the graphs.",
         fix="Lower --max-num-seqs to at most the block count the message names ({blocks}), raise --gpu-memory-utilization or lower --max-model-len (a larger pool holds more state blocks), or start with --enforce-eager.",
         versions="0.27.1, 0.33.0", source="vllm/config/compilation.py CompilationConfig.resolve_cudagraph_mode_and_sizes (0.27.1, 0.33.0)"),
    _sig("src_mamba_stochastic_rounding", "stochastic rounding for mamba cache requires", r"Stochastic rounding for Mamba cache requires the SSM cache to be float16", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--enable-mamba-cache-stochastic-rounding was asked without a float16 SSM state cache.",
         fix="Add --mamba-ssm-cache-dtype float16, or drop --enable-mamba-cache-stochastic-rounding.",
         versions="0.27.1, 0.33.0", source="vllm/config/vllm.py VllmConfig.__post_init__ (0.27.1, 0.33.0)"),
    _sig("src_replayssm", "--use-replayssm|replayssm requires|replayssm does not support|replayssm supports|replayssm speculative decoding|recoverssm",
         r"(?P<what>(?:--use-replayssm|(?:FlashInfer |Triton |Mamba2 )?ReplaySSM|RecoverSSM)(?: speculative decoding)? (?:requires|does not support|is incompatible with|is not supported for|is only supported for|supports|currently requires|with prefix caching requires)[^.;]*)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="The Mamba state kernel asked for (--use-replayssm / ReplaySSM / RecoverSSM) does not run with the rest of this configuration: {what}.",
         fix="Change the setting the message names (--mamba-backend, --mamba-cache-mode align, --disable-prefix-caching, --replayssm-buffer-len), or start without --use-replayssm.",
         versions="0.27.1, 0.33.0", source="vllm/config/vllm.py VllmConfig.validate_mamba_cached_kernel; model_executor/layers/mamba/mamba_mixer2.py MambaMixer2.__init__ (0.27.1, 0.33.0)"),
    _sig("src_mamba_tp_split", "tensor parallel world size must divide num heads|tensor parallel world size must divide hidden size|then num_groups must equal 1|group_norm_size must be divisible by tp_size",
         r"Tensor parallel world size must divide (?P<what>num heads|hidden size)|If tensor parallel world size does not divide num_groups, then num_groups must equal 1|group_norm_size must be divisible by tp_size", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="--tensor-parallel-size does not split this hybrid model's Mamba/linear-attention layers evenly (their heads, groups or hidden size are not a multiple of it).",
         fix="Pick a --tensor-parallel-size that divides the model's Mamba heads and groups (see config.json: mamba_n_heads, n_groups), or use --pipeline-parallel-size for the rest.",
         versions="0.27.1, 0.33.0", source="vllm/model_executor/layers/mamba/mamba_mixer2.py MambaMixer2.__init__, Mixer2RMSNormGated.__init__; layers/mamba/linear/bailing_linear_attn.py (0.27.1, 0.33.0)"),
    _sig("src_mamba_prefix_caching", "chunked prefill is required for mamba|mamba prefix caching requires mamba_cache_mode",
         r"Chunked prefill is required for (?:Mamba prefix caching|mamba cache mode 'align')|Mamba prefix caching requires mamba_cache_mode='align'", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="Prefix caching of a hybrid (Mamba) model was asked without what it needs: chunked prefill and --mamba-cache-mode align.",
         fix="Keep chunked prefill on (drop --no-enable-chunked-prefill) and pass --mamba-cache-mode align, or --no-enable-prefix-caching.",
         versions="0.27.1, 0.33.0", source="vllm/model_executor/models/config.py MambaModelConfig.verify_and_update_config; v1/core/single_type_kv_cache_manager.py MambaManager.__init__ (0.33.0)"),
    # --gdn-prefill-backend naming a kernel this platform or build lacks: _resolve_gdn_prefill_backend raises while the
    # GDN layers are built (rules row gdn_other_platform_refusals / versions.GDN_PREFILL_ROCM_MISSING), or warns and runs
    # Triton/FLA where the kernel is there but cannot serve the model (or, up to 0.21, FlashInfer off SM 9.0)
    _sig("src_gdn_prefill_backend_refused", "gdn prefill backend '",
         r"GDN prefill backend '(?P<backend>\w+)' (?:is only supported on XPU|was requested but (?:it is a ROCm|the AITER "
         r"FlyDSL prefill kernels are not importable|_rocm_C\.rdna35_gdn_chunked is unavailable|torch\.ops\._xpu_C))", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--gdn-prefill-backend {backend} names a GDN prefill kernel of another platform, or one this build or GPU lacks (ROCm's aiter_flydsl needs VLLM_ROCM_USE_AITER=1, a CDNA 3+ GPU and an AITER exporting it; hip an RDNA3.5 build; sycl Intel XPU).",
         fix="Drop --gdn-prefill-backend (vLLM picks the kernel itself) or pass --gdn-prefill-backend triton, which runs everywhere.",
         versions="0.32.0, 0.33.0, 0.34.0", source="vllm/model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py _resolve_gdn_prefill_backend (0.32.0-0.34.0)"),
    # --moe-backend naming a backend the experts' quantization has no kernel for: the select_*_moe_backend oracle's
    # map_*_backend raises while the MoE layers are built (versions.MOE_BACKEND_ORACLES; plan.serve_flags.moe_backend)
    _sig("src_moe_backend_not_for_scheme", "moe_backend='",
         r"moe_backend='(?P<backend>\w+)' is not supported for (?P<fmt>[\w ]+?) MoE\. Expected one of", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--moe-backend {backend} names a kernel this release has no {fmt} MoE experts for: the oracle of the checkpoint's expert quantization does not map it.",
         fix="Drop --moe-backend (auto: vLLM picks the kernel) or pass one of the values the message lists.",
         versions="0.17.0-0.34.0", source="vllm/model_executor/layers/fused_moe/oracle/fp8.py map_fp8_backend, nvfp4.py, mxfp4.py, unquantized.py, int_wna16.py (0.20.0-0.34.0 wheels; fp8, nvfp4, unquantized from 0.17.0)"),
    # KernelConfig.set_platform_defaults: the FlashInfer MoE-EP megakernels run DeepSeek-V4 alone
    _sig("src_moe_backend_deepseek_v4_only", "moe_backend=",
         r"moe_backend='(?P<backend>\w+)' is only supported for DeepSeek-V4 models", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--moe-backend {backend} is FlashInfer's MoE-EP megakernel, which this release builds for DeepSeek-V4 only.",
         fix="Drop --moe-backend (auto: vLLM picks the kernel) for any other model.",
         versions="0.29.0-0.34.0", source="vllm/config/kernel.py validate_flashinfer_moe_ep_model (0.29.0-0.34.0)"),
    # the unquantized oracle's refusals, whose backend names hold a space (moe_backend_unsupported reads one word):
    # 0.20.0-0.33.0 "Unquantized MoE backend FlashInfer TRTLLM does not support ...", 0.34.0 the same in quotes
    # (oracle/base.py), 0.17.0-0.19.0 "FlashInfer TRTLLM MoE backend is not available for this configuration."
    _sig("src_moe_backend_unquantized_refused", "moe backend",
         r"(?:Unquantized MoE backend '?(?P<backend>FlashInfer TRTLLM|FlashInfer CUTLASS|ROCm AITER)'? does not support the "
         r"deployment configuration|(?P<old>FlashInfer TRTLLM|FlashInfer CUTLASS|ROCm AITer) MoE backend is not available for "
         r"this configuration)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--moe-backend asked for a kernel the unquantized MoE experts cannot run on this GPU or build (FlashInfer TRTLLM: Blackwell 10.x only; ROCm AITER: ROCm only).",
         fix="Drop --moe-backend (auto: vLLM picks the kernel) or pass --moe-backend triton, which runs on every CUDA GPU.",
         versions="0.17.0-0.34.0", source="vllm/model_executor/layers/fused_moe/oracle/unquantized.py select_unquantized_moe_backend (0.20.0-0.33.0; 0.17.0-0.19.0 say 'is not available'; 0.34.0 oracle/base.py quotes the name)"),
    _sig("gdn_prefill_backend_fallback", "gdn prefill backend '",
         r"GDN prefill backend '(?P<backend>\w+)' (?:was requested but .*|is selected but cannot use this kernel .*)Falling back to Triton/FLA", WARNING,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.2,
         cause="--gdn-prefill-backend {backend} cannot serve this model here, so vLLM runs the Triton/FLA GDN prefill kernel instead.",
         fix="Nothing stops the start; drop --gdn-prefill-backend to let vLLM choose, or pass triton to say what runs.",
         versions="0.18.0-0.21.0, 0.32.0-0.34.0", source="vllm/model_executor/models/qwen3_next.py ChunkGatedDeltaRule (0.18.0); layers/mamba/gdn/qwen_gdn_linear_attn.py _resolve_gdn_prefill_backend (0.32.0-0.34.0)"),
    # an assert the config's capture sizes normally satisfy: user-set capture sizes above max_num_seqs, or a release's
    # path that let one through: a hint
    _sig("src_mamba_cudagraph_decode_only", "only supports decode-only full cudagraph capture",
         r"(?P<kind>Mamba|GDN|ShortConv) only supports decode-only full CUDAGraph capture", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.55, fatal=True,
         cause="{kind} layers capture full CUDA graphs only for decode batches of at most max_num_seqs requests, and a capture size above that was asked (cudagraph capture sizes / max_cudagraph_capture_size larger than --max-num-seqs, or with speculative tokens).",
         fix="Keep the cudagraph capture sizes at or below --max-num-seqs (or raise --max-num-seqs), use cudagraph_mode PIECEWISE, or --enforce-eager.",
         versions="0.27.1, 0.33.0", source="vllm/v1/attention/backends/mamba_attn.py BaseMambaAttentionMetadataBuilder.build_for_cudagraph_capture; gdn_attn.py (0.27.1, 0.33.0)"),
    _sig("src_mamba_ssu_backend", "unknown mamba ssu backend", r"Unknown Mamba SSU backend: (?P<b>\S+?)\. Valid options: (?P<valid>.+)$", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--mamba-backend {b} is not a Mamba state-update backend this release has.",
         fix="Pass --mamba-backend as one of {valid}, or leave it out.",
         versions="0.27.1, 0.33.0", source="vllm/model_executor/layers/mamba/ops/ssu_dispatch.py initialize_mamba_ssu_backend (0.27.1, 0.33.0)"),
    _sig("src_cp_attention_unsupported", "not support mamba now|requires attention implementations to return the softmax lse|pcp requires attention backend support|not support sliding window attn now|not support chunked local attn now",
         r"(?P<cp>DCP|PCP) not support (?P<what>mamba|sliding window attn|chunked local attn) now|Decode Context Parallelism \(DCP\) requires attention implementations to return the softmax LSE during decode, but (?P<impl>\w+) does not|PCP requires attention backend support, but (?P<backend>\w+) does not support PCP", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.85, fatal=True,
         cause="Context parallelism (--decode-context-parallel-size / --prefill-context-parallel-size above 1) was asked for a model or attention backend that does not support it (Mamba, sliding-window or chunked-local layers, or a backend without the softmax LSE).",
         fix="Set --decode-context-parallel-size 1 and --prefill-context-parallel-size 1 for this model, or pick an attention backend that supports it (--attention-backend).",
         versions="0.27.1, 0.33.0", source="vllm/v1/core/single_type_kv_cache_manager.py find_longest_cache_hit; v1/worker/cp_utils.py check_attention_cp_compatibility (0.27.1, 0.33.0)"),
    _sig("src_kda_state_dtype", "kda recurrent state supports only", r"KDA recurrent state supports only auto, float32, and bfloat16; got (?P<dtype>\S+)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--mamba-ssm-cache-dtype {dtype} is not a state dtype the KDA (Kimi linear attention) layers support.",
         fix="Pass --mamba-ssm-cache-dtype auto, float32 or bfloat16.",
         versions="0.33.0", source="vllm/model_executor/layers/mamba/mamba_utils.py MambaStateDtypeCalculator.kda_state_dtype (0.33.0)"),
    _sig("src_routed_experts_incompatible", "--enable-return-routed-experts is incompatible with", r"--enable-return-routed-experts is incompatible with (?P<what>[^.;]+)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--enable-return-routed-experts was combined with {what}, which it does not run with.",
         fix="Drop --enable-return-routed-experts, or the setting the message names.",
         versions="0.27.1, 0.33.0", source="vllm/config/vllm.py VllmConfig.__post_init__, _verify_aux_output_compatibility (0.27.1, 0.33.0)"),
    _sig("src_async_scheduling_backend", "does not support async scheduling yet", r"`?(?P<backend>[\w.]+)`? does not support async scheduling yet", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--async-scheduling was asked with the {backend} executor backend, which does not run it.",
         fix="Drop --async-scheduling (--no-async-scheduling), or use the mp or uni executor backend.",
         versions="0.27.1, 0.33.0", source="vllm/config/vllm.py VllmConfig.__post_init__ (0.27.1, 0.33.0)"),
    # --async-scheduling with what a release does not run it with (plan.serve_flags, the versions rows async_scheduling_*):
    # pipeline parallelism (0.10.0-0.11.0 engine/arg_utils.py "... not supported with pipeline-parallel-size > 1.",
    # 0.11.1-0.14.0 config/vllm.py "... not yet compatible with pipeline_parallel_size > 1."), speculative decoding
    # (0.10.0-0.11.0 "Currently, speculative decoding is not supported with async scheduling."; 0.11.1-0.32.0 "Currently,
    # async scheduling is only supported with EAGLE/MTP[/Draft Model/NGram GPU/DSpark] kind of speculative decoding"),
    # the padded drafter batch (0.11.1-0.32.0) and Mamba prefix caching (0.16.0), the uni-process backend (0.10.0-0.10.2)
    _sig("async_scheduling_incompatible", "async scheduling",
         r"^(?!.*will be disabled).*?async scheduling (?P<what>(?:is not (?:yet )?(?:supported|compatible) with|is only supported with) "
         r"(?:pipeline[-_]parallel[-_]size > 1|uni-process backend|disable_padded_drafter_batch=True|[\w/ ]+? kind of speculative decoding|prefix caching for Mamba models))", ERROR, flags=_I,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--async-scheduling was asked with a setting this release does not run it with: async scheduling {what}.",
         fix="Drop --async-scheduling (--no-async-scheduling; from 0.14 vLLM turns it on only where it runs), or the setting the message names.",
         versions="0.10.0-0.32.0", source="vllm/engine/arg_utils.py EngineArgs.create_engine_config (0.10.0-0.11.0), vllm/config/vllm.py VllmConfig.__post_init__ (0.11.1-0.32.0)"),
    _sig("src_async_scheduling_v1_runner", "async scheduling is not supported by the v1 model runner with", r"Async scheduling is not supported by the V1 model runner with (?P<what>[^.]+)", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--async-scheduling was asked with the V1 model runner and {what}, which it does not run with there.",
         fix="Drop --async-scheduling (--no-async-scheduling), or the setting the message names.",
         versions="0.33.0", source="vllm/config/vllm.py VllmConfig.__post_init__ (0.33.0); not in the 0.34.0 wheel"),
    _sig("src_pcp_needs_mrv2", "prefill context parallelism requires model runner v2", r"Prefill context parallelism requires Model Runner V2", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="--prefill-context-parallel-size above 1 was asked with the V1 model runner forced (VLLM_USE_V2_MODEL_RUNNER=0); only the V2 runner has it.",
         fix="Unset VLLM_USE_V2_MODEL_RUNNER (or set it to 1), or drop --prefill-context-parallel-size.",
         versions="0.27.1", source="vllm/config/vllm.py VllmConfig.__post_init__ (0.27.1)"),
    # 0.34.0 checks the environment before building any config (EngineArgs.create_engine_config ->
    # Platform.validate_environ): VLLM_USE_V2_MODEL_RUNNER other than 1, and a variable of
    # envs.removed_environment_variables, stop the start (versions.SERVE_ENV_REMOVED)
    _sig("src_v1_model_runner_removed", "is no longer supported: model runner v1 has been removed", r"VLLM_USE_V2_MODEL_RUNNER=(?P<value>\S*) is no longer supported: Model Runner V1 has been removed", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="VLLM_USE_V2_MODEL_RUNNER={value} asks for the V1 model runner, which this release no longer has (model runner v2 is the only one).",
         fix="Unset VLLM_USE_V2_MODEL_RUNNER (remove it from the environment, the compose file or the pod spec), or run a release before 0.34.0 for the V1 runner.",
         versions=">=0.34", source="vllm/platforms/interface.py Platform.validate_environ (0.34.0)"),
    _sig("src_env_variable_removed", "has been removed.", r"(?P<env>VLLM_[A-Z0-9_]+) has been removed\. (?P<hint>.+)$", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="{env} is set, and this release removed that variable: it stops the start instead of ignoring it ({hint}).",
         fix="Remove {env} from the server's environment (or the compose file / pod spec); the message names what replaces it.",
         versions=">=0.34", source="vllm/platforms/interface.py Platform.validate_environ, envs.py removed_environment_variables (0.34.0)"),
    _sig("src_microbatching_all2all", "microbatching currently only supports the", r"Microbatching currently only supports the .+? all2all backends", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="Dual-batch overlap (--enable-dbo / microbatching) was asked with an all2all backend it does not run on.",
         fix="Pass one of the --all2all-backend values the message lists (with its kernels installed), or drop --enable-dbo.",
         versions="0.27.1, 0.33.0", source="vllm/config/vllm.py VllmConfig.__post_init__ (0.27.1, 0.33.0)"),
    _sig("src_torch_shm_spawn", "torch_shm is known to fail without vllm_worker_multiproc_method", r"torch_shm is known to fail without VLLM_WORKER_MULTIPROC_METHOD set to spawn", ERROR,
         symptom="invalid_engine_flags", layer="vllm_version_flags", weight=0.9, fatal=True,
         cause="The multimodal tensor IPC torch_shm (--mm-tensor-ipc torch_shm) was asked while VLLM_WORKER_MULTIPROC_METHOD is not spawn; it fails with forked workers.",
         fix="Set VLLM_WORKER_MULTIPROC_METHOD=spawn, or leave --mm-tensor-ipc at its default.",
         versions="0.27.1, 0.33.0", source="vllm/config/vllm.py VllmConfig.__post_init__ (0.27.1, 0.33.0)"),
)

SIGNATURES_BY_NAME: Mapping[str, Signature] = MappingProxyType({s.name: s for s in SIGNATURES})
_ANCHORS: tuple[str, ...] = tuple(sorted({a for s in SIGNATURES for a in s.anchors}, key=len, reverse=True))


def _signatures_by_anchor() -> Mapping[str, tuple[Signature, ...]]:
    """Each anchor -> the signatures that carry it, in SIGNATURES' order: one pass over the signatures (asking every
    signature about every anchor took a seventh of a second at import, on each `kvplan` command)."""
    by_anchor: dict[str, list[Signature]] = {}
    for sig in SIGNATURES:
        for a in dict.fromkeys(sig.anchors):
            by_anchor.setdefault(a, []).append(sig)
    return MappingProxyType({a: tuple(by_anchor[a]) for a in _ANCHORS})


_SIGNATURES_BY_ANCHOR: Mapping[str, tuple[Signature, ...]] = _signatures_by_anchor()

# A line that talks about memory or the KV cache; if no signature reads it, it is
# reported in `unrecognised` rather than silently dropped.
_MEMORY_LOOKING = re.compile(
    r"kv[ _-]?cache|\bGiB\b|\d\s?GB\b|gpu blocks|cuda blocks|max(?:imum)? concurrency|cuda ?graph|graph captur|"
    r"tokens per request|max[ _]model[ _]len|max seq len|out of memory|gpu[_ ]memory[_ ]utilization|num_gpu_blocks|memory profil",
    _I,
)
# Cheap substring gates (lowercase) in front of the two regexes above and below: most lines of a
# long log hold none of these, and `in` is far cheaper than a case-insensitive alternation.
_MEMORY_WORDS = ("kv", "gib", "gb", "block", "concurrency", "graph", "tokens per request", "model_len", "model len",
                 "seq len", "memory", "utilization")
_ERROR_WORDS = ("error", "critical", "fatal", "traceback", "exception", "fail", "cannot", "not supported", "killed",
                "terminated", "oom")


# Lines that name KV cache or CUDA graphs and hold no startup figure: the serving statistics printed every few
# seconds once the server runs (vllm/v1/metrics/loggers.py LoggingStatLogger.log "Engine 000: Avg prompt throughput:
# ... GPU KV cache usage: X%", V0 vllm/engine/metrics.py; 0.9.1, 0.29.0), the capture's tqdm progress bar
# (vllm/v1/worker/gpu_model_runner.py capture_model "Capturing CUDA graphs (mode, ...)", V0 worker/model_runner.py
# "Capturing CUDA graph shapes"), custom all-reduce's "Registering N cuda graph addresses"
# (vllm/distributed/device_communicators/custom_all_reduce.py register_graph_buffers) and "Cudagraph is disabled
# under eager mode" (vllm/config/vllm.py, 0.33.0). A swept log of a day's serving held thousands of them, burying
# the lines `unrecognised` is there to show.
_NOT_A_FIGURE = re.compile(
    r"Avg prompt throughput: [\d.]+ tokens/s|Capturing CUDA graphs?\b.*\d+%\||^Registering \d+ cuda graph addresses|"
    r"^Cudagraph is disabled under eager mode|"
    # one DEBUG line per captured size (vllm/compilation/cuda_graph.py CUDAGraphWrapper.__call__, 0.19.0)
    r"^Capturing a cudagraph on \(")


def looks_memory_related(message: str, lowered: str) -> bool:
    return (any(w in lowered for w in _MEMORY_WORDS) and _MEMORY_LOOKING.search(message) is not None
            and _NOT_A_FIGURE.search(message) is None)


def looks_like_error(message: str, lowered: str) -> bool:
    return any(w in lowered for w in _ERROR_WORDS) and _ERROR_LOOKING.search(message) is not None


# A line that looks like an error (shown when nothing is recognised).
_ERROR_LOOKING = re.compile(
    r"\b(?:ERROR|CRITICAL|FATAL)\b|Traceback|(?:Error|Exception)\b:|\bfailed\b|\bcannot\b|\bnot supported\b|\bkilled\b|\bterminated\b|\bOOM\b",
    _I,
)

# --------------------------------------------------------------------------------------
# Line cleaning
# --------------------------------------------------------------------------------------

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]")
# Process prefixes vLLM and Ray put before a line, possibly several:
# (EngineCore_DP0 pid=1), (Worker_TP1 pid=2), (VllmWorkerProcess pid=3), (VllmWorker rank=0 pid=4),
# (RayWorkerWrapper pid=5, ip=10.0.0.1), (APIServer pid=6), (raylet) ...
_PROC_PREFIX = re.compile(r"^\s*\((?P<proc>[\w .\-]*?(?:pid=\d+|rank=\d+|ip=[\d.]+|raylet)[^)]*|[A-Za-z_]*Worker[\w ]*|EngineCore\w*|APIServer)\)\s*")
# Container / orchestrator prefixes: "vllm-1  | ", "[2026-01-28T23:59:42Z] ", "2024-02-08T08:40:56.16Z ",
# "vLLM STDOUT: ", "Feb 09 23:20:07.759 | ".
_OUTER_PREFIX = re.compile(
    r"^\s*(?:[\w.\-]+\s+\|\s+|\[\d{4}-\d\d-\d\dT[\d:.]+Z?\]\s*|\d{4}-\d\d-\d\dT[\d:.]+Z?\s+|vLLM STD(?:OUT|ERR):\s*|[A-Z][a-z]{2} \d\d [\d:.]+ \|\s*)"
)
_LEVEL_HEADER = re.compile(
    r"^\s*(?P<level>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s+\d\d-\d\d\s+\d\d:\d\d:\d\d(?:\.\d+)?\s+(?:\[[^\]]*\]|[\w./\-]+:\d+\])\s?"
)
_RANK = re.compile(r"(?:rank=|_TP|TP)(?P<rank>\d+)|ip=(?P<ip>[\d.]+)")

MAX_LINE_CHARS = 64 * 1024
MAX_KEPT_LINES = 200
KEPT_LINE_CHARS = 500  # a line kept in last_lines, errors, error_lines or unrecognised is cut here (a hit's text at 2000)
LAST_LINES_KEPT = 20
MAX_HITS = 5000


@dataclass(frozen=True)
class LogLine:
    """One cleaned line: its number in the input, the level, the process tag and the message; the line as read, and
    without its colours but with its prefixes (the platform evidence reads the logger prefix: _platform_evidence)."""

    number: int
    level: Optional[str]
    process: Optional[str]
    message: str
    raw: str
    plain: str


def clean_line(raw: str, number: int = 0) -> LogLine:
    """Strip colours and the container, process and logger prefixes of one line (the one place colours are stripped)."""
    raw = raw.rstrip("\r\n")
    plain = _ANSI.sub("", raw)
    text = plain.replace("\x00", "").rstrip()
    for _ in range(3):
        stripped = _OUTER_PREFIX.sub("", text, count=1)
        if stripped == text:
            break
        text = stripped
    process = None
    while True:
        m = _PROC_PREFIX.match(text)
        if not m:
            break
        process = m.group("proc") if process is None else f"{process} {m.group('proc')}"
        text = text[m.end():]
    level = None
    m = _LEVEL_HEADER.match(text)
    if m:
        level = m.group("level").replace("WARN", "WARNING").replace("WARNINGING", "WARNING")
        text = text[m.end():]
        m2 = _PROC_PREFIX.match(text)  # ERROR lines sometimes carry the prefix after the header
        if m2:
            process = m2.group("proc")
            text = text[m2.end():]
    return LogLine(number=number, level=level, process=process, message=text.strip(), raw=raw, plain=plain)


def _rank_of(process: Optional[str]) -> Optional[str]:
    if not process:
        return None
    m = _RANK.search(process)
    if not m:
        return None
    return m.group("rank") if m.group("rank") is not None else m.group("ip")


# --------------------------------------------------------------------------------------
# Streaming input
# --------------------------------------------------------------------------------------

Source = Union[str, os.PathLike, bytes, IO[bytes], IO[str], Iterable[str]]
_CHUNK_BYTES = 1 << 20


@dataclass
class _ReadStats:
    lines: int = 0
    undecodable_lines: int = 0
    cut_lines: int = 0
    ended_mid_line: bool = False
    startups: int = 1
    first_line: int = 1
    text_lines: int = 0
    # (startup's first line, the fatal line) of each earlier startup in the text that failed: only its last is read
    earlier_failures: list = field(default_factory=list)
    # (line number, line) of the first line showing vLLM's ROCm build / WSL, and the AMD card a line names (platform_evidence)
    rocm_line: Optional[tuple] = None
    wsl2_line: Optional[tuple] = None
    amd_device_name: Optional[str] = None


class _Cont(str):
    """A piece of a line that ended in a lone carriage return (a tqdm bar's update, or the vLLM line a bar's last
    update runs into): the next piece is on the same line of the file, so line numbers stay those an editor, grep -n
    and the user see."""

    __slots__ = ()


def _split_raw(data: bytes) -> list[bytes]:
    """Pieces and the separators after them, alternating (the last piece has none: the carry)."""
    return re.split(rb"(\r\n|\n|\r)", data)


def _iter_binary(stream: IO[bytes], stats: _ReadStats) -> Iterator[str]:
    """Yield decoded lines from a binary stream, reading 1 MiB at a time.

    A line longer than MAX_LINE_CHARS is cut (and counted); invalid UTF-8 becomes U+FFFD.
    """
    carry = b""
    skipping = False
    while True:
        chunk = stream.read(_CHUNK_BYTES)
        if not chunk:
            break
        parts = _split_raw(carry + chunk)
        carry = parts.pop()
        for part, sep in zip(parts[::2], parts[1::2]):
            if skipping:
                skipping = False
                continue
            text = _decode(part, stats)
            yield _Cont(text) if sep == b"\r" else text
        if len(carry) > MAX_LINE_CHARS:
            if not skipping:
                stats.cut_lines += 1
                yield _decode(carry[:MAX_LINE_CHARS], stats)
            skipping = True
            carry = b""
    if carry and not skipping:
        stats.ended_mid_line = True
        yield _decode(carry, stats)


def _decode(part: bytes, stats: _ReadStats) -> str:
    text = part.decode("utf-8", errors="replace")
    if "\ufffd" in text or "\x00" in text:
        stats.undecodable_lines += 1
    return text


def _iter_text(lines: Iterable[str], stats: _ReadStats) -> Iterator[str]:
    for item in lines:
        if isinstance(item, bytes):
            item = _decode(item, stats)
        parts = re.split(r"(\r\n|\n|\r)", item)
        if len(parts) > 1 and parts[-1] == "":  # a line read with its newline: no empty line after it
            parts = parts[:-2] + [parts[-2]]
        for piece, sep in zip(parts[::2], parts[1::2] + [""]):
            if len(piece) > MAX_LINE_CHARS:
                stats.cut_lines += 1
                piece = piece[:MAX_LINE_CHARS]
            if "\ufffd" in piece or "\x00" in piece:
                stats.undecodable_lines += 1
            yield _Cont(piece) if sep == "\r" else piece


def _iter_stream(stream: IO[bytes], stats: _ReadStats) -> Iterator[str]:
    """Lines of a binary stream (already un-gzipped): UTF-16 when it starts with its byte-order mark, else UTF-8."""
    encoding = utf16_encoding(stream)
    if encoding:
        # newline="": each line keeps its own ending, so a lone carriage return stays within its line's number
        text = io.TextIOWrapper(stream, encoding=encoding, errors="replace", newline="")
        yield from _iter_text(text, stats)
    else:
        yield from _iter_binary(stream, stats)


# what a log file must be, as the errors about one that is not say it
LOG_EXPECTED = "a vLLM server's text output (plain, gzip, or UTF-16 with a byte-order mark)"


def _open_lines(source: Source, stats: _ReadStats) -> Iterator[str]:
    if isinstance(source, (bytes, bytearray)):  # the bytes of a file, read as the file is: gzip, UTF-16 or UTF-8
        yield from _iter_stream(open_binary(io.BytesIO(bytes(source))), stats)
    elif isinstance(source, (str, os.PathLike)) and not (isinstance(source, str) and "\n" in source):
        with open_binary(Path(source)) as fh:
            yield from _iter_stream(fh, stats)
    elif isinstance(source, str):
        yield from _iter_text([source], stats)
    elif hasattr(source, "read"):
        probe = source.read(0)
        if isinstance(probe, bytes):
            yield from _iter_stream(open_binary(source), stats)
        else:
            yield from _iter_text(iter(lambda: source.readline(), ""), stats)  # type: ignore[union-attr]
    else:
        yield from _iter_text(source, stats)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------
# The parse result
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SignatureHit:
    """A line one signature matched: which, where, the cleaned text and the named groups."""

    signature: str
    line_number: int
    level: Optional[str]
    text: str
    groups: Mapping[str, Optional[str]]

    @property
    def sig(self) -> Signature:
        return SIGNATURES_BY_NAME[self.signature]


@dataclass(frozen=True)
class StartupLog:
    """What one vLLM startup log says. GiB as printed; per-rank figures are one rank's.

    Where several ranks print a figure, the KV figures (pool, blocks, tokens,
    concurrency) are the smallest rank's, since vLLM sizes the pool by the smallest
    rank; other figures are the first printed. Every rank's value is in `rank_values`.
    """

    vllm_version: Optional[str] = None
    model: Optional[str] = None
    model_names: tuple[str, ...] = ()  # every name the log gives the served model: args, command, load line, served names
    model_paths: tuple[str, ...] = ()  # those naming the checkpoint loaded (a path or repo id), not --served-model-name aliases
    engine_args: Mapping[str, Any] = field(default_factory=dict)
    engine_config: Mapping[str, Any] = field(default_factory=dict)
    command_args: Mapping[str, Any] = field(default_factory=dict)
    era: Optional[str] = None
    total_gib: Optional[float] = None
    moe_device_name: Optional[str] = None  # the GPU as the fused-MoE config file names it ('NVIDIA_GeForce_RTX_3090')
    free_at_start_gib: Optional[float] = None
    requested_gib: Optional[float] = None
    gpu_memory_utilization: Optional[float] = None
    weights_gib: Optional[float] = None
    load_seconds: Optional[float] = None
    non_torch_gib: Optional[float] = None
    activation_peak_gib: Optional[float] = None
    consumed_gib: Optional[float] = None
    kv_cache_gib: Optional[float] = None
    kv_cache_in_use_gib: Optional[float] = None
    num_gpu_blocks: Optional[int] = None
    num_cpu_blocks: Optional[int] = None
    overridden_gpu_blocks: Optional[int] = None
    kv_cache_tokens: Optional[int] = None
    max_concurrency: Optional[float] = None
    concurrency_len: Optional[int] = None
    cudagraph_gib: Optional[float] = None
    cudagraph_estimated_gib: Optional[float] = None
    cudagraph_actual_gib: Optional[float] = None
    # vLLM >= 0.34's extensible KV cache, sized after warmup and CUDA-graph capture (the "Memory after warmup" line,
    # v1/worker/extensible_kv_cache.py measure_kv_cache_blocks): where it ran, kv_cache_gib and num_gpu_blocks are the
    # measured pool (the smallest rank's "N KV cache blocks (X GiB)") and profiled_kv_cache_gib is the profile's
    # "Available KV cache memory", the capacity the address range was reserved for
    extensible_kv_cache: Optional[bool] = None  # True: sized after warmup; False: the log says it was turned off
    profiled_kv_cache_gib: Optional[float] = None
    warmup_free_gib: Optional[float] = None  # free device memory after warmup and capture
    warmup_committed_gib: Optional[float] = None  # KV-cache memory warmup had committed when it was measured
    transient_kept_gib: Optional[float] = None  # kept free for transient activations: max(peak, torch growth)
    transient_peak_gib: Optional[float] = None  # the profiled or warmup allocated peak
    torch_growth_gib: Optional[float] = None  # torch's reservation growth during warmup
    warmup_kv_blocks: Optional[int] = None
    warmup_kv_gib: Optional[float] = None  # the blocks' bytes (unpadded)
    warmup_requested_gib: Optional[float] = None  # the budget the pool had to fit in: total x gpu_memory_utilization
    torch_limit_gib: Optional[float] = None  # the cap set on torch's caching allocator afterwards
    extended_kv_blocks: Optional[int] = None  # "Extended KV cache to N blocks (X GiB)": the committed pool
    extended_kv_gib: Optional[float] = None  # its physical bytes (padded to the driver's granule)
    graph_capture_seconds: Optional[float] = None
    attention_backend: Optional[str] = None
    attention_backend_candidates: tuple[str, ...] = ()
    max_model_len: Optional[int] = None
    max_num_batched_tokens: Optional[int] = None
    block_size: Optional[int] = None
    fits: Optional[bool] = None
    started: Optional[bool] = None
    estimated_max_model_len: Optional[int] = None
    rank_values: Mapping[str, tuple] = field(default_factory=dict)
    worker_ranks_seen: Optional[int] = None  # the highest numbered worker rank in the line prefixes, plus one
    warnings: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    hits: tuple[SignatureHit, ...] = ()
    unrecognised: tuple[str, ...] = ()
    unrecognised_count: int = 0
    error_lines: tuple[str, ...] = ()
    last_lines: tuple[str, ...] = ()
    parse_warnings: tuple[str, ...] = ()
    lines_read: int = 0
    startups: int = 1  # startups found in the text; the figures are the last one's
    first_line: int = 1  # where the last startup begins
    text_lines: int = 0  # lines with text once prefixes are stripped
    undecodable_lines: int = 0  # lines holding bytes that are not text
    # the platform the whole text shows (any of its startups: one machine's output), as (line number, line) of the first
    # line that shows it, and the AMD card a line names ('AMD Instinct MI300X'): _platform_evidence
    rocm_line: Optional[tuple[int, str]] = None
    wsl2_line: Optional[tuple[int, str]] = None
    amd_device_name: Optional[str] = None
    api_server_seen: bool = False  # a line of this startup carries the (APIServer pid=N) or (ApiServer_N pid=M) prefix
    # of vllm serve's front-end process

    # ---- views ------------------------------------------------------------------------
    @property
    def offline_llm(self) -> bool:
        """Whether the engine was built by vllm.LLM(...) in Python (a notebook, a script): its 'non-default args' line
        states disable_log_stats=True, which LLM.__init__ sets itself unless given ("if 'disable_log_stats' not in
        kwargs: kwargs['disable_log_stats'] = True" before log_non_default_args(engine_args), vllm/entrypoints/llm.py,
        0.6 to 0.33), and no line shows an API server: no (APIServer pid=N) or (ApiServer_N pid=M) prefix, no 'vLLM API server version' or
        'Starting vLLM API server' line, no vllm serve or api_server command line. Its defaults are vllm.LLM's (the
        plan's entrypoint "llm": a larger token budget). A server given --disable-log-stats whose log was cut down to
        its engine's lines would read as one."""
        if self.engine_args.get("disable_log_stats") is not True or self.api_server_seen:
            return False
        return not self.has("version_api_server", "server_starting", "command_line")

    @property
    def flashinfer_sampling(self) -> Optional[bool]:
        """Whether the sampler logged FlashInfer's top-k/top-p kernel (True), the PyTorch-native fallback (False), or
        neither (None)."""
        if self.has("sampler_flashinfer"):
            return True
        return False if self.has("sampler_native") else None

    @property
    def compile_cache(self) -> Optional[str]:
        """How this start got its torch.compile graphs: "cold" where Inductor compiled them ('Compiling a graph for ...
        takes N s', or the compile cache disabled), "warm" where they were loaded from vLLM's compile cache ('Directly
        load the compiled graph(s) ... from the cache', 'Directly load AOT compilation'), None where the log says
        neither (--enforce-eager, V0, or lines cut). A cold compile runs inside the memory profile: the profile run is
        the model's first forward (vllm/compilation/decorators.py; v1/worker/gpu_worker.py determine_available_memory)."""
        if self.has("compile_cold", "compile_cache_disabled"):
            return "cold"
        return "warm" if self.has("compile_warm", "compile_aot_warm") else None

    @property
    def skip_mm_profiling(self) -> bool:
        """Whether the server ran with --skip-mm-profiling: in its non-default args, or the V1 runner's line saying the
        profile run skipped the encoder pass."""
        return bool(self.arg("skip_mm_profiling")) or self.has("mm_profiling_skipped")

    def hits_of(self, *names: str) -> tuple[SignatureHit, ...]:
        return tuple(h for h in self.hits if h.signature in names)

    def parse_warnings_listed(self, where: str) -> tuple[str, ...]:
        """parse_warnings for a reader that does not list `unrecognised` itself: the warning on the lines not recognised
        points to `where` they are listed instead (kvplan diagnose: "`kvplan reconcile` lists them")."""
        own = unrecognised_warning(self.unrecognised_count)
        return tuple(unrecognised_warning(self.unrecognised_count, where) if w == own else w for w in self.parse_warnings)

    def has(self, *names: str) -> bool:
        return any(h.signature in names for h in self.hits)

    @property
    def figures(self) -> dict[str, Any]:
        """The memory figures read (those not None)."""
        keys = (
            "weights_gib", "non_torch_gib", "activation_peak_gib", "consumed_gib", "cudagraph_gib",
            "cudagraph_estimated_gib", "cudagraph_actual_gib", "kv_cache_gib", "num_gpu_blocks",
            "kv_cache_tokens", "max_concurrency", "total_gib", "requested_gib", "block_size",
            "max_model_len", "kv_cache_in_use_gib", "profiled_kv_cache_gib", "warmup_free_gib", "transient_kept_gib",
            "transient_peak_gib", "torch_growth_gib", "warmup_kv_blocks", "warmup_kv_gib", "warmup_requested_gib",
            "torch_limit_gib", "extended_kv_gib",
        )
        return {k: getattr(self, k) for k in keys if getattr(self, k) is not None}

    @property
    def cudagraph_taken_gib(self) -> Optional[float]:
        """The memory the CUDA-graph capture took: the capture line's figure, else the post-capture summary's actual."""
        return self.cudagraph_gib if self.cudagraph_gib is not None else self.cudagraph_actual_gib

    def arg_or_printed(self, name: str):
        """An engine argument as `arg` reads it, else, for one of PRINTED_ARGS, the value the engine printed."""
        value = self.arg(name)
        return getattr(self, name) if value is None and name in PRINTED_ARGS else value

    @property
    def benchmark(self) -> Optional[str]:
        """"latency" or "throughput" where the log is one of vLLM's offline benchmarks (`vllm bench latency|throughput`,
        benchmarks/benchmark_latency.py / benchmark_throughput.py: the command line, or the script's printed Namespace),
        "offline" for a printed Namespace that names neither; None for a server's log. Such a run builds the engine
        in-process with vllm.LLM (vllm/benchmarks/latency.py main: LLM.from_engine_args; 0.10.2, 0.20.0), whose
        defaults are vllm.LLM's, not vllm serve's (the entrypoint "llm" of a plan)."""
        for hit in self.hits:
            if hit.signature == "bench_command":
                return hit.groups.get("kind") or hit.groups.get("script")
            if hit.signature == "bench_namespace":
                body = str(hit.groups.get("body") or "")
                return ("latency" if re.search(r"\bnum_iters=", body) else
                        "throughput" if re.search(r"\bnum_prompts=", body) else "offline")
        return None

    # where each source of `arg` comes from: the signatures whose lines fill it, as a reader names them
    _ARG_SOURCES = (("engine_args", (("non_default_args", "the 'non-default args' line"),
                                     ("namespace_args", "the 'args: Namespace(...)' line"),
                                     ("bench_namespace", "the benchmark's printed Namespace(...)"))),
                    ("command_args", (("command_line", "the command line"), ("bench_command", "the benchmark command line"))),
                    ("engine_config", (("engine_config", "the engine's 'with config:' line"),)))

    def arg_origin(self, name: str) -> Optional[str]:
        """Where `arg(name)` was read: the kind of line and its number ("the benchmark's printed Namespace(...), line
        8"); for one of PRINTED_ARGS that no argument line states, the engine's own line printing it; None where the log
        does not state it."""
        for source, signatures in self._ARG_SOURCES:
            values = getattr(self, source)
            if name in values and values[name] is not None:
                for signature, label in signatures:
                    hit = next((h for h in self.hits if h.signature == signature), None)
                    if hit is not None:
                        return f"{label}, line {hit.line_number}"
        if name in PRINTED_ARGS and getattr(self, name) is not None:
            return "printed by the engine"
        return None

    def arg(self, name: str, default=None):
        """An engine argument: as given on the command line or in non-default args, else the resolved config."""
        for source in (self.engine_args, self.command_args, self.engine_config):
            if name in source and source[name] is not None:
                return source[name]
        return default

    def explicit_hybrid_manager_on(self) -> bool:
        """Whether the log's arguments give --no-disable-hybrid-kv-cache-manager where it is not the default: a release
        from 0.13 (SchedulerConfig's `bool | None = None`: rules row hybrid_flag_explicit_on), whose non-default args
        and Namespace print False only when given (up to 0.12 the Namespace prints the default False)."""
        if str(self.given_arg("disable_hybrid_kv_cache_manager")).strip().lower() != "false":
            return False
        parts = re.findall(r"\d+", self.vllm_version or "")[:3]
        if len(parts) < 2:  # no release to place the flag's meaning in: not read
            return False
        return bool(rule_at("hybrid_flag_explicit_on", tuple(int(p) for p in parts) + (0,) * (3 - len(parts))))

    def kv_transfer_given(self) -> dict | None:
        """--kv-transfer-config as the log's arguments give it (non-default args, Namespace, the command line): its
        connector fields (kv_transfer_from_text), None where not given."""
        raw = self.given_arg("kv_transfer_config")
        if raw is None or str(raw).strip() in ("", "None"):
            return None
        return kv_transfer_from_text(json.dumps(raw) if isinstance(raw, dict) else str(raw))

    def given_arg(self, name: str):
        """An engine argument as the user gave it (non-default args, the command line), never the engine config's
        resolved value, which vLLM sets itself for some (the load format of a bitsandbytes or GGUF checkpoint, the
        custom all-reduce on ROCm / multi-node); None where not given."""
        for source in (self.engine_args, self.command_args):
            if source.get(name) is not None:
                return source[name]
        return None

    @property
    def given_load_format(self) -> Optional[str]:
        """--load-format as given (given_arg); LoadFormat.X as an enum prints it, lowercased."""
        value = self.given_arg("load_format")
        if value is None:
            return None
        text = str(value).strip().strip("'\"")
        return text.split(".", 1)[1].lower() if text.startswith("LoadFormat.") else text

    @property
    def runner(self) -> Optional[str]:
        """How vLLM served the model: --runner as given or resolved, or the older --task (embed, classify, score,
        reward = pooling; vLLM PR #21470); None where the log does not say."""
        hits = self.hits_of("runner_resolved")
        if hits and hits[-1].groups.get("runner") in ("generate", "pooling"):
            return hits[-1].groups["runner"]
        runner = self.arg("runner")
        if runner in ("generate", "pooling"):
            return runner
        task = self.arg("task")
        if task in ("embed", "embedding", "classify", "score", "reward"):
            return "pooling"
        if task == "generate":
            return "generate"
        return None

    def eplb_given(self) -> dict:
        """--enable-eplb, the redundant experts (--num-redundant-experts, 0.9.2-0.11.x, or --eplb-config's
        num_redundant_experts / window_size / communicator, printed as a dict or as EPLBConfig(...)) and
        --all2all-backend, as the log's arguments state them."""
        out: dict = {}
        if self.arg("enable_eplb"):
            out["enable_eplb"] = True
        n = as_int(self.arg("num_redundant_experts"))
        if n:
            out["num_redundant_experts"] = n
        raw = self.arg("eplb_config")
        if raw and not isinstance(raw, dict):
            raw = parse_config_text(str(raw))
        if raw:
            settings = {k: raw[k] for k in ("num_redundant_experts", "window_size", "communicator") if raw.get(k) is not None}
            if settings:
                out["eplb_config"] = settings
        backend = str(self.arg("all2all_backend") or "").strip().strip("'\"")
        if backend and backend != "None":
            out["all2all_backend"] = backend
        return out

    def capture_settings_given(self) -> dict:
        """--cudagraph-capture-sizes / --max-cudagraph-capture-size (flags of `vllm serve` from 0.11.1, vllm/engine/
        arg_utils.py EngineArgs.cudagraph_capture_sizes / max_cudagraph_capture_size) as the server was given them: its
        'non-default args' dict (or Namespace line) or command line, or the --compilation-config (-cc) it was given,
        {"cudagraph_capture_sizes": [...]} (CompilationConfig fields of the same names); and 0.9.0-0.12.x's
        --cuda-graph-sizes (EngineArgs.cuda_graph_sizes, a list whose default, [512] in 0.9 and [] from 0.10, non-default
        args leaves out). Not the engine-config line's
        compilation_config: from 0.11.1 it prints the sizes vLLM resolved on every start (the default grid included,
        [] where nothing is captured), a result and not a setting; a plan given it would call the default grid given."""
        found: dict[str, Any] = {}
        for source in (self.engine_args, self.command_args):
            comp = source.get("compilation_config")
            if isinstance(comp, str) and comp.strip().startswith("{"):
                comp = _literal(comp.strip())
                if not isinstance(comp, dict):  # JSON's true/false/null: read as JSON where Python's literal fails
                    try:
                        comp = json_loads(source["compilation_config"])
                    except ValueError:
                        comp = None
            for name in ("cudagraph_capture_sizes", "max_cudagraph_capture_size", "cuda_graph_sizes"):
                for value in (source.get(name), comp.get(name) if isinstance(comp, dict) else None):
                    if value not in (None, "", [], ()) and name not in found:
                        found[name] = list(value) if isinstance(value, tuple) else value
        return found

    def config_overrides_given(self) -> dict:
        """--hf-overrides / --rope-scaling / --rope-theta as the server was given them: its 'non-default args' dict
        ({'hf_overrides': {'architectures': [...]}}, vLLM issue #19219, 0.9.1; {'rope_scaling': {'rope_type': 'yarn',
        ...}} in DaisukeTakai/eval_dataset's vllm.log, 0.10.0), Namespace line or command line; else the
        keys ModelConfig says it set ('Overriding HF config with {...}'), as --hf-overrides. {} where the log names none."""
        found = {name: self.arg(name) for name in ("hf_overrides", "rope_scaling", "rope_theta")
                 if self.arg(name) not in (None, "", {}, "None")}
        if not found and isinstance(self.arg("hf_config_overridden"), dict):
            found["hf_overrides"] = self.arg("hf_config_overridden")
        return found

    def pooler_config_given(self) -> dict:
        """--pooler-config / --override-pooler-config as the server was given them, by the name the log gives, as the
        JSON of the pooling types they set ({"pooler_config": '{"pooling_type": "MEAN"}'}: pooler_types), read from its
        'non-default args' dict, Namespace line or command line (whole, or field by field: --pooler-config.pooling_type
        MEAN). Not the engine-config line's pooler_config=...: vLLM prints there the PoolerConfig its ModelConfig
        resolved (the checkpoint's sentence-transformers Pooling config filled in: ModelConfig._init_pooler_config,
        config/model.py, 0.12.0 wheel), a result and not a setting. {} where the log gives no pooling type."""
        found: dict[str, str] = {}
        for name in _POOLER_ARGS:
            for source in (self.engine_args, self.command_args):
                value = source.get(name)
                if value in (None, "", "None"):  # the fields a command line gives one by one
                    value = {key[len(name) + 1:]: v for key, v in source.items()
                             if key.startswith(name + ".") and isinstance(v, str)} or None
                types = pooler_types(value) if value is not None else {}
                if types:
                    found[name] = json.dumps(types)
                    break
        return found

    def to_record(self) -> dict:
        """The realized startup in the startup-record format; what the log does not say is null."""
        tp = as_int(self.arg("tensor_parallel_size"))
        pp = as_int(self.arg("pipeline_parallel_size"))
        count = (tp or 1) * (pp or 1) if (tp or pp) else None
        args = {name: self.arg(name) for name in RECORD_ARG_NAMES}
        if self.arg("speculative_config"):  # beyond the record format, kept where the log states it
            args["speculative_config"] = self.arg("speculative_config")
        if self.benchmark or self.offline_llm:  # beyond the record format: an offline benchmark's engine, or one a
            # notebook's vllm.LLM(...) built, is vllm.LLM's, with its defaults
            args["entrypoint"] = "llm"
        runner = self.runner
        if runner:  # beyond the record format too: a pooling model loads no lm_head and runs no sampler
            args["runner"] = runner
        lora_on = bool(self.arg("enable_lora"))
        for name in ("enable_lora", "max_loras", "max_lora_rank", "fully_sharded_loras", "max_cpu_loras", "lora_target_modules",
                     "cpu_offload_gb", "limit_mm_per_prompt", "language_model_only", "kv_cache_memory_bytes"):
            if name in _LORA_SLOT_ARGS and not lora_on:
                # vLLM builds its LoRA config only with enable_lora (vllm/engine/arg_utils.py
                # EngineArgs.create_engine_config, 0.7.2: `LoRAConfig(...) if self.enable_lora else None`); the
                # Namespace line of vLLM <= 0.8 prints every default (max_loras=1, max_lora_rank=16) beside
                # enable_lora=False: slots nobody reserved
                continue
            if self.arg(name):  # memory the plan must count: LoRA slots, weights kept in CPU memory, the encoder pass,
                # the pool the server was told to take
                args[name] = self.arg(name)
        if self.arg("allow_deprecated_quantization"):  # a deprecated method the server was let start with
            args["allow_deprecated_quantization"] = True
        moe = str(self.arg("moe_backend") or "").strip().strip("'\"")
        if moe and moe != "auto":  # the MoE experts' kernel asked for (plan.serve_flags.moe_backend): Marlin's padding and workspace
            args["moe_backend"] = moe
        if self.arg("gdn_prefill_backend"):  # the GDN prefill kernel asked for: FlashInfer's checkpoints set a hybrid's
            # block size (plan.kv.gdn_prefill)
            args["gdn_prefill_backend"] = self.arg("gdn_prefill_backend")
        if self.skip_mm_profiling:  # the encoder pass the profile run left out of the peak
            args["skip_mm_profiling"] = True
        if str(self.arg("enable_sleep_mode")).strip().lower() == "true":  # the CuMem pools (plan.serve_flags): vLLM's
            # refusals on the platform and the allocator config, the weights' block rounding under expandable segments
            args["enable_sleep_mode"] = True
        if str(self.given_arg("disable_custom_all_reduce")).strip().lower() == "true":  # as given (given_arg), not
            # the engine line's resolved value, which vLLM sets itself on ROCm up to 0.8.2, on multi-node and under
            # VLLM_BATCH_INVARIANT: NCCL instead of the custom kernel (plan.terms custom_allreduce_says)
            args["disable_custom_all_reduce"] = True
        for name in ("disable_hybrid_kv_cache_manager", "disable_sliding_window"):
            if str(self.given_arg(name)).strip().lower() == "true":  # as given (non-default args, Namespace, command),
                # not a resolved value vLLM sets itself (the hybrid manager off for a KV connector or chunked local
                # attention, the window dropped for a config's sliding_window 0): window layers as full attention
                # (plan.kv._windows_kept, plan.planner.sliding_window_disabled)
                args[name] = True
        override = as_int(self.given_arg("num_gpu_blocks_override"))
        if override is None and self.overridden_gpu_blocks:  # the 'Overriding num_gpu_blocks=N with
            # num_gpu_blocks_override=M' line of a sized pool (0.18+'s minimal profiling cache reads 0 and is left out)
            override = as_int(self.num_gpu_blocks)
        if override is not None:  # the blocks given: the pool's count, replacing the profiled one (plan.planner)
            args["num_gpu_blocks_override"] = override
        mamba_block = as_int(self.given_arg("mamba_block_size"))
        if mamba_block is not None:  # a Mamba / GDN state block's tokens under prefix caching (plan.kv)
            args["mamba_block_size"] = mamba_block
        if str(self.given_arg("calculate_kv_scales")).strip().lower() == "true":  # said, moves nothing (plan.planner)
            args["calculate_kv_scales"] = True
        if self.explicit_hybrid_manager_on():  # --no-disable-hybrid-kv-cache-manager (0.13+): kept on for a connector
            args["disable_hybrid_kv_cache_manager"] = False
        kv_transfer = self.kv_transfer_given()
        if kv_transfer:  # the KV connector (plan.kv_transfer): the hybrid manager it turns off, vLLM's checks
            args["kv_transfer_config"] = kv_transfer
        load_format = self.given_load_format
        if load_format and load_format != "auto":  # the loader (plan.serve_flags): vLLM's refusals, the plan's notes
            args["load_format"] = load_format
        stated = str(self.arg("async_scheduling", "")).strip().strip("'\"").lower()
        if stated in ("true", "false"):  # stated (the non-default args, the command line, the engine config), False
            # included: from 0.26 the steps in flight a sliding-window request holds tokens for (plan.serve_flags)
            args["async_scheduling"] = stated == "true"
        if self.arg("enable_chunked_prefill") is not None:  # stated, False included: it sets the step's token budget
            args["enable_chunked_prefill"] = self.arg("enable_chunked_prefill")
        if (as_int(self.arg("data_parallel_size")) or 1) > 1:  # engines, each with its own pool
            args["data_parallel_size"] = as_int(self.arg("data_parallel_size"))
        if (as_int(self.arg("prefill_context_parallel_size")) or 1) > 1:  # -pcp: TP x PP x PCP ranks per engine
            args["prefill_context_parallel_size"] = as_int(self.arg("prefill_context_parallel_size"))
        if (as_int(self.arg("decode_context_parallel_size")) or 1) > 1:  # -dcp: each rank keeps 1/dcp of the tokens
            # (the non-default args, the command line, or the engine config line's decode_context_parallel_size=D)
            args["decode_context_parallel_size"] = as_int(self.arg("decode_context_parallel_size"))
        for name in ("dcp_kv_cache_interleave_size", "cp_kv_cache_interleave_size"):  # where DCP places tokens (0.11.1+ /
            # 0.12+): the non-default args or the command line; vLLM's engine config line does not print them
            if as_int(self.arg(name)) is not None:
                args[name] = as_int(self.arg(name))
        if self.arg("enable_expert_parallel"):
            args["enable_expert_parallel"] = self.arg("enable_expert_parallel")
        args.update(self.eplb_given())  # EPLB's redundant experts: more experts on every rank, and the balancer's state
        perf = str(self.arg("performance_mode") or "").strip().strip("'\"").lower()
        if perf in ("interactivity", "throughput"):  # --performance-mode (0.17+): the capture grid, the batch defaults
            args["performance_mode"] = perf
        args.update(self.capture_settings_given())  # the CUDA-graph capture sizes the server was told to capture at
        args.update(self.config_overrides_given())  # the keys set on the model's config: the plan derives from them
        args.update(self.pooler_config_given())  # a pooling model's pooling type: V1's chunked-prefill / prefix-caching default
        for name in PRINTED_ARGS:
            args[name] = self.arg_or_printed(name)
        if args["max_model_len"] is None:  # else the concurrency line's length: vLLM prints it for max_model_len
            # (V0 executor_base.py, V1 v1/core/kv_cache_utils.py)
            args["max_model_len"] = self.concurrency_len
        notes = [f"parsed by kvplan from {self.lines_read} log lines"]
        if self.attention_backend:
            notes.append(f"attention backend {self.attention_backend}")
        if self.flashinfer_sampling:  # the kernel sizes the profile's sampler peak; the variable's own value is unseen
            args["env"] = {"VLLM_USE_FLASHINFER_SAMPLER": "1"}
            notes.append("env VLLM_USE_FLASHINFER_SAMPLER=1 stands for the logged 'Using FlashInfer for top-p & top-k "
                         "sampling' (the kernel it selects; the server may have left the variable unset where its release "
                         "takes FlashInfer whenever flashinfer imports)")
        if self.compile_cache:  # a cold compile runs inside the memory profile: the same command can get a larger pool warm
            notes.append(f"torch.compile {self.compile_cache} start ("
                         + ("Inductor compiled the graphs inside the memory profile)" if self.compile_cache == "cold"
                            else "graphs loaded from vLLM's compile cache)"))
        notes.extend(self.warnings)
        notes.extend(self.parse_warnings)
        return {
            "id": None,
            "source": None,
            "vllm_version": self.vllm_version,
            "model": {"id": self.model, "config": None, "quant_config": None, "weights_bytes": None},
            "gpu": {"name": None, "total_gib": self.total_gib, "count": count,
                    **({"wsl2": True} if self.wsl2_line else {})},  # validate plans it with the card's WSL2 total
            "args": args,
            "observed": {
                "weights_gib": self.weights_gib,
                "non_torch_gib": self.non_torch_gib,
                "activation_peak_gib": self.activation_peak_gib,
                "cudagraph_gib": self.cudagraph_taken_gib,
                "kv_cache_gib": self.kv_cache_gib,
                "num_gpu_blocks": self.num_gpu_blocks,
                "kv_cache_tokens": self.kv_cache_tokens,
                "max_concurrency": self.max_concurrency,
                "fits": self.fits,
                # >= 0.34's extensible KV cache only (its "Memory after warmup" line): the memory kept for transients
                **({"transient_kept_gib": self.transient_kept_gib} if self.transient_kept_gib is not None else {}),
            },
            "notes": "; ".join(notes),
        }


# engine arguments the engine prints as it applies them (its max model len, utilization, block size and chunked-prefill
# token budget): the printed value stands for one the log does not state
PRINTED_ARGS = ("max_model_len", "gpu_memory_utilization", "block_size", "max_num_batched_tokens")

RECORD_ARG_NAMES = (
    "max_model_len", "gpu_memory_utilization", "tensor_parallel_size", "pipeline_parallel_size", "dtype",
    "kv_cache_dtype", "quantization", "enforce_eager", "block_size", "max_num_seqs", "max_num_batched_tokens",
    "enable_prefix_caching",
)

# --------------------------------------------------------------------------------------
# Argument parsing (never eval)
# --------------------------------------------------------------------------------------

_LORA_SLOT_ARGS = frozenset({"max_loras", "max_lora_rank", "fully_sharded_loras", "max_cpu_loras", "lora_target_modules"})
_DICT_PAIR = re.compile(r"'(?P<key>\w+)':\s*(?P<val>'(?:[^'\\]|\\.)*'|\"[^\"]*\"|True|False|None|-?[\d.]+(?:e-?\d+)?|\[[^\]]*\])")
_KV_PAIR = re.compile(r"(?:^|[\s,(])(?P<key>[a-z_][a-z0-9_]*)=(?P<val>'(?:[^'\\]|\\.)*'|\"[^\"]*\"|[^,()\s]+)")
_ENGINE_CONFIG_RENAMES = {"max_seq_len": "max_model_len"}


def _literal(text: str):
    """A Python literal from log text (ast.literal_eval), else the bare text."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


def balanced_text(text: str, start: int) -> str:
    """The bracketed value that starts at text[start] ('Name(...)', '{...}', '[...]') up to its matching close, or to
    the end of a line cut inside it."""
    end = closing_bracket(text, start)
    return text[start:] if end < 0 else text[start:end + 1]


_KV_FIELD = re.compile(r"""['"]?(kv_connector|kv_role|kv_connector_module_path)['"]?\s*[=:]\s*['"]([\w.]+)['"]""")


def kv_transfer_from_text(text: str) -> dict | None:
    """--kv-transfer-config as a log prints it (JSON on a command line, a dict, or KVTransferConfig(...)'s repr in
    non-default args / the Namespace line) as the dict of fields kvplan reads: kv_connector, kv_role,
    kv_connector_module_path and MultiConnector's connectors (kv_connector_extra_config), None where it names no
    connector field. A field the text does not hold (a line cut short) is left out."""
    text = str(text).strip()
    try:
        value = json.loads(text)
    except ValueError:
        value = _literal(text) if text.startswith("{") else None
    if isinstance(value, dict):
        keep = {k: value[k] for k in ("kv_connector", "kv_role", "kv_connector_module_path") if value.get(k) is not None}
        extra = value.get("kv_connector_extra_config")
        if isinstance(extra, dict) and isinstance(extra.get("connectors"), list):
            keep["kv_connector_extra_config"] = {"connectors": [
                {k: c[k] for k in ("kv_connector", "kv_role", "kv_connector_module_path") if c.get(k) is not None}
                for c in extra["connectors"] if isinstance(c, dict)]}
        return keep or None
    found = list(_KV_FIELD.finditer(text))
    if not found:
        return None
    inner = text.find("connectors")
    top = [m for m in found if inner == -1 or m.start() < inner]
    out = {}
    for m in top:
        out.setdefault(m.group(1), m.group(2))
    if out.get("kv_connector") == "MultiConnector" and inner != -1:
        children: list[dict] = []
        for m in found:
            if m.start() < inner:
                continue
            if m.group(1) == "kv_connector" or not children:
                children.append({})
            children[-1].setdefault(m.group(1), m.group(2))
        out["kv_connector_extra_config"] = {"connectors": children}
    return out or None


def parse_dict_args(body: str) -> dict:
    """The `non-default args: {...}` dict; a truncated one is read pair by pair."""
    body = body.strip()
    # a PoolerConfig's repr is no Python literal: read as its text, so the rest of the dict is still read whole
    body = re.sub(r"PoolerConfig\([^)]*\)", lambda m: repr(m.group(0)), body)
    end = body.rfind("}")
    if end != -1:
        value = _literal(body[: end + 1])
        if isinstance(value, dict):
            return {str(k): v for k, v in value.items()}
    out = {m.group("key"): _literal(m.group("val")) for m in _DICT_PAIR.finditer(body)}
    # a config object printed by its repr (vLLM >= 0.10.2 prints --eplb-config as EPLBConfig(window_size=..., ...)), no
    # Python literal: kept as its text for the reader that wants it (StartupLog.eplb_given reads it: parse_config_text)
    m = re.search(r"'eplb_config':\s*(EPLBConfig\([^)]*\)|\{[^}]*\})", body)
    if m and not out.get("eplb_config"):
        out["eplb_config"] = m.group(1)
    # --kv-transfer-config: argparse builds the KVTransferConfig (TypeAdapter(cls).validate_json from 0.9; from_cli before),
    # so the dict prints its repr, nested dicts and all: kept as its text (StartupLog.kv_transfer_given reads it)
    m = re.search(r"'kv_transfer_config':\s*(?=KVTransferConfig\(|\{)", body)
    if m and not isinstance(out.get("kv_transfer_config"), dict):
        out["kv_transfer_config"] = balanced_text(body, m.end())
    # --pooler-config / --override-pooler-config: argparse builds the PoolerConfig from the JSON given
    # (engine/arg_utils.py _compute_kwargs parse_dataclass, TypeAdapter(cls).validate_json, 0.10.0 / 0.12.0 wheels), so
    # the dict prints its dataclass repr, PoolerConfig(pooling_type='MEAN', normalize=None, ...); a line cut inside it
    # keeps what it holds
    for name in _POOLER_ARGS:
        m = re.search(rf"'{name}':\s*(PoolerConfig\([^)]*\)?|\{{[^}}]*\}}?)", body)
        if m and not out.get(name):
            out[name] = m.group(1)
    return out


# the engine arguments that carry a pooling model's PoolerConfig: --pooler-config (vLLM >= 0.11) and its older name
# --override-pooler-config (0.6.4-0.11.x)
_POOLER_ARGS = ("pooler_config", "override_pooler_config")
# the PoolerConfig fields that hold a pooling type: pooling_type, and from 0.14 seq_pooling_type / tok_pooling_type
# (config/pooler.py PoolerConfig, 0.12.0 / 0.14.0 / 0.33.0 wheels)
_POOLER_TYPE_FIELDS = ("pooling_type", "seq_pooling_type", "tok_pooling_type")


def pooler_types(value) -> dict:
    """The pooling types a logged --pooler-config / --override-pooler-config value sets, as {PoolerConfig field: type}:
    from a dict (vllm.LLM(pooler_config={...})), JSON or a Python dict's text (a command line), a PoolerConfig repr
    (the 'non-default args' dict and the Namespace line print the object argparse built), or the fields a command line
    gives one by one (--pooler-config.pooling_type MEAN, read as {'pooling_type': 'MEAN'}). The repr is printed after
    PoolerConfig.__post_init__ (0.14 on) copied a given pooling_type into seq_pooling_type or tok_pooling_type: where
    one of those equals pooling_type, pooling_type alone is what was given (setting both raises "Cannot set both",
    config/pooler.py, 0.14.0 / 0.33.0 wheels). Fields without a type (normalize, dimensions, ...) change nothing
    kvplan plans and are left out. {} where none is set or the value cannot be read."""
    if isinstance(value, str):
        text = value.strip().strip("'\"") if not value.strip().startswith(("{", "PoolerConfig(")) else value.strip()
        if text.startswith("PoolerConfig("):
            value = parse_keyword_args(text[len("PoolerConfig("):].rstrip(")"))
        elif text.startswith("{"):
            value = parse_config_text(text)
        else:
            return {}
    if not isinstance(value, Mapping):
        return {}
    out = {}
    for key in _POOLER_TYPE_FIELDS:
        v = value.get(key)
        if isinstance(v, str) and v.strip().strip("'\"") not in ("", "None"):
            out[key] = v.strip().strip("'\"")
    if "pooling_type" in out:
        for key in ("seq_pooling_type", "tok_pooling_type"):
            if out.get(key) == out["pooling_type"]:
                del out[key]
    return out


def parse_config_text(text: str) -> dict:
    """A config argument's text as a dict: JSON or a Python dict ('{"num_redundant_experts": 32}' on a command line,
    a dict cut off in `non-default args`: parse_dict_args), or a config object's repr ('EPLBConfig(window_size=1000,
    ...)': parse_keyword_args)."""
    text = text.strip()
    if not text.startswith("{"):
        return parse_keyword_args(text)
    try:
        value = json_loads(text)
    except ValueError:
        value = None
    return value if isinstance(value, dict) else parse_dict_args(text)


# names a cut value must not stand for: 'Qwen/Qwen2.5-14B-Instr' is no model to compare with
_NAME_ARGS = frozenset({"model", "tokenizer", "served_model_name"})


def parse_keyword_args(body: str) -> dict:
    """`key=value, ...` as in the engine-config and Namespace lines (top-level scalars only); a string the line's end
    cut off (no closing quote) is kept, unless it is a name (_NAME_ARGS), which a cut names nothing to compare."""
    result: dict[str, Any] = {}
    for m in _KV_PAIR.finditer(body):
        key = _ENGINE_CONFIG_RENAMES.get(m.group("key"), m.group("key"))
        raw = m.group("val")
        value = _literal(raw)
        if isinstance(value, str) and value[:1] in "'\"":
            if key in _NAME_ARGS:
                continue
            value = value.strip("'\"")  # a string cut off by a truncated line
        if isinstance(value, str) and value.startswith("torch."):
            value = value[len("torch."):]
        if key not in result:
            result[key] = value
    return result


# flags that take several values (versions.MULTI_VALUE_FLAGS, argparse nargs="+"), keyed as parse_command_args keys them
_LIST_FLAGS = frozenset(flag[2:].replace("-", "_") for flag in MULTI_VALUE_FLAGS)


def parse_command_args(cmd) -> dict:
    """Flags of a `vllm serve ...` / `python -m vllm.entrypoints...` command line (its text, or its words)."""
    if isinstance(cmd, list):  # words already split (serve_command): shlex's token building is quadratic in a word's length
        tokens = list(cmd)
    else:
        try:
            tokens = shlex.split(cmd)
        except ValueError:
            tokens = cmd.split()
    result: dict[str, Any] = {}
    i = 0
    if len(tokens) >= 3 and tokens[0] == "vllm" and tokens[1] == "serve" and not tokens[2].startswith("-"):
        result["model"] = tokens[2]
    while i < len(tokens):
        tok = tokens[i]
        if tok.startswith("--") and len(tok) > 2:
            name, eq, value = tok[2:].partition("=")
            name = name.replace("-", "_")
            if not eq and name in _LIST_FLAGS:  # nargs="+": '--cudagraph-capture-sizes 1 2 4 8'
                values = []
                while i + 1 < len(tokens) and not tokens[i + 1].startswith("-"):
                    values.append(tokens[i + 1])
                    i += 1
                result[name] = " ".join(values) or "True"
                i += 1
                continue
            if not eq:
                if i + 1 < len(tokens) and not tokens[i + 1].startswith("-"):
                    value = tokens[i + 1]
                    i += 1
                else:
                    value = "True"
            result[name] = _coerce_flag(value)
        elif tok in ("-tp", "-pp", "-q", "-dcp", "-pcp") and i + 1 < len(tokens):
            name = {"-tp": "tensor_parallel_size", "-pp": "pipeline_parallel_size", "-q": "quantization",
                    "-dcp": "decode_context_parallel_size", "-pcp": "prefill_context_parallel_size"}[tok]
            result[name] = _coerce_flag(tokens[i + 1])
            i += 1
        elif tok.startswith("-tp="):
            result["tensor_parallel_size"] = _coerce_flag(tok[4:])
        i += 1
    if "tensor_parallel" in result and "tensor_parallel_size" not in result:
        result["tensor_parallel_size"] = result.pop("tensor_parallel")
    return result


def _coerce_flag(value: str):
    if value in ("True", "true"):
        return True
    if value in ("False", "false"):
        return False
    number = _read(int, value)
    if number is None:
        number = _read(float, value)
    if isinstance(number, float) and not math.isfinite(number):
        # '1' x 5,000 (past int()'s 4,300 digits), 1e999, 'nan': kept as written, so the flag's own reader refuses the
        # value it was given ("not a length vllm serve reads: 'inf'" quoted no value the command held)
        return value
    return value if number is None else number


# --------------------------------------------------------------------------------------
# The parser
# --------------------------------------------------------------------------------------


def _read(kind: Callable[[str], Any], text: Optional[str]):
    """`kind(text)`, None when there is no text or it is not one."""
    if text is None:
        return None
    try:
        return kind(text)
    except ValueError:
        return None


def _f(value: Optional[str]) -> Optional[float]:
    return _read(float, value)


def _i(value: Optional[str]) -> Optional[int]:
    """A whole number as the log prints it, a thousands comma allowed."""
    return _read(int, value and value.replace(",", ""))


def as_int(value) -> Optional[int]:
    """A whole number from a log's argument (an int, a whole float, digits with a thousands comma), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        return _i(value)
    return None


class _Accumulator:
    """Mutable state while reading; frozen into a StartupLog at the end."""

    MIN_OVER_RANKS = ("kv_cache_gib", "kv_cache_tokens", "max_concurrency", "num_gpu_blocks", "warmup_kv_blocks",
                      "warmup_kv_gib", "extended_kv_blocks", "extended_kv_gib")

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.rank_values: dict[str, list] = {}
        self.engine_args: dict[str, Any] = {}
        self.engine_config: dict[str, Any] = {}
        self.command_args: dict[str, Any] = {}
        self.warnings: list[str] = []
        self.errors: list[str] = []
        self.hits: list[SignatureHit] = []
        self.unrecognised: list[str] = []
        self.unrecognised_count = 0
        self.error_lines: list[str] = []
        self.last_lines: list[str] = []
        self.era_hints: set[str] = set()

    def put(self, key: str, value, *, rank_aware: bool = False) -> None:
        if value is None:
            return
        if rank_aware:
            self.rank_values.setdefault(key, []).append(value)
            if key in self.MIN_OVER_RANKS and key in self.values:
                self.values[key] = min(self.values[key], value)
                return
        self.values.setdefault(key, value)

    def warn(self, text: str) -> None:
        if text not in self.warnings:
            self.warnings.append(text)

    def error(self, text: str) -> None:
        if text not in self.errors:
            self.errors.append(text)


# What each row's line gives: "FIELD=GROUP ...", the accumulator field (a StartupLog field, or one _freeze combines)
# and the pattern's named group holding its value. A field in _TEXT_FIGURES is kept as text, one in _INT_FIGURES is a
# whole number (a thousands comma allowed), any other a float; one in _RANK_FIGURES is printed by each rank
# (_Accumulator.put keeps every rank's value).
_FIGURE_READS: Mapping[str, tuple[tuple[str, str], ...]] = MappingProxyType({name: tuple(
    tuple(pair.split("=")) for pair in spec.split()) for name, spec in {  # type: ignore[misc]
    "version_api_server": "vllm_version=version",
    "version_engine": "vllm_version=version",
    "version_banner": "vllm_version=version",
    "load_model_start": "loaded_model=model",
    "weights_old": "weights_gib=weights",
    "weights": "weights_gib=weights load_seconds=secs",
    "v0_profile_064": "total_gib=total non_torch_gib=nt kv_cache_gib=kv gpu_memory_utilization=util",
    "v0_can_use": "total_gib=total gpu_memory_utilization=util requested_gib=req",
    "v0_split": "split_weights_gib=w non_torch_gib=nt activation_peak_gib=act kv_cache_gib=kv",
    "v0_blocks": "num_gpu_blocks=gpu num_cpu_blocks=cpu",
    "v1_blocks_07": "num_gpu_blocks=gpu",
    "metrics_blocks": "num_gpu_blocks=gpu",
    "available_kv": "kv_cache_gib=kv",
    "kv_bytes_given": "kv_cache_gib=kv",
    "kv_tokens": "kv_cache_tokens=tokens",
    "concurrency": "max_concurrency=conc concurrency_len=len",
    "graph_capture": "cudagraph_gib=gib graph_capture_seconds=secs",
    "graph_estimate": "cudagraph_estimated_gib=gib",
    "graph_equivalent": "gpu_memory_utilization=cur",
    "graph_actual": "cudagraph_actual_gib=act cudagraph_estimated_gib=est",
    "summary_old": "free_at_start_gib=free total_gib=total gpu_memory_utilization=util requested_gib=req "
                   "activation_peak_gib=act cudagraph_actual_gib=cg summary_weights_gib=w non_torch_gib=nt",
    "summary_new": "free_at_start_gib=free total_gib=total gpu_memory_utilization=util requested_gib=req "
                   "activation_peak_gib=act cudagraph_actual_gib=cg consumed_gib=consumed",
    "max_model_len": "max_model_len=len",
    "moe_config_device": "moe_device_name=device",
    "chunked_prefill": "max_num_batched_tokens=t",
    "err_fit": "estimated_max_model_len=est kv_cache_gib=avail max_model_len=len",
    "err_fit_extensible_all_memory": "estimated_max_model_len=est kv_cache_gib=avail max_model_len=len",
    "err_v0_max_seq": "estimated_max_model_len=cap max_model_len=len",
    "err_free_memory": "free_at_start_gib=free total_gib=total gpu_memory_utilization=util requested_gib=req",
    "memory_after_warmup": "warmup_free_gib=free warmup_committed_gib=committed transient_kept_gib=kept "
                           "transient_peak_gib=peak torch_growth_gib=growth warmup_kv_blocks=blocks warmup_kv_gib=kv "
                           "warmup_requested_gib=req torch_limit_gib=limit",
    "extended_kv_cache": "extended_kv_blocks=blocks extended_kv_gib=gib",
    "util_caps_extensible": "gpu_memory_utilization=util",
}.items()})
_TEXT_FIGURES = frozenset({"vllm_version", "loaded_model", "moe_device_name"})
_INT_FIGURES = frozenset({"num_gpu_blocks", "num_cpu_blocks", "overridden_gpu_blocks", "kv_cache_tokens", "concurrency_len",
                          "max_model_len", "max_num_batched_tokens", "estimated_max_model_len", "warmup_kv_blocks",
                          "extended_kv_blocks"})
_RANK_FIGURES = frozenset({"weights_gib", "kv_cache_gib", "num_gpu_blocks", "kv_cache_tokens", "max_concurrency",
                           "cudagraph_gib", "warmup_kv_blocks", "warmup_kv_gib", "extended_kv_blocks", "extended_kv_gib",
                           "transient_kept_gib"})
# rows whose format alone tells the V0 era (vllm-memory-model.md section 8), and rows that say the start does not fit
# the first release whose log prints the extensible KV cache's post-warmup sizing ("Memory after warmup: ...")
EXTENSIBLE_KV_FIRST_RELEASE = "0.34.0"
_ERA_HINTS = MappingProxyType({"v0_profile_064": "V0-b", "v0_can_use": "V0-c", "v0_split": "V0-c",
                               # printed from 0.34.0 only (the extensible KV cache's post-warmup sizing)
                               "memory_after_warmup": EXTENSIBLE_KV_FIRST_RELEASE, "extended_kv_cache": EXTENSIBLE_KV_FIRST_RELEASE})
_DOES_NOT_FIT = frozenset({"err_fit", "err_v0_max_seq", "err_no_blocks", "err_autofit", "err_fit_extensible_all_memory",
                           "err_no_blocks_extensible", "err_autofit_after_warmup"})


def _apply_figure(acc: _Accumulator, name: str, g: Mapping[str, Optional[str]]) -> None:
    """Copy the named groups of one matched line into the accumulator."""
    for key, group in _FIGURE_READS.get(name, ()):
        raw = g.get(group)
        value = raw if key in _TEXT_FIGURES else _i(raw) if key in _INT_FIGURES else _f(raw)
        acc.put(key, value, rank_aware=key in _RANK_FIGURES)
    if name in _ERA_HINTS:
        acc.era_hints.add(_ERA_HINTS[name])
    if name in _DOES_NOT_FIT:
        acc.values["fits"] = False
    handler = _FIGURE_HANDLERS.get(name)
    if handler is not None:
        handler(acc, g)


def _merge_args(acc, target: dict, args: dict) -> None:
    """Keep the first value seen for each argument; a model named there is the log's model."""
    for k, v in args.items():
        target.setdefault(k, v)
    if isinstance(args.get("model"), str):
        acc.put("model", args["model"])


def _h_non_default(acc, g):
    _merge_args(acc, acc.engine_args, parse_dict_args(g["body"]))


def _h_namespace(acc, g):
    args = parse_keyword_args(g["body"])
    for name in _DICT_ARGS:  # a dict value ('hf_overrides={...}, ...'), which parse_keyword_args cuts at its first comma
        value = _braced_value(g["body"], name)
        if value is not None:
            args[name] = value
    for name in _POOLER_ARGS:  # the PoolerConfig argparse built, printed by its repr ('override_pooler_config=
        # PoolerConfig(pooling_type='MEAN', ...)'), which parse_keyword_args cuts at its parenthesis
        m = re.search(rf"(?:^|[\s,(]){name}=(PoolerConfig\([^)]*\)?)", g["body"])
        if m:
            args[name] = m.group(1)
    # --kv-transfer-config: the KVTransferConfig argparse built, printed by its repr with nested dicts, which
    # parse_keyword_args cuts at its first comma: read whole (StartupLog.kv_transfer_given)
    m = re.search(r"(?:^|[\s,(])kv_transfer_config=(?=KVTransferConfig\(|\{)", g["body"])
    if m:
        args["kv_transfer_config"] = balanced_text(g["body"], m.end())
    _merge_args(acc, acc.engine_args, args)


# engine arguments whose value is a dict, read whole from a Namespace line
_DICT_ARGS = ("hf_overrides", "rope_scaling", "pooler_config", "override_pooler_config")


def _braced_value(body: str, name: str):
    """The dict a `name={...}` of a Namespace line holds (its braces balanced), else None."""
    m = re.search(rf"(?:^|[\s,(]){name}=\{{", body)
    if not m:
        return None
    start, depth = m.end() - 1, 0
    for i in range(start, len(body)):
        depth += {"{": 1, "}": -1}.get(body[i], 0)
        if depth == 0:
            value = _literal(body[start:i + 1])
            return value if isinstance(value, dict) else None
    return None


def _h_hf_config_overridden(acc, g):
    value = parse_dict_args(g["body"])
    if value:
        acc.engine_args.setdefault("hf_config_overridden", value)


def _h_engine_config(acc, g):
    _merge_args(acc, acc.engine_config, parse_keyword_args(g["body"]))


def _h_command(acc, g):
    args = parse_command_args(g["cmd"])
    for k, v in args.items():
        acc.command_args.setdefault(k, v)
    if isinstance(args.get("model"), str):
        acc.values.setdefault("command_model", args["model"])


def _h_kv_in_use(acc, g):
    value = _f(g["kv"])
    if value is not None and g.get("unit") == "bytes":
        value = value / 2**30
    acc.put("kv_cache_in_use_gib", value)


def _h_override_blocks(acc, g):
    """A num_gpu_blocks_override line. From vLLM 0.18.0 every start that captures CUDA graphs first builds a minimal
    KV cache to measure them: the runner sets the override to the largest capture size and sizes the pool with no
    memory, so the line reads 'Overriding num_gpu_blocks=0 with num_gpu_blocks_override=<largest capture size>'
    (v1/worker/gpu_model_runner.py _init_minimal_kv_cache_for_profiling, called by profile_cudagraph_memory; the
    0.18.0-0.33.0 wheels; v1/core/kv_cache_utils.py logs it). That cache is freed before the pool is sized, so a
    line with 0 computed blocks says nothing of the pool; a user's override follows a sized pool."""
    computed = _i(g.get("computed"))
    if computed == 0:
        return
    acc.put("overridden_gpu_blocks", computed)
    acc.put("num_gpu_blocks", _i(g.get("override")), rank_aware=True)


def _h_block_size(acc, g):
    size = _i(g.get("a") or g.get("b") or g.get("c"))
    acc.values["block_size"] = size  # the last setting wins (hybrid models raise it)


def _h_backend_new(acc, g):
    acc.values["attention_backend"] = g["backend"]
    cands = tuple(c.strip().strip("'\"") for c in (g.get("cands") or "").split(",") if c.strip())
    acc.values["attention_backend_candidates"] = cands


def _h_backend_old(acc, g):
    acc.values.setdefault("attention_backend", g["backend"])


def _h_mamba(acc, g):
    acc.warn(f"mamba page padded by {g['pct']}% to match the attention page")


def _h_padding_layers(acc, g):
    acc.warn(f"{g['n']} padding layers added; up to {g['pct']}% of the KV cache may be wasted")


def _h_autofit(acc, g):
    acc.warn(f"max_model_len lowered by auto-fit from {g['old']} to {g['new']}")
    acc.values["max_model_len"] = _i(g["new"])


def _h_autofit_final(acc, g):
    """The length --max-model-len auto settles on once the extensible KV cache is measured (>= 0.34): it replaces the
    tentative one fitted to the reserved capacity."""
    if g.get("new"):
        acc.warn(f"max_model_len set by auto-fit after warmup: {g['old']} -> {g['new']}")
    acc.values["max_model_len"] = _i(g.get("new") or g.get("kept"))


def _h_extensible_disabled(acc, g):
    acc.warn(f"the extensible KV cache was disabled ({g['reason']}): the pool was sized from the profile's estimate")


def _h_util_caps(acc, g):
    acc.warn(f"gpu_memory_utilization={g['util']} kept {g['withheld']} GiB of free GPU memory out of the extensible KV cache")


def _h_no_imex(acc, g):
    acc.warn("no IMEX channel: KV transfers within a host fall back to TCP")


def _h_budget_after_fallback(acc, g):
    """The engine's budget recomputed once weights a disk fallback moved are no longer charged externally (>= 0.34): it
    replaces the budget printed before."""
    acc.values["requested_gib"] = _f(g["req"])


# GiB per unit of torch's out-of-memory messages (err_cuda_oom, oom_accounting_old / _new)
UNIT_GIB = MappingProxyType({"bytes": 1 / 2**30, "KiB": 1 / 2**20, "MiB": 1 / 2**10, "GiB": 1.0})


def torch_gib(groups: Mapping[str, Optional[str]], key: str) -> Optional[float]:
    """GiB of a figure torch's out-of-memory message states (err_cuda_oom's and the oom_accounting rows' groups: the
    figure in `key`, its unit in `key`_u); None where the line does not state it."""
    scale, value = UNIT_GIB.get(groups.get(f"{key}_u") or ""), _f(groups.get(key))
    return None if scale is None or value is None else value * scale


def _h_oom_total(acc, g):
    # torch's out-of-memory message states the device's total (torch/csrc/cuda/CUDACachingAllocator.cpp, the
    # "total capacity" of cudaMemGetInfo, the total vLLM multiplies by gpu_memory_utilization): a failed start that
    # prints no other total still names its card's size (a 6 GiB card under WSL2, say)
    total = torch_gib(g, "total")
    if total:
        acc.put("total_gib", round(total, 4))


# Rows whose line needs more than _FIGURE_READS: arguments, a unit, the last setting winning, a warning.
_FIGURE_HANDLERS: Mapping[str, Callable[[_Accumulator, Mapping[str, Optional[str]]], None]] = MappingProxyType({
    "oom_accounting_old": _h_oom_total,
    "oom_accounting_new": _h_oom_total,
    "non_default_args": _h_non_default,
    "namespace_args": _h_namespace,
    "hf_config_overridden": _h_hf_config_overridden,
    "engine_config": _h_engine_config,
    # (the benchmark's kind is read from these hits themselves: StartupLog.benchmark)
    "bench_command": _h_command,
    "bench_namespace": _h_namespace,
    "command_line": _h_command,
    "kv_in_use": _h_kv_in_use,
    "override_blocks": _h_override_blocks,
    "block_size": _h_block_size,
    "backend_new": _h_backend_new,
    "backend_old": _h_backend_old,
    "mamba_padding": _h_mamba,
    "padding_layers": _h_padding_layers,
    "auto_fit": _h_autofit,
    "auto_fit_final": _h_autofit_final,
    "extensible_disabled": _h_extensible_disabled,
    "util_caps_extensible": _h_util_caps,
    "no_imex_channel": _h_no_imex,
    "budget_after_fallback": _h_budget_after_fallback,
})

# Signatures that mean the engine got past KV-cache sizing (a start, if nothing fatal follows).
_STARTED_MARKERS = frozenset({"kv_tokens", "concurrency", "graph_capture", "startup_complete", "server_starting",
                              "init_engine_took", "v0_blocks", "v1_blocks_07", "summary_old", "summary_new", "graph_actual",
                              "extended_kv_cache"})
# the lines after the extensible KV cache's final sizing (vLLM >= 0.34: v1/engine/core.py _initialize_kv_caches commits
# the measured pool, then logs the capacity)
_SIZED_AFTER_WARMUP = frozenset({"extended_kv_cache", "kv_tokens", "concurrency", "startup_complete", "server_starting",
                                 "init_engine_took"})
# Pairs of signatures sharing an anchor where the specific one shadows the generic one.
_SHADOWED_BY = {
    "fa_cannot_other": ("fa_cannot_turing", "fa_cannot_vllm_flash_attn", "fa_cannot_flash_attn"),
    "fa_cannot_flash_attn": ("fa_cannot_vllm_flash_attn",),
    # 0.34's refusals under the extensible KV cache at utilization 1.0, whose fix is not a higher utilization
    "err_fit": ("err_fit_extensible_all_memory",),
    "err_no_blocks": ("err_no_blocks_extensible",),
    "err_autofit": ("err_autofit_after_warmup",),
    "v1_blocks_07": ("v0_blocks",),
    "cc_unsupported": ("bf16_unsupported", "err_shared_mem_len"),
    "err_cuda_oom": ("err_sampler_oom",),
    "no_cuda_gpus": ("nvml_missing",),
    "disk_full": ("nccl_shm",),
    "hf_gated": ("hf_not_logged_in", "hf_not_authorized"),
    "hf_401": ("hf_not_logged_in", "hf_not_authorized", "hub_401_repo_not_found"),
    "arch_unsupported": ("transformers_unknown_model_type",),
    "weights_not_cached_offline": ("offline_hub_api",),
    "quant_arg_mismatch": ("quant_arg_mismatch_gguf",),
    "src_mamba_blocks_unheaded": ("mamba_blocks_below_seqs",),
}


def match_line(message: str) -> list[tuple[Signature, re.Match]]:
    """Every signature that matches one cleaned message, specific ones shadowing generic ones."""
    found: list[tuple[Signature, re.Match]] = []
    seen: set[str] = set()
    lowered = message.lower()
    for anchor in _ANCHORS:
        if anchor not in lowered:
            continue
        for sig in _SIGNATURES_BY_ANCHOR.get(anchor, ()):
            if sig.name in seen:
                continue
            m = sig.pattern.search(message)
            if m:
                seen.add(sig.name)
                found.append((sig, m))
    return [(s, m) for s, m in found if not any(o in seen for o in _SHADOWED_BY.get(s.name, ()))]


def _keep(bucket: list[str], text: str, limit: int = MAX_KEPT_LINES) -> None:
    if len(bucket) < limit:
        bucket.append(text)


# Lines a server prints once per start: one seen again opens another startup (a restarted container's
# `docker logs`, a file appended to by several runs). Data-parallel engine cores each print the engine line,
# so it counts only from a process without a DP rank (EngineCore_DP1, or EngineCore_1 before vLLM 0.11).
_STARTUP_OPENERS = frozenset({"version_api_server", "version_banner", "non_default_args", "namespace_args", "version_engine",
                               "bench_namespace"})


def _opens_startup(name: str, process: Optional[str]) -> bool:
    return name in _STARTUP_OPENERS and not (name == "version_engine" and process and _DP_ENGINE.search(process))


# a data-parallel engine core: 'EngineCore_DP1' (vLLM 0.11 on), 'EngineCore_1' (0.8-0.10, e.g. vLLM issue #18567)
_DP_ENGINE = re.compile(r"_DP\d*\b|\bEngineCore_\d+\b")


# Lines that show a start ran vLLM's ROCm build (an AMD GPU), each only printed there:
#   the logger's file prefix 'rocm.py:N]': vllm/platforms/rocm.py (RocmPlatform, loaded only when the ROCm platform is
#     the one detected: vllm/platforms/__init__.py resolve_current_platform_cls_qualname) logs the attention backend it
#     picks, 'INFO 02-05 09:08:19 rocm.py:121] Using Triton MLA backend.' (vLLM issue #12773, MI300A) and
#     '[rocm.py:292] Using Triton Attention backend on V1 engine.' (apollo-mg/Project-Apollo vllm_results_fp8_redhat.log,
#     RX 9070 XT); a bare 'rocm.py', so vllm/platforms/__init__.py's 'ROCm platform is not available' DEBUG line on a CUDA
#     host (tests/data/plfail_gpt_oss_20b_tp1_h100_v0190_failed.log) and rocm_aiter_*.py modules do not count;
#   'Automatically detected platform rocm.' (vllm/platforms/__init__.py, 0.6-0.27; ROCm/legacy-rocm-build#4386);
#   the ROCm attention backends chosen, 'Using ROCM_ATTN backend ...' / ROCM_AITER_FA / ROCM_AITER_MLA /
#     ROCM_AITER_UNIFIED_ATTN (vllm/platforms/rocm.py get_attn_backend_cls 'Using %s backend out of potential
#     backends', 0.27.1) and V0's 'Using ROCmFlashAttention backend.' (rocm.py, 0.6-0.9); a list of valid options in an
#     error names them all and does not count (the 'Using' is required);
#   a gfx target ('gfx942', 'gfx90a', 'gfx1151': torch's gcnArchName, hipBLASLt's TensileLibrary_lazy_gfx942.dat (after
#     an underscore), AITER's
#     'requires gfx950 (CDNA4), got gfx942'), 'hipGraph', HIP's 'HIP out of memory' and an AMD card's name
#     ('AMD Instinct MI300X', 'AMD_Instinct_MI300X' in a fused-MoE config file's name); VLLM_ROCM_* variables do not
#     count (an environment dump lists them on every platform, the H100 log above included).
_ROCM_LINE = re.compile(
    r"(?<![\w.])rocm\.py:\d+\]|Automatically detected platform rocm\b|Using (?:ROCM_\w+|ROCmFlashAttention)\w* backend"
    r"|(?<![A-Za-z0-9])gfx(?:9[0-9a-f]{2}|1[0-2][0-9a-f]{2})(?![0-9a-f])|\bhipGraph|\bHIP out of memory|\bAMD[ _](?:Instinct|Radeon)\b")
_AMD_CARD = re.compile(r"\bAMD[ _](?:Instinct[ _]MI\d+[A-Z]*|Radeon[ _](?:RX[ _]\d{4}(?:[ _]XTX?|[ _]GRE)?|PRO[ _][A-Z]?\d+\w*))")
# Lines that show a start under WSL2: vLLM's notice 'Using 'pin_memory=False' as WSL is detected. This may slow down the
# performance.' (vllm/platforms/interface.py Platform.is_pin_memory_available, printed where in_wsl(): 'microsoft' in
# platform.uname(), 0.4-0.27.1; tests/data/wlog_qwen2_5_7b_fp16_6gib_wsl_v0160_failed.log line 15), the fork reason 'WSL is
# detected and NVML is not compatible with fork' (vllm/utils/system_utils.py, 0.27.1), and the kernel string WSL2
# kernels carry ('5.15.167.4-microsoft-standard-WSL2', in uname and collect_env output)
_WSL2_LINE = re.compile(r"as WSL is detected|WSL is detected and NVML|microsoft-standard-WSL2", re.IGNORECASE)


def _platform_evidence(stats: _ReadStats, line: LogLine) -> None:
    """Note the first line showing ROCm, the first showing WSL2, and the first AMD card named (on the line with its
    logger prefix: the ROCm platform's file name is in it, LogLine.plain)."""
    text = line.plain
    if stats.rocm_line is None and _ROCM_LINE.search(text) and "Failed to import from" not in text:
        # (rocm.py's own import warnings would print wherever the module were imported; vLLM imports it on ROCm only)
        stats.rocm_line = (line.number, line.message[:KEPT_LINE_CHARS])
    if stats.wsl2_line is None and _WSL2_LINE.search(text):
        stats.wsl2_line = (line.number, line.message[:KEPT_LINE_CHARS])
    if stats.amd_device_name is None and (m := _AMD_CARD.search(text)):
        stats.amd_device_name = m.group(0).replace("_", " ")


def parse_lines(lines: Iterable[str], stats: Optional[_ReadStats] = None) -> StartupLog:
    """Parse already-split lines (see `parse_log` for files and streams). A text holding several startups
    is read as its last one; `startups` counts them and `first_line` says where the last began."""
    stats = stats or _ReadStats()
    acc = _Accumulator()
    number = 0
    openers: set[str] = set()
    startups, first_line = 1, 1
    same_line = False
    for raw in lines:
        if not same_line:  # a piece after a lone carriage return is on the line before it
            number += 1
        same_line = isinstance(raw, _Cont)
        if not raw.strip():
            continue
        line = clean_line(raw, number)
        message = line.message
        if not message:
            continue
        stats.text_lines += 1
        _platform_evidence(stats, line)
        matched = match_line(message)
        opened = {sig.name for sig, _ in matched if _opens_startup(sig.name, line.process)}
        if opened & openers:  # a new startup: what the earlier one said does not describe this one
            failed = next((h for h in acc.hits if SIGNATURES_BY_NAME[h.signature].fatal), None)
            if failed is not None:
                stats.earlier_failures.append((first_line, failed))
            acc, openers = _Accumulator(), set()
            startups, first_line = startups + 1, number
        openers |= opened
        if line.process and line.process.strip().lower().startswith("apiserver"):  # vllm serve's front-end process:
            # (APIServer pid=N), or (ApiServer_0 pid=N) ... where it runs several (--api-server-count, serve.py)
            acc.values["api_server_seen"] = True
        kept = message[:KEPT_LINE_CHARS]
        acc.last_lines.append(kept)
        if len(acc.last_lines) > LAST_LINES_KEPT:
            del acc.last_lines[0]
        for sig, m in matched:
            groups = MappingProxyType(dict(m.groupdict()))
            if len(acc.hits) < MAX_HITS:
                acc.hits.append(SignatureHit(sig.name, number, line.level, message[:2000], groups))
            rank = _rank_of(line.process)
            if rank is not None:
                acc.values.setdefault("_ranks", set()).add(rank)
            _apply_figure(acc, sig.name, groups)
            if sig.kind == ERROR and sig.fatal:
                acc.error(kept)
        lowered = message.lower()
        if not matched and looks_memory_related(message, lowered):
            acc.unrecognised_count += 1
            _keep(acc.unrecognised, kept)
        if len(acc.error_lines) < MAX_KEPT_LINES and (line.level in ("ERROR", "CRITICAL") or looks_like_error(message, lowered)):
            acc.error_lines.append(kept)
    stats.lines = number
    stats.startups, stats.first_line = startups, first_line
    return _freeze(acc, stats)


def parse_log(source: Source, *, name: Optional[str] = None) -> StartupLog:
    """Parse a vLLM startup log from a path, bytes, a (binary or text) file object, or lines.

    Reads streaming, so a log of any size takes constant memory; binary garbage is
    decoded with replacement characters and reported in `parse_warnings`. A damaged gzip
    file is an InputError naming it: `name`, else its path or stream name.
    """
    stats = _ReadStats()
    try:
        return parse_lines(_open_lines(source, stats), stats)
    except GZIP_ERRORS:  # a gzip log cut short or with bytes after its end: a one-line error naming it
        raise damaged_gzip(name or input_name(source, "the log"), LOG_EXPECTED,
                           "recompress it from the original (gzip -t FILE tests one), or pass the plain log",
                           field="LOGFILE") from None


def read_log(ref: str) -> StartupLog:
    """The log a command line names: '-' is standard input, else a file that must exist; gzip and UTF-16 are read as
    text. A missing, damaged gzip, empty or binary file is an InputError naming it as given."""
    if ref == "-":
        source, name = sys.stdin.buffer, "standard input"
    else:
        source, name = existing_file(ref, "LOGFILE", "pass the path of a vLLM log, or - to read standard input"), ref
    log = parse_log(source, name=name)
    fix = "save the server's output, e.g. docker logs CONTAINER > vllm.log 2>&1"
    if not log.text_lines:
        raise InputError("LOGFILE", f"{name} is empty; expected {LOG_EXPECTED}", fix)
    if not log.hits and log.undecodable_lines * 2 >= log.text_lines:
        kind = _archive_kind(source) if ref != "-" else None
        if kind:
            raise InputError("LOGFILE", f"{name} is {kind}, not a log; expected {LOG_EXPECTED}",
                             "take the server's log out of it (tar -xf / unzip / xz -d / zstd -d) and pass that file")
        raise InputError("LOGFILE", f"{name} is binary, not text ({log.undecodable_lines} of {log.text_lines} lines are "
                         f"not UTF-8); expected {LOG_EXPECTED}", fix)
    return log


# the magic bytes of the bundles a log arrives in (the sweep met a study export saved as a gzipped tar); gzip itself
# is read as a log, a tar inside it is not
_ARCHIVE_MAGIC = ((b"PK\x03\x04", "a zip archive"), (b"\xfd7zXZ\x00", "xz-compressed"), (b"BZh", "bzip2-compressed"),
                  (b"\x28\xb5\x2f\xfd", "zstd-compressed"), (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"))


def _archive_kind(path) -> Optional[str]:
    """What bundle a binary file is (after gzip), or None."""
    try:
        with open_binary(path) as fh:
            head = fh.read(512)
    except (OSError, *GZIP_ERRORS):
        return None
    if head[257:262] == b"ustar":  # POSIX tar header: 'ustar' at offset 257
        return "a tar archive"
    return next((kind for magic, kind in _ARCHIVE_MAGIC if head.startswith(magic)), None)


def _era(acc: _Accumulator, version: Optional[str]) -> Optional[str]:
    if version:
        parts = re.findall(r"\d+", version)[:3]
        if len(parts) >= 2:
            key = tuple(int(p) for p in parts) + (0,) * (3 - len(parts))
            if "V0-c" in acc.era_hints and key >= (0, 6, 5):
                return "V0-c"  # a 0.8-0.10 start that fell back to the V0 engine prints V0-c's split line
            # versions.py's era row (V0-a up to 0.6.3, V0-b at 0.6.4, V0-c 0.6.5-0.7.x, the V1 eras from 0.8): a
            # 0.6.5-0.7.x log without the split line was read as V1-a, an engine those releases do not have
            return rule_at("era", key)
    for hint in ("V0-b", "V0-c"):
        if hint in acc.era_hints:
            return hint
    if EXTENSIBLE_KV_FIRST_RELEASE in acc.era_hints:  # the extensible KV cache's lines: read as its first release's era
        return rule_at("era", tuple(int(p) for p in EXTENSIBLE_KV_FIRST_RELEASE.split(".")))
    return None


# cudagraph_mode NONE as a log prints it: given ('cudagraph_mode': 'NONE', cudagraph_mode=NONE) or resolved in the
# engine config (<CUDAGraphMode.NONE: 0>)
_CUDAGRAPH_MODE_NONE = re.compile(r"cudagraph_mode\W+(?:CUDAGraphMode\.)?NONE\b", re.IGNORECASE)


def _activation_without_graph_estimate(activation: float, estimate: Optional[float], acc: _Accumulator,
                                       hit_names: set, parse_warnings: list) -> Optional[float]:
    """The >= 0.27 summary's "peak activation" less the CUDA-graph estimate it includes: vLLM prints
    transient_peak_headroom + cudagraph_memory_estimate_applied (v1/worker/gpu_worker.py, 0.27.1; 0.26.0 printed
    torch_peak_increase alone). The estimate is applied only with VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS on (the
    default; off, the log says 'CUDA graph memory profiling is disabled' and still prints the estimate) and is 0 where
    no graphs are captured (--enforce-eager or cudagraph_mode NONE: no estimate line), so the figure is then the
    profile's peak as printed. None, with a parse warning, where an estimate was applied but the log does not show it."""
    if "graph_profiling_disabled" in hit_names:
        return activation
    if estimate is not None:
        return round(activation - estimate, 2)
    if hit_names & {"memory_after_warmup", "extended_kv_cache"} and not hit_names & {"graph_equivalent", "graph_actual"}:
        # 0.34.0 with the extensible KV cache makes no CUDA-graph estimate at all (v1/worker/gpu/model_runner.py
        # GPUModelRunner.profile_cudagraph_memory returns 0 with it), so determine_available_memory prints neither the
        # 'is enabled ... is equivalent to ...' line nor the 'is disabled' warning, and _compile_or_warm_up_model no
        # 'CUDA graph pool memory' line: the summary's peak activation is the profile's own
        return activation
    if "available_kv" in hit_names and not hit_names & {"graph_equivalent", "graph_actual"}:
        # determine_available_memory logs 'Available KV cache memory' and, right after it, wherever an estimate was
        # made (cudagraph_memory_estimate > 0), the 'is equivalent to' line or the 'is disabled' warning; the capture
        # then logs 'CUDA graph pool memory' (v1/worker/gpu_worker.py, 0.27.0 and 0.33.0 wheels). A log with the first
        # and none of them made no estimate (model runner v2 before 0.29, no graphs): the peak is the profile's own
        return activation
    eager = str(acc.engine_args.get("enforce_eager", acc.command_args.get("enforce_eager", ""))).lower() in ("true", "1")
    given = [str(source.get("compilation_config") or "") for source in (acc.engine_args, acc.command_args)]
    resolved = [str(h.groups.get("body") or "") for h in acc.hits if h.signature == "engine_config"]
    no_graphs = any(_CUDAGRAPH_MODE_NONE.search(text) for text in given + resolved)
    if eager or no_graphs:
        return activation
    parse_warnings.append(f"the summary's {activation} GiB of peak activation includes a CUDA-graph estimate this log "
                          "does not show ('Estimated CUDA graph memory'): the activation peak is not read")
    return None


def _freeze(acc: _Accumulator, stats: _ReadStats) -> StartupLog:
    v = acc.values
    version = v.get("vllm_version")
    model = v.get("model") or v.get("command_model") or v.get("loaded_model")
    served = acc.engine_args.get("served_model_name") or acc.command_args.get("served_model_name")
    # a command line's several names come joined by spaces (parse_command_args reads nargs="+" flags so)
    served = served.split() if isinstance(served, str) else list(served) if isinstance(served, (list, tuple)) else []
    model_paths = tuple(dict.fromkeys(str(n) for n in (v.get("model"), v.get("command_model"), v.get("loaded_model"),
                                                        acc.engine_config.get("model")) if n))
    model_names = tuple(dict.fromkeys(model_paths + tuple(str(n) for n in served if n)))
    hit_names = {h.signature for h in acc.hits}
    fits = v.get("fits")
    if fits is None and (v.get("kv_cache_tokens") or v.get("num_gpu_blocks") or v.get("max_concurrency")):
        fits = True
    fatal = any(SIGNATURES_BY_NAME[h.signature].fatal for h in acc.hits)
    if fatal:
        started = False
    elif "memory_after_warmup" in hit_names and not hit_names & _SIZED_AFTER_WARMUP:
        started = None  # >= 0.34's extensible KV cache: capture and the summary come before the pool's final sizing,
        # which can still refuse the start (v1/core/kv_cache_planning.py shrink_kv_cache_configs)
    elif hit_names & _STARTED_MARKERS:
        started = True
    else:
        started = None
    weights = v.get("weights_gib")
    if weights is None:
        weights = v.get("split_weights_gib", v.get("summary_weights_gib"))
    kv_gib, blocks, profiled_kv = v.get("kv_cache_gib"), v.get("num_gpu_blocks"), None
    if "extended_kv_cache" in hit_names or "memory_after_warmup" in hit_names:
        extensible = True
    elif hit_names & {"extensible_disabled", "extensible_off_imex"}:
        extensible = False
    else:
        extensible = None
    if "memory_after_warmup" in hit_names and v.get("warmup_kv_gib") is not None:
        # the pool vLLM sized after warmup; "Available KV cache memory" was the profile's estimate it reserved room for
        profiled_kv = v.get("kv_cache_gib") if "available_kv" in hit_names else None
        kv_gib = v["warmup_kv_gib"]
        blocks = v.get("extended_kv_blocks", v.get("warmup_kv_blocks"))
    parse_warnings = []
    activation = v.get("activation_peak_gib")
    if "summary_new" in hit_names and activation is not None:
        activation = _activation_without_graph_estimate(activation, v.get("cudagraph_estimated_gib"), acc, hit_names,
                                                        parse_warnings)
    if stats.undecodable_lines:
        parse_warnings.append(f"{stats.undecodable_lines} line(s) held bytes that are not UTF-8 text (binary garbage?); read what could be read")
    if stats.cut_lines:
        parse_warnings.append(f"{stats.cut_lines} line(s) longer than {MAX_LINE_CHARS} characters were cut")
    if stats.ended_mid_line:
        parse_warnings.append("the log ends in the middle of a line (truncated?)")
    if stats.startups > 1:
        parse_warnings.append(f"the log holds {stats.startups} startups (a restarted server, or runs appended to one file); "
                              f"read the last one, from line {stats.first_line}")
        for begun, failed in stats.earlier_failures:
            sig = SIGNATURES_BY_NAME[failed.signature]
            parse_warnings.append(f"the startup from line {begun} failed ({sig.symptom}, line {failed.line_number}: "
                                  f"{failed.text[:160]!r}); `kvplan diagnose` on those lines alone reads it")
    if acc.unrecognised_count:
        parse_warnings.append(unrecognised_warning(acc.unrecognised_count))
    if stats.lines and not acc.hits:
        parse_warnings.append("no vLLM startup line was recognised in this text")
    ranks = v.get("_ranks", set())
    rank_values = {k: tuple(vals) for k, vals in acc.rank_values.items() if len(vals) > 1}
    return StartupLog(
        vllm_version=version,
        model=model,
        model_names=model_names,
        model_paths=model_paths,
        engine_args=MappingProxyType(dict(acc.engine_args)),
        engine_config=MappingProxyType(dict(acc.engine_config)),
        command_args=MappingProxyType(dict(acc.command_args)),
        era=_era(acc, version),
        total_gib=v.get("total_gib"),
        moe_device_name=v.get("moe_device_name"),
        free_at_start_gib=v.get("free_at_start_gib"),
        requested_gib=v.get("requested_gib", v.get("warmup_requested_gib")),
        gpu_memory_utilization=v.get("gpu_memory_utilization"),
        weights_gib=weights,
        load_seconds=v.get("load_seconds"),
        non_torch_gib=v.get("non_torch_gib"),
        activation_peak_gib=activation,
        consumed_gib=v.get("consumed_gib"),
        kv_cache_gib=kv_gib,
        kv_cache_in_use_gib=v.get("kv_cache_in_use_gib"),
        num_gpu_blocks=blocks,
        num_cpu_blocks=v.get("num_cpu_blocks"),
        overridden_gpu_blocks=v.get("overridden_gpu_blocks"),
        kv_cache_tokens=v.get("kv_cache_tokens"),
        max_concurrency=v.get("max_concurrency"),
        concurrency_len=v.get("concurrency_len"),
        cudagraph_gib=v.get("cudagraph_gib"),
        cudagraph_estimated_gib=v.get("cudagraph_estimated_gib"),
        cudagraph_actual_gib=v.get("cudagraph_actual_gib"),
        extensible_kv_cache=extensible,
        profiled_kv_cache_gib=profiled_kv,
        warmup_free_gib=v.get("warmup_free_gib"),
        warmup_committed_gib=v.get("warmup_committed_gib"),
        transient_kept_gib=v.get("transient_kept_gib"),
        transient_peak_gib=v.get("transient_peak_gib"),
        torch_growth_gib=v.get("torch_growth_gib"),
        warmup_kv_blocks=v.get("warmup_kv_blocks"),
        warmup_kv_gib=v.get("warmup_kv_gib"),
        warmup_requested_gib=v.get("warmup_requested_gib"),
        torch_limit_gib=v.get("torch_limit_gib"),
        extended_kv_blocks=v.get("extended_kv_blocks"),
        extended_kv_gib=v.get("extended_kv_gib"),
        graph_capture_seconds=v.get("graph_capture_seconds"),
        attention_backend=v.get("attention_backend"),
        attention_backend_candidates=tuple(v.get("attention_backend_candidates", ())),
        max_model_len=v.get("max_model_len"),
        max_num_batched_tokens=v.get("max_num_batched_tokens"),
        block_size=v.get("block_size"),
        fits=fits,
        started=started,
        estimated_max_model_len=v.get("estimated_max_model_len"),
        rank_values=MappingProxyType(rank_values),
        worker_ranks_seen=max((int(r) + 1 for r in ranks if r.isdigit()), default=None),
        warnings=tuple(acc.warnings) + ((f"figures from {len(ranks)} ranks; KV figures are the smallest rank's",) if len(ranks) > 1 and rank_values else ()),
        errors=tuple(acc.errors),
        hits=tuple(acc.hits),
        unrecognised=tuple(acc.unrecognised),
        unrecognised_count=acc.unrecognised_count,
        error_lines=tuple(acc.error_lines),
        last_lines=tuple(acc.last_lines),
        parse_warnings=tuple(parse_warnings),
        lines_read=stats.lines,
        startups=stats.startups,
        first_line=stats.first_line,
        text_lines=stats.text_lines,
        undecodable_lines=stats.undecodable_lines,
        rocm_line=stats.rocm_line,
        wsl2_line=stats.wsl2_line,
        amd_device_name=stats.amd_device_name,
        api_server_seen=bool(v.get("api_server_seen")),
    )


def unrecognised_warning(count: int, where: str = "see unrecognised") -> str:
    """The parse warning on memory-related lines not recognised, pointing to where they are listed: by default the
    log's own `unrecognised`, which `kvplan reconcile` prints and puts in its --json (StartupLog.parse_warnings_listed
    names another place)."""
    return f"{count} memory-related line(s) not recognised ({where})"


def fill_template(template: str, groups: Mapping[str, Any]) -> str:
    """Fill a cause/fix template; a missing or empty group reads '?'."""

    class _Defaults(dict):
        def __missing__(self, key):
            return "?"

    values = _Defaults({k: v for k, v in groups.items() if v not in (None, "")})
    try:
        return template.format_map(values)
    except (ValueError, IndexError, KeyError):
        return template
