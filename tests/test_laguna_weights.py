"""Laguna's attention layers as vLLM builds them: each layer with its own head count (num_attention_heads_per_layer)
and a per-head output gate g_proj (models/laguna.py LagunaDecoderLayer / LagunaAttention, 0.21.0-0.33.0)."""
from __future__ import annotations

from dataclasses import replace

from named_records import record_plan
from kvplan.resolve import GIB, resolve_model
from kvplan.weights import count_weights, head_gate_width, layer_attention_heads, weights_per_rank

LAGUNA = "poolside/Laguna-S-2.1-FP8"


def _attention_params_by_hand(cfg: dict, heads_of) -> int:
    """q_proj (h -> heads x head_dim), o_proj (heads x head_dim -> h) and the per-head gate g_proj (h -> heads), no
    biases (attention_bias false), summed over the layers, from the config's numbers alone."""
    h, hd = cfg["hidden_size"], cfg["head_dim"]
    return sum(2 * h * heads_of(i) * hd + h * heads_of(i) for i in range(cfg["num_hidden_layers"]))


def test_each_layer_is_counted_with_its_own_heads_and_gate():
    m = resolve_model(LAGUNA)
    cfg = m.text_config
    per_layer = cfg["num_attention_heads_per_layer"]
    assert cfg["gating"] == "per-head" and cfg["num_attention_heads"] == 48
    assert sorted(set(per_layer)) == [48, 72] and per_layer.count(72) == 36
    assert [layer_attention_heads(m, i) for i in range(48)] == per_layer
    counted = sum(c.params for c in count_weights(m).components if c.name == "self_attn")
    assert counted == _attention_params_by_hand(cfg, lambda i: per_layer[i])
    # against every layer at num_attention_heads (48) and no gate, as counted before: 36 layers x 24 more heads of q
    # and o (36 x 2 x 3072 x 24 x 128 = 679,477,248) plus the gates (3072 x (12 x 48 + 36 x 72) = 9,732,096)
    uniform = _attention_params_by_hand(cfg, lambda i: 48) - 48 * 3072 * 48
    assert counted - uniform == 36 * 2 * 3072 * 24 * 128 + 3072 * (12 * 48 + 36 * 72) == 689_209_344
    # bf16 (no quantization): 1.28 GiB more on one rank, half of it on each of two
    bf16 = replace(m, quant=None)
    w1, w2 = weights_per_rank(bf16, tp=1).bytes, weights_per_rank(bf16, tp=2).bytes
    unif = replace(bf16, text_config={**bf16.text_config, "num_attention_heads_per_layer": [48] * 48, "gating": False})
    assert w1 - weights_per_rank(unif, tp=1).bytes == 2 * 689_209_344
    assert w2 - weights_per_rank(unif, tp=2).bytes == 689_209_344


def test_the_gate_width_follows_the_gating_field_and_the_model_type():
    m = resolve_model(LAGUNA)
    assert head_gate_width(m, 72, 128) == 72  # "per-head" (and True): one gate per head
    per_element = replace(m, text_config={**m.text_config, "gating": "per-element"})
    assert head_gate_width(per_element, 72, 128) == 72 * 128
    assert head_gate_width(replace(m, text_config={**m.text_config, "gating": False}), 72, 128) == 0
    # the field under a model type whose vLLM class does not read it changes nothing
    other = replace(m, model_type="qwen3_moe")
    assert head_gate_width(other, 72, 128) == 0 and layer_attention_heads(other, 1) == 48


def test_the_laguna_int4_records_gain_the_72_head_layers_and_stay_below_the_logged_load():
    # the two GB10 Laguna-S-2.1-INT4 startups (architecture from the FP8 checkpoint's config): the load vLLM logs
    # includes a DFlash drafter the record's flags do not describe, so the plan stays below it, and now at least the
    # 72-head layers' q_proj / o_proj / g_proj at INT4's 0.5195 bytes per weight above the 48-head count (57.51 GiB)
    for rid in ("laguna-s-2.1-int4-gb10-u089-tp1", "laguna-s-2.1-int4-gb10-u089-tp1-l256k"):
        rec, plan = record_plan("calibration.jsonl", rid)
        predicted = plan.weights_bytes / GIB
        assert predicted >= 57.51 + 679_477_248 * 0.5195 / GIB
        assert predicted < rec["observed"]["weights_gib"]


def test_regular_expression_ignore_entries_keep_their_modules_unquantized():
    """Laguna-S-2.1-FP8's compressed-tensors ignore list names its attention projections and shared experts as 're:'
    regular expressions ('re:.*\\.self_attn\\.q_proj$'), which vLLM matches against each module's whole name
    (compressed_tensors/utils.py check_equal_or_regex_match). Split on their escaped dots they named no module, so the
    attention and shared experts were counted as FP8: the plan must equal the one whose list spells the same modules
    by their whole names, layer by layer (what an exact entry names: an entry 'model.layers.*.self_attn.q_proj' names
    no module, as vLLM asks it), and hold more than the one whose list leaves them out."""
    import re

    m = resolve_model(LAGUNA)
    regex = [p for p in m.quant.skip if p.startswith("re:")]
    assert any("self_attn" in p for p in regex) and any("shared_expert" in p for p in regex)
    modules = ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj", "self_attn.g_proj",
               "mlp.gate", "mlp.shared_expert.gate_proj", "mlp.shared_expert.up_proj", "mlp.shared_expert.down_proj")
    # each regular expression matches exactly one of these modules' whole names, and each module is matched
    for p in regex:
        assert sum(bool(re.match(p[3:], f"model.layers.5.{n}")) for n in modules) == 1
    assert all(any(re.match(p[3:], f"model.layers.5.{n}") for p in regex) for n in modules)
    spelled = tuple(p for p in m.quant.skip if not p.startswith("re:")) + tuple(
        f"model.layers.{i}.{n}" for i in range(m.num_layers) for n in modules)
    dropped = tuple(p for p in m.quant.skip if not p.startswith("re:"))
    as_listed = weights_per_rank(m, tp=1).bytes
    assert as_listed == weights_per_rank(replace(m, quant=replace(m.quant, skip=spelled)), tp=1).bytes
    # a shell-wildcard entry names nothing under compressed-tensors: CompressedTensorsConfig.get_scheme_dict calls
    # should_ignore_layer without use_fnmatch, so each entry is an equal name or a "re:" match
    # (compressed_tensors/compressed_tensors.py, compressed_tensors/utils.py, utils/config_utils.py
    # is_equal_or_regex_match; 0.31.0)
    starred = tuple(p for p in m.quant.skip if not p.startswith("re:")) + tuple(f"model.layers.*.{n}" for n in modules)
    assert weights_per_rank(replace(m, quant=replace(m.quant, skip=starred)), tp=1).bytes < as_listed
    # the attention (q, k, v, o, the gate) and the shared experts at 2 bytes, not 1 (plus block scales): about 3 GiB
    assert 2.5 * GIB < as_listed - weights_per_rank(replace(m, quant=replace(m.quant, skip=dropped)), tp=1).bytes < 3.5 * GIB
