"""V1's default for chunked prefill and prefix caching on a pooling model: on only where the model supports
incremental prefill (rules row pooling_chunked_prefill_default), so an unset flag on any other pooling model plans
as --no-enable-chunked-prefill does."""

from __future__ import annotations

import json

import pytest

import kvplan
from kvplan.errors import RefusedByVLLMError
from kvplan.resolve import resolve_model

BASE = "Qwen/Qwen2-7B-Instruct"  # its config, relabelled as a registered pooling class


def _checkpoint(tmp_path, arch: str | None = None, st_pooling: bool = False):
    config = dict(resolve_model(BASE).raw_config)
    if arch:
        config["architectures"] = [arch]
    (tmp_path / "config.json").write_text(json.dumps(config))
    if st_pooling:
        (tmp_path / "modules.json").write_text(json.dumps([
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]))
    return str(tmp_path)


def _same_plan(a, b):
    return (a.args.max_num_batched_tokens, a.activation_peak_bytes, a.kv_cache_tokens) == \
           (b.args.max_num_batched_tokens, b.activation_peak_bytes, b.kv_cache_tokens)


@pytest.mark.parametrize("version,off", [("0.9.2", True), ("0.10.0", True), ("0.10.1", False), ("0.11.0", False),
                                         ("0.34.0", False)])
def test_a_decoder_converted_by_runner_pooling(version, off):
    # LAST pooling (the converted class's default) is incremental, but up to 0.10.0 the class default is never
    # applied: without a Pooling config the type is unset and both features are off
    kw = dict(vllm_version=version, max_model_len=16384, runner="pooling")
    unset = kvplan.fit("Qwen/Qwen3-8B", "H100", **kw)
    given = kvplan.fit("Qwen/Qwen3-8B", "H100", enable_chunked_prefill=not off, **kw)
    assert _same_plan(unset, given)
    assert not _same_plan(unset, kvplan.fit("Qwen/Qwen3-8B", "H100", enable_chunked_prefill=off, **kw))
    assert (unset.args.enable_prefix_caching is False) == off
    assert any("off by default for this pooling model" in a for a in unset.assumptions) == off
    if off:
        assert unset.args.max_num_batched_tokens >= 16384  # a whole prompt per step
        chunked = kvplan.fit("Qwen/Qwen3-8B", "H100", enable_chunked_prefill=True, **kw)
        assert unset.activation_peak_bytes > chunked.activation_peak_bytes
        assert unset.kv_cache_tokens < chunked.kv_cache_tokens


@pytest.mark.parametrize("arch,version,off", [
    ("Qwen2ForRewardModel", "0.10.2", True), ("Qwen2ForRewardModel", "0.11.0", True),
    ("Qwen2ForRewardModel", "0.12.0", True), ("Qwen2ForRewardModel", "0.13.0", False),  # ALL: incremental from 0.13
    ("Qwen2ForRewardModel", "0.14.0", False), ("Qwen2ForRewardModel", "0.34.0", False),
    ("Qwen2ForProcessRewardModel", "0.11.0", True), ("Qwen2ForProcessRewardModel", "0.34.0", True),  # STEP
    ("Qwen2ForSequenceClassification", "0.11.0", False), ("Qwen2ForSequenceClassification", "0.34.0", False),
])
def test_registered_pooling_classes_follow_their_default_pooling_type(tmp_path, arch, version, off):
    model = _checkpoint(tmp_path, arch)
    kw = dict(vllm_version=version, max_model_len=16384)
    unset = kvplan.fit(model, "H100", **kw)
    assert _same_plan(unset, kvplan.fit(model, "H100", enable_chunked_prefill=not off, **kw))
    assert not _same_plan(unset, kvplan.fit(model, "H100", enable_chunked_prefill=off, **kw))
    assert (unset.args.enable_prefix_caching is False) == off


def test_a_given_flag_overrides_the_pooling_default(tmp_path):
    model = _checkpoint(tmp_path, "Qwen2ForRewardModel")
    kw = dict(vllm_version="0.11.0", max_model_len=16384)
    on = kvplan.fit(model, "H100", enable_chunked_prefill=True, enable_prefix_caching=True, **kw)
    assert on.args.enable_prefix_caching is True
    assert on.args.max_num_batched_tokens < 16384  # the chunked default, below max_model_len
    assert not any("by default for this pooling model" in a for a in on.assumptions)
    # with chunked prefill off by default, a budget below max_model_len is what vLLM refuses
    with pytest.raises(RefusedByVLLMError):
        kvplan.fit(model, "H100", max_num_batched_tokens=4096, **kw)
    assert kvplan.fit(model, "H100", max_num_batched_tokens=4096, enable_chunked_prefill=True,
                      **kw).args.max_num_batched_tokens == 4096


