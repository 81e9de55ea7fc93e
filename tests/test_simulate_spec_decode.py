"""Speculative decoding in the simulator's step model: the acceptance is an input (--spec-acceptance-rate,
--spec-mean-acceptance-length, --spec-draft-acceptance-rate); with it each decode step verifies 1 + k tokens per
request, runs the drafter's passes and emits the expected accepted tokens plus one."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import kvplan
from kvplan.errors import InputError
from kvplan.simulate import (SpecAcceptance, expected_tokens_per_step, serving_setup, simulate_plan)
from kvplan.workload import Workload
from spec_heads import EAGLE3_HEAD

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
NGRAM = '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 3}'


@pytest.fixture(scope="module")
def eagle3_plan(tmp_path_factory):
    path = tmp_path_factory.mktemp("head") / "eagle3.json"
    path.write_text(json.dumps(EAGLE3_HEAD))
    spec = json.dumps({"method": "eagle3", "model": str(path), "num_speculative_tokens": 3})
    return kvplan.fit(LLAMA, "H100", max_model_len=8192, speculative_config=spec)


def _workload(n=200, seed=0, rate=None, prompt=(200, 1500), completion=(100, 400)):
    rng = np.random.default_rng(seed)
    arrivals = np.zeros(n) if rate is None else np.cumsum(rng.exponential(1.0 / rate, n))
    return Workload("w", rng.integers(*prompt, n), rng.integers(*completion, n), arrivals)


def _run(plan, wl, acceptance=None):
    cfg, sm, rules = serving_setup(plan, spec_acceptance=acceptance)
    return simulate_plan(plan, wl, cfg, sm, rules), sm


def _output_tokens_per_s(res):
    return res.to_dict()["output_tokens_per_s"]


def test_expected_tokens_per_step_is_the_geometric_sum():
    # 1 + a + a^2 + a^3 at a = 0.7, k = 3: 1 + 0.7 + 0.49 + 0.343
    assert expected_tokens_per_step(0.7, 3) == pytest.approx(2.533, abs=1e-12)
    assert expected_tokens_per_step(0.0, 5) == 1.0
    assert expected_tokens_per_step(1.0, 4) == 5.0
    assert expected_tokens_per_step(0.999999, 4) == pytest.approx(5.0, rel=1e-5)
    for a in (0.1, 0.5, 0.9):
        assert expected_tokens_per_step(a, 6) == pytest.approx(sum(a ** i for i in range(7)))


def test_the_three_forms_of_acceptance():
    assert SpecAcceptance(acceptance_rate=0.7).tokens_per_step(3)[0] == pytest.approx(1 + 0.7 + 0.49 + 0.343)
    # vLLM's 'Mean acceptance length' is the tokens per step; its 'Avg Draft acceptance rate' is accepted / drafted
    assert SpecAcceptance(mean_acceptance_length=2.4).tokens_per_step(3)[0] == 2.4
    assert SpecAcceptance(draft_acceptance_rate=0.5).tokens_per_step(4)[0] == 3.0
    assert SpecAcceptance().given() == []


@pytest.mark.parametrize("acceptance, field, words", [
    (SpecAcceptance(acceptance_rate=1.2), "--spec-acceptance-rate", "outside 0 .. 1"),
    (SpecAcceptance(acceptance_rate=-0.1), "--spec-acceptance-rate", "outside 0 .. 1"),
    (SpecAcceptance(acceptance_rate=float("nan")), "--spec-acceptance-rate", "must be a number"),
    (SpecAcceptance(mean_acceptance_length=4.5), "--spec-mean-acceptance-length", "outside 1 .. 4"),
    (SpecAcceptance(mean_acceptance_length=0.9), "--spec-mean-acceptance-length", "outside 1 .. 4"),
    (SpecAcceptance(draft_acceptance_rate=60.0), "--spec-draft-acceptance-rate", "percent"),
    (SpecAcceptance(acceptance_rate=0.5, mean_acceptance_length=2.0), "--spec-mean-acceptance-length", "give one"),
])
def test_out_of_range_values_are_refused_naming_the_flag(acceptance, field, words):
    with pytest.raises(InputError) as e:
        acceptance.tokens_per_step(3)
    assert e.value.field == field
    assert words in f"{e.value.message} {e.value.fix}"


def test_an_acceptance_without_speculative_decoding_is_refused():
    p = kvplan.fit(LLAMA, "H100", max_model_len=8192)
    with pytest.raises(InputError) as e:
        serving_setup(p, spec_acceptance=SpecAcceptance(acceptance_rate=0.6))
    assert e.value.field == "--spec-acceptance-rate" and "no speculative decoding" in e.value.message
    assert "--speculative-config" in e.value.fix


def test_an_mtp_drafter_is_refused_as_its_size_is_not_a_plan_term():
    p = kvplan.fit("Qwen/Qwen3.5-27B", gpu="H100", max_model_len=32768,
                   speculative_config='{"method": "mtp", "num_speculative_tokens": 3}')
    with pytest.raises(InputError) as e:
        serving_setup(p, spec_acceptance=SpecAcceptance(mean_acceptance_length=2.0))
    assert e.value.field == "--spec-mean-acceptance-length" and "MTP" in e.value.message
    assert "not a term of the plan" in e.value.message


def test_without_an_acceptance_the_step_model_and_note_are_unchanged(eagle3_plan):
    wl = _workload(rate=4.0)
    plain, sm = _run(eagle3_plan, wl)
    assert sm.spec is None and "speculative_decoding" not in sm.to_dict()
    assert any("is not in the step model" in n for n in plain.notes)
    spec, sm = _run(eagle3_plan, wl, SpecAcceptance(acceptance_rate=0.7))
    assert sm.spec is not None and sm.spec.tokens_per_step == pytest.approx(2.533)
    assert not any("is not in the step model" in n for n in spec.notes)
    note = next(n for n in spec.notes if n.startswith("speculative decoding (eagle3, 3 tokens)"))
    assert "2.533 tokens per request per decode step" in note and "verifies 4 tokens" in note
    assert sm.to_dict()["speculative_decoding"]["drafter_passes"] == 3


def test_one_request_decodes_at_the_speculative_step_over_the_tokens_it_emits(eagle3_plan):
    # one request, nothing else running: every engine step is the same speculative step (its cost does not depend on
    # the acceptance) over E tokens, so TPOT x E is the same at every acceptance
    wl = Workload("one", np.array([1000]), np.array([600]), np.array([0.0]))
    tpot = {}
    for a in (0.0, 0.5, 0.8):
        res, sm = _run(eagle3_plan, wl, SpecAcceptance(acceptance_rate=a))
        tpot[a] = res.to_dict()["tpot_ms"]["mean"] * sm.spec.tokens_per_step
    assert tpot[0.5] == pytest.approx(tpot[0.0], rel=1e-9) and tpot[0.8] == pytest.approx(tpot[0.0], rel=1e-9)
    # and that step costs more than the plain decode step: 4 tokens verified, 3 drafter passes
    plain, _ = _run(eagle3_plan, wl)
    assert tpot[0.0] > plain.to_dict()["tpot_ms"]["mean"] * 1.03


def test_high_acceptance_raises_throughput_and_cuts_tpot(eagle3_plan):
    wl = _workload(n=300, rate=None)  # all at once: the server's throughput
    plain, _ = _run(eagle3_plan, wl)
    high, _ = _run(eagle3_plan, wl, SpecAcceptance(acceptance_rate=0.8))
    zero, _ = _run(eagle3_plan, wl, SpecAcceptance(acceptance_rate=0.0))
    assert _output_tokens_per_s(high) > 1.3 * _output_tokens_per_s(plain)
    assert high.to_dict()["tpot_ms"]["mean"] < 0.75 * plain.to_dict()["tpot_ms"]["mean"]
    # nothing accepted: the verification and the drafter cost time and earn nothing
    assert _output_tokens_per_s(zero) < _output_tokens_per_s(plain)
    # the same tokens are served whatever the acceptance
    assert (high.completion_tokens == plain.completion_tokens).all()
    assert high.decode_tokens_computed == plain.decode_tokens_computed


def test_a_draft_model_at_zero_acceptance_costs_more_than_an_ngram_drafter():
    small = json.dumps({"method": "draft_model", "model": "Qwen/Qwen3-0.6B", "num_speculative_tokens": 4})
    wl = _workload(n=200, rate=None)
    out = {}
    for name, spec in (("plain", None), ("ngram", NGRAM), ("draft", small)):
        p = kvplan.fit("Qwen/Qwen3-14B", "H100", max_model_len=8192, speculative_config=spec)
        acc = SpecAcceptance(acceptance_rate=0.0) if spec else None
        res, sm = _run(p, wl, acc)
        out[name] = _output_tokens_per_s(res)
        if name == "draft":
            assert sm.spec.drafter is not None and sm.spec.drafter.num_layers == 28
        if name == "ngram":
            assert sm.spec.drafter is None
    # the draft model's 4 passes of a 28-layer model cost far more than verifying 4 tokens alone
    assert out["draft"] < out["ngram"] < out["plain"]
    assert out["draft"] < 0.9 * out["plain"]


def test_a_lone_request_decodes_at_the_explained_speculative_step():
    """One request alone: each of its decode steps is the speculative step the run's example explains
    (SpecDecode.explain_step), over the tokens it emits: one formula, the drafter's KV read once per pass. A draft
    model (28 layers) reads enough KV for a second read to show: it made the simulated step 0.9 % longer."""
    small = json.dumps({"method": "draft_model", "model": "Qwen/Qwen3-0.6B", "num_speculative_tokens": 4})
    p = kvplan.fit("Qwen/Qwen3-14B", "H100", max_model_len=8192, speculative_config=small)
    wl = Workload("one", np.array([1000]), np.array([600]), np.array([0.0]))
    for a in (0.0, 0.5):
        res, sm = _run(p, wl, SpecAcceptance(acceptance_rate=a))
        # the decode steps' contexts run from 1,001 to 1,599 tokens; a step's time is linear in them: their mean, 1,300
        step = sm.spec.explain_step(sm, 1, 1300)
        assert list(step["terms_ms"]) == ["target_verify_5_tokens", "drafter_4_passes"]
        assert res.to_dict()["tpot_ms"]["mean"] * sm.spec.tokens_per_step == pytest.approx(step["total_ms"], rel=1e-5)
        kv_reads_ms = 4 * sm.spec.drafter.per_context_token_s * 1300 * 1e3  # the drafter's KV, once per pass
        assert kv_reads_ms > 1e-3 * step["total_ms"]


def test_the_drafter_reads_its_own_kv_and_the_target_its_own(eagle3_plan):
    _, sm = _run(eagle3_plan, _workload(n=5), SpecAcceptance(acceptance_rate=0.5))
    # the plan's KV bytes per token hold 32 target layers and the head's one (8 KV heads x 128 x 2 x 2 B each)
    layer = 2 * 8 * 128 * 2
    assert sm.kv_bytes_per_token == 33 * layer
    assert sm.spec.target_kv_bytes_per_token == 32 * layer and sm.spec.drafter.kv_bytes_per_token == layer
    # the head's bytes as the plan counted them
    assert sm.spec.drafter.weights_bytes_per_rank == eagle3_plan.speculative["draft_weights_bytes"]


def test_cli_flags(monkeypatch, capsys, eagle3_plan):
    from cli_runner import refused, run_cli

    base = ("simulate", LLAMA, "--gpu", "H100", "--max-model-len", "8192", "--prompt-len", "constant:500",
            "--completion-len", "constant:100", "--rate", "2", "-n", "50")
    text = refused(monkeypatch, capsys, "--spec-acceptance-rate", *base, "--spec-acceptance-rate", "0.6")
    assert "--speculative-config" in text
    code, out, err = run_cli(monkeypatch, capsys, *base, "--speculative-config", NGRAM, "--spec-mean-acceptance-length",
                             "2.5", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["step_model"]["speculative_decoding"]["mean_acceptance_length"] == 2.5
    plain_step, spec_step = d["step_model"]["example_steps"][:2]
    assert spec_step["decode_seqs"] == plain_step["decode_seqs"] and "speculative" not in plain_step
    # n-gram: no drafter pass; the time per token is the verification step's over the 2.5 tokens it emits
    assert list(spec_step["terms_ms"]) == ["target_verify_4_tokens"]
    assert spec_step["speculative"]["ms_per_token"] == pytest.approx(spec_step["total_ms"] / 2.5, abs=1e-3)
    assert any("2.500 tokens per request per decode step" in n for n in d["notes"])
    refused(monkeypatch, capsys, "--spec-draft-acceptance-rate", *base, "--speculative-config", NGRAM,
            "--spec-draft-acceptance-rate", "60")
    cap = ("capacity", LLAMA, "--gpu", "H100", "--max-model-len", "8192", "--prompt-len", "constant:500",
           "--completion-len", "constant:100", "-n", "60", "--slo", "tpot=100ms", "--speculative-config", NGRAM)
    code, out, err = run_cli(monkeypatch, capsys, *cap, "--spec-acceptance-rate", "0.7", "--json")
    assert code == 0, err
    assert any("2.533 tokens per request per decode step" in n for n in json.loads(out)["notes"])
    assert math.isfinite(json.loads(out)["max_rate_per_s"])
