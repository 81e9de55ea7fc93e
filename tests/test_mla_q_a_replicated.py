"""An MLA layer with a compressed query (q_lora_rank) holds its query down-projection q_a_proj (hidden x q_lora_rank)
whole on every rank, like kv_a_proj_with_mqa: models/deepseek_v2.py builds it as a ReplicatedLinear (0.9.1, 0.27.1) or
fuses both into DeepSeekV2FusedQkvAProjLinear, a MergedColumnParallelLinear with disable_tp=True (0.20.0). Only
q_b_proj, kv_b_proj and o_proj are split by TP."""

from __future__ import annotations

from kvplan.resolve import resolve_model
from kvplan.weights import count_weights, weights_per_rank

GIB = 1024 ** 3


def test_q_a_proj_is_counted_replicated():
    spec = resolve_model("deepseek-ai/DeepSeek-R1")  # hidden 7168, q_lora_rank 1536, kv_lora_rank 512, rope 64
    t = spec.text_config
    h, q_rank = spec.hidden_size, int(t["q_lora_rank"])
    layer0 = [c for c in count_weights(spec).components if c.layer == 0]
    replicated = next(c for c in layer0 if c.name == "mla_replicated")
    assert replicated.shard == "replicated"
    assert replicated.params == h * (q_rank + 512 + 64)  # q_a_proj and kv_a_proj_with_mqa
    sharded = next(c for c in layer0 if c.kind == "mla")
    nh = spec.num_attention_heads
    assert sharded.params == q_rank * nh * 192 + 512 * nh * 256 + nh * 128 * h  # q_b, kv_b, o_proj


def test_tp_keeps_a_whole_q_a_proj_per_rank():
    spec = resolve_model("deepseek-ai/DeepSeek-R1")
    h, q_rank, layers = spec.hidden_size, int(spec.text_config["q_lora_rank"]), 61
    one, eight = weights_per_rank(spec, tp=1), weights_per_rank(spec, tp=8)
    # the FP8 q_a_proj (1 B a weight + a float32 scale per 128 x 128 block) of all 61 layers sits on each of the 8 ranks
    q_a_bytes = layers * h * q_rank * (1 + 4 / (128 * 128))
    assert one.bytes > eight.bytes
    rest = (one.bytes - one.rotary_bytes - q_a_bytes) / 8  # were everything else split evenly...
    assert eight.bytes - eight.rotary_bytes > rest + q_a_bytes * 0.99  # ...the whole q_a_proj is still on the rank
    assert abs(q_a_bytes * 7 / 8 / GIB - 0.547) < 0.01  # what the TP8 count gained over sharding it


def test_deepseek_v2_lite_projects_its_query_directly():
    """DeepSeek-V2-Lite's config.json sets q_lora_rank null (the catalog completes the key its copy lacked:
    tools/build_catalog.py CONFIG_COMPLETIONS), so its layers hold a plain q_proj (hidden x heads x 192) and no
    q_a_proj; with transformers' default of 1536 they would hold a query LoRA the checkpoint does not have."""
    spec = resolve_model("deepseek-ai/DeepSeek-V2-Lite")
    assert spec.text_config.get("q_lora_rank") is None
    h, nh = spec.hidden_size, spec.num_attention_heads
    layer0 = [c for c in count_weights(spec).components if c.layer == 0]
    assert next(c for c in layer0 if c.name == "mla_replicated").params == h * (512 + 64)  # kv_a_proj_with_mqa only
    assert next(c for c in layer0 if c.kind == "mla").params == h * nh * 192 + 512 * nh * 256 + nh * 128 * h
    # about 15.7 B parameters in all (the model card's 16 B total)
    assert 15.4e9 < count_weights(spec).total_params < 16.0e9
