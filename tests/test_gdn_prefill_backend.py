"""vLLM's --gdn-prefill-backend (engine/arg_utils.py, 0.18.0-0.34.0 wheels): the prefill kernel of Qwen's Gated DeltaNet
layers. Only FlashInfer's kernel exports prefill checkpoints (mamba/gdn/qwen_gdn_linear_attn.py _checkpoint_alignment,
0.33.0 and 0.34.0), so with prefix caching from 0.33 it alone puts a hybrid's block size on the 64-token grid
(FLASHINFER_GDN_CHECKPOINT_ALIGNMENT) and gives each GDN layer a checkpoint page; a backend of another platform is
refused as _resolve_gdn_prefill_backend refuses it."""
import importlib

import pytest

import kvplan
from kvplan.errors import InputError

NEXT = "Qwen/Qwen3-Next-80B-A3B-Instruct"
H200 = dict(gpu="H200", tensor_parallel_size=2, max_model_len=32768)


def _fit(**kw):
    return kvplan.fit(NEXT, **{**H200, "vllm_version": "0.33.0", **kw})


def _gdn_group(p):
    return next(g for g in p.groups if g.kind == "recurrent")


def test_triton_takes_the_block_off_flashinfers_64_token_grid():
    default, triton = _fit(), _fit(gdn_prefill_backend="triton")
    assert default.fits and triton.fits
    assert default.args.block_size % 64 == 0
    assert triton.args.block_size % 64 != 0 and triton.args.block_size % 16 == 0
    assert triton.args.block_size < default.args.block_size
    # without FlashInfer the block is sized as in a release with no GDN checkpoints: 0.32.0's rule
    assert triton.args.block_size == _fit(vllm_version="0.32.0").args.block_size
    # and no layer holds a checkpoint page: more blocks of fewer bytes fit the same pool
    assert _gdn_group(default).checkpoint_capable and not _gdn_group(triton).checkpoint_capable
    assert triton.kv_cache_bytes == default.kv_cache_bytes
    assert triton.num_gpu_blocks > default.num_gpu_blocks
    assert triton.kv_cache_tokens > default.kv_cache_tokens
    assert any("Triton/FLA GDN prefill kernel" in n for n in triton.assumptions)


def test_flashinfer_asked_is_vllms_own_choice_where_it_runs():
    default, asked = _fit(), _fit(gdn_prefill_backend="flashinfer")
    assert (asked.args.block_size, asked.num_gpu_blocks, asked.kv_cache_tokens) == \
        (default.args.block_size, default.num_gpu_blocks, default.kv_cache_tokens)


def test_flashinfer_asked_on_ampere_runs_triton():
    """_resolve_gdn_prefill_backend returns Triton/FLA without a word of warning from 0.22 (SM 8.0 has no FlashInfer
    GDN kernel): the plan is the default one, and says which kernel runs."""
    kw = dict(gpu="A100", tensor_parallel_size=4)
    default, asked = _fit(**kw), _fit(**kw, gdn_prefill_backend="flashinfer")
    assert asked.args.block_size == default.args.block_size == _fit(**kw, gdn_prefill_backend="triton").args.block_size
    assert default.args.block_size % 64 != 0
    assert not any("GDN prefill backend" in w for w in asked.warnings)
    assert any("runs the Triton/FLA GDN prefill kernel" in n for n in asked.assumptions)


def test_up_to_0_21_flashinfer_off_hopper_warns_and_falls_back():
    kw = dict(gpu="A100", tensor_parallel_size=4)
    warned = _fit(**kw, vllm_version="0.21.0", gdn_prefill_backend="flashinfer")
    assert ("GDN prefill backend 'flashinfer' is selected but cannot use this kernel on the current platform. "
            "Falling back to Triton/FLA.") in warned.warnings
    assert not any("GDN prefill backend" in w for w in _fit(**kw, vllm_version="0.22.0", gdn_prefill_backend="flashinfer").warnings)
    assert not any("GDN prefill backend" in w for w in _fit(vllm_version="0.21.0", gdn_prefill_backend="flashinfer").warnings)


def test_without_prefix_caching_the_backend_moves_no_block():
    off = dict(enable_prefix_caching=False)
    assert _fit(**off).args.block_size == _fit(**off, gdn_prefill_backend="triton").args.block_size


@pytest.mark.parametrize("version,value,since", [
    ("0.17.1", "triton", "0.18.0"), ("0.17.1", "flashinfer", "0.18.0"), ("0.21.0", "cutedsl", "0.22.0"),
    ("0.31.0", "aiter_flydsl", "0.32.0"), ("0.32.0", "sycl", "0.33.0"), ("0.33.0", "hip", "0.34.0"),
])
def test_a_release_without_the_flag_or_value_refuses_it(version, value, since):
    with pytest.raises(InputError) as e:
        _fit(vllm_version=version, gdn_prefill_backend=value)
    assert e.value.field == "--gdn-prefill-backend"
    assert f"first in vLLM {since}" in e.value.message


