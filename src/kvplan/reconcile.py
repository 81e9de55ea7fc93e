"""Compare a real vLLM startup (its log) with kvplan's plan, term by term.

`reconcile(log, plan)` lines up what vLLM printed against what the plan predicted
(weights, activation peak, non-torch, CUDA graphs, KV pool, blocks, tokens,
concurrency, block size, max_model_len), names the largest memory gap and its likely
cause (vllm-memory-model.md §7), and flags a silent fall-back to a slower attention
backend; its record (`kvplan reconcile --record`) is the startup as compared, with the flags
the plan was given (`reconcile(log, plan, flags)`). `store_site_calibration` keeps, per GPU
and model, the observed-minus-predicted of the measured terms; `load_site_calibration`
(kvplan.site_calibration) gives them back to `kvplan fit`.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Optional

from kvplan.errors import InputError
from kvplan.logs import StartupLog, as_int
from kvplan.plan import INT_ENGINE_ARGS, human_int, parse_env
from kvplan.resolve import GIB
# the file's path and reader live in kvplan.site_calibration (read by every plan without this module); they stay
# importable from here beside store_site_calibration, which writes the file
from kvplan.site_calibration import calibration_path, load_site_calibration
from kvplan.versions import (DEFAULT_RELEASE, SERVE_FLAG_SINCE, parse_version, release_text, release_token, removed_flag,
                             VersionRules, rules_for, untagged_unplaced)

# Why a term differs from the prediction: vllm-memory-model.md §7 ("Why predicted and real pools differ").
LIKELY_CAUSE: Mapping[str, str] = {
    "weights_gib": "the checkpoint's real tensor bytes differ from the count: quantization layout, tied embeddings, a draft "
                   "model or LoRA buffers, or the per-rank split (vllm-memory-model.md §5)",
    "activation_peak_gib": "the profile batch differs: max_num_batched_tokens / max_num_seqs defaults, the sampler's "
                           "max_num_seqs x vocabulary peak, torch.compile changing the live set, or the CUDA-graph estimate folded "
                           "into 'peak activation' in >= 0.20 (§2.2, §7.4-7.5)",
    "non_torch_gib": "NCCL and custom-allreduce buffers (charged at TP>1 in <= 0.10), the CUDA context, and allocator "
                     "fragmentation counted as non-torch, and from 0.27 every torch buffer still allocated after the profile "
                     "(model runner v2's sampler state, the fused-MoE workspace), which the summary's 'consumed memory' holds "
                     "(§1.2, §7.2, §7.6)",
    "cudagraph_gib": "the number of capture sizes (from max_num_seqs), FULL vs PIECEWISE mode, model depth and TP; the "
                     "size is empirical (§1.5, §7.1)",
    "kv_cache_gib": "the pool is the remainder of the budget, so it moves with the terms above; in V0 0.6.4 and V1 0.7-0.9.0 "
                    "other processes on the GPU shrink it one for one (§1.2, §7.3)",
}
MEMORY_TERMS = ("weights_gib", "activation_peak_gib", "non_torch_gib", "cudagraph_gib", "kv_cache_gib")
SLOW_BACKENDS = frozenset({"XFormers", "TORCH_SDPA", "Torch SDPA", "FLEX_ATTENTION"})


@dataclass(frozen=True)
class TermRow:
    term: str
    observed: Optional[float]
    predicted: Optional[float]
    unit: str
    note: Optional[str] = None  # why the row is left out of the headline (a concurrency at another max_model_len)

    @property
    def gap(self) -> Optional[float]:
        if self.observed is None or self.predicted is None:
            return None
        return self.observed - self.predicted

    def to_dict(self) -> dict:
        gap = self.gap
        return {"term": self.term, "observed": self.observed, "predicted": self.predicted, "unit": self.unit,
                "gap": None if gap is None else round(gap, 4), **({"note": self.note} if self.note else {})}


@dataclass(frozen=True)
class Reconciliation:
    log: StartupLog
    rows: tuple[TermRow, ...]
    largest_gap: Optional[dict]  # None where no memory gap reaches GAP_NAMED_GIB
    backend_fallback: Optional[str]
    notes: tuple[str, ...] = ()
    record: Mapping[str, Any] = field(default_factory=dict)
    headline_gap: Optional[dict] = None  # the figure furthest off, relative: a memory term or blocks, tokens, concurrency

    def to_dict(self) -> dict:
        return {
            "vllm_version": self.log.vllm_version,
            "model": self.log.model,
            "started": self.log.started,
            "compile_cache": self.log.compile_cache,  # "cold", "warm" or None (StartupLog.compile_cache)
            "platform": platform_read(self.log),  # ROCm / WSL2 as the log shows them, with the line read
            "figures": self.log.figures,
            "comparison": [r.to_dict() for r in self.rows],
            "largest_gap": self.largest_gap,
            "headline_gap": self.headline_gap,
            "backend_fallback": self.backend_fallback,
            "warnings": list(self.log.warnings),
            "unrecognised": list(self.log.unrecognised),
            "parse_warnings": list(self.log.parse_warnings),
            "notes": list(self.notes),
            "record": dict(self.record),
        }


def _gib(value) -> Optional[float]:
    return None if value is None else value / GIB


def observed_terms(log: StartupLog) -> dict[str, Optional[float]]:
    """The measured terms of a startup, per rank, in GiB (None when the log does not print them)."""
    return {
        "weights_gib": log.weights_gib,
        "activation_peak_gib": log.activation_peak_gib,
        "non_torch_gib": log.non_torch_gib,
        "cudagraph_gib": log.cudagraph_taken_gib,
        "kv_cache_gib": log.kv_cache_gib,
    }


def predicted_terms(plan) -> dict[str, Optional[float]]:
    return {
        "weights_gib": _gib(getattr(plan, "weights_bytes", None)),
        "activation_peak_gib": _gib(getattr(plan, "activation_peak_bytes", None)),
        "non_torch_gib": _gib(getattr(plan, "non_torch_bytes", None)),
        # the log's "Graph capturing ... took" is the real capture, not the part the budget subtracts
        "cudagraph_gib": _gib(getattr(plan, "cudagraph_capture_bytes", getattr(plan, "cudagraph_bytes", None))),
        "kv_cache_gib": _gib(getattr(plan, "kv_cache_bytes", None)),
    }


def backend_fallback(log: StartupLog) -> Optional[str]:
    """A sentence when the log shows vLLM settled on a slower attention backend than it prefers, or on its V0 engine
    (0.8-0.10: the V1 -> V0 fallback shares the symptom, but it is the engine that fell back, not the backend: a T4
    log read 'attention backend fell back (XFormers): ... Falling back to V0')."""
    hits = [h for h in log.hits if h.sig.symptom == "attention_backend_fallback"]
    engine = [h.text for h in hits if h.signature == "fallback_v0"]
    reasons = [h.text for h in hits if h.signature != "fallback_v0"]
    backend = f"attention backend fell back ({log.attention_backend or 'slower backend'}): {reasons[0]}" if reasons else None
    if engine:
        runs = f" (attention: {log.attention_backend})" if log.attention_backend and not backend else ""
        return f"engine fell back from V1 to V0{runs}: {engine[0]}" + (f"; {backend}" if backend else "")
    if backend:
        return backend
    backend, candidates = log.attention_backend, log.attention_backend_candidates
    if backend and candidates and candidates[0] != backend:
        return (f"vLLM chose {backend} although {candidates[0]} ranks first among its candidates: "
                "a silent fall-back to a slower backend")
    if backend in SLOW_BACKENDS:
        return f"vLLM runs the {backend} attention backend, slower than FlashAttention/FlashInfer"
    return None


def reconcile(log: StartupLog, plan=None, flags=None) -> Reconciliation:
    """Line up the log's figures with the plan's (or only read the log when there is no plan). `flags`: those the plan
    was made with (`plan_from_log(log, model, flags)`), which override the log's arguments there; the record is the
    startup as compared, so they are in it too (_given_into_record)."""
    observed = observed_terms(log)
    predicted = predicted_terms(plan) if plan is not None else dict.fromkeys(observed)
    rows = [TermRow(term, observed[term], predicted[term], "GiB") for term in MEMORY_TERMS]
    args = getattr(plan, "args", None)
    rows += [
        TermRow("num_gpu_blocks", log.num_gpu_blocks, getattr(plan, "num_gpu_blocks", None), "blocks"),
        TermRow("kv_cache_tokens", log.kv_cache_tokens, getattr(plan, "kv_cache_tokens", None), "tokens"),
        TermRow("max_concurrency", log.max_concurrency, getattr(plan, "max_concurrency", None), "x"),
        TermRow("block_size", log.block_size or log.arg("block_size"), getattr(plan, "block_size", None), "tokens"),
        TermRow("max_model_len", log.max_model_len or as_int(log.arg("max_model_len")) or log.concurrency_len,
                getattr(args, "max_model_len", None), "tokens"),
    ]
    lens = rows[-1]
    if lens.observed and lens.predicted and int(lens.observed) != int(lens.predicted) and rows[-3].gap is not None:
        rows[-3] = replace(rows[-3], note=f"not compared: the log's concurrency is at max_model_len {int(lens.observed):,}, "
                                          f"the plan's at {int(lens.predicted):,}")
    rows += extensible_kv_rows(log, plan)
    notes = benchmark_notes(log) + platform_notes(log) + extensible_kv_notes(log, plan)
    largest = headline = None
    if plan is not None:
        largest = largest_gap(rows, graphs_in_pool=bool(getattr(plan, "cudagraph_bytes", 0)))
        largest = measured_pool_gap(log, rows, largest)
        rocm_rules = _rocm_device_used_rules(log, plan, rows)
        if rocm_rules is not None:
            notes.append(rocm_weights_log_note(rocm_rules, plan, rows))
            if largest is not None and largest["term"] == "weights_gib":
                largest = dict(largest, likely_cause=largest["likely_cause"].replace(LIKELY_CAUSE["weights_gib"],
                                                                                     ROCM_WEIGHTS_CAUSE))
            largest = rocm_budget_cause(rocm_rules, plan, rows, largest)
        headline = headline_gap(rows, largest)
        if largest is not None and abs(largest["gap_gib"]) < GAP_NAMED_GIB:
            largest = None  # (the headline keeps its cause: a figure off beside a term planned to the hundredth)
        plan_version = getattr(plan, "vllm_version", None)
        if log.vllm_version and plan_version and untagged_unplaced(log.vllm_version):
            # no release to compare with: a sweep over vllm_version refuses the number (versions.parse_version)
            notes.append(f"the log is vLLM {log.vllm_version}, a source build whose number names no release; the plan "
                         f"used vLLM {plan_version}'s rules (pass --vllm-version with the release it was built after "
                         "to plan by that release's)")
        elif log.vllm_version and plan_version and str(plan_version) != str(log.vllm_version):
            # the gaps then hold the two releases' differences beside the plan's own error: the release comparison
            # names each term that moves between them (api.release_changes)
            notes.append(f"the log is vLLM {log.vllm_version}; the plan used vLLM {plan_version}'s rules, so the gaps "
                         "include what moves between the two releases (`kvplan sweep "
                         f"{getattr(getattr(plan, 'model', None), 'id', 'MODEL')} ... --vary "
                         f"vllm_version={release_token(log.vllm_version)},{plan_version}` names each term)")
        if log.fits is not None and getattr(plan, "fits", None) is not None and bool(plan.fits) != bool(log.fits):
            # in words: "the plan says fits=False, the log shows fits=True" read as Python and named neither why the
            # plan refused nor where to look
            why = re.split(r"(?<=[.)])\s+(?=[A-Z])", str(getattr(plan, "error", None) or "no KV cache"))[0].rstrip(".")
            notes.append(f"kvplan's plan refuses this start ({why}), yet the "
                         "log shows vLLM started: the plan is short here, by the gaps above" if log.fits else
                         "kvplan's plan starts, yet the log shows vLLM failed: `kvplan diagnose LOG` names the failure "
                         "and its fix")
        compile_note = cold_compile_note(log, rows, getattr(plan, "first_start", None))
        if compile_note:
            notes.append(compile_note)
    record = log.to_record()
    if plan is not None and getattr(plan, "gpu", None) is not None:
        record["gpu"]["name"] = getattr(plan.gpu, "name", None)
    if plan is not None:
        _given_into_record(record, given_flags(flags), plan, log)
    model = getattr(plan, "model", None)
    if getattr(model, "raw_config", None) and not record["model"].get("config"):
        # the record a log alone gives has no config, which `kvplan validate` needs: carry the one the plan read
        served = record["model"].get("id")
        record["model"].update(id=model.id, config=dict(model.raw_config))
        ckpt = getattr(model, "checkpoint", None)
        # the headers' tensor bytes, where they are the whole checkpoint's: a record's weights_bytes is read as the
        # files' sum, MTP layers included where the config counts some (validate._record_model), so a checkpoint that
        # ships MTP tensors, or whose config counts MTP layers it does not ship, writes none
        if (ckpt is not None and not ckpt.mtp_bytes and not getattr(model, "mtp_layers", 0)
                and "safetensors" in str(ckpt.source)):
            record["model"]["weights_bytes"] = int(ckpt.total_bytes)
        record["notes"] = "; ".join(filter(None, [record.get("notes"), f"config: kvplan's ({model.source})"
                                                  + (f"; the log served {served}" if served and served != model.id else "")]))
    if record.get("id") is None and getattr(model, "id", None):  # a name a records file reads by: what ran, where
        a = getattr(plan, "args", None)
        name = (f"{model.id.split('/')[-1]}-{getattr(plan.gpu, 'name', 'gpu')}-tp{getattr(a, 'tensor_parallel_size', 1)}"
                f"-l{getattr(a, 'max_model_len', '')}")
        record["id"] = re.sub(r"[^a-z0-9.]+", "-", name.lower()).strip("-")
    return Reconciliation(log=log, rows=tuple(rows), largest_gap=largest, backend_fallback=backend_fallback(log),
                          notes=tuple(notes), record=record, headline_gap=headline)


# vLLM >= 0.34's extensible KV cache (v1/worker/extensible_kv_cache.py measure_kv_cache_bytes, 0.34.0 wheel): the pool is
# min(requested - memory used outside the pool, free + committed - margin) - the transients kept, the margin
# max(1 GiB (3 on ROCm), 0.75 x the transient peak), the transients kept max(the allocated peak, torch's reservation
# growth) over warmup; its "Memory after warmup" line prints each term.
EXTENSIBLE_POOL_CAUSE = ("the extensible KV cache (vLLM >= 0.34) is sized after warmup and CUDA-graph capture: the memory "
                         "free then, less what vLLM kept for transient activations and a margin of max(1 GiB, 0.75 x the "
                         "transient peak), capped by the budget 'requested' (total x gpu_memory_utilization, 1.0 by default)")


def _plan_gib(plan, name: str) -> Optional[float]:
    # getattr with None: a plan made by rules without the extensible KV cache carries no such term
    return _gib(getattr(plan, name, None)) if plan is not None else None


def _plan_free_after_warmup_gib(plan) -> Optional[float]:
    """The plan's side of the log's 'N GiB free' after warmup (init_free - non_kv_used - committed:
    plan.extensible.MeasuredPool.free_after_warmup_bytes), where it sized the pool after warmup; else None."""
    pool = getattr(plan, "kv_pool", None) if plan is not None else None
    return _gib(pool.get("free_after_warmup_bytes")) if isinstance(pool, dict) else None


def extensible_kv_rows(log: StartupLog, plan) -> list[TermRow]:
    """The measured terms of vLLM >= 0.34's post-warmup sizing ('Memory after warmup'), beside the plan's where it has
    them: the transients kept (Plan.transient_kept_bytes, a term plans of the extensible KV cache carry; None before)
    and the budget 'requested' (Plan.requested_bytes). None where the log has no such line."""
    if log.transient_kept_gib is None and log.warmup_requested_gib is None:
        return []
    # the capacity ('Available KV cache memory', the profile's figure: Plan.kv_cache_capacity_bytes) and the memory
    # free after warmup, which isolate the profile's terms from the memory in use before the snapshot and the graphs
    return [TermRow("transient_kept_gib", log.transient_kept_gib, _plan_gib(plan, "transient_kept_bytes"), "GiB"),
            TermRow("requested_gib", log.warmup_requested_gib, _plan_gib(plan, "requested_bytes"), "GiB"),
            TermRow("kv_cache_capacity_gib", log.profiled_kv_cache_gib, _plan_gib(plan, "kv_cache_capacity_bytes"),
                    "GiB"),
            TermRow("warmup_free_gib", log.warmup_free_gib, _plan_free_after_warmup_gib(plan), "GiB")]


def extensible_kv_notes(log: StartupLog, plan) -> list[str]:
    """What vLLM >= 0.34's extensible KV cache did, read from the log: the measured terms of its post-warmup sizing
    and how they compare with the plan's, or that it was turned off (the pool then sized from the profile)."""
    notes = []
    if log.extensible_kv_cache is False:
        off = next((h.groups.get("reason") for h in log.hits_of("extensible_disabled")), None)
        notes.append("the extensible KV cache was off" + (f" ({off})" if off else " (no IMEX channel for the KV connector)")
                     + ": vLLM sized the pool from the profile's estimate, as releases before 0.34 do")
    if log.transient_kept_gib is None:
        return notes
    kept_plan = _plan_gib(plan, "transient_kept_bytes")
    requested_plan = _plan_gib(plan, "requested_bytes")
    free_plan = _plan_free_after_warmup_gib(plan)
    text = (f"vLLM sized the KV cache after warmup and CUDA-graph capture (the extensible KV cache): "
            f"{log.warmup_free_gib} GiB was free" + (f" (plan: {free_plan:.2f})" if free_plan is not None else "")
            + f", vLLM kept {log.transient_kept_gib} GiB for transients"
            + (f" (plan: {kept_plan:.2f})" if kept_plan is not None else "")
            # vLLM keeps the larger of the two (measure_kv_cache_blocks, 0.34.0): one parenthesis after another read
            # '(plan: 2.32) (2.41 GiB allocated at peak, ...)'
            + f", the larger of {log.transient_peak_gib} GiB allocated at peak and {log.torch_growth_gib} GiB of torch "
            f"reservation growth, and gave the pool {log.warmup_kv_blocks:,} blocks ({log.warmup_kv_gib} GiB) within the budget "
            f"'requested' of {log.warmup_requested_gib} GiB"
            + (f" (plan: {requested_plan:.2f})" if requested_plan is not None else ""))
    if log.profiled_kv_cache_gib is not None:
        text += (f"; the profile's estimate, the capacity it reserved, was {log.profiled_kv_cache_gib} GiB "
                 "('Available KV cache memory')")
    notes.append(text)
    for hit in log.hits_of("util_caps_extensible"):
        notes.append(f"gpu_memory_utilization={hit.groups.get('util')} kept {hit.groups.get('withheld')} GiB of free GPU "
                     "memory out of the pool: with the extensible KV cache the default is 1.0")
    return notes


