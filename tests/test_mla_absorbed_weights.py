"""vLLM 0.7.1-0.7.3's V0 MLA backend keeps absorbed projections beside the raw ones (versions.py
"mla_absorbed_weights"; attention/backends/mla/utils.py MLACommonImpl.process_weights_after_loading in the 0.7.1, 0.7.2
and 0.7.3 wheels, VLLM_MLA_PERFORM_MATRIX_ABSORPTION on by default; no W_Q_UK / W_UV_O in 0.8.0): W_QR, W_Q_UK and
W_UV_O per unquantized MLA layer and rank, in the model dtype; per FP8 layer W_QR in the model dtype, W_Q_UK and W_UV_O
requantized to FP8 and kv_b_proj's dequantized copy."""

from __future__ import annotations

from kvplan.resolve import resolve_model
from kvplan.validate import predict_record, validate_records
from kvplan.versions import rules_for
from kvplan.weights import weights_per_rank
from named_records import BLIND, record

GIB = 1024 ** 3
P4D = "deepseek-coder-v2-lite-instruct-a100-40-u090-tp8-fp16-l8k-seqs2-v071-lmi"


def test_the_row_spans_the_releases_read():
    assert not rules_for("0.7.0").mla_absorbed_weights
    assert all(rules_for(v).mla_absorbed_weights for v in ("0.7.1", "0.7.2", "0.7.3"))
    assert not rules_for("0.8.0").mla_absorbed_weights and not rules_for("0.20.0").mla_absorbed_weights


def test_deepseek_v2_lite_holds_the_three_products_per_layer_and_rank():
    spec = resolve_model("deepseek-ai/DeepSeek-V2-Lite")  # bfloat16, 27 MLA layers, 16 heads, no q_lora_rank
    t = spec.text_config
    assert t.get("q_lora_rank") is None and int(t["kv_lora_rank"]) == 512
    for tp in (1, 2, 8):
        without = weights_per_rank(spec, tp=tp, dtype_bytes=2).bytes
        with_products = weights_per_rank(spec, tp=tp, dtype_bytes=2, mla_absorbed=True)
        heads = 16 // tp
        # W_QR hidden x heads x rope 64, W_Q_UK hidden x heads x 512, W_UV_O heads x 512 x hidden; 2 bytes; 27 layers
        expected = 27 * heads * (2048 * 64 + 2048 * 512 + 512 * 2048) * 2
        assert with_products.bytes - without == expected
        assert any("W_Q_UK" in n for n in with_products.notes)


