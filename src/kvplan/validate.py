"""Score kvplan against real vLLM startups (startup records, docs/startup-record-format.md).

`validate_records(records)` predicts each record's logged figures from its model config,
GPU, engine arguments and vLLM version alone (end to end), or from its logged KV-cache
GiB (`given_kv=True`: only the pool arithmetic is scored). The seeds' simple arithmetic
(1 GB overhead, every layer full attention) is scored beside it on the same records.
A record kvplan cannot predict is reported as skipped, with the reason; skips count.
"""

from __future__ import annotations

import json
import math
import re
import statistics
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable

# the band lives in kvplan.band (read by `kvplan fit` without this module); validate writes its table (residual_table)
# and scores each record under its keys; its public names (uncertainty_band, band_bounds) stay importable from here
from kvplan.band import args_seen_table, args_set, async_scheduling_ran, band_bounds, era_group, model_architecture, model_family, uncertainty_band  # noqa: F401
from kvplan.errors import InputError, KvplanError, RefusedByVLLMError
from kvplan.inputs import existing_file, json_loads, read_text
from kvplan.logs import EXTENSIBLE_KV_FIRST_RELEASE, RECORD_ARG_NAMES, as_int
from kvplan.plan import (BATCHED_TOKENS_BELOW_MAX_MODEL_LEN, CAPTURE_SIZE_ARGS, INT_ENGINE_ARGS, EngineArgs, Plan, accepted_tp_sizes, human_int,
                         parse_capture_sizes, parse_env, parse_max_model_len, plan)
from kvplan.plan.args import hf_overrides_object, rope_scaling_object
from kvplan.resolve import (BNB_IN_FLIGHT, GB, GIB, MAX_GPU_COUNT, MAX_MEMORY_BYTES, CheckpointWeights, GPUSpec, QuantSpec, find_gpu, gpu_count_in_name, heads_per_rank,
                            model_catalog, normalize, resolve_model, wsl2_gpu)
from kvplan.versions import (DEFAULT_RELEASE, NEWEST_READ, OLDEST_READ, RELEASE_NUMBERS_FROM, canonical_quant, names_patch_release, outside_read,
                             parse_version, untagged_build_release, untagged_source_build)
from kvplan.weights import kv_dtype_bytes

FIGURES = ("weights_gib", "kv_cache_gib", "num_gpu_blocks", "kv_cache_tokens", "max_concurrency")
# the record format's args (what `kvplan reconcile --record` writes from a log), then the flags kvplan reads beyond it
ARG_FIELDS = RECORD_ARG_NAMES + (
    "speculative_config", "runner", "pooler_config", "override_pooler_config", "enable_lora", "max_loras", "max_lora_rank", "fully_sharded_loras", "max_cpu_loras",
    "lora_target_modules", "cpu_offload_gb",
    "limit_mm_per_prompt", "language_model_only", "entrypoint", "data_parallel_size", "decode_context_parallel_size", "prefill_context_parallel_size", "dcp_kv_cache_interleave_size",
    "cp_kv_cache_interleave_size",
    "enable_expert_parallel",
    "expert_placement_strategy", "enable_eplb", "num_redundant_experts", "eplb_config", "all2all_backend",
    "enable_chunked_prefill", "env", "kv_cache_memory_bytes", "mamba_ssm_cache_dtype", "mamba_cache_dtype", "gdn_prefill_backend",
    "moe_backend", "skip_mm_profiling",
    "enable_sleep_mode", "disable_custom_all_reduce", "load_format", "allow_deprecated_quantization",
    "performance_mode", "async_scheduling", "disable_hybrid_kv_cache_manager", "disable_sliding_window",
    "kv_transfer_config", "cudagraph_capture_sizes", "max_cudagraph_capture_size", "cuda_graph_sizes", "hf_overrides", "rope_scaling", "rope_theta",
    "num_gpu_blocks_override", "mamba_block_size", "calculate_kv_scales")

# Other vLLM engine arguments a record may carry (EngineArgs in vllm/engine/arg_utils.py, 0.11.0; the OpenAI server's
# own flags in vllm/entrypoints/openai/cli_args.py, same release; a few older ones where marked), by what they do to
# the figures a startup logs: the weights, the profiled peak, the CUDA-graph pool and the KV pool with its pages.
# Without effect on them (names, tokenizer, loading source, seeds, logging, CPU swap, scheduling order, HTTP server):
# read, put aside, and named in the record's notes.
ARGS_WITHOUT_MEMORY_EFFECT = frozenset({
    "model", "served_model_name", "tokenizer", "tokenizer_mode", "tokenizer_revision", "revision", "code_revision",
    "trust_remote_code", "hf_token", "download_dir", "skip_tokenizer_init", "allowed_local_media_path",
    "allowed_media_domains", "seed", "swap_space",  # swap_space: CPU blocks for preemption (V0), never GPU memory
    "disable_log_stats", "aggregate_engine_logging", "distributed_executor_backend", "max_parallel_loading_workers",
    "ray_workers_use_nsight", "max_logprobs", "logprobs_mode", "scheduling_policy", "reasoning_parser",
    "guided_decoding_backend", "logits_processor_pattern", "generation_config", "override_generation_config",
    "otlp_traces_endpoint", "collect_detailed_traces", "show_hidden_metrics_for_version", "use_tqdm_on_load",
    "prefix_caching_hash_algo", "ignore_patterns", "disable_cascade_attn",  # cascade attention: a per-step kernel choice
    "use_v2_block_manager",  # 0.6: "[DEPRECATED] ... has no effect on vLLM behavior"
    # the OpenAI server's flags (cli_args.py) and AsyncEngineArgs' (0.6-0.10)
    "host", "port", "api_key", "uvicorn_log_level", "disable_uvicorn_access_log", "allow_credentials",
    "allowed_origins", "chat_template", "response_role", "enable_auto_tool_choice", "tool_call_parser",
    "disable_log_requests", "enable_log_requests", "root_path", "ssl_keyfile", "ssl_certfile", "lora_modules",
})
# With effect on them, and not modelled by kvplan: a record that sets one away from vLLM's default (the value here,
# EngineArgs 0.11.0 unless marked) has no prediction to score, and is skipped naming it. The ones kvplan models are in
# ARG_FIELDS and pass through to the planner (kv_cache_memory_bytes, mamba_ssm_cache_dtype, cpu_offload_gb, ...).
ARGS_NOT_MODELLED = {
    # (num_gpu_blocks_override, calculate_kv_scales and mamba_block_size are modelled: ARG_FIELDS, plan.planner
    # _override_note, plan.serve_flags calculate_kv_scales_says / mamba_block_size_refusal, plan.kv)
    # (disable_sliding_window and disable_hybrid_kv_cache_manager are modelled: ARG_FIELDS, plan.planner
    # sliding_window_disabled, plan.kv._windows_kept)
    "kv_sharing_fast_prefill": False,
    # (mamba_cache_dtype is modelled: ARG_FIELDS, plan.kv._conv_dtype)
    # --cudagraph-capture-sizes / --max-cudagraph-capture-size (0.11.1+) and 0.9.0-0.12.x's --cuda-graph-sizes are
    # modelled (ARG_FIELDS, plan.given_capture_sizes)
    "compilation_config": None,
    "max_seq_len_to_capture": 8192,  # 0.6-0.10: the longest sequence a CUDA graph covers
    # (enable_sleep_mode, the CuMem allocator, is modelled: ARG_FIELDS, plan.serve_flags)
    "hf_config_path": None,  # another config than the checkpoint's (--hf-overrides / --rope-scaling are in ARG_FIELDS)
    "model_impl": "auto",  # the Transformers backend's layers instead of vLLM's
    "override_attention_dtype": None,
    # (load_format, the loader, is modelled: ARG_FIELDS, plan.serve_flags: the same weights on the GPU, vLLM's refusals)
    "enable_dbo": False,  # (decode_context_parallel_size is modelled: ARG_FIELDS, plan.kv.dcp_checks)
    # (prefill_context_parallel_size is modelled: ARG_FIELDS, plan.kv.pcp_checks; dcp_kv_cache_interleave_size and
    # cp_kv_cache_interleave_size too: ARG_FIELDS, plan.kv.interleave_checks, where DCP places tokens, no figure moved)
    # (disable_custom_all_reduce is modelled: ARG_FIELDS, plan.terms custom_allreduce_says)
    # (async_scheduling, the tokens in flight per sliding-window request, is modelled: ARG_FIELDS, plan.serve_flags)
    "mm_encoder_tp_mode": "weights", "mm_processor_kwargs": None,
    "lora_dtype": "auto", "lora_extra_vocab_size": 256, "long_lora_scaling_factors": None,
    # (kv_transfer_config is modelled: ARG_FIELDS, plan.kv_transfer: vLLM's checks, the hybrid manager it turns off;
    # the connector's own buffers are a warning)
    "num_lookahead_slots": 0, "speculative_model": None, "num_speculative_tokens": None,  # 0.6-0.7 speculative flags
    "quantization_param_path": None,  # 0.6: KV-cache scales file
}

