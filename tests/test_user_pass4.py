"""A fresh user's pass (session 42): slightly wrong input a vLLM user types, and what kvplan answered."""

from __future__ import annotations

import pytest

from cli_runner import refused


@pytest.mark.parametrize("ref", ["16GB", "16 GB", "NVIDIA 24GB", "80GB", "2x 40GB"])
def test_a_memory_size_alone_as_the_gpu_is_refused_not_read_as_a_card(monkeypatch, capsys, ref):
    """`--gpu 16GB` planned an AMD Radeon RX 9070 XT (ROCm's rules) without a word: every 16 GB card matched the size by
    its words and the largest total among them was taken; '80GB' planned an H100 SXM5, '40GB' an A100 40GB SXM4."""
    out = refused(monkeypatch, capsys, "--gpu", "fit", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", ref)
    assert "is a memory size, not a GPU" in out and "kvplan gpus" in out and "--gpu-gb" in out, out
    # with a size flag beside it, the fix is to drop the name
    out = refused(monkeypatch, capsys, "--gpu", "fit", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", ref, "--gpu-gib", "15")
    assert "leave out --gpu: --gpu-gib alone" in out, out


@pytest.mark.parametrize("ref, card", [("H100 80GB", "NVIDIA H100 80GB SXM5"), ("A100-80G", "NVIDIA A100 80GB SXM4"),
                                       ("RTX 4060 Ti 16GB", "NVIDIA GeForce RTX 4060Ti 16GB")])
def test_a_card_named_with_its_size_still_plans(ref, card):
    from kvplan.resolve import find_gpu

    assert find_gpu(ref).name == card
