"""Expert-parallel load balancing (--enable-eplb): redundant experts per rank, the balancer's state, vLLM's refusals,
the flags' form per release in the launch files and their reading back from a startup log."""

import json

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
    # state: the load window (1000 steps x 48 layers x 160 physical experts int32), one layer's 40 local experts and
    # logical_to_physical_map's 1024 replica slots per logical expert whatever R (MAX_EXPERT_REDUNDANCY + 1, 0.33.0)
    window = 1000 * 48 * 160 * 4
    buffer = 40 * expert
    replica_map = 48 * 128 * 1024 * 8
    grown = eplb.weights_bytes - base.weights_bytes
    assert grown >= extra_experts + window + buffer + replica_map
    assert grown < extra_experts + window + buffer + replica_map + 1024 ** 2  # the other maps and counters are small
    assert eplb.kv_cache_tokens < base.kv_cache_tokens


def test_no_redundant_experts_leaves_the_experts_but_adds_the_state():
    base = _fit(enable_expert_parallel=True, vllm_version="0.33.0")
    eplb = _fit(enable_expert_parallel=True, enable_eplb=True, vllm_version="0.33.0")
    grown = eplb.weights_bytes - base.weights_bytes
    expert = 3 * base.model.hidden_size * base.model.moe_intermediate_size * 2
    state = 1000 * 48 * 128 * 4 + 32 * expert + 48 * 128 * 1024 * 8
    assert state <= grown < state + 1024 ** 2


def test_the_replica_map_takes_1024_slots_until_0_34_and_last_expert_load_comes_in_0_31():
    def state(version, **kw):
        base = _fit(enable_expert_parallel=True, vllm_version=version)
        eplb = _fit(enable_expert_parallel=True, enable_eplb=True, vllm_version=version, **kw)
        return eplb.weights_bytes - base.weights_bytes
    # 0.34.0 sizes logical_to_physical_map at R + 1 = 1 slot (R = 0 divides 128 over 4 ranks), 0.33.0 at 1024; both
    # keep last_expert_load
    assert state("0.33.0") - state("0.34.0") == 48 * 128 * (1024 - 1) * 8
    # last_expert_load (48 MoE layers x 128 logical experts int64): in 0.31.0's EPLB state, not in 0.30.0's
    assert state("0.31.0") - state("0.30.0") == 48 * 128 * 8
    # a smaller load window shrinks the state by its steps (int32 per layer and physical expert)
    assert state("0.33.0") - state("0.33.0", eplb_config={"window_size": 10}) == 990 * 48 * 128 * 4


def test_more_than_1023_redundant_experts_are_refused_from_0_10():
    with pytest.raises(RefusedByVLLMError, match="num_redundant_experts 1024 must be less than or equal to 1023"):
        _fit(enable_expert_parallel=True, enable_eplb=True, eplb_config={"num_redundant_experts": 1024},
             vllm_version="0.33.0")
    # FusedMoE's even-distribution check comes first, while the model loads
    with pytest.raises(RefusedByVLLMError, match="Got 1154 experts and 4 EP ranks"):
        _fit(enable_expert_parallel=True, enable_eplb=True, eplb_config={"num_redundant_experts": 1026},
             vllm_version="0.33.0")
    assert rules_for("0.9.2").eplb_max_redundant is None and rules_for("0.10.0").eplb_max_redundant == 1023


def test_an_nccl_communicator_with_async_eplb_is_refused_from_0_24():
    cfg = {"communicator": "pynccl"}
    with pytest.raises(RefusedByVLLMError, match="pynccl communicator is incompatible with async EPLB"):
        _fit(enable_expert_parallel=True, enable_eplb=True, eplb_config=cfg, vllm_version="0.24.0")
    # use_async off, or 0.23.0 (async by default, no check yet), or 0.22.1 (synchronous by default) start
    _fit(enable_expert_parallel=True, enable_eplb=True, eplb_config={**cfg, "use_async": False}, vllm_version="0.24.0")
    _fit(enable_expert_parallel=True, enable_eplb=True, eplb_config=cfg, vllm_version="0.23.0")
    with pytest.raises(RefusedByVLLMError, match="torch_nccl communicator"):
        _fit(enable_expert_parallel=True, enable_eplb=True, eplb_config={"communicator": "torch_nccl",
                                                                         "use_async": True}, vllm_version="0.24.0")


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