# --quantization names as records carry them -> what the weights are when the record's config
# does not carry a quantization_config (a base-model config stood in for the quantized checkpoint).
_QUANT_FROM_FLAG = {
    "awq": QuantSpec("awq", 4, 128, "int4 w4a16 group 128 (from --quantization)"),
    "awq_marlin": QuantSpec("awq", 4, 128, "int4 w4a16 group 128 (from --quantization)"),
    "gptq": QuantSpec("gptq", 4, 128, "int4 w4a16 group 128 (from --quantization)"),
    "auto-round": QuantSpec("auto_round", 4, 128, "int4 w4a16 group 128 (from --quantization)"),
    "fp8": QuantSpec("fp8", 8, None, "fp8 (from --quantization)"),
    "modelopt": QuantSpec("modelopt", 4, 16, "nvfp4 (from --quantization)"),
    "mxfp4": QuantSpec("mxfp4", 4, 32, "mxfp4 (experts, from --quantization)", applies_to="experts"),
    # the Marlin kernels' names for the same int4 checkpoints, and formats the flag alone defines
    "gptq_marlin": QuantSpec("gptq", 4, 128, "int4 w4a16 group 128 (from --quantization)"),
    "marlin": QuantSpec("gptq", 4, 128, "int4 w4a16 group 128 (from --quantization)"),
    "modelopt_fp4": QuantSpec("modelopt", 4, 16, "nvfp4 (from --quantization)"),
    "fbgemm_fp8": QuantSpec("fp8", 8, None, "fp8 (from --quantization)"),
    "experts_int8": QuantSpec("experts_int8", 8, None, "int8 experts, quantized at load (from --quantization)", applies_to="experts"),
    # quantized at load from an unquantized checkpoint, as `kvplan fit` plans the same flag (plan._resolve_quant)
    "bitsandbytes": BNB_IN_FLIGHT,
    "ptpc_fp8": QuantSpec("fp8", 8, None, "fp8 per token and channel, quantized at load (from --quantization)"),
}
_ONLINE_FP8 = QuantSpec("fp8", 8, None, "fp8 per-tensor, quantized at load with the vision tower (from --quantization; "
                        "the model id names no quantized checkpoint)", applies_to="all_linear")


@dataclass
class RecordResult:
    id: str
    label: dict
    predicted: dict = field(default_factory=dict)
    observed: dict = field(default_factory=dict)
    error_pct: dict = field(default_factory=dict)
    skipped: str | None = None
    seed_predicted: dict = field(default_factory=dict)
    seed_error_pct: dict = field(default_factory=dict)
    assumptions: list = field(default_factory=list)
    # what the plan took for what the record leaves out (the release's defaults for its null args, estimates), beside
    # the record-level notes above: the record format's "says which default it used"
    plan_assumptions: list = field(default_factory=list)
    # the residual groups of the plan the record was scored with (family and era, and the family's all-eras group),
    # which residual_table files its KV residual under; not part of the output
    band_keys: tuple[str, ...] = ()
    # the engine arguments the record's plan was given away from vLLM's default (band.args_set), which residual_table
    # counts into "args_seen"; not part of the output
    args_set: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"id": self.id, **self.label, "predicted": self.predicted, "observed": self.observed,
                "error_pct": self.error_pct, "skipped": self.skipped, "seed_predicted": self.seed_predicted,
                "seed_error_pct": self.seed_error_pct, "assumptions": list(self.assumptions),
                "plan_assumptions": list(self.plan_assumptions)}


def load_records(path: str | Path) -> list[dict]:
    # '-' is standard input, as reconcile and diagnose read it (logs.read_log); validate said 'no such file: -'
    p = sys.stdin.buffer if str(path) == "-" else existing_file(
        path, "FILE", "give a JSONL file of startup records, or - to read standard input")
    # gzip, and UTF-16 with a byte-order mark (Windows PowerShell 5's `>`), are read; a UTF-8 byte-order mark is not content
    text = read_text(p, "startup records as JSON lines (docs/startup-record-format.md)",
                     "write the records as UTF-8 JSON lines (PowerShell: Out-File -Encoding utf8)")
    if text.lstrip().startswith(("[", "{")):  # a JSON array of records, or one record, rather than JSON lines
        try:
            whole = json_loads(text)
        except json.JSONDecodeError:
            whole = None
        if isinstance(whole, list):
            return _some([_startup_record(rec, f"{path}:{n}") for n, rec in enumerate(whole, 1)], path)
        if isinstance(whole, dict) and "\n" in text.strip():  # one record written over several lines
            return [_startup_record(whole, f"{path}:1")]
    out = []
    lines = text.splitlines()
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith(("#", "//")):  # blank lines and comment lines
            continue
        try:
            rec = json_loads(line)
        except json.JSONDecodeError as exc:
            raise _not_a_record_line(path, n, lines, exc) from None
        out.append(_startup_record(rec, f"{path}:{n}"))
    return _some(out, path)


# a line of vLLM's own log: "INFO 07-06 09:41:03 [core.py:113] ..." (before 0.8: "INFO 07-06 09:41:03 core.py:113] ...")
_VLLM_LOG_LINE = re.compile(r"\b(?:INFO|WARNING|ERROR|DEBUG)\b.*\b[\w./-]+\.py:\d+\]")


