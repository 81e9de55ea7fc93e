"""ROCm's 'Model loading took' in vLLM 0.7.3-0.20.2 is total - free device memory (platforms/rocm.py
get_current_memory_usage reads torch.cuda.mem_get_info in the 0.7.3, 0.8.5 and 0.20.2 wheels; torch.cuda.max_memory_allocated
in 0.7.2 and 0.21.0): the versions row rocm_weights_log_measure, the plan's note on an AMD GPU in that era, and
reconcile's cause for a weights gap on such a log. And the versions row budget_weights_term: the KV budget of V1
0.9.1-0.26 and of V0 0.6.5-0.10 subtracts that logged figure as the weights (memory_profiling's weights_memory = the
load's DeviceMemoryProfiler.consumed_memory; v1/worker/gpu_worker.py determine_available_memory in the 0.9.1, 0.9.2,
0.10.2, 0.12.0, 0.15.0, 0.20.2, 0.21.0 and 0.26.0 wheels; worker/worker.py in 0.7.3-0.10.2), V1 0.8.0-0.9.0 torch's
allocated peak, 0.27 the free memory consumed: on ROCm in 0.9.1-0.20.2 (V1) and 0.7.3-0.10.2 (V0) the pool shrinks by
the logged figure's excess over the weights, which kvplan cannot size, so the planned pool stays the one the allocated
weights leave, and the plan and reconcile say so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kvplan.cli import FitFlags
from kvplan.logs import parse_lines
from kvplan.reconcile import LIKELY_CAUSE, ROCM_BUDGET_CAUSE, ROCM_WEIGHTS_CAUSE, plan_from_log, reconcile
from kvplan.versions import as_v0_engine, rule_span, rules_for

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


def _reconciled(tmp_path, monkeypatch, version: str, rocm: bool, gpu: str, above_gib: float = 0.0,
                pool_below_gib: float = 0.0):
    monkeypatch.setenv("KVPLAN_HOME", str(tmp_path))
    config = tmp_path / "config.json"
    config.write_text(json.dumps(LLAMA["model"]["config"]))
    flags = FitFlags(vllm_version=version, gpu=gpu)
    probe = parse_lines(_lines(version, 15.0, rocm))
    plan, _ = plan_from_log(probe, str(config), flags)
    logged = plan.weights_bytes / 2 ** 30 + above_gib
    # the pool as planned, or that many GiB below it
    log = parse_lines(_lines(version, logged, rocm, plan.kv_cache_bytes / 2 ** 30 - pool_below_gib))
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


@pytest.mark.parametrize("version, term", [("0.6.3", "init_free_delta"), ("0.6.4", "torch_peak"), ("0.6.6", "load_measure"),
                                           ("0.7.3", "load_measure"), ("0.8.5", "torch_peak"), ("0.9.0", "torch_peak"),
                                           ("0.9.1", "load_measure"), ("0.16.0", "load_measure"),
                                           ("0.20.2", "load_measure"), ("0.26.0", "load_measure"),
                                           ("0.27.0", "total_consumed"), ("0.34.0", "total_consumed")])
def test_the_budget_weights_term_by_release(version, term):
    assert rules_for(version).budget_weights_term == term


@pytest.mark.parametrize("version", ["0.8.5", "0.9.0", "0.10.2"])
def test_the_v0_engine_subtracts_the_load_figure(version):
    # V0's Worker.determine_num_available_blocks passes model_memory_usage as memory_profiling's weights_memory
    rules = as_v0_engine(rules_for(version), "a test")
    assert (rules.era, rules.budget_weights_term) == ("V0-c", "load_measure")


def _rocm_note(version: str, **flags) -> str:
    from kvplan.api import plan_from_flags_and_inverse

    p = plan_from_flags_and_inverse("meta-llama/Llama-3.1-8B-Instruct",
                                    FitFlags(gpu="MI300X", max_model_len=8192, vllm_version=version, **flags), None)[0]
    notes = [n for n in p.assumptions if "Model loading took" in n]
    assert len(notes) == 1
    return notes[0]


@pytest.mark.parametrize("version", ["0.9.2", "0.16.0", "0.20.2"])
def test_the_plan_says_the_pool_shrinks_with_the_figure_where_the_budget_subtracts_it(version):
    note = _rocm_note(version)
    assert "KV budget subtracts that logged figure" in note and "upper bound" in note
    assert "gpu_worker.py determine_available_memory" in note


def test_the_plan_says_the_pool_is_not_moved_where_the_budget_takes_the_torch_peak():
    note = _rocm_note("0.8.5")  # V1-a: torch's absolute allocated peak, after empty_cache
    assert "not moved by it" in note and "upper bound" not in note


def test_a_given_pool_is_not_moved():
    note = _rocm_note("0.16.0", kv_cache_memory_bytes=100 * 2 ** 30)
    assert "--kv-cache-memory-bytes" in note and "upper bound" not in note


def test_the_planned_pool_is_the_budget_less_the_allocated_weights():
    # the unsized excess is not subtracted: the era's ROCm pool is what the budget leaves after the allocated weights,
    # the weights planned at 0.21.0 too, where the logged figure is the allocated bytes
    a, b = _plan("0.16.0", "MI300X"), _plan("0.21.0", "MI300X")
    assert a.weights_bytes == b.weights_bytes
    for p in (a, b):
        terms = p.weights_bytes + p.activation_peak_bytes + p.non_torch_bytes + p.cudagraph_bytes
        assert p.kv_cache_bytes == pytest.approx(p.requested_bytes - terms, abs=2 ** 21)


def test_reconcile_puts_the_weights_excess_into_the_pools_gap(tmp_path, monkeypatch):
    plan, result = _reconciled(tmp_path, monkeypatch, "0.16.0", rocm=True, gpu="MI300X", above_gib=1.0,
                               pool_below_gib=1.5)
    assert result.largest_gap["term"] == "kv_cache_gib"
    cause = result.largest_gap["likely_cause"]
    assert cause.startswith("1.00 GiB of the pool's -1.50 GiB") and ROCM_BUDGET_CAUSE in cause
    note = next(n for n in result.notes if n.startswith("weights: the log reads +1.00 GiB"))
    planned = plan.kv_cache_bytes / 2 ** 30
    assert ROCM_BUDGET_CAUSE in note and f"the plan's pool less it is {planned - 1.0:.2f} GiB" in note


@pytest.mark.parametrize("version, rocm, gpu", [("0.8.5", True, "MI300X"),    # V1-a: the torch peak, not the figure
                                                ("0.21.0", True, "MI300X"),   # allocated bytes again
                                                ("0.16.0", False, "H100")])   # CUDA: allocated bytes
def test_reconcile_keeps_the_pools_cause_elsewhere(tmp_path, monkeypatch, version, rocm, gpu):
    _, result = _reconciled(tmp_path, monkeypatch, version, rocm=rocm, gpu=gpu, above_gib=1.0, pool_below_gib=1.5)
    assert result.largest_gap["term"] == "kv_cache_gib"
    assert ROCM_BUDGET_CAUSE not in result.largest_gap["likely_cause"]
    assert not any(ROCM_BUDGET_CAUSE in n for n in result.notes)
    if version == "0.8.5":
        assert any("does not subtract this figure" in n for n in result.notes)
