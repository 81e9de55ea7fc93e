"""Block-FP8 checkpoints whose dense Linear layers (attention, dense MLPs, shared experts) TP cuts into partial blocks:
vLLM's Fp8LinearMethod.create_weights / validate_fp8_block_shape refuses them (plan.defaults._block_fp8_dense_refusal)."""

from __future__ import annotations

import kvplan
from kvplan.errors import InputError
from kvplan.plan.defaults import _block_fp8_dense_refusal, _skipped_module
from kvplan.resolve import resolve_model
from kvplan.versions import first_release_where, rules_for
from block_fp8 import fp8_block_checkpoint, refusal

QWEN36_35B = "Qwen/Qwen3.6-35B-A3B"  # with the block-FP8 quantization_config of its FP8 release


def _refusal(model, tp: int, **kw) -> InputError:
    e = refusal(model, tp, **kw)
    assert e.field == "--tensor-parallel-size"
    return e


def test_qwen3_32b_fp8_mlp_cannot_split_over_16_ranks():
    # Qwen3-32B-FP8 (catalog config): intermediate_size 25600, weight_block_size [128, 128]. 25600 / 16 = 1600 = 12.5 x 128,
    # while 25600 / 8 = 3200 = 25 x 128; the attention splits whole at 16 (64 heads x 128 / 16 = 512)
    model = resolve_model("Qwen/Qwen3-32B-FP8")
    assert model.intermediate_size == 25600 and model.quant.weight_block == (128, 128)
    e = _refusal(model, 16)
    # from 0.14 the merged gate_up_proj is exempt (ColumnParallelLinear._maybe_allow_fp8_block_shape_mismatch), so the
    # row-parallel down_proj's input slice is what vLLM names
    assert "Weight input_size_per_partition = 1600 is not divisible by weight quantization block_k = 128." in str(e)
    assert "mlp.down_proj" in str(e)
    # the fix: TP 8 with two pipeline stages on the same 16 GPUs, or a TP size whose slices are whole blocks
    assert e.fix.startswith("--tensor-parallel-size 8 --pipeline-parallel-size 2 (the same 16 GPUs")
    assert e.fix.endswith("a --tensor-parallel-size of 1, 2, 4, 8")
    assert kvplan.fit(model, "H100", tensor_parallel_size=8, pipeline_parallel_size=2, max_model_len=8192, fixes=False).fits
    assert kvplan.fit(model, "H100", tensor_parallel_size=8, max_model_len=8192, fixes=False).fits
    # the bfloat16 checkpoint has no blocks to split
    assert kvplan.fit("Qwen/Qwen3-32B", "H100", tensor_parallel_size=16, max_model_len=8192, fixes=False).fits


def test_before_0_14_the_merged_gate_up_proj_is_checked_first():
    # 0.13.0's linear.py has no _maybe_allow_fp8_block_shape_mismatch: the gate_up_proj (built before down_proj) fails
    # on its output slices; the rules row says where that changed
    assert first_release_where("fp8_block_merged_unchecked", lambda v: v) == "0.14.0"
    model = resolve_model("Qwen/Qwen3-32B-FP8")
    for version, text in (("0.13.0", "Weight output_partition_size = 1600 is not divisible by weight quantization block_n = 128."),
                          ("0.10.2", "Weight output_partition_size = 1600 is not divisible by weight quantization block_n = 128."),
                          ("0.14.1", "Weight input_size_per_partition = 1600 is not divisible by weight quantization block_k = 128.")):
        e = _refusal(model, 16, vllm_version=version)
        assert text in str(e), version


