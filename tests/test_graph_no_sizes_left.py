"""What a start does when no CUDA-graph capture size is left (versions.py row cudagraph_no_sizes_left): vLLM 0.34.0's
VllmConfig._split_cudagraph_capture_sizes sets cudagraph_mode NONE with "No CUDA graph capture sizes are left; setting
cudagraph_mode to NONE." (config/vllm.py, 0.34.0 wheel), before _validate_adaptive_verification; up to 0.33.0 the mode
stays and nothing is captured (config/vllm.py VllmConfig._set_cudagraph_sizes, 0.33.0 wheel)."""

from __future__ import annotations

import json

import pytest

import kvplan
from kvplan.errors import RefusedByVLLMError
from kvplan.plan.cudagraphs import ADAPTIVE_VERIFICATION, NO_SIZES_LEFT
from kvplan.versions import rules_for

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
QWEN3 = "Qwen/Qwen3-8B"
CAPS_0 = {"max_prefill_cudagraph_capture_tokens": 0, "max_decode_cudagraph_capture_requests": 0}


def _fit(comp: dict | None = None, version: str = "0.34.0", model: str = LLAMA, **kw):
    kw.setdefault("max_model_len", 8192)
    return kvplan.fit(model, "H100", vllm_version=version, compilation_config=json.dumps(comp) if comp else None, **kw)


def _graphs(p) -> dict:
    return p.cudagraphs if isinstance(p.cudagraphs, dict) else p.cudagraphs.to_dict()


def _term(p, name: str) -> float:
    return next(t.value for t in p.terms if t.name == name)


def _captured(p) -> bool:
    return any(line.startswith("Graph capturing finished") for line in p.vllm_log)


def test_the_row_by_release():
    assert rules_for("0.33.0").cudagraph_no_sizes_left == "kept"
    assert rules_for("0.34.0").cudagraph_no_sizes_left == "none"


@pytest.mark.parametrize("comp, kw", [
    (CAPS_0, {}),                                                           # both caps 0: both grids empty
    ({"prefill_cudagraph_capture_token_sizes": [9000, 20000],              # every size outside [1, 8192] / [1, 1024]
      "decode_cudagraph_capture_request_sizes": [2000]}, {}),
    ({"cudagraph_mode": "FULL_DECODE_ONLY", "max_decode_cudagraph_capture_requests": 0}, {}),  # prefill not recorded
    (None, {"cudagraph_capture_sizes": "9000,10000"}),                      # deprecated sizes above max_num_batched_tokens
])
def test_0_34_sets_cudagraph_mode_none(comp, kw):
    p = _fit(comp, **kw)
    g = _graphs(p)
    assert g["mode"] == "NONE" and g["capture_sizes"] == [] and g["prefill_capture_sizes"] == []
    assert any(NO_SIZES_LEFT in a for a in p.assumptions)
    assert not _captured(p)
    assert _term(p, "cudagraph_capture") == 0
    formula = next(t.formula for t in p.terms if t.name == "cudagraph")
    assert "vLLM sets cudagraph_mode NONE" in formula


def test_0_34_keeps_the_mode_while_a_size_is_left():
    # a decode cap of 0 alone leaves the prefill sizes, recorded under FULL_AND_PIECEWISE
    p = _fit({"max_decode_cudagraph_capture_requests": 0})
    g = _graphs(p)
    assert g["mode"] == "FULL_AND_PIECEWISE" and g["prefill_capture_sizes"] and g["full_decode_graphs"] == 0
    assert not any(NO_SIZES_LEFT in a for a in p.assumptions)
    assert _captured(p)
    assert _term(p, "cudagraph_capture") > 0


def test_0_33_keeps_the_mode_with_no_size_left():
    p = _fit(None, version="0.33.0", cudagraph_capture_sizes="9000,10000")
    g = _graphs(p)
    assert g["mode"] == "FULL_AND_PIECEWISE" and g["capture_sizes"] == []
    assert not any(NO_SIZES_LEFT in a for a in p.assumptions)


def _skipped(p) -> bool:
    return any(line.startswith("WARNING Skipping encoder and decoder CUDA graph capture.") for line in p.vllm_log)


def test_model_runner_v2_logs_that_it_skips_the_capture():
    # v1/worker/gpu/model_runner.py capture_model (0.29.0, 0.33.0, 0.34.0 wheels): no graph to capture, a warning and
    # no "Graph capturing finished" line; model runner v1 loops over no size and still logs the capture
    assert rules_for("0.11.2").mrv2_capture_skipped_log == "" and rules_for("0.29.0").mrv2_capture_skipped_log
    for version, extra in (("0.33.0", {"cudagraph_capture_sizes": "9000,10000"}), ("0.34.0", {"comp": CAPS_0})):
        p = _fit(version=version, **extra)
        assert _skipped(p) and not _captured(p), version
    v1 = _fit(None, version="0.33.0", cudagraph_capture_sizes="9000,10000", env=["VLLM_USE_V2_MODEL_RUNNER=0"])
    assert _captured(v1) and not _skipped(v1)
    # sizes left: the capture line; cudagraph_mode NONE given: the warning too (tests/test_capture_none_log.py)
    assert _captured(_fit(None, version="0.33.0")) and not _skipped(_fit(None, version="0.33.0"))
    none = _fit({"cudagraph_mode": "NONE"}, version="0.33.0")
    assert not _captured(none) and _skipped(none)


def _adaptive_refusal(comp: dict) -> RefusedByVLLMError:
    spec = json.dumps({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4,
                       "enable_adaptive_verification": True})
    with pytest.raises(RefusedByVLLMError) as e:
        _fit(comp, model=QWEN3, speculative_config=spec)
    assert e.value.rule == ADAPTIVE_VERIFICATION
    return e.value


def test_adaptive_verification_meets_cudagraph_mode_none_first():
    # nothing left: vLLM has set NONE before _validate_adaptive_verification, which refuses for want of FULL graphs
    e = _adaptive_refusal(CAPS_0)
    assert e.message.startswith("Adaptive verification requires full CUDA graphs.")
    assert "cudagraph_mode NONE" in e.fix
    # the prefill sizes left keep the mode: the empty decode sizes are what it refuses
    e = _adaptive_refusal({"max_decode_cudagraph_capture_requests": 0})
    assert "decode_cudagraph_capture_request_sizes is empty" in e.message
