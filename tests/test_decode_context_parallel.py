"""--decode-context-parallel-size / -dcp (vLLM >= 0.10.2, ParallelConfig.decode_context_parallel_size): each rank of a
DCP group keeps 1/dcp of every sequence's tokens in its MLA (GQA from 0.11.1) KV cache. The per-rank pool is the one
without DCP; a request takes cdiv(max_model_len, dcp) tokens' blocks (FullAttentionSpec.max_memory_usage_bytes,
v1/kv_cache_interface.py) and the logged tokens are dcp x the local count ("Multiplying the GPU KV cache size by the
dcp_world_size", v1/core/kv_cache_utils.py 0.10.2-0.20.0; max concurrency x max_model_len after). kvplan answered
"No such option", validate skipped a record with it and `kvplan fit --from` refused it."""
from __future__ import annotations

import pytest

import kvplan
from kvplan.deploy import render_files, spec_from_plan
from kvplan.errors import InputError
from kvplan.plan.args import cdiv

V3 = "deepseek-ai/DeepSeek-V3"
GQA = "Qwen/Qwen2.5-1.5B-Instruct"  # 12 query heads, 2 KV heads
LEN = 131072


def _v3(version: str, dcp: int | None = None, **kw):
    return kvplan.fit(V3, "H200", tensor_parallel_size=8, max_model_len=kw.pop("max_model_len", LEN),
                      vllm_version=version, decode_context_parallel_size=dcp, fixes=False, **kw)


@pytest.mark.parametrize("version", ["0.30.0", "0.33.0"])
def test_mla_pool_unchanged_tokens_and_concurrency_as_vllm_computes_them_from_0_20_1(version):
    base, dcp = _v3(version), _v3(version, 8)
    # the same per-rank pool, cut into the same blocks
    assert (dcp.kv_cache_bytes, dcp.num_gpu_blocks, dcp.bytes_per_block) == (base.kv_cache_bytes, base.num_gpu_blocks,
                                                                              base.bytes_per_block)
    # a request holds cdiv(cdiv(131072, 8), 16) = 1,024 blocks per rank; tokens = int(concurrency x max_model_len)
    per_req = cdiv(cdiv(LEN, 8), 16)
    assert dcp.max_concurrency == pytest.approx(dcp.num_gpu_blocks / per_req)
    assert dcp.kv_cache_tokens == int(dcp.num_gpu_blocks / per_req * LEN) == dcp.num_gpu_blocks * 16 * 8
    assert dcp.kv_cache_tokens == 8 * base.kv_cache_tokens
    assert dcp.kv_bytes_per_token == pytest.approx(base.kv_bytes_per_token / 8)
    assert any(a.startswith("decode context parallelism 8 (TP 8 split into 1 DCP group(s) of 8)") for a in dcp.assumptions)


def test_blocks_era_multiplies_the_logged_tokens_by_dcp():
    # 0.11.0: get_kv_cache_config_from_groups logs num_blocks // groups x block size, then x dcp_world_size
    base, dcp = _v3("0.11.0"), _v3("0.11.0", 4)
    assert dcp.num_gpu_blocks == base.num_gpu_blocks
    bs = base.kv_cache_tokens // base.num_gpu_blocks  # FlashMLA's 64
    assert dcp.kv_cache_tokens == dcp.num_gpu_blocks * bs * 4
    assert dcp.max_concurrency == pytest.approx(dcp.num_gpu_blocks / cdiv(cdiv(LEN, 4), bs))
    # the predicted log carries vLLM's line before the count, in each release's words, up to 0.20.0
    assert dcp.vllm_log[dcp.vllm_log.index(f"GPU KV cache size: {dcp.kv_cache_tokens:,} tokens") - 1] == (
        "Multiplying the GPU KV cache size by the dcp_world_size 4.")
    assert ("Multiplying the GPU KV cache size by the cp_world_size 4 (pcp_world_size 1 * dcp_world_size 4)."
            in _v3("0.20.0", 4).vllm_log)
    assert not any("Multiplying" in line for line in _v3("0.20.1", 4).vllm_log + base.vllm_log)


def test_a_length_that_does_not_fit_without_dcp_fits_with_it():
    # the fit check charges each rank cdiv(max_model_len, dcp) tokens (max_memory_usage_bytes)
    big = dict(max_model_len=LEN, kv_cache_memory_bytes=2 * 1024**3)
    assert not _v3("0.33.0", **big).fits
    assert _v3("0.33.0", 8, **big).fits


