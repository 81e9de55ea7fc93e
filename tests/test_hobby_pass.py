"""A hobbyist choosing a checkpoint for one consumer card: what vLLM does with low-precision weights the card cannot
compute natively."""

from __future__ import annotations

import pytest

import kvplan

MARLIN = "Weight-only {} compression will be used leveraging the Marlin kernel"


def _marlin(plan, bits):
    return [w for w in plan.warnings if MARLIN.format(bits) in w]


@pytest.mark.parametrize("gpu", ["RTX 3090", "RTX A6000", "A100-80GB"])
def test_fp8_weights_below_ada_are_served_weight_only_by_marlin(gpu):
    online = kvplan.fit("Qwen/Qwen3-14B", gpu=gpu, quantization="fp8", max_model_len=4096)
    checkpoint = kvplan.fit("Qwen/Qwen3-32B-FP8", gpu=gpu, max_model_len=4096)
    for plan in (online, checkpoint):
        (w,) = _marlin(plan, "FP8")
        assert "below the 8.9" in w and "GEMMs run in bfloat16" in w


@pytest.mark.parametrize("gpu", ["RTX 4090", "L4", "H100"])
def test_fp8_weights_from_ada_on_run_natively(gpu):
    assert not _marlin(kvplan.fit("Qwen/Qwen3-14B", gpu=gpu, quantization="fp8", max_model_len=4096), "FP8")


def test_nvfp4_below_blackwell_is_marlin_and_native_on_a_5090():
    assert _marlin(kvplan.fit("nvidia/Gemma-4-31B-IT-NVFP4", gpu="H100", max_model_len=4096), "FP4")
    assert not _marlin(kvplan.fit("nvidia/Gemma-4-31B-IT-NVFP4", gpu="RTX PRO 6000", max_model_len=4096), "FP4")
    # a ModelOpt mixed-precision checkpoint: its NVFP4 modules fall back on an RTX 4090, its FP8 ones do not
    (w,) = _marlin(kvplan.fit("nvidia/Qwen3.6-27B-NVFP4", gpu="RTX 4090", max_model_len=4096), "FP4")
    assert "mlp" in w and "below the 10.0" in w
    assert not _marlin(kvplan.fit("nvidia/Qwen3.6-27B-NVFP4", gpu="RTX 5090", max_model_len=4096), "FP4")


def test_a_16_bit_or_int4_checkpoint_gets_no_marlin_fallback_warning():
    for plan in (kvplan.fit("Qwen/Qwen3-8B", gpu="RTX 3090", max_model_len=4096),
                 kvplan.fit("Qwen/Qwen2.5-72B-Instruct-AWQ", gpu="H100", max_model_len=4096)):
        assert not _marlin(plan, "FP8") and not _marlin(plan, "FP4")


E5M2_REFUSAL = "fp8_e5m2 kv-cache is not supported with fp8 checkpoints."


@pytest.mark.parametrize("model, kw", [
    ("Qwen/Qwen3-30B-A3B-FP8", dict(gpu="H100")),                                     # Fp8Config: Fp8KVCacheMethod
    ("nvidia/Gemma-4-31B-IT-NVFP4", dict(gpu="RTX PRO 6000")),                        # ModelOptKVCacheMethod
    ("Qwen/Qwen3-14B", dict(gpu="RTX 3090", quantization="fp8", vllm_version="0.30.0")),  # online fp8 on Fp8Config
])
def test_e5m2_kv_cache_with_kv_scales_is_refused_as_vllm_refuses_it(model, kw):
    p = kvplan.fit(model, max_model_len=8192, kv_cache_dtype="fp8_e5m2", **kw)
    assert not p.fits and p.failure_code == "fp8_e5m2_kv_fp8_checkpoint"
    assert p.error.startswith(E5M2_REFUSAL) and "--kv-cache-dtype fp8 or auto" in p.error
    # the same plan with an e4m3 cache starts
    assert kvplan.fit(model, max_model_len=8192, kv_cache_dtype="fp8", **{k: v for k, v in kw.items()
                                                                          if k != "gpu"}, gpu="H100").fits


@pytest.mark.parametrize("model, kw", [
    ("Qwen/Qwen3-14B", dict(gpu="RTX 3090", quantization="fp8")),   # 0.31+: online fp8 is fp8_per_tensor, no KV method
    ("Qwen/Qwen2.5-72B-Instruct-AWQ", dict(gpu="H100")),             # AWQ gives attention no quant method
    ("Qwen/Qwen3-8B", dict(gpu="RTX 3090")),
])
def test_e5m2_kv_cache_without_kv_scales_starts(model, kw):
    p = kvplan.fit(model, max_model_len=8192, kv_cache_dtype="fp8_e5m2", **kw)
    assert p.fits and p.failure_code is None