def measured_pool_gap(log: StartupLog, rows, largest: Optional[dict]) -> Optional[dict]:
    """largest_gap, its cause told in the extensible KV cache's measured terms where the log sized the pool after warmup
    and the pool is the gap: the transients kept where their gap moved the pool (the opposite sign, at least half the
    pool's gap), else the post-warmup sizing itself."""
    if largest is None or largest["term"] != "kv_cache_gib" or log.transient_kept_gib is None:
        return largest
    by_term = {r.term: r for r in rows}
    kept = by_term.get("transient_kept_gib")
    gap = largest["gap_gib"]
    if kept is not None and kept.gap is not None and kept.gap * gap < 0 and abs(kept.gap) >= 0.5 * abs(gap):
        return {"term": "transient_kept_gib", "gap_gib": round(kept.gap, 3),
                "likely_cause": (f"vLLM kept {kept.observed} GiB for transient activations after warmup (plan: "
                                 f"{kept.predicted:.2f}): the warmup's allocated peak or torch's reservation growth; "
                                 f"the KV pool's {gap:+.2f} GiB follows from it")}
    return dict(largest, likely_cause=EXTENSIBLE_POOL_CAUSE)


def _given_into_record(record: dict, given: Mapping[str, Any], plan, log: StartupLog) -> None:
    """The flags given (they override the log's arguments in the plan compared with: plan_kwargs_from_log) written
    into the record as the plan read them, so `kvplan validate` of it plans the startup reconcile compared (a TP 8 log
    that prints no size, scored at TP 1, read 694 % off its weights)."""
    from kvplan.validate import ARG_FIELDS

    args = record.setdefault("args", {})
    for name, value in given.items():
        if name not in ARG_FIELDS:
            continue
        planned = getattr(plan.args, name, None)  # as the plan read it ('32K' -> 32768)
        args[name] = planned if isinstance(planned, (bool, int, float, str)) else value
    if given.get("vllm_version"):
        record["vllm_version"] = str(given["vllm_version"])
    pooler = ("override_pooler_config", "pooler_config")
    if any(args.get(n) for n in pooler) and not any(n in given for n in pooler):
        # the log's pooler config under the name the plan's release takes (_pooler_flag_of_release)
        for name in pooler:
            planned = getattr(plan.args, name, None)
            if planned:
                args[name] = planned if isinstance(planned, str) else json.dumps(planned)
            else:
                args.pop(name, None)
    gpu = record.setdefault("gpu", {})
    if {"gpu", "gpu_gib", "gpu_gb", "wsl2"} & set(given):  # the card the plan was given, with its total where one was
        gpu["name"] = plan.gpu.name
        sized = bool({"gpu_gib", "gpu_gb"} & set(given))
        # a catalog card (its WSL2 total with --wsl2) is read back from its name; a total given is written exactly
        gpu["total_gib"] = plan.gpu.total_bytes / (1 << 30) if sized else None
        # planned under WSL2 where --wsl2 says so or the log shows it and prints no total (_gpu_kwargs, as the plan was
        # made): a --gpu given for a WSL2 log without a total dropped gpu.wsl2, and validate planned the native total
        if (given.get("wsl2") or _gpu_kwargs(log, given).get("wsl2")) and not sized:
            gpu["wsl2"] = True
        else:
            gpu.pop("wsl2", None)
    if {"tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size"} & set(given):
        gpu["count"] = ((args.get("tensor_parallel_size") or 1) * (args.get("pipeline_parallel_size") or 1)
                        * (args.get("data_parallel_size") or 1))