def _not_a_record_line(path, n: int, lines: list[str], exc: json.JSONDecodeError) -> InputError:
    """The InputError for line `n` that is no JSON: what the file seems to be instead where that is clear (a record
    written over several lines, a vLLM log), with the way to a record file."""
    # the failing line or the next lines that are no JSON object (a record's notes may quote a log line)
    if any(_VLLM_LOG_LINE.search(line) for line in lines[n - 1:n + 49] if not line.lstrip().startswith("{")):
        return InputError("FILE", f"{path}:{n} is a line of a vLLM log, not a startup record",
                          f"kvplan reconcile {path} MODEL --record records.jsonl writes the log's startup as a record")
    if lines[n - 1].strip() in ("{", "["):
        try:
            json.JSONDecoder().raw_decode("\n".join(lines[n - 1:]).lstrip())
        except json.JSONDecodeError:
            pass
        else:
            return InputError("FILE", f"{path}:{n} starts a record written over several lines (pretty-printed JSON)",
                              f"one startup record per line: jq -c . {path} > records.jsonl")
    return InputError("FILE", f"{path}:{n} is not JSON ({exc.msg})", "one startup record per line")


def _some(records: list[dict], path) -> list[dict]:
    if not records:
        raise InputError("FILE", f"no records in {path}", "give a JSONL file with one startup record per line")
    return records


# what kvplan cannot predict a record without: its model and what its log showed
REQUIRED_FIELDS = ("model", "observed")


def _startup_record(rec, where: str) -> dict:
    if not isinstance(rec, dict):
        raise InputError("FILE", f"{where} is not a startup record (a JSON {type(rec).__name__}, not an object)",
                         "see docs/startup-record-format.md")
    missing = [k for k in REQUIRED_FIELDS if k not in rec]
    if missing:
        raise InputError("FILE", f"{where} is not a startup record: no {' and no '.join(repr(k) for k in missing)} field",
                         "add " + " and ".join(repr(k) for k in missing) + " as docs/startup-record-format.md shows")
    if rec.get("id") is None:  # named by where it stands, so that its row and any skip say which record it is
        rec = dict(rec, id=f"{where} (no id)")
    return rec


def log_format_era(obs: dict) -> tuple[str, str, str, str] | None:
    """The releases a version-less record's log format allows (docs/vllm-memory-model.md section 8): (the rules read
    for it, the first and the last release of the range a source's date may narrow it to, what identified it); None
    when the figures do not tell."""
    has = {k for k, v in obs.items() if v is not None}
    # vLLM 0.34's extensible KV cache (on by default on CUDA and ROCm) sizes the pool after warmup and CUDA-graph capture
    # and says so in one line no earlier release prints ("Memory after warmup: F GiB free, ... K GiB kept for transient
    # activations ...": vllm/v1/worker/extensible_kv_cache.py measure_kv_cache_blocks, 0.34.0 wheel), whose transient
    # figure the record keeps: read with 0.34.0's rules, the first release that prints it. First, since such a log
    # also gives the block count (num_gpu_blocks), which alone would read as V0 where it is cut before the token line.
    if "transient_kept_gib" in has:
        return (EXTENSIBLE_KV_FIRST_RELEASE, EXTENSIBLE_KV_FIRST_RELEASE, NEWEST_READ,
                "the 'Memory after warmup' line (the extensible KV cache sized after warmup) identifies >= "
                f"{EXTENSIBLE_KV_FIRST_RELEASE} ({EXTENSIBLE_KV_FIRST_RELEASE} rules, the first release that prints it)")
    # V0's memory-split line ("model weights take ...; non_torch_memory takes ...; PyTorch activation peak memory takes
    # ...") is printed from 0.6.5 (worker/worker.py determine_num_available_blocks, read in the 0.6.6.post1 wheel) by
    # the V0 engine, the default up to 0.7.3 (V1 from 0.8.0): read with 0.7.3's rules unless a date says which
    split = ("0.7.3", "0.6.5", "0.7.3",
             "the V0 memory-split line of the log identifies the 0.6.5-0.7.3 V0 era (0.7.3 rules unless dated)")
    if "num_gpu_blocks" in has and ("kv_cache_tokens" not in has or "non_torch_gib" in has):
        if "non_torch_gib" in has and "activation_peak_gib" not in has:
            return "0.6.4", "0.6.4", "0.6.4", "the V0 memory-profiling format of the log identifies the 0.6.4 era"
        if "activation_peak_gib" in has:
            return split
        return (OLDEST_READ, "0.0.0", "0.7.3",
                f"a '# GPU blocks' line without a token line identifies V0 ({OLDEST_READ} rules, the oldest read)")
    # V1's post-capture summary line (section 1.6): "... W GiB for weight, A GiB for peak activation, N GiB for
    # non-torch memory, and C GiB for CUDAGraph memory" is printed by 0.10.2-0.26 only; from 0.27 the line gives
    # "consumed memory (weights + non-torch)" instead, so an activation figure without a non-torch one is the new
    # form. Each format is read as the first release that prints it, as the V0 formats above are.
    if "activation_peak_gib" in has and "non_torch_gib" in has and "cudagraph_gib" not in has:
        return split
    if "activation_peak_gib" in has and "cudagraph_gib" in has:
        if "non_torch_gib" in has:
            return ("0.10.2", "0.10.2", "0.26.99", "the summary line with separate weight, activation, non-torch and "
                    "CUDAGraph figures identifies 0.10.2-0.26 (0.10.2 rules, the first release that prints it)")
        return ("0.27.0", "0.27.0", NEWEST_READ, "the summary line with 'consumed memory (weights + non-torch)' "
                "identifies >= 0.27 (0.27.0 rules, the first release that prints it)")
    return None


def version_basis(rec: dict, notes: list[str] | None = None) -> tuple[str, str]:
    """(the release whose rules a record is planned with, what says so): "stated", "commit count" (an untagged source
    build's 0.1.dev<N>, versions.untagged_build_release), "log format" or "newest" (the record format's rule). What was
    inferred is added to `notes`."""
    notes = notes if notes is not None else []
    v = rec.get("vllm_version")
    if v and untagged_source_build(v):
        release, why = untagged_build_release(v)
        if release is not None:  # setuptools-scm's commit count places it after a release's branch point on main
            notes.append(f"vLLM {v} is a source build without a release tag: {why}, so {release}'s rules applied")
            return release, "commit count"
        # (why the number places it nowhere: parse_version's refusal of it as --vllm-version says)
        notes.append(f"vLLM {v} is a source build without a release number: read as a record without a version")
    elif v:
        try:
            release = parse_version(v)
        except InputError:
            notes.append(f"vLLM version {v!r} is not a release number: read as a record without a version")
        else:
            # below versions.RELEASE_NUMBERS_FROM (0.2): setuptools-scm's 0.1 guess for an untagged checkout, not a release
            if release >= RELEASE_NUMBERS_FROM:
                if not names_patch_release(v):  # '0.11': parse_version reads it as the series' first release
                    notes.append(f"vLLM {v!r} names no patch release: {release[0]}.{release[1]}.0's rules applied "
                                 f"(give the full release the log prints, e.g. {release[0]}.{release[1]}.1, if a later one ran)")
                if outside_read(release) == "newer":
                    notes.append(f"vLLM {v} is newer than the newest release kvplan has read ({NEWEST_READ}): its "
                                 "rules applied, what changed since is not modelled (check the version for a typo)")
                return v, "stated"
            notes.append(f"vLLM {v} is a source build without a release number: read as a record without a version")
    # the log format bounds the era; nothing else of the record names it: its id and source are not read
    # (docs/startup-record-format.md; the fitting tools date a calibration record by its source, tools/record_dating.py)
    fmt = log_format_era(rec.get("observed") or {})
    if fmt:
        rules, _, _, what = fmt
        notes.append(f"vLLM version not stated; {what}")
        return rules, "log format"
    # the record format's "newest behaviour the tool knows": the newest release whose sizing real startups validated
    # (versions.DEFAULT_RELEASE); a 0.34+ start, whose pool is sized after warmup, prints 'Memory after warmup', which
    # a record carries as observed.transient_kept_gib and log_format_era reads above
    notes.append(f"vLLM version not stated: the default release's rules ({DEFAULT_RELEASE}, the newest whose KV-cache "
                 f"sizing real startups validated; {NEWEST_READ} sizes it after warmup) applied")
    return DEFAULT_RELEASE, "newest"


