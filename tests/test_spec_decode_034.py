"""Speculative decoding as vLLM 0.34.0 changes it against 0.33.0: the suffix speculator on model runner v2 with its GPU
corpus and default token count, the requests' token histories on the GPU for ngram/suffix, a configured "draft_model"
kept whatever the drafter's name, and a draft model at another draft_tensor_parallel_size no longer refused."""

import json

import pytest

import kvplan
from kvplan.errors import InputError, RefusedByVLLMError
from kvplan.plan.terms import _suffix_corpus_bytes

MiB = 1024 ** 2


def _fit(version, spec, model="Qwen/Qwen3-8B", **kw):
    kw = dict(dict(gpu="H100", max_model_len=32768, max_num_seqs=256), **kw)
    return kvplan.fit(model, vllm_version=version, speculative_config=json.dumps(spec), **kw)


def _state_note(plan):
    return [a for a in plan.assumptions if "drafting under model runner v2" in a]


def test_suffix_default_token_count_by_release():
    # 0.33: suffix_decoding_max_tree_depth (24); 0.34: min(8, that depth) (SuffixSpeculatorConfig.configure)
    old = _fit("0.33.0", {"method": "suffix"})
    new = _fit("0.34.0", {"method": "suffix"})
    assert json.loads(old.args.speculative_config)["num_speculative_tokens"] == 24
    assert json.loads(new.args.speculative_config)["num_speculative_tokens"] == 8
    shallow = _fit("0.34.0", {"method": "suffix", "suffix_decoding_max_tree_depth": 5})
    assert json.loads(shallow.args.speculative_config)["num_speculative_tokens"] == 5
    assert any("default for suffix decoding" in a for a in new.assumptions)
    with pytest.raises(InputError, match="suffix_decoding_max_tree_depth"):
        _fit("0.34.0", {"method": "suffix", "suffix_decoding_max_tree_depth": 0})


def test_suffix_runs_model_runner_v2_with_its_gpu_corpus_from_034():
    spec = {"method": "suffix", "num_speculative_tokens": 8}
    old, new = _fit("0.33.0", spec), _fit("0.34.0", spec)
    assert not _state_note(old)  # 0.33 keeps suffix on model runner v1 (CPU suffix trees, UVA token history)
    assert _state_note(new)
    corpus, _ = _suffix_corpus_bytes({}, 256, 32768, 8)
    # 1 Mi int32 tokens + 2 x 262,144 buckets x 8 int64 slots + scratch 256 x 128 x 8 B + per-request state
    assert 36 * MiB < corpus < 37 * MiB
    history = 256 * 32768 * 4
    ngram = _fit("0.34.0", {"method": "ngram", "num_speculative_tokens": 8})
    # same runner, same q: the suffix plan holds the corpus beyond ngram's token history
    assert new.activation_peak_bytes - ngram.activation_peak_bytes == pytest.approx(corpus, abs=1)
    assert ngram.activation_peak_bytes - _fit("0.34.0", {"method": "ngram", "num_speculative_tokens": 8},
                                              max_num_seqs=128).activation_peak_bytes >= history // 2
    # no corpus where cross-request matching is off: one int32 entry and one bucket
    off, _ = _suffix_corpus_bytes({"suffix_decoding_max_cached_requests": 0}, 256, 32768, 8)
    assert off < MiB


def test_ngram_token_history_on_gpu_under_model_runner_v2():
    spec = {"method": "ngram", "num_speculative_tokens": 4}
    plan = _fit("0.33.0", spec)
    note = _state_note(plan)
    assert note and "256 sequences x 32,768 tokens x 4 B = 32.0 MiB" in note[0]
    # model runner v1 (forced) keeps the history in UVA memory
    v1 = _fit("0.33.0", spec, env={"VLLM_USE_V2_MODEL_RUNNER": "0"})
    assert not _state_note(v1)


