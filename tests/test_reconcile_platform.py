"""kvplan reconcile plans the platform the log shows: vLLM's ROCm build (an AMD card and ROCm's rules) and WSL2 (the
card's total under WSL2, gpu.wsl2 in the record written). Every line here is a real log's, quoted with its source."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kvplan.cli import FitFlags
from kvplan.errors import InputError
from kvplan.logs import parse_lines, read_log
from kvplan.reconcile import gpu_named_by_log, plan_from_log, plan_kwargs_from_log, platform_read, reconcile

DATA = Path(__file__).parent / "data"
EXTRA = [json.loads(line) for line in (DATA / "extra_records.jsonl").read_text().splitlines() if line.strip()]
FAILURES = {c["id"]: c for c in map(json.loads, (DATA / "blind_failure_cases.jsonl").read_text().splitlines())}
EXCERPTS = [json.loads(line) for line in (DATA / "vllm_log_excerpts.jsonl").read_text().splitlines() if line.strip()]

# An MI300X start, vLLM 0.30.0 (BigBirdReturns/cantos hot-aisle/campaign/results/run2-explore-hotaisle-mi300x/serve.log,
# the lines as tests/data/extra_records.jsonl's llama-3.3-70b-instruct-fp8-dynamic-mi300x-u090-tp1-l16k-seqs256-aiterfa-v030
# quotes them; the non-default args cut to the ones that size the plan). It prints a total and names no GPU.
MI300X_RECORD = next(r for r in EXTRA if r["id"] == "llama-3.3-70b-instruct-fp8-dynamic-mi300x-u090-tp1-l16k-seqs256-aiterfa-v030")
MI300X_LINES = [
    "(APIServer pid=1) INFO 01-01 00:00:00 [utils.py:1] non-default args: {'max_model_len': 16384, 'attention_backend': "
    "'ROCM_AITER_FA', 'gpu_memory_utilization': 0.9, 'enable_prefix_caching': False, 'max_num_seqs': 256}",
    "[rocm.py:628] Using ROCM_AITER_FA backend (selected via --attention-backend)",
    "[model_runner.py:428] Model loading took 67.72 GiB memory and 39.151905 seconds",
    "[gpu_worker.py:640] Available KV cache memory: 91.39 GiB",
    "[kv_cache_utils.py:2395] GPU KV cache size: 299,440 tokens, Maximum concurrency for 16,384 tokens per request: 18.28x",
    "[gpu_worker.py:825] CUDA graph pool memory: 8.65 GiB (actual), 9.14 GiB (estimated), difference: 0.49 GiB (5.7%).",
    "[gpu_worker.py:888] Free memory on device (191.36/191.69 GiB) on startup. Desired GPU memory utilization is (0.9, "
    "172.52 GiB). Actual usage is 68.62 GiB for consumed memory (weights + non-torch), 12.52 GiB for peak activation, and "
    "8.65 GiB for CUDAGraph memory",
]
WSL_LOG = DATA / "wlog_qwen2_5_7b_fp16_6gib_wsl_v0160_failed.log"  # whole, byte for byte (SOURCES-logs.md)


def _config(tmp_path, record) -> str:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(record["model"]["config"]))
    return str(path)


def test_a_rocm_log_with_a_total_is_planned_as_an_amd_card(tmp_path, monkeypatch):
    # reconcile passed only gpu_gib, so the MI300X was planned as an NVIDIA card: no ROCm per-hipGraph term (0.28 GiB of
    # CUDA graphs planned against the 8.65 logged) and a pool 9.7 GiB above the log's
    monkeypatch.setenv("KVPLAN_HOME", str(tmp_path))
    log = parse_lines(MI300X_LINES)
    assert log.total_gib == 191.69 and log.rocm_line == (2, MI300X_LINES[1])
    plan, notes = plan_from_log(log, _config(tmp_path, MI300X_RECORD),
                                FitFlags(vllm_version="0.30.0", quantization="fp8"))  # the checkpoint's FP8, online
    assert plan.gpu.vendor == "AMD" and "AMD" in plan.gpu.name and plan.gpu.total_gib == pytest.approx(191.69, abs=0.01)
    assert any("ROCm build (line 2)" in n for n in notes), notes
    result = reconcile(log, plan)
    rows = {r.term: r for r in result.rows}
    assert rows["cudagraph_gib"].predicted == pytest.approx(8.65, rel=0.1)  # was 0.28
    assert abs(rows["kv_cache_gib"].gap) < 2.0  # was -9.70
    # the record names an AMD card, so `kvplan validate` plans it on ROCm too (validate.py: 'AMD' in a catalog-less name)
    assert "AMD" in result.record["gpu"]["name"] and result.record["gpu"]["total_gib"] == 191.69
    assert platform_read(log)["rocm"] == {"line": 2, "text": MI300X_LINES[1]}
    assert any("platform: ROCm" in n and "line 2" in n for n in result.notes)
    # a size given for it stays an AMD card's
    kwargs = plan_kwargs_from_log(log, FitFlags(gpu_gib=190.0))
    assert kwargs["gpu"].vendor == "AMD" and kwargs["gpu"].total_gib == pytest.approx(190.0) and "gpu_gib" not in kwargs
    assert plan_kwargs_from_log(log, FitFlags(gpu="H100"))["gpu"] == "H100"  # a card given wins


def test_an_amd_card_a_line_names_is_the_logs_card():
    # torch's device properties on an MI250X (the quote gpus.json's MI250X entry carries)
    log = parse_lines(["_CudaDeviceProperties(name='AMD Instinct MI250X', major=9, minor=0, gcnArchName="
                       "'gfx90a:sramecc+:xnack-', total_memory=65520MB, multi_processor_count=110)"])
    assert log.rocm_line is not None and log.amd_device_name == "AMD Instinct MI250X"
    assert gpu_named_by_log(log) == "AMD Instinct MI250X" and plan_kwargs_from_log(log)["gpu"] == "AMD Instinct MI250X"


def test_the_gpu_a_log_is_planned_on_is_decided_once_from_its_evidence_and_the_flags():
    # the decisions of plan_kwargs_from_log's one GPU step (reconcile._gpu_kwargs), each kept where it was read
    mi250x = ("_CudaDeviceProperties(name='AMD Instinct MI250X', major=9, minor=0, gcnArchName='gfx90a:sramecc+:xnack-', "
              "total_memory=65520MB, multi_processor_count=110)")
    named_amd = parse_lines([mi250x, MI300X_LINES[-1]])  # a card a line names, and a printed total
    kwargs = plan_kwargs_from_log(named_amd)
    assert kwargs["gpu"] == "AMD Instinct MI250X" and kwargs["gpu_gib"] == 191.69
    by_gb = plan_kwargs_from_log(parse_lines(MI300X_LINES), FitFlags(gpu_gb=80.0))  # a decimal size: still an AMD card
    assert by_gb["gpu"].vendor == "AMD" and by_gb["gpu"].total_gib == pytest.approx(80e9 / 2**30)
    assert not {"gpu_gib", "gpu_gb"} & set(by_gb)
    both = plan_kwargs_from_log(parse_lines(MI300X_LINES), FitFlags(gpu="H100", gpu_gib=80.0))  # given whole
    assert (both["gpu"], both["gpu_gib"]) == ("H100", 80.0)
    cuda = parse_lines([MI300X_LINES[-1]])  # a total and no ROCm line: the size given replaces it
    assert plan_kwargs_from_log(cuda)["gpu_gib"] == 191.69 and "gpu" not in plan_kwargs_from_log(cuda)
    sized = plan_kwargs_from_log(cuda, FitFlags(gpu_gb=80.0))
    assert sized["gpu_gb"] == 80.0 and not {"gpu", "gpu_gib"} & set(sized)


@pytest.mark.parametrize("lines", [
    [EXCERPTS[i]["lines"][1] for i, e in enumerate(EXCERPTS) if e["source_url"].endswith("/issues/12773")],  # MI300A, V0
    [line for line in FAILURES["wlog3-apollo-deepseek-r1-14b-fp8-rx9070xt-weights-over-budget-hip-oom"]["log_lines"]
     if "rocm.py" in line],  # RX 9070 XT, 0.14
    ["INFO 02-17 13:41:21 __init__.py:179] Automatically detected platform rocm."],  # ROCm/legacy-rocm-build#4386
    [line for line in FAILURES["fail8-rocm-hipblaslt-open-files-tp8"]["log_lines"] if "gfx942" in line][:1],  # '_gfx942.dat'
])
def test_rocm_lines_vllm_prints(lines):
    assert lines and parse_lines(lines).rocm_line is not None


def test_a_cuda_log_that_names_rocm_is_not_rocm():
    # an H100 log whose DEBUG lines say 'ROCm platform is not available' and list VLLM_ROCM_* variables (every platform's
    # environment dump does), and an error listing the ROCm backends among the valid options (vLLM issue, Ascend)
    assert read_log(str(DATA / "plfail_gpt_oss_20b_tp1_h100_v0190_failed.log")).rocm_line is None
    listing = [line for line in FAILURES["fail3-heldout-unknown-attention-backend-ascend"]["log_lines"] if "ROCM_ATTN" in line]
    assert listing and parse_lines(listing).rocm_line is None


def test_a_rocm_log_naming_no_card_or_total_is_not_planned_on_the_nvidia_card_here(monkeypatch):
    import kvplan.resolve

    lines = [line for line in FAILURES["wlog3-apollo-deepseek-r1-14b-fp8-rx9070xt-weights-over-budget-hip-oom"]["log_lines"]
             if "rocm.py" in line or "non-default args" in line]
    log = parse_lines(lines)
    assert log.total_gib is None and log.rocm_line is not None
    monkeypatch.setattr(kvplan.resolve, "detect_gpu", lambda: kvplan.resolve.find_gpu("L4"))
    with pytest.raises(InputError) as e:
        plan_from_log(log, "m", fit=lambda *a, **k: None)
    assert e.value.field == "--gpu" and "ROCm" in str(e.value) and "NVIDIA L4" in str(e.value)


def test_a_rocm_log_naming_no_card_or_total_read_without_a_gpu_asks_for_an_amd_card(monkeypatch):
    """Read on a machine without a GPU, a ROCm log's --gpu error said 'e.g. --gpu H100': an NVIDIA card."""
    import kvplan.resolve

    lines = [line for line in FAILURES["wlog3-apollo-deepseek-r1-14b-fp8-rx9070xt-weights-over-budget-hip-oom"]["log_lines"]
             if "rocm.py" in line or "non-default args" in line]
    monkeypatch.setattr(kvplan.resolve, "detect_gpu", lambda: None)
    with pytest.raises(InputError) as e:
        plan_from_log(parse_lines(lines), "m", fit=lambda *a, **k: None)
    assert e.value.field == "--gpu" and "ROCm build" in str(e.value) and "--gpu MI300X" in str(e.value)
    assert "H100" not in str(e.value)


