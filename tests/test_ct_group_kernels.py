"""compressed-tensors config groups of different schemes: each kernel-dependent term follows the scheme of the module it
belongs to. vLLM builds every Linear layer with the scheme of the group find_matched_target picks for it
(CompressedTensorsConfig.get_scheme_dict, compressed_tensors.py 0.10.2-0.33.0) and a MoE layer's experts with the
scheme of expert 0's projections (CompressedTensorsMoEMethod.get_moe_method, compressed_tensors_moe.py 0.12.0-0.17.1,
compressed_tensors_moe/compressed_tensors_moe.py 0.20.0-0.33.0), so the Marlin MoE padding and workspace follow the
experts' group, the dense Marlin padding each dense layer's, and a block-FP8 group's TP check only the layers it
quantizes. The configs are llm-compressor's, on Qwen3-30B-A3B (96 expert columns per rank at TP 8) and
Qwen2.5-3B-Instruct (down_proj K = 1376 per rank at TP 8), the shapes tests/test_marlin_moe_padding.py and
tests/test_marlin_dense_pad.py pad."""

from __future__ import annotations

import copy

import pytest

from kvplan.api import fit
from kvplan.errors import InputError
from kvplan.plan.defaults import MOE_MIXED_SCHEMES_ERROR
from kvplan.plan.kv import experts_quant, marlin_dense_group, marlin_moe_experts
from kvplan.plan.terms import quantized_moe_experts
from kvplan.resolve import find_gpu, normalize, resolve_model
from kvplan.versions import first_release_where, rules_for
from kvplan.plan.terms import modular_workspace_bytes
from kvplan.weights import bytes_per_quantized_param, count_weights

QWEN3_MOE = "Qwen/Qwen3-30B-A3B"
QWEN25 = "Qwen/Qwen2.5-3B-Instruct"
QWEN3_MOE_WIDTH = 768  # Qwen3-30B-A3B's moe_intermediate_size


def _w4a16(group: int | None) -> tuple[dict, None]:
    return ({"num_bits": 4, "type": "int", "strategy": "group" if group else "channel", "group_size": group,
             "symmetric": True, "dynamic": False, "actorder": None}, None)


W8A8_INT = ({"num_bits": 8, "type": "int", "symmetric": True, "strategy": "channel", "dynamic": False, "group_size": None},
            {"num_bits": 8, "type": "int", "symmetric": True, "strategy": "token", "dynamic": True})
FP8_DYNAMIC = ({"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": True, "dynamic": False},
               {"num_bits": 8, "type": "float", "strategy": "token", "symmetric": True, "dynamic": True})
