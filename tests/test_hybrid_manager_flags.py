"""--disable-hybrid-kv-cache-manager (vLLM >= 0.9.1) and --disable-sliding-window (vLLM >= 0.4.3), as each release
does them (vllm/v1/core/kv_cache_utils.py / kv_cache_planning.py unify_hybrid_kv_cache_specs; config model.py
_get_and_verify_max_len): window layers held as full attention in one group, Mamba hybrids refused with vLLM's text;
the derived max length capped at the window, rope-scaled models refused up to 0.11.x."""
from __future__ import annotations

import json

import pytest

import kvplan
from kvplan.cli import FitFlags
from kvplan.deploy import render_files, spec_from_plan
from kvplan.errors import InputError
from kvplan.reconcile import plan_from_log
from kvplan.validate import ARG_FIELDS, ARGS_NOT_MODELLED, predict_record, validate_records
from kvplan.versions import SERVE_FLAG_SINCE, rules_for
from named_records import record, startup_log

GPT_OSS, GEMMA3, SCOUT, NEXT = ("openai/gpt-oss-20b", "google/gemma-3-27b-it", "meta-llama/Llama-4-Scout-17B-16E-Instruct",
                                "Qwen/Qwen3-Next-80B-A3B-Instruct")
HMA = "--disable-hybrid-kv-cache-manager:"
DSW = "--disable-sliding-window:"


def _note(p, head):
    return next(a for a in p.assumptions if a.startswith(head))


# ---- --disable-hybrid-kv-cache-manager


def test_gpt_oss_window_layers_become_full_attention_in_one_group():
    base = kvplan.fit(GPT_OSS, "H100", vllm_version="0.33.0", fixes=False)
    off = kvplan.fit(GPT_OSS, "H100", vllm_version="0.33.0", fixes=False, disable_hybrid_kv_cache_manager=True)
    assert len(base.groups) == 2 and len(off.groups) == 1 and off.groups[0].kind == "full"
    assert off.kv_cache_bytes == base.kv_cache_bytes  # the pool is the same; its pages hold every token now
    assert off.bytes_per_block == 2 * base.bytes_per_block == 786_432
    assert (off.num_gpu_blocks, off.kv_cache_tokens) == (75_975, 1_215_600)  # hybrid: 151,950 blocks, 2,158,958 tokens
    assert off.max_concurrency == pytest.approx(9.27, abs=0.01) and base.max_concurrency == pytest.approx(16.47, abs=0.01)
    assert "unify_hybrid_kv_cache_specs" in _note(off, HMA) and "sliding layers" in _note(off, HMA)
    assert any(w.startswith("Hybrid KV cache manager is disabled for this hybrid model") for w in off.warnings)
    assert not any(a.startswith(HMA) for a in base.assumptions)


def test_gemma3_at_32k_no_longer_starts_without_the_manager():
    base = kvplan.fit(GEMMA3, "H100", vllm_version="0.33.0", max_model_len=32768, fixes=False)
    off = kvplan.fit(GEMMA3, "H100", vllm_version="0.33.0", max_model_len=32768, fixes=False,
                     disable_hybrid_kv_cache_manager=True)
    assert base.fits and len(base.groups) == 7 and base.kv_cache_tokens == 47_750
    assert not off.fits and len(off.groups) == 1 and off.kv_cache_tokens == 32_272
    assert "To serve at least one request with the model's max seq len (32768)" in off.error


def test_fit_check_before_unification_up_to_0_13():
    # 0.9.1-0.13 check the pool on the window specs, then unify (rules row fit_check_sees_windows): it passes
    off = kvplan.fit(GEMMA3, "H100", vllm_version="0.11.0", max_model_len=32768, fixes=False,
                     disable_hybrid_kv_cache_manager=True)
    assert off.fits and off.max_concurrency < 1 and len(off.groups) == 1
    assert any("runs the fit check before it holds the window layers as full attention" in a for a in off.assumptions)


def test_llama4_chunked_local_layers_too_and_already_off_in_0_11():
    kw = dict(tensor_parallel_size=4, max_model_len=65536, fixes=False)
    base = kvplan.fit(SCOUT, "H100", vllm_version="0.33.0", **kw)
    off = kvplan.fit(SCOUT, "H100", vllm_version="0.33.0", disable_hybrid_kv_cache_manager=True, **kw)
    assert len(base.groups) == 4 and len(off.groups) == 1
    assert (off.num_gpu_blocks, off.kv_cache_tokens) == (17_884, 286_144)
    assert "chunked layers" in _note(off, HMA)
    # 0.10.1-0.13 turn the manager off for chunked local attention themselves: the flag changes nothing
    old = kvplan.fit(SCOUT, "H100", vllm_version="0.11.0", **kw)
    old_off = kvplan.fit(SCOUT, "H100", vllm_version="0.11.0", disable_hybrid_kv_cache_manager=True, **kw)
    assert (old_off.num_gpu_blocks, old_off.kv_cache_tokens) == (old.num_gpu_blocks, old.kv_cache_tokens)
    assert "full attention already" in _note(old_off, HMA)