def test_gqa_from_0_11_1_with_vllms_head_checks():
    base = kvplan.fit(GQA, "H100", tensor_parallel_size=4, max_model_len=32768, fixes=False)
    two = kvplan.fit(GQA, "H100", tensor_parallel_size=4, max_model_len=32768, decode_context_parallel_size=2, fixes=False)
    assert two.num_gpu_blocks == base.num_gpu_blocks and two.kv_cache_tokens == 2 * base.kv_cache_tokens
    with pytest.raises(InputError) as e:  # tp // kv heads = 2
        kvplan.fit(GQA, "H100", tensor_parallel_size=4, max_model_len=32768, decode_context_parallel_size=4, fixes=False)
    assert e.value.field == "--decode-context-parallel-size"
    assert "ValueError: `--decode-context-parallel-size` (4) exceeds the maximum supported value (2)" in str(e.value)
    with pytest.raises(InputError) as e:  # tp must exceed the KV heads; an assert up to 0.26
        kvplan.fit(GQA, "H100", tensor_parallel_size=2, max_model_len=32768, decode_context_parallel_size=2,
                   vllm_version="0.20.0", fixes=False)
    assert ("AssertionError: tensor parallel size 2 must be greater than total num kv heads 2 when enable decode "
            "context parallel for GQA/MQA") in str(e.value)
    with pytest.raises(InputError) as e:  # 0.10.2-0.11.0: only the MLA impls return the softmax LSE
        kvplan.fit(GQA, "H100", tensor_parallel_size=4, max_model_len=32768, decode_context_parallel_size=2,
                   vllm_version="0.11.0", fixes=False)
    assert "DCP requires attention impls to return the softmax lse for decode" in str(e.value)
    assert "in 0.11.0 only the FlashMLA, FlashAttention-MLA and CUTLASS-MLA impls return it" in str(e.value)


@pytest.mark.parametrize("version, text", [
    ("0.11.0", "AssertionError: tp_size=8 must be divisible bydcp_size=3."),
    ("0.33.0", "ValueError: tp_size=8 must be divisible by dcp_size=3.")])
def test_dcp_must_divide_tp_with_the_releases_text(version, text):
    with pytest.raises(InputError) as e:
        _v3(version, 3)
    assert e.value.field == "--decode-context-parallel-size" and text in str(e.value) and "2, 4, 8" in e.value.fix


def test_refused_before_its_release_and_beside_state_layers():
    with pytest.raises(InputError) as e:
        _v3("0.10.1", 2)
    assert "has no --decode-context-parallel-size flag (first in vLLM 0.10.2)" in str(e.value)
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen3-Next-80B-A3B-Instruct", "H100", tensor_parallel_size=4, max_model_len=32768,
                   decode_context_parallel_size=2, fixes=False)
    assert e.value.field == "--decode-context-parallel-size" and "recurrent" in str(e.value)
    with pytest.raises(InputError):
        kvplan.fit(V3, "H200", tensor_parallel_size=8, decode_context_parallel_size=0, fixes=False)
    with pytest.raises(InputError) as e:  # the seed's arithmetic has no DCP: refused, not ignored
        kvplan.fit(V3, "H200", tensor_parallel_size=8, decode_context_parallel_size=8, overhead_gb=3, fixes=False)
    assert e.value.field == "--decode-context-parallel-size" and "would be ignored" in str(e.value)


def test_fp8_mla_cache_warns_where_the_release_asserts():
    p = _v3("0.11.0", 8, max_model_len=32768, kv_cache_dtype="fp8")
    assert any("DCP not support fp8 kvcache now." in w for w in p.warnings)
    assert not any("fp8 kvcache" in w for w in _v3("0.33.0", 8, max_model_len=32768, kv_cache_dtype="fp8").warnings)


def test_serve_sh_from_and_logs_carry_it():
    p = _v3("0.33.0", 8)
    assert "--decode-context-parallel-size 8" in render_files(spec_from_plan(p))["serve.sh"]
    from kvplan.serve_command import parse_serve_command

    cmd = parse_serve_command(f"vllm serve {V3} -tp 8 -dcp 8 --max-model-len 131072")
    assert cmd.planned["decode_context_parallel_size"] == 8
    cmd = parse_serve_command(f"vllm serve {V3} -tp 8 --decode-context-parallel-size 4")
    assert cmd.planned["decode_context_parallel_size"] == 4

    from kvplan.logs import parse_log

    log = ("INFO 10-20 10:00:01 [api_server.py:1896] vLLM API server version 0.11.0\n"
           "INFO 10-20 10:00:01 [utils.py:233] non-default args: {'model_tag': 'deepseek-ai/DeepSeek-V3', 'model': "
           "'deepseek-ai/DeepSeek-V3', 'max_model_len': 131072, 'tensor_parallel_size': 8, "
           "'decode_context_parallel_size': 8}\n")
    assert parse_log(log).to_record()["args"]["decode_context_parallel_size"] == 8
    # from 0.18 the engine config line prints it
    log = ("INFO 10-20 10:00:02 [core.py:93] Initializing a V1 LLM engine (v0.18.0) with config: model='deepseek-ai/"
           "DeepSeek-V3', dtype=torch.bfloat16, max_seq_len=131072, tensor_parallel_size=8, pipeline_parallel_size=1, "
           "data_parallel_size=1, decode_context_parallel_size=4, disable_custom_all_reduce=False, quantization=fp8\n")
    assert parse_log(log).to_record()["args"]["decode_context_parallel_size"] == 4


