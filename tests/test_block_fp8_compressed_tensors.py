"""Block-FP8 checks beyond Fp8Config: compressed-tensors block FP8 (a config group whose weights have strategy "block"
and a block_structure), whose CompressedTensorsW8A8Fp8 / MoE method run vLLM's block-shape check from 0.11.0 on the
layers the ignore list and targets leave quantized (rules rows ct_fp8_block, ct_fp8_block_w8a16_checked), and the
Gated DeltaNet projections and gated queries of Qwen3-Next / Qwen3.5 (plan.defaults._dense_block_slices)."""

from __future__ import annotations

import copy

import kvplan
from kvplan.plan.defaults import _ct_names_module, _dense_block_slices
from kvplan.resolve import normalize, resolve_model
from kvplan.versions import first_release_where
from block_fp8 import fits as _fits, fp8_block_checkpoint, refusal as _refusal

QWEN3_NEXT = "Qwen/Qwen3-Next-80B-A3B-Instruct"


def _ct_block(model_id: str, ignore: list[str], targets: list[str] | None = None) -> kvplan.ModelSpec:
    """A catalog config with llm-compressor's FP8_BLOCK quantization_config (the layout of Laguna-S-2.1-FP8's:
    one config group, block [128, 128] weights, dynamic per-group-of-128 activations)."""
    raw = copy.deepcopy(resolve_model(model_id).raw_config)
    raw["quantization_config"] = {
        "quant_method": "compressed-tensors", "format": "float-quantized", "quantization_status": "compressed",
        "config_groups": {"group_0": {
            "targets": targets or ["Linear"],
            "weights": {"num_bits": 8, "type": "float", "strategy": "block", "block_structure": [128, 128],
                        "symmetric": True, "dynamic": False},
            "input_activations": {"num_bits": 8, "type": "float", "strategy": "group", "group_size": 128,
                                  "symmetric": True, "dynamic": True}}},
        "ignore": ignore}
    return normalize(raw, model_id=f"test/{model_id.split('/')[1]}-FP8-block", source="test")


def test_laguna_fp8_experts_split_over_tp_times_dp_are_refused():
    # poolside/Laguna-S-2.1-FP8 (catalog config): compressed-tensors block FP8, 1024-wide experts; its ignore list keeps
    # attention, layer 0's dense MLP and the shared experts in bfloat16, so only the routed experts are block-quantized.
    # TP 8 x DP 2 without expert parallelism splits the experts over 16 ranks: 1024 / 16 = 64 (kvplan said "fits")
    model = resolve_model("poolside/Laguna-S-2.1-FP8")
    assert model.quant.weight_block == (128, 128) and model.quant.targets == ("Linear",)
    e = _refusal(model, 8, data_parallel_size=2)
    assert e.field == "--tensor-parallel-size"
    assert "The output_size of gate's and up's weight = 64 is not divisible by weight quantization block_n = 128" in str(e)
    assert "block_structure [128, 128]" in str(e) and e.fix.startswith("add --enable-expert-parallel")
    assert _fits(model, 8, data_parallel_size=2, enable_expert_parallel=True)
    assert _fits(model, 8)  # 1024 / 8 = 128: one whole block per rank
    # the ignore list is read as vLLM reads it: the regex entries exempt every layer's attention and shared expert,
    # the exact names layer 0's MLP only
    skip = model.quant.skip
    assert _ct_names_module(skip, 5, "self_attn.qkv_proj") and _ct_names_module(skip, 5, "mlp.shared_expert.gate_up_proj")
    assert _ct_names_module(skip, 0, "mlp.gate_up_proj") and not _ct_names_module(skip, 1, "mlp.gate_up_proj")


def test_compressed_tensors_checks_merged_layers_in_every_release():
    # Qwen3-32B (catalog config) as an FP8_BLOCK compressed-tensors checkpoint at TP 16: 25600 / 16 = 1600. Fp8Config's
    # merged gate_up_proj is exempt from 0.14 (its down_proj then refuses, test_block_fp8_dense), but
    # CompressedTensorsConfig has no weight_block_size for _maybe_allow_fp8_block_shape_mismatch to read, so the
    # gate_up_proj's output slices refuse first even on 0.33.0 (kvplan said "fits" for this checkpoint)
    model = _ct_block("Qwen/Qwen3-32B", ["lm_head"])
    assert model.quant.weight_block == (128, 128) and model.quant.method == "compressed-tensors"
    for version in ("0.33.0", "0.14.1", "0.11.0"):
        e = _refusal(model, 16, vllm_version=version)
        assert "Weight output_partition_size = 1600 is not divisible by weight quantization block_n = 128." in str(e)
        assert "mlp.gate_up_proj" in str(e) and "--tensor-parallel-size 8 --pipeline-parallel-size 2" in e.fix
    assert _fits(model, 8)
    # the ignore list and the targets decide which layers are checked: MLPs kept in bfloat16 by name pattern, or a
    # group that targets only the attention, leave nothing to cut at 16 (64 heads x 128 / 16 = 512)
    mlp_kept = _ct_block("Qwen/Qwen3-32B", ["lm_head", r"re:.*mlp\.(gate|up|down)_proj$"])
    assert _fits(mlp_kept, 16)
    attn_only = _ct_block("Qwen/Qwen3-32B", ["lm_head"], targets=[r"re:.*self_attn\..*_proj$"])
    assert _fits(attn_only, 16)


