"""A modules.json listing a newer-type Pooling module before an old-type one: each release reads the first Pooling
module of a type it matches (transformers_utils/config.py get_pooling_config, `next(...)` over the modules whose type
it matches: `item["type"] == "sentence_transformers.models.Pooling"` in the 0.6.4-0.29.0 wheels, `in
_ST_POOLING_MODULE_TYPES` in the 0.30.0-0.34.0 wheels). Up to 0.29 that is the later old-type module, from 0.30 the
first one."""

from __future__ import annotations

import json
from pathlib import Path

import kvplan
from kvplan.resolve import resolve_model

OLD = "sentence_transformers.models.Pooling"
NEW = "sentence_transformers.sentence_transformer.modules.pooling.Pooling"
BASE = "Qwen/Qwen3-8B"
MEAN = {"pooling_mode_mean_tokens": True, "include_prompt": True}
LAST = {"pooling_mode_lasttoken": True, "include_prompt": True}  # LAST keeps chunked prefill and prefix caching, MEAN not


def _checkpoint(folder: Path, pooling: list[tuple[str, dict]]) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(dict(resolve_model(BASE).raw_config)))
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"}]
    for i, (kind, cfg) in enumerate(pooling, start=1):
        modules.append({"idx": i, "name": str(i), "path": f"{i}_Pooling", "type": kind})
        (folder / f"{i}_Pooling").mkdir()
        (folder / f"{i}_Pooling" / "config.json").write_text(json.dumps({"word_embedding_dimension": 4096, **cfg}))
    (folder / "modules.json").write_text(json.dumps(modules))
    return str(folder)


def _figures(p):
    return (p.weights_bytes, p.activation_peak_bytes, p.kv_cache_tokens, p.args.max_num_batched_tokens,
            p.args.enable_prefix_caching)


def _fit(path: str, version: str, **kw):
    return kvplan.fit(path, "H100", vllm_version=version, max_model_len=8192, **kw)


def test_the_spec_keeps_every_pooling_module_in_order(tmp_path):
    spec = resolve_model(_checkpoint(tmp_path / "both", [(NEW, MEAN), (OLD, LAST)]))
    assert spec.st_pooling_type == NEW  # the first of either type
    assert [t for t, _ in spec.st_pooling_modules] == [NEW, OLD]
    assert spec.st_pooling_modules[1][1] == (("pooling_mode_lasttoken", True), ("include_prompt", True))


def test_up_to_0_29_the_later_old_type_module_is_read(tmp_path):
    both = _checkpoint(tmp_path / "both", [(NEW, MEAN), (OLD, LAST)])
    old_only = _checkpoint(tmp_path / "old", [(OLD, LAST)])
    bare = _checkpoint(tmp_path / "bare", [])
    for version in ("0.20.0", "0.29.0"):
        p, ref = _fit(both, version), _fit(old_only, version)
        assert _figures(p) == _figures(ref), version
        assert _figures(p) != _figures(_fit(bare, version)), version  # served as pooling, not generative
        assert not any("does not read this checkpoint's sentence-transformers Pooling module" in n for n in p.assumptions)


def test_from_0_30_the_first_module_is_read(tmp_path):
    both = _checkpoint(tmp_path / "both", [(NEW, MEAN), (OLD, LAST)])
    for version in ("0.30.0", "0.34.0"):
        p = _fit(both, version)
        assert _figures(p) == _figures(_fit(_checkpoint(tmp_path / f"new{version}", [(NEW, MEAN)]), version))
        assert _figures(p) != _figures(_fit(_checkpoint(tmp_path / f"old{version}", [(OLD, LAST)]), version))
