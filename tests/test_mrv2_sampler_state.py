"""Model runner v2's sampler state (plan.mrv2_sampler_state_bytes, rules row budget_counts_runner_buffers): the
penalty tensors PenaltiesState allocates for every request slot when load_model builds the Sampler, after the weights
are measured, are charged to the KV budget from 0.27, whose memory_profiling counts everything consumed since the
worker's init snapshot (total_consumed); 0.26 and before count weights + torch peak increase + non-torch increase."""
from __future__ import annotations

import importlib
from pathlib import Path

import kvplan
from kvplan.plan import cdiv, model_runner, mrv2_sampler_state_bytes
from kvplan.validate import load_records, predict_record
from kvplan.versions import rules_for

GIB = 1024 ** 3
terms_module = importlib.import_module("kvplan.plan.terms")  # measured_terms looks mrv2_sampler_state_bytes up there
DATA = Path(__file__).parent / "data"
KW = dict(gpu_memory_utilization=0.9, max_model_len=8192, max_num_seqs=256)


def _term(p, name):
    return next(t for t in p.terms if t.name == name)


def test_the_row_starts_with_the_consumed_memory_budget():
    assert rules_for("0.26.0").budget_counts_runner_buffers is False
    assert rules_for("0.27.0").budget_counts_runner_buffers is True
    assert rules_for("0.33.0").budget_counts_runner_buffers is True


def test_bytes_are_int32_counts_and_bitmask_per_request_slot():
    p = kvplan.fit("Qwen/Qwen3-8B", "L40S", vllm_version="0.28.0", **KW)
    assert model_runner(p.model, p.args, p.rules) == "v2"
    v = p.model.vocab_size
    assert mrv2_sampler_state_bytes(p.model, p.args, p.rules) == 256 * (4 * v + 4 * cdiv(v, 32))


def test_charged_to_non_torch_from_0_27_only():
    p28 = kvplan.fit("Qwen/Qwen3-8B", "L40S", vllm_version="0.28.0", **KW)
    p26 = kvplan.fit("Qwen/Qwen3-8B", "L40S", vllm_version="0.26.0", **KW)
    state = mrv2_sampler_state_bytes(p28.model, p28.args, p28.rules)
    assert state > 0.14 * GIB
    assert model_runner(p26.model, p26.args, p26.rules) == "v2"
    assert mrv2_sampler_state_bytes(p26.model, p26.args, p26.rules) == 0
    assert "penalty state" in _term(p28, "non_torch").formula
    assert "penalty state" not in _term(p26, "non_torch").formula
    # it scales with the request slots: 8 slots hold 1/32 of it, and the pool grows by the difference
    p28_8 = kvplan.fit("Qwen/Qwen3-8B", "L40S", vllm_version="0.28.0", **dict(KW, max_num_seqs=8))
    assert mrv2_sampler_state_bytes(p28_8.model, p28_8.args, p28_8.rules) * 32 == state


def test_model_runner_v1_keeps_no_such_state():
    # a hybrid model stays on model runner v1 in 0.28 (config/vllm.py _is_default_v2_model_runner_model)
    p = kvplan.fit("Qwen/Qwen3.5-27B", "H200", vllm_version="0.28.0", **KW)
    assert model_runner(p.model, p.args, p.rules) == "v1"
    assert mrv2_sampler_state_bytes(p.model, p.args, p.rules) == 0


def _stage_pools(note):
    return [float(x.split(" GiB")[0]) for x in note.split("per stage: ")[1].split(", ")]


def test_only_the_last_pipeline_stage_holds_it(monkeypatch):
    # Qwen3-14B-AWQ on two L4s at PP2 (vLLM 0.28.0): the first stage builds no sampler, so only the last stage's pool
    # is charged with the state
    rec = next(r for r in load_records(DATA / "extra_records.jsonl") if r["id"] == "qwen3-14b-awq-l4-udef-pp2")
    p, _ = predict_record(rec)
    state = mrv2_sampler_state_bytes(p.model, p.args, p.rules)
    assert state > 0.1 * GIB
    with_state = _stage_pools(next(n for n in p.assumptions if n.startswith("pipeline parallel")))
    monkeypatch.setattr(terms_module, "mrv2_sampler_state_bytes", lambda *a: 0)
    q, _ = predict_record(rec)
    without = _stage_pools(next(n for n in q.assumptions if n.startswith("pipeline parallel")))
    assert with_state[0] == without[0]
    assert abs((without[1] - with_state[1]) - state / GIB) < 0.011
