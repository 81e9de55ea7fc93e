"""Regressions found by sweeping the model x GPU x vLLM-version space (every catalog model and local config on the
common GPUs and releases, with the usual flag variations)."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

import kvplan
from kvplan import api
from kvplan.errors import UnknownGPUError
from kvplan.resolve import find_gpu, resolve_model
from kvplan.weights import weights_per_rank


def test_a_long_modules_to_not_convert_list_is_parsed_once_per_plan():
    # Qwen3-235B-A22B-FP8 lists 283 unconverted modules; --max-model-len auto on a T4 replans it dozens of times, and
    # each plan read the whole list once per component and rank: 5-9 s for one answer. A list 100x as long (as a
    # checkpoint that names every projection of every layer has) must still plan in well under a second per plan.
    spec = resolve_model("Qwen/Qwen3-30B-A3B-FP8")
    long_skip = tuple(f"model.layers.{i}.mlp.gate" for i in range(20_000)) + ("lm_head",)
    short_skip = ("model.layers.0.mlp.gate", "lm_head")
    long_spec = replace(spec, quant=replace(spec.quant, skip=long_skip))
    short_spec = replace(spec, quant=replace(spec.quant, skip=short_skip))
    start = time.perf_counter()
    long_w = weights_per_rank(long_spec, tp=2, quant=long_spec.quant)
    p = kvplan.fit(long_spec, "H100", tensor_parallel_size=2, max_model_len=8192)
    elapsed = time.perf_counter() - start
    assert elapsed < 5, f"{elapsed:.1f} s"
    # the same modules named once each: the same bytes (a pattern skips what its dotted parts name)
    assert long_w.bytes == weights_per_rank(short_spec, tp=2, quant=short_spec.quant).bytes
    assert p.fits and p.weights_bytes == api.fit(short_spec, "H100", tensor_parallel_size=2, max_model_len=8192).weights_bytes


@pytest.mark.parametrize("typed, meant", [("mi300", "AMD Instinct MI300X"), ("A100-80", "NVIDIA A100 80GB"),
                                          ("A100-40", "NVIDIA A100 40GB"), ("MI325", "AMD Instinct MI325X")])
def test_an_unknown_gpu_name_offers_first_the_card_whose_name_holds_it(typed, meant):
    # spelling alone ranked 'B300' above 'MI300X' for 'mi300', and the A800 above the A100 for 'A100-80'
    with pytest.raises(UnknownGPUError) as e:
        find_gpu(typed)
    near = str(e.value).split("nearest: ")[1].split(";")[0].split(", ")
    assert near[0].startswith(meant) and len(near) == len(set(near)) <= 3
    assert e.value.field == "--gpu"
