"""An eager profile forward of a Qwen2-style MLP peaks at down_proj's GEMM (plan.dense_hidden_rows): gate_up's output is
still referenced (models/qwen2.py Qwen2MLP.forward) while down_proj writes its T x H output, 4 H + 3 I/TP."""
from dataclasses import replace
from pathlib import Path

from kvplan.calibration import GIB
from kvplan.plan import dense_hidden_rows, term_features
from named_records import record_plan

DATA = Path(__file__).parent / "data"


def test_the_v0_qwen2_5_14b_tp1_start_logs_the_gemm_point():
    # vLLM 0.7.2 V0, TP 1, T 32,768: 3.79 GiB logged; 4 H + 3 I 3.78, the SiluAndMul point (3 H + 3 I) 3.47
    rec, p = record_plan(DATA / "calibration.jsonl", "qwen2.5-14b-instruct-gpu79g-u090-tp1")
    f = term_features(p.model, p.gpu, p.args, p.rules)
    t, h, i = p.args.max_num_batched_tokens, p.model.hidden_size, p.model.intermediate_size
    assert f.forward_bytes == t * 2 * (4 * h + 3 * i)
    logged = rec["observed"]["activation_peak_gib"]
    assert abs(p.activation_peak_bytes / GIB - logged) < 0.02
    assert abs(t * 2 * (3 * h + 3 * i) / GIB - logged) > 0.3
    assert "at down_proj's GEMM" in next(x for x in p.terms if x.name == "activation_peak").formula


def test_v1_counts_it_only_eager():
    # vLLM 0.29.0, Qwen3-8B, T 4,096, --enforce-eager: 'Actual usage is ... 0.41 GiB for peak activation' (4 H + 3 I:
    # 0.406, 3 H + 3 I: 0.375); its compiled twin runs Inductor's graph, which frees gate_up after the activation
    rec, eager = record_plan(DATA / "blind_records.jsonl", "qwen3-8b-rtx4090-48g-u075-tp1-eager-l4k-seqs8-noprefix")
    assert abs(eager.activation_peak_bytes / GIB - rec["observed"]["activation_peak_gib"]) < 0.01
    assert dense_hidden_rows(eager.model, eager.args, eager.rules) == 4
    _, compiled = record_plan(DATA / "blind_records.jsonl", "qwen3-8b-rtx4090-48g-u075-tp1-l4k-seqs8-noprefix")
    assert not compiled.args.enforce_eager
    assert dense_hidden_rows(compiled.model, compiled.args, compiled.rules) == 3
    mode_none = replace(compiled.args, compilation_config='{"mode": "NONE"}')
    assert dense_hidden_rows(compiled.model, mode_none, compiled.rules) == 4


def test_a_llama_mlp_keeps_three_rows_eager_too():
    # LlamaMLP rebinds x: gate_up is freed before down_proj, so SiluAndMul (3 H + 3 I) stays the peak
    _, p = record_plan(DATA / "calibration.jsonl", "llama-3.1-8b-instruct-rtx3090-u090-tpx")
    assert dense_hidden_rows(p.model, p.args, p.rules) == 3
    assert dense_hidden_rows(replace(p.model, model_type="qwen2"), p.args, p.rules) == 4
