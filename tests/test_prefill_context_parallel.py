"""--prefill-context-parallel-size / -pcp (ParallelConfig.prefill_context_parallel_size; the flag from vLLM 0.12.0).
vLLM's world size per engine is PP x TP x PCP (config/parallel.py 0.12.0-0.34.0): P whole TP groups. 0.12.0 refuses it
(ParallelConfig ValueError), 0.13.0-0.25.x have no attention impl with supports_pcp (cp_utils assert), from 0.26.0 the
MLA impls take it. With DCP off each PCP rank keeps the whole KV cache (pcp_shard_decode_requests 0.34.0; the prefill's
K/V gathered before the cache write, model_executor/layers/attention/pcp.py 0.26.0), so the per-rank tokens and
concurrency are the ones without PCP, and a MoE layer's experts are split over TP x PCP (x DP)
(flatten_tp_across_dp_and_pcp, fused_moe/config.py 0.26.0-0.34.0). kvplan answered 'No such option', validate skipped
a record with it and `kvplan fit --from` refused it."""
from __future__ import annotations

import pytest

import kvplan
from kvplan.deploy import render_files, spec_from_plan
from kvplan.errors import InputError

V3 = "deepseek-ai/DeepSeek-V3"
LITE = "deepseek-ai/DeepSeek-V2-Lite"
GQA = "Qwen/Qwen2.5-1.5B-Instruct"
LEN = 131072
FLAG = "--prefill-context-parallel-size"


def _v3(version: str = "0.33.0", pcp: int | None = None, **kw):
    return kvplan.fit(V3, "H200", tensor_parallel_size=8, max_model_len=kw.pop("max_model_len", LEN),
                      vllm_version=version, prefill_context_parallel_size=pcp, fixes=False, **kw)


def _refusal(**kw) -> InputError:
    with pytest.raises(InputError) as e:
        kvplan.fit(**kw)
    return e.value


