"""--pooler-config (vLLM >= 0.11) and --override-pooler-config (0.6.4-0.11.x): accepted in the releases whose
argparse has them, and their pooling type decides V1's chunked-prefill / prefix-caching default for a pooling model
over the checkpoint's sentence-transformers Pooling config and the class default (plan.defaults.pooler_given)."""

from __future__ import annotations

import json

import pytest

import kvplan
from kvplan.deploy import spec_from_plan
from kvplan.errors import InputError, RefusedByVLLMError
from kvplan.resolve import resolve_model

EMBED = "Qwen/Qwen3-8B"  # served with --runner pooling: the converted class's default is LAST


def _same(a, b):
    return (a.args.max_num_batched_tokens, a.activation_peak_bytes, a.kv_cache_tokens) == \
           (b.args.max_num_batched_tokens, b.activation_peak_bytes, b.kv_cache_tokens)


def _off(model, version, **flags):
    """Whether the plan with `flags` and the chunked-prefill flag unset is the plan with it off."""
    kw = dict(vllm_version=version, max_model_len=16384, **flags)
    unset = kvplan.fit(model, "H100", **kw)
    off = _same(unset, kvplan.fit(model, "H100", enable_chunked_prefill=False, **kw))
    assert off != _same(unset, kvplan.fit(model, "H100", enable_chunked_prefill=True, **kw))
    assert (unset.args.enable_prefix_caching is False) == off
    return off


@pytest.mark.parametrize("flag,version,why", [
    ("pooler_config", "0.10.2", "first in vLLM 0.11.0"),
    ("override_pooler_config", "0.6.3", "first in vLLM 0.6.4"),
    ("override_pooler_config", "0.12.0", "removed in vLLM 0.12.0"),
    ("override_pooler_config", "0.34.0", "removed in vLLM 0.12.0"),
])
def test_each_flag_is_refused_outside_the_releases_that_have_it(flag, version, why):
    with pytest.raises(InputError) as e:
        kvplan.fit(EMBED, "H100", runner="pooling", vllm_version=version, **{flag: '{"pooling_type": "LAST"}'})
    assert e.value.field == "--" + flag.replace("_", "-") and why in e.value.message
    if flag == "pooler_config":
        assert "--override-pooler-config" in e.value.message  # what the release takes instead
    if "removed" in why:
        assert "--pooler-config" in e.value.fix


@pytest.mark.parametrize("flag,version", [("override_pooler_config", "0.6.4"), ("override_pooler_config", "0.10.0"),
                                          ("override_pooler_config", "0.11.2"), ("pooler_config", "0.11.0"),
                                          ("pooler_config", "0.34.0")])
def test_the_flag_is_written_to_serve_sh_as_given(flag, version):
    given = '{"pooling_type": "MEAN"}'
    plan = kvplan.fit(EMBED, "H100", runner="pooling", vllm_version=version, max_model_len=8192, **{flag: given})
    argv = spec_from_plan(plan).serve_argv()
    name = "--" + flag.replace("_", "-")
    assert name in argv and json.loads(argv[argv.index(name) + 1]) == {"pooling_type": "MEAN"}


@pytest.mark.parametrize("version,flag", [("0.10.0", "override_pooler_config"), ("0.11.0", "pooler_config"),
                                          ("0.12.0", "pooler_config"), ("0.34.0", "pooler_config")])
def test_a_given_pooling_type_decides_the_default(version, flag):
    # the converted class's LAST is on from 0.10.1 and unset (off) before: MEAN turns it off, LAST on
    assert _off(EMBED, version, runner="pooling", **{flag: '{"pooling_type": "MEAN"}'}) is True
    assert _off(EMBED, version, runner="pooling", **{flag: {"pooling_type": "LAST"}}) is False


def test_at_0_10_0_a_given_last_turns_on_what_the_unset_type_leaves_off():
    assert _off(EMBED, "0.10.0", runner="pooling") is True
    assert _off(EMBED, "0.10.0", runner="pooling", override_pooler_config='{"pooling_type": "LAST"}') is False


def test_the_override_replaces_pooler_config_where_both_are_given_at_0_11():
    both = dict(pooler_config='{"pooling_type": "LAST"}', override_pooler_config='{"pooling_type": "MEAN"}')
    assert _off(EMBED, "0.11.0", runner="pooling", **both) is True


def test_a_class_default_is_overridden(tmp_path):
    config = dict(resolve_model("Qwen/Qwen2-7B-Instruct").raw_config, architectures=["Qwen2ForRewardModel"])
    (tmp_path / "config.json").write_text(json.dumps(config))
    assert _off(str(tmp_path), "0.11.0") is True  # ALL, the class default: off before 0.13
    assert _off(str(tmp_path), "0.11.0", pooler_config='{"pooling_type": "LAST"}') is False


def test_the_flag_wins_over_the_sentence_transformers_pooling_config(tmp_path):
    config = dict(resolve_model("Qwen/Qwen2-7B-Instruct").raw_config)
    (tmp_path / "config.json").write_text(json.dumps(config))
    (tmp_path / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]))
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_mean_tokens": True}))
    assert _off(str(tmp_path), "0.34.0") is True
    plan = kvplan.fit(str(tmp_path), "H100", vllm_version="0.34.0", max_model_len=16384,
                      pooler_config='{"pooling_type": "LAST"}')
    said = next(a for a in plan.assumptions if "by default for this pooling model" in a)
    assert "seq_pooling_type LAST from --pooler-config" in said
    assert _off(str(tmp_path), "0.34.0", pooler_config='{"pooling_type": "LAST"}') is False


