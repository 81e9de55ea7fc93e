"""V1's post-capture summary ('Free memory on device (F/T GiB) on startup. ... Actual usage is ...') in the predicted
log: printed for the releases that print it (versions.py row summary_log_format), in each release's format, from the
plan's own terms, and read back by kvplan's own log parser to the same numbers."""

from __future__ import annotations

import re

import pytest

import kvplan
from kvplan.calibration import GIB
from kvplan.logs import parse_log
from kvplan.versions import rules_for

MiB = 1 << 20


def _fit(version, model="Qwen/Qwen3-8B", gpu="H100", **flags):
    flags.setdefault("max_model_len", 8192)
    return kvplan.fit(model, gpu=gpu, vllm_version=version, **flags)


def _terms(p):
    return {t.name: t.value for t in p.terms}


def _summary(p):
    lines = [line for line in p.vllm_log if line.startswith("Free memory on device")]
    assert len(lines) <= 1
    return lines[0] if lines else None


def _g(x):
    return round(x / GIB, 2)


def test_rows_follow_the_wheels():
    assert rules_for("0.10.1").summary_log_format == ""
    assert rules_for("0.10.2").summary_log_format == "weights-bytes"
    assert rules_for("0.26.0").summary_log_format == "weights"
    assert rules_for("0.27.0").summary_log_format == "consumed"
    assert rules_for("0.34.0").summary_log_format == "consumed"


@pytest.mark.parametrize("version", ["0.34.0", "0.33.0", "0.27.0", "0.26.0", "0.11.0", "0.10.2"])
def test_round_trip_through_the_parser(version):
    p = _fit(version)
    t = _terms(p)
    line = _summary(p)
    assert line is not None, p.vllm_log
    log = parse_log(list(p.vllm_log))
    assert not [w for w in log.parse_warnings if "summary" in w or "peak activation" in w], log.parse_warnings
    assert line not in log.unrecognised
    # every figure is a plan term, read back as printed
    assert log.free_at_start_gib == _g(t["total"] - t["startup_used"]) == _g(t["init_free"])
    assert log.total_gib == _g(p.total_bytes)
    assert log.gpu_memory_utilization == p.args.gpu_memory_utilization
    assert log.requested_gib == _g(p.requested_bytes)
    assert log.cudagraph_actual_gib == _g(t["cudagraph_capture"])
    # the KV memory in use: the profiled pool, or 0.34's capacity ('Available KV cache memory')
    kv = p.kv_cache_capacity_bytes if p.kv_cache_capacity_bytes is not None else p.kv_cache_bytes
    assert log.kv_cache_in_use_gib == pytest.approx(kv / GIB, abs=0.005)
    # the parser takes the CUDA-graph estimate back out of >= 0.27's peak activation: equal up to the two roundings
    assert log.activation_peak_gib == pytest.approx(t["activation_peak"] / GIB, abs=0.0100001)
    if rules_for(version).summary_log_format == "consumed":
        assert log.consumed_gib == _g(t["weights"] + t["non_torch"])
    else:
        assert log.non_torch_gib == _g(t["non_torch"])
        assert re.search(rf"Actual usage is {_g(t['weights'])} GiB for weight", line)


@pytest.mark.parametrize("version", ["0.34.0", "0.33.0", "0.26.0", "0.10.2"])
def test_suggestions_are_the_plan_terms(version):
    p = _fit(version)
    t = _terms(p)
    line = _summary(p)
    first, second = (int(x) for x in re.findall(r"`--kv-cache-memory=(-?\d+)`", line))
    # requested (or free at startup) less everything but the KV cache, less vLLM's 150 MiB redundancy buffer
    non_kv = t["weights"] + t["non_torch"] + t["summary_peak_activation"] + t["cudagraph_capture"]
    assert first == int(p.requested_bytes) - non_kv - 150 * MiB == t["kv_cache_memory_to_requested_limit"]
    assert second == t["init_free"] - non_kv - 150 * MiB == t["kv_cache_memory_to_gpu_limit"]
    if version == "0.10.2":  # suggestions in bytes alone, the KV memory in bytes
        assert line.endswith(f"Current kv cache memory in use is {int(p.kv_cache_bytes)} bytes.")
        assert "GiB) to fit" not in line
    else:
        assert f"({_g(first)} GiB) to fit into requested memory" in line


