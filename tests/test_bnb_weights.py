"""bitsandbytes weight bytes by vLLM release: what the loader keeps of double-quantized statistics, which layers it
quantizes, and how a checkpoint's quantization_config is read (versions.py "bnb_nested_absmax",
"bnb_quantizes_experts"; weights.bnb_statistics_bytes)."""
import json
from dataclasses import replace
from pathlib import Path

import pytest

import kvplan
from kvplan.resolve import BNB_IN_FLIGHT, CheckpointWeights, normalize, resolve_model
from kvplan.versions import rules_for
from kvplan.weights import (bnb_statistics_bytes, bytes_per_quantized_param, count_weights, gated_mlp, stored_bytes,
                            weights_per_rank)

GIB = 1024 ** 3
RECORDS = Path(__file__).parent / "data" / "extra_records.jsonl"
BLIND = Path(__file__).parent / "data" / "blind_records.jsonl"
BNB_RECORD = "qwen2.5-7b-instruct-bnb4-rtx4060-u070-l4k"

# a 4-bit checkpoint's quantization_config as transformers' BitsAndBytesConfig.to_dict writes it
BNB4_QC = {"quant_method": "bitsandbytes", "load_in_4bit": True, "load_in_8bit": False, "bnb_4bit_quant_type": "nf4",
           "bnb_4bit_use_double_quant": True, "bnb_4bit_compute_dtype": "bfloat16", "bnb_4bit_quant_storage": "uint8",
           "llm_int8_skip_modules": None, "llm_int8_threshold": 6.0}


def _qwen25_7b(qc: dict | None = None):
    rec = next(json.loads(line) for line in RECORDS.open() if BNB_RECORD in line)
    config = dict(rec["model"]["config"], **({"quantization_config": qc} if qc else {}))
    return rec, normalize(config, model_id="unsloth/Qwen2.5-7B-Instruct-bnb-4bit", source="test")


def test_the_release_decides_what_double_quantized_statistics_hold():
    assert rules_for("0.6.3").bnb_nested_absmax == rules_for("0.9.2").bnb_nested_absmax == "kept"
    assert rules_for("0.10.0").bnb_nested_absmax == rules_for("0.27.0").bnb_nested_absmax == "float32"
    assert not rules_for("0.9.2").bnb_quantizes_experts and rules_for("0.10.0").bnb_quantizes_experts
    # 8-bit absmax per 64 weights + float32 per 256 blocks, kept; float32 per 64 once dequantized at load
    assert bnb_statistics_bytes(BNB_IN_FLIGHT, "kept") == 1 / 64 + 4 / (64 * 256)
    assert bnb_statistics_bytes(BNB_IN_FLIGHT, "float32") == 4 / 64
    single = replace(BNB_IN_FLIGHT, double_quant=False)  # a checkpoint without double quant: float32 either way
    assert bnb_statistics_bytes(single, "kept") == bnb_statistics_bytes(single, "float32") == 4 / 64
    assert bytes_per_quantized_param(BNB_IN_FLIGHT, "kept") == pytest.approx(0.515869, abs=1e-6)


