"""A home-lab user's pass (RTX 3090 / 2x 3090 over PCIe, RTX 4060 Ti under WSL2, RTX 5090, RX 7900 XTX, Jetson Orin):
each test is a finding of that pass, failing before its fix."""

from __future__ import annotations

import kvplan


def test_a_larger_gpu_fix_under_tensor_parallelism_says_how_many_cards():
    # Mistral-Small-3.1-24B at TP 2 on two 3090s does not start; the 'a larger GPU' fix keeps TP 2, so it starts on two
    # RTX 5090s (44.7 GiB of bf16 weights do not fit one 31.36 GiB card), which read 'on NVIDIA GeForce RTX 5090'
    p = kvplan.fit("mistralai/Mistral-Small-3.1-24B-Instruct-2503", "RTX 3090", tensor_parallel_size=2, max_model_len=32768)
    fix = next(f for f in p.fixes if "gpu" in f.flags)
    assert not kvplan.fit(p.model, fix.flags["gpu"], max_model_len=32768).fits  # one card alone would not do
    assert f" on 2 x {fix.flags['gpu']} (" in fix.effect, fix.effect
    # at TP 1 the card is one, as before
    one = next(f for f in kvplan.fit("Qwen/Qwen3-8B", "L4").fixes if "gpu" in f.flags)
    assert f" on {one.flags['gpu']} (" in one.effect and " x " not in one.effect.split(" on ")[-1]
