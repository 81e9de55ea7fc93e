"""Dense Marlin thread-tile padding (versions.py marlin_dense_tile_pad, from vLLM 0.24.0: marlin_utils.py
marlin_padded_nk, applied by MarlinLinearKernel.process_weights_after_loading and prepare_fp8_layer_for_marlin)."""

from __future__ import annotations

from dataclasses import replace

import kvplan
from kvplan.plan.kv import marlin_dense_group, rank_weights
from kvplan.resolve import QuantSpec
from kvplan.versions import first_release_where
from kvplan.weights import bytes_per_quantized_param, marlin_dense_pad

# compressed-tensors W4A16 per channel (strategy "channel", no input activations: a WNA16 scheme)
CT_CHANNEL = QuantSpec("compressed-tensors", 4, None, "int4 (compressed-tensors)", weight_only=True, zero_points=False)


def test_marlin_padded_nk_takes_the_cheaper_tile_family():
    # (N % 64, K % lcm(128, g)) or (N % 128, K % lcm(64, g)): an aligned shape is kept, K = 1376 per channel pads to
    # 1408 in both families (the first kept on a tie), N = 2752 = 43 x 64 with K = 2048 fits the first family
    assert marlin_dense_pad(2048, 1376, -1) == (2048, 1408)
    assert marlin_dense_pad(2752, 2048, -1) == (2752, 2048)
    assert marlin_dense_pad(2112, 2816, 32) == (2112, 2816)
    # N = 96 (not a multiple of 64 after 64: 96 % 64 = 32) with K = 64: (128, 128) vs (128, 64), the second smaller
    assert marlin_dense_pad(96, 64, -1) == (128, 64)
    # group 96: K = 150 rounded to lcm(128, 96) = 384 or to lcm(64, 96) = 192, N = 128 fitting both: the second
    assert marlin_dense_pad(128, 150, 96) == (128, 192)
    assert first_release_where("marlin_dense_tile_pad", lambda v: v) == "0.24.0"


def _rank_bytes(version: str, quant: QuantSpec = CT_CHANNEL, gpu: str = "A100-80GB") -> tuple[int, object]:
    # Qwen2.5-3B at TP 8: I = 11008, 1376 per rank; down_proj K = 1376 takes neither 128 nor 64 (1376 % 64 = 32)
    p = kvplan.fit("Qwen/Qwen2.5-3B-Instruct", gpu, vllm_version=version, max_model_len=4096, tensor_parallel_size=8,
                   fixes=False)
    model = replace(p.model, quant=quant)
    w = rank_weights(model, p.gpu, p.args, p.rules, quant)
    assert any("marlin_padded_nk" in n for n in w.notes) is (w.bytes != _unpadded(model, p, quant))
    return w.bytes, model


def _unpadded(model, p, quant) -> int:
    return rank_weights(model, p.gpu, p.args, replace(p.rules, marlin_dense_tile_pad=False), quant).bytes


def test_a_misaligned_down_proj_is_held_padded_from_0_24():
    before, model = _rank_bytes("0.23.0")
    after, _ = _rank_bytes("0.24.0")
    # every layer's down_proj (N = H = 2048) grows from K = 1376 to 1408 on the rank: 32 more columns of int4
    assert model.intermediate_size // 8 == 1376 and model.hidden_size == 2048
    assert after - before == model.num_layers * 2048 * (1408 - 1376) * bytes_per_quantized_param(CT_CHANNEL)


def test_act_order_group_straddle_and_fp8_compute_keep_the_checkpoint_shape():
    p = kvplan.fit("Qwen/Qwen2.5-3B-Instruct", "A100-80GB", vllm_version="0.24.0", max_model_len=4096,
                   tensor_parallel_size=8, fixes=False)
    assert marlin_dense_group(replace(p.model, quant=CT_CHANNEL), p.gpu, p.rules, CT_CHANNEL) == -1
    # group 128: K = 1376 per rank splits a group, which MarlinLinearKernel.can_implement refuses (no padding)
    g128 = replace(CT_CHANNEL, group_size=128)
    assert _rank_bytes("0.24.0", g128)[0] == _rank_bytes("0.23.0", g128)[0]
    # FP8 on a GPU with FP8 compute (H100) runs no Marlin: per-tensor FP8 unpadded; on an A100 it pads
    fp8 = QuantSpec("fp8", 8, None, "fp8 per-tensor")
    assert _rank_bytes("0.24.0", fp8, "H100")[0] == _rank_bytes("0.23.0", fp8, "H100")[0]
    assert _rank_bytes("0.24.0", fp8)[0] > _rank_bytes("0.23.0", fp8)[0]
    # a GPTQ act-order checkpoint keeps the strict check (has_g_idx): no dense padding
    gptq = QuantSpec("gptq", 4, 128, "int4 w4a16 group 128")
    cfg = dict(p.model.raw_config, quantization_config={"quant_method": "gptq", "bits": 4, "group_size": 128,
                                                         "desc_act": True, "sym": True})
    assert marlin_dense_group(replace(p.model, quant=gptq, raw_config=cfg), p.gpu, p.rules, gptq) is None