def test_a_checkpoint_config_says_width_and_double_quant():
    _, spec = _qwen25_7b(BNB4_QC)
    assert (spec.quant.method, spec.quant.bits, spec.quant.group_size, spec.quant.double_quant) == ("bitsandbytes", 4, 64, True)
    _, plain = _qwen25_7b(dict(BNB4_QC, bnb_4bit_use_double_quant=False))
    assert not plain.quant.double_quant
    # transformers writes bnb_4bit_quant_type into 8-bit configs too: vLLM reads load_in_8bit alone
    _, eight = _qwen25_7b(dict(BNB4_QC, load_in_4bit=False, load_in_8bit=True, bnb_4bit_quant_type="fp4"))
    assert eight.quant.bits == 8 and not eight.quant.double_quant
    # llm_int8_skip_modules keeps modules in the model dtype; vLLM asks each module's name of it by dotted parts and
    # leading runs of them (bitsandbytes.py is_layer_skipped_bnb, 0.14.1, 0.27.0): "model.layers.3.mlp" keeps layer
    # 3's MLP alone (not layer 13's, whose name holds it as a string), "mlp" every layer's, "down" none
    _, skipped = _qwen25_7b(dict(BNB4_QC, llm_int8_skip_modules=["lm_head", "model.layers.3.mlp"]))
    assert skipped.quant.skip == ("lm_head", "model.layers.3.mlp")
    _, none = _qwen25_7b(BNB4_QC)
    mlp = [c for c in count_weights(none).components if c.name == "mlp"]
    per_layer = mlp[3].params * (2 - bytes_per_quantized_param(none.quant, "float32"))
    base = weights_per_rank(none).bytes
    assert weights_per_rank(skipped).bytes - weights_per_rank(replace(none, quant=replace(none.quant, skip=("lm_head",)))).bytes \
        == pytest.approx(per_layer, abs=2)
    assert weights_per_rank(replace(none, quant=replace(none.quant, skip=("mlp",)))).bytes - base \
        == pytest.approx(len(mlp) * per_layer, abs=len(mlp))
    assert weights_per_rank(replace(none, quant=replace(none.quant, skip=("down",)))).bytes == base


def test_bitsandbytes_asks_a_fused_module_by_its_own_name():
    """vLLM's bitsandbytes asks is_layer_skipped_bnb of the fused module's name alone (BitsAndBytesConfig.
    get_quant_method passes no packed_modules_mapping; bitsandbytes.py, 0.14.1, 0.24.0): q_proj, k_proj and v_proj
    listed apart name no part of 'model.layers.N.self_attn.qkv_proj', which stays 4-bit, while AWQ, which reads the
    shards (quant_utils.py is_layer_skipped with the fused mapping), keeps it unquantized."""
    _, spec = _qwen25_7b(BNB4_QC)
    base = weights_per_rank(spec).bytes

    def with_skip(*skip, method="bitsandbytes"):
        return weights_per_rank(replace(spec, quant=replace(spec.quant, skip=skip, method=method))).bytes

    # o_proj is asked by its own name, apart from qkv_proj (get_quant_method per layer): it stays in bf16, the
    # shards listed apart add nothing
    assert with_skip("q_proj", "k_proj", "v_proj", "o_proj") == with_skip("o_proj") > base
    # the fused name, or a part of it, is read: every layer's attention (qkv_proj and o_proj) then stays in bf16
    assert with_skip("qkv_proj", "o_proj") == with_skip("self_attn") > with_skip("o_proj")
    # the same list under a method that reads shards (AWQ) names the fused module
    assert with_skip("q_proj", "k_proj", "v_proj", "o_proj", method="awq") > with_skip(method="awq")


