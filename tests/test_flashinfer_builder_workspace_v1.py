"""FlashInfer's own metadata-builder workspace inside model runner v1's CUDA-graph estimate, where FlashInfer serves an
fp8 KV cache without XQA / TRTLLM-gen kernels (rules row v1_estimate_fi_wrapper_workspace_cc_majors: 8.x and 12.x in
0.20-0.27, 8.x from 0.28; plan.terms.trtllm_workspace_in_estimate_bytes).

vLLM (v1/attention/backends/flashinfer.py FlashInferMetadataBuilder._get_workspace_buffer, read in the 0.20.0, 0.20.2,
0.21.0, 0.22.0 and 0.24.0 wheels) makes a VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE buffer, 394 MiB by default, at the
builder's first prefill or decode wrapper; model runner v1 calls it nowhere earlier (v1/worker/gpu_model_runner.py), so
the first FULL-mode warmup of profile_cudagraph_memory makes it, and the estimate, max(the two modes' first captures)
+ the per-graph rest, holds at least the buffer. The real capture does not: kernel_warmup's "Warming up FlashInfer
attention" builds the real builder's wrappers before capture_model.
"""

import copy

import kvplan

from kvplan.calibration import GIB
from kvplan.validate import predict_record, validate_records
from named_records import record

MIB = 1024 ** 2
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
V1 = ["VLLM_USE_V2_MODEL_RUNNER=0"]
# GB10 (cc 12.1), vLLM 0.20.0, fp8_e4m3 KV, capture sizes [1] (the record plans [1, 2]), FULL_AND_PIECEWISE; its log:
# 'Profiling CUDA graph memory: PIECEWISE=1 (largest=1), FULL=1 (largest=1)', 'Estimated CUDA graph memory: 0.43 GiB total'
GB10_FP8 = "qwen3.6-35b-a3b-nvfp4-redhat-gb10-u090-tp1-fp8kv-l64k-seqs1-cold"
# RTX 5090 Laptop (cc 12.0), a 0.21.1 nightly, fp8 KV on FlashInfer, 51 capture sizes to 512: 'Estimated CUDA graph
# memory: 0.49 GiB total'
LAPTOP_FP8 = "qwen2.5-32b-instruct-gptq-int4-rtx5090laptop-u088-tp1-l4k-fp8kv-wsl2"


def _plan(version: str, gpu: str, **kw):
    p = kvplan.fit(LLAMA, gpu, max_model_len=8192, vllm_version=version, fixes=False, **kw)
    (cg,) = [t for t in p.terms if t.name == "cudagraph"]
    return p, cg.formula


def test_few_graphs_on_12x_and_8x_estimate_the_buffer():
    # two capture sizes: the graphs' own estimate is below the buffer, so the estimate is the buffer
    for gpu in ("RTX 5090", "L40S", "A100"):
        p, formula = _plan("0.21.0", gpu, kv_cache_dtype="fp8", max_num_seqs=2)
        assert p.model_runner["runner"] == "v1" and p.cudagraphs["mode"] == "FULL_AND_PIECEWISE", gpu
        assert p.cudagraph_capture_bytes < 394 * MIB, gpu
        assert p.cudagraph_bytes == 394 * MIB, gpu
        assert "metadata-builder workspace" in formula, gpu
    # the variable sizes it, and the pool gives up the difference
    small, _ = _plan("0.21.0", "RTX 5090", kv_cache_dtype="fp8", max_num_seqs=2,
                     env=[f"VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE={300 * MIB}"])
    big, _ = _plan("0.21.0", "RTX 5090", kv_cache_dtype="fp8", max_num_seqs=2)
    assert small.cudagraph_bytes == 300 * MIB
    assert small.kv_cache_bytes - big.kv_cache_bytes == 94 * MIB


def test_many_graphs_keep_their_own_estimate():
    # the default 51 sizes of Llama-3.1-8B estimate more than the buffer: the larger of the two stands
    p, formula = _plan("0.27.1", "RTX 5090", kv_cache_dtype="fp8", env=V1)
    assert p.cudagraph_capture_bytes > 394 * MIB
    assert p.cudagraph_bytes == p.cudagraph_capture_bytes and "metadata-builder workspace" in formula


def test_where_no_builder_buffer_lands_in_the_estimate():
    base = _plan("0.21.0", "RTX 5090", kv_cache_dtype="fp8", max_num_seqs=2)[0]
    # a bf16 cache on 12.x (FlashAttention 2), fp8 on Hopper (FlashAttention 3)
    for gpu, kv in (("RTX 5090", "auto"), ("H100", "fp8")):
        p, formula = _plan("0.21.0", gpu, kv_cache_dtype=kv, max_num_seqs=2)
        assert p.cudagraph_bytes == p.cudagraph_capture_bytes and "workspace" not in formula, (gpu, kv)
    # PIECEWISE graphs: no warmup in the estimate's window builds attention metadata
    p, _ = _plan("0.21.0", "RTX 5090", kv_cache_dtype="fp8", max_num_seqs=2,
                 compilation_config={"cudagraph_mode": "PIECEWISE"})
    assert p.cudagraph_bytes == p.cudagraph_capture_bytes
    # 0.19: the estimate is not subtracted (rules row cudagraph_subtracted)
    assert _plan("0.19.0", "RTX 5090", kv_cache_dtype="fp8", max_num_seqs=2)[0].cudagraph_bytes == 0
    # 0.28 on 12.x: XQA decode, the TRTLLM buffer instead (added to the graphs, rules row trtllm_attention_cc_majors)
    p, formula = _plan("0.28.0", "RTX 5090", kv_cache_dtype="fp8", max_num_seqs=2, env=V1)
    assert p.cudagraph_bytes == p.cudagraph_capture_bytes + 394 * MIB and "XQA" in formula
    # ... while 8.x keeps the builder's
    p, formula = _plan("0.28.0", "L40S", kv_cache_dtype="fp8", max_num_seqs=2, env=V1)
    assert p.cudagraph_bytes == 394 * MIB and "metadata-builder" in formula
    assert base.cudagraph_bytes == 394 * MIB


