"""Model configs at the edges of what vLLM reads: no stated context length, attention-free Mamba models, a quantized
checkpoint that declares its method in two files."""

import json

import pytest

import kvplan
from kvplan.errors import InputError

# mistralai/Mamba-Codestral-7B-v0.1's config.json (its shape keys): a pure Mamba2 model that states no context length
CODESTRAL = {"architectures": ["Mamba2ForCausalLM"], "model_type": "mamba2", "hidden_size": 4096, "num_hidden_layers": 64,
             "num_heads": 128, "head_dim": 64, "n_groups": 8, "state_size": 128, "conv_kernel": 4, "expand": 2,
             "chunk_size": 256, "vocab_size": 32768, "tie_word_embeddings": False, "torch_dtype": "bfloat16"}


def _codestral(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(CODESTRAL))
    return str(path)


def test_a_config_without_a_context_length_takes_the_max_model_len_given(tmp_path):
    # vLLM's _get_and_verify_max_len returns a given max_model_len before it assumes 2048 for a config without one
    p = kvplan.fit(_codestral(tmp_path), "H100", max_model_len=8192, vllm_version="0.11.0", fixes=False)
    assert p.fits and p.args.max_model_len == 8192
    assert any("states no context length" in a for a in p.assumptions)
    # without one, the 2048 vLLM assumes
    assert kvplan.fit(_codestral(tmp_path), "H100", vllm_version="0.11.0", fixes=False).args.max_model_len == 2048
    # a config that states its length still caps what is given
    with pytest.raises(InputError) as exc:
        kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "H100", max_model_len=65536, vllm_version="0.11.0", fixes=False)
    assert exc.value.field == "--max-model-len"


# ModelOpt's two ways of declaring a checkpoint's quantization: config.json's quantization_config (ModelOpt 0.31 on,
# kv_cache_scheme a dict) and the older hf_quant_config.json (kv_cache_quant_algo a string)
_NVFP4_CONFIG_JSON = {"quant_method": "modelopt", "quant_algo": "NVFP4", "producer": {"name": "modelopt"},
                      "ignore": ["lm_head"]}
_FP8_KV_SCHEME = {"dynamic": False, "num_bits": 8, "type": "float"}
_HF_QUANT_FP8_KV = {"producer": {"name": "modelopt"},
                    "quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": "FP8", "group_size": 16}}


def _modelopt_spec(quantization_config, hf_quant_config):
    from kvplan.resolve import normalize, resolve_model

    cfg = dict(resolve_model("meta-llama/Llama-3.1-8B-Instruct").raw_config)
    if quantization_config is not None:
        cfg["quantization_config"] = quantization_config
    return normalize(cfg, model_id="test/llama-nvfp4", source="test", hf_quant_config=hf_quant_config)


@pytest.mark.parametrize("quantization_config, hf_quant_config, kv_dtype", [
    # config.json wins over hf_quant_config.json (vLLM reads the latter only when config.json has none): its KV is
    # not quantized, so --kv-cache-dtype auto keeps the model dtype though hf_quant_config.json says FP8
    (_NVFP4_CONFIG_JSON, _HF_QUANT_FP8_KV, "bfloat16"),
    ({**_NVFP4_CONFIG_JSON, "kv_cache_scheme": None}, _HF_QUANT_FP8_KV, "bfloat16"),
    ({**_NVFP4_CONFIG_JSON, "kv_cache_scheme": _FP8_KV_SCHEME}, None, "fp8"),   # the config.json form of an FP8 KV
    ({**_NVFP4_CONFIG_JSON, "kv_cache_scheme": {**_FP8_KV_SCHEME, "dynamic": True}}, None, "bfloat16"),
    (None, _HF_QUANT_FP8_KV, "fp8"),                                            # hf_quant_config.json alone is read
])
def test_a_modelopt_checkpoints_kv_dtype_is_read_where_vllm_reads_it(quantization_config, hf_quant_config, kv_dtype):
    spec = _modelopt_spec(quantization_config, hf_quant_config)
    assert spec.quant.method == "modelopt" and spec.quant.bits == 4
    p = kvplan.fit(spec, "B200", max_model_len=8192, vllm_version="0.14.1", fixes=False)
    assert (p.args.kv_cache_dtype if p.args.kv_cache_dtype != "auto" else p.args.dtype) == kv_dtype
    assert p.model.quant.hf_quant_config_only == (quantization_config is None)
    both = quantization_config is not None and hf_quant_config is not None
    assert any("hf_quant_config.json is not read" in a for a in p.assumptions) == both


# one Mamba2 layer's state page for Codestral (bf16): conv (k - 1) x (I + 2 G N) + ssm H x P x N, 2 B each
_CODESTRAL_PAGE = (3 * (2 * 4096 + 2 * 8 * 128) + 128 * 64 * 128) * 2