@pytest.fixture
def eagle3_head(tmp_path):
    head = tmp_path / "EAGLE3-LLaMA3.1-Instruct-8B"
    head.mkdir()
    (head / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama", "hidden_act": "silu", "hidden_size": 4096,
        "intermediate_size": 14336, "max_position_embeddings": 2048, "num_attention_heads": 32,
        "num_key_value_heads": 8, "num_hidden_layers": 1, "rms_norm_eps": 1e-05, "vocab_size": 128256,
        "draft_vocab_size": 32000}))
    return str(head)


def test_configured_draft_model_is_kept_from_034(eagle3_head):
    spec = {"method": "draft_model", "model": eagle3_head, "num_speculative_tokens": 3}
    kw = dict(model="meta-llama/Llama-3.1-8B-Instruct", max_model_len=8192)
    old = _fit("0.33.0", spec, **kw)  # 0.33 reads the name: an EAGLE-3 head
    assert old.fits and old.activation_peak_bytes == _fit("0.33.0", dict(spec, method="eagle3"), **kw).activation_peak_bytes
    with pytest.raises(InputError, match='keeps the configured method "draft_model"') as e:
        _fit("0.34.0", spec, **kw)
    assert '"method": "eagle3"' in e.value.fix
    assert _fit("0.34.0", dict(spec, method="eagle3"), **kw).fits
    assert _fit("0.34.0", {k: v for k, v in spec.items() if k != "method"}, **kw).fits  # detected by name


def test_draft_model_tp_mismatch_not_refused_from_034(tmp_path):
    from kvplan.resolve import resolve_model

    draft = tmp_path / "qwen3-0.6b"
    draft.mkdir()
    (draft / "config.json").write_text(json.dumps(resolve_model("Qwen/Qwen3-0.6B").raw_config))
    spec = {"method": "draft_model", "model": str(draft), "num_speculative_tokens": 4, "draft_tensor_parallel_size": 1}
    kw = dict(model="Qwen/Qwen3-32B", tensor_parallel_size=4, max_model_len=16384)
    # 0.33.0 refuses it on model runner v1 only (forced here; its default for a draft model is v2, which does not
    # refuse: test_draft_model_tp_refused_on_runner_v1_only); 0.34.0 has no model runner v1
    with pytest.raises(RefusedByVLLMError, match="must be the same. Got 1 and 4"):
        _fit("0.33.0", spec, env=(("VLLM_USE_V2_MODEL_RUNNER", "0"),), **kw)
    new = _fit("0.34.0", spec, **kw)
    assert new.fits and any("builds its layers in the target's TP group" in a for a in new.assumptions)
    same = _fit("0.34.0", dict(spec, draft_tensor_parallel_size=4), **kw)
    assert new.weights_bytes == same.weights_bytes and new.kv_cache_bytes == same.kv_cache_bytes
    with pytest.raises(RefusedByVLLMError, match="cannot be other value than 1 or target"):
        _fit("0.34.0", dict(spec, draft_tensor_parallel_size=3), **kw)


