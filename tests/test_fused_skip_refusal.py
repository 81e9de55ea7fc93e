"""A skip list naming some but not all shards of a fused layer (q_proj without k_proj and v_proj; gate_proj without
up_proj) is refused where vLLM's config asks it shard by shard: quantization/utils/quant_utils.py is_layer_skipped
raises "Detected some but not all shards of <layer> are quantized. All shards of fused layers to have the same
precision." for Fp8Config in every release read and for AWQ from 0.12.0 (versions.py fused_skip_refusal);
compressed-tensors refuses with its own message (tests/test_block_fp8_compressed_tensors.py), bitsandbytes asks the
fused name alone. Qwen2.5-3B-Instruct's config, with the quantization_config its FP8 / AWQ exports write."""

from __future__ import annotations

import copy

import pytest

from kvplan.api import fit
from kvplan.errors import InputError
from kvplan.plan.defaults import FUSED_SHARDS_SKIP_ERROR
from kvplan.resolve import normalize, resolve_model
from kvplan.versions import first_release_where

MODEL = "Qwen/Qwen2.5-3B-Instruct"
FP8 = {"quant_method": "fp8", "activation_scheme": "dynamic"}
AWQ = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True, "version": "gemm"}


def _quantized(qc: dict):
    raw = copy.deepcopy(resolve_model(MODEL).raw_config)
    raw["quantization_config"] = qc
    return normalize(raw, model_id="test/Qwen2.5-3B-Instruct-q", source="test")


def _plan(qc: dict, version: str):
    return fit(_quantized(qc), "A100-80GB", vllm_version=version, max_model_len=4096)


@pytest.mark.parametrize("version", ["0.6.6", "0.11.0", "0.33.0"])
def test_fp8_ignoring_one_shard_of_qkv_proj_is_refused(version):
    q_only = dict(FP8, ignored_layers=["model.layers.0.self_attn.q_proj"])
    with pytest.raises(InputError) as e:
        _plan(q_only, version)
    layer = "model.layers.0.self_attn.qkv_proj"
    assert FUSED_SHARDS_SKIP_ERROR.format(layer=layer) in str(e.value)
    assert "q_proj, k_proj, v_proj" in e.value.fix
    # all three shards, or the fused name, skip the layer whole: it plans, with layer 0's qkv_proj in bf16
    shards = [f"model.layers.0.self_attn.{s}" for s in ("q_proj", "k_proj", "v_proj")]
    whole = _plan(dict(FP8, ignored_layers=shards), version)
    assert whole.weights_bytes > _plan(FP8, version).weights_bytes


def test_awq_refuses_a_partial_list_from_0_12():
    assert first_release_where("fused_skip_refusal", lambda v: "awq" in v) == "0.12.0"
    gate_only = dict(AWQ, modules_to_not_convert=["layers.3.mlp.gate_proj"])  # AWQ matches by substring
    with pytest.raises(InputError) as e:
        _plan(gate_only, "0.12.0")
    assert FUSED_SHARDS_SKIP_ERROR.format(layer="model.layers.3.mlp.gate_up_proj") in str(e.value)
    # 0.11.0's is_layer_skipped_awq asks the fused name alone: the list names no layer, and the start plans
    assert _plan(gate_only, "0.11.0").weights_bytes == _plan(AWQ, "0.11.0").weights_bytes
    # an entry naming both shards (the whole attention) is no partial list
    assert _plan(dict(AWQ, modules_to_not_convert=["self_attn"]), "0.33.0").fits


def test_a_skipped_o_proj_is_sized_apart_from_qkv_proj():
    """Each Linear layer's skip entry is asked apart (get_quant_method per prefix): an FP8 list naming every o_proj keeps
    o_proj in bf16 beside an FP8 qkv_proj (36 layers x 2048 x 2048 parameters at 2 B instead of 1); the attention
    component was read all-or-nothing (qkv_proj and o_proj both named, or nothing kept)."""
    from kvplan.weights import bytes_per_quantized_param

    o_proj = [f"model.layers.{i}.self_attn.o_proj" for i in range(36)]
    base = _quantized(FP8)
    assert base.hidden_size == 2048 and base.num_layers == 36
    for version in ("0.11.0", "0.33.0"):
        gap = _plan(dict(FP8, ignored_layers=o_proj), version).weights_bytes - _plan(FP8, version).weights_bytes
        assert gap == pytest.approx(36 * 2048 * 2048 * (2 - bytes_per_quantized_param(base.quant)), rel=1e-6)


def test_the_fused_name_is_asked_first_from_0_24():
    """From 0.24.0 is_layer_skipped asks the fused layer's own name before its shards (versions.py
    fused_skip_name_first): AWQ's substring 'v_proj' is contained in 'qkv_proj', which 0.24.0 skips whole, while 0.20.0
    asks q_proj, k_proj and v_proj and refuses the one shard named."""
    assert first_release_where("fused_skip_name_first", lambda v: v) == "0.24.0"
    v_only = dict(AWQ, modules_to_not_convert=["v_proj"])
    with pytest.raises(InputError) as e:
        _plan(v_only, "0.20.0")
    assert FUSED_SHARDS_SKIP_ERROR.format(layer="model.layers.0.self_attn.qkv_proj") in str(e.value)
    assert _plan(v_only, "0.24.0").weights_bytes > _plan(AWQ, "0.24.0").weights_bytes
