"""--kv-cache-dtype fp8_e5m2 with a compressed-tensors checkpoint that declares no kv_cache_scheme: refused up to vLLM
0.23 (every Attention gets CompressedTensorsKVCacheMethod, and Attention.__init__ refuses e5m2 for any KV method),
kept from 0.24.0 (the weight-only exemption); versions.py "ct_e5m2_refused_without_kv_scheme"."""
import json

import pytest

import kvplan
from kvplan.versions import rules_for

W4A16 = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
    "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32, "vocab_size": 128256,
    "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 500000.0, "torch_dtype": "bfloat16",
    "tie_word_embeddings": False,
    "quantization_config": {
        "quant_method": "compressed-tensors", "format": "pack-quantized", "ignore": ["lm_head"], "kv_cache_scheme": None,
        "config_groups": {"group_0": {"targets": ["Linear"], "input_activations": None, "output_activations": None,
                                      "weights": {"num_bits": 4, "type": "int", "symmetric": True, "strategy": "group",
                                                  "group_size": 128, "dynamic": False, "actorder": None}}}},
}


def _write(tmp_path, kv_scheme=None):
    cfg = json.loads(json.dumps(W4A16))
    cfg["quantization_config"]["kv_cache_scheme"] = kv_scheme
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    return str(tmp_path)


def test_release_row():
    assert rules_for("0.23.0").ct_e5m2_refused_without_kv_scheme
    assert not rules_for("0.24.0").ct_e5m2_refused_without_kv_scheme


@pytest.mark.parametrize("version", ["0.12.0", "0.23.0"])
def test_refused_up_to_0_23(tmp_path, version):
    p = kvplan.fit(_write(tmp_path), gpu="A100", max_model_len=8192, kv_cache_dtype="fp8_e5m2", vllm_version=version)
    assert not p.fits
    assert p.error.startswith("fp8_e5m2 kv-cache is not supported with fp8 checkpoints.")
    assert "from 0.24.0" in p.error


@pytest.mark.parametrize("version", ["0.24.0", "0.33.0"])
def test_kept_from_0_24(tmp_path, version):
    p = kvplan.fit(_write(tmp_path), gpu="A100", max_model_len=8192, kv_cache_dtype="fp8_e5m2", vllm_version=version)
    assert p.fits and p.kv_cache_tokens > 100_000


def test_a_declared_kv_scheme_is_refused_in_every_release(tmp_path):
    scheme = {"num_bits": 8, "type": "float", "strategy": "tensor", "dynamic": False, "symmetric": True}
    p = kvplan.fit(_write(tmp_path, scheme), gpu="H100", max_model_len=8192, kv_cache_dtype="fp8_e5m2",
                   vllm_version="0.33.0")
    assert not p.fits and p.error.startswith("fp8_e5m2 kv-cache is not supported")


def test_auto_kv_cache_is_untouched(tmp_path):
    p = kvplan.fit(_write(tmp_path), gpu="A100", max_model_len=8192, vllm_version="0.23.0")
    assert p.fits