# A start that compiled its torch.compile graphs cold (StartupLog.compile_cache) runs that compile inside vLLM's memory
# profile, whose run is the model's first forward (vllm/compilation/decorators.py, v1/worker/gpu_worker.py
# determine_available_memory, 0.8-0.33), so Inductor's scratch can count in the peak (and, from 0.27, in the consumed
# memory) and come out of the pool; a restart that loads the compile cache measures the forward alone (kvplan.plan.cudagraphs
# COMPILE_CACHE_NOTE). Public pairs of one command started cold and warm: Qwen2.5-Coder-7B on an RTX 4090, vLLM 0.23.0,
# 6.06 -> 6.84 GiB (StellaLee/vllm-experiment, findings/chunk_20260706_093754, server_dynchunk0/1.log); Qwen2.5-7B on an
# RTX 5090, 0.29.0, 11.17 -> 12.91 GiB, 0.98 GiB more consumed and 0.76 GiB more peak cold (wrbooth/vllm-serve-bench,
# raw/engine-logs/2026-09-27-7b-baseline.log and -rerun.log); about 5 % of the pool, 0.47 GiB per GPU, Qwen3-32B-AWQ TP2 on RTX 4090s, 0.28 (vLLM issue
# #54383); 3.53 -> 6.03 GiB, Qwen3.8-27B-NVFP4 on a Quadro RTX 8000 (1CatAI/1Cat-vLLM PR #518); and no difference where
# the model's own forward peak is the larger one: Llama-3-70B TP4 35.76 / 35.76 GiB and Qwen3-235B-A22B TP8 13.22 /
# 13.21 GiB on H100 (anyscale/ray-serve-llm-perf-examples, replica_initialization/experiment_terminal_output). The
# scratch is Inductor's random copy of the embedding table (plan.cold_start_pool_loss_bytes: the copy above the
# forward's peak, plus the copy again where its freed segment stays reserved; Llama-3.1-70B at TP4 and Qwen3-235B at
# TP8 shard a 0.49 / 0.14 GiB table under an 8,192-token forward peak of 1.96 / 3.32 GiB: least 0, as those pairs
# show). Said only
# where the log shows the cold compile and the pool is below the plan (or the peak above it) by more than this:
COLD_COMPILE_GAP_GIB = 0.1


def cold_compile_note(log: StartupLog, rows, first_start: dict | None = None) -> Optional[str]:
    """Why a cold start's pool can be below the plan, where the log shows that Inductor compiled the graphs and the
    pool is smaller (or the activation peak larger) than planned; None otherwise. With the plan's first_start (the
    pool range plan.cold_start_pool_loss_bytes gives a compiling start), it says where the logged pool falls in it."""
    if log.compile_cache != "cold":
        return None
    by_term = {r.term: r for r in rows}
    pool_gap = by_term["kv_cache_gib"].gap
    above = [by_term[t].gap for t in ("activation_peak_gib", "non_torch_gib")]
    if not ((pool_gap is not None and pool_gap < -COLD_COMPILE_GAP_GIB)
            or any(g is not None and g > COLD_COMPILE_GAP_GIB for g in above)):
        return None
    return ("this start compiled its torch.compile graphs cold (no compile cache to load), inside vLLM's memory profile, "
            "so the compiler's scratch can count in the peak and the consumed memory and come out of the KV pool: "
            "restarted with the cache warm, the same command got 0.78 GiB more pool on an RTX 4090 (vLLM 0.23.0), 1.74 GiB "
            "more on an RTX 5090 (0.29.0) and about 5 % more in vLLM issue #54383 (0.28), and no more where the model's "
            "own forward peak is larger (70B TP4, 235B TP8 on H100)." + _first_start_fit(by_term["kv_cache_gib"].observed, first_start)
            + " Restart with VLLM_CACHE_ROOT kept (kvplan scaffold puts it on a persistent volume) before reading this gap "
            "as the plan's")


def _first_start_fit(logged_pool_gib: float | None, first_start: dict | None) -> str:
    """Where a cold start's logged pool falls in the plan's first-start range (plan.cold_start_pool_loss_bytes)."""
    if logged_pool_gib is None or not first_start or not first_start.get("modelled"):
        return ""
    low, high = first_start["kv_cache_bytes_least"] / GIB, first_start["kv_cache_bytes_most"] / GIB
    where = ("inside it" if low - 0.005 <= logged_pool_gib <= high + 0.005 else
             f"{low - logged_pool_gib:.2f} GiB below it" if logged_pool_gib < low else f"{logged_pool_gib - high:.2f} GiB above it")
    return (f" kvplan's first start for this plan (Inductor's copy of the embedding table, plan first_start): a "
            f"{low:.2f}-{high:.2f} GiB pool; the logged {logged_pool_gib:.2f} GiB is {where}.")


UNMEASURED_CAUSE = ("the pool absorbed terms this log does not print (activation peak, non-torch) or a different "
                    "budget (gpu_memory_utilization default, total memory, the version's accounting era)")
# the log prints the activation peak and non-torch too: nothing unprinted is left to absorb the gap
BUDGET_CAUSE = ("a different budget (gpu_memory_utilization default, total memory, the version's accounting era): the log "
                "prints the weights, activation peak and non-torch memory the pool is the remainder of")


