"""Whisper (WhisperForConditionalGeneration): the decoder's self-attention and cross-attention KV cache, the weight
count, and the releases that plan it (vLLM whisper.py, v1/kv_cache_interface.py CrossAttentionSpec)."""
import json
import math

import pytest

import kvplan
from kvplan.errors import ConfigError, InputError
from kvplan.resolve import normalize
from kvplan.weights import count_weights

# openai/whisper-large-v3's config.json (the architecture fields)
LARGE_V3 = {
    "architectures": ["WhisperForConditionalGeneration"], "model_type": "whisper", "is_encoder_decoder": True,
    "d_model": 1280, "encoder_layers": 32, "decoder_layers": 32, "num_hidden_layers": 32,
    "encoder_attention_heads": 20, "decoder_attention_heads": 20, "encoder_ffn_dim": 5120, "decoder_ffn_dim": 5120,
    "max_source_positions": 1500, "max_target_positions": 448, "max_length": 448, "num_mel_bins": 128,
    "vocab_size": 51866, "torch_dtype": "float16", "scale_embedding": False, "use_cache": True,
}
TURBO = {**LARGE_V3, "decoder_layers": 4}


def _config(tmp_path, cfg, name="whisper"):
    path = tmp_path / name / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps(cfg))
    return str(path)


def _spec(cfg):
    return normalize(cfg, model_id="whisper", source="test", autoconfig=False)


def test_decoder_shape_is_read_from_the_decoder_fields():
    spec = _spec(LARGE_V3)
    assert (spec.num_layers, spec.num_attention_heads, spec.num_kv_heads, spec.head_dim) == (32, 20, 20, 64)
    assert spec.max_position_embeddings == 448 and spec.dtype == "float16" and spec.is_encoder_decoder
    kinds = [l.kind for l in spec.layers]
    assert kinds.count("full") == 32 and kinds.count("cross") == 32
    assert {l.encoder_len for l in spec.layers if l.kind == "cross"} == {1500}


def test_weights_match_the_published_sizes():
    # openai's model card: large-v3 1550M parameters; large-v3-turbo (4 decoder layers) 809M
    big, turbo = count_weights(_spec(LARGE_V3)), count_weights(_spec(TURBO))
    assert 1.53e9 < big.total_params < 1.56e9
    assert 0.80e9 < turbo.total_params < 0.82e9
    # the 28 decoder layers apart: self-attention, cross-attention (4 d^2 + 4 d each), MLP, three LayerNorms
    d, ffn = 1280, 5120
    assert big.total_params - turbo.total_params == 28 * (2 * (4 * d * d + 4 * d) + 2 * d * ffn + ffn + d + 6 * d)
    assert big.total_bytes == 2 * big.total_params


def test_missing_decoder_field_is_refused():
    cfg = {k: v for k, v in LARGE_V3.items() if k != "decoder_attention_heads"}
    with pytest.raises(ConfigError, match="decoder_attention_heads"):
        _spec(cfg)


def _blocks_per_request(p, enc_tokens):
    bs = p.groups[0].block_size
    return math.ceil(p.args.max_model_len / bs) + math.ceil(enc_tokens / bs)


@pytest.mark.parametrize("gpu", ["L4", "H100"])
def test_v0_11_cross_attention_holds_the_encoder_length(tmp_path, gpu):
    p = kvplan.fit(_config(tmp_path, LARGE_V3), gpu, vllm_version="0.11.0", fixes=False)
    per_token = 2 * 32 * 20 * 64 * 2          # K and V, 32 decoder layers, 20 heads of 64, float16
    assert p.kv_bytes_per_token == per_token
    assert p.args.max_model_len == 448
    kinds = sorted(g.kind for g in p.groups)
    assert kinds == ["cross", "full"] and all(g.num_layers == 32 for g in p.groups)
    bs = p.groups[0].block_size
    assert p.state_bytes_per_sequence == math.ceil(1500 / bs) * bs * per_token
    # one block: one page in each of the 32 layer slots; the two groups share the pool
    assert p.bytes_per_block == 32 * bs * 2 * 20 * 64 * 2
    assert p.kv_cache_tokens == p.num_gpu_blocks // 2 * bs
    assert p.max_concurrency == pytest.approx(p.num_gpu_blocks / _blocks_per_request(p, 1500), abs=0.01)


