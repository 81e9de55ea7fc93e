"""Speculative decoding with a drafter checkpoint (--speculative-config methods eagle, eagle3, draft_model): the
draft model's weights, KV layers and profile buffers in the startup plan, the method as vLLM infers it, and the
releases that lack it (versions.py spec_draft_methods)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import kvplan
from fake_hub import FakeHub
from kvplan.errors import InputError, RefusedByVLLMError
from kvplan.plan import parse_speculative_config, speculative_draft
from kvplan.resolve import model_catalog, resolve_model
from kvplan.versions import rules_for
from kvplan.weights import drafter_weights, weights_per_rank
from spec_heads import EAGLE3_HEAD

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def _head(tmp_path: Path, name: str = "head3", **changes) -> str:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(dict(EAGLE3_HEAD, **changes)))
    return str(path)


def _spec(model: str, method: str | None = "eagle3", n: int = 3) -> str:
    obj = {"model": model, "num_speculative_tokens": n}
    if method:
        obj["method"] = method
    return json.dumps(obj)


def test_the_method_is_inferred_as_vllm_does():
    # SpeculativeConfig.__post_init__: no method -> draft_model, then "eagle-" / "eagle3" in the model name
    assert parse_speculative_config('{"model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}') == ("eagle3", 3)
    assert parse_speculative_config('{"model": "yuhuili/EAGLE-LLaMA3-Instruct-8B", "num_speculative_tokens": 2}') == ("eagle", 2)
    assert parse_speculative_config('{"model": "Qwen/Qwen3-0.6B", "num_speculative_tokens": 4}') == ("draft_model", 4)
    assert parse_speculative_config('{"model": "ngram", "num_speculative_tokens": 4}') == ("ngram", 4)
    assert parse_speculative_config('{"method": "mtp", "num_speculative_tokens": 1}') == ("mtp", 1)
    assert speculative_draft('{"method": "eagle3", "model": "org/head", "revision": "abc", "num_speculative_tokens": 1}') == ("org/head", "abc")
    assert speculative_draft('{"method": "mtp", "num_speculative_tokens": 1}') is None
    with pytest.raises(InputError, match='"model"') as e:
        parse_speculative_config('{"method": "eagle3", "num_speculative_tokens": 3}')
    assert e.value.field == "--speculative-config"
    with pytest.raises(InputError, match="not modelled"):
        parse_speculative_config('{"method": "medusa", "model": "org/x", "num_speculative_tokens": 3}')


def test_eagle3_head_weights_counted_part_by_part():
    head = resolve_model(_write_tmp_head())
    target = resolve_model(LLAMA)
    total, parts, notes = drafter_weights(head, target, "eagle3", tp=1, pp=1, dtype_bytes=2)
    p = dict(parts)
    # one layer: qkv_proj reads 2H (embeddings + hidden state): 8192 x (32 + 2 x 8) x 128; o 4096 x 4096;
    # gate/up/down 3 x 4096 x 14336; three norms
    assert p["1 decoder layer(s)"] == 2 * (8192 * 48 * 128 + 4096 * 4096 + 3 * 4096 * 14336 + 3 * 4096)
    assert p["fc (3 x 4096 -> 4096, every rank)"] == 2 * 3 * 4096 * 4096
    assert p["lm_head (32,000 draft-vocabulary rows)"] == 2 * 32000 * 4096
    assert p["d2t (draft -> target token ids, int64)"] == 8 * 32000
    assert total == 849_635_328 and not any("embed_tokens (own" in k for k in p)
    # TP 2 splits the layer and the lm_head, not fc (ReplicatedLinear) nor d2t
    total2, parts2, _ = drafter_weights(head, target, "eagle3", tp=2, pp=1, dtype_bytes=2)
    p2 = dict(parts2)
    assert p2["fc (3 x 4096 -> 4096, every rank)"] == p["fc (3 x 4096 -> 4096, every rank)"]
    assert p2["lm_head (32,000 draft-vocabulary rows)"] * 2 == p["lm_head (32,000 draft-vocabulary rows)"]
    assert total2 < total
    # pipeline parallel: the head keeps its own embedding table (no sharing across stages)
    total_pp, parts_pp, _ = drafter_weights(head, target, "eagle3", tp=1, pp=2, dtype_bytes=2)
    assert total_pp - total == 128256 * 4096 * 2


def _write_tmp_head(name: str = "head3", **changes) -> str:
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="kvplan-draft-"))
    return _head(folder, name, **changes)


def test_eagle3_plan_adds_weights_one_kv_layer_and_profile_buffers(tmp_path):
    head = _head(tmp_path)
    plain = kvplan.fit(LLAMA, "H100", max_model_len=8192, fixes=False)
    p = kvplan.fit(LLAMA, "H100", max_model_len=8192, speculative_config=_spec(head), fixes=False)
    assert p.weights_bytes - plain.weights_bytes == 849_635_328
    # one more full-attention layer of the same shape joins the single group: 33 pages per block
    assert len(p.groups) == 1 and p.bytes_per_block == 33 * 16 * 8 * 256 * 2
    assert plain.bytes_per_block == 32 * 16 * 8 * 256 * 2
    # profile: 8,192 rows of hidden_states + inputs_embeds (2 x 4096 x 2 B) + 16 B of ids, and 3 aux hidden states
    t = p.args.max_num_batched_tokens
    extra = t * (2 * 4096 * 2 + 16) + 3 * t * 4096 * 2
    assert p.activation_peak_bytes - plain.activation_peak_bytes == extra
    assert p.num_gpu_blocks < plain.num_gpu_blocks
    d = p.to_dict()["speculative"]
    assert d["method"] == "eagle3" and d["draft_kv_layers"] == 1 and d["draft_weights_bytes"] == 849_635_328
    assert d["draft_profile_bytes"] == extra and d["lookahead_slots_per_sequence"] == 3
    assert plain.to_dict()["speculative"] is None
    assert any("eagle3 drafter" in n and "lm_head" in n for n in p.assumptions)
    assert "eagle3 drafter" in next(t.formula for t in p.terms if t.name == "weights")


def test_a_head_of_another_shape_sums_pages_in_one_group(tmp_path):
    # 4 KV heads of 128: a page of half the target's; full attention of two shapes is one group of summed pages
    # (UniformTypeKVCacheSpecs, vLLM >= 0.11)
    head = _head(tmp_path, num_key_value_heads=4)
    p = kvplan.fit(LLAMA, "H100", max_model_len=8192, speculative_config=_spec(head), fixes=False)
    assert len(p.groups) == 1 and p.bytes_per_block == 32 * 65536 + 32768


def test_a_draft_model_loads_whole_and_keeps_its_own_kv(tmp_path):
    small = "Qwen/Qwen3-0.6B"
    target = "Qwen/Qwen3-14B"
    plain = kvplan.fit(target, "H100", max_model_len=8192, fixes=False)
    p = kvplan.fit(target, "H100", max_model_len=8192, speculative_config=_spec(small, method=None, n=4), fixes=False)
    draft = kvplan.fit(small, "H100", max_model_len=8192, fixes=False)
    assert p.speculative["method"] == "draft_model"
    # the whole small model (no embedding or lm_head shared), less the rotary cache it shares with the target
    w = weights_per_rank(resolve_model(small), tp=1)
    assert p.weights_bytes - plain.weights_bytes == w.bytes - w.rotary_bytes > 0.99 * draft.weights_bytes
    n_draft = resolve_model(small).num_layers
    assert p.speculative["draft_kv_layers"] == n_draft
    # Qwen3-0.6B's layers (8 KV heads x 128) match Qwen3-14B's: one group of 40 + 28 layers
    assert len(p.groups) == 1 and p.bytes_per_block == plain.bytes_per_block // 40 * (40 + n_draft)


def test_releases_without_the_method_refuse_from_the_version_table(tmp_path):
    head = _head(tmp_path)
    assert "draft_model" not in rules_for("0.14.0").spec_draft_methods
    assert "draft_model" in rules_for("0.15.0").spec_draft_methods
    assert rules_for("0.8.5").spec_draft_methods == ()
    # the release's own NotImplementedError (0.10.x's and 0.11-0.14's differ), read off the "method" as given
    with pytest.raises(RefusedByVLLMError, match="^--speculative-config: Draft model speculative decoding is not supported yet.*or mtp"):
        kvplan.fit("Qwen/Qwen3-14B", "H100", max_model_len=8192, vllm_version="0.14.0",
                   speculative_config=_spec("Qwen/Qwen3-0.6B", method="draft_model"))
    with pytest.raises(RefusedByVLLMError, match="^--speculative-config: Speculative decoding with draft model is not supported yet.*deepseek_mtp"):
        kvplan.fit("Qwen/Qwen3-14B", "H100", max_model_len=8192, vllm_version="0.10.2",
                   speculative_config=_spec("Qwen/Qwen3-0.6B", method="draft_model"))
    # no "method": that check passes, and the V1 model runner stops on the method it cannot build
    with pytest.raises(RefusedByVLLMError, match="^--speculative-config: Unknown speculative decoding method: draft_model \\("):
        kvplan.fit("Qwen/Qwen3-14B", "H100", max_model_len=8192, vllm_version="0.12.0",
                   speculative_config=_spec("Qwen/Qwen3-0.6B", method=None))
    with pytest.raises(InputError, match="V0 engine"):
        kvplan.fit(LLAMA, "H100", max_model_len=8192, vllm_version="0.8.5", speculative_config=_spec(head))
    # 0.9.x keeps eagle3 on V1 (EngineArgs._is_v1_supported_oracle): planned, with the head's layer
    p = kvplan.fit(LLAMA, "H100", max_model_len=8192, vllm_version="0.9.2", speculative_config=_spec(head), fixes=False)
    assert p.rules.is_v1 and p.speculative["draft_kv_layers"] == 1


def test_an_unknown_drafter_names_the_model_field(tmp_path):
    with pytest.raises(InputError, match='"model"') as e:
        kvplan.fit(LLAMA, "H100", speculative_config=_spec(str(tmp_path / "missing" / "config.json")))
    assert e.value.field == "--speculative-config" and "draft model's own config" in str(e.value)


def test_a_drafter_read_from_the_hub(tmp_path):
    with FakeHub() as hub:
        hub.add("acme/Llama-3.1-8B-EAGLE3-head", "config.json", EAGLE3_HEAD)
        env = dict(os.environ, HF_ENDPOINT=hub.url, HF_HOME=str(tmp_path / "hf"), HF_HUB_OFFLINE="0",
                   PYTHONPATH=str(Path(__file__).parents[1] / "src"))
        r = subprocess.run([sys.executable, "-c", "from kvplan.cli import main; main()", "fit", LLAMA, "--gpu", "H100",
                            "--max-model-len", "8192", "--json", "--speculative-config",
                            _spec("acme/Llama-3.1-8B-EAGLE3-head", method=None)],
                           capture_output=True, text=True, env=env, timeout=300)
        assert r.returncode == 0, r.stderr
        d = json.loads(r.stdout)
        assert any("acme/Llama-3.1-8B-EAGLE3-head" in q for q in hub.requests)
    assert d["speculative"]["method"] == "eagle3" and d["speculative"]["draft_model"] == "acme/Llama-3.1-8B-EAGLE3-head"
    assert d["speculative"]["draft_weights_bytes"] == 849_635_328


def test_the_catalog_is_untouched_by_drafters():
    # drafters are resolved like any model reference; none of them is a catalog target
    assert not any("eagle" in k.lower() for k in model_catalog())


def test_an_eagle1_head_has_fc_and_no_lm_head_of_its_own(tmp_path):
    # llama_eagle.py: fc reads [embeddings, hidden state] (2H -> H, replicated); the first layer has no input norm;
    # the target's lm_head and embed_tokens are used
    head = _head(tmp_path, "head1", architectures=["LlamaForCausalLMEagle"])
    draft, target = resolve_model(head), resolve_model(LLAMA)
    total, parts, notes = drafter_weights(draft, target, "eagle", tp=1, pp=1, dtype_bytes=2)
    assert dict(parts) == {"1 decoder layer(s)": 2 * (4096 * 48 * 128 + 4096 * 4096 + 3 * 4096 * 14336 + 4096),
                           "fc (2 x 4096 -> 4096, every rank)": 2 * 2 * 4096 * 4096}
    assert total == 503_324_672 and "lm_head shared" in notes[0]
    p = kvplan.fit(LLAMA, "H100", max_model_len=8192, speculative_config=_spec(head, method="eagle"), fixes=False)
    plain = kvplan.fit(LLAMA, "H100", max_model_len=8192, fixes=False)
    # no auxiliary hidden states for EAGLE-1: the profile adds the proposer's buffers only
    t = p.args.max_num_batched_tokens
    assert p.activation_peak_bytes - plain.activation_peak_bytes == t * (2 * 4096 * 2 + 16)


def test_the_seeds_arithmetic_refuses_a_drafter_it_would_ignore(tmp_path):
    # --overhead-gb plans weights / TP + a fixed overhead: a drafter's weights and KV layers would be dropped unread
    with pytest.raises(InputError, match="eagle3 drafter") as e:
        kvplan.fit(LLAMA, gpu_gb=80, overhead_gb=1, max_model_len=8192, speculative_config=_spec(_head(tmp_path)))
    assert e.value.field == "--speculative-config"
    assert kvplan.fit(LLAMA, gpu_gb=80, overhead_gb=1, max_model_len=8192).num_gpu_blocks > 0


def test_the_method_inferred_from_the_name_follows_the_release(tmp_path):
    # up to 0.10.1 SpeculativeConfig.__post_init__ reads "eagle3-" in a name as "eagle" (eagle3 inferred from 0.10.2)
    head = str(tmp_path / "EAGLE3-LLaMA3.1-Instruct-8B.json")
    Path(head).write_text(json.dumps(EAGLE3_HEAD))
    assert rules_for("0.10.1").spec_infers_eagle3_by_name is False and rules_for("0.10.2").spec_infers_eagle3_by_name
    with pytest.raises(InputError, match="infers 'eagle'.*not 'eagle3'") as e:
        kvplan.fit(LLAMA, "H100", max_model_len=8192, vllm_version="0.10.1", speculative_config=_spec(head, method=None))
    assert '"method": "eagle3"' in e.value.fix
    p = kvplan.fit(LLAMA, "H100", max_model_len=8192, vllm_version="0.10.2", speculative_config=_spec(head, method=None),
                   fixes=False)
    assert p.speculative["method"] == "eagle3"
    # given explicitly, every release with eagle3 on V1 plans it
    p = kvplan.fit(LLAMA, "H100", max_model_len=8192, vllm_version="0.10.1", speculative_config=_spec(head), fixes=False)
    assert p.speculative["method"] == "eagle3" and p.rules.is_v1


def test_0_9_keeps_v1_only_for_a_method_given(tmp_path):
    # 0.9.x's _is_v1_supported_oracle reads "method" as given: none given (but the model "ngram") falls back to V0,
    # whose drafter kvplan does not model
    head = str(tmp_path / "EAGLE-LLaMA3-Instruct-8B.json")
    Path(head).write_text(json.dumps(dict(EAGLE3_HEAD, architectures=["LlamaForCausalLMEagle"])))
    with pytest.raises(InputError, match="V0 engine") as e:
        kvplan.fit(LLAMA, "H100", max_model_len=8192, vllm_version="0.9.2", speculative_config=_spec(head, method=None))
    assert 'with "method" given' in e.value.fix
    p = kvplan.fit(LLAMA, "H100", max_model_len=8192, vllm_version="0.9.2", speculative_config=_spec(head, method="eagle"),
                   fixes=False)
    assert p.rules.is_v1 and p.speculative["method"] == "eagle"
    # the same head from 0.10.0 (no oracle check on the method): V1 with the inferred method
    p = kvplan.fit(LLAMA, "H100", max_model_len=8192, vllm_version="0.10.0", speculative_config=_spec(head, method=None),
                   fixes=False)
    assert p.rules.is_v1 and p.speculative["method"] == "eagle"


def test_a_drafter_on_a_v0_fallback_is_refused_with_the_reason(tmp_path):
    # a T4 (compute capability 7.5) runs 0.10.0 on V0: the drafter is V0's spec_decode_worker, not modelled
    with pytest.raises(InputError, match="V0 engine") as e:
        kvplan.fit(LLAMA, "T4", max_model_len=4096, vllm_version="0.10.0", speculative_config=_spec(_head(tmp_path)))
    assert "Compute Capability < 8.0" in e.value.fix


def test_the_drafter_loads_on_the_last_pipeline_stage(tmp_path):
    # the busiest rank grows by the drafter only where the last stage, which loads it, becomes the busiest
    spec = _spec(_head(tmp_path))
    kw = dict(max_model_len=8192, pipeline_parallel_size=2, fixes=False)
    even = kvplan.fit(LLAMA, "H100", speculative_config=spec, **kw)
    plain = kvplan.fit(LLAMA, "H100", **kw)
    assert even.weights_bytes - plain.weights_bytes == even.speculative["draft_weights_bytes"]  # 16 + 16: last stage
    env = {"VLLM_PP_LAYER_PARTITION": "20,12"}  # the first stage, 8 layers more, stays the busiest with the drafter
    front = kvplan.fit(LLAMA, "H100", speculative_config=spec, env=env, **kw)
    assert front.weights_bytes == kvplan.fit(LLAMA, "H100", env=env, **kw).weights_bytes


@pytest.mark.parametrize("version, spec, runner", [
    ("0.27.1", '{"method": "ngram", "num_speculative_tokens": 3}', "v1"),      # 0.22-0.31: n-gram keeps v1
    ("0.29.0", '{"model": "Qwen/Qwen3-0.6B", "num_speculative_tokens": 3}', "v1"),
    ("0.30.0", '{"model": "Qwen/Qwen3-0.6B", "num_speculative_tokens": 3}', "v1"),  # draft_model: v1 to 0.30
    ("0.31.0", '{"model": "Qwen/Qwen3-0.6B", "num_speculative_tokens": 3}', "v2"),
    ("0.31.0", '{"method": "ngram", "num_speculative_tokens": 3}', "v1"),
    ("0.33.0", '{"method": "ngram", "num_speculative_tokens": 3}', "v2"),      # 0.32 on: n-gram on v2
    ("0.33.0", '{"method": "suffix", "num_speculative_tokens": 3}', "v1"),     # suffix never
])
def test_model_runner_v2_keeps_v1_for_the_speculative_methods_it_lacks(version, spec, runner):
    # config/vllm.py _get_v2_model_runner_unsupported_features, read in the 0.22-0.33 wheels (rules row mrv2_v1_spec_methods)
    from kvplan.plan import model_runner

    p = kvplan.fit("Qwen/Qwen3-8B", "H100", max_model_len=8192, vllm_version=version, speculative_config=spec, fixes=False)
    assert model_runner(p.model, p.args, p.rules) == runner


def test_the_drafters_kv_layers_join_the_last_pipeline_stage(tmp_path):
    # the head's one layer is on the last stage: with 17 + 15 layers the first stage (17) still binds the blocks; with
    # 16 + 16 the last one does (16 + 1)
    spec = _spec(_head(tmp_path))
    kw = dict(max_model_len=8192, pipeline_parallel_size=2, fixes=False)
    front = {"VLLM_PP_LAYER_PARTITION": "17,15"}
    assert (kvplan.fit(LLAMA, "H100", speculative_config=spec, env=front, **kw).bytes_per_block
            == kvplan.fit(LLAMA, "H100", env=front, **kw).bytes_per_block)
    even = kvplan.fit(LLAMA, "H100", speculative_config=spec, **kw)
    assert even.bytes_per_block == kvplan.fit(LLAMA, "H100", **kw).bytes_per_block // 16 * 17


def test_scaffold_pins_a_hub_drafter_at_the_commit_its_config_was_read_at(tmp_path):
    """serve.sh pins the model with --revision; the drafter --speculative-config names is fetched by vLLM too, so its
    "revision" (SpeculativeConfig.revision, vllm/config/speculative.py) is written as the commit the plan read it at
    (a branch given is replaced by the commit it pointed at), and a drafter of no known commit is said not pinned."""
    from fake_hub import COMMIT

    with FakeHub() as hub:
        hub.add("acme/Llama-3.1-8B-EAGLE3-head", "config.json", EAGLE3_HEAD)
        env = dict(os.environ, HF_ENDPOINT=hub.url, HF_HOME=str(tmp_path / "hf"), HF_HUB_OFFLINE="0",
                   PYTHONPATH=str(Path(__file__).parents[1] / "src"))

        def scaffold(out: str, spec: str) -> str:
            r = subprocess.run([sys.executable, "-c", "from kvplan.cli import main; main()", "scaffold", str(tmp_path / out),
                                LLAMA, "--gpu", "H100", "--max-model-len", "8192", "--speculative-config", spec],
                               capture_output=True, text=True, env=env, timeout=300)
            assert r.returncode == 0, r.stderr
            return (tmp_path / out / "serve.sh").read_text()

        pinned = scaffold("pinned", _spec("acme/Llama-3.1-8B-EAGLE3-head"))
        branch = scaffold("branch", json.dumps(dict(json.loads(_spec("acme/Llama-3.1-8B-EAGLE3-head")), revision="dev")))
    flag = next(line for line in pinned.splitlines() if "--speculative-config" in line)
    assert f'"revision":"{COMMIT}"' in flag and "the drafter pinned: the commit main pointed at" in pinned
    flag = next(line for line in branch.splitlines() if "--speculative-config" in line)
    assert f'"revision":"{COMMIT}"' in flag and '"dev"' not in flag and "the commit dev pointed at" in branch
    # a drafter the catalog holds is of no commit: said, not pinned
    from kvplan.deploy import render_files, spec_from_plan

    catalog = kvplan.fit(LLAMA, "H100", max_model_len=8192, speculative_config=json.dumps(
        {"method": "draft_model", "model": "meta-llama/Llama-3.2-1B-Instruct", "num_speculative_tokens": 3}))
    serve = render_files(spec_from_plan(catalog))["serve.sh"]
    flag = next(line for line in serve.splitlines() if "--speculative-config" in line)
    assert "the drafter NOT pinned (no revision: main moves under you)" in serve and '"revision"' not in flag


def test_the_flags_row_names_the_speculative_config():
    """`kvplan fit ... --speculative-config '{"method": "ngram", ...}'` planned the drafter's graphs and pool, but
    nothing in the table said speculative decoding was on: the flags row now names it as it names the other flags."""
    from rich.console import Console

    from kvplan.render import plan_table

    def flags_row(p) -> str:
        console = Console(width=400, record=True, color_system=None)
        console.print(plan_table(p))
        text = " ".join(console.export_text().split())
        return text[text.index("flags "):text.index(" KV per token")]

    spec = kvplan.fit("Qwen/Qwen3-8B", "L4", max_model_len=16384,
                      speculative_config={"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4})
    assert flags_row(spec).endswith("· speculative ngram, 4 tokens")
    assert "speculative" not in flags_row(kvplan.fit("Qwen/Qwen3-8B", "L4", max_model_len=16384))


def test_a_misspelt_method_is_named_before_a_missing_token_count():
    """{"method": "eagel"} was told "num_speculative_tokens must be a whole number >= 1, got None", and only after
    adding one that the method is unknown."""
    with pytest.raises(InputError) as e:
        parse_speculative_config({"method": "eagel"})
    assert "method 'eagel' is not modelled by kvplan" in str(e.value)
    with pytest.raises(InputError) as e:
        parse_speculative_config({"method": "ngram"})
    assert "num_speculative_tokens must be a whole number >= 1, got None" in str(e.value)
    assert parse_speculative_config({"method": "ngram", "num_speculative_tokens": 4}) == ("ngram", 4)