def test_bitsandbytes_asks_a_gated_mlp_by_its_fused_name():
    """A gated MLP is built as one gate_up_proj (MergedColumnParallelLinear), which bitsandbytes asks by its own name
    (no packed_modules_mapping: bitsandbytes.py, 0.24.0): gate_proj, up_proj and down_proj listed apart leave
    Qwen2.5-7B's gate_up_proj 4-bit, and down_proj, asked by its own name, in bf16. A two-matrix MLP is asked by the names its model file gives its up and down projections:
    phi-2's are mlp.fc1 and mlp.fc2 (models/phi.py PhiMLP, 0.24.0, 0.31.0), so 'fc1' and 'fc2' keep it in the model
    dtype and 'up_proj' / 'down_proj' name nothing of it."""
    _, spec = _qwen25_7b(BNB4_QC)
    base, base_stored = weights_per_rank(spec).bytes, stored_bytes(spec)

    def skipping(s, *skip):
        return replace(s, quant=replace(s.quant, skip=skip))

    listed = skipping(spec, "gate_proj", "up_proj", "down_proj")
    mlp = sum(c.params for c in count_weights(spec).components if c.name == "mlp")
    assert weights_per_rank(listed).bytes == weights_per_rank(skipping(spec, "down_proj")).bytes
    # down_proj is a third of a gated MLP's parameters
    assert weights_per_rank(listed).bytes - base == pytest.approx(
        mlp / 3 * (2 - bytes_per_quantized_param(spec.quant, "float32")), abs=2)
    assert stored_bytes(listed) - base_stored == pytest.approx(
        mlp / 3 * (2 - bytes_per_quantized_param(spec.quant, "kept")), abs=2)
    # the fused name keeps every layer's MLP in bf16: 2 bytes instead of the 4-bit width (statistics widened at load)
    fused = skipping(spec, "gate_up_proj", "down_proj")
    assert weights_per_rank(fused).bytes - base == pytest.approx(mlp * (2 - bytes_per_quantized_param(spec.quant, "float32")), abs=2)
    assert stored_bytes(fused) - base_stored == pytest.approx(mlp * (2 - bytes_per_quantized_param(spec.quant, "kept")), abs=2)

    rec = next(json.loads(line) for line in BLIND.open() if '"microsoft/phi-2"' in line)
    phi = normalize(dict(rec["model"]["config"], quantization_config=BNB4_QC), model_id="test/phi-2-bnb-4bit", source="test")
    assert not gated_mlp(phi)
    phi_mlp = sum(c.params for c in count_weights(phi).components if c.name == "mlp")
    kept = weights_per_rank(skipping(phi, "fc1", "fc2")).bytes - weights_per_rank(phi).bytes
    assert phi_mlp > 0 and kept == pytest.approx(phi_mlp * (2 - bytes_per_quantized_param(phi.quant, "float32")), abs=2)
    assert weights_per_rank(skipping(phi, "up_proj", "down_proj")).bytes == weights_per_rank(phi).bytes


def test_same_checkpoint_two_releases_two_logged_weights():
    """unsloth/Qwen2.5-7B-Instruct-bnb-4bit logged 'Model loading took 5.46 GiB' on vLLM 0.16.0
    (github.com/AdhyyanNarang/memory_harm vllm.log, 2026-03-04); a local copy of a Qwen2.5-7B-Instruct bnb-4bit
    checkpoint 'Loading model weights took 5.2032 GB' on 0.7.3.dev233 (vLLM issue #13882). Before 0.10 the 8-bit
    statistics stay as loaded; from 0.10 they are float32: 0.28 GiB more for 6.5B quantized weights."""
    rec, spec = _qwen25_7b(BNB4_QC)
    new = kvplan.fit(spec, "L4", vllm_version="0.16.0", fixes=False).weights_bytes / GIB
    old = kvplan.fit(spec, "L4", vllm_version="0.7.3", fixes=False).weights_bytes / GIB
    assert round(new, 2) == 5.46
    assert old == pytest.approx(rec["observed"]["weights_gib"], rel=0.01)
    linear = sum(c.params for c in count_weights(spec).components if c.quantizable)
    assert (new - old) * GIB == pytest.approx(linear * (4 / 64 - 1 / 64 - 4 / (64 * 256)), rel=1e-6)


def test_the_stand_in_record_is_sized_as_in_flight_double_quant():
    from kvplan.validate import predict_record

    rec = next(json.loads(line) for line in RECORDS.open() if BNB_RECORD in line)
    p, notes = predict_record(rec)
    assert p.weights_bytes / GIB == pytest.approx(rec["observed"]["weights_gib"], rel=0.01)
    assert any("double quant" in n for n in notes)


def test_a_prequantized_checkpoints_bytes_widen_at_load_from_0_10():
    """Exact checkpoint bytes are what the files store (8-bit statistics): 0.10+ adds the float32 widening."""
    _, spec = _qwen25_7b(BNB4_QC)
    stored = int(round(sum(c.params * (bytes_per_quantized_param(spec.quant, "kept") if c.quantizable else 2)
                           for c in count_weights(spec).components)))
    spec = replace(spec, checkpoint=CheckpointWeights((("total", stored),), source="test"))
    kept = weights_per_rank(spec, bnb_nested_absmax="kept")
    widened = weights_per_rank(spec, bnb_nested_absmax="float32")
    linear = sum(c.params for c in count_weights(spec).components if c.quantizable)
    assert kept.bytes == pytest.approx(stored + kept.rotary_bytes, abs=2)
    assert widened.bytes - kept.bytes == pytest.approx(linear * (3 / 64 - 4 / (64 * 256)), abs=2)
    assert any("dequantized to float32" in n for n in widened.notes)


