"""--disable-custom-all-reduce (every release): tensor-parallel all-reduces through NCCL instead of vLLM's custom
kernel. The budget is the same with and without it (the kernel's 24-32 MiB of buffers per rank are charged up to 0.10,
allocated before the budget's snapshot from 0.11; kvplan's fitted non-torch terms do not separate them); the note
says per release whether vLLM would have built the kernel at all and what its buffers were."""
from __future__ import annotations

import json

import pytest

import kvplan
from named_records import planned_with, record
from kvplan.cli import FitFlags
from kvplan.deploy import render_files, spec_from_plan
from kvplan.logs import parse_lines
from kvplan.reconcile import plan_from_log
from kvplan.validate import ARG_FIELDS, ARGS_NOT_MODELLED
from kvplan.versions import SERVE_FLAG_SINCE, rules_for

QWEN32 = "Qwen/Qwen3-32B"
KW = dict(max_model_len=16384, fixes=False)
FIGURES = ("weights_bytes", "activation_peak_bytes", "non_torch_bytes", "cudagraph_bytes", "kv_cache_bytes",
           "num_gpu_blocks", "kv_cache_tokens", "max_concurrency", "fits")


def _note(p):
    return next(a for a in p.assumptions if a.startswith("--disable-custom-all-reduce:"))


@pytest.mark.parametrize("version", ["0.6.4", "0.9.2", "0.10.2", "0.11.0", "0.33.0", "0.34.0"])
@pytest.mark.parametrize("gpu,tp", [("RTX 4090", 2), ("RTX 4090", 4), ("H100", 2), ("H100", 8)])
def test_every_figure_is_the_one_without_it(version, gpu, tp):
    base = kvplan.fit(QWEN32, gpu, tensor_parallel_size=tp, vllm_version=version, **KW)
    car = kvplan.fit(QWEN32, gpu, tensor_parallel_size=tp, vllm_version=version, disable_custom_all_reduce=True, **KW)
    assert car.args.disable_custom_all_reduce and not base.args.disable_custom_all_reduce
    for figure in FIGURES:
        assert getattr(car, figure) == getattr(base, figure), figure
    assert not any(a.startswith("--disable-custom-all-reduce:") for a in base.assumptions)
    note = _note(car)
    if gpu == "RTX 4090" and tp == 4:  # PCIe beyond two GPUs: vLLM turns the kernel off itself
        assert "more than two PCIe-only GPUs" in note and "only silences that warning" in note
    elif gpu == "RTX 4090":  # two GeForce cards: only with P2P
        assert "_can_p2p" in note and "lacks GPU P2P capability" in note
    else:  # NVLink: vLLM builds it; its buffers charged up to 0.10 (rules nccl_charged)
        assert "P2P" not in note and "NCCL (pynccl)" in note
        charged = rules_for(version).nccl_charged
        assert ("after the budget's baseline snapshot" in note) == charged
        assert ("before the budget's baseline snapshot" in note) == (not charged)


def test_tp_1_has_no_custom_all_reduce():
    base = kvplan.fit("Qwen/Qwen3-8B", "RTX 4090", vllm_version="0.33.0", **KW)
    car = kvplan.fit("Qwen/Qwen3-8B", "RTX 4090", vllm_version="0.33.0", disable_custom_all_reduce=True, **KW)
    assert car.kv_cache_bytes == base.kv_cache_bytes and car.kv_cache_tokens == base.kv_cache_tokens
    assert "no custom all-reduce at TP 1" in _note(car)


@pytest.mark.parametrize("version,mib", [("0.6.4", 24), ("0.10.2", 24), ("0.26.0", 24), ("0.27.0", 32), ("0.34.0", 32)])
def test_the_buffers_of_each_release(version, mib):
    # meta_size() + max_size, the IPC input buffer (max_size; 16 MiB legacy_buffer_size from 0.27.0), 8 MiB rank_data
    p = kvplan.fit(QWEN32, "H100", tensor_parallel_size=2, vllm_version=version, disable_custom_all_reduce=True, **KW)
    assert f"its buffers are {mib} MiB per rank" in _note(p)
    assert sum(rules_for(version).custom_allreduce_buffer_mib) == mib


def test_nccl_in_the_graphs_is_named_where_graphs_are_captured():
    kw = dict(tensor_parallel_size=2, vllm_version="0.33.0", disable_custom_all_reduce=True, **KW)
    assert "NCCL issue #1234" in _note(kvplan.fit(QWEN32, "H100", **kw))
    eager = kvplan.fit(QWEN32, "H100", enforce_eager=True, **kw)
    assert "NCCL issue #1234" not in _note(eager) and "its buffers are 32 MiB" in _note(eager)