def test_eplb_config_bounds_as_each_release_holds_them():
    kw = dict(enable_expert_parallel=True, enable_eplb=True)
    # 0.20.0 on: EPLBConfig's Fields (ge=0, gt=0) refuse as --eplb-config is read, EPLB on or not, every field at once
    with pytest.raises(RefusedByVLLMError) as e:
        _fit(eplb_config={"num_redundant_experts": -1}, vllm_version="0.33.0", **kw)
    assert e.value.message == ("1 validation error for EPLBConfig: num_redundant_experts: Input should be greater than "
                               "or equal to 0")
    with pytest.raises(RefusedByVLLMError) as e:
        _fit(enable_expert_parallel=True, eplb_config={"window_size": 0, "step_interval": -3, "window": 1},
             vllm_version="0.34.0")
    assert e.value.message == ("3 validation errors for EPLBConfig: window_size: Input should be greater than 0; "
                               "step_interval: Input should be greater than 0; window: Extra inputs are not permitted")
    # 0.11.1-0.19.x bound num_redundant_experts only; the window is unchecked there (kvplan refuses it under EPLB with
    # what vLLM then does), and ignored without EPLB
    with pytest.raises(RefusedByVLLMError, match="greater than or equal to 0"):
        _fit(eplb_config={"num_redundant_experts": -4}, vllm_version="0.19.1", **kw)
    with pytest.raises(InputError, match="vLLM 0.19.1 does not check it, and its first served step fails") as e:
        _fit(eplb_config={"window_size": 0}, vllm_version="0.19.1", **kw)
    assert not isinstance(e.value, RefusedByVLLMError)
    with pytest.raises(InputError, match="the model load fails"):
        _fit(eplb_config={"window_size": -5}, vllm_version="0.12.0", **kw)
    _fit(enable_expert_parallel=True, eplb_config={"window_size": 0}, vllm_version="0.19.1")
    _fit(eplb_config={"step_interval": 0}, vllm_version="0.19.1", **kw)
    # 0.9.2-0.11.0: ParallelConfig.__post_init__'s own words, under EPLB
    with pytest.raises(RefusedByVLLMError) as e:
        _fit(eplb_config={"num_redundant_experts": -4}, vllm_version="0.11.0", **kw)
    assert e.value.message == "num_redundant_experts must be non-negative, but got -4."
    with pytest.raises(RefusedByVLLMError, match="non-negative, but got -4.") as e:
        _fit(num_redundant_experts=-4, vllm_version="0.10.1", **kw)
    assert e.value.field == "--num-redundant-experts"
    # 0.11.1-0.11.2's deprecated flag is not validated: kvplan's own refusal
    with pytest.raises(InputError, match="does not check the deprecated flag") as e:
        _fit(num_redundant_experts=-4, vllm_version="0.11.1", **kw)
    assert not isinstance(e.value, RefusedByVLLMError)


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


def test_the_unsupported_method_refusal_names_its_class_as_each_release_words_it():
    kw = dict(enable_expert_parallel=True, enable_eplb=True, quantization="bitsandbytes")
    with pytest.raises(RefusedByVLLMError) as e:
        _fit(vllm_version="0.14.1", **kw)
    assert e.value.message == ("EPLB is not supported BitsAndBytesMoEMethod. EPLB is only supported for FP8 "
                               "quantization for now.")
    with pytest.raises(RefusedByVLLMError) as e:
        _fit(vllm_version="0.15.0", **kw)
    assert e.value.message == "EPLB is not supported BitsAndBytesMoEMethod."
    # 0.11.0 still checks the method's type: FP8 or unquantized
    with pytest.raises(RefusedByVLLMError) as e:
        _fit(vllm_version="0.11.0", **kw)
    assert e.value.message == "EPLB is only supported for FP8 quantization for now."


