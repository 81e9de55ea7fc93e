"""--enable-sleep-mode (vLLM >= 0.7.0, PR #11743): weights and KV cache in the CuMem allocator's pools. The budget is
unchanged; vLLM refuses it on a platform without the allocator (CUDA only to 0.11.0, ROCm from 0.11.1) and, in
0.8.0-0.20.0, with expandable_segments:True; from 0.20.1 the pool turns expandable segments off around the weights."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import kvplan
from named_records import first_record, planned_with, startup_log
from kvplan.cli import FitFlags
from kvplan.deploy import render_files, spec_from_plan
from kvplan.errors import InputError, RefusedByVLLMError
from kvplan.reconcile import plan_from_log
from kvplan.validate import ARG_FIELDS, ARGS_NOT_MODELLED, predict_record

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
KW = dict(max_model_len=8192, fixes=False)
EXPANDABLE = ["PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"]


@pytest.mark.parametrize("version", ["0.7.0", "0.11.0", "0.19.0", "0.33.0", "0.34.0"])
def test_the_budget_and_every_figure_are_those_without_it(version):
    base = kvplan.fit(LLAMA, "H100", vllm_version=version, **KW)
    sleep = kvplan.fit(LLAMA, "H100", vllm_version=version, enable_sleep_mode=True, **KW)
    assert sleep.args.enable_sleep_mode and not base.args.enable_sleep_mode
    for figure in ("weights_bytes", "activation_peak_bytes", "non_torch_bytes", "cudagraph_bytes", "kv_cache_bytes",
                   "num_gpu_blocks", "kv_cache_tokens", "max_concurrency"):
        assert getattr(sleep, figure) == getattr(base, figure), figure
    note = next(a for a in sleep.assumptions if a.startswith("sleep mode:"))
    assert f"no change to the budget in vLLM {version}" in note and "CuMem" in note
    assert not any(a.startswith("sleep mode:") for a in base.assumptions)
    assert not any("sleep" in w for w in sleep.warnings)  # an unquantized checkpoint, weights in the pool


def test_0_34_keeps_its_extensible_kv_cache_outside_the_pools():
    # sleep mode leaves the extensible KV cache on (config/vllm.py _resolve_extensible_kv_cache, 0.34.0)
    p = kvplan.fit(LLAMA, "H100", vllm_version="0.34.0", enable_sleep_mode=True, **KW)
    note = next(a for a in p.assumptions if a.startswith("sleep mode:"))
    assert note.startswith("sleep mode: weights in vLLM's CuMem pools") and "extensible KV cache stays outside" in note
    off = kvplan.fit(LLAMA, "H100", vllm_version="0.34.0", enable_sleep_mode=True, enable_extensible_kv_cache=False, **KW)
    assert next(a for a in off.assumptions if a.startswith("sleep mode:")).startswith(
        "sleep mode: weights and KV cache in")


@pytest.mark.parametrize("version", ["0.6.6.post1", "0.6.4"])
def test_a_release_before_0_7_0_has_no_such_flag(version):
    with pytest.raises(InputError) as e:
        kvplan.fit(LLAMA, "H100", vllm_version=version, enable_sleep_mode=True, **KW)
    assert e.value.field == "--enable-sleep-mode" and "first in vLLM 0.7.0" in str(e.value)


@pytest.mark.parametrize("version, text", [("0.7.3", "Sleep mode is only supported on CUDA devices."),
                                           ("0.8.5", "Sleep mode is not supported on current platform."),
                                           ("0.11.0", "Sleep mode is not supported on current platform.")])
def test_rocm_is_refused_with_vllms_text_until_0_11_1(version, text):
    with pytest.raises(RefusedByVLLMError) as e:
        kvplan.fit(LLAMA, "MI300X", vllm_version=version, enable_sleep_mode=True, **KW)
    assert e.value.field == "--enable-sleep-mode" and e.value.rule == "sleep mode platform"
    assert e.value.message.startswith(text) and "0.11.1" in e.value.fix
    kvplan.fit(LLAMA, "MI300X", vllm_version=version, **KW)  # without the flag it starts


def test_a_release_standing_for_an_era_does_not_refuse_what_a_log_ran():
    # validate plans a record without a version on its era's release (check_architecture False): not held to it
    args = kvplan.EngineArgs(enable_sleep_mode=True, vllm_version="0.11.0", max_model_len=8192)
    model, gpu = kvplan.resolve_model(LLAMA), kvplan.resolve_gpu("MI300X")[0]
    with pytest.raises(RefusedByVLLMError):
        kvplan.plan(model, gpu, args)
    assert kvplan.plan(model, gpu, args, check_architecture=False).args.enable_sleep_mode


def test_rocm_takes_it_from_0_11_1():
    base = kvplan.fit(LLAMA, "MI300X", vllm_version="0.11.1", **KW)
    sleep = kvplan.fit(LLAMA, "MI300X", vllm_version="0.11.1", enable_sleep_mode=True, **KW)
    assert sleep.kv_cache_bytes == base.kv_cache_bytes


@pytest.mark.parametrize("version", ["0.8.0", "0.19.0", "0.20.0"])
def test_expandable_segments_are_refused_where_cumem_asserts(version):
    with pytest.raises(RefusedByVLLMError) as e:
        kvplan.fit(LLAMA, "H100", vllm_version=version, enable_sleep_mode=True, env=EXPANDABLE, **KW)
    assert e.value.field == "--env" and e.value.rule == "sleep mode with expandable segments"
    assert e.value.message.startswith("Expandable segments are not compatible with memory pool.")
    assert "0.20.1" in e.value.fix
    kvplan.fit(LLAMA, "H100", vllm_version=version, env=EXPANDABLE, **KW)  # without sleep mode it starts


@pytest.mark.parametrize("version", ["0.7.3", "0.20.1", "0.33.0"])
def test_expandable_segments_start_outside_that_window(version):
    p = kvplan.fit(LLAMA, "H100", vllm_version=version, enable_sleep_mode=True, env=EXPANDABLE, **KW)
    # 0.7.x does not check; PyTorch's MemPool is said to refuse it (a warning, not vLLM's refusal)
    assert any("pytorch/pytorch#147851" in w for w in p.warnings) == (version == "0.7.3")


NEW_VARIABLE = ["PYTORCH_ALLOC_CONF=expandable_segments:True"]


@pytest.mark.parametrize("version", ["0.11.1", "0.19.0", "0.20.1", "0.30.0"])
def test_pytorch_alloc_conf_passes_vllms_check_and_meets_pytorchs(version):
    # vLLM looks in PYTORCH_CUDA_ALLOC_CONF alone up to 0.30; the torch it pins from 0.11.1 (2.9) reads
    # PYTORCH_ALLOC_CONF first, so the option reaches the pool and PyTorch's MemPool check refuses the first weight
    with pytest.raises(RefusedByVLLMError) as e:
        kvplan.fit(LLAMA, "H100", vllm_version=version, enable_sleep_mode=True, env=NEW_VARIABLE, **KW)
    assert e.value.field == "--env" and e.value.rule == "sleep mode with expandable segments"
    assert e.value.message.startswith("torch.cuda.MemPool doesn't currently support expandable_segments.")
    assert "PYTORCH_ALLOC_CONF" in e.value.fix and "0.31.0" in e.value.fix
    kvplan.fit(LLAMA, "H100", vllm_version=version, env=NEW_VARIABLE, **KW)  # without sleep mode it starts


def test_pytorch_alloc_conf_is_switched_off_in_the_pool_from_0_31():
    model = "Qwen/Qwen2.5-1.5B-Instruct"
    plain = kvplan.fit(model, "H100", vllm_version="0.31.0", **KW)
    expandable = kvplan.fit(model, "H100", vllm_version="0.31.0", env=NEW_VARIABLE, **KW)
    both = kvplan.fit(model, "H100", vllm_version="0.31.0", env=NEW_VARIABLE, enable_sleep_mode=True, **KW)
    assert expandable.weights_bytes < plain.weights_bytes == both.weights_bytes


def test_before_torch_2_9_pytorch_alloc_conf_is_not_read():
    # vLLM 0.11.0 pins torch 2.8.0, which reads PYTORCH_CUDA_ALLOC_CONF only: the weights keep the 2 MiB rounding and
    # sleep mode starts (0.11.1 pins torch 2.9.0)
    model = "Qwen/Qwen2.5-1.5B-Instruct"
    plain = kvplan.fit(model, "H100", vllm_version="0.11.0", **KW)
    given = kvplan.fit(model, "H100", vllm_version="0.11.0", env=NEW_VARIABLE, **KW)
    assert given.weights_bytes == plain.weights_bytes
    assert any("PYTORCH_ALLOC_CONF=expandable_segments:True: not read by the PyTorch vLLM 0.11.0 pins" in a
               for a in given.assumptions)
    kvplan.fit(model, "H100", vllm_version="0.11.0", env=NEW_VARIABLE, enable_sleep_mode=True, **KW)
    assert kvplan.fit(model, "H100", vllm_version="0.11.1", env=NEW_VARIABLE, **KW).weights_bytes < plain.weights_bytes
    cuda = kvplan.fit(model, "H100", vllm_version="0.11.0", env=EXPANDABLE, **KW)
    assert cuda.weights_bytes < plain.weights_bytes


@pytest.mark.parametrize("version", ["0.20.1", "0.30.0"])
def test_the_pool_keeps_the_2_mib_rounding_of_the_weights_under_expandable_segments(version):
    # Qwen2.5-1.5B's weight tensors are not multiples of 2 MiB: expandable segments round them to 512 B only
    model = "Qwen/Qwen2.5-1.5B-Instruct"
    plain = kvplan.fit(model, "H100", vllm_version=version, **KW)
    expandable = kvplan.fit(model, "H100", vllm_version=version, env=EXPANDABLE, **KW)
    both = kvplan.fit(model, "H100", vllm_version=version, env=EXPANDABLE, enable_sleep_mode=True, **KW)
    assert expandable.weights_bytes < plain.weights_bytes
    assert both.weights_bytes == plain.weights_bytes and both.kv_cache_bytes == plain.kv_cache_bytes
    assert any("CuMem pool, which turns expandable segments off" in a for a in both.assumptions)


def test_0_14_to_0_16_load_the_weights_outside_the_pool():
    for version in ("0.14.0", "0.16.0"):
        p = kvplan.fit(LLAMA, "H100", vllm_version=version, enable_sleep_mode=True, **KW)
        assert any("outside the CuMem pool" in w and "PR #32947" in w for w in p.warnings), version
        assert any(a.startswith("sleep mode: KV cache in") for a in p.assumptions)
    p = kvplan.fit(LLAMA, "H100", vllm_version="0.17.0", enable_sleep_mode=True, **KW)
    assert not any("outside the CuMem pool" in w for w in p.warnings)


@pytest.mark.parametrize("version, issue", [("0.19.0", "#40256"), ("0.33.0", "#48680")])
def test_a_quantized_checkpoint_warns_of_what_the_pool_does_to_the_accounting(version, issue):
    model = "Qwen/Qwen2.5-72B-Instruct-AWQ"
    base = kvplan.fit(model, "H200", vllm_version=version, **KW)
    sleep = kvplan.fit(model, "H200", vllm_version=version, enable_sleep_mode=True, **KW)
    assert sleep.kv_cache_bytes == base.kv_cache_bytes
    assert any(w.startswith("--enable-sleep-mode with a quantized checkpoint") and issue in w for w in sleep.warnings)
    assert not any("sleep" in w for w in base.warnings)


def test_serve_sh_carries_the_flag():
    p = kvplan.fit(LLAMA, "H100", vllm_version="0.33.0", enable_sleep_mode=True, **KW)
    assert "--enable-sleep-mode" in render_files(spec_from_plan(p))["serve.sh"]
    plain = kvplan.fit(LLAMA, "H100", vllm_version="0.33.0", **KW)
    assert "--enable-sleep-mode" not in render_files(spec_from_plan(plain))["serve.sh"]


def test_the_command_line_takes_it():
    from typer.testing import CliRunner

    from kvplan.cli import app
    res = CliRunner().invoke(app, ["fit", LLAMA, "--gpu", "H100", "--max-model-len", "8192", "--enable-sleep-mode",
                                   "--vllm-version", "0.33.0", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["args"]["enable_sleep_mode"] is True
    old = CliRunner().invoke(app, ["fit", LLAMA, "--gpu", "H100", "--max-model-len", "8192", "--enable-sleep-mode",
                                   "--vllm-version", "0.6.6.post1"])
    # (kvplan's entry point maps the InputError to exit code 2; typer's runner hands it back as the exception)
    assert old.exit_code != 0 and "first in vLLM 0.7.0" in f"{old.output} {old.exception}"


def test_a_log_with_the_flag_is_planned_with_it():
    log = startup_log(LLAMA, 8192, enable_sleep_mode=True)
    assert log.to_record()["args"]["enable_sleep_mode"] is True
    p, _notes = plan_from_log(log, LLAMA, FitFlags(gpu="H100"), site_calibration=False)
    assert p.args.enable_sleep_mode
    without = startup_log(LLAMA, 8192)
    assert "enable_sleep_mode" not in without.to_record()["args"]


def test_a_record_with_the_flag_is_no_longer_skipped():
    assert "enable_sleep_mode" not in ARGS_NOT_MODELLED and "enable_sleep_mode" in ARG_FIELDS
    rec = first_record("calibration.jsonl", LLAMA)
    base, sleep = planned_with(rec, enable_sleep_mode=True)
    assert sleep.args.enable_sleep_mode and sleep.kv_cache_bytes == base.kv_cache_bytes
    _, sleep_str = planned_with(rec, enable_sleep_mode="true")
    assert sleep_str.args.enable_sleep_mode
    with pytest.raises(InputError) as e:
        predict_record(dict(rec, args=dict(rec["args"], enable_sleep_mode="perhaps")))
    assert "enable_sleep_mode" in e.value.field


def test_the_issue_40256_startup_is_planned_as_without_and_warned_of():
    # vLLM issue #40256 (an April-2026 main build): 3.17 GiB of KV cache per rank without sleep mode (the record),
    # 5.16 GiB with it, then out of memory: kvplan plans the budget vLLM should have found, and says why it may not
    path = Path(__file__).parent / "data" / "extra_records.jsonl"
    rec = next(json.loads(line) for line in path.read_text().splitlines() if line.strip()
               and json.loads(line)["id"] == "llama-3.1-70b-instruct-awq-int4-rtx4090-u097-tp2-l36k-fp8kv")
    rec = dict(rec, vllm_version="0.19.0")
    base, _ = predict_record(rec)
    sleep, _ = predict_record(dict(rec, args=dict(rec["args"], enable_sleep_mode=True)))
    assert sleep.kv_cache_bytes == base.kv_cache_bytes
    assert abs(sleep.kv_cache_bytes / 2 ** 30 - rec["observed"]["kv_cache_gib"]) < 0.1
    assert any("#40256" in w and "5.16 GiB" in w for w in sleep.warnings)
