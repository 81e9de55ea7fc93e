"""A skip list is asked by the module names each model file gives its layers: a two-matrix MLP's own names (phi's
fc1 / fc2, GPT-NeoX's dense_h_to_4h / dense_4h_to_h under gpt_neox.layers), a Mamba-2 mixer's in_proj / out_proj
(granite-4.0-h: mamba, Nemotron-H: mixer), and a Mamba-1 mixer, which vLLM builds with no quant_config, is never
converted (layers/mamba/mamba_mixer.py MambaMixer, 0.10.2-0.33.0; models/jamba.py JambaMambaMixer, 0.6.3)."""
import copy
import json
from dataclasses import replace
from pathlib import Path

import pytest

from kvplan.resolve import normalize, resolve_model
from kvplan.weights import bytes_per_quantized_param, component_modules, count_weights, stored_bytes, weights_per_rank

BLIND = Path(__file__).parent / "data" / "blind_records.jsonl"
BNB4_QC = {"quant_method": "bitsandbytes", "load_in_4bit": True, "load_in_8bit": False, "bnb_4bit_quant_type": "nf4",
           "bnb_4bit_use_double_quant": False, "bnb_4bit_compute_dtype": "bfloat16", "llm_int8_skip_modules": None}
CT_FP8 = {"quant_method": "compressed-tensors", "format": "float-quantized", "quantization_status": "compressed",
          "config_groups": {"group_0": {"targets": ["Linear"],
                                        "weights": {"num_bits": 8, "type": "float", "strategy": "channel",
                                                    "symmetric": True, "dynamic": False},
                                        "input_activations": {"num_bits": 8, "type": "float", "strategy": "token",
                                                              "symmetric": True, "dynamic": True}}}}


def _with(config: dict, qc: dict, model_id: str):
    raw = copy.deepcopy(config)
    raw["quantization_config"] = qc
    return normalize(raw, model_id=model_id, source="test")


def _skip(spec, *entries):
    return replace(spec, quant=replace(spec.quant, skip=tuple(entries)))


def _params(spec, name):
    return sum(c.params for c in count_weights(spec).components if c.name == name)


def test_phi_mlp_is_asked_as_fc1_and_fc2():
    """models/phi.py PhiMLP builds fc1 and fc2 (0.24.0, 0.31.0); PhiAttention qkv_proj and dense. AWQ reads
    modules_to_not_convert by containment: 'fc1', 'fc2' keep every MLP in the model dtype; 'up_proj', 'down_proj' were
    read as naming it and name nothing in vLLM. The attention's qkv_proj and dense are asked apart."""
    rec = next(json.loads(line) for line in BLIND.open() if '"microsoft/phi-2"' in line)
    awq = _with(rec["model"]["config"], {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True,
                                        "version": "gemm", "modules_to_not_convert": None}, "test/phi-2-AWQ")
    mods = {component_modules(c, "phi") for c in count_weights(awq).components if c.name in ("mlp", "self_attn")}
    assert mods == {("mlp.fc1", "mlp.fc2"), ("self_attn.qkv_proj", "self_attn.dense")}
    base = stored_bytes(awq)
    wide = 2 - bytes_per_quantized_param(awq.quant)
    assert stored_bytes(_skip(awq, "fc1", "fc2")) - base == pytest.approx(_params(awq, "mlp") * wide, rel=1e-9)
    assert stored_bytes(_skip(awq, "up_proj", "down_proj")) == base
    # attention: q/k/v and dense (o_proj is no module of phi's)
    attn = _params(awq, "self_attn") + _params(awq, "kv_proj")
    assert stored_bytes(_skip(awq, "q_proj", "k_proj", "v_proj", "dense")) - base == pytest.approx(attn * wide, rel=1e-9)
    # o_proj names nothing of phi; q_proj, k_proj and v_proj name qkv_proj, kept in the model dtype apart from dense
    # (each Linear asked by its own prefix)
    qkv_only = stored_bytes(_skip(awq, "q_proj", "k_proj", "v_proj", "o_proj"))
    assert qkv_only == stored_bytes(_skip(awq, "qkv_proj")) and base < qkv_only
    assert qkv_only - base < attn * wide


