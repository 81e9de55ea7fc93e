"""vLLM's --moe-backend (KernelConfig.moe_backend: vllm/config/kernel.py, engine/arg_utils.py; 0.17.0-0.34.0 wheels):
the kernel the MoE experts run on. The select_*_moe_backend oracles (vllm/model_executor/layers/fused_moe/oracle/)
take a value they map ahead of their automatic choice, refuse one they do not map ("moe_backend='X' is not supported
for {fmt} MoE. Expected one of [...]") and one whose experts class does not run on the GPU ("... does not support the
deployment configuration since kernel does not support current device cuda."); a model without MoE layers never asks
them. What the kernel moves is planned as the environment variable standing for it is (VLLM_MXFP4_USE_MARLIN,
VLLM_USE_DEEP_GEMM)."""
from __future__ import annotations

import json

import pytest

import kvplan
from cli_runner import refused, run_cli
from kvplan.errors import InputError, RefusedByVLLMError

OSS = "openai/gpt-oss-20b"
FP8 = "Qwen/Qwen3-30B-A3B-FP8"
MOE = "Qwen/Qwen3-30B-A3B"
NVFP4 = "nvidia/MiniMax-M2.7-NVFP4"


def _fit(model=OSS, gpu="H100", version="0.20.0", **kw):
    return kvplan.fit(model, gpu, **{"max_model_len": 16384, "vllm_version": version, **kw})


def _refusal(**kw) -> RefusedByVLLMError:
    with pytest.raises(RefusedByVLLMError) as err:
        _fit(**kw)
    assert err.value.field == "--moe-backend" and err.value.rule == "moe_backend"
    return err.value


def test_marlin_on_mxfp4_is_planned_as_vllm_mxfp4_use_marlin():
    """0.19-0.23 read both: --moe-backend marlin and VLLM_MXFP4_USE_MARLIN=1 pick Marlin the same way
    (oracle/mxfp4.py select_mxfp4_moe_backend), so Marlin's padding and workspace come out the same."""
    for gpu in ("H100", "B200"):
        default, asked = _fit(gpu=gpu), _fit(gpu=gpu, moe_backend="marlin")
        env = _fit(gpu=gpu, env=["VLLM_MXFP4_USE_MARLIN=1"])
        assert (asked.weights_bytes, asked.num_gpu_blocks) == (env.weights_bytes, env.num_gpu_blocks)
        assert asked.num_gpu_blocks < default.num_gpu_blocks
        assert any("MXFP4 Marlin: experts held as 2944 x 3072" in n for n in asked.assumptions)
        assert any(n.startswith("--moe-backend marlin: vLLM 0.20.0 runs the MXFP4 MoE experts on Marlin")
                   for n in asked.assumptions)


def test_marlin_on_mxfp4_where_the_variable_is_gone():
    """0.24+ no longer reads VLLM_MXFP4_USE_MARLIN; --moe-backend marlin still moves the experts to Marlin, with its
    padding (the weights of an A100, where Marlin is the automatic choice) and its workspace."""
    default, asked = _fit(version="0.33.0"), _fit(version="0.33.0", moe_backend="marlin")
    env = _fit(version="0.33.0", env=["VLLM_MXFP4_USE_MARLIN=1"])
    assert env.weights_bytes == default.weights_bytes
    assert asked.weights_bytes == _fit(gpu="A100-80GB", version="0.33.0").weights_bytes > default.weights_bytes
    workspace = next(t for t in asked.terms if t.name == "non_torch")
    assert "fused-MoE workspace" in workspace.formula
    assert "fused-MoE workspace" not in next(t for t in default.terms if t.name == "non_torch").formula


def test_triton_on_b200_mxfp4_takes_the_triton_layout():
    default, triton = _fit(gpu="B200", version="0.33.0"), _fit(gpu="B200", version="0.33.0", moe_backend="triton")
    assert any("MXFP4 FlashInfer" in n for n in default.assumptions)
    assert any("MXFP4 Triton (Blackwell layout)" in n for n in triton.assumptions)
    assert triton.weights_bytes < default.weights_bytes


