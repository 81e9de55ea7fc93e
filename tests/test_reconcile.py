"""kvplan reconcile: the log against the plan, the record, the site calibration, and the CLI."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from kvplan.cli import FitFlags
from kvplan.errors import InputError
from kvplan.logs import parse_lines
from kvplan.reconcile import (
    GIB,
    backend_fallback,
    largest_gap,
    load_site_calibration,
    plan_from_log,
    plan_kwargs_from_log,
    reconcile,
    store_site_calibration,
)

DATA = Path(__file__).parent / "data"
EXCERPTS = [json.loads(line) for line in (DATA / "vllm_log_excerpts.jsonl").read_text().splitlines() if line.strip()]
CASES = [json.loads(line) for line in (DATA / "vllm_failure_cases.jsonl").read_text().splitlines() if line.strip()]


def excerpt(i):
    return parse_lines(EXCERPTS[i]["lines"])


def fake_plan(**gib):
    terms = dict(weights=27.5, act=1.0, nt=0.1, cg=0.5, kv=3.0)
    terms.update(gib)
    return SimpleNamespace(
        weights_bytes=terms["weights"] * GIB, activation_peak_bytes=terms["act"] * GIB, non_torch_bytes=terms["nt"] * GIB,
        cudagraph_bytes=0, cudagraph_capture_bytes=terms["cg"] * GIB, kv_cache_bytes=terms["kv"] * GIB,
        num_gpu_blocks=1000, kv_cache_tokens=16000, max_concurrency=1.9, block_size=16,
        args=SimpleNamespace(max_model_len=8192), fits=True, vllm_version="0.7.3",
        gpu=SimpleNamespace(name="NVIDIA A100 40GB PCIe"), model=SimpleNamespace(id="Qwen/Qwen2.5-14B-Instruct"),
    )


def test_without_a_plan_it_reads_every_figure():
    result = reconcile(excerpt(42))
    observed = {r.term: r.observed for r in result.rows}
    assert observed["weights_gib"] == 27.5681 and observed["activation_peak_gib"] == 1.49
    assert observed["non_torch_gib"] == 0.11 and observed["kv_cache_gib"] == 2.33
    assert observed["num_gpu_blocks"] == 796 and observed["cudagraph_gib"] == 0.38
    assert all(r.predicted is None for r in result.rows)
    assert result.largest_gap is None
    assert result.record["observed"]["kv_cache_gib"] == 2.33


def test_term_by_term_gaps_and_the_largest():
    # log (excerpt 42): weights 27.5681, activation 1.49, non-torch 0.11, graphs 0.38, KV 2.33
    result = reconcile(excerpt(42), fake_plan(act=2.49))
    gaps = {r.term: r.gap for r in result.rows}
    assert gaps["activation_peak_gib"] == pytest.approx(-1.0)
    assert gaps["weights_gib"] == pytest.approx(0.0681)
    assert gaps["num_gpu_blocks"] == -204
    assert result.largest_gap["term"] == "activation_peak_gib"
    assert "profile batch" in result.largest_gap["likely_cause"]
    assert result.record["gpu"]["name"] == "NVIDIA A100 40GB PCIe"


def test_kv_gap_beyond_the_measured_terms_points_at_what_is_not_printed():
    log = excerpt(24)  # prints weights, graphs and the pool, but not activation or non-torch
    result = reconcile(log, fake_plan(weights=14.99, cg=0.40, kv=3.0))
    assert result.largest_gap["term"] == "kv_cache_gib"
    assert result.largest_gap["gap_gib"] == pytest.approx(1.75)
    assert "does not print" in result.largest_gap["likely_cause"]


def test_largest_gap_none_without_numbers():
    assert largest_gap(reconcile(parse_lines(["hello"])).rows) is None


def test_backend_fallback_is_flagged():
    assert "XFormers" in backend_fallback(excerpt(85))
    assert backend_fallback(excerpt(98)) is None
    turing = next(c for c in CASES if c["id"] == "attn-fallback-t4-turing-lmcache")
    assert "Volta and Turing" in backend_fallback(parse_lines(turing["log_lines"]))
    second = parse_lines(["Using TRITON_ATTN attention backend out of potential backends: ['FLASH_ATTN', 'TRITON_ATTN']"])
    assert "FLASH_ATTN ranks first" in backend_fallback(second)
    first = parse_lines(["Using FLASH_ATTN attention backend out of potential backends: ['FLASH_ATTN', 'TRITON_ATTN']"])
    assert backend_fallback(first) is None


def test_plan_arguments_come_from_the_log_and_flags_override():
    log = excerpt(100)  # non-default args: max_model_len 4096, enforce_eager, gpu_memory_utilization 0.85; v0.12.0
    kwargs = plan_kwargs_from_log(log)
    assert kwargs["max_model_len"] == "4096" and kwargs["enforce_eager"] is True
    assert kwargs["gpu_memory_utilization"] == 0.85 and kwargs["vllm_version"] == "0.12.0"
    kwargs = plan_kwargs_from_log(log, FitFlags(gpu_memory_utilization=0.9, gpu="H100"))
    assert kwargs["gpu_memory_utilization"] == 0.9 and kwargs["gpu"] == "H100"


def test_era_and_context_length_from_the_format():
    kwargs = plan_kwargs_from_log(excerpt(42))  # V0 split format, no version line; "Maximum concurrency for 8192"
    assert kwargs["vllm_version"] == "0.7.3"
    assert kwargs["max_model_len"] == "8192"
    assert kwargs["gpu_gib"] == 39.38  # the total vLLM printed


def test_a_log_argument_kvplan_cannot_model_is_dropped_with_a_note():
    calls = []

    def fit(model, **kwargs):
        calls.append(kwargs)
        if kwargs.get("quantization") == "weird":
            raise InputError("--quantization", "unknown method 'weird'")
        return fake_plan()

    log = parse_lines(["INFO 01-01 00:00:00 [utils.py:1] non-default args: {'model': 'm', 'quantization': 'weird'}"])
    plan, notes = plan_from_log(log, "m", FitFlags(gpu="H100"), fit=fit)
    assert plan is not None and "quantization" not in calls[-1]
    assert any("quantization" in n for n in notes)
    with pytest.raises(InputError):
        plan_from_log(log, "m", FitFlags(gpu="H100", quantization="weird"), fit=fit)


@pytest.mark.parametrize("flags, noted", [
    (FitFlags(gpu="L4"), "the log's GPU has 23.58 GiB in all, the NVIDIA L4 planned (--gpu) 21.95 GiB"),
    (FitFlags(gpu_gib=40.0), "(--gpu-gib) 40.00 GiB"),
    (FitFlags(gpu="RTX 3090"), None),  # the log's own card (23.58 GiB as CUDA reports it)
    (FitFlags(), None),                # the log's total, planned as printed
])
def test_a_gpu_given_that_is_not_the_logs_is_noted(flags, noted):
    # a V0 log that prints total_gpu_memory=23.58GiB (an RTX 3090), reconciled with --gpu L4: the plan took the
    # L4's 21.95 GiB without a word, and the KV gap (1.5 GiB) read as kvplan's miss
    log = parse_lines(EXCERPTS[0]["lines"])
    assert log.total_gib == 23.58
    plan, notes = plan_from_log(log, "meta-llama/Llama-3.1-8B-Instruct", flags)
    said = [n for n in notes if "the log's GPU has" in n]
    if noted is None:
        assert not said, said
    else:
        assert len(said) == 1 and noted in said[0] and "may come from another GPU" in said[0]


def test_a_length_the_log_ran_at_above_the_configs_limit_is_planned_at_that_length():
    # Qwen3-32B served at 131,072 with a yarn rope_scaling override (non-default args) on 4 H100s, vLLM 0.10.0: the
    # length was dropped as 'not usable' and planned at the config's 40,960, so the concurrency was not compared while
    # the verdict said every figure agreed; `kvplan validate` plans the same startup at the logged length. The
    # override is read from the log and applied to the config, which then derives 32,768 x 4 itself
    log = excerpt(89)
    assert log.max_model_len == 131072 and "rope_scaling" in " ".join(EXCERPTS[89]["lines"])
    plan, notes = plan_from_log(log, "Qwen/Qwen3-32B", FitFlags(gpu="H100"))
    assert plan.args.max_model_len == 131072
    assert plan.config_overrides["changed"]["max_model_len_limit"] == [40960, 32768 * 4]
    assert not any("above the 40,960 its config allows" in n for n in notes), notes
    assert not any("was not usable" in n for n in notes), notes
    row = {r.term: r for r in reconcile(log, plan).rows}["max_concurrency"]
    assert row.gap is not None and abs(row.gap) < 0.1  # 6.51x logged, compared at the same length
    # a length the user gives is theirs: planned with the log's override, and vLLM's refusal of one above it stands
    assert plan_from_log(log, "Qwen/Qwen3-32B", FitFlags(gpu="H100", max_model_len="131072"))[0].args.max_model_len == 131072
    with pytest.raises(InputError):
        plan_from_log(log, "Qwen/Qwen3-32B", FitFlags(gpu="H100", max_model_len=str(32768 * 4 + 1)))


@pytest.mark.parametrize("i, named", [(99, "NVIDIA GeForce RTX 3090"), (100, "NVIDIA RTX PRO 6000 Blackwell")])
def test_a_gpu_the_fused_moe_config_file_names_is_the_logs_gpu(i, named):
    # V1 logs print no total; a MoE model's do name the device, in the tuned-config file the fused-MoE layer looks for:
    # reconcile said the log names no GPU ("--gpu: the log prints neither its GPU nor the GPU's total memory")
    log = excerpt(i)
    assert log.total_gib is None and log.moe_device_name.startswith("NVIDIA_")
    kwargs = plan_kwargs_from_log(log)
    assert kwargs["gpu"] == named
    plan, notes = plan_from_log(log, "Qwen/Qwen3-30B-A3B-Instruct-2507")
    assert plan.gpu.name == named
    assert any("fused-MoE config file's name (device_name=" in n for n in notes), notes
    # --gpu given wins, without the note
    plan, notes = plan_from_log(log, "Qwen/Qwen3-30B-A3B-Instruct-2507", FitFlags(gpu="H100"))
    assert plan.gpu.name == "NVIDIA H100 80GB SXM5" and not any("device_name=" in n for n in notes)


def test_a_device_name_sold_with_several_sizes_is_not_taken_as_the_gpu():
    log = parse_lines(["WARNING 01-01 00:00:00 [fused_moe.py:1] Using default MoE config. Performance might be "
                       "sub-optimal! Config file not found at /x/configs/E=128,N=768,device_name=NVIDIA_GeForce_RTX_4060_Ti.json"])
    assert log.moe_device_name == "NVIDIA_GeForce_RTX_4060_Ti"  # sold with 8 and 16 GB
    assert "gpu" not in plan_kwargs_from_log(log)


def test_a_log_without_its_gpu_or_world_size_is_not_planned_on_a_guess(monkeypatch):
    """No GPU or total in the log and none given: only this machine's own GPU stands in (with a note), else the
    plan is refused, naming --gpu; worker ranks in the prefixes without a stated TP/PP size name
    --tensor-parallel-size."""
    import kvplan.resolve

    def fit(model, **kwargs):
        return fake_plan()

    log = parse_lines(["INFO 01-01 00:00:00 [utils.py:1] non-default args: {'model': 'm'}"])
    monkeypatch.setattr(kvplan.resolve, "detect_gpu", lambda: None)
    with pytest.raises(InputError) as e:
        plan_from_log(log, "m", fit=fit)
    assert e.value.field == "--gpu" and "--gpu-gib" in e.value.fix
    monkeypatch.setattr(kvplan.resolve, "detect_gpu", lambda: kvplan.resolve.find_gpu("L4"))
    _, notes = plan_from_log(log, "m", fit=fit)
    assert any("NVIDIA L4" in n and "detected here" in n for n in notes)

    ranked = parse_lines(["(VllmWorker rank=0 pid=1) INFO 07-21 19:37:30 [gpu_worker.py:232] Available KV cache memory: 12.79 GiB",
                          "(VllmWorker rank=3 pid=4) INFO 07-21 19:37:30 [gpu_worker.py:232] Available KV cache memory: 12.79 GiB"])
    assert ranked.worker_ranks_seen == 4
    with pytest.raises(InputError) as e:
        plan_from_log(ranked, "m", FitFlags(gpu="H100"), fit=fit)
    assert e.value.field == "--tensor-parallel-size" and "at least 4 ranks" in str(e.value) and "N x M >= 4" in e.value.fix
    assert plan_from_log(ranked, "m", FitFlags(gpu="H100", tensor_parallel_size=4), fit=fit)[0] is not None


def test_site_calibration_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("KVPLAN_HOME", str(tmp_path))
    assert load_site_calibration() == {}
    first = reconcile(excerpt(42), fake_plan(act=2.49))
    store_site_calibration(first, "NVIDIA A100 40GB PCIe", "Qwen/Qwen2.5-14B-Instruct")
    second = reconcile(excerpt(42), fake_plan(act=1.49))
    entry = store_site_calibration(second, "NVIDIA A100 40GB PCIe", "Qwen/Qwen2.5-14B-Instruct")
    assert entry["n"] == 2
    assert entry["terms"]["activation_peak_gib"] == pytest.approx(-0.5)  # mean of -1.0 and 0.0
    loaded = load_site_calibration("NVIDIA A100 40GB PCIe", "Qwen/Qwen2.5-14B-Instruct")
    assert loaded["activation_peak_bytes"] == int(-0.5 * GIB)
    assert (tmp_path / "calibration.json").is_file()
    (tmp_path / "calibration.json").write_text("{not json")
    with pytest.raises(InputError):
        load_site_calibration()


def test_calibration_needs_a_measured_term(tmp_path):
    with pytest.raises(InputError):
        store_site_calibration(reconcile(parse_lines(["nothing"]), fake_plan()), "g", "m", path=tmp_path / "c.json")


# ---- with the real planner, on three eras ------------------------------------------------------


@pytest.mark.parametrize("index, model, gpu", [
    (42, "Qwen/Qwen2.5-14B-Instruct", "A100-40GB"),      # V0 0.7.3 format (split profiling line)
    (98, "meta-llama/Llama-3.1-8B-Instruct", "A100-80GB"),  # V1 0.11.0
    (83, "Qwen/Qwen3-8B", "A100-40GB"),                  # V1 0.19.1 (estimated CUDA graphs)
])
def test_reconcile_with_the_planner_on_three_eras(index, model, gpu, tmp_path, monkeypatch):
    pytest.importorskip("kvplan.api")
    monkeypatch.setenv("KVPLAN_HOME", str(tmp_path))  # no site calibration from the user's machine
    log = excerpt(index)
    plan, _ = plan_from_log(log, model, FitFlags(gpu=gpu))
    result = reconcile(log, plan)
    rows = {r.term: r for r in result.rows}
    assert rows["weights_gib"].predicted is not None
    assert abs(rows["weights_gib"].gap) < 0.5  # the checkpoint's bytes are known exactly
    assert rows["kv_cache_gib"].gap is not None
    assert result.largest_gap is not None
    # the record it writes carries the config the plan read, so `kvplan validate` predicts it (no skip)
    from kvplan.validate import validate_records

    assert result.record["model"]["config"] == dict(plan.model.raw_config) and result.record["model"]["id"] == model
    assert result.record["id"].startswith(model.split("/")[-1].lower()) and f"-tp{plan.args.tensor_parallel_size}-" in result.record["id"]
    (scored,) = validate_records([dict(result.record, id="reconciled")])
    assert scored.skipped is None and scored.predicted["weights_gib"] == pytest.approx(plan.weights_bytes / 1024 ** 3, rel=0.01)


# ---- the CLI -------------------------------------------------------------------------------------


def run_cli(*args, stdin=None, home=None):
    env = None
    if home is not None:
        import os

        env = dict(os.environ, KVPLAN_HOME=str(home))
    return subprocess.run([sys.executable, "-c", "from kvplan.cli import main; main()", *args], input=stdin,
                          capture_output=True, text=True, timeout=120, env=env)


def test_cli_json_names_the_plan_it_compared_with(tmp_path):
    log = tmp_path / "x.log"
    log.write_text("\n".join(EXCERPTS[98]["lines"]))
    proc = run_cli("reconcile", str(log), "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "A100-40GB", "--json", home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)["plan"]
    assert plan["model"] == "meta-llama/Llama-3.1-8B-Instruct" and "A100 40GB" in plan["gpu"] and plan["tensor_parallel_size"] == 1


def test_without_a_model_the_text_says_how_to_compare_with_the_plan(tmp_path):
    """`kvplan reconcile LOG` printed a one-column table of the log's figures and nothing on how to see the plan's."""
    log = tmp_path / "x.log"
    log.write_text("\n".join(EXCERPTS[98]["lines"]))
    proc = run_cli("reconcile", str(log), home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())
    assert "pass the model after LOGFILE to compare each with kvplan's plan" in text, proc.stdout
    assert "the log served /home/data/models/Meta-Llama-3.1-8B-Instruct;" in text, proc.stdout  # its own model line
    proc = run_cli("reconcile", str(log), "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "A100-40GB", home=tmp_path)
    assert proc.returncode == 0 and "pass the model after LOGFILE" not in proc.stdout, proc.stdout


def test_cli_record_to_stdout_without_a_model():
    text = "\n".join(EXCERPTS[100]["lines"])
    proc = run_cli("reconcile", "-", "--record", "-", stdin=text)
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert record["observed"]["kv_cache_tokens"] == 198_288
    assert record["vllm_version"] == "0.12.0"


def test_cli_record_carries_the_flags_the_plan_was_given(tmp_path):
    """--record wrote only the log's arguments: a TP 8 log that prints no size (reconcile asks for
    --tensor-parallel-size) was compared at TP 8, fp8 and vLLM 0.10.0 rules, but its record was scored by `kvplan
    validate` at TP 1 with the newest rules (+694 % weights, -99 % tokens)."""
    from kvplan.validate import predict_record

    log = tmp_path / "tp8.log"
    log.write_text("\n".join(EXCERPTS[30]["lines"]))  # Qwen3-32B on 8 H100s, vLLM 0.10.0, fp8 KV cache
    out = tmp_path / "r.jsonl"
    proc = run_cli("reconcile", str(log), "Qwen/Qwen3-32B", "-tp", "8", "--vllm-version", "0.10.0", "--max-model-len",
                   "32K", "--gpu", "H100", "--kv-cache-dtype", "fp8", "--record", str(out), home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rec = json.loads(out.read_text())
    assert rec["vllm_version"] == "0.10.0" and rec["gpu"]["count"] == 8 and rec["gpu"]["total_gib"] is None
    assert rec["args"]["tensor_parallel_size"] == 8 and rec["args"]["kv_cache_dtype"] == "fp8"
    assert rec["args"]["max_model_len"] == 32768  # as the plan read '32K'
    p, _ = predict_record(rec)
    assert abs(p.kv_cache_tokens / rec["observed"]["kv_cache_tokens"] - 1) < 0.01  # scored as reconcile compared it
    assert abs(p.weights_bytes / GIB - rec["observed"]["weights_gib"]) < 0.05
    # a size given is written as the plan's total, exactly
    proc = run_cli("reconcile", str(log), "Qwen/Qwen3-32B", "-tp", "8", "--gpu-gib", "79.5", "--record", "-", home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["gpu"]["total_gib"] == 79.5


def test_the_record_reconcile_makes_carries_the_flags_for_every_caller():
    """reconcile.reconcile made the record from the log alone; only the CLI wrote the flags in after the fact, so a
    caller of plan_from_log + reconcile got a TP 8 startup compared at TP 8 on an H100 but recorded at TP 1 on no
    named card, the GPU's count 1."""
    log = excerpt(30)  # Qwen3-32B on 8 H100s, vLLM 0.10.0, fp8 KV cache, no size printed
    flags = FitFlags(tensor_parallel_size=8, vllm_version="0.10.0", max_model_len="32K", gpu="H100", kv_cache_dtype="fp8")
    plan, _ = plan_from_log(log, "Qwen/Qwen3-32B", flags, site_calibration=False)
    rec = reconcile(log, plan, flags).record
    assert rec["args"]["tensor_parallel_size"] == 8 and rec["gpu"]["count"] == 8 and rec["vllm_version"] == "0.10.0"
    assert rec["args"]["max_model_len"] == 32768 and rec["args"]["kv_cache_dtype"] == "fp8"
    assert rec["gpu"]["name"] == plan.gpu.name and rec["gpu"]["total_gib"] is None  # the catalog card, read back by name
    # no flags: the log's own arguments (it states no parallel size)
    bare = reconcile(log, plan).record
    assert bare["args"]["tensor_parallel_size"] is None and bare["gpu"]["count"] is None and bare["vllm_version"] is None