def test_compressed_tensors_int4_experts_refuse_eplb_on_marlin_before_0_21():
    from dataclasses import replace
    from kvplan.plan.eplb import ct_wna16_marlin, eplb_quant_key, resolve_eplb
    from kvplan.resolve import QuantSpec
    p = _fit(enable_expert_parallel=True, vllm_version="0.19.1")
    model = p.model  # hidden 2048, experts 768 wide: Marlin's shapes at group 128
    quant = QuantSpec("compressed-tensors", 4, 128, "int4 w4a16", weight_only=True)
    assert ct_wna16_marlin(model, quant, None) is True
    assert ct_wna16_marlin(model, replace(quant, group_size=256), None) is False  # group not 32 / 64 / 128 / -1
    assert ct_wna16_marlin(replace(model, moe_intermediate_size=96), quant, None) is False  # 96 % 128
    args = replace(p.args, enable_eplb=True)
    assert eplb_quant_key(model, quant, rules_for("0.19.1")) == "ct_wna16"
    with pytest.raises(RefusedByVLLMError) as e:
        resolve_eplb(model, quant, args, rules_for("0.19.1"), [])
    assert e.value.message == "EPLB is not supported CompressedTensorsWNA16MarlinMoEMethod."
    # the Triton class takes it (0 redundant experts: 0.19.1's default)
    assert resolve_eplb(replace(model, moe_intermediate_size=96), quant, args, rules_for("0.19.1"), []) == 0
    # 0.11.1 refuses both classes, with the note of its release
    with pytest.raises(RefusedByVLLMError, match="not supported CompressedTensorsWNA16MoEMethod. EPLB is only"):
        resolve_eplb(replace(model, moe_intermediate_size=96), quant, args, rules_for("0.11.1"), [])


def test_compressed_tensors_int4_experts_eplb_0_21_to_0_32():
    """0.21.0-0.26.x still build CompressedTensorsWNA16MarlinMoEMethod (no EPLB) where the Marlin check passes, with
    allow_tile_padding=not is_actorder from 0.25.0; from 0.27.0 CompressedTensorsWNA16MoEMethod decides by its kernel
    backend (compressed_tensors_moe/compressed_tensors_moe.py get_moe_method, compressed_tensors_moe_wna16.py
    supports_eplb)."""
    from dataclasses import replace
    from kvplan.plan.eplb import ct_wna16_marlin, resolve_eplb
    from kvplan.resolve import QuantSpec
    p = _fit(enable_expert_parallel=True, vllm_version="0.22.0")
    model = p.model  # hidden 2048, experts 768 wide: Marlin's shapes at group 128
    quant = QuantSpec("compressed-tensors", 4, 128, "int4 w4a16", weight_only=True)
    args = replace(p.args, enable_eplb=True)
    for v in ("0.21.0", "0.22.0", "0.24.0", "0.26.0"):
        with pytest.raises(RefusedByVLLMError) as e:
            resolve_eplb(model, quant, args, rules_for(v), [], [])
        assert e.value.message == "EPLB is not supported CompressedTensorsWNA16MarlinMoEMethod.", v
    # experts 96 wide in groups of 32: strict shape (96 % 64) up to 0.24 -> the Triton class balances; 0.25.0 pads
    # the width to the tile (96 % 32 == 0) -> Marlin, unless the checkpoint orders activations (strict again)
    narrow, g32 = replace(model, moe_intermediate_size=96), replace(quant, group_size=32)
    assert ct_wna16_marlin(narrow, g32, None, rules_for("0.24.0")) is False
    assert ct_wna16_marlin(narrow, g32, None, rules_for("0.26.0")) is True
    assert ct_wna16_marlin(narrow, replace(g32, act_order=True), None, rules_for("0.26.0")) is False
    warns: list[str] = []
    assert resolve_eplb(narrow, g32, args, rules_for("0.24.0"), [], warns) == 0 and not warns
    with pytest.raises(RefusedByVLLMError, match="CompressedTensorsWNA16MarlinMoEMethod"):
        resolve_eplb(narrow, g32, args, rules_for("0.26.0"), [], [])
    # 0.27.0 on: one class, EPLB only on its Triton backend; Marlin takes these experts on an H100 (refused there),
    # a layer Marlin cannot take is left to the backend warning, as is a plan with no GPU to judge by
    h100 = p.gpu
    assert h100.vendor == "NVIDIA" and h100.cc == (9, 0)
    for v in ("0.27.0", "0.28.0", "0.30.0", "0.32.0", "0.33.0", "0.34.0"):
        with pytest.raises(RefusedByVLLMError) as e:
            resolve_eplb(model, quant, args, rules_for(v), [], [], h100)
        assert e.value.message == "EPLB is not supported CompressedTensorsWNA16MoEMethod.", v
        warns = []
        assert resolve_eplb(model, quant, args, rules_for(v), [], warns) == 0
        assert any("kernel backends" in w for w in warns), v
        warns = []
        assert resolve_eplb(replace(model, moe_intermediate_size=96), quant, args, rules_for(v), [], warns, h100) == 0
        assert any("kernel backends" in w for w in warns), v
    # act order keeps Marlin's strict shape up to 0.29 (96 % 64), pads from 0.30.0
    ordered = replace(g32, act_order=True)
    warns = []
    assert resolve_eplb(narrow, ordered, args, rules_for("0.28.0"), [], warns, h100) == 0 and warns
    with pytest.raises(RefusedByVLLMError, match="CompressedTensorsWNA16MoEMethod"):
        resolve_eplb(narrow, ordered, args, rules_for("0.30.0"), [], [], h100)