@pytest.mark.parametrize("version", ["0.31.0", "0.32.0", "0.33.0"])
def test_draft_model_tp_refused_on_runner_v1_only(tmp_path, version):
    # "Currently, 'draft_tensor_parallel_size' and 'tensor_parallel_size' must be the same" is raised by
    # v1/spec_decode/draft_model.py DraftModelProposer._raise_if_draft_tp_mismatch, which only model runner v1
    # builds (v1/worker/gpu_model_runner.py, 0.31.0-0.33.0 wheels). From 0.31 a draft model runs on model runner v2 by
    # default (rules row mrv2_v1_spec_methods), whose draft-model speculator (v1/worker/gpu/spec_decode/
    # draft_model/speculator.py 0.31.0, standalone_ar/speculator.py 0.32.0/0.33.0, load_draft_model) checks no TP;
    # config/speculative.py _verify_and_get_draft_tp accepts 1. Was: refused on every runner up to 0.33.
    from kvplan.resolve import resolve_model

    draft = tmp_path / "qwen3-0.6b"
    draft.mkdir()
    (draft / "config.json").write_text(json.dumps(resolve_model("Qwen/Qwen3-0.6B").raw_config))
    spec = {"method": "draft_model", "model": str(draft), "num_speculative_tokens": 4, "draft_tensor_parallel_size": 1}
    kw = dict(model="Qwen/Qwen3-32B", tensor_parallel_size=4, max_model_len=16384)
    v2 = _fit(version, spec, **kw)
    assert v2.fits and any("builds its layers in the target's TP group" in a for a in v2.assumptions)
    same = _fit(version, dict(spec, draft_tensor_parallel_size=4), **kw)
    assert v2.weights_bytes == same.weights_bytes and v2.kv_cache_bytes == same.kv_cache_bytes
    with pytest.raises(RefusedByVLLMError, match="must be the same. Got 1 and 4"):
        _fit(version, spec, env=(("VLLM_USE_V2_MODEL_RUNNER", "0"),), **kw)
    with pytest.raises(RefusedByVLLMError, match="must be the same. Got 1 and 4"):
        _fit("0.30.0", spec, **kw)  # model runner v1 is 0.30's default for a draft model
    with pytest.raises(RefusedByVLLMError, match="cannot be other value than 1 or target"):
        _fit(version, dict(spec, draft_tensor_parallel_size=3), **kw)  # _verify_and_get_draft_tp, either runner


def test_pixtral_tower_without_mask_in_033_and_034():
    # models/pixtral.py in the 0.33.0 and 0.34.0 wheels attends through MMEncoderAttention over packed patches
    # (cu_seqlens), no patches x patches mask: the encoder peak loses the mask 0.12-0.19 charged
    from kvplan.plan import EngineArgs, _multimodal_profile_bytes
    from kvplan.resolve import resolve_model
    from kvplan.versions import rules_for

    model = resolve_model("mistralai/Mistral-Small-3.1-24B-Instruct-2503")
    args = EngineArgs(tensor_parallel_size=1, max_model_len=8192, max_num_seqs=1024, max_num_batched_tokens=8192,
                      dtype="bfloat16")
    masked = _multimodal_profile_bytes(model, args, rules_for("0.19.0"), 0)[0]
    for version in ("0.33.0", "0.34.0"):
        extra, note = _multimodal_profile_bytes(model, args, rules_for(version), 0)
        assert masked - extra == 24200 * 24200 * 2 and "packed patches by sequence lengths" in note
    kw = dict(gpu="H100", max_model_len=32768, max_num_batched_tokens=32768)
    assert not kvplan.fit("mistralai/Mistral-Small-3.1-24B-Instruct-2503", vllm_version="0.19.0", **kw).fits
    assert kvplan.fit("mistralai/Mistral-Small-3.1-24B-Instruct-2503", vllm_version="0.34.0", **kw).fits


def test_probabilistic_draft_logits_cached_on_the_gpu(eagle3_head):
    # DraftModelSpeculator's draft logits cache, max_num_seqs x num_speculative_tokens x vocabulary in the head dtype
    # (0.33.0 speculator __init__; 0.34.0 _init_draft_logits -> DraftLogitsCache)
    spec = {"method": "eagle3", "model": eagle3_head, "num_speculative_tokens": 3}
    kw = dict(model="meta-llama/Llama-3.1-8B-Instruct", max_model_len=8192)
    for version in ("0.33.0", "0.34.0"):
        greedy = _fit(version, spec, **kw)
        sampled = _fit(version, dict(spec, draft_sample_method="probabilistic"), **kw)
        assert sampled.activation_peak_bytes - greedy.activation_peak_bytes == 256 * 3 * 128256 * 2
        assert any("cached draft logits" in a for a in _state_note(sampled))
        assert not _state_note(greedy)


def test_suffix_package_note_by_release():
    spec = {"method": "suffix", "num_speculative_tokens": 8}
    assert any("needs the arctic-inference package" in a for a in _fit("0.33.0", spec).assumptions)
    new = _fit("0.34.0", spec).assumptions
    assert any("GPU suffix speculator" in a for a in new) and not any("arctic-inference" in a for a in new)