@pytest.mark.parametrize("version,text", [
    ("0.11.0", "Hybrid KV cache manager is disabled but failed to convert the KV cache specs to one unified type."),
    ("0.26.0", "Hybrid KV cache manager is disabled but failed to convert the KV cache specs to one unified type."),
    ("0.27.0", "Failed to promote local KV cache specs to one unified type."),
    ("0.33.0", "Failed to promote local KV cache specs to one unified type."),
])
def test_a_mamba_hybrid_is_refused_with_the_releases_text(version, text):
    with pytest.raises(InputError) as e:
        kvplan.fit(NEXT, "H100", tensor_parallel_size=4, max_model_len=65536, vllm_version=version, fixes=False,
                   disable_hybrid_kv_cache_manager=True)
    assert e.value.field == "--disable-hybrid-kv-cache-manager" and text in str(e.value)
    assert rules_for(version).hybrid_manager_off_refusal == text


def test_a_model_without_windows_plans_the_same():
    base = kvplan.fit("Qwen/Qwen3-8B", "L4", vllm_version="0.33.0", max_model_len=16384, fixes=False)
    off = kvplan.fit("Qwen/Qwen3-8B", "L4", vllm_version="0.33.0", max_model_len=16384, fixes=False,
                     disable_hybrid_kv_cache_manager=True)
    assert (off.num_gpu_blocks, off.kv_cache_tokens) == (base.num_gpu_blocks, base.kv_cache_tokens)
    assert "nothing to unify" in _note(off, HMA)


def test_the_flag_starts_at_0_9_1():
    assert SERVE_FLAG_SINCE["--disable-hybrid-kv-cache-manager"] == (0, 9, 1)
    with pytest.raises(InputError) as e:
        kvplan.fit(GPT_OSS, "H100", vllm_version="0.9.0", fixes=False, disable_hybrid_kv_cache_manager=True)
    assert "first in vLLM 0.9.1" in str(e.value)


# ---- --disable-sliding-window


def test_gemma3_becomes_full_attention_capped_at_its_window():
    p = kvplan.fit(GEMMA3, "H100", vllm_version="0.33.0", fixes=False, disable_sliding_window=True)
    assert p.args.max_model_len == 1024 and len(p.groups) == 1 and p.groups[0].kind == "full"
    assert all(l.kind != "sliding" for l in p.model.layers)
    note = _note(p, DSW)
    assert "52 sliding-window layers (window 1,024) built as full attention" in note and "131,072 -> 1,024" in note
    # a replan without the flag starts from the model as read
    again = kvplan.fit(GEMMA3, "H100", vllm_version="0.33.0", fixes=False)
    assert again.args.max_model_len == 131072 and len(again.groups) == 7


def test_a_longer_length_than_the_window_is_refused_as_vllm_refuses_it():
    with pytest.raises(InputError) as e:
        kvplan.fit(GEMMA3, "H100", vllm_version="0.33.0", max_model_len=32768, fixes=False, disable_sliding_window=True)
    assert "User-specified max_model_len (32768) is greater than the derived max_model_len (sliding_window=1024" in str(e.value)


@pytest.mark.parametrize("version,length", [("0.12.0", 131072), ("0.20.0", 131072), ("0.30.0", 128), ("0.33.0", 128)])
def test_gpt_oss_cap_comes_before_the_yarn_factor(version, length):
    # up to 0.29 YaRN derives the length from original_max_position_embeddings x factor, replacing the capped one;
    # from 0.30 YaRN is not scaled, so the window is the length
    p = kvplan.fit(GPT_OSS, "H100", vllm_version=version, fixes=False, disable_sliding_window=True)
    assert p.args.max_model_len == length and len(p.groups) == 1


@pytest.mark.parametrize("version", ["0.10.2", "0.11.0", "0.11.2"])
def test_rope_scaled_models_are_refused_up_to_0_11(version):
    with pytest.raises(InputError) as e:
        kvplan.fit(GPT_OSS, "H100", vllm_version=version, fixes=False, disable_sliding_window=True)
    assert "Disabling sliding window is not supported for models with rope_scaling" in str(e.value)
    assert "0.12.0 or newer" in str(e.value)