def _record_gpu(rec: dict, notes: list[str] | None = None) -> GPUSpec:
    g = rec.get("gpu") or {}
    name, total = g.get("name"), g.get("total_gib")
    base, why, near = None, None, None
    if name:
        try:
            base = find_gpu(name, total_bytes=int(round(total * GIB)) if total else None)
        except KvplanError as exc:
            why = exc.message if hasattr(exc, "message") else str(exc)
            # find_gpu's catalog names nearest a misspelt one ('RTX 4080 Supr'); its --gpu-gib is no record field
            fix = getattr(exc, "fix", None) or ""
            near = fix.split(";")[0] if fix.startswith("nearest:") else None
    if total:
        if base is not None:
            return replace(base, total_bytes=int(round(total * GIB)), total_source=f"record: {total} GiB as logged")
        if notes is not None:
            notes.append((f"GPU {name!r} is not in kvplan's catalog" if name else "the record names no GPU")
                         + f": planned with the record's {total} GiB and no compute capability (kernel choices keyed "
                         "on one, Marlin, FP8, attention, take kvplan's defaults; no capability gate is checked)"
                         + (f" (nearest catalog names: {near.removeprefix('nearest:').strip()})" if near else ""))
        # a card the catalog lacks keeps the vendor its name states (an AMD Radeon/Instinct card runs vLLM's ROCm
        # build: ROCm's rules apply, e.g. versions.py cudagraph_subtracted_rocm), else kvplan's default, NVIDIA
        vendor = "AMD" if name and re.search(r"\b(AMD|Radeon|Instinct)\b", name, re.IGNORECASE) else "NVIDIA"
        return GPUSpec(id="record", name=name or f"{total} GiB GPU", total_bytes=int(round(total * GIB)), total_source="record",
                       vendor=vendor)
    if base is not None and g.get("wsl2"):
        # a start under WSL2 whose log prints no total: CUDA's total there is the card's nvidia-smi memory.total
        # (resolve.wsl2_gpu), what `kvplan fit --wsl2` plans with; a logged total above wins over it
        try:
            return wsl2_gpu(base, name)
        except KvplanError as exc:
            raise InputError("gpu.wsl2", f"{getattr(exc, 'message', exc)}; the record gives no total_gib",
                             "add gpu.total_gib as vLLM logged it under WSL2") from None
    if base is None:
        if not name:
            raise InputError("gpu", "the record names no GPU and gives no total_gib: no memory to plan with",
                             "add gpu.name as nvidia-smi prints it, or gpu.total_gib as vLLM logged it")
        raise InputError("gpu.name", f"{why or f'GPU {name!r} is not in kvplan catalog'}; the record gives no total_gib",
                         "add gpu.total_gib as vLLM logged it" + (f", or name the GPU as kvplan's catalog does ({near})"
                                                                  if near else ""))
    return base


def quant_from_name(model_id: str) -> QuantSpec | None:
    """A compressed-tensors scheme read from a checkpoint's name (e.g. '...-NVFP4', '...-FP8', '...-INT4', '...AWQ-4bit')."""
    name = model_id.lower()
    if "nvfp4" in name or "fp4" in name:
        return QuantSpec("compressed-tensors", 4, 16, "nvfp4 (compressed-tensors, from the checkpoint name)")
    if "fp8" in name or "w8a8" in name:
        return QuantSpec("compressed-tensors", 8, None, "fp8 (compressed-tensors, from the checkpoint name)")
    if "int4" in name or "4bit" in name or "awq" in name or "w4a16" in name or "gptq" in name:
        return QuantSpec("compressed-tensors", 4, 128, "int4 w4a16 group 128 (compressed-tensors, from the checkpoint name)",
                         weight_only=True)
    if "int8" in name or "8bit" in name:
        return QuantSpec("compressed-tensors", 8, 128, "int8 (compressed-tensors, from the checkpoint name)")
    return None


def _bnb_from_name(model_id: str) -> QuantSpec | None:
    """--quantization bitsandbytes for a record whose config is a stand-in without quantization_config, when the
    checkpoint's name says it is pre-quantized: 8-bit where the name says so (only a pre-quantized checkpoint loads as
    8-bit), else 4-bit NF4 with double-quantized statistics, as vLLM's in-flight quantization also produces
    (resolve.BNB_IN_FLIGHT). None for a name that says neither: the unquantized checkpoint, quantized at load."""
    name = model_id.lower()
    if "8bit" in name or "int8" in name:
        return QuantSpec("bitsandbytes", 8, None, "bitsandbytes 8-bit (from the checkpoint name)")
    if "4bit" in name or "bnb" in name or "nf4" in name:
        return replace(BNB_IN_FLIGHT, scheme="bitsandbytes 4-bit nf4, double quant (from the checkpoint name; vLLM's "
                                             "in-flight quantization holds the same bytes)")
    return None


_EMBEDDING_NAME = re.compile(r"embed", re.IGNORECASE)


def _kept_flag(flag: str) -> str | None:
    """The record's --quantization as the plan takes it once the record's config (or the flag) has sized the weights:
    only "awq" and "awq_marlin" are kept, which name the kernel vLLM runs the checkpoint's Linear layers with (up to
    0.23 "awq" forces the plain AWQ kernel where AWQ-Marlin would otherwise convert the checkpoint:
    plan.awq_linear_kernel), and the plain kernel changes the profile's live set (plan.awq_dequant_bytes)."""
    return flag if flag in ("awq", "awq_marlin") else None