def test_block_fp8_deep_gemm_is_planned_as_vllm_use_deep_gemm():
    default, asked = _fit(FP8, max_model_len=8192), _fit(FP8, max_model_len=8192, moe_backend="deep_gemm")
    env = _fit(FP8, max_model_len=8192, env=["VLLM_USE_DEEP_GEMM=1"])
    assert asked.num_gpu_blocks == env.num_gpu_blocks > default.num_gpu_blocks  # no Triton workspace charged
    # triton on a B200 charges TritonExperts' workspace where vLLM's own choice (FlashInfer) is not charged
    b200, b200_triton = _fit(FP8, "B200", max_model_len=8192), _fit(FP8, "B200", max_model_len=8192, moe_backend="triton")
    assert b200_triton.num_gpu_blocks < b200.num_gpu_blocks


def test_nvfp4_cutlass_charges_vllms_cutlass_buffers():
    kw = dict(model=NVFP4, gpu="B200", version="0.33.0", max_model_len=8192, tensor_parallel_size=2)
    default, cutlass = _fit(**kw), _fit(**kw, moe_backend="cutlass")
    assert cutlass.weights_bytes == default.weights_bytes
    assert cutlass.num_gpu_blocks < default.num_gpu_blocks
    assert any("vLLM's CUTLASS FP4 buffers" in n for n in cutlass.assumptions)


def test_a_value_the_experts_format_does_not_map_is_refused_with_vllms_message():
    err = _refusal(moe_backend="cutlass")
    assert ("\"moe_backend='cutlass' is not supported for MXFP4 MoE. Expected one of ['deep_gemm', "
            "'flashinfer_trtllm', 'flashinfer_trtllm_afp8', 'flashinfer_cutlass'") in err.message
    err = _refusal(model=MOE, version="0.33.0", max_model_len=8192, moe_backend="marlin")
    assert ("moe_backend='marlin' is not supported for unquantized MoE. Expected one of ['triton', 'batched_triton', "
            "'flashinfer_trtllm', 'flashinfer_cutlass', 'aiter'].") in err.message


@pytest.mark.parametrize("kw,text", [
    (dict(model=FP8, moe_backend="flashinfer_trtllm"), "FP8 MoE backend FLASHINFER_TRTLLM does not support the "
     "deployment configuration since kernel does not support current device cuda."),
    (dict(model=FP8, version="0.34.0", moe_backend="flashinfer_trtllm"), "Fp8 MoE backend 'FLASHINFER_TRTLLM' does "
     "not support the deployment configuration since kernel does not support current device cuda."),
    (dict(model=FP8, gpu="L40S", moe_backend="deep_gemm"), "FP8 MoE backend DEEPGEMM does not support"),
    (dict(gpu="L40S", version="0.33.0", moe_backend="triton"), "Mxfp4 MoE backend 'TRITON' does not support"),
    (dict(moe_backend="aiter"), "Mxfp4 MoE backend 'AITER' does not support"),
    (dict(version="0.21.0", moe_backend="aiter"), "Mxfp4 MoE backend 'AITER_MXFP4_BF16' does not support"),
    (dict(model=MOE, version="0.33.0", moe_backend="flashinfer_trtllm"), "Unquantized MoE backend FlashInfer TRTLLM "
     "does not support the deployment configuration since kernel does not support current device cuda."),
    (dict(model=MOE, version="0.18.0", moe_backend="flashinfer_trtllm"),
     "FlashInfer TRTLLM MoE backend is not available for this configuration."),
    (dict(model=NVFP4, tensor_parallel_size=4, version="0.33.0", moe_backend="cutlass"),
     "NvFp4 MoE backend 'VLLM_CUTLASS' does not support"),
    (dict(model=MOE, gpu="A100-80GB", version="0.33.0", moe_backend="flashinfer_cutlass"),
     "Unquantized MoE backend FlashInfer CUTLASS does not support"),
    # TritonExperts takes FP8 only where the platform supports it (cc >= 8.9): the scheme is the reason
    (dict(model=FP8, gpu="A100-80GB", version="0.33.0", moe_backend="triton"), "FP8 MoE backend TRITON does not "
     "support the deployment configuration since kernel does not support quantization scheme"),
    # 0.17-0.19: FlashInfer CUTLASS for unquantized experts only with expert parallelism (use_ep and not use_dp)
    (dict(model=MOE, version="0.18.0", moe_backend="flashinfer_cutlass"),
     "FlashInfer CUTLASS MoE backend is not available for this configuration."),
])
def test_a_kernel_that_does_not_run_on_the_gpu_is_refused_with_vllms_message(kw, text):
    assert text in _refusal(**{"max_model_len": 8192, **kw}).message