def test_v0_34_cross_attention_holds_max_num_batched_tokens(tmp_path):
    p = kvplan.fit(_config(tmp_path, LARGE_V3), "H100", vllm_version="0.34.0", fixes=False)
    assert p.kv_bytes_per_token == 2 * 32 * 20 * 64 * 2
    n = p.args.max_num_batched_tokens
    assert n != 1500
    assert p.max_concurrency == pytest.approx(p.num_gpu_blocks / _blocks_per_request(p, n), abs=0.01)
    # and a smaller batch budget shrinks each request's cross-attention share
    q = kvplan.fit(_config(tmp_path, LARGE_V3, "b"), "H100", vllm_version="0.34.0", max_num_batched_tokens=2048,
                   fixes=False)
    assert q.max_concurrency == pytest.approx(q.num_gpu_blocks / _blocks_per_request(q, 2048), abs=0.01)
    assert q.max_concurrency > p.max_concurrency


def test_turbo_has_fewer_kv_layers(tmp_path):
    p = kvplan.fit(_config(tmp_path, TURBO), "L4", vllm_version="0.11.0", fixes=False)
    assert p.kv_bytes_per_token == 2 * 4 * 20 * 64 * 2
    assert all(g.num_layers == 4 for g in p.groups)


def test_v0_release_is_refused(tmp_path):
    with pytest.raises(InputError, match="V0"):
        kvplan.fit(_config(tmp_path, LARGE_V3), "H100", vllm_version="0.10.1", fixes=False)


@pytest.mark.parametrize("version,enc_tokens", [("0.10.2", 1500), ("0.12.0", 1500), ("0.13.0", None)])
def test_cross_attention_length_by_release(tmp_path, version, enc_tokens):
    p = kvplan.fit(_config(tmp_path, LARGE_V3), "H100", vllm_version=version, fixes=False)
    n = enc_tokens or p.args.max_num_batched_tokens
    assert p.max_concurrency == pytest.approx(p.num_gpu_blocks / _blocks_per_request(p, n), abs=0.01)


@pytest.mark.parametrize("version,given,mode", [
    ("0.11.0", None, "PIECEWISE"),                     # the unset mode: PIECEWISE, not FULL_AND_PIECEWISE
    ("0.11.0", "FULL_AND_PIECEWISE", "FULL_AND_PIECEWISE"),
    ("0.12.0", None, "PIECEWISE"),
    ("0.12.0", "FULL", "PIECEWISE"),
    ("0.34.0", None, "FULL_DECODE_ONLY"),
    ("0.34.0", "PIECEWISE", "FULL_DECODE_ONLY"),
    ("0.34.0", "NONE", None),
])
def test_encoder_decoder_cudagraph_mode(tmp_path, version, given, mode):
    flags = {"compilation_config": json.dumps({"cudagraph_mode": given})} if given else {}
    p = kvplan.fit(_config(tmp_path, LARGE_V3), "H100", vllm_version=version, fixes=False, **flags)
    assert (p.cudagraphs or {}).get("mode") == mode


def test_decoder_only_twin_keeps_the_release_default(tmp_path):
    # the same decoder shape as a decoder-only model keeps 0.34.0's FULL_AND_PIECEWISE
    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 1280, "num_hidden_layers": 32,
           "num_attention_heads": 20, "intermediate_size": 5120, "vocab_size": 51866, "max_position_embeddings": 448,
           "torch_dtype": "float16"}
    p = kvplan.fit(_config(tmp_path, cfg, "llama"), "H100", vllm_version="0.34.0", fixes=False)
    assert p.cudagraphs["mode"] == "FULL_AND_PIECEWISE"


@pytest.mark.parametrize("version,what", [("0.11.0", "the encoder length"), ("0.34.0", "max_num_batched_tokens")])
def test_explain_names_the_cross_attention_share(tmp_path, version, what):
    p = kvplan.fit(_config(tmp_path, LARGE_V3), "L4", vllm_version=version, fixes=False)
    term = next(t for t in p.terms if t.name == "blocks_per_request")
    enc = 1500 if version == "0.11.0" else p.args.max_num_batched_tokens
    assert f"cdiv({enc:,}, {p.groups[0].block_size})" in term.formula and what in term.formula


def test_pipeline_parallelism_is_refused_as_vllm_does(tmp_path):
    with pytest.raises(InputError, match="Pipeline parallelism is not supported for this model"):
        kvplan.fit(_config(tmp_path, LARGE_V3), "2x H100", vllm_version="0.34.0", pipeline_parallel_size=2,
                   fixes=False)