def test_a_size_given_for_a_rocm_log_is_not_said_to_be_the_logs():
    """--gpu-gib 128 for a ROCm log naming no card: the notes said "the log names its GPU as None: planned for
    GPUSpec(id='custom', ...)" and "an AMD GPU of the log's total"."""
    lines = [line for line in FAILURES["wlog3-apollo-deepseek-r1-14b-fp8-rx9070xt-weights-over-budget-hip-oom"]["log_lines"]
             if "rocm.py" in line or "non-default args" in line]
    log = parse_lines(lines)
    assert log.total_gib is None and log.rocm_line is not None
    seen = {}
    _, notes = plan_from_log(log, "m", FitFlags(gpu_gib=128.0), fit=lambda *a, **k: seen.update(k))
    assert seen["gpu"].vendor == "AMD" and seen["gpu"].total_bytes == 128 * 2**30
    text = " ".join(notes)
    assert "GPUSpec" not in text and "as None" not in text and "log's total" not in text
    assert "an AMD GPU of the total given" in text


def test_a_wsl2_log_without_a_total_is_planned_with_the_cards_wsl2_total(tmp_path, monkeypatch):
    # before: planned with the native total (RTX 4080 15.67 GiB), and the record written had no gpu.wsl2
    monkeypatch.setenv("KVPLAN_HOME", str(tmp_path))
    # the log's torch out-of-memory message states its 6 GiB card's total (test_logs.py): left out here, the log
    # prints none
    log = parse_lines([line for line in WSL_LOG.read_text().splitlines() if "total capacity" not in line])
    assert read_log(str(WSL_LOG)).total_gib == 6.0
    assert log.total_gib is None and log.wsl2_line[0] == 15 and "as WSL is detected" in log.wsl2_line[1]
    assert log.to_record()["gpu"]["wsl2"] is True
    assert plan_kwargs_from_log(log)["wsl2"] is True
    plan, notes = plan_from_log(log, "Qwen/Qwen2.5-7B-Instruct", FitFlags(gpu="RTX 4080"))
    assert plan.gpu.total_bytes == 16376 * 2**20  # nvidia-smi's memory.total, CUDA's total under WSL2
    assert any("WSL2 (line 15)" in n and "16376" not in n and "15.99 GiB" in n for n in notes), notes
    result = reconcile(log, plan, FitFlags(gpu="RTX 4080"))
    # the record of a --gpu given kept no gpu.wsl2, so validate planned the card's native 15.67 GiB
    assert result.record["gpu"]["wsl2"] is True and any("platform: WSL2, read from line 15" in n for n in result.notes)
    # validate plans that record as reconcile did
    from kvplan.validate import predict_record, validate_records

    (scored,) = validate_records([dict(result.record, id="wsl")])
    assert scored.skipped is None
    assert predict_record(dict(result.record, id="wsl"))[0].gpu.total_bytes == plan.gpu.total_bytes
    # a log that prints its total is planned with it (no WSL2 total): a --gpu given is the native card's
    printed = read_log(str(WSL_LOG))
    plan, _ = plan_from_log(printed, "Qwen/Qwen2.5-7B-Instruct", FitFlags(gpu="RTX 4080"))
    record = reconcile(printed, plan, FitFlags(gpu="RTX 4080")).record
    assert "wsl2" not in record["gpu"] and predict_record(dict(record, id="wsl"))[0].gpu.total_bytes == plan.gpu.total_bytes


