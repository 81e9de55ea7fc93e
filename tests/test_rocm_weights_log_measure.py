"""ROCm's 'Model loading took' in vLLM 0.7.3-0.20.2 is total - free device memory (platforms/rocm.py
get_current_memory_usage reads torch.cuda.mem_get_info in the 0.7.3, 0.8.5 and 0.20.2 wheels; torch.cuda.max_memory_allocated
in 0.7.2 and 0.21.0): the versions row rocm_weights_log_measure, the plan's note on an AMD GPU in that era, and
reconcile's cause for a weights gap on such a log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kvplan.cli import FitFlags
from kvplan.logs import parse_lines
from kvplan.reconcile import LIKELY_CAUSE, ROCM_WEIGHTS_CAUSE, plan_from_log, reconcile
from kvplan.versions import rule_span, rules_for

DATA = Path(__file__).parent / "data"
EXTRA = [json.loads(line) for line in (DATA / "extra_records.jsonl").read_text().splitlines() if line.strip()]
# an MI300X start of Llama-3.1-8B (cmontemuino/amd-mi300x-ml-benchmarks, a 0.9.2 development build): its config, and its
# logged weights, 15.3047 GiB
LLAMA = next(r for r in EXTRA if r["id"] == "llama-3.1-8b-instruct-mi300x-u090-l131k-fp16-v0")


@pytest.mark.parametrize("version, measure", [("0.6.6", "allocated"), ("0.7.2", "allocated"), ("0.7.3", "device_used"),
                                              ("0.8.5", "device_used"), ("0.9.2.dev364+gb432b7a28", "device_used"),
                                              ("0.20.2", "device_used"), ("0.21.0", "allocated"), ("0.34.0", "allocated")])
def test_the_measure_by_release(version, measure):
    assert rules_for(version).rocm_weights_log_measure == measure


def test_rule_span_names_the_era():
    assert rule_span("rocm_weights_log_measure", rules_for("0.16.0").release) == ("0.7.3", "0.21.0")
    assert rule_span("rocm_weights_log_measure", rules_for("0.30.0").release) == ("0.21.0", None)


def _lines(version: str, weights_gib: float, rocm: bool, kv_gib: float = 140.0) -> list[str]:
    return ([f"INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version {version}"]
            + (["INFO 01-01 00:00:00 [__init__.py:1] Automatically detected platform rocm."] if rocm else [])
            + ["INFO 01-01 00:00:00 [utils.py:1] non-default args: {'max_model_len': 8192}",
               f"INFO 01-01 00:00:01 [gpu_model_runner.py:1] Model loading took {weights_gib:.4f} GiB and 3.1 seconds",
               f"INFO 01-01 00:00:02 [gpu_worker.py:1] Available KV cache memory: {kv_gib:.2f} GiB"])


def _reconciled(tmp_path, monkeypatch, version: str, rocm: bool, gpu: str, above_gib: float = 0.0):
    monkeypatch.setenv("KVPLAN_HOME", str(tmp_path))
    config = tmp_path / "config.json"
    config.write_text(json.dumps(LLAMA["model"]["config"]))
    flags = FitFlags(vllm_version=version, gpu=gpu)
    probe = parse_lines(_lines(version, 15.0, rocm))
    plan, _ = plan_from_log(probe, str(config), flags)
    logged = plan.weights_bytes / 2 ** 30 + above_gib
    log = parse_lines(_lines(version, logged, rocm, plan.kv_cache_bytes / 2 ** 30))  # the pool as planned
    assert (log.rocm_line is not None) == rocm and log.weights_gib == pytest.approx(logged, abs=1e-4)
    plan, _ = plan_from_log(log, str(config), flags)
    return plan, reconcile(log, plan)


def _plan(version: str, gpu: str):
    from kvplan.api import plan_from_flags_and_inverse

    return plan_from_flags_and_inverse("meta-llama/Llama-3.1-8B-Instruct",
                                       FitFlags(gpu=gpu, max_model_len=8192, vllm_version=version), None)[0]


def test_the_plan_says_the_logged_figure_reads_higher_on_rocm_in_the_era():
    def notes(version, gpu):
        return [n for n in _plan(version, gpu).assumptions if "Model loading took" in n]
    era = notes("0.16.0", "MI300X")
    assert len(era) == 1 and "read higher than the weights" in era[0] and "0.7.3" in era[0] and "0.21.0" in era[0]
    assert notes("0.21.0", "MI300X") == [] and notes("0.7.2", "MI300X") == [] and notes("0.16.0", "H100") == []
    # the predicted figure is the allocated bytes in the era as outside it: the note changes no number
    assert _plan("0.16.0", "MI300X").weights_bytes == _plan("0.21.0", "MI300X").weights_bytes


def test_reconcile_names_the_rocm_measure_for_a_weights_gap_in_the_era(tmp_path, monkeypatch):
    plan, result = _reconciled(tmp_path, monkeypatch, "0.16.0", rocm=True, gpu="MI300X", above_gib=0.3)
    weights = next(r for r in result.rows if r.term == "weights_gib")
    assert weights.gap == pytest.approx(0.3, abs=1e-3)
    assert result.largest_gap["term"] == "weights_gib"
    assert ROCM_WEIGHTS_CAUSE in result.largest_gap["likely_cause"]
    assert LIKELY_CAUSE["weights_gib"] not in result.largest_gap["likely_cause"]
    assert any(n.startswith("weights: the log reads +0.30 GiB") and "mem_get_info" in n for n in result.notes)


@pytest.mark.parametrize("version, rocm, gpu, above", [("0.21.0", True, "MI300X", 0.3),   # allocated bytes again
                                                       ("0.16.0", False, "H100", 0.3),    # CUDA: allocated bytes
                                                       ("0.16.0", True, "MI300X", -0.3)])  # below the plan: not this
def test_reconcile_keeps_the_generic_cause_elsewhere(tmp_path, monkeypatch, version, rocm, gpu, above):
    _, result = _reconciled(tmp_path, monkeypatch, version, rocm=rocm, gpu=gpu, above_gib=above)
    assert result.largest_gap["term"] == "weights_gib"
    assert result.largest_gap["likely_cause"] == LIKELY_CAUSE["weights_gib"]
    assert not any("mem_get_info" in n for n in result.notes)