def test_a_shared_expert_narrower_than_a_block_refuses_with_or_without_expert_parallelism():
    # vLLM PR #52915 (open): Qwen/Qwen3.6-35B-A3B-FP8 at --tensor-parallel-size 8 on one H100 node fails with "Weight
    # input_size_per_partition = 64 is not divisible by weight quantization block_k = 128.": the shared expert is 512
    # wide, 512 / 8 = 64. Qwen's MoE block builds it before the routed experts (models/qwen3_next.py, 0.29.0), and
    # expert parallelism, which keeps routed experts whole, leaves it split by TP
    model = fp8_block_checkpoint(QWEN36_35B, ["lm_head"])
    assert (model.shared_expert_intermediate_size, model.moe_intermediate_size) == (512, 512)
    for ep in (False, True):
        e = _refusal(model, 8, enable_expert_parallel=ep)
        assert "Weight input_size_per_partition = 64 is not divisible by weight quantization block_k = 128." in str(e)
        assert "mlp.shared_expert.down_proj" in str(e)
        assert e.fix.startswith("--tensor-parallel-size 4 --pipeline-parallel-size 2")
        assert ("--enable-expert-parallel does not help" in e.fix) is (not ep)
    # 512 / 4 = 128: one whole block per rank, for the shared and the routed experts alike
    assert kvplan.fit(model, "H100", tensor_parallel_size=4, max_model_len=8192, fixes=False).fits
    # a checkpoint that keeps every shared expert in bfloat16 (Qwen3.8-2.4T-A95B-FP8's list names each layer's) is not
    # refused for it; its routed experts still need expert parallelism at TP 8
    layers = range(model.num_layers)
    kept = fp8_block_checkpoint(QWEN36_35B, ["lm_head"] + [f"model.language_model.layers.{i}.mlp.shared_expert.{m}"
                                          for i in layers for m in ("gate_proj", "up_proj", "down_proj")])
    assert _block_fp8_dense_refusal(kept, kept.quant, 8, rules_for("0.33.0")) is None
    e = _refusal(kept, 8)
    assert "The output_size of gate's and up's weight = 64" in str(e) and "--enable-expert-parallel" in e.fix
    # listing layer 0 alone leaves layer 1's shared expert quantized: vLLM fails there
    one = fp8_block_checkpoint(QWEN36_35B, ["lm_head"] + [f"model.language_model.layers.0.mlp.shared_expert.{m}"
                                         for m in ("gate_proj", "up_proj", "down_proj")])
    assert "(layer 1 on)" in _block_fp8_dense_refusal(one, one.quant, 8, rules_for("0.33.0"))[0]


def test_skip_list_entries_match_by_layer_pattern_and_name():
    assert _skipped_module(("model.layers.3.mlp.down_proj",), 3, "mlp.down_proj")
    assert not _skipped_module(("model.layers.3.mlp.down_proj",), 13, "mlp.down_proj")
    assert _skipped_module(("model.language_model.layers.3.mlp.down_proj",), 3, "mlp.down_proj")
    assert _skipped_module((r"re:.*\.mlp\.shared_expert\.down_proj$",), 7, "mlp.shared_expert.down_proj")
    assert not _skipped_module((r"re:.*\.self_attn\.o_proj$",), 7, "mlp.down_proj")
    # Fp8Config asks for the whole name (is_layer_skipped, ignored_layers_match_mode "exact": fp8.py 0.14.1, 0.29.0): a
    # bare part names nothing, every shard of a fused module names it
    assert not _skipped_module(("shared_expert",), 7, "mlp.shared_expert.down_proj")
    assert _skipped_module(("model.layers.7.mlp.shared_expert.down_proj",), 7, "mlp.shared_expert.down_proj")
    assert _skipped_module(tuple(f"model.layers.2.self_attn.{p}_proj" for p in "qkv"), 2, "self_attn.qkv_proj")
    assert not _skipped_module(tuple(f"model.layers.2.self_attn.{p}_proj" for p in "qk"), 2, "self_attn.qkv_proj")
    assert not _skipped_module(("lm_head", "mlp.gate"), 7, "mlp.gate_proj")
    assert not _skipped_module(("re:[",), 0, "mlp.down_proj")  # a broken pattern names nothing


def test_per_tensor_fp8_and_whole_block_splits_are_not_refused():
    # per-tensor FP8 (nvidia/Llama-3.1-70B-Instruct-FP8, no weight_block_size) has no blocks: 28672 / 16 is any slice
    llama = resolve_model("nvidia/Llama-3.1-70B-Instruct-FP8")
    assert llama.quant.weight_block is None
    assert _block_fp8_dense_refusal(llama, llama.quant, 8, rules_for("0.33.0")) is None
    # Qwen3-235B-A22B-FP8's dense parts split whole at TP 8 (64 heads x 128 / 8; no dense MLP): only its experts refuse
    q235 = resolve_model("Qwen/Qwen3-235B-A22B-FP8")
    assert _block_fp8_dense_refusal(q235, q235.quant, 8, rules_for("0.33.0")) is None


def test_diagnose_reads_both_of_vllm_s_dense_block_messages():
    # the column-parallel message ("Weight output_partition_size = N", gate_up_proj before 0.14) was not read: diagnose
    # said "not recognised"; both it and the row-parallel one name the block check now, and the fix names pipeline
    # parallelism for a dense layer
    from kvplan.diagnose import diagnose

    for line in ("ValueError: Weight output_partition_size = 1600 is not divisible by weight quantization block_n = 128.",
                 "ValueError: Weight input_size_per_partition = 1600 is not divisible by weight quantization block_k = 128."):
        top = diagnose([line]).top
        assert top is not None and top.fatal and top.layer == "vllm_version_flags", line
        assert "--pipeline-parallel-size" in top.fix and "does not help a dense layer" in top.fix, line
