"""At TP > 1 an eager profile forward's dense peak can sit at down_proj's all-reduce (plan.allreduce_live_bytes).

RowParallelLinear.forward keeps its GEMM output while tensor_model_parallel_all_reduce returns the reduced copy: from
0.6.5 every path writes a new tensor (pynccl's torch.empty_like; up to 0.6.4 a tensor past the custom all-reduce's
8 MiB was reduced in place, versions.py allreduce_out_of_place). Run eagerly, the three T x H rows of the live set and
the activation down_proj is called with are alive too, and Qwen2MLP keeps gate_up under its own name: T x dtype x
(5 H + 3 I/TP) for Qwen2-style MLPs, (5 H + I/TP) for the others. The V0 Qwen2 TP2 startups log exactly that.
"""
from dataclasses import replace
from pathlib import Path

import pytest

from kvplan.calibration import GIB
from kvplan.plan import measured_terms, term_features
from kvplan.versions import rules_for
from named_records import record_plan

DATA = Path(__file__).parent / "data"


def test_the_qwen2_5_14b_tp2_v0_start_logs_the_all_reduce_live_set():
    # vLLM 0.7.2 V0, TP 2, T 32,768: 'PyTorch activation peak memory takes 2.84GiB'; the SiluAndMul point
    # (3 H + 3 I/2) is 2.20 GiB, down_proj's all-reduce point (5 H + 3 I/2) 2.83
    rec, p = record_plan(DATA / "blind_records.jsonl", "qwen2.5-14b-instruct-gpu39g-u090-tp2")
    f = term_features(p.model, p.gpu, p.args, p.rules)
    # V0 runs eagerly and Qwen2MLP holds gate_up: the GEMM point is 4 H + 3 I/2 (plan.dense_hidden_rows), still below
    assert f.forward_bytes == 32768 * 2 * (4 * 5120 + 3 * 13824 / 2)
    assert f.reduce_bytes == 32768 * 2 * (5 * 5120 + 3 * 13824 / 2)
    assert p.activation_peak_bytes == pytest.approx(f.reduce_bytes, abs=1)
    assert abs(p.activation_peak_bytes / GIB - rec["observed"]["activation_peak_gib"]) < 0.02
    assert "down_proj's out-of-place all-reduce" in next(t for t in p.terms if t.name == "activation_peak").formula
    # the KV pool: +12.0 % before; what is left is the non-torch memory (logged 1.54 GiB, planned 0.11)
    err = p.kv_cache_bytes / GIB / rec["observed"]["kv_cache_gib"] - 1
    assert 0.0 < err < 0.09


@pytest.mark.parametrize("path, rid, logged", [
    # vLLM 0.7.1, Qwen2.5-32B, TP 2, T 10,000: 1.26 GiB logged by both ranks (the SiluAndMul point is 1.06)
    (DATA / "extra_records.jsonl", "qwen2.5-32b-instruct-l40s-u090-tp2-l10k", 1.26),
    # vLLM 0.7.2, DeepSeek-R1-Distill-Qwen-14B, TP 2, T 2,048: 0.19 GiB (the SiluAndMul point is 0.14)
    (DATA / "calibration.jsonl", "deepseek-r1-distill-qwen-14b-rtx4090-u098-tp2", 0.19),
])
def test_the_other_v0_qwen2_tp2_forwards_match_their_logs(path, rid, logged):
    # kvplan still plans the V0 sampler (40 B per logit, 1.45 GiB) above these two forwards; the logs show the forward
    _, p = record_plan(path, rid)
    f = term_features(p.model, p.gpu, p.args, p.rules)
    assert f.reduce_bytes > f.forward_bytes
    assert abs(f.forward_peak_bytes / GIB - logged) < 0.015
    silu = p.args.max_num_batched_tokens * 2 * (3 * p.model.hidden_size + 3 * p.model.intermediate_size / 2)
    assert abs(silu / GIB - logged) > 0.05  # the SiluAndMul point alone is further off
    assert abs(f.forward_bytes / GIB - logged) > 0.015  # and so is down_proj's GEMM point (4 H + 3 I/2)


def test_in_place_releases_compiled_forwards_and_tp1_count_no_all_reduce_output():
    _, p = record_plan(DATA / "blind_records.jsonl", "qwen2.5-14b-instruct-gpu39g-u090-tp2")
    assert rules_for("0.6.5").allreduce_out_of_place and not rules_for("0.6.4.post1").allreduce_out_of_place
    assert term_features(p.model, p.gpu, p.args, rules_for("0.6.4.post1")).reduce_bytes == 0
    assert term_features(p.model, p.gpu, p.args, rules_for("0.6.5")).reduce_bytes == p.args.max_num_batched_tokens * 2 * (
        5 * 5120 + 3 * 13824 / 2)
    assert term_features(p.model, p.gpu, replace(p.args, tensor_parallel_size=1), p.rules).reduce_bytes == 0
    v1 = rules_for("0.19.0")
    assert term_features(p.model, p.gpu, p.args, v1).reduce_bytes == 0  # compiled: not counted
    eager = term_features(p.model, p.gpu, replace(p.args, enforce_eager=True), v1)
    assert eager.reduce_bytes == p.args.max_num_batched_tokens * 2 * (5 * 5120 + 3 * 13824 / 2)


def test_a_llama_mlp_frees_gate_up_so_the_all_reduce_point_passes_silu_only_where_i_per_rank_is_below_h():
    _, p = record_plan(DATA / "calibration.jsonl", "llama-3.1-8b-instruct-rtx3090-u090-tpx")  # H 4096, I 14336
    rules, t = rules_for("0.7.3"), p.args.max_num_batched_tokens
    tp2 = term_features(p.model, p.gpu, replace(p.args, tensor_parallel_size=2), rules)
    assert tp2.reduce_bytes == t * 2 * (5 * 4096 + 14336 / 2)
    assert tp2.forward_peak_bytes == tp2.forward_bytes  # I/2 = 7168 > H: SiluAndMul stays the peak
    tp4 = term_features(p.model, p.gpu, replace(p.args, tensor_parallel_size=4), rules)
    assert tp4.forward_peak_bytes == tp4.reduce_bytes > tp4.forward_bytes  # I/4 = 3584 < H


def test_the_awq_copy_lives_in_the_gemm_not_beside_the_all_reduce():
    # the plain AWQ kernel's float16 weight copy is freed when down_proj's GEMM returns: it adds to the SiluAndMul /
    # GEMM point, not to the all-reduce point
    _, p = record_plan(DATA / "blind_records.jsonl", "qwen2.5-14b-instruct-gpu39g-u090-tp2")
    args = replace(p.args, awq_kernel="awq")
    f = term_features(p.model, p.gpu, args, p.rules)
    forward = measured_terms(p.model, p.gpu, args, p.rules)["activation_no_sampler"][0]
    assert forward == pytest.approx(f.reduce_bytes, abs=1)
    short = replace(args, max_num_batched_tokens=4096)
    fs = term_features(p.model, p.gpu, short, p.rules)
    # plan.awq_dequant_bytes with down_proj's output among the rows (eager Qwen2MLP, plan.dense_hidden_rows):
    # 2 B x max(I/TP x H, 2 I/TP x H - T x (H + I/TP))
    copy = 2 * max(13824 / 2 * 5120, 2 * 13824 / 2 * 5120 - 4096 * (5120 + 13824 / 2))
    assert measured_terms(p.model, p.gpu, short, p.rules)["activation_no_sampler"][0] == pytest.approx(
        max(fs.forward_bytes + copy, fs.reduce_bytes), abs=2)