def test_experts_int8_balances_from_0_20():
    from kvplan.versions import eplb_quant_support
    # ExpertsInt8Config builds Int8OnlineMoEMethod (an OnlineMoEMethodBase, supports_eplb) from 0.20.0
    assert eplb_quant_support("experts_int8", (0, 19, 1)) == "no"
    assert eplb_quant_support("experts_int8", (0, 20, 0)) == "yes"
    assert eplb_quant_support("experts_int8", (0, 33, 0)) == "yes"


def test_model_classes_balance_from_the_release_that_first_has_them():
    # Glm4MoeLiteForCausalLM implements MixtureOfExperts from 0.15.0, Step3p5 from 0.15.1, Gemma 4 from 0.19.0, the
    # Qwen3.5 MoE class from 0.17.0 (model registries and classes of the 0.14.1-0.19.1 wheels)
    for arch, first, before in (("Glm4MoeLiteForCausalLM", (0, 15, 0), (0, 14, 1)),
                                ("Step3p5ForCausalLM", (0, 15, 1), (0, 15, 0)),
                                ("Gemma4ForCausalLM", (0, 19, 0), (0, 18, 1)),
                                ("Qwen3_5MoeForConditionalGeneration", (0, 17, 0), (0, 16, 0))):
        assert eplb_architecture([arch], first) and not eplb_architecture([arch], before), arch


def test_fp8_experts_on_flashinfers_trtllm_kernel_refuse_eplb_on_blackwell():
    on = (("VLLM_USE_FLASHINFER_MOE_FP8", "1"),)
    latency = on + (("VLLM_FLASHINFER_MOE_BACKEND", "latency"),)

    def fit(gpu, version, env):
        return kvplan.fit("Qwen/Qwen3-30B-A3B-FP8", gpu, tensor_parallel_size=4, enable_expert_parallel=True,
                          enable_eplb=True, vllm_version=version, env=env)
    # 0.13.0-0.14.1 pick TRTLLM at load (latency is the default backend) and its forward refuses EPLB
    with pytest.raises(RefusedByVLLMError) as e:
        fit("B200", "0.14.1", on)
    assert e.value.message == "EPLB not supported for `Fp8MoEMethod` yet."
    # 0.15.x passes TRTLLM over under EPLB unless the backend is asked for, then refuses it at load
    with pytest.raises(RefusedByVLLMError, match="since kernel does not support parallel config."):
        fit("B200", "0.15.0", latency)
    fit("B200", "0.15.0", on)
    # not on Hopper (the kernel is Blackwell's), not without the variable, not in 0.12.0
    fit("H100", "0.14.1", on)
    fit("B200", "0.14.1", ())
    fit("B200", "0.12.0", on)
    # 0.17.0-0.23.x: the kernel's class refuses the same way, its reason going on with the rank's parallel config
    for version in ("0.17.1", "0.23.0"):
        with pytest.raises(RefusedByVLLMError, match="since kernel does not support parallel config {"):
            fit("B200", version, latency)
        fit("B200", version, on)
    # 0.24.0 on: neither variable picks the FP8 MoE kernel any more
    fit("B200", "0.24.0", latency)


def test_unknown_eplb_config_keys_are_refused_from_0_16():
    with pytest.raises(RefusedByVLLMError, match="window: Extra inputs are not permitted") as e:
        _fit(enable_expert_parallel=True, enable_eplb=True, eplb_config={"window": 10}, vllm_version="0.16.0")
    assert "window_size" in e.value.fix
    # communicator is a field from 0.20.0, enable_migration_batching from 0.32.0
    with pytest.raises(RefusedByVLLMError, match="communicator: Extra inputs"):
        _fit(enable_expert_parallel=True, enable_eplb=True, eplb_config={"communicator": "nixl"}, vllm_version="0.19.1")
    _fit(enable_expert_parallel=True, enable_eplb=True, eplb_config={"communicator": "nixl"}, vllm_version="0.20.0")
    with pytest.raises(RefusedByVLLMError, match="enable_migration_batching"):
        _fit(enable_expert_parallel=True, enable_eplb=True, eplb_config={"enable_migration_batching": True},
             vllm_version="0.31.0")
    _fit(enable_expert_parallel=True, enable_eplb=True, eplb_config={"enable_migration_batching": True},
         vllm_version="0.32.0")


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