def test_a_model_without_a_window_plans_the_same():
    kw = dict(vllm_version="0.33.0", max_model_len=16384, fixes=False)
    base = kvplan.fit("mistralai/Mistral-7B-Instruct-v0.3", "L4", **kw)
    p = kvplan.fit("mistralai/Mistral-7B-Instruct-v0.3", "L4", disable_sliding_window=True, **kw)
    assert (p.num_gpu_blocks, p.kv_cache_tokens) == (base.num_gpu_blocks, base.kv_cache_tokens)
    assert "sets no sliding window" in _note(p, DSW)


def test_the_window_flag_starts_at_0_4_3():
    assert SERVE_FLAG_SINCE["--disable-sliding-window"] == (0, 4, 3)
    with pytest.raises(InputError):
        kvplan.fit("mistralai/Mistral-7B-Instruct-v0.3", "L4", vllm_version="0.4.2", fixes=False,
                   disable_sliding_window=True)


# ---- the consumers: CLI, serve.sh, logs, records


def test_the_command_line_takes_both():
    from typer.testing import CliRunner

    from kvplan.cli import app
    for flag, name in (("--disable-hybrid-kv-cache-manager", "disable_hybrid_kv_cache_manager"),
                       ("--disable-sliding-window", "disable_sliding_window")):
        res = CliRunner().invoke(app, ["fit", GEMMA3, "--gpu", "H100", "--max-model-len", "1024", flag,
                                       "--vllm-version", "0.33.0", "--json"])
        assert res.exit_code == 0, res.output
        out = json.loads(res.output)
        assert out["args"][name] is True and any(a.startswith(flag + ":") for a in out["assumptions"])


def test_serve_sh_carries_them():
    p = kvplan.fit(GEMMA3, "H100", vllm_version="0.33.0", max_model_len=1024, fixes=False,
                   disable_hybrid_kv_cache_manager=True, disable_sliding_window=True)
    script = render_files(spec_from_plan(p))["serve.sh"]
    assert "\n  --disable-hybrid-kv-cache-manager\n" in script and "\n  --disable-sliding-window\n" in script
    plain = render_files(spec_from_plan(kvplan.fit(GEMMA3, "H100", vllm_version="0.33.0", max_model_len=1024,
                                                   fixes=False)))["serve.sh"]
    assert "--disable-hybrid-kv-cache-manager" not in plain and "--disable-sliding-window" not in plain


def test_a_log_with_the_flag_is_planned_with_it():
    log = startup_log(GPT_OSS, 32768, disable_hybrid_kv_cache_manager=True)
    assert log.to_record()["args"]["disable_hybrid_kv_cache_manager"] is True
    p, _notes = plan_from_log(log, GPT_OSS, FitFlags(gpu="H100"), site_calibration=False)
    assert p.args.disable_hybrid_kv_cache_manager and len(p.groups) == 1
    window = startup_log(GPT_OSS, 32768, disable_sliding_window=True)
    assert window.to_record()["args"]["disable_sliding_window"] is True
    assert "disable_hybrid_kv_cache_manager" not in window.to_record()["args"]


def test_a_record_with_them_is_planned_not_skipped():
    for name in ("disable_hybrid_kv_cache_manager", "disable_sliding_window"):
        assert name not in ARGS_NOT_MODELLED and name in ARG_FIELDS
    rec = record("calibration.jsonl", "gpt-oss-20b-a100-u065-tpx")
    base, _ = predict_record(rec)
    flagged = json.loads(json.dumps(rec))
    flagged["args"]["disable_hybrid_kv_cache_manager"] = "true"
    (result,) = validate_records([flagged])
    assert result.skipped is None
    p, _ = predict_record(flagged)
    assert p.args.disable_hybrid_kv_cache_manager and len(p.groups) == 1 < len(base.groups)
    assert p.num_gpu_blocks < base.num_gpu_blocks


@pytest.mark.parametrize("line,fix_part", [
    ("ValueError: Hybrid KV cache manager is disabled but failed to convert the KV cache specs to one unified type.",
     "--disable-hybrid-kv-cache-manager"),
    ("ValueError: Failed to promote local KV cache specs to one unified type.", "--disable-hybrid-kv-cache-manager"),
    ("NotImplementedError: Disabling sliding window is not supported for models with rope_scaling. Please raise an "
     "issue so we can investigate.", "0.12.0"),
])
def test_diagnose_names_the_flag_behind_the_refusals(line, fix_part):
    from kvplan.diagnose import diagnose

    top = diagnose([f"(EngineCore_DP0 pid=4242) ERROR 12-02 01:00:00 [core.py:866] {line}"]).top
    assert top is not None and (top.symptom, top.layer) == ("invalid_engine_flags", "vllm_version_flags") and top.fatal
    assert fix_part in top.fix
