"""vLLM 0.34.0's KV-memory refusals and auto-fit lines (v1/core/kv_cache_planning.py, 0.34.0 wheel; versions.py rows
fit_error_format "v1-model-hint", no_memory_error_format "hint", auto_fit_tentative): the advice is
_more_kv_cache_memory_hint, which speaks of the extensible KV cache (on unless --kv-cache-memory-bytes sizes the
cache) and the resolved gpu_memory_utilization, and an auto-fitted length is tentative while that cache is on."""
from __future__ import annotations

import kvplan
from kvplan.versions import rules_for

QWEN3 = "Qwen/Qwen3-8B"
TAIL = ("Decreasing `max_model_len` also reduces what is needed. "
        "See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.")


def _fit(version, **kw):
    kw.setdefault("max_model_len", 40960)
    return kvplan.fit(QWEN3, "L4", vllm_version=version, **kw)


def test_the_rows_step_at_0_34():
    assert rules_for("0.33.0").fit_error_format == "v1-model-gib"
    assert rules_for("0.34.0").fit_error_format == "v1-model-hint"
    assert rules_for("0.34.0").no_memory_error_format == "hint"
    assert not rules_for("0.33.0").auto_fit_tentative and rules_for("0.34.0").auto_fit_tentative


def test_the_fit_refusal_carries_the_sizing_modes_hint():
    old = _fit("0.33.0", gpu_memory_utilization=0.8)
    assert not old.fits and "Try increasing `gpu_memory_utilization` (which also controls CPU memory" in old.error
    p = _fit("0.34.0", gpu_memory_utilization=0.8)
    assert not p.fits and p.failure == "memory" and p.error.endswith(TAIL)
    assert ("The KV cache gets what is left after the model and its activations within `gpu_memory_utilization`=0.8; "
            "increase it (with the extensible KV cache it defaults to 1.0) or decrease `max_model_len` or "
            "`max_num_seqs`. Decreasing") in p.error
    # at 1.0 the capacity holds the 40,960-token request; the pool measured after warmup does not
    full = _fit("0.34.0", gpu_memory_utilization=1.0)
    assert not full.fits and ("The extensible KV cache already takes all device memory left after the model, its "
                              "activations, CUDA graphs and warmup; decrease `max_model_len` or `max_num_seqs`, or the "
                              "model needs a device with more memory.") in full.error
    sized = _fit("0.34.0", kv_cache_memory_bytes=2 * 2 ** 30)
    assert not sized.fits and ("Try increasing `gpu_memory_utilization` when initializing the engine (this flag also "
                               "controls CPU memory reservation on the CPU backend, despite its name). " + TAIL) in sized.error


def test_auto_fit_is_tentative_with_the_extensible_cache():
    old = _fit("0.33.0", max_model_len=-1, gpu_memory_utilization=0.8)
    new = _fit("0.34.0", max_model_len=-1, gpu_memory_utilization=0.8)
    line = next(l for l in new.vllm_log if l.startswith("Auto-fit max_model_len: reduced from 40960 to "))
    assert line.endswith("; the final length is set after CUDA graph capture and warmup")
    assert not any("final length" in l for l in old.vllm_log)
    # 64-token blocks: the fitted length is a multiple of 64 (0.33: of 16)
    assert new.args.max_model_len % 64 == 0 and new.args.max_model_len <= old.args.max_model_len
    sized = _fit("0.34.0", max_model_len=-1, kv_cache_memory_bytes=2 * 2 ** 30)
    n = sized.args.max_model_len
    line = next(l for l in sized.vllm_log if l.startswith("--max-model-len auto reduced max_model_len from 40960 to "))
    assert f"to {n} (" in line and "GiB GPU available for the KV cache)" in line


def test_no_memory_refusal_carries_the_hint():
    old = _fit("0.33.0", max_model_len=4096, gpu_memory_utilization=0.7)
    new = _fit("0.34.0", max_model_len=4096, gpu_memory_utilization=0.7)
    assert not old.fits and not new.fits
    assert old.error.startswith("No available memory for the cache blocks. Try increasing `gpu_memory_utilization`")
    assert new.error == ("No available memory for the cache blocks. The KV cache gets what is left after the model and "
                         "its activations within `gpu_memory_utilization`=0.7; increase it (with the extensible KV cache "
                         "it defaults to 1.0) or decrease `max_model_len` or `max_num_seqs`. See "
                         "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.")