def test_eplb_state_counts_the_moe_layers_of_the_stage_vllm_pp_layer_partition_gives():
    # Qwen3-30B-A3B's 48 decoder layers are all MoE; VLLM_PP_LAYER_PARTITION=40,8 puts 40 on the first stage, whose
    # weights the plan holds (kv.pp_stages), so the balancer's state counts 40 MoE layers there, not an even split's 24
    kw = dict(tensor_parallel_size=2, pipeline_parallel_size=2, enable_expert_parallel=True, enable_eplb=True,
              eplb_config={"num_redundant_experts": 32}, vllm_version="0.33.0")

    def state_note(env):
        p = _fit(env=env, **kw)
        return next(n for n in p.assumptions if n.startswith("EPLB state per rank"))
    split, even = state_note((("VLLM_PP_LAYER_PARTITION", "40,8"),)), state_note(())
    assert "expert_load_window 1000 x 40 x 160 int32" in split and "logical_replica_count 40 x 128 int64" in split
    assert "expert_load_window 1000 x 24 x 160 int32" in even
    # the exchange buffer copies one MoE layer's local experts, whichever stage holds how many layers
    buffer = [n[n.index("expert_buffer"):].split(")")[1] for n in (split, even)]
    assert buffer[0] == buffer[1]


def test_awq_and_gptq_experts_refusal_names_the_class_vllm_builds():
    from dataclasses import replace
    from kvplan.plan.eplb import resolve_eplb
    from kvplan.resolve import QuantSpec
    p = _fit(enable_expert_parallel=True, vllm_version="0.15.0")
    args = replace(p.args, enable_eplb=True)
    narrow = dict(moe_intermediate_size=96)  # 96 % 128: check_moe_marlin_supports_layer fails at group 128

    def refusal(method, version, model_kw=(), **args_kw):
        qc = {"quant_method": method, "bits": 4, "group_size": 128, "sym": True, "desc_act": False, "zero_point": True}
        model = replace(p.model, raw_config={**p.model.raw_config, "quantization_config": qc}, **dict(model_kw))
        quant = QuantSpec(method, 4, 128, "int4")
        with pytest.raises(RefusedByVLLMError) as e:
            resolve_eplb(model, quant, replace(args, **args_kw), rules_for(version), [], gpu=p.gpu)
        return e.value.message
    assert refusal("awq", "0.15.0") == "EPLB is not supported AWQMarlinMoEMethod."
    assert refusal("awq", "0.11.1") == ("EPLB is not supported AWQMoEMethod. EPLB is only supported for FP8 "
                                        "quantization for now.")
    assert refusal("awq", "0.15.0", narrow) == "EPLB is not supported MoeWNA16Method."
    # GPTQ: the Marlin class only where vLLM converts the checkpoint to gptq_marlin
    assert refusal("gptq", "0.19.1") == "EPLB is not supported GPTQMarlinMoEMethod."
    assert refusal("gptq", "0.19.1", quantization="gptq") == "EPLB is not supported MoeWNA16Method."
    assert refusal("gptq", "0.19.1", narrow) == "EPLB is not supported MoeWNA16Method."
    # 0.21.0 on: GPTQMarlinMoEMethod while gptq_marlin.py converts the checkpoint (0.21), AutoGPTQMoEMethod from 0.22.0
    # whatever GPTQ name --quantization gives; AWQMarlinMoEMethod up to 0.23, AutoAWQMoEMethod from 0.24.0
    assert refusal("gptq", "0.21.0") == "EPLB is not supported GPTQMarlinMoEMethod."
    assert refusal("gptq", "0.21.0", quantization="gptq") == "EPLB is not supported MoeWNA16Method."
    for version in ("0.22.0", "0.28.0", "0.34.0"):
        assert refusal("gptq", version) == "EPLB is not supported AutoGPTQMoEMethod."
        assert refusal("gptq", version, quantization="gptq") == "EPLB is not supported AutoGPTQMoEMethod."
        assert refusal("gptq", version, dict(moe_intermediate_size=1000)) == "EPLB is not supported MoeWNA16Method."
    assert refusal("awq", "0.23.0") == "EPLB is not supported AWQMarlinMoEMethod."
    for version in ("0.24.0", "0.30.0", "0.33.0"):
        assert refusal("awq", version) == "EPLB is not supported AutoAWQMoEMethod."
        assert refusal("awq", version, dict(moe_intermediate_size=1000)) == "EPLB is not supported MoeWNA16Method."