# vLLM's batch defaults for `vllm serve` (engine/arg_utils.py): 2048 tokens / 256 sequences below 70 GiB, 8192 / 1024 on
# an H100; Whisper's max_model_len is its 448 decoder positions
_SERVE_DEFAULTS = {"L4": (2048, 256), "H100": (8192, 1024)}


@pytest.mark.parametrize("gpu", ["L4", "H100"])
@pytest.mark.parametrize("version", ["0.11.0", "0.34.0"])
def test_chunked_prefill_and_prefix_caching_are_off(tmp_path, gpu, version):
    from kvplan.plan import prefix_caching_on
    p = kvplan.fit(_config(tmp_path, LARGE_V3), gpu, vllm_version=version, fixes=False)
    tokens, seqs = _SERVE_DEFAULTS[gpu]
    if version == "0.34.0":
        # is_chunked_prefill_supported is False: max(max_model_len, default), at most max_num_seqs x max_model_len
        tokens = min(max(448, tokens), seqs * 448)
    assert p.args.max_num_batched_tokens == tokens
    assert p.args.enable_prefix_caching is False and not prefix_caching_on(p.args, p.rules, False)
    assert any("Encoder-decoder models do not support chunked prefill nor prefix caching; disabling both." in n
               for n in p.assumptions)
    enc = 1500 if version == "0.11.0" else tokens
    bs = p.groups[0].block_size
    cross = next(g for g in p.groups if g.kind == "cross")
    assert cross.num_layers == 32
    # cross-attention bytes per request: the encoder positions charged, whole blocks, K and V of 32 layers
    assert math.ceil(enc / bs) * bs * 2 * 32 * 20 * 64 * 2 == math.ceil(enc / bs) * p.bytes_per_block
    assert p.max_concurrency == pytest.approx(p.num_gpu_blocks / _blocks_per_request(p, enc), abs=0.01)


@pytest.mark.parametrize("version,kept", [("0.11.0", False), ("0.11.1", False), ("0.12.0", True), ("0.34.0", True)])
def test_given_prefix_caching_is_overridden_up_to_0_11_1(tmp_path, version, kept):
    p = kvplan.fit(_config(tmp_path, LARGE_V3), "H100", vllm_version=version, fixes=False, enable_prefix_caching=True,
                   enable_chunked_prefill=True)
    assert p.args.enable_prefix_caching is kept
    note = next(n for n in p.assumptions if "disabling both." in n)
    assert "--enable-chunked-prefill" in note and ("--enable-prefix-caching" in note) is not kept


@pytest.mark.parametrize("version,refused", [("0.11.0", False), ("0.11.1", True), ("0.34.0", True)])
def test_budget_below_max_model_len_is_refused_once_the_scheduler_sees_chunked_prefill_off(tmp_path, version, refused):
    from kvplan.errors import RefusedByVLLMError
    kw = dict(vllm_version=version, fixes=False, max_num_batched_tokens=384, max_num_seqs=128)
    if refused:
        with pytest.raises(RefusedByVLLMError, match=r"max_num_batched_tokens \(384\) is smaller than max_model_len \(448\)"):
            kvplan.fit(_config(tmp_path, LARGE_V3), "H100", **kw)
    else:
        assert kvplan.fit(_config(tmp_path, LARGE_V3), "H100", **kw).args.max_num_batched_tokens == 384


def test_decoder_only_twin_keeps_prefix_caching_and_its_budget(tmp_path):
    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 1280, "num_hidden_layers": 32,
           "num_attention_heads": 20, "intermediate_size": 5120, "vocab_size": 51866, "max_position_embeddings": 448,
           "torch_dtype": "float16"}
    p = kvplan.fit(_config(tmp_path, cfg, "llama"), "H100", vllm_version="0.34.0", fixes=False,
                   max_num_batched_tokens=384, max_num_seqs=128)
    assert p.args.enable_prefix_caching is None and not any("disabling both." in n for n in p.assumptions)