@pytest.mark.parametrize("version", ["0.10.0", "0.11.0"])
def test_a_sentence_transformers_pooling_config_is_an_assumption_said(tmp_path, version):
    # its pooling mode overrides the class default and could not be read (a Hub file not fetched: why unknown): the
    # plan says what it took
    from dataclasses import replace
    spec = replace(resolve_model(_checkpoint(tmp_path, st_pooling=True)), st_pooling_unread=None)
    with_st = kvplan.fit(spec, "H100", vllm_version=version, max_model_len=16384)
    said = [a for a in with_st.assumptions if "sentence-transformers Pooling config" in a]
    assert said and "LAST" in said[0] and "--no-enable-chunked-prefill" in said[0]
    assert with_st.args.enable_prefix_caching is not False


# --- the checkpoint's sentence-transformers Pooling config, read as vLLM reads it ---

_MODES = ("pooling_mode_cls_token", "pooling_mode_mean_tokens", "pooling_mode_max_tokens",
          "pooling_mode_mean_sqrt_len_tokens", "pooling_mode_weightedmean_tokens", "pooling_mode_lasttoken")


def _st_checkpoint(tmp_path, *true_keys, extra: dict | None = None):
    """A Qwen2 checkpoint with modules.json and 1_Pooling/config.json in sentence-transformers' key order, the named
    keys set to true (include_prompt true, as Qwen3-Embedding ships it)."""
    folder = _checkpoint(tmp_path, st_pooling=True)
    pooling = {"word_embedding_dimension": 3584, **{k: k in true_keys for k in _MODES}, "include_prompt": True}
    for k in true_keys:  # keys outside the usual list, in the order given
        pooling[k] = True
    pooling.update(extra or {})
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    return folder


def _defaults_off(model, version):
    """Whether the unset flags plan as chunked prefill off (and prefix caching off) at `version`."""
    kw = dict(vllm_version=version, max_model_len=16384)
    unset = kvplan.fit(model, "H100", **kw)
    off = _same_plan(unset, kvplan.fit(model, "H100", enable_chunked_prefill=False, **kw))
    on = _same_plan(unset, kvplan.fit(model, "H100", enable_chunked_prefill=True, **kw))
    assert off != on
    assert (unset.args.enable_prefix_caching is False) == off
    return off, unset


def test_the_pooling_config_entries_are_read_from_a_local_folder(tmp_path):
    spec = resolve_model(_st_checkpoint(tmp_path, "pooling_mode_mean_tokens"))
    assert spec.st_pooling and spec.is_pooling
    assert spec.st_pooling_modes == (("pooling_mode_mean_tokens", True), ("include_prompt", True))


def test_a_pooling_config_that_cannot_be_read_stays_unread(tmp_path):
    spec = resolve_model(_checkpoint(tmp_path, st_pooling=True))  # modules.json names 1_Pooling, which is not there
    assert spec.st_pooling and spec.st_pooling_modes is None
    assert spec.st_pooling_unread == ("missing", "1_Pooling/config.json")


@pytest.mark.parametrize("version,outcome", [("0.9.2", "refused"), ("0.11.0", "refused"), ("0.13.0", "refused"),
                                             ("0.14.0", "class default"), ("0.34.0", "class default")])
def test_a_missing_pooling_config_stops_vllm_up_to_0_13_and_is_no_mode_from_0_14(tmp_path, version, outcome):
    # get_pooling_config reads the missing file as None: pooling_dict.items() raises up to 0.13; 0.14 reads `or {}`
    model = _checkpoint(tmp_path, st_pooling=True)
    if outcome == "refused":
        for flags in ({}, dict(enable_chunked_prefill=True, enable_prefix_caching=True)):
            with pytest.raises(RefusedByVLLMError, match="'NoneType' object has no attribute 'items'") as e:
                kvplan.fit(model, "H100", vllm_version=version, max_model_len=16384, **flags)
            assert "1_Pooling/config.json" in e.value.message and "vLLM 0.14.0 or newer" in e.value.fix
        kvplan.fit(model, "H100", vllm_version=version, max_model_len=16384, runner="generate")  # never read
        return
    off, plan = _defaults_off(model, version)
    assert off is False  # the converted class's LAST
    said = next(a for a in plan.assumptions if "by default for this pooling model" in a)
    assert "1_Pooling/config.json is not in the checkpoint" in said and "assumed" not in said