def _record_model(rec: dict, args: dict, notes: list[str]):
    m = rec["model"]
    config = m.get("config")
    ckpt = CheckpointWeights((("total", int(m["weights_bytes"])),), source="record: weights_bytes", mtp_included=True) \
        if m.get("weights_bytes") else None
    if not isinstance(config, dict) or not config:
        if not (m.get("id") and m["id"] in model_catalog()):
            raise InputError("model.config", "the record carries no config", "add the checkpoint's config.json")
        # a hand-written record of a catalog model: the catalog holds that checkpoint's own config (and its tensors'
        # dtypes), read offline as `kvplan fit` reads it
        spec = resolve_model(m["id"])
        notes.append(f"the record carries no config: {m['id']} planned from kvplan's catalog ({spec.source})")
        if ckpt:
            spec = replace(spec, checkpoint=ckpt)
    else:
        spec = normalize(config, model_id=m.get("id") or "record", source="record", hf_quant_config=m.get("quant_config"),
                         checkpoint=ckpt, autoconfig=True)
    flag = canonical_quant(args.get("quantization") or "")  # an unset one ('none', 'null') clean_record dropped
    if flag and spec.quant is None:
        q = None
        if flag == "bitsandbytes":
            q = _bnb_from_name(m.get("id") or "")
        elif flag in ("compressed-tensors", "torchao"):  # a pre-quantized checkpoint's name says its scheme
            q = quant_from_name(m.get("id") or "")
            if q is not None:
                q = replace(q, method=flag, scheme=q.scheme.replace("compressed-tensors", flag))
        if q is None and flag == "fp8" and quant_from_name(m.get("id") or "") is None and spec.is_multimodal:
            # the model id names no quantized checkpoint: vLLM quantizes the unquantized one at load, every Linear
            # layer, the vision tower's included (an Fp8Config with no ignored layers, as plan._resolve_quant plans it)
            q = _ONLINE_FP8
        q = q or _QUANT_FROM_FLAG.get(flag)
        if q is None:
            raise InputError("args.quantization", f"{flag} without a quantization_config in the record's config",
                             "add the quantized checkpoint's config")
        spec = replace(spec, quant=q)
        notes.append(f"record config has no quantization_config: weights sized as {q.scheme}")
        args = dict(args, quantization=_kept_flag(flag))
    elif flag and spec.quant is not None:
        args = dict(args, quantization=_kept_flag(flag))
    if flag == "bitsandbytes" and str(args.get("load_format") or "").lower() == "bitsandbytes":
        # the pair vLLM < 0.8.2 needs, and >= 0.8.2 sets itself: bitsandbytes' loader, the weights sized by the
        # quantization above (whose flag is not passed on: plan.serve_flags would read the format alone)
        args = {k: v for k, v in args.items() if k != "load_format"}
    if "runner" not in args and not spec.is_pooling and _EMBEDDING_NAME.search(m.get("id") or ""):
        # a record has no file list; embedding checkpoints (Qwen3-Embedding, gte-Qwen2, e5-mistral...) ship a
        # sentence-transformers Pooling module, which vLLM's --runner auto serves as a pooling model
        args = dict(args, runner="pooling")
        notes.append("checkpoint named as an embedding model: served as vLLM's pooling runner (no lm_head, no sampler)")
    return spec, args


# ---- record values as other sources write them ("0.9", "4,096", "32k", 4096.0, "true") -> the types vLLM's flags take

_BOOL_ARGS = ("enforce_eager", "enable_prefix_caching", "enable_lora", "fully_sharded_loras", "language_model_only",
              "enable_expert_parallel", "enable_eplb", "enable_chunked_prefill", "skip_mm_profiling",
              "enable_sleep_mode", "disable_custom_all_reduce", "allow_deprecated_quantization", "async_scheduling",
              "disable_hybrid_kv_cache_manager", "disable_sliding_window", "calculate_kv_scales")
_FLOAT_OBSERVED = ("weights_gib", "non_torch_gib", "activation_peak_gib", "cudagraph_gib", "kv_cache_gib", "max_concurrency",
                   "transient_kept_gib")  # (the last: vLLM >= 0.34's extensible KV cache, its 'Memory after warmup' line)
_INT_OBSERVED = ("num_gpu_blocks", "kv_cache_tokens")

# every key a startup record may carry (docs/startup-record-format.md, and the engine flags `ARG_FIELDS` kvplan reads
# beyond it), by section; "" is the top level. A key outside these would be ignored, so the record is refused instead.
RECORD_FIELDS = {
    "": ("id", "source", "vllm_version", "model", "gpu", "args", "observed", "notes"),
    "model": ("id", "config", "quant_config", "weights_bytes"),
    "gpu": ("name", "total_gib", "count", "wsl2"),
    "args": ARG_FIELDS,
    "observed": _FLOAT_OBSERVED + _INT_OBSERVED + ("fits",),
}


def _check_fields(rec: dict) -> None:
    """InputError naming each key `rec` carries that the record format does not know, with the nearest known one."""
    import difflib

    unknown = []
    for section, known in RECORD_FIELDS.items():
        part = rec if not section else rec.get(section)
        if part is None:
            continue
        if not isinstance(part, dict):
            raise InputError(section, f"must be a JSON object, got {type(part).__name__}",
                             "see docs/startup-record-format.md")
        for key in part:
            if key in known:
                continue
            if section == "args" and key in ARGS_WITHOUT_MEMORY_EFFECT:
                continue  # noted by _plan_record
            if section == "args" and key in ARGS_NOT_MODELLED:
                _check_not_modelled(key, part[key])
                continue
            near = difflib.get_close_matches(str(key), known + tuple(ARGS_WITHOUT_MEMORY_EFFECT) + tuple(ARGS_NOT_MODELLED), n=1)
            unknown.append(f"{section + '.' if section else ''}{key}" + (f" (did you mean {near[0]}?)" if near else ""))
    if unknown:
        raise InputError("record", "unknown field " + "; unknown field ".join(unknown),
                         "a misspelt key would be ignored and its default used: fix it as docs/startup-record-format.md shows")


def _check_not_modelled(key: str, value) -> None:
    """InputError naming an engine argument of ARGS_NOT_MODELLED that a record sets away from vLLM's default."""
    default = ARGS_NOT_MODELLED[key]
    if value in (None, "", {}, []) or value == default:  # unset, as a log or a config file writes it
        return
    if isinstance(default, bool):
        try:
            if _as_bool(value, f"args.{key}") == default:  # 'false', '0', 'no' as _as_bool reads them
                return
        except InputError:  # not a boolean at all: not the default either
            pass
    if isinstance(default, (int, str)) and not isinstance(default, bool) and str(value).strip().lower() == str(default):
        return
    raise InputError(f"args.{key}", f"set to {value!r}: this vLLM engine argument changes what the startup sizes "
                     f"(default {default!r}) and kvplan does not model it, so there is no prediction to score",
                     f"score only startups run without --{key.replace('_', '-')} (or at its default)")


def _as_int(value, where: str) -> int:
    number = as_int(value)
    if number is None and where.startswith("args."):  # an engine flag as vllm serve reads it: 8k, 8K
        number = human_int(value)
    if number is None:
        raise InputError(where, f"must be a whole number, got {value!r}", "fix the record")
    return number


# the units vLLM's log lines print after a figure, which a record may copy with it: GiB (printed "GB" before 0.7, the
# same GiB: bytes / 2**30) and the concurrency's "x" ("Maximum concurrency for 16,384 tokens per request: 28.37x")
_LOGGED_UNITS = {"gib": ("gib", "gb"), "x": ("x",)}


def _as_float(value, where: str) -> float:
    if isinstance(value, bool):
        raise InputError(where, f"must be a number, got {value!r}", "fix the record")
    text = str(value).strip().replace(",", "") if isinstance(value, str) else None
    if text is not None:
        unit = "gib" if where.endswith("_gib") else "x" if where.endswith("max_concurrency") else None
        for u in _LOGGED_UNITS.get(unit, ()):
            if text.lower().endswith(u) and text[:-len(u)].strip():
                text = text[:-len(u)].strip()
                break
    try:
        return float(text) if text is not None else float(value)
    except (TypeError, ValueError):
        raise InputError(where, f"must be a number, got {value!r}", "fix the record") from None