def test_flashinfer_cutlass_on_unquantized_experts_under_expert_parallelism():
    kw = dict(model=MOE, version="0.18.0", max_model_len=8192, tensor_parallel_size=2, enable_expert_parallel=True)
    asked = _fit(**kw, moe_backend="flashinfer_cutlass")
    assert asked.num_gpu_blocks == _fit(**kw).num_gpu_blocks  # the Triton workspace kvplan charges is kept
    assert any("runs the unquantized MoE experts on FlashInfer CUTLASS" in n and "unchanged" in n
               for n in asked.assumptions)


def test_the_fix_names_the_values_that_run_there():
    fix = _refusal(version="0.33.0", moe_backend="flashinfer_trtllm").fix
    assert fix.startswith("drop --moe-backend (auto: vLLM picks the kernel) or give another value the MXFP4 MoE oracle maps:")
    offered = fix.split("maps: ")[1].split(", ")
    assert "marlin" in offered and "triton" in offered
    assert "flashinfer_trtllm" not in offered and "aiter" not in offered  # the one refused, and ROCm's
    assert "flashinfer_trtllm_afp8" not in offered  # not an argparse choice


def test_the_flashinfer_moe_ep_megakernels_are_deepseek_v4_only():
    err = _refusal(version="0.32.0", moe_backend="flashinfer_moe_ep_mega_deep_gemm")
    assert ("moe_backend='flashinfer_moe_ep_mega_deep_gemm' is only supported for DeepSeek-V4 models "
            "(['DeepSeekV4MTPModel', 'DeepseekV4ForCausalLM']), but the model is ['GptOssForCausalLM'].") in err.message
    # refused before the MoE layers are built: a dense model too
    assert "only supported for DeepSeek-V4" in _refusal(model="Qwen/Qwen3-8B", version="0.30.0",
                                                        moe_backend="flashinfer_moe_ep_mega_cutedsl").message


def test_a_release_without_the_flag_or_the_value_refuses_it():
    with pytest.raises(InputError, match=r"vLLM 0\.16\.0 has no --moe-backend flag \(first in vLLM 0\.17\.0\)"):
        _fit(version="0.16.0", moe_backend="marlin")
    with pytest.raises(InputError, match=r"not 'hpc' \(hpc is first in vLLM 0\.25\.0\)"):
        _fit(version="0.24.0", moe_backend="hpc")
    with pytest.raises(InputError, match=r"flashinfer_moe_ep_mega_cutedsl was removed in vLLM 0\.32\.0"):
        _fit(version="0.32.0", moe_backend="flashinfer_moe_ep_mega_cutedsl")
    with pytest.raises(InputError, match="argument --moe-backend: invalid choice: 'bogus'"):
        _fit(version="0.33.0", moe_backend="bogus")


def test_the_value_is_read_as_argparse_reads_it():
    """engine/arg_utils.py: type=lambda s: s.lower().replace("-", "_")."""
    assert _fit(moe_backend="Flashinfer-TRTLLM", gpu="B200").args.moe_backend == "flashinfer_trtllm"
    assert _fit(moe_backend="MARLIN").num_gpu_blocks == _fit(moe_backend="marlin").num_gpu_blocks