@pytest.mark.parametrize("text", ["{\"pooling_mode_mean_tokens\": tru", "[\"pooling_mode_mean_tokens\"]"])
@pytest.mark.parametrize("version", ["0.10.0", "0.13.0", "0.34.0"])
def test_a_pooling_config_that_is_no_json_object_stops_vllm_in_every_release(tmp_path, text, version):
    model = _checkpoint(tmp_path, st_pooling=True)
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "1_Pooling" / "config.json").write_text(text)
    assert resolve_model(model).st_pooling_unread == ("not_object", "1_Pooling/config.json")
    with pytest.raises(RefusedByVLLMError, match="is not a JSON object") as e:
        kvplan.fit(model, "H100", vllm_version=version, max_model_len=16384)
    assert "JSONDecodeError" in e.value.message and "repair 1_Pooling/config.json" in e.value.fix


@pytest.mark.parametrize("mode,version,off", [
    ("pooling_mode_lasttoken", "0.10.0", False),  # LAST given by the Pooling config: on even where no class default applies
    ("pooling_mode_mean_tokens", "0.10.0", True),
    ("pooling_mode_lasttoken", "0.11.0", False), ("pooling_mode_mean_tokens", "0.11.0", True),
    ("pooling_mode_cls_token", "0.12.0", True), ("pooling_mode_mean_sqrt_len_tokens", "0.13.0", True),  # read as MEAN
    ("pooling_mode_lasttoken", "0.34.0", False), ("pooling_mode_mean_tokens", "0.34.0", True),
    ("pooling_mode_cls_token", "0.34.0", True),
])
def test_the_pooling_mode_decides_the_default(tmp_path, mode, version, off):
    got, plan = _defaults_off(_st_checkpoint(tmp_path, mode), version)
    assert got == off
    said = [a for a in plan.assumptions if "by default for this pooling model" in a]
    assert said and mode in said[0] and "assumed" not in said[0]


def test_without_any_mode_0_10_0_leaves_the_type_unset_and_later_releases_take_the_class_default(tmp_path):
    model = _st_checkpoint(tmp_path)  # every mode false; include_prompt true is no type
    assert _defaults_off(model, "0.10.0")[0] is True
    assert _defaults_off(model, "0.34.0")[0] is False  # LAST, the converted class's default


@pytest.mark.parametrize("version,outcome", [("0.10.0", "off"), ("0.11.0", "refused"), ("0.13.0", "refused"),
                                             ("0.14.0", "on"), ("0.34.0", "on")])
def test_a_mode_vllm_has_no_type_for(tmp_path, version, outcome):
    # max pooling: None up to 0.10.0 (the type unset: off), NotImplementedError 0.10.1-0.13, skipped from 0.14 (the
    # class default LAST)
    model = _st_checkpoint(tmp_path, "pooling_mode_max_tokens")
    if outcome == "refused":
        with pytest.raises(RefusedByVLLMError, match="Pooling type MAX not supported"):
            kvplan.fit(model, "H100", vllm_version=version, max_model_len=16384)
    else:
        assert _defaults_off(model, version)[0] is (outcome == "off")
    if outcome == "refused":
        # ModelConfig reads the checkpoint's Pooling config for a pooling model whatever flags are given: neither the
        # chunked-prefill / prefix-caching flags nor a pooling type given on the command line start it
        for flags in (dict(enable_chunked_prefill=True, enable_prefix_caching=True),
                      dict(pooler_config='{"pooling_type": "MEAN"}')):
            with pytest.raises(RefusedByVLLMError, match="Pooling type MAX not supported") as e:
                kvplan.fit(model, "H100", vllm_version=version, max_model_len=16384, **flags)
            assert "--pooler-config does not help" in e.value.fix and "vLLM 0.14.0 or newer" in e.value.fix
        # a generative run never reads it
        kvplan.fit(model, "H100", vllm_version=version, max_model_len=16384, runner="generate")


@pytest.mark.parametrize("version,flag,first", [
    ("0.10.1", "override_pooler_config", "model"), ("0.11.0", "pooler_config", "model"),
    ("0.11.2", "override_pooler_config", "model"), ("0.11.2", "pooler_config", "model"),
    ("0.12.0", "pooler_config", "--pooler-config"), ("0.13.0", "pooler_config", "--pooler-config")])
def test_a_refused_mode_and_a_refused_given_type_are_refused_in_vllm_s_order(tmp_path, version, flag, first):
    # up to 0.11.x the given type is looked up (PoolingType[name]) only when the pooler is built, after ModelConfig read
    # the checkpoint's Pooling config: its MAX mode is the refusal; from 0.12.0 pydantic checks the given type's
    # Literal when argparse builds the PoolerConfig, before any config is read (rules row pooler_type_checked)
    model = _st_checkpoint(tmp_path, "pooling_mode_max_tokens")
    with pytest.raises(RefusedByVLLMError) as e:
        kvplan.fit(model, "H100", vllm_version=version, max_model_len=16384, **{flag: '{"pooling_type": "MAX"}'})
    assert e.value.field == first
    assert ("Pooling type MAX not supported" in e.value.message) == (first == "model")
    # a valid given type does not start it either, and without the bad mode the given type is the refusal
    with pytest.raises(RefusedByVLLMError, match="Pooling type MAX not supported"):
        kvplan.fit(model, "H100", vllm_version=version, max_model_len=16384, **{flag: '{"pooling_type": "LAST"}'})
    (tmp_path / "mean").mkdir()
    mean = _st_checkpoint(tmp_path / "mean", "pooling_mode_mean_tokens")
    with pytest.raises(RefusedByVLLMError) as e:
        kvplan.fit(mean, "H100", vllm_version=version, max_model_len=16384, **{flag: '{"pooling_type": "MAX"}'})
    assert e.value.field == "--" + flag.replace("_", "-")