def test_a_log_that_prints_only_its_total_says_what_the_plan_assumes_without_a_card(tmp_path, monkeypatch):
    """A CUDA log with a total and no card name was planned on a bare size, silently without a compute capability
    (no capability check; MLA, FP8, Marlin and MoE kernel choices at kvplan's defaults): reconcile now says so and
    how to name the card, and the plan's assumptions carry resolve.CUSTOM_GPU_NO_CC (as fit --gpu-gib alone does)."""
    monkeypatch.setenv("KVPLAN_HOME", str(tmp_path))
    lines = [MI300X_LINES[0], *MI300X_LINES[2:]]  # the MI300X lines without the ROCm one: a total, no card, no platform
    log = parse_lines(lines)
    assert log.total_gib == 191.69 and not log.rocm_line
    flags = FitFlags(vllm_version="0.30.0", quantization="fp8")
    plan, notes = plan_from_log(log, _config(tmp_path, MI300X_RECORD), flags)
    assert plan.gpu.compute_capability is None and plan.gpu.total_gib == pytest.approx(191.69, abs=0.01)
    said = [n for n in notes if "not which card" in n]
    assert len(said) == 1 and "--gpu NAME --gpu-gib 191.69" in said[0]
    (assumed,) = [a for a in plan.assumptions if a.startswith("a 191.69 GiB GPU with no card named: its compute "
                                                                "capability is unknown")]
    assert said[0].endswith(assumed)  # the note says it as the plan's assumptions do (it had a wording of its own)
    named, notes = plan_from_log(log, _config(tmp_path, MI300X_RECORD),
                                 FitFlags(vllm_version="0.30.0", quantization="fp8", gpu="B200", gpu_gib=191.69))
    assert named.gpu.compute_capability == "10.0" and not any("not which card" in n for n in notes)
    assert not any("compute capability is unknown" in a for a in named.assumptions)


