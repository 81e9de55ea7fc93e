"""Audit findings on `kvplan fit`: fixes the user can pass as written, loads that run out of memory, inputs."""

from __future__ import annotations

import re

import pytest

import kvplan
from kvplan.resolve import resolve_model


def _apply(fix, model, gpu, **flags):
    """The plan after passing the fix exactly as it is written (a model replaces the positional argument)."""
    kw = dict(flags)
    kw.update({k: v for k, v in fix.flags.items() if k != "model"})
    if "gpu" in kw:
        gpu = kw.pop("gpu")
    return kvplan.fit(fix.flags.get("model", model), gpu, fixes=False, **kw)


# ---- the tensor-parallel fix: the smallest accepted size that starts


@pytest.mark.parametrize("model,gpu", [("Qwen/Qwen3-235B-A22B", "H100"), ("deepseek-ai/DeepSeek-R1", "8x H200")])
def test_tp_fix_is_the_smallest_accepted_size_that_starts(model, gpu):
    p = kvplan.fit(model, gpu)
    assert not p.fits
    tp_fixes = [f for f in p.fixes if "tensor_parallel_size" in f.flags]
    assert len(tp_fixes) == 1 and tp_fixes[0].fits
    tp = tp_fixes[0].flags["tensor_parallel_size"]
    assert tp > 2
    from kvplan.plan import accepted_tp_sizes

    for smaller in accepted_tp_sizes(resolve_model(model)):
        if 1 < smaller < tp:
            assert not kvplan.fit(model, gpu, fixes=False, tensor_parallel_size=smaller).fits
    assert kvplan.fit(model, gpu, fixes=False, tensor_parallel_size=tp).fits


def test_tp_fix_beyond_the_gpus_available_says_how_many_it_needs():
    p = kvplan.fit("Qwen/Qwen3-235B-A22B", "2x H100")
    (f,) = [f for f in p.fixes if "tensor_parallel_size" in f.flags]
    tp = f.flags["tensor_parallel_size"]
    assert tp > 2 and f.flags["num_gpus"] == tp
    assert f"needs {tp} GPUs; 2 available" in f.effect
    assert _apply(f, "Qwen/Qwen3-235B-A22B", "2x H100").fits


@pytest.mark.parametrize("model,gpu,flags", [
    ("Qwen/Qwen3-235B-A22B", "H100", {}),
    ("meta-llama/Llama-3.1-70B", "L4", {}),
    ("Qwen/Qwen3-8B", "T4", {}),
    ("Qwen/Qwen3-32B", "L40S", {}),
    ("meta-llama/Llama-3.1-8B-Instruct", "L4", {"max_model_len": 131072}),
])
def test_every_fix_can_be_passed_as_written_and_does_what_it_says(model, gpu, flags):
    p = kvplan.fit(model, gpu, **flags)
    assert not p.fits and p.fixes
    for f in p.fixes:
        assert not re.search(r"-\d[\d.]* GiB", f.effect), f.effect  # no negative memory
        assert _apply(f, model, gpu, **flags).fits == f.fits, f


def test_no_fix_names_a_quantization_the_checkpoint_lacks():
    p = kvplan.fit("Qwen/Qwen3-8B", "T4")
    assert not p.fits
    assert all(f.flags.get("quantization") in (None, "fp8") for f in p.fixes)


def test_a_quantized_catalog_checkpoint_is_offered_by_name():
    p = kvplan.fit("Qwen/Qwen3-235B-A22B", "H100")
    assert any(f.flags.get("model") == "Qwen/Qwen3-235B-A22B-FP8" for f in p.fixes)
    f = next(f for f in p.fixes if f.flags.get("model"))
    assert f.command_text.startswith("Qwen/Qwen3-235B-A22B-FP8")


# ---- weights beyond the GPU: the load runs out of memory


def test_weights_beyond_the_gpu_fail_while_loading_not_for_cache_blocks():
    p = kvplan.fit("meta-llama/Llama-3.1-70B", "L4")
    assert p.weights_bytes > p.total_bytes  # 70B in bf16 on a 24 GB card
    assert not p.fits and p.failure == "load"
    assert "out of memory while loading" in p.error
    assert "gpu_memory_utilization" not in p.error and "No available memory" not in p.error
    assert p.vllm_log[-1].startswith("torch.OutOfMemoryError")
    assert all("gpu_memory_utilization" not in f.flags for f in p.fixes)
    from kvplan.validate import uncertainty_band

    assert uncertainty_band(p) is None


def test_weights_within_the_card_but_beyond_the_budget_keep_vllms_error():
    # 8B bf16 (~15 GiB) on an L4 (21.95 GiB) at utilization 0.5: loads, then no memory for the cache blocks
    p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", gpu_memory_utilization=0.5, fixes=False)
    assert p.requested_bytes < p.weights_bytes < p.total_bytes
    assert p.failure == "memory" and p.error.startswith("No available memory for the cache blocks")
