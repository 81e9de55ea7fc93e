"""compressed-tensors config-group targets: only the Linear layers a target names load quantized (find_matched_target:
a name exact or "re:" re.match'ed, a fused layer by every shard, or the class by containment; unmatched layers fall to
UnquantizedLinearMethod from vLLM 0.21.0, and make it raise before: versions.py ct_untargeted_unquantized)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from kvplan.errors import InputError
from kvplan.validate import predict_record
from kvplan.weights import bytes_per_quantized_param, count_weights

RECORDS = Path(__file__).parent / "data/blind_records.jsonl"


def _record(rid: str, targets: list[str] | None = None, version: str = "0.30.0") -> dict:
    """A blind record's start, its first config group's targets replaced, planned under `version` (0.21.0 or newer loads
    an untargeted layer unquantized)."""
    rec = next(json.loads(l) for l in RECORDS.read_text().splitlines() if l.startswith(f'{{"id": "{rid}"'))
    rec = copy.deepcopy(rec)
    rec["vllm_version"] = version
    if targets is not None:
        cfg = rec["model"]["config"]
        qc = cfg.get("quantization_config") or cfg["text_config"]["quantization_config"]
        next(iter(qc["config_groups"].values()))["targets"] = targets
    return rec


GEMMA3 = "gemma-3-4b-it-w4a16-rtx3090-u090-tp1-l8k-cg32"  # RedHatAI/gemma-3-4b-it-quantized.w4a16: targets ["Linear"]
GEMMA4 = "gemma-4-26b-a4b-it-qat-w4a16-l4-udef-tp1-l2k-seqs16"  # a Gemma 4 MoE W4A16, experts directly under the layer


def _components(plan) -> dict[str, int]:
    """Parameters by component name, summed over the decoder layers."""
    out: dict[str, int] = {}
    for c in count_weights(plan.model).components:
        out[c.name] = out.get(c.name, 0) + c.params
    return out


@pytest.mark.parametrize("rid", [GEMMA3, GEMMA4])
def test_attention_only_targets_leave_the_mlp_and_experts_in_the_model_dtype(rid):
    linear, _ = predict_record(_record(rid, ["Linear"]))
    attn, _ = predict_record(_record(rid, ["re:.*self_attn.*"]))
    params = _components(linear)
    per_q = linear.model.quant  # int4 in groups of 32 or 128: 0.5 B + a 16-bit scale per group (no zero points)
    qbytes = 0.5 + 2 / per_q.group_size
    # the MLP (and a MoE model's experts, and its shared MLP) move from the quantized width to bf16; attention stays
    moved = sum(n for name, n in params.items() if name in ("mlp", "experts", "shared_expert"))
    assert moved > 0
    assert attn.weights_bytes - linear.weights_bytes == pytest.approx(moved * (2 - qbytes), rel=0.02)
    assert attn.model.quant.targets == ("re:.*self_attn.*",)


def test_a_fused_layer_is_targeted_by_all_its_shards_only():
    # q_proj and k_proj named, v_proj not: vLLM's _match_fused_layer needs every shard of qkv_proj, so the attention
    # loads unquantized like the MLP; naming all four of q, k, v and o quantizes it as "re:.*self_attn.*" does
    shards = predict_record(_record(GEMMA3, ["re:.*q_proj$", "re:.*k_proj$", "re:.*v_proj$", "re:.*o_proj$"]))[0]
    attn = predict_record(_record(GEMMA3, ["re:.*self_attn.*"]))[0]
    part = predict_record(_record(GEMMA3, ["re:.*q_proj$", "re:.*k_proj$"]))[0]
    assert shards.weights_bytes == attn.weights_bytes < part.weights_bytes
    mlp = predict_record(_record(GEMMA3, ["re:.*mlp.*"]))[0]
    linear = predict_record(_record(GEMMA3, ["Linear"]))[0]
    assert linear.weights_bytes < mlp.weights_bytes < attn.weights_bytes < part.weights_bytes


def test_every_config_group_targets_count():
    # two groups, one for the attention and one for the MLP, quantize what one "Linear" group does
    rec = _record(GEMMA3)
    qc = rec["model"]["config"].get("quantization_config") or rec["model"]["config"]["text_config"]["quantization_config"]
    (name, group), = qc["config_groups"].items()
    qc["config_groups"] = {"group_0": dict(group, targets=["re:.*self_attn.*"]),
                           "group_1": dict(copy.deepcopy(group), targets=["re:.*mlp.*"])}
    two = predict_record(rec)[0]
    assert two.model.quant.targets == ("re:.*self_attn.*", "re:.*mlp.*")
    assert two.weights_bytes == predict_record(_record(GEMMA3, ["Linear"]))[0].weights_bytes


def test_a_layer_no_target_names_refuses_before_0_21():
    with pytest.raises(InputError) as e:
        predict_record(_record(GEMMA3, ["re:.*self_attn.*"], version="0.20.2"))
    assert e.value.field == "--vllm-version" and "Unable to find matching target for" in str(e.value)
    assert "mlp.gate_up_proj" in str(e.value) and "0.21.0 or newer" in str(e.value)
    # an ignore list naming what the targets leave out starts, as does "Linear"
    rec = _record(GEMMA3, ["re:.*self_attn.*"], version="0.20.2")
    qc = rec["model"]["config"].get("quantization_config") or rec["model"]["config"]["text_config"]["quantization_config"]
    qc["ignore"] = list(qc.get("ignore") or []) + ["re:.*mlp.*"]
    assert predict_record(rec)[0].weights_bytes == predict_record(_record(GEMMA3, ["re:.*self_attn.*"]))[0].weights_bytes
    assert predict_record(_record(GEMMA3, ["Linear"], version="0.20.2"))[0].fits


QKV = ["re:.*q_proj$", "re:.*k_proj$", "re:.*v_proj$"]


def test_each_module_is_quantized_by_its_own_match():
    # vLLM asks each Linear layer's scheme apart (get_quant_method -> get_scheme per prefix): q, k and v named without
    # o quantize qkv_proj and leave o_proj in bf16; gate and up without down quantize gate_up_proj and leave down_proj
    plan = predict_record(_record(GEMMA3, QKV + ["re:.*o_proj$"]))[0]
    spec, q = plan.model, plan.model.quant
    gap = 2 - (0.5 + 2 / q.group_size)  # bf16 over int4 with a 16-bit scale per group, per parameter
    h, layers = spec.hidden_size, spec.num_layers
    heads, head_dim = spec.text_config["num_attention_heads"], spec.head_dim
    o_proj = heads * head_dim * h * layers
    qkv = predict_record(_record(GEMMA3, QKV))[0]
    assert qkv.weights_bytes - plan.weights_bytes == pytest.approx(o_proj * gap, abs=1)
    down_proj = spec.text_config["intermediate_size"] * h * layers
    mlp = predict_record(_record(GEMMA3, ["re:.*mlp.*"]))[0]
    gate_up = predict_record(_record(GEMMA3, ["re:.*gate_proj$", "re:.*up_proj$"]))[0]
    assert gate_up.weights_bytes - mlp.weights_bytes == pytest.approx(down_proj * gap, abs=1)
    # o_proj alone, or down_proj alone, quantizes the rest of the component the other way round
    o_only = predict_record(_record(GEMMA3, ["re:.*o_proj$"]))[0]
    none = predict_record(_record(GEMMA3, ["re:.*q_proj$", "re:.*k_proj$"]))[0]
    assert none.weights_bytes - o_only.weights_bytes == pytest.approx(o_proj * gap, abs=1)


# llm-compressor's W8A8 int8 scheme (per-channel static weights, per-token dynamic activations), as its checkpoints write it
W8A8 = {"weights": {"num_bits": 8, "type": "int", "symmetric": True, "strategy": "channel", "dynamic": False,
                    "group_size": None, "observer": "minmax"},
        "input_activations": {"num_bits": 8, "type": "int", "symmetric": True, "strategy": "token", "dynamic": True,
                              "observer": None},
        "output_activations": None}


def _groups(rid: str, *groups: tuple[dict | None, list[str]]) -> dict:
    """A record whose config groups are `groups` in order: (a scheme, None for the record's own W4A16 group; targets)."""
    rec = _record(rid)
    qc = rec["model"]["config"].get("quantization_config") or rec["model"]["config"]["text_config"]["quantization_config"]
    (_, own), = qc["config_groups"].items()
    qc["config_groups"] = {f"group_{i}": dict(copy.deepcopy(scheme or own), targets=targets)
                           for i, (scheme, targets) in enumerate(groups)}
    return rec


def test_each_module_takes_its_matched_groups_scheme():
    # W8A8 for the attention, W4A16 for the MLP: each module is sized as the single-group checkpoint quantizing it alone
    # sizes it (the rest in bf16), so the two-group bytes are the sum of those two less the all-bf16 model's
    attn8 = predict_record(_groups(GEMMA3, (W8A8, ["re:.*self_attn.*"])))[0].weights_bytes
    mlp4 = predict_record(_groups(GEMMA3, (None, ["re:.*mlp.*"])))[0].weights_bytes
    bf16 = predict_record(_groups(GEMMA3, (None, ["re:^unnamed$"])))[0].weights_bytes
    two = predict_record(_groups(GEMMA3, (W8A8, ["re:.*self_attn.*"]), (None, ["re:.*mlp.*"])))[0]
    assert two.weights_bytes == pytest.approx(attn8 + mlp4 - bf16, abs=2)
    assert [t for t, _ in two.model.quant.group_schemes] == ["re:.*self_attn.*", "re:.*mlp.*"]
    # find_matched_target's precedence: a target naming the layer beats "Linear" (matched on the class), whichever
    # group comes first, so "Linear" in W4A16 sizes only what the attention's regex does not name
    for order in ([(None, ["Linear"]), (W8A8, ["re:.*self_attn.*"])], [(W8A8, ["re:.*self_attn.*"]), (None, ["Linear"])]):
        assert predict_record(_groups(GEMMA3, *order))[0].weights_bytes == two.weights_bytes
    # one scheme in every group: nothing to tell apart
    assert predict_record(_groups(GEMMA3, (None, ["re:.*self_attn.*"]), (None, ["re:.*mlp.*"])))[0].model.quant.group_schemes == ()


def test_a_fused_layers_shards_beat_linear_from_0_27_0():
    # one group names q/k/v_proj (regexes that do not match the fused qkv_proj's own name), another "Linear":
    # find_matched_target tries qkv_proj's shards before its class from 0.27.0 (vLLM PR #49483), so qkv_proj takes the
    # shards' W8A8 group; 0.26.0 tried the class first, and "Linear" (W4A16) built it
    shards = ["re:.*self_attn\\.q_proj$", "re:.*self_attn\\.k_proj$", "re:.*self_attn\\.v_proj$"]
    params = _components(predict_record(_record(GEMMA3, ["Linear"]))[0])
    for version, int8 in (("0.26.0", False), ("0.27.0", True), ("0.30.0", True)):
        every4 = predict_record(_record(GEMMA3, ["Linear"], version))[0]
        for order in ([(W8A8, shards), (None, ["Linear"])], [(None, ["Linear"]), (W8A8, shards)]):
            rec = _groups(GEMMA3, *order)
            rec["vllm_version"] = version
            plan = predict_record(rec)[0]
            schemes = dict(plan.model.quant.group_schemes)
            w4, w8 = (bytes_per_quantized_param(schemes[t]) for t in ("Linear", shards[0]))
            assert (w4, w8) == (0.5 + 2 / every4.model.quant.group_size, 1.0)  # int4 in groups; int8 per channel
            qkv = params["kv_proj"]  # k and v rows; the q rows are the attention's other share
            if not int8:
                assert plan.weights_bytes == every4.weights_bytes, (version, order)
            else:
                assert plan.weights_bytes - every4.weights_bytes == pytest.approx(
                    (qkv + params["self_attn"] * (1 - 1 / 2)) * (w8 - w4), abs=2), (version, order)