@pytest.mark.parametrize("version,value", [("0.18.0", "triton"), ("0.22.0", "cutedsl"), ("0.34.0", "triton")])
def test_the_releases_with_the_value_take_it(version, value):
    assert _fit(vllm_version=version, gdn_prefill_backend=value).fits


def test_auto_is_not_a_choice():
    """argparse's choices hold no 'auto' (vLLM's own choice is the flag left out)."""
    with pytest.raises(InputError) as e:
        _fit(gdn_prefill_backend="auto")
    assert "leave it out" in e.value.fix


@pytest.mark.parametrize("version,value,message", [
    ("0.33.0", "aiter_flydsl", "GDN prefill backend 'aiter_flydsl' was requested but it is a ROCm AITER backend and the "
                               "current platform is cuda."),
    ("0.34.0", "aiter_flydsl", "GDN prefill backend 'aiter_flydsl' was requested but it is a ROCm backend and the "
                               "current platform is cuda."),
    ("0.34.0", "hip", "GDN prefill backend 'hip' was requested but it is a ROCm backend and the current platform is cuda."),
    ("0.33.0", "sycl", "GDN prefill backend 'sycl' is only supported on XPU."),
])
def test_a_backend_of_another_platform_is_refused_with_vllms_message(version, value, message):
    p = _fit(vllm_version=version, gdn_prefill_backend=value)
    assert not p.fits and p.failure == "platform" and p.failure_code == "gdn_prefill_backend"
    assert p.error.startswith(message)
    fix = next(f for f in p.fixes if f.flags == {"gdn_prefill_backend": "triton"})
    assert fix.fits


def test_rocm_backends_need_their_kernels():
    mi = dict(gpu="MI300X", tensor_parallel_size=1)
    refused = _fit(**mi, gdn_prefill_backend="aiter_flydsl")
    assert not refused.fits and "AITER FlyDSL prefill kernels are not importable" in refused.error
    aiter = _fit(**mi, gdn_prefill_backend="aiter_flydsl", env=["VLLM_ROCM_USE_AITER=1"])
    assert aiter.fits and any("installed AITER" in n for n in aiter.assumptions)
    half = _fit(**mi, gdn_prefill_backend="aiter_flydsl", env=["VLLM_ROCM_USE_AITER=1"], dtype="float16")
    assert ("GDN prefill backend 'aiter_flydsl' was requested but model dtype is torch.float16; FlyDSL requires "
            "bfloat16. Falling back to Triton/FLA.") in half.warnings
    hip = _fit(**mi, vllm_version="0.34.0", gdn_prefill_backend="hip")
    assert not hip.fits and "only for RDNA3.5 (gfx1150-gfx1153)" in hip.error
    # no FlashInfer on ROCm: any backend plans the same block
    assert _fit(**mi).args.block_size == aiter.args.block_size == _fit(**mi, gdn_prefill_backend="triton").args.block_size


def test_a_model_without_gdn_layers_ignores_it():
    base = kvplan.fit("Qwen/Qwen3-8B", "H100", max_model_len=8192)
    given = kvplan.fit("Qwen/Qwen3-8B", "H100", max_model_len=8192, gdn_prefill_backend="aiter_flydsl")
    assert given.fits and given.kv_cache_tokens == base.kv_cache_tokens
    assert any("no Gated DeltaNet layers" in n for n in given.assumptions)


def test_sweep_varies_it():
    from kvplan.api import FitFlags, parse_vary, sweep_rows

    plans = []
    rows = sweep_rows(NEXT, FitFlags(gpu="H200", tensor_parallel_size=2, max_model_len="32768", vllm_version="0.33.0"),
                      parse_vary(["gdn_prefill_backend=flashinfer,triton"]), plans)
    assert [r["gdn_prefill_backend"] for r in rows] == ["flashinfer", "triton"]
    assert [p.args.block_size for p in plans] == [_fit().args.block_size, _fit(gdn_prefill_backend="triton").args.block_size]


def test_scaffold_writes_it():
    from kvplan.deploy import render_files, spec_from_plan

    serve = render_files(spec_from_plan(_fit(gdn_prefill_backend="triton")))["serve.sh"]
    assert "  --gdn-prefill-backend triton" in serve.splitlines()
    assert "--gdn-prefill-backend" not in render_files(spec_from_plan(_fit()))["serve.sh"]


def test_a_log_started_with_it_is_planned_with_it():
    from kvplan.logs import parse_lines
    from kvplan.reconcile import plan_kwargs_from_log

    log = parse_lines([f"non-default args: {{'model': '{NEXT}', 'tensor_parallel_size': 2, 'max_model_len': 32768, "
                       "'gdn_prefill_backend': 'triton'}"])
    assert log.to_record()["args"]["gdn_prefill_backend"] == "triton"
    kwargs = plan_kwargs_from_log(log, kvplan.api.FitFlags(gpu="H200", vllm_version="0.33.0"))
    assert kwargs["gdn_prefill_backend"] == "triton"
    assert kvplan.fit(NEXT, **kwargs).args.block_size == _fit(gdn_prefill_backend="triton").args.block_size