def test_two_modes_set_the_first_wins_up_to_0_13_and_the_last_from_0_14(tmp_path):
    model = _st_checkpoint(tmp_path, "pooling_mode_mean_tokens", "pooling_mode_lasttoken")
    assert _defaults_off(model, "0.13.0")[0] is True    # MEAN, the first true
    assert _defaults_off(model, "0.14.0")[0] is False   # LAST, the later sequence type


def test_the_string_pooling_mode_is_read_from_0_30(tmp_path):
    model = _st_checkpoint(tmp_path, extra={"pooling_mode": "mean"})  # no key set to true
    assert _defaults_off(model, "0.29.0")[0] is False  # not read: the class default LAST
    assert _defaults_off(model, "0.30.0")[0] is True


# --- hybrid pooling models: the pooling default, not the hybrid one, decides prefix caching ---

HYBRID = "ibm-granite/granite-4.0-h-tiny"  # GraniteMoeHybrid: Mamba2 layers beside attention


def _mamba_plan(version, **flags):
    p = kvplan.fit(HYBRID, "H100", runner="pooling", vllm_version=version, max_model_len=16384, **flags)
    return p.args.enable_prefix_caching, p.max_concurrency, p.kv_cache_tokens


@pytest.mark.parametrize("version", ["0.11.1", "0.12.0", "0.20.0"])
def test_a_hybrid_pooling_model_with_last_pooling_caches_prefixes(version):
    # LAST pooling turns prefix caching on (config/model.py is_prefix_caching_supported asks the pooling type, not
    # is_hybrid), so the Mamba2 layers keep their state per block as with --enable-prefix-caching
    unset = _mamba_plan(version)
    assert unset == _mamba_plan(version, enable_prefix_caching=True)
    assert unset[1] < _mamba_plan(version, enable_prefix_caching=False)[1]
    # MEAN pooling leaves both off
    mean = _mamba_plan(version, pooler_config='{"pooling_type": "MEAN"}')
    assert mean[0] is False
    assert mean[1:] == _mamba_plan(version, enable_prefix_caching=False, enable_chunked_prefill=False)[1:]


@pytest.mark.parametrize("version", ["0.10.2", "0.26.0"])
def test_where_the_hybrid_default_changes_nothing_it_is_left(version):
    # before 0.11.1 the Mamba layers keep one state page either way; from 0.26.0 a generative hybrid caches too
    plan = kvplan.fit(HYBRID, "H100", runner="pooling", vllm_version=version, max_model_len=16384)
    assert plan.args.enable_prefix_caching is None
    assert not any("Mamba layers" in a for a in plan.assumptions)


# --- TerraTorch geospatial models: attention-free pooling, no KV cache ---

@pytest.mark.parametrize("arch", ["Terratorch", "PrithviGeoSpatialMAE"])
@pytest.mark.parametrize("version", ["0.10.2", "0.13.0", "0.34.0"])
def test_a_terratorch_model_is_refused_as_one_with_no_kv_cache(tmp_path, arch, version):
    # vLLM serves it attention-free (from 0.13 attn_type "attention_free": chunked prefill on, prefix caching off), with
    # no KV cache: kvplan refuses it by name, whether the config states a TerraTorch description (its own) or, relabelled,
    # a transformer's shape (which planned a 1,065,488-token KV cache before)
    (tmp_path / "geo").mkdir()
    (tmp_path / "geo" / "config.json").write_text(json.dumps({"architectures": [arch], "num_classes": 0,
        "pretrained_cfg": {"model_args": {"backbone": "prithvi_eo_v2_300_tl", "decoder": "UperNetDecoder"}}}))
    for model in (str(tmp_path / "geo"), _checkpoint(tmp_path, arch)):
        with pytest.raises(kvplan.errors.InputError) as e:
            kvplan.fit(model, "H100", vllm_version=version)
        assert e.value.field == "model" and "TerraTorch" in e.value.message and "no KV cache" in e.value.message
        assert "attention-free" in e.value.message and "prefix caching off" in e.value.message