def test_validate_plans_a_record_with_it():
    from kvplan.validate import ARG_FIELDS, ARGS_NOT_MODELLED, validate_records

    assert "decode_context_parallel_size" not in ARGS_NOT_MODELLED and "decode_context_parallel_size" in ARG_FIELDS
    rec = {"id": "dcp-synthetic", "model": {"id": V3}, "gpu": {"name": "NVIDIA H200", "count": 8}, "vllm_version": "0.33.0",
           "args": {"max_model_len": LEN, "tensor_parallel_size": 8, "decode_context_parallel_size": 8},
           "observed": {"fits": True}}
    (r,) = validate_records([rec])
    assert not r.skipped, r.skipped
    assert r.predicted["kv_cache_tokens"] == _v3("0.33.0", 8).kv_cache_tokens


def test_reconcile_plans_a_dcp_log_with_it():
    # a 0.11.0 log's lines as kv_cache_utils.py prints them with -dcp 8; the pool as logged (plan_from_log takes it)
    from kvplan.api import FitFlags
    from kvplan.logs import parse_log
    from kvplan.reconcile import plan_from_log, reconcile

    text = ("INFO 10-20 10:00:01 [api_server.py:1896] vLLM API server version 0.11.0\n"
            "INFO 10-20 10:00:01 [utils.py:233] non-default args: {'model_tag': 'deepseek-ai/DeepSeek-V3', 'model': "
            "'deepseek-ai/DeepSeek-V3', 'max_model_len': 131072, 'tensor_parallel_size': 8, "
            "'decode_context_parallel_size': 8}\n"
            "(EngineCore_DP0 pid=1) INFO 10-20 10:05:00 [gpu_worker.py:298] Available KV cache memory: 40.84 GiB\n"
            "(EngineCore_DP0 pid=1) INFO 10-20 10:05:01 [kv_cache_utils.py:1085] Multiplying the GPU KV cache size by "
            "the dcp_world_size 8.\n"
            "(EngineCore_DP0 pid=1) INFO 10-20 10:05:01 [kv_cache_utils.py:1087] GPU KV cache size: 4,992,000 tokens\n"
            "(EngineCore_DP0 pid=1) INFO 10-20 10:05:01 [kv_cache_utils.py:1091] Maximum concurrency for 131,072 tokens "
            "per request: 38.09x\n")
    log = parse_log(text)
    assert not any("Multiplying" in u for u in log.unrecognised)
    plan, _ = plan_from_log(log, V3, FitFlags(gpu="H200"))
    assert plan.args.decode_context_parallel_size == 8
    rows = {r.term: r for r in reconcile(log, plan).rows}
    assert rows["kv_cache_tokens"].gap == 0 and abs(rows["max_concurrency"].gap) < 0.01


def test_mla_before_0_11_1_needs_flashmla_or_cutlass_mla():
    # 0.10.2-0.11.0: Triton MLA (pre-Hopper GPUs, GeForce Blackwell, ROCm) does not return the softmax LSE
    lite = dict(tensor_parallel_size=2, decode_context_parallel_size=2, max_model_len=32768, fixes=False)
    with pytest.raises(InputError) as e:
        kvplan.fit("deepseek-ai/DeepSeek-V2-Lite", "A100", vllm_version="0.11.0", **lite)
    assert "but the impl TritonMLAImpl does not return the softmax lse for decode." in str(e.value)
    assert "0.11.1" in e.value.fix
    for gpu, version in (("H100", "0.11.0"), ("B200", "0.10.2"), ("A100", "0.11.1")):
        assert kvplan.fit("deepseek-ai/DeepSeek-V2-Lite", gpu, vllm_version=version, **lite).kv_cache_tokens > 0
