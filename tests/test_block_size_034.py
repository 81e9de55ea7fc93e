"""vLLM 0.34.0's 64-token default block (versions.py rows default_block_size, rocm_attn_preferred_block_size,
rocm_triton_first_gfx): CacheConfig.DEFAULT_BLOCK_SIZE went 16 -> 64 (config/cache.py), and a start without
--block-size takes the attention backend's get_preferred_block_size(64) (platforms/interface.py
update_block_size_for_backend): 64 for FLASH_ATTN, FLASHINFER, the MLA backends of Hopper and Blackwell; 16 for ROCm's
ROCM_ATTN (rocm_attn.py); the hybrid attention block aligns to 64 (interface.py _align_hybrid_block_size)."""
from __future__ import annotations

import kvplan
from kvplan.plan.kv import cdiv
from kvplan.versions import rules_for

QWEN3 = "Qwen/Qwen3-8B"
NEXT = "Qwen/Qwen3-Next-80B-A3B-Instruct"
LITE = "deepseek-ai/DeepSeek-V2-Lite"


def _fit(model, gpu, version, **kw):
    kw.setdefault("max_model_len", 8192)
    return kvplan.fit(model, gpu, vllm_version=version, **kw)


def test_the_rows_step_at_0_34():
    assert rules_for("0.33.0").default_block_size == 16 and rules_for("0.34.0").default_block_size == 64
    assert rules_for("0.33.0").rocm_attn_preferred_block_size == 0
    assert rules_for("0.34.0").rocm_attn_preferred_block_size == 16
    assert rules_for("0.34.0").rocm_triton_first_gfx == ("gfx1100", "gfx1201")


def test_a_dense_model_on_nvidia_takes_64_token_blocks():
    # (the estimate's pool on both: 0.34's extensible KV cache sizes another pool, which the block size does not move)
    old = _fit(QWEN3, "H100", "0.33.0")
    new = _fit(QWEN3, "H100", "0.34.0", enable_extensible_kv_cache=False, gpu_memory_utilization=0.92)
    assert old.block_size == 16 and new.block_size == 64
    assert new.bytes_per_block == 4 * old.bytes_per_block
    # the same pool in four times fewer, four times larger blocks
    assert new.kv_cache_bytes == old.kv_cache_bytes
    assert new.num_gpu_blocks == new.kv_cache_bytes // new.bytes_per_block
    assert abs(new.num_gpu_blocks - old.num_gpu_blocks / 4) <= 1
    assert any("default block size 64" in a for a in new.assumptions)
    for gpu in ("A100-80GB", "L4", "B200", "RTX 4090"):
        assert _fit(QWEN3, gpu, "0.34.0").block_size == 64, gpu


def test_a_given_block_size_is_kept():
    p = _fit(QWEN3, "H100", "0.34.0", block_size=16)
    assert p.block_size == 16 and p.bytes_per_block == _fit(QWEN3, "H100", "0.33.0").bytes_per_block


def test_mla_takes_64_on_hopper_and_blackwell():
    assert _fit(LITE, "H100", "0.33.0").block_size == 16  # FLASH_ATTN_MLA keeps 0.33's default
    assert _fit(LITE, "B200", "0.33.0").block_size == 32  # FLASHINFER_MLA's smallest, 16 unsupported
    for gpu in ("H100", "B200", "A100-80GB"):
        assert _fit(LITE, gpu, "0.34.0").block_size == 64, gpu


def test_rocm_attn_keeps_16_on_instinct_and_triton_takes_64_on_navi():
    assert _fit(QWEN3, "MI300X", "0.34.0").block_size == 16
    assert _fit(QWEN3, "MI300X", "0.34.0").bytes_per_block == _fit(QWEN3, "MI300X", "0.33.0").bytes_per_block
    assert _fit("Qwen/Qwen3-4B", "RX 7900 XTX", "0.34.0", max_model_len=4096).block_size == 64
    assert _fit("Qwen/Qwen3-4B", "RX 7900 XTX", "0.33.0", max_model_len=4096).block_size == 16
    # fp8_e5m2 keeps ROCM_ATTN first there
    assert _fit("Qwen/Qwen3-4B", "RX 7900 XTX", "0.34.0", max_model_len=4096,
                kv_cache_dtype="fp8_e5m2").block_size == 16


def test_the_hybrid_attention_block_aligns_to_64():
    # (0.33 without prefix caching: on a 16 grid; with it, GDN's 64-token checkpoint grid already gives 576 there)
    old = _fit(NEXT, "H200", "0.33.0", max_model_len=32768, tensor_parallel_size=2, enable_prefix_caching=False)
    new = _fit(NEXT, "H200", "0.34.0", max_model_len=32768, tensor_parallel_size=2)
    old_bs = min(g.block_size for g in old.groups)
    new_bs = min(g.block_size for g in new.groups)
    assert old_bs % 16 == 0 and new_bs % 64 == 0
    # the smallest multiple of 64 whose page holds one sequence's recurrent state (the page per token unchanged)
    per_token = next(g for g in old.groups if g.kind != "recurrent").page_bytes // old_bs
    state_bytes = 548_864  # one sequence's GDN conv + SSM state per rank at TP 2 (the plan's hybrid note)
    assert any(f"recurrent state ({state_bytes:,} B)" in a for a in new.assumptions)
    assert (old_bs, new_bs) == (16 * cdiv(state_bytes, 16 * per_token), 64 * cdiv(state_bytes, 64 * per_token))
    assert (old_bs, new_bs) == (544, 576)
    assert next(g for g in new.groups if g.kind == "recurrent").page_bytes == new_bs * per_token
    assert any("Padding mamba page size by 7.46%" in w for w in new.warnings)
