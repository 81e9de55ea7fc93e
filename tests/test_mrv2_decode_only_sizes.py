"""Model runner v2 with cudagraph_mode FULL_DECODE_ONLY keeps only the capture sizes a decode batch of max_num_seqs
requests can reach, and captures nothing where none is left: CudaGraphManager.needs_capture() is false, so
capture_model logs "Skipping CUDA graph capture. ..." and returns 0.

- 0.12-0.16: get_cudagraph_sizes drops every size above max_num_seqs (upper_bound) from the size table itself.
- 0.17.x: the size table is unfiltered (only the uniform-decode one is), so needs_capture() stays true.
- 0.18+: _init_candidates makes FULL_DECODE_ONLY descriptors only for q <= size <= max_num_seqs x q.
(v1/worker/gpu/cudagraph_utils.py, 0.12.0, 0.16.0, 0.17.0, 0.17.1, 0.18.0, 0.18.1, 0.19.0, 0.20.0, 0.29.0 wheels.)
No KV pool moves: model runner v2 subtracts no graph estimate before 0.29, and the capture comes after the KV allocation."""

from __future__ import annotations

import json

import kvplan
from kvplan.versions import rules_for

QWEN3 = "Qwen/Qwen3-8B"
SKIP = "WARNING Skipping"
FDO = json.dumps({"cudagraph_mode": "FULL_DECODE_ONLY"})


def _fit(version: str, sizes=None, runner: str = "1", mode: str = FDO, **kw):
    return kvplan.fit(QWEN3, "H100", vllm_version=version, max_model_len=8192, compilation_config=mode,
                      env=[f"VLLM_USE_V2_MODEL_RUNNER={runner}"], max_num_seqs=64, cudagraph_capture_sizes=sizes, **kw)


def _capture_lines(p) -> list[str]:
    return [line for line in p.vllm_log if line.startswith(("Graph capturing finished", "WARNING Skipping"))]


def test_rows():
    assert rules_for("0.11.2").mrv2_decode_only_bound == ""
    assert rules_for("0.12.0").mrv2_decode_only_bound == "requests" == rules_for("0.16.0").mrv2_decode_only_bound
    assert rules_for("0.17.0").mrv2_decode_only_bound == "" == rules_for("0.17.1").mrv2_decode_only_bound
    assert rules_for("0.18.0").mrv2_decode_only_bound == "decode_tokens" == rules_for("0.33.0").mrv2_decode_only_bound
    assert rules_for("0.34.0").mrv2_decode_only_bound == ""  # request-keyed decode graphs (cudagraph_decode_keys)


def test_every_size_above_max_num_seqs_captures_nothing():
    for version in ("0.12.0", "0.16.0", "0.18.0", "0.20.0", "0.28.0"):
        p = _fit(version, sizes="96,128")
        assert p.model_runner["runner"] == "v2"
        lines = _capture_lines(p)
        assert lines == ["WARNING " + rules_for(version).mrv2_capture_skipped_log], (version, lines)
        assert p.cudagraph_capture_bytes == 0, version


def test_a_size_within_max_num_seqs_still_captures():
    for version in ("0.12.0", "0.16.0", "0.20.0"):
        lines = _capture_lines(_fit(version, sizes="64,128"))
        assert len(lines) == 1 and lines[0].startswith("Graph capturing finished"), (version, lines)
        assert _capture_lines(_fit(version))[0].startswith("Graph capturing finished")


def test_where_the_rule_does_not_apply():
    # 0.17.x: needs_capture() reads the unfiltered table
    assert _capture_lines(_fit("0.17.0", sizes="96,128"))[0].startswith("Graph capturing finished")
    # mixed modes keep sizes up to max_num_batched_tokens
    full = json.dumps({"cudagraph_mode": "FULL_AND_PIECEWISE"})
    assert _capture_lines(_fit("0.16.0", sizes="96,128", mode=full))[0].startswith("Graph capturing finished")
    # model runner v1 captures its FULL_DECODE_ONLY graphs
    p = _fit("0.16.0", sizes="96,128", runner="0")
    assert p.model_runner["runner"] == "v1" and not any(l.startswith(SKIP) for l in _capture_lines(p))


def test_pool_unchanged():
    # the capture comes after the KV allocation and v2 subtracts no estimate before 0.29: the same pool either way
    for version in ("0.16.0", "0.20.0"):
        assert _fit(version, sizes="96,128").kv_cache_tokens == _fit(version, sizes="64,128").kv_cache_tokens