def test_e5m2_kv_cache_with_a_modelopt_mixed_precision_checkpoint_follows_its_kv_algorithm(tmp_path):
    """ModelOptMixedPrecisionConfig gives attention a KV-cache method only where the checkpoint declares a KV-cache
    algorithm (modelopt.py, 0.17.1-0.33.0): without one vLLM starts with fp8_e5m2, with an FP8 one it refuses."""
    import json

    layers = {f"model.layers.{i}.{m}": ({"quant_algo": "NVFP4", "group_size": 16} if m.startswith("mlp")
                                         else {"quant_algo": "FP8"})
              for i in range(32) for m in ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
                                           "self_attn.o_proj", "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj")}
    plans = {}
    for kv in (None, "FP8"):
        qc = {"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION", "quantized_layers": layers}
        if kv:
            qc["kv_cache_quant_algo"] = kv
        d = tmp_path / str(kv)
        d.mkdir()
        (d / "config.json").write_text(json.dumps({
            "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
            "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32000, "intermediate_size": 11008,
            "max_position_embeddings": 8192, "torch_dtype": "bfloat16", "quantization_config": qc}))
        plans[kv] = kvplan.fit(str(d), gpu="H100", max_model_len=8192, kv_cache_dtype="fp8_e5m2")
    assert plans[None].fits and plans[None].failure_code is None
    assert not plans["FP8"].fits and plans["FP8"].failure_code == "fp8_e5m2_kv_fp8_checkpoint"


def test_the_pre_ada_e4m3_advice_does_not_send_an_fp8_checkpoint_to_e5m2():
    p = kvplan.fit("nvidia/Gemma-4-31B-IT-NVFP4", gpu="RTX A6000", max_model_len=4096)  # its FP8 KV scheme: e4m3
    (w,) = [w for w in p.warnings if "fp8e4nv" in w]
    assert E5M2_REFUSAL in w and "owners run" not in w
    # the user passed no --kv-cache-dtype: the warning says where the fp8 came from
    assert w.startswith("kv_cache_dtype auto -> fp8 (the checkpoint declares an FP8 KV cache)")
    plain = kvplan.fit("Qwen/Qwen3-8B", gpu="RTX 3090", max_model_len=4096, kv_cache_dtype="fp8")
    assert any("fp8_e5m2 is the FP8 KV cache RTX 3090 owners run" in w for w in plain.warnings)


@pytest.mark.parametrize("model, gpu, kw, dtype", [
    ("nvidia/Llama-3.1-70B-Instruct-FP8", "H100", {}, "fp8"),          # ModelOpt FP8: W8A8 on CUTLASS
    ("poolside/Laguna-S-2.1-FP8", "H100", {}, "fp8"),                   # compressed-tensors block FP8
    ("Qwen/Qwen3-32B-FP8", "H100", {}, "fp8"),
    ("Qwen/Qwen3-14B", "RTX 4090", dict(quantization="fp8"), "fp8"),    # online FP8: the model's quant is None
    ("Qwen/Qwen3-14B", "RTX 3090", dict(quantization="fp8"), "bfloat16"),  # FP8 Marlin: 16-bit GEMMs
    ("nvidia/Gemma-4-31B-IT-NVFP4", "RTX 5090", {}, "bfloat16"),
    ("Qwen/Qwen2.5-72B-Instruct-AWQ", "H100", {}, "bfloat16"),
])
def test_the_step_model_takes_the_fp8_peak_where_vllm_runs_fp8_gemms(model, gpu, kw, dtype):
    from kvplan.simulate import StepModel

    plan = kvplan.fit(model, gpu=gpu, max_model_len=4096, **kw)
    assert StepModel.from_plan(plan).peak_flops_per_s == plan.gpu.peak_flops(dtype)


def test_asking_awq_or_gptq_of_an_unquantized_checkpoint_quotes_vllms_loader_refusal():
    from kvplan.errors import InputError

    for method in ("awq", "gptq_marlin"):
        with pytest.raises(InputError) as e:
            kvplan.fit("Qwen/Qwen3-32B", gpu="RTX 3090", quantization=method)
        assert e.value.field == "--quantization"
        assert f"'Cannot find the config file for {method}'" in str(e.value) and "checkpoint of this model" in str(e.value)
    with pytest.raises(InputError) as e:  # MXFP4 reads no such file: no loader message is claimed
        kvplan.fit("Qwen/Qwen3-32B", gpu="RTX 3090", quantization="mxfp4")
    assert "Cannot find the config file" not in str(e.value)
