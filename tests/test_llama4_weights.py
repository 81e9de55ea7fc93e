"""Llama 4's weights: every MoE layer holds one shared expert beside the routed ones, as wide as a routed expert
(vLLM's Llama4MoE: shared_expert = LlamaMLP(intermediate_size=config.intermediate_size)), and its dense layers are
intermediate_size_mlp wide (Llama4DecoderLayer), vllm/model_executor/models/llama4.py in the 0.10.0, 0.19.0, 0.29.0
and 0.33.0 wheels. Without the shared expert Scout counted 102 B parameters and 11.5 B active, and the thirteenth
blind round's Llama-4-Scout TP4 startup (vLLM 0.19.0, H100) loaded 3.03 GiB per rank more than kvplan planned."""

from __future__ import annotations

from pathlib import Path

from kvplan.resolve import resolve_model
from kvplan.validate import load_records, predict_record
from kvplan.weights import count_weights

BLIND = Path(__file__).parent / "data" / "blind_records.jsonl"


def _params(model: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in count_weights(resolve_model(model)).components:
        out[c.name] = out.get(c.name, 0) + c.params
    return out


def test_every_scout_moe_layer_holds_a_shared_expert():
    spec = resolve_model("meta-llama/Llama-4-Scout-17B-16E-Instruct")
    assert spec.shared_expert_intermediate_size == int(spec.text_config["intermediate_size"]) == 8192
    p = _params("meta-llama/Llama-4-Scout-17B-16E-Instruct")
    # 48 MoE layers (interleave_moe_layer_step 1) x gate/up/down 3 x hidden 5120 x 8192
    assert p["shared_expert"] == 48 * 3 * 5120 * 8192
    assert "mlp" not in p


def test_maverick_dense_layers_are_intermediate_size_mlp_wide():
    p = _params("meta-llama/Llama-4-Maverick-17B-128E-Instruct")
    # interleave_moe_layer_step 2: 24 dense layers of intermediate_size_mlp 16384, 24 MoE layers with a shared expert
    assert p["mlp"] == 24 * 3 * 5120 * 16384
    assert p["shared_expert"] == 24 * 3 * 5120 * 8192


def test_the_counts_match_the_model_cards():
    # Meta's model cards: Scout 17B active / 109B total, Maverick 17B active / 400B total parameters
    for model, total in (("meta-llama/Llama-4-Scout-17B-16E-Instruct", 109e9),
                         ("meta-llama/Llama-4-Maverick-17B-128E-Instruct", 400e9)):
        c = count_weights(resolve_model(model))
        assert abs(c.total_params / total - 1) < 0.015
        assert abs(c.active_params / 17e9 - 1) < 0.05


def test_the_h100_tp4_startup_loads_what_kvplan_counts():
    # 'Model loading took 53.12 GiB memory' per rank (llm-d-incubation/llm-d-planner, vLLM 0.19.0): kvplan 52.90 GiB
    (rec,) = [r for r in load_records(BLIND) if r["id"] == "llama-4-scout-17b-16e-instruct-h100-u095-tp4-l8k-noprefix"]
    plan, _ = predict_record(rec)
    assert abs(plan.weights_bytes / 1024 ** 3 / rec["observed"]["weights_gib"] - 1) < 0.01
