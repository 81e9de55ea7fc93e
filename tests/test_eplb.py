"""Expert-parallel load balancing (--enable-eplb): redundant experts per rank, the balancer's state, vLLM's refusals,
the flags' form per release in the launch files and their reading back from a startup log."""

import pytest

import kvplan
from kvplan.errors import InputError, RefusedByVLLMError
from kvplan.logs import parse_lines
from kvplan.versions import EPLB_ARCHITECTURES, eplb_architecture, rules_for

MOE = "Qwen/Qwen3-30B-A3B"  # 128 experts, 48 MoE layers, hidden 2048, moe_intermediate_size 768, bf16


def _fit(**kw):
    kw.setdefault("tensor_parallel_size", 4)
    return kvplan.fit(MOE, "H100", **kw)


def test_redundant_experts_add_whole_experts_per_rank_and_the_state_to_the_weights():
    base = _fit(enable_expert_parallel=True, vllm_version="0.33.0")
    eplb = _fit(enable_expert_parallel=True, enable_eplb=True, eplb_config='{"num_redundant_experts": 32}',
                vllm_version="0.33.0")
    m = base.model
    expert = 3 * m.hidden_size * m.moe_intermediate_size * 2  # gate, up, down in bf16
    # (128 + 32) / 4 = 40 experts per rank instead of 32, on each of the 48 MoE layers
    extra_experts = 8 * 48 * expert
    # state: the load window (1000 steps x 48 layers x 160 physical experts int32) and one layer's 40 local experts
    window = 1000 * 48 * 160 * 4
    buffer = 40 * expert
    grown = eplb.weights_bytes - base.weights_bytes
    assert grown >= extra_experts + window + buffer
    assert grown < extra_experts + window + buffer + 4 * 1024 ** 2  # the maps and counters are small
    assert eplb.kv_cache_tokens < base.kv_cache_tokens


def test_no_redundant_experts_leaves_the_experts_but_adds_the_state():
    base = _fit(enable_expert_parallel=True, vllm_version="0.33.0")
    eplb = _fit(enable_expert_parallel=True, enable_eplb=True, vllm_version="0.33.0")
    grown = eplb.weights_bytes - base.weights_bytes
    expert = 3 * base.model.hidden_size * base.model.moe_intermediate_size * 2
    assert 1000 * 48 * 128 * 4 + 32 * expert <= grown < 1000 * 48 * 128 * 4 + 32 * expert + 2 * 1024 ** 2


def test_before_0_20_the_state_is_outside_the_budget_and_warned():
    base = _fit(enable_expert_parallel=True, vllm_version="0.11.0")
    eplb = _fit(enable_expert_parallel=True, enable_eplb=True, num_redundant_experts=32, vllm_version="0.11.0")
    expert = 3 * base.model.hidden_size * base.model.moe_intermediate_size * 2
    assert eplb.weights_bytes - base.weights_bytes == 8 * 48 * expert
    assert any("EPLB state per rank" in w and "no term of its budget" in w for w in eplb.warnings)


def test_0_34_defaults_to_the_fewest_redundant_experts_that_divide_evenly():
    # 128 experts over EP 6 (TP 6 is refused by the heads: use DP): 6 - 128 % 6 = 4 redundant
    r34 = rules_for("0.34.0")
    assert r34.eplb_redundant_default == "min_divisible" and rules_for("0.33.0").eplb_redundant_default == 0
    p = kvplan.fit(MOE, "H100", tensor_parallel_size=2, data_parallel_size=3, enable_expert_parallel=True,
                   enable_eplb=True, vllm_version="0.34.0")
    assert any("takes the fewest" in n and ": 4" in n for n in p.assumptions)
    with pytest.raises(RefusedByVLLMError, match="EPLB currently only supports even distribution of experts across "
                                                 "ranks. Got 128 experts and 6 EP ranks."):
        kvplan.fit(MOE, "H100", tensor_parallel_size=2, data_parallel_size=3, enable_expert_parallel=True,
                   enable_eplb=True, vllm_version="0.33.0")


def test_refusals_carry_vllms_messages():
    with pytest.raises(RefusedByVLLMError, match="enable_expert_parallel must be True to use EPLB.") as e:
        _fit(enable_eplb=True, vllm_version="0.33.0")
    assert e.value.field == "--enable-eplb" and "--enable-expert-parallel" in e.value.fix
    with pytest.raises(RefusedByVLLMError, match="num_redundant_experts is set to 8 but EPLB is not enabled") as e:
        _fit(enable_expert_parallel=True, eplb_config={"num_redundant_experts": 8}, vllm_version="0.33.0")
    assert e.value.field == "--eplb-config"
    with pytest.raises(RefusedByVLLMError, match="EPLB requires tensor, prefill-context, or data parallelism"):
        kvplan.fit(MOE, "H100", tensor_parallel_size=1, enable_expert_parallel=True, enable_eplb=True,
                   vllm_version="0.33.0")
    with pytest.raises(RefusedByVLLMError, match="Got 130 experts and 4 EP ranks"):
        _fit(enable_expert_parallel=True, enable_eplb=True, eplb_config={"num_redundant_experts": 2},
             vllm_version="0.33.0")
    with pytest.raises(InputError, match="non-negative"):
        _fit(enable_expert_parallel=True, enable_eplb=True, eplb_config={"num_redundant_experts": -1})


