"""vLLM's plain AWQ linear method multiplies through a float16 copy of each weight once a call holds >= 256 tokens
(AWQLinearMethod.apply, quantization/awq.py 0.3.3-0.23.0; AutoAWQLinearMethod.apply, auto_awq.py 0.24.0-0.33.0:
ops.awq_dequantize then torch.matmul); AWQ-Marlin never builds it. Up to 0.23 --quantization awq forces the plain
method ("... you specified quantization=awq explicitly, so forcing awq", awq_marlin.py), from 0.24 AutoAWQConfig
takes Marlin wherever it runs. The seventeenth blind round's Kaggle T4 pair (Qwen3-8B-AWQ, vLLM 0.20.0) logged
0.11 GiB more profile overhead on the forced plain kernel than on awq_marlin, and kvplan had planned the same for
both (+3.39 % KV GiB on the plain one)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from kvplan.plan import AWQ_DEQUANT_MIN_TOKENS, EngineArgs, awq_dequant_bytes, awq_linear_kernel, plan
from kvplan.resolve import resolve_gpu
from kvplan.validate import load_records, predict_record
from kvplan.versions import rules_for

BLIND = Path(__file__).parent / "data" / "blind_records.jsonl"
GIB = 1024 ** 3


def _pair() -> dict[str, dict]:
    recs = {r["id"]: r for r in load_records(BLIND)}
    return {k: recs[k] for k in ("qwen3-8b-awq-t4-u062-tp1-eager-l3k-seqs32",
                                 "qwen3-8b-awq-marlin-t4-u078-tp1-eager-l4k-seqs8")}


def _awq_model():
    rec = _pair()["qwen3-8b-awq-t4-u062-tp1-eager-l3k-seqs32"]
    p, _ = predict_record(rec)
    return p.model


def test_which_kernel_serves_an_awq_checkpoint():
    model, t4 = _awq_model(), resolve_gpu("T4", detect=False)[0]
    quant = model.quant
    assert quant.method == "awq"
    r020, r025 = rules_for("0.20.0"), rules_for("0.25.1")
    assert awq_linear_kernel(model, t4, quant, "awq", r020) == "awq"          # forced plain up to 0.23
    assert awq_linear_kernel(model, t4, quant, None, r020) == "marlin"        # Marlin converts it on a 7.5 card
    assert awq_linear_kernel(model, t4, quant, "awq_marlin", r020) == "marlin"
    assert awq_linear_kernel(model, t4, quant, "awq", r025) == "marlin"       # AutoAWQConfig takes Marlin from 0.24
    unknown = replace(t4, compute_capability=None)
    assert awq_linear_kernel(model, unknown, quant, "awq", r020) is None
    assert awq_linear_kernel(model, t4, None, "awq", r020) is None


def test_the_copy_is_the_larger_of_down_proj_and_gate_up_proj_points():
    model = _awq_model()  # hidden 4096, intermediate 12288
    args = EngineArgs(max_num_batched_tokens=8192, tensor_parallel_size=1, dtype="float16", awq_kernel="awq")
    assert awq_dequant_bytes(model, args)[0] == 12288 * 2 * 4096              # down_proj's copy (2 H - T = 0)
    small = replace(args, max_num_batched_tokens=2048)
    assert awq_dequant_bytes(model, small)[0] == 12288 * 2 * (2 * 4096 - 2048)  # gate_up_proj's copy less T x I
    tp2 = replace(args, tensor_parallel_size=2)
    assert awq_dequant_bytes(model, tp2)[0] == 6144 * 2 * 4096
    assert awq_dequant_bytes(model, replace(args, max_num_batched_tokens=AWQ_DEQUANT_MIN_TOKENS - 1))[0] == 0
    assert awq_dequant_bytes(model, replace(args, awq_kernel="marlin"))[0] == 0
    assert awq_dequant_bytes(model, replace(args, awq_kernel=None))[0] == 0


def test_the_forced_plain_kernel_holds_the_copy_in_the_profile():
    model, t4 = _awq_model(), resolve_gpu("T4", detect=False)[0]
    base = EngineArgs(max_model_len=3072, gpu_memory_utilization=0.62, max_num_seqs=32, enforce_eager=True,
                      entrypoint="llm", vllm_version="0.20.0")
    plain = plan(model, t4, replace(base, quantization="awq"))
    marlin = plan(model, t4, replace(base, quantization="awq_marlin"))
    assert plain.args.awq_kernel == "awq" and marlin.args.awq_kernel == "marlin"
    assert plain.activation_peak_bytes - marlin.activation_peak_bytes == 12288 * 2 * 4096
    assert plain.kv_cache_bytes < marlin.kv_cache_bytes


def test_the_t4_pair_lands_within_a_tenth_of_a_gib_and_the_copy_is_their_difference():
    """Both starts are planned 0.13-0.14 GiB below their logged pools (-5.8 % and -2.8 % on pools of 2.37 and 4.79 GiB)
    since the dense live set counts its third T x H tensor (plan.term_features: 0.06 GiB at T 8192; they were -0.6 and
    -0.2 %) and, eager Qwen3, down_proj's output beside the held gate_up (plan.dense_hidden_rows, 0.06 GiB more; -3.2
    and -1.5 % before): a common offset. The V1 >= 0.27 eager starts that log their consumed memory put the non-torch
    memory 0.10 GiB under the V1-e/f constant (0.20 GiB, fitted on pools), which is about this offset; no record of
    this pair logs it. What the pair tests is the plain kernel's copy: the two residuals agree within 0.01 GiB."""
    gaps = {}
    for rid, rec in _pair().items():
        p, _ = predict_record(rec)
        obs = rec["observed"]
        gaps[rid] = p.kv_cache_bytes / GIB - obs["kv_cache_gib"]
        assert -0.15 < gaps[rid] < -0.1, rid
        assert abs(p.kv_cache_tokens / obs["kv_cache_tokens"] - 1) < 0.065, rid
    assert max(gaps.values()) - min(gaps.values()) < 0.01


