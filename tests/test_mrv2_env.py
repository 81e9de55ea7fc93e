"""VLLM_USE_V2_MODEL_RUNNER: which GPU model runner a release builds with it set (not read before 0.12; =1 opts in to
model runner v2 in 0.12-0.21; from 0.22 a set value overrides the release's default either way, config/vllm.py
VllmConfig.use_v2_model_runner), and every model-runner-v2 term following that choice."""
from __future__ import annotations

import json

import pytest

import kvplan
from kvplan.errors import InputError
from kvplan.plan import model_runner_choice
from kvplan.versions import rules_for

QWEN3 = "Qwen/Qwen3-8B"
ENV = "VLLM_USE_V2_MODEL_RUNNER"


def _fit(version, value=None, model=QWEN3, gpu="L4", **kw):
    env = [f"{ENV}={value}"] if value is not None else []
    return kvplan.fit(model, gpu, vllm_version=version, env=env, max_model_len=8192, **kw)


def _term(p, name):
    return next(t for t in p.terms if t.name == name)


def test_the_env_rules_row_follows_envs_py():
    assert rules_for("0.11.2").mrv2_env == "unread"
    assert rules_for("0.12.0").mrv2_env == "opt_in" and rules_for("0.21.0").mrv2_env == "opt_in"
    assert rules_for("0.22.0").mrv2_env == "override" and rules_for("0.33.0").mrv2_env == "override"


@pytest.mark.parametrize("version, unset, zero, one", [
    ("0.11.2", "v1", "v1", "v1"),   # not read: v1 whatever it says
    ("0.14.1", "v1", "v1", "v2"),   # opt-in: =1 builds the experimental v2
    ("0.21.0", "v1", "v1", "v2"),
    ("0.22.0", "v2", "v1", "v2"),   # Qwen3ForCausalLM is listed: v2 unless =0
    ("0.27.1", "v2", "v1", "v2"),
    ("0.29.0", "v2", "v1", "v2"),
    ("0.33.0", "v2", "v1", "v2"),
])
def test_the_runner_per_release_and_value(version, unset, zero, one):
    got = [_fit(version, v).model_runner["runner"] for v in (None, "0", "1")]
    assert got == [unset, zero, one]


def test_one_forces_v2_where_the_default_is_v1():
    # 0.22: the default runs v2 only for listed, unquantized dense architectures; Qwen2 is not listed
    unset, forced = _fit("0.22.0", None, "Qwen/Qwen2.5-1.5B-Instruct"), _fit("0.22.0", "1", "Qwen/Qwen2.5-1.5B-Instruct")
    assert unset.model_runner["runner"] == "v1" and forced.model_runner["runner"] == "v2"
    assert "would run v1" in forced.model_runner["why"]


def test_zero_on_0_27_plus_charges_v1_non_torch_and_graph_terms():
    for version in ("0.27.1", "0.29.0", "0.33.0"):
        v2, v1 = _fit(version), _fit(version, "0")
        # v2's penalty state (S x (4V + 4 ceil(V/32)) B, held from load) leaves non-torch with v1
        assert "model runner v2 penalty state" in _term(v2, "non_torch").formula
        assert "model runner v2" not in _term(v1, "non_torch").formula
        assert v2.non_torch_bytes - v1.non_torch_bytes == 256 * (4 * 151936 + 4 * 4748)
        # v1's graph estimate: per layer and capture size; v2's: its own (0 before 0.29, one pool + FULL decode after)
        assert "model runner v2" not in _term(v1, "cudagraph").formula and v1.cudagraph_bytes > v2.cudagraph_bytes
        assert v1.cudagraphs["model_runner"] == "v1" and v2.cudagraphs["model_runner"] == "v2"
        assert v1.kv_cache_bytes < v2.kv_cache_bytes


def test_the_explain_note_names_the_runner_and_why():
    p = _fit("0.33.0", "0")
    assert not any("not modelled" in a and ENV in a for a in p.assumptions)
    note = next(a for a in p.assumptions if a.startswith("model runner v1:"))
    assert f"{ENV}=0" in note and "would run v2" in note
    assert p.model_runner == {"runner": "v1", "why": note.removeprefix("model runner v1: ")}
    assert json.loads(json.dumps(p.to_dict()))["model_runner"]["runner"] == "v1"
    old = _fit("0.11.2", "1")
    assert any(a == f"environment {ENV}=1: not read by vLLM 0.11.2 (from 0.12): model runner v1" for a in old.assumptions)


def test_unset_adds_no_note():
    p = _fit("0.33.0")
    assert not any(a.startswith("model runner") for a in p.assumptions)
    assert p.model_runner["runner"] == "v2" and "default" in p.model_runner["why"]


def test_a_value_vllm_cannot_read_is_refused_where_it_is_read():
    with pytest.raises(InputError, match="int\\(value\\)"):
        _fit("0.27.1", "yes")
    assert _fit("0.11.2", "yes").model_runner["runner"] == "v1"  # 0.11 never reads it


def test_one_with_what_v2_lacks_is_refused():
    ngram = '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}'
    with pytest.raises(InputError, match="does not yet support: ngram"):
        _fit("0.27.1", "1", speculative_config=ngram)
    # unset, the release keeps v1 for n-gram; =0 says the same
    assert _fit("0.27.1", None, speculative_config=ngram).model_runner["runner"] == "v1"
    assert _fit("0.27.1", "0", speculative_config=ngram).model_runner["runner"] == "v1"
    with pytest.raises(InputError, match="VLLM_USE_V2_MODEL_RUNNER does not yet support: hybrid/mamba models"):
        _fit("0.22.0", "1", "ibm-granite/granite-4.0-h-small", "H100")


def test_the_in_flight_window_follows_the_runner():
    # config/vllm.py max_concurrent_batches (0.26+): pp + 1 batches on v2, pp on v1 at PP > 1
    kw = dict(pipeline_parallel_size=2, max_num_batched_tokens=1024)
    v2 = _fit("0.33.0", None, "google/gemma-2-9b", "H100", **kw)
    v1 = _fit("0.33.0", "0", "google/gemma-2-9b", "H100", **kw)
    assert v2.rules.window_inflight == "mrv2" and v1.rules.window_inflight == "mrv1-async"
    # the window's reservation: 4,096 - 1 + 3 x 1,024 tokens on v2, + 2 x 1,024 on v1, in blocks of 16 (+ 1)
    assert v2.window_kv_per_token[2] == (-(-(4095 + 3 * 1024) // 16) + 1) * 16
    assert v1.window_kv_per_token[2] == (-(-(4095 + 2 * 1024) // 16) + 1) * 16


def test_the_choice_function_is_the_one_every_term_reads():
    p = _fit("0.33.0", "0")
    assert model_runner_choice(p.model, p.args, p.rules)[0] == "v1"
