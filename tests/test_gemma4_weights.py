"""Gemma 4's weights as vLLM builds them (models/gemma4.py, gemma4_mm.py, rotary_embedding/gemma4_rope.py; read in the
0.19.0, 0.20.0, 0.22.0, 0.25.1 and 0.33.0 wheels): the V slot of qkv_proj on attention_k_eq_v layers (filled at load
from k_proj, not in the files), one rotary cache per layer type (the proportional global rope caches the whole
head), and transformers' vision tower (a two-axis position table) with a one-matrix projector."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

from kvplan.resolve import resolve_model
from kvplan.validate import predict_record
from kvplan.weights import LOAD_COPY, _rotary_bytes, count_weights, stored_bytes, weights_per_rank

GIB = 1024 ** 3
DATA = Path(__file__).parent / "data"


def _spec():
    return resolve_model("google/gemma-4-26B-A4B")


def test_k_eq_v_layers_hold_a_value_slot_filled_at_load():
    m = _spec()
    t = m.text_config
    assert t["attention_k_eq_v"] and t["global_head_dim"] == 512 and t["num_global_key_value_heads"] == 2
    full = [i for i, l in enumerate(m.layers) if l.kind == "full"]
    copies = [c for c in count_weights(m).components if c.kind == LOAD_COPY]
    assert sorted(c.layer for c in copies) == full and len(full) == 5
    assert all(c.params == m.hidden_size * 2 * 512 for c in copies)  # hidden x kv heads x global head dim
    # on the GPU, not on disk: the stored bytes leave it out
    on_gpu = weights_per_rank(m).bytes - _rotary_bytes(m, 2)
    assert on_gpu - stored_bytes(m) == sum(c.params for c in copies) * 2


def test_one_rotary_cache_per_layer_type_and_proportional_rope_caches_the_whole_head():
    m = _spec()
    # sliding: default rope over head_dim 256; full: proportional, partial 0.25 of 512, cached over all 512
    assert _rotary_bytes(m, 2) == 262144 * (256 + 512) * 2
    # the same rope on both layer types with the same head size would be one cache
    t = copy.deepcopy(m.text_config)
    t["global_head_dim"] = 256
    t["rope_parameters"]["full_attention"] = dict(t["rope_parameters"]["sliding_attention"])
    assert _rotary_bytes(replace(m, text_config=t), 2) == 262144 * 256 * 2
    # a partial rope that is not proportional caches only its rotated part
    t["global_head_dim"] = 512
    t["rope_parameters"]["full_attention"] = {"rope_type": "default", "rope_theta": 1e6, "partial_rotary_factor": 0.25}
    assert _rotary_bytes(replace(m, text_config=t), 2) == 262144 * (256 + 128) * 2


def test_the_vision_tower_is_counted_tensor_by_tensor():
    m = _spec()
    v = m.vision_config
    h, inter, layers = v["hidden_size"], v["intermediate_size"], v["num_hidden_layers"]
    assert (h, inter, layers, v["position_embedding_size"]) == (1152, 4304, 27, 10240)
    vision = sum(c.params for c in count_weights(m).components if c.name == "vision")
    per_layer = 4 * h * h + 2 * 72 + 3 * h * inter + 4 * h
    expected = layers * per_layer + 3 * 16 * 16 * h + 2 * 10240 * h + 2 * h + h * m.hidden_size
    assert vision == expected == 572_794_416


def test_bf16_startups_are_within_a_tenth_of_a_percent():
    # both bf16 Gemma-4-26B-A4B startups (vLLM 0.19.0 on an A100, 0.20.2 on an H200) log 48.5 GiB; 48.17 before
    records = [json.loads(l) for f in ("extra_records.jsonl",) for l in (DATA / f).read_text().splitlines() if l.strip()]
    rec = next(r for r in records if r["id"] == "gemma-4-26b-a4b-it-h200-u090-tp1")
    plan, _ = predict_record(rec)
    got = plan.weights_bytes / GIB
    assert abs(got - 48.5) / 48.5 < 0.001, got