@pytest.mark.parametrize("given,off", [({"seq_pooling_type": "MEAN"}, True), ({"tok_pooling_type": "STEP"}, True),
                                       ({"seq_pooling_type": "LAST", "tok_pooling_type": "ALL"}, False),
                                       ({"pooling_type": "ALL"}, False), ({"pooling_type": "STEP"}, True)])
def test_sequence_and_token_types_from_0_14(given, off):
    assert _off(EMBED, "0.14.0", runner="pooling", pooler_config=json.dumps(given)) is off


@pytest.mark.parametrize("version,given,match", [
    ("0.9.0", {"seq_pooling_type": "MEAN"}, "unexpected keyword argument 'seq_pooling_type'"),
    ("0.14.0", {"pooling_type": "MEAN", "seq_pooling_type": "MEAN"}, "Cannot set both"),
    ("0.11.0", {"pooling_type": "mean"}, "KeyError"),
    ("0.34.0", {"pooling_type": "MAX"}, "no pooling type 'MAX'"),
    ("0.34.0", {"tok_pooling_type": "MEAN"}, "tok_pooling_type: Input should be 'ALL' or 'STEP'"),
])
def test_what_the_release_refuses(version, given, match):
    flag = "override_pooler_config" if version == "0.9.0" else "pooler_config"
    with pytest.raises(RefusedByVLLMError, match=match):
        kvplan.fit(EMBED, "H100", runner="pooling", vllm_version=version, **{flag: json.dumps(given)})


@pytest.mark.parametrize("version,flag", [("0.9.1", "override_pooler_config"), ("0.10.1", "override_pooler_config"),
                                          ("0.11.0", "pooler_config"), ("0.13.0", "pooler_config")])
def test_a_split_type_field_before_0_14_is_dropped_where_pydantic_builds_the_pooler_config(version, flag):
    # 0.9.1-0.13: PoolerConfig is a pydantic dataclass that ignores a field it has not, so seq_pooling_type MEAN leaves
    # the type unset (the converted class's LAST from 0.10.1: on); a pooling_type beside it still decides
    dropped = kvplan.fit(EMBED, "H100", runner="pooling", vllm_version=version, max_model_len=16384,
                         **{flag: '{"seq_pooling_type": "MEAN"}'})
    unset = kvplan.fit(EMBED, "H100", runner="pooling", vllm_version=version, max_model_len=16384)
    assert _same(dropped, unset)
    assert any("seq_pooling_type in --" + flag.replace("_", "-") + " ignored" in a for a in dropped.assumptions)
    if version != "0.9.1":  # (0.9.1 pools on V0: no V1 default to move)
        assert _off(EMBED, version, runner="pooling", **{flag: '{"tok_pooling_type": "ALL", "pooling_type": "MEAN"}'})


@pytest.mark.parametrize("version,flag,how", [
    ("0.6.4", "override_pooler_config", "KeyError: 'mean'"), ("0.10.1", "override_pooler_config", "KeyError: 'mean'"),
    ("0.11.2", "pooler_config", "KeyError: 'mean'"),
    ("0.12.0", "pooler_config", "Input should be 'LAST', 'ALL', 'CLS', 'STEP' or 'MEAN' [type=literal_error"),
    ("0.13.0", "pooler_config", "Input should be 'LAST', 'ALL', 'CLS', 'STEP' or 'MEAN' [type=literal_error"),
    ("0.14.0", "pooler_config", "Input should be 'CLS', 'LAST' or 'MEAN' [type=literal_error"),
    ("0.34.0", "pooler_config", "Input should be 'ALL' or 'STEP' [type=literal_error")])
def test_no_release_takes_a_lower_case_pooling_type(version, flag, how):
    # up to 0.11.x the PoolerConfig takes any string and PoolingType['mean'] raises when the pooler is built; from
    # 0.12.0 pydantic refuses the Literal as argparse builds the PoolerConfig (rules row pooler_type_checked)
    with pytest.raises(RefusedByVLLMError) as e:
        kvplan.fit(EMBED, "H100", runner="pooling", vllm_version=version, **{flag: '{"pooling_type": "mean"}'})
    assert how in e.value.message and ("PoolingType['mean']" in e.value.message) == ("KeyError" in how)
    assert "give 'MEAN'" in e.value.fix
    if tuple(map(int, version.split("."))) >= (0, 14):
        with pytest.raises(RefusedByVLLMError, match="give 'LAST'") as e:
            kvplan.fit(EMBED, "H100", runner="pooling", vllm_version=version, pooler_config='{"seq_pooling_type": "last"}')
        assert "seq_pooling_type: Input should be 'CLS', 'LAST' or 'MEAN'" in e.value.message


def test_no_json_object_is_an_input_error():
    with pytest.raises(InputError, match="JSON"):
        kvplan.fit(EMBED, "H100", runner="pooling", vllm_version="0.34.0", pooler_config="{pooling_type: MEAN}")
    with pytest.raises(InputError, match="JSON object"):
        kvplan.fit(EMBED, "H100", runner="pooling", vllm_version="0.34.0", pooler_config='["MEAN"]')