def test_the_awq_kernel_is_the_plans_reading_not_a_keyword_the_api_takes():
    """Which AWQ kernel runs is read from the checkpoint, the flag and the release (plan.awq_linear_kernel): kvplan.fit
    refuses it as a keyword instead of taking a value the plan would overwrite."""
    import pytest

    import kvplan
    from kvplan.errors import InputError

    with pytest.raises(InputError) as exc:
        kvplan.fit("Qwen/Qwen3-8B", "L4", awq_kernel="awq")
    assert exc.value.field == "awq_kernel"


def test_fit_says_which_awq_kernel_runs_and_how_to_leave_the_plain_one():
    """fit's flags line read 'quantization awq' for --quantization awq, awq_marlin and none alike, and no assumption
    said that --quantization awq forces the plain kernel (its float16 weight copy) up to 0.23: the plan now names the
    kernel in both places, and the fix where the flag alone forces it."""
    from kvplan import fit
    from kvplan.render import plan_table

    def run(quantization, version):
        p = fit("Qwen/Qwen2.5-72B-Instruct-AWQ", "A100-80GB", tensor_parallel_size=4, vllm_version=version,
                quantization=quantization, detect_gpu=False)
        return p, [a for a in p.assumptions if a.startswith("AWQ: ")]

    forced, notes = run("awq", "0.20.0")
    assert forced.args.awq_kernel == "awq" and len(notes) == 1
    assert "--quantization awq forces it" in notes[0] and "drop --quantization awq" in notes[0]
    for quantization, version in ((None, "0.20.0"), ("awq_marlin", "0.20.0"), ("awq", "0.25.1")):
        p, notes = run(quantization, version)
        assert p.args.awq_kernel == "marlin" and len(notes) == 1 and "converts the Linear layers to AWQ-Marlin" in notes[0]
    import io

    from rich.console import Console

    def flags_line(p):
        buf = io.StringIO()
        Console(file=buf, width=300).print(plan_table(p))
        return next(line for line in buf.getvalue().splitlines() if "quantization awq" in line)

    assert "quantization awq (plain AWQ kernel)" in flags_line(forced)
    assert "quantization awq (AWQ-Marlin kernel)" in flags_line(run("awq_marlin", "0.20.0")[0])
