"""An FP8 e4m3 KV cache below compute capability 8.9 (versions.py row fp8_e4m3_kv_pre_ada): vLLM 0.11.0 sends any fp8
KV cache on cc 8.0-8.8 to its Triton backend (platforms/cuda.py get_attn_backend_cls), which cannot store e4m3 there
(vLLM issue #26431, an RTX 3090 on 0.11.0): a platform refusal whose fix is fp8_e5m2. From 0.11.1 FlashInfer is picked
(cuda.py _get_backend_priorities): a warning naming the issue, no refusal."""

from dataclasses import replace

import kvplan
from kvplan.api import compute_fixes
from kvplan.plan import FP8E4NV_ERROR

E5M2 = {"kv_cache_dtype": "fp8_e5m2"}


def test_e4m3_kv_on_an_rtx_3090_is_refused_where_triton_takes_it():
    p = kvplan.fit("Qwen/Qwen3-8B", "RTX 3090", kv_cache_dtype="fp8", max_model_len=32768, vllm_version="0.11.0")
    assert not p.fits and p.failure == "platform" and p.failure_code == "fp8_e4m3_kv"
    assert FP8E4NV_ERROR in p.error and p.error.startswith("--kv-cache-dtype fp8:") and "#26431" in p.error
    assert [(f.name, f.flags, f.fits) for f in p.fixes] == [("fp8_e5m2 KV cache", {"kv_cache_dtype": "fp8_e5m2"}, True)]
    assert kvplan.fit("Qwen/Qwen3-8B", "RTX 3090", kv_cache_dtype="fp8_e5m2", max_model_len=32768,
                      vllm_version="0.11.0").fits
    # Ada (8.9) casts e4m3 natively: no refusal
    assert kvplan.fit("Qwen/Qwen3-8B", "L40S", kv_cache_dtype="fp8", max_model_len=32768, vllm_version="0.11.0").fits


def test_e4m3_kv_on_an_rtx_3090_warns_where_flashinfer_takes_it():
    for v in ("0.11.1", "0.21.0", None):
        kw = {"vllm_version": v} if v else {}
        p = kvplan.fit("Qwen/Qwen3-8B", "RTX 3090", kv_cache_dtype="fp8", max_model_len=32768, **kw)
        assert p.fits, v
        assert any("#26431" in w and "FlashInfer" in w for w in p.warnings), v
    p = kvplan.fit("Qwen/Qwen3-8B", "RTX 3090", kv_cache_dtype="fp8_e5m2", max_model_len=32768)
    assert not any("#26431" in w for w in p.warnings)


def test_memory_fixes_offer_e5m2_below_8_9_and_e4m3_from_it():
    p = kvplan.fit("Qwen/Qwen3-8B", "RTX 3090", max_model_len=40960, gpu_memory_utilization=0.7)
    kv = [f.flags for f in p.fixes if "kv_cache_dtype" in f.flags]
    assert kv == [{"kv_cache_dtype": "fp8_e5m2"}]
    p = kvplan.fit("Qwen/Qwen3-8B", "L40S", max_model_len=40960, gpu_memory_utilization=0.42)
    assert [f.flags for f in p.fixes if "kv_cache_dtype" in f.flags] == [{"kv_cache_dtype": "fp8"}]


def test_the_refusals_kind_not_its_wording_offers_e5m2():
    """The fix follows Plan.failure_code, the check that refused, not the words of its message: reworded, the message
    still gets fp8_e5m2; with its kind taken away, the message quoting vLLM's error gets no fp8_e5m2."""
    p = kvplan.fit("Qwen/Qwen3-8B", "RTX 3090", kv_cache_dtype="fp8", max_model_len=32768, vllm_version="0.11.0")
    reworded = replace(p, error="an e4m3 KV cache is refused on this card", fixes=())
    assert FP8E4NV_ERROR not in reworded.error
    assert [(f.flags, f.fits) for f in compute_fixes(reworded)] == [(E5M2, True)]
    unkinded = replace(p, failure_code=None, fixes=())
    assert FP8E4NV_ERROR in unkinded.error
    offered = [f.flags for f in compute_fixes(unkinded)]
    assert offered and E5M2 not in offered  # the platform refusal's fallback: another GPU


def test_each_platform_refusal_names_its_check():
    """Every check a "platform" plan fails names itself in failure_code, and the log's exception follows it: the
    wheels' missing kernels are a RuntimeError at the first kernel, the others vLLM's ValueError."""
    below_floor = kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "Tesla P100", max_model_len=4096)
    bf16 = kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "T4", dtype="bfloat16", max_model_len=4096)
    mxfp4 = kvplan.fit("openai/gpt-oss-20b", "T4", max_model_len=4096)  # MXFP4 from compute capability 8.0
    backend = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", block_size=8, max_model_len=8192,
                         vllm_version="0.29.0")
    fp8 = kvplan.fit("Qwen/Qwen3-8B", "RTX 3090", kv_cache_dtype="fp8", max_model_len=32768, vllm_version="0.11.0")
    for p, code, exception in ((below_floor, "compute_capability", "RuntimeError: "), (bf16, "bfloat16", "ValueError: "),
                               (mxfp4, "quantization", "ValueError: "),
                               (backend, "attention_backend", "ValueError: "), (fp8, "fp8_e4m3_kv", "ValueError: ")):
        assert p.failure == "platform" and p.failure_code == code, (p.failure, p.failure_code, p.error)
        assert p.vllm_log == (exception + p.error,), code
    # a plan that starts, or one refused for memory, names no platform check
    assert kvplan.fit("Qwen/Qwen3-8B", "L40S", max_model_len=32768).failure_code is None
    short = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "RTX 4090", vllm_version="0.19.0")
    assert short.failure == "memory" and short.failure_code is None
    # the block size no backend takes: its fix follows the kind, whatever the message says
    reworded = replace(backend, error="no attention backend takes this block size", fixes=())
    assert [f.flags for f in compute_fixes(reworded)] == [f.flags for f in backend.fixes] == [{"block_size": 16}]
