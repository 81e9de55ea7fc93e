"""A team serving one base model with many LoRA adapters and/or a speculative drafter: what kvplan plans for the
flags that team passes, checked against vLLM's source release by release (each test names the files read)."""

from __future__ import annotations


import kvplan
from kvplan.resolve import resolve_model

GIB = 1024 ** 3
NEXT = "Qwen/Qwen3-Next-80B-A3B-Instruct"


def test_qwen3_next_mtp_serves_the_one_layer_vllm_builds():
    # Qwen3-Next-80B-A3B's config declares neither num_nextn_predict_layers nor mtp_num_hidden_layers; Qwen3NextMTP
    # reads num_nextn_predict_layers with default 1 (models/qwen3_next_mtp.py 0.10.2-0.33.0), so the model card's
    # --speculative-config '{"method":"qwen3_next_mtp","num_speculative_tokens":2}' starts with one MTP layer
    assert resolve_model(NEXT).mtp_layers == 1
    base = kvplan.fit(NEXT, gpu="H200", tensor_parallel_size=4, max_model_len=32768, vllm_version="0.33.0")
    for version in ("0.10.2", "0.33.0"):
        p = kvplan.fit(NEXT, gpu="H200", tensor_parallel_size=4, max_model_len=32768, vllm_version=version,
                       speculative_config='{"method": "qwen3_next_mtp", "num_speculative_tokens": 2}')
        assert p.fits and p.speculative["method"] == "mtp"
        assert any("1 MTP layer(s) draft 2 token(s)" in n for n in p.assumptions)
        if version == "0.33.0":
            # one full-attention decoder layer with its 512 experts, the fc and norms: 0.77 GiB a rank
            assert 0.7 * GIB < p.weights_bytes - base.weights_bytes < 0.85 * GIB


def _lora_gib(model, version, **kw):
    p = kvplan.fit(model, gpu="H100", max_model_len=8192, vllm_version=version, enable_lora=True, max_loras=8,
                   max_lora_rank=64, **kw)
    note = next(n for n in p.assumptions if n.startswith("--enable-lora:"))
    return p, note


def test_lora_embedding_and_lm_head_slots_only_where_the_class_lists_them():
    # lora/utils.py get_supported_lora_modules takes the class's embedding_modules: Qwen2ForCausalLM lists none
    # (0.10.2-0.33.0), so 8 x rank 64 wraps no 152,064-row embedding or lm_head: 2 x 8 x (152,064 + 3,584) x 64 x 2 B
    qwen2, note = _lora_gib("Qwen/Qwen2.5-7B-Instruct", "0.33.0")
    llama, llama_note = _lora_gib("meta-llama/Llama-3.1-8B-Instruct", "0.33.0")
    assert "not the embedding nor lm_head" in note and "embedding and lm_head" in llama_note
    plain = kvplan.fit("Qwen/Qwen2.5-7B-Instruct", gpu="H100", max_model_len=8192, vllm_version="0.33.0")
    slots = qwen2.weights_bytes - plain.weights_bytes
    layers = 28 * 8 * 64 * 2 * (3 * 3584 + 3584 + 512 + 512 + 3584 + 3584 + 2 * 3584 + 2 * 18944 + 18944 + 3584)
    assert slots == layers  # the decoder layers' slots alone
    # MistralForCausalLM is Llama's class through 0.14.0 and its own, listing none, from 0.15.0; Qwen3 lists both from
    # 0.16.0 (models/mistral.py, qwen3.py in the 0.14.0, 0.15.0 and 0.16.0 wheels)
    m14, _ = _lora_gib("mistralai/Mistral-7B-Instruct-v0.3", "0.14.0")
    m15, n15 = _lora_gib("mistralai/Mistral-7B-Instruct-v0.3", "0.15.0")
    assert m14.weights_bytes - m15.weights_bytes == 8 * 64 * 2 * (2 * 32768 + 2 * 4096) and "MistralForCausalLM lists neither" in n15
    q15, _ = _lora_gib("Qwen/Qwen3-8B", "0.15.0")
    q16, n16 = _lora_gib("Qwen/Qwen3-8B", "0.16.0")
    assert q16.weights_bytes - q15.weights_bytes == 8 * 64 * 2 * (2 * 151936 + 2 * 4096) and "embedding and lm_head)" in n16
