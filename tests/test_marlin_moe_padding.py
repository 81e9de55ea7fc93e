"""Marlin's fused MoE pads the experts' per-rank intermediate size to its thread tiles from 0.25.0: a size that is no
multiple of 64 is zero-padded at weight prep to a multiple of lcm(64, group size), weights, scales and zero points
alike (quantization/utils/marlin_utils.py marlin_moe_padded_intermediate; fused_moe/oracle/int_wna16.py
_process_weights_marlin; marlin_utils_fp8.py prepare_fp8_moe_layer_for_marlin; 0.25.0-0.33.0 wheels). Before, such a
layer failed check_moe_marlin_supports_layer and ran the Moe WNA16 method on the checkpoint's own shapes (versions.py
marlin_moe_tile_pad)."""
import copy
import math

import pytest

from kvplan.api import fit
from kvplan.plan import marlin_moe_experts
from kvplan.resolve import find_gpu, normalize, resolve_model
from kvplan.versions import rules_for
from kvplan.weights import marlin_moe_width

MODEL = "Qwen/Qwen3-30B-A3B"  # moe_intermediate_size 768: 96 per rank at TP 8, 192 at TP 4


def _ct(weights: dict, activations: dict | None, ignore=("lm_head", "re:.*mlp.gate$")):
    """Qwen3-30B-A3B as llm-compressor writes it (RedHatAI's -FP8-dynamic / -quantized.w4a16 configs): one group
    targeting Linear, the router and lm_head ignored."""
    raw = copy.deepcopy(resolve_model(MODEL).raw_config)
    raw["quantization_config"] = {
        "quant_method": "compressed-tensors", "quantization_status": "compressed",
        "format": "float-quantized" if weights["type"] == "float" else "pack-quantized",
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": weights, "input_activations": activations}},
        "ignore": list(ignore)}
    return normalize(raw, model_id="test/Qwen3-30B-A3B-ct", source="test")


FP8_DYNAMIC = _ct({"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": True, "dynamic": False},
                  {"num_bits": 8, "type": "float", "strategy": "token", "symmetric": True, "dynamic": True})


def _w4a16(group_size, actorder=None):
    return _ct({"num_bits": 4, "type": "int", "strategy": "group" if group_size else "channel", "group_size": group_size,
                "symmetric": True, "dynamic": False, "actorder": actorder}, None)


def _experts(p) -> int:
    return dict(p.weights_by_use)["experts"]


def test_the_padded_width_is_vllms():
    # lcm(64, group): 96 -> 128 per channel or in groups of 32; a group the size is no multiple of is refused (kept)
    assert marlin_moe_width(96, 2048, -1) == 128
    assert marlin_moe_width(96, 2048, 32) == 128
    assert marlin_moe_width(96, 2048, 128) == 96           # 96 % 128: the Moe WNA16 fallback, unpadded
    assert marlin_moe_width(96, 2048, 128, checked=False) == 128  # FP8 pads without asking
    assert marlin_moe_width(192, 2048, -1) == 192          # aligned: nothing to pad
    assert marlin_moe_width(96, 2000, -1) == 96            # hidden no multiple of 128: not Marlin
    assert marlin_moe_width(352, 4096, 32) == 384          # GLM-4.5-Air / DeepSeek-V2-Lite's 1408 at TP 4


def test_a_group_marlin_moe_refuses_is_not_padded():
    """check_moe_marlin_supports_config takes groups of -1, 32, 64 and 128 only (supports_group_size, 0.28.0, 0.29.0
    and 0.33.0 wheels): groups of 16 divide 96, yet the layer runs the Moe WNA16 method on its own 96-wide shapes."""
    assert marlin_moe_width(96, 2048, 16) == 96
    assert marlin_moe_width(96, 2048, 16, checked=False) == 128  # FP8's unasked padding keeps lcm(64, 16)
    a100 = find_gpu("A100")
    m = _w4a16(16)
    before = fit(m, a100, tensor_parallel_size=8, vllm_version="0.24.0")
    after = fit(m, a100, tensor_parallel_size=8, vllm_version="0.33.0")
    assert _experts(after) == pytest.approx(_experts(before), rel=1e-9)
    assert not any("padded 96 -> 128" in n for n in after.assumptions)


def test_fp8_experts_on_an_a100_are_padded_from_0_25():
    """FP8 weight-only Marlin (A100: no FP8 compute) at TP 8 holds each expert 128 wide, not 96, from 0.25.0."""
    before = fit(FP8_DYNAMIC, "A100", tensor_parallel_size=8, vllm_version="0.24.0")
    for version in ("0.25.0", "0.33.0"):
        after = fit(FP8_DYNAMIC, "A100", tensor_parallel_size=8, vllm_version=version)
        assert _experts(after) == pytest.approx(_experts(before) * 128 / 96, rel=1e-9)
        assert after.weights_bytes - before.weights_bytes == pytest.approx(_experts(before) / 3, abs=2)
        assert any("padded 96 -> 128" in n for n in after.assumptions)
    # native FP8 (H100) runs other kernels; TP 4 (192 per rank) is aligned
    assert _experts(fit(FP8_DYNAMIC, "H100", tensor_parallel_size=8, vllm_version="0.33.0")) == pytest.approx(
        _experts(fit(FP8_DYNAMIC, "H100", tensor_parallel_size=8, vllm_version="0.24.0")), rel=1e-9)
    assert (fit(FP8_DYNAMIC, "A100", tensor_parallel_size=4, vllm_version="0.33.0").weights_bytes
            == fit(FP8_DYNAMIC, "A100", tensor_parallel_size=4, vllm_version="0.24.0").weights_bytes)


