"""Which modules.json types a vLLM release takes as the sentence-transformers Pooling module (rules row
st_pooling_module_types): up to 0.29 only "sentence_transformers.models.Pooling", from 0.30 also sentence-transformers'
newer module path. A module of a type the release does not read neither makes --runner auto serve the checkpoint as a
pooling model nor sets its pooling mode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import kvplan
from fake_hub import COMMIT, FakeHub
from kvplan.resolve import ST_POOLING_MODULE_TYPES, resolve_model
from kvplan.versions import rules_for

OLD = "sentence_transformers.models.Pooling"
NEW = "sentence_transformers.sentence_transformer.modules.pooling.Pooling"
BASE = "Qwen/Qwen3-8B"  # a *ForCausalLM: served as pooling only through the Pooling module


def _modules(pooling_type: str) -> list:
    return [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": pooling_type}]


def _checkpoint(folder: Path, pooling_type: str | None, mode: str = "pooling_mode_mean_tokens") -> str:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(dict(resolve_model(BASE).raw_config)))
    if pooling_type is not None:
        (folder / "modules.json").write_text(json.dumps(_modules(pooling_type)))
        (folder / "1_Pooling").mkdir()
        (folder / "1_Pooling" / "config.json").write_text(json.dumps({
            "word_embedding_dimension": 4096, "pooling_mode_cls_token": mode == "pooling_mode_cls_token",
            "pooling_mode_mean_tokens": mode == "pooling_mode_mean_tokens",
            "pooling_mode_lasttoken": mode == "pooling_mode_lasttoken", "include_prompt": True}))
    return str(folder)


def _figures(p):
    return (p.weights_bytes, p.activation_peak_bytes, p.kv_cache_tokens, p.args.max_num_batched_tokens,
            p.args.enable_prefix_caching)


def test_the_rules_row_lists_the_types_each_release_reads():
    for version in ("0.8.5", "0.14.0", "0.29.0"):
        assert rules_for(version).st_pooling_module_types == (OLD,)
    for version in ("0.30.0", "0.34.0"):
        assert set(rules_for(version).st_pooling_module_types) == {OLD, NEW}
    assert ST_POOLING_MODULE_TYPES == {OLD, NEW}


def test_the_newer_module_type_is_read_with_its_mode(tmp_path):
    spec = resolve_model(_checkpoint(tmp_path / "new", NEW))
    assert spec.st_pooling and spec.is_pooling and spec.st_pooling_type == NEW
    assert spec.st_pooling_modes == (("pooling_mode_mean_tokens", True), ("include_prompt", True))
    assert resolve_model(_checkpoint(tmp_path / "old", OLD)).st_pooling_type == OLD


@pytest.mark.parametrize("other", ["my_package.models.Pooling", "sentence_transformers.models.Pooling2",
                                   "sentence_transformers.models.pooling"])
def test_a_type_no_release_matches_is_no_pooling_module(tmp_path, other):
    # vLLM matches the type exactly: a look-alike is no Pooling module to any release
    spec = resolve_model(_checkpoint(tmp_path, other))
    assert not spec.st_pooling and not spec.is_pooling and spec.st_pooling_type is None


@pytest.mark.parametrize("version", ["0.30.0", "0.34.0"])
def test_a_release_that_reads_the_newer_type_serves_it_as_pooling(tmp_path, version):
    kw = dict(vllm_version=version, max_model_len=8192)
    new = kvplan.fit(_checkpoint(tmp_path / "new", NEW), "H100", **kw)
    old = kvplan.fit(_checkpoint(tmp_path / "old", OLD), "H100", **kw)
    generative = kvplan.fit(_checkpoint(tmp_path / "none", None), "H100", **kw)
    assert new.model.is_pooling and new.args.runner_type == "pooling"
    assert _figures(new) == _figures(old)  # the same module, named the newer way
    assert new.weights_bytes < generative.weights_bytes  # no lm_head
    assert new.args.enable_prefix_caching is False  # MEAN, read from the module: off by default
    assert any("pooling_mode_mean_tokens: true" in a for a in new.assumptions)


def test_a_release_that_does_not_read_the_newer_type_serves_the_architecture(tmp_path):
    kw = dict(vllm_version="0.29.0", max_model_len=8192)
    new = kvplan.fit(_checkpoint(tmp_path / "new", NEW), "H100", **kw)
    generative = kvplan.fit(_checkpoint(tmp_path / "none", None), "H100", **kw)
    old = kvplan.fit(_checkpoint(tmp_path / "old", OLD), "H100", **kw)
    assert old.model.is_pooling  # the type 0.29 reads
    assert not new.model.is_pooling and new.args.runner_type != "pooling"
    assert _figures(new) == _figures(generative) != _figures(old)
    said = [a for a in new.assumptions if "does not read this checkpoint's sentence-transformers Pooling module" in a]
    assert len(said) == 1 and NEW in said[0] and "--runner pooling" in said[0] and "0.30.0" in said[0]
    assert not any("serves it as a pooling model" in a for a in new.assumptions)


@pytest.mark.parametrize("mode", ["pooling_mode_mean_tokens", "pooling_mode_cls_token"])
def test_runner_pooling_takes_the_class_default_where_the_module_is_not_read(tmp_path, mode):
    kw = dict(vllm_version="0.29.0", max_model_len=8192, runner="pooling")
    new = kvplan.fit(_checkpoint(tmp_path / "new", NEW, mode), "H100", **kw)
    bare = kvplan.fit(_checkpoint(tmp_path / "none", None), "H100", **kw)
    old = kvplan.fit(_checkpoint(tmp_path / "old", OLD, mode), "H100", **kw)
    assert new.model.is_pooling
    # LAST, the class default, keeps chunked prefill on; the module's MEAN / CLS (read where the type is) turns it off
    assert _figures(new) == _figures(bare) != _figures(old)
    assert old.args.enable_prefix_caching is False and new.args.enable_prefix_caching is not False
    assert any("its pooling mode is not read: the pooling type is the class default" in a for a in new.assumptions)
    at_34 = kvplan.fit(_checkpoint(tmp_path / "new34", NEW, mode), "H100", **{**kw, "vllm_version": "0.34.0"})
    assert at_34.args.enable_prefix_caching is False


def test_runner_generate_needs_no_reading(tmp_path):
    kw = dict(vllm_version="0.29.0", max_model_len=8192, runner="generate")
    new = kvplan.fit(_checkpoint(tmp_path / "new", NEW), "H100", **kw)
    assert _figures(new) == _figures(kvplan.fit(_checkpoint(tmp_path / "none", None), "H100", **kw))
    assert not any("does not read this checkpoint's sentence-transformers" in a for a in new.assumptions)


def test_the_type_is_kept_from_the_hub(tmp_path):
    config = dict(resolve_model(BASE).raw_config)
    with FakeHub() as hub:
        hub.add("acme/new-embed", "config.json", config)
        hub.add("acme/new-embed", "modules.json", json.dumps(_modules(NEW)))
        hub.add("acme/new-embed", "1_Pooling/config.json", {"pooling_mode_lasttoken": True})
        env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
        env.update(HF_ENDPOINT=hub.url, HF_HOME=str(tmp_path / "hf"),
                   PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
        code = ("from kvplan.resolve import resolve_model; "
                f"s = resolve_model('acme/new-embed', revision='{COMMIT}'); "
                "print(repr((s.st_pooling_type, s.is_pooling, s.st_pooling_modes)))")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == repr((NEW, True, (("pooling_mode_lasttoken", True),)))
