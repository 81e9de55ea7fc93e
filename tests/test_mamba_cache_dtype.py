"""--mamba-cache-dtype (vLLM >= 0.10.1, CacheConfig.mamba_cache_dtype): the recurrent layers' conv state dtype, and
their SSM state's where --mamba-ssm-cache-dtype and the model's config hook leave it auto
(MambaStateDtypeCalculator._mamba_state_dtype, model_executor/layers/mamba/mamba_utils.py, 0.33.0 wheel). kvplan
answered "No such option" and validate skipped a record that set it."""
from __future__ import annotations

import pytest

import kvplan
from kvplan.deploy import render_files, spec_from_plan
from kvplan.errors import InputError

NEXT = "Qwen/Qwen3-Next-80B-A3B-Instruct"
KW = dict(tensor_parallel_size=4, max_model_len=32768, fixes=False)


def _page(p) -> int:
    return p.bytes_per_block


def test_float32_state_takes_larger_pages_and_fewer_tokens():
    base = kvplan.fit(NEXT, "H100", **KW)
    wide = kvplan.fit(NEXT, "H100", mamba_cache_dtype="float32", **KW)
    assert wide.kv_cache_bytes == base.kv_cache_bytes  # the same pool, cut into larger pages
    assert _page(wide) > _page(base) and wide.kv_cache_tokens < base.kv_cache_tokens
    assert any(a.startswith("--mamba-cache-dtype float32: the recurrent layers' conv state in float32, their SSM "
                            "state in float32") for a in wide.assumptions)
    # auto, and the model dtype given explicitly, plan as without the flag
    for same in ("auto", "bfloat16"):
        assert kvplan.fit(NEXT, "H100", mamba_cache_dtype=same, **KW).kv_cache_tokens == base.kv_cache_tokens


def test_an_ssm_dtype_given_keeps_the_ssm_state_apart():
    conv_only = kvplan.fit(NEXT, "H100", mamba_cache_dtype="float32", mamba_ssm_cache_dtype="bfloat16", **KW)
    both = kvplan.fit(NEXT, "H100", mamba_cache_dtype="float32", **KW)
    assert _page(conv_only) < _page(both)
    assert any("SSM state in bfloat16" in a for a in conv_only.assumptions)


def test_a_models_own_ssm_dtype_is_kept():
    # Qwen3.5 configs carry mamba_ssm_dtype float32 (vLLM's Qwen3_5 config hook sets an auto SSM dtype to it): the
    # flag changes the conv state only
    model = "Qwen/Qwen3.5-27B"
    base = kvplan.fit(model, "H100", max_model_len=32768, fixes=False)
    half = kvplan.fit(model, "H100", max_model_len=32768, mamba_cache_dtype="float16", fixes=False)
    assert half.kv_cache_tokens == base.kv_cache_tokens  # float16 conv state: the size of bfloat16's
    assert any("SSM state in float32" in a for a in half.assumptions)


@pytest.mark.parametrize("version, value, says", [("0.10.0", "float32", "has no --mamba-cache-dtype flag"),
                                                  ("0.12.0", "float16", "does not take float16"),
                                                  ("0.21.0", "bfloat16", "does not take bfloat16")])
def test_the_flag_and_its_values_come_with_their_releases(version, value, says):
    with pytest.raises(InputError) as e:
        kvplan.fit(NEXT, "H100", vllm_version=version, mamba_cache_dtype=value, **KW)
    assert e.value.field == "--mamba-cache-dtype" and says in str(e.value)
    with pytest.raises(InputError):
        kvplan.fit(NEXT, "H100", mamba_cache_dtype="fp8", **KW)


def test_serve_sh_and_the_command_line_carry_it():
    p = kvplan.fit(NEXT, "H100", mamba_cache_dtype="float32", **KW)
    assert "--mamba-cache-dtype float32" in render_files(spec_from_plan(p))["serve.sh"]
    from kvplan.serve_command import parse_serve_command

    cmd = parse_serve_command(f"vllm serve {NEXT} -tp 4 --max-model-len 32768 --mamba-cache-dtype float32")
    assert cmd.planned["mamba_cache_dtype"] == "float32"