def test_the_page_has_the_field_and_the_api_plans_it(tmp_path):
    pytest.importorskip("fastapi", reason="kvplan[web] is not installed")
    pytest.importorskip("httpx", reason="fastapi.testclient needs httpx")
    import re

    from fastapi.testclient import TestClient

    from kvplan.web.app import create_app

    client = TestClient(create_app(upload_dir=str(tmp_path)))
    page, js = client.get("/").text, client.get("/static/app.js").text
    field = re.search(r'<select id="gdn_prefill_backend" name="gdn_prefill_backend">(.*?)</select>', page, re.S)
    assert field, "no gdn_prefill_backend field"
    options = re.findall(r"<option(?: value=\"([^\"]*)\")?>([^<]*)</option>", field.group(1))
    from kvplan.versions import GDN_PREFILL_BACKENDS

    assert [v or text for v, text in options][1:] == list(GDN_PREFILL_BACKENDS) and options[0][0] == ""
    assert '"gdn_prefill_backend"' in re.search(r"const FIELDS = \[(.*?)\];", js, re.S).group(1)
    body = {"model": NEXT, "gpu": "H200", "tensor_parallel_size": 2, "max_model_len": 32768, "vllm_version": "0.33.0"}
    got = client.post("/api/plan", json={**body, "gdn_prefill_backend": "triton"}).json()
    assert got["kv_cache_tokens"] == _fit(gdn_prefill_backend="triton").kv_cache_tokens
    refused = client.post("/api/plan", json={**body, "gdn_prefill_backend": "aiter_flydsl"}).json()
    assert refused["fits"] is False
    assert {"gdn_prefill_backend": "triton"} in [f["flags"] for f in refused["fixes"]]


@pytest.mark.parametrize("version,value", [("0.33.0", "aiter_flydsl"), ("0.34.0", "hip"), ("0.33.0", "sycl")])
def test_diagnose_reads_vllms_refusal_the_plan_predicts(version, value):
    """The refusal the plan predicts, as vLLM's error log prints it, is read back as that flag's error."""
    from kvplan.diagnose import diagnose

    message = _fit(vllm_version=version, gdn_prefill_backend=value).error.split(" (vLLM ")[0]
    top = diagnose([f"(EngineCore_DP0 pid=1) ERROR 12-02 01:00:00 [core.py:866] RuntimeError: {message}"]).top
    assert top is not None and top.symptom == "invalid_engine_flags"
    assert "--gdn-prefill-backend" in top.fix


def test_the_fallback_warning_is_read_as_a_warning():
    from kvplan.logs import parse_lines

    warned = _fit(gpu="MI300X", tensor_parallel_size=1, gdn_prefill_backend="aiter_flydsl", env=["VLLM_ROCM_USE_AITER=1"],
                  dtype="float16").warnings
    line = next(w for w in warned if w.startswith("GDN prefill backend"))
    log = parse_lines([f"(EngineCore_DP0 pid=1) WARNING 12-02 01:00:00 [qwen_gdn_linear_attn.py:240] {line}"])
    assert [h.signature for h in log.hits] == ["gdn_prefill_backend_fallback"]


@pytest.mark.parametrize("kw,flashinfer", [
    ({}, True), (dict(gdn_prefill_backend="triton"), False), (dict(gpu="A100", tensor_parallel_size=4), False),
    (dict(vllm_version="0.21.0", gdn_prefill_backend="flashinfer"), True),
])
def test_the_kernel_is_worked_out_once_per_plan(monkeypatch, kw, flashinfer):
    """One plan asks gdn_prefill once: build_groups takes the planner's answer for the checkpoint pages instead of
    working it out again."""
    kv = importlib.import_module("kvplan.plan.kv")
    planner = importlib.import_module("kvplan.plan.planner")
    calls = {"gdn_prefill": 0, "build_groups": 0}

    def counted(name, fn):
        def wrapper(*a, **k):
            calls[name] += 1
            return fn(*a, **k)
        return wrapper

    gdn = counted("gdn_prefill", kv.gdn_prefill)
    monkeypatch.setattr(kv, "gdn_prefill", gdn)
    monkeypatch.setattr(planner, "gdn_prefill", gdn)
    monkeypatch.setattr(planner, "build_groups", counted("build_groups", planner.build_groups))
    p = _fit(**kw)
    assert calls["build_groups"] >= 1
    assert calls["gdn_prefill"] == calls["build_groups"]
    # the answer still reaches build_groups: FlashInfer's kernel alone exports checkpoints (SM 9.0 here; Ampere and
    # Triton/FLA do not)
    assert _gdn_group(p).checkpoint_capable == flashinfer
