"""The CUDA-graph memory estimate on ROCm (versions row cudagraph_subtracted_rocm).

vLLM's determine_available_memory (vllm/v1/worker/gpu_worker.py) profiles the graphs before sizing the pool from 0.20,
but only on CUDA until 0.26.0: `not current_platform.is_rocm()` in 0.20.0, `current_platform.is_cuda()` in 0.21-0.25,
`current_platform.is_cuda_alike()` (ROCm included) from 0.26.0. A ROCm start of 0.20-0.25 subtracts no estimate (a
Gemma-3-4B-it MI300X start on 0.23.0 logs no 'CUDA graph memory profiling' line: blind record
gemma-3-4b-it-mi300x-udef-tp1-l8k); the same start on CUDA, or on ROCm from 0.26, does."""

from __future__ import annotations

import pytest

import kvplan
from kvplan.versions import rules_for

MODEL = "Qwen/Qwen3-30B-A3B-FP8"  # a MoE model: model runner v1 in 0.20-0.28 (v2 before 0.29 subtracts no estimate anywhere)


def _plan(gpu, version, **kw):
    return kvplan.fit(MODEL, gpu=gpu, max_model_len=8192, gpu_memory_utilization=0.9, vllm_version=version,
                      detect_gpu=False, **kw)


def test_the_row_steps_at_0_26():
    assert [rules_for(v).cudagraph_subtracted_rocm for v in ("0.20.0", "0.23.0", "0.25.1", "0.26.0", "0.30.0")] == \
        [False, False, False, True, True]


@pytest.mark.parametrize("version", ["0.20.0", "0.23.0", "0.25.1"])
def test_rocm_subtracts_no_graph_estimate_before_0_26(version):
    rocm = _plan("MI300X", version)
    cuda = _plan("H100", version)
    assert rocm.cudagraph_bytes == 0
    assert cuda.cudagraph_bytes > 0
    assert any("no CUDA-graph memory estimate on ROCm" in a for a in rocm.assumptions)
    # the graphs are still captured (after the KV allocation, beyond the budget)
    assert rocm.cudagraph_capture_bytes > 0


def test_rocm_from_0_26_and_eager_are_unchanged():
    assert _plan("MI300X", "0.30.0").cudagraph_bytes > 0
    assert _plan("MI300X", "0.23.0", enforce_eager=True).cudagraph_bytes == 0
    assert not any("no CUDA-graph memory estimate on ROCm" in a for a in _plan("MI300X", "0.30.0").assumptions)