# ROCm in vLLM 0.7.3-0.20.2 logs 'Model loading took' as total - free device memory (versions row
# rocm_weights_log_measure "device_used"): the weights' gap of such a log is that measure, not the checkpoint
ROCM_WEIGHTS_CAUSE = ("vLLM's ROCm build of this release logs 'Model loading took' as the device memory the load used "
                      "(total - free from torch.cuda.mem_get_info, platforms/rocm.py get_current_memory_usage), not "
                      "torch's allocated bytes, so the figure holds the caching allocator's cached blocks and the "
                      "loader's temporaries beside the weights; kvplan counts the allocated bytes and cannot size the rest")


# ... and where that release's KV budget subtracts the logged figure as the weights (VersionRules.budget_weights_term
# "load_measure": memory_profiling's weights_memory is the load's DeviceMemoryProfiler.consumed_memory, V1 0.9.1-0.26 and
# V0 0.6.5-0.10), the pool is smaller by the same excess: the pool's gap follows from the weights' in part
ROCM_BUDGET_CAUSE = ("the KV budget subtracts that logged figure as the weights (memory_profiling's weights_memory, the "
                     "load's DeviceMemoryProfiler.consumed_memory), so the pool shrinks by as much as the log reads "
                     "above the planned weights")


def _rocm_device_used_rules(log: StartupLog, plan, rows) -> Optional[VersionRules]:
    """The rules of a ROCm startup (the log's own line, or the plan's AMD GPU) whose release logs the device memory in
    use as 'Model loading took' and whose log reads above the planned weights: the log's release, else the plan's (the
    plan's own where they are the same release, so a V0 engine's accounting stays); None elsewhere."""
    weights = next((r for r in rows if r.term == "weights_gib"), None)
    if weights is None or weights.gap is None or weights.gap <= 0:
        return None
    gpu = getattr(plan, "gpu", None)
    if not (log.rocm_line or getattr(gpu, "vendor", None) == "AMD"):
        return None
    rules = getattr(plan, "rules", None)
    if log.vllm_version:
        try:
            logged = rules_for(log.vllm_version)
            if rules is None or rules.release != logged.release:
                rules = logged
        except InputError:
            pass  # a number naming no release: the plan's rules
    if rules is None or rules.rocm_weights_log_measure != "device_used":
        return None
    return rules


def _budget_takes_load_figure(rules: VersionRules, plan) -> bool:
    """Whether the startup's KV budget subtracts the logged load figure: the release's budget_weights_term, and a pool
    the profile sizes (not one --kv-cache-memory-bytes gives)."""
    given = getattr(getattr(plan, "args", None), "kv_cache_memory_bytes", None)
    return rules.budget_weights_term == "load_measure" and given is None


def rocm_weights_log_note(rules: VersionRules, plan, rows) -> str:
    """Why the weights read higher than planned on a ROCm startup whose release logs the device memory in use as
    'Model loading took' (`rules`: _rocm_device_used_rules' answer for the log, not None), and, where that release's
    budget subtracts the figure, what it takes from the pool."""
    weights = next(r for r in rows if r.term == "weights_gib")
    share = f" ({100 * weights.gap / weights.predicted:+.1f} %)" if weights.predicted else ""
    note = (f"weights: the log reads {weights.gap:+.2f} GiB{share} against the plan's {weights.predicted:.2f} GiB: "
            f"{ROCM_WEIGHTS_CAUSE} (vLLM {rules.version} on ROCm)")
    if not _budget_takes_load_figure(rules, plan):
        return note + "; its KV budget does not subtract this figure, so the pool is not moved by it"
    kv = next((r for r in rows if r.term == "kv_cache_gib"), None)
    pool = ""
    if kv is not None and kv.predicted is not None:
        pool = f": the plan's pool less it is {kv.predicted - weights.gap:.2f} GiB" + (
            f", against the log's {kv.observed:.2f} GiB" if kv.observed is not None else "")
    return note + f"; {ROCM_BUDGET_CAUSE}, {weights.gap:.2f} GiB here{pool}"


def rocm_budget_cause(rules: VersionRules, plan, rows, largest: Optional[dict]) -> Optional[dict]:
    """`largest` with the cause of a KV pool read below the plan on a ROCm startup whose budget subtracts a logged load
    figure above the planned weights (`rules`: _rocm_device_used_rules' answer for the log, not None): that excess is
    part of the pool's gap (ROCM_BUDGET_CAUSE); `largest` unchanged elsewhere."""
    if largest is None or largest["term"] != "kv_cache_gib" or largest["gap_gib"] >= 0:
        return largest
    if not _budget_takes_load_figure(rules, plan):
        return largest
    weights = next(r for r in rows if r.term == "weights_gib")
    part = min(weights.gap, -largest["gap_gib"])
    return dict(largest, likely_cause=(f"{part:.2f} GiB of the pool's {largest['gap_gib']:+.2f} GiB is the weights' "
                                       f"excess in the log: {ROCM_WEIGHTS_CAUSE}, and {ROCM_BUDGET_CAUSE}; the rest: "
                                       + largest["likely_cause"]))


# a memory gap that rounds to 0.00 GiB is no gap to name ("largest memory gap: weights_gib -0.00 GiB; likely cause:
# ..."): Reconciliation.largest_gap, which --json shows and the table prints, is None for it
GAP_NAMED_GIB = 0.005


def largest_gap(rows, graphs_in_pool: bool = True) -> Optional[dict]:
    """The measured term furthest from the plan, or the KV pool when the pool's gap is larger than any measured term
    explains: its cause then lies in what the log does not print, named (activation peak, non-torch); where the log
    prints them all, in the furthest printed term when that one moved the pool (the opposite sign, at least half the
    pool's gap: that term is named), else in a different budget (BUDGET_CAUSE). `graphs_in_pool`: whether the plan's
    budget subtracts the CUDA graphs (Plan.cudagraph_bytes, versions' cudagraph_subtracted rows); where they are captured
    after the KV allocation (before 0.20, on ROCm before 0.26, with VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0) their
    gap moves no pool and is not named as its cause."""
    by_term = {r.term: r for r in rows}
    measured = [by_term[t] for t in MEMORY_TERMS if t != "kv_cache_gib" and by_term[t].gap is not None]
    kv = by_term["kv_cache_gib"]
    worst = max(measured, key=lambda r: abs(r.gap), default=None)
    if kv.gap is not None and (worst is None or abs(kv.gap) > abs(worst.gap)):
        unprinted = [label for t, label in (("activation_peak_gib", "activation peak"), ("non_torch_gib", "non-torch"))
                     if by_term[t].gap is None]
        mover = max((r for r in measured if graphs_in_pool or r.term != "cudagraph_gib"), key=lambda r: abs(r.gap),
                    default=None)
        if mover is not None and not unprinted and mover.gap * kv.gap < 0 and abs(mover.gap) >= 0.5 * abs(kv.gap):
            # every term the pool is the remainder of is printed (vLLM's 'Actual usage is ...' line): the pool moved with
            # the furthest of them, which is the gap to name; it read "terms this log does not print (activation
            # peak, non-torch)" beside a log printing both, a 0.17 GiB activation peak planned at 1.39
            return {"term": mover.term, "gap_gib": round(mover.gap, 3),
                    "likely_cause": LIKELY_CAUSE[mover.term] + f"; the KV pool's {kv.gap:+.2f} GiB follows from it"}
        cause = (LIKELY_CAUSE["kv_cache_gib"] if worst is None else BUDGET_CAUSE if not unprinted
                 else UNMEASURED_CAUSE.replace("(activation peak, non-torch)", f"({', '.join(unprinted)})"))
        return {"term": "kv_cache_gib", "gap_gib": round(kv.gap, 3), "likely_cause": cause}
    if worst is None:
        return None
    return {"term": worst.term, "gap_gib": round(worst.gap, 3), "likely_cause": LIKELY_CAUSE[worst.term]}


# Capacity figures: what a user serves with. When one of them is further off, relative to what the log shows, than any
# memory term, it is the headline: a pool near the plan in GiB can still hold far more or fewer tokens.
CAPACITY_CAUSE = ("tokens per GiB differ: the KV bytes per token (kv_cache_dtype, sliding-window or hybrid layers kept "
                  "smaller, MLA, the block size) or the pool the plan divided (vllm-memory-model.md §3-4)")
HEADLINE_TERMS = MEMORY_TERMS + ("num_gpu_blocks", "kv_cache_tokens", "max_concurrency")


