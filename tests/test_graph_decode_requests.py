"""vLLM 0.34's decode CUDA-graph request counts and the drafter's decode graphs, with and without adaptive verification
(config/vllm.py VllmConfig._split_cudagraph_capture_sizes and get_draft_decode_cudagraph_request_sizes,
v1/worker/gpu/model_runner.py initialize_kv_cache, v1/worker/gpu/spec_decode/autoregressive/speculator.py
init_cudagraph_manager, 0.34.0 wheel), and that a plan works its CUDA graphs out once."""

from __future__ import annotations

import importlib
import json

import pytest

import kvplan
from kvplan.errors import InputError, RefusedByVLLMError
from test_spec_draft import EAGLE3_HEAD, LLAMA

cg = importlib.import_module("kvplan.plan.cudagraphs")


@pytest.fixture
def head3(tmp_path) -> str:
    path = tmp_path / "head3.json"
    path.write_text(json.dumps(EAGLE3_HEAD))
    return str(path)


def _spec(head: str, adaptive: bool = False, k: int = 3) -> str:
    obj = {"model": head, "method": "eagle3", "num_speculative_tokens": k}
    if adaptive:
        obj["enable_adaptive_verification"] = True
    return json.dumps(obj)


def _graphs(head, adaptive=False, gpu="H100", **kw) -> dict:
    kw.setdefault("max_model_len", 8192)
    p = kvplan.fit(LLAMA, gpu, vllm_version="0.34.0", speculative_config=_spec(head, adaptive), **kw)
    return p.cudagraphs if isinstance(p.cudagraphs, dict) else p.cudagraphs.to_dict()


@pytest.mark.parametrize("gpu", ["H100", "B200"])
def test_a_given_request_list_keys_the_decode_graphs_without_adaptive_verification(head3, gpu):
    # vLLM keeps the given counts within [1, max_num_seqs] and captures n x q tokens for each (q = 4 here)
    comp = json.dumps({"decode_cudagraph_capture_request_sizes": [16, 1, 2, 4, 8, 5000]})
    g = _graphs(head3, gpu=gpu, compilation_config=comp, max_num_seqs=256)
    assert g["decode_capture_requests"] == [1, 2, 4, 8, 16]
    assert g["full_decode_graphs"] == 5
    assert {4, 8, 16, 32, 64} <= set(g["capture_sizes"])
    default = _graphs(head3, gpu=gpu, max_num_seqs=256)
    assert default["decode_capture_requests"] != [1, 2, 4, 8, 16]


def test_max_decode_requests_caps_the_request_grid(head3):
    comp = json.dumps({"max_decode_cudagraph_capture_requests": 8})
    g = _graphs(head3, compilation_config=comp, max_num_seqs=256)
    # config/compilation.py decode_cudagraph_capture_grid(8): every count to 6, then 8
    assert g["decode_capture_requests"] == [1, 2, 3, 4, 5, 6, 8]


def test_a_zero_cap_captures_no_decode_graphs_and_a_negative_one_is_refused(head3):
    # CompilationConfig.max_decode_cudagraph_capture_requests: Field(ge=0) (config/compilation.py, 0.34.0): 0 is a
    # valid cap that leaves the request grid empty; -1 fails pydantic's check
    g = _graphs(head3, compilation_config=json.dumps({"max_decode_cudagraph_capture_requests": 0}), max_num_seqs=256)
    assert g["decode_capture_requests"] == [] and g["full_decode_graphs"] == 0
    for key in ("max_decode_cudagraph_capture_requests", "max_prefill_cudagraph_capture_tokens"):
        with pytest.raises(InputError) as e:
            _graphs(head3, compilation_config=json.dumps({key: -1}))
        assert e.value.field == "--compilation-config" and "at least 0" in e.value.message


def test_a_list_above_the_given_cap_is_refused(head3):
    comp = json.dumps({"decode_cudagraph_capture_request_sizes": [1, 2, 16], "max_decode_cudagraph_capture_requests": 8})
    with pytest.raises(RefusedByVLLMError) as e:
        _graphs(head3, compilation_config=comp)
    assert "above max_decode_cudagraph_capture_requests=8" in e.value.message


def test_adaptive_verification_reads_the_same_request_list(head3):
    comp = json.dumps({"decode_cudagraph_capture_request_sizes": [1, 2, 4, 8, 16]})
    g = _graphs(head3, adaptive=True, compilation_config=comp)
    # the varlen grid runs up to the largest request count x q = 64 tokens
    assert g["adaptive_verification_sizes"][-1] == 64


def test_adaptive_verification_keeps_the_drafters_decode_graphs(head3):
    plain = _graphs(head3, max_num_seqs=64)
    adaptive = _graphs(head3, adaptive=True, max_num_seqs=64)
    assert plain["drafter_decode_graphs"] > 0
    assert adaptive["drafter_decode_graphs"] == plain["drafter_decode_graphs"]
    assert adaptive["drafter_decode_requests"] == plain["drafter_decode_requests"]
    # vLLM records the drafter's one-token sizes too: 3 and 5 requests are neither prefill sizes nor varlen ones
    assert {3, 5} <= set(adaptive["capture_sizes"])
    assert 3 not in adaptive["adaptive_verification_sizes"] and 3 not in adaptive["prefill_capture_sizes"]


