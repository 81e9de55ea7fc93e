"""--[no-]async-scheduling (vLLM >= 0.10.0): the engine schedules step s+1 while step s runs. Off by default up to 0.13,
on from 0.14 unless the setup keeps it off (pipeline parallelism up to 0.14, a speculative method the release does not
run with it, a pooling model from 0.20); given on with such a setup, vLLM refuses to start. From 0.26 a sliding-window
request reserves max_num_batched_tokens per step in flight (VllmConfig.max_in_flight_tokens), and the simulator lags
admission one step with it."""
from __future__ import annotations

import json

import pytest

import kvplan
from kvplan.deploy import spec_from_plan
from kvplan.errors import InputError, RefusedByVLLMError
from kvplan.logs import parse_lines
from kvplan.simulate import scheduler_rules, serving_setup
from kvplan.validate import ARG_FIELDS, ARGS_NOT_MODELLED

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
GPT_OSS = "openai/gpt-oss-20b"
KW = dict(max_model_len=8192, fixes=False)
NGRAM = json.dumps({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4})


def _fit(model=LLAMA, gpu="H100", **kw):
    return kvplan.fit(model, gpu, **{**KW, **kw})


@pytest.mark.parametrize("flag", [True, False])
def test_a_release_before_0_10_0_has_no_such_flag(flag):
    with pytest.raises(InputError) as e:
        _fit(vllm_version="0.9.2", async_scheduling=flag)
    assert e.value.field == ("--async-scheduling" if flag else "--no-async-scheduling")
    assert "first in vLLM 0.10.0" in str(e.value)
    assert _fit(vllm_version="0.10.0", async_scheduling=flag).args.async_scheduling_resolved is flag


@pytest.mark.parametrize("version, on", [("0.10.0", False), ("0.12.0", False), ("0.13.0", False), ("0.14.0", True),
                                         ("0.19.0", True), ("0.33.0", True), ("0.34.0", True)])
def test_the_default_per_release(version, on):
    # SchedulerConfig.async_scheduling: False up to 0.13.0, None (VllmConfig turns it on) from 0.14.0
    p = _fit(vllm_version=version)
    assert p.args.async_scheduling is None and p.args.async_scheduling_resolved is on
    assert scheduler_rules(version).async_scheduling is on
    assert _fit(vllm_version=version, async_scheduling=False).args.async_scheduling_resolved is False


def test_pipeline_parallelism_is_refused_up_to_0_14_and_keeps_the_default_off_at_0_14():
    with pytest.raises(RefusedByVLLMError) as e:
        _fit(gpu="2xH100", vllm_version="0.14.0", pipeline_parallel_size=2, async_scheduling=True)
    assert e.value.field == "--async-scheduling" and "pipeline parallelism" in str(e.value)
    with pytest.raises(RefusedByVLLMError):
        _fit(gpu="2xH100", vllm_version="0.12.0", pipeline_parallel_size=2, async_scheduling=True)
    off = _fit(gpu="2xH100", vllm_version="0.14.0", pipeline_parallel_size=2)
    assert off.args.async_scheduling_resolved is False
    assert any(w.startswith("async scheduling is off") and "pipeline parallelism" in w for w in off.warnings)
    on = _fit(gpu="2xH100", vllm_version="0.15.0", pipeline_parallel_size=2, async_scheduling=True)
    assert on.fits and on.args.async_scheduling_resolved is True
    assert _fit(gpu="2xH100", vllm_version="0.15.0", pipeline_parallel_size=2).args.async_scheduling_resolved is True


def test_a_speculative_method_it_does_not_run_with():
    # the CPU n-gram drafter: not in EagleModelTypes / NgramGPUTypes (config/vllm.py 0.14.0-0.32.0); 0.34.0 checks none
    with pytest.raises(RefusedByVLLMError) as e:
        _fit(vllm_version="0.20.0", speculative_config=NGRAM, async_scheduling=True)
    assert "ngram-based speculative decoding" in str(e.value)
    with pytest.raises(RefusedByVLLMError):  # 0.10.0-0.11.0: no speculative decoding at all
        _fit(vllm_version="0.11.0", speculative_config=NGRAM, async_scheduling=True)
    off = _fit(vllm_version="0.20.0", speculative_config=NGRAM)
    assert off.args.async_scheduling_resolved is False and any("ngram-based" in w for w in off.warnings)
    assert _fit(vllm_version="0.34.0", speculative_config=NGRAM, async_scheduling=True).args.async_scheduling_resolved