def headline_gap(rows, memory_gap: Optional[dict]) -> Optional[dict]:
    """The figure furthest from the plan relative to what the log shows (|log - plan| / |log|) over the memory terms
    and the capacity figures (blocks, tokens, concurrency); a memory term keeps `largest_gap`'s cause."""
    relative = {r.term: abs(r.gap) / abs(r.observed) for r in rows
                if r.term in HEADLINE_TERMS and r.gap is not None and r.observed and not r.note}
    if not relative:
        return None
    term = max(relative, key=lambda t: (round(relative[t], 2), t == "kv_cache_tokens"))  # a tie: tokens, what is served
    row = next(r for r in rows if r.term == term)
    by_term = {r.term: r for r in rows}
    pool = by_term.get("kv_cache_gib")
    per_gib = _per_gib_ratio(row, pool) if term not in MEMORY_TERMS else None
    if memory_gap is not None and (term in MEMORY_TERMS or relative[term] <= relative.get(memory_gap["term"], 0.0)):
        term, row = memory_gap["term"], by_term[memory_gap["term"]]
        cause = memory_gap["likely_cause"]
    elif per_gib is not None and _pool_explains(per_gib, pool):
        # the capacity figure is off by as much as the pool: the pool is the gap, its cause the headline's
        term, row = "kv_cache_gib", pool
        cause = memory_gap["likely_cause"] if memory_gap is not None and memory_gap["term"] == "kv_cache_gib" \
            else LIKELY_CAUSE["kv_cache_gib"]
    elif per_gib is not None:
        cause = LIKELY_CAUSE.get(term, CAPACITY_CAUSE)
    else:  # the log prints no pool to divide: whether the pool or the tokens per GiB differ is not known
        cause = LIKELY_CAUSE.get(term, CAPACITY_UNKNOWN_CAUSE)
    rel = relative.get(term, 0.0)
    return {"term": term, "observed": row.observed, "predicted": row.predicted, "gap": round(row.gap, 4), "unit": row.unit,
            "relative": round(rel, 4), "likely_cause": cause, "agrees": rel < HEADLINE_AGREES}


# tokens (blocks, concurrency) per GiB of pool within 1 %: a capacity gap is the pool's; a headline under 0.5 % agrees
PER_GIB_AGREES = 0.01
HEADLINE_AGREES = 0.005
CAPACITY_UNKNOWN_CAUSE = ("the KV pool or the tokens per GiB differ (the log prints no pool to tell which): the KV bytes "
                          "per token (kv_cache_dtype, sliding-window or hybrid layers, MLA, the block size) or the pool "
                          "the plan divided (vllm-memory-model.md §3-4)")


def _pool_explains(per_gib: float, pool) -> bool:
    """Whether tokens per GiB agree: within 1 %, or within a tenth of the pool's own gap (log ratios), so the pool
    explains nine tenths of the capacity gap and more (a 1.2 % block rounding beside a 77 % smaller pool)."""
    pool_log = abs(math.log(pool.observed / pool.predicted)) if pool.observed > 0 and pool.predicted > 0 else 0.0
    return per_gib > 0 and abs(math.log(per_gib)) <= max(PER_GIB_AGREES, 0.1 * pool_log)


def _per_gib_ratio(row, pool) -> Optional[float]:
    """The log's capacity figure per GiB of pool over the plan's, None when either side lacks a figure."""
    if pool is None or not (row.observed and row.predicted and pool.observed and pool.predicted):
        return None
    return (row.observed / pool.observed) / (row.predicted / pool.predicted)


# ---- plan arguments from the log ---------------------------------------------------------------------


# A release read for each era the log format alone identifies (vllm-memory-model.md §0), used
# when the log does not print its version: "# cuda blocks" + the split profiling line is V0 0.7-0.10.
ERA_REPRESENTATIVE_VERSION: Mapping[str, str] = {"V0-b": "0.6.4.post1", "V0-c": "0.7.3"}


def version_from_log_format(log: StartupLog) -> Optional[tuple[str, str]]:
    """(the release whose rules a version-less log is planned with, what identified it): the era its line formats
    show, read as `kvplan validate` reads the record `--record` writes (validate.log_format_era), so reconcile and
    validate plan one startup alike; None when the format does not tell."""
    if log.era in ERA_REPRESENTATIVE_VERSION:
        return ERA_REPRESENTATIVE_VERSION[log.era], f"its format is era {log.era}"
    from kvplan.validate import log_format_era

    found = log_format_era(log.to_record()["observed"])
    return (found[0], found[3]) if found else None


def given_flags(flags) -> dict:
    """The flags given (not None, not a switch left off): they override what the log states."""
    return {k: v for k, v in flags.engine_kwargs().items() if v is not None and v is not False} if flags is not None else {}


def plan_kwargs_from_log(log: StartupLog, flags=None) -> dict:
    """`kvplan.fit` keyword arguments: the engine args the log states, overridden by the flags given. They are the
    arguments the record written from the same log carries (StartupLog.to_record), so `kvplan validate` of that record
    and reconcile plan one startup alike (the multimodal limits, LoRA slots, speculative decoding, data parallelism,
    prefix caching included)."""
    kwargs: dict[str, Any] = {}
    for name, value in log.to_record()["args"].items():
        if name == "env" or value is None or (name in ("dtype", "kv_cache_dtype") and value == "auto"):
            continue  # env: the sampler the log shows is read below
        if name == "max_model_len":
            value = str(value)
        elif name in INT_ENGINE_ARGS and human_int(value) is not None:
            value = human_int(value)  # '--max-num-batched-tokens 8K' as vllm serve reads it
        kwargs[name] = value
    if "max_model_len" not in kwargs and log.concurrency_len:
        kwargs["max_model_len"] = str(log.concurrency_len)  # "Maximum concurrency for L tokens per request"
    if log.vllm_version and not untagged_unplaced(log.vllm_version):
        kwargs["vllm_version"] = log.vllm_version
    else:  # none printed, or a build whose number names no release: the log's formats tell what they can
        inferred = version_from_log_format(log)
        if inferred:
            kwargs["vllm_version"] = inferred[0]
    given = given_flags(flags)
    kwargs.update(_gpu_kwargs(log, given))
    if "max_model_len" in kwargs and "max_model_len" not in given and (log.max_model_len or log_sized_a_pool(log)):
        # vLLM accepted the log's length ("Using max model len N" is printed after its check, and a pool is sized after
        # it), so a length above the config's limit was allowed there (VLLM_ALLOW_LONG_MAX_MODEL_LEN=1, or a config
        # override the log does not print; one it prints is applied: StartupLog.config_overrides_given): planned at it,
        # as `kvplan validate` plans a record
        kwargs["allow_long_max_model_len"] = True
    kwargs.update({k: v for k, v in given.items() if k not in _GPU_FLAGS})  # (_gpu_kwargs took those)
    _pooler_flag_of_release(kwargs, given)
    env = parse_env(kwargs.get("env"))
    if log.flashinfer_sampling and "VLLM_USE_FLASHINFER_SAMPLER" not in dict(env):
        # the sampler logged FlashInfer's top-k/top-p kernel: planned as VLLM_USE_FLASHINFER_SAMPLER=1 runs it (where a
        # release takes it unset whenever flashinfer imports, 0.7-0.11.0, that is the same path: versions.py)
        kwargs["env"] = env + (("VLLM_USE_FLASHINFER_SAMPLER", "1"),)
    return kwargs


def _pooler_flag_of_release(kwargs: dict, given: Mapping[str, Any]) -> None:
    """The log's --override-pooler-config / --pooler-config under the name the planned release takes, where it lacks
    the log's: the same PoolerConfig JSON under its other name (--override-pooler-config 0.6.4-0.11.x, --pooler-config
    from 0.11.0: versions.SERVE_FLAG_SINCE / SERVE_FLAG_UNTIL), so a log planned at a release it did not run (none
    printed, or --vllm-version given) keeps the pooling type its server ran with. One given as a flag stays as given;
    so does a log that names both (0.11.x, where the override wins: plan.defaults.pooler_given)."""
    names = ("override_pooler_config", "pooler_config")
    logged = [n for n in names if n in kwargs and n not in given]
    if len(logged) != 1 or any(n in given for n in names):
        return
    old = logged[0]
    new = names[1 - names.index(old)]
    try:
        release = parse_version(str(kwargs.get("vllm_version") or DEFAULT_RELEASE))
    except (InputError, ValueError):  # a version the plan itself refuses, with its own error
        return
    flag = "--" + old.replace("_", "-")
    lacks = (removed_flag(flag, release_text(release)) is not None
             or release < SERVE_FLAG_SINCE.get(flag, release))
    other = "--" + new.replace("_", "-")
    has_other = (removed_flag(other, release_text(release)) is None
                 and release >= SERVE_FLAG_SINCE.get(other, release))
    if lacks and has_other:
        kwargs[new] = kwargs.pop(old)


# the flags that name the GPU or its total
_GPU_FLAGS = ("gpu", "gpu_gib", "gpu_gb")


def _gpu_kwargs(log: StartupLog, given: Mapping[str, Any]) -> dict:
    """The GPU and platform keyword arguments of a plan of `log`, decided in one place from the flags given and the log's
    evidence: a GPU given, with any size given beside it; else a size given, for a ROCm log as an AMD card of that size
    (resolve_gpu alone would plan a bare size as an NVIDIA card), else beside the card the log names where it prints no
    total; else the log's own: on a ROCm log with a printed total, the AMD card a line names at that total or an AMD card
    of the total (rocm_gpu); a printed total (the card a line names is then not read); the card the log names
    (gpu_named_by_log). Under WSL2 without a printed total, wsl2 as well: CUDA's total there is the card's nvidia-smi
    memory.total (resolve.wsl2_gpu), what --wsl2 plans; a printed total is the log's own and wins."""
    platform = {"wsl2": True} if log.wsl2_line and not log.total_gib else {}
    if "gpu" in given:
        return {**{k: given[k] for k in _GPU_FLAGS if k in given}, **platform}
    sizes = {k: given[k] for k in ("gpu_gib", "gpu_gb") if k in given}
    if sizes and log.rocm_line:
        gib = sizes["gpu_gib"] if "gpu_gib" in sizes else sizes["gpu_gb"] * 1e9 / (1 << 30)
        return {"gpu": rocm_gpu(gib), **platform}
    named = None if log.total_gib and not log.rocm_line else gpu_named_by_log(log)
    if sizes:
        return {**({"gpu": named} if named else {}), **sizes, **platform}
    if log.total_gib and log.rocm_line:
        own = ({"gpu_gib": log.total_gib, "gpu": named} if _named_vendor(named) == "AMD"
               else {"gpu": rocm_gpu(log.total_gib)})
    elif log.total_gib:
        own = {"gpu_gib": log.total_gib}
    else:
        own = {"gpu": named} if named else {}
    return {**own, **platform}


