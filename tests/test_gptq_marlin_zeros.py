"""A symmetric GPTQ checkpoint's qzeros in "Model loading took" (versions.py gptq_marlin_zeros_kept): MarlinLinearKernel
replaces them by an empty tensor inside the measured load up to 0.33 (freed: not in torch's allocated bytes), 0.34.0
keeps them registered (retire_parameter); Machete, AllSpark and the plain GPTQ / Exllama kernels never drop them."""

from __future__ import annotations

from dataclasses import replace

import kvplan
from kvplan.plan.kv import gptq_linear_kernel, gptq_zero_points_freed, rank_weights
from kvplan.resolve import QuantSpec
from kvplan.versions import first_release_where

GPTQ4 = QuantSpec("gptq", 4, 128, "int4 w4a16 group 128")
QC = {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False, "sym": True}


def _plan(gpu: str, version: str, **flags):
    p = kvplan.fit("Qwen/Qwen2.5-7B-Instruct", gpu, vllm_version=version, max_model_len=4096, fixes=False, **flags)
    model = replace(p.model, quant=GPTQ4, raw_config=dict(p.model.raw_config, quantization_config=QC))
    return p, model


def _dense_qzeros_bytes(model) -> int:
    """The packed zero points of the decoder's dense Linear layers at TP 1, from the shapes: one int32 per 8 output
    columns (4-bit) per group of 128 input rows, for qkv_proj, o_proj, gate_up_proj and down_proj."""
    h, d, i = model.hidden_size, model.head_dim, model.intermediate_size
    q, kv = model.num_attention_heads, model.num_kv_heads
    shapes = [(h, (q + 2 * kv) * d), (q * d, h), (h, 2 * i), (i, h)]
    return model.num_layers * sum(k // 128 * (n // 8) * 4 for k, n in shapes)


def test_the_rows_change_where_the_wheels_do():
    assert first_release_where("gptq_marlin_zeros_kept", lambda v: v) == "0.34.0"
    assert first_release_where("gptq_flag_auto_kernel", lambda v: v) == "0.22.0"


def test_marlin_drops_exactly_the_dense_qzeros_up_to_0_33():
    p, model = _plan("L40S", "0.33.0")
    assert gptq_linear_kernel(model, p.gpu, p.args, p.rules, GPTQ4) == "marlin"
    assert model.quant.zero_points and _dense_qzeros_bytes(model) > 0
    # counted from the architecture, and from a checkpoint's exact bytes (which hold the qzeros: the drop is not scaled)
    for m in (replace(model, checkpoint=None), model):
        freed = rank_weights(m, p.gpu, replace(p.args, gptq_kernel=None), p.rules, GPTQ4)
        kept = rank_weights(m, p.gpu, replace(p.args, gptq_kernel=None),
                            replace(p.rules, gptq_marlin_zeros_kept=True), GPTQ4)
        # kvplan sizes qkv_proj's bias with its layer's quantized width: 4,608 x 0.5 / 128 B more per layer
        assert abs((kept.bytes - freed.bytes) - _dense_qzeros_bytes(m)) <= m.num_layers * 4608 * 0.5 / 128 + 2
        assert any("qzeros" in n for n in freed.notes) and not any("qzeros" in n for n in kept.notes)


def test_0_34_keeps_them_and_other_kernels_never_drop_them():
    p, model = _plan("L40S", "0.34.0")
    assert not gptq_zero_points_freed(model, p.gpu, replace(p.args, gptq_kernel=None), p.rules, GPTQ4)
    # Hopper: Machete (its shape check passes: K % 64, N % 128 for every dense layer of Qwen2.5-7B)
    p, model = _plan("H100", "0.33.0")
    assert gptq_linear_kernel(model, p.gpu, p.args, p.rules, GPTQ4) == "machete"
    assert not gptq_zero_points_freed(model, p.gpu, replace(p.args, gptq_kernel=None), p.rules, GPTQ4)
    # T4 (7.5): below Marlin's 8.0 up to 0.13 (plain GPTQ), Marlin from 0.14
    p, model = _plan("T4", "0.8.5")
    assert gptq_linear_kernel(model, p.gpu, p.args, p.rules, GPTQ4) == "exllama"
    p, model = _plan("T4", "0.20.0")
    assert gptq_linear_kernel(model, p.gpu, p.args, p.rules, GPTQ4) == "marlin"


def test_quantization_gptq_forces_the_plain_method_before_0_22():
    for version, kernel in (("0.21.0", "exllama"), ("0.22.0", "marlin")):
        p, model = _plan("L40S", version)
        given = replace(p.args, quantization="gptq", gptq_kernel=None)
        assert gptq_linear_kernel(model, p.gpu, given, p.rules, GPTQ4) == kernel
        # without the flag GPTQ-Marlin claims the checkpoint in both
        assert gptq_linear_kernel(model, p.gpu, replace(given, quantization=None), p.rules, GPTQ4) == "marlin"


def test_an_asymmetric_or_awq_checkpoint_is_not_read_as_gptq_marlin():
    p, model = _plan("L40S", "0.33.0")
    asym = replace(model, raw_config=dict(model.raw_config, quantization_config=dict(QC, sym=False)))
    assert gptq_linear_kernel(asym, p.gpu, p.args, p.rules, GPTQ4) is None
    awq = QuantSpec("awq", 4, 128, "int4 w4a16 group 128")
    assert gptq_linear_kernel(replace(model, quant=awq), p.gpu, p.args, p.rules, awq) is None


def test_a_plan_without_a_tensor_parallel_size_picks_the_kernel_at_the_resolved_one():
    """The kernel choice reads the tensor-parallel size (Machete's per-rank shapes, act order under TP): a plan that
    leaves it out takes TP 1 there as everywhere, not a TypeError."""
    p, model = _plan("L40S", "0.33.0")
    for version in ("0.33.0", "0.21.0"):
        left_out = kvplan.fit(model, "H100", vllm_version=version, max_model_len=4096, fixes=False)
        given = kvplan.fit(model, "H100", vllm_version=version, max_model_len=4096, fixes=False, tensor_parallel_size=1)
        assert left_out.args.gptq_kernel == given.args.gptq_kernel != ""
        assert left_out.weights_bytes == given.weights_bytes