def test_cli_names_no_memory_gap_that_rounds_to_zero(tmp_path):
    """A 0.6.3 log printing its weights (15.39 GiB, planned exactly) and blocks only: the text added 'largest memory
    gap: weights_gib -0.00 GiB; likely cause: the checkpoint's real tensor bytes differ ...'."""
    log = tmp_path / "v063.log"
    log.write_text("\n".join(EXCERPTS[38]["lines"]))
    proc = run_cli("reconcile", str(log), "Qwen/Qwen2.5-32B-Instruct", "-tp", "4", "--gpu", "A100-80GB",
                   "--vllm-version", "0.6.3.post1", "--max-model-len", "32768", home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    said = " ".join(proc.stdout.split())
    assert "largest gap: num_gpu_blocks" in said and "largest memory gap" not in said
    # --json agrees: it named {"term": "weights_gib", "gap_gib": -0.0, ...} as the largest gap
    proc = run_cli("reconcile", str(log), "Qwen/Qwen2.5-32B-Instruct", "-tp", "4", "--gpu", "A100-80GB",
                   "--vllm-version", "0.6.3.post1", "--max-model-len", "32768", "--json", home=tmp_path)
    out = json.loads(proc.stdout)
    assert out["largest_gap"] is None and out["headline_gap"]["term"] == "num_gpu_blocks"
    assert next(r for r in out["comparison"] if r["term"] == "weights_gib")["gap"] is not None  # compared, no gap to name


def test_cli_plan_header_names_data_parallelism(tmp_path):
    """A DP 2 log (vLLM 0.10.1.1) was compared with a plan said to be 'TP 1 · PP 1': its two engines went unsaid."""
    log = DATA / "dp2_engine_core_n_v0101.log"
    proc = run_cli("reconcile", str(log), "Qwen/Qwen2.5-7B-Instruct", "--gpu", "A100-80GB", home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "TP 1 · PP 1 · DP 2" in " ".join(proc.stdout.split())
    proc = run_cli("reconcile", str(log), "Qwen/Qwen2.5-7B-Instruct", "--gpu", "A100-80GB", "--json", home=tmp_path)
    assert json.loads(proc.stdout)["plan"]["data_parallel_size"] == 2


def test_cli_a_path_that_cannot_be_written_is_a_clear_error(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    proc = run_cli("reconcile", "-", "--record", str(blocker / "out.jsonl"), stdin="\n".join(EXCERPTS[100]["lines"]))
    assert proc.returncode == 2 and "out.jsonl" in proc.stderr and "Not a directory" in proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr


def test_cli_calibrate_needs_a_model(tmp_path):
    log = tmp_path / "x.log"
    log.write_text("\n".join(EXCERPTS[100]["lines"]))
    proc = run_cli("reconcile", str(log), "--calibrate", home=tmp_path)
    assert proc.returncode == 2 and "--calibrate" in proc.stderr


def test_cli_diagnose_json_and_missing_file(tmp_path):
    case = next(c for c in CASES if c["id"] == "gpu-bf16-t4")
    proc = run_cli("diagnose", "-", "--json", stdin="\n".join(case["log_lines"]))
    assert proc.returncode == 1  # the log shows a failed start
    out = json.loads(proc.stdout)
    assert out["started"] is False
    assert out["findings"][0]["symptom"] == "unsupported_gpu" and out["findings"][0]["layer"] == "gpu"
    assert set(out["findings"][0]) >= {"symptom", "layer", "cause", "fix", "evidence", "confidence"}
    proc = run_cli("diagnose", str(tmp_path / "missing.log"))
    assert proc.returncode == 2


def test_cli_diagnose_healthy_start(tmp_path):
    proc = run_cli("diagnose", "-", stdin="\n".join(EXCERPTS[98]["lines"]))
    assert proc.returncode == 0
    assert "kvplan reconcile" in proc.stdout


# ---- the model the log served ---------------------------------------------------------------------


def test_model_names_agree_across_paths_case_and_revision():
    from kvplan.reconcile import model_key

    same = ["Qwen/Qwen3-8B", "qwen/qwen3-8b", "/models/Qwen3-8B/", "Qwen/Qwen3-8B@main",
            "/root/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/0123abcd", "C:\\models\\Qwen3-8B"]
    assert {model_key(n) for n in same} == {model_key("Qwen/Qwen3-8B")}
    assert model_key("Qwen/Qwen2.5-0.5B-Instruct") != model_key("Qwen/Qwen3-8B")
    from kvplan.reconcile import same_model

    assert same_model("/home/data/models/Meta-Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct")
    assert not same_model("Qwen/Qwen3-8B", "Qwen/Qwen3-8B-AWQ") and not same_model("Qwen/Qwen3-8B", "Qwen/Qwen3-14B")


def test_a_log_of_another_model_is_refused_and_forced_only_on_request():
    from kvplan.reconcile import check_model, model_mismatch

    log = excerpt(83)  # serves Qwen/Qwen3-8B
    assert "Qwen/Qwen3-8B" in log.model_names
    assert model_mismatch(log, "/data/qwen3-8b") is None
    with pytest.raises(InputError) as err:
        check_model(log, "Qwen/Qwen2.5-0.5B-Instruct")
    assert "Qwen/Qwen3-8B" in str(err.value) and "Qwen/Qwen2.5-0.5B-Instruct" in str(err.value) and "--force-model" in str(err.value)
    assert any("--force-model" in n for n in check_model(log, "Qwen/Qwen2.5-0.5B-Instruct", force=True))
    with pytest.raises(InputError, match="--calibrate"):
        check_model(log, "Qwen/Qwen2.5-0.5B-Instruct", force=True, calibrate=True)
    assert check_model(parse_lines(["Model loading took 1.0 GiB memory"]), "anything/at-all") == []  # no name: no check


@pytest.mark.parametrize("index, model", [
    (53, "meta-llama/Llama-2-7b-chat-hf"),  # '.../Llama-2-7b-chat-ms': ModelScope's copy of the Hub repo
    (87, "TechxGenus/Meta-Llama-3-70B-Instruct-AWQ"),  # a local folder 'llama3-70b-awq' holding it
    (79, "Qwen/Qwen2.5-VL-7B-Instruct-AWQ"),  # 'vllm serve mymodel': a name of the user's choosing, no checkpoint named
])
def test_a_mirror_a_local_folder_or_an_alias_of_the_model_is_not_refused(index, model):
    from kvplan.reconcile import check_model

    assert check_model(excerpt(index), model) == []


def test_a_log_whose_path_names_another_checkpoint_is_still_refused():
    from kvplan.reconcile import check_model

    with pytest.raises(InputError, match="medmpt_coding"):  # a fine-tune in a local folder, not the base checkpoint
        check_model(excerpt(49), "mosaicml/mpt-7b")
    for model in ("Qwen/Qwen3-8B", "Qwen/Qwen3-8B-AWQ"):  # 87 is 70B AWQ; a size or a quantization apart is another model
        with pytest.raises(InputError, match="llama3-70b-awq"):
            check_model(excerpt(87), model)
    log = excerpt(99)  # --served-model-name qwen-coder-32b for cpatonn/Qwen3-30B-A3B-Thinking-2507-AWQ-4bit
    assert check_model(log, "qwen-coder-32b") == []  # any name the log gives agrees
    with pytest.raises(InputError, match="cpatonn/Qwen3-30B"):  # the alias matches nothing: the model path decides
        check_model(log, "Qwen/Qwen2.5-Coder-32B-Instruct")


def test_a_served_model_name_alone_is_no_evidence_of_another_model():
    from kvplan.reconcile import check_model

    log = parse_lines(["INFO 01-01 00:00:00 [utils.py:1] non-default args: {'served_model_name': ['prod-llm-7'], "
                       "'max_model_len': 4096}"])
    assert log.model_names == ("prod-llm-7",) and log.model_paths == ()
    assert check_model(log, "Qwen/Qwen3-8B") == []


def test_the_load_line_names_the_model():
    log = parse_lines(["INFO 01-01 00:00:00 [gpu_model_runner.py:1] Starting to load model /models/Llama-3.1-8B..."])
    assert log.model == "/models/Llama-3.1-8B" and log.model_names == ("/models/Llama-3.1-8B",)


def test_cli_refuses_another_model_and_never_calibrates_from_it(tmp_path):
    log = tmp_path / "x.log"
    log.write_text("\n".join(EXCERPTS[83]["lines"]))
    for extra in ((), ("--calibrate",), ("--calibrate", "--force-model")):
        proc = run_cli("reconcile", str(log), "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "A100-40GB", *extra, home=tmp_path)
        assert proc.returncode == 2, proc.stdout
        assert "Qwen/Qwen3-8B" in proc.stderr and "Qwen/Qwen2.5-0.5B-Instruct" in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "calibration.json").exists()


def test_human_readable_ints_in_the_log_are_read_as_vllm_serve_reads_them():
    from kvplan.plan import parse_max_model_len

    log = parse_lines(["$ vllm serve Qwen/Qwen3-8B --max-num-batched-tokens=8K --max-num-seqs 1k --max-model-len 32k"])
    kwargs = plan_kwargs_from_log(log)
    assert kwargs["max_num_batched_tokens"] == 8 * 1024 and kwargs["max_num_seqs"] == 1000
    assert parse_max_model_len(kwargs["max_model_len"]) == 32_000
    from kvplan.validate import clean_record

    args = clean_record({"model": {}, "observed": {}, "args": {"max_num_batched_tokens": "8K", "max_num_seqs": "2k"}})["args"]
    assert args["max_num_batched_tokens"] == 8192 and args["max_num_seqs"] == 2000
    with pytest.raises(InputError, match="whole number"):  # vLLM refuses decimals with a binary suffix
        clean_record({"model": {}, "observed": {}, "args": {"max_num_batched_tokens": "1.5K"}})
    with pytest.raises(InputError, match="whole number"):  # only engine flags take suffixes
        clean_record({"model": {}, "observed": {"num_gpu_blocks": "8K"}, "args": {}})


def test_the_headline_gap_is_the_figure_furthest_off_not_only_a_gib_term():
    log = excerpt(59)  # 7.12 GiB weights, 473,184 tokens, 14.44x
    plan = fake_plan(weights=log.weights_gib - 0.03, cg=0.0, kv=3.0)
    plan.kv_cache_tokens, plan.max_concurrency, plan.num_gpu_blocks = 2_435_680, 74.33, None
    result = reconcile(log, plan)
    assert result.largest_gap["term"] == "weights_gib"  # the largest GiB gap is a rounding of the weights
    h = result.headline_gap
    assert h["term"] == "kv_cache_tokens" and h["observed"] == log.kv_cache_tokens and h["predicted"] == 2_435_680
    assert h["relative"] == pytest.approx((2_435_680 - log.kv_cache_tokens) / log.kv_cache_tokens, rel=1e-3)
    # when a memory term is further off than any capacity figure, it stays the headline, with its cause
    close = fake_plan(act=2.49)
    close.num_gpu_blocks = close.kv_cache_tokens = close.max_concurrency = None
    r42 = reconcile(excerpt(42), close)
    assert r42.headline_gap["term"] == "activation_peak_gib" == r42.largest_gap["term"]
    assert r42.headline_gap["likely_cause"] == r42.largest_gap["likely_cause"]


def test_a_local_config_or_folder_is_checked_by_the_model_it_names(tmp_path):
    from kvplan.reconcile import model_mismatch

    log = excerpt(83)  # serves Qwen/Qwen3-8B
    config = json.dumps({"model_type": "qwen3", "hidden_size": 4096})
    (tmp_path / "Qwen3-8B").mkdir()
    (tmp_path / "Qwen3-8B" / "config.json").write_text(config)
    (tmp_path / "Qwen--Qwen3-8B.json").write_text(config)
    (tmp_path / "ckpt").mkdir()
    (tmp_path / "ckpt" / "config.json").write_text(config)
    for model in ("Qwen3-8B/config.json", "Qwen3-8B", "Qwen--Qwen3-8B.json", "ckpt", "ckpt/config.json"):
        assert model_mismatch(log, str(tmp_path / model)) is None, model
    (tmp_path / "Qwen--Qwen2.5-3B.json").write_text(config)  # the catalog file's name names another model
    assert model_mismatch(log, str(tmp_path / "Qwen--Qwen2.5-3B.json")) == "Qwen/Qwen3-8B"
    (tmp_path / "ckpt" / "config.json").write_text(json.dumps({"_name_or_path": "Qwen/Qwen3-8B"}))
    assert model_mismatch(log, str(tmp_path / "ckpt")) is None
    (tmp_path / "ckpt" / "config.json").write_text(json.dumps({"_name_or_path": "Qwen/Qwen2.5-3B"}))
    assert model_mismatch(log, str(tmp_path / "ckpt")) == "Qwen/Qwen3-8B"


@pytest.mark.parametrize("path", ["/mnt/models", "/model", "/models/", "/data/weights", "/ckpt",
                                  "/root/.cache/modelscope/hub/models/Qwen/Qwen3-8B/master"])
def test_a_generic_mount_point_names_no_other_checkpoint(path):
    from kvplan.reconcile import model_mismatch

    log = parse_lines([f"INFO 06-10 10:57:31 [cli_args.py:325] non-default args: {{'model': '{path}', "
                       "'served_model_name': ['qwen3']}", "Model loading took 15.2683 GiB and 3.6 seconds"])
    assert model_mismatch(log, "Qwen/Qwen3-8B") is None
    assert model_mismatch(parse_lines(["non-default args: {'model': '/mnt/models/Qwen2.5-3B'}"]), "Qwen/Qwen3-8B")


def _capacity_plan(log, kv, tokens, concurrency, max_model_len):
    seen = {r.term: r.observed for r in reconcile(log).rows}
    plan = fake_plan(weights=log.weights_gib, act=seen["activation_peak_gib"] or 0.0, nt=seen["non_torch_gib"] or 0.0,
                     cg=seen["cudagraph_gib"] or 0.0, kv=kv)
    plan.kv_cache_tokens, plan.max_concurrency, plan.num_gpu_blocks = tokens, concurrency, None
    plan.args = SimpleNamespace(max_model_len=max_model_len)
    return plan


def test_a_capacity_gap_that_is_the_pools_names_the_pool_and_its_cause():
    log = excerpt(98)  # 19.24 GiB, 157,584 tokens: 8,190 tokens per GiB
    h = reconcile(log, _capacity_plan(log, 55.03, 450_832, 110.07, 4096)).headline_gap  # 8,192 per GiB
    assert h["term"] == "kv_cache_gib" and h["observed"] == 19.24 and "tokens per GiB" not in h["likely_cause"]
    assert not h["agrees"]
    # tokens per GiB that really differ (an fp8 cache planned as bf16) keep the tokens headline and that cause
    h = reconcile(log, _capacity_plan(log, 19.5, 78_000, 19.0, 4096)).headline_gap
    assert h["term"] == "kv_cache_tokens" and h["likely_cause"].startswith("tokens per GiB differ")


def test_a_concurrency_at_another_max_model_len_is_no_headline():
    log = excerpt(89)  # 6.51x at max_model_len 131,072
    result = reconcile(log, _capacity_plan(log, 52.11, 853_808, 20.82, 40960))
    row = next(r for r in result.rows if r.term == "max_concurrency")
    assert row.note and "131,072" in row.note and "40,960" in row.note and row.to_dict()["note"] == row.note
    assert result.headline_gap["term"] != "max_concurrency"


def test_a_headline_under_half_a_percent_says_the_plan_agrees():
    log = excerpt(100)  # 18.15 GiB, 198,288 tokens
    result = reconcile(log, _capacity_plan(log, 18.08, 197_504, 48.22, 4096))
    assert result.headline_gap["agrees"] and result.headline_gap["relative"] < 0.005
    assert not reconcile(log, _capacity_plan(log, 17.5, 190_000, 46.4, 4096)).headline_gap["agrees"]


def test_a_model_name_cut_off_by_a_truncated_args_line_is_not_compared():
    from kvplan.reconcile import model_mismatch

    head = ("INFO 04-14 01:32:47 api_server.py:841] args: Namespace(host=None, port=8000, tool_parser_plugin='', "
            "model='Qwen/Qwen2.5-14B-Instr")
    log = parse_lines([head, "INFO 04-14 01:36:27 model_runner.py:1115] Loading model weights took 27.5681 GB"])
    assert log.weights_gib == 27.5681 and "Qwen/Qwen2.5-14B-Instr" not in log.model_names
    assert model_mismatch(log, "Qwen/Qwen2.5-14B-Instruct") is None
    whole = parse_lines([head + "uct', max_model_len=32768)"])
    assert whole.model == "Qwen/Qwen2.5-14B-Instruct" and model_mismatch(whole, "Qwen/Qwen3-8B")


def test_a_log_without_its_version_is_noted_once_and_not_when_the_version_is_given():
    """plan_from_log notes the version it planned a version-less log with (reconcile and diagnose both show its
    note); with --vllm-version given nothing asks for it (reconcile's own note had asked regardless)."""
    log = parse_lines(["INFO 01-01 00:00:00 [utils.py:1] non-default args: {'model': 'm'}"])
    assert not log.vllm_version and not log.era

    def fit(model, **kwargs):
        return fake_plan()

    for flags, expected in ((FitFlags(gpu="H100"), 1), (FitFlags(gpu="H100", vllm_version="0.7.3"), 0)):
        plan, notes = plan_from_log(log, "m", flags, fit=fit)
        shown = notes + list(reconcile(log, plan).notes)
        assert sum("does not print its vLLM version" in n for n in shown) == expected, shown


def test_the_plan_of_a_log_takes_the_engine_args_its_record_takes():
    """What a log says about an engine argument, stated or printed as the engine applied it ('Chunked prefill is
    enabled with max_num_batched_tokens=8192'), is read once (StartupLog.arg_or_printed): the plan reconcile compares
    with takes the printed token budget, as the record written from the same log does (the plan had taken kvplan's
    default for the version, so `kvplan validate` of that record planned another start than reconcile had)."""
    log = excerpt(84)  # vLLM 0.19.1, no max_num_batched_tokens in its args, 8192 printed
    assert log.arg("max_num_batched_tokens") is None and log.max_num_batched_tokens == 8192
    kwargs, args = plan_kwargs_from_log(log), log.to_record()["args"]
    for name in ("max_model_len", "gpu_memory_utilization", "block_size", "max_num_batched_tokens"):
        if args[name] is not None:
            assert str(kwargs[name]) == str(args[name]), name
    assert kwargs["max_num_batched_tokens"] == 8192


def test_a_source_build_without_a_release_number_is_planned_as_a_versionless_log():
    """setuptools-scm names a checkout with no reachable release tag 0.1.dev<commits>: that number names no release,
    so the log is planned as one that prints no version (it had been planned with rules older than 0.6.3), and
    --vllm-version refuses it naming the fix."""
    from kvplan.versions import parse_version, untagged_source_build

    line = "INFO 10-15 00:00:00 [core.py:1] Initializing a V1 LLM engine (v0.1.dev1+gd56e95223) with config: model='m'"
    log = parse_lines([line, "INFO 01-01 00:00:00 [utils.py:1] non-default args: {'model': 'm'}"])
    assert log.vllm_version == "0.1.dev1+gd56e95223" and untagged_source_build(log.vllm_version)
    assert "vllm_version" not in plan_kwargs_from_log(log, FitFlags(gpu="H100"))

    def fit(model, **kwargs):
        assert "vllm_version" not in kwargs
        return fake_plan()

    plan, notes = plan_from_log(log, "m", FitFlags(gpu="H100"), fit=fit)
    assert any("names no release" in n and "pass --vllm-version" in n for n in notes), notes
    with pytest.raises(InputError, match="names no release") as exc:
        parse_version("0.1.dev1+gd56e95223")
    assert exc.value.field == "--vllm-version" and "built after" in exc.value.fix
    assert parse_version("0.1.7") == (0, 1, 7) and not untagged_source_build("0.11.0.dev12+gabc")


def test_a_source_build_log_is_not_sent_to_a_release_comparison_that_refuses_its_number():
    """A log that prints setuptools-scm's 0.1.dev<commits>, reconciled with a 0.33.0 plan, was told to run
    `kvplan sweep ... --vary vllm_version=0.1.dev1+gd56e95223,0.33.0`, which refuses that number."""
    import kvplan
    from kvplan.api import sweep_rows

    line = ("INFO 10-15 00:00:00 [core.py:1] Initializing a V1 LLM engine (v0.1.dev1+gd56e95223) with config: "
            "model='Qwen/Qwen2.5-7B-Instruct'")
    log = parse_lines([line, "INFO 01-01 00:00:00 [gpu_worker.py:1] Available KV cache memory: 4.50 GiB"])
    plan = kvplan.fit("Qwen/Qwen2.5-7B-Instruct", "L4", max_model_len=8192, vllm_version="0.33.0")
    rows = sweep_rows("Qwen/Qwen2.5-7B-Instruct", FitFlags(gpu="L4", max_model_len="8192"),
                      [("vllm_version", [log.vllm_version, "0.33.0"])])
    assert "names no release" in rows[0]["error_input"]  # what the suggested sweep would have answered
    notes = reconcile(log, plan).notes
    assert not any("--vary vllm_version" in n for n in notes), notes
    said = [n for n in notes if "names no release" in n]
    assert len(said) == 1 and "0.33.0's rules" in said[0] and "--vllm-version" in said[0]

def test_every_argument_the_record_carries_reaches_the_plan_reconcile_compares_with():
    """reconcile planned with a fixed list of twelve arguments: a log's --limit-mm-per-prompt, --language-model-only,
    LoRA slots or data parallelism went into the record `--record` wrote (and so into `kvplan validate`) but not into
    the plan reconcile compared the same log with."""
    log = parse_lines(["INFO 01-01 00:00:00 [utils.py:1] non-default args: {'model': 'Qwen/Qwen3-VL-30B-A3B-Instruct', "
                       "'limit_mm_per_prompt': {'image': 1, 'video': 0}, 'language_model_only': False, 'enable_lora': True, "
                       "'max_loras': 2, 'data_parallel_size': 2, 'enable_prefix_caching': False, 'max_num_seqs': 64}"])
    kwargs, args = plan_kwargs_from_log(log), log.to_record()["args"]
    for name, value in args.items():
        if value is not None and name != "env" and not (name in ("dtype", "kv_cache_dtype") and value == "auto"):
            assert name in kwargs, name
    assert kwargs["limit_mm_per_prompt"] == args["limit_mm_per_prompt"] and kwargs["enable_lora"] is True
    assert kwargs["max_loras"] == 2 and kwargs["data_parallel_size"] == 2 and kwargs["enable_prefix_caching"] is False


# Two starts of one command on an RTX 4090 (vLLM 0.23.0), the first compiling its torch.compile graphs, the second
# loading them from the compile cache (StellaLee/vllm-experiment @1823497b, findings/chunk_20260706_093754,
# server_dynchunk0.log and server_dynchunk1.log, the lines kvplan reads)
COLD_LOG, WARM_LOG = DATA / "compile_cold_rtx4090_v0230.log", DATA / "compile_warm_rtx4090_v0230.log"


def _coder_plan(**flags):
    from kvplan.api import fit
    return fit("Qwen/Qwen2.5-7B-Instruct", gpu="RTX 4090", vllm_version="0.23.0", max_num_seqs=32,
               site_calibration=False, **flags)


def test_the_compile_cache_state_is_read_from_the_log():
    from kvplan.logs import parse_log
    cold, warm = parse_log(COLD_LOG), parse_log(WARM_LOG)
    assert (cold.compile_cache, warm.compile_cache) == ("cold", "warm")
    assert (cold.kv_cache_gib, warm.kv_cache_gib) == (6.06, 6.84)  # the same command, 0.78 GiB apart
    assert parse_lines(["INFO Compiling a graph for dynamic shape takes 46.70 s"]).compile_cache == "cold"
    assert parse_lines(["INFO Compiling a graph for general shape takes 20.1 s"]).compile_cache == "cold"
    assert parse_lines(["INFO vLLM's torch.compile cache is disabled."]).compile_cache == "cold"
    assert parse_lines(["INFO Directly load the compiled graph(s) for dynamic shape from the cache, took 3.9 s"]).compile_cache == "warm"
    assert parse_lines(["INFO Available KV cache memory: 6.06 GiB"]).compile_cache is None
    assert "torch.compile cold start" in cold.to_record()["notes"]
    assert "torch.compile warm start" in warm.to_record()["notes"]


def test_a_cold_start_below_the_plan_names_the_compile():
    from kvplan.logs import parse_log
    plan = _coder_plan()
    cold = reconcile(parse_log(COLD_LOG), plan)
    assert plan.kv_cache_bytes / GIB > 6.06 + 0.1  # the plan's pool is above the cold start's
    assert any("compiled its torch.compile graphs cold" in n for n in cold.notes)
    assert cold.to_dict()["compile_cache"] == "cold"
    # and where the logged pool falls in the plan's first-start range (plan.cold_start_pool_loss_bytes)
    first = plan.first_start
    low, high = first["kv_cache_bytes_least"] / GIB, first["kv_cache_bytes_most"] / GIB
    note = next(n for n in cold.notes if "compiled its torch.compile graphs cold" in n)
    assert f"a {low:.2f}-{high:.2f} GiB pool; the logged 6.06 GiB is {6.06 - high:.2f} GiB above it" in note
    warm = reconcile(parse_log(WARM_LOG), plan)
    assert not any("torch.compile" in n for n in warm.notes)
    # a cold start whose pool is not below the plan (the plan made smaller): nothing to explain
    small = _coder_plan(gpu_memory_utilization=0.85)
    assert small.kv_cache_bytes / GIB < 6.06
    assert not any("torch.compile" in n for n in reconcile(parse_log(COLD_LOG), small).notes)


def test_a_plan_says_it_plans_a_start_with_the_compile_cache_warm():
    from kvplan.api import fit
    from kvplan.plan import COMPILE_CACHE_NOTE

    def note(plan):
        found = [a for a in plan.assumptions if a.startswith(COMPILE_CACHE_NOTE)]
        assert len(found) <= 1
        return found[0] if found else None

    plan = fit("Qwen/Qwen2.5-7B-Instruct", gpu="L4", site_calibration=False)
    # the note carries this plan's first-start cost, the same figures as first_start in --json
    first = plan.first_start
    assert first["modelled"] and first["loss_bytes_most"] > first["loss_bytes_least"] > 0
    assert (f"{first['loss_bytes_least'] / GIB:.2f}-{first['loss_bytes_most'] / GIB:.2f} GiB less KV pool here"
            in note(plan))
    # a release with no mechanism read keeps the public pairs' range, its top the 1.74 GiB that first_start, the
    # warning and preflight use (it read '0.8-1.7 GiB')
    old = fit("Qwen/Qwen2.5-7B-Instruct", gpu="L4", vllm_version="0.11.0", site_calibration=False)
    assert not old.first_start["modelled"]
    assert f"has logged up to {old.first_start['loss_bytes_most'] / GIB:.2f} GiB less KV pool" in note(old)
    assert "1.74 GiB less KV pool" in note(old)
    # a multimodal model's profile compiles no embedding gather: nothing charged, and said so
    assert "costs the pool nothing kvplan has read" in note(fit("Qwen/Qwen3.5-27B", gpu="H100", vllm_version="0.27.1",
                                                               site_calibration=False))
    # no torch.compile: eager, or V0
    assert note(fit("Qwen/Qwen2.5-7B-Instruct", gpu="L4", enforce_eager=True, site_calibration=False)) is None
    assert note(fit("Qwen/Qwen2.5-7B-Instruct", gpu="L4", vllm_version="0.6.4", site_calibration=False)) is None


def test_reconcile_prints_the_compile_cache_state():
    out = subprocess.run([sys.executable, "-m", "kvplan", "reconcile", str(COLD_LOG)], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "COLUMNS": "200"})
    assert out.returncode == 0, out.stderr
    assert "torch.compile cold (compiled at this start)" in out.stdout
    warm = subprocess.run([sys.executable, "-m", "kvplan", "reconcile", str(WARM_LOG)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": "200"})
    assert "torch.compile warm (graphs loaded from the cache)" in warm.stdout


def test_an_agreement_says_when_the_plan_left_out_a_log_argument(tmp_path):
    # the headline said "the plan agrees with the log" of a plan that had dropped an argument the log ran with
    lines = [line.replace("non-default args: {", "non-default args: {'quantization': 'bogus', ", 1)
             for line in EXCERPTS[100]["lines"]]
    log = tmp_path / "vllm.log"
    log.write_text("\n".join(lines) + "\n")
    gpu = ("--gpu", "NVIDIA RTX PRO 6000 Blackwell")
    proc = run_cli("reconcile", str(log), "Qwen/Qwen3-30B-A3B-Instruct-2507", *gpu, home=tmp_path)
    out = " ".join(proc.stdout.split())
    assert proc.returncode == 0, proc.stderr
    assert "the plan agrees with the log" in out
    assert "though the plan leaves out 1 of the log's arguments it could not use (notes below)" in out
    assert "the log's quantization='bogus' was not usable" in out
    # the same log as published agrees without the qualification
    log.write_text("\n".join(EXCERPTS[100]["lines"]) + "\n")
    out = " ".join(run_cli("reconcile", str(log), "Qwen/Qwen3-30B-A3B-Instruct-2507", *gpu, home=tmp_path).stdout.split())
    assert "the plan agrees with the log" in out and "leaves out" not in out


def test_cli_names_the_rules_applied_to_a_log_newer_than_kvplan_read(tmp_path):
    """A log of vLLM 0.34.0 was compared "with vLLM 0.34.0 rules" (and --json "vllm_rules": "0.34.0") while the plan
    applied 0.33.0's, the newest kvplan holds."""
    from kvplan.versions import NEWEST_READ

    text = "\n".join(EXCERPTS[98]["lines"])
    version = next(v for v in ("0.34.0", "0.99.0") if v != NEWEST_READ)
    log = tmp_path / "x.log"
    log.write_text(re.sub(r"(version |\(v)\d+\.\d+\.\d+", lambda m: m.group(1) + version, text))
    args = ("reconcile", str(log), "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "A100-40GB", "--vllm-version", version)
    proc = run_cli(*args, "--json", home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["plan"]["vllm_rules"] == NEWEST_READ
    proc = run_cli(*args, home=tmp_path)
    assert (f"vLLM {NEWEST_READ} rules (vLLM {version} is newer than the rules kvplan holds)"
            in " ".join(proc.stdout.split())), proc.stdout


def test_cli_says_a_log_older_than_kvplan_read_was_planned_with_the_oldest_rules(tmp_path):
    """fit's vLLM row says "0.5.0 — planned with the oldest rules kvplan holds"; reconcile's plan line said "vLLM 0.5.0
    rules" as if kvplan had read them."""
    from kvplan.versions import OLDEST_READ, parse_version

    version = "0.5.0"
    assert parse_version(version) < parse_version(OLDEST_READ)
    log = tmp_path / "x.log"
    log.write_text(re.sub(r"(version |\(v)\d+\.\d+\.\d+", lambda m: m.group(1) + version, "\n".join(EXCERPTS[98]["lines"])))
    args = ("reconcile", str(log), "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "A100-40GB", "--vllm-version", version)
    proc = run_cli(*args, home=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    out = " ".join(proc.stdout.split())
    assert f"vLLM {version} rules (older than vLLM {OLDEST_READ}, the oldest release kvplan read: planned with the oldest rules kvplan holds)" in out, out


def test_cli_json_record_is_the_record_written(tmp_path):
    """--json's `record` is what --record writes: it lacked the flags given (TP 8, fp8, vLLM 0.10.0), and had them only
    when --record was given beside --json."""
    log = tmp_path / "tp8.log"
    log.write_text("\n".join(EXCERPTS[30]["lines"]))  # Qwen3-32B on 8 H100s, vLLM 0.10.0, fp8 KV cache
    flags = ("Qwen/Qwen3-32B", "-tp", "8", "--vllm-version", "0.10.0", "--gpu", "H100", "--kv-cache-dtype", "fp8")
    proc = run_cli("reconcile", str(log), *flags, "--json", home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    shown = json.loads(proc.stdout)["record"]
    assert shown["args"]["tensor_parallel_size"] == 8 and shown["vllm_version"] == "0.10.0"
    assert shown["gpu"]["count"] == 8 and shown["args"]["kv_cache_dtype"] == "fp8"
    proc = run_cli("reconcile", str(log), *flags, "--record", "-", home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == shown


def test_the_v1_to_v0_engine_fallback_is_named_as_the_engines_not_the_backends():
    # a 0.8.2 T4 start (log_excerpts.jsonl, huggingface/cookbook): it read "attention backend fell back (XFormers):
    # Compute Capability < 8.0 is not supported by the V1 Engine. Falling back to V0"
    from kvplan.reconcile import backend_fallback

    lines = ["INFO 05-05 15:15:08 [api_server.py:981] vLLM API server version 0.8.2",
             "WARNING 05-05 15:15:24 [arg_utils.py:1854] Compute Capability < 8.0 is not supported by the V1 Engine. "
             "Falling back to V0.",
             "INFO 05-05 15:15:37 [cuda.py:288] Using XFormers backend."]
    said = backend_fallback(parse_lines(lines))
    assert said.startswith("engine fell back from V1 to V0 (attention: XFormers): Compute Capability < 8.0")
    assert "attention backend" not in said
    turing = lines + ["INFO 05-05 15:15:37 [cuda.py:240] Cannot use FlashAttention-2 backend for Volta and Turing GPUs."]
    said = backend_fallback(parse_lines(turing))
    assert said.startswith("engine fell back from V1 to V0") and "; attention backend fell back (XFormers): Cannot use" in said


def test_a_plan_that_disagrees_with_the_log_on_starting_says_so_in_words():
    # the note read "the plan says fits=False, the log shows fits=True": Python's words, and neither why the plan refused
    # nor where to look (vllm_logs excerpt 24, Llama-3.1-8B on an L4 at 32,000, planned with 0.11.0's rules)
    error = ("To serve at least one request with the models's max seq len (32000), (3.91 GiB KV cache is needed, which "
             "is larger than the available KV cache memory (3.46 GiB). Based on the available memory, the estimated "
             "maximum model length is 28336. Try increasing `gpu_memory_utilization` ...")
    refused = reconcile(excerpt(24), SimpleNamespace(**{**vars(fake_plan(weights=14.99)), "fits": False, "error": error}))
    note = next(n for n in refused.notes if "refuses" in n)
    assert "fits=" not in note and "yet the log shows vLLM started" in note
    assert "(To serve at least one request with the models's max seq len (32000), (3.91 GiB KV cache is needed, which " \
           "is larger than the available KV cache memory (3.46 GiB))" in note and "estimated" not in note
    failed = reconcile(parse_lines(CASES[22]["log_lines"]), fake_plan(weights=14.99))  # the plan starts; vLLM refused
    assert any("kvplan's plan starts, yet the log shows vLLM failed: `kvplan diagnose LOG`" in n for n in failed.notes)
    assert not any("fits=" in n for n in refused.notes + failed.notes)


def test_cli_calibrate_needs_the_version_that_wrote_the_log(tmp_path):
    # a log without its version line was calibrated against the newest rules, whatever release wrote it: excerpt 24
    # (an L4's 0.11.0 start) stored CUDA graphs +0.10 GiB, where 0.11.0's rules give -0.26, for every later plan
    log = tmp_path / "x.log"
    log.write_text("\n".join(EXCERPTS[24]["lines"]))
    assert parse_lines(EXCERPTS[24]["lines"]).vllm_version is None
    args = ("reconcile", str(log), "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4", "--calibrate")
    proc = run_cli(*args, home=tmp_path)
    assert proc.returncode == 2 and "--calibrate: the log does not print its vLLM version" in proc.stderr
    assert "pass --vllm-version" in proc.stderr and not (tmp_path / "calibration.json").exists()
    proc = run_cli(*args, "--vllm-version", "0.11.0", home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    stored = json.loads((tmp_path / "calibration.json").read_text())["NVIDIA L4"]["meta-llama/Llama-3.1-8B-Instruct"]
    assert stored["terms"]["cudagraph_gib"] < 0 and stored["vllm_version"] == "0.11.0"  # was None: the log names none


def test_cli_calibrate_names_the_rules_a_version_less_log_would_be_measured_against(tmp_path):
    # the refusal said "measured against vLLM 0.33.0's rules" for a log whose format names its era (excerpt 0, V0-b:
    # planned with 0.6.4.post1), and let through a log that prints an untagged source build (0.1.dev...), which is
    # planned as one without a version
    from kvplan.versions import NEWEST_READ

    log = tmp_path / "v0b.log"
    log.write_text("\n".join(EXCERPTS[0]["lines"]))
    proc = run_cli("reconcile", str(log), "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "RTX 4090", "--calibrate",
                   home=tmp_path)
    assert proc.returncode == 2 and "vLLM 0.6.4.post1's rules" in proc.stderr, proc.stderr
    assert f"vLLM {NEWEST_READ}'s" not in proc.stderr
    untagged = tmp_path / "untagged.log"
    untagged.write_text("INFO 10-15 00:00:00 [core.py:1] Initializing a V1 LLM engine (v0.1.dev1+gd56e95223) with "
                        "config: model='meta-llama/Llama-3.1-8B-Instruct'\n" + "\n".join(EXCERPTS[24]["lines"]))
    proc = run_cli("reconcile", str(untagged), "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4", "--calibrate",
                   home=tmp_path)
    assert proc.returncode == 2 and "0.1.dev1+gd56e95223" in proc.stderr and "pass --vllm-version" in proc.stderr
    assert not (tmp_path / "calibration.json").exists()
    proc = run_cli("reconcile", str(untagged), "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4", "--calibrate",
                   "--vllm-version", "0.11.0", home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    # the release the gaps were measured against, the one given: it stored the log's 0.1.dev1+gd56e95223
    stored = json.loads((tmp_path / "calibration.json").read_text())["NVIDIA L4"]["meta-llama/Llama-3.1-8B-Instruct"]
    assert stored["vllm_version"] == "0.11.0"