def test_peak_activation_holds_the_applied_estimate_from_0_27():
    p = _fit("0.33.0")
    t = _terms(p)
    assert t["cudagraph"] > 0  # model runner v2's estimate (0.29 on), subtracted from the pool
    assert t["summary_peak_activation"] == t["activation_peak"] + t["cudagraph"]
    # ... and the capture is compared with it just before the summary, as vLLM does
    i = next(i for i, line in enumerate(p.vllm_log) if line.startswith("CUDA graph pool memory"))
    assert p.vllm_log[i + 1].startswith("Free memory on device")
    assert f"{_g(t['cudagraph'])} GiB (estimated)" in p.vllm_log[i]
    # 0.34's extensible KV cache makes no estimate: the summary's peak is the profile's own, no comparison line
    q = _fit("0.34.0")
    tq = _terms(q)
    assert tq["cudagraph"] == 0 and tq["summary_peak_activation"] == tq["activation_peak"]
    assert not [line for line in q.vllm_log if line.startswith("CUDA graph pool memory")]


def test_order_in_0_34_summary_before_the_post_warmup_sizing():
    log = _fit("0.34.0").vllm_log
    idx = {key: next(i for i, line in enumerate(log) if line.startswith(key))
           for key in ("Graph capturing finished", "Free memory on device", "Memory after warmup", "GPU KV cache size")}
    assert idx["Graph capturing finished"] < idx["Free memory on device"] < idx["Memory after warmup"] < idx["GPU KV cache size"]


def test_no_summary_where_vllm_prints_none():
    assert _summary(_fit("0.10.1")) is None  # before 0.10.2
    assert _summary(_fit("0.33.0", kv_cache_memory_bytes=40 * GIB)) is None  # no profile: no peak_activation_memory
    refused = _fit("0.33.0", model="Qwen/Qwen3-32B", max_model_len=40960, gpu="L4")
    assert not refused.fits and _summary(refused) is None  # the fit check raises before the capture


def test_explain_traces_the_terms():
    p = _fit("0.33.0")
    names = {t.name for t in p.terms}
    assert {"startup_used", "init_free", "cudagraph_capture", "summary_peak_activation",
            "kv_cache_memory_to_requested_limit", "kv_cache_memory_to_gpu_limit"} <= names
    # no duplicates where the extensible sizing already traces startup_used / init_free / cudagraph_capture
    names34 = [t.name for t in _fit("0.34.0").terms]
    assert len(names34) == len(set(names34))


@pytest.mark.parametrize("version", ["0.33.0", "0.34.0"])
def test_unified_memory_free_figure_is_not_made_up(version):
    # a unified-memory GPU's free memory is the OS's available memory (utils/mem_utils.py device_memory_info): kvplan
    # prints vLLM's line with '…' for it and for the suggestion computed from it, and traces neither as a term
    p = _fit(version, gpu="GB10")
    line = _summary(p)
    assert line.startswith(f"Free memory on device (…/{_g(p.total_bytes)} GiB) on startup.")
    assert "`--kv-cache-memory=…` (… GiB) to fully utilize gpu memory" in line
    t = _terms(p)
    assert "kv_cache_memory_to_gpu_limit" not in t
    first = int(re.search(r"`--kv-cache-memory=(-?\d+)`", line).group(1))
    assert first == t["kv_cache_memory_to_requested_limit"]
    if version == "0.33.0":
        assert "init_free" not in t and "startup_used" not in t
    # the parser reads no summary figure it cannot (no free memory), and the KV memory in use still
    log = parse_log(list(p.vllm_log))
    assert log.free_at_start_gib is None
    kv = p.kv_cache_capacity_bytes if p.kv_cache_capacity_bytes is not None else p.kv_cache_bytes
    assert log.kv_cache_in_use_gib == pytest.approx(kv / GIB, abs=0.005)