def test_gpt_neox_layers_are_asked_under_gpt_neox_layers():
    """gpt_neox.py builds gpt_neox.layers.N.mlp.dense_h_to_4h / dense_4h_to_h (0.24.0, 0.31.0): a compressed-tensors
    ignore list asks for the whole name, so a 're:' pattern for them keeps the MLPs in bf16; the model.layers spelling
    names nothing."""
    pythia = {"architectures": ["GPTNeoXForCausalLM"], "model_type": "gpt_neox", "hidden_size": 2048,
              "intermediate_size": 8192, "num_attention_heads": 8, "num_hidden_layers": 16, "vocab_size": 50304,
              "max_position_embeddings": 2048, "rotary_pct": 0.25, "hidden_act": "gelu", "torch_dtype": "float16",
              "tie_word_embeddings": False, "use_parallel_residual": True}
    m = _with(pythia, dict(CT_FP8, ignore=["embed_out"]), "test/pythia-1b-FP8")
    base = stored_bytes(m)
    mlp = _params(m, "mlp")
    assert mlp == 16 * 2 * 2048 * 8192
    own = _with(pythia, dict(CT_FP8, ignore=["embed_out", r"re:gpt_neox\.layers\.\d+\.mlp\.dense_(h_to_4h|4h_to_h)$"]),
                "test/pythia-1b-FP8")
    assert stored_bytes(own) - base == pytest.approx(mlp * (2 - 1), rel=1e-9)
    other = _with(pythia, dict(CT_FP8, ignore=["embed_out", r"re:model\.layers\.\d+\.mlp\.dense_(h_to_4h|4h_to_h)$"]),
                  "test/pythia-1b-FP8")
    assert stored_bytes(other) == base


def test_mamba2_mixers_are_asked_by_in_proj_and_out_proj():
    """MambaMixer2 hands its quant_config to in_proj and out_proj (layers/mamba/mamba_mixer2.py, 0.33.0), built at
    layers.N.mamba for granite-4.0-h (granitemoehybrid.py) and layers.N.mixer for Nemotron-H (nemotron_h.py): an
    ignore list naming both keeps the mixers in bf16; kvplan asked the mixers no name and kept them FP8."""
    for model_id, path in (("ibm-granite/granite-4.0-h-small", "mamba"), ("nvidia/Nemotron-H-56B-Base-8K", "mixer")):
        cfg = resolve_model(model_id).raw_config
        m = _with(cfg, dict(CT_FP8, ignore=["lm_head"]), f"test/{model_id}-FP8")
        kept = _with(cfg, dict(CT_FP8, ignore=["lm_head", rf"re:.*\.{path}\.(in|out)_proj$"]), f"test/{model_id}-FP8")
        mixer = _params(m, "mixer")
        assert mixer > 0
        assert stored_bytes(kept) - stored_bytes(m) == pytest.approx(mixer * (2 - 1), rel=1e-9)
        # the other model's path names nothing
        wrong = "mixer" if path == "mamba" else "mamba"
        miss = _with(cfg, dict(CT_FP8, ignore=["lm_head", rf"re:.*\.{wrong}\.(in|out)_proj$"]), f"test/{model_id}-FP8")
        assert stored_bytes(miss) == stored_bytes(m)


def test_mamba1_mixers_are_never_converted():
    """Jamba's bitsandbytes configs list llm_int8_skip_modules ["mamba"]; vLLM keeps the Mamba-1 mixers 16-bit with or
    without it (MambaMixer builds them without a quant_config), and converts the rest."""
    cfg = resolve_model("ai21labs/Jamba-v0.1").raw_config
    m = _with(cfg, BNB4_QC, "test/Jamba-v0.1-bnb-4bit")
    listed = _with(cfg, dict(BNB4_QC, llm_int8_skip_modules=["mamba"]), "test/Jamba-v0.1-bnb-4bit")
    assert weights_per_rank(m, tp=2).bytes == weights_per_rank(listed, tp=2).bytes
    unquantized = resolve_model("ai21labs/Jamba-v0.1")
    mixer = _params(m, "mixer")
    assert mixer > 0
    # every byte the 4-bit load saves comes from the attention, MLP and expert weights, none from the mixers
    saved = stored_bytes(unquantized) - stored_bytes(m)
    converted = sum(c.params for c in count_weights(m).components if c.quantizable)
    assert saved == pytest.approx(converted * (2 - bytes_per_quantized_param(m.quant)), rel=1e-9)
    assert not any(c.quantizable for c in count_weights(m).components if c.name == "mixer")