def test_compressed_tensors_block_fp8_by_release_and_gpu():
    model = _ct_block("Qwen/Qwen3-32B", ["lm_head"])
    # 0.10.2 has no compressed-tensors scheme for the block strategy
    assert first_release_where("ct_fp8_block", lambda v: v) == "0.11.0"
    e = _refusal(model, 1, vllm_version="0.10.2")
    assert e.field == "--vllm-version" and "No compressed-tensors compatible scheme was found." in str(e)
    assert "0.11.0" in e.fix
    # below compute capability 8.9 the dense layers fall back to CompressedTensorsW8A16Fp8, which checks the blocks
    # from 0.16.0 only
    assert first_release_where("ct_fp8_block_w8a16_checked", lambda v: v) == "0.16.0"
    assert _fits(model, 16, "A100-80GB", vllm_version="0.15.1")
    e = _refusal(model, 16, "A100-80GB", vllm_version="0.16.0")
    assert "Weight output_partition_size = 1600" in str(e)


def test_gated_deltanet_in_proj_ba_is_checked():
    # Qwen3-Next's Gated DeltaNet builds in_proj_ba as one column-parallel output of 2 x 32 value heads = 64 rows
    # (models/qwen3_next.py; "ba_proj doesn't support blockwise fp8 quantization", vLLM PR #25079): block-quantized,
    # TP 2 cuts it to 32 (kvplan said "fits": its check skipped linear-attention layers)
    model = fp8_block_checkpoint(QWEN3_NEXT, ["lm_head"])
    e = _refusal(model, 2)
    assert "Weight output_partition_size = 32 is not divisible by weight quantization block_n = 128." in str(e)
    assert "linear_attn.in_proj_ba" in str(e) and "(layer 0 on)" in str(e)
    assert _fits(model, 1, "H200")  # one rank, one output: nothing is cut
    # an FP8 release keeps in_proj_ba in bfloat16 (its modules_to_not_convert names each linear-attention layer's)
    kept = fp8_block_checkpoint(QWEN3_NEXT, ["lm_head"] + [f"model.layers.{i}.linear_attn.in_proj_ba" for i in range(48)])
    assert _fits(kept, 2) and _fits(kept, 4)


def test_gated_query_and_qwen35_projection_slices():
    # Qwen3NextAttention's qkv_proj carries the output gate in the query (2 x 16 heads x 256), whether or not the
    # config states attn_output_gate (Qwen3-Next's does not: vLLM's default is True)
    nxt = resolve_model("Qwen/Qwen3-Next-80B-A3B-Instruct")
    assert "attn_output_gate" not in nxt.text_config
    qkv = next(s for s in _dense_block_slices(nxt, 2) if s[0] == "self_attn.qkv_proj")
    assert qkv[2] == [2 * 16 // 2 * 256, 256, 256] and qkv[3] == (2 * 16 + 2 * 2) * 256
    # Qwen3.5's layout splits in_proj_qkvz into [key, key, value, value] and in_proj_ba into [heads, heads]
    q36 = resolve_model("Qwen/Qwen3.6-35B-A3B")
    rows = {s[0]: s for s in _dense_block_slices(q36, 4) if s[4] == 0}
    assert rows["linear_attn.in_proj_qkvz"][1:3] == ("merged", [512, 512, 1024, 1024])
    assert rows["linear_attn.in_proj_ba"][1:3] == ("merged", [8, 8])
    assert rows["linear_attn.out_proj"][1:3] == ("row", [1024])


def test_diagnose_names_compressed_tensors_blocks():
    # compressed-tensors block FP8 raises Fp8Config's messages (0.11.0-0.33.0) and, before 0.11.0, the no-scheme one:
    # diagnose's causes name the compressed-tensors block_structure and the release that reads it
    from kvplan.diagnose import diagnose

    top = diagnose(["ValueError: Weight output_partition_size = 1600 is not divisible by weight quantization block_n = 128."]).top
    assert top is not None and top.fatal and "block_structure" in top.cause
    top = diagnose(["NotImplementedError: No compressed-tensors compatible scheme was found."]).top
    assert top is not None and top.fatal and "0.11.0" in top.cause


def test_an_ignore_list_naming_part_of_a_fused_layer_is_refused_and_diagnosed():
    # compressed-tensors' should_ignore_layer (0.10.2-0.33.0) refuses a fused layer whose shards take different
    # schemes: an ignore list that keeps gate_proj in bfloat16 but not up_proj stops the start (kvplan said "fits")
    model = _ct_block("Qwen/Qwen3-32B", ["lm_head", r"re:.*mlp\.gate_proj$"])
    e = _refusal(model, 1)
    assert e.field == "model" and "model.layers.0.mlp.gate_up_proj" in str(e) and "gate_proj, up_proj" in e.fix
    assert _fits(_ct_block("Qwen/Qwen3-32B", ["lm_head", r"re:.*mlp\.(gate|up)_proj$"]), 1)
    from kvplan.diagnose import diagnose

    for line in ("ValueError: Found a different quantization schemes for ['q_proj', 'k_proj', 'v_proj'] in "
                 "model.layers.0.self_attn.qkv_proj. vLLM requires all to use the same scheme.",
                 "ValueError: Found different quantization schemes for the shards of model.layers.0.mlp.gate_up_proj. "
                 "vLLM requires all to use the same scheme.",
                 "ValueError: Detected some but not all shards of model.layers.0.self_attn.qkv_proj are quantized. All "
                 "shards of fused layers to have the same precision."):
        top = diagnose([line]).top
        assert top is not None and top.fatal and top.layer == "model_weights" and "ignore list" in top.fix, line
