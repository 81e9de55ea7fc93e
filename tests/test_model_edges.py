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
