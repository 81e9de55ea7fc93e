"""A sentence-transformers checkpoint read from the Hub (tests/fake_hub.py standing in for it): the plan takes the
Pooling module's mode from modules.json + 1_Pooling/config.json as it does from a local folder, and a Pooling config
that is not there or is no JSON object is what vLLM makes of it (refused up to 0.13 / no mode from 0.14, refused in
every release), as the folder path does (resolve.st_pooling_modes, st_pooling_unread, plan.defaults.st_pooling_types)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import kvplan
from fake_hub import COMMIT, FakeHub
from kvplan.resolve import resolve_model

BASE = "Qwen/Qwen3-8B"  # a *ForCausalLM: a pooling model only through its Pooling module (class default LAST)
MODULES = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
           {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
           {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]
MEAN = {"word_embedding_dimension": 4096, "pooling_mode_cls_token": False, "pooling_mode_mean_tokens": True,
        "pooling_mode_max_tokens": False, "pooling_mode_lasttoken": False, "include_prompt": True}
# repo -> its 1_Pooling/config.json (None: not in the repository)
REPOS = {"acme/mean-embed": json.dumps(MEAN), "acme/last-embed": json.dumps(dict(MEAN, pooling_mode_mean_tokens=False,
                                                                                  pooling_mode_lasttoken=True)),
         "acme/max-embed": json.dumps(dict(MEAN, pooling_mode_mean_tokens=False, pooling_mode_max_tokens=True)),
         "acme/no-pooling-config": None, "acme/bad-pooling-config": "{\"pooling_mode_mean_tokens\": tru"}
VERSIONS = ("0.11.0", "0.34.0")

# run in a child: huggingface_hub reads HF_ENDPOINT when it is imported
_CHILD = """
import json, sys
import kvplan
from kvplan.errors import KvplanError
out = {}
for repo in sys.argv[1].split(","):
    for version in sys.argv[2].split(","):
        try:
            p = kvplan.fit(repo, "H100", revision=sys.argv[3], vllm_version=version, max_model_len=16384)
        except KvplanError as e:
            out[repo + "@" + version] = {"refused": e.message}
            continue
        said = [a for a in p.assumptions if "by default for this pooling model" in a]
        out[repo + "@" + version] = {"modes": p.model.st_pooling_modes, "batched": p.args.max_num_batched_tokens,
                                     "prefix_caching": p.args.enable_prefix_caching, "kv": p.kv_cache_tokens,
                                     "said": said[0] if said else None}
print(json.dumps(out))
"""


def _folder(tmp_path: Path, repo: str, pooling: str | None, config: dict) -> str:
    folder = tmp_path / "folders" / repo.replace("/", "--")
    (folder / "1_Pooling").mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "modules.json").write_text(json.dumps(MODULES))
    if pooling is not None:
        (folder / "1_Pooling" / "config.json").write_text(pooling)
    return str(folder)


def _pooling_view(p) -> dict:
    said = [a for a in p.assumptions if "by default for this pooling model" in a]
    modes = p.model.st_pooling_modes
    return {"modes": [list(m) for m in modes] if modes is not None else None, "batched": p.args.max_num_batched_tokens,
            "prefix_caching": p.args.enable_prefix_caching, "said": said[0] if said else None}


@pytest.fixture(scope="module")
def from_hub(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hub")
    config = dict(resolve_model(BASE).raw_config)
    with FakeHub() as hub:
        for repo, pooling in REPOS.items():
            hub.add(repo, "config.json", config)
            hub.add(repo, "modules.json", json.dumps(MODULES))
            hub.add(repo, "2_Normalize/config.json", {})
            if pooling is not None:
                hub.add(repo, "1_Pooling/config.json", pooling)
        env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
        env.update(HF_ENDPOINT=hub.url, HF_HOME=str(tmp / "hf"),
                   PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
        r = subprocess.run([sys.executable, "-c", _CHILD, ",".join(REPOS), ",".join(VERSIONS), COMMIT],
                           capture_output=True, text=True, env=env, timeout=300)
        requested = list(hub.requests)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout), config, requested


def test_the_mode_is_read_from_the_hub(from_hub):
    got, _, requested = from_hub
    assert any("1_Pooling/config.json" in q for q in requested)
    mean = got["acme/mean-embed@0.34.0"]
    assert mean["modes"] == [["pooling_mode_mean_tokens", True], ["include_prompt", True]]
    # MEAN: chunked prefill and prefix caching off, the step budget the whole context
    assert mean["batched"] == 16384 and mean["prefix_caching"] is False
    assert "pooling_mode_mean_tokens: true" in mean["said"] and "assumed" not in mean["said"]
    last = got["acme/last-embed@0.34.0"]
    assert last["batched"] == 8192 and last["prefix_caching"] is not False and last["kv"] > mean["kv"]
    assert "Pooling type MAX not supported" in got["acme/max-embed@0.11.0"]["refused"]
    assert got["acme/max-embed@0.34.0"]["batched"] == 8192  # skipped from 0.14: the class default LAST


def test_a_pooling_config_not_there_or_not_json_is_what_vllm_makes_of_it(from_hub):
    # vLLM reads the missing file as None: up to 0.13 pooling_dict.items() raises, from 0.14 it is no mode (the class
    # default, said as read, not assumed); a file that is no JSON stops json.load in every release
    got = from_hub[0]
    assert "'NoneType' object has no attribute 'items'" in got["acme/no-pooling-config@0.11.0"]["refused"]
    missing = got["acme/no-pooling-config@0.34.0"]
    assert missing["modes"] is None and missing["batched"] == 8192 and missing["prefix_caching"] is not False
    assert "1_Pooling/config.json is not in the checkpoint" in missing["said"] and "assumed" not in missing["said"]
    for version in VERSIONS:
        assert "is not a JSON object" in got[f"acme/bad-pooling-config@{version}"]["refused"]


@pytest.mark.parametrize("repo", list(REPOS))
def test_the_hub_plans_as_the_folder_does(from_hub, tmp_path, repo):
    got, config, _ = from_hub
    folder = _folder(tmp_path, repo, REPOS[repo], config)
    for version in VERSIONS:
        hub = got[f"{repo}@{version}"]
        try:
            local = _pooling_view(kvplan.fit(folder, "H100", vllm_version=version, max_model_len=16384))
        except kvplan.errors.RefusedByVLLMError as e:
            assert hub == {"refused": e.message}
            continue
        assert {k: hub[k] for k in local} == local