def test_moe_experts_stay_in_the_model_dtype_before_0_10():
    m = resolve_model("Qwen/Qwen3-30B-A3B")
    before = kvplan.fit(m, "H100", quantization="bitsandbytes", vllm_version="0.9.2", fixes=False).weights_bytes
    after = kvplan.fit(m, "H100", quantization="bitsandbytes", vllm_version="0.10.0", fixes=False).weights_bytes
    comps = count_weights(m).components
    experts = sum(c.params for c in comps if c.kind == "experts")
    dense = sum(c.params for c in comps if c.quantizable and c.kind != "experts")
    kept, widened = 0.5 + 1 / 64 + 4 / (64 * 256), 0.5 + 4 / 64
    assert before - after == pytest.approx(experts * (2 - widened) + dense * (kept - widened), rel=1e-6)


def test_bitsandbytes_is_gone_from_0_28():
    from kvplan.errors import InputError

    kvplan.fit("Qwen/Qwen2.5-7B-Instruct", "L4", quantization="bitsandbytes", vllm_version="0.27.0", fixes=False)
    with pytest.raises(InputError, match="vLLM 0.28.0 no longer has quantization method 'bitsandbytes'") as e:
        kvplan.fit("Qwen/Qwen2.5-7B-Instruct", "L4", quantization="bitsandbytes", vllm_version="0.28.0", fixes=False)
    assert "newest release read that has it is 0.27.0" in str(e.value) and "--vllm-version 0.27.0" in e.value.fix


def test_a_bitsandbytes_checkpoint_is_refused_from_0_28_too():
    # found by a sweep: only the --quantization flag was refused, so a pre-quantized bnb checkpoint planned a start on
    # 0.28-0.33, whose ModelConfig._verify_quantization raises "Unknown quantization method: bitsandbytes" for it
    from kvplan.errors import InputError

    _, spec = _qwen25_7b(BNB4_QC)
    assert kvplan.fit(spec, "L4", vllm_version="0.27.0", fixes=False).fits
    for version in ("0.28.0", "0.33.0"):
        with pytest.raises(InputError, match=f"bitsandbytes checkpoint .* vLLM {version} no longer has") as e:
            kvplan.fit(spec, "L4", vllm_version=version, fixes=False)
        assert e.value.field == "model" and "--vllm-version 0.27.0" in e.value.fix
    # an unquantized checkpoint and the other methods of 0.28 are unaffected
    assert kvplan.fit(_qwen25_7b()[1], "L4", vllm_version="0.28.0", fixes=False).fits
    assert kvplan.fit("Qwen/Qwen3-32B-FP8", "H100", vllm_version="0.28.0", fixes=False).fits


def test_a_qwen_vision_towers_linear_layers_are_quantized_unless_the_checkpoint_skips_them():
    from kvplan.weights import vision_linear_params

    m = resolve_model("Qwen/Qwen3-VL-2B-Instruct")
    tower = vision_linear_params(m)
    assert tower > 0
    linear_only = weights_per_rank(m, quant=replace(BNB_IN_FLIGHT, applies_to="linear")).bytes
    assert linear_only - weights_per_rank(m, quant=BNB_IN_FLIGHT).bytes == pytest.approx(tower * (2 - 0.5625), abs=2)
    skipped = replace(BNB_IN_FLIGHT, skip=("visual",))
    assert weights_per_rank(m, quant=skipped).bytes == linear_only
    p = kvplan.fit(m, "L4", quantization="bitsandbytes", vllm_version="0.16.0", fixes=False)
    assert any("vision tower's Linear layers included" in n for n in p.assumptions)
