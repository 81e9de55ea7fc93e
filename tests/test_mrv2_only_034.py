"""vLLM 0.34.0 removed model runner v1 (v1/worker/gpu_model_runner.py is gone; v1/worker/gpu/model_runner.py serves
every model): VLLM_USE_V2_MODEL_RUNNER left envs.py, Platform.validate_environ (platforms/interface.py) refuses any
value but "1" and logs =1 as redundant (versions.py row mrv2_env "removed"), and no speculative method keeps v1 any
more (row mrv2_v1_spec_methods: VllmConfig._get_model_runner_unsupported_features lists none)."""
from __future__ import annotations

import pytest

import kvplan
from kvplan.errors import InputError
from kvplan.versions import rules_for

QWEN3 = "Qwen/Qwen3-8B"
ENV = "VLLM_USE_V2_MODEL_RUNNER"
SUFFIX = '{"method": "suffix", "num_speculative_tokens": 8}'


def _fit(version, value=None, **kw):
    env = [f"{ENV}={value}"] if value is not None else []
    return kvplan.fit(QWEN3, "H100", vllm_version=version, env=env, max_model_len=8192, **kw)


def test_the_rows_step_at_0_34():
    assert rules_for("0.33.0").mrv2_env == "override" and rules_for("0.34.0").mrv2_env == "removed"
    assert rules_for("0.33.0").mrv2_v1_spec_methods == ("suffix",) and rules_for("0.34.0").mrv2_v1_spec_methods == ()


def test_any_value_but_1_is_refused_with_vllms_message():
    assert _fit("0.33.0", "0").model_runner["runner"] == "v1"  # 0.33 still builds model runner v1 on =0
    for value in ("0", "true", "2"):
        with pytest.raises(InputError) as e:
            _fit("0.34.0", value)
        assert (f"{ENV}={value} is no longer supported: Model Runner V1 has been removed. Unset this variable."
                in str(e.value)), value


def test_1_is_redundant_and_plans_as_unset():
    p, unset = _fit("0.34.0", "1"), _fit("0.34.0")
    assert p.model_runner["runner"] == unset.model_runner["runner"] == "v2"
    assert p.kv_cache_bytes == unset.kv_cache_bytes
    assert any("is redundant and can be unset" in a for a in p.assumptions)


def test_suffix_decoding_runs_on_model_runner_v2():
    assert _fit("0.33.0", speculative_config=SUFFIX).model_runner["runner"] == "v1"
    assert _fit("0.34.0", speculative_config=SUFFIX).model_runner["runner"] == "v2"


def test_a_pooling_model_says_it_is_planned_on_v1s_terms_without_v1():
    old = _fit("0.33.0", runner="pooling").model_runner
    new = _fit("0.34.0", runner="pooling").model_runner
    assert "no model runner v1" not in old["why"]
    assert "vLLM 0.34.0 has no model runner v1 and pools on model runner v2" in new["why"]