def _longer_than_config(plan) -> Optional[tuple[int, int]]:
    """(the plan's max_model_len, the model's limit) where the first is the longer, else None."""
    from kvplan.resolve import context_limit

    length, model = getattr(getattr(plan, "args", None), "max_model_len", None), getattr(plan, "model", None)
    if not length or model is None or not hasattr(model, "raw_config"):
        return None
    limit = context_limit(model, getattr(plan, "rules", None)).tokens
    return (length, limit) if limit and length > limit else None


def gpu_named_by_log(log: StartupLog) -> Optional[str]:
    """The catalog GPU the log's fused-MoE config file names (device_name=NVIDIA_GeForce_RTX_3090), else the AMD card a
    line names ('AMD Instinct MI300X': StartupLog.amd_device_name), where that name resolves to one card without a guess
    (a name sold with several memory sizes does not); else None."""
    from kvplan.resolve import resolve_gpu

    for name in (log.moe_device_name, log.amd_device_name):
        if not name:
            continue
        try:
            gpu, assumptions = resolve_gpu(name.replace("_", " "), detect=False)
        except InputError:
            continue
        if not assumptions:
            return gpu.name
    return None


def _gpu_name_source(log: StartupLog) -> str:
    """Where gpu_named_by_log found the card, in words."""
    if log.moe_device_name and gpu_named_by_log(replace(log, amd_device_name=None)):
        return f"only in its fused-MoE config file's name (device_name={log.moe_device_name})"
    return f"as {log.amd_device_name!r}"


def _named_vendor(name: Optional[str]) -> Optional[str]:
    from kvplan.resolve import find_gpu

    try:
        return find_gpu(name).vendor if name else None
    except InputError:
        return None


def rocm_gpu(total_gib: float):
    """The GPU a ROCm log with a printed total and no card kvplan can name is planned as: that total, vendor AMD (vLLM's
    ROCm build: versions.py cudagraph_subtracted_rocm, plan.rocm_graph_units), named so a record of it is planned as an
    AMD card again (validate reads a catalog-less name with 'AMD' as AMD)."""
    from kvplan.resolve import resolve_gpu

    spec, _ = resolve_gpu(None, gib=total_gib, detect=False)
    return replace(spec, vendor="AMD", name=f"AMD GPU, ROCm ({total_gib:g} GiB)")


def platform_read(log: StartupLog) -> dict:
    """What the log shows of its platform, with the line that shows it: {"rocm": {"line", "text"} or None, "wsl2": ...,
    "amd_device": the AMD card a line names or None} (StartupLog.rocm_line / wsl2_line / amd_device_name)."""
    def at(found):
        return {"line": found[0], "text": found[1]} if found else None
    return {"rocm": at(log.rocm_line), "wsl2": at(log.wsl2_line), "amd_device": log.amd_device_name}


# the engine arguments a benchmark log is read for, in the order reconcile names them
BENCHMARK_ARGS = ("max_model_len", "gpu_memory_utilization", "tensor_parallel_size", "enforce_eager", "kv_cache_dtype",
                  "max_num_seqs", "max_num_batched_tokens", "quantization")


def benchmark_notes(log: StartupLog) -> list[str]:
    """For a log of vLLM's offline benchmarks (StartupLog.benchmark), what kind of run it is and which engine arguments
    were read from which line, and which it does not state (planned at vllm.LLM's defaults)."""
    kind = log.benchmark
    if not kind:
        return []
    run = (f"a `vllm bench {kind}` / benchmarks/benchmark_{kind}.py run" if kind in ("latency", "throughput")
           else "an offline benchmark run (a printed argparse Namespace)")
    notes = [f"{run}: vLLM ran in-process as vllm.LLM, so the plan takes vllm.LLM's defaults (entrypoint llm), not "
             "vllm serve's"]
    read, unstated = [], []
    for name in BENCHMARK_ARGS:
        value, origin = log.arg_or_printed(name), log.arg_origin(name)
        if value is None or origin is None:
            unstated.append(name)
        else:
            read.append(f"{name}={value!r} ({origin})")
    if read:
        notes.append("engine arguments read from the log: " + "; ".join(read))
    if unstated:
        notes.append("left at vLLM's defaults or not in the log (planned at the release's defaults): " + ", ".join(unstated))
    return notes


def platform_notes(log: StartupLog) -> list[str]:
    """The platform read from the log, said with its line (reconcile's text and --json notes)."""
    notes = []
    if log.rocm_line:
        notes.append(f"platform: ROCm (vLLM's AMD build), read from line {log.rocm_line[0]}: {log.rocm_line[1]!r}")
    if log.wsl2_line:
        notes.append(f"platform: WSL2, read from line {log.wsl2_line[0]}: {log.wsl2_line[1]!r} (a record written "
                     "says gpu.wsl2: true)")
    return notes


def log_sized_a_pool(log: StartupLog) -> bool:
    """Whether the log shows vLLM sizing its KV pool (a figure printed after the engine arguments were accepted)."""
    return any(v is not None for v in (log.kv_cache_gib, log.num_gpu_blocks, log.kv_cache_tokens, log.max_concurrency))


def model_key(name: str) -> str:
    """A model reference reduced to what names the checkpoint: the last path part (so 'Org/Name', a local
    '/models/Name' and a Hub cache path '.../models--Org--Name/snapshots/<hash>' agree), without a trailing
    '@revision', lower case."""
    text = str(name).strip().strip("'\"").rstrip("/\\")
    cached = re.search(r"models--[^/\\]+?--([^/\\]+)", text)
    if cached:
        text = cached.group(1)
    parts = [p for p in re.split(r"[/\\]", text) if p] or [text]
    named = [p for p in parts if not _generic_part(p.split("@")[0])]  # ModelScope's '.../Org/Name/master' is Name
    text = (named or parts)[-1].split("@")[0]
    return text.lower()


# words that name a copy of the same checkpoint, or one of the same shape: '-hf' (converted to the HF format), '-ms'
# (ModelScope's copy of a Hub repo), '-Instruct' / '-chat' / '-it' (the tuned model: same architecture and size)
_SAME_SHAPE_WORDS = frozenset({"hf", "ms", "instruct", "chat", "it"})


def _model_words(name: str) -> list[str]:
    """A reference's words, a number apart from the letters before it ('llama3' is 'llama 3'), same-shape words dropped."""
    words = re.findall(r"[a-z]+|[0-9]+", model_key(name))
    return [w for w in words if w not in _SAME_SHAPE_WORDS]


def same_model(a: str, b: str) -> bool:
    """Whether two references name one checkpoint: their keys' words agree, one's ending the other's (a local
    'Meta-Llama-3.1-8B-Instruct' folder holds 'meta-llama/Llama-3.1-8B-Instruct'; a 'llama3-70b-awq' folder
    'TechxGenus/Meta-Llama-3-70B-Instruct-AWQ'; ModelScope's 'Llama-2-7b-chat-ms' 'meta-llama/Llama-2-7b-chat-hf')."""
    wa, wb = (_model_words(x) for x in (a, b))
    short, long = sorted((wa, wb), key=len)
    return bool(short) and long[len(long) - len(short):] == short


# a path's last part that names a mount point or a generic folder, not a checkpoint (KServe's /mnt/models, a
# container's /model, a run's ckpt folder)
_GENERIC_PARTS = frozenset({"models", "model", "weights", "weight", "checkpoint", "checkpoints", "ckpt", "ckpts",
                            "data", "mnt", "snapshots", "main", "master", "latest", "final", "output", "outputs", "hf", "."})


def _generic_part(part: str) -> bool:
    """Whether a path's last part names no checkpoint: a mount point ('models', 'ckpt') or a hash-like name (a Hub
    snapshot's commit, a content hash)."""
    part = part.strip().lower()
    return (not part or part in _GENERIC_PARTS or bool(re.fullmatch(r"[0-9a-f]{12,}", part))
            or bool(re.fullmatch(r"[0-9a-f-]{32,}", part)))


def _names_a_checkpoint(name: str) -> bool:
    """Whether a model path the log states says which checkpoint it is: a path or a repo id, or a bare name with a size
    or version in it ('gpt2', 'Qwen3-8B'); a bare word without one ('mymodel') is a name of the user's choosing, a
    generic mount point ('/mnt/models', '/model', a hash-named folder) names none."""
    if _generic_part(model_key(name)):
        return False
    return bool(re.search(r"[/\\]", name) or re.search(r"\d", name))