def test_an_fp8_mla_checkpoint_holds_its_requantized_products_and_the_dequantized_kv_b_proj():
    # DeepSeek-R1 (block FP8 128 x 128, 61 MLA layers, 128 heads, q_lora_rank 1536, kv_lora_rank 512, rope 64, nope and
    # v 128, hidden 7168) at TP 8: is_layer_fp8 takes the layers, W_QR is cast to the model dtype (bf16), W_Q_UK and
    # W_UV_O are requantized to FP8 with a float32 scale per 128 x 128 block, and W_UK / W_UV stay views of kv_b_proj
    # dequantized to bf16. These had been left out: +0 -> +4.47 GiB per rank
    spec = resolve_model("deepseek-ai/DeepSeek-R1")
    assert spec.quant is not None and spec.quant.method == "fp8" and spec.quant.weight_block == (128, 128)
    heads, q_in, rank, hidden = 128 // 8, 1536, 512, 7168
    w_qr = heads * q_in * 64 * 2
    products = heads * rank * (q_in + hidden)
    scales = 4 * ((q_in // 128) * (heads * rank // 128) + (heads * rank // 128) * (hidden // 128))
    kv_b = heads * rank * (128 + 128) * 2
    base = weights_per_rank(spec, tp=8).bytes
    got = weights_per_rank(spec, tp=8, mla_absorbed=True)
    assert got.bytes - base == 61 * (w_qr + products + scales + kv_b)
    assert any("FP8 W_Q_UK and W_UV_O requantized" in n for n in got.notes)
    # VLLM_MLA_DISABLE_REQUANTIZATION=1 keeps the products in the model dtype
    kept = weights_per_rank(spec, tp=8, mla_absorbed=True, mla_requantize=False).bytes
    assert kept - base == 61 * (w_qr + 2 * products + kv_b)


def test_the_env_switch_turns_it_off():
    rec = record(BLIND, P4D)
    on, _ = predict_record(rec)
    off_rec = dict(rec, args=dict(rec["args"], env={**rec["args"]["env"], "VLLM_MLA_PERFORM_MATRIX_ABSORPTION": "0"}))
    off, _ = predict_record(off_rec)
    expected = 27 * 2 * (2048 * 64 + 2048 * 512 + 512 * 2048) * 2  # 16 heads / TP8
    assert on.weights_bytes - off.weights_bytes == expected


def test_the_sagemaker_tp8_start_loads_what_its_log_says():
    # 'model weights take 3.97GiB' on a TP8 worker: -5.94 % before the term, -0.30 % with it (0.22 GiB per rank)
    rec = record(BLIND, P4D)
    got = validate_records([rec])[0]
    assert abs(got.error_pct["weights_gib"]) < 1.0


AWQ = "deepseek-v2-lite-chat-awq-rtx4080-wsl2-u080-tp1-l32k"  # TechxGenus' DeepSeek-V2-Lite-Chat-AWQ


def test_0_7_1_and_0_7_2_run_a_quantized_deepseek_without_mla_unless_fp8():
    # ModelConfig.use_mla in the 0.7.1 and 0.7.2 wheels: "MLA is not supported with awq quantization. Disabling MLA."
    # The model then caches K and V per head (16 heads at 256, 27 layers) and absorbs nothing; 0.7.3 runs MLA
    from dataclasses import replace as _replace

    from kvplan.plan.kv import runs_mla

    rec = record(BLIND, AWQ)
    pages, weights = {}, {}
    for version in ("0.7.1", "0.7.2", "0.7.3", "0.8.0"):
        plan, _ = predict_record(dict(rec, vllm_version=version))
        pages[version], weights[version] = plan.bytes_per_block // plan.block_size, plan.weights_bytes
        disabled = any("DeepSeek MLA disabled (vLLM" in a and "awq" in a for a in plan.assumptions)
        assert disabled == (version in ("0.7.1", "0.7.2")), (version, plan.assumptions)
        absorbed = any("matrix absorption): W_QR, W_Q_UK and W_UV_O in the model dtype and kv_b_proj dequantized" in a
                       for a in plan.assumptions)
        assert absorbed == (version == "0.7.3"), (version, plan.assumptions)
    assert pages["0.7.1"] == pages["0.7.2"] == 27 * 2 * 16 * 256 * 2
    assert pages["0.7.3"] == 27 * 1280
    # 0.7.3 dequantizes the AWQ layers (quant_method.apply on an identity) and absorbs in the model dtype: W_QR
    # (hidden 2048 x 16 heads x rope 64), W_Q_UK (2048 x 16 x 512), W_UV_O (16 x 512 x 2048) and kv_b_proj's copy
    # (16 x 512 x (128 + 128)), 2 bytes each, 27 layers; nothing of it in 0.8.0
    assert weights["0.7.3"] - weights["0.8.0"] == 27 * 16 * (2048 * 64 + 2048 * 512 + 512 * 2048 + 512 * 256) * 2
    # fp8 keeps MLA there; compressed-tensors only with every group typed "fp8" (llm-compressor writes "float")
    plan, _ = predict_record(dict(rec, vllm_version="0.7.2"))
    args = plan.args
    model = plan.model
    assert runs_mla(model, _replace(args, quantization="fp8"), rules_for("0.7.2"))
    assert not runs_mla(model, args, rules_for("0.7.2")) and runs_mla(model, args, rules_for("0.7.3"))
    ct = {"quant_method": "compressed-tensors",
          "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"type": "float", "num_bits": 8},
                                        "input_activations": {"type": "float", "num_bits": 8}}}}
    ct_model = _replace(model, raw_config={**model.raw_config, "quantization_config": ct})
    ct_args = _replace(args, quantization="compressed-tensors")
    assert not runs_mla(ct_model, ct_args, rules_for("0.7.2"))
    fp8_typed = {**ct, "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"type": "fp8"},
                                                      "input_activations": {"type": "fp8"}}}}
    assert runs_mla(_replace(model, raw_config={**model.raw_config, "quantization_config": fp8_typed}), ct_args,
                    rules_for("0.7.2"))
