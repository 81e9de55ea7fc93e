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