def _as_bool(value, where: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise InputError(where, f"must be true or false, got {value!r}", "fix the record")


# --dtype values as records spell them -> vllm serve's names for them
_DTYPE_SPELLINGS = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}


_TEXT_FIELDS = ("id", "source")


def clean_record(rec: dict) -> dict:
    """A copy of `rec` with its values in the types the planner takes; InputError naming the field otherwise."""
    _check_fields(rec)
    if "args" not in rec:  # a null argument is vLLM's default, said so; a record without the section forgot them all
        raise InputError("args", "the record has no args: every engine argument would take vLLM's default (max_model_len "
                         "the model's limit, the release's gpu_memory_utilization), a guess at the command that ran",
                         'add "args" with the engine arguments the log shows, as docs/startup-record-format.md does '
                         '({} if every one was left at its default)')
    for key in _TEXT_FIELDS:  # read as text (the source's date, the release's rules): a number there is a mistake
        if rec.get(key) is not None and not isinstance(rec[key], str):
            raise InputError(key, f"must be text, got {rec[key]!r}", "see docs/startup-record-format.md")
    out = dict(rec)
    args = {k: v for k, v in (rec.get("args") if isinstance(rec.get("args"), dict) else {}).items() if v is not None}
    for k in INT_ENGINE_ARGS:
        if k in args:
            args[k] = _as_int(args[k], f"args.{k}")
    if "max_model_len" in args:
        args["max_model_len"] = parse_max_model_len(args["max_model_len"])
    for k in ("gpu_memory_utilization", "cpu_offload_gb"):
        if k in args:
            args[k] = _as_float(args[k], f"args.{k}")
    for k in _BOOL_ARGS:
        if k in args:
            args[k] = _as_bool(args[k], f"args.{k}")
    for k in ("dtype", "kv_cache_dtype", "quantization", "runner", "entrypoint", "mamba_ssm_cache_dtype", "performance_mode",
              "gdn_prefill_backend", "mamba_cache_dtype", "moe_backend"):
        if k in args:
            args[k] = str(args[k]).strip().replace("torch.", "")
            if k != "quantization":
                args[k] = args[k].lower()
    if args.get("dtype") in _DTYPE_SPELLINGS:  # a record writes the checkpoint's dtype as safetensors do (BF16)
        args["dtype"] = _DTYPE_SPELLINGS[args["dtype"]]
    if str(args.get("quantization", "")).lower() in ("none", "null"):  # the flag's value as a log prints an unset one
        del args["quantization"]
    for key, (flag, example) in CAPTURE_SIZE_ARGS.items():  # [1, 2, 4, 8] as a config writes it, "1 2 4 8" as
        if key in args:  # a command line, [512] for the older flag's one value
            try:
                args[key] = parse_capture_sizes(args[key], flag, example)
            except InputError as exc:
                raise InputError(f"args.{key}", exc.message, exc.fix) from None
    for key in ("hf_overrides", "rope_scaling"):  # a dict, or the JSON a command line gives; {} is unset
        if args.get(key) in ({}, ""):
            del args[key]
        elif key in args:
            try:
                (hf_overrides_object if key == "hf_overrides" else rope_scaling_object)(args[key])
            except InputError as exc:
                raise InputError(f"args.{key}", exc.message, exc.fix) from None
    if "rope_theta" in args:
        args["rope_theta"] = _as_float(args["rope_theta"], "args.rope_theta")
    if "env" in args:  # the server's environment: {"VLLM_USE_V1": "0"} or ["KEY=VALUE", ...]
        args["env"] = parse_env(args["env"])
    out["args"] = args
    obs = dict(rec.get("observed") if isinstance(rec.get("observed"), dict) else {})
    for k in _FLOAT_OBSERVED:
        if obs.get(k) is not None:
            obs[k] = _as_float(obs[k], f"observed.{k}")
            if not math.isfinite(obs[k]):  # NaN or Infinity: no figure a log prints, and no error to score against it
                raise InputError(f"observed.{k}", f"must be a finite number, got {obs[k]!r}",
                                 "copy the figure as the log printed it, or null where the log shows none")
    for k in _INT_OBSERVED:
        if obs.get(k) is not None:
            obs[k] = _as_int(obs[k], f"observed.{k}")
    if obs.get("fits") is not None:
        obs["fits"] = _as_bool(obs["fits"], "observed.fits")
    out["observed"] = obs
    gpu = dict(rec.get("gpu") if isinstance(rec.get("gpu"), dict) else {})
    if gpu.get("total_gib") is not None:
        gpu["total_gib"] = _as_float(gpu["total_gib"], "gpu.total_gib")
        # 0 would read as "not given" (the catalog's total), a negative one as a GPU with no memory, NaN or Infinity
        # as no size at all: each a mistake in the record, never a total vLLM printed
        # bounded as --gpu-gib is (resolve.MAX_MEMORY_BYTES): 1e30 GiB planned a KV cache of 8.5e29 GiB
        if not (math.isfinite(gpu["total_gib"] * GIB) and 0 < gpu["total_gib"] * GIB <= MAX_MEMORY_BYTES):
            raise InputError("gpu.total_gib", f"must be a positive, finite number of GiB (at most "
                             f"{MAX_MEMORY_BYTES // GIB:,}), got {gpu['total_gib']!r}",
                             "give the total vLLM logged for the GPU (e.g. 79.25), or null to take the catalog's")
    if gpu.get("wsl2") is not None:
        gpu["wsl2"] = _as_bool(gpu["wsl2"], "gpu.wsl2")
    if gpu.get("count") is not None:
        gpu["count"] = _as_int(gpu["count"], "gpu.count")
        if not 1 <= gpu["count"] <= MAX_GPU_COUNT:  # 0 would read as "not given" (one GPU, or the count in the name)
            # and plan anyway; 1e23 ran the search for its TP size until killed
            raise InputError("gpu.count", f"must be from 1 to {MAX_GPU_COUNT:,}, got {gpu['count']}",
                             "give the number of GPUs the startup ran on (tensor x pipeline x data parallel size), or null")
    out["gpu"] = gpu
    model = dict(rec.get("model") if isinstance(rec.get("model"), dict) else {})
    for k in ("quant_config", "config"):
        if model.get(k) is not None and not isinstance(model[k], dict):
            raise InputError(f"model.{k}", f"must be a JSON object, got {type(model[k]).__name__}", "fix the record")
    if model.get("weights_bytes") is not None:
        model["weights_bytes"] = _as_int(model["weights_bytes"], "model.weights_bytes")
        if not 0 < model["weights_bytes"] <= MAX_MEMORY_BYTES:  # 1e20 bytes (a typo's zeros) was planned as given
            raise InputError("model.weights_bytes", f"must be a positive number of bytes (at most {MAX_MEMORY_BYTES:,}), "
                             f"got {model['weights_bytes']}",
                             "give the checkpoint's total tensor bytes as a public source states them, or null")
    out["model"] = model
    if out.get("vllm_version") is not None:
        if not isinstance(out["vllm_version"], str):  # a JSON number loses the release's digits: 0.10 is read as 0.1
            raise InputError("vllm_version", f"must be text, got the {type(out['vllm_version']).__name__} "
                             f"{out['vllm_version']!r}", 'quote the release as vLLM prints it, e.g. "0.10.1.1" (a JSON '
                             "number drops trailing zeros: 0.10 reads as 0.1)")
        out["vllm_version"] = out["vllm_version"].strip()
    return out