@pytest.mark.parametrize("version, tokens_per_block", [
    ("0.10.2", 16),     # one spec: _get_kv_cache_config_uniform_type logs blocks x the cache's block size
    ("0.11.0", 8192),   # blocks // groups x the group's block size, a Mamba group's being max_model_len
    ("0.20.0", 8192),
    ("0.20.2", 8192),   # int(concurrency x max_model_len) from here on, one page a sequence
    ("0.27.0", 8192),
    ("0.33.0", 8192),
])
def test_an_attention_free_mamba2_models_tokens_and_concurrency_per_release(tmp_path, version, tokens_per_block):
    p = kvplan.fit(_codestral(tmp_path), "H100", max_model_len=8192, vllm_version=version, fixes=False, max_num_seqs=256)
    assert p.fits and len(p.groups) == 1 and p.bytes_per_block == 64 * _CODESTRAL_PAGE
    assert p.num_gpu_blocks == int(p.kv_cache_bytes // p.bytes_per_block)
    # prefix caching is never on by default for an attention-free model: one state page a sequence
    assert p.state_bytes_per_sequence == 64 * _CODESTRAL_PAGE and p.blocks_for_tokens(8192) == 1
    assert p.max_concurrency == p.num_gpu_blocks
    assert p.kv_cache_tokens == p.num_gpu_blocks * tokens_per_block
    assert any(f"GPU KV cache size: {p.kv_cache_tokens:,} tokens" in line for line in p.vllm_log)
    # at H100's default of 1024 sequences, fewer state blocks than sequences: refused from 0.20 (vLLM PR #38270)
    default = kvplan.fit(_codestral(tmp_path), "H100", max_model_len=8192, vllm_version=version, fixes=False)
    assert default.args.max_num_seqs > default.num_gpu_blocks
    assert default.fits == (version < "0.20") and (default.fits or default.failure == "state_blocks")


def test_the_align_mode_checkpoint_page_follows_the_release_and_the_gdn_prefill_kernel(tmp_path):
    # MambaSpec.max_memory_usage_bytes in align mode: 2 + num_prefill_checkpoint_blocks pages per recurrent group
    # (v1/kv_cache_interface.py). Only Kimi-K3's KDA sets the checkpoint block in 0.29.0-0.31.0; the Mamba2 mixer from
    # 0.32.0; Qwen's GDN from 0.33.0 and only with FlashInfer's GDN prefill kernel (SM 9.0, or SM 10.x/12.x with
    # 128-wide keys). A 0.29.0 Qwen3.8-27B start logs 652 blocks and 38.35x at 8,192 tokens: 652 / 17.
    kw = dict(max_model_len=8192, max_num_seqs=256, fixes=False)
    r29 = kvplan.fit("Qwen/Qwen3.8-27B", "NVIDIA RTX PRO 6000 Blackwell", vllm_version="0.29.0", **kw)
    assert r29.blocks_for_tokens(8192) == 11 + 3 * 2
    assert kvplan.fit("Qwen/Qwen3.8-27B", "H100", vllm_version="0.32.0", **kw).blocks_for_tokens(8192) == 11 + 3 * 2
    # (0.33: 10 attention blocks of 832 tokens, the block size on GDN's 64-token checkpoint grid)
    assert kvplan.fit("Qwen/Qwen3.8-27B", "H100", vllm_version="0.33.0", **kw).blocks_for_tokens(8192) == 10 + 3 * 3
    # Ampere runs GDN prefill on Triton/FLA in 0.33 too: no checkpoint page
    assert kvplan.fit("Qwen/Qwen3.8-27B", "A100", vllm_version="0.33.0", **kw).blocks_for_tokens(8192) == 11 + 3 * 2
    # the Mamba2 mixer: 2 pages up to 0.31, 3 from 0.32 (attention-free, prefix caching asked for align mode)
    for version, pages in (("0.31.0", 2), ("0.32.0", 3)):
        r = kvplan.fit(_codestral(tmp_path), "H100", max_model_len=8192, vllm_version=version, fixes=False,
                       enable_prefix_caching=True)
        assert r.blocks_for_tokens(8192) == pages


def test_gdn_prefill_checkpoints_put_the_hybrid_block_size_on_a_64_token_grid():
    # Platform._align_hybrid_block_size (platforms/interface.py, 0.33.0 wheel): in align mode the kernel block alignment
    # (16) takes the lcm with get_mamba_prefill_checkpoint_alignment, 64 for Qwen's GDN layers on FlashInfer's prefill
    # kernel (FLASHINFER_GDN_CHECKPOINT_ALIGNMENT, v1/attention/backends/gdn_attn.py). Qwen3-Next-80B-A3B at TP 2 holds
    # 548,864 B of state per sequence against 1,024 B per attention token: 536 tokens -> 544 on a 16 grid, 576 on 64.
    def block_size(gpu: str, version: str, **kw) -> int:
        plan = kvplan.fit("Qwen/Qwen3-Next-80B-A3B-Instruct", gpu, tensor_parallel_size=2, max_model_len=32768,
                          vllm_version=version, fixes=False, **kw)
        return {g.block_size for g in plan.groups if g.kind == "full"}.pop()

    assert block_size("H200", "0.33.0") == 576
    assert block_size("H200", "0.34.0") == 576
    assert block_size("H200", "0.32.0") == 544  # no checkpoint alignment before 0.33
    assert block_size("A100", "0.33.0") == 544  # Ampere prefills GDN on Triton/FLA: no checkpoints
    assert block_size("H200", "0.33.0", enable_prefix_caching=False) == 544  # mamba_cache_mode "none"


def test_an_attention_free_model_gets_prefix_caching_only_when_asked(tmp_path):
    default = kvplan.fit(_codestral(tmp_path), "H100", max_model_len=8192, vllm_version="0.33.0", fixes=False)
    assert any("attention-free" in a and "prefix caching off" in a for a in default.assumptions)
    asked = kvplan.fit(_codestral(tmp_path), "H100", max_model_len=8192, vllm_version="0.33.0", fixes=False,
                       enable_prefix_caching=True)
    # "align" mode: 2 pages + a prefill checkpoint page for the Mamba2 mixer (0.32 on; mamba_mixer2.py get_kv_cache_spec)
    assert asked.blocks_for_tokens(8192) == 3 and asked.max_concurrency == pytest.approx(asked.num_gpu_blocks / 3)
    # a hybrid still follows the hybrids' default (on from 0.26): Jamba's Mamba layers hold more than one page
    jamba = kvplan.fit("ai21labs/Jamba-v0.1", "H200", max_model_len=8192, vllm_version="0.33.0", fixes=False)
    assert not any("attention-free" in a for a in jamba.assumptions)