def test_int4_experts_pad_where_the_group_allows():
    a100 = find_gpu("A100")
    for group, padded in ((None, True), (32, True), (128, False)):
        m = _w4a16(group)
        before = fit(m, a100, tensor_parallel_size=8, vllm_version="0.24.0")
        after = fit(m, a100, tensor_parallel_size=8, vllm_version="0.25.0")
        assert marlin_moe_experts(m, a100, rules_for("0.25.0"), m.quant) == (group or -1, True)
        ratio = _experts(after) / _experts(before)
        assert ratio == pytest.approx(128 / 96 if padded else 1.0, rel=1e-9), group
    # expert parallelism holds whole experts (768 wide): aligned
    m = _w4a16(32)
    assert (fit(m, a100, tensor_parallel_size=8, enable_expert_parallel=True, vllm_version="0.33.0").weights_bytes
            == fit(m, a100, tensor_parallel_size=8, enable_expert_parallel=True, vllm_version="0.24.0").weights_bytes)


def test_act_order_keeps_the_strict_check_until_0_30():
    a100 = find_gpu("A100")
    m = _w4a16(32, actorder="group")
    assert marlin_moe_experts(m, a100, rules_for("0.29.0"), m.quant) is None
    assert marlin_moe_experts(m, a100, rules_for("0.30.0"), m.quant) == (32, True)
    at29 = fit(m, a100, tensor_parallel_size=8, vllm_version="0.29.0")
    at30 = fit(m, a100, tensor_parallel_size=8, vllm_version="0.30.0")
    assert _experts(at30) == pytest.approx(_experts(at29) * 128 / 96, rel=1e-9)


def test_no_marlin_moe_no_padding():
    rules = rules_for("0.33.0")
    # Blackwell 10.x: FlashInfer TRTLLM's MXINT4 experts take symmetric int4 in groups of 32
    m = _w4a16(32)
    assert marlin_moe_experts(m, find_gpu("B200"), rules, m.quant) is None
    # integer weights with input activations (W8A8) run another MoE method
    w8a8 = _ct({"num_bits": 8, "type": "int", "strategy": "channel", "symmetric": True, "dynamic": False},
               {"num_bits": 8, "type": "int", "strategy": "token", "symmetric": True, "dynamic": True})
    assert marlin_moe_experts(w8a8, find_gpu("A100"), rules, w8a8.quant) is None
    # a release without the padding
    assert marlin_moe_experts(m, find_gpu("A100"), rules_for("0.24.0"), m.quant) is None
    # unquantized experts (all listed) run UnquantizedFusedMoEMethod: not padded
    kept = _ct({"num_bits": 4, "type": "int", "strategy": "group", "group_size": 32, "symmetric": True},
               None, ignore=("lm_head", "re:.*mlp.gate$", "re:.*mlp\\.experts\\..*"))
    a = fit(kept, "A100", tensor_parallel_size=8, vllm_version="0.24.0")
    b = fit(kept, "A100", tensor_parallel_size=8, vllm_version="0.33.0")
    assert _experts(a) == _experts(b) and math.isclose(a.weights_bytes, b.weights_bytes, rel_tol=1e-12)


def test_gptq_act_order_is_read_as_auto_gptq_reads_it():
    """AutoGPTQConfig reads desc_act with one group per channel as no act order, and takes symmetric weights only
    (auto_gptq.py, 0.25.0): desc_act in groups of 32 keeps the strict check until 0.30.0, per channel it pads."""
    a100, raw = find_gpu("A100"), copy.deepcopy(resolve_model(MODEL).raw_config)

    def gptq(**qc):
        return normalize(dict(raw, quantization_config=dict({"quant_method": "gptq", "bits": 4, "sym": True}, **qc)),
                         model_id="test/Qwen3-30B-A3B-GPTQ", source="test")
    grouped, channel = gptq(group_size=32, desc_act=True), gptq(group_size=-1, desc_act=True)
    assert marlin_moe_experts(grouped, a100, rules_for("0.29.0"), grouped.quant) is None
    assert marlin_moe_experts(grouped, a100, rules_for("0.30.0"), grouped.quant) == (32, True)
    assert marlin_moe_experts(channel, a100, rules_for("0.29.0"), channel.quant) == (-1, True)
    asym = gptq(group_size=32, desc_act=False, sym=False)
    assert marlin_moe_experts(asym, a100, rules_for("0.33.0"), asym.quant) is None
