"""Pipeline parallelism with speculative decoding: each stage's KV pool from its own weights and layers, the drafter
(an EAGLE-3 head, MTP layers, a draft model) on the last stage, which builds it (model runner v2 from 0.30); the
releases that cannot start a drafter under PP refused with vLLM's message (versions.py pp_spec_v0_refusal,
pp_spec_drafter, pp_eagle3_aux_architectures)."""

from __future__ import annotations

import json
import re

import pytest

import kvplan
from kvplan.errors import RefusedByVLLMError
from kvplan.plan import PP_SPECULATIVE
from kvplan.versions import rules_for
from test_spec_draft import EAGLE3_HEAD, LLAMA

PP2 = dict(max_model_len=8192, pipeline_parallel_size=2, fixes=False)


@pytest.fixture
def eagle3(tmp_path) -> str:
    path = tmp_path / "head3.json"
    path.write_text(json.dumps(EAGLE3_HEAD))
    return json.dumps({"model": str(path), "method": "eagle3", "num_speculative_tokens": 3})


def _stage_note(p) -> str:
    return next(n for n in p.assumptions if n.startswith("pipeline parallel"))


def test_an_eagle3_head_at_pp2_binds_the_last_stage_with_its_weights_buffers_and_layer(eagle3):
    """Llama-3.1-8B, 16 + 16 layers, the head on stage 1: that stage's pool loses the head's weights and profile
    buffers and its block holds 17 pages, and it binds. Eager, so no graph term differs between the two plans."""
    p = kvplan.fit(LLAMA, "H100", speculative_config=eagle3, enforce_eager=True, **PP2)
    q = kvplan.fit(LLAMA, "H100", enforce_eager=True, **PP2)
    assert "binding stage is stage 1 (17 KV layers" in _stage_note(p) and "eagle3 drafter's weights" in _stage_note(p)
    assert "binding stage is stage 1 (16 KV layers" in _stage_note(q)
    assert p.bytes_per_block == q.bytes_per_block // 16 * 17
    drafter = p.speculative["draft_weights_bytes"] + p.speculative["draft_profile_bytes"]
    assert p.speculative["draft_profile_bytes"] > 0
    assert q.kv_cache_bytes - p.kv_cache_bytes == drafter  # the last stage's pool, less the drafter's bytes
    assert p.num_gpu_blocks == int(p.kv_cache_bytes // p.bytes_per_block) < q.num_gpu_blocks


def test_an_eagle3_head_leaves_a_heavier_first_stage_as_it_is(eagle3):
    """VLLM_PP_LAYER_PARTITION=20,12: stage 0 (20 layers) binds with and without the head, whose weights, buffers and
    KV layer are all on stage 1, so the blocks are the same (before, one pool charged the head to every rank)."""
    env = {"VLLM_PP_LAYER_PARTITION": "20,12"}
    p = kvplan.fit(LLAMA, "H100", speculative_config=eagle3, env=env, enforce_eager=True, **PP2)
    q = kvplan.fit(LLAMA, "H100", env=env, enforce_eager=True, **PP2)
    assert "binding stage is stage 0 (20 KV layers" in _stage_note(p)
    assert re.search(r"/ 13 layers$", _stage_note(p))  # stage 1: 12 decoder layers and the head's one
    assert (p.kv_cache_bytes, p.bytes_per_block, p.num_gpu_blocks) == (q.kv_cache_bytes, q.bytes_per_block, q.num_gpu_blocks)


def test_a_partition_that_loads_the_last_stage_binds_it_with_the_head(eagle3):
    env = {"VLLM_PP_LAYER_PARTITION": "12,20"}
    p = kvplan.fit(LLAMA, "H100", speculative_config=eagle3, env=env, **PP2)
    q = kvplan.fit(LLAMA, "H100", env=env, **PP2)
    assert "binding stage is stage 1 (21 KV layers" in _stage_note(p)
    assert p.bytes_per_block == q.bytes_per_block // 20 * 21 and p.num_gpu_blocks < q.num_gpu_blocks


def test_mtp_layers_at_pp2_join_the_last_stage():
    """MiniMax-M2.5 (62 layers, 3 MTP layers) at TP 4 x PP 2, 0.33.0: stage 1 holds 31 + 3 KV layers and the MTP
    weights, and binds; 0.19.0 refuses the MTP drafter under PP."""
    kw = dict(PP2, tensor_parallel_size=4, vllm_version="0.33.0")
    mtp = '{"method": "mtp", "num_speculative_tokens": 1}'
    p = kvplan.fit("MiniMaxAI/MiniMax-M2.5", "H200", speculative_config=mtp, **kw)
    q = kvplan.fit("MiniMaxAI/MiniMax-M2.5", "H200", **kw)
    assert "binding stage is stage 1 (34 KV layers" in _stage_note(p) and "mtp drafter's weights and 3 KV" in _stage_note(p)
    assert p.bytes_per_block == p.groups[0].page_bytes * 34 == q.bytes_per_block // 31 * 34
    assert p.num_gpu_blocks < q.num_gpu_blocks
    with pytest.raises(RefusedByVLLMError, match="SupportsPP") as e:
        kvplan.fit("MiniMaxAI/MiniMax-M2.5", "H200", speculative_config=mtp, **dict(kw, vllm_version="0.19.0"))
    assert e.value.rule == PP_SPECULATIVE


@pytest.mark.parametrize("version, method, message", [
    ("0.19.0", "eagle3", "Pipeline parallelism is not supported for this model"),   # EAGLE heads lack SupportsPP
    ("0.29.0", "eagle3", "Pipeline parallelism is not supported for this model"),
    ("0.19.0", "draft_model", "object has no attribute 'drafter'"),                # passes, fails in the profile run
    ("0.30.0", "draft_model", "object has no attribute 'drafter'"),                # model runner v1 kept for it in 0.30
])
def test_a_release_that_cannot_start_a_drafter_under_pp_is_refused(tmp_path, eagle3, version, method, message):
    spec = eagle3 if method == "eagle3" else '{"method": "draft_model", "model": "Qwen/Qwen3-0.6B", "num_speculative_tokens": 3}'
    target = LLAMA if method == "eagle3" else "Qwen/Qwen3-8B"
    with pytest.raises(RefusedByVLLMError, match=message) as e:
        kvplan.fit(target, "H100", speculative_config=spec, vllm_version=version, **PP2)
    assert e.value.rule == PP_SPECULATIVE and "--pipeline-parallel-size 1" in e.value.fix
    assert ("0.31.0 or newer" if method == "draft_model" and version < "0.30" else "") in e.value.fix
    kvplan.fit(target, "H100", speculative_config=spec, vllm_version=version, **dict(PP2, pipeline_parallel_size=1))


def test_the_rows_and_what_still_starts():
    assert rules_for("0.29.0").pp_spec_drafter == "refused" and rules_for("0.30.0").pp_spec_drafter == "mrv2"
    assert "LlamaForCausalLM" in rules_for("0.33.0").pp_eagle3_aux_architectures
    # the registry's other LlamaModel / Qwen2Model decoders relay too (Glm4Model, Llama4Model, the "llama" entries); not
    # MiMo (its Qwen2Model subclass sets the flag False) nor Qwen3-MoE (its own decoder)
    aux = rules_for("0.30.0").pp_eagle3_aux_architectures
    assert {"Glm4ForCausalLM", "Llama4ForCausalLM", "InternLM3ForCausalLM", "Ministral3ForCausalLM"} <= set(aux)
    assert not {"MiMoForCausalLM", "Qwen3MoeForCausalLM"} & set(aux)
    assert not rules_for("0.6.3").pp_spec_v0_refusal and rules_for("0.8.5").pp_spec_v0_refusal
    draft = '{"method": "draft_model", "model": "Qwen/Qwen3-0.6B", "num_speculative_tokens": 3}'
    p = kvplan.fit("Qwen/Qwen3-8B", "H100", speculative_config=draft, vllm_version="0.31.0", **PP2)
    assert "draft_model drafter's weights" in _stage_note(p)
    ngram = '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}'
    # n-gram has no drafter: each stage's pool as without it (V1), but V0's spec_decode_worker refuses any method
    assert "pipeline parallel" in _stage_note(kvplan.fit(LLAMA, "H100", speculative_config=ngram, vllm_version="0.19.0", **PP2))
    with pytest.raises(RefusedByVLLMError, match="currently incompatible with pipeline parallelism"):
        kvplan.fit(LLAMA, "H100", speculative_config=ngram, vllm_version="0.8.5", **PP2)


def test_eagle3_on_a_decoder_that_relays_no_aux_states_is_warned(eagle3):
    p = kvplan.fit("Qwen/Qwen3-30B-A3B", "H100", speculative_config=eagle3, **PP2)
    assert any("does not support eagle3 with pipeline parallelism" in w for w in p.warnings)
    assert not any("EAGLE-3 with pipeline" in w for w in kvplan.fit(LLAMA, "H100", speculative_config=eagle3, **PP2).warnings)


def test_v1_forced_by_the_environment_cannot_start_a_drafter_under_pp(eagle3):
    # 0.33 builds the EAGLE-3 head on the last stage with model runner v2; VLLM_USE_V2_MODEL_RUNNER=0 runs v1
    kvplan.fit(LLAMA, "H100", speculative_config=eagle3, vllm_version="0.33.0", **PP2)
    with pytest.raises(RefusedByVLLMError, match="VLLM_USE_V2_MODEL_RUNNER=0 runs model runner v1") as e:
        kvplan.fit(LLAMA, "H100", speculative_config=eagle3, vllm_version="0.33.0", env=["VLLM_USE_V2_MODEL_RUNNER=0"], **PP2)
    assert e.value.rule == PP_SPECULATIVE and "unset it" in e.value.fix
