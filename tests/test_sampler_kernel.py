"""The sampler's top-k/top-p kernel (VLLM_USE_FLASHINFER_SAMPLER): its profile peak, the release defaults, the log line
that says which kernel ran, and reconcile/record carrying it."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import kvplan
from kvplan.calibration import coefficients_for
from kvplan.errors import InputError
from kvplan.logs import parse_lines
from kvplan.plan import parse_env, term_features
from kvplan.reconcile import plan_kwargs_from_log
from kvplan.validate import predict_record
from kvplan.versions import rules_for

QWEN2 = dict(vllm_version="0.10.1.1", gpu_memory_utilization=0.25, max_model_len=16384)
FLASHINFER_LINE = "(EngineCore_0 pid=1812) INFO 09-04 01:02:57 [topk_topp_sampler.py:50] Using FlashInfer for top-p & top-k sampling."
NATIVE_LINE = ("(EngineCore_0 pid=1257) WARNING 09-03 04:41:10 [topk_topp_sampler.py:79] FlashInfer is not available. Falling back "
               "to the PyTorch-native implementation of top-p & top-k sampling. For the best performance, please install FlashInfer.")
VERSION_LINE = "INFO 09-04 01:02:30 [api_server.py:1805] vLLM API server version 0.10.1.1"


def _peak(p):
    return next(t for t in p.terms if t.name == "activation_peak")


def test_the_release_default_is_a_rules_row():
    # unset: FlashInfer whenever flashinfer imports from the V1 sampler (PR #11394) to 0.11.0, opt-in from 0.11.1 (PR #26859)
    assert rules_for("0.10.1.1").flashinfer_sampler == "if_installed"
    assert rules_for("0.11.0").flashinfer_sampler == "if_installed"
    assert rules_for("0.11.1").flashinfer_sampler == "opt_in"
    assert rules_for("0.6.5").flashinfer_sampler == "opt_in"
    # vllm/envs.py: unset is None (opt-in) in the 0.20.0 and 0.20.2 wheels, True from 0.21.0 (read to 0.33.0)
    assert rules_for("0.20.2").flashinfer_sampler == "opt_in"
    assert rules_for("0.21.0").flashinfer_sampler == rules_for("0.33.0").flashinfer_sampler == "default_on"
    # on the GPUs FlashInferBackend.supports_compute_capability accepts: 7.5-12.1, 8.0-12.1 from 0.24.0
    assert rules_for("0.11.0").flashinfer_sampler_cc == ()
    assert rules_for("0.23.0").flashinfer_sampler_cc == ((7, 5), (12, 1))
    assert rules_for("0.24.0").flashinfer_sampler_cc == rules_for("0.33.0").flashinfer_sampler_cc == ((8, 0), (12, 1))


def test_from_0_21_the_profile_also_warms_the_native_path_so_flashinfer_never_sets_the_peak():
    # _dummy_sampler_run calls the sampler again with a generator, which forward_cuda hands to forward_native
    # (gpu_model_runner.py, 0.21.0-0.33.0 wheels; not in 0.20.2): the native kernel's peak is the profile's
    from dataclasses import replace
    from kvplan.plan.terms import _sampler_term
    c = coefficients_for("V1-c")  # an era with a FlashInfer term apart
    assert c.a_sampler_flashinfer is not None
    early = replace(rules_for("0.17.1"), flashinfer_sampler="on")
    late = replace(rules_for("0.21.0"), flashinfer_sampler="on")
    assert not early.profile_sampler_warms_native and late.profile_sampler_warms_native
    assert _sampler_term(c, early, 256) == (c.a_sampler_flashinfer, "flashinfer")
    assert _sampler_term(c, late, 256) == (c.a_sampler_triton, "triton")
    # so unset (default on), =1 and =0 plan the same peak and pool from 0.21
    model, gpu = "Qwen/Qwen3-8B", "H100"
    plans = [kvplan.fit(model, gpu, vllm_version="0.24.0", max_model_len=8192, env=env)
             for env in (None, ["VLLM_USE_FLASHINFER_SAMPLER=1"], ["VLLM_USE_FLASHINFER_SAMPLER=0"])]
    assert plans[0].rules.flashinfer_sampler == "default_on"
    assert len({(p.activation_peak_bytes, p.kv_cache_bytes) for p in plans}) == 1


def test_forcing_the_flashinfer_sampler_on_a_gpu_it_does_not_run_on_is_refused():
    # TopKTopPSampler / flashinfer_sampler_supported raise a RuntimeError at startup where the variable is set to 1
    # and the compute capability is outside the backend's span; unset, vLLM falls back quietly
    kw = dict(max_model_len=4096)
    with pytest.raises(InputError, match="VLLM_USE_FLASHINFER_SAMPLER") as e:
        kvplan.fit("Qwen/Qwen3-8B", "T4", vllm_version="0.24.0", env=["VLLM_USE_FLASHINFER_SAMPLER=1"], **kw)
    assert "8.0-12.1" in str(e.value) and "unset" in e.value.fix
    kvplan.fit("Qwen/Qwen3-8B", "T4", vllm_version="0.23.0", env=["VLLM_USE_FLASHINFER_SAMPLER=1"], **kw)
    kvplan.fit("Qwen/Qwen3-8B", "T4", vllm_version="0.24.0", env=["VLLM_USE_FLASHINFER_SAMPLER=0"], **kw)
    kvplan.fit("Qwen/Qwen3-8B", "T4", vllm_version="0.24.0", **kw)
    with pytest.raises(InputError, match="7.5-12.1"):
        kvplan.fit("Qwen/Qwen3-8B", "V100 32GB", vllm_version="0.21.0", env=["VLLM_USE_FLASHINFER_SAMPLER=1"], **kw)


def test_flashinfer_sampler_charges_its_own_bytes_per_logit_in_0_8_to_0_17():
    model, gpu = "Qwen/Qwen2-7B-Instruct", "A100-80GB"
    unset = kvplan.fit(model, gpu, **QWEN2)
    native = kvplan.fit(model, gpu, env=["VLLM_USE_FLASHINFER_SAMPLER=0"], **QWEN2)
    flash = kvplan.fit(model, gpu, env=["VLLM_USE_FLASHINFER_SAMPLER=1"], **QWEN2)
    c = coefficients_for(unset.rules.era)
    assert c.a_sampler_flashinfer is not None and c.a_sampler_flashinfer < c.a_sampler
    f = term_features(unset.model, unset.gpu, unset.args, unset.rules)
    # the sampler's logits make this profile's peak on either kernel (256 sequences x 152,064 logits)
    assert unset.activation_peak_bytes == pytest.approx(c.a_sampler * f.sampler_elements, abs=1)
    assert flash.activation_peak_bytes == pytest.approx(c.a_sampler_flashinfer * f.sampler_elements, abs=1)
    assert native.activation_peak_bytes == unset.activation_peak_bytes and native.kv_cache_bytes == unset.kv_cache_bytes
    saved = unset.activation_peak_bytes - flash.activation_peak_bytes
    assert flash.kv_cache_bytes == pytest.approx(unset.kv_cache_bytes + saved, abs=flash.bytes_per_block)
    assert "FlashInfer" in _peak(flash).formula and "FlashInfer" not in _peak(unset).formula
    # unset, the install decides in 0.10: kvplan says which kernel it charged and how to charge the other
    assert any("VLLM_USE_FLASHINFER_SAMPLER=1" in a for a in unset.assumptions)
    assert not any(a.startswith("sampler:") for a in flash.assumptions)


def test_the_variable_moves_the_term_only_where_the_release_has_a_flashinfer_term():
    model, gpu = "Qwen/Qwen3-8B", "H100"
    # 0.14.1: opt-in, so unset is the PyTorch-native path and =1 the FlashInfer one, without a note on the install
    unset = kvplan.fit(model, gpu, vllm_version="0.14.1")
    flash = kvplan.fit(model, gpu, vllm_version="0.14.1", env={"VLLM_USE_FLASHINFER_SAMPLER": "1"})
    assert flash.activation_peak_bytes < unset.activation_peak_bytes
    assert not any(a.startswith("sampler:") for a in unset.assumptions)
    # from 0.18 the sampler term is one fitted value, whichever kernel ran (and from 0.21 the profile runs both)
    late = kvplan.fit(model, gpu, vllm_version="0.21.0")
    late_flash = kvplan.fit(model, gpu, vllm_version="0.21.0", env=["VLLM_USE_FLASHINFER_SAMPLER=1"])
    assert late_flash.activation_peak_bytes == late.activation_peak_bytes
    # V0's sampler keeps its era's term
    v0 = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", gpu, vllm_version="0.9.2", env={"VLLM_USE_V1": "0"})
    v0_flash = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", gpu, vllm_version="0.9.2",
                          env={"VLLM_USE_V1": "0", "VLLM_USE_FLASHINFER_SAMPLER": "1"})
    assert v0.rules.engine == "v0" and v0_flash.activation_peak_bytes == v0.activation_peak_bytes


def test_a_value_vllm_cannot_read_is_refused_by_name():
    with pytest.raises(InputError, match="VLLM_USE_FLASHINFER_SAMPLER") as e:
        kvplan.fit("Qwen/Qwen3-8B", "H100", vllm_version="0.10.1.1", env=["VLLM_USE_FLASHINFER_SAMPLER=yes"])
    assert "=1" in e.value.fix


def test_the_log_says_which_kernel_sampled():
    assert parse_lines([VERSION_LINE, FLASHINFER_LINE]).flashinfer_sampling is True
    assert parse_lines([VERSION_LINE, NATIVE_LINE]).flashinfer_sampling is False
    assert parse_lines(["WARNING 10-20 [topk_topp_sampler.py:90] FlashInfer top-p/top-k sampling unavailable: unsupported "
                        "compute capability 7.5; falling back."]).flashinfer_sampling is False
    assert parse_lines([VERSION_LINE]).flashinfer_sampling is None


def test_reconcile_plans_a_flashinfer_log_with_its_kernel_and_the_record_says_so():
    log = parse_lines([VERSION_LINE, FLASHINFER_LINE])
    assert ("VLLM_USE_FLASHINFER_SAMPLER", "1") in tuple(plan_kwargs_from_log(log)["env"])
    assert "env" not in plan_kwargs_from_log(parse_lines([VERSION_LINE, NATIVE_LINE]))
    record = log.to_record()
    assert record["args"]["env"] == {"VLLM_USE_FLASHINFER_SAMPLER": "1"}
    notes = record["notes"] if isinstance(record["notes"], str) else "; ".join(record["notes"])
    assert "stands for the logged" in notes
    assert "env" not in parse_lines([VERSION_LINE, NATIVE_LINE]).to_record()["args"]


class _Flags:
    def __init__(self, **given):
        self.given = given

    def engine_kwargs(self):
        return self.given


def test_flags_given_to_reconcile_keep_their_environment_and_may_override_the_log():
    log = parse_lines([VERSION_LINE, FLASHINFER_LINE])
    merged = dict(parse_env(plan_kwargs_from_log(log, _Flags(env=["HF_HUB_OFFLINE=1"]))["env"]))
    assert merged == {"HF_HUB_OFFLINE": "1", "VLLM_USE_FLASHINFER_SAMPLER": "1"}
    told = dict(parse_env(plan_kwargs_from_log(log, _Flags(env=["VLLM_USE_FLASHINFER_SAMPLER=0"]))["env"]))
    assert told == {"VLLM_USE_FLASHINFER_SAMPLER": "0"}


def test_the_blind_flashinfer_startup_is_planned_within_its_logged_pool():
    # tests/data/blind_records.jsonl: Qwen2-7B-Instruct on an A100 80GB at utilization 0.25, whose log says 'Using
    # FlashInfer for top-p & top-k sampling'; with the PyTorch-native term kvplan left 0.8 GiB of its pool out
    path = Path(__file__).parent / "data" / "blind_records.jsonl"
    rec = next(r for r in map(json.loads, path.read_text().splitlines()) if r["id"] == "qwen2-7b-instruct-a100-80-u025-tp1-l16k")
    observed = rec["observed"]["kv_cache_gib"]
    assert rec["args"]["env"] == {"VLLM_USE_FLASHINFER_SAMPLER": "1"}  # carried from that line
    after, _ = predict_record(rec)
    del rec["args"]["env"]
    before, _ = predict_record(rec)
    gib = 1024 ** 3
    assert observed - before.kv_cache_bytes / gib > 0.5
    assert abs(after.kv_cache_bytes / gib - observed) < abs(before.kv_cache_bytes / gib - observed) / 4


def _data_records(name):
    path = Path(__file__).parent / "data" / name
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("name", ["extra_records.jsonl", "blind_records.jsonl"])
def test_a_record_carries_the_flashinfer_sampler_exactly_where_its_log_says_so(name):
    # tests/data/SOURCES-logs.md "Which top-k/top-p kernel the 0.8-0.17 startups sampled with": the variable stands for
    # the logged line, so a record quoting the line carries it and no other record does
    for rec in _data_records(name):
        logged = "Using FlashInfer for top-p & top-k sampling" in str(rec.get("notes") or "")
        env = (rec.get("args") or {}).get("env") or {}
        assert logged == (env.get("VLLM_USE_FLASHINFER_SAMPLER") == "1"), rec["id"]


def _fit_tool():
    from repo_scripts import load_script

    return load_script("tools/fit_calibration.py")


def test_the_fit_charges_a_flashinfer_startup_the_kernels_term_not_the_fitted_one():
    # the Mistral-7B GPTQ startup on a GB10 (NVIDIA's 0.11.0 container) logs the FlashInfer line; what it implies for
    # the integrated-memory term must not carry the PyTorch-native sampler peak it did not run
    tool = _fit_tool()
    rec = next(r for r in _data_records("extra_records.jsonl") if r["id"] == "mistral-7b-instruct-v0.2-gptq-gb10-u090-tp1-l32k")
    (with_kernel,) = tool.rows([rec])
    native_rec = json.loads(json.dumps(rec))
    del native_rec["args"]["env"]
    (native,) = tool.rows([native_rec])
    c = coefficients_for(with_kernel["era"])
    assert with_kernel["a_s_kernel"] == c.a_sampler_flashinfer == 14.0
    assert native["a_s_kernel"] is None
    f = with_kernel["f"]
    assert f.sampler_elements * c.a_sampler > f.forward_bytes + f.moe_bytes  # the native sampler run is the peak
    a_s = c.a_sampler
    gap = tool.model(native, a_s, 0, 0, 0, 0, 0) - tool.model(with_kernel, a_s, 0, 0, 0, 0, 0)
    assert gap == pytest.approx(f.sampler_elements * a_s - max(f.forward_bytes + f.moe_bytes, f.sampler_elements * 14.0))
    assert gap > 0.08 * 1024 ** 3  # 0.09 GiB beyond the forward's T x (3 H + 3 I), 0.10 beyond 2 H + 3 I


def test_the_fit_reads_no_sampler_peak_from_a_summary_that_adds_the_cuda_graph_estimate():
    # from 0.27 the summary's "peak activation" is the profile's peak plus the CUDA-graph estimate applied; the records
    # carry it as printed, so the fit's logged sampler peaks leave them out (the 0.10.2-0.26 form, with its non-torch
    # figure, is the profile's peak alone)
    tool = _fit_tool()
    recs = {r["id"]: r for r in _data_records("extra_records.jsonl")}
    summary_027 = recs["qwen3.6-27b-a100-80-udef-tp2-l64k"]
    assert summary_027["observed"]["activation_peak_gib"] == 2.32 and summary_027["observed"]["non_torch_gib"] is None
    assert not tool._profile_peak_alone(summary_027)
    older = [r for r in recs.values() if r["observed"].get("activation_peak_gib") is not None
             and r["observed"].get("non_torch_gib") is not None]
    assert older and all(tool._profile_peak_alone(r) for r in older)


def test_0_17_masks_top_k_top_p_with_the_triton_kernel_and_charges_its_term():
    # the Triton top-k/top-p kernel is in the 0.17.0 wheel and not in 0.16.0's (versions.py topk_topp_triton): a
    # 256-sequence profile on an A100 charges the sort's 38.5 B per logit in 0.16 and the 0.18-0.19 term in 0.17
    assert not rules_for("0.16.0").topk_topp_triton and rules_for("0.17.0").topk_topp_triton
    model, gpu = "Qwen/Qwen2.5-3B-Instruct", "A100-80GB"
    sort = kvplan.fit(model, gpu, vllm_version="0.16.0", max_model_len=32768)
    triton = kvplan.fit(model, gpu, vllm_version="0.17.1", max_model_len=32768)
    c = coefficients_for(triton.rules.era)
    assert c is coefficients_for(sort.rules.era) and c.a_sampler_triton == coefficients_for("V1-d").a_sampler < c.a_sampler
    f = term_features(triton.model, triton.gpu, triton.args, triton.rules)
    assert f.s == 256
    assert sort.activation_peak_bytes == pytest.approx(c.a_sampler * f.sampler_elements, abs=1)
    assert triton.activation_peak_bytes == pytest.approx(c.a_sampler_triton * f.sampler_elements, abs=1)
    assert "Triton top-k/top-p" in _peak(triton).formula and "Triton" not in _peak(sort).formula
    # fewer than 8 rows are still sorted; FlashInfer's kernel, where asked for, replaces both
    few = kvplan.fit(model, gpu, vllm_version="0.17.1", max_model_len=32768, max_num_seqs=4,
                     max_num_batched_tokens=4)
    assert "Triton" not in _peak(few).formula
    flash = kvplan.fit(model, gpu, vllm_version="0.17.1", max_model_len=32768, env=["VLLM_USE_FLASHINFER_SAMPLER=1"])
    assert flash.activation_peak_bytes == pytest.approx(c.a_sampler_flashinfer * f.sampler_elements, abs=1)


def test_the_0_17_startups_sampling_256_sequences_are_planned_within_their_logged_pools():
    # the two 0.17.1 A100 startups of extra_records.jsonl were 0.76 and 0.89 GiB short charged the sort's term
    for rid in ("llama-3.1-8b-instruct-a100-80-u090-tp1-l32k", "qwen2.5-3b-distill-a100-80-udef-tp1-l32k"):
        rec = next(r for r in _data_records("extra_records.jsonl") if r["id"] == rid)
        p, _ = predict_record(rec)
        assert p.rules.topk_topp_triton
        assert abs(p.kv_cache_bytes / 1024 ** 3 - rec["observed"]["kv_cache_gib"]) < 0.2
