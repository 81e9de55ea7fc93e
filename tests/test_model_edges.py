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