def local_model_names(model: str) -> Optional[list[str]]:
    """The model ids a local MODEL (a config.json, a JSON config file, a checkpoint folder) names: its config's
    '_name_or_path', its folder's name, a catalog file's 'Org--Name' stem as 'Org/Name'; generic names (a 'ckpt'
    folder, a mount point) dropped. None when MODEL is no local path (a repo or catalog id names itself)."""
    try:
        path = Path(str(model)).expanduser()
        if not (path.is_dir() or path.is_file()):
            return None
    except (OSError, ValueError):
        return None
    from kvplan.errors import KvplanError
    from kvplan.inputs import read_json_object
    from kvplan.resolve import local_model_id

    config = path / "config.json" if path.is_dir() else path
    try:  # read as `kvplan fit` reads it; one it cannot read names nothing (the plan then says why)
        data = read_json_object(config, "model") if config.is_file() else {}
    except KvplanError:
        data = {}
    names = [value.strip() for value in (data.get(key) for key in ("_name_or_path", "name_or_path", "id"))
             if isinstance(value, str) and value.strip()]
    name = local_model_id(path)
    names.append(name.replace("--", "/", 1) if path.is_file() and path.name != "config.json" else name)  # Org--Name.json
    return [n for n in dict.fromkeys(names) if not _generic_part(model_key(n))]


def model_mismatch(log: StartupLog, model: str) -> Optional[str]:
    """The model the log served when a path or repo id it states names another checkpoint than `model`, else None.
    Any name the log gives the model that agrees (its path, a --served-model-name, a cache path's repo id) clears it;
    a --served-model-name alone is an alias, no evidence of another model."""
    own = local_model_names(model)
    names = [model] if own is None else own  # a local config or folder that names no model: no evidence of another one
    if not names or any(same_model(m, n) for m in names for n in log.model_names):
        return None
    paths = [n for n in log.model_paths if _names_a_checkpoint(n)]
    if not paths:
        return None
    return log.model if log.model in paths else paths[0]


def check_model(log: StartupLog, model: str, *, force: bool = False, calibrate: bool = False) -> list[str]:
    """Refuse to compare a log with a plan of another model (InputError); with `force`, a note instead.
    Never calibrates from a mismatch: its gaps are the difference between two models."""
    served = model_mismatch(log, model)
    if served is None:
        return []
    if calibrate:
        raise InputError("--calibrate", f"the log served {served}, not {model}; a calibration from another model's "
                         "startup would store that difference as an offset", f"pass the log's model: {served}")
    if not force:
        raise InputError("MODEL", f"the log served {served}, not {model}",
                         f"pass the log's model ({served}), or --force-model to compare with {model} anyway")
    return [f"the log served {served}; compared with {model} as asked (--force-model): the gaps include the "
            "difference between the two models"]


# what a plan of a log needs and a log may not say, with the placeholder a pointer to `kvplan reconcile` writes: the GPU
# (the budget needs its total) and, where worker ranks show, the parallel sizes
UNSTATED_PLAN_FLAGS: Mapping[str, str] = {"--gpu": "NAME", "--tensor-parallel-size": "N"}


def unstated_plan_flags(log: StartupLog, kwargs: Mapping[str, Any]) -> tuple[str, ...]:
    """The flags of UNSTATED_PLAN_FLAGS a plan of `log` lacks, given `kwargs` (`plan_kwargs_from_log`: the log's
    arguments and the flags given): --gpu where neither names the GPU or its total, --tensor-parallel-size where the
    log shows worker ranks and neither states a parallel size. `plan_from_log` refuses on them (the GPU detected here
    stands in for --gpu); `kvplan diagnose` names them in its pointer to `kvplan reconcile`."""
    missing = []
    if not {"gpu", "gpu_gib", "gpu_gb"} & set(kwargs):
        missing.append("--gpu")
    if (log.worker_ranks_seen or 1) > 1 and not {"tensor_parallel_size", "pipeline_parallel_size",
                                                 "data_parallel_size"} & set(kwargs):
        missing.append("--tensor-parallel-size")
    return tuple(missing)


# how far a GPU's total (the catalog's, or --gpu-gib / --gpu-gb) may sit from the total the log printed before reconcile
# says the log may come from another GPU: the catalog's totals are CUDA's to within about 1 % (driver reserves, ECC)
GPU_TOTAL_MISMATCH = 0.03
# the share of a GDDR card's memory left with ECC on (inline ECC keeps 1/16 for the check bits)
ECC_SHARE = 15 / 16


def gpu_total_mismatch(log: StartupLog, plan, given: Mapping[str, Any]) -> Optional[str]:
    """A note where --gpu (or --gpu-gib / --gpu-gb) replaced the total memory the log printed with one more than
    GPU_TOTAL_MISMATCH away: the budget, and so every gap, is then of another card than the log's."""
    gpu = getattr(plan, "gpu", None)
    if not log.total_gib or gpu is None or not {"gpu", "gpu_gib", "gpu_gb"} & set(given):
        return None
    planned = gpu.total_bytes / (1 << 30)
    if abs(planned - log.total_gib) <= GPU_TOTAL_MISMATCH * log.total_gib:
        return None
    flag = "--gpu" if "gpu" in given else "--gpu-gib" if "gpu_gib" in given else "--gpu-gb"
    if log.wsl2_line and flag == "--gpu" and not given.get("wsl2"):
        # under WSL2 CUDA's total is the card's nvidia-smi memory.total, above native Linux's (resolve.wsl2_gpu): a WSL2
        # log of the card named reads as 'another GPU' against its native total
        return (f"the log's GPU has {log.total_gib:.2f} GiB in all, the {gpu.name} planned (--gpu) {planned:.2f} GiB, "
                f"its native Linux total; the log ran under WSL2 (line {log.wsl2_line[0]}), where CUDA's total is the "
                "card's nvidia-smi memory.total: add --wsl2 to plan that, or drop --gpu to plan with the log's own total")
    if flag == "--gpu" and abs(log.total_gib / planned - ECC_SHARE) <= 0.005:
        # GDDR cards keep ECC in the memory itself and give up 1/16 of it when ECC is on: an RTX A6000 reports 49,140 MiB
        # with ECC off and 46,068 with it on (public nvidia-smi outputs; tests/data/SOURCES-logs.md, Forty-eighth round,
        # the MoE-SD host at 44.55 GiB against the catalog's 47.54); the catalog holds the total seen in a public log
        return (f"the log's GPU has {log.total_gib:.2f} GiB in all, 15/16 of the {gpu.name}'s {planned:.2f} GiB planned "
                "(--gpu): that card with ECC turned on, which takes 1/16 of a GDDR card's memory (nvidia-smi -q -d ECC "
                f"shows the mode); plan it with --gpu-gib {log.total_gib:.2f}, or drop --gpu to plan with the log's own total")
    return (f"the log's GPU has {log.total_gib:.2f} GiB in all, the {gpu.name} planned ({flag}) {planned:.2f} GiB: the "
            f"log may come from another GPU, and the gaps then include the difference (drop {flag} to plan with the "
            "log's own total)")


def log_flags_removed(log: StartupLog, version: Optional[str], skip=frozenset()) -> list[str]:
    """A note for each flag the log's server was given (its 'non-default args' line, or its command line) that vLLM
    `version`'s `vllm serve` no longer has (versions.removed_flag): a launch command carried over from the log's
    release to `version` would be refused there. The arguments in `skip` (those the plan took, which the plan's own
    checks refuse or drop with a note) are not named twice. An 'args: Namespace(...)' line (up to 0.8) prints every
    argument, its defaults included, so it says nothing of which were given."""
    if not version:
        return []
    given: dict[str, Any] = {}
    if any(h.signature == "non_default_args" for h in log.hits):
        given.update(log.engine_args)
    given.update(log.command_args)
    notes = []
    for name, value in given.items():
        if name in skip or value is None:
            continue
        gone = removed_flag("--" + name.replace("_", "-"), version)
        if gone is not None:
            shown = "" if value is True else f" {value}"
            notes.append(f"the log's server was given --{name.replace('_', '-')}{shown}: {gone[0]} ({gone[1]})")
    return notes


# the words of plan_from_log's note on a log argument it dropped (the CLI qualifies an agreement with it)
NOT_USABLE = "was not usable"


