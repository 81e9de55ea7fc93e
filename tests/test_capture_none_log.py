"""The capture line of the predicted log where cudagraph_mode NONE is given or --enforce-eager is set. With NONE (and
no --enforce-eager) the worker still calls capture_model, which logs a warning and captures nothing: model runner v1
"Skipping CUDA graph capture. To turn on CUDA graph capture, ensure `cudagraph_mode` was not manually set to `NONE`"
(v1/worker/gpu_model_runner.py GPUModelRunner.capture_model, 0.10.1-0.33.0 wheels), model runner v2 the same text
0.12-0.27 and "Skipping encoder and decoder CUDA graph capture. ..." from 0.28 (v1/worker/gpu/model_runner.py
GPUModelRunner.capture_model, 0.12.0-0.34.0 wheels). With --enforce-eager the worker never calls capture_model
(v1/worker/gpu_worker.py compile_or_warm_up_model): neither line."""

from __future__ import annotations

import json

import kvplan
from kvplan.logs import parse_lines
from kvplan.reconcile import reconcile
from kvplan.versions import rules_for

QWEN3 = "Qwen/Qwen3-8B"
VL = "Qwen/Qwen3-VL-2B-Instruct"
NONE = {"cudagraph_mode": "NONE"}
V1_TEXT = "Skipping CUDA graph capture. To turn on CUDA graph capture, ensure `cudagraph_mode` was not manually set to `NONE`"
V2_TEXT = ("Skipping encoder and decoder CUDA graph capture. To enable encoder capture, ensure `cudagraph_mm_encoder` is "
           "enabled; to enable decoder capture, ensure `cudagraph_mode` is not `NONE`.")


def _fit(version: str, comp: dict | None = None, runner: str | None = None, model: str = QWEN3, **kw):
    env = [f"VLLM_USE_V2_MODEL_RUNNER={runner}"] if runner is not None else None
    return kvplan.fit(model, "H100", vllm_version=version, max_model_len=8192, env=env,
                      compilation_config=json.dumps(comp) if comp else None, **kw)


def _runner(p) -> str:
    return p.model_runner["runner"]


def _capture_lines(p) -> list[str]:
    return [line for line in p.vllm_log if line.startswith(("Graph capturing finished", "WARNING Skipping"))]


def test_the_rows_by_release():
    assert rules_for("0.10.0").capture_none_log_v1 == "" and rules_for("0.10.1").capture_none_log_v1 == V1_TEXT
    assert rules_for("0.33.0").capture_none_log_v1 == V1_TEXT
    assert rules_for("0.11.2").mrv2_capture_skipped_log == ""
    assert rules_for("0.12.0").mrv2_capture_skipped_log == V1_TEXT == rules_for("0.27.1").mrv2_capture_skipped_log
    assert rules_for("0.28.0").mrv2_capture_skipped_log == V2_TEXT == rules_for("0.34.0").mrv2_capture_skipped_log
    assert not rules_for("0.27.1").mrv2_capture_asks_encoder and rules_for("0.28.0").mrv2_capture_asks_encoder


def test_model_runner_v1_warns_where_cudagraph_mode_none_is_given():
    for version in ("0.10.1", "0.20.0", "0.33.0"):
        p = _fit(version, NONE, runner="0")
        assert _runner(p) == "v1", version
        assert _capture_lines(p) == ["WARNING " + V1_TEXT], version


def test_model_runner_v2_warns_where_cudagraph_mode_none_is_given():
    for version, text in (("0.20.0", V1_TEXT), ("0.27.0", V1_TEXT), ("0.28.0", V2_TEXT), ("0.29.0", V2_TEXT),
                          ("0.33.0", V2_TEXT), ("0.34.0", V2_TEXT)):
        p = _fit(version, NONE, runner="1")
        assert _runner(p) == "v2", version
        assert _capture_lines(p) == ["WARNING " + text], version


def test_the_warning_stands_where_the_capture_line_would():
    for version in ("0.33.0", "0.34.0"):
        graphs = list(_fit(version).vllm_log)
        none = list(_fit(version, NONE).vllm_log)
        at = next(i for i, line in enumerate(graphs) if line.startswith("Graph capturing finished"))
        assert none.index("WARNING " + V2_TEXT) == at, version


def test_enforce_eager_logs_neither_line():
    for version, runner in (("0.20.0", "0"), ("0.33.0", "0"), ("0.20.0", "1"), ("0.33.0", "1"), ("0.34.0", None)):
        for comp in (None, NONE):
            p = _fit(version, comp, runner=runner, enforce_eager=True)
            assert _capture_lines(p) == [], (version, runner, comp)


def test_before_cudagraph_mode_no_warning():
    assert _capture_lines(_fit("0.9.2", NONE)) == []


def test_encoder_graphs_keep_the_warning_away_from_0_28():
    # capture_model asks for encoder graphs first from 0.28: cudagraph_mm_encoder on a multimodal model captures them
    on = {**NONE, "cudagraph_mm_encoder": True}
    assert _capture_lines(_fit("0.33.0", on, model=VL)) == []
    assert _capture_lines(_fit("0.33.0", NONE, model=VL)) == ["WARNING " + V2_TEXT]
    assert _capture_lines(_fit("0.27.0", on, model=VL, runner="1")) == ["WARNING " + V1_TEXT]


def test_reconcile_names_no_graph_gap_for_a_log_without_a_capture_line():
    # the log such a start prints: the predicted lines, with the warning and no "Graph capturing finished"
    for version, runner in (("0.10.1", "0"), ("0.33.0", "0"), ("0.33.0", "1"), ("0.34.0", None)):
        p = _fit(version, NONE, runner=runner)
        log = parse_lines([line.replace("…", "12") for line in p.vllm_log])
        r = reconcile(log, p)
        row = next(x for x in r.rows if x.term == "cudagraph_gib")
        assert row.gap in (None, 0.0), version
        assert r.largest_gap is None or r.largest_gap["term"] != "cudagraph_gib", version
        assert not any("Skipping" in h.text for h in log.hits if h.sig.kind in ("error", "warning")), version


def test_model_runner_v2_with_no_size_left_before_0_29():
    # the same return for an empty capture list (CudaGraphManager.needs_capture false, 0.12.0-0.28.0 wheels)
    for version, text in (("0.22.0", V1_TEXT), ("0.28.0", V2_TEXT)):
        p = _fit(version, runner="1", cudagraph_capture_sizes="9000")
        assert _runner(p) == "v2" and _capture_lines(p) == ["WARNING " + text], version
        # capture_model returns 0 before capturing: no graph pool, and the summary's CUDAGraph memory is 0.0 GiB
        assert p.cudagraph_capture_bytes == 0, version
        assert any("and 0.0 GiB for CUDAGraph memory" in line for line in p.vllm_log), version
    p = _fit("0.28.0", runner="0", cudagraph_capture_sizes="9000")
    assert _runner(p) == "v1" and _capture_lines(p)[0].startswith("Graph capturing finished")