def test_flags_by_release():
    with pytest.raises(InputError, match="no --enable-eplb flag"):
        _fit(enable_expert_parallel=True, enable_eplb=True, vllm_version="0.9.1")
    with pytest.raises(InputError, match="no --eplb-config flag.*--num-redundant-experts"):
        _fit(enable_expert_parallel=True, enable_eplb=True, eplb_config={"num_redundant_experts": 32},
             vllm_version="0.10.1")
    with pytest.raises(InputError, match="removed in vLLM 0.12.0"):
        _fit(enable_expert_parallel=True, enable_eplb=True, num_redundant_experts=32, vllm_version="0.12.0")
    with pytest.raises(InputError, match="VLLM_ALL2ALL_BACKEND"):
        _fit(enable_expert_parallel=True, all2all_backend="deepep_low_latency", vllm_version="0.11.0")


def test_a_class_without_eplb_support_starts_unbalanced():
    # Qwen3MoeForCausalLM implements MixtureOfExperts from 0.10.1; 0.10.0 builds it without redundant experts
    assert not eplb_architecture(["Qwen3MoeForCausalLM"], (0, 10, 0))
    assert eplb_architecture(["Qwen3MoeForCausalLM"], (0, 10, 1))
    assert EPLB_ARCHITECTURES["DeepseekV3ForCausalLM"][0] == ((0, 9, 2), True)
    base = _fit(enable_expert_parallel=True, vllm_version="0.10.0")
    eplb = _fit(enable_expert_parallel=True, enable_eplb=True, num_redundant_experts=32, vllm_version="0.10.0")
    assert eplb.weights_bytes == base.weights_bytes
    assert any("does not implement MixtureOfExperts" in w for w in eplb.warnings)


def test_unquantized_experts_are_refused_by_0_9_2():
    with pytest.raises(RefusedByVLLMError, match="EPLB is only supported for FP8 quantization for now."):
        kvplan.fit("deepseek-ai/DeepSeek-V2-Lite", "H100", tensor_parallel_size=2, enable_expert_parallel=True,
                   enable_eplb=True, vllm_version="0.9.2")


def test_serve_sh_writes_the_releases_form(tmp_path):
    from kvplan.deploy import _eplb_flags
    old = _fit(enable_expert_parallel=True, enable_eplb=True, num_redundant_experts=32, vllm_version="0.10.1")
    new = _fit(enable_expert_parallel=True, enable_eplb=True, num_redundant_experts=32, vllm_version="0.11.0")
    assert [(f.name, f.value) for f in _eplb_flags(old.args, "0.10.1")] == [("--enable-eplb", None),
                                                                          ("--num-redundant-experts", "32")]
    assert [(f.name, f.value) for f in _eplb_flags(new.args, "0.11.0")] == [("--enable-eplb", None),
                                                                          ("--eplb-config", '{"num_redundant_experts":32}')]


def test_a_startup_logs_eplb_args_are_read():
    line = ("INFO 12-01 10:00:00 [utils.py:233] non-default args: {'model': 'Qwen/Qwen3-30B-A3B', "
            "'tensor_parallel_size': 4, 'enable_expert_parallel': True, 'enable_eplb': True, 'eplb_config': "
            "EPLBConfig(window_size=500, step_interval=3000, num_redundant_experts=32, log_balancedness=False), "
            "'all2all_backend': 'deepep_low_latency'}")
    got = parse_lines([line]).eplb_given()
    assert got == {"enable_eplb": True, "eplb_config": {"num_redundant_experts": 32, "window_size": 500},
                   "all2all_backend": "deepep_low_latency"}
    cmd = "INFO 12-01 10:00:00 [cli.py] args: vllm serve Qwen/Qwen3-30B-A3B --enable-eplb --num-redundant-experts 16"
    assert parse_lines([cmd]).eplb_given() == {"enable_eplb": True, "num_redundant_experts": 16}


@pytest.mark.parametrize("text,message,fix", [
    ("{bad json", "cannot read '{bad json' as JSON", "give a JSON object, e.g. '{\"num_redundant_experts\": 32}'"),
    ("[1, 2]", "must be a JSON object, got [1, 2]", "e.g. '{\"num_redundant_experts\": 32, \"window_size\": 1000}'"),
])
def test_eplb_config_that_is_no_json_object_is_refused_on_every_read(text, message, fix):
    args = kvplan.EngineArgs(enable_expert_parallel=True, enable_eplb=True, eplb_config=text)
    for _ in range(2):  # nothing of a refused value is kept
        with pytest.raises(InputError) as e:
            args.eplb_settings
        assert (e.value.field, e.value.message, e.value.fix) == ("--eplb-config", message, fix)
    with pytest.raises(InputError) as e:
        _fit(enable_expert_parallel=True, enable_eplb=True, eplb_config=text, vllm_version="0.33.0")
    assert (e.value.field, e.value.message, e.value.fix) == ("--eplb-config", message, fix)


def test_eplb_config_json_is_parsed_once_per_plan(monkeypatch):
    """A plan reads --eplb-config from the flags as given and from the EngineArgs resolved from them: the JSON text is
    parsed once, and each read still gets a dict of its own."""
    import dataclasses
    import importlib
    import json

    args_mod = importlib.import_module("kvplan.plan.args")
    text = '{"num_redundant_experts": 16,  "window_size": 777}'  # (a text no other test parses)
    parses = []
    loads = json.loads
    monkeypatch.setattr(args_mod.json, "loads", lambda s, *a, **k: (parses.append(s), loads(s, *a, **k))[1])
    p = _fit(enable_expert_parallel=True, enable_eplb=True, eplb_config=text, vllm_version="0.34.0")
    assert p.fits and p.args.eplb_redundant == 16
    args = kvplan.EngineArgs(enable_expert_parallel=True, enable_eplb=True, eplb_config=" " + text)
    first = args.eplb_settings
    first["window_size"] = 1
    assert dataclasses.replace(args, tensor_parallel_size=2).eplb_settings == {"num_redundant_experts": 16,
                                                                                "window_size": 777}
    assert parses.count(text) == 1