def test_the_gb10_start_meets_its_logged_estimate():
    # before the term kvplan's estimate was the graphs' 0.27 GiB against the logged 0.43; the buffer, 0.385 GiB, is
    # within 0.05 GiB of it, and the pool error falls from +0.50 % to +0.37 % at this scoring
    rec = record("blind_records.jsonl", GB10_FP8)
    plan, _ = predict_record(rec)
    assert plan.model_runner["runner"] == "v1"
    assert abs(plan.cudagraph_bytes / GIB - 0.43) < 0.05
    (res,) = validate_records([rec])
    assert 0 < res.error_pct["kv_cache_gib"] < 0.45


def test_a_hybrid_models_capture_holds_the_buffer_too():
    # Qwen3.6's GDN layers run their own backend, so vLLM's "Warming up FlashInfer attention" (every attention group
    # FlashInfer) does not run before capture_model, whose first FULL warmup makes the real builder's buffer: the GB10
    # start logs 'Graph capturing finished in 1 secs, took 0.64 GiB', kvplan's graphs alone 0.27 GiB
    rec = record("blind_records.jsonl", GB10_FP8)
    plan, _ = predict_record(rec)
    assert abs(plan.cudagraph_capture_bytes / GIB - rec["observed"]["cudagraph_gib"]) < 0.05
    bf16 = copy.deepcopy(rec)
    bf16["args"]["kv_cache_dtype"] = "auto"
    assert plan.cudagraph_capture_bytes - predict_record(bf16)[0].cudagraph_capture_bytes == 394 * MIB
    # a dense model (every attention group FlashInfer) has it made by that warmup, before the capture
    dense, _ = _plan("0.21.0", "RTX 5090", kv_cache_dtype="fp8", max_num_seqs=2)
    assert dense.cudagraph_capture_bytes < 394 * MIB


def test_the_laptop_start_is_not_charged_twice():
    # 51 sizes x 64 layers: the graphs' estimate (1.16 GiB, above the logged 0.49) exceeds the buffer, so the buffer
    # adds nothing; adding it would take the pool from -8.5 % to -41 %
    rec = record("blind_records.jsonl", LAPTOP_FP8)
    plan, _ = predict_record(rec)
    assert plan.cudagraph_bytes == plan.cudagraph_capture_bytes > 394 * MIB
    forced = copy.deepcopy(rec)
    forced["args"]["kv_cache_dtype"] = "auto"
    assert predict_record(forced)[0].cudagraph_bytes == plan.cudagraph_bytes


def test_piecewise_only_graphs_warn_that_the_buffer_comes_after_the_kv_cache():
    # no FULL graphs: nothing in the estimate's window makes the buffer, so vLLM makes it after the KV allocation
    piecewise = {"cudagraph_mode": "PIECEWISE"}
    for gpu, kv in (("B200", "auto"), ("RTX 5090", "fp8"), ("L40S", "fp8")):
        p, _ = _plan("0.21.0", gpu, kv_cache_dtype=kv, compilation_config=piecewise)
        (w,) = [w for w in p.warnings if "attention workspace is made after the KV cache" in w]
        assert "0.38 GiB" in w and "--gpu-memory-utilization" in w, gpu
        assert p.cudagraph_bytes == p.cudagraph_capture_bytes, gpu
    # FULL graphs (the estimate holds it), FlashAttention (no buffer), no graphs: no warning
    for gpu, kv, extra in (("RTX 5090", "fp8", {}), ("H100", "fp8", {"compilation_config": piecewise}),
                           ("RTX 5090", "auto", {"compilation_config": piecewise}),
                           ("B200", "auto", {"enforce_eager": True})):
        p, _ = _plan("0.21.0", gpu, kv_cache_dtype=kv, **extra)
        assert not [w for w in p.warnings if "attention workspace is made after" in w], (gpu, kv, extra)


def test_from_0_26_the_buffer_grows_with_the_prefill_footprint():
    # FlashInferMetadataBuilder._get_workspace_buffer from 0.26: max(the variable, batched tokens x query heads x head
    # size x 16 B); Llama-3.1-8B has 32 query heads of 128: 8,192 tokens give 512 MiB, 16,384 tokens 1 GiB
    for tokens, want in ((2048, 394 * MIB), (8192, 8192 * 32 * 128 * 16), (16384, 16384 * 32 * 128 * 16)):
        p, formula = _plan("0.26.0", "RTX 5090", kv_cache_dtype="fp8", max_num_seqs=2, max_num_batched_tokens=tokens,
                           env=V1)
        assert p.cudagraph_bytes == want, tokens
        assert ("prefill footprint" in formula) == (want > 394 * MIB), tokens
    # 0.24: the variable alone
    p, _ = _plan("0.24.0", "RTX 5090", kv_cache_dtype="fp8", max_num_seqs=2, max_num_batched_tokens=16384, env=V1)
    assert p.cudagraph_bytes == 394 * MIB
    # tensor parallelism halves the heads a rank's builder counts
    p, _ = _plan("0.26.0", "RTX 5090", kv_cache_dtype="fp8", max_num_seqs=2, max_num_batched_tokens=16384, env=V1,
                 tensor_parallel_size=2)
    assert p.cudagraph_bytes == 16384 * 16 * 128 * 16