def test_a_pooling_model_keeps_it_off_by_default_from_0_20():
    kw = dict(runner="pooling")
    assert _fit("Qwen/Qwen3-8B", vllm_version="0.19.0", **kw).args.async_scheduling_resolved is True
    assert _fit("Qwen/Qwen3-8B", vllm_version="0.20.0", **kw).args.async_scheduling_resolved is False
    assert _fit("Qwen/Qwen3-8B", vllm_version="0.20.0", async_scheduling=True,
                **kw).args.async_scheduling_resolved is True


def test_sliding_window_reserve_follows_the_flag_from_0_26():
    # gpt-oss-20b (window 128) on an H100 at 0.33.0 (model runner v2, PP 1): max_in_flight_tokens is 2 x 8,192 with
    # async scheduling, 1 x 8,192 without: the window groups' pages per request shrink, the tokens grow
    kw = dict(max_model_len=131072)
    on = _fit(GPT_OSS, vllm_version="0.33.0", async_scheduling=True, **kw)
    default = _fit(GPT_OSS, vllm_version="0.33.0", **kw)
    off = _fit(GPT_OSS, vllm_version="0.33.0", async_scheduling=False, **kw)
    assert on.kv_cache_bytes == off.kv_cache_bytes == default.kv_cache_bytes
    assert on.kv_cache_tokens == default.kv_cache_tokens == 2_158_958
    assert off.kv_cache_tokens == 2_285_824 and off.max_concurrency > on.max_concurrency
    # 0.25.0 reserves max_num_batched_tokens whatever the flag (no max_in_flight_tokens before 0.26.0)
    a = _fit(GPT_OSS, vllm_version="0.25.0", async_scheduling=True, **kw)
    b = _fit(GPT_OSS, vllm_version="0.25.0", async_scheduling=False, **kw)
    assert a.kv_cache_tokens == b.kv_cache_tokens


def test_simulate_takes_the_resolved_flag():
    for version, flag, on in [("0.33.0", None, True), ("0.33.0", False, False), ("0.13.0", None, False),
                              ("0.13.0", True, True), ("0.15.0", None, True)]:
        p = _fit(vllm_version=version, async_scheduling=flag)
        _, _, rules = serving_setup(p)
        assert rules.async_scheduling is on, (version, flag)
        assert rules.source.endswith(f"; async scheduling {'on' if on else 'off'})"), rules.source


def test_scaffold_writes_it_as_given():
    def argv(p):
        return [f.name for f in spec_from_plan(p).flags]
    assert "--no-async-scheduling" in argv(_fit(vllm_version="0.33.0", async_scheduling=False))
    assert "--async-scheduling" in argv(_fit(vllm_version="0.13.0", async_scheduling=True))
    assert not any("async-scheduling" in f for f in argv(_fit(vllm_version="0.33.0")))


LOG = """\
INFO 10-02 10:00:01 [api_server.py:1896] vLLM API server version 0.33.0
INFO 10-02 10:00:01 [utils.py:233] non-default args: {'model_tag': 'openai/gpt-oss-20b', 'model': 'openai/gpt-oss-20b', 'max_model_len': 131072, 'async_scheduling': False}
"""


def test_a_log_with_the_flag_is_planned_with_it():
    from kvplan.cli import FitFlags
    from kvplan.reconcile import plan_from_log

    log = parse_lines(LOG.splitlines())
    assert log.to_record()["args"]["async_scheduling"] is False
    p, _notes = plan_from_log(log, GPT_OSS, FitFlags(gpu="H100"), site_calibration=False)
    assert p.args.async_scheduling is False and p.args.async_scheduling_resolved is False
    on = parse_lines(LOG.replace("'async_scheduling': False", "'async_scheduling': True").splitlines())
    assert on.to_record()["args"]["async_scheduling"] is True
    assert "async_scheduling" not in parse_lines(LOG.replace(", 'async_scheduling': False", "").splitlines()
                                                 ).to_record()["args"]