NVFP4 = ({"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16, "symmetric": True, "dynamic": False},
         {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16, "symmetric": True,
          "dynamic": "local"})
FP8_BLOCK = ({"num_bits": 8, "type": "float", "strategy": "block", "block_structure": [128, 128], "symmetric": True,
              "dynamic": False},
             {"num_bits": 8, "type": "float", "strategy": "group", "group_size": 128, "symmetric": True, "dynamic": True})


def _ct(model: str, *groups, ignore=("lm_head", "re:.*mlp.gate$")):
    """`model` with a compressed-tensors config whose groups are `groups` in order: ((weights, input activations),
    targets)."""
    raw = copy.deepcopy(resolve_model(model).raw_config)
    raw["quantization_config"] = {
        "quant_method": "compressed-tensors", "quantization_status": "compressed", "format": "mixed-precision",
        "config_groups": {f"group_{i}": {"targets": targets, "weights": w, "input_activations": a}
                          for i, ((w, a), targets) in enumerate(groups)},
        "ignore": list(ignore)}
    return normalize(raw, model_id=f"test/{model.split('/')[-1]}-ct", source="test")


def _experts(p) -> int:
    return dict(p.weights_by_use)["experts"]


ATTN_W8A8_EXPERTS_W4A16 = _ct(QWEN3_MOE, (W8A8_INT, ["re:.*self_attn.*"]), (_w4a16(32), ["Linear"]))
ATTN_W4A16_EXPERTS_FP8 = _ct(QWEN3_MOE, (_w4a16(128), ["re:.*self_attn.*"]), (FP8_DYNAMIC, ["re:.*mlp.*"]))
ATTN_FP8_EXPERTS_NVFP4 = _ct(QWEN3_MOE, (FP8_DYNAMIC, ["re:.*self_attn.*"]), (NVFP4, ["re:.*mlp.*"]))


def test_the_experts_scheme_is_their_own_groups():
    rules = rules_for("0.25.0")
    for model, scheme in ((ATTN_W8A8_EXPERTS_W4A16, "int4"), (ATTN_W4A16_EXPERTS_FP8, "fp8"),
                          (ATTN_FP8_EXPERTS_NVFP4, "nvfp4")):
        assert model.quant.group_schemes  # two schemes: the first group's is the attention's
        assert experts_quant(model, model.quant, rules).scheme.startswith(scheme)
        assert not model.quant.scheme.startswith(scheme)


def test_marlin_moe_padding_follows_the_experts_group():
    """A100, TP 8, 96 expert columns per rank, from 0.25.0 (versions.py marlin_moe_tile_pad). W4A16 experts in groups of
    32 beside W8A8 attention pad 96 -> 128 (the first group, W8A8, runs no Marlin MoE: they were left unpadded); FP8
    experts beside W4A16 attention in groups of 128 pad without asking (the first group's 96 % 128 check had kept them
    96 wide); NVFP4 experts beside FP8 attention keep 96 (marlin_utils_fp4.py pads no MoE; the FP8 reading padded them)."""
    a100 = find_gpu("A100")
    rules = rules_for("0.25.0")
    for model, marlin, ratio in ((ATTN_W8A8_EXPERTS_W4A16, (32, True), 128 / 96),
                                 (ATTN_W4A16_EXPERTS_FP8, (-1, False), 128 / 96),
                                 (ATTN_FP8_EXPERTS_NVFP4, None, 1.0)):
        assert marlin_moe_experts(model, a100, rules, model.quant) == marlin
        before = fit(model, a100, tensor_parallel_size=8, vllm_version="0.24.0")
        after = fit(model, a100, tensor_parallel_size=8, vllm_version="0.25.0")
        assert _experts(after) == pytest.approx(_experts(before) * ratio, rel=1e-9), model.quant.group_schemes
        assert after.weights_bytes - before.weights_bytes == _experts(after) - _experts(before)
        assert any("padded 96 -> 128" in n for n in after.assumptions) is (ratio != 1.0)


def test_the_wna16_marlin_workspace_follows_the_experts_group():
    """CompressedTensorsWNA16MarlinMoEMethod's workspace (versions.py moe_quant_workspace "ct_wna16_marlin", from 0.23.0)
    is charged where the experts are W4A16, whatever the first group is, and not for FP8 experts beside W4A16
    attention. A100 at TP 8, 0.24.0 (no padding yet): the W8A8 + W4A16 plan's pool shrinks by the workspace and the
    W4A16 + FP8 plan's grows by it, against the first group's reading."""
    a100 = find_gpu("A100")
    p = fit(ATTN_W8A8_EXPERTS_W4A16, a100, tensor_parallel_size=8, vllm_version="0.24.0")
    q = fit(ATTN_W4A16_EXPERTS_FP8, a100, tensor_parallel_size=8, vllm_version="0.24.0")
    width = QWEN3_MOE_WIDTH / 8
    assert quantized_moe_experts(p.model, p.gpu, p.args, p.rules, width) == ("ct_wna16_marlin", 96, 2048)
    assert quantized_moe_experts(q.model, q.gpu, q.args, q.rules, width) is None
    charged = [t for t in p.terms if t.name == "activation_peak"][0].formula
    assert "fused-MoE workspace" in charged
    assert "fused-MoE workspace" not in [t for t in q.terms if t.name == "activation_peak"][0].formula
    # the same experts under one W4A16 group: the same workspace
    alone = fit(_ct(QWEN3_MOE, (_w4a16(32), ["Linear"])), a100, tensor_parallel_size=8, vllm_version="0.24.0")
    assert p.activation_peak_bytes == alone.activation_peak_bytes


def test_ignored_experts_keep_the_unquantized_fused_moe_workspace():
    """Experts the ignore list names run UnquantizedFusedMoEMethod from 0.12.0 ("ignored layer"), which keeps the
    fused-MoE workspace (versions.py moe_workspace_persistent, from 0.14.0): charged at 0.20.0, where no quantized path
    replaces it (the W4A16 reading charged none: ct_wna16_marlin's is kept from 0.23.0). H100, TP 1."""
    model = _ct(QWEN3_MOE, (_w4a16(32), ["Linear"]), ignore=("lm_head", "re:.*mlp.gate$", "re:.*experts.*"))
    assert experts_quant(model, model.quant, rules_for("0.20.0")) is None
    p = fit(model, "H100", vllm_version="0.20.0")
    # T(8192) x top-k(8) x 2 B x (max(768, 2048) + max(1536, 2048)): 0.50 GiB, the unquantized experts' TritonExperts
    ws = modular_workspace_bytes(8192, p.rules.fused_moe_chunk_tokens, 8, QWEN3_MOE_WIDTH, 2048, 2)
    assert ws == 8192 * 8 * 2 * (2048 + 2048)
    formula = [t for t in p.terms if t.name == "activation_peak"][0].formula
    assert f"{ws / 1024 ** 3:.2f} GiB fused-MoE workspace" in formula
    # the quantized experts' plan at 0.20.0 keeps no workspace (their Marlin path's is read from 0.23.0)
    quantized = fit(_ct(QWEN3_MOE, (_w4a16(32), ["Linear"])), "H100", vllm_version="0.20.0")
    assert "fused-MoE workspace" not in [t for t in quantized.terms if t.name == "activation_peak"][0].formula


def _dense(version: str, model):
    return fit(model, "A100-80GB", vllm_version=version, max_model_len=4096, tensor_parallel_size=8, fixes=False)


ATTN_W8A8_MLP_W4A16 = _ct(QWEN25, (W8A8_INT, ["re:.*self_attn.*"]), (_w4a16(None), ["re:.*mlp.*"]), ignore=("lm_head",))
ATTN_W4A16_MLP_W8A8 = _ct(QWEN25, (_w4a16(None), ["re:.*self_attn.*"]), (W8A8_INT, ["re:.*mlp.*"]), ignore=("lm_head",))


def test_dense_marlin_padding_follows_each_layers_group():
    """Qwen2.5-3B at TP 8 on an A100, from 0.24.0 (versions.py marlin_dense_tile_pad): down_proj's K = 1376 per rank pads
    to 1408 where the MLP's group is W4A16 per channel (36 layers x N 2048 x 32 columns of int4), not where it is W8A8
    (CutlassScaledMMLinearKernel, no Marlin), whichever group comes first."""
    w4 = bytes_per_quantized_param(ATTN_W8A8_MLP_W4A16.quant.group_schemes[1][1])
    mlp_w4 = _dense("0.24.0", ATTN_W8A8_MLP_W4A16).weights_bytes - _dense("0.23.0", ATTN_W8A8_MLP_W4A16).weights_bytes
    assert mlp_w4 == pytest.approx(36 * 2048 * (1408 - 1376) * w4, abs=2)
    assert _dense("0.24.0", ATTN_W4A16_MLP_W8A8).weights_bytes == _dense("0.23.0", ATTN_W4A16_MLP_W8A8).weights_bytes
    rules = rules_for("0.24.0")
    a100 = find_gpu("A100-80GB")
    groups = dict(marlin_dense_group(ATTN_W4A16_MLP_W8A8, a100, rules, ATTN_W4A16_MLP_W8A8.quant))
    assert sorted(groups.values(), key=str) == [-1, None]


def test_a_down_proj_the_ignore_list_names_is_left_in_the_model_dtype():
    """compressed-tensors asks each Linear layer's ignore entry apart (should_ignore_layer per prefix): ignoring
    down_proj alone keeps gate_up_proj quantized and down_proj in bf16, as targets naming gate_proj and up_proj only
    do; neither pads the bf16 down_proj on Marlin. It was read all-or-nothing (the whole MLP quantized)."""
    ignored = _ct(QWEN25, (_w4a16(None), ["Linear"]), ignore=("lm_head", "re:.*down_proj$"))
    untargeted = _ct(QWEN25, (_w4a16(None), ["re:.*gate_proj$", "re:.*up_proj$", "re:.*self_attn.*"]), ignore=("lm_head",))
    whole = _ct(QWEN25, (_w4a16(None), ["Linear"]), ignore=("lm_head",))
    for version in ("0.23.0", "0.24.0"):
        assert _dense(version, ignored).weights_bytes == _dense(version, untargeted).weights_bytes
    spec = whole
    down = spec.intermediate_size * spec.hidden_size * spec.num_layers
    gap = 2 - bytes_per_quantized_param(whole.quant)
    assert _dense("0.23.0", ignored).weights_bytes - _dense("0.23.0", whole).weights_bytes == pytest.approx(
        down / 8 * gap, rel=1e-6)
    # 0.24.0: the quantized-MLP plan pads down_proj (K 1376 -> 1408); the bf16 one is held as is
    assert _dense("0.24.0", ignored).weights_bytes == _dense("0.23.0", ignored).weights_bytes


def test_a_fused_layer_takes_its_shards_group_before_the_class_from_0_27():
    """find_matched_target tries a fused layer's shards before its class from 0.27.0 (compressed_tensors/utils.py;
    versions.py ct_fused_match_first): q_proj, k_proj and v_proj named by a W8A8 group beside a W4A16 "Linear" group
    give qkv_proj W8A8 from 0.27.0 and W4A16 before."""
    assert first_release_where("ct_fused_match_first", lambda v: v) == "0.27.0"
    shards = ["re:.*[.]q_proj$", "re:.*[.]k_proj$", "re:.*[.]v_proj$"]
    model = _ct(QWEN25, (W8A8_INT, shards), (_w4a16(None), ["Linear"]), ignore=("lm_head",))
    w8, w4 = (bytes_per_quantized_param(sp) for _, sp in model.quant.group_schemes[::3])
    assert w8 > w4
    qkv = sum(c.params for c in count_weights(model).components if c.name == "kv_proj") + sum(
        c.params for c in count_weights(model).components if c.name == "self_attn") - (
        model.hidden_size * model.hidden_size * model.num_layers)  # o_proj: nh x head_dim x H per layer
    old = fit(model, "A100-80GB", vllm_version="0.26.0", max_model_len=4096, fixes=False).weights_bytes
    new = fit(model, "A100-80GB", vllm_version="0.27.0", max_model_len=4096, fixes=False).weights_bytes
    assert new - old == pytest.approx(qkv * (w8 - w4), rel=0.01)


def test_expert_projections_in_groups_of_different_schemes_refuse():
    """get_moe_method compares the schemes of expert 0's gate_proj, up_proj and down_proj and raises "All MoE
    projections need to have same quantization scheme but found multiple" (0.12.0-0.33.0): a W8A8 group on down_proj
    beside a W4A16 "Linear" group."""
    model = _ct(QWEN3_MOE, (W8A8_INT, ["re:.*down_proj$"]), (_w4a16(32), ["Linear"]))
    for version in ("0.12.0", "0.33.0"):
        p = fit(model, "A100", tensor_parallel_size=8, vllm_version=version)
        assert not p.fits and MOE_MIXED_SCHEMES_ERROR in (p.error or "")
        assert "gate_proj int4" in p.error and "down_proj int8" in p.error
    ok = _ct(QWEN3_MOE, (W8A8_INT, ["re:.*self_attn.*"]), (_w4a16(32), ["Linear"]))
    assert MOE_MIXED_SCHEMES_ERROR not in (fit(ok, "A100", tensor_parallel_size=8, vllm_version="0.33.0").error or "")


def test_block_fp8_attention_does_not_check_w4a16_experts():
    """Block FP8 on the attention and W4A16 on the experts: the experts' W4A16 method has no block to check, so TP 4
    (192 expert columns per rank, no multiple of 128) plans; the first group's reading refused it as vLLM refuses
    block-FP8 experts ("The output_size of gate's and up's weight = 192 is not divisible by ... block_n = 128")."""
    model = _ct(QWEN3_MOE, (FP8_BLOCK, ["re:.*self_attn.*"]), (_w4a16(32), ["re:.*mlp.*"]))
    p = fit(model, "H100", tensor_parallel_size=4, vllm_version="0.33.0")
    assert p.fits
    # the same block FP8 on the experts refuses
    with pytest.raises(InputError, match="block_n = 128"):
        fit(_ct(QWEN3_MOE, (_w4a16(32), ["re:.*self_attn.*"]), (FP8_BLOCK, ["re:.*mlp.*"])), "H100",
            tensor_parallel_size=4, vllm_version="0.33.0")


def test_before_0_12_the_experts_take_the_linear_groups_scheme():
    """get_moe_method before 0.12.0 reads target_scheme_map["Linear"] whenever the config has a "Linear" target
    (compressed_tensors_moe.py 0.10.2, 0.11.0; versions.py ct_moe_ignore_read): a W8A8 group naming the experts beside
    a W4A16 "Linear" group gives them W4A16 there, and their own W8A8 group from 0.12.0."""
    model = _ct(QWEN3_MOE, (W8A8_INT, ["re:.*experts.*"]), (_w4a16(32), ["Linear"]))
    w4, w8 = (_ct(QWEN3_MOE, (scheme, ["Linear"])) for scheme in (_w4a16(32), W8A8_INT))
    assert experts_quant(model, model.quant, rules_for("0.11.0")).scheme.startswith("int4")
    assert experts_quant(model, model.quant, rules_for("0.12.0")).scheme.startswith("int8")
    old, new = (fit(model, "H100", vllm_version=v) for v in ("0.11.0", "0.12.0"))
    assert _experts(old) == _experts(fit(w4, "H100", vllm_version="0.11.0"))
    assert _experts(new) == _experts(fit(w8, "H100", vllm_version="0.12.0")) > _experts(old)
    assert any("target_scheme_map['Linear']" in n for n in old.assumptions)
    assert not any("target_scheme_map['Linear']" in n for n in new.assumptions)