def test_a_plan_works_its_graphs_out_once(head3, monkeypatch):
    calls = {"plan": 0, "request": 0}
    plan, request = cg.cudagraph_plan, cg.capture_request

    def counted_plan(*a, **kw):
        calls["plan"] += 1
        return plan(*a, **kw)

    def counted_request(*a, **kw):
        calls["request"] += 1
        return request(*a, **kw)

    planner, terms = (importlib.import_module(f"kvplan.plan.{m}") for m in ("planner", "terms"))
    for module in (cg, planner, terms):
        if hasattr(module, "cudagraph_plan"):
            monkeypatch.setattr(module, "cudagraph_plan", counted_plan)
    monkeypatch.setattr(cg, "capture_request", counted_request)
    _graphs(head3, adaptive=True)
    assert calls == {"plan": 1, "request": 1}


def _plan(version, mode=None, gpu="H100"):
    comp = json.dumps({"cudagraph_mode": mode}) if mode else None
    return kvplan.fit(LLAMA, gpu, vllm_version=version, max_model_len=8192, compilation_config=comp)


@pytest.mark.parametrize("version", ["0.33.0", "0.34.0"])
@pytest.mark.parametrize("mode", ["FULL", "FULL_DECODE_ONLY"])
def test_full_modes_charge_no_piecewise_graphs(version, mode):
    # FULL runs mixed batches on FULL graphs, FULL_DECODE_ONLY eagerly: neither captures a PIECEWISE graph, so the
    # per-layer-and-size term is gone and only the FULL graphs remain, far below the default mode's capture
    p, default = _plan(version, mode), _plan(version)
    assert p.cudagraphs["mode"] == mode
    assert p.cudagraph_capture_bytes < default.cudagraph_capture_bytes / 4
    if version == "0.33.0":  # 0.34's extensible KV cache subtracts no estimate: the formula is the capture's
        assert "x 0 capture sizes" in next(t.formula for t in p.terms if t.name == "cudagraph")
    assert any("captures no PIECEWISE graph" in w for w in p.warnings)


MIB = 1 << 20


def test_the_drafter_graph_rows():
    from kvplan.versions import rules_for
    assert rules_for("0.28.0").mrv2_drafter_graph_methods == ()
    assert set(rules_for("0.29.0").mrv2_drafter_graph_methods) == {"eagle", "eagle3", "mtp"}
    assert set(rules_for("0.33.0").mrv2_drafter_graph_methods) == {"eagle", "eagle3", "mtp"}
    assert "draft_model" in rules_for("0.34.0").mrv2_drafter_graph_methods


@pytest.mark.parametrize("version", ["0.33.0", "0.34.0"])
@pytest.mark.parametrize("k", [1, 3])
def test_model_runner_v2_charges_the_speculators_graphs(head3, version, k):
    # profile_cudagraph_memory measures the speculator's graphs in full: its draft-prefill manager's PIECEWISE graphs
    # (the target's sizes) and FULL ones (the target's decode shapes), and with k >= 2 its one-token decode graphs
    p = kvplan.fit(LLAMA, "H100", vllm_version=version, max_model_len=8192, speculative_config=_spec(head3, k=k))
    g = p.cudagraphs
    assert g["model_runner"] == "v2"
    n_sizes = len(g["prefill_capture_sizes"]) if version == "0.34.0" else g["num_capture_sizes"]
    assert g["drafter_graphs"] == n_sizes > 0
    assert g["drafter_full_graphs"] > 0
    assert g["drafter_graph_bytes"] == int(0.25 * MIB * g["drafter_layers"] * g["drafter_graphs"]
                                           + MIB * g["drafter_full_graphs"])
    if version == "0.34.0":
        assert g["drafter_full_graphs"] == g["full_decode_graphs"] + g["drafter_decode_graphs"]
        assert (g["drafter_decode_graphs"] > 0) == (k >= 2)


def test_no_drafter_graphs_before_the_row(head3):
    g = kvplan.fit(LLAMA, "H100", vllm_version="0.28.0", max_model_len=8192, speculative_config=_spec(head3)).cudagraphs
    assert not g.get("drafter_full_graphs")


@pytest.mark.parametrize("version,gpu,k", [("0.33.0", "H100", 3), ("0.34.0", "H100", 1), ("0.34.0", "B200", 3)])
def test_the_speculators_graph_bytes_shown_are_what_the_estimate_charges(head3, monkeypatch, version, gpu, k):
    # the planner shows the speculator's share of model runner v2's estimate (drafter_graph_bytes): the estimate
    # measured_terms makes with the plan's graphs, less the one it makes with the speculator capturing none
    from dataclasses import replace

    terms = importlib.import_module("kvplan.plan.terms")
    planner = importlib.import_module("kvplan.plan.planner")
    seen = []

    def spy(*a, **kw):
        seen.append((a, kw))
        return terms.measured_terms(*a, **kw)

    monkeypatch.setattr(planner, "measured_terms", spy)
    p = kvplan.fit(LLAMA, gpu, vllm_version=version, max_model_len=8192, speculative_config=_spec(head3, k=k),
                   fixes=False)
    (model, g, args, rules, graphs), _ = seen[0]
    assert graphs.drafter_graphs and graphs.drafter_full_graphs
    none = replace(graphs, drafter_graphs=0, drafter_full_graphs=0)
    charged = (terms.measured_terms(model, g, args, rules, graphs)["cudagraph"][0]
               - terms.measured_terms(model, g, args, rules, none)["cudagraph"][0])
    assert p.cudagraphs["drafter_graph_bytes"] == charged > 0
