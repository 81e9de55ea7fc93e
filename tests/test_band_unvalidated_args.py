"""`kvplan fit`'s band names the vllm serve flags of the plan, set away from vLLM's default, that no validated startup
ran (band.unvalidated_args, from residuals.json's "args_seen", which tools/fit_calibration.py --write-residuals
counts over the startups the residuals come from). Before, a plan with --disable-hybrid-kv-cache-manager or -dcp 8
printed "validated band (p10–p90 of 39 real dense startups ...)" though no record ran either flag."""

from __future__ import annotations

import json

import pytest
from cli_runner import run_cli

from kvplan import band as band_mod
from kvplan.api import fit, uncertainty_band_of

QWEN = "Qwen/Qwen2.5-1.5B-Instruct"
BASE = {"tensor_parallel_size": 2, "max_model_len": 32768}
NIXL = '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}'


def seen() -> dict:
    return band_mod._residuals()["args_seen"]


def without_args_seen(monkeypatch) -> None:
    """The band read from the same residuals less their "args_seen" (what it was before the table had one)."""
    table = {k: v for k, v in band_mod._residuals().items() if k != "args_seen"}
    monkeypatch.setattr(band_mod, "_residuals", lambda: table)


@pytest.mark.parametrize("model, gpu, flags, arg, said", [
    ("deepseek-ai/DeepSeek-V3", "H200", {"tensor_parallel_size": 8, "decode_context_parallel_size": 8,
                                         "max_model_len": 131072}, "decode_context_parallel_size",
     "--decode-context-parallel-size"),
    (QWEN, "H100", {**BASE, "decode_context_parallel_size": 2, "tensor_parallel_size": 4}, "decode_context_parallel_size",
     "--decode-context-parallel-size"),
    (QWEN, "H100", {**BASE, "disable_hybrid_kv_cache_manager": True}, "disable_hybrid_kv_cache_manager",
     "--disable-hybrid-kv-cache-manager"),
    (QWEN, "H100", {**BASE, "kv_transfer_config": NIXL}, "kv_transfer_config", "--kv-transfer-config"),
    ("Qwen/Qwen3-Next-80B-A3B-Instruct", "H200", {"tensor_parallel_size": 4, "max_model_len": 32768,
                                                  "mamba_cache_dtype": "float32"}, "mamba_cache_dtype",
     "--mamba-cache-dtype float32"),
])
def test_a_flag_no_validated_startup_ran_is_named_by_the_band(model, gpu, flags, arg, said):
    assert seen()[arg]["n"] == 0  # the data: no calibration or extra startup ran it
    band = uncertainty_band_of(fit(model, gpu, **flags))
    assert band["unvalidated_args"] == [said]
    assert band["outside_validation"] and f"no validated startup ran with {said}" in band["text"]
    assert not band["text"].startswith("validated band")
    # the same plan without the flag names none
    plain = {k: v for k, v in flags.items() if k != arg}
    assert uncertainty_band_of(fit(model, gpu, **plain))["unvalidated_args"] == []


def test_an_enum_value_the_records_ran_is_validated_and_another_is_not(monkeypatch):
    kv_values = seen()["kv_cache_dtype"]["values"]
    assert kv_values.get("fp8")  # the data: startups ran an fp8 KV cache
    band = uncertainty_band_of(fit(QWEN, "H100", **BASE, kv_cache_dtype="fp8"))
    assert band["unvalidated_args"] == [] and band["text"].startswith("validated band")
    # the dtype the records ran (bfloat16, float16, half) is validated; float32, which none ran, is named with its value
    assert "float32" not in seen()["dtype"]["values"]
    band32 = uncertainty_band_of(fit(QWEN, "H100", **BASE, dtype="float32"))
    assert band32["unvalidated_args"] == ["--dtype float32"]
    without_args_seen(monkeypatch)
    assert uncertainty_band_of(fit(QWEN, "H100", **BASE, kv_cache_dtype="fp8"))["text"] == band["text"]


def test_release_defaults_and_flags_that_move_nothing_are_not_named():
    # --async-scheduling at 0.33 runs as the release's default does, and validated startups ran it on: not named;
    # --calculate-kv-scales, which no record ran, moves no startup figure (band.ARGS_MOVING_NOTHING)
    assert seen()["async_scheduling"]["values"].get("on")
    assert seen()["calculate_kv_scales"]["n"] == 0
    for flags in ({"async_scheduling": True}, {"calculate_kv_scales": True, "kv_cache_dtype": "fp8", "vllm_version": "0.20.0"}):
        assert uncertainty_band_of(fit(QWEN, "H100", **BASE, **flags))["unvalidated_args"] == []
    # a default the planner resolves (block size, max_num_seqs, async scheduling) is not a flag the user set
    assert "async_scheduling" not in band_mod.args_set(fit(QWEN, "H100", **BASE).given_args)


def test_the_seed_plan_and_its_output_are_unchanged(monkeypatch, capsys):
    band = uncertainty_band_of(fit(detect_gpu=False))
    assert band["unvalidated_args"] == []
    code, out, _ = run_cli(monkeypatch, capsys, "fit")
    assert code == 0
    without_args_seen(monkeypatch)
    code0, out0, _ = run_cli(monkeypatch, capsys, "fit")
    assert (code0, out0) == (code, out)


def test_fit_json_and_text_carry_the_unvalidated_flags(monkeypatch, capsys):
    args = ("fit", QWEN, "--gpu", "H100", "-tp", "2", "--max-model-len", "32768", "--disable-hybrid-kv-cache-manager")
    code, out, _ = run_cli(monkeypatch, capsys, *args, "--json")
    assert code == 0
    assert json.loads(out)["uncertainty"]["unvalidated_args"] == ["--disable-hybrid-kv-cache-manager"]
    code, out, _ = run_cli(monkeypatch, capsys, *args)
    text = " ".join(out.replace("│", " ").split())
    assert code == 0 and "outside what was validated: no validated startup ran with --disable-hybrid-kv-cache-manager" in text


def test_args_seen_counts_the_startups_of_the_residuals():
    # every argument a record may carry has a count; an enum-like one's values add up to its count
    from kvplan.validate import ARG_FIELDS

    table = seen()
    assert set(table) == set(ARG_FIELDS)
    for name in ("kv_cache_dtype", "dtype", "enable_prefix_caching"):
        assert sum(table[name]["values"].values()) == table[name]["n"] > 0
    assert list(band_mod._residuals())[-1] == "args_seen"  # after the bands


def test_a_kv_dtype_that_is_the_models_own_is_the_validated_default():
    """--kv-cache-dtype bfloat16 on a bfloat16 model stores what 'auto' does (2 B an element, the same pool): the band
    named it as a flag no validated startup ran. On a float16 model it is another dtype, still named."""
    plain = fit("Qwen/Qwen3-8B", gpu="L4", max_model_len=8192)
    same = fit("Qwen/Qwen3-8B", gpu="L4", max_model_len=8192, kv_cache_dtype="bfloat16")
    assert same.args.dtype == "bfloat16" and same.kv_cache_tokens == plain.kv_cache_tokens
    assert band_mod.unvalidated_args(same) == band_mod.unvalidated_args(plain) == []
    other = fit("Qwen/Qwen3-8B", gpu="L4", max_model_len=8192, kv_cache_dtype="bfloat16", dtype="float16")
    assert "--kv-cache-dtype bfloat16" in band_mod.unvalidated_args(other)
