"""One pipeline-parallel layer split (vLLM's get_pp_indices) for the weights per stage and the KV layers per stage."""
import pytest

import kvplan
from kvplan.errors import InputError
from kvplan.api import engine_args
from kvplan.plan import build_groups, parse_env, pp_stages, resolve_args
from kvplan.resolve import resolve_gpu, resolve_model
from kvplan.versions import rules_for
from kvplan.weights import pp_layer_split, weights_per_rank


def sizes(split):
    return [hi - lo for lo, hi in split]


def test_uneven_split_follows_get_pp_indices_of_each_release():
    # vllm/distributed/utils.py get_pp_indices: from 0.8.0 (PR #13839) the leftover layers go one each to the stages
    # before the last, counted back from the second-to-last; up to 0.7.3 the last stage takes them all
    assert sizes(pp_layer_split(61, 4)) == [15, 15, 16, 15]
    assert sizes(pp_layer_split(30, 4)) == [7, 8, 8, 7]
    assert sizes(pp_layer_split(61, 8)) == [7, 7, 8, 8, 8, 8, 8, 7]  # the example of sglang PR #6666, taken from vLLM's
    assert sizes(pp_layer_split(61, 2)) == [31, 30]
    assert sizes(pp_layer_split(61, 8, remainder="last")) == [7] * 7 + [12]
    assert sizes(pp_layer_split(30, 4, remainder="last")) == [7, 7, 7, 9]
    assert sizes(pp_layer_split(32, 4)) == sizes(pp_layer_split(32, 4, remainder="last")) == [8] * 4
    assert rules_for("0.7.3").pp_remainder == "last" and rules_for("0.8.0").pp_remainder == "middle"
    assert rules_for("0.33.0").pp_remainder == "middle"


@pytest.mark.parametrize("version, expect", [("0.33.0", [15, 15, 16, 15]), ("0.7.3", [15, 15, 15, 16])])
def test_weights_and_kv_groups_read_the_same_stages(version, expect):
    """DeepSeek-V3 (61 layers) on 4 stages: the weights per stage are counted over the planner's split, and the KV
    group is the stage with most layers of that same split."""
    model = resolve_model("deepseek-ai/DeepSeek-V3")
    gpu, _ = resolve_gpu("H200")
    rules = rules_for(version)
    args = engine_args(max_model_len=8192, tensor_parallel_size=8, pipeline_parallel_size=4)
    resolved, quant, _, _ = resolve_args(model, gpu, args, rules)
    stages = pp_stages(model, resolved, rules)
    assert sizes(stages) == expect
    w = weights_per_rank(model, tp=8, pp=4, quant=quant, stages=stages)
    default = weights_per_rank(model, tp=8, pp=4, quant=quant)  # alone: the newest rule
    assert len(w.stage_bytes) == 4
    if version == "0.7.3":  # the last stage holds 16 layers and the LM head: heavier than any stage of the new split
        assert w.stage_bytes[3] == max(w.stage_bytes) and w.bytes > default.bytes
    else:
        assert w.stage_bytes == default.stage_bytes
    groups, _, _ = build_groups(model, resolved, rules, [], [], gpu)
    assert sum(g.num_layers for g in groups) == max(expect)


def test_layer_partition_env_moves_weights_and_kv_layers():
    """VLLM_PP_LAYER_PARTITION overrides the split for both: 8B Llama (32 layers) on 2 stages as 12 + 20 binds on the
    second stage's 20 KV layers, and its busiest rank holds 20 layers' weights."""
    kw = dict(max_model_len=8192, pipeline_parallel_size=2, fixes=False)
    even = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", **kw)
    skew = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", env={"VLLM_PP_LAYER_PARTITION": "12,20"}, **kw)
    assert even.groups[0].num_layers == 16 and skew.groups[0].num_layers == 20
    assert skew.weights_bytes > even.weights_bytes
    assert skew.kv_cache_tokens < even.kv_cache_tokens
    assert any("VLLM_PP_LAYER_PARTITION=12,20" in n for n in skew.assumptions)


@pytest.mark.parametrize("value, words", [("12,x", "comma-separated"), ("32", "1 stage(s) given"),
                                          ("12,12", "add up to 24"), ("0,32", "without a decoder layer")])
def test_layer_partition_env_refused_with_the_field_and_a_fix(value, words):
    with pytest.raises(InputError) as exc:
        kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=8192, pipeline_parallel_size=2,
                   env={"VLLM_PP_LAYER_PARTITION": value}, fixes=False)
    assert exc.value.field == "--env VLLM_PP_LAYER_PARTITION"
    assert words in str(exc.value) and "VLLM_PP_LAYER_PARTITION=16,16" in str(exc.value)


def test_env_string_keeps_a_comma_inside_a_value():
    assert parse_env("VLLM_PP_LAYER_PARTITION=12,20 VLLM_USE_V1=1") == (("VLLM_PP_LAYER_PARTITION", "12,20"),
                                                                         ("VLLM_USE_V1", "1"))
    assert parse_env("A=1,B=2") == (("A", "1"), ("B", "2"))


def test_a_decoder_layer_with_two_caches_is_split_as_one_layer():
    """Falcon-H1 keeps attention and Mamba state in each of its 44 decoder layers (88 cache layers): vLLM splits the 44
    (15, 15, 14 on 3 stages), and so do the weights and the KV layers per stage, two cache layers per decoder layer."""
    from kvplan.plan import stage_cache_layers

    model = resolve_model("tiiuae/Falcon-H1-7B")
    gpu, _ = resolve_gpu("L4")
    rules = rules_for("0.33.0")
    resolved, quant, _, _ = resolve_args(model, gpu, engine_args(max_model_len=8192, pipeline_parallel_size=3), rules)
    assert sizes(pp_stages(model, resolved, rules)) == [15, 15, 14]
    assert [len(layers) for layers in stage_cache_layers(model, resolved, rules)] == [30, 30, 28]
    w = weights_per_rank(model, pp=3, quant=quant, stages=pp_stages(model, resolved, rules))
    assert len(w.stage_bytes) == 3 and max(w.stage_bytes) < 0.45 * sum(w.stage_bytes)  # no stage holds every layer
    groups, _, _ = build_groups(model, resolved, rules, [], [], gpu)
    assert {(g.kind, g.num_layers) for g in groups} == {("full", 15), ("recurrent", 15)}