def test_pcp_adds_whole_tp_groups_and_splits_the_experts_over_them():
    base, pcp = _v3(), _v3(pcp=2)
    assert (base.gpus_used, pcp.gpus_used) == (8, 16)
    assert pcp.args.num_gpus == 16
    # dense and attention weights stay TP-sharded (replicated over PCP); the 256 routed experts are split over 16 ranks
    assert pcp.weights_bytes < 0.55 * base.weights_bytes
    # every PCP rank keeps the whole KV cache: the same block bytes and the same per-request cost, a larger pool
    assert pcp.bytes_per_block == base.bytes_per_block and pcp.kv_bytes_per_token == base.kv_bytes_per_token
    assert pcp.kv_cache_bytes > base.kv_cache_bytes
    assert pcp.kv_cache_tokens == pcp.num_gpu_blocks * 16  # int(concurrency x max_model_len), 0.20.1+
    assert pcp.max_concurrency == pytest.approx(pcp.num_gpu_blocks / (LEN // 16))
    assert any(a.startswith("prefill context parallelism 2: 2 TP groups of 8, 16 GPUs per engine") for a in pcp.assumptions)


def test_a_dense_mla_model_keeps_its_pool_and_tokens():
    # DeepSeek-V2-Lite is MoE: its experts move; the KV geometry does not
    base = kvplan.fit(LITE, "H100", tensor_parallel_size=1, max_model_len=32768, fixes=False)
    two = kvplan.fit(LITE, "H100", tensor_parallel_size=1, prefill_context_parallel_size=2, max_model_len=32768, fixes=False)
    assert two.gpus_used == 2 and two.bytes_per_block == base.bytes_per_block
    assert two.weights_bytes < base.weights_bytes and two.num_gpu_blocks > base.num_gpu_blocks


def test_gpu_count_counts_pcp():
    e = _refusal(model=V3, gpu="H200", tensor_parallel_size=8, prefill_context_parallel_size=2, num_gpus=8, fixes=False)
    assert e.field == "--num-gpus" and "prefill context" in str(e) and "16 ranks" in str(e)


@pytest.mark.parametrize("version, text", [
    ("0.11.2", "has no --prefill-context-parallel-size flag (first in vLLM 0.12.0)"),
    ("0.12.0", "ValueError: Prefill context parallelism is not fully supported. Please set "
               "prefill_context_parallel_size to 1."),
    ("0.13.0", "AssertionError: PCP requires attention impls' support, but the impl"),
    ("0.25.0", "does not support PCP."),
])
def test_refused_before_0_26_with_the_releases_text(version, text):
    with pytest.raises(InputError) as e:
        _v3(version, 2)
    assert e.value.field == FLAG and text in str(e.value)
    assert _v3("0.26.0", 2, env=["VLLM_USE_V2_MODEL_RUNNER=1"]).kv_cache_tokens > 0


def test_model_runner_v1_is_refused_as_not_read():
    # PCP's prefill split is model runner v2's (v1/worker/gpu/pcp_manager.py); 0.26-0.28 keep v1 for a MoE model not
    # listed (DeepseekV3ForCausalLM), whose gpu_model_runner.py has no PCP code
    with pytest.raises(InputError) as e:
        _v3("0.26.0", 2)
    assert e.value.field == FLAG and "kvplan has not read prefill context parallelism on model runner v1" in str(e.value)
    assert "VLLM_USE_V2_MODEL_RUNNER=1" in e.value.fix
    # DeepseekV2ForCausalLM is on 0.26's model-runner-v2 list; 0.29+ run v2 for every model
    assert kvplan.fit(LITE, "H100", tensor_parallel_size=1, max_model_len=32768, vllm_version="0.26.0",
                      prefill_context_parallel_size=2, fixes=False).gpus_used == 2
    assert _v3("0.29.0", 2).gpus_used == 16
    # ROCm turns FULL CUDA graphs to PIECEWISE under PCP (platforms/rocm.py): not read, refused by name
    e = _refusal(model=LITE, gpu="MI300X", tensor_parallel_size=1, max_model_len=32768, vllm_version="0.33.0",
                 prefill_context_parallel_size=2, fixes=False)
    assert e.field == FLAG and "kvplan has not read prefill context parallelism on ROCm" in str(e)


def test_vllms_refusals_from_0_26():
    e = _refusal(model=GQA, gpu="H100", tensor_parallel_size=2, prefill_context_parallel_size=2, max_model_len=8192,
                 fixes=False)
    assert e.field == FLAG and "\"PCP not supported\"" in str(e) and "MLA" in str(e)
    with pytest.raises(InputError) as e:
        _v3("0.27.0", 2, data_parallel_size=2)
    assert "ValueError: PCP does not support data parallelism yet." in str(e.value)
    with pytest.raises(InputError) as e:
        _v3("0.33.0", 2, decode_context_parallel_size=4)
    assert ("ValueError: When PCP is enabled, DCP must be disabled, span the PCP axis, or span the full TP x PCP axis. "
            "Got TP=8, PCP=2, DCP=4; valid DCP sizes are [1, 2, 16].") in str(e.value)
    # what kvplan has not read is refused by name, not guessed
    with pytest.raises(InputError) as e:
        _v3("0.33.0", 2, decode_context_parallel_size=2)
    assert "kvplan has not read" in str(e.value)
    with pytest.raises(InputError) as e:
        _v3("0.33.0", 2, data_parallel_size=2)
    assert "kvplan has not read" in str(e.value)
    with pytest.raises(InputError) as e:  # the seed's arithmetic has no PCP: refused, not ignored
        _v3("0.33.0", 2, overhead_gb=3)
    assert e.value.field == FLAG and "would be ignored" in str(e.value)
    with pytest.raises(InputError):
        _v3("0.33.0", 0)


def test_serve_sh_from_and_logs_carry_it():
    p = _v3(pcp=2)
    assert "--prefill-context-parallel-size 2" in render_files(spec_from_plan(p))["serve.sh"]
    from kvplan.serve_command import parse_serve_command

    assert parse_serve_command(f"vllm serve {V3} -tp 8 -pcp 2").planned == {
        "tensor_parallel_size": 8, "prefill_context_parallel_size": 2}
    assert parse_serve_command(f"vllm serve {V3} -tp 8 --prefill-context-parallel-size 4").planned[
        "prefill_context_parallel_size"] == 4

    from kvplan.logs import parse_command_args, parse_log

    assert parse_command_args(f"vllm serve {V3} -tp 8 -pcp 2")["prefill_context_parallel_size"] == 2
    log = ("INFO 10-20 10:00:01 [api_server.py:1896] vLLM API server version 0.33.0\n"
           "INFO 10-20 10:00:01 [utils.py:233] non-default args: {'model_tag': 'deepseek-ai/DeepSeek-V3', 'model': "
           "'deepseek-ai/DeepSeek-V3', 'max_model_len': 131072, 'tensor_parallel_size': 8, "
           "'prefill_context_parallel_size': 2}\n")
    assert parse_log(log).to_record()["args"]["prefill_context_parallel_size"] == 2


def test_validate_plans_a_record_with_it():
    from kvplan.validate import ARG_FIELDS, ARGS_NOT_MODELLED, validate_records

    assert "prefill_context_parallel_size" not in ARGS_NOT_MODELLED and "prefill_context_parallel_size" in ARG_FIELDS
    rec = {"id": "pcp-synthetic", "model": {"id": V3}, "gpu": {"name": "NVIDIA H200", "count": 16},
           "vllm_version": "0.33.0",
           "args": {"max_model_len": LEN, "tensor_parallel_size": 8, "prefill_context_parallel_size": 2},
           "observed": {"fits": True}}
    (r,) = validate_records([rec])
    assert not r.skipped, r.skipped
    assert r.predicted["kv_cache_tokens"] == _v3(pcp=2).kv_cache_tokens


def test_fit_box_and_a_named_gpu_count_count_pcp():
    from kvplan.render import plan_rows

    rows = {name: value for name, value, *_ in plan_rows(_v3(pcp=2))}
    assert "(TP 8 × PP 1 × PCP 2 × DP 1)" in rows["GPU"] and "· PCP 2 ·" in rows["flags"]
    e = _refusal(model=V3, gpu="8x H200", tensor_parallel_size=8, prefill_context_parallel_size=2, fixes=False)
    assert e.field == "--gpu" and "prefill context x data parallel = 16 ranks" in str(e)


def test_a_log_with_it_is_planned_with_it():
    from kvplan.api import FitFlags
    from kvplan.logs import parse_log
    from kvplan.reconcile import plan_from_log

    text = ("INFO 10-20 10:00:01 [api_server.py:1896] vLLM API server version 0.33.0\n"
            "INFO 10-20 10:00:01 [utils.py:233] non-default args: {'model_tag': 'deepseek-ai/DeepSeek-V3', 'model': "
            "'deepseek-ai/DeepSeek-V3', 'max_model_len': 131072, 'tensor_parallel_size': 8, "
            "'prefill_context_parallel_size': 2}\n")
    plan, _ = plan_from_log(parse_log(text), V3, FitFlags(gpu="H200"))
    assert plan.args.prefill_context_parallel_size == 2 and plan.gpus_used == 16


def test_expert_parallelism_and_eplb_span_the_pcp_ranks():
    # the EP group is TP x PCP x DP (config/parallel.py 0.26.0+): EPLB on TP 1 is refused without PCP, taken with it
    kw = dict(model=LITE, gpu="H100", tensor_parallel_size=1, max_model_len=32768, enable_expert_parallel=True,
              enable_eplb=True, vllm_version="0.33.0", fixes=False)
    e = _refusal(**kw)
    assert "EPLB requires tensor, prefill-context, or data parallelism" in str(e)
    p = kvplan.fit(prefill_context_parallel_size=2, **kw)
    assert p.args.expert_parallel_size == 2 and p.gpus_used == 2
