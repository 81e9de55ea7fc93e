"""FP8 weights of the Qwen3.5/3.6 hybrids: which modules an FP8 checkpoint and online --quantization fp8 convert."""

from __future__ import annotations

import copy
import json
from dataclasses import replace

import kvplan
from kvplan.resolve import GIB, QuantSpec, normalize, resolve_model
from kvplan.weights import count_weights, stored_bytes, weights_per_rank

MIB = 2 ** 20


def _qwen36_27b(quantization_config: dict | None) -> kvplan.ModelSpec:
    """Qwen3.5/3.6-27B's own config (kvplan's catalog) with a quantization_config as its FP8 release would carry."""
    raw = copy.deepcopy(resolve_model("Qwen/Qwen3.5-27B").raw_config)
    if quantization_config is not None:
        raw["quantization_config"] = quantization_config
    return normalize(raw, model_id="test/Qwen3.6-27B-FP8", source="test")


def _linear_attention_layers(spec) -> list[int]:
    return [i for i, t in enumerate(spec.text_config["layer_types"]) if t == "linear_attention"]


def _fp8(skip: list[str], block: bool = True) -> dict:
    q = {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3", "modules_to_not_convert": skip}
    return dict(q, weight_block_size=[128, 128]) if block else q


def test_an_fp8_checkpoint_that_keeps_in_proj_a_and_b_converts_the_rest_of_each_gated_deltanet_layer():
    base = _qwen36_27b(None)
    lin = _linear_attention_layers(base)
    assert len(lin) == 48
    # Qwen's FP8 releases list in_proj_a and in_proj_b of every linear-attention layer (block-wise FP8 cannot convert
    # the fused in_proj_ba), and the vision tower; per-tensor scales here, so that a converted weight is one byte less
    ba = ["lm_head"] + [f"model.language_model.layers.{i}.linear_attn.in_proj_{x}" for i in lin for x in "ab"]
    vision = [f"model.visual.blocks.{b}.attn.qkv" for b in range(27)] + ["model.visual.merger.linear_fc1"]
    listed = stored_bytes(_qwen36_27b(_fp8(ba + vision, block=False)))
    nothing = stored_bytes(_qwen36_27b(_fp8(["lm_head"], block=False)))
    # in_proj_ba: 2 x 48 value heads x 5,120 per layer, one byte more per weight in bfloat16; nothing else changes
    assert listed - nothing == 48 * 2 * 48 * 5120 * (2 - 1)
    # naming modules without quantizable weights (conv1d, A_log) keeps the layer's projections in FP8
    extra = [f"model.language_model.layers.{i}.linear_attn.{m}" for i in lin for m in ("conv1d", "A_log", "norm")]
    assert stored_bytes(_qwen36_27b(_fp8(ba + extra, block=False))) == listed
    # the projections themselves named: the whole layer in bfloat16, as a whole-layer pattern leaves it
    proj = [f"model.language_model.layers.{i}.linear_attn.{m}" for i in lin for m in ("in_proj_qkv", "in_proj_z", "out_proj")]
    whole = stored_bytes(_qwen36_27b(_fp8(["lm_head", "re:.*linear_attn.*"], block=False)))
    assert stored_bytes(_qwen36_27b(_fp8(ba + proj, block=False))) == whole
    gdn = sum(c.params for c in count_weights(base).components if c.name == "linear_attn")
    assert whole - nothing == gdn


def test_the_qwen36_27b_fp8_startup_is_counted_within_its_logged_model_loading():
    # vLLM 0.27.1, one H100, --language-model-only: "Model loading took 27.67 GiB memory"
    # (tests/data/extra_records.jsonl qwen3.6-27b-fp8-h100-u088-tp1-eager-l4k)
    lin = _linear_attention_layers(_qwen36_27b(None))
    spec = _qwen36_27b(_fp8(["lm_head"] + [f"model.language_model.layers.{i}.linear_attn.in_proj_{x}" for i in lin for x in "ab"]))
    p = kvplan.fit(spec, "H100", max_model_len=4096, vllm_version="0.27.1", language_model_only=True, enforce_eager=True,
                   fixes=False)
    assert abs(p.weights_bytes / GIB - 27.67) < 0.05
    # the vision tower of an FP8 checkpoint stays in bfloat16 when it is loaded
    q = spec.quant
    with_vision = weights_per_rank(spec, quant=q).bytes - weights_per_rank(spec, quant=q, vision=False).bytes
    vision = sum(c.params for c in count_weights(spec).components if c.name == "vision")
    assert with_vision == vision * 2


def test_online_fp8_converts_the_qwen_vision_towers_linear_layers_too():
    m = resolve_model("Qwen/Qwen3.5-27B")
    v = m.vision_config
    h, inter, depth = v["hidden_size"], v["intermediate_size"], v["depth"]
    merged = h * v["spatial_merge_size"] ** 2
    # every block's qkv, proj, linear_fc1 and linear_fc2 and the merger's two matrices (qwen3_vl.py); the Conv3d patch
    # embedding, the position table, biases and norms stay in bfloat16
    linear = depth * (4 * h * h + 2 * h * inter) + merged * merged + merged * v["out_hidden_size"]
    online = QuantSpec("fp8", 8, None, "fp8 per-tensor (online)", applies_to="all_linear")
    checkpoint = replace(online, applies_to="linear")
    for tp in (1, 2):
        a = weights_per_rank(m, tp=tp, quant=online).bytes
        b = weights_per_rank(m, tp=tp, quant=checkpoint).bytes
        assert b - a == linear // tp  # one byte less per weight, the tower split over TP
        # the language model is the same either way
        assert (weights_per_rank(m, tp=tp, quant=online, vision=False).bytes
                == weights_per_rank(m, tp=tp, quant=checkpoint, vision=False).bytes)
    p = kvplan.fit("Qwen/Qwen3.5-27B", "H100", quantization="fp8", max_model_len=4096, fixes=False)
    assert any("vision tower's Linear layers included" in n for n in p.assumptions)
    text = kvplan.fit("Qwen/Qwen3-8B", "H100", quantization="fp8", max_model_len=4096, fixes=False)
    assert not any("vision tower" in n for n in text.assumptions)


def test_online_fp8_on_a_tower_kvplan_keeps_unconverted_says_so():
    """Only the Qwen and Gemma 3 towers' Linear layers are converted by kvplan: for another multimodal model (LLaVA's
    CLIP tower) the note says the tower is counted in the model dtype rather than that its Linear layers are included."""
    from kvplan.weights import vision_linear_params

    m = resolve_model("llava-hf/llava-1.5-7b-hf")
    assert m.is_multimodal and vision_linear_params(m) == 0 < vision_linear_params(resolve_model("Qwen/Qwen3.5-27B"))
    online = QuantSpec("fp8", 8, None, "fp8 per-tensor (online)", applies_to="all_linear")
    assert weights_per_rank(m, quant=online).bytes == weights_per_rank(m, quant=replace(online, applies_to="linear")).bytes
    p = kvplan.fit("llava-hf/llava-1.5-7b-hf", "H100", quantization="fp8", max_model_len=4096, fixes=False)
    assert any("vision tower is counted in the model dtype" in n for n in p.assumptions)
    assert not any("Linear layers included" in n for n in p.assumptions)


def test_a_record_without_a_quantization_config_tells_online_fp8_from_a_stood_in_fp8_checkpoint():
    from kvplan.validate import predict_record

    line = next(l for l in open(__file__.replace("test_fp8_weights.py", "data/extra_records.jsonl"))
                if '"qwen3.5-27b-fp8online-rtx5090-u085-tp2-eager-l4k"' in l)
    rec = json.loads(line)
    online, notes = predict_record(copy.deepcopy(rec))
    assert any("quantized at load with the vision tower" in n for n in notes)
    stood_in = copy.deepcopy(rec)
    stood_in["model"]["id"] = "Qwen/Qwen3.5-27B-FP8"  # a quantized checkpoint's name: its vision tower stays bfloat16
    checkpoint, notes = predict_record(stood_in)
    assert not any("vision tower" in n for n in notes)
    spec = resolve_model("Qwen/Qwen3.5-27B")
    linear = sum(c.params for c in count_weights(spec).components if c.kind == "vision_linear")
    assert checkpoint.weights_bytes - online.weights_bytes == linear // 2  # TP2, one byte per weight


def test_block_wise_fp8_weights_carry_a_float32_scale_per_128_x_128_block():
    lin = _linear_attention_layers(_qwen36_27b(None))
    skip = ["lm_head"] + [f"model.language_model.layers.{i}.linear_attn.in_proj_{x}" for i in lin for x in "ab"]
    bf16 = stored_bytes(_qwen36_27b(None))
    per_tensor = _fp8(skip, block=False)
    tensor = stored_bytes(_qwen36_27b(per_tensor))
    block = stored_bytes(_qwen36_27b(_fp8(skip)))
    converted = bf16 - tensor  # every FP8 weight is one byte less than in bfloat16
    assert converted > 20e9
    assert abs((block - tensor) - converted * 4 / (128 * 128)) <= 1  # weight_scale_inv: 4 B per 16,384 weights
    assert _qwen36_27b(_fp8(skip)).quant.weight_block == (128, 128) and _qwen36_27b(per_tensor).quant.weight_block is None


def test_online_fp8_qwen35_27b_tp2_matches_a_module_by_module_count_of_vllm_0_17():
    """Issue 3 (the RTX 5090 TP2 online-FP8 record, 1.22 GiB more used than planned): the per-rank weights, counted
    module by module as vLLM 0.17.0 builds them, agree with kvplan's count, so the gap is not in the weights.
    Fp8Config.get_quant_method (quantization/fp8.py) gives every LinearBase Fp8OnlineLinearMethod (no ignored layers
    online): the MLPs, the full-attention qkv (gated q) and o_proj, the Gated DeltaNet in_proj_qkvz, in_proj_ba and
    out_proj (qwen3_next.py Qwen3NextGatedDeltaNet; conv1d is built without quant_config), and the vision tower's
    qkv, proj, fc1, fc2 and merger (qwen3_5.py Qwen3_5ForConditionalGeneration passes quant_config to
    Qwen3_VisionTransformer). The embedding and ParallelLMHead (no quant_config) stay bfloat16; the MTP layers are
    neither built nor loaded (load_weights skip_prefixes ["mtp."])."""
    m = resolve_model("Qwen/Qwen3.5-27B")
    t, v = m.text_config, m.vision_config
    h, vocab, inter, tp = t["hidden_size"], t["vocab_size"], t["intermediate_size"], 2
    kinds = t["layer_types"]
    n_full, n_lin = kinds.count("full_attention"), kinds.count("linear_attention")
    hd, heads, kv = t["head_dim"], t["num_attention_heads"], t["num_key_value_heads"]
    key, val, vheads = t["linear_num_key_heads"] * t["linear_key_head_dim"], \
        t["linear_num_value_heads"] * t["linear_value_head_dim"], t["linear_num_value_heads"]
    fp8 = len(kinds) * 3 * h * inter // tp
    fp8 += n_full * (h * (2 * heads * hd + 2 * kv * hd) + heads * hd * h) // tp
    fp8 += n_lin * (h * (2 * key + 2 * val) + h * 2 * vheads + val * h) // tp
    vh, vi, depth = v["hidden_size"], v["intermediate_size"], v["depth"]
    merged = vh * v["spatial_merge_size"] ** 2
    fp8 += (depth * (4 * vh * vh + 2 * vh * vi) + merged * merged + merged * v["out_hidden_size"]) // tp
    bf16 = 2 * 2 * vocab // tp * h  # embed_tokens and lm_head, vocab-parallel
    assert 14.9e9 < fp8 + bf16 < 15.0e9  # the rest (norms, conv1d, biases, patch and position embeddings) is ~10 MB
    online = QuantSpec("fp8", 8, None, "fp8 per-tensor (online)", applies_to="all_linear")
    w = weights_per_rank(m, tp=tp, quant=online)
    assert abs((w.bytes - w.rotary_bytes) - (fp8 + bf16)) < 0.001 * (fp8 + bf16)  # 14,954,180,976 B counted
