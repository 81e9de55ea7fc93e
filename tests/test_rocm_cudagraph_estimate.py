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
    assert [rules_for(v).cudagraph_rocm_cost for v in ("0.11.0", "0.23.0", "0.25.1", "0.26.0", "0.33.0")] == \
        ["pool", "pool", "pool", "per_graph", "per_graph"]


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


# --------------------------------------------------------------------------- the ROCm graph rate of 0.26+
# Every captured hipGraph holds memory of its own (vLLM issue #19579; ROCm/pytorch #2286): from 0.26, where vLLM
# subtracts its graph estimate on ROCm too, kvplan charges the era's pool constant + calibration.py ROCM_G_PER_GRAPH per
# graph, (layers + 1) per PIECEWISE size and 1 per FULL size (plan.rocm_graph_units).

from kvplan.calibration import CAPTURE_G_CONST, GIB, ROCM_G_PER_GRAPH, coefficients_for  # noqa: E402
from kvplan.plan import CudaGraphPlan, rocm_graph_units  # noqa: E402
from repo_scripts import load_script  # noqa: E402

SIZES_512 = tuple([1, 2, 4] + list(range(8, 256, 8)) + list(range(256, 513, 16)))  # vLLM's default grid, 51 sizes


def test_graph_units_by_mode():
    assert len(SIZES_512) == 51
    both = CudaGraphPlan(mode="FULL_AND_PIECEWISE", sizes=SIZES_512, rounded_to=1)
    # 51 PIECEWISE sizes of 49 pieces (48 layers + 1) and the 35 uniform-decode sizes up to max_num_seqs 256, FULL
    assert rocm_graph_units(both, 48, 256) == 49 * 51 + 35
    assert rocm_graph_units(CudaGraphPlan(mode="PIECEWISE", sizes=SIZES_512, rounded_to=1), 48, 256) == 49 * 51
    assert rocm_graph_units(CudaGraphPlan(mode="FULL_DECODE_ONLY", sizes=SIZES_512, rounded_to=1), 48, 256) == 35
    assert rocm_graph_units(CudaGraphPlan(mode="FULL", sizes=SIZES_512, rounded_to=1), 48, 256) == 51


def test_rocm_0_30_charges_the_per_graph_rate_and_cuda_is_unchanged():
    rocm = kvplan.fit(MODEL, gpu="MI300X", max_model_len=16384, gpu_memory_utilization=0.9, vllm_version="0.30.0",
                      detect_gpu=False, max_num_seqs=256)
    cuda = kvplan.fit(MODEL, gpu="H100", max_model_len=16384, gpu_memory_utilization=0.9, vllm_version="0.30.0",
                      detect_gpu=False, max_num_seqs=256)
    expected = coefficients_for(rocm.era).g_const + ROCM_G_PER_GRAPH * (49 * 51 + 35)
    assert rocm.cudagraph_bytes == pytest.approx(expected, abs=1)
    assert rocm.cudagraph_capture_bytes == rocm.cudagraph_bytes
    # the blind MI300X start of this shape logs 'CUDA graph pool memory: 5.28 GiB (actual), 5.43 GiB (estimated)'
    assert 5.0 * GIB < rocm.cudagraph_bytes < 5.6 * GIB
    assert cuda.cudagraph_bytes < 1 * GIB  # CUDA's shared pool: model runner v2's constant, untouched
    assert any("hipGraphs" in t.formula for t in rocm.terms if t.name == "cudagraph")


def test_before_0_26_the_rocm_capture_keeps_the_cuda_formula():
    p = kvplan.fit(MODEL, gpu="MI300X", max_model_len=16384, gpu_memory_utilization=0.9, vllm_version="0.25.1",
                   detect_gpu=False, max_num_seqs=256)
    assert p.cudagraph_bytes == 0 and 0 < p.cudagraph_capture_bytes < 1.5 * GIB
    assert not any("hipGraphs" in t.formula for t in p.terms if t.name == "cudagraph")


def test_model_runner_v2_before_0_29_on_rocm_subtracts_nothing_but_captures_per_graph():
    p = kvplan.fit("Qwen/Qwen3-8B", gpu="MI300X", max_model_len=8192, gpu_memory_utilization=0.9, vllm_version="0.27.1",
                   detect_gpu=False, max_num_seqs=16)
    assert p.cudagraph_bytes == 0
    # the 0.27 capture sizes up to 2 x 16: 1, 2, 4, 8, 16, 24, 32 (7 PIECEWISE of 37 pieces) and 5 FULL up to 16
    assert p.cudagraph_capture_bytes == pytest.approx(CAPTURE_G_CONST + ROCM_G_PER_GRAPH * (37 * 7 + 5), abs=1)


def test_the_rate_is_the_median_of_its_family_and_those_records_leave_the_blind_set():
    tool = load_script("tools/fit_calibration.py", "fit_calibration_rocm_graphs")
    rate, each = tool.rocm_graph_family(tool.ROOT)
    assert rate == pytest.approx(ROCM_G_PER_GRAPH, abs=1)
    ids = {i for i, _ in each}
    assert len(ids) >= 3
    assert ids <= tool.records_fixing_coefficients(tool.ROOT)
    import json
    from pathlib import Path
    blind = {json.loads(line)["id"] for line in (Path(__file__).parent / "data" / "blind_records.jsonl").open()}
    assert not ids & blind
    # each MI300X start implies 2.0-2.1 MiB per graph; the RX 7900 XT (RDNA3) 3.0
    assert all(1.9 * 1024 ** 2 < v < 3.2 * 1024 ** 2 for _, v in each)


def test_an_uncatalogued_amd_card_in_a_record_plans_as_rocm():
    from kvplan.validate import _record_gpu
    assert _record_gpu({"gpu": {"name": "AMD Radeon RX 7900 XT", "total_gib": 19.98}}).vendor == "AMD"
    assert _record_gpu({"gpu": {"name": "Some Card", "total_gib": 20.0}}).vendor == "NVIDIA"


def test_a_size_given_to_an_amd_card_keeps_it_an_amd_card():
    """`--gpu MI300X --gpu-gib N` built a custom GPU without the card's vendor, so it was planned as an NVIDIA one:
    CUDA's shared graph pool (0.30 GiB) instead of the per-hipGraph cost (3.74 GiB) of the same card named alone."""
    import kvplan

    named = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "MI300X", vllm_version="0.30.0")
    sized = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "MI300X", gpu_gib=191.5, vllm_version="0.30.0")
    assert named.gpu.vendor == sized.gpu.vendor == "AMD"
    assert sized.cudagraph_bytes == named.cudagraph_bytes
    assert sized.gpu.fp4_tflops == named.gpu.fp4_tflops
    assert kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", gpu_gib=40).gpu.vendor == "NVIDIA"  # no card named: the default
