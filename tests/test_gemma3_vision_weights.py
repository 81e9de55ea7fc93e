"""Gemma 3's vision side as vLLM builds it (gemma3_mm.py, siglip.py; 0.9.1 and 0.20.0): a SigLIP tower built with the
model's quantization config, whose MLP (fc1, fc2) stays unquantized unless hidden and intermediate sizes are multiples
of 64 (SiglipMLP "quantizable"; bitsandbytes and torchao convert it regardless), a learned position table of one row per
patch, and a one-matrix projector (mm_input_projection_weight, vision hidden x text hidden)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from kvplan.resolve import BNB_IN_FLIGHT, QuantSpec, resolve_model
from kvplan.weights import count_weights, vision_bnb_only_params, vision_linear_params, weights_per_rank

GIB = 1024 ** 3
ONLINE = QuantSpec("fp8", 8, None, "fp8 per-tensor (online)", applies_to="all_linear")


def test_the_tower_projector_and_position_table_are_counted_as_built():
    m = resolve_model("google/gemma-3-27b-it")
    v = m.vision_config
    h, inter, layers = v["hidden_size"], v["intermediate_size"], v["num_hidden_layers"]  # 1152, 4304, 27
    assert (h, inter, layers) == (1152, 4304, 27)
    vision = sum(c.params for c in count_weights(m).components if c.name == "vision")
    per_layer = 4 * h * h + 2 * h * inter + 9 * h + inter  # q, k, v, o, fc1, fc2 with their biases, two LayerNorms
    patches = (v["image_size"] // v["patch_size"]) ** 2  # 64 x 64 position rows
    expected = layers * per_layer + 3 * 14 * 14 * h + patches * h + 2 * h + h * m.hidden_size + h
    assert vision == expected
    # not a LLaVA two-layer projector: no text hidden x text hidden matrix
    assert vision < expected + m.hidden_size * m.hidden_size // 2


def test_online_fp8_converts_attention_but_not_the_siglip_mlp():
    m = resolve_model("google/gemma-3-27b-it")
    h, inter, layers = 1152, 4304, 27
    assert inter % 64 and vision_linear_params(m) == layers * 4 * h * h
    assert vision_bnb_only_params(m) == layers * 2 * h * inter
    for tp in (1, 2):
        a = weights_per_rank(m, tp=tp, quant=ONLINE).bytes
        b = weights_per_rank(m, tp=tp, quant=replace(ONLINE, applies_to="linear")).bytes
        assert b - a == layers * 4 * h * h // tp  # qkv_proj and out_proj: one byte less per weight, split over TP
    # bitsandbytes converts the MLP too
    bnb = weights_per_rank(m, quant=BNB_IN_FLIGHT).bytes
    bnb_linear = weights_per_rank(m, quant=replace(BNB_IN_FLIGHT, applies_to="linear")).bytes
    assert bnb_linear - bnb > (layers * (4 * h * h + 2 * h * inter)) * 1.4


def test_the_blind_online_fp8_records():
    from kvplan.validate import predict_record

    path = Path(__file__).parent / "data" / "blind_records.jsonl"
    recs = {r["id"]: r for r in map(json.loads, path.read_text().splitlines()) if "gemma-3-27b-it-fp8online" in r["id"]}
    for rid, lo, hi in (("gemma-3-27b-it-fp8online-b200-u090-tp1-l512-llm", 27.40, 27.50),
                        ("gemma-3-27b-it-fp8online-b200-u090-tp2-l512-llm", 13.90, 14.00)):
        p, _ = predict_record(recs[rid])
        # logged 27.4321 and 13.9147 GiB; the tower in bfloat16 and a two-layer projector gave 27.64 and 14.05
        assert lo < p.weights_bytes / GIB < hi


def test_the_online_fp8_note_says_the_mlp_stays_unquantized():
    import kvplan

    p = kvplan.fit("google/gemma-3-27b-it", "H100", quantization="fp8", max_model_len=4096, fixes=False)
    assert any("Linear layers included but its MLP" in n for n in p.assumptions)