def test_awq_and_gptq_experts_marlin_check_pads_and_drops_the_router_check_by_release():
    """check_moe_marlin_supports_layer as each release asks it (plan.eplb.wna16_marlin_fits): strict up to 0.24 (the
    width a multiple of max(64, group)), allow_tile_padding from 0.25.0 (the width a multiple of the group; GPTQ with
    act order strict until 0.30.0), the router-on-input refusal (Llama 4) up to 0.26."""
    from dataclasses import replace
    from kvplan.plan.eplb import resolve_eplb
    from kvplan.resolve import QuantSpec
    p = _fit(enable_expert_parallel=True, vllm_version="0.24.0")
    args = replace(p.args, enable_eplb=True)

    def cls(method, version, group=32, desc_act=False, **model_kw):
        qc = {"quant_method": method, "bits": 4, "group_size": group, "sym": True, "desc_act": desc_act,
              "zero_point": True}
        model = replace(p.model, raw_config={**p.model.raw_config, "quantization_config": qc}, **model_kw)
        with pytest.raises(RefusedByVLLMError) as e:
            resolve_eplb(model, QuantSpec(method, 4, group, "int4"), args, rules_for(version), [], gpu=p.gpu)
        return e.value.message.removeprefix("EPLB is not supported ").removesuffix(".")
    # experts 96 wide in groups of 32: 96 % 64 fails the strict shape, 96 % 32 passes the padded one
    assert cls("awq", "0.24.0", moe_intermediate_size=96) == "MoeWNA16Method"
    assert cls("awq", "0.25.0", moe_intermediate_size=96) == "AutoAWQMoEMethod"
    assert cls("gptq", "0.24.0", moe_intermediate_size=96) == "MoeWNA16Method"
    assert cls("gptq", "0.26.0", moe_intermediate_size=96) == "AutoGPTQMoEMethod"
    assert cls("gptq", "0.26.0", desc_act=True, moe_intermediate_size=96) == "MoeWNA16Method"
    assert cls("gptq", "0.30.0", desc_act=True, moe_intermediate_size=96) == "AutoGPTQMoEMethod"
    # Llama 4's router weight on the input: refused by the check up to 0.26, not from 0.27.0
    assert cls("awq", "0.26.0", model_type="llama4_text") == "MoeWNA16Method"
    assert cls("awq", "0.27.0", model_type="llama4_text") == "AutoAWQMoEMethod"


@pytest.mark.parametrize("key,value", [("window_size", "--5"), ("num_redundant_experts", "--2"),
                                       ("step_interval", "abc"), ("log_balancedness_interval", "1.5"),
                                       ("window_size", "²")])
def test_an_eplb_config_value_that_is_not_a_whole_number_is_an_input_error(key, value):
    # vLLM's EPLBConfig types these fields int: pydantic refuses what is not one; kvplan names the key, never crashes
    with pytest.raises(InputError) as e:
        _fit(enable_expert_parallel=True, enable_eplb=True, eplb_config=json.dumps({key: value}),
             vllm_version="0.20.0")
    assert e.value.field == "--eplb-config" and f"{key} must be a whole number" in e.value.message
    # a signed whole number is read (and then held to the release's bound)
    with pytest.raises(RefusedByVLLMError, match=f"{key}: Input should be greater than"):
        _fit(enable_expert_parallel=True, enable_eplb=True, eplb_config=json.dumps({key: " -5 "}),
             vllm_version="0.20.0")


def test_a_flashinfer_fp8_variable_vllm_cannot_read_as_int_is_an_input_error():
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen3-30B-A3B-FP8", "B200", tensor_parallel_size=4, enable_expert_parallel=True,
                   enable_eplb=True, vllm_version="0.20.0", env=(("VLLM_USE_FLASHINFER_MOE_FP8", "--1"),))
    assert e.value.field == "--env" and "VLLM_USE_FLASHINFER_MOE_FP8" in e.value.message