def predict_record(rec: dict, *, given_kv: bool = False, version: tuple[str, str] | None = None) -> tuple[Plan, list[str]]:
    """The plan of a startup record and the assumptions it took (the record is cleaned first). `version`, (release,
    what says so), plans a record without a stated version with a release read from outside it (the fitting tools
    date calibration records by their source: tools/record_dating.py); by default the record's fields decide
    (`version_basis`)."""
    p, notes, _ = _plan_record(clean_record(rec), given_kv=given_kv, version=version)
    return p, notes


def _plan_record(rec: dict, *, given_kv: bool, version: tuple[str, str] | None = None) -> tuple[Plan, list[str], str]:
    """`predict_record` of a record `clean_record` returned, and what named its rules (`version_basis`'s word, or the
    outside version's)."""
    notes: list[str] = []
    basis = version_basis(rec, notes)
    if version is not None and basis[1] not in ("stated", "commit count"):
        notes.append(f"vLLM {version[0]} from outside the record ({version[1]})")
        basis = version
    version, how = basis
    raw_args = {k: v for k, v in (rec.get("args") or {}).items() if k in ARG_FIELDS and v is not None}
    aside = sorted(k for k in (rec.get("args") or {}) if k in ARGS_WITHOUT_MEMORY_EFFECT or k in ARGS_NOT_MODELLED)
    if aside:
        notes.append(f"engine argument(s) {', '.join(aside)} put aside: without effect on the startup's memory, or at "
                     "vLLM's default")
    spec, raw_args = _record_model(rec, raw_args, notes)
    gpu = _record_gpu(rec, notes)
    count = (rec.get("gpu") or {}).get("count")
    named = gpu_count_in_name((rec.get("gpu") or {}).get("name"))
    if not count and named:  # "4x H100": the count written into the name
        count = named
        notes.append(f"GPU count not stated: {count}, from the name {rec['gpu']['name']!r}")
    count = count or 1
    dp = raw_args.get("data_parallel_size") or 1
    pp = raw_args.get("pipeline_parallel_size") or 1
    if "tensor_parallel_size" not in raw_args and count > dp * pp:
        per_engine = count // (dp * pp)
        # the largest TP the record's GPUs allow that vLLM can split the model's heads over: the engine ran
        tp = max(t for t in accepted_tp_sizes(spec, upto=per_engine) if per_engine % t == 0)
        raw_args["tensor_parallel_size"] = tp
        notes.append(f"tensor_parallel_size not stated: the record's {count} GPUs" + (f" over {dp} data-parallel engines"
                     if dp > 1 else "") + (f" and {pp} pipeline stages" if pp > 1 else "") + f" taken as TP={tp}"
                     + (f" (the largest TP dividing {per_engine} that vLLM accepts for {spec.num_attention_heads} "
                        f"attention / {spec.num_kv_heads} KV heads)" if tp != per_engine else ""))
    if raw_args.get("dtype") == "auto":
        raw_args.pop("dtype")
    if given_kv:
        kv = rec["observed"].get("kv_cache_gib")
        if kv is None:
            raise InputError("observed.kv_cache_gib", "the record logs no KV-cache GiB", "nothing to take as given")
        raw_args["kv_cache_memory_bytes"] = int(kv * GIB)
    args = EngineArgs(vllm_version=version, allow_long_max_model_len=True, **raw_args)
    while True:
        try:
            # an inferred version stands for its era; the record's own release registered its architecture (it ran).
            # No site calibration (api.site_offsets_for): the records are other machines' startups, and the accuracy
            # measured is kvplan's own
            return (plan(spec, gpu, args, extra_assumptions=notes, check_architecture=how == "stated", pool_given=given_kv),
                    notes, how)
        except InputError as exc:
            if (isinstance(exc, RefusedByVLLMError) and exc.rule == BATCHED_TOKENS_BELOW_MAX_MODEL_LEN
                    and args.enable_chunked_prefill is None):
                # the record's engine ran, and vLLM accepts max_num_batched_tokens < max_model_len only with chunked
                # prefill on (SchedulerConfig._verify_args): the flag was given but not recorded
                notes.append(f"chunked prefill not stated: max_num_batched_tokens {args.max_num_batched_tokens} < "
                             f"max_model_len {args.max_model_len}, which vLLM accepts only with chunked prefill on, so it was on")
                args = replace(args, enable_chunked_prefill=True)
            elif exc.field == "--speculative-config" and args.speculative_config is not None:
                # a drafter kvplan does not model (or MTP on a config without MTP layers): the rest still plans
                notes.append(f"speculative decoding not modelled for this record ({exc}): planned without it")
                args = replace(args, speculative_config=None)
            else:
                raise