def plan_from_log(log: StartupLog, model: str, flags=None, *, site_calibration: bool = True, fit=None):
    """The plan for `model` with the log's engine args (flags override). An argument read from
    the log that kvplan cannot model is dropped with a note rather than failing the run.
    Returns (plan, notes)."""
    if fit is None:
        from kvplan.api import fit
    kwargs = plan_kwargs_from_log(log, flags)
    given = given_flags(flags)
    untagged = bool(log.vllm_version) and untagged_unplaced(log.vllm_version)
    version_unstated = (not log.vllm_version or untagged) and not (flags is not None and flags.vllm_version)
    notes = []
    unstated = (f"the log's vLLM {log.vllm_version} is a source build whose number names no release (setuptools-scm's "
                "0.1.dev<commits>)" if untagged else "the log does not print its version")
    if version_unstated and "vllm_version" in kwargs:
        notes.append(f"{unstated}; {version_from_log_format(log)[1]}, planned with vLLM {kwargs['vllm_version']}")
    # a size given (--gpu-gib) for a ROCm log is an AMD card plan_kwargs_from_log built: the user's, not the log's
    sized = bool({"gpu_gib", "gpu_gb"} & set(given))
    if not log.total_gib and kwargs.get("gpu") and "gpu" not in given and not sized:  # the GPU the log named
        notes.append(f"the log names its GPU {_gpu_name_source(log)}: planned for {kwargs['gpu']} (pass --gpu if it is "
                     "another card)")
    if log.rocm_line and "gpu" in kwargs and "gpu" not in given:
        gpu, total = kwargs["gpu"], "the total given" if sized else "the log's total"
        notes.append(f"the log ran on vLLM's ROCm build (line {log.rocm_line[0]}): planned for "
                     + (f"the {gpu} the log names" if isinstance(gpu, str) else f"an AMD GPU of {total}")
                     + " with ROCm's rules (CUDA-graph memory as ROCm accounts it)")
    missing = unstated_plan_flags(log, kwargs)
    if "--tensor-parallel-size" in missing:
        ranks = log.worker_ranks_seen
        raise InputError("--tensor-parallel-size", f"the log shows worker rank {ranks - 1}, so at least {ranks} ranks, but "
                         "states no tensor or pipeline parallel size (its 'non-default args' line is not in the text)",
                         f"pass the sizes the run used: --tensor-parallel-size N (and --pipeline-parallel-size M), "
                         f"N x M >= {ranks}")
    if "--gpu" in missing:
        # the budget needs the GPU's total: the log printed neither it nor a total, so only this machine's own GPU
        # (NVML) stands in, with a note; kvplan does not plan a log of another machine on a default card
        from kvplan.resolve import detect_gpu

        here = detect_gpu()
        if here is not None and log.rocm_line and here.vendor != "AMD":
            raise InputError("--gpu", f"the log ran on vLLM's ROCm build (line {log.rocm_line[0]}: "
                             f"{log.rocm_line[1][:120]!r}) but names neither its AMD card nor its total, and the GPU "
                             f"detected here is {here.name}", "give the GPU the log came from: --gpu NAME (e.g. --gpu "
                             "MI300X) or --gpu-gib N")
        if here is None:  # a ROCm log's example is an AMD card (an NVIDIA one would be planned with CUDA's rules)
            rocm = f", and ran on vLLM's ROCm build (line {log.rocm_line[0]})" if log.rocm_line else ""
            raise InputError("--gpu", "the log prints neither its GPU nor the GPU's total memory (vLLM's 'total_gpu_memory="
                             "...' or 'Free memory on device (x/y GiB)' lines, or a fused-MoE config file's device_name=...)"
                             f"{rocm}, and no GPU is detected here", "give the GPU the log came from: --gpu NAME (e.g. "
                             f"--gpu {'MI300X' if log.rocm_line else 'H100'}) or --gpu-gib N")
        notes.append(f"the log does not say which GPU it ran on: planned for {here.name}, the GPU detected here "
                     "(pass --gpu if the log came from another machine)")
    taken = set(kwargs)  # (one the plan refuses is dropped below with its own note)
    for _ in range(len(kwargs) + 1):
        try:
            plan = fit(model, site_calibration=site_calibration, **kwargs)
        except InputError as exc:
            name = exc.field.lstrip("-").replace("-", "_")
            if name in kwargs and name not in given:
                notes.append(f"the log's {name}={kwargs.pop(name)!r} {NOT_USABLE} ({exc.message}); planned with the default")
                continue
            raise
        if version_unstated and "vllm_version" not in kwargs:
            notes.append(f"{unstated.replace('its version', 'its vLLM version')}; planned with vLLM "
                         f"{getattr(plan, 'vllm_version', None)}'s rules (pass --vllm-version)")
        longer = _longer_than_config(plan) if kwargs.get("allow_long_max_model_len") else None
        if longer:
            notes.append(f"the log ran at max_model_len {longer[0]:,}, above the {longer[1]:,} its config allows (vLLM "
                         "accepted it: VLLM_ALLOW_LONG_MAX_MODEL_LEN=1, or a config override the log does not show); "
                         "planned at the log's length")
        if kwargs.get("wsl2") and log.wsl2_line:  # (dropped above, with a note, where the catalog lacks the card's total)
            notes.append(f"the log ran under WSL2 (line {log.wsl2_line[0]})"
                         f"{' and prints no total' if not log.total_gib else ''}: planned for "
                         f"{plan.gpu.name} with its total under WSL2, nvidia-smi's memory.total "
                         f"{plan.gpu.total_gib:.2f} GiB (as --wsl2)")
        if "gpu_gib" in kwargs and not kwargs.get("gpu") and not set(_GPU_FLAGS) & set(given):
            # the log's total alone: no card, so no compute capability for the kernel and capability choices vLLM
            # keys on it, said as the plan's assumptions say it (resolve.CUSTOM_GPU_NO_CC, one wording)
            from kvplan.resolve import CUSTOM_GPU_NO_CC

            size = f"{kwargs['gpu_gib']:g}"
            notes.append("the log prints its GPU's total but not which card: planned as "
                         + CUSTOM_GPU_NO_CC.format(size=f"{size} GiB", flag="--gpu-gib", value=size))
        mismatch = gpu_total_mismatch(log, plan, given)
        if mismatch:
            notes.append(mismatch)
        notes += log_flags_removed(log, getattr(plan, "vllm_version", None), skip=taken | set(given))
        return plan, notes
    raise InputError("MODEL", "could not build a plan from the log's arguments", "pass the flags explicitly")


# ---- site calibration ---------------------------------------------------------------------------------


# The stored terms a plan applies (`kvplan.plan.plan(site_offsets=...)`, bytes per rank), by the key it reads; the
# weights' and the KV pool's gaps are stored beside them but not applied (the pool follows from the terms)
APPLIED_TERMS = {"activation_peak_gib": "activation_peak_bytes", "non_torch_gib": "non_torch_bytes",
                 "cudagraph_gib": "cudagraph_bytes"}


def _era_of(version: str) -> str:
    """The accounting era of release `version` (versions.py era rows), as api.site_offsets_for compares them; "" for a
    number that names no release (an untagged source build's 0.1.devN)."""
    try:
        return f"era {rules_for(version).era}"
    except InputError:
        return ""


def store_site_calibration(reconciliation: Reconciliation, gpu_name: str, model_id: str,
                           path: Optional[Path] = None, startup_id: Optional[str] = None) -> dict:
    """Fold this startup's observed-minus-predicted terms into the site calibration file. `startup_id` (a digest of
    the log's bytes) stores a startup once: the same log calibrated again would weigh its gaps twice in the means."""
    gaps = {r.term: r.gap for r in reconciliation.rows if r.term in MEMORY_TERMS and r.gap is not None}
    if not gaps:
        raise InputError("--calibrate", "the log has no measured term to compare with the plan",
                         "use a log that prints 'Model loading took' and 'Available KV cache memory'")
    path = path or calibration_path()
    data = load_site_calibration(path=path)
    entry = data.setdefault(gpu_name, {}).setdefault(model_id, {"terms": {}, "counts": {}})
    # the release the gaps were measured against: the --vllm-version given (the record holds it, _given_into_record),
    # else the log's; the log's number stood first, so a log printing an untagged source build (0.1.dev<commits>)
    # stored that where --vllm-version had named the release
    measured = (reconciliation.record or {}).get("vllm_version") or reconciliation.log.vllm_version
    stored = entry.get("vllm_version")
    if entry.get("n") and stored and measured and (_era_of(str(stored)) or str(stored)) != (_era_of(str(measured)) or str(measured)):
        # the means would fold gaps of terms the two releases account otherwise (api.site_offsets_for applies an entry
        # only to plans of its release's era), under the later startup's release
        raise InputError("--calibrate", f"the site calibration of {model_id} on {gpu_name} was measured on vLLM {stored} "
                         f"startup(s) ({_era_of(str(stored)) or 'a number that names no release'}), and this log's vLLM "
                         f"{measured} ({_era_of(str(measured)) or 'a number that names no release'}) accounts the terms "
                         "otherwise, so their gaps do not average",
                         f"remove the {model_id} entry under {gpu_name} from {path} (or point KVPLAN_HOME at another "
                         f"folder) to calibrate vLLM {measured}; pass --vllm-version where the log's build prints no "
                         "release")
    if startup_id is not None:
        if startup_id in entry.get("startups", []):
            raise InputError("--calibrate", f"this log is already in the site calibration of {model_id} on {gpu_name} "
                             f"({entry.get('n', 0)} startup(s), {path})", "calibrate with another startup's log")
        entry.setdefault("startups", []).append(startup_id)
    for term, gap in gaps.items():
        n = entry["counts"].get(term, 0)
        mean = entry["terms"].get(term, 0.0)
        entry["terms"][term] = round((mean * n + gap) / (n + 1), 4)
        entry["counts"][term] = n + 1
    entry["n"] = max(entry["counts"].values())
    # The keys `kvplan.plan.plan(site_offsets=...)` applies (bytes per rank).
    for term, key in APPLIED_TERMS.items():
        if term in entry["terms"]:
            entry[key] = int(entry["terms"][term] * GIB)
    entry["source"] = f"kvplan reconcile --calibrate ({entry['n']} startup(s), {path})"
    entry["vllm_version"] = measured
    entry["updated"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
        tmp.replace(path)
    except OSError as exc:
        raise InputError("KVPLAN_HOME", f"cannot write the site calibration {path}: {exc.strerror or exc}",
                         "point KVPLAN_HOME at a folder this user can write (default ~/.config/kvplan)") from None
    return entry