def test_releases_whose_experts_do_not_read_it_and_dense_models_ignore_it():
    default, asked = _fit(version="0.18.0"), _fit(version="0.18.0", moe_backend="marlin")
    assert asked.num_gpu_blocks == default.num_gpu_blocks
    assert any("vLLM 0.18.0's mxfp4 MoE experts do not read the flag (they do from 0.19.0)" in n for n in asked.assumptions)
    dense = dict(model="Qwen/Qwen3-8B", gpu="L4", version="0.33.0", max_model_len=8192)
    base, given = _fit(**dense), _fit(**dense, moe_backend="marlin")
    assert given.kv_cache_tokens == base.kv_cache_tokens
    assert any("the model has no MoE layers" in n and "it changes nothing" in n for n in given.assumptions)


def test_fit_cli_takes_it_and_the_serve_command_carries_it(monkeypatch, capsys):
    code, out, _ = run_cli(monkeypatch, capsys, "fit", OSS, "--gpu", "H100", "--vllm-version", "0.20.0",
                           "--max-model-len", "16384", "--moe-backend", "marlin", "--json")
    assert code == 0 and json.loads(out)["num_gpu_blocks"] == _fit(moe_backend="marlin").num_gpu_blocks
    code, out, _ = run_cli(monkeypatch, capsys, "fit", "--from", f"vllm serve {OSS} --max-model-len 16384 "
                           "--moe-backend marlin", "--gpu", "H100", "--vllm-version", "0.20.0", "--json")
    got = json.loads(out)
    assert code == 0 and got["args"]["moe_backend"] == "marlin"
    assert got["from_command"]["planned"]["--moe-backend"] == "marlin"
    assert got["num_gpu_blocks"] == _fit(moe_backend="marlin").num_gpu_blocks
    text = refused(monkeypatch, capsys, "--moe-backend", "fit", OSS, "--gpu", "H100", "--vllm-version", "0.20.0",
                   "--moe-backend", "cutlass")
    assert "is not supported for MXFP4 MoE" in text


def test_scaffold_writes_it():
    from kvplan.deploy import render_files, spec_from_plan

    assert "  --moe-backend marlin" in render_files(spec_from_plan(_fit(moe_backend="marlin")))["serve.sh"].splitlines()
    assert "--moe-backend" not in render_files(spec_from_plan(_fit()))["serve.sh"]


def test_a_log_started_with_it_is_planned_with_it():
    from kvplan.logs import parse_lines
    from kvplan.reconcile import plan_kwargs_from_log

    log = parse_lines([f"non-default args: {{'model': '{OSS}', 'max_model_len': 16384, 'moe_backend': 'marlin'}}"])
    assert log.to_record()["args"]["moe_backend"] == "marlin"
    kwargs = plan_kwargs_from_log(log, kvplan.api.FitFlags(gpu="H100", vllm_version="0.20.0"))
    assert kwargs["moe_backend"] == "marlin"
    assert kvplan.fit(OSS, **kwargs).num_gpu_blocks == _fit(moe_backend="marlin").num_gpu_blocks


def test_a_record_with_it_is_validated_with_it():
    from kvplan.validate import clean_record

    assert clean_record({"args": {"moe_backend": " Marlin "}})["args"]["moe_backend"] == "marlin"


@pytest.mark.parametrize("kw", [dict(moe_backend="cutlass"),
                                dict(model=MOE, version="0.33.0", moe_backend="flashinfer_trtllm"),
                                dict(model=MOE, version="0.34.0", moe_backend="flashinfer_trtllm"),
                                dict(model=MOE, version="0.18.0", moe_backend="flashinfer_trtllm"),
                                dict(version="0.32.0", moe_backend="flashinfer_moe_ep_mega_deep_gemm")])
