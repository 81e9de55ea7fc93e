"""vLLM 0.34.0 splits the CUDA-graph capture sizes into prefill token counts (PIECEWISE graphs) and decode request
counts (FULL uniform-decode graphs) (config/vllm.py VllmConfig._split_cudagraph_capture_sizes; versions.py row
cudagraph_wide_defaults_cc10). On a compute-capability-10.x GPU with no sizes given they take wider grids
(config/compilation.py prefill_cudagraph_capture_grid, 54 sizes at 8,192 tokens; decode_cudagraph_capture_grid, 64
sizes at 1,024 requests); elsewhere both keep the shared sizes of 0.33."""
from __future__ import annotations

import kvplan
from kvplan.plan.cudagraphs import decode_capture_grid, decode_capture_shapes, prefill_capture_grid
from kvplan.versions import rules_for

QWEN3 = "Qwen/Qwen3-8B"


def _fit(gpu, version, **kw):
    return kvplan.fit(QWEN3, gpu, vllm_version=version, max_model_len=8192, **kw)


def _graphs(p):
    return p.cudagraphs if isinstance(p.cudagraphs, dict) else p.cudagraphs.to_dict()


def test_the_grids_as_vllm_documents_them():
    assert rules_for("0.33.0").cudagraph_wide_defaults_cc10 is False
    assert rules_for("0.34.0").cudagraph_wide_defaults_cc10 is True
    prefill, decode = prefill_capture_grid(8192), decode_capture_grid(1024)
    assert len(prefill) == 54 and prefill[:11] == [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64] and prefill[-3:] == [7424, 7680, 8192]
    assert len(decode) == 64 and decode[:7] == [1, 2, 3, 4, 5, 6, 8] and decode[-2:] == [992, 1024]
    assert prefill_capture_grid(0) == [] and prefill_capture_grid(100)[-1] == 100
    # a request count past the limit is captured at the limit, larger ones are unreachable
    assert decode_capture_shapes([1, 2, 4, 8, 16], 4, 100, 24) == [(1, 4), (2, 4), (4, 4), (6, 4)]


def test_a_b200_captures_the_split_grids_from_0_34():
    old, new = _fit("B200", "0.33.0"), _fit("B200", "0.34.0")
    g_old, g_new = _graphs(old), _graphs(new)
    assert g_old["largest"] == 1024 and g_old["num_capture_sizes"] == 83
    # max_num_batched_tokens 16,384 on a B200: prefill up to 8,192 tokens; decode up to max_num_seqs 1,024
    assert g_new["largest"] == 8192
    assert set(g_new["capture_sizes"]) == set(prefill_capture_grid(8192)) | set(decode_capture_grid(1024))
    assert any("54 prefill sizes up to 8,192 tokens" in a and "64 uniform-decode graphs" in a for a in new.assumptions)
    # kvplan's graph memory counts layers x PIECEWISE sizes and one MiB per FULL graph past two: 54 and 64, not 83 and 83
    assert new.cudagraph_bytes < old.cudagraph_bytes


def test_hopper_keeps_the_shared_sizes():
    old, new = _fit("H100", "0.33.0"), _fit("H100", "0.34.0")
    assert _graphs(old)["capture_sizes"] == _graphs(new)["capture_sizes"]
    assert new.cudagraph_capture_bytes == old.cudagraph_capture_bytes  # (0.34 estimates none: the extensible KV cache)


def test_given_sizes_keep_the_shared_path_on_a_b200():
    p = _fit("B200", "0.34.0", compilation_config='{"cudagraph_capture_sizes": [1, 2, 4, 8]}')
    assert _graphs(p)["capture_sizes"] == [1, 2, 4, 8]
