"""A third new user's pass: an ML engineer choosing a model, a quantization and a GPU, pasting kvplan's numbers into
a design doc. Each test is a finding that read wrong before its fix."""

from __future__ import annotations

import kvplan


def test_a_fix_that_still_does_not_fit_says_what_one_request_needs():
    """'online FP8 weights --quantization fp8 still does not fit (7.57 GiB for KV)' did not say what one request at
    max_model_len needs, so the reader could not tell how far short it is: vLLM's check needs 8.00 GiB for one
    32,768-token request of Qwen3-32B (64 layers x 8 KV heads x 128 x 2 x 2 B = 256 KiB a token)."""
    p = kvplan.fit("Qwen/Qwen3-32B", "L40S", max_model_len=32768)
    fp8 = next(f for f in p.fixes if f.flags == {"quantization": "fp8"})
    assert not fp8.fits
    assert fp8.effect.startswith("still does not fit (7.5") and "GiB for KV; one 32,768-token request needs 8.00 GiB)" in fp8.effect
    # V0's message counts tokens, not GiB: the effect says how many the pool holds
    v0 = kvplan.fit("Qwen/Qwen3-32B", "L40S", max_model_len=32768, vllm_version="0.8.0", env={"VLLM_USE_V1": "0"})
    fp8 = next(f for f in v0.fixes if f.flags == {"quantization": "fp8"})
    assert not fp8.fits and "tokens, one request needs 32,768)" in fp8.effect and "; it holds " in fp8.effect