def test_diagnose_reads_the_refusal_the_plan_predicts(kw):
    from kvplan.diagnose import diagnose

    message = _refusal(**{"max_model_len": 8192, **kw}).message.split('"')[1]
    top = diagnose([f"(EngineCore_DP0 pid=1) ERROR 12-02 01:00:00 [core.py:866] ValueError: {message}"]).top
    assert top is not None and top.symptom == "invalid_engine_flags"
    assert "--moe-backend" in top.fix


def test_the_page_has_the_field_and_the_api_plans_it(tmp_path):
    pytest.importorskip("fastapi", reason="kvplan[web] is not installed")
    pytest.importorskip("httpx", reason="fastapi.testclient needs httpx")
    import re

    from fastapi.testclient import TestClient

    from kvplan.web.app import create_app

    client = TestClient(create_app(upload_dir=str(tmp_path)))
    page, js = client.get("/").text, client.get("/static/app.js").text
    assert re.search(r'<input id="moe_backend" name="moe_backend" list="moe-backend-list"', page)
    assert '"moe_backend"' in re.search(r"const FIELDS = \[(.*?)\];", js, re.S).group(1)
    body = {"model": OSS, "gpu": "H100", "max_model_len": 16384, "vllm_version": "0.20.0"}
    assert client.post("/api/plan", json={**body, "moe_backend": "marlin"}).json()["num_gpu_blocks"] == \
        _fit(moe_backend="marlin").num_gpu_blocks
    refused_ = client.post("/api/plan", json={**body, "moe_backend": "cutlass"})
    assert refused_.status_code == 400 and refused_.json()["field"] == "--moe-backend"


def test_the_flag_is_read_before_the_variable():
    """oracle/mxfp4.py select_mxfp4_moe_backend (0.19.0-0.23.0) takes moe_backend before VLLM_MXFP4_USE_MARLIN."""
    kw = dict(gpu="B200", env=["VLLM_MXFP4_USE_MARLIN=1"])
    assert _fit(**kw).weights_bytes == _fit(gpu="B200", moe_backend="marlin").weights_bytes
    flag = _fit(**kw, moe_backend="flashinfer_trtllm")
    assert (flag.weights_bytes, flag.num_gpu_blocks) == (_fit(gpu="B200").weights_bytes, _fit(gpu="B200").num_gpu_blocks)
    # where the variable is gone, the note names the flag that stands for it
    assert ("environment VLLM_MXFP4_USE_MARLIN=1: not read by vLLM 0.33.0 (--moe-backend marlin puts the MXFP4 experts on "
            "Marlin there)") in _fit(version="0.33.0", env=["VLLM_MXFP4_USE_MARLIN=1"]).assumptions


def test_lora_refuses_the_mega_moe_backends():
    """config/lora.py LoRAConfig.verify_with_kernel_config (0.33.0, 0.34.0), checked before the DeepSeek-V4 one."""
    kw = dict(model=FP8, gpu="B200", max_model_len=8192, enable_lora=True, moe_backend="deep_gemm_mega_moe")
    assert ("LoRA is not supported with moe_backend='deep_gemm_mega_moe'. Disable LoRA or select a MoE backend that "
            "supports LoRA.") in _refusal(version="0.33.0", **kw).message
    # 0.32.0 has no such check: the FP8 oracle refuses the value instead
    assert "is not supported for FP8 MoE" in _refusal(version="0.32.0", **kw).message


def test_deepseek_v4_picks_its_kernel_in_its_own_model_code():
    kw = dict(model="deepseek-ai/DeepSeek-V4-Pro", gpu="B200", version="0.33.0", max_model_len=8192,
              tensor_parallel_size=8)
    default = _fit(**kw)
    for value in ("flashinfer_moe_ep_mega_deep_gemm", "deep_gemm_mega_moe", "triton", "marlin"):
        asked = _fit(**kw, moe_backend=value)
        assert (asked.weights_bytes, asked.num_gpu_blocks) == (default.weights_bytes, default.num_gpu_blocks), value
        assert any("DeepSeek-V4 picks its MoE kernel in its own model code" in n for n in asked.assumptions)
