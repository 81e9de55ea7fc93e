"""--kv-cache-memory-bytes (vLLM >= 0.10.2): the pool given, not profiled, from fit to serve.sh to reconcile."""

from __future__ import annotations

import json
import subprocess

import pytest

import kvplan
from kvplan.cli import FitFlags
from kvplan.deploy import render_files, spec_from_plan
from kvplan.errors import InputError
from kvplan.logs import parse_lines
from kvplan.reconcile import plan_from_log, reconcile
from kvplan.resolve import GIB

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def run(*args):
    return subprocess.run(["kvplan", *args], capture_output=True, text=True, timeout=120)


def test_the_given_pool_sets_blocks_tokens_and_concurrency_by_the_block_arithmetic():
    r = run("fit", LLAMA, "--gpu", "H100", "--max-model-len", "8192", "--kv-cache-memory-bytes", "8G", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["kv_cache_bytes"] == 8 * GIB  # 8G as vllm serve reads it: binary
    assert d["num_gpu_blocks"] == 8 * GIB // d["bytes_per_block"]
    assert d["kv_cache_tokens"] == d["num_gpu_blocks"] * d["block_size"]
    assert d["max_concurrency"] == pytest.approx(d["kv_cache_tokens"] / 8192, abs=0.01)
    # the profiled terms' residuals do not apply to a pool nobody profiled: no band pretends they do
    assert "pool is given" in d["uncertainty"]["text"] and d["uncertainty"]["n"] == 0
    # the predicted log says what vLLM >= 0.10.2 says for a given pool, and reads back as that pool
    p = kvplan.fit(LLAMA, "H100", max_model_len=8192, kv_cache_memory_bytes="8G")
    assert not any(line.startswith("Available KV cache memory") for line in p.vllm_log)
    assert parse_lines(p.vllm_log).to_record()["observed"]["kv_cache_gib"] == 8.0
    # lower-case g is decimal, as vllm serve's human-readable ints read it
    assert kvplan.fit(LLAMA, "H100", max_model_len=8192, kv_cache_memory_bytes="8g").kv_cache_bytes == 8e9


def test_a_pool_beyond_the_card_fails_at_allocation_and_the_fix_starts_cleanly():
    p = kvplan.fit(LLAMA, "H100", max_model_len=8192, kv_cache_memory_bytes=70 * GIB)
    assert not p.fits and p.failure == "kv_alloc"
    assert "CUDA out of memory while allocating the KV cache" in p.error
    assert p.vllm_log[-1].startswith("torch.OutOfMemoryError") and not any("Graph capturing" in x for x in p.vllm_log)
    lower = next(f for f in p.fixes if "kv_cache_memory_bytes" in f.flags)
    assert lower.fits and lower.flags["kv_cache_memory_bytes"].endswith("M")
    q = kvplan.fit(LLAMA, "H100", max_model_len=8192, kv_cache_memory_bytes=lower.flags["kv_cache_memory_bytes"])
    assert q.fits and not any("kv-cache-memory-bytes" in w for w in q.warnings)
    resident = q.weights_bytes + q.non_torch_bytes + q.cudagraph_capture_bytes + q.activation_peak_bytes + q.kv_cache_bytes
    assert resident <= q.total_bytes < resident + 2**20  # the largest whole MiB that leaves a full step its activations
    # a pool that is allocated but leaves a full step too little is a warning, not a refusal
    tight = kvplan.fit(LLAMA, "H100", max_model_len=8192, kv_cache_memory_bytes=int(q.kv_cache_bytes) + GIB)
    assert tight.fits and any("first full step" in w for w in tight.warnings)
    r = run("fit", LLAMA, "--gpu", "H100", "--max-model-len", "8192", "--kv-cache-memory-bytes", "70G")
    assert r.returncode == 1 and "Traceback" not in r.stderr + r.stdout


def test_a_release_without_the_flag_refuses_it():
    with pytest.raises(InputError) as e:
        kvplan.fit(LLAMA, "H100", max_model_len=8192, kv_cache_memory_bytes=8 * GIB, vllm_version="0.10.1")
    assert e.value.field == "--kv-cache-memory-bytes"


def test_serve_sh_carries_the_flag():
    p = kvplan.fit(LLAMA, "H100", max_model_len=8192, kv_cache_memory_bytes=8 * GIB)
    serve = render_files(spec_from_plan(p))["serve.sh"]
    assert f"--kv-cache-memory-bytes {8 * GIB}" in serve


LOG = """\
INFO 10-02 10:00:01 [api_server.py:1896] vLLM API server version 0.11.0
INFO 10-02 10:00:01 [utils.py:233] non-default args: {'model_tag': 'Qwen/Qwen2.5-0.5B-Instruct', 'model': 'Qwen/Qwen2.5-0.5B-Instruct', 'max_model_len': 4096, 'kv_cache_memory_bytes': 4294967296}
INFO 10-02 10:00:20 [gpu_model_runner.py:2653] Model loading took 0.9276 GiB and 1.531 seconds
INFO 10-02 10:00:30 [gpu_worker.py:276] Initial free memory 78.67 GiB, reserved 4.00 GiB memory for KV Cache as specified by kv_cache_memory_bytes config and skipped memory profiling. This does not respect the gpu_memory_utilization config.
INFO 10-02 10:00:31 [kv_cache_utils.py:1087] GPU KV cache size: 349,520 tokens
INFO 10-02 10:00:31 [kv_cache_utils.py:1091] Maximum concurrency for 4,096 tokens per request: 85.33x
"""


def test_reconcile_plans_a_log_with_the_pool_it_was_given():
    log = parse_lines(LOG.splitlines())
    p, _notes = plan_from_log(log, "Qwen/Qwen2.5-0.5B-Instruct", FitFlags(gpu="H100"), site_calibration=False)
    assert p.args.kv_cache_memory_bytes == 4 * GIB
    assert p.kv_cache_tokens == 349_520  # 4 GiB / 196,608 B blocks = 21,845 blocks of 16
    gaps = {row.term: row for row in reconcile(log, p).rows}
    assert gaps["kv_cache_tokens"].predicted == gaps["kv_cache_tokens"].observed == 349_520


@pytest.mark.parametrize("pool", [2 * GIB, 4 * GIB])
def test_the_budget_bar_of_a_given_pool_adds_up_to_the_card(pool):
    """The bar's headroom was total - requested whatever the pool: a 2 GiB pool on an L4 drew 18.6 of its 21.95 GiB
    (the rest unshown)."""
    from kvplan.render import budget_segments

    p = kvplan.fit("Qwen/Qwen3-8B", "L4", max_model_len=8192, kv_cache_memory_bytes=pool)
    assert p.fits
    segments = dict(budget_segments(p))
    assert segments["KV pool"] == pool
    assert sum(segments.values()) == pytest.approx(p.total_bytes, abs=1)
    assert segments["headroom"] == pytest.approx(p.total_bytes - p.weights_bytes - p.activation_peak_bytes
                                                 - p.non_torch_bytes - p.cudagraph_bytes - pool, abs=1)