def test_tp_16_is_a_supported_size_from_0_27():
    assert 16 not in rules_for("0.26.0").custom_allreduce_world_sizes
    assert 16 in rules_for("0.27.0").custom_allreduce_world_sizes
    old = kvplan.fit(QWEN32, "H100", tensor_parallel_size=16, vllm_version="0.26.0", disable_custom_all_reduce=True, **KW)
    assert "at TP 16 it is off anyway" in _note(old)
    new = kvplan.fit(QWEN32, "H100", tensor_parallel_size=16, vllm_version="0.27.0", disable_custom_all_reduce=True, **KW)
    assert "its buffers are 32 MiB per rank" in _note(new)


@pytest.mark.parametrize("version,gpu,says", [
    ("0.8.2", "MI300X", "off on every ROCm GPU itself"),
    ("0.9.2", "MI300X", "RCCL (pynccl)"),
    ("0.30.0", "RX 7900 XTX", "only on MI300-class GPUs"),
])
def test_rocm(version, gpu, says):
    base = kvplan.fit(QWEN32, gpu, tensor_parallel_size=2, vllm_version=version, **KW)
    car = kvplan.fit(QWEN32, gpu, tensor_parallel_size=2, vllm_version=version, disable_custom_all_reduce=True, **KW)
    assert car.kv_cache_bytes == base.kv_cache_bytes
    assert says in _note(car)


def test_serve_sh_carries_the_flag():
    p = kvplan.fit(QWEN32, "RTX 4090", tensor_parallel_size=4, vllm_version="0.33.0", disable_custom_all_reduce=True,
                   **KW)
    assert "\n  --disable-custom-all-reduce\n" in render_files(spec_from_plan(p))["serve.sh"]
    plain = kvplan.fit(QWEN32, "RTX 4090", tensor_parallel_size=4, vllm_version="0.33.0", **KW)
    assert "--disable-custom-all-reduce" not in render_files(spec_from_plan(plain))["serve.sh"]
    assert SERVE_FLAG_SINCE["--disable-custom-all-reduce"] == (0, 4, 2)


def test_the_command_line_takes_it():
    from typer.testing import CliRunner

    from kvplan.cli import app
    res = CliRunner().invoke(app, ["fit", QWEN32, "--gpu", "RTX 4090", "--tensor-parallel-size", "4",
                                   "--max-model-len", "16384", "--disable-custom-all-reduce", "--vllm-version", "0.33.0",
                                   "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["args"]["disable_custom_all_reduce"] is True
    assert any(a.startswith("--disable-custom-all-reduce:") for a in out["assumptions"])


LOG = """\
INFO 10-02 10:00:01 [api_server.py:1896] vLLM API server version 0.19.0
INFO 10-02 10:00:01 [utils.py:233] non-default args: {'model_tag': 'Qwen/Qwen3-32B', 'model': 'Qwen/Qwen3-32B', 'max_model_len': 16384, 'tensor_parallel_size': 4, 'disable_custom_all_reduce': True}
INFO 10-02 10:00:30 [kv_cache_utils.py:1091] Maximum concurrency for 16,384 tokens per request: 4.50x
"""
ENGINE_LINE = ("INFO 10-02 10:00:05 [core.py:77] Initializing a V1 LLM engine (v0.19.0) with config: "
               "model='Qwen/Qwen3-32B', tensor_parallel_size=4, pipeline_parallel_size=1, "
               "disable_custom_all_reduce=True, quantization=None, enforce_eager=False")


def test_a_log_with_the_flag_is_planned_with_it():
    log = parse_lines(LOG.splitlines())
    assert log.to_record()["args"]["disable_custom_all_reduce"] is True
    p, _notes = plan_from_log(log, QWEN32, FitFlags(gpu="RTX 4090"), site_calibration=False)
    assert p.args.disable_custom_all_reduce
    assert "more than two PCIe-only GPUs" in _note(p)


def test_the_engine_lines_resolved_value_is_not_the_flag():
    # vLLM sets it itself (ROCm up to 0.8.2, multi-node, VLLM_BATCH_INVARIANT): only the arguments as given count
    lines = LOG.replace(", 'disable_custom_all_reduce': True", "").splitlines()
    log = parse_lines(lines[:2] + [ENGINE_LINE] + lines[2:])
    assert "disable_custom_all_reduce" not in log.to_record()["args"]


def test_a_record_with_the_flag_is_no_longer_skipped():
    assert "disable_custom_all_reduce" not in ARGS_NOT_MODELLED and "disable_custom_all_reduce" in ARG_FIELDS
    rec = record("calibration.jsonl", "qwen2-7b-instruct-a100-40-u050-tp2")
    base, car = planned_with(rec, disable_custom_all_reduce=True)
    assert car.args.disable_custom_all_reduce and car.kv_cache_bytes == base.kv_cache_bytes
    assert "after the budget's baseline snapshot in vLLM 0.10.1.1" in _note(car)  # A100 SXM4 (NVSwitch), TP 2
    _, as_text = planned_with(rec, disable_custom_all_reduce="true")
    assert as_text.args.disable_custom_all_reduce