def test_a_record_with_the_flag_is_no_longer_skipped():
    from pathlib import Path

    from kvplan.validate import predict_record

    assert "async_scheduling" in ARG_FIELDS and "async_scheduling" not in ARGS_NOT_MODELLED
    # blind record gpt-oss-120b on an H100 at 0.27.1, whose deployment gave --async-scheduling (vLLM's default there)
    path = Path(__file__).parent / "data" / "blind_records.jsonl"
    rec = next(json.loads(line) for line in path.read_text().splitlines() if line.strip()
               and json.loads(line)["id"] == "gpt-oss-120b-h100-u095-tp1-l128k-seqs8-cg16-cpuoffload-v0271")
    base, _ = predict_record(rec)
    on, _ = predict_record(dict(rec, args=dict(rec["args"], async_scheduling=True)))
    off, _ = predict_record(dict(rec, args=dict(rec["args"], async_scheduling="false")))
    assert on.kv_cache_tokens == base.kv_cache_tokens and base.args.async_scheduling_resolved
    assert off.args.async_scheduling_resolved is False and off.kv_cache_tokens > on.kv_cache_tokens
    assert off.kv_cache_bytes == on.kv_cache_bytes


def test_the_command_line_takes_it():
    from typer.testing import CliRunner

    from kvplan.cli import app
    res = CliRunner().invoke(app, ["fit", GPT_OSS, "--gpu", "H100", "--no-async-scheduling", "--vllm-version", "0.33.0",
                                   "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["args"]["async_scheduling"] is False and out["kv_cache_tokens"] == 2_285_824
    old = CliRunner().invoke(app, ["fit", GPT_OSS, "--gpu", "H100", "--async-scheduling", "--vllm-version", "0.9.2"])
    assert old.exit_code != 0 and "first in vLLM 0.10.0" in f"{old.output} {old.exception}"


def test_gemma_3_27b_at_full_length_starts_only_without_it_and_the_fix_says_so():
    # google/gemma-3-27b-it on one H100 at 0.33.0, max_model_len 131,072: with async scheduling (the default) each
    # request's window groups reserve 2 x 8,192 tokens in flight and one full-length request no longer fits the pool
    p = kvplan.fit("google/gemma-3-27b-it", "H100", vllm_version="0.33.0")
    assert not p.fits and p.failure == "memory" and p.kv_cache_tokens == 111_312
    fix = next(f for f in p.fixes if f.flags == {"async_scheduling": False})
    assert fix.fits and "140,654 tokens" in fix.effect
    off = kvplan.fit("google/gemma-3-27b-it", "H100", vllm_version="0.33.0", async_scheduling=False, fixes=False)
    assert off.fits and off.kv_cache_tokens == 140_654 and off.kv_cache_bytes == p.kv_cache_bytes
    # a full-attention model has no window to reserve for: no such fix
    dense = kvplan.fit(LLAMA, "L4", vllm_version="0.33.0", max_model_len=131072)
    assert not dense.fits and not any("async_scheduling" in f.flags for f in dense.fixes)


@pytest.mark.parametrize("line", [
    "ValueError: Async scheduling is not supported with pipeline-parallel-size > 1.",  # 0.10.0-0.11.0 arg_utils.py
    "ValueError: Async scheduling is not yet compatible with pipeline_parallel_size > 1.",  # 0.11.1-0.14.0
    "ValueError: Currently, async scheduling is only supported with EAGLE/MTP kind of speculative decoding.",
    "ValueError: Async scheduling is not compatible with disable_padded_drafter_batch=True.",
    "ValueError: Currently, async scheduling is not compatible with prefix caching for Mamba models.",  # 0.16.0
])
def test_diagnose_reads_vllm_s_refusals_of_the_flag(line):
    from kvplan.diagnose import diagnose

    top = diagnose([f"(EngineCore_DP0 pid=1) ERROR 12-02 01:00:00 [core.py:866] {line}"]).top
    assert top is not None and top.symptom == "invalid_engine_flags" and top.fatal
    assert "--no-async-scheduling" in top.fix and "?" not in top.cause


def test_diagnose_leaves_the_warning_that_keeps_it_off_alone():
    from kvplan.diagnose import diagnose

    warn = ("WARNING 12-02 01:00:00 [vllm.py:600] Async scheduling is not yet supported with pipeline_parallel_size > 1 "
            "and will be disabled.")
    top = diagnose([warn]).top
    assert top is None or not top.fatal


def test_mamba_prefix_caching_keeps_it_off_in_0_16_only():
    # config/vllm.py 0.16.0: "Currently, async scheduling is not compatible with prefix caching for Mamba models."
    model, kw = "ibm-granite/granite-4.0-h-tiny", dict(enable_prefix_caching=True)
    with pytest.raises(RefusedByVLLMError) as e:
        _fit(model, vllm_version="0.16.0", async_scheduling=True, **kw)
    assert "prefix caching for Mamba models" in str(e.value) and "--no-enable-prefix-caching" in e.value.fix
    assert _fit(model, vllm_version="0.16.0", **kw).args.async_scheduling_resolved is False
    assert _fit(model, vllm_version="0.16.0", enable_prefix_caching=False).args.async_scheduling_resolved is True
    for version in ("0.15.0", "0.17.0"):
        assert _fit(model, vllm_version=version, async_scheduling=True, **kw).args.async_scheduling_resolved is True


def _simulate_json(version: str, *flags: str) -> dict:
    from typer.testing import CliRunner

    from kvplan.cli import app
    res = CliRunner().invoke(app, ["simulate", LLAMA, "--gpu", "H100", "--max-model-len", "8192", "--vllm-version",
                                   version, "--prompt-len", "constant:256", "--completion-len", "constant:512",
                                   "--rate", "20", "--max-requests", "300", "--json", *flags])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_simulate_says_the_host_time_async_scheduling_overlaps_is_not_modelled():
    # 0.15.1 turns async scheduling on: its admission lag is simulated, the host time it hides is not (the step model
    # has no host term apart: ASYNC_OVERLAP_CHECK), so the latencies are an upper bound from that side
    on = _simulate_json("0.15.1")
    assert on["scheduler_rules"]["async_scheduling"] is True
    assert on["async_scheduling"] == {"on": True, "admission_lag_modelled": True, "host_overlap_modelled": False,
                                      "latencies_from_host_side": "upper bound"}
    note = next(n for n in on["notes"] if n.startswith("async scheduling on"))
    assert "upper bound" in note and "±2.2 %" in note and "3 of them 7-10 % short" in note
    # turned off where the release turns it on: the same step times, so the comparison shows only the lag
    off = _simulate_json("0.15.1", "--no-async-scheduling")
    assert off["async_scheduling"]["on"] is False and off["async_scheduling"]["latencies_from_host_side"] is None
    assert any(n.startswith("async scheduling off (vLLM 0.15.1 turns it on by default)") for n in off["notes"])
    assert not any("upper bound" in n for n in off["notes"])
    # a decode-heavy workload: the same step-time model either way (no saving charged), so TPOT moves by the lag's
    # batch reshuffles only, well under the 5-10 % vLLM's PR #23569 expected of overlapping the host work
    assert on["step_model"]["coefficients"] == off["step_model"]["coefficients"]
    assert abs(on["tpot_ms"]["mean"] / off["tpot_ms"]["mean"] - 1) < 0.02
    # off by default (0.13.0): nothing to say
    old = _simulate_json("0.13.0")
    assert old["async_scheduling"]["on"] is False and not any("async scheduling" in n for n in old["notes"])


def test_the_async_note_follows_the_rules_table_and_the_measured_check():
    from dataclasses import replace

    from kvplan.simulate import ASYNC_OVERLAP_CHECK, async_scheduling_note

    assert async_scheduling_note(scheduler_rules("0.13.0")) is None
    assert async_scheduling_note(scheduler_rules("0.14.0")).startswith("async scheduling on")
    assert async_scheduling_note(scheduler_rules("0.9.2", engine="v0")) is None
    assert async_scheduling_note(replace(scheduler_rules("0.19.0"), async_scheduling=False)).startswith(
        "async scheduling off (vLLM 0.19.0")
    # the replays, async scheduling on, fit as charged and miss with the per-request term hidden
    assert all(abs(charged) < 2.5 for _, charged, _ in ASYNC_OVERLAP_CHECK)
    assert sum(hidden < -5 for _, _, hidden in ASYNC_OVERLAP_CHECK) == 3


def test_capacity_carries_the_same_caveat():
    from typer.testing import CliRunner

    from kvplan.cli import app
    args = ["capacity", LLAMA, "--gpu", "H100", "--max-model-len", "8192", "--prompt-len", "constant:256",
            "--completion-len", "constant:256", "--slo", "tpot=50ms", "--max-requests", "100", "--json", "--vllm-version"]
    on = CliRunner().invoke(app, [*args, "0.15.1"])
    assert on.exit_code == 0, on.output
    assert any(n.startswith("async scheduling on") and "upper bound" in n for n in json.loads(on.stdout)["notes"])
    old = CliRunner().invoke(app, [*args, "0.13.0"])
    assert old.exit_code == 0, old.output
    assert not any("async scheduling" in n for n in json.loads(old.stdout)["notes"])
