"""Qwen3-Next / Qwen3.5's MTP drafter joins the embedding and the hidden state with mtp.fc, a ColumnParallelLinear
built with the model's quant_config and split over TP (models/qwen3_next_mtp.py 0.11.0-0.33.0, qwen3_5_mtp.py
0.17.1-0.33.0; 0.10.2's Qwen3-Next drafter builds it with no quant_config, versions.py mtp_fc_unquantized): a skip list keeps it 16-bit by naming mtp.fc, and from 0.20.0 (Qwen3.5) / 0.25.0 (Qwen3-Next) a
ModelOpt NVFP4 checkpoint's is built without the quant_config (versions.py mtp_fc_nvfp4_unquantized). DeepSeek's
eh_proj is a plain nn.Linear: replicated and never quantized (deepseek_mtp.py, 0.33.0)."""
import copy
from dataclasses import replace

import pytest

import kvplan
from kvplan.resolve import normalize, resolve_model
from kvplan.versions import rules_for
from kvplan.weights import bytes_per_quantized_param, count_weights, mtp_components, weights_per_rank

MTP1 = '{"method": "mtp", "num_speculative_tokens": 1}'
MODEL = "Qwen/Qwen3.6-35B-A3B"


def _nvfp4(exclude):
    raw = copy.deepcopy(resolve_model(MODEL).raw_config)
    raw["quantization_config"] = {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
                                  "exclude_modules": list(exclude)}
    return normalize(raw, model_id="test/Qwen3.6-35B-A3B-NVFP4", source="test")


def _fc(spec):
    return next(c for c in mtp_components(spec, count_weights(spec)) if c.name == "mtp.eh_proj")


def test_qwen_mtp_fc_is_split_over_tp_and_quantized_unless_listed():
    m = _nvfp4(["lm_head", "re:.*mlp.gate$"])
    fc = _fc(m)
    assert fc.params == 2 * m.hidden_size ** 2 and fc.shard == "tp" and fc.quantizable
    q = bytes_per_quantized_param(m.quant)

    def drafter(spec, tp, **kw):
        return dict(weights_per_rank(spec, tp=tp, mtp=True, **kw).by_use)["drafter"]

    listed = replace(m, quant=replace(m.quant, skip=m.quant.skip + ("mtp.fc",)))
    assert drafter(listed, 1) - drafter(m, 1) == pytest.approx(fc.params * (2 - q), rel=1e-9)
    assert drafter(m, 1, mtp_fc_unquantized=True) == drafter(listed, 1)
    # split over TP: at TP 2 each rank holds half of it
    assert drafter(listed, 2) - drafter(m, 2) == pytest.approx(fc.params / 2 * (2 - q), rel=1e-9)
    # DeepSeek's eh_proj: replicated, never quantized
    ds = _fc(resolve_model("deepseek-ai/DeepSeek-V3"))
    assert ds.shard == "replicated" and not ds.quantizable


def test_nvfp4_fc_is_kept_16_bit_from_the_release_that_keeps_it():
    m = _nvfp4(["lm_head", "re:.*mlp.gate$"])
    assert "qwen3_5" not in rules_for("0.19.0").mtp_fc_nvfp4_unquantized
    assert "qwen3_5" in rules_for("0.20.0").mtp_fc_nvfp4_unquantized
    assert "qwen3_next" not in rules_for("0.24.0").mtp_fc_nvfp4_unquantized
    assert "qwen3_next" in rules_for("0.25.0").mtp_fc_nvfp4_unquantized
    q = bytes_per_quantized_param(m.quant)
    fc = _fc(m)
    old = kvplan.fit(m, "B200", max_model_len=8192, speculative_config=MTP1, vllm_version="0.19.0", fixes=False)
    new = kvplan.fit(m, "B200", max_model_len=8192, speculative_config=MTP1, vllm_version="0.20.0", fixes=False)
    d = lambda p: dict(p.weights_by_use)["drafter"]
    assert d(new) - d(old) == pytest.approx(fc.params * (2 - q), rel=1e-9)
    # a ModelOpt FP8 checkpoint's fc stays FP8 in every release
    raw = copy.deepcopy(resolve_model(MODEL).raw_config)
    raw["quantization_config"] = {"quant_method": "modelopt", "quant_algo": "FP8", "exclude_modules": ["lm_head"]}
    fp8 = normalize(raw, model_id="test/Qwen3.6-35B-A3B-FP8", source="test")
    a = kvplan.fit(fp8, "B200", max_model_len=8192, speculative_config=MTP1, vllm_version="0.19.0", fixes=False)
    b = kvplan.fit(fp8, "B200", max_model_len=8192, speculative_config=MTP1, vllm_version="0.33.0", fixes=False)
    assert d(a) == d(b)


def test_qwen3_next_fc_is_16_bit_in_0_10_2_whatever_the_method():
    """0.10.2's Qwen3NextMultiTokenPredictor builds fc = ColumnParallelLinear(2H, H, gather_output=True, bias=False,
    return_bias=False) with no quant_config; 0.11.0 passes quant_config=quant_config (qwen3_next_mtp.py in the 0.10.2 and
    0.11.0 wheels). A block-FP8 Qwen3-Next-80B-A3B with MTP on an H200: the drafter's fc is 2H^2 parameters at 2 B in
    0.10.2 and at the FP8 width (1 B plus its block scales) from 0.11.0."""
    assert "qwen3_next" in rules_for("0.10.2").mtp_fc_unquantized
    assert "qwen3_next" not in rules_for("0.11.0").mtp_fc_unquantized
    raw = copy.deepcopy(resolve_model("Qwen/Qwen3-Next-80B-A3B-Instruct").raw_config)
    raw["mtp_num_hidden_layers"] = 1
    raw["quantization_config"] = {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
                                  "weight_block_size": [128, 128]}
    fp8 = normalize(raw, model_id="test/Qwen3-Next-80B-A3B-FP8", source="test")
    fc, q = _fc(fp8), bytes_per_quantized_param(fp8.quant)
    assert fc.shard == "tp" and fc.quantizable
    d = lambda p: dict(p.weights_by_use)["drafter"]
    old, new = (kvplan.fit(fp8, "H200", max_model_len=8192, speculative_config=MTP1, vllm_version=v, fixes=False)
                for v in ("0.10.2", "0.11.0"))
    assert d(old) - d(new) == pytest.approx(fc.params * (2 - q), rel=1e-9)
