"""Model runner v2 starts that capture no CUDA graph although graphs are on: the capture line's place holds capture_model's
warning and the capture takes 0 bytes (the post-capture summary's CUDAGraph memory 0.0 GiB).

- 0.12-0.16: v2 captures FULL graphs only; get_cudagraph_sizes returns {} for a cudagraph_mode without full graphs
  (PIECEWISE), so needs_capture() is false and capture_model logs "Skipping CUDA graph capture. ..." and returns 0
  (v1/worker/gpu/cudagraph_utils.py and model_runner.py, 0.12.0-0.16.0 wheels). From 0.17 PIECEWISE graphs are captured.
- 0.17-0.18: under pipeline parallelism capture_model logs "Skipping CUDA graph capture because pipeline parallel is
  enabled. ..." once and returns 0 (v1/worker/gpu/model_runner.py, 0.17.0-0.18.1 wheels; gone in 0.19.0).
The KV pool does not move: these releases subtract no graph estimate from the budget (v2 before 0.29)."""

from __future__ import annotations

import json

import kvplan
from kvplan.versions import rules_for

QWEN3 = "Qwen/Qwen3-8B"
NONE_TEXT = "Skipping CUDA graph capture. To turn on CUDA graph capture, ensure `cudagraph_mode` was not manually set to `NONE`"
PP_TEXT = "Skipping CUDA graph capture because pipeline parallel is enabled. Pipeline parallel is currently eager-only."
PIECEWISE = {"cudagraph_mode": "PIECEWISE"}


def _fit(version: str, comp: dict | None = None, runner: str | None = "1", **kw):
    env = [f"VLLM_USE_V2_MODEL_RUNNER={runner}"] if runner is not None else None
    return kvplan.fit(QWEN3, "H100", vllm_version=version, max_model_len=8192, env=env,
                      compilation_config=json.dumps(comp) if comp else None, **kw)


def _capture_lines(p) -> list[str]:
    return [line for line in p.vllm_log if line.startswith(("Graph capturing finished", "WARNING Skipping"))]


def _summary(p) -> str:
    return next(line for line in p.vllm_log if line.startswith("Free memory on device"))


def _skips(p, text: str) -> None:
    assert p.model_runner["runner"] == "v2"
    assert _capture_lines(p) == ["WARNING " + text]
    assert p.cudagraph_capture_bytes == 0 and p.cudagraphs["capture_bytes"] == 0
    assert "and 0.0 GiB for CUDAGraph memory" in _summary(p)


def _captures(p) -> None:
    lines = _capture_lines(p)
    assert len(lines) == 1 and lines[0].startswith("Graph capturing finished"), lines
    assert p.cudagraph_capture_bytes > 0


def test_the_rows_by_release():
    assert not rules_for("0.11.2").mrv2_full_graphs_only
    assert all(rules_for(v).mrv2_full_graphs_only for v in ("0.12.0", "0.14.1", "0.15.1", "0.16.0"))
    assert not any(rules_for(v).mrv2_full_graphs_only for v in ("0.17.0", "0.20.0", "0.34.0"))
    assert rules_for("0.16.0").mrv2_pp_capture_skipped_log == ""
    assert all(rules_for(v).mrv2_pp_capture_skipped_log == PP_TEXT for v in ("0.17.0", "0.17.1", "0.18.0", "0.18.1"))
    assert rules_for("0.19.0").mrv2_pp_capture_skipped_log == "" == rules_for("0.34.0").mrv2_pp_capture_skipped_log


def test_v2_piecewise_only_captures_nothing_0_12_to_0_16():
    for version in ("0.12.0", "0.14.1", "0.16.0"):
        p = _fit(version, PIECEWISE)
        _skips(p, NONE_TEXT)
        # the graphs are captured after the KV allocation in these releases: the pool is the one with full graphs
        assert p.kv_cache_tokens == _fit(version, {"cudagraph_mode": "FULL_AND_PIECEWISE"}).kv_cache_tokens, version


def test_v2_with_full_graphs_still_captures_0_12_to_0_16():
    for mode in ("FULL_AND_PIECEWISE", "FULL", "FULL_DECODE_ONLY"):
        _captures(_fit("0.12.0", {"cudagraph_mode": mode}))
    _captures(_fit("0.16.0"))  # the default mode has full graphs


def test_v2_piecewise_captures_from_0_17_and_v1_always():
    for version in ("0.17.0", "0.20.0", "0.28.0"):
        _captures(_fit(version, PIECEWISE))
    for version in ("0.12.0", "0.16.0"):
        p = _fit(version, PIECEWISE, runner="0")
        assert p.model_runner["runner"] == "v1"
        _captures(p)


def test_v2_pipeline_parallel_captures_nothing_0_17_to_0_18():
    for version in ("0.17.0", "0.17.1", "0.18.0", "0.18.1"):
        p = _fit(version, pipeline_parallel_size=2)
        _skips(p, PP_TEXT)
        # no graph estimate is subtracted before 0.20 (v2: before 0.29): the pool is the one without graphs
        none = _fit(version, {"cudagraph_mode": "NONE"}, pipeline_parallel_size=2)
        assert p.cudagraph_bytes == 0 and p.kv_cache_tokens == none.kv_cache_tokens, version


def test_v2_pipeline_parallel_elsewhere():
    _captures(_fit("0.19.0", pipeline_parallel_size=2))
    _captures(_fit("0.17.0", pipeline_parallel_size=2, runner="0"))  # model runner v1 captures under PP
    _captures(_fit("0.17.0"))  # v2 without PP
    # needs_capture() comes first: cudagraph_mode NONE logs its own warning, not the pipeline-parallel one
    assert _capture_lines(_fit("0.17.0", {"cudagraph_mode": "NONE"}, pipeline_parallel_size=2)) == ["WARNING " + NONE_TEXT]
    # --enforce-eager: capture_model is never called
    assert _capture_lines(_fit("0.18.0", pipeline_parallel_size=2, enforce_eager=True)) == []
    # PIECEWISE at 0.16 under PP: the full-graphs-only skip
    assert _capture_lines(_fit("0.16.0", PIECEWISE, pipeline_parallel_size=2)) == ["WARNING " + NONE_TEXT]
