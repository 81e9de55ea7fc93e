"""An eager profile forward of a W8A8 FP8 model holds the FP8 copy of down_proj's input beside gate_up's output.

Fp8LinearMethod / Fp8OnlineLinearMethod (quantization/fp8.py, 0.17.0-0.27.1) on compute capability 8.9+ quantize
each Linear input before the GEMM (CUTLASS per-token or block, DeepGEMM), and Qwen2MLP / Qwen2MoeMLP (the MLP of Qwen2,
Qwen3 and Qwen3.5) keep gate_up referenced through down_proj. Compiled graphs free gate_up first (the compiling 0.29.0 RTX
5090 Qwen2.5-7B FP8 start logs no larger a peak than the BF16 one), Marlin (below 8.9) keeps activations in 16 bits, and
LlamaMLP rebinds its one name, so none of those hold the copy at the peak."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from kvplan.plan import fp8_act_quant_bytes
from kvplan.resolve import resolve_gpu
from kvplan.validate import predict_record
from kvplan.versions import rules_for
from named_records import record

DATA = Path(__file__).parent / "data"
GIB = 1024 ** 3
BLIND_ID = "qwen3.6-27b-fp8-rtx5090-u098-tp1-eager-l4k-seqs1"
H100_ID = "qwen3.6-27b-fp8-h100-u088-tp1-eager-l4k"


def _blind_plan():
    return predict_record(record("blind_records.jsonl", BLIND_ID))[0]


def test_the_copy_is_t_x_i_per_rank_and_only_where_the_source_makes_it():
    p = _blind_plan()
    model, gpu, args, rules = p.model, p.gpu, p.args, p.rules
    assert model.model_type == "qwen3_5_text" and model.quant.method == "fp8" and args.enforce_eager
    t, inter = args.max_num_batched_tokens, model.intermediate_size
    assert fp8_act_quant_bytes(model, gpu, args, rules)[0] == t * inter                        # 4096 x 17408 x 1 B
    assert fp8_act_quant_bytes(model, gpu, replace(args, tensor_parallel_size=2), rules)[0] == t * inter // 2
    # compiled: the graph frees gate_up before down_proj and fuses the activation with its quantization
    assert fp8_act_quant_bytes(model, gpu, replace(args, enforce_eager=False), rules)[0] == 0
    assert fp8_act_quant_bytes(model, gpu, replace(args, enforce_eager=False,
                                                   compilation_config='{"mode": 0}'), rules)[0] == t * inter
    # FP8 Marlin below compute capability 8.9, or forced, takes 16-bit activations
    rtx3090 = resolve_gpu("RTX 3090", detect=False)[0]
    assert fp8_act_quant_bytes(model, rtx3090, args, rules)[0] == 0
    forced = replace(args, env=(("VLLM_TEST_FORCE_FP8_MARLIN", "1"),))
    assert fp8_act_quant_bytes(model, gpu, forced, rules)[0] == 0
    # LlamaMLP frees gate_up before down_proj; an unquantized model makes no copy
    assert fp8_act_quant_bytes(replace(model, model_type="llama"), gpu, args, rules)[0] == 0
    assert fp8_act_quant_bytes(replace(model, quant=None), gpu, args, rules)[0] == 0
    # V0 is not read
    assert fp8_act_quant_bytes(model, gpu, args, rules_for("0.6.3"))[0] == 0


def test_the_eager_fp8_qwen35_startups_come_closer_without_overshooting():
    for path, rid in (("blind_records.jsonl", BLIND_ID), ("extra_records.jsonl", H100_ID)):
        rec = record(path, rid)
        p, _ = predict_record(rec)
        h, i, t = p.model.hidden_size, p.model.intermediate_size, p.args.max_num_batched_tokens
        # the dense live set at down_proj's GEMM (its output beside the held gate_up, plan.dense_hidden_rows) + the FP8 copy
        assert p.activation_peak_bytes == t * 2 * (4 * h + 3 * i) + t * i, rid
        obs = rec["observed"]["kv_cache_gib"]
        # before the copy and the third T x H row: +10.43 % (RTX 5090, 0.21.0) and +0.97 % (H100, 0.27.1); still above
        # the logged pools
        assert 0 < p.kv_cache_bytes / GIB / obs - 1 < (0.08 if rid == BLIND_ID else 0.009), rid