def seed_predict(rec: dict, p: Plan) -> dict:
    """The seeds' arithmetic on a record: total GB x util - weights - 1 GB; all layers full attention.

    Given the logged weights where the record has them (the fairest version of the seed's method). `p` is the
    record's plan (`predict_record`): the total, the arguments and the model shape come from it.
    """
    a = p.args
    total_gb = p.total_bytes / GB
    logged = rec["observed"].get("weights_gib")
    weights = logged * GIB if logged else p.weights_bytes
    kv = total_gb * a.gpu_memory_utilization * GB - weights - 1 * GB
    heads = heads_per_rank(p.model.num_kv_heads, a.tensor_parallel_size)
    per_token = 2 * p.model.num_layers * heads * p.model.head_dim * kv_dtype_bytes(a.kv_cache_dtype, a.dtype)
    tokens = max(0.0, kv / per_token)
    return {"weights_gib": weights / GIB, "kv_cache_gib": kv / GIB, "kv_cache_tokens": tokens,
            "max_concurrency": tokens / a.max_model_len, "fits": tokens >= a.max_model_len,
            "num_gpu_blocks": int(tokens // 16)}


def _predicted(p: Plan) -> dict:
    return {"weights_gib": p.weights_bytes / GIB, "kv_cache_gib": p.kv_cache_bytes / GIB, "num_gpu_blocks": p.num_gpu_blocks,
            "kv_cache_tokens": p.kv_cache_tokens, "max_concurrency": p.max_concurrency, "fits": p.fits,
            "non_torch_gib": p.non_torch_bytes / GIB, "activation_peak_gib": p.activation_peak_bytes / GIB,
            "cudagraph_gib": p.cudagraph_capture_bytes / GIB}


def _pct(pred, obs) -> float | None:
    if pred is None or obs is None or isinstance(obs, bool):
        return None
    if obs == 0:
        return None
    return 100.0 * (pred - obs) / abs(obs)


# per-step batch arguments written with a suffix above 2^20 (a million tokens or sequences in one step) are a misread
# figure, not a startup's setting
_BATCH_ARGS = frozenset({"max_num_batched_tokens", "max_num_seqs"})
_BATCH_ARG_MAX = 2 ** 20


def _refuse_implausible_batch(p: Plan, raw_args: dict) -> None:
    """A batch argument written with a suffix that vllm serve reads to an implausible value ("8m" is 8,000,000 tokens)
    scores nothing real: an InputError (a skip) naming it. Any other plan, a negative pool included, is scored: a pool
    below zero is a startup that does not fit, whether its figures were written 8000 or 8k (or its KV dtype fp8_e5m2)."""
    big = {k: (v, getattr(p.args, k, None)) for k, v in raw_args.items()
           if k in _BATCH_ARGS and isinstance(v, str) and re.search(r"\d\s*[a-zA-Z]", v)}
    big = {k: (v, n) for k, (v, n) in big.items() if isinstance(n, int) and n > _BATCH_ARG_MAX}
    if big:
        raise InputError(f"args.{next(iter(big))}", ", ".join(f"{v!r} is {n:,} as vllm serve reads it (a lowercase "
                         "suffix is decimal)" for v, n in big.values()) + f", beyond any batch a startup runs "
                         f"(> {_BATCH_ARG_MAX:,}): no startup to score",
                         "check the record's args against the log (8m is 8,000,000 tokens, 8K 8,192)")


def validate_records(records: Iterable[dict], *, given_kv: bool = False, progress=None,
                     version_of: Callable[[list[dict]], Callable[[dict], tuple[str, str] | None]] | None = None) -> list[RecordResult]:
    """Each record scored as `kvplan validate` scores it, from its fields alone. `version_of`, for the fitting tools
    only, is given the cleaned records and returns what release each version-less one is planned with (a release
    read from outside it, e.g. its source's date: tools/record_dating.py); kvplan itself never passes one."""
    results = []
    records = list(records)
    cleaned = [_cleaned_or_error(rec) for rec in records]  # each record is cleaned and checked once, here
    outside = version_of([c for c in cleaned if isinstance(c, dict)]) if version_of else (lambda rec: None)
    for n, (rec, clean) in enumerate(zip(records, cleaned), 1):
        model, gpu, observed = (rec.get(k) if isinstance(rec.get(k), dict) else {} for k in ("model", "gpu", "observed"))
        r = RecordResult(id=rec.get("id") if rec.get("id") is not None else f"record {n} (no id)", label={"model": model.get("id"), "gpu": gpu.get("name"),
                                                         "vllm_version": rec.get("vllm_version")})
        # as written, but a NaN or Infinity (clean_record's skip reason) left out: it is not JSON
        r.observed = {k: v for k, v in observed.items() if v is not None and not (isinstance(v, float) and not math.isfinite(v))}
        try:
            if isinstance(clean, Exception):
                raise clean
            raw_args = rec.get("args") if isinstance(rec.get("args"), dict) else {}
            rec = clean
            r.observed = {k: v for k, v in rec["observed"].items() if v is not None}
            p, notes, basis = _plan_record(rec, given_kv=given_kv, version=outside(rec))
            _refuse_implausible_batch(p, raw_args)
            r.predicted = _predicted(p)
            r.assumptions = notes
            r.plan_assumptions = [a for a in p.assumptions if a not in notes]
            r.label["rules_applied"] = p.rules.version
            # what named those rules: "stated", "log format" or "newest" (a record that states no version and whose
            # figures name no era), or the fitting tools' reading from outside the record
            r.label["version_basis"] = basis
            r.band_keys = (f"{model_family(p.model)}|{era_group(p.era)}", f"{model_family(p.model)}|*", f"arch|{model_architecture(p.model)}")
            r.args_set = {**args_set(p.given_args), **async_scheduling_ran(p.args)}
            for f in FIGURES:
                if given_kv and f == "kv_cache_gib":
                    continue
                e = _pct(r.predicted.get(f), r.observed.get(f))
                if e is not None:
                    r.error_pct[f] = e
            if not given_kv:
                r.seed_predicted = seed_predict(rec, p)
                for f in FIGURES:
                    e = _pct(r.seed_predicted.get(f), r.observed.get(f))
                    if e is not None:
                        r.seed_error_pct[f] = e
        except KvplanError as exc:
            r.skipped = str(exc)
        except Exception as exc:  # a record that breaks the planner is a skip with its reason, never a crash
            r.skipped = f"internal: {type(exc).__name__}: {exc}"
        results.append(r)
        if progress:
            progress()
    return results


def _cleaned_or_error(rec) -> dict | Exception:
    """`clean_record(rec)`, or what it raised (the record's skip reason)."""
    try:
        return clean_record(rec)
    except Exception as exc:  # noqa: BLE001 - reported per record by validate_records, as a crash of the planner is
        return exc


def _stats(values: list[float]) -> dict:
    if not values:
        return {"n": 0, "median_abs_pct": None, "p90_abs_pct": None, "max_abs_pct": None}
    a = sorted(abs(v) for v in values)
    return {"n": len(a), "median_abs_pct": statistics.median(a), "p90_abs_pct": _quantile(a, 0.9), "max_abs_pct": a[-1]}


def _quantile(sorted_values: list[float], q: float) -> float:
    """Linear-interpolated quantile of already sorted values."""
    if len(sorted_values) == 1:
        return sorted_values[0]
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def summarize(results: list[RecordResult], *, seed: bool = False) -> dict:
    key = "seed_error_pct" if seed else "error_pct"
    out = {}
    for f in FIGURES:
        out[f] = _stats([getattr(r, key)[f] for r in results if f in getattr(r, key)])
    judged = [r for r in results if not r.skipped and "fits" in r.observed]
    pred_key = "seed_predicted" if seed else "predicted"
    right = [r for r in judged if getattr(r, pred_key).get("fits") == r.observed["fits"]]
    out["fits_accuracy"] = (len(right) / len(judged)) if judged else None
    out["fits_n"] = len(judged)
    out["skipped"] = sum(1 for r in results if r.skipped)
    out["records"] = len(results)
    # how the scored records' rules were named: a record that states no version is planned with its log format's
    # era, else the newest rules (docs/startup-record-format.md), which its figures may say nothing of
    bases: dict[str, int] = {}
    for r in results:
        if not r.skipped and r.label.get("version_basis"):
            bases[r.label["version_basis"]] = bases.get(r.label["version_basis"], 0) + 1
    out["version_basis"] = dict(sorted(bases.items(), key=lambda kv: -kv[1]))
    return out


# ---- the residual table `kvplan fit`'s band is read from (kvplan.band)


def residual_table(results: list[RecordResult]) -> dict:
    """Residuals of the KV pool (predicted vs logged, %) by family and era, for `uncertainty_band`: each scored
    record's under the groups of the plan `validate_records` scored it with (RecordResult.band_keys)."""
    by_key: dict[str, list[float]] = {}
    sets = []
    for r in results:
        e = r.error_pct.get("kv_cache_gib")
        if e is None or r.skipped:
            continue
        sets.append(r.args_set)
        # residual as observed relative to predicted: the band multiplies a prediction
        obs_rel = -e / (100 + e) * 100
        for key in r.band_keys:
            by_key.setdefault(key, []).append(obs_rel)
    out = {}
    for k, v in by_key.items():
        s = sorted(v)
        out[k] = {"n": len(s), "p10_pct": _quantile(s, 0.1), "p90_pct": _quantile(s, 0.9), "median_pct": statistics.median(s)}
    # which engine arguments those startups ran away from vLLM's default, and with which values (the band names the
    # plan's that none ran: band.unvalidated_args); every argument a record may carry (ARG_FIELDS), 0 where none did.
    # Last, after the bands
    if by_key:
        out["args_seen"] = args_seen_table(sets, ARG_FIELDS)
    return out