def test_a_wsl2_log_that_prints_its_total_keeps_it():
    # vLLM 0.10.2 under WSL2 (mrpid12org/imageworks nohup.out): 'Free memory on device (13.58/15.99 GiB)'
    log = parse_lines(FAILURES["wlog2-mrpid12org-llava-awq-wsl-free-memory-0.01-gib-short"]["log_lines"])
    assert log.wsl2_line is not None and log.total_gib == 15.99
    kwargs = plan_kwargs_from_log(log)
    assert kwargs["gpu_gib"] == 15.99 and "wsl2" not in kwargs and log.to_record()["gpu"]["wsl2"] is True


def test_cli_says_the_platform_and_the_line(tmp_path):
    env = {"KVPLAN_HOME": str(tmp_path)}
    import os

    def cli(*args, stdin=None):
        return subprocess.run([sys.executable, "-c", "from kvplan.cli import main; main()", *args], input=stdin,
                              capture_output=True, text=True, timeout=120, env=dict(os.environ, **env))

    proc = cli("reconcile", str(WSL_LOG), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["platform"]["wsl2"]["line"] == 15 and out["platform"]["rocm"] is None and out["record"]["gpu"]["wsl2"] is True
    proc = cli("reconcile", "-", stdin="\n".join(MI300X_LINES))
    assert proc.returncode == 0, proc.stderr
    assert "platform: ROCm" in proc.stdout and "line 2" in proc.stdout
    proc = cli("reconcile", str(WSL_LOG), "--record", "-")
    assert json.loads(proc.stdout)["gpu"]["wsl2"] is True
