"""--skip-mm-profiling (vLLM >= 0.10.1, PR #22950): the V1 profile run leaves the multimodal encoder pass out, so the
profiled peak drops by that pass and the KV pool grows by it; V0 and text models are unchanged."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import kvplan
from kvplan.cli import FitFlags
from kvplan.deploy import render_files, spec_from_plan
from kvplan.errors import InputError
from kvplan.logs import parse_lines
from kvplan.reconcile import plan_from_log
from kvplan.validate import ARGS_NOT_MODELLED, predict_record

GIB = 1024 ** 3
VL = "Qwen/Qwen3-VL-30B-A3B-Instruct"
KW = dict(max_model_len=32768, fixes=False)


@pytest.mark.parametrize("version", ["0.10.1", "0.19.0", "0.27.1"])
def test_the_flag_takes_the_encoder_pass_off_a_multimodal_peak_into_the_pool(version):
    base = kvplan.fit(VL, "H100", vllm_version=version, **KW)
    skip = kvplan.fit(VL, "H100", vllm_version=version, skip_mm_profiling=True, **KW)
    term = base.activation_peak_bytes - skip.activation_peak_bytes
    assert term > 0.3 * GIB  # a 16,384-token image: encoder peak above the text peak plus its cached outputs
    assert base.weights_bytes == skip.weights_bytes  # the vision tower is still loaded
    # the pool takes exactly what the peak gave up (to a block)
    assert abs((skip.kv_cache_bytes - base.kv_cache_bytes) - term) <= skip.bytes_per_block
    assert skip.num_gpu_blocks > base.num_gpu_blocks
    warning = next(w for w in skip.warnings if w.startswith("--skip-mm-profiling"))
    assert "out of memory" in warning and f"{term / GIB:.2f} GiB" in warning
    assert any("PR #22950" in a for a in skip.assumptions)
    assert not any("skip-mm-profiling" in w for w in base.warnings)


def test_a_text_model_is_unchanged():
    base = kvplan.fit("Qwen/Qwen2.5-1.5B-Instruct", "H100", vllm_version="0.19.0", **KW)
    skip = kvplan.fit("Qwen/Qwen2.5-1.5B-Instruct", "H100", vllm_version="0.19.0", skip_mm_profiling=True, **KW)
    assert skip.kv_cache_bytes == base.kv_cache_bytes and skip.activation_peak_bytes == base.activation_peak_bytes
    assert not any("skip-mm-profiling" in w for w in skip.warnings)
    assert any("text model" in a and "changes nothing" in a for a in skip.assumptions)


def test_with_no_modality_allowed_there_is_nothing_to_skip():
    off = dict(limit_mm_per_prompt='{"image": 0, "video": 0}', vllm_version="0.19.0", **KW)
    base = kvplan.fit(VL, "H100", **off)
    skip = kvplan.fit(VL, "H100", skip_mm_profiling=True, **off)
    assert skip.kv_cache_bytes == base.kv_cache_bytes
    assert not any("skip-mm-profiling" in w for w in skip.warnings)


def test_the_v0_engine_does_not_read_the_flag():
    # 0.10.1 on a Turing T4 falls back to V0, whose worker/model_runner.py has no skip_mm_profiling
    kw = dict(vllm_version="0.10.1", max_model_len=4096, fixes=False)
    base = kvplan.fit("Qwen/Qwen3-VL-2B-Instruct", "T4", **kw)
    skip = kvplan.fit("Qwen/Qwen3-VL-2B-Instruct", "T4", skip_mm_profiling=True, **kw)
    assert not base.rules.is_v1
    assert skip.kv_cache_bytes == base.kv_cache_bytes
    assert any("V0" in w and "--skip-mm-profiling" in w for w in skip.warnings)


@pytest.mark.parametrize("version", ["0.10.0", "0.9.2"])
def test_a_release_before_0_10_1_refuses_it_naming_the_fix(version):
    with pytest.raises(InputError) as e:
        kvplan.fit(VL, "H100", vllm_version=version, skip_mm_profiling=True, **KW)
    assert e.value.field == "--skip-mm-profiling" and "0.10.1" in str(e.value)
    kvplan.fit(VL, "H100", vllm_version="0.10.1", skip_mm_profiling=True, **KW)


def test_serve_sh_carries_the_flag():
    p = kvplan.fit(VL, "H100", vllm_version="0.19.0", skip_mm_profiling=True, **KW)
    serve = render_files(spec_from_plan(p))["serve.sh"]
    assert "--skip-mm-profiling" in serve
    plain = kvplan.fit(VL, "H100", vllm_version="0.19.0", **KW)
    assert "--skip-mm-profiling" not in render_files(spec_from_plan(plain))["serve.sh"]


LOG = """\
INFO 10-02 10:00:01 [api_server.py:1896] vLLM API server version 0.19.0
INFO 10-02 10:00:01 [utils.py:233] non-default args: {'model_tag': 'Qwen/Qwen3-VL-30B-A3B-Instruct', 'model': 'Qwen/Qwen3-VL-30B-A3B-Instruct', 'max_model_len': 32768, 'skip_mm_profiling': True}
"""
RUNNER_LINE = ("INFO 10-02 10:00:25 [gpu_model_runner.py:5726] Skipping memory profiling for multimodal encoder and "
               "encoder cache.")


@pytest.mark.parametrize("lines", [LOG.splitlines(), [LOG.splitlines()[0], RUNNER_LINE]],
                         ids=["non-default args", "the runner's line"])
def test_a_log_with_the_flag_is_planned_with_it(lines):
    log = parse_lines(lines + ["INFO 10-02 10:00:30 [kv_cache_utils.py:1091] Maximum concurrency for 32,768 tokens "
                               "per request: 10.00x"])
    assert log.skip_mm_profiling
    p, _notes = plan_from_log(log, VL, FitFlags(gpu="H100"), site_calibration=False)
    assert p.args.skip_mm_profiling
    assert p.kv_cache_bytes > kvplan.fit(VL, "H100", vllm_version="0.19.0", **KW).kv_cache_bytes
    assert log.to_record()["args"]["skip_mm_profiling"] is True
    without = parse_lines(LOG.replace(", 'skip_mm_profiling': True", "").splitlines())
    assert not without.skip_mm_profiling and "skip_mm_profiling" not in without.to_record()["args"]


def test_a_record_with_the_flag_is_planned_with_it():
    assert "skip_mm_profiling" not in ARGS_NOT_MODELLED
    path = Path(__file__).parent / "data" / "calibration.jsonl"
    rec = next(json.loads(line) for line in path.read_text().splitlines()
               if line.strip() and json.loads(line)["id"] == "qwen3-vl-30b-a3b-instruct-h100-udef-tp2")
    rec = dict(rec, vllm_version="0.19.0")
    base, _ = predict_record(rec)
    skip, _ = predict_record(dict(rec, args=dict(rec["args"], skip_mm_profiling=True)))
    assert skip.args.skip_mm_profiling and skip.kv_cache_bytes - base.kv_cache_bytes > 0.3 * GIB
    with pytest.raises(InputError) as e:
        predict_record(dict(rec, args=dict(rec["args"], skip_mm_profiling="perhaps")))
    assert "skip_mm_profiling" in e.value.field
