"""An FP8 e4m3 KV cache below compute capability 8.9 (versions.py row fp8_e4m3_kv_pre_ada): vLLM 0.11.0 sends any fp8
KV cache on cc 8.0-8.8 to its Triton backend (platforms/cuda.py get_attn_backend_cls), which cannot store e4m3 there
(vLLM issue #26431, an RTX 3090 on 0.11.0): a platform refusal whose fix is fp8_e5m2. From 0.11.1 FlashInfer is picked
(cuda.py _get_backend_priorities): a warning naming the issue, no refusal."""

import kvplan
from kvplan.plan import FP8E4NV_ERROR


def test_e4m3_kv_on_an_rtx_3090_is_refused_where_triton_takes_it():
    p = kvplan.fit("Qwen/Qwen3-8B", "RTX 3090", kv_cache_dtype="fp8", max_model_len=32768, vllm_version="0.11.0")
    assert not p.fits and p.failure == "platform"
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