@pytest.mark.parametrize("version,written", [("0.11.0", []), ("0.34.0", ["--enable-prefix-caching"])])
def test_serve_sh_leaves_out_the_switches_vllm_overrides(tmp_path, version, written):
    from kvplan.deploy import spec_from_plan
    p = kvplan.fit(_config(tmp_path, LARGE_V3), "H100", vllm_version=version, fixes=False, enable_prefix_caching=True,
                   enable_chunked_prefill=True)
    spec = spec_from_plan(p)
    argv = spec.serve_argv()
    assert [a for a in argv if "prefix-caching" in a or "chunked-prefill" in a] == written
    line = next(l for l in spec.arithmetic if l.startswith("not written"))
    assert "--enable-chunked-prefill" in line and ("--enable-prefix-caching" in line) is not bool(written)


def _mm_note(p):
    return next(w for w in p.assumptions + tuple(p.warnings) if w.startswith("multimodal: the profile run encodes"))


@pytest.mark.parametrize("version,batched,items,features_held", [
    ("0.11.0", None, 1, True),      # the encoder budget is the encoder length: one 30 s item whatever the batch budget
    ("0.11.0", 16384, 1, True),
    ("0.13.0", 16384, 10, True),    # from 0.13 the budget is max_num_batched_tokens: 16,384 // 1,500 items
    ("0.34.0", 8192, 5, False),     # the V2 runner keeps no dummy features through the decoder's dummy run
])
def test_profile_run_encodes_the_audio_items_the_encoder_budget_holds(tmp_path, version, batched, items, features_held):
    flags = {"max_num_batched_tokens": batched} if batched else {}
    p = kvplan.fit(_config(tmp_path, LARGE_V3), "H100", vllm_version=version, fixes=False, **flags)
    q = kvplan.fit(_config(tmp_path, LARGE_V3, "skip"), "H100", vllm_version=version, fixes=False,
                   skip_mm_profiling=True, **flags)
    assert f"encodes {items} audio item(s) of 1,500 encoder positions" in _mm_note(p)
    # the decoder's dummy run (sampler over 1,024 sequences) outweighs the encoder: what the pass adds is its
    # outputs, 1,500 x d_model float16 per item, and (up to 0.32) the 3,000 x 128 mel features
    kept = items * 1500 * 1280 * 2 + (items * 3000 * 128 * 2 if features_held else 0)
    assert p.activation_peak_bytes - q.activation_peak_bytes == pytest.approx(kept, abs=2)
    assert q.kv_cache_tokens >= p.kv_cache_tokens


def test_encoder_forward_above_a_small_decoder_peak(tmp_path):
    # a small decoder MLP and few sequences: the encoder's forward is the peak (0.11.0, one item)
    cfg = {**LARGE_V3, "decoder_ffn_dim": 1280}
    p = kvplan.fit(_config(tmp_path, cfg), "L4", vllm_version="0.11.0", fixes=False, max_num_seqs=8)
    q = kvplan.fit(_config(tmp_path, cfg, "skip"), "L4", vllm_version="0.11.0", fixes=False, max_num_seqs=8,
                   skip_mm_profiling=True)
    d, ffn, n = 1280, 5120, 1500
    # per position, float16: the mel features (2 frames x 128 bins), the residual, and the MLP block (residual, norm,
    # fc1's output, its GELU and fc2's output: 3 d + 2 ffn), the larger of it and the attention block (3 d + 4 d)
    encoder = n * (2 * 2 * 128 + 2 * (d + max(3 * d + 2 * ffn, 3 * d + 4 * d)))
    assert encoder > q.activation_peak_bytes
    assert p.activation_peak_bytes == pytest.approx(encoder, abs=2)


def test_skip_mm_profiling_drops_the_encoder_pass(tmp_path):
    p = kvplan.fit(_config(tmp_path, LARGE_V3), "L4", vllm_version="0.34.0", fixes=False, skip_mm_profiling=True)
    assert not any("a text model has no encoder pass" in a for a in p.assumptions)
    assert any(w.startswith("--skip-mm-profiling: the KV pool takes") and "encodes audio" in w for w in p.warnings)


def test_audio_limit_is_not_called_ignored(tmp_path):
    # WhisperProcessingInfo.get_supported_mm_limits is {"audio": 1}: vLLM reads the audio limit
    p = kvplan.fit(_config(tmp_path, LARGE_V3), "L4", vllm_version="0.11.0", fixes=False,
                   limit_mm_per_prompt='{"audio": 1}')
    assert not any("vLLM ignores the limits" in w for w in p.assumptions + tuple(p.warnings))
    assert "encodes 1 audio item(s)" in _mm_note(p)
